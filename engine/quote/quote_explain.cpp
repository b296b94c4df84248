// The arithmetic of a quote line as text, and finding lines by rank or id.
#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

#include "gpubill/base/errors.hpp"
#include "gpubill/quote/quote.hpp"
#include "quote/quote_internal.hpp"
#include "quote/quote_text.hpp"

namespace gpubill {

namespace quote_detail {

std::string hours_text(std::int64_t seconds) {
  return Decimal::divide(Decimal(seconds), kHour, 2, RoundingMode::half_up).to_string();
}

std::string fx_text(const FxRate& fx, bool with_source) {
  std::string out = "1 " + fx.from.to_string() + " = " + fx.rate.to_string() + " " +
                    fx.to.to_string() + " (row #" + std::to_string(fx.id) + " dated " +
                    format_day(fx.day);
  if (fx.inverted)
    out += ", the inverse of the stored " + fx.to.to_string() + "→" + fx.from.to_string() + " rate";
  out += "; as of " + fx.as_of;
  if (with_source) out += "; source: " + fx.source;
  out += ")";
  return out;
}

std::string money2(const Money& m) {
  return m.amount().round(2, RoundingMode::half_up).to_string(2) + " " + m.currency().to_string();
}

}  // namespace quote_detail

using namespace quote_detail;

namespace {

// Lower case, with "×" read as "x" (so "n1-standard-8+4xV100" finds "n1-standard-8+4×V100").
std::string lower(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s.compare(i, 2, "\xC3\x97") == 0) {
      out += 'x';
      ++i;
      continue;
    }
    out += static_cast<char>(std::tolower(static_cast<unsigned char>(s[i])));
  }
  return out;
}

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const auto p = s.find(sep, start);
    out.emplace_back(s.substr(start, p == std::string_view::npos ? s.npos : p - start));
    if (p == std::string_view::npos) break;
    start = p + 1;
  }
  return out;
}

std::string row_text(const PriceRow& r) {
  std::string out = "row #" + std::to_string(r.id) + ": " + r.provider + " " +
                    std::string(to_string(r.subject_kind)) + " " + r.subject + ", " +
                    (r.region.empty() ? std::string("every region") : r.region) + ", " +
                    std::string(to_string(r.mode)) + ", " + r.amount.to_string() + " per " +
                    std::string(to_string(r.unit)) + "; in force from " +
                    format_instant(r.period.from) +
                    (r.period.to ? " to " + format_instant(*r.period.to) : std::string()) +
                    "; as of " + r.as_of + "; source: " + r.source;
  return out;
}

std::string policy_text(const BillingPolicy& p) {
  std::string out = "row #" + std::to_string(p.id) + " (" + p.provider + " from " +
                    format_instant(p.period.from) + "): usage metered in units of " +
                    std::to_string(p.metering_granularity_seconds) + " s, compute settled every " +
                    std::string(to_string(p.settlement_period)) + ", each settlement rounded " +
                    std::string(to_string(p.settlement_rounding)) + " to " +
                    std::to_string(p.settlement_decimals) + " decimals";
  if (p.min_charge_seconds_per_run > 0) {
    out += ", each run billed at least " + std::to_string(p.min_charge_seconds_per_run) + " s";
  }
  if (p.min_charge_per_lifetime) {
    out += ", a lifetime costs at least " + p.min_charge_per_lifetime->to_string();
  }
  out += "; source: " + p.source;
  return out;
}

std::string part_text(const LinePart& p) {
  switch (p.state) {
    case LinePart::State::none:
      return "not asked for";
    case LinePart::State::included:
      return "included: " + p.detail;
    case LinePart::State::priced:
      return p.detail + " → " + money2(*p.converted) +
             (p.native->currency() != p.converted->currency()
                  ? " (from " + p.native->to_string() + ")"
                  : std::string());
    case LinePart::State::unpriced:
      return "UNPRICED (not in the total) — " + p.detail;
  }
  return "?";
}

