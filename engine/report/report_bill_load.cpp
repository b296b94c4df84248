// What the bill report shows, read from the database (include/gpubill/report/report.hpp).
#include <set>

#include "gpubill/report/report.hpp"

namespace gpubill {

BillReportData load_bill_report(Database& db, std::string_view account, int year, unsigned month,
                                const std::optional<Calendar>& calendar) {
  BillReportData d;
  d.statement = calendar ? monthly_statement(db, account, year, month, *calendar)
                         : monthly_statement(db, account, year, month);
  ChargeFilter filter;
  filter.account = std::string(account);
  filter.from = d.statement.period_start;
  filter.to = d.statement.period_end;
  d.lines = query_charges(db, filter);
  // One explanation per stored row: the parts of a run cut at the month's bounds share it.
  std::set<std::int64_t> ids;
  for (const auto& l : d.lines) ids.insert(l.id);
  for (const auto id : ids) d.explanations.push_back(explain_charge(db, id));
  InstanceStateFilter states;
  states.account = std::string(account);
  for (auto& s : query_instance_states(db, states)) {
    if (s.at < d.statement.period_end) d.states.push_back(std::move(s));
  }
  d.balance_points =
      balance_by_settlement(db, account, d.statement.period_start, d.statement.period_end);
  ChargeFilter purchases;
  purchases.account = std::string(account);
  purchases.to = d.statement.period_end;
  for_each_charge(db, purchases, ChargeDetail::lines, [&](const ChargeLine& c) {
    const auto share = amortised_share(c, d.statement.period_start, d.statement.period_end);
    if (share && !share->is_zero()) d.purchases.push_back(c);
  });
  return d;
}

}  // namespace gpubill
