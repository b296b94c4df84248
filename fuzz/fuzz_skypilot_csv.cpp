// libFuzzer: a SkyPilot catalog CSV, converted against the bundled catalog. Bad input must end
// in gpubill::Error, never a crash.
#include <cstdint>
#include <string_view>

#include "fuzz_support.hpp"
#include "gpubill/base/errors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  gpubill::SkyPilotOptions options;
  options.as_of = "2025-06-01";
  try {
    (void)gpubill::parse_skypilot_csv(std::string_view(reinterpret_cast<const char*>(data), size),
                                      "fuzz.csv", options, gpubill::fuzz::bundled_catalog());
  } catch (const gpubill::Error&) {
  }
  return 0;
}
