// Alibaba's ordinary return (unsubscription after the no-reason window) of a subscription ECS
// instance, end to end through the CLI (ReturnUsedValue::pro_rata_days). Source: Alibaba Cloud,
// ECS billing FAQ (alibabacloud.com/help/en/ecs/billing-faq, read 2026-12-03): "assume that you
// purchased a 30-day subscription instance at the price of USD 30. If you cancel the
// subscription for the instance after the instance was in use for 10 days, the remaining value
// of the instance is USD 20 and USD 20 will be refunded to you." A month from 2025-06-01 00:00
// (UTC+8) ends 2025-07-01 00:00: 30 days. tests/data/alibaba-downgrade-examples.json prices the
// FAQ's instance at USD 30 a month.
#include <catch2/catch.hpp>

#include "provider_example.hpp"

using gpubill::testing::dec;
using gpubill::testing::ExampleRun;

namespace {

nlohmann::json alibaba_return_at(ExampleRun& ex, const char* at) {
  ex.import("alibaba-downgrade-examples.json");
  ex.replay(
      std::string(
          R"({"id":"t1","time":"2025-05-31T09:00:00+08:00","type":"topup","account":"acme","amount":"100.00","currency":"USD"}
{"id":"c1","time":"2025-06-01T00:00:00+08:00","type":"create","account":"acme","instance":"e","provider":"alibaba","region":"intl-us-east-1","instance_type":"ecs.doc.faq","mode":"prepaid","months":1}
{"id":"d1","time":")") +
          at + R"(","type":"destroy","account":"acme","instance":"e","return_kind":"ordinary"}
)",
      "2025-07-01T00:00:00+08:00");
  const auto refunds = ex.instance_charges("e", "refund");
  REQUIRE(refunds.size() == 1);
  return refunds[0];
}

}  // namespace

TEST_CASE("Alibaba example: a 30-day subscription of USD 30 returned after 10 days refunds USD 20",
          "[provider_examples][alibaba][refund]") {
  ExampleRun ex;
  const auto refund = alibaba_return_at(ex, "2025-06-11T00:00:00+08:00");
  CHECK(dec(refund.at("billed_amount")) == dec("-20"));
  const std::string why = ex.explain_text(refund.at("id").get<std::int64_t>());
  CHECK(why.find("pro_rata_days") != std::string::npos);
  CHECK(why.find("billing-faq") != std::string::npos);
}

TEST_CASE("Alibaba return: a day begun counts as used", "[provider_examples][alibaba][refund]") {
  // One second into the 11th day: 11 days used, 30 × 19 / 30 = 19.00 back.
  ExampleRun ex;
  const auto refund = alibaba_return_at(ex, "2025-06-11T00:00:01+08:00");
  CHECK(dec(refund.at("billed_amount")) == dec("-19"));
}
