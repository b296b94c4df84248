// Alibaba's preemptible (spot) pricing within the hour, end to end through the CLI, with a
// test-local market price that changes at 10:30 (tests/data/spot-price-changes.json).
#include <catch2/catch.hpp>

#include "provider_example.hpp"

using gpubill::testing::dec;
using gpubill::testing::ExampleRun;

// help.aliyun.com/document_detail/165053.htm (抢占式实例): "创建成功后，在保护期(默认1小时)内按照
// 成交时的市场价格计费。超过保护期后，按照实时的市场价格计费。" Created 10:20 at 1.00 CNY/h, the
// market price is 2.00 from 10:30; the protection period (policy spot_protection_hours 1) ends
// 11:20. 10:20–11:00 at the deal price: 1.00 × 2400 / 3600 = 0.6667 → 0.66; 11:00–11:20 still at
// the deal price: 0.3333 → 0.33; 11:20–12:00 at the market price: 2.00 × 2400 / 3600 = 1.3333 →
// 1.33 (each hourly piece rounded down). Total 2.32 (one price per hour gave 0.66 + 2.00).
TEST_CASE("alibaba: a spot instance pays the deal price for its protection hour, then the market",
          "[provider_examples][alibaba][spot]") {
  ExampleRun run;
  run.import("spot-price-changes.json");
  run.replay(
      R"({"id":"t1","time":"2023-06-01T09:00:00+08:00","type":"topup","account":"ali","amount":"100","currency":"CNY"}
{"id":"c1","time":"2023-06-01T10:20:00+08:00","type":"create","account":"ali","instance":"s","provider":"alibaba","region":"cn-shanghai","instance_type":"example.spot","mode":"spot"}
{"id":"d1","time":"2023-06-01T12:00:00+08:00","type":"destroy","account":"ali","instance":"s"}
)",
      "2023-06-02T00:00:00+08:00");
  const auto rows = run.settlements("ali");
  REQUIRE(rows.size() == 3);
  CHECK(dec(rows[0]["unit_price"]) == dec("1"));
  CHECK(dec(rows[0]["quantity"]) == dec("2400"));
  CHECK(dec(rows[1]["unit_price"]) == dec("1"));
  CHECK(dec(rows[1]["quantity"]) == dec("1200"));
  CHECK(dec(rows[2]["unit_price"]) == dec("2"));
  CHECK(dec(rows[2]["quantity"]) == dec("2400"));
  CHECK(run.billed("ali") == dec("2.32"));
  const auto x = run.explain(rows[2]["id"].get<std::int64_t>());
  CHECK(x["rule"]["rule"].get<std::string>().find("deal_then_per_second") != std::string::npos);
}
