// Private to the engine: one connection to a gpubill database on either backend — an SQLite
// file (SQLiteCpp) or a PostgreSQL database (libpqxx) — with prepared statements and
// transactions. The engine's SQL is written once, in SQLite's dialect, and translated for
// PostgreSQL when a statement is prepared (store/dialect.hpp, engine/store/README.md).
//
// The names mirror the subset of SQLiteCpp the engine uses (bind, executeStep, exec, getColumn,
// isNull, getInt64, getInt, getString, reset, clearBindings), so that porting a call site means
// changing `SQLite::Database&` to `store::Connection&` and `SQLite::Statement` to
// `store::Statement`. Everything here throws StoreError (gpubill/base/errors.hpp) or one of the
// error types of gpubill/store/target.hpp.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpubill/base/errors.hpp"
#include "gpubill/store/target.hpp"

struct sqlite3_stmt;

namespace gpubill::store {

// A statement the backend refused or could not run: on SQLite, SQLite's own message (as
// SQLiteCpp's exceptions gave it); on PostgreSQL, the server's first line, naming the
// database. The engine catches it to say what it was doing; every other StoreError (a lost
// connection, a stored value that does not decode) passes through unchanged.
class SqlError : public StoreError {
 public:
  using StoreError::StoreError;
};

enum class Backend { sqlite, postgres };

struct ConnectOptions {
  // How long a write transaction waits for another writer's lock before a StoreError naming
  // the holder: SQLite's busy timeout; PostgreSQL's lock_timeout while taking the advisory
  // lock. Default 60 s, as OpenOptions.
  std::chrono::milliseconds busy_timeout{60'000};
  // SQLite: open the file read-only (it must exist). PostgreSQL: every transaction is read-only
  // (default_transaction_read_only), writes fail with StoreError.
  bool read_only = false;
  // PostgreSQL: how long connecting may take (libpq's connect_timeout), whole seconds, ≥ 2.
  std::chrono::seconds connect_timeout{10};
  // PostgreSQL: the lowest server_version_num accepted (120000 = PostgreSQL 12: generated
  // identity columns, nondeterministic collations). Lower: StoreConnectError server_too_old.
  int min_server_version = 120000;
};

class Column;
class Statement;

// Rows a caller buffers in memory and writes in batches (PostgreSQL: engine/replay's sink, with
// Connection::copy_rows), registered with Connection::set_pending_writes. The connection calls
// flush() in the open transaction before it runs any statement whose SQL names one of the
// buffered tables (touches), and before COMMIT; discard() when the transaction ends without
// committing (nothing buffered is then ever written). Buffered rows are never half-applied: a
// flush that fails fails the transaction, which then commits nothing.
class PendingWrites {
 public:
  virtual ~PendingWrites() = default;
  virtual bool pending() const noexcept = 0;
  // Whether a statement of this SQL (as the backend runs it) may read or write buffered rows.
  virtual bool touches(std::string_view sql) const noexcept = 0;
  virtual void flush() = 0;
  // The transaction ended: committed (after the last flush) or rolled back (drop the rows).
  virtual void end_transaction(bool committed) noexcept = 0;
};

// Whether `sql` names `table` as a whole word (not "event" in "event_seq").
bool names_table(std::string_view sql, std::string_view table) noexcept;

// One open connection. Not thread-safe: one thread at a time (open one per thread).
class Connection {
 public:
  // `target`: a PostgreSQL URL (is_postgres_url) or an SQLite file path (":memory:" for a
  // private in-memory database; created when missing unless read_only). Nothing is migrated:
  // see migrate(). Throws StoreTargetError (a URL that does not parse), StoreConnectError
  // (a server that cannot be used), StoreError (a file that cannot be opened; a PostgreSQL
  // URL in a gpubill built without GPUBILL_POSTGRES).
  static std::unique_ptr<Connection> open(const std::string& target,
                                          const ConnectOptions& options = {});
  virtual ~Connection() = default;
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  virtual Backend backend() const noexcept = 0;
  // For messages: the file path, or "PostgreSQL database D on H:P as user U" (no password).
  virtual const std::string& describe() const noexcept = 0;
  // Runs one or more ';'-separated statements of SQLite SQL (translated for PostgreSQL) that
  // take no parameters; rows they return are dropped. PRAGMAs are skipped on PostgreSQL.
  virtual void exec(std::string_view sql) = 0;
  // Runs SQL as it is, untranslated, on this backend (DDL written for one backend).
  virtual void exec_native(std::string_view sql) = 0;
  // PostgreSQL: the server's server_version_num; SQLite: sqlite3_libversion_number().
  virtual int server_version() = 0;

  // For Statement and Transaction.
  class StatementImpl;
  virtual std::unique_ptr<StatementImpl> prepare(std::string_view sqlite_sql) = 0;
  virtual void begin_write(const std::string& work, const std::optional<std::string>& account) = 0;
  virtual void begin_read() = 0;
  virtual void commit() = 0;
  virtual void rollback() noexcept = 0;

