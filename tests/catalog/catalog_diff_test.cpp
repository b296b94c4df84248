// Catalog diff on tests/data/catalog-diff.json (fictional provider diffcloud, CNY): every price
// row there is commented with the change it makes between 2021-02-01 and 2021-07-01.
#include <catch2/catch.hpp>

#include "gpubill/base/errors.hpp"
#include "gpubill/catalog/catalog_diff.hpp"
#include "gpubill/catalog/catalog_import.hpp"
#include "gpubill/store/db.hpp"
#include "replay_fixture.hpp"

using namespace gpubill;

namespace {

Catalog diff_catalog_fixture() {
  auto db = Database::open(":memory:");
  ensure_bundled_catalog(db);
  // The fixture prices D.ONE at 0 and below its T4 on purpose (catalog check's floors): forced.
  ImportOptions forced;
  forced.force = true;
  import_catalog_file(db, gpubill::testing::data_path("catalog-diff.json"), forced);
  return Catalog::load(db);
}

const Catalog& fixture() {
  static const Catalog catalog = diff_catalog_fixture();
  return catalog;
}

// "D.ONE * payg changed 3.00→3.30 +10.00" — one line per change, to compare as text.
std::string describe(const CatalogDiff& diff) {
  std::string out;
  for (const auto& c : diff.changes) {
    const PriceRow& r = c.row();
    out += (r.subject_kind == SubjectKind::gpu ? "gpu " : "") + r.subject + " " +
           (r.region.empty() ? "*" : r.region) + " " + std::string(to_string(r.mode)) + " " +
           std::string(to_string(c.kind)) + " " +
           (c.before ? c.before->amount.amount().to_string() : "-") + "\u2192" +
           (c.after ? c.after->amount.amount().to_string() : "-") +
           (c.percent ? " " + percent_text(*c.percent) : "") + "\n";
  }
  return out;
}

CatalogDiff diff(const char* from, const char* to, PriceDiffFilter filter = {}) {
  if (filter.provider.empty()) filter.provider = "diffcloud";
  return diff_catalog(fixture(), parse_instant(from, true), parse_instant(to, true), filter);
}

}  // namespace

TEST_CASE("catalog diff: added, removed and changed prices with exact percentages",
          "[catalog][diff]") {
  const CatalogDiff d = diff("2021-02-01", "2021-07-01");
  CHECK(describe(d) ==
        "D.ONE * payg changed 3\u21923.3 +10.00\n"
        "D.ONE * prepaid changed 1800\u21921650 -8.33\n"
        "D.ONE d-1 payg changed 0\u21920.5\n"  // from 0: no percentage
        "D.ONE d-1 spot removed 1\u2192-\n"
        "D.ONE d-2 payg changed 0.3\u21920.4 +33.33\n"
        "D.TWO * reserved_1y changed 4\u21922000\n"  // hour → month: not comparable
        "D.TWO d-2 payg added -\u21926.5\n"
        "D.TWO d-2 spot changed 2\u21922.2469 +12.35\n"  // 12.345 rounds half up
        "D.V * payg changed 20\u219210 -50.00\n"
        "gpu T4 * payg added -\u21921.25\n");
  // D.TWO * prepaid (a new row, same price: provenance only) and D.TWO d-1 payg.
  CHECK(d.unchanged == 2);
  // The exact percentages and deltas behind the rounded text.
  CHECK(*d.changes[1].percent == Decimal::parse("-8.333333333333"));
  CHECK(*d.changes[1].delta == Decimal::parse("-150"));
  CHECK(*d.changes[4].percent == Decimal::parse("33.333333333333"));
  CHECK(*d.changes[7].percent == Decimal::parse("12.345"));
  CHECK(*d.changes[2].delta == Decimal::parse("0.5"));
  CHECK_FALSE(d.changes[2].percent);
  CHECK_FALSE(d.changes[5].delta);
  CHECK(d.from == parse_instant("2021-02-01", true));
}

TEST_CASE("catalog diff: filters, no change, and reading backwards", "[catalog][diff]") {
  PriceDiffFilter t4;
  t4.gpus = {"T4"};
  CHECK(diff("2021-02-01", "2021-07-01", t4).changes.size() == 9);  // without D.V
  PriceDiffFilter payg;
  payg.mode = BillingMode::payg;
  const auto p = diff("2021-02-01", "2021-07-01", payg);
  CHECK(p.changes.size() == 6);
  CHECK(p.unchanged == 1);
  PriceDiffFilter d1;
  d1.region = "d-1";  // rows for d-1 and rows for every region
  const auto r = diff("2021-02-01", "2021-07-01", d1);
  CHECK(r.changes.size() == 7);
  CHECK(r.unchanged == 2);

  const auto same = diff("2021-01-01", "2021-02-01");
  CHECK(same.changes.empty());
  CHECK(same.unchanged == 10);

  const auto back = diff("2021-07-01", "2021-02-01");
  REQUIRE(back.changes.size() == 10);
  CHECK(back.changes[3].kind == PriceChangeKind::added);  // D.ONE d-1 spot
  CHECK(back.changes[6].kind == PriceChangeKind::removed);
  CHECK(*back.changes[0].percent == Decimal::parse("-9.090909090909"));  // 3.30 → 3.00

  PriceDiffFilter unknown;
  unknown.provider = "nosuch";
  CHECK_THROWS_AS(diff_catalog(fixture(), Instant{}, Instant{}, unknown), NotFound);
}

TEST_CASE("percent_text rounds half up to two decimals with a sign", "[catalog][diff]") {
  CHECK(percent_text(Decimal::parse("12.345")) == "+12.35");
  CHECK(percent_text(Decimal::parse("-12.345")) == "-12.35");
  CHECK(percent_text(Decimal::parse("0.004")) == "0.00");
  CHECK(percent_text(Decimal::parse("-0.004")) == "0.00");
  CHECK(percent_text(Decimal(100)) == "+100.00");
}
