// Replay, rebuild and void on PostgreSQL (issue 25, porting plan step 3): the sample logs of
// fixtures/logs (Tencent, Alibaba, AWS, Google, Huawei; JSON Lines and CSV) replayed into a
// PostgreSQL database write the rows they write into SQLite — every column of every charge,
// balance movement, state change, event, reject, account state and replay run, with the same
// ids and event seqs; a log replayed twice applies each event once and spends no seq; a rebuild
// and a void give what they give on SQLite; and a log replayed in two parts equals the log
// replayed whole. Against the test cluster of scripts/pg_cluster.sh (tests/support/pg_test.hpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "gpubill/base/time.hpp"
#include "gpubill/catalog/catalog.hpp"
#include "gpubill/catalog/catalog_import.hpp"
#include "gpubill/replay/replay.hpp"
#include "gpubill/store/db.hpp"
#include "pg_test.hpp"
#include "replay/replay_sink.hpp"
#include "replay_fixture.hpp"
#include "replay_generator.hpp"
#include "store/connection.hpp"
#include "store/store.hpp"

// A namespace of its own, test cases included: the test files of an area are built as one unity
// file, where another file's anonymous helpers (sample, kUntil) would clash with these.
namespace gpubill::testing::replay_pg {

// A sample log's path; google-v100-gcp.jsonl is google-v100.jsonl for account `gcp`.
std::string sample(const std::string& name) {
  const std::string dir = std::string(GPUBILL_SOURCE_DIR) + "/fixtures/logs/";
  if (name != "google-v100-gcp.jsonl") return dir + name;
  static const TempDir tmp;
  static const std::string path = [&] {
    std::ifstream in(dir + "google-v100.jsonl");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string from = "\"account\":\"lab\"", to = "\"account\":\"gcp\"";
    for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at)) {
      text.replace(at, from.size(), to);
    }
    return tmp.write(name, text);
  }();
  return path;
}

// The sample logs in two replays (two runs), the second settling up to the README's --until.
// google-v100.jsonl's account `lab` is also tencent-gn8-arrears.jsonl's, and its ids were used
// there for other events: rejected as duplicates, it is also replayed as account `gcp`.
const std::vector<std::string> kFirstRun = {"tencent-gn8.jsonl", "tencent-gn8-tutorial.jsonl",
                                            "tencent-gn8-payg.jsonl", "tencent-gn8-arrears.jsonl",
                                            "report-month.jsonl"};
const std::vector<std::string> kSecondRun = {"alibaba-gn5.jsonl", "aws-p3.jsonl",
                                             "google-v100.jsonl", "google-v100-gcp.jsonl",
                                             "huawei-p2.jsonl",   "tencent-gn8-prepaid.csv"};
constexpr const char* kUntil = "2019-07-01T00:00:00+08:00";

std::vector<std::string> paths(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const auto& n : names) out.push_back(sample(n));
  return out;
}

// Every table replay writes, every column, in id (seq) order: two databases that replayed the
// same logs from the same catalog have the same lines, ids included.
std::map<std::string, std::vector<std::string>> tables(Database& db) {
  std::map<std::string, std::vector<std::string>> out;
  out["event"] = query_lines(db,
                             "SELECT seq, account, id, time, type, instance, payload, source_file, "
                             "source_line, status FROM event ORDER BY seq");
  out["charge"] = query_lines(
      db,
      "SELECT id, account, instance, provider, region, instance_type, component, kind, mode, "
      "period_start, period_end, repeat, quantity, unit, unit_price, price_unit, exact_amount, "
      "billed_amount, rounding, total_exact, total_billed, currency, price_id, policy_id, "
      "discount_id, event_seqs, note, effective_amount FROM charge ORDER BY id");
  out["balance_movement"] =
      query_lines(db,
                  "SELECT id, account, at, currency, amount, balance_after, kind, "
                  "charge_id, event_seq FROM balance_movement ORDER BY id");
  out["instance_state"] = query_lines(
      db,
      "SELECT id, account, instance, at, state, reason, event_seq FROM instance_state ORDER "
      "BY id");
  out["account_state"] = query_lines(db,
                                     "SELECT account, clock, state FROM account_state ORDER BY "
                                     "account");
  out["reject"] =
      query_lines(db,
                  "SELECT id, kind, source_file, source_line, account, event_id, time, field, "
                  "reason, raw, source_path FROM reject ORDER BY id");
  out["replay_run"] = query_lines(db, "SELECT id, last_seq, until FROM replay_run ORDER BY id");
  out["replay_clock"] = query_lines(db, "SELECT one, clock FROM replay_clock");
  out["event_void"] = query_lines(db, "SELECT seq, reason FROM event_void ORDER BY seq");
  return out;
}

