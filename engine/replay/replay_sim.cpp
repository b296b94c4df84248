// The replay simulation: events, hourly settlements, runs and spans, timers, arrears
// (replay_model.hpp; the rules are in rules.cpp, the semantics in docs/usage-log.md).
#include <date/tz.h>

#include <algorithm>

#include "gpubill/base/errors.hpp"
#include "replay/replay_model.hpp"

namespace gpubill::replay {

namespace {

std::string when(Seconds s) {
  return format_instant(to_instant(s));
}

std::string seqs_text(const std::vector<std::int64_t>& seqs) {
  std::string out;
  for (std::size_t i = 0; i < seqs.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(seqs[i]);
  }
  return out;
}

std::string money_text(Decimal d, Currency c) {
  return d.to_string() + " " + c.to_string();
}

// The same events (nearly always one): cheaper than vector == for the hourly fast path.
bool same_seqs(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b) {
  if (a.size() != b.size()) return false;
  if (a.size() == 1) return a[0] == b[0];
  return a == b;
}

bool is_compute(const Meter& m) {
  return m.source == Source::instance || m.source == Source::gpu;
}

// The instance type a meter's rows name.
const std::string& label_of(const Meter& m) {
  return m.source == Source::instance ? m.subject : m.owner->type;
}

MeteredResource resource_of(const Meter& m) {
  switch (m.source) {
    case Source::disk:
      return MeteredResource::disk;
    case Source::bandwidth:
      return MeteredResource::bandwidth;
    default:
      return MeteredResource::compute;
  }
}

std::string mode_price_text(BillingMode mode) {
  return std::string(to_string(mode));
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

}  // namespace

std::string_view to_string(State s) noexcept {
  switch (s) {
    case State::running:
      return "running";
    case State::stopped:
      return "stopped";
    case State::arrears_stopped:
      return "arrears_stopped";
    case State::recycle_bin:
      return "recycle_bin";
    case State::destroyed:
      return "destroyed";
  }
  return "?";
}

State parse_state(std::string_view s) {
  for (State st : {State::running, State::stopped, State::arrears_stopped, State::recycle_bin,
                   State::destroyed}) {
    if (to_string(st) == s) return st;
  }
  throw StoreError("account_state: unknown instance state '" + std::string(s) + "'");
}

// ---- Sim: providers, calendars, look-ups ---------------------------------------------------

ProviderInfo& Sim::provider(const std::string& id) {
  auto it = providers_.find(id);
  if (it != providers_.end()) return it->second;
  ProviderInfo info;
  info.provider = catalog.find_provider(id);
  if (!info.provider) throw NotFound("unknown provider '" + id + "'");
  info.calendar.emplace(info.provider->billing_time_zone);
  info.zone = date::locate_zone(info.provider->billing_time_zone);
  return providers_.emplace(id, std::move(info)).first->second;
}

Seconds Sim::next_hour_end(ProviderInfo& p, Seconds e) {
  if (e >= p.offset_from && e + kHour < p.offset_until) return e + kHour;
  const auto info = p.zone->get_info(to_instant(e));
  p.offset_from = to_seconds(info.begin);
  p.offset_until = to_seconds(info.end);
  if (e >= p.offset_from && e + kHour < p.offset_until &&
      to_seconds(p.calendar->hour_start(to_instant(e))) == e) {
    return e + kHour;
  }
  return to_seconds(p.calendar->next_hour(to_instant(e)));
}

Seconds Sim::first_hour_end(ProviderInfo& p, Seconds t) {
  return to_seconds(p.calendar->next_hour(to_instant(t)));
}

Sim::PriceAt Sim::price_at(const std::string& provider, SubjectKind kind,
                           const std::string& subject, const std::string& region, BillingMode mode,
                           Seconds t) const {
  PriceAt out;
  out.row = catalog.price_at(provider, kind, subject, region, mode, to_instant(t));
  if (out.row && out.row->period.to) out.until = to_seconds(*out.row->period.to);
  for (const PriceRow* r : catalog.prices_of(provider, kind, subject)) {
    if (r->mode != mode || !(r->region.empty() || r->region == region)) continue;
    const Seconds from = to_seconds(r->period.from);
    if (from > t) out.until = std::min(out.until, from);
  }
  return out;
}

Sim::ResourceAt Sim::resource_at(bool disk, const std::string& provider, const std::string& kind,
                                 BillingMode mode, Seconds t) const {
  ResourceAt out;
  out.row = disk ? catalog.disk_price_at(provider, kind, mode, to_instant(t))
                 : catalog.bandwidth_price_at(provider, kind, mode, to_instant(t));
  if (out.row && out.row->period.to) out.until = to_seconds(*out.row->period.to);
  const auto& rows = disk ? catalog.data().disk_prices : catalog.data().bandwidth_prices;
  for (const auto& r : rows) {
    if (r.provider != provider || r.kind != kind || r.mode != mode) continue;
    const Seconds from = to_seconds(r.period.from);
    if (from > t) out.until = std::min(out.until, from);
  }
  return out;
}

Sim::PolicyAt Sim::policy_at(const std::string& provider, Seconds t) const {
  PolicyAt out;
  out.row = catalog.policy_at(provider, to_instant(t));
  if (out.row && out.row->period.to) out.until = to_seconds(*out.row->period.to);
  for (const auto& p : catalog.data().policies) {
    if (p.provider != provider) continue;
    const Seconds from = to_seconds(p.period.from);
    if (from > t) out.until = std::min(out.until, from);
  }
  return out;
}

namespace {

// Resolves a meter's price and policy at t, through its cache.
void resolve(Sim& sim, Meter& m, Seconds t) {
  if (t >= m.cache_from && t < m.cache_until && (m.price || m.resource) && m.policy) return;
  const Instance& inst = *m.owner;
  Seconds until = kNever;
  m.price = nullptr;
  m.resource = nullptr;
  switch (m.source) {
    case Source::instance:
    case Source::gpu: {
      const auto p = sim.price_at(
          inst.provider, m.source == Source::gpu ? SubjectKind::gpu : SubjectKind::instance,
          m.subject, inst.region, inst.mode, t);
      m.price = p.row;
      until = p.until;
      break;
    }
    case Source::disk:
    case Source::bandwidth: {
      const auto r =
          sim.resource_at(m.source == Source::disk, inst.provider, m.subject, BillingMode::payg, t);
      m.resource = r.row;
      until = r.until;
      break;
    }
  }
  const auto pol = sim.policy_at(inst.provider, t);
  m.policy = pol.row;
  m.cache_from = t;
  m.cache_until = std::min(until, pol.until);
}

const Money* meter_price(const Meter& m) {
  if (m.price) return &m.price->amount;
  if (m.resource) return &m.resource->amount;
  return nullptr;
}

std::int64_t meter_price_id(const Meter& m) {
  if (m.price) return m.price->id;
  if (m.resource) return m.resource->id;
  return 0;
}

}  // namespace

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

namespace {

ChargeRow base_row(const std::string& account, const Instance& inst) {
  ChargeRow row;
  row.account = account;
  row.instance = inst.id;
  row.provider = inst.provider;
  row.region = inst.region;
  row.instance_type = inst.type;
  row.component = "compute";
  row.mode = std::string(to_string(inst.mode));
  row.currency = inst.currency;
  return row;
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

// A prepaid order (create, renewal, auto-renewal) as a charge row.
ChargeRow order_row(const std::string& account, const Instance& inst, const char* kind,
                    Seconds start, Seconds end, const rules::PrepaidOrder& order,
                    const PriceRow& price, const BillingPolicy& policy, std::int64_t seq) {
  ChargeRow row = base_row(account, inst);
  row.kind = kind;
  row.period_start = start;
  row.period_end = end;
  row.quantity = std::to_string(order.months);
  row.unit = "month";
  row.unit_price = price.amount.amount();
  row.price_unit = "month";
  row.exact = (order.list * order.factor).amount();
  row.billed = order.charged.amount();
  row.rounding = row.billed - row.exact;
  row.decimals = policy.settlement_decimals;
  row.price_id = price.id;
  row.policy_id = policy.id;
  if (order.discount) row.discount_id = order.discount->id;
  row.event_seqs = seq ? std::to_string(seq) : "";
  if (order.discount) {
    row.note = "term discount " + order.factor.to_string() + " for " +
               std::to_string(order.months) + " months";
  }
  return row;
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

// ---- indexes ---------------------------------------------------------------------------------

void Account::rebuild() {
  by_index_.clear();
  timers_.clear();
  live_.clear();
  next_hour_end_ = kNever;
  for (auto& [id, inst] : instances) by_index_[inst->index] = inst.get();
  for (auto& [index, inst] : by_index_) {
    for (int k = 0; k < kTimerKinds; ++k) {
      if (inst->timers[static_cast<std::size_t>(k)]) {
        timers_.emplace(inst->timers[static_cast<std::size_t>(k)], k, index);
      }
    }
    for (auto& m : inst->meters) {
      m->owner = inst;
      m->listed = false;
      if (m->hour_end) {
        live_.push_back(m.get());
        m->listed = true;
        next_hour_end_ = std::min(next_hour_end_, m->hour_end);
      }
    }
  }
}

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

// ---- meters ----------------------------------------------------------------------------------

namespace {
ProviderInfo& info_of(Sim& sim, Instance& inst) {
  if (!inst.pinfo) inst.pinfo = &sim.provider(inst.provider);
  return *inst.pinfo;
}
}  // namespace

void Account::activate(Sim& sim, Meter& m, Seconds t, std::int64_t seq) {
  if (m.active) return;
  m.active = true;
  m.active_since = t;
  m.active_seq = seq;
  m.run_started = t;
  if (m.hour_end == 0 || m.waiting_cycle) {
    m.waiting_cycle = false;
    m.hour_end = sim.first_hour_end(info_of(sim, *m.owner), t);
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

void Account::deactivate(Sim& sim, Meter& m, Seconds t, bool min_run) {
  if (!m.active) return;
  m.used += t - m.active_since;
  m.last_use = t;
  m.active = false;
  if (min_run && is_compute(m)) {
    const BillingPolicy* policy = t >= m.cache_from && t < m.cache_until && m.policy
                                      ? m.policy
                                      : sim.policy_at(m.owner->provider, t).row;
    const Seconds run = t - m.run_started;
    const Seconds minimum = policy ? policy->min_charge_seconds_per_run : 0;
    if (run < minimum) {
      m.extra += minimum - run;
      if (!m.note.empty()) m.note += "; ";
      m.note += "minimum " + std::to_string(minimum) + " s per run (policy " +
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
  deactivate(sim, m, t, min_run);
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

void Account::close_cycle(Sim& sim, Meter& m, Seconds t) {
  if (!m.cycle_end) return;
  Instance& inst = *m.owner;
  flush(sim, m);  // the cycle's usage rows end here
  const BillingPolicy* policy = sim.policy_at(inst.provider, std::max(m.cycle_start, t - 1)).row;
  if (!policy) policy = m.policy;
  if (policy) {
    const auto s = rules::settle_cycle(Money(m.cycle_exact, inst.currency), *policy);
    if (!s.rounding.amount().is_zero()) {
      const SettlementPeriod period = policy->settlement_period_of(resource_of(m));
      ChargeRow row = base_row(name, inst);
      row.instance_type = label_of(m);
      row.component = m.component;
      row.kind = "cycle_rounding";
      row.period_start = m.cycle_start;
      row.period_end = t;
      row.quantity = "1";
      row.unit = "settlement";
      row.unit_price = m.cycle_exact;
      row.price_unit = "settlement";
      row.exact = Decimal{};
      row.billed = s.rounding.amount();
      row.rounding = s.rounding.amount();
      row.decimals = policy->settlement_decimals;
      row.policy_id = policy->id;
      row.note = "settlement record of the " + std::string(to_string(period)) + " from " +
                 when(m.cycle_start) +
                 (t < m.cycle_end ? " (closed at release, " + when(t) + ")" : std::string()) +
                 ": usage records " + money_text(m.cycle_exact, inst.currency) + " → " +
                 std::string(to_string(policy->settlement_rounding)) + " to " +
                 std::to_string(policy->settlement_decimals) + " decimals → " +
                 money_text(s.billed.amount(), inst.currency);
      inst.lifetime_billed += row.billed;
      charge(sim, row, t, 0, "charge");
    }
  }
  m.cycle_start = 0;
  m.cycle_end = 0;
  m.cycle_exact = Decimal{};
  m.waiting_cycle = false;
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

// ---- advancing time --------------------------------------------------------------------------

void Account::advance_to(Sim& sim, Seconds t) {
  while (true) {
    const Seconds tt = timers_.empty() ? kNever : std::get<0>(*timers_.begin());
    const Seconds e = next_hour_end_;
    const Seconds sc = next_sustained_close();
    if (std::min({e, tt, sc}) > t) break;
    // At one instant: the hour's settlements, then the month's sustained-use credits, then
    // timers.
    if (e <= tt && e <= sc) {
      process_hour_end(sim, e, t);
    } else if (sc <= tt) {
      close_sustained_use(sim, sc);
    } else {
      process_timer(sim);
    }
  }
  clock = std::max(clock, t);
}

// ---- sustained use ---------------------------------------------------------------------------

namespace {

bool sustained_use_applies(const BillingPolicy& policy, const Instance& inst, const Meter& m) {
  return inst.mode == BillingMode::payg && is_compute(m) &&
         policy.sustained_use_applies_to(inst.family);
}

}  // namespace

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

// Settles one meter's open hour ending at e. Returns whether a settlement was made.
void Account::settle_meter(Sim& sim, Meter& m, Seconds e) {
  Instance& inst = *m.owner;
  if (m.active) {
    m.used += e - m.active_since;
    m.active_since = e;
    m.last_use = e;
  }
  const std::int64_t raw = m.used + m.extra;
  if (raw > 0) {
    resolve(sim, m, m.first_use);
    const Money* price = meter_price(m);
    if (!price || !m.policy) {
      history(sim, inst, e,
              "unpriced: no " + mode_price_text(inst.mode) + " price or policy for " + m.component +
                  " " + m.subject + " at " + when(m.first_use) + "; the hour ending " + when(e) +
                  " (" + std::to_string(raw) + " s) is not charged",
              0);
    } else {
      const BillingPolicy& policy = *m.policy;
      const MeteredResource resource = resource_of(m);
      const SettlementPeriod period = policy.settlement_period_of(resource);
      // A policy change to hourly settlement ends the open cycle before this hour.
      if (m.cycle_end && period == SettlementPeriod::hour) close_cycle(sim, m, m.first_use);
      const std::int64_t price_id = meter_price_id(m);
      const std::string& label = label_of(m);
      Run& r = m.run;
      const bool full =
          m.first_use == e - kHour && m.used == kHour && m.extra == 0 && m.note.empty();
      if (full && r.repeat > 0 && r.full_hour && r.end == e - kHour && r.price_id == price_id &&
          r.unit_price == price->amount() && r.policy_id == policy.id &&
          same_seqs(r.seqs, m.seqs) && (m.source == Source::instance || r.instance_type == label)) {
        ++r.repeat;
        r.end = e;
        if (r.row_id) r.dirty = true;
      } else {
        const std::int64_t metered = rules::metered_seconds(raw, policy);
        const std::int64_t quantity = metered * m.multiplier;
        const auto s = rules::usage_record(*price, quantity, policy, resource);
        flush(sim, m);
        r.repeat = 1;
        r.start = m.first_use;
        r.end = full ? e : std::min(e, std::max(m.last_use, m.first_use + raw));
        r.full_hour = full && metered == kHour;
        r.quantity = quantity;
        r.unit_price = price->amount();
        r.price_id = price_id;
        r.policy_id = policy.id;
        r.exact = s.exact.amount();
        r.billed = s.billed.amount();
        r.rounding = s.rounding.amount();
        r.decimals = policy.settlement_decimals;
        r.seqs = m.seqs;
        r.instance_type = label;
        r.note = m.note;
        if (metered != raw) {
          if (!r.note.empty()) r.note += "; ";
          r.note += std::to_string(raw) + " s metered in units of " +
                    std::to_string(policy.metering_granularity_seconds) +
                    " s = " + std::to_string(metered) + " s";
        }
      }
      r.settled_at = e;
      balance_of(inst).amount -= r.billed;
      inst.lifetime_billed += r.billed;
      ++sim.settlements;
      if (period != SettlementPeriod::hour) {
        if (!m.cycle_end) {
          const Calendar& cal = *info_of(sim, inst).calendar;
          m.cycle_start = to_seconds(rules::cycle_start(period, to_instant(m.first_use), cal));
          m.cycle_end = to_seconds(rules::cycle_end(period, to_instant(m.first_use), cal));
        }
        m.cycle_exact += r.exact;
      }
      if (sustained_use_applies(policy, inst, m)) add_sustained_use(sim, m, e, 1);
    }
  }
  m.used = 0;
  m.extra = 0;
  m.note.clear();
  m.seqs.clear();
  if (m.cycle_end && e >= m.cycle_end) close_cycle(sim, m, e);
  m.waiting_cycle = false;
  if (m.active) {
    m.seqs.push_back(m.active_seq);
    m.first_use = e;
    m.last_use = e;
    m.hour_end = sim.next_hour_end(info_of(sim, inst), e);
  } else if (m.cycle_end && !m.retired) {
    m.hour_end = m.cycle_end;  // stopped: wait for the cycle's end to round its record
    m.waiting_cycle = true;
  } else {
    if (m.cycle_end) close_cycle(sim, m, e);  // released: its last settlement record
    m.hour_end = 0;
  }
}

void Account::process_hour_end(Sim& sim, Seconds e, Seconds target) {
  auto& settled = sim.scratch;
  settled.clear();
  Seconds next = kNever, valid_until = kNever, grid_until = kNever;
  bool steady = true;
  std::size_t w = 0;
  // Balances debited at e (few): checked for arrears once all of e is settled.
  std::array<Instance*, 4> touched{};
  std::size_t n_touched = 0;
  bool overflow_touched = false;
  for (std::size_t i = 0; i < live_.size(); ++i) {
    Meter* m = live_[i];
    if (m->hour_end != e) {
      if (m->hour_end == 0) {
        m->listed = false;
        continue;
      }
      if (m->waiting_cycle && m->hour_end - kHour > e) {
        // Stopped, waiting to round its cycle: the others may run on in bulk until then.
        valid_until = std::min(valid_until, m->hour_end - kHour);
      } else {
        steady = false;
      }
      next = std::min(next, m->hour_end);
      live_[w++] = m;
      continue;
    }
    settle_meter(sim, *m, e);
    settled.push_back(m);
    {
      const Balance* b = &balance_of(*m->owner);
      bool seen = false;
      for (std::size_t k = 0; k < n_touched; ++k) seen = seen || touched[k]->bal == b;
      if (!seen) {
        if (n_touched < touched.size()) {
          touched[n_touched++] = m->owner;
        } else {
          overflow_touched = true;
        }
      }
    }
    if (m->hour_end == 0) {
      m->listed = false;
      continue;
    }
    live_[w++] = m;
    next = std::min(next, m->hour_end);
    if (!steady) continue;
    // Will the next hour be identical to this one?
    const Run& r = m->run;
    const ProviderInfo& p = info_of(sim, *m->owner);
    const bool same = r.repeat > 0 && r.full_hour && r.end == e && m->hour_end == e + kHour &&
                      (m->cycle_end == 0 || e + kHour < m->cycle_end) && m->seqs.size() == 1 &&
                      r.seqs.size() == 1 && r.seqs[0] == m->seqs[0] && e >= m->cache_from &&
                      e < m->cache_until && meter_price(*m) && m->policy &&
                      meter_price_id(*m) == r.price_id &&
                      meter_price(*m)->amount() == r.unit_price && m->policy->id == r.policy_id &&
                      (m->source == Source::instance || r.instance_type == label_of(*m));
    if (!same) {
      steady = false;
      continue;
    }
    valid_until = std::min(valid_until, m->cache_until);
    if (m->cycle_end) valid_until = std::min(valid_until, m->cycle_end - kHour);
    grid_until = std::min(grid_until,
                          (p.offset_from <= e && e + kHour < p.offset_until) ? p.offset_until : e);
  }
  live_.resize(w);
  next_hour_end_ = next;
  if (overflow_touched) {
    for (auto& [code, b] : balances) after_debit(sim, Currency::parse(code), e);
  } else {
    for (std::size_t i = 0; i < n_touched; ++i) {
      const Balance& b = *touched[i]->bal;
      if (b.funded && b.amount.sign() < 0 && !b.negative_since) {
        after_debit(sim, touched[i]->currency, e);
      }
    }
  }
  for (Meter* m : settled) {
    if (m->run.repeat > 0 && m->run.settled_at == e) {
      m->run.balance_after = balance_of(*m->owner).amount;
    }
  }
  // Meters whose run ended: write the final row; retired ones leave their instance.
  std::vector<Instance*> finished;
  for (Meter* m : settled) {
    if (m->hour_end != 0 || m->active) continue;
    flush(sim, *m);
    if (m->retired && std::find(finished.begin(), finished.end(), m->owner) == finished.end()) {
      finished.push_back(m->owner);
    }
  }
  settled.clear();
  std::sort(finished.begin(), finished.end(),
            [](const Instance* a, const Instance* b) { return a->index < b->index; });
  for (Instance* inst : finished) {
    retire_settled(sim, *inst);
    finish_if_done(sim, *inst, e);
  }
  if (!steady || live_.empty()) return;
  const Seconds tt = timers_.empty() ? kNever : std::get<0>(*timers_.begin());
  bulk(sim, e, std::min({target, tt, next_sustained_close()}), valid_until, grid_until);
}

// Every live meter settled a full, steady hour at e: settle the following hours up to `bound`
// at once, as far as prices, policies, the zone's offset and the balance allow.
void Account::bulk(Sim& sim, Seconds e, Seconds bound, Seconds valid_until, Seconds grid_until) {
  if (bound <= e) return;
  if (std::all_of(live_.begin(), live_.end(), [](const Meter* m) { return m->waiting_cycle; })) {
    return;  // nothing settles before the first waiting cycle ends
  }
  Seconds n = (bound - e) / kHour;
  // Hour k (1-based) starts at e + (k−1)·3600 and must start before any price/policy change.
  if (valid_until != kNever) n = std::min(n, (valid_until - e - 1) / kHour + 1);
  // The hour end after the span, e + (n+1)·3600, must still be in the same UTC offset.
  if (grid_until != kNever) n = std::min(n, (grid_until - e - 1) / kHour - 1);
  if (n <= 0) return;
  // Hourly debit per currency, and the first hour that would make a funded balance negative.
  struct Debit {
    std::string code;
    Decimal hourly;
  };
  std::vector<Debit> debits;
  for (Meter* m : live_) {
    if (m->waiting_cycle) continue;
    const std::string_view code = m->owner->currency.code();
    auto it =
        std::find_if(debits.begin(), debits.end(), [&](const Debit& d) { return d.code == code; });
    if (it == debits.end()) {
      debits.push_back({std::string(code), m->run.billed});
    } else {
      it->hourly += m->run.billed;
    }
  }
  for (const Debit& d : debits) {
    const Balance& b = balances[d.code];
    if (!b.funded || b.negative_since || d.hourly.sign() <= 0) continue;
    // b.amount >= 0 here (a negative funded balance has negative_since set).
    const int128_t k = b.amount.units() / d.hourly.units() + 1;
    if (k < n) n = static_cast<Seconds>(k);
  }
  if (n <= 0) return;
  Seconds waiting_until = kNever;
  for (Meter* m : live_) {
    if (m->waiting_cycle) {
      waiting_until = std::min(waiting_until, m->hour_end);
      continue;
    }
    Run& r = m->run;
    if (m->cycle_end) m->cycle_exact += r.exact * n;
    if (m->policy && sustained_use_applies(*m->policy, *m->owner, *m)) {
      add_sustained_use(sim, *m, e + kHour, n);
    }
    r.repeat += n;
    r.end += n * kHour;
    r.settled_at = r.end;
    if (r.row_id) r.dirty = true;
    m->hour_end += n * kHour;
    m->first_use = m->active_since = m->last_use = m->hour_end - kHour;
    m->owner->lifetime_billed += r.billed * n;
  }
  const auto settling =
      std::count_if(live_.begin(), live_.end(), [](const Meter* m) { return !m->waiting_cycle; });
  sim.settlements += n * static_cast<std::int64_t>(settling);
  next_hour_end_ = std::min(e + (n + 1) * kHour, waiting_until);
  const Seconds last = e + n * kHour;
  for (const Debit& d : debits) {
    balances[d.code].amount -= d.hourly * n;
    after_debit(sim, Currency::parse(d.code), last);
  }
  for (Meter* m : live_) {
    if (!m->waiting_cycle) m->run.balance_after = balance_of(*m->owner).amount;
  }
}

// ---- timers ----------------------------------------------------------------------------------

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
      const Seconds new_expiry =
          to_seconds(info_of(sim, inst).calendar->add_months(to_instant(inst.expiry), months));
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
    default:
      return;
  }
}

// ---- events ------------------------------------------------------------------------------------

std::optional<std::string> Account::apply(Sim& sim, const UsageEvent& ev, std::int64_t seq) {
  switch (ev.type) {
    case EventType::topup:
      return topup(sim, ev, seq);
    case EventType::create:
      return create(sim, ev, seq);
    default:
      break;
  }
  auto it = instances.find(ev.instance);
  if (it == instances.end()) {
    return "unknown instance '" + ev.instance + "' in account '" + name +
           "' (not created, or destroyed and settled)";
  }
  Instance& inst = *it->second;
  if (inst.state == State::destroyed) {
    return "instance '" + ev.instance + "' was destroyed at " + when(inst.destroyed_at);
  }
  const Seconds t = to_seconds(ev.time);
  switch (ev.type) {
    case EventType::start:
      return start(sim, inst, t, seq);
    case EventType::stop:
      return stop(sim, inst, t, seq);
    case EventType::resize:
      return resize(sim, inst, ev, seq);
    case EventType::renew:
      return renew(sim, inst, ev, seq);
    case EventType::set_auto_renew:
      return set_auto_renew(sim, inst, ev, seq);
    case EventType::destroy:
      return destroy(sim, inst, t, seq, ev.return_kind);
    default:
      return "unsupported event";
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

namespace {

std::string no_price(BillingMode mode, const std::string& what, const std::string& region,
                     Seconds t) {
  return "no " + std::string(to_string(mode)) + " price for " + what +
         (region.empty() ? "" : " in " + region) + " at " + when(t);
}

// Whole calendar months from t to `end` (0 when less than one).
int whole_months(const Calendar& cal, Seconds t, Seconds end) {
  int m = 0;
  while (m < 1200 && to_seconds(cal.add_months(to_instant(t), m + 1)) <= end) ++m;
  return m;
}

struct ResourcePlan {
  std::string component, kind, unit;
  bool disk = true;
  std::int64_t size = 0;
  const ResourcePriceRow* row = nullptr;
  std::string unpriced;  // why it is not charged
};

}  // namespace

std::optional<std::string> Account::create(Sim& sim, const UsageEvent& ev, std::int64_t seq) {
  const Seconds t = to_seconds(ev.time);
  if (auto it = instances.find(ev.instance); it != instances.end()) {
    if (it->second->state == State::destroyed) {
      return "instance '" + ev.instance + "' was destroyed at " + when(it->second->destroyed_at) +
             " and its last hour is not settled yet; use a new instance id";
    }
    return "instance '" + ev.instance + "' already exists in account '" + name + "'";
  }
  const Catalog& cat = sim.catalog;
  const Provider* provider = cat.find_provider(ev.provider);
  if (!provider) return "unknown provider '" + ev.provider + "'";
  const InstanceType* type = cat.find_instance_type(ev.provider, ev.instance_type);
  if (!type) {
    return "unknown instance type '" + ev.instance_type + "' for provider '" + ev.provider + "'";
  }
  const auto pol = sim.policy_at(ev.provider, t);
  if (!pol.row) return "no billing policy for '" + ev.provider + "' at " + when(t);
  const BillingPolicy& policy = *pol.row;
  const BillingMode mode = *ev.mode;
  if (mode != BillingMode::prepaid && !policy.payg_available) {
    return "pay-as-you-go is not available at " + ev.provider + " (policy " +
           std::to_string(policy.id) + ")";
  }
  const auto price = sim.price_at(ev.provider, SubjectKind::instance, type->id, ev.region, mode, t);
  if (!price.row) return no_price(mode, type->id, ev.region, t);
  const PriceUnit expected = mode == BillingMode::prepaid ? PriceUnit::month : PriceUnit::hour;
  if (price.row->unit != expected) {
    return "price row " + std::to_string(price.row->id) + " of " + type->id + " is per " +
           std::string(to_string(price.row->unit)) + "; a " + std::string(to_string(mode)) +
           " instance needs a price per " + std::string(to_string(expected));
  }
  const Currency ccy = price.row->amount.currency();
  // Attachable GPUs (a host priced without them, GPUs priced per GPU).
  const PriceRow* gpu_price = nullptr;
  std::string gpu_model;
  if (ev.gpus) {
    if (type->attachable.empty()) {
      return type->id +
             " takes no attachable GPUs (built-in GPUs are in its price); remove "
             "'gpus'";
    }
    if (mode == BillingMode::prepaid) {
      return "attachable GPUs are billed pay-as-you-go or spot only";
    }
    const AttachableGpu* a = nullptr;
    std::string models;
    for (const auto& g : type->attachable) models += (models.empty() ? "" : ", ") + g.gpu;
    if (!ev.gpu.empty()) {
      const Gpu* g = cat.find_gpu(ev.gpu);
      const std::string id = g ? g->id : ev.gpu;
      for (const auto& x : type->attachable) {
        if (x.gpu == id) a = &x;
      }
      if (!a) return type->id + " does not take GPU '" + ev.gpu + "' (it takes: " + models + ")";
    } else if (type->attachable.size() == 1) {
      a = &type->attachable.front();
    } else {
      return type->id + " takes several GPU models (" + models + "); name one in 'gpu'";
    }
    if (std::find(a->counts.begin(), a->counts.end(), *ev.gpus) == a->counts.end()) {
      std::string counts;
      for (int n : a->counts) counts += (counts.empty() ? "" : ", ") + std::to_string(n);
      return type->id + " takes " + counts + " × " + a->gpu + ", not " + std::to_string(*ev.gpus);
    }
    const auto gp = sim.price_at(ev.provider, SubjectKind::gpu, a->gpu, ev.region, mode, t);
    if (!gp.row) return no_price(mode, "GPU " + a->gpu, ev.region, t);
    if (gp.row->unit != PriceUnit::hour) {
      return "price row " + std::to_string(gp.row->id) + " of GPU " + a->gpu + " is not per hour";
    }
    if (gp.row->amount.currency() != ccy) {
      return "GPU " + a->gpu + " is priced in " + gp.row->amount.currency().to_string() + " and " +
             type->id + " in " + ccy.to_string() + "; one instance bills in one currency";
    }
    gpu_price = gp.row;
    gpu_model = a->gpu;
  } else if (!ev.gpu.empty()) {
    return "'gpu' needs 'gpus'";
  }
  const auto bal_it = balances.find(std::string(ccy.code()));
  const Decimal bal = bal_it == balances.end() ? Decimal{} : bal_it->second.amount;
  const bool funded = bal_it != balances.end() && bal_it->second.funded;
  std::optional<rules::PrepaidOrder> order;
  if (mode == BillingMode::prepaid) {
    const DiscountRow* discount =
        cat.discount_at(ev.provider, type->family, BillingMode::prepaid, *ev.months, ev.time);
    order = rules::prepaid_order(price.row->amount, *ev.months, discount, policy);
    if (bal < order->charged.amount()) {
      return "insufficient balance: the " + std::to_string(*ev.months) + "-month order costs " +
             order->charged.to_string() + ", the " + ccy.to_string() + " balance is " +
             money_text(bal, ccy);
    }
  } else if (funded && bal.sign() < 0) {
    return "the " + ccy.to_string() + " balance is negative (" + money_text(bal, ccy) +
           "): top up before creating a pay-as-you-go instance";
  }
  // Disks and bandwidth: priced where the catalog has an hourly price, else noted (never 0).
  std::vector<ResourcePlan> resources;
  auto plan = [&](const std::string& component, const std::string& kind, std::int64_t size,
                  bool disk, const std::string& what) {
    ResourcePlan p;
    p.component = component;
    p.kind = kind;
    p.size = size;
    p.disk = disk;
    const std::string hourly_unit = disk ? "gb_hour" : "mbps_hour";
    if (mode == BillingMode::prepaid) {
      p.unpriced = "unpriced: " + what +
                   " of a prepaid instance is not billed by this version "
                   "(prepaid disk and bandwidth orders are not modelled); "
                   "not charged";
    } else {
      const auto r = sim.resource_at(disk, ev.provider, kind, BillingMode::payg, t);
      if (!r.row) {
        p.unpriced = "unpriced: " + what + " has no pay-as-you-go " +
                     (disk ? "disk" : "bandwidth") + " price in the catalog at " + when(t) +
                     "; not charged";
      } else if (r.row->unit != hourly_unit) {
        p.unpriced = "unpriced: " + what + " is priced per " + r.row->unit + " (row " +
                     std::to_string(r.row->id) + "), which is not settled hourly; not charged";
      } else if (r.row->amount.currency() != ccy) {
        p.unpriced = "unpriced: " + what + " is priced in " + r.row->amount.currency().to_string() +
                     ", the instance in " + ccy.to_string() + "; not charged";
      } else {
        p.row = r.row;
        p.unit = disk ? "gb_second" : "mbps_second";
      }
    }
    resources.push_back(std::move(p));
  };
  if (ev.system_disk) {
    plan("system_disk", ev.system_disk->kind, ev.system_disk->size_gb, true,
         "system disk " + ev.system_disk->kind + " " + std::to_string(ev.system_disk->size_gb) +
             " GB");
  }
  for (std::size_t i = 0; i < ev.data_disks.size(); ++i) {
    const auto& d = ev.data_disks[i];
    plan("data_disk", d.kind, d.size_gb, true,
         "data disk " + std::to_string(i + 1) + " (" + d.kind + " " + std::to_string(d.size_gb) +
             " GB)");
  }
  if (ev.bandwidth_mbps && *ev.bandwidth_mbps > 0) {
    plan("bandwidth", "fixed_mbps", *ev.bandwidth_mbps, false,
         "bandwidth " + std::to_string(*ev.bandwidth_mbps) + " Mbps");
  }

  // ---- accepted: build the instance
  auto owned = std::make_unique<Instance>();
  Instance& inst = *owned;
  inst.id = ev.instance;
  inst.index = next_index++;
  inst.provider = ev.provider;
  inst.region = ev.region;
  inst.type = type->id;
  inst.family = type->family;
  inst.mode = mode;
  inst.currency = ccy;
  inst.state = State::running;
  inst.created_at = t;
  inst.create_seq = seq;
  inst.gpus = ev.gpus.value_or(0);
  inst.gpu_model = gpu_model;
  instances.emplace(inst.id, std::move(owned));
  by_index_[inst.index] = &inst;
  history(sim, inst, t,
          "create: " + std::string(to_string(mode)) + " " + inst.type +
              (inst.gpus ? " + " + std::to_string(inst.gpus) + " × " + gpu_model : ""),
          seq);
  for (const auto& r : resources) {
    if (!r.unpriced.empty()) history(sim, inst, t, r.unpriced, seq);
  }
  if (mode == BillingMode::prepaid) {
    const Calendar& cal = *info_of(sim, inst).calendar;
    inst.purchased_at = t;
    inst.expiry = to_seconds(cal.add_months(ev.time, *ev.months));
    inst.paid = order->charged.amount();
    inst.monthly = price.row->amount.amount();
    inst.factor = order->factor;
    inst.auto_renew = ev.auto_renew.value_or(false);
    inst.auto_renew_seq = seq;
    charge(sim,
           order_row(name, inst, "prepaid_order", t, inst.expiry, *order, *price.row, policy, seq),
           t, seq, "charge");
    schedule_prepaid(sim, inst, t);
    return std::nullopt;
  }
  auto add_meter = [&](const std::string& component, Source source, const std::string& subject,
                       std::int64_t multiplier, const std::string& unit) {
    auto m = std::make_unique<Meter>();
    m->owner = &inst;
    m->component = component;
    m->source = source;
    m->subject = subject;
    m->multiplier = multiplier;
    m->unit = unit;
    inst.meters.push_back(std::move(m));
    activate(sim, *inst.meters.back(), t, seq);
  };
  add_meter("compute", Source::instance, type->id, 1, "second");
  if (gpu_price) add_meter("compute", Source::gpu, gpu_model, inst.gpus, "gpu_second");
  for (const auto& r : resources) {
    if (!r.row) continue;
    add_meter(r.component, r.disk ? Source::disk : Source::bandwidth, r.kind, r.size, r.unit);
  }
  return std::nullopt;
}

std::optional<std::string> Account::start(Sim& sim, Instance& inst, Seconds t, std::int64_t seq) {
  switch (inst.state) {
    case State::running:
      return "instance '" + inst.id + "' is already running";
    case State::recycle_bin:
      return "instance '" + inst.id + "' is in the recycle bin since its expiry at " +
             when(inst.expiry) + ": renew it first";
    default:
      break;
  }
  if (inst.mode != BillingMode::prepaid) {
    const auto it = balances.find(std::string(inst.currency.code()));
    const Decimal bal = it == balances.end() ? Decimal{} : it->second.amount;
    const bool funded = it != balances.end() && it->second.funded;
    if (inst.state == State::arrears_stopped && bal.sign() <= 0) {
      return "instance '" + inst.id + "' was shut down for arrears: top up to a positive " +
             inst.currency.to_string() + " balance first (it is " + money_text(bal, inst.currency) +
             ")";
    }
    if (funded && bal.sign() < 0) {
      return "the " + inst.currency.to_string() + " balance is negative (" +
             money_text(bal, inst.currency) + "): top up first";
    }
    if (!sim.catalog.price_at(inst.provider, SubjectKind::instance, inst.type, inst.region,
                              inst.mode, to_instant(t))) {
      return no_price(inst.mode, inst.type, inst.region, t);
    }
  }
  const State before = inst.state;
  inst.state = State::running;
  for (auto& m : inst.meters) {
    if (!m->retired) activate(sim, *m, t, seq);
  }
  history(sim, inst, t,
          before == State::arrears_stopped ? "start: after the arrears shutdown" : "start", seq);
  return std::nullopt;
}

std::optional<std::string> Account::stop(Sim& sim, Instance& inst, Seconds t, std::int64_t seq) {
  switch (inst.state) {
    case State::stopped:
      return "instance '" + inst.id + "' is already stopped";
    case State::arrears_stopped:
      return "instance '" + inst.id + "' is already stopped (arrears shutdown)";
    case State::recycle_bin:
      return "instance '" + inst.id + "' is in the recycle bin (stopped since its expiry)";
    default:
      break;
  }
  inst.state = State::stopped;
  std::string reason = "stop";
  if (inst.mode != BillingMode::prepaid) {
    const auto pol = sim.policy_at(inst.provider, t);
    const bool compute_charged = pol.row && pol.row->stopped_payg_compute_charged;
    for (auto& m : inst.meters) {
      if (is_compute(*m) && !compute_charged) deactivate(sim, *m, t, true);
    }
    if (compute_charged) {
      reason +=
          ": compute is still charged while stopped (policy " + std::to_string(pol.row->id) + ")";
    }
    bool other = false;
    for (auto& m : inst.meters) other = other || (!is_compute(*m) && m->active);
    if (other)
      reason += (compute_charged ? "; " : ": ") + std::string("disks and bandwidth keep charging");
  }
  history(sim, inst, t, reason, seq);
  return std::nullopt;
}

std::optional<std::string> Account::resize(Sim& sim, Instance& inst, const UsageEvent& ev,
                                           std::int64_t seq) {
  const Seconds t = to_seconds(ev.time);
  if (inst.state == State::recycle_bin) {
    return "instance '" + inst.id + "' is in the recycle bin: renew it first";
  }
  if (inst.state == State::arrears_stopped) {
    return "instance '" + inst.id + "' was shut down for arrears";
  }
  const InstanceType* type = sim.catalog.find_instance_type(inst.provider, ev.instance_type);
  if (!type) {
    return "unknown instance type '" + ev.instance_type + "' for provider '" + inst.provider + "'";
  }
  if (type->id == inst.type) return "instance '" + inst.id + "' is already " + type->id;
  const auto pol = sim.policy_at(inst.provider, t);
  if (!pol.row) return "no billing policy for '" + inst.provider + "' at " + when(t);
  const auto price =
      sim.price_at(inst.provider, SubjectKind::instance, type->id, inst.region, inst.mode, t);
  if (!price.row) return no_price(inst.mode, type->id, inst.region, t);
  if (price.row->amount.currency() != inst.currency) {
    return type->id + " is priced in " + price.row->amount.currency().to_string() +
           ", the instance bills in " + inst.currency.to_string();
  }
  if (inst.gpus) {
    bool ok = false;
    for (const auto& a : type->attachable) {
      if (a.gpu == inst.gpu_model &&
          std::find(a.counts.begin(), a.counts.end(), inst.gpus) != a.counts.end())
        ok = true;
    }
    if (!ok) {
      return type->id + " does not take " + std::to_string(inst.gpus) + " × " + inst.gpu_model;
    }
  }
  const std::string old_type = inst.type;
  if (inst.mode == BillingMode::prepaid) {
    if (price.row->unit != PriceUnit::month) return "no monthly prepaid price for " + type->id;
    const Calendar& cal = *info_of(sim, inst).calendar;
    const auto old_price =
        sim.price_at(inst.provider, SubjectKind::instance, old_type, inst.region, inst.mode, t);
    const Money old_monthly = old_price.row && old_price.row->unit == PriceUnit::month
                                  ? old_price.row->amount
                                  : Money(inst.monthly, inst.currency);
    const Seconds remaining = std::max<Seconds>(0, inst.expiry - t);
    const int months_left = whole_months(cal, t, inst.expiry);
    const DiscountRow* discount =
        months_left >= 1 ? sim.catalog.discount_at(inst.provider, type->family,
                                                   BillingMode::prepaid, months_left, ev.time)
                         : nullptr;
    const Decimal factor = discount ? discount->factor : Decimal(1);
    const auto up =
        rules::upgrade_charge(old_monthly, price.row->amount, remaining, factor, *pol.row);
    const auto it = balances.find(std::string(inst.currency.code()));
    const Decimal bal = it == balances.end() ? Decimal{} : it->second.amount;
    if (bal < up.fee.amount()) {
      return "insufficient balance: the upgrade fee is " + up.fee.to_string() + ", the " +
             inst.currency.to_string() + " balance is " + money_text(bal, inst.currency);
    }
    inst.type = type->id;
    inst.family = type->family;
    ChargeRow row = base_row(name, inst);
    row.kind = "upgrade";
    row.period_start = t;
    row.period_end = std::max(t, inst.expiry);
    row.quantity = std::to_string(remaining);
    row.unit = "second";
    row.unit_price = up.difference.amount();
    row.price_unit = "month";
    row.exact = up.exact.amount();
    row.billed = up.fee.amount();
    row.rounding = row.billed - row.exact;
    row.decimals = pol.row->settlement_decimals;
    row.price_id = price.row->id;
    row.policy_id = pol.row->id;
    if (discount) row.discount_id = discount->id;
    row.event_seqs = std::to_string(seq);
    if (up.difference.amount().sign() > 0) {
      row.note = "upgrade " + old_type + " → " + type->id + ": (" +
                 price.row->amount.amount().to_string() + " − " + old_monthly.amount().to_string() +
                 ")/month × " + std::to_string(remaining) +
                 " s remaining = " + up.remaining_months.to_string() +
                 " months (days / (365/12)) × discount " + factor.to_string();
    } else {
      row.note = "downgrade " + old_type + " → " + type->id +
                 ": no fee and no refund (monthly price " + old_monthly.amount().to_string() +
                 " → " + price.row->amount.amount().to_string() + ")";
    }
    charge(sim, row, t, seq, "charge");
    inst.paid += up.fee.amount();
    inst.monthly = price.row->amount.amount();
    history(sim, inst, t, "resize: " + old_type + " → " + type->id, seq);
    return std::nullopt;
  }
  if (price.row->unit != PriceUnit::hour) return "no hourly price for " + type->id;
  // Pay-as-you-go: the old type's meter stops here (its piece of this hour is settled at the hour
  // end on its own line); the new type's meter starts.
  Meter* old_meter = nullptr;
  for (auto& m : inst.meters) {
    if (m->source == Source::instance && !m->retired) old_meter = m.get();
  }
  const bool was_active = old_meter && old_meter->active;
  if (old_meter) retire(sim, *old_meter, t, false);
  inst.type = type->id;
  inst.family = type->family;
  auto m = std::make_unique<Meter>();
  m->owner = &inst;
  m->component = "compute";
  m->source = Source::instance;
  m->subject = type->id;
  m->multiplier = 1;
  m->unit = "second";
  Meter& nm = *m;
  inst.meters.push_back(std::move(m));
  if (was_active) activate(sim, nm, t, seq);
  retire_settled(sim, inst);
  history(sim, inst, t, "resize: " + old_type + " → " + type->id, seq);
  return std::nullopt;
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
  const Seconds new_expiry =
      to_seconds(info_of(sim, inst).calendar->add_months(to_instant(inst.expiry), months));
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

std::optional<std::string> Account::destroy(Sim& sim, Instance& inst, Seconds t, std::int64_t seq,
                                            std::optional<ReturnKind> asked) {
  const auto pol = sim.policy_at(inst.provider, t);
  if (asked &&
      !(inst.mode == BillingMode::prepaid && inst.state != State::recycle_bin && t < inst.expiry)) {
    return "return_kind applies to a prepaid instance destroyed before its expiry; '" + inst.id +
           "' is " +
           (inst.mode == BillingMode::prepaid ? "past its expiry"
                                              : std::string(to_string(inst.mode)));
  }
  std::optional<ChargeRow> refund_row;
  std::string counter;  // the no-reason return counted, once the destroy is applied
  if (inst.mode == BillingMode::prepaid && inst.state != State::recycle_bin && t < inst.expiry) {
    if (!pol.row) return "no billing policy for '" + inst.provider + "' at " + when(t);
    const BillingPolicy& policy = *pol.row;
    const InstanceType* type = sim.catalog.find_instance_type(inst.provider, inst.type);
    const bool has_gpus = inst.gpus > 0 || (type && type->gpu_count.sign() > 0);
    if (!policy.prepaid_destroy_before_expiry && has_gpus) {
      return "prepaid GPU instances cannot be destroyed before expiry (policy " +
             std::to_string(policy.id) +
             ": prepaid_destroy_before_expiry is false, which applies to instance types with "
             "GPUs); '" +
             inst.id + "' expires " + when(inst.expiry);
    }
    const Calendar& cal = *info_of(sim, inst).calendar;
    const bool in_window = t - inst.purchased_at <= std::int64_t{policy.full_refund_days} * 86400;
    counter = inst.provider + '|' +
              (policy.no_reason_limit_per_year
                   ? std::to_string(static_cast<int>(cal.local_day(to_instant(t)).year()))
                   : std::string("life"));
    const int used = no_reason_returns.count(counter) ? no_reason_returns.at(counter) : 0;
    const bool limit_left =
        policy.no_reason_return_limit == 0 || used < policy.no_reason_return_limit;
    const std::string limit_text =
        std::to_string(policy.no_reason_return_limit) +
        (policy.no_reason_limit_per_year ? " per calendar year" : " per account");
    const ReturnKind kind =
        asked.value_or(in_window && limit_left ? ReturnKind::no_reason : ReturnKind::ordinary);
    if (kind == ReturnKind::no_reason && !in_window) {
      return "a no-reason return is only within " + std::to_string(policy.full_refund_days) +
             " days of the purchase (policy " + std::to_string(policy.id) + "); '" + inst.id +
             "' was bought " + when(inst.purchased_at) + " (ask for return_kind \"ordinary\")";
    }
    if (kind == ReturnKind::no_reason && !limit_left) {
      return "no no-reason return left: the account has had " + std::to_string(used) + " of " +
             limit_text + " (policy " + std::to_string(policy.id) + ")";
    }
    if (kind == ReturnKind::ordinary) counter.clear();
    // An ordinary return is never the full refund, even within the no-reason window.
    BillingPolicy rule = policy;
    if (kind == ReturnKind::ordinary) rule.full_refund_days = -1;
    const Money paid(inst.paid, inst.currency), monthly(inst.monthly, inst.currency);
    auto r = rules::prepaid_refund(paid, to_instant(inst.purchased_at), to_instant(t), monthly,
                                   inst.factor, Money::zero(inst.currency), rule, cal);
    const PriceRow* hourly = nullptr;
    if (!r.full) {
      hourly = sim.price_at(inst.provider, SubjectKind::instance, inst.type, inst.region,
                            BillingMode::payg, t)
                   .row;
      if (!hourly || hourly->unit != PriceUnit::hour) {
        return "cannot compute the refund: it needs the pay-as-you-go hourly price of " +
               inst.type + " at " + when(t) + ", which the catalog lacks";
      }
      r = rules::prepaid_refund(paid, to_instant(inst.purchased_at), to_instant(t), monthly,
                                inst.factor, hourly->amount, rule, cal);
    }
    ChargeRow row = base_row(name, inst);
    row.kind = "refund";
    row.period_start = t;
    row.period_end = std::max(t, inst.expiry);
    row.quantity = "1";
    row.unit = "order";
    row.unit_price = -r.amount.amount();
    row.price_unit = "order";
    row.exact = -r.amount.amount();
    row.billed = row.exact;
    row.rounding = Decimal{};
    row.decimals = pol.row->settlement_decimals;
    if (hourly) row.price_id = hourly->id;
    row.policy_id = pol.row->id;
    row.event_seqs = std::to_string(seq);
    if (r.full) {
      row.note = "no-reason return: full refund within " +
                 std::to_string(pol.row->full_refund_days) +
                 " days of purchase: " + paid.to_string() + " paid" +
                 (policy.no_reason_return_limit
                      ? " (" + std::to_string(used + 1) + " of " + limit_text + ")"
                      : std::string());
    } else {
      row.note = "ordinary return: refund = paid " + paid.to_string() + " − used " +
                 r.used_value.to_string() + " (" + std::to_string(r.whole_months_used) +
                 " whole month(s) × " + monthly.to_string() + " × " + inst.factor.to_string() +
                 " + " + std::to_string(r.partial_seconds_used) + " s at " +
                 hourly->amount.to_string() + "/h), not below 0";
    }
    refund_row = std::move(row);
  }
  if (refund_row) charge(sim, *refund_row, t, seq, "refund");
  if (!counter.empty()) ++no_reason_returns[counter];
  for (auto& m : inst.meters) retire(sim, *m, t, inst.state == State::running || m->active);
  inst.state = State::destroyed;
  inst.destroyed_at = t;
  inst.destroy_seq = seq;
  clear_timers(inst);
  history(sim, inst, t, "destroy", seq);
  retire_settled(sim, inst);
  finish_if_done(sim, inst, t);
  return std::nullopt;
}

}  // namespace gpubill::replay
