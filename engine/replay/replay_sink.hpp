// Private to the engine: the replay's sink writing charges, movements and states to the store
// (SQLite or PostgreSQL, store::Connection) with prepared statements reused for every row
// (tables of migrations/0002_replay.sql).
#pragma once

#include <sqlite3.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "replay/replay_model.hpp"
#include "replay/replay_plan.hpp"
#include "store/connection.hpp"
#include "store/store.hpp"

namespace gpubill::replay_detail {

// Decimal text with exactly `decimals` places when that loses nothing ("7.50"), else exact.
inline std::string fixed_text(Decimal d, int decimals) {
  if (decimals >= 0 && decimals <= Decimal::kScale && d.round(decimals, RoundingMode::down) == d) {
    return d.to_string(decimals);
  }
  return d.to_string();
}

inline void bind_optional(store::Statement& q, int index, const std::optional<std::int64_t>& v) {
  if (v) {
    q.bind(index, static_cast<int64_t>(*v));
  } else {
    q.bind(index);
  }
}

// An INSERT that gives the id of the row it wrote, or nothing when it wrote none (an ignored
// duplicate). PostgreSQL runs its own SQL, an `INSERT … RETURNING id`; SQLite runs its SQL
// without RETURNING and reads sqlite3_last_insert_rowid: SQLite (3.40) collects RETURNING's rows
// in an ephemeral table opened at every execution, which made a replay of 49,282 events take
// 6.7 billion instructions instead of 3.4 (docs/postgresql.md).
class IdInsert {
 public:
  IdInsert(store::Connection& db, const std::string& sqlite_sql, const std::string& postgres_sql)
      : sqlite_(db.backend() == store::Backend::sqlite ? store::sqlite_database(db).getHandle()
                                                       : nullptr),
        q_(db, sqlite_ ? sqlite_sql : postgres_sql) {}
  // An INSERT of one row into a table whose key is `id`.
  IdInsert(store::Connection& db, const std::string& sql)
      : IdInsert(db, sql, sql + " RETURNING id") {}
  // The statement, reset, to bind.
  store::Statement& start() {
    q_.reset();
    return q_;
  }
  std::optional<std::int64_t> run() {
    if (sqlite_) {
      if (q_.exec() == 0) return std::nullopt;
      return sqlite3_last_insert_rowid(sqlite_);
    }
    std::optional<std::int64_t> id;
    if (q_.executeStep()) id = q_.getColumn(0).getInt64();
    q_.reset();  // holds nothing open
    return id;
  }

 private:
  sqlite3* sqlite_;
  store::Statement q_;
};

// A set of 64-bit hashes (open addressing, 8 bytes a slot, at most half full): the event
// dedupe's filter of (account, id) pairs, 16 bytes or so an event.
class HashSet {
 public:
  bool contains(std::uint64_t h) const noexcept {
    if (slots_.empty()) return false;
    h = h ? h : 1;
    for (std::size_t i = h & mask_;; i = (i + 1) & mask_) {
      if (slots_[i] == h) return true;
      if (slots_[i] == 0) return false;
    }
  }
  void insert(std::uint64_t h) {
    h = h ? h : 1;
    if ((size_ + 1) * 2 > slots_.size()) grow();
    std::size_t i = h & mask_;
    for (; slots_[i] != 0; i = (i + 1) & mask_) {
      if (slots_[i] == h) return;
    }
    slots_[i] = h;
    ++size_;
  }
  void clear() noexcept {
    std::vector<std::uint64_t>().swap(slots_);
    size_ = 0;
    mask_ = 0;
  }

 private:
  void grow() {
    std::vector<std::uint64_t> old;
    old.swap(slots_);
    slots_.assign(std::max<std::size_t>(1024, old.size() * 2), 0);
    mask_ = slots_.size() - 1;
    size_ = 0;
    for (auto h : old) {
      if (h) insert(h);
    }
  }
  std::vector<std::uint64_t> slots_;
  std::size_t size_ = 0, mask_ = 0;
};

// Lines in COPY's text format.
class CopyText {
 public:
  void text(std::string_view v) {
    sep();
    for (char c : v) {
      switch (c) {
        case '\\':
          out_ += "\\\\";
          break;
        case '\t':
          out_ += "\\t";
          break;
        case '\n':
          out_ += "\\n";
          break;
        case '\r':
          out_ += "\\r";
          break;
        default:
          out_ += c;
      }
    }
  }
  void integer(std::int64_t v) {
    sep();
    out_ += std::to_string(v);
  }
  void optional(const std::optional<std::int64_t>& v) {
    if (v) {
      integer(*v);
    } else {
      null();
    }
  }
  void null() {
    sep();
    out_ += "\\N";
  }
  void end_row() {
    out_ += '\n';
    first_ = true;
  }
  std::string& data() { return out_; }

