// Lease versus buy: the cost of owning, present values, break-even helpers, input validation
// and the configuration file. Golden figures are worked out by hand in the comments.
#include <catch2/catch.hpp>

#include "gpubill/base/errors.hpp"
#include "gpubill/tco/tco.hpp"
#include "tco_catalog.hpp"

using namespace gpubill;
using tco_test::usd;

namespace {

LeaseVsBuyInputs resolved(const LeaseVsBuyConfig& c) {
  const Catalog catalog(tco_test::data());
  return resolve_lease_vs_buy(catalog, c);
}

}  // namespace

TEST_CASE("the DGX-1 buy side, month by month, by hand", "[tco]") {
  // IT power = (8 × 300 + 800) / 1000 = 3.2 kW.
  // Power at full use = 3.2 × 1.5 PUE × 730 h × 0.10 USD = 350.40; at 0.6: 210.24 a month.
  // Hosting = 3.2 kW × 200 USD = 640 a month. Maintenance = 10 % × 149000 = 14900 a year,
  // accrued 14900 × m / 12 to month m. Residual = 30 % × 149000 = 44700 at month 36.
  const LeaseVsBuyInputs in = resolved(tco_test::dgx1());
  CHECK(in.gpu.id == "V100-SXM2-16GB");
  CHECK(in.it_kw == Decimal::parse("3.2"));
  CHECK(in.currency.to_string() == "USD");
  CHECK(in.hardware_price == usd("149000"));
  CHECK(in.monthly_rate == Decimal::parse("0.006666666667"));  // 0.08 / 12, half-even
  CHECK(in.rent_gpus == std::vector<std::string>{"V100-SXM2-16GB", "V100-SXM2-32GB"});

  const BuyModel b = buy_model(in);
  CHECK(b.power_per_month_full_use == usd("350.4"));
  CHECK(b.power_per_month == usd("210.24"));
  CHECK(b.hosting_per_month == usd("640"));
  CHECK(b.maintenance_per_year == usd("14900"));
  CHECK(b.residual == usd("44700"));
  REQUIRE(b.months.size() == 37);
  CHECK(b.months[0].capex == usd("149000"));
  CHECK(b.months[0].cumulative == usd("149000"));
  // 149000 + 210.24 + 640 + 14900/12 (1241.666666666667, half-even)
  CHECK(b.months[1].maintenance == usd("1241.666666666667"));
  CHECK(b.months[1].cumulative == usd("151091.906666666667"));
  // 149000 + 12 × 850.24 + 14900
  CHECK(b.months[12].cumulative == usd("174102.88"));
  // 149000 + 17 × 850.24 + 14900 × 17 / 12
  CHECK(b.months[17].cumulative == usd("184562.413333333333"));
  CHECK(b.months[18].cumulative == usd("186654.32"));
  CHECK(b.months[35].cumulative == usd("222216.733333333333"));
  // Month 36: 149000 + 36 × 850.24 + 44700 − 44700 residual
  CHECK(b.months[36].residual == usd("44700"));
  CHECK(b.total == usd("179608.64"));
  // Linear in the utilisation: 149000 + 36 × 640 + 44700 − 44700 = 172040, + 36 × 350.40 × u.
  CHECK(b.total_line.fixed == usd("172040"));
  CHECK(b.total_line.per_utilisation == usd("12614.4"));
  CHECK(b.total_line.at(in.utilisation) == b.total);
  // Present values: an independent computation with the documented rounding (Python decimal:
  // j = 0.006666666667, g_m = round12(g_(m-1) × (1 + j)), pv = round12(c / g_m)).
  CHECK(b.months[1].cumulative_pv == usd("151078.052980131763"));
  CHECK(b.months[12].cumulative_pv == usd("173048.102588549388"));
  CHECK(b.total_pv == usd("180566.236734077684"));
}

TEST_CASE("present values use the stated monthly rate and rounding", "[tco]") {
  const Discounter d(Decimal::parse("0.12"), 3);  // 1 % a month, exactly
  CHECK(d.monthly_rate() == Decimal::parse("0.01"));
  CHECK(d.growth(0) == Decimal(1));
  CHECK(d.growth(2) == Decimal::parse("1.0201"));
  CHECK(d.growth(3) == Decimal::parse("1.030301"));
  CHECK(d.present_value(usd("101"), 1) == usd("100"));
  CHECK(d.present_value(usd("102.01"), 2) == usd("100"));
  // 100 / 1.030301 = 97.059014782...; half-even to 12 decimals.
  CHECK(d.present_value(usd("100"), 3) == usd("97.059014792764"));
  const Discounter zero(Decimal{}, 2);
  CHECK(zero.present_value(usd("5"), 2) == usd("5"));
  CHECK_THROWS_AS(d.growth(4), std::out_of_range);
}

