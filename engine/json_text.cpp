#include "json_text.hpp"

#include <date/date.h>

namespace gpubill::json_text {

void append_string(std::string& out, std::string_view s) {
  out += '"';
  for (const char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          static const char* hex = "0123456789abcdef";
          out += "\\u00";
          out += hex[(c >> 4) & 0xF];
          out += hex[c & 0xF];
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

void append_instant(std::string& out, Instant t) {
  const auto day = date::floor<date::days>(t);
  const date::year_month_day ymd{day};
  const auto hms = (t - day).count();
  char buf[24];
  const int y = static_cast<int>(ymd.year());
  if (y < 0 || y > 9999) {
    out += format_instant(t);
    return;
  }
  auto put2 = [&](char* p, long v) {
    p[0] = static_cast<char>('0' + v / 10);
    p[1] = static_cast<char>('0' + v % 10);
  };
  put2(buf, y / 100);
  put2(buf + 2, y % 100);
  buf[4] = '-';
  put2(buf + 5, static_cast<unsigned>(ymd.month()));
  buf[7] = '-';
  put2(buf + 8, static_cast<unsigned>(ymd.day()));
  buf[10] = 'T';
  put2(buf + 11, hms / 3600);
  buf[13] = ':';
  put2(buf + 14, hms / 60 % 60);
  buf[16] = ':';
  put2(buf + 17, hms % 60);
  buf[19] = 'Z';
  out.append(buf, 20);
}

}  // namespace gpubill::json_text
