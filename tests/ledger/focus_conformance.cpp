// FOCUS 1.2 conformance checker (focus_conformance.hpp). Each check names the rule id of
// focus_validator's model-1.2.json it encodes; the text of the rule is in the spec file named
// beside it (FOCUS_Spec v1.2, specification/...).
#include "focus_conformance.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <regex>
#include <sstream>

#include "gpubill/ledger/focus.hpp"
#include "gpubill/ledger/ledger.hpp"

namespace gpubill::testing {

// columns/columns.mdpp: the 57 columns of FOCUS 1.2, in the specification's order.
const std::vector<std::string>& focus12_columns() {
  static const std::vector<std::string> names = {
      "AvailabilityZone",
      "BilledCost",
      "BillingAccountId",
      "BillingAccountName",
      "BillingAccountType",
      "BillingCurrency",
      "BillingPeriodEnd",
      "BillingPeriodStart",
      "CapacityReservationId",
      "CapacityReservationStatus",
      "ChargeCategory",
      "ChargeClass",
      "ChargeDescription",
      "ChargeFrequency",
      "ChargePeriodEnd",
      "ChargePeriodStart",
      "CommitmentDiscountCategory",
      "CommitmentDiscountId",
      "CommitmentDiscountName",
      "CommitmentDiscountQuantity",
      "CommitmentDiscountStatus",
      "CommitmentDiscountType",
      "CommitmentDiscountUnit",
      "ConsumedQuantity",
      "ConsumedUnit",
      "ContractedCost",
      "ContractedUnitPrice",
      "EffectiveCost",
      "InvoiceId",
      "InvoiceIssuerName",
      "ListCost",
      "ListUnitPrice",
      "PricingCategory",
      "PricingCurrency",
      "PricingCurrencyContractedUnitPrice",
      "PricingCurrencyEffectiveCost",
      "PricingCurrencyListUnitPrice",
      "PricingQuantity",
      "PricingUnit",
      "ProviderName",
      "PublisherName",
      "RegionId",
      "RegionName",
      "ResourceId",
      "ResourceName",
      "ResourceType",
      "ServiceCategory",
      "ServiceName",
      "ServiceSubcategory",
      "SkuId",
      "SkuMeter",
      "SkuPriceDetails",
      "SkuPriceId",
      "SubAccountId",
      "SubAccountName",
      "SubAccountType",
      "Tags",
  };
  return names;
}

namespace {

using Cell = std::optional<std::string>;
using Cells = std::vector<Cell>;

// ---- Value formats --------------------------------------------------------------------------

// attributes/numeric_format.md (NumericFormat-A-002-M … A-011-M): a single integer, decimal or
// E-notation value; no "+", no separators, no fractions, no symbols; "-" only for negatives and
// in a negative exponent.
bool numeric_format(const std::string& s) {
  static const std::regex re(R"(-?(0|[1-9][0-9]*)(\.[0-9]+)?(E-?[0-9]+)?)");
  return std::regex_match(s, re);
}

// attributes/datetime_format.md (DateTimeFormat-A-001-M … A-006-M): "YYYY-MM-DDTHH:mm:ssZ", UTC.
bool datetime_format(const std::string& s) {
  static const std::regex re(R"((\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})Z)");
  std::smatch m;
  if (!std::regex_match(s, m, re)) return false;
  const int month = std::stoi(m[2]), day = std::stoi(m[3]), hour = std::stoi(m[4]);
  const int minute = std::stoi(m[5]), second = std::stoi(m[6]);
  return month >= 1 && month <= 12 && day >= 1 && day <= 31 && hour < 24 && minute < 60 &&
         second < 60;
}

// attributes/currency_format.md (CurrencyFormat-A-001-C): an ISO 4217 three-letter code.
bool currency_format(const std::string& s) {
  static const std::regex re("[A-Z]{3}");
  return std::regex_match(s, re);
}

// attributes/string_handling.md (StringHandling-A-001-M): valid Unicode (UTF-8 here).
bool valid_utf8(const std::string& s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const std::size_t extra = c < 0x80         ? 0
                              : (c >> 5) == 6  ? 1
                              : (c >> 4) == 14 ? 2
                              : (c >> 3) == 30 ? 3
                                               : 9;
    if (extra == 9 || i + extra >= s.size() + (extra ? 0 : 1)) return false;
    for (std::size_t k = 1; k <= extra; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) >> 6) != 2) return false;
    }
    i += 1 + extra;
  }
  return true;
}

// attributes/unit_format.md (UnitFormat-A-001-M … A-004-C).
const std::set<std::string>& data_size_units() {
  static const std::set<std::string> units = {
      "b",  "Kb",  "Mb",  "Gb",  "Tb",  "Pb",  "Eb",  "B",   "KB",  "MB",  "GB",  "TB",  "PB",
      "EB", "Kib", "Mib", "Gib", "Tib", "Pib", "Eib", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  return units;
}
const std::set<std::string>& time_singular() {
  static const std::set<std::string> units = {"Year", "Month", "Day", "Hour", "Minute", "Second"};
  return units;
}
const std::set<std::string>& time_plural() {
  static const std::set<std::string> units = {"Years", "Months",  "Days",
                                              "Hours", "Minutes", "Seconds"};
  return units;
}

std::string lower(std::string s) {
  for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

// A count-based noun: capitalised (A-003-M for listed terms, "A new count-based unit value MUST
// be capitalized"); a listed term in another casing, a data size written out or with a plural
// "s" ("GBs"), or "p" for "per" ("Mbps": composite units MUST use "/") is not one.
bool count_noun(const std::string& w) {
  if (w.empty() || !std::isupper(static_cast<unsigned char>(w[0]))) return false;
  for (char ch : w) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) return false;
  }
  const std::string l = lower(w);
  for (const auto* set : {&data_size_units(), &time_singular(), &time_plural()}) {
    for (const auto& u : *set) {
      if (lower(u) == l && u != w) return false;  // wrong casing
      if (set == &data_size_units() && (w == u + "s" || w == u + "ps")) return false;
    }
  }
  static const std::set<std::string> written_out = {"byte",     "bytes",    "bit",      "bits",
                                                    "kilobyte", "megabyte", "gigabyte", "terabyte",
                                                    "megabit",  "gigabit"};
  return !written_out.count(l);
}
// Plural count nouns (the formats say <plural-units>): an English plural, or a count noun
// that is an acronym ("GPU").
bool plural_count(const std::string& w) {
  if (!count_noun(w)) return false;
  const bool acronym = std::all_of(w.begin(), w.end(), [](char ch) {
    return std::isupper(static_cast<unsigned char>(ch)) ||
           std::isdigit(static_cast<unsigned char>(ch));
  });
  return acronym || w.back() == 's';
}
bool plural_unit(const std::string& w) {
  return data_size_units().count(w) || time_plural().count(w) || plural_count(w);
}
bool singular_unit(const std::string& w) {
  return data_size_units().count(w) || count_noun(w);
}

bool whole_number(const std::string& s) {
  return !s.empty() && s[0] != '0' && std::all_of(s.begin(), s.end(), [](char ch) {
    return std::isdigit(static_cast<unsigned char>(ch));
  });
}

