// Tencent's worked examples of upgrading and downgrading a prepaid CVM instance, end to end
// through the CLI. Source: tencentyun/qcloud-documents@02785b13caa52f79e260bbf03a1760b11d8a7a07:
//   product/计算与网络/云服务器/购买指南/实例调整配置费用说明.md (the 2019-12-04 version).
// Downgrade background: 2018-03-01, 广州三区 S2.MEDIUM4, 102 CNY/month, pay-as-you-go
// 0.32 CNY/h, bought for a year at 83折 (1015.92) with a 100 CNY voucher (915.92 cash); the new
// type S2.SMALL2 costs 60 CNY/month; 6–11 months get 88折. The log cannot carry the voucher:
// gpubill's refund is the documented one + 100 (the voucher is not refunded). Prices are the
// document's ("以下价格仅作示例用"), in tests/data/tencent-doc-examples.json.
#include <catch2/catch.hpp>

#include "provider_example.hpp"

using gpubill::testing::ExampleRun;

namespace {

std::string downgrade_log(const char* at) {
  return std::string(
             R"({"id":"t1","time":"2018-03-01T09:00:00+08:00","type":"topup","account":"acme","amount":"5000.00","currency":"CNY"}
{"id":"c1","time":"2018-03-01T10:00:00+08:00","type":"create","account":"acme","instance":"s2","provider":"tencent","region":"ap-guangzhou","instance_type":"S2.MEDIUM4","mode":"prepaid","months":12}
{"id":"r1","time":")") +
         at + R"(","type":"resize","account":"acme","instance":"s2","instance_type":"S2.SMALL2"}
)";
}

std::string downgrade_refund(const char* at) {
  ExampleRun ex;
  ex.import("tencent-doc-examples.json");
  ex.replay(downgrade_log(at), "2019-01-01T00:00:00+08:00");
  const auto refunds = ex.instance_charges("s2", "refund");
  REQUIRE(refunds.size() == 1);
  const std::string note = refunds[0].at("note");
  CHECK(note.find("rules::downgrade_refund") != std::string::npos);
  // `explain` names the rule and its source (the policy row's prepaid_lifecycle.source).
  const std::string why = ex.explain_text(refunds[0].at("id").get<std::int64_t>());
  CHECK(why.find("rules::downgrade_refund") != std::string::npos);
  CHECK(why.find("实例调整配置费用说明.md") != std::string::npos);
  return refunds[0].at("billed_amount");
}

}  // namespace

TEST_CASE("Tencent downgrade example 1: 2 months used, 10 left at 88折",
          "[provider_examples][tencent][downgrade]") {
  // 原实例退货费用 = 915.92 - 2 * 102 = 711.92; 新购 = 60 * 10 * 0.88 = 528;
  // 实例降配退款金额 = 711.92 - 528 = 183.92.
  CHECK(downgrade_refund("2018-05-01T10:00:00+08:00") == "-283.92");  // 183.92 + 100
}

TEST_CASE("Tencent downgrade example 2: 8 used months valued at their own discount (88折)",
          "[provider_examples][tencent][downgrade]") {
  // 原实例退货费用 = 915.92 - 8 * 102 * 0.88 = 197.84; 新购 = 60 * 4 = 240; 197.84 - 240 =
  // -42.16 < 0 → no refund. Without the voucher the return is 297.84 and the refund
  // 297.84 − 240 = 57.84 (= −42.16 + 100): the documented case refunds nothing only because
  // 100 of the order was paid by the voucher.
  CHECK(downgrade_refund("2018-11-01T10:00:00+08:00") == "-57.84");
}

TEST_CASE("Tencent downgrade example 3: 3 months and 3 days used, 270 days left",
          "[provider_examples][tencent][downgrade]") {
  // 原实例退货费用 = 915.92 -（3 * 102 + 72 * 0.32）= 586.88; 距离到期日期还有270天;
  // 新购 = 60 * 0.88 *（270/30）= 475.2; 退款 = 586.88 - 475.2 = 111.68.
  CHECK(downgrade_refund("2018-06-04T10:00:00+08:00") == "-211.68");  // 111.68 + 100
}

TEST_CASE("Tencent upgrade example: (218 − 65) × 244 / (365/12) × 0.88 = 1080.07",
          "[provider_examples][tencent][upgrade]") {
  // Background: bought 2016-12-31 (1 core 1 GB, 65 CNY/month), upgraded 2017-05-01 to 2 cores
  // 4 GB (218 CNY/month), 244 days before the expiry; 6–11 months get 88折. Replayed one year
  // later (bought 2017-12-31, upgraded 2018-05-01: the same 244 days) because the bundled
  // Tencent policy rows start on 2017-01-01.
  ExampleRun ex;
  ex.import("tencent-doc-examples.json");
  ex.replay(
      R"({"id":"t1","time":"2017-12-31T09:00:00+08:00","type":"topup","account":"acme","amount":"5000.00","currency":"CNY"}
{"id":"c1","time":"2017-12-31T10:00:00+08:00","type":"create","account":"acme","instance":"u","provider":"tencent","region":"ap-guangzhou","instance_type":"DOC.1C1G","mode":"prepaid","months":12}
{"id":"r1","time":"2018-05-01T10:00:00+08:00","type":"resize","account":"acme","instance":"u","instance_type":"DOC.2C4G"}
)",
      "2018-06-01T00:00:00+08:00");
  const auto up = ex.instance_charges("u", "upgrade");
  REQUIRE(up.size() == 1);
  CHECK(up[0].at("quantity") == std::to_string(244 * 86400));
  CHECK(up[0].at("billed_amount") == "1080.07");
}
