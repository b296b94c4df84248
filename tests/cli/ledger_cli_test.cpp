// Smoke tests of `gpubill bill | charges | explain | rejects` on a temporary database.
#include <catch2/catch.hpp>

#include <cstdio>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_run.hpp"
#include "gpubill/ledger/focus.hpp"
#include "json_schema.hpp"
#include "ledger_fixture.hpp"
#include "temp_dir.hpp"

using gpubill::testing::at;
using gpubill::testing::ChargeSpec;
using gpubill::testing::check_schema;
using gpubill::testing::LedgerFixture;
using gpubill::testing::TempDir;

namespace {

using Run = gpubill::testing::CliRun;

// Runs `gpubill ARGS`, stdout captured, stderr merged (ARGS already shell-quoted where needed).
Run cli(const std::string& args) {
  return gpubill::testing::run_cli(args);
}

// A database file with a run across the month end, an order, movements, events and a reject.
struct CliDb {
  TempDir dir;
  std::string path = dir.file("bills.db");
  std::int64_t run_id = 0, half_id = 0;
  CliDb() {
    LedgerFixture f(path);
    const auto e1 = f.insert_event("acme", "c1", at("2018-01-31T20:00:00+08:00"), "create", "i-1",
                                   R"({"id":"c1"})", "jan.jsonl", 2);
    auto run = f.payg(at("2018-01-31T20:00:00+08:00"), 3600, 10);
    run.event_seqs = std::to_string(e1);
    run_id = f.insert_charge(run);
    half_id = f.insert_charge(f.payg(at("2018-02-01T06:00:00+08:00"), 1800));
    f.insert_movement("acme", at("2018-01-05T10:00:00+08:00"), "CNY", "1000", "1000", "topup");
    f.insert_movement("acme", at("2018-02-01T06:00:00+08:00"), "CNY", "-150.9", "849.1", "charge",
                      run_id);
    f.insert_reject("rule", "jan.jsonl", 9, "acme", "d1", "",
                    "destroying a prepaid GPU instance before expiry is not allowed", "{}");
  }
};

}  // namespace

TEST_CASE("cli: bill prints the month's statement in the account's time zone", "[cli][ledger]") {
  CliDb db;
  const auto jan = cli("bill --db " + db.path + " --account acme --month 2018-01");
  INFO(jan.output);
  REQUIRE(jan.status == 0);
  CHECK(jan.output.find("Asia/Shanghai") != std::string::npos);
  CHECK(jan.output.find("== charges by instance and component ==") != std::string::npos);
  CHECK(jan.output.find("60.36") != std::string::npos);  // 4 hours in January
  CHECK(jan.output.find("== balances ==") != std::string::npos);

  const auto feb = cli("bill --db " + db.path + " --account acme --month 2018-02 --format json");
  INFO(feb.output);
  REQUIRE(feb.status == 0);
  const auto j = nlohmann::json::parse(feb.output);
  CHECK(j["statement"]["time_zone"] == "Asia/Shanghai");
  REQUIRE(j["charges_by_instance_and_component"].size() == 1);
  CHECK(j["charges_by_instance_and_component"][0]["settlements"] == 7);   // 6 h + half hour
  CHECK(j["charges_by_instance_and_component"][0]["billed"] == "98.09");  // 90.54 + 7.55
  CHECK(j["balances"][0]["opening"] == "1000");
  CHECK(j["balances"][0]["closing"] == "849.1");
  CHECK(j["balances"][0]["reconciles"] == true);
  check_schema("bill.schema.json", j);

  const auto csv = cli("bill --db " + db.path + " --account acme --month 2018-02 --format csv");
  REQUIRE(csv.status == 0);
  // Every section of the bill, one table with a `section` column (issue 30 item 8).
  CHECK(csv.output.rfind("section,field,value,", 0) == 0);
  CHECK_THAT(csv.output, Catch::Contains("instance,component,provider,instance_type,settlements,"
                                         "exact,rounding,billed,currency"));
  for (const char* section : {"\nstatement,", "\ncharges_by_instance_and_component,",
                              "\ncharges_by_kind,", "\ntotals,", "\nbalances,"}) {
    CHECK_THAT(csv.output, Catch::Contains(section));
  }

  const auto utc = cli("bill --db " + db.path + " --account acme --month 2018-01 --zone UTC");
  REQUIRE(utc.status == 0);
  CHECK(utc.output.find("150.9") != std::string::npos);  // all 10 hours are January's in UTC

  const auto bad = cli("bill --db " + db.path + " --account acme --month 2018-13");
  CHECK(bad.status == 1);
  CHECK(bad.output.find("is not a month") != std::string::npos);
}

