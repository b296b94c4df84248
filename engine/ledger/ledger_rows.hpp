// Private to the engine: decoding the replay tables' rows (migrations/0002_replay.sql) for the
// ledger, statements, explanations and the FOCUS export.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "gpubill/base/decimal.hpp"
#include "gpubill/base/money.hpp"
#include "gpubill/base/time.hpp"
#include "gpubill/ledger/ledger.hpp"
#include "store/connection.hpp"

namespace gpubill::ledger_rows {

// The charge columns in the order read_charge expects, for "SELECT <kChargeColumns> FROM charge".
extern const char* const kChargeColumns;

// The current row of a statement selecting kChargeColumns. Throws StoreError naming the charge
// id and column when a value does not decode.
ChargeLine read_charge(store::Statement& q);

// Decoders that throw StoreError naming `what` (e.g. "charge 12: exact_amount").
Decimal decode_decimal(const std::string& text, const std::string& what);
Currency decode_currency(const std::string& text, const std::string& what);
RoundingMode decode_rounding(const std::string& text, const std::string& what);
Instant instant_of(std::int64_t unix_seconds);
std::int64_t unix_of(Instant t);
std::optional<std::int64_t> optional_int(const store::Column& c);
std::optional<Instant> optional_instant(const store::Column& c);

// The `amount` of an event's canonical JSON (replay/events.cpp: "amount":"25.00"): a savings
// plan's hourly commitment on its commit event. nullopt when the payload has none.
std::optional<Decimal> event_amount(std::string_view payload);

// Display facts about a provider from the catalog: its name, billing zone, and region names.
struct ProviderFacts {
  std::string id, name, billing_time_zone;
};
std::optional<ProviderFacts> provider_facts(store::Connection& db, std::string_view provider);
std::optional<std::string> region_name(store::Connection& db, std::string_view provider,
                                       std::string_view region);

// A meter counted in seconds and priced per hour: unit "second" or "<x>_second" (GPU-, GB- or
// Mbps-seconds: seconds × how many) with price_unit "hour" or "<x>_hour". Its amount is
// unit_price × quantity / 3600 (rules::settle).
bool per_second_of_hourly(std::string_view unit, std::string_view price_unit) noexcept;
// "gb_second" → "gb_", "second" → "".
std::string_view unit_prefix(std::string_view unit) noexcept;

// The catalog table a charge's price_id points into, by its component: compute → "price",
// system_disk / data_disk → "disk_price", bandwidth → "bandwidth_price".
std::string_view price_table_for(std::string_view component) noexcept;

// ---- Runs (the rule on ChargeLine) ----

// Throws StoreError when a run's span does not fit the run rule.
void check_run_shape(const ChargeLine& line);
// Throws StoreError when the totals are not the per-settlement amounts × repeat.
void check_totals(const ChargeLine& line);
// The settlements [k0, k1) of `line` as a line of their own (0 <= k0 < k1 <= line.repeat).
ChargeLine part_of(const ChargeLine& line, std::int64_t k0, std::int64_t k1);
// The same into `part`, reusing its strings' storage (for a loop over many hours).
void assign_part(ChargeLine& part, const ChargeLine& line, std::int64_t k0, std::int64_t k1);
// Only the span of `part` (its period, repeat, run index and totals) set to the settlements
// [k0, k1) of `line`: `part` already holds a copy of `line` (a merge hands out its hours).
void set_part_span(ChargeLine& part, const ChargeLine& line, std::int64_t k0, std::int64_t k1);
// Lines by start, then by what they charge, so that a log replayed whole or in parts (which
// writes the same rows in another id order) lists them in the same order; the id last.
bool line_order(const ChargeLine& a, const ChargeLine& b);

}  // namespace gpubill::ledger_rows
