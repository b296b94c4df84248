// libFuzzer: decimals, amounts with a currency, currency codes and instants. Bad input must
// end in gpubill::Error (or an empty optional), never a crash; a decimal that parses must
// print and parse back to itself.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "gpubill/base/decimal.hpp"
#include "gpubill/base/errors.hpp"
#include "gpubill/base/money.hpp"
#include "gpubill/base/time.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (const auto d = gpubill::Decimal::try_parse(text)) {
    if (gpubill::Decimal::parse(d->to_string()) != *d) std::abort();
  }
  const std::string s(text);
  try {
    (void)gpubill::Money::parse(s);
  } catch (const gpubill::Error&) {
  }
  try {
    (void)gpubill::Currency::parse(s);
  } catch (const gpubill::Error&) {
  }
  for (bool allow_date : {false, true}) {
    try {
      const gpubill::Instant t = gpubill::parse_instant(s, allow_date);
      if (gpubill::parse_instant(gpubill::format_instant(t)) != t) std::abort();
    } catch (const gpubill::Error&) {
    }
  }
  return 0;
}
