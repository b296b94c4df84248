// Huawei's own worked examples of pay-per-use metering and hourly bill cycles, end to end
// through the CLI. Prices not in the bundled catalog come from tests/data/huawei-examples.json,
// which carries the examples' documented unit prices.
#include <catch2/catch.hpp>

#include "provider_example.hpp"

using gpubill::Decimal;
using gpubill::testing::dec;
using gpubill::testing::ExampleRun;

namespace {

const char* kTopup =
    R"({"id":"t1","time":"2023-03-01T07:00:00+08:00","type":"topup","account":"hw","amount":"100","currency":"CNY"})"
    "\n";

std::string run_log(const std::string& from, const std::string& to) {
  return std::string(kTopup) + R"({"id":"c1","time":")" + from +
         R"(","type":"create","account":"hw","instance":"i","provider":"huawei","region":"cn-north-4","instance_type":"example.payg","mode":"payg"})"
         "\n" +
         R"({"id":"d1","time":")" + to +
         R"(","type":"destroy","account":"hw","instance":"i"})"
         "\n";
}

}  // namespace

// huaweicloudDocs/ecs@bd661adb110759e723670de9a42c649b43cf94ac:cn.zh-cn/用户指南/按需计费.md
// (2024-04-18), 计费样例: "某一按需实例价格为0.68元/小时 … 使用30分钟，根据实际使用时长按秒计费：
// (0.68/3600) × 30 × 60=0.34元".
TEST_CASE("huawei example: 30 minutes of a 0.68 CNY/h instance cost 0.34",
          "[provider_examples][huawei][metering]") {
  ExampleRun run;
  run.import("huawei-examples.json");
  run.replay(run_log("2023-03-01T10:00:00+08:00", "2023-03-01T10:30:00+08:00"),
             "2023-03-02T00:00:00+08:00");
  CHECK(run.billed("hw", "compute") == dec("0.34"));
}

// The same document: "使用1小时30分钟，根据实际使用时长按秒计费：(0.68/3600) × 90 × 60=1.02元".
TEST_CASE("huawei example: 1 hour 30 minutes of a 0.68 CNY/h instance cost 1.02",
          "[provider_examples][huawei][metering]") {
  ExampleRun run;
  run.import("huawei-examples.json");
  run.replay(run_log("2023-03-01T10:15:00+08:00", "2023-03-01T11:45:00+08:00"),
             "2023-03-02T00:00:00+08:00");
  CHECK(run.billed("hw", "compute") == dec("1.02"));
  // Two hourly usage records, cut on the hour (UTC+8): 45 min and 45 min.
  const auto rows = run.settlements("hw");
  REQUIRE(rows.size() == 2);
  CHECK(dec(rows[0]["quantity"]) == dec("2700"));
  CHECK(dec(rows[1]["quantity"]) == dec("2700"));
}

// support.huaweicloud.com/price-dcs/dcs_04_0015.html (费用账单, 场景示例): an instance bought at
// 2023/07/13 10:09:06 and deleted at 12:53:16 "按秒计费，每一个小时整点结算一次费用 … 将生成3笔流水
// 账单 … 2023/07/13 10:09:06 ~ 11:00:00, 11:00:00 ~ 12:00:00, 12:00:00 ~ 12:53:16 …
// 在第一个计费周期 缓存实例的使用量为3054秒". The document's unit price is not needed for the
// cycles.
TEST_CASE("huawei example: 10:09:06 to 12:53:16 is three hourly bills, the first of 3054 s",
          "[provider_examples][huawei][metering]") {
  ExampleRun run;
  run.import("huawei-examples.json");
  run.replay(run_log("2023-07-13T10:09:06+08:00", "2023-07-13T12:53:16+08:00"),
             "2023-07-14T00:00:00+08:00");
  const auto rows = run.settlements("hw");
  REQUIRE(rows.size() == 3);
  CHECK(rows[0]["period_start"] == "2023-07-13T02:09:06Z");
  CHECK(rows[0]["period_end"] == "2023-07-13T03:00:00Z");
  CHECK(dec(rows[0]["quantity"]) == dec("3054"));
  CHECK(dec(rows[1]["quantity"]) == dec("3600"));
  CHECK(rows[2]["period_end"] == "2023-07-13T04:53:16Z");
  CHECK(dec(rows[2]["quantity"]) == dec("3196"));
}