TEST_CASE("break-even utilisation in closed form", "[tco]") {
  // buy = 172040 + 12614.4 u, rent = 643334.4 u → u* = 172040 / 630720.
  const LinearCost buy{usd("172040"), usd("12614.4")};
  const LinearCost rent{usd("0"), usd("643334.4")};
  const auto be = break_even_utilisation(buy, rent);
  CHECK(be.kind == BreakEvenUtilisation::Kind::renting_below);
  REQUIRE(be.value);
  CHECK(*be.value == Decimal::parse("0.272767630644"));
  CHECK(be.describe() == "renting is cheaper below 27.28 % utilisation, buying above");

  // A flat (prepaid) rent: buying is cheaper below the crossing.
  const LinearCost flat{usd("180000"), usd("0")};
  const auto p = break_even_utilisation(buy, flat);
  CHECK(p.kind == BreakEvenUtilisation::Kind::renting_above);
  CHECK(*p.value == Decimal::parse("0.631024860477"));  // 7960 / 12614.4
  CHECK(p.describe() == "buying is cheaper below 63.10 % utilisation, renting above");

  const auto always_rent = break_even_utilisation(buy, {usd("100000"), usd("0")});
  CHECK(always_rent.value.value() < Decimal{});
  CHECK(always_rent.describe().rfind("renting is cheaper at every utilisation", 0) == 0);
  const auto always_buy = break_even_utilisation(buy, {usd("0"), usd("100000")});
  CHECK(always_buy.value.value() > Decimal(1));
  CHECK(always_buy.describe().rfind("renting is cheaper at every utilisation", 0) == 0);
  const auto cheap_rent = break_even_utilisation(buy, {usd("0"), usd("1000000")});
  CHECK(cheap_rent.describe() == "renting is cheaper below 17.42 % utilisation, buying above");

  const auto parallel = break_even_utilisation(buy, {usd("1"), usd("12614.4")});
  CHECK(parallel.kind == BreakEvenUtilisation::Kind::parallel);
  CHECK(parallel.renting_cheaper);
  CHECK_FALSE(parallel.value);
}

TEST_CASE("break-even month: from when buying stays cheaper", "[tco]") {
  auto series = [](std::initializer_list<const char*> v) {
    std::vector<Money> out;
    for (auto s : v) out.push_back(usd(s));
    return out;
  };
  CHECK(break_even_month(series({"100", "110", "120"}), series({"0", "110", "240"})) == 1);
  CHECK_FALSE(break_even_month(series({"100", "110", "120"}), series({"0", "50", "100"})));
  // Cheaper at first, then not: the month it stays cheaper from is what counts.
  CHECK_FALSE(break_even_month(series({"100", "200", "300"}), series({"150", "160", "170"})));
  CHECK(break_even_month(series({"100", "200", "150"}), series({"150", "160", "170"})) == 2);
  CHECK_THROWS(break_even_month(series({"1"}), series({"1", "2"})));
}

TEST_CASE("hardware price from launch prices plus a host", "[tco]") {
  LeaseVsBuyConfig c = tco_test::dgx1();
  c.gpu = "H100";
  c.hardware_price.reset();
  c.host_price = usd("50000");
  const LeaseVsBuyInputs in = resolved(c);
  CHECK(in.hardware_price == usd("290000"));  // 8 × 30000 + 50000
  CHECK(in.hardware_price_basis == "launch price 8 × 30000 USD + host 50000 USD");
  CHECK(in.it_kw == Decimal::parse("6.4"));  // (8 × 700 + 800) / 1000
  CHECK(in.rent_gpus == std::vector<std::string>{"H100"});
}

TEST_CASE("inputs in another currency are converted at the dated rate", "[tco]") {
  LeaseVsBuyConfig c = tco_test::dgx1();
  c.currency = Currency::parse("CNY");
  const LeaseVsBuyInputs in = resolved(c);
  CHECK(in.hardware_price == tco_test::cny("1023689.6"));  // 149000 × 6.8704
  CHECK(in.kwh_price == tco_test::cny("0.68704"));
  CHECK(in.hosting_per_kw_month == tco_test::cny("1374.08"));
  REQUIRE(in.fx_rates.size() == 1);
  CHECK(format_day(in.fx_rates[0].day) == "2019-06-28");

  c.date = parse_day("2019-06-27");  // before the only rate
  try {
    (void)resolved(c);
    FAIL("expected an error");
  } catch (const TcoInputError& e) {
    CHECK(e.field() == "hardware_price");
    CHECK_THAT(e.what(), Catch::Contains("no FX rate from USD to CNY on or before 2019-06-27"));
  }
}

