// Building the offer index of a QuoteEngine.
#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

#include "quote/quote_index.hpp"

namespace gpubill {

using namespace quote_detail;

namespace {

constexpr char kSep = '\x1f';

std::int64_t seconds_of(Instant t) {
  return static_cast<std::int64_t>(t.time_since_epoch().count());
}

std::int64_t micro_floor(Decimal d) {
  // floor(d × 1e6) for d >= 0 (prices are never negative).
  const int128_t units = d.units() / 1'000'000;
  return units > std::numeric_limits<std::int64_t>::max() ? std::numeric_limits<std::int64_t>::max()
                                                          : static_cast<std::int64_t>(units);
}

RowRef make_ref(const PriceRow* row, std::vector<Currency>& currencies) {
  RowRef r;
  const Currency c = row->amount.currency();
  auto it = std::find(currencies.begin(), currencies.end(), c);
  if (it == currencies.end()) {
    if (currencies.size() == 255) throw std::length_error("quote index: too many currencies");
    currencies.push_back(c);
    it = currencies.end() - 1;
  }
  r.currency = static_cast<std::uint8_t>(it - currencies.begin());
  r.unit = row->unit;
  r.row = row;
  r.from = seconds_of(row->period.from);
  if (row->period.to) r.to = seconds_of(*row->period.to);
  r.micro = micro_floor(row->amount.amount());
  const Instant stale = stale_since(row->as_of);
  if (stale != Instant::min()) r.stale_from = seconds_of(stale);
  r.estimate = is_estimate(row->source);
  return r;
}

using RowList = std::vector<const PriceRow*>;

// Appends the rows of `list` that apply in `region`, by mode, and fills `spans`.
void add_spans(const RowList& list, const std::string& region, std::vector<RowRef>& rows,
               std::vector<Currency>& currencies, std::array<Span, kModeCount>& spans,
               std::uint8_t& modes) {
  for (int m = 0; m < kModeCount; ++m) {
    std::vector<const PriceRow*> specific, generic;
    for (const PriceRow* r : list) {
      if (r->key_only || mode_index(r->mode) != m) continue;  // key-only: regions, no price
      if (r->region.empty()) {
        generic.push_back(r);
      } else if (r->region == region) {
        specific.push_back(r);
      }
    }
    auto later_first = [](const PriceRow* a, const PriceRow* b) {
      return a->period.from > b->period.from;
    };
    std::stable_sort(specific.begin(), specific.end(), later_first);
    std::stable_sort(generic.begin(), generic.end(), later_first);
    Span s;
    s.begin = static_cast<std::uint32_t>(rows.size());
    s.specific = static_cast<std::uint16_t>(specific.size());
    s.count = static_cast<std::uint16_t>(specific.size() + generic.size());
    for (const PriceRow* r : specific) rows.push_back(make_ref(r, currencies));
    for (const PriceRow* r : generic) rows.push_back(make_ref(r, currencies));
    spans[static_cast<std::size_t>(m)] = s;
    if (s.count > 0) modes = static_cast<std::uint8_t>(modes | (1u << m));
  }
}

// The spans of one subject's rows in one region, shared by every offer that uses them (a
// Google host's rows serve each of its GPU counts, a GPU's rows every host that takes it):
// computing them per offer made the index quadratic in the rows of a host.
struct SpanSet {
  std::array<Span, kModeCount> spans{};
  std::uint8_t modes = 0;
};

// Building an index: the catalog's providers, GPUs and price rows looked up by name and subject,
// and what offers share (discount groups, families, regions, spans, the regions a pair of row
// lists names), each made once. It fills the index's offers and the tables they point into.
struct IndexBuilder {
  IndexBuilder(QuoteEngine::Index& ix, const Catalog& catalog);

  const RowList& rows_of(std::string_view provider, SubjectKind kind,
                         std::string_view subject) const {
    static const RowList none;
    std::string key(provider);
    key += kSep;
    key += to_string(kind);
    key += kSep;
    key += subject;
    auto it = rows_by_subject.find(key);
    return it == rows_by_subject.end() ? none : it->second;
  }

