// Lease versus buy rents what could run the bought server's work — one node with its GPUs and
// at least its vCPUs and RAM — leaves out an implausible price, and answers in one verdict with
// the utilisation where it flips (issue 30 item 1, issue 28 item 4).
#include <catch2/catch.hpp>

#include <cctype>

#include "gpubill/tco/tco.hpp"
#include "tco_catalog.hpp"

using namespace gpubill;

TEST_CASE("rent options have at least the bought server's vCPUs and RAM", "[tco]") {
  const Catalog catalog(tco_test::data());
  // Tencent GN10X.18XLARGE320: 72 vCPU, 320 GB; AWS p3.16xlarge: 64 vCPU, 488 GB.
  LeaseVsBuyConfig c = tco_test::dgx1();
  c.host_vcpu = 72;
  LeaseVsBuyResult r = lease_vs_buy(catalog, c);
  REQUIRE_FALSE(r.options.empty());
  for (const auto& o : r.options) CHECK(o.provider == "tencent");

  c.host_vcpu.reset();
  c.host_ram_gb = Decimal(400);
  r = lease_vs_buy(catalog, c);
  REQUIRE_FALSE(r.options.empty());
  for (const auto& o : r.options) CHECK(o.provider == "aws");

  c.host_ram_gb = Decimal(512);  // the DGX-1's: neither node has it
  r = lease_vs_buy(catalog, c);
  CHECK(r.options.empty());
}

TEST_CASE("without a host spec the RAM floor is the GPUs' memory", "[tco]") {
  CatalogData d = tco_test::data();
  d.instance_types[1].ram_gb = Decimal(61);  // p3.16xlarge with less RAM than 8 × 16 GB
  const Catalog catalog(std::move(d));
  const LeaseVsBuyResult r = lease_vs_buy(catalog, tco_test::dgx1());
  REQUIRE_FALSE(r.options.empty());
  for (const auto& o : r.options) CHECK(o.provider == "tencent");
}

TEST_CASE("a pay-as-you-go price below the offer's own spot price is left out", "[tco]") {
  CatalogData d = tco_test::data();
  d.prices.push_back(tco_test::price(9, "aws", "p3.16xlarge", "us-east-1", BillingMode::spot,
                                     PriceUnit::hour, "30 USD", "2017-10-25"));
  const Catalog catalog(std::move(d));
  const LeaseVsBuyResult r = lease_vs_buy(catalog, tco_test::dgx1());
  for (const auto& o : r.options) {
    CHECK_FALSE((o.provider == "aws" && o.mode == BillingMode::payg));
  }
  bool noted = false;
  for (const auto& n : r.notes) noted = noted || n.find("implausible") != std::string::npos;
  CHECK(noted);
}

TEST_CASE("one verdict: the cheapest way, by how much, and where it flips", "[tco]") {
  const Catalog catalog(tco_test::data());
  for (const char* u : {"0.1", "0.3", "0.6", "1"}) {
    INFO("utilisation " << u);
    const LeaseVsBuyResult r = lease_vs_buy(catalog, tco_test::dgx1(u));
    const Verdict& v = r.verdict;
    REQUIRE(v.option);
    // The option is the cheaper of the two best, and the verdict follows the totals.
    for (const auto& best : {r.best_payg, r.best_prepaid}) {
      if (best) CHECK(v.rent_total <= r.options[*best].total);
    }
    CHECK(v.rent == (v.rent_total < r.buy.total));
    CHECK(v.difference.amount().sign() >= 0);
    const std::string text = describe(v, r);
    CHECK_THAT(text, Catch::StartsWith(v.rent ? "Rent " : "Buy: "));
    CHECK_THAT(text, Catch::Contains("over 36 months at "));
    for (std::size_t i = text.find('-'); i != std::string::npos; i = text.find('-', i + 1)) {
      CHECK_FALSE(std::isdigit(static_cast<unsigned char>(text[i + 1])));  // no negative figure
    }
    // Inside the interval buying beats both best options; just outside it, it does not.
    for (const auto& [from, to] : v.buy_cheaper) {
      const Decimal mid = Decimal::divide(from + to, 2, 12, RoundingMode::half_even);
      for (const auto& best : {r.best_payg, r.best_prepaid}) {
        if (best) CHECK(r.buy.total_line.at(mid) < r.options[*best].total_line.at(mid));
      }
    }
  }
  // AWS only: pay-as-you-go crosses buying at 172040 / 630720 (tco_rent_test); buying is
  // cheaper from there up.
  LeaseVsBuyConfig c = tco_test::dgx1();
  c.providers = {"aws"};
  const LeaseVsBuyResult r = lease_vs_buy(catalog, c);
  REQUIRE(r.verdict.buy_cheaper.size() == 1);
  CHECK(r.verdict.buy_cheaper[0].first == Decimal::parse("0.272767630644"));
  CHECK(r.verdict.buy_cheaper[0].second == Decimal(1));
  CHECK_FALSE(r.verdict.rent);
  CHECK_THAT(describe(r.verdict, r),
             Catch::Contains("buying is cheaper from 27.28 % utilisation up."));
}
