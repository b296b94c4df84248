// The bill report's balance line and amortised days against the ledger (issue 30, item 4): the
// balance is plotted after each hourly settlement as the ledger has it (not once per run of
// hours), and a prepaid order is shown amortised per day beside its cash charge, day by day as
// the FOCUS export's EffectiveCost.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include "gpubill/ledger/focus.hpp"
#include "gpubill/ledger/ledger.hpp"
#include "gpubill/report/report.hpp"
#include "replay_fixture.hpp"

using namespace gpubill;
using namespace gpubill::testing;

namespace {

const std::string kAccount = "研究组";

// The report of March 2019 for fixtures/logs/report-month.jsonl, and the database behind it.
struct BillPage {
  ReplayFixture fx;
  BillReportData data;
  std::string html;
  BillPage() {
    replay_logs(fx.db(), {std::string(GPUBILL_SOURCE_DIR) + "/fixtures/logs/report-month.jsonl"},
                until("2019-04-01T00:00:00+08:00"));
    data = load_bill_report(fx.db(), kAccount, 2019, 3);
    std::ostringstream out;
    write_bill_report(out, data);
    html = out.str();
  }
};

// The value of the first attribute `name` at or after `from` in the page, and where it ends.
std::pair<std::string, std::size_t> attribute(const std::string& page, const std::string& name,
                                              std::size_t from = 0) {
  const std::string key = name + "=\"";
  const auto start = page.find(key, from);
  if (start == std::string::npos) return {"", std::string::npos};
  const auto end = page.find('"', start + key.size());
  REQUIRE(end != std::string::npos);
  return {page.substr(start + key.size(), end - start - key.size()), end};
}

// data-balance-points of the balance line: instant → balance, in order.
std::vector<std::pair<Instant, Decimal>> plotted_balance(const std::string& html) {
  const auto [points, end] = attribute(html, "data-balance-points");
  REQUIRE(end != std::string::npos);
  std::vector<std::pair<Instant, Decimal>> out;
  std::istringstream in(points);
  for (std::string item; in >> item;) {
    const auto eq = item.find('=');
    REQUIRE(eq != std::string::npos);
    out.emplace_back(parse_instant(item.substr(0, eq)), Decimal::parse(item.substr(eq + 1)));
  }
  return out;
}

// The amortised dots of the daily chart: day → data-amortised.
std::map<int, Decimal> plotted_amortised(const std::string& html) {
  std::map<int, Decimal> out;
  std::size_t from = 0;
  while (true) {
    const auto found = attribute(html, "data-amortised", from);
    if (found.second == std::string::npos) break;
    from = found.second;
    // The dot's data-day is just before its data-amortised.
    const auto day_at = html.rfind("data-day=\"", from);
    REQUIRE(day_at != std::string::npos);
    out[std::stoi(html.substr(day_at + 10, 4))] = Decimal::parse(found.first);
  }
  return out;
}

}  // namespace

TEST_CASE("report bill: the balance moves at each hourly settlement, as the ledger has it",
          "[report][ledger]") {
  BillPage page;
  const MonthlyStatement& s = page.data.statement;
  const auto plotted = plotted_balance(page.html);

  // The oracle, from the ledger's own rows: every hourly settlement of the account (runs
  // expanded) debits its billed amount at its end; every movement that is not a settlement run
  // counts where it happened. An instant's settlements come first.
  std::map<Instant, Decimal> hour_debits;
  Decimal opening;
  ChargeFilter all;
  all.account = kAccount;
  for (const auto& line : expand_hourly(query_charges(page.fx.db(), all))) {
    if (line.kind != "settlement" || line.billed_amount.sign() <= 0) continue;
    // Settled at the end of the clock hour it starts in.
    const Instant settled =
        std::chrono::floor<std::chrono::hours>(line.period_start) + std::chrono::hours{1};
    if (settled < s.period_start) opening -= line.billed_amount;
    if (settled >= s.period_start && settled < s.period_end) {
      hour_debits[settled] -= line.billed_amount;
    }
  }
  std::vector<BalanceMovement> others;
  for (const auto& m : query_balance_movements(page.fx.db(), kAccount)) {
    if (m.settles_run || m.at >= s.period_end) continue;
    if (m.at < s.period_start)
      opening += m.amount;
    else
      others.push_back(m);
  }
  REQUIRE(hour_debits.size() > 200);  // two pay-as-you-go instances, much of the month
  REQUIRE(others.size() >= 2);        // the top-ups of 8 and 18 March

  std::vector<std::pair<Instant, Decimal>> expected = {{s.period_start, opening}};
  Decimal balance = opening;
  auto other = others.begin();
  for (const auto& [at, debit] : hour_debits) {
    for (; other != others.end() && other->at < at; ++other) {
      balance += other->amount;
      expected.emplace_back(other->at, balance);
    }
    balance += debit;
    expected.emplace_back(at, balance);
  }
  for (; other != others.end(); ++other) {
    balance += other->amount;
    expected.emplace_back(other->at, balance);
  }
  CHECK(plotted == expected);

  // After each top-up the plotted balance is the one the engine recorded then; at the month's
  // end, with no run of hours half-debited, it is the statement's closing balance.
  for (const auto& m : others) {
    const auto at_topup = std::find_if(plotted.rbegin(), plotted.rend(),
                                       [&](const auto& p) { return p.first == m.at; });
    REQUIRE(at_topup != plotted.rend());
    CHECK(at_topup->second == m.recorded_balance);
  }
  REQUIRE(s.balances.size() == 1);
  CHECK(plotted.back().second == s.balances[0].closing);
  // Never above the opening plus the top-ups so far (no spike at a top-up).
  Decimal ceiling = opening;
  for (const auto& [at, value] : plotted) {
    for (const auto& m : others) {
      if (m.at == at) ceiling += m.amount;
    }
    CHECK(value <= ceiling);
  }
}

