// Alibaba's refund of a downgraded subscription ECS instance, end to end through the CLI
// (DowngradeRefund::consumed_days_price_ratio). Source: Alibaba Cloud, Expenses and Costs,
// "Refund rules for downgrades", https://www.alibabacloud.com/help/ja/user-center/
// description-of-downgrade-refund-rules (2025-04-04; English version 2026-02-28):
//   refund = (paid − consumed fee) × (old − new daily unit price) / old daily unit price;
//   consumed fee = daily unit price × days used (a day begun counts whole) × the discount for
//   the usage duration, × 1.5 for an ECS instance used less than 30 days;
//   daily unit price = the order's original price / its actual subscription days.
// The page works no example: the figures below are worked by hand from it, with the test
// prices of tests/data/alibaba-downgrade-examples.json (3000 → 1000 CNY/month) and the bundled
// Alibaba policy (terms end at the first 00:00 after the bought duration, UTC+8; amounts
// rounded down to 0.01; 12–23 months at 0.85).
#include <catch2/catch.hpp>

#include "provider_example.hpp"

using gpubill::testing::ExampleRun;

namespace {

std::string alibaba_downgrade(int months, const char* at) {
  ExampleRun ex;
  ex.import("alibaba-downgrade-examples.json");
  ex.replay(
      std::string(
          R"({"id":"t1","time":"2025-05-10T09:00:00+08:00","type":"topup","account":"acme","amount":"50000.00","currency":"CNY"}
{"id":"c1","time":"2025-05-10T10:00:00+08:00","type":"create","account":"acme","instance":"e","provider":"alibaba","region":"cn-hangzhou","instance_type":"ecs.doc.big","mode":"prepaid","months":)") +
          std::to_string(months) + R"(}
{"id":"r1","time":")" +
          at +
          R"(","type":"resize","account":"acme","instance":"e","instance_type":"ecs.doc.small"}
)",
      "2025-06-01T00:00:00+08:00");
  const auto refunds = ex.instance_charges("e", "refund");
  REQUIRE(refunds.size() == 1);
  const std::string why = ex.explain_text(refunds[0].at("id").get<std::int64_t>());
  CHECK(why.find("consumed_days_price_ratio") != std::string::npos);
  CHECK(why.find("description-of-downgrade-refund-rules") != std::string::npos);
  return refunds[0].at("billed_amount");
}

}  // namespace

TEST_CASE("Alibaba downgrade after 11 days of a month: the consumed fee × 1.5",
          "[provider_examples][alibaba][downgrade]") {
  // Bought 2025-05-10 10:00 for a month: ends 2025-06-11 00:00 (UTC+8), 31 d 14 h → 32 days.
  // Downgraded 2025-05-20 15:00: 10 d 5 h → 11 days used (< 30: × 1.5).
  // consumed = 3000 / 32 × 11 × 1 × 1.5 = 1546.875 → 1546.87; online refundable = 1453.13;
  // ratio = (3000 − 1000) / 3000 = 2/3; refund = 968.7533… → 968.75.
  CHECK(alibaba_downgrade(1, "2025-05-20T15:00:00+08:00") == "-968.75");
}

TEST_CASE("Alibaba downgrade after 40 days of a year at 0.85: no × 1.5, the month's discount",
          "[provider_examples][alibaba][downgrade]") {
  // Bought 2025-05-10 10:00 for 12 months at 0.85: paid 3000 × 12 × 0.85 = 30600; ends
  // 2026-05-11 00:00, 365 d 14 h → 366 days. Downgraded 2025-06-19 10:00: 40 days used, one
  // whole month (no discount for a 1-month order).
  // consumed = 3000 × 12 / 366 × 40 × 1 = 3934.426… → 3934.42; online refundable = 26665.58;
  // refund = 26665.58 × 2/3 = 17777.0533… → 17777.05.
  CHECK(alibaba_downgrade(12, "2025-06-19T10:00:00+08:00") == "-17777.05");
}
