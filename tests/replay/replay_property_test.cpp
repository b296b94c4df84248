// Properties of replay over generated logs (replay_generator.hpp):
//   split at every line = whole; replaying twice = once; settled seconds per instance = the
//   seconds its compute ran; Σ billed − Σ exact = Σ rounding exactly.
#include <catch2/catch.hpp>

#include <date/date.h>

#include "gpubill/base/decimal.hpp"
#include "gpubill/ledger/ledger.hpp"
#include "replay_fixture.hpp"
#include "replay_generator.hpp"

using namespace gpubill;
using namespace gpubill::testing;

namespace {

// What a user reads, in the order the queries give it, without row ids (a split replay writes
// the same rows in another id order): the hourly charge lines and each account's movements.
std::string listing(ReplayFixture& fx, const std::vector<std::string>& accounts) {
  std::string out;
  for_each_hourly(query_charges(fx.db()), [&](const ChargeLine& l) {
    out += l.account + " " + l.instance + " " + l.component + " " + l.kind + " " +
           format_instant(l.period_start) + " " + format_instant(l.period_end) + " " +
           l.quantity.to_string() + " " + l.billed_amount.to_string() + "\n";
  });
  for (const auto& a : accounts) {
    for (const auto& m : query_balance_movements(fx.db(), a)) {
      out += m.account + " " + format_instant(m.at) + " " + m.kind + " " + m.amount.to_string() +
             " " + m.balance_after.to_string() + "\n";
    }
  }
  return out;
}

}  // namespace

TEST_CASE("Replaying a log in two parts equals replaying it whole, at every split",
          "[replay][property]") {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const auto log = LogGenerator(mixed_generator(seed)).generate();
    INFO("seed " << seed << ", " << log.lines.size() << " lines");
    ReplayFixture whole;
    const auto r =
        whole.replay_text(join_lines(log.lines, 0, log.lines.size()), until_s(log.until));
    if (seed % 2 == 0) CHECK(r.rejected == 0);  // odd seeds: arrears reject some starts
    const std::string expected = whole.dump();
    // Every split on SQLite; on PostgreSQL (a round trip per statement) every 7th, a different
    // set per seed: 3 × ~18 splits instead of 3 × ~125 (50 s of the PostgreSQL run).
    const std::size_t stride = whole.on_postgres() ? 7 : 1;
    for (std::size_t k = 1 + (whole.on_postgres() ? seed : 0); k < log.lines.size(); k += stride) {
      ReplayFixture split;
      split.replay_text(join_lines(log.lines, 0, k), {}, "part1.jsonl");
      split.replay_text(join_lines(log.lines, k, log.lines.size()), until_s(log.until),
                        "part2.jsonl");
      const std::string got = split.dump();
      if (got != expected) {
        INFO("split after line " << k);
        CHECK(got == expected);
        break;
      }
    }
  }
}

TEST_CASE("Replaying in many small parts equals replaying whole", "[replay][property]") {
  const auto log = LogGenerator(mixed_generator(4)).generate();
  ReplayFixture whole;
  whole.replay_text(join_lines(log.lines, 0, log.lines.size()), until_s(log.until));
  ReplayFixture parts;
  for (std::size_t k = 0; k < log.lines.size(); k += 3) {
    parts.replay_text(join_lines(log.lines, k, std::min(k + 3, log.lines.size())), {},
                      "part" + std::to_string(k) + ".jsonl");
  }
  parts.replay_text("", until_s(log.until));
  CHECK(parts.dump() == whole.dump());
  // Listed in the same order too, not only the same rows.
  const std::vector<std::string> accounts = whole.account_names();
  REQUIRE(!accounts.empty());
  CHECK(listing(parts, accounts) == listing(whole, accounts));
}

TEST_CASE("Replaying a log twice equals replaying it once", "[replay][property]") {
  for (std::uint64_t seed : {5u, 6u}) {
    const auto log = LogGenerator(mixed_generator(seed)).generate();
    const std::string text = join_lines(log.lines, 0, log.lines.size());
    ReplayFixture fx;
    fx.replay_text(text, until_s(log.until));
    const std::string once = fx.dump();
    const auto again = fx.replay_text(text, until_s(log.until));
    CHECK(again.applied == 0);
    CHECK(again.duplicates == static_cast<std::int64_t>(log.lines.size()));
    CHECK(fx.dump() == once);
  }
}

