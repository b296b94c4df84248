// Golden quotes worked out by hand on the test catalog (quote_fixture.hpp). Each expected
// figure shows its arithmetic.
#include <catch2/catch.hpp>

#include "gpubill/quote/quote.hpp"
#include "quote_fixture.hpp"
#include "test_values.hpp"

using namespace gpubill;
using gpubill::testing::cny;
using gpubill::testing::line_with_id;
using gpubill::testing::quote_catalog;
using gpubill::testing::quote_workload;

namespace {

struct Quoted {
  Catalog catalog;
  std::unique_ptr<QuoteEngine> engine;
  QuoteResult result;
  explicit Quoted(const Workload& w, QuoteOptions options = {})
      : catalog(quote_catalog()), engine(std::make_unique<QuoteEngine>(catalog)) {
    result = engine->quote(resolve_workload(w, catalog), options);
  }
  const QuoteLine& line(const std::string& id) const {
    const QuoteLine* l = line_with_id(result, id);
    INFO(id);
    REQUIRE(l != nullptr);
    return *l;
  }
};

}  // namespace

TEST_CASE("a one-GPU month (720 h) at each provider with a price", "[quote][golden]") {
  Workload w = quote_workload({"V100"});
  w.duration.hours = Decimal(720);
  const Quoted q(w);

  // Tencent GN10X.2XLARGE40 (V100-SXM2-32GB): payg settles 18.02 per hour (half_up to 0.01,
  // already exact): 720 × 18.02 = 12974.40 CNY.
  const auto& tencent_payg = q.line("tencent/*/GN10X.2XLARGE40/payg");
  CHECK(*tencent_payg.total == cny("12974.40"));
  CHECK(tencent_payg.run_cost->settlements == 720);
  // Prepaid: ceil(720 h / 720 h) = 1 month; a 1-month term has no discount: 5190 × 1 × 1.
  const auto& tencent_prepaid = q.line("tencent/*/GN10X.2XLARGE40/prepaid");
  CHECK(*tencent_prepaid.total == cny("5190"));
  REQUIRE(tencent_prepaid.plan->order_count() == 1);
  CHECK(tencent_prepaid.plan->orders[0].order.months == 1);
  CHECK(tencent_prepaid.plan->orders[0].order.discount == nullptr);

  // Alibaba gn6v (cn-shanghai, 2023-06-17 list): 720 × 26.46 (rounded down, exact) = 19051.20;
  // prepaid 7620 for the month.
  CHECK(*q.line("alibaba/cn-shanghai/ecs.gn6v-c8g1.2xlarge/payg").total == cny("19051.20"));
  CHECK(*q.line("alibaba/cn-shanghai/ecs.gn6v-c8g1.2xlarge/prepaid").total == cny("7620"));

  // AWS p3.2xlarge us-east-1: 720 × 3.06 = 2203.20 USD × 7.2688 (2023-06-30) = 16014.62016 CNY.
  const auto& aws = q.line("aws/us-east-1/p3.2xlarge/payg");
  CHECK(*aws.compute == Money::parse("2203.2 USD"));
  CHECK(*aws.total == cny("16014.62016"));
  REQUIRE(aws.fx);
  CHECK(aws.fx->rate == Decimal::parse("7.2688"));
  // eu-central-1: 3.823 settles to 3.82 an hour (half_up): 720 × 3.82 = 2750.40 USD × 7.2688.
  CHECK(*q.line("aws/eu-central-1/p3.2xlarge/payg").total == cny("19992.10752"));
  // Spot 0.998 (every region) settles to 1.00 an hour: 720 USD × 7.2688 = 5233.536, interruptible.
  const auto& spot = q.line("aws/us-east-1/p3.2xlarge/spot");
  CHECK(*spot.total == cny("5233.536"));
  CHECK(spot.interruptible);
  // Reserved 1 year: one 8760-h term paid in full: 8760 × 1.99 = 17432.40 USD × 7.2688.
  const auto& reserved = q.line("aws/us-east-1/p3.2xlarge/reserved_1y");
  CHECK(reserved.reserved_terms == 1);
  CHECK(*reserved.total == cny("126712.62912"));

  // Google n1-standard-8 + 1 × V100: (0.38 host + 1 × 2.48 GPU) = 2.86 USD an hour;
  // 720 × 2.86 = 2059.20 USD × 7.2688 = 14967.91296 CNY.
  const auto& google = q.line("google/us-central1/n1-standard-8+1×V100-SXM2-16GB/payg");
  CHECK(*google.unit_price == Money::parse("2.86 USD"));
  CHECK(*google.total == cny("14967.91296"));
  CHECK(google.attached_gpus);

  // Ranked by total; the two AWS spot lines tie and go by region.
  std::vector<std::string> ranked;
  for (const auto& l : q.result.lines) ranked.push_back(l.id);
  CHECK(ranked == std::vector<std::string>{
                      "tencent/*/GN10X.2XLARGE40/prepaid",                       // 5190
                      "aws/eu-central-1/p3.2xlarge/spot",                        // 5233.536
                      "aws/us-east-1/p3.2xlarge/spot",                           // 5233.536
                      "alibaba/cn-shanghai/ecs.gn6v-c8g1.2xlarge/prepaid",       // 7620
                      "tencent/*/GN10X.2XLARGE40/payg",                          // 12974.40
                      "google/us-central1/n1-standard-8+1×V100-SXM2-16GB/payg",  // 14967.91
                      "aws/us-east-1/p3.2xlarge/payg",                           // 16014.62
                      "alibaba/cn-shanghai/ecs.gn6v-c8g1.2xlarge/payg",          // 19051.20
                      "aws/eu-central-1/p3.2xlarge/payg",                        // 19992.11
                      "aws/us-east-1/p3.2xlarge/reserved_1y",                    // 126712.63
                      "google/us-central1/n1-standard-8+1×V100-SXM2-16GB/spot",  // unknown
                      "huawei/*/p2.2xlarge.8/-",                                 // unknown
                  });
  CHECK(q.result.lines_priced == 10);
  CHECK(q.result.lines_unknown == 2);
  for (std::size_t i = 0; i < q.result.lines.size(); ++i) CHECK(q.result.lines[i].rank == i + 1);

  // Per GPU-hour: 12974.40 / (1 × 720 h) = 18.02; per FP32 TFLOP-hour: 18.02 / 15.7.
  CHECK(tencent_payg.per_gpu_hour->amount() == Decimal::parse("18.02"));
  CHECK(tencent_payg.per_fp32_tflop_hour->amount() == Decimal::parse("1.147771"));
}

