// Catalog::load_for_billing (what replay and rebuild load) reads the same catalog as
// Catalog::load, row for row, except that price and commitment rows come without their source.
#include <catch2/catch.hpp>

#include <string>

#include "gpubill/catalog/catalog.hpp"
#include "gpubill/catalog/catalog_import.hpp"
#include "gpubill/catalog/commitment.hpp"
#include "gpubill/store/db.hpp"

using namespace gpubill;

namespace {

// One price row as text, its source left out.
std::string billing_price_text(const PriceRow& p) {
  return std::to_string(p.id) + "|" + p.provider + "|" +
         std::to_string(static_cast<int>(p.subject_kind)) + "|" + p.subject + "|" + p.region + "|" +
         std::to_string(static_cast<int>(p.mode)) + "|" + std::to_string(static_cast<int>(p.unit)) +
         "|" + p.amount.to_string() + "|" +
         std::to_string(p.period.from.time_since_epoch().count()) + "|" +
         (p.period.to ? std::to_string(p.period.to->time_since_epoch().count()) : "open") + "|" +
         p.as_of;
}

std::string billing_commitment_text(const CommitmentRow& c) {
  return std::to_string(c.id) + "|" + c.provider + "|" + c.subject + "|" + c.region + "|" +
         c.key() + "|" + std::to_string(c.term_months) + "|" + c.upfront.to_string() + "|" +
         c.hourly.to_string() + "|" + std::to_string(c.period.from.time_since_epoch().count()) +
         "|" + c.as_of;
}

}  // namespace

TEST_CASE("the catalog loaded for billing is the whole catalog without price sources",
          "[catalog][load]") {
  Database db = Database::open(":memory:");
  ensure_bundled_catalog(db);
  const Catalog whole = Catalog::load(db);
  const Catalog billing = Catalog::load_for_billing(db);
  const CatalogData& w = whole.data();
  const CatalogData& b = billing.data();

  REQUIRE(b.prices.size() == w.prices.size());
  REQUIRE(w.prices.size() > 10000);
  for (std::size_t i = 0; i < w.prices.size(); ++i) {
    INFO("price row " << w.prices[i].id);
    CHECK(billing_price_text(b.prices[i]) == billing_price_text(w.prices[i]));
    CHECK(!w.prices[i].source.empty());
    CHECK(b.prices[i].source.empty());
  }
  REQUIRE(b.commitments.size() == w.commitments.size());
  REQUIRE(!w.commitments.empty());
  for (std::size_t i = 0; i < w.commitments.size(); ++i) {
    INFO("commitment row " << w.commitments[i].id);
    CHECK(billing_commitment_text(b.commitments[i]) == billing_commitment_text(w.commitments[i]));
    CHECK(b.commitments[i].source.empty());
  }
  // Every other section whole, sources included.
  CHECK(b.instance_types.size() == w.instance_types.size());
  CHECK(b.policies.size() == w.policies.size());
  CHECK(b.discounts.size() == w.discounts.size());
  CHECK(b.disk_prices.size() == w.disk_prices.size());
  CHECK(b.fx_rates.size() == w.fx_rates.size());
  // Look-ups agree: a price found at an instant is the same row.
  const Instant t = parse_instant("2026-07-13T00:00:00Z");
  for (const auto& p : w.prices) {
    const PriceRow* a = whole.price_at(p.provider, p.subject_kind, p.subject, p.region, p.mode, t);
    const PriceRow* c =
        billing.price_at(p.provider, p.subject_kind, p.subject, p.region, p.mode, t);
    REQUIRE((a == nullptr) == (c == nullptr));
    if (a) CHECK(a->id == c->id);
  }
}
