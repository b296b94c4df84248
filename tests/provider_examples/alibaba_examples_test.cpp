// Alibaba's own worked examples of pay-as-you-go settlement cycles, configuration changes,
// preemptible (spot) pricing and disk and bandwidth fees, end to end through the CLI. Prices
// not in the bundled catalog come from tests/data/alibaba-examples.json (the examples'
// documented unit prices; the cycle examples give durations only).
#include <catch2/catch.hpp>

#include "provider_example.hpp"

using gpubill::testing::dec;
using gpubill::testing::ExampleRun;

namespace {

std::string topup(const std::string& time) {
  return R"({"id":"t1","time":")" + time +
         R"(","type":"topup","account":"ali","amount":"1000","currency":"CNY"})"
         "\n";
}

std::string create(const std::string& time, const std::string& type, const std::string& mode,
                   const std::string& extra = "") {
  return R"({"id":"c1","time":")" + time +
         R"(","type":"create","account":"ali","instance":"i","provider":"alibaba","region":"cn-hangzhou","instance_type":")" +
         type + R"(","mode":")" + mode + "\"" + extra + "}\n";
}

std::string destroy(const std::string& time) {
  return R"({"id":"d1","time":")" + time +
         R"(","type":"destroy","account":"ali","instance":"i"})"
         "\n";
}

}  // namespace

// AlibabaCloudDocs/ecs@7c35c92c89e50ab08230814fe9b0ddfec163b6f2:cn.zh-CN/产品计费/计费方式/按量付费.md
// (2021-07-09), 结算周期: "您在01:30:30创建了一台按量付费实例 …
// 然后在01:55:30释放实例，则：结算周期为
// 01:00:00～02:00:00，在01:30:30～01:55:30间产生计费，该结算周期内的计费时长为1500秒。"
TEST_CASE("alibaba example: 01:30:30 to 01:55:30 is one hourly cycle of 1500 s",
          "[provider_examples][alibaba][metering]") {
  ExampleRun run;
  run.import("alibaba-examples.json");
  run.replay(topup("2021-07-01T00:00:00+08:00") +
                 create("2021-07-01T01:30:30+08:00", "example.payg", "payg") +
                 destroy("2021-07-01T01:55:30+08:00"),
             "2021-07-02T00:00:00+08:00");
  const auto rows = run.settlements("ali");
  REQUIRE(rows.size() == 1);
  CHECK(rows[0]["period_start"] == "2021-06-30T17:30:30Z");
  CHECK(rows[0]["period_end"] == "2021-06-30T17:55:30Z");
  CHECK(dec(rows[0]["quantity"]) == dec("1500"));
}

// The same document: "您在10:59:30创建了一台按量付费实例 …
// 然后在11:50:30释放实例，则：第一个结算周期 为10:00:00～11:00:00 …
// 计费时长为30秒。第二个结算周期为11:00:00～12:00:00 … 计费时长为3030秒。"
TEST_CASE("alibaba example: 10:59:30 to 11:50:30 is two cycles, of 30 s and 3030 s",
          "[provider_examples][alibaba][metering]") {
  ExampleRun run;
  run.import("alibaba-examples.json");
  run.replay(topup("2021-07-01T00:00:00+08:00") +
                 create("2021-07-01T10:59:30+08:00", "example.payg", "payg") +
                 destroy("2021-07-01T11:50:30+08:00"),
             "2021-07-02T00:00:00+08:00");
  const auto rows = run.settlements("ali");
  REQUIRE(rows.size() == 2);
  CHECK(rows[0]["period_end"] == "2021-07-01T03:00:00Z");
  CHECK(dec(rows[0]["quantity"]) == dec("30"));
  CHECK(rows[1]["period_start"] == "2021-07-01T03:00:00Z");
  CHECK(dec(rows[1]["quantity"]) == dec("3030"));
}

// The same document, 变更配置后计费:
// "您在11:00:00创建了一台按量付费实例，实例规格为ecs.g5.large，并在
// 11:30:00升配为ecs.g5.4xlarge。则在11:00～12:00间会产生两条计费信息。第一条对应11:00:00～11:30:00
// … 第二条对应11:30:00～12:00:00". The two types' prices are ours (1.00 and 8.00 CNY/h).
TEST_CASE("alibaba example: an upgrade at 11:30 gives two records in the 11:00 hour",
          "[provider_examples][alibaba][metering]") {
  ExampleRun run;
  run.import("alibaba-examples.json");
  run.replay(
      topup("2021-07-01T00:00:00+08:00") +
          create("2021-07-01T11:00:00+08:00", "example.payg", "payg") +
          R"({"id":"r1","time":"2021-07-01T11:30:00+08:00","type":"resize","account":"ali","instance":"i","instance_type":"example.g5.4xlarge"})"
          "\n" +
          destroy("2021-07-01T12:00:00+08:00"),
      "2021-07-02T00:00:00+08:00");
  const auto rows = run.settlements("ali");
  REQUIRE(rows.size() == 2);
  CHECK(rows[0]["period_start"] == "2021-07-01T03:00:00Z");
  CHECK(rows[0]["period_end"] == "2021-07-01T03:30:00Z");
  CHECK(dec(rows[0]["unit_price"]) == dec("1"));
  CHECK(rows[1]["period_start"] == "2021-07-01T03:30:00Z");
  CHECK(rows[1]["period_end"] == "2021-07-01T04:00:00Z");
  CHECK(dec(rows[1]["unit_price"]) == dec("8"));
  CHECK(run.billed("ali", "compute") == dec("4.50"));
}

// AlibabaCloudDocs/ecs@4d59450d33871e7296ad4343413684dddab7b9e3:cn.zh-CN/产品定价/计费方式/抢占式实例.md
// (2020-12-01), 费用计算示例: bought at 8:00 (market 10), market 12 at 8:30, 6 at 9:00, 8 at 9:30,
// 15 at 10:00 (released): "10 / 60 * 30 = 5", "5 + 10 / 60 * 30 = 10", "10 + 6 / 60 * 30 = 13",
// "13 + 8 / 60 * 30 = 17" — the deal price for the protection hour, then the market price.
TEST_CASE("alibaba example: a spot instance from 8:00 to 10:00 costs 5 + 5 + 3 + 4 = 17",
          "[provider_examples][alibaba][spot]") {
  ExampleRun run;
  run.import("alibaba-examples.json");
  run.replay(topup("2021-03-01T07:00:00+08:00") +
                 create("2021-03-01T08:00:00+08:00", "example.spot", "spot") +
                 destroy("2021-03-01T10:00:00+08:00"),
             "2021-03-02T00:00:00+08:00");
  CHECK(run.billed("ali", "compute") == dec("17"));
  const auto rows = run.settlements("ali");
  REQUIRE(rows.size() == 3);
  CHECK(dec(rows[0]["unit_price"]) == dec("10"));
  CHECK(dec(rows[0]["quantity"]) == dec("3600"));
  CHECK(dec(rows[1]["unit_price"]) == dec("6"));
  CHECK(dec(rows[2]["unit_price"]) == dec("8"));
}
