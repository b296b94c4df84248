// Runs the built `gpubill` executable in a shell and captures what it prints, for the CLI tests.
#pragma once

#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "made_once.hpp"
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
// CLI (made_once, named after the CLI's stamp: new migrations or a new bundled catalog make a new
// one) and copied by every test that needs one (an init costs 0.4–0.7 s, 2–3 s under the
// sanitizers; a copy a few ms).
inline std::string initialized_database_template() {
  return made_once("init-" + file_stamp(GPUBILL_CLI_PATH) + ".db", [](const std::string& mine) {
    const CliRun r = run_cli("--db '" + mine + "' init", Stderr::discarded);
    REQUIRE(r.status == 0);
    // The last connection closed: SQLite checkpointed its log into the file and removed it.
    REQUIRE_FALSE(std::filesystem::exists(mine + "-wal"));
  });
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
