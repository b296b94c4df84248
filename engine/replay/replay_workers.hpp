// Private to the engine: replay_logs with ReplayOptions::workers > 1 (replay_workers.cpp).
#pragma once

#include <string>
#include <vector>

#include "gpubill/replay/replay.hpp"

namespace gpubill::replay_detail {

// Reads the logs, then replays each of their accounts in a transaction of its own (holding the
// account's lock), by `options.workers` connections on PostgreSQL or one after another on
// SQLite, then writes the end of the replay (quarantined lines, idle accounts, clock, run) in
// one last transaction. Throws what replay_logs throws; accounts committed before a failure
// stay (a rerun completes the others).
ReplayReport replay_with_workers(Database& db, const Catalog& catalog,
                                 const std::vector<std::string>& paths,
                                 const ReplayOptions& options);

}  // namespace gpubill::replay_detail
