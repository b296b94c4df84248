// Lease versus buy: putting the buy model and the rent options side by side.
#include <algorithm>

#include "gpubill/tco/tco.hpp"

namespace gpubill {

namespace {

Money divide(const Money& m, Decimal d) {
  return Money(Decimal::divide(m.amount(), d, Decimal::kScale, RoundingMode::half_even),
               m.currency());
}

std::vector<Money> buy_series(const BuyModel& b, bool pv) {
  std::vector<Money> out;
  out.reserve(b.months.size());
  for (const auto& m : b.months) out.push_back(pv ? m.cumulative_pv : m.cumulative);
  return out;
}

}  // namespace

LeaseVsBuyResult lease_vs_buy(const Catalog& catalog, const LeaseVsBuyConfig& config) {
  LeaseVsBuyResult r;
  r.inputs = resolve_lease_vs_buy(catalog, config);
  const LeaseVsBuyInputs& in = r.inputs;
  r.buy = buy_model(in);

  r.options = rent_options(catalog, in, r.notes);
  std::stable_sort(r.options.begin(), r.options.end(),
                   [](const RentOption& a, const RentOption& b) {
                     // payg, prepaid, then 1- and 3-year commitments.
                     if (a.mode != b.mode) {
                       return static_cast<int>(a.mode) < static_cast<int>(b.mode);
                     }
                     // At utilisation 0 every pay-as-you-go total is 0: the hourly cost decides.
                     if (a.total != b.total) return a.total < b.total;
                     return a.total_line.per_utilisation < b.total_line.per_utilisation;
                   });
  // The best of each mode: the cheapest single node when there is one, else the cheapest.
  const auto better = [&](std::size_t i, const std::optional<std::size_t>& best) {
    if (!best) return true;
    const bool single = r.options[i].instances == 1, best_single = r.options[*best].instances == 1;
    return single && !best_single;  // options are sorted: the first of a kind is its cheapest
  };
  for (std::size_t i = 0; i < r.options.size(); ++i) {
    const BillingMode m = r.options[i].mode;
    if (m == BillingMode::reserved_1y || m == BillingMode::reserved_3y) {
      // Both terms share one best: a single node first, then the lower total.
      const auto& b = r.best_commitment;
      const bool single = r.options[i].instances == 1;
      if (!b ||
          (single != (r.options[*b].instances == 1) ? single
                                                    : r.options[i].total < r.options[*b].total)) {
        r.best_commitment = i;
      }
      continue;
    }
    auto& best = m == BillingMode::payg ? r.best_payg : r.best_prepaid;
    if (better(i, best)) best = i;
  }
  if (r.options.empty()) {
    r.notes.push_back("no offer in the catalog rents these GPUs (" + in.gpu.id +
                      " or its line) from the allowed providers on " + format_day(in.date));
  }

  const auto buy_nominal = buy_series(r.buy, false);
  const auto buy_pv = buy_series(r.buy, true);
  for (auto best : {r.best_payg, r.best_prepaid, r.best_commitment}) {
    if (!best) continue;
    const RentOption& o = r.options[*best];
    Comparison c;
    c.option = *best;
    c.break_even_month = break_even_month(buy_nominal, o.cumulative);
    c.break_even_month_pv = break_even_month(buy_pv, o.cumulative_pv);
    c.break_even_utilisation = break_even_utilisation(r.buy.total_line, o.total_line);
    c.break_even_utilisation_pv = break_even_utilisation(r.buy.pv_line, o.pv_line);
    c.saving = o.total - r.buy.total;
    c.saving_pv = o.total_pv - r.buy.total_pv;
    r.comparisons.push_back(c);
  }

  r.verdict = verdict(r);

  const Decimal delivered_hours =
      Decimal(in.gpu_count) * Decimal(kHoursPerMonth) * Decimal(in.horizon_months) * in.utilisation;
  if (!delivered_hours.is_zero()) r.owned_per_gpu_hour = divide(r.buy.total, delivered_hours);

  RuleOfThumb& rule = r.rule_of_thumb;
  auto yearly = [&](const Money& total) {
    return Money(Decimal::divide(total.amount() * 12, in.horizon_months, Decimal::kScale,
                                 RoundingMode::half_even),
                 total.currency());
  };
  rule.price_over_3 = divide(in.hardware_price, Decimal(3));
  rule.owner_yearly_cost = yearly(r.buy.total);
  rule.owner_yearly_running =
      (r.buy.power_per_month + r.buy.hosting_per_month) * 12 + r.buy.maintenance_per_year;
  for (const auto& c : r.comparisons) {
    RuleOfThumb::Rent rent;
    rent.option = c.option;
    rent.yearly = yearly(r.options[c.option].total);
    rent.implied_fee = rent.yearly - rule.price_over_3;
    if (!rent.yearly.amount().is_zero()) {
      rent.years_to_price = Decimal::divide(in.hardware_price.amount(), rent.yearly.amount(),
                                            Decimal::kScale, RoundingMode::half_even);
    }
    rule.rents.push_back(rent);
  }
  return r;
}

}  // namespace gpubill
