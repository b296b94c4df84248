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

// A text table written as rows come: the first kTextSampleRows rows are held to measure the
// columns, then written with every later row at those widths (a later, longer cell is cut).
// A header, a rule and the rows, columns separated by two spaces, no trailing spaces; an empty
// table prints "(none)".
class TextTable {
 public:
  TextTable(std::ostream& out, std::vector<Column> columns, TextLayout layout);
  void row(const std::vector<std::string>& cells);
  void finish();

 private:
  void settle_widths();  // measures the held rows, fits the total width, writes them
  void line(const std::vector<std::string>& cells);

  std::ostream& out_;
  std::vector<Column> columns_;
  TextLayout layout_;
  std::vector<std::vector<std::string>> held_;
  std::vector<std::size_t> widths_;  // empty until settled
  std::size_t rows_ = 0;
  std::string text_;
};

}  // namespace gpubill::cli
