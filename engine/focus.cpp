// FinOps FOCUS 1.2 export (focus.hpp).
#include "gpubill/focus.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <ostream>
#include <tuple>

#include "gpubill/csv.hpp"
#include "gpubill/errors.hpp"
#include "gpubill/rules.hpp"
#include "ledger_rows.hpp"
#include "store.hpp"

namespace gpubill {

using namespace ledger_rows;

namespace {

// FOCUS 1.2 Cost and Usage columns, in the specification's order (the column list of
// FOCUS_Spec v1.2, specification/columns, in the FinOps Foundation's FOCUS_Spec
// repository), with their feature level.
struct SpecColumn {
  const char* name;
  bool mandatory;
};
constexpr SpecColumn kSpecColumns[] = {
    {"AvailabilityZone", false},
    {"BilledCost", true},
    {"BillingAccountId", true},
    {"BillingAccountName", true},
    {"BillingAccountType", false},
    {"BillingCurrency", true},
    {"BillingPeriodEnd", true},
    {"BillingPeriodStart", true},
    {"CapacityReservationId", false},
    {"CapacityReservationStatus", false},
    {"ChargeCategory", true},
    {"ChargeClass", true},
    {"ChargeDescription", true},
    {"ChargeFrequency", false},
    {"ChargePeriodEnd", true},
    {"ChargePeriodStart", true},
    {"CommitmentDiscountCategory", false},
    {"CommitmentDiscountId", false},
    {"CommitmentDiscountName", false},
    {"CommitmentDiscountQuantity", false},
    {"CommitmentDiscountStatus", false},
    {"CommitmentDiscountType", false},
    {"CommitmentDiscountUnit", false},
    {"ConsumedQuantity", false},
    {"ConsumedUnit", false},
    {"ContractedCost", true},
    {"ContractedUnitPrice", false},
    {"EffectiveCost", true},
    {"InvoiceId", false},
    {"InvoiceIssuerName", true},
    {"ListCost", true},
    {"ListUnitPrice", false},
    {"PricingCategory", false},
    {"PricingCurrency", false},
    {"PricingCurrencyContractedUnitPrice", false},
    {"PricingCurrencyEffectiveCost", false},
    {"PricingCurrencyListUnitPrice", false},
    {"PricingQuantity", true},
    {"PricingUnit", true},
    {"ProviderName", true},
    {"PublisherName", true},
    {"RegionId", false},
    {"RegionName", false},
    {"ResourceId", false},
    {"ResourceName", false},
    {"ResourceType", false},
    {"ServiceCategory", true},
    {"ServiceName", true},
    {"ServiceSubcategory", false},
    {"SkuId", false},
    {"SkuMeter", false},
    {"SkuPriceDetails", false},
    {"SkuPriceId", false},
    {"SubAccountId", false},
    {"SubAccountName", false},
    {"SubAccountType", false},
    {"Tags", false},
};

// gpubill's trace of each row.
constexpr const char* kCustomColumns[] = {
    "x_ChargeId",    "x_SettlementIndex", "x_ChargeKind",     "x_Component",
    "x_BillingMode", "x_InstanceType",    "x_PriceId",        "x_PolicyId",
    "x_DiscountId",  "x_ExactCost",       "x_RoundingAmount", "x_EventSeqs",
};

using Cell = std::optional<std::string>;

struct Classification {
  const char* category;
  const char* frequency;
};

Classification classify(const std::string& kind) {
  if (kind == "settlement" || kind == "minimum_charge") return {"Usage", "Usage-Based"};
  if (kind == "auto_renewal") return {"Purchase", "Recurring"};
  if (kind == "sustained_use_discount") return {"Credit", "Recurring"};
  if (kind == "prepaid_order" || kind == "renewal" || kind == "upgrade" || kind == "refund") {
    return {"Purchase", "One-Time"};
  }
  return {"Adjustment", "One-Time"};
}

Cell pricing_category(const std::string& mode) {
  if (mode == "payg" || mode == "prepaid") return "Standard";
  if (mode == "spot") return "Dynamic";
  if (mode.rfind("reserved", 0) == 0) return "Committed";
  return "Other";
}

// FOCUS UnitFormat names for gpubill's units.
std::string focus_unit(const std::string& unit) {
  // Time units, plain ("second") or per thing ("gb_hour" = GB-Hours).
  static const std::map<std::string, std::string, std::less<>> times = {
      {"second", "Seconds"}, {"minute", "Minutes"}, {"hour", "Hours"},
      {"day", "Days"},       {"month", "Months"},   {"year", "Years"},
  };
  static const std::map<std::string, std::string, std::less<>> things = {
      {"gb", "GB"},     {"mb", "MB"},   {"tb", "TB"},     {"mbps", "Mbps"},
      {"gbps", "Gbps"}, {"gpu", "GPU"}, {"vcpu", "vCPU"}, {"core", "Core"},
  };
  const auto thing = [&](std::string_view name) {
    const auto it = things.find(name);
    if (it != things.end()) return it->second;
    std::string out(name);
    if (!out.empty()) out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0])));
    return out;
  };
  if (unit.empty()) return "Units";
  if (const auto it = times.find(unit); it != times.end()) return it->second;
  const auto pos = unit.rfind('_');
  if (pos != std::string::npos) {
    if (const auto it = times.find(std::string_view(unit).substr(pos + 1)); it != times.end()) {
      return thing(std::string_view(unit).substr(0, pos)) + "-" + it->second;
    }
  }
  return thing(unit);
}

