// gpubill quote | advise: price a workload across every provider and billing mode, and apply
// the source article's sizing advice to it.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "gpubill/base/errors.hpp"
#include "gpubill/catalog/catalog.hpp"
#include "gpubill/quote/quote.hpp"
#include "gpubill/quote/workload.hpp"
#include "output.hpp"
#include "quote_args.hpp"
#include "quote_compare_output.hpp"
#include "quote_overview.hpp"
#include "text_table.hpp"

namespace gpubill::cli {

namespace {

std::string hours_cell(std::int64_t seconds) {
  return Decimal::divide(Decimal(seconds), 3600, 1, RoundingMode::half_up).to_string(1);
}

std::string gpus_cell(const QuoteLine& l) {
  return l.gpu_count.to_string() + "×" + (l.gpu ? l.gpu->id : std::string("?"));
}

bool work_based(const ResolvedWorkload& w) {
  return w.duration == DurationKind::gpu_hours || w.duration == DurationKind::pflop;
}

// The lines, or only `only` when given (quote --explain). A text table fits the terminal by
// leaving out columns (currency, break-even, GPUs, per GPU-hour, source tag, as-of) and lists
// the notes under it; provider, region and instance type are never cut. CSV and JSON hold
// every column: `total` is empty for an unknown price (`priced` says which), `mode` empty for
// an offer with no price at all.
Table lines_table(const QuoteResult& q, const ResolvedWorkload& w, Format format,
                  const std::vector<const QuoteLine*>* only = nullptr) {
  const std::string cur = q.currency.to_string();
  const bool text = format == Format::table;
  Table t;
  t.columns = {int_column("rank"),
               id_column("provider"),
               id_column("region"),
               id_column("instance_type"),
               droppable({"gpus"}, 7),
               {"mode"},
               {"total", true},
               droppable({"currency"}, 9),
               droppable({"per_gpu_hour", true}, 5),
               droppable({"break_even_h_per_month", true}, 8),
               droppable({"as_of"}, 4),
               droppable({"src"}, 6)};
  if (work_based(w)) t.columns.push_back({"finish_h", true});
  t.columns.push_back(text ? notes_column("notes") : Column{"notes"});
  if (!text) {
    t.columns.push_back(bool_column("priced"));
    t.columns.push_back(bool_column("stale"));
    t.columns.push_back({"total_exact"});
    t.columns.push_back({"per_fp32_tflop_hour"});
    t.columns.push_back({"per_fp16_tflop_hour"});
    t.columns.push_back({"id"});
    t.columns.push_back(int_column("month_hours"));
  }
  std::vector<const QuoteLine*> all;
  for (const auto& l : q.lines) all.push_back(&l);
  for (const QuoteLine* line : only ? *only : all) {
    const QuoteLine& l = *line;
    std::vector<std::string> row = {
        std::to_string(l.rank),
        l.provider,
        l.region,
        l.instance_type,
        gpus_cell(l),
        l.mode ? std::string(to_string(*l.mode)) : (text ? "-" : ""),
        l.priced ? money_cell(l.total) : (text ? "unknown" : ""),
        cur,
        money_cell(l.per_gpu_hour, 4),
        l.break_even_hours_per_month ? l.break_even_hours_per_month->to_string(1) : "",
        l.as_of,
        l.price_row ? std::string(to_string(l.source_tag)) : ""};
    if (work_based(w)) row.push_back(l.finish_seconds ? hours_cell(*l.finish_seconds) : "");
    row.push_back(l.priced ? join(l.notes, "; ") : l.unknown_reason);
    if (!text) {
      row.push_back(l.priced ? "yes" : "no");
      row.push_back(l.priced && l.stale ? "yes" : "no");
      row.push_back(l.total ? l.total->amount().to_string() : "");
      row.push_back(l.per_fp32_tflop_hour ? l.per_fp32_tflop_hour->amount().to_string() : "");
      row.push_back(l.per_fp16_tflop_hour ? l.per_fp16_tflop_hour->amount().to_string() : "");
      row.push_back(l.id);
      row.push_back(l.priced ? std::to_string(l.month_hours) : "");
    }
    t.add_row(std::move(row));
  }
  return t;
}

nlohmann::ordered_json money_json(const std::optional<Money>& m) {
  if (!m) return nullptr;
  return {{"amount", m->amount().to_string()}, {"currency", m->currency().to_string()}};
}

nlohmann::ordered_json part_json(const LinePart& p) {
  static const char* states[] = {"none", "included", "priced", "unpriced"};
  return {{"state", states[static_cast<int>(p.state)]},
          {"amount", money_json(p.native)},
          {"converted", money_json(p.converted)},
          {"row_id", p.row ? nlohmann::ordered_json(p.row->id) : nlohmann::ordered_json(nullptr)},
          {"detail", p.detail}};
}

nlohmann::ordered_json line_json(const QuoteLine& l) {
  nlohmann::ordered_json j = {
      {"rank", l.rank},
      {"id", l.id},
      {"offer_id", l.offer_id},
      {"provider", l.provider},
      {"region", l.region},
      {"instance_type", l.instance_type},
      {"family", l.family},
      {"gpu", l.gpu ? nlohmann::ordered_json(l.gpu->id) : nlohmann::ordered_json(nullptr)},
      {"gpu_count", l.gpu_count.to_string()},
      {"attached_gpus", l.attached_gpus},
      {"mode", l.mode ? nlohmann::ordered_json(std::string(to_string(*l.mode)))
                      : nlohmann::ordered_json(nullptr)},
      {"interruptible", l.interruptible},
      {"priced", l.priced},
      {"stale", l.priced && l.stale},
      {"as_of", l.price_row ? nlohmann::ordered_json(l.as_of) : nlohmann::ordered_json(nullptr)},
      {"source_tag", l.price_row ? nlohmann::ordered_json(std::string(to_string(l.source_tag)))
                                 : nlohmann::ordered_json(nullptr)},
  };
  if (!l.priced) {
    j["unknown_reason"] = l.unknown_reason;
    j["total"] = nullptr;
    return j;
  }
  j["price_row_id"] = l.price_row->id;
  j["gpu_price_row_id"] = l.gpu_price_row ? nlohmann::ordered_json(l.gpu_price_row->id)
                                          : nlohmann::ordered_json(nullptr);
  j["unit_price"] = money_json(l.unit_price);
  j["policy_id"] = l.policy->id;
  j["usage"] = {{"run_seconds", l.run_seconds},
                {"runs", l.runs},
                {"busy_seconds", l.busy_seconds},
                {"span_seconds", l.span_seconds},
                {"finish_seconds", l.finish_seconds ? nlohmann::ordered_json(*l.finish_seconds)
                                                    : nlohmann::ordered_json(nullptr)}};
  if (l.plan) {
    nlohmann::ordered_json orders = nlohmann::ordered_json::array();
    for (const auto& planned : l.plan->orders) {
      const rules::PrepaidOrder& o = planned.order;
      orders.push_back({{"months", o.months},
                        {"count", planned.count},
                        {"list", o.list.amount().to_string()},
                        {"factor", o.factor.to_string()},
                        {"discount_row_id", o.discount ? nlohmann::ordered_json(o.discount->id)
                                                       : nlohmann::ordered_json(nullptr)},
                        {"charged", o.charged.amount().to_string()}});
    }
    j["prepaid"] = {{"months_needed", l.months_needed},
                    {"months_covered", l.plan->months_covered},
                    {"orders", orders}};
  }
  if (l.spot_expectation) {
    const SpotRunExpectation& e = *l.spot_expectation;
    j["spot_expectation"] = {{"work_seconds", e.work_seconds},
                             {"running_seconds", e.running_seconds},
                             {"interruptions", e.interruptions.to_string()},
                             {"planned_stops", e.planned_stops},
                             {"lives", e.lives},
                             {"uninterrupted_total", money_json(l.uninterrupted_total)}};
  }
  if (l.reserved_terms > 0) {
    j["reserved"] = {{"terms", l.reserved_terms}, {"term_hours", l.reserved_term_hours}};
  }
  if (l.commitment) {
    const CommitmentTerms& c = *l.commitment;
    const CommitmentRow& r = *c.row;
    j["commitment"] = {
        {"row_id", r.id},
        {"gpu_row_id",
         c.gpu_row ? nlohmann::ordered_json(c.gpu_row->id) : nlohmann::ordered_json(nullptr)},
        {"program", std::string(to_string(r.program))},
        {"class", r.offering_class.empty() ? nlohmann::ordered_json(nullptr)
                                           : nlohmann::ordered_json(r.offering_class)},
        {"term_months", r.term_months},
        {"payment", std::string(to_string(r.payment))},
        {"terms", c.terms},
        {"upfront", money_json(c.upfront)},
        {"hourly", money_json(c.hourly)},
        {"term_cost", money_json(c.term_cost)},
        {"hours_beyond_workload", c.hours_beyond_workload},
        {"utilisation", c.utilisation.to_string()},
        {"effective_hourly", money_json(c.effective_hourly)},
        {"break_even_utilisation",
         c.break_even_utilisation ? nlohmann::ordered_json(c.break_even_utilisation->to_string())
                                  : nlohmann::ordered_json(nullptr)}};
  }
  j["compute"] = money_json(l.compute);
  j["compute_converted"] = money_json(l.compute_converted);
  j["fx"] = l.fx ? nlohmann::ordered_json{{"row_id", l.fx->id},
                                          {"day", format_day(l.fx->day)},
                                          {"from", l.fx->from.to_string()},
                                          {"to", l.fx->to.to_string()},
                                          {"rate", l.fx->rate.to_string()},
                                          {"inverted", l.fx->inverted},
                                          {"source", l.fx->source}}
                 : nlohmann::ordered_json(nullptr);
  j["storage"] = part_json(l.storage);
  j["network"] = part_json(l.network);
  j["total"] = money_json(l.total);
  j["per_gpu_hour"] = money_json(l.per_gpu_hour);
  j["per_fp32_tflop_hour"] = money_json(l.per_fp32_tflop_hour);
  j["per_fp16_tflop_hour"] = money_json(l.per_fp16_tflop_hour);
  j["break_even_hours_per_month"] =
      l.break_even_hours_per_month
          ? nlohmann::ordered_json(l.break_even_hours_per_month->to_string())
          : nlohmann::ordered_json(nullptr);
  j["notes"] = l.notes;
  j["month_hours"] =
      l.priced ? nlohmann::ordered_json(l.month_hours) : nlohmann::ordered_json(nullptr);
  j["month_hours_from"] =
      l.priced ? nlohmann::ordered_json(l.month_hours_from_workload ? "workload" : "policy")
               : nlohmann::ordered_json(nullptr);
  return j;
}

nlohmann::ordered_json exclusions_json(const QuoteResult& q) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const auto& f : q.exclusions) {
    nlohmann::ordered_json reasons = nlohmann::ordered_json::array();
    for (const auto& r : f.reasons) {
      reasons.push_back({{"reason", r.reason}, {"offers", r.offers}, {"example", r.example}});
    }
    out.push_back({{"provider", f.provider},
                   {"family", f.family},
                   {"offers", f.offers},
                   {"reasons", reasons}});
  }
  return out;
}

