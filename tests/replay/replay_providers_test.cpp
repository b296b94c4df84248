// Golden scenarios for Alibaba, Huawei, AWS and Google, worked out by hand from the documented
// rules (docs/usage-log.md; the providers' documents cited in the bundled policy rows) and the
// bundled catalog:
//   Alibaba (from 2017-09-28 12:00Z): per second, hourly settlement (Asia/Shanghai), rounded
//     DOWN to 0.01, 0.01 minimum per instance lifetime; auto-renewal 9 days before expiry at
//     08:00; recycle bin 15 days. ecs.gn5-c4g1.xlarge in us-west-1: payg 11.916, spot 1.224 CNY/h
//     (from 2018); ecs.gn6i-c4g1.xlarge in cn-shanghai: prepaid 3348 CNY/month (from 2023-06-17).
//   Huawei: per second, hourly (Asia/Shanghai), rounded DOWN; arrears grace 24 h, retention
//     168 h; auto-renewal 7 days before expiry at 03:00. The bundled catalog has no Huawei
//     price, so these tests add tests/data/huawei-fake-prices.json: a clearly fake 15.09 CNY/h,
//     4400 CNY/month for p2.2xlarge.8 and 0.001 CNY per GB-hour for SSD disks.
//   AWS (from 2017-10-02): per second with a 60 s minimum per run, hourly in UTC, half-up
//     (assumed); before: a partial hour counts as a full hour. A stopped instance pays no
//     compute (AWS and Google alike). p3.2xlarge us-east-1 3.06 USD/h
//     (from 2017-10-25), p2.xlarge us-east-1 0.90 USD/h (from 2016-11-01).
//   Google (from 2017-09): per second, 60 s minimum; n1-highmem-2 host 0.1184 USD/h plus K80
//     0.45 USD/h per GPU in us-central1 (from 2018).
#include <catch2/catch.hpp>

#include "replay_fixture.hpp"

using namespace gpubill;
using namespace gpubill::testing;

// ---- Alibaba -------------------------------------------------------------------------------

TEST_CASE("Alibaba payg: settlements rounded down", "[replay][alibaba]") {
  ReplayFixture fx;
  // ecs.gn5-c4g1.xlarge in intl-us-west-1, 1.706 USD/h (Alibaba's international price file,
  // 2019-05-23). 10:30–11:00: 1.706 × 1800 / 3600 = 0.853 → down 0.85 (rounding −0.003);
  // 11:00–12:00: 1.706 → 1.70 (−0.006). Half-up would have given 0.85 and 1.71.
  fx.replay_text(R"(
{"id":"t1","time":"2019-06-03T09:00:00+08:00","type":"topup","account":"acme","amount":"100","currency":"USD"}
{"id":"c1","time":"2019-06-03T10:30:00+08:00","type":"create","account":"acme","instance":"a","provider":"alibaba","region":"intl-us-west-1","instance_type":"ecs.gn5-c4g1.xlarge","mode":"payg"}
{"id":"d1","time":"2019-06-03T12:00:00+08:00","type":"destroy","account":"acme","instance":"a"}
)");
  const auto c = fx.charges();
  REQUIRE(c.size() == 2);
  CHECK_CHARGE(c[0], "settlement", "2019-06-03T10:30:00+08:00", "2019-06-03T11:00:00+08:00", 1,
               "1800", "0.853", "0.85", "-0.003", "0.85");
  CHECK_CHARGE(c[1], "settlement", "2019-06-03T11:00:00+08:00", "2019-06-03T12:00:00+08:00", 1,
               "3600", "1.706", "1.70", "-0.006", "1.70");
  CHECK(c[0].policy_id == fx.policy_id("alibaba", "2017-09-28T12:00:00Z"));
  CHECK(fx.movements("acme").back().balance_after == "97.45");  // 100 − 0.85 − 1.70
}

