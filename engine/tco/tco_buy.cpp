// Lease versus buy: the cost of owning, present values, and the break-even computations.
#include <stdexcept>

#include "gpubill/base/percent.hpp"
#include "gpubill/tco/tco.hpp"

namespace gpubill {

Discounter::Discounter(Decimal yearly_rate, int months)
    : monthly_rate_(Decimal::divide(yearly_rate, 12, Decimal::kScale, RoundingMode::half_even)) {
  if (months < 0) throw std::invalid_argument("Discounter: negative months");
  growth_.reserve(static_cast<std::size_t>(months) + 1);
  growth_.push_back(Decimal(1));
  const Decimal step = Decimal(1) + monthly_rate_;
  for (int m = 1; m <= months; ++m) growth_.push_back(growth_.back() * step);
}

Decimal Discounter::growth(int month) const {
  if (month < 0 || static_cast<std::size_t>(month) >= growth_.size()) {
    throw std::out_of_range("Discounter: month outside the horizon");
  }
  return growth_[static_cast<std::size_t>(month)];
}

Money Discounter::present_value(const Money& cash, int month) const {
  return Money(
      Decimal::divide(cash.amount(), growth(month), Decimal::kScale, RoundingMode::half_even),
      cash.currency());
}

BuyModel buy_model(const LeaseVsBuyInputs& in) {
  const Currency c = in.currency;
  const int horizon = in.horizon_months;
  const Money price = in.hardware_price;
  const Discounter discount(in.cost_of_capital_yearly, horizon);

  BuyModel b{};
  b.power_per_month_full_use =
      Money(in.it_kw * in.pue * Decimal(kHoursPerMonth) * in.kwh_price.amount(), c);
  b.power_per_month = b.power_per_month_full_use * in.utilisation;
  b.hosting_per_month = Money(in.it_kw * in.hosting_per_kw_month.amount(), c);
  b.maintenance_per_year = price * in.maintenance_yearly_share;
  b.residual = price * in.residual_share;

  // Maintenance accrues as price × share × m / 12 to month m, so the months add up exactly to
  // the yearly figure.
  auto maintenance_to = [&](int m) {
    return Money(Decimal::divide(b.maintenance_per_year.amount() * m, 12, Decimal::kScale,
                                 RoundingMode::half_even),
                 c);
  };

  const Money zero = Money::zero(c);
  BuyMonth first{0, price, zero, zero, zero, zero, price, price, price};
  b.months.push_back(first);
  Money fixed_pv = price, per_u_pv = zero;
  for (int m = 1; m <= horizon; ++m) {
    BuyMonth month{m,
                   zero,
                   b.power_per_month,
                   b.hosting_per_month,
                   maintenance_to(m) - maintenance_to(m - 1),
                   zero,
                   zero,
                   zero,
                   zero};
    if (m == horizon) month.residual = b.residual;
    month.net = month.power + month.hosting + month.maintenance - month.residual;
    const BuyMonth& prev = b.months.back();
    month.cumulative = prev.cumulative + month.net;
    month.cumulative_pv = prev.cumulative_pv + discount.present_value(month.net, m);
    b.months.push_back(month);
    fixed_pv += discount.present_value(month.hosting + month.maintenance - month.residual, m);
    per_u_pv += discount.present_value(b.power_per_month_full_use, m);
  }
  b.total = b.months.back().cumulative;
  b.total_pv = b.months.back().cumulative_pv;
  b.total_line = {price + b.hosting_per_month * horizon + maintenance_to(horizon) - b.residual,
                  b.power_per_month_full_use * horizon};
  b.pv_line = {fixed_pv, per_u_pv};
  return b;
}

BreakEvenUtilisation break_even_utilisation(const LinearCost& buy, const LinearCost& rent) {
  BreakEvenUtilisation r;
  const Money slope = rent.per_utilisation - buy.per_utilisation;
  const Money gap = buy.fixed - rent.fixed;
  if (slope.amount().is_zero()) {
    r.kind = BreakEvenUtilisation::Kind::parallel;
    r.renting_cheaper = rent.fixed < buy.fixed;
    return r;
  }
  r.kind = slope.amount().sign() > 0 ? BreakEvenUtilisation::Kind::renting_below
                                     : BreakEvenUtilisation::Kind::renting_above;
  r.value = Decimal::divide(gap.amount(), slope.amount(), Decimal::kScale, RoundingMode::half_even);
  return r;
}

std::string BreakEvenUtilisation::describe() const {
  using K = Kind;
  if (kind == K::parallel || !value) {
    return renting_cheaper ? "renting is cheaper at every utilisation"
                           : "buying is cheaper at every utilisation";
  }
  const Decimal v = *value;
  const std::string at = " (break-even " + share_percent_text(v) + ")";
  // Who wins below the crossing, and above it.
  const bool renting_first = kind == K::renting_below;
  const std::string low = renting_first ? "renting" : "buying";
  const std::string high = renting_first ? "buying" : "renting";
  // A crossing outside 0 … 1 is no utilisation anyone can run at: not shown.
  if (v < Decimal{}) return high + " is cheaper at every utilisation";
  if (v.is_zero()) return high + " is cheaper at every utilisation above 0" + at;
  if (v > Decimal(1)) return low + " is cheaper at every utilisation";
  if (v == Decimal(1)) return low + " is cheaper at every utilisation below 100 %" + at;
  return low + " is cheaper below " + share_percent_text(v) + " utilisation, " + high + " above";
}

std::optional<int> break_even_month(const std::vector<Money>& buy_cumulative,
                                    const std::vector<Money>& rent_cumulative) {
  if (buy_cumulative.size() != rent_cumulative.size()) {
    throw std::invalid_argument("break_even_month: series of different lengths");
  }
  std::optional<int> first;
  for (std::size_t k = buy_cumulative.size(); k-- > 0;) {
    if (!(buy_cumulative[k] <= rent_cumulative[k])) break;
    first = static_cast<int>(k);
  }
  return first;
}

}  // namespace gpubill
