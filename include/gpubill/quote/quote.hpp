// Quotes: what a workload costs at every offer that fits it, under each billing mode the offer
// has, ranked by total in one currency.
//
// An offer is an instance type in a region, or (Google-style) a host machine in a region with
// N attachable GPUs, whose per-GPU price is added to the host's. Each billing mode priced at the
// quote date gives one line:
//   payg / spot  rules::payg_runs_cost of the host and of its GPUs, each a meter of its own
//                (the provider's settlement cycle, rounding and minimums); a daily schedule is
//                one run per day. Spot lines are interruptible; under the workload's
//                interruption model each run is priced at its expected running time, split
//                into its expected instance lives (gpubill/rules/spot_model.hpp).
//   prepaid      rules::cheapest_prepaid_plan over rules::standard_prepaid_terms() with the
//                catalog's term discounts, for ceil(calendar span / 720 h) months.
//   reserved_1y / reserved_3y  the hourly rate for every hour of as many whole terms
//                (8760 h / 26280 h) as the span needs, settled like payg; and, one line per
//                commitment offer in force (gpubill/catalog/commitment.hpp: reserved instances,
//                savings plans, committed use discounts), as many whole terms as the span needs,
//                each its upfront plus its hourly fee for every hour of the term, used or not
//                (QuoteLine::commitment). A commitment line is built from the offer's
//                pay-as-you-go line (the same usage, storage and network, and the price its
//                break-even utilisation is measured against): an offer without a priced
//                pay-as-you-go line gets none.
// plus storage (dataset + headroom on the workload's disk kind, with the provider's disk price)
// and network when the workload asks for them. Totals are converted to the comparison currency
// with the catalog's FX rate of the quote date (Catalog::convert), and ranked; ties go to
// provider, region, instance type, GPU, GPU count and mode order. A line whose price (or policy,
// or FX rate) is unknown is listed as unknown, never as 0, after every priced line.
//
// A QuoteEngine indexes a Catalog once (offers, their price rows by mode and region) and then
// answers quotes without touching strings or the heap per offer; only the lines it returns are
// built in full. It holds a reference to the catalog, which must outlive it and every
// QuoteResult (lines point at catalog rows).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpubill/catalog/catalog.hpp"
#include "gpubill/catalog/provenance.hpp"
#include "gpubill/quote/workload.hpp"
#include "gpubill/rules/rules.hpp"
#include "gpubill/rules/spot_model.hpp"

namespace gpubill {

struct QuoteOptions {
  // Return the best `top` priced lines (and at most `top` unknown lines); 0 = every line.
  std::size_t top = 0;
  // Rank stale lines (a price row dated over kStaleAfterMonths before the quote date,
  // provenance.hpp) after every current priced line, whatever their totals; false ranks them
  // with the current ones. Either way they are marked QuoteLine::stale and counted.
  bool stale_apart = false;
  // Rank prices whose source carries the estimate tag [E] (provenance.hpp); by default such a
  // line is unknown ("only an estimate").
  bool include_estimates = false;
  // List the offers retired on or before the quote date (InstanceType::retired_on) as lines
  // that are not priced, "retired on D"; by default they are only counted (lines_retired).
  bool include_retired = false;
  // With top = 0: every line is ranked and counted, but of the priced lines only the first of
  // each (provider, mode, stale when stale_apart) is built and returned, with its rank over the
  // whole ranking; unknown lines as with top = 0. What the text overview shows
  // (cli/quote_overview.cpp), without building the thousands of lines of a large catalog.
  bool best_of_each_provider_and_mode = false;
};

// A storage or network part of a line.
struct LinePart {
  enum class State { none, included, priced, unpriced };
  State state = State::none;
  std::optional<Money> native;     // priced: in the price row's currency
  std::optional<Money> converted;  // priced: in the comparison currency
  const ResourcePriceRow* row = nullptr;
  std::string detail;  // what was priced, or why it is unpriced
};

// A commitment line's terms (QuoteLine::commitment). Amounts in the rows' currency unless said.
struct CommitmentTerms {
  const CommitmentRow* row = nullptr;      // the instance's (or host's) commitment row
  const CommitmentRow* gpu_row = nullptr;  // per-GPU row of attached GPUs (Google)
  std::int64_t term_hours = 0;             // 8760 or 26280
  int terms = 0;                           // whole terms covering the workload's span (≥ 1)
  Money upfront{Decimal{}, Currency::parse("USD")};    // per term: host + GPUs
  Money hourly{Decimal{}, Currency::parse("USD")};     // per hour of the term: host + GPUs
  Money term_cost{Decimal{}, Currency::parse("USD")};  // upfront + hourly × term_hours
  // Committed hours after the workload's span ends (priced all the same); 0 when it fits.
  std::int64_t hours_beyond_workload = 0;
  // Used instance-hours / committed hours (4 decimals, half-up); the total per used hour in the
  // comparison currency (4 decimals, half-up), unset when nothing is used.
  Decimal utilisation;
  std::optional<Money> effective_hourly;
  // The utilisation above which the commitment costs less than pay-as-you-go at the offer's
  // hourly price: term_cost / (payg hourly × term_hours), 4 decimals, half-up (above 1: never).
  // Unset when the pay-as-you-go price is in another currency.
  std::optional<Decimal> break_even_utilisation;
};

struct QuoteLine {
  std::size_t rank = 0;  // 1-based, over the whole ranking
  std::string id;        // "tencent/*/GN10X.2XLARGE40/prepaid"
  std::string offer_id;  // "tencent/*/GN10X.2XLARGE40" (* = the price holds in every region)
  std::string provider, region, instance_type, family;
  const InstanceType* instance = nullptr;
  const Gpu* gpu = nullptr;
  Decimal gpu_count;
  bool attached_gpus = false;       // GPUs priced per GPU on top of the host (Google)
  std::optional<BillingMode> mode;  // unset: the offer has no price at all
  bool interruptible = false;       // spot

