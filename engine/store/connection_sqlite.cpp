// The SQLite backend of store::Connection: SQLiteCpp, as Database::open uses it.
#include <SQLiteCpp/SQLiteCpp.h>
#include <sqlite3.h>

#include <filesystem>

#include "gpubill/base/errors.hpp"
#include "store/connection.hpp"
#include "store/store.hpp"
#include "store/write_transaction.hpp"

namespace gpubill::store {

namespace {

// SQLite's C interface directly (SQLiteCpp's Statement keeps its sqlite3_stmt private): Column
// reads the statement's values itself (connection.cpp). Errors carry SQLite's message, as
// SQLiteCpp's exceptions did, so the engine's messages are unchanged.
class SqliteStatement final : public Connection::StatementImpl {
 public:
  SqliteStatement(sqlite3* db, std::string_view sql) : db_(db) {
    const int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &q_, nullptr);
    if (rc != SQLITE_OK) {
      sqlite3_finalize(q_);
      throw SqlError(sqlite3_errmsg(db_));
    }
  }
  ~SqliteStatement() override { sqlite3_finalize(q_); }
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;

  void bind_int(int index, std::int64_t value) override {
    check(sqlite3_bind_int64(q_, index, value));
  }
  void bind_text(int index, std::string_view value) override {
    check(sqlite3_bind_text(q_, index, value.data(), static_cast<int>(value.size()),
                            SQLITE_TRANSIENT));
  }
  void bind_text_static(int index, std::string_view value) override {
    check(
        sqlite3_bind_text(q_, index, value.data(), static_cast<int>(value.size()), SQLITE_STATIC));
  }
  void bind_blob(int index, std::string_view bytes) override {
    check(sqlite3_bind_blob(q_, index, bytes.data(), static_cast<int>(bytes.size()),
                            SQLITE_TRANSIENT));
  }
  void bind_null(int index) override { check(sqlite3_bind_null(q_, index)); }
  bool step() override {
    if (done_) throw SqlError("Statement needs to be reseted");  // SQLiteCpp's words
    const int rc = sqlite3_step(q_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) {
      done_ = true;
      return false;
    }
    throw SqlError(sqlite3_errmsg(db_));
  }
  int run() override {
    if (step()) throw SqlError("exec() does not expect results. Use executeStep.");
    return sqlite3_changes(db_);
  }
  void reset() override {
    (void)sqlite3_reset(q_);  // its code repeats a failed step's error
    done_ = false;
  }
  void clear() override { (void)sqlite3_clear_bindings(q_); }
  int column_count() const override { return sqlite3_column_count(q_); }
  // Column reads q_ itself; these serve callers holding the StatementImpl.
  bool is_null(int index) const override { return sqlite3_column_type(q_, index) == SQLITE_NULL; }
  std::int64_t get_int(int index) const override { return sqlite3_column_int64(q_, index); }
  std::string get_text(int index) const override { return std::string(get_text_view(index)); }
  std::string_view get_text_view(int index) const override {
    const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(q_, index));
    if (!text) return "";
    return {text, static_cast<std::size_t>(sqlite3_column_bytes(q_, index))};
  }
  std::string get_blob(int index) const override {
    const void* bytes = sqlite3_column_blob(q_, index);
    const auto size = static_cast<std::size_t>(sqlite3_column_bytes(q_, index));
    return bytes ? std::string(static_cast<const char*>(bytes), size) : std::string();
  }
  const char* column_name(int index) const override {
    const char* name = sqlite3_column_name(q_, index);
    return name ? name : "";
  }
  sqlite3_stmt* sqlite_statement() noexcept override { return q_; }

 private:
  void check(int rc) const {
    if (rc != SQLITE_OK) throw SqlError(sqlite3_errmsg(db_));
  }

  sqlite3* db_;
  sqlite3_stmt* q_ = nullptr;
  bool done_ = false;
};

