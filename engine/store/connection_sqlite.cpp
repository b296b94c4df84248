// The SQLite backend of store::Connection: SQLiteCpp, as Database::open uses it.
#include <SQLiteCpp/SQLiteCpp.h>
#include <sqlite3.h>

#include <filesystem>

#include "gpubill/base/errors.hpp"
#include "store/connection.hpp"
#include "store/write_transaction.hpp"

namespace gpubill::store {

namespace {

class SqliteStatement final : public Connection::StatementImpl {
 public:
  SqliteStatement(SQLite::Database& db, std::string_view sql) try : q_(db, std::string(sql)) {
  } catch (const SQLite::Exception& e) {
    throw StoreError(std::string("cannot prepare SQL: ") + e.what());
  }

  void bind_int(int index, std::int64_t value) override { q_.bind(index, value); }
  void bind_text(int index, std::string_view value) override { q_.bind(index, std::string(value)); }
  void bind_blob(int index, std::string_view bytes) override {
    q_.bind(index, bytes.data(), static_cast<int>(bytes.size()));
  }
  void bind_null(int index) override { q_.bind(index); }
  bool step() override {
    try {
      return q_.executeStep();
    } catch (const SQLite::Exception& e) {
      throw StoreError(e.what());
    }
  }
  int run() override {
    try {
      return q_.exec();
    } catch (const SQLite::Exception& e) {
      throw StoreError(e.what());
    }
  }
  void reset() override { (void)q_.tryReset(); }  // reset() throws a failed step's error again
  void clear() override { q_.clearBindings(); }
  int column_count() const override { return q_.getColumnCount(); }
  bool is_null(int index) const override { return q_.getColumn(index).isNull(); }
  std::int64_t get_int(int index) const override { return q_.getColumn(index).getInt64(); }
  std::string get_text(int index) const override { return q_.getColumn(index).getString(); }
  std::string get_blob(int index) const override {
    const auto c = q_.getColumn(index);
    return std::string(static_cast<const char*>(c.getBlob()),
                       static_cast<std::size_t>(c.getBytes()));
  }
  std::string column_name(int index) const override { return q_.getColumnName(index); }

 private:
  mutable SQLite::Statement q_;
};

class SqliteConnection final : public Connection {
 public:
  SqliteConnection(const std::string& path, const ConnectOptions& options)
      : path_(path),
        db_(path, options.read_only ? SQLite::OPEN_READONLY
                                    : SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE) {
    db_.setBusyTimeout(static_cast<int>(options.busy_timeout.count()));
    db_.exec("PRAGMA foreign_keys = ON");
  }

  Backend backend() const noexcept override { return Backend::sqlite; }
  const std::string& describe() const noexcept override { return path_; }
  void exec(std::string_view sql) override { exec_native(sql); }
  void exec_native(std::string_view sql) override {
    try {
      db_.exec(std::string(sql));
    } catch (const SQLite::Exception& e) {
      throw StoreError(path_ + ": " + e.what());
    }
  }
  int server_version() override { return sqlite3_libversion_number(); }

  std::unique_ptr<StatementImpl> prepare(std::string_view sql) override {
    return std::make_unique<SqliteStatement>(db_, sql);
  }
  void begin_write(const std::string& work, const std::optional<std::string>&) override {
    // SQLite has one writer per file: an account's write locks the whole database.
    tx_ = std::make_unique<WriteTransaction>(db_, path_, work);
  }
  void begin_read() override { exec_native("BEGIN DEFERRED"); }
  void commit() override {
    if (tx_) {
      auto tx = std::move(tx_);
      tx->commit();
    } else {
      exec_native("COMMIT");
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
    return std::make_unique<SqliteConnection>(path, options);
  } catch (const SQLite::Exception& e) {
    throw StoreError("cannot open database '" + path + "': " + e.what());
  }
}

}  // namespace gpubill::store