// One of the formats: "<plural-units>", "<singular-unit>-<plural-time-units>",
// "<plural-units>/<singular-time-unit>", "<quantity> <plural-units>",
// "<plural-units>/<interval> <plural-time-units>".
bool unit_format(const std::string& u) {
  if (const auto sp = u.find(' '); sp != std::string::npos && u.find('/') == std::string::npos) {
    return whole_number(u.substr(0, sp)) && plural_unit(u.substr(sp + 1));
  }
  if (const auto slash = u.find('/'); slash != std::string::npos) {
    const std::string left = u.substr(0, slash), right = u.substr(slash + 1);
    if (!plural_unit(left)) return false;
    if (time_singular().count(right)) return true;
    const auto sp = right.find(' ');
    return sp != std::string::npos && whole_number(right.substr(0, sp)) &&
           time_plural().count(right.substr(sp + 1));
  }
  if (const auto dash = u.rfind('-'); dash != std::string::npos) {
    return singular_unit(u.substr(0, dash)) && time_plural().count(u.substr(dash + 1));
  }
  return plural_unit(u);
}

// attributes/key_value_format.md (KeyValueFormat-A-001-M … A-004-M): a JSON object, unique
// keys, values number, string, true, false or null (no object, no array). Returns the keys, or
// nullopt when the text is not such an object.
class KeyValueParser {
 public:
  explicit KeyValueParser(const std::string& s) : s_(s) {}
  std::optional<std::vector<std::string>> keys() {
    std::vector<std::string> out;
    space();
    if (!eat('{')) return std::nullopt;
    space();
    if (eat('}')) return end_ok() ? std::optional(out) : std::nullopt;
    for (;;) {
      space();
      auto key = string();
      if (!key) return std::nullopt;
      out.push_back(*key);
      space();
      if (!eat(':')) return std::nullopt;
      space();
      if (!scalar()) return std::nullopt;
      space();
      if (eat('}')) break;
      if (!eat(',')) return std::nullopt;
    }
    return end_ok() ? std::optional(out) : std::nullopt;
  }

 private:
  bool eat(char c) {
    if (i_ < s_.size() && s_[i_] == c) return ++i_, true;
    return false;
  }
  void space() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  bool end_ok() {
    space();
    return i_ == s_.size();
  }
  std::optional<std::string> string() {
    if (!eat('"')) return std::nullopt;
    std::string out;
    while (i_ < s_.size() && s_[i_] != '"') {
      if (s_[i_] == '\\') ++i_;
      if (i_ < s_.size()) out += s_[i_++];
    }
    if (!eat('"')) return std::nullopt;
    return out;
  }
  bool scalar() {
    if (i_ >= s_.size()) return false;
    if (s_[i_] == '"') return string().has_value();
    for (const char* word : {"true", "false", "null"}) {
      if (s_.compare(i_, std::strlen(word), word) == 0) return i_ += std::strlen(word), true;
    }
    static const std::regex number(R"(-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?)");
    std::size_t j = i_;
    while (j < s_.size() && std::string_view("+-.eE0123456789").find(s_[j]) != std::string::npos) {
      ++j;
    }
    if (j == i_ || !std::regex_match(s_.substr(i_, j - i_), number)) return false;
    i_ = j;
    return true;
  }
  const std::string& s_;
  std::size_t i_ = 0;
};

// columns/skupricedetails.md: the FOCUS-defined SKU price properties.
const std::set<std::string>& sku_price_properties() {
  static const std::set<std::string> keys = {
      "CoreCount",       "DiskMaxIops",    "DiskSpace",   "DiskType",       "GpuCount",
      "InstanceType",    "InstanceSeries", "MemorySize",  "NetworkMaxIops", "NetworkMaxThroughput",
      "OperatingSystem", "Redundancy",     "StorageClass"};
  return keys;
}

bool pascal_case(const std::string& s) {
  return !s.empty() && std::isupper(static_cast<unsigned char>(s[0])) &&
         std::all_of(s.begin(), s.end(),
                     [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)); });
}

// ---- Allowed values -------------------------------------------------------------------------

const std::set<std::string> kChargeCategories = {"Usage", "Purchase", "Tax", "Credit",
                                                 "Adjustment"};  // columns/chargecategory.md
const std::set<std::string> kChargeFrequencies = {"One-Time", "Recurring",
                                                  "Usage-Based"};  // columns/chargefrequency.md
const std::set<std::string> kPricingCategories = {"Standard", "Dynamic", "Committed",
                                                  "Other"};  // columns/pricingcategory.md

// columns/servicesubcategory.md: each subcategory and its one parent ServiceCategory.
const std::map<std::string, std::string>& subcategory_parents() {
  static const std::map<std::string, std::string> parents = [] {
    const std::pair<const char*, const char*> table[] = {
        {"AI and Machine Learning", "Generative AI"},
        {"AI and Machine Learning", "Machine Learning"},
        {"AI and Machine Learning", "Natural Language Processing"},
        {"AI and Machine Learning", "Other (AI and Machine Learning)"},
        {"Analytics", "Analytics Platforms"},
        {"Analytics", "Business Intelligence"},
        {"Analytics", "Data Processing"},
        {"Analytics", "Search"},
        {"Analytics", "Streaming Analytics"},
        {"Analytics", "Other (Analytics)"},
        {"Business Applications", "Productivity and Collaboration"},
        {"Business Applications", "Other (Business Applications)"},
        {"Compute", "Containers"},
        {"Compute", "End User Computing"},
        {"Compute", "Quantum Compute"},
        {"Compute", "Serverless Compute"},
        {"Compute", "Virtual Machines"},
        {"Compute", "Other (Compute)"},
        {"Databases", "Caching"},
        {"Databases", "Data Warehouses"},
        {"Databases", "Ledger Databases"},
        {"Databases", "NoSQL Databases"},
        {"Databases", "Relational Databases"},
        {"Databases", "Time Series Databases"},
        {"Databases", "Other (Databases)"},
        {"Developer Tools", "Developer Platforms"},
        {"Developer Tools", "Continuous Integration and Deployment"},
        {"Developer Tools", "Development Environments"},
        {"Developer Tools", "Source Code Management"},
        {"Developer Tools", "Quality Assurance"},
        {"Developer Tools", "Other (Developer Tools)"},
        {"Identity", "Identity and Access Management"},
        {"Identity", "Other (Identity)"},
        {"Integration", "API Management"},
        {"Integration", "Messaging"},
        {"Integration", "Workflow Orchestration"},
        {"Integration", "Other (Integration)"},
        {"Internet of Things", "IoT Analytics"},
        {"Internet of Things", "IoT Platforms"},
        {"Internet of Things", "Other (Internet of Things)"},
        {"Management and Governance", "Architecture"},
        {"Management and Governance", "Compliance"},
        {"Management and Governance", "Cost Management"},
        {"Management and Governance", "Data Governance"},
        {"Management and Governance", "Disaster Recovery"},
        {"Management and Governance", "Endpoint Management"},
        {"Management and Governance", "Observability"},
        {"Management and Governance", "Support"},
        {"Management and Governance", "Other (Management and Governance)"},
        {"Media", "Content Creation"},
        {"Media", "Gaming"},
        {"Media", "Media Streaming"},
        {"Media", "Mixed Reality"},
        {"Media", "Other (Media)"},
        {"Migration", "Data Migration"},
        {"Migration", "Resource Migration"},
        {"Migration", "Other (Migration)"},
        {"Mobile", "Other (Mobile)"},
        {"Multicloud", "Multicloud Integration"},
        {"Multicloud", "Other (Multicloud)"},
        {"Networking", "Application Networking"},
        {"Networking", "Content Delivery"},
        {"Networking", "Network Connectivity"},
        {"Networking", "Network Infrastructure"},
        {"Networking", "Network Routing"},
        {"Networking", "Network Security"},
        {"Networking", "Other (Networking)"},
        {"Security", "Secret Management"},
        {"Security", "Security Posture Management"},
        {"Security", "Threat Detection and Response"},
        {"Security", "Other (Security)"},
        {"Storage", "Backup Storage"},
        {"Storage", "Block Storage"},
        {"Storage", "File Storage"},
        {"Storage", "Object Storage"},
        {"Storage", "Storage Platforms"},
        {"Storage", "Other (Storage)"},
        {"Web", "Application Platforms"},
        {"Web", "Other (Web)"},
        {"Other", "Other (Other)"},
    };
    std::map<std::string, std::string> m;
    for (const auto& [parent, sub] : table) m[sub] = parent;
    return m;
  }();
  return parents;
}

