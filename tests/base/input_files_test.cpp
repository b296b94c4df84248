// Files named on the command line: a directory, a missing file, a log every line of which is
// refused, and the same log reached by different spellings of its path.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <SQLiteCpp/SQLiteCpp.h>

#include <filesystem>

#include "cli_run.hpp"
#include "gpubill/base/errors.hpp"
#include "gpubill/base/input_file.hpp"
#include "gpubill/quote/workload.hpp"
#include "gpubill/store/db.hpp"
#include "replay_fixture.hpp"

using namespace gpubill;
using namespace gpubill::testing;

TEST_CASE("a directory or a missing file is named as such", "[input][files]") {
  TempDir dir;
  std::filesystem::create_directories(dir.file("logs.jsonl"));
  ReplayFixture f;
  // Before: "line 1: read error" for a log, "invalid JSON" for a workload.
  CHECK_THROWS_WITH(replay_logs(f.db(), {dir.file("logs.jsonl")}),
                    dir.file("logs.jsonl") + ": is a directory, not a file");
  CHECK_THROWS_WITH(load_workload_file(dir.path().string()),
                    dir.path().string() + ": is a directory, not a file");
  CHECK_THROWS_WITH(read_input_file(dir.file("none.json")),
                    dir.file("none.json") + ": no such file");
}

TEST_CASE("the same malformed line is quarantined once, however its path is spelt",
          "[input][files][replay]") {
  ReplayFixture f;
  const std::string log = f.write_log("x.jsonl", "{not json\n");
  std::filesystem::create_directories(f.dir().file("sub"));
  ReplayOptions o;
  o.skip_invalid = true;
  for (const std::string& spelling :
       {log, f.dir().file("./x.jsonl"), f.dir().file("sub/../x.jsonl")}) {
    const ReplayReport r = replay_logs(f.db(), {spelling}, o);
    CHECK(r.malformed_skipped == 1);
  }
  CHECK(f.rejects().size() == 1);
}

TEST_CASE("a replay that applies none of its events fails", "[input][files][cli]") {
  TempDir dir;
  const std::string db = " --db " + dir.file("t.db");
  const std::string log = dir.write(
      "unknown.jsonl",
      R"({"id":"c1","time":"2019-03-01T10:00:00+08:00","type":"create","account":"a","instance":"i","provider":"tencent","region":"ap-guangzhou","instance_type":"GN99.HUGE","mode":"payg"})"
      "\n");
  auto r = run_cli("replay " + log + db, Stderr::merged);
  CHECK(r.status == 1);
  CHECK_THAT(r.output, Catch::Contains("gpubill: none of the 1 events was applied (1 rejected by "
                                       "the rules, 0 malformed); see `gpubill rejects`"));
  // A log replayed again (every event a duplicate) is not a failure.
  const std::string good = dir.write(
      "good.jsonl",
      R"({"id":"t1","time":"2019-03-01T09:00:00+08:00","type":"topup","account":"b","amount":"10","currency":"CNY"})"
      "\n");
  CHECK(run_cli("replay " + good + db).status == 0);
  CHECK(run_cli("replay " + good + db).status == 0);
}

TEST_CASE("another program's SQLite file is not taken over", "[input][files][store]") {
  TempDir dir;
  const std::string path = dir.file("notes.db");
  {
    SQLite::Database other(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    other.exec("CREATE TABLE notes(id INTEGER PRIMARY KEY, text TEXT)");
  }
  const auto size = std::filesystem::file_size(path);
  CHECK_THROWS_WITH(Database::open(path),
                    "database '" + path +
                        "' is an SQLite file of another program (it has tables but no gpubill "
                        "schema version); give gpubill a file of its own");
  CHECK(std::filesystem::file_size(path) == size);
  // Before: `gpubill --db notes.db charges` wrote gpubill's schema and 6.9 MB of catalog into it.
  const auto r = run_cli("charges --db " + path);
  CHECK(r.status == 1);
}

TEST_CASE("an empty --db is refused", "[input][files][cli]") {
  // SQLite takes "" for a private temporary database: a replay into it was lost silently.
  const auto r = run_cli("--db '' charges");
  CHECK(r.status == 1);
  CHECK(r.output == "gpubill: --db is empty: give the database file\n");
}

TEST_CASE("a log read from a named pipe is read once", "[input][files][cli]") {
  TempDir dir;
  const std::string fifo = dir.file("pipe.jsonl");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const std::string line =
      R"({"id":"t1","time":"2019-03-01T09:00:00+08:00","type":"topup","account":"p","amount":"1","currency":"CNY"})";
  // Opening the file twice (a trial open, then the read) waited for a second writer forever.
  const auto r = run_cli("replay --format json " + fifo + " --db " + dir.file("t.db") +
                         " & printf '%s\\n' '" + line + "' > " + fifo + "; wait");
  CHECK(r.output.find(R"("applied": 1)") != std::string::npos);
}
