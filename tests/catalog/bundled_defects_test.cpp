// The defects issue 28 found in the bundled catalog stay fixed: one test each, on the catalog a
// fresh database loads.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>

#include "gpubill/catalog/catalog.hpp"
#include "gpubill/catalog/catalog_check.hpp"
#include "gpubill/catalog/catalog_import.hpp"
#include "gpubill/quote/quote.hpp"
#include "gpubill/store/db.hpp"
#include "test_values.hpp"

using namespace gpubill;
using gpubill::testing::bundled_catalog;

namespace {

const CheckReport& bundled_check() {
  static const CheckReport report = check_catalog(bundled_catalog().data());
  return report;
}

std::size_t count(const std::string& invariant) {
  const auto& v = bundled_check().violations;
  return static_cast<std::size_t>(std::count_if(
      v.begin(), v.end(), [&](const CheckViolation& x) { return x.invariant == invariant; }));
}

Instant latest() {
  return *bundled_catalog().latest_price_date();
}

QuoteResult quote(const std::vector<std::string>& gpus, Instant at, QuoteOptions options = {},
                  std::vector<std::string> regions = {}) {
  Workload w;
  w.source = "test";
  w.gpu.models = gpus;
  w.duration.hours = Decimal(720);
  w.date = format_instant(at);
  w.regions = std::move(regions);
  static const QuoteEngine engine(bundled_catalog());
  return engine.quote(resolve_workload(w, bundled_catalog()), options);
}

}  // namespace

TEST_CASE("bundled catalog: passes catalog check", "[catalog][check][bundled]") {
  for (const auto& v : bundled_check().violations) {
    if (v.severity == CheckSeverity::error) UNSCOPED_INFO(describe(v));
  }
  CHECK(bundled_check().errors == 0);
}

TEST_CASE("defect 1: no A2 priced without its GPUs in northamerica-northeast2",
          "[catalog][check][bundled]") {
  CHECK(count("gpu_price_floor") == 0);
  CHECK(count("region_floor") == 0);
  CHECK(count("sibling_floor") == 0);
  for (const char* type : {"a2-highgpu-1g", "a2-highgpu-8g", "a2-megagpu-16g"}) {
    INFO(type);
    CHECK(bundled_catalog().price_at("google", SubjectKind::instance, type,
                                     "northamerica-northeast2", BillingMode::payg,
                                     latest()) == nullptr);
  }
  // The cheapest A100 line is not that region any more.
  const QuoteResult q = quote({"A100"}, latest());
  REQUIRE(!q.lines.empty());
  REQUIRE(q.lines.front().priced);
  CHECK(q.lines.front().region != "northamerica-northeast2");
}

TEST_CASE("defect 2: no AWS or Azure spot price is a tenth of pay-as-you-go",
          "[catalog][check][bundled]") {
  CHECK(count("constant_ratio") == 0);
}

TEST_CASE("defect 2b: no Azure spot price repeated across unrelated types",
          "[catalog][check][bundled]") {
  CHECK(count("repeated_price") == 0);
}

TEST_CASE("defect 3: retired offers are not quoted after they retire", "[catalog][bundled]") {
  const auto* nc6 = bundled_catalog().find_instance_type("azure", "Standard_NC6");
  REQUIRE(nc6 != nullptr);
  REQUIRE(nc6->retired_on);
  CHECK(format_instant(*nc6->retired_on) == "2023-09-06T00:00:00Z");
  const QuoteResult now = quote({"K80"}, latest());
  for (const auto& l : now.lines) {
    INFO(l.id);
    if (l.provider == "google" || l.provider == "azure") CHECK(!l.priced);
  }
  CHECK(now.lines_retired > 0);
  // Listed when asked for, as retired.
  QuoteOptions with;
  with.include_retired = true;
  const QuoteResult listed = quote({"K80"}, latest(), with);
  CHECK(std::any_of(listed.lines.begin(), listed.lines.end(), [](const QuoteLine& l) {
    return l.provider == "google" && l.unknown_reason.rfind("retired on 2024-05-01", 0) == 0;
  }));
  // Before retirement they are priced.
  const QuoteResult before = quote({"K80"}, parse_instant("2023-01-01", true));
  CHECK(std::any_of(before.lines.begin(), before.lines.end(),
                    [](const QuoteLine& l) { return l.priced && l.provider == "azure"; }));
  CHECK(std::any_of(before.lines.begin(), before.lines.end(),
                    [](const QuoteLine& l) { return l.priced && l.provider == "google"; }));
}

TEST_CASE("defect 4: Tencent mainland and international sites are distinct regions",
          "[catalog][check][bundled]") {
  CHECK(count("region_currency") == 0);
  std::set<std::string> currencies_by_region[2];
  for (const auto& p : bundled_catalog().data().prices) {
    if (p.provider != "tencent" || p.subject_kind != SubjectKind::instance) continue;
    CHECK(!p.region.empty());
    const bool intl = p.region.rfind("intl-", 0) == 0;
    currencies_by_region[intl ? 1 : 0].insert(p.amount.currency().to_string());
  }
  CHECK(currencies_by_region[0] == std::set<std::string>{"CNY"});
  CHECK(currencies_by_region[1] == std::set<std::string>{"USD"});
  // --region ap-guangzhou finds GN7 (T4) in CNY at its mainland list price.
  const QuoteResult q = quote({"T4"}, parse_instant("2020-06-30", true), {}, {"ap-guangzhou"});
  CHECK(std::any_of(q.lines.begin(), q.lines.end(), [](const QuoteLine& l) {
    return l.priced && l.family == "GN7" && l.price_row->amount.currency().to_string() == "CNY";
  }));
}

TEST_CASE("defect 7: quarter and half GPU slices are quotable", "[catalog][bundled][quote]") {
  Workload w;
  w.source = "test";
  w.gpu.models = {"T4"};
  w.gpu.fraction = Decimal::parse("0.25");
  w.duration.hours = Decimal(720);
  w.date = "2020-06-30";
  const QuoteEngine engine(bundled_catalog());
  const QuoteResult q = engine.quote(resolve_workload(w, bundled_catalog()));
  REQUIRE(q.lines_priced > 0);
  for (const auto& l : q.lines) {
    INFO(l.id);
    CHECK(l.gpu_count == Decimal::parse("0.25"));
  }
  CHECK(std::any_of(q.lines.begin(), q.lines.end(), [](const QuoteLine& l) {
    return l.priced && l.instance_type == "GN7.LARGE20";
  }));
  // A whole count never matches a slice.
  w.gpu.fraction.reset();
  const QuoteResult whole = engine.quote(resolve_workload(w, bundled_catalog()));
  CHECK(std::none_of(whole.lines.begin(), whole.lines.end(),
                     [](const QuoteLine& l) { return l.instance_type == "GN7.LARGE20"; }));
}
