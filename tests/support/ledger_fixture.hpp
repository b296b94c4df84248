// Test fixture for the ledger: a database whose replay tables (migrations/0002_replay.sql) are
// filled directly, row by row, without running a replay, plus a small catalog of its own (test
// providers that cannot collide with the bundled catalog).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gpubill/base/decimal.hpp"
#include "gpubill/base/time.hpp"
#include "gpubill/rules/rules.hpp"
#include "gpubill/store/db.hpp"
#include "store/connection.hpp"
#include "store/store.hpp"
#include "test_database.hpp"

namespace gpubill::testing {

inline Instant at(const char* rfc3339) {
  return parse_instant(rfc3339);
}

inline std::int64_t unix_seconds(Instant t) {
  return t.time_since_epoch().count();
}

// One charge row; the defaults are a full pay-as-you-go hour of a GPU instance at 15.09 CNY/h
// on "testcloud" (Asia/Shanghai, half-up to 0.01).
struct ChargeSpec {
  std::string account = "acme", instance = "i-1", provider = "testcloud", region = "test-region-1",
              instance_type = "GPU.LARGE", component = "compute", kind = "settlement",
              mode = "payg";
  Instant period_start = at("2018-01-31T12:00:00Z");
  std::optional<Instant> period_end;  // default: period_start + (repeat−1) h + seconds
  std::int64_t repeat = 1;
  std::string quantity = "3600", unit = "second", unit_price = "15.09", price_unit = "hour";
  // Per settlement; default: computed with rules::settle (per-second units) at the policy's
  // rounding, or unit_price × quantity for other units.
  std::optional<std::string> exact, billed, rounding;
  std::optional<std::string> total_exact, total_billed;  // default: per settlement × repeat
  std::string currency = "CNY";
  std::optional<std::int64_t> price_id, policy_id, discount_id;
  std::string event_seqs, note;
  RoundingMode rounding_mode = RoundingMode::half_up;
};

class LedgerFixture {
 public:
  // `path`: the SQLite database (":memory:" or a file); on PostgreSQL (GPUBILL_TEST_DB) a new
  // empty database instead.
  explicit LedgerFixture(const std::string& path = ":memory:") : store_(path) {
    auto& db = conn();
    db.exec(
        "INSERT INTO provider(id, name, currency, billing_time_zone) VALUES "
        "('testcloud', 'Test Cloud', 'CNY', 'Asia/Shanghai'), "
        "('testcloud-utc', 'Test Cloud Global', 'USD', 'UTC')");
    db.exec(
        "INSERT INTO region(provider, id, name) VALUES ('testcloud', 'test-region-1', "
        "'Test Region One')");
    payg_price_id = insert_price("testcloud", "GPU.LARGE", "payg", "hour", "15.09", "CNY");
    prepaid_price_id = insert_price("testcloud", "GPU.LARGE", "prepaid", "month", "4400", "CNY");
    usd_price_id = insert_price("testcloud-utc", "gpu.xlarge", "payg", "hour", "3.06", "USD");
    policy_id = insert_policy("testcloud", "half_up", 2);
    utc_policy_id = insert_policy("testcloud-utc", "half_even", 2);
    discount_id = insert_discount("testcloud", 6, 11, "0.88");
  }

  Database& db() { return store_.db(); }
  bool on_postgres() const { return store_.on_postgres(); }
  // The database's connection, on either backend; sql() is SQLite's own (SQLite only).
  store::Connection& conn() { return connection(db()); }
  SQLite::Database& sql() { return sqlite(db()); }

  std::int64_t payg_price_id = 0, prepaid_price_id = 0, usd_price_id = 0;
  std::int64_t policy_id = 0, utc_policy_id = 0, discount_id = 0;

  std::int64_t insert_price(const std::string& provider, const std::string& subject,
                            const std::string& mode, const std::string& unit,
                            const std::string& amount, const std::string& currency) {
    store::Statement q(conn(),
                       "INSERT INTO price(provider, subject_kind, subject, region, mode, unit, "
                       "amount, currency, effective_from, effective_to, source, as_of) VALUES "
                       "(?, 'instance', ?, '', ?, ?, ?, ?, ?, NULL, 'test fixture', "
                       "'2017-01-01') RETURNING id");
    q.bind(1, provider);
    q.bind(2, subject);
    q.bind(3, mode);
    q.bind(4, unit);
    q.bind(5, amount);
    q.bind(6, currency);
    q.bind(7, static_cast<int64_t>(unix_seconds(at("2017-01-01T00:00:00Z"))));
    return inserted_key(q);
  }

