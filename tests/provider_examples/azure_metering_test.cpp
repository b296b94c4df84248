// Azure virtual machine metering, end to end through the CLI on the bundled catalog
// (Standard_NC6 in eastus at 0.90 USD/h from 2022-08-02). Azure's documents give the rules and
// example usage values, not a worked bill: the figures below are worked here from them.
#include <catch2/catch.hpp>

#include "provider_example.hpp"

using gpubill::Decimal;
using gpubill::testing::dec;
using gpubill::testing::ExampleRun;

namespace {
std::string azure_event(const std::string& id, const std::string& time, const std::string& type,
                        const std::string& extra = "") {
  return R"({"id":")" + id + R"(","time":")" + time + R"(","type":")" + type +
         R"(","account":"az","instance":"vm")" + extra + "}\n";
}
const char* const kCreateNc6 =
    R"(,"provider":"azure","region":"eastus","instance_type":"Standard_NC6","mode":"payg")";
}  // namespace

// MicrosoftDocs/azure-docs@056402bf50835a42517a4abbce147a76d559bfa1:articles/virtual-machines/
// vm-usage.md (ms.date 07/28/2020), usage field "Consumed": "For Compute, we bill for each minute
// the VM ran for a given hour (up to 6 decimals of accuracy)", example values "1, 0.5" (hours).
// A VM that runs 10:00–10:30 consumes 0.5 h: 1800 s × 0.90 / 3600 = 0.45; 10:00–11:00 is 1 h.
TEST_CASE("azure example: half an hour of a VM is 0.5 h consumed, 0.45 at 0.90 USD/h",
          "[provider_examples][azure][metering]") {
  ExampleRun run;
  run.replay(azure_event("c1", "2022-09-05T10:00:00Z", "create", kCreateNc6) +
                 azure_event("d1", "2022-09-05T10:30:00Z", "destroy"),
             "2022-09-06T00:00:00Z");
  const auto rows = run.settlements("az");
  REQUIRE(rows.size() == 1);
  CHECK(dec(rows[0]["quantity"]) == dec("1800"));
  CHECK(dec(rows[0]["exact_amount"]) == dec("0.45"));
  CHECK(run.billed("az") == dec("0.45"));

  ExampleRun hour;
  hour.replay(azure_event("c1", "2022-09-05T10:00:00Z", "create", kCreateNc6) +
                  azure_event("d1", "2022-09-05T11:00:00Z", "destroy"),
              "2022-09-06T00:00:00Z");
  CHECK(dec(hour.settlements("az")[0]["quantity"]) == dec("3600"));
  CHECK(hour.billed("az") == dec("0.9"));
}

// Per minute: a run of 20 min 00 s and one of 19 min 01 s. The document bills "each minute the VM
// ran"; gpubill counts a started minute (policy metering_granularity_seconds 60; whether Azure
// drops or counts a partial minute is not documented, docs/provider-rules.md): both are 20
// minutes, 0.9 × 1200 / 3600 = 0.30.
TEST_CASE("azure: a VM is metered in minutes of the hour", "[provider_examples][azure][metering]") {
  for (const char* end : {"2022-09-05T10:20:00Z", "2022-09-05T10:19:01Z"}) {
    INFO(end);
    ExampleRun run;
    run.replay(azure_event("c1", "2022-09-05T10:00:00Z", "create", kCreateNc6) +
                   azure_event("d1", end, "destroy"),
               "2022-09-06T00:00:00Z");
    const auto rows = run.settlements("az");
    REQUIRE(rows.size() == 1);
    CHECK(dec(rows[0]["quantity"]) == dec("1200"));
    CHECK(run.billed("az") == dec("0.3"));
  }
}

// MicrosoftDocs/azure-docs@011c6133476345cdf6c7bd6af6ef704472e28dd4:articles/virtual-machines/
// states-billing.md (ms.date 03/8/2021), "Power states and billing": Running "Billed",
// Deallocated "Not billed". gpubill's stop is a deallocation (policy stopped_payg_compute_charged
// false). Running 10:00–11:00, deallocated 11:00–13:00, running 13:00–14:00: 2 h billed, 1.80.
TEST_CASE("azure example: a deallocated VM is not billed for compute",
          "[provider_examples][azure][stopped]") {
  ExampleRun run;
  run.replay(azure_event("c1", "2022-09-05T10:00:00Z", "create", kCreateNc6) +
                 azure_event("s1", "2022-09-05T11:00:00Z", "stop") +
                 azure_event("s2", "2022-09-05T13:00:00Z", "start") +
                 azure_event("d1", "2022-09-05T14:00:00Z", "destroy"),
             "2022-09-06T00:00:00Z");
  Decimal seconds;
  for (const auto& row : run.settlements("az")) seconds += dec(row["quantity"]);
  CHECK(seconds == dec("7200"));
  CHECK(run.billed("az") == dec("1.8"));
}

// Usage is rated per day: vm-usage.md's "Consumed" is "the amount of the resource that has been
// consumed for that day", for disks as for compute. A 128 GB Standard HDD (cloud_hdd, 0.046015625
// USD per GB-month) attached for one whole UTC day of June 2024 (30 days): 128 × 0.046015625 ×
// 86400 / 2592000 = 0.19633… → one day's record, half up to cents, 0.20. Rounding each hour
// (0.00818… → 0.01) billed 0.24, a fifth more than the disk costs.
TEST_CASE("azure: a disk's usage is rated per day, not rounded up each hour",
          "[provider_examples][azure][metering]") {
  ExampleRun run;
  run.replay(azure_event(
                 "c1", "2024-06-10T00:00:00Z", "create",
                 std::string(kCreateNc6) + R"(,"system_disk":{"kind":"cloud_hdd","size_gb":128})") +
                 azure_event("d1", "2024-06-11T00:00:00Z", "destroy"),
             "2024-06-12T00:00:00Z");
  Decimal exact;
  for (const auto& row : run.settlements("az")) {
    if (row["component"] == "system_disk") exact += dec(row["total_exact"]);
  }
  CHECK(exact == dec("0.196333333344"));  // 24 hourly records of 0.008180555556 (12 decimals)
  CHECK(run.billed("az", "system_disk") == dec("0.2"));
  CHECK(run.billed("az", "compute") == dec("21.6"));  // 24 h × 0.90, whole cents every hour
}