TEST_CASE("report bill: a prepaid order amortised per day as FOCUS EffectiveCost, beside its cash",
          "[report][ledger][focus]") {
  BillPage page;
  const MonthlyStatement& s = page.data.statement;
  // The order of 10 February covers 10 February … 10 March: its March days are amortised here.
  REQUIRE(page.data.purchases.size() == 1);
  CHECK(page.data.purchases[0].kind == "prepaid_order");

  // The FOCUS export's EffectiveCost summed per local day of March (UTC+8).
  const Calendar calendar(s.time_zone);
  const FocusTable focus = focus_export(page.fx.db(), query_charges(page.fx.db()));
  const auto col = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(focus.columns.begin(), focus.columns.end(), name) -
                                    focus.columns.begin());
  };
  std::map<int, Decimal> effective;  // day of March → EffectiveCost
  for (const auto& row : focus.rows) {
    const Instant start = parse_instant(*row[col("ChargePeriodStart")]);
    if (start < s.period_start || start >= s.period_end) continue;
    const auto day = calendar.local_day(start);
    effective[static_cast<int>(unsigned(day.day()))] += Decimal::parse(*row[col("EffectiveCost")]);
  }

  std::map<int, Decimal> plotted = plotted_amortised(page.html);
  REQUIRE(plotted.size() == 31);
  for (int day = 1; day <= 31; ++day) {
    INFO("day " << day);
    CHECK(plotted[day] == effective[day]);  // absent = 0
  }
  // The first days carry a share of the February order although nothing was paid for it in
  // March: the amortised line is above the cash bars there.
  const auto share = amortised_share(page.data.purchases[0], s.period_start,
                                     calendar.midnight_after(s.period_start, 1));
  REQUIRE(share);
  CHECK(share->sign() > 0);
  CHECK(plotted[1] > Decimal(0));
}

// An all-upfront 1-year RI bought on 1 December 2025 (bundled: AWS g4dn.xlarge us-east-1, 2709
// USD) and one instance on it for two hours on the 2nd: the cash is all on the 1st, the
// amortised line spreads it over every hour of the term, day by day as FOCUS EffectiveCost.
TEST_CASE("report bill: a commitment's upfront amortised per day as FOCUS EffectiveCost",
          "[report][ledger][focus][commitments]") {
  ReplayFixture fx;
  fx.replay_text(
      R"({"id":"t1","time":"2025-12-01T00:00:00Z","type":"topup","account":"acme","amount":"5000.00","currency":"USD"})"
      "\n"
      R"({"id":"ri-1","time":"2025-12-01T00:00:00Z","type":"commit","account":"acme","provider":"aws","region":"us-east-1","instance_type":"g4dn.xlarge","term":"1y","payment":"all_upfront","class":"standard","count":1})"
      "\n"
      R"({"id":"c1","time":"2025-12-02T10:00:00Z","type":"create","account":"acme","instance":"a","provider":"aws","region":"us-east-1","instance_type":"g4dn.xlarge","mode":"payg"})"
      "\n"
      R"({"id":"d1","time":"2025-12-02T12:00:00Z","type":"destroy","account":"acme","instance":"a"})"
      "\n",
      until("2026-01-01T00:00:00Z"));
  const BillReportData data = load_bill_report(fx.db(), "acme", 2025, 12);
  std::ostringstream page;
  write_bill_report(page, data);
  const std::string html = page.str();
  const MonthlyStatement& s = data.statement;

  const Calendar calendar(s.time_zone);
  const FocusTable focus = focus_export(fx.db(), query_charges(fx.db()));
  const auto col = [&](const std::string& name) {
    return static_cast<std::size_t>(std::find(focus.columns.begin(), focus.columns.end(), name) -
                                    focus.columns.begin());
  };
  std::map<int, Decimal> effective;
  for (const auto& row : focus.rows) {
    const Instant start = parse_instant(*row[col("ChargePeriodStart")]);
    if (start < s.period_start || start >= s.period_end) continue;
    const auto day = calendar.local_day(start);
    effective[static_cast<int>(unsigned(day.day()))] += Decimal::parse(*row[col("EffectiveCost")]);
  }
  std::map<int, Decimal> plotted = plotted_amortised(html);
  REQUIRE(plotted.size() == 31);
  for (int day = 1; day <= 31; ++day) {
    INFO("day " << day);
    CHECK(plotted[day] == effective[day]);
  }
  // 2709 over the term's 8760 hours is 0.309246… an hour, about 7.42 a day: never the 2709 of
  // the purchase day, which is the cash.
  CHECK(plotted[1] < Decimal(8));
  CHECK(plotted[1] > Decimal(7));
  CHECK(plotted[15] > Decimal(7));
}
