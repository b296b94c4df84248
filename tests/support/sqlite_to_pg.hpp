// Copies a gpubill database from SQLite into PostgreSQL, table by table, row by row through
// store::Statement: for the ledger's [postgres] tests and the PostgreSQL FOCUS benchmark, which
// replay on SQLite (the replay does not run on PostgreSQL yet, docs/postgresql.md) and read the
// bills from both.
#pragma once

#include <SQLiteCpp/SQLiteCpp.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "gpubill/store/db.hpp"
#include "store/connection.hpp"
#include "store/store.hpp"

namespace gpubill::testing {

// The tables of `db` ordered so that every table comes after the tables its foreign keys name.
inline std::vector<std::string> tables_by_dependency(SQLite::Database& db) {
  std::map<std::string, std::set<std::string>> needs;
  SQLite::Statement t(db,
                      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE "
                      "'sqlite_%' ORDER BY name");
  while (t.executeStep()) needs[t.getColumn(0).getString()];
  for (auto& [table, deps] : needs) {
    SQLite::Statement fk(db, "SELECT DISTINCT \"table\" FROM pragma_foreign_key_list(?1)");
    fk.bind(1, table);
    while (fk.executeStep()) {
      if (fk.getColumn(0).getString() != table) deps.insert(fk.getColumn(0).getString());
    }
  }
  std::vector<std::string> order;
  const auto placed = [&](const std::string& name) {
    return std::find(order.begin(), order.end(), name) != order.end();
  };
  while (order.size() < needs.size()) {
    const auto before = order.size();
    for (const auto& [table, deps] : needs) {
      if (!placed(table) && std::all_of(deps.begin(), deps.end(), placed)) order.push_back(table);
    }
    if (order.size() == before) throw std::runtime_error("the foreign keys between tables cycle");
  }
  return order;
}

// Copies one table's rows, each value bound with its SQLite type. Returns the rows copied.
inline std::int64_t copy_rows(SQLite::Database& from, store::Connection& to,
                              const std::string& table) {
  SQLite::Statement read(from, "SELECT * FROM " + table);
  const int n = read.getColumnCount();
  std::string columns, values;
  for (int i = 0; i < n; ++i) {
    columns += (i ? ", " : "") + std::string(read.getColumnName(i));
    values += (i ? ", ?" : "?") + std::to_string(i + 1);
  }
  store::Statement write(to, "INSERT INTO " + table + "(" + columns + ") VALUES (" + values + ")");
  std::int64_t rows = 0;
  while (read.executeStep()) {
    for (int i = 0; i < n; ++i) {
      const SQLite::Column c = read.getColumn(i);
      switch (c.getType()) {
        case SQLITE_INTEGER:
          write.bind(i + 1, static_cast<std::int64_t>(c.getInt64()));
          break;
        case SQLITE_TEXT:
          write.bind(i + 1, std::string_view(c.getText(), static_cast<std::size_t>(c.getBytes())));
          break;
        case SQLITE_BLOB:
          write.bindBlob(i + 1, std::string_view(static_cast<const char*>(c.getBlob()),
                                                 static_cast<std::size_t>(c.getBytes())));
          break;
        case SQLITE_NULL:
          write.bind(i + 1);
          break;
        default:
          throw std::runtime_error(table + "." + c.getName() + " holds a floating-point value");
      }
    }
    write.exec();
    write.reset();
    ++rows;
  }
  return rows;
}

// Every row of every table of `from` (SQLite) into `to` (PostgreSQL, migrated by
// Database::open: the same tables), in place of what `to` held, in one transaction. Returns the
// rows copied.
inline std::int64_t copy_database(Database& from, Database& to) {
  auto& source = sqlite(from);
  const auto tables = tables_by_dependency(source);
  store::Connection& target = connection(to);
  store::Transaction tx(target, store::Transaction::Kind::write, "copy");
  for (auto it = tables.rbegin(); it != tables.rend(); ++it) target.exec("DELETE FROM " + *it);
  std::int64_t rows = 0;
  for (const auto& table : tables) rows += copy_rows(source, target, table);
  tx.commit();
  return rows;
}

}  // namespace gpubill::testing