void print_exclusions(std::ostream& out, const QuoteResult& q, bool with_filters) {
  for (const auto& f : q.exclusions) {
    std::vector<const ExclusionReason*> shown;
    for (const auto& r : f.reasons) {
      const bool filter =
          r.reason.rfind("provider not among", 0) == 0 || r.reason.rfind("region ", 0) == 0;
      if (with_filters || !filter) shown.push_back(&r);
    }
    if (shown.empty()) continue;
    out << "  " << f.provider << " " << (f.family.empty() ? "(no family)" : f.family) << ":\n";
    for (const auto* r : shown) {
      out << "    " << r->reason << " — " << r->offers << " offer" << (r->offers > 1 ? "s" : "")
          << ", e.g. " << r->example << "\n";
    }
  }
}

// What `quote` shows besides the ranking itself.
struct QuoteShow {
  // --top: a text table shows the best `top` lines (default 20) instead of the overview; JSON
  // and CSV hold every line unless it is given.
  std::size_t top = 20;
  CLI::Option* top_option = nullptr;
  bool top_given() const { return top_option != nullptr && top_option->count() > 0; }
  std::string explain, compare_to;
  bool show_excluded = false;
  bool include_stale = false;  // rank stale prices with the current ones
  bool include_estimates = false, include_retired = false;
};

