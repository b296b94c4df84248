// Baidu AI Cloud's worked examples of returning and renewing prepaid BCC, end to end through the
// CLI. Baidu's BCC prepaid prices are not in the bundled catalog:
// tests/data/baidu-doc-examples.json holds an instance at the example's 45 CNY a month.
#include <catch2/catch.hpp>

#include "provider_example.hpp"

using gpubill::testing::ExampleRun;
using gpubill::testing::same_instant;

TEST_CASE("Baidu refund example: (24 days / 31 days) × 45 CNY = 34.84",
          "[provider_examples][baidu][refund]") {
  // intl.cloud.baidu.com/doc/Finance/s/ajwvysqm9-en ("Refund Summary", read 2026): "If you
  // purchase the prepayment service of the Baidu Cloud Compute (BCC) for one month at 11:00 on
  // January 10, 2016, and it costs 45 CNY in cash. When the refund review is passed at 15:00 on
  // January 16, the refund amount = (24 days / 31 days) * 45 CNY = 34.84 CNY."
  // The bundled Baidu policy rows start 2017-01-01: replayed one year later on the same calendar
  // days (2017-01-10 11:00 → 2017-01-16 15:00, a 31-day month again).
  ExampleRun ex;
  ex.import("baidu-doc-examples.json");
  ex.replay(
      R"({"id":"t1","time":"2017-01-10T10:00:00+08:00","type":"topup","account":"acme","amount":"100.00","currency":"CNY"}
{"id":"c1","time":"2017-01-10T11:00:00+08:00","type":"create","account":"acme","instance":"b","provider":"baidu","region":"bj","instance_type":"bcc.doc.example","mode":"prepaid","months":1}
{"id":"d1","time":"2017-01-16T15:00:00+08:00","type":"destroy","account":"acme","instance":"b"}
)",
      "2017-02-01T00:00:00+08:00");
  const auto refunds = ex.instance_charges("b", "refund");
  REQUIRE(refunds.size() == 1);
  const std::string note = refunds[0].at("note");
  INFO(note);
  CHECK(note.find("7 day(s) used / 31 day(s) ordered") != std::string::npos);
  CHECK(refunds[0].at("billed_amount") == "-34.84");
}

TEST_CASE("Baidu renewal example: auto-renewal is charged 7 days before the expiry",
          "[provider_examples][baidu][renewal]") {
  // cloud.baidu.com/doc/Finance/s/gjwvysrlu (自动续费, read 2026):
  // "您于2020年7月10日10:00购买了为期
  // 一个月的弹性公网EIP服务并开通自动续费，该服务将于2020年8月10日10:00到期，系统将于2020年8月3日进行
  // 自动扣款". The example is an EIP; the rule is the billing center's for prepaid products.
  ExampleRun ex;
  ex.import("baidu-doc-examples.json");
  ex.replay(
      R"({"id":"t1","time":"2020-07-10T09:00:00+08:00","type":"topup","account":"acme","amount":"100.00","currency":"CNY"}
{"id":"c1","time":"2020-07-10T10:00:00+08:00","type":"create","account":"acme","instance":"e","provider":"baidu","region":"bj","instance_type":"bcc.doc.example","mode":"prepaid","months":1,"auto_renew":true}
)",
      "2020-08-05T00:00:00+08:00");
  const auto orders = ex.instance_charges("e", "prepaid_order");
  REQUIRE(orders.size() == 1);
  CHECK(same_instant(orders[0].at("period_end"), "2020-08-10T10:00:00+08:00"));
  const auto renewal = ex.state("e", "auto_renewal");
  REQUIRE(renewal.contains("at"));
  const std::string at = renewal.at("at");
  CHECK(at.rfind("2020-08-0", 0) == 0);
  CHECK(same_instant(renewal.at("at"), "2020-08-03T10:00:00+08:00"));
}
