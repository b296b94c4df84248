#include "gpubill/base/decimal.hpp"

#include <limits>
#include <stdexcept>

#include "gpubill/base/errors.hpp"

namespace gpubill {

namespace {

constexpr int128_t pow10(int n) {
  int128_t p = 1;
  for (int i = 0; i < n; ++i) p *= 10;
  return p;
}

int128_t checked_add(int128_t a, int128_t b) {
  int128_t r;
  if (__builtin_add_overflow(a, b, &r)) throw OverflowError("decimal addition overflows");
  return r;
}
int128_t checked_sub(int128_t a, int128_t b) {
  int128_t r;
  if (__builtin_sub_overflow(a, b, &r)) throw OverflowError("decimal subtraction overflows");
  return r;
}
int128_t checked_mul(int128_t a, int128_t b) {
  int128_t r;
  if (__builtin_mul_overflow(a, b, &r)) throw OverflowError("decimal multiplication overflows");
  return r;
}

// "00" to "99": two digits per division when printing.
constexpr char kDigitPairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

// Writes `count` digits of u (leading zeros included), ending just before `end`; returns where
// they begin.
char* fixed_digits(std::uint64_t u, int count, char* end) {
  char* p = end;
  for (; count >= 2; count -= 2, u /= 100) {
    p -= 2;
    p[0] = kDigitPairs[2 * (u % 100)];
    p[1] = kDigitPairs[2 * (u % 100) + 1];
  }
  if (count == 1) *--p = static_cast<char>('0' + u % 10);
  return p;
}

// Writes v >= 0 in decimal, ending just before `end`; returns where it begins.
char* integer_digits(int128_t v, char* end) {
  char* p = end;
  // 128-bit divisions only while the value needs them: exports print millions of amounts.
  while (v > INT64_MAX) {
    *--p = static_cast<char>('0' + static_cast<int>(v % 10));
    v /= 10;
  }
  auto u = static_cast<std::uint64_t>(v);
  int count = 1;
  for (std::uint64_t t = u / 10; t > 0; t /= 10) ++count;
  return fixed_digits(u, count, p);
}

std::string integer_text(int128_t v) {  // v >= 0
  char buf[40];
  const char* p = integer_digits(v, buf + sizeof buf);
  return std::string(p, static_cast<std::size_t>(buf + sizeof buf - p));
}

// Rounds the non-negative quotient q with remainder r of a division by d (0 <= r < d).
int128_t round_quotient(int128_t q, int128_t r, int128_t d, RoundingMode mode) {
  if (r == 0) return q;
  switch (mode) {
    case RoundingMode::down:
      return q;
    case RoundingMode::up:
      return q + 1;
    case RoundingMode::half_up:
      return (r >= d - r) ? q + 1 : q;
    case RoundingMode::half_even:
      if (r > d - r) return q + 1;
      if (r < d - r) return q;
      return (q % 2 == 0) ? q : q + 1;
  }
  return q;
}

int128_t abs128(int128_t v) {
  if (v == std::numeric_limits<int128_t>::min()) throw OverflowError("decimal out of range");
  return v < 0 ? -v : v;
}

}  // namespace

int128_t divide_rounded(int128_t n, int128_t d, RoundingMode mode) {
  if (d <= 0) throw std::domain_error("divide_rounded: divisor must be positive");
  const int128_t a = abs128(n);
  const int128_t q = round_quotient(a / d, a % d, d, mode);
  return n < 0 ? -q : q;
}

RoundingMode parse_rounding_mode(std::string_view text) {
  if (text == "half_up") return RoundingMode::half_up;
  if (text == "half_even") return RoundingMode::half_even;
  if (text == "down") return RoundingMode::down;
  if (text == "up") return RoundingMode::up;
  throw ParseError("unknown rounding mode '" + std::string(text) +
                   "' (expected half_up, half_even, down or up)");
}

std::string_view to_string(RoundingMode mode) noexcept {
  switch (mode) {
    case RoundingMode::half_up:
      return "half_up";
    case RoundingMode::half_even:
      return "half_even";
    case RoundingMode::down:
      return "down";
    case RoundingMode::up:
      return "up";
  }
  return "?";
}

std::optional<Decimal> Decimal::try_parse(std::string_view text) noexcept {
  std::size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) negative = text[i++] == '-';
  int128_t whole = 0;
  int whole_digits = 0;
  while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
    if (whole > pow10(26)) return std::nullopt;
    whole = whole * 10 + (text[i++] - '0');
    ++whole_digits;
  }
  int128_t frac = 0;
  int frac_digits = 0;
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      const int digit = text[i++] - '0';
      if (frac_digits < kScale) {
        frac = frac * 10 + digit;
      } else if (digit != 0) {
        return std::nullopt;  // more than 12 significant decimals
      }
      ++frac_digits;
    }
    if (frac_digits == 0) return std::nullopt;  // "5." is not a number
  }
  if (i != text.size() || whole_digits + frac_digits == 0) return std::nullopt;
  if (whole > pow10(26)) return std::nullopt;
  const int kept = frac_digits < kScale ? frac_digits : kScale;
  const int128_t units = whole * kOne + frac * pow10(kScale - kept);
  return from_units(negative ? -units : units);
}

