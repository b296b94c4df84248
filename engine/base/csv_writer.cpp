#include "gpubill/base/csv.hpp"

#include "gpubill/base/decimal.hpp"

namespace gpubill {

namespace {

bool formula_lead(char c) {
  return c == '=' || c == '+' || c == '-' || c == '@' || c == '\t' || c == '\r';
}

}  // namespace

std::string csv_cell(std::string_view text) {
  std::string cell;
  append_csv_cell(cell, text);
  return cell;
}

void append_csv_cell(std::string& out, std::string_view text) {
  const bool guard = !text.empty() && formula_lead(text.front()) && !Decimal::try_parse(text);
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) {
    if (guard) out += '\'';
    out.append(text.data(), text.size());
    return;
  }
  out += '"';
  if (guard) out += '\'';
  for (const char ch : text) {
    if (ch == '"') out += '"';
    out += ch;
  }
  out += '"';
}

}  // namespace gpubill
