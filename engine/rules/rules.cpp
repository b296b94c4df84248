#include "gpubill/rules/rules.hpp"

#include "gpubill/rules/prepaid_lifecycle.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace gpubill::rules {

namespace {

Money rounded_by_policy(const Money& exact, const BillingPolicy& policy) {
  return exact.round(policy.settlement_decimals, policy.settlement_rounding);
}

Money max_money(const Money& a, const Money& b) {
  return a < b ? b : a;
}
}  // namespace

std::int64_t metered_seconds(std::int64_t used_seconds, const BillingPolicy& policy) {
  if (used_seconds < 0) throw std::invalid_argument("metered_seconds: negative usage");
  const std::int64_t unit = std::max(1, policy.metering_granularity_seconds);
  return (used_seconds + unit - 1) / unit * unit;
}

Settlement settle(const Money& hourly_price, std::int64_t seconds, const BillingPolicy& policy) {
  const Decimal exact = Decimal::divide(hourly_price.amount() * seconds, kSecondsPerHour,
                                        Decimal::kScale, RoundingMode::half_even);
  const Money exact_money(exact, hourly_price.currency());
  const Money billed = rounded_by_policy(exact_money, policy);
  return {exact_money, billed, billed - exact_money};
}

Settlement usage_record(const Money& hourly_price, std::int64_t seconds,
                        const BillingPolicy& policy, MeteredResource resource) {
  if (policy.settlement_period_of(resource) == SettlementPeriod::hour) {
    return settle(hourly_price, seconds, policy);
  }
  const Decimal exact = Decimal::divide(hourly_price.amount() * seconds, kSecondsPerHour,
                                        Decimal::kScale, RoundingMode::half_even);
  const Money exact_money(exact, hourly_price.currency());
  return {exact_money, exact_money, Money::zero(hourly_price.currency())};
}

Settlement usage_record_of_monthly_price(const Money& monthly_price, std::int64_t seconds,
                                         std::int64_t month_seconds, const BillingPolicy& policy,
                                         MeteredResource resource) {
  if (month_seconds <= 0) {
    throw std::invalid_argument("usage_record_of_monthly_price: a month of no seconds");
  }
  const Money exact(Decimal::divide(monthly_price.amount() * seconds, month_seconds,
                                    Decimal::kScale, RoundingMode::half_even),
                    monthly_price.currency());
  if (policy.settlement_period_of(resource) == SettlementPeriod::hour) {
    return settle_cycle(exact, policy);
  }
  return {exact, exact, Money::zero(exact.currency())};
}

Settlement settle_cycle(const Money& exact, const BillingPolicy& policy) {
  const Money billed = rounded_by_policy(exact, policy);
  return {exact, billed, billed - exact};
}

Settlement settle_carried(const Money& exact, const BillingPolicy& policy, Decimal& carry) {
  if (policy.usage_rounding != UsageRounding::down_carry) return settle_cycle(exact, policy);
  const Money total = exact + Money(carry, exact.currency());
  const Money billed = total.round(policy.settlement_decimals, RoundingMode::down);
  carry = (total - billed).amount();
  return {exact, billed, billed - exact};
}

Instant cycle_end(SettlementPeriod period, Instant t, const Calendar& calendar) {
  switch (period) {
    case SettlementPeriod::hour:
      return calendar.next_hour(t);
    case SettlementPeriod::day:
      return calendar.midnight_after(t, 1);
    case SettlementPeriod::month:
      return calendar.next_month_start(t);
  }
  return calendar.next_hour(t);
}

Instant cycle_start(SettlementPeriod period, Instant t, const Calendar& calendar) {
  switch (period) {
    case SettlementPeriod::hour:
      return calendar.hour_start(t);
    case SettlementPeriod::day:
      return calendar.midnight_after(t, 0);
    case SettlementPeriod::month:
      return calendar.month_start(t);
  }
  return calendar.hour_start(t);
}

