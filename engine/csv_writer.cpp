#include "gpubill/csv.hpp"

#include "gpubill/decimal.hpp"

namespace gpubill {

namespace {

bool formula_lead(char c) {
  return c == '=' || c == '+' || c == '-' || c == '@' || c == '\t' || c == '\r';
}

}  // namespace

std::string csv_cell(std::string_view text) {
  std::string cell;
  cell.reserve(text.size() + 1);
  if (!text.empty() && formula_lead(text.front()) && !Decimal::try_parse(text)) {
    cell.push_back('\'');
  }
  cell.append(text.data(), text.size());
  if (cell.find_first_of(",\"\r\n") == std::string::npos) return cell;
  std::string quoted = "\"";
  for (char ch : cell) {
    if (ch == '"') quoted += '"';
    quoted += ch;
  }
  return quoted + "\"";
}

}  // namespace gpubill
