// Baidu AI Cloud's worked example of upgrading a prepaid BCC, end to end through the CLI.
// tests/data/baidu-doc-examples.json holds the example's two configurations at 45 and 138 CNY a
// month (Baidu's BCC prepaid prices are not in the bundled catalog).
#include <catch2/catch.hpp>

#include "provider_example.hpp"

using gpubill::testing::dec;
using gpubill::testing::ExampleRun;
using gpubill::testing::same_instant;

// cloud.baidu.com/doc/Finance/s/Fjwvyt534-en ("Configuration Upgrade or Degrade", read 2026):
// "The amount payable = (price of new configuration - price of original configuration) ×
// (remaining contract days/total contract days)" — "If you activate the monthly service (1 core
// CPU + 1GB memory) of Baidu AI Cloud service BCC at 10:00 on January 10, 2016, and pay 45 CNY
// for one month and upgrade the configuration to 2 core CPU + 2GB memory (138 CNY/month) on
// January 13, 2016 at 11:00, the amount payable = 138 CNY × (28 days÷31 days) - 45 CNY × (28
// days÷31 days) = 84 CNY." The term runs to 2016-02-10 10:00 (31 days); 27 days 23 hours are
// left, counted as 28. gpubill's former rule (Tencent's: × remaining days / (365/12)) gave 85.48.
// The bundled Baidu policy rows start 2017-01-01: replayed one year later on the same calendar
// days (January again 31 days).
TEST_CASE("Baidu upgrade example: (138 − 45) × 28 days / 31 days = 84",
          "[provider_examples][baidu][upgrade]") {
  ExampleRun ex;
  ex.import("baidu-doc-examples.json");
  ex.replay(
      R"({"id":"t1","time":"2017-01-10T09:00:00+08:00","type":"topup","account":"acme","amount":"200.00","currency":"CNY"}
{"id":"c1","time":"2017-01-10T10:00:00+08:00","type":"create","account":"acme","instance":"u","provider":"baidu","region":"bj","instance_type":"bcc.doc.example","mode":"prepaid","months":1}
{"id":"r1","time":"2017-01-13T11:00:00+08:00","type":"resize","account":"acme","instance":"u","instance_type":"bcc.doc.upgraded"}
)",
      "2017-01-20T00:00:00+08:00");
  const auto orders = ex.instance_charges("u", "prepaid_order");
  REQUIRE(orders.size() == 1);
  CHECK(dec(orders[0].at("total_billed")) == dec("45"));
  CHECK(same_instant(orders[0].at("period_end"), "2017-02-10T10:00:00+08:00"));
  const auto up = ex.instance_charges("u", "upgrade");
  REQUIRE(up.size() == 1);
  INFO(up[0].dump());
  CHECK(dec(up[0].at("quantity")) == dec("28"));
  CHECK(dec(up[0].at("total_billed")) == dec("84"));
  const auto x = ex.explain(up[0].at("id").get<std::int64_t>());
  CHECK(x["check"]["consistent"] == true);
}
