// The PostgreSQL backend of store::Connection: libpqxx 6 over one connection, statements
// translated from SQLite SQL (dialect.hpp), parameters sent as text, transactions as plain
// BEGIN / COMMIT on a pqxx::nontransaction so that this file, not libpqxx, decides them.
//
// Built as its own module (libgpubill_postgres.so, with dialect.cpp and target.cpp), which the
// library loads when a postgresql:// target is opened (postgres_module.hpp): linked into every
// gpubill, libpq and the TLS, Kerberos and LDAP libraries it needs took 10 of the 16 ms every
// command spent starting.
#include "store/connection.hpp"

#include <libpq-fe.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <pqxx/pqxx>
#include <pqxx/tablewriter>

#include "gpubill/base/errors.hpp"
#include "store/dialect.hpp"

namespace gpubill::store {

namespace {

// The parts of a URL that messages name; libpq's defaults (environment, compiled in) where
// the URL names none.
struct PgWhere {
  std::string host, port, dbname, user;
  std::string conninfo;  // keyword=value form of every option the URL gave

  std::string describe() const {
    const bool socket = host.empty() || host.front() == '/';
    return "PostgreSQL database '" + dbname + "' on " +
           (socket ? "the local socket " + (host.empty() ? std::string("(default)") : host)
                   : "host " + host) +
           ", port " + port + ", as user '" + user + "'";
  }
};

std::string first_line(const std::string& text) {
  const auto end = text.find('\n');
  std::string line = text.substr(0, end);
  while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.pop_back();
  return line;
}

std::string conninfo_quote(const std::string& value) {
  std::string out = "'";
  for (char c : value) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

PgWhere parse_url(const std::string& url) {
  char* error = nullptr;
  PQconninfoOption* given = PQconninfoParse(url.c_str(), &error);
  if (!given) {
    const std::string why = error ? first_line(error) : "out of memory";
    PQfreemem(error);
    throw StoreTargetError("cannot read the PostgreSQL URL '" + redact_target(url) + "': " + why);
  }
  PgWhere w;
  std::map<std::string, std::string> defaults;
  if (PQconninfoOption* d = PQconndefaults()) {
    for (auto* o = d; o->keyword; ++o) {
      if (o->val) defaults[o->keyword] = o->val;
    }
    PQconninfoFree(d);
  }
  std::map<std::string, std::string> set;
  for (auto* o = given; o->keyword; ++o) {
    if (!o->val) continue;
    set[o->keyword] = o->val;
    w.conninfo += std::string(o->keyword) + "=" + conninfo_quote(o->val) + " ";
  }
  PQconninfoFree(given);
  auto pick = [&](const char* key, const std::string& fallback) {
    if (auto it = set.find(key); it != set.end() && !it->second.empty()) return it->second;
    if (auto it = defaults.find(key); it != defaults.end() && !it->second.empty()) {
      return it->second;
    }
    return fallback;
  };
  w.host = pick("host", pick("hostaddr", ""));
  w.port = pick("port", "5432");
  w.user = pick("user", "");
  w.dbname = pick("dbname", w.user);
  return w;
}

StoreConnectError connect_error(const PgWhere& w, const std::string& libpq_message) {
  using R = StoreConnectError::Reason;
  const std::string m = libpq_message;
  const auto has = [&](const char* s) { return m.find(s) != std::string::npos; };
  const std::string where = "cannot connect to " + w.describe() + ": ";
  if (has("password authentication failed") || has("no password supplied") ||
      has("authentication failed") || has("no pg_hba.conf entry") || has("role \"")) {
    return StoreConnectError(R::authentication,
                             where + "the server refused user '" + w.user +
                                 "' (wrong or missing password, or no pg_hba.conf entry)");
  }
  if (has("database \"") && has("does not exist")) {
    return StoreConnectError(R::no_database, where + "the server has no database '" + w.dbname +
                                                 "' (create it, or name another)");
  }
  if (has("Connection refused") || has("could not translate host name") ||
      has("No such file or directory") || has("timeout expired") || has("Network is unreachable") ||
      has("No route to host")) {
    return StoreConnectError(
        R::unreachable,
        where + "no server answers there (" +
            first_line(
                m.substr(m.rfind("failed: ") == std::string::npos ? 0 : m.rfind("failed: ") + 8)) +
            ")");
  }
  return StoreConnectError(R::other, where + first_line(m));
}

// SQLSTATE classes that mean the session is gone: 08 (connection exception), 57P01–57P03
// (administrator command, crash shutdown, cannot connect now).
bool session_gone(const std::string& sqlstate) {
  return sqlstate.starts_with("08") || sqlstate == "57P01" || sqlstate == "57P02" ||
         sqlstate == "57P03";
}

// Notices (NOTICE, WARNING) are not gpubill's output.
class QuietNotices final : public pqxx::errorhandler {
 public:
  using pqxx::errorhandler::errorhandler;
  bool operator()(const char[]) noexcept override { return false; }
};

class PgConnection;

class PgStatement final : public Connection::StatementImpl {
 public:
  PgStatement(PgConnection& c, std::string name, std::string sql, int parameters, bool noop)
      : c_(c),
        name_(std::move(name)),
        sql_(std::move(sql)),
        params_(static_cast<std::size_t>(parameters)),
        noop_(noop) {}
  ~PgStatement() override { close_cursor(); }

  void bind_int(int index, std::int64_t value) override { slot(index) = std::to_string(value); }
  void bind_text(int index, std::string_view value) override { slot(index) = std::string(value); }
  void bind_blob(int index, std::string_view bytes) override;
  void bind_null(int index) override { slot(index).reset(); }
  void set_stream(int batch_rows) override { batch_ = noop_ ? 0 : batch_rows; }
  bool step() override;
  int run() override;
  void reset() override {
    close_cursor();
    executed_ = false;
    result_ = pqxx::result();
    first_ = pqxx::result();
  }
  void clear() override {
    for (auto& p : params_) p.reset();
  }
  int column_count() const override { return static_cast<int>(result_.columns()); }
  bool is_null(int index) const override { return field(index).is_null(); }
  std::int64_t get_int(int index) const override;
  std::string get_text(int index) const override {
    const auto f = field(index);
    return f.is_null() ? std::string() : std::string(f.c_str(), f.size());
  }
  std::string_view get_text_view(int index) const override {
    const auto f = field(index);
    return f.is_null() ? std::string_view("") : std::string_view(f.c_str(), f.size());
  }
  std::string get_blob(int index) const override;
  const char* column_name(int index) const override {
    // A streamed query's first batch: its names stay while the statement is.
    return (batch_ ? first_ : result_).column_name(static_cast<pqxx::row_size_type>(index));
  }

 private:
  std::optional<std::string>& slot(int index) {
    if (index < 1 || static_cast<std::size_t>(index) > params_.size()) {
      throw StoreError("no parameter " + std::to_string(index) + " in a statement of " +
                       std::to_string(params_.size()));
    }
    return params_[static_cast<std::size_t>(index - 1)];
  }
  pqxx::field field(int index) const {
    if (!executed_ || row_ >= result_.size()) throw StoreError("no current row to read");
    return result_[row_][static_cast<pqxx::row_size_type>(index)];
  }
  void execute();
  void fetch();
  void close_cursor() noexcept;

  PgConnection& c_;
  std::string name_;
  std::string sql_;  // translated
  std::vector<std::optional<std::string>> params_;
  bool noop_;
  bool executed_ = false;
  pqxx::result result_;
  pqxx::result::size_type row_ = 0;
  // Streamed (batch_ > 0): the open cursor's name ("" when none), the serial of the
  // transaction it lives in (PgConnection::declare_cursor) and the first batch (column names).
  int batch_ = 0;
  std::string cursor_;
  std::uint64_t cursor_serial_ = 0;
  pqxx::result first_;
};

}  // namespace
}  // namespace gpubill::store

namespace gpubill::store {
namespace {

// next_id's numbers of one table: the block reserved from its identity sequence [next, end),
// and what the transaction `serial` took ([first, end) when contiguous).
struct IdBlock {
  std::string sequence;  // as pg_get_serial_sequence names it
  std::int64_t lock_key = 0;
  std::uint64_t serial = 0;
  std::int64_t next = 0, end = 0, block_start = 0, first = 0;
  std::int64_t size = 0;  // of the next block
  bool taken = false, contiguous = true;
};

class PgConnection final : public Connection {
 public:
  PgConnection(PgWhere where, const ConnectOptions& options)
      : where_(std::move(where)), described_(where_.describe()), options_(options) {
    std::string conninfo = where_.conninfo + "connect_timeout=" +
                           std::to_string(std::max<long>(2, options.connect_timeout.count())) +
                           " fallback_application_name=gpubill";
    if (options.read_only) conninfo += " options='-c default_transaction_read_only=on'";
    try {
      conn_ = std::make_unique<pqxx::connection>(conninfo);
    } catch (const pqxx::broken_connection& e) {
      throw connect_error(where_, e.what());
    } catch (const pqxx::sql_error& e) {
      throw connect_error(where_, e.what());
    }
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    conn_->inhibit_reactivation(
        true);  // a broken connection stays broken: never a new session mid-transaction
#pragma GCC diagnostic pop
    quiet_ = std::make_unique<QuietNotices>(*conn_);
    const int version = conn_->server_version();
    if (version < options.min_server_version) {
      throw StoreConnectError(StoreConnectError::Reason::server_too_old,
                              "cannot use " + described_ + ": the server is PostgreSQL " +
                                  version_text(version) + " (server_version_num " +
                                  std::to_string(version) + "); gpubill needs " +
                                  version_text(options.min_server_version) + " or later");
    }
    tx_ = std::make_unique<pqxx::nontransaction>(*conn_, "gpubill");
  }
  ~PgConnection() override {
    tx_.reset();
    quiet_.reset();
  }

