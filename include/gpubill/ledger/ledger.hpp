// The ledger: reading the bills the replay wrote (migrations/0002_replay.sql) — charge lines,
// their hourly detail, monthly statements, balance movements, rejects — and explaining any
// charge line from the catalog rows and input events that produced it.
//
// Amounts are exact Decimals read from the stored decimal text; nothing here rounds except where
// a line is re-derived with the policy's own rounding (explain_charge). Nothing reads the wall
// clock. Every query returns rows in a deterministic order.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpubill/base/decimal.hpp"
#include "gpubill/base/money.hpp"
#include "gpubill/base/time.hpp"

namespace gpubill {

class Database;

// One charge row (or part of one; see `run_index`). Amounts per settlement are what one
// settlement costs; totals are for the `repeat` settlements the line stands for:
//   total_exact = exact_amount × repeat, total_billed = billed_amount × repeat,
//   billed_amount = exact_amount + rounding.
//
// Runs: a settlement row with repeat = N stands for N identical consecutive hourly
// settlements. Settlement k (0-based) of a stored row covers
//   [period_start + k·3600, period_start + k·3600 + L)
// where L = (period_end − period_start) − (N−1)·3600 is the length of every settlement: 3600 for
// a run of full hours (the runs replay writes), so hour k is [period_start + k·3600,
// period_start + (k+1)·3600); a run of identical partial hours keeps each one's length. A row
// whose span does not fit this rule (L ≤ 0 or L > 3600) is rejected as corrupt (StoreError)
// when it has to be split.
struct ChargeLine {
  std::int64_t id = 0;
  std::string account, instance, provider, region, instance_type;
  std::string component;  // compute, system_disk, data_disk, bandwidth
  // settlement, prepaid_order, renewal, auto_renewal, upgrade, refund, minimum_charge
  std::string kind;
  std::string mode;  // payg, prepaid, spot, ...
  Instant period_start{}, period_end{};
  std::int64_t repeat = 1;
  // Which settlements of the stored row this line holds: [run_index, run_index + repeat) of the
  // stored row's `run_length` settlements. A line read whole has run_index 0 and
  // run_length == repeat; expand_hourly and date filters give parts.
  std::int64_t run_index = 0;
  std::int64_t run_length = 1;
  Decimal quantity;                               // per settlement (seconds) or per order (months)
  std::string unit;                               // second, month, gb_hour, ...
  Decimal unit_price;                             // per price_unit
  std::string price_unit;                         // hour, month
  Decimal exact_amount, billed_amount, rounding;  // per settlement
  Decimal total_exact, total_billed;              // for `repeat` settlements
  Currency currency;
  std::optional<std::int64_t> price_id, policy_id, discount_id;
  std::vector<std::int64_t> event_seqs;  // the input events that produced it
  std::string note;
  // Per settlement: the amortised cost when it is not the billed amount (a commitment's covered
  // and unused rows: their share of the commitment's hour); unset = billed_amount.
  std::optional<Decimal> effective_amount;

