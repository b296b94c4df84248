// replay --workers (ReplayOptions::workers, issue 25): a log replayed by 4 workers writes the
// rows one worker writes, with the numbers one worker gives them (event seqs, row ids), on
// SQLite and on PostgreSQL; on PostgreSQL, a replay whose connections are killed half-way and
// then run again, and two replays of one log at once, apply each event once and end with those
// rows and numbers.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "gpubill/replay/replay.hpp"
#include "gpubill/store/db.hpp"
#include "pg_test.hpp"
#include "replay_fixture.hpp"
#include "replay_generator.hpp"
#include "store/store.hpp"
#include "test_database.hpp"

// A namespace of its own, test cases included: the area's test files are one unity file.
namespace gpubill::testing::replay_workers {

// The rows of a query, one line each, every column as text ("NULL" for NULL); the columns
// named in `seq_columns` (0-based) hold event seqs ("3" or "3,7"), written as the events'
// account/id instead.
std::vector<std::string> rows(Database& db, const std::string& sql,
                              const std::map<std::int64_t, std::string>& events = {},
                              std::vector<int> seq_columns = {}) {
  store::Statement q(connection(db), sql);
  std::vector<std::string> out;
  while (q.executeStep()) {
    std::string line;
    for (int i = 0; i < q.getColumnCount(); ++i) {
      if (i > 0) line += "|";
      if (q.getColumn(i).isNull()) {
        line += "NULL";
        continue;
      }
      const std::string text = q.getColumn(i).getString();
      if (text.empty() ||
          std::find(seq_columns.begin(), seq_columns.end(), i) == seq_columns.end()) {
        line += text;
        continue;
      }
      std::size_t at = 0;
      while (at <= text.size()) {
        const std::size_t comma = std::min(text.find(',', at), text.size());
        if (at > 0) line += ",";
        line += events.at(std::stoll(text.substr(at, comma - at)));
        at = comma + 1;
      }
    }
    out.push_back(std::move(line));
  }
  return out;
}

// Every row replay writes but for their numbers: each account's rows in the order they were
// written (their ids), event seqs named by the events' account/id, a movement's charge by its
// key, an account's state by its clock (its saved state names row ids); the rejects sorted.
std::map<std::string, std::vector<std::string>> numberless(Database& db) {
  std::map<std::int64_t, std::string> events;
  for (const auto& line : rows(db, "SELECT seq, account || '/' || id FROM event")) {
    const auto bar = line.find('|');
    events[std::stoll(line.substr(0, bar))] = line.substr(bar + 1);
  }
  std::map<std::string, std::vector<std::string>> out;
  out["event"] = rows(db,
                      "SELECT account, id, time, type, instance, payload, source_file, "
                      "source_line, status FROM event ORDER BY account, seq");
  out["charge"] = rows(
      db,
      "SELECT account, instance, provider, region, instance_type, component, kind, mode, "
      "period_start, period_end, repeat, quantity, unit, unit_price, price_unit, exact_amount, "
      "billed_amount, rounding, total_exact, total_billed, currency, price_id, policy_id, "
      "discount_id, event_seqs, note, effective_amount FROM charge ORDER BY account, id",
      events, {24});
  out["movement"] =
      rows(db,
           "SELECT m.account, m.at, m.currency, m.amount, m.balance_after, m.kind, m.event_seq, "
           "c.instance, c.component, c.kind, c.period_start FROM balance_movement m LEFT JOIN "
           "charge c ON c.id = m.charge_id ORDER BY m.account, m.id",
           events, {6});
  out["state"] = rows(db,
                      "SELECT account, instance, at, state, reason, event_seq FROM "
                      "instance_state ORDER BY account, id",
                      events, {5});
  out["account"] = rows(db, "SELECT account, clock FROM account_state ORDER BY account");
  out["reject"] = rows(db,
                       "SELECT kind, source_file, source_line, account, event_id, time, field, "
                       "reason, raw, source_path FROM reject");
  std::sort(out["reject"].begin(), out["reject"].end());
  out["clock"] = rows(db, "SELECT clock FROM replay_clock");
  return out;
}

// Every row replay writes, numbers included, each table in the order of its numbers.
std::map<std::string, std::vector<std::string>> numbered(Database& db) {
  std::map<std::string, std::vector<std::string>> out;
  out["event"] = rows(db, "SELECT * FROM event ORDER BY seq");
  out["charge"] = rows(db, "SELECT * FROM charge ORDER BY id");
  out["movement"] = rows(db, "SELECT * FROM balance_movement ORDER BY id");
  out["state"] = rows(db, "SELECT * FROM instance_state ORDER BY id");
  out["account"] = rows(db, "SELECT * FROM account_state ORDER BY account");
  out["reject"] = rows(db, "SELECT * FROM reject ORDER BY id");
  out["run"] = rows(db, "SELECT * FROM replay_run ORDER BY id");
  out["clock"] = rows(db, "SELECT clock FROM replay_clock");
  out["plan"] = rows(db, "SELECT * FROM replay_plan");  // none left at the end
  return out;
}

void same(const std::map<std::string, std::vector<std::string>>& a,
          const std::map<std::string, std::vector<std::string>>& b) {
  for (const auto& [table, lines] : a) {
    const auto& other = b.at(table);
    INFO(table << ": " << lines.size() << " lines, then " << other.size());
    const std::size_t n = std::min(lines.size(), other.size());
    for (std::size_t i = 0; i < n; ++i) {
      if (lines[i] != other[i])
        FAIL(table << " line " << i << ":\n  " << lines[i] << "\n  " << other[i]);
    }
    CHECK(lines.size() == other.size());
  }
}

// A generated log of `accounts` accounts of 3 instances over `days` days (providers mixed; an
// odd seed runs into arrears), written into the fixture's directory.
struct Log {
  std::string path;
  std::size_t events = 0;
  Instant until{};
};

Log generated_log(ReplayFixture& f, int accounts, int days, std::uint64_t seed) {
  GeneratorOptions o = mixed_generator(seed);
  o.accounts = accounts;
  o.days = days;
  const GeneratedLog log = LogGenerator(o).generate();
  return {f.write_log("workers-" + std::to_string(seed) + ".jsonl",
                      join_lines(log.lines, 0, log.lines.size())),
          log.lines.size(), Instant(std::chrono::seconds(log.until))};
}

ReplayOptions with_workers(int n, std::optional<Instant> until = std::nullopt) {
  ReplayOptions o;
  o.workers = n;
  o.until = until;
  return o;
}

std::string summary(const ReplayReport& r) {
  return std::to_string(r.events_read) + " read, " + std::to_string(r.applied) + " applied, " +
         std::to_string(r.duplicates) + " duplicates, " + std::to_string(r.rejected) +
         " rejected, " + std::to_string(r.charge_rows) + " rows, " + std::to_string(r.settlements) +
         " settlements, clock " + (r.clock ? format_instant(*r.clock) : "-");
}

TEST_CASE("replay with 4 workers on SQLite writes the rows of one worker", "[replay][workers]") {
  for (std::uint64_t seed : {1, 2}) {
    INFO("seed " << seed);
    ReplayFixture one, four;
    const Log log = generated_log(one, 7, 4, seed);
    const ReplayReport r1 = replay_logs(one.db(), {log.path}, with_workers(1, log.until));
    ReplayOptions o4 = with_workers(4, log.until);
    std::vector<std::string> reports;
    o4.progress = [&](const Progress& p) {
      reports.push_back(std::string(p.stage) + " " + std::to_string(p.done) + "/" +
                        std::to_string(p.total) + " " + std::string(p.unit) + " " +
                        std::to_string(p.items) + " " + std::string(p.items_unit));
    };
    const ReplayReport r4 = replay_logs(four.db(), {log.path}, o4);
    CHECK(summary(r4) == summary(r1));
    CHECK(r1.charge_rows > 0);
    // The log read, then the 7 accounts simulated one by one, then written one by one.
    REQUIRE(reports.size() > 14);
    CHECK(reports.front().rfind("replay ", 0) == 0);
    CHECK(reports[reports.size() - 14].rfind("plan 1/7 accounts ", 0) == 0);
    CHECK(reports[reports.size() - 8] ==
          "plan 7/7 accounts " + std::to_string(log.events) + " events");
    CHECK(reports[reports.size() - 7].rfind("accounts 1/7 accounts ", 0) == 0);
    CHECK(reports.back() == "accounts 7/7 accounts " + std::to_string(log.events) + " events");
    same(numbered(one.db()), numbered(four.db()));
    // Once more: nothing new, on both.
    const ReplayReport again = replay_logs(four.db(), {log.path}, with_workers(4, log.until));
    CHECK(again.duplicates == static_cast<std::int64_t>(log.events));
    CHECK(again.charge_rows == 0);
    same(numbered(one.db()), numbered(four.db()));
  }
}

TEST_CASE(
    "the sample logs, JSON Lines and CSV, replayed by 4 workers on SQLite write the rows "
    "of one worker",
    "[replay][workers]") {
  std::vector<std::string> logs;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(GPUBILL_SOURCE_DIR) + "/fixtures/logs")) {
    const auto ext = entry.path().extension();
    if (ext == ".jsonl" || ext == ".csv") logs.push_back(entry.path().string());
  }
  std::sort(logs.begin(), logs.end());
  REQUIRE(logs.size() >= 10);
  ReplayFixture one, four;
  ReplayOptions o1 = with_workers(1, parse_instant("2019-07-01T00:00:00Z"));
  o1.skip_invalid = true;
  ReplayOptions o4 = o1;
  o4.workers = 4;
  const ReplayReport r1 = replay_logs(one.db(), logs, o1);
  const ReplayReport r4 = replay_logs(four.db(), logs, o4);
  CHECK(summary(r4) == summary(r1));
  CHECK(r1.duplicates > 0);
  CHECK(r1.rejected > 0);
  same(numbered(one.db()), numbered(four.db()));
}

