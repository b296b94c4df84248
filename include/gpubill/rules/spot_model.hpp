// What interruptions cost on spot (preemptible) instances: how long a run of work is expected
// to hold an instance when capacity is reclaimed at random, the work since the last checkpoint
// is lost and the job restarts, and the provider stops every instance after a maximum run time.
//
// A steady-state model: each interruption costs on average half a checkpoint interval of
// redone work plus a restart; writing checkpoints costs their time on top of the work; a
// provider's planned stop after M hours costs one restart (a checkpoint is written just before
// it). With W the run's work (its running time without interruptions), the expected running
// time T is
//
//     T = W × (1 + c / τ) / (1 − λ × (τ / 2 + r) − r / M)
//
// λ interruptions per hour of running, τ the checkpoint interval, c the time to write one
// checkpoint, r the time to restart, all in hours (the r / M term only when the provider has a
// maximum run time M). The run is then expected to see λ × T interruptions and ceil(T / M) − 1
// planned stops, and is billed as that many instance lives plus one.
#pragma once

#include <cstdint>

#include "gpubill/base/decimal.hpp"

namespace gpubill {

struct SpotInterruptionModel {
  Decimal interruptions_per_hour;                  // λ ≥ 0, per hour of running
  Decimal checkpoint_interval_hours = Decimal(1);  // τ > 0; default 1 h
  Decimal checkpoint_write_hours;                  // c ≥ 0; default 0
  Decimal restart_hours;                           // r ≥ 0; default 0
};

struct SpotRunExpectation {
  // False when the expected losses eat all progress (the denominator is 0 or below) or the run
  // would take more than kMaxRunningSeconds; the other fields are then 0.
  bool finishes = false;
  std::int64_t work_seconds = 0;     // W
  std::int64_t running_seconds = 0;  // T, rounded up to a whole second
  Decimal interruptions;             // λ × T: expected, not a whole number
  std::int64_t planned_stops = 0;    // ceil(T / M) − 1 by the provider's maximum run time
  // Instance lives billed: 1 + interruptions rounded half-up + planned stops. Each life runs
  // running_seconds / lives (rounded up to a second) and is billed as a run of its own.
  std::int64_t lives = 1;
};

// 100 years: a longer expectation is reported as not finishing.
inline constexpr std::int64_t kMaxSpotRunningSeconds = 100LL * 365 * 86400;

// The expectation for one run of `work_seconds` (> 0) under `model`, on a provider that stops
// spot instances after `max_run_hours` of running (0 = never). Pure; throws nothing.
SpotRunExpectation expected_spot_run(std::int64_t work_seconds, const SpotInterruptionModel& model,
                                     int max_run_hours) noexcept;

}  // namespace gpubill
