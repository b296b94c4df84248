// The sample logs of fixtures/logs replay as their README says; `gpubill replay` and
// `gpubill instances` work end to end; the log parser's canonical form and CSV quoting.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "cli_run.hpp"
#include "gpubill/replay/events.hpp"
#include "json_schema.hpp"
#include "replay_fixture.hpp"
#include "temp_dir.hpp"

using namespace gpubill;
using namespace gpubill::testing;

namespace {

std::string sample(const std::string& name) {
  return std::string(GPUBILL_SOURCE_DIR) + "/fixtures/logs/" + name;
}

using gpubill::testing::CliRun;

// Runs `gpubill ARGS`, stdout captured, stderr merged (ARGS already shell-quoted where needed).
CliRun cli(const std::string& args) {
  return gpubill::testing::run_cli(args);
}

}  // namespace

TEST_CASE("The sample logs replay as documented", "[replay][samples]") {
  ReplayFixture fx;
  fx.import_catalog(data_path("huawei-fake-prices.json"));
  const auto r = replay_logs(fx.db(),
                             {sample("tencent-gn8-payg.jsonl"), sample("tencent-gn8-prepaid.csv"),
                              sample("tencent-gn8-arrears.jsonl"), sample("alibaba-gn5.jsonl"),
                              sample("huawei-p2.jsonl"), sample("aws-p3.jsonl")},
                             until("2019-07-01T00:00:00+08:00"));
  CHECK(r.malformed_skipped == 0);
  // The documented rejects: a destroy before expiry and a start in the recycle bin (prepaid),
  // a start before the top-up (arrears).
  CHECK(r.rejected == 3);
  const auto rej = fx.rejects();
  REQUIRE(rej.size() == 3);
  CHECK(rej[0].event_id == "x1");
  CHECK(rej[1].event_id == "s1");
  CHECK(rej[1].reason.find("recycle bin") != std::string::npos);
  CHECK(rej[2].event_id == "s1");
  CHECK(rej[2].reason.find("arrears") != std::string::npos);
  // Prepaid: 4 orders of 4400 (two creates, one auto-renewal, one renewal).
  CHECK(fx.movements("studio").back().balance_after == "2400");
  CHECK(fx.count("SELECT COUNT(*) FROM charge WHERE account = 'studio' AND kind = 'renewal'") == 1);
  CHECK(fx.count("SELECT COUNT(*) FROM charge WHERE account = 'studio' AND kind = "
                 "'auto_renewal'") == 1);
  // Alibaba's 2-second pay-as-you-go instance: the lifetime minimum.
  CHECK(fx.count("SELECT COUNT(*) FROM charge WHERE instance = 'gn5-s' AND kind = "
                 "'minimum_charge'") == 1);
  // Huawei's priced disk (fake test price).
  CHECK(fx.count("SELECT COUNT(*) FROM charge WHERE instance = 'p2-a' AND component = "
                 "'system_disk'") == 2);
  // Tencent payg: the resize piece, and the premium system disk priced from Tencent's CBS list.
  CHECK(fx.count("SELECT COUNT(*) FROM charge WHERE instance = 'gn8-a' AND instance_type = "
                 "'GN8.3XLARGE112'") >= 1);
  CHECK(fx.count("SELECT COUNT(*) FROM charge WHERE instance = 'gn8-a' AND component = "
                 "'system_disk'") >= 1);
  CHECK(fx.count("SELECT COUNT(*) FROM instance_state WHERE instance = 'gn8-a' AND reason LIKE "
                 "'unpriced: system disk%'") == 0);
}