// The exit status of a quote: 4 when nothing fits or nothing is priced.
int quote_status(const QuoteResult& q) {
  return q.offers_fitting == 0 || q.lines_priced == 0 ? kExitNothingMatched : kExitOk;
}

// Under the full table of lines: what it counts and holds, and how to read it, wrapped.
void write_lines_summary(std::ostream& out, const QuoteResult& q) {
  std::string counts = std::to_string(q.lines_priced) + " priced line" +
                       (q.lines_priced == 1 ? "" : "s") + " and " +
                       std::to_string(q.lines_unknown) + " with unknown prices, from " +
                       std::to_string(q.offers_fitting) + " fitting offers of " +
                       std::to_string(q.offers_total) + ".";
  if (q.lines_retired > 0) {
    counts += " " + std::to_string(q.lines_retired) + " retired (--include-retired lists them).";
  }
  const std::size_t shown_priced = static_cast<std::size_t>(
      std::count_if(q.lines.begin(), q.lines.end(), [](const QuoteLine& l) { return l.priced; }));
  if (shown_priced < q.lines_priced) {
    counts += " Showing the best " + std::to_string(shown_priced) + " (--top 0 for all).";
  }
  out << "\n";
  write_wrapped(out, counts, "", "");
  write_wrapped(out,
                "Totals are in " + q.currency.to_string() +
                    "; an unknown price is never counted as 0. Explain a line with --explain "
                    "RANK|ID.",
                "", "");
  write_wrapped(out,
                "as_of: date of the oldest price row used; src: the least trusted source tag of "
                "those rows (P provider document, S secondary, U uncertain, ? untagged, TEST "
                "test-fixture data).",
                "", "");
}

