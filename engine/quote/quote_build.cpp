// Building the lines a quote returns, in full: identity, usage, compute, storage, FX, the
// per-unit figures, break-even, notes; and the exclusion report.
#include <algorithm>
#include <map>
#include <unordered_map>

#include "gpubill/base/errors.hpp"
#include "quote/quote_internal.hpp"
#include "quote/quote_text.hpp"

namespace gpubill::quote_detail {

namespace {

std::string mode_name(int m) {
  return std::string(to_string(kModes[static_cast<std::size_t>(m)]));
}

std::string plan_terms(const rules::PrepaidPlan& plan) {
  std::string out;
  for (const auto& o : plan.orders) {
    out += (out.empty() ? "" : " + ") +
           (o.count > 1 ? std::to_string(o.count) + " × " : std::string()) +
           std::to_string(o.order.months);
  }
  return out;
}

// When the rows of a span are in force, for a reason text: "next price from 2025-01-01".
std::string span_dates(const QuoteEngine::Index& ix, const Span& s, std::int64_t t) {
  std::optional<std::int64_t> next, ended;
  for (std::uint16_t i = 0; i < s.count; ++i) {
    const RowRef& r = ix.rows[s.begin + i];
    if (r.from > t && (!next || r.from < *next)) next = r.from;
    if (r.to <= t && (!ended || r.to > *ended)) ended = r.to;
  }
  auto day = [](std::int64_t secs) {
    return format_day(date::floor<date::days>(Instant{std::chrono::seconds{secs}}));
  };
  if (next) return " (its price takes effect " + day(*next) + ")";
  if (ended) return " (its last price ended " + day(*ended) + ")";
  return "";
}

// "expected 106.28 h of running for 100 h of work: 2.13 interruptions, 0 planned stops, billed
// as 3 instance lives; uninterrupted 726.88 CNY".
std::string spot_expectation_note(const Ctx& ctx, const QuoteLine& line) {
  const SpotRunExpectation& e = *line.spot_expectation;
  const bool daily = ctx.w.duration == DurationKind::daily;
  return std::string("expected ") + (daily ? "each day: " : "") + hours_text(e.running_seconds) +
         " h of running for " + hours_text(e.work_seconds) +
         " h of work: " + e.interruptions.round(2, RoundingMode::half_up).to_string() +
         " interruptions, " + std::to_string(e.planned_stops) + " planned stops, billed as " +
         std::to_string(e.lives) + " instance lives; uninterrupted " +
         money2(*line.uninterrupted_total);
}

}  // namespace

void fill_identity(Ctx& ctx, const IndexedOffer& o, int mode, QuoteLine& line) {
  const auto& data = ctx.catalog.data();
  line.offer_id = ctx.ix.offer_id(ctx.catalog, o);
  line.id = line.offer_id + "/" + (mode == kNoMode ? std::string("-") : mode_name(mode));
  line.provider = data.providers[o.provider].id;
  const auto& region = ctx.ix.regions[o.region];
  line.region = region.empty() ? "*" : region;
  line.instance_type = ctx.ix.instance_label(o);
  line.family = o.type->family;
  line.instance = o.type;
  line.gpu = o.gpu;
  line.gpu_count = o.gpu_count;
  line.attached_gpus = o.attached > 0;
  if (mode != kNoMode) {
    line.mode = kModes[static_cast<std::size_t>(mode)];
    line.interruptible = *line.mode == BillingMode::spot;
  }
}

namespace {

// Per GPU-hour and per TFLOP-hour of the GPU time the workload uses.
void fill_per_unit_prices(const Ctx& ctx, const IndexedOffer& o, const Usage& u, QuoteLine& line) {
  const Decimal busy_gpu_seconds = o.gpu_count * u.busy;
  if (busy_gpu_seconds.sign() > 0) {
    const Decimal numerator = line.total->amount() * kHour;
    line.per_gpu_hour =
        Money(Decimal::divide(numerator, busy_gpu_seconds, 4, RoundingMode::half_up), ctx.cmp);
    if (o.gpu->fp32_tflops && o.gpu->fp32_tflops->sign() > 0) {
      line.per_fp32_tflop_hour =
          Money(Decimal::divide(numerator, busy_gpu_seconds * *o.gpu->fp32_tflops, 6,
                                RoundingMode::half_up),
                ctx.cmp);
    }
    if (o.gpu->fp16_tensor_tflops && o.gpu->fp16_tensor_tflops->sign() > 0) {
      line.per_fp16_tflop_hour =
          Money(Decimal::divide(numerator, busy_gpu_seconds * *o.gpu->fp16_tensor_tflops, 6,
                                RoundingMode::half_up),
                ctx.cmp);
    }
  }
}

// Break-even of prepaid against payg for this offer.
void fill_break_even(Ctx& ctx, const IndexedOffer& o, const Usage& u, QuoteLine& line) {
  const int payg = mode_index(BillingMode::payg), prepaid = mode_index(BillingMode::prepaid);
  if ((o.modes & (1u << payg)) && (o.modes & (1u << prepaid))) {
    const Inputs p = ctx.resolve(o, payg);
    const Inputs q = ctx.resolve(o, prepaid);
    if (p.ok && q.ok) {
      Money monthly = q.host->row->amount;
      if (q.gpu) monthly += q.gpu->row->amount * o.attached;
      const std::uint32_t group = ctx.ix.families[o.family].discount_group;
      const rules::PrepaidPlan plan =
          line.plan ? *line.plan
                    : rules::cheapest_prepaid_plan(
                          monthly, u.months, rules::standard_prepaid_terms(),
                          [&](int term) { return ctx.discount_for(group, term); }, *q.pc->policy);
      // One payg hour as replay bills it: each meter (host, GPUs) on its own, rounded where the
      // policy settles every hour, exact where it rounds once a day or month.
      const auto one_hour = [&](const Money& price) {
        return rules::usage_record(price, kHour, *p.pc->policy, MeteredResource::compute).billed;
      };
      Money hour = one_hour(p.host->row->amount);
      if (p.gpu) hour += one_hour(p.gpu->row->amount * o.attached);
      Money per_month(
          Decimal::divide(plan.total.amount(), u.months, Decimal::kScale, RoundingMode::half_even),
          plan.total.currency());
      // Both in the comparison currency, as the line's total (a USD-priced offer in a CNY
      // quote is drawn and explained in CNY).
      if (hour.currency() != ctx.cmp) hour = ctx.catalog.convert(hour, ctx.cmp, ctx.day).result;
      if (per_month.currency() != ctx.cmp) {
        per_month = ctx.catalog.convert(per_month, ctx.cmp, ctx.day).result;
      }
      if (hour.amount().sign() > 0) {
        line.break_even_hours_per_month =
            Decimal::divide(per_month.amount(), hour.amount(), 1, RoundingMode::up);
        line.break_even_monthly = per_month;
        line.break_even_hourly = hour;
      }
    }
  }
}

// A spot line's notes: its expected usage, that it is interruptible, the policy's stops.
void add_spot_notes(const Ctx& ctx, const Usage& u, QuoteLine& line) {
  auto& notes = line.notes;
  // The expectation first: it is what the line's total means.
  if (line.spot_expectation) notes.push_back(spot_expectation_note(ctx, line));
  notes.push_back(
      "interruptible (spot): capacity can be reclaimed; billed at the spot price "
      "in force each hour");
  const BillingPolicy& policy = *line.policy;
  if (policy.spot_max_run_hours > 0) {
    const std::int64_t limit = std::int64_t{policy.spot_max_run_hours} * kHour;
    std::string note = "stopped after " + std::to_string(policy.spot_max_run_hours) +
                       " h of running (policy " + std::to_string(policy.id) + ")";
    if (line.spot_expectation) {
      if (line.spot_expectation->planned_stops > 0) note += ": restarts in the expected total";
    } else if (u.run_seconds > limit) {
      note += ": each " + hours_text(u.run_seconds) + " h run needs " +
              std::to_string((u.run_seconds - 1) / limit) + " restart(s), not in the total";
    }
    notes.push_back(std::move(note));
  }
  if (policy.spot_protection_hours > 0) {
    notes.push_back("not reclaimed in its first " + std::to_string(policy.spot_protection_hours) +
                    " h (protection period, policy " + std::to_string(policy.id) + ")");
  }
}

// The line's notes: first what the reader must know about the price itself (test data, its
// age), then about the offer, the mode, the usage and the parts.
void add_notes(const Ctx& ctx, const IndexedOffer& o, BillingMode mode, const Usage& u,
               QuoteLine& line) {
  auto& notes = line.notes;
  RowsProvenance provenance;
  for (const PriceRow* row : {line.price_row, line.gpu_price_row}) {
    if (row) provenance.add(row->source, row->as_of);
  }
  line.as_of = provenance.as_of;
  line.stale = stale_as_of(line.as_of, ctx.w.at);
  line.source_tag = provenance.tag;
  if (auto note = provenance_note(line.source_tag, line.as_of, ctx.w.at); !note.empty()) {
    notes.push_back(std::move(note));
  }
  if (line.attached_gpus) {
    notes.push_back("host " + o.type->id + " + " + std::to_string(o.attached) + " × " + o.gpu->id +
                    " at the per-GPU price");
  }
  if (line.sustained_use_credit) {
    notes.push_back("sustained use discount −" + line.sustained_use_credit->to_string() +
                    " (each month's use at the policy's tiers)");
  }
  notes.push_back("a month is " + std::to_string(line.month_hours) + " h (" +
                  (line.month_hours_from_workload
                       ? std::string("the workload's month_hours")
                       : "the provider's convention, policy " +
                             std::to_string(line.policy ? line.policy->id : 0) +
                             " quote_month_hours") +
                  (line.policy && line.policy->sustained_use_tiers.empty()
                       ? ")"
                       : "; sustained use per calendar month from the quote's date)"));
  if (mode == BillingMode::spot) add_spot_notes(ctx, u, line);
  if (mode == BillingMode::prepaid && line.plan) {
    const int covered = line.plan->months_covered;
    notes.push_back(
        "prepaid " + std::to_string(covered) + (covered == 1 ? " month" : " months") +
        (line.plan->order_count() > 1 ? " (terms " + plan_terms(*line.plan) + ")" : std::string()) +
        (u.busy < std::int64_t{line.plan->months_covered} * u.month
             ? ", used " + hours_text(u.busy) + " h of " +
                   std::to_string(line.plan->months_covered * line.month_hours) + " h"
             : ""));
  }
  if (mode == BillingMode::reserved_1y || mode == BillingMode::reserved_3y) {
    notes.push_back("commits to " + std::to_string(line.reserved_terms) + " × " +
                    std::to_string(line.reserved_term_hours) + " h term" +
                    (line.reserved_terms > 1 ? "s" : "") + ", paid for every hour");
  }
  if (u.daily && u.runs > 1 && (mode == BillingMode::payg || mode == BillingMode::spot)) {
    notes.push_back(line.released_daily ? "released each day: " + line.provider +
                                              " charges stopped pay-as-you-go instances"
                                        : "stopped between daily runs (not charged while stopped)");
  }
  if (u.finish) {
    notes.push_back(std::string(line.spot_expectation ? "expected to finish" : "finishes") +
                    " in " + hours_text(*u.finish) + " h on " + std::to_string(ctx.w.gpu_count) +
                    " × " + o.gpu->id);
  }
  if (ctx.w.ram_default && !o.has_ram) {
    const auto& floor = ctx.gpus[static_cast<std::size_t>(o.gpu_index)].ram_floor;
    notes.push_back("RAM not in the catalog: default floor" +
                    (floor ? " (" + floor->to_string() + " GB)" : std::string()) + " not checked");
  }
  if (line.storage.state == LinePart::State::unpriced) {
    notes.push_back("storage unpriced: " + line.storage.detail);
  } else if (line.storage.state == LinePart::State::included) {
    notes.push_back("storage: " + line.storage.detail);
  }
  if (line.network.state == LinePart::State::unpriced) {
    notes.push_back("network unpriced: " + line.network.detail);
  }
}

}  // namespace

QuoteLine build_line(Ctx& ctx, const IndexedOffer& o, int m) {
  QuoteLine line;
  fill_identity(ctx, o, m, line);
  const Inputs in = ctx.resolve(o, m);
  if (!in.ok) throw std::logic_error("quote: a ranked line has no price");
  const BillingMode mode = kModes[static_cast<std::size_t>(m)];
  const Usage& u = *in.usage;
  line.priced = true;
  line.price_row = in.host->row;
  line.gpu_price_row = in.gpu ? in.gpu->row : nullptr;
  line.policy = in.pc->policy;
  line.run_seconds = u.run_seconds;
  line.runs = u.runs;
  line.busy_seconds = u.busy;
  line.span_seconds = u.span;
  line.finish_seconds = u.finish;
  if (mode == BillingMode::prepaid) line.months_needed = u.months;
  line.month_hours = in.pc->month_hours;
  line.month_hours_from_workload = in.pc->month_from_workload;
  line.total = Money(ctx.exact(o, m, in, &line), ctx.cmp);
  if (u.spot) {
    line.spot_expectation = u.spot;
    Inputs uninterrupted = in;
    uninterrupted.usage = &ctx.usage(o);
    line.uninterrupted_total = Money(ctx.exact(o, m, uninterrupted, nullptr), ctx.cmp);
  }

  fill_per_unit_prices(ctx, o, u, line);
  fill_break_even(ctx, o, u, line);
  add_notes(ctx, o, mode, u, line);
  return line;
}

QuoteLine build_unknown(Ctx& ctx, const IndexedOffer& o, int m, Unknown why) {
  QuoteLine line;
  fill_identity(ctx, o, m, line);
  const std::string on = " in force on " + format_day(ctx.day);
  const std::string mode = m == kNoMode ? std::string() : mode_name(m);
  switch (why) {
    case Unknown::no_price:
      line.unknown_reason = "no price for this offer in the catalog";
      break;
    case Unknown::no_row:
      line.unknown_reason = "no " + mode + " price for " + o.type->id + on +
                            span_dates(ctx.ix, o.rows[static_cast<std::size_t>(m)], ctx.t);
      if (o.rows[static_cast<std::size_t>(m)].count == 0 && o.attached > 0) {
        line.unknown_reason =
            "no " + mode + " price for the host " + o.type->id + " (only its GPUs are priced)";
      }
      break;
    case Unknown::no_gpu_row:
      line.unknown_reason = "no " + mode + " per-GPU price for " + o.gpu->id + on +
                            span_dates(ctx.ix, o.gpu_rows[static_cast<std::size_t>(m)], ctx.t);
      break;
    case Unknown::mixed_currency:
      line.unknown_reason = "host and GPU are priced in different currencies";
      break;
    case Unknown::unit:
      line.unknown_reason =
          "the " + mode + " price is not per " + (mode == "prepaid" ? "month" : "hour");
      break;
    case Unknown::spot_unfinishable: {
      const Usage& u = ctx.usage(o, m);
      line.unknown_reason =
          u.spot_exceeds_day()
              ? "the expected run of " + hours_text(u.spot->running_seconds) +
                    " h (interruptions, checkpoints, restarts) does not fit in a day"
              : "at the workload's interruption rate, the work lost to interruptions and "
                "restarts outpaces the work done: the run is not expected to finish";
      break;
    }
    case Unknown::no_policy:
      line.unknown_reason = "no billing policy for " + line.provider + on;
      break;
    case Unknown::estimate:
      line.unknown_reason =
          "only an estimate ([E]) is in the catalog" + on + "; --include-estimates ranks it";
      break;
    case Unknown::retired:
      line.unknown_reason =
          "retired on " +
          format_day(date::floor<date::days>(Instant{std::chrono::seconds{o.retired}})) +
          " (quote at an earlier --at to price it)";
      break;
    case Unknown::payg_unavailable:
      line.unknown_reason = line.provider + "'s policy says pay-as-you-go is not available";
      break;
    case Unknown::no_fx: {
      const RowRef* r = ctx.ix.in_force(o.rows[static_cast<std::size_t>(m)], ctx.t);
      line.unknown_reason = "no FX rate " +
                            (r ? r->row->amount.currency().to_string() : std::string("?")) + "→" +
                            ctx.cmp.to_string() + " on or before " + format_day(ctx.day);
      break;
    }
  }
  return line;
}

namespace {

std::string comma_list(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace

std::string exclusion_text_for(Ctx& ctx, Exclude why, const std::string& region, const Gpu* g) {
  const auto& w = ctx.w;
  const auto list = comma_list;
  switch (why) {
    case Exclude::provider:
      return "provider not among the workload's providers (" + list(w.providers) + ")";
    case Exclude::region:
      return "region " +
             (region.empty() ? std::string("* (every region of the provider)") : region) +
             " not among the workload's regions (" + list(w.regions) + ")";
    case Exclude::no_gpu:
      return "no GPU model recorded for this instance type";
    case Exclude::gpu_model: {
      std::string asked;
      for (const auto& [name, gpus] : w.matched_names) {
        std::vector<std::string> ids;
        for (const Gpu* m : gpus) ids.push_back(m->id);
        asked += (asked.empty() ? "" : "; ") + name;
        if (ids.size() != 1 || ids[0] != name) asked += " = " + list(ids);
      }
      return "GPU " + g->id + " is not a requested model (" + asked + ")";
    }
    case Exclude::fp32:
      return "GPU " + g->id + " has " +
             (g->fp32_tflops ? g->fp32_tflops->to_string() + " FP32 TFLOPS" : "no FP32 figure") +
             ", below the floor of " + w.min_fp32_tflops->to_string();
    case Exclude::fp16:
      return "GPU " + g->id + " has " +
             (g->fp16_tensor_tflops ? g->fp16_tensor_tflops->to_string() + " FP16 TFLOPS"
                                    : "no FP16 tensor figure") +
             ", below the floor of " + w.min_fp16_tflops->to_string();
    case Exclude::memory:
      return "GPU " + g->id + " has " +
             (g->memory_gb ? g->memory_gb->to_string() + " GB" : "unknown memory") +
             ", below the floor of " + w.min_memory_gb->to_string() + " GB";
    case Exclude::nvlink:
      return "GPU " + g->id + " uses " +
             (g->interconnect.empty() ? "an unknown bus" : g->interconnect) +
             ", not NVLink (required)";
    case Exclude::throughput:
      return "GPU " + g->id + " has no " + std::string(to_string(w.precision)) +
             " throughput in the catalog, so the time to finish the work is unknown";
    case Exclude::too_long:
      return "the work would take more than 100 years on " + std::to_string(w.gpu_count) + " × " +
             g->id;
    default:
      return "?";
  }
}

std::string exclusion_text(Ctx& ctx, Exclude why, const IndexedOffer& o) {
  const auto& w = ctx.w;
  const Gpu* g = o.gpu;
  const auto list = comma_list;
  switch (why) {
    case Exclude::count:
      return o.gpu_count.to_string() + " × " + g->id + " per instance, the workload needs " +
             std::to_string(w.gpu_count);
    case Exclude::vcpu:
      return std::to_string(o.vcpu) + " vCPU, below the floor of " + std::to_string(*w.min_vcpu);
    case Exclude::vcpu_unknown:
      return "vCPU count unknown, the workload needs at least " + std::to_string(*w.min_vcpu);
    case Exclude::ram: {
      const auto& floor =
          w.ram_default ? ctx.gpus[static_cast<std::size_t>(o.gpu_index)].ram_floor : ctx.ram_floor;
      return "RAM " + o.ram_gb.to_string() + " GB, below " + floor->to_string() + " GB" +
             (w.ram_default ? " (default floor: total GPU memory " + std::to_string(w.gpu_count) +
                                  " × " + g->memory_gb->to_string() + " GB)"
                            : std::string(" (min_ram_gb)"));
    }
    case Exclude::ram_unknown:
      return "RAM unknown, the workload needs at least " + ctx.ram_floor->to_string() + " GB";
    case Exclude::no_mode: {
      std::vector<std::string> sold, allowed;
      for (int m = 0; m < kModeCount; ++m) {
        if (o.modes & (1u << m)) sold.push_back(mode_name(m));
      }
      for (BillingMode m : w.modes) allowed.push_back(std::string(to_string(m)));
      return "sold only as " + list(sold) + "; the workload allows " + list(allowed);
    }
    default:
      return exclusion_text_for(ctx, why, ctx.ix.regions[o.region], g);
  }
}

std::vector<std::string> assumptions(Ctx& ctx) {
  const auto& w = ctx.w;
  std::vector<std::string> out;
  out.push_back("prices, policies and FX rates in force on " + format_instant(w.at) +
                (w.at_today     ? " (default: today)"
                 : w.at_default ? " (default: the latest price date in the catalog)"
                                : ""));
  out.push_back("totals in " + ctx.cmp.to_string() +
                (w.currency_default ? " (default comparison currency)" : ""));
  for (const auto& r : ctx.rates) {
    if (r.fx) out.push_back("FX: " + fx_text(*r.fx, false));
  }
  switch (w.duration) {
    case DurationKind::hours:
      out.push_back("duration: " + w.hours.to_string() + " h of continuous use");
      break;
    case DurationKind::daily:
      out.push_back("duration: " + w.hours.to_string() + " h a day for " + std::to_string(w.days) +
                    " days, each day its own run; prepaid covers " +
                    std::to_string((w.days + 29) / 30) + " month(s)");
      break;
    case DurationKind::months:
      out.push_back("duration: " + std::to_string(w.months) + " months of " +
                    (w.month_hours ? std::to_string(*w.month_hours) + " h"
                                   : std::string("each provider's month (each line says which)")));
      break;
    case DurationKind::gpu_hours:
      out.push_back("work: " + w.work.to_string() + " GPU-hours on " + w.reference_gpu->id + " (" +
                    (w.precision == Precision::fp32 ? w.reference_gpu->fp32_tflops
                                                    : w.reference_gpu->fp16_tensor_tflops)
                        ->to_string() +
                    " " + std::string(to_string(w.precision)) +
                    " TFLOPS); each offer finishes in its own time by its GPUs' throughput");
      break;
    case DurationKind::pflop:
      out.push_back("work: " + w.work.to_string() + " PFLOP at " +
                    std::string(to_string(w.precision)) + ", efficiency " +
                    w.efficiency.to_string() +
                    (w.spec.duration.efficiency ? "" : " (default: peak throughput)") +
                    "; each offer finishes in its own time");
      break;
  }
  out.push_back(
      (w.month_hours ? "a month is " + std::to_string(*w.month_hours) + " h (month_hours)"
                     : std::string("a month is each provider's convention (its policy row's "
                                   "quote_month_hours: 730 h for AWS, Azure and Google, 720 h "
                                   "elsewhere; each line says which)")) +
      "; prepaid months needed = ceil(span / month), terms 1–12, 24, 36, 48, 60 months with the "
      "catalog's term discounts; sustained use discounts per calendar month from the quote's "
      "date");
  if (w.spot_model) {
    const SpotInterruptionModel& m = *w.spot_model;
    const SpotNeed& given = w.spec.spot;
    const auto hours = [](const Decimal& d, bool defaulted) {
      return d.to_string() + " h" + (defaulted ? " (default)" : "");
    };
    out.push_back(
        "spot lines at their expected running time T = W × (1 + c/τ) / (1 − λ × (τ/2 + r) − "
        "r/M), with λ = " +
        m.interruptions_per_hour.to_string() + " interruptions per hour of running, τ = " +
        hours(m.checkpoint_interval_hours, !given.checkpoint_interval_hours) +
        " between checkpoints, c = " +
        hours(m.checkpoint_write_hours, !given.checkpoint_write_hours) +
        " to write one, r = " + hours(m.restart_hours, !given.restart_hours) +
        " to restart, M = the provider's maximum spot run time (if any); each interruption and "
        "planned stop starts a new instance life, billed as a run of its own; a protection "
        "period is not credited");
  }
  if (w.ram_default) {
    out.push_back(
        "RAM floor: at least the total GPU memory of each offer (the article's advice; "
        "a default — set min_ram_gb / --min-ram to override, 0 to drop it)");
  }
  if (w.storage_gb) {
    out.push_back("storage: " + w.dataset_gb.to_string() + " GB data set + " +
                  w.headroom_gb.to_string() + " GB headroom" +
                  (w.headroom_default ? " (default)" : "") + " on " + w.disk_kind);
  } else {
    out.push_back("storage: not priced (no dataset_gb given)");
  }
  return out;
}

}  // namespace gpubill::quote_detail
