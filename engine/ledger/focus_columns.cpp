// The FOCUS export's columns (focus.hpp).
#include "gpubill/ledger/focus.hpp"

namespace gpubill {

namespace {

// FOCUS 1.2 Cost and Usage columns, in the specification's order, with their feature level:
// FinOps-Open-Cost-and-Usage-Spec/FOCUS_Spec@7296e3146fb931ee32b6496fa6e4200e7f4384f7 (tag
// v1.2), specification/columns/*.md.
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

// gpubill's trace of each row (focus.hpp).
constexpr const char* kCustomColumns[] = {
    "x_ChargeId",    "x_SettlementIndex", "x_RowKind",        "x_ChargeKind",         "x_Component",
    "x_BillingMode", "x_InstanceType",    "x_PriceId",        "x_PriceEffectiveFrom", "x_PolicyId",
    "x_DiscountId",  "x_ExactCost",       "x_RoundingAmount", "x_EventSeqs",
};

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

}  // namespace gpubill
