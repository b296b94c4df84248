// Google Compute Engine per-second billing with a one-minute minimum, end to end through the CLI
// on the bundled catalog: n1-highmem-2 (0.1184 USD/h) with one K80 (0.45 USD/h) in us-central1,
// June 2019.
#include <catch2/catch.hpp>

#include "provider_example.hpp"

using gpubill::Decimal;
using gpubill::testing::dec;
using gpubill::testing::ExampleRun;

namespace {
std::string google_run(const std::string& from, const std::string& to) {
  return R"({"id":"c1","time":")" + from +
         R"(","type":"create","account":"g","instance":"i","provider":"google","region":"us-central1","instance_type":"n1-highmem-2","mode":"payg","gpu":"K80","gpus":1})"
         "\n" +
         R"({"id":"d1","time":")" + to + R"(","type":"destroy","account":"g","instance":"i"})" +
         "\n";
}

// Σ quantity of the settlement rows of one meter: unit "second" (the host) or "gpu_second" (its
// K80).
Decimal seconds_of(ExampleRun& run, const std::string& unit) {
  Decimal sum;
  for (const auto& row : run.settlements("g")) {
    if (row["unit"] == unit) sum += dec(row["quantity"]);
  }
  return sum;
}
}  // namespace

// Google's billing model (cloud.google.com/compute/vm-instance-pricing, "Billing model for
// virtual machine instances"; not re-read here) as given by Packt's Professional Cloud Architect
// guide (2019) [S]: "you are charged for vCPUs, GPUs, and GB of memory per 1 minute. If you run
// a VM for only 30 seconds, you will still be charged for the full 1 minute of usage"; per-second
// increments after the first minute (the policy row's min_charge_seconds_per_run 60 and
// metering_granularity_seconds 1, docs/provider-rules.md). A 30 s run: 60 s of the host and of
// the GPU, 0.45 × 60 / 3600 = 0.0075 for the K80; a 90 s run: 90 s.
TEST_CASE("google example: a VM run for 30 seconds is billed 1 minute, then by the second",
          "[provider_examples][google][metering]") {
  ExampleRun run;
  run.replay(google_run("2019-06-03T10:00:00Z", "2019-06-03T10:00:30Z"), "2019-07-01T00:00:00Z");
  CHECK(seconds_of(run, "second") == dec("60"));
  CHECK(seconds_of(run, "gpu_second") == dec("60"));
  for (const auto& row : run.settlements("g")) {
    if (row["unit"] == "gpu_second") CHECK(dec(row["exact_amount"]) == dec("0.0075"));
  }

  ExampleRun longer;
  longer.replay(google_run("2019-06-03T10:00:00Z", "2019-06-03T10:01:30Z"), "2019-07-01T00:00:00Z");
  CHECK(seconds_of(longer, "second") == dec("90"));
  CHECK(seconds_of(longer, "gpu_second") == dec("90"));
}
