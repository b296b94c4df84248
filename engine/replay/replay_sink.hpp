// Private to the engine: the replay's sink writing charges, movements and states to the store
// (SQLite or PostgreSQL, store::Connection) with prepared statements reused for every row
// (tables of migrations/0002_replay.sql).
#pragma once

#include <sqlite3.h>

#include <optional>
#include <string>

#include "replay/replay_model.hpp"
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

class SqlSink : public replay::Sink {
 public:
  explicit SqlSink(store::Connection& db)
      : insert_charge_(
            db,
            "INSERT INTO charge(account, instance, provider, region, instance_type, "
            "component, kind, mode, period_start, period_end, repeat, quantity, unit, "
            "unit_price, price_unit, exact_amount, billed_amount, rounding, total_exact, "
            "total_billed, currency, price_id, policy_id, discount_id, event_seqs, note, "
            "effective_amount) "
            "VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
            "?, ?, ?, ?)"),
        update_charge_(db,
                       "UPDATE charge SET repeat = ?, period_end = ?, total_exact = ?, "
                       "total_billed = ? WHERE id = ?"),
        insert_movement_(
            db,
            "INSERT INTO balance_movement(account, at, currency, amount, "
            "balance_after, kind, charge_id, event_seq) VALUES(?, ?, ?, ?, ?, ?, ?, ?)"),
        update_movement_(db,
                         "UPDATE balance_movement SET at = ?, amount = ?, balance_after = ? "
                         "WHERE id = ?"),
        insert_state_(db,
                      "INSERT INTO instance_state(account, instance, at, state, reason, event_seq) "
                      "VALUES(?, ?, ?, ?, ?, ?)") {}

  std::int64_t insert_charge(const replay::ChargeRow& r) override {
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
    return *insert_charge_.run();
  }

  void update_charge(std::int64_t id, const replay::ChargeRow& r) override {
    auto& q = update_charge_;
    q.reset();
    q.bind(1, static_cast<int64_t>(r.repeat));
    q.bind(2, static_cast<int64_t>(r.period_end));
    q.bind(3, (r.exact * r.repeat).to_string());
    q.bind(4, fixed_text(r.billed * r.repeat, r.decimals));
    q.bind(5, static_cast<int64_t>(id));
    q.exec();
  }

  std::int64_t insert_movement(const replay::MovementRow& m) override {
    auto& q = insert_movement_.start();
    q.bindNoCopy(1, m.account);
    q.bind(2, static_cast<int64_t>(m.at));
    q.bind(3, m.currency.to_string());
    q.bind(4, m.amount.to_string());
    q.bind(5, m.balance_after.to_string());
    q.bind(6, m.kind);
    bind_optional(q, 7, m.charge_id);
    bind_optional(q, 8, m.event_seq);
    return *insert_movement_.run();
  }

  void update_movement(std::int64_t id, const replay::MovementRow& m) override {
    auto& q = update_movement_;
    q.reset();
    q.bind(1, static_cast<int64_t>(m.at));
    q.bind(2, m.amount.to_string());
    q.bind(3, m.balance_after.to_string());
    q.bind(4, static_cast<int64_t>(id));
    q.exec();
  }

  void insert_state(const replay::StateRow& s) override {
    auto& q = insert_state_;
    q.reset();
    q.bindNoCopy(1, s.account);
    q.bindNoCopy(2, s.instance);
    q.bind(3, static_cast<int64_t>(s.at));
    q.bindNoCopy(4, s.state);
    q.bindNoCopy(5, s.reason);
    bind_optional(q, 6, s.event_seq ? std::optional<std::int64_t>(s.event_seq) : std::nullopt);
    q.exec();
  }

 private:
  IdInsert insert_charge_;
  store::Statement update_charge_;
  IdInsert insert_movement_;
  store::Statement update_movement_, insert_state_;
};

}  // namespace gpubill::replay_detail
