// Several processes and connections on one database: first use, writers queueing behind a
// replay, and the message that names who holds the write lock.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <future>
#include <string>
#include <thread>

#include "gpubill/base/errors.hpp"
#include "gpubill/replay/replay.hpp"
#include "gpubill/store/db.hpp"
#include "store/store.hpp"
#include "store/write_transaction.hpp"
#include "temp_dir.hpp"

using namespace gpubill;
using gpubill::testing::TempDir;

namespace {

// Runs `processes` gpubill processes at once on `db` and returns one line per process: "ok", or
// "failed: " and what it printed on stderr.
std::string run_at_once(int processes, const std::string& db, const std::string& args) {
  std::string script = "for i in $(seq " + std::to_string(processes) + "); do ( err=$('" +
                       GPUBILL_CLI_PATH + "' --db '" + db + "' " + args +
                       " 2>&1 >/dev/null) && echo ok || echo \"failed: $(echo $err)\" ) & done; "
                       "wait";
  FILE* pipe = ::popen(script.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::string out;
  char buffer[512];
  std::size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
  ::pclose(pipe);
  return out;
}

}  // namespace

TEST_CASE("processes opening one new database at once all succeed", "[store][concurrency]") {
  // Before the migrations ran under the write lock with the version read inside it, 23 of 60
  // such processes failed with "table meta already exists" or "database is locked".
  for (int round = 0; round < 3; ++round) {
    TempDir dir;
    const std::string out = run_at_once(4, dir.file("new.db"), "init");
    INFO(out);
    CHECK(out.find("failed") == std::string::npos);
    CHECK(std::count(out.begin(), out.end(), '\n') == 4);
  }
}

TEST_CASE("a writer waits for the write lock and names who holds it when it gives up",
          "[store][concurrency]") {
  TempDir dir;
  const std::string path = dir.file("g.db");
  const std::string empty_log = dir.write("empty.jsonl", "");
  auto holder = Database::open(path);
  ReplayOptions options;
  options.until = parse_instant("2019-07-01", true);

  SECTION("gives up after the busy timeout, naming the holder") {
    WriteTransaction held(sqlite(holder), path, "catalog import");
    OpenOptions impatient;
    impatient.busy_timeout = std::chrono::milliseconds(50);
    auto waiter = Database::open(path, impatient);
    try {
      replay_logs(waiter, {empty_log}, options);
      FAIL("the replay did not wait for the lock");
    } catch (const StoreError& e) {
      const std::string expected =
          "is being written by a catalog import (pid " + std::to_string(::getpid()) + ") since ";
      CHECK_THAT(e.what(), Catch::Contains(expected) && Catch::Contains("GPUBILL_BUSY_TIMEOUT"));
    }
  }

  SECTION("a replay that reads before it writes queues behind another writer") {
    // The replay transaction was DEFERRED: it read, then failed at once ("database is locked")
    // when it came to write while another replay held the lock.
    std::promise<void> locked, release;
    std::thread other([&] {
      auto conn = Database::open(path);
      WriteTransaction tx(sqlite(conn), path, "replay");
      locked.set_value();
      release.get_future().wait();
      tx.commit();
    });
    locked.get_future().wait();
    auto waiter = Database::open(path);
    auto replay =
        std::async(std::launch::async, [&] { return replay_logs(waiter, {empty_log}, options); });
    // Still waiting while the other writer holds the lock (no failure within 200 ms).
    CHECK(replay.wait_for(std::chrono::milliseconds(200)) == std::future_status::timeout);
    release.set_value();
    other.join();
    const ReplayReport r = replay.get();
    REQUIRE(r.clock);
    CHECK(format_instant(*r.clock) == "2019-07-01T00:00:00Z");
  }

  SECTION("no note is left behind once the lock is released") {
    {
      WriteTransaction tx(sqlite(holder), path, "replay");
      CHECK(describe_lock_holder(path).rfind("a replay (pid ", 0) == 0);
    }
    CHECK(describe_lock_holder(path) == "another process");
  }
}