  // ---- Batched writes: PostgreSQL only (an SQLite connection throws StoreError). ----
  // Registers the buffered rows to flush before statements that touch them and at COMMIT
  // (PendingWrites); nullptr unregisters, flushing what is left (a failure then fails the open
  // transaction: COMMIT refuses). One at a time.
  virtual void set_pending_writes(PendingWrites* /*writes*/) { refuse("batched writes"); }
  // COPY table (columns) FROM STDIN in the open transaction: `rows` in COPY's text format, each
  // line ending in '\n' (tab-separated, \N for NULL, backslash escapes). `columns`
  // comma-separated.
  virtual void copy_rows(std::string_view /*table*/, std::string_view /*columns*/,
                         std::string_view /*rows*/) {
    refuse("COPY");
  }
  // The number an INSERT into `table` without `column` (its identity) would take next, for
  // rows written with their ids (copy_rows): the same numbers, in the same order, as one
  // INSERT per row. Numbers are reserved from the identity's sequence in blocks under a
  // session advisory lock (one round trip per block); at COMMIT the unused rest of the last
  // block, and on ROLLBACK every number the transaction took, is given back when no other
  // connection took numbers since — so a replay's ids and seqs stay SQLite's, also after a
  // failed one; when writers of other accounts took numbers meanwhile, ids have gaps.
  virtual std::int64_t next_id(std::string_view /*table*/, std::string_view /*column*/) {
    refuse("reserved identity numbers");
    return 0;
  }
  // The first of `n` (> 0) numbers of `table`'s identity `column` taken for rows a later
  // transaction writes with their ids (a replay with workers numbering its rows as one worker
  // would, replay_plan.hpp): the numbers an INSERT without `column` would take next. PostgreSQL
  // moves the identity's sequence past them (under next_id's lock; never given back); SQLite
  // reserves nothing (max + 1: an SQLite file has one writer at a time).
  virtual std::int64_t reserve_id_range(std::string_view table, std::string_view column,
                                        std::int64_t n) = 0;

 protected:
  Connection() = default;

 private:
  // Inline, as every virtual here: the PostgreSQL module links no connection.cpp.
  [[noreturn]] void refuse(const char* what) const {
    throw StoreError(describe() + ": " + what + " are PostgreSQL's");
  }
};

// A value of the current row, valid until the statement steps, resets or goes. Reads as
// SQLiteCpp's Column does: NULL reads as 0 and "". On SQLite a value is read straight from
// SQLite's statement (no virtual call, no copy but getString's).
class Column {
 public:
  Column(const Statement& s, int index) : s_(s), index_(index) {}
  bool isNull() const;
  // An integer column (PostgreSQL booleans read as 1 and 0). Throws StoreError on text that is
  // not an integer (on PostgreSQL; SQLite converts as it does).
  std::int64_t getInt64() const;
  int getInt() const;  // getInt64, which must fit an int (StoreError otherwise)
  std::string getString() const;
  // The text without a copy, NUL-terminated, "" for NULL: valid until the statement steps,
  // resets or goes (as SQLiteCpp's getText).
  const char* getText() const;
  std::string_view getStringView() const;  // the same, with its length
  // A BLOB (SQLite) or bytea (PostgreSQL) column's bytes.
  std::string getBlob() const;
  const char* getName() const;  // valid while the statement is

