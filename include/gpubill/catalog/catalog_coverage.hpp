// Catalog coverage: for each provider × GPU model (or family) × billing mode, how many offers
// the catalog has, how many are priced at a date, how many are unknown, in how many regions,
// and over which effective dates. This is how the catalog's completeness is measured.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "gpubill/catalog/catalog.hpp"

namespace gpubill {

enum class CoverageGroup { gpu, family };

struct CoverageFilter {
  std::string provider;           // empty = every provider; unknown → NotFound
  std::vector<std::string> gpus;  // GPU ids; empty = every GPU
  CoverageGroup group = CoverageGroup::gpu;
  // The date coverage is measured at; unset = the latest effective_from in the catalog.
  std::optional<Instant> at;
};

// An offer is an instance type with built-in GPUs, or a host with N of one attachable GPU
// (Google-style, priced host + N × GPU). At `at`, in one mode, an offer is
//   priced       — a price is in force in at least one region (both host and GPU rows for a
//                  host + GPU offer);
//   not_on_sale  — its lifecycle says it could not be rented at `at`: before the instance
//                  type's available_from, or on or after its retired_on (or its attached GPU's);
//   unknown      — otherwise: no price in force in this mode (a missing price is unknown, never
//                  taken for "not on sale").
// Every mode is listed for every provider, modes without a single row too.
struct CoverageRow {
  std::string provider;
  std::string group;  // GPU id, or family, per CoverageFilter::group
  BillingMode mode = BillingMode::payg;
  std::size_t offers = 0;
  std::size_t priced = 0, unknown = 0, not_on_sale = 0;
  // Distinct regions with a price in force ("every region" rows count as one region "*").
  std::size_t regions = 0;
  // Priced offer × region cells in force at `at` (the unit of "priced offer-region-mode rows").
  std::size_t price_cells = 0;
  // Earliest and latest effective_from of this mode's price rows for these offers (any date).
  std::optional<Instant> first_from, last_from;
};

struct CoverageReport {
  Instant at{};
  bool at_default = true;
  std::vector<CoverageRow> rows;  // by provider, group, mode
  CoverageRow total;              // sums; provider and group empty
};

CoverageReport catalog_coverage(const Catalog& catalog, const CoverageFilter& filter);

}  // namespace gpubill
