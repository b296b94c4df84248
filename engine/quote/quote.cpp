// Quotes: filter the indexed offers by the workload, price each billing mode with the rules
// (rules.hpp), rank by total in the comparison currency.
//
// Speed: a quote walks the offer index once. For each line it first computes, with integer
// multiplications only, a lower bound of its total (prices floored to micro-units, the
// provider's rounding subtracted per settlement, and for prepaid the smallest price-independent
// factor-months any combination of terms can reach); while the best `top` lines are being
// collected, a line whose bound is above the current `top`-th total cannot enter and is not
// priced exactly. Lines that may enter are priced exactly by the rules. Only the returned lines
// are then built in full (strings, notes, conversions through Catalog::convert).
#include <algorithm>
#include <cassert>
#include <map>
#include <set>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

#include "gpubill/base/errors.hpp"
#include "gpubill/catalog/commitment.hpp"
#include "gpubill/quote/quote.hpp"
#include "quote/quote_index.hpp"
#include "quote/quote_internal.hpp"

namespace gpubill {

namespace quote_detail {

namespace {

std::int64_t seconds_of(Instant t) {
  return static_cast<std::int64_t>(t.time_since_epoch().count());
}

std::int64_t micro_floor(Decimal d) {
  if (d.sign() <= 0) return 0;
  const int128_t units = d.units() / kMicro;
  return units > std::numeric_limits<std::int64_t>::max() ? std::numeric_limits<std::int64_t>::max()
                                                          : static_cast<std::int64_t>(units);
}

std::int64_t ceil_seconds(Decimal hours_or_seconds_expr) {
  return Decimal::divide(hours_or_seconds_expr, Decimal(1), 0, RoundingMode::up).truncate_to_int();
}

std::optional<Decimal> throughput(const Gpu& g, Precision p) {
  return p == Precision::fp32 ? g.fp32_tflops : g.fp16_tensor_tflops;
}

int term_slot(int term) {
  const auto& terms = rules::standard_prepaid_terms();
  for (std::size_t i = 0; i < terms.size(); ++i) {
    if (terms[i] == term) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace

Usage usage_for(const ResolvedWorkload& w, std::optional<std::int64_t> finish, int month_hours) {
  Usage u;
  u.month = std::int64_t{month_hours} * kHour;
  switch (w.duration) {
    case DurationKind::hours:
    case DurationKind::months:
      u.run_seconds = w.duration == DurationKind::months ? std::int64_t{w.months} * u.month
                                                         : ceil_seconds(w.hours * kHour);
      u.runs = 1;
      u.busy = u.run_seconds;
      u.span = u.run_seconds;
      break;
    case DurationKind::daily:
      u.run_seconds = ceil_seconds(w.hours * kHour);
      u.runs = w.days;
      u.busy = u.run_seconds * u.runs;
      u.span = std::int64_t{w.days} * kDay;
      u.daily = true;
      break;
    case DurationKind::gpu_hours:
    case DurationKind::pflop:
      u.run_seconds = std::max<std::int64_t>(1, finish.value_or(1));
      u.runs = 1;
      u.busy = u.run_seconds;
      u.span = u.run_seconds;
      u.finish = u.run_seconds;
      break;
  }
  u.months = static_cast<int>((u.span + u.month - 1) / u.month);
  if (w.duration == DurationKind::months) u.months = w.months;
  if (w.duration == DurationKind::daily) u.months = (w.days + 29) / 30;
  u.full_hours = u.run_seconds / kHour;
  return u;
}

Usage spot_usage_for(const Usage& base, const SpotInterruptionModel& model, int max_run_hours,
                     int key) {
  Usage u = base;
  u.key = key;
  u.spot = expected_spot_run(base.run_seconds, model, max_run_hours);
  const SpotRunExpectation& e = *u.spot;
  if (u.unfinishable()) return u;
  // Each life an equal share of the running time, rounded up to a second.
  u.run_seconds = (e.running_seconds + e.lives - 1) / e.lives;
  u.runs = base.runs * e.lives;
  if (!base.daily) {
    u.span = e.running_seconds;
    u.months = static_cast<int>((u.span + u.month - 1) / u.month);
  }
  if (base.finish) u.finish = e.running_seconds;
  u.full_hours = u.run_seconds / kHour;
  return u;
}

std::optional<std::int64_t> finish_seconds(const ResolvedWorkload& w, const Gpu& g) {
  const auto tput = throughput(g, w.precision);
  if (!tput || tput->sign() <= 0) return std::nullopt;
  const Decimal count = w.gpu_units();
  // time = numerator / denominator seconds:
  //   gpu_hours: work × reference throughput × 3600 / (throughput × count);
  //   pflop: PFLOP × 1000 TFLOP / (throughput × count × efficiency).
  Decimal numerator, denominator;
  if (w.duration == DurationKind::gpu_hours) {
    numerator = w.work * *throughput(*w.reference_gpu, w.precision) * kHour;
    denominator = *tput * count;
  } else {
    numerator = w.work * 1000;
    denominator = *tput * count * w.efficiency;
  }
  if (denominator.sign() <= 0 || numerator > denominator * kMaxWorkSeconds) return -1;
  return std::max<std::int64_t>(
      1, Decimal::divide(numerator, denominator, 0, RoundingMode::up).truncate_to_int());
}

Ctx::Ctx(const Catalog& c, const QuoteEngine::Index& i, const ResolvedWorkload& wl)
    : catalog(c), ix(i), w(wl), cmp(wl.currency) {
  at = w.at;
  t = seconds_of(at);
  day = date::floor<date::days>(at);
  const CatalogData& data = catalog.data();

  providers.resize(data.providers.size());
  for (std::size_t p = 0; p < data.providers.size(); ++p) {
    ProviderCtx& pc = providers[p];
    const auto& id = data.providers[p].id;
    pc.allowed = w.providers.empty() ||
                 std::find(w.providers.begin(), w.providers.end(), id) != w.providers.end();
    pc.policy = catalog.policy_at(id, at);
    pc.month_from_workload = w.month_hours.has_value();
    pc.month_hours = w.month_hours ? *w.month_hours
                     : pc.policy   ? pc.policy->quote_month_hours
                                   : 720;
    if (std::find(month_hours_used.begin(), month_hours_used.end(), pc.month_hours) ==
        month_hours_used.end()) {
      month_hours_used.push_back(pc.month_hours);
    }
    if (pc.policy) {
      pc.no_lifetime = *pc.policy;
      pc.no_lifetime.min_charge_per_lifetime.reset();
      const int d = std::clamp(pc.policy->settlement_decimals, 0, Decimal::kScale);
      std::int64_t slack = 1;
      for (int k = d; k < 6; ++k) slack *= 10;
      pc.slack_micro = slack + 1;  // 10^-d (at least one micro-unit) plus the 1e-12 roundings
      for (const Decimal& tier : pc.policy->sustained_use_tiers) {
        const auto micro = static_cast<std::int64_t>((tier * 1'000'000).truncate_to_int());
        pc.sustained_floor_micro = std::min(pc.sustained_floor_micro, micro);
      }
    }
  }

  region_allowed.assign(ix.regions.size(), 1);
  provider_any_region.assign(data.providers.size(), 1);
  if (!w.regions.empty()) {
    for (std::size_t r = 0; r < ix.regions.size(); ++r) {
      region_allowed[r] =
          std::find(w.regions.begin(), w.regions.end(), ix.regions[r]) != w.regions.end();
    }
    // An every-region price holds in a requested region when the region is the provider's.
    for (std::size_t p = 0; p < data.providers.size(); ++p) {
      bool any = false;
      for (std::uint32_t r : ix.provider_regions[p]) any = any || region_allowed[r];
      provider_any_region[p] = any;
    }
  }
  for (BillingMode m : w.modes)
    modes_allowed = static_cast<std::uint8_t>(modes_allowed | (1u << mode_index(m)));

  const bool work = w.duration == DurationKind::gpu_hours || w.duration == DurationKind::pflop;
  if (!work) {
    for (int hours : month_hours_used) fixed_usages.push_back(usage_for(w, std::nullopt, hours));
  }
  gpus.resize(data.gpus.size());
  for (std::size_t g = 0; g < data.gpus.size(); ++g) {
    const Gpu& gpu = data.gpus[g];
    GpuCheck& gc = gpus[g];
    if (!w.gpus.empty() && std::find(w.gpus.begin(), w.gpus.end(), &gpu) == w.gpus.end()) {
      gc.why = Exclude::gpu_model;
    } else if (w.min_fp32_tflops && (!gpu.fp32_tflops || *gpu.fp32_tflops < *w.min_fp32_tflops)) {
      gc.why = Exclude::fp32;
    } else if (w.min_fp16_tflops &&
               (!gpu.fp16_tensor_tflops || *gpu.fp16_tensor_tflops < *w.min_fp16_tflops)) {
      gc.why = Exclude::fp16;
    } else if (w.min_memory_gb && (!gpu.memory_gb || *gpu.memory_gb < *w.min_memory_gb)) {
      gc.why = Exclude::memory;
    } else if (w.nvlink && !gpu.nvlink()) {
      gc.why = Exclude::nvlink;
    } else {
      gc.ok = true;
    }
    if (gpu.memory_gb) gc.ram_floor = *gpu.memory_gb * w.gpu_units();
    if (gc.ok && work) {
      const auto finish = finish_seconds(w, gpu);
      if (!finish || *finish < 0) {
        gc.ok = false;
        gc.why = finish ? Exclude::too_long : Exclude::throughput;
      } else {
        for (int hours : month_hours_used) {
          gc.usages.push_back(usage_for(w, finish, hours));
          gc.usages.back().key = static_cast<int>(g) + 1;  // a provider has one month
        }
      }
    }
  }
  if (!w.ram_default) ram_floor = w.min_ram_gb;

  groups.resize(ix.discount_groups.size());
  index_rates.resize(ix.currencies.size());
  for (std::size_t c = 0; c < ix.currencies.size(); ++c)
    index_rates[c] = rate_for(ix.currencies[c]);
}

const CurrencyRate* Ctx::rate_for(Currency c) {
  for (const auto& r : rates) {
    if (r.currency == c) return &r;
  }
  CurrencyRate r;
  r.currency = c;
  if (c == cmp) {
    r.known = true;
    r.rate = Decimal(1);
    r.rate_micro = kMicro;
  } else if (auto fx = catalog.fx_rate(c, cmp, day)) {
    r.known = true;
    r.rate = fx->rate;
    r.rate_micro = micro_floor(fx->rate);
    r.fx = std::move(fx);
  }
  rates.push_back(std::move(r));
  return &rates.back();
}

const Usage& Ctx::usage(const IndexedOffer& o) const {
  const GpuCheck& gc = gpus[static_cast<std::size_t>(o.gpu_index)];
  const std::vector<Usage>& all = gc.usages.empty() ? fixed_usages : gc.usages;
  const std::int64_t month = std::int64_t{providers[o.provider].month_hours} * kHour;
  for (const Usage& u : all) {
    if (u.month == month) return u;
  }
  return all.front();
}

const Usage& Ctx::usage(const IndexedOffer& o, int mode) {
  const Usage& base = usage(o);
  if (!w.spot_model || kModes[static_cast<std::size_t>(mode)] != BillingMode::spot) return base;
  // Keys above every base usage's: one per base usage and provider.
  const std::size_t bases = gpus.size() + 1;
  const std::size_t slot = o.provider * bases + static_cast<std::size_t>(base.key);
  if (spot_usages.empty()) spot_usages.resize(providers.size() * bases);
  auto& cached = spot_usages[slot];
  if (!cached) {
    const BillingPolicy* policy = providers[o.provider].policy;
    cached = spot_usage_for(base, *w.spot_model, policy ? policy->spot_max_run_hours : 0,
                            static_cast<int>(bases + slot));
  }
  return *cached;
}

GroupCtx& Ctx::group(std::uint32_t g) {
  GroupCtx& gc = groups[g];
  if (!gc.ready) {
    const DiscountGroup& dg = ix.discount_groups[g];
    const auto& provider = catalog.data().providers[dg.provider].id;
    const auto& terms = rules::standard_prepaid_terms();
    gc.discounts.resize(terms.size());
    for (std::size_t i = 0; i < terms.size(); ++i) {
      gc.discounts[i] =
          catalog.discount_at(provider, dg.family, BillingMode::prepaid, terms[i], at);
    }
    gc.ready = true;
  }
  return gc;
}

std::int64_t Ctx::factor_months_micro(std::uint32_t g, int months) {
  GroupCtx& gc = group(g);
  for (const auto& [n, f] : gc.factor_months) {
    if (n == months) return f;
  }
  // The least Σ term × factor over combinations of terms covering `months`: a lower bound, per
  // unit of monthly price, of what any prepaid plan costs before rounding.
  const auto& terms = rules::standard_prepaid_terms();
  std::vector<Decimal> costs;
  for (std::size_t i = 0; i < terms.size(); ++i) {
    costs.push_back((gc.discounts[i] ? gc.discounts[i]->factor : Decimal(1)) * terms[i]);
  }
  const std::int64_t micro = micro_floor(rules::cheapest_cover(terms, costs, months).cost);
  gc.factor_months.emplace_back(months, micro);
  return micro;
}

const DiscountRow* Ctx::discount_for(std::uint32_t g, int term) {
  const int slot = term_slot(term);
  return slot < 0 ? nullptr : group(g).discounts[static_cast<std::size_t>(slot)];
}

// ---- storage and network -----------------------------------------------------------------

namespace {

// Hourly price of `quantity` units at a per-unit price quoted per hour or per quote month of
// `month` seconds.
std::optional<Money> hourly_of(const ResourcePriceRow& row, Decimal quantity,
                               std::string_view hour_unit, std::string_view month_unit,
                               std::int64_t month) {
  if (row.unit == hour_unit) return Money(row.amount.amount() * quantity, row.amount.currency());
  if (row.unit == month_unit) {
    return Money(Decimal::divide(row.amount.amount() * quantity, month / kHour, Decimal::kScale,
                                 RoundingMode::half_even),
                 row.amount.currency());
  }
  return std::nullopt;
}

std::string unit_text(const ResourcePriceRow& row) {
  return row.amount.to_string() + "/" + row.unit;
}

}  // namespace

PartCost Ctx::compute_part(bool network, std::uint16_t provider, const Usage& u, bool prepaid,
                           LinePart* out) {
  PartCost pc;
  const auto& pid = catalog.data().providers[provider].id;
  const BillingPolicy* policy = providers[provider].policy;
  const std::int64_t span = prepaid ? std::int64_t{u.months} * u.month : u.span;
  std::vector<std::string> details, missing;
  std::optional<Money> native;
  const ResourcePriceRow* used_row = nullptr;

  auto add = [&](const Money& m) {
    if (native && native->currency() != m.currency()) {
      missing.push_back("parts priced in different currencies");
      return;
    }
    native = native ? *native + m : m;
  };
  auto price_quantity = [&](const char* what, const ResourcePriceRow* row, Decimal quantity,
                            std::string_view hour_unit, std::string_view month_unit,
                            const std::string& label) {
    if (!row) {
      missing.push_back(std::string("no ") + what + " price for " + pid + " in force on " +
                        format_day(day));
      return;
    }
    if (!policy) {
      missing.push_back("no billing policy for " + pid);
      return;
    }
    used_row = row;
    if (prepaid && row->mode == BillingMode::prepaid && row->unit == month_unit) {
      const Money monthly(row->amount.amount() * quantity, row->amount.currency());
      const auto order = rules::prepaid_order(monthly, u.months, nullptr, *policy);
      add(order.charged);
      details.push_back(label + " × " + unit_text(*row) + " × " + std::to_string(u.months) +
                        " months = " + order.charged.to_string() + " (row #" +
                        std::to_string(row->id) + ")");
      return;
    }
    const auto hourly = hourly_of(*row, quantity, hour_unit, month_unit, u.month);
    if (!hourly) {
      missing.push_back(std::string(what) + " price unit '" + row->unit + "' not understood");
      return;
    }
    const auto cost = rules::payg_run_cost(*hourly, span, *policy);
    add(cost.billed);
    details.push_back(label + " × " + unit_text(*row) + " over " + std::to_string(span / kHour) +
                      " h, settled hourly = " + cost.billed.to_string() + " (row #" +
                      std::to_string(row->id) + ")");
  };

  if (!network) {
    if (!w.storage_gb) return pc;
    const auto* row =
        prepaid ? catalog.disk_price_at(pid, w.disk_kind, BillingMode::prepaid, at) : nullptr;
    if (!row) row = catalog.disk_price_at(pid, w.disk_kind, BillingMode::payg, at);
    price_quantity((w.disk_kind + " disk").c_str(), row, *w.storage_gb, "gb_hour", "gb_month",
                   w.storage_gb->to_string() + " GB " + w.disk_kind);
  } else {
    if (!w.bandwidth_mbps && !w.egress_gb) return pc;
    if (w.bandwidth_mbps) {
      const auto* row =
          prepaid ? catalog.bandwidth_price_at(pid, "fixed_mbps", BillingMode::prepaid, at)
                  : nullptr;
      if (!row) row = catalog.bandwidth_price_at(pid, "fixed_mbps", BillingMode::payg, at);
      price_quantity("fixed_mbps bandwidth", row, Decimal(*w.bandwidth_mbps), "mbps_hour",
                     "mbps_month", std::to_string(*w.bandwidth_mbps) + " Mbps");
    }
    if (w.egress_gb) {
      const auto* row = catalog.bandwidth_price_at(pid, "traffic_gb", BillingMode::payg, at);
      if (!row) {
        missing.push_back("no traffic_gb price for " + pid + " in force on " + format_day(day));
      } else if (row->unit != "gb" || !policy) {
        missing.push_back(!policy ? "no billing policy for " + pid
                                  : "traffic price unit '" + row->unit + "' not understood");
      } else {
        used_row = row;
        const Money cost = Money(row->amount.amount() * *w.egress_gb, row->amount.currency())
                               .round(policy->settlement_decimals, policy->settlement_rounding);
        add(cost);
        details.push_back(w.egress_gb->to_string() + " GB egress × " + unit_text(*row) + " = " +
                          cost.to_string() + " (row #" + std::to_string(row->id) + ")");
      }
    }
  }

  if (missing.empty() && native) {
    const CurrencyRate* rate = rate_for(native->currency());
    if (!rate->known) {
      missing.push_back("no FX rate " + native->currency().to_string() + "→" + cmp.to_string() +
                        " on or before " + format_day(day));
    } else {
      pc.state = LinePart::State::priced;
      pc.converted = native->currency() == cmp ? native->amount() : native->amount() * rate->rate;
    }
  }
  if (!missing.empty()) pc.state = LinePart::State::unpriced;
  if (out) {
    out->state = pc.state;
    out->row = used_row;
    if (pc.state == LinePart::State::priced) {
      out->native = native;
      out->converted = Money(pc.converted, cmp);
      std::string d;
      for (const auto& s : details) d += (d.empty() ? "" : "; ") + s;
      out->detail = d;
    } else {
      std::string d;
      for (const auto& s : missing) d += (d.empty() ? "" : "; ") + s;
      out->detail = d;
    }
  }
  return pc;
}

PartCost Ctx::part(bool network, const IndexedOffer& o, const Usage& u, bool prepaid,
                   LinePart* out) {
  if (network ? !w.bandwidth_mbps && !w.egress_gb : !w.storage_gb) return {};
  if (!network && w.storage_gb && o.local_ssd_gb > 0 && Decimal(o.local_ssd_gb) >= *w.storage_gb) {
    PartCost pc;
    pc.state = LinePart::State::included;
    if (out) {
      out->state = pc.state;
      out->detail = "fits the bundled local " + o.type->local_disk_kind + " disk (" +
                    std::to_string(o.local_ssd_gb) + " GB, included in the instance price)";
    }
    return pc;
  }
  if (out) return compute_part(network, o.provider, u, prepaid, out);
  const std::uint64_t key = (std::uint64_t{o.provider} << 40) |
                            (static_cast<std::uint64_t>(u.key) << 2) | (prepaid ? 2u : 0u) |
                            (network ? 1u : 0u);
  auto it = part_cache.find(key);
  if (it != part_cache.end()) return it->second;
  const PartCost pc = compute_part(network, o.provider, u, prepaid, nullptr);
  part_cache.emplace(key, pc);
  return pc;
}

// ---- pricing one line --------------------------------------------------------------------

Inputs Ctx::resolve(const IndexedOffer& o, int m) {
  Inputs in;
  const BillingMode mode = kModes[static_cast<std::size_t>(m)];
  in.host = ix.in_force(o.rows[static_cast<std::size_t>(m)], t);
  if (o.attached > 0) in.gpu = ix.in_force(o.gpu_rows[static_cast<std::size_t>(m)], t);
  if (!in.host || (o.attached > 0 && !in.gpu)) {
    in.why = !in.host ? Unknown::no_row : Unknown::no_gpu_row;
    return in;
  }
  if (!include_estimates && (in.host->estimate || (in.gpu && in.gpu->estimate))) {
    in.why = Unknown::estimate;
    return in;
  }
  if (in.gpu && in.gpu->currency != in.host->currency) {
    in.why = Unknown::mixed_currency;
    return in;
  }
  const PriceUnit want = mode == BillingMode::prepaid ? PriceUnit::month : PriceUnit::hour;
  if (in.host->unit != want || (in.gpu && in.gpu->unit != want)) {
    in.why = Unknown::unit;
    return in;
  }
  in.pc = &providers[o.provider];
  if (!in.pc->policy) {
    in.why = Unknown::no_policy;
    return in;
  }
  if (mode == BillingMode::payg && !in.pc->policy->payg_available) {
    in.why = Unknown::payg_unavailable;
    return in;
  }
  in.rate = index_rates[in.host->currency];
  if (!in.rate->known) {
    in.why = Unknown::no_fx;
    return in;
  }
  in.usage = &usage(o, m);
  if (in.usage->unfinishable()) {
    in.why = Unknown::spot_unfinishable;
    return in;
  }
  in.ok = true;
  return in;
}

int128_t Ctx::lower_bound(const IndexedOffer& o, int m, const Inputs& in) {
  const BillingMode mode = kModes[static_cast<std::size_t>(m)];
  const int128_t price =
      int128_t{in.host->micro} + (in.gpu ? int128_t{in.gpu->micro} * o.attached : 0);
  const Usage& u = *in.usage;
  int128_t native = 0;  // micro-units
  if (mode == BillingMode::prepaid) {
    const std::int64_t f = factor_months_micro(ix.families[o.family].discount_group, u.months);
    native = price * f / kMicro - int128_t{u.months} * in.pc->slack_micro;
  } else {
    // Host and GPUs are rounded as separate meters: each may lose up to the slack.
    const int128_t per_hour = std::max<int128_t>(0, price - in.pc->slack_micro * (in.gpu ? 2 : 1));
    if (mode == BillingMode::payg || mode == BillingMode::spot) {
      native = per_hour * u.full_hours * u.runs;
      // (A 128-bit division per line is not free: only where a discount applies.)
      if (mode == BillingMode::payg && in.pc->sustained_floor_micro != kMicro) {
        native = native * in.pc->sustained_floor_micro / kMicro;
      }
    } else {
      const std::int64_t term_hours = mode == BillingMode::reserved_1y ? 8760 : 26280;
      const std::int64_t terms = (u.span + term_hours * kHour - 1) / (term_hours * kHour);
      native = per_hour * term_hours * terms;
    }
  }
  int128_t bound = native * in.rate->rate_micro - 2;  // 1e-12 units of the comparison currency
  const PartCost s = part(false, o, u, mode == BillingMode::prepaid, nullptr);
  const PartCost n = part(true, o, u, mode == BillingMode::prepaid, nullptr);
  return bound + s.converted.units() + n.converted.units();
}

namespace {

// The sustained use credit of one meter (`count` units at `unit_price` per hour: the host, or
// its GPUs) over the workload's use, as replay credits it: the use placed from `start` (the
// quote's date), per calendar month of the provider's calendar (a month's tiers are shares of
// that month's length, its first and last month partly used), the hours' metered seconds
// stacked by rules::sustained_use_credit, each month's credit rounded by the policy. Positive.
Money sustained_use_credit(const Money& unit_price, std::int64_t count, const Usage& u,
                           const BillingPolicy& policy, const Calendar& calendar, Instant start) {
  const std::int64_t billed =
      std::max<std::int64_t>(u.run_seconds, policy.min_charge_seconds_per_run);
  const std::int64_t full = billed / kHour;
  const std::int64_t rest = rules::metered_seconds(billed % kHour, policy);
  const std::int64_t run_hours = full + (rest > 0 ? 1 : 0);
  // Metered seconds of the meter in hour i of the use (one run, or one run a day).
  const auto seconds_in_hour = [&](std::int64_t i) -> std::int64_t {
    std::int64_t h = i;
    if (u.daily) {
      if (i / 24 >= u.runs) return 0;
      h = i % 24;
    }
    if (h < full) return count * kHour;
    if (h == full && rest > 0) return count * rest;
    return 0;
  };
  const std::int64_t span_hours = u.daily ? u.runs * 24 : run_hours;
  Money credit = Money::zero(unit_price.currency());
  Instant from = start;
  for (std::int64_t h0 = 0; h0 < span_hours;) {
    const Instant month_start = calendar.month_start(from);
    const Instant month_end = calendar.next_month_start(from);
    const std::int64_t h1 = std::min(span_hours, h0 + (month_end - from).count() / kHour);
    std::vector<rules::UsageHour> hours;
    for (std::int64_t i = h0; i < h1; ++i) {
      if (const std::int64_t s = seconds_in_hour(i)) hours.push_back({s, unit_price.amount()});
    }
    const auto su = rules::sustained_use_credit(hours, (month_end - month_start).count(),
                                                policy.sustained_use_tiers);
    credit += Money(su.credit, unit_price.currency())
                  .round(policy.settlement_decimals, policy.settlement_rounding);
    h0 = std::max(h1, h0 + 1);
    from = month_end;
  }
  return credit;
}

}  // namespace

Decimal Ctx::exact(const IndexedOffer& o, int m, const Inputs& in, QuoteLine* line) {
  const BillingMode mode = kModes[static_cast<std::size_t>(m)];
  const Usage& u = *in.usage;
  const BillingPolicy& policy = *in.pc->policy;
  Money price = in.host->row->amount;
  if (in.gpu) price += in.gpu->row->amount * o.attached;
  std::optional<Money> compute;
  if (mode == BillingMode::prepaid) {
    const std::uint32_t group = ix.families[o.family].discount_group;
    auto plan = rules::cheapest_prepaid_plan(
        price, u.months, rules::standard_prepaid_terms(),
        [&](int term) { return discount_for(group, term); }, policy);
    compute = plan.total;
    if (line) line->plan = std::move(plan);
  } else if (mode == BillingMode::payg || mode == BillingMode::spot) {
    const bool stopped_between_runs = u.runs > 1 && !policy.stopped_payg_compute_charged;
    const BillingPolicy& run_policy = stopped_between_runs ? in.pc->no_lifetime : policy;
    // The host and its GPUs are separate meters, each settled (and rounded) on its own, as
    // replay bills them. Released each day, every run is an instance (and meters) of its own.
    const std::int64_t lifetimes = stopped_between_runs ? 1 : u.runs;
    const std::int64_t runs_each = u.runs / lifetimes;
    const auto meter = [&](const Money& hourly) {
      auto c = rules::payg_runs_cost(hourly, u.run_seconds, runs_each, run_policy,
                                     MeteredResource::compute, in.pc->month_hours);
      return rules::RunCost{c.exact * lifetimes, c.billed * lifetimes, c.settlements * lifetimes};
    };
    auto run = meter(in.host->row->amount);
    if (in.gpu) {
      const auto gpus = meter(in.gpu->row->amount * o.attached);
      run.exact += gpus.exact;
      run.billed += gpus.billed;
      run.settlements += gpus.settlements;
    }
    compute = run.billed;
    if (mode == BillingMode::payg && policy.sustained_use_applies_to(o.type->family)) {
      // Released each day, each run is an instance of its own, but a month's sequential
      // instances of a kind still add up (inferred instances): the use is the same.
      const Calendar calendar(catalog.data().providers[o.provider].billing_time_zone);
      Money credit = sustained_use_credit(in.host->row->amount, 1, u, policy, calendar, at);
      if (in.gpu) {
        credit += sustained_use_credit(in.gpu->row->amount, o.attached, u, policy, calendar, at);
      }
      *compute -= credit;
      if (line && !credit.amount().is_zero()) line->sustained_use_credit = credit;
    }
    if (stopped_between_runs && policy.min_charge_per_lifetime) {
      const Money least(*policy.min_charge_per_lifetime, price.currency());
      if (*compute < least) compute = least;
    }
    if (line) {
      line->run_cost = run;
      line->released_daily = u.daily && policy.stopped_payg_compute_charged;
    }
  } else {
    const std::int64_t term_hours = mode == BillingMode::reserved_1y ? 8760 : 26280;
    const std::int64_t terms = (u.span + term_hours * kHour - 1) / (term_hours * kHour);
    const auto run = rules::payg_runs_cost(price, term_hours * kHour, 1, policy,
                                           MeteredResource::compute, in.pc->month_hours);
    compute = run.billed * terms;
    if (line) {
      line->run_cost = run;
      line->reserved_terms = static_cast<int>(terms);
      line->reserved_term_hours = term_hours;
    }
  }
  const Decimal converted =
      compute->currency() == cmp ? compute->amount() : compute->amount() * in.rate->rate;
  const bool prepaid = mode == BillingMode::prepaid;
  const PartCost s = part(false, o, u, prepaid, line ? &line->storage : nullptr);
  const PartCost n = part(true, o, u, prepaid, line ? &line->network : nullptr);
  if (line) {
    line->unit_price = price;
    line->compute = compute;
    if (compute->currency() != cmp) {
      // The same arithmetic as above, through the catalog's conversion, which names the rate.
      const Conversion c = catalog.convert(*compute, cmp, day);
      if (c.result.amount() != converted) {
        throw std::logic_error("quote: conversion differs from Catalog::convert");
      }
      line->fx = c.rate;
    }
    line->compute_converted = Money(converted, cmp);
  }
  return converted + s.converted + n.converted;
}

}  // namespace quote_detail

// ---- the quote ---------------------------------------------------------------------------

using namespace quote_detail;

namespace {

// A priced line as the quote ranks it: its exact total (Decimal units) and where it comes from.
struct Ranked {
  int128_t key;
  std::uint32_t offer;
  std::uint8_t mode;
  bool stale = false;        // ranked after every current line (QuoteOptions::stale_apart)
  bool stale_price = false;  // a stale price, apart or not (QuoteResult::lines_stale)
};

// Whether the offer's instance type has commitment rows at the quote's date: quote() then
// needs its pay-as-you-go line (commitment_lines, quote_commitments.cpp).
bool has_commitments(const Ctx& ctx, const IndexedOffer& o) {
  const auto& data = ctx.catalog.data();
  return !commitments_at(ctx.catalog, data.providers[o.provider].id, SubjectKind::instance,
                         o.type->id, ctx.ix.regions[o.region], ctx.w.at)
              .empty();
}

// Keeps in `best` (ranked) only the lines that will be returned: the first of each (stale
// apart, provider, mode) with `best_of_each`; with `ranking` (quote() adding commitment lines),
// those it asks for — every line (ranking.top 0 and not best_of_each), the first ranking.top
// that are not unwanted pay-as-you-go, or the first of each group — and the pay-as-you-go lines
// of offers with commitment rows. `ranks` gets each kept line's place in the whole ranking,
// `ranking` every priced line.
void keep_selected(const Ctx& ctx, std::vector<Ranked>& best, std::vector<std::size_t>& ranks,
                   bool best_of_each, Ranking* ranking) {
  std::set<std::tuple<bool, std::uint16_t, std::uint8_t>> seen;
  std::vector<Ranked> kept;
  std::size_t wanted = 0;  // lines kept by rank (ranking->top)
  for (std::size_t k = 0; k < best.size(); ++k) {
    const Ranked& r = best[k];
    const IndexedOffer& o = ctx.ix.offers[r.offer];
    const bool payg = kModes[r.mode] == BillingMode::payg;
    bool keep = best_of_each ? seen.insert({r.stale, o.provider, r.mode}).second
                             : ranking && ranking->top == 0;
    if (ranking && ranking->top > 0 && wanted < ranking->top && !(payg && ranking->payg_unwanted)) {
      keep = true;
      ++wanted;
    }
    if (ranking && payg && !keep) keep = has_commitments(ctx, o);
    std::int32_t built = -1;
    if (keep) {
      built = static_cast<std::int32_t>(kept.size());
      kept.push_back(r);
      ranks.push_back(k + 1);
    }
    if (ranking) {
      ranking->priced.push_back({r.key, built, o.provider, r.mode, r.stale, r.stale_price});
    }
  }
  best = std::move(kept);
}

// Builds the returned lines in full (the ranked ones, then the unknown ones), the exclusions and
// the assumptions.
void build_lines(Ctx& ctx, const std::vector<Ranked>& best, const std::vector<std::size_t>& ranks,
                 const std::vector<UnknownLine>& unknowns, const Tallies& tallies,
                 QuoteResult& result) {
  const QuoteEngine::Index& ix = ctx.ix;
  const ResolvedWorkload& w = ctx.w;
  result.currency = w.currency;
  result.currency_default = w.currency_default;
  result.at = w.at;
  result.at_default = w.at_default;
  result.at_today = w.at_today;
  result.lines.reserve(best.size() + unknowns.size());
  for (std::size_t k = 0; k < best.size(); ++k) {
    QuoteLine line = build_line(ctx, ix.offers[best[k].offer], best[k].mode);
    if (!line.total || line.total->amount().units() != best[k].key) {
      throw std::logic_error("quote: a line's total changed between ranking and building");
    }
    line.rank = ranks.empty() ? k + 1 : ranks[k];
    result.lines.push_back(std::move(line));
  }
  for (std::size_t k = 0; k < unknowns.size(); ++k) {
    QuoteLine line =
        build_unknown(ctx, ix.offers[unknowns[k].offer], unknowns[k].mode, unknowns[k].why);
    line.rank = result.lines_priced + k + 1;
    result.lines.push_back(std::move(line));
  }
  result.exclusions = build_exclusions(ctx, tallies);
  result.assumptions = assumptions(ctx);
}

}  // namespace

QuoteEngine::QuoteEngine(const Catalog& catalog, const UnloadedOffers* unloaded)
    : catalog_(catalog), index_(std::make_unique<Index>(catalog, unloaded)) {}

QuoteEngine::~QuoteEngine() = default;

std::size_t QuoteEngine::offer_count() const noexcept {
  return index_->offers.size();
}

namespace {

// A retired offer's lines: counted, and listed (as not priced, "retired on D") only when asked
// for (QuoteOptions::include_retired), within `top`.
void add_retired_lines(std::uint32_t i, const IndexedOffer& o, std::uint8_t modes, bool listed,
                       std::size_t top, std::vector<UnknownLine>& unknowns, QuoteResult& result) {
  for (int m = 0; m < kModeCount; ++m) {
    if (o.modes != 0 && !(modes & (1u << m))) continue;
    if (o.modes == 0 && m > 0) break;
    ++result.lines_retired;
    if (listed && (top == 0 || unknowns.size() < top)) {
      unknowns.push_back(
          {i, o.modes == 0 ? kNoMode : static_cast<std::uint8_t>(m), Unknown::retired});
    }
  }
}

}  // namespace

QuoteResult QuoteEngine::quote_offers(const ResolvedWorkload& w, const QuoteOptions& options,
                                      Ranking* ranking) const {
  const Index& ix = *index_;
  Ctx ctx(catalog_, ix, w);
  ctx.include_estimates = options.include_estimates;
  const std::size_t top = options.top;

  auto before = [](const Ranked& a, const Ranked& b) {
    if (a.stale != b.stale) return b.stale;
    if (a.key != b.key) return a.key < b.key;
    if (a.offer != b.offer) return a.offer < b.offer;
    return a.mode < b.mode;
  };
  std::vector<Ranked> best;  // top > 0: a max-heap of the best `top`; else every priced line
  if (top > 0) best.reserve(top + 1);
  std::vector<UnknownLine> unknowns;
  Tallies tallies(ix.families.size());
  QuoteResult result;

  auto exclude = [&](std::uint32_t offer, const IndexedOffer& o, Exclude why,
                     std::uint32_t detail) { tallies.add(o.family, why, detail, offer); };

  for (std::uint32_t i = 0; i < ix.offers.size(); ++i) {
    const IndexedOffer& o = ix.offers[i];
    // ---- does the offer fit?
    if (!ctx.providers[o.provider].allowed) {
      exclude(i, o, Exclude::provider, 0);
      continue;
    }
    if (!ctx.region_ok(o)) {
      exclude(i, o, Exclude::region, o.region);
      continue;
    }
    if (!o.gpu) {
      exclude(i, o, Exclude::no_gpu, 0);
      continue;
    }
    const GpuCheck& gc = ctx.gpus[static_cast<std::size_t>(o.gpu_index)];
    if (!gc.ok) {
      exclude(i, o, gc.why, static_cast<std::uint32_t>(o.gpu_index));
      continue;
    }
    if (w.gpu_fraction ? (o.attached > 0 || o.gpu_count != *w.gpu_fraction)
                       : o.gpu_count_whole != w.gpu_count) {
      exclude(i, o, Exclude::count,
              static_cast<std::uint32_t>(o.gpu_count.units() / 1'000'000'000));
      continue;
    }
    if (w.min_vcpu && o.vcpu < *w.min_vcpu) {
      exclude(i, o, o.vcpu < 0 ? Exclude::vcpu_unknown : Exclude::vcpu, 0);
      continue;
    }
    const std::optional<Decimal>& ram_floor = w.ram_default ? gc.ram_floor : ctx.ram_floor;
    if (ram_floor && ram_floor->sign() > 0) {
      if (o.has_ram ? o.ram_gb < *ram_floor : !w.ram_default) {
        exclude(i, o, o.has_ram ? Exclude::ram : Exclude::ram_unknown, 0);
        continue;
      }
    }
    const std::uint8_t modes = o.modes & ctx.modes_allowed;
    if (o.modes != 0 && modes == 0) {
      exclude(i, o, Exclude::no_mode, o.modes);
      continue;
    }
    ++result.offers_fitting;
    if (o.retired <= ctx.t) {
      add_retired_lines(i, o, modes, options.include_retired, top, unknowns, result);
      continue;
    }

    // ---- its lines
    if (o.modes == 0) {
      ++result.lines_unknown;
      if (top == 0 || unknowns.size() < top) unknowns.push_back({i, kNoMode, Unknown::no_price});
      continue;
    }
    for (int m = 0; m < kModeCount; ++m) {
      if (!(modes & (1u << m))) continue;
      const Inputs in = ctx.resolve(o, m);
      if (!in.ok) {
        ++result.lines_unknown;
        if (top == 0 || unknowns.size() < top) {
          unknowns.push_back({i, static_cast<std::uint8_t>(m), in.why});
        }
        continue;
      }
      ++result.lines_priced;
      const bool stale = ctx.t >= in.host->stale_from || (in.gpu && ctx.t >= in.gpu->stale_from);
      if (stale) ++result.lines_stale;
      const bool apart = options.stale_apart && stale;
      if (top > 0 && best.size() == top && apart < best.front().stale) {
        // A current line when the worst kept is stale: it enters whatever its total.
      } else if (top > 0 && best.size() == top &&
                 (apart > best.front().stale || ctx.lower_bound(o, m, in) > best.front().key)) {
        continue;
      }
      const Ranked r{ctx.exact(o, m, in, nullptr).units(), i, static_cast<std::uint8_t>(m), apart,
                     stale};
      if (top == 0) {
        best.push_back(r);
      } else if (best.size() < top) {
        best.push_back(r);
        std::push_heap(best.begin(), best.end(), before);
      } else if (before(r, best.front())) {
        std::pop_heap(best.begin(), best.end(), before);
        best.back() = r;
        std::push_heap(best.begin(), best.end(), before);
      }
    }
  }
  std::sort(best.begin(), best.end(), before);
  result.offers_total = ix.offers.size() + unloaded_offer_count(ix.unloaded);
  std::vector<std::size_t> ranks;  // empty: the k-th line's rank is k + 1
  const bool best_of_each =
      ranking ? ranking->best_of_each : top == 0 && options.best_of_each_provider_and_mode;
  if (ranking || best_of_each) keep_selected(ctx, best, ranks, best_of_each, ranking);

  build_lines(ctx, best, ranks, unknowns, tallies, result);
  result.stale_apart = options.stale_apart;
  return result;
}

}  // namespace gpubill
