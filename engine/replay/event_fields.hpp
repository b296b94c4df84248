// Private to the engine: the fields of a usage event and the checks both log formats share
// (JSON Lines in event_json.cpp, CSV in event_csv.cpp; docs/usage-log.md).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gpubill/base/errors.hpp"
#include "gpubill/replay/events.hpp"

namespace gpubill::event_input {

enum Field : int {
  f_id,
  f_time,
  f_type,
  f_account,
  f_instance,
  f_amount,
  f_currency,
  f_provider,
  f_region,
  f_instance_type,
  f_mode,
  f_months,
  f_auto_renew,
  f_system_disk,
  f_data_disks,
  f_bandwidth_mbps,
  f_gpus,
  f_gpu,
  f_return_kind,
  f_term,  // commit
  f_payment,
  f_class,
  f_units,  // "count"
  f_start,
  f_interrupted,  // stop, destroy
  f_plan,         // commit of a savings plan
  f_family,
  f_count,  // fields of a JSON event
  // CSV only: the system disk as two columns
  f_system_disk_kind = f_count,
  f_system_disk_gb,
  f_csv_count
};

inline constexpr std::array<std::string_view, f_csv_count> kFieldNames = {"id",
                                                                          "time",
                                                                          "type",
                                                                          "account",
                                                                          "instance",
                                                                          "amount",
                                                                          "currency",
                                                                          "provider",
                                                                          "region",
                                                                          "instance_type",
                                                                          "mode",
                                                                          "months",
                                                                          "auto_renew",
                                                                          "system_disk",
                                                                          "data_disks",
                                                                          "bandwidth_mbps",
                                                                          "gpus",
                                                                          "gpu",
                                                                          "return_kind",
                                                                          "term",
                                                                          "payment",
                                                                          "class",
                                                                          "count",
                                                                          "start",
                                                                          "interrupted",
                                                                          "plan",
                                                                          "family",
                                                                          "system_disk_kind",
                                                                          "system_disk_gb"};

// The field a JSON key or CSV column names, or -1. CSV spells the system disk as two
// columns (system_disk_kind, system_disk_gb) instead of one object.
int field_of(std::string_view name, bool csv);

using Mask = std::uint32_t;
constexpr Mask bit(int f) {
  return Mask{1} << f;
}

struct Context {
  const std::string& file;
  std::int64_t line;
  [[noreturn]] void fail(std::string_view field, const std::string& reason) const {
    throw InputError(file, "line " + std::to_string(line), std::string(field), reason);
  }
};

// Conversions shared by JSON and CSV; each throws InputError through cx naming the field.
std::int64_t to_integer(std::string_view text, std::string_view field, const Context& cx,
                        std::int64_t min, std::int64_t max);
bool to_bool(std::string_view text, std::string_view field, const Context& cx);
// An id or a name: non-empty, valid UTF-8, no control character, at most 256 bytes.
void check_name(std::string_view text, std::string_view field, const Context& cx);
// Sets one text field of `ev` (id, time, type, account, instance, amount, currency, provider,
// region, instance_type, mode, gpu) from its text.
void set_text_field(UsageEvent& ev, int f, std::string_view text, const Context& cx);
// Checks the fields present against the event type's required and allowed fields.
void finish_event(UsageEvent& ev, Mask present, const Context& cx);

inline constexpr std::int64_t kMaxSizeGb = 1'000'000;
inline constexpr std::int64_t kMaxMonths = 1200;
inline constexpr std::int64_t kMaxBandwidthMbps = 1'000'000;
inline constexpr std::int64_t kMaxGpus = 1024;
inline constexpr std::int64_t kMaxCommitUnits = 100'000;

// One event from one JSON Lines line (event_json.cpp) or from one CSV record's cells in the
// columns the header named (event_csv.cpp).
void parse_json_event(UsageEvent& ev, std::string_view line, const Context& cx);
void parse_csv_event(UsageEvent& ev, const std::vector<int>& column_fields,
                     const std::vector<std::string>& cells, const Context& cx);
// The fields a CSV header's columns name; throws through cx for an unknown, repeated or
// missing column.
std::vector<int> csv_columns(const std::vector<std::string>& header, const Context& cx);

}  // namespace gpubill::event_input
