// Huawei's 抹零 example, end to end through the CLI: usage amounts are kept to many decimals
// and only the deduction is truncated to 0.01, so small hourly amounts add up to a charge.
// The disk price is the example's (tests/data/huawei-examples.json).
#include <catch2/catch.hpp>

#include "provider_example.hpp"

using gpubill::testing::dec;
using gpubill::testing::ExampleRun;

// support.huaweicloud.com/billing_faq/billing_faq_5100021 (抹零金额是如何产生的):
// "1GB的云硬盘定价为
// 0.0006400000元/1小时，客户按需使用10GB大小的云硬盘，实际使用25874秒，则未出账的应付金额为
// (25874/3600)*0.0006400000*10=0.04599822元，出账后实际应付金额为0.04元，抹零金额为0.00599822元。"
// Each of those hours is 0.0064 CNY: truncated hour by hour (the rule before 2021-08 and, before
// this fix, after it too) the disk would cost 0.00.
TEST_CASE("huawei example: 10 GB of EVS for 25874 s is 0.04599822, deducted 0.04",
          "[provider_examples][huawei][rounding]") {
  ExampleRun run;
  run.import("huawei-examples.json");
  run.replay(
      R"({"id":"t1","time":"2023-03-01T07:00:00+08:00","type":"topup","account":"hw","amount":"100","currency":"CNY"}
{"id":"c1","time":"2023-03-01T10:00:00+08:00","type":"create","account":"hw","instance":"i","provider":"huawei","region":"cn-north-4","instance_type":"example.payg","mode":"payg","system_disk":{"kind":"EVS-example","size_gb":10}}
{"id":"d1","time":"2023-03-01T17:11:14+08:00","type":"destroy","account":"hw","instance":"i"}
)",
      "2023-03-02T00:00:00+08:00");
  CHECK(run.billed("hw", "system_disk") == dec("0.04"));
  // The usage records add up to the document's unrounded amount; one record rounds them.
  gpubill::Decimal exact;
  std::string rounding;
  for (const auto& row : run.charges("hw")) {
    if (row["component"] != "system_disk") continue;
    if (row["kind"] == "cycle_rounding") {
      rounding = row["total_billed"].get<std::string>();
    } else {
      exact += gpubill::Decimal::parse(row["total_exact"].get<std::string>());
    }
  }
  CHECK(exact.round(8, gpubill::RoundingMode::down).to_string() == "0.04599822");
  CHECK(rounding.rfind("-0.005998222", 0) == 0);
}

// Before 2021-08 each hourly settlement was truncated on its own ("Before June 2021 … The settled
// amount was accurate to the second decimal place, while the remaining decimal places were
// directly truncated", support.huaweicloud.com/intl/en-us/usermanual-bpconsole/dp_060102.html):
// the same disk in 2021-03 costs 0.00 — the policy row's date decides.
TEST_CASE("huawei: before 2021-08 each hourly settlement is truncated on its own",
          "[provider_examples][huawei][rounding]") {
  ExampleRun run;
  run.import("huawei-examples.json");
  run.import("huawei-examples-2021.json");
  run.replay(
      R"({"id":"c1","time":"2021-03-01T10:00:00+08:00","type":"create","account":"hw","instance":"i","provider":"huawei","region":"cn-north-4","instance_type":"example.payg","mode":"payg","system_disk":{"kind":"EVS-example","size_gb":10}}
{"id":"d1","time":"2021-03-01T17:11:14+08:00","type":"destroy","account":"hw","instance":"i"}
)",
      "2021-03-02T00:00:00+08:00");
  CHECK(run.billed("hw", "system_disk") == dec("0"));
}
