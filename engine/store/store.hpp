// Private to the engine: the SQLite connection behind a gpubill::Database.
#pragma once

#include <SQLiteCpp/SQLiteCpp.h>

#include <cstdint>
#include <optional>
#include <string>

#include "gpubill/store/db.hpp"

namespace gpubill {

struct Database::Impl {
  // `uri`: what SQLite opens instead of `p` (with SQLITE_OPEN_URI), e.g. an immutable open.
  Impl(const std::string& p, int flags, const std::string& uri = {})
      : path(p), db(uri.empty() ? p : uri, flags) {}
  std::string path;
  SQLite::Database db;
};

inline SQLite::Database& sqlite(Database& d) {
  return d.impl().db;
}

// Reads and writes the meta table (key → value).
std::optional<std::string> read_meta(SQLite::Database& db, const std::string& key);
void write_meta(SQLite::Database& db, const std::string& key, const std::string& value);

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
  explicit ScopedCacheSize(SQLite::Database& db, std::int64_t kib = kDefaultKiB) : db_(db) {
    old_ = db_.execAndGet("PRAGMA cache_size").getInt64();
    if (old_ >= 0 || -old_ < kib) db_.exec("PRAGMA cache_size = -" + std::to_string(kib));
  }
  ~ScopedCacheSize() {
    try {
      db_.exec("PRAGMA cache_size = " + std::to_string(old_));
    } catch (...) {
    }
  }
  ScopedCacheSize(const ScopedCacheSize&) = delete;
  ScopedCacheSize& operator=(const ScopedCacheSize&) = delete;

 private:
  static constexpr std::int64_t kDefaultKiB = 64 * 1024;
  SQLite::Database& db_;
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
  explicit ScopedTempStoreInMemory(SQLite::Database& db) : db_(db) {
    old_ = db_.execAndGet("PRAGMA temp_store").getInt();
    db_.exec("PRAGMA temp_store = MEMORY");
  }
  ~ScopedTempStoreInMemory() {
    try {
      db_.exec("PRAGMA temp_store = " + std::to_string(old_));
    } catch (...) {
    }
  }
  ScopedTempStoreInMemory(const ScopedTempStoreInMemory&) = delete;
  ScopedTempStoreInMemory& operator=(const ScopedTempStoreInMemory&) = delete;

 private:
  SQLite::Database& db_;
  int old_ = 0;
};

}  // namespace gpubill
