// Private to reconcile: a provider's billing export read line by line into one shape.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpubill/base/decimal.hpp"
#include "gpubill/base/time.hpp"
#include "gpubill/reconcile/reconcile.hpp"

namespace gpubill::reconcile_detail {

enum class Meter : std::uint8_t { compute, gpu, disk, bandwidth, other };
enum class Category : std::uint8_t { usage, purchase, credit, rounding };
std::string_view meter_name(Meter m) noexcept;
std::string_view category_name(Category c) noexcept;

// One line of an export (or one credit of a Google line), valid during the callback.
struct InvoiceLine {
  std::size_t line = 0;  // 1-based line of the file
  std::string resource;
  Meter meter = Meter::other;
  Category category = Category::usage;
  Instant start{}, end{};
  Decimal amount;                      // what the line bills, in `currency`
  std::optional<Decimal> list_amount;  // its list cost before discounts, when given
  std::optional<Decimal> rate;         // its unit price, when given
  std::optional<Decimal> hours;        // its usage in hours, when given
  std::string currency;
  bool ignored = false;  // a tax or forecast line: read, not compared
};

using LineSink = std::function<void(const InvoiceLine&)>;

// Reads `path` in `format`, handing each line to `sink`. Timestamps without an offset are local
// times of `calendar` (Alibaba's and Tencent's exports are in Beijing time). Throws InputError
// naming the file, line and column.
void read_invoice(const std::string& path, InvoiceFormat format, const Calendar& calendar,
                  const LineSink& sink);

// The CSV formats (focus, aws_cur, alibaba, tencent) and the JSON Lines one.
void read_invoice_csv(const std::string& path, InvoiceFormat format, const Calendar& calendar,
                      const LineSink& sink);
void read_invoice_google(const std::string& path, const LineSink& sink);

// An instant as exports write them: RFC 3339 ("2019-06-03T10:00:00Z", fractional seconds of
// zeros allowed), "YYYY-MM-DD HH:MM:SS" with an optional " UTC" (without it: local time of
// `calendar`), or "YYYY-MM-DDTHH:MM:SS" without an offset (local). nullopt when none of these.
std::optional<Instant> parse_export_instant(std::string_view text, const Calendar& calendar);

// An exact amount: a decimal, optionally with an exponent ("1.5E-5", a JSON number's text).
// More than 12 decimals (a FLOAT64 printed in full) are rounded half-even to 12. nullopt when
// the text is not a number.
std::optional<Decimal> parse_export_amount(std::string_view text);

// Where a file's header points: the format, or the columns each format lacks.
struct HeaderMatch {
  std::optional<InvoiceFormat> format;
  std::string closest;               // the format with the fewest missing columns
  std::vector<std::string> missing;  // its missing columns
};
// The required columns of each CSV format against `header`.
HeaderMatch match_csv_header(const std::vector<std::string>& header);
// The required columns of `format` missing from `header` (empty when it has them all).
std::vector<std::string> missing_columns(InvoiceFormat format,
                                         const std::vector<std::string>& header);

// Meter from a description or SKU text ("Nvidia Tesla V100 GPU", "EBS:VolumeUsage.gp2").
Meter meter_from_text(std::string_view text);

}  // namespace gpubill::reconcile_detail