// The same without the row ids a rebuild gives anew (SQLite numbers a table's rows from its
// largest id, PostgreSQL from a sequence that does not go back) and without the files read (a
// split log is read from two): each line sorted, a movement's charge named by its key, an
// account state by its clock (its saved state names row ids).
std::vector<std::string> portable(Database& db) {
  std::vector<std::string> out;
  const auto add = [&](const std::string& table, const std::string& sql) {
    for (auto& l : query_lines(db, sql)) out.push_back(table + "|" + l);
  };
  add("event", "SELECT seq, account, id, time, type, instance, payload, status FROM event");
  add("charge",
      "SELECT account, instance, provider, region, instance_type, component, kind, mode, "
      "period_start, period_end, repeat, quantity, unit, unit_price, price_unit, exact_amount, "
      "billed_amount, rounding, total_exact, total_billed, currency, price_id, policy_id, "
      "discount_id, event_seqs, note, effective_amount FROM charge");
  add("movement",
      "SELECT m.account, m.at, m.currency, m.amount, m.balance_after, m.kind, m.event_seq, "
      "c.instance, c.component, c.kind, c.period_start FROM balance_movement m LEFT JOIN charge c "
      "ON c.id = m.charge_id");
  add("state", "SELECT account, instance, at, state, reason, event_seq FROM instance_state");
  add("account", "SELECT account, clock FROM account_state");
  add("reject", "SELECT kind, account, event_id, time, field, reason, raw FROM reject");
  add("run", "SELECT last_seq, until FROM replay_run");
  add("clock", "SELECT clock FROM replay_clock");
  add("void", "SELECT seq, reason FROM event_void");
  std::sort(out.begin(), out.end());
  return out;
}

// Fails naming the first line that differs.
void same_lines(const std::vector<std::string>& a, const std::vector<std::string>& b,
                const std::string& what) {
  INFO(what << ": SQLite " << a.size() << " lines, PostgreSQL " << b.size());
  const std::size_t n = std::min(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) FAIL(what << " line " << i << ":\n  " << a[i] << "\n  " << b[i]);
  }
  CHECK(a.size() == b.size());
}

void same_tables(Database& sqlite_db, Database& pg_db) {
  const auto a = tables(sqlite_db);
  const auto b = tables(pg_db);
  for (const auto& [table, lines] : a) same_lines(lines, b.at(table), table);
}

std::string summary(const ReplayReport& r) {
  return std::to_string(r.events_read) + " read, " + std::to_string(r.applied) + " applied, " +
         std::to_string(r.duplicates) + " duplicates, " + std::to_string(r.rejected) +
         " rejected, " + std::to_string(r.malformed_skipped) + " malformed, " +
         std::to_string(r.charge_rows) + " rows, " + std::to_string(r.settlements) +
         " settlements, clock " + (r.clock ? format_instant(*r.clock) : "-");
}

std::string summary(const RebuildReport& r) {
  std::string out = summary(r.replay) + "; void " + std::to_string(r.void_events) + "; before " +
                    (r.clock_before ? format_instant(*r.clock_before) : "-") + "; accounts";
  for (const auto& a : r.accounts) out += " " + a;
  for (const auto& m : r.moved) {
    out += "\nmoved " + m.account + " " + m.instance + " " + m.component + " " + m.kind + " " +
           format_instant(m.period_start) + " " + (m.before ? m.before->to_string() : "-") + " → " +
           (m.after ? m.after->to_string() : "-");
  }
  return out;
}

// A PostgreSQL database made once per test process with the catalog of ReplayFixture's template
// (the bundled catalog, then tests/data/spot-rule-prices.json), copied for each test with CREATE
// DATABASE … TEMPLATE: importing the catalog every time would take most of the tests' time.
const PgDatabase& pg_template() {
  static const PgDatabase db;
  static const bool filled = [] {
    OpenOptions o;
    o.allow_postgres = true;
    Database d = Database::open(db.url(), o);
    ensure_bundled_catalog(d);
    import_catalog_file(d, data_path("spot-rule-prices.json"));
    return true;
  }();
  (void)filled;
  return db;
}

