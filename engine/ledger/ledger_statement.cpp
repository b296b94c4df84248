// Monthly statements: charges totalled per instance and component, per kind and per currency,
// and the balance movements of the month, with the month in the account's billing time zone.
#include <algorithm>
#include <iterator>
#include <map>
#include <set>
#include <tuple>

#include "gpubill/base/errors.hpp"
#include "gpubill/ledger/ledger.hpp"
#include "ledger/ledger_rows.hpp"
#include "store/store.hpp"

namespace gpubill {

using namespace ledger_rows;

namespace {

void add(Totals& t, const ChargeLine& line) {
  t.billed += line.total_billed;
  t.exact += line.total_exact;
  t.rounding += line.total_rounding();
  t.settlements += line.repeat;
}

// Appends `value` to a " → "-joined list unless it is already the last entry.
void note_value(std::string& list, const std::string& value) {
  if (value.empty()) return;
  if (list.empty()) {
    list = value;
    return;
  }
  const std::string sep = " → ";
  const auto last = list.rfind(sep);
  const std::string tail = last == std::string::npos ? list : list.substr(last + sep.size());
  if (tail != value) list += sep + value;
}

}  // namespace

Calendar account_calendar(Database& db, std::string_view account) {
  std::set<std::string> zones;
  try {
    store::Statement q(connection(db),
                       "SELECT DISTINCT p.billing_time_zone FROM charge c "
                       "JOIN provider p ON p.id = c.provider WHERE c.account = ? "
                       "ORDER BY 1");
    q.bind(1, std::string(account));
    while (q.executeStep()) zones.insert(q.getColumn(0).getString());
  } catch (const store::SqlError& e) {
    throw StoreError(std::string("reading the account's providers: ") + e.what());
  }
  if (zones.empty()) return Calendar("UTC");
  if (zones.size() > 1) {
    std::string list;
    for (const auto& z : zones) list += (list.empty() ? "" : ", ") + z;
    throw Error("account '" + std::string(account) +
                "' has charges from providers that bill in different time zones (" + list +
                "); name the statement's time zone");
  }
  return Calendar(*zones.begin());
}

MonthlyStatement monthly_statement(Database& db, std::string_view account, int year, unsigned month,
                                   StatementMovements movements) {
  return monthly_statement(db, account, year, month, account_calendar(db, account), movements);
}

MonthlyStatement monthly_statement(Database& db, std::string_view account, int year, unsigned month,
                                   const Calendar& calendar, StatementMovements movements) {
  if (month < 1 || month > 12) {
    throw std::invalid_argument("monthly_statement: month " + std::to_string(month) +
                                " is not 1..12");
  }
  MonthlyStatement s;
  s.account = std::string(account);
  s.year = year;
  s.month = month;
  s.time_zone = calendar.zone_name();
  const date::year_month_day first{date::year{year}, date::month{month}, date::day{1}};
  s.period_start = calendar.midnight(date::sys_days{first});
  s.period_end = calendar.midnight(date::sys_days{first + date::months{1}});

  // Charges: every line (or part of a run) that starts in the month.
  ChargeFilter filter;
  filter.account = s.account;
  filter.from = s.period_start;
  filter.to = s.period_end;
  using ComponentKey = std::tuple<std::string, std::string, std::string>;
  std::map<ComponentKey, ComponentTotal> components;
  std::map<std::pair<std::string, std::string>, KindTotal> kinds;
  std::map<std::string, CurrencyTotal> totals;
  for_each_charge(db, filter, ChargeDetail::lines, [&](const ChargeLine& line) {
    const std::string ccy = line.currency.to_string();
    auto& c = components[{line.instance, line.component, ccy}];
    if (c.component.empty()) {
      c.instance = line.instance;
      c.component = line.component;
      c.currency = line.currency;
    }
    note_value(c.provider, line.provider);
    note_value(c.instance_type, line.instance_type);
    add(c.totals, line);
    auto& k = kinds[{line.kind, ccy}];
    if (k.kind.empty()) {
      k.kind = line.kind;
      k.currency = line.currency;
    }
    add(k.totals, line);
    auto& t = totals[ccy];
    t.currency = line.currency;
    add(t.totals, line);
  });
  for (auto& [key, c] : components) s.components.push_back(std::move(c));
  for (auto& [key, k] : kinds) s.kinds.push_back(std::move(k));
  for (auto& [key, t] : totals) s.totals.push_back(std::move(t));

  // Balances: the last balance of each currency before the month opens it; the movements of
  // the month add up to the closing balance. One pass: the running balances need every
  // movement since the first anyway.
  std::map<std::string, BalanceSummary> balances;
  for_each_balance_movement(db, account, std::nullopt, s.period_end, [&](const BalanceMovement& m) {
    auto& b = balances[m.currency.to_string()];
    b.currency = m.currency;
    if (m.at < s.period_start) {  // listed by at first
      b.opening = m.balance_after;
      b.closing = m.balance_after;
      return;
    }
    if (m.kind == "topup") {
      b.topups += m.amount;
    } else if (m.kind == "refund") {
      b.refunds += m.amount;
    } else if (m.kind == "charge") {
      b.charges += m.amount;
    } else {
      b.other += m.amount;
    }
    ++b.movements;
    b.closing = m.balance_after;
    if (!m.settles_run && m.recorded_balance != m.balance_after) b.reconciles = false;
    if (movements == StatementMovements::listed) s.movements.push_back(m);
  });
  for (auto& [key, b] : balances) {
    b.reconciles =
        b.reconciles && b.opening + b.topups + b.refunds + b.charges + b.other == b.closing;
    s.balances.push_back(std::move(b));
  }
  return s;
}

}  // namespace gpubill
