// Golden scenarios for Tencent Cloud GPU instances, worked out by hand from the documented
// rules (docs/usage-log.md; Tencent's documents cited in the bundled policy rows) and the bundled
// catalog:
//   GN8.LARGE56: payg 15.09 CNY/h, prepaid 4400 CNY/month (Tencent price page, from 2017-12-31);
//   spot 3.10 CNY/h in ap-guangzhou (a test-fixture price: tests/data/spot-rule-prices.json);
//   GN8.3XLARGE112: payg 30.88 CNY/h (from 2019-01-01);
//   policy 2017–2019: per second, settled hourly (Asia/Shanghai), half-up to 0.01, arrears
//     grace 2 h then retention 24 h, recycle bin 7 days, stopped payg compute still charged;
//   policy 2020–: the same with recycle bin 15 days, retention 360 h, stopped compute not charged;
//   prepaid term discounts (from 2019): 6–11 months 0.88, 12–23 months 0.83, ….
#include <catch2/catch.hpp>

#include "gpubill/ledger/ledger.hpp"
#include "replay_fixture.hpp"

using namespace gpubill;
using namespace gpubill::testing;

TEST_CASE("Tencent payg: per-second use settled hourly, rounded half-up", "[replay][tencent]") {
  ReplayFixture fx;
  // 10:30 → 14:00 Beijing time. The 10:00–11:00 hour has 1800 s: 15.09 × 1800 / 3600 = 7.545,
  // half-up → 7.55 (rounding +0.005). 11:00–14:00 are three identical full hours of 15.09: one
  // line with repeat 3, total 45.27. Balance: 1000 − 7.55 = 992.45 at 11:00, − 45.27 = 947.18.
  const auto r = fx.replay_text(R"(
{"id":"t1","time":"2019-03-01T09:00:00+08:00","type":"topup","account":"acme","amount":"1000.00","currency":"CNY"}
{"id":"c1","time":"2019-03-01T10:30:00+08:00","type":"create","account":"acme","instance":"gn8-a","provider":"tencent","region":"ap-guangzhou","instance_type":"GN8.LARGE56","mode":"payg"}
{"id":"d1","time":"2019-03-01T14:00:00+08:00","type":"destroy","account":"acme","instance":"gn8-a"}
)");
  CHECK(r.events_read == 3);
  CHECK(r.applied == 3);
  CHECK(r.rejected == 0);
  CHECK(r.settlements == 4);
  const auto c = fx.charges();
  REQUIRE(c.size() == 2);
  CHECK_CHARGE(c[0], "settlement", "2019-03-01T10:30:00+08:00", "2019-03-01T11:00:00+08:00", 1,
               "1800", "7.545", "7.55", "0.005", "7.55");
  CHECK_CHARGE(c[1], "settlement", "2019-03-01T11:00:00+08:00", "2019-03-01T14:00:00+08:00", 3,
               "3600", "15.09", "15.09", "0", "45.27");
  for (const auto& x : c) {
    CHECK(x.component == "compute");
    CHECK(x.mode == "payg");
    CHECK(x.unit == "second");
    CHECK(x.unit_price == "15.09");
    CHECK(x.price_unit == "hour");
    CHECK(x.currency == "CNY");
    CHECK(x.price_id == fx.price_id("tencent", "GN8.LARGE56", "payg", "2017-12-31"));
    CHECK(x.policy_id == fx.policy_id("tencent", "2017-01-01"));
    CHECK(x.event_seqs == "2");  // the create event
  }
  const auto m = fx.movements("acme");
  REQUIRE(m.size() == 3);
  CHECK(m[0].kind == "topup");
  CHECK(m[0].balance_after == "1000");
  CHECK(m[1].amount == "-7.55");
  CHECK(m[1].at == secs("2019-03-01T11:00:00+08:00"));
  CHECK(m[1].balance_after == "992.45");
  CHECK(m[2].amount == "-45.27");
  CHECK(m[2].at == secs("2019-03-01T14:00:00+08:00"));
  CHECK(m[2].balance_after == "947.18");
  const auto s = fx.states("gn8-a");
  REQUIRE(s.size() == 2);
  CHECK(s[0].state == "running");
  CHECK(s[1].state == "destroyed");
}