TEST_CASE("Alibaba payg: 0.01 minimum per instance lifetime", "[replay][alibaba]") {
  ReplayFixture fx;
  // 2 s at 1.706 USD/h: 1.706 × 2 / 3600 = 0.000947777778 (12 decimals) → down 0.00. When the
  // last hour is settled (11:00) the lifetime came to 0.00 < 0.01: a minimum_charge line of
  // 0.01 for [10:00:00, 10:00:02).
  fx.replay_text(R"(
{"id":"t1","time":"2019-06-03T09:00:00+08:00","type":"topup","account":"acme","amount":"1","currency":"USD"}
{"id":"c1","time":"2019-06-03T10:00:00+08:00","type":"create","account":"acme","instance":"a","provider":"alibaba","region":"intl-us-west-1","instance_type":"ecs.gn5-c4g1.xlarge","mode":"payg"}
{"id":"d1","time":"2019-06-03T10:00:02+08:00","type":"destroy","account":"acme","instance":"a"}
)",
                 until("2019-06-03T12:00:00+08:00"));
  const auto c = fx.charges();
  REQUIRE(c.size() == 2);
  CHECK_CHARGE(c[0], "minimum_charge", "2019-06-03T10:00:00+08:00", "2019-06-03T10:00:02+08:00", 1,
               "1", "0.01", "0.01", "0", "0.01");
  CHECK(c[0].unit == "lifetime");
  CHECK(c[0].event_seqs == "3");
  CHECK(c[0].note.find("minimum charge per instance lifetime 0.01 USD") != std::string::npos);
  CHECK_CHARGE(c[1], "settlement", "2019-06-03T10:00:00+08:00", "2019-06-03T10:00:02+08:00", 1, "2",
               "0.000947777778", "0.00", "-0.000947777778", "0.00");
  const auto m = fx.movements("acme");
  REQUIRE(m.size() == 2);  // the 0.00 settlement moves nothing
  CHECK(m[1].at == secs("2019-06-03T11:00:00+08:00"));
  CHECK(m[1].amount == "-0.01");
  CHECK(m[1].balance_after == "0.99");
}

TEST_CASE("Alibaba spot and prepaid destroy rule", "[replay][alibaba]") {
  ReplayFixture fx;
  // Spot 1.224/h (a test-fixture price, tests/data/spot-rule-prices.json) → down 1.22 per full
  // hour: one line of two hours. A prepaid instance cannot be destroyed before expiry (policy:
  // prepaid_destroy_before_expiry false).
  const auto r = fx.replay_text(R"(
{"id":"t1","time":"2023-07-01T09:00:00+08:00","type":"topup","account":"acme","amount":"5000","currency":"CNY"}
{"id":"c1","time":"2023-07-01T10:00:00+08:00","type":"create","account":"acme","instance":"s","provider":"alibaba","region":"us-west-1","instance_type":"ecs.gn5-c4g1.xlarge","mode":"spot"}
{"id":"d1","time":"2023-07-01T12:00:00+08:00","type":"destroy","account":"acme","instance":"s"}
{"id":"c2","time":"2023-07-01T12:00:00+08:00","type":"create","account":"acme","instance":"p","provider":"alibaba","region":"cn-shanghai","instance_type":"ecs.gn6i-c4g1.xlarge","mode":"prepaid","months":1}
{"id":"d2","time":"2023-07-02T12:00:00+08:00","type":"destroy","account":"acme","instance":"p"}
)");
  CHECK(r.rejected == 1);
  const auto s = fx.charges("instance = 's'");
  REQUIRE(s.size() == 1);
  CHECK_CHARGE(s[0], "settlement", "2023-07-01T10:00:00+08:00", "2023-07-01T12:00:00+08:00", 2,
               "3600", "1.224", "1.22", "-0.004", "2.44");
  CHECK(fx.rejects().at(0).reason.rfind("prepaid GPU instances cannot be destroyed before expiry",
                                        0) == 0);
}

