// The catalog and quotes on PostgreSQL (issue 25, porting plan steps 1 and 2): the bundled
// catalog imported into a new PostgreSQL database through the catalog's own code
// (ensure_bundled_catalog, Database::open with allow_postgres) reads back as it does from SQLite,
// row for row, and a quote priced on each is the same. Against the test cluster of
// scripts/pg_cluster.sh (tests/support/pg_test.hpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "gpubill/base/time.hpp"
#include "gpubill/catalog/catalog.hpp"
#include "gpubill/catalog/catalog_import.hpp"
#include "gpubill/catalog/catalog_offers.hpp"
#include "gpubill/catalog/offer_summary.hpp"
#include "gpubill/quote/quote.hpp"
#include "gpubill/quote/workload.hpp"
#include "gpubill/store/db.hpp"
#include "pg_test.hpp"
#include "temp_dir.hpp"

using namespace gpubill;

namespace {

std::string opt(const std::optional<Decimal>& d) {
  return d ? d->to_string() : "-";
}

std::string opt(const std::optional<Instant>& t) {
  return t ? std::to_string(t->time_since_epoch().count()) : "-";
}

std::string period(const Effective& p) {
  return std::to_string(p.from.time_since_epoch().count()) + ".." + opt(p.to);
}

// One line per row of every section, with the values a bill or a quote uses.
std::vector<std::string> rows_of(const CatalogData& d) {
  std::vector<std::string> out;
  for (const auto& p : d.providers) {
    out.push_back("provider " + p.id + "|" + p.name + "|" + p.currency.to_string() + "|" +
                  p.billing_time_zone);
  }
  for (const auto& r : d.regions) out.push_back("region " + r.provider + "|" + r.id + "|" + r.name);
  for (const auto& g : d.gpus) {
    // In the catalog's order on both (migration 0019).
    const auto& aliases = g.aliases;
    std::string line = "gpu " + g.id + "|" + g.vendor + "|" + opt(g.memory_gb) + "|" +
                       std::to_string(g.units_per_board) + "|" + g.source;
    for (const auto& a : aliases) line += "|" + a;
    out.push_back(line);
  }
  for (const auto& t : d.instance_types) {
    std::string line = "type " + t.provider + "|" + t.id + "|" + t.family + "|" + t.gpu + "|" +
                       t.gpu_count.to_string() + "|" + opt(t.ram_gb) + "|" + t.source + "|" +
                       opt(t.available_from) + "|" + opt(t.retired_on);
    for (const auto& a : t.attachable) line += "|" + a.gpu + ":" + std::to_string(a.counts.size());
    out.push_back(line);
  }
  for (const auto& p : d.prices) {
    out.push_back("price " + std::to_string(p.id) + "|" + p.provider + "|" + p.subject + "|" +
                  p.region + "|" + std::string(to_string(p.mode)) + "|" + p.amount.to_string() +
                  "|" + period(p.period) + "|" + p.source + "|" + p.as_of);
  }
  for (const auto& x : d.discounts) out.push_back("discount " + std::to_string(x.id));
  for (const auto& x : d.disk_prices) out.push_back("disk " + std::to_string(x.id));
  for (const auto& x : d.bandwidth_prices) out.push_back("bandwidth " + std::to_string(x.id));
  for (const auto& x : d.fx_rates) {
    out.push_back("fx " + std::to_string(x.id) + "|" + x.from.to_string() + x.to.to_string() + "|" +
                  x.rate.to_string());
  }
  for (const auto& x : d.policies) out.push_back("policy " + std::to_string(x.id));
  for (const auto& x : d.commitments) out.push_back("commitment " + std::to_string(x.id));
  return out;
}

// The quote of `w` on each catalog: the same lines, in the same order, at the same totals.
void same_quote(const Catalog& a, const Catalog& b, const UnloadedOffers* ua,
                const UnloadedOffers* ub, const Workload& w) {
  const QuoteEngine ea(a, ua), eb(b, ub);
  const QuoteResult ra = ea.quote(resolve_workload(w, a, ua));
  const QuoteResult rb = eb.quote(resolve_workload(w, b, ub));
  REQUIRE(ra.lines_priced > 10);
  CHECK(ra.lines_priced == rb.lines_priced);
  REQUIRE(ra.lines.size() == rb.lines.size());
  for (std::size_t i = 0; i < ra.lines.size(); ++i) {
    INFO(i << " " << ra.lines[i].id);
    CHECK(ra.lines[i].id == rb.lines[i].id);
    CHECK(ra.lines[i].priced == rb.lines[i].priced);
    if (ra.lines[i].priced && rb.lines[i].priced) {
      CHECK(ra.lines[i].total->to_string() == rb.lines[i].total->to_string());
      CHECK(ra.lines[i].price_row->id == rb.lines[i].price_row->id);
    }
  }
}

}  // namespace