TEST_CASE("break-even hours per month of prepaid against payg", "[quote][golden]") {
  Workload w = quote_workload({"V100"});
  w.duration.hours = Decimal(720);
  const Quoted q(w);
  // Tencent: 5190 a month ÷ 18.02 a settled hour = 288.0133… → 288.1 h/month (rounded up: at
  // 288.1 hours of use a month prepaid is cheaper). Shown on both lines of the offer.
  for (const char* id : {"tencent/*/GN10X.2XLARGE40/payg", "tencent/*/GN10X.2XLARGE40/prepaid"}) {
    const auto& l = q.line(id);
    REQUIRE(l.break_even_hours_per_month);
    CHECK(*l.break_even_hours_per_month == Decimal::parse("288.1"));
    CHECK(*l.break_even_monthly == cny("5190"));
    CHECK(*l.break_even_hourly == cny("18.02"));
  }
  // Alibaba: 7620 ÷ 26.46 = 287.98… → 288.0.
  CHECK(*q.line("alibaba/cn-shanghai/ecs.gn6v-c8g1.2xlarge/payg").break_even_hours_per_month ==
        Decimal::parse("288"));
  // AWS has no prepaid price: no break-even.
  CHECK_FALSE(q.line("aws/us-east-1/p3.2xlarge/payg").break_even_hours_per_month);
}