TEST_CASE("Balance movements are listed in the order replay applied them", "[replay][tencent]") {
  ReplayFixture fx;
  // At 11:00 the 10:30–11:00 settlement (7.55) comes before the prepaid order created at 11:00
  // (time before events), although its run row is written later. The last partial hour
  // (14:00–14:10, 15.09 × 600 / 3600 = 2.515 → 2.52) is settled, and debited, at the 15:00 hour
  // end: after the 14:30 top-up. 10000 − 7.55 − 4400 − 45.27 + 100 − 2.52 = 5644.66.
  fx.replay_text(R"(
{"id":"t1","time":"2019-03-01T09:00:00+08:00","type":"topup","account":"lab","amount":"10000.00","currency":"CNY"}
{"id":"c1","time":"2019-03-01T10:30:00+08:00","type":"create","account":"lab","instance":"train","provider":"tencent","region":"ap-guangzhou","instance_type":"GN8.LARGE56","mode":"payg"}
{"id":"c2","time":"2019-03-01T11:00:00+08:00","type":"create","account":"lab","instance":"serve","provider":"tencent","region":"ap-guangzhou","instance_type":"GN8.LARGE56","mode":"prepaid","months":1}
{"id":"d1","time":"2019-03-01T14:10:00+08:00","type":"destroy","account":"lab","instance":"train"}
{"id":"t2","time":"2019-03-01T14:30:00+08:00","type":"topup","account":"lab","amount":"100","currency":"CNY"}
)",
                 until("2019-03-02T00:00:00+08:00"));
  const auto m = fx.movements("lab");
  REQUIRE(m.size() == 6);
  const std::vector<std::pair<const char*, const char*>> expected{
      {"10000", "10000"},    {"-7.55", "9992.45"}, {"-4400", "5592.45"},
      {"-45.27", "5547.18"}, {"100", "5647.18"},   {"-2.52", "5644.66"}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    INFO("movement " << i);
    CHECK(m[i].amount == expected[i].first);
    CHECK(m[i].balance_after == expected[i].second);
  }
  CHECK(m[1].at == secs("2019-03-01T11:00:00+08:00"));
  CHECK(m[2].at == secs("2019-03-01T11:00:00+08:00"));
  CHECK(m[5].at == secs("2019-03-01T15:00:00+08:00"));
  // The statement lists them in the same order and closes on the last one.
  const auto s = monthly_statement(fx.db(), "lab", 2019, 3);
  REQUIRE(s.movements.size() == 6);
  CHECK(s.movements[1].amount.to_string() == "-7.55");
  CHECK(s.movements[2].amount.to_string() == "-4400");
  REQUIRE(s.balances.size() == 1);
  CHECK(s.balances[0].closing.to_string() == "5644.66");
  CHECK(s.balances[0].reconciles);
}

TEST_CASE("Tencent payg: an hour across local midnight and a month end (UTC+8)",
          "[replay][tencent]") {
  ReplayFixture fx;
  // 2019-03-31 23:30 → 2019-04-01 00:30 Beijing time (15:30Z → 16:30Z): the settlement boundary
  // is local midnight (16:00Z), so two half hours: 7.545 → 7.55 each, one in March, one in April.
  fx.replay_text(R"(
{"id":"c1","time":"2019-03-31T23:30:00+08:00","type":"create","account":"acme","instance":"gn8-a","provider":"tencent","region":"ap-guangzhou","instance_type":"GN8.LARGE56","mode":"payg"}
{"id":"d1","time":"2019-04-01T00:30:00+08:00","type":"destroy","account":"acme","instance":"gn8-a"}
)",
                 until("2019-04-01T01:00:00+08:00"));
  const auto c = fx.charges();
  REQUIRE(c.size() == 2);
  CHECK_CHARGE(c[0], "settlement", "2019-03-31T23:30:00+08:00", "2019-04-01T00:00:00+08:00", 1,
               "1800", "7.545", "7.55", "0.005", "7.55");
  CHECK_CHARGE(c[1], "settlement", "2019-04-01T00:00:00+08:00", "2019-04-01T00:30:00+08:00", 1,
               "1800", "7.545", "7.55", "0.005", "7.55");
  CHECK(c[0].end == secs("2019-03-31T16:00:00Z"));
  // Never topped up: an invoiced account, no arrears; the balance just goes negative.
  const auto m = fx.movements("acme");
  REQUIRE(m.size() == 2);
  CHECK(m[1].balance_after == "-15.1");
  CHECK(fx.count("SELECT COUNT(*) FROM instance_state WHERE reason LIKE 'arrears%'") == 0);
}

