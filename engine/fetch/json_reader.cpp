// Reading price list responses with simdjson's On-Demand parser (json_reader.hpp).
#include "fetch/json_reader.hpp"

#include "base/simdjson_types.hpp"
#include "gpubill/base/errors.hpp"

namespace gpubill::fetch_json {

namespace {

std::string type_name(od::value& value) {
  od::json_type type;
  if (value.type().get(type)) return "not valid JSON";
  return json_type_name(type);
}

[[noreturn]] void wrong_type(od::value& value, const std::string& file, const std::string& pointer,
                             std::string_view field, const char* expected) {
  shape_error(file, pointer, field,
              std::string("expected ") + expected + ", found " + type_name(value) +
                  " (the response changed shape?)");
}

bool is(od::value& value, od::json_type want) {
  od::json_type type;
  return !value.type().get(type) && type == want;
}

}  // namespace

JsonFile::JsonFile(const std::string& path, std::string name) : name_(std::move(name)) {
  if (simdjson::padded_string::load(path).get(text_)) {
    throw InputError(name_, "", "", "cannot read the response file " + path);
  }
  if (parser_.iterate(text_).get(doc_)) {
    throw InputError(name_, "", "", "not a JSON document");
  }
}

std::string JsonFile::place() {
  const char* at = nullptr;
  // Where the parser stopped; at the start it knows no better place than the file.
  if (doc_.current_location().get(at) || at == nullptr || at == text_.data()) return "";
  return "byte " + std::to_string(at - text_.data());
}

void shape_error(const std::string& file, const std::string& pointer, std::string_view field,
                 const std::string& reason) {
  throw InputError(file, pointer, std::string(field), reason);
}

void missing(const std::string& file, const std::string& pointer, std::string_view field) {
  shape_error(file, pointer, field, "missing (the response changed shape?)");
}

std::string_view as_string(od::value value, const std::string& file, const std::string& pointer,
                           std::string_view field) {
  std::string_view s;
  if (!is(value, od::json_type::string) || value.get_string().get(s)) {
    wrong_type(value, file, pointer, field, "a string");
  }
  return s;
}

od::object as_object(od::value value, const std::string& file, const std::string& pointer,
                     std::string_view field) {
  od::object o;
  if (!is(value, od::json_type::object) || value.get_object().get(o)) {
    wrong_type(value, file, pointer, field, "an object");
  }
  return o;
}

od::array as_array(od::value value, const std::string& file, const std::string& pointer,
                   std::string_view field) {
  od::array a;
  if (!is(value, od::json_type::array) || value.get_array().get(a)) {
    wrong_type(value, file, pointer, field, "an array");
  }
  return a;
}

std::string_view number_text(od::value value, const std::string& file, const std::string& pointer,
                             std::string_view field) {
  if (!is(value, od::json_type::number)) wrong_type(value, file, pointer, field, "a number");
  std::string_view raw = value.raw_json_token();
  while (!raw.empty() &&
         (raw.back() == ' ' || raw.back() == '\n' || raw.back() == '\r' || raw.back() == '\t')) {
    raw.remove_suffix(1);
  }
  return raw;
}

std::int64_t as_int(od::value value, const std::string& file, const std::string& pointer,
                    std::string_view field) {
  std::int64_t n = 0;
  if (!is(value, od::json_type::number) || value.get_int64().get(n)) {
    wrong_type(value, file, pointer, field, "an integer");
  }
  return n;
}

}  // namespace gpubill::fetch_json
