// The numbered migrations give the same schema on PostgreSQL as on SQLite: tables, columns
// (type, NOT NULL, default, assigned key), primary keys, unique constraints, foreign keys,
// indexes (with their collations) and triggers, each read from the backend's own catalog and
// written in one normal form. CHECK constraints are not compared (PostgreSQL rewrites their
// text); the tests of the engine on both backends cover them.
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <sstream>

#include "gpubill/base/errors.hpp"
#include "gpubill/store/db.hpp"
#include "pg_test.hpp"
#include "store/connection.hpp"
#include "temp_dir.hpp"

using namespace gpubill;
using gpubill::store::Connection;
using gpubill::store::Statement;

namespace {

struct ColumnShape {
  std::string type, dflt;
  bool not_null = false, assigned_key = false;
  std::string collation;  // "" = by bytes (SQLite BINARY, PostgreSQL "C"), "nocase", else a name
  bool operator==(const ColumnShape&) const = default;
  std::string text() const {
    return type + (collation.empty() ? "" : " COLLATE " + collation) +
           (not_null ? " NOT NULL" : "") + (dflt.empty() ? "" : " DEFAULT " + dflt) +
           (assigned_key ? " (assigned key)" : "");
  }
};

struct TableShape {
  std::map<std::string, ColumnShape> columns;
  std::string primary_key;        // "a, b COLLATE nocase"
  std::set<std::string> uniques;  // the same form
  std::set<std::string> foreign;  // "(a, b) REFERENCES t(x, y)"
};

struct SchemaShape {
  std::map<std::string, TableShape> tables;
  std::map<std::string, std::string> indexes;   // name → "[UNIQUE ]table(cols)"
  std::map<std::string, std::string> triggers;  // name → "AFTER INSERT ON table"
};

std::vector<std::vector<std::string>> rows(Connection& db, const std::string& sql,
                                           const std::string& arg = "") {
  Statement q(db, sql);
  if (!arg.empty()) q.bind(1, arg);
  std::vector<std::vector<std::string>> out;
  while (q.executeStep()) {
    out.emplace_back();
    for (int i = 0; i < q.getColumnCount(); ++i) out.back().push_back(q.getColumn(i).getString());
  }
  return out;
}

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// --- SQLite -------------------------------------------------------------------------------

std::string sqlite_index_columns(Connection& db, const std::string& index) {
  std::string out;
  for (const auto& r : rows(db,
                            "SELECT name, coll FROM pragma_index_xinfo(?) WHERE key = 1 "
                            "ORDER BY seqno",
                            index)) {
    out += (out.empty() ? "" : ", ") + r[0] + (upper(r[1]) == "NOCASE" ? " COLLATE nocase" : "");
  }
  return out;
}

void sqlite_table(Connection& db, const std::string& name, SchemaShape& s) {
  TableShape& t = s.tables[name];
  std::map<int, std::string> pk;
  for (const auto& r : rows(db,
                            "SELECT name, upper(type), \"notnull\", coalesce(dflt_value, ''), pk "
                            "FROM pragma_table_info(?)",
                            name)) {
    // A key column is NOT NULL on PostgreSQL always; on SQLite only an INTEGER one is.
    t.columns[r[0]] = {r[1], r[3], r[2] == "1" || r[4] != "0", false, ""};
    if (r[4] != "0") pk[std::stoi(r[4])] = r[0];
  }
  // SQLite keeps a column's collation only in the table's SQL (ALTER TABLE rewrites it).
  const auto sql = rows(db, "SELECT upper(sql) FROM sqlite_master WHERE name = ?", name)[0][0];
  for (auto& [col, shape] : t.columns) {
    const auto at = sql.find("\n  " + upper(col) + " ");
    const auto end = sql.find_first_of(",\n", at + col.size() + 3);
    if (at != std::string::npos &&
        sql.substr(at, end - at).find("COLLATE NOCASE") != std::string::npos) {
      shape.collation = "nocase";
    }
  }
  if (pk.size() == 1 && t.columns[pk.begin()->second].type == "INTEGER") {
    t.columns[pk.begin()->second].assigned_key = true;  // the rowid alias
  }
  for (const auto& [n, col] : pk) t.primary_key += (t.primary_key.empty() ? "" : ", ") + col;
  for (const auto& r :
       rows(db, "SELECT name, origin, \"unique\" FROM pragma_index_list(?)", name)) {
    const auto cols = sqlite_index_columns(db, r[0]);
    if (r[1] == "pk") t.primary_key = cols;
    if (r[1] == "u") t.uniques.insert(cols);
    if (r[1] == "c") s.indexes[r[0]] = (r[2] == "1" ? "UNIQUE " : "") + name + "(" + cols + ")";
  }
  std::map<std::string, std::pair<std::string, std::string>> fks;  // id → (from, to), table
  std::map<std::string, std::string> fk_table;
  for (const auto& r : rows(db,
                            "SELECT id, \"table\", \"from\", \"to\" FROM "
                            "pragma_foreign_key_list(?) ORDER BY id, seq",
                            name)) {
    auto& [from, to] = fks[r[0]];
    from += (from.empty() ? "" : ", ") + r[2];
    to += (to.empty() ? "" : ", ") + r[3];
    fk_table[r[0]] = r[1];
  }
  for (const auto& [id, ft] : fks) {
    t.foreign.insert("(" + ft.first + ") REFERENCES " + fk_table[id] + "(" + ft.second + ")");
  }
}

SchemaShape sqlite_shape(Connection& db) {
  SchemaShape s;
  for (const auto& r : rows(db,
                            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT "
                            "LIKE 'sqlite_%'")) {
    sqlite_table(db, r[0], s);
  }
  for (const auto& r : rows(db,
                            "SELECT name, tbl_name, upper(sql) FROM sqlite_master WHERE type = "
                            "'trigger'")) {
    std::string event;
    for (const char* e : {"INSERT", "UPDATE", "DELETE"}) {
      if (r[2].find(std::string("AFTER ") + e + " ON") != std::string::npos) event = e;
    }
    s.triggers[r[0]] = "AFTER " + event + " ON " + r[1];
  }
  return s;
}

// --- PostgreSQL ---------------------------------------------------------------------------

std::string pg_type(const std::string& t) {
  if (t == "bigint" || t == "integer") return "INTEGER";
  if (t == "text") return "TEXT";
  if (t == "bytea") return "BLOB";
  return "?" + t;
}

// 'x'::text → 'x'
std::string pg_default(std::string d) {
  for (const char* cast : {"::text", "::bigint", "::integer"}) {
    if (d.size() > std::string(cast).size() && d.ends_with(cast))
      d.resize(d.size() - std::string(cast).size());
  }
  return d;
}

void pg_keys(Connection& db, SchemaShape& s) {
  const auto found = rows(
      db,
      "SELECT t.relname, i.relname, ix.indisprimary::int, ix.indisunique::int, "
      "coalesce(c.contype::text, ''), array_to_string(array(SELECT a.attname || CASE WHEN "
      "co.collname = 'gpubill_nocase' THEN ' COLLATE nocase' ELSE '' END FROM "
      "unnest(ix.indkey::int2[], ix.indcollation::oid[]) WITH ORDINALITY AS k(attnum, coll, ord) "
      "JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum LEFT JOIN pg_collation "
      "co ON co.oid = k.coll ORDER BY k.ord), ', ') FROM pg_index ix JOIN pg_class i ON i.oid = "
      "ix.indexrelid JOIN pg_class t ON t.oid = ix.indrelid LEFT JOIN pg_constraint c ON "
      "c.conindid = ix.indexrelid AND c.conrelid = t.oid WHERE t.relnamespace = "
      "current_schema()::regnamespace AND t.relname <> 'gpubill_schema'");
  for (const auto& r : found) {
    auto& t = s.tables[r[0]];
    if (r[2] == "1") {
      t.primary_key = r[5];
    } else if (r[4] == "u") {
      t.uniques.insert(r[5]);
    } else {
      s.indexes[r[1]] = (r[3] == "1" ? "UNIQUE " : "") + r[0] + "(" + r[5] + ")";
    }
  }
  for (const auto& r : rows(db,
                            "SELECT conrelid::regclass::text, pg_get_constraintdef(oid) FROM "
                            "pg_constraint WHERE contype = 'f' AND connamespace = "
                            "current_schema()::regnamespace")) {
    s.tables[r[0]].foreign.insert(r[1].substr(std::string("FOREIGN KEY ").size()));
  }
}

SchemaShape pg_shape(Connection& db) {
  SchemaShape s;
  for (const auto& r : rows(db,
                            "SELECT table_name, column_name, data_type, is_nullable, "
                            "coalesce(column_default, ''), is_identity FROM "
                            "information_schema.columns WHERE table_schema = current_schema() "
                            "AND table_name <> 'gpubill_schema'")) {
    s.tables[r[0]].columns[r[1]] = {pg_type(r[2]), pg_default(r[4]), r[3] == "NO", r[5] == "YES",
                                    ""};
  }
  for (const auto& r : rows(db,
                            "SELECT c.relname, a.attname, coalesce(co.collname, '') FROM "
                            "pg_attribute a JOIN pg_class c ON c.oid = a.attrelid LEFT JOIN "
                            "pg_collation co ON co.oid = a.attcollation WHERE c.relkind = 'r' "
                            "AND c.relnamespace = current_schema()::regnamespace AND "
                            "c.relname <> 'gpubill_schema' AND a.attnum > 0 AND NOT "
                            "a.attisdropped")) {
    const std::string& coll = r[2];
    s.tables[r[0]].columns[r[1]].collation = coll.empty() || coll == "C" ? ""
                                             : coll == "gpubill_nocase"  ? "nocase"
                                                                         : coll;
  }
  pg_keys(db, s);
  for (const auto& r : rows(db,
                            "SELECT trigger_name, action_timing, event_manipulation, "
                            "event_object_table FROM information_schema.triggers WHERE "
                            "trigger_schema = current_schema()")) {
    s.triggers[r[0]] = r[1] + " " + r[2] + " ON " + r[3];
  }
  return s;
}

// --- comparison ---------------------------------------------------------------------------

template <class Map, class Describe>
void compare_maps(const Map& a, const Map& b, const std::string& what, Describe describe,
                  std::vector<std::string>& out) {
  for (const auto& [k, v] : a) {
    auto it = b.find(k);
    if (it == b.end()) {
      out.push_back(what + " " + k + ": only on SQLite (" + describe(v) + ")");
    } else if (!(it->second == v)) {
      out.push_back(what + " " + k + ": SQLite " + describe(v) + ", PostgreSQL " +
                    describe(it->second));
    }
  }
  for (const auto& [k, v] : b) {
    if (!a.count(k)) out.push_back(what + " " + k + ": only on PostgreSQL (" + describe(v) + ")");
  }
}

std::string join(const std::set<std::string>& s) {
  std::string out;
  for (const auto& x : s) out += (out.empty() ? "" : "; ") + x;
  return out;
}

std::vector<std::string> schema_differences(const SchemaShape& lite, const SchemaShape& pg) {
  std::vector<std::string> out;
  for (const auto& [name, t] : lite.tables) {
    auto it = pg.tables.find(name);
    if (it == pg.tables.end()) {
      out.push_back("table " + name + ": only on SQLite");
      continue;
    }
    const TableShape& p = it->second;
    compare_maps(
        t.columns, p.columns, "table " + name + " column",
        [](const ColumnShape& c) { return c.text(); }, out);
    if (t.primary_key != p.primary_key) {
      out.push_back("table " + name + " primary key: SQLite (" + t.primary_key + "), PostgreSQL (" +
                    p.primary_key + ")");
    }
    if (t.uniques != p.uniques) {
      out.push_back("table " + name + " unique: SQLite " + join(t.uniques) + ", PostgreSQL " +
                    join(p.uniques));
    }
    if (t.foreign != p.foreign) {
      out.push_back("table " + name + " foreign keys: SQLite " + join(t.foreign) + ", PostgreSQL " +
                    join(p.foreign));
    }
  }
  for (const auto& [name, t] : pg.tables) {
    if (!lite.tables.count(name)) out.push_back("table " + name + ": only on PostgreSQL");
  }
  auto same = [](const std::string& s) { return s; };
  compare_maps(lite.indexes, pg.indexes, "index", same, out);
  compare_maps(lite.triggers, pg.triggers, "trigger", same, out);
  return out;
}

SchemaShape sqlite_reference(const gpubill::testing::TempDir& dir) {
  (void)Database::open(dir.file("ref.db"));  // the schema as gpubill makes it on SQLite
  auto db = Connection::open(dir.file("ref.db"));
  return sqlite_shape(*db);
}

}  // namespace

