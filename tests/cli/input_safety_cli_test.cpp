// What a user imports or types cannot corrupt a settled bill, and no output is lost silently
// (issue 31): the cases that change the database or need more than one command, so that the
// bad-input corpus (which checks that a failed command leaves the database as it was) cannot
// hold them.
#include <catch2/catch.hpp>

#include <SQLiteCpp/SQLiteCpp.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_run.hpp"
#include "temp_dir.hpp"

using namespace gpubill::testing;

namespace {

std::string q(const std::string& s) {
  return "'" + s + "'";
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::int64_t count(const std::string& db, const std::string& sql) {
  SQLite::Database d(db, SQLite::OPEN_READONLY);
  return d.execAndGet(sql).getInt64();
}

// A database holding the tencent-gn8 sample replayed through March 2019.
std::string replayed(const TempDir& dir) {
  const std::string db = dir.file("g.db");
  const CliRun r = run_cli("--db " + q(db) + " replay " + GPUBILL_SOURCE_DIR +
                               "/fixtures/logs/tencent-gn8.jsonl --until 2019-04-01T00:00:00+08:00",
                           Stderr::discarded);
  REQUIRE(r.status == 0);
  return db;
}

}  // namespace

TEST_CASE("a replayed event in a region the provider does not have is rejected",
          "[cli][replay][input]") {
  TempDir dir;
  const std::string db = dir.file("r.db");
  const std::string log = dir.write(
      "mars.jsonl",
      R"({"id":"t1","time":"2019-03-01T09:00:00+08:00","type":"topup","account":"acme","amount":"1000.00","currency":"CNY"}
{"id":"c1","time":"2019-03-01T10:00:00+08:00","type":"create","account":"acme","instance":"a","provider":"tencent","region":"ap-mars-1","instance_type":"GN8.LARGE56","mode":"payg"}
)");
  const CliRun r = run_cli("--db " + q(db) + " replay " + q(log), Stderr::discarded);
  CHECK(r.status == 0);
  CHECK(count(db, "SELECT count(*) FROM charge") == 0);
  SQLite::Database d(db, SQLite::OPEN_READONLY);
  const std::string reason = d.execAndGet("SELECT reason FROM reject").getString();
  CHECK_THAT(reason, Catch::Contains("unknown region 'ap-mars-1' of provider 'tencent' (closest "
                                     "known: "));
}

TEST_CASE("replaying a log a second time adds no replay run", "[cli][replay][input]") {
  TempDir dir;
  const std::string db = replayed(dir);
  const std::int64_t runs = count(db, "SELECT count(*) FROM replay_run");
  const CliRun again = run_cli("--db " + q(db) + " replay " + GPUBILL_SOURCE_DIR +
                                   "/fixtures/logs/tencent-gn8.jsonl --until "
                                   "2019-04-01T00:00:00+08:00",
                               Stderr::discarded);
  CHECK(again.status == 0);
  CHECK(count(db, "SELECT count(*) FROM replay_run") == runs);
}

TEST_CASE("a report replaces a report gpubill wrote, and another file only with --force",
          "[cli][report][input]") {
  TempDir dir;
  const std::string db = replayed(dir);
  const std::string out = dir.file("bill.html");
  const std::string command =
      "--db " + q(db) + " report bill --account demo --month 2019-03 -o " + q(out);
  REQUIRE(run_cli(command).status == 0);
  const std::string page = read_file(out);
  CHECK(run_cli(command).status == 0);  // its own report: replaced
  CHECK(read_file(out) == page);

  const std::string mine = dir.write("notes.html", "my notes\n");
  const CliRun refused =
      run_cli("--db " + q(db) + " report bill --account demo --month 2019-03 -o " + q(mine));
  CHECK(refused.status == 1);
  CHECK(refused.output == "gpubill: " + mine +
                              ": field '--output': exists and is not a report gpubill wrote: give "
                              "another file, or --force to replace it\n");
  CHECK(read_file(mine) == "my notes\n");
  CHECK(
      run_cli("--db " + q(db) + " report bill --account demo --month 2019-03 --force -o " + q(mine))
          .status == 0);
  CHECK(read_file(mine) == page);
  // Written through a temporary file renamed over it: nothing else is left in the directory.
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir.path())) {
    files += e.path().filename().string().find(".gpubill-") == std::string::npos ? 0 : 1;
  }
  CHECK(files == 0);
}

TEST_CASE("read-only commands work on a read-only database in a read-only directory",
          "[cli][store][input]") {
  TempDir dir;
  const std::string db = replayed(dir);
  REQUIRE(!std::filesystem::exists(db + "-wal"));  // checkpointed when the replay closed it
  const std::string bill =
      run_cli("--db " + q(db) + " bill --account demo --month 2019-03", Stderr::discarded).output;
  REQUIRE(!bill.empty());
  std::filesystem::permissions(
      dir.path(), std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec |
                      std::filesystem::perms::others_read | std::filesystem::perms::others_exec);
  std::filesystem::permissions(
      db, std::filesystem::perms::owner_read | std::filesystem::perms::others_read);
  // Root may write anywhere: run as nobody then.
  const std::string as_user =
      ::geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
  const CliRun r = run_shell(as_user + "'" + GPUBILL_CLI_PATH + "' --db " + q(db) +
                             " bill --account demo --month 2019-03 2>&1");
  std::filesystem::permissions(dir.path(), std::filesystem::perms::owner_all);
  std::filesystem::permissions(
      db, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  CHECK(r.status == 0);
  CHECK(r.output == bill);
}

TEST_CASE("catalog import --redefine lists what it changes", "[cli][catalog][pinned]") {
  TempDir dir;
  const std::string db = replayed(dir);
  const std::string file = dir.write("zone.json", R"({"format": "gpubill-catalog/1", "providers": [
    {"id": "tencent", "name": "Tencent Cloud", "currency": "CNY", "billing_time_zone": "UTC"}]})");
  const CliRun refused = run_cli("--db " + q(db) + " catalog import " + q(file));
  CHECK(refused.status == 1);
  CHECK_THAT(refused.output, Catch::Contains("pass --redefine to change it"));
  const CliRun done = run_cli("--db " + q(db) + " catalog import --redefine " + q(file));
  CHECK(done.status == 0);
  CHECK_THAT(done.output, Catch::Contains("note: redefined provider tencent: billing_time_zone "
                                          "Asia/Shanghai → UTC; provider tencent is used by"));
}