  std::uint32_t group_of(std::uint16_t provider, const std::string& family) {
    const std::string key_family =
        family_discounts.count({data.providers[provider].id, family}) ? family : std::string();
    auto [it, added] = group_index.try_emplace(
        {provider, key_family}, static_cast<std::uint32_t>(ix.discount_groups.size()));
    if (added) ix.discount_groups.push_back({provider, key_family});
    return it->second;
  }
  std::uint32_t family_of(std::uint16_t provider, const std::string& family) {
    auto [it, added] = family_index.try_emplace({provider, family},
                                                static_cast<std::uint32_t>(ix.families.size()));
    if (added) ix.families.push_back({provider, family, group_of(provider, family)});
    return it->second;
  }
  std::uint32_t region_of(const std::string& region) {
    auto [it, added] =
        region_index.try_emplace(region, static_cast<std::uint32_t>(ix.regions.size()));
    if (added) ix.regions.push_back(region);
    return it->second;
  }
  const SpanSet& spans_of(const RowList& list, const std::string& region) {
    auto [it, added] = span_cache.try_emplace({&list, region});
    if (added) {
      add_spans(list, region, ix.rows, ix.currencies, it->second.spans, it->second.modes);
    }
    return it->second;
  }

  void add_offers(const InstanceType& it, std::uint16_t provider, const Gpu* gpu, int attached,
                  const RowList& host_rows, const RowList& gpu_rows,
                  std::optional<Instant> retired);
  void add_all_offers();
  void add_region(const std::string& provider, const std::string& region);
  void add_provider_regions();

