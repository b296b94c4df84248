// Private to the engine: the offer index a QuoteEngine builds once per catalog, so that a quote
// walks flat arrays (no strings, no hash look-ups, no allocation per offer).
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gpubill/catalog/catalog.hpp"
#include "gpubill/quote/quote.hpp"

namespace gpubill {

// The index's types live in quote_detail (gpubill::Offer is the catalog listing's).
namespace quote_detail {

inline constexpr int kModeCount = 5;  // payg, prepaid, spot, reserved_1y, reserved_3y
inline constexpr std::array<BillingMode, kModeCount> kModes = {
    BillingMode::payg, BillingMode::prepaid, BillingMode::spot, BillingMode::reserved_1y,
    BillingMode::reserved_3y};
inline int mode_index(BillingMode m) {
  return static_cast<int>(m);
}

// A price row as the hot loop sees it: its effective period as integers and its amount floored
// to micro-units (1e-6), for lower bounds computed with integer multiplications only.
struct RowRef {
  std::int64_t from = 0;
  std::int64_t to = std::numeric_limits<std::int64_t>::max();
  std::int64_t micro = 0;  // floor(amount × 1e6)
  // Seconds from which the row is stale at a quote date (stale_since of its as_of).
  std::int64_t stale_from = std::numeric_limits<std::int64_t>::min();
  const PriceRow* row = nullptr;
  std::uint8_t currency = 0;  // into Index::currencies
  PriceUnit unit = PriceUnit::hour;
  bool estimate = false;  // the row's source carries the estimate tag [E]
  bool contains(std::int64_t t) const noexcept { return from <= t && t < to; }
};

// The rows of one subject and mode that apply in one region: `specific` rows for that region,
// then rows for every region; each group latest effective_from first. The row in force at t is
// the first specific row containing t, else the first every-region row containing t (the same
// choice as Catalog::price_at).
struct Span {
  std::uint32_t begin = 0;
  std::uint16_t specific = 0;
  std::uint16_t count = 0;
};

struct IndexedOffer {
  const InstanceType* type = nullptr;
  const Gpu* gpu = nullptr;           // nullptr: no GPU known for this offer
  std::int32_t gpu_index = -1;        // into catalog.data().gpus
  std::uint32_t family = 0;           // into Index::families
  std::uint32_t region = 0;           // into Index::regions
  std::uint16_t provider = 0;         // into catalog.data().providers
  std::uint16_t attached = 0;         // > 0: this many per-GPU priced GPUs on a host
  std::uint8_t modes = 0;             // bit i: some row of kModes[i] exists
  std::int32_t gpu_count_whole = -1;  // the GPU count when whole, else -1
  std::int32_t vcpu = -1;             // -1 unknown
  // Seconds since the epoch from which the offer is retired (its type's or its attached GPU's
  // retired_on); max = not retired.
  std::int64_t retired = std::numeric_limits<std::int64_t>::max();
  std::int32_t local_ssd_gb = 0;  // bundled SSD / NVMe
  bool has_ram = false;
  Decimal ram_gb;
  Decimal gpu_count;
  std::array<Span, kModeCount> rows{};      // instance or host rows
  std::array<Span, kModeCount> gpu_rows{};  // per-GPU rows (attached > 0)
};

struct Family {
  std::uint16_t provider = 0;
  std::string name;
  std::uint32_t discount_group = 0;
};

// Families sharing the same applicable discount rows: one group per provider (rows for every
// family) plus one per family that has rows of its own.
struct DiscountGroup {
  std::uint16_t provider = 0;
  std::string family;  // a family to ask Catalog::discount_at with; empty = provider-wide
};

}  // namespace quote_detail

struct QuoteEngine::Index {
  using RowRef = quote_detail::RowRef;
  using Span = quote_detail::Span;
  using IndexedOffer = quote_detail::IndexedOffer;
  using Family = quote_detail::Family;
  using DiscountGroup = quote_detail::DiscountGroup;

  std::vector<IndexedOffer> offers;  // sorted by provider, region, instance type, GPU, GPU count
  std::vector<RowRef> rows;          // spans point here
  std::vector<Currency> currencies;  // of the price rows
  std::vector<std::string> regions;  // "" = every region (the provider names none)
  // By provider: the regions it has (the catalog's region list and its price rows' regions).
  std::vector<std::vector<std::uint32_t>> provider_regions;
  std::vector<Family> families;
  std::vector<DiscountGroup> discount_groups;

  // Offers left out of the catalog (with the GPUs whose offers it holds), or nullptr.
  const UnloadedOffers* unloaded = nullptr;

  Index(const Catalog& catalog, const UnloadedOffers* unloaded);

  const RowRef* in_force(const Span& s, std::int64_t t) const noexcept {
    const RowRef* r = rows.data() + s.begin;
    for (std::uint16_t i = 0; i < s.specific; ++i) {
      if (r[i].contains(t)) return r + i;
    }
    for (std::uint16_t i = s.specific; i < s.count; ++i) {
      if (r[i].contains(t)) return r + i;
    }
    return nullptr;
  }

  // "tencent/*/GN10X.2XLARGE40" (* = every region),
  // "google/us-central1/n1-standard-8+4×V100-SXM2-16GB".
  std::string offer_id(const Catalog& catalog, const IndexedOffer& o) const;
  std::string instance_label(const IndexedOffer& o) const;
};

}  // namespace gpubill
