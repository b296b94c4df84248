// A way back: rebuilding accounts from their stored events writes what the replays wrote, and
// voiding an event gives the bill of a replay without it.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <map>

#include "cli_run.hpp"
#include "gpubill/base/errors.hpp"
#include "json_schema.hpp"
#include "replay_fixture.hpp"
#include "replay_generator.hpp"

using namespace gpubill;
using namespace gpubill::testing;

namespace {

RebuildOptions accounts_only(std::vector<std::string> accounts) {
  RebuildOptions o;
  o.accounts = std::move(accounts);
  return o;
}

// Everything replay writes, plus the saved account states and the replay clock.
std::string full_dump(ReplayFixture& f) {
  std::string out = f.dump();
  store::Statement q(f.conn(), "SELECT account, clock, state FROM account_state ORDER BY account");
  while (q.executeStep()) {
    out += "account_state|" + q.getColumn(0).getString() + "|" + q.getColumn(1).getString() + "|" +
           q.getColumn(2).getString() + "\n";
  }
  out += "clock|" + std::to_string(f.count("SELECT coalesce(max(clock), -1) FROM replay_clock"));
  return out;
}

// The dump with event seqs written as account/id, without rejects' raw lines, the event table
// and the saved states (both hold seqs and row ids, which differ between two databases): for
// comparing a database where an event was voided with one that never had it.
std::string portable_dump(ReplayFixture& f) {
  std::map<std::string, std::string> name_of;  // seq → account/id
  {
    store::Statement q(f.conn(), "SELECT seq, account, id FROM event");
    while (q.executeStep()) {
      name_of[q.getColumn(0).getString()] =
          q.getColumn(1).getString() + "/" + q.getColumn(2).getString();
    }
  }
  const auto names = [&](const std::string& seqs) {
    std::string out;
    std::size_t start = 0;
    while (start <= seqs.size()) {
      const std::size_t end = std::min(seqs.find(',', start), seqs.size());
      const std::string seq = seqs.substr(start, end - start);
      const auto it = name_of.find(seq);
      out += (out.empty() ? "" : ",") + (it == name_of.end() ? seq : it->second);
      start = end + 1;
    }
    return out;
  };
  // Which column of each row kind holds seqs (counting the kind as column 0).
  const std::map<std::string, std::size_t> seq_column = {
      {"charge", 25}, {"movement", 7}, {"state", 6}};
  std::string out;
  const std::string dump = f.dump();
  std::size_t start = 0;
  while (start < dump.size()) {
    const std::size_t end = std::min(dump.find('\n', start), dump.size());
    std::vector<std::string> cells;
    for (std::size_t c = start;;) {
      const std::size_t bar = std::min(dump.find('|', c), end);
      cells.push_back(dump.substr(c, bar - c));
      if (bar == end) break;
      c = bar + 1;
    }
    start = end + 1;
    if (cells[0] == "event") continue;
    // A rebuild knows an event it newly rejects as stored (canonical JSON), not as its line
    // was written: the reject's raw text is left out.
    if (cells[0] == "reject") cells.pop_back();
    if (auto col = seq_column.find(cells[0]); col != seq_column.end()) {
      cells[col->second] = names(cells[col->second]);
    }
    std::string line;
    for (const auto& c : cells) line += (line.empty() ? "" : "|") + c;
    out += line + "\n";
  }
  store::Statement q(f.conn(), "SELECT account, clock FROM account_state ORDER BY account");
  while (q.executeStep()) {
    out += "account_state|" + q.getColumn(0).getString() + "|" + q.getColumn(1).getString() + "\n";
  }
  return out + "clock|" +
         std::to_string(f.count("SELECT coalesce(max(clock), -1) FROM replay_clock"));
}

}  // namespace

TEST_CASE("a rebuild of an unchanged database writes what its replays wrote",
          "[replay][rebuild][property]") {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const auto log = LogGenerator(mixed_generator(seed)).generate();
    INFO("seed " << seed << ", " << log.lines.size() << " lines");
    ReplayFixture f;
    // Three replays, the first two closing at a time between their events.
    const std::size_t a = log.lines.size() / 3, b = 2 * log.lines.size() / 3;
    f.replay_text(join_lines(log.lines, 0, a), {}, "part1.jsonl");
    f.replay_text(join_lines(log.lines, a, b), {}, "part2.jsonl");
    f.replay_text(join_lines(log.lines, b, log.lines.size()), until_s(log.until), "part3.jsonl");
    const std::string before = full_dump(f);
    const RebuildReport r = rebuild_accounts(f.db());
    CHECK(r.replay.events_read == static_cast<std::int64_t>(log.lines.size()));
    CHECK(full_dump(f) == before);
    SECTION("one account") {
      rebuild_accounts(f.db(), accounts_only({f.account_names().front()}));
      CHECK(full_dump(f) == before);
    }
    SECTION("a database of an older gpubill, without replay runs") {
      f.conn().exec("DELETE FROM replay_run");
      RebuildOptions o;
      o.until = Instant{std::chrono::seconds{log.until}};
      rebuild_accounts(f.db(), o);
      // Without the run ends, the first two parts are not closed separately: the same rows,
      // because closing at a replay's end and going on changes nothing (the split property).
      CHECK(full_dump(f) == before);
    }
  }
}

