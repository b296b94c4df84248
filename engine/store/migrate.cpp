// migrate() and schema_version() on either backend (connection.hpp).
#include <set>

#include "gpubill/base/errors.hpp"
#include "gpubill/store/db.hpp"
#include "store/connection.hpp"
#include "store/dialect.hpp"
#include "store/embedded_data.hpp"

namespace gpubill::store {

namespace {

// "0015_quote_offer_summary.sql" → 15 (the names are checked by latest_schema_version()).
int leading_number(const std::string& name) {
  int n = 0;
  for (char c : name) {
    if (c < '0' || c > '9') break;
    n = n * 10 + (c - '0');
  }
  return n;
}

std::int64_t single_int(Connection& db, const char* sql) {
  Statement q(db, sql);
  return q.executeStep() ? q.getColumn(0).getInt64() : 0;
}

// The PostgreSQL text of a migration: its migrations/pg/ version, else the translation.
std::string postgres_text(const embedded::File& m) {
  for (const auto& pg : embedded::pg_migrations()) {
    if (pg.name == m.name) return std::string(pg.text);
  }
  return translate_migration(m.name, m.text);
}

void check_pg_overrides() {
  std::set<std::string> names;
  for (const auto& m : embedded::migrations()) names.insert(m.name);
  for (const auto& pg : embedded::pg_migrations()) {
    if (!names.count(pg.name)) {
      throw StoreError("migrations/pg/" + pg.name + " replaces no migration of that name");
    }
  }
}

void check_version(Connection& db, int current, int latest) {
  if (current > latest) {
    throw StoreError(db.describe() + " has schema version " + std::to_string(current) +
                     ", newer than this gpubill understands (" + std::to_string(latest) +
                     "); use a newer gpubill");
  }
}

void refuse_foreign(Connection& db) {
  throw StoreError(db.describe() +
                   " holds tables of another program (no gpubill schema version); give gpubill "
                   "a database of its own");
}

// PostgreSQL: the version lives in gpubill_schema; the case-insensitive collation the
// translated COLLATE NOCASE names is created with it. Called under the migration's lock.
int pg_prepare_schema(Connection& db) {
  if (single_int(db, "SELECT to_regclass('gpubill_schema') IS NOT NULL") != 0) {
    return static_cast<int>(single_int(db, "SELECT version FROM gpubill_schema WHERE one = 1"));
  }
  if (single_int(db, "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()") > 0) {
    refuse_foreign(db);
  }
  db.exec_native(
      "CREATE TABLE gpubill_schema (one INTEGER PRIMARY KEY CHECK (one = 1), "
      "version INTEGER NOT NULL);"
      "INSERT INTO gpubill_schema (one, version) VALUES (1, 0);"
      "CREATE COLLATION IF NOT EXISTS gpubill_nocase "
      "(provider = icu, locale = 'und-u-ks-level2', deterministic = false);");
  return 0;
}

}  // namespace

int schema_version(Connection& db) {
  if (db.backend() == Backend::sqlite)
    return static_cast<int>(single_int(db, "PRAGMA user_version"));
  if (single_int(db, "SELECT to_regclass('gpubill_schema') IS NULL") != 0) return 0;
  return static_cast<int>(single_int(db, "SELECT version FROM gpubill_schema WHERE one = 1"));
}

int migrate(Connection& db) {
  const int latest = latest_schema_version();
  const bool pg = db.backend() == Backend::postgres;
  if (pg) check_pg_overrides();
  int current = schema_version(db);
  check_version(db, current, latest);
  if (current == latest) return current;
  // Read again under the lock: another process may have migrated meanwhile (and, read before
  // it, a migration committed between the two reads made the file look like another program's).
  Transaction tx(db, Transaction::Kind::write, "migration");
  current = pg ? pg_prepare_schema(db) : schema_version(db);
  check_version(db, current, latest);
  if (!pg && current == 0 && single_int(db, "SELECT count(*) FROM sqlite_master") > 0) {
    refuse_foreign(db);
  }
  for (const auto& m : embedded::migrations()) {
    const int number = leading_number(m.name);
    if (number <= current) continue;
    if (pg) {
      db.exec_native(postgres_text(m));
      Statement v(db, "UPDATE gpubill_schema SET version = ? WHERE one = 1");
      v.bind(1, number);
      v.exec();
    } else {
      db.exec_native(m.text);
      db.exec_native("PRAGMA user_version = " + std::to_string(number));
    }
  }
  tx.commit();
  return latest;
}

}  // namespace gpubill::store
