#include "text_table.hpp"

#include <algorithm>
#include <cstdint>
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
    : out_(out), columns_(std::move(columns)), layout_(layout) {
  shown_.assign(columns_.size(), true);
}

std::string TextTable::footnote_cell(const std::string& notes) {
  std::string cell;
  std::size_t start = 0;
  while (start < notes.size()) {
    std::size_t end = notes.find("; ", start);
    if (end == std::string::npos) end = notes.size();
    const std::string note = notes.substr(start, end - start);
    start = end + 2;
    if (note.empty()) continue;
    auto it = std::find(footnotes_.begin(), footnotes_.end(), note);
    if (it == footnotes_.end()) it = footnotes_.insert(footnotes_.end(), note);
    cell += (cell.empty() ? "" : ",") + std::to_string(it - footnotes_.begin() + 1);
  }
  return cell;
}

void TextTable::row(const std::vector<std::string>& cells) {
  ++rows_;
  std::vector<std::string> shown = cells;
  for (std::size_t c = 0; c < columns_.size() && c < shown.size(); ++c) {
    if (columns_[c].footnote) shown[c] = footnote_cell(shown[c]);
  }
  if (widths_.empty()) {
    held_.push_back(std::move(shown));
    if (held_.size() >= kTextSampleRows) settle_widths();
    return;
  }
  line(shown);
}

namespace {

// Where a word too wide for `room` columns may be broken: after the last '/', ':' or '@' that
// keeps its first part within `room` (a source such as "owner/repo@commit:path"); npos when
// there is none. These are ASCII bytes, so a break never splits a UTF-8 character.
std::size_t word_break(const std::string& word, std::size_t room) {
  std::size_t best = std::string::npos;
  for (std::size_t i = 0; i + 1 < word.size(); ++i) {
    const char c = word[i];
    if (c != '/' && c != ':' && c != '@') continue;
    if (display_width(std::string_view(word).substr(0, i + 1)) > room) break;
    best = i + 1;
  }
  return best;
}

}  // namespace

void write_wrapped(std::ostream& out, const std::string& text, const std::string& first,
                   const std::string& rest, std::size_t width) {
  std::string line = first;
  bool empty = true;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    std::string word = text.substr(start, end - start);
    start = end + 1;
    if (word.empty()) continue;
    const std::size_t columns = display_width(line) + (empty ? 0 : 1) + display_width(word);
    if (!empty && columns > width) {
      out << line << "\n";
      line = rest;
      empty = true;
    }
    // A word wider than a whole line is broken where it may be, each piece on its own line.
    while (empty && display_width(line) + display_width(word) > width) {
      const std::size_t room = width > display_width(line) ? width - display_width(line) : 0;
      const std::size_t cut = word_break(word, room);
      if (cut == std::string::npos) break;
      out << line << word.substr(0, cut) << "\n";
      word.erase(0, cut);
      line = rest;
    }
    line += (empty ? "" : " ") + word;
    empty = false;
  }
  out << line << "\n";
}

void TextTable::finish() {
  if (rows_ == 0) {
    out_ << "(none)\n";
    return;
  }
  if (widths_.empty()) settle_widths();
  // Under a width limit the notes are wrapped to it too; into a pipe each stays on one line.
  const std::size_t width = layout_.width == 0 ? SIZE_MAX : layout_.width;
  if (!dropped_names_.empty()) {
    write_wrapped(out_,
                  "(" + join(dropped_names_, ", ") + " left out to fit " +
                      std::to_string(layout_.width) + " columns; --wide shows every column)",
                  "", " ", width);
  }
  for (std::size_t i = 0; i < footnotes_.size(); ++i) {
    const std::string number = "[" + std::to_string(i + 1) + "] ";
    write_wrapped(out_, footnotes_[i], number, std::string(number.size(), ' '), width);
  }
}

std::size_t TextTable::span_width(std::size_t from, std::size_t to) const {
  std::size_t total = 0, n = 0;
  for (std::size_t c = from; c < to; ++c) {
    if (!shown_[c]) continue;
    total += widths_[c];
    ++n;
  }
  return n == 0 ? 0 : total + 2 * (n - 1);
}

std::size_t TextTable::total_width() const {
  return span_width(0, columns_.size());
}

