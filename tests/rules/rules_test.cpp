// Billing rules worked out by hand from the providers' documented rules
// (as cited in the bundled catalog's policy rows): each expected figure is computed in the comment.
#include <catch2/catch.hpp>

#include "gpubill/rules/rules.hpp"
#include "test_values.hpp"

using namespace gpubill;
using gpubill::testing::at;
using gpubill::testing::cny;

namespace {
Money usd(const char* s) {
  return Money(Decimal::parse(s), Currency::parse("USD"));
}
BillingPolicy tencent() {
  BillingPolicy p;  // half_up to 0.01, per second, 7-day recycle bin (2017–2019)
  p.id = 1;
  return p;
}
BillingPolicy alibaba() {
  BillingPolicy p;
  p.settlement_rounding = RoundingMode::down;
  p.min_charge_per_lifetime = Decimal::parse("0.01");
  p.auto_renew_days_before = 9;
  p.auto_renew_local_time = std::chrono::minutes{8 * 60};
  p.recycle_bin_days = 15;
  return p;
}
BillingPolicy aws() {
  BillingPolicy p;
  p.min_charge_seconds_per_run = 60;
  return p;
}
DiscountRow discount(int min, int max, const char* factor) {
  DiscountRow d;
  d.min_months = min;
  d.max_months = max;
  d.factor = Decimal::parse(factor);
  return d;
}
}  // namespace

TEST_CASE("an hourly settlement rounds as the provider says", "[rules][settle]") {
  // GN8.LARGE56 at 15.09 CNY/h for 1800 s: 15.09 × 1800 / 3600 = 7.545.
  const auto half_up = rules::settle(cny("15.09"), 1800, tencent());
  CHECK(half_up.exact == cny("7.545"));
  CHECK(half_up.billed == cny("7.55"));  // Tencent: 四舍五入
  CHECK(half_up.rounding == cny("0.005"));
  const auto down = rules::settle(cny("15.09"), 1800, alibaba());
  CHECK(down.billed == cny("7.54"));  // Alibaba/Huawei: truncated
  CHECK(down.rounding == cny("-0.005"));
  // 1 s at 15.09/h = 0.00419166666666(6…) → 12 decimals half-even.
  const auto one = rules::settle(cny("15.09"), 1, tencent());
  CHECK(one.exact == cny("0.004191666667"));
  CHECK(one.billed == cny("0"));
  CHECK(one.billed == one.exact + one.rounding);
}

TEST_CASE("metering granularity and minimum charges", "[rules][settle]") {
  BillingPolicy per_minute;
  per_minute.metering_granularity_seconds = 60;
  CHECK(rules::metered_seconds(61, per_minute) == 120);
  CHECK(rules::metered_seconds(0, per_minute) == 0);
  CHECK(rules::metered_seconds(61, tencent()) == 61);
  // AWS p3.2xlarge 3.06 USD/h for 30 s is billed 60 s: 3.06 × 60 / 3600 = 0.051 → 0.05.
  const auto run = rules::payg_run_cost(usd("3.06"), 30, aws());
  CHECK(run.exact == usd("0.051"));
  CHECK(run.billed == usd("0.05"));
  // Alibaba: a lifetime that costs less than 0.01 pays 0.01 (10 s at 0.36/h = 0.001).
  CHECK(rules::payg_run_cost(cny("0.36"), 10, alibaba()).billed == cny("0.01"));
  // A month of GN8.LARGE56: 720 full hours × 15.09 = 10864.80, 720 settlements.
  const auto month = rules::payg_run_cost(cny("15.09"), 720 * 3600, tencent());
  CHECK(month.billed == cny("10864.8"));
  CHECK(month.settlements == 720);
  // 90 minutes: one full hour 15.09 + 1800 s 7.545 → 7.55 = 22.64 (exact 22.635).
  const auto ninety = rules::payg_run_cost(cny("15.09"), 5400, tencent());
  CHECK(ninety.billed == cny("22.64"));
  CHECK(ninety.exact == cny("22.635"));
}

TEST_CASE("prepaid orders and the cheapest combination of terms", "[rules][prepaid]") {
  // Tencent GN8.LARGE56 4400 CNY/month; 其他机型 discounts 6–11 months 88 %, 1 year 83 %,
  // 2 years 70 %.
  const DiscountRow d6 = discount(6, 11, "0.88"), d12 = discount(12, 23, "0.83"),
                    d24 = discount(24, 35, "0.70");
  auto lookup = [&](int months) -> const DiscountRow* {
    if (months >= 24) return &d24;
    if (months >= 12) return &d12;
    if (months >= 6) return &d6;
    return nullptr;
  };
  const auto year = rules::prepaid_order(cny("4400"), 12, &d12, tencent());
  CHECK(year.list == cny("52800"));
  CHECK(year.charged == cny("43824"));  // 52800 × 0.83
  // 14 months: 12 + 2 = 43824 + 8800 = 52624, cheaper than 6 + 8 (14 × 4400 × 0.88 = 54208)
  // and than 14 single months (61600).
  const auto p14 = rules::cheapest_prepaid_plan(cny("4400"), 14, rules::standard_prepaid_terms(),
                                                lookup, tencent());
  CHECK(p14.total == cny("52624"));
  REQUIRE(p14.orders.size() == 2);
  CHECK(p14.orders[0].order.months == 12);
  CHECK(p14.orders[1].order.months == 2);
  CHECK(p14.order_count() == 2);
  CHECK(p14.months_covered == 14);
  // 11 months: 11 × 4400 × 0.88 = 42592 beats a year (43824).
  CHECK(rules::cheapest_prepaid_plan(cny("4400"), 11, rules::standard_prepaid_terms(), lookup,
                                     tencent())
            .total == cny("42592"));
  // 20 months: two years (4400 × 24 × 0.70 = 73920) beat 12 + 8 (43824 + 30976 = 74800).
  const auto p20 = rules::cheapest_prepaid_plan(cny("4400"), 20, rules::standard_prepaid_terms(),
                                                lookup, tencent());
  CHECK(p20.total == cny("73920"));
  CHECK(p20.months_covered == 24);
}

