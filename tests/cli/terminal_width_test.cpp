// Text tables fit the terminal: on a terminal (a pseudo-terminal made by script(1), 80 columns)
// long text cells are cut, ending in "…"; --wide, or output to a pipe, shows them whole.
#include <catch2/catch.hpp>

#include <string>

#include "cli_run.hpp"
#include "temp_dir.hpp"

namespace {

// The output of `gpubill ARGS` run on a terminal of 80 columns.
std::string on_terminal(const std::string& args) {
  const std::string command = std::string("stty cols 80; '") + GPUBILL_CLI_PATH + "' " + args;
  std::string out;
  FILE* pipe = ::popen(("script -qec \"" + command + "\" /dev/null").c_str(), "r");
  REQUIRE(pipe != nullptr);
  char buffer[4096];
  std::size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
  REQUIRE(::pclose(pipe) == 0);
  return out;
}

}  // namespace

TEST_CASE("text tables are cut to the terminal's width unless --wide", "[cli][output]") {
  gpubill::testing::TempDir dir;
  gpubill::testing::ensure_database(dir.file("t.db"));
  const std::string args =
      "catalog offers --gpu V100 --provider aws --db '" + dir.file("t.db") + "'";
  const std::string cut = on_terminal(args);
  INFO(cut);
  CHECK(cut.find("\u2026") != std::string::npos);
  CHECK(cut.find("provider") != std::string::npos);
  CHECK(on_terminal(args + " --wide").find("\u2026") == std::string::npos);
  const auto piped = gpubill::testing::run_cli(args);
  REQUIRE(piped.status == 0);
  CHECK(piped.output.find("\u2026") == std::string::npos);
}
