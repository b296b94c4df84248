// What every converter does with a row it read (price_rows.hpp), and JSON numbers as decimals.
#include "fetch/price_rows.hpp"

#include "gpubill/base/decimal.hpp"
#include "gpubill/base/errors.hpp"
#include "gpubill/base/money.hpp"

namespace gpubill {

namespace fetch_rows {

void add_price(PriceListRows& out, const PriceListContext& context, std::string_view provider,
               SubjectKind kind, std::string_view subject, std::string_view region,
               BillingMode mode, std::string_view amount, std::string_view currency,
               std::string place) {
  const Decimal value = Decimal::parse(amount);
  std::string key =
      std::string(subject) + '\x1f' + std::string(region) + '\x1f' + std::string(to_string(mode));
  const auto [it, added] = out.keys.emplace(std::move(key), out.prices.size());
  if (!added) {
    const PriceRow& kept = out.prices[it->second];
    if (kept.amount.amount() != value) {
      out.notes.push_back(std::string(subject) + " " + std::string(region) + " " +
                          std::string(to_string(mode)) + ": " + place + " prices it " +
                          value.to_string() + ", kept " + kept.amount.amount().to_string() +
                          " from " + out.places[it->second]);
    }
    return;
  }
  PriceRow row;
  row.provider = std::string(provider);
  row.subject_kind = kind;
  row.subject = std::string(subject);
  row.region = std::string(region);
  row.mode = mode;
  row.unit = PriceUnit::hour;
  row.amount = Money(value, Currency::parse(currency));
  row.period.from = context.fetched_at;
  row.source = context.source;
  row.as_of = format_instant(context.fetched_at).substr(0, 10);
  out.prices.push_back(std::move(row));
  out.places.push_back(std::move(place));
}

void add_region(PriceListRows& out, std::string_view provider, std::string_view id,
                std::string_view name) {
  for (const auto& r : out.regions) {
    if (r.provider == provider && r.id == id) return;
  }
  out.regions.push_back(Region{std::string(provider), std::string(id), std::string(name)});
}

void unknown(PriceListRows& out, std::string name) {
  ++out.unknown[std::move(name)];
}

bool has_gpu(const InstanceType& type) {
  return !type.gpu.empty() || !type.attachable.empty();
}

std::string shown_url(const std::string& url) {
  const auto key = url.find("key=");
  if (key == std::string::npos || (key > 0 && url[key - 1] != '?' && url[key - 1] != '&')) {
    return url;
  }
  const auto end = url.find('&', key);
  return url.substr(0, key) + "key=…" + (end == std::string::npos ? "" : url.substr(end));
}

}  // namespace fetch_rows

std::string json_number_decimal(std::string_view number) {
  const auto bad = [&] {
    return ParseError("not an exact decimal number: \"" + std::string(number) + "\"");
  };
  std::string_view mantissa = number;
  long exponent = 0;
  if (const auto e = number.find_first_of("eE"); e != std::string_view::npos) {
    mantissa = number.substr(0, e);
    std::string_view exp = number.substr(e + 1);
    bool negative = false;
    if (!exp.empty() && (exp[0] == '+' || exp[0] == '-')) {
      negative = exp[0] == '-';
      exp.remove_prefix(1);
    }
    if (exp.empty() || exp.size() > 3 || exp.find_first_not_of("0123456789") != exp.npos) {
      throw bad();
    }
    exponent = std::stol(std::string(exp)) * (negative ? -1 : 1);
  }
  bool negative = !mantissa.empty() && mantissa[0] == '-';
  if (negative) mantissa.remove_prefix(1);
  const auto dot = mantissa.find('.');
  std::string digits(mantissa.substr(0, dot));
  std::string fraction(dot == std::string_view::npos ? "" : mantissa.substr(dot + 1));
  if (digits.empty() || (digits + fraction).find_first_not_of("0123456789") != std::string::npos ||
      (dot != std::string_view::npos && fraction.empty())) {
    throw bad();
  }
  // Shift the decimal point by the exponent.
  std::string all = digits + fraction;
  long point = static_cast<long>(digits.size()) + exponent;
  if (point < 0) {
    all.insert(0, static_cast<std::size_t>(-point), '0');
    point = 0;
  }
  if (point > static_cast<long>(all.size())) all.append(point - all.size(), '0');
  std::string text = (negative ? "-" : "") + (point == 0 ? std::string("0") : all.substr(0, point));
  if (static_cast<std::size_t>(point) < all.size()) text += "." + all.substr(point);
  if (!Decimal::try_parse(text)) throw bad();
  return Decimal::parse(text).to_string();
}

}  // namespace gpubill
