#include "catalog/catalog_import_check.hpp"

#include <set>
#include <tuple>

#include "catalog/catalog_store.hpp"
#include "gpubill/base/errors.hpp"
#include "gpubill/catalog/catalog_check.hpp"

namespace gpubill {

namespace {

// `base` with `add` laid over it: instance types, regions and GPUs by id, prices by key and
// start (what write_catalog_data's upserts do); the rest is not checked.
CatalogData overlay(CatalogData base, const CatalogData& add) {
  using PriceKey =
      std::tuple<std::string, SubjectKind, std::string, std::string, BillingMode, std::int64_t>;
  const auto key = [](const PriceRow& p) {
    return PriceKey{p.provider, p.subject_kind, p.subject,
                    p.region,   p.mode,         p.period.from.time_since_epoch().count()};
  };
  std::set<PriceKey> replaced;
  for (const auto& p : add.prices) replaced.insert(key(p));
  std::erase_if(base.prices, [&](const PriceRow& p) { return replaced.count(key(p)) > 0; });
  base.prices.insert(base.prices.end(), add.prices.begin(), add.prices.end());
  std::set<std::pair<std::string, std::string>> types;
  for (const auto& it : add.instance_types) types.emplace(it.provider, it.id);
  std::erase_if(base.instance_types, [&](const InstanceType& it) {
    return types.count({it.provider, it.id}) > 0;
  });
  base.instance_types.insert(base.instance_types.end(), add.instance_types.begin(),
                             add.instance_types.end());
  std::set<std::pair<std::string, std::string>> regions;
  for (const auto& r : add.regions) regions.emplace(r.provider, r.id);
  std::erase_if(base.regions, [&](const Region& r) {
    return regions.count({r.provider, r.id}) > 0;
  });
  base.regions.insert(base.regions.end(), add.regions.begin(), add.regions.end());
  std::set<std::string> gpus;
  for (const auto& g : add.gpus) gpus.insert(g.id);
  std::erase_if(base.gpus, [&](const Gpu& g) { return gpus.count(g.id) > 0; });
  base.gpus.insert(base.gpus.end(), add.gpus.begin(), add.gpus.end());
  return base;
}

}  // namespace

void apply_catalog_check(store::Connection& db, const CatalogData& data, bool written, bool force,
                         ImportReport& report) {
  const CheckReport check =
      check_catalog(written ? read_catalog_data(db) : overlay(read_catalog_data(db), data));
  if (check.passed()) return;
  if (force) {
    for (const auto& v : check.violations) {
      if (v.severity == CheckSeverity::error) report.notes.push_back("check: " + describe(v));
    }
    return;
  }
  constexpr std::size_t kShown = 5;
  std::string listed;
  std::size_t shown = 0;
  for (const auto& v : check.violations) {
    if (v.severity != CheckSeverity::error) continue;
    if (shown++ == kShown) break;
    listed += "\n  " + describe(v);
  }
  throw InputError(report.file, "", "",
                   "with this file the catalog fails `catalog check` (" +
                       std::to_string(check.errors) + " error" + (check.errors == 1 ? "" : "s") +
                       "); nothing was imported:" + listed +
                       (check.errors > kShown ? "\n  …" : "") +
                       "\n(--force imports it anyway, listing every violation)");
}

}  // namespace gpubill
