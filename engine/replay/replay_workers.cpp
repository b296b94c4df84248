// replay_logs with workers (ReplayOptions::workers > 1): the logs are read first, their events
// collected by account; then every account is simulated without writing, to number its rows as
// one worker numbers them (replay_plan.hpp); then each account is replayed and settled in a
// transaction of its own, holding the account's lock (store::Transaction with an account), by N
// workers each with its own connection on PostgreSQL; then the end of the replay (the
// quarantined lines, the clock, the run) is written in one last transaction. On SQLite (one
// writer per file) the accounts are written one after another on the one connection, each in a
// savepoint of one transaction that also writes the end (AccountWrite).
// docs/postgresql.md, "replay --workers".
#include <algorithm>
#include <atomic>
#include <exception>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "gpubill/base/errors.hpp"
#include "gpubill/catalog/catalog.hpp"
#include "gpubill/store/db.hpp"
#include "replay/replay_driver.hpp"
#include "replay/replay_plan.hpp"
#include "replay/replay_workers.hpp"
#include "store/connection.hpp"
#include "store/store.hpp"

namespace gpubill::replay_detail {

namespace {

struct AccountEvents {
  std::string name;
  std::vector<Driver::LoggedEvent> events;
};

// The log read and checked, before anything is written: a malformed line without
// skip_invalid fails the replay here, with nothing applied, as it does with one worker.
struct ReadLog {
  std::vector<Driver::LogFile> files;
  std::vector<AccountEvents> accounts;  // largest first, then by name
  LogHash hash;                         // of the files' lines, for the plan (replay_plan.hpp)
};

ReadLog read_log(Driver& reader, const std::vector<std::string>& paths,
                 const ReplayOptions& options) {
  ReadLog log;
  std::unordered_map<std::string, std::size_t> index;  // account → position in log.accounts
  if (options.progress) {
    for (const auto& path : paths) {
      std::error_code ec;  // a file that cannot be read fails in read_file
      const auto size = std::filesystem::file_size(path, ec);
      if (!ec) reader.bytes_total += size;
    }
  }
  for (const auto& path : paths) {
    const auto file = static_cast<std::uint32_t>(log.files.size());
    log.files.push_back({path, path});
    const bool json = log_format_of(path) == LogFormat::jsonl;
    reader.read_file(path, [&](const UsageEvent& ev, std::int64_t line, const std::string& raw) {
      reader.note_event(ev, path, line);
      auto [it, added] = index.try_emplace(ev.account, log.accounts.size());
      if (added) log.accounts.push_back({ev.account, {}});
      log.accounts[it->second].events.push_back(
          {raw, json ? std::string() : to_json(ev), line, file, reader.position_of_last_line()});
      log.hash.add(line);
      log.hash.add(raw);
    });
    log.files.back().canonical = reader.canonical_path();
    log.hash.add(log.files.back().canonical);
  }
  reader.for_each_deferred([&](std::int64_t line, const std::string& raw) {
    log.hash.add(line);
    log.hash.add(raw);
  });
  if (options.progress) {
    reader.bytes_total = reader.bytes_done;
    reader.report_bytes(reader.bytes_done);
  }
  // The longest accounts first, so that no worker is left with a long one at the end.
  std::sort(log.accounts.begin(), log.accounts.end(), [](const auto& a, const auto& b) {
    if (a.events.size() != b.events.size()) return a.events.size() > b.events.size();
    return a.name < b.name;
  });
  return log;
}

void add_counts(ReplayReport& to, const ReplayReport& from) {
  to.applied += from.applied;
  to.duplicates += from.duplicates;
  to.rejected += from.rejected;
  to.charge_rows += from.charge_rows;
  to.settlements += from.settlements;
}

// Constructs a Worker(connection, context) and calls its run(i) for the indexes [0, count) it
// takes, then its result(): on `threads` threads each with a connection of its own on
// PostgreSQL; on SQLite one Worker on `db`, the indexes one after another. The first failure
// stops the others and is rethrown.
template <class Worker, class Context>
std::vector<typename Worker::Result> run_workers(Database& database, store::Connection& db,
                                                 int threads, std::size_t count, Context& context) {
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  const auto work = [&](store::Connection& conn) {
    Worker w(conn, context);
    while (!failed.load()) {
      const std::size_t i = next.fetch_add(1);
      if (i >= count) break;
      try {
        w.run(i);
      } catch (...) {
        failed.store(true);
        throw;
      }
    }
    return w.result();
  };
  if (db.backend() == store::Backend::sqlite) return {work(db)};
  const auto n = static_cast<std::size_t>(
      std::max(1, std::min<int>(threads, static_cast<int>(std::max<std::size_t>(count, 1)))));
  std::vector<typename Worker::Result> results(n);
  std::vector<std::exception_ptr> errors(n);
  std::vector<std::thread> pool;
  pool.reserve(n);
  for (std::size_t t = 0; t < n; ++t) {
    pool.emplace_back([&, t] {
      try {
        auto own = store::Connection::open(database.impl().target, database.impl().connect);
        results[t] = work(*own);
      } catch (...) {
        failed.store(true);
        errors[t] = std::current_exception();
      }
    });
  }
  for (auto& t : pool) t.join();
  for (const auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  return results;
}

// What one account's writes (or the end's) are committed in. PostgreSQL: a transaction of its
// own, holding the account's lock. SQLite: nothing of its own — the replay's one write
// transaction (replay_with_workers) holds them all, from the first pass to the end. The plan
// numbers rows in one worker's order, so an account's rows are scattered over each table's
// B-tree: a commit per account would write most of the database's pages again each time, and a
// savepoint per account would journal them (measured, 10,000 instances in 1,000 accounts: 69 s
// with a commit each, 20 s with a savepoint each). Within one transaction no other replay
// writes, so the rows cannot differ from the plan; were they to, the whole replay rolls back.
class AccountWrite {
 public:
  AccountWrite(store::Connection& db, const std::optional<std::string>& account) {
    if (db.backend() != store::Backend::sqlite) {
      tx_.emplace(db, store::Transaction::Kind::write, "replay", account);
    }
  }
  void commit() {
    if (tx_) tx_->commit();
  }
  // Whether a failure rolls back this account's writes alone (and it can be written again).
  static bool undoable(const store::Connection& db) {
    return db.backend() != store::Backend::sqlite;
  }

 private:
  std::optional<store::Transaction> tx_;
};

// A stage's progress over accounts ("plan", "accounts"), reported by the worker threads one at
// a time: accounts done (of all the log's), events in them.
class AccountsProgress {
 public:
  void account_done(const ReplayOptions& options, const char* stage, std::size_t accounts,
                    std::size_t events) {
    if (!options.progress) return;
    const std::lock_guard lock(mutex_);
    ++accounts_done_;
    events_done_ += static_cast<std::int64_t>(events);
    options.progress({stage, accounts_done_, accounts, "accounts", events_done_, "events"});
  }

 private:
  std::mutex mutex_;
  std::uint64_t accounts_done_ = 0;
  std::int64_t events_done_ = 0;
};

// ---- the first pass: every account simulated, its rows counted by position ----

struct CountContext {
  const Catalog& catalog;
  const ReplayOptions& options;
  const ReadLog& log;
  const Driver::EndClock& end;
  std::vector<CountedWriter>& counted;  // by index of log.accounts
  AccountsProgress progress;            // "plan": accounts simulated
};

class Counter {
 public:
  using Result = int;
  Counter(store::Connection& db, CountContext& c) : c_(c), driver_(db, c.catalog, c.options, true) {
    // PostgreSQL: a connection of its own, which reads what the replay's lock keeps still. SQLite:
    // the replay's connection, in the transaction that holds the lock.
    if (db.backend() == store::Backend::postgres) {
      snapshot_.emplace(db, store::Transaction::Kind::read_snapshot);
    }
  }
  void run(std::size_t i) {
    const AccountEvents& a = c_.log.accounts[i];
    CountedWriter& w = c_.counted[i];
    w.account = a.name;
    driver_.count_rows(&w.rows);
    w.loaded = driver_.replay_account(a.name, a.events, c_.log.files, c_.end);
    c_.progress.account_done(c_.options, "plan", c_.log.accounts.size(), a.events.size());
  }
  Result result() { return 0; }

 private:
  CountContext& c_;
  std::optional<store::Transaction> snapshot_;
  Driver driver_;
};

// ---- the second pass: each account written in its own transaction ----

struct WriteContext {
  const Catalog& catalog;
  const ReplayOptions& options;
  const ReadLog& log;
  const Driver::EndClock& end;
  const RowPlan& plan;        // by index of log.accounts
  AccountsProgress progress;  // "accounts": accounts committed
};

class Writer {
 public:
  using Result = ReplayReport;
  Writer(store::Connection& db, WriteContext& c)
      : db_(db), c_(c), driver_(db, c.catalog, c.options) {}

  // The account in a transaction of its own, numbered by the plan; should its rows differ from
  // the plan's (another replay of the log wrote it meanwhile), written again as one worker
  // numbers rows.
  void run(std::size_t i) {
    const AccountEvents& account = c_.log.accounts[i];
    for (const bool numbered : {true, false}) {
      const Driver::Counters before = driver_.counters();
      try {
        AccountWrite tx(db_, account.name);
        driver_.number_rows(numbered ? &c_.plan.writers[i] : nullptr);
        driver_.replay_account(account.name, account.events, c_.log.files, c_.end);
        driver_.check_plan_taken();
        tx.commit();
        break;
      } catch (const PlanMismatch&) {
        driver_.forget_account(account.name);
        if (!AccountWrite::undoable(db_)) throw;
        driver_.restore(before);
      } catch (...) {
        driver_.forget_account(account.name);
        throw;
      }
    }
    c_.progress.account_done(c_.options, "accounts", c_.log.accounts.size(), account.events.size());
  }
  Result result() {
    ReplayReport r = driver_.report;
    r.charge_rows = driver_.charge_rows();
    r.settlements = driver_.settlements();
    return r;
  }

 private:
  store::Connection& db_;
  WriteContext& c_;
  Driver driver_;
};

// The accounts of earlier replays that the log has no events of and that the replay's end
// settles, in the order one worker settles them (finish_run's), added to the log as accounts
// without events; returns every idle account, in that order.
std::vector<std::string> add_idle_accounts(store::Connection& db, ReadLog& log,
                                           const Driver::EndClock& end) {
  std::vector<std::string> idle;
  if (!end.clock) return idle;
  store::Statement q(db, "SELECT account FROM account_state WHERE clock < ? ORDER BY account");
  q.bind(1, static_cast<int64_t>(*end.clock));
  while (q.executeStep()) idle.push_back(q.getColumn(0).getString());
  std::unordered_set<std::string> in_log;
  for (const auto& a : log.accounts) in_log.insert(a.name);
  for (const auto& name : idle) {
    if (!in_log.count(name)) log.accounts.push_back({name, {}});
  }
  return idle;
}

// The first pass and the plan, in a transaction holding the database's lock (no replay writes
// meanwhile; the plan is kept when it commits).
RowPlan plan_rows(Database& database, store::Connection& db, const Catalog& catalog,
                  const ReplayOptions& options, Driver& main, ReadLog& log,
                  const Driver::EndClock& end) {
  AccountWrite tx(db, std::nullopt);  // PostgreSQL: the database's lock
  const std::vector<std::string> idle = add_idle_accounts(db, log, end);
  std::vector<CountedWriter> counted(log.accounts.size() + 1);  // the last: the end's rejects
  CountContext context{catalog, options, log, end, counted, {}};
  run_workers<Counter>(database, db, options.workers, log.accounts.size(), context);
  main.count_deferred_rejects(&counted.back().rows);
  LogHash hash = log.hash;
  hash.add(end.clock.value_or(-1));
  hash.add(options.until ? replay::to_seconds(*options.until) : -1);
  RowPlan plan = plan_row_numbers(db, counted, idle, main.report.events_read, hash.hex());
  tx.commit();
  return plan;
}

// The end, once: the quarantined lines (numbered by the plan's last writer), the clock, the
// run; the plan dropped.
void write_end(store::Connection& db, Driver& main, const ReadLog& log, const RowPlan& plan,
               const Driver::EndClock& end) {
  std::unordered_set<std::string> replayed;
  for (const auto& a : log.accounts) replayed.insert(a.name);
  for (const bool numbered : {true, false}) {
    const Driver::Counters before = main.counters();
    try {
      AccountWrite tx(db, std::nullopt);  // PostgreSQL: the database's lock
      main.number_rows(numbered ? &plan.writers.back() : nullptr);
      main.write_deferred_rejects();
      main.check_plan_taken();
      main.number_rows(nullptr);
      main.finish_run(end, replayed);
      drop_row_plan(db);
      tx.commit();
      return;
    } catch (const PlanMismatch&) {
      if (!AccountWrite::undoable(db)) throw;
      main.restore(before);
    }
  }
}

}  // namespace

ReplayReport replay_with_workers(Database& database, const Catalog& catalog,
                                 const std::vector<std::string>& paths,
                                 const ReplayOptions& options) {
  auto& db = connection(database);
  ScopedCacheSize cache(db, std::max<std::int64_t>(options.page_cache_kib, 2048));
  Driver main(db, catalog, options);
  main.defer_rejects();
  ReadLog log = read_log(main, paths, options);
  // SQLite: one write transaction from here to the end (AccountWrite).
  std::optional<store::Transaction> one;
  if (db.backend() == store::Backend::sqlite) {
    one.emplace(db, store::Transaction::Kind::write, "replay");
  }
  Driver::EndClock end;
  {
    std::optional<store::Transaction> snapshot;
    if (!one) snapshot.emplace(db, store::Transaction::Kind::read_snapshot);
    end = main.end_clock();
  }
  const RowPlan plan = plan_rows(database, db, catalog, options, main, log, end);

  ReplayReport report = main.report;  // events read, malformed lines skipped
  WriteContext context{catalog, options, log, end, plan, {}};
  for (const auto& r :
       run_workers<Writer>(database, db, options.workers, log.accounts.size(), context)) {
    add_counts(report, r);
  }
  write_end(db, main, log, plan, end);
  if (one) one->commit();
  report.charge_rows += main.charge_rows();
  report.settlements += main.settlements();
  report.clock = main.report.clock;
  return report;
}

}  // namespace gpubill::replay_detail
