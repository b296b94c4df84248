// The converters of providers' price lists (price_list.hpp) on the recordings of fixtures/fetch/:
// the exact rows, worked out by hand from each recording (fixtures/fetch/README.md), and the
// error a response that changed shape gives.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gpubill/base/errors.hpp"
#include "gpubill/fetch/price_list.hpp"
#include "temp_dir.hpp"

using namespace gpubill;

namespace {

const std::string kFetch = std::string(GPUBILL_SOURCE_DIR) + "/fixtures/fetch/";

// The catalog the converters map rows to: the types and GPUs of the recordings, one unknown of
// each provider left out.
Catalog recording_catalog() {
  CatalogData d;
  Gpu v100;
  v100.id = "V100-SXM2-16GB";
  v100.aliases = {"V100", "Tesla V100"};
  Gpu t4;
  t4.id = "T4";
  t4.aliases = {"Tesla T4"};
  d.gpus = {v100, t4};
  const auto add = [&](const char* provider, const char* id, const char* gpu) {
    InstanceType t;
    t.provider = provider;
    t.id = id;
    t.gpu = gpu;
    t.gpu_count = Decimal(*gpu ? 1 : 0);
    d.instance_types.push_back(t);
    return &d.instance_types.back();
  };
  for (const char* id : {"p3.2xlarge", "p3.8xlarge", "g4dn.xlarge", "g5.xlarge", "g6.xlarge"}) {
    add("aws", id, "V100-SXM2-16GB");  // the GPU does not matter to the converter
  }
  for (const char* id : {"Standard_NC6s_v3", "Standard_NC24ads_A100_v4", "Standard_NC4as_T4_v3"}) {
    add("azure", id, "T4");
  }
  add("google", "n1-standard-8", "")->attachable = {{"V100-SXM2-16GB", {1, 2, 4, 8}},
                                                    {"T4", {1, 2, 4}}};
  return Catalog(d);
}

PriceListContext context(const Catalog& catalog, const char* at, bool gpu_only = true) {
  return PriceListContext{&catalog, "", gpu_only, parse_instant(at), "test source [P]"};
}

// "subject region mode amount currency", one per row, in the order converted.
std::vector<std::string> rows_of(const PriceListRows& rows) {
  std::vector<std::string> out;
  for (const auto& r : rows.prices) {
    out.push_back(r.subject + " " + r.region + " " + std::string(to_string(r.mode)) + " " +
                  r.amount.amount().to_string() + " " + r.amount.currency().to_string());
  }
  return out;
}

std::string page(const std::string& dir, int n) {
  return kFetch + dir + "/page-" + std::to_string(n) + ".json";
}

// A copy of a recorded page with `from` replaced by `to` once (REQUIREd to be there).
std::string changed(const testing::TempDir& dir, const std::string& file, const std::string& from,
                    const std::string& to) {
  std::ifstream in(file);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  text.replace(at, from.size(), to);
  const std::string out = (dir.path() / "changed.json").string();
  std::ofstream(out) << text;
  return out;
}

}  // namespace

