// Private to the engine: the one RFC 4180 CSV reader for input files (SkyPilot catalogs and
// usage logs).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gpubill {

struct CsvRecord {
  std::size_t line = 0;  // 1-based line on which the record starts
  std::vector<std::string> fields;
};

// Reads records one at a time: fields separated by commas, records by LF or CRLF. A field in
// double quotes may hold commas and "" (one quote), and line breaks unless they are refused;
// an unquoted field is taken as is. Empty lines are skipped. Errors throw
// InputError(file, "line N", "", reason): a quote inside an unquoted field, text after a
// closing quote, a quoted field that never ends, a carriage return without a line feed.
class CsvScanner {
 public:
  enum class LineBreaks { allowed_in_quotes, refused };
  // `first_line` is the line number of the first byte of `text` (a log reads line by line).
  CsvScanner(std::string_view text, const std::string& file, std::size_t first_line = 1,
             LineBreaks breaks = LineBreaks::allowed_in_quotes);
  // The next record into `out` (its fields replaced); false at the end of the text.
  bool next(CsvRecord& out);

 private:
  [[noreturn]] void fail(std::size_t line, const std::string& reason) const;
  void quoted_field(std::string& field, std::size_t field_number);
  void plain_field(std::string& field, std::size_t field_number);

  std::string_view text_;
  const std::string& file_;
  std::size_t pos_ = 0;
  std::size_t line_;
  LineBreaks breaks_;
};

// Every record of a whole file's text; a UTF-8 byte order mark at the start is ignored.
std::vector<CsvRecord> parse_csv(std::string_view text, const std::string& file);

}  // namespace gpubill
