// Catalog diff: the prices added, removed and changed between the catalog in force at two
// instants. A price is keyed by (provider, subject kind, subject, region, mode), the key of a
// price row; an every-region row is its own key (region ""), not merged with regional rows.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "gpubill/base/percent.hpp"
#include "gpubill/catalog/catalog.hpp"

namespace gpubill {

struct PriceDiffFilter {
  std::string provider;  // empty = every provider; unknown → NotFound
  std::vector<std::string>
      gpus;  // GPU ids (of the instance type, or of a per-GPU row); empty = any
  std::optional<BillingMode> mode;
  std::string region;  // empty = every region; else rows for it and rows for every region
};

enum class PriceChangeKind { added, removed, changed };
std::string_view to_string(PriceChangeKind kind) noexcept;  // "added", "removed", "changed"

struct PriceChange {
  PriceChangeKind kind = PriceChangeKind::changed;
  // The rows in force at `from` and at `to`: `before` is null for an added price, `after` for
  // a removed one. Both point into the Catalog the diff was made from.
  const PriceRow* before = nullptr;
  const PriceRow* after = nullptr;
  // changed, same currency and unit: after − before, exact.
  std::optional<Decimal> delta;
  // changed, same currency and unit, before ≠ 0: percent_change (percent.hpp) of the amounts.
  std::optional<Decimal> percent;
  const PriceRow& row() const { return after ? *after : *before; }  // for the key fields
};

struct CatalogDiff {
  Instant from{}, to{};
  std::vector<PriceChange> changes;  // by provider, subject kind, subject, region, mode
  std::size_t unchanged = 0;         // keys in force at both instants with the same price
};

// Compares the price rows in force at `from` with those in force at `to` (Effective::contains:
// a row starting exactly at `to` is in force at `to`). A key in force at both with a different
// amount, currency or unit is changed; provenance (source, as_of) alone is not a change.
// `from` may be later than `to` (the diff then reads backwards). Throws NotFound for an unknown
// filter provider.
CatalogDiff diff_catalog(const Catalog& catalog, Instant from, Instant to,
                         const PriceDiffFilter& filter = {});

}  // namespace gpubill