// The header of a text quote: the workload, its assumptions (the quote date and how it was
// chosen, the FX rates), the catalog's effective date per provider (current, or stale at that
// date) and the rule for a current price.
void print_quote_header(std::ostream& out, const PricedQuote& priced) {
  const QuoteResult& q = priced.result;
  write_wrapped(out, "Quote: " + describe(priced.workload), "", "  ");
  for (const auto& a : q.assumptions) write_wrapped(out, a, "  - ", "    ");
  std::vector<std::string> current, stale;
  for (const auto& [provider, day] : newest_price_sources(priced.catalog, q)) {
    (stale_as_of(day, q.at) ? stale : current).push_back(provider + " " + day);
  }
  if (!current.empty() || !stale.empty()) {
    std::string text = "Catalog effective date per provider (its newest price source): ";
    if (!current.empty()) text += join(current, ", ");
    if (!stale.empty()) {
      text += std::string(current.empty() ? "" : "; ") + "every price stale: " + join(stale, ", ");
    }
    write_wrapped(out, text + ".", "", "  ");
  }
  write_wrapped(out,
                "A price is current when it is in force on the quote date (not superseded by a "
                "later row) and its source is dated at most " +
                    std::to_string(kStaleAfterMonths) + " months before it; an older one is stale" +
                    (q.stale_apart ? ": listed apart, not ranked with the current ones "
                                     "(--include-stale ranks them together)."
                                   : ", ranked with the current ones (--include-stale)."),
                "", "  ");
  out << "\n";
}

