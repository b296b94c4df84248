// Settlement cycles (issue 11): a resource settled per day or month keeps each hour's usage
// record exact and rounds one record per cycle. Golden scenarios from the providers' rules:
// Huawei's backup-vault example (billed by the hour, settled daily, truncated: 抹零), AWS's and
// Google's rounding on the monthly bill, Alibaba's monthly 抹零 from 2024-04-01.
#include <catch2/catch.hpp>

#include <algorithm>

#include "gpubill/ledger/focus.hpp"
#include "gpubill/ledger/ledger.hpp"
#include "gpubill/quote/quote.hpp"
#include "gpubill/quote/workload.hpp"
#include "replay_fixture.hpp"

using namespace gpubill;
using namespace gpubill::testing;

namespace {

const std::string kTopup =
    R"({"id":"t1","time":"2023-04-08T09:00:00+08:00","type":"topup","account":"a","amount":"100","currency":"CNY"})"
    "\n";

std::vector<Charge> only(const std::vector<Charge>& rows, const std::string& component) {
  std::vector<Charge> out;
  for (const auto& c : rows) {
    if (c.component == component) out.push_back(c);
  }
  return out;
}

}  // namespace

TEST_CASE("Huawei's worked example: a 100 GB vault used 17:00-18:20, settled daily, pays 0.05",
          "[replay][cycle][huawei]") {
  ReplayFixture fx;
  fx.import_catalog(data_path("daily-settlement.json"));
  // Huawei's CBR bill page: 0.00028 CNY/GB/h × 100 GB, billed by the hour, settled once a day.
  // Used 2023-04-08 17:00–18:20 → one bill line 17:00–19:00 of 2 h: list 0.056, deducted 0.05,
  // 0.006 dropped (抹零). Here each started hour is one exact usage record (0.028 twice); the
  // vault is released with the instance, so the day's record closes with its last hour (19:00).
  fx.replay_text(kTopup + R"(
{"id":"c1","time":"2023-04-08T17:00:00+08:00","type":"create","account":"a","instance":"v","provider":"dailycloud","region":"cn-test-1","instance_type":"D.GPU","mode":"payg","system_disk":{"kind":"vault","size_gb":100}}
{"id":"d1","time":"2023-04-08T18:20:00+08:00","type":"destroy","account":"a","instance":"v"}
)",
                 until("2023-04-08T20:00:00+08:00"));
  const auto disk = only(fx.charges(), "system_disk");
  REQUIRE(disk.size() == 3);
  CHECK_CHARGE(disk[0], "cycle_rounding", "2023-04-08T00:00:00+08:00", "2023-04-08T19:00:00+08:00",
               1, "1", "0", "-0.006", "-0.006", "-0.006");
  CHECK(disk[0].unit_price == "0.056");
  CHECK(disk[0].note.find("settlement record of the day") != std::string::npos);
  CHECK_CHARGE(disk[1], "settlement", "2023-04-08T17:00:00+08:00", "2023-04-08T18:00:00+08:00", 1,
               "360000", "0.028", "0.028", "0", "0.028");
  CHECK_CHARGE(disk[2], "settlement", "2023-04-08T18:00:00+08:00", "2023-04-08T18:20:00+08:00", 1,
               "360000", "0.028", "0.028", "0", "0.028");
  // The instance itself: 2 started hours at 1.0055 = 2.011 → 2.01. Balance 100 − 2.06.
  const auto compute = only(fx.charges(), "compute");
  REQUIRE(compute.size() == 3);
  CHECK(compute[0].kind == "cycle_rounding");
  CHECK(compute[0].billed == "-0.001");
  CHECK(fx.movements("a").back().balance_after == "97.94");

  // explain re-derives the day's record from the usage records of its meter.
  const auto x = explain_charge(fx.db(), disk[0].id);
  CHECK(x.derivation == Derivation::verified);
  CHECK(x.mismatches.empty());
  const auto usage = explain_charge(fx.db(), disk[1].id);
  CHECK(usage.derivation == Derivation::verified);
  REQUIRE(!usage.arithmetic.empty());
  CHECK(usage.arithmetic[0].find("kept exact") != std::string::npos);
}

