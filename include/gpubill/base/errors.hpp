// Error types of gpubill. Every error derives from gpubill::Error (a std::runtime_error), so
// a caller can catch one type; the CLI turns them into a one-line message and exit status.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace gpubill {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Text that does not parse: a decimal, an instant, a currency code, a rounding mode name.
class ParseError : public Error {
 public:
  using Error::Error;
};

// An exact amount left the representable range (about ±1.7e26 at 12 decimals).
class OverflowError : public Error {
 public:
  using Error::Error;
};

// Adding, subtracting or comparing amounts of two different currencies.
class CurrencyMismatch : public Error {
 public:
  using Error::Error;
};

// Something looked up in the catalog is not there (an unknown GPU, provider, price, FX rate).
class NotFound : public Error {
 public:
  using Error::Error;
};

// The database: cannot open, written by a newer gpubill, a failed statement.
class StoreError : public Error {
 public:
  using Error::Error;
};

// Bad input in a file: names the file, the place (line or JSON pointer) and the field.
class InputError : public Error {
 public:
  InputError(std::string file, std::string place, std::string field, const std::string& reason);
  const std::string& file() const noexcept { return file_; }
  const std::string& place() const noexcept { return place_; }
  const std::string& field() const noexcept { return field_; }
  const std::string& reason() const noexcept { return reason_; }

 private:
  std::string file_, place_, field_, reason_;
};

// A message for a terminal: control characters (but tab and newline) and bytes that are not
// UTF-8 written as \xHH. Error messages quote input, and input may hold escape sequences.
// Never throws (but std::bad_alloc).
std::string printable(std::string_view message);

}  // namespace gpubill
