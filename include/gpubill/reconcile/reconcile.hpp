// Reconciling a provider's own billing export (an invoice's lines) with the charges gpubill
// computed for an account (the ledger's charge lines, ledger.hpp).
//
// Formats (engine/reconcile/README.md has each one's columns and the documents they come from):
//   focus      FOCUS 1.0–1.2 CSV: BilledCost, ChargePeriodStart/End, ResourceId, ChargeCategory…
//   aws_cur    AWS Cost and Usage Report CSV: lineItem/UsageStartDate, lineItem/ResourceId,
//              lineItem/UnblendedCost, lineItem/LineItemType…
//   google_bq  Google Cloud Billing's BigQuery export as JSON Lines: usage_start_time,
//              usage_end_time, cost, currency, sku.description, resource.name, credits[]…
//   alibaba    Alibaba Cloud's instance bill CSV: InstanceID, UsageStartTime, UsageEndTime,
//              PretaxAmount…
//   tencent    Tencent Cloud's bill details CSV: Instance ID, Usage Start Time, Usage End Time,
//              Component Type, Total Amount After Discount…
// The export is streamed (one line in memory at a time); its amounts are parsed as exact
// decimals (a JSON number's text, never a double).
//
// Matching: each side is summed per key (resource, meter, category, period). The resource is
// gpubill's instance (a FOCUS ResourceId "<instance>/system_disk" is cut to the instance); the
// meter is compute, gpu, disk, bandwidth or other; the category
// usage, purchase, credit or rounding. Usage and purchases are summed per period of the
// comparison's granularity — hour, day or month, the coarser of the export's and gpubill's
// (the longest usage line of each side) — in the account's billing time zone; credits and the
// rounding of a settlement cycle per calendar month. A key present on one side only is a
// missing line (gpubill's, not in the export) or an extra line (in the export only); a key on
// both whose amounts differ by more than the tolerance is an amount difference. Each is given
// the rule that explains it where one does (Rule).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpubill/base/decimal.hpp"
#include "gpubill/base/time.hpp"

namespace gpubill {

class Database;

enum class InvoiceFormat { focus, aws_cur, google_bq, alibaba, tencent };
// "focus", "aws-cur", "google-bq", "alibaba", "tencent" (the CLI's names).
std::string_view to_string(InvoiceFormat format) noexcept;
// Throws ParseError for another name.
InvoiceFormat parse_invoice_format(std::string_view text);

// The format a file's header says (a CSV's first record; a JSON Lines file's first object).
// Throws InputError naming the file and, for the closest format, the columns it lacks.
InvoiceFormat detect_invoice_format(const std::string& path);

enum class Granularity { hour, day, month };
std::string_view to_string(Granularity g) noexcept;

struct ReconcileOptions {
  std::string account;
  std::string invoice_path;
  std::optional<InvoiceFormat> format;            // detected from the header when unset
  std::optional<std::pair<int, unsigned>> month;  // only this month (the account's calendar)
  Decimal tolerance = Decimal::from_units(10'000'000'000);  // 0.01
};

// What a difference is.
enum class DifferenceKind {
  missing,  // in gpubill, not in the export
  extra,    // in the export, not in gpubill
  amount,   // on both sides, amounts differ by more than the tolerance
};
std::string_view to_string(DifferenceKind kind) noexcept;

// The rule that explains a difference, where one does.
enum class Rule {
  rounding,          // rounding per line against rounding at settlement (or none)
  settlement_cycle,  // a different metering or settlement period (quantity differs at the same
                     // rate)
  period_boundary,   // the same amount booked in the neighbouring period
  discount,          // the export's list cost is gpubill's; its discount is not
  credit,            // the export's credits (or gpubill's) account for it
  price_row,         // a different unit price: gpubill's price row against the export's rate
  currency,          // billed in another currency
  unexplained,       // none of the above
};
std::string_view to_string(Rule rule) noexcept;

struct Difference {
  DifferenceKind kind = DifferenceKind::amount;
  std::string resource, meter, category;
  Instant period_start{}, period_end{};
  std::optional<Decimal> gpubill_amount, invoice_amount;
  Decimal difference;  // invoice − gpubill (a missing side counts 0)
  std::string currency;
  Rule rule = Rule::unexplained;
  std::string explanation;
  std::vector<std::int64_t> charge_ids;  // gpubill's charge lines in the key (the first 4)
  std::size_t invoice_line = 0;          // the export's first line in the key (0: none)
  std::optional<std::int64_t> price_id;  // gpubill's price row, when the key has one
  std::optional<Decimal> unit_price;     // its unit price …
  std::string price_unit;                // … per this unit (hour, month)
  std::optional<Decimal> invoice_rate;   // the export's rate, when it gives one
};

struct ReconcileReport {
  std::string account, invoice_file;
  InvoiceFormat format = InvoiceFormat::focus;
  Granularity granularity = Granularity::hour;
  std::string time_zone;
  Decimal tolerance;
  std::optional<Instant> from, to;  // the periods compared
  std::int64_t invoice_lines = 0;   // data lines read
  std::int64_t ignored_lines = 0;   // taxes, zero amounts, lines outside the months compared
  std::int64_t gpubill_lines = 0;   // hourly charge lines read
  std::int64_t keys = 0, matched = 0, missing = 0, extra = 0, amount = 0;
  // Totals over the periods compared, per currency ("12.30 USD"; several joined by ", ").
  std::string gpubill_total, invoice_total;
  std::vector<Difference> differences;  // by period, resource, meter, category
  bool matches() const noexcept { return differences.empty(); }
};

// Reads the export and the account's charges and compares them. Throws InputError naming the
// file, line and column of a malformed export line (a missing column, a bad amount or
// timestamp), StoreError on the database. An account with no charges compares as having none
// (checking that the account exists is the caller's: the CLI names the closest accounts).
ReconcileReport reconcile(Database& db, const ReconcileOptions& options);

}  // namespace gpubill
