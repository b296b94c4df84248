// Spreading a purchase over its hours (focus_amortisation.hpp).
#include "ledger/focus_amortisation.hpp"

#include <algorithm>

namespace gpubill::focus_amortisation {

namespace {

// C(t): amount · t / span truncated toward zero to a multiple of quantum.
Decimal cumulative(Decimal amount, Decimal quantum, std::int64_t span, std::int64_t t) {
  const int128_t steps = amount.units() / quantum.units();  // exact: amount is a multiple
  const int128_t covered = divide_rounded(steps * t, span, RoundingMode::down);
  return Decimal::from_units(covered * quantum.units());
}

}  // namespace

std::int64_t slice_count(std::int64_t span_seconds) noexcept {
  return (span_seconds + kSliceSeconds - 1) / kSliceSeconds;
}

Decimal quantum_of(Decimal amount) noexcept {
  int128_t quantum = Decimal::kOne / 100;
  while (quantum > 1 && amount.units() % quantum != 0) quantum /= 10;
  return Decimal::from_units(quantum);
}

Decimal quantum_for_factor(Decimal factor) noexcept {
  int128_t quantum = 1;  // 1e-12
  for (int128_t step = Decimal::kOne; step > 1 && factor.units() % step != 0; step /= 10) {
    quantum *= 10;
  }
  return Decimal::from_units(quantum);
}

std::optional<Decimal> exact_product(Decimal a, Decimal b) noexcept {
  int128_t product = 0;
  if (__builtin_mul_overflow(a.units(), b.units(), &product)) return std::nullopt;
  if (product % Decimal::kOne != 0) return std::nullopt;
  return Decimal::from_units(product / Decimal::kOne);
}

Decimal slice_share(Decimal amount, Decimal quantum, std::int64_t span_seconds, std::int64_t k) {
  const std::int64_t from = k * kSliceSeconds;
  const std::int64_t to = std::min(span_seconds, from + kSliceSeconds);
  return cumulative(amount, quantum, span_seconds, to) -
         cumulative(amount, quantum, span_seconds, from);
}

}  // namespace gpubill::focus_amortisation
