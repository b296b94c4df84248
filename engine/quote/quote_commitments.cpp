// Commitment lines of a quote (issue 29): each commitment offer in force for an offer that has a
// priced pay-as-you-go line becomes a line of its own (mode reserved_1y / reserved_3y by its
// term), ranked with the others. Terms (gpubill/catalog/commitment.hpp):
//
//   terms         = ceil(span / term hours), at least 1: a commitment longer than the workload
//                   is priced for its whole term (and says so);
//   term cost     = upfront + hourly × term hours (host + GPUs), paid whether used or not;
//   compute       = term cost × terms, converted at the quote date's rate;
//   total         = compute + the pay-as-you-go line's storage and network;
//   utilisation   = used instance-hours / committed hours;
//   effective     = compute / used hours;
//   break-even    = term cost / (pay-as-you-go hourly price × term hours): above that share of
//                   its hours used, the commitment costs less than paying as you go.
#include <algorithm>
#include <set>
#include <stdexcept>
#include <tuple>

#include "gpubill/catalog/provenance.hpp"
#include "gpubill/quote/quote.hpp"
#include "quote/quote_index.hpp"
#include "quote/quote_internal.hpp"
#include "quote/quote_text.hpp"

namespace gpubill {

namespace {

constexpr std::int64_t kCommitmentSecondsPerHour = 3600;

BillingMode commitment_mode(int term_months) {
  return term_months == 36 ? BillingMode::reserved_3y : BillingMode::reserved_1y;
}

bool commitment_mode_allowed(const ResolvedWorkload& w, BillingMode m) {
  return std::find(w.modes.begin(), w.modes.end(), m) != w.modes.end();
}

// The GPU row matching a host row's program, class, term and payment; nullptr when none.
const CommitmentRow* matching_gpu_commitment(const std::vector<const CommitmentRow*>& rows,
                                             const CommitmentRow& host) {
  for (const CommitmentRow* r : rows) {
    if (r->program == host.program && r->offering_class == host.offering_class &&
        r->term_months == host.term_months && r->payment == host.payment) {
      return r;
    }
  }
  return nullptr;
}

std::string commitment_percent_text(const Decimal& fraction) {
  return (fraction * Decimal(100)).round(1, RoundingMode::half_up).to_string() + " %";
}

std::string program_text(const CommitmentRow& r) {
  switch (r.program) {
    case CommitmentProgram::reserved_instance:
      return r.offering_class + " reserved instance";
    case CommitmentProgram::savings_plan:
      return "savings plan";
    case CommitmentProgram::committed_use:
      return "committed use discount";
  }
  return "commitment";
}

void commitment_notes(const QuoteLine& payg, const CommitmentTerms& c, QuoteLine& line) {
  const CommitmentRow& r = *c.row;
  const std::string pay(to_string(r.payment));
  line.notes.push_back(program_text(r) + ", " + std::to_string(r.term_months / 12) + " y, " + pay +
                       " (commitment row " + std::to_string(r.id) +
                       (c.gpu_row ? " + per-GPU row " + std::to_string(c.gpu_row->id) : "") +
                       "): " + std::to_string(c.terms) + " × (upfront " +
                       quote_detail::money2(c.upfront) + " + " + c.hourly.to_string() +
                       " per hour of the " + std::to_string(c.term_hours) +
                       " h term, used or not)");
  if (c.hours_beyond_workload > 0) {
    line.notes.push_back("longer than the workload: priced for its whole term, " +
                         std::to_string(c.hours_beyond_workload) + " h after the workload's " +
                         quote_detail::hours_text(payg.span_seconds) + " h");
  }
  std::string use = "used " + commitment_percent_text(c.utilisation) + " of its hours";
  if (c.effective_hourly) use += ": " + c.effective_hourly->to_string() + " per used hour";
  line.notes.push_back(use);
  if (c.break_even_utilisation) {
    line.notes.push_back(
        *c.break_even_utilisation > Decimal(1)
            ? "never cheaper than pay-as-you-go (break-even " +
                  commitment_percent_text(*c.break_even_utilisation) + " of its hours)"
            : "cheaper than pay-as-you-go above " +
                  commitment_percent_text(*c.break_even_utilisation) + " utilisation (break-even)");
  }
}

// The commitment line of `payg` for the host row `r` (and GPU row `g`), or nullopt when its
// currencies do not meet.
std::optional<QuoteLine> commitment_line(const Catalog& catalog, const ResolvedWorkload& w,
                                         const QuoteLine& payg, const CommitmentRow& r,
                                         const CommitmentRow* g) {
  const Decimal n = payg.attached_gpus ? payg.gpu_count : Decimal(0);
  if (g && g->upfront.currency() != r.upfront.currency()) return std::nullopt;
  CommitmentTerms c;
  c.row = &r;
  c.gpu_row = g;
  c.term_hours = r.term_hours();
  c.upfront = g ? r.upfront + g->upfront * n : r.upfront;
  c.hourly = g ? r.hourly + g->hourly * n : r.hourly;
  c.term_cost = c.upfront + c.hourly * c.term_hours;
  const std::int64_t term_seconds = c.term_hours * kCommitmentSecondsPerHour;
  c.terms = static_cast<int>(
      std::max<std::int64_t>(1, (payg.span_seconds + term_seconds - 1) / term_seconds));
  const std::int64_t committed_seconds = term_seconds * c.terms;
  c.hours_beyond_workload = (committed_seconds - payg.span_seconds) / kCommitmentSecondsPerHour;
  c.utilisation = Decimal::divide(Decimal(payg.busy_seconds), Decimal(committed_seconds), 4,
                                  RoundingMode::half_up);
  const Money compute = c.term_cost * static_cast<std::int64_t>(c.terms);
  const Conversion conv = catalog.convert(compute, w.currency, date::floor<date::days>(w.at));
  if (payg.busy_seconds > 0) {
    c.effective_hourly =
        Money(Decimal::divide(conv.result.amount() * kCommitmentSecondsPerHour,
                              Decimal(payg.busy_seconds), 4, RoundingMode::half_up),
              w.currency);
  }
  if (payg.unit_price && payg.unit_price->currency() == c.term_cost.currency() &&
      payg.unit_price->amount().sign() > 0) {
    c.break_even_utilisation = Decimal::divide(
        c.term_cost.amount(), payg.unit_price->amount() * c.term_hours, 4, RoundingMode::half_up);
  }

  QuoteLine line = payg;
  const BillingMode mode = commitment_mode(r.term_months);
  line.mode = mode;
  line.id = payg.offer_id + "/" + std::string(to_string(mode)) + "/" + r.key();
  line.interruptible = false;
  line.run_cost.reset();
  line.sustained_use_credit.reset();
  line.plan.reset();
  line.spot_expectation.reset();
  line.uninterrupted_total.reset();
  line.break_even_hours_per_month.reset();
  line.break_even_monthly.reset();
  line.break_even_hourly.reset();
  line.reserved_terms = c.terms;
  line.reserved_term_hours = c.term_hours;
  line.unit_price =
      Money(Decimal::divide(c.term_cost.amount(), Decimal(c.term_hours), 6, RoundingMode::half_up),
            c.term_cost.currency());
  line.compute = compute;
  line.fx = conv.rate;
  line.total = *payg.total - *payg.compute_converted + conv.result;
  line.compute_converted = conv.result;
  const Decimal busy_gpu_seconds = payg.gpu_count * Decimal(payg.busy_seconds);
  line.per_gpu_hour.reset();
  line.per_fp32_tflop_hour.reset();
  line.per_fp16_tflop_hour.reset();
  if (busy_gpu_seconds.sign() > 0) {
    const Decimal numerator = line.total->amount() * kCommitmentSecondsPerHour;
    line.per_gpu_hour =
        Money(Decimal::divide(numerator, busy_gpu_seconds, 4, RoundingMode::half_up), w.currency);
    if (payg.gpu && payg.gpu->fp32_tflops && payg.gpu->fp32_tflops->sign() > 0) {
      line.per_fp32_tflop_hour =
          Money(Decimal::divide(numerator, busy_gpu_seconds * *payg.gpu->fp32_tflops, 6,
                                RoundingMode::half_up),
                w.currency);
    }
    if (payg.gpu && payg.gpu->fp16_tensor_tflops && payg.gpu->fp16_tensor_tflops->sign() > 0) {
      line.per_fp16_tflop_hour =
          Money(Decimal::divide(numerator, busy_gpu_seconds * *payg.gpu->fp16_tensor_tflops, 6,
                                RoundingMode::half_up),
                w.currency);
    }
  }
  RowsProvenance provenance;
  provenance.add(r.source, r.as_of);
  if (g) provenance.add(g->source, g->as_of);
  line.as_of = provenance.as_of;
  line.source_tag = provenance.tag;
  line.stale = stale_as_of(line.as_of, w.at);
  line.notes.clear();
  if (auto note = provenance_note(line.source_tag, line.as_of, w.at); !note.empty()) {
    line.notes.push_back(std::move(note));
  }
  commitment_notes(payg, c, line);
  for (const auto& note : payg.notes) {
    if (note.rfind("storage", 0) == 0 || note.rfind("network", 0) == 0) line.notes.push_back(note);
  }
  line.commitment = std::move(c);
  return line;
}

// Every commitment line of the priced pay-as-you-go lines of `result`.
std::vector<QuoteLine> commitment_lines(const Catalog& catalog, const ResolvedWorkload& w,
                                        const QuoteResult& result) {
  std::vector<QuoteLine> out;
  for (const QuoteLine& p : result.lines) {
    if (!p.priced || p.mode != BillingMode::payg || !p.instance || !p.total ||
        !p.compute_converted) {
      continue;
    }
    const std::string region = p.region == "*" ? std::string() : p.region;
    const auto hosts =
        commitments_at(catalog, p.provider, SubjectKind::instance, p.instance->id, region, w.at);
    if (hosts.empty()) continue;
    const auto gpus =
        p.attached_gpus && p.gpu
            ? commitments_at(catalog, p.provider, SubjectKind::gpu, p.gpu->id, region, w.at)
            : std::vector<const CommitmentRow*>{};
    for (const CommitmentRow* r : hosts) {
      if (!commitment_mode_allowed(w, commitment_mode(r->term_months))) continue;
      const CommitmentRow* g = p.attached_gpus ? matching_gpu_commitment(gpus, *r) : nullptr;
      if (p.attached_gpus && !g) continue;  // the GPUs' commitment is unknown
      if (auto line = commitment_line(catalog, w, p, *r, g)) out.push_back(std::move(*line));
    }
  }
  return out;
}

// The lines quote() returns: `result` holds the engine's lines quote_offers built (every one,
// the best `top`, or the best of each provider and mode; `ranking` places every engine line),
// among them the pay-as-you-go lines commitment lines come from, and the unknown lines `staying`
// keeps. The commitment lines (`added`) are ranked among all the engine's lines as the engine
// ranks (stale apart when asked, cheapest first; the engine's lines first on equal totals); kept
// are every priced line, the first `top`, or the first of each (stale apart, provider, mode),
// with their ranks over the whole ranking, then the unknown lines (the first `top` of them),
// ranked after every priced line as quote_offers ranks them. Each kept line is moved once: a
// line is a few kilobytes, and a quote on a large catalog has tens of thousands.
std::vector<QuoteLine> select_with_commitments(QuoteResult& result,
                                               const quote_detail::Ranking& ranking,
                                               const std::vector<std::uint32_t>& staying,
                                               std::vector<QuoteLine>& added,
                                               const QuoteOptions& options) {
  const auto apart = [&](const QuoteLine& l) { return options.stale_apart && l.stale; };
  std::vector<std::uint32_t> extra(added.size());  // the commitment lines, ranked
  for (std::size_t i = 0; i < extra.size(); ++i) extra[i] = static_cast<std::uint32_t>(i);
  std::stable_sort(extra.begin(), extra.end(), [&](std::uint32_t i, std::uint32_t j) {
    const QuoteLine& a = added[i];
    const QuoteLine& b = added[j];
    if (apart(a) != apart(b)) return apart(b);
    return *a.total < *b.total;
  });
  std::set<std::tuple<bool, std::string, BillingMode>> seen;
  std::vector<QuoteLine> lines;
  std::size_t rank = 0;
  const auto kept = [&](const QuoteLine& l, bool is_apart) {
    return ranking.best_of_each ? seen.insert({is_apart, l.provider, *l.mode}).second
                                : ranking.top == 0 || lines.size() < ranking.top;
  };
  std::size_t e = 0, a = 0;
  const auto& engine = ranking.priced;
  while (e < engine.size() || a < extra.size()) {
    if (e < engine.size() && ranking.payg_unwanted && kModes[engine[e].mode] == BillingMode::payg) {
      ++e;  // built for its commitment lines only
      continue;
    }
    bool from_engine = a == extra.size();
    if (!from_engine && e < engine.size()) {
      const QuoteLine& c = added[extra[a]];
      const int128_t key = c.total->amount().units();
      from_engine = engine[e].apart != apart(c) ? !engine[e].apart : engine[e].key <= key;
    }
    QuoteLine* line = nullptr;
    bool is_apart = false;
    if (from_engine) {
      const quote_detail::RankedLine& r = engine[e++];
      ++rank;
      if (r.built < 0) {  // not built: by keep_selected, never one to keep
        if (!ranking.best_of_each && (ranking.top == 0 || lines.size() < ranking.top)) {
          throw std::logic_error("quote: a line to keep was not built");
        }
        continue;
      }
      line = &result.lines[static_cast<std::size_t>(r.built)];
      is_apart = r.apart;
    } else {
      line = &added[extra[a++]];
      ++rank;
      is_apart = apart(*line);
    }
    if (kept(*line, is_apart)) {
      lines.push_back(std::move(*line));
      lines.back().rank = rank;
    }
  }
  std::size_t unknown = 0;
  for (std::uint32_t i : staying) {
    QuoteLine& l = result.lines[i];
    if (l.priced) continue;
    if (ranking.top > 0 && unknown++ >= ranking.top) break;
    lines.push_back(std::move(l));
    lines.back().rank = ++rank;
  }
  return lines;
}

}  // namespace

QuoteResult QuoteEngine::quote(const ResolvedWorkload& w, const QuoteOptions& options) const {
  const bool wanted = !catalog_.data().commitments.empty() &&
                      (commitment_mode_allowed(w, BillingMode::reserved_1y) ||
                       commitment_mode_allowed(w, BillingMode::reserved_3y));
  if (!wanted) return quote_offers(w, options);
  // Every line (commitment lines are built from pay-as-you-go ones, which may rank anywhere),
  // with pay-as-you-go priced even when the workload does not list it.
  ResolvedWorkload core = w;
  const bool payg_wanted = commitment_mode_allowed(w, BillingMode::payg);
  if (!payg_wanted) core.modes.push_back(BillingMode::payg);
  QuoteOptions all = options;
  all.top = 0;
  // Only the lines that can be returned are built (with the pay-as-you-go lines commitment
  // lines come from): every line, the best `top`, or the best of each provider and mode.
  quote_detail::Ranking ranking;
  ranking.top = options.top;
  ranking.best_of_each = options.top == 0 && options.best_of_each_provider_and_mode;
  ranking.payg_unwanted = !payg_wanted;
  QuoteResult result = quote_offers(core, all, &ranking);
  std::vector<QuoteLine> added = commitment_lines(catalog_, w, result);
  // An offer with commitment lines of a term has no unknown line of that term.
  std::set<std::string> covered;
  for (const auto& l : added) covered.insert(l.offer_id + "/" + std::string(to_string(*l.mode)));
  std::vector<std::uint32_t> staying;
  staying.reserve(result.lines.size());
  for (std::uint32_t i = 0; i < result.lines.size(); ++i) {
    const QuoteLine& l = result.lines[i];
    const bool unwanted_payg = !payg_wanted && l.mode == BillingMode::payg;
    const bool replaced =
        !l.priced && l.mode && covered.count(l.offer_id + "/" + std::string(to_string(*l.mode)));
    if (unwanted_payg || replaced) {
      if (unwanted_payg && l.priced) continue;  // counted below, built or not
      if (l.priced) {
        --result.lines_priced;
        if (l.stale) --result.lines_stale;
      } else {
        --result.lines_unknown;
      }
      continue;
    }
    staying.push_back(i);
  }
  if (!payg_wanted) {
    for (const auto& r : ranking.priced) {
      if (kModes[r.mode] != BillingMode::payg) continue;
      --result.lines_priced;
      if (r.stale) --result.lines_stale;
    }
  }
  for (const auto& l : added) {
    ++result.lines_priced;
    if (l.stale) ++result.lines_stale;
  }
  std::vector<QuoteLine> lines = select_with_commitments(result, ranking, staying, added, options);
  result.lines = std::move(lines);
  return result;
}

}  // namespace gpubill
