// The database a test fixture bills into, on the backend the test run asks for.
//
// SQLite unless GPUBILL_TEST_DB=postgres, which CTest sets for its second run of the engine's
// scenario tests ("on postgres: …", issue 25): each fixture then gets a new database on the test
// cluster (pg_test.hpp), copied from a template database that holds the bundled catalog. The
// template is made once per cluster, by whichever test process needs it first, under an
// advisory lock; processes after it only copy it (CREATE DATABASE … TEMPLATE, a file copy).
#pragma once

#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "gpubill/catalog/catalog_import.hpp"
#include "gpubill/catalog/offer_summary.hpp"
#include "gpubill/quote/quote.hpp"
#include "gpubill/store/db.hpp"
#include "pg_test.hpp"
#include "store/connection.hpp"
#include "store/store.hpp"

namespace gpubill::testing {

inline bool testing_on_postgres() {
  const char* backend = std::getenv("GPUBILL_TEST_DB");
  return backend != nullptr && std::string(backend) == "postgres";
}

inline OpenOptions postgres_allowed() {
  OpenOptions o;
  o.allow_postgres = true;
  return o;
}

// The template's name: per bundled catalog and schema, so that a cluster kept across builds
// never hands out an older catalog. `fill` writes what every fixture's database starts with;
// given (Database&, url), it is also told the database's URL. Names have at most 63 bytes.
// `from`: the template starts as a copy of that template (made before this is called), which
// `fill` adds to.
template <typename Fill>
std::string postgres_template(const std::string& kind, Fill fill, const std::string& from = "") {
  const std::string name = "gpubill_template_" + kind + "_" + bundled_catalog_hash() + "_" +
                           std::to_string(latest_schema_version());
  auto admin = store::Connection::open(pg_server_url());
  // Session-level: the lock outlives the CREATE DATABASE (which cannot run in a transaction).
  admin->exec_native("SELECT pg_advisory_lock(727272)");
  store::Statement exists(*admin, "SELECT count(*) FROM pg_database WHERE datname = ?");
  exists.bind(1, name);
  exists.executeStep();
  if (exists.getColumn(0).getInt64() == 0) {
    // A partial one is what a process that failed while filling it left.
    admin->exec_native("DROP DATABASE IF EXISTS " + name + "_partial WITH (FORCE)");
    admin->exec_native("CREATE DATABASE " + name + "_partial" +
                       (from.empty() ? "" : " TEMPLATE " + from + " STRATEGY FILE_COPY"));
    {
      const std::string url = with_param(pg_server_url(), "dbname=" + name + "_partial");
      Database db = Database::open(url, postgres_allowed());
      if constexpr (std::is_invocable_v<Fill, Database&, const std::string&>) {
        fill(db, url);  // a fill that also runs the CLI on the database
      } else {
        fill(db);
      }
    }  // closed: a template cannot be copied while anyone is connected to it
    admin->exec_native("ALTER DATABASE " + name + "_partial RENAME TO " + name);
  }
  admin->exec_native("SELECT pg_advisory_unlock(727272)");
  return name;
}

// What a copy of a template shares with it while only replay tables were written: the
// catalog's stamp (which every catalog change bumps, migration 0015) and the meta rows.
inline std::string catalog_fingerprint(store::Connection& db) {
  std::string out;
  store::Statement stamp(db, "SELECT version, dirty FROM catalog_stamp");
  while (stamp.executeStep())
    out += stamp.getColumn(0).getString() + "/" + stamp.getColumn(1).getString() + ";";
  store::Statement meta(db, "SELECT key, value FROM meta ORDER BY key");
  while (meta.executeStep())
    out += meta.getColumn(0).getString() + "=" + meta.getColumn(1).getString() + ";";
  return out;
}

// Copies of a template kept for the next fixture of this test process: copying a database
// costs about half a second, emptying a used copy's replay tables a few milliseconds. A copy
// whose catalog or meta changed is dropped instead.
class PgCopies {
 public:
  static PgCopies& instance() {
    // The PostgreSQL module loaded (by a first connection) before the copies exist, so that its
    // statics, destroyed in the reverse order, outlive the copies' drops at exit.
    static const bool module_loaded = (store::Connection::open(pg_server_url()), true);
    static PgCopies copies;
    (void)module_loaded;
    return copies;
  }

  std::unique_ptr<PgDatabase> take(const std::string& template_name) {
    auto& free = free_[template_name];
    if (free.empty()) {
      auto db = std::make_unique<PgDatabase>(template_name);
      // The template's fingerprint, read from a new copy: a connection to the template itself
      // would make another process's copy of it fail ("being accessed by other users").
      if (!fingerprints_.count(template_name)) {
        fingerprints_.emplace(template_name, catalog_fingerprint(*db->open()));
      }
      return db;
    }
    auto db = std::move(free.back());
    free.pop_back();
    return db;
  }