void explain_settlements(std::ostringstream& s, const QuoteLine& line, const Money& price,
                         std::int64_t seconds, const char* indent) {
  const BillingPolicy& policy = *line.policy;
  const std::int64_t billed_seconds =
      std::max<std::int64_t>(seconds, policy.min_charge_seconds_per_run);
  const std::int64_t full = billed_seconds / kHour;
  const std::int64_t rest = rules::metered_seconds(billed_seconds % kHour, policy);
  if (billed_seconds != seconds) {
    s << indent << "run of " << seconds << " s billed as the policy's minimum " << billed_seconds
      << " s\n";
  }
  if (full > 0) {
    const auto h = rules::settle(price, kHour, policy);
    s << indent << "a full hour: " << price.to_string()
      << " × 3600 s / 3600 s = " << h.exact.to_string() << " → billed " << h.billed.to_string()
      << " (" << to_string(policy.settlement_rounding) << " to " << policy.settlement_decimals
      << " decimals, rounding " << h.rounding.amount().to_string() << ")\n";
    s << indent << full << " full hour" << (full > 1 ? "s" : "") << " × " << h.billed.to_string()
      << " = " << (h.billed * full).to_string() << "\n";
  }
  if (rest > 0) {
    const auto last = rules::settle(price, rest, policy);
    s << indent << "last partial hour: " << (billed_seconds % kHour) << " s";
    if (rest != billed_seconds % kHour) s << " metered as " << rest << " s";
    s << ": " << price.to_string() << " × " << rest << " / 3600 = " << last.exact.to_string()
      << " → billed " << last.billed.to_string() << "\n";
  }
}

// One run's settlements of each meter (the host; its GPUs), as payg_runs_cost counts them.
void explain_meters(std::ostringstream& s, const QuoteLine& line) {
  const BillingPolicy& policy = *line.policy;
  const auto explain_meter = [&](const Money& price, const std::string& what) {
    const SettlementPeriod period = policy.settlement_period_of(MeteredResource::compute);
    s << "    " << what << " at " << price.to_string() << "/h";
    if (period != SettlementPeriod::hour) {
      s << ": hourly usage records kept exact, one settlement record per " << to_string(period)
        << " (a quoted month is " << line.month_hours << " h, the run starting a cycle) rounded "
        << to_string(policy.settlement_rounding) << " to " << policy.settlement_decimals
        << " decimals\n";
      return;
    }
    s << ", one run:\n";
    explain_settlements(s, line, price, line.run_seconds, "      ");
  };
  if (!line.price_row) return;
  const Money host = line.price_row->amount;
  explain_meter(host, line.gpu_price_row ? "host " + line.instance_type : line.instance_type);
  if (line.gpu_price_row && line.unit_price) {
    explain_meter(*line.unit_price - host,
                  line.gpu_count.to_string() + " × GPU " + line.gpu_price_row->subject);
  }
}

// The line's usage: the work's time, the spot expectation, the runs.
void explain_usage(std::ostringstream& s, const QuoteLine& line) {
  s << "  usage: ";
  if (line.finish_seconds) {
    s << "the work takes " << *line.finish_seconds << " s = " << hours_text(*line.finish_seconds)
      << " h on " << line.gpu_count.to_string() << " × " << line.gpu->id << "; ";
  }
  if (line.spot_expectation) {
    const SpotRunExpectation& e = *line.spot_expectation;
    s << "expected under the interruption model: " << e.work_seconds << " s of work run "
      << e.running_seconds << " s = " << hours_text(e.running_seconds) << " h, with "
      << e.interruptions.to_string() << " interruptions (rounded half-up) and " << e.planned_stops
      << " planned stops = " << e.lives << " instance lives of ceil(" << e.running_seconds << " / "
      << e.lives << ") = " << line.run_seconds << " s; ";
  }
  if (line.runs > 1) {
    s << line.runs << " runs of " << hours_text(line.run_seconds) << " h (" << line.run_seconds
      << " s), over " << hours_text(line.span_seconds) << " h";
  } else {
    s << "1 run of " << hours_text(line.run_seconds) << " h (" << line.run_seconds << " s)";
  }
  s << "\n";
}

