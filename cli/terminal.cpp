// The width of the terminal stdout is, for text tables (output.hpp, terminal_layout).
#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "output.hpp"

namespace gpubill::cli {

TextLayout terminal_layout(bool wide) {
  // A pipe or a file gets whole cells: it is read by programs, or by people who can scroll.
  if (wide || ::isatty(STDOUT_FILENO) == 0) return TextLayout{0};
  winsize ws{};
  if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return TextLayout{ws.ws_col};
  if (const char* columns = std::getenv("COLUMNS")) {
    char* end = nullptr;
    const long n = std::strtol(columns, &end, 10);
    if (end != columns && *end == '\0' && n > 0 && n < 100000) {
      return TextLayout{static_cast<std::size_t>(n)};
    }
  }
  return TextLayout{80};
}

}  // namespace gpubill::cli