struct ServiceNames {
  const char* category;
  const char* subcategory;
  const char* service;
  const char* resource_type;
  const char* meter;
};

ServiceNames service_of(const std::string& component) {
  if (component == "system_disk") {
    return {"Storage", "Disk", "Cloud Block Storage", "Disk", "System Disk"};
  }
  if (component == "data_disk") {
    return {"Storage", "Disk", "Cloud Block Storage", "Disk", "Data Disk"};
  }
  if (component == "bandwidth") {
    return {"Networking", "Other (Networking)", "Public Network Bandwidth", "Bandwidth",
            "Bandwidth"};
  }
  return {"Compute", "Virtual Machines", "GPU Cloud Server", "Virtual Machine", "Compute"};
}

// "GB-Hours" → "GB-Hour", for "per …" in descriptions.
std::string singular(std::string unit) {
  for (const char* plural : {"Seconds", "Minutes", "Hours", "Days", "Months", "Years"}) {
    if (unit.ends_with(plural)) {
      unit.pop_back();
      break;
    }
  }
  return unit;
}

// "GN8.LARGE56 compute settlement (payg): 1800 Seconds at 15.09 CNY/Hour", then the note replay
// wrote (how an upgrade, a refund or a minimum was computed).
std::string describe(const ChargeLine& c) {
  std::string kind = c.kind;
  std::replace(kind.begin(), kind.end(), '_', ' ');
  std::string component = c.component;
  std::replace(component.begin(), component.end(), '_', ' ');
  std::string out =
      (c.instance_type.empty() ? std::string() : c.instance_type + " ") + component + " " + kind;
  if (!c.mode.empty()) out += " (" + c.mode + ")";
  out += ": " + c.quantity.to_string() + " " + focus_unit(c.unit) + " at " +
         c.unit_price.to_string() + " " + c.currency.to_string() + "/" +
         singular(focus_unit(c.price_unit));
  if (!c.note.empty()) out += "; " + c.note;
  return out;
}

std::string join_seqs(const std::vector<std::int64_t>& seqs) {
  std::string out;
  for (auto s : seqs) out += (out.empty() ? "" : ",") + std::to_string(s);
  return out;
}

// Catalog facts looked up once per provider, region and price row.
class Facts {
 public:
  explicit Facts(SQLite::Database& db) : db_(db) {}

