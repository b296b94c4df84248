// Lease versus buy: the rent side. The quote engine (quote.hpp) finds and prices the offers;
// this file only asks it the right questions and lays its answers out month by month.
//
//   payg     one month of use = one run of 730 h × utilisation, quoted with the provider's
//            settlement rounding and minimums; paid at the end of each month.
//   prepaid  the cheapest plan of prepaid terms covering the horizon (with the catalog's term
//            discounts); each order is paid at the start of its term. Prepaid bills whole
//            months whatever the utilisation.
//
// "The same GPUs": instances of the rent GPU models with k GPUs each, k = every whole GPU count
// an offer has up to the bought count, rented ceil(count / k) times. For each provider and mode
// the cheapest such option is kept (on a tie, fewer and larger instances).
#include <algorithm>
#include <map>
#include <set>

#include "gpubill/quote/quote.hpp"
#include "gpubill/tco/tco.hpp"

namespace gpubill {

namespace {

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// Whole GPU counts per instance, largest first, of offers whose GPU is one of `gpus`.
std::vector<int> instance_gpu_counts(const Catalog& catalog, const LeaseVsBuyInputs& in) {
  std::set<int, std::greater<>> counts;
  auto add = [&](Decimal k) {
    if (k < Decimal(1) || k > Decimal(in.gpu_count)) return;
    if (k == k.round(0, RoundingMode::down)) counts.insert(static_cast<int>(k.truncate_to_int()));
  };
  for (const auto& it : catalog.data().instance_types) {
    if (!in.providers.empty() && !contains(in.providers, it.provider)) continue;
    if (!it.gpu.empty() && contains(in.rent_gpus, it.gpu)) add(it.gpu_count);
    for (const auto& a : it.attachable) {
      if (!contains(in.rent_gpus, a.gpu)) continue;
      for (int n : a.counts) add(Decimal(n));
    }
  }
  return {counts.begin(), counts.end()};
}

Workload base_workload(const LeaseVsBuyInputs& in, int per_instance, BillingMode mode) {
  Workload w;
  w.name = "lease-vs-buy";
  w.source = "lease-vs-buy";
  w.gpu.models = in.rent_gpus;
  w.gpu.count = per_instance;
  w.host.min_ram_gb = Decimal{};  // GPUs only: the host is not part of "the same capacity"
  w.providers = in.providers;
  w.modes = {std::string(to_string(mode))};
  w.currency = in.currency.to_string();
  w.date = format_day(in.date);
  return w;
}

Money converted_unit_price(const QuoteLine& line, Currency to) {
  const Money& unit = *line.unit_price;
  if (unit.currency() == to) return unit;
  return Money(unit.amount() * line.fx->rate, to);
}

std::string plan_text(const rules::PrepaidPlan& plan) {
  std::string out;
  for (const auto& o : plan.orders) {
    if (!out.empty()) out += " + ";
    if (o.count > 1) out += std::to_string(o.count) + " × ";
    out += std::to_string(o.order.months) + " months × " + o.order.factor.to_string();
  }
  return out;
}

struct Candidate {
  const QuoteLine* line = nullptr;
  int instances = 0;
  Money total = tco_detail::unset();
};

// What an option rents: the offer, how many instances, its list price. Costs are left to fill.
RentOption describe(const QuoteLine& line, int instances, BillingMode mode, PriceUnit unit) {
  RentOption o;
  o.mode = mode;
  o.provider = line.provider;
  o.region = line.region;
  o.instance_type = line.instance_type;
  o.gpu = line.gpu ? line.gpu->id : std::string();
  o.gpus_per_instance = line.gpu_count;
  o.instances = instances;
  o.list_price = *line.unit_price;
  o.unit = unit;
  o.fx = line.fx;
  return o;
}

RentOption payg_option(const QuoteLine& line, int instances, const LeaseVsBuyInputs& in,
                       const Discounter& discount) {
  const Currency c = in.currency;
  const int horizon = in.horizon_months;
  RentOption o = describe(line, instances, BillingMode::payg, PriceUnit::hour);
  const Money hourly = converted_unit_price(line, c) * instances;
  o.per_month = in.utilisation.is_zero() ? Money::zero(c) : *line.total * instances;
  o.price_per_gpu_hour = Money(
      Decimal::divide(hourly.amount(), in.gpu_count, Decimal::kScale, RoundingMode::half_even), c);
  o.cumulative.push_back(Money::zero(c));
  o.cumulative_pv.push_back(Money::zero(c));
  const Money full_month = hourly * kHoursPerMonth;
  Money per_u_pv = Money::zero(c);
  for (int m = 1; m <= horizon; ++m) {
    o.cumulative.push_back(o.cumulative.back() + o.per_month);
    o.cumulative_pv.push_back(o.cumulative_pv.back() + discount.present_value(o.per_month, m));
    per_u_pv += discount.present_value(full_month, m);
  }
  o.total = o.cumulative.back();
  o.total_pv = o.cumulative_pv.back();
  o.total_line = {Money::zero(c), full_month * horizon};
  o.pv_line = {Money::zero(c), per_u_pv};
  return o;
}

RentOption prepaid_option(const QuoteLine& line, int instances, const LeaseVsBuyInputs& in,
                          const Discounter& discount) {
  const Currency c = in.currency;
  const int horizon = in.horizon_months;
  RentOption o = describe(line, instances, BillingMode::prepaid, PriceUnit::month);
  const rules::PrepaidPlan& plan = *line.plan;
  o.plan = plan_text(plan);
  if (plan.months_covered > horizon) {
    o.notes.push_back("the cheapest plan buys " + std::to_string(plan.months_covered) +
                      " months for a " + std::to_string(horizon) +
                      "-month horizon (a longer term costs less)");
  }
  // Each order paid at the start of its term, converted at the quote's rate; the last order
  // takes the remainder so the orders add up exactly to the quoted total.
  const Money total = *line.compute_converted * instances;
  std::vector<Money> paid(static_cast<std::size_t>(horizon) + 1, Money::zero(c));
  Money allotted = Money::zero(c);
  // The orders one by one (a plan for a horizon of months has few of them).
  std::vector<const rules::PrepaidOrder*> orders;
  for (const auto& o : plan.orders) {
    for (std::int64_t k = 0; k < o.count; ++k) orders.push_back(&o.order);
  }
  int start = 0;
  for (std::size_t i = 0; i < orders.size(); ++i) {
    Money charge = orders[i]->charged.currency() == c
                       ? orders[i]->charged * instances
                       : Money(orders[i]->charged.amount() * line.fx->rate, c) * instances;
    if (i + 1 == orders.size()) charge = total - allotted;
    allotted += charge;
    if (start <= horizon) paid[static_cast<std::size_t>(start)] += charge;
    start += orders[i]->months;
  }
  Money cum = Money::zero(c), cum_pv = Money::zero(c);
  for (int m = 0; m <= horizon; ++m) {
    cum += paid[static_cast<std::size_t>(m)];
    cum_pv += discount.present_value(paid[static_cast<std::size_t>(m)], m);
    o.cumulative.push_back(cum);
    o.cumulative_pv.push_back(cum_pv);
  }
  o.total = cum;
  o.total_pv = cum_pv;
  o.per_month =
      Money(Decimal::divide(total.amount(), horizon, Decimal::kScale, RoundingMode::half_even), c);
  o.price_per_gpu_hour =
      Money(Decimal::divide(total.amount(), Decimal(horizon) * kHoursPerMonth * in.gpu_count,
                            Decimal::kScale, RoundingMode::half_even),
            c);
  o.total_line = {o.total, Money::zero(c)};
  o.pv_line = {o.total_pv, Money::zero(c)};
  return o;
}

}  // namespace

std::vector<RentOption> rent_options(const Catalog& catalog, const LeaseVsBuyInputs& in,
                                     std::vector<std::string>& notes) {
  const QuoteEngine engine(catalog);
  const Discounter discount(in.cost_of_capital_yearly, in.horizon_months);
  const std::vector<int> sizes = instance_gpu_counts(catalog, in);

  // Hours per month of pay-as-you-go use; at utilisation 0 the offers are still looked up (and
  // ranked) at a full month, and cost nothing.
  const Decimal hours =
      in.utilisation.is_zero() ? Decimal(kHoursPerMonth) : Decimal(kHoursPerMonth) * in.utilisation;

  std::vector<RentOption> out;
  for (BillingMode mode : {BillingMode::payg, BillingMode::prepaid}) {
    std::map<std::string, Candidate> best;  // by provider
    std::vector<QuoteResult> results;
    results.reserve(sizes.size());
    for (int k : sizes) {
      Workload w = base_workload(in, k, mode);
      if (mode == BillingMode::payg) {
        w.duration.hours = hours;
      } else {
        w.duration.months = in.horizon_months;
      }
      results.push_back(engine.quote(resolve_workload(w, catalog)));
      const int instances = (in.gpu_count + k - 1) / k;
      for (const auto& line : results.back().lines) {
        if (!line.priced || !line.total || !line.unit_price) continue;
        if (mode == BillingMode::prepaid && !line.plan) continue;
        const Money total = *line.total * instances;
        auto it = best.find(line.provider);
        if (it == best.end() || total < it->second.total) {
          best.insert_or_assign(line.provider, Candidate{&line, instances, total});
        }
      }
    }
    for (const auto& [provider, cand] : best) {
      RentOption o = mode == BillingMode::payg
                         ? payg_option(*cand.line, cand.instances, in, discount)
                         : prepaid_option(*cand.line, cand.instances, in, discount);
      const Decimal rented = o.gpus_per_instance * o.instances;
      if (rented > Decimal(in.gpu_count)) {
        o.notes.push_back(std::to_string(o.instances) + " × " + o.gpus_per_instance.to_string() +
                          " GPUs = " + rented.to_string() + " GPUs rented for " +
                          std::to_string(in.gpu_count) + " bought");
      }
      out.push_back(std::move(o));
    }
  }
  if (sizes.empty()) {
    notes.push_back("no instance type in the catalog has whole " + in.gpu.id +
                    "-line GPUs (up to " + std::to_string(in.gpu_count) + " per instance)");
  }
  return out;
}

}  // namespace gpubill
