// Private to reconcile: the keys both sides are summed under, and what each side holds per key.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "gpubill/base/decimal.hpp"
#include "gpubill/base/money.hpp"
#include "gpubill/reconcile/reconcile.hpp"
#include "reconcile/invoice.hpp"

namespace gpubill::reconcile_detail {

struct Key {
  std::uint32_t resource = 0;  // an index into Keys::names
  Meter meter = Meter::other;
  Category category = Category::usage;
  std::int64_t bucket = 0;  // the period's start, Unix seconds
  friend bool operator==(const Key&, const Key&) = default;
};

struct KeyHash {
  std::size_t operator()(const Key& k) const noexcept {
    std::uint64_t h = static_cast<std::uint64_t>(k.bucket) * 0x9E3779B97F4A7C15ull;
    h ^= (static_cast<std::uint64_t>(k.resource) << 8 | static_cast<std::uint64_t>(k.meter) << 4 |
          static_cast<std::uint64_t>(k.category)) +
         0x632BE59BD9B4E019ull + (h << 6) + (h >> 2);
    return static_cast<std::size_t>(h);
  }
};

// gpubill's charges in a key.
struct GpubillSide {
  std::int64_t lines = 0;
  Currency code;
  std::string currency() const { return code.to_string(); }
  Decimal billed, exact;
  // Σ exact amount of each line rounded to 2 decimals: half_up, half_even, down, up.
  std::array<Decimal, 4> per_line{};
  Decimal seconds;  // metered seconds (second and gpu_second units)
  bool has_seconds = false;
  std::optional<std::int64_t> price_id;
  Decimal unit_price;
  const std::string* unit = nullptr;  // interned by the caller
  const std::string& price_unit() const {
    static const std::string none;
    return unit ? *unit : none;
  }
  // The first kMaxChargeIds distinct charge lines of the key (held inline: a key per hour of a
  // million-line export must not allocate).
  static constexpr std::size_t kMaxChargeIds = 4;
  std::array<std::int64_t, kMaxChargeIds> charge_ids{};
  std::uint8_t charge_count = 0;
  bool cycle_rounding = false;
  void add_charge_id(std::int64_t id) {
    for (std::size_t i = 0; i < charge_count; ++i) {
      if (charge_ids[i] == id) return;
    }
    if (charge_count < kMaxChargeIds) charge_ids[charge_count++] = id;
  }
  std::vector<std::int64_t> ids() const {
    return {charge_ids.begin(), charge_ids.begin() + charge_count};
  }
};

// The export's lines in a key.
struct InvoiceSide {
  std::int64_t lines = 0;
  std::string currency;
  Decimal amount, list, hours;
  bool has_list = true, has_hours = true;
  std::optional<Decimal> rate;
  std::size_t first_line = 0;
};

// A key's sides, as indexes into the sides' vectors (−1: none), so that a node of the key map
// is small and no side is allocated on its own.
struct Entry {
  std::int32_t gpubill = -1, invoice = -1;
};

// The sides of one key, for explaining it.
struct SideView {
  const GpubillSide* gpubill = nullptr;
  const InvoiceSide* invoice = nullptr;
};

using KeyMap = std::unordered_map<Key, Entry, KeyHash>;

// Resource names, each stored once.
struct Names {
  std::unordered_map<std::string, std::uint32_t> index;
  std::vector<std::string> names;
  std::uint32_t id(const std::string& name) {
    if (auto it = index.find(name); it != index.end()) return it->second;
    const auto id = static_cast<std::uint32_t>(names.size());
    index.emplace(name, id);
    names.push_back(name);
    return id;
  }
};

// The rounding modes of GpubillSide::per_line, in order.
inline constexpr std::array<RoundingMode, 4> kLineModes = {
    RoundingMode::half_up, RoundingMode::half_even, RoundingMode::down, RoundingMode::up};

// A key found different, with its rule and explanation (reconcile_explain.cpp).
Difference explain(Database& db, const Key& key, const SideView& entry, const std::string& resource,
                   Instant start, Instant end, bool resource_known);
// Pairs a missing key with an extra one of the same resource, meter and category in the next or
// previous period with the same amount (within `tolerance`): both become period_boundary.
void pair_period_boundaries(std::vector<Difference>& diffs, const Decimal& tolerance);

}  // namespace gpubill::reconcile_detail
