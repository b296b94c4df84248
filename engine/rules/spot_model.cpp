// The expected running time of work on interruptible instances (see gpubill/rules/spot_model.hpp).
#include "gpubill/rules/spot_model.hpp"

namespace gpubill {

SpotRunExpectation expected_spot_run(std::int64_t work_seconds, const SpotInterruptionModel& m,
                                     int max_run_hours) noexcept {
  SpotRunExpectation e;
  if (work_seconds <= 0 || m.checkpoint_interval_hours.sign() <= 0) return e;
  const Decimal half_interval =
      Decimal::divide(m.checkpoint_interval_hours, 2, Decimal::kScale, RoundingMode::half_even);
  Decimal denominator = Decimal(1) - m.interruptions_per_hour * (half_interval + m.restart_hours);
  if (max_run_hours > 0) {
    denominator -=
        Decimal::divide(m.restart_hours, max_run_hours, Decimal::kScale, RoundingMode::half_even);
  }
  if (denominator.sign() <= 0) return e;
  // T = W × (τ + c) / (τ × denominator), in seconds rounded up. The operands stay far inside
  // Decimal's range: W ≤ 100 years of seconds, τ and c are bounded by the workload's limits.
  const Decimal numerator =
      Decimal(work_seconds) * (m.checkpoint_interval_hours + m.checkpoint_write_hours);
  const Decimal divisor = m.checkpoint_interval_hours * denominator;
  // T > the limit ⇔ numerator > divisor × limit; checked before dividing, which a tiny divisor
  // would overflow.
  if (divisor.sign() <= 0 || numerator > divisor * kMaxSpotRunningSeconds) return e;
  const Decimal running = Decimal::divide(numerator, divisor, 0, RoundingMode::up);
  e.finishes = true;
  e.work_seconds = work_seconds;
  e.running_seconds = running.truncate_to_int();
  e.interruptions = Decimal::divide(m.interruptions_per_hour * e.running_seconds, 3600,
                                    Decimal::kScale, RoundingMode::half_even);
  if (max_run_hours > 0) {
    const std::int64_t limit = std::int64_t{max_run_hours} * 3600;
    e.planned_stops = (e.running_seconds + limit - 1) / limit - 1;
  }
  e.lives = 1 + e.interruptions.round(0, RoundingMode::half_up).truncate_to_int() + e.planned_stops;
  return e;
}

}  // namespace gpubill
