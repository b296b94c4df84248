#include "gpubill/base/money.hpp"

#include <algorithm>

#include "gpubill/base/errors.hpp"

namespace gpubill {

namespace {
constexpr std::array<std::string_view, 9> kKnownCurrencies = {"CNY", "USD", "EUR", "HKD", "JPY",
                                                              "SGD", "GBP", "KRW", "INR"};

void require_same(const Money& a, const Money& b, const char* what) {
  if (a.currency() != b.currency()) {
    throw CurrencyMismatch(std::string("cannot ") + what + " " + a.to_string() + " and " +
                           b.to_string() + ": different currencies");
  }
}
}  // namespace

bool Currency::is_known(std::string_view code) noexcept {
  return std::find(kKnownCurrencies.begin(), kKnownCurrencies.end(), code) !=
         kKnownCurrencies.end();
}

Currency Currency::parse(std::string_view code) {
  if (!is_known(code)) {
    throw ParseError("unknown currency '" + std::string(code) +
                     "' (known: CNY, USD, EUR, HKD, JPY, SGD, GBP, KRW, INR)");
  }
  Currency c;
  std::copy(code.begin(), code.end(), c.code_.begin());
  return c;
}

Money Money::parse(std::string_view text) {
  const auto space = text.find(' ');
  if (space == std::string_view::npos) {
    throw ParseError("'" + std::string(text) +
                     "' is not an amount with a currency (\"13.86 CNY\")");
  }
  return {Decimal::parse(text.substr(0, space)), Currency::parse(text.substr(space + 1))};
}

std::string Money::to_string() const {
  return amount_.to_string() + " " + currency_.to_string();
}

Money operator+(const Money& a, const Money& b) {
  require_same(a, b, "add");
  return {a.amount_ + b.amount_, a.currency_};
}

Money operator-(const Money& a, const Money& b) {
  require_same(a, b, "subtract");
  return {a.amount_ - b.amount_, a.currency_};
}

std::strong_ordering operator<=>(const Money& a, const Money& b) {
  require_same(a, b, "compare");
  return a.amount_ <=> b.amount_;
}

}  // namespace gpubill