TEST_CASE("Tencent payg: stopped GPU instances pay for compute until 2019, not from 2020",
          "[replay][tencent]") {
  ReplayFixture fx;
  // 2019 policy: "GPU 云服务器不支持关机不收费" — the stop changes nothing billed: 10:00–15:00 is
  // five identical full hours, one line of repeat 5 (75.45).
  // 2021 policy: stopping ends compute billing. 10:00–12:00 two hours (30.18); 12:00–13:30
  // stopped; 13:30–14:00 is 1800 s → 7.55, produced by the start event (seq 7).
  fx.replay_text(R"(
{"id":"a1","time":"2019-03-01T10:00:00+08:00","type":"create","account":"old","instance":"g","provider":"tencent","region":"ap-guangzhou","instance_type":"GN8.LARGE56","mode":"payg"}
{"id":"a2","time":"2019-03-01T12:00:00+08:00","type":"stop","account":"old","instance":"g"}
{"id":"a3","time":"2019-03-01T15:00:00+08:00","type":"destroy","account":"old","instance":"g"}
{"id":"b1","time":"2021-03-01T10:00:00+08:00","type":"create","account":"new","instance":"h","provider":"tencent","region":"ap-guangzhou","instance_type":"GN8.LARGE56","mode":"payg"}
{"id":"b2","time":"2021-03-01T12:00:00+08:00","type":"stop","account":"new","instance":"h"}
{"id":"b3","time":"2021-03-01T13:30:00+08:00","type":"start","account":"new","instance":"h"}
{"id":"b4","time":"2021-03-01T14:00:00+08:00","type":"destroy","account":"new","instance":"h"}
)");
  const auto old_rows = fx.charges("instance = 'g'");
  REQUIRE(old_rows.size() == 1);
  CHECK_CHARGE(old_rows[0], "settlement", "2019-03-01T10:00:00+08:00", "2019-03-01T15:00:00+08:00",
               5, "3600", "15.09", "15.09", "0", "75.45");
  const auto s = fx.states("g");
  REQUIRE(s.size() == 3);
  CHECK(s[1].state == "stopped");
  CHECK(s[1].reason.find("compute is still charged while stopped") != std::string::npos);

  const auto new_rows = fx.charges("instance = 'h'");
  REQUIRE(new_rows.size() == 2);
  CHECK_CHARGE(new_rows[0], "settlement", "2021-03-01T10:00:00+08:00", "2021-03-01T12:00:00+08:00",
               2, "3600", "15.09", "15.09", "0", "30.18");
  CHECK_CHARGE(new_rows[1], "settlement", "2021-03-01T13:30:00+08:00", "2021-03-01T14:00:00+08:00",
               1, "1800", "7.545", "7.55", "0.005", "7.55");
  CHECK(new_rows[0].policy_id == fx.policy_id("tencent", "2020-01-01"));
  CHECK(new_rows[1].event_seqs == "6");  // b3, the start
}

TEST_CASE("Tencent payg: a resize mid-hour settles two pieces at two prices", "[replay][tencent]") {
  ReplayFixture fx;
  // 10:00–11:00 GN8.LARGE56 full hour 15.09. 11:00–12:00 is split at 11:20:
  //   GN8.LARGE56    1200 s: 15.09 × 1200 / 3600 = 5.03 exactly;
  //   GN8.3XLARGE112 2400 s: 30.88 × 2400 / 3600 = 20.5866…67 (12 decimals) → 20.59,
  //   rounding 0.003333333333. Both are settled at 12:00, on separate lines.
  fx.replay_text(R"(
{"id":"t1","time":"2019-03-01T09:00:00+08:00","type":"topup","account":"acme","amount":"1000.00","currency":"CNY"}
{"id":"c1","time":"2019-03-01T10:00:00+08:00","type":"create","account":"acme","instance":"gn8","provider":"tencent","region":"ap-guangzhou","instance_type":"GN8.LARGE56","mode":"payg"}
{"id":"r1","time":"2019-03-01T11:20:00+08:00","type":"resize","account":"acme","instance":"gn8","instance_type":"GN8.3XLARGE112"}
{"id":"d1","time":"2019-03-01T12:00:00+08:00","type":"destroy","account":"acme","instance":"gn8"}
)");
  const auto c = fx.charges();
  REQUIRE(c.size() == 3);
  CHECK_CHARGE(c[0], "settlement", "2019-03-01T10:00:00+08:00", "2019-03-01T11:00:00+08:00", 1,
               "3600", "15.09", "15.09", "0", "15.09");
  CHECK_CHARGE(c[1], "settlement", "2019-03-01T11:00:00+08:00", "2019-03-01T11:20:00+08:00", 1,
               "1200", "5.03", "5.03", "0", "5.03");
  CHECK(c[1].instance_type == "GN8.LARGE56");
  CHECK_CHARGE(c[2], "settlement", "2019-03-01T11:20:00+08:00", "2019-03-01T12:00:00+08:00", 1,
               "2400", "20.586666666667", "20.59", "0.003333333333", "20.59");
  CHECK(c[2].instance_type == "GN8.3XLARGE112");
  CHECK(c[2].unit_price == "30.88");
  CHECK(c[2].event_seqs == "3");  // the resize
  const auto m = fx.movements("acme");
  CHECK(m.back().balance_after == "959.29");  // 1000 − 15.09 − 5.03 − 20.59
}

