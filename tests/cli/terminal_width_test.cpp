// Text tables fit the terminal: on a terminal (a pseudo-terminal made by script(1), 80 columns)
// columns are left out, cells cut or rows folded, but no name is cut, and the notes under the
// table are wrapped to its width; --wide, or output to a pipe, shows every column whole.
#include <catch2/catch.hpp>

#include <string>

#include "cli_run.hpp"
#include "temp_dir.hpp"
#include "terminal_run.hpp"
#include "text_width.hpp"

TEST_CASE("text tables fit the terminal's width without cutting a name, unless --wide",
          "[cli][output]") {
  gpubill::testing::TempDir dir;
  gpubill::testing::ensure_database(dir.file("t.db"));
  const std::string args =
      "catalog offers --gpu V100 --provider aws --db '" + dir.file("t.db") + "'";
  const std::string fitted = gpubill::testing::on_terminal(args, 80).output;
  INFO(fitted);
  CHECK(fitted.find("provider") != std::string::npos);
  // Left out to fit, and said so; the sources are numbered under the table.
  CHECK(fitted.find("left out to fit 80 columns") != std::string::npos);
  CHECK(fitted.find("[1] ") != std::string::npos);
  for (const auto& line : gpubill::testing::lines_of(fitted)) {
    INFO(line);
    CHECK(gpubill::testing::display_columns(line) <= 80);  // the notes under it too
    CHECK(line.find("\u2026") == std::string::npos);       // provider, region, type, GPU whole
  }
  // A source longer than a line is broken after a '/' and goes on under its number.
  CHECK(fitted.find(":pkg/\n     providers/pricing/") != std::string::npos);
  const std::string wide = gpubill::testing::on_terminal(args + " --wide", 80).output;
  CHECK(wide.find("as_of") != std::string::npos);
  CHECK(wide.find("left out") == std::string::npos);
  const auto piped = gpubill::testing::run_cli(args);
  REQUIRE(piped.status == 0);
  CHECK(piped.output.find("\u2026") == std::string::npos);
  CHECK(piped.output.find("as_of") != std::string::npos);
}
