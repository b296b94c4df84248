// FinOps FOCUS 1.2 export of charge lines (the Cost and Usage dataset).
//
// Specification:
// FinOps-Open-Cost-and-Usage-Spec/FOCUS_Spec@7296e3146fb931ee32b6496fa6e4200e7f4384f7 (tag v1.2),
// specification/columns/*.md and specification/attributes/*.md; the rule ids cited in
// tests/ledger/focus_conformance.cpp are those of finopsfoundation/focus_validator@240cea2
// (focus_validator/rules/model-1.2.json). docs/bills.md has the mapping in full.
//
// Rows (x_RowKind): one "charge" row per hourly charge line (runs are expanded, expand_hourly);
// a "rounding" row beside a Usage or Purchase row the policy rounded; "amortisation" rows for
// the hours a purchase covers. Every FOCUS 1.2 column is present, in the specification's
// column order (AvailabilityZone … Tags), then gpubill's x_ columns.
//
// Mapping:
//   settlement, minimum_charge      → ChargeCategory Usage, ChargeFrequency Usage-Based
//   prepaid_order, renewal, upgrade → Purchase, One-Time; auto_renewal → Purchase, Recurring
//   refund                          → Purchase with negative costs ("including refunds")
//   sustained_use_discount          → Credit, Recurring; any other kind → Adjustment, One-Time
//   the policy's rounding of a row  → Adjustment (same frequency), BilledCost = the rounding
// PricingCategory: payg, prepaid → Standard; spot → Dynamic; reserved_* → Committed.
//
// Costs (exact decimal text in the billing currency, no exponent, no "+"):
//   BilledCost of a charge row = the exact amount before rounding (x_ExactCost) when the line
//   was rounded (the rounding row carries the difference, so the rows of a line add up to what
//   was billed), else the billed amount.
//   ListCost = ContractedCost = ListUnitPrice × PricingQuantity, exactly. A per-second meter at
//   an hourly price keeps the price list's unit (PricingUnit Hours, GPU-Hours, GB-Hours,
//   "3600 Mb" for an Mbps-hour) and PricingQuantity = seconds / 3600 rounded up to 12 minus
//   the price's decimals (exact whenever the seconds are a multiple of 9, e.g. 0.5 for 1800 s),
//   so ListCost is never below the exact amount. An order: list price × months, before a term
//   discount. A minimum charge: 1 Instances × the amount. Anything else that is not
//   price × quantity: 1 Units × the amount (−1 when negative).
//   EffectiveCost = BilledCost, except for a purchase that covers a period ahead (prepaid
//   orders, renewals, auto-renewals, upgrades, refunds of what remains): EffectiveCost 0 on the
//   purchase, and one amortisation row (Usage, BilledCost 0) per hour slice of
//   [ChargePeriodStart, ChargePeriodEnd) of the purchase, aligned to its start. Slice k gets
//   C(t_{k+1}) − C(t_k) with C(t) = amount × t / span truncated toward zero to the cent (to the
//   amount's last decimal when it is finer): the slices add up to the purchase exactly. Its
//   PricingQuantity is spread the same way (so ListCost = ListUnitPrice × PricingQuantity on
//   every slice). ConsumedQuantity of a slice = its seconds.
// Billing period, invoice, correction: a Usage row is booked at its ChargePeriodStart; any other
// row when its last input event happened, if later. BillingPeriodStart/End is the calendar
// month, in the provider's billing time zone, of the booking; InvoiceId is
// "<provider>/<account>/<YYYY-MM>" of that month. A row booked in a later month than its
// ChargePeriodStart (a recycle-bin renewal paid on 3 March from a February expiry, and its
// February slices) is ChargeClass "Correction"; every other row has ChargeClass null.
// SKUs (stable across databases, accounts and price changes): SkuId =
// "<provider>/<component>/<subject>" (subject: the price row's instance type, "gpu:<model>",
// or disk or bandwidth kind); SkuPriceId = "<SkuId>/<region or ->/<mode>" (a minimum charge
// adds "/minimum-per-lifetime"): the price row's identity without its effective date, which
// FOCUS leaves out of a SKU price id (x_PriceEffectiveFrom has it). SkuPriceDetails is a JSON
// object of what the SkuPriceId says (InstanceType or DiskType, x_ keys otherwise).
// ResourceId is the instance (instance/component for disks and bandwidth); ResourceName the
// instance's name (as the usage log names it).
// x_ExactCost and x_RoundingAmount add up over rows: a charge row has its line's exact amount
// (and its rounding when no rounding row carries it), a rounding row the rounding, an
// amortisation row 0; so their sums are the lines' exact amounts and roundings.
// Date/times are UTC, "YYYY-MM-DDTHH:mm:ssZ". In CSV a null is an empty field.
//
// Order and memory: rows come in ChargePeriodStart order (then charge id, hour; a purchase's
// slices after the lines that start with them); memory grows with the purchases running at a
// time, not with their rows.
#pragma once

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "gpubill/ledger/ledger.hpp"

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

// Which rows an export holds. The amortised hours of a purchase from the replay clock on (the
// end of what was replayed, `replay --until`) have not happened: they are a forecast, kept out
// of the billed export and exported alone by FocusPart::forecast (same columns; BilledCost 0,
// EffectiveCost the hour's share, InvoiceId null as FOCUS wants for a charge on no invoice,
// ChargeClass null, ChargeDescription "Forecast (…): …", x_RowKind "forecast"). Before any
// replay (no clock) every hour is billed.
enum class FocusPart { billed, forecast };

// FOCUS rows for `lines` (runs expanded to hours, rounding and amortisation rows added), in the
// order above. Reads provider names, billing zones, region names, price rows, event times and
// the replay clock from the database. Throws StoreError on undecodable rows.
FocusTable focus_export(Database& db, const std::vector<ChargeLine>& lines,
                        FocusPart part = FocusPart::billed);

using FocusRow = std::vector<std::optional<std::string>>;
// The same rows, one at a time, without holding them (an export of millions of hours).
void for_each_focus_row(Database& db, const std::vector<ChargeLine>& lines,
                        const std::function<void(const FocusRow&)>& row,
                        FocusPart part = FocusPart::billed);

// Streams the export as a FOCUS CSV file: RFC 4180, a header row of focus_columns(), a field
// quoted when it holds a comma, quote, CR or LF (quotes doubled), a null as an empty field,
// lines ending in "\n".
void write_focus_csv(std::ostream& out, Database& db, const std::vector<ChargeLine>& lines,
                     FocusPart part = FocusPart::billed);

}  // namespace gpubill
