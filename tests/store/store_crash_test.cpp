// A replay killed at any point leaves the database as before it or as after it, never between;
// writers running at once apply every event exactly once, and readers run beside them.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <SQLiteCpp/SQLiteCpp.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "replay_generator.hpp"
#include "temp_dir.hpp"

extern char** environ;

using namespace gpubill::testing;

namespace {

pid_t spawn_cli(const std::vector<std::string>& args) {
  std::vector<std::string> all = {GPUBILL_CLI_PATH};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  REQUIRE(rc == 0);
  return pid;
}

int wait_for(pid_t pid) {
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

int run_cli_args(const std::vector<std::string>& args) {
  return wait_for(spawn_cli(args));
}

// The rows a replay writes, without ids and seqs (they depend on the order of the writers).
std::string rows(const std::string& db_path) {
  SQLite::Database db(db_path, SQLite::OPEN_READONLY);
  std::vector<std::string> lines;
  const auto collect = [&](const std::string& sql) {
    SQLite::Statement q(db, sql);
    while (q.executeStep()) {
      std::string line;
      for (int c = 0; c < q.getColumnCount(); ++c) {
        line += (q.getColumn(c).isNull() ? "NULL" : q.getColumn(c).getString()) + "|";
      }
      lines.push_back(line);
    }
  };
  collect(
      "SELECT 'charge', account, instance, component, kind, mode, period_start, period_end, "
      "repeat, exact_amount, billed_amount, total_billed, currency FROM charge");
  collect(
      "SELECT 'movement', account, at, currency, amount, balance_after, kind FROM "
      "balance_movement");
  collect("SELECT 'state', account, instance, at, state, reason FROM instance_state");
  collect("SELECT 'event', account, id, time, type, payload, status FROM event");
  collect("SELECT 'clock', clock FROM replay_clock");
  std::sort(lines.begin(), lines.end());
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

std::int64_t events_in(const std::string& db_path) {
  SQLite::Database db(db_path, SQLite::OPEN_READONLY);
  return db.execAndGet("SELECT count(*) FROM event").getInt64();
}

// A generated log whose accounts are named with `prefix`.
std::string log_text(std::uint64_t seed, const std::string& prefix, int accounts, int days) {
  GeneratorOptions o = mixed_generator(seed);
  o.accounts = accounts;
  o.instances_per_account = 4;
  o.days = days;
  const auto log = LogGenerator(o).generate();
  std::string text = join_lines(log.lines, 0, log.lines.size());
  for (std::size_t at = text.find("\"acct"); at != std::string::npos;
       at = text.find("\"acct", at + prefix.size() + 5)) {
    text.replace(at + 1, 4, prefix + "acct");
  }
  return text;
}

}  // namespace

TEST_CASE("a replay killed at 20 points leaves all of it or none of it", "[store][crash]") {
  TempDir dir;
  const std::string log = dir.write("big.jsonl", log_text(11, "k", 12, 20));
  const std::string until = "2021-04-25T00:00:00Z";
  const std::string base = dir.file("base.db");
  REQUIRE(run_cli_args({"--db", base, "init"}) == 0);  // the catalog, loaded once
  const std::string reference = dir.file("reference.db");
  std::filesystem::copy_file(base, reference);
  const auto started = std::chrono::steady_clock::now();
  REQUIRE(run_cli_args({"--db", reference, "replay", log, "--until", until}) == 0);
  const auto full = std::chrono::steady_clock::now() - started;
  const std::string expected = rows(reference);
  const std::int64_t all_events = events_in(reference);
  REQUIRE(all_events > 1000);

  int before_commit = 0;
  for (int k = 0; k < 20; ++k) {
    const std::string db = dir.file("killed-" + std::to_string(k) + ".db");
    std::filesystem::copy_file(base, db);
    // Spread over the replay's own duration, measured above, denser early: the commit comes
    // well before the process ends (closing the database checkpoints its log), and most kills
    // should land before it.
    const auto delay = full * ((k + 1) * (k + 1)) / (21 * 21);
    const pid_t pid = spawn_cli({"--db", db, "replay", log, "--until", until});
    std::this_thread::sleep_for(delay);
    ::kill(pid, SIGKILL);
    wait_for(pid);
    const std::int64_t n = events_in(db);
    INFO("kill " << k << " after " << std::chrono::duration<double>(delay).count() << " s");
    CHECK((n == 0 || n == all_events));
    if (n == 0) ++before_commit;
    // Replaying again finishes the job: the same rows as one uninterrupted replay.
    REQUIRE(run_cli_args({"--db", db, "replay", log, "--until", until}) == 0);
    CHECK(rows(db) == expected);
  }
  // Not a pass condition (timing varies), but the point of the spread: say where kills landed.
  WARN(before_commit << " of 20 kills landed before the commit");
}

TEST_CASE("writers at once apply every event exactly once, readers beside them",
          "[store][concurrency]") {
  TempDir dir;
  const std::string base = dir.file("base.db");
  REQUIRE(run_cli_args({"--db", base, "init"}) == 0);
  std::vector<std::string> logs;
  for (int w = 0; w < 3; ++w) {
    logs.push_back(
        dir.write("w" + std::to_string(w) + ".jsonl",
                  log_text(20 + static_cast<std::uint64_t>(w), "w" + std::to_string(w), 4, 5)));
  }
  const std::string until = "2021-04-05T00:00:00Z";
  // The reference: the logs one after another.
  const std::string serial = dir.file("serial.db");
  std::filesystem::copy_file(base, serial);
  for (const auto& l : logs) REQUIRE(run_cli_args({"--db", serial, "replay", l}) == 0);
  REQUIRE(run_cli_args({"--db", serial, "replay", logs[0], "--until", until}) == 0);
  const std::string expected = rows(serial);

  for (int writers : {2, 4}) {
    INFO(writers << " writers");
    const std::string db = dir.file("at-once-" + std::to_string(writers) + ".db");
    std::filesystem::copy_file(base, db);
    std::vector<pid_t> pids;
    // Four writers: the fourth replays the first log again, at the same time (exactly once).
    for (int w = 0; w < writers; ++w) {
      pids.push_back(spawn_cli({"--db", db, "replay", logs[static_cast<std::size_t>(w % 3)]}));
    }
    std::vector<pid_t> readers;
    for (int r = 0; r < 3; ++r) {
      readers.push_back(spawn_cli({"--db", db, "charges", "--format", "csv"}));
      readers.push_back(spawn_cli({"--db", db, "instances", "--current"}));
    }
    for (pid_t p : pids) CHECK(wait_for(p) == 0);
    for (pid_t p : readers) CHECK(wait_for(p) == 0);
    // The logs nobody replayed yet (two writers), then the same closing replay.
    for (int w = writers; w < 3; ++w) {
      REQUIRE(run_cli_args({"--db", db, "replay", logs[static_cast<std::size_t>(w)]}) == 0);
    }
    REQUIRE(run_cli_args({"--db", db, "replay", logs[0], "--until", until}) == 0);
    CHECK(rows(db) == expected);
  }
}
