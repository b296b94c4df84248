// gpubill catalog coverage, worked out by hand on a small catalog: which offers count as priced,
// unknown or not on sale at a date, in how many regions, over which dates.
#include <catch2/catch.hpp>

#include "gpubill/base/errors.hpp"
#include "gpubill/catalog/catalog_coverage.hpp"

using namespace gpubill;

namespace {

PriceRow row(const char* subject, SubjectKind kind, const char* region, BillingMode mode,
             const char* amount, const char* from, const char* to = nullptr) {
  PriceRow p;
  p.provider = "cloud";
  p.subject_kind = kind;
  p.subject = subject;
  p.region = region;
  p.mode = mode;
  p.unit = PriceUnit::hour;
  p.amount = Money::parse(std::string(amount) + " USD");
  p.period.from = parse_instant(from, true);
  if (to) p.period.to = parse_instant(to, true);
  p.source = "test [T]";
  p.as_of = from;
  return p;
}

InstanceType type(const char* id, const char* family, const char* gpu) {
  InstanceType it;
  it.provider = "cloud";
  it.id = id;
  it.family = family;
  it.gpu = gpu;
  it.gpu_count = Decimal(gpu[0] ? 1 : 0);
  return it;
}

// cloud sells:
//   a.1 (V100): payg in r1 and r2 from 2019, spot in r1 from 2019;
//   b.1 (V100): no price row at all;
//   c.1 (V100): payg in r1 only from 2022 (available from 2022: launched later);
//   e.1 (V100): payg in r1 only from 2022, no lifecycle (its earlier price is unknown);
//   d.1 (T4):   payg in every region 2017–2018 (retired on 2019-01-01);
//   host h (no GPU) takes 1 or 2 T4, priced per GPU: host payg in every region from 2019, T4
//   payg in r1 and r3 from 2019.
Catalog catalog() {
  CatalogData d;
  d.providers = {{"cloud", "Cloud", Currency::parse("USD"), "UTC"}};
  Gpu v100, t4;
  v100.id = "V100";
  t4.id = "T4";
  d.gpus = {v100, t4};
  d.instance_types = {type("a.1", "a", "V100"), type("b.1", "b", "V100"), type("c.1", "c", "V100"),
                      type("d.1", "d", "T4"),   type("e.1", "e", "V100"), type("h", "h", "")};
  d.instance_types[2].available_from = parse_instant("2022-01-01", true);
  d.instance_types[3].retired_on = parse_instant("2019-01-01", true);
  d.instance_types.back().attachable = {{"T4", {1, 2}}};
  using M = BillingMode;
  const auto inst = SubjectKind::instance;
  d.prices = {row("a.1", inst, "r1", M::payg, "3", "2019-01-01"),
              row("a.1", inst, "r2", M::payg, "3.5", "2019-01-01"),
              row("a.1", inst, "r1", M::spot, "1", "2019-01-01"),
              row("c.1", inst, "r1", M::payg, "2", "2022-01-01"),
              row("e.1", inst, "r1", M::payg, "2", "2022-01-01"),
              row("d.1", inst, "", M::payg, "1", "2017-01-01", "2019-01-01"),
              row("h", inst, "", M::payg, "0.2", "2019-01-01"),
              row("T4", SubjectKind::gpu, "r1", M::payg, "0.35", "2019-01-01"),
              row("T4", SubjectKind::gpu, "r3", M::payg, "0.40", "2019-01-01")};
  return Catalog(std::move(d));
}

const CoverageRow& find(const CoverageReport& r, const char* group, BillingMode mode) {
  for (const auto& row : r.rows) {
    if (row.group == group && row.mode == mode) return row;
  }
  FAIL("no coverage row for " << group << " " << to_string(mode));
  throw;  // unreachable
}

}  // namespace

TEST_CASE("coverage by GPU at a date", "[catalog][coverage]") {
  CoverageFilter f;
  f.at = parse_instant("2020-06-30", true);
  const auto r = catalog_coverage(catalog(), f);
  CHECK_FALSE(r.at_default);

  const auto& v100 = find(r, "V100", BillingMode::payg);
  CHECK(v100.offers == 4);       // a.1, b.1, c.1, e.1
  CHECK(v100.priced == 1);       // a.1
  CHECK(v100.unknown == 2);      // b.1: never priced; e.1: priced later, not known now
  CHECK(v100.not_on_sale == 1);  // c.1: available from 2022
  CHECK(v100.regions == 2);      // r1, r2
  CHECK(v100.price_cells == 2);
  CHECK(format_instant(*v100.first_from) == "2019-01-01T00:00:00Z");
  CHECK(format_instant(*v100.last_from) == "2022-01-01T00:00:00Z");

  // Spot: a.1 is priced, b.1 and e.1 unknown, c.1 not on sale.
  const auto& spot = find(r, "V100", BillingMode::spot);
  CHECK(spot.priced == 1);
  CHECK(spot.unknown == 2);
  CHECK(spot.not_on_sale == 1);
  // A mode without a single row is listed too: every offer on sale is unknown in it.
  const auto& reserved = find(r, "V100", BillingMode::reserved_3y);
  CHECK(reserved.offers == 4);
  CHECK(reserved.priced == 0);
  CHECK(reserved.unknown == 3);
  CHECK(reserved.not_on_sale == 1);
  CHECK(!reserved.first_from);

  // T4: d.1 retired in 2019; h + 1 × T4 and h + 2 × T4 priced where the T4 is sold (r1, r3),
  // the host's every-region row applying there.
  const auto& t4 = find(r, "T4", BillingMode::payg);
  CHECK(t4.offers == 3);
  CHECK(t4.priced == 2);
  CHECK(t4.not_on_sale == 1);
  CHECK(t4.unknown == 0);
  CHECK(t4.regions == 2);
  CHECK(t4.price_cells == 4);

  CHECK(r.total.offers == 4 * 5 + 3 * 5);  // every mode listed for each GPU
  CHECK(r.total.price_cells == 2 + 1 + 4);
}

TEST_CASE("coverage by family, filters and the default date", "[catalog][coverage]") {
  CoverageFilter f;
  f.group = CoverageGroup::family;
  f.gpus = {"V100"};
  const auto r = catalog_coverage(catalog(), f);
  CHECK(r.at_default);
  CHECK(format_instant(r.at) == "2022-01-01T00:00:00Z");  // the latest effective_from
  CHECK(find(r, "c", BillingMode::payg).priced == 1);
  CHECK(find(r, "b", BillingMode::payg).unknown == 1);
  for (const auto& row : r.rows) CHECK(row.group != "d");  // a T4 family

  f.provider = "nosuch";
  CHECK_THROWS_AS(catalog_coverage(catalog(), f), NotFound);
}