TEST_CASE("Alibaba auto-renewal 9 days before expiry at 08:00", "[replay][alibaba]") {
  ReplayFixture fx;
  // Bought Jul 20 14:00 for 1 month (3348): the term ends at the end of its expiry date Aug 20,
  // i.e. Aug 21 00:00 (Alibaba's "次日的零点", policy prepaid_lifecycle.term_end). Auto-renewal
  // is charged on Aug 11 at 08:00 (9 days before the expiry date, 08:00 local): 3348 for
  // [Aug 21 00:00, Sep 21 00:00), balance 3304. The next attempt, Sep 11 08:00, fails
  // (3304 < 3348); it expires Sep 21 00:00 into the recycle bin for 15 days and is destroyed at
  // 00:00 on Oct 6.
  fx.replay_text(R"(
{"id":"t1","time":"2023-07-20T09:00:00+08:00","type":"topup","account":"acme","amount":"10000","currency":"CNY"}
{"id":"c1","time":"2023-07-20T14:00:00+08:00","type":"create","account":"acme","instance":"p","provider":"alibaba","region":"cn-shanghai","instance_type":"ecs.gn6i-c4g1.xlarge","mode":"prepaid","months":1,"auto_renew":true}
)",
                 until("2023-10-07T00:00:00+08:00"));
  const auto c = fx.charges();
  REQUIRE(c.size() == 2);
  CHECK_CHARGE(c[0], "prepaid_order", "2023-07-20T14:00:00+08:00", "2023-08-21T00:00:00+08:00", 1,
               "1", "3348", "3348.00", "0", "3348.00");
  CHECK_CHARGE(c[1], "auto_renewal", "2023-08-21T00:00:00+08:00", "2023-09-21T00:00:00+08:00", 1,
               "1", "3348", "3348.00", "0", "3348.00");
  const auto m = fx.movements("acme");
  REQUIRE(m.size() == 3);
  CHECK(m[2].at == secs("2023-08-11T08:00:00+08:00"));
  CHECK(m[2].balance_after == "3304");
  // A failed deduction is tried again every day at 08:00 until the expiry (policy
  // auto_renew_retry_daily, doc-detail/52843): Sep 11, 12, …, 20 — ten failures.
  const auto s = fx.states("p");
  REQUIRE(s.size() == 14);
  for (int day = 11; day <= 20; ++day) {
    const auto& failed = s[static_cast<std::size_t>(day - 9)];
    CHECK(failed.at == secs(("2023-09-" + std::to_string(day) + "T08:00:00+08:00").c_str()));
    CHECK(failed.reason.rfind("auto_renewal_failed", 0) == 0);
    CHECK((failed.reason.find("tried again 2023-09-" + std::to_string(day + 1)) !=
           std::string::npos) == (day < 20));
  }
  CHECK(s[12].state == "recycle_bin");
  CHECK(s[12].at == secs("2023-09-21T00:00:00+08:00"));
  CHECK(s[13].at == secs("2023-10-06T00:00:00+08:00"));
}

TEST_CASE("Alibaba: a failed auto-renewal succeeds on a later daily retry after a top-up",
          "[replay][alibaba]") {
  ReplayFixture fx;
  // As above, but 100 CNY arrives on Sep 13: the retry of Sep 14 08:00 renews (3304 + 100 =
  // 3404 ≥ 3348), so the instance never expires on Sep 21 00:00.
  fx.replay_text(R"(
{"id":"t1","time":"2023-07-20T09:00:00+08:00","type":"topup","account":"acme","amount":"10000","currency":"CNY"}
{"id":"c1","time":"2023-07-20T14:00:00+08:00","type":"create","account":"acme","instance":"p","provider":"alibaba","region":"cn-shanghai","instance_type":"ecs.gn6i-c4g1.xlarge","mode":"prepaid","months":1,"auto_renew":true}
{"id":"t2","time":"2023-09-13T12:00:00+08:00","type":"topup","account":"acme","amount":"100","currency":"CNY"}
)",
                 until("2023-09-30T00:00:00+08:00"));
  const auto c = fx.charges();
  REQUIRE(c.size() == 3);
  CHECK_CHARGE(c[2], "auto_renewal", "2023-09-21T00:00:00+08:00", "2023-10-21T00:00:00+08:00", 1,
               "1", "3348", "3348.00", "0", "3348.00");
  const auto m = fx.movements("acme");
  CHECK(m.back().at == secs("2023-09-14T08:00:00+08:00"));
  CHECK(m.back().balance_after == "56");
  const auto s = fx.states("p");
  REQUIRE(s.size() == 6);  // create, renewal, 3 failures (Sep 11–13), renewal
  CHECK(s[4].reason.find("tried again 2023-09-14") != std::string::npos);
  CHECK(s[5].at == secs("2023-09-14T08:00:00+08:00"));
  CHECK(s[5].reason.rfind("auto_renewal:", 0) == 0);
}