TEST_CASE("replay with workers: a malformed line fails the replay before anything is written",
          "[replay][workers]") {
  ReplayFixture f;
  const Log log = generated_log(f, 3, 2, 2);
  const std::string bad = f.write_log("bad.jsonl", "{\"id\":\"x\",\"time\":\n");
  CHECK_THROWS_AS(replay_logs(f.db(), {log.path, bad}, with_workers(2)), InputError);
  CHECK(query_count(f.db(), "SELECT count(*) FROM event") == 0);
  CHECK(query_count(f.db(), "SELECT count(*) FROM account_state") == 0);
  // Skipped, it is quarantined once, in the last transaction.
  ReplayOptions skip = with_workers(2);
  skip.skip_invalid = true;
  const ReplayReport r = replay_logs(f.db(), {log.path, bad}, skip);
  CHECK(r.malformed_skipped == 1);
  CHECK(query_count(f.db(), "SELECT count(*) FROM reject WHERE kind = 'malformed'") == 1);
  CHECK(query_count(f.db(), "SELECT count(*) FROM event") == static_cast<std::int64_t>(log.events));
}

// ---- PostgreSQL ----

// A copy of the replay fixtures' PostgreSQL template (the bundled catalog), opened.
struct PgReplay {
  PgDatabase server{bundled_postgres_template()};
  Database open() const { return Database::open(server.url(), postgres_allowed()); }
};

