// Private to the engine: an RFC 4180 CSV reader for input files (SkyPilot catalogs, usage logs).
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

// Splits text into records: fields separated by commas, records by LF or CRLF. A field in
// double quotes may hold commas, line breaks and "" (one quote); an unquoted field is taken as
// is. Blank lines are skipped; a UTF-8 byte order mark at the start is ignored. Throws
// InputError(file, "line N", "", reason) for a quote inside an unquoted field, text after a
// closing quote, or a quoted field that never ends.
std::vector<CsvRecord> parse_csv(std::string_view text, const std::string& file);

}  // namespace gpubill