TEST_CASE("Settled seconds per instance equal the seconds its compute ran", "[replay][property]") {
  for (std::uint64_t seed : {11u, 12u, 13u, 14u}) {
    GeneratorOptions o;
    o.seed = seed;
    o.accounts = 3;
    o.instances_per_account = 4;
    o.days = 4;
    const auto log = LogGenerator(o).generate();
    ReplayFixture fx;
    const auto r = fx.replay_text(join_lines(log.lines, 0, log.lines.size()), until_s(log.until));
    REQUIRE(r.rejected == 0);
    for (const auto& [key, intervals] : log.accrual) {
      const auto slash = key.find('/');
      const std::string account = key.substr(0, slash), instance = key.substr(slash + 1);
      std::int64_t ran = 0;
      for (const auto& [from, to] : intervals) ran += to - from;
      store::Statement q(fx.conn(),
                         "SELECT COALESCE(SUM(CAST(quantity AS INTEGER) * repeat), 0) FROM charge "
                         "WHERE account = ? AND instance = ? AND kind = 'settlement' AND "
                         "component = 'compute'");
      q.bind(1, account);
      q.bind(2, instance);
      REQUIRE(q.executeStep());
      INFO("seed " << seed << " " << key);
      CHECK(q.getColumn(0).getInt64() == ran);
    }
  }
}

TEST_CASE("Sum of billed minus sum of exact equals the sum of rounding, exactly",
          "[replay][property]") {
  for (std::uint64_t seed : {21u, 22u, 23u}) {
    const auto log = LogGenerator(mixed_generator(seed)).generate();
    ReplayFixture fx;
    fx.replay_text(join_lines(log.lines, 0, log.lines.size()), until_s(log.until));
    store::Statement q(fx.conn(),
                       "SELECT currency, repeat, exact_amount, billed_amount, rounding, "
                       "total_exact, total_billed FROM charge");
    std::map<std::string, Decimal> billed, exact, rounding;
    std::int64_t rows = 0;
    while (q.executeStep()) {
      ++rows;
      const std::string ccy = q.getColumn(0).getString();
      const std::int64_t repeat = q.getColumn(1).getInt64();
      const Decimal e = Decimal::parse(q.getColumn(2).getString());
      const Decimal b = Decimal::parse(q.getColumn(3).getString());
      const Decimal r = Decimal::parse(q.getColumn(4).getString());
      CHECK(b == e + r);
      CHECK(Decimal::parse(q.getColumn(5).getString()) == e * repeat);
      CHECK(Decimal::parse(q.getColumn(6).getString()) == b * repeat);
      billed[ccy] += b * repeat;
      exact[ccy] += e * repeat;
      rounding[ccy] += r * repeat;
    }
    CHECK(rows > 0);
    for (const auto& [ccy, total] : billed) {
      INFO("seed " << seed << " " << ccy);
      CHECK(total - exact[ccy] == rounding[ccy]);
      // Movements: every debit and credit of charges adds up to −Σ billed.
      store::Statement m(fx.conn(),
                         "SELECT amount FROM balance_movement WHERE currency = ? AND kind != "
                         "'topup'");
      m.bind(1, ccy);
      Decimal moved;
      while (m.executeStep()) moved += Decimal::parse(m.getColumn(0).getString());
      CHECK(moved == -total);
    }
  }
}

TEST_CASE("Every monthly statement of a generated log reconciles", "[replay][property]") {
  // Runs of hours that span top-ups and month ends (the generated logs have both): each
  // statement's movements must add up from its opening to its closing balance, and every
  // top-up, order and refund must show the balance the engine had then.
  for (std::uint64_t seed : {31u, 32u, 33u}) {
    const auto log = LogGenerator(mixed_generator(seed)).generate();
    ReplayFixture fx;
    fx.replay_text(join_lines(log.lines, 0, log.lines.size()), until_s(log.until));
    const auto first = date::year_month_day{date::floor<date::days>(
        date::sys_seconds{std::chrono::seconds{fx.count("SELECT MIN(time) FROM event")}})};
    const auto last = date::year_month_day{
        date::floor<date::days>(date::sys_seconds{std::chrono::seconds{log.until}})};
    int statements = 0;
    for (const auto& account : fx.account_names()) {
      for (auto ym = first.year() / first.month(); ym <= last.year() / last.month();
           ym += date::months{1}) {
        const auto s =
            monthly_statement(fx.db(), account, static_cast<int>(ym.year()),
                              static_cast<unsigned>(ym.month()), Calendar("Asia/Shanghai"));
        for (const auto& b : s.balances) {
          INFO("seed " << seed << ", " << account << ", " << static_cast<int>(ym.year()) << "-"
                       << static_cast<unsigned>(ym.month()) << ", " << b.currency.to_string());
          CHECK(b.reconciles);
          ++statements;
        }
      }
    }
    CHECK(statements > 0);
  }
}
