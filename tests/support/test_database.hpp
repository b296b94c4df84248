// The database a test fixture bills into, on the backend the test run asks for.
//
// SQLite unless GPUBILL_TEST_DB=postgres, which CTest sets for its second run of the engine's
// scenario tests ("on postgres: …", issue 25): each fixture then gets a new database on the test
// cluster (pg_test.hpp), copied from a template database that holds the bundled catalog. The
// template is made once per cluster, by whichever test process needs it first, under an
// advisory lock; processes after it only copy it (CREATE DATABASE … TEMPLATE, a file copy).
#pragma once

#include <cstdlib>
#include <memory>
#include <optional>
#include <string>

#include "gpubill/catalog/catalog_import.hpp"
#include "gpubill/catalog/offer_summary.hpp"
#include "gpubill/quote/quote.hpp"
#include "gpubill/store/db.hpp"
#include "pg_test.hpp"
#include "store/connection.hpp"

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
// never hands out an older catalog. `fill` writes what every fixture's database starts with.
template <typename Fill>
std::string postgres_template(const std::string& kind, Fill fill) {
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
    admin->exec_native("CREATE DATABASE " + name + "_partial");
    {
      Database db = Database::open(with_param(pg_server_url(), "dbname=" + name + "_partial"),
                                   postgres_allowed());
      fill(db);
    }  // closed: a template cannot be copied while anyone is connected to it
    admin->exec_native("ALTER DATABASE " + name + "_partial RENAME TO " + name);
  }
  admin->exec_native("SELECT pg_advisory_unlock(727272)");
  return name;
}

// A database for one fixture: `sqlite_path` (":memory:" or a file) on SQLite; on PostgreSQL a
// new database, empty or copied from `template_name`, dropped when this goes.
class TestDatabase {
 public:
  explicit TestDatabase(const std::string& sqlite_path,
                        const std::optional<std::string>& template_name = std::nullopt)
      : pg_(testing_on_postgres() ? std::make_unique<PgDatabase>(template_name) : nullptr),
        db_(pg_ ? Database::open(pg_->url(), postgres_allowed()) : Database::open(sqlite_path)) {}

  Database& db() { return db_; }
  bool on_postgres() const { return pg_ != nullptr; }

 private:
  std::unique_ptr<PgDatabase> pg_;  // declared first: dropped after the database closes
  Database db_;
};

}  // namespace gpubill::testing