  std::int64_t insert_policy(const std::string& provider, const std::string& rounding,
                             int decimals) {
    store::Statement q(
        conn(),
        "INSERT INTO policy(provider, effective_from, effective_to, "
        "metering_granularity_seconds, settlement_period, settlement_rounding, "
        "settlement_decimals, min_charge_seconds_per_run, min_charge_per_lifetime, "
        "arrears_grace_hours, arrears_retention_hours, recycle_bin_days, auto_renew_days_before, "
        "auto_renew_local_time, auto_renew_months, prepaid_destroy_before_expiry, "
        "full_refund_days, stopped_payg_compute_charged, payg_available, source, as_of) VALUES "
        "(?, ?, NULL, 1, 'hour', ?, ?, 0, NULL, 2, 24, 7, 0, NULL, 1, 0, 5, 1, 1, "
        "'test fixture policy', '2017-01-01') RETURNING id");
    q.bind(1, provider);
    q.bind(2, static_cast<int64_t>(unix_seconds(at("2017-01-01T00:00:00Z"))));
    q.bind(3, rounding);
    q.bind(4, decimals);
    return inserted_key(q);
  }

  std::int64_t insert_discount(const std::string& provider, int min_months, int max_months,
                               const std::string& factor) {
    store::Statement q(conn(),
                       "INSERT INTO discount(provider, family, mode, min_months, max_months, "
                       "factor, effective_from, effective_to, source, as_of) VALUES "
                       "(?, '', 'prepaid', ?, ?, ?, ?, NULL, 'test fixture discount', "
                       "'2017-01-01') RETURNING id");
    q.bind(1, provider);
    q.bind(2, min_months);
    q.bind(3, max_months);
    q.bind(4, factor);
    q.bind(5, static_cast<int64_t>(unix_seconds(at("2017-01-01T00:00:00Z"))));
    return inserted_key(q);
  }

  std::int64_t insert_charge(ChargeSpec c) {
    const Decimal quantity = Decimal::parse(c.quantity);
    const Decimal price = Decimal::parse(c.unit_price);
    Decimal exact, billed, rounding;
    if (c.unit.ends_with("second")) {
      BillingPolicy policy;
      policy.settlement_rounding = c.rounding_mode;
      policy.settlement_decimals = 2;
      const auto s = rules::settle(Money(price, Currency::parse(c.currency)),
                                   quantity.truncate_to_int(), policy);
      exact = s.exact.amount();
      billed = s.billed.amount();
      rounding = s.rounding.amount();
    } else {
      exact = price * quantity;
      billed = exact.round(2, c.rounding_mode);
      rounding = billed - exact;
    }
    if (c.exact) exact = Decimal::parse(*c.exact);
    if (c.billed) billed = Decimal::parse(*c.billed);
    if (c.rounding) rounding = Decimal::parse(*c.rounding);
    const std::string total_exact = c.total_exact.value_or((exact * c.repeat).to_string());
    const std::string total_billed = c.total_billed.value_or((billed * c.repeat).to_string());
    // Seconds per settlement: the quantity for plain seconds; a full hour for GB-seconds etc.
    const std::int64_t seconds = c.unit == "second" ? quantity.truncate_to_int() : 3600;
    const Instant end = c.period_end.value_or(
        c.period_start + std::chrono::seconds{(c.repeat - 1) * 3600 + seconds});
    store::Statement q(
        conn(),
        "INSERT INTO charge(account, instance, provider, region, instance_type, component, kind, "
        "mode, period_start, period_end, repeat, quantity, unit, unit_price, price_unit, "
        "exact_amount, billed_amount, rounding, total_exact, total_billed, currency, price_id, "
        "policy_id, discount_id, event_seqs, note) VALUES "
        "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING "
        "id");
    int i = 1;
    for (const auto* s : {&c.account, &c.instance, &c.provider, &c.region, &c.instance_type,
                          &c.component, &c.kind, &c.mode}) {
      q.bind(i++, *s);
    }
    q.bind(i++, static_cast<int64_t>(unix_seconds(c.period_start)));
    q.bind(i++, static_cast<int64_t>(unix_seconds(end)));
    q.bind(i++, static_cast<int64_t>(c.repeat));
    q.bind(i++, c.quantity);
    q.bind(i++, c.unit);
    q.bind(i++, c.unit_price);
    q.bind(i++, c.price_unit);
    q.bind(i++, exact.to_string());
    q.bind(i++, billed.to_string());
    q.bind(i++, rounding.to_string());
    q.bind(i++, total_exact);
    q.bind(i++, total_billed);
    q.bind(i++, c.currency);
    for (const auto* id : {&c.price_id, &c.policy_id, &c.discount_id}) {
      if (*id) {
        q.bind(i++, static_cast<int64_t>(**id));
      } else {
        q.bind(i++);
      }
    }
    q.bind(i++, c.event_seqs);
    q.bind(i++, c.note);
    return inserted_key(q);
  }

