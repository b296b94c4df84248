// Google's sustained use discount table, end to end through the CLI on the bundled catalog:
// n1-highmem-2 (0.1184 USD/h) with one K80 (0.45 USD/h) in us-central1, June 2019 (720 h).
#include <catch2/catch.hpp>

#include <map>

#include "provider_example.hpp"

using gpubill::Decimal;
using gpubill::testing::dec;
using gpubill::testing::ExampleRun;

namespace {

// The month's sustained-use credit lines, by instance type (the host's and the GPU's).
std::map<std::string, std::string> credits_for(std::int64_t hours) {
  ExampleRun run;
  const std::string end = gpubill::format_instant(gpubill::parse_instant("2019-06-01T00:00:00Z") +
                                                  std::chrono::hours{hours});
  run.replay(
      R"({"id":"c1","time":"2019-06-01T00:00:00Z","type":"create","account":"g","instance":"i","provider":"google","region":"us-central1","instance_type":"n1-highmem-2","mode":"payg","gpu":"K80","gpus":1})"
      "\n"
      R"({"id":"d1","time":")" +
          end +
          R"(","type":"destroy","account":"g","instance":"i"})"
          "\n",
      "2019-07-01T00:00:00Z");
  std::map<std::string, std::string> out;
  for (const auto& row : run.charges("g")) {
    if (row["kind"] == "sustained_use_discount") {
      out[row["instance_type"].get<std::string>()] = row["total_billed"].get<std::string>();
    }
  }
  return out;
}

}  // namespace

// cloud.google.com/compute/docs/sustained-use-discounts: "Usage level (% of month) … 0%–25%:
// 100% of base rate, 25%–50%: 80%, 50%–75%: 60%, 75%–100%: 40%" — a VM used half the month pays
// 100 % and 80 % of its two quarters: 10 % off (the table's effective rate); three quarters:
// 20 % off; the whole month: 30 % off. Half of June (360 h): the K80's 162.00 is credited 16.20,
// the host's 42.624 is credited 4.2624 → 4.26.
TEST_CASE("google example: half a month of use is 10 % off, three quarters 20 %, a month 30 %",
          "[provider_examples][google][sustained_use]") {
  auto half = credits_for(360);
  CHECK(dec(half["K80"]) == dec("-16.2"));
  CHECK(dec(half["n1-highmem-2"]) == dec("-4.26"));
  auto three_quarters = credits_for(540);
  CHECK(dec(three_quarters["K80"]) == dec("-48.6"));            // 20 % of 243.00
  CHECK(dec(three_quarters["n1-highmem-2"]) == dec("-12.79"));  // 20 % of 63.936 = 12.7872
  auto month = credits_for(720);
  CHECK(dec(month["K80"]) == dec("-97.2"));            // 30 % of 324.00
  CHECK(dec(month["n1-highmem-2"]) == dec("-25.57"));  // 30 % of 85.248 = 25.5744
}

// The same page's table, "Example incremental rate (USD/hour) for an n1-standard-1 instance":
// 0%–25% $0.0475, 25%–50% $0.0380, 50%–75% $0.0285, 75%–100% $0.0190 (as the page read in 2018,
// copied at easycloud.company/2018/07/google-cloud-sustained-use-discounts/ [S]; the tiers are
// the calculator's sustained_use_tiers, docs/provider-rules.md). The bundled catalog prices
// n1-standard-1 in us-central1 at the table's base rate 0.0475. A whole June (720 h) at those
// rates: 180 h × (0.0475 + 0.0380 + 0.0285 + 0.0190) = 23.94; the list price 720 × 0.0475 =
// 34.20, so the credit is 10.26 (30 %).
TEST_CASE("google example: an n1-standard-1 for a whole month costs 180 h at each tier's rate",
          "[provider_examples][google][sustained_use]") {
  ExampleRun run;
  run.replay(
      R"({"id":"c1","time":"2019-06-01T00:00:00Z","type":"create","account":"g","instance":"s","provider":"google","region":"us-central1","instance_type":"n1-standard-1","mode":"payg"}
{"id":"d1","time":"2019-07-01T00:00:00Z","type":"destroy","account":"g","instance":"s"}
)",
      "2019-07-02T00:00:00Z");
  Decimal list;
  Decimal credit;
  for (const auto& row : run.charges("g")) {
    if (row["kind"] == "settlement" || row["kind"] == "cycle_rounding") {
      list += dec(row["total_billed"]);
    }
    if (row["kind"] == "sustained_use_discount") credit += dec(row["total_billed"]);
  }
  CHECK(list == dec("34.2"));
  CHECK(credit == dec("-10.26"));
  CHECK(run.billed("g") == dec("23.94"));
}
