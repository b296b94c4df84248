// Replay: turns usage logs into bills under each provider's rules (docs/usage-log.md).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gpubill/base/money.hpp"
#include "gpubill/base/progress.hpp"
#include "gpubill/base/time.hpp"
#include "gpubill/store/db.hpp"

namespace gpubill {

class Catalog;

// The default cap of a replay's SQLite page cache, in KiB (ReplayOptions::page_cache_kib).
inline constexpr std::int64_t kDefaultReplayCacheKiB = 256 * 1024;

struct ReplayOptions {
  // Malformed lines go to the rejects table instead of stopping the import.
  bool skip_invalid = false;
  // Settle every account up to this instant after the logs (e.g. a month end); unset = up to
  // the latest event time seen.
  std::optional<Instant> until;

  // Guards against implausible times (a typo of 2091 for 2019 would otherwise bill every
  // account for decades, with no way back). An event time or `until` later than `not_after` is
  // refused (InputError naming file, line and field `time`, or `--until`); so is one before the
  // catalog's first price. The engine never reads the wall clock: the CLI sets `not_after` to
  // now plus a margin. Unset: no upper bound.
  std::optional<Instant> not_after;
  // An account with instances that would be settled for longer than this in one step (from its
  // clock to the next event, or to the end of the replay) is refused unless
  // allow_long_settlement: such a gap is almost always a wrong date.
  std::chrono::seconds max_settlement_step = std::chrono::days{400};
  bool allow_long_settlement = false;

  // How large the SQLite page cache may grow during the replay, in KiB. SQLite takes pages
  // only as it needs them, so a small replay stays small (a 30-day log of 10,000 instances
  // peaks at about 230 MB); a long one reaches the cap. A replay is one transaction: a page
  // that falls out of the cache is written to the WAL and read back through the WAL's hash
  // tables, which grow with the transaction, so a cap below the replay's working set slows
  // long replays down (docs/benchmarks.md, "Replay"). Values below 2048 are raised to 2048.
  std::int64_t page_cache_kib = kDefaultReplayCacheKiB;

  // Reports "replay" progress in bytes of the log files read (total: their sizes, summed), every
  // kProgressEvery events and once when every file is read.
  ProgressSink progress;

  // Above 1: the logs are read first (a malformed line without skip_invalid still fails the
  // replay before anything is written); every account is simulated without writing, to give
  // its rows the numbers (event seqs, row ids) one worker gives them; then each account is
  // replayed and settled up to the replay's end in a transaction of its own, holding the
  // account's lock, by this many connections at once on PostgreSQL, and the end (quarantined
  // lines, clock, run) is written in a last transaction. The rows, numbers included, are one
  // worker's. On PostgreSQL the replay is atomic per account, not across accounts: after a
  // failure the accounts committed stay, and a rerun of the same logs completes the others, each
  // event applied once and every row numbered as one uninterrupted worker numbers it. On SQLite
  // (one writer per file) the accounts are replayed one after another in one transaction, which
  // is atomic as a whole as with one worker (docs/postgresql.md, "replay --workers").
  // Progress: "replay" while the logs are read, then "plan" (accounts simulated) and
  // "accounts" (accounts committed), of the log's and the idle ones, reported by the worker
  // threads one at a time.
  int workers = 1;
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

