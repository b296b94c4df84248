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

// The instance's prepaid order as the return and downgrade rules see it (prepaid_lifecycle.hpp):
// the term discount of an order of N months is the catalog's for the instance's family.
// `at`: the time whose term discounts apply (the return's or the downgrade's: those in force).
rules::PrepaidHolding holding_of(Sim& sim, const Instance& inst, const PriceRow* hourly,
                                 Seconds at) {
  const std::string provider = inst.provider, family = inst.family;
  return {Money(inst.paid, inst.currency),
          to_instant(inst.purchased_at),
          to_instant(inst.expiry),
          Money(inst.monthly, inst.currency),
          inst.factor,
          hourly ? hourly->amount : Money::zero(inst.currency),
          [&sim, provider, family, at](int months) {
            const DiscountRow* d = sim.catalog.discount_at(provider, family, BillingMode::prepaid,
                                                           months, to_instant(at));
            return d ? d->factor : Decimal(1);
          }};
}

// " [rule source: …]" when the policy row names the source of its prepaid lifecycle rules.
std::string rule_source(const BillingPolicy& policy) {
  return policy.prepaid.source.empty() ? std::string()
                                       : " [rule source: " + policy.prepaid.source + "]";
}

// The refund of a downgrade of a prepaid instance at `t` to the monthly price `new_monthly`
// (rules::downgrade_refund), as a refund row; nullopt when the policy refunds nothing on a
// downgrade. Fails (a reason) when the rule needs a pay-as-you-go price the catalog lacks.
struct DowngradeOutcome {
  std::optional<ChargeRow> row;
  std::optional<rules::DowngradeValue> value;
  std::optional<std::string> error;
};
DowngradeOutcome downgrade_outcome(Sim& sim, const std::string& account, const Instance& inst,
                                   const Money& new_monthly, Seconds t, const BillingPolicy& policy,
                                   const Calendar& cal) {
  DowngradeOutcome out;
  if (policy.prepaid.downgrade_refund == DowngradeRefund::none || t >= inst.expiry) return out;
  const PriceRow* hourly = nullptr;
  if (policy.prepaid.downgrade_refund == DowngradeRefund::return_minus_new_order &&
      policy.prepaid.return_used_value == ReturnUsedValue::months_then_payg) {
    hourly = sim.price_at(inst.provider, SubjectKind::instance, inst.type, inst.region,
                          BillingMode::payg, t)
                 .row;
    if (!hourly || hourly->unit != PriceUnit::hour) {
      out.error =
          "cannot compute the downgrade refund: it needs the pay-as-you-go hourly price "
          "of " +
          inst.type + " at " + when(t) + ", which the catalog lacks";
      return out;
    }
  }
  out.value = rules::downgrade_refund(holding_of(sim, inst, hourly, t), new_monthly, to_instant(t),
                                      policy, cal);
  ChargeRow row = base_row(account, inst);
  row.kind = "refund";
  row.period_start = t;
  row.period_end = inst.expiry;
  row.quantity = "1";
  row.unit = "order";
  row.exact = -out.value->refund.amount();
  row.unit_price = row.exact;
  row.price_unit = "order";
  row.billed = row.exact;
  row.decimals = policy.settlement_decimals;
  if (hourly) row.price_id = hourly->id;
  row.policy_id = policy.id;
  row.note = "downgrade refund (rules::downgrade_refund, " +
             std::string(to_string(policy.prepaid.downgrade_refund)) + "): " + out.value->formula +
             rule_source(policy);
  out.row = std::move(row);
  return out;
}

}  // namespace

// ---- events ------------------------------------------------------------------------------------

std::optional<std::string> Account::apply(Sim& sim, const UsageEvent& ev, std::int64_t seq) {
  switch (ev.type) {
    case EventType::topup:
      return topup(sim, ev, seq);
    case EventType::create:
      return create(sim, ev, seq);
    case EventType::commit:
      return commit(sim, ev, seq);
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
    case EventType::stop: {
      std::string note;
      if (ev.interrupted) {
        if (auto why = interrupt(sim, inst, t, seq, note)) return why;
      }
      return stop(sim, inst, t, seq, note);
    }
    case EventType::resize:
      return resize(sim, inst, ev, seq);
    case EventType::renew:
      return renew(sim, inst, ev, seq);
    case EventType::set_auto_renew:
      return set_auto_renew(sim, inst, ev, seq);
    case EventType::destroy: {
      std::string note;
      if (ev.interrupted) {
        if (auto why = interrupt(sim, inst, t, seq, note)) return why;
      }
      return destroy(sim, inst, t, seq, ev.return_kind, note);
    }
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
          before == State::arrears_stopped ? "start: after the arrears shutdown"
          : before == State::preempted     ? "start: after the provider's stop at its maximum run"
                                           : "start",
          seq);
  if (inst.mode == BillingMode::spot) schedule_spot_max_run(sim, inst, t);
  return std::nullopt;
}