// ---- Columns --------------------------------------------------------------------------------

// CostAndUsage-D-0xx: the columns that MUST be present (Mandatory), and the Conditional or
// Recommended ones whose condition holds for gpubill (it publishes price lists with unit prices,
// meters usage, bills provisioned typed resources in regions, has more than one pricing
// category, issues provisional invoices).
const std::vector<std::pair<const char*, const char*>> kPresent = {
    {"BilledCost", "CostAndUsage-D-006-M"},
    {"BillingAccountId", "CostAndUsage-D-024-M"},
    {"BillingAccountName", "CostAndUsage-D-005-M"},
    {"BillingCurrency", "CostAndUsage-D-035-M"},
    {"BillingPeriodEnd", "CostAndUsage-D-010-M"},
    {"BillingPeriodStart", "CostAndUsage-D-009-M"},
    {"ChargeCategory", "CostAndUsage-D-008-M"},
    {"ChargeClass", "CostAndUsage-D-026-M"},
    {"ChargeDescription", "CostAndUsage-D-025-M"},
    {"ChargeFrequency", "CostAndUsage-D-027-O"},
    {"ChargePeriodEnd", "CostAndUsage-D-028-M"},
    {"ChargePeriodStart", "CostAndUsage-D-037-M"},
    {"ConsumedQuantity", "CostAndUsage-D-011-C"},
    {"ConsumedUnit", "CostAndUsage-D-066-C"},
    {"ContractedCost", "CostAndUsage-D-030-M"},
    {"ContractedUnitPrice", "CostAndUsage-D-034-C"},
    {"EffectiveCost", "CostAndUsage-D-031-M"},
    {"InvoiceId", "CostAndUsage-D-033-O"},
    {"InvoiceIssuerName", "CostAndUsage-D-023-M"},
    {"ListCost", "CostAndUsage-D-032-M"},
    {"ListUnitPrice", "CostAndUsage-D-004-C"},
    {"PricingCategory", "CostAndUsage-D-022-C"},
    {"PricingQuantity", "CostAndUsage-D-036-M"},
    {"PricingUnit", "CostAndUsage-D-068-M"},
    {"ProviderName", "CostAndUsage-D-038-M"},
    {"PublisherName", "CostAndUsage-D-021-M"},
    {"RegionId", "CostAndUsage-D-063-C"},
    {"RegionName", "CostAndUsage-D-062-C"},
    {"ResourceId", "CostAndUsage-D-043-C"},
    {"ResourceName", "CostAndUsage-D-044-C"},
    {"ResourceType", "CostAndUsage-D-039-C"},
    {"ServiceCategory", "CostAndUsage-D-040-M"},
    {"ServiceName", "CostAndUsage-D-041-M"},
    {"ServiceSubcategory", "CostAndUsage-D-042-O"},
    {"SkuId", "CostAndUsage-D-060-C"},
    {"SkuMeter", "CostAndUsage-D-059-C"},
    {"SkuPriceDetails", "CostAndUsage-D-061-C"},
    {"SkuPriceId", "CostAndUsage-D-058-C"},
};

// Columns that MUST NOT be null (each column's "<Column> MUST NOT be null" rule).
const std::vector<std::pair<const char*, const char*>> kNotNull = {
    {"BilledCost", "BilledCost-C-003-M"},
    {"BillingAccountId", "BillingAccountId-C-001-M"},
    {"BillingAccountName", "BillingAccountName-C-003-C"},
    {"BillingCurrency", "BillingCurrency-C-004-M"},
    {"BillingPeriodEnd", "BillingPeriodEnd-C-003-M"},
    {"BillingPeriodStart", "BillingPeriodStart-C-003-M"},
    {"ChargeCategory", "ChargeCategory-C-002-M"},
    {"ChargeFrequency", "ChargeFrequency-C-002-M"},
    {"ChargePeriodEnd", "ChargePeriodEnd-C-003-M"},
    {"ChargePeriodStart", "ChargePeriodStart-C-003-M"},
    {"ContractedCost", "ContractedCost-C-003-M"},
    {"EffectiveCost", "EffectiveCost-C-003-M"},
    {"InvoiceIssuerName", "InvoiceIssuerName-C-003-M"},
    {"ListCost", "ListCost-C-003-M"},
    {"PricingCurrency", "PricingCurrency-C-004-M"},
    {"PricingCurrencyEffectiveCost", "PricingCurrencyEffectiveCost-C-003-M"},
    {"ProviderName", "ProviderName-C-003-M"},
    {"PublisherName", "PublisherName-C-003-M"},
    {"ServiceCategory", "ServiceCategory-C-002-M"},
    {"ServiceName", "ServiceName-C-003-M"},
    {"ServiceSubcategory", "ServiceSubcategory-C-002-M"},
    // ChargeDescription-C-003-O: SHOULD NOT be null.
    {"ChargeDescription", "ChargeDescription-C-003-O"},
    // InvoiceId-C-005-C: gpubill's charges belong to a provisional invoice per account and month.
    {"InvoiceId", "InvoiceId-C-005-C"},
};