// A new database on the test server with the template's catalog, dropped when this goes.
class PgReplayDb {
 public:
  PgReplayDb() : name_(next_name()) {
    const std::string from = pg_template().name();
    admin_ = store::Connection::open(pg_server_url());
    admin_->exec_native("CREATE DATABASE " + name_ + " TEMPLATE " + from);
    OpenOptions o;
    o.allow_postgres = true;
    url_ = with_param(pg_server_url(), "dbname=" + name_);
    db_.emplace(Database::open(url_, o));
  }
  ~PgReplayDb() {
    db_.reset();
    try {
      admin_->exec_native("DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)");
    } catch (...) {
    }
  }
  PgReplayDb(const PgReplayDb&) = delete;
  PgReplayDb& operator=(const PgReplayDb&) = delete;
  Database& db() { return *db_; }
  const std::string& url() const { return url_; }

 private:
  static std::string next_name() {
    static std::atomic<int> counter{0};
    return "gpubill_test_" + std::to_string(::getpid()) + "_replay_" + std::to_string(++counter);
  }
  std::string name_, url_;
  std::unique_ptr<store::Connection> admin_;
  std::optional<Database> db_;
};

// The sample logs replayed on `db` (two runs), with the Huawei test prices imported first.
std::vector<ReplayReport> replay_samples(Database& db) {
  import_catalog_file(db, data_path("huawei-fake-prices.json"));
  std::vector<ReplayReport> out;
  out.push_back(replay_logs(db, paths(kFirstRun)));
  ReplayOptions o;
  o.until = parse_instant(kUntil);
  out.push_back(replay_logs(db, paths(kSecondRun), o));
  return out;
}

TEST_CASE("the sample logs replayed into PostgreSQL write every row they write into SQLite",
          "[.][postgres][replay]") {
  ReplayFixture on_sqlite;
  PgReplayDb on_pg;
  const auto ra = replay_samples(on_sqlite.db());
  const auto rb = replay_samples(on_pg.db());
  REQUIRE(ra.size() == rb.size());
  for (std::size_t i = 0; i < ra.size(); ++i) CHECK(summary(rb[i]) == summary(ra[i]));
  CHECK(ra[1].applied == 19);
  CHECK(ra[1].duplicates == 2);  // google-v100.jsonl for account lab, whose ids c1 and d1 were used
  CHECK(ra[0].rejected > 0);     // the destroy of a prepaid GN8 before expiry, the arrears start
  same_tables(on_sqlite.db(), on_pg.db());
  // Every provider's sample made charges.
  for (const char* provider : {"tencent", "alibaba", "aws", "google", "huawei"}) {
    INFO(provider);
    CHECK(query_count(on_pg.db(), std::string("SELECT count(*) FROM charge WHERE provider = '") +
                                      provider + "'") > 0);
  }
  // The state history as `gpubill instances` reads it, filtered and not.
  const auto states = [](Database& db, const InstanceStateFilter& f) {
    std::vector<std::string> out;
    for (const auto& s : query_instance_states(db, f)) {
      out.push_back(std::to_string(s.id) + " " + s.account + " " + s.instance + " " +
                    format_instant(s.at) + " " + s.state + " " + s.reason + " " +
                    (s.event_seq ? std::to_string(*s.event_seq) : "-"));
    }
    return out;
  };
  InstanceStateFilter all, current, demo;
  current.current = true;
  demo.account = "demo";
  demo.instance = "gn8-payg";
  for (const auto& f : {all, current, demo}) {
    const auto a = states(on_sqlite.db(), f);
    REQUIRE_FALSE(a.empty());
    same_lines(a, states(on_pg.db(), f), "instance states");
  }
}

