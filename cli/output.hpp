// Output of listings, shared by every command: a table (named columns, rows of text cells)
// written as an aligned text table, RFC 4180 CSV, or a JSON array of objects.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpubill/money.hpp"

namespace CLI {
class App;
}

namespace gpubill::cli {

enum class Format { table, csv, json };

// "table", "csv", "json". Throws gpubill::ParseError.
Format parse_format(std::string_view text);

struct Column {
  std::string name;
  bool right_align = false;  // text tables only (numbers)
  // Text tables only: longer cells are cut to this many columns, ending in "…"; 0 = no limit.
  std::size_t max_width = 0;
};

struct Table {
  std::vector<Column> columns;
  std::vector<std::vector<std::string>> rows;  // each row has one cell per column
  // A two-column (name, value) table describing one thing: JSON writes it as one object
  // {name: value} instead of an array of rows.
  bool key_value = false;
  void add_row(std::vector<std::string> row) { rows.push_back(std::move(row)); }
};

// text: a header, a rule and the rows, columns aligned by display width (CJK characters count
// two) and separated by two spaces, no trailing spaces; an empty table prints "(none)".
// csv: a header row, then the rows; fields with a comma, quote or line break are quoted, quotes
// doubled; lines end with "\n".
// json: an array of objects {column: cell} (one object for a key_value table); an empty cell
// is null. Ends with a newline.
void write_table(std::ostream& out, const Table& table, Format format);

// Several titled tables (e.g. an instance type's spec, prices and policy). text: each under a
// "== title ==" line, separated by blank lines; json: one object {title: [rows…]}; csv: only
// the table named `csv_section` (CSV has no room for several tables).
void write_sections(std::ostream& out, const std::vector<std::pair<std::string, Table>>& sections,
                    Format format, std::string_view csv_section);

// The JSON write_table writes for a table (an array of objects, or one object for key_value),
// to embed in a larger document.
nlohmann::ordered_json json_rows(const Table& table);

// JSON text, indented by 2. A byte that is not UTF-8 (in a database written before names were
// checked) becomes U+FFFD instead of failing the whole export.
std::string json_text(const nlohmann::json& j);
// The items with `sep` between them: "a, b, c".
std::string join(const std::vector<std::string>& items, const std::string& sep = ", ");
std::string json_text(const nlohmann::ordered_json& j);

// An amount as totals are shown: rounded half up to `decimals`, padded ("12.30"); "" for none.
std::string money_cell(const std::optional<Money>& m, int decimals = 2);

// Adds "--format table|json|csv" (default table) to a subcommand, storing into `format`.
void add_format_option(CLI::App& sub, Format& format);

}  // namespace gpubill::cli
