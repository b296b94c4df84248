// A mistyped command or flag is named as unknown, with the closest real one (issue 30 item 7).
#include <catch2/catch.hpp>

#include <string>

#include "cli_run.hpp"

using gpubill::testing::run_cli;

TEST_CASE("an unknown command suggests the closest one", "[cli][usage]") {
  const auto r = run_cli("qoute --gpu V100");
  INFO(r.output);
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Catch::Contains("unknown command 'qoute'"));
  CHECK_THAT(r.output, Catch::Contains("did you mean `quote`?"));
  CHECK_THAT(r.output, !Catch::Contains("A subcommand is required"));
}

TEST_CASE("an unknown subcommand of catalog suggests the closest one", "[cli][usage]") {
  const auto r = run_cli("catalog offer --gpu V100");
  INFO(r.output);
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Catch::Contains("unknown command 'offer' for gpubill catalog"));
  CHECK_THAT(r.output, Catch::Contains("`offers`"));
}

TEST_CASE("a mistyped flag suggests the closest one", "[cli][usage]") {
  const auto r = run_cli("quote --gpu V100 --curency USD --at 2026-07-13");
  INFO(r.output);
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Catch::Contains("unknown flag --curency"));
  CHECK_THAT(r.output, Catch::Contains("did you mean `--currency`?"));
}

TEST_CASE("a command that needs a subcommand lists them", "[cli][usage]") {
  const auto r = run_cli("catalog");
  INFO(r.output);
  CHECK(r.status == 2);
  CHECK_THAT(r.output, Catch::Contains("gpubill catalog needs a command: "));
  CHECK_THAT(r.output, Catch::Contains("offers"));
}
