// Private to the engine: reading and writing the catalog tables (migrations/0001_catalog.sql).
//
// Storage conventions: amounts and other decimals are exact decimal text ("13.86"); instants
// (effective_from / effective_to) are UTC unix seconds, effective_to NULL = open-ended; days
// (fx_rate.day, as_of) are "YYYY-MM-DD"; a policy's auto_renew_local_time is "HH:MM"; optional
// key parts (a price's region, a discount's family) are '' rather than NULL.
#pragma once

#include "store/connection.hpp"

#include <chrono>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "gpubill/base/progress.hpp"
#include "gpubill/catalog/catalog.hpp"

namespace gpubill {

// A short list stored in one column (a policy's sustained_use_tiers and _families): "a,b,c",
// items never holding a comma; "" = empty.
std::vector<std::string> split_list(const std::string& text);

// Every catalog row of the database, each section in key order, with row ids set. Throws
// StoreError when a stored value does not decode (a corrupt or hand-edited database).
// With `prices_around`, only the price rows Catalog::load_around keeps (every other section
// whole); with PriceLoad::none, no price row (for read_prices_around).
// With `type_gpus`, only the instance types that carry one of those GPU ids (built in or
// attachable; instance_type.gpu and attachable_gpu.gpu hold GPU ids), by the GPU indexes of
// migration 0015, and only the commitment rows of those GPUs and instance types.
// With SourceText::omitted, price and commitment rows have an empty `source`
// (Catalog::load_for_billing).
enum class PriceLoad { rows, none };
enum class SourceText { read, omitted };
CatalogData read_catalog_data(store::Connection& db,
                              std::optional<Instant> prices_around = std::nullopt,
                              PriceLoad prices = PriceLoad::rows,
                              const std::set<std::string>* type_gpus = nullptr,
                              SourceText sources = SourceText::read);

// Adds to `out` (whose instance types are read) the price rows Catalog::load_around keeps at
// `t` (unix seconds). With `priced_gpus`, only the subjects that carry one of those GPU ids
// (built in or attachable) and those GPUs' own rows; every other subject gets one key-only row
// per region (PriceRow::key_only). Throws store::SqlError.
void read_prices_around(store::Connection& db, CatalogData& out, std::int64_t t,
                        const std::set<std::string>* priced_gpus);

// Adds to `out` (read with an empty `type_gpus`) the instance types that carry one of `gpus`,
// and their commitment rows, as read_catalog_data with them as `type_gpus` would have. Throws
// store::SqlError.
void read_instance_types_carrying(store::Connection& db, CatalogData& out,
                                  const std::set<std::string>& gpus);

// As read_prices_around with `priced_gpus`, but reads only the rows of the subjects that carry
// one of them, each subject by its own index range, and makes no key-only row for any other
// subject: for a catalog whose other offers are summarized (UnloadedOffers).
void read_prices_around_only(store::Connection& db, CatalogData& out, std::int64_t t,
                             const std::set<std::string>& priced_gpus);

// Upserts every row of `data`: a row whose unique key is already stored replaces the stored
// row (keeping its id); a GPU's aliases and an instance type's attachable GPUs are replaced as a
// whole. Row ids in `data` are ignored. Writes in dependency order (providers, regions, GPUs,
// instance types, then the rest). The caller wraps the call in a transaction. Reports
// "import" progress in rows written (total: the rows of `data`). Throws StoreError (e.g. a
// foreign key to a missing provider).
void write_catalog_data(store::Connection& db, const CatalogData& data,
                        const ProgressSink& progress = {});

// parse_catalog_json for text this build ships (the bundled catalog): the same rows and field
// checks, without the per-key event callback that rejects duplicate keys and places syntax
// errors on a line — the bundled files pass those checks in the test suite, and skipping them
// makes the first load of a new database about twice as fast to parse. Throws InputError.
CatalogData parse_trusted_catalog_json(std::string_view text, const std::string& file_name);

// A local time of day "HH:MM" (00:00 to 23:59) as minutes after midnight. Throws ParseError.
std::chrono::minutes parse_hh_mm(std::string_view text);
// Minutes after midnight (0 to 1439) as "HH:MM".
std::string format_hh_mm(std::chrono::minutes m);

}  // namespace gpubill