 private:
  void sep() {
    if (!first_) out_ += '\t';
    first_ = false;
  }
  std::string out_;
  bool first_ = true;
};

// PostgreSQL: what a replay writes, buffered and sent in batches with COPY — events, charges,
// balance movements, instance states — instead of one round trip per row (docs/postgresql.md).
// Ids the engine needs back (event seqs, charge and movement ids) come from
// Connection::next_id, the numbers one INSERT per row would have taken, so that rows, ids and
// seqs are SQLite's. Rows are flushed, in that order (a movement names its charge), when
// flush_rows are buffered, before any statement that names one of their tables
// (store::PendingWrites: the connection asks) and before COMMIT; an update of a row still
// buffered changes it there, of one already written is buffered too and sent in one UPDATE.
// A rollback drops them: nothing buffered is ever half-applied.
class PgBatch final : public store::PendingWrites {
 public:
  // Rows buffered before a flush (every table together): about 5 MB of COPY text. Tests set
  // it low to send every update of a row through the batched UPDATE.
  inline static std::size_t flush_rows = 20'000;

  PgBatch(store::Connection& db, RowNumbering& numbering)
      : db_(db),
        numbering_(numbering),
        find_event_(db, "SELECT 1 FROM event WHERE account = ? AND id = ?"),
        account_events_(db, "SELECT id FROM event WHERE account = ?"),
        any_event_(db, "SELECT 1 FROM event LIMIT 1") {
    db_.set_pending_writes(this);
  }
  ~PgBatch() override {
    try {
      db_.set_pending_writes(nullptr);  // flushes what is left, or fails the transaction
    } catch (...) {
      // Only when no transaction is open: nothing to write then.
    }
  }
  PgBatch(const PgBatch&) = delete;
  PgBatch& operator=(const PgBatch&) = delete;

  // The event's seq, or nothing when (account, id) is stored already (a duplicate: no row,
  // no seq spent) — as `INSERT … WHERE NOT EXISTS … RETURNING seq` one at a time. Exact: a
  // filter of the ids stored before (read once an account) and written since says "new" for
  // certain; when it says "maybe", the event table is asked (after a flush).
  [[gnu::noinline]] std::optional<std::int64_t> insert_event(
      const std::string& account, const std::string& id, std::int64_t time, std::string_view type,
      const std::string& instance, const std::string& payload, const std::string& path,
      std::int64_t line) {
    if (seen_accounts_.insert(account).second) load_stored_ids(account);
    const std::uint64_t h = event_hash(account, id);
    if (ids_.contains(h)) {
      find_event_.reset();
      find_event_.bind(1, account);
      find_event_.bind(2, id);
      const bool stored = find_event_.executeStep();  // flushes first: touches `event`
      find_event_.reset();
      if (stored) return std::nullopt;
    }
    ids_.insert(h);
    const std::int64_t seq = number(p_event, "event", "seq");
    events_.integer(seq);
    events_.text(account);
    events_.text(id);
    events_.integer(time);
    events_.text(type);
    events_.text(instance);
    events_.text(payload);
    events_.text(path);
    events_.integer(line);
    events_.text("applied");
    events_.end_row();
    added();
    return seq;
  }

