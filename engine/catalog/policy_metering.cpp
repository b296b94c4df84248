#include "catalog/policy_metering.hpp"

#include <string>

#include "gpubill/base/errors.hpp"

namespace gpubill {

std::string_view to_string(SpotPriceBasis basis) noexcept {
  switch (basis) {
    case SpotPriceBasis::per_second:
      return "per_second";
    case SpotPriceBasis::deal_then_per_second:
      return "deal_then_per_second";
    case SpotPriceBasis::hour_start:
      break;
  }
  return "hour_start";
}

SpotPriceBasis parse_spot_price_basis(std::string_view text) {
  if (text == "hour_start") return SpotPriceBasis::hour_start;
  if (text == "per_second") return SpotPriceBasis::per_second;
  if (text == "deal_then_per_second") return SpotPriceBasis::deal_then_per_second;
  throw ParseError("unknown spot price basis '" + std::string(text) +
                   "' (expected hour_start, per_second or deal_then_per_second)");
}

std::string_view to_string(UsageRounding rounding) noexcept {
  return rounding == UsageRounding::down_carry ? "down_carry" : "settlement";
}

UsageRounding parse_usage_rounding(std::string_view text) {
  if (text == "settlement") return UsageRounding::settlement;
  if (text == "down_carry") return UsageRounding::down_carry;
  throw ParseError("unknown usage rounding '" + std::string(text) +
                   "' (expected settlement or down_carry)");
}

void read_metering_policy_fields(const json_input::Fields& f, BillingPolicy& p) {
  if (f.has("usage_rounding")) {
    const std::string text = f.text("usage_rounding");
    try {
      p.usage_rounding = parse_usage_rounding(text);
    } catch (const ParseError& e) {
      f.fail("usage_rounding", e.what());
    }
  }
  if (f.has("spot_price_basis")) {
    const std::string text = f.text("spot_price_basis");
    try {
      p.spot_price_basis = parse_spot_price_basis(text);
    } catch (const ParseError& e) {
      f.fail("spot_price_basis", e.what());
    }
  }
  // A month of 28 to 31 days.
  p.quote_month_hours = f.integer_or("quote_month_hours", p.quote_month_hours, 672, 744);
  // At most a day: a minimum is a few seconds or minutes of a volume's life.
  p.disk_min_charge_seconds =
      f.integer_or("disk_min_charge_seconds", p.disk_min_charge_seconds, 0, 86400);
  p.spot_interrupted_free_seconds =
      f.integer_or("spot_interrupted_free_seconds", p.spot_interrupted_free_seconds, 0, 86400);
}

void write_metering_policy_fields(store::Connection& db,
                                  const std::vector<BillingPolicy>& policies) {
  store::Statement q(
      db,
      "UPDATE policy SET spot_price_basis = ?, quote_month_hours = ?, usage_rounding = ?, "
      "disk_min_charge_seconds = ?, spot_interrupted_free_seconds = ? WHERE provider = ? AND "
      "effective_from = ?");
  for (const auto& p : policies) {
    q.reset();
    q.bind(1, std::string(to_string(p.spot_price_basis)));
    q.bind(2, p.quote_month_hours);
    q.bind(3, std::string(to_string(p.usage_rounding)));
    q.bind(4, p.disk_min_charge_seconds);
    q.bind(5, p.spot_interrupted_free_seconds);
    q.bind(6, p.provider);
    q.bind(7, static_cast<int64_t>(p.period.from.time_since_epoch().count()));
    q.exec();
  }
}

void read_metering_policy_fields(store::Connection& db, std::vector<BillingPolicy>& policies) {
  store::Statement q(db,
                     "SELECT spot_price_basis, quote_month_hours, usage_rounding, "
                     "disk_min_charge_seconds, spot_interrupted_free_seconds FROM policy WHERE "
                     "id = ?");
  for (auto& p : policies) {
    q.reset();
    q.bind(1, static_cast<int64_t>(p.id));
    if (!q.executeStep()) continue;
    const std::string basis = q.getColumn(0).getString();
    try {
      p.spot_price_basis = parse_spot_price_basis(basis);
    } catch (const ParseError& e) {
      throw StoreError("policy " + std::to_string(p.id) + ": spot_price_basis: " + e.what());
    }
    p.quote_month_hours = q.getColumn(1).getInt();
    const std::string rounding = q.getColumn(2).getString();
    try {
      p.usage_rounding = parse_usage_rounding(rounding);
    } catch (const ParseError& e) {
      throw StoreError("policy " + std::to_string(p.id) + ": usage_rounding: " + e.what());
    }
    p.disk_min_charge_seconds = q.getColumn(3).getInt();
    p.spot_interrupted_free_seconds = q.getColumn(4).getInt();
  }
}

}  // namespace gpubill