TEST_CASE("Tencent spot: billed like payg at the spot price", "[replay][tencent]") {
  ReplayFixture fx;
  // 3.10/h: two full hours (one line, repeat 2), then 900 s: 3.1 × 900 / 3600 = 0.775 → 0.78.
  fx.replay_text(R"(
{"id":"c1","time":"2019-05-01T10:00:00+08:00","type":"create","account":"acme","instance":"s","provider":"tencent","region":"ap-guangzhou","instance_type":"GN8.LARGE56","mode":"spot"}
{"id":"d1","time":"2019-05-01T12:15:00+08:00","type":"destroy","account":"acme","instance":"s"}
)",
                 until("2019-05-01T13:00:00+08:00"));
  const auto c = fx.charges();
  REQUIRE(c.size() == 2);
  CHECK_CHARGE(c[0], "settlement", "2019-05-01T10:00:00+08:00", "2019-05-01T12:00:00+08:00", 2,
               "3600", "3.1", "3.10", "0", "6.20");
  CHECK_CHARGE(c[1], "settlement", "2019-05-01T12:00:00+08:00", "2019-05-01T12:15:00+08:00", 1,
               "900", "0.775", "0.78", "0.005", "0.78");
  CHECK(c[0].mode == "spot");
  CHECK(c[0].price_id == fx.price_id("tencent", "GN8.LARGE56", "spot", "2017-01-01"));
}

TEST_CASE("Tencent prepaid bought on Jan 31 expires on Feb 28; 7 recycle-bin days in 2019",
          "[replay][tencent]") {
  ReplayFixture fx;
  // 1 month × 4400, no term discount for 1 month: 4400.00. Expiry = Jan 31 10:00 + 1 month,
  // clamped: Feb 28 10:00. Not renewed: recycle bin for 7 natural days (Mar 1 … Mar 7), destroyed
  // at 00:00 on day 8, Mar 8. Starting it in the recycle bin is rejected.
  const auto r = fx.replay_text(R"(
{"id":"t1","time":"2019-01-31T09:00:00+08:00","type":"topup","account":"acme","amount":"5000.00","currency":"CNY"}
{"id":"c1","time":"2019-01-31T10:00:00+08:00","type":"create","account":"acme","instance":"p","provider":"tencent","region":"ap-guangzhou","instance_type":"GN8.LARGE56","mode":"prepaid","months":1}
{"id":"s1","time":"2019-03-01T12:00:00+08:00","type":"start","account":"acme","instance":"p"}
)",
                                until("2019-03-09T00:00:00+08:00"));
  CHECK(r.rejected == 1);
  const auto c = fx.charges();
  REQUIRE(c.size() == 1);
  CHECK_CHARGE(c[0], "prepaid_order", "2019-01-31T10:00:00+08:00", "2019-02-28T10:00:00+08:00", 1,
               "1", "4400", "4400.00", "0", "4400.00");
  CHECK(c[0].unit == "month");
  CHECK(c[0].unit_price == "4400");
  CHECK(c[0].discount_id == 0);
  CHECK(c[0].price_id == fx.price_id("tencent", "GN8.LARGE56", "prepaid", "2017-12-31"));
  const auto m = fx.movements("acme");
  REQUIRE(m.size() == 2);
  CHECK(m[1].amount == "-4400");
  CHECK(m[1].balance_after == "600");
  const auto s = fx.states("p");
  REQUIRE(s.size() == 3);
  CHECK(s[1].state == "recycle_bin");
  CHECK(s[1].at == secs("2019-02-28T10:00:00+08:00"));
  CHECK(s[2].state == "destroyed");
  CHECK(s[2].at == secs("2019-03-08T00:00:00+08:00"));
  const auto rej = fx.rejects();
  REQUIRE(rej.size() == 1);
  CHECK(rej[0].kind == "rule");
  CHECK(rej[0].line == 4);
  CHECK(rej[0].reason.find("recycle bin") != std::string::npos);
}