TEST_CASE("cli: charges lists runs, hourly lines, and the FOCUS export", "[cli][ledger]") {
  CliDb db;
  const auto table = cli("charges --db " + db.path + " --account acme");
  INFO(table.output);
  REQUIRE(table.status == 0);
  CHECK(table.output.find("2018-01-31T12:00:00Z") != std::string::npos);

  const auto json = cli("charges --db " + db.path + " --hourly --format json");
  REQUIRE(json.status == 0);
  const auto doc = nlohmann::json::parse(json.output);
  check_schema("charges.schema.json", doc);
  const auto& j = doc["rows"];
  REQUIRE(j.size() == 11);
  CHECK(j[9]["run_index"] == 9);
  CHECK(j[9]["total_billed"] == "15.09");
  CHECK(j[9]["currency"] == "CNY");
  CHECK(j[10]["billed_amount"] == "7.55");
  check_schema("charges.schema.json",
               nlohmann::json::parse(cli("charges --db " + db.path + " --format json").output));

  const auto cut = cli("charges --db " + db.path + " --from 2018-01-31T16:00:00Z --format csv");
  REQUIRE(cut.status == 0);
  std::istringstream lines(cut.output);
  std::string header, first;
  std::getline(lines, header);
  std::getline(lines, first);
  CHECK(header.rfind("id,account,instance,", 0) == 0);
  CHECK(first.find(",2018-01-31T16:00:00Z,2018-01-31T22:00:00Z,6,4,") != std::string::npos);

  const auto focus = cli("charges --db " + db.path + " --format focus");
  REQUIRE(focus.status == 0);
  std::istringstream rows(focus.output);
  std::string focus_header, row;
  std::getline(rows, focus_header);
  std::string expected;
  for (const auto& c : gpubill::focus_columns()) expected += (expected.empty() ? "" : ",") + c;
  CHECK(focus_header == expected);
  int n = 0;
  while (std::getline(rows, row)) ++n;
  CHECK(n == 12);  // the run's 10 hours, the half hour and its rounding row
}

TEST_CASE("cli: explain justifies a line; rejects lists the rejected events", "[cli][ledger]") {
  CliDb db;
  const auto half = cli("explain --db " + db.path + " " + std::to_string(db.half_id));
  INFO(half.output);
  REQUIRE(half.status == 0);
  CHECK(half.output.find("15.09 CNY/h × 1800 s / 3600 = 7.545 → half_up 2 → 7.55, rounding "
                         "+0.005") != std::string::npos);
  CHECK(half.output.find("== price row ==") != std::string::npos);
  CHECK(half.output.find("== policy row ==") != std::string::npos);
  CHECK(half.output.find("verified") != std::string::npos);

  const auto run =
      cli("explain --db " + db.path + " " + std::to_string(db.run_id) + " --format json");
  REQUIRE(run.status == 0);
  const auto j = nlohmann::json::parse(run.output);
  CHECK(j["events"][0]["source"] == "jan.jsonl:2");
  CHECK(j["check"]["consistent"] == true);
  check_schema("explain.schema.json", j);

  const auto missing = cli("explain --db " + db.path + " 999");
  CHECK(missing.status == 1);
  CHECK(missing.output.find("no charge with id 999") != std::string::npos);

  const auto rejects = cli("rejects --db " + db.path);
  INFO(rejects.output);
  REQUIRE(rejects.status == 0);
  CHECK(rejects.output.find("jan.jsonl:9") != std::string::npos);
  CHECK(rejects.output.find("before expiry") != std::string::npos);
  const auto none = cli("rejects --db " + db.path + " --kind malformed --format json");
  REQUIRE(none.status == 0);
  CHECK(nlohmann::json::parse(none.output)["rows"].empty());
  const auto all = cli("rejects --db " + db.path + " --format json");
  REQUIRE(all.status == 0);
  check_schema("rejects.schema.json", nlohmann::json::parse(all.output));
}

TEST_CASE("cli: a replayed Tencent GN8 log gives a statement, FOCUS rows and explained lines",
          "[cli][ledger][replay]") {
  TempDir dir;
  const std::string db = dir.file("e2e.db");
  const std::string log = dir.write(
      "gn8.jsonl",
      R"({"id":"t1","time":"2019-01-01T09:00:00+08:00","type":"topup","account":"acme","amount":"1000","currency":"CNY"}
{"id":"c1","time":"2019-01-31T20:30:00+08:00","type":"create","account":"acme","instance":"gn8-a","provider":"tencent","region":"ap-guangzhou","instance_type":"GN8.LARGE56","mode":"payg"}
{"id":"d1","time":"2019-02-01T07:00:00+08:00","type":"destroy","account":"acme","instance":"gn8-a"}
)");
  REQUIRE(cli("replay --db " + db + " " + log).status == 0);
  const auto jan = cli("bill --db " + db + " --account acme --month 2019-01 --format json");
  INFO(jan.output);
  REQUIRE(jan.status == 0);
  const auto j = nlohmann::json::parse(jan.output);
  CHECK(j["statement"]["time_zone"] == "Asia/Shanghai");
  CHECK(j["totals"][0]["billed"] == "52.82");  // 7.55 + 3 × 15.09

  const auto charges = cli("charges --db " + db + " --format json");
  REQUIRE(charges.status == 0);
  const auto lines = nlohmann::json::parse(charges.output)["rows"];
  REQUIRE_FALSE(lines.empty());
  for (const auto& line : lines) {
    const auto x = cli("explain --db " + db + " " + std::to_string(line["id"].get<int>()));
    INFO(x.output);
    CHECK(x.status == 0);
    CHECK(x.output.find("verified") != std::string::npos);
  }
  const auto focus = cli("charges --db " + db + " --format focus");
  REQUIRE(focus.status == 0);
  CHECK(focus.output.find(",Tencent Cloud,") != std::string::npos);
}
