// Private to the engine: reading the offer summary (offer_summary.hpp, migration 0015).
#pragma once

#include "store/connection.hpp"

#include <optional>

#include "gpubill/catalog/offer_summary.hpp"

namespace gpubill {

// The stored offer summary (every offer of the catalog, grouped; loaded_gpus empty), or nullopt
// when there is none or the catalog changed since it was built: a stale summary is never read.
// Throws store::SqlError, StoreError when it does not decode.
std::optional<UnloadedOffers> read_offer_summary(store::Connection& db);

}  // namespace gpubill