TEST_CASE("the migrations give PostgreSQL the schema they give SQLite", "[.][postgres]") {
  gpubill::testing::TempDir dir;
  gpubill::testing::PgDatabase pg;
  auto db = pg.open();
  CHECK(store::schema_version(*db) == 0);
  CHECK(store::migrate(*db) == latest_schema_version());
  CHECK(store::schema_version(*db) == latest_schema_version());
  CHECK(store::migrate(*db) == latest_schema_version());  // nothing left to do
  const auto lite = sqlite_reference(dir);
  const auto differences = schema_differences(lite, pg_shape(*db));
  for (const auto& d : differences) UNSCOPED_INFO(d);
  CHECK(differences.empty());
  CHECK(lite.tables.size() == 26);  // the comparison saw the whole schema
  CHECK(lite.triggers.size() == 18);
}

TEST_CASE("a schema difference is named by its table and column", "[.][postgres]") {
  gpubill::testing::TempDir dir;
  gpubill::testing::PgDatabase pg;
  auto db = pg.open();
  store::migrate(*db);
  db->exec_native(
      "ALTER TABLE charge ADD COLUMN extra TEXT; ALTER TABLE price ALTER COLUMN as_of DROP NOT "
      "NULL; DROP INDEX charge_by_instance; ALTER TABLE gpu_alias ALTER COLUMN alias TYPE TEXT "
      "COLLATE \"C\"");
  const auto d = schema_differences(sqlite_reference(dir), pg_shape(*db));
  std::ostringstream all;
  for (const auto& x : d) all << x << "\n";
  // The added column has the database's default collation, not bytes as SQLite's BINARY.
  CHECK(all.str() ==
        "table charge column extra: only on PostgreSQL (TEXT COLLATE default)\n"
        "table gpu_alias column alias: SQLite TEXT COLLATE nocase NOT NULL, PostgreSQL TEXT NOT "
        "NULL\n"
        "table gpu_alias primary key: SQLite (alias COLLATE nocase), PostgreSQL (alias)\n"
        "table price column as_of: SQLite TEXT NOT NULL, PostgreSQL TEXT\n"
        "index charge_by_instance: only on SQLite (charge(account, instance, period_start))\n");
}

