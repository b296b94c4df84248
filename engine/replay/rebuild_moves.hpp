// Private to the engine: what a rebuild changed in the bills it rebuilt — every charge line whose
// billed total moved, appeared or went away (RebuildReport::moved).
#pragma once

#include <vector>

#include "gpubill/replay/replay.hpp"
#include "store/connection.hpp"

namespace gpubill::replay_detail {

// Keeps the charge lines of the accounts in table rebuild_target (before they are deleted).
void keep_charges_before(store::Connection& db);

// The lines kept by keep_charges_before that the rebuilt charges of those accounts no longer
// have with the same total, and the new lines without a match, ordered by account, start, end,
// instance, component, kind and unit. A line is matched on account, instance, component, kind,
// mode, unit (which meter of the instance) and period. Empties what keep_charges_before kept.
std::vector<MovedLine> moved_lines(store::Connection& db);

}  // namespace gpubill::replay_detail