TEST_CASE("gpubill replay and gpubill instances", "[replay][cli]") {
  TempDir dir;
  const std::string db = dir.file("cli.db");
  auto r = cli("replay " + sample("tencent-gn8-arrears.jsonl") + " --db " + db +
               " --until 2019-03-02T00:00:00+08:00");
  REQUIRE(r.status == 0);
  CHECK(r.output.find("events_read") != std::string::npos);
  CHECK(r.output.find("2019-03-01T16:00:00Z") != std::string::npos);  // the clock
  CHECK(r.output.find("gpubill rejects") != std::string::npos);       // one start was rejected
  r = cli("replay " + sample("tencent-gn8-arrears.jsonl") + " --db " + db + " --format json");
  REQUIRE(r.status == 0);
  CHECK(r.output.find("\"duplicates\": 6") != std::string::npos);
  r = cli("instances --db " + db + " --instance gn8-c --format csv");
  REQUIRE(r.status == 0);
  CHECK(r.output.rfind("account,instance,at,state,reason,event_seq\n", 0) == 0);
  CHECK(r.output.find("arrears_stopped") != std::string::npos);
  r = cli("instances --db " + db + " --current");
  REQUIRE(r.status == 0);
  CHECK(r.output.find("destroyed") != std::string::npos);
  CHECK(r.output.find("running") == std::string::npos);
  const std::string bad = dir.write("bad.jsonl", "{\"id\":1}\n");
  r = cli("replay " + bad + " --db " + db);
  CHECK(r.status == 1);
  CHECK(r.output.find("line 1: field 'time': missing field") != std::string::npos);
}

TEST_CASE("Events have one canonical JSON form", "[replay][events]") {
  const auto e = parse_event_json(
      R"({"type":"create","id":42,"account":"a\"b","time":"2019-03-01T10:30:00+08:00","instance":"i\u00e9","provider":"tencent","region":"r","instance_type":"GN8.LARGE56","mode":"prepaid","months":3,"auto_renew":true,"data_disks":[{"size_gb":10,"kind":"ssd"}]})",
      "x.jsonl", 1);
  CHECK(e.id == "42");
  CHECK(e.account == "a\"b");
  CHECK(e.instance == "i\xC3\xA9");
  CHECK(
      to_json(e) ==
      R"({"id":"42","time":"2019-03-01T02:30:00Z","type":"create","account":"a\"b","instance":"i)"
      "\xC3\xA9"
      R"(","provider":"tencent","region":"r","instance_type":"GN8.LARGE56","mode":"prepaid","months":3,"auto_renew":true,"data_disks":[{"kind":"ssd","size_gb":10}]})");
  // Round trip.
  CHECK(to_json(parse_event_json(to_json(e), "y.jsonl", 1)) == to_json(e));
}

TEST_CASE("CSV logs: quoting, empty cells, disks", "[replay][events]") {
  TempDir dir;
  const auto path = dir.write(
      "log.csv",
      "\xEF\xBB\xBFid,time,type,account,instance,provider,region,instance_type,mode,data_disks,"
      "system_disk_kind,system_disk_gb\r\n"
      "\"c,1\",2019-03-01T10:30:00Z,create,\"acme \"\"labs\"\"\",g,tencent,r,GN8.LARGE56,payg,"
      "ssd:10;hdd:200,cloud_premium,50\r\n"
      "\r\n"
      "d1,2019-03-01T11:30:00Z,destroy,acme,g,,,,,,,\r\n"
      "d2,2019-03-01T11:30:00Z,destroy,acme,g,,,,,,cloud_premium,\r\n");
  EventReader reader(path);
  UsageEvent e;
  REQUIRE(reader.next(e) == EventReader::Status::event);
  CHECK(e.id == "c,1");
  CHECK(e.account == "acme \"labs\"");
  REQUIRE(e.data_disks.size() == 2);
  CHECK(e.data_disks[1] == DiskSpec{"hdd", 200});
  CHECK(e.system_disk == DiskSpec{"cloud_premium", 50});
  REQUIRE(reader.next(e) == EventReader::Status::event);
  CHECK(e.type == EventType::destroy);
  CHECK(reader.line_number() == 4);
  REQUIRE(reader.next(e) == EventReader::Status::malformed);
  CHECK(reader.error().place() == "line 5");
  CHECK(reader.error().field() == "system_disk_gb");
  CHECK(reader.next(e) == EventReader::Status::end);
}