Decimal Decimal::parse(std::string_view text) {
  auto d = try_parse(text);
  if (!d) {
    throw ParseError("'" + std::string(text) +
                     "' is not an exact decimal (digits with an optional sign and point, at most "
                     "12 decimals)");
  }
  return *d;
}

std::string Decimal::to_string() const {
  std::string s;
  append_to(s);
  return s;
}

void Decimal::append_to(std::string& out) const {
  const int128_t a = abs128(units_);
  // 64-bit division when the value allows it (amounts below 9.2 million do).
  int128_t whole;
  std::uint64_t frac;
  if (a <= INT64_MAX) {
    const auto u = static_cast<std::uint64_t>(a);
    whole = u / kOne;
    frac = u % kOne;
  } else {
    whole = a / kOne;
    frac = static_cast<std::uint64_t>(a % kOne);
  }
  char buf[64];
  char* const end = buf + sizeof buf;
  char* p = end;
  if (frac != 0) {  // the kScale digits of the fraction, less its trailing zeros
    int digits = kScale;
    for (; frac % 10 == 0; frac /= 10) --digits;
    p = fixed_digits(frac, digits, p);
    *--p = '.';
  }
  p = integer_digits(whole, p);
  if (units_ < 0) *--p = '-';
  out.append(p, static_cast<std::size_t>(end - p));
}

std::string Decimal::to_string(int decimals) const {
  if (decimals < 0 || decimals > kScale) throw std::logic_error("decimals out of range");
  const int128_t step = pow10(kScale - decimals);
  if (units_ % step != 0) {
    throw std::logic_error("Decimal::to_string(" + std::to_string(decimals) + ") of " +
                           to_string() + " would drop digits; round first");
  }
  const int128_t a = abs128(units_);
  std::string s = (units_ < 0 ? "-" : "") + integer_text(a / kOne);
  if (decimals > 0) {
    std::string digits = integer_text((a % kOne) / step);
    digits.insert(0, static_cast<std::size_t>(decimals) - digits.size(), '0');
    s += "." + digits;
  }
  return s;
}

Decimal Decimal::round(int decimals, RoundingMode mode) const {
  if (decimals < 0 || decimals > kScale) throw std::logic_error("decimals out of range");
  const int128_t step = pow10(kScale - decimals);
  return from_units(checked_mul(divide_rounded(units_, step, mode), step));
}

std::int64_t Decimal::truncate_to_int() const {
  const int128_t whole = units_ / kOne;
  if (whole > std::numeric_limits<std::int64_t>::max() ||
      whole < std::numeric_limits<std::int64_t>::min()) {
    throw OverflowError("decimal does not fit a 64-bit integer");
  }
  return static_cast<std::int64_t>(whole);
}

Decimal operator+(Decimal a, Decimal b) {
  return Decimal::from_units(checked_add(a.units_, b.units_));
}
Decimal operator-(Decimal a, Decimal b) {
  return Decimal::from_units(checked_sub(a.units_, b.units_));
}
Decimal operator-(Decimal a) {
  return Decimal::from_units(checked_sub(0, a.units_));
}
Decimal operator*(Decimal a, std::int64_t n) {
  return Decimal::from_units(checked_mul(a.units_, n));
}

Decimal Decimal::multiply(Decimal a, Decimal b, RoundingMode mode) {
  // |a|·|b| / K with a = aw·K + af and b = bw·K + bf:
  //   aw·bw·K + aw·bf + af·bw + af·bf/K, where only the last term has a remainder.
  const bool negative = (a.units_ < 0) != (b.units_ < 0);
  const int128_t x = abs128(a.units_), y = abs128(b.units_);
  const int128_t xw = x / kOne, xf = x % kOne, yw = y / kOne, yf = y % kOne;
  int128_t total = checked_mul(checked_mul(xw, yw), kOne);
  total = checked_add(total, checked_mul(xw, yf));
  total = checked_add(total, checked_mul(xf, yw));
  const int128_t ff = xf * yf;  // < 1e24, fits
  total = checked_add(total, round_quotient(ff / kOne, ff % kOne, kOne, mode));
  return from_units(negative ? -total : total);
}

Decimal Decimal::divide(Decimal a, Decimal b, int decimals, RoundingMode mode) {
  if (b.units_ == 0) throw std::domain_error("division by zero");
  if (decimals < 0 || decimals > kScale) throw std::logic_error("decimals out of range");
  const bool negative = (a.units_ < 0) != (b.units_ < 0);
  const int128_t x = abs128(a.units_), y = abs128(b.units_);
  // Long division: the quotient x/y with `decimals` digits, then the remainder decides rounding.
  int128_t q = x / y, r = x % y;
  for (int i = 0; i < decimals; ++i) {
    r = checked_mul(r, 10);
    q = checked_add(checked_mul(q, 10), r / y);
    r %= y;
  }
  q = round_quotient(q, r, y, mode);
  const int128_t units = checked_mul(q, pow10(kScale - decimals));
  return from_units(negative ? -units : units);
}

Decimal Decimal::divide(Decimal a, std::int64_t n, int decimals, RoundingMode mode) {
  return divide(a, Decimal(n), decimals, mode);
}

}  // namespace gpubill
