// Private to the CLI's output (output.cpp): aligned text tables, measured on their first rows
// and fitted to a width.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

#include "output.hpp"

namespace gpubill::cli {

// Width of a UTF-8 string on a terminal: East Asian wide characters take two columns.
std::size_t display_width(std::string_view s);

// The cell cut to `max_width` display columns (0 = no limit), ending in "…" when cut.
std::string fit(const std::string& cell, std::size_t max_width);

// `text` written in lines of at most `width` display columns, the first line starting with
// `first`, the others with `rest`. A word wider than a line is broken after a '/', ':' or '@'
// (a source's repository, commit and path); one with no such place stays whole on its line.
void write_wrapped(std::ostream& out, const std::string& text, const std::string& first,
                   const std::string& rest, std::size_t width = 80);

// A text table written as rows come: the first kTextSampleRows rows are held to measure the
// columns, then written with every later row at those widths (a later, longer cell is cut).
// A header, a rule and the rows, columns separated by two spaces, no trailing spaces; an empty
// table prints "(none)".
// Fitting a width: first the droppable columns are left out (Column::drop, highest first), then
// the widest text column that is neither identifying nor a number is cut, down to
// kMinElidedWidth; identifying columns are never cut. A table still too wide is folded: each
// row on two lines, the columns from `fold_` on under the others, indented by kFoldIndent.
// Footnote columns hold numbers; their notes follow the table, each once ("[1] note").
class TextTable {
 public:
  TextTable(std::ostream& out, std::vector<Column> columns, TextLayout layout);
  void row(const std::vector<std::string>& cells);
  void finish();

 private:
  void settle_widths();  // measures the held rows, fits the total width, writes them
  void fit_width();      // drops, then cuts, columns until the table fits layout_.width
  void line(const std::vector<std::string>& cells);
  std::string footnote_cell(const std::string& notes);  // "1,3"
  std::size_t total_width() const;

  void fold_width();  // chooses fold_ when the table is still too wide
  void widen_in_fold(const std::vector<std::size_t>& natural);
  std::size_t span_width(std::size_t from, std::size_t to) const;  // shown columns [from, to)

  static constexpr std::size_t kFoldIndent = 6;
  std::size_t fold_ = 0;                    // 0: one line a row; else the first folded column
  std::vector<bool> shown_;                 // per column: not dropped
  std::vector<std::string> footnotes_;      // in order of first use
  std::vector<std::string> dropped_names_;  // columns left out to fit

  std::ostream& out_;
  std::vector<Column> columns_;
  TextLayout layout_;
  std::vector<std::vector<std::string>> held_;
  std::vector<std::size_t> widths_;  // empty until settled
  std::size_t rows_ = 0;
  std::string text_;
};

}  // namespace gpubill::cli
