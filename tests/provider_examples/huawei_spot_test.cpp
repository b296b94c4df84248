// Huawei's spot (竞价计费型) example, end to end through the CLI: each hourly bill cycle is
// priced at the market price at its start, a partial cycle per second. The market prices are the
// example's (tests/data/huawei-examples.json).
#include <catch2/catch.hpp>

#include "provider_example.hpp"

using gpubill::testing::dec;
using gpubill::testing::ExampleRun;

// huaweicloudDocs/ecs@bd661adb110759e723670de9a42c649b43cf94ac:cn.zh-cn/用户指南/竞价计费型实例.md
// (in the repository from 2021-04-25), 样例1: market price 0.02 at 8:30, 0.03 at 9:00, 0.04 at
// 10:00, 0.05 at 10:30 (above the bid: released). "8:30~9:00 使用30分钟，按秒计费=0.02/3600*30*60
// =0.01元; 9:00~10:00 使用1小时，按9:00起始成交价0.03元/小时，计费=0.03元; 10:00~10:30 使用30分钟，
// 按秒计费=0.04/3600*30*60=0.02元; 合计0.06元".
TEST_CASE("huawei example: a spot instance 8:30 to 10:30 costs 0.01 + 0.03 + 0.02 = 0.06",
          "[provider_examples][huawei][spot]") {
  ExampleRun run;
  run.import("huawei-examples.json");
  run.replay(
      R"({"id":"t1","time":"2023-03-01T08:00:00+08:00","type":"topup","account":"hw","amount":"10","currency":"CNY"}
{"id":"c1","time":"2023-03-01T08:30:00+08:00","type":"create","account":"hw","instance":"s","provider":"huawei","region":"cn-north-4","instance_type":"example.spot","mode":"spot"}
{"id":"d1","time":"2023-03-01T10:30:00+08:00","type":"destroy","account":"hw","instance":"s"}
)",
      "2023-03-02T00:00:00+08:00");
  const auto rows = run.settlements("hw");
  REQUIRE(rows.size() == 3);
  CHECK(dec(rows[0]["unit_price"]) == dec("0.02"));
  CHECK(dec(rows[0]["total_billed"]) == dec("0.01"));
  CHECK(dec(rows[1]["unit_price"]) == dec("0.03"));
  CHECK(dec(rows[1]["total_billed"]) == dec("0.03"));
  CHECK(dec(rows[2]["unit_price"]) == dec("0.04"));
  CHECK(dec(rows[2]["total_billed"]) == dec("0.02"));
  CHECK(run.billed("hw") == dec("0.06"));
}

// The same rule when the price changes inside an hour (a test-fixture change at 09:20, not from
// the document): "按9:00起始成交价" — the 9:00–10:00 cycle is priced at 9:00's price whole
// (policy spot_price_basis hour_start), not 0.05 for 20 min and 0.09 for 40 min.
TEST_CASE("huawei: a spot price change inside an hour applies from the next hour",
          "[provider_examples][huawei][spot]") {
  ExampleRun run;
  run.import("huawei-examples.json");
  run.replay(
      R"({"id":"c1","time":"2023-03-02T09:00:00+08:00","type":"create","account":"hw","instance":"s","provider":"huawei","region":"cn-north-4","instance_type":"example.spot","mode":"spot"}
{"id":"d1","time":"2023-03-02T11:00:00+08:00","type":"destroy","account":"hw","instance":"s"}
)",
      "2023-03-03T00:00:00+08:00");
  const auto rows = run.settlements("hw");
  REQUIRE(rows.size() == 2);
  CHECK(dec(rows[0]["unit_price"]) == dec("0.05"));
  CHECK(dec(rows[0]["quantity"]) == dec("3600"));
  CHECK(dec(rows[1]["unit_price"]) == dec("0.09"));
}
