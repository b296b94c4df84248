// Replay simulation meters and runs: activate/deactivate, write and flush runs, retire, finish.
#include <algorithm>

#include "replay/replay_model.hpp"
#include "replay/replay_sim_support.hpp"

namespace gpubill::replay {

namespace {

std::string seqs_text(const std::vector<std::int64_t>& seqs) {
  std::string out;
  for (std::size_t i = 0; i < seqs.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(seqs[i]);
  }
  return out;
}

std::string price_unit_of(const Meter& m) {
  if (m.resource) return m.resource->unit;
  switch (m.source) {
    case Source::disk:
      return "gb_hour";
    case Source::bandwidth:
      return "mbps_hour";
    default:
      return "hour";
  }
}

ChargeRow run_row(const std::string& account, const Meter& m, const Run& r) {
  ChargeRow row = base_row(account, *m.owner);
  row.instance_type = r.instance_type;
  row.component = m.component;
  row.kind = "settlement";
  row.period_start = r.start;
  row.period_end = r.end;
  row.repeat = r.repeat;
  row.quantity = std::to_string(r.quantity);
  row.unit = m.unit;
  row.unit_price = r.unit_price;
  row.price_unit = price_unit_of(m);
  row.exact = r.exact;
  row.billed = r.billed;
  row.rounding = r.rounding;
  row.decimals = r.decimals;
  row.price_id = r.price_id;
  row.policy_id = r.policy_id;
  row.event_seqs = seqs_text(r.seqs);
  row.note = r.note;
  return row;
}

MovementRow run_movement(const std::string& account, const Meter& m, const Run& r) {
  MovementRow mv;
  mv.account = account;
  // Debited when it is settled: at the hour end, which for a last partial hour (a stop or a
  // destroy at 06:10) is later than the period end. settled_at is not saved, but a run reloaded
  // from the state is only rewritten after a new settlement has set it.
  mv.at = r.settled_at ? r.settled_at : r.end;
  mv.currency = m.owner->currency;
  mv.amount = -(r.billed * (r.repeat - r.debited));  // the open segment
  mv.balance_after = r.balance_after;
  mv.kind = "charge";
  mv.charge_id = r.row_id;
  return mv;
}

}  // namespace

void Account::write_run(Sim& sim, Meter& m, bool update_row) {
  Run& r = m.run;
  if (r.repeat == 0) return;
  const bool extended = r.dirty;
  if (r.row_id == 0) {
    r.row_id = sim.sink.insert_charge(run_row(name, m, r));
    ++sim.charge_rows;
  } else if (extended && update_row) {
    sim.sink.update_charge(r.row_id, run_row(name, m, r));
  }
  if (r.repeat > r.debited && !r.billed.is_zero()) {
    if (r.movement_id == 0) {
      r.movement_id = sim.sink.insert_movement(run_movement(name, m, r));
    } else if (extended) {
      sim.sink.update_movement(r.movement_id, run_movement(name, m, r));
    }
  }
  if (update_row) r.dirty = false;
}

void Account::flush(Sim& sim, Meter& m) {
  write_run(sim, m);
  m.run = Run{};
}

void Account::write_open_runs(Sim& sim) {
  for (auto& [index, inst] : by_index_) {
    for (auto& mp : inst->meters) write_run(sim, *mp);
  }
}

// ---- meters ----------------------------------------------------------------------------------

void Account::activate(Sim& sim, Meter& m, Seconds t, std::int64_t seq) {
  if (m.active) return;
  m.active = true;
  m.active_since = t;
  m.active_seq = seq;
  m.run_started = t;
  if (m.hour_end == 0 || m.waiting_cycle) {
    m.waiting_cycle = false;
    m.hour_end = piece_end(sim, m, t, sim.first_hour_end(info_of(sim, *m.owner), t));
    m.first_use = t;
    m.last_use = t;
  }
  if (std::find(m.seqs.begin(), m.seqs.end(), seq) == m.seqs.end()) m.seqs.push_back(seq);
  if (!m.listed) {
    live_.push_back(&m);
    m.listed = true;
  }
  next_hour_end_ = std::min(next_hour_end_, m.hour_end);
}

void Account::deactivate(Sim& sim, Meter& m, Seconds t, bool min_run, bool released) {
  if (!m.active) return;
  m.used += t - m.active_since;
  m.last_use = t;
  m.active = false;
  if (!m.free_exact.is_zero() || !m.free_billed.is_zero()) {
    // The run ends: an interruption credits it first (Account::interrupt), else it stands.
    m.free_exact = Decimal{};
    m.free_billed = Decimal{};
  }
  const bool disk_released = released && m.source == Source::disk;
  if ((min_run && is_compute(m)) || disk_released) {
    const BillingPolicy* policy = t >= m.cache_from && t < m.cache_until && m.policy
                                      ? m.policy
                                      : sim.policy_at(m.owner->provider, t).row;
    // A compute meter's run is from its start; a released disk's is its whole life, from its
    // instance's creation (it is not stopped with the instance).
    const Seconds run = t - (disk_released ? m.owner->created_at : m.run_started);
    const Seconds minimum = !policy                    ? 0
                            : m.source == Source::disk ? policy->disk_min_charge_seconds
                                                       : policy->min_charge_seconds_per_run;
    if (run < minimum) {
      m.extra += minimum - run;
      if (!m.note.empty()) m.note += "; ";
      m.note += "minimum " + std::to_string(minimum) +
                (m.source == Source::disk ? " s per volume (policy " : " s per run (policy ") +
                std::to_string(policy->id) + "): the run of " + std::to_string(run) + " s from " +
                when(m.run_started) + " is billed " + std::to_string(minimum) + " s (+" +
                std::to_string(minimum - run) + " s)";
    }
  }
  if (m.used == 0 && m.extra == 0) {
    // Stopped on the hour: nothing to settle in the open hour; its run is final. An open
    // settlement cycle keeps the meter listed, waiting for the cycle's end.
    m.seqs.clear();
    m.note.clear();
    if (m.cycle_end) {
      m.hour_end = m.cycle_end;
      m.waiting_cycle = true;
      next_hour_end_ = std::min(next_hour_end_, m.hour_end);
    } else {
      m.hour_end = 0;
      if (m.listed) {
        live_.erase(std::find(live_.begin(), live_.end(), &m));
        m.listed = false;
      }
    }
    flush(sim, m);
  }
}

void Account::retire(Sim& sim, Meter& m, Seconds t, bool min_run) {
  deactivate(sim, m, t, min_run, true);
  m.retired = true;
  if (!m.waiting_cycle) return;
  // Released while only waiting for its cycle's end: its last settlement record is now.
  close_cycle(sim, m, t);
  m.hour_end = 0;
  if (m.listed) {
    live_.erase(std::find(live_.begin(), live_.end(), &m));
    m.listed = false;
  }
}

// Drops the instance's retired meters whose last hour is settled.
void Account::retire_settled(Sim& sim, Instance& inst) {
  auto& ms = inst.meters;
  for (auto& m : ms) {
    if (m->retired && m->hour_end == 0 && !m->active) flush(sim, *m);
  }
  ms.erase(std::remove_if(ms.begin(), ms.end(),
                          [](const std::unique_ptr<Meter>& m) {
                            return m->retired && m->hour_end == 0 && !m->active && !m->listed;
                          }),
           ms.end());
}

// A destroyed instance whose hours are all settled: the lifetime minimum, then forget it.
void Account::finish_if_done(Sim& sim, Instance& inst, Seconds t) {
  if (inst.state != State::destroyed || !inst.meters.empty()) return;
  if (inst.mode != BillingMode::prepaid) {
    const auto pol = sim.policy_at(inst.provider, inst.destroyed_at);
    if (pol.row && pol.row->min_charge_per_lifetime &&
        inst.lifetime_billed < *pol.row->min_charge_per_lifetime) {
      const Decimal minimum = *pol.row->min_charge_per_lifetime;
      ChargeRow row = base_row(name, inst);
      row.kind = "minimum_charge";
      row.period_start = inst.created_at;
      row.period_end = inst.destroyed_at;
      row.quantity = "1";
      row.unit = "lifetime";
      row.unit_price = minimum;
      row.price_unit = "lifetime";
      row.exact = minimum - inst.lifetime_billed;
      row.billed = row.exact;
      row.rounding = Decimal{};
      row.decimals = pol.row->settlement_decimals;
      row.policy_id = pol.row->id;
      const std::int64_t seq = inst.destroy_seq ? inst.destroy_seq : inst.create_seq;
      row.event_seqs = std::to_string(seq);
      row.note = "minimum charge per instance lifetime " + money_text(minimum, inst.currency) +
                 " (policy " + std::to_string(pol.row->id) +
                 "): the lifetime's settlements came to " +
                 money_text(inst.lifetime_billed, inst.currency);
      charge(sim, row, t, seq, "charge");
    }
  }
  clear_timers(inst);
  by_index_.erase(inst.index);
  const std::string id = inst.id;
  instances.erase(id);  // `inst` is gone after this
}

}  // namespace gpubill::replay