  bool priced = false;
  std::string unknown_reason;  // when not priced

  // Price rows used: the instance (or host) row and, for attached GPUs, the per-GPU row.
  const PriceRow* price_row = nullptr;
  const PriceRow* gpu_price_row = nullptr;
  // Provenance of those rows: the older as_of and the less trusted source tag of the two.
  std::string as_of;
  SourceTag source_tag = SourceTag::none;
  // A price row it uses is stale at the quote date (stale_as_of): not a current price.
  bool stale = false;
  std::optional<Money> unit_price;  // per hour (per month for prepaid): host + GPUs
  const BillingPolicy* policy = nullptr;

  // Usage. busy = GPU time the workload uses; span = calendar time it holds the instance.
  std::int64_t run_seconds = 0, runs = 0, busy_seconds = 0, span_seconds = 0;
  int months_needed = 0;                       // prepaid
  std::optional<std::int64_t> finish_seconds;  // work-based: time to finish on this offer
  bool released_daily = false;                 // daily schedule, stopped instances charged
  // Spot lines of a workload with an interruption model: the expectation the line's usage and
  // total are priced at (runs = runs a day × lives, run_seconds = one life), and what the line
  // would cost if never interrupted (comparison currency).
  std::optional<SpotRunExpectation> spot_expectation;
  std::optional<Money> uninterrupted_total;

  // Compute, in the price's currency.
  // payg, spot: all runs of every meter (host, GPUs); reserved: one term.
  std::optional<rules::RunCost> run_cost;
  // payg: the sustained use credit already taken off `compute` (Google), in its currency.
  std::optional<Money> sustained_use_credit;
  std::optional<rules::PrepaidPlan> plan;  // prepaid
  int reserved_terms = 0;
  std::int64_t reserved_term_hours = 0;
  // A commitment line (mode reserved_1y / reserved_3y; id ".../reserved_3y/ri-standard-all-
  // upfront"): its offer rows and arithmetic. price_row and gpu_price_row are then the
  // pay-as-you-go rows of the break-even; unit_price is term_cost / term_hours.
  std::optional<CommitmentTerms> commitment;
  std::optional<Money> compute;
  std::optional<Money> compute_converted;
  std::optional<FxRate> fx;  // rate of the compute conversion; unset when none was needed

  LinePart storage, network;

  // In the comparison currency.
  std::optional<Money> total;
  std::optional<Money> per_gpu_hour;
  std::optional<Money> per_fp32_tflop_hour, per_fp16_tflop_hour;

  // Prepaid against pay-as-you-go for this offer: prepaid is cheaper above this many hours of
  // use per month = (prepaid cost per month) / (one settled payg hour).
  std::optional<Decimal> break_even_hours_per_month;
  // Its two sides in the comparison currency: prepaid cost per month, one settled payg hour.
  std::optional<Money> break_even_monthly, break_even_hourly;

  std::vector<std::string> notes;

