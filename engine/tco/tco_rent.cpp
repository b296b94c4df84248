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
// an offer has up to the bought count, rented ceil(count / k) times, each with at least its
// share of the bought host's vCPUs and RAM (LeaseVsBuyConfig::host_vcpu, host_ram_gb). For each
// provider and mode the cheapest single node (k = count) is kept; a provider without one gets
// its cheapest set of smaller instances (on a tie, fewer and larger instances). A pay-as-you-go
// line whose price is below every spot price of its instance type is implausible: left out.
#include <algorithm>
#include <map>
#include <set>

#include "gpubill/quote/quote.hpp"
#include "gpubill/tco/tco.hpp"
#include "tco/tco_commit.hpp"

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
  // Each instance carries its share of the bought host (rounded up for vCPUs); without a
  // stated RAM, the quote's default floor (the GPUs' memory) applies.
  if (in.host_vcpu) {
    w.host.min_vcpu = (*in.host_vcpu * per_instance + in.gpu_count - 1) / in.gpu_count;
  }
  if (in.host_ram_gb) {
    w.host.min_ram_gb = Decimal::divide(*in.host_ram_gb * Decimal(per_instance), in.gpu_count,
                                        Decimal::kScale, RoundingMode::up);
  }
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
  // A single node is preferred to any set of smaller instances, then the lower total.
  bool better_than(const Candidate& other) const {
    if ((instances == 1) != (other.instances == 1)) return instances == 1;
    return total < other.total;
  }
};

// A price row of `line` below the lowest spot price of the same subject in force at t in any
// region, in the same currency and unit: such a pay-as-you-go price cannot be right (spot is
// sold at a deep discount from it, and regions differ far less). Returns that spot row, or
// nullptr.
const PriceRow* below_spot(const Catalog& catalog, const QuoteLine& line, Instant t) {
  for (const PriceRow* row : {line.price_row, line.gpu_price_row}) {
    if (row == nullptr) continue;
    const PriceRow* lowest = nullptr;
    for (const PriceRow* spot : catalog.prices_of(row->provider, row->subject_kind, row->subject)) {
      if (spot->mode != BillingMode::spot || spot->key_only || !spot->period.contains(t)) continue;
      if (spot->unit != row->unit || spot->amount.currency() != row->amount.currency()) continue;
      if (!lowest || spot->amount < lowest->amount) lowest = spot;
    }
    if (lowest && row->amount < lowest->amount) return lowest;
  }
  return nullptr;
}

}  // namespace

void tco_detail::fill_from_payments(RentOption& o, const std::vector<Money>& paid,
                                    const Money& total, const LeaseVsBuyInputs& in,
                                    const Discounter& discount) {
  const Currency c = total.currency();
  const int horizon = static_cast<int>(paid.size()) - 1;
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
}

RentOption tco_detail::describe_rent(const QuoteLine& line, int instances, BillingMode mode,
                                     PriceUnit unit) {
  RentOption o;
  o.mode = mode;
  o.provider = line.provider;
  o.region = line.region;
  o.instance_type = line.instance_type;
  o.gpu = line.gpu ? line.gpu->id : std::string();
  o.gpus_per_instance = line.gpu_count;
  o.instances = instances;
  if (line.instance) {
    o.vcpu = line.instance->vcpu;
    o.ram_gb = line.instance->ram_gb;
  }
  o.list_price = *line.unit_price;
  o.unit = unit;
  o.fx = line.fx;
  return o;
}

