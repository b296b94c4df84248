// The ledger on PostgreSQL (issue 25, porting plan step 3): bills replayed on SQLite, their
// tables copied row for row into a PostgreSQL database (the ledger alone, whatever the replay
// writes there; tests/replay/replay_pg_test.cpp compares the replay's rows), and every
// ledger output read from each backend compared byte for byte: the charge lines whole, hour by
// hour and cut by account, instance and month; the FOCUS export (billed and forecast); every
// charge's explanation; the monthly statements; the balance movements and the balance after each
// settlement; the amortised shares; the rejects; and the HTML bill report. Against the test
// cluster of scripts/pg_cluster.sh.
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "gpubill/ledger/focus.hpp"
#include "gpubill/ledger/ledger.hpp"
#include "gpubill/replay/replay.hpp"
#include "gpubill/report/report.hpp"
#include "gpubill/store/db.hpp"
#include "pg_test.hpp"
#include "replay_fixture.hpp"
#include "sqlite_to_pg.hpp"

using namespace gpubill;
using namespace gpubill::testing;

namespace {

std::string secs(Instant t) {
  return std::to_string(t.time_since_epoch().count());
}
std::string opt(const std::optional<std::int64_t>& v) {
  return v ? std::to_string(*v) : "-";
}
std::string opt(const std::optional<Instant>& t) {
  return t ? secs(*t) : "-";
}
std::string opt(const std::optional<Decimal>& d) {
  return d ? d->to_string() : "-";
}

std::string line_text(const ChargeLine& c) {
  std::string s = std::to_string(c.id) + "|" + c.account + "|" + c.instance + "|" + c.provider +
                  "|" + c.region + "|" + c.instance_type + "|" + c.component + "|" + c.kind + "|" +
                  c.mode + "|" + secs(c.period_start) + "|" + secs(c.period_end) + "|" +
                  std::to_string(c.repeat) + "|" + std::to_string(c.run_index) + "|" +
                  std::to_string(c.run_length) + "|" + c.quantity.to_string() + "|" + c.unit + "|" +
                  c.unit_price.to_string() + "|" + c.price_unit + "|" + c.exact_amount.to_string() +
                  "|" + c.billed_amount.to_string() + "|" + c.rounding.to_string() + "|" +
                  c.total_exact.to_string() + "|" + c.total_billed.to_string() + "|" +
                  c.currency.to_string() + "|" + opt(c.price_id) + "|" + opt(c.policy_id) + "|" +
                  opt(c.discount_id) + "|" + c.note + "|" + opt(c.effective_amount) + "|seqs";
  for (auto seq : c.event_seqs) s += " " + std::to_string(seq);
  return s + "\n";
}

std::string charges_text(Database& db, const ChargeFilter& f, ChargeDetail detail) {
  std::string out;
  for_each_charge(db, f, detail, [&](const ChargeLine& c) { out += line_text(c); });
  return out;
}

std::string explanation_text(const ChargeExplanation& x) {
  std::string s = line_text(x.line) + std::string(to_string(x.derivation)) + "|" + x.rule + "|" +
                  x.rule_source + "\n";
  if (x.price) {
    const auto& p = *x.price;
    s += "price " + p.table + " " + std::to_string(p.id) + "|" + p.provider + "|" + p.subject +
         "|" + p.region + "|" + p.mode + "|" + p.unit + "|" + p.amount.to_string() + "|" +
         p.currency.to_string() + "|" + secs(p.effective_from) + "|" + opt(p.effective_to) + "|" +
         p.source + "|" + p.as_of + "\n";
  }
  if (x.policy) {
    const auto& p = *x.policy;
    s += "policy " + std::to_string(p.id) + "|" + p.settlement_period + "|" +
         std::to_string(p.settlement_decimals) + "|" + opt(p.min_charge_per_lifetime) + "|" +
         p.sustained_use_tiers + "|" + p.spot_price_basis + "|" + p.usage_rounding + "|" +
         p.source + "\n";
  }
  if (x.discount)
    s += "discount " + std::to_string(x.discount->id) + "|" + x.discount->factor.to_string() + "\n";
  if (x.commitment) {
    s += "commitment " + std::to_string(x.commitment->id) + "|" + x.commitment->program + "|" +
         x.commitment->upfront.to_string() + "|" + x.commitment->hourly.to_string() + "\n";
  }
  for (const auto& e : x.events) {
    s += "event " + std::to_string(e.seq) + "|" + e.account + "|" + e.id + "|" + e.type + "|" +
         e.instance + "|" + secs(e.time) + "|" + e.source_file + ":" +
         std::to_string(e.source_line) + "|" + e.status + "|" + e.payload + "\n";
  }
  for (const auto& v : {x.arithmetic, x.mismatches, x.superseded}) {
    for (const auto& l : v) s += l + "\n";
    s += "--\n";
  }
  return s;
}

std::string movement_text(const BalanceMovement& m) {
  return std::to_string(m.id) + "|" + m.account + "|" + secs(m.at) + "|" + m.currency.to_string() +
         "|" + m.amount.to_string() + "|" + m.balance_after.to_string() + "|" + m.kind + "|" +
         opt(m.charge_id) + "|" + opt(m.event_seq) + "|" + m.recorded_balance.to_string() + "|" +
         (m.settles_run ? "run" : "-") + "\n";
}

std::string totals_text(const Totals& t) {
  return t.billed.to_string() + "/" + t.exact.to_string() + "/" + t.rounding.to_string() + "/" +
         std::to_string(t.settlements);
}

std::string statement_text(const MonthlyStatement& s) {
  std::string out = s.account + " " + std::to_string(s.year) + "-" + std::to_string(s.month) + " " +
                    s.time_zone + " " + secs(s.period_start) + ".." + secs(s.period_end) + "\n";
  for (const auto& c : s.components) {
    out += "component " + c.instance + "|" + c.component + "|" + c.provider + "|" +
           c.instance_type + "|" + c.currency.to_string() + "|" + totals_text(c.totals) + "\n";
  }
  for (const auto& k : s.kinds) {
    out += "kind " + k.kind + "|" + k.currency.to_string() + "|" + totals_text(k.totals) + "\n";
  }
  for (const auto& t : s.totals) {
    out += "total " + t.currency.to_string() + "|" + totals_text(t.totals) + "\n";
  }
  for (const auto& b : s.balances) {
    out += "balance " + b.currency.to_string() + "|" + b.opening.to_string() + "|" +
           b.topups.to_string() + "|" + b.refunds.to_string() + "|" + b.charges.to_string() + "|" +
           b.other.to_string() + "|" + b.closing.to_string() + "|" + std::to_string(b.movements) +
           "|" + (b.reconciles ? "ok" : "off") + "\n";
  }
  for (const auto& m : s.movements) out += movement_text(m);
  return out;
}

std::string points_text(const std::vector<BalancePoint>& points) {
  std::string out;
  for (const auto& p : points) {
    out += secs(p.at) + "|" + p.currency.to_string() + "|" + p.kind + "|" + p.change.to_string() +
           "|" + p.balance.to_string() + "|" + std::to_string(p.settlements) + "|" +
           opt(p.movement_id) + "\n";
  }
  return out;
}

std::string rejects_text(Database& db, const RejectFilter& f) {
  std::string out;
  for_each_reject(db, f, [&](const RejectRow& r) {
    out += std::to_string(r.id) + "|" + r.kind + "|" + r.source_file + ":" +
           std::to_string(r.source_line) + "|" + r.account + "|" + r.event_id + "|" + opt(r.time) +
           "|" + r.field + "|" + r.reason + "|" + r.raw + "\n";
  });
  return out;
}

std::string focus_text(Database& db, const std::vector<ChargeLine>& lines, FocusPart part) {
  std::ostringstream out;
  write_focus_csv(out, db, lines, part);
  return out.str();
}

// The bill report of a month as `gpubill report bill` reads it (load_bill_report, the instance
// states included), after each purchase's amortised share in the month.
std::string bill_report_text(Database& db, const std::string& account, int year, unsigned month) {
  const BillReportData d = load_bill_report(db, account, year, month, std::nullopt);
  ChargeFilter purchases;
  purchases.account = account;
  purchases.to = d.statement.period_end;
  std::string shares;
  for_each_charge(db, purchases, ChargeDetail::lines, [&](const ChargeLine& c) {
    const auto share = amortised_share(c, d.statement.period_start, d.statement.period_end);
    if (share) shares += "amortised " + std::to_string(c.id) + " " + share->to_string() + "\n";
  });
  std::ostringstream out;
  write_bill_report(out, d);
  return shares + out.str();
}

using Outputs = std::vector<std::pair<std::string, std::string>>;

// One account's outputs: its lines whole and hourly, an instance's, each month's lines cut at
// the month's bounds, statement, balance points and bill report, its movements and FOCUS rows.
void account_outputs(Database& db, const std::string& account, Outputs& out) {
  ChargeFilter f;
  f.account = account;
  const auto lines = query_charges(db, f);
  out.emplace_back("charges --account " + account, charges_text(db, f, ChargeDetail::lines));
  out.emplace_back("charges --hourly --account " + account,
                   charges_text(db, f, ChargeDetail::hourly));
  out.emplace_back("focus --account " + account, focus_text(db, lines, FocusPart::billed));
  if (!lines.empty()) {
    ChargeFilter one = f;
    one.instance = lines.front().instance;
    out.emplace_back("charges --instance " + *one.instance,
                     charges_text(db, one, ChargeDetail::hourly));
  }
  std::string movements;
  for (const auto& m : query_balance_movements(db, account)) movements += movement_text(m);
  out.emplace_back("movements " + account, movements);
  const Calendar calendar = account_calendar(db, account);
  std::set<std::pair<int, unsigned>> months;
  for (const auto& l : lines) {
    const auto day = calendar.local_day(l.period_start);
    months.emplace(static_cast<int>(day.year()), static_cast<unsigned>(day.month()));
  }
  for (const auto& [year, month] : months) {
    const std::string name = account + " " + std::to_string(year) + "-" + std::to_string(month);
    const auto s = monthly_statement(db, account, year, month);
    out.emplace_back("statement " + name, statement_text(s));
    ChargeFilter cut = f;
    cut.from = s.period_start;
    cut.to = s.period_end;
    out.emplace_back("charges " + name, charges_text(db, cut, ChargeDetail::lines));
    out.emplace_back("charges --hourly " + name, charges_text(db, cut, ChargeDetail::hourly));
    out.emplace_back("movements " + name, [&] {
      std::string t;
      for (const auto& m : query_balance_movements(db, account, s.period_start, s.period_end)) {
        t += movement_text(m);
      }
      return t;
    }());
    out.emplace_back("balance points " + name,
                     points_text(balance_by_settlement(db, account, s.period_start, s.period_end)));
    out.emplace_back("bill " + name, bill_report_text(db, account, year, month));
  }
}

// Everything the ledger reads out of `db`, each output named.
Outputs ledger_outputs(Database& db) {
  Outputs out;
  const auto lines = query_charges(db);
  out.emplace_back("charges", charges_text(db, {}, ChargeDetail::lines));
  out.emplace_back("charges --hourly", charges_text(db, {}, ChargeDetail::hourly));
  out.emplace_back("focus", focus_text(db, lines, FocusPart::billed));
  out.emplace_back("focus --forecast", focus_text(db, lines, FocusPart::forecast));
  std::string explained;
  for (const auto& l : lines) explained += explanation_text(explain_charge(db, l.id));
  out.emplace_back("explain (every charge)", explained);
  std::string found;
  for (const auto& l : lines) found += line_text(find_charge(db, l.id).value());
  out.emplace_back("find_charge (every charge)", found);
  out.emplace_back("rejects", rejects_text(db, {}));
  std::string accounts;
  for (const auto& a : known_accounts(db)) {
    accounts += a + "\n";
    RejectFilter rf;
    rf.account = a;
    rf.kind = "rule";
    out.emplace_back("rejects --account " + a + " --kind rule", rejects_text(db, rf));
    account_outputs(db, a, out);
  }
  out.emplace_back("accounts", accounts);
  return out;
}

// The first line where two texts differ, for the failure message.
std::string first_difference(const std::string& a, const std::string& b) {
  std::istringstream sa(a), sb(b);
  std::string la, lb;
  for (int n = 1;; ++n) {
    const bool ga = static_cast<bool>(std::getline(sa, la));
    const bool gb = static_cast<bool>(std::getline(sb, lb));
    if (!ga && !gb) return "(equal lines; the texts differ in their last newline)";
    if (!ga || !gb || la != lb) {
      return "line " + std::to_string(n) + ":\n  SQLite:     " + (ga ? la : "(end)") +
             "\n  PostgreSQL: " + (gb ? lb : "(end)");
    }
  }
}

// Replays `logs` into a copy of the bundled catalog on SQLite, copies it to PostgreSQL and
// compares every output. Returns how many charge lines there were.
std::size_t same_ledger_on_both(ReplayFixture& fx) {
  PgDatabase pg;
  OpenOptions o;
  o.allow_postgres = true;
  Database on_pg = Database::open(pg.url(), o);
  REQUIRE(copy_database(fx.db(), on_pg) > 10000);
  const Outputs a = ledger_outputs(fx.db());
  const Outputs b = ledger_outputs(on_pg);
  REQUIRE(a.size() == b.size());
  std::size_t bytes = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    INFO(a[i].first);
    REQUIRE(a[i].first == b[i].first);
    if (a[i].second != b[i].second) FAIL(first_difference(a[i].second, b[i].second));
    bytes += a[i].second.size();
  }
  CHECK(bytes > 10000);
  return query_charges(on_pg).size();
}

}  // namespace