TEST_CASE("replay with 4 workers on PostgreSQL writes the rows of one worker on SQLite",
          "[.][postgres][replay][workers]") {
  ReplayFixture sqlite;
  PgReplay pg;
  Database db = pg.open();
  const Log log = generated_log(sqlite, 9, 4, 1);
  const ReplayReport r1 = replay_logs(sqlite.db(), {log.path}, with_workers(1, log.until));
  const ReplayReport r4 = replay_logs(db, {log.path}, with_workers(4, log.until));
  CHECK(summary(r4) == summary(r1));
  same(numbered(sqlite.db()), numbered(db));
  CHECK(query_count(db, "SELECT count(*) FROM replay_run") == 1);
}

TEST_CASE(
    "a 4-worker replay on PostgreSQL whose connections are killed, run again, applies each "
    "event once",
    "[.][postgres][replay][workers]") {
  ReplayFixture sqlite;
  PgReplay pg;
  const Log log = generated_log(sqlite, 24, 6, 2);
  replay_logs(sqlite.db(), {log.path}, with_workers(1, log.until));

  std::optional<std::string> failure;
  std::thread replay([&] {
    try {
      Database db = pg.open();
      replay_logs(db, {log.path}, with_workers(4, log.until));
    } catch (const std::exception& e) {
      failure = e.what();
    }
  });
  // Once some accounts are in (committed), every other connection to the database is ended
  // (the workers' and the replay's own) as a server's crash would end them.
  auto watcher = pg.server.open();
  std::int64_t committed = 0;
  for (int i = 0; i < 20'000 && committed == 0; ++i) {
    store::Statement q(*watcher, "SELECT count(*) FROM account_state");
    REQUIRE(q.executeStep());
    committed = q.getColumn(0).getInt64();
    if (committed == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  store::Statement kill(*watcher,
                        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE "
                        "datname = current_database() AND pid <> pg_backend_pid()");
  REQUIRE(kill.executeStep());
  CHECK(kill.getColumn(0).getInt64() >= 1);
  kill.reset();
  replay.join();
  REQUIRE(failure);  // killed before the end
  INFO("the killed replay: " << *failure);
  Database db = pg.open();
  const std::int64_t kept = query_count(db, "SELECT count(*) FROM account_state");
  CHECK(kept >= committed);
  CHECK(kept < 24);  // not every account was in

  const ReplayReport rerun = replay_logs(db, {log.path}, with_workers(4, log.until));
  CHECK(rerun.duplicates ==
        query_count(db, "SELECT count(*) FROM event") - rerun.applied - rerun.rejected);
  CHECK(query_count(db, "SELECT count(*) FROM event") == static_cast<std::int64_t>(log.events));
  same(numbered(sqlite.db()), numbered(db));
}

TEST_CASE("two 2-worker replays of one log at once on PostgreSQL apply each event once",
          "[.][postgres][replay][workers]") {
  ReplayFixture sqlite;
  PgReplay pg;
  const Log log = generated_log(sqlite, 12, 4, 1);
  const ReplayReport r1 = replay_logs(sqlite.db(), {log.path}, with_workers(1, log.until));

  ReplayReport a, b;
  std::optional<std::string> failed_a, failed_b;
  const auto run = [&](ReplayReport& into, std::optional<std::string>& failure) {
    try {
      Database db = pg.open();
      into = replay_logs(db, {log.path}, with_workers(2, log.until));
    } catch (const std::exception& e) {
      failure = e.what();
    }
  };
  std::thread first(run, std::ref(a), std::ref(failed_a));
  std::thread second(run, std::ref(b), std::ref(failed_b));
  first.join();
  second.join();
  REQUIRE_FALSE(failed_a);
  REQUIRE_FALSE(failed_b);
  // Each event applied (or rejected) by one replay, found a duplicate by the other.
  CHECK(a.applied + b.applied == r1.applied);
  CHECK(a.rejected + b.rejected == r1.rejected);
  CHECK(a.duplicates + b.duplicates == static_cast<std::int64_t>(log.events) + r1.duplicates);
  CHECK(a.charge_rows + b.charge_rows == r1.charge_rows);
  Database db = pg.open();
  CHECK(query_count(db, "SELECT count(*) FROM event") == static_cast<std::int64_t>(log.events));
  same(numbered(sqlite.db()), numbered(db));
}

}  // namespace gpubill::testing::replay_workers
