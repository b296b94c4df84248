// rebuild_accounts and void_events: recomputing accounts from their stored events, with the
// replay driver (replay_driver.hpp), in one write transaction, on SQLite or PostgreSQL.
#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "gpubill/base/errors.hpp"
#include "gpubill/catalog/catalog.hpp"
#include "gpubill/replay/replay.hpp"
#include "replay/rebuild_moves.hpp"
#include "replay/replay_driver.hpp"
#include "store/store.hpp"

namespace gpubill {

namespace {

using replay::Seconds;
using replay_detail::Driver;
using replay_detail::keep_charges_before;
using replay_detail::moved_lines;

// Where each replay run ended, recomputed from the events that are not void.
struct RunEnd {
  std::int64_t last_seq = 0;
  Seconds clock = 0;
};

std::vector<RunEnd> run_ends(store::Connection& db) {
  std::vector<std::pair<std::int64_t, std::optional<Seconds>>> runs;
  {
    store::Statement q(db, "SELECT last_seq, until FROM replay_run ORDER BY id");
    while (q.executeStep()) {
      runs.emplace_back(q.getColumn(0).getInt64(),
                        q.getColumn(1).isNull()
                            ? std::nullopt
                            : std::optional<Seconds>(q.getColumn(1).getInt64()));
    }
  }
  std::vector<RunEnd> ends;
  store::Statement events(db,
                          "SELECT seq, time FROM event WHERE seq NOT IN (SELECT seq FROM "
                          "event_void) ORDER BY seq");
  bool more = events.executeStep();
  std::optional<Seconds> clock;
  for (const auto& [last_seq, until] : runs) {
    while (more && events.getColumn(0).getInt64() <= last_seq) {
      const Seconds t = events.getColumn(1).getInt64();
      clock = std::max(clock.value_or(t), t);
      more = events.executeStep();
    }
    if (until) clock = std::max(clock.value_or(*until), *until);
    if (clock) ends.push_back({last_seq, *clock});
  }
  // Events stored by a gpubill older than the run table: one run that ends at the last of them.
  std::optional<std::int64_t> tail_seq;
  while (more) {
    const Seconds t = events.getColumn(1).getInt64();
    clock = std::max(clock.value_or(t), t);
    tail_seq = events.getColumn(0).getInt64();
    more = events.executeStep();
  }
  if (tail_seq) ends.push_back({*tail_seq, *clock});
  return ends;
}

std::optional<Seconds> stored_clock(store::Connection& db) {
  store::Statement q(db, "SELECT clock FROM replay_clock WHERE one = 1");
  if (!q.executeStep()) return std::nullopt;
  return q.getColumn(0).getInt64();
}

std::vector<std::string> accounts_to_rebuild(store::Connection& db,
                                             const std::vector<std::string>& named) {
  std::set<std::string> known;
  {
    store::Statement q(db, "SELECT account FROM account_state UNION SELECT account FROM event");
    while (q.executeStep()) known.insert(q.getColumn(0).getString());
  }
  if (named.empty()) return {known.begin(), known.end()};
  std::set<std::string> out;
  for (const auto& a : named) {
    if (!known.count(a)) throw NotFound("no account '" + a + "' in the database's events");
    out.insert(a);
  }
  return {out.begin(), out.end()};
}

// A table of the accounts being rebuilt, for the statements below.
void fill_targets(store::Connection& db, const std::vector<std::string>& accounts) {
  db.exec("CREATE TEMP TABLE IF NOT EXISTS rebuild_target(account TEXT PRIMARY KEY)");
  db.exec("DELETE FROM rebuild_target");
  store::Statement q(db, "INSERT INTO rebuild_target(account) VALUES(?)");
  for (const auto& a : accounts) {
    q.reset();
    q.bind(1, a);
    q.exec();
  }
}

// The raw text of the rule rejects about to be deleted, so that re-rejected events keep it (the
// event table stores the parsed event, not the line).
std::map<std::pair<std::string, std::int64_t>, std::string> rule_reject_lines(
    store::Connection& db) {
  std::map<std::pair<std::string, std::int64_t>, std::string> out;
  store::Statement q(db,
                     "SELECT source_file, source_line, raw FROM reject WHERE kind = 'rule' AND "
                     "account IN (SELECT account FROM rebuild_target)");
  while (q.executeStep()) {
    out.emplace(std::pair(q.getColumn(0).getString(), q.getColumn(1).getInt64()),
                q.getColumn(2).getString());
  }
  return out;
}

void delete_derived_rows(store::Connection& db) {
  // Whole statements, not pieced together (GCC 12 misreads the concatenation, -Warray-bounds).
  for (const char* sql :
       {"DELETE FROM balance_movement WHERE account IN (SELECT account FROM rebuild_target)",
        "DELETE FROM charge WHERE account IN (SELECT account FROM rebuild_target)",
        "DELETE FROM instance_state WHERE account IN (SELECT account FROM rebuild_target)",
        "DELETE FROM account_state WHERE account IN (SELECT account FROM rebuild_target)",
        "DELETE FROM reject WHERE kind = 'rule' AND account IN (SELECT account FROM "
        "rebuild_target)",
        "UPDATE event SET status = 'applied' WHERE account IN (SELECT account FROM "
        "rebuild_target)"}) {
    db.exec(sql);
  }
  if (db.backend() == store::Backend::postgres) {
    // SQLite numbers a new row after the largest id left; a PostgreSQL identity goes on from
    // the last one it gave. Set back to SQLite's, the rebuilt rows get the ids they get there
    // (ids are printed: `charges`, `explain`).
    for (const char* table : {"balance_movement", "charge", "instance_state", "reject"}) {
      db.exec_native(std::string("SELECT setval(pg_get_serial_sequence('") + table +
                     "', 'id'), coalesce(max(id), 0) + 1, false) FROM " + table);
    }
  }
}

RebuildReport rebuild_in_transaction(store::Connection& db, const Catalog& catalog,
                                     const RebuildOptions& options) {
  RebuildReport report;
  report.accounts = accounts_to_rebuild(db, options.accounts);
  const std::optional<Seconds> before = stored_clock(db);
  if (before) report.clock_before = replay::to_instant(*before);
  const std::vector<RunEnd> ends = run_ends(db);

  // The final clock: recomputed for a full rebuild; kept for some accounts (the others stay
  // settled up to it).
  std::optional<Seconds> final_clock;
  if (options.accounts.empty()) {
    if (!ends.empty()) final_clock = ends.back().clock;
  } else {
    final_clock = before;
  }
  if (options.until) {
    const Seconds until = replay::to_seconds(*options.until);
    final_clock = std::max(final_clock.value_or(until), until);
  }
  if (final_clock && options.not_after && replay::to_instant(*final_clock) > *options.not_after) {
    throw InputError(
        options.until ? "--until" : "the stored events", "", "",
        replay_detail::later_than_allowed(replay::to_instant(*final_clock), *options.not_after) +
            "; void the event or check the year");
  }

  fill_targets(db, report.accounts);
  const auto raw_of = rule_reject_lines(db);
  {
    store::Statement q(db,
                       "SELECT count(*) FROM event_void JOIN event USING (seq) WHERE account IN "
                       "(SELECT account FROM rebuild_target)");
    q.executeStep();
    report.void_events = q.getColumn(0).getInt64();
  }
  keep_charges_before(db);
  delete_derived_rows(db);

  ReplayOptions replay_options;
  replay_options.not_after = options.not_after;
  replay_options.max_settlement_step = options.max_settlement_step;
  replay_options.allow_long_settlement = options.allow_long_settlement;
  Driver driver(db, catalog, replay_options);
  // In batches, so that no statement reads the event table while the driver writes to it.
  constexpr int kBatch = 10'000;
  store::Statement batch(db,
                         "SELECT seq, payload, source_file, source_line FROM event WHERE seq > ? "
                         "AND account IN (SELECT account FROM rebuild_target) AND seq NOT IN "
                         "(SELECT seq FROM event_void) ORDER BY seq LIMIT " +
                             std::to_string(kBatch));
  std::size_t next_end = 0;
  const auto settle_runs_before = [&](std::int64_t seq) {
    for (; next_end < ends.size() && ends[next_end].last_seq < seq; ++next_end) {
      driver.settle_loaded(ends[next_end].clock,
                           "the end of replay run " + std::to_string(next_end + 1));
    }
  };
  struct Stored {
    std::int64_t seq, line;
    std::string payload, file;
  };
  std::vector<Stored> events;
  Progress progress{"rebuild", 0, 0, "events", 0, "events"};
  if (options.progress) {
    store::Statement q(db,
                       "SELECT count(*) FROM event WHERE account IN (SELECT account FROM "
                       "rebuild_target) AND seq NOT IN (SELECT seq FROM event_void)");
    q.executeStep();
    progress.total = static_cast<std::uint64_t>(q.getColumn(0).getInt64());
  }
  for (std::int64_t after = 0;;) {
    events.clear();
    batch.reset();
    batch.bind(1, static_cast<int64_t>(after));
    while (batch.executeStep()) {
      events.push_back({batch.getColumn(0).getInt64(), batch.getColumn(3).getInt64(),
                        batch.getColumn(1).getString(), batch.getColumn(2).getString()});
    }
    batch.reset();
    for (const Stored& e : events) {
      settle_runs_before(e.seq);
      const auto raw = raw_of.find({e.file, e.line});
      driver.reapply(e.seq, e.payload, e.file, e.line,
                     raw == raw_of.end() ? e.payload : raw->second);
      if (options.progress && ++progress.items % kProgressEvery == 0) {
        progress.done = static_cast<std::uint64_t>(progress.items);
        options.progress(progress);
      }
    }
    if (events.size() < static_cast<std::size_t>(kBatch)) break;
    after = events.back().seq;
  }
  if (options.progress) {
    progress.done = progress.total = static_cast<std::uint64_t>(progress.items);
    options.progress(progress);
  }
  settle_runs_before(std::numeric_limits<std::int64_t>::max());
  if (final_clock) {
    driver.settle_loaded(*final_clock, options.until ? "--until" : "the replay clock");
    driver.set_replay_clock(*final_clock);
  } else if (options.accounts.empty()) {
    db.exec("DELETE FROM replay_clock");  // every event is void: no clock
  }
  report.replay = driver.report;
  report.replay.charge_rows = driver.charge_rows();
  report.replay.settlements = driver.settlements();
  report.moved = moved_lines(db);
  db.exec("DELETE FROM rebuild_target");
  return report;
}

template <typename Work>
RebuildReport in_write_transaction(Database& db, const char* what, Work work) {
  auto& sql = connection(db);
  try {
    ScopedCacheSize cache(sql, kDefaultReplayCacheKiB);
    store::Transaction tx(sql, store::Transaction::Kind::write, what);
    RebuildReport report = work(sql);
    tx.commit();
    return report;
  } catch (const store::SqlError& e) {
    throw StoreError(std::string(what) + ": database error: " + e.what());
  }
}

}  // namespace

RebuildReport rebuild_accounts(Database& db, const Catalog& catalog,
                               const RebuildOptions& options) {
  return in_write_transaction(db, "rebuild", [&](store::Connection& sql) {
    return rebuild_in_transaction(sql, catalog, options);
  });
}

RebuildReport rebuild_accounts(Database& db, const RebuildOptions& options) {
  const Catalog catalog = Catalog::load_for_billing(db);
  return rebuild_accounts(db, catalog, options);
}

RebuildReport void_events(Database& db, const std::string& account,
                          const std::vector<std::string>& event_ids, const std::string& reason,
                          const RebuildOptions& options) {
  if (reason.empty())
    throw InputError("command line", "", "--reason", "say why the events are void");
  const Catalog catalog = Catalog::load_for_billing(db);
  return in_write_transaction(db, "void", [&](store::Connection& sql) {
    const std::vector<RunEnd> before = run_ends(sql);
    store::Statement find(sql,
                          "SELECT seq, seq IN (SELECT seq FROM event_void) FROM event WHERE "
                          "account = ? AND id = ?");
    store::Statement mark(sql, "INSERT INTO event_void(seq, reason) VALUES(?, ?)");
    for (const auto& id : event_ids) {
      find.reset();
      find.bind(1, account);
      find.bind(2, id);
      if (!find.executeStep()) {
        throw NotFound("no event '" + id + "' of account '" + account + "' was replayed");
      }
      if (find.getColumn(1).getInt() != 0) {
        throw InputError("command line", "", "event",
                         "event '" + id + "' of account '" + account + "' is void already");
      }
      mark.reset();
      mark.bind(1, static_cast<int64_t>(find.getColumn(0).getInt64()));
      mark.bind(2, reason);
      mark.exec();
    }
    const std::vector<RunEnd> after = run_ends(sql);
    const bool clocks_kept = before.size() == after.size() &&
                             std::equal(before.begin(), before.end(), after.begin(),
                                        [](const RunEnd& a, const RunEnd& b) {
                                          return a.last_seq == b.last_seq && a.clock == b.clock;
                                        });
    RebuildOptions o = options;
    o.accounts = clocks_kept ? std::vector<std::string>{account} : std::vector<std::string>{};
    return rebuild_in_transaction(sql, catalog, o);
  });
}

}  // namespace gpubill
