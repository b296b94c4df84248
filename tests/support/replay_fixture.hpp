// Test fixture for replay: a database with the bundled catalog (and optionally a test catalog
// file from tests/data), logs written to a temporary directory, and dumps of what replay wrote.
#pragma once

#include <SQLiteCpp/Backup.h>
#include <SQLiteCpp/SQLiteCpp.h>
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "gpubill/base/time.hpp"
#include "gpubill/catalog/catalog.hpp"
#include "gpubill/catalog/catalog_import.hpp"
#include "gpubill/catalog/offer_summary.hpp"
#include "gpubill/ledger/ledger.hpp"
#include "gpubill/quote/quote.hpp"
#include "gpubill/replay/replay.hpp"
#include "gpubill/store/db.hpp"
#include "made_once.hpp"
#include "store/connection.hpp"
#include "store/store.hpp"
#include "temp_dir.hpp"
#include "test_database.hpp"

namespace gpubill::testing {

inline std::string data_path(const std::string& name) {
  return std::string(GPUBILL_SOURCE_DIR) + "/tests/data/" + name;
}

inline ReplayOptions until(const char* rfc3339) {
  ReplayOptions o;
  o.until = parse_instant(rfc3339);
  return o;
}

inline ReplayOptions until_s(std::int64_t unix_seconds) {
  ReplayOptions o;
  o.until = Instant{std::chrono::seconds{unix_seconds}};
  return o;
}

inline ReplayOptions skipping_invalid() {
  ReplayOptions o;
  o.skip_invalid = true;
  return o;
}

inline std::int64_t secs(const char* rfc3339) {
  return parse_instant(rfc3339).time_since_epoch().count();
}

// One charge row, as text, for comparisons and readable failures.
struct Charge {
  std::int64_t id = 0;
  std::string instance, component, kind, mode, instance_type;
  std::int64_t start = 0, end = 0, repeat = 0;
  std::string quantity, unit, unit_price, price_unit, exact, billed, rounding, total_exact,
      total_billed, currency;
  std::int64_t price_id = 0, policy_id = 0, discount_id = 0;
  std::string event_seqs, note;
};

struct Movement {
  std::int64_t at = 0;
  std::string currency, amount, balance_after, kind;
  std::int64_t charge_id = 0;
};

struct StateChange {
  std::string instance;
  std::int64_t at = 0;
  std::string state, reason;
};

struct Reject {
  std::string kind;
  std::int64_t line = 0;
  std::string event_id, field, reason;
};

// A database file with the bundled catalog, copied by each fixture (importing the catalog every
// time would dominate the property tests). It adds one test-fixture spot prices
// (tests/data/spot-rule-prices.json: the bundled catalog has no dated Tencent or Alibaba spot
// price) for the spot rule tests and generated logs.
inline void fill_bundled_template(Database& db) {
  ensure_bundled_catalog(db);
  import_catalog_file(db, data_path("spot-rule-prices.json"));
  // As `gpubill catalog import` leaves it: the offer summary current and the catalog's stamp
  // clean, so that any later change of a fixture's catalog shows in its stamp.
  refresh_offer_summary(db, summarize_offers);
}

// The template is made once per build of the tests (made_once), not once per test process:
// CTest runs each test case in a process of its own, and filling it (0.5 s, more under the
// sanitizers) was most of a replay test's time. Its name has the stamps of the test program
// (which holds the bundled catalog, the migrations and the import code) and of the spot-price
// file.
inline const std::string& bundled_template() {
  static const std::string path = made_once(
      "replay-" + file_stamp(std::filesystem::read_symlink("/proc/self/exe")) + "-" +
          file_stamp(data_path("spot-rule-prices.json")) + ".db",
      [](const std::string& mine) {
        {
          Database db = Database::open(mine);
          fill_bundled_template(db);
        }  // closed: SQLite checkpointed its log into the file and removed it
        REQUIRE_FALSE(std::filesystem::exists(mine + "-wal"));
        // A rollback journal, not a write-ahead log: the fixtures read the template at once
        // from many processes, and a reader of a WAL file maps its "-shm" index.
        SQLite::Database(mine, SQLite::OPEN_READWRITE).exec("PRAGMA journal_mode = DELETE");
      });
  return path;
}

// The same on the PostgreSQL test cluster (test_database.hpp): a template database's name.
inline const std::string& bundled_postgres_template() {
  static const std::string name = postgres_template("replay", fill_bundled_template);
  return name;
}

// A catalog's version stamp (migration 0015): `dirty` = 0 while it is unchanged since
// `version`; any change of a clean catalog bumps the version.
struct CatalogStamp {
  std::int64_t version = 0, dirty = 1;
  bool operator==(const CatalogStamp&) const = default;
};

inline CatalogStamp catalog_stamp(store::Connection& sql) {
  store::Statement q(sql, "SELECT version, dirty FROM catalog_stamp WHERE one = 1");
  if (!q.executeStep()) return {};
  return {q.getColumn(0).getInt64(), q.getColumn(1).getInt64()};
}

// The template's catalog, loaded once per test process, and its stamp: loading the catalog at
// each replay was 62 % of the split-log property test's time.
struct TemplateCatalog {
  CatalogStamp stamp;
  Catalog catalog;
};

inline const TemplateCatalog& template_catalog() {
  static const TemplateCatalog loaded = [] {
    OpenOptions read_only;  // a writable open would turn the template's journal to WAL again
    read_only.read_only = true;
    Database db = Database::open(bundled_template(), read_only);
    return TemplateCatalog{catalog_stamp(connection(db)), Catalog::load_for_billing(db)};
  }();
  return loaded;
}

// The same for the PostgreSQL template, loaded from the first fixture's fresh copy (a
// template cannot be copied while a connection is open to it); its row ids are that template's.
inline const TemplateCatalog& postgres_template_catalog(Database& fresh_copy) {
  static const TemplateCatalog loaded{catalog_stamp(connection(fresh_copy)),
                                      Catalog::load_for_billing(fresh_copy)};
  return loaded;
}

// An in-memory database (no fsync: the property tests replay hundreds of logs), filled from
// the template with SQLite's backup API when `bundled`. On PostgreSQL (GPUBILL_TEST_DB), a new
// database copied from the PostgreSQL template, or an empty one.
class ReplayFixture {
 public:
  explicit ReplayFixture(bool bundled = true)
      : store_(":memory:", bundled && testing_on_postgres()
                               ? std::optional<std::string>(bundled_postgres_template())
                               : std::nullopt) {
    if (bundled && !store_.on_postgres()) {
      // Waits (up to 10 s) for a process that holds a lock on it, rather than failing.
      SQLite::Database source(bundled_template(), SQLite::OPEN_READONLY, 10'000);
      SQLite::Backup(sql(), source).executeStep();
    } else if (bundled) {
      postgres_template_catalog(db());  // loaded once, while this copy is as the template
    }
    from_template_ = bundled;
  }
  // The same on a database file in the fixture's directory, loaded as a user's is (WAL mode,
  // fsyncs, a page cache that spills to the WAL; a backup from the template would leave the
  // file in the template's journal mode), always with the bundled catalog.
  // On PostgreSQL, a copy of the template (a server's database is no file).
  explicit ReplayFixture(const std::string& file_name)
      : store_(dir_.file(file_name), testing_on_postgres()
                                         ? std::optional<std::string>(bundled_postgres_template())
                                         : std::nullopt) {
    if (!store_.on_postgres()) {
      ensure_bundled_catalog(db());
      import_catalog_file(db(), data_path("spot-rule-prices.json"));
    }
  }

  Database& db() { return store_.db(); }
  bool on_postgres() const { return store_.on_postgres(); }
  // The database's connection, on either backend; sql() is SQLite's own (SQLite only).
  store::Connection& conn() { return connection(db()); }
  SQLite::Database& sql() { return sqlite(db()); }
  TempDir& dir() { return dir_; }

  void import_catalog(const std::string& path) { import_catalog_file(db(), path); }

  std::string write_log(const std::string& name, const std::string& text) {
    return dir_.write(name, text);
  }

  ReplayReport replay_text(const std::string& text, const ReplayOptions& options = {},
                           const std::string& name = "log.jsonl") {
    const std::string path = write_log(name, text);
    // The template's catalog stands for this database's while the catalog is the template's
    // unchanged (a clean stamp equal to the template's); else replay loads it, as a user's does.
    if (from_template_) {
      const TemplateCatalog& shared =
          on_postgres() ? postgres_template_catalog(db()) : template_catalog();
      if (shared.stamp.dirty == 0 && catalog_stamp(conn()) == shared.stamp) {
        return replay_logs(db(), shared.catalog, {path}, options);
      }
    }
    return replay_logs(db(), {path}, options);
  }

  std::vector<Charge> charges(const std::string& where = "1 = 1") {
    std::vector<Charge> out;
    store::Statement q(
        conn(),
        "SELECT id, instance, component, kind, mode, instance_type, period_start, period_end, "
        "repeat, quantity, unit, unit_price, price_unit, exact_amount, billed_amount, rounding, "
        "total_exact, total_billed, currency, COALESCE(price_id, 0), COALESCE(policy_id, 0), "
        "COALESCE(discount_id, 0), event_seqs, note FROM charge WHERE " +
            where + " ORDER BY instance, component, period_start, kind, id");
    while (q.executeStep()) {
      Charge c;
      c.id = q.getColumn(0).getInt64();
      c.instance = q.getColumn(1).getString();
      c.component = q.getColumn(2).getString();
      c.kind = q.getColumn(3).getString();
      c.mode = q.getColumn(4).getString();
      c.instance_type = q.getColumn(5).getString();
      c.start = q.getColumn(6).getInt64();
      c.end = q.getColumn(7).getInt64();
      c.repeat = q.getColumn(8).getInt64();
      c.quantity = q.getColumn(9).getString();
      c.unit = q.getColumn(10).getString();
      c.unit_price = q.getColumn(11).getString();
      c.price_unit = q.getColumn(12).getString();
      c.exact = q.getColumn(13).getString();
      c.billed = q.getColumn(14).getString();
      c.rounding = q.getColumn(15).getString();
      c.total_exact = q.getColumn(16).getString();
      c.total_billed = q.getColumn(17).getString();
      c.currency = q.getColumn(18).getString();
      c.price_id = q.getColumn(19).getInt64();
      c.policy_id = q.getColumn(20).getInt64();
      c.discount_id = q.getColumn(21).getInt64();
      c.event_seqs = q.getColumn(22).getString();
      c.note = q.getColumn(23).getString();
      out.push_back(std::move(c));
    }
    return out;
  }

  // Every account an event named, sorted.
  std::vector<std::string> account_names() {
    std::vector<std::string> out;
    store::Statement q(conn(), "SELECT DISTINCT account FROM event ORDER BY account");
    while (q.executeStep()) out.push_back(q.getColumn(0).getString());
    return out;
  }

  // The account's movements as `gpubill bill` lists them (query_balance_movements).
  std::vector<Movement> movements(const std::string& account) {
    std::vector<Movement> out;
    for (const auto& m : query_balance_movements(db(), account)) {
      out.push_back(
          {std::chrono::duration_cast<std::chrono::seconds>(m.at.time_since_epoch()).count(),
           m.currency.to_string(), m.amount.to_string(), m.balance_after.to_string(), m.kind,
           m.charge_id.value_or(0)});
    }
    return out;
  }

  std::vector<StateChange> states(const std::string& instance) {
    std::vector<StateChange> out;
    store::Statement q(conn(),
                       "SELECT instance, at, state, reason FROM instance_state WHERE instance = ? "
                       "ORDER BY at, id");
    q.bind(1, instance);
    while (q.executeStep()) {
      out.push_back({q.getColumn(0).getString(), q.getColumn(1).getInt64(),
                     q.getColumn(2).getString(), q.getColumn(3).getString()});
    }
    return out;
  }

  std::vector<Reject> rejects() {
    std::vector<Reject> out;
    store::Statement q(conn(),
                       "SELECT kind, source_line, event_id, field, reason FROM reject ORDER BY id");
    while (q.executeStep()) {
      out.push_back({q.getColumn(0).getString(), q.getColumn(1).getInt64(),
                     q.getColumn(2).getString(), q.getColumn(3).getString(),
                     q.getColumn(4).getString()});
    }
    return out;
  }

  // The id of a catalog price row.
  std::int64_t price_id(const std::string& provider, const std::string& subject,
                        const std::string& mode, const char* effective_from) {
    store::Statement q(conn(),
                       "SELECT id FROM price WHERE provider = ? AND subject = ? AND mode = ? AND "
                       "effective_from = ?");
    q.bind(1, provider);
    q.bind(2, subject);
    q.bind(3, mode);
    q.bind(4, static_cast<int64_t>(parse_instant(effective_from, true).time_since_epoch().count()));
    return q.executeStep() ? q.getColumn(0).getInt64() : -1;
  }
  std::int64_t policy_id(const std::string& provider, const char* effective_from) {
    store::Statement q(conn(), "SELECT id FROM policy WHERE provider = ? AND effective_from = ?");
    q.bind(1, provider);
    q.bind(2, static_cast<int64_t>(parse_instant(effective_from, true).time_since_epoch().count()));
    return q.executeStep() ? q.getColumn(0).getInt64() : -1;
  }

  std::int64_t count(const std::string& sql_text) {
    store::Statement q(conn(), sql_text);
    return q.executeStep() ? q.getColumn(0).getInt64() : 0;
  }

  // A canonical dump of everything replay writes, ids left out (they depend on the order rows
  // are written in, which differs between a whole and a split replay): one line per row, sorted.
  std::string dump() {
    std::vector<std::string> lines;
    auto collect = [&](const std::string& prefix, const std::string& query) {
      store::Statement q(conn(), query);
      while (q.executeStep()) {
        std::string line = prefix;
        for (int i = 0; i < q.getColumnCount(); ++i) {
          line += "|";
          line += q.getColumn(i).isNull() ? "NULL" : q.getColumn(i).getString();
        }
        lines.push_back(std::move(line));
      }
    };
    collect("charge",
            "SELECT account, instance, provider, region, instance_type, component, kind, mode, "
            "period_start, period_end, repeat, quantity, unit, unit_price, price_unit, "
            "exact_amount, billed_amount, rounding, total_exact, total_billed, currency, price_id, "
            "policy_id, discount_id, event_seqs, note, effective_amount FROM charge");
    collect("movement",
            "SELECT m.account, m.at, m.currency, m.amount, m.balance_after, m.kind, m.event_seq, "
            "c.instance, c.component, c.kind, c.period_start FROM balance_movement m LEFT JOIN "
            "charge c ON c.id = m.charge_id");
    collect("state", "SELECT account, instance, at, state, reason, event_seq FROM instance_state");
    collect("event", "SELECT seq, account, id, time, type, instance, payload, status FROM event");
    collect("reject", "SELECT kind, account, event_id, time, field, reason, raw FROM reject");
    std::sort(lines.begin(), lines.end());
    std::string out;
    for (const auto& l : lines) out += l + "\n";
    return out;
  }

 private:
  TempDir dir_;  // before store_: a file database goes before its directory
  TestDatabase store_;
  bool from_template_ = false;  // filled from bundled_template() and not since re-imported
};

// Checks a charge line's period, repeat, quantity and per-settlement and total amounts.
#define CHECK_CHARGE(c, kind_, start_, end_, repeat_, quantity_, exact_, billed_, rounding_, \
                     total_billed_)                                                          \
  do {                                                                                       \
    CHECK((c).kind == (kind_));                                                              \
    CHECK((c).start == ::gpubill::testing::secs(start_));                                    \
    CHECK((c).end == ::gpubill::testing::secs(end_));                                        \
    CHECK((c).repeat == (repeat_));                                                          \
    CHECK((c).quantity == (quantity_));                                                      \
    CHECK((c).exact == (exact_));                                                            \
    CHECK((c).billed == (billed_));                                                          \
    CHECK((c).rounding == (rounding_));                                                      \
    CHECK((c).total_billed == (total_billed_));                                              \
  } while (false)

}  // namespace gpubill::testing
