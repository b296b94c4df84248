// Rules no bundled provider exercises (returns allowed, disks and bandwidth priced, a price
// change mid-life, a daylight-saving zone), on a fictional provider from
// tests/data/testcloud.json:
//   testcloud (Asia/Shanghai, CNY): T.SMALL payg 10.00/h until 2020-06-01 12:15 +08:00, then
//     12.00/h; prepaid 3000/month; T.LARGE payg 20.00/h, prepaid 6000/month; 3–5 month term
//     discount 0.90; ssd disk 0.0005/GB-hour; fixed bandwidth 0.06/Mbps-hour. Policy: half-up
//     to 0.01, stopped compute not charged, prepaid returns allowed (5-day full refund), recycle
//     bin 3 days, auto-renewal 1 day before expiry at 09:00.
//   testcloud-us (America/Los_Angeles, USD): U.GPU payg 1.00/h.
#include <catch2/catch.hpp>

#include "replay_fixture.hpp"

using namespace gpubill;
using namespace gpubill::testing;

namespace {
struct TestCloud : ReplayFixture {
  TestCloud() { import_catalog(data_path("testcloud.json")); }
};
}  // namespace

TEST_CASE("Disks and bandwidth are lines of their own and keep charging while stopped",
          "[replay][rules]") {
  TestCloud fx;
  // Compute 10.00/h runs 10:00–12:00 (stopped compute is not charged here). The 100 GB ssd
  // system disk (100 × 3600 = 360000 GB-s per hour, 0.0005 × 360000 / 3600 = 0.05) and 10 Mbps
  // of bandwidth (36000 Mbps-s, 0.06 × 36000 / 3600 = 0.60) run until the destroy at 14:00.
  fx.replay_text(R"(
{"id":"c1","time":"2020-03-01T10:00:00+08:00","type":"create","account":"acme","instance":"t","provider":"testcloud","region":"test-1","instance_type":"T.SMALL","mode":"payg","system_disk":{"kind":"ssd","size_gb":100},"bandwidth_mbps":10}
{"id":"s1","time":"2020-03-01T12:00:00+08:00","type":"stop","account":"acme","instance":"t"}
{"id":"d1","time":"2020-03-01T14:00:00+08:00","type":"destroy","account":"acme","instance":"t"}
)");
  const auto c = fx.charges();
  REQUIRE(c.size() == 3);
  CHECK(c[0].component == "bandwidth");
  CHECK_CHARGE(c[0], "settlement", "2020-03-01T10:00:00+08:00", "2020-03-01T14:00:00+08:00", 4,
               "36000", "0.6", "0.60", "0", "2.40");
  CHECK(c[0].unit == "mbps_second");
  CHECK(c[0].price_unit == "mbps_hour");
  CHECK(c[1].component == "compute");
  CHECK_CHARGE(c[1], "settlement", "2020-03-01T10:00:00+08:00", "2020-03-01T12:00:00+08:00", 2,
               "3600", "10", "10.00", "0", "20.00");
  CHECK(c[2].component == "system_disk");
  CHECK_CHARGE(c[2], "settlement", "2020-03-01T10:00:00+08:00", "2020-03-01T14:00:00+08:00", 4,
               "360000", "0.05", "0.05", "0", "0.20");
  CHECK(fx.states("t")[1].reason == "stop: disks and bandwidth keep charging");
}

TEST_CASE("A price change mid-life applies from the first hour starting after it",
          "[replay][rules]") {
  TestCloud fx;
  // 10.00 until 12:15, 12.00 from then. Each hour is priced at its start: 10:00, 11:00 and 12:00
  // at 10.00 (one line), 13:00 and 14:00 at 12.00 (another line, the other price row).
  fx.replay_text(R"(
{"id":"c1","time":"2020-06-01T10:00:00+08:00","type":"create","account":"acme","instance":"t","provider":"testcloud","region":"test-1","instance_type":"T.SMALL","mode":"payg"}
{"id":"d1","time":"2020-06-01T15:00:00+08:00","type":"destroy","account":"acme","instance":"t"}
)");
  const auto c = fx.charges();
  REQUIRE(c.size() == 2);
  CHECK_CHARGE(c[0], "settlement", "2020-06-01T10:00:00+08:00", "2020-06-01T13:00:00+08:00", 3,
               "3600", "10", "10.00", "0", "30.00");
  CHECK_CHARGE(c[1], "settlement", "2020-06-01T13:00:00+08:00", "2020-06-01T15:00:00+08:00", 2,
               "3600", "12", "12.00", "0", "24.00");
  CHECK(c[0].price_id == fx.price_id("testcloud", "T.SMALL", "payg", "2020-01-01"));
  CHECK(c[1].price_id == fx.price_id("testcloud", "T.SMALL", "payg", "2020-06-01T12:15:00+08:00"));
}