std::optional<std::string> Account::interrupt(Sim& sim, Instance& inst, Seconds t, std::int64_t seq,
                                              std::string& note) {
  if (inst.mode != BillingMode::spot) {
    return "interrupted applies to spot instances; '" + inst.id + "' is " +
           std::string(to_string(inst.mode));
  }
  if (inst.state != State::running) {
    return "interrupted: instance '" + inst.id + "' is not running";
  }
  const auto pol = sim.policy_at(inst.provider, t);
  note = ": interrupted by the provider";
  if (!pol.row || pol.row->spot_interrupted_free_seconds <= 0) return std::nullopt;
  const BillingPolicy& policy = *pol.row;
  bool first_run = true;
  for (const auto& m : inst.meters) {
    if (is_compute(*m) && !m->retired) first_run = first_run && m->run_started == inst.created_at;
  }
  if (!first_run || t - inst.created_at >= policy.spot_interrupted_free_seconds)
    return std::nullopt;
  for (auto& m : inst.meters) {
    if (!is_compute(*m) || !m->active) continue;
    credit_interrupted(sim, *m, t, seq, policy);
    m->active_since = t;  // its open piece is not charged either
    deactivate(sim, *m, t, false);
  }
  note += " within " + std::to_string(policy.spot_interrupted_free_seconds) +
          " s of its launch: compute not charged from " + when(inst.created_at) + " (policy " +
          std::to_string(policy.id) + ": spot_interrupted_free_seconds)";
  return std::nullopt;
}

std::optional<std::string> Account::stop(Sim& sim, Instance& inst, Seconds t, std::int64_t seq,
                                         const std::string& note) {
  switch (inst.state) {
    case State::stopped:
      return "instance '" + inst.id + "' is already stopped";
    case State::arrears_stopped:
      return "instance '" + inst.id + "' is already stopped (arrears shutdown)";
    case State::recycle_bin:
      return "instance '" + inst.id + "' is in the recycle bin (stopped since its expiry)";
    case State::preempted:
      // The log's own stop of a VM the provider had already stopped: kept, nothing to bill.
      inst.state = State::stopped;
      history(sim, inst, t, "stop: already stopped by the provider at its maximum run", seq);
      return std::nullopt;
    default:
      break;
  }
  inst.state = State::stopped;
  clear_timer(inst, t_spot_max_run);
  history(sim, inst, t, "stop" + note + stop_meters(sim, inst, t), seq);
  return std::nullopt;
}