class SqliteConnection final : public Connection {
 public:
  // `path` names the database in messages and the writer note; SQLite opens `target` (the
  // path, or a file: URI with SQLite::OPEN_URI among `flags`).
  SqliteConnection(const std::string& path, const std::string& target, int flags)
      : path_(path), db_(target, flags) {}

  SQLite::Database& database() noexcept { return db_; }

  Backend backend() const noexcept override { return Backend::sqlite; }
  const std::string& describe() const noexcept override { return path_; }
  void exec(std::string_view sql) override { exec_native(sql); }
  void exec_native(std::string_view sql) override {
    try {
      db_.exec(std::string(sql));
    } catch (const SQLite::Exception& e) {
      throw SqlError(path_ + ": " + e.what());
    }
  }
  int server_version() override { return sqlite3_libversion_number(); }
  std::int64_t reserve_id_range(std::string_view table, std::string_view column,
                                std::int64_t /*n*/) override {
    // INTEGER PRIMARY KEY without AUTOINCREMENT: a new row takes the largest id plus one.
    SQLite::Statement q(
        db_, "SELECT coalesce(max(" + std::string(column) + "), 0) + 1 FROM " + std::string(table));
    try {
      q.executeStep();
      return q.getColumn(0).getInt64();
    } catch (const SQLite::Exception& e) {
      throw SqlError(path_ + ": " + e.what());
    }
  }

  std::unique_ptr<StatementImpl> prepare(std::string_view sql) override {
    return std::make_unique<SqliteStatement>(db_.getHandle(), sql);
  }
  void begin_write(const std::string& work, const std::optional<std::string>&) override {
    // SQLite has one writer per file: an account's write locks the whole database.
    tx_ = std::make_unique<WriteTransaction>(db_, path_, work);
  }
  void begin_read() override {
    try {
      db_.exec("BEGIN DEFERRED");
    } catch (const SQLite::Exception& e) {
      throw SqlError(e.what());  // ReadSnapshot and Transaction name the database
    }
  }
  void commit() override {
    try {
      if (tx_) {
        auto tx = std::move(tx_);
        tx->commit();
      } else {
        db_.exec("COMMIT");
      }
    } catch (const SQLite::Exception& e) {
      throw SqlError(e.what());
    }
  }
  void rollback() noexcept override {
    if (tx_) {
      tx_.reset();  // WriteTransaction rolls back when it goes
      return;
    }
    try {
      db_.exec("ROLLBACK");
    } catch (...) {
      // No transaction open (a failed statement may have ended it).
    }
  }

 private:
  std::string path_;
  SQLite::Database db_;
  std::unique_ptr<WriteTransaction> tx_;
};

}  // namespace

std::unique_ptr<Connection> open_sqlite(const std::string& path, const ConnectOptions& options) {
  if (options.read_only && path != ":memory:" && !std::filesystem::exists(path)) {
    throw StoreError("no database at '" + path + "' (opened read-only, nothing is created)");
  }
  try {
    auto c = std::make_unique<SqliteConnection>(
        path, path,
        options.read_only ? SQLite::OPEN_READONLY : SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    c->database().setBusyTimeout(static_cast<int>(options.busy_timeout.count()));
    c->database().exec("PRAGMA foreign_keys = ON");
    return c;
  } catch (const SQLite::Exception& e) {
    throw StoreError("cannot open database '" + path + "': " + e.what());
  }
}

std::unique_ptr<Connection> open_sqlite_database(const std::string& path, int flags,
                                                 const std::string& uri) {
  return std::make_unique<SqliteConnection>(path, uri.empty() ? path : uri, flags);
}

SQLite::Database& sqlite_database(Connection& c) {
  if (c.backend() != Backend::sqlite) {
    throw StoreError(c.describe() + ": this part of gpubill runs on SQLite only so far (issue 25)");
  }
  return static_cast<SqliteConnection&>(c).database();
}

}  // namespace gpubill::store
