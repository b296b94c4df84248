// libFuzzer: a catalog file (JSON). Bad input must end in gpubill::Error, never a crash.
#include <cstdint>
#include <string_view>

#include "gpubill/base/errors.hpp"
#include "gpubill/catalog/catalog_import.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    (void)gpubill::parse_catalog_json(std::string_view(reinterpret_cast<const char*>(data), size),
                                      "fuzz.json");
  } catch (const gpubill::Error&) {
  }
  return 0;
}