 private:
  const Statement& s_;
  int index_;
};

// A prepared statement. `sql` is SQLite SQL with ? or ?N parameters (1-based). On PostgreSQL it
// is translated once (dialect.hpp) and prepared once per connection (the same text again
// reuses it). A query's rows are fetched whole when it first steps, unless stream() was called.
class Statement {
 public:
  Statement(Connection& db, std::string_view sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  void bind(int index, std::int64_t value);
  void bind(int index, int value) { bind(index, static_cast<std::int64_t>(value)); }
  void bind(int index, const std::string& value) { bind(index, std::string_view(value)); }
  void bind(int index, const char* value) { bind(index, std::string_view(value)); }
  void bind(int index, std::string_view value);
  void bind(int index);  // NULL
  // `value` must outlive the statement's next step (SQLite binds it without a copy).
  void bindNoCopy(int index, const std::string& value);
  void bindBlob(int index, std::string_view bytes);
  // Read the query's rows `batch_rows` at a time instead of whole, for results too large to
  // hold (a FOCUS export's charges); call before the first step. SQLite reads row by row
  // anyway: nothing changes. PostgreSQL: the first step declares a cursor (DECLARE … NO SCROLL
  // CURSOR) and each batch is one FETCH, inside the open transaction, or else inside a
  // REPEATABLE READ READ ONLY transaction of the statement's own (one snapshot for every batch;
  // statements run meanwhile run in it, so they may not write, and a Transaction may not begin
  // until the rows are read, the statement is reset or it goes). The cursor closes, and the
  // statement's own transaction ends, after the last row is fetched.
  void stream(int batch_rows = 10'000);
  // The next row: true while there is one. Executes the statement on the first call.
  bool executeStep();
  // Runs a statement that returns no rows; returns the rows it changed.
  int exec();
  Column getColumn(int index) const {  // 0-based, as SQLiteCpp
    if (raw_ != nullptr && static_cast<unsigned>(index) < static_cast<unsigned>(raw_columns_)) {
      return Column(*this, index);
    }
    return checked_column(index);
  }
  int getColumnCount() const;
  std::string getColumnName(int index) const { return getColumn(index).getName(); }
  // Ready to run again with the same bindings.
  void reset();
  // Every parameter NULL again.
  void clearBindings();

 private:
  friend class Column;
  Column checked_column(int index) const;

  std::unique_ptr<Connection::StatementImpl> impl_;
  // The SQLite backend's statement, whose columns Column reads directly; null on PostgreSQL.
  sqlite3_stmt* raw_ = nullptr;
  int raw_columns_ = 0;
};

// One transaction, rolled back when it goes unless committed.
//
// A write transaction takes the write lock before it reads anything, so writers queue instead
// of failing half-way: SQLite's BEGIN IMMEDIATE (the whole file; the holder note of
// write_transaction.hpp); on PostgreSQL BEGIN (READ COMMITTED: each statement sees what the
// writers before it committed) and a transaction-scoped advisory lock — the database's lock
// exclusively, or, given an account, the database's lock shared and the account's exclusively,
// so writers of different accounts run at once and a whole-database writer waits for all of
// them. Throws StoreError naming the holder when the lock is not had within the busy timeout.
//
// A read snapshot sees the database as of one moment: SQLite's BEGIN DEFERRED, PostgreSQL's
// REPEATABLE READ READ ONLY.
class Transaction {
 public:
  enum class Kind { write, read_snapshot };
  // `work` names the holder in other writers' messages ("replay", "catalog import").
  Transaction(Connection& db, Kind kind, const std::string& work = "write",
              const std::optional<std::string>& account = std::nullopt);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

 private:
  Connection& db_;
  bool open_ = false;
};

// Applies the numbered migrations (migrations/*.sql, compiled in) that `db` lacks, all in one
// write transaction, and returns the schema version after. SQLite: as Database::open (PRAGMA
// user_version). PostgreSQL: each migration translated (dialect.hpp) unless migrations/pg/ has
// its own version; the version kept in the table gpubill_schema; the migration holds an
// advisory lock, so two processes migrating one new database apply each migration once.
// Throws StoreError (a database of another program, a newer schema, a failed statement).
int migrate(Connection& db);
int schema_version(Connection& db);  // 0 for an empty database

// The advisory lock key of a scope ("" = the whole database; else an account): FNV-1a 64 of
// "gpubill:" + scope. Stable across versions and machines.
std::int64_t advisory_lock_key(std::string_view scope) noexcept;

// The statement-level part of the backend, for connection_*.cpp.
class Connection::StatementImpl {
 public:
  virtual ~StatementImpl() = default;
  virtual void bind_int(int index, std::int64_t value) = 0;
  virtual void bind_text(int index, std::string_view value) = 0;
  // `value` outlives the next step: a backend may keep a pointer instead of a copy.
  virtual void bind_text_static(int index, std::string_view value) { bind_text(index, value); }
  virtual void bind_blob(int index, std::string_view bytes) = 0;
  virtual void bind_null(int index) = 0;
  // Statement::stream; nothing on a backend that steps row by row.
  virtual void set_stream(int /*batch_rows*/) {}
  virtual bool step() = 0;
  virtual int run() = 0;
  virtual void reset() = 0;
  virtual void clear() = 0;
  virtual int column_count() const = 0;
  virtual bool is_null(int index) const = 0;
  virtual std::int64_t get_int(int index) const = 0;
  virtual std::string get_text(int index) const = 0;
  // The text without a copy, NUL-terminated ("" for NULL), valid until the next step.
  virtual std::string_view get_text_view(int index) const = 0;
  virtual std::string get_blob(int index) const = 0;
  virtual const char* column_name(int index) const = 0;  // valid while the statement is
  // SQLite: the statement, for Column's direct reads; nullptr on other backends.
  virtual sqlite3_stmt* sqlite_statement() noexcept { return nullptr; }
};

// The SQLite backend, for Connection::open (connection_sqlite.cpp); the PostgreSQL one is a
// module of its own (postgres_module.hpp).
std::unique_ptr<Connection> open_sqlite(const std::string& path, const ConnectOptions& options);

}  // namespace gpubill::store
