// Private to the engine: the two ways a FOCUS row's cells are written (focus.cpp, put_cells):
// kept as strings (FocusRowCells, for focus_export and for_each_focus_row) or written straight
// into a CSV buffer (FocusCsvCells, for write_focus_csv: no string per cell, each cell quoted as
// csv_cell quotes it, decided as it is appended). Both write the same text for a cell.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpubill/base/csv.hpp"
#include "gpubill/base/decimal.hpp"
#include "gpubill/base/time.hpp"
#include "gpubill/ledger/focus.hpp"

namespace gpubill::focus_cells {

inline void append_integer(std::string& out, std::int64_t n) {
  char buf[24];
  const auto end = std::to_chars(buf, buf + sizeof buf, n).ptr;
  out.append(buf, end);
}

// "3,4,7".
inline void append_integers(std::string& out, const std::vector<std::int64_t>& items) {
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += ',';
    append_integer(out, items[i]);
  }
}

// Cells as the strings of a FocusRow (nullopt = null).
class FocusRowCells {
 public:
  explicit FocusRowCells(FocusRow& row) : row_(row) { row_.clear(); }
  void null() { row_.emplace_back(); }
  void text(std::string_view s) { row_.emplace_back(std::string(s)); }
  void text2(std::string_view a, std::string_view b, std::string_view c) {
    std::string s;
    s.reserve(a.size() + b.size() + c.size());
    s.append(a).append(b).append(c);
    row_.emplace_back(std::move(s));
  }
  void text_or_null(std::string_view s) { s.empty() ? null() : text(s); }
  void decimal(const Decimal& d) { row_.emplace_back(d.to_string()); }
  void instant(Instant t) { row_.emplace_back(format_instant(t)); }
  void integer(std::int64_t n) { row_.emplace_back(std::to_string(n)); }
  void integer(const std::optional<std::int64_t>& n) { n ? integer(*n) : null(); }
  void integers(const std::vector<std::int64_t>& items) {
    if (items.empty()) return null();
    std::string s;
    append_integers(s, items);
    row_.emplace_back(std::move(s));
  }
  std::size_t cells() const noexcept { return row_.size(); }

 private:
  FocusRow& row_;
};

// Cells appended to a CSV line in `out`, separated by commas; a null is an empty field.
// Decimals, instants and integers never need quoting nor the formula guard (a leading '-' is a
// number's sign), so they are appended as they are.
class FocusCsvCells {
 public:
  explicit FocusCsvCells(std::string& out) : out_(out) {}
  void null() { sep(); }
  void text(std::string_view s) {
    sep();
    append_csv_cell(out_, s);
  }
  void text2(std::string_view a, std::string_view b, std::string_view c) {
    scratch_.assign(a).append(b).append(c);
    text(scratch_);
  }
  void text_or_null(std::string_view s) { text(s); }  // an empty text is an empty field
  void decimal(const Decimal& d) {
    sep();
    d.append_to(out_);
  }
  void instant(Instant t) {
    sep();
    append_instant(out_, t);
  }
  void integer(std::int64_t n) {
    sep();
    append_integer(out_, n);
  }
  void integer(const std::optional<std::int64_t>& n) { n ? integer(*n) : null(); }
  void integers(const std::vector<std::int64_t>& items) {
    if (items.size() <= 1) {  // no comma: no quotes
      return items.empty() ? null() : integer(items.front());
    }
    scratch_.clear();
    append_integers(scratch_, items);
    text(scratch_);
  }
  // Ends the line; the number of cells it had.
  std::size_t end_line() {
    out_ += '\n';
    const std::size_t n = cells_;
    cells_ = 0;
    return n;
  }

 private:
  void sep() {
    if (cells_++) out_ += ',';
  }
  std::string& out_;
  std::string scratch_;
  std::size_t cells_ = 0;
};

}  // namespace gpubill::focus_cells
