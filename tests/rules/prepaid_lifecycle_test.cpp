// The prepaid lifecycle rules as pure functions (include/gpubill/rules/prepaid_lifecycle.hpp):
// their edges, which the providers' worked examples (tests/provider_examples/) do not reach.
#include <catch2/catch.hpp>

#include "gpubill/rules/prepaid_lifecycle.hpp"
#include "test_values.hpp"

using namespace gpubill;
using gpubill::testing::at;

namespace {
BillingPolicy ends_at_midnight() {
  BillingPolicy p;
  p.prepaid.term_end = PrepaidTermEnd::next_midnight;
  return p;
}
}  // namespace

TEST_CASE("prepaid_term_end: next_midnight ends at the first 00:00 at or after start + months",
          "[rules][prepaid_lifecycle]") {
  const Calendar cal("Asia/Shanghai");
  const BillingPolicy p = ends_at_midnight();
  // Month-end clamping first, then the midnight: Jan 31 10:00 + 1 month → Feb 28 10:00 → Mar 1.
  CHECK(rules::prepaid_term_end(at("2019-01-31T10:00:00+08:00"), 1, p, cal) ==
        at("2019-03-01T00:00:00+08:00"));
  // Bought exactly at 00:00: the term ends at 00:00, not a day later.
  CHECK(rules::prepaid_term_end(at("2019-01-10T00:00:00+08:00"), 1, p, cal) ==
        at("2019-02-10T00:00:00+08:00"));
  // One second after midnight runs to the end of that day.
  CHECK(rules::prepaid_term_end(at("2019-01-10T00:00:01+08:00"), 1, p, cal) ==
        at("2019-02-11T00:00:00+08:00"));
  // same_time (the default) keeps the time of day.
  CHECK(rules::prepaid_term_end(at("2019-01-10T00:00:01+08:00"), 1, BillingPolicy{}, cal) ==
        at("2019-02-10T00:00:01+08:00"));
  CHECK_THROWS(rules::prepaid_term_end(at("2019-01-10T00:00:00+08:00"), 0, p, cal));
}

TEST_CASE("prepaid_term_end: day_end ends at 23:59:59 of the day of start + months",
          "[rules][prepaid_lifecycle]") {
  // Huawei's yearly/monthly billing cycle (support.huaweicloud.com/intl/zh-cn/price-deh/
  // deh_billing_0004.html): "终点则是到期日的23:59:59 … 2023/03/08 15:50:04购买 …
  // 第一个计费周期为： 2023/03/08 15:50:04 ~ 2023/04/08 23:59:59；第二个计费周期为：2023/04/08
  // 23:59:59 ~ 2023/05/08 23:59:59".
  const Calendar cal("Asia/Shanghai");
  BillingPolicy p;
  p.prepaid.term_end = PrepaidTermEnd::day_end;
  const Instant first = rules::prepaid_term_end(at("2023-03-08T15:50:04+08:00"), 1, p, cal);
  CHECK(first == at("2023-04-08T23:59:59+08:00"));
  CHECK(rules::prepaid_term_end(first, 1, p, cal) == at("2023-05-08T23:59:59+08:00"));
  // Bought at 00:00: the expiry day is the same date a month later, to its last second.
  CHECK(rules::prepaid_term_end(at("2023-03-08T00:00:00+08:00"), 1, p, cal) ==
        at("2023-04-08T23:59:59+08:00"));
  // Month-end clamping first: Jan 31 + 1 month is Feb 28 (2023), or Feb 29 in a leap year.
  CHECK(rules::prepaid_term_end(at("2023-01-31T09:00:00+08:00"), 1, p, cal) ==
        at("2023-02-28T23:59:59+08:00"));
  CHECK(rules::prepaid_term_end(at("2024-01-31T09:00:00+08:00"), 1, p, cal) ==
        at("2024-02-29T23:59:59+08:00"));
  // The expiry day is the day of the end itself (the recycle bin and auto-renewal count from it).
  CHECK(rules::expiry_day_anchor(first, p) == first);
  CHECK(rules::expiry_day_anchor(at("2019-02-11T00:00:00+08:00"), ends_at_midnight()) ==
        at("2019-02-10T23:59:59+08:00"));
}

