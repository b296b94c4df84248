// replay_logs with workers (ReplayOptions::workers > 1): the logs are read first, their events
// collected by account; then each account is replayed and settled in a transaction of its own,
// holding the account's lock (store::Transaction with an account), by N workers each with its
// own connection on PostgreSQL, or one after another on the one connection on SQLite; then the
// end of the replay (the quarantined lines, the idle accounts, the clock, the run) is written in
// one last transaction. docs/postgresql.md, "replay --workers".
#include <algorithm>
#include <atomic>
#include <exception>
#include <filesystem>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "gpubill/base/errors.hpp"
#include "gpubill/catalog/catalog.hpp"
#include "gpubill/store/db.hpp"
#include "replay/replay_driver.hpp"
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
          {raw, json ? std::string() : to_json(ev), line, file});
    });
    log.files.back().canonical = reader.canonical_path();
  }
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
}

// Replays the accounts log.accounts[next++] until none is left or another worker failed, each
// in its own transaction on `db`.
struct Worker {
  store::Connection& db;
  const Catalog& catalog;
  const ReplayOptions& options;
  const ReadLog& log;
  const Driver::EndClock& end;
  std::atomic<std::size_t>& next;
  std::atomic<bool>& failed;
  // "accounts" progress: accounts committed (of all the log's), events in them.
  std::mutex& progress_mutex;
  std::uint64_t& accounts_done;
  std::int64_t& events_done;

  ReplayReport run() {
    Driver driver(db, catalog, options);
    while (!failed.load()) {
      const std::size_t i = next.fetch_add(1);
      if (i >= log.accounts.size()) break;
      const AccountEvents& account = log.accounts[i];
      try {
        store::Transaction tx(db, store::Transaction::Kind::write, "replay", account.name);
        driver.replay_account(account.name, account.events, log.files, end);
        tx.commit();
        if (options.progress) {
          const std::lock_guard lock(progress_mutex);
          ++accounts_done;
          events_done += static_cast<std::int64_t>(account.events.size());
          options.progress(
              {"accounts", accounts_done, log.accounts.size(), "accounts", events_done, "events"});
        }
      } catch (...) {
        driver.forget_account(account.name);
        failed.store(true);
        throw;
      }
    }
    ReplayReport r = driver.report;
    r.charge_rows = driver.charge_rows();
    r.settlements = driver.settlements();
    return r;
  }
};

}  // namespace

ReplayReport replay_with_workers(Database& database, const Catalog& catalog,
                                 const std::vector<std::string>& paths,
                                 const ReplayOptions& options) {
  auto& db = connection(database);
  ScopedCacheSize cache(db, std::max<std::int64_t>(options.page_cache_kib, 2048));
  Driver main(db, catalog, options);
  main.defer_rejects();
  const ReadLog log = read_log(main, paths, options);
  Driver::EndClock end;
  {
    store::Transaction tx(db, store::Transaction::Kind::read_snapshot);
    end = main.end_clock();
  }

  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex progress_mutex;
  std::uint64_t accounts_done = 0;
  std::int64_t events_done = 0;
  ReplayReport report = main.report;  // events read, malformed lines skipped
  if (db.backend() == store::Backend::sqlite) {
    // One writer at a time in an SQLite file: the accounts one after another (same result).
    Worker w{db,   catalog, options,        log,           end,
             next, failed,  progress_mutex, accounts_done, events_done};
    const ReplayReport r = w.run();
    add_counts(report, r);
    report.charge_rows += r.charge_rows;
    report.settlements += r.settlements;
  } else {
    const int n =
        std::max(1, std::min<int>(options.workers, static_cast<int>(log.accounts.size())));
    std::vector<ReplayReport> reports(static_cast<std::size_t>(n));
    std::vector<std::exception_ptr> errors(static_cast<std::size_t>(n));
    std::vector<std::thread> threads;
    threads.reserve(static_cast<std::size_t>(n));
    for (int t = 0; t < n; ++t) {
      threads.emplace_back([&, t] {
        const auto k = static_cast<std::size_t>(t);
        try {
          auto own = store::Connection::open(database.impl().target, database.impl().connect);
          Worker w{*own, catalog, options,        log,           end,
                   next, failed,  progress_mutex, accounts_done, events_done};
          reports[k] = w.run();
        } catch (...) {
          failed.store(true);
          errors[k] = std::current_exception();
        }
      });
    }
    for (auto& t : threads) t.join();
    for (const auto& e : errors) {
      if (e) std::rethrow_exception(e);
    }
    for (const auto& r : reports) {
      add_counts(report, r);
      report.charge_rows += r.charge_rows;
      report.settlements += r.settlements;
    }
  }

  // The end, once: the quarantined lines, accounts of earlier replays that had no events, the
  // clock and the run.
  store::Transaction tx(db, store::Transaction::Kind::write, "replay");
  main.write_deferred_rejects();
  std::unordered_set<std::string> replayed;
  for (const auto& a : log.accounts) replayed.insert(a.name);
  main.finish_run(end, replayed);
  tx.commit();
  report.charge_rows += main.charge_rows();
  report.settlements += main.settlements();
  report.clock = main.report.clock;
  return report;
}

}  // namespace gpubill::replay_detail
