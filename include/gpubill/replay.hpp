// Replay: turns usage logs into bills under each provider's rules (docs/usage-log.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpubill/time.hpp"

namespace gpubill {

class Database;

struct ReplayOptions {
  // Malformed lines go to the rejects table instead of stopping the import.
  bool skip_invalid = false;
  // Settle every account up to this instant after the logs (e.g. a month end); unset = up to
  // the latest event time seen.
  std::optional<Instant> until;
};

struct ReplayReport {
  std::int64_t events_read = 0;
  std::int64_t applied = 0;
  std::int64_t duplicates = 0;         // ids seen before: not applied again
  std::int64_t rejected = 0;           // forbidden by the rules: in the rejects table
  std::int64_t malformed_skipped = 0;  // with skip_invalid
  std::int64_t charge_rows = 0;        // rows written to the charge table
  std::int64_t settlements = 0;        // hourly settlements those rows stand for
  std::optional<Instant> clock;        // the replay clock afterwards
};

// Replays the logs (JSON Lines `.jsonl` or CSV `.csv`, by extension) in order, in one
// transaction: either all of it is applied or, on a malformed line without skip_invalid,
// nothing (throws InputError naming file, line and field). The catalog is read from `db`.
// Throws StoreError on database failures.
ReplayReport replay_logs(Database& db, const std::vector<std::string>& paths,
                         const ReplayOptions& options = {});

}  // namespace gpubill