TEST_CASE("AWS offer file: the plain Linux on-demand price of each GPU type", "[fetch]") {
  const Catalog catalog = recording_catalog();
  PriceListRows rows;
  const auto ctx = context(catalog, "2026-07-21T04:17:51Z");
  const std::string file = page("aws/us-east-1", 1);
  CHECK(convert_aws_offer_file(file, file, ctx, rows) == "2026-07-20T00:00:00Z");
  // Windows, Dedicated, reserved-capacity and SQL Web variants of p3.2xlarge are skipped; the
  // EBS product is not an instance; m5.large has no GPU (--gpu-only).
  CHECK(rows_of(rows) == std::vector<std::string>{
                             "p3.2xlarge us-east-1 payg 3.06 USD",
                             "p3.8xlarge us-east-1 payg 12.24 USD",
                             "g4dn.xlarge us-east-1 payg 0.526 USD",
                             "g5.xlarge us-east-1 payg 1.006 USD",
                             "g6.xlarge us-east-1 payg 0.8048 USD",
                         });
  CHECK(rows.read == 12);
  CHECK(rows.unknown == std::map<std::string, std::size_t>{{"dl1.24xlarge", 1}});
  const PriceRow& p3 = rows.prices[0];
  CHECK(p3.period.from == parse_instant("2026-07-21T04:17:51Z"));
  CHECK_FALSE(p3.period.to);
  CHECK(p3.as_of == "2026-07-21");
  CHECK(p3.source == "test source [P]");
  CHECK(p3.unit == PriceUnit::hour);
  CHECK(rows.regions.size() == 1);
  CHECK(rows.regions[0].name == "US East (N. Virginia)");

  PriceListRows all;
  (void)convert_aws_offer_file(file, file, context(catalog, "2026-07-21T04:17:51Z", false), all);
  CHECK(all.prices.size() == 5);
  CHECK(all.unknown == std::map<std::string, std::size_t>{{"dl1.24xlarge", 1}, {"m5.large", 1}});
}

TEST_CASE("Azure Retail Prices: Linux pay-as-you-go and Spot meters over two pages", "[fetch]") {
  const Catalog catalog = recording_catalog();
  PriceListRows rows;
  const auto ctx = context(catalog, "2026-06-18T03:43:41Z", false);
  const std::string p1 = page("azure/eastus", 1), p2 = page("azure/eastus", 2);
  CHECK(convert_azure_page(p1, p1, ctx, rows) ==
        "https://prices.azure.com:443/api/retail/prices?$filter=serviceName%20eq%20%27Virtual%"
        "20Machines%27%20and%20priceType%20eq%20%27Consumption%27%20and%20armRegionName%20eq%"
        "20%27eastus%27&$skip=5");
  CHECK(convert_azure_page(p2, p2, ctx, rows).empty());
  // The Windows and Low Priority meters and the reservation are skipped.
  CHECK(rows_of(rows) == std::vector<std::string>{
                             "Standard_NC6s_v3 eastus payg 3.06 USD",
                             "Standard_NC6s_v3 eastus spot 0.3978 USD",
                             "Standard_NC24ads_A100_v4 eastus payg 3.673 USD",
                             "Standard_NC4as_T4_v3 eastus payg 0.526 USD",
                             "Standard_NC4as_T4_v3 eastus spot 0.062699 USD",
                         });
  CHECK(rows.read == 10);
  CHECK(rows.unknown == std::map<std::string, std::size_t>{
                            {"Standard_D2s_v3", 1}, {"Standard_NC8lds_xl_RTXPRO6000BSE_v6", 1}});
  CHECK(rows.places[1] == p1 + " /Items/2/retailPrice");
  CHECK(azure_next_page_link(p2, p2).empty());
}

TEST_CASE("Google SKUs: per-GPU on-demand and preemptible prices per region", "[fetch]") {
  const Catalog catalog = recording_catalog();
  PriceListRows rows;
  const auto ctx = context(catalog, "2025-08-30T12:00:00Z");
  const std::string p1 = page("google", 1), p2 = page("google", 2);
  CHECK(convert_google_page(p1, p1, ctx, rows) == "CAUQAQ==");
  CHECK(convert_google_page(p2, p2, ctx, rows).empty());
  // units + nanos: "2" + 480000000 = 2.48; the N1 core SKU, the commitment and the Virtual
  // Workstation GPU (unknown) give no row.
  CHECK(rows_of(rows) == std::vector<std::string>{
                             "V100-SXM2-16GB us-central1 payg 2.48 USD",
                             "V100-SXM2-16GB europe-west4 payg 2.604 USD",
                             "V100-SXM2-16GB us-central1 spot 0.992 USD",
                             "V100-SXM2-16GB us-east1 spot 0.992 USD",
                             "V100-SXM2-16GB europe-west4 spot 0.7148 USD",
                             "T4 europe-west4 payg 0.3675 USD",
                             "T4 us-central1 spot 0.14 USD",
                             "T4 us-east1 spot 0.14 USD",
                             "T4 europe-west4 spot 0.14 USD",
                         });
  CHECK(rows.prices[0].subject_kind == SubjectKind::gpu);
  CHECK(rows.unknown ==
        std::map<std::string, std::size_t>{
            {"GPU \"Nvidia Tesla T4 Virtual Workstation GPU running in Americas\"", 1}});

  PriceListRows one_region;
  auto in_region = ctx;
  in_region.region = "europe-west4";
  (void)convert_google_page(p1, p1, in_region, one_region);
  CHECK(rows_of(one_region) == std::vector<std::string>{
                                   "V100-SXM2-16GB europe-west4 payg 2.604 USD",
                                   "V100-SXM2-16GB europe-west4 spot 0.7148 USD",
                               });
}

