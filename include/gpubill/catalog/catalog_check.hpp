// Invariants over a whole catalog (`gpubill catalog check`, and every `catalog import`): the
// checks that catch the rows a buyer would see first because they are wrong — a price too low,
// a placeholder, a row never closed, a retired offer still priced, two sites mixed in one region.
//
// Each invariant has a name (CheckViolation::invariant):
//   gpu_price_floor   an instance with built-in GPUs is priced below its GPUs alone, where the
//                     provider prices those GPUs on their own (per-GPU rows, Google);
//   region_floor      its price per GPU is under a third of the median of the same instance
//                     type's prices in the provider's other regions (at least 3), same mode;
//   sibling_floor     its price per GPU is under a quarter of the median per-GPU price of the
//                     other instance types with the same GPU model in the same region and mode;
//   constant_ratio    a non-payg price is exactly a placeholder ratio (1/10) of the payg price
//                     of the same subject and region, and its source does not carry the
//                     estimate tag [E] (an estimate says so in its source and is not ranked by
//                     quotes unless asked for);
//   repeated_price    one spot price, same region and date, on instance types with different GPUs;
//   snapshot_closure  a later snapshot of the same source (repository@commit) re-priced at
//                     least 80 % (and at least 3) of a subject's regions in one mode, and a
//                     region it left out still has a row in force that neither names that
//                     snapshot's commit (confirmed unchanged) nor ends by its date;
//   price_jump        consecutive rows of one key move more than 3× (both sources named);
//                     an error for list prices, a warning for spot (spot markets move);
//   gpu_spec          an instance type's GPU is not in the GPU table, or its GPU count is not
//                     a whole number of rentable units (a fraction only below 1: a vGPU slice);
//   lifecycle         a price row of an instance type starts before its available_from or on or
//                     after its retired_on;
//   region_currency   one region receives instance prices in two currencies (a region-less row
//                     applies to every region): mainland and international sites of a provider
//                     must be distinct regions, each with its own currency;
//   commitment_discount  a commitment offer (commitment.hpp) costs, over its term, no less than
//                     the pay-as-you-go price in force for the same subject and region at its
//                     effective_from for every hour of the term, is in another currency, or is
//                     offered on or after its instance type was retired.
// Pure: reads only its argument.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "gpubill/catalog/catalog.hpp"

namespace gpubill {

enum class CheckSeverity { error, warning };
std::string_view to_string(CheckSeverity s) noexcept;  // "error", "warning"

struct CheckViolation {
  std::string invariant;  // the names above
  CheckSeverity severity = CheckSeverity::error;
  std::string provider, subject, region, mode;  // region empty = every region
  std::string effective_from;                   // of the row at fault (YYYY-MM-DD…), or ""
  std::string message;                          // what is wrong, with the figures
  std::string sources;                          // the source(s) of the rows involved
};

struct CheckReport {
  std::vector<CheckViolation> violations;  // by invariant, provider, subject, region, date
  std::size_t errors = 0, warnings = 0;
  std::size_t price_rows = 0, instance_types = 0;  // what was checked
  bool passed() const noexcept { return errors == 0; }
};

// Checks every invariant over `data`. Never throws on bad data (that is what it reports).
CheckReport check_catalog(const CatalogData& data);

// One line for a violation: "error region_floor google a2-highgpu-1g northamerica-northeast2
// payg 2022-02-16: …".
std::string describe(const CheckViolation& v);

}  // namespace gpubill