TEST_CASE("logs replayed twice into PostgreSQL apply each event once and spend no seq",
          "[.][postgres][replay]") {
  ReplayFixture on_sqlite;
  PgReplayDb on_pg;
  replay_samples(on_sqlite.db());
  replay_samples(on_pg.db());
  const std::int64_t events = query_count(on_pg.db(), "SELECT count(*) FROM event");
  const auto before = tables(on_pg.db());
  ReplayOptions o;
  o.until = parse_instant(kUntil);
  const ReplayReport again = replay_logs(on_pg.db(), paths(kSecondRun), o);
  CHECK(again.applied == 0);
  CHECK(again.duplicates == again.events_read);
  CHECK(again.charge_rows == 0);
  CHECK(tables(on_pg.db()) == before);  // not even a replay run: nothing new
  replay_logs(on_sqlite.db(), paths(kSecondRun), o);
  // A new event after the duplicates takes the seq after the last one, as on SQLite.
  const std::string more = on_sqlite.write_log(
      "more.jsonl",
      R"({"id":"t9","time":"2019-07-01T09:00:00+08:00","type":"topup","account":"demo","amount":"10.00","currency":"CNY"}
)");
  replay_logs(on_sqlite.db(), {more});
  replay_logs(on_pg.db(), {more});
  CHECK(query_count(on_pg.db(), "SELECT max(seq) FROM event") == events + 1);
  CHECK(query_count(on_pg.db(), "SELECT count(*) FROM event") == events + 1);
  same_tables(on_sqlite.db(), on_pg.db());
}

TEST_CASE("a rebuild and a void on PostgreSQL give what they give on SQLite",
          "[.][postgres][replay][rebuild]") {
  ReplayFixture on_sqlite;
  PgReplayDb on_pg;
  replay_samples(on_sqlite.db());
  replay_samples(on_pg.db());
  const auto replayed = portable(on_pg.db());

  // A rebuild of the unchanged database writes what the replays wrote, on each.
  const RebuildReport ra = rebuild_accounts(on_sqlite.db());
  const RebuildReport rb = rebuild_accounts(on_pg.db());
  CHECK(summary(rb) == summary(ra));
  CHECK(ra.moved.empty());  // Google's two meters of one instance are two lines, not a move
  same_lines(replayed, portable(on_pg.db()), "after the rebuild, against before it");
  same_lines(portable(on_sqlite.db()), portable(on_pg.db()), "after the rebuild");

  // One account rebuilt.
  RebuildOptions one;
  one.accounts = {"demo"};
  CHECK(summary(rebuild_accounts(on_pg.db(), one)) ==
        summary(rebuild_accounts(on_sqlite.db(), one)));
  same_lines(replayed, portable(on_pg.db()), "after rebuilding demo");

  // The GN8 pay-as-you-go instance's create voided: its charges go, and the lines moved say so.
  const RebuildReport va = void_events(on_sqlite.db(), "demo", {"c1"}, "test: not real");
  const RebuildReport vb = void_events(on_pg.db(), "demo", {"c1"}, "test: not real");
  CHECK(va.void_events == 1);
  CHECK_FALSE(va.moved.empty());
  CHECK(summary(vb) == summary(va));
  same_lines(portable(on_sqlite.db()), portable(on_pg.db()), "after the void");
  CHECK_THROWS_WITH(void_events(on_pg.db(), "demo", {"c1"}, "again"),
                    Catch::Contains("is void already"));

  // The saved states go on as on SQLite: a later log replayed on the rebuilt accounts.
  const std::string more = on_sqlite.write_log(
      "more.jsonl",
      R"({"id":"t9","time":"2019-07-01T09:00:00+08:00","type":"topup","account":"demo","amount":"10.00","currency":"CNY"}
)");
  ReplayOptions o;
  o.until = parse_instant("2019-07-02T00:00:00+08:00");
  CHECK(summary(replay_logs(on_pg.db(), {more}, o)) ==
        summary(replay_logs(on_sqlite.db(), {more}, o)));
  same_lines(portable(on_sqlite.db()), portable(on_pg.db()), "after a later replay");
}

TEST_CASE("a log replayed into PostgreSQL in two parts equals the log replayed whole",
          "[.][postgres][replay][property]") {
  for (std::uint64_t seed : {1u, 2u}) {
    const auto log = LogGenerator(mixed_generator(seed)).generate();
    INFO("seed " << seed << ", " << log.lines.size() << " lines");
    ReplayFixture whole;
    whole.replay_text(join_lines(log.lines, 0, log.lines.size()), until_s(log.until));
    auto expected = portable(whole.db());
    // The runs differ (two here, one there): compared apart.
    const auto not_run = [](std::vector<std::string> lines) {
      lines.erase(std::remove_if(lines.begin(), lines.end(),
                                 [](const std::string& l) { return l.rfind("run|", 0) == 0; }),
                  lines.end());
      return lines;
    };
    expected = not_run(expected);
    const std::size_t n = log.lines.size();
    for (std::size_t k : {std::size_t{1}, n / 4, n / 2, 3 * n / 4, n - 1}) {
      INFO("split after line " << k);
      PgReplayDb split;
      const std::string a = whole.write_log("part1.jsonl", join_lines(log.lines, 0, k));
      const std::string b = whole.write_log("part2.jsonl", join_lines(log.lines, k, n));
      static const Catalog catalog = Catalog::load_for_billing(split.db());
      replay_logs(split.db(), catalog, {a});
      replay_logs(split.db(), catalog, {b}, until_s(log.until));
      same_lines(expected, not_run(portable(split.db())), "split");
      CHECK(query_count(split.db(), "SELECT count(*) FROM replay_run") == 2);
    }
  }
}

