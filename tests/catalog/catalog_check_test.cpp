// catalog check: each invariant catches one planted violation, and passes the same catalog
// without it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "gpubill/catalog/catalog_check.hpp"

using namespace gpubill;

namespace {

Instant day(const char* text) {
  return parse_instant(text, /*allow_date=*/true);
}

struct Planted {
  CatalogData d;
  Planted() {
    d.providers.push_back({"g", "G", Currency::parse("USD"), "UTC"});
    for (const char* r : {"r1", "r2", "r3", "r4", "r5"}) d.regions.push_back({"g", r, r});
    for (const char* id : {"A100", "V100", "T4"}) {
      Gpu gpu;
      gpu.id = id;
      d.gpus.push_back(gpu);
    }
  }
  InstanceType& type(const char* id, const char* gpu, const char* count) {
    InstanceType it;
    it.provider = "g";
    it.id = id;
    it.family = "f";
    it.gpu = gpu;
    it.gpu_count = Decimal::parse(count);
    d.instance_types.push_back(it);
    return d.instance_types.back();
  }
  PriceRow& price(const char* subject, const char* region, BillingMode mode, const char* amount,
                  const char* from, const char* source = "src [P]") {
    PriceRow p;
    p.provider = "g";
    p.subject = subject;
    p.region = region;
    p.mode = mode;
    p.amount = Money(Decimal::parse(amount), Currency::parse("USD"));
    p.period.from = day(from);
    p.source = source;
    p.as_of = std::string(from).substr(0, 10);
    d.prices.push_back(p);
    return d.prices.back();
  }
  PriceRow& gpu_price(const char* gpu, const char* region, const char* amount) {
    PriceRow& p = price(gpu, region, BillingMode::payg, amount, "2022-01-01");
    p.subject_kind = SubjectKind::gpu;
    return p;
  }
};

std::vector<CheckViolation> found(const CatalogData& d, const std::string& invariant) {
  std::vector<CheckViolation> out;
  for (const auto& v : check_catalog(d).violations) {
    if (v.invariant == invariant) out.push_back(v);
  }
  return out;
}

}  // namespace

TEST_CASE("check: an instance priced below its GPUs alone", "[catalog][check]") {
  Planted p;
  p.type("a2-1g", "A100", "1");
  p.gpu_price("A100", "r1", "2.93");
  p.price("a2-1g", "r1", BillingMode::payg, "3.67", "2022-02-16");
  CHECK(found(p.d, "gpu_price_floor").empty());
  p.d.prices.back().amount = Money(Decimal::parse("0.81"), Currency::parse("USD"));
  const auto v = found(p.d, "gpu_price_floor");
  REQUIRE(v.size() == 1);
  CHECK(v[0].subject == "a2-1g");
  CHECK(v[0].region == "r1");
  CHECK(check_catalog(p.d).errors >= 1);
}

TEST_CASE("check: a price far below the same type in other regions", "[catalog][check]") {
  Planted p;
  p.type("a2-1g", "A100", "1");
  for (const char* r : {"r1", "r2", "r3", "r4"}) {
    p.price("a2-1g", r, BillingMode::payg, "3.70", "2022-02-16");
  }
  p.price("a2-1g", "r5", BillingMode::payg, "1.30", "2022-02-16");
  CHECK(found(p.d, "region_floor").empty());  // over a third of the median
  p.d.prices.back().amount = Money(Decimal::parse("0.81"), Currency::parse("USD"));
  const auto v = found(p.d, "region_floor");
  REQUIRE(v.size() == 1);
  CHECK(v[0].region == "r5");
  // Spot prices are a market: never a floor violation.
  for (auto& row : p.d.prices) row.mode = BillingMode::spot;
  CHECK(found(p.d, "region_floor").empty());
}

