// Replay simulation events: dispatch (apply), start, stop, resize and destroy.
#include <algorithm>

#include "replay/replay_model.hpp"
#include "replay/replay_sim_support.hpp"

namespace gpubill::replay {

namespace {

// Whole calendar months from t to `end` (0 when less than one).
int whole_months(const Calendar& cal, Seconds t, Seconds end) {
  int m = 0;
  while (m < 1200 && to_seconds(cal.add_months(to_instant(t), m + 1)) <= end) ++m;
  return m;
}

}  // namespace

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