void TextTable::fold_width() {
  if (total_width() <= layout_.width) return;
  // The latest column to start the second line at whose both lines fit; else the one that
  // makes the wider line narrowest.
  std::size_t best = 0, best_width = total_width();
  for (std::size_t f = 1; f < columns_.size(); ++f) {
    if (!shown_[f]) continue;
    const std::size_t wider =
        std::max(span_width(0, f), kFoldIndent + span_width(f, columns_.size()));
    if (wider <= layout_.width) {
      best = f;
      best_width = wider;
    } else if (best_width > layout_.width && wider < best_width) {
      best = f;
      best_width = wider;
    }
  }
  fold_ = best;
}

void TextTable::fit_width() {
  const std::size_t n = columns_.size();
  // Leave out droppable columns, the highest rank first.
  while (total_width() > layout_.width) {
    std::size_t pick = n;
    for (std::size_t c = 0; c < n; ++c) {
      if (!shown_[c] || columns_[c].drop <= 0) continue;
      if (pick == n || columns_[c].drop > columns_[pick].drop) pick = c;
    }
    if (pick == n) break;
    shown_[pick] = false;
    dropped_names_.push_back(columns_[pick].name);
  }
  // Then narrow the widest text column that does not identify the row, one at a time, down to
  // kMinElidedWidth (numbers and identifying columns are never cut).
  const std::vector<std::size_t> natural = widths_;
  while (total_width() > layout_.width) {
    std::size_t widest = n;
    for (std::size_t c = 0; c < n; ++c) {
      if (!shown_[c] || columns_[c].right_align || columns_[c].identifying) continue;
      if (widths_[c] <= kMinElidedWidth) continue;
      if (widest == n || widths_[c] > widths_[widest]) widest = c;
    }
    if (widest == n) break;
    const std::size_t excess = total_width() - layout_.width;
    widths_[widest] =
        std::max(kMinElidedWidth, widths_[widest] - std::min(excess, widths_[widest]));
  }
  fold_width();
  if (fold_ > 0) widen_in_fold(natural);
}

// A fold frees room on each line: a column cut before it gets back what its line can hold.
void TextTable::widen_in_fold(const std::vector<std::size_t>& natural) {
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    if (!shown_[c] || widths_[c] >= natural[c]) continue;
    const std::size_t used =
        c < fold_ ? span_width(0, fold_) : kFoldIndent + span_width(fold_, columns_.size());
    if (used >= layout_.width) continue;
    widths_[c] += std::min(natural[c] - widths_[c], layout_.width - used);
  }
}

void TextTable::settle_widths() {
  const std::size_t n = columns_.size();
  widths_.assign(n, 0);
  for (std::size_t c = 0; c < n; ++c) {
    widths_[c] = display_width(columns_[c].name);
    for (const auto& r : held_) {
      // A column's own limit is for terminals too: --wide and pipes show every cell whole.
      const std::size_t limit =
          layout_.width > 0 && !columns_[c].identifying ? columns_[c].max_width : 0;
      widths_[c] = std::max(widths_[c], display_width(fit(r.at(c), limit)));
    }
  }
  if (layout_.width > 0) fit_width();
  std::vector<std::string> header;
  for (const auto& c : columns_) header.push_back(c.name);
  line(header);
  std::string rule;
  for (std::size_t c = 0; c < n; ++c) {
    if (!shown_[c]) continue;
    if (fold_ > 0 && c == fold_) {
      out_ << rule << '\n';
      rule = std::string(kFoldIndent, ' ');
    } else if (!rule.empty() && rule.find_first_not_of(' ') != std::string::npos) {
      rule += "  ";
    }
    rule += std::string(widths_[c], '-');
  }
  out_ << rule << '\n';
  for (const auto& r : held_) line(r);
  held_.clear();
  held_.shrink_to_fit();
}

void TextTable::line(const std::vector<std::string>& cells) {
  text_.clear();
  bool first = true;
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    if (!shown_[c]) continue;
    if (fold_ > 0 && c == fold_) {  // the rest of the row on a line of its own
      while (!text_.empty() && text_.back() == ' ') text_.pop_back();
      out_ << text_ << '\n';
      text_.assign(kFoldIndent, ' ');
      first = true;
    }
    // A number or an identifying cell longer than the sample's is shown whole (out of line),
    // never cut.
    const bool whole = columns_[c].right_align || columns_[c].identifying;
    const std::string cell = whole ? cells.at(c) : fit(cells.at(c), widths_[c]);
    const std::string pad(widths_[c] - std::min(widths_[c], display_width(cell)), ' ');
    if (!first) text_ += "  ";
    first = false;
    text_ += columns_[c].right_align ? pad + cell : cell + pad;
  }
  while (!text_.empty() && text_.back() == ' ') text_.pop_back();
  out_ << text_ << '\n';
}

}  // namespace gpubill::cli
