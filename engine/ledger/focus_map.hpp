// Private to the engine: how a gpubill charge line maps onto FOCUS 1.2 values (focus.hpp) —
// its charge category and frequency, pricing category, units, service names, and the pricing
// columns (PricingUnit, ListUnitPrice, PricingQuantity) chosen so that their product is exact.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "gpubill/base/decimal.hpp"
#include "gpubill/ledger/ledger.hpp"

namespace gpubill::focus_map {

struct Classification {
  const char* category;   // ChargeCategory
  const char* frequency;  // ChargeFrequency
};
Classification classify(std::string_view kind);

// A purchase that pays for a period ahead (prepaid orders, renewals, upgrades) or returns what
// is left of one (refunds): its EffectiveCost is spread over the hours it covers.
bool covers_future_use(std::string_view kind) noexcept;

// PricingCategory of a billing mode: payg and prepaid Standard, spot Dynamic, reserved_*
// Committed, anything else Other.
std::string pricing_category(std::string_view mode);

// A commitment's own rows (commitment_purchase, _fee, _covered, _unused; replay_sim_commit.cpp).
inline bool is_commitment(std::string_view kind) noexcept {
  return kind.starts_with("commitment_");
}

// The FOCUS UnitFormat name of a gpubill unit: "second" → "Seconds", "gb_hour" → "GB-Hours",
// "gpu_second" → "GPU-Seconds", "month" → "Months"; bandwidth, metered in Mbps × seconds, is
// megabits of capacity: "mbps_second" → "Mb", "mbps_hour" → "3600 Mb" (an Mbps-hour).
std::string focus_unit(std::string_view unit);

struct ServiceNames {
  const char* category;     // ServiceCategory
  const char* subcategory;  // ServiceSubcategory
  const char* service;      // ServiceName
  const char* resource_type;
  const char* meter;  // SkuMeter
};
ServiceNames service_of(std::string_view component);

// The pricing columns of a Usage or Purchase line: unit × unit_price = list_cost exactly.
struct Pricing {
  std::string unit;    // PricingUnit
  Decimal unit_price;  // ListUnitPrice = ContractedUnitPrice, never negative
  Decimal quantity;    // PricingQuantity
  Decimal list_cost;   // ListCost = ContractedCost
};
// A per-second meter at an hourly price is priced in the price list's unit (Hours, GPU-Hours,
// GB-Hours): quantity = seconds / 3600 rounded up to the decimals that keep unit_price ×
// quantity exact (12 minus the price's decimals), so list_cost is never below the exact amount.
// An order is its list price × months (before a term discount); a minimum charge is one
// Instance at the amount charged; anything else that is not price × quantity is one Unit of its
// amount (−1 for a negative amount).
Pricing pricing_of(const ChargeLine& c);

}  // namespace gpubill::focus_map
