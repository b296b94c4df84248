// Offers retired before the quote date and prices that are only estimates ([E]) are not
// ranked: counted (retired) or unknown (estimates), and listed when asked for.
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>

#include "gpubill/quote/quote.hpp"
#include "quote_fixture.hpp"

using namespace gpubill;
using gpubill::testing::line_with_id;
using gpubill::testing::quote_catalog;
using gpubill::testing::quote_workload;

namespace {

CatalogData with_type(CatalogData d, const char* id, const std::function<void(InstanceType&)>& f) {
  for (auto& it : d.instance_types) {
    if (it.id == id) f(it);
  }
  return d;
}

QuoteResult quote(const Catalog& catalog, const char* date, QuoteOptions options = {}) {
  Workload w = quote_workload({"V100"});
  w.duration.hours = Decimal(720);
  w.date = date;
  const QuoteEngine engine(catalog);
  return engine.quote(resolve_workload(w, catalog), options);
}

}  // namespace

TEST_CASE("a retired offer is counted, not ranked, and listed when asked for",
          "[quote][lifecycle]") {
  const Catalog catalog(with_type(quote_catalog(), "GN10X.2XLARGE40", [](InstanceType& it) {
    it.retired_on = parse_instant("2021-06-01", true);
  }));
  const QuoteResult after = quote(catalog, "2023-07-01");
  CHECK(line_with_id(after, "tencent/*/GN10X.2XLARGE40/payg") == nullptr);
  CHECK(after.lines_retired == 2);  // payg and prepaid
  QuoteOptions listed;
  listed.include_retired = true;
  const QuoteResult with = quote(catalog, "2023-07-01", listed);
  const QuoteLine* l = line_with_id(with, "tencent/*/GN10X.2XLARGE40/prepaid");
  REQUIRE(l != nullptr);
  CHECK_FALSE(l->priced);
  CHECK(l->unknown_reason.rfind("retired on 2021-06-01", 0) == 0);
  CHECK(with.lines_unknown == after.lines_unknown);  // retired lines are not unknown ones
  // Before its retirement it is priced as before.
  const QuoteResult before = quote(catalog, "2021-05-31");
  REQUIRE(line_with_id(before, "tencent/*/GN10X.2XLARGE40/payg") != nullptr);
  CHECK(line_with_id(before, "tencent/*/GN10X.2XLARGE40/payg")->priced);
  CHECK(before.lines_retired == 0);
}

TEST_CASE("an estimate ([E]) is unknown unless estimates are asked for", "[quote][lifecycle]") {
  CatalogData d = quote_catalog();
  for (auto& p : d.prices) {
    if (p.subject == "p3.2xlarge" && p.mode == BillingMode::spot) {
      p.source = "p3.2xlarge payg × 0.3 [E]";
    }
  }
  const Catalog catalog(std::move(d));
  const QuoteResult q = quote(catalog, "2023-07-01");
  const QuoteLine* spot = line_with_id(q, "aws/us-east-1/p3.2xlarge/spot");
  REQUIRE(spot != nullptr);
  CHECK_FALSE(spot->priced);
  CHECK(spot->unknown_reason.find("estimate") != std::string::npos);
  QuoteOptions with;
  with.include_estimates = true;
  const QuoteResult q_with = quote(catalog, "2023-07-01", with);  // the line points into it
  const QuoteLine* ranked = line_with_id(q_with, "aws/us-east-1/p3.2xlarge/spot");
  REQUIRE(ranked != nullptr);
  CHECK(ranked->priced);
  CHECK(ranked->source_tag == SourceTag::uncertain);
}
