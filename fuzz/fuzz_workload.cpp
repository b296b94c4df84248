// libFuzzer: a workload file, parsed and resolved against the bundled catalog. Bad input must
// end in gpubill::Error, never a crash.
#include <cstdint>
#include <string_view>

#include "fuzz_support.hpp"
#include "gpubill/base/errors.hpp"
#include "gpubill/quote/workload.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const gpubill::Workload w = gpubill::parse_workload_json(
        std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.json");
    (void)gpubill::resolve_workload(w, gpubill::fuzz::bundled_catalog());
  } catch (const gpubill::Error&) {
  }
  return 0;
}