TEST_CASE("a 14-month prepaid term: 12 months at 0.83 plus 2 at list", "[quote][golden]") {
  Workload w = quote_workload({"T4"});
  w.duration.months = 14;
  w.providers = {"tencent"};
  const Quoted q(w);
  // GN7.2XLARGE32 at 2500 CNY a month. Terms: 12 months × 2500 × 0.83 = 24900.00, then
  // 2 months × 2500 × 1 (no discount under 6 months) = 5000.00: 29900.00.
  // Alternatives: 14 × 1 month = 35000; 24 months × 0.70 = 42000; 6 + 6 + 2 = 31400.
  const auto& prepaid = q.line("tencent/*/GN7.2XLARGE32/prepaid");
  CHECK(*prepaid.total == cny("29900"));
  REQUIRE(prepaid.plan->order_count() == 2);
  CHECK(prepaid.plan->orders[0].order.months == 12);
  CHECK(prepaid.plan->orders[0].order.factor == Decimal::parse("0.83"));
  CHECK(prepaid.plan->orders[0].order.charged == cny("24900"));
  CHECK(prepaid.plan->orders[1].order.months == 2);
  CHECK(prepaid.plan->orders[1].order.charged == cny("5000"));
  CHECK(prepaid.months_needed == 14);
  // Payg for 14 × 720 = 10080 h × 8.68 = 87494.40.
  CHECK(*q.line("tencent/*/GN7.2XLARGE32/payg").total == cny("87494.40"));
  // Break-even: 29900 / 14 = 2135.714285714286 a month ÷ 8.68 = 246.05… → 246.1 h/month.
  CHECK(*prepaid.break_even_hours_per_month == Decimal::parse("246.1"));
  CHECK(q.result.lines.front().id == "tencent/*/GN7.2XLARGE32/prepaid");
  // The explanation shows the terms, their discounts and the list-price alternative.
  const std::string text = explain_line(q.result, prepaid);
  CHECK_THAT(text, Catch::Contains("12 months: 2500 CNY × 12 = 30000 CNY × factor 0.83"));
  CHECK_THAT(text, Catch::Contains("14 × 1 month at list would be 35000 CNY"));
}

TEST_CASE("work on a reference GPU: the faster GPU finishes cheaper", "[quote][golden]") {
  Workload w = quote_workload({});
  w.duration.gpu_hours = Decimal(100);
  w.duration.reference_gpu = "T4";
  w.duration.precision = Precision::fp16;
  w.providers = {"alibaba"};
  w.modes = {"payg"};
  w.host.min_ram_gb = Decimal(0);
  const Quoted q(w);
  // 100 GPU-hours on a T4 at 65 FP16 TFLOPS.
  // A100 (312): 100 × 65 × 3600 / 312 = 75000 s = 20 h + 3000 s: 20 × 31.58 = 631.60, then
  //   31.58 × 3000 / 3600 = 26.3166… rounded down (Alibaba) = 26.31: 657.91 CNY.
  // T4 (65): 100 h × 11.63 = 1163.00.   V100 (125): 187200 s = 52 h × 26.46 = 1375.92.
  REQUIRE(q.result.lines.size() == 3);
  CHECK(q.result.lines[0].id == "alibaba/cn-shanghai/ecs.gn7-c12g1.3xlarge/payg");
  CHECK(*q.result.lines[0].finish_seconds == 75000);
  CHECK(*q.result.lines[0].total == cny("657.91"));
  CHECK(q.result.lines[1].id == "alibaba/cn-shanghai/ecs.gn6i-c4g1.xlarge/payg");
  CHECK(*q.result.lines[1].total == cny("1163"));
  CHECK(q.result.lines[2].id == "alibaba/cn-shanghai/ecs.gn6v-c8g1.2xlarge/payg");
  CHECK(*q.result.lines[2].finish_seconds == 187200);
  CHECK(*q.result.lines[2].total == cny("1375.92"));
  // The dearer hourly price finishes cheaper: 31.58 > 11.63 an hour.
  CHECK(q.result.lines[0].unit_price->amount() > q.result.lines[1].unit_price->amount());
}

