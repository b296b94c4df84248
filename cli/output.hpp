// Output of every command, one contract for all (docs/schemas/README.md):
//   text: aligned tables for people, fitted to the terminal's width;
//   csv:  RFC 4180, a header row equal to the JSON keys, then one line per row;
//   json: one object per document, {"schema_version": 1, ...}: a listing's rows under "rows",
//         a record's fields at the top level, a sectioned document's sections under their keys.
// Rows are written as they come (Document::row): memory does not grow with the rows written,
// except for the first rows of a text table, held to measure its columns (kTextSampleRows).
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gpubill/base/decimal.hpp"
#include "gpubill/base/money.hpp"
#include "gpubill/base/time.hpp"

namespace CLI {
class App;
}

namespace gpubill::cli {

enum class Format { table, csv, json };

// "table", "csv", "json". Throws gpubill::ParseError.
Format parse_format(std::string_view text);

// The version of every JSON document's shape ("schema_version"); docs/schemas/ describes it.
inline constexpr int kSchemaVersion = 1;

// The JSON type of a column's cells; text and CSV print every cell as it is. An empty cell is
// JSON null (an empty list for integer_list). Money and other decimals are text: exact decimal
// strings.
enum class Kind {
  text,          // a JSON string
  integer,       // a JSON number: counts, ids, sequence numbers (the cell is decimal digits)
  boolean,       // a JSON true / false: the cell is "yes" or "no" (any case)
  integer_list,  // a JSON array of numbers: the cell is "3,4,7"
};

struct Column {
  std::string name;          // snake_case: the JSON key and the CSV header
  bool right_align = false;  // text tables only (numbers)
  // Text tables on a terminal only: longer cells are cut to this many columns, ending in "…";
  // 0 = no limit.
  std::size_t max_width = 0;
  Kind kind = Kind::text;
  // Text tables only. A column that names what a row is (provider, region, instance type, id)
  // is never cut: the table drops or cuts other columns to fit instead.
  bool identifying = false;
  // > 0: on a terminal too narrow for the table, the column is left out, the highest first,
  // before any cell is cut (a line under the table names the columns left out).
  int drop = 0;
  // The cells are notes, separated by "; ": each distinct note is printed once under the table,
  // numbered, and the cell holds its numbers ("1,3"). On a terminal and in a pipe alike.
  bool footnote = false;
};

// A right-aligned integer column (counts, ids).
Column int_column(std::string name);
// A yes/no column.
Column bool_column(std::string name);
// A text column that names what a row is: never cut in a text table.
Column id_column(std::string name);
// A column of notes ("a; b"), listed under a text table (Column::footnote).
Column notes_column(std::string name);
// `c` with its Column::drop rank set.
Column droppable(Column c, int rank);

struct Table {
  std::vector<Column> columns;
  std::vector<std::vector<std::string>> rows;  // each row has one cell per column
  // A two-column (name, value) table describing one thing: JSON writes it as one object
  // {name: value} instead of an array of rows, typed by field_kinds (one per row; text when
  // missing).
  bool key_value = false;
  std::vector<Kind> field_kinds = {};
  void add_row(std::vector<std::string> row) { rows.push_back(std::move(row)); }
  // A row of a key_value table.
  void add_field(std::string name, std::string value, Kind kind = Kind::text);
};

// One field of a record (a key_value table's row).
struct Field {
  std::string name, value;
  Kind kind = Kind::text;
};
// A key_value table with the columns (field, value) holding `fields`.
Table record_table(std::vector<Field> fields = {});

// How text tables fit the terminal. Set once at start-up (main), read by every text table.
struct TextLayout {
  // Display columns a table line may take; 0 = no limit. Wider tables cut their widest text
  // columns (to no less than kMinElidedWidth each), cells ending in "…".
  std::size_t width = 0;
};
void set_text_layout(TextLayout layout);
// The layout for stdout: no limit when `wide` or stdout is not a terminal; else the terminal's
// width (TIOCGWINSZ), else $COLUMNS, else 80.
TextLayout terminal_layout(bool wide);
inline constexpr std::size_t kMinElidedWidth = 12;
// Rows of a text table held to measure its columns; later rows are cut to those widths.
inline constexpr std::size_t kTextSampleRows = 1000;

// One output document, written as it is built:
//   Document doc(std::cout, format, Document::Shape::listing);
//   doc.begin_rows("rows", columns); for (…) doc.row(cells); doc.end_rows(); doc.finish();
// Listing: one section of rows, under "rows" in JSON, untitled in text. Record: one key_value
// table, its fields at the top level of the JSON object. Sections: each under its key in JSON,
// under a "== title ==" line in text (the key with spaces for underscores); CSV writes every
// section as one table: a first column `section` (the key), then the union of the sections'
// columns in order of first use, empty where a row's section has no such column (in_csv is
// then ignored; it chooses the table of a listing's CSV).
class Document {
  struct State;