// Null when ChargeCategory is "Tax"; not null when it is "Usage" or "Purchase" and ChargeClass
// is not "Correction" (the rule ids of both).
struct ConditionalNull {
  const char* column;
  const char* null_when_tax;
  const char* not_null_when_priced;
};
const std::vector<ConditionalNull> kPricedColumns = {
    {"ListUnitPrice", "ListUnitPrice-C-004-C", "ListUnitPrice-C-005-C"},
    {"ContractedUnitPrice", "ContractedUnitPrice-C-005-C", "ContractedUnitPrice-C-006-C"},
    {"PricingQuantity", "PricingQuantity-C-004-C", "PricingQuantity-C-005-C"},
    {"PricingCategory", "PricingCategory-C-003-C", "PricingCategory-C-004-C"},
    {"SkuId", "SkuId-C-004-C", "SkuId-C-005-C"},
    {"SkuPriceId", "SkuPriceId-C-004-C", "SkuPriceId-C-005-C"},
    {"PricingCurrencyListUnitPrice", "PricingCurrencyListUnitPrice-C-004-C",
     "PricingCurrencyListUnitPrice-C-005-C"},
    {"PricingCurrencyContractedUnitPrice", "PricingCurrencyContractedUnitPrice-C-004-C",
     "PricingCurrencyContractedUnitPrice-C-005-C"},
};

// Numeric columns (each "<Column> MUST conform to NumericFormat requirements" rule).
const std::vector<std::pair<const char*, const char*>> kDecimals = {
    {"BilledCost", "BilledCost-C-002-M"},
    {"CommitmentDiscountQuantity", "CommitmentDiscountQuantity-C-002-M"},
    {"ConsumedQuantity", "ConsumedQuantity-C-002-M"},
    {"ContractedCost", "ContractedCost-C-002-M"},
    {"ContractedUnitPrice", "ContractedUnitPrice-C-003-M"},
    {"EffectiveCost", "EffectiveCost-C-002-M"},
    {"ListCost", "ListCost-C-002-M"},
    {"ListUnitPrice", "ListUnitPrice-C-002-M"},
    {"PricingCurrencyContractedUnitPrice", "PricingCurrencyContractedUnitPrice-C-002-M"},
    {"PricingCurrencyEffectiveCost", "PricingCurrencyEffectiveCost-C-002-M"},
    {"PricingCurrencyListUnitPrice", "PricingCurrencyListUnitPrice-C-002-M"},
    {"PricingQuantity", "PricingQuantity-C-002-M"},
};
// Unit prices: "MUST be a non-negative decimal value".
const std::vector<std::pair<const char*, const char*>> kNonNegative = {
    {"ListUnitPrice", "ListUnitPrice-C-008-M"},
    {"ContractedUnitPrice", "ContractedUnitPrice-C-009-C"},
    {"PricingCurrencyListUnitPrice", "PricingCurrencyListUnitPrice-C-008-M"},
    {"PricingCurrencyContractedUnitPrice", "PricingCurrencyContractedUnitPrice-C-008-C"},
};
const std::vector<std::pair<const char*, const char*>> kDateTimes = {
    {"BillingPeriodEnd", "BillingPeriodEnd-C-002-M"},
    {"BillingPeriodStart", "BillingPeriodStart-C-002-M"},
    {"ChargePeriodEnd", "ChargePeriodEnd-C-002-M"},
    {"ChargePeriodStart", "ChargePeriodStart-C-002-M"},
};

// The decimal value of a cell, when it is one Decimal can hold (no exponent).
std::optional<Decimal> decimal_of(const Cell& c) {
  if (!c) return std::nullopt;
  return Decimal::try_parse(*c);
}

// a × b == c, exactly (no rounding: the product of two 12-decimal values has 24).
bool product_is(Decimal a, Decimal b, Decimal c) {
  int128_t product = 0, scaled = 0;
  if (__builtin_mul_overflow(a.units(), b.units(), &product)) return false;
  if (__builtin_mul_overflow(c.units(), static_cast<int128_t>(Decimal::kOne), &scaled)) {
    return false;
  }
  return product == scaled;
}

bool is(const Cell& c, const char* value) {
  return c && *c == value;
}

// Every FOCUS 1.2 Cost and Usage column, as a set.
const std::set<std::string>& focus_column_set() {
  static const std::set<std::string> names(focus12_columns().begin(), focus12_columns().end());
  return names;
}

std::set<std::string> all_rule_ids() {
  std::set<std::string> ids = {
      "ColumnHandling-A-001-M",
      "ColumnHandling-A-003-M",
      "ColumnHandling-A-010-M",
      "ColumnHandling-A-012-O",
      "ColumnHandling-A-013-O",
      "ColumnUnique-gpubill",
      "NullHandling-A-002-M",
      "StringHandling-A-001-M",
      "StringHandling-A-007-M",
      "CurrencyFormat-A-001-C",
      "KeyValueFormat-A-001-M",
      "KeyValueFormat-A-002-M",
      "ChargeCategory-C-003-M",
      "ChargeClass-C-005-C",
      "ChargeClass-C-003-C",
      "ChargeClass-C-004-C",
      "ChargeFrequency-C-003-M",
      "ChargeFrequency-C-004-C",
      "PricingCategory-C-007-M",
      "ServiceCategory-C-003-M",
      "ServiceSubcategory-C-003-M",
      "ServiceSubcategory-C-004-M",
      "PricingUnit-C-003-O",
      "PricingUnit-C-005-C",
      "PricingUnit-C-006-C",
      "ConsumedUnit-C-003-O",
      "ConsumedUnit-C-005-C",
      "ConsumedUnit-C-006-C",
      "ConsumedQuantity-C-004-C",
      "ConsumedQuantity-C-006-C",
      "ConsumedQuantity-C-002-M",
      "RegionName-C-004-C",
      "RegionName-C-005-C",
      "ResourceType-C-004-C",
      "ResourceType-C-005-C",
      "ResourceName-C-004-C",
      "BillingAccountType-C-004-C",
      "BillingAccountType-C-005-C",
      "SkuMeter-C-004-C",
      "SkuMeter-C-005-C",
      "SkuMeter-C-006-O",
      "SkuPriceDetails-C-004-C",
      "SkuPriceDetails-C-001-M",
      "SkuPriceDetails-C-002-O",
      "SkuPriceDetails-C-017-C",
      "SkuPriceDetails-C-020-M",
      "SkuPriceDetails-C-007-M",
      "SkuPriceId-C-008-M",
      "InvoiceId-C-007-C",
      "ListCost-C-008-C",
      "ListCost-C-009-C",
      "ContractedCost-C-008-C",
      "ContractedCost-C-009-C",
      "EffectiveCost-C-005-C",
      "EffectiveCost-C-010-C",
      "PricingCurrencyEffectiveCost-C-005-M",
      "PricingCurrencyEffectiveCost-C-006-M",
      "EffectiveCost-amortisation-gpubill",
      "EffectiveCost-total-gpubill",
      "BilledCost-savings-gpubill",
      "InvoiceId-forecast-gpubill",
      "ChargePeriodEnd-C-004-M",
      "BillingPeriodEnd-C-004-M",
      "ColumnOrder-gpubill",
      "CommitmentDiscountCategory-C-003-C",
      "CommitmentDiscountCategory-C-004-C",
      "CommitmentDiscountCategory-C-005-M",
      "CommitmentDiscountId-C-008-C",
      "CommitmentDiscountId-C-007-M",
      "CommitmentDiscountName-C-004-C",
      "CommitmentDiscountName-C-006-C",
      "CommitmentDiscountQuantity-C-005-C",
      "CommitmentDiscountQuantity-C-007-C",
      "CommitmentDiscountStatus-C-003-C",
      "CommitmentDiscountStatus-C-004-C",
      "CommitmentDiscountStatus-C-005-M",
      "CommitmentDiscountType-C-004-C",
      "CommitmentDiscountType-C-005-C",
      "CommitmentDiscountUnit-C-003-M",
      "CommitmentDiscountUnit-C-005-C",
      "CommitmentDiscountUnit-C-006-C",
      "CommitmentDiscountUnit-C-008-M",
      "CommitmentDiscount-amortisation-gpubill",
  };
  for (const auto& [c, id] : kPresent) ids.insert(id);
  for (const auto& [c, id] : kNotNull) ids.insert(id);
  for (const auto& [c, id] : kDecimals) ids.insert(id);
  for (const auto& [c, id] : kNonNegative) ids.insert(id);
  for (const auto& [c, id] : kDateTimes) ids.insert(id);
  for (const auto& p : kPricedColumns) {
    ids.insert(p.null_when_tax);
    ids.insert(p.not_null_when_priced);
  }
  return ids;
}

}  // namespace

