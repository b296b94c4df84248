// Replay semantics: malformed input, --skip-invalid, duplicates, time order, rule rejects,
// CSV = JSON Lines, runs extended by a later replay, idempotence.
#include <catch2/catch.hpp>

#include "gpubill/base/errors.hpp"
#include "replay_fixture.hpp"

using namespace gpubill;
using namespace gpubill::testing;

namespace {

const char* const kGn8Log =
    R"({"id":"t1","time":"2019-03-01T09:00:00+08:00","type":"topup","account":"acme","amount":"1000.00","currency":"CNY"}
{"id":"c1","time":"2019-03-01T10:30:00+08:00","type":"create","account":"acme","instance":"gn8-a","provider":"tencent","region":"ap-guangzhou","instance_type":"GN8.LARGE56","mode":"payg"}
{"id":"s1","time":"2019-03-01T18:00:00+08:00","type":"stop","account":"acme","instance":"gn8-a"}
{"id":"d1","time":"2019-03-02T09:00:00+08:00","type":"destroy","account":"acme","instance":"gn8-a"}
)";

}  // namespace

TEST_CASE("A malformed line stops the replay and nothing is applied", "[replay][engine]") {
  ReplayFixture fx;
  const auto good = fx.write_log("good.jsonl", kGn8Log);
  const auto bad = fx.write_log(
      "bad.jsonl",
      std::string(kGn8Log) +
          R"({"id":"x","time":"2019-03-32T00:00:00Z","type":"topup","account":"acme","amount":"1","currency":"CNY"}
)");
  try {
    replay_logs(fx.db(), {good, bad});
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    CHECK(e.file() == bad);
    CHECK(e.place() == "line 5");
    CHECK(e.field() == "time");
  }
  CHECK(fx.count("SELECT COUNT(*) FROM event") == 0);
  CHECK(fx.count("SELECT COUNT(*) FROM charge") == 0);
  CHECK(fx.count("SELECT COUNT(*) FROM balance_movement") == 0);
  CHECK(fx.count("SELECT COUNT(*) FROM account_state") == 0);
  CHECK(fx.count("SELECT COUNT(*) FROM replay_clock") == 0);
}

TEST_CASE("Malformed lines name the field and the reason", "[replay][engine]") {
  ReplayFixture fx;
  auto error_of = [&](const std::string& line) -> std::string {
    try {
      fx.replay_text(line + "\n");
    } catch (const InputError& e) {
      return e.field() + ": " + e.reason();
    }
    return "no error";
  };
  CHECK(
      error_of(
          R"({"id":"1","time":"2019-03-01T09:00:00Z","type":"topup","account":"a","amount":100,"currency":"CNY"})")
          .rfind("amount: amounts are exact decimal strings", 0) == 0);
  CHECK(
      error_of(
          R"({"id":"1","time":"2019-03-01T09:00:00Z","type":"topup","account":"a","amount":"1e3","currency":"CNY"})")
          .rfind("amount: '1e3' is not an exact decimal amount", 0) == 0);
  CHECK(
      error_of(
          R"({"id":"1","time":"2019-03-01T09:00:00","type":"topup","account":"a","amount":"1","currency":"CNY"})")
          .rfind("time: ", 0) == 0);
  CHECK(
      error_of(
          R"({"id":"1","time":"2019-03-01T09:00:00Z","type":"topup","account":"a","amount":"1"})") ==
      "currency: missing field (required for a topup event)");
  CHECK(
      error_of(
          R"({"id":"1","time":"2019-03-01T09:00:00Z","type":"create","account":"a","instance":"i","provider":"tencent","region":"r","instance_type":"GN8.LARGE56","mode":"prepaid"})") ==
      "months: missing field (required for a create event)");
  CHECK(
      error_of(
          R"({"id":"1","time":"2019-03-01T09:00:00Z","type":"start","account":"a","instance":"i","months":3})") ==
      "months: does not apply to a start event");
  CHECK(
      error_of(
          R"({"id":"1","time":"2019-03-01T09:00:00Z","type":"start","account":"a","instance":"i","colour":"red"})") ==
      "colour: unknown field");
  CHECK(error_of(R"({"id":"1","time":"2019-03-01T09:00:00Z","type":"launch","account":"a"})")
            .rfind("type: unknown event type 'launch'", 0) == 0);
  CHECK(
      error_of(
          R"({"id":"1","time":"2019-03-01T09:00:00Z","type":"start","account":"a","instance":"i")")
          .rfind(": not valid JSON", 0) == 0);
  CHECK(
      error_of(
          R"({"id":"1","time":"2019-03-01T09:00:00Z","type":"topup","account":"a","amount":"1","currency":"XYZ"})")
          .rfind("currency: unknown currency 'XYZ'", 0) == 0);
  CHECK(
      error_of(
          R"({"id":"1","time":"2019-03-01T09:00:00Z","type":"create","account":"a","instance":"i","provider":"p","region":"r","instance_type":"t","mode":"payg","system_disk":{"kind":"ssd"}})") ==
      "system_disk.size_gb: missing field");
}

