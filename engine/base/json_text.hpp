// Private to the engine: appending JSON text to a string by hand, for the hot paths (a usage
// event's canonical form, the saved replay state) where building nlohmann objects costs
// several times more. Output is compact JSON that nlohmann parses back unchanged.
#pragma once

#include <string>
#include <string_view>

namespace gpubill::json_text {

// Appends s as a JSON string literal: quotes, backslashes and control characters escaped;
// other bytes (UTF-8 included) copied as they are.
void append_string(std::string& out, std::string_view s);

}  // namespace gpubill::json_text