TEST_CASE("a response that changed shape names the file, the JSON pointer and the field",
          "[fetch]") {
  const Catalog catalog = recording_catalog();
  const testing::TempDir dir;
  PriceListRows rows;
  const auto message = [&](auto convert, const std::string& file) {
    try {
      convert(file, "page.json", context(catalog, "2026-01-01T00:00:00Z"), rows);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(message(convert_aws_offer_file, changed(dir, page("aws/us-east-1", 1),
                                                "\"USD\": \"12.2400000000\"", "\"USD\": 12.24")) ==
        "page.json:/terms/OnDemand/XUF53ERRH832QQ5Q/XUF53ERRH832QQ5Q.JRTCKXETXF/priceDimensions/"
        "XUF53ERRH832QQ5Q.JRTCKXETXF.6YS6EN2CT7/pricePerUnit: field 'USD': expected a string, "
        "found a number (the response changed shape?)");
  CHECK(message(convert_aws_offer_file,
                changed(dir, page("aws/us-east-1", 1), "\"instanceType\": \"p3.2xlarge\"",
                        "\"instance_type\": \"p3.2xlarge\"")) ==
        "page.json:/products/ZHHDBRRNANKGTS8Q/attributes: field 'instanceType': missing (the "
        "response changed shape?)");
  CHECK(message(convert_azure_page, changed(dir, page("azure/eastus", 2), "\"retailPrice\": 0.526",
                                            "\"retailPrice\": \"0.526\"")) ==
        "page.json:/Items/1: field 'retailPrice': expected a number, found a string (the "
        "response changed shape?)");
  CHECK(message(convert_azure_page,
                changed(dir, page("azure/eastus", 1), "\"Items\"", "\"items\"")) ==
        "page.json: field 'Items': missing (the response changed shape?)");
  CHECK(message(convert_google_page, changed(dir, page("google", 1), "\"nanos\": 604000000",
                                             "\"nanos\": \"604000000\"")) ==
        "page.json:/skus/1/pricingInfo/0/pricingExpression/tieredRates/0/unitPrice: field "
        "'nanos': expected an integer, found a string (the response changed shape?)");
  CHECK(message(convert_google_page,
                changed(dir, page("google", 1), "\"usageUnit\": \"h\"", "\"usageUnit\": \"mo\"")) ==
        "page.json:/skus/0/pricingInfo/0/pricingExpression: field 'usageUnit': expected \"h\" for "
        "a GPU, found \"mo\"");
  CHECK(message(convert_google_page, changed(dir, page("google", 1), "{", "["))
            .rfind("page.json", 0) == 0);
}

TEST_CASE("a JSON number's text as an exact decimal", "[fetch]") {
  CHECK(json_number_decimal("3.06") == "3.06");
  CHECK(json_number_decimal("0") == "0");
  CHECK(json_number_decimal("1.5E-05") == "0.000015");
  CHECK(json_number_decimal("2e2") == "200");
  CHECK(json_number_decimal("0.062699") == "0.062699");
  CHECK_THROWS_AS(json_number_decimal("3."), ParseError);
  CHECK_THROWS_AS(json_number_decimal("abc"), ParseError);
  CHECK_THROWS_AS(json_number_decimal("1e-13"), ParseError);  // more than 12 decimals
}