const std::set<std::string>& FocusConformance::rule_ids() {
  static const std::set<std::string> ids = all_rule_ids();
  return ids;
}

FocusConformance::FocusConformance(std::vector<std::string> columns)
    : columns_(std::move(columns)) {
  for (std::size_t i = 0; i < columns_.size(); ++i) {
    // ColumnUnique-gpubill: a column appears once (an index must be unambiguous).
    if (!index_.emplace(columns_[i], i).second) fail("ColumnUnique-gpubill", columns_[i], {});
  }
  for (const auto& [column, rule] : kPresent) {
    if (!index_.count(column)) fail(rule, column, {});
  }
  // ColumnOrder-gpubill (issue 12): the FOCUS columns in the specification's order: none
  // after a column that comes later in the specification.
  std::ptrdiff_t previous = -1;
  for (const auto& c : columns_) {
    const auto& spec = focus12_columns();
    const auto at_spec = std::find(spec.begin(), spec.end(), c) - spec.begin();
    if (at_spec == static_cast<std::ptrdiff_t>(spec.size())) continue;
    if (at_spec < previous) fail("ColumnOrder-gpubill", c, {});
    previous = at_spec;
  }
  bool custom_seen = false;
  for (const auto& c : columns_) {
    const bool custom = c.rfind("x_", 0) == 0;
    // ColumnHandling-A-012-O / A-013-O: FOCUS columns first, custom columns after, not mixed.
    if (!custom && custom_seen) fail("ColumnHandling-A-013-O", c, {});
    custom_seen = custom_seen || custom;
    const std::string name = custom ? c.substr(2) : c;
    // ColumnHandling-A-001-M / A-003-M: Pascal case, alphanumeric (A-011-O: custom ones too).
    if (!pascal_case(name))
      fail(custom ? "ColumnHandling-A-003-M" : "ColumnHandling-A-001-M", c, {});
    // ColumnHandling-A-010-M: a column FOCUS does not define is x_-prefixed.
    if (!custom && !focus_column_set().count(c)) fail("ColumnHandling-A-010-M", c, {});
  }
}

const FocusConformance::Cell& FocusConformance::at(const Cells& cells,
                                                   const std::string& column) const {
  static const Cell missing;
  const auto it = index_.find(column);
  if (it == index_.end() || it->second >= cells.size()) return missing;
  return cells[it->second];
}

void FocusConformance::fail(const std::string& rule, const std::string& column, const Cell& value) {
  violations_.push_back(
      {rule, finished_ || rows_ == 0 ? SIZE_MAX : rows_ - 1, column, value.value_or("<null>")});
}

void FocusConformance::row(const Cells& cells) {
  ++rows_;
  check_formats(cells);
  check_nulls(cells);
  check_values(cells);
  check_costs(cells);
  check_periods(cells);
  check_ids(cells);
  check_commitments(cells);
}

void FocusConformance::check_formats(const Cells& cells) {
  for (std::size_t i = 0; i < cells.size() && i < columns_.size(); ++i) {
    if (!cells[i]) continue;
    const std::string& v = *cells[i];
    // NullHandling-A-002-M: no empty string for "no value" (a null is a null).
    if (v.empty()) fail("NullHandling-A-002-M", columns_[i], cells[i]);
    // StringHandling-A-007-M (SHOULD NOT): no string of spaces only.
    else if (std::all_of(v.begin(), v.end(), [](char ch) { return ch == ' '; })) {
      fail("StringHandling-A-007-M", columns_[i], cells[i]);
    }
    // StringHandling-A-001-M.
    if (!valid_utf8(v)) fail("StringHandling-A-001-M", columns_[i], cells[i]);
  }
  for (const auto& [column, rule] : kDecimals) {
    const Cell& c = at(cells, column);
    if (c && !numeric_format(*c)) fail(rule, column, c);
  }
  for (const auto& [column, rule] : kDateTimes) {
    const Cell& c = at(cells, column);
    if (c && !datetime_format(*c)) fail(rule, column, c);
  }
  for (const char* column : {"BillingCurrency", "PricingCurrency"}) {
    const Cell& c = at(cells, column);
    if (c && !currency_format(*c)) fail("CurrencyFormat-A-001-C", column, c);
  }
  // PricingUnit-C-003-O / ConsumedUnit-C-003-O: UnitFormat (UnitFormat-A-001-M … A-004-C).
  if (const Cell& u = at(cells, "PricingUnit"); u && !unit_format(*u)) {
    fail("PricingUnit-C-003-O", "PricingUnit", u);
  }
  if (const Cell& u = at(cells, "ConsumedUnit"); u && !unit_format(*u)) {
    fail("ConsumedUnit-C-003-O", "ConsumedUnit", u);
  }
  // SkuPriceDetails-C-001-M: KeyValueFormat; keys unique (KeyValueFormat-A-002-M); PascalCase
  // (C-002-O); x_ unless FOCUS-defined (C-017-C); FOCUS-defined keys spelled as defined (C-020-M).
  if (const Cell& d = at(cells, "SkuPriceDetails")) {
    const auto keys = KeyValueParser(*d).keys();
    if (!keys) {
      fail("SkuPriceDetails-C-001-M", "SkuPriceDetails", d);
    } else {
      std::set<std::string> seen;
      for (const auto& k : *keys) {
        if (!seen.insert(k).second) fail("KeyValueFormat-A-002-M", "SkuPriceDetails", d);
        const bool custom = k.rfind("x_", 0) == 0;
        if (!pascal_case(custom ? k.substr(2) : k))
          fail("SkuPriceDetails-C-002-O", "SkuPriceDetails", d);
        if (custom) continue;
        if (!sku_price_properties().count(k)) {
          const bool misspelt =
              std::any_of(sku_price_properties().begin(), sku_price_properties().end(),
                          [&](const std::string& p) { return lower(p) == lower(k); });
          fail(misspelt ? "SkuPriceDetails-C-020-M" : "SkuPriceDetails-C-017-C", "SkuPriceDetails",
               d);
        }
      }
    }
  }
}

