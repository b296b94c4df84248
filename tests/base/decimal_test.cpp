#include <catch2/catch.hpp>

#include "gpubill/base/decimal.hpp"
#include "gpubill/base/errors.hpp"

using gpubill::Decimal;
using gpubill::RoundingMode;

namespace {
Decimal d(const char* s) {
  return Decimal::parse(s);
}
}  // namespace

TEST_CASE("decimals parse and print exactly", "[money][decimal]") {
  CHECK(d("13.86").to_string() == "13.86");
  CHECK(d("0.00064").to_string() == "0.00064");
  CHECK(d("-0.01").to_string() == "-0.01");
  CHECK(d("+5").to_string() == "5");
  CHECK(d("0.000000000001").to_string() == "0.000000000001");
  CHECK(d("1.230000000000000").to_string() == "1.23");  // zeros past 12 decimals are fine
  CHECK(d("123456789012345.123456789012").to_string() == "123456789012345.123456789012");
  CHECK(d("-0").to_string() == "0");
  CHECK(d("13.8").to_string(2) == "13.80");
  CHECK(d("-7").to_string(3) == "-7.000");
  CHECK_THROWS_AS(d("13.86").to_string(1), std::logic_error);
}

// to_string writes 64-bit values by a faster path than 128-bit ones: both are checked at the
// boundary between them and by round trips over every magnitude.
TEST_CASE("decimal text is exact on both sides of the 64-bit boundary", "[money][decimal]") {
  using gpubill::int128_t;
  const int128_t i64_max = INT64_MAX;
  CHECK(Decimal::from_units(i64_max).to_string() == "9223372.036854775807");
  CHECK(Decimal::from_units(i64_max + 1).to_string() == "9223372.036854775808");
  CHECK(Decimal::from_units(-i64_max - 1).to_string() == "-9223372.036854775808");
  CHECK(Decimal::from_units(10).to_string() == "0.00000000001");
  CHECK(Decimal::from_units(-1'000'000'000'010).to_string() == "-1.00000000001");
  CHECK(d("100").to_string() == "100");

  std::string appended = "x=";
  d("-12.5").append_to(appended);
  CHECK(appended == "x=-12.5");

  std::uint64_t state = 0x9E3779B97F4A7C15u;  // xorshift64: the same values every run
  const auto next = [&] {
    state ^= state << 13, state ^= state >> 7, state ^= state << 17;
    return state;
  };
  for (int i = 0; i < 20000; ++i) {
    const int digits = 1 + static_cast<int>(next() % 36);  // 1 to 36 digits of units
    int128_t units = 0;
    for (int k = 0; k < digits; ++k) units = units * 10 + static_cast<int128_t>(next() % 10);
    if (next() % 2 == 0) units = -units;
    const Decimal value = Decimal::from_units(units);
    INFO(value.to_string());
    REQUIRE(Decimal::parse(value.to_string()) == value);
  }
}

TEST_CASE("malformed decimals are rejected", "[money][decimal]") {
  for (const char* bad : {"", "-", ".", "5.", ".5x", "1e3", "1,000", " 1", "1 ", "0x10", "--1",
                          "1.0000000000001", "NaN", "inf"}) {
    INFO(bad);
    CHECK_FALSE(Decimal::try_parse(bad).has_value());
    CHECK_THROWS_AS(Decimal::parse(bad), gpubill::ParseError);
  }
  CHECK(Decimal::try_parse(".5") == d("0.5"));
}

