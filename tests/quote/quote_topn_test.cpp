// The quote engine's shortcuts against the plain answer, on a synthetic catalog (the
// benchmark's generator, smaller): the best N lines of a top-N quote (lower bounds prune lines
// that cannot enter) are the first N of the full ranking, and the index picks the price row
// Catalog::price_at picks.
#include <catch2/catch.hpp>

#include "../../bench/synthetic_catalog.hpp"
#include "gpubill/quote/quote.hpp"

using namespace gpubill;

namespace {

struct Synthetic {
  synthetic::Generated generated;
  Catalog catalog;
  QuoteEngine engine;
  Synthetic()
      : generated(synthetic::generate({3000, 7, 12, 10})),
        catalog(generated.data),
        engine(catalog) {}
};

Synthetic& data() {
  static Synthetic s;
  return s;
}

Workload base() {
  Workload w;
  w.date = format_instant(data().generated.quote_at);
  return w;
}

}  // namespace

TEST_CASE("a top-N quote returns the first N lines of the full ranking", "[quote][topn]") {
  std::vector<std::pair<std::string, Workload>> cases;
  {
    Workload w = base();
    w.gpu.min_fp32_tflops = Decimal(5);
    w.duration.hours = Decimal(720);
    cases.emplace_back("month", w);
  }
  {
    Workload w = base();
    w.gpu.min_fp32_tflops = Decimal(5);
    w.duration.months = 14;
    cases.emplace_back("14 months", w);
  }
  {
    Workload w = base();
    w.duration.hours = Decimal::parse("37.25");
    w.gpu.count = 2;
    cases.emplace_back("partial hours, 2 GPUs", w);
  }
  {
    Workload w = base();
    w.duration.hours_per_day = Decimal(6);
    w.duration.days = 45;
    w.storage.dataset_gb = Decimal(300);
    cases.emplace_back("daily with storage", w);
  }
  {
    Workload w = base();
    w.duration.gpu_hours = Decimal(500);
    w.duration.reference_gpu = "V100";
    w.currency = "USD";
    cases.emplace_back("work in USD", w);
  }
  {
    Workload w = base();
    w.gpu.models = {"V100", "A100"};
    w.duration.months = 40;
    w.modes = {"prepaid", "reserved_1y"};
    cases.emplace_back("long prepaid", w);
  }
  for (const auto& [name, w] : cases) {
    INFO(name);
    const ResolvedWorkload r = resolve_workload(w, data().catalog);
    const QuoteResult all = data().engine.quote(r);
    REQUIRE(all.lines_priced > 50);
    for (std::size_t top : {1u, 7u, 40u}) {
      QuoteOptions options;
      options.top = top;
      const QuoteResult q = data().engine.quote(r, options);
      CHECK(q.lines_priced == all.lines_priced);
      CHECK(q.lines_unknown == all.lines_unknown);
      CHECK(q.offers_fitting == all.offers_fitting);
      for (std::size_t i = 0; i < top; ++i) {
        INFO(top << " " << i);
        REQUIRE(q.lines[i].priced);
        CHECK(q.lines[i].id == all.lines[i].id);
        CHECK(*q.lines[i].total == *all.lines[i].total);
      }
      // Then the unknown lines, in the same order as in the full ranking.
      for (std::size_t i = top; i < q.lines.size(); ++i) {
        CHECK_FALSE(q.lines[i].priced);
        CHECK(q.lines[i].id == all.lines[all.lines_priced + (i - top)].id);
      }
    }
    // The full ranking is sorted.
    for (std::size_t i = 1; i < all.lines_priced; ++i) {
      CHECK(all.lines[i - 1].total->amount() <= all.lines[i].total->amount());
    }
  }
}

TEST_CASE("the index picks the price row Catalog::price_at picks", "[quote][topn]") {
  Workload w = base();
  w.duration.hours = Decimal(100);
  w.gpu.count = 1;
  const ResolvedWorkload r = resolve_workload(w, data().catalog);
  const QuoteResult all = data().engine.quote(r);
  REQUIRE(all.lines_priced > 100);
  for (const auto& l : all.lines) {
    if (!l.priced) continue;
    const std::string region = l.region == "*" ? "" : l.region;
    const PriceRow* expected = data().catalog.price_at(l.provider, l.price_row->subject_kind,
                                                       l.price_row->subject, region, *l.mode, r.at);
    CHECK(expected == l.price_row);
    if (l.gpu_price_row) {
      CHECK(data().catalog.price_at(l.provider, SubjectKind::gpu, l.gpu->id, region, *l.mode,
                                    r.at) == l.gpu_price_row);
    }
  }
}
