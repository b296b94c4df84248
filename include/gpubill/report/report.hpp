// HTML reports: one self-contained page per report, to open offline or send by mail.
//
// Every page is HTML with inline CSS and inline SVG charts: no scripts, no fonts, no images and
// nothing fetched from the network. Text from user files (provider, instance and account names)
// is escaped. Colours are the Okabe–Ito palette and every series also differs by texture, dash
// pattern or a direct label. Axes name their unit and the currency.
//
// The numbers in a page are the CLI's: each table cell holding an amount carries the exact
// decimal in `data-value` and shows it rounded as the CLI's table does (`gpubill quote`,
// `bill`, `lease-vs-buy`; tests/report/report_numbers_test.cpp compares them). Amounts are exact
// Decimals up to the drawing; only pixel coordinates are doubles.
//
// Writers throw only what the stream throws; the loaders throw StoreError.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpubill/ledger/ledger.hpp"
#include "gpubill/quote/quote.hpp"
#include "gpubill/replay/replay.hpp"
#include "gpubill/tco/tco.hpp"

namespace gpubill {

class Database;

// ---- Quote -----------------------------------------------------------------------------------

// The quote of a workload: ranked offers as horizontal bars grouped by billing mode (each
// cheapest first, at most `bars_per_mode` a mode; 0 = all); monthly cost against hours of use per
// month (0 … 720 h) for the best prepaid offer of each provider and the pay-as-you-go price of the
// same offer, with the break-even hours where prepaid becomes cheaper marked; the table of every
// line with each price's as-of date and source tag. `workload` is the one-line description shown as
// the subtitle. Lines are shown as `result` has them (its `top`).
void write_quote_report(std::ostream& out, const QuoteResult& result, std::string_view workload,
                        std::size_t bars_per_mode = 10);

// ---- Lease versus buy ------------------------------------------------------------------------

// The comparison: cumulative cost by month (0 … horizon) of buying and of each compared rental
// mode (best pay-as-you-go, best prepaid) with each break-even month marked; the horizon total
// against the utilisation (0 … 1) with the break-even utilisation marked; the table by month
// and the rent options.
void write_lease_vs_buy_report(std::ostream& out, const LeaseVsBuyResult& result);

// ---- Bill ------------------------------------------------------------------------------------

// What the bill report shows, read once from the database.
struct BillReportData {
  MonthlyStatement statement;
  // The charge lines starting in the month (runs cut at the month's bounds), as query_charges.
  std::vector<ChargeLine> lines;
  // The explanation of each stored charge row the lines come from, by charge id.
  std::vector<ChargeExplanation> explanations;
  // The state history of the account's instances, up to the month's end.
  std::vector<InstanceStateRow> states;
  // The balance after each hourly settlement and each other movement in the month
  // (balance_by_settlement), the line the balance chart draws.
  std::vector<BalancePoint> balance_points;
  // The purchases amortised over some of the month's hours (amortised_share), whenever ordered.
  std::vector<ChargeLine> purchases;
};

// Reads the statement of `account` for the month (in `calendar`, else the account's billing
// calendar), its lines, their explanations and the instance states. REQUIRES 1 <= month <= 12.
// Throws StoreError.
BillReportData load_bill_report(Database& db, std::string_view account, int year, unsigned month,
                                const std::optional<Calendar>& calendar = std::nullopt);

// The statement (totals by instance and component, kind and currency; balances); the cost per
// day of the month stacked by component and instance (cash: a prepaid order on the day it was
// paid), beside the same days amortised (each prepaid order spread over its hours as the FOCUS
// export's EffectiveCost, dots with data-amortised); the balance after each hourly settlement
// and movement (data-balance-points: "instant=balance" for each step) above an
// instance timeline whose bands show running, shutdown (stopped, arrears stop) and recycle-bin
// periods; every charge line, linking to its explanation (price, policy, discount, events,
// arithmetic, derivation) further down the page. Aggregated: a day's stack has one segment per
// instance and component, however many hourly settlements it holds.
void write_bill_report(std::ostream& out, const BillReportData& data);

}  // namespace gpubill
