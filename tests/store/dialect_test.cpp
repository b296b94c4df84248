// SQLite SQL translated for PostgreSQL (engine/store/dialect.hpp), and the target helpers.
#include <catch2/catch.hpp>

#include "gpubill/base/errors.hpp"
#include "gpubill/store/db.hpp"
#include "gpubill/store/target.hpp"
#include "store/connection.hpp"
#include "store/dialect.hpp"
#include "store/embedded_data.hpp"

using namespace gpubill;
using store::translate_migration;
using store::translate_statement;

TEST_CASE("a target is a PostgreSQL URL by its scheme, else an SQLite path", "[store][dialect]") {
  CHECK(is_postgres_url("postgresql://db.example/gpubill"));
  CHECK(is_postgres_url("postgres://u@h:5433/db"));
  CHECK_FALSE(is_postgres_url("postgresql:/x"));
  CHECK_FALSE(is_postgres_url("gpubill.db"));
  CHECK_FALSE(is_postgres_url("/data/postgres://x.db"));
  CHECK_FALSE(is_postgres_url("POSTGRESQL://h/db"));  // libpq's schemes are lower case
}

TEST_CASE("a target's password is redacted for messages", "[store][dialect]") {
  CHECK(redact_target("postgresql://ann:s3cret@db.example:5432/bills") ==
        "postgresql://ann:***@db.example:5432/bills");
  CHECK(redact_target("postgres://h/db?user=ann&password=s3cret&sslmode=require") ==
        "postgres://h/db?user=ann&password=***&sslmode=require");
  CHECK(redact_target("postgresql://ann@h/db") == "postgresql://ann@h/db");
  CHECK(redact_target("/tmp/a:b@c.db") == "/tmp/a:b@c.db");
}

TEST_CASE("parameters become $N: a bare ? counts on from the largest before it",
          "[store][dialect]") {
  CHECK(translate_statement("SELECT a FROM t WHERE b = ? AND c = ?") ==
        "SELECT a FROM t WHERE b = $1 AND c = $2");
  CHECK(translate_statement("WHERE (CAST(?1 AS TEXT) IS NULL OR s.account = ?1) AND x = ?") ==
        "WHERE (CAST($1 AS TEXT) IS NULL OR s.account = $1) AND x = $2");
  CHECK(store::count_parameters("WHERE (?1 IS NULL OR s.account = ?1) AND x = ?") == 2);
  // PostgreSQL cannot type a parameter first seen in IS NULL; seen before, it can.
  CHECK_THROWS_WITH(translate_statement("WHERE (?7 IS NULL OR c.period_start < ?7)"),
                    Catch::Contains("parameter ?7 is first used in 'IS NULL'") &&
                        Catch::Contains("write CAST(?7 AS INTEGER) IS NULL"));
  CHECK_THROWS_WITH(translate_statement("WHERE a = ?1 AND ? IS NOT NULL"),
                    Catch::Contains("parameter ?2 is first used"));
  CHECK(translate_statement("WHERE (s.account = ?1 OR ?1 IS NULL)") ==
        "WHERE (s.account = $1 OR $1 IS NULL)");
  CHECK(store::count_parameters("VALUES (?, ?, ?7)") == 7);
  // Literals, quoted names and comments keep their question marks.
  CHECK(translate_statement("SELECT '?', \"a?\" FROM t -- why?\nWHERE x = ?") ==
        "SELECT '?', \"a?\" FROM t -- why?\nWHERE x = $1");
  CHECK(translate_statement("SELECT 'it''s ?' WHERE y = ?") == "SELECT 'it''s ?' WHERE y = $1");
}

TEST_CASE("INSERT OR IGNORE becomes ON CONFLICT DO NOTHING; other OR clauses are refused",
          "[store][dialect]") {
  CHECK(translate_statement("INSERT OR IGNORE INTO event(account, id) VALUES(?, ?)") ==
        "INSERT INTO event(account, id) VALUES($1, $2) ON CONFLICT DO NOTHING");
  CHECK(translate_statement("insert or ignore into a VALUES (1); INSERT INTO b VALUES (2);") ==
        "insert into a VALUES (1) ON CONFLICT DO NOTHING; INSERT INTO b VALUES (2);");
  CHECK(translate_statement("INSERT INTO p(id) VALUES(?) ON CONFLICT(id) DO UPDATE SET "
                            "name = excluded.name") ==
        "INSERT INTO p(id) VALUES($1) ON CONFLICT(id) DO UPDATE SET name = excluded.name");
  CHECK_THROWS_WITH(translate_statement("INSERT OR REPLACE INTO a VALUES (1)"),
                    Catch::Contains("INSERT OR REPLACE has no translation"));
}