TEST_CASE("Tencent prepaid bought on Feb 29 2020; 15 recycle-bin days from 2020",
          "[replay][tencent]") {
  ReplayFixture fx;
  // 12 months with the 1-year discount: 4400 × 12 = 52800 × 0.83 = 43824.00; expiry
  // Feb 29 2020 + 12 months = Feb 28 2021 (clamped); recycle bin 15 days → destroyed at 00:00
  // on Mar 16 2021. And 1 month from Feb 29 2020 → Mar 29 2020 → destroyed 00:00 Apr 14 2020.
  // Balance: 50000 − 43824 − 4400 = 1776.
  fx.replay_text(R"(
{"id":"t1","time":"2020-02-29T09:00:00+08:00","type":"topup","account":"acme","amount":"50000","currency":"CNY"}
{"id":"c1","time":"2020-02-29T12:00:00+08:00","type":"create","account":"acme","instance":"year","provider":"tencent","region":"ap-guangzhou","instance_type":"GN8.LARGE56","mode":"prepaid","months":12}
{"id":"c2","time":"2020-02-29T12:00:00+08:00","type":"create","account":"acme","instance":"month","provider":"tencent","region":"ap-guangzhou","instance_type":"GN8.LARGE56","mode":"prepaid","months":1}
)",
                 until("2021-03-17T00:00:00+08:00"));
  const auto year = fx.charges("instance = 'year'");
  REQUIRE(year.size() == 1);
  CHECK_CHARGE(year[0], "prepaid_order", "2020-02-29T12:00:00+08:00", "2021-02-28T12:00:00+08:00",
               1, "12", "43824", "43824.00", "0", "43824.00");
  CHECK(year[0].discount_id != 0);
  CHECK(fx.count("SELECT COUNT(*) FROM discount WHERE id = " + std::to_string(year[0].discount_id) +
                 " AND factor = '0.83'") == 1);
  const auto month = fx.charges("instance = 'month'");
  REQUIRE(month.size() == 1);
  CHECK(month[0].end == secs("2020-03-29T12:00:00+08:00"));
  auto s = fx.states("year");
  REQUIRE(s.size() == 3);
  CHECK(s[1].at == secs("2021-02-28T12:00:00+08:00"));
  CHECK(s[1].state == "recycle_bin");
  CHECK(s[2].at == secs("2021-03-16T00:00:00+08:00"));
  CHECK(s[2].state == "destroyed");
  s = fx.states("month");
  REQUIRE(s.size() == 3);
  CHECK(s[2].at == secs("2020-04-14T00:00:00+08:00"));
  CHECK(fx.movements("acme").back().balance_after == "1776");
}

TEST_CASE("Tencent recycle bin: 7 natural days in 2018, 15 in 2021", "[replay][tencent]") {
  ReplayFixture fx;
  // Expiry Jun 10 15:00 in both years; destroyed at 00:00 on Jun 18 (2018: days Jun 11–17) and
  // on Jun 26 (2021: days Jun 11–25).
  fx.replay_text(R"(
{"id":"t1","time":"2018-05-10T09:00:00+08:00","type":"topup","account":"a2018","amount":"4400","currency":"CNY"}
{"id":"c1","time":"2018-05-10T15:00:00+08:00","type":"create","account":"a2018","instance":"p","provider":"tencent","region":"ap-guangzhou","instance_type":"GN8.LARGE56","mode":"prepaid","months":1}
{"id":"t1","time":"2021-05-10T09:00:00+08:00","type":"topup","account":"a2021","amount":"4400","currency":"CNY"}
{"id":"c1","time":"2021-05-10T15:00:00+08:00","type":"create","account":"a2021","instance":"q","provider":"tencent","region":"ap-guangzhou","instance_type":"GN8.LARGE56","mode":"prepaid","months":1}
)",
                 until("2021-07-01T00:00:00+08:00"));
  auto s = fx.states("p");
  REQUIRE(s.size() == 3);
  CHECK(s[1].at == secs("2018-06-10T15:00:00+08:00"));
  CHECK(s[1].reason.find("for 7 day(s)") != std::string::npos);
  CHECK(s[2].at == secs("2018-06-18T00:00:00+08:00"));
  s = fx.states("q");
  REQUIRE(s.size() == 3);
  CHECK(s[1].reason.find("for 15 day(s)") != std::string::npos);
  CHECK(s[2].at == secs("2021-06-26T00:00:00+08:00"));
}