TEST_CASE("Prepaid returns where allowed: 5-day full refund, else used months and hours",
          "[replay][rules]") {
  TestCloud fx;
  // a: 1 month (3000) returned after 3 days: everything paid comes back.
  // b: 3 months with the 3–5 month discount: 3000 × 3 × 0.90 = 8100.00. Returned Apr 15 10:00:
  //    one whole month used (Mar 1 → Apr 1) at 3000 × 0.90 = 2700, plus Apr 1 → Apr 15 =
  //    1209600 s at the payg price 10.00/h = 3360: used 6060.00, refund 8100 − 6060 = 2040.00.
  // Balance: 20000 − 3000 + 3000 − 8100 + 2040 = 13940.
  fx.replay_text(R"(
{"id":"t1","time":"2020-03-01T09:00:00+08:00","type":"topup","account":"acme","amount":"20000","currency":"CNY"}
{"id":"c1","time":"2020-03-01T10:00:00+08:00","type":"create","account":"acme","instance":"a","provider":"testcloud","region":"test-1","instance_type":"T.SMALL","mode":"prepaid","months":1}
{"id":"c2","time":"2020-03-01T10:00:00+08:00","type":"create","account":"acme","instance":"b","provider":"testcloud","region":"test-1","instance_type":"T.SMALL","mode":"prepaid","months":3}
{"id":"d1","time":"2020-03-04T10:00:00+08:00","type":"destroy","account":"acme","instance":"a"}
{"id":"d2","time":"2020-04-15T10:00:00+08:00","type":"destroy","account":"acme","instance":"b"}
)");
  auto a = fx.charges("instance = 'a'");
  REQUIRE(a.size() == 2);
  CHECK_CHARGE(a[1], "refund", "2020-03-04T10:00:00+08:00", "2020-04-01T10:00:00+08:00", 1, "1",
               "-3000", "-3000.00", "0", "-3000.00");
  CHECK(a[1].note.rfind("no-reason return: full refund within 5 days", 0) == 0);
  auto b = fx.charges("instance = 'b'");
  REQUIRE(b.size() == 2);
  CHECK_CHARGE(b[0], "prepaid_order", "2020-03-01T10:00:00+08:00", "2020-06-01T10:00:00+08:00", 1,
               "3", "8100", "8100.00", "0", "8100.00");
  CHECK_CHARGE(b[1], "refund", "2020-04-15T10:00:00+08:00", "2020-06-01T10:00:00+08:00", 1, "1",
               "-2040", "-2040.00", "0", "-2040.00");
  CHECK(b[1].note.find("used 6060 CNY") != std::string::npos);
  CHECK(b[1].price_id == fx.price_id("testcloud", "T.SMALL", "payg", "2020-01-01"));
  const auto m = fx.movements("acme");
  REQUIRE(m.size() == 5);
  CHECK(m[3].kind == "refund");
  CHECK(m[3].amount == "3000");
  CHECK(m.back().balance_after == "13940");
  CHECK(fx.states("b").back().state == "destroyed");
}

TEST_CASE("Prepaid resize: the upgrade fee for the remaining days, a downgrade costs nothing",
          "[replay][rules]") {
  TestCloud fx;
  // 3 months of T.SMALL from Mar 1 10:00 (8100.00), expiry Jun 1 10:00. Upgrade to T.LARGE on
  // Apr 1 10:00: 61 days = 5270400 s remain; whole months remaining = 2 (no discount for 2
  // months). Fee = (6000 − 3000) × 5270400 × 12 / (365 × 86400) = 3000 × 2.005479452055
  // = 6016.438356165 → 6016.44. Downgrade back on Apr 10: a 0 line with a note.
  fx.replay_text(R"(
{"id":"t1","time":"2020-03-01T09:00:00+08:00","type":"topup","account":"acme","amount":"20000","currency":"CNY"}
{"id":"c1","time":"2020-03-01T10:00:00+08:00","type":"create","account":"acme","instance":"p","provider":"testcloud","region":"test-1","instance_type":"T.SMALL","mode":"prepaid","months":3}
{"id":"r1","time":"2020-04-01T10:00:00+08:00","type":"resize","account":"acme","instance":"p","instance_type":"T.LARGE"}
{"id":"r2","time":"2020-04-10T10:00:00+08:00","type":"resize","account":"acme","instance":"p","instance_type":"T.SMALL"}
)");
  const auto c = fx.charges();
  REQUIRE(c.size() == 3);
  CHECK_CHARGE(c[1], "upgrade", "2020-04-01T10:00:00+08:00", "2020-06-01T10:00:00+08:00", 1,
               "5270400", "6016.438356165", "6016.44", "0.001643835", "6016.44");
  CHECK(c[1].unit_price == "3000");
  CHECK(c[1].instance_type == "T.LARGE");
  CHECK_CHARGE(c[2], "upgrade", "2020-04-10T10:00:00+08:00", "2020-06-01T10:00:00+08:00", 1,
               "4492800", "0", "0.00", "0", "0.00");
  CHECK(c[2].note.rfind("downgrade T.LARGE → T.SMALL: no fee and no refund", 0) == 0);
  CHECK(fx.movements("acme").back().balance_after == "5883.56");  // 20000 − 8100 − 6016.44
}