 public:
  enum class Shape { listing, record, sections };
  Document(std::ostream& out, Format format, Shape shape);
  ~Document();
  Document(const Document&) = delete;
  Document& operator=(const Document&) = delete;

  // A section of rows with these columns; `key` is snake_case. `title`: the text title when it
  // is not the key with spaces for underscores.
  void begin_rows(std::string_view key, std::vector<Column> columns, bool in_csv = true,
                  std::string_view title = {});
  // One row: a cell per column.
  void row(const std::vector<std::string>& cells);

  // One row written cell by cell straight into the document, with no string per cell (exports
  // write millions of rows):
  //   doc.begin_row().integer(line.id).text(line.account).decimal(line.amount); doc.end_row();
  // One call per column, in column order. A cell is written as row() writes its text: typed by
  // its column's Kind in JSON, quoted when CSV needs it; an empty text or a missing integer is
  // an empty cell (JSON null).
  class Row {
   public:
    Row& text(std::string_view s);
    Row& integer(std::int64_t n);
    Row& integer(const std::optional<std::int64_t>& n);
    Row& decimal(const Decimal& d);
    Row& instant(Instant t);
    Row& integer_list(const std::vector<std::int64_t>& items);  // "3,4,7" in text and CSV

   private:
    friend class Document;
    explicit Row(State& s) : s_(s) {}
    // Begins the next cell (its separator and JSON key); the column's kind.
    Kind next_cell();
    // A cell whose text is in scratch_: as text() writes it.
    Row& scratch_cell();
    // A cell of text that needs no escaping, made by append(std::string&) (output.cpp).
    template <typename Append>
    Row& plain_text(Append append);
    State& s_;
    std::size_t cell_ = 0;
    std::string scratch_;
  };
  Row& begin_row();
  // Ends the row begun. Throws std::logic_error when it has not one cell per column.
  void end_row();
  void end_rows();
  // A whole table as a section (a key_value table as an object, else as rows). Shape::record
  // takes one key_value table, key ignored.
  void table(std::string_view key, const Table& t, bool in_csv = false,
             std::string_view title = {});
  // Ends the document (JSON's closing brace). Call once, after the last section.
  void finish();

 private:
  std::unique_ptr<State> s_;
  std::unique_ptr<Row> row_;
};

// A listing (or, for a key_value table, a record) as one document.
void write_table(std::ostream& out, const Table& table, Format format);

// Several titled tables (e.g. an instance type's spec, prices and policy) as one sectioned
// document; the JSON key of a section is its title in snake_case (text shows the title as it
// is). CSV writes every section, with a `section` column (Document); `csv_section` is unused.
void write_sections(std::ostream& out, const std::vector<std::pair<std::string, Table>>& sections,
                    Format format, std::string_view csv_section);

// "balance movements" → "balance_movements": lower case, runs of other characters as "_".
std::string snake_case(std::string_view title);

// JSON text, indented by 2, for documents built whole (small ones: a quote, a lease-vs-buy
// result); put kSchemaVersion in them with with_schema_version. A byte that is not UTF-8 (in a
// database written before names were checked) becomes U+FFFD instead of failing the export.
std::string json_text(const nlohmann::ordered_json& j);
// {"schema_version": 1} followed by the members of the object `j`.
nlohmann::ordered_json with_schema_version(const nlohmann::ordered_json& j);

// The JSON of a table's rows (an array of objects, or one object for key_value), cells as
// strings, to embed in a document built whole (catalog diff, quote --compare-to).
nlohmann::ordered_json json_rows(const Table& table);

// The items with `sep` between them: "a, b, c".
std::string join(const std::vector<std::string>& items, const std::string& sep = ", ");

// An amount as totals are shown: rounded half up to `decimals`, padded ("12.30"); "" for none.
std::string money_cell(const std::optional<Money>& m, int decimals = 2);

// Adds "--format table|json|csv" (default table) to a subcommand, storing into `format`.
void add_format_option(CLI::App& sub, Format& format);

}  // namespace gpubill::cli