TEST_CASE("a day's settlement record closes at local midnight, then at release",
          "[replay][cycle]") {
  ReplayFixture fx;
  fx.import_catalog(data_path("daily-settlement.json"));
  // 22:00 → 01:30 the next day. Apr 8: 22–23, 23–24 → 0.056 → 0.05 at 00:00 (Asia/Shanghai).
  // Apr 9: 00–01 and 01–01:30 (a started hour) → 0.056 → 0.05 when released (02:00).
  fx.replay_text(kTopup + R"(
{"id":"c1","time":"2023-04-08T22:00:00+08:00","type":"create","account":"a","instance":"v","provider":"dailycloud","region":"cn-test-1","instance_type":"D.GPU","mode":"payg","system_disk":{"kind":"vault","size_gb":100}}
{"id":"d1","time":"2023-04-09T01:30:00+08:00","type":"destroy","account":"a","instance":"v"}
)",
                 until("2023-04-09T03:00:00+08:00"));
  const auto disk = only(fx.charges(), "system_disk");
  std::vector<Charge> cycles;
  for (const auto& c : disk) {
    if (c.kind == "cycle_rounding") cycles.push_back(c);
  }
  REQUIRE(cycles.size() == 2);
  CHECK_CHARGE(cycles[0], "cycle_rounding", "2023-04-08T00:00:00+08:00",
               "2023-04-09T00:00:00+08:00", 1, "1", "0", "-0.006", "-0.006", "-0.006");
  CHECK(cycles[0].note.find("closed at release") == std::string::npos);
  CHECK_CHARGE(cycles[1], "cycle_rounding", "2023-04-09T00:00:00+08:00",
               "2023-04-09T02:00:00+08:00", 1, "1", "0", "-0.006", "-0.006", "-0.006");
  CHECK(cycles[1].note.find("closed at release") != std::string::npos);
  for (const auto& c : cycles)
    CHECK(explain_charge(fx.db(), c.id).derivation == Derivation::verified);
}

TEST_CASE("a stopped instance's day record waits for midnight; a log split in two gives the same",
          "[replay][cycle][property]") {
  const std::string first = kTopup + R"(
{"id":"c1","time":"2023-04-08T10:00:00+08:00","type":"create","account":"a","instance":"v","provider":"dailycloud","region":"cn-test-1","instance_type":"D.GPU","mode":"payg"}
{"id":"s1","time":"2023-04-08T10:30:00+08:00","type":"stop","account":"a","instance":"v"}
)";
  const std::string second = R"(
{"id":"s2","time":"2023-04-08T15:00:00+08:00","type":"start","account":"a","instance":"v"}
{"id":"s3","time":"2023-04-08T15:10:00+08:00","type":"stop","account":"a","instance":"v"}
)";
  // Two started hours, 1.0055 each = 2.011 exact; the day's record, at 00:00 on Apr 9 while the
  // instance is stopped, truncates it to 2.01.
  const auto check = [](ReplayFixture& fx) {
    const auto c = fx.charges();
    REQUIRE(c.size() == 3);
    CHECK_CHARGE(c[0], "cycle_rounding", "2023-04-08T00:00:00+08:00", "2023-04-09T00:00:00+08:00",
                 1, "1", "0", "-0.001", "-0.001", "-0.001");
    CHECK_CHARGE(c[1], "settlement", "2023-04-08T10:00:00+08:00", "2023-04-08T10:30:00+08:00", 1,
                 "3600", "1.0055", "1.0055", "0", "1.0055");
    CHECK_CHARGE(c[2], "settlement", "2023-04-08T15:00:00+08:00", "2023-04-08T15:10:00+08:00", 1,
                 "3600", "1.0055", "1.0055", "0", "1.0055");
    CHECK(fx.movements("a").back().balance_after == "97.99");
    return c;
  };
  ReplayFixture whole;
  whole.import_catalog(data_path("daily-settlement.json"));
  whole.replay_text(first + second, until("2023-04-09T01:00:00+08:00"));
  const auto a = check(whole);

  ReplayFixture split;
  split.import_catalog(data_path("daily-settlement.json"));
  split.replay_text(first, until("2023-04-08T12:00:00+08:00"), "one.jsonl");
  split.replay_text(second, until("2023-04-09T01:00:00+08:00"), "two.jsonl");
  const auto b = check(split);
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    CHECK(a[i].note == b[i].note);
    CHECK(a[i].end == b[i].end);
  }
}

