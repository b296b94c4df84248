// Lease versus buy against the catalog's offers (through the quote engine): golden results for
// an 8 × V100 server (an NVIDIA DGX-1 at 149000 USD) against AWS p3.16xlarge and Tencent
// GN10X.18XLARGE320, worked out by hand in the comments, and a utilisation sweep whose
// break-even matches the closed-form computation.
#include <catch2/catch.hpp>

#include "gpubill/tco/tco.hpp"
#include "tco_catalog.hpp"

using namespace gpubill;
using tco_test::cny;
using tco_test::usd;

namespace {

const RentOption& compared(const LeaseVsBuyResult& r, std::size_t i) {
  REQUIRE(r.comparisons.size() > i);
  return r.options.at(r.comparisons[i].option);
}

}  // namespace

TEST_CASE("8 × V100 against AWS p3.16xlarge, in USD, by hand", "[tco]") {
  const Catalog catalog(tco_test::data());
  LeaseVsBuyConfig c = tco_test::dgx1();
  c.providers = {"aws"};
  const LeaseVsBuyResult r = lease_vs_buy(catalog, c);

  // Buying: 179608.64 USD over 36 months (tco_buy_test).
  CHECK(r.buy.total == usd("179608.64"));
  // Renting: 1 × p3.16xlarge at 24.48 USD/h, 438 h a month (730 × 0.6) = 10722.24 a month.
  REQUIRE(r.options.size() == 1);  // AWS has no prepaid price for p3
  REQUIRE(r.best_payg == 0u);
  CHECK_FALSE(r.best_prepaid);
  const RentOption& o = compared(r, 0);
  CHECK(o.provider == "aws");
  CHECK(o.region == "us-east-1");
  CHECK(o.instance_type == "p3.16xlarge");
  CHECK(o.instances == 1);
  CHECK(o.gpu == "V100-SXM2-16GB");
  CHECK(o.per_month == usd("10722.24"));
  CHECK(o.cumulative[17] == usd("182278.08"));  // < 184562.41 bought: renting still cheaper
  CHECK(o.cumulative[18] == usd("193000.32"));  // > 186654.32 bought: buying cheaper from here
  CHECK(o.total == usd("386000.64"));
  CHECK(o.price_per_gpu_hour == usd("3.06"));  // 24.48 / 8
  // Present value (independent computation with the documented rounding).
  CHECK(o.total_pv == usd("342166.037511122233"));

  const Comparison& cmp = r.comparisons[0];
  CHECK(cmp.break_even_month == 18);
  CHECK(cmp.break_even_month_pv == 19);
  CHECK(cmp.saving == usd("206392"));  // 386000.64 − 179608.64
  // u* = (149000 − 44700 + 36 × (640 + 14900 / 12)) / (36 × (730 × 24.48 − 350.40))
  //    = 172040 / (643334.40 − 12614.40) = 172040 / 630720
  REQUIRE(cmp.break_even_utilisation.value);
  CHECK(*cmp.break_even_utilisation.value == Decimal::parse("0.272767630644"));
  CHECK(cmp.break_even_utilisation.kind == BreakEvenUtilisation::Kind::renting_below);
  CHECK(cmp.break_even_utilisation.describe() ==
        "renting is cheaper below 27.28 % utilisation, buying above");

  // Owned: 179608.64 / (8 GPUs × 730 h × 36 months × 0.6) = 179608.64 / 126144.
  CHECK(r.owned_per_gpu_hour == usd("1.423838153222"));

  // The rule of thumb: a year's rent ≈ 149000 / 3 + fee = 49666.67 + fee. Renting costs
  // 386000.64 / 3 = 128666.88 a year: the fee would be 79000.21, and the price is 1.16 years
  // of rent (the rule says 3).
  const RuleOfThumb& rule = r.rule_of_thumb;
  CHECK(rule.price_over_3 == usd("49666.666666666667"));
  CHECK(rule.owner_yearly_cost == usd("59869.546666666667"));
  CHECK(rule.owner_yearly_running == usd("25102.88"));  // 12 × (210.24 + 640) + 14900
  REQUIRE(rule.rents.size() == 1);
  CHECK(rule.rents[0].yearly == usd("128666.88"));
  CHECK(rule.rents[0].implied_fee == usd("79000.213333333333"));
  CHECK(rule.rents[0].years_to_price == Decimal::parse("1.158029168035"));
}

