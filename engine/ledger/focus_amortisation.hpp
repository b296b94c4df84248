// Private to the engine: spreading a FOCUS purchase over the hours it covers (focus.hpp).
//
// A purchase of amount A covering T seconds is cut into hour slices aligned to its start; slice
// k covers the elapsed seconds [t_k, t_{k+1}). Its share is computed from the purchase alone,
// without the other slices (so the export streams):
//   share_k = C(t_{k+1}) − C(t_k),  C(t) = A · t / T truncated toward zero to the quantum,
// the quantum being the largest of 0.01 and A's own last decimal (an amount in cents is spread
// in cents). The shares telescope: C(0) = 0 and C(T) = A, so they add up to A exactly; every
// share is within one quantum of the exact proportion, and the remainders fall on the slices
// where the truncated cumulative sum crosses a quantum (deterministic, no state).
#pragma once

#include <cstdint>
#include <optional>

#include "gpubill/base/decimal.hpp"

namespace gpubill::focus_amortisation {

// Seconds of one slice: an hour.
inline constexpr std::int64_t kSliceSeconds = 3600;

// How many slices a span of `span_seconds` (> 0) has: the last one may be shorter than an hour.
std::int64_t slice_count(std::int64_t span_seconds) noexcept;

// The quantum `amount` is spread in: 0.01 when it is a whole number of cents, else its own
// last decimal (down to 1e-12).
Decimal quantum_of(Decimal amount) noexcept;

// The coarsest quantum q for which factor × (a multiple of q) is exact in Decimal's 12
// decimals: 10^-(12 − the decimals of factor). 15.09 → 1e-10.
Decimal quantum_for_factor(Decimal factor) noexcept;

// a × b when it is exact in 12 decimals (and fits), else nullopt.
std::optional<Decimal> exact_product(Decimal a, Decimal b) noexcept;

// Slice k's share of `amount` spread over `span_seconds` in `quantum`, as above. REQUIRES:
// span_seconds > 0, 0 <= k < slice_count(span_seconds), amount a multiple of quantum.
Decimal slice_share(Decimal amount, Decimal quantum, std::int64_t span_seconds, std::int64_t k);

}  // namespace gpubill::focus_amortisation