  Decimal total_rounding() const { return total_billed - total_exact; }
  Money money(Decimal amount) const { return Money(amount, currency); }
  // The settlement length L of the rule above, in seconds.
  std::int64_t settlement_seconds() const;
  // Start of settlement k (0-based, relative to this line).
  Instant settlement_start(std::int64_t k) const;
};

// Which rows query_charges returns. Unset fields do not filter. A line is in [from, to) when its
// start is: a run is cut to the settlements that start in [from, to) (adjusting its period,
// repeat, run_index and totals), so consecutive ranges never count a settlement twice.
struct ChargeFilter {
  std::optional<std::string> account;
  std::optional<std::string> instance;
  std::optional<Instant> from, to;
};

// The charge lines matching `filter`, ordered by (period_start, account, instance, component,
// kind, id). Throws StoreError when a stored value does not decode.
std::vector<ChargeLine> query_charges(Database& db, const ChargeFilter& filter = {});

// Whether for_each_charge hands out runs whole or hour by hour.
enum class ChargeDetail {
  lines,   // what query_charges returns: a run is one line
  hourly,  // what expand_hourly makes of those lines: one line per settlement
};

// The lines query_charges(db, filter) returns, or with ChargeDetail::hourly the hourly lines
// expand_hourly makes of them, in the same order, handed to `fn` one at a time as they are read:
// memory grows with the runs open at one instant, not with the rows handed out (for exports).
// The line `fn` gets is valid only during the call. Throws StoreError as query_charges and
// expand_hourly do, and whatever `fn` throws (the query stops there).
void for_each_charge(Database& db, const ChargeFilter& filter, ChargeDetail detail,
                     const std::function<void(const ChargeLine&)>& fn);

// One charge row by id, read whole. nullopt when there is none.
std::optional<ChargeLine> find_charge(Database& db, std::int64_t charge_id);

// A run (repeat = N) as N lines of one settlement each, with their own periods (the rule on
// ChargeLine), run_index k and repeat 1; amounts per settlement are unchanged, so the totals of
// the N lines add up exactly to the run's totals. A line with repeat 1 is returned as is.
// Throws StoreError when the line's totals are not its per-settlement amounts × repeat (they
// could not be preserved) or its span does not fit the run rule.
std::vector<ChargeLine> expand_hourly(const ChargeLine& line);
// Every line of `lines` expanded, the hourly lines ordered as query_charges orders lines (then
// by run_index).
std::vector<ChargeLine> expand_hourly(const std::vector<ChargeLine>& lines);
// The same lines in the same order, one at a time, without holding them all: memory grows
// with the number of lines, not with the hours of their runs (for_each_charge reads them from
// the database as well).
void for_each_hourly(const std::vector<ChargeLine>& lines,
                     const std::function<void(const ChargeLine&)>& fn);

// The part of `line` whose settlements start in [from, to); nullopt when none does. A line with
// repeat 1 is kept whole when its start is in range.
std::optional<ChargeLine> slice_line(const ChargeLine& line, Instant from, Instant to);

// ---- Balances ---------------------------------------------------------------------------------

// One balance_movement row. `amount` is the signed change of the balance (top-ups and refunds
// positive, charges negative); balance_after is the balance of that currency after it.
struct BalanceMovement {
  std::int64_t id = 0;
  std::string account;
  Instant at{};
  Currency currency;
  Decimal amount, balance_after;
  std::string kind;  // topup, charge, refund
  std::optional<std::int64_t> charge_id, event_seq;
  // The balance the engine recorded when it wrote the movement. For every movement but a
  // settlement run's it equals balance_after; a run's may also count other runs' hours that
  // are debited in later movements.
  Decimal recorded_balance;
  bool settles_run = false;  // debits hourly settlements of a charge row (a run segment)
};

// The account's movements with `from` <= at < `to` (either unset = open), in the order replay
// applied them: by at, hourly settlements before the other movements of that instant, then id.
// balance_after is the running total of the account's movements in that currency, in this
// order, from its first movement: so opening + movements = closing holds for any [from, to).
std::vector<BalanceMovement> query_balance_movements(Database& db, std::string_view account,
                                                     std::optional<Instant> from = {},
                                                     std::optional<Instant> to = {});

// ---- Balance after each settlement --------------------------------------------------------------

// The balance of one currency after one step: the hourly settlements that end at one instant,
// or one other movement (a top-up, an order, a refund).
struct BalancePoint {
  Instant at{};
  Currency currency;
  std::string kind;              // "opening", "settlement", or the movement's kind (topup, …)
  Decimal change;                // what the step moved the balance by (0 for the opening)
  Decimal balance;               // the balance after it
  std::int64_t settlements = 0;  // hourly settlements debited by the step
  std::optional<std::int64_t> movement_id;  // the movement of a step that is not settlements
};

// The account's balance in [from, to) after each hourly settlement, per currency. A settlement
// run's movements debit its hours together (at the end of its last hour, or in segments when a
// top-up, order or refund comes: BalanceMovement::settles_run); here every settlement is
// debited on its own, its billed_amount, at the end of the clock hour it starts in (a last
// hour of 14:00–14:10 at 15:00, docs/bills.md), or at its segment's movement when that came
// first, so the balance moves each hour as the account's did. Every other movement is a step of its
// own. Order: each currency's opening (the balance just before `from`, every earlier hour and
// movement counted) at `from`, then by instant, an instant's settlements before its other movements
// (as replay applies them; those in id order), currencies by code. After a step that is not
// settlements the balance equals the balance the engine recorded for that movement
// (BalanceMovement::recorded_balance); over an account's whole history it ends at the last
// movement's balance_after. Memory grows with the steps in [from, to), not with the account's
// history. Throws StoreError.
std::vector<BalancePoint> balance_by_settlement(Database& db, std::string_view account,
                                                Instant from, Instant to);

// ---- Amortised purchases ------------------------------------------------------------------------

// The part of a purchase that covers a period ahead (kind prepaid_order, renewal, auto_renewal,
// upgrade, or a refund of what remains) that falls on [from, to), amortised as the FOCUS export
// does (focus.hpp): hour slices aligned to its period_start, slice k counted where it starts,
// its share C(t_{k+1}) − C(t_k) with C(t) = amount × t / span truncated toward zero to the cent.
// The amount spread is the purchase's exact amount when the policy rounded it (the rounding is
// not spread: it stays on the purchase's first hour), else its billed amount; the shares over
// [period_start, period_end) add up to it exactly. nullopt for any other line (usage is not
// amortised), an empty period, a zero amount, or a line standing for several settlements.
std::optional<Decimal> amortised_share(const ChargeLine& purchase, Instant from, Instant to);

// ---- Monthly statement ------------------------------------------------------------------------

// Totals of some charge lines in one currency.
struct Totals {
  Decimal billed, exact, rounding;  // rounding = billed − exact
  std::int64_t settlements = 0;     // hourly settlements or orders counted
};

struct ComponentTotal {
  std::string instance, component, provider, instance_type;
  Currency currency;
  Totals totals;
};

struct KindTotal {
  std::string kind;
  Currency currency;
  Totals totals;
};

struct CurrencyTotal {
  Currency currency;
  Totals totals;
};

// The balance of one currency over the month; charges are negative. opening + topups + refunds +
// charges + other = closing, and every movement that is not a run's hourly settlements shows
// the balance the engine recorded for it (`reconciles`; false means a gap or an edited row).
// Movements are counted by when they happened: a run's hours are debited at the hour end of
// its last hour, or earlier in segments when a top-up, order or refund comes, so a run crossing
// the month end is charged (by hours) in both months but may be debited in the later one.
struct BalanceSummary {
  Currency currency;
  Decimal opening, topups, refunds, charges, other, closing;
  std::int64_t movements = 0;
  bool reconciles = true;
};

struct MonthlyStatement {
  std::string account;
  int year = 0;
  unsigned month = 0;
  std::string time_zone;                   // the calendar whose month this is
  Instant period_start{}, period_end{};    // [00:00 local on the 1st, 00:00 local on the next 1st)
  std::vector<ComponentTotal> components;  // by (instance, component, currency)
  std::vector<KindTotal> kinds;            // by (kind, currency)
  std::vector<CurrencyTotal> totals;       // by currency
  std::vector<BalanceSummary> balances;    // by currency: every currency moved up to period_end
  // In the month, by (at, id); empty with StatementMovements::summarised.
  std::vector<BalanceMovement> movements;
};

// query_balance_movements's movements handed to `fn` one at a time as they are read: memory
// does not grow with them (the running balances are one per currency). The movement `fn` gets
// is valid only during the call. With `opening` (the balances a statement of [from, to) found),
// only the movements from `from` are read, their running totals starting at those openings.
// Throws StoreError as query_balance_movements does, and whatever `fn` throws.
void for_each_balance_movement(Database& db, std::string_view account, std::optional<Instant> from,
                               std::optional<Instant> to,
                               const std::function<void(const BalanceMovement&)>& fn,
                               const std::vector<BalanceSummary>* opening = nullptr);

// Whether a statement lists the month's balance movements or only sums them into its balances
// (then read them with for_each_balance_movement over [period_start, period_end): a bill's
// memory does not grow with an account's movements).
enum class StatementMovements { listed, summarised };

// The statement of `account` for a calendar month in `calendar`'s zone: every charge line that
// starts in the month (runs split by hours at the month boundary, exactly), totalled per instance
// and component, per kind and per currency, and the account's balance movements in the month.
// REQUIRES: 1 <= month <= 12. Throws StoreError on undecodable rows. Memory grows with the
// instances and components of the account, not with its charge rows or movements (read one at
// a time), but for the movements listed (StatementMovements::listed, the default).
MonthlyStatement monthly_statement(Database& db, std::string_view account, int year, unsigned month,
                                   const Calendar& calendar,
                                   StatementMovements movements = StatementMovements::listed);
// The same in the account's billing calendar (account_calendar).
MonthlyStatement monthly_statement(Database& db, std::string_view account, int year, unsigned month,
                                   StatementMovements movements = StatementMovements::listed);

// The billing time zone of an account: the billing_time_zone of the providers its charges name.
// An account with no charges, or only charges without a provider, gets UTC. Throws Error when
// its providers bill in different zones (name the zone explicitly then).
Calendar account_calendar(Database& db, std::string_view account);

// ---- Explain ----------------------------------------------------------------------------------

// The catalog price row a charge used (table `price`, `disk_price` or `bandwidth_price`).
struct PriceRowInfo {
  std::string table;  // "price", "disk_price", "bandwidth_price"
  std::int64_t id = 0;
  std::string provider, subject, region, mode, unit;  // subject: instance type, GPU or kind
  Decimal amount;
  Currency currency;
  Instant effective_from{};
  std::optional<Instant> effective_to;
  std::string source, as_of;
};

struct PolicyRowInfo {
  std::int64_t id = 0;
  std::string provider;
  Instant effective_from{};
  std::optional<Instant> effective_to;
  int metering_granularity_seconds = 1;
  std::string settlement_period;  // of compute; disks and bandwidth as this unless set
  std::optional<std::string> disk_settlement_period, bandwidth_settlement_period;
  RoundingMode settlement_rounding = RoundingMode::half_up;
  int settlement_decimals = 2;
  int min_charge_seconds_per_run = 0;
  std::optional<Decimal> min_charge_per_lifetime;
  // As stored: "1,0.8,0.6,0.4" and "n1"; empty = no sustained use discount.
  std::string sustained_use_tiers, sustained_use_families;
  std::string source, as_of;
  // Metering and pricing rules (issue 27, part B): "hour_start", "per_second" or
  // "deal_then_per_second"; the hours in a quote's month.
  std::string spot_price_basis = "hour_start";
  int quote_month_hours = 720;
  // How usage records are rounded: "settlement" or "down_carry" (policy.hpp UsageRounding).
  std::string usage_rounding = "settlement";
};

struct DiscountRowInfo {
  std::int64_t id = 0;
  std::string provider, family, mode;
  int min_months = 0, max_months = 0;
  Decimal factor;
  Instant effective_from{};
  std::optional<Instant> effective_to;
  std::string source, as_of;
};

// The commitment_price row of a commitment's charge line (its discount_id; issue 29).
struct CommitmentRowInfo {
  std::int64_t id = 0;
  std::string provider, subject_kind, subject, region, program, offering_class, payment;
  int term_months = 12;
  Decimal upfront, hourly;
  Currency currency;
  Instant effective_from{};
  std::optional<Instant> effective_to;
  std::string source, as_of;
};

struct EventInfo {
  std::int64_t seq = 0;
  std::string account, id, type, instance;
  Instant time{};
  std::string source_file;
  std::int64_t source_line = 0;
  std::string status;   // applied, rejected
  std::string payload;  // canonical JSON
};

enum class Derivation {
  verified,       // re-derived with the rules and equal to the stored amounts
  mismatch,       // re-derived and different: see `mismatches`
  not_derivable,  // the kind's inputs are not all on the row (e.g. a refund's usage)
};
std::string_view to_string(Derivation d) noexcept;

struct ChargeExplanation {
  ChargeLine line;
  std::optional<PriceRowInfo> price;
  std::optional<PolicyRowInfo> policy;
  std::optional<DiscountRowInfo> discount;
  // A commitment's row (kind commitment_purchase, _fee, _covered, _unused): the commitment_price
  // row its discount_id names, instead of a discount row.
  std::optional<CommitmentRowInfo> commitment;
  std::vector<EventInfo> events;  // by seq
  // The arithmetic, one step a line, e.g.
  //   "15.09 CNY/h × 1800 s / 3600 = 7.545 → half_up 2 → 7.55, rounding +0.005".
  std::vector<std::string> arithmetic;
  // Whether the per-settlement amounts were re-derived from the price, quantity, discount and
  // policy with the rules (rules::settle, rules::prepaid_order) and matched.
  Derivation derivation = Derivation::not_derivable;
  // Every disagreement found: re-derived vs stored amounts, billed ≠ exact + rounding, totals ≠
  // per-settlement × repeat, unit price ≠ the price row's amount, a referenced row missing.
  std::vector<std::string> mismatches;
  bool consistent() const noexcept { return mismatches.empty(); }
  // Price rows now in force for the line's period instead of the one it used (imported after
  // the line was settled): the derivation holds for the row used, but `gpubill rebuild` would
  // re-price the line.
  std::vector<std::string> superseded;
  // The billing rule that produced the line: the rules:: function and the rule kind it applies
  // (e.g. "rules::usage_record — metering and settlement (hourly record, half_up 2)"), and the
  // source of that rule (the policy row's source: the provider's document). Empty when the line
  // has no policy row.
  std::string rule, rule_source;
};

// Everything that justifies a charge line. Throws NotFound when there is no such charge.
ChargeExplanation explain_charge(Database& db, std::int64_t charge_id);

// ---- Rejects ----------------------------------------------------------------------------------

struct RejectRow {
  std::int64_t id = 0;
  std::string kind;  // rule, malformed, duplicate
  std::string source_file;
  std::int64_t source_line = 0;
  std::string account, event_id;
  std::optional<Instant> time;
  std::string field, reason, raw;
};

struct RejectFilter {
  std::optional<std::string> account;
  std::optional<std::string> kind;
};

// Rejected and quarantined input lines, by id (the order they were met).
std::vector<RejectRow> query_rejects(Database& db, const RejectFilter& filter = {});
// The same rows handed to `fn` one at a time as they are read (a log with many bad lines has
// many). The row `fn` gets is valid only during the call.
void for_each_reject(Database& db, const RejectFilter& filter,
                     const std::function<void(const RejectRow&)>& fn);

// Every account a stored event or a reject names, sorted: the accounts a query can ask about.
// Throws StoreError.
std::vector<std::string> known_accounts(Database& db);

}  // namespace gpubill
