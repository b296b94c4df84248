// Private to the engine: the SQLite connection behind a gpubill::Database.
#pragma once

#include <SQLiteCpp/SQLiteCpp.h>

#include <string>

#include "gpubill/db.hpp"

namespace gpubill {

struct Database::Impl {
  Impl(const std::string& p, int flags) : path(p), db(p, flags) {}
  std::string path;
  SQLite::Database db;
};

inline SQLite::Database& sqlite(Database& d) {
  return d.impl().db;
}

// Reads and writes the meta table (key → value).
std::optional<std::string> read_meta(SQLite::Database& db, const std::string& key);
void write_meta(SQLite::Database& db, const std::string& key, const std::string& value);

}  // namespace gpubill
