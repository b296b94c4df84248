// Alibaba's own worked examples of pay-as-you-go disk and fixed-bandwidth fees, end to end
// through the CLI. Disk prices come from tests/data/alibaba-examples.json (the example's unit
// prices); the bandwidth price 0.063 CNY/Mbps/h is the bundled catalog's.
#include <catch2/catch.hpp>

#include "provider_example.hpp"

using gpubill::testing::dec;
using gpubill::testing::ExampleRun;

namespace {

std::string day_log(const std::string& day, const std::string& next, const std::string& extra) {
  return R"({"id":"t1","time":")" + day +
         R"(T00:00:00+08:00","type":"topup","account":"ali","amount":"1000","currency":"CNY"}
{"id":"c1","time":")" +
         day +
         R"(T00:00:00+08:00","type":"create","account":"ali","instance":"i","provider":"alibaba","region":"cn-hangzhou","instance_type":"example.payg","mode":"payg")" +
         extra + R"(}
{"id":"d1","time":")" +
         next + R"(T00:00:00+08:00","type":"destroy","account":"ali","instance":"i"}
)";
}

}  // namespace

// AlibabaCloudDocs/ecs@42e3a78f94ee09446bded53629c886edf64881ea:cn.zh-CN/产品定价/计费项/块存储计费.md
// (2020-12-01), 费用计算示例, 按量付费: "系统盘：ESSD PL0云盘单价0.0010 元/1GiB/小时 … 数据盘：ESSD
// PL1 云盘单价0.0021 元/1GiB/小时" for a 50 GiB system disk and a 100 GiB data disk over a day:
// "系统盘：50 * 0.001 * 24 = 1.20", "数据盘：100 * 0.0021 * 24 = 5.04".
TEST_CASE("alibaba example: a day of a 50 GiB PL0 and a 100 GiB PL1 disk cost 1.20 and 5.04",
          "[provider_examples][alibaba][storage]") {
  ExampleRun run;
  run.import("alibaba-examples.json");
  run.replay(
      day_log(
          "2021-03-01", "2021-03-02",
          R"(,"system_disk":{"kind":"essd_pl0_example","size_gb":50},"data_disks":[{"kind":"essd_pl1_example","size_gb":100}])"),
      "2021-03-03T00:00:00+08:00");
  CHECK(run.billed("ali", "system_disk") == dec("1.20"));
  CHECK(run.billed("ali", "data_disk") == dec("5.04"));
}

// AlibabaCloudDocs/ecs@fe544030f1d9c64e85963f5c698f581a565cdcac:cn.zh-CN/产品定价/计费项/公网带宽计费.md
// (2021-02-02), 费用计算示例, 按固定带宽 按量付费: "1~5 Mbps每Mbps单价：0.063元/小时" for 2 Mbps
// over a 30-day month: "(24 * 30) * (2 * 0.063) = 90.72". Each hour is 0.126: from 2024-04-01 the
// month's hours add up and are rounded down once (the 2024 settlement notice), giving the
// documented 90.72. June 2024 has 30 days.
TEST_CASE("alibaba example: 2 Mbps of fixed bandwidth for a 30-day month cost 90.72",
          "[provider_examples][alibaba][bandwidth]") {
  ExampleRun run;
  run.import("alibaba-examples.json");
  run.replay(day_log("2024-06-01", "2024-07-01", R"(,"bandwidth_mbps":2)"),
             "2024-07-02T00:00:00+08:00");
  CHECK(run.billed("ali", "bandwidth") == dec("90.72"));
}
