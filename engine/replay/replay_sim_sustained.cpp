// Replay simulation sustained-use discounts: monthly usage hours and their credit lines.
#include <algorithm>

#include "replay/replay_model.hpp"
#include "replay/replay_sim_support.hpp"

namespace gpubill::replay {

// ---- sustained use ---------------------------------------------------------------------------

void Account::add_sustained_use(Sim& sim, const Meter& m, Seconds first_end, std::int64_t hours) {
  Instance& inst = *m.owner;
  const Run& r = m.run;
  const Calendar& cal = *info_of(sim, inst).calendar;
  SustainedGroup* g = nullptr;
  for (std::int64_t i = 0; i < hours; ++i) {
    const Seconds end = first_end + i * kHour;
    if (!g || end > g->month_end) {
      SustainedGroup probe;
      probe.provider = inst.provider;
      probe.region = inst.region;
      probe.subject = m.subject;
      probe.unit = m.unit;
      probe.currency = inst.currency;
      probe.month_start = to_seconds(cal.month_start(to_instant(end - 1)));
      probe.month_end = to_seconds(cal.next_month_start(to_instant(end - 1)));
      g = &sustained.try_emplace(sustained_key(probe), std::move(probe)).first->second;
    }
    rules::UsageHour& h = g->hours[end];
    h.seconds += r.quantity;
    h.hourly_price = r.unit_price;
    g->price_id = r.price_id;
    g->policy_id = r.policy_id;
  }
}

Seconds Account::next_sustained_close() const {
  Seconds next = kNever;
  for (const auto& [key, g] : sustained) next = std::min(next, g.month_end);
  return next;
}

void Account::close_sustained_use(Sim& sim, Seconds t) {
  for (auto it = sustained.begin(); it != sustained.end();) {
    SustainedGroup& g = it->second;
    if (g.month_end != t) {
      ++it;
      continue;
    }
    const BillingPolicy* policy = sim.policy_at(g.provider, t - 1).row;
    if (policy && !policy->sustained_use_tiers.empty()) {
      std::vector<rules::UsageHour> hours;
      hours.reserve(g.hours.size());
      std::int64_t used = 0;
      for (const auto& [end, h] : g.hours) {
        hours.push_back(h);
        used += h.seconds;
      }
      const auto su = rules::sustained_use_credit(hours, g.month_end - g.month_start,
                                                  policy->sustained_use_tiers);
      const Money exact(-su.credit, g.currency);
      const Money billed = exact.round(policy->settlement_decimals, policy->settlement_rounding);
      if (!billed.amount().is_zero() || !exact.amount().is_zero()) {
        ChargeRow row;
        row.account = name;
        row.provider = g.provider;
        row.region = g.region;
        row.instance_type = g.subject;
        row.component = "compute";
        row.kind = "sustained_use_discount";
        row.mode = "payg";
        row.currency = g.currency;
        row.period_start = g.month_start;
        row.period_end = g.month_end;
        row.quantity = std::to_string(used);
        row.unit = g.unit;
        row.unit_price = std::prev(g.hours.end())->second.hourly_price;  // the base rate
        row.price_unit = "hour";
        row.exact = exact.amount();
        row.billed = billed.amount();
        row.rounding = row.billed - row.exact;
        row.decimals = policy->settlement_decimals;
        row.price_id = g.price_id;
        row.policy_id = policy->id;
        std::string inferred;
        for (std::int64_t s : su.inferred) {
          inferred += (inferred.empty() ? "" : ", ") +
                      Decimal::divide(Decimal(s), kHour, 2, RoundingMode::half_up).to_string() +
                      " h";
        }
        std::string tiers;
        for (const auto& f : policy->sustained_use_tiers) {
          tiers += (tiers.empty() ? "" : "/") + f.to_string();
        }
        row.note = "sustained use of " + g.subject + " in " + g.region + " from " +
                   when(g.month_start) + ": " + std::to_string(su.inferred.size()) +
                   " inferred instance(s) used " + inferred + " of the month's " +
                   std::to_string((g.month_end - g.month_start) / kHour) + " h; tiers " + tiers +
                   " of the base rate (policy " + std::to_string(policy->id) + ")";
        charge(sim, row, t, 0, "charge");
      }
    }
    it = sustained.erase(it);
  }
}

}  // namespace gpubill::replay
