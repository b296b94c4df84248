// Google's preemptible VMs stop after 24 hours of running; Spot VMs, which replaced them in the
// catalog's spot mode from 2021-10-12, have no maximum run. End to end through the CLI on the
// bundled catalog: n1-highmem-2 (spot 0.025 USD/h) with one K80 (spot 0.135 USD/h) in
// us-central1.
//
// Rule: "Compute Engine always stops preemptible instances after they run for 24 hours"
// (cloud.google.com/compute/docs/instances/preemptible, "Limitations"; the page's current copy
// docs.cloud.google.com/compute/docs/instances/create-use-preemptible keeps it), and "Spot VMs
// do not have a minimum or maximum runtime" (cloud.google.com/compute/docs/instances/spot). A
// stopped VM bills no vCPU, memory or GPU time (compute/docs/reference/rest/v1/instances/stop).
// The policy rows' spot_max_run_hours (24 until 2021-10-12, none after) carry the rule.
#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "provider_example.hpp"

using gpubill::Decimal;
using gpubill::testing::dec;
using gpubill::testing::ExampleRun;

namespace {

std::string event(const std::string& id, const std::string& time, const std::string& type,
                  const std::string& more = "") {
  return R"({"id":")" + id + R"(","time":")" + time + R"(","type":")" + type +
         R"(","account":"g","instance":"p")" + more + "}\n";
}

std::string create_spot(const std::string& time) {
  return event(
      "c1", time, "create",
      R"(,"provider":"google","region":"us-central1","instance_type":"n1-highmem-2","mode":"spot","gpu":"K80","gpus":1)");
}

// Σ quantity and Σ exact amount of the settlement rows of one unit ("second": the host,
// "gpu_second": its K80); a row stands for `repeat` equal hours.
std::pair<Decimal, Decimal> metered(ExampleRun& run, const std::string& unit) {
  Decimal seconds, exact;
  for (const auto& row : run.settlements("g")) {
    if (row["unit"] != unit) continue;
    const Decimal repeat = dec(row["repeat"]);
    seconds += dec(row["quantity"]) * repeat;
    exact += dec(row["exact_amount"]) * repeat;
  }
  return {seconds, exact};
}

}  // namespace

TEST_CASE("google example: a preemptible VM is stopped after 24 hours of running",
          "[provider_examples][google][spot]") {
  // Created 2019-06-03 10:00 UTC and never stopped by the log: the provider stops it at
  // 2019-06-04 10:00, so 86,400 s are billed: host 0.025 × 24 = 0.60, K80 0.135 × 24 = 3.24.
  ExampleRun run;
  run.replay(create_spot("2019-06-03T10:00:00Z"), "2019-07-01T00:00:00Z");
  CHECK(metered(run, "second") == std::pair{dec("86400"), dec("0.6")});
  CHECK(metered(run, "gpu_second") == std::pair{dec("86400"), dec("3.24")});
  const auto stop = run.state("p", "preempted", "g");
  REQUIRE_FALSE(stop.empty());
  CHECK(gpubill::testing::same_instant(stop["at"], "2019-06-04T10:00:00Z"));
  CHECK(stop["state"] == "preempted");
  CHECK(run.billed("g") == dec("3.84"));  // one monthly settlement per meter, half up to cents
}

TEST_CASE("google example: a preemptible VM started again runs 24 hours more at most",
          "[provider_examples][google][spot]") {
  // Stopped by the provider on 06-04 10:00; the log's own stop at 16:00 is kept and bills
  // nothing; started 06-05 00:00 and stopped by the log an hour later: 86,400 + 3,600 s.
  ExampleRun run;
  run.replay(create_spot("2019-06-03T10:00:00Z") + event("s1", "2019-06-04T16:00:00Z", "stop") +
                 event("s2", "2019-06-05T00:00:00Z", "start") +
                 event("s3", "2019-06-05T01:00:00Z", "stop"),
             "2019-07-01T00:00:00Z");
  CHECK(metered(run, "second").first == dec("90000"));
  CHECK(metered(run, "gpu_second") == std::pair{dec("90000"), dec("3.375")});
  CHECK_FALSE(run.state("p", "stop: already stopped by the provider", "g").empty());
  std::vector<std::string> states;
  for (const auto& h : run.history("p", "g")) states.push_back(h["state"]);
  CHECK(states ==
        std::vector<std::string>{"running", "preempted", "stopped", "running", "stopped"});
  // A run the log stops before 24 h is not touched by the provider's timer: no preemption.
  ExampleRun short_run;
  short_run.replay(create_spot("2019-06-03T10:00:00Z") +
                       event("s1", "2019-06-04T09:59:59Z", "stop") +
                       event("s2", "2019-06-04T10:30:00Z", "start") +
                       event("s3", "2019-06-05T10:00:00Z", "stop"),
                   "2019-07-01T00:00:00Z");
  CHECK(metered(short_run, "gpu_second").first == dec("86399") + dec("84600"));
  CHECK(short_run.state("p", "preempted", "g").empty());
}

TEST_CASE("google example: a Spot VM (from 2021-10-12) has no maximum run",
          "[provider_examples][google][spot]") {
  // 48 hours from 2022-06-01: host 0.025 × 48 = 1.20; K80 spot 0.0375 × 48 = 1.80.
  ExampleRun run;
  run.replay(create_spot("2022-06-01T00:00:00Z") + event("s1", "2022-06-03T00:00:00Z", "stop"),
             "2022-07-01T00:00:00Z");
  CHECK(metered(run, "second") == std::pair{dec("172800"), dec("1.2")});
  CHECK(metered(run, "gpu_second") == std::pair{dec("172800"), dec("1.8")});
  CHECK(run.state("p", "preempted", "g").empty());
}
