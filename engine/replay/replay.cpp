// replay_logs: streams usage logs through the replay driver (replay_driver.hpp) into the replay
// tables, in one transaction, on SQLite or PostgreSQL (store::Connection); with workers, an
// account at a time (replay_workers.cpp).
#include "gpubill/replay/replay.hpp"

#include <sqlite3.h>

#include <filesystem>

#include "gpubill/base/errors.hpp"
#include "gpubill/catalog/catalog.hpp"
#include "gpubill/store/db.hpp"
#include "replay/replay_driver.hpp"
#include "replay/replay_workers.hpp"
#include "store/connection.hpp"
#include "store/store.hpp"

namespace gpubill {

using replay_detail::Driver;

namespace {

// The connection's cumulative page cache counters (SQLITE_DBSTATUS_CACHE_*); zeros on
// PostgreSQL, whose buffers are the server's.
ReplayReport::PageCacheCounts page_cache_counts(store::Connection& db) {
  if (db.backend() != store::Backend::sqlite) return {};
  sqlite3* handle = store::sqlite_database(db).getHandle();
  auto read = [&](int op) {
    int current = 0;
    int highwater = 0;
    sqlite3_db_status(handle, op, &current, &highwater, 0);
    return static_cast<std::int64_t>(current);
  };
  return {read(SQLITE_DBSTATUS_CACHE_HIT), read(SQLITE_DBSTATUS_CACHE_MISS),
          read(SQLITE_DBSTATUS_CACHE_WRITE), read(SQLITE_DBSTATUS_CACHE_SPILL)};
}

}  // namespace

ReplayReport replay_logs(Database& db, const Catalog& catalog,
                         const std::vector<std::string>& paths, const ReplayOptions& options) {
  if (options.until && options.not_after && *options.until > *options.not_after) {
    throw InputError(
        "--until", "", "",
        replay_detail::later_than_allowed(*options.until, *options.not_after) + "; check the year");
  }
  auto& sql = connection(db);
  try {
    if (options.workers > 1) return replay_detail::replay_with_workers(db, catalog, paths, options);
    ScopedCacheSize cache(sql,
                          std::max<std::int64_t>(options.page_cache_kib, 2048));  // see store.hpp
    const auto before = page_cache_counts(sql);
    store::Transaction tx(sql, store::Transaction::Kind::write, "replay");
    Driver driver(sql, catalog, options);
    if (options.progress) {
      for (const auto& path : paths) {
        std::error_code ec;  // a file that cannot be read fails in replay_file
        const auto size = std::filesystem::file_size(path, ec);
        if (!ec) driver.bytes_total += size;
      }
    }
    for (const auto& path : paths) driver.replay_file(path);
    if (options.progress) {
      driver.bytes_total = driver.bytes_done;  // every file read: the last report ends at its total
      driver.report_bytes(driver.bytes_done);
    }
    driver.finish();
    tx.commit();
    const auto after = page_cache_counts(sql);
    driver.report.page_cache = {after.hits - before.hits, after.misses - before.misses,
                                after.writes - before.writes, after.spills - before.spills};
    return driver.report;
  } catch (const store::SqlError& e) {
    throw StoreError(std::string("replay: database error: ") + e.what());
  }
}

ReplayReport replay_logs(Database& db, const std::vector<std::string>& paths,
                         const ReplayOptions& options) {
  const Catalog catalog = Catalog::load_for_billing(db);
  return replay_logs(db, catalog, paths, options);
}

}  // namespace gpubill