TEST_CASE("Odd ids survive the saved state of a split replay", "[replay][events]") {
  const std::string part1 =
      R"({"id":"c1","time":"2021-03-01T10:00:00+08:00","type":"create","account":"a \"q\" \\ é","instance":"i #\"1\"","provider":"tencent","region":"ap-guangzhou","instance_type":"GN8.LARGE56","mode":"payg"})"
      "\n";
  const std::string part2 =
      R"({"id":"d1","time":"2021-03-01T13:30:00+08:00","type":"destroy","account":"a \"q\" \\ é","instance":"i #\"1\""})"
      "\n";
  ReplayFixture whole, split;
  whole.replay_text(part1 + part2, until("2021-03-01T14:00:00+08:00"));
  split.replay_text(part1, until("2021-03-01T11:30:00+08:00"));
  split.replay_text(part2, until("2021-03-01T14:00:00+08:00"));
  CHECK(split.dump() == whole.dump());
  CHECK(whole.count("SELECT SUM(repeat) FROM charge") == 4);
}

// docs/tutorial.md, command by command: its figures are checked here so the page stays true.
TEST_CASE("The tutorial's GN8 log gives the bill docs/tutorial.md shows",
          "[replay][samples][cli]") {
  TempDir dir;
  const std::string db = " --db " + dir.file("lab.db");
  gpubill::testing::ensure_database(dir.file("lab.db"));
  auto r = cli("replay " + sample("tencent-gn8-tutorial.jsonl") + db +
               " --until 2019-04-15T00:00:00+08:00 --format json");
  REQUIRE(r.status == 0);
  auto doc = nlohmann::json::parse(r.output);
  gpubill::testing::check_schema("replay.schema.json", doc);
  CHECK(doc["applied"] == 4);
  CHECK(doc["charge_rows"] == 4);
  CHECK(doc["settlements"] == 5);

  r = cli("bill --account tutorial --month 2019-03 --format json" + db);
  REQUIRE(r.status == 0);
  doc = nlohmann::json::parse(r.output);
  CHECK(doc["totals"][0]["billed"] == "4455.34");
  CHECK(doc["totals"][0]["exact"] == "4455.33");
  CHECK(doc["totals"][0]["rounding"] == "0.01");
  CHECK(doc["balances"][0]["closing"] == "5544.66");
  CHECK(doc["balances"][0]["reconciles"] == true);
  gpubill::testing::check_schema("bill.schema.json", doc);
  r = cli("instances --format json" + db);
  REQUIRE(r.status == 0);
  gpubill::testing::check_schema("instances.schema.json", nlohmann::json::parse(r.output));
  for (int id = 1; id <= 4; ++id) {
    r = cli("explain --format json " + std::to_string(id) + db);
    REQUIRE(r.status == 0);
    gpubill::testing::check_schema("explain.schema.json", nlohmann::json::parse(r.output));
  }

  // One FOCUS row per settlement hour and per order (1 + 1 + 3 + 1), a row for each of the two
  // rounded partial hours' rounding, and the order amortised over its 31 days' 744 hours.
  r = cli("charges --account tutorial --format focus" + db);
  REQUIRE(r.status == 0);
  CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1 + 6 + 2 + 744);

  // Every line re-derives from its price and policy rows.
  for (int id = 1; id <= 4; ++id) {
    r = cli("explain " + std::to_string(id) + db);
    INFO(r.output);
    CHECK(r.status == 0);
    CHECK(r.output.find("verified") != std::string::npos);
  }

  // Not renewed: the prepaid instance expires at 11:00 local on Apr 1, spends 7 natural days in
  // the recycle bin and is destroyed at 00:00 local on Apr 9.
  r = cli("instances --instance serve --format csv" + db);
  REQUIRE(r.status == 0);
  CHECK(r.output.find("2019-04-01T03:00:00Z,recycle_bin") != std::string::npos);
  CHECK(r.output.find("2019-04-08T16:00:00Z,destroyed") != std::string::npos);
}
