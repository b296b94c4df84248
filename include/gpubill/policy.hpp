// A provider's billing rules for one period, read from the catalog's policy rows (billing
// policies are data: a new provider or a rule change is a row, not code).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "gpubill/decimal.hpp"
#include "gpubill/time.hpp"

namespace gpubill {

// A half-open period [from, to) in which a catalog row is in force; no `to` = open-ended.
struct Effective {
  Instant from{};
  std::optional<Instant> to;
  bool contains(Instant t) const noexcept { return from <= t && (!to || t < *to); }
};

struct BillingPolicy {
  std::int64_t id = 0;  // policy row id (recorded on every charge it produces)
  std::string provider;
  Effective period;
  // Usage is counted in whole units of this many seconds; a started unit counts whole.
  int metering_granularity_seconds = 1;
  // Pay-as-you-go settlement: "hour" = every hour on the hour, provider's billing time zone.
  std::string settlement_period = "hour";
  RoundingMode settlement_rounding = RoundingMode::half_up;
  int settlement_decimals = 2;
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
  bool prepaid_destroy_before_expiry = false;
  int full_refund_days = 5;
  bool stopped_payg_compute_charged = true;
  bool payg_available = true;
  std::string source;
  std::string as_of;
};

}  // namespace gpubill
