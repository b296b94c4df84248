// A purchase's amortised share of a period (ledger.hpp, amortised_share), as the FOCUS export
// spreads it (focus_amortisation.hpp).
#include <algorithm>

#include "gpubill/ledger/ledger.hpp"
#include "ledger/focus_amortisation.hpp"
#include "ledger/focus_map.hpp"

namespace gpubill {

namespace {

// The first slice (hour k, aligned to `start`) starting at or after `t`, within [0, slices].
std::int64_t first_slice_from(Instant start, Instant t, std::int64_t slices) {
  const std::int64_t d = (t - start).count();
  if (d <= 0) return 0;
  const std::int64_t step = focus_amortisation::kSliceSeconds;
  return std::min(slices, (d + step - 1) / step);
}

}  // namespace

std::optional<Decimal> amortised_share(const ChargeLine& purchase, Instant from, Instant to) {
  const ChargeLine& c = purchase;
  if (!focus_map::covers_future_use(c.kind) || c.repeat != 1 || c.period_end <= c.period_start) {
    return std::nullopt;
  }
  const Decimal amount = c.rounding.is_zero() ? c.billed_amount : c.exact_amount;
  if (amount.is_zero()) return std::nullopt;
  const std::int64_t span = (c.period_end - c.period_start).count();
  const std::int64_t slices = focus_amortisation::slice_count(span);
  const Decimal quantum = focus_amortisation::quantum_of(amount);
  const std::int64_t k0 = first_slice_from(c.period_start, from, slices);
  const std::int64_t k1 = std::max(k0, first_slice_from(c.period_start, to, slices));
  Decimal share;
  for (std::int64_t k = k0; k < k1; ++k) {
    share += focus_amortisation::slice_share(amount, quantum, span, k);
  }
  return share;
}

}  // namespace gpubill
