#include "gpubill/catalog/catalog_diff.hpp"

#include <algorithm>
#include <map>
#include <tuple>

namespace gpubill {

namespace {

using RowKey = std::tuple<std::string, SubjectKind, std::string, std::string, BillingMode>;

RowKey key_of(const PriceRow& r) {
  return {r.provider, r.subject_kind, r.subject, r.region, r.mode};
}

bool has_gpu(const std::vector<std::string>& gpus, const std::string& id) {
  return std::find(gpus.begin(), gpus.end(), id) != gpus.end();
}

// A host that takes attachable GPUs matches the GPUs it takes.
bool gpu_matches(const Catalog& catalog, const PriceRow& r, const std::vector<std::string>& gpus) {
  if (gpus.empty()) return true;
  if (r.subject_kind == SubjectKind::gpu) return has_gpu(gpus, r.subject);
  const InstanceType* it = catalog.find_instance_type(r.provider, r.subject);
  if (!it) return false;
  if (has_gpu(gpus, it->gpu)) return true;
  return std::any_of(it->attachable.begin(), it->attachable.end(),
                     [&](const AttachableGpu& a) { return has_gpu(gpus, a.gpu); });
}

bool matches(const Catalog& catalog, const PriceRow& r, const PriceDiffFilter& f) {
  if (r.key_only) return false;
  if (!f.provider.empty() && r.provider != f.provider) return false;
  if (f.mode && r.mode != *f.mode) return false;
  if (!f.region.empty() && !r.region.empty() && r.region != f.region) return false;
  return gpu_matches(catalog, r, f.gpus);
}

// Per key, the row in force at t (import keeps one key's periods from overlapping).
std::map<RowKey, const PriceRow*> in_force(const Catalog& catalog, Instant t,
                                           const PriceDiffFilter& f) {
  std::map<RowKey, const PriceRow*> out;
  for (const auto& r : catalog.data().prices) {
    if (r.period.contains(t) && matches(catalog, r, f)) out[key_of(r)] = &r;
  }
  return out;
}

bool same_price(const PriceRow& a, const PriceRow& b) {
  return a.amount.currency() == b.amount.currency() && a.unit == b.unit &&
         a.amount.amount() == b.amount.amount();
}

PriceChange changed(const PriceRow& before, const PriceRow& after) {
  PriceChange c{PriceChangeKind::changed, &before, &after, std::nullopt, std::nullopt};
  if (before.amount.currency() != after.amount.currency() || before.unit != after.unit) return c;
  c.delta = after.amount.amount() - before.amount.amount();
  c.percent = percent_change(before.amount.amount(), after.amount.amount());
  return c;
}

}  // namespace

std::string_view to_string(PriceChangeKind kind) noexcept {
  switch (kind) {
    case PriceChangeKind::added:
      return "added";
    case PriceChangeKind::removed:
      return "removed";
    case PriceChangeKind::changed:
      break;
  }
  return "changed";
}

CatalogDiff diff_catalog(const Catalog& catalog, Instant from, Instant to,
                         const PriceDiffFilter& filter) {
  if (!filter.provider.empty()) (void)catalog.provider(filter.provider);
  const auto before = in_force(catalog, from, filter);
  const auto after = in_force(catalog, to, filter);
  CatalogDiff diff;
  diff.from = from;
  diff.to = to;
  // Both maps are ordered by key: walk them together.
  auto b = before.begin();
  auto a = after.begin();
  while (b != before.end() || a != after.end()) {
    if (a == after.end() || (b != before.end() && b->first < a->first)) {
      diff.changes.push_back({PriceChangeKind::removed, b->second, nullptr, {}, {}});
      ++b;
    } else if (b == before.end() || a->first < b->first) {
      diff.changes.push_back({PriceChangeKind::added, nullptr, a->second, {}, {}});
      ++a;
    } else {
      if (same_price(*b->second, *a->second)) {
        ++diff.unchanged;
      } else {
        diff.changes.push_back(changed(*b->second, *a->second));
      }
      ++a;
      ++b;
    }
  }
  return diff;
}

}  // namespace gpubill
