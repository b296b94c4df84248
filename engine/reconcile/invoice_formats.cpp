// The export formats: names, required columns, header detection, amounts and instants as
// exports write them.
#include <algorithm>
#include <array>
#include <cctype>

#include "gpubill/base/errors.hpp"
#include "reconcile/invoice.hpp"

namespace gpubill {

std::string_view to_string(InvoiceFormat format) noexcept {
  switch (format) {
    case InvoiceFormat::focus:
      return "focus";
    case InvoiceFormat::aws_cur:
      return "aws-cur";
    case InvoiceFormat::google_bq:
      return "google-bq";
    case InvoiceFormat::alibaba:
      return "alibaba";
    case InvoiceFormat::tencent:
      return "tencent";
  }
  return "focus";
}

InvoiceFormat parse_invoice_format(std::string_view text) {
  for (auto f : {InvoiceFormat::focus, InvoiceFormat::aws_cur, InvoiceFormat::google_bq,
                 InvoiceFormat::alibaba, InvoiceFormat::tencent}) {
    if (text == to_string(f)) return f;
  }
  throw ParseError("'" + std::string(text) +
                   "' is not an invoice format (focus, aws-cur, google-bq, alibaba, tencent)");
}

std::string_view to_string(Granularity g) noexcept {
  switch (g) {
    case Granularity::hour:
      return "hour";
    case Granularity::day:
      return "day";
    case Granularity::month:
      return "month";
  }
  return "hour";
}

std::string_view to_string(DifferenceKind kind) noexcept {
  switch (kind) {
    case DifferenceKind::missing:
      return "missing";
    case DifferenceKind::extra:
      return "extra";
    case DifferenceKind::amount:
      return "amount";
  }
  return "amount";
}

std::string_view to_string(Rule rule) noexcept {
  switch (rule) {
    case Rule::rounding:
      return "rounding";
    case Rule::settlement_cycle:
      return "settlement_cycle";
    case Rule::period_boundary:
      return "period_boundary";
    case Rule::discount:
      return "discount";
    case Rule::credit:
      return "credit";
    case Rule::price_row:
      return "price_row";
    case Rule::currency:
      return "currency";
    case Rule::unexplained:
      return "unexplained";
  }
  return "unexplained";
}

namespace reconcile_detail {

std::string_view meter_name(Meter m) noexcept {
  switch (m) {
    case Meter::compute:
      return "compute";
    case Meter::gpu:
      return "gpu";
    case Meter::disk:
      return "disk";
    case Meter::bandwidth:
      return "bandwidth";
    case Meter::other:
      return "other";
  }
  return "other";
}

std::string_view category_name(Category c) noexcept {
  switch (c) {
    case Category::usage:
      return "usage";
    case Category::purchase:
      return "purchase";
    case Category::credit:
      return "credit";
    case Category::rounding:
      return "rounding";
  }
  return "usage";
}

namespace {

bool contains_nocase(std::string_view text, std::string_view word) {
  if (word.size() > text.size()) return false;
  for (std::size_t i = 0; i + word.size() <= text.size(); ++i) {
    bool same = true;
    for (std::size_t k = 0; k < word.size() && same; ++k) {
      same = std::tolower(static_cast<unsigned char>(text[i + k])) ==
             std::tolower(static_cast<unsigned char>(word[k]));
    }
    if (same) return true;
  }
  return false;
}

// The required columns of each CSV format (engine/reconcile/README.md cites them).
const std::vector<std::string>& required(InvoiceFormat f) {
  static const std::vector<std::string> focus = {"BilledCost",      "BillingCurrency",
                                                 "ChargeCategory",  "ChargePeriodStart",
                                                 "ChargePeriodEnd", "ResourceId"};
  static const std::vector<std::string> cur = {"lineItem/UsageStartDate", "lineItem/UsageEndDate",
                                               "lineItem/ResourceId", "lineItem/UnblendedCost",
                                               "lineItem/LineItemType"};
  static const std::vector<std::string> alibaba = {"InstanceID", "UsageStartTime", "UsageEndTime",
                                                   "PretaxAmount"};
  static const std::vector<std::string> tencent = {"Instance ID", "Usage Start Time",
                                                   "Usage End Time", "Component Type",
                                                   "Total Amount After Discount"};
  static const std::vector<std::string> none;
  switch (f) {
    case InvoiceFormat::focus:
      return focus;
    case InvoiceFormat::aws_cur:
      return cur;
    case InvoiceFormat::alibaba:
      return alibaba;
    case InvoiceFormat::tencent:
      return tencent;
    case InvoiceFormat::google_bq:
      return none;
  }
  return none;
}

bool header_has(const std::vector<std::string>& header, const std::string& name) {
  if (std::find(header.begin(), header.end(), name) != header.end()) return true;
  // Tencent's reseller bills name the amount "… (Excluding Tax)".
  return name == "Total Amount After Discount" &&
         std::find(header.begin(), header.end(), name + " (Excluding Tax)") != header.end();
}

}  // namespace

std::vector<std::string> missing_columns(InvoiceFormat format,
                                         const std::vector<std::string>& header) {
  std::vector<std::string> out;
  for (const auto& name : required(format)) {
    if (!header_has(header, name)) out.push_back(name);
  }
  return out;
}

HeaderMatch match_csv_header(const std::vector<std::string>& header) {
  HeaderMatch m;
  std::size_t best = SIZE_MAX;
  for (auto f : {InvoiceFormat::focus, InvoiceFormat::aws_cur, InvoiceFormat::alibaba,
                 InvoiceFormat::tencent}) {
    auto missing = missing_columns(f, header);
    if (missing.empty()) {
      m.format = f;
      return m;
    }
    // The closest: the fewest missing in proportion to what it needs.
    const std::size_t score = missing.size() * 100 / required(f).size();
    if (score < best) {
      best = score;
      m.closest = std::string(to_string(f));
      m.missing = std::move(missing);
    }
  }
  return m;
}

Meter meter_from_text(std::string_view text) {
  if (contains_nocase(text, "gpu")) return Meter::gpu;
  for (std::string_view w : {"egress", "datatransfer", "data transfer", "bandwidth", "network",
                             "traffic", "-out-bytes"}) {
    if (contains_nocase(text, w)) return Meter::bandwidth;
  }
  for (std::string_view w : {"ebs:", "disk", "storage", "volume", "pd capacity", "snapshot"}) {
    if (contains_nocase(text, w)) return Meter::disk;
  }
  for (std::string_view w : {"boxusage", "spotusage", "core", "ram", "cpu", "memory", "instance",
                             "compute", "vm", "ecs"}) {
    if (contains_nocase(text, w)) return Meter::compute;
  }
  return Meter::other;
}

std::optional<Decimal> parse_export_amount(std::string_view text) {
  if (text.empty()) return std::nullopt;
  if (auto d = Decimal::try_parse(text)) return d;
  // A mantissa and an exponent, or more than 12 decimals: shift the point by hand.
  std::string_view mant = text;
  int exponent = 0;
  if (auto e = text.find_first_of("eE"); e != std::string_view::npos) {
    mant = text.substr(0, e);
    std::string_view exp = text.substr(e + 1);
    bool neg = false;
    if (!exp.empty() && (exp[0] == '+' || exp[0] == '-')) {
      neg = exp[0] == '-';
      exp.remove_prefix(1);
    }
    if (exp.empty() || exp.size() > 3) return std::nullopt;
    for (char c : exp) {
      if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
      exponent = exponent * 10 + (c - '0');
    }
    if (neg) exponent = -exponent;
  }
  bool negative = false;
  if (!mant.empty() && (mant[0] == '-' || mant[0] == '+')) {
    negative = mant[0] == '-';
    mant.remove_prefix(1);
  }
  std::string digits;
  int decimals = 0;
  bool point = false;
  for (char c : mant) {
    if (c == '.' && !point) {
      point = true;
    } else if (std::isdigit(static_cast<unsigned char>(c))) {
      digits += c;
      if (point) ++decimals;
    } else {
      return std::nullopt;
    }
  }
  if (digits.empty() || digits.size() > 36) return std::nullopt;
  decimals -= exponent;
  // value = digits × 10^-decimals; keep 12 decimals, rounding half-even beyond (named mode).
  int128_t n = 0;
  for (char c : digits) n = n * 10 + (c - '0');
  while (decimals < 0) {
    if (n > (int128_t{1} << 100)) return std::nullopt;
    n *= 10;
    ++decimals;
  }
  if (decimals > Decimal::kScale) {
    if (decimals - Decimal::kScale > 36) return Decimal{};
    int128_t div = 1;
    for (int k = 0; k < decimals - Decimal::kScale; ++k) div *= 10;
    n = divide_rounded(n, div, RoundingMode::half_even);
    decimals = Decimal::kScale;
  }
  for (int k = decimals; k < Decimal::kScale; ++k) n *= 10;
  return Decimal::from_units(negative ? -n : n);
}

namespace {

bool digits(std::string_view t, std::size_t pos, std::size_t n) {
  if (pos + n > t.size()) return false;
  for (std::size_t i = pos; i < pos + n; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(t[i]))) return false;
  }
  return true;
}

int number(std::string_view t, std::size_t pos, std::size_t n) {
  int v = 0;
  for (std::size_t i = pos; i < pos + n; ++i) v = v * 10 + (t[i] - '0');
  return v;
}

}  // namespace

