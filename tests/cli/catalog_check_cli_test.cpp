// `gpubill catalog check` on the bundled catalog (as CI runs it), and the check every
// `catalog import` runs: a file that breaks an invariant is refused unless --force.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>

#include "cli_run.hpp"
#include "json_schema.hpp"
#include "temp_dir.hpp"

using gpubill::testing::CliRun;
using gpubill::testing::TempDir;

namespace {

struct Db {
  TempDir dir;
  std::string flag;
  Db() : flag(" --db '" + dir.file("d.db") + "'") {
    gpubill::testing::ensure_database(dir.file("d.db"));
  }
  CliRun run(const std::string& args) const { return gpubill::testing::run_cli(args + flag); }
  // A catalog file adding a spot price of exactly a tenth of AWS p3.2xlarge's us-east-1 payg
  // price in force at 2025-08-25 (a placeholder the check refuses).
  std::string placeholder_file() const {
    const std::string path = dir.file("placeholder.json");
    std::ofstream(path) << R"({"format": "gpubill-catalog/1", "prices": [
      {"provider": "aws", "instance_type": "p3.2xlarge", "region": "us-east-1", "mode": "payg",
       "unit": "hour", "amount": "3.06", "currency": "USD", "effective_from": "2026-10-01",
       "source": "TEST FIXTURE payg", "as_of": "2026-10-01"},
      {"provider": "aws", "instance_type": "p3.2xlarge", "region": "us-east-1", "mode": "spot",
       "unit": "hour", "amount": "0.306", "currency": "USD", "effective_from": "2026-10-01",
       "source": "TEST FIXTURE payg / 10", "as_of": "2026-10-01"}]})";
    return path;
  }
};

}  // namespace

TEST_CASE("catalog check passes on a freshly initialised bundled catalog", "[cli][check]") {
  const Db db;
  const CliRun r = db.run("catalog check");
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK(r.output.find("0 errors") != std::string::npos);
  CHECK(r.output.find("passed") != std::string::npos);
}

TEST_CASE("catalog import refuses a file that breaks catalog check, unless --force",
          "[cli][check]") {
  const Db db;
  const std::string file = db.placeholder_file();
  CliRun r = db.run("catalog validate '" + file + "'");
  CHECK(r.status == 1);
  r = db.run("catalog import '" + file + "'");
  INFO(r.output);
  CHECK(r.status == 1);
  CHECK(r.output.find("constant_ratio aws p3.2xlarge us-east-1 spot 2026-10-01") !=
        std::string::npos);
  CHECK(r.output.find("--force") != std::string::npos);
  CHECK(db.run("catalog check").status == 0);  // nothing was imported

  r = db.run("catalog import --force '" + file + "'");
  CHECK(r.status == 0);
  CHECK(r.output.find("note: check: error constant_ratio aws p3.2xlarge") != std::string::npos);
  r = db.run("catalog check --format json --errors-only");
  CHECK(r.status == 1);
  const auto j = nlohmann::json::parse(r.output);
  CHECK(gpubill::testing::JsonSchema::load("catalog-check.schema.json").errors(j).empty());
  REQUIRE(j["rows"].size() == 1);
  CHECK(j["rows"][0]["invariant"] == "constant_ratio");
  CHECK(j["rows"][0]["sources"].get<std::string>().find("TEST FIXTURE payg / 10") == 0);
}

TEST_CASE("quote --count 0.25 quotes quarter-GPU slices", "[cli][quote]") {
  const Db db;
  const CliRun r =
      db.run("quote --gpu T4 --count 0.25 --hours 720 --at 2020-06-30 --format csv --top 0");
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK(r.output.find("GN7.LARGE20") != std::string::npos);
  CHECK(r.output.find("GN7.2XLARGE32") == std::string::npos);  // a whole T4
  CHECK(db.run("quote --gpu T4 --count 1.5 --at 2026-07-13").status == 1);
}