int run_quote(const Globals& globals, const WorkloadArgs& args, Format format,
              const QuoteShow& show) {
  const std::size_t top = show.top;
  const std::string& explain = show.explain;
  // Read first: a file that is not a quote fails before the work.
  const std::optional<QuoteSnapshot> before =
      show.compare_to.empty() ? std::nullopt
                              : std::optional<QuoteSnapshot>(read_quote_snapshot(show.compare_to));
  auto db = globals.open_database(Access::read);
  globals.keep_offer_summary_current(db);
  QuoteOptions options;
  options.stale_apart = !show.include_stale;
  // The text overview needs every line to pick each provider's best; JSON and CSV hold every
  // line unless --top is given.
  options.top = show.top_given() ? top : 0;
  options.include_estimates = show.include_estimates;
  options.include_retired = show.include_retired;
  if (!explain.empty()) {
    // A rank needs the ranking only down to it; an id may name any line.
    const bool rank =
        explain.size() <= 9 && explain.find_first_not_of("0123456789") == std::string::npos;
    options.top = rank ? std::stoul(explain) : 0;
  }
  if (before) options.top = 0;  // match earlier lines beyond the top N too
  // The text overview shows the best line of each provider and mode: only those are built.
  options.best_of_each_provider_and_mode =
      format == Format::table && !show.top_given() && explain.empty() && !before;
  const auto priced = price_workload(db, build_workload(args), options);
  const ResolvedWorkload& w = priced->workload;
  const QuoteResult& q = priced->result;
  if (before) {
    write_quote_comparison(std::cout, q, *before, show.compare_to, top, format);
    return quote_status(q);
  }

  if (!explain.empty()) {
    const auto lines = flag_value("--explain", [&] { return find_lines(q, explain); });
    if (format == Format::csv) {
      write_table(std::cout, lines_table(q, w, format, &lines), format);
    } else if (format == Format::json) {
      nlohmann::ordered_json j = {{"explain", explain}, {"lines", nlohmann::ordered_json::array()}};
      for (const QuoteLine* l : lines) {
        nlohmann::ordered_json line = line_json(*l);
        line["explanation"] = explain_line(q, *l);
        j["lines"].push_back(std::move(line));
      }
      std::cout << json_text(with_schema_version(j)) << "\n";
    } else {
      for (const QuoteLine* l : lines) std::cout << explain_line(q, *l) << "\n";
    }
    return 0;
  }
  if (format == Format::json) {
    nlohmann::ordered_json j = {{"workload", describe(w)},
                                {"currency", q.currency.to_string()},
                                {"at", format_instant(q.at)},
                                {"assumptions", q.assumptions},
                                {"offers_total", q.offers_total},
                                {"offers_fitting", q.offers_fitting},
                                {"lines_priced", q.lines_priced},
                                {"lines_unknown", q.lines_unknown},
                                {"lines_stale", q.lines_stale},
                                {"lines_retired", q.lines_retired},
                                {"lines", nlohmann::ordered_json::array()},
                                {"exclusions", exclusions_json(q)}};
    for (const auto& l : q.lines) j["lines"].push_back(line_json(l));
    std::cout << json_text(with_schema_version(j)) << "\n";
    return quote_status(q);
  }
  if (format == Format::csv) {
    write_table(std::cout, lines_table(q, w, format), format);
    return quote_status(q);
  }

  print_quote_header(std::cout, *priced);
  if (q.offers_fitting == 0) {
    std::cout << "No offer fits this workload (" << q.offers_total
              << " offers in the catalog). Why each family was excluded:\n";
    print_exclusions(std::cout, q, true);
    return kExitNothingMatched;
  }
  if (!show.top_given()) {
    write_quote_overview(std::cout, q);
    write_wrapped(std::cout,
                  "Explain a line with --explain RANK; --show-excluded lists the offers that did "
                  "not fit.",
                  "", "  ");
    return quote_status(q);
  }
  write_table(std::cout, lines_table(q, w, format), format);
  write_lines_summary(std::cout, q);
  if (show.show_excluded) {
    std::cout << "\nExcluded, by family:\n";
    print_exclusions(std::cout, q, true);
  } else if (!q.exclusions.empty()) {
    std::size_t n = 0;
    for (const auto& f : q.exclusions) n += f.offers;
    std::cout << n << " offers in " << q.exclusions.size()
              << " families did not fit (--show-excluded lists why).\n";
  }
  return quote_status(q);
}

// The offers of an advice, one row each. Quantities are exact decimals, yes/no fields
// booleans; an unknown value is empty (JSON null), shown as "?" in a text table.
Table advice_offers_table(const Advice& advice, const Currency& currency, Format format) {
  const bool text = format == Format::table;
  const std::string unknown = text ? "?" : "";
  Table t;
  t.columns = {{"offer"},
               {"gpu_count", true},
               {"gpu"},
               {"ram_gb", true},
               {"gpu_memory_gb", true},
               bool_column("ram_ge_gpu_memory"),
               {"local_ssd_gb", true},
               bool_column("nvlink"),
               bool_column("meets_advice"),
               {"cheapest", true},
               {"currency"},
               {"mode"}};
  const auto yes = [](bool b) { return std::string(b ? "yes" : "no"); };
  const auto decimal = [&](const std::optional<Decimal>& d) {
    return d ? d->to_string() : unknown;
  };
  for (const auto& a : advice.offers) {
    t.add_row({a.offer_id, a.gpu_count.to_string(), a.gpu->id, decimal(a.ram_gb),
               decimal(a.gpu_memory_gb), a.ram_gb ? yes(a.ram_ok) : unknown,
               a.local_ssd_gb ? std::to_string(*a.local_ssd_gb) : "", yes(a.nvlink),
               yes(a.meets_all), a.cheapest ? money_cell(a.cheapest) : unknown,
               currency.to_string(), a.cheapest ? a.cheapest_mode : ""});
  }
  return t;
}

