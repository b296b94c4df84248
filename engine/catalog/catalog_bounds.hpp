// Private to the engine: the one check of imported catalog rows against what the engine can
// bill, shared by every importer (the JSON catalog format, SkyPilot's CSV, catalog fetch).
// Parsers check syntax and types; this checks that each row's values are within the engine's
// bounds, whatever format they came in.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "gpubill/base/time.hpp"
#include "gpubill/catalog/catalog.hpp"

namespace gpubill {

// Where a row's field came from, for the error: place ("/prices/3", "line 12", or "" for a
// command-line option) and the field's name in the input ("amount", "Price", "--as-of").
struct RowPlace {
  std::string place, field;
};
// (section "prices", row index in that section of CatalogData, the row's field name) → place.
using RowPlaces =
    std::function<RowPlace(std::string_view section, std::size_t row, std::string_view field)>;

// The JSON catalog format's places: "/<section>/<row>" and the field as named.
RowPlaces json_row_places();

// The earliest date a catalog row may carry: 2006-01-01, the year the first pay-as-you-go cloud
// server was sold (Amazon EC2 beta, announced 2006-08-24:
// https://aws.amazon.com/about-aws/whats-new/2006/08/24/announcing-amazon-elastic-compute-cloud-amazon-ec2---beta/).
// Nothing before can have been billed; a date before it is a typo.
Instant earliest_catalog_date();

// The latest date (effective_from, as_of, an FX rate's date) a catalog row may carry when the
// caller gives no `not_after`: 2100-01-01. An effective_to may be later (an open end written
// as a far date) but not after 9999-12-31.
Instant latest_catalog_date();

// Checks every row of `data` against the engine's bounds; throws InputError(file, place,
// field, reason) for the first row out of them:
//   - prices: amount ≥ 0 and ≤ kMaxCatalogAmount; the unit the mode bills by (prepaid: month,
//     payg and spot: hour; reserved terms, which nothing bills, either);
//   - discounts: factor in (0, 1] (a discount never raises the price), min_months ≤ max_months;
//   - disk and bandwidth prices: amount ≥ 0 and ≤ kMaxCatalogAmount;
//   - FX rates: above 0;
//   - instance types: gpu_count ≥ 0, and above 0 when a GPU is named;
//   - every date (effective_from, as_of, an FX rate's date) from earliest_catalog_date() to
//     `not_after` (the CLI passes now plus a year: prices are announced ahead), or
//     latest_catalog_date() when unset; effective_to after effective_from.
void check_catalog_bounds(const CatalogData& data, const std::string& file, const RowPlaces& places,
                          std::optional<Instant> not_after);

}  // namespace gpubill
