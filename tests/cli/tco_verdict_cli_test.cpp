// lease-vs-buy on the bundled catalog: the DGX-1 sample rents single 8-GPU nodes with at least
// the DGX-1's 80 vCPUs and 512 GB, and prints one verdict (issue 30 item 1).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>

#include "cli_run.hpp"
#include "json_schema.hpp"
#include "temp_dir.hpp"

using gpubill::testing::TempDir;

namespace {

gpubill::testing::CliRun verdict_of(const TempDir& dir, const std::string& args) {
  gpubill::testing::ensure_database(dir.file("t.db"));
  return gpubill::testing::run_cli("lease-vs-buy '" + std::string(GPUBILL_SOURCE_DIR) +
                                       "/fixtures/tco/" + args + " --db '" + dir.file("t.db") + "'",
                                   gpubill::testing::Stderr::discarded);
}

}  // namespace

TEST_CASE("lease-vs-buy 8xV100: one verdict, comparable single nodes", "[tco][cli]") {
  TempDir dir;
  const auto text = verdict_of(dir, "8xV100.json'");
  INFO(text.output);
  REQUIRE(text.status == 0);
  std::size_t verdicts = 0;
  for (std::size_t i = text.output.find("verdict"); i != std::string::npos;
       i = text.output.find("verdict", i + 1)) {
    ++verdicts;
  }
  CHECK(verdicts == 1);
  CHECK_THAT(text.output, !Catch::Contains("break-even -"));

  const auto json = verdict_of(dir, "8xV100.json' --format json");
  REQUIRE(json.status == 0);
  const auto doc = nlohmann::json::parse(json.output);
  gpubill::testing::check_schema("lease-vs-buy.schema.json", doc);
  const auto& v = doc["verdict"];
  REQUIRE(v["option"].is_number());
  const std::string sentence = v["text"];
  CHECK_THAT(sentence, Catch::StartsWith(v["rent"].get<bool>() ? "Rent " : "Buy: "));
  CHECK_THAT(sentence, Catch::Contains("over 36 months at 60.00 % utilisation"));
  for (const auto& c : doc["comparisons"]) {
    const auto& o = doc["options"][c["option"].get<std::size_t>()];
    INFO(o.dump());
    CHECK(o["instances"] == 1);
    CHECK(o["gpus_per_instance"] == "8");
    REQUIRE(o["vcpu"].is_number());
    CHECK(o["vcpu"].get<int>() >= 80);
    CHECK(std::stod(o["ram_gb"].get<std::string>()) >= 512);
  }
}