  Backend backend() const noexcept override {
    return Backend::postgres;
  }
  const std::string& describe() const noexcept override {
    return described_;
  }
  void exec(std::string_view sql) override {
    exec_native(translate_statement(sql));
  }
  void exec_native(std::string_view sql) override {
    before_statement(sql);
    guarded([&] { return tx_->exec(std::string(sql)); });
  }
  int server_version() override {
    return conn_->server_version();
  }

  std::unique_ptr<StatementImpl> prepare(std::string_view sqlite_sql) override {
    const std::string sql = translate_statement(sqlite_sql);
    const bool noop = sql.find_first_not_of(" \t\r\n;") == std::string::npos;
    auto it = prepared_.find(sql);
    if (it == prepared_.end() && !noop) {
      const std::string name = "g" + std::to_string(++statements_);
      guarded([&] {
        conn_->prepare(name, sql);
        return pqxx::result();
      });
      it = prepared_.emplace(sql, name).first;
    }
    return std::make_unique<PgStatement>(*this, noop ? std::string() : it->second, sql,
                                         count_parameters(sqlite_sql), noop);
  }
  void begin_write(const std::string& work, const std::optional<std::string>& account) override;
  void begin_read() override {
    refuse_while_streaming();
    exec_native("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    failed_.clear();
    in_transaction_ = true;
    ++serial_;
  }
  void commit() override;
  void rollback() noexcept override {
    failed_.clear();
    in_transaction_ = false;
    if (pending_) pending_->end_transaction(false);
    try {
      tx_->exec("ROLLBACK");
    } catch (...) {
      // Gone with the connection, or none open: either way nothing is committed.
      return;
    }
    try {
      give_back_ids(false);
    } catch (...) {
      // Best effort: the numbers stay spent (gaps), as any failed INSERT's.
    }
    if (release_id_locks_) {
      try {
        tx_->exec("SELECT pg_advisory_unlock_all()");
        release_id_locks_ = false;
      } catch (...) {
        // Gone with the connection: so are its locks.
      }
    }
  }

  void set_pending_writes(PendingWrites* writes) override;
  void copy_rows(std::string_view table, std::string_view columns, std::string_view rows) override;
  std::int64_t next_id(std::string_view table, std::string_view column) override;
  std::int64_t reserve_id_range(std::string_view table, std::string_view column,
                                std::int64_t n) override;

  // Flushes the pending writes before a statement of `sql` that touches them.
  void before_statement(std::string_view sql) {
    if (pending_ && !flushing_ && pending_->pending() && pending_->touches(sql)) flush_pending();
  }

  // Runs `f` against the server, turning libpqxx's exceptions into gpubill's.
  template <class F>
  pqxx::result guarded(F&& f, const char* during = nullptr) {
    try {
      return f();
    } catch (const pqxx::in_doubt_error& e) {
      throw lost(e.what(), true);
    } catch (const pqxx::broken_connection& e) {
      throw lost(e.what(), during != nullptr);
    } catch (const pqxx::sql_error& e) {
      if (session_gone(e.sqlstate())) throw lost(e.what(), during != nullptr);
      std::string message = described_ + ": " + first_line(e.what());
      if (failed_.empty()) {
        failed_ = first_line(e.what());
      } else if (e.sqlstate() == "25P02") {
        message += " (after an earlier failure in it: " + failed_ + ")";
      }
      throw SqlError(message);
    }
  }

  // Streamed queries (PgStatement::set_stream). Declares cursor `name` for `sql` with `params`
  // in the open transaction, or in a read snapshot of its own begun for it; returns the
  // transaction's serial, for close_cursor.
  std::uint64_t declare_cursor(const std::string& name, const std::string& sql,
                               const std::vector<std::optional<std::string>>& params);
  pqxx::result fetch(const std::string& cursor, int rows) {
    return guarded([&] { return tx_->exec("FETCH " + std::to_string(rows) + " FROM " + cursor); });
  }
  // Closes the cursor if its transaction is still open, and ends the streams' own transaction
  // with its last cursor.
  void close_cursor(const std::string& name, std::uint64_t serial) noexcept;
  std::string next_cursor_name() {
    return "gc" + std::to_string(++cursors_);
  }

  pqxx::result exec_prepared(const std::string& name,
                             const std::vector<std::optional<std::string>>& params) {
    std::vector<const char*> values;
    values.reserve(params.size());
    for (const auto& p : params) values.push_back(p ? p->c_str() : nullptr);
    return guarded(
        [&] { return tx_->exec_prepared(name, pqxx::prepare::make_dynamic_params(values)); });
  }

 private:
  static std::string version_text(int num) {
    return std::to_string(num / 10000) + "." + std::to_string(num % 10000);
  }
  StoreConnectionLost lost(const std::string& why, bool committing) const {
    return StoreConnectionLost(
        "lost the connection to " + described_ + " (" + first_line(why) + "); " +
        (committing ? "it broke during COMMIT, so whether the transaction was committed is unknown"
                    : "the open transaction, if any, was not committed"));
  }
  std::string lock_holder(std::int64_t key);
  void flush_pending();
  void give_back_ids(bool committing);
  void reserve_ids(struct IdBlock& block);
  std::int64_t take_from_sequence(std::int64_t lock_key, const std::string& sequence,
                                  std::int64_t n);
  void refuse_while_streaming() const {
    if (stream_transaction_) {
      throw StoreError(described_ +
                       ": a transaction cannot begin while a streamed query's rows are still "
                       "being read outside one (begin it before the query)");
    }
  }

  PgWhere where_;
  std::string described_;
  ConnectOptions options_;
  std::unique_ptr<pqxx::connection> conn_;
  std::unique_ptr<QuietNotices> quiet_;
  std::unique_ptr<pqxx::nontransaction> tx_;
  std::map<std::string, std::string> prepared_;  // translated SQL → statement name
  int statements_ = 0;                           // names given, failed preparations too
  std::string failed_;                // the first statement error of the open transaction
  bool in_transaction_ = false;       // a Transaction's (begin_write, begin_read) is open
  bool stream_transaction_ = false;   // the streamed queries' own read snapshot is open
  int stream_cursors_ = 0;            // cursors open in it
  std::uint64_t serial_ = 0;          // transactions begun so far
  int cursors_ = 0;                   // cursor names given
  PendingWrites* pending_ = nullptr;  // set_pending_writes
  bool flushing_ = false;             // in pending_->flush()
  bool release_id_locks_ = false;     // a statement holding an id lock failed: rollback() frees it
  std::map<std::string, IdBlock, std::less<>> ids_;  // next_id's blocks, by table
};

std::uint64_t PgConnection::declare_cursor(const std::string& name, const std::string& sql,
                                           const std::vector<std::optional<std::string>>& params) {
  before_statement(sql);
  const bool own = !in_transaction_;
  if (own && !stream_transaction_) {
    exec_native("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
    failed_.clear();
    stream_transaction_ = true;
    ++serial_;
  }
  std::vector<const char*> values;
  values.reserve(params.size());
  for (const auto& p : params) values.push_back(p ? p->c_str() : nullptr);
  try {
    guarded([&] {
      return tx_->exec_params("DECLARE " + name + " NO SCROLL CURSOR FOR " + sql,
                              pqxx::prepare::make_dynamic_params(values));
    });
  } catch (...) {
    if (own && stream_cursors_ == 0) {
      stream_transaction_ = false;
      rollback();
    }
    throw;
  }
  if (own) ++stream_cursors_;
  return serial_;
}

void PgConnection::close_cursor(const std::string& name, std::uint64_t serial) noexcept {
  if (serial != serial_ || !(in_transaction_ || stream_transaction_)) return;  // ended with it
  if (stream_transaction_) {
    if (--stream_cursors_ > 0) {
      try {
        tx_->exec("CLOSE " + name);
      } catch (...) {
        // The transaction failed: its end below (with the last cursor) rolls it back.
      }
      return;
    }
    stream_transaction_ = false;
    rollback();  // read only: nothing to commit; the cursor goes with it
    return;
  }
  try {
    tx_->exec("CLOSE " + name);
  } catch (...) {
    // Only when the caller's transaction already failed: its end reports that.
  }
}

void PgConnection::begin_write(const std::string& work, const std::optional<std::string>& account) {
  refuse_while_streaming();
  const std::int64_t db_key = advisory_lock_key("");
  const std::int64_t key = account ? advisory_lock_key("account:" + *account) : db_key;
  std::string sql = "BEGIN; SET LOCAL lock_timeout = " +
                    std::to_string(std::max<long long>(1, options_.busy_timeout.count())) +
                    "; SET LOCAL application_name = " + conn_->quote("gpubill " + work) + "; ";
  sql += account ? "SELECT pg_advisory_xact_lock_shared(" + std::to_string(db_key) +
                       "), pg_advisory_xact_lock(" + std::to_string(key) + ")"
                 : "SELECT pg_advisory_xact_lock(" + std::to_string(db_key) + ")";
  sql += "; SET LOCAL lock_timeout = DEFAULT";
  failed_.clear();
  try {
    tx_->exec(sql);
    in_transaction_ = true;
    ++serial_;
  } catch (const pqxx::sql_error& e) {
    rollback();
    if (session_gone(e.sqlstate())) throw lost(e.what(), false);
    if (e.sqlstate() != "55P03") {
      throw StoreError(described_ + ": cannot begin a write transaction: " + first_line(e.what()));
    }
    std::string holder = lock_holder(db_key);
    if (holder.empty() && key != db_key) holder = lock_holder(key);
    throw StoreError(described_ + " is being written by " +
                     (holder.empty() ? std::string("another connection") : holder) +
                     "; gave up waiting after the busy timeout (GPUBILL_BUSY_TIMEOUT, seconds)");
  } catch (const pqxx::broken_connection& e) {
    throw lost(e.what(), false);
  }
}

// "a replay (server process 123, client local) since 2026-12-03 10:00:00 UTC", or "".
std::string PgConnection::lock_holder(std::int64_t key) {
  const auto u = static_cast<std::uint64_t>(key);
  const std::string sql =
      "SELECT a.pid, coalesce(a.application_name, ''), coalesce(a.client_addr::text, 'local'), "
      "coalesce(to_char(a.xact_start AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS'), '') "
      "FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' "
      // Advisory locks belong to a database: the same key held in another database of the
      // server is another gpubill's, not this one's holder.
      "AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()) "
      "AND l.granted AND l.classid = " +
      std::to_string(u >> 32) + " AND l.objid = " + std::to_string(u & 0xffffffffu) +
      " AND l.objsubid = 1 LIMIT 1";
  try {
    const auto r = tx_->exec(sql);
    if (r.empty()) return "";
    std::string app = r[0][1].c_str();
    if (app.starts_with("gpubill ")) app = app.substr(8);
    return "a " + (app.empty() ? std::string("connection") : app) + " (server process " +
           r[0][0].c_str() + ", client " + r[0][2].c_str() + ")" +
           (r[0][3].size() ? std::string(" since ") + r[0][3].c_str() + " UTC" : std::string());
  } catch (const std::exception&) {
    return "";
  }
}

void PgConnection::commit() {
  if (!failed_.empty()) {
    const std::string why = failed_;
    rollback();
    throw StoreError(described_ +
                     ": the transaction was rolled back, not committed: a statement "
                     "in it failed (" +
                     why + ")");
  }
  // A COMMIT of a transaction in which a statement failed answers ROLLBACK without an error:
  // failed_ (every statement runs through guarded()) catches that case above.
  if (pending_ && pending_->pending()) {
    try {
      flush_pending();
    } catch (...) {
      rollback();  // nothing of the buffered rows, nor of the rest, is committed
      throw;
    }
  }
  try {
    give_back_ids(true);
  } catch (...) {
    rollback();
    throw;
  }
  in_transaction_ = false;
  guarded([&] { return tx_->exec("COMMIT"); }, "COMMIT");
  if (pending_) pending_->end_transaction(true);
}

void PgConnection::flush_pending() {
  flushing_ = true;
  try {
    pending_->flush();
  } catch (const std::exception& e) {
    flushing_ = false;
    // The transaction may have written part of the rows: it must not commit.
    if (failed_.empty()) failed_ = std::string("a batched write failed: ") + first_line(e.what());
    throw;
  }
  flushing_ = false;
}

void PgConnection::set_pending_writes(PendingWrites* writes) {
  if (pending_ && pending_ != writes && in_transaction_ && pending_->pending()) {
    try {
      flush_pending();
    } catch (const std::exception&) {
      pending_->end_transaction(false);  // failed_ is set: COMMIT refuses
    }
  }
  pending_ = writes;
}

void PgConnection::copy_rows(std::string_view table, std::string_view columns,
                             std::string_view rows) {
  if (rows.empty()) return;
  std::vector<std::string> names;
  for (std::size_t at = 0; at <= columns.size();) {
    auto comma = columns.find(',', at);
    if (comma == std::string_view::npos) comma = columns.size();
    std::string name(columns.substr(at, comma - at));
    name.erase(0, name.find_first_not_of(' '));
    name.erase(name.find_last_not_of(' ') + 1);
    names.push_back(std::move(name));
    at = comma + 1;
  }
  if (rows.back() == '\n') rows.remove_suffix(1);  // write_raw_line ends the last line
  guarded([&] {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    // tablewriter (deprecated in libpqxx 7, there in 6) takes lines already in COPY's format.
    pqxx::tablewriter w(*tx_, std::string(table), names.begin(), names.end());
#pragma GCC diagnostic pop
    w.write_raw_line(std::string(rows));
    w.complete();
    return pqxx::result();
  });
}

std::int64_t PgConnection::next_id(std::string_view table, std::string_view column) {
  auto it = ids_.find(table);
  if (it == ids_.end()) {
    const auto r = guarded([&] {
      return tx_->exec("SELECT pg_get_serial_sequence(" + conn_->quote(std::string(table)) + ", " +
                       conn_->quote(std::string(column)) + ")");
    });
    if (r.empty() || r[0][0].is_null()) {
      throw StoreError(described_ + ": " + std::string(table) + "." + std::string(column) +
                       " has no identity sequence");
    }
    IdBlock b;
    b.sequence = r[0][0].c_str();
    b.lock_key = advisory_lock_key("sequence:" + std::string(table));
    it = ids_.emplace(std::string(table), std::move(b)).first;
  }
  IdBlock& b = it->second;
  if (b.serial != serial_ || !in_transaction_) {
    b.serial = serial_;
    b.next = b.end = 0;
    b.size = 16;
    b.taken = false;
    b.contiguous = true;
  }
  if (b.next == b.end) reserve_ids(b);
  return b.next++;
}

std::int64_t PgConnection::reserve_id_range(std::string_view table, std::string_view column,
                                            std::int64_t n) {
  const std::string seq = "pg_get_serial_sequence(" + conn_->quote(std::string(table)) + ", " +
                          conn_->quote(std::string(column)) + ")";
  return take_from_sequence(advisory_lock_key("sequence:" + std::string(table)), seq, n) - n + 1;
}

// One round trip: `n` consecutive numbers taken from `sequence` (an SQL expression naming it)
// under the table's session advisory lock `lock_key`; returns the last.
std::int64_t PgConnection::take_from_sequence(std::int64_t lock_key, const std::string& sequence,
                                              std::int64_t n) {
  const std::string key = std::to_string(lock_key);
  // Session-level: should the setval fail after the lock, ROLLBACK would not release it
  // (rollback() then releases every session advisory lock: gpubill holds no others).
  release_id_locks_ = true;
  const auto r = guarded([&] {
    return tx_->exec("SELECT pg_advisory_lock(" + key + "); SELECT v, pg_advisory_unlock(" + key +
                     ") FROM (SELECT setval(" + sequence + ", nextval(" + sequence + ") + " +
                     std::to_string(n - 1) + ") AS v OFFSET 0) AS r");
  });
  release_id_locks_ = false;
  return r[0][0].as<std::int64_t>();
}

// The block's numbers, consecutive, from its table's sequence.
void PgConnection::reserve_ids(IdBlock& b) {
  const std::int64_t n = b.size;
  b.size = std::min<std::int64_t>(b.size * 2, 8192);
  const std::int64_t last = take_from_sequence(b.lock_key, conn_->quote(b.sequence), n);
  const std::int64_t start = last - n + 1;
  if (!b.taken) {
    b.first = start;
    b.taken = true;
  } else if (start != b.end) {
    b.contiguous = false;
  }
  b.block_start = start;
  b.next = start;
  b.end = last + 1;
}

// Sets each sequence back to the first number not used — committing: the rest of the last
// block; rolled back: every number of the transaction (or of its last block, when another
// connection took numbers between its blocks) — when no other connection took numbers since.
void PgConnection::give_back_ids(bool committing) {
  std::string sql;
  for (auto& [table, b] : ids_) {
    if (b.serial != serial_ || !b.taken) continue;
    const std::int64_t to = committing ? b.next : (b.contiguous ? b.first : b.block_start);
    b.taken = false;
    b.serial = 0;
    if (to >= b.end) continue;
    const std::string key = std::to_string(b.lock_key);
    sql += "SELECT pg_advisory_lock(" + key + "); SELECT setval(" + conn_->quote(b.sequence) +
           ", " + std::to_string(to) + ", false) FROM " + b.sequence +
           " WHERE is_called AND last_value = " + std::to_string(b.end - 1) +
           "; SELECT pg_advisory_unlock(" + key + "); ";
  }
  if (sql.empty()) return;
  release_id_locks_ = true;
  // Committing: in the transaction, through guarded(), so that a failure fails the COMMIT
  // (an aborted transaction would otherwise answer COMMIT with a silent ROLLBACK).
  if (committing) {
    guarded([&] { return tx_->exec(sql); });
  } else {
    tx_->exec(sql);
  }
  release_id_locks_ = false;
}

void PgStatement::bind_blob(int index, std::string_view bytes) {
  static const char* hex = "0123456789abcdef";
  std::string text = "\\x";
  text.reserve(2 + bytes.size() * 2);
  for (unsigned char b : bytes) {
    text += hex[b >> 4];
    text += hex[b & 15];
  }
  slot(index) = std::move(text);
}

void PgStatement::execute() {
  if (!noop_) c_.before_statement(sql_);
  if (!noop_) result_ = c_.exec_prepared(name_, params_);
  executed_ = true;
  row_ = 0;
}

bool PgStatement::step() {
  if (batch_ == 0) {
    if (!executed_) {
      execute();
    } else if (row_ < result_.size()) {
      ++row_;
    }
    return row_ < result_.size();
  }
  if (!executed_) {
    std::string name = c_.next_cursor_name();
    cursor_serial_ = c_.declare_cursor(name, sql_, params_);
    cursor_ = std::move(name);
    executed_ = true;
    fetch();
    first_ = result_;
  } else if (row_ < result_.size() && ++row_ == result_.size() && !cursor_.empty()) {
    fetch();
  }
  return row_ < result_.size();
}

// The next batch into result_; the cursor closed after the last.
void PgStatement::fetch() {
  row_ = 0;
  try {
    result_ = c_.fetch(cursor_, batch_);
  } catch (...) {
    close_cursor();
    throw;
  }
  if (result_.size() < static_cast<pqxx::result::size_type>(batch_)) close_cursor();
}

void PgStatement::close_cursor() noexcept {
  if (cursor_.empty()) return;
  c_.close_cursor(cursor_, cursor_serial_);
  cursor_.clear();
}

int PgStatement::run() {
  execute();
  return static_cast<int>(noop_ ? 0 : result_.affected_rows());
}

std::int64_t PgStatement::get_int(int index) const {
  const auto f = field(index);
  if (f.is_null()) return 0;
  const std::string_view text(f.c_str(), f.size());
  if (text == "t") return 1;
  if (text == "f") return 0;
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) {
    throw StoreError(std::string("column ") + column_name(index) + " holds '" + std::string(text) +
                     "', not an integer");
  }
  return v;
}

std::string PgStatement::get_blob(int index) const {
  const auto f = field(index);
  if (f.is_null()) return {};
  return pqxx::binarystring(f).str();
}

}  // namespace

}  // namespace gpubill::store

// The module's one entry point (postgres_module.hpp): a new connection the caller owns.
// Exceptions pass through to the caller, which shares this process's C++ runtime.
extern "C" gpubill::store::Connection* gpubill_postgres_open(
    const std::string& url, const gpubill::store::ConnectOptions& options) {
  using gpubill::store::PgConnection;
  return new PgConnection(gpubill::store::parse_url(url), options);
}
