#include "output.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <optional>
#include <ostream>

#include "gpubill/csv.hpp"
#include "gpubill/errors.hpp"
#include "text_table.hpp"

namespace gpubill::cli {

namespace {

TextLayout g_layout;  // set_text_layout; the default (no limit) for tests and the library

// Bytes held before they are written: rows go out in blocks, not one write each.
constexpr std::size_t kFlushBytes = 64 * 1024;

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

// A cell as a JSON value of its column's kind; a cell that is not of that kind stays a string.
void append_json_value(std::string& out, const std::string& cell, Kind kind) {
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

void append_csv_line(std::string& out, const std::vector<std::string>& cells) {
  for (std::size_t c = 0; c < cells.size(); ++c) {
    if (c > 0) out += ',';
    out += csv_cell(cells[c]);
  }
  out += '\n';
}

std::string title_of(std::string_view key) {
  std::string t(key);
  for (char& c : t) {
    if (c == '_') c = ' ';
  }
  return t;
}

}  // namespace

struct Document::State {
  std::ostream& out;
  Format format;
  Shape shape;
  std::string buf = {};
  std::size_t sections = 0;  // begun so far
  // The section of rows being written.
  bool open = false;
  bool in_csv = false;
  std::vector<Column> columns = {};
  std::vector<std::string> json_keys = {};  // per column: `"name": `, escaped once
  std::size_t rows = 0;
  std::optional<TextTable> text = {};
  bool finished = false;

  void flush_if_full() {
    if (buf.size() >= kFlushBytes) flush();
  }
  void flush() {
    out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
    buf.clear();
  }
  // The JSON member `key` begins (at the top level).
  void json_member(std::string_view key) {
    buf += ",\n  ";
    append_json_string(buf, key);
    buf += ": ";
  }
  // Text: the title line of a section (and the blank line before all but the first).
  void text_title(std::string_view key, std::string_view title) {
    if (shape != Shape::sections) return;
    flush();
    out << (sections > 1 ? "\n" : "") << "== " << (title.empty() ? title_of(key) : title)
        << " ==\n";
  }
};

Document::Document(std::ostream& out, Format format, Shape shape)
    : s_(std::make_unique<State>(State{out, format, shape})) {
  if (format == Format::json)
    s_->buf = "{\n  \"schema_version\": " + std::to_string(kSchemaVersion);
}

Document::~Document() = default;

void Document::begin_rows(std::string_view key, std::vector<Column> columns, bool in_csv,
                          std::string_view title) {
  State& s = *s_;
  ++s.sections;
  s.open = true;
  s.rows = 0;
  s.in_csv = in_csv;
  s.columns = std::move(columns);
  switch (s.format) {
    case Format::json:
      s.json_member(key);
      s.buf += '[';
      s.json_keys.clear();
      for (const auto& c : s.columns) {
        std::string k;
        append_json_string(k, c.name);
        s.json_keys.push_back(k + ": ");
      }
      break;
    case Format::csv:
      if (in_csv) {
        std::vector<std::string> header;
        for (const auto& c : s.columns) header.push_back(c.name);
        append_csv_line(s.buf, header);
      }
      break;
    case Format::table:
      s.text_title(key, title);
      s.text.emplace(s.out, s.columns, g_layout);
      break;
  }
}

void Document::row(const std::vector<std::string>& cells) {
  State& s = *s_;
  switch (s.format) {
    case Format::json:
      s.buf += s.rows == 0 ? "\n    {" : ",\n    {";
      for (std::size_t c = 0; c < s.columns.size(); ++c) {
        if (c > 0) s.buf += ", ";
        s.buf += s.json_keys[c];
        append_json_value(s.buf, cells.at(c), s.columns[c].kind);
      }
      s.buf += '}';
      break;
    case Format::csv:
      if (s.in_csv) append_csv_line(s.buf, cells);
      break;
    case Format::table:
      s.flush();
      s.text->row(cells);
      break;
  }
  ++s.rows;
  s.flush_if_full();
}

void Document::end_rows() {
  State& s = *s_;
  s.open = false;
  if (s.format == Format::json) s.buf += s.rows == 0 ? "]" : "\n  ]";
  if (s.format == Format::table) {
    s.text->finish();
    s.text.reset();
  }
  s.flush_if_full();
}

void Document::table(std::string_view key, const Table& t, bool in_csv, std::string_view title) {
  State& s = *s_;
  if (!t.key_value || (s.format != Format::json && s.shape != Shape::record)) {
    begin_rows(key, t.columns, in_csv, title);
    for (const auto& r : t.rows) row(r);
    end_rows();
    return;
  }
  if (s.format != Format::json) {  // a record in text or CSV: its (field, value) rows
    begin_rows(key, t.columns, true);
    for (const auto& r : t.rows) row(r);
    end_rows();
    return;
  }
  ++s.sections;
  const auto kind_of = [&](std::size_t i) {
    return i < t.field_kinds.size() ? t.field_kinds[i] : Kind::text;
  };
  if (s.shape == Shape::record) {
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      s.json_member(t.rows[i].at(0));
      append_json_value(s.buf, t.rows[i].at(1), kind_of(i));
    }
    return;
  }
  s.json_member(key);
  s.buf += '{';
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    if (i > 0) s.buf += ", ";
    append_json_string(s.buf, t.rows[i].at(0));
    s.buf += ": ";
    append_json_value(s.buf, t.rows[i].at(1), kind_of(i));
  }
  s.buf += '}';
}

