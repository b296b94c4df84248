// FinOps FOCUS 1.2 export of charge lines (the Cost and Usage dataset).
//
// One row per hourly charge line: runs are expanded (expand_hourly) so every settlement hour is
// its own row. Every FOCUS 1.2 column is present, in the order of the specification's column
// list (alphabetical, AvailabilityZone … Tags), followed by gpubill's custom x_ columns that
// trace each row to its charge, price, policy and rounding.
//
// Mapping (what gpubill's charge kinds become):
//   settlement, minimum_charge      → ChargeCategory Usage, ChargeFrequency Usage-Based
//   prepaid_order, renewal, upgrade → Purchase, One-Time
//   auto_renewal                    → Purchase, Recurring
//   refund                          → Purchase (negative costs), One-Time: FOCUS counts refunds
//                                     of a purchase under Purchase ("including refunds"); a
//                                     prepaid return is a new transaction, not a correction of a
//                                     previously invoiced period, so ChargeClass stays null
//   any other kind                  → Adjustment, One-Time
// PricingCategory: payg → Standard, spot → Dynamic, prepaid → Standard, reserved_* → Committed.
//
// Values: costs are exact decimal text in the billing currency ("7.55", "-120", no exponent, no
// "+"): BilledCost = EffectiveCost = the billed amount (gpubill does not amortise prepaid
// orders); ListCost = ContractedCost = the exact amount before the policy's rounding and before
// a term discount. For a per-second settlement PricingUnit is Hours and PricingQuantity =
// seconds / 3600 (exact for whole hours and most partial ones; otherwise rounded to 12
// decimals), ConsumedUnit is Seconds and ConsumedQuantity the metered seconds. Date/times are
// UTC, "YYYY-MM-DDTHH:mm:ssZ". BillingPeriodStart/End is the calendar month, in the provider's
// billing time zone, in which the line's charge period starts. In CSV a null is an empty field.
#pragma once

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "gpubill/ledger.hpp"

namespace gpubill {

class Database;

// The export's column names in order: the 57 FOCUS 1.2 columns, then the x_ columns.
const std::vector<std::string>& focus_columns();
// The FOCUS 1.2 columns only, in order, and those the specification makes Mandatory.
const std::vector<std::string>& focus_spec_columns();
const std::vector<std::string>& focus_mandatory_columns();

struct FocusTable {
  std::vector<std::string> columns;                           // focus_columns()
  std::vector<std::vector<std::optional<std::string>>> rows;  // nullopt = null
};

// FOCUS rows for `lines` (runs expanded to hours), in (ChargePeriodStart, charge id, hour)
// order. Reads provider names, billing zones and region names from the catalog. Throws
// StoreError on undecodable rows.
FocusTable focus_export(Database& db, const std::vector<ChargeLine>& lines);

using FocusRow = std::vector<std::optional<std::string>>;
// The same rows, one at a time, without holding them (an export of millions of hours).
void for_each_focus_row(Database& db, const std::vector<ChargeLine>& lines,
                        const std::function<void(const FocusRow&)>& row);

// Streams the export as a FOCUS CSV file: RFC 4180, a header row of focus_columns(), a field
// quoted when it holds a comma, quote, CR or LF (quotes doubled), a null as an empty field,
// lines ending in "\n".
void write_focus_csv(std::ostream& out, Database& db, const std::vector<ChargeLine>& lines);

}  // namespace gpubill
