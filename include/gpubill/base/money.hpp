// Money: an exact Decimal amount tagged with its currency. Arithmetic between two currencies
// throws CurrencyMismatch; there is no implicit conversion (see catalog.hpp for dated FX).
#pragma once

#include <array>
#include <compare>
#include <string>
#include <string_view>

#include "gpubill/base/decimal.hpp"

namespace gpubill {

// An ISO 4217 code from the set gpubill knows (CNY, USD, EUR, HKD, JPY, SGD, GBP, KRW, INR).
class Currency {
 public:
  // Throws ParseError for a code that is not three upper-case letters of a known currency.
  static Currency parse(std::string_view code);
  static bool is_known(std::string_view code) noexcept;
  std::string_view code() const noexcept { return {code_.data(), code_.size()}; }
  std::string to_string() const { return std::string(code()); }
  friend bool operator==(const Currency&, const Currency&) = default;
  friend auto operator<=>(const Currency&, const Currency&) = default;

 private:
  std::array<char, 3> code_{};
};

class Money {
 public:
  Money(Decimal amount, Currency currency) noexcept : amount_(amount), currency_(currency) {}
  static Money zero(Currency c) noexcept { return Money(Decimal{}, c); }
  // Parses "13.86 CNY" (amount, one space, code). Throws ParseError.
  static Money parse(std::string_view text);

  Decimal amount() const noexcept { return amount_; }
  Currency currency() const noexcept { return currency_; }

  // "13.86 CNY" with the shortest exact amount text.
  std::string to_string() const;

  Money round(int decimals, RoundingMode mode) const {
    return {amount_.round(decimals, mode), currency_};
  }

  // Throw CurrencyMismatch when the currencies differ.
  friend Money operator+(const Money& a, const Money& b);
  friend Money operator-(const Money& a, const Money& b);
  friend Money operator-(const Money& a) { return {-a.amount_, a.currency_}; }
  friend Money operator*(const Money& a, std::int64_t n) { return {a.amount_ * n, a.currency_}; }
  // Multiplies by a factor (a discount, a quantity), rounded half-even to 12 decimals.
  friend Money operator*(const Money& a, Decimal f) { return {a.amount_ * f, a.currency_}; }
  Money& operator+=(const Money& b) { return *this = *this + b; }
  Money& operator-=(const Money& b) { return *this = *this - b; }

  // Compares amounts; throws CurrencyMismatch when the currencies differ.
  friend std::strong_ordering operator<=>(const Money& a, const Money& b);
  friend bool operator==(const Money& a, const Money& b) noexcept {
    return a.currency_ == b.currency_ && a.amount_ == b.amount_;
  }

 private:
  Decimal amount_;
  Currency currency_;
};

}  // namespace gpubill