// The replay's batches on PostgreSQL (replay_sink.hpp, PgBatch) of a few rows, so that rows
// are sent in many flushes and rows already sent are updated through the batched UPDATE.
class ScopedFlushRows {
 public:
  explicit ScopedFlushRows(std::size_t rows) : before_(replay_detail::PgBatch::flush_rows) {
    replay_detail::PgBatch::flush_rows = rows;
  }
  ~ScopedFlushRows() { replay_detail::PgBatch::flush_rows = before_; }
  ScopedFlushRows(const ScopedFlushRows&) = delete;
  ScopedFlushRows& operator=(const ScopedFlushRows&) = delete;

 private:
  std::size_t before_;
};

TEST_CASE("PostgreSQL batches of any size write the rows, ids and seqs SQLite writes",
          "[.][postgres][replay]") {
  for (std::size_t batch : {std::size_t{1}, std::size_t{3}, std::size_t{40}}) {
    INFO("a flush every " << batch << " rows");
    ScopedFlushRows small(batch);
    ReplayFixture on_sqlite;
    PgReplayDb on_pg;
    const auto ra = replay_samples(on_sqlite.db());
    const auto rb = replay_samples(on_pg.db());
    for (std::size_t i = 0; i < ra.size(); ++i) CHECK(summary(rb[i]) == summary(ra[i]));
    same_tables(on_sqlite.db(), on_pg.db());
    CHECK(summary(rebuild_accounts(on_pg.db())) == summary(rebuild_accounts(on_sqlite.db())));
    same_lines(portable(on_sqlite.db()), portable(on_pg.db()), "after a rebuild");
  }
}

TEST_CASE("a generated log with duplicates replayed in batches into PostgreSQL is SQLite's",
          "[.][postgres][replay]") {
  const auto log = LogGenerator(mixed_generator(3)).generate();
  // Every tenth line again further on: duplicates of rows still buffered and of rows sent.
  std::vector<std::string> lines = log.lines;
  for (std::size_t i = 0; i < log.lines.size(); i += 10) {
    lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(std::min(lines.size(), i * 2 + 7)),
                 log.lines[i]);
  }
  ScopedFlushRows small(25);
  ReplayFixture on_sqlite;
  PgReplayDb on_pg;
  const std::string text = join_lines(lines, 0, lines.size());
  const std::string path = on_sqlite.write_log("dup.jsonl", text);
  ReplayOptions o = until_s(log.until);
  o.skip_invalid = true;
  const auto ra = replay_logs(on_sqlite.db(), {path}, o);
  const auto rb = replay_logs(on_pg.db(), {path}, o);
  CHECK(ra.duplicates > 0);
  CHECK(summary(rb) == summary(ra));
  same_tables(on_sqlite.db(), on_pg.db());
  // The same log again: nothing new, no seq spent; then a new event takes SQLite's seq.
  CHECK(replay_logs(on_pg.db(), {path}, o).applied == 0);
  replay_logs(on_sqlite.db(), {path}, o);
  const std::string more = on_sqlite.write_log(
      "more.jsonl", R"({"id":"t-more","time":")" + format_instant(*o.until) +
                        R"(","type":"topup","account":"acct0","amount":"10.00","currency":"CNY"}
)");
  CHECK(summary(replay_logs(on_pg.db(), {more})) == summary(replay_logs(on_sqlite.db(), {more})));
  same_tables(on_sqlite.db(), on_pg.db());
}

