// The CLI on a PostgreSQL database (issue 25): `--db URL` and GPUBILL_DB=URL work as a file
// path does, with the same output; a command that only reads creates nothing on the server;
// no message shows the password. Against the test cluster (tests/support/pg_test.hpp).
#include <catch2/catch.hpp>

#include <string>

#include "cli_run.hpp"
#include "pg_test.hpp"
#include "temp_dir.hpp"

using namespace gpubill::testing;

namespace {

std::string quoted(const std::string& s) {
  return "'" + s + "'";
}

}  // namespace

TEST_CASE("init and quote on a PostgreSQL URL print what they print on an SQLite file",
          "[.][postgres][cli]") {
  PgDatabase pg;
  TempDir dir;
  const std::string file = db_flag(dir);
  const std::string url = " --db " + quoted(pg.url());

  const CliRun init = run_cli(url + " init", Stderr::discarded);
  REQUIRE(init.status == 0);
  CHECK(init.output.find("schema version") != std::string::npos);

  for (const std::string args :
       {"quote --gpu V100 --hours 720 --top 0 --format json",
        "quote --gpu A100 --count 8 --hours 26280 --format csv", "quote --gpu T4 --hours 100",
        "catalog offers --format csv", "catalog gpus", "catalog check"}) {
    INFO(args);
    const CliRun on_file = run_cli(file + " " + args, Stderr::discarded);
    const CliRun on_server = run_cli(url + " " + args, Stderr::discarded);
    CHECK(on_file.status == 0);
    CHECK(on_server.status == on_file.status);
    CHECK(on_server.output == on_file.output);
  }
  // The environment variable names it as well.
  const CliRun from_env = run_shell("GPUBILL_DB=" + quoted(pg.url()) + " '" + GPUBILL_CLI_PATH +
                                    "' quote --gpu V100 --hours 720 --top 0 --format json "
                                    "2>/dev/null");
  CHECK(from_env.status == 0);
  CHECK(from_env.output ==
        run_cli(file + " quote --gpu V100 --hours 720 --top 0 --format json", Stderr::discarded)
            .output);
}

TEST_CASE("a command that only reads creates nothing in an empty PostgreSQL database",
          "[.][postgres][cli]") {
  PgDatabase pg;
  const CliRun r = run_cli("--db " + quoted(pg.url()) + " quote --gpu V100 --hours 1");
  CHECK(r.status == 1);
  CHECK_THAT(r.output, Catch::Contains("holds no gpubill database: a command that only reads "
                                       "does not create one (`gpubill init` creates one"));
  auto conn = pg.open();
  gpubill::store::Statement tables(
      *conn, "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'");
  REQUIRE(tables.executeStep());
  CHECK(tables.getColumn(0).getInt64() == 0);
}

TEST_CASE("a PostgreSQL password never appears in what the CLI prints", "[.][postgres][cli]") {
  PgDatabase pg;
  // The test cluster trusts the user gpubill (the password is not checked) and asks gpubill_pw
  // for one (scripts/pg_cluster.sh), which this password is not.
  const CliRun init =
      run_cli("--db " + quoted(with_param(pg.url(), "password=s3cretCli")) + " init");
  CHECK(init.status == 0);
  CHECK(init.output.find("s3cretCli") == std::string::npos);
  CHECK_THAT(init.output, Catch::Contains("password=***"));
  const CliRun wrong =
      run_cli("--db " + quoted(with_param(pg.url(), "user=gpubill_pw&password=n0tThat1")) +
              " quote --gpu V100 --hours 1");
  CHECK(wrong.status == 1);
  CHECK(wrong.output.find("n0tThat1") == std::string::npos);
  CHECK_THAT(wrong.output, Catch::StartsWith("gpubill: cannot connect to PostgreSQL database"));
}