void FocusConformance::check_nulls(const Cells& cells) {
  // A forecast row (`--forecast`) is on no invoice yet: InvoiceId MUST be null when the charge
  // is not associated with an invoice or a pre-generated provisional invoice (invoiceid.md).
  const bool forecast = is(at(cells, "x_RowKind"), "forecast");
  for (const auto& [column, rule] : kNotNull) {
    if (forecast && std::string_view(column) == "InvoiceId") continue;
    if (index_.count(column) && !at(cells, column)) fail(rule, column, {});
  }
  if (forecast && at(cells, "InvoiceId")) {
    fail("InvoiceId-forecast-gpubill", "InvoiceId", at(cells, "InvoiceId"));
  }
  const Cell& category = at(cells, "ChargeCategory");
  const bool correction = is(at(cells, "ChargeClass"), "Correction");
  const bool priced = (is(category, "Usage") || is(category, "Purchase")) && !correction;
  for (const auto& p : kPricedColumns) {
    const Cell& c = at(cells, p.column);
    if (is(category, "Tax") && c) fail(p.null_when_tax, p.column, c);
    if (priced && !c) fail(p.not_null_when_priced, p.column, c);
  }
  // Pairs: one null exactly when the other is.
  const auto pair = [&](const char* a, const char* b, const char* null_rule, const char* set_rule) {
    const bool has_a = at(cells, a).has_value(), has_b = at(cells, b).has_value();
    if (!has_b && has_a) fail(null_rule, a, at(cells, a));
    if (has_b && !has_a && set_rule) fail(set_rule, a, {});
  };
  pair("PricingUnit", "PricingQuantity", "PricingUnit-C-005-C", "PricingUnit-C-006-C");
  pair("ConsumedUnit", "ConsumedQuantity", "ConsumedUnit-C-005-C", "ConsumedUnit-C-006-C");
  pair("RegionName", "RegionId", "RegionName-C-004-C", "RegionName-C-005-C");
  pair("ResourceType", "ResourceId", "ResourceType-C-004-C", "ResourceType-C-005-C");
  pair("ResourceName", "ResourceId", "ResourceName-C-004-C", nullptr);
  pair("BillingAccountType", "BillingAccountId", "BillingAccountType-C-004-C",
       "BillingAccountType-C-005-C");
  pair("SkuMeter", "SkuId", "SkuMeter-C-004-C", "SkuMeter-C-005-C");
  pair("SkuPriceDetails", "SkuPriceId", "SkuPriceDetails-C-004-C", nullptr);
  // ConsumedQuantity-C-004-C: null unless Usage, and null on a commitment's Unused row; C-006-C:
  // set on Usage that is not a correction nor Unused.
  const Cell& consumed = at(cells, "ConsumedQuantity");
  const bool unused = is(at(cells, "CommitmentDiscountStatus"), "Unused");
  if ((!is(category, "Usage") || unused) && consumed)
    fail("ConsumedQuantity-C-004-C", "ConsumedQuantity", consumed);
  if (is(category, "Usage") && !correction && !unused && !consumed) {
    fail("ConsumedQuantity-C-006-C", "ConsumedQuantity", consumed);
  }
}

void FocusConformance::check_values(const Cells& cells) {
  const auto allowed = [&](const char* column, const std::set<std::string>& values,
                           const char* rule) {
    const Cell& c = at(cells, column);
    if (c && !values.count(*c)) fail(rule, column, c);
  };
  allowed("ChargeCategory", kChargeCategories, "ChargeCategory-C-003-M");
  allowed("ChargeFrequency", kChargeFrequencies, "ChargeFrequency-C-003-M");
  allowed("PricingCategory", kPricingCategories, "PricingCategory-C-007-M");
  allowed("ChargeClass", {"Correction"}, "ChargeClass-C-005-C");
  // ChargeFrequency-C-004-C: a Purchase is not Usage-Based.
  if (is(at(cells, "ChargeCategory"), "Purchase") &&
      is(at(cells, "ChargeFrequency"), "Usage-Based")) {
    fail("ChargeFrequency-C-004-C", "ChargeFrequency", at(cells, "ChargeFrequency"));
  }
  // ServiceCategory-C-003-M; ServiceSubcategory-C-003-M and C-004-M (its one parent).
  static const std::set<std::string> categories = [] {
    std::set<std::string> s;
    for (const auto& [sub, parent] : subcategory_parents()) s.insert(parent);
    return s;
  }();
  allowed("ServiceCategory", categories, "ServiceCategory-C-003-M");
  if (const Cell& sub = at(cells, "ServiceSubcategory")) {
    const auto it = subcategory_parents().find(*sub);
    if (it == subcategory_parents().end()) {
      fail("ServiceSubcategory-C-003-M", "ServiceSubcategory", sub);
    } else if (!is(at(cells, "ServiceCategory"), it->second.c_str())) {
      fail("ServiceSubcategory-C-004-M", "ServiceSubcategory", sub);
    }
  }
  for (const auto& [column, rule] : kNonNegative) {
    const auto d = decimal_of(at(cells, column));
    if (d && d->sign() < 0) fail(rule, column, at(cells, column));
  }
}