  // `db` (its connections closed) back for another fixture, unless its catalog changed.
  void give_back(const std::string& template_name, std::unique_ptr<PgDatabase> db) {
    std::unique_ptr<store::Connection> conn;
    try {
      conn = db->open();
    } catch (const StoreError&) {
      return;  // dropped: the next fixture gets a new copy
    }
    give_back(template_name, std::move(db), *conn);
  }

  // The same through `conn`, the last connection open to `db` (closed after this returns): a
  // connection costs the server more than emptying the tables.
  void give_back(const std::string& template_name, std::unique_ptr<PgDatabase> db,
                 store::Connection& conn) {
    try {
      if (catalog_fingerprint(conn) != fingerprints_.at(template_name)) return;
      // The tables a replay writes, which the template holds empty, emptied row by row (a
      // TRUNCATE makes new files for every table and index: 25 ms against 1–2), then their
      // sequences started again, so that ids start at 1 as in a new copy. event_void is the one
      // table that refers to another (event).
      // In a transaction of its own: one the fixture left open is committed with it (a catalog
      // change in it has already changed the fingerprint), and one that failed makes this fail.
      conn.exec_native(
          "BEGIN; DELETE FROM event_void; DELETE FROM event; DELETE FROM account_state; "
          "DELETE FROM balance_movement; DELETE FROM charge; DELETE FROM instance_state; "
          "DELETE FROM reject; DELETE FROM replay_clock; DELETE FROM replay_run; "
          "DELETE FROM replay_plan; "
          "SELECT setval(d.objid::regclass, s.seqstart, false) FROM pg_depend d "
          "JOIN pg_sequence s ON s.seqrelid = d.objid WHERE d.refobjid IN ('account_state'::"
          "regclass, 'balance_movement'::regclass, 'charge'::regclass, 'event'::regclass, "
          "'event_void'::regclass, 'instance_state'::regclass, 'reject'::regclass, "
          "'replay_clock'::regclass, 'replay_run'::regclass); COMMIT");
    } catch (const StoreError&) {
      return;  // dropped: the next fixture gets a new copy
    }
    free_[template_name].push_back(std::move(db));
  }

 private:
  std::map<std::string, std::vector<std::unique_ptr<PgDatabase>>> free_;
  std::map<std::string, std::string> fingerprints_;
};

// A database for one fixture: `sqlite_path` (":memory:" or a file) on SQLite; on PostgreSQL a
// database of the test cluster, empty or a copy of `template_name` (PgCopies), dropped or kept
// for the next fixture when this goes.
class TestDatabase {
 public:
  explicit TestDatabase(const std::string& sqlite_path,
                        const std::optional<std::string>& template_name = std::nullopt)
      : template_(template_name),
        pg_(!testing_on_postgres() ? nullptr
            : template_name        ? PgCopies::instance().take(*template_name)
                                   : std::make_unique<PgDatabase>()),
        db_(pg_ ? Database::open(pg_->url(), postgres_allowed()) : Database::open(sqlite_path)) {}
  ~TestDatabase() {
    if (!pg_ || !template_) return;
    // Emptied through the fixture's own connection, if it still works, which then closes.
    PgCopies::instance().give_back(*template_, std::move(pg_), connection(*db_));
    db_.reset();
  }
  TestDatabase(const TestDatabase&) = delete;
  TestDatabase& operator=(const TestDatabase&) = delete;

  Database& db() { return *db_; }
  bool on_postgres() const { return pg_ != nullptr; }

 private:
  std::optional<std::string> template_;
  std::unique_ptr<PgDatabase> pg_;  // declared first: dropped after the database closes
  std::optional<Database> db_;
};

// The rows of a query, one line each, every column as text joined by '|' ("NULL" for NULL).
inline std::vector<std::string> query_lines(Database& db, const std::string& sql) {
  store::Statement q(connection(db), sql);
  std::vector<std::string> out;
  while (q.executeStep()) {
    std::string line;
    for (int i = 0; i < q.getColumnCount(); ++i) {
      if (i > 0) line += "|";
      line += q.getColumn(i).isNull() ? "NULL" : q.getColumn(i).getString();
    }
    out.push_back(std::move(line));
  }
  return out;
}

// The first column of a query's first row as an integer (0 when it has no row).
inline std::int64_t query_count(Database& db, const std::string& sql) {
  store::Statement q(connection(db), sql);
  return q.executeStep() ? q.getColumn(0).getInt64() : 0;
}

}  // namespace gpubill::testing
