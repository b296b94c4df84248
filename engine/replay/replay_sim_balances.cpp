// Replay simulation rows and balances: charges, history, arrears, debit segments, top-ups.
#include <algorithm>

#include "replay/replay_model.hpp"
#include "replay/replay_sim_support.hpp"

namespace gpubill::replay {

// ---- rows ----------------------------------------------------------------------------------

std::int64_t Account::charge(Sim& sim, const ChargeRow& row, Seconds at, std::int64_t seq,
                             const char* movement_kind) {
  const std::int64_t id = sim.sink.insert_charge(row);
  ++sim.charge_rows;
  const Decimal total = row.billed * row.repeat;
  if (!total.is_zero()) {
    close_debits(sim, row.currency);
    Balance& b = balance(row.currency);
    b.amount -= total;
    MovementRow mv;
    mv.account = name;
    mv.at = at;
    mv.currency = row.currency;
    mv.amount = -total;
    mv.balance_after = b.amount;
    mv.kind = movement_kind;
    mv.charge_id = id;
    if (seq) mv.event_seq = seq;
    sim.sink.insert_movement(mv);
    if (total.sign() > 0) {
      after_debit(sim, row.currency, at);
    } else if (b.negative_since && b.amount.sign() >= 0) {
      credit(sim, row.currency, Decimal{}, at, seq);  // clears arrears
    }
  }
  return id;
}

void Account::history(Sim& sim, const Instance& inst, Seconds t, std::string reason,
                      std::int64_t seq) {
  StateRow row;
  row.account = name;
  row.instance = inst.id;
  row.at = t;
  row.state = std::string(to_string(inst.state));
  row.reason = std::move(reason);
  row.event_seq = seq;
  sim.sink.insert_state(row);
}

void Account::close_debits(Sim& sim, Currency c) {
  for (auto& [index, inst] : by_index_) {
    if (inst->currency != c) continue;
    for (auto& mp : inst->meters) {
      Run& r = mp->run;
      if (r.repeat <= r.debited) continue;
      // The movement needs the row's id; a row already written is brought up to date later
      // (it stays dirty), which saves an UPDATE per open run and top-up.
      write_run(sim, *mp, /*update_row=*/false);
      r.debited = r.repeat;
      r.movement_id = 0;
    }
  }
}

// ---- balances and arrears ------------------------------------------------------------------

void Account::credit(Sim& sim, Currency c, Decimal amount, Seconds t, std::int64_t seq) {
  Balance& b = balance(c);
  b.amount += amount;
  if (!b.negative_since || b.amount.sign() < 0) return;
  b.negative_since.reset();
  for (auto& [index, inst] : by_index_) {
    if (inst->currency != c) continue;
    if (!inst->timers[t_arrears_shutdown] && !inst->timers[t_reclaim]) continue;
    clear_timer(*inst, t_arrears_shutdown);
    clear_timer(*inst, t_reclaim);
    history(sim, *inst, t,
            "arrears_cleared: the " + c.to_string() + " balance is back to " +
                money_text(b.amount, c) + "; no shutdown or reclaim",
            seq);
  }
}

void Account::after_debit(Sim& sim, Currency c, Seconds t) {
  Balance& b = balance(c);
  if (!b.funded || b.amount.sign() >= 0 || b.negative_since) return;
  b.negative_since = t;
  for (auto& [index, inst] : by_index_) {
    if (inst->currency != c || inst->mode == BillingMode::prepaid) continue;
    if (inst->state != State::running && inst->state != State::stopped) continue;
    const auto pol = sim.policy_at(inst->provider, t);
    if (!pol.row) continue;
    const auto timeline = rules::arrears_timeline(to_instant(t), *pol.row);
    const Seconds shutdown = std::max(t, to_seconds(timeline.shutdown_at));
    set_timer(*inst, t_arrears_shutdown, shutdown);
    history(sim, *inst, t,
            "arrears: the " + c.to_string() + " balance is " + money_text(b.amount, c) +
                "; shut down at " + when(shutdown) + " (grace " +
                std::to_string(pol.row->arrears_grace_hours) + " h, policy " +
                std::to_string(pol.row->id) + ") unless topped up",
            0);
  }
}

std::optional<std::string> Account::topup(Sim& sim, const UsageEvent& ev, std::int64_t seq) {
  const Seconds t = to_seconds(ev.time);
  const Currency c = *ev.currency;
  close_debits(sim, c);
  Balance& b = balance(c);
  b.funded = true;
  credit(sim, c, *ev.amount, t, seq);
  MovementRow mv;
  mv.account = name;
  mv.at = t;
  mv.currency = c;
  mv.amount = *ev.amount;
  mv.balance_after = b.amount;
  mv.kind = "topup";
  mv.event_seq = seq;
  sim.sink.insert_movement(mv);
  return std::nullopt;
}

}  // namespace gpubill::replay