TEST_CASE("prepaid_return: pro_rata_hours counts an order ending at 23:59:59 up to 00:00",
          "[rules][prepaid_lifecycle]") {
  // Huawei's unsubscription example (support.huaweicloud.com/usermanual-billing/
  // zh-cn_topic_0083138805.html): bought 2024/01/01 10:30:00, "到期时间为2024/02/01
  // 23:59:59，则订单 总时长为31天14小时（2024/01/01 10:00:00~2024/02/02 00:00:00）"; returned
  // 2024/01/15 18:40:00: 14 d 8 h used.
  const Calendar cal("Asia/Shanghai");
  BillingPolicy p;
  p.prepaid.term_end = PrepaidTermEnd::day_end;
  p.prepaid.return_used_value = ReturnUsedValue::pro_rata_hours;
  p.settlement_rounding = RoundingMode::down;
  const Currency cny = Currency::parse("CNY");
  const rules::PrepaidHolding h{Money(Decimal(100), cny),
                                at("2024-01-01T10:30:00+08:00"),
                                at("2024-02-01T23:59:59+08:00"),
                                Money(Decimal(100), cny),
                                Decimal(1),
                                Money::zero(cny),
                                {}};
  const auto r = rules::prepaid_return(h, at("2024-01-15T18:40:00+08:00"), p, cal);
  CHECK(r.ordered_hours == 758);
  CHECK(r.used_hours == 344);
  CHECK(r.used.amount() == Decimal::parse("45.38"));
  CHECK(r.amount.amount() == Decimal::parse("54.62"));
}

TEST_CASE("prepaid_return: pro_rata_hours cuts both durations to whole hours and adds the fee",
          "[rules][prepaid_lifecycle]") {
  const Calendar cal("Asia/Shanghai");
  BillingPolicy p = ends_at_midnight();
  p.prepaid.return_used_value = ReturnUsedValue::pro_rata_hours;
  p.prepaid.return_fee_percent = Decimal::parse("10");
  p.settlement_rounding = RoundingMode::down;
  const Currency cny = Currency::parse("CNY");
  const rules::PrepaidHolding h{Money(Decimal(100), cny),
                                at("2024-01-01T10:30:00+08:00"),
                                at("2024-02-02T00:00:00+08:00"),
                                Money(Decimal(100), cny),
                                Decimal(1),
                                Money::zero(cny),
                                {}};
  const auto r = rules::prepaid_return(h, at("2024-01-15T18:40:00+08:00"), p, cal);
  CHECK(r.ordered_hours == 758);
  CHECK(r.used_hours == 344);
  CHECK(r.used.amount() == Decimal::parse("45.38"));
  CHECK(r.fee.amount() == Decimal::parse("10"));
  CHECK(r.amount.amount() == Decimal::parse("44.62"));
  // Used more than paid leaves nothing, never a negative refund.
  const auto late = rules::prepaid_return(h, at("2024-02-01T23:00:00+08:00"), p, cal);
  CHECK(late.amount.amount() == Decimal{});
}

TEST_CASE("downgrade_refund: none refunds nothing; the new order never counts more than returned",
          "[rules][prepaid_lifecycle]") {
  const Calendar cal("Asia/Shanghai");
  const Currency cny = Currency::parse("CNY");
  rules::PrepaidHolding h{Money(Decimal(1200), cny),
                          at("2020-01-01T10:00:00+08:00"),
                          at("2021-01-01T10:00:00+08:00"),
                          Money(Decimal(100), cny),
                          Decimal(1),
                          Money(Decimal(1), cny),
                          {}};
  BillingPolicy none;
  const auto d0 = rules::downgrade_refund(h, Money(Decimal(50), cny),
                                          at("2020-07-01T10:00:00+08:00"), none, cal);
  CHECK(d0.refund.amount() == Decimal{});
  CHECK(d0.new_paid.amount() == Decimal(1200));
  BillingPolicy tencent;
  tencent.prepaid.downgrade_refund = DowngradeRefund::return_minus_new_order;
  // 6 months used: return 1200 − 600 = 600; 6 months left exactly: new order 6 × 50 = 300.
  const auto d = rules::downgrade_refund(h, Money(Decimal(50), cny),
                                         at("2020-07-01T10:00:00+08:00"), tencent, cal);
  CHECK(d.returned.amount.amount() == Decimal(600));
  CHECK(d.new_months == Decimal(6));
  CHECK(d.new_cost.amount() == Decimal(300));
  CHECK(d.refund.amount() == Decimal(300));
  CHECK(d.new_paid.amount() == Decimal(300));
  // A new order dearer than the return: no refund, and it counts as paid what was returned.
  const auto up = rules::downgrade_refund(h, Money(Decimal(120), cny),
                                          at("2020-11-01T10:00:00+08:00"), tencent, cal);
  CHECK(up.refund.amount() == Decimal{});
  CHECK(up.new_paid == up.returned.amount);
}