TEST_CASE("skip_invalid quarantines malformed lines and applies the rest", "[replay][engine]") {
  ReplayFixture fx;
  const std::string log =
      std::string(kGn8Log) + "this is not json\n" +
      R"({"id":"x","time":"2019-03-02T10:00:00+08:00","type":"topup","account":"acme","amount":"-5","currency":"CNY"})" +
      "\n";
  const auto r = fx.replay_text(log, skipping_invalid());
  CHECK(r.events_read == 6);
  CHECK(r.applied == 4);
  CHECK(r.malformed_skipped == 2);
  const auto rej = fx.rejects();
  REQUIRE(rej.size() == 2);
  CHECK(rej[0].kind == "malformed");
  CHECK(rej[0].line == 5);
  CHECK(rej[1].line == 6);
  CHECK(rej[1].field == "amount");
  CHECK(rej[1].reason == "a top-up amount must be positive");
  CHECK(fx.count("SELECT COUNT(*) FROM reject WHERE raw = 'this is not json'") == 1);
  // Replaying the same file again quarantines nothing twice and applies nothing twice.
  const std::string before = fx.dump();
  const auto again = fx.replay_text(log, skipping_invalid());
  CHECK(again.duplicates == 4);
  CHECK(again.applied == 0);
  CHECK(fx.dump() == before);
}

TEST_CASE("Duplicate ids are counted, not applied; a conflicting reuse is rejected",
          "[replay][engine]") {
  ReplayFixture fx;
  const auto r = fx.replay_text(
      R"({"id":"t1","time":"2019-03-01T09:00:00+08:00","type":"topup","account":"acme","amount":"100","currency":"CNY"}
{"id":"t1","time":"2019-03-01T09:00:00+08:00","type":"topup","account":"acme","amount":"100","currency":"CNY"}
{"id":"t1","time":"2019-03-01T09:30:00+08:00","type":"topup","account":"acme","amount":"999","currency":"CNY"}
{"id":"t1","time":"2019-03-01T09:30:00+08:00","type":"topup","account":"other","amount":"5","currency":"CNY"}
)");
  CHECK(r.applied == 2);  // acme's t1 once, other's t1 (ids are per account)
  CHECK(r.duplicates == 2);
  const auto m = fx.movements("acme");
  REQUIRE(m.size() == 1);
  CHECK(m[0].balance_after == "100");
  const auto rej = fx.rejects();
  REQUIRE(rej.size() == 1);
  CHECK(rej[0].kind == "duplicate");
  CHECK(rej[0].line == 3);
  CHECK(rej[0].reason.find("already used for a different event") != std::string::npos);
}

TEST_CASE("Replaying a log twice changes nothing", "[replay][engine]") {
  ReplayFixture fx;
  fx.replay_text(kGn8Log);
  const std::string once = fx.dump();
  const auto r = fx.replay_text(kGn8Log);
  CHECK(r.duplicates == 4);
  CHECK(r.applied == 0);
  CHECK(r.charge_rows == 0);
  CHECK(fx.dump() == once);
}

TEST_CASE("An event earlier than the account's settled hours is rejected", "[replay][engine]") {
  ReplayFixture fx;
  fx.replay_text(
      R"({"id":"c1","time":"2019-03-01T10:00:00+08:00","type":"create","account":"acme","instance":"g","provider":"tencent","region":"ap-guangzhou","instance_type":"GN8.LARGE56","mode":"payg"}
{"id":"s1","time":"2019-03-01T12:00:00+08:00","type":"stop","account":"acme","instance":"g"}
{"id":"x1","time":"2019-03-01T11:00:00+08:00","type":"start","account":"acme","instance":"g"}
)");
  const auto rej = fx.rejects();
  REQUIRE(rej.size() == 1);
  CHECK(rej[0].event_id == "x1");
  CHECK(rej[0].reason ==
        "earlier than hours already settled for account acme (clock 2019-03-01T04:00:00Z); usage "
        "logs must be in time order");
  CHECK(fx.count("SELECT COUNT(*) FROM event WHERE id = 'x1' AND status = 'rejected'") == 1);
  // A later replay with an event before the replay clock is rejected the same way.
  const auto r = fx.replay_text(
      R"({"id":"y1","time":"2019-03-01T11:30:00+08:00","type":"start","account":"acme","instance":"g"})"
      "\n");
  CHECK(r.rejected == 1);
}

