// The gpubill database: one SQLite file holding the catalog, usage events, charges and
// balances. Opening applies the numbered migrations compiled into the library, each in its
// own transaction, and records the version in PRAGMA user_version.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>

namespace gpubill {

struct OpenOptions {
  // How long a write waits for another process's write transaction (a replay, an import, a
  // first use filling the catalog) before failing with a StoreError that names the holder.
  // Reads never wait (WAL). Default 60 s; the CLI reads GPUBILL_BUSY_TIMEOUT (seconds).
  std::chrono::milliseconds busy_timeout{60'000};
  // Open the file read-only: it must exist and be at this gpubill's schema version (nothing is
  // created or migrated; StoreError otherwise). Writes through it fail with StoreError. Works
  // on a file the user may not write, in a directory the user may not write (where SQLite cannot
  // create the WAL's -shm file: the file is then read immutably, or, when its -wal file holds
  // changes not yet checkpointed, StoreError says to make it writable).
  bool read_only = false;
  // Accept a PostgreSQL URL (is_postgres_url, gpubill/store/target.hpp) as `path` (issue 25, in
  // progress): the database is migrated as store::migrate does, and the catalog, quotes and
  // the ledger run on it; the replay does not yet (StoreError). Off, as the CLI leaves it: a URL
  // is refused, naming docs/postgresql.md.
  bool allow_postgres = false;
};

class Database {
 public:
  // Opens (creating when missing) the database at `path` (":memory:" for a private in-memory
  // one), turns on WAL (for files) and foreign keys, and applies pending migrations, all in one
  // IMMEDIATE transaction with the version read inside it (so processes opening a new
  // database at once do not both migrate it). Throws StoreError when the file cannot be
  // opened, is not a gpubill database, or was written by a newer gpubill (its user_version is
  // above latest_schema_version()).
  // A Database may move between threads but must not be used by two at once (the connection
  // is opened without SQLite's per-call mutex); open one per thread instead.
  static Database open(const std::string& path, const OpenOptions& options = {});

  Database(Database&&) noexcept;
  Database& operator=(Database&&) noexcept;
  ~Database();

  const std::string& path() const noexcept;
  int schema_version() const;

  // For the engine: the connection behind this database (engine/store/store.hpp).
  struct Impl;
  Impl& impl() noexcept { return *impl_; }

 private:
  explicit Database(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Every read of `db` while it lives sees the database as of one moment, though other processes
// write meanwhile (a deferred SQLite transaction, ended when it goes): for a document read in
// several queries, such as a bill's totals and then its movements. Writes through `db` are not
// allowed meanwhile. Throws StoreError when the transaction cannot begin (one is open).
class ReadSnapshot {
 public:
  explicit ReadSnapshot(Database& db);
  ~ReadSnapshot();
  ReadSnapshot(const ReadSnapshot&) = delete;
  ReadSnapshot& operator=(const ReadSnapshot&) = delete;

 private:
  Database& db_;
};

// The number of migrations compiled into this gpubill.
int latest_schema_version();

// Where the database lives when no --db is given: `flag` if set, else `env_gpubill_db`
// (GPUBILL_DB) if set and non-empty, else $XDG_DATA_HOME/gpubill/gpubill.db, else
// $HOME/.local/share/gpubill/gpubill.db, else ./gpubill.db. Creates no directory.
std::string resolve_database_path(const std::optional<std::string>& flag,
                                  const char* env_gpubill_db, const char* env_xdg_data_home,
                                  const char* env_home);

}  // namespace gpubill
