// AWS metering, end to end through the CLI on the bundled catalog (p3.2xlarge us-east-1 at
// 3.06 USD/h, p2.xlarge at 0.90 USD/h).
#include <catch2/catch.hpp>

#include "provider_example.hpp"

using gpubill::testing::dec;
using gpubill::testing::ExampleRun;

namespace {
std::string run_log(const std::string& type, const std::string& from, const std::string& to) {
  return R"({"id":"c1","time":")" + from +
         R"(","type":"create","account":"aws","instance":"i","provider":"aws","region":"us-east-1","instance_type":")" +
         type +
         R"(","mode":"payg"})"
         "\n" +
         R"({"id":"d1","time":")" + to +
         R"(","type":"destroy","account":"aws","instance":"i"})"
         "\n";
}
}  // namespace

// aws.amazon.com/about-aws/whats-new/2017/10/announcing-amazon-ec2-per-second-billing/
// (2017-10-02): per-second billing "with a minimum of 60 seconds". A 30 s run is billed 60 s: 3.06
// × 60 / 3600 = 0.051 → 0.05 on the month's record; a 61 s run is billed 61 s.
TEST_CASE("aws: a run shorter than 60 s is billed 60 s; a longer one by the second",
          "[provider_examples][aws][metering]") {
  ExampleRun run;
  run.replay(run_log("p3.2xlarge", "2019-06-03T10:00:00Z", "2019-06-03T10:00:30Z"),
             "2019-07-02T00:00:00Z");
  auto rows = run.settlements("aws");
  REQUIRE(!rows.empty());
  CHECK(dec(rows[0]["quantity"]) == dec("60"));
  CHECK(dec(rows[0]["exact_amount"]) == dec("0.051"));
  CHECK(run.billed("aws") == dec("0.05"));

  ExampleRun longer;
  longer.replay(run_log("p3.2xlarge", "2019-06-03T10:00:00Z", "2019-06-03T10:01:01Z"),
                "2019-07-02T00:00:00Z");
  rows = longer.settlements("aws");
  REQUIRE(!rows.empty());
  CHECK(dec(rows[0]["quantity"]) == dec("61"));
}

// Before 2017-10-02 "each partial instance-hour is billed as a full hour" (the policy row's
// source): 30 minutes of p2.xlarge cost a full 0.90.
TEST_CASE("aws before 2017-10-02: a partial hour is billed as a full hour",
          "[provider_examples][aws][metering]") {
  ExampleRun run;
  run.replay(run_log("p2.xlarge", "2017-03-01T10:00:00Z", "2017-03-01T10:30:00Z"),
             "2017-03-02T00:00:00Z");
  const auto rows = run.settlements("aws");
  REQUIRE(rows.size() == 1);
  CHECK(dec(rows[0]["quantity"]) == dec("3600"));
  CHECK(run.billed("aws") == dec("0.9"));
}