  // A settlement of the fixture's 15.09 CNY/h price with its price and policy rows.
  ChargeSpec payg(Instant start, std::int64_t seconds = 3600, std::int64_t repeat = 1) {
    ChargeSpec c;
    c.period_start = start;
    c.quantity = std::to_string(seconds);
    c.repeat = repeat;
    c.price_id = payg_price_id;
    c.policy_id = policy_id;
    return c;
  }

  // A 6-month prepaid order of the fixture's 4400 CNY/month price at the 0.88 term discount
  // (23232), with its price, policy and discount rows.
  ChargeSpec prepaid_order(Instant start, Instant end) {
    ChargeSpec c;
    c.kind = "prepaid_order";
    c.mode = "prepaid";
    c.quantity = "6";
    c.unit = "month";
    c.unit_price = "4400";
    c.price_unit = "month";
    c.period_start = start;
    c.period_end = end;
    c.exact = "23232";  // 4400 × 6 × 0.88
    c.billed = "23232";
    c.rounding = "0";
    c.price_id = prepaid_price_id;
    c.policy_id = policy_id;
    c.discount_id = discount_id;
    return c;
  }

  std::int64_t insert_movement(const std::string& account, Instant when,
                               const std::string& currency, const std::string& amount,
                               const std::string& balance_after, const std::string& kind,
                               std::optional<std::int64_t> charge_id = std::nullopt) {
    store::Statement q(conn(),
                       "INSERT INTO balance_movement(account, at, currency, amount, "
                       "balance_after, kind, charge_id, event_seq) VALUES (?, ?, ?, ?, ?, ?, ?, "
                       "NULL) RETURNING id");
    q.bind(1, account);
    q.bind(2, static_cast<int64_t>(unix_seconds(when)));
    q.bind(3, currency);
    q.bind(4, amount);
    q.bind(5, balance_after);
    q.bind(6, kind);
    if (charge_id) {
      q.bind(7, static_cast<int64_t>(*charge_id));
    } else {
      q.bind(7);
    }
    return inserted_key(q);
  }

  std::int64_t insert_event(const std::string& account, const std::string& id, Instant when,
                            const std::string& type, const std::string& instance,
                            const std::string& payload, const std::string& file,
                            std::int64_t line) {
    store::Statement q(conn(),
                       "INSERT INTO event(account, id, time, type, instance, payload, "
                       "source_file, source_line, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?, "
                       "'applied') RETURNING seq");
    q.bind(1, account);
    q.bind(2, id);
    q.bind(3, static_cast<int64_t>(unix_seconds(when)));
    q.bind(4, type);
    q.bind(5, instance);
    q.bind(6, payload);
    q.bind(7, file);
    q.bind(8, static_cast<int64_t>(line));
    return inserted_key(q);
  }

  std::int64_t insert_reject(const std::string& kind, const std::string& file, std::int64_t line,
                             const std::string& account, const std::string& event_id,
                             const std::string& field, const std::string& reason,
                             const std::string& raw) {
    store::Statement q(
        conn(),
        "INSERT INTO reject(kind, source_file, source_line, account, event_id, "
        "time, field, reason, raw) VALUES (?, ?, ?, ?, ?, NULL, ?, ?, ?) RETURNING id");
    q.bind(1, kind);
    q.bind(2, file);
    q.bind(3, static_cast<int64_t>(line));
    q.bind(4, account);
    q.bind(5, event_id);
    q.bind(6, field);
    q.bind(7, reason);
    q.bind(8, raw);
    return inserted_key(q);
  }

 private:
  // Runs an INSERT … RETURNING <key> and returns the new row's key.
  static std::int64_t inserted_key(store::Statement& q) {
    q.executeStep();
    return q.getColumn(0).getInt64();
  }

  TestDatabase store_;
};

}  // namespace gpubill::testing
