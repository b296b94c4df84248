#include "base/csv_reader.hpp"

#include "gpubill/base/errors.hpp"

namespace gpubill {

CsvScanner::CsvScanner(std::string_view text, const std::string& file, std::size_t first_line,
                       LineBreaks breaks)
    : text_(text), file_(file), line_(first_line), breaks_(breaks) {}

void CsvScanner::fail(std::size_t line, const std::string& reason) const {
  throw InputError(file_, "line " + std::to_string(line), "", reason);
}

void CsvScanner::quoted_field(std::string& field, std::size_t field_number) {
  const std::size_t start_line = line_;
  ++pos_;  // the opening quote
  while (true) {
    if (pos_ >= text_.size()) {
      fail(start_line, breaks_ == LineBreaks::refused
                           ? "a quoted field is not closed on its line (usage logs do not allow "
                             "line breaks inside fields)"
                           : "a quoted field is not closed");
    }
    const char c = text_[pos_++];
    if (c == '"') {
      if (pos_ < text_.size() && text_[pos_] == '"') {
        field += '"';
        ++pos_;
        continue;
      }
      break;
    }
    if (c == '\n') ++line_;
    field += c;
  }
  if (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != '\n' && text_[pos_] != '\r') {
    fail(line_,
         "unexpected text after a closing quote (field " + std::to_string(field_number) + ")");
  }
}

void CsvScanner::plain_field(std::string& field, std::size_t field_number) {
  const std::size_t start = pos_;
  while (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != '\n' && text_[pos_] != '\r') {
    if (text_[pos_] == '"') {
      fail(line_,
           "a double quote inside an unquoted field (field " + std::to_string(field_number) + ")");
    }
    ++pos_;
  }
  field.assign(text_.substr(start, pos_ - start));
}

bool CsvScanner::next(CsvRecord& out) {
  // Empty lines (LF or CRLF) between records are skipped.
  while (pos_ < text_.size()) {
    if (text_[pos_] == '\n') {
      ++pos_;
    } else if (text_[pos_] == '\r' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '\n') {
      pos_ += 2;
    } else {
      break;
    }
    ++line_;
  }
  if (pos_ >= text_.size()) return false;
  out.line = line_;
  out.fields.clear();
  while (true) {
    std::string& field = out.fields.emplace_back();
    if (text_[pos_] == '"') {  // pos_ < size here: an empty rest ended the record
      quoted_field(field, out.fields.size());
    } else {
      plain_field(field, out.fields.size());
    }
    if (pos_ >= text_.size()) return true;
    if (text_[pos_] == ',') {
      ++pos_;
      if (pos_ >= text_.size()) {  // a trailing comma: one more, empty field
        out.fields.emplace_back();
        return true;
      }
      continue;
    }
    // A line end closes the record.
    if (text_[pos_] == '\r') {
      ++pos_;
      if (pos_ < text_.size() && text_[pos_] != '\n') {
        fail(line_, "a carriage return without a line feed");
      }
    }
    if (pos_ < text_.size()) ++pos_;
    ++line_;
    return true;
  }
}

std::vector<CsvRecord> parse_csv(std::string_view text, const std::string& file) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  std::vector<CsvRecord> records;
  CsvScanner scanner(text, file);
  CsvRecord record;
  while (scanner.next(record)) records.push_back(std::move(record));
  return records;
}

}  // namespace gpubill
