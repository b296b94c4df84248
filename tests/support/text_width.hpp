// Display width of UTF-8 text as a terminal shows it (East Asian wide characters take two
// columns), for tests of table widths.
#pragma once

#include <cstddef>
#include <string_view>

namespace gpubill::testing {

inline std::size_t display_columns(std::string_view s) {
  std::size_t width = 0;
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    std::size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    char32_t cp = c;
    if (len == 3 && i + 2 < s.size()) {
      cp = ((c & 0x0Fu) << 12) | ((s[i + 1] & 0x3Fu) << 6) | (s[i + 2] & 0x3Fu);
    }
    const bool wide =
        len == 4 ||
        (len == 3 && ((cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF) ||
                      (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
                      (cp >= 0xFF00 && cp <= 0xFF60)));
    width += wide ? 2 : 1;
    i += len;
  }
  return width;
}

}  // namespace gpubill::testing