TEST_CASE("Rule rejects: unknown type, no price at that time, unknown instance, already running",
          "[replay][engine]") {
  ReplayFixture fx;
  const auto r = fx.replay_text(
      R"({"id":"1","time":"2018-06-01T10:00:00+08:00","type":"create","account":"a","instance":"x","provider":"tencent","region":"ap-guangzhou","instance_type":"GN99.HUGE","mode":"payg"}
{"id":"2","time":"2018-06-01T10:00:00+08:00","type":"create","account":"a","instance":"x","provider":"tencent","region":"ap-guangzhou","instance_type":"GN6.7XLARGE48","mode":"payg"}
{"id":"3","time":"2018-06-01T10:00:00+08:00","type":"stop","account":"a","instance":"nope"}
{"id":"4","time":"2018-06-01T10:00:00+08:00","type":"create","account":"a","instance":"y","provider":"tencent","region":"ap-guangzhou","instance_type":"GN8.LARGE56","mode":"payg"}
{"id":"5","time":"2018-06-01T11:00:00+08:00","type":"start","account":"a","instance":"y"}
{"id":"6","time":"2018-06-01T11:00:00+08:00","type":"create","account":"a","instance":"z","provider":"nocloud","region":"r","instance_type":"t","mode":"payg"}
)");
  CHECK(r.rejected == 5);
  CHECK(r.applied == 1);
  const auto rej = fx.rejects();
  REQUIRE(rej.size() == 5);
  CHECK(rej[0].reason == "unknown instance type 'GN99.HUGE' for provider 'tencent'");
  CHECK(rej[1].reason == "no payg price for GN6.7XLARGE48 in ap-guangzhou at 2018-06-01T02:00:00Z");
  CHECK(rej[2].reason.rfind("unknown instance 'nope'", 0) == 0);
  CHECK(rej[3].reason == "instance 'y' is already running");
  CHECK(rej[4].reason == "unknown provider 'nocloud'");
  for (const auto& x : rej) CHECK(x.kind == "rule");
}

TEST_CASE("CSV and JSON Lines logs give the same bills", "[replay][engine]") {
  ReplayFixture json_fx, csv_fx;
  json_fx.replay_text(
      R"({"id":"t1","time":"2021-03-01T09:00:00+08:00","type":"topup","account":"acme","amount":"100000","currency":"CNY"}
{"id":"c1","time":"2021-03-01T10:30:00+08:00","type":"create","account":"acme","instance":"g","provider":"tencent","region":"ap-guangzhou","instance_type":"GN8.LARGE56","mode":"payg","system_disk":{"kind":"cloud_premium","size_gb":50},"data_disks":[{"kind":"cloud_ssd","size_gb":100},{"kind":"cloud_ssd","size_gb":200}]}
{"id":"c2","time":"2021-03-01T10:30:00+08:00","type":"create","account":"acme","instance":"p","provider":"tencent","region":"ap-guangzhou","instance_type":"GN8.LARGE56","mode":"prepaid","months":6,"auto_renew":true}
{"id":"s1","time":"2021-03-01T12:10:00+08:00","type":"stop","account":"acme","instance":"g"}
{"id":"r1","time":"2021-03-01T13:00:00+08:00","type":"set_auto_renew","account":"acme","instance":"p","auto_renew":false}
{"id":"d1","time":"2021-03-01T14:00:00+08:00","type":"destroy","account":"acme","instance":"g"}
)");
  csv_fx.replay_text(
      "id,time,type,account,instance,amount,currency,provider,region,instance_type,mode,months,"
      "auto_renew,system_disk_kind,system_disk_gb,data_disks\n"
      "t1,2021-03-01T09:00:00+08:00,topup,acme,,100000,CNY,,,,,,,,,\n"
      "c1,2021-03-01T10:30:00+08:00,create,acme,g,,,tencent,ap-guangzhou,GN8.LARGE56,payg,,,"
      "cloud_premium,50,cloud_ssd:100;cloud_ssd:200\n"
      "c2,2021-03-01T10:30:00+08:00,create,acme,p,,,tencent,ap-guangzhou,GN8.LARGE56,prepaid,6,"
      "true,,,\n"
      "s1,2021-03-01T12:10:00+08:00,stop,acme,g,,,,,,,,,,,\n"
      "\"r1\",2021-03-01T13:00:00+08:00,set_auto_renew,acme,p,,,,,,,,false,,,\n"
      "d1,2021-03-01T14:00:00+08:00,destroy,acme,g,,,,,,,,,,,\n",
      {}, "log.csv");
  CHECK(csv_fx.dump() == json_fx.dump());
  // 6 months: 4400 × 6 × 0.88 = 23232.00. The disks are priced from Tencent's CBS list (2021:
  // premium 0.0009, SSD 0.0025 CNY per GB-hour), so none is left unpriced.
  CHECK(json_fx.charges("instance = 'p'").at(0).billed == "23232.00");
  CHECK(json_fx.count("SELECT COUNT(*) FROM instance_state WHERE reason LIKE 'unpriced:%'") == 0);
  CHECK(json_fx.count("SELECT COUNT(*) FROM charge WHERE instance = 'g' AND component <> "
                      "'compute'") >= 1);
}