TEST_CASE("every input is validated with a clear error", "[tco]") {
  struct Case {
    const char* field;
    std::function<void(LeaseVsBuyConfig&)> change;
    const char* message;
  };
  const std::vector<Case> cases = {
      {"gpu", [](auto& c) { c.gpu = "V1OO"; }, "unknown GPU 'V1OO' (closest known: V100"},
      {"gpu", [](auto& c) { c.gpu.clear(); }, "is required"},
      {"count", [](auto& c) { c.gpu_count = 0; }, "from 1 to 100000, got 0"},
      {"hardware_price", [](auto& c) { c.hardware_price = usd("-1"); },
       "must be positive, got -1 USD"},
      {"hardware_price", [](auto& c) { c.hardware_price.reset(); },
       "no launch price for V100-SXM2-16GB"},
      {"host_price",
       [](auto& c) {
         c.gpu = "H100";
         c.hardware_price.reset();
       },
       "is required when hardware_price is not given"},
      {"host_price",
       [](auto& c) {
         c.gpu = "H100";
         c.hardware_price.reset();
         c.host_price = usd("-5");
       },
       "must not be negative"},
      {"gpu_watts", [](auto& c) { c.gpu_watts = Decimal(-1); }, "must not be negative"},
      {"host_watts", [](auto& c) { c.host_watts = Decimal(-1); }, "must not be negative"},
      {"horizon_months", [](auto& c) { c.horizon_months = 0; }, "from 1 to 600 months, got 0"},
      {"pue", [](auto& c) { c.pue = Decimal::parse("0.9"); }, "must be from 1 to 5"},
      {"kwh_price", [](auto& c) { c.kwh_price = usd("-0.1"); }, "must not be negative"},
      {"utilisation", [](auto& c) { c.utilisation.reset(); }, "is required"},
      {"utilisation", [](auto& c) { c.utilisation = Decimal::parse("1.2"); },
       "must be between 0 and 1 (0.6 = busy 60 % of the month), got 1.2"},
      {"utilisation", [](auto& c) { c.utilisation = Decimal::parse("-0.1"); },
       "must be between 0 and 1"},
      {"hosting_per_kw_month", [](auto& c) { c.hosting_per_kw_month = usd("-200"); },
       "must not be negative"},
      {"maintenance_yearly_share", [](auto& c) { c.maintenance_yearly_share = Decimal(2); },
       "must be between 0 and 1"},
      {"residual_share", [](auto& c) { c.residual_share = Decimal::parse("-0.3"); },
       "must be between 0 and 1"},
      {"cost_of_capital_yearly", [](auto& c) { c.cost_of_capital_yearly = Decimal(-1); },
       "must be between 0 and 1"},
      {"providers", [](auto& c) { c.providers = {"azure"}; },
       "unknown provider 'azure' (known: tencent, aws)"},
      {"rent_gpus", [](auto& c) { c.rent_gpus = {"V100-SXM3"}; }, "unknown GPU 'V100-SXM3'"},
  };
  for (const auto& k : cases) {
    INFO(k.field << ": " << k.message);
    LeaseVsBuyConfig c = tco_test::dgx1();
    k.change(c);
    try {
      (void)resolved(c);
      FAIL("expected an error");
    } catch (const TcoInputError& e) {
      CHECK(e.field() == k.field);
      CHECK_THAT(e.what(), Catch::Contains(k.message));
      CHECK_THAT(e.what(), Catch::StartsWith("lease-vs-buy: " + std::string(k.field) + ": "));
    }
  }
}

