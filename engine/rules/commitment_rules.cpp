// Commitments applied to usage (gpubill/rules/commitment_rules.hpp).
#include "gpubill/rules/commitment_rules.hpp"

#include <array>
#include <string>
#include <utility>

namespace gpubill::rules {

std::int64_t normalization_quarters(std::string_view type) {
  // doc_source/apply_ri.md, "Instance size flexibility determined by normalization factor".
  static constexpr std::array<std::pair<std::string_view, std::int64_t>, 20> kSizes = {{
      {"nano", 1},       {"micro", 2},       {"small", 4},       {"medium", 8},
      {"large", 16},     {"xlarge", 32},     {"2xlarge", 64},    {"3xlarge", 96},
      {"4xlarge", 128},  {"6xlarge", 192},   {"8xlarge", 256},   {"9xlarge", 288},
      {"10xlarge", 320}, {"12xlarge", 384},  {"16xlarge", 512},  {"18xlarge", 576},
      {"24xlarge", 768}, {"32xlarge", 1024}, {"56xlarge", 1792}, {"112xlarge", 3584},
  }};
  // "Normalization factor for bare metal instances".
  static constexpr std::array<std::pair<std::string_view, std::int64_t>, 24> kMetal = {{
      {"a1.metal", 128},   {"m5zn.metal", 384}, {"z1d.metal", 384},  {"c6g.metal", 512},
      {"c6gd.metal", 512}, {"i3.metal", 512},   {"m6g.metal", 512},  {"m6gd.metal", 512},
      {"r6g.metal", 512},  {"r6gd.metal", 512}, {"x2gd.metal", 512}, {"c5n.metal", 576},
      {"c5.metal", 768},   {"c5d.metal", 768},  {"i3en.metal", 768}, {"m5.metal", 768},
      {"m5d.metal", 768},  {"m5dn.metal", 768}, {"m5n.metal", 768},  {"r5.metal", 768},
      {"r5b.metal", 768},  {"r5d.metal", 768},  {"r5dn.metal", 768}, {"r5n.metal", 768},
  }};
  for (const auto& [name, q] : kMetal) {
    if (name == type) return q;
  }
  const std::size_t dot = type.rfind('.');
  if (dot == std::string_view::npos) return 0;
  const std::string_view size = type.substr(dot + 1);
  for (const auto& [name, q] : kSizes) {
    if (name == size) return q;
  }
  return 0;
}

bool ri_size_flexible(std::string_view provider, std::string_view program, std::string_view family,
                      std::string_view instance_type) {
  if (provider != "aws" || program != "reserved_instance") return false;
  for (std::string_view excluded : {"g4ad", "g4dn", "g5", "g5g"}) {
    if (family == excluded) return false;
  }
  return normalization_quarters(instance_type) > 0;
}

Decimal commitment_upfront_share(Decimal total, std::int64_t term_hours, std::int64_t k) {
  if (total.is_zero() || term_hours <= 0) return Decimal{};
  int128_t quantum = Decimal::kOne / 100;
  while (quantum > 1 && total.units() % quantum != 0) quantum /= 10;
  const int128_t steps = total.units() / quantum;
  const auto cumulative = [&](std::int64_t hours) {
    return divide_rounded(steps * hours, term_hours, RoundingMode::down) * quantum;
  };
  return Decimal::from_units(cumulative(k + 1) - cumulative(k));
}

}  // namespace gpubill::rules
