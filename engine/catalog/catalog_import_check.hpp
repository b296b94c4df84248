// Private to the engine: catalog_check run by every import on the catalog the import leaves in
// the database.
#pragma once

#include "store/connection.hpp"

#include "gpubill/catalog/catalog.hpp"
#include "gpubill/catalog/catalog_import.hpp"

namespace gpubill {

// Checks the whole catalog the import of `data` leaves (check_catalog): the database's, where
// `written` (inside the import's transaction), else the database's with `data` laid over it
// as an import would (rows of the same key and start replaced). With an error and without
// `force`, throws InputError naming report.file and the first errors (the caller's transaction
// then writes nothing); with `force`, adds one note per error to `report`. Warnings are never
// notes. Throws StoreError when the database cannot be read.
void apply_catalog_check(store::Connection& db, const CatalogData& data, bool written, bool force,
                         ImportReport& report);

}  // namespace gpubill
