#include "base/text_check.hpp"

#include <cstdint>

namespace gpubill::text_check {

namespace {

// Decodes one UTF-8 sequence at text[i]; returns its length, or 0 when it is invalid.
std::size_t decode(std::string_view text, std::size_t i, std::uint32_t& cp) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char b0 = byte(i);
  std::size_t len;
  std::uint32_t min;
  if (b0 < 0x80) {
    cp = b0;
    return 1;
  } else if ((b0 & 0xE0) == 0xC0) {
    len = 2, cp = b0 & 0x1F, min = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3, cp = b0 & 0x0F, min = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4, cp = b0 & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (i + len > text.size()) return 0;
  for (std::size_t k = 1; k < len; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

std::string hex(std::uint32_t cp) {
  static const char* digits = "0123456789ABCDEF";
  std::string out = "U+";
  for (int shift = 12; shift >= 0; shift -= 4) out += digits[(cp >> shift) & 0xF];
  return out;
}

}  // namespace

std::string escaped(std::string_view text) {
  static const char* digits = "0123456789ABCDEF";
  const auto hex_byte = [](std::string& out, unsigned char b) {
    out += "\\x";
    out += digits[b >> 4];
    out += digits[b & 0xF];
  };
  std::string out;
  out.reserve(text.size());
  std::uint32_t cp = 0;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t len = decode(text, i, cp);
    if (len == 0) {
      hex_byte(out, static_cast<unsigned char>(text[i]));
      ++i;
      continue;
    }
    const bool control = (cp < 0x20 && cp != '\t' && cp != '\n') || (cp >= 0x7F && cp <= 0x9F);
    for (std::size_t k = 0; k < len; ++k) {
      if (control) {
        hex_byte(out, static_cast<unsigned char>(text[i + k]));
      } else {
        out += text[i + k];
      }
    }
    i += len;
  }
  return out;
}

std::optional<std::size_t> invalid_utf8_at(std::string_view text) {
  std::uint32_t cp = 0;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t len = decode(text, i, cp);
    if (len == 0) return i;
    i += len;
  }
  return std::nullopt;
}

std::optional<std::string> problem(std::string_view text, std::size_t max_bytes) {
  if (text.size() > max_bytes) {
    return "is " + std::to_string(text.size()) + " bytes long; at most " +
           std::to_string(max_bytes) + " are allowed";
  }
  std::uint32_t cp = 0;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t len = decode(text, i, cp);
    if (len == 0) {
      return "is not valid UTF-8 (byte " + std::to_string(i + 1) + ")";
    }
    if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F)) {
      return "contains the control character " + hex(cp) + " (byte " + std::to_string(i + 1) + ")";
    }
    i += len;
  }
  return std::nullopt;
}

namespace {

// Characters that show nothing or reorder what follows: zero-width spaces and joiners, the
// word joiner, the byte order mark, and the bidirectional marks, embeddings, overrides and
// isolates (Unicode UAX #9: U+061C, U+200E–U+200F, U+202A–U+202E, U+2066–U+2069).
bool invisible(std::uint32_t cp) {
  return (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2060 && cp <= 0x2069) || cp == 0x061C || cp == 0xFEFF || cp == 0x180E;
}

// White space of Unicode's White_Space property (tab and newline are control characters).
bool space(std::uint32_t cp) {
  return cp == 0x20 || cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) ||
         cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000;
}

}  // namespace

std::optional<std::string> name_problem(std::string_view text, std::size_t max_bytes) {
  if (auto why = problem(text, max_bytes)) return why;
  bool all_space = true;
  std::uint32_t cp = 0;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t len = decode(text, i, cp);
    if (invisible(cp)) {
      return "contains the invisible character " + hex(cp) + " (byte " + std::to_string(i + 1) +
             "): two names that look the same would be different";
    }
    all_space = all_space && space(cp);
    i += len;
  }
  if (all_space) return std::string("is only white space");
  return std::nullopt;
}

}  // namespace gpubill::text_check
