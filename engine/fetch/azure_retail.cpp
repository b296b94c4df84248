// Azure Retail Prices API pages → pay-as-you-go and spot price rows (price_list.hpp). A page is
//   {"BillingCurrency": "USD", "CustomerEntityId", "CustomerEntityType",
//    "Items": [{"currencyCode", "retailPrice": 3.06, "unitPrice", "armRegionName": "eastus",
//               "location": "US East", "meterName": "NC6s v3", "productName": "Virtual Machines
//               NCSv3 Series", "skuName", "serviceName": "Virtual Machines", "unitOfMeasure":
//               "1 Hour", "type": "Consumption", "armSkuName": "Standard_NC6s_v3", …}],
//    "NextPageLink": "https://prices.azure.com:443/api/retail/prices?…&$skip=100" | null,
//    "Count": 100}
// (https://learn.microsoft.com/en-us/rest/api/cost-management/retail-prices/azure-retail-prices).
#include "fetch/json_reader.hpp"
#include "fetch/price_rows.hpp"
#include "gpubill/base/errors.hpp"
#include "gpubill/fetch/price_list.hpp"

namespace gpubill {

namespace {

using namespace fetch_json;

struct AzureItem {
  std::string_view service, type, product, meter, sku, region, location, unit, currency, price;
};

AzureItem read_item(od::object item, const std::string& file, const std::string& at) {
  AzureItem a;
  bool priced = false;
  for (auto field : item) {
    const std::string_view key = key_of(field);
    std::string_view* slot = nullptr;
    if (key == "serviceName") slot = &a.service;
    if (key == "type") slot = &a.type;
    if (key == "productName") slot = &a.product;
    if (key == "meterName") slot = &a.meter;
    if (key == "armSkuName") slot = &a.sku;
    if (key == "armRegionName") slot = &a.region;
    if (key == "location") slot = &a.location;
    if (key == "unitOfMeasure") slot = &a.unit;
    if (key == "currencyCode") slot = &a.currency;
    if (slot) *slot = as_string(field.value(), file, at, key);
    if (key == "retailPrice") {
      priced = true;
      a.price = number_text(field.value(), file, at, key);
    }
  }
  if (!priced) missing(file, at, "retailPrice");
  for (const auto& [value, name] :
       {std::pair{a.service, "serviceName"}, std::pair{a.type, "type"},
        std::pair{a.product, "productName"}, std::pair{a.meter, "meterName"},
        std::pair{a.region, "armRegionName"}, std::pair{a.unit, "unitOfMeasure"},
        std::pair{a.currency, "currencyCode"}}) {
    if (value.empty()) missing(file, at, name);
  }
  return a;
}

bool ends_with(std::string_view s, std::string_view tail) {
  return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

void convert_item(const AzureItem& a, const std::string& file, const std::string& name,
                  const std::string& at, const PriceListContext& context, PriceListRows& out) {
  if (a.service != "Virtual Machines" || a.type != "Consumption") return;
  if (a.product.find("Windows") != std::string_view::npos) return;
  if (ends_with(a.meter, "Low Priority")) return;
  if (!context.region.empty() && a.region != context.region) return;
  if (a.sku.empty()) missing(file, at, "armSkuName");
  const InstanceType* type = context.catalog->find_instance_type("azure", a.sku);
  const bool gpu_name = a.sku.rfind("Standard_N", 0) == 0;  // NC, ND, NG, NV: the GPU series
  if (context.gpu_only && !gpu_name && !(type && fetch_rows::has_gpu(*type))) return;
  if (a.unit != "1 Hour") {
    shape_error(file, at, "unitOfMeasure",
                "expected \"1 Hour\" for a virtual machine, found \"" + std::string(a.unit) + "\"");
  }
  std::string amount;
  try {
    amount = json_number_decimal(a.price);
    (void)Currency::parse(a.currency);
  } catch (const ParseError& e) {
    shape_error(file, at, Decimal::try_parse(amount) ? "currencyCode" : "retailPrice", e.what());
  }
  if (!type) {
    fetch_rows::unknown(out, std::string(a.sku));
    return;
  }
  const bool spot = ends_with(a.meter, " Spot");
  fetch_rows::add_region(out, "azure", a.region, a.location);
  fetch_rows::add_price(out, context, "azure", SubjectKind::instance, type->id, a.region,
                        spot ? BillingMode::spot : BillingMode::payg, amount, a.currency,
                        name + " " + at + "/retailPrice");
}

// The page's NextPageLink: a string, null or absent.
std::string next_link(od::value value, const std::string& file) {
  if (value.is_null()) return "";
  return std::string(as_string(value, file, "", "NextPageLink"));
}

}  // namespace

std::string convert_azure_page(const std::string& path, const std::string& name,
                               const PriceListContext& context, PriceListRows& out) {
  JsonFile json(path, name);
  const std::string& file = json.name();
  return parsing(json, [&] {
    std::string next;
    bool items = false;
    for (auto field : json.document().get_object()) {
      const std::string_view key = key_of(field);
      if (key == "NextPageLink") next = next_link(field.value(), file);
      if (key != "Items") continue;
      items = true;
      std::size_t i = 0;
      for (auto item : as_array(field.value(), file, "", key)) {
        const std::string at = "/Items/" + std::to_string(i++);
        ++out.read;
        convert_item(read_item(as_object(item.value(), file, at, ""), file, at), file, name, at,
                     context, out);
      }
    }
    if (!items) missing(file, "", "Items");
    return next;
  });
}

std::string azure_next_page_link(const std::string& path, const std::string& name) {
  JsonFile json(path, name);
  return parsing(json, [&] {
    std::string next;
    for (auto field : json.document().get_object()) {
      if (key_of(field) == "NextPageLink") next = next_link(field.value(), json.name());
    }
    return next;
  });
}

}  // namespace gpubill