TEST_CASE("Auto-renewal N days before expiry at a local time, from a policy row",
          "[replay][rules]") {
  TestCloud fx;
  // Expiry Apr 1 10:00; the policy renews 1 day before at 09:00: Mar 31 09:00.
  fx.replay_text(R"(
{"id":"t1","time":"2020-03-01T09:00:00+08:00","type":"topup","account":"acme","amount":"6000","currency":"CNY"}
{"id":"c1","time":"2020-03-01T10:00:00+08:00","type":"create","account":"acme","instance":"p","provider":"testcloud","region":"test-1","instance_type":"T.SMALL","mode":"prepaid","months":1}
{"id":"a1","time":"2020-03-20T10:00:00+08:00","type":"set_auto_renew","account":"acme","instance":"p","auto_renew":true}
)",
                 until("2020-04-02T00:00:00+08:00"));
  const auto c = fx.charges();
  REQUIRE(c.size() == 2);
  CHECK(c[1].kind == "auto_renewal");
  CHECK(c[1].event_seqs == "3");  // the set_auto_renew event
  CHECK(fx.movements("acme").back().at == secs("2020-03-31T09:00:00+08:00"));
}

TEST_CASE("Hours in a daylight-saving zone stay 3600 s across the change", "[replay][rules]") {
  TestCloud fx;
  // America/Los_Angeles springs forward on 2020-03-08 at 02:00 PST. 20:00 PST Mar 7 (04:00Z) to
  // 12:00 PDT Mar 8 (19:00Z) is 15 hours, all full and identical: one line of repeat 15.
  fx.replay_text(R"(
{"id":"c1","time":"2020-03-07T20:00:00-08:00","type":"create","account":"us","instance":"u","provider":"testcloud-us","region":"us-test-1","instance_type":"U.GPU","mode":"payg"}
{"id":"d1","time":"2020-03-08T12:00:00-07:00","type":"destroy","account":"us","instance":"u"}
)");
  const auto c = fx.charges();
  REQUIRE(c.size() == 1);
  CHECK_CHARGE(c[0], "settlement", "2020-03-08T04:00:00Z", "2020-03-08T19:00:00Z", 15, "3600", "1",
               "1.00", "0", "15.00");
}

