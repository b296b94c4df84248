// Huawei Cloud's worked examples of yearly/monthly terms and unsubscriptions, end to end through
// the CLI. Huawei's ECS prices are not in the bundled catalog: tests/data/huawei-doc-examples.json
// holds an instance without GPUs at the examples' order amount (100.00 CNY a month).
#include <catch2/catch.hpp>

#include "provider_example.hpp"

using gpubill::testing::ExampleRun;
using gpubill::testing::same_instant;

namespace {
const char* const kUnsubscribeTopup =
    R"({"id":"t1","time":"2017-01-01T00:00:00+08:00","type":"topup","account":"acme","amount":"10000.00","currency":"CNY"}
)";
std::string create(const char* id, const char* instance, const char* at) {
  return std::string(R"({"id":")") + id + R"(","time":")" + at +
         R"(","type":"create","account":"acme","instance":")" + instance +
         R"(","provider":"huawei","region":"cn-north-4","instance_type":"s6.doc.example","mode":"prepaid","months":1})"
         "\n";
}
std::string destroy(const char* id, const char* instance, const char* at) {
  return std::string(R"({"id":")") + id + R"(","time":")" + at +
         R"(","type":"destroy","account":"acme","instance":")" + instance + "\"}\n";
}
}  // namespace

TEST_CASE(
    "Huawei term example: bought 15:50:04 for a month, the term ends at 23:59:59 of its expiry day",
    "[provider_examples][huawei][term]") {
  // support.huaweicloud.com/intl/zh-cn/price-deh/deh_billing_0004.html (the yearly/monthly
  // billing cycle, same wording for ECS): "一个计费周期的起点是您开通或续费资源的时间（精确到秒），
  // 终点则是到期日的23:59:59 … 2023/03/08 15:50:04购买 … 第一个计费周期为：2023/03/08 15:50:04 ~
  // 2023/04/08 23:59:59；第二个计费周期为：2023/04/08 23:59:59 ~ 2023/05/08 23:59:59".
  // The renewal (its period) starts at that second and ends at 23:59:59 a month later.
  ExampleRun ex;
  ex.import("huawei-doc-examples.json");
  ex.replay(
      std::string(kUnsubscribeTopup) + create("c1", "h", "2023-03-08T15:50:04+08:00") +
          R"({"id":"r1","time":"2023-03-20T10:00:00+08:00","type":"renew","account":"acme","instance":"h","months":1}
)",
      "2023-04-01T00:00:00+08:00");
  const auto orders = ex.instance_charges("h", "prepaid_order");
  const auto renewals = ex.instance_charges("h", "renewal");
  REQUIRE(orders.size() == 1);
  REQUIRE(renewals.size() == 1);
  CHECK(same_instant(orders[0].at("period_end"), "2023-04-08T23:59:59+08:00"));
  CHECK(same_instant(renewals[0].at("period_start"), "2023-04-08T23:59:59+08:00"));
  CHECK(same_instant(renewals[0].at("period_end"), "2023-05-08T23:59:59+08:00"));
}

TEST_CASE("Huawei five-day no-reason unsubscription: 5 × 24 h from the opening, to the second",
          "[provider_examples][huawei][refund]") {
  // support.huaweicloud.com/usermanual-billing/unsubscription_topic_20000081.html:
  // "客户新购的资源在 五天内（开通时间起5*24小时）… 示例：客户新购资源A，开通时间为2022/11/24
  // 14:30:30 … 则在2022/11/29 14:30:30前退订都满足五天无理由全额退订" and the example
  // "客户A于2020/10/20 购买了一台弹性云服务器 ECS 01，购买时长为1个月，订单金额为100.00元 …
  // 2020/10/22 客户A对ECS 01进行退订，退订金额=应付金额= 100.00元" (80.00 cash + a 20.00 voucher,
  // refunded together: the log's 100.00).
  ExampleRun ex;
  ex.import("huawei-doc-examples.json");
  ex.replay(std::string(kUnsubscribeTopup) + create("c1", "ecs01", "2020-10-20T10:00:00+08:00") +
                destroy("d1", "ecs01", "2020-10-22T10:00:00+08:00") +
                create("c2", "a", "2022-11-24T14:30:30+08:00") +
                create("c3", "b", "2022-11-24T14:30:30+08:00") +
                destroy("d2", "a", "2022-11-29T14:30:30+08:00") +
                destroy("d3", "b", "2022-11-29T14:30:31+08:00"),
            "2022-12-01T00:00:00+08:00");
  const auto ecs01 = ex.instance_charges("ecs01", "refund");
  REQUIRE(ecs01.size() == 1);
  CHECK(ecs01[0].at("billed_amount") == "-100");  // 100.00 (JSON writes the shortest exact text)
  const auto a = ex.instance_charges("a", "refund");
  REQUIRE(a.size() == 1);
  CHECK(a[0].at("billed_amount") == "-100");  // 100.00 (JSON writes the shortest exact text)
  const auto b = ex.instance_charges("b", "refund");  // one second late: an ordinary unsubscription
  REQUIRE(b.size() == 1);
  CHECK(std::string(b[0].at("note")).rfind("ordinary return", 0) == 0);
}

TEST_CASE("Huawei unsubscription example: used value = paid × 344 h / 758 h",
          "[provider_examples][huawei][refund]") {
  // support.huaweicloud.com/usermanual-billing/zh-cn_topic_0083138805.html ("更新时间 2025-07-24"):
  // "已消费金额= 订单实付金额×（实际消费时长/订单总时长）（时长计算精确到小时，…
  // 均按小时向前取整）… 示例：2024/01/01 10:30:00 客户购买了包月云硬盘（EVS），到期时间为2024/02/01
  // 23:59:59，则订单总时长 为31天14小时（2024/01/01 10:00:00~2024/02/02 00:00:00）。2024/01/15
  // 18:40:00 客户对该云硬盘进行 退订，实际消费时长为14天8小时（2024/01/01 10:00:00~2024/01/15
  // 18:00:00）。" The document's example is a disk and gives no amount; the rule is the billing
  // center's for every yearly/monthly resource. Paid 100.00: used 100 × 344 / 758 = 45.3825…, cut
  // to 45.38 (Huawei deducts to 2 decimals, dropping the rest). The handling fee is not applied:
  // its rate for products other than 5-year ones was not found (docs/provider-rules.md), so the
  // refund here is paid − used.
  ExampleRun ex;
  ex.import("huawei-doc-examples.json");
  ex.replay(std::string(kUnsubscribeTopup) + create("c1", "evs", "2024-01-01T10:30:00+08:00") +
                destroy("d1", "evs", "2024-01-15T18:40:00+08:00"),
            "2024-02-01T00:00:00+08:00");
  const auto refunds = ex.instance_charges("evs", "refund");
  REQUIRE(refunds.size() == 1);
  const std::string note = refunds[0].at("note");
  INFO(note);
  CHECK(note.find("344 h used / 758 h ordered") != std::string::npos);
  CHECK(refunds[0].at("billed_amount") == "-54.62");
}
