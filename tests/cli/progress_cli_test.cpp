// The progress bar of replay, rebuild and catalog import: drawn on standard error when it is a
// terminal (here a pseudo-terminal from util-linux `script`), never into a pipe or a file, and
// not with --quiet.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "cli_run.hpp"
#include "temp_dir.hpp"

using gpubill::testing::CliRun;
using gpubill::testing::run_cli;
using gpubill::testing::run_shell;
using gpubill::testing::TempDir;

namespace {

// `gpubill ARGS` with stdout and stderr on a pseudo-terminal; its output as the terminal got it.
CliRun in_terminal(const std::string& args) {
  // The arguments hold no single quote: the command line is quoted once for script's shell.
  return run_shell(std::string("script -qfec \"'") + GPUBILL_CLI_PATH + "' " + args +
                   "\" /dev/null < /dev/null");
}

// A file of the source tree, quoted for the shell.
std::string source_file(const std::string& relative) {
  std::string path = GPUBILL_SOURCE_DIR;
  path += "/" + relative;
  return "'" + path + "'";
}

std::string log_path() {
  return source_file("fixtures/logs/tencent-gn8.jsonl");
}

}  // namespace

TEST_CASE("replay draws a progress bar on a terminal only", "[progress][cli]") {
  if (run_shell("command -v script >/dev/null").status != 0) {
    WARN("util-linux script is not installed: the terminal half is not checked");
    return;
  }
  TempDir dir;
  const std::string db = " --db '" + dir.file("p.db") + "'";
  const std::string replay = "replay " + log_path() + " --until 2019-04-01T00:00:00+08:00" + db;

  const CliRun tty = in_terminal(replay);
  INFO(tty.output);
  CHECK(tty.status == 0);
  // The last report: the whole file read, the bar full, on one line redrawn with \r.
  CHECK_THAT(tty.output, Catch::Contains("\rreplay  [####################] 100%"));
  const auto bytes = std::to_string(
      std::filesystem::file_size(GPUBILL_SOURCE_DIR "/fixtures/logs/tencent-gn8.jsonl"));
  CHECK_THAT(tty.output, Catch::Contains("  " + bytes + "/" + bytes + " B  "));  // under 1 kB
  CHECK_THAT(tty.output, Catch::Contains("done in "));
  CHECK_THAT(tty.output, Catch::Contains("events_read"));  // the report follows on its own line

  const CliRun quiet = in_terminal("rebuild --quiet" + db);
  INFO(quiet.output);
  CHECK(quiet.status == 0);
  CHECK_THAT(quiet.output, !Catch::Contains("rebuild  [") && !Catch::Contains("\x1b[K"));
  const CliRun rebuild = in_terminal("rebuild" + db);
  CHECK_THAT(rebuild.output, Catch::Contains("\rrebuild  [####################] 100%"));

  const std::string cat = source_file("tests/data/catalog-diff.json");
  const CliRun import = in_terminal("catalog import --force " + cat + db);
  CHECK(import.status == 0);
  CHECK_THAT(import.output, Catch::Contains("\rimport  [####################] 100%  27/27 rows"));
}

TEST_CASE("replay writes no progress into a pipe", "[progress][cli]") {
  TempDir dir;
  const std::string db = " --db '" + dir.file("p.db") + "'";
  const CliRun r = run_cli("replay " + log_path() + " --until 2019-04-01T00:00:00+08:00" + db);
  INFO(r.output);
  CHECK(r.status == 0);
  CHECK_THAT(r.output, Catch::StartsWith("gpubill: created the database"));
  CHECK_THAT(r.output, !Catch::Contains("\r") && !Catch::Contains("replay  ["));
}
