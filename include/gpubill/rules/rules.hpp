// Billing rules as pure functions: one implementation of each rule, used by replay and quote
// alike. Every rule takes the policy row in force (policy.hpp) and, where calendars matter, the
// provider's Calendar; none reads the wall clock or the database.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "gpubill/base/money.hpp"
#include "gpubill/base/time.hpp"
#include "gpubill/catalog/catalog.hpp"
#include "gpubill/catalog/policy.hpp"

namespace gpubill::rules {

// Seconds billed for `used_seconds` of use: rounded up to whole metering units
// (policy.metering_granularity_seconds; 60 for per-minute, 3600 for "partial hour billed as
// a full hour"). REQUIRES: used_seconds >= 0.
std::int64_t metered_seconds(std::int64_t used_seconds, const BillingPolicy& policy);

// One pay-as-you-go settlement: `seconds` of use at `hourly_price`.
//   exact    = hourly_price × seconds / 3600, to 12 decimals (half-even)
//   billed   = exact rounded with policy.settlement_rounding to policy.settlement_decimals
//   rounding = billed − exact (what rounding added, negative when it dropped), so that
//              billed = exact + rounding holds exactly.
struct Settlement {
  Money exact;
  Money billed;
  Money rounding;
};
Settlement settle(const Money& hourly_price, std::int64_t seconds, const BillingPolicy& policy);

// One hour's usage record of a pay-as-you-go `resource`: settle() when the policy settles the
// resource every hour; when it settles per day or month, the record is kept exact (billed =
// exact, rounding 0) and the cycle's record is rounded at its end (settle_cycle).
Settlement usage_record(const Money& hourly_price, std::int64_t seconds,
                        const BillingPolicy& policy, MeteredResource resource);
// One hour's usage record of a resource priced per month (a disk's gb_month price), prorated by
// the second over the actual seconds of its calendar month (AWS EBS: "charged by the amount you
// provision in GB per month … billed in per-second increments"; a 31-day month has 744 hours):
//   exact = monthly_price × seconds / month_seconds, to 12 decimals (half-even),
// then kept or rounded as usage_record does. `seconds` may be GB-seconds (size × seconds).
// REQUIRES: month_seconds > 0.
Settlement usage_record_of_monthly_price(const Money& monthly_price, std::int64_t seconds,
                                         std::int64_t month_seconds, const BillingPolicy& policy,
                                         MeteredResource resource);
// The settlement record of one cycle whose usage records add up to `exact`: rounded once with
// the policy's rounding (Huawei: truncated to 0.01, the dropped part is "抹零").
Settlement settle_cycle(const Money& exact, const BillingPolicy& policy);
// A usage record under usage_rounding down_carry (Baidu): the record's exact amount plus the
// meter's `carry` is rounded down to settlement_decimals; what is cut becomes the new carry,
// charged with the meter's next record. billed = exact + rounding still holds (rounding =
// carry in − carry out). Baidu: 0.106 → 0.10, carry 0.006; 0.106 + 0.006 = 0.112 → 0.11, carry
// 0.002. Over any run of records from carry 0, the billed total is the exact total rounded
// down. Under usage_rounding settlement: settle_cycle(exact), carry untouched.
Settlement settle_carried(const Money& exact, const BillingPolicy& policy, Decimal& carry);
// The end of the settlement cycle containing t: the next hour, the next local midnight or the
// first instant of the next local calendar month in the calendar's zone.
Instant cycle_end(SettlementPeriod period, Instant t, const Calendar& calendar);
// The start of the settlement cycle containing t.
Instant cycle_start(SettlementPeriod period, Instant t, const Calendar& calendar);

// Cost of `seconds` of continuous pay-as-you-go use starting on a settlement boundary:
// full hours settle one by one (each rounded), the last partial hour on its own; a run shorter
// than policy.min_charge_seconds_per_run is billed as that minimum; the lifetime total is at
// least policy.min_charge_per_lifetime. Used by quotes (replay settles real hours itself).
struct RunCost {
  Money exact;
  Money billed;
  std::int64_t settlements = 0;
};
RunCost payg_run_cost(const Money& hourly_price, std::int64_t seconds, const BillingPolicy& policy);

// Cost of `runs` pay-as-you-go runs of `seconds` each of one meter (one run a day when
// runs > 1) priced `hourly_price` per hour, settled with the policy's cycle for `resource`:
//   hour   payg_run_cost per run, × runs;
//   day / month   each hour's usage record exact (per-run minimum and metering as above), one
//          record per cycle rounded once. A quote places the first run at the start of a cycle;
//          a quoted day is 24 h and a quoted month `month_hours` (720 = 30 days; daily runs
//          fall 30 to a monthly cycle), so runs of a day each fall in a cycle of their own
//          (day) or 30 to a cycle (month).
// `settlements` counts the rounded records. The lifetime minimum applies when runs == 1.
// `month_hours` is the quote's month (policy.quote_month_hours unless the quote overrides it):
// the length of a monthly settlement cycle here.
RunCost payg_runs_cost(const Money& hourly_price, std::int64_t seconds, std::int64_t runs,
                       const BillingPolicy& policy, MeteredResource resource,
                       int month_hours = 720);

// A prepaid order of `months` at `monthly_price` with the term discount `discount` (nullptr =
// list price): charged = monthly × months × factor, rounded with the policy's settlement
// rounding and decimals.
struct PrepaidOrder {
  int months = 0;
  Money list;      // monthly × months
  Decimal factor;  // 1 without a discount
  const DiscountRow* discount = nullptr;
  Money charged;
};
PrepaidOrder prepaid_order(const Money& monthly_price, int months, const DiscountRow* discount,
                           const BillingPolicy& policy);

// The cheapest multiset of terms (each bought any number of times) whose lengths add up to at
// least `needed`, term i costing costs[i]. Ties go to fewer items, then a smaller total length.
// Time and memory do not grow with `needed` (O(longest² × terms)): above a bound, the extra is
// bought in the term with the lowest cost per unit of length (the longest of those), which some
// optimal choice always does (of any `longest` other items, a subset sums to a multiple of that
// term's length and can be replaced by it, never costing more). REQUIRES: lengths and costs of
// equal size, non-empty, lengths >= 1, costs >= 0.
struct TermCover {
  std::vector<std::int64_t> counts;  // per term
  Decimal cost;
  std::int64_t items = 0, length = 0;
};
TermCover cheapest_cover(const std::vector<int>& lengths, const std::vector<Decimal>& costs,
                         std::int64_t needed);

// The cheapest set of prepaid terms whose months add up to at least `months_needed`, choosing
// from `allowed_terms` (e.g. 1..12, 24, 36) with the discount `discount_for(term)` gives (nullptr
// = none). Ties go to fewer orders, then fewer months. REQUIRES: months_needed >= 1.
struct PlannedOrder {
  PrepaidOrder order;
  std::int64_t count = 1;  // bought this many times, one after another
};
struct PrepaidPlan {
  std::vector<PlannedOrder> orders;  // each term once, longest first
  int months_covered = 0;
  Money total;
  std::int64_t order_count() const noexcept;
};
PrepaidPlan cheapest_prepaid_plan(const Money& monthly_price, int months_needed,
                                  const std::vector<int>& allowed_terms,
                                  const std::function<const DiscountRow*(int)>& discount_for,
                                  const BillingPolicy& policy);
// The prepaid terms providers sell: 1–12, 24, 36, 48, 60 months.
const std::vector<int>& standard_prepaid_terms();

// When a prepaid period ends and what follows: shut down at `expiry`; kept in the recycle bin
// for policy.recycle_bin_days natural days after the expiry day; destroyed at 00:00 local on the
// next day (`destroy_at`). Auto-renewal is attempted at `auto_renew_at`.
struct ExpirySchedule {
  Instant expiry;
  Instant auto_renew_at;
  Instant destroy_at;
};
ExpirySchedule expiry_schedule(Instant period_start, int months, const BillingPolicy& policy,
                               const Calendar& calendar);
// The same for a known expiry instant.
ExpirySchedule schedule_for_expiry(Instant expiry, const BillingPolicy& policy,
                                   const Calendar& calendar);

// After an auto-renewal attempt at `failed_at` failed for want of balance: the next attempt,
// one local day later at the same local time, when policy.auto_renew_retry_daily and that is
// still before `expiry`; otherwise none.
std::optional<Instant> auto_renew_retry(Instant failed_at, Instant expiry,
                                        const BillingPolicy& policy, const Calendar& calendar);

// Upgrade of a prepaid instance: (new − old monthly list price) × remaining days / (365/12) ×
// discount factor, remaining days counted to the second (remaining_seconds / 86400), rounded
// with the policy's settlement rounding. A downgrade (negative difference) gives 0 here.
Money upgrade_fee(const Money& old_monthly, const Money& new_monthly,
                  std::int64_t remaining_seconds, Decimal discount_factor,
                  const BillingPolicy& policy);
// The same rule with its parts, for a charge line: remaining months (remaining_seconds × 12 /
// (365 × 86400), 12 decimals), the exact fee before rounding and the fee (= upgrade_fee).
struct UpgradeCharge {
  Money difference;  // new − old monthly (may be negative: a downgrade)
  Decimal remaining_months;
  Money exact;  // 0 for a downgrade
  Money fee;
};
UpgradeCharge upgrade_charge(const Money& old_monthly, const Money& new_monthly,
                             std::int64_t remaining_seconds, Decimal discount_factor,
                             const BillingPolicy& policy);
// Upgrade under policy.prepaid.upgrade_fee = term_days: per_day = (new − old monthly list price)
// / term days (12 decimals, half even); exact = per_day × remaining days × discount factor,
// rounded with the policy's settlement rounding. Days: remaining_seconds / 86400 and
// term_seconds / 86400, each rounded up (a started day counts whole; term_seconds ≤ 0 is
// treated as one day). remaining_months holds remaining days / term days (12 decimals). A
// downgrade (negative difference) gives 0.
struct UpgradeByTermDays {
  UpgradeCharge charge;
  std::int64_t remaining_days = 0, term_days = 0;
  Money per_day;  // the difference per day of the order
};
UpgradeByTermDays upgrade_charge_term_days(const Money& old_monthly, const Money& new_monthly,
                                           std::int64_t remaining_seconds,
                                           std::int64_t term_seconds, Decimal discount_factor,
                                           const BillingPolicy& policy);

// Refund when a prepaid instance is returned at `at`:
//   within policy.full_refund_days days of `purchased_at` (inclusive) → everything paid;
//   otherwise paid − used, used = whole months elapsed × monthly × factor + the rest of the
//   time at the hourly pay-as-you-go price (per second); never below 0.
struct Refund {
  Money amount;
  bool full = false;
  int whole_months_used = 0;
  std::int64_t partial_seconds_used = 0;
  Money used_value;
};
Refund prepaid_refund(const Money& paid, Instant purchased_at, Instant at,
                      const Money& monthly_price, Decimal discount_factor,
                      const Money& hourly_price, const BillingPolicy& policy,
                      const Calendar& calendar);

// Sustained use discount (policy.sustained_use_tiers). The use of one kind of resource (a
// machine type, a GPU model) in one region and calendar month is stacked into inferred
// instances: in each hour the k-th inferred instance is used for
// clamp(seconds − (k−1) × 3600, 0, 3600) seconds, where `seconds` is that hour's metered use of
// the kind (instance-seconds, or GPU-seconds), so instances that run one after another count as
// one. Each inferred instance's seconds are charged at the tier its cumulative use that month
// has reached — tier i covers use from i/n to (i+1)/n of the month's seconds (n tiers) — and the
// credit is what the tiers take off the hours' prices:
//   Σ price × seconds in tier i × (1 − tiers[i]) / 3600   (12 decimals, half-even).
// `hours` are in time order, at most one entry per hour. REQUIRES month_seconds > 0.
struct UsageHour {
  std::int64_t seconds = 0;
  Decimal hourly_price;
};
struct SustainedUse {
  Decimal credit;                      // exact, >= 0
  std::vector<std::int64_t> inferred;  // seconds of use of each inferred instance
};
SustainedUse sustained_use_credit(const std::vector<UsageHour>& hours, std::int64_t month_seconds,
                                  const std::vector<Decimal>& tiers);

// Arrears: the balance went negative at `negative_since`; pay-as-you-go instances are shut down
// policy.arrears_grace_hours later and reclaimed policy.arrears_retention_hours after that.
struct ArrearsTimeline {
  Instant shutdown_at;
  Instant reclaim_at;
};
ArrearsTimeline arrears_timeline(Instant negative_since, const BillingPolicy& policy);

}  // namespace gpubill::rules
