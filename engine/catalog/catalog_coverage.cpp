#include "gpubill/catalog/catalog_coverage.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "gpubill/base/errors.hpp"

namespace gpubill {

namespace {

using Rows = std::vector<const PriceRow*>;

// One rentable offer: its price subjects (host or instance; GPU for host + N × GPU).
struct OfferRows {
  const InstanceType* type = nullptr;
  std::string gpu;
  Rows own, gpu_rows;  // gpu_rows empty unless the offer is host + N × GPU
  bool attached = false;
  std::optional<Instant> gpu_retired_on;  // the attached GPU's retirement on this host
};

// Whether the offer's lifecycle says it could not be rented at t: before its available_from,
// or on or after its (or its attached GPU's) retired_on. A missing price is not evidence.
bool off_sale(const OfferRows& o, Instant t) {
  return o.type->retired_at(t) || (o.gpu_retired_on && *o.gpu_retired_on <= t) ||
         (o.type->available_from && t < *o.type->available_from);
}

// Regions where a mode's price is in force at t: "" stands for a row for every region.
std::set<std::string> regions_in_force(const Rows& rows, BillingMode mode, Instant t) {
  std::set<std::string> out;
  for (const auto* r : rows) {
    if (r->mode == mode && r->period.contains(t)) out.insert(r->region);
  }
  return out;
}

// The priced cells of an offer in one mode: the regions where every subject resolves (a row
// for the region, or else one for every region).
std::set<std::string> priced_cells(const OfferRows& o, BillingMode mode, Instant t) {
  const auto own = regions_in_force(o.own, mode, t);
  if (!o.attached) return own;
  const auto gpu = regions_in_force(o.gpu_rows, mode, t);
  std::set<std::string> out;
  const auto resolves = [](const std::set<std::string>& s, const std::string& region) {
    return s.count(region) > 0 || s.count("") > 0;
  };
  // Where the GPU is sold (its rows' regions), as the quote's offers; every region if its rows
  // name none.
  std::set<std::string> candidates = gpu;
  if (candidates.empty() || (candidates.size() == 1 && candidates.count(""))) {
    candidates.insert(own.begin(), own.end());
  }
  for (const auto& region : candidates) {
    if (resolves(own, region) && resolves(gpu, region)) out.insert(region);
  }
  return out;
}

Instant latest_from(const CatalogData& data) {
  Instant latest{};
  for (const auto& p : data.prices) latest = std::max(latest, p.period.from);
  return latest;
}

}  // namespace

CoverageReport catalog_coverage(const Catalog& catalog, const CoverageFilter& filter) {
  if (!filter.provider.empty()) (void)catalog.provider(filter.provider);  // NotFound if unknown
  CoverageReport report;
  report.at_default = !filter.at;
  report.at = filter.at ? *filter.at : latest_from(catalog.data());
  const Instant t = report.at;
  const auto wanted = [&](const std::string& gpu) {
    return filter.gpus.empty() ||
           std::find(filter.gpus.begin(), filter.gpus.end(), gpu) != filter.gpus.end();
  };

  // Offers; every mode is listed for every provider, those without a row too (all unknown).
  std::vector<OfferRows> offers;
  for (const auto& it : catalog.data().instance_types) {
    if (!filter.provider.empty() && it.provider != filter.provider) continue;
    const Rows own = catalog.prices_of(it.provider, SubjectKind::instance, it.id);
    if (!it.gpu.empty() && wanted(it.gpu)) offers.push_back({&it, it.gpu, own, {}, false, {}});
    for (const auto& a : it.attachable) {
      if (!wanted(a.gpu)) continue;
      const Rows gpu_rows = catalog.prices_of(it.provider, SubjectKind::gpu, a.gpu);
      for (std::size_t i = 0; i < a.counts.size(); ++i) {
        offers.push_back({&it, a.gpu, own, gpu_rows, true, a.retired_on});
      }
    }
  }
  constexpr BillingMode kAllModes[] = {BillingMode::payg, BillingMode::prepaid, BillingMode::spot,
                                       BillingMode::reserved_1y, BillingMode::reserved_3y};

  std::map<std::tuple<std::string, std::string, BillingMode>, CoverageRow> rows;
  std::map<std::tuple<std::string, std::string, BillingMode>, std::set<std::string>> regions;
  for (const auto& o : offers) {
    const std::string& provider = o.type->provider;
    const std::string group = filter.group == CoverageGroup::gpu ? o.gpu : o.type->family;
    const bool on_sale = !off_sale(o, t);
    for (BillingMode mode : kAllModes) {
      const auto key = std::make_tuple(provider, group, mode);
      CoverageRow& row = rows[key];
      row.provider = provider;
      row.group = group;
      row.mode = mode;
      ++row.offers;
      const auto cells = priced_cells(o, mode, t);
      if (!cells.empty()) {
        ++row.priced;
        row.price_cells += cells.size();
        for (const auto& c : cells) regions[key].insert(c.empty() ? "*" : c);
      } else if (on_sale) {
        ++row.unknown;
      } else {
        ++row.not_on_sale;
      }
      for (const Rows* list : {&o.own, &o.gpu_rows}) {
        for (const auto* r : *list) {
          if (r->mode != mode) continue;
          if (!row.first_from || r->period.from < *row.first_from) row.first_from = r->period.from;
          if (!row.last_from || r->period.from > *row.last_from) row.last_from = r->period.from;
        }
      }
    }
  }

  std::set<std::string> all_regions;
  for (auto& [key, row] : rows) {
    const auto& r = regions[key];
    row.regions = r.size();
    for (const auto& region : r) all_regions.insert(std::get<0>(key) + "/" + region);
    auto& total = report.total;
    total.offers += row.offers;
    total.priced += row.priced;
    total.unknown += row.unknown;
    total.not_on_sale += row.not_on_sale;
    total.price_cells += row.price_cells;
    if (row.first_from && (!total.first_from || *row.first_from < *total.first_from)) {
      total.first_from = row.first_from;
    }
    if (row.last_from && (!total.last_from || *row.last_from > *total.last_from)) {
      total.last_from = row.last_from;
    }
    report.rows.push_back(row);
  }
  report.total.regions = all_regions.size();
  return report;
}

}  // namespace gpubill
