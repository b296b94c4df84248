#include "json_cells.hpp"

#include <optional>

namespace gpubill::cli {

namespace {

// The length of the valid UTF-8 sequence at s[i], 0 when it is not one.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto c = static_cast<unsigned char>(s[i]);
  std::size_t len = 0;
  char32_t cp = 0;
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2, cp = c & 0x1Fu;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3, cp = c & 0x0Fu;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4, cp = c & 0x07u;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  for (std::size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3Fu);
  }
  const char32_t min[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < min[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

}  // namespace

// s as a JSON string literal; a byte that is not UTF-8 becomes U+FFFD.
void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  for (std::size_t i = 0; i < s.size();) {
    // A run of plain characters at once: most cells are only these.
    std::size_t plain = i;
    while (plain < s.size()) {
      const auto b = static_cast<unsigned char>(s[plain]);
      if (b < 0x20 || b >= 0x80 || b == '"' || b == '\\') break;
      ++plain;
    }
    out.append(s.data() + i, plain - i);
    i = plain;
    if (i == s.size()) break;
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      const std::size_t len = utf8_length(s, i);
      if (len == 0) {
        out += "\xEF\xBF\xBD";
        ++i;
      } else {
        out.append(s.data() + i, len);
        i += len;
      }
      continue;
    }
    ++i;
    switch (c) {
      case '"':
        out += "\\\"";
        continue;
      case '\\':
        out += "\\\\";
        continue;
      case '\n':
        out += "\\n";
        continue;
      case '\r':
        out += "\\r";
        continue;
      case '\t':
        out += "\\t";
        continue;
      default:
        break;
    }
    if (c < 0x20) {
      static const char hex[] = "0123456789abcdef";
      out += "\\u00";
      out += hex[c >> 4];
      out += hex[c & 0xF];
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
}

namespace {

bool is_integer(std::string_view s) {
  if (!s.empty() && s.front() == '-') s.remove_prefix(1);
  return !s.empty() && s.size() <= 18 && s.find_first_not_of("0123456789") == std::string::npos;
}

std::optional<bool> yes_no(std::string_view s) {
  const auto is = [&](std::string_view word) {
    if (s.size() != word.size()) return false;
    for (std::size_t i = 0; i < s.size(); ++i) {
      if ((s[i] | 0x20) != word[i]) return false;
    }
    return true;
  };
  if (is("yes") || is("true")) return true;
  if (is("no") || is("false")) return false;
  return std::nullopt;
}

// "3,4,7" as [3, 4, 7]; an item that is not an integer as a string.
void append_integer_list(std::string& out, std::string_view cell) {
  out += '[';
  std::size_t pos = 0;
  for (bool first = true; pos <= cell.size(); first = false) {
    std::size_t end = cell.find(',', pos);
    if (end == std::string_view::npos) end = cell.size();
    const std::string_view item = cell.substr(pos, end - pos);
    if (!first) out += ", ";
    if (is_integer(item)) {
      out += item;
    } else {
      append_json_string(out, item);
    }
    pos = end + 1;
  }
  out += ']';
}

}  // namespace

// A cell as a JSON value of its column's kind; a cell that is not of that kind stays a string.
void append_json_value(std::string& out, std::string_view cell, Kind kind) {
  if (cell.empty()) {
    out += kind == Kind::integer_list ? "[]" : "null";
  } else if (kind == Kind::integer && is_integer(cell)) {
    out += cell;
  } else if (kind == Kind::integer_list) {
    append_integer_list(out, cell);
  } else if (const auto b = kind == Kind::boolean ? yes_no(cell) : std::nullopt) {
    out += *b ? "true" : "false";
  } else {
    append_json_string(out, cell);
  }
}

}  // namespace gpubill::cli