  // The hours in a month this line used (months of the workload, prices per month, monthly
  // settlement cycles, prepaid months needed), and where that convention comes from: the
  // provider's policy row (quote_month_hours) or the workload (month_hours).
  int month_hours = 720;
  bool month_hours_from_workload = false;
};

struct ExclusionReason {
  std::string reason;
  std::size_t offers = 0;
  std::string example;  // one offer it applies to
};

// Why offers of one family did not fit.
struct FamilyExclusion {
  std::string provider, family;
  std::size_t offers = 0;
  std::vector<ExclusionReason> reasons;
};

struct QuoteResult {
  Currency currency = Currency::parse("CNY");
  bool currency_default = true;
  Instant at{};
  bool at_default = true;  // the workload named no date
  bool at_today = false;   // ... and it is the caller's today (Workload::today)
  // Defaults and conventions the quote relied on, stated for the reader.
  std::vector<std::string> assumptions;
  // Ranked: priced lines first (cheapest first; with stale_apart, current before stale), then
  // unknown ones.
  std::vector<QuoteLine> lines;
  std::size_t offers_total = 0;    // offers in the catalog
  std::size_t offers_fitting = 0;  // offers that meet the workload
  std::size_t lines_priced = 0;    // over all fitting offers, before `top`
  std::size_t lines_unknown = 0;
  // Priced lines over all fitting offers whose price is stale (counted in lines_priced too).
  std::size_t lines_stale = 0;
  bool stale_apart = false;  // QuoteOptions::stale_apart
  // Lines of offers retired on or before the quote date: never ranked, never in lines_unknown;
  // listed in `lines` only with QuoteOptions::include_retired.
  std::size_t lines_retired = 0;
  std::vector<FamilyExclusion> exclusions;  // by provider, family
};

// One offer checked against the article's sizing advice (see advise()).
struct AdviceOffer {
  std::string offer_id;
  const InstanceType* instance = nullptr;
  const Gpu* gpu = nullptr;
  Decimal gpu_count;
  std::optional<Decimal> ram_gb, gpu_memory_gb;  // total GPU memory of the offer
  bool ram_ok = false;                           // RAM >= total GPU memory
  std::optional<int> local_ssd_gb;               // bundled SSD/NVMe
  bool local_ssd_fits = false;                   // holds dataset + headroom
  bool nvlink = false;
  bool meets_all = false;
  std::optional<Money> cheapest;  // cheapest priced line for the workload, if any
  std::string cheapest_mode;
};

struct AdviceItem {
  std::string topic;    // "RAM", "SSD", "Disk throughput", "NVLink", "GPU"
  std::string advice;   // what the article advises
  std::string applied;  // what that means for this workload
  std::size_t offers_meeting = 0, offers_checked = 0;
};

struct Advice {
  std::vector<AdviceItem> items;
  std::vector<AdviceOffer> offers;  // the offers whose GPUs fit, meeting the advice first
};

namespace quote_detail {
struct Ranking;
}

class QuoteEngine {
 public:
  // `unloaded`: the offers a narrowed read left out of `catalog` (load_quote_catalog); they are
  // counted and excluded, never priced. Both must outlive the engine.
  explicit QuoteEngine(const Catalog& catalog, const UnloadedOffers* unloaded = nullptr);
  ~QuoteEngine();
  QuoteEngine(const QuoteEngine&) = delete;
  QuoteEngine& operator=(const QuoteEngine&) = delete;

  const Catalog& catalog() const noexcept { return catalog_; }
  std::size_t offer_count() const noexcept;

  QuoteResult quote(const ResolvedWorkload& workload, const QuoteOptions& options = {}) const;

  // The article's sizing advice applied to the workload, and which offers whose GPUs fit meet
  // it (host floors are not applied here: the advice is about them).
  Advice advise(const ResolvedWorkload& workload) const;

  struct Index;

 private:
  // The quote without commitment lines (quote.cpp); quote() adds them (quote_commitments.cpp).
  // With `ranking` (quote_internal.hpp) and best_of_each_provider_and_mode, it also builds the
  // pay-as-you-go lines of offers with commitment rows and lists every priced line's place.
  QuoteResult quote_offers(const ResolvedWorkload& workload, const QuoteOptions& options,
                           quote_detail::Ranking* ranking = nullptr) const;

  const Catalog& catalog_;
  std::unique_ptr<Index> index_;
};

// The catalog a quote of `workload` at `at` needs, read from `db`: as Catalog::load_around,
// and when the workload names GPU models, only the offers that can carry one of the GPUs they
// match get their price rows; every other price subject gets one key-only row per region
// (PriceRow::key_only), enough to list its offers and exclude them for the same reasons. A
// quote of the workload on it equals the quote on Catalog::load_around (tests/quote_load_test);
// another workload may find fewer prices. A name that matches no GPU loads every price (the
// quote then reports the name). Throws StoreError.
//
// With a current offer summary (offer_summary.hpp), a workload that names GPU models reads
// only the instance types that carry one of their GPUs and those subjects' price rows; every
// other offer comes from the summary, set in `*unloaded` (hand it to resolve_workload and
// QuoteEngine), counted and excluded for the same reasons. Without `unloaded`, or without a
// current summary (never built, or the catalog changed since), as above, and `*unloaded` reset.
Catalog load_quote_catalog(Database& db, Instant at, const Workload& workload,
                           std::optional<UnloadedOffers>* unloaded = nullptr);

// Every offer of `catalog` as the offer index lists them, counted per provider, region, family
// and GPU, the first in offer order as each group's example (OfferGroup; price_regions and
// loaded_gpus left empty): the summarizer of refresh_offer_summary (offer_summary.hpp).
UnloadedOffers summarize_offers(const Catalog& catalog);

// The arithmetic of one line, as text: price rows (id, source, as of), the policy's settlement
// and rounding, usage, the prepaid terms and discounts, storage, the FX rate, the total.
std::string explain_line(const QuoteResult& result, const QuoteLine& line);

// The lines `key` names: a rank ("3"), a line id, an offer id (all its lines), or a part of an
// id that matches lines of one offer only ("GN10X.2XLARGE40", "GN10X.2XLARGE40/payg").
// Throws NotFound when nothing matches (naming the closest ids) or when several offers do
// (naming them).
std::vector<const QuoteLine*> find_lines(const QuoteResult& result, std::string_view key);

}  // namespace gpubill