TEST_CASE("the bundled catalog imported into PostgreSQL loads as on SQLite, row for row",
          "[.][postgres][catalog]") {
  testing::PgDatabase pg;
  OpenOptions o;
  o.allow_postgres = true;
  Database on_pg = Database::open(pg.url(), o);
  CHECK(on_pg.schema_version() == latest_schema_version());
  CHECK(on_pg.path().find("dbname=") != std::string::npos);
  REQUIRE(ensure_bundled_catalog(on_pg));
  CHECK(bundled_catalog_is_current(on_pg));
  CHECK_FALSE(ensure_bundled_catalog(on_pg));  // the meta row says it is there
  Database on_sqlite = Database::open(":memory:");
  REQUIRE(ensure_bundled_catalog(on_sqlite));

  const Catalog a = Catalog::load(on_sqlite);
  const Catalog b = Catalog::load(on_pg);
  const auto rows_a = rows_of(a.data());
  const auto rows_b = rows_of(b.data());
  REQUIRE(rows_a.size() > 10000);
  REQUIRE(rows_a.size() == rows_b.size());
  for (std::size_t i = 0; i < rows_a.size(); ++i) {
    if (rows_a[i] != rows_b[i]) FAIL("row " << i << ": " << rows_a[i] << " / " << rows_b[i]);
  }
  CHECK(list_offers(a, {}).size() == list_offers(b, {}).size());

  // A month of one V100 priced on each: in mid-2019 on the catalog around that day, and on
  // 2026-07-13 as `gpubill quote` reads it (the offer summary, a BLOB, built on each backend).
  Workload w;
  w.gpu.models = {"V100"};
  w.gpu.count = 1;
  w.duration.hours = Decimal(720);
  const Instant mid_2019 = parse_instant("2019-06-30", true);
  w.date = "2019-06-30";
  same_quote(Catalog::load_around(on_sqlite, mid_2019), Catalog::load_around(on_pg, mid_2019),
             nullptr, nullptr, w);
  REQUIRE(refresh_offer_summary(on_sqlite, summarize_offers));
  REQUIRE(refresh_offer_summary(on_pg, summarize_offers));
  CHECK(offer_summary_is_current(on_pg));
  w.date = "2026-07-13";
  const Instant at = parse_instant("2026-07-13", true);
  std::optional<UnloadedOffers> ua, ub;
  const Catalog ca = load_quote_catalog(on_sqlite, at, w, &ua);
  const Catalog cb = load_quote_catalog(on_pg, at, w, &ub);
  REQUIRE(ua);
  REQUIRE(ub);
  CHECK(ua->groups.size() == ub->groups.size());
  same_quote(ca, cb, &*ua, &*ub, w);
}

namespace {

// What importing `file` into `db` gives: the report's counts and notes, or the error.
std::string import_outcome(Database& db, const std::string& file) {
  try {
    const ImportReport r = import_catalog_file(db, file);
    std::string out = "imported " + std::to_string(r.total());
    for (const auto& n : r.notes) out += "\n" + n;
    return out;
  } catch (const Error& e) {
    return std::string("refused: ") + e.what();
  }
}

}  // namespace

TEST_CASE("a catalog file is imported into PostgreSQL as into SQLite, or refused with its words",
          "[.][postgres][catalog]") {
  testing::PgDatabase pg;
  OpenOptions o;
  o.allow_postgres = true;
  Database on_pg = Database::open(pg.url(), o);
  Database on_sqlite = Database::open(":memory:");
  REQUIRE(ensure_bundled_catalog(on_pg));
  REQUIRE(ensure_bundled_catalog(on_sqlite));
  // A later row of a price in force (same amount: no jump), and a row the checks refuse.
  const Catalog before = Catalog::load(on_sqlite);
  const PriceRow* row = nullptr;
  for (const auto& p : before.data().prices) {
    if (p.provider == "tencent" && p.subject_kind == SubjectKind::instance && !p.period.to &&
        p.mode == BillingMode::payg && !p.region.empty()) {
      row = &p;
      break;
    }
  }
  REQUIRE(row);
  const auto file = [&](const std::string& amount) {
    return std::string("{\"format\": \"gpubill-catalog/1\", \"prices\": [{\"provider\": \"") +
           row->provider + "\", \"instance_type\": \"" + row->subject + "\", \"region\": \"" +
           row->region + "\", \"mode\": \"payg\", \"unit\": \"" +
           std::string(to_string(row->unit)) + "\", \"amount\": \"" + amount +
           "\", \"currency\": \"" + row->amount.currency().to_string() +
           "\", \"effective_from\": \"2027-01-01\", \"source\": \"TEST FIXTURE: PostgreSQL "
           "import [T]\", \"as_of\": \"2026-12-01\"}]}";
  };
  testing::TempDir dir;
  const std::string same = dir.write("same.json", file(row->amount.amount().to_string()));
  const std::string cheap = dir.write("cheap.json", file("0.01"));
  const std::string on_sqlite_same = import_outcome(on_sqlite, same);
  CHECK(on_sqlite_same.rfind("imported 1", 0) == 0);
  CHECK(import_outcome(on_pg, same) == on_sqlite_same);
  const std::string on_sqlite_cheap = import_outcome(on_sqlite, cheap);
  CHECK(on_sqlite_cheap.rfind("refused: ", 0) == 0);
  CHECK(on_sqlite_cheap.find("error price_jump") != std::string::npos);  // 3× below the last
  CHECK(import_outcome(on_pg, cheap) == on_sqlite_cheap);
  CHECK(rows_of(Catalog::load(on_pg).data()) == rows_of(Catalog::load(on_sqlite).data()));
}
