#include "gpubill/catalog/catalog_offers.hpp"

#include <algorithm>
#include <set>
#include <tuple>

#include "base/text_match.hpp"
#include "gpubill/base/errors.hpp"

namespace gpubill {

namespace {

using RegionMode = std::pair<std::string, BillingMode>;  // (region, mode)

// The (region, mode) pairs a subject has price rows for, restricted by the filter. With a
// region filter, every row for it or for every region counts as that region.
std::set<RegionMode> keys_of(const std::vector<const PriceRow*>& rows, const OfferFilter& f) {
  std::set<RegionMode> keys;
  for (const auto* r : rows) {
    if (f.mode && r->mode != *f.mode) continue;
    if (!f.region.empty()) {
      if (!r->region.empty() && r->region != f.region) continue;
      keys.emplace(f.region, r->mode);
    } else {
      keys.emplace(r->region, r->mode);
    }
  }
  return keys;
}

// The row of a subject for a (region, mode): among rows for exactly that region (and, with
// `fallback`, rows for every region, which a row for the region beats), the one in force at
// f.at, or without f.at the one with the latest effective_from.
const PriceRow* select(const std::vector<const PriceRow*>& rows, const RegionMode& key,
                       const OfferFilter& f, bool fallback) {
  const PriceRow* best = nullptr;
  bool best_specific = false;
  for (const auto* r : rows) {
    if (r->mode != key.second) continue;
    const bool specific = r->region == key.first;
    if (!specific && !(fallback && r->region.empty())) continue;
    if (f.at && !r->period.contains(*f.at)) continue;
    if (!best || (specific && !best_specific) ||
        (specific == best_specific && r->period.from >= best->period.from)) {
      best = r;
      best_specific = specific;
    }
  }
  return best;
}

std::string gpu_name(const InstanceType& host, const std::string& gpu, int count) {
  return host.id + "+" + std::to_string(count) + "\u00d7" + gpu;
}

class Lister {
 public:
  Lister(const Catalog& catalog, const OfferFilter& filter) : catalog_(catalog), f_(filter) {
    if (f_.region.empty()) return;
    for (const auto& r : catalog_.data().regions) {
      if (r.id == f_.region) region_providers_.insert(r.provider);
    }
    for (const auto& p : catalog_.data().prices) {
      if (p.region == f_.region) region_providers_.insert(p.provider);
    }
  }

  void add_instance(const InstanceType& it) {
    if (!f_.gpus.empty() && !wanted(it.gpu)) return;
    if (!offered_in_region(it)) return;
    const auto rows = catalog_.prices_of(it.provider, SubjectKind::instance, it.id);
    const bool fallback = !f_.region.empty();  // keys are (filter region, mode)
    const auto before = out_.size();
    for (const auto& key : keys_of(rows, f_)) {
      if (const PriceRow* r = select(rows, key, f_, fallback)) {
        Offer o = base(it, it.id, it.gpu, it.gpu_count, key);
        o.rows.push_back(r);
        o.price = r->amount;
        o.unit = r->unit;
        o.as_of = r->as_of;
        o.source_tag = source_tag(r->source);
        out_.push_back(std::move(o));
      }
    }
    if (out_.size() == before) out_.push_back(base(it, it.id, it.gpu, it.gpu_count, std::nullopt));
  }

  // A host with `count` attachable GPUs: offered where the GPU is priced; the host's price for
  // that region (or for every region) is added.
  void add_attached(const InstanceType& host, const AttachableGpu& a, int count) {
    if (!f_.gpus.empty() && !wanted(a.gpu)) return;
    if (!offered_in_region(host)) return;
    const auto host_rows = catalog_.prices_of(host.provider, SubjectKind::instance, host.id);
    const auto gpu_rows = catalog_.prices_of(host.provider, SubjectKind::gpu, a.gpu);
    const auto name = gpu_name(host, a.gpu, count);
    const auto before = out_.size();
    for (const auto& key : keys_of(gpu_rows, f_)) {
      const PriceRow* g = select(gpu_rows, key, f_, !f_.region.empty());
      if (!g) continue;
      const PriceRow* h = select(host_rows, key, f_, true);
      Offer o = base(host, name, a.gpu, Decimal(count), key);
      RowsProvenance provenance;
      for (const auto* r : {h, g}) {
        if (!r) continue;
        o.rows.push_back(r);
        o.unit = r->unit;
        provenance.add(r->source, r->as_of);
      }
      o.as_of = provenance.as_of;
      o.source_tag = provenance.tag;
      if (h && h->unit == g->unit && h->amount.currency() == g->amount.currency()) {
        o.price = h->amount + g->amount * count;
      }
      out_.push_back(std::move(o));
    }
    if (out_.size() == before) {
      out_.push_back(base(host, name, a.gpu, Decimal(count), std::nullopt));
    }
  }

  std::vector<Offer> take() {
    std::stable_sort(out_.begin(), out_.end(), [](const Offer& a, const Offer& b) {
      const auto mode = [](const Offer& o) { return o.mode ? static_cast<int>(*o.mode) : -1; };
      return std::forward_as_tuple(a.instance_type->provider, a.instance_type->id, a.gpu_count,
                                   a.gpu, a.region, mode(a)) <
             std::forward_as_tuple(b.instance_type->provider, b.instance_type->id, b.gpu_count,
                                   b.gpu, b.region, mode(b));
    });
    return std::move(out_);
  }

 private:
  // With a region filter, only providers known to have that region (a region row, or a price
  // row for it) are listed.
  bool offered_in_region(const InstanceType& it) const {
    return f_.region.empty() || region_providers_.count(it.provider) > 0;
  }

  bool wanted(const std::string& gpu) const {
    return std::find(f_.gpus.begin(), f_.gpus.end(), gpu) != f_.gpus.end();
  }

  Offer base(const InstanceType& it, std::string name, const std::string& gpu, Decimal count,
             const std::optional<RegionMode>& key) const {
    Offer o;
    o.instance_type = &it;
    o.name = std::move(name);
    o.gpu = gpu;
    o.gpu_count = count;
    if (key) {
      o.region = key->first;
      o.mode = key->second;
    } else {
      o.region = f_.region;
      o.mode = f_.mode;
    }
    return o;
  }

  const Catalog& catalog_;
  const OfferFilter& f_;
  std::set<std::string> region_providers_;
  std::vector<Offer> out_;
};

}  // namespace

std::vector<const Gpu*> gpus_matching(const Catalog& catalog, std::string_view name) {
  std::vector<const Gpu*> out;
  if (const Gpu* g = catalog.find_gpu(name)) out.push_back(g);
  const std::string prefix = text_match::to_lower(name) + "-";
  for (const auto& g : catalog.data().gpus) {
    if (text_match::to_lower(g.id).rfind(prefix, 0) == 0 &&
        std::find(out.begin(), out.end(), &g) == out.end()) {
      out.push_back(&g);
    }
  }
  if (out.empty()) (void)catalog.gpu(name);  // throws NotFound with the closest names
  return out;
}

std::vector<Offer> list_offers(const Catalog& catalog, const OfferFilter& filter) {
  if (!filter.provider.empty()) (void)catalog.provider(filter.provider);
  Lister lister(catalog, filter);
  for (const auto& it : catalog.data().instance_types) {
    if (!filter.provider.empty() && it.provider != filter.provider) continue;
    if (it.attachable.empty()) {
      lister.add_instance(it);
      continue;
    }
    for (const auto& a : it.attachable) {
      for (int count : a.counts) lister.add_attached(it, a, count);
    }
  }
  return lister.take();
}

}  // namespace gpubill
