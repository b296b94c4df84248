// AWS spot pricing within an hour, end to end through the CLI. AWS publishes no worked spot
// bill; these check the documented rule with a test-local price that changes at 10:20
// (tests/data/spot-price-changes.json).
#include <catch2/catch.hpp>

#include "provider_example.hpp"

using gpubill::testing::dec;
using gpubill::testing::ExampleRun;

namespace {
std::string hour_log(const std::string& day) {
  return R"({"id":"c1","time":")" + day +
         R"(T10:00:00Z","type":"create","account":"aws","instance":"s","provider":"aws","region":"us-east-1","instance_type":"example.spot","mode":"spot"})"
         "\n" +
         R"({"id":"d1","time":")" + day +
         R"(T11:00:00Z","type":"destroy","account":"aws","instance":"s"})"
         "\n";
}
}  // namespace

// From 2017-10-02 (per-second billing): "You pay the Spot price that's in effect, billed to the
// nearest second" (docs.aws.amazon.com/whitepapers/latest/cost-optimization-leveraging-ec2-spot-
// instances/how-spot-instances-work.html). 10:00–10:20 at 0.90 and 10:20–11:00 at 1.20:
// 0.90 × 1200 / 3600 + 1.20 × 2400 / 3600 = 0.30 + 0.80 = 1.10 (one price per hour gave 0.90).
TEST_CASE("aws: a spot hour whose price changes at 10:20 is billed per second at each price",
          "[provider_examples][aws][spot]") {
  ExampleRun run;
  run.import("spot-price-changes.json");
  run.replay(hour_log("2019-06-03"), "2019-07-02T00:00:00Z");
  const auto rows = run.settlements("aws");
  REQUIRE(rows.size() >= 2);
  CHECK(dec(rows[0]["unit_price"]) == dec("0.9"));
  CHECK(dec(rows[0]["quantity"]) == dec("1200"));
  CHECK(dec(rows[1]["unit_price"]) == dec("1.2"));
  CHECK(dec(rows[1]["quantity"]) == dec("2400"));
  CHECK(run.billed("aws") == dec("1.1"));
  // explain names the rule and its source.
  const auto x = run.explain(rows[1]["id"].get<std::int64_t>());
  CHECK(x["rule"]["rule"].get<std::string>().find("rules::spot_priced_piece") != std::string::npos);
  CHECK(x["rule"]["rule"].get<std::string>().find("per_second") != std::string::npos);
  CHECK(x["rule"]["source"].get<std::string>().find("billed to the nearest second") !=
        std::string::npos);
  CHECK(x["check"]["consistent"] == true);
}

// Before 2017-10-02 a partial instance-hour was billed as a full hour, at "the spot price that's
// in effect at the beginning of each hour" (the policy row's source): the hour is 0.90.
TEST_CASE("aws before 2017-10-02: a spot hour is billed whole at the price at its start",
          "[provider_examples][aws][spot]") {
  ExampleRun run;
  run.import("spot-price-changes.json");
  run.replay(hour_log("2017-03-01"), "2017-03-02T00:00:00Z");
  const auto rows = run.settlements("aws");
  REQUIRE(rows.size() == 1);
  CHECK(dec(rows[0]["unit_price"]) == dec("0.9"));
  CHECK(dec(rows[0]["quantity"]) == dec("3600"));
  CHECK(run.billed("aws") == dec("0.9"));
}