TEST_CASE("CSV header errors stop even with --skip-invalid", "[replay][engine]") {
  ReplayFixture fx;
  CHECK_THROWS_AS(fx.replay_text("id,time,kind,account\n1,2019-01-01T00:00:00Z,topup,a\n",
                                 skipping_invalid(), "log.csv"),
                  InputError);
  CHECK_THROWS_AS(fx.replay_text("id,time,account\n", {}, "log.csv"), InputError);
  CHECK_THROWS_AS(fx.replay_text("{}", {}, "log.txt"), InputError);
}

TEST_CASE("A run still open at the end of a replay is extended by the next", "[replay][engine]") {
  ReplayFixture fx;
  const std::string part1 =
      R"({"id":"t1","time":"2019-03-01T09:00:00+08:00","type":"topup","account":"acme","amount":"1000.00","currency":"CNY"}
{"id":"c1","time":"2019-03-01T10:00:00+08:00","type":"create","account":"acme","instance":"g","provider":"tencent","region":"ap-guangzhou","instance_type":"GN8.LARGE56","mode":"payg"}
{"id":"t2","time":"2019-03-01T13:20:00+08:00","type":"topup","account":"other","amount":"1","currency":"CNY"}
)";
  const std::string part2 =
      R"({"id":"d1","time":"2019-03-01T16:00:00+08:00","type":"destroy","account":"acme","instance":"g"}
)";
  const auto r1 = fx.replay_text(part1, {}, "part1.jsonl");
  CHECK(r1.clock == parse_instant("2019-03-01T13:20:00+08:00"));
  auto c = fx.charges();
  REQUIRE(c.size() == 1);
  const std::int64_t id = c[0].id;
  CHECK(c[0].repeat == 3);  // 10:00–13:00 settled; 13:00–13:20 still open
  CHECK(fx.movements("acme").back().balance_after == "954.73");
  fx.replay_text(part2, {}, "part2.jsonl");
  c = fx.charges();
  REQUIRE(c.size() == 1);
  CHECK(c[0].id == id);  // the same row, extended
  CHECK_CHARGE(c[0], "settlement", "2019-03-01T10:00:00+08:00", "2019-03-01T16:00:00+08:00", 6,
               "3600", "15.09", "15.09", "0", "90.54");
  const auto m = fx.movements("acme");
  REQUIRE(m.size() == 2);
  CHECK(m[1].at == secs("2019-03-01T16:00:00+08:00"));
  CHECK(m[1].amount == "-90.54");
  CHECK(m[1].balance_after == "909.46");

  ReplayFixture whole;
  whole.replay_text(part1 + part2);
  CHECK(whole.dump() == fx.dump());
}

TEST_CASE("until settles every account, also those of earlier replays", "[replay][engine]") {
  ReplayFixture fx;
  fx.replay_text(
      R"({"id":"c1","time":"2019-03-01T10:00:00+08:00","type":"create","account":"acme","instance":"g","provider":"tencent","region":"ap-guangzhou","instance_type":"GN8.LARGE56","mode":"payg"}
)");
  CHECK(fx.count("SELECT COUNT(*) FROM charge") == 0);
  const auto r = fx.replay_text("", until("2019-03-02T00:00:00+08:00"));
  CHECK(r.settlements == 14);  // 10:00 → 24:00
  const auto c = fx.charges();
  REQUIRE(c.size() == 1);
  CHECK(c[0].repeat == 14);
  CHECK(fx.count("SELECT clock FROM replay_clock") == secs("2019-03-02T00:00:00+08:00"));
}
