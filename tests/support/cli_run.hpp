// Runs the built `gpubill` executable in a shell and captures what it prints, for the CLI tests.
#pragma once

#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "temp_dir.hpp"

namespace gpubill::testing {

struct CliRun {
  int status = -1;     // exit status; -1 when the process did not exit normally
  std::string output;  // stdout, plus stderr unless it was discarded
};

enum class Stderr { merged, discarded };

// Runs a shell command line and captures its standard output.
inline CliRun run_shell(const std::string& command) {
  CliRun r;
  FILE* pipe = ::popen(command.c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buffer[4096];
  std::size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) r.output.append(buffer, n);
  const int status = ::pclose(pipe);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// `args` are appended to the quoted CLI path as they are: quote paths with spaces yourself.
inline CliRun run_cli(const std::string& args, Stderr err = Stderr::merged) {
  return run_shell(std::string("'") + GPUBILL_CLI_PATH + "' " + args +
                   (err == Stderr::merged ? " 2>&1" : " 2>/dev/null"));
}

// A database that `gpubill init` created with the bundled catalog, made once per build of the
// CLI and copied by every test that needs one (an init costs 0.4–0.7 s, 2–3 s under the
// sanitizers; a copy a few ms). It lives beside the CLI, named after the CLI's size and time,
// so a rebuilt CLI (new migrations, a new bundled catalog) makes a new one; a process that
// finds none makes it under a name of its own and renames it into place, so tests running at
// once never read half of one.
inline std::string initialized_database_template() {
  namespace fs = std::filesystem;
  const fs::path cli(GPUBILL_CLI_PATH);
  const auto stamp = static_cast<unsigned long long>(  // file_clock's epoch may lie ahead
      fs::last_write_time(cli).time_since_epoch().count());
  const fs::path dir = cli.parent_path() / "test-databases";
  const fs::path path =
      dir / ("init-" + std::to_string(fs::file_size(cli)) + "-" + std::to_string(stamp) + ".db");
  if (fs::exists(path)) return path.string();
  fs::create_directories(dir);
  const fs::path mine = dir / ("making-" + std::to_string(::getpid()) + ".db");
  const CliRun r = run_cli("--db '" + mine.string() + "' init", Stderr::discarded);
  REQUIRE(r.status == 0);
  // The last connection closed: SQLite checkpointed its log into the file and removed it.
  REQUIRE_FALSE(fs::exists(mine.string() + "-wal"));
  fs::rename(mine, path);
  return path.string();
}

// Creates the database at `path` with the bundled catalog unless it exists, as a user does once
// with `gpubill init` (a command that only reads refuses a missing database): a copy of
// initialized_database_template().
inline void ensure_database(const std::string& path) {
  if (std::filesystem::exists(path)) return;
  std::filesystem::copy_file(initialized_database_template(), path);
}

// " --db '<dir>/q.db'" for a CLI command line, the database created first (ensure_database).
inline std::string db_flag(const TempDir& dir) {
  ensure_database(dir.file("q.db"));
  return " --db '" + dir.file("q.db") + "'";
}

}  // namespace gpubill::testing