RunCost payg_run_cost(const Money& hourly_price, std::int64_t seconds,
                      const BillingPolicy& policy) {
  const std::int64_t billed_seconds =
      std::max<std::int64_t>(seconds, policy.min_charge_seconds_per_run);
  const std::int64_t full_hours = billed_seconds / kSecondsPerHour;
  const std::int64_t rest = metered_seconds(billed_seconds % kSecondsPerHour, policy);
  const Settlement hour = settle(hourly_price, kSecondsPerHour, policy);
  RunCost cost{hour.exact * full_hours, hour.billed * full_hours, full_hours};
  if (rest > 0) {
    const Settlement last = settle(hourly_price, rest, policy);
    cost.exact += last.exact;
    cost.billed += last.billed;
    ++cost.settlements;
  }
  if (policy.usage_rounding == UsageRounding::down_carry) {
    // Each record carries what it cuts into the next: the run's billed total is its exact total
    // rounded down (settle_carried).
    cost.billed = cost.exact.round(policy.settlement_decimals, RoundingMode::down);
  }
  if (policy.min_charge_per_lifetime && billed_seconds > 0) {
    cost.billed =
        max_money(cost.billed, Money(*policy.min_charge_per_lifetime, hourly_price.currency()));
  }
  return cost;
}

RunCost payg_runs_cost(const Money& hourly_price, std::int64_t seconds, std::int64_t runs,
                       const BillingPolicy& policy, MeteredResource resource, int month_hours) {
  const SettlementPeriod period = policy.settlement_period_of(resource);
  if (runs < 1) throw std::invalid_argument("payg_runs_cost: runs must be at least 1");
  if (period == SettlementPeriod::hour) {
    const RunCost one = payg_run_cost(hourly_price, seconds, policy);
    if (policy.usage_rounding == UsageRounding::down_carry) {
      // The carry runs on from one run to the next (settle_carried).
      const Money exact = one.exact * runs;
      return {exact,
              max_money(exact.round(policy.settlement_decimals, RoundingMode::down), one.billed),
              one.settlements * runs};
    }
    return {one.exact * runs, one.billed * runs, one.settlements * runs};
  }
  const std::int64_t cycle = period == SettlementPeriod::day
                                 ? kSecondsPerDay
                                 : std::int64_t{std::max(1, month_hours)} * kSecondsPerHour;
  const std::int64_t billed_seconds =
      std::max<std::int64_t>(seconds, policy.min_charge_seconds_per_run);
  // The exact usage records of `s` seconds of one run from a cycle's start (hour by hour).
  const auto records = [&](std::int64_t s) {
    const std::int64_t full = s / kSecondsPerHour;
    const std::int64_t rest = metered_seconds(s % kSecondsPerHour, policy);
    return settle(hourly_price, kSecondsPerHour, policy).exact.amount() * full +
           usage_record(hourly_price, rest, policy, resource).exact.amount();
  };
  const Currency ccy = hourly_price.currency();
  RunCost cost{Money::zero(ccy), Money::zero(ccy), 0};
  const auto add_cycles = [&](const Decimal& exact, std::int64_t count) {
    if (count <= 0) return;
    cost.exact += Money(exact * count, ccy);
    cost.billed += settle_cycle(Money(exact, ccy), policy).billed * count;
    cost.settlements += count;
  };
  if (runs == 1) {
    add_cycles(records(cycle), billed_seconds / cycle);
    if (billed_seconds % cycle) add_cycles(records(billed_seconds % cycle), 1);
    if (policy.min_charge_per_lifetime && billed_seconds > 0) {
      cost.billed = max_money(cost.billed, Money(*policy.min_charge_per_lifetime, ccy));
    }
    return cost;
  }
  const Decimal run = records(billed_seconds);
  const std::int64_t per_cycle = cycle / kSecondsPerDay;  // daily runs in a cycle
  add_cycles(run * per_cycle, runs / per_cycle);
  add_cycles(run * (runs % per_cycle), runs % per_cycle ? 1 : 0);
  return cost;
}

PrepaidOrder prepaid_order(const Money& monthly_price, int months, const DiscountRow* discount,
                           const BillingPolicy& policy) {
  if (months < 1) throw std::invalid_argument("prepaid_order: months must be at least 1");
  PrepaidOrder order{months, monthly_price * months, discount ? discount->factor : Decimal(1),
                     discount, Money::zero(monthly_price.currency())};
  order.charged = rounded_by_policy(order.list * order.factor, policy);
  return order;
}

const std::vector<int>& standard_prepaid_terms() {
  static const std::vector<int> terms = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 24, 36, 48, 60};
  return terms;
}

