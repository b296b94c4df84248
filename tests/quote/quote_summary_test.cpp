// The offer summary (refresh_offer_summary, migration 0015): with it, a quote that names GPU
// models reads only the offers that carry them and takes every other offer from the summary.
// Every quote must equal the quote on the whole catalog around the same instant — lines,
// prices, counts, and the exclusions of the offers it never read, with the same examples — and
// a summary the catalog has changed since is never read.
#include <SQLiteCpp/SQLiteCpp.h>

#include <catch2/catch.hpp>

#include "gpubill/catalog/catalog.hpp"
#include "gpubill/catalog/catalog_import.hpp"
#include "gpubill/catalog/offer_summary.hpp"
#include "gpubill/quote/quote.hpp"
#include "gpubill/quote/workload.hpp"
#include "gpubill/store/db.hpp"
#include "temp_dir.hpp"
#include "test_values.hpp"

using namespace gpubill;
using gpubill::testing::workload_json;

namespace {

// Everything a reader of the quote sees, as text.
std::string quote_text(const QuoteResult& q) {
  std::string out = "offers " + std::to_string(q.offers_total) + " fitting " +
                    std::to_string(q.offers_fitting) + " priced " + std::to_string(q.lines_priced) +
                    " unknown " + std::to_string(q.lines_unknown) + " stale " +
                    std::to_string(q.lines_stale) + " retired " + std::to_string(q.lines_retired) +
                    "\n";
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

std::int64_t stamp_version(Database& db) {
  SQLite::Database conn(db.path());
  return conn.execAndGet("SELECT version FROM catalog_stamp").getInt64();
}

}  // namespace

TEST_CASE("a quote read through the offer summary equals the quote on the whole catalog",
          "[quote][catalog][load][summary]") {
  gpubill::testing::TempDir dir;
  Database db = Database::open(dir.file("q.db"));
  ensure_bundled_catalog(db);
  REQUIRE_FALSE(offer_summary_is_current(db));
  CHECK(refresh_offer_summary(db, summarize_offers));
  REQUIRE(offer_summary_is_current(db));
  CHECK_FALSE(refresh_offer_summary(db, summarize_offers));  // current: not built again

  const std::vector<std::pair<std::string, std::string>> workloads = {
      {R"({"models": ["V100"]})", ""},
      {R"({"models": ["P100"]})", ""},
      {R"({"models": ["K80"], "count": 2})", ""},
      {R"({"models": ["T4", "V100"]})", ""},
      {R"({"models": ["A100"], "count": 8})", ""},
      {R"({"models": ["V100-SXM2-32GB"], "count": 8, "nvlink": true})", ""},
      // offers left out for their provider or region, and hosts with attachable GPUs
      {R"({"models": ["V100"]})", R"(, "providers": ["google", "aws"])"},
      {R"({"models": ["T4"]})", R"(, "regions": ["us-central1", "us-east-1"])"},
      {R"({"models": ["V100"]})", R"(, "providers": ["tencent"], "regions": ["ap-guangzhou"])"},
  };
  for (const std::string date : {"2017-10-01", "2019-06-30", "2022-03-15", "2026-06-01"}) {
    const Instant at = parse_instant(date, /*allow_date=*/true);
    const Catalog whole = Catalog::load_around(db, at);
    const QuoteEngine whole_engine(whole);
    for (const auto& [gpu, more] : workloads) {
      const Workload spec = parse_workload_json(workload_json(gpu, date, more), "w.json");
      std::optional<UnloadedOffers> unloaded;
      const Catalog narrowed = load_quote_catalog(db, at, spec, &unloaded);
      REQUIRE(unloaded.has_value());
      CHECK(narrowed.data().instance_types.size() < whole.data().instance_types.size());
      for (const auto& p : narrowed.data().prices) CHECK_FALSE(p.key_only);
      const QuoteEngine narrowed_engine(narrowed, &*unloaded);
      CHECK(narrowed_engine.offer_count() < whole_engine.offer_count());
      for (std::size_t top : {std::size_t{0}, std::size_t{10}}) {
        INFO(date << " " << gpu << more << " top " << top);
        QuoteOptions options;
        options.top = top;
        const auto expected =
            quote_text(whole_engine.quote(resolve_workload(spec, whole), options));
        const auto got = quote_text(
            narrowed_engine.quote(resolve_workload(spec, narrowed, &*unloaded), options));
        CHECK(got == expected);
      }
    }
  }
}

TEST_CASE("a workload naming no GPU model reads the whole catalog, summary or not",
          "[quote][catalog][load][summary]") {
  gpubill::testing::TempDir dir;
  Database db = Database::open(dir.file("q.db"));
  ensure_bundled_catalog(db);
  refresh_offer_summary(db, summarize_offers);
  const Instant at = parse_instant("2022-03-15", true);
  for (const std::string gpu : {R"({"min_fp32_tflops": "10"})", R"({"models": ["NoSuchGPU"]})"}) {
    const Workload spec = parse_workload_json(workload_json(gpu, "2022-03-15"), "w.json");
    std::optional<UnloadedOffers> unloaded;
    const Catalog narrowed = load_quote_catalog(db, at, spec, &unloaded);
    CHECK_FALSE(unloaded.has_value());
    CHECK(narrowed.data().prices.size() == Catalog::load_around(db, at).data().prices.size());
  }
}

TEST_CASE("a catalog change makes the offer summary stale, and a stale one is never read",
          "[quote][catalog][load][summary]") {
  gpubill::testing::TempDir dir;
  Database db = Database::open(dir.file("q.db"));
  ensure_bundled_catalog(db);
  refresh_offer_summary(db, summarize_offers);
  REQUIRE(offer_summary_is_current(db));
  const std::int64_t version = stamp_version(db);
  const Instant at = parse_instant("2019-06-30", true);
  const Workload v100 =
      parse_workload_json(workload_json(R"({"models": ["V100"]})", "2019-06-30"), "w.json");

  SECTION("a new instance type") {
    SQLite::Database conn(db.path(), SQLite::OPEN_READWRITE);
    conn.exec(
        "INSERT INTO instance_type (provider, id, family, gpu, gpu_count, source) "
        "SELECT provider, 'NEW.V100', family, gpu, gpu_count, source FROM instance_type "
        "WHERE gpu = 'V100-SXM2-16GB' LIMIT 1");
  }
  SECTION("a price row's region") {
    SQLite::Database conn(db.path(), SQLite::OPEN_READWRITE);
    conn.exec("UPDATE price SET region = 'new-region' WHERE id = (SELECT min(id) FROM price)");
  }
  SECTION("a deleted attachable GPU") {
    SQLite::Database conn(db.path(), SQLite::OPEN_READWRITE);
    conn.exec("DELETE FROM attachable_gpu WHERE rowid = (SELECT min(rowid) FROM attachable_gpu)");
  }
  CHECK_FALSE(offer_summary_is_current(db));
  CHECK(stamp_version(db) == version + 1);
  // Stale: the quote reads the catalog without it, and equals the quote on the whole catalog.
  std::optional<UnloadedOffers> unloaded;
  const Catalog narrowed = load_quote_catalog(db, at, v100, &unloaded);
  CHECK_FALSE(unloaded.has_value());
  const Catalog whole = Catalog::load_around(db, at);
  CHECK(quote_text(QuoteEngine(narrowed).quote(resolve_workload(v100, narrowed))) ==
        quote_text(QuoteEngine(whole).quote(resolve_workload(v100, whole))));
  // Rebuilt, it is read again, and counts the changed catalog's offers.
  CHECK(refresh_offer_summary(db, summarize_offers));
  CHECK(offer_summary_is_current(db));
  const Catalog again = load_quote_catalog(db, at, v100, &unloaded);
  REQUIRE(unloaded.has_value());
  CHECK(
      quote_text(QuoteEngine(again, &*unloaded).quote(resolve_workload(v100, again, &*unloaded))) ==
      quote_text(QuoteEngine(whole).quote(resolve_workload(v100, whole))));
}
