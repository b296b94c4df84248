// Tencent's pay-as-you-go metering and rounding, end to end through the CLI on the bundled
// catalog (GN8.LARGE56 in ap-guangzhou at 15.09 CNY/h in 2019).
#include <catch2/catch.hpp>

#include "provider_example.hpp"

using gpubill::testing::dec;
using gpubill::testing::ExampleRun;

// tencentyun/qcloud-documents@1195a72f423ebd1af88a6b114c338d15cb9f8cde:product/计算与网络/云服务器/
// 购买指南/购买实例/计费模式.md: "每个整点（北京时间）进行一次结算 … 结算时按实际使用秒数计价，费用
// 四舍五入，精确到小数点后2位". 10:30–11:00 is 1800 s: 15.09 × 1800 / 3600 = 7.545 → 7.55
// (half up; Huawei's and Alibaba's truncation gives 7.54); 11:00–11:00:01 is 1 s: 0.004191… → 0.
TEST_CASE("tencent: each hour on the hour (UTC+8), by the second, rounded half up to 0.01",
          "[provider_examples][tencent][metering]") {
  ExampleRun run;
  run.replay(
      R"({"id":"t1","time":"2019-03-01T09:00:00+08:00","type":"topup","account":"tc","amount":"100","currency":"CNY"}
{"id":"c1","time":"2019-03-01T10:30:00+08:00","type":"create","account":"tc","instance":"i","provider":"tencent","region":"ap-guangzhou","instance_type":"GN8.LARGE56","mode":"payg"}
{"id":"d1","time":"2019-03-01T11:00:01+08:00","type":"destroy","account":"tc","instance":"i"}
)",
      "2019-03-02T00:00:00+08:00");
  const auto rows = run.settlements("tc");
  REQUIRE(rows.size() == 2);
  CHECK(dec(rows[0]["quantity"]) == dec("1800"));
  CHECK(dec(rows[0]["exact_amount"]) == dec("7.545"));
  CHECK(dec(rows[0]["billed_amount"]) == dec("7.55"));
  CHECK(dec(rows[1]["quantity"]) == dec("1"));
  CHECK(dec(rows[1]["billed_amount"]) == dec("0"));
  const auto x = run.explain(rows[0]["id"].get<std::int64_t>());
  CHECK(x["rule"]["rule"].get<std::string>().find("rules::usage_record") != std::string::npos);
  CHECK(x["rule"]["source"].get<std::string>().find("计费模式.md") != std::string::npos);
}