  [[gnu::noinline]] std::int64_t insert_charge(const replay::ChargeRow& r) {
    const std::int64_t id = number(p_charge, "charge", "id");
    charges_.push_back({id, r, {}, {}});
    added();
    return id;
  }
  [[gnu::noinline]] void update_charge(std::int64_t id, const replay::ChargeRow& r) {
    std::string exact = (r.exact * r.repeat).to_string();
    std::string billed = fixed_text(r.billed * r.repeat, r.decimals);
    if (auto* c = buffered(charges_, id)) {
      c->row.repeat = r.repeat;
      c->row.period_end = r.period_end;
      c->total_exact = std::move(exact);
      c->total_billed = std::move(billed);
      return;
    }
    charge_updates_[id] = {r.repeat, r.period_end, std::move(exact), std::move(billed), r.account};
  }
  [[gnu::noinline]] std::int64_t insert_movement(const replay::MovementRow& m) {
    const std::int64_t id = number(p_movement, "balance_movement", "id");
    movements_.push_back({id, m, {}, {}});
    added();
    return id;
  }
  [[gnu::noinline]] void update_movement(std::int64_t id, const replay::MovementRow& m) {
    if (auto* b = buffered(movements_, id)) {
      b->row.at = m.at;
      b->row.amount = m.amount;
      b->row.balance_after = m.balance_after;
      return;
    }
    movement_updates_[id] = {m.at, m.amount.to_string(), m.balance_after.to_string(), m.account};
  }
  // Numbered as events, charges and movements, so that a rolled-back replay spends none.
  [[gnu::noinline]] void insert_state(const replay::StateRow& s) {
    states_.integer(number(p_state, "instance_state", "id"));
    states_.text(s.account);
    states_.text(s.instance);
    states_.integer(s.at);
    states_.text(s.state);
    states_.text(s.reason);
    states_.optional(s.event_seq ? std::optional<std::int64_t>(s.event_seq) : std::nullopt);
    states_.end_row();
    added();
  }

  // ---- store::PendingWrites ----
  bool pending() const noexcept override {
    return rows_ > 0 || !charge_updates_.empty() || !movement_updates_.empty();
  }
  bool touches(std::string_view sql) const noexcept override {
    if (own_query_) return false;
    for (const char* t : {"event", "charge", "balance_movement", "instance_state"}) {
      if (store::names_table(sql, t)) return true;
    }
    return false;
  }
  void flush() override {
    // Taken out first: whatever happens, nothing is sent twice (a failed flush fails the
    // transaction).
    CopyText events, states;
    std::swap(events, events_);
    std::swap(states, states_);
    std::vector<Buffered<replay::ChargeRow>> charges;
    std::vector<Buffered<replay::MovementRow>> movements;
    charges.swap(charges_);
    movements.swap(movements_);
    std::map<std::int64_t, ChargeUpdate> charge_updates;
    std::map<std::int64_t, MovementUpdate> movement_updates;
    charge_updates.swap(charge_updates_);
    movement_updates.swap(movement_updates_);
    rows_ = 0;

    db_.copy_rows("event",
                  "seq, account, id, time, type, instance, payload, source_file, source_line, "
                  "status",
                  events.data());
    if (!charges.empty()) {
      CopyText t;
      for (const auto& c : charges) charge_line(t, c);
      db_.copy_rows("charge", kChargeColumns, t.data());
    }
    if (!movements.empty()) {
      CopyText t;
      for (const auto& m : movements) movement_line(t, m);
      db_.copy_rows("balance_movement",
                    "id, account, at, currency, amount, balance_after, kind, charge_id, event_seq",
                    t.data());
    }
    db_.copy_rows("instance_state", "id, account, instance, at, state, reason, event_seq",
                  states.data());
    send_updates(charge_updates, movement_updates);
  }
  void end_transaction(bool /*committed*/) noexcept override {
    events_ = CopyText();
    states_ = CopyText();
    charges_.clear();
    movements_.clear();
    charge_updates_.clear();
    movement_updates_.clear();
    rows_ = 0;
    // The filter is of this transaction: another may follow other writers.
    ids_.clear();
    seen_accounts_.clear();
    any_checked_ = false;
  }

 private:
  template <class Row>
  struct Buffered {
    std::int64_t id;
    Row row;
    std::optional<std::string> total_exact, total_billed;  // charges: set by an update
  };
  // An update names the row's account too, so that it is routed to one shard on Citus
  // (docs/postgresql.md, "Citus").
  struct ChargeUpdate {
    std::int64_t repeat, period_end;
    std::string total_exact, total_billed, account;
  };
  struct MovementUpdate {
    std::int64_t at;
    std::string amount, balance_after, account;
  };
  static constexpr const char* kChargeColumns =
      "id, account, instance, provider, region, instance_type, component, kind, mode, "
      "period_start, period_end, repeat, quantity, unit, unit_price, price_unit, exact_amount, "
      "billed_amount, rounding, total_exact, total_billed, currency, price_id, policy_id, "
      "discount_id, event_seqs, note, effective_amount";

  static std::uint64_t event_hash(std::string_view account, std::string_view id) {
    const std::uint64_t a = std::hash<std::string_view>{}(account);
    const std::uint64_t b = std::hash<std::string_view>{}(id);
    return a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull + (a << 6) + (a >> 2));
  }