// ---- Huawei (fake prices from tests/data)
// --------------------------------------------------------

TEST_CASE("Huawei payg: 1800 s of 15.09/h rounds down to 7.54", "[replay][huawei]") {
  ReplayFixture fx;
  fx.import_catalog(data_path("huawei-fake-prices.json"));
  // 15.09 × 1800 / 3600 = 7.545 → down 7.54 (rounding −0.005); Tencent's half-up gives 7.55.
  fx.replay_text(R"(
{"id":"t1","time":"2021-03-01T09:00:00+08:00","type":"topup","account":"acme","amount":"1000","currency":"CNY"}
{"id":"c1","time":"2021-03-01T10:30:00+08:00","type":"create","account":"acme","instance":"h","provider":"huawei","region":"cn-north-4","instance_type":"p2.2xlarge.8","mode":"payg"}
{"id":"d1","time":"2021-03-01T12:00:00+08:00","type":"destroy","account":"acme","instance":"h"}
)");
  const auto c = fx.charges();
  REQUIRE(c.size() == 2);
  CHECK_CHARGE(c[0], "settlement", "2021-03-01T10:30:00+08:00", "2021-03-01T11:00:00+08:00", 1,
               "1800", "7.545", "7.54", "-0.005", "7.54");
  CHECK_CHARGE(c[1], "settlement", "2021-03-01T11:00:00+08:00", "2021-03-01T12:00:00+08:00", 1,
               "3600", "15.09", "15.09", "0", "15.09");
  CHECK(c[0].policy_id == fx.policy_id("huawei", "2017-01-01"));
}

TEST_CASE("Huawei auto-renewal 7 days before expiry at 03:00", "[replay][huawei]") {
  ReplayFixture fx;
  fx.import_catalog(data_path("huawei-fake-prices.json"));
  // The term ends at 23:59:59 of its expiry date Apr 10 (Huawei's day_end); auto-renewal Apr 3
  // 03:00 (7 days before the expiry date) for [Apr 10 23:59:59, May 10 23:59:59).
  fx.replay_text(R"(
{"id":"t1","time":"2021-03-10T09:00:00+08:00","type":"topup","account":"acme","amount":"8800","currency":"CNY"}
{"id":"c1","time":"2021-03-10T15:00:00+08:00","type":"create","account":"acme","instance":"h","provider":"huawei","region":"cn-north-4","instance_type":"p2.2xlarge.8","mode":"prepaid","months":1,"auto_renew":true}
)",
                 until("2021-04-05T00:00:00+08:00"));
  const auto c = fx.charges();
  REQUIRE(c.size() == 2);
  CHECK_CHARGE(c[1], "auto_renewal", "2021-04-10T23:59:59+08:00", "2021-05-10T23:59:59+08:00", 1,
               "1", "4400", "4400.00", "0", "4400.00");
  CHECK(fx.movements("acme").back().at == secs("2021-04-03T03:00:00+08:00"));
}

