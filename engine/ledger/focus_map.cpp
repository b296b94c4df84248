// Charge lines as FOCUS values (focus_map.hpp).
#include "ledger/focus_map.hpp"

#include <cctype>
#include <map>

#include "gpubill/catalog/policy.hpp"
#include "gpubill/rules/rules.hpp"
#include "ledger/focus_amortisation.hpp"
#include "ledger/ledger_rows.hpp"

namespace gpubill::focus_map {

using focus_amortisation::exact_product;
using focus_amortisation::quantum_for_factor;

Classification classify(std::string_view kind) {
  if (kind == "settlement" || kind == "minimum_charge") return {"Usage", "Usage-Based"};
  if (kind == "commitment_covered" || kind == "commitment_unused") return {"Usage", "Usage-Based"};
  if (kind == "commitment_purchase") return {"Purchase", "One-Time"};
  if (kind == "commitment_fee") return {"Purchase", "Recurring"};
  if (kind == "auto_renewal") return {"Purchase", "Recurring"};
  if (kind == "sustained_use_discount") return {"Credit", "Recurring"};
  if (kind == "interruption_credit") return {"Credit", "One-Time"};
  if (kind == "prepaid_order" || kind == "renewal" || kind == "upgrade" || kind == "refund") {
    return {"Purchase", "One-Time"};
  }
  return {"Adjustment", "One-Time"};
}

bool covers_future_use(std::string_view kind) noexcept {
  return kind == "prepaid_order" || kind == "renewal" || kind == "auto_renewal" ||
         kind == "upgrade" || kind == "refund";
}

std::string pricing_category(std::string_view mode) {
  if (mode == "payg" || mode == "prepaid") return "Standard";
  if (mode == "spot") return "Dynamic";
  if (mode.starts_with("reserved")) return "Committed";
  return "Other";
}

std::string focus_unit(std::string_view unit) {
  static const std::map<std::string, std::string, std::less<>> whole = {
      {"mbps_second", "Mb"},
      {"mbps_hour", "3600 Mb"},
      {"", "Units"},
  };
  // Time units, plain ("second") or per thing ("gb_hour" = GB-Hours).
  static const std::map<std::string, std::string, std::less<>> times = {
      {"second", "Seconds"}, {"minute", "Minutes"}, {"hour", "Hours"},
      {"day", "Days"},       {"month", "Months"},   {"year", "Years"},
  };
  static const std::map<std::string, std::string, std::less<>> things = {
      {"gb", "GB"}, {"mb", "MB"}, {"tb", "TB"}, {"gpu", "GPU"}, {"vcpu", "vCPU"}, {"core", "Core"},
  };
  if (const auto it = whole.find(unit); it != whole.end()) return it->second;
  if (const auto it = times.find(unit); it != times.end()) return it->second;
  const auto thing = [&](std::string_view name) {
    if (const auto it = things.find(name); it != things.end()) return it->second;
    std::string out(name);
    out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0])));
    return out;
  };
  const auto pos = unit.rfind('_');
  if (pos != std::string_view::npos && pos > 0) {
    if (const auto it = times.find(unit.substr(pos + 1)); it != times.end()) {
      return thing(unit.substr(0, pos)) + "-" + it->second;
    }
  }
  return "Units";  // a count gpubill has no FOCUS name for (an order, a lifetime)
}

ServiceNames service_of(std::string_view component) {
  if (component == "system_disk") {
    return {"Storage", "Block Storage", "Cloud Block Storage", "Disk", "System Disk"};
  }
  if (component == "data_disk") {
    return {"Storage", "Block Storage", "Cloud Block Storage", "Disk", "Data Disk"};
  }
  if (component == "bandwidth") {
    return {"Networking", "Network Connectivity", "Public Network Bandwidth", "Bandwidth",
            "Bandwidth"};
  }
  return {"Compute", "Virtual Machines", "GPU Cloud Server", "Virtual Machine", "Compute"};
}

namespace {

// One Unit (or −1 Unit) of the amount itself: for amounts that are not a price × quantity.
Pricing one_unit_of(Decimal amount) {
  const bool negative = amount.sign() < 0;
  return {"Units", negative ? -amount : amount, Decimal(negative ? -1 : 1), amount};
}

}  // namespace

Pricing pricing_of(const ChargeLine& c) {
  using ledger_rows::per_second_of_hourly;
  using ledger_rows::unit_prefix;
  if (c.kind == "commitment_unused") return {"Units", Decimal{}, Decimal(1), Decimal{}};
  if (c.kind == "commitment_covered") {
    // The on-demand usage it offsets, at its price: a negative quantity and cost.
    ChargeLine usage = c;
    usage.kind = "settlement";
    Pricing p = pricing_of(usage);
    p.quantity = -p.quantity;
    p.list_cost = -p.list_cost;
    return p;
  }
  if (c.kind == "minimum_charge") {
    // The top-up to the policy's minimum per instance lifetime: one Instance at that amount.
    auto p = one_unit_of(c.exact_amount);
    p.unit = "Instances";
    return p;
  }
  if (per_second_of_hourly(c.unit, c.price_unit) && c.unit_price.sign() >= 0) {
    const Decimal quantum = quantum_for_factor(c.unit_price);
    const Decimal hours = Decimal::divide(c.quantity, 3600, 12, RoundingMode::up);
    // Round up to the quantum (12 − the price's decimals): the product stays exact.
    const Decimal quantity = Decimal::from_units(
        divide_rounded(hours.units(), quantum.units(), RoundingMode::up) * quantum.units());
    if (const auto cost = exact_product(c.unit_price, quantity)) {
      return {focus_unit(std::string(unit_prefix(c.unit)) + "hour"), c.unit_price, quantity, *cost};
    }
  }
  if (c.kind == "upgrade" && c.unit == "second" && c.price_unit == "month" &&
      c.unit_price.sign() > 0 && c.quantity.round(0, RoundingMode::down) == c.quantity) {
    // The monthly price difference × the remaining months (days / (365/12)), as
    // rules::upgrade_charge counts them; ListCost is before a term discount.
    const auto u = rules::upgrade_charge(Money::zero(c.currency), Money(c.unit_price, c.currency),
                                         c.quantity.truncate_to_int(), Decimal(1), BillingPolicy{});
    if (exact_product(c.unit_price, u.remaining_months) == u.exact.amount()) {
      return {"Months", c.unit_price, u.remaining_months, u.exact.amount()};
    }
  }
  if (c.unit_price.sign() >= 0 && c.kind != "refund" && c.exact_amount.sign() >= 0) {
    // An order: the list price × months, before a term discount; or any price × quantity.
    const auto cost = exact_product(c.unit_price, c.quantity);
    const bool order = c.unit == c.price_unit;
    if (cost && (order || *cost == c.exact_amount) && c.quantity.sign() >= 0) {
      return {focus_unit(c.unit), c.unit_price, c.quantity, *cost};
    }
  }
  return one_unit_of(c.exact_amount);
}

}  // namespace gpubill::focus_map