TermCover cheapest_cover(const std::vector<int>& lengths, const std::vector<Decimal>& costs,
                         std::int64_t needed) {
  if (lengths.empty() || lengths.size() != costs.size()) {
    throw std::invalid_argument("cheapest_cover: lengths and costs must match and not be empty");
  }
  const std::size_t n = lengths.size();
  TermCover cover{std::vector<std::int64_t>(n, 0), Decimal{}, 0, 0};
  if (needed <= 0) return cover;
  // The term with the lowest cost per unit of length; of equals, the longest.
  std::size_t b = 0;
  for (std::size_t i = 1; i < n; ++i) {
    const Decimal lhs = costs[i] * lengths[b], rhs = costs[b] * lengths[i];
    if (lhs < rhs || (lhs == rhs && lengths[i] > lengths[b])) b = i;
  }
  const int longest = *std::max_element(lengths.begin(), lengths.end());
  // Fewer than lengths[b] other items make an optimal choice, so they cover less than this.
  const std::int64_t bound = std::int64_t{lengths[b]} * longest;
  std::int64_t repeats = 0;
  if (needed > bound + lengths[b]) {
    repeats = (needed - bound) / lengths[b];
    needed -= repeats * lengths[b];
  }
  // best[m]: the cheapest way to buy exactly m (cost, items, last term).
  struct State {
    bool reachable = false;
    Decimal cost;
    std::int64_t items = 0;
    std::size_t last = 0;
  };
  const auto limit = static_cast<std::size_t>(needed + longest);
  std::vector<State> best(limit + 1);
  best[0].reachable = true;
  for (std::size_t m = 1; m <= limit; ++m) {
    for (std::size_t i = 0; i < n; ++i) {
      const auto len = static_cast<std::size_t>(lengths[i]);
      if (len > m || !best[m - len].reachable) continue;
      const State& p = best[m - len];
      const Decimal cost = p.cost + costs[i];
      State& s = best[m];
      if (!s.reachable || cost < s.cost || (cost == s.cost && p.items + 1 < s.items)) {
        s = {true, cost, p.items + 1, i};
      }
    }
  }
  std::size_t chosen = 0;
  for (auto m = static_cast<std::size_t>(needed); m <= limit; ++m) {
    const State& s = best[m];
    if (!s.reachable) continue;
    const State* c = chosen == 0 ? nullptr : &best[chosen];
    if (!c || s.cost < c->cost || (s.cost == c->cost && s.items < c->items)) chosen = m;
  }
  if (chosen == 0) throw std::invalid_argument("cheapest_cover: no combination of terms");
  for (std::size_t m = chosen; m > 0; m -= static_cast<std::size_t>(lengths[best[m].last])) {
    ++cover.counts[best[m].last];
  }
  cover.counts[b] += repeats;
  cover.cost = best[chosen].cost + costs[b] * repeats;
  cover.items = best[chosen].items + repeats;
  cover.length = static_cast<std::int64_t>(chosen) + repeats * lengths[b];
  return cover;
}

std::int64_t PrepaidPlan::order_count() const noexcept {
  std::int64_t n = 0;
  for (const auto& o : orders) n += o.count;
  return n;
}

PrepaidPlan cheapest_prepaid_plan(const Money& monthly_price, int months_needed,
                                  const std::vector<int>& allowed_terms,
                                  const std::function<const DiscountRow*(int)>& discount_for,
                                  const BillingPolicy& policy) {
  if (months_needed < 1) throw std::invalid_argument("cheapest_prepaid_plan: months_needed < 1");
  if (allowed_terms.empty()) throw std::invalid_argument("cheapest_prepaid_plan: no terms");
  std::vector<PrepaidOrder> term_orders;
  std::vector<Decimal> costs;
  for (int term : allowed_terms) {
    term_orders.push_back(prepaid_order(monthly_price, term, discount_for(term), policy));
    costs.push_back(term_orders.back().charged.amount());
  }
  const TermCover cover = cheapest_cover(allowed_terms, costs, months_needed);
  PrepaidPlan plan{{}, static_cast<int>(cover.length), Money(cover.cost, monthly_price.currency())};
  for (std::size_t i = 0; i < term_orders.size(); ++i) {
    if (cover.counts[i] > 0) plan.orders.push_back({term_orders[i], cover.counts[i]});
  }
  std::stable_sort(
      plan.orders.begin(), plan.orders.end(),
      [](const PlannedOrder& a, const PlannedOrder& b) { return a.order.months > b.order.months; });
  return plan;
}

