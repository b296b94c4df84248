// Percentage changes between two exact amounts (catalog diff, quote comparison): computed in
// Decimal, rounded only to be shown.
#pragma once

#include <optional>
#include <string>

#include "gpubill/base/decimal.hpp"

namespace gpubill {

// How change percentages are shown: 2 decimals, half away from zero (12.345 % → 12.35 %).
inline constexpr int kPercentDecimals = 2;
inline constexpr RoundingMode kPercentRounding = RoundingMode::half_up;

// 100 × (after − before) ÷ before, rounded half-even to 12 decimals (Decimal's precision);
// nullopt when before is 0 (no percentage of nothing).
std::optional<Decimal> percent_change(const Decimal& before, const Decimal& after);

// The percentage as shown: "+20.00", "-8.33", "0.00" (kPercentDecimals, kPercentRounding).
std::string percent_text(const Decimal& percent);

// A share (0.125) as a percentage to show: "12.50 %" (2 decimals, half-even).
std::string share_percent_text(const Decimal& share);

}  // namespace gpubill