TEST_CASE("AWS: each month's record is rounded once, at the month end while running",
          "[replay][cycle][aws]") {
  ReplayFixture fx;
  // 23:59:00 Jan 31 → 00:00:50 Feb 1 UTC (110 s, above the 60 s minimum). January's record:
  // 60 s × 3.06 / 3600 = 0.051 → 0.05 at 00:00 Feb 1 (the month end, the instance running).
  // February's: 50 s = 0.0425 → 0.04 (half-up) when released, 01:00.
  fx.replay_text(R"(
{"id":"c1","time":"2018-01-31T23:59:00Z","type":"create","account":"corp","instance":"p3","provider":"aws","region":"us-east-1","instance_type":"p3.2xlarge","mode":"payg"}
{"id":"d1","time":"2018-02-01T00:00:50Z","type":"destroy","account":"corp","instance":"p3"}
)",
                 until("2018-02-01T02:00:00Z"));
  const auto c = fx.charges();
  REQUIRE(c.size() == 4);
  CHECK_CHARGE(c[0], "cycle_rounding", "2018-01-01T00:00:00Z", "2018-02-01T00:00:00Z", 1, "1", "0",
               "-0.001", "-0.001", "-0.001");
  CHECK_CHARGE(c[1], "settlement", "2018-01-31T23:59:00Z", "2018-02-01T00:00:00Z", 1, "60", "0.051",
               "0.051", "0", "0.051");
  CHECK_CHARGE(c[2], "cycle_rounding", "2018-02-01T00:00:00Z", "2018-02-01T01:00:00Z", 1, "1", "0",
               "-0.0025", "-0.0025", "-0.0025");
  CHECK_CHARGE(c[3], "settlement", "2018-02-01T00:00:00Z", "2018-02-01T00:00:50Z", 1, "50",
               "0.0425", "0.0425", "0", "0.0425");
  CHECK(fx.movements("corp").back().balance_after == "-0.09");
  for (const auto& row : c) {
    CHECK(explain_charge(fx.db(), row.id).derivation == Derivation::verified);
  }
  // In FOCUS the month's rounding is an adjustment of its own amount, not a price × quantity:
  // no unit price or quantity, ListCost = EffectiveCost = BilledCost.
  const FocusTable focus = focus_export(fx.db(), query_charges(fx.db()));
  const auto column = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(focus.columns.begin(), focus.columns.end(), name) -
                                    focus.columns.begin());
  };
  int adjustments = 0;
  for (const auto& r : focus.rows) {
    if (r[column("x_ChargeKind")] != "cycle_rounding") continue;
    ++adjustments;
    CHECK(r[column("ChargeCategory")] == "Adjustment");
    CHECK(r[column("ListCost")] == r[column("BilledCost")]);
    CHECK(r[column("EffectiveCost")] == r[column("BilledCost")]);
    CHECK_FALSE(r[column("ListUnitPrice")]);
    CHECK_FALSE(r[column("PricingQuantity")]);
  }
  CHECK(adjustments == 2);
}

TEST_CASE("Alibaba from 2024-04-01: hourly records accumulate and the month is rounded down",
          "[replay][cycle][alibaba]") {
  ReplayFixture fx;
  // ecs.gn6i-c4g1.xlarge 11.63 CNY/h, per second. 2024-05-31 23:50 → 2024-06-01 00:10 (UTC+8):
  // May: 600 s = 1.938333333333 → down 1.93 at 00:00 Jun 1 (local month end); June: the same
  // 1.938333333333 → 1.93 at release. Before 2024-04-01 each hourly settlement was rounded down
  // on its own (policy row from 2017-09-28); the totals happen to agree here, the records not.
  fx.replay_text(R"(
{"id":"t1","time":"2024-05-31T09:00:00+08:00","type":"topup","account":"a","amount":"100","currency":"CNY"}
{"id":"c1","time":"2024-05-31T23:50:00+08:00","type":"create","account":"a","instance":"g","provider":"alibaba","region":"cn-shanghai","instance_type":"ecs.gn6i-c4g1.xlarge","mode":"payg"}
{"id":"d1","time":"2024-06-01T00:10:00+08:00","type":"destroy","account":"a","instance":"g"}
)",
                 until("2024-06-01T02:00:00+08:00"));
  const auto c = fx.charges();
  REQUIRE(c.size() == 4);
  CHECK_CHARGE(c[0], "cycle_rounding", "2024-05-01T00:00:00+08:00", "2024-06-01T00:00:00+08:00", 1,
               "1", "0", "-0.008333333333", "-0.008333333333", "-0.008333333333");
  CHECK(c[1].exact == "1.938333333333");
  CHECK(c[1].billed == "1.938333333333");
  CHECK(c[2].kind == "cycle_rounding");
  CHECK(c[2].billed == "-0.008333333333");
  CHECK(c[1].policy_id == fx.policy_id("alibaba", "2024-04-01T00:00:00+08:00"));
  CHECK(fx.movements("a").back().balance_after == "96.14");
}

