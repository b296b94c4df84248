// Private to the engine: the per-quote context shared by quote.cpp (ranking), quote_build.cpp
// (building the returned lines) and advise.cpp.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "gpubill/quote/quote.hpp"
#include "gpubill/rules/spot_model.hpp"
#include "quote/quote_index.hpp"

namespace gpubill::quote_detail {

inline constexpr std::int64_t kHour = 3600;
inline constexpr std::int64_t kDay = 86400;
inline constexpr std::int64_t kMonth = 720 * kHour;  // the default quote month (720 h)
inline constexpr std::int64_t kMicro = 1'000'000;    // Decimal units per micro-unit
inline constexpr std::uint8_t kNoMode = 0xff;

// Why an offer does not fit (recorded per family).
enum class Exclude : std::uint8_t {
  provider,
  region,
  no_gpu,
  gpu_model,
  fp32,
  fp16,
  memory,
  nvlink,
  throughput,
  too_long,  // the work would take more than kMaxWorkSeconds on the offer's GPUs
  count,
  vcpu,
  vcpu_unknown,
  ram,
  ram_unknown,
  no_mode,
};

// Why a line of a fitting offer has no price.
enum class Unknown : std::uint8_t {
  no_price,  // the offer has no price row at all
  no_row,    // none in force at the quote date for the mode
  no_gpu_row,
  mixed_currency,
  unit,
  no_policy,
  payg_unavailable,
  no_fx,
  spot_unfinishable,  // the interruption model leaves no progress, or a daily run past its day
  estimate,           // the row in force is an estimate ([E]) and estimates were not asked for
  retired,            // the offer was retired on or before the quote date
};

struct Usage {
  int key = 0;                   // distinguishes usages in caches
  std::int64_t run_seconds = 0;  // one run
  std::int64_t runs = 1;
  bool daily = false;           // one run a day (runs = days × lives)
  std::int64_t busy = 0;        // GPU time used
  std::int64_t span = 0;        // calendar time held
  int months = 1;               // prepaid months needed (months of `month` seconds)
  std::int64_t month = kMonth;  // the quote's month for these lines (ProviderCtx::month_hours)
  std::int64_t full_hours = 0;  // whole hours in one run
  std::optional<std::int64_t> finish;
  // Spot lines of a workload with an interruption model: the expectation the usage is built
  // from; runs = runs a day × lives. A run that does not finish (or exceeds its day) leaves
  // the line unpriced.
  std::optional<SpotRunExpectation> spot;
  bool spot_exceeds_day() const { return spot && daily && spot->running_seconds > kDay; }
  bool unfinishable() const { return spot && (!spot->finishes || spot_exceeds_day()); }
};

// `month_hours`: the quote's month for the lines the usage is for (a "months" duration is
// months × month_hours; prepaid months needed = ceil(span / month)).
Usage usage_for(const ResolvedWorkload& w, std::optional<std::int64_t> finish, int month_hours);
// A spot line's usage under the workload's interruption model, on a provider whose spot
// instances stop after `max_run_hours` (0 = never): each run of `base` stretched to its expected
// running time and split into its instance lives.
Usage spot_usage_for(const Usage& base, const SpotInterruptionModel& model, int max_run_hours,
                     int key);
// The longest work a quote prices: 100 years of running.
inline constexpr std::int64_t kMaxWorkSeconds = 876'000 * kHour;
// Seconds the work takes on `gpu` × workload count; nullopt when its throughput is unknown,
// -1 when it would take more than kMaxWorkSeconds (checked before dividing, so a tiny
// efficiency cannot overflow).
std::optional<std::int64_t> finish_seconds(const ResolvedWorkload& w, const Gpu& gpu);

struct GpuCheck {
  bool ok = false;
  Exclude why = Exclude::gpu_model;
  std::optional<Decimal> ram_floor;  // count × memory
  std::vector<Usage> usages;         // work-based durations: one per quote month in use
};

struct ProviderCtx {
  bool allowed = true;
  const BillingPolicy* policy = nullptr;
  BillingPolicy no_lifetime;     // the policy without its lifetime minimum
  std::int64_t slack_micro = 1;  // most a settlement's rounding can take off, in micro-units
  // The lowest share of the base rate a sustained use tier charges, in micro-units (1e6 =
  // no sustained use discount): what a lower bound of a payg total may assume.
  std::int64_t sustained_floor_micro = 1'000'000;
  // The quote's month for this provider's lines: the workload's month_hours, else the policy
  // row's quote_month_hours (the provider's calculator's convention).
  int month_hours = 720;
  bool month_from_workload = false;
};

struct CurrencyRate {
  Currency currency = Currency::parse("CNY");
  bool known = false;
  Decimal rate;
  std::int64_t rate_micro = 0;  // floor(rate × 1e6)
  std::optional<FxRate> fx;
};

struct GroupCtx {
  bool ready = false;
  std::vector<const DiscountRow*> discounts;                // by standard term
  std::vector<std::pair<int, std::int64_t>> factor_months;  // months → least Σ term × factor
};

struct PartCost {
  LinePart::State state = LinePart::State::none;
  Decimal converted;  // priced: in the comparison currency
};

struct Inputs {
  bool ok = false;
  Unknown why = Unknown::no_row;
  const RowRef* host = nullptr;
  const RowRef* gpu = nullptr;
  const ProviderCtx* pc = nullptr;
  const CurrencyRate* rate = nullptr;
  const Usage* usage = nullptr;
};

// Every priced line of a quote_offers call in rank order, for quote() to rank commitment lines
// among lines it did not build (QuoteOptions::best_of_each_provider_and_mode).
struct RankedLine {
  int128_t key;            // the total's units
  std::int32_t built;      // its index in QuoteResult::lines, or -1: not built
  std::uint16_t provider;  // into catalog.data().providers
  std::uint8_t mode;       // into kModes
  bool apart;              // stale, ranked after the current lines
  bool stale;              // a stale price, apart or not
};

struct Ranking {
  // In: which priced lines to build besides the pay-as-you-go lines of offers with commitment
  // rows: the first of each (stale apart, provider, mode) when best_of_each, else the first
  // `top` that are not unwanted pay-as-you-go, or every line when `top` is 0.
  std::size_t top = 0;
  bool best_of_each = false;
  bool payg_unwanted = false;  // pay-as-you-go priced only for commitment lines
  // Out: every priced line, in rank order.
  std::vector<RankedLine> priced;
};

struct UnknownLine {
  std::uint32_t offer;
  std::uint8_t mode;  // kNoMode: the offer has no price at all
  Unknown why;
};

struct Tally {
  Exclude why;
  std::uint32_t detail;  // distinguishes reasons of one kind (the GPU, the count)
  std::size_t count;
  std::uint32_t example;  // offer index
  std::uint32_t next;     // the family's next tally, or kNone
};

// Exclusion tallies, per family a short linked list (a family has few distinct reasons).
struct Tallies {
  static constexpr std::uint32_t kNone = 0xffffffffu;
  std::vector<std::uint32_t> first;  // by family
  std::vector<Tally> all;
  explicit Tallies(std::size_t families) : first(families, kNone) {}
  void add(std::uint32_t family, Exclude why, std::uint32_t detail, std::uint32_t offer) {
    for (std::uint32_t i = first[family]; i != kNone; i = all[i].next) {
      if (all[i].why == why && all[i].detail == detail) {
        ++all[i].count;
        return;
      }
    }
    all.push_back({why, detail, 1, offer, first[family]});
    first[family] = static_cast<std::uint32_t>(all.size() - 1);
  }
};

struct Ctx {
  Ctx(const Catalog& catalog, const QuoteEngine::Index& index, const ResolvedWorkload& w);