ExpirySchedule schedule_for_expiry(Instant expiry, const BillingPolicy& policy,
                                   const Calendar& calendar) {
  ExpirySchedule s{expiry, expiry, expiry};
  // Day 1 of the recycle bin is the day after the expiry day; destroyed at 00:00 on day N+1.
  // The expiry day is the order's expiry date: the day before a term that ends at midnight.
  const Instant day_of_expiry = expiry_day_anchor(expiry, policy);
  if (policy.recycle_bin_days > 0)
    s.destroy_at = calendar.midnight_after(day_of_expiry, policy.recycle_bin_days + 1);
  if (policy.auto_renew_local_time) {
    const auto day = date::sys_days{calendar.local_day(day_of_expiry)} -
                     date::days{policy.auto_renew_days_before};
    s.auto_renew_at = calendar.from_local(date::local_seconds{day.time_since_epoch()} +
                                          *policy.auto_renew_local_time);
  } else {
    s.auto_renew_at =
        calendar.from_local(calendar.to_local(expiry) - date::days{policy.auto_renew_days_before});
  }
  s.auto_renew_at = std::min(s.auto_renew_at, expiry);
  return s;
}

ExpirySchedule expiry_schedule(Instant period_start, int months, const BillingPolicy& policy,
                               const Calendar& calendar) {
  return schedule_for_expiry(prepaid_term_end(period_start, months, policy, calendar), policy,
                             calendar);
}

UpgradeCharge upgrade_charge(const Money& old_monthly, const Money& new_monthly,
                             std::int64_t remaining_seconds, Decimal discount_factor,
                             const BillingPolicy& policy) {
  const Money difference = new_monthly - old_monthly;
  const Money zero = Money::zero(new_monthly.currency());
  // remaining days / (365/12) = remaining_seconds × 12 / (365 × 86400)
  const Decimal months =
      remaining_seconds <= 0
          ? Decimal{}
          : Decimal::divide(Decimal(remaining_seconds * 12), 365 * kSecondsPerDay, Decimal::kScale,
                            RoundingMode::half_even);
  if (difference.amount().sign() <= 0 || remaining_seconds <= 0) {
    return {difference, months, zero, zero};
  }
  const Money exact(difference.amount() * months * discount_factor, new_monthly.currency());
  return {difference, months, exact, rounded_by_policy(exact, policy)};
}

UpgradeByTermDays upgrade_charge_term_days(const Money& old_monthly, const Money& new_monthly,
                                           std::int64_t remaining_seconds,
                                           std::int64_t term_seconds, Decimal discount_factor,
                                           const BillingPolicy& policy) {
  const auto whole_days = [](std::int64_t seconds) {
    return seconds <= 0 ? std::int64_t{0} : (seconds + kSecondsPerDay - 1) / kSecondsPerDay;
  };
  const Currency ccy = new_monthly.currency();
  const std::int64_t remaining_days = whole_days(remaining_seconds);
  const std::int64_t term_days = std::max<std::int64_t>(1, whole_days(term_seconds));
  const Money difference = new_monthly - old_monthly;
  const Money per_day(
      Decimal::divide(difference.amount(), term_days, Decimal::kScale, RoundingMode::half_even),
      ccy);
  const Decimal months =
      Decimal::divide(Decimal(remaining_days), term_days, Decimal::kScale, RoundingMode::half_even);
  const bool charged = difference.amount().sign() > 0 && remaining_days > 0;
  const Money exact =
      charged ? Money(per_day.amount() * remaining_days * discount_factor, ccy) : Money::zero(ccy);
  const Money fee = charged ? rounded_by_policy(exact, policy) : Money::zero(ccy);
  return {UpgradeCharge{difference, months, exact, fee}, remaining_days, term_days, per_day};
}

Money upgrade_fee(const Money& old_monthly, const Money& new_monthly,
                  std::int64_t remaining_seconds, Decimal discount_factor,
                  const BillingPolicy& policy) {
  return upgrade_charge(old_monthly, new_monthly, remaining_seconds, discount_factor, policy).fee;
}

