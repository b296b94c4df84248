// The catalog one quote reads (load_quote_catalog, quote.hpp): prices around the quote's
// instant, and in full only for the offers that can carry the GPUs the workload names. Most of
// a quote's time went to reading and indexing the prices of every other offer.
#include <set>

#include "catalog/catalog_store.hpp"
#include "gpubill/base/errors.hpp"
#include "gpubill/catalog/catalog_offers.hpp"
#include "gpubill/quote/quote.hpp"
#include "store/store.hpp"

namespace gpubill {

namespace {

// The ids of the GPUs the workload's names match (as resolve_workload matches them), or
// nullopt when it names none or a name matches nothing.
std::optional<std::set<std::string>> named_gpu_ids(const CatalogData& data,
                                                   const Workload& workload) {
  if (workload.gpu.models.empty()) return std::nullopt;
  CatalogData gpus_only;
  gpus_only.gpus = data.gpus;
  const Catalog gpus(std::move(gpus_only));
  std::set<std::string> ids;
  for (const auto& name : workload.gpu.models) {
    try {
      for (const Gpu* g : gpus_matching(gpus, name)) ids.insert(g->id);
    } catch (const NotFound&) {
      return std::nullopt;  // resolve_workload names the unknown GPU
    }
  }
  return ids;
}

}  // namespace

Catalog load_quote_catalog(Database& db, Instant at, const Workload& workload) {
  SQLite::Database& sql = sqlite(db);
  CatalogData data = read_catalog_data(sql, std::nullopt, PriceLoad::none);
  const auto ids = named_gpu_ids(data, workload);
  try {
    read_prices_around(sql, data, at.time_since_epoch().count(), ids ? &*ids : nullptr);
  } catch (const SQLite::Exception& e) {
    throw StoreError(std::string("cannot read the catalog: ") + e.what());
  }
  return Catalog(std::move(data));
}

}  // namespace gpubill
