#include "gpubill/rules/prepaid_lifecycle.hpp"

#include <algorithm>
#include <stdexcept>

namespace gpubill::rules {

namespace {

Money rounded(const Money& exact, const BillingPolicy& policy) {
  return exact.round(policy.settlement_decimals, policy.settlement_rounding);
}

// Whole calendar months from `from` that end at or before `to`.
int whole_months_between(Instant from, Instant to, const Calendar& calendar) {
  int m = 0;
  while (m < 1200 && calendar.add_months(from, m + 1) <= to) ++m;
  return m;
}

Decimal factor_of(const PrepaidHolding& h, int months) {
  return months >= 1 && h.factor_for_months ? h.factor_for_months(months) : Decimal(1);
}

void value_months_then_payg(const PrepaidHolding& h, Instant at, const BillingPolicy& policy,
                            const Calendar& calendar, ReturnValue& r) {
  r.whole_months = whole_months_between(h.purchased_at, at, calendar);
  r.rest_seconds = (at - calendar.add_months(h.purchased_at, r.whole_months)).count();
  r.months_factor = policy.prepaid.used_months_at_their_term_discount ? factor_of(h, r.whole_months)
                                                                      : h.order_factor;
  const Money months_value = h.monthly * r.whole_months * r.months_factor;
  const Money rest_value(Decimal::divide(h.hourly.amount() * r.rest_seconds, kSecondsPerHour,
                                         Decimal::kScale, RoundingMode::half_even),
                         h.hourly.currency());
  r.used = rounded(months_value + rest_value, policy);
  r.formula = std::to_string(r.whole_months) + " whole month(s) × " + h.monthly.to_string() +
              " × " + r.months_factor.to_string() + " + " + std::to_string(r.rest_seconds) +
              " s at " + h.hourly.to_string() + "/h";
}

void value_pro_rata_hours(const PrepaidHolding& h, Instant at, const BillingPolicy& policy,
                          const Calendar& calendar, ReturnValue& r) {
  const Instant start = calendar.hour_start(h.purchased_at);
  // Both ends to whole hours: the start back to its hour, the expiry on to the next (an order
  // ending at 23:59:59 is ordered up to 00:00, as Huawei counts it).
  r.ordered_hours = ((h.expiry - start).count() + kSecondsPerHour - 1) / kSecondsPerHour;
  r.used_hours =
      std::max<std::int64_t>(0, (calendar.hour_start(at) - start).count()) / kSecondsPerHour;
  r.used_hours = std::min(r.used_hours, r.ordered_hours);
  if (r.ordered_hours > 0) {
    r.used = rounded(Money(Decimal::divide(h.paid.amount() * r.used_hours, r.ordered_hours,
                                           Decimal::kScale, RoundingMode::half_even),
                           h.paid.currency()),
                     policy);
  }
  r.formula = h.paid.to_string() + " × " + std::to_string(r.used_hours) + " h used / " +
              std::to_string(r.ordered_hours) + " h ordered (whole hours from " +
              calendar.format_local(start) + ")";
}
void value_pro_rata_days(const PrepaidHolding& h, Instant at, const BillingPolicy& policy,
                         ReturnValue& r) {
  const std::int64_t ordered_seconds = (h.expiry - h.purchased_at).count();
  const std::int64_t used_seconds = std::max<std::int64_t>(0, (at - h.purchased_at).count());
  r.ordered_days = (ordered_seconds + kSecondsPerDay - 1) / kSecondsPerDay;
  r.used_days = std::min(r.ordered_days, (used_seconds + kSecondsPerDay - 1) / kSecondsPerDay);
  if (r.ordered_days > 0) {
    r.used = rounded(Money(Decimal::divide(h.paid.amount() * r.used_days, r.ordered_days,
                                           Decimal::kScale, RoundingMode::half_even),
                           h.paid.currency()),
                     policy);
  }
  r.formula = h.paid.to_string() + " × " + std::to_string(r.used_days) + " day(s) used / " +
              std::to_string(r.ordered_days) + " day(s) ordered (a started day counts whole)";
}
// Alibaba's downgrade refund (DowngradeRefund::consumed_days_price_ratio, header).
void downgrade_consumed_days(const PrepaidHolding& h, const Money& new_monthly, Instant at,
                             const BillingPolicy& policy, const Calendar& calendar,
                             DowngradeValue& d) {
  const Money zero = Money::zero(h.paid.currency());
  const int months = whole_months_between(h.purchased_at, h.expiry, calendar);
  const std::int64_t order_days =
      ((h.expiry - h.purchased_at).count() + kSecondsPerDay - 1) / kSecondsPerDay;
  const std::int64_t used_seconds = std::max<std::int64_t>(0, (at - h.purchased_at).count());
  const std::int64_t used_days =
      std::min(order_days, (used_seconds + kSecondsPerDay - 1) / kSecondsPerDay);
  const int used_months = whole_months_between(h.purchased_at, at, calendar);
  const Decimal used_factor = factor_of(h, used_months);
  const bool short_use = used_days < 30;
  ReturnValue& r = d.returned;
  r.ordered_days = order_days;
  r.used_days = used_days;
  r.whole_months = used_months;
  r.months_factor = used_factor;
  if (order_days > 0) {
    Decimal consumed = Decimal::divide(h.monthly.amount() * months * used_days, order_days,
                                       Decimal::kScale, RoundingMode::half_even) *
                       used_factor;
    if (short_use) consumed = consumed * Decimal::parse("1.5");
    r.used = std::min(rounded(Money(consumed, h.paid.currency()), policy), h.paid);
  }
  r.amount = h.paid - r.used;
  Decimal ratio =
      h.monthly.amount().sign() > 0
          ? Decimal::divide(h.monthly.amount() - new_monthly.amount(), h.monthly.amount(),
                            Decimal::kScale, RoundingMode::half_even)
          : Decimal(0);
  ratio = std::clamp(ratio, Decimal(0), Decimal(1));
  d.new_factor = ratio;  // the price difference ratio
  d.refund = std::max(rounded(r.amount * ratio, policy), zero);
  d.new_cost = r.amount - d.refund;
  d.new_paid = d.new_cost;
  r.formula = h.monthly.to_string() + " × " + std::to_string(months) + " month(s) / " +
              std::to_string(order_days) + " day(s) × " + std::to_string(used_days) +
              " day(s) used × " + used_factor.to_string() + (short_use ? " × 1.5" : "");
  d.formula = "(paid " + h.paid.to_string() + " − consumed " + r.used.to_string() + ": " +
              r.formula + ") × price difference ratio " + ratio.to_string() + " ((" +
              h.monthly.to_string() + " − " + new_monthly.to_string() + ") / " +
              h.monthly.to_string() + ") = " + d.refund.to_string() + ", not below 0";
}

}  // namespace

Instant prepaid_term_end(Instant start, int months, const BillingPolicy& policy,
                         const Calendar& calendar) {
  if (months < 1) throw std::invalid_argument("prepaid_term_end: months must be at least 1");
  const Instant end = calendar.add_months(start, months);
  switch (policy.prepaid.term_end) {
    case PrepaidTermEnd::same_time:
      return end;
    case PrepaidTermEnd::next_midnight: {
      const Instant day_start = calendar.midnight_after(end, 0);
      return day_start == end ? end : calendar.midnight_after(end, 1);
    }
    case PrepaidTermEnd::day_end:
      return calendar.midnight_after(end, 1) - std::chrono::seconds{1};
  }
  return end;
}

Instant expiry_day_anchor(Instant expiry, const BillingPolicy& policy) {
  return policy.prepaid.term_end == PrepaidTermEnd::next_midnight ? expiry - std::chrono::seconds{1}
                                                                  : expiry;
}

ReturnValue prepaid_return(const PrepaidHolding& holding, Instant at, const BillingPolicy& policy,
                           const Calendar& calendar) {
  const Money zero = Money::zero(holding.paid.currency());
  ReturnValue r{holding.paid, zero, zero, zero, 0, Decimal(1), 0, 0, 0, 0, 0, {}};
  switch (policy.prepaid.return_used_value) {
    case ReturnUsedValue::months_then_payg:
      value_months_then_payg(holding, at, policy, calendar, r);
      break;
    case ReturnUsedValue::pro_rata_hours:
      value_pro_rata_hours(holding, at, policy, calendar, r);
      break;
    case ReturnUsedValue::pro_rata_days:
      value_pro_rata_days(holding, at, policy, r);
      break;
  }
  if (policy.prepaid.return_fee_percent.sign() > 0) {
    r.fee = rounded(Money(Decimal::divide(holding.paid.amount() * policy.prepaid.return_fee_percent,
                                          100, Decimal::kScale, RoundingMode::half_even),
                          holding.paid.currency()),
                    policy);
    r.formula += "; fee " + policy.prepaid.return_fee_percent.to_string() + " % of paid";
  }
  r.amount = std::max(holding.paid - r.used - r.fee, zero);
  return r;
}

DowngradeValue downgrade_refund(const PrepaidHolding& holding, const Money& new_monthly, Instant at,
                                const BillingPolicy& policy, const Calendar& calendar) {
  const Money zero = Money::zero(holding.paid.currency());
  DowngradeValue d{ReturnValue{holding.paid, zero, zero, zero, 0, Decimal(1), 0, 0, 0, 0, 0, {}},
                   Decimal{},
                   Decimal(1),
                   zero,
                   zero,
                   holding.paid,
                   {}};
  if (policy.prepaid.downgrade_refund == DowngradeRefund::none || at >= holding.expiry) {
    d.formula = "no refund on a downgrade";
    return d;
  }
  if (policy.prepaid.downgrade_refund == DowngradeRefund::consumed_days_price_ratio) {
    downgrade_consumed_days(holding, new_monthly, at, policy, calendar, d);
    return d;
  }
  d.returned = prepaid_return(holding, at, policy, calendar);
  const int months_left = whole_months_between(at, holding.expiry, calendar);
  const bool exact_months = calendar.add_months(at, months_left) == holding.expiry;
  d.new_months = exact_months
                     ? Decimal(months_left)
                     : Decimal::divide(Decimal((holding.expiry - at).count()), 30 * kSecondsPerDay,
                                       Decimal::kScale, RoundingMode::half_even);
  d.new_factor = factor_of(holding, months_left);
  d.new_cost = rounded(new_monthly * d.new_months * d.new_factor, policy);
  d.refund = std::max(d.returned.amount - d.new_cost, zero);
  d.new_paid = std::min(d.returned.amount, d.new_cost);
  d.formula = "return " + d.returned.amount.to_string() + " (paid " + holding.paid.to_string() +
              " − used " + d.returned.used.to_string() + ": " + d.returned.formula +
              ") − new order " + d.new_cost.to_string() + " (" + new_monthly.to_string() + " × " +
              d.new_months.to_string() + (exact_months ? " month(s)" : " months (days / 30)") +
              " × " + d.new_factor.to_string() +
              ") = " + (d.returned.amount - d.new_cost).to_string() + ", not below 0";
  return d;
}

}  // namespace gpubill::rules