Refund prepaid_refund(const Money& paid, Instant purchased_at, Instant at,
                      const Money& monthly_price, Decimal discount_factor,
                      const Money& hourly_price, const BillingPolicy& policy,
                      const Calendar& calendar) {
  Refund r{paid, true, 0, 0, Money::zero(paid.currency())};
  if ((at - purchased_at).count() <= std::int64_t{policy.full_refund_days} * kSecondsPerDay) {
    return r;
  }
  r.full = false;
  while (calendar.add_months(purchased_at, r.whole_months_used + 1) <= at) ++r.whole_months_used;
  r.partial_seconds_used = (at - calendar.add_months(purchased_at, r.whole_months_used)).count();
  const Money months_value = monthly_price * r.whole_months_used * discount_factor;
  const Money hours_value = settle(hourly_price, r.partial_seconds_used, policy).exact;
  r.used_value = rounded_by_policy(months_value + hours_value, policy);
  r.amount = max_money(paid - r.used_value, Money::zero(paid.currency()));
  return r;
}

std::optional<Instant> auto_renew_retry(Instant failed_at, Instant expiry,
                                        const BillingPolicy& policy, const Calendar& calendar) {
  if (!policy.auto_renew_retry_daily) return std::nullopt;
  const Instant next = calendar.from_local(calendar.to_local(failed_at) + date::days{1});
  if (next >= expiry) return std::nullopt;
  return next;
}

SustainedUse sustained_use_credit(const std::vector<UsageHour>& hours, std::int64_t month_seconds,
                                  const std::vector<Decimal>& tiers) {
  if (month_seconds <= 0) throw std::invalid_argument("sustained_use_credit: empty month");
  SustainedUse out;
  if (tiers.empty()) return out;
  std::int64_t most = 0;
  for (const auto& h : hours) most = std::max(most, h.seconds);
  const std::int64_t inferred = (most + kSecondsPerHour - 1) / kSecondsPerHour;
  const auto n = static_cast<std::int64_t>(tiers.size());
  Decimal sum;  // Σ price × (1 − tier) × seconds, divided by 3600 once
  // Seconds at one price and tier are added up before they are multiplied (a month of hours
  // is a handful of groups): price × (1 − tier) is the same value for each, so the sum is
  // exactly the one taken hour by hour.
  const Decimal* group_price = nullptr;
  std::int64_t group_tier = -1;
  std::int64_t group_seconds = 0;
  const auto flush = [&] {
    if (group_seconds > 0) {
      sum +=
          *group_price * (Decimal(1) - tiers[static_cast<std::size_t>(group_tier)]) * group_seconds;
    }
    group_seconds = 0;
  };
  for (std::int64_t k = 0; k < inferred; ++k) {
    std::int64_t used = 0;  // this inferred instance's seconds so far this month
    for (const auto& h : hours) {
      std::int64_t s =
          std::clamp<std::int64_t>(h.seconds - k * kSecondsPerHour, 0, kSecondsPerHour);
      while (s > 0) {
        const std::int64_t tier = std::min(n - 1, used * n / month_seconds);
        // Tier i holds the integers `used` with i/n <= used / month < (i+1)/n.
        const std::int64_t tier_end = ((tier + 1) * month_seconds + n - 1) / n;
        const std::int64_t part = tier == n - 1 ? s : std::min(s, tier_end - used);
        if (group_price == nullptr || tier != group_tier || !(h.hourly_price == *group_price)) {
          flush();
          group_price = &h.hourly_price;
          group_tier = tier;
        }
        group_seconds += part;
        used += part;
        s -= part;
      }
    }
    out.inferred.push_back(used);
  }
  flush();
  out.credit = Decimal::divide(sum, kSecondsPerHour, Decimal::kScale, RoundingMode::half_even);
  return out;
}

ArrearsTimeline arrears_timeline(Instant negative_since, const BillingPolicy& policy) {
  const Instant shutdown = negative_since + std::chrono::hours{policy.arrears_grace_hours};
  return {shutdown, shutdown + std::chrono::hours{policy.arrears_retention_hours}};
}

}  // namespace gpubill::rules
