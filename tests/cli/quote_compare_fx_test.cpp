// `gpubill quote --compare-to` on a line whose price and exchange rate both moved (issue 30,
// item 9): tests/data/fxcloud.json prices FX.GPU at 1.00 USD/h until 2020-07-01, then 1.50; the
// bundled USD→CNY rate in force on 2020-03-01 is 6.8704 (ECB, 2019-06-28), on 2020-07-01 7.0744
// (2020-06-30). Ten hours: before 10 USD × 6.8704 = 68.704 CNY, after 15 USD × 7.0744 =
// 106.116 CNY, delta 37.412 = by the price (15 − 10) × 6.8704 = 34.352 + by the rate
// 15 × (7.0744 − 6.8704) = 3.06.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "cli_run.hpp"
#include "json_schema.hpp"
#include "temp_dir.hpp"

using gpubill::testing::CliRun;
using gpubill::testing::run_cli;
using gpubill::testing::Stderr;

TEST_CASE("quote --compare-to splits a line's move into price and exchange rate",
          "[quote][compare][cli]") {
  gpubill::testing::TempDir dir;
  const std::string db = " --db '" + dir.file("fx.db") + "'";
  gpubill::testing::ensure_database(dir.file("fx.db"));
  REQUIRE(run_cli("catalog import --force '" + std::string(GPUBILL_SOURCE_DIR) +
                      "/tests/data/fxcloud.json'" + db,
                  Stderr::discarded)
              .status == 0);
  const std::string quote = "quote --gpu T4 --hours 10 --provider fxcloud";
  const std::string before = dir.file("before.json");
  REQUIRE(run_cli(quote + " --at 2020-03-01 --format json" + db + " > '" + before + "'",
                  Stderr::discarded)
              .status == 0);
  const std::string now = quote + " --at 2020-07-01 --compare-to '" + before + "'" + db;

  const CliRun j = run_cli(now + " --format json", Stderr::discarded);
  REQUIRE(j.status == 0);
  const auto doc = nlohmann::json::parse(j.output);
  gpubill::testing::check_schema("quote-compare.schema.json", doc);
  CHECK(doc["price_fx"] == 1);
  CHECK(doc["price"] == 0);
  REQUIRE(doc["lines"].size() == 1);
  const auto& line = doc["lines"][0];
  CHECK(line["change"] == "price+fx");
  CHECK(line["price_before"] == "1");
  CHECK(line["price_after"] == "1.5");
  CHECK(line["total_before"] == "68.704");
  CHECK(line["total_after"] == "106.116");
  CHECK(line["total_delta"] == "37.412");
  CHECK(line["total_delta_price"] == "34.352");
  CHECK(line["total_delta_fx"] == "3.06");
  CHECK(line["fx_rate_before"] == "6.8704");
  CHECK(line["fx_rate_after"] == "7.0744");

  // The table shows both parts beside the delta.
  const CliRun t = run_cli(now, Stderr::discarded);
  INFO(t.output);
  REQUIRE(t.status == 0);
  CHECK_THAT(t.output, Catch::Contains("1 by both a new price and the exchange rate"));
  CHECK_THAT(t.output, Catch::Contains("price+fx"));
  CHECK_THAT(t.output, Catch::Contains("37.41"));
  CHECK_THAT(t.output, Catch::Contains("34.35"));
  CHECK_THAT(t.output, Catch::Contains("3.06"));

  // Only the rate moved (same price, 2020-06-30 against 2020-03-01): "fx", all of it by the rate.
  const CliRun fx =
      run_cli(quote + " --at 2020-06-30 --compare-to '" + before + "'" + db + " --format json",
              Stderr::discarded);
  REQUIRE(fx.status == 0);
  const auto fx_line = nlohmann::json::parse(fx.output)["lines"][0];
  CHECK(fx_line["change"] == "fx");
  CHECK(fx_line["total_delta"] == "2.04");  // 10 × (7.0744 − 6.8704)
  CHECK(fx_line["total_delta_fx"] == "2.04");
  CHECK(fx_line["total_delta_price"] == "0");
}
