// load_quote_catalog reads in full only the prices of offers that can carry the workload's
// GPUs; every quote of that workload must equal the quote on the whole catalog around the
// same instant: the same lines, prices, totals, unknown reasons, counts and exclusions.
#include <catch2/catch.hpp>

#include "gpubill/catalog/catalog.hpp"
#include "gpubill/catalog/catalog_import.hpp"
#include "gpubill/quote/quote.hpp"
#include "gpubill/quote/workload.hpp"
#include "gpubill/store/db.hpp"
#include "temp_dir.hpp"
#include "test_values.hpp"

using namespace gpubill;
using gpubill::testing::workload_json;

namespace {

// Everything a reader of the quote sees, as text.
std::string summary(const QuoteResult& q) {
  std::string out = "offers " + std::to_string(q.offers_total) + " fitting " +
                    std::to_string(q.offers_fitting) + " priced " + std::to_string(q.lines_priced) +
                    " unknown " + std::to_string(q.lines_unknown) + "\n";
  for (const auto& l : q.lines) {
    out += std::to_string(l.rank) + " " + l.id + " " + (l.priced ? "priced" : "unknown") + " " +
           (l.total ? l.total->to_string() : "-") + " " + l.unknown_reason + " " +
           (l.price_row ? std::to_string(l.price_row->id) : "-") + " " +
           (l.gpu_price_row ? std::to_string(l.gpu_price_row->id) : "-") + " " + l.as_of + "\n";
  }
  for (const auto& e : q.exclusions) {
    out += "excluded " + e.provider + "/" + e.family + " " + std::to_string(e.offers) + ":";
    for (const auto& r : e.reasons) {
      out += " [" + r.reason + " × " + std::to_string(r.offers) + " e.g. " + r.example + "]";
    }
    out += "\n";
  }
  return out;
}

}  // namespace

TEST_CASE("a quote on the catalog narrowed to its GPUs equals the quote on the whole catalog",
          "[quote][catalog][load]") {
  gpubill::testing::TempDir dir;
  Database db = Database::open(dir.file("q.db"));
  ensure_bundled_catalog(db);

  const std::vector<std::string> gpus = {
      R"({"models": ["V100"]})",
      R"({"models": ["P100"]})",
      R"({"models": ["K80"], "count": 2})",
      R"({"models": ["T4", "V100"]})",
      R"({"models": ["A100"], "count": 8})",
      R"({"models": ["V100-SXM2-32GB"], "count": 8, "nvlink": true})",
      R"({"min_fp32_tflops": "10"})",  // no name: every price is read
  };
  for (const std::string date : {"2017-10-01", "2019-06-30", "2022-03-15", "2026-06-01"}) {
    const Instant at = parse_instant(date, /*allow_date=*/true);
    const Catalog whole = Catalog::load_around(db, at);
    const QuoteEngine whole_engine(whole);
    for (const auto& gpu : gpus) {
      const Workload spec = parse_workload_json(workload_json(gpu, date), "w.json");
      const Catalog narrowed = load_quote_catalog(db, at, spec);
      if (spec.gpu.models.empty()) {
        CHECK(narrowed.data().prices.size() == whole.data().prices.size());
      } else {
        CHECK(narrowed.data().prices.size() < whole.data().prices.size());
      }
      const QuoteEngine narrowed_engine(narrowed);
      for (std::size_t top : {std::size_t{0}, std::size_t{10}}) {
        INFO(date << " " << gpu << " top " << top);
        QuoteOptions options;
        options.top = top;
        const auto expected = summary(whole_engine.quote(resolve_workload(spec, whole), options));
        const auto got = summary(narrowed_engine.quote(resolve_workload(spec, narrowed), options));
        CHECK(got == expected);
      }
    }
  }
}

TEST_CASE("a narrowed catalog never prices the offers it left out", "[quote][catalog][load]") {
  gpubill::testing::TempDir dir;
  Database db = Database::open(dir.file("q.db"));
  ensure_bundled_catalog(db);
  const Instant at = parse_instant("2019-06-30", true);
  const Workload v100 =
      parse_workload_json(workload_json(R"({"models": ["V100"]})", "2019-06-30"), "w.json");
  const Catalog narrowed = load_quote_catalog(db, at, v100);
  std::size_t key_only = 0;
  for (const auto& p : narrowed.data().prices) {
    if (!p.key_only) continue;
    ++key_only;
    CHECK(narrowed.price_at(p.provider, p.subject_kind, p.subject, p.region, p.mode, at) ==
          nullptr);
  }
  CHECK(key_only > 0);
  // A P100 quote on the V100 catalog finds offers but no price for them.
  const Workload p100 =
      parse_workload_json(workload_json(R"({"models": ["P100"]})", "2019-06-30"), "w.json");
  const QuoteResult q = QuoteEngine(narrowed).quote(resolve_workload(p100, narrowed));
  CHECK(q.offers_fitting > 0);
  CHECK(q.lines_priced == 0);
}
