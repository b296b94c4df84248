#include "commands.hpp"

namespace gpubill::cli {

Database Globals::open_database() const {
  return Database::open(resolve_database_path(db_path, std::getenv("GPUBILL_DB"),
                                              std::getenv("XDG_DATA_HOME"), std::getenv("HOME")));
}

void add_catalog_commands(CLI::App& app, Globals& globals, Action& action) {
  auto* catalog = app.add_subcommand("catalog", "List and import the catalog of GPU cloud offers");
  catalog->require_subcommand(1);
  add_db_option(*catalog, globals);
  (void)action;
}

}  // namespace gpubill::cli
