#include "text_table.hpp"

#include <algorithm>
#include <numeric>
#include <ostream>

namespace gpubill::cli {

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

std::string fit(const std::string& cell, std::size_t max_width) {
  if (max_width == 0 || display_width(cell) <= max_width) return cell;
  std::string out;
  std::size_t width = 0;
  std::size_t i = 0;
  while (i < cell.size()) {
    std::size_t len = 1;
    while (i + len < cell.size() && (static_cast<unsigned char>(cell[i + len]) & 0xC0) == 0x80) {
      ++len;
    }
    const std::string_view ch(cell.data() + i, len);
    const std::size_t w = display_width(ch);
    if (width + w + 1 > max_width) break;
    out += ch;
    width += w;
    i += len;
  }
  return out + "\u2026";
}

TextTable::TextTable(std::ostream& out, std::vector<Column> columns, TextLayout layout)
    : out_(out), columns_(std::move(columns)), layout_(layout) {}

void TextTable::row(const std::vector<std::string>& cells) {
  ++rows_;
  if (widths_.empty()) {
    held_.push_back(cells);
    if (held_.size() >= kTextSampleRows) settle_widths();
    return;
  }
  line(cells);
}

void TextTable::finish() {
  if (rows_ == 0) {
    out_ << "(none)\n";
    return;
  }
  if (widths_.empty()) settle_widths();
}

void TextTable::settle_widths() {
  const std::size_t n = columns_.size();
  widths_.assign(n, 0);
  for (std::size_t c = 0; c < n; ++c) {
    widths_[c] = display_width(columns_[c].name);
    for (const auto& r : held_) {
      // A column's own limit is for terminals too: --wide and pipes show every cell whole.
      const std::size_t limit = layout_.width > 0 ? columns_[c].max_width : 0;
      widths_[c] = std::max(widths_[c], display_width(fit(r.at(c), limit)));
    }
  }
  // Too wide for the terminal: narrow the widest text column, one column at a time, down to
  // kMinElidedWidth (numbers are never cut).
  const auto total = [&] {
    return std::accumulate(widths_.begin(), widths_.end(), std::size_t{0}) + 2 * (n - 1);
  };
  while (layout_.width > 0 && total() > layout_.width) {
    std::size_t widest = n;
    for (std::size_t c = 0; c < n; ++c) {
      if (columns_[c].right_align || widths_[c] <= kMinElidedWidth) continue;
      if (widest == n || widths_[c] > widths_[widest]) widest = c;
    }
    if (widest == n) break;
    const std::size_t excess = total() - layout_.width;
    widths_[widest] =
        std::max(kMinElidedWidth, widths_[widest] - std::min(excess, widths_[widest]));
  }
  std::vector<std::string> header;
  for (const auto& c : columns_) header.push_back(c.name);
  line(header);
  std::string rule;
  for (std::size_t c = 0; c < n; ++c) rule += (c > 0 ? "  " : "") + std::string(widths_[c], '-');
  out_ << rule << '\n';
  for (const auto& r : held_) line(r);
  held_.clear();
  held_.shrink_to_fit();
}

void TextTable::line(const std::vector<std::string>& cells) {
  text_.clear();
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    // A number longer than the sample's is shown whole (out of line), never cut.
    const std::string cell = columns_[c].right_align ? cells.at(c) : fit(cells.at(c), widths_[c]);
    const std::string pad(widths_[c] - std::min(widths_[c], display_width(cell)), ' ');
    if (c > 0) text_ += "  ";
    text_ += columns_[c].right_align ? pad + cell : cell + pad;
  }
  while (!text_.empty() && text_.back() == ' ') text_.pop_back();
  out_ << text_ << '\n';
}

}  // namespace gpubill::cli
