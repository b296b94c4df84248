#include <sqlite3.h>

#include <algorithm>
#include <filesystem>
#include <limits>
#include <thread>

#include "gpubill/base/errors.hpp"
#include "gpubill/store/target.hpp"
#include "store/embedded_data.hpp"
#include "store/store.hpp"
#include "store/write_transaction.hpp"

namespace gpubill {

namespace {

// "0003_replay.sql" → 3. The embedded list is sorted by name, so numbers must be 1, 2, 3, ….
int migration_number(const std::string& name) {
  std::size_t i = 0;
  int n = 0;
  while (i < name.size() && name[i] >= '0' && name[i] <= '9') n = n * 10 + (name[i++] - '0');
  if (i == 0) throw StoreError("migration file '" + name + "' does not start with its number");
  return n;
}

void check_not_newer(int current, int latest, const std::string& path) {
  if (current > latest) {
    throw StoreError("database '" + path + "' has schema version " + std::to_string(current) +
                     ", newer than this gpubill understands (" + std::to_string(latest) +
                     "); use a newer gpubill");
  }
}

void migrate(SQLite::Database& db, const std::string& path) {
  const int latest = latest_schema_version();
  int current = db.execAndGet("PRAGMA user_version").getInt();
  check_not_newer(current, latest, path);
  if (current == latest) return;
  // The version is read again under the write lock: another process opening the same new
  // database may have migrated it while this one waited. The check for another program's
  // tables comes after that read too: before it, a migration committed between reading the
  // version and the tables looked like another program's file.
  WriteTransaction tx(db, path, "migration");
  current = db.execAndGet("PRAGMA user_version").getInt();
  check_not_newer(current, latest, path);
  if (current == 0 && db.execAndGet("SELECT count(*) FROM sqlite_master").getInt() > 0) {
    // Another program's SQLite file: gpubill would write its schema and catalog into it.
    throw StoreError("database '" + path +
                     "' is an SQLite file of another program (it has tables but no gpubill "
                     "schema version); give gpubill a file of its own");
  }
  for (const auto& m : embedded::migrations()) {
    const int number = migration_number(m.name);
    if (number <= current) continue;
    db.exec(std::string(m.text));
    db.exec("PRAGMA user_version = " + std::to_string(number));
  }
  tx.commit();
}

// Switching a new file to WAL needs an exclusive lock, and SQLite answers SQLITE_BUSY at once,
// without its busy handler, while another process opening the same new file holds one: the
// switch is retried every 10 ms for up to the busy timeout.
void enter_wal_mode(SQLite::Database& db, std::chrono::milliseconds busy_timeout) {
  constexpr std::chrono::milliseconds kPause{10};
  for (auto waited = std::chrono::milliseconds{0};; waited += kPause) {
    try {
      db.exec("PRAGMA journal_mode = WAL");
      return;
    } catch (const SQLite::Exception& e) {
      if (e.getErrorCode() != SQLITE_BUSY || waited >= busy_timeout) throw;
    }
    std::this_thread::sleep_for(kPause);
  }
}

// "file:<path>?immutable=1": SQLite reads the file without locks, a -shm file or the WAL.
std::string immutable_uri(const std::string& path) {
  std::string out = "file:";
  for (char c : path) {
    if (c == '%' || c == '?' || c == '#') {
      static const char* hex = "0123456789ABCDEF";
      out += '%';
      out += hex[static_cast<unsigned char>(c) >> 4];
      out += hex[static_cast<unsigned char>(c) & 15];
    } else {
      out += c;
    }
  }
  return out + "?immutable=1";
}

// Whether the read-only connection can read (a WAL database needs its -shm file, which it may
// not create in a directory it cannot write).
bool readable(SQLite::Database& db) {
  try {
    (void)db.execAndGet("SELECT count(*) FROM sqlite_master").getInt();
    return true;
  } catch (const SQLite::Exception&) {
    return false;
  }
}

std::unique_ptr<Database::Impl> make_impl(const std::string& path, int flags,
                                          const std::string& uri = {}) {
  auto impl = std::make_unique<Database::Impl>();
  impl->path = path;
  impl->conn = store::open_sqlite_database(path, flags, uri);
  return impl;
}

// A database gpubill may not write (the file or its directory read-only) opened to read: WAL
// needs a -shm file beside it, which cannot be created there. With no pending WAL content the
// file alone is the database, read immutably; otherwise say what to change.
std::unique_ptr<Database::Impl> open_unwritable(const std::string& path, int flags) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto wal = fs::path(path).string() + "-wal";
  if (fs::exists(wal, ec) && fs::file_size(wal, ec) > 0) {
    throw StoreError("cannot read database '" + path +
                     "': it is read-only and its write-ahead log '" + wal +
                     "' holds changes not yet in it; make the file and its directory writable "
                     "(or run any gpubill command that writes where they are) once");
  }
  return make_impl(path, flags | SQLite::OPEN_URI, immutable_uri(path));
}

}  // namespace

int latest_schema_version() {
  int expected = 1;
  for (const auto& m : embedded::migrations()) {
    if (migration_number(m.name) != expected) {
      throw StoreError("migrations are not numbered 1, 2, 3, …: found '" + m.name + "'");
    }
    ++expected;
  }
  return expected - 1;
}

