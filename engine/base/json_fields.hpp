// Private to the engine: strict reading of one JSON object of an input file (a catalog row, a
// usage-log event). Every accessor names the file, the object's JSON pointer and the field in
// the InputError it throws, so a bad value is easy to find.
//
// Conventions: amounts and other decimals must be JSON strings ("13.86"), never JSON numbers;
// integers must be JSON integers; an absent field and a field whose value is null are the same
// ("unknown"). Keys not in the object's allowed set are rejected when the object is opened.
#pragma once

#include <nlohmann/json.hpp>

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "gpubill/base/errors.hpp"
#include "gpubill/base/money.hpp"
#include "gpubill/base/time.hpp"

namespace gpubill::json_input {

using json = nlohmann::json;

// "/prices/3" + "amount" → "/prices/3/amount" (with JSON pointer escaping of ~ and /).
std::string child_pointer(const std::string& pointer, std::string_view key);
std::string child_pointer(const std::string& pointer, std::size_t index);

// Parses text as JSON, rejecting duplicate keys in an object. A syntax error throws
// InputError(file, "line N", "", reason); a duplicate key throws InputError(file, pointer of
// the object, key, "duplicate field").
json parse_document(std::string_view text, const std::string& file);

class Fields {
 public:
  // Throws InputError when `value` is not an object or has a key outside `allowed`.
  Fields(const json& value, std::string pointer, const std::string& file,
         std::initializer_list<std::string_view> allowed);

  const std::string& pointer() const noexcept { return pointer_; }
  const std::string& file() const noexcept { return file_; }
  [[noreturn]] void fail(std::string_view field, const std::string& reason) const;

  // The value of a field; nullptr when absent or null.
  const json* find(std::string_view key) const;
  bool has(std::string_view key) const { return find(key) != nullptr; }

  // A non-empty string. Throws when missing, not a string, empty, longer than 4096 bytes or
  // holding a control character (text_check.hpp).
  std::string text(std::string_view key) const;
  // A string, or `fallback` when absent; checked like text().
  std::string opt_text(std::string_view key, std::string fallback = {}) const;

  // A decimal written as a JSON string. `min` (when given) is an inclusive lower bound.
  Decimal decimal(std::string_view key, std::optional<Decimal> min = Decimal{}) const;
  std::optional<Decimal> opt_decimal(std::string_view key,
                                     std::optional<Decimal> min = Decimal{}) const;

  // A JSON integer in [min, max].
  int integer(std::string_view key, int min, int max) const;
  std::optional<int> opt_integer(std::string_view key, int min, int max) const;
  int integer_or(std::string_view key, int fallback, int min, int max) const;

  bool boolean_or(std::string_view key, bool fallback) const;

  Currency currency(std::string_view key) const;

  // "YYYY-MM-DD" or an RFC 3339 instant; a bare date is 00:00 UTC.
  Instant instant(std::string_view key) const;
  // A valid "YYYY-MM-DD", returned as written.
  std::string day_text(std::string_view key) const;
  // effective_from (required) and effective_to (optional, null = open); effective_to must be
  // after effective_from.
  Effective period() const;

  // An array field (empty when absent); throws when present but not an array.
  const json& array(std::string_view key) const;

 private:
  void check_text(std::string_view key, const std::string& s) const;

  const json& value_;
  std::string pointer_;
  const std::string& file_;
};

// A JSON integer value in [min, max], or nullopt when it is not one.
std::optional<int> as_int(const json& v, int min, int max);

}  // namespace gpubill::json_input
