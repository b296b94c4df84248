// AWS EBS: a volume priced per GB-month, billed by the second over its calendar month, end to end
// through the CLI on the bundled catalog (AWS cloud_ssd = gp2 at 0.10 USD per GB-month, us-east-1,
// 2019-08-02 to 2020-12-01). The instance is there to hold the volume; its compute is not checked.
#include <catch2/catch.hpp>

#include "provider_example.hpp"

using gpubill::testing::dec;
using gpubill::testing::ExampleRun;

namespace {

// A p3.2xlarge with a gp2 system disk of `size_gb` (2000 GB, the example's, by default).
std::string ebs_volume_log(const std::string& from, const std::string& to, int size_gb = 2000) {
  return R"({"id":"c1","time":")" + from +
         R"(","type":"create","account":"aws","instance":"i","provider":"aws","region":"us-east-1","instance_type":"p3.2xlarge","mode":"payg","system_disk":{"kind":"cloud_ssd","size_gb":)" +
         std::to_string(size_gb) +
         R"(}})"
         "\n" +
         R"({"id":"d1","time":")" + to +
         R"(","type":"destroy","account":"aws","instance":"i"})"
         "\n";
}

}  // namespace

// aws.amazon.com/ebs/pricing/ ("Pricing examples", Example 2 – EBS General Purpose SSD (gp2)
// Volumes; read 2026-12-03 through a stored copy of the page): "Provisioned storage for gp2
// volumes will be billed in per-second increments, with a 60-second minimum … let's say that you
// provision a 2,000 GB volume for 12 hours (43,200 seconds) in a 30-day month. In a region that
// charges $0.10 per GB-month, you would be charged: ($0.10 per GB-month * 2,000 GB * 43,200
// seconds / (86,400 seconds/day * 30 day-month)) = Total: $3.33". Replayed in June 2020 (30 days):
// twelve hourly records of 0.10 × 2000 × 3600 / 2,592,000 = 0.277777777778 USD, kept exact and
// rounded once on the month's record (AWS settles per month: see docs/provider-rules.md).
TEST_CASE("aws example: 2000 GB of gp2 for 12 hours in a 30-day month cost $3.33",
          "[provider_examples][aws][storage]") {
  ExampleRun run;
  run.replay(ebs_volume_log("2020-06-10T00:00:00Z", "2020-06-10T12:00:00Z"),
             "2020-07-02T00:00:00Z");
  CHECK(run.billed("aws", "system_disk") == dec("3.33"));
  gpubill::Decimal exact;
  for (const auto& row : run.charges("aws")) {
    if (row["component"] != "system_disk" || row["kind"] != "settlement") continue;
    CHECK(row["price_unit"] == "gb_month");
    exact += dec(row["total_exact"]);
    // explain re-derives the line: 0.1 USD/GB-month × 7200000 GB-s / 2592000 s.
    const auto x = run.explain(row["id"].get<std::int64_t>());
    INFO(x.dump());
    CHECK(x["check"]["derivation"] == "verified");
    CHECK(x["check"]["consistent"] == true);
  }
  // 12 × 0.277777777778 (each hour to 12 decimals, half-even).
  CHECK(exact == dec("3.333333333336"));
}

// A GB-month is the calendar month's: "assume a 31-day month. You are billed for one
// gigabyte-month in any of the following scenarios: If you had a 31 GB volume that was only
// active for 24 hours … If you had a 1 GB volume active for 744 hours (the number of hours in 31
// days)" (aws.amazon.com/premiumsupport/knowledge-center/ebs-volume-charges/, published
// 2017-07-03). So the example's volume in a 31-day month (July 2020) costs 0.10 × 2000 × 43,200 /
// (86,400 × 31) = 3.2258… → $3.23, and a 31 GB volume for 24 hours is one GB-month, $0.10.
TEST_CASE("aws: a GB-month is prorated over the actual seconds of the calendar month",
          "[provider_examples][aws][storage]") {
  ExampleRun july;
  july.replay(ebs_volume_log("2020-07-10T00:00:00Z", "2020-07-10T12:00:00Z"),
              "2020-08-02T00:00:00Z");
  CHECK(july.billed("aws", "system_disk") == dec("3.23"));

  ExampleRun gb_month;
  gb_month.replay(ebs_volume_log("2020-07-10T00:00:00Z", "2020-07-11T00:00:00Z", 31),
                  "2020-08-02T00:00:00Z");
  CHECK(gb_month.billed("aws", "system_disk") == dec("0.10"));
}

// A volume kept across a month end: each hour is prorated over its own month. 2000 GB from
// 2020-06-30 12:00 to 2020-07-01 12:00 UTC: June 12 h = 0.10 × 2000 × 43,200 / 2,592,000 =
// 3.333333333336 (twelve hours of 0.277777777778) → 3.33 on June's record; July 12 h = 12 × 0.10
// × 2000 × 3600 / 2,678,400 = 12 × 0.268817204301 = 3.225806451612 → 3.23 on July's.
TEST_CASE("aws: a volume across a month end is prorated over each month's own seconds",
          "[provider_examples][aws][storage]") {
  ExampleRun run;
  run.replay(ebs_volume_log("2020-06-30T12:00:00Z", "2020-07-01T12:00:00Z"),
             "2020-08-02T00:00:00Z");
  CHECK(run.billed("aws", "system_disk") == dec("6.56"));
}

// The same page: gp2 storage is "billed in per-second increments, with a 60-second minimum". A
// 16384 GB volume (gp2's largest) released 30 s after its creation is billed 60 s: 0.10 × 16384 ×
// 60 / 2,592,000 = 0.037925925926 (12 decimals), 0.04 on the month's record (half up) where 30 s
// would be 0.02; released at 90 s it is billed 90 s. The note on the line names the minimum and
// its policy row.
TEST_CASE("aws example: a gp2 volume is billed at least 60 seconds",
          "[provider_examples][aws][storage]") {
  const auto disk_rows = [](ExampleRun& run) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& row : run.charges("aws")) {
      if (row["component"] == "system_disk" && row["kind"] == "settlement") out.push_back(row);
    }
    return out;
  };
  ExampleRun brief;
  brief.replay(ebs_volume_log("2020-06-10T00:00:00Z", "2020-06-10T00:00:30Z", 16384),
               "2020-07-02T00:00:00Z");
  const auto rows = disk_rows(brief);
  REQUIRE(rows.size() == 1);
  CHECK(dec(rows[0]["quantity"]) == dec("983040"));  // 60 s × 16384 GB
  CHECK(dec(rows[0]["exact_amount"]) == dec("0.037925925926"));
  CHECK(rows[0]["note"].get<std::string>().find("minimum 60 s per volume") != std::string::npos);
  CHECK(brief.billed("aws", "system_disk") == dec("0.04"));

  ExampleRun longer;
  longer.replay(ebs_volume_log("2020-06-10T00:00:00Z", "2020-06-10T00:01:30Z", 16384),
                "2020-07-02T00:00:00Z");
  const auto rows90 = disk_rows(longer);
  REQUIRE(rows90.size() == 1);
  CHECK(dec(rows90[0]["quantity"]) == dec("1474560"));  // 90 s × 16384 GB, no minimum
  CHECK(rows90[0]["note"].get<std::string>().find("minimum") == std::string::npos);
}