  // How the database's page cache fared during the replay (SQLite's per-connection counters,
  // SQLITE_DBSTATUS_CACHE_*): pages found in the cache, pages read because they were not,
  // pages written, and of those the ones written early because the cache was full. They do
  // not depend on how busy the machine is, so benchmarks compare them across log sizes and
  // cache caps (docs/benchmarks.md).
  struct PageCacheCounts {
    std::int64_t hits = 0;
    std::int64_t misses = 0;
    std::int64_t writes = 0;
    std::int64_t spills = 0;
  } page_cache;
};

// Replays the logs (JSON Lines `.jsonl` or CSV `.csv`, by extension) in order, in one
// transaction: either all of it is applied or, on a malformed line without skip_invalid,
// nothing (throws InputError naming file, line and field). With skip_invalid, a line whose
// time is outside the guards above is quarantined like a malformed one; a long settlement step
// always stops the replay. The catalog is read from `db` (Catalog::load_for_billing).
// Throws StoreError on database failures.
ReplayReport replay_logs(Database& db, const std::vector<std::string>& paths,
                         const ReplayOptions& options = {});
// The same with a catalog already in memory (tests, benchmarks). Charge rows name the catalog's
// row ids, so it should be the database's catalog for `gpubill explain` to find them.
ReplayReport replay_logs(Database& db, const Catalog& catalog,
                         const std::vector<std::string>& paths, const ReplayOptions& options = {});

// Rebuilding accounts from the events stored by earlier replays: their charges, balance
// movements, state history and rule rejects are deleted and computed again, applying the stored
// events (but void ones) in the order they were stored and settling at the points the replays
// did (each run's end; migration 0006), so that a rebuild of an unchanged database writes the
// same rows as the replays did. For a way back from a mistake: void the events, or import the
// right prices, then rebuild.
struct RebuildOptions {
  // The accounts to rebuild; empty: every account, and the replay clock is recomputed from the
  // events that are not void (a void event can no longer hold it up). With accounts named, the
  // replay clock stays where it is.
  std::vector<std::string> accounts;
  // Settle up to at least this instant at the end.
  std::optional<Instant> until;
  // The time guards of ReplayOptions.
  std::optional<Instant> not_after;
  std::chrono::seconds max_settlement_step = std::chrono::days{400};
  bool allow_long_settlement = false;
  // Reports "rebuild" progress in stored events re-applied (total: the events to re-apply),
  // every kProgressEvery events and once at the end.
  ProgressSink progress;
};

// A charge line a rebuild re-priced: its billed total before and after (unset: the line was not
// there), matched on account, instance, component, kind, mode, unit (a meter of the instance)
// and period.
struct MovedLine {
  std::string account, instance, component, kind;
  Instant period_start{}, period_end{};
  std::optional<Money> before, after;
};

struct RebuildReport {
  std::vector<std::string> accounts;  // rebuilt, sorted
  // Every charge line of these accounts whose billed total the rebuild changed, added or
  // removed, by account, start, instance, component: what re-pricing the past moved.
  std::vector<MovedLine> moved;
  ReplayReport replay;  // events re-applied, applied, rejected, rows, clock
  std::optional<Instant> clock_before;
  std::int64_t void_events = 0;  // stored events of these accounts left out as void
};

// Rebuilds in one transaction (all or nothing). Throws NotFound for an account with no stored
// event, InputError from the time guards, StoreError on database failures.
RebuildReport rebuild_accounts(Database& db, const RebuildOptions& options = {});
RebuildReport rebuild_accounts(Database& db, const Catalog& catalog, const RebuildOptions& options);

// Declares the events `event_ids` of `account` void, giving `reason` (required), and rebuilds
// in the same transaction: the account alone when every replay's clock stays where it was, else
// every account (a void event moved the replay clock). Throws NotFound for an unknown event,
// InputError for an event already void or an empty reason.
RebuildReport void_events(Database& db, const std::string& account,
                          const std::vector<std::string>& event_ids, const std::string& reason,
                          const RebuildOptions& options = {});

// One change of an instance's state written by replay (table instance_state): running, stopped,
// arrears_stopped, recycle_bin, destroyed; `reason` starts with what caused it (create, start,
// stop, resize, renewal, auto_renewal, auto_renewal_failed, expiry, arrears, arrears_cleared,
// reclaim, recycle_bin_expired, destroy, set_auto_renew, unpriced) and may explain more after ": ".
struct InstanceStateRow {
  std::int64_t id = 0;
  std::string account, instance;
  Instant at{};
  std::string state, reason;
  std::optional<std::int64_t> event_seq;  // unset: caused by time
};

struct InstanceStateFilter {
  std::optional<std::string> account, instance;
  // Only the latest row of each instance (its state now).
  bool current = false;
};

// The state history, ordered by (account, instance, at, id). Throws StoreError.
std::vector<InstanceStateRow> query_instance_states(Database& db,
                                                    const InstanceStateFilter& filter = {});
// The same rows in the same order, handed to `fn` one at a time as they are read (memory does
// not grow with the rows). Throws StoreError, and whatever `fn` throws.
void for_each_instance_state(Database& db, const InstanceStateFilter& filter,
                             const std::function<void(const InstanceStateRow&)>& fn);

}  // namespace gpubill
