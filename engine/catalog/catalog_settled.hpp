// Private to the engine: what a price import changes in hours already settled.
#pragma once

#include "store/connection.hpp"

#include <string>
#include <vector>

#include "gpubill/catalog/catalog.hpp"

namespace gpubill {

// For each price row of `imported` (already written to `db`) that is in force before the
// replay clock: the settled charge lines of the same subject, mode and region whose period it
// overlaps but which were priced with another row, per account — a warning for the import
// report, naming the `gpubill rebuild` that would re-price them. Empty when nothing is
// affected or nothing was replayed.
std::vector<std::string> settled_charges_affected(store::Connection& db,
                                                  const std::vector<PriceRow>& imported);

}  // namespace gpubill