  QuoteEngine::Index& ix;
  const Catalog& catalog;
  const CatalogData& data;
  std::unordered_map<std::string, std::uint16_t> provider_index;
  std::unordered_map<const Gpu*, std::int32_t> gpu_index;
  std::unordered_map<std::string, RowList> rows_by_subject;  // price rows by subject
  // Discount groups: per provider, plus per family with rows of its own.
  std::set<std::pair<std::string, std::string>> family_discounts;
  std::map<std::pair<std::uint16_t, std::string>, std::uint32_t> group_index;
  std::map<std::pair<std::uint16_t, std::string>, std::uint32_t> family_index;
  std::unordered_map<std::string, std::uint32_t> region_index;
  std::map<std::pair<const RowList*, std::string>, SpanSet> span_cache;
  // The regions a (host rows, GPU rows) pair names, shared by a host's GPU counts.
  std::map<std::pair<const RowList*, const RowList*>, std::set<std::string>> named_regions;
};

IndexBuilder::IndexBuilder(QuoteEngine::Index& ix, const Catalog& catalog)
    : ix(ix), catalog(catalog), data(catalog.data()) {
  for (std::size_t i = 0; i < data.providers.size(); ++i) {
    provider_index.emplace(data.providers[i].id, static_cast<std::uint16_t>(i));
  }
  for (std::size_t i = 0; i < data.gpus.size(); ++i) {
    gpu_index.emplace(&data.gpus[i], static_cast<std::int32_t>(i));
  }
  for (const auto& p : data.prices) {
    std::string key = p.provider;
    key += kSep;
    key += to_string(p.subject_kind);
    key += kSep;
    key += p.subject;
    rows_by_subject[key].push_back(&p);
  }
  for (const auto& d : data.discounts) {
    if (!d.family.empty()) family_discounts.emplace(d.provider, d.family);
  }
}

void IndexBuilder::add_offers(const InstanceType& it, std::uint16_t provider, const Gpu* gpu,
                              int attached, const RowList& host_rows, const RowList& gpu_rows,
                              std::optional<Instant> retired) {
  if (it.retired_on && (!retired || *it.retired_on < *retired)) retired = it.retired_on;
  auto [cached, added] = named_regions.try_emplace({&host_rows, &gpu_rows});
  std::set<std::string>& named = cached->second;
  if (added) {
    // A host + GPU offer exists where the GPU is sold: when the GPU's rows name regions, those
    // (a host is sold in many more regions than any one GPU); otherwise the host's regions.
    for (const PriceRow* r : gpu_rows) {
      if (!r->region.empty()) named.insert(r->region);
    }
    if (named.empty()) {
      for (const PriceRow* r : host_rows) {
        if (!r->region.empty()) named.insert(r->region);
      }
    }
    if (named.empty()) named.insert(std::string());  // every region of the provider
  }
  // What every region's offer shares, looked up once.
  const std::int32_t offer_gpu_index = gpu ? gpu_index.at(gpu) : -1;
  const std::uint32_t offer_family = family_of(provider, it.family);
  for (const auto& region : named) {
    IndexedOffer o;
    o.type = &it;
    o.gpu = gpu;
    o.gpu_index = offer_gpu_index;
    o.family = offer_family;
    o.region = region_of(region);
    o.provider = provider;
    o.attached = static_cast<std::uint16_t>(attached);
    o.gpu_count = attached > 0 ? Decimal(attached) : it.gpu_count;
    if (o.gpu_count.units() % Decimal::kOne == 0 && o.gpu_count.sign() > 0) {
      o.gpu_count_whole = static_cast<std::int32_t>(o.gpu_count.truncate_to_int());
    }
    o.vcpu = it.vcpu.value_or(-1);
    if (retired) o.retired = seconds_of(*retired);
    o.has_ram = it.ram_gb.has_value();
    if (it.ram_gb) o.ram_gb = *it.ram_gb;
    if (it.local_disk_gb && (it.local_disk_kind == "ssd" || it.local_disk_kind == "nvme" ||
                             it.local_disk_kind == "local_ssd")) {
      o.local_ssd_gb = *it.local_disk_gb;
    }
    const SpanSet& host = spans_of(host_rows, region);
    o.rows = host.spans;
    o.modes = host.modes;
    if (attached > 0) {
      const SpanSet& per_gpu = spans_of(gpu_rows, region);
      o.gpu_rows = per_gpu.spans;
      o.modes = static_cast<std::uint8_t>(o.modes | per_gpu.modes);
    }
    ix.offers.push_back(o);
  }
}

// Offers: each instance type (or host + attachable GPU count) in each region it has
// region-specific rows for (every-region rows apply there too); without any, one offer for
// every region of the provider (region "", shown "*").
//
// With Index::unloaded, only the offers whose GPU was loaded: the others are summarized.
void IndexBuilder::add_all_offers() {
  static const RowList no_rows;
  const UnloadedOffers* unloaded = ix.unloaded;
  const auto loaded = [&](const Gpu* g) {
    return !unloaded || (g && unloaded->loaded_gpus.count(g->id) > 0);
  };
  std::size_t expected = 0;  // offers before regions: a bound to reserve against reallocation
  for (const auto& it : data.instance_types) {
    expected += 1;
    for (const auto& a : it.attachable) expected += a.counts.size();
  }
  ix.offers.reserve(expected * 16);
  for (const auto& it : data.instance_types) {
    auto p = provider_index.find(it.provider);
    if (p == provider_index.end()) continue;
    const RowList& own = rows_of(it.provider, SubjectKind::instance, it.id);
    const bool any_gpu = !it.gpu.empty() || !it.attachable.empty();
    if (!it.gpu.empty()) {
      const Gpu* g = catalog.find_gpu(it.gpu);
      if (loaded(g)) add_offers(it, p->second, g, 0, own, no_rows, std::nullopt);
    }
    for (const auto& a : it.attachable) {
      const Gpu* g = catalog.find_gpu(a.gpu);
      if (!loaded(g)) continue;
      const RowList& gpu_rows = g ? rows_of(it.provider, SubjectKind::gpu, g->id)
                                  : rows_of(it.provider, SubjectKind::gpu, a.gpu);
      for (int count : a.counts) {
        if (count > 0) add_offers(it, p->second, g, count, own, gpu_rows, a.retired_on);
      }
    }
    if (!any_gpu && loaded(nullptr)) add_offers(it, p->second, nullptr, 0, own, no_rows, {});
  }
}

void IndexBuilder::add_region(const std::string& provider, const std::string& region) {
  auto p = provider_index.find(provider);
  if (p == provider_index.end() || region.empty()) return;
  auto& list = ix.provider_regions[p->second];
  const std::uint32_t r = region_of(region);
  if (std::find(list.begin(), list.end(), r) == list.end()) list.push_back(r);
}

void IndexBuilder::add_provider_regions() {
  ix.provider_regions.resize(data.providers.size());
  for (const auto& r : data.regions) add_region(r.provider, r.id);
  for (const auto& p : data.prices) add_region(p.provider, p.region);
  if (ix.unloaded) {
    for (const auto& [provider, region] : ix.unloaded->price_regions) add_region(provider, region);
  }
}

// Deterministic order: provider, region, instance type, GPU, GPU count. The offers' indices in
// that order.
std::vector<std::size_t> offer_order(const QuoteEngine::Index& ix, const CatalogData& data) {
  const std::vector<IndexedOffer>& offers = ix.offers;
  const std::vector<std::string>& regions = ix.regions;
  std::vector<std::size_t> order(offers.size());
  std::iota(order.begin(), order.end(), 0);
  // Each name's rank in name order, so the sort compares integers, not strings.
  const auto ranks = [](std::size_t n, auto name_of) {
    std::vector<std::uint32_t> by_name(n), rank(n);
    std::iota(by_name.begin(), by_name.end(), 0u);
    std::sort(by_name.begin(), by_name.end(),
              [&](std::uint32_t a, std::uint32_t b) { return name_of(a) < name_of(b); });
    for (std::uint32_t r = 0; r < n; ++r) rank[by_name[r]] = r;
    return rank;
  };
  const auto provider_rank = ranks(data.providers.size(), [&](std::size_t i) -> const std::string& {
    return data.providers[i].id;
  });
  const auto region_rank =
      ranks(regions.size(), [&](std::size_t i) -> const std::string& { return regions[i]; });
  const auto type_rank =
      ranks(data.instance_types.size(),
            [&](std::size_t i) -> const std::string& { return data.instance_types[i].id; });
  const auto gpu_rank =
      ranks(data.gpus.size(), [&](std::size_t i) -> const std::string& { return data.gpus[i].id; });
  const auto key_of = [&](const IndexedOffer& o) {
    const auto type = static_cast<std::size_t>(o.type - data.instance_types.data());
    // No GPU sorts first (its name is empty); ranks are shifted by one to make room.
    const std::uint32_t gpu =
        o.gpu_index >= 0 ? gpu_rank[static_cast<std::size_t>(o.gpu_index)] + 1 : 0;
    return std::make_tuple(provider_rank[o.provider], region_rank[o.region], type_rank[type], gpu,
                           o.attached);
  };
  // The keys once per offer, not twice per comparison.
  std::vector<decltype(key_of(offers.front()))> keys;
  keys.reserve(offers.size());
  for (const IndexedOffer& o : offers) keys.push_back(key_of(o));
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return keys[a] < keys[b] || (keys[a] == keys[b] && a < b);
  });
  return order;
}

