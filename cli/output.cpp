#include "output.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <ostream>

#include "gpubill/csv.hpp"
#include "gpubill/errors.hpp"

namespace gpubill::cli {

namespace {

// Width of a UTF-8 string on a terminal: East Asian wide characters take two columns.
std::size_t display_width(std::string_view s) {
  std::size_t width = 0;
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    char32_t cp = c;
    std::size_t len = 1;
    if (c >= 0xF0 && i + 3 < s.size()) {
      cp = ((c & 0x07u) << 18) | ((s[i + 1] & 0x3Fu) << 12) | ((s[i + 2] & 0x3Fu) << 6) |
           (s[i + 3] & 0x3Fu);
      len = 4;
    } else if (c >= 0xE0 && i + 2 < s.size()) {
      cp = ((c & 0x0Fu) << 12) | ((s[i + 1] & 0x3Fu) << 6) | (s[i + 2] & 0x3Fu);
      len = 3;
    } else if (c >= 0xC0 && i + 1 < s.size()) {
      cp = ((c & 0x1Fu) << 6) | (s[i + 1] & 0x3Fu);
      len = 2;
    }
    i += len;
    const bool wide = (cp >= 0x1100 && cp <= 0x115F) || (cp >= 0x2E80 && cp <= 0xA4CF) ||
                      (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
                      (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
                      (cp >= 0xFFE0 && cp <= 0xFFE6) || (cp >= 0x20000 && cp <= 0x3FFFD);
    width += wide ? 2 : 1;
  }
  return width;
}

// The cell cut to `max_width` display columns (0 = no limit), ending in "…" when cut.
std::string fit(const std::string& cell, std::size_t max_width) {
  if (max_width == 0 || display_width(cell) <= max_width) return cell;
  std::string out;
  std::size_t i = 0;
  while (i < cell.size()) {
    std::size_t len = 1;
    while (i + len < cell.size() && (static_cast<unsigned char>(cell[i + len]) & 0xC0) == 0x80) {
      ++len;
    }
    if (display_width(out + cell.substr(i, len)) + 1 > max_width) break;
    out += cell.substr(i, len);
    i += len;
  }
  return out + "\u2026";
}

void write_text(std::ostream& out, const Table& table) {
  if (table.rows.empty()) {
    out << "(none)\n";
    return;
  }
  Table t = table;
  for (auto& row : t.rows) {
    for (std::size_t c = 0; c < t.columns.size(); ++c)
      row.at(c) = fit(row[c], t.columns[c].max_width);
  }
  std::vector<std::size_t> widths(t.columns.size());
  for (std::size_t c = 0; c < t.columns.size(); ++c) {
    widths[c] = display_width(t.columns[c].name);
    for (const auto& row : t.rows) widths[c] = std::max(widths[c], display_width(row.at(c)));
  }
  const auto line = [&](const auto& cell_of) {
    std::string text;
    for (std::size_t c = 0; c < t.columns.size(); ++c) {
      const std::string& cell = cell_of(c);
      const std::string pad(widths[c] - display_width(cell), ' ');
      if (c > 0) text += "  ";
      text += t.columns[c].right_align ? pad + cell : cell + pad;
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out << text << '\n';
  };
  line([&](std::size_t c) -> const std::string& { return t.columns[c].name; });
  std::string rule;
  for (std::size_t c = 0; c < t.columns.size(); ++c) {
    rule += (c > 0 ? "  " : "") + std::string(widths[c], '-');
  }
  out << rule << '\n';
  for (const auto& row : t.rows)
    line([&](std::size_t c) -> const std::string& { return row.at(c); });
}

void write_csv(std::ostream& out, const Table& t) {
  const auto line = [&](const auto& cell_of) {
    for (std::size_t c = 0; c < t.columns.size(); ++c) {
      if (c > 0) out << ',';
      out << csv_cell(cell_of(c));
    }
    out << '\n';
  };
  line([&](std::size_t c) { return t.columns[c].name; });
  for (const auto& row : t.rows) line([&](std::size_t c) { return row.at(c); });
}

}  // namespace

Format parse_format(std::string_view text) {
  if (text == "table") return Format::table;
  if (text == "csv") return Format::csv;
  if (text == "json") return Format::json;
  throw ParseError("unknown output format '" + std::string(text) +
                   "' (expected table, csv or json)");
}

nlohmann::ordered_json json_rows(const Table& t) {
  if (t.key_value) {
    nlohmann::ordered_json obj = nlohmann::ordered_json::object();
    for (const auto& row : t.rows) {
      obj[row.at(0)] =
          row.at(1).empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(row[1]);
    }
    return obj;
  }
  auto rows = nlohmann::ordered_json::array();
  for (const auto& row : t.rows) {
    nlohmann::ordered_json obj = nlohmann::ordered_json::object();
    for (std::size_t c = 0; c < t.columns.size(); ++c) {
      const auto& cell = row.at(c);
      obj[t.columns[c].name] =
          cell.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(cell);
    }
    rows.push_back(std::move(obj));
  }
  return rows;
}

void write_table(std::ostream& out, const Table& table, Format format) {
  switch (format) {
    case Format::table:
      write_text(out, table);
      break;
    case Format::csv:
      write_csv(out, table);
      break;
    case Format::json:
      out << json_text(json_rows(table)) << '\n';
      break;
  }
}

void write_sections(std::ostream& out, const std::vector<std::pair<std::string, Table>>& sections,
                    Format format, std::string_view csv_section) {
  if (format == Format::json) {
    nlohmann::ordered_json obj = nlohmann::ordered_json::object();
    for (const auto& [title, table] : sections) obj[title] = json_rows(table);
    out << json_text(obj) << '\n';
    return;
  }
  bool first = true;
  for (const auto& [title, table] : sections) {
    if (format == Format::csv) {
      if (title == csv_section) write_csv(out, table);
      continue;
    }
    out << (first ? "" : "\n") << "== " << title << " ==\n";
    write_text(out, table);
    first = false;
  }
}

void add_format_option(CLI::App& sub, Format& format) {
  sub.add_option_function<std::string>(
         "--format", [&format](const std::string& text) { format = parse_format(text); },
         "Output format (default: table)")
      ->check(CLI::IsMember({"table", "csv", "json"}));
}

std::string json_text(const nlohmann::json& j) {
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string json_text(const nlohmann::ordered_json& j) {
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::string money_cell(const std::optional<Money>& m, int decimals) {
  if (!m) return "";
  return m->amount().round(decimals, RoundingMode::half_up).to_string(decimals);
}

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

}  // namespace gpubill::cli
