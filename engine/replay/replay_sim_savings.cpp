// Replay simulation savings plans: a commit event with a `plan` buys an AWS Savings Plan, a
// commitment of an amount per hour for 1 or 3 years; at each clock hour's end of its term, it
// covers that hour's pay-as-you-go instance usage at the plan's rates until the amount is spent,
// use it or lose it (docs/usage-log.md, "Savings plans").
//
// AWS, "Understanding how Savings Plans apply to your AWS usage"
// (docs.aws.amazon.com/savingsplans/latest/userguide/sp-applying.html): "Savings Plans apply to
// your usage after the Amazon EC2 Reserved Instances (RI) are applied"; "EC2 Instance Savings Plans
// are applied before Compute Savings Plans because Compute Savings Plans have broader
// applicability"; "Your Savings Plans are applied to your highest savings percentage first. If
// there are multiple usages with equal savings percentages, Savings Plans are applied to the first
// usage with the lowest Savings Plans rate. Savings Plans continue to apply until there are no more
// remaining usages, or your commitment is exhausted. Any remaining usage is charged at the
// On-Demand rates." A Compute plan covers every region and family; an EC2 Instance plan one
// family in one region ("commitment to usage of individual instance families in a Region").
//
// The rates are the catalog's savings_plan rows (class = the plan) in force when the plan is
// bought: "the prices you'll pay for usage stays the same through the plan term". Usage of a
// type the catalog has no rate for is not covered (it stays on demand).
#include <algorithm>

#include "replay/replay_commit_rows.hpp"
#include "replay/replay_model.hpp"
#include "replay/replay_sim_support.hpp"