TEST_CASE("8 × V100 against Tencent GN10X.18XLARGE320, in CNY, by hand", "[tco]") {
  const Catalog catalog(tco_test::data());
  LeaseVsBuyConfig c = tco_test::dgx1();
  c.currency = Currency::parse("CNY");
  c.providers = {"tencent"};
  const LeaseVsBuyResult r = lease_vs_buy(catalog, c);

  // Buying in CNY at 6.8704 (2019-06-28): price 1023689.60, kWh 0.68704, hosting 1374.08 per
  // kW-month. Power at full use 3.2 × 1.5 × 730 × 0.68704 = 2407.38816; at 0.6 1444.432896;
  // hosting 4397.056; maintenance 102368.96 a year = residual (30 %) 307106.88.
  // Total = 1023689.60 + 36 × (1444.432896 + 4397.056) = 1233983.200256 (= 179608.64 × 6.8704).
  CHECK(r.buy.total == cny("1233983.200256"));
  CHECK(r.buy.total_line.fixed == cny("1181983.616"));            // 1023689.60 + 36 × 4397.056
  CHECK(r.buy.total_line.per_utilisation == cny("86665.97376"));  // 36 × 2407.38816

  REQUIRE(r.best_payg);
  REQUIRE(r.best_prepaid);
  REQUIRE(r.comparisons.size() == 2);

  // Pay-as-you-go: 145.83 CNY/h × 438 h = 63873.54 a month; 2299447.44 over 36 months.
  const RentOption& payg = compared(r, 0);
  CHECK(payg.instance_type == "GN10X.18XLARGE320");
  CHECK(payg.gpu == "V100-SXM2-32GB");  // the V100 line: same FP32, more memory
  CHECK(payg.instances == 1);
  CHECK(payg.per_month == cny("63873.54"));
  CHECK(payg.total == cny("2299447.44"));
  CHECK(payg.price_per_gpu_hour == cny("18.22875"));  // 145.83 / 8
  CHECK(payg.total_pv == cny("2038319.985712702432"));
  // Buying catches up when 1023689.60 + 14372.2355627 m ≤ 63873.54 m: m ≥ 20.68 → month 21.
  CHECK(r.comparisons[0].break_even_month == 21);
  CHECK(r.comparisons[0].break_even_month_pv == 23);
  // u* = 1181983.616 / (36 × 730 × 145.83 − 86665.97376) = 1181983.616 / 3745746.42624
  CHECK(*r.comparisons[0].break_even_utilisation.value == Decimal::parse("0.315553559024"));

  // Prepaid: the cheapest plan for 36 months is one 3-year term at 50 %:
  // 42000 × 36 × 0.5 = 756000 CNY, paid on day one (24 + 12 months would be 705600 + 418320).
  const RentOption& prepaid = compared(r, 1);
  CHECK(prepaid.mode == BillingMode::prepaid);
  CHECK(prepaid.instance_type == "GN10X.18XLARGE320");
  CHECK(prepaid.plan == "36 months × 0.5");
  CHECK(prepaid.cumulative[0] == cny("756000"));
  CHECK(prepaid.cumulative[36] == cny("756000"));
  CHECK(prepaid.total_pv == cny("756000"));
  CHECK(prepaid.per_month == cny("21000"));
  CHECK(prepaid.price_per_gpu_hour == cny("3.595890410959"));  // 756000 / (36 × 730 × 8)
  // Buying never catches up (1023689.60 on day one already exceeds 756000); the prepaid rent
  // is flat, so the crossing is (1181983.616 − 756000) / (0 − 86665.97376) < 0: renting is
  // cheaper at every utilisation.
  CHECK_FALSE(r.comparisons[1].break_even_month);
  CHECK(r.comparisons[1].break_even_utilisation.kind == BreakEvenUtilisation::Kind::renting_above);
  CHECK(*r.comparisons[1].break_even_utilisation.value == Decimal::parse("-4.915234866912"));
  CHECK_THAT(r.comparisons[1].break_even_utilisation.describe(),
             Catch::StartsWith("renting is cheaper at every utilisation"));
  CHECK(r.comparisons[1].saving == cny("-477983.200256"));  // 756000 − 1233983.200256

  // 1233983.200256 / 126144 GPU-hours.
  CHECK(r.owned_per_gpu_hour == cny("9.782337647894"));
  // Rule of thumb: price / 3 = 341229.87; pay-as-you-go rent 766482.48 a year (the price is
  // 1.34 years of it), prepaid 252000 a year (4.06 years: the rule's "3" lies in between).
  CHECK(r.rule_of_thumb.price_over_3 == cny("341229.866666666667"));
  REQUIRE(r.rule_of_thumb.rents.size() == 2);
  CHECK(r.rule_of_thumb.rents[0].yearly == cny("766482.48"));
  CHECK(r.rule_of_thumb.rents[0].years_to_price == Decimal::parse("1.335568165889"));
  CHECK(r.rule_of_thumb.rents[1].yearly == cny("252000"));
  CHECK(r.rule_of_thumb.rents[1].years_to_price == Decimal::parse("4.06226031746"));
}