  // Ids grow in the order rows are buffered: a binary search.
  template <class Row>
  static Buffered<Row>* buffered(std::vector<Buffered<Row>>& rows, std::int64_t id) {
    auto it = std::lower_bound(rows.begin(), rows.end(), id,
                               [](const Buffered<Row>& b, std::int64_t v) { return b.id < v; });
    return it != rows.end() && it->id == id ? &*it : nullptr;
  }

  void added() {
    if (++rows_ >= flush_rows) flush();
  }

  // The plan's number of the row (a replay with workers), or the identity's next.
  std::int64_t number(PlanTable table, std::string_view name, std::string_view column) {
    if (auto id = numbering_.take(table)) return *id;
    return db_.next_id(name, column);
  }

  // The ids of the account's stored events into the filter, when the event table held any
  // when this transaction first looked (none: a first replay asks once, not per account). Not
  // a reason to flush: none of the account's events is buffered yet.
  void load_stored_ids(const std::string& account) {
    own_query_ = true;
    try {
      if (!any_checked_) {
        any_event_.reset();
        any_stored_ = any_event_.executeStep();
        any_event_.reset();
        any_checked_ = true;
      }
      if (any_stored_) {
        account_events_.reset();
        account_events_.bind(1, account);
        while (account_events_.executeStep()) {
          ids_.insert(event_hash(account, account_events_.getColumn(0).getStringView()));
        }
        account_events_.reset();
      }
    } catch (...) {
      own_query_ = false;
      throw;
    }
    own_query_ = false;
  }

  void charge_line(CopyText& t, const Buffered<replay::ChargeRow>& c) {
    const replay::ChargeRow& r = c.row;
    t.integer(c.id);
    t.text(r.account);
    t.text(r.instance);
    t.text(r.provider);
    t.text(r.region);
    t.text(r.instance_type);
    t.text(r.component);
    t.text(r.kind);
    t.text(r.mode);
    t.integer(r.period_start);
    t.integer(r.period_end);
    t.integer(r.repeat);
    t.text(r.quantity);
    t.text(r.unit);
    t.text(r.unit_price.to_string());
    t.text(r.price_unit);
    t.text(r.exact.to_string());
    t.text(fixed_text(r.billed, r.decimals));
    t.text(r.rounding.to_string());
    t.text(c.total_exact ? *c.total_exact : (r.exact * r.repeat).to_string());
    t.text(c.total_billed ? *c.total_billed : fixed_text(r.billed * r.repeat, r.decimals));
    t.text(r.currency.to_string());
    t.optional(r.price_id);
    t.optional(r.policy_id);
    t.optional(r.discount_id);
    t.text(r.event_seqs);
    t.text(r.note);
    if (r.effective) {
      t.text(r.effective->to_string());
    } else {
      t.null();
    }
    t.end_row();
  }

  static void movement_line(CopyText& t, const Buffered<replay::MovementRow>& b) {
    const replay::MovementRow& m = b.row;
    t.integer(b.id);
    t.text(m.account);
    t.integer(m.at);
    t.text(m.currency.to_string());
    t.text(m.amount.to_string());
    t.text(m.balance_after.to_string());
    t.text(m.kind);
    t.optional(m.charge_id);
    t.optional(m.event_seq);
    t.end_row();
  }

  static std::string literal(std::string_view v) {
    std::string out = "'";
    for (char c : v) {
      if (c == '\'') out += '\'';
      out += c;
    }
    return out + "'";
  }