// A commitment row as explain shows it: id, offer, amounts, as of and source.
std::string commitment_row_text(const CommitmentRow& r) {
  return "#" + std::to_string(r.id) + " " + r.provider + " " + r.subject +
         (r.region.empty() ? "" : " in " + r.region) + ": " + std::string(to_string(r.program)) +
         (r.offering_class.empty() ? "" : " " + r.offering_class) + ", " +
         std::to_string(r.term_months) + " months, " + std::string(to_string(r.payment)) +
         ", upfront " + r.upfront.to_string() + " + " + r.hourly.to_string() +
         " per hour (in force from " + format_instant(r.period.from) + "; as of " + r.as_of +
         "; source: " + r.source + ")";
}

// A commitment line's compute: its rows, terms, and the utilisation and break-even figures.
void explain_commitment(std::ostringstream& s, const QuoteLine& line) {
  const CommitmentTerms& c = *line.commitment;
  s << "  commitment " << commitment_row_text(*c.row) << "\n";
  if (c.gpu_row) {
    s << "  per-GPU commitment " << commitment_row_text(*c.gpu_row) << "\n";
    s << "  per term: host + " << line.gpu_count.to_string() << " GPUs: upfront "
      << c.upfront.to_string() << ", hourly " << c.hourly.to_string() << "\n";
  }
  s << "  term cost: " << c.upfront.to_string() << " + " << c.hourly.to_string() << " × "
    << c.term_hours << " h = " << c.term_cost.to_string() << " (every hour of the term is paid, "
    << "used or not)\n";
  s << "  terms: ceil(" << hours_text(line.span_seconds) << " h / " << c.term_hours
    << " h) = " << c.terms << "; " << c.term_cost.to_string() << " × " << c.terms << " = "
    << line.compute->to_string() << "\n";
  if (c.hours_beyond_workload > 0) {
    s << "  longer than the workload: " << c.hours_beyond_workload
      << " committed hours after it ends are priced too\n";
  }
  s << "  utilisation: " << hours_text(line.busy_seconds) << " used h / " << c.terms * c.term_hours
    << " committed h = " << c.utilisation.to_string() << "\n";
  if (c.effective_hourly) {
    s << "  effective: compute / used hours = " << c.effective_hourly->to_string()
      << " per used hour\n";
  }
  if (c.break_even_utilisation) {
    s << "  break-even against pay-as-you-go: " << c.term_cost.to_string() << " / ("
      << (line.gpu_price_row
              ? "(" + line.price_row->amount.to_string() + " + " + line.gpu_count.to_string() +
                    " × " + line.gpu_price_row->amount.to_string() + ")"
              : line.price_row->amount.to_string())
      << " × " << c.term_hours << " h) = " << c.break_even_utilisation->to_string()
      << " of the term's hours\n";
  }
}

