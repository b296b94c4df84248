// Unknown prices (listed as unknown, never 0, after the priced lines), exclusions recorded per
// family, a workload nothing fits, find_lines, and the sizing advice.
#include <catch2/catch.hpp>

#include "gpubill/base/errors.hpp"
#include "gpubill/quote/quote.hpp"
#include "quote_fixture.hpp"

using namespace gpubill;
using gpubill::testing::line_with_id;
using gpubill::testing::quote_catalog;
using gpubill::testing::quote_workload;

namespace {

QuoteResult run(const Catalog& catalog, const Workload& w, QuoteOptions options = {}) {
  const QuoteEngine engine(catalog);
  return engine.quote(resolve_workload(w, catalog), options);
}

const FamilyExclusion* family(const QuoteResult& q, const std::string& provider,
                              const std::string& name) {
  for (const auto& f : q.exclusions) {
    if (f.provider == provider && f.family == name) return &f;
  }
  return nullptr;
}

bool has_reason(const FamilyExclusion& f, const std::string& text) {
  for (const auto& r : f.reasons) {
    if (r.reason.find(text) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("unknown prices are listed as unknown, after every priced line", "[quote][unknown]") {
  const Catalog catalog(quote_catalog());
  Workload w = quote_workload({"V100"});
  w.duration.hours = Decimal(720);
  const QuoteResult q = run(catalog, w);
  bool seen_unknown = false;
  for (const auto& l : q.lines) {
    if (!l.priced) {
      seen_unknown = true;
      CHECK_FALSE(l.total);
      CHECK_FALSE(l.unknown_reason.empty());
    } else {
      CHECK_FALSE(seen_unknown);  // no priced line after an unknown one
      CHECK(l.total->amount().sign() > 0);
    }
  }
  // Huawei has no price at all; Google's host has no spot price (its GPU has).
  const auto* huawei = line_with_id(q, "huawei/*/p2.2xlarge.8/-");
  REQUIRE(huawei);
  CHECK(huawei->unknown_reason == "no price for this offer in the catalog");
  CHECK_FALSE(huawei->mode);
  const auto* spot = line_with_id(q, "google/us-central1/n1-standard-8+1×V100-SXM2-16GB/spot");
  REQUIRE(spot);
  CHECK_THAT(spot->unknown_reason, Catch::Contains("no spot price for the host n1-standard-8"));
  CHECK_THAT(explain_line(q, *spot), Catch::Contains("never counted as 0"));
}

TEST_CASE("a price that is not yet in force at the quote date is unknown", "[quote][unknown]") {
  const Catalog catalog(quote_catalog());
  Workload w = quote_workload({"V100"});
  w.duration.hours = Decimal(10);
  w.date = "2017-12-01";
  w.providers = {"google"};
  w.currency = "USD";
  const QuoteResult q = run(catalog, w);
  const auto* l = line_with_id(q, "google/us-central1/n1-standard-8+1×V100-SXM2-16GB/payg");
  REQUIRE(l);
  CHECK_FALSE(l->priced);
  CHECK_THAT(l->unknown_reason, Catch::Contains("takes effect 2018-01-01"));
  CHECK(q.lines_priced == 0);
}

TEST_CASE("a line without an FX rate to the comparison currency is unknown", "[quote][unknown]") {
  const Catalog catalog(quote_catalog());
  Workload w = quote_workload({"V100"});
  w.duration.hours = Decimal(720);
  w.currency = "EUR";
  w.providers = {"aws"};
  const QuoteResult q = run(catalog, w);
  CHECK(q.lines_priced == 0);
  REQUIRE_FALSE(q.lines.empty());
  CHECK_THAT(q.lines.front().unknown_reason, Catch::Contains("no FX rate USD→EUR"));
}

TEST_CASE("exclusions are recorded per family with the reason", "[quote][exclusions]") {
  const Catalog catalog(quote_catalog());
  Workload w = quote_workload({"V100"});
  w.duration.hours = Decimal(720);
  const QuoteResult q = run(catalog, w);
  const auto* gn10x = family(q, "tencent", "GN10X");
  REQUIRE(gn10x);
  CHECK(has_reason(*gn10x, "0.5 × V100-SXM2-32GB per instance, the workload needs 1"));
  const auto* gn7 = family(q, "tencent", "GN7");
  REQUIRE(gn7);
  CHECK(has_reason(*gn7,
                   "GPU T4 is not a requested model (V100 = V100-SXM2-16GB, "
                   "V100-SXM2-32GB, V100-PCIE-16GB)"));
  const auto* p3 = family(q, "aws", "p3");
  REQUIRE(p3);
  CHECK(has_reason(*p3, "4 × V100-SXM2-16GB per instance"));
  CHECK(p3->reasons.front().example == "aws/us-east-1/p3.8xlarge");
  // Google: the T4 attachments are another model, the V100 × 2, 4, 8 the wrong count.
  const auto* n1 = family(q, "google", "n1");
  REQUIRE(n1);
  CHECK(n1->offers == 3 + 3);
  CHECK(q.offers_fitting == 6);  // GN10X.2XLARGE40, gn6v, p2, p3.2xlarge × 2 regions, n1+1×V100
}

TEST_CASE("the default RAM floor is the total GPU memory", "[quote][exclusions]") {
  const Catalog catalog(quote_catalog());
  Workload w = quote_workload({"T4"});
  w.duration.hours = Decimal(10);
  QuoteResult q = run(catalog, w);
  const auto* gn6i = family(q, "alibaba", "gn6i");
  REQUIRE(gn6i);
  CHECK(has_reason(*gn6i, "RAM 15 GB, below 16 GB (default floor: total GPU memory 1 × 16 GB)"));
  bool stated = false;
  for (const auto& a : q.assumptions) stated = stated || a.rfind("RAM floor:", 0) == 0;
  CHECK(stated);
  // Overridden: min_ram_gb 0 lets it in.
  w.host.min_ram_gb = Decimal(0);
  q = run(catalog, w);
  CHECK(line_with_id(q, "alibaba/cn-shanghai/ecs.gn6i-c4g1.xlarge/payg"));
  // An explicit floor above it keeps it out and is named so.
  w.host.min_ram_gb = Decimal(64);
  q = run(catalog, w);
  REQUIRE(family(q, "alibaba", "gn6i"));
  CHECK(has_reason(*family(q, "alibaba", "gn6i"), "(min_ram_gb)"));
}

TEST_CASE("a workload no offer fits reports every family's reason", "[quote][exclusions]") {
  const Catalog catalog(quote_catalog());
  Workload w = quote_workload({"A100"});
  w.gpu.count = 8;
  w.duration.hours = Decimal(10);
  const QuoteResult q = run(catalog, w);
  CHECK(q.offers_fitting == 0);
  CHECK(q.lines.empty());
  // Tencent 4 + Alibaba 3 + Huawei 1 + AWS 3 (p3.2xlarge in 2 regions) + Google n1 × 7 GPU
  // choices.
  CHECK(q.offers_total == 18);
  const auto* gn7 = family(q, "alibaba", "gn7");
  REQUIRE(gn7);
  CHECK(has_reason(*gn7, "1 × A100-40GB per instance, the workload needs 8"));
  const auto* gn8 = family(q, "tencent", "GN8");
  REQUIRE(gn8);
  CHECK(has_reason(*gn8, "GPU P40 is not a requested model"));
}

TEST_CASE("provider, region and mode filters", "[quote][exclusions]") {
  const Catalog catalog(quote_catalog());
  Workload w = quote_workload({"V100"});
  w.duration.hours = Decimal(720);
  w.regions = {"us-east-1"};
  QuoteResult q = run(catalog, w);
  for (const auto& l : q.lines) CHECK(l.region == "us-east-1");
  const auto* gn10x = family(q, "tencent", "GN10X");
  REQUIRE(gn10x);
  CHECK(has_reason(*gn10x, "region * (every region of the provider) not among"));
  // Tencent's every-region prices hold in its own region.
  w.regions = {"ap-guangzhou"};
  q = run(catalog, w);
  CHECK(line_with_id(q, "tencent/*/GN10X.2XLARGE40/payg"));
  // Modes: AWS sells p3.2xlarge as payg, spot and reserved only.
  w.regions = {};
  w.modes = {"prepaid"};
  q = run(catalog, w);
  const auto* p3 = family(q, "aws", "p3");
  REQUIRE(p3);
  CHECK(has_reason(*p3, "sold only as payg, spot, reserved_1y; the workload allows prepaid"));
  for (const auto& l : q.lines) {
    if (l.mode) CHECK(*l.mode == BillingMode::prepaid);
  }
}

TEST_CASE("top N keeps the best lines and the unknown ones after them", "[quote]") {
  const Catalog catalog(quote_catalog());
  Workload w = quote_workload({"V100"});
  w.duration.hours = Decimal(720);
  const QuoteResult all = run(catalog, w);
  QuoteOptions three;
  three.top = 3;
  const QuoteResult top = run(catalog, w, three);
  REQUIRE(top.lines.size() == 3 + 2);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(top.lines[i].id == all.lines[i].id);
    CHECK(*top.lines[i].total == *all.lines[i].total);
  }
  CHECK(top.lines[3].rank == 11);  // unknown lines rank after all 10 priced ones
  CHECK_FALSE(top.lines[3].priced);
  CHECK(top.lines_priced == all.lines_priced);
}

TEST_CASE("find_lines by rank, id, offer or part of an id", "[quote]") {
  const Catalog catalog(quote_catalog());
  Workload w = quote_workload({"V100"});
  w.duration.hours = Decimal(720);
  const QuoteResult q = run(catalog, w);
  CHECK(find_lines(q, "1").front()->id == "tencent/*/GN10X.2XLARGE40/prepaid");
  CHECK(find_lines(q, "GN10X.2XLARGE40").size() == 2);
  CHECK(find_lines(q, "p3.2xlarge/us-east-1/spot").size() == 1);
  CHECK(find_lines(q, "n1-standard-8+1xV100-SXM2-16GB").size() == 2);  // "x" for "×"
  CHECK_THROWS_WITH(find_lines(q, "p3.2xlarge"), Catch::Contains("matches 2 offers"));
  CHECK_THROWS_WITH(find_lines(q, "GN10X.2XLARGE4O"), Catch::Contains("closest"));
  CHECK_THROWS_AS(find_lines(q, "99"), NotFound);
}

TEST_CASE("advise applies the article's sizing advice", "[quote][advise]") {
  const Catalog catalog(quote_catalog());
  const QuoteEngine engine(catalog);
  Workload w = quote_workload({"V100"});
  w.gpu.count = 4;
  w.duration.hours = Decimal(100);
  w.storage.dataset_gb = Decimal(200);
  const Advice a = engine.advise(resolve_workload(w, catalog));
  std::vector<std::string> topics;
  for (const auto& i : a.items) topics.push_back(i.topic);
  CHECK(topics == std::vector<std::string>{"GPU", "RAM", "SSD", "Disk throughput", "NVLink"});
  // 4 × V100: aws p3.8xlarge (244 GB ≥ 64 GB, NVLink) and google n1-standard-8 + 4 × V100
  // (30 GB < 64 GB).
  REQUIRE(a.offers.size() == 2);
  CHECK(a.offers[0].offer_id == "aws/us-east-1/p3.8xlarge");
  CHECK(a.offers[0].meets_all);
  CHECK(a.offers[0].nvlink);
  // Its cheapest line: 100 h × 12.24 = 1224 USD × 7.2688 = 8897.0112 CNY.
  CHECK(*a.offers[0].cheapest == Money::parse("8897.0112 CNY"));
  CHECK_FALSE(a.offers[1].ram_ok);
  CHECK_THAT(a.items[2].applied,
             Catch::Contains("200 GB data set + 50 GB headroom (default) = 250 GB"));
  CHECK_THAT(a.items[3].advice, Catch::Contains("100–150 MB/s"));
  CHECK_THAT(a.items[4].applied, Catch::Contains("4 GPUs: prefer NVLink"));
}
