// The balance after each hourly settlement (ledger.hpp, balance_by_settlement): settlement runs
// spread back over their hours, every other movement a step of its own.
#include <algorithm>
#include <map>
#include <tuple>

#include "gpubill/ledger/ledger.hpp"

namespace gpubill {

namespace {

constexpr std::int64_t kSettleHour = 3600;

// When settlement k of `line` is debited at the latest: the end of the clock hour it starts in
// (a first hour from 10:30 at 11:00, a last one of 14:00–14:10 at 15:00; docs/bills.md).
Instant hour_end_of(const ChargeLine& line, std::int64_t k) {
  const std::int64_t start = (line.settlement_start(k) - Instant{}).count();
  const std::int64_t hour =
      start >= 0 ? start / kSettleHour : (start - kSettleHour + 1) / kSettleHour;
  return Instant{std::chrono::seconds{(hour + 1) * kSettleHour}};
}

// A step before it is ordered: an instant's settlements (rank 0) before its movements (rank 1,
// in the order read, which is replay's).
struct Step {
  Instant at{};
  int rank = 0;
  std::string currency;
  std::size_t order = 0;
  BalancePoint point;
};

// What the account's rows say, read once.
struct Ledger {
  std::map<std::string, Decimal> opening;  // by currency code: everything before `from`
  std::map<std::string, Currency> currencies;
  // The movements of settlement runs, by charge id, in time order (at, amount).
  std::map<std::int64_t, std::vector<std::pair<Instant, Decimal>>> run_debits;
  std::vector<Step> steps;
  // (instant, currency) → (debits, settlements) of the hours debited in [from, to).
  std::map<std::pair<Instant, std::string>, std::pair<Decimal, std::int64_t>> hours;
};

// Each settlement of a run line debited on its own: at the end of its hour, or earlier when the
// run's movement that debits it (a segment cut by a top-up, an order, a refund) came first.
void spread_run(const ChargeLine& c, Ledger& l, Instant from) {
  if (c.billed_amount.sign() <= 0) return;  // nothing moves the balance
  const std::string code(c.currency.code());
  l.currencies.emplace(code, c.currency);
  const auto debit = [&](Instant at) {
    if (at < from) {
      l.opening[code] -= c.billed_amount;
      return;
    }
    auto& [sum, count] = l.hours[{at, code}];
    sum -= c.billed_amount;
    ++count;
  };
  std::int64_t k = 0;
  if (const auto it = l.run_debits.find(c.id); it != l.run_debits.end()) {
    for (const auto& [at, amount] : it->second) {
      // The movement debits the next settlements, as many as its amount holds.
      for (Decimal left = -amount; left.sign() > 0 && k < c.repeat; ++k) {
        debit(std::min(at, hour_end_of(c, k)));
        left -= c.billed_amount;
      }
    }
  }
  for (; k < c.repeat; ++k) debit(hour_end_of(c, k));  // not debited before `to` yet
}

}  // namespace

std::vector<BalancePoint> balance_by_settlement(Database& db, std::string_view account,
                                                Instant from, Instant to) {
  Ledger l;
  for_each_balance_movement(db, account, std::nullopt, to, [&](const BalanceMovement& m) {
    if (m.settles_run && m.charge_id) {  // spread over its hours below
      l.run_debits[*m.charge_id].emplace_back(m.at, m.amount);
      return;
    }
    const std::string code(m.currency.code());
    l.currencies.emplace(code, m.currency);
    if (m.at < from) {
      l.opening[code] += m.amount;
      return;
    }
    BalancePoint p{m.at, m.currency, m.kind, m.amount, Decimal{}, 0, m.id};
    l.steps.push_back({m.at, 1, code, l.steps.size(), std::move(p)});
  });
  ChargeFilter filter;
  filter.account = std::string(account);
  filter.to = to;
  for_each_charge(db, filter, ChargeDetail::lines, [&](const ChargeLine& c) {
    if (c.kind == "settlement") spread_run(c, l, from);  // the lines run movements debit
  });
  for (const auto& [key, debit] : l.hours) {
    if (key.first >= to) continue;  // an hour settled after `to`
    BalancePoint p{key.first,    l.currencies.at(key.second),
                   "settlement", debit.first,
                   Decimal{},    debit.second,
                   std::nullopt};
    l.steps.push_back({key.first, 0, key.second, l.steps.size(), std::move(p)});
  }
  std::stable_sort(l.steps.begin(), l.steps.end(), [](const Step& a, const Step& b) {
    return std::tie(a.at, a.rank, a.currency, a.order) <
           std::tie(b.at, b.rank, b.currency, b.order);
  });
  std::vector<BalancePoint> out;
  for (const auto& [code, currency] : l.currencies) {
    out.push_back({from, currency, "opening", Decimal{}, l.opening[code], 0, std::nullopt});
  }
  for (Step& s : l.steps) {
    Decimal& balance = l.opening[s.currency];
    balance += s.point.change;
    s.point.balance = balance;
    out.push_back(std::move(s.point));
  }
  return out;
}

}  // namespace gpubill