// The line's compute cost by its mode: the prepaid plan, the reserved terms or the payg meters.
void explain_compute(std::ostringstream& s, const QuoteLine& line) {
  const BillingMode mode = *line.mode;
  if (line.commitment) {
    explain_commitment(s, line);
  } else if (mode == BillingMode::prepaid && line.plan) {
    s << "  prepaid months needed: ceil(" << hours_text(line.span_seconds) << " h / "
      << line.month_hours << " h) = " << line.months_needed << "\n";
    s << "  cheapest combination of terms (1–12, 24, 36, 48, 60 months) covering it: "
      << line.plan->months_covered << (line.plan->months_covered == 1 ? " month" : " months")
      << " for " << line.plan->total.to_string() << "\n";
    for (const auto& planned : line.plan->orders) {
      const rules::PrepaidOrder& o = planned.order;
      s << "    " << (planned.count > 1 ? std::to_string(planned.count) + " × " : std::string())
        << o.months << " month" << (o.months > 1 ? "s" : "") << ": " << line.unit_price->to_string()
        << " × " << o.months << " = " << o.list.to_string() << " × factor " << o.factor.to_string();
      if (o.discount) {
        s << " (discount row #" << o.discount->id << ": " << o.discount->min_months << "–"
          << o.discount->max_months << " months"
          << (o.discount->family.empty() ? "" : ", family " + o.discount->family) << "; as of "
          << o.discount->as_of << "; source: " << o.discount->source << ")";
      } else {
        s << " (no discount for this term)";
      }
      s << " → " << o.charged.to_string() << " (" << to_string(line.policy->settlement_rounding)
        << " to " << line.policy->settlement_decimals << " decimals)\n";
    }
    s << "    " << line.months_needed << " × 1 month at list would be "
      << (*line.unit_price * line.months_needed).to_string() << "\n";
  } else if (mode == BillingMode::reserved_1y || mode == BillingMode::reserved_3y) {
    s << "  reserved: " << line.reserved_terms << " term" << (line.reserved_terms > 1 ? "s" : "")
      << " of " << line.reserved_term_hours << " h cover the " << hours_text(line.span_seconds)
      << " h span; every hour of a term is paid\n";
    explain_settlements(s, line, *line.unit_price, line.reserved_term_hours * kHour, "    ");
    s << "    per term " << line.run_cost->billed.to_string() << " × " << line.reserved_terms
      << " = " << line.compute->to_string() << "\n";
  } else {
    explain_meters(s, line);
    s << "    " << line.run_cost->settlements << " settlement record"
      << (line.run_cost->settlements > 1 ? "s" : "");
    if (line.runs > 1) {
      s << " over " << line.runs << " runs"
        << (line.released_daily ? " (released each day: stopped instances are charged)"
                                : " (stopped between runs)");
    }
    s << " = " << line.run_cost->billed.to_string() << " (exact "
      << line.run_cost->exact.to_string() << ")\n";
  }
}

// The per-unit figures and the break-even of prepaid against payg.
void explain_per_unit(std::ostringstream& s, const QuoteLine& line) {
  if (line.per_gpu_hour) {
    s << "  per GPU-hour: " << money2(*line.total) << " / (" << line.gpu_count.to_string()
      << " GPU × " << hours_text(line.busy_seconds)
      << " h used) = " << line.per_gpu_hour->to_string() << "\n";
  }
  if (line.per_fp32_tflop_hour) {
    s << "  per FP32 TFLOP-hour (" << line.gpu->fp32_tflops->to_string()
      << " TFLOPS per GPU): " << line.per_fp32_tflop_hour->to_string() << "\n";
  }
  if (line.per_fp16_tflop_hour) {
    s << "  per FP16 TFLOP-hour (" << line.gpu->fp16_tensor_tflops->to_string()
      << " TFLOPS per GPU): " << line.per_fp16_tflop_hour->to_string() << "\n";
  }
  if (line.break_even_hours_per_month) {
    s << "  break-even: prepaid " << line.break_even_monthly->to_string() << " per month ÷ payg "
      << line.break_even_hourly->to_string()
      << " per settled hour = " << line.break_even_hours_per_month->to_string()
      << " h/month — prepaid is cheaper above that much use a month\n";
  }
}

}  // namespace

