// Importing catalog data: the JSON catalog format (docs/catalog-format.md) used by the bundled
// catalog and by users' own files, and SkyPilot's service catalog (vms.csv).
//
// Every importer validates the whole input before anything is written, and writes a file in
// one SQLite transaction: a bad file imports nothing. Rows whose key (e.g. provider, subject,
// region, mode, effective_from for a price) is already in the database replace the earlier
// row, unless settled charges use it (ImportOptions); a later effective_from supersedes an
// earlier row from its start.
//
// Errors: bad input throws InputError(file, place, field, reason), where place is "line N" for
// syntax errors (JSON syntax, CSV rows) and a JSON pointer ("/prices/3") for rows that parse but
// are wrong, and field is the offending key ("amount") or CSV column ("Price"). A file that
// cannot be read throws InputError with an empty place; database failures throw StoreError.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpubill/base/progress.hpp"
#include "gpubill/base/time.hpp"
#include "gpubill/catalog/catalog.hpp"

namespace gpubill {

class Database;

// The largest amount a catalog row may carry (a price, a launch price, an FX rate, a SkyPilot
// number): far above any real one, it keeps every total a quote or a bill computes from it
// inside Decimal's range. A larger amount is an InputError naming the field.
inline constexpr std::int64_t kMaxCatalogAmount = 1'000'000'000;

// What an import or validation found, per section.
struct ImportReport {
  std::string file;
  std::size_t providers = 0, regions = 0, gpus = 0, instance_types = 0, prices = 0, discounts = 0,
              disk_prices = 0, bandwidth_prices = 0, fx_rates = 0, policies = 0, commitments = 0;
  // Things worth knowing that did not stop the import: skipped rows (with their line), prices
  // that disagreed between zones, instance types already in the database that were kept.
  std::vector<std::string> notes;
  std::size_t total() const noexcept;
};

// The row counts of `data` (file and notes left empty).
ImportReport count_rows(const CatalogData& data);

// How an import treats what settled bills rest on, and its bounds.
//
// Every imported row is checked against the engine's bounds whatever its format (a price's unit
// fits its mode, a discount factor in (0, 1], amounts ≥ 0, dates from 2006-01-01 to
// `not_after`): InputError naming file, row (or line) and field.
//
// Settled charges are pinned to the catalog rows they were priced with: an imported price,
// discount, disk, bandwidth or policy row with the key and effective_from of a row that charges
// use, but other values, does not edit that row: it becomes a new row that supersedes it
// (charges keep theirs, so bills and `explain` do not change), and the report's notes list the
// settled lines a `gpubill rebuild` would re-price. A provider or instance type that charges
// use may not be re-declared with other values (InputError listing the changes) unless
// `redefine`; then the notes list each change.
struct ImportOptions {
  // The latest effective_from, as_of or FX date a row may carry; the CLI passes now plus a year.
  // Unset: 2100-01-01.
  std::optional<Instant> not_after;
  bool redefine = false;
  ProgressSink progress;
  // Import even when the catalog check (catalog_check.hpp) fails on the catalog the import
  // leaves; each violation is then listed in the report's notes.
  bool force = false;
};

// ---- JSON catalog files -------------------------------------------------------------------

// Parses and validates one catalog file's text: JSON syntax, field types (amounts must be
// strings holding exact decimals, integers must be JSON integers), known currencies, modes,
// units and rounding modes, non-negative prices and factors, valid dates, effective_to after
// effective_from, no two rows for one key with overlapping periods in the file, no unknown
// fields. Does not check references to other rows (see check_catalog_references). Rows keep
// their order, so data.prices[i] came from "/prices/i". Throws InputError naming file_name.
CatalogData parse_catalog_json(std::string_view text, const std::string& file_name);

// Checks that every provider, region, GPU and instance type a row of `data` refers to is defined in
// `data` itself or in `known` (typically the database's catalog). Throws InputError with the
// row's JSON pointer and field ("/prices/3", "instance_type").
void check_catalog_references(const CatalogData& data, const CatalogData& known,
                              const std::string& file_name);

// Reads, validates and imports a JSON catalog file in one transaction. References may point
// to rows already in the database. Returns the row counts of the file. `progress` gets
// "import" reports in rows written (progress.hpp) once the file is parsed and checked.
// Then the catalog the import leaves is checked (check_catalog, catalog_check.hpp): an error
// throws InputError and nothing is imported, unless `force`, which imports it and lists each
// error in the report's notes ("check: …").
ImportReport import_catalog_file(Database& db, const std::string& path,
                                 const ProgressSink& progress = {});
ImportReport import_catalog_file(Database& db, const std::string& path,
                                 const ImportOptions& options);

// The same checks as import_catalog_file, against the same database, writing nothing.
ImportReport validate_catalog_file(Database& db, const std::string& path,
                                   const ImportOptions& options = {});

// Loads the catalog compiled into the library (fixtures/catalog/*.json, in file name order) in
// one transaction when the database does not hold this exact version of it yet (meta key
// "bundled_catalog" = FNV-1a 64 hash of the files' names and texts); otherwise does nothing.
// Returns whether it loaded the catalog. Throws InputError if a bundled file is invalid (a build
// defect), StoreError on database failures.
bool ensure_bundled_catalog(Database& db);

// The hash ensure_bundled_catalog stores, as 16 lower-case hex digits.
std::string bundled_catalog_hash();

// Whether the database holds this exact version of the bundled catalog (ensure_bundled_catalog
// would do nothing). Only reads. Throws StoreError.
bool bundled_catalog_is_current(Database& db);

// ---- Rows another importer converted (catalog fetch) ---------------------------------------

// Price rows (and the regions they add) that an importer of another format made from the
// database's catalog: `places[i]` names where data.prices[i] came from ("page-1.json
// /products/ABC"), for errors. Notes go to the report first.
struct ConvertedRows {
  CatalogData data;
  std::vector<std::string> places;
  std::vector<std::string> notes;
};

// Calls `convert` with the database's catalog inside one IMMEDIATE transaction, then checks and
// writes its rows as every import does (bounds, references, pinned rows, `catalog check`,
// `force`, `progress`): all or nothing. `name` names the input in the report and in errors. An
// exception from `convert` or from the progress sink rolls everything back.
ImportReport import_converted_rows(Database& db, const std::string& name,
                                   const std::function<ConvertedRows(const Catalog&)>& convert,
                                   const ImportOptions& options, bool commit = true);

// ---- SkyPilot service catalog (vms.csv) --------------------------------------------------

struct SkyPilotOptions {
  // Provider id the rows belong to ("aws", "google"). Empty = infer from the file: zone ids
  // like "use1-az1" mean aws, zones named "<region>-<letter>" mean google; otherwise
  // InputError asking for the provider.
  std::string provider;
  // Date of the catalog snapshot (YYYY-MM-DD): the as_of of every price row. Required.
  std::string as_of;
  // When the prices take effect. Unset = 00:00 UTC on as_of.
  std::optional<Instant> effective_from;
  // Provenance written on every row. Empty = the file name.
  std::string source;
  // Currency of the Price and SpotPrice columns.
  std::string currency = "USD";
};

// Converts a SkyPilot vms.csv into catalog rows. Columns are found by header name, in any
// order (InstanceType, AcceleratorName, AcceleratorCount, vCPUs, MemoryGiB, Region,
// AvailabilityZone, Price, SpotPrice; others are ignored); fields follow RFC 4180 quoting.
//   - A row with InstanceType and AcceleratorName is a GPU instance: an instance type whose
//     GPU is the catalog GPU the accelerator name matches (id or alias, via `catalog`);
//     an unknown accelerator skips the row with a note naming its line.
//   - A row with InstanceType and no accelerator is a host: kept (without GPU) when the file
//     also has attachable-GPU rows, else skipped as a non-GPU instance (noted once).
//     A host the catalog knows with built-in GPUs (a2-highgpu-1g: 1×A100) is priced as host +
//     its GPUs from the same zone's attachable-GPU rows, or skipped with a note when the file
//     has no price for them.
//   - A row with AcceleratorName and no InstanceType is an attachable GPU (Google-style): its
//     prices become per-GPU `gpu` price rows (Price / AcceleratorCount); all counts of a GPU in
//     a zone must give the same per-GPU price exactly, else InputError naming the line.
// Price (payg, per hour) is per region: zones normally agree; if they do not, the highest is
// kept and noted. Spot is per zone: the lowest SpotPrice of the region's zones is kept. Empty
// prices give no row. A malformed row (wrong number of fields, a number that does not parse, a
// negative price) throws InputError(file_name, "line N", column, reason).
struct SkyPilotImport {
  CatalogData data;
  std::vector<std::string> notes;
  // The first line of the rows each price row of data.prices came from (same index).
  std::vector<std::size_t> price_lines;
};
SkyPilotImport parse_skypilot_csv(std::string_view text, const std::string& file_name,
                                  const SkyPilotOptions& options, const Catalog& catalog);

// Reads, converts and imports a SkyPilot vms.csv in one transaction, matching accelerators
// against the database's catalog. Instance types and regions already in the database keep
// their existing rows (SkyPilot adds prices to them); new ones are added.
// `progress`, `force` and the catalog check: as for import_catalog_file.
ImportReport import_skypilot_file(Database& db, const std::string& path,
                                  const SkyPilotOptions& options,
                                  const ProgressSink& progress = {});
ImportReport import_skypilot_file(Database& db, const std::string& path,
                                  const SkyPilotOptions& options, const ImportOptions& import);
// The same, writing nothing.
ImportReport validate_skypilot_file(Database& db, const std::string& path,
                                    const SkyPilotOptions& options,
                                    const ImportOptions& import = {});

}  // namespace gpubill