void FocusConformance::check_costs(const Cells& cells) {
  const Cell& category = at(cells, "ChargeCategory");
  const bool correction = is(at(cells, "ChargeClass"), "Correction");
  const auto billed = decimal_of(at(cells, "BilledCost"));
  const auto effective = decimal_of(at(cells, "EffectiveCost"));
  const auto quantity = decimal_of(at(cells, "PricingQuantity"));
  // ListCost-C-009-C (= ListUnitPrice-C-010-C, PricingQuantity-C-009-C) and ContractedCost-C-009-C
  // (= ContractedUnitPrice-C-011-C): cost = unit price × PricingQuantity, unless a correction.
  // ListCost-C-008-C, ContractedCost-C-008-C: without a unit price, a charge unrelated to others
  // (Credit, Adjustment) costs its BilledCost.
  const auto cost_rule = [&](const char* cost_column, const char* price_column,
                             const char* product_rule, const char* billed_rule) {
    const auto cost = decimal_of(at(cells, cost_column));
    const auto price = decimal_of(at(cells, price_column));
    if (!cost) return;
    if (price && quantity && !correction && !product_is(*price, *quantity, *cost)) {
      fail(product_rule, cost_column, at(cells, cost_column));
    }
    if (!price && billed && (is(category, "Credit") || is(category, "Adjustment")) &&
        *cost != *billed) {
      fail(billed_rule, cost_column, at(cells, cost_column));
    }
  };
  cost_rule("ListCost", "ListUnitPrice", "ListCost-C-009-C", "ListCost-C-008-C");
  cost_rule("ContractedCost", "ContractedUnitPrice", "ContractedCost-C-009-C",
            "ContractedCost-C-008-C");
  // EffectiveCost-C-010-C: a charge that is neither Usage nor Purchase costs its BilledCost.
  if (billed && effective && !is(category, "Usage") && !is(category, "Purchase") &&
      *effective != *billed) {
    fail("EffectiveCost-C-010-C", "EffectiveCost", at(cells, "EffectiveCost"));
  }
  // EffectiveCost-C-005-C, PricingCurrencyEffectiveCost-C-005-M: 0 on a purchase that covers
  // future charges, here a Purchase over a period (ChargePeriodEnd after ChargePeriodStart) that
  // costs something.
  const Cell& start = at(cells, "ChargePeriodStart");
  const Cell& end = at(cells, "ChargePeriodEnd");
  const bool covers =
      is(category, "Purchase") && start && end && *end > *start && billed && !billed->is_zero();
  if (covers && effective && !effective->is_zero()) {
    fail("EffectiveCost-C-005-C", "EffectiveCost", at(cells, "EffectiveCost"));
  }
  const auto pricing_effective = decimal_of(at(cells, "PricingCurrencyEffectiveCost"));
  if (covers && pricing_effective && !pricing_effective->is_zero()) {
    fail("PricingCurrencyEffectiveCost-C-005-M", "PricingCurrencyEffectiveCost",
         at(cells, "PricingCurrencyEffectiveCost"));
  }
  // PricingCurrencyEffectiveCost-C-006-M: in the PricingCurrency; the same number as
  // EffectiveCost when that is the BillingCurrency.
  if (at(cells, "PricingCurrency") == at(cells, "BillingCurrency") && pricing_effective &&
      effective && *pricing_effective != *effective) {
    fail("PricingCurrencyEffectiveCost-C-006-M", "PricingCurrencyEffectiveCost",
         at(cells, "PricingCurrencyEffectiveCost"));
  }
  // BilledCost-savings-gpubill (issue 12): a priced row never bills more than its list cost.
  const auto list = decimal_of(at(cells, "ListCost"));
  if (billed && list && quantity && billed->sign() >= 0 && *billed > *list) {
    fail("BilledCost-savings-gpubill", "BilledCost", at(cells, "BilledCost"));
  }
  // Amortisation (EffectiveCost, "Concerning Amortization Approaches"; the sums as in
  // EffectiveCost-C-012-C): what a purchase billed, its amortisation rows spread, to the unit.
  const Cell& charge = at(cells, "x_ChargeId");
  const Cell& commitment = at(cells, "CommitmentDiscountId");
  if (commitment && billed && effective) {
    // A commitment's purchases are amortised onto its Used and Unused rows (check_commitments).
  } else if (charge && billed && effective) {
    if (covers) purchase_amount_[*charge] += *billed;
    // A forecast row (`--forecast`, the hours after the replay's end) is an amortisation row
    // of the same purchase, exported apart.
    const Cell& kind = at(cells, "x_RowKind");
    if (is(kind, "amortisation") || is(kind, "forecast")) amortised_sum_[*charge] += *effective;
  }
  if (const Cell& ccy = at(cells, "BillingCurrency"); ccy && billed && effective) {
    billed_total_[*ccy] += *billed;
    effective_total_[*ccy] += *effective;
  }
}

void FocusConformance::check_periods(const Cells& cells) {
  const Cell& start = at(cells, "ChargePeriodStart");
  const Cell& end = at(cells, "ChargePeriodEnd");
  const Cell& billing_start = at(cells, "BillingPeriodStart");
  const Cell& billing_end = at(cells, "BillingPeriodEnd");
  if (!start || !end || !billing_start || !billing_end) return;
  // The fixed-width UTC text orders as the instants do (DateTimeFormat-A-003-M, checked above).
  // ChargePeriodEnd-C-004-M: the exclusive end of the charge period, so not before its start.
  if (*end < *start) fail("ChargePeriodEnd-C-004-M", "ChargePeriodEnd", end);
  // BillingPeriodEnd-C-004-M: the exclusive end of the billing period, after its start.
  if (*billing_end <= *billing_start)
    fail("BillingPeriodEnd-C-004-M", "BillingPeriodEnd", billing_end);
  // ChargeClass-C-003-C / C-004-C: a row outside a correction belongs to the billing period its
  // charge period starts in; a correction corrects a period already invoiced, an earlier one.
  const bool correction = is(at(cells, "ChargeClass"), "Correction");
  const bool inside = *start >= *billing_start && *start < *billing_end;
  if (!correction && !inside) fail("ChargeClass-C-004-C", "ChargeClass", at(cells, "ChargeClass"));
  if (correction && *start >= *billing_start)
    fail("ChargeClass-C-003-C", "ChargeClass", at(cells, "ChargeClass"));
}

void FocusConformance::check_ids(const Cells& cells) {
  // SkuPriceId-C-008-M: one parent SkuId per SkuPriceId; SkuPriceDetails-C-007-M: the same
  // details for a SkuPriceId; SkuMeter-C-006-O: the same meter for a SkuId.
  const auto same = [&](std::map<std::string, std::string>& seen, const char* key_column,
                        const char* value_column, const char* rule) {
    const Cell& key = at(cells, key_column);
    if (!key) return;
    const std::string value = at(cells, value_column).value_or("<null>");
    const auto [it, inserted] = seen.emplace(*key, value);
    if (!inserted && it->second != value) fail(rule, value_column, at(cells, value_column));
  };
  same(sku_parent_, "SkuPriceId", "SkuId", "SkuPriceId-C-008-M");
  same(sku_details_, "SkuPriceId", "SkuPriceDetails", "SkuPriceDetails-C-007-M");
  same(sku_meter_, "SkuId", "SkuMeter", "SkuMeter-C-006-O");
  // InvoiceId-C-007-C: an invoice belongs to one billing account (and, here, one billing period).
  if (const Cell& invoice = at(cells, "InvoiceId")) {
    const std::string owner = at(cells, "BillingAccountId").value_or("") + "|" +
                              at(cells, "BillingPeriodStart").value_or("");
    const auto [it, inserted] = invoice_owner_.emplace(*invoice, owner);
    if (!inserted && it->second != owner) fail("InvoiceId-C-007-C", "InvoiceId", invoice);
  }
}