std::string explain_line(const QuoteResult& result, const QuoteLine& line) {
  std::ostringstream s;
  s << line.id << "  (rank " << line.rank << ")\n";
  s << "  offer: " << line.instance_type << " (family " << line.family << ", " << line.provider
    << ", region " << line.region << "), " << line.gpu_count.to_string() << " × "
    << (line.gpu ? line.gpu->id : std::string("?"));
  if (line.instance) {
    if (line.instance->vcpu) s << ", " << *line.instance->vcpu << " vCPU";
    if (line.instance->ram_gb) s << ", " << line.instance->ram_gb->to_string() << " GB RAM";
  }
  s << "\n";
  if (!line.priced) {
    s << "  price: UNKNOWN — " << line.unknown_reason << "\n";
    s << "  (an unknown price is never counted as 0; this line ranks after every priced line)\n";
    return s.str();
  }
  s << "  mode: " << to_string(*line.mode) << (line.interruptible ? " (interruptible)" : "")
    << "\n";
  s << (line.commitment ? "  pay-as-you-go price (the break-even's) " : "  price ")
    << row_text(*line.price_row) << "\n";
  if (line.gpu_price_row) {
    s << (line.commitment ? "  pay-as-you-go per-GPU price " : "  per-GPU price ")
      << row_text(*line.gpu_price_row) << "\n";
  }
  if (line.gpu_price_row && !line.commitment) {
    s << "  unit price: host " << line.price_row->amount.to_string() << " + "
      << line.gpu_count.to_string() << " × " << line.gpu_price_row->amount.to_string() << " = "
      << line.unit_price->to_string() << " per " << to_string(line.price_row->unit) << "\n";
  }
  s << "  policy " << policy_text(*line.policy) << "\n";

  explain_usage(s, line);
  explain_compute(s, line);
  if (line.sustained_use_credit) {
    s << "  sustained use discount: −" << line.sustained_use_credit->to_string() << " (policy row #"
      << line.policy->id << ": per calendar month from the quote's date, the "
      << "hours' use stacked into inferred instances, each quarter of a month's use charged at "
      << "the next tier";
    for (const auto& t : line.policy->sustained_use_tiers) s << " " << t.to_string();
    s << "; each month's credit rounded " << to_string(line.policy->settlement_rounding) << ")\n";
  }
  s << "  compute: " << line.compute->to_string() << "\n";
  if (line.fx) {
    s << "  converted: " << line.compute->to_string() << " × " << line.fx->rate.to_string() << " = "
      << line.compute_converted->to_string() << " at " << fx_text(*line.fx) << "\n";
  } else {
    s << "  no conversion: priced in " << result.currency.to_string() << "\n";
  }
  s << "  storage: " << part_text(line.storage) << "\n";
  if (line.network.state != LinePart::State::none) {
    s << "  network: " << part_text(line.network) << "\n";
  }
  s << "  total: " << line.total->to_string() << " = " << money2(*line.total) << "\n";
  explain_per_unit(s, line);
  for (const auto& n : line.notes) s << "  note: " << n << "\n";
  return s.str();
}

std::vector<const QuoteLine*> find_lines(const QuoteResult& result, std::string_view key) {
  std::vector<const QuoteLine*> out;
  const std::string k = lower(key);
  if (!k.empty() && std::all_of(k.begin(), k.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c));
      })) {
    const std::size_t rank = std::stoul(k);
    for (const auto& l : result.lines) {
      if (l.rank == rank) return {&l};
    }
    throw NotFound("no line ranked " + k + " in this quote (" +
                   std::to_string(result.lines.size()) + " lines)");
  }
  for (const auto& l : result.lines) {
    if (lower(l.id) == k) return {&l};
  }
  for (const auto& l : result.lines) {
    if (lower(l.offer_id) == k) out.push_back(&l);
  }
  if (out.empty()) {
    const auto parts = split(k, '/');
    for (const auto& l : result.lines) {
      const auto components = split(lower(l.id), '/');
      const bool all = std::all_of(parts.begin(), parts.end(), [&](const std::string& p) {
        return std::find(components.begin(), components.end(), p) != components.end();
      });
      if (all) out.push_back(&l);
    }
  }
  if (out.empty()) {
    for (const auto& l : result.lines) {
      if (lower(l.id).find(k) != std::string::npos) out.push_back(&l);
    }
  }
  if (out.empty()) {
    std::vector<std::string> ids;
    for (const auto& l : result.lines) {
      if (std::find(ids.begin(), ids.end(), l.offer_id) == ids.end()) ids.push_back(l.offer_id);
    }
    std::string hint;
    for (const auto& n : closest_names(k, ids, 3)) hint += (hint.empty() ? "" : ", ") + n;
    throw NotFound("no offer in this quote matches '" + std::string(key) + "'" +
                   (hint.empty() ? "" : " (closest: " + hint + ")"));
  }
  std::set<std::string> offers;
  for (const QuoteLine* l : out) offers.insert(l->offer_id);
  if (offers.size() > 1) {
    std::string names;
    std::size_t shown = 0;
    for (const auto& o : offers) {
      if (shown++ == 10) {
        names += ", …";
        break;
      }
      names += (names.empty() ? "" : ", ") + o;
    }
    throw NotFound("'" + std::string(key) + "' matches " + std::to_string(offers.size()) +
                   " offers (" + names + "); give more of the id");
  }
  return out;
}

}  // namespace gpubill
