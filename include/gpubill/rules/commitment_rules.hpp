// Commitments applied to usage (issue 29): AWS's normalization factors and instance size
// flexibility for reserved instances, and the hourly share of a commitment's upfront. Shared by
// replay (which applies commitments hour by hour) and the ledger (explain, the FOCUS export).
//
// awsdocs/amazon-ec2-user-guide@096556437fd7fdc573353d1b0e7db0909c4708f4, doc_source/apply_ri.md:
// "The Reserved Instance is applied from the smallest to the largest instance size within the
// instance family based on the normalization factor" (its two tables, nano 0.25 … 112xlarge 896,
// and the metal sizes), and "Instance size flexibility does not apply to … Reserved Instances for
// G4ad, G4dn, G5, and G5g instances".
#pragma once

#include <cstdint>
#include <string_view>

#include "gpubill/base/decimal.hpp"

namespace gpubill::rules {

// An instance size's normalization factor in quarters (nano 0.25 → 1, xlarge 8 → 32,
// i3.metal 128 → 512); 0 for a size the tables do not list (then no size flexibility).
std::int64_t normalization_quarters(std::string_view instance_type);

// Whether an AWS regional reserved instance of `instance_type` (family `family`) applies across
// the sizes of its family: a listed size, and not one of the families the guide excludes.
bool ri_size_flexible(std::string_view provider, std::string_view program, std::string_view family,
                      std::string_view instance_type);

// Hour k's (0-based) share of a commitment's upfront `total` spread over `term_hours`, as the
// FOCUS export spreads a purchase: C(h) = total · h / term_hours truncated to total's quantum
// (0.01, or its last decimal), share_k = C(k + 1) − C(k). The shares add up to total exactly.
// REQUIRES: 0 <= k < term_hours.
Decimal commitment_upfront_share(Decimal total, std::int64_t term_hours, std::int64_t k);

}  // namespace gpubill::rules