TEST_CASE("Huawei arrears: 24 h grace, then shut down; reclaimed 168 h later", "[replay][huawei]") {
  ReplayFixture fx;
  fx.import_catalog(data_path("huawei-fake-prices.json"));
  // 20.00 − 15.09 = 4.91 at 11:00; −10.18 at 12:00 (negative since 12:00). Running and billing
  // for 24 h: hours 10:00 Mar 1 → 12:00 Mar 2 = 26 identical hours, one line of 392.34; balance
  // −372.34. Shut down Mar 2 12:00, reclaimed 168 h later: Mar 9 12:00.
  fx.replay_text(R"(
{"id":"t1","time":"2021-03-01T09:00:00+08:00","type":"topup","account":"acme","amount":"20.00","currency":"CNY"}
{"id":"c1","time":"2021-03-01T10:00:00+08:00","type":"create","account":"acme","instance":"h","provider":"huawei","region":"cn-north-4","instance_type":"p2.2xlarge.8","mode":"payg"}
)",
                 until("2021-03-10T00:00:00+08:00"));
  const auto c = fx.charges();
  REQUIRE(c.size() == 1);
  CHECK_CHARGE(c[0], "settlement", "2021-03-01T10:00:00+08:00", "2021-03-02T12:00:00+08:00", 26,
               "3600", "15.09", "15.09", "0", "392.34");
  CHECK(fx.movements("acme").back().balance_after == "-372.34");
  const auto s = fx.states("h");
  REQUIRE(s.size() == 4);
  CHECK(s[2].state == "arrears_stopped");
  CHECK(s[2].at == secs("2021-03-02T12:00:00+08:00"));
  CHECK(s[3].state == "destroyed");
  CHECK(s[3].at == secs("2021-03-09T12:00:00+08:00"));
}

TEST_CASE("Huawei disks: a priced system disk is a line of its own; an unpriced one is noted",
          "[replay][huawei]") {
  ReplayFixture fx;
  fx.import_catalog(data_path("huawei-fake-prices.json"));
  // System disk SSD 40 GB at 0.001/GB-hour: 40 × 3600 = 144000 GB-seconds per full hour,
  // 0.001 × 144000 / 3600 = 0.04. The SAS data disk has no price: not charged, and the state
  // history says so. Huawei's policy does not stop compute billing on stop (default), so both
  // lines run 10:00–12:00.
  fx.replay_text(R"(
{"id":"c1","time":"2021-03-01T10:00:00+08:00","type":"create","account":"acme","instance":"h","provider":"huawei","region":"cn-north-4","instance_type":"p2.2xlarge.8","mode":"payg","system_disk":{"kind":"SSD","size_gb":40},"data_disks":[{"kind":"SAS","size_gb":100}]}
{"id":"s1","time":"2021-03-01T11:00:00+08:00","type":"stop","account":"acme","instance":"h"}
{"id":"d1","time":"2021-03-01T12:00:00+08:00","type":"destroy","account":"acme","instance":"h"}
)");
  const auto c = fx.charges();
  REQUIRE(c.size() == 2);
  CHECK(c[0].component == "compute");
  CHECK(c[0].repeat == 2);
  CHECK(c[1].component == "system_disk");
  CHECK_CHARGE(c[1], "settlement", "2021-03-01T10:00:00+08:00", "2021-03-01T12:00:00+08:00", 2,
               "144000", "0.04", "0.04", "0", "0.08");
  CHECK(c[1].unit == "gb_second");
  CHECK(c[1].price_unit == "gb_hour");
  CHECK(c[1].unit_price == "0.001");
  CHECK(fx.count("SELECT COUNT(*) FROM disk_price WHERE id = " + std::to_string(c[1].price_id)) ==
        1);
  const auto s = fx.states("h");
  REQUIRE(s.size() == 4);
  CHECK(s[1].reason.rfind("unpriced: data disk 1 (SAS 100 GB) has no pay-as-you-go disk price",
                          0) == 0);
}

// ---- AWS ---------------------------------------------------------------------------------------