TEST_CASE("Tencent renewal from the recycle bin starts at the old expiry", "[replay][tencent]") {
  ReplayFixture fx;
  // Expired Jun 10 15:00 into the recycle bin; renewed on Jun 13 for 1 month: the new term is
  // [Jun 10 15:00, Jul 10 15:00), not from Jun 13. It runs again; at Jul 10 it expires again and
  // is destroyed at 00:00 on Jul 18. A start while in the bin (Jun 12) is rejected.
  const auto r = fx.replay_text(R"(
{"id":"t1","time":"2018-05-10T09:00:00+08:00","type":"topup","account":"acme","amount":"10000","currency":"CNY"}
{"id":"c1","time":"2018-05-10T15:00:00+08:00","type":"create","account":"acme","instance":"p","provider":"tencent","region":"ap-guangzhou","instance_type":"GN8.LARGE56","mode":"prepaid","months":1}
{"id":"s1","time":"2018-06-12T10:00:00+08:00","type":"start","account":"acme","instance":"p"}
{"id":"r1","time":"2018-06-13T11:00:00+08:00","type":"renew","account":"acme","instance":"p","months":1}
)",
                                until("2018-07-20T00:00:00+08:00"));
  CHECK(r.rejected == 1);
  const auto c = fx.charges();
  REQUIRE(c.size() == 2);
  CHECK_CHARGE(c[1], "renewal", "2018-06-10T15:00:00+08:00", "2018-07-10T15:00:00+08:00", 1, "1",
               "4400", "4400.00", "0", "4400.00");
  CHECK(c[1].event_seqs == "4");
  CHECK(c[1].price_id == fx.price_id("tencent", "GN8.LARGE56", "prepaid", "2017-12-31"));
  const auto s = fx.states("p");
  REQUIRE(s.size() == 5);
  CHECK(s[1].state == "recycle_bin");
  CHECK(s[2].state == "running");
  CHECK(s[2].at == secs("2018-06-13T11:00:00+08:00"));
  CHECK(s[2].reason.rfind("renewal: from the recycle bin", 0) == 0);
  CHECK(s[3].state == "recycle_bin");
  CHECK(s[3].at == secs("2018-07-10T15:00:00+08:00"));
  CHECK(s[4].state == "destroyed");
  CHECK(s[4].at == secs("2018-07-18T00:00:00+08:00"));
  CHECK(fx.movements("acme").back().balance_after == "1200");
}

TEST_CASE("Tencent auto-renewal on the expiry day, and none when the balance is short",
          "[replay][tencent]") {
  ReplayFixture fx;
  // Order Jan 31 (4400, balance 4600). At expiry Feb 28 10:00 auto-renew 1 month at the price
  // then in force: 4400 for [Feb 28 10:00, Mar 28 10:00), balance 200. At Mar 28 10:00 the
  // balance (200) does not cover 4400: no renewal; it expires into the recycle bin and is
  // destroyed at 00:00 on Apr 5.
  fx.replay_text(R"(
{"id":"t1","time":"2019-01-31T09:00:00+08:00","type":"topup","account":"acme","amount":"9000","currency":"CNY"}
{"id":"c1","time":"2019-01-31T10:00:00+08:00","type":"create","account":"acme","instance":"p","provider":"tencent","region":"ap-guangzhou","instance_type":"GN8.LARGE56","mode":"prepaid","months":1,"auto_renew":true}
)",
                 until("2019-04-06T00:00:00+08:00"));
  const auto c = fx.charges();
  REQUIRE(c.size() == 2);
  CHECK_CHARGE(c[1], "auto_renewal", "2019-02-28T10:00:00+08:00", "2019-03-28T10:00:00+08:00", 1,
               "1", "4400", "4400.00", "0", "4400.00");
  CHECK(c[1].event_seqs == "2");  // the create that asked for auto-renewal
  const auto m = fx.movements("acme");
  REQUIRE(m.size() == 3);
  CHECK(m[2].at == secs("2019-02-28T10:00:00+08:00"));
  CHECK(m[2].balance_after == "200");
  const auto s = fx.states("p");
  REQUIRE(s.size() == 5);
  CHECK(s[1].reason.rfind("auto_renewal:", 0) == 0);
  CHECK(s[2].reason.rfind("auto_renewal_failed: insufficient balance", 0) == 0);
  CHECK(s[2].at == secs("2019-03-28T10:00:00+08:00"));
  CHECK(s[3].state == "recycle_bin");
  CHECK(s[4].state == "destroyed");
  CHECK(s[4].at == secs("2019-04-05T00:00:00+08:00"));
}

