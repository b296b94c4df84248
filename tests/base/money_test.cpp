#include <catch2/catch.hpp>

#include "gpubill/base/errors.hpp"
#include "gpubill/base/money.hpp"

using gpubill::Currency;
using gpubill::Decimal;
using gpubill::Money;

TEST_CASE("money keeps its currency", "[money]") {
  const Money a = Money::parse("13.86 CNY");
  const Money b = Money::parse("0.14 CNY");
  CHECK((a + b).to_string() == "14 CNY");
  CHECK((a - b).amount() == Decimal::parse("13.72"));
  CHECK((a * 2).to_string() == "27.72 CNY");
  CHECK((a * Decimal::parse("0.5")).to_string() == "6.93 CNY");
  CHECK(a > b);
  CHECK(Money::parse("-0.01 USD").to_string() == "-0.01 USD");
}

TEST_CASE("different currencies do not mix", "[money]") {
  const Money cny = Money::parse("1 CNY");
  const Money usd = Money::parse("1 USD");
  CHECK_THROWS_AS(cny + usd, gpubill::CurrencyMismatch);
  CHECK_THROWS_AS(cny - usd, gpubill::CurrencyMismatch);
  CHECK_THROWS_AS((void)(cny < usd), gpubill::CurrencyMismatch);
  CHECK_FALSE(cny == usd);
  CHECK_THROWS_WITH(cny + usd, Catch::Contains("different currencies"));
}

TEST_CASE("currency codes are checked", "[money]") {
  CHECK(Currency::parse("CNY").code() == "CNY");
  CHECK_THROWS_AS(Currency::parse("RMB"), gpubill::ParseError);
  CHECK_THROWS_AS(Currency::parse("usd"), gpubill::ParseError);
  CHECK_THROWS_AS(Money::parse("13.86"), gpubill::ParseError);
  CHECK_THROWS_AS(Money::parse("13.8.6 CNY"), gpubill::ParseError);
}
