// Private to the library: the words gpubill's messages use for the JSON type of a value read
// with simdjson's On-Demand parser (usage logs, providers' price lists).
#pragma once

#include <simdjson.h>

namespace gpubill {

// "an array", "an object", "a number", "a string", "a boolean", "null".
inline const char* json_type_name(simdjson::ondemand::json_type type) noexcept {
  switch (type) {
    case simdjson::ondemand::json_type::array:
      return "an array";
    case simdjson::ondemand::json_type::object:
      return "an object";
    case simdjson::ondemand::json_type::number:
      return "a number";
    case simdjson::ondemand::json_type::string:
      return "a string";
    case simdjson::ondemand::json_type::boolean:
      return "a boolean";
    case simdjson::ondemand::json_type::null:
      return "null";
  }
  return "?";
}

}  // namespace gpubill