Database::Database(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Database::Database(Database&&) noexcept = default;
Database& Database::operator=(Database&&) noexcept = default;
Database::~Database() = default;

ReadSnapshot::ReadSnapshot(Database& db) : db_(db) {
  try {
    // SQLite's snapshot begins at the first read inside the transaction.
    connection(db_).begin_read();
  } catch (const store::SqlError& e) {
    throw StoreError(db_.path() + ": cannot begin a read: " + e.what());
  }
}

ReadSnapshot::~ReadSnapshot() {
  // Nothing was written: ending the read is all it does (nothing when a failed statement ended
  // the transaction).
  connection(db_).rollback();
}

const std::string& Database::path() const noexcept {
  return impl_->path;
}

int Database::schema_version() const {
  return store::schema_version(*impl_->conn);
}

Database Database::open(const std::string& path, const OpenOptions& options) {
  if (is_postgres_url(path) && options.allow_postgres) {
    store::ConnectOptions o;
    o.busy_timeout = options.busy_timeout;
    o.read_only = options.read_only;
    auto impl = std::make_unique<Impl>();
    impl->path = redact_target(path);  // for messages: never the password
    impl->conn = store::Connection::open(path, o);
    impl->target = path;
    impl->connect = o;
    if (!options.read_only) {
      store::migrate(*impl->conn);
    } else if (const int current = store::schema_version(*impl->conn);
               current != latest_schema_version()) {
      check_not_newer(current, latest_schema_version(), impl->path);
      if (current == 0) {
        throw StoreUninitialised(
            "'" + impl->path +
            "' holds no gpubill database: a command that only reads does not create one "
            "(`gpubill init` creates one with the bundled catalog)");
      }
      throw StoreError("database '" + impl->path + "' is at schema version " +
                       std::to_string(current) + " and this gpubill needs " +
                       std::to_string(latest_schema_version()) +
                       ": open it for writing once to migrate it");
    }
    return Database(std::move(impl));
  }
  if (is_postgres_url(path)) {
    throw StoreError("'" + redact_target(path) +
                     "' is a PostgreSQL URL: the commands do not run on PostgreSQL yet (issue 25, "
                     "docs/postgresql.md); give an SQLite file path");
  }
  if (options.read_only && (path == ":memory:" || path.empty())) {
    throw StoreError("a private in-memory database cannot be opened read-only");
  }
  if (options.read_only && !std::filesystem::exists(path)) {
    throw StoreError("no database at '" + path + "' (opened read-only, nothing is created)");
  }
  try {
    // NOMUTEX: a Database is used by one thread at a time, so SQLite's per-call mutex only costs
    // (about a tenth of reading the catalog).
    const int mode =
        options.read_only ? SQLite::OPEN_READONLY : SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE;
    auto impl = make_impl(path, mode | SQLite::OPEN_NOMUTEX);
    if (options.read_only && !readable(store::sqlite_database(*impl->conn))) {
      impl = open_unwritable(path, mode | SQLite::OPEN_NOMUTEX);
    }
    auto& db = store::sqlite_database(*impl->conn);
    db.setBusyTimeout(static_cast<int>(std::min<std::chrono::milliseconds::rep>(
        options.busy_timeout.count(), std::numeric_limits<int>::max())));
    // Fails with "file is not a database" on a non-SQLite file before anything is written.
    db.exec("PRAGMA foreign_keys = ON");
    // Pages read through a memory map instead of a pread and a copy each: a quote reads most of
    // the catalog's pages (0.7 of its system time went to copying them).
    db.exec("PRAGMA mmap_size = 268435456");
    if (options.read_only) {
      const int current = db.execAndGet("PRAGMA user_version").getInt();
      check_not_newer(current, latest_schema_version(), path);
      if (current != latest_schema_version()) {
        throw StoreError("database '" + path + "' is at schema version " + std::to_string(current) +
                         " and this gpubill needs " + std::to_string(latest_schema_version()) +
                         ": open it for writing once to migrate it");
      }
      return Database(std::move(impl));
    }
    if (path != ":memory:" && !path.empty()) enter_wal_mode(db, options.busy_timeout);
    db.exec("PRAGMA synchronous = NORMAL");
    migrate(db, path);
    return Database(std::move(impl));
  } catch (const SQLite::Exception& e) {
    throw StoreError("cannot open database '" + path + "': " + e.what());
  }
}

std::string resolve_database_path(const std::optional<std::string>& flag,
                                  const char* env_gpubill_db, const char* env_xdg_data_home,
                                  const char* env_home) {
  if (flag && !flag->empty()) return *flag;
  if (env_gpubill_db && *env_gpubill_db) return env_gpubill_db;
  if (env_xdg_data_home && *env_xdg_data_home) {
    return (std::filesystem::path(env_xdg_data_home) / "gpubill" / "gpubill.db").string();
  }
  if (env_home && *env_home) {
    return (std::filesystem::path(env_home) / ".local" / "share" / "gpubill" / "gpubill.db")
        .string();
  }
  return "gpubill.db";
}

std::optional<std::string> read_meta(store::Connection& db, const std::string& key) {
  store::Statement q(db, "SELECT value FROM meta WHERE key = ?");
  q.bind(1, key);
  if (!q.executeStep()) return std::nullopt;
  return q.getColumn(0).getString();
}

void write_meta(store::Connection& db, const std::string& key, const std::string& value) {
  store::Statement q(db,
                     "INSERT INTO meta(key, value) VALUES(?, ?) "
                     "ON CONFLICT(key) DO UPDATE SET value = excluded.value");
  q.bind(1, key);
  q.bind(2, value);
  q.exec();
}

}  // namespace gpubill
