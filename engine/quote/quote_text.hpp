// Private to the engine: small text helpers shared by the quote's notes and explanations.
#pragma once

#include <cstdint>
#include <string>

#include "gpubill/catalog/catalog.hpp"

namespace gpubill::quote_detail {

// Seconds as hours: "720", "500.5", "0.34" (two decimals, half-up, trailing zeros dropped).
std::string hours_text(std::int64_t seconds);
// "1 USD = 7.2688 CNY (row #17 dated 2023-06-30; as of 2023-06-30; source: ECB …)", the
// source left out when with_source is false.
std::string fx_text(const FxRate& fx, bool with_source = true);
// An amount with exactly two decimals, half-up: "12974.40 CNY".
std::string money2(const Money& m);

}  // namespace gpubill::quote_detail