TEST_CASE("check: a price per GPU far below its siblings with that GPU", "[catalog][check]") {
  Planted p;
  p.type("v1", "V100", "1");
  p.type("v4", "V100", "4");
  p.type("v8", "V100", "8");
  p.price("v1", "r1", BillingMode::payg, "3.06", "2022-01-01");
  p.price("v4", "r1", BillingMode::payg, "12.24", "2022-01-01");
  p.price("v8", "r1", BillingMode::payg, "24.48", "2022-01-01");
  CHECK(found(p.d, "sibling_floor").empty());
  p.d.prices.back().amount = Money(Decimal::parse("6.00"), Currency::parse("USD"));
  const auto v = found(p.d, "sibling_floor");
  REQUIRE(v.size() == 1);
  CHECK(v[0].subject == "v8");
}

TEST_CASE("check: the sibling median leaves out the row's own type, its history included",
          "[catalog][check]") {
  Planted p;
  for (const char* id : {"v1", "v2", "v3", "v4", "cheap"}) p.type(id, "V100", "1");
  p.price("v1", "r1", BillingMode::payg, "4.00", "2022-01-01");
  p.price("v2", "r1", BillingMode::payg, "4.00", "2022-01-01");  // the same value twice
  p.price("v3", "r1", BillingMode::payg, "3.00", "2022-01-01");
  p.price("v4", "r1", BillingMode::payg, "5.00", "2022-01-01");
  p.price("v4", "r2", BillingMode::payg, "0.50", "2022-01-01");     // another region: not a sibling
  p.price("cheap", "r1", BillingMode::payg, "4.00", "2021-01-01");  // alone in force in 2021
  p.price("cheap", "r1", BillingMode::payg, "0.90", "2022-01-01");
  // At 2022-01-01 the others are 3, 4, 4 and 5 per GPU: the lower middle is 4, and 0.90 × 4 is
  // under it. For v1 the others are 0.90, 3, 4 and 5 (its own 4 left out, v2's kept): 3.
  const auto v = found(p.d, "sibling_floor");
  REQUIRE(v.size() == 1);
  CHECK(v[0].subject == "cheap");
  CHECK(v[0].effective_from == "2022-01-01");
  CHECK(v[0].message ==
        "per V100 0.9 is under a quarter of the median per-GPU price of 4 other types with that "
        "GPU in the region (4)");
  // 1.01 per GPU: four times it is above the others' median.
  p.d.prices.back().amount = Money(Decimal::parse("1.01"), Currency::parse("USD"));
  CHECK(found(p.d, "sibling_floor").empty());
}

TEST_CASE("check: a spot price exactly a tenth of payg, unless tagged an estimate",
          "[catalog][check]") {
  Planted p;
  p.type("nc6", "V100", "1");
  p.price("nc6", "r1", BillingMode::payg, "0.90", "2022-08-02");
  p.price("nc6", "r1", BillingMode::spot, "0.27", "2022-08-02");
  CHECK(found(p.d, "constant_ratio").empty());
  p.d.prices.back().amount = Money(Decimal::parse("0.09"), Currency::parse("USD"));
  const auto v = found(p.d, "constant_ratio");
  REQUIRE(v.size() == 1);
  CHECK(v[0].mode == "spot");
  CHECK(v[0].sources.find("payg: src") != std::string::npos);
  p.d.prices.back().source = "payg / 10, SkyPilot's placeholder [E]";
  CHECK(found(p.d, "constant_ratio").empty());
}

TEST_CASE("check: one spot price repeated on types with different GPUs", "[catalog][check]") {
  Planted p;
  p.type("p100x1", "V100", "1");
  p.type("p40x1", "T4", "1");
  p.price("p100x1", "r1", BillingMode::spot, "0.207", "2023-12-06");
  p.price("p40x1", "r1", BillingMode::spot, "0.208", "2023-12-06");
  CHECK(found(p.d, "repeated_price").empty());
  p.d.prices.back().amount = Money(Decimal::parse("0.207"), Currency::parse("USD"));
  CHECK(found(p.d, "repeated_price").size() == 2);
}