TEST_CASE("SQLite's IS, json_each, group_concat, NOCASE and types in PostgreSQL's words",
          "[store][dialect]") {
  CHECK(translate_statement("r.until IS ?1 AND r.x IS NOT ? AND y IS NULL") ==
        "r.until IS NOT DISTINCT FROM $1 AND r.x IS DISTINCT FROM $2 AND y IS NULL");
  CHECK(translate_statement("WHERE gpu IN (SELECT value FROM json_each(?1))") ==
        "WHERE gpu IN (SELECT value FROM json_array_elements_text(CAST($1 AS json)))");
  CHECK_THROWS_WITH(translate_statement("SELECT value FROM json_each(t.ids)"),
                    Catch::Contains("json_each translates only with one parameter"));
  CHECK(translate_statement("SELECT count(*), group_concat(DISTINCT account) FROM charge") ==
        "SELECT count(*), string_agg(DISTINCT account, ',') FROM charge");
  CHECK(translate_statement("SELECT group_concat(a, ';'), group_concat(coalesce(b, c)) FROM t") ==
        "SELECT string_agg(a, ';'), string_agg(coalesce(b, c), ',') FROM t");
  CHECK(translate_statement("SELECT CAST(x AS INTEGER), CAST(y AS BLOB) FROM t ORDER BY a COLLATE "
                            "NOCASE") ==
        "SELECT CAST(x AS BIGINT), CAST(y AS BYTEA) FROM t ORDER BY a COLLATE gpubill_nocase");
  CHECK_THROWS_WITH(translate_statement("SELECT gpu FROM gpu_alias ORDER BY gpu, rowid"),
                    Catch::Contains("rowid has no PostgreSQL equivalent"));
}

TEST_CASE("PRAGMAs are dropped for PostgreSQL", "[store][dialect]") {
  CHECK(translate_statement("PRAGMA foreign_keys = ON") == "");
  CHECK(translate_statement("PRAGMA cache_size = -65536; SELECT 1;") == " SELECT 1;");
}

TEST_CASE("a migration's DDL translated: keys, types, and what needs a PostgreSQL file",
          "[store][dialect]") {
  CHECK(translate_migration("0099_x.sql",
                            "CREATE TABLE t (\n  id INTEGER PRIMARY KEY,\n  n INTEGER NOT NULL,\n"
                            "  b BLOB,\n  a TEXT PRIMARY KEY COLLATE NOCASE\n);") ==
        "CREATE TABLE t (\n  id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,\n  n BIGINT "
        "NOT NULL,\n  b BYTEA,\n  a TEXT PRIMARY KEY COLLATE gpubill_nocase\n);");
  // Text compares by bytes, as SQLite's BINARY, in a database of any default collation.
  CHECK(translate_migration("0099_x.sql",
                            "CREATE TABLE t (k TEXT NOT NULL DEFAULT '' CHECK (k IN "
                            "('a', 'b')), v TEXT);\nALTER TABLE t ADD COLUMN w TEXT;") ==
        "CREATE TABLE t (k TEXT COLLATE \"C\" NOT NULL DEFAULT '' CHECK (k IN ('a', 'b')), v TEXT "
        "COLLATE \"C\");\nALTER TABLE t ADD COLUMN w TEXT COLLATE \"C\";");
  CHECK(translate_statement("SELECT CAST(x AS TEXT)") == "SELECT CAST(x AS TEXT)");
  CHECK(translate_migration("0099_x.sql",
                            "ALTER TABLE p ADD COLUMN q INTEGER NOT NULL DEFAULT 720\n"
                            "  CHECK (q BETWEEN 672 AND 744);") ==
        "ALTER TABLE p ADD COLUMN q BIGINT NOT NULL DEFAULT 720\n  CHECK (q BETWEEN 672 AND 744);");
  CHECK_THROWS_WITH(
      translate_migration("0099_x.sql", "CREATE TRIGGER a AFTER INSERT ON t BEGIN SELECT 1; END;"),
      Catch::Contains("migration 0099_x.sql: CREATE TRIGGER has no translation") &&
          Catch::Contains("migrations/pg/0099_x.sql"));
  CHECK_THROWS_WITH(translate_migration("0099_x.sql",
                                        "CREATE TABLE t (id INTEGER PRIMARY KEY "
                                        "AUTOINCREMENT)"),
                    Catch::Contains("AUTOINCREMENT has no translation"));
  CHECK_THROWS_WITH(translate_migration("0099_x.sql", "CREATE TABLE t (a TEXT) WITHOUT ROWID"),
                    Catch::Contains("WITHOUT has no translation"));
  CHECK_THROWS_WITH(translate_migration("0099_x.sql", "CREATE TABLE t (a TEXT) STRICT"),
                    Catch::Contains("STRICT has no translation"));
}

TEST_CASE("every numbered migration translates for PostgreSQL or has its own PostgreSQL file",
          "[store][dialect]") {
  for (const auto& m : embedded::migrations()) {
    bool overridden = false;
    for (const auto& pg : embedded::pg_migrations()) overridden = overridden || pg.name == m.name;
    INFO(m.name);
    if (overridden) {
      CHECK_THROWS_AS(translate_migration(m.name, m.text), StoreError);  // else drop the file
    } else {
      CHECK_NOTHROW(translate_migration(m.name, m.text));
    }
  }
}

TEST_CASE("advisory lock keys are fixed numbers per scope", "[store][dialect]") {
  // FNV-1a 64 of "gpubill:" and "gpubill:account:acme" (worked out with Python), signed.
  CHECK(store::advisory_lock_key("") == 2019403549623792258);
  CHECK(store::advisory_lock_key("account:acme") == 6760439011166062783);
}

TEST_CASE("a command's database given as a PostgreSQL URL is refused until the engine is ported",
          "[store][dialect]") {
  CHECK_THROWS_WITH(
      Database::open("postgresql://ann:s3cret@db.example/bills"),
      Catch::Equals("'postgresql://ann:***@db.example/bills' is a PostgreSQL URL: the "
                    "commands do not run on PostgreSQL yet (issue 25, "
                    "docs/postgresql.md); give an SQLite file path"));
}
