// `gpubill lease-vs-buy` end to end on the bundled catalog and the sample configurations in
// fixtures/tco/ (checks the shape of the output and the buy side, which does not depend on the
// bundled prices; the rent side is checked against a fixed catalog in tco_rent_test).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <string>

#include "cli_run.hpp"
#include "json_schema.hpp"
#include "temp_dir.hpp"

using gpubill::testing::TempDir;

namespace {

using TcoRun = gpubill::testing::CliRun;

// Runs `gpubill lease-vs-buy ARGS --db DIR/tco.db`.
TcoRun lease_vs_buy(const TempDir& dir, const std::string& args, bool with_stderr = true) {
  using gpubill::testing::Stderr;
  gpubill::testing::ensure_database(dir.file("tco.db"));
  return gpubill::testing::run_cli("lease-vs-buy " + args + " --db '" + dir.file("tco.db") + "'",
                                   with_stderr ? Stderr::merged : Stderr::discarded);
}

std::string sample(const char* name) {
  return std::string("'") + GPUBILL_SOURCE_DIR + "/fixtures/tco/" + name + "'";
}

}  // namespace

TEST_CASE("gpubill lease-vs-buy reads a sample configuration", "[tco][cli]") {
  TempDir dir;
  const TcoRun r = lease_vs_buy(dir, sample("8xV100.json"));
  INFO(r.output);
  REQUIRE(r.status == 0);
  CHECK_THAT(r.output, Catch::Contains("== lease vs buy (USD) =="));
  CHECK_THAT(r.output, Catch::Contains("\nverdict  "));
  CHECK_THAT(r.output, Catch::Contains("payg_break_even_utilisation"));
  CHECK_THAT(r.output, Catch::Contains("rule_of_thumb"));
  CHECK_THAT(r.output, Catch::Contains("a year's rent ≈ price / 3 + a small fee = 49666.67 USD"));
  CHECK_THAT(r.output, Catch::Contains("179608.64 USD"));  // the buy total (tco_buy_test)
  CHECK_THAT(r.output, Catch::Contains("== rent options (USD) =="));
  CHECK_THAT(r.output, Catch::Contains("== cumulative cost by month (USD) =="));
}

TEST_CASE("gpubill lease-vs-buy flags override the file, json and csv output", "[tco][cli]") {
  TempDir dir;
  const TcoRun j = lease_vs_buy(
      dir, sample("8xV100.json") + " --utilisation 0.5 --horizon 24 --format json", false);
  REQUIRE(j.status == 0);
  const auto doc = nlohmann::json::parse(j.output);
  CHECK(doc["currency"] == "USD");
  CHECK(doc["inputs"]["utilisation"] == "0.5");
  CHECK(doc["inputs"]["horizon_months"] == 24);
  CHECK(doc["months"].size() == 25);
  CHECK(doc["months"][0]["buy"]["cumulative"] == "149000");
  CHECK(doc["buy"]["power_per_month"] == "175.2");  // 350.40 × 0.5
  REQUIRE(doc["comparisons"].size() >= 1);
  CHECK(doc["comparisons"][0]["mode"] == "payg");
  CHECK(doc["comparisons"][0]["break_even_utilisation"]["kind"] == "renting_below");
  CHECK(doc["rule_of_thumb"]["price_over_3"] == "49666.666666666667");
  gpubill::testing::check_schema("lease-vs-buy.schema.json", doc);
  // Every object holding amounts names their currency.
  CHECK(doc["buy"]["currency"] == "USD");
  CHECK(doc["buy"]["total_line"]["currency"] == "USD");
  CHECK(doc["inputs"]["currency"] == "USD");
  CHECK(doc["options"][0]["currency"] == "USD");
  CHECK(doc["comparisons"][0]["currency"] == "USD");
  CHECK(doc["rule_of_thumb"]["currency"] == "USD");
  CHECK(doc["months"][0]["currency"] == "USD");
  CHECK(doc["months"][0]["buy"]["currency"] == "USD");

  const TcoRun c = lease_vs_buy(dir,
                                "--gpu V100 --count 8 --price '149000 USD' --host-watts 800 "
                                "--utilisation 0.6 --date 2019-07-01 --format csv",
                                false);
  REQUIRE(c.status == 0);
  // Every section, in one table with a `section` column (issue 30 item 8): the summary's
  // items, the rent options and the months.
  const std::string header = c.output.substr(0, c.output.find('\n'));
  CHECK(header.rfind("section,item,value,mode,provider,", 0) == 0);
  CHECK_THAT(header, Catch::Contains(",month,buy,rent_payg,rent_prepaid,cheapest,buy_pv,"
                                     "rent_payg_pv,rent_prepaid_pv,currency"));
  CHECK_THAT(c.output, Catch::Contains("\nlease_vs_buy_usd,verdict,"));
  CHECK_THAT(c.output, Catch::Contains("\nrent_options_usd,,,payg,"));
  CHECK_THAT(c.output, Catch::Contains(",36,179608.64,"));
  // The amounts' currency in a column, not in a header name.
  CHECK_THAT(c.output, Catch::Contains(",USD\n"));
}

TEST_CASE("gpubill lease-vs-buy rejects bad input with a clear message", "[tco][cli]") {
  TempDir dir;
  const std::string base = "--gpu V100 --count 8 --price 149000 --date 2019-07-01 ";
  struct Case {
    std::string args, message;
  };
  const std::vector<Case> cases = {
      {base + "--utilisation 1.5", "command line: field '--utilisation': must be between 0 and 1"},
      {base, "command line: field '--utilisation': is required"},
      {base + "--utilisation 0.6 --horizon 0", "field '--horizon': must be from 1"},
      {"--gpu V100 --count 8 --price=-5 --utilisation 0.6",
       "field '--price': must be positive, got -5 USD"},
      {"--gpu V1OO --count 8 --price 1 --utilisation 0.6", "closest known: V100"},
      {base + "--utilisation 0.6 --pue abc", "--pue"},
      {"'" + dir.file("missing.json") + "'", "no such file"},
  };
  for (const auto& k : cases) {
    const TcoRun r = lease_vs_buy(dir, k.args);
    INFO(k.args << "\n" << r.output);
    CHECK(r.status == 1);
    CHECK_THAT(r.output, Catch::Contains(k.message));
  }
  const std::string bad = dir.write("bad.json", R"({"gpu": "V100", "count": 8, "pue": 1.5})");
  const TcoRun r = lease_vs_buy(dir, "'" + bad + "'");
  CHECK(r.status == 1);
  CHECK_THAT(r.output, Catch::Contains("bad.json:: field 'pue'") ||
                           Catch::Contains("field 'pue': expected an exact decimal"));
}