TEST_CASE("Tencent prepaid GPU instances cannot be destroyed before expiry", "[replay][tencent]") {
  ReplayFixture fx;
  const auto r = fx.replay_text(R"(
{"id":"t1","time":"2019-03-01T09:00:00+08:00","type":"topup","account":"acme","amount":"4400","currency":"CNY"}
{"id":"c1","time":"2019-03-01T10:00:00+08:00","type":"create","account":"acme","instance":"p","provider":"tencent","region":"ap-guangzhou","instance_type":"GN8.LARGE56","mode":"prepaid","months":1}
{"id":"d1","time":"2019-03-02T10:00:00+08:00","type":"destroy","account":"acme","instance":"p"}
{"id":"c2","time":"2019-03-02T11:00:00+08:00","type":"create","account":"acme","instance":"q","provider":"tencent","region":"ap-guangzhou","instance_type":"GN8.LARGE56","mode":"prepaid","months":1}
)");
  CHECK(r.rejected == 2);
  const auto rej = fx.rejects();
  REQUIRE(rej.size() == 2);
  CHECK(rej[0].event_id == "d1");
  CHECK(rej[0].reason.rfind("prepaid GPU instances cannot be destroyed before expiry (policy " +
                                std::to_string(fx.policy_id("tencent", "2017-01-01")) +
                                ": prepaid_destroy_before_expiry is false, which applies to "
                                "instance types with GPUs)",
                            0) == 0);
  CHECK(rej[1].reason.rfind("insufficient balance", 0) == 0);  // balance 0 after the first order
  CHECK(fx.states("p").back().state == "running");
  CHECK(fx.count("SELECT COUNT(*) FROM event WHERE status = 'rejected'") == 2);
  CHECK(fx.count("SELECT COUNT(*) FROM charge") == 1);
}

TEST_CASE("Tencent arrears: negative at a settlement, 2 h grace, shutdown, reclaim after 24 h",
          "[replay][tencent]") {
  ReplayFixture fx;
  // Balance 20.00; full hours of 15.09 from 10:00: 11:00 → 4.91; 12:00 → −10.18 (negative since
  // 12:00). The instance keeps running and billing for 2 h: 13:00 → −25.27, 14:00 → −40.36, then
  // it is shut down at 14:00 (billing stops) and reclaimed 24 h later (next day 14:00). The four
  // identical hours are one line: [10:00, 14:00) repeat 4, total 60.36, debited at 14:00.
  // A start at 15:00 without a top-up is rejected.
  const auto r = fx.replay_text(R"(
{"id":"t1","time":"2019-03-01T09:00:00+08:00","type":"topup","account":"acme","amount":"20.00","currency":"CNY"}
{"id":"c1","time":"2019-03-01T10:00:00+08:00","type":"create","account":"acme","instance":"g","provider":"tencent","region":"ap-guangzhou","instance_type":"GN8.LARGE56","mode":"payg"}
{"id":"s1","time":"2019-03-01T15:00:00+08:00","type":"start","account":"acme","instance":"g"}
)",
                                until("2019-03-02T15:00:00+08:00"));
  CHECK(r.rejected == 1);
  const auto c = fx.charges();
  REQUIRE(c.size() == 1);
  CHECK_CHARGE(c[0], "settlement", "2019-03-01T10:00:00+08:00", "2019-03-01T14:00:00+08:00", 4,
               "3600", "15.09", "15.09", "0", "60.36");
  const auto m = fx.movements("acme");
  REQUIRE(m.size() == 2);
  CHECK(m[1].at == secs("2019-03-01T14:00:00+08:00"));
  CHECK(m[1].amount == "-60.36");
  CHECK(m[1].balance_after == "-40.36");
  const auto s = fx.states("g");
  REQUIRE(s.size() == 4);
  CHECK(s[1].at == secs("2019-03-01T12:00:00+08:00"));
  CHECK(s[1].reason.rfind("arrears: the CNY balance is -10.18 CNY; shut down at "
                          "2019-03-01T06:00:00Z",
                          0) == 0);
  CHECK(s[2].state == "arrears_stopped");
  CHECK(s[2].at == secs("2019-03-01T14:00:00+08:00"));
  CHECK(s[3].state == "destroyed");
  CHECK(s[3].at == secs("2019-03-02T14:00:00+08:00"));
  CHECK(s[3].reason.rfind("reclaim", 0) == 0);
}