int run_advise(const Globals& globals, const WorkloadArgs& args, Format format) {
  auto db = globals.open_database(Access::read);
  const Catalog catalog = Catalog::load(db);
  const QuoteEngine engine(catalog);
  Workload spec = build_workload(args);
  const auto& d = spec.duration;
  const bool no_duration = !d.hours && !d.hours_per_day && !d.days && !d.months && !d.gpu_hours &&
                           !d.pflop && !d.reference_gpu;
  if (no_duration) spec.duration.hours = Decimal(720);  // the cheapest column is for a month
  spec.today = today_utc();                             // the date when the workload names none
  const ResolvedWorkload w = resolve_workload(spec, catalog);
  const Advice advice = engine.advise(w);

  const Table offers = advice_offers_table(advice, w.currency, format);
  if (format == Format::json) {
    nlohmann::ordered_json j = {{"workload", describe(w)},
                                {"items", nlohmann::ordered_json::array()},
                                {"offers", json_rows(offers)}};
    for (const auto& i : advice.items) {
      j["items"].push_back({{"topic", i.topic},
                            {"advice", i.advice},
                            {"applied", i.applied},
                            {"offers_meeting", i.offers_meeting},
                            {"offers_checked", i.offers_checked}});
    }
    std::cout << json_text(with_schema_version(j)) << "\n";
    return 0;
  }
  if (format == Format::csv) {
    write_table(std::cout, offers, format);
    return 0;
  }
  std::cout << "Sizing advice for " << describe(w) << "\n"
            << "(from the source article on choosing GPU servers for deep learning)\n\n";
  for (const auto& i : advice.items) {
    std::cout << i.topic << "\n  advice:  " << i.advice << "\n  applied: " << i.applied << "\n\n";
  }
  std::cout << "Offers whose GPUs fit, those meeting the advice first (cheapest line for "
            << (no_duration ? std::string("720 h, as no duration was given")
                            : std::string("the workload's duration"))
            << "):\n";
  write_table(std::cout, offers, format);
  return 0;
}

}  // namespace

void add_quote_commands(CLI::App& app, Globals& globals, Action& action) {
  {
    auto* sub = app.add_subcommand(
        "quote", "Price a workload at every provider and billing mode, ranked in one currency");
    auto args = std::make_shared<WorkloadArgs>();
    auto format = std::make_shared<Format>(Format::table);
    auto show = std::make_shared<QuoteShow>();
    add_workload_options(*sub, *args);
    show->top_option =
        sub->add_option("--top", show->top,
                        "Show the best N priced lines (0 = all). Without it a text quote shows the "
                        "best line "
                        "of each provider and billing mode, and JSON and CSV hold every line")
            ->check(count_flag(0, kMaxTop));
    sub->add_flag("--include-stale", show->include_stale,
                  "Rank prices whose source is over 24 months older than the quote date with the "
                  "current ones (by default they are listed after them)");
    auto* explain = sub->add_option(
        "--explain", show->explain,
        "Show the arithmetic of one offer's lines: a rank, a line or offer id, or part of one "
        "(GN10X.2XLARGE40, p3.2xlarge/spot)");
    sub->add_option("--compare-to", show->compare_to,
                    "Compare with an earlier quote (written by quote --format json): per line, "
                    "what changed in rank, unit price and total")
        ->excludes(explain);
    sub->add_flag("--show-excluded", show->show_excluded, "List why offers did not fit, by family");
    sub->add_flag("--include-estimates", show->include_estimates,
                  "Rank prices the catalog marks as estimates ([E]: derived, not listed)");
    sub->add_flag("--include-retired", show->include_retired,
                  "List offers retired on or before the quote date (\"retired on D\")");
    add_format_option(*sub, *format);
    add_db_option(*sub, globals);
    sub->callback([&globals, &action, args, format, show] {
      action = [&globals, args, format, show] { return run_quote(globals, *args, *format, *show); };
    });
  }
  {
    auto* sub = app.add_subcommand(
        "advise",
        "Apply the source article's sizing advice (RAM, SSD, disk speed, NVLink) to a workload");
    auto args = std::make_shared<WorkloadArgs>();
    auto format = std::make_shared<Format>(Format::table);
    add_workload_options(*sub, *args);
    add_format_option(*sub, *format);
    add_db_option(*sub, globals);
    sub->callback([&globals, &action, args, format] {
      action = [&globals, args, format] { return run_advise(globals, *args, *format); };
    });
  }
}

}  // namespace gpubill::cli