void Document::finish() {
  State& s = *s_;
  if (s.finished) return;
  s.finished = true;
  if (s.format == Format::json) s.buf += "\n}\n";
  s.flush();
  s.out.flush();
}

Column int_column(std::string name) {
  return Column{std::move(name), true, 0, Kind::integer};
}

Column bool_column(std::string name) {
  return Column{std::move(name), false, 0, Kind::boolean};
}

void Table::add_field(std::string name, std::string value, Kind kind) {
  field_kinds.resize(rows.size(), Kind::text);
  field_kinds.push_back(kind);
  rows.push_back({std::move(name), std::move(value)});
}

Table record_table(std::vector<Field> fields) {
  Table t;
  t.key_value = true;
  t.columns = {{"field"}, {"value"}};
  for (auto& f : fields) t.add_field(std::move(f.name), std::move(f.value), f.kind);
  return t;
}

Format parse_format(std::string_view text) {
  if (text == "table") return Format::table;
  if (text == "csv") return Format::csv;
  if (text == "json") return Format::json;
  throw ParseError("unknown output format '" + std::string(text) +
                   "' (expected table, csv or json)");
}

void write_table(std::ostream& out, const Table& table, Format format) {
  Document doc(out, format, table.key_value ? Document::Shape::record : Document::Shape::listing);
  doc.table("rows", table, true);
  doc.finish();
}

void write_sections(std::ostream& out, const std::vector<std::pair<std::string, Table>>& sections,
                    Format format, std::string_view csv_section) {
  Document doc(out, format, Document::Shape::sections);
  for (const auto& [title, table] : sections) {
    doc.table(snake_case(title), table, title == csv_section, title);
  }
  doc.finish();
}

std::string snake_case(std::string_view title) {
  std::string out;
  bool gap = false;
  for (const char ch : title) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z')) {
      if (gap && !out.empty()) out += '_';
      gap = false;
      out += static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
    } else {
      gap = true;
    }
  }
  return out;
}

void set_text_layout(TextLayout layout) {
  g_layout = layout;
}

void add_format_option(CLI::App& sub, Format& format) {
  sub.add_option_function<std::string>(
         "--format", [&format](const std::string& text) { format = parse_format(text); },
         "Output format (default: table)")
      ->check(CLI::IsMember({"table", "csv", "json"}));
}

std::string json_text(const nlohmann::ordered_json& j) {
  return j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

nlohmann::ordered_json with_schema_version(const nlohmann::ordered_json& j) {
  nlohmann::ordered_json out = {{"schema_version", kSchemaVersion}};
  for (const auto& [key, value] : j.items()) out[key] = value;
  return out;
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

namespace gpubill::cli {

nlohmann::ordered_json json_rows(const Table& t) {
  // Each cell as write_table's JSON writes it (numbers, booleans, null by the column's kind).
  const auto value = [](const std::string& cell, Kind kind) {
    std::string text;
    append_json_value(text, cell, kind);
    return nlohmann::ordered_json::parse(text);
  };
  if (t.key_value) {
    nlohmann::ordered_json obj = nlohmann::ordered_json::object();
    for (std::size_t i = 0; i < t.rows.size(); ++i) {
      obj[t.rows[i].at(0)] =
          value(t.rows[i].at(1), i < t.field_kinds.size() ? t.field_kinds[i] : Kind::text);
    }
    return obj;
  }
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const auto& row : t.rows) {
    nlohmann::ordered_json obj = nlohmann::ordered_json::object();
    for (std::size_t c = 0; c < t.columns.size(); ++c) {
      obj[t.columns[c].name] = value(row.at(c), t.columns[c].kind);
    }
    rows.push_back(std::move(obj));
  }
  return rows;
}

}  // namespace gpubill::cli
