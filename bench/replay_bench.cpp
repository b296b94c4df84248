// Replay benchmark: replays a usage log (made by gpubill_gen_log) into a fresh database and,
// in the same run, times a bare prepared INSERT of one 14-column row per hourly settlement in
// one SQLite transaction — the floor any engine that writes a row per settlement pays.
//
//   gpubill_replay_bench LOG [--db FILE|URL] [--no-bare] [--cache-mib N]
//
// --no-bare skips the bare insert (minutes on a 300-day log) when only events/s is wanted.
// --cache-mib sets the replay's page cache cap (ReplayOptions::page_cache_kib), to compare caps.
// --db postgresql://… replays into that PostgreSQL database instead, which must be new (empty):
// no bare insert then, and the page cache line says nothing (docs/postgresql.md).
//
// Prints the time to read (parse and check) the log alone, input events/s, charge rows/s,
// settlements/s, peak RSS after the replay, the bare insert's rows/s and the ratio replay time /
// bare insert time (target <= 1.5, goal < 1).
#include <sys/resource.h>

#include <SQLiteCpp/SQLiteCpp.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>

#include "gpubill/catalog/catalog_import.hpp"
#include "gpubill/replay/events.hpp"
#include "gpubill/replay/replay.hpp"
#include "gpubill/store/db.hpp"
#include "gpubill/store/target.hpp"

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

long peak_rss_kib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

// One 14-column row per settlement, as a charge row would carry, in one transaction.
double bare_insert_seconds(const std::string& path, std::int64_t rows) {
  std::filesystem::remove(path);
  SQLite::Database db(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec(
      "CREATE TABLE t (id INTEGER PRIMARY KEY, account TEXT, instance TEXT, component TEXT, kind "
      "TEXT, period_start INTEGER, period_end INTEGER, quantity TEXT, unit TEXT, unit_price TEXT, "
      "exact_amount TEXT, billed_amount TEXT, currency TEXT, price_id INTEGER, policy_id INTEGER)");
  const auto t0 = std::chrono::steady_clock::now();
  SQLite::Transaction tx(db);
  SQLite::Statement insert(db,
                           "INSERT INTO t VALUES (NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
  for (std::int64_t i = 0; i < rows; ++i) {
    insert.bind(1, "acct" + std::to_string(i % 1000));
    insert.bind(2, "i" + std::to_string(i % 10000));
    insert.bind(3, "compute");
    insert.bind(4, "settlement");
    insert.bind(5, static_cast<std::int64_t>(1546272000 + i));
    insert.bind(6, static_cast<std::int64_t>(1546275600 + i));
    insert.bind(7, "3600");
    insert.bind(8, "second");
    insert.bind(9, "15.09");
    insert.bind(10, "15.09");
    insert.bind(11, "15.09");
    insert.bind(12, "CNY");
    insert.bind(13, static_cast<std::int64_t>(42));
    insert.bind(14, static_cast<std::int64_t>(7));
    insert.exec();
    insert.reset();
  }
  tx.commit();
  return seconds_since(t0);
}

}  // namespace

// Reads every line of the log without replaying it: the reader's share of a replay.
double read_only_seconds(const std::string& log, std::int64_t& events) {
  const auto t0 = std::chrono::steady_clock::now();
  gpubill::EventReader reader(log);
  gpubill::UsageEvent event;
  events = 0;
  for (auto status = reader.next(event); status != gpubill::EventReader::Status::end;
       status = reader.next(event)) {
    if (status == gpubill::EventReader::Status::event) ++events;
  }
  return seconds_since(t0);
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: gpubill_replay_bench LOG [--db FILE|URL] [--no-bare] [--cache-mib N]\n";
    return 2;
  }
  const std::string log = argv[1];
  std::string db_path =
      (std::filesystem::temp_directory_path() / "gpubill_replay_bench.db").string();
  bool bare = true;
  gpubill::ReplayOptions options;
  for (int i = 2; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--db" && i + 1 < argc) {
      db_path = argv[++i];
    } else if (arg == "--no-bare") {
      bare = false;
    } else if (arg == "--cache-mib" && i + 1 < argc) {
      options.page_cache_kib = std::stoll(argv[++i]) * 1024;
    } else {
      std::cerr << "gpubill_replay_bench: unknown argument '" << arg << "'\n";
      return 2;
    }
  }
  const bool postgres = gpubill::is_postgres_url(db_path);
  if (postgres) {
    bare = false;  // the bare insert is SQLite's
  } else {
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db_path + suffix);
  }

  std::int64_t read_events = 0;
  const double read_s = read_only_seconds(log, read_events);

  gpubill::OpenOptions open_options;
  open_options.allow_postgres = postgres;
  auto db = gpubill::Database::open(db_path, open_options);
  gpubill::ensure_bundled_catalog(db);
  const long rss_before = peak_rss_kib();
  const auto t0 = std::chrono::steady_clock::now();
  const auto report = gpubill::replay_logs(db, {log}, options);
  const double replay_s = seconds_since(t0);
  const long rss_after = peak_rss_kib();

  double insert_s = 0;
  if (bare) {
    insert_s = bare_insert_seconds(db_path + ".bare", report.settlements);
    for (const char* suffix : {".bare", ".bare-wal", ".bare-shm"})
      std::filesystem::remove(db_path + suffix);
  }

  std::printf("log                      %s\n", log.c_str());
  std::printf("events read              %lld\n", static_cast<long long>(report.events_read));
  std::printf("charge rows written      %lld\n", static_cast<long long>(report.charge_rows));
  std::printf("hourly settlements       %lld\n", static_cast<long long>(report.settlements));
  std::printf("read only (parse, check) %.3f s (%.0f events/s)\n", read_s, read_events / read_s);
  std::printf("replay time              %.3f s\n", replay_s);
  std::printf("  input events/s         %.0f\n", report.events_read / replay_s);
  std::printf("  charge rows/s          %.0f\n", report.charge_rows / replay_s);
  std::printf("  settlements/s          %.0f\n", report.settlements / replay_s);
  std::printf("peak RSS                 %ld KiB (before replay %ld KiB)\n", rss_after, rss_before);
  std::printf("page cache cap           %lld MiB\n",
              static_cast<long long>(options.page_cache_kib / 1024));
  const auto& pc = report.page_cache;
  const double per_event = report.events_read > 0 ? 1.0 / report.events_read : 0;
  std::printf("page cache per event    %.2f hits, %.4f misses, %.3f writes, %.3f spills\n",
              pc.hits * per_event, pc.misses * per_event, pc.writes * per_event,
              pc.spills * per_event);
  if (bare) {
    std::printf("bare insert of %lld rows  %.3f s (%.0f rows/s)\n",
                static_cast<long long>(report.settlements), insert_s,
                report.settlements / insert_s);
    std::printf("ratio replay / bare      %.3f (target <= 1.5, goal < 1)\n", replay_s / insert_s);
  }
  return 0;
}
