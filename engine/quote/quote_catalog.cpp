// The catalog one quote reads (load_quote_catalog, quote.hpp): prices around the quote's
// instant, and in full only for the offers that can carry the GPUs the workload names. Most of
// a quote's time went to reading and indexing the prices of every other offer.
#include <set>

#include "catalog/catalog_store.hpp"
#include "catalog/offer_summary_store.hpp"
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

// The narrowed read with the offer summary: GPUs first (to match the workload's names), then
// only the instance types and prices of the matched GPUs' offers, `summary` narrowed to the
// others; nullopt when the workload names no GPU the catalog knows.
std::optional<CatalogData> read_with_summary(store::Connection& sql, UnloadedOffers& summary,
                                             std::int64_t t, const Workload& workload) {
  if (workload.gpu.models.empty()) return std::nullopt;
  const std::set<std::string> no_gpus;
  CatalogData data = read_catalog_data(sql, std::nullopt, PriceLoad::none, &no_gpus);
  auto ids = named_gpu_ids(data, workload);
  if (!ids) return std::nullopt;
  read_instance_types_carrying(sql, data, *ids);
  read_prices_around_only(sql, data, t, *ids);
  std::erase_if(summary.groups, [&](const OfferGroup& g) { return ids->count(g.gpu) > 0; });
  summary.loaded_gpus = std::move(*ids);
  return data;
}

}  // namespace

Catalog load_quote_catalog(Database& db, Instant at, const Workload& workload,
                           std::optional<UnloadedOffers>* unloaded) {
  store::Connection& sql = connection(db);
  try {
    // One read snapshot for every query below: the summary and the rows it narrows are of the
    // same moment, and SQLite takes its read lock once instead of once per statement.
    store::Transaction snapshot(sql, store::Transaction::Kind::read_snapshot, "quote");
    const std::int64_t t = at.time_since_epoch().count();
    if (unloaded) unloaded->reset();
    if (auto summary = unloaded ? read_offer_summary(sql) : std::nullopt) {
      if (auto data = read_with_summary(sql, *summary, t, workload)) {
        *unloaded = std::move(summary);
        snapshot.commit();
        return Catalog(std::move(*data));
      }
    }
    CatalogData data = read_catalog_data(sql, std::nullopt, PriceLoad::none);
    const auto ids = named_gpu_ids(data, workload);
    read_prices_around(sql, data, t, ids ? &*ids : nullptr);
    snapshot.commit();
    return Catalog(std::move(data));
  } catch (const store::SqlError& e) {
    throw StoreError(std::string("cannot read the catalog: ") + e.what());
  }
}

}  // namespace gpubill
