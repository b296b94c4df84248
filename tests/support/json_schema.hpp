// A JSON Schema (draft 2020-12) validator for the keywords docs/schemas/ uses: type, properties,
// required, additionalProperties, items, enum, const, pattern, anyOf, and $ref to "#/$defs/…".
// Annotations ($schema, $id, title, description, $comment) are ignored; any other keyword is
// reported as an error, so that a schema never silently asks for more than is checked.
#pragma once

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace gpubill::testing {

class JsonSchema {
 public:
  explicit JsonSchema(nlohmann::json schema) : root_(std::move(schema)) {}

  // The schema in a file of docs/schemas/ (GPUBILL_SOURCE_DIR/docs/schemas/<name>).
  static JsonSchema load(const std::string& name) {
    std::ifstream in(std::string(GPUBILL_SOURCE_DIR) + "/docs/schemas/" + name);
    if (!in) throw std::runtime_error("no schema docs/schemas/" + name);
    return JsonSchema(nlohmann::json::parse(in));
  }

  // Every violation, as "<JSON pointer>: <what>"; empty when `doc` is valid.
  std::vector<std::string> errors(const nlohmann::json& doc) const {
    std::vector<std::string> out;
    check(root_, doc, "", out);
    return out;
  }

 private:
  static bool has_type(const nlohmann::json& v, const std::string& type) {
    if (type == "object") return v.is_object();
    if (type == "array") return v.is_array();
    if (type == "string") return v.is_string();
    if (type == "integer") return v.is_number_integer();
    if (type == "number") return v.is_number();
    if (type == "boolean") return v.is_boolean();
    if (type == "null") return v.is_null();
    throw std::runtime_error("unknown type '" + type + "' in a schema");
  }

  const nlohmann::json& resolve(const std::string& ref) const {
    const std::string prefix = "#/$defs/";
    if (ref.rfind(prefix, 0) != 0) throw std::runtime_error("unsupported $ref " + ref);
    return root_.at("$defs").at(ref.substr(prefix.size()));
  }

  void check(const nlohmann::json& s, const nlohmann::json& v, const std::string& at,
             std::vector<std::string>& out) const {
    static const std::set<std::string> annotations = {"$schema",     "$id",      "title",
                                                      "description", "$comment", "$defs"};
    for (const auto& [key, value] : s.items()) {
      if (annotations.count(key)) continue;
      if (key == "$ref") {
        check(resolve(value.get<std::string>()), v, at, out);
      } else if (key == "type") {
        const auto types = value.is_array() ? value : nlohmann::json::array({value});
        bool ok = false;
        for (const auto& t : types) ok = ok || has_type(v, t.get<std::string>());
        if (!ok) out.push_back(at + ": " + v.dump() + " is not of type " + value.dump());
      } else if (key == "anyOf") {
        bool ok = false;
        for (const auto& branch : value) {
          std::vector<std::string> branch_errors;
          check(branch, v, at, branch_errors);
          ok = ok || branch_errors.empty();
        }
        if (!ok) out.push_back(at + ": " + v.dump() + " matches none of " + value.dump());
      } else if (key == "enum") {
        bool ok = false;
        for (const auto& e : value) ok = ok || e == v;
        if (!ok) out.push_back(at + ": " + v.dump() + " is not one of " + value.dump());
      } else if (key == "const") {
        if (v != value) out.push_back(at + ": " + v.dump() + " is not " + value.dump());
      } else if (key == "pattern") {
        if (v.is_string() &&
            !std::regex_search(v.get<std::string>(), std::regex(value.get<std::string>()))) {
          out.push_back(at + ": " + v.dump() + " does not match " + value.dump());
        }
      } else if (key == "required") {
        if (!v.is_object()) continue;
        for (const auto& name : value) {
          if (!v.contains(name.get<std::string>())) {
            out.push_back(at + ": the member " + name.dump() + " is missing");
          }
        }
      } else if (key == "properties") {
        if (!v.is_object()) continue;
        for (const auto& [name, sub] : value.items()) {
          if (v.contains(name)) check(sub, v.at(name), at + "/" + name, out);
        }
      } else if (key == "additionalProperties") {
        if (!v.is_object()) continue;
        const auto& declared = s.contains("properties") ? s.at("properties") : nlohmann::json();
        for (const auto& [name, member] : v.items()) {
          if (declared.is_object() && declared.contains(name)) continue;
          if (value.is_boolean()) {
            if (!value.get<bool>()) out.push_back(at + ": the member \"" + name + "\" is unknown");
          } else {
            check(value, member, at + "/" + name, out);
          }
        }
      } else if (key == "items") {
        if (!v.is_array()) continue;
        for (std::size_t i = 0; i < v.size(); ++i) {
          check(value, v[i], at + "/" + std::to_string(i), out);
        }
      } else {
        throw std::runtime_error("the schema keyword '" + key + "' is not supported");
      }
    }
  }

  nlohmann::json root_;
};

// Checks `doc` against docs/schemas/<schema_file>, listing every violation on failure.
inline void check_schema(const std::string& schema_file, const nlohmann::json& doc) {
  const auto errors = JsonSchema::load(schema_file).errors(doc);
  std::string listed;
  for (const auto& e : errors) listed += e + "\n";
  INFO(schema_file << ":\n" << listed);
  CHECK(errors.empty());
}

}  // namespace gpubill::testing
