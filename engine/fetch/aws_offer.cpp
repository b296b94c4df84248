// AWS Price List bulk offer file (AmazonEC2, one region) → on-demand price rows, streamed with
// simdjson's On-Demand parser (price_list.hpp). The file is
//   {"formatVersion", "offerCode", "publicationDate",
//    "products": {SKU: {"sku", "productFamily", "attributes": {"instanceType", "regionCode",
//                        "location", "operatingSystem", "tenancy", "preInstalledSw",
//                        "capacitystatus", "licenseModel", "gpu", …}}},
//    "terms": {"OnDemand": {SKU: {TERM: {"priceDimensions": {DIM: {"unit": "Hrs",
//                                         "pricePerUnit": {"USD": "3.0600000000"}}}}}},
//              "Reserved": {…}}}
// (https://docs.aws.amazon.com/awsaccountbilling/latest/aboutv2/reading-an-offer.html).
#include <unordered_map>

#include "base/json_fields.hpp"
#include "fetch/json_reader.hpp"
#include "fetch/price_rows.hpp"
#include "gpubill/base/errors.hpp"
#include "gpubill/fetch/price_list.hpp"

namespace gpubill {

namespace {

using namespace fetch_json;
using json_input::child_pointer;

// A product that prices an instance type the catalog knows, waiting for its on-demand term.
struct AwsCandidate {
  std::string type, region;
};

struct AwsAttributes {
  std::string_view instance_type, region, location, os, tenancy, software, capacity, license, gpu,
      operation;
  bool has_os = false;
};

AwsAttributes read_attributes(od::object attributes, const std::string& file,
                              const std::string& at) {
  AwsAttributes a;
  for (auto field : attributes) {
    const std::string_view key = key_of(field);
    std::string_view* slot = nullptr;
    if (key == "instanceType") slot = &a.instance_type;
    if (key == "regionCode") slot = &a.region;
    if (key == "location") slot = &a.location;
    if (key == "operatingSystem") slot = &a.os;
    if (key == "tenancy") slot = &a.tenancy;
    if (key == "preInstalledSw") slot = &a.software;
    if (key == "capacitystatus") slot = &a.capacity;
    if (key == "licenseModel") slot = &a.license;
    if (key == "gpu") slot = &a.gpu;
    if (key == "operation") slot = &a.operation;
    if (slot) *slot = as_string(field.value(), file, at, key);
  }
  return a;
}

// Whether a Compute Instance product is the plain Linux on-demand box (the catalog's price).
bool plain_linux(const AwsAttributes& a, const std::string& file, const std::string& at) {
  for (const auto& [value, name] :
       {std::pair{a.instance_type, "instanceType"}, std::pair{a.region, "regionCode"},
        std::pair{a.os, "operatingSystem"}, std::pair{a.tenancy, "tenancy"},
        std::pair{a.software, "preInstalledSw"}, std::pair{a.capacity, "capacitystatus"}}) {
    if (value.empty()) missing(file, at, name);
  }
  return a.os == "Linux" && a.tenancy == "Shared" && a.software == "NA" && a.capacity == "Used" &&
         (a.license.empty() || a.license == "No License required") &&
         (a.operation.empty() || a.operation == "RunInstances");
}

void read_product(std::string_view sku, od::object product, const std::string& file,
                  const PriceListContext& context, PriceListRows& out,
                  std::unordered_map<std::string, AwsCandidate>& candidates) {
  const std::string at = child_pointer("/products", sku);
  std::string_view family;
  bool has_attributes = false;
  AwsAttributes a;
  for (auto field : product) {
    const std::string_view key = key_of(field);
    if (key == "productFamily") family = as_string(field.value(), file, at, key);
    if (key == "attributes") {
      has_attributes = true;
      a = read_attributes(as_object(field.value(), file, at, key), file, at + "/attributes");
    }
  }
  if (family.empty()) missing(file, at, "productFamily");
  if (family != "Compute Instance") return;
  if (!has_attributes) missing(file, at, "attributes");
  if (!plain_linux(a, file, at + "/attributes")) return;
  if (!context.region.empty() && a.region != context.region) return;
  const InstanceType* type = context.catalog->find_instance_type("aws", a.instance_type);
  const bool gpu_attribute = !a.gpu.empty() && a.gpu != "0" && a.gpu != "NA";
  if (context.gpu_only && !gpu_attribute && !(type && fetch_rows::has_gpu(*type))) return;
  if (!type) {
    fetch_rows::unknown(out, std::string(a.instance_type));
    return;
  }
  fetch_rows::add_region(out, "aws", a.region, a.location);
  candidates.emplace(std::string(sku), AwsCandidate{type->id, std::string(a.region)});
}

// One on-demand term of a product we price: exactly one dimension, per hour, in USD.
void read_term(const std::string& at, od::object term, const std::string& file,
               const std::string& name, const AwsCandidate& candidate,
               const PriceListContext& context, PriceListRows& out) {
  bool has_dimensions = false;
  for (auto field : term) {
    if (key_of(field) != "priceDimensions") continue;
    has_dimensions = true;
    std::size_t dimensions = 0;
    for (auto dim : as_object(field.value(), file, at, "priceDimensions")) {
      const std::string dim_at = child_pointer(at + "/priceDimensions", key_of(dim));
      if (++dimensions > 1) {
        shape_error(file, dim_at, "", "more than one price dimension in an on-demand term");
      }
      std::string_view unit, usd;
      bool has_price = false;
      for (auto f : as_object(dim.value(), file, dim_at, "")) {
        const std::string_view key = key_of(f);
        if (key == "unit") unit = as_string(f.value(), file, dim_at, key);
        if (key == "pricePerUnit") {
          has_price = true;
          for (auto c : as_object(f.value(), file, dim_at, key)) {
            if (key_of(c) == "USD") {
              usd = as_string(c.value(), file, dim_at + "/pricePerUnit", "USD");
            }
          }
        }
      }
      if (unit.empty()) missing(file, dim_at, "unit");
      if (unit != "Hrs") {
        shape_error(file, dim_at, "unit", "expected \"Hrs\", found \"" + std::string(unit) + "\"");
      }
      if (!has_price) missing(file, dim_at, "pricePerUnit");
      if (usd.empty()) missing(file, dim_at + "/pricePerUnit", "USD");
      if (!Decimal::try_parse(usd)) {
        shape_error(file, dim_at + "/pricePerUnit", "USD",
                    "not a decimal price: \"" + std::string(usd) + "\"");
      }
      fetch_rows::add_price(out, context, "aws", SubjectKind::instance, candidate.type,
                            candidate.region, BillingMode::payg, usd, "USD",
                            name + " " + dim_at + "/pricePerUnit/USD");
    }
  }
  if (!has_dimensions) missing(file, at, "priceDimensions");
}

void read_on_demand(od::object skus, const std::string& file, const std::string& name,
                    const std::unordered_map<std::string, AwsCandidate>& candidates,
                    const PriceListContext& context, PriceListRows& out) {
  for (auto entry : skus) {
    const std::string_view sku = key_of(entry);
    const auto it = candidates.find(std::string(sku));
    if (it == candidates.end()) continue;  // skipped unread by the parser
    const std::string at = child_pointer("/terms/OnDemand", sku);
    std::size_t terms = 0;
    for (auto term : as_object(entry.value(), file, at, "")) {
      const std::string term_at = child_pointer(at, key_of(term));
      if (++terms > 1) shape_error(file, term_at, "", "more than one on-demand term for a SKU");
      read_term(term_at, as_object(term.value(), file, term_at, ""), file, name, it->second,
                context, out);
    }
  }
}

}  // namespace

std::string convert_aws_offer_file(const std::string& path, const std::string& name,
                                   const PriceListContext& context, PriceListRows& out) {
  JsonFile json(path, name);
  const std::string& file = json.name();
  return parsing(json, [&] {
    std::unordered_map<std::string, AwsCandidate> candidates;
    std::string published;
    bool products = false, terms = false;
    for (auto field : json.document().get_object()) {
      const std::string_view key = key_of(field);
      if (key == "publicationDate") published = as_string(field.value(), file, "", key);
      if (key == "products") {
        products = true;
        for (auto p : as_object(field.value(), file, "", key)) {
          ++out.read;
          const std::string_view sku = key_of(p);
          read_product(sku, as_object(p.value(), file, child_pointer("/products", sku), ""), file,
                       context, out, candidates);
        }
      }
      if (key == "terms") {
        if (!products) {
          shape_error(file, "/terms", "", "\"terms\" comes before \"products\" in the offer file");
        }
        terms = true;
        for (auto t : as_object(field.value(), file, "", key)) {
          if (key_of(t) != "OnDemand") continue;
          read_on_demand(as_object(t.value(), file, "/terms", "OnDemand"), file, name, candidates,
                         context, out);
        }
      }
    }
    if (!products) missing(file, "", "products");
    if (!terms) missing(file, "", "terms");
    return published;
  });
}

}  // namespace gpubill
