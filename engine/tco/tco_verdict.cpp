// Lease versus buy: the answer in one sentence (Verdict, tco.hpp).
//
// Every total is linear in the utilisation u (LinearCost). Buying is cheaper than renting at u
// when buy(u) < rent_i(u) for every best option i (pay-as-you-go, prepaid, commitment). Each
// difference rent_i − buy is linear, so the set where it is positive is an interval of 0 … 1;
// buying is cheaper on their intersection, found from the crossing points (each exact, rounded
// half-even to 12 decimals).
#include <algorithm>

#include "gpubill/base/percent.hpp"
#include "gpubill/tco/tco.hpp"

namespace gpubill {

namespace {

// The utilisations within 0 … 1 where rent(u) − buy(u) > 0, as a closed interval; nullopt when
// there is none. At a crossing the interval ends at the crossing point.
std::optional<std::pair<Decimal, Decimal>> rent_dearer(const LinearCost& buy,
                                                       const LinearCost& rent) {
  const Decimal fixed = rent.fixed.amount() - buy.fixed.amount();
  const Decimal slope = rent.per_utilisation.amount() - buy.per_utilisation.amount();
  const Decimal zero{}, one(1);
  if (slope.is_zero()) {
    if (fixed.sign() > 0) return std::make_pair(zero, one);
    return std::nullopt;
  }
  const Decimal cross = Decimal::divide(-fixed, slope, Decimal::kScale, RoundingMode::half_even);
  if (slope.sign() > 0) {  // rent dearer above the crossing
    if (cross >= one) return std::nullopt;
    return std::make_pair(std::max(cross, zero), one);
  }
  if (cross <= zero) return std::nullopt;  // rent dearer below the crossing
  return std::make_pair(zero, std::min(cross, one));
}

std::string money(const Money& m) {
  return m.amount().round(2, RoundingMode::half_even).to_string(2) + " " + m.currency().to_string();
}

}  // namespace

Verdict verdict(const LeaseVsBuyResult& r) {
  Verdict v;
  v.buy_total = r.buy.total;
  for (const auto& best : {r.best_payg, r.best_prepaid, r.best_commitment}) {
    if (!best) continue;
    if (!v.option || r.options[*best].total < r.options[*v.option].total) v.option = best;
  }
  if (!v.option) return v;
  v.rent_total = r.options[*v.option].total;
  v.rent = v.rent_total < v.buy_total;
  v.difference = v.rent ? v.buy_total - v.rent_total : v.rent_total - v.buy_total;
  std::optional<std::pair<Decimal, Decimal>> buy_cheaper = std::make_pair(Decimal{}, Decimal(1));
  for (const auto& best : {r.best_payg, r.best_prepaid, r.best_commitment}) {
    if (!best || !buy_cheaper) continue;
    const auto dearer = rent_dearer(r.buy.total_line, r.options[*best].total_line);
    if (!dearer) {
      buy_cheaper.reset();
      continue;
    }
    buy_cheaper->first = std::max(buy_cheaper->first, dearer->first);
    buy_cheaper->second = std::min(buy_cheaper->second, dearer->second);
    if (buy_cheaper->first > buy_cheaper->second) buy_cheaper.reset();
  }
  if (buy_cheaper) v.buy_cheaper.push_back(*buy_cheaper);
  return v;
}

std::string describe(const Verdict& v, const LeaseVsBuyResult& r) {
  const std::string span = "over " + std::to_string(r.inputs.horizon_months) + " months at " +
                           share_percent_text(r.inputs.utilisation) + " utilisation";
  if (!v.option) return "Buy: nothing comparable to rent " + span + ".";
  const RentOption& o = r.options[*v.option];
  std::string what = o.provider + " " + o.instance_type;
  if (o.instances > 1) what += " × " + std::to_string(o.instances);
  what += o.mode == BillingMode::payg          ? " (pay-as-you-go)"
          : o.mode == BillingMode::prepaid     ? " (prepaid)"
          : o.mode == BillingMode::reserved_1y ? " (1-year commitment)"
                                               : " (3-year commitment)";
  std::string out;
  if (v.rent) {
    out = "Rent " + what + ": " + span + " it costs " + money(v.rent_total) + ", " +
          money(v.difference) + " less than buying (" + money(v.buy_total) + ")";
  } else {
    out = "Buy: " + span + " it costs " + money(v.buy_total) + ", " + money(v.difference) +
          " less than renting " + what + " (" + money(v.rent_total) + ")";
  }
  if (v.buy_cheaper.empty()) return out + "; renting is cheaper at every utilisation.";
  const auto& [from, to] = v.buy_cheaper.front();
  const Decimal zero{}, one(1);
  if (from == zero && to == one) return out + "; buying is cheaper at every utilisation.";
  if (from == zero)
    return out + "; buying is cheaper up to " + share_percent_text(to) + " utilisation.";
  if (to == one)
    return out + "; buying is cheaper from " + share_percent_text(from) + " utilisation up.";
  return out + "; buying is cheaper only between " + share_percent_text(from) + " and " +
         share_percent_text(to) + " utilisation.";
}

}  // namespace gpubill
