// Tencent's worked examples of returning a prepaid CVM instance, end to end through the CLI.
// Source: tencentyun/qcloud-documents@019a99b596964cb1f67cc67aebe393e9b5ff831e:
//   product/计算与网络/云服务器/购买指南/退还包年包月实例退费说明.md ("CVM 自助退还计费规则示例").
// The example: 广州二区 S1 1 core 1 GB, 51 CNY/month, pay-as-you-go 0.42 CNY/h, bought for a year
// at 83折 (51 × 12 × 0.83 = 507.96) with a 100 CNY voucher, so 407.96 was paid in cash.
// The log cannot carry a voucher: gpubill's figure is the documented one + 100 (the voucher is
// never refunded, so the documented refund is ours less the 100 the voucher paid). The example's
// prices are the document's ("以下价格均做示例用"), in tests/data/tencent-doc-examples.json.
#include <catch2/catch.hpp>

#include "provider_example.hpp"

using gpubill::testing::ExampleRun;

namespace {

const char* const kLog =
    R"({"id":"t1","time":"2019-03-01T09:00:00+08:00","type":"topup","account":"acme","amount":"5000.00","currency":"CNY"}
{"id":"c0","time":"2019-03-01T10:00:00+08:00","type":"create","account":"acme","instance":"first","provider":"tencent","region":"ap-guangzhou","instance_type":"S1.SMALL1","mode":"prepaid","months":12}
{"id":"c1","time":"2019-03-01T10:00:00+08:00","type":"create","account":"acme","instance":"case2","provider":"tencent","region":"ap-guangzhou","instance_type":"S1.SMALL1","mode":"prepaid","months":12}
{"id":"c2","time":"2019-03-01T10:00:00+08:00","type":"create","account":"acme","instance":"case3","provider":"tencent","region":"ap-guangzhou","instance_type":"S1.SMALL1","mode":"prepaid","months":12}
{"id":"d0","time":"2019-03-02T10:00:00+08:00","type":"destroy","account":"acme","instance":"first"}
{"id":"r2","time":"2019-03-02T12:00:00+08:00","type":"renew","account":"acme","instance":"case3","months":12}
{"id":"d1","time":"2019-03-03T10:00:00+08:00","type":"destroy","account":"acme","instance":"case2"}
{"id":"d2","time":"2019-03-03T10:00:00+08:00","type":"destroy","account":"acme","instance":"case3"}
)";

}  // namespace

TEST_CASE("Tencent refund examples: the order is 51 × 12 × 0.83 = 507.96",
          "[provider_examples][tencent][refund]") {
  ExampleRun ex;
  ex.import("tencent-doc-examples.json");
  ex.replay(kLog, "2019-03-04T00:00:00+08:00");
  const auto orders = ex.instance_charges("case2", "prepaid_order");
  REQUIRE(orders.size() == 1);
  CHECK(orders[0].at("billed_amount") == "507.96");  // "折扣金额为 51 * 12 * 0.83 ＝ 507.96"
}

TEST_CASE("Tencent refund example, five-day no-reason return: everything paid comes back",
          "[provider_examples][tencent][refund]") {
  // "五天无理由退还场景 … 退费金额 = 真实支付价407.96元" (+ the 100 voucher the log cannot carry).
  ExampleRun ex;
  ex.import("tencent-doc-examples.json");
  ex.replay(kLog, "2019-03-04T00:00:00+08:00");
  const auto refunds = ex.instance_charges("first", "refund");
  REQUIRE(refunds.size() == 1);
  CHECK(refunds[0].at("billed_amount") == "-507.96");
}

TEST_CASE("Tencent refund example case 2: 48 h used, the account's no-reason return already used",
          "[provider_examples][tencent][refund]") {
  // "购买五天内，且不是该账户首次退还，总使用时长48小时。退还现金金额 = 407.96 - 48 * 0.42 =
  // 387.8": one no-reason return per account (instance 'first' took it), so this is an ordinary
  // return.
  ExampleRun ex;
  ex.import("tencent-doc-examples.json");
  ex.replay(kLog, "2019-03-04T00:00:00+08:00");
  const auto refunds = ex.instance_charges("case2", "refund");
  REQUIRE(refunds.size() == 1);
  CHECK(refunds[0].at("billed_amount") ==
        "-487.8");  // 387.80 + the 100 voucher (JSON writes the shortest exact text)
  const std::string note = refunds[0].at("note");
  CHECK(note.find("rules::prepaid_return") != std::string::npos);
  CHECK(note.find("172800 s at 0.42 CNY/h") != std::string::npos);
  CHECK(note.find("退还包年包月实例退费说明.md") != std::string::npos);  // the rule's source
}

TEST_CASE("Tencent refund example case 3: a renewal not yet started is refunded whole",
          "[provider_examples][tencent][refund]") {
  // "其中又续费1年 … 退还现金金额 = 407.96 - 0.42 * 48 + 507.96 = 895.76".
  ExampleRun ex;
  ex.import("tencent-doc-examples.json");
  ex.replay(kLog, "2019-03-04T00:00:00+08:00");
  REQUIRE(ex.instance_charges("case3", "renewal").size() == 1);
  const auto refunds = ex.instance_charges("case3", "refund");
  REQUIRE(refunds.size() == 1);
  CHECK(refunds[0].at("billed_amount") == "-995.76");  // 895.76 + the 100 voucher
}
