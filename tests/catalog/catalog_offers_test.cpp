// Offers as `gpubill catalog offers` lists them: regional prices, host + N×GPU sums, unknowns.
#include <catch2/catch.hpp>

#include "gpubill/base/errors.hpp"
#include "gpubill/catalog/catalog.hpp"
#include "gpubill/catalog/catalog_offers.hpp"
#include "test_values.hpp"

using namespace gpubill;
using gpubill::testing::at;

namespace {

PriceRow price(const char* subject, const char* region, BillingMode mode, const char* amount,
               const char* from, SubjectKind kind = SubjectKind::instance) {
  PriceRow p;
  p.provider = "g";
  p.subject_kind = kind;
  p.subject = subject;
  p.region = region;
  p.mode = mode;
  p.amount = Money::parse(std::string(amount) + " USD");
  p.period.from = at(from);
  p.source = "test";
  p.as_of = from;
  return p;
}

Catalog sample() {
  CatalogData d;
  d.providers.push_back({"g", "G", Currency::parse("USD"), "UTC"});
  d.regions.push_back({"g", "r1", ""});
  for (const char* id : {"V100-SXM2-16GB", "V100-PCIE-16GB", "T4"}) {
    Gpu gpu;
    gpu.id = id;
    if (gpu.id == "V100-SXM2-16GB") gpu.aliases = {"V100"};
    d.gpus.push_back(gpu);
  }
  InstanceType host;
  host.provider = "g";
  host.id = "host";
  host.attachable = {{"V100-SXM2-16GB", {1, 4}}};
  d.instance_types.push_back(host);
  InstanceType box;
  box.provider = "g";
  box.id = "box";
  box.gpu = "V100-PCIE-16GB";
  box.gpu_count = Decimal(2);
  d.instance_types.push_back(box);
  InstanceType t4;
  t4.provider = "g";
  t4.id = "t4box";
  t4.gpu = "T4";
  t4.gpu_count = Decimal(1);
  d.instance_types.push_back(t4);
  d.prices.push_back(price("host", "", BillingMode::payg, "0.38", "2020-01-01"));
  d.prices.push_back(
      price("V100-SXM2-16GB", "r1", BillingMode::payg, "2.48", "2020-01-01", SubjectKind::gpu));
  d.prices.push_back(
      price("V100-SXM2-16GB", "r2", BillingMode::payg, "2.5", "2020-01-01", SubjectKind::gpu));
  d.prices.push_back(price("box", "r1", BillingMode::payg, "5", "2019-01-01"));
  d.prices.push_back(price("box", "r1", BillingMode::payg, "4", "2021-01-01"));
  return Catalog(std::move(d));
}

}  // namespace

TEST_CASE("a GPU family name matches every model of the family", "[offers]") {
  const auto catalog = sample();
  const auto v100 = gpus_matching(catalog, "v100");
  REQUIRE(v100.size() == 2);
  CHECK(v100[0]->id == "V100-SXM2-16GB");  // the alias first
  CHECK(v100[1]->id == "V100-PCIE-16GB");
  CHECK(gpus_matching(catalog, "t4").size() == 1);
  CHECK_THROWS_AS(gpus_matching(catalog, "X100"), NotFound);
}

TEST_CASE("offers add the host price to N attachable GPUs", "[offers]") {
  const auto catalog = sample();
  OfferFilter f;
  f.gpus = {"V100-SXM2-16GB"};
  const auto offers = list_offers(catalog, f);
  REQUIRE(offers.size() == 4);  // 1 and 4 GPUs, in r1 and r2
  CHECK(offers[0].name == "host+1\u00d7V100-SXM2-16GB");
  CHECK(offers[0].region == "r1");
  REQUIRE(offers[0].price);
  CHECK(*offers[0].price == Money::parse("2.86 USD"));
  CHECK(offers[0].rows.size() == 2);
  CHECK(offers[2].name == "host+4\u00d7V100-SXM2-16GB");
  CHECK(offers[2].gpu_count == Decimal(4));
  CHECK(*offers[2].price == Money::parse("10.3 USD"));
  CHECK(*offers[3].price == Money::parse("10.38 USD"));  // r2: 0.38 + 4 × 2.5
}

TEST_CASE("offers show the latest price, or the one in force at a date", "[offers]") {
  const auto catalog = sample();
  OfferFilter f;
  f.gpus = {"V100-PCIE-16GB"};
  auto offers = list_offers(catalog, f);
  REQUIRE(offers.size() == 1);
  CHECK(*offers[0].price == Money::parse("4 USD"));
  f.at = at("2020-06-01");
  offers = list_offers(catalog, f);
  REQUIRE(offers.size() == 1);
  CHECK(*offers[0].price == Money::parse("5 USD"));
  f.at = at("2018-06-01");
  offers = list_offers(catalog, f);
  REQUIRE(offers.size() == 1);
  CHECK_FALSE(offers[0].price);  // unknown, never 0
}

TEST_CASE("an instance type without prices is listed as unknown", "[offers]") {
  const auto catalog = sample();
  OfferFilter f;
  f.gpus = {"T4"};
  const auto offers = list_offers(catalog, f);
  REQUIRE(offers.size() == 1);
  CHECK(offers[0].name == "t4box");
  CHECK_FALSE(offers[0].price);
  CHECK_FALSE(offers[0].mode);
  f.mode = BillingMode::spot;
  f.gpus = {"V100-PCIE-16GB"};
  const auto spot = list_offers(catalog, f);
  REQUIRE(spot.size() == 1);
  CHECK(spot[0].mode == BillingMode::spot);
  CHECK_FALSE(spot[0].price);
}

TEST_CASE("a region filter uses every-region rows and skips unknown regions", "[offers]") {
  const auto catalog = sample();
  OfferFilter f;
  f.region = "r1";
  f.gpus = {"V100-SXM2-16GB"};
  auto offers = list_offers(catalog, f);
  REQUIRE(offers.size() == 2);
  CHECK(offers[0].region == "r1");
  CHECK(*offers[0].price == Money::parse("2.86 USD"));
  f.region = "nowhere";
  CHECK(list_offers(catalog, f).empty());
  f.provider = "nope";
  CHECK_THROWS_AS(list_offers(catalog, f), NotFound);
}
