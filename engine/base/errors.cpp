#include "gpubill/base/errors.hpp"

#include "base/text_check.hpp"

namespace gpubill {

namespace {
std::string describe(const std::string& file, const std::string& place, const std::string& field,
                     const std::string& reason) {
  std::string out = file;
  if (!place.empty()) out += ":" + place;
  if (!field.empty()) out += ": field '" + field + "'";
  out += ": " + reason;
  return out;
}
}  // namespace

InputError::InputError(std::string file, std::string place, std::string field,
                       const std::string& reason)
    : Error(describe(file, place, field, reason)),
      file_(std::move(file)),
      place_(std::move(place)),
      field_(std::move(field)),
      reason_(reason) {}

std::string printable(std::string_view message) {
  return text_check::escaped(message);
}

}  // namespace gpubill