  // Updates of rows written by an earlier flush: one UPDATE … FROM (VALUES …) a table and
  // 5,000 rows.
  void send_updates(const std::map<std::int64_t, ChargeUpdate>& charges,
                    const std::map<std::int64_t, MovementUpdate>& movements) {
    constexpr std::size_t kChunk = 5'000;
    std::string values;
    std::size_t n = 0;
    const auto send = [&](const char* head, const char* tail) {
      if (n == 0) return;
      db_.exec_native(head + values + tail);
      values.clear();
      n = 0;
    };
    const char* ch =
        "UPDATE charge AS c SET repeat = v.repeat, period_end = v.period_end, total_exact = "
        "v.total_exact, total_billed = v.total_billed FROM (VALUES ";
    const char* ct =
        ") AS v(id, repeat, period_end, total_exact, total_billed, account) WHERE c.id = v.id AND "
        "c.account = v.account";
    for (const auto& [id, u] : charges) {
      values += (n ? ", (" : "(") + std::to_string(id) + "::bigint, " + std::to_string(u.repeat) +
                "::bigint, " + std::to_string(u.period_end) + "::bigint, " +
                literal(u.total_exact) + ", " + literal(u.total_billed) + ", " +
                literal(u.account) + ")";
      if (++n == kChunk) send(ch, ct);
    }
    send(ch, ct);
    const char* mh =
        "UPDATE balance_movement AS m SET at = v.at, amount = v.amount, balance_after = "
        "v.balance_after FROM (VALUES ";
    const char* mt =
        ") AS v(id, at, amount, balance_after, account) WHERE m.id = v.id AND m.account = "
        "v.account";
    for (const auto& [id, u] : movements) {
      values += (n ? ", (" : "(") + std::to_string(id) + "::bigint, " + std::to_string(u.at) +
                "::bigint, " + literal(u.amount) + ", " + literal(u.balance_after) + ", " +
                literal(u.account) + ")";
      if (++n == kChunk) send(mh, mt);
    }
    send(mh, mt);
  }

  store::Connection& db_;
  RowNumbering& numbering_;
  CopyText events_, states_;
  std::vector<Buffered<replay::ChargeRow>> charges_;
  std::vector<Buffered<replay::MovementRow>> movements_;
  std::map<std::int64_t, ChargeUpdate> charge_updates_;
  std::map<std::int64_t, MovementUpdate> movement_updates_;
  std::size_t rows_ = 0;  // buffered rows of every table
  store::Statement find_event_, account_events_, any_event_;
  HashSet ids_;                                    // (account, id) of stored events, filtered
  std::unordered_set<std::string> seen_accounts_;  // whose stored ids are in ids_
  bool any_checked_ = false, any_stored_ = false;
  bool own_query_ = false;  // PgBatch's own reads: not a reason to flush
};

// SQLite: one prepared statement a row. PostgreSQL: PgBatch.
class SqlSink : public replay::Sink {
 public:
  // Rows are numbered by `numbering` when it has a plan, else by the database.
  SqlSink(store::Connection& db, RowNumbering& numbering)
      : numbering_(numbering),
        batch_(db.backend() == store::Backend::postgres ? std::make_unique<PgBatch>(db, numbering)
                                                        : nullptr),
        insert_charge_(
            db,
            "INSERT INTO charge(account, instance, provider, region, instance_type, "
            "component, kind, mode, period_start, period_end, repeat, quantity, unit, "
            "unit_price, price_unit, exact_amount, billed_amount, rounding, total_exact, "
            "total_billed, currency, price_id, policy_id, discount_id, event_seqs, note, "
            "effective_amount, id) "
            "VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
            "?, ?, ?, ?, ?)"),
        update_charge_(db,
                       "UPDATE charge SET repeat = ?, period_end = ?, total_exact = ?, "
                       "total_billed = ? WHERE id = ? AND account = ?"),
        insert_movement_(
            db,
            "INSERT INTO balance_movement(account, at, currency, amount, "
            "balance_after, kind, charge_id, event_seq, id) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)"),
        update_movement_(db,
                         "UPDATE balance_movement SET at = ?, amount = ?, balance_after = ? "
                         "WHERE id = ? AND account = ?"),
        insert_state_(db,
                      "INSERT INTO instance_state(account, instance, at, state, reason, "
                      "event_seq, id) VALUES(?, ?, ?, ?, ?, ?, ?)") {}

  // PostgreSQL's batch (the driver's events go there too), or null on SQLite.
  PgBatch* batch() noexcept { return batch_.get(); }