TEST_CASE("PostgreSQL: the catalog stamp triggers mark the catalog as SQLite's do",
          "[.][postgres]") {
  gpubill::testing::PgDatabase pg;
  auto db = pg.open();
  store::migrate(*db);
  auto stamp = [&] {
    Statement q(*db, "SELECT version, dirty FROM catalog_stamp WHERE one = 1");
    REQUIRE(q.executeStep());
    return std::to_string(q.getColumn(0).getInt64()) + "/" + q.getColumn(1).getString();
  };
  CHECK(stamp() == "1/1");
  db->exec("UPDATE catalog_stamp SET dirty = 0 WHERE one = 1");
  db->exec(
      "INSERT INTO provider (id, name, currency, billing_time_zone) VALUES ('a', 'A', 'CNY', "
      "'Asia/Shanghai'), ('b', 'B', 'USD', 'UTC')");
  CHECK(stamp() == "2/1");  // the first change of a clean catalog bumps the version once
  db->exec("UPDATE catalog_stamp SET dirty = 0 WHERE one = 1");
  db->exec("DELETE FROM provider WHERE id = 'b'");
  CHECK(stamp() == "3/1");
  // gpu_alias keys compare without case, as SQLite's COLLATE NOCASE.
  db->exec("INSERT INTO gpu (id) VALUES ('V100')");
  db->exec("INSERT INTO gpu_alias (alias, gpu) VALUES ('Tesla V100', 'V100')");
  CHECK_THROWS_AS(db->exec("INSERT INTO gpu_alias (alias, gpu) VALUES ('TESLA v100', 'V100')"),
                  StoreError);
  Statement q(*db, "SELECT gpu FROM gpu_alias WHERE alias = ?");
  q.bind(1, "tesla V100");
  CHECK(q.executeStep());
}

TEST_CASE("PostgreSQL: a database holding another program's tables is not migrated",
          "[.][postgres]") {
  gpubill::testing::PgDatabase pg;
  auto db = pg.open();
  db->exec_native("CREATE TABLE orders (id BIGINT)");
  CHECK_THROWS_WITH(store::migrate(*db), Catch::Contains("holds tables of another program"));
}
