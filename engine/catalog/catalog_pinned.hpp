// Private to the engine: settled bills are pinned to the catalog rows they were priced with.
// An import may add rows (a later effective_from supersedes a row from its start), but it may
// not edit in place a price, discount, disk, bandwidth or policy row that a charge names, nor
// re-declare a provider or instance type that charges use with other billing values unless the
// user says so (--redefine). `gpubill rebuild` is then the only way to re-price the past.
#pragma once

#include "store/connection.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "catalog/catalog_bounds.hpp"
#include "gpubill/catalog/catalog.hpp"

namespace gpubill {

// The stored rows of the database that charges name and that rows of an import have the key of
// (taken before the import writes), to tell afterwards which of them it would change.
class PinnedRows {
 public:
  // Finds, for every price, discount, disk, bandwidth and policy row of `data`, the stored row
  // with its key (and effective_from) that a charge names, and keeps its values. Reads only.
  PinnedRows(store::Connection& db, const CatalogData& data);

  // The pinned rows whose values `data` would change (compared as written, but for source and
  // as_of, which price nothing). Unless `restore`, throws InputError(file, place of the
  // importing row, field of the first changed column) naming the row, the settled charges that
  // use it and each change: call it before writing. With `restore` (the bundled catalog, which
  // cannot ask the user), call it after writing: it writes the pinned values back and returns
  // one note per row kept.
  std::vector<std::string> check_unchanged(const std::string& file, const RowPlaces& places,
                                           bool restore) const;

 private:
  struct Pinned {
    std::string table, section;
    std::size_t row = 0;  // index in the section of the import
    std::int64_t id = 0;
    std::int64_t uses = 0;  // charge lines that name it
    std::string accounts;   // their accounts, comma-separated
    std::vector<std::string> columns;
    std::vector<std::optional<std::string>> values;    // as stored before the import
    std::vector<std::optional<std::string>> imported;  // as the import would write it
  };
  store::Connection& db_;
  std::vector<Pinned> pinned_;
};

// Providers and instance types of `data` that are already in `known`, that settled charges use,
// and whose billing values (a provider's currency or billing time zone; an instance type's GPU,
// GPU count, family or attachable GPUs) `data` changes. Unless `redefine`, throws InputError
// (file, place of the row, the first changed field) listing the changes and the charges that
// use the row, asking for --redefine. With `redefine`, returns one note per changed row, listing
// its changes and the `gpubill rebuild` that re-prices the settled lines.
std::vector<std::string> check_redefinitions(store::Connection& db, const CatalogData& data,
                                             const CatalogData& known, const std::string& file,
                                             const RowPlaces& places, bool redefine);

}  // namespace gpubill