// Puts the offers in `order`.
void permute_offers(std::vector<IndexedOffer>& offers, const std::vector<std::size_t>& order) {
  // Permuted in place, cycle by cycle: a sorted copy would touch a second megabyte or two of
  // fresh pages, a noticeable share of a whole quote's time.
  std::vector<bool> placed(offers.size());
  for (std::size_t start = 0; start < offers.size(); ++start) {
    if (placed[start]) continue;
    IndexedOffer first = offers[start];
    std::size_t at = start;
    while (order[at] != start) {
      offers[at] = offers[order[at]];
      placed[at] = true;
      at = order[at];
    }
    offers[at] = first;
    placed[at] = true;
  }
}

void lay_out_rows(QuoteEngine::Index& ix) {
  std::vector<IndexedOffer>& offers = ix.offers;
  std::vector<RowRef>& rows = ix.rows;
  // Lay the rows out in offer order, so that a quote reads them front to back.
  std::vector<RowRef> laid;
  laid.reserve(rows.size());
  for (IndexedOffer& o : offers) {
    for (auto* spans : {&o.rows, &o.gpu_rows}) {
      for (Span& s : *spans) {
        const std::uint32_t begin = static_cast<std::uint32_t>(laid.size());
        laid.insert(laid.end(), rows.begin() + s.begin, rows.begin() + s.begin + s.count);
        s.begin = begin;
      }
    }
  }
  rows.swap(laid);
}

}  // namespace

QuoteEngine::Index::Index(const Catalog& catalog, const UnloadedOffers* left_out)
    : unloaded(left_out) {
  IndexBuilder builder(*this, catalog);
  builder.add_all_offers();
  builder.add_provider_regions();
  permute_offers(offers, offer_order(*this, catalog.data()));
  lay_out_rows(*this);
}

std::string QuoteEngine::Index::instance_label(const IndexedOffer& o) const {
  if (o.attached == 0) return o.type->id;
  return o.type->id + "+" + std::to_string(o.attached) + "×" +
         (o.gpu ? o.gpu->id : std::string("GPU"));
}

std::string QuoteEngine::Index::offer_id(const Catalog& catalog, const IndexedOffer& o) const {
  const std::string& region = regions[o.region];
  return catalog.data().providers[o.provider].id + "/" + (region.empty() ? "*" : region) + "/" +
         instance_label(o);
}

}  // namespace gpubill
