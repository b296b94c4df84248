#include "output.hpp"

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <optional>
#include <ostream>
#include <stdexcept>

#include "gpubill/base/csv.hpp"
#include "gpubill/base/errors.hpp"
#include "json_cells.hpp"
#include "text_table.hpp"

namespace gpubill::cli {

namespace {

TextLayout g_layout;  // set_text_layout; the default (no limit) for tests and the library

// Bytes held before they are written: rows go out in blocks, not one write each.
constexpr std::size_t kFlushBytes = 64 * 1024;

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
  // Per column: `"name": `, escaped once, after ", " but for the first column.
  std::vector<std::string> json_keys = {};
  std::size_t rows = 0;
  std::optional<TextTable> text = {};
  std::vector<std::string> text_cells = {};  // text tables: the cells of the row being written
  bool finished = false;
  // CSV of a sectioned document: every section's rows are held, then written as one table with
  // a first column `section` and the union of the sections' columns (empty where a section has
  // no such column).
  bool collect = false;
  std::vector<std::string> union_columns = {};
  std::vector<std::string> section_keys = {};
  std::vector<std::vector<std::size_t>> section_columns = {};  // per section: union index
  std::vector<std::pair<std::size_t, std::vector<std::string>>> held_rows = {};

  void collect_section(std::string_view key) {
    section_keys.emplace_back(key);
    std::vector<std::size_t> map;
    for (const auto& c : columns) {
      auto it = std::find(union_columns.begin(), union_columns.end(), c.name);
      if (it == union_columns.end()) it = union_columns.insert(union_columns.end(), c.name);
      map.push_back(static_cast<std::size_t>(it - union_columns.begin()));
    }
    section_columns.push_back(std::move(map));
  }
  void write_collected() {
    std::vector<std::string> header = {"section"};
    header.insert(header.end(), union_columns.begin(), union_columns.end());
    append_csv_line(buf, header);
    for (const auto& [section, cells] : held_rows) {
      std::vector<std::string> line(union_columns.size() + 1);
      line[0] = section_keys[section];
      for (std::size_t c = 0; c < cells.size(); ++c) {
        line[section_columns[section][c] + 1] = cells[c];
      }
      append_csv_line(buf, line);
      flush_if_full();
    }
  }

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
    : s_(std::make_unique<State>(State{out, format, shape})), row_(new Row(*s_)) {
  s_->collect = format == Format::csv && shape == Shape::sections;
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
        std::string k = s.json_keys.empty() ? "" : ", ";
        append_json_string(k, c.name);
        s.json_keys.push_back(k + ": ");
      }
      break;
    case Format::csv:
      if (s.collect) {
        s.collect_section(key);
      } else if (in_csv) {
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
  Row& r = begin_row();
  for (const auto& cell : cells) r.text(cell);
  end_row();
}

Document::Row& Document::begin_row() {
  State& s = *s_;
  row_->cell_ = 0;
  if (s.format == Format::json) s.buf += s.rows == 0 ? "\n    {" : ",\n    {";
  if (s.format == Format::table || s.collect) s.text_cells.clear();
  return *row_;
}

void Document::end_row() {
  State& s = *s_;
  if (row_->cell_ != s.columns.size()) {
    throw std::logic_error("a row of " + std::to_string(row_->cell_) + " cells for " +
                           std::to_string(s.columns.size()) + " columns");
  }
  switch (s.format) {
    case Format::json:
      s.buf += '}';
      break;
    case Format::csv:
      if (s.collect) {
        s.held_rows.emplace_back(s.section_keys.size() - 1, s.text_cells);
      } else if (s.in_csv) {
        s.buf += '\n';
      }
      break;
    case Format::table:
      s.flush();
      s.text->row(s.text_cells);
      break;
  }
  ++s.rows;
  s.flush_if_full();
}

Kind Document::Row::next_cell() {
  if (cell_ >= s_.columns.size()) {
    throw std::logic_error("more cells than the " + std::to_string(s_.columns.size()) + " columns");
  }
  const std::size_t c = cell_++;
  if (s_.format == Format::json) {
    s_.buf += s_.json_keys[c];
  } else if (s_.format == Format::csv && s_.in_csv && !s_.collect && c > 0) {
    s_.buf += ',';
  }
  return s_.columns[c].kind;
}

Document::Row& Document::Row::text(std::string_view cell) {
  const Kind kind = next_cell();
  switch (s_.format) {
    case Format::json:
      append_json_value(s_.buf, cell, kind);
      break;
    case Format::csv:
      if (s_.collect) {
        s_.text_cells.emplace_back(cell);
      } else if (s_.in_csv) {
        append_csv_cell(s_.buf, cell);
      }
      break;
    case Format::table:
      s_.text_cells.emplace_back(cell);
      break;
  }
  return *this;
}

Document::Row& Document::Row::scratch_cell() {
  return text(scratch_);
}

Document::Row& Document::Row::integer(std::int64_t n) {
  char digits[24];
  const auto end = std::to_chars(digits, digits + sizeof digits, n).ptr;
  const std::string_view text(digits, static_cast<std::size_t>(end - digits));
  if (s_.format == Format::json && s_.columns.at(cell_).kind == Kind::integer) {
    next_cell();
    s_.buf += text;
    return *this;
  }
  return this->text(text);
}

Document::Row& Document::Row::integer(const std::optional<std::int64_t>& n) {
  return n ? integer(*n) : text({});
}

// Decimals and instants need no escaping in JSON or CSV: written straight into the buffer when
// their column is text, as text() would write them; else through scratch_ as text().
template <typename Append>
Document::Row& Document::Row::plain_text(Append append) {
  if (s_.format != Format::table && !s_.collect && s_.columns.at(cell_).kind == Kind::text) {
    next_cell();
    if (s_.format == Format::csv && !s_.in_csv) return *this;
    if (s_.format == Format::json) s_.buf += '"';
    append(s_.buf);
    if (s_.format == Format::json) s_.buf += '"';
    return *this;
  }
  scratch_.clear();
  append(scratch_);
  return scratch_cell();
}

Document::Row& Document::Row::decimal(const Decimal& d) {
  return plain_text([&](std::string& out) { d.append_to(out); });
}

Document::Row& Document::Row::instant(Instant t) {
  return plain_text([&](std::string& out) { append_instant(out, t); });
}

Document::Row& Document::Row::integer_list(const std::vector<std::int64_t>& items) {
  const bool json_list =
      s_.format == Format::json && s_.columns.at(cell_).kind == Kind::integer_list;
  if (json_list) next_cell();
  std::string& out = json_list ? s_.buf : scratch_;
  if (json_list) {
    out += '[';
  } else {
    out.clear();
  }
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += json_list ? ", " : ",";
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof digits, items[i]).ptr;
    out.append(digits, static_cast<std::size_t>(end - digits));
  }
  if (json_list) {
    out += ']';
    return *this;
  }
  return scratch_cell();
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
  if (s.collect) s.write_collected();
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

Column id_column(std::string name) {
  Column c{std::move(name)};
  c.identifying = true;
  return c;
}

Column notes_column(std::string name) {
  Column c{std::move(name)};
  c.footnote = true;
  return c;
}

Column droppable(Column c, int rank) {
  c.drop = rank;
  return c;
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