TEST_CASE("rounding modes on ±x.5 tables", "[money][rounding]") {
  struct Row {
    const char* value;
    const char* half_up;
    const char* half_even;
    const char* down;
    const char* up;
  };
  // Rounded to 2 decimals.
  const Row rows[] = {
      {"0.125", "0.13", "0.12", "0.12", "0.13"},
      {"0.135", "0.14", "0.14", "0.13", "0.14"},
      {"-0.125", "-0.13", "-0.12", "-0.12", "-0.13"},
      {"-0.135", "-0.14", "-0.14", "-0.13", "-0.14"},
      {"2.5", "2.5", "2.5", "2.5", "2.5"},
      {"0.124999", "0.12", "0.12", "0.12", "0.13"},
      {"0.125001", "0.13", "0.13", "0.12", "0.13"},
      {"0.005", "0.01", "0", "0", "0.01"},
      {"-0.005", "-0.01", "0", "0", "-0.01"},
      {"0.015", "0.02", "0.02", "0.01", "0.02"},
      {"9.999", "10", "10", "9.99", "10"},
      {"0", "0", "0", "0", "0"},
  };
  for (const auto& r : rows) {
    INFO(r.value);
    CHECK(d(r.value).round(2, RoundingMode::half_up) == d(r.half_up));
    CHECK(d(r.value).round(2, RoundingMode::half_even) == d(r.half_even));
    CHECK(d(r.value).round(2, RoundingMode::down) == d(r.down));
    CHECK(d(r.value).round(2, RoundingMode::up) == d(r.up));
  }
  // Whole numbers: ±x.5 to 0 decimals.
  CHECK(d("0.5").round(0, RoundingMode::half_up) == d("1"));
  CHECK(d("1.5").round(0, RoundingMode::half_even) == d("2"));
  CHECK(d("2.5").round(0, RoundingMode::half_even) == d("2"));
  CHECK(d("-2.5").round(0, RoundingMode::half_even) == d("-2"));
  CHECK(d("-2.5").round(0, RoundingMode::half_up) == d("-3"));
}

TEST_CASE("arithmetic is exact and overflow throws", "[money][decimal]") {
  CHECK(d("0.1") + d("0.2") == d("0.3"));
  CHECK(d("13.86") * 3 == d("41.58"));
  CHECK(d("4400") * d("0.83") == d("3652"));
  // price per hour × seconds / 3600: 13.86 × 1800 s = 6.93
  CHECK(Decimal::divide(d("13.86") * 1800, 3600, 12, RoundingMode::half_even) == d("6.93"));
  CHECK(Decimal::divide(d("1"), d("3"), 4, RoundingMode::half_up) == d("0.3333"));
  CHECK(Decimal::divide(d("2"), d("3"), 4, RoundingMode::half_up) == d("0.6667"));
  CHECK(Decimal::divide(d("-2"), d("3"), 4, RoundingMode::down) == d("-0.6666"));
  CHECK(Decimal::multiply(d("0.000001"), d("0.000001"), RoundingMode::half_even) ==
        d("0.000000000001"));
  CHECK(Decimal::multiply(d("0.0000005"), d("0.000001"), RoundingMode::half_even) == d("0"));
  CHECK(Decimal::multiply(d("0.0000005"), d("0.000001"), RoundingMode::half_up) ==
        d("0.000000000001"));
  CHECK(Decimal::multiply(d("-1.5"), d("2.25"), RoundingMode::half_even) == d("-3.375"));
  // Large products that need the 128-bit split: 10^13 × 10^12.
  CHECK(d("10000000000000") * d("1000000000000") == d("10000000000000000000000000"));
  CHECK_THROWS_AS(d("100000000000000000000000000") * d("1000"), gpubill::OverflowError);
  CHECK_THROWS_AS(d("100000000000000000000000000") * 100000, gpubill::OverflowError);
  const Decimal big = Decimal::from_units(std::numeric_limits<gpubill::int128_t>::max());
  CHECK_THROWS_AS(big + d("0.000000000001"), gpubill::OverflowError);
  CHECK_THROWS_AS(Decimal::divide(d("1"), d("0"), 2, RoundingMode::down), std::domain_error);
  CHECK(d("1.5") > d("1.49"));
  CHECK(d("7.9").truncate_to_int() == 7);
  CHECK(d("-7.9").truncate_to_int() == -7);
}

TEST_CASE("rounding mode names", "[money][rounding]") {
  CHECK(gpubill::parse_rounding_mode("half_up") == RoundingMode::half_up);
  CHECK(gpubill::parse_rounding_mode("down") == RoundingMode::down);
  CHECK(gpubill::to_string(RoundingMode::half_even) == "half_even");
  CHECK_THROWS_AS(gpubill::parse_rounding_mode("bankers"), gpubill::ParseError);
}
