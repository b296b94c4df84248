// Replay simulation timers: prepaid expiry, recycle bin, arrears shutdown, reclaim, renewals.
#include <algorithm>

#include "replay/replay_model.hpp"
#include "replay/replay_sim_support.hpp"

namespace gpubill::replay {

void Account::set_timer(Instance& inst, int kind, Seconds t) {
  clear_timer(inst, kind);
  inst.timers[static_cast<std::size_t>(kind)] = t;
  timers_.emplace(t, kind, inst.index);
}

void Account::clear_timer(Instance& inst, int kind) {
  Seconds& slot = inst.timers[static_cast<std::size_t>(kind)];
  if (!slot) return;
  timers_.erase({slot, kind, inst.index});
  slot = 0;
}

void Account::clear_timers(Instance& inst) {
  for (int k = 0; k < kTimerKinds; ++k) clear_timer(inst, k);
}

// ---- timers ----------------------------------------------------------------------------------

void Account::schedule_spot_max_run(Sim& sim, Instance& inst, Seconds t) {
  const auto pol = sim.policy_at(inst.provider, t);
  clear_timer(inst, t_spot_max_run);
  if (!pol.row || pol.row->spot_max_run_hours <= 0) return;
  set_timer(inst, t_spot_max_run, t + Seconds{pol.row->spot_max_run_hours} * 3600);
}

void Account::schedule_prepaid(Sim& sim, Instance& inst, Seconds now) {
  auto pol = sim.policy_at(inst.provider, inst.expiry);
  if (!pol.row) pol = sim.policy_at(inst.provider, now);
  set_timer(inst, t_expiry, std::max(now, inst.expiry));
  clear_timer(inst, t_auto_renew);
  if (!inst.auto_renew || !pol.row) return;
  const auto s =
      rules::schedule_for_expiry(to_instant(inst.expiry), *pol.row, *info_of(sim, inst).calendar);
  const Seconds at = to_seconds(s.auto_renew_at);
  if (at >= now) set_timer(inst, t_auto_renew, at);
}

void Account::preempt(Sim& sim, Instance& inst, Seconds t) {
  const auto pol = sim.policy_at(inst.provider, t);
  const std::string meters = stop_meters(sim, inst, t);
  inst.state = State::preempted;
  // The timer was set by the policy in force when the run started; a later policy row
  // (Google's Spot VMs, without a maximum) does not lift it from a preemptible VM.
  const bool said = pol.row && pol.row->spot_max_run_hours > 0;
  history(sim, inst, t,
          "preempted: the provider stops a spot instance at its maximum run" +
              (said ? " of " + std::to_string(pol.row->spot_max_run_hours) + " h (policy " +
                          std::to_string(pol.row->id) + ")"
                    : std::string()) +
              meters,
          0);
}

void Account::process_timer(Sim& sim) {
  const auto [t, kind, index] = *timers_.begin();
  timers_.erase(timers_.begin());
  Instance& inst = *by_index_.at(index);
  inst.timers[static_cast<std::size_t>(kind)] = 0;
  switch (kind) {
    case t_auto_renew: {
      if (inst.state == State::destroyed || inst.state == State::recycle_bin || !inst.auto_renew)
        return;
      const auto pol = sim.policy_at(inst.provider, t);
      const auto price = sim.price_at(inst.provider, SubjectKind::instance, inst.type, inst.region,
                                      BillingMode::prepaid, t);
      if (!pol.row || !price.row || price.row->unit != PriceUnit::month) {
        history(sim, inst, t,
                "auto_renewal_failed: no monthly prepaid price or policy for " + inst.type +
                    " at " + when(t),
                inst.auto_renew_seq);
        return;
      }
      const int months = std::max(1, pol.row->auto_renew_months);
      const DiscountRow* discount = sim.catalog.discount_at(
          inst.provider, inst.family, BillingMode::prepaid, months, to_instant(t));
      const auto order = rules::prepaid_order(price.row->amount, months, discount, *pol.row);
      const Balance& b = balance(inst.currency);
      if (b.amount < order.charged.amount()) {
        const auto retry = rules::auto_renew_retry(to_instant(t), to_instant(inst.expiry), *pol.row,
                                                   *info_of(sim, inst).calendar);
        if (retry) set_timer(inst, t_auto_renew, to_seconds(*retry));
        history(sim, inst, t,
                "auto_renewal_failed: insufficient balance (the " + std::to_string(months) +
                    "-month renewal costs " + order.charged.to_string() + ", the balance is " +
                    money_text(b.amount, inst.currency) + ")" +
                    (retry ? "; tried again " + when(to_seconds(*retry)) + " (policy " +
                                 std::to_string(pol.row->id) + " retries daily until the expiry)"
                           : std::string()),
                inst.auto_renew_seq);
        return;
      }
      const Seconds new_expiry = to_seconds(rules::prepaid_term_end(
          to_instant(inst.expiry), months, *pol.row, *info_of(sim, inst).calendar));
      charge(sim,
             order_row(name, inst, "auto_renewal", inst.expiry, new_expiry, order, *price.row,
                       *pol.row, inst.auto_renew_seq),
             t, inst.auto_renew_seq, "charge");
      inst.paid += order.charged.amount();
      inst.monthly = price.row->amount.amount();
      inst.factor = order.factor;
      inst.expiry = new_expiry;
      history(sim, inst, t,
              "auto_renewal: " + std::to_string(months) + " month(s), expires " + when(new_expiry),
              inst.auto_renew_seq);
      schedule_prepaid(sim, inst, t);
      return;
    }
    case t_expiry: {
      if (inst.state != State::running && inst.state != State::stopped) return;
      inst.state = State::recycle_bin;
      auto pol = sim.policy_at(inst.provider, inst.expiry);
      if (!pol.row) pol = sim.policy_at(inst.provider, t);
      Seconds destroy_at = t;
      if (pol.row) {
        destroy_at = to_seconds(rules::schedule_for_expiry(to_instant(inst.expiry), *pol.row,
                                                           *info_of(sim, inst).calendar)
                                    .destroy_at);
      }
      set_timer(inst, t_recycle_destroy, std::max(t, destroy_at));
      history(sim, inst, t,
              "expiry: not renewed; in the recycle bin for " +
                  std::to_string(pol.row ? pol.row->recycle_bin_days : 0) +
                  " day(s), destroyed at " + when(std::max(t, destroy_at)) + " unless renewed" +
                  (pol.row ? " (policy " + std::to_string(pol.row->id) + ")" : ""),
              0);
      return;
    }
    case t_arrears_shutdown: {
      if (inst.state != State::running && inst.state != State::stopped) return;
      const bool was_running = inst.state == State::running;
      for (auto& m : inst.meters) deactivate(sim, *m, t, was_running);
      inst.state = State::arrears_stopped;
      // Reclaimed the retention period after the shutdown the arrears timeline set.
      const auto& since = balance(inst.currency).negative_since;
      const Seconds negative_since = since ? *since : t;
      const auto pol = sim.policy_at(inst.provider, negative_since);
      const Seconds reclaim =
          pol.row
              ? to_seconds(rules::arrears_timeline(to_instant(negative_since), *pol.row).reclaim_at)
              : t;
      set_timer(inst, t_reclaim, std::max(t, reclaim));
      history(sim, inst, t,
              "arrears: shut down, billing stopped; reclaimed at " + when(std::max(t, reclaim)) +
                  " unless topped up",
              0);
      return;
    }
    case t_reclaim:
    case t_recycle_destroy: {
      if (inst.state == State::destroyed) return;
      for (auto& m : inst.meters) retire(sim, *m, t, false);
      inst.state = State::destroyed;
      inst.destroyed_at = t;
      clear_timers(inst);
      history(sim, inst, t,
              kind == t_reclaim ? "reclaim: not topped up after the arrears shutdown"
                                : "recycle_bin_expired: not renewed in the recycle bin",
              0);
      retire_settled(sim, inst);
      finish_if_done(sim, inst, t);
      return;
    }
    case t_spot_max_run:
      if (inst.state == State::running) preempt(sim, inst, t);
      return;
    default:
      return;
  }
}

std::optional<std::string> Account::renew(Sim& sim, Instance& inst, const UsageEvent& ev,
                                          std::int64_t seq) {
  const Seconds t = to_seconds(ev.time);
  if (inst.mode != BillingMode::prepaid) {
    return "renew applies to prepaid instances; '" + inst.id + "' is " +
           std::string(to_string(inst.mode));
  }
  const auto pol = sim.policy_at(inst.provider, t);
  if (!pol.row) return "no billing policy for '" + inst.provider + "' at " + when(t);
  const auto price = sim.price_at(inst.provider, SubjectKind::instance, inst.type, inst.region,
                                  BillingMode::prepaid, t);
  if (!price.row || price.row->unit != PriceUnit::month) {
    return no_price(BillingMode::prepaid, inst.type, inst.region, t);
  }
  const int months = *ev.months;
  const DiscountRow* discount =
      sim.catalog.discount_at(inst.provider, inst.family, BillingMode::prepaid, months, ev.time);
  const auto order = rules::prepaid_order(price.row->amount, months, discount, *pol.row);
  const auto it = balances.find(std::string(inst.currency.code()));
  const Decimal bal = it == balances.end() ? Decimal{} : it->second.amount;
  if (bal < order.charged.amount()) {
    return "insufficient balance: the " + std::to_string(months) + "-month renewal costs " +
           order.charged.to_string() + ", the " + inst.currency.to_string() + " balance is " +
           money_text(bal, inst.currency);
  }
  // The new term starts at the old expiry (also from the recycle bin).
  const Seconds new_expiry = to_seconds(rules::prepaid_term_end(
      to_instant(inst.expiry), months, *pol.row, *info_of(sim, inst).calendar));
  charge(
      sim,
      order_row(name, inst, "renewal", inst.expiry, new_expiry, order, *price.row, *pol.row, seq),
      t, seq, "charge");
  inst.paid += order.charged.amount();
  inst.monthly = price.row->amount.amount();
  inst.factor = order.factor;
  const bool from_bin = inst.state == State::recycle_bin;
  inst.expiry = new_expiry;
  if (from_bin) {
    inst.state = State::running;
    clear_timer(inst, t_recycle_destroy);
  }
  schedule_prepaid(sim, inst, t);
  history(sim, inst, t,
          std::string(from_bin ? "renewal: from the recycle bin, " : "renewal: ") +
              std::to_string(months) + " month(s) from the old expiry, expires " + when(new_expiry),
          seq);
  return std::nullopt;
}

std::optional<std::string> Account::set_auto_renew(Sim& sim, Instance& inst, const UsageEvent& ev,
                                                   std::int64_t seq) {
  const Seconds t = to_seconds(ev.time);
  if (inst.mode != BillingMode::prepaid) {
    return "auto-renewal applies to prepaid instances; '" + inst.id + "' is " +
           std::string(to_string(inst.mode));
  }
  inst.auto_renew = *ev.auto_renew;
  inst.auto_renew_seq = seq;
  std::string reason = std::string("set_auto_renew: ") + (inst.auto_renew ? "on" : "off");
  if (inst.state != State::recycle_bin) {
    schedule_prepaid(sim, inst, t);
    if (inst.auto_renew && !inst.timers[t_auto_renew]) {
      reason += " (this term's auto-renewal time has passed; it applies from the next term)";
    }
  } else {
    clear_timer(inst, t_auto_renew);
  }
  history(sim, inst, t, reason, seq);
  return std::nullopt;
}

}  // namespace gpubill::replay