TEST_CASE("voiding an event gives the bill of a replay without it", "[replay][rebuild][void]") {
  const auto log = LogGenerator(mixed_generator(2)).generate();
  for (std::size_t skip : {std::size_t{0}, log.lines.size() / 2, log.lines.size() - 1}) {
    const auto ev = nlohmann::json::parse(log.lines[skip]);
    INFO("void line " << skip << ": " << log.lines[skip]);
    ReplayFixture with, without;
    with.replay_text(join_lines(log.lines, 0, log.lines.size()), until_s(log.until));
    without.replay_text(join_lines(log.lines, 0, log.lines.size(), skip), until_s(log.until));
    const RebuildReport r = void_events(with.db(), ev["account"], {ev["id"]}, "test: not real");
    CHECK(r.void_events == 1);
    CHECK(portable_dump(with) == portable_dump(without));
  }
}

TEST_CASE("voiding the event that moved the replay clock brings the clock back",
          "[replay][rebuild][void]") {
  ReplayFixture f;
  const std::string log =
      R"({"id":"t0","time":"2019-03-01T09:00:00+08:00","type":"topup","account":"shop","amount":"5000","currency":"CNY"}
{"id":"c1","time":"2019-03-01T10:30:00+08:00","type":"create","account":"shop","instance":"gn8-a","provider":"tencent","region":"ap-guangzhou","instance_type":"GN8.LARGE56","mode":"payg"}
{"id":"t1","time":"2021-03-02T09:00:00+08:00","type":"topup","account":"other","amount":"100","currency":"CNY"}
)";
  ReplayOptions typo;
  typo.allow_long_settlement = true;  // as a gpubill without the guard did
  f.replay_text(log, typo);
  REQUIRE(f.count("SELECT count(*) FROM charge WHERE account = 'shop'") > 0);
  const RebuildReport r = void_events(f.db(), "other", {"t1"}, "typo: 2021 for 2019");
  REQUIRE(r.replay.clock);
  CHECK(format_instant(*r.replay.clock) == "2019-03-01T02:30:00Z");
  CHECK(r.accounts == std::vector<std::string>{"other", "shop"});
  // The same rows as a replay of the two good lines.
  ReplayFixture good;
  good.replay_text(log.substr(0, log.rfind("{\"id\":\"t1\"")));
  CHECK(portable_dump(f) == portable_dump(good));

  SECTION("errors") {
    CHECK_THROWS_AS(void_events(f.db(), "other", {"nosuch"}, "x"), NotFound);
    CHECK_THROWS_WITH(void_events(f.db(), "other", {"t1"}, "again"),
                      Catch::Contains("is void already"));
    CHECK_THROWS_AS(void_events(f.db(), "shop", {"t0"}, ""), InputError);
    CHECK_THROWS_AS(rebuild_accounts(f.db(), accounts_only({"nobody"})), NotFound);
  }
}

TEST_CASE("gpubill void and rebuild from the command line", "[replay][rebuild][cli]") {
  TempDir dir;
  const std::string db = " --db " + dir.file("t.db");
  const std::string log = std::string(GPUBILL_SOURCE_DIR) + "/fixtures/logs/tencent-gn8.jsonl";
  REQUIRE(gpubill::testing::run_cli("replay " + log + db + " --until 2019-04-01").status == 0);
  const std::string bill =
      gpubill::testing::run_cli("bill --account demo --month 2019-03" + db).output;
  auto r = gpubill::testing::run_cli("rebuild --format json" + db);
  REQUIRE(r.status == 0);
  CHECK(nlohmann::json::parse(r.output)["clock"] == "2019-04-01T00:00:00Z");
  gpubill::testing::check_schema("rebuild.schema.json", nlohmann::json::parse(r.output));
  CHECK(gpubill::testing::run_cli("bill --account demo --month 2019-03" + db).output == bill);
  r = gpubill::testing::run_cli("void --account demo c1 --reason 'test VM' --format json" + db);
  REQUIRE(r.status == 0);
  CHECK(nlohmann::json::parse(r.output)["void_events"] == 1);
  gpubill::testing::check_schema("rebuild.schema.json", nlohmann::json::parse(r.output));
  CHECK(gpubill::testing::run_cli("bill --account demo --month 2019-03" + db).output != bill);
  r = gpubill::testing::run_cli("void --account demo c1 --reason again" + db);
  CHECK(r.status == 1);
  CHECK_THAT(r.output, Catch::Contains("event 'c1' of account 'demo' is void already"));
}