TEST_CASE("check: a region left out of a later snapshot keeps its row open", "[catalog][check]") {
  Planted p;
  p.type("a2-1g", "A100", "1");
  const char* old_snapshot = "o/prices@aaaaaaa111:pricing.yml [S]";
  const char* new_snapshot = "o/prices@bbbbbbb222:pricing.yml [S]";
  for (const char* r : {"r1", "r2", "r3", "r4", "r5"}) {
    p.price("a2-1g", r, BillingMode::spot, "1.10", "2024-01-04", old_snapshot);
  }
  for (const char* r : {"r1", "r2", "r3", "r4"}) {
    p.price("a2-1g", r, BillingMode::spot, "1.20", "2025-01-02", new_snapshot);
  }
  const auto v = found(p.d, "snapshot_closure");
  REQUIRE(v.size() == 1);
  CHECK(v[0].region == "r5");
  CHECK(v[0].message.find("bbbbbbb") != std::string::npos);
  SECTION("closed at the snapshot") {
    p.d.prices[4].period.to = day("2025-01-02");
    CHECK(found(p.d, "snapshot_closure").empty());
  }
  SECTION("confirmed unchanged by the snapshot") {
    p.d.prices[4].source += "; unchanged in o/prices@bbbbbbb222";
    CHECK(found(p.d, "snapshot_closure").empty());
  }
}

TEST_CASE("check: a move over 3x between consecutive rows names both sources", "[catalog][check]") {
  Planted p;
  p.type("u2", "A100", "2");
  p.price("u2", "r1", BillingMode::payg, "11.64", "2022-10-02", "before [S]");
  p.price("u2", "r1", BillingMode::payg, "2.54", "2023-05-09", "after [S]");
  auto v = found(p.d, "price_jump");
  REQUIRE(v.size() == 1);
  CHECK(v[0].severity == CheckSeverity::error);
  CHECK(v[0].sources == "before: before [S] | after: after [S]");
  for (auto& row : p.d.prices) row.mode = BillingMode::spot;
  v = found(p.d, "price_jump");
  REQUIRE(v.size() == 1);
  CHECK(v[0].severity == CheckSeverity::warning);
  CHECK(check_catalog(p.d).passed());
}

TEST_CASE("check: instance specs agree with the GPU table", "[catalog][check]") {
  Planted p;
  p.type("half", "T4", "0.5");
  p.type("eight", "V100", "8");
  CHECK(found(p.d, "gpu_spec").empty());
  p.type("odd", "V100", "1.5");
  p.type("ghost", "K40", "1");
  const auto v = found(p.d, "gpu_spec");
  REQUIRE(v.size() == 2);
  CHECK(v[0].subject == "ghost");
  CHECK(v[1].subject == "odd");
}

TEST_CASE("check: no price after an offer's retirement", "[catalog][check]") {
  Planted p;
  p.type("nc6", "V100", "1").retired_on = day("2023-09-06");
  p.price("nc6", "r1", BillingMode::payg, "0.90", "2022-08-02");
  CHECK(found(p.d, "lifecycle").empty());
  p.price("nc6", "r1", BillingMode::payg, "0.90", "2024-05-29");
  const auto v = found(p.d, "lifecycle");
  REQUIRE(v.size() == 1);
  CHECK(v[0].effective_from == "2024-05-29");
}

TEST_CASE("check: one region, one currency (mainland and international sites apart)",
          "[catalog][check]") {
  Planted p;
  p.type("gn7", "T4", "1");
  p.price("gn7", "r1", BillingMode::payg, "3.39", "2019-10-16").amount =
      Money(Decimal::parse("3.39"), Currency::parse("CNY"));
  p.price("gn7", "r2", BillingMode::payg, "0.60", "2020-07-21");
  CHECK(found(p.d, "region_currency").empty());
  p.d.prices[0].region.clear();  // a mainland CNY row for every region, the USD site's too
  const auto v = found(p.d, "region_currency");
  REQUIRE(v.size() >= 1);
  CHECK(std::any_of(v.begin(), v.end(), [](const CheckViolation& x) { return x.region == "r2"; }));
}
