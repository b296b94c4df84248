// libFuzzer: one usage-log line (JSON). Bad input must end in gpubill::Error, never a crash;
// a line that parses must survive its canonical JSON unchanged.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "gpubill/base/errors.hpp"
#include "gpubill/replay/events.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  gpubill::UsageEvent event;
  try {
    event = gpubill::parse_event_json(line, "fuzz.jsonl", 1);
  } catch (const gpubill::Error&) {
    return 0;
  }
  const std::string canonical = gpubill::to_json(event);
  if (gpubill::to_json(gpubill::parse_event_json(canonical, "canonical.jsonl", 1)) != canonical) {
    std::abort();  // the stored payload would not read back as the same event
  }
  return 0;
}