void FocusConformance::check_commitments(const Cells& cells) {
  const Cell& id = at(cells, "CommitmentDiscountId");
  const Cell& category = at(cells, "ChargeCategory");
  const Cell& status = at(cells, "CommitmentDiscountStatus");
  const Cell& quantity = at(cells, "CommitmentDiscountQuantity");
  const Cell& unit = at(cells, "CommitmentDiscountUnit");
  const bool correction = is(at(cells, "ChargeClass"), "Correction");
  // Category, Name, Status, Type: null without an id (C-003/C-004); with one, Category and Type
  // are set (C-004/C-005), and a Name, since every commitment here has one (Name-C-006-C).
  const auto null_without_id = [&](const char* column, const char* rule) {
    if (!id && at(cells, column)) fail(rule, column, at(cells, column));
  };
  const auto set_with_id = [&](const char* column, const char* rule) {
    if (id && !at(cells, column)) fail(rule, column, {});
  };
  null_without_id("CommitmentDiscountCategory", "CommitmentDiscountCategory-C-003-C");
  null_without_id("CommitmentDiscountName", "CommitmentDiscountName-C-004-C");
  null_without_id("CommitmentDiscountStatus", "CommitmentDiscountStatus-C-003-C");
  null_without_id("CommitmentDiscountType", "CommitmentDiscountType-C-004-C");
  set_with_id("CommitmentDiscountCategory", "CommitmentDiscountCategory-C-004-C");
  set_with_id("CommitmentDiscountName", "CommitmentDiscountName-C-006-C");
  set_with_id("CommitmentDiscountType", "CommitmentDiscountType-C-005-C");
  const Cell& cat = at(cells, "CommitmentDiscountCategory");
  if (cat && !is(cat, "Spend") && !is(cat, "Usage")) {
    fail("CommitmentDiscountCategory-C-005-M", "CommitmentDiscountCategory", cat);
  }
  // Status: set on a commitment's Usage rows (C-004-C), Used or Unused (C-005-M).
  if (id && is(category, "Usage") && !status)
    fail("CommitmentDiscountStatus-C-004-C", "CommitmentDiscountStatus", {});
  if (status && !is(status, "Used") && !is(status, "Unused")) {
    fail("CommitmentDiscountStatus-C-005-M", "CommitmentDiscountStatus", status);
  }
  // Quantity: set on a commitment's Usage and Purchase rows but corrections (C-005-C), null on
  // every other row (C-007-C); Unit null exactly when Quantity is (C-005-C, C-006-C), in the
  // UnitFormat (C-003-M, a SHOULD) and the same for every row of an id (C-008-M).
  const bool priced = is(category, "Usage") || is(category, "Purchase");
  if (id && priced && !correction && !quantity) {
    fail("CommitmentDiscountQuantity-C-005-C", "CommitmentDiscountQuantity", {});
  }
  if (quantity && !(id && priced)) {
    fail("CommitmentDiscountQuantity-C-007-C", "CommitmentDiscountQuantity", quantity);
  }
  if (!quantity && unit) fail("CommitmentDiscountUnit-C-005-C", "CommitmentDiscountUnit", unit);
  if (quantity && !unit) fail("CommitmentDiscountUnit-C-006-C", "CommitmentDiscountUnit", {});
  if (unit && !unit_format(*unit))
    fail("CommitmentDiscountUnit-C-003-M", "CommitmentDiscountUnit", unit);
  if (!id) return;
  // Id: SHOULD be fully qualified (C-008-C: here <provider>/<account>/<id>); unique within the
  // provider (C-007-M: one id never names commitments of two providers or accounts).
  if (id->find('/') == std::string::npos)
    fail("CommitmentDiscountId-C-008-C", "CommitmentDiscountId", id);
  CommitmentState& c = commitments_[*id];
  const std::string owner =
      at(cells, "ProviderName").value_or("") + "|" + at(cells, "BillingAccountId").value_or("");
  if (c.owner.empty()) c.owner = owner;
  if (c.owner != owner) fail("CommitmentDiscountId-C-007-M", "CommitmentDiscountId", id);
  if (unit) {
    if (c.unit.empty()) c.unit = *unit;
    if (c.unit != *unit) fail("CommitmentDiscountUnit-C-008-M", "CommitmentDiscountUnit", unit);
  }
  // What it billed (purchases: upfront, fees) and what its usage rows amortised (EffectiveCost
  // above BilledCost on Used rows, all of it on Unused rows).
  const auto billed = decimal_of(at(cells, "BilledCost"));
  const auto effective = decimal_of(at(cells, "EffectiveCost"));
  if (!billed || !effective) return;
  c.currency = at(cells, "BillingCurrency").value_or("");
  if (is(category, "Purchase")) c.purchased += *billed;
  if (is(category, "Usage")) c.amortised += *effective - *billed;
}

void FocusConformance::finish() {
  finished_ = true;
  for (const auto& [charge, amount] : purchase_amount_) {
    const auto it = amortised_sum_.find(charge);
    const Decimal spread = it == amortised_sum_.end() ? Decimal{} : it->second;
    if (spread != amount) {
      fail("EffectiveCost-amortisation-gpubill", "EffectiveCost",
           "charge " + charge + ": " + spread.to_string() + " of " + amount.to_string());
    }
  }
  for (const auto& [charge, spread] : amortised_sum_) {
    if (!purchase_amount_.count(charge)) {
      fail("EffectiveCost-amortisation-gpubill", "EffectiveCost",
           "charge " + charge + ": amortised without a purchase");
    }
  }
  // CommitmentDiscount-amortisation-gpubill: a commitment's Used and Unused rows never amortise
  // more than it billed (upfront and fees); what is left is its term still to come.
  std::map<std::string, Decimal> unamortised;  // by BillingCurrency
  for (const auto& [id, c] : commitments_) {
    if (c.amortised > c.purchased) {
      fail("CommitmentDiscount-amortisation-gpubill", "EffectiveCost",
           id + ": " + c.amortised.to_string() + " amortised of " + c.purchased.to_string());
    }
    unamortised[c.currency] += c.purchased - c.amortised;
  }
  // EffectiveCost-total-gpubill: amortisation moves cost in time, never adds or loses any (a
  // commitment's term after the data's end is not in it).
  for (const auto& [ccy, billed] : billed_total_) {
    if (effective_total_[ccy] + unamortised[ccy] != billed) {
      fail("EffectiveCost-total-gpubill", "EffectiveCost",
           ccy + ": " + effective_total_[ccy].to_string() + " vs billed " + billed.to_string());
    }
  }
}

std::map<std::string, std::size_t> FocusConformance::counts() const {
  std::map<std::string, std::size_t> out;
  for (const auto& v : violations_) ++out[v.rule];
  return out;
}

std::string FocusConformance::summary(std::size_t max_listed) const {
  std::ostringstream out;
  out << violations_.size() << " violation(s) in " << rows_ << " rows";
  for (const auto& [rule, n] : counts()) out << "\n  " << rule << ": " << n;
  for (std::size_t i = 0; i < violations_.size() && i < max_listed; ++i) {
    const auto& v = violations_[i];
    out << "\n  e.g. " << v.rule << " row "
        << (v.row == SIZE_MAX ? std::string("-") : std::to_string(v.row)) << " " << v.column
        << " = " << v.value;
  }
  return out.str();
}

FocusConformance check_focus(const std::vector<std::string>& columns,
                             const std::vector<std::vector<std::optional<std::string>>>& rows) {
  FocusConformance checker(columns);
  for (const auto& r : rows) checker.row(r);
  checker.finish();
  return checker;
}

FocusConformance check_focus_export(Database& db) {
  FocusConformance checker(focus_columns());
  const auto lines = query_charges(db);
  for (const FocusPart part : {FocusPart::billed, FocusPart::forecast}) {
    for_each_focus_row(
        db, lines, [&](const FocusRow& row) { checker.row(row); }, part);
  }
  checker.finish();
  return checker;
}

}  // namespace gpubill::testing