TEST_CASE("Tencent arrears: a top-up during the grace period cancels the shutdown",
          "[replay][tencent]") {
  ReplayFixture fx;
  // As above until 13:00 (−25.27). A top-up of 50 at 13:30 brings it to 24.73 ≥ 0: no shutdown.
  // 14:00 → 9.64; 15:00 → −5.45: negative again, shutdown due at 17:00 — but the instance is
  // destroyed at 16:30. Lines: [10:00, 16:00) repeat 6 = 90.54, then [16:00, 16:30) 7.55.
  // Movements: the top-up first debits the three hours settled so far (−45.27 at 13:00 →
  // −25.27), then credits 50 (→ 24.73); the run's other three hours at 16:00 (→ −20.54); the
  // last half hour at 17:00 (→ −28.09).
  fx.replay_text(R"(
{"id":"t1","time":"2019-03-01T09:00:00+08:00","type":"topup","account":"acme","amount":"20.00","currency":"CNY"}
{"id":"c1","time":"2019-03-01T10:00:00+08:00","type":"create","account":"acme","instance":"g","provider":"tencent","region":"ap-guangzhou","instance_type":"GN8.LARGE56","mode":"payg"}
{"id":"t2","time":"2019-03-01T13:30:00+08:00","type":"topup","account":"acme","amount":"50.00","currency":"CNY"}
{"id":"d1","time":"2019-03-01T16:30:00+08:00","type":"destroy","account":"acme","instance":"g"}
)",
                 until("2019-03-01T18:00:00+08:00"));
  const auto c = fx.charges();
  REQUIRE(c.size() == 2);
  CHECK_CHARGE(c[0], "settlement", "2019-03-01T10:00:00+08:00", "2019-03-01T16:00:00+08:00", 6,
               "3600", "15.09", "15.09", "0", "90.54");
  CHECK_CHARGE(c[1], "settlement", "2019-03-01T16:00:00+08:00", "2019-03-01T16:30:00+08:00", 1,
               "1800", "7.545", "7.55", "0.005", "7.55");
  const auto m = fx.movements("acme");
  REQUIRE(m.size() == 5);
  CHECK(m[1].amount == "-45.27");
  CHECK(m[1].at == secs("2019-03-01T13:00:00+08:00"));
  CHECK(m[1].balance_after == "-25.27");
  CHECK(m[2].kind == "topup");
  CHECK(m[2].balance_after == "24.73");
  CHECK(m[3].amount == "-45.27");
  CHECK(m[3].at == secs("2019-03-01T16:00:00+08:00"));
  CHECK(m[3].balance_after == "-20.54");
  CHECK(m[4].balance_after == "-28.09");
  CHECK(m[1].charge_id == m[3].charge_id);  // two segments of one run
  const auto s = fx.states("g");
  REQUIRE(s.size() == 5);
  CHECK(s[1].reason.rfind("arrears:", 0) == 0);
  CHECK(s[1].at == secs("2019-03-01T12:00:00+08:00"));
  CHECK(s[2].reason.rfind("arrears_cleared:", 0) == 0);
  CHECK(s[2].at == secs("2019-03-01T13:30:00+08:00"));
  CHECK(s[3].reason.rfind("arrears:", 0) == 0);
  CHECK(s[3].at == secs("2019-03-01T15:00:00+08:00"));
  CHECK(s[4].state == "destroyed");
  CHECK(s[4].reason == "destroy");
}

TEST_CASE("Tencent arrears: after the shutdown a top-up lets a start work again",
          "[replay][tencent]") {
  ReplayFixture fx;
  // Shut down at 14:00 (as above, −40.36). A top-up of 100 at 15:00 → 59.64 > 0 cancels the
  // reclaim; the start at 15:30 is accepted: 15:30–16:00 is 1800 s → 7.55 (balance 52.09).
  const auto r = fx.replay_text(R"(
{"id":"t1","time":"2019-03-01T09:00:00+08:00","type":"topup","account":"acme","amount":"20.00","currency":"CNY"}
{"id":"c1","time":"2019-03-01T10:00:00+08:00","type":"create","account":"acme","instance":"g","provider":"tencent","region":"ap-guangzhou","instance_type":"GN8.LARGE56","mode":"payg"}
{"id":"t2","time":"2019-03-01T15:00:00+08:00","type":"topup","account":"acme","amount":"100.00","currency":"CNY"}
{"id":"s1","time":"2019-03-01T15:30:00+08:00","type":"start","account":"acme","instance":"g"}
{"id":"d1","time":"2019-03-01T16:00:00+08:00","type":"destroy","account":"acme","instance":"g"}
)",
                                until("2019-03-03T00:00:00+08:00"));
  CHECK(r.rejected == 0);
  const auto c = fx.charges();
  REQUIRE(c.size() == 2);
  CHECK_CHARGE(c[1], "settlement", "2019-03-01T15:30:00+08:00", "2019-03-01T16:00:00+08:00", 1,
               "1800", "7.545", "7.55", "0.005", "7.55");
  CHECK(fx.movements("acme").back().balance_after == "52.09");
  const auto s = fx.states("g");
  REQUIRE(s.size() == 6);
  CHECK(s[2].state == "arrears_stopped");
  CHECK(s[3].reason.rfind("arrears_cleared", 0) == 0);
  CHECK(s[4].reason == "start: after the arrears shutdown");
  CHECK(s[5].reason == "destroy");
}
