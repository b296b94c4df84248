#include "csv_reader.hpp"

#include "gpubill/errors.hpp"

namespace gpubill {

std::vector<CsvRecord> parse_csv(std::string_view text, const std::string& file) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  std::vector<CsvRecord> records;
  std::size_t line = 1, i = 0;
  const auto fail = [&](std::size_t at_line, const std::string& reason) {
    throw InputError(file, "line " + std::to_string(at_line), "", reason);
  };
  while (i < text.size()) {
    CsvRecord rec;
    rec.line = line;
    if (text[i] == '\n' || (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n')) {
      i += text[i] == '\r' ? 2 : 1;  // blank line
      ++line;
      continue;
    }
    bool end_of_record = false;
    while (!end_of_record) {
      std::string field;
      if (i < text.size() && text[i] == '"') {
        const std::size_t start_line = line;
        ++i;
        while (true) {
          if (i >= text.size()) fail(start_line, "a quoted field is not closed");
          const char c = text[i++];
          if (c == '"') {
            if (i < text.size() && text[i] == '"') {
              field += '"';
              ++i;
              continue;
            }
            break;
          }
          if (c == '\n') ++line;
          field += c;
        }
        if (i < text.size() && text[i] != ',' && text[i] != '\n' && text[i] != '\r') {
          fail(line, "unexpected text after a closing quote (field " +
                         std::to_string(rec.fields.size() + 1) + ")");
        }
      } else {
        while (i < text.size() && text[i] != ',' && text[i] != '\n' && text[i] != '\r') {
          if (text[i] == '"') {
            fail(line, "a double quote inside an unquoted field (field " +
                           std::to_string(rec.fields.size() + 1) + ")");
          }
          field += text[i++];
        }
      }
      rec.fields.push_back(std::move(field));
      if (i >= text.size()) {
        end_of_record = true;
      } else if (text[i] == ',') {
        ++i;
      } else if (text[i] == '\n' || text[i] == '\r') {
        if (text[i] == '\r') {
          ++i;
          if (i < text.size() && text[i] != '\n')
            fail(line, "a carriage return without a line feed");
        }
        if (i < text.size()) ++i;
        ++line;
        end_of_record = true;
      }
    }
    records.push_back(std::move(rec));
  }
  return records;
}

}  // namespace gpubill
