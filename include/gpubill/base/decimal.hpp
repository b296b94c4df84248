// Decimal: an exact signed decimal number with 12 digits after the point, held as a 128-bit
// integer count of 1e-12 units. Used for every amount of money, price, discount factor, FX rate
// and hardware figure; no binary floating point is involved anywhere.
//
// Range: about ±1.7e26. Any operation whose result leaves the range throws OverflowError;
// nothing wraps. Addition and subtraction are exact. Multiplication by an integer is exact.
// Multiplication and division of two Decimals compute the exact result and round it to 12
// decimals with a named RoundingMode (half-even by default for multiplication, where 1e-12 is
// far below any provider's precision; division always names its mode).
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gpubill {

__extension__ typedef __int128 int128_t;

// How a value is brought to fewer decimals. Names follow the providers' documents:
//   half_up   — round half away from zero (四舍五入; Tencent): 0.125 → 0.13, -0.125 → -0.13
//   half_even — round half to even (banker's): 0.125 → 0.12, 0.135 → 0.14
//   down      — truncate toward zero (抹零; Alibaba, Huawei): 0.129 → 0.12, -0.129 → -0.12
//   up        — away from zero: 0.121 → 0.13, -0.121 → -0.13
enum class RoundingMode { half_up, half_even, down, up };

// Parses "half_up", "half_even", "down", "up". Throws ParseError.
RoundingMode parse_rounding_mode(std::string_view text);
std::string_view to_string(RoundingMode mode) noexcept;

class Decimal {
 public:
  static constexpr int kScale = 12;
  static constexpr std::int64_t kOne = 1'000'000'000'000;  // 10^kScale

  constexpr Decimal() noexcept = default;
  constexpr explicit Decimal(std::int64_t whole) noexcept : units_(int128_t{whole} * kOne) {}

  // The value units × 1e-12.
  static constexpr Decimal from_units(int128_t units) noexcept {
    Decimal d;
    d.units_ = units;
    return d;
  }
  // Parses "13.86", "-0.01", "+5", "0.000000001". At most 12 decimals (trailing zeros beyond
  // that are accepted); no exponent, no spaces, no thousands separators. Throws ParseError.
  static Decimal parse(std::string_view text);
  static std::optional<Decimal> try_parse(std::string_view text) noexcept;

  constexpr int128_t units() const noexcept { return units_; }
  constexpr int sign() const noexcept { return units_ < 0 ? -1 : (units_ > 0 ? 1 : 0); }
  constexpr bool is_zero() const noexcept { return units_ == 0; }

  // Shortest exact text: "13.86", "-0.01", "5". Never uses an exponent.
  std::string to_string() const;
  // Appends to_string()'s text to `out`, with no other allocation (exports write millions).
  void append_to(std::string& out) const;
  // Exactly `decimals` digits after the point, padding with zeros. REQUIRES: the value has
  // no more significant decimals than that (round() first); throws std::logic_error otherwise.
  std::string to_string(int decimals) const;

  // The value rounded to `decimals` (0..12) decimals with `mode`.
  Decimal round(int decimals, RoundingMode mode) const;
  // The whole part toward zero, as an integer. Throws OverflowError beyond int64.
  std::int64_t truncate_to_int() const;

  friend Decimal operator+(Decimal a, Decimal b);
  friend Decimal operator-(Decimal a, Decimal b);
  friend Decimal operator-(Decimal a);
  friend Decimal operator*(Decimal a, std::int64_t n);
  friend Decimal operator*(std::int64_t n, Decimal a) { return a * n; }
  // a × b rounded half-even to 12 decimals.
  friend Decimal operator*(Decimal a, Decimal b) { return multiply(a, b, RoundingMode::half_even); }
  Decimal& operator+=(Decimal b) { return *this = *this + b; }
  Decimal& operator-=(Decimal b) { return *this = *this - b; }

  // a × b rounded to 12 decimals with `mode`.
  static Decimal multiply(Decimal a, Decimal b, RoundingMode mode);
  // a ÷ b rounded to `decimals` decimals with `mode`. Throws std::domain_error on b == 0.
  static Decimal divide(Decimal a, Decimal b, int decimals, RoundingMode mode);
  // a ÷ n rounded to `decimals` decimals with `mode`.
  static Decimal divide(Decimal a, std::int64_t n, int decimals, RoundingMode mode);

  friend constexpr auto operator<=>(Decimal a, Decimal b) noexcept { return a.units_ <=> b.units_; }
  friend constexpr bool operator==(Decimal a, Decimal b) noexcept { return a.units_ == b.units_; }

 private:
  int128_t units_ = 0;
};

// Divides n by d (d > 0) and rounds the quotient to an integer with `mode`. Exposed for the
// rules that round counts (e.g. whole metering units).
int128_t divide_rounded(int128_t n, int128_t d, RoundingMode mode);

}  // namespace gpubill