TEST_CASE("AWS: a run shorter than 60 s is billed 60 s", "[replay][aws]") {
  ReplayFixture fx;
  // 30 s, billed 60 s: 3.06 × 60 / 3600 = 0.051, an exact usage record settled at 11:00 UTC.
  // AWS rounds on the monthly bill (policy settlement_period month): the instance is released,
  // so its month's record closes with its last hour: 0.051 → 0.05 (half-up), rounding −0.001.
  // No top-up: an invoiced account, the balance goes negative without arrears.
  fx.replay_text(R"(
{"id":"c1","time":"2018-01-10T10:00:00Z","type":"create","account":"corp","instance":"p3","provider":"aws","region":"us-east-1","instance_type":"p3.2xlarge","mode":"payg"}
{"id":"d1","time":"2018-01-10T10:00:30Z","type":"destroy","account":"corp","instance":"p3"}
)",
                 until("2018-01-10T11:00:00Z"));
  const auto c = fx.charges();
  REQUIRE(c.size() == 2);
  // Rows in period order: the month's record starts with the month.
  CHECK_CHARGE(c[0], "cycle_rounding", "2018-01-01T00:00:00Z", "2018-01-10T11:00:00Z", 1, "1", "0",
               "-0.001", "-0.001", "-0.001");
  CHECK(c[0].note.find("closed at release") != std::string::npos);
  CHECK_CHARGE(c[1], "settlement", "2018-01-10T10:00:00Z", "2018-01-10T10:01:00Z", 1, "60", "0.051",
               "0.051", "0", "0.051");
  CHECK(c[1].currency == "USD");
  CHECK(c[1].note.find("minimum 60 s per run") != std::string::npos);
  CHECK(c[1].note.find("the run of 30 s") != std::string::npos);
  CHECK(fx.movements("corp").back().balance_after == "-0.05");
}

TEST_CASE("AWS: a short run ending on the hour gets its minimum in the next hour",
          "[replay][aws]") {
  ReplayFixture fx;
  // 10:59:30–11:00:00 is 30 s in the 10:00 hour: 3.06 × 30 / 3600 = 0.0255. The hour is
  // settled at 11:00 before the destroy at 11:00 is applied, so the missing 30 s go on the 11:00
  // hour: 0.0255, with the note. Both records stay exact; the month's record rounds their sum
  // once: 0.051 → 0.05 (hourly rounding would have billed 0.03 + 0.03 = 0.06).
  fx.replay_text(R"(
{"id":"c1","time":"2018-01-10T10:59:30Z","type":"create","account":"corp","instance":"p3","provider":"aws","region":"us-east-1","instance_type":"p3.2xlarge","mode":"payg"}
{"id":"d1","time":"2018-01-10T11:00:00Z","type":"destroy","account":"corp","instance":"p3"}
)",
                 until("2018-01-10T12:00:00Z"));
  const auto c = fx.charges();
  REQUIRE(c.size() == 3);
  CHECK_CHARGE(c[0], "cycle_rounding", "2018-01-01T00:00:00Z", "2018-01-10T12:00:00Z", 1, "1", "0",
               "-0.001", "-0.001", "-0.001");
  CHECK_CHARGE(c[1], "settlement", "2018-01-10T10:59:30Z", "2018-01-10T11:00:00Z", 1, "30",
               "0.0255", "0.0255", "0", "0.0255");
  CHECK(c[1].note.empty());
  CHECK_CHARGE(c[2], "settlement", "2018-01-10T11:00:00Z", "2018-01-10T11:00:30Z", 1, "30",
               "0.0255", "0.0255", "0", "0.0255");
  CHECK(c[2].note.find("(+30 s)") != std::string::npos);
}

TEST_CASE("AWS: an hour across a month end in UTC", "[replay][aws]") {
  ReplayFixture fx;
  // 23:30 Jan 31 → 00:30 Feb 1 UTC: the boundary is 00:00 UTC; 3.06 × 1800 / 3600 = 1.53 twice.
  fx.replay_text(R"(
{"id":"c1","time":"2018-01-31T23:30:00Z","type":"create","account":"corp","instance":"p3","provider":"aws","region":"us-east-1","instance_type":"p3.2xlarge","mode":"payg"}
{"id":"d1","time":"2018-02-01T00:30:00Z","type":"destroy","account":"corp","instance":"p3"}
)",
                 until("2018-02-01T01:00:00Z"));
  const auto c = fx.charges();
  REQUIRE(c.size() == 2);
  CHECK_CHARGE(c[0], "settlement", "2018-01-31T23:30:00Z", "2018-02-01T00:00:00Z", 1, "1800",
               "1.53", "1.53", "0", "1.53");
  CHECK_CHARGE(c[1], "settlement", "2018-02-01T00:00:00Z", "2018-02-01T00:30:00Z", 1, "1800",
               "1.53", "1.53", "0", "1.53");
}

