// Replay simulation core: instance states, Sim look-ups, account indexes, advancing time.
#include <date/tz.h>

#include <algorithm>

#include "gpubill/base/errors.hpp"
#include "replay/replay_model.hpp"

namespace gpubill::replay {

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
    case State::preempted:
      return "preempted";
  }
  return "?";
}

State parse_state(std::string_view s) {
  for (State st : {State::running, State::stopped, State::arrears_stopped, State::recycle_bin,
                   State::destroyed, State::preempted}) {
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

// ---- advancing time --------------------------------------------------------------------------

void Account::advance_to(Sim& sim, Seconds t) {
  while (true) {
    const Seconds tt = timers_.empty() ? kNever : std::get<0>(*timers_.begin());
    const Seconds e = next_hour_end_;
    const Seconds sc = next_sustained_close();
    const Seconds ch = commitments.empty() ? kNever : next_commitment_hour();
    if (std::min({e, tt, sc, ch}) > t) break;
    // At one instant: the commitments' shares of the hour, the hour's settlements, then the
    // month's sustained-use credits, then timers.
    if (ch <= e && ch <= tt && ch <= sc) {
      apply_commitments(sim, ch);
    } else if (e <= tt && e <= sc) {
      process_hour_end(sim, e, t);
    } else if (sc <= tt) {
      close_sustained_use(sim, sc);
    } else {
      process_timer(sim);
    }
  }
  clock = std::max(clock, t);
}

}  // namespace gpubill::replay