TEST_CASE("work in PFLOP at a precision and efficiency", "[quote][golden]") {
  Workload w = quote_workload({"A100"});
  // 1000 PFLOP = 1e6 TFLOP at FP16 on an A100 (312 TFLOPS) at 50%: 1e6 / 156 = 6410.256… s → 6411
  // s.
  w.duration.pflop = Decimal(1000);
  w.duration.precision = Precision::fp16;
  w.duration.efficiency = Decimal::parse("0.5");
  w.modes = {"payg"};
  const Quoted q(w);
  const auto& l = q.line("alibaba/cn-shanghai/ecs.gn7-c12g1.3xlarge/payg");
  CHECK(*l.finish_seconds == 6411);
  // 1 full hour 31.58 + 2811 s: 31.58 × 2811 / 3600 = 24.6587… → 24.65 (down): 56.23.
  CHECK(*l.total == cny("56.23"));
}

TEST_CASE("currency conversion uses the rate dated on or before the quote date",
          "[quote][golden]") {
  Workload w = quote_workload({"V100"});
  w.duration.hours = Decimal(720);
  w.providers = {"aws"};
  w.modes = {"payg"};
  {
    // 2019-07-01: the 2019-06-28 rate 6.8704: 2203.20 USD × 6.8704 = 15136.86528 CNY.
    w.date = "2019-07-01";
    const Quoted q(w);
    const auto& l = q.line("aws/us-east-1/p3.2xlarge/payg");
    CHECK(*l.total == cny("15136.86528"));
    CHECK(l.fx->day == parse_day("2019-06-28"));
    CHECK(l.fx->rate == Decimal::parse("6.8704"));
    // eu-central-1's price starts 2023-06-17: unknown then, never 0.
    const auto& eu = q.line("aws/eu-central-1/p3.2xlarge/payg");
    CHECK_FALSE(eu.priced);
    CHECK_FALSE(eu.total);
    CHECK_THAT(eu.unknown_reason, Catch::Contains("takes effect 2023-06-17"));
  }
  {
    // 2023-07-01: the 2023-06-30 rate 7.2688.
    w.date = "2023-07-01";
    const Quoted q(w);
    CHECK(*q.line("aws/us-east-1/p3.2xlarge/payg").total == cny("16014.62016"));
  }
  {
    // In USD: Tencent's CNY price converts with the inverse of the stored USD→CNY rate,
    // 1 / 7.2688 = 0.137574290117 (half-even, 12 decimals): 5190 × that = 714.010565707230.
    Workload u = quote_workload({"V100"});
    u.duration.hours = Decimal(720);
    u.currency = "USD";
    u.providers = {"tencent"};
    u.modes = {"prepaid"};
    const Quoted q(u);
    const auto& l = q.line("tencent/*/GN10X.2XLARGE40/prepaid");
    CHECK(*l.total == Money::parse("714.01056570723 USD"));
    REQUIRE(l.fx);
    CHECK(l.fx->inverted);
    CHECK(l.fx->rate == Decimal::parse("0.137574290117"));
    // The same as Catalog::convert at that day.
    CHECK(q.catalog.convert(cny("5190"), Currency::parse("USD"), parse_day("2023-07-01")).result ==
          *l.total);
    CHECK_THAT(explain_line(q.result, l), Catch::Contains("the inverse of the stored"));
  }
}

