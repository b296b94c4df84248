// Files compiled into the library by cmake/embed_data.cmake: the SQL migrations and the
// bundled catalog, each as (file name, text), sorted by name.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gpubill::embedded {

struct File {
  std::string name;
  std::string_view text;  // static storage, never copied
};

const std::vector<File>& migrations();
// migrations/pg/: the PostgreSQL version of a migration that is not translated from the SQLite
// one (engine/store/README.md), named as the migration it replaces.
const std::vector<File>& pg_migrations();
const std::vector<File>& catalog_files();
// 16 hex digits identifying the bundled catalog's files (names and contents), computed at build
// time.
std::string_view catalog_digest();

}  // namespace gpubill::embedded
