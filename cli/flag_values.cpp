// Values of flags that several subcommands share, checked so that errors name the flag.
#include "commands.hpp"
#include "gpubill/errors.hpp"

namespace gpubill::cli {

std::optional<Instant> instant_flag(const std::string& flag,
                                    const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  if (text->empty()) {
    throw InputError("command line", "", flag,
                     "empty; give an RFC 3339 instant or a date YYYY-MM-DD (00:00 UTC)");
  }
  try {
    return parse_instant(*text, /*allow_date=*/true);
  } catch (const ParseError& e) {
    throw InputError("command line", "", flag, e.what());
  }
}

}  // namespace gpubill::cli
