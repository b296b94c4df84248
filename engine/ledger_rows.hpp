// Private to the engine: decoding the replay tables' rows (migrations/0002_replay.sql) for the
// ledger, statements, explanations and the FOCUS export.
#pragma once

#include <SQLiteCpp/SQLiteCpp.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "gpubill/decimal.hpp"
#include "gpubill/ledger.hpp"
#include "gpubill/money.hpp"
#include "gpubill/time.hpp"

namespace gpubill::ledger_rows {

// The charge columns in the order read_charge expects, for "SELECT <kChargeColumns> FROM charge".
extern const char* const kChargeColumns;

// The current row of a statement selecting kChargeColumns. Throws StoreError naming the charge
// id and column when a value does not decode.
ChargeLine read_charge(SQLite::Statement& q);

// Decoders that throw StoreError naming `what` (e.g. "charge 12: exact_amount").
Decimal decode_decimal(const std::string& text, const std::string& what);
Currency decode_currency(const std::string& text, const std::string& what);
RoundingMode decode_rounding(const std::string& text, const std::string& what);
Instant instant_of(std::int64_t unix_seconds);
std::int64_t unix_of(Instant t);
std::optional<std::int64_t> optional_int(const SQLite::Column& c);
std::optional<Instant> optional_instant(const SQLite::Column& c);

// Display facts about a provider from the catalog: its name, billing zone, and region names.
struct ProviderFacts {
  std::string id, name, billing_time_zone;
};
std::optional<ProviderFacts> provider_facts(SQLite::Database& db, std::string_view provider);
std::optional<std::string> region_name(SQLite::Database& db, std::string_view provider,
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

}  // namespace gpubill::ledger_rows
