#include "gpubill/rules/spot_pricing.hpp"

#include <algorithm>
#include <chrono>

namespace gpubill::rules {

PricedPiece spot_priced_piece(
    const BillingPolicy& policy, Instant created, Instant start, Instant hour_end,
    const std::function<std::optional<Instant>(Instant)>& next_price_change) {
  if (policy.spot_price_basis == SpotPriceBasis::hour_start) return {start, hour_end};
  if (policy.spot_price_basis == SpotPriceBasis::deal_then_per_second) {
    const Instant protection_end = created + std::chrono::hours{policy.spot_protection_hours};
    if (start < protection_end) return {created, std::min(hour_end, protection_end)};
  }
  Instant end = hour_end;
  if (const auto change = next_price_change(start); change && *change > start) {
    end = std::min(end, *change);
  }
  return {start, end};
}

}  // namespace gpubill::rules