TEST_CASE("AWS before per-second billing: a partial hour is a full hour", "[replay][aws]") {
  ReplayFixture fx;
  // Policy 2016–2017-10-02: metering in units of 3600 s. 20 minutes → 3600 s → 0.90.
  fx.replay_text(R"(
{"id":"c1","time":"2017-03-01T10:10:00Z","type":"create","account":"corp","instance":"p2","provider":"aws","region":"us-east-1","instance_type":"p2.xlarge","mode":"payg"}
{"id":"d1","time":"2017-03-01T10:30:00Z","type":"destroy","account":"corp","instance":"p2"}
)",
                 until("2017-03-01T11:00:00Z"));
  const auto c = fx.charges();
  REQUIRE(c.size() == 1);
  CHECK_CHARGE(c[0], "settlement", "2017-03-01T10:10:00Z", "2017-03-01T10:30:00Z", 1, "3600", "0.9",
               "0.90", "0", "0.90");
  CHECK(c[0].note == "1200 s metered in units of 3600 s = 3600 s");
  CHECK(c[0].policy_id == fx.policy_id("aws", "2016-01-01"));
}

TEST_CASE("AWS: a stopped instance pays nothing for compute", "[replay][aws]") {
  ReplayFixture fx;
  // EC2 does not charge usage for a stopped instance (policy stopped_payg_compute_charged =
  // false). 10:00–10:20 and 10:50–11:00 run in the 10:00 hour: 1800 s × 3.06 / 3600 = 1.53;
  // 11:00–11:10: 600 s → 0.51. Both runs are longer than the 60 s minimum.
  fx.replay_text(R"(
{"id":"c1","time":"2018-01-10T10:00:00Z","type":"create","account":"corp","instance":"p3","provider":"aws","region":"us-east-1","instance_type":"p3.2xlarge","mode":"payg"}
{"id":"s1","time":"2018-01-10T10:20:00Z","type":"stop","account":"corp","instance":"p3"}
{"id":"s2","time":"2018-01-10T10:50:00Z","type":"start","account":"corp","instance":"p3"}
{"id":"d1","time":"2018-01-10T11:10:00Z","type":"destroy","account":"corp","instance":"p3"}
)",
                 until("2018-01-10T12:00:00Z"));
  const auto c = fx.charges();
  REQUIRE(c.size() == 2);
  CHECK_CHARGE(c[0], "settlement", "2018-01-10T10:00:00Z", "2018-01-10T11:00:00Z", 1, "1800",
               "1.53", "1.53", "0", "1.53");
  CHECK_CHARGE(c[1], "settlement", "2018-01-10T11:00:00Z", "2018-01-10T11:10:00Z", 1, "600", "0.51",
               "0.51", "0", "0.51");
  CHECK(fx.movements("corp").back().balance_after == "-2.04");
}

// ---- Google
// --------------------------------------------------------------------------------------