std::optional<Instant> parse_export_instant(std::string_view text, const Calendar& calendar) {
  // "YYYY-MM-DD?HH:MM:SS" and what follows it.
  if (text.size() < 19 || !digits(text, 0, 4) || text[4] != '-' || !digits(text, 5, 2) ||
      text[7] != '-' || !digits(text, 8, 2) || (text[10] != 'T' && text[10] != ' ') ||
      !digits(text, 11, 2) || text[13] != ':' || !digits(text, 14, 2) || text[16] != ':' ||
      !digits(text, 17, 2)) {
    return std::nullopt;
  }
  std::string_view rest = text.substr(19);
  if (!rest.empty() && rest[0] == '.') {  // fractional seconds: zeros only
    std::size_t k = 1;
    while (k < rest.size() && rest[k] == '0') ++k;
    if (k == 1 || (k < rest.size() && std::isdigit(static_cast<unsigned char>(rest[k])))) {
      return std::nullopt;
    }
    rest.remove_prefix(k);
  }
  const date::year_month_day ymd{date::year{number(text, 0, 4)},
                                 date::month{static_cast<unsigned>(number(text, 5, 2))},
                                 date::day{static_cast<unsigned>(number(text, 8, 2))}};
  const int hh = number(text, 11, 2), mm = number(text, 14, 2), ss = number(text, 17, 2);
  if (!ymd.ok() || hh > 23 || mm > 59 || ss > 59) return std::nullopt;
  const auto local = std::chrono::seconds{hh * 3600 + mm * 60 + ss};
  const date::sys_days day{ymd};
  if (rest.empty()) {
    return calendar.from_local(date::local_seconds{day.time_since_epoch()} + local);
  }
  if (rest == "Z" || rest == "z" || rest == " UTC" || rest == "+00:00") {
    return Instant{day} + local;
  }
  if (rest.size() == 6 && (rest[0] == '+' || rest[0] == '-') && digits(rest, 1, 2) &&
      rest[3] == ':' && digits(rest, 4, 2)) {
    const int off =
        (number(rest, 1, 2) * 3600 + number(rest, 4, 2) * 60) * (rest[0] == '-' ? -1 : 1);
    return Instant{day} + local - std::chrono::seconds{off};
  }
  return std::nullopt;
}

}  // namespace reconcile_detail
}  // namespace gpubill