  const Catalog& catalog;
  const QuoteEngine::Index& ix;
  const ResolvedWorkload& w;
  Currency cmp;
  Instant at{};
  std::int64_t t = 0;
  date::sys_days day{};

  std::vector<ProviderCtx> providers;
  std::vector<char> region_allowed;       // by Index region; "" (every region) is decided
  std::vector<char> provider_any_region;  // by provider: does it have a requested region?
  std::uint8_t modes_allowed = 0;
  bool include_estimates = false;  // QuoteOptions
  std::vector<GpuCheck> gpus;
  std::optional<Decimal> ram_floor;   // an explicit floor
  std::vector<Usage> fixed_usages;    // one per quote month in use (non-work durations)
  std::vector<int> month_hours_used;  // the distinct ProviderCtx::month_hours
  std::deque<CurrencyRate> rates;     // few, looked up linearly; a deque keeps their addresses
  std::vector<const CurrencyRate*> index_rates;  // by Index::currencies
  std::vector<GroupCtx> groups;
  std::unordered_map<std::uint64_t, PartCost> part_cache;
  // Spot usages under the interruption model, by provider and base usage (usage(o, mode)),
  // built on first use.
  std::vector<std::optional<Usage>> spot_usages;

  const CurrencyRate* rate_for(Currency c);
  const Usage& usage(const IndexedOffer& o) const;
  // The usage of the offer's lines in `mode`: usage(o), or for spot lines under an interruption
  // model the expected usage on the offer's provider.
  const Usage& usage(const IndexedOffer& o, int mode);
  bool region_ok(const IndexedOffer& o) const {
    return ix.regions[o.region].empty() ? provider_any_region[o.provider] != 0
                                        : region_allowed[o.region] != 0;
  }
  GroupCtx& group(std::uint32_t g);
  std::int64_t factor_months_micro(std::uint32_t g, int months);
  const DiscountRow* discount_for(std::uint32_t g, int term);

  PartCost compute_part(bool network, std::uint16_t provider, const Usage& u, bool prepaid,
                        LinePart* out);
  PartCost part(bool network, const IndexedOffer& o, const Usage& u, bool prepaid, LinePart* out);

  Inputs resolve(const IndexedOffer& o, int mode);
  int128_t lower_bound(const IndexedOffer& o, int mode, const Inputs& in);
  // The exact total in the comparison currency; fills `line` (compute, plan, parts, FX) if set.
  Decimal exact(const IndexedOffer& o, int mode, const Inputs& in, QuoteLine* line);
};

QuoteLine build_line(Ctx& ctx, const IndexedOffer& o, int mode);
QuoteLine build_unknown(Ctx& ctx, const IndexedOffer& o, int mode, Unknown why);
std::vector<FamilyExclusion> build_exclusions(Ctx& ctx, const Tallies& tallies);
// The offers a narrowed read summarized instead of reading (UnloadedOffers).
std::size_t unloaded_offer_count(const UnloadedOffers* unloaded);
std::vector<std::string> assumptions(Ctx& ctx);
std::string exclusion_text(Ctx& ctx, Exclude why, const IndexedOffer& example);
// The text of a reason that depends only on the offer's region and GPU (provider, region, no
// GPU, and the GPU's own checks): for offers summarized, not indexed (OfferGroup).
std::string exclusion_text_for(Ctx& ctx, Exclude why, const std::string& region, const Gpu* g);
// Fills a line's identity (ids, labels, GPU) from its offer.
void fill_identity(Ctx& ctx, const IndexedOffer& o, int mode, QuoteLine& line);

}  // namespace gpubill::quote_detail