TEST_CASE("a replay whose batched rows fail to write commits nothing and spends no id",
          "[.][postgres][replay]") {
  ScopedFlushRows small(3);
  ReplayFixture on_sqlite;
  PgReplayDb on_pg;
  import_catalog_file(on_pg.db(), data_path("huawei-fake-prices.json"));
  // The server refuses one state change: the COPY of a later batch fails, after earlier
  // batches of every table were sent in the same transaction.
  connection(on_pg.db())
      .exec_native(
          "ALTER TABLE instance_state ADD CONSTRAINT test_refuse CHECK (reason <> "
          "'destroy')");
  CHECK_THROWS_WITH(replay_logs(on_pg.db(), paths(kFirstRun)), Catch::Contains("test_refuse"));
  for (const char* table :
       {"event", "charge", "balance_movement", "instance_state", "account_state", "replay_run"}) {
    INFO(table);
    CHECK(query_count(on_pg.db(), std::string("SELECT count(*) FROM ") + table) == 0);
  }
  connection(on_pg.db()).exec_native("ALTER TABLE instance_state DROP CONSTRAINT test_refuse");
  // The numbers the failed replay took were given back: the ids are SQLite's.
  const auto ra = replay_samples(on_sqlite.db());
  std::vector<ReplayReport> rb;
  rb.push_back(replay_logs(on_pg.db(), paths(kFirstRun)));
  ReplayOptions o;
  o.until = parse_instant(kUntil);
  rb.push_back(replay_logs(on_pg.db(), paths(kSecondRun), o));
  for (std::size_t i = 0; i < ra.size(); ++i) CHECK(summary(rb[i]) == summary(ra[i]));
  same_tables(on_sqlite.db(), on_pg.db());
}

TEST_CASE("a PostgreSQL connection killed mid-replay commits none of the batched rows",
          "[.][postgres][replay]") {
  ScopedFlushRows small(3);
  ReplayFixture on_sqlite;
  PgReplayDb on_pg;
  const auto log = LogGenerator(mixed_generator(4)).generate();
  const std::string path =
      on_sqlite.write_log("log.jsonl", join_lines(log.lines, 0, log.lines.size()));
  store::Statement pid(connection(on_pg.db()), "SELECT pg_backend_pid()");
  REQUIRE(pid.executeStep());
  const std::int64_t backend = pid.getColumn(0).getInt64();
  pid.reset();
  auto killer = store::Connection::open(pg_server_url());
  ReplayOptions o = until_s(log.until);
  bool killed = false;
  o.progress = [&](const Progress&) {
    if (killed) return;
    killed = true;  // batches were sent (a flush every 3 rows), not committed
    store::Statement kill(*killer, "SELECT pg_terminate_backend(?)");
    kill.bind(1, backend);
    REQUIRE(kill.executeStep());
    CHECK(kill.getColumn(0).getInt64() == 1);
  };
  CHECK_THROWS_AS(replay_logs(on_pg.db(), {path}, o), StoreConnectionLost);
  CHECK(killed);
  // A new connection finds nothing of it; replayed again, the log gives SQLite's rows (the
  // numbers the lost connection took stay spent: ids may differ, not rows).
  OpenOptions open;
  open.allow_postgres = true;
  Database again = Database::open(on_pg.url(), open);
  for (const char* table : {"event", "charge", "balance_movement", "instance_state"}) {
    INFO(table);
    CHECK(query_count(again, std::string("SELECT count(*) FROM ") + table) == 0);
  }
  o.progress = nullptr;
  CHECK(summary(replay_logs(again, {path}, o)) == summary(replay_logs(on_sqlite.db(), {path}, o)));
  const auto without_ids = [](Database& db) {
    std::vector<std::string> out;
    for (auto& l : query_lines(db, "SELECT account, id, time, type, payload, status FROM event")) {
      out.push_back("event|" + l);
    }
    for (auto& l :
         query_lines(db,
                     "SELECT account, instance, component, kind, period_start, period_end, "
                     "repeat, total_exact, total_billed FROM charge")) {
      out.push_back("charge|" + l);
    }
    for (auto& l : query_lines(db,
                               "SELECT account, at, amount, balance_after, kind FROM "
                               "balance_movement")) {
      out.push_back("movement|" + l);
    }
    for (auto& l :
         query_lines(db, "SELECT account, instance, at, state, reason FROM instance_state")) {
      out.push_back("state|" + l);
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  same_lines(without_ids(on_sqlite.db()), without_ids(again), "after the rerun");
}

}  // namespace gpubill::testing::replay_pg