TEST_CASE("a configuration file", "[tco]") {
  const auto c = parse_lease_vs_buy_config(R"({
    "format": "gpubill-lease-vs-buy/1",
    "description": "8 × V100",
    "gpu": "V100", "count": 8,
    "hardware_price": {"amount": "149000", "currency": "USD"},
    "price_source": "example",
    "host_watts": "800", "horizon_months": 24, "pue": "1.2",
    "kwh_price": {"amount": "0.7", "currency": "CNY"},
    "utilisation": "0.6",
    "hosting_per_kw_month": {"amount": "150", "currency": "USD"},
    "maintenance_yearly_share": "0.05", "residual_share": "0.4",
    "cost_of_capital_yearly": "0.1", "currency": "CNY", "date": "2019-07-01",
    "providers": ["tencent"], "rent_gpus": ["V100-SXM2-32GB"]
  })",
                                           "dgx1.json");
  CHECK(c.gpu == "V100");
  CHECK(c.gpu_count == 8);
  CHECK(c.hardware_price == usd("149000"));
  CHECK(c.price_source == "example");
  CHECK(c.host_watts == Decimal(800));
  CHECK(c.horizon_months == 24);
  CHECK(c.pue == Decimal::parse("1.2"));
  CHECK(c.kwh_price == tco_test::cny("0.7"));
  CHECK(c.utilisation == Decimal::parse("0.6"));
  CHECK(c.hosting_per_kw_month == usd("150"));
  CHECK(c.maintenance_yearly_share == Decimal::parse("0.05"));
  CHECK(c.residual_share == Decimal::parse("0.4"));
  CHECK(c.cost_of_capital_yearly == Decimal::parse("0.1"));
  CHECK(c.currency->to_string() == "CNY");
  CHECK(format_day(*c.date) == "2019-07-01");
  CHECK(c.providers == std::vector<std::string>{"tencent"});
  CHECK(c.rent_gpus == std::vector<std::string>{"V100-SXM2-32GB"});

  // Defaults stay when a key is absent.
  const auto d = parse_lease_vs_buy_config(R"({"gpu": "V100", "count": 8})", "min.json");
  CHECK(d.horizon_months == 36);
  CHECK(d.pue == Decimal::parse("1.5"));
  CHECK(d.kwh_price == usd("0.10"));
  CHECK(d.hosting_per_kw_month == usd("200"));
  CHECK(d.residual_share == Decimal::parse("0.3"));
  CHECK_FALSE(d.utilisation);

  auto error_of = [](const char* text) {
    try {
      (void)parse_lease_vs_buy_config(text, "bad.json");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(error_of(R"({"gpu": "V100", "count": 8, "utilisation": 0.6})"),
             Catch::Contains("field 'utilisation': expected an exact decimal written as a "
                             "string (\"0.6\")"));
  CHECK_THAT(error_of(R"({"gpu": "V100", "count": 8, "utilization": "0.6"})"),
             Catch::Contains("field 'utilization': unknown field (did you mean 'utilisation'?)"));
  CHECK_THAT(error_of(R"({"gpu": "V100", "count": 8, "hardware_price": "149000"})"),
             Catch::Contains("bad.json:/hardware_price"));
  CHECK_THAT(error_of(R"({"gpu": "V100", "count": -1})"), Catch::Contains("field 'count'"));
  CHECK_THAT(error_of(R"({"gpu": "V100", "count": 8.5})"), Catch::Contains("field 'count'"));
  CHECK_THAT(error_of(R"({"gpu": "V100", "count": 8,)"), Catch::Contains("bad.json:line 1"));
  CHECK_THAT(error_of(R"({"gpu": "V100", "count": 8, "format": "x"})"),
             Catch::Contains("gpubill-lease-vs-buy/1"));
}

TEST_CASE("a bought K80 board is two rented GK210 chips", "[tco]") {
  // The catalog's K80 row is one GK210 chip (12 GB, 150 W), the unit AWS p2.xlarge rents; a
  // board holds two (units_per_board) and its 5000 USD launch price is per board.
  CatalogData d = tco_test::data();
  Gpu k80 = tco_test::gpu("K80", {"Tesla K80"}, 150, "4.37", "12", Money::parse("5000 USD"));
  k80.units_per_board = 2;
  d.gpus.push_back(k80);
  d.instance_types.push_back(tco_test::instance("aws", "p2.xlarge", "p2", "K80", 1, 4, "61"));
  d.prices.push_back(tco_test::price(9, "aws", "p2.xlarge", "us-east-1", BillingMode::payg,
                                     PriceUnit::hour, "0.90 USD", "2016-11-01"));
  const Catalog catalog(std::move(d));
  LeaseVsBuyConfig c = tco_test::dgx1();
  c.gpu = "K80";
  c.gpu_count = 4;  // boards
  c.hardware_price.reset();
  c.host_price = usd("10000");
  const LeaseVsBuyInputs in = resolve_lease_vs_buy(catalog, c);
  CHECK(in.boards == 4);
  CHECK(in.gpu_count == 8);                  // rented chips
  CHECK(in.hardware_price == usd("30000"));  // 4 boards × 5000 + 10000
  CHECK(in.it_kw == Decimal::parse("2"));    // (8 × 150 + 800) / 1000
  CHECK(in.gpu_watts == Decimal(150));

  // Watts given per board are spread over its chips.
  c.gpu_watts = Decimal(300);
  CHECK(resolve_lease_vs_buy(catalog, c).gpu_watts == Decimal(150));

  // Renting the same capacity takes eight p2.xlarge: 8 × 0.90 USD an hour.
  const LeaseVsBuyResult r = lease_vs_buy(catalog, c);
  REQUIRE(!r.options.empty());
  CHECK(r.options.front().instances == 8);
  CHECK(r.options.front().gpus_per_instance == Decimal(1));
}