namespace {

using tco_detail::describe_rent;

RentOption payg_option(const QuoteLine& line, int instances, const LeaseVsBuyInputs& in,
                       const Discounter& discount) {
  const Currency c = in.currency;
  const int horizon = in.horizon_months;
  RentOption o = describe_rent(line, instances, BillingMode::payg, PriceUnit::hour);
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
  RentOption o = describe_rent(line, instances, BillingMode::prepaid, PriceUnit::month);
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
  tco_detail::fill_from_payments(o, paid, total, in, discount);
  return o;
}

std::string host_text(const LeaseVsBuyInputs& in) {
  std::string out;
  if (in.host_vcpu) out += " and ≥ " + std::to_string(*in.host_vcpu) + " vCPU";
  if (in.host_ram_gb) out += " and ≥ " + in.host_ram_gb->to_string() + " GB RAM";
  return out;
}

Instant instant_of(date::sys_days day) {
  return Instant{day};
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
  std::set<std::string> implausible;
  for (BillingMode mode : {BillingMode::payg, BillingMode::prepaid, BillingMode::reserved_1y,
                           BillingMode::reserved_3y}) {
    const bool commitment = mode == BillingMode::reserved_1y || mode == BillingMode::reserved_3y;
    std::map<std::string, Candidate> best;  // by provider
    std::vector<QuoteResult> results;
    results.reserve(sizes.size());
    for (int k : sizes) {
      Workload w = base_workload(in, k, mode);
      if (mode == BillingMode::payg) {
        w.duration.hours = hours;
      } else if (commitment) {
        // Held for the whole horizon: a commitment is paid whatever the utilisation.
        w.duration.hours = Decimal(kHoursPerMonth) * in.horizon_months;
      } else {
        w.duration.months = in.horizon_months;
      }
      results.push_back(engine.quote(resolve_workload(w, catalog)));
      const int instances = (in.gpu_count + k - 1) / k;
      for (const auto& line : results.back().lines) {
        if (!line.priced || !line.total || !line.unit_price) continue;
        if (mode == BillingMode::prepaid && !line.plan) continue;
        if (commitment && (!line.commitment || line.mode != mode)) continue;
        if (mode == BillingMode::payg) {
          if (const PriceRow* spot = below_spot(catalog, line, instant_of(in.date))) {
            implausible.insert(line.provider + " " + line.instance_type +
                               (line.region.empty() ? "" : " in " + line.region) + ": " +
                               line.price_row->amount.to_string() + " (row " +
                               std::to_string(line.price_row->id) + ") is below its spot price " +
                               spot->amount.to_string() + " (row " + std::to_string(spot->id) +
                               ")");
            continue;
          }
        }
        const Candidate cand{&line, instances, *line.total * instances};
        auto it = best.find(line.provider);
        if (it == best.end() || cand.better_than(it->second)) {
          best.insert_or_assign(line.provider, cand);
        }
      }
    }
    for (const auto& [provider, cand] : best) {
      RentOption o =
          mode == BillingMode::payg ? payg_option(*cand.line, cand.instances, in, discount)
          : commitment ? tco_detail::commitment_option(*cand.line, cand.instances, in, discount)
                       : prepaid_option(*cand.line, cand.instances, in, discount);
      const Decimal rented = o.gpus_per_instance * o.instances;
      if (o.instances > 1) {
        o.notes.push_back(provider + " has no single node with " + std::to_string(in.gpu_count) +
                          " of these GPUs" + host_text(in) + ": " + std::to_string(o.instances) +
                          " instances");
      }
      if (rented > Decimal(in.gpu_count)) {
        o.notes.push_back(std::to_string(o.instances) + " × " + o.gpus_per_instance.to_string() +
                          " GPUs = " + rented.to_string() + " GPUs rented for " +
                          std::to_string(in.gpu_count) + " bought");
      }
      out.push_back(std::move(o));
    }
  }
  for (const auto& text : implausible) {
    notes.push_back("left out as implausible: pay-as-you-go " + text);
  }
  const bool committed = std::any_of(out.begin(), out.end(), [](const RentOption& o) {
    return o.mode == BillingMode::reserved_1y || o.mode == BillingMode::reserved_3y;
  });
  if (!committed && !sizes.empty()) {
    if (auto first = tco_detail::first_commitment_date(catalog, in)) {
      notes.push_back("no 1- or 3-year commitment offer for these GPUs is in force on " +
                      format_day(in.date) + " (the catalog's first starts " + *first + ")");
    }
  }
  if (sizes.empty()) {
    notes.push_back("no instance type in the catalog has whole " + in.gpu.id +
                    "-line GPUs (up to " + std::to_string(in.gpu_count) + " per instance)");
  }
  return out;
}

}  // namespace gpubill
