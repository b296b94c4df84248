// Text tables fit the terminal: on a terminal (a pseudo-terminal made by script(1), 80 columns)
// columns are left out, cells cut or rows folded, but no name is cut; --wide, or output to a
// pipe, shows every column whole.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>

#include "cli_run.hpp"
#include "temp_dir.hpp"
#include "text_width.hpp"

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

TEST_CASE("text tables fit the terminal's width without cutting a name, unless --wide",
          "[cli][output]") {
  gpubill::testing::TempDir dir;
  gpubill::testing::ensure_database(dir.file("t.db"));
  const std::string args =
      "catalog offers --gpu V100 --provider aws --db '" + dir.file("t.db") + "'";
  const std::string fitted = on_terminal(args);
  INFO(fitted);
  CHECK(fitted.find("provider") != std::string::npos);
  // Left out to fit, and said so; the sources are numbered under the table.
  CHECK(fitted.find("left out to fit 80 columns") != std::string::npos);
  CHECK(fitted.find("[1] ") != std::string::npos);
  std::istringstream lines(fitted);
  for (std::string line; std::getline(lines, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.rfind("[", 0) == 0 || line.rfind("(", 0) == 0) continue;  // notes under it
    INFO(line);
    CHECK(gpubill::testing::display_columns(line) <= 80);
    CHECK(line.find("\u2026") == std::string::npos);  // provider, region, type, GPU whole
  }
  const std::string wide = on_terminal(args + " --wide");
  CHECK(wide.find("as_of") != std::string::npos);
  CHECK(wide.find("left out") == std::string::npos);
  const auto piped = gpubill::testing::run_cli(args);
  REQUIRE(piped.status == 0);
  CHECK(piped.output.find("\u2026") == std::string::npos);
  CHECK(piped.output.find("as_of") != std::string::npos);
}
