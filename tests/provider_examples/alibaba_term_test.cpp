// Alibaba's worked examples of when a prepaid (包年包月) ECS term ends, end to end through the CLI:
// at the first 00:00:00 (UTC+8) after the bought duration, not at the time of day it was bought;
// a renewal continues from that end; resources are released 15 days after the expiry.
#include <catch2/catch.hpp>

#include "provider_example.hpp"

using gpubill::testing::ExampleRun;
using gpubill::testing::same_instant;

TEST_CASE("Alibaba term example: bought 2017-03-12 13:23:56 for a month, ends 2017-04-13 00:00:00",
          "[provider_examples][alibaba][term]") {
  // AlibabaCloudDocs/ecs@d059a3ce17541cd33fe7bac867043ebbe2586d28:
  //   cn.zh-CN/产品定价/预付费（包年包月）.md (2019-06-11; the text since a9073e5d7, 2018-06-07):
  // "计费周期的起点是资源开通的时间点（精确到秒），终点是指定使用时长后的第一个00:00:00。
  //  举例：假设在2017年3月12日13:23:56开通一个包月实例，计费周期的终点是2017年4月13日00:00:00。"
  // The documents give no price: tests/data/alibaba-doc-examples.json holds a fake one.
  ExampleRun ex;
  ex.import("alibaba-doc-examples.json");
  ex.replay(
      R"({"id":"t1","time":"2017-03-12T13:00:00+08:00","type":"topup","account":"acme","amount":"1000.00","currency":"CNY"}
{"id":"c1","time":"2017-03-12T13:23:56+08:00","type":"create","account":"acme","instance":"a","provider":"alibaba","region":"cn-hangzhou","instance_type":"ecs.doc.example","mode":"prepaid","months":1}
)",
      "2017-05-01T00:00:00+08:00");
  const auto orders = ex.instance_charges("a", "prepaid_order");
  REQUIRE(orders.size() == 1);
  CHECK(same_instant(orders[0].at("period_start"), "2017-03-12T13:23:56+08:00"));
  CHECK(same_instant(orders[0].at("period_end"), "2017-04-13T00:00:00+08:00"));
  CHECK(std::string(orders[0].at("note")).find("rules::prepaid_term_end") != std::string::npos);
  CHECK(same_instant(ex.state("a", "expiry").at("at"), "2017-04-13T00:00:00+08:00"));
}

TEST_CASE("Alibaba term example: expired resources are released 15 days after the expiry",
          "[provider_examples][alibaba][term]") {
  // AlibabaCloudDocs/ecs@c143364812345cad29053fda7d8d4fa2fd1535ec:
  //   cn.zh-CN/产品计费/计费方式/包年包月.md (2021-07-09): "到期15天后，释放或解绑所有ECS资源".
  // The term of the example above ends 2017-04-13 00:00:00 (its expiry date is 04-12): released
  // 2017-04-28 00:00:00, not a day later as a count from 04-13 would give.
  ExampleRun ex;
  ex.import("alibaba-doc-examples.json");
  ex.replay(
      R"({"id":"t1","time":"2017-03-12T13:00:00+08:00","type":"topup","account":"acme","amount":"1000.00","currency":"CNY"}
{"id":"c1","time":"2017-03-12T13:23:56+08:00","type":"create","account":"acme","instance":"a","provider":"alibaba","region":"cn-hangzhou","instance_type":"ecs.doc.example","mode":"prepaid","months":1}
)",
      "2017-05-01T00:00:00+08:00");
  const auto released = ex.state("a", "recycle_bin_expired");
  REQUIRE(released.contains("at"));
  CHECK(same_instant(released.at("at"), "2017-04-28T00:00:00+08:00"));
}

TEST_CASE("Alibaba term example: a renewal runs from the previous end, 00:00 to 00:00",
          "[provider_examples][alibaba][term][renewal]") {
  // AlibabaCloudDocs/ecs@c143364812345cad29053fda7d8d4fa2fd1535ec:
  //   cn.zh-CN/产品计费/计费方式/包年包月.md (2021-07-09):
  //   "您在2019年8月9日13:00:00创建一台包年包月实例
  //   …购买时长为1个月，并在到期前手动续费1个月，则：第一个计费周期为2019年8月9日13:00:00～2019年9月10日
  //   00:00:00。第二个计费周期为2019年9月10日00:00:00～2019年10月10日00:00:00。"
  // (ecs.ga1.14xlarge is priced in USD on Alibaba's international site, intl-cn-hangzhou.)
  ExampleRun ex;
  ex.replay(
      R"({"id":"t1","time":"2019-08-09T12:00:00+08:00","type":"topup","account":"acme","amount":"10000.00","currency":"USD"}
{"id":"c1","time":"2019-08-09T13:00:00+08:00","type":"create","account":"acme","instance":"g","provider":"alibaba","region":"intl-cn-hangzhou","instance_type":"ecs.ga1.14xlarge","mode":"prepaid","months":1}
{"id":"r1","time":"2019-08-20T10:00:00+08:00","type":"renew","account":"acme","instance":"g","months":1}
)",
      "2019-09-01T00:00:00+08:00");
  const auto orders = ex.instance_charges("g", "prepaid_order");
  const auto renewals = ex.instance_charges("g", "renewal");
  REQUIRE(orders.size() == 1);
  REQUIRE(renewals.size() == 1);
  CHECK(same_instant(orders[0].at("period_end"), "2019-09-10T00:00:00+08:00"));
  CHECK(same_instant(renewals[0].at("period_start"), "2019-09-10T00:00:00+08:00"));
  CHECK(same_instant(renewals[0].at("period_end"), "2019-10-10T00:00:00+08:00"));
}