namespace gpubill::replay {

namespace {

bool rate_row_of(const CommitmentRow& r, const Commitment& c) {
  return r.provider == c.provider && r.program == CommitmentProgram::savings_plan &&
         r.offering_class == c.plan && r.term_months == c.term_months &&
         to_string(r.payment) == c.payment && r.subject_kind == SubjectKind::instance &&
         r.upfront.currency() == c.currency && r.period.contains(to_instant(c.bought));
}

// Whether an EC2 Instance plan reaches usage of this family and region (a Compute plan: all).
bool in_scope(const Commitment& c, const Instance& inst) {
  if (inst.provider != c.provider) return false;
  return c.plan == "compute" || (inst.region == c.region && inst.family == c.family);
}

// One usage a plan may cover, with what orders it (sp-applying.html).
struct Pairing {
  std::size_t usage = 0, plan = 0;  // indexes into the hour's usage and commitments
  Decimal on_demand, rate;          // per hour
  const CommitmentRow* row = nullptr;
};

// (od_a − r_a) / od_a > (od_b − r_b) / od_b without division: cross-multiplied in 1e-12 units
// (prices below 10^7 per hour keep the products inside 128 bits).
bool higher_savings(const Pairing& a, const Pairing& b) {
  const auto sa = (a.on_demand.units() - a.rate.units()) * b.on_demand.units();
  const auto sb = (b.on_demand.units() - b.rate.units()) * a.on_demand.units();
  if (sa != sb) return sa > sb;
  if (a.rate != b.rate) return a.rate < b.rate;  // equal savings: the lower rate first
  if (a.plan != b.plan) return a.plan < b.plan;  // then plans in purchase order
  return a.usage < b.usage;                      // and instances in creation order
}

}  // namespace

std::optional<std::string> Account::commit_savings_plan(Sim& sim, const UsageEvent& ev,
                                                        std::int64_t seq) {
  if (*ev.payment == CommitmentPayment::partial_upfront) {
    return "a partial-upfront savings plan is not modelled (how AWS splits its commitment into "
           "upfront and monthly parts is not in the catalog): buy no_upfront or all_upfront";
  }
  for (const auto& other : commitments) {
    if (other.id == ev.id) return "commitment '" + ev.id + "' was bought before";
  }
  Commitment c;
  c.id = ev.id;
  c.seq = seq;
  c.provider = ev.provider;
  c.plan = ev.plan;
  c.region = ev.plan == "ec2_instance" ? ev.region : std::string();
  c.family = ev.family;
  c.subject = ev.family;
  c.program = std::string(to_string(CommitmentProgram::savings_plan));
  c.payment = std::string(to_string(*ev.payment));
  c.term_months = *ev.term_months;
  c.currency = *ev.currency;
  c.amount = *ev.amount;
  c.bought = to_seconds(ev.time);
  c.start = ev.start ? to_seconds(*ev.start) : (to_seconds(ev.time) + kHour - 1) / kHour * kHour;
  c.end = c.start + commitment_term_hours(c.term_months) * kHour;
  c.next_hour = c.start + kHour;
  const bool all_upfront = *ev.payment == CommitmentPayment::all_upfront;
  c.upfront = all_upfront ? c.amount * commitment_term_hours(c.term_months) : Decimal{};
  c.hourly = all_upfront ? Decimal{} : c.amount;
  // Its first rate row names it (FOCUS, explain); a plan the catalog has no rate for is refused.
  const CommitmentRow* first = nullptr;
  std::size_t rates = 0;
  for (const CommitmentRow& r : sim.catalog.data().commitments) {
    if (!rate_row_of(r, c)) continue;
    if (c.plan == "ec2_instance") {
      if (!r.region.empty() && r.region != c.region) continue;
      const InstanceType* type = sim.catalog.find_instance_type(c.provider, r.subject);
      if (!type || type->family != c.family) continue;
    }
    ++rates;
    if (!first || r.id < first->id) first = &r;
  }
  if (!first) {
    return "no " + c.plan + " savings plan rates (" + (c.term_months == 36 ? "3y " : "1y ") +
           c.payment + ", " + c.currency.to_string() + ") for " + c.provider +
           (c.family.empty() ? "" : " family " + c.family + " in " + c.region) +
           " in the catalog at " + format_instant(ev.time) +
           " (commitments of program savings_plan, docs/catalog-format.md)";
  }
  c.row_id = first->id;
  c.source = std::to_string(rates) + " rate rows";
  ChargeRow row = commitment_row(name, c, "commitment_purchase");
  row.period_start = c.start;
  row.period_end = c.end;
  row.quantity = "1";
  row.unit = "commitment";
  row.unit_price = c.upfront;
  row.price_unit = "term";
  row.exact = c.upfront;
  row.billed = c.upfront;
  row.effective = Decimal{};  // amortised onto the term's hours
  row.note = commitment_text(c) + ": " + money_text(c.amount, c.currency) + " per hour for " +
             std::to_string(commitment_term_hours(c.term_months)) + " hours, " +
             (all_upfront ? "all paid at purchase" : "billed every hour of the term") + "; term " +
             when(c.start) + " to " + when(c.end) + "; " + std::to_string(rates) +
             " rate rows of the catalog";
  charge(sim, row, to_seconds(ev.time), seq, "charge");
  commitments.push_back(std::move(c));
  return std::nullopt;
}

const CommitmentRow* Account::savings_rate(Sim& sim, std::size_t k, const std::string& type,
                                           const std::string& region) {
  const Commitment& c = commitments[k];
  const std::string key = c.id + '\n' + type + '\n' + region;
  auto it = savings_rates_.find(key);
  if (it != savings_rates_.end()) return it->second;
  const CommitmentRow* found = nullptr;
  for (const CommitmentRow* r : commitments_at(sim.catalog, c.provider, SubjectKind::instance, type,
                                               region, to_instant(c.bought))) {
    if (rate_row_of(*r, c)) {
      found = r;
      break;
    }
  }
  return savings_rates_.emplace(key, found).first->second;
}

void Account::apply_savings_plans(Sim& sim, Seconds e, std::vector<CoverCandidate>& usage) {
  for (const char* plan : {"ec2_instance", "compute"}) {
    std::vector<std::size_t> active;
    for (std::size_t k = 0; k < commitments.size(); ++k) {
      Commitment& c = commitments[k];
      if (c.plan != plan || c.next_hour != e || e > c.end) continue;
      c.next_hour += kHour;
      active.push_back(k);
    }
    if (active.empty()) continue;
    // Every (usage, plan) the plans of this kind may cover, best savings first.
    std::vector<Pairing> pairs;
    for (std::size_t i = 0; i < usage.size(); ++i) {
      const Meter& m = *usage[i].meter;
      const Instance& inst = *m.owner;
      if (usage[i].quantity <= 0 || m.source != Source::instance) continue;
      for (std::size_t k : active) {
        const Commitment& c = commitments[k];
        if (!in_scope(c, inst)) continue;
        const CommitmentRow* row = savings_rate(sim, k, m.subject, inst.region);
        if (!row) continue;
        const PriceRow* od = sim.price_at(inst.provider, SubjectKind::instance, m.subject,
                                          inst.region, BillingMode::payg, m.first_use)
                                 .row;
        if (!od || od->amount.currency() != c.currency || od->amount.amount().sign() <= 0) {
          continue;
        }
        const Decimal rate = savings_plan_rate(*row);
        if (rate.sign() <= 0) continue;
        pairs.push_back({i, k, od->amount.amount(), rate, row});
      }
    }
    std::sort(pairs.begin(), pairs.end(), higher_savings);
    std::map<std::size_t, Decimal> left;
    for (std::size_t k : active) left[k] = commitments[k].amount;
    for (const Pairing& p : pairs) {
      Decimal& budget = left[p.plan];
      std::int64_t& quantity = usage[p.usage].quantity;
      if (quantity <= 0 || budget.sign() <= 0) continue;
      // The seconds the budget pays for at this rate: budget × 3600 / rate, whole seconds.
      const auto affordable = budget.units() * 3600 / p.rate.units();
      const std::int64_t q =
          affordable < quantity ? static_cast<std::int64_t>(affordable) : quantity;
      if (q <= 0) continue;
      const Decimal spent = Decimal::divide(p.rate * q, 3600, 12, RoundingMode::half_even);
      budget -= spent;
      quantity -= q;
      covers_.push_back({usage[p.usage].meter, p.plan, q, q, e, spent, p.row});
    }
    for (std::size_t k : active) {
      const Commitment& c = commitments[k];
      // The hour's cost of the plan: its commitment, paid by the hourly fee or by the upfront.
      if (!c.hourly.is_zero()) {
        ChargeRow fee = commitment_row(name, c, "commitment_fee");
        fee.period_start = e - kHour;
        fee.period_end = e;
        fee.quantity = "1";
        fee.unit = "commitment_hour";
        fee.unit_price = c.hourly;
        fee.price_unit = "hour";
        fee.exact = c.hourly;
        fee.billed = c.hourly;
        fee.effective = Decimal{};  // on the hour's covered and unused rows
        fee.note = commitment_text(c) + ": the hour's commitment, billed every hour of the term " +
                   "used or not";
        covered_rows_.emplace_back(kAfterCovers + 2 * k, std::move(fee));
      }
      const Decimal unused_amount = left[k];
      if (unused_amount.sign() > 0) {
        ChargeRow unused = commitment_row(name, c, "commitment_unused");
        unused.period_start = e - kHour;
        unused.period_end = e;
        unused.quantity = unused_amount.to_string();
        unused.unit = "commitment_" + c.currency.to_string();
        unused.unit_price = c.amount;
        unused.price_unit = "hour";
        unused.effective = unused_amount;
        unused.note = commitment_text(c) + ": " + money_text(unused_amount, c.currency) + " of " +
                      money_text(c.amount, c.currency) + " unused this hour (use it or lose it)";
        covered_rows_.emplace_back(kAfterCovers + 2 * k + 1, std::move(unused));
      }
    }
  }
}

}  // namespace gpubill::replay
