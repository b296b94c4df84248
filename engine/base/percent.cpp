#include "gpubill/base/percent.hpp"

namespace gpubill {

std::optional<Decimal> percent_change(const Decimal& before, const Decimal& after) {
  if (before.is_zero()) return std::nullopt;
  return Decimal::divide((after - before) * 100, before, Decimal::kScale, RoundingMode::half_even);
}

std::string percent_text(const Decimal& percent) {
  const Decimal shown = percent.round(kPercentDecimals, kPercentRounding);
  return (shown.sign() > 0 ? "+" : "") + shown.to_string(kPercentDecimals);
}

std::string share_percent_text(const Decimal& share) {
  return (share * Decimal(100)).round(2, RoundingMode::half_even).to_string(2) + " %";
}

}  // namespace gpubill
