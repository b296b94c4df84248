// Private to the catalog: the metering and pricing fields of a policy row (issue 27, part B:
// spot_price_basis, quote_month_hours, usage_rounding, disk_min_charge_seconds,
// spot_interrupted_free_seconds), read from catalog JSON and stored in their own columns
// (migrations/0011_metering_rules.sql, 0016_usage_rounding.sql, 0017_disk_minimum.sql,
// 0020_spot_interruption.sql), kept apart from the other policy fields.
#pragma once

#include "store/connection.hpp"

#include <string_view>
#include <vector>

#include "base/json_fields.hpp"
#include "gpubill/catalog/policy.hpp"

namespace gpubill {

// The JSON keys of this block, for the policies section's list of allowed keys.
inline constexpr std::string_view kMeteringPolicyKeys[] = {
    "spot_price_basis", "quote_month_hours", "usage_rounding", "disk_min_charge_seconds",
    "spot_interrupted_free_seconds"};

// Reads this block's fields of one "policies" row into `p` (absent = the defaults in
// policy.hpp). Throws InputError naming the field.
void read_metering_policy_fields(const json_input::Fields& f, BillingPolicy& p);

// Writes this block's columns of the policy rows already upserted (keyed by provider and
// effective_from), and reads them back into `policies` (matched by row id). Throw StoreError
// on a value that does not decode.
void write_metering_policy_fields(store::Connection& db,
                                  const std::vector<BillingPolicy>& policies);
void read_metering_policy_fields(store::Connection& db, std::vector<BillingPolicy>& policies);

}  // namespace gpubill