TEST_CASE("Kinds of return: the event asks, the policy decides and says what it refunds",
          "[replay][rules][return]") {
  TestCloud fx;
  fx.import_catalog(data_path("testcloud-return-limit.json"));  // 1 no-reason return a year
  // a: 1 month (3000) bought Mar 1 10:00, an ordinary return asked on Mar 4 10:00 (within the
  //    5 days): not the full refund, paid − used = 3000 − 72 h × 10.00 = 2280.
  // b: bought Mar 1, a no-reason return asked on Mar 10: past the 5 days → rejected.
  // c: a no-reason return on Mar 3: the year's one → 3000 back.
  // d: a no-reason return on Mar 3 too: none left this year → rejected; e: the same without
  //    return_kind falls back to an ordinary return (48 h used: 3000 − 480 = 2520).
  // f: a payg instance cannot ask for a kind of return.
  const auto r = fx.replay_text(R"(
{"id":"t1","time":"2020-03-01T09:00:00+08:00","type":"topup","account":"acme","amount":"50000","currency":"CNY"}
{"id":"c1","time":"2020-03-01T10:00:00+08:00","type":"create","account":"acme","instance":"a","provider":"testcloud","region":"test-1","instance_type":"T.SMALL","mode":"prepaid","months":1}
{"id":"c2","time":"2020-03-01T10:00:00+08:00","type":"create","account":"acme","instance":"b","provider":"testcloud","region":"test-1","instance_type":"T.SMALL","mode":"prepaid","months":1}
{"id":"c3","time":"2020-03-01T10:00:00+08:00","type":"create","account":"acme","instance":"c","provider":"testcloud","region":"test-1","instance_type":"T.SMALL","mode":"prepaid","months":1}
{"id":"c4","time":"2020-03-01T10:00:00+08:00","type":"create","account":"acme","instance":"d","provider":"testcloud","region":"test-1","instance_type":"T.SMALL","mode":"prepaid","months":1}
{"id":"c5","time":"2020-03-01T10:00:00+08:00","type":"create","account":"acme","instance":"e","provider":"testcloud","region":"test-1","instance_type":"T.SMALL","mode":"prepaid","months":1}
{"id":"c6","time":"2020-03-01T10:00:00+08:00","type":"create","account":"acme","instance":"f","provider":"testcloud","region":"test-1","instance_type":"T.SMALL","mode":"payg"}
{"id":"d1","time":"2020-03-03T10:00:00+08:00","type":"destroy","account":"acme","instance":"c","return_kind":"no_reason"}
{"id":"d2","time":"2020-03-03T10:00:00+08:00","type":"destroy","account":"acme","instance":"d","return_kind":"no_reason"}
{"id":"d3","time":"2020-03-03T10:00:00+08:00","type":"destroy","account":"acme","instance":"e"}
{"id":"d4","time":"2020-03-03T10:00:00+08:00","type":"destroy","account":"acme","instance":"f","return_kind":"ordinary"}
{"id":"d5","time":"2020-03-04T10:00:00+08:00","type":"destroy","account":"acme","instance":"a","return_kind":"ordinary"}
{"id":"d6","time":"2020-03-10T10:00:00+08:00","type":"destroy","account":"acme","instance":"b","return_kind":"no_reason"}
)");
  CHECK(r.rejected == 3);
  const auto refund = [&](const char* instance) {
    for (const auto& c : fx.charges(std::string("instance = '") + instance + "'")) {
      if (c.kind == "refund") return c;
    }
    return Charge{};
  };
  CHECK(refund("a").billed == "-2280.00");
  CHECK(refund("a").note.rfind(
            "ordinary return (rules::prepaid_return, months_then_payg): refund = paid 3000", 0) ==
        0);
  CHECK(refund("c").billed == "-3000.00");
  CHECK(refund("c").note.find("(1 of 1 per calendar year)") != std::string::npos);
  CHECK(refund("e").billed == "-2520.00");
  CHECK(refund("b").kind.empty());
  CHECK(refund("d").kind.empty());
  const auto rejects = fx.rejects();
  REQUIRE(rejects.size() == 3);
  CHECK(rejects[0].event_id == "d2");
  CHECK(rejects[0].reason ==
        "no no-reason return left: the account has had 1 of 1 per calendar "
        "year (policy " +
            std::to_string(fx.policy_id("testcloud", "2020-01-01")) + ")");
  CHECK(rejects[1].event_id == "d4");
  CHECK(rejects[1].reason.rfind("return_kind applies to a prepaid instance", 0) == 0);
  CHECK(rejects[2].event_id == "d6");
  CHECK(rejects[2].reason.rfind("a no-reason return is only within 5 days of the purchase", 0) ==
        0);
}

TEST_CASE("Kinds of return: the no-reason count is per calendar year and kept across replays",
          "[replay][rules][return][property]") {
  TestCloud fx;
  fx.import_catalog(data_path("testcloud-return-limit.json"));
  // One no-reason return in 2020 (replayed first), a second asked in 2020 in a later replay is
  // refused; one in 2021 is the new year's.
  fx.replay_text(R"(
{"id":"t1","time":"2020-03-01T09:00:00+08:00","type":"topup","account":"acme","amount":"50000","currency":"CNY"}
{"id":"c1","time":"2020-03-01T10:00:00+08:00","type":"create","account":"acme","instance":"a","provider":"testcloud","region":"test-1","instance_type":"T.SMALL","mode":"prepaid","months":1}
{"id":"d1","time":"2020-03-02T10:00:00+08:00","type":"destroy","account":"acme","instance":"a","return_kind":"no_reason"}
)",
                 {}, "one.jsonl");
  const auto r = fx.replay_text(R"(
{"id":"c2","time":"2020-12-30T10:00:00+08:00","type":"create","account":"acme","instance":"b","provider":"testcloud","region":"test-1","instance_type":"T.SMALL","mode":"prepaid","months":1}
{"id":"d2","time":"2020-12-31T10:00:00+08:00","type":"destroy","account":"acme","instance":"b","return_kind":"no_reason"}
{"id":"d3","time":"2021-01-01T10:00:00+08:00","type":"destroy","account":"acme","instance":"b","return_kind":"no_reason"}
)",
                                {}, "two.jsonl");
  CHECK(r.rejected == 1);
  const auto b = fx.charges("instance = 'b' AND kind = 'refund'");
  REQUIRE(b.size() == 1);
  CHECK(b[0].billed == "-3000.00");
  CHECK(b[0].start == secs("2021-01-01T10:00:00+08:00"));
}