  const ProviderFacts& provider(const std::string& id) {
    auto it = providers_.find(id);
    if (it == providers_.end()) {
      auto facts = provider_facts(db_, id);
      if (!facts) facts = ProviderFacts{id, id.empty() ? "Unknown" : id, "UTC"};
      it = providers_.emplace(id, std::move(*facts)).first;
    }
    return it->second;
  }

  const Calendar& calendar(const std::string& zone) {
    auto it = calendars_.find(zone);
    if (it == calendars_.end()) it = calendars_.emplace(zone, Calendar(zone)).first;
    return it->second;
  }

  const Cell& region(const std::string& provider, const std::string& region) {
    const auto key = std::make_pair(provider, region);
    auto it = regions_.find(key);
    if (it == regions_.end()) {
      Cell name;
      if (!region.empty()) name = region_name(db_, provider, region);
      it = regions_.emplace(key, std::move(name)).first;
    }
    return it->second;
  }

  // The subject a price row prices (instance type, GPU, disk or bandwidth kind).
  const Cell& price_subject(std::string_view table, std::int64_t id) {
    const auto key = std::make_pair(std::string(table), id);
    auto it = subjects_.find(key);
    if (it == subjects_.end()) {
      Cell subject;
      const std::string column = table == "price" ? "subject" : "kind";
      SQLite::Statement q(db_,
                          "SELECT " + column + " FROM " + std::string(table) + " WHERE id = ?");
      q.bind(1, static_cast<int64_t>(id));
      if (q.executeStep()) subject = q.getColumn(0).getString();
      it = subjects_.emplace(key, std::move(subject)).first;
    }
    return it->second;
  }

 private:
  SQLite::Database& db_;
  std::map<std::string, ProviderFacts> providers_;
  std::map<std::string, Calendar> calendars_;
  std::map<std::pair<std::string, std::string>, Cell> regions_;
  std::map<std::pair<std::string, std::int64_t>, Cell> subjects_;
};

