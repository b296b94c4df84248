// Prepaid lifecycle rules as pure functions (issue 27, part A; docs/provider-rules.md): when a
// subscription term ends, what an ordinary return refunds, what a downgrade refunds. Each reads
// the policy row's PrepaidLifecycle (policy.hpp); none reads the clock or the database. Money is
// exact; amounts are rounded once, with the policy's settlement rounding and decimals.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "gpubill/base/money.hpp"
#include "gpubill/base/time.hpp"
#include "gpubill/catalog/policy.hpp"

namespace gpubill::rules {

// prepaid_term_end: the end of a term of `months` calendar months from `start` (a purchase, or
// the previous end for a renewal): start + months with the day clamped to the month's end
// (Calendar::add_months), then, with PrepaidTermEnd::next_midnight, moved to the first local
// 00:00 at or after it, or with PrepaidTermEnd::day_end to 23:59:59 local of its day.
// REQUIRES months >= 1 (std::invalid_argument otherwise).
Instant prepaid_term_end(Instant start, int months, const BillingPolicy& policy,
                         const Calendar& calendar);
// The local instant the provider's "expiry day" counts from: the expiry itself, or one second
// before it when terms end at midnight (the order's expiry date is the day before).
Instant expiry_day_anchor(Instant expiry, const BillingPolicy& policy);

// The order being returned (or downgraded): what was paid for it (orders, renewals, upgrades),
// when it was bought and when it ends, its monthly list price, the factor of its term discount,
// the pay-as-you-go hourly price of the same type (months_then_payg only) and the discount
// factor of an order of N months (1 when none).
struct PrepaidHolding {
  Money paid;
  Instant purchased_at;
  Instant expiry;
  Money monthly;
  Decimal order_factor{1};
  Money hourly;
  std::function<Decimal(int)> factor_for_months;
};

// prepaid_return: the refund of an ordinary return at `at` (policy.prepaid.return_used_value):
//   months_then_payg  used = whole calendar months since the purchase × monthly × factor (the
//                     order's factor, or with used_months_at_their_term_discount the factor of
//                     an order of that many months) + the rest of the time at the hourly price
//                     (to the second);
//   pro_rata_hours    used = paid × used hours / ordered hours: hours counted from the local hour
//                     the order started, ordered hours up to the expiry (a started hour counting
//                     whole: 23:59:59 counts to 00:00), used hours up to the start of the hour
//                     of `at`;
//   pro_rata_days     used = paid × used days / ordered days, from the purchase, a started day
//                     counting whole;
// fee = paid × return_fee_percent / 100; amount = paid − used − fee, never below 0. `used` and
// `fee` are rounded with the policy's settlement rounding.
struct ReturnValue {
  Money paid, used, fee, amount;
  int whole_months = 0;           // months_then_payg
  Decimal months_factor{1};       // months_then_payg: the factor the whole months were valued at
  std::int64_t rest_seconds = 0;  // months_then_payg: the time after the whole months
  std::int64_t used_hours = 0, ordered_hours = 0;  // pro_rata_hours
  std::int64_t used_days = 0, ordered_days = 0;    // pro_rata_days
  std::string formula;                             // the arithmetic, for a charge line's note
};
ReturnValue prepaid_return(const PrepaidHolding& holding, Instant at, const BillingPolicy& policy,
                           const Calendar& calendar);

// downgrade_refund (policy.prepaid.downgrade_refund = return_minus_new_order): the old order is
// returned (prepaid_return at `at`) and a new order of the new type bought for the time left:
//   months   = the whole calendar months from `at` to the expiry when they reach it exactly,
//              else the remaining days / 30 (to the second);
//   new cost = new_monthly × months × the factor of an order of the whole months left;
//   refund   = return − new cost when positive, else 0.
// consumed_days_price_ratio (Alibaba): `returned` holds the consumed fee (used) and paid − used
// (amount), where
//   days     = the order's days, purchase to expiry, and the days used, purchase to `at`, a
//              started day counting whole (at most the order's days);
//   used     = monthly list price × the order's whole months / its days × the days used × the
//              factor of an order of the whole calendar months used (1 under a month), × 1.5
//              when fewer than 30 days were used;
//   ratio    = (old − new monthly price) / old monthly price, within 0..1 (both orders' daily
//              prices are over the same days, so their monthly prices stand for them; an upgrade
//              before the downgrade is not modelled);
//   refund   = (paid − used) × ratio, never below 0; the new order counts paid − used − refund.
// With DowngradeRefund::none the refund is 0 and new_paid is what was paid. `formula` ends with
// the refund.
struct DowngradeValue {
  ReturnValue returned;
  Decimal new_months;
  Decimal new_factor{1};
  Money new_cost, refund;
  Money new_paid;  // what the new order counts as paid for a later return: min(return, cost)
  std::string formula;
};
DowngradeValue downgrade_refund(const PrepaidHolding& holding, const Money& new_monthly, Instant at,
                                const BillingPolicy& policy, const Calendar& calendar);

}  // namespace gpubill::rules