TEST_CASE("the ledger on PostgreSQL: the fixture logs' bills read as on SQLite, byte for byte",
          "[.][postgres][ledger]") {
  ReplayFixture fx;
  fx.import_catalog(data_path("huawei-fake-prices.json"));
  std::vector<std::string> logs;
  for (const char* name :
       {"alibaba-gn5.jsonl", "aws-p3.jsonl", "google-v100.jsonl", "huawei-p2.jsonl",
        "report-month.jsonl", "tencent-gn8-arrears.jsonl", "tencent-gn8-payg.jsonl",
        "tencent-gn8-prepaid.csv", "tencent-gn8-tutorial.jsonl", "tencent-gn8.jsonl"}) {
    logs.push_back(std::string(GPUBILL_SOURCE_DIR) + "/fixtures/logs/" + name);
  }
  replay_logs(fx.db(), logs, until("2019-07-01T00:00:00+08:00"));
  CHECK(same_ledger_on_both(fx) > 40);
}

TEST_CASE("the ledger on PostgreSQL: commitments' rows, amortised and forecast, as on SQLite",
          "[.][postgres][ledger][commitments]") {
  ReplayFixture fx;
  // Bundled catalog: AWS g4dn.xlarge us-east-1, 1-year standard RIs (focus_commitment_test.cpp):
  // one RI per account, each paid another way, and an instance 10:00 to 16:30 the next day.
  const std::vector<std::pair<std::string, std::string>> buyers = {
      {"acme", "no_upfront"}, {"beta", "all_upfront"}, {"gamma", "partial_upfront"}};
  std::string log;
  const auto event = [&](const std::string& id, const char* time, const std::string& account,
                         const std::string& rest) {
    log += R"({"id":")" + id + R"(","time":")" + time + R"(","account":")" + account + "\"," +
           rest + "}\n";
  };
  for (const auto& [account, payment] : buyers) {
    event(
        "ri-" + account, "2025-12-01T00:00:00Z", account,
        R"("type":"commit","provider":"aws","region":"us-east-1","instance_type":"g4dn.xlarge","term":"1y","payment":")" +
            payment + R"(","class":"standard","count":1)");
  }
  for (const auto& b : buyers) {
    event(
        "c-" + b.first, "2025-12-01T10:00:00Z", b.first,
        R"("type":"create","instance":"a","provider":"aws","region":"us-east-1","instance_type":"g4dn.xlarge","mode":"payg")");
  }
  for (const auto& b : buyers) {
    event("d-" + b.first, "2025-12-02T16:30:00Z", b.first, R"("type":"destroy","instance":"a")");
  }
  fx.replay_text(log, until("2025-12-03T00:00:00Z"));
  CHECK(same_ledger_on_both(fx) > 40);
}