TEST_CASE("expiry, recycle bin and auto-renewal schedule", "[rules][expiry]") {
  const Calendar shanghai("Asia/Shanghai");
  // Bought 2018-01-31 10:00 for one month: expires 2018-02-28 10:00 (clamped); recycle bin
  // days 1–7 are Mar 1–7; destroyed at 00:00 on day 8, 2018-03-08 00:00 +08:00.
  const auto s = rules::expiry_schedule(at("2018-01-31T10:00:00+08:00"), 1, tencent(), shanghai);
  CHECK(format_instant(s.expiry) == "2018-02-28T02:00:00Z");
  CHECK(format_instant(s.destroy_at) == "2018-03-07T16:00:00Z");
  CHECK(s.auto_renew_at == s.expiry);  // Tencent renews on the expiry day
  // Bought on a leap day for 12 months: expires 2021-02-28.
  const auto leap =
      rules::expiry_schedule(at("2020-02-29T09:00:00+08:00"), 12, tencent(), shanghai);
  CHECK(format_instant(leap.expiry) == "2021-02-28T01:00:00Z");
  // Alibaba: auto-renew 9 days before expiry at 08:00; 15 days in the recycle bin.
  const auto ali = rules::expiry_schedule(at("2019-02-28T10:00:00+08:00"), 1, alibaba(), shanghai);
  CHECK(format_instant(ali.expiry) == "2019-03-28T02:00:00Z");
  CHECK(format_instant(ali.auto_renew_at) == "2019-03-19T00:00:00Z");  // Mar 19 08:00 +08
  CHECK(format_instant(ali.destroy_at) == "2019-04-12T16:00:00Z");     // Apr 13 00:00 +08
}

TEST_CASE("upgrade fee, refunds and arrears", "[rules]") {
  // GN8.LARGE56 (4400) → GN8.3XLARGE112 (9000) with 15 days left, no discount:
  // 4600 × 15 / (365/12) = 4600 × 180 / 365 = 2268.4931506… → 2268.49.
  CHECK(rules::upgrade_fee(cny("4400"), cny("9000"), 15 * 86400, Decimal(1), tencent()) ==
        cny("2268.49"));
  // A downgrade costs nothing here.
  CHECK(rules::upgrade_fee(cny("9000"), cny("4400"), 86400, Decimal(1), tencent()) == cny("0"));
  // By days of the order (upgrade_fee term_days, Baidu): 93 CNY/month more, 27 d 23 h left of a
  // 31-day order → 28 days: 93 / 31 = 3 per day × 28 = 84; a started second is a day; an order
  // shorter than a day counts one; a downgrade costs nothing.
  const auto by_days = rules::upgrade_charge_term_days(
      cny("45"), cny("138"), 27 * 86400 + 23 * 3600, 31 * 86400, Decimal(1), tencent());
  CHECK(by_days.remaining_days == 28);
  CHECK(by_days.term_days == 31);
  CHECK(by_days.per_day == cny("3"));
  CHECK(by_days.charge.fee == cny("84"));
  CHECK(rules::upgrade_charge_term_days(cny("45"), cny("138"), 1, 31 * 86400, Decimal(1), tencent())
            .charge.fee == cny("3"));
  CHECK(rules::upgrade_charge_term_days(cny("45"), cny("138"), 1, 0, Decimal(1), tencent())
            .term_days == 1);
  CHECK(rules::upgrade_charge_term_days(cny("138"), cny("45"), 86400, 31 * 86400, Decimal(1),
                                        tencent())
            .charge.fee == cny("0"));
  const Calendar shanghai("Asia/Shanghai");
  const Instant bought = at("2018-03-01T10:00:00+08:00");
  // Within 5 days: everything back.
  const auto early =
      rules::prepaid_refund(cny("13200"), bought, at("2018-03-06T10:00:00+08:00"), cny("4400"),
                            Decimal(1), cny("15.09"), tencent(), shanghai);
  CHECK(early.full);
  CHECK(early.amount == cny("13200"));
  // Three months paid (13200), returned after 1 month and 10 hours:
  // used = 4400 + 10 h × 15.09 = 4550.90 → refund 8649.10.
  const auto later =
      rules::prepaid_refund(cny("13200"), bought, at("2018-04-01T20:00:00+08:00"), cny("4400"),
                            Decimal(1), cny("15.09"), tencent(), shanghai);
  CHECK_FALSE(later.full);
  CHECK(later.whole_months_used == 1);
  CHECK(later.partial_seconds_used == 36000);
  CHECK(later.amount == cny("8649.1"));
  // Balance negative at 10:00: shut down at 12:00 (2 h), reclaimed 24 h later.
  const auto a = rules::arrears_timeline(at("2018-03-01T10:00:00+08:00"), tencent());
  CHECK(format_instant(a.shutdown_at) == "2018-03-01T04:00:00Z");
  CHECK(format_instant(a.reclaim_at) == "2018-03-02T04:00:00Z");
}
