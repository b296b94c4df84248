// Issue 29's acceptance check end to end on the bundled catalog: three years of 8 × V100 show
// AWS reserved-instance and Google committed-use lines with their break-even utilisation, and
// each can be explained by its commitment row.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>

#include "cli_run.hpp"
#include "temp_dir.hpp"

using gpubill::testing::TempDir;

namespace {

using Run = gpubill::testing::CliRun;

Run commitment_cli(const TempDir& dir, const std::string& args) {
  using gpubill::testing::Stderr;
  gpubill::testing::ensure_database(dir.file("q.db"));
  return gpubill::testing::run_cli(args + " --db '" + dir.file("q.db") + "'", Stderr::discarded);
}

}  // namespace

TEST_CASE("gpubill quote: 8 × V100 for three years with commitments", "[quote][cli][commitment]") {
  TempDir dir;
  const Run j = commitment_cli(
      dir, "quote --gpu V100 --count 8 --hours 26280 --at 2025-12-01 --format json --currency USD");
  REQUIRE(j.status == 0);
  const auto doc = nlohmann::json::parse(j.output);
  const nlohmann::json* aws3 = nullptr;
  bool google1 = false, google3 = false;
  for (const auto& l : doc["lines"]) {
    if (!l.contains("commitment")) continue;
    const auto& c = l["commitment"];
    CHECK(c["break_even_utilisation"].is_string());
    if (l["id"] == "aws/us-east-1/p3dn.24xlarge/reserved_3y/ri-standard-all-upfront") aws3 = &l;
    if (l["provider"] == "google" && c["term_months"] == 12) google1 = true;
    if (l["provider"] == "google" && c["term_months"] == 36) google3 = true;
  }
  REQUIRE(aws3);
  // p3dn.24xlarge, 3-year standard RI, all upfront 238250 USD for one 26280 h term; against
  // 31.212 USD an hour it pays off above 238250 / (31.212 × 26280 = 820251.36) = 0.290460… →
  // 0.2905 of the term's hours.
  CHECK((*aws3)["commitment"]["terms"] == 1);
  CHECK((*aws3)["commitment"]["upfront"]["amount"] == "238250");
  CHECK((*aws3)["commitment"]["break_even_utilisation"] == "0.2905");
  CHECK((*aws3)["commitment"]["hours_beyond_workload"] == 0);
  CHECK(google1);
  CHECK(google3);

  const Run t = commitment_cli(dir,
                               "quote --gpu V100 --count 8 --hours 26280 --at 2025-12-01 "
                               "--explain aws/us-east-1/p3dn.24xlarge/reserved_3y/"
                               "ri-standard-all-upfront");
  INFO(t.output);
  CHECK(t.status == 0);
  CHECK_THAT(t.output, Catch::Contains("commitment #"));
  CHECK_THAT(t.output, Catch::Contains("tsaol/aws-gpu@2d0108c7bd261c8e40493fbd35135437bd6c9099"));
  CHECK_THAT(t.output, Catch::Contains("break-even against pay-as-you-go"));
}
