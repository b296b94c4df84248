// Private to the engine: the connection behind a gpubill::Database (store::Connection), and
// SQLite's own handle of it for the areas not yet ported onto store::Connection (ledger,
// replay; docs/postgresql.md).
#pragma once

#include <SQLiteCpp/SQLiteCpp.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "gpubill/store/db.hpp"
#include "store/connection.hpp"

namespace gpubill {

namespace store {
// An SQLite connection opened with SQLiteCpp's `flags` on `uri` (with SQLite::OPEN_URI) or, when
// empty, on `path`; `path` names it in messages. Nothing is set on it (no busy timeout, no
// PRAGMA): Database::open does that. Throws SQLite::Exception.
std::unique_ptr<Connection> open_sqlite_database(const std::string& path, int flags,
                                                 const std::string& uri = {});
// The SQLiteCpp database of an SQLite connection. Throws StoreError on PostgreSQL.
SQLite::Database& sqlite_database(Connection& c);
}  // namespace store

struct Database::Impl {
  std::string path;
  std::unique_ptr<store::Connection> conn;
  // PostgreSQL: the URL as given (its password too) and the options it was opened with, for
  // more connections to it (a replay's workers); never printed.
  std::string target;
  store::ConnectOptions connect;
};

inline store::Connection& connection(Database& d) {
  return *d.impl().conn;
}

// SQLite's handle, for ledger and replay until they are ported onto store::Connection.
inline SQLite::Database& sqlite(Database& d) {
  return store::sqlite_database(*d.impl().conn);
}

// Reads and writes the meta table (key → value). Throw store::SqlError.
std::optional<std::string> read_meta(store::Connection& db, const std::string& key);
void write_meta(store::Connection& db, const std::string& key, const std::string& value);

// A larger page cache for one big write transaction, restored afterwards: indexes updated at
// random places spill pages to the WAL and read them back with SQLite's default 2 MB cache. A
// fixed cap, so memory does not grow with the input beyond it; SQLite takes pages as it needs
// them, so a small transaction stays small. Loading the bundled catalog (14k price rows into
// four indexes) uses the default 64 MB; replays and rebuilds take kDefaultReplayCacheKiB
// (gpubill/replay/replay.hpp) unless told otherwise.
//
// Why a replay takes a large cache (kDefaultReplayCacheKiB, include/gpubill/replay/replay.hpp): the
// whole replay is one transaction, so everything it writes sits in the WAL until it commits, and
// each page read that misses the cache is looked up in the WAL's hash tables, whose number grows
// with the WAL (1.7 GB for 300 days of 10,000 instances). Once the pages the replay keeps
// updating (the leaves of the event, state-history and movement indexes where each instance's
// and account's rows go) no longer fit, dirty pages are spilled to the WAL and read back again
// and again. Measured (docs/benchmarks.md): 300 days replayed at 51 % of the 30-day events/s
// with 64 MB and about 80 % with 256 MB, where it misses 0.016 times per event; 30 days: CPU 9.2 s
// with 16 MB, 6.1 s with 64 MB. Rebuilds use the same default.

class ScopedCacheSize {
 public:
  // `kib`: the cache's cap in KiB (SQLite's negative cache_size); a larger setting is kept.
  explicit ScopedCacheSize(SQLite::Database& db, std::int64_t kib = kDefaultKiB) { set(db, kib); }
  // Nothing on PostgreSQL (the server's shared buffers are its business).
  explicit ScopedCacheSize(store::Connection& db, std::int64_t kib = kDefaultKiB) {
    if (db.backend() == store::Backend::sqlite) set(store::sqlite_database(db), kib);
  }
  ~ScopedCacheSize() {
    if (!db_) return;
    try {
      db_->exec("PRAGMA cache_size = " + std::to_string(old_));
    } catch (...) {
    }
  }
  ScopedCacheSize(const ScopedCacheSize&) = delete;
  ScopedCacheSize& operator=(const ScopedCacheSize&) = delete;

 private:
  static constexpr std::int64_t kDefaultKiB = 64 * 1024;
  void set(SQLite::Database& db, std::int64_t kib) {
    old_ = db.execAndGet("PRAGMA cache_size").getInt64();
    if (old_ >= 0 || -old_ < kib) db.exec("PRAGMA cache_size = -" + std::to_string(kib));
    db_ = &db;
  }
  SQLite::Database* db_ = nullptr;  // none on PostgreSQL
  std::int64_t old_ = 0;
};

// Statement journals in memory for the scope (SQLite's temp_store = MEMORY), then the setting
// before. SQLite keeps a statement journal for every statement that may have to be undone on
// its own — each insert into a catalog table, whose triggers mark the offer summary stale —
// and spills it to a temporary file past 64 KiB: importing the bundled catalog wrote 185 MB
// there in 90,000 small writes, most of its time. For bulk writes of many small statements;
// not for large sorts, which this keeps in memory too.
class ScopedTempStoreInMemory {
 public:
  // Nothing on PostgreSQL.
  explicit ScopedTempStoreInMemory(store::Connection& db) {
    if (db.backend() != store::Backend::sqlite) return;
    auto& sql = store::sqlite_database(db);
    old_ = sql.execAndGet("PRAGMA temp_store").getInt();
    sql.exec("PRAGMA temp_store = MEMORY");
    db_ = &sql;
  }
  ~ScopedTempStoreInMemory() {
    if (!db_) return;
    try {
      db_->exec("PRAGMA temp_store = " + std::to_string(old_));
    } catch (...) {
    }
  }
  ScopedTempStoreInMemory(const ScopedTempStoreInMemory&) = delete;
  ScopedTempStoreInMemory& operator=(const ScopedTempStoreInMemory&) = delete;

 private:
  SQLite::Database* db_ = nullptr;  // none on PostgreSQL
  int old_ = 0;
};

}  // namespace gpubill