TEST_CASE("Google in a quote: host and K80 are settled apart and rounded on the monthly bill",
          "[quote][cycle][google]") {
  // 730 h of n1-highmem-2 (0.1184/h) + 1 × K80 (0.45/h) on 2019-06-30. Rounding the summed
  // 0.5684/h every hour (0.57 × 730 = 416.10) was 1.17 too much; each meter's records exact and
  // rounded per quote month (730 h here, Google's calculator month): host 86.432 → 86.43, K80
  // 328.5 → 414.93 (replay's calendar months give the same: 2.84 + 83.59 and 10.8 + 317.7).
  // Sustained use is per calendar month from the quote's date (issue 27; Google computes it per
  // calendar month, cloud.google.com/compute/docs/sustained-use-discounts): June 30 is 24 h of June
  // (first tier, no credit) and July 706 h of 744 h: 186 h at 100 %, 186 at 80 %, 186 at 60 %, 148
  // at 40 % = 200.4 h of credit: host 23.72736 → 23.73, K80 90.18; 414.93 − 113.91. (Counted per
  // 720-h month from the first run, as before, it was 30 % off: 122.77, which replay never gave.)
  ReplayFixture fx;
  const Workload w = parse_workload_json(
      R"({"format": "gpubill-workload/1", "gpu": {"models": ["K80"], "count": 1},
          "host": {"min_ram_gb": 0}, "duration": {"hours": 730}, "providers": ["google"],
          "modes": ["payg"], "date": "2019-06-30"})",
      "w.json");
  const Catalog catalog = load_quote_catalog(fx.db(), parse_instant("2019-06-30", true), w);
  const QuoteResult q = QuoteEngine(catalog).quote(resolve_workload(w, catalog));
  const QuoteLine* line = nullptr;
  for (const auto& l : q.lines) {
    if (l.priced && l.instance_type == "n1-highmem-2+1×K80") line = &l;
  }
  REQUIRE(line != nullptr);
  CHECK(line->run_cost->billed.to_string() == "414.93 USD");
  CHECK(line->run_cost->exact.amount().to_string() == "414.932");
  REQUIRE(line->sustained_use_credit);
  CHECK(line->sustained_use_credit->to_string() == "113.91 USD");
  CHECK(line->compute->to_string() == "301.02 USD");
  const std::string text = explain_line(q, *line);
  CHECK(text.find("one settlement record per month") != std::string::npos);
}

TEST_CASE("Alibaba's lifetime minimum counts the month's rounded record",
          "[replay][cycle][alibaba]") {
  ReplayFixture fx;
  // 1 s of 11.63 CNY/h = 0.003230555556 exact; released at once, the month's record is rounded
  // down to 0.00; the lifetime then costs less than Alibaba's 0.01 minimum, which adds 0.01.
  fx.replay_text(R"(
{"id":"t1","time":"2024-05-10T09:00:00+08:00","type":"topup","account":"a","amount":"100","currency":"CNY"}
{"id":"c1","time":"2024-05-10T10:00:00+08:00","type":"create","account":"a","instance":"g","provider":"alibaba","region":"cn-shanghai","instance_type":"ecs.gn6i-c4g1.xlarge","mode":"payg"}
{"id":"d1","time":"2024-05-10T10:00:01+08:00","type":"destroy","account":"a","instance":"g"}
)",
                 until("2024-05-10T12:00:00+08:00"));
  const auto c = fx.charges();
  REQUIRE(c.size() == 3);
  CHECK(c[0].kind == "cycle_rounding");
  CHECK(c[0].billed == "-0.003230555556");
  CHECK(c[1].kind == "minimum_charge");
  CHECK(c[1].billed == "0.01");
  CHECK(c[2].kind == "settlement");
  CHECK(c[2].billed == "0.003230555556");
  CHECK(fx.movements("a").back().balance_after == "99.99");
  for (const auto& row : c) {
    INFO(row.kind);
    CHECK(explain_charge(fx.db(), row.id).derivation == Derivation::verified);
  }
}

namespace {

std::string google_vm(const std::string& id, const std::string& instance, const char* time,
                      const std::string& extra = "") {
  return R"({"id":")" + id + R"(","time":")" + time +
         R"(","type":"create","account":"lab","instance":")" + instance +
         R"(","provider":"google","region":"us-central1","instance_type":"n1-highmem-2","mode":"payg","gpu":"K80","gpus":1)" +
         extra + "}\n";
}

std::string destroy(const std::string& id, const std::string& instance, const char* time) {
  return R"({"id":")" + id + R"(","time":")" + time +
         R"(","type":"destroy","account":"lab","instance":")" + instance + "\"}\n";
}

std::vector<Charge> credits(ReplayFixture& fx) {
  return fx.charges("kind = 'sustained_use_discount'");
}

}  // namespace