std::vector<Cell> focus_row(const ChargeLine& c, Facts& facts) {
  const auto& provider = facts.provider(c.provider);
  const Calendar& calendar = facts.calendar(provider.billing_time_zone);
  const Classification cls = classify(c.kind);
  const ServiceNames service = service_of(c.component);
  const std::string ccy = c.currency.to_string();
  const bool usage = std::string_view(cls.category) == "Usage";

  // Pricing quantity and list cost, so that ListUnitPrice × PricingQuantity = ListCost.
  Decimal pricing_quantity = c.quantity;
  Decimal list_unit_price = c.unit_price;
  Decimal list_cost = c.exact_amount;
  std::string pricing_unit = focus_unit(c.price_unit);
  if (c.kind == "cycle_rounding" || c.kind == "sustained_use_discount") {
    // The rounding of a day's or month's settlement record, or a month's sustained-use credit:
    // an amount of its own, not a price × quantity (the usage rows bill the use).
    pricing_unit = "Units";
    pricing_quantity = Decimal(c.billed_amount.sign() < 0 ? -1 : 1);
    list_unit_price = c.billed_amount.sign() < 0 ? -c.billed_amount : c.billed_amount;
    list_cost = c.billed_amount;
  } else if (per_second_of_hourly(c.unit, c.price_unit)) {
    // GPU-seconds at a price per GPU-hour are GPU-Hours, whatever the price row calls its unit.
    pricing_unit = focus_unit(std::string(unit_prefix(c.unit)) + "hour");
    pricing_quantity = Decimal::divide(c.quantity, 3600, Decimal::kScale, RoundingMode::half_even);
  } else if (c.kind == "upgrade" && c.unit == "second" && c.price_unit == "month" &&
             c.unit_price.sign() > 0 && c.quantity.round(0, RoundingMode::down) == c.quantity) {
    // An upgrade: the monthly price difference × the remaining months (days / (365/12)), as
    // rules::upgrade_charge counts them; ListCost is before a term discount.
    const auto u = rules::upgrade_charge(Money::zero(c.currency), Money(c.unit_price, c.currency),
                                         c.quantity.truncate_to_int(), Decimal(1), BillingPolicy{});
    pricing_unit = "Months";
    pricing_quantity = u.remaining_months;
    list_cost = u.exact.amount();
  } else if (c.unit == c.price_unit && c.kind != "refund" && c.exact_amount.sign() >= 0) {
    list_cost = c.unit_price * c.quantity;  // an order: the list price before a term discount
  } else if (c.unit_price.sign() >= 0 && c.unit_price * c.quantity == c.exact_amount) {
    pricing_unit = focus_unit(c.unit);
  } else {
    // The row's amount is not price × quantity (e.g. a refund of what remains of an order):
    // one unit of the amount itself.
    pricing_unit = "Units";
    pricing_quantity = Decimal(c.exact_amount.sign() < 0 ? -1 : 1);
    list_unit_price = c.exact_amount.sign() < 0 ? -c.exact_amount : c.exact_amount;
    list_cost = c.exact_amount;
  }
  const std::string billed = c.billed_amount.to_string();

  std::string sku_subject = c.instance_type;
  std::optional<std::string> sku_price_id;
  if (c.price_id) {
    const auto table = price_table_for(c.component);
    if (const auto& subject = facts.price_subject(table, *c.price_id)) sku_subject = *subject;
    sku_price_id = std::string(table) + "/" + std::to_string(*c.price_id);
  }
  Cell sku_id;
  if (!sku_subject.empty()) sku_id = c.provider + "/" + c.component + "/" + sku_subject;

  Cell resource_id;
  if (!c.instance.empty()) {
    resource_id = c.component == "compute" || c.component.empty() ? c.instance
                                                                  : c.instance + "/" + c.component;
  }
  const Instant billing_start = calendar.month_start(c.period_start);
  const Instant billing_end = calendar.next_month_start(c.period_start);
  const Cell region_id = c.region.empty() ? Cell{} : Cell{c.region};

  std::vector<Cell> row = {
      Cell{},                                         // AvailabilityZone
      billed,                                         // BilledCost
      c.account,                                      // BillingAccountId
      c.account,                                      // BillingAccountName
      std::string("Cloud Account"),                   // BillingAccountType
      ccy,                                            // BillingCurrency
      format_instant(billing_end),                    // BillingPeriodEnd
      format_instant(billing_start),                  // BillingPeriodStart
      Cell{},                                         // CapacityReservationId
      Cell{},                                         // CapacityReservationStatus
      std::string(cls.category),                      // ChargeCategory
      Cell{},                                         // ChargeClass
      describe(c),                                    // ChargeDescription
      std::string(cls.frequency),                     // ChargeFrequency
      format_instant(c.period_end),                   // ChargePeriodEnd
      format_instant(c.period_start),                 // ChargePeriodStart
      Cell{},                                         // CommitmentDiscountCategory
      Cell{},                                         // CommitmentDiscountId
      Cell{},                                         // CommitmentDiscountName
      Cell{},                                         // CommitmentDiscountQuantity
      Cell{},                                         // CommitmentDiscountStatus
      Cell{},                                         // CommitmentDiscountType
      Cell{},                                         // CommitmentDiscountUnit
      usage ? Cell{c.quantity.to_string()} : Cell{},  // ConsumedQuantity
      usage ? Cell{focus_unit(c.unit)} : Cell{},      // ConsumedUnit
      list_cost.to_string(),                          // ContractedCost
      list_unit_price.to_string(),                    // ContractedUnitPrice
      billed,                                         // EffectiveCost
      Cell{},                                         // InvoiceId
      provider.name,                                  // InvoiceIssuerName
      list_cost.to_string(),                          // ListCost
      list_unit_price.to_string(),                    // ListUnitPrice
      pricing_category(c.mode),                       // PricingCategory
      ccy,                                            // PricingCurrency
      list_unit_price.to_string(),                    // PricingCurrencyContractedUnitPrice
      billed,                                         // PricingCurrencyEffectiveCost
      list_unit_price.to_string(),                    // PricingCurrencyListUnitPrice
      pricing_quantity.to_string(),                   // PricingQuantity
      pricing_unit,                                   // PricingUnit
      provider.name,                                  // ProviderName
      provider.name,                                  // PublisherName
      region_id,                                      // RegionId
      region_id ? facts.region(c.provider, c.region) : Cell{},  // RegionName
      resource_id,                                              // ResourceId
      resource_id,                                              // ResourceName
      resource_id ? Cell{service.resource_type} : Cell{},       // ResourceType
      std::string(service.category),                            // ServiceCategory
      std::string(service.service),                             // ServiceName
      std::string(service.subcategory),                         // ServiceSubcategory
      sku_id,                                                   // SkuId
      sku_id ? Cell{service.meter} : Cell{},                    // SkuMeter
      Cell{},                                                   // SkuPriceDetails
      sku_price_id,                                             // SkuPriceId
      Cell{},                                                   // SubAccountId
      Cell{},                                                   // SubAccountName
      Cell{},                                                   // SubAccountType
      Cell{},                                                   // Tags
      // x_ columns
      std::to_string(c.id),                                           // x_ChargeId
      std::to_string(c.run_index),                                    // x_SettlementIndex
      c.kind,                                                         // x_ChargeKind
      c.component,                                                    // x_Component
      c.mode.empty() ? Cell{} : Cell{c.mode},                         // x_BillingMode
      c.instance_type.empty() ? Cell{} : Cell{c.instance_type},       // x_InstanceType
      c.price_id ? Cell{std::to_string(*c.price_id)} : Cell{},        // x_PriceId
      c.policy_id ? Cell{std::to_string(*c.policy_id)} : Cell{},      // x_PolicyId
      c.discount_id ? Cell{std::to_string(*c.discount_id)} : Cell{},  // x_DiscountId
      c.exact_amount.to_string(),                                     // x_ExactCost
      c.rounding.to_string(),                                         // x_RoundingAmount
      c.event_seqs.empty() ? Cell{} : Cell{join_seqs(c.event_seqs)},  // x_EventSeqs
  };
  return row;
}

}  // namespace

