// Private to the CLI's output: cells as JSON values, appended to a buffer by hand (exports write
// millions of rows; building nlohmann objects for them costs several times more).
#pragma once

#include <string>
#include <string_view>

#include "output.hpp"

namespace gpubill::cli {

// s as a JSON string literal; a byte that is not UTF-8 becomes U+FFFD.
void append_json_string(std::string& out, std::string_view s);

// A cell as a JSON value of its column's kind (output.hpp's Kind); a cell that is not of that
// kind stays a string. An empty cell is null ([] for integer_list).
void append_json_value(std::string& out, std::string_view cell, Kind kind);

}  // namespace gpubill::cli
