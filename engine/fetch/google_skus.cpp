// Google Cloud Billing Catalog SKUs of Compute Engine → per-GPU pay-as-you-go and spot price
// rows (price_list.hpp). A page is
//   {"skus": [{"name", "skuId", "description": "Nvidia Tesla V100 GPU running in Americas",
//              "category": {"serviceDisplayName", "resourceFamily": "Compute",
//                           "resourceGroup": "GPU", "usageType": "OnDemand" | "Preemptible" | …},
//              "serviceRegions": ["us-central1", …],
//              "pricingInfo": [{"pricingExpression": {"usageUnit": "h", "tieredRates":
//                  [{"startUsageAmount": 0, "unitPrice": {"currencyCode": "USD",
//                                                         "units": "2", "nanos": 480000000}}]},
//                               "effectiveTime", …}], …}],
//    "nextPageToken": ""}
// (https://cloud.google.com/billing/docs/reference/rest/v1/services.skus/list).
#include <vector>

#include "fetch/json_reader.hpp"
#include "fetch/price_rows.hpp"
#include "gpubill/base/errors.hpp"
#include "gpubill/fetch/price_list.hpp"

namespace gpubill {

namespace {

using namespace fetch_json;

struct GoogleSku {
  std::string_view description, group, usage;
  std::vector<std::string_view> regions;
  std::string amount, currency;
  bool has_category = false, has_regions = false, has_pricing = false;
};

void read_category(od::object category, const std::string& file, const std::string& at,
                   GoogleSku& sku) {
  sku.has_category = true;
  for (auto field : category) {
    const std::string_view key = key_of(field);
    if (key == "resourceGroup") sku.group = as_string(field.value(), file, at, key);
    if (key == "usageType") sku.usage = as_string(field.value(), file, at, key);
  }
  if (sku.group.empty()) missing(file, at, "resourceGroup");
  if (sku.usage.empty()) missing(file, at, "usageType");
}

// units + nanos / 10^9, exactly.
std::string money_text(std::string_view units, std::int64_t nanos, const std::string& file,
                       const std::string& at) {
  if (units.empty() || units.find_first_not_of("0123456789") != std::string_view::npos) {
    shape_error(file, at, "units",
                "expected whole units as a string, found \"" + std::string(units) + "\"");
  }
  if (nanos < 0 || nanos >= 1'000'000'000) {
    shape_error(file, at, "nanos", "expected 0 to 999999999, found " + std::to_string(nanos));
  }
  std::string fraction = std::to_string(nanos);
  fraction.insert(0, 9 - fraction.size(), '0');
  return Decimal::parse(std::string(units) + "." + fraction).to_string();
}

// The first tier (startUsageAmount 0) of the first pricing info: its unit price.
void read_rate(od::object rate, const std::string& file, const std::string& at, GoogleSku& sku,
               bool& found) {
  std::string_view start = "0";
  std::string_view units, currency;
  std::int64_t nanos = 0;
  bool has_price = false;
  for (auto field : rate) {
    const std::string_view key = key_of(field);
    if (key == "startUsageAmount") start = number_text(field.value(), file, at, key);
    if (key != "unitPrice") continue;
    has_price = true;
    for (auto f : as_object(field.value(), file, at, key)) {
      const std::string_view k = key_of(f);
      if (k == "units") units = as_string(f.value(), file, at + "/unitPrice", k);
      if (k == "nanos") nanos = as_int(f.value(), file, at + "/unitPrice", k);
      if (k == "currencyCode") currency = as_string(f.value(), file, at + "/unitPrice", k);
    }
  }
  if (!has_price) missing(file, at, "unitPrice");
  if (currency.empty()) missing(file, at + "/unitPrice", "currencyCode");
  if (found || json_number_decimal(start) != "0") return;
  found = true;
  sku.amount = money_text(units.empty() ? "0" : units, nanos, file, at + "/unitPrice");
  sku.currency = std::string(currency);
}

void read_pricing(od::array infos, const std::string& file, const std::string& at, GoogleSku& sku) {
  sku.has_pricing = true;
  bool found = false;
  for (auto info : infos) {  // the first is in force now
    const std::string info_at = at + "/0";
    bool expression = false;
    for (auto field : as_object(info.value(), file, info_at, "")) {
      if (key_of(field) != "pricingExpression") continue;
      expression = true;
      const std::string ex_at = info_at + "/pricingExpression";
      std::string_view unit;
      bool tiers = false;
      for (auto f : as_object(field.value(), file, info_at, "pricingExpression")) {
        const std::string_view key = key_of(f);
        if (key == "usageUnit") unit = as_string(f.value(), file, ex_at, key);
        if (key != "tieredRates") continue;
        tiers = true;
        std::size_t i = 0;
        for (auto rate : as_array(f.value(), file, ex_at, key)) {
          const std::string rate_at = ex_at + "/tieredRates/" + std::to_string(i++);
          read_rate(as_object(rate.value(), file, rate_at, ""), file, rate_at, sku, found);
        }
      }
      if (unit != "h") {
        shape_error(file, ex_at, "usageUnit",
                    "expected \"h\" for a GPU, found \"" + std::string(unit) + "\"");
      }
      if (!tiers) missing(file, ex_at, "tieredRates");
    }
    if (!expression) missing(file, info_at, "pricingExpression");
    break;
  }
  if (!found) missing(file, at + "/0/pricingExpression/tieredRates", "startUsageAmount");
}

GoogleSku read_sku(od::object object, const std::string& file, const std::string& at) {
  GoogleSku sku;
  for (auto field : object) {
    const std::string_view key = key_of(field);
    if (key == "description") sku.description = as_string(field.value(), file, at, key);
    if (key == "category") {
      read_category(as_object(field.value(), file, at, key), file, at + "/category", sku);
    }
    if (key == "serviceRegions") {
      sku.has_regions = true;
      std::size_t i = 0;
      for (auto r : as_array(field.value(), file, at, key)) {
        sku.regions.push_back(
            as_string(r.value(), file, at + "/serviceRegions/" + std::to_string(i++), ""));
      }
    }
    // Only a GPU SKU's price is read; the others are skipped unread.
    if (key == "pricingInfo" && sku.group == "GPU") {
      read_pricing(as_array(field.value(), file, at, key), file, at + "/pricingInfo", sku);
    }
  }
  if (sku.description.empty()) missing(file, at, "description");
  if (!sku.has_category) missing(file, at, "category");
  if (!sku.has_regions) missing(file, at, "serviceRegions");
  return sku;
}

// "Nvidia Tesla V100 GPU running in Americas" → "V100"; "" when it does not read so.
std::string gpu_name(std::string_view description) {
  for (const std::string_view prefix : {"Nvidia ", "NVIDIA "}) {
    if (description.rfind(prefix, 0) == 0) description.remove_prefix(prefix.size());
  }
  if (description.rfind("Tesla ", 0) == 0) description.remove_prefix(6);
  const auto gpu = description.find(" GPU");
  return gpu == std::string_view::npos ? "" : std::string(description.substr(0, gpu));
}

// The catalog GPU a SKU prices, if some Google host in the catalog takes it.
const Gpu* attachable_gpu(const Catalog& catalog, const std::string& name) {
  const Gpu* gpu = name.empty() ? nullptr : catalog.find_gpu(name);
  if (!gpu) return nullptr;
  for (const auto& type : catalog.data().instance_types) {
    if (type.provider != "google") continue;
    for (const auto& a : type.attachable) {
      if (a.gpu == gpu->id) return gpu;
    }
  }
  return nullptr;
}

void convert_sku(const GoogleSku& sku, const std::string& file, const std::string& name,
                 const std::string& at, const PriceListContext& context, PriceListRows& out) {
  if (sku.group != "GPU") return;
  if (sku.usage != "OnDemand" && sku.usage != "Preemptible") return;  // commitments: not here
  if (!sku.has_pricing) missing(file, at, "pricingInfo");
  const std::string gpu_text = gpu_name(sku.description);
  const Gpu* gpu = attachable_gpu(*context.catalog, gpu_text);
  if (!gpu) {
    fetch_rows::unknown(out, "GPU \"" + std::string(sku.description) + "\"");
    return;
  }
  for (const auto region : sku.regions) {
    if (!context.region.empty() && region != context.region) continue;
    fetch_rows::add_region(out, "google", region, region);
    fetch_rows::add_price(out, context, "google", SubjectKind::gpu, gpu->id, region,
                          sku.usage == "OnDemand" ? BillingMode::payg : BillingMode::spot,
                          sku.amount, sku.currency,
                          name + " " + at + "/pricingInfo/0/pricingExpression/tieredRates");
  }
}

}  // namespace

std::string convert_google_page(const std::string& path, const std::string& name,
                                const PriceListContext& context, PriceListRows& out) {
  JsonFile json(path, name);
  const std::string& file = json.name();
  return parsing(json, [&] {
    std::string next;
    bool skus = false;
    for (auto field : json.document().get_object()) {
      const std::string_view key = key_of(field);
      if (key == "nextPageToken") next = as_string(field.value(), file, "", key);
      if (key != "skus") continue;
      skus = true;
      std::size_t i = 0;
      for (auto s : as_array(field.value(), file, "", key)) {
        const std::string at = "/skus/" + std::to_string(i++);
        ++out.read;
        convert_sku(read_sku(as_object(s.value(), file, at, ""), file, at), file, name, at, context,
                    out);
      }
    }
    if (!skus) missing(file, "", "skus");
    return next;
  });
}

std::string google_next_page_token(const std::string& path, const std::string& name) {
  JsonFile json(path, name);
  return parsing(json, [&] {
    std::string next;
    for (auto field : json.document().get_object()) {
      if (key_of(field) == "nextPageToken") {
        next = as_string(field.value(), json.name(), "", "nextPageToken");
      }
    }
    return next;
  });
}

}  // namespace gpubill