TEST_CASE("both providers, ranked in one currency", "[tco]") {
  const Catalog catalog(tco_test::data());
  LeaseVsBuyConfig c = tco_test::dgx1();
  c.currency = Currency::parse("CNY");
  const LeaseVsBuyResult r = lease_vs_buy(catalog, c);
  REQUIRE(r.options.size() == 3);
  // payg first, cheapest first: Tencent 63873.54 CNY a month, then AWS 10722.24 USD × 6.8704.
  CHECK(r.options[0].provider == "tencent");
  CHECK(r.options[0].mode == BillingMode::payg);
  CHECK(r.options[1].provider == "aws");
  CHECK(r.options[1].per_month == cny("73666.077696"));  // 10722.24 × 6.8704
  REQUIRE(r.options[1].fx);
  CHECK(r.options[1].fx->rate == Decimal::parse("6.8704"));
  CHECK(r.options[2].mode == BillingMode::prepaid);
  CHECK(*r.best_payg == 0u);
  CHECK(*r.best_prepaid == 2u);

  // At utilisation 0 renting by the hour costs nothing anywhere: the hourly price ranks, and
  // there is no owned cost per delivered GPU-hour.
  LeaseVsBuyConfig idle = tco_test::dgx1("0");
  const LeaseVsBuyResult z = lease_vs_buy(catalog, idle);
  CHECK(z.options[0].provider == "tencent");
  CHECK(z.options[0].total == usd("0"));
  CHECK(z.options[1].provider == "aws");
  CHECK_FALSE(z.owned_per_gpu_hour);
  CHECK(z.buy.total == usd("172040"));
  CHECK(z.comparisons[0].saving == usd("-172040"));
}

TEST_CASE("several smaller instances make up the count only without a single node", "[tco]") {
  const Catalog catalog(tco_test::data(/*include_small=*/true));
  LeaseVsBuyConfig c = tco_test::dgx1();
  c.currency = Currency::parse("CNY");
  c.providers = {"tencent"};
  const LeaseVsBuyResult r = lease_vs_buy(catalog, c);
  // 8 × GN10X.2XLARGE40 (144.16 CNY an hour) is cheaper than one GN10X.18XLARGE320 (145.83),
  // but eight VMs are not the server bought: the single node is rented.
  const RentOption& payg = compared(r, 0);
  CHECK(payg.instance_type == "GN10X.18XLARGE320");
  CHECK(payg.instances == 1);
  const RentOption& prepaid = compared(r, 1);
  CHECK(prepaid.instance_type == "GN10X.18XLARGE320");
  CHECK(prepaid.instances == 1);

  // 6 GPUs: no node has 6, and the 8-GPU one would rent more than bought: 6 × 1 GPU, noted.
  c.gpu_count = 6;
  const LeaseVsBuyResult six = lease_vs_buy(catalog, c);
  CHECK(compared(six, 0).instances == 6);
  CHECK(compared(six, 0).per_month == cny("47356.56"));  // 6 × 18.02 × 438
  REQUIRE_FALSE(compared(six, 0).notes.empty());
  CHECK_THAT(compared(six, 0).notes.front(), Catch::Contains("no single node with 6"));

  // No offer for 4 GPUs in the catalog without the small instance: an empty rent side, noted.
  const Catalog big_only(tco_test::data());
  c.gpu_count = 4;
  const LeaseVsBuyResult none = lease_vs_buy(big_only, c);
  CHECK(none.options.empty());
  CHECK(none.comparisons.empty());
  REQUIRE_FALSE(none.notes.empty());
  CHECK_THAT(none.notes.back(), Catch::Contains("no offer"));
}

TEST_CASE("utilisation sweep: the winner flips at the closed-form break-even", "[tco]") {
  const Catalog catalog(tco_test::data());
  const Decimal u_star = Decimal::parse("0.272767630644");  // 172040 / 630720 (AWS case)
  for (int percent = 5; percent <= 100; percent += 5) {
    const std::string u =
        Decimal::divide(Decimal(percent), 100, 2, RoundingMode::half_even).to_string();
    LeaseVsBuyConfig c = tco_test::dgx1(u.c_str());
    c.providers = {"aws"};
    const LeaseVsBuyResult r = lease_vs_buy(catalog, c);
    INFO("utilisation " << u);
    const Comparison& cmp = r.comparisons.at(0);
    // The closed form does not depend on the utilisation it is computed at.
    CHECK(*cmp.break_even_utilisation.value == u_star);
    // Costs are linear in u: totals match the lines exactly.
    CHECK(r.buy.total == r.buy.total_line.at(*c.utilisation));
    CHECK(compared(r, 0).total == compared(r, 0).total_line.at(*c.utilisation));
    if (Decimal(percent) * Decimal::parse("0.01") < u_star) {
      CHECK(cmp.saving.amount().sign() < 0);  // renting cheaper
      CHECK_FALSE(cmp.break_even_month);
    } else {
      CHECK(cmp.saving.amount().sign() > 0);  // buying cheaper
      CHECK(cmp.break_even_month);
    }
  }

  // Bisection on the full model (quote engine and all) lands on the closed form.
  Decimal lo{}, hi(1);
  const Decimal step = Decimal::parse("0.000001");
  while (hi - lo > step) {
    const Decimal mid = Decimal::divide(lo + hi, 2, 7, RoundingMode::half_even);
    LeaseVsBuyConfig c = tco_test::dgx1();
    c.utilisation = mid;
    c.providers = {"aws"};
    const auto r = lease_vs_buy(catalog, c);
    (r.comparisons.at(0).saving.amount().sign() < 0 ? lo : hi) = mid;
  }
  CHECK(lo <= u_star + step);
  CHECK(hi >= u_star - step);
}