TEST_CASE("Google: a host and its attachable GPUs are two compute lines", "[replay][google]") {
  ReplayFixture fx;
  // n1-highmem-2 0.1184/h; 1 × K80 0.45/h (unit gpu_second: 1 GPU × 3600 s). Two hours each:
  // one line per price row, kept exact. Google rounds on the monthly bill, each meter on its
  // own: the host's 0.2368 → 0.24 (+0.0032) when it is released; the K80's 0.90 needs none.
  const auto r = fx.replay_text(R"(
{"id":"c1","time":"2018-10-01T10:00:00Z","type":"create","account":"lab","instance":"g","provider":"google","region":"us-central1","instance_type":"n1-highmem-2","mode":"payg","gpu":"K80","gpus":1}
{"id":"d1","time":"2018-10-01T12:00:00Z","type":"destroy","account":"lab","instance":"g"}
{"id":"c2","time":"2018-10-01T12:00:00Z","type":"create","account":"lab","instance":"x","provider":"google","region":"us-central1","instance_type":"n1-highmem-2","mode":"payg","gpu":"K80","gpus":3}
{"id":"c3","time":"2018-10-01T12:00:00Z","type":"create","account":"lab","instance":"y","provider":"aws","region":"us-east-1","instance_type":"p3.2xlarge","mode":"payg","gpus":1}
)");
  CHECK(r.rejected == 2);
  const auto c = fx.charges();
  REQUIRE(c.size() == 3);
  CHECK_CHARGE(c[0], "cycle_rounding", "2018-10-01T00:00:00Z", "2018-10-01T12:00:00Z", 1, "1", "0",
               "0.0032", "0.0032", "0.0032");
  CHECK(c[0].component == "compute");
  CHECK_CHARGE(c[1], "settlement", "2018-10-01T10:00:00Z", "2018-10-01T12:00:00Z", 2, "3600",
               "0.1184", "0.1184", "0", "0.2368");
  CHECK(c[1].unit == "second");
  CHECK(c[1].price_id == fx.price_id("google", "n1-highmem-2", "payg", "2018-07-19"));
  CHECK_CHARGE(c[2], "settlement", "2018-10-01T10:00:00Z", "2018-10-01T12:00:00Z", 2, "3600",
               "0.45", "0.45", "0", "0.90");
  CHECK(c[2].unit == "gpu_second");
  CHECK(c[2].price_id == fx.price_id("google", "K80", "payg", "2018-09-08"));
  const auto rej = fx.rejects();
  REQUIRE(rej.size() == 2);
  CHECK(rej[0].reason == "n1-highmem-2 takes 1, 2, 4, 8 × K80, not 3");
  CHECK(rej[1].reason.rfind("p3.2xlarge takes no attachable GPUs", 0) == 0);
}

TEST_CASE("Google: a stopped instance pays nothing for its host or GPUs", "[replay][google]") {
  ReplayFixture fx;
  // Stopped 10:30–11:30: the host pays 1800 s in each hour, 0.1184 × 1800 / 3600 = 0.0592; the
  // K80 1800 gpu-seconds, 0.45 × 1800 / 3600 = 0.225. The month's records round once per meter
  // when the instance is released: host 0.1184 → 0.12 (+0.0016), K80 0.45 (none). Rounded each
  // hour it would have been 0.06 + 0.06 and 0.23 + 0.23 (0.58 instead of 0.57).
  fx.replay_text(R"(
{"id":"c1","time":"2018-10-01T10:00:00Z","type":"create","account":"lab","instance":"g","provider":"google","region":"us-central1","instance_type":"n1-highmem-2","mode":"payg","gpu":"K80","gpus":1}
{"id":"s1","time":"2018-10-01T10:30:00Z","type":"stop","account":"lab","instance":"g"}
{"id":"s2","time":"2018-10-01T11:30:00Z","type":"start","account":"lab","instance":"g"}
{"id":"d1","time":"2018-10-01T12:00:00Z","type":"destroy","account":"lab","instance":"g"}
)");
  const auto c = fx.charges();
  REQUIRE(c.size() == 5);
  CHECK_CHARGE(c[0], "cycle_rounding", "2018-10-01T00:00:00Z", "2018-10-01T12:00:00Z", 1, "1", "0",
               "0.0016", "0.0016", "0.0016");
  CHECK_CHARGE(c[1], "settlement", "2018-10-01T10:00:00Z", "2018-10-01T10:30:00Z", 1, "1800",
               "0.0592", "0.0592", "0", "0.0592");
  CHECK_CHARGE(c[2], "settlement", "2018-10-01T10:00:00Z", "2018-10-01T10:30:00Z", 1, "1800",
               "0.225", "0.225", "0", "0.225");
  CHECK(c[2].unit == "gpu_second");
  CHECK_CHARGE(c[3], "settlement", "2018-10-01T11:30:00Z", "2018-10-01T12:00:00Z", 1, "1800",
               "0.0592", "0.0592", "0", "0.0592");
  CHECK_CHARGE(c[4], "settlement", "2018-10-01T11:30:00Z", "2018-10-01T12:00:00Z", 1, "1800",
               "0.225", "0.225", "0", "0.225");
  CHECK(fx.movements("lab").back().balance_after == "-0.57");
}
