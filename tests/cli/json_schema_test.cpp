// The schema validator the CLI tests check outputs with (json_schema.hpp), and that every schema
// in docs/schemas/ uses only the keywords it checks.
#include <catch2/catch.hpp>

#include <filesystem>

#include "json_schema.hpp"

using gpubill::testing::JsonSchema;
using nlohmann::json;

TEST_CASE("the schema validator reports each kind of violation", "[schema]") {
  const JsonSchema schema(json::parse(R"({
    "type": "object",
    "properties": {
      "schema_version": {"const": 1},
      "rows": {"type": "array", "items": {"$ref": "#/$defs/row"}}
    },
    "required": ["schema_version", "rows"],
    "additionalProperties": false,
    "$defs": {
      "row": {
        "type": "object",
        "properties": {
          "id": {"type": "integer"},
          "total": {"type": "string", "pattern": "^-?[0-9]+(\\.[0-9]+)?$"},
          "kind": {"enum": ["a", "b"]},
          "note": {"anyOf": [{"type": "string"}, {"type": "null"}]}
        },
        "required": ["id"],
        "additionalProperties": false
      }
    }
  })"));
  CHECK(schema
            .errors(json::parse(R"({"schema_version": 1, "rows": [
    {"id": 1, "total": "12.34", "kind": "a", "note": null}]})"))
            .empty());
  const auto errors = schema.errors(json::parse(R"({"schema_version": 2, "extra": 0, "rows": [
    {"id": "1", "total": "12,34", "kind": "c", "note": 5, "more": true}, {}]})"));
  // In the schema's keyword order (nlohmann sorts keys), depth first.
  const std::vector<std::string> expected = {
      ": the member \"extra\" is unknown",
      "/rows/0: the member \"more\" is unknown",
      "/rows/0/id: \"1\" is not of type \"integer\"",
      "/rows/0/kind: \"c\" is not one of [\"a\",\"b\"]",
      "/rows/0/note: 5 matches none of [{\"type\":\"string\"},{\"type\":\"null\"}]",
      "/rows/0/total: \"12,34\" does not match \"^-?[0-9]+(\\\\.[0-9]+)?$\"",
      "/rows/1: the member \"id\" is missing",
      "/schema_version: 2 is not 1"};
  CHECK(errors == expected);
  CHECK_THROWS_WITH(JsonSchema(json::parse(R"({"minimum": 1})")).errors(json(1)),
                    "the schema keyword 'minimum' is not supported");
}

TEST_CASE("every schema in docs/schemas is a gpubill document of version 1", "[schema]") {
  int n = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(GPUBILL_SOURCE_DIR) + "/docs/schemas")) {
    if (entry.path().extension() != ".json") continue;
    ++n;
    const JsonSchema schema = JsonSchema::load(entry.path().filename().string());
    INFO(entry.path().filename());
    // Every keyword is one the validator checks (it throws on others), and the envelope is
    // required: a document without schema_version, or of another version, is refused.
    CHECK_FALSE(schema.errors(json::object()).empty());
    CHECK_FALSE(schema.errors(json{{"schema_version", 2}}).empty());
  }
  CHECK(n == 22);
}
