// The price a spot (preemptible) meter pays within an hour when the spot price changes during
// it: the policy's spot_price_basis (gpubill/catalog/policy.hpp), as a pure rule used by replay
// and explain alike. Quotes price spot at one price row and are not affected.
#pragma once

#include <functional>
#include <optional>

#include "gpubill/base/time.hpp"
#include "gpubill/catalog/policy.hpp"

namespace gpubill::rules {

// One piece of a spot meter's hour: priced at the price row in force at `price_at`, from the
// piece's start to `end`.
struct PricedPiece {
  Instant price_at;
  Instant end;
};

// The piece of an hour that starts at `start` (the first second of use in the hour, or where
// the previous piece ended) and whose hour ends at `hour_end` (> start), for a spot meter of an
// instance created at `created`. `next_price_change(t)` gives the first instant after t at which
// the price row in force at t ends (nullopt = none known).
//   hour_start            {start, hour_end}: the hour at the price of its first second;
//   per_second            {start, min(hour_end, next_price_change(start))};
//   deal_then_per_second  while start < created + spot_protection_hours: {created,
//                         min(hour_end, created + protection)} — the deal price; after it,
//                         per_second.
PricedPiece spot_priced_piece(
    const BillingPolicy& policy, Instant created, Instant start, Instant hour_end,
    const std::function<std::optional<Instant>(Instant)>& next_price_change);

}  // namespace gpubill::rules
