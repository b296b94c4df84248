// Private to the fetch area: reading a price list response with simdjson's On-Demand parser,
// every value checked for its type, every error naming the file, the JSON pointer and the field.
#pragma once

#include <simdjson.h>

#include <string>
#include <string_view>

namespace gpubill::fetch_json {

namespace od = simdjson::ondemand;

// A response file loaded for On-Demand parsing (the text plus simdjson's padding and index).
class JsonFile {
 public:
  // `path` is read; `name` is what errors call it (a URL for a download). Throws InputError.
  JsonFile(const std::string& path, std::string name);
  od::document& document() noexcept { return doc_; }
  const std::string& name() const noexcept { return name_; }
  // The byte offset the parser has reached, for a syntax error ("byte 1234"); "" if unknown.
  std::string place();

 private:
  std::string name_;
  simdjson::padded_string text_;
  od::parser parser_;
  od::document doc_;
};

// An object field's key (unescaped), or the parser's exception.
template <typename Field>
std::string_view key_of(Field& field) {
  std::string_view key = field.unescaped_key();
  return key;
}

// Throws InputError(file, pointer, field, reason).
[[noreturn]] void shape_error(const std::string& file, const std::string& pointer,
                              std::string_view field, const std::string& reason);
// "the response changed shape? <field> is missing" for a required field.
[[noreturn]] void missing(const std::string& file, const std::string& pointer,
                          std::string_view field);

// The value as a string / object / array, else a shape error naming what it is instead.
std::string_view as_string(od::value value, const std::string& file, const std::string& pointer,
                           std::string_view field);
od::object as_object(od::value value, const std::string& file, const std::string& pointer,
                     std::string_view field);
od::array as_array(od::value value, const std::string& file, const std::string& pointer,
                   std::string_view field);
// A JSON number's text, else a shape error.
std::string_view number_text(od::value value, const std::string& file, const std::string& pointer,
                             std::string_view field);
// A JSON integer, else a shape error.
std::int64_t as_int(od::value value, const std::string& file, const std::string& pointer,
                    std::string_view field);

// Runs `work`; a simdjson error (syntax, UTF-8) becomes InputError naming the file and place.
template <typename Work>
auto parsing(JsonFile& file, Work work) {
  try {
    return work();
  } catch (const simdjson::simdjson_error& e) {
    shape_error(file.name(), file.place(), "", std::string("not valid JSON: ") + e.what());
  }
}

}  // namespace gpubill::fetch_json