TEST_CASE("Google sustained use: a month of a K80 is 30 % off, credited at the month end",
          "[replay][sustained][google]") {
  ReplayFixture fx;
  // June 2019 (720 h): K80 0.45 × 720 = 324, its quarters at 100/80/60/40 % → credit 97.20;
  // the n1-highmem-2 host 85.248 → 25.5744 → 25.57 (half-up). Credited at 00:00 July 1.
  fx.replay_text(
      google_vm("c1", "g", "2019-06-01T00:00:00Z") + destroy("d1", "g", "2019-07-01T00:00:00Z"),
      until("2019-07-01T01:00:00Z"));
  const auto c = credits(fx);
  REQUIRE(c.size() == 2);
  CHECK(c[0].instance_type == "K80");
  CHECK(c[0].unit == "gpu_second");
  CHECK(c[0].quantity == "2592000");
  CHECK(c[0].billed == "-97.20");
  CHECK(c[1].instance_type == "n1-highmem-2");
  CHECK(c[1].exact == "-25.5744");
  CHECK(c[1].billed == "-25.57");
  CHECK(c[0].start == secs("2019-06-01T00:00:00Z"));
  CHECK(c[0].end == secs("2019-07-01T00:00:00Z"));
  for (const auto& row : c) {
    CHECK(explain_charge(fx.db(), row.id).derivation == Derivation::verified);
  }
  CHECK(fx.movements("lab").back().balance_after == "-286.48");  // 85.25 + 324 − 122.77
  const FocusTable focus = focus_export(fx.db(), query_charges(fx.db()));
  const auto category = std::find(focus.columns.begin(), focus.columns.end(), "ChargeCategory") -
                        focus.columns.begin();
  int credit_rows = 0;
  for (const auto& r : focus.rows) credit_rows += r[static_cast<std::size_t>(category)] == "Credit";
  CHECK(credit_rows == 2);
}

TEST_CASE(
    "Google sustained use: VMs one after another are one inferred instance; side by side, two",
    "[replay][sustained][google]") {
  // One after another: 360 h + 360 h of K80 in June = one inferred instance used all month →
  // 97.20, as for one VM. Side by side for the first 15 days: two inferred instances of 360 h
  // (half the month each: 180 h at 100 %, 180 h at 80 %) → 2 × 0.45 × 180 × 0.2 = 32.40.
  ReplayFixture one_after;
  one_after.replay_text(
      google_vm("c1", "a", "2019-06-01T00:00:00Z") + destroy("d1", "a", "2019-06-16T00:00:00Z") +
          google_vm("c2", "b", "2019-06-16T00:00:00Z") + destroy("d2", "b", "2019-07-01T00:00:00Z"),
      until("2019-07-01T01:00:00Z"));
  auto c = credits(one_after);
  REQUIRE(c.size() == 2);
  CHECK(c[0].billed == "-97.20");

  ReplayFixture side_by_side;
  side_by_side.replay_text(
      google_vm("c1", "a", "2019-06-01T00:00:00Z") + google_vm("c2", "b", "2019-06-01T00:00:00Z") +
          destroy("d1", "a", "2019-06-16T00:00:00Z") + destroy("d2", "b", "2019-06-16T00:00:00Z"),
      until("2019-07-01T01:00:00Z"));
  c = credits(side_by_side);
  REQUIRE(c.size() == 2);
  CHECK(c[0].billed == "-32.40");
  CHECK(c[0].note.find("2 inferred instance(s) used 360 h, 360 h") != std::string::npos);
  CHECK(explain_charge(side_by_side.db(), c[0].id).derivation == Derivation::verified);
}

TEST_CASE("Google sustained use: a log split mid-month gives the same credit",
          "[replay][sustained][google][property]") {
  const std::string first = google_vm("c1", "g", "2019-06-01T00:00:00Z");
  const std::string second = destroy("d1", "g", "2019-06-21T07:00:00Z");
  ReplayFixture whole;
  whole.replay_text(first + second, until("2019-07-02T00:00:00Z"));
  ReplayFixture split;
  split.replay_text(first, until("2019-06-10T13:00:00Z"), "one.jsonl");
  split.replay_text(second, until("2019-07-02T00:00:00Z"), "two.jsonl");
  const auto a = credits(whole), b = credits(split);
  REQUIRE(a.size() == 2);
  REQUIRE(b.size() == 2);
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].billed == b[i].billed);
    CHECK(a[i].note == b[i].note);
  }
  // 487 h: 180 h at 100 %, 180 h at 80 %, 127 h at 60 % → K80 0.45 × (36 + 50.8) = 39.06.
  CHECK(a[0].billed == "-39.06");
}
