// Replay simulation hour ends: meter settlement, settlement cycles, hour-end and bulk spans.
#include <algorithm>

#include "gpubill/rules/spot_pricing.hpp"
#include "replay/replay_model.hpp"
#include "replay/replay_sim_support.hpp"

namespace gpubill::replay {

namespace {

// The same events (nearly always one): cheaper than vector == for the hourly fast path.
bool same_seqs(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b) {
  if (a.size() != b.size()) return false;
  if (a.size() == 1) return a[0] == b[0];
  return a == b;
}

// Whether a record of a spot compute meter settled at e lies in the free window of its
// instance's launch (policy spot_interrupted_free_seconds): an interruption would credit it.
bool in_interruption_window(const Meter& m, const Instance& inst, const BillingPolicy& policy,
                            Seconds e) {
  return inst.mode == BillingMode::spot && is_compute(m) &&
         policy.spot_interrupted_free_seconds > 0 && m.run_started == inst.created_at &&
         e - inst.created_at < policy.spot_interrupted_free_seconds;
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

// The seconds of the calendar month (billing zone) of the meter's open hour when its price is
// per month (a disk's gb_month), else 0.
std::int64_t month_seconds_of(Sim& sim, const Meter& m) {
  if (!m.resource || m.resource->unit != "gb_month") return 0;
  const Calendar& cal = *info_of(sim, *m.owner).calendar;
  const Instant t = to_instant(m.first_use);
  return to_seconds(cal.next_month_start(t)) - to_seconds(cal.month_start(t));
}

void add_note(std::string& note, const std::string& text) {
  note += (note.empty() ? "" : "; ") + text;
}

// "per month, prorated over the 2592000 s of the calendar month from 2020-06-01T00:00:00Z
// (3600 s × 2000 GB)"
std::string month_text(Sim& sim, const Meter& m, std::int64_t month_seconds, std::int64_t metered) {
  const Calendar& cal = *info_of(sim, *m.owner).calendar;
  return "per month, prorated over the " + std::to_string(month_seconds) +
         " s of the calendar month from " +
         when(to_seconds(cal.month_start(to_instant(m.first_use)))) + " (" +
         std::to_string(metered) + " s × " + std::to_string(m.multiplier) + " GB)";
}

// Whether the meter's open hour lies in the calendar month (billing zone) of `t`.
bool same_month(Sim& sim, const Meter& m, Seconds t) {
  const Calendar& cal = *info_of(sim, *m.owner).calendar;
  return cal.month_start(to_instant(m.first_use)) == cal.month_start(to_instant(t));
}

// Whether the meter's hourly records carry their sub-unit remainder (usage_rounding down_carry).
bool carries_hourly(const BillingPolicy& policy, SettlementPeriod period) {
  return policy.usage_rounding == UsageRounding::down_carry && period == SettlementPeriod::hour;
}

// "0.106 CNY + 0.006 CNY carried in = 0.112 CNY → down to 2 decimals → 0.11 CNY, 0.002 CNY
// carried to the next cycle"
std::string carry_text(Decimal exact, Decimal carry_in, Decimal carry_out, Decimal billed,
                       const BillingPolicy& policy, const Currency& ccy) {
  return money_text(exact, ccy) + " + " + money_text(carry_in, ccy) +
         " carried in = " + money_text(exact + carry_in, ccy) + " → down to " +
         std::to_string(policy.settlement_decimals) + " decimals → " + money_text(billed, ccy) +
         ", " + money_text(carry_out, ccy) +
         " carried to the next cycle (usage_rounding down_carry)";
}

bool sustained_use_applies(const BillingPolicy& policy, const Instance& inst, const Meter& m) {
  return inst.mode == BillingMode::payg && is_compute(m) &&
         policy.sustained_use_applies_to(inst.family);
}

// The spot pricing rule's piece for a meter's use from `start` (its instance's spot policy):
// the whole hour for anything but a spot instance's compute.
rules::PricedPiece spot_piece(Sim& sim, const Meter& m, Seconds start, Seconds hour_end) {
  const Instance& inst = *m.owner;
  const rules::PricedPiece whole{to_instant(start), to_instant(hour_end)};
  if (inst.mode != BillingMode::spot || !is_compute(m) || hour_end <= start) return whole;
  const BillingPolicy* policy = sim.policy_at(inst.provider, start).row;
  if (!policy) return whole;
  const SubjectKind kind = m.source == Source::gpu ? SubjectKind::gpu : SubjectKind::instance;
  const auto next_change = [&](Instant t) -> std::optional<Instant> {
    const auto p =
        sim.price_at(inst.provider, kind, m.subject, inst.region, inst.mode, to_seconds(t));
    if (!p.row || p.until == kNever) return std::nullopt;
    return to_instant(p.until);
  };
  return rules::spot_priced_piece(*policy, to_instant(inst.created_at), to_instant(start),
                                  to_instant(hour_end), next_change);
}

}  // namespace

Seconds piece_end(Sim& sim, Meter& m, Seconds start, Seconds hour_end) {
  return to_seconds(spot_piece(sim, m, start, hour_end).end);
}

Seconds piece_price_at(Sim& sim, Meter& m, Seconds start, Seconds hour_end) {
  return to_seconds(spot_piece(sim, m, start, hour_end).price_at);
}

void Account::close_cycle(Sim& sim, Meter& m, Seconds t) {
  if (!m.cycle_end) return;
  Instance& inst = *m.owner;
  flush(sim, m);  // the cycle's usage rows end here
  const BillingPolicy* policy = sim.policy_at(inst.provider, std::max(m.cycle_start, t - 1)).row;
  if (!policy) policy = m.policy;
  if (policy) {
    const auto s = rules::settle_carried(Money(m.cycle_exact, inst.currency), *policy, m.carry);
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

void Account::credit_interrupted(Sim& sim, Meter& m, Seconds t, std::int64_t seq,
                                 const BillingPolicy& policy) {
  Instance& inst = *m.owner;
  if (!m.free_exact.is_zero() || !m.free_billed.is_zero()) {
    flush(sim, m);  // the settled records stand; the credit follows them
    ChargeRow row = base_row(name, inst);
    row.instance_type = label_of(m);
    row.component = m.component;
    row.kind = "interruption_credit";
    row.period_start = inst.created_at;
    row.period_end = t;
    row.quantity = "1";
    row.unit = "interruption";
    row.unit_price = -m.free_exact;
    row.price_unit = "interruption";
    row.exact = -m.free_exact;
    row.billed = -m.free_billed;
    row.rounding = row.billed - row.exact;
    row.decimals = policy.settlement_decimals;
    row.price_id = meter_price_id(m);
    row.policy_id = policy.id;
    row.event_seqs = std::to_string(seq);
    row.note = "interrupted by the provider " + std::to_string(t - inst.created_at) +
               " s after its launch, within the policy's spot_interrupted_free_seconds (" +
               std::to_string(policy.spot_interrupted_free_seconds) + "): the usage settled from " +
               when(inst.created_at) + " is credited";
    // A cycle-settled meter's records are rounded together at the cycle's end: the credit is
    // part of that sum.
    if (m.cycle_end) m.cycle_exact -= m.free_exact;
    inst.lifetime_billed += row.billed;
    charge(sim, row, t, seq, "charge");
  }
  m.free_exact = Decimal{};
  m.free_billed = Decimal{};
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
    resolve(sim, m, piece_price_at(sim, m, m.first_use, e));
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
      const std::int64_t metered = rules::metered_seconds(raw, policy);
      const std::int64_t quantity = metered * m.multiplier;
      const bool carries = carries_hourly(policy, period);
      const Decimal carry_in = m.carry;
      const std::int64_t month_seconds = month_seconds_of(sim, m);
      auto s = month_seconds ? rules::usage_record_of_monthly_price(*price, quantity, month_seconds,
                                                                    policy, resource)
                             : rules::usage_record(*price, quantity, policy, resource);
      if (carries) s = rules::settle_carried(s.exact, policy, m.carry);
      // A carrying record repeats the last only when nothing is carried in or out of either.
      const bool steady_carry = !carries || (s.rounding.amount().is_zero() && r.rounding.is_zero());
      if (full && steady_carry && r.repeat > 0 && r.full_hour && r.end == e - kHour &&
          r.price_id == price_id && r.exact == s.exact.amount() && r.billed == s.billed.amount() &&
          (!month_seconds || same_month(sim, m, r.start)) && r.unit_price == price->amount() &&
          r.policy_id == policy.id && same_seqs(r.seqs, m.seqs) &&
          (m.source == Source::instance || r.instance_type == label)) {
        ++r.repeat;
        r.end = e;
        if (r.row_id) r.dirty = true;
      } else {
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
          add_note(r.note, std::to_string(raw) + " s metered in units of " +
                               std::to_string(policy.metering_granularity_seconds) +
                               " s = " + std::to_string(metered) + " s");
        }
        if (month_seconds) add_note(r.note, month_text(sim, m, month_seconds, metered));
        if (carries && !(carry_in.is_zero() && m.carry.is_zero())) {
          add_note(r.note, carry_text(s.exact.amount(), carry_in, m.carry, s.billed.amount(),
                                      policy, inst.currency));
        }
      }
      r.settled_at = e;
      if (in_interruption_window(m, inst, policy, e)) {
        m.free_exact += s.exact.amount();
        m.free_billed += s.billed.amount();
      }
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
      if (!covers_.empty() && m.price) write_covers(sim, m, e, *m.price, policy);
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
    if (inst.mode == BillingMode::spot && is_compute(m)) {
      // A spot hour may have been cut at e (spot_priced_piece): the next piece runs from e to
      // the next hour start, or to the next cut.
      m.hour_end = piece_end(sim, m, e, sim.first_hour_end(info_of(sim, inst), e));
    } else {
      m.hour_end = sim.next_hour_end(info_of(sim, inst), e);
    }
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
    const bool same =
        r.repeat > 0 && r.full_hour && r.end == e && m->hour_end == e + kHour &&
        (m->cycle_end == 0 || e + kHour < m->cycle_end) && m->seqs.size() == 1 &&
        r.seqs.size() == 1 && r.seqs[0] == m->seqs[0] && e >= m->cache_from && e < m->cache_until &&
        meter_price(*m) && m->policy && meter_price_id(*m) == r.price_id &&
        meter_price(*m)->amount() == r.unit_price && m->policy->id == r.policy_id &&
        (m->policy->usage_rounding != UsageRounding::down_carry || r.rounding.is_zero()) &&
        (m->source == Source::instance || r.instance_type == label_of(*m));
    if (!same) {
      steady = false;
      continue;
    }
    valid_until = std::min(valid_until, m->cache_until);
    if (m->resource && m->resource->unit == "gb_month") {
      // A price per month is prorated over its own month: the span stays in the settled hour's.
      const Seconds month_end = to_seconds(p.calendar->next_month_start(to_instant(e - 1)));
      if (month_end <= e) {
        steady = false;
        continue;
      }
      valid_until = std::min(valid_until, month_end);
    }
    if (m->cycle_end) valid_until = std::min(valid_until, m->cycle_end - kHour);
    grid_until = std::min(grid_until,
                          (p.offset_from <= e && e + kHour < p.offset_until) ? p.offset_until : e);
  }
  live_.resize(w);
  next_hour_end_ = next;
  write_covered_rows(sim, e, settled);
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
  // A commitment in force is applied hour by hour: the span stops before its next hour.
  const Seconds ch = commitments.empty() ? kNever : next_commitment_hour() - 1;
  bulk(sim, e, std::min({target, tt, next_sustained_close(), ch}), valid_until, grid_until);
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

}  // namespace gpubill::replay