  std::int64_t insert_charge(const replay::ChargeRow& r) override {
    if (batch_) [[unlikely]]
      return batch_->insert_charge(r);
    auto& q = insert_charge_.start();
    q.bindNoCopy(1, r.account);
    q.bindNoCopy(2, r.instance);
    q.bindNoCopy(3, r.provider);
    q.bindNoCopy(4, r.region);
    q.bindNoCopy(5, r.instance_type);
    q.bindNoCopy(6, r.component);
    q.bindNoCopy(7, r.kind);
    q.bindNoCopy(8, r.mode);
    q.bind(9, static_cast<int64_t>(r.period_start));
    q.bind(10, static_cast<int64_t>(r.period_end));
    q.bind(11, static_cast<int64_t>(r.repeat));
    q.bindNoCopy(12, r.quantity);
    q.bindNoCopy(13, r.unit);
    q.bind(14, r.unit_price.to_string());
    q.bindNoCopy(15, r.price_unit);
    q.bind(16, r.exact.to_string());
    q.bind(17, fixed_text(r.billed, r.decimals));
    q.bind(18, r.rounding.to_string());
    q.bind(19, (r.exact * r.repeat).to_string());
    q.bind(20, fixed_text(r.billed * r.repeat, r.decimals));
    q.bind(21, r.currency.to_string());
    bind_optional(q, 22, r.price_id);
    bind_optional(q, 23, r.policy_id);
    bind_optional(q, 24, r.discount_id);
    q.bindNoCopy(25, r.event_seqs);
    q.bindNoCopy(26, r.note);
    if (r.effective) {
      q.bind(27, r.effective->to_string());
    } else {
      q.bind(27);
    }
    bind_optional(q, 28, numbering_.take(p_charge));  // NULL: SQLite numbers it
    return *insert_charge_.run();
  }

  void update_charge(std::int64_t id, const replay::ChargeRow& r) override {
    if (batch_) [[unlikely]]
      return batch_->update_charge(id, r);
    auto& q = update_charge_;
    q.reset();
    q.bind(1, static_cast<int64_t>(r.repeat));
    q.bind(2, static_cast<int64_t>(r.period_end));
    q.bind(3, (r.exact * r.repeat).to_string());
    q.bind(4, fixed_text(r.billed * r.repeat, r.decimals));
    q.bind(5, static_cast<int64_t>(id));
    q.bindNoCopy(6, r.account);
    q.exec();
  }

  std::int64_t insert_movement(const replay::MovementRow& m) override {
    if (batch_) [[unlikely]]
      return batch_->insert_movement(m);
    auto& q = insert_movement_.start();
    q.bindNoCopy(1, m.account);
    q.bind(2, static_cast<int64_t>(m.at));
    q.bind(3, m.currency.to_string());
    q.bind(4, m.amount.to_string());
    q.bind(5, m.balance_after.to_string());
    q.bind(6, m.kind);
    bind_optional(q, 7, m.charge_id);
    bind_optional(q, 8, m.event_seq);
    bind_optional(q, 9, numbering_.take(p_movement));
    return *insert_movement_.run();
  }

  void update_movement(std::int64_t id, const replay::MovementRow& m) override {
    if (batch_) [[unlikely]]
      return batch_->update_movement(id, m);
    auto& q = update_movement_;
    q.reset();
    q.bind(1, static_cast<int64_t>(m.at));
    q.bind(2, m.amount.to_string());
    q.bind(3, m.balance_after.to_string());
    q.bind(4, static_cast<int64_t>(id));
    q.bindNoCopy(5, m.account);
    q.exec();
  }

  void insert_state(const replay::StateRow& s) override {
    if (batch_) [[unlikely]]
      return batch_->insert_state(s);
    auto& q = insert_state_;
    q.reset();
    q.bindNoCopy(1, s.account);
    q.bindNoCopy(2, s.instance);
    q.bind(3, static_cast<int64_t>(s.at));
    q.bindNoCopy(4, s.state);
    q.bindNoCopy(5, s.reason);
    bind_optional(q, 6, s.event_seq ? std::optional<std::int64_t>(s.event_seq) : std::nullopt);
    bind_optional(q, 7, numbering_.take(p_state));
    q.exec();
  }

 private:
  RowNumbering& numbering_;
  std::unique_ptr<PgBatch> batch_;
  IdInsert insert_charge_;
  store::Statement update_charge_;
  IdInsert insert_movement_;
  store::Statement update_movement_, insert_state_;
};

// The first pass of a replay with workers: counts the rows by position (RowNumbering), writes
// none.
class CountingSink : public replay::Sink {
 public:
  explicit CountingSink(RowNumbering& numbering) : numbering_(numbering) {}
  std::int64_t insert_charge(const replay::ChargeRow&) override {
    return *numbering_.take(p_charge);
  }
  void update_charge(std::int64_t, const replay::ChargeRow&) override {}
  std::int64_t insert_movement(const replay::MovementRow&) override {
    return *numbering_.take(p_movement);
  }
  void update_movement(std::int64_t, const replay::MovementRow&) override {}
  void insert_state(const replay::StateRow&) override { numbering_.take(p_state); }

 private:
  RowNumbering& numbering_;
};

}  // namespace gpubill::replay_detail
