// Replay simulation create event: validation, look-ups, resources, prepaid order, meters.
#include <algorithm>

#include "base/text_match.hpp"
#include "replay/replay_model.hpp"
#include "replay/replay_sim_support.hpp"

namespace gpubill::replay {

namespace {

struct ResourcePlan {
  std::string component, kind, unit;
  bool disk = true;
  std::int64_t size = 0;
  const ResourcePriceRow* row = nullptr;
  std::string unpriced;  // why it is not charged
};

// Attachable GPUs (a host priced without them, GPUs priced per GPU): checks the event's GPUs
// and finds their price. Returns the reason when the rules forbid them.
std::optional<std::string> attachable_gpus(Sim& sim, const UsageEvent& ev, const InstanceType* type,
                                           BillingMode mode, Seconds t, Currency ccy,
                                           const PriceRow*& gpu_price, std::string& gpu_model) {
  const Catalog& cat = sim.catalog;
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
  return std::nullopt;
}

// Disks and bandwidth: priced where the catalog has an hourly price (or, for a disk, a gb_month
// price, prorated over its calendar month), else noted (never 0).
std::vector<ResourcePlan> plan_resources(Sim& sim, const UsageEvent& ev, BillingMode mode,
                                         Seconds t, Currency ccy) {
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
      } else if (r.row->unit != hourly_unit && !(disk && r.row->unit == "gb_month")) {
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
  return resources;
}

// A region the provider does not have (a typo would otherwise be billed at an every-region
// price): the reason, naming the closest known regions. A provider without any region rows
// prices everywhere alike, so any region is accepted.
std::optional<std::string> unknown_region(const Catalog& cat, const std::string& provider,
                                          const std::string& region) {
  if (region.empty()) return std::nullopt;
  std::vector<std::string> known;
  for (const Region& r : cat.data().regions) {
    if (r.provider != provider) continue;
    if (r.id == region) return std::nullopt;
    known.push_back(r.id);
  }
  if (known.empty()) return std::nullopt;
  std::string list;
  for (const auto& k : text_match::closest(region, known, 3))
    list += (list.empty() ? "" : ", ") + k;
  return "unknown region '" + region + "' of provider '" + provider + "' (closest known: " + list +
         "; " + std::to_string(known.size()) + " regions in the catalog)";
}

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
  if (auto why = unknown_region(cat, ev.provider, ev.region)) return why;
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
  if (auto reason = attachable_gpus(sim, ev, type, mode, t, ccy, gpu_price, gpu_model)) {
    return reason;
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
  std::vector<ResourcePlan> resources = plan_resources(sim, ev, mode, t, ccy);

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
    order_prepaid(sim, inst, ev, t, seq, *order, *price.row, policy);
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
  if (mode == BillingMode::spot) schedule_spot_max_run(sim, inst, t);
  return std::nullopt;
}

// create's prepaid order: the instance's term, its order charge and its timers.
void Account::order_prepaid(Sim& sim, Instance& inst, const UsageEvent& ev, Seconds t,
                            std::int64_t seq, const rules::PrepaidOrder& order,
                            const PriceRow& price, const BillingPolicy& policy) {
  const Calendar& cal = *info_of(sim, inst).calendar;
  inst.purchased_at = t;
  inst.expiry = to_seconds(rules::prepaid_term_end(ev.time, *ev.months, policy, cal));
  inst.paid = order.charged.amount();
  inst.monthly = price.amount.amount();
  inst.factor = order.factor;
  inst.auto_renew = ev.auto_renew.value_or(false);
  inst.auto_renew_seq = seq;
  charge(sim, order_row(name, inst, "prepaid_order", t, inst.expiry, order, price, policy, seq), t,
         seq, "charge");
  schedule_prepaid(sim, inst, t);
}

}  // namespace gpubill::replay