std::string Account::stop_meters(Sim& sim, Instance& inst, Seconds t) {
  if (inst.mode == BillingMode::prepaid) return {};
  std::string reason;
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
  return reason;
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
    return resize_prepaid(sim, inst, *type, *price.row, *pol.row, t, seq);
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

// resize of a prepaid instance: the upgrade fee, or on a downgrade the refund the policy gives
// (rules::upgrade_charge, rules::downgrade_refund).
std::optional<std::string> Account::resize_prepaid(Sim& sim, Instance& inst,
                                                   const InstanceType& type, const PriceRow& price,
                                                   const BillingPolicy& policy, Seconds t,
                                                   std::int64_t seq) {
  const std::string old_type = inst.type;
  if (price.unit != PriceUnit::month) return "no monthly prepaid price for " + type.id;
  const Calendar& cal = *info_of(sim, inst).calendar;
  const auto old_price =
      sim.price_at(inst.provider, SubjectKind::instance, old_type, inst.region, inst.mode, t);
  const Money old_monthly = old_price.row && old_price.row->unit == PriceUnit::month
                                ? old_price.row->amount
                                : Money(inst.monthly, inst.currency);
  const Seconds remaining = std::max<Seconds>(0, inst.expiry - t);
  const int months_left = whole_months(cal, t, inst.expiry);
  const DiscountRow* discount =
      months_left >= 1 ? sim.catalog.discount_at(inst.provider, type.family, BillingMode::prepaid,
                                                 months_left, to_instant(t))
                       : nullptr;
  const Decimal factor = discount ? discount->factor : Decimal(1);
  // The fee by the policy's rule (prepaid_lifecycle.upgrade_fee); the order's days run from its
  // purchase to its expiry.
  const bool by_term_days = policy.prepaid.upgrade_fee == UpgradeFee::term_days;
  const auto by_days = rules::upgrade_charge_term_days(
      old_monthly, price.amount, remaining, inst.expiry - inst.purchased_at, factor, policy);
  const auto up = by_term_days
                      ? by_days.charge
                      : rules::upgrade_charge(old_monthly, price.amount, remaining, factor, policy);
  const auto it = balances.find(std::string(inst.currency.code()));
  const Decimal bal = it == balances.end() ? Decimal{} : it->second.amount;
  if (bal < up.fee.amount()) {
    return "insufficient balance: the upgrade fee is " + up.fee.to_string() + ", the " +
           inst.currency.to_string() + " balance is " + money_text(bal, inst.currency);
  }
  DowngradeOutcome down;  // computed on the old type, before it changes
  if (up.difference.amount().sign() < 0) {
    down = downgrade_outcome(sim, name, inst, price.amount, t, policy, cal);
    if (down.error) return down.error;
  }
  inst.type = type.id;
  inst.family = type.family;
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
  row.decimals = policy.settlement_decimals;
  row.price_id = price.id;
  row.policy_id = policy.id;
  if (discount) row.discount_id = discount->id;
  row.event_seqs = std::to_string(seq);
  if (by_term_days && up.difference.amount().sign() > 0) {
    row.quantity = std::to_string(by_days.remaining_days);
    row.unit = "day";
    row.unit_price = by_days.per_day.amount();
    row.price_unit = "day";
  }
  if (up.difference.amount().sign() > 0 && by_term_days) {
    row.note = "upgrade " + old_type + " → " + type.id + ": (" + price.amount.amount().to_string() +
               " − " + old_monthly.amount().to_string() + ")/month / " +
               std::to_string(by_days.term_days) + " days of the order × " +
               std::to_string(by_days.remaining_days) + " days remaining (" +
               std::to_string(remaining) + " s, a started day counts) × discount " +
               factor.to_string();
  } else if (up.difference.amount().sign() > 0) {
    row.note = "upgrade " + old_type + " → " + type.id + ": (" + price.amount.amount().to_string() +
               " − " + old_monthly.amount().to_string() + ")/month × " + std::to_string(remaining) +
               " s remaining = " + up.remaining_months.to_string() +
               " months (days / (365/12)) × discount " + factor.to_string();
  } else {
    row.note = "downgrade " + old_type + " → " + type.id +
               ": no fee and no refund (monthly price " + old_monthly.amount().to_string() + " → " +
               price.amount.amount().to_string() + ")";
  }
  if (down.row) {
    row.note = "downgrade " + old_type + " → " + type.id +
               ": no fee; the old order is returned and a new one bought (the refund line that "
               "follows)";
  }
  charge(sim, row, t, seq, "charge");
  inst.paid += up.fee.amount();
  inst.monthly = price.amount.amount();
  if (down.row) {
    down.row->event_seqs = std::to_string(seq);
    charge(sim, *down.row, t, seq, "refund");
    // The new order replaces the old: what it counts as paid, its discount and its start.
    inst.paid = down.value->new_paid.amount();
    inst.factor = down.value->new_factor;
    inst.purchased_at = t;
  }
  history(sim, inst, t, "resize: " + old_type + " → " + type.id, seq);
  return std::nullopt;
}

std::optional<std::string> Account::destroy(Sim& sim, Instance& inst, Seconds t, std::int64_t seq,
                                            std::optional<ReturnKind> asked,
                                            const std::string& note) {
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
    const Money paid(inst.paid, inst.currency);
    std::optional<rules::ReturnValue> ordinary;
    const PriceRow* hourly = nullptr;
    if (kind == ReturnKind::ordinary) {
      if (policy.prepaid.return_used_value == ReturnUsedValue::months_then_payg) {
        hourly = sim.price_at(inst.provider, SubjectKind::instance, inst.type, inst.region,
                              BillingMode::payg, t)
                     .row;
        if (!hourly || hourly->unit != PriceUnit::hour) {
          return "cannot compute the refund: it needs the pay-as-you-go hourly price of " +
                 inst.type + " at " + when(t) + ", which the catalog lacks";
        }
      }
      ordinary =
          rules::prepaid_return(holding_of(sim, inst, hourly, t), to_instant(t), policy, cal);
    }
    ChargeRow row = base_row(name, inst);
    row.kind = "refund";
    row.period_start = t;
    row.period_end = std::max(t, inst.expiry);
    row.quantity = "1";
    row.unit = "order";
    row.exact = -(ordinary ? ordinary->amount : paid).amount();
    row.unit_price = row.exact;
    row.price_unit = "order";
    row.billed = row.exact;
    row.rounding = Decimal{};
    row.decimals = policy.settlement_decimals;
    if (hourly) row.price_id = hourly->id;
    row.policy_id = policy.id;
    row.event_seqs = std::to_string(seq);
    if (!ordinary) {
      row.note = "no-reason return: full refund within " + std::to_string(policy.full_refund_days) +
                 " days of purchase: " + paid.to_string() + " paid" +
                 (policy.no_reason_return_limit
                      ? " (" + std::to_string(used + 1) + " of " + limit_text + ")"
                      : std::string());
    } else {
      row.note = "ordinary return (rules::prepaid_return, " +
                 std::string(to_string(policy.prepaid.return_used_value)) + "): refund = paid " +
                 paid.to_string() + " − used " + ordinary->used.to_string() +
                 (ordinary->fee.amount().sign() ? " − fee " + ordinary->fee.to_string() : "") +
                 " (" + ordinary->formula + "), not below 0" + rule_source(policy);
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
  history(sim, inst, t, "destroy" + note, seq);
  retire_settled(sim, inst);
  finish_if_done(sim, inst, t);
  return std::nullopt;
}

}  // namespace gpubill::replay