const std::vector<std::string>& focus_spec_columns() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& c : kSpecColumns) v.emplace_back(c.name);
    return v;
  }();
  return names;
}

const std::vector<std::string>& focus_mandatory_columns() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& c : kSpecColumns) {
      if (c.mandatory) v.emplace_back(c.name);
    }
    return v;
  }();
  return names;
}

const std::vector<std::string>& focus_columns() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v = focus_spec_columns();
    for (const char* c : kCustomColumns) v.emplace_back(c);
    return v;
  }();
  return names;
}

void for_each_focus_row(Database& db, const std::vector<ChargeLine>& lines,
                        const std::function<void(const FocusRow&)>& row) {
  try {
    Facts facts(sqlite(db));
    const std::size_t width = focus_columns().size();
    for_each_hourly(lines, [&](const ChargeLine& line) {
      const auto cells = focus_row(line, facts);
      if (cells.size() != width) {
        throw std::logic_error("FOCUS export: a row does not have one cell per column");
      }
      row(cells);
    });
  } catch (const SQLite::Exception& e) {
    throw StoreError(std::string("FOCUS export: ") + e.what());
  }
}

FocusTable focus_export(Database& db, const std::vector<ChargeLine>& lines) {
  FocusTable table;
  table.columns = focus_columns();
  for_each_focus_row(db, lines, [&](const FocusRow& row) { table.rows.push_back(row); });
  return table;
}

void write_focus_csv(std::ostream& out, Database& db, const std::vector<ChargeLine>& lines) {
  const auto& columns = focus_columns();
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (i) out << ',';
    out << csv_cell(columns[i]);
  }
  out << '\n';
  for_each_focus_row(db, lines, [&](const FocusRow& row) {
    for (std::size_t i = 0; i < row.size(); ++i) {
      if (i) out << ',';
      if (row[i]) out << csv_cell(*row[i]);
    }
    out << '\n';
  });
}

}  // namespace gpubill