TEST_CASE("storage is priced with the provider's disk price, else noted unpriced",
          "[quote][golden]") {
  Workload w = quote_workload({"V100"});
  w.duration.hours = Decimal(720);
  w.storage.dataset_gb = Decimal(100);  // + 50 GB default headroom = 150 GB
  const Quoted q(w);
  // Tencent payg: 150 GB × 0.0014 = 0.21 an hour, settled hourly: 720 × 0.21 = 151.20;
  // compute 12974.40 + 151.20 = 13125.60.
  const auto& payg = q.line("tencent/*/GN10X.2XLARGE40/payg");
  CHECK(payg.storage.state == LinePart::State::priced);
  CHECK(*payg.storage.native == cny("151.20"));
  CHECK(*payg.total == cny("13125.60"));
  // Tencent prepaid: 150 GB × 1 a GB-month × 1 month = 150: 5190 + 150 = 5340.
  const auto& prepaid = q.line("tencent/*/GN10X.2XLARGE40/prepaid");
  CHECK(*prepaid.storage.native == cny("150"));
  CHECK(*prepaid.total == cny("5340"));
  // Alibaba has no disk price: unpriced, noted, and not counted as 0 silently.
  const auto& ali = q.line("alibaba/cn-shanghai/ecs.gn6v-c8g1.2xlarge/payg");
  CHECK(ali.storage.state == LinePart::State::unpriced);
  CHECK(*ali.total == cny("19051.20"));
  bool noted = false;
  for (const auto& n : ali.notes) noted = noted || n.rfind("storage unpriced", 0) == 0;
  CHECK(noted);
}

TEST_CASE("a daily schedule: each day is its own run", "[quote][golden]") {
  Workload w = quote_workload({"T4"});
  w.duration.hours_per_day = Decimal(8);
  w.duration.days = 22;
  w.modes = {"payg", "prepaid"};
  const Quoted q(w);
  // Google: stopped instances are not charged; (0.38 + 0.35) × 8 h = 5.84 a day × 22 = 128.48
  // USD × 7.2688 = 933.895424 CNY.
  const auto& google = q.line("google/us-central1/n1-standard-8+1×T4/payg");
  CHECK(*google.compute == Money::parse("128.48 USD"));
  CHECK(google.runs == 22);
  CHECK_FALSE(google.released_daily);
  // Tencent charges stopped instances (the policy's default): released each day; 8 × 8.68 =
  // 69.44 × 22 = 1527.68. Prepaid: ceil(22 days / 30) = 1 month = 2500.
  const auto& tencent = q.line("tencent/*/GN7.2XLARGE32/payg");
  CHECK(*tencent.total == cny("1527.68"));
  CHECK(tencent.released_daily);
  CHECK(*q.line("tencent/*/GN7.2XLARGE32/prepaid").total == cny("2500"));
  // Per GPU-hour counts the hours used: 1527.68 / (22 × 8 h) = 8.68.
  CHECK(tencent.per_gpu_hour->amount() == Decimal::parse("8.68"));
}

TEST_CASE("the explanation shows rows, settlement, rounding and the FX rate", "[quote]") {
  Workload w = quote_workload({"V100"});
  w.duration.hours = Decimal::parse("10.5");
  const Quoted q(w);
  const auto& l = q.line("aws/eu-central-1/p3.2xlarge/payg");
  const std::string text = explain_line(q.result, l);
  CHECK_THAT(text, Catch::Contains("price row #"));
  CHECK_THAT(text, Catch::Contains("eu-central-1, payg, 3.823 USD per hour"));
  CHECK_THAT(text, Catch::Contains("as of 2023-06-17"));
  // A full hour 3.823 → 3.82 (half_up), and the last half hour: 3.823 × 1800 / 3600 = 1.9115
  // → 1.91.
  CHECK_THAT(text, Catch::Contains("→ billed 3.82 USD (half_up to 2 decimals"));
  CHECK_THAT(text, Catch::Contains("last partial hour: 1800 s"));
  CHECK_THAT(text, Catch::Contains("1 USD = 7.2688 CNY"));
  // 10 × 3.82 + 1.91 = 40.11 USD.
  CHECK(*l.compute == Money::parse("40.11 USD"));
}
