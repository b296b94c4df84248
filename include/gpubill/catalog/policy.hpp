// A provider's billing rules for one period, read from the catalog's policy rows (billing
// policies are data: a new provider or a rule change is a row, not code).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpubill/base/decimal.hpp"
#include "gpubill/base/time.hpp"

namespace gpubill {

// How often a pay-as-you-go resource is settled: one settlement record per cycle, rounded once
// with the policy's rounding. Usage is still metered hour by hour; with a cycle longer than an
// hour each hour's usage record is kept exact and the cycle's record is rounded at its end
// (a local day or calendar month in the provider's billing time zone). "hour" = every hour on
// the hour, each hour rounded on its own.
enum class SettlementPeriod { hour, day, month };
std::string_view to_string(SettlementPeriod period) noexcept;
// "hour", "day" or "month". Throws ParseError.
SettlementPeriod parse_settlement_period(std::string_view text);

// The price a spot meter pays when the spot price changes within an hour (policy field
// spot_price_basis; rules::spot_priced_piece applies it):
//   hour_start            the price in force at the hour's first second of use, for the whole
//                         hour (Huawei: "按9:00起始成交价");
//   per_second            each second at the price in force then: the hour is cut where the
//                         price changes (AWS from 2017-10-02);
//   deal_then_per_second  the price at creation (the deal price) for the protection period
//                         (spot_protection_hours from creation), then per_second (Alibaba).
enum class SpotPriceBasis { hour_start, per_second, deal_then_per_second };
std::string_view to_string(SpotPriceBasis basis) noexcept;
// "hour_start", "per_second" or "deal_then_per_second". Throws ParseError.
SpotPriceBasis parse_spot_price_basis(std::string_view text);

// How a pay-as-you-go usage record is rounded (policy field usage_rounding; rules::settle_usage):
//   settlement  with settlement_rounding to settlement_decimals, each record on its own;
//   down_carry  rounded down to settlement_decimals, the part below carried into the meter's
//               next record (Baidu: 10.6 cents → 10, 0.6 carried; 10.6 + 0.6 = 11.2 → 11).
// Orders and refunds are rounded with settlement_rounding either way.
enum class UsageRounding { settlement, down_carry };
std::string_view to_string(UsageRounding rounding) noexcept;
// "settlement" or "down_carry". Throws ParseError.
UsageRounding parse_usage_rounding(std::string_view text);

// What a pay-as-you-go meter bills, for the settlement cycle of each kind.
enum class MeteredResource { compute, disk, bandwidth };

// ---- Prepaid lifecycle rules (issue 27, part A; docs/provider-rules.md) -------------------
// The rules a prepaid (subscription) order follows from its purchase to its return, read from
// the policy row's "prepaid_lifecycle" object (docs/catalog-format.md) and applied by the pure
// functions of include/gpubill/rules/prepaid_lifecycle.hpp. Defaults are the rules gpubill
// applied to every provider before these fields existed.

// When a prepaid term of N months ends (in the provider's billing time zone):
//   same_time      start + N calendar months, at the time of day it was bought (Tencent);
//   next_midnight  the first local 00:00 at or after start + N months: the order ends at the end
//                  of its expiry day, at the midnight after it (Alibaba "次日的零点");
//   day_end        the last second of the local day of start + N months, 23:59:59: the order
//                  ends within its expiry day, and a renewal starts at that second (Huawei
//                  "终点则是到期日的23:59:59").
// Renewals add months to the previous end, then apply the same rule.
enum class PrepaidTermEnd { same_time, next_midnight, day_end };
// The value of the time used, taken off what was paid, in an ordinary (not no-reason) return:
//   months_then_payg  whole months used at the monthly price × discount, the rest at the
//                     pay-as-you-go hourly price, to the second (Tencent);
//   pro_rata_hours    paid × used hours / ordered hours, both counted in whole hours from the
//                     hour the order started (used hours cut to the hour of the return; Huawei);
//   pro_rata_days     paid × used days / ordered days, days from the purchase, a started day
//                     counting whole (Baidu: a month bought Jan 10 11:00 is 31 days; returned
//                     Jan 16 15:00, 7 are used and 24/31 of the paid amount comes back).
enum class ReturnUsedValue { months_then_payg, pro_rata_hours, pro_rata_days };
// What a downgrade of a prepaid instance refunds:
//   none                    nothing (the new, cheaper type runs to the same expiry);
//   return_minus_new_order  the refund an ordinary return would give now, less the cost of a
//                           new order of the new type for the remaining time; nothing when that
//                           is not positive (Tencent).
//   consumed_days_price_ratio  (paid − the consumed fee) × (old − new daily price) / old daily
//                           price; the consumed fee is the order's list price per day × the days
//                           used (a started day counting whole) × the discount of an order of the
//                           whole months used, × 1.5 when fewer than 30 days were used (Alibaba,
//                           "Refund rules for downgrades"; rules::downgrade_refund).
enum class DowngradeRefund { none, return_minus_new_order, consumed_days_price_ratio };
// What an upgrade of a prepaid instance costs: the difference of the monthly list prices (new −
// old) for the time left, times the discount of the whole months left; the expiry does not move.
//   months_of_365_12  × remaining days / (365/12), the days to the second (Tencent "升配天数 /
//                     (365/12)"; the default);
//   term_days         per day of the order (the difference / the order's days, 12 decimals) ×
//                     the remaining days, a started day counting whole; the order's days run
//                     from its purchase to its expiry (Baidu: a month from Jan 10 10:00 is 31
//                     days; upgraded Jan 13 11:00 from 45 to 138 CNY, 28 days are left:
//                     93 × 28 / 31 = 84).
enum class UpgradeFee { months_of_365_12, term_days };
std::string_view to_string(PrepaidTermEnd v) noexcept;
std::string_view to_string(ReturnUsedValue v) noexcept;
std::string_view to_string(DowngradeRefund v) noexcept;
std::string_view to_string(UpgradeFee v) noexcept;
// Throw ParseError naming the accepted values.
PrepaidTermEnd parse_prepaid_term_end(std::string_view text);
ReturnUsedValue parse_return_used_value(std::string_view text);
DowngradeRefund parse_downgrade_refund(std::string_view text);
UpgradeFee parse_upgrade_fee(std::string_view text);

struct PrepaidLifecycle {
  PrepaidTermEnd term_end = PrepaidTermEnd::same_time;
  ReturnUsedValue return_used_value = ReturnUsedValue::months_then_payg;
  // months_then_payg: whole months used are valued at the discount a prepaid order of that
  // many months gets (Tencent: 8 months used → the 6–11 month discount), not the order's own.
  bool used_months_at_their_term_discount = false;
  // A handling fee taken off an ordinary return, in percent of what was paid (0 = none).
  Decimal return_fee_percent;
  DowngradeRefund downgrade_refund = DowngradeRefund::none;
  UpgradeFee upgrade_fee = UpgradeFee::months_of_365_12;
  // Where these rules come from (document address or repository@commit:path, with its date).
  std::string source;
};
// ---- end of the prepaid lifecycle rules ---------------------------------------------------------

struct BillingPolicy {
  std::int64_t id = 0;  // policy row id (recorded on every charge it produces)
  std::string provider;
  Effective period;
  // Usage is counted in whole units of this many seconds; a started unit counts whole.
  int metering_granularity_seconds = 1;
  // Pay-as-you-go settlement cycle of compute (instances and their GPUs), and of disks and
  // bandwidth when these are unset. Each cycle's record is rounded with settlement_rounding to
  // settlement_decimals.
  SettlementPeriod settlement_period = SettlementPeriod::hour;
  std::optional<SettlementPeriod> disk_settlement_period, bandwidth_settlement_period;
  RoundingMode settlement_rounding = RoundingMode::half_up;
  int settlement_decimals = 2;
  SettlementPeriod settlement_period_of(MeteredResource resource) const noexcept {
    if (resource == MeteredResource::disk && disk_settlement_period) {
      return *disk_settlement_period;
    }
    if (resource == MeteredResource::bandwidth && bandwidth_settlement_period) {
      return *bandwidth_settlement_period;
    }
    return settlement_period;
  }
  // Each run (start → stop) is billed for at least this many seconds (AWS: 60).
  int min_charge_seconds_per_run = 0;
  // A pay-as-you-go instance's lifetime costs at least this, in the price's currency
  // (Alibaba: 0.01). Unset = no minimum.
  std::optional<Decimal> min_charge_per_lifetime;
  // Arrears: keep running this long after the balance goes negative, then shut down; reclaimed
  // this long after the shutdown unless topped up.
  int arrears_grace_hours = 2;
  int arrears_retention_hours = 24;
  // Prepaid expiry: natural days in the recycle bin; destroyed at 00:00 local on the next day.
  int recycle_bin_days = 7;
  // Auto-renewal is charged this many days before expiry, at this local time of day (unset =
  // at the expiry instant), adding this many months.
  int auto_renew_days_before = 0;
  std::optional<std::chrono::minutes> auto_renew_local_time;
  int auto_renew_months = 1;
  // A failed auto-renewal (balance too low) is tried again every day at the same local time
  // until the expiry (Alibaba, Huawei); false = tried once.
  bool auto_renew_retry_daily = false;
  // May a prepaid instance be returned (destroyed) before its expiry: the ordinary return, and
  // the no-reason return below. Where false, the rule applies to instance types with GPUs.
  bool prepaid_destroy_before_expiry = false;
  // The no-reason return: a full refund within this many days of the purchase (inclusive),
  // at most no_reason_return_limit of them per account (0 = no limit), counted per calendar
  // year in the provider's zone (no_reason_limit_per_year) or over the account's life.
  int full_refund_days = 5;
  int no_reason_return_limit = 0;
  bool no_reason_limit_per_year = true;
  bool stopped_payg_compute_charged = true;
  bool payg_available = true;
  // Sustained use discount (Google): the share of the base rate charged in each equal part of a
  // calendar month of use, in order (1, 0.8, 0.6, 0.4: a full month is 30 % off), for
  // pay-as-you-go instances of these families and the GPUs attached to them. Empty = none.
  // rules::sustained_use_credit says how use is counted.
  std::vector<Decimal> sustained_use_tiers;
  std::vector<std::string> sustained_use_families;
  bool sustained_use_applies_to(std::string_view family) const {
    if (sustained_use_tiers.empty()) return false;
    for (const auto& f : sustained_use_families) {
      if (f == family) return true;
    }
    return false;
  }
  // Spot terms, for quotes' notes (0 = none): a spot/preemptible instance is stopped after this
  // many hours of running (Google preemptible: 24); it is not reclaimed in its first hours
  // (Alibaba's protection period: 1 by default).
  int spot_max_run_hours = 0;
  int spot_protection_hours = 0;
  // ---- Metering and pricing rules (issue 27, part B); keep these together ----
  // Spot price within the hour (SpotPriceBasis above; rules::spot_price_segments).
  SpotPriceBasis spot_price_basis = SpotPriceBasis::hour_start;
  // Hours in a month for quotes: a workload's "months", prices quoted per month, the payg
  // monthly settlement cycle and the prepaid months a span needs are counted in months of this
  // many hours (AWS, Azure and Google's calculators: 730; default 720 = 30 days). A quote may
  // override it (QuoteOptions / --month-hours). Replay never uses it: bills follow calendars.
  int quote_month_hours = 720;
  // How usage records are rounded (UsageRounding above; Baidu: down_carry).
  UsageRounding usage_rounding = UsageRounding::settlement;
  // A disk (volume) is billed for at least this many seconds of its life, from its creation to
  // its release (AWS EBS: "billed in per-second increments, with a 60-second minimum"); 0 = none.
  int disk_min_charge_seconds = 0;
  // A spot instance the provider interrupts within this many seconds of its launch (a `stop` or
  // `destroy` event with `interrupted`) is charged nothing for its compute since the launch
  // (AWS: 3600, "If Amazon EC2 interrupts … in the first hour … No charge"); 0 = never.
  int spot_interrupted_free_seconds = 0;
  // ---- end of metering and pricing rules ----
  // Prepaid lifecycle rules (issue 27 part A): see PrepaidLifecycle above.
  PrepaidLifecycle prepaid;
  std::string source;
  std::string as_of;
};

}  // namespace gpubill
