// The price rows of a catalog as catalog_check reads them: grouped by key (provider, subject
// kind, subject, region, mode) in effective_from order, each with the end it really has (its
// effective_to, or the next row's effective_from when that comes first).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "gpubill/catalog/catalog.hpp"
#include "gpubill/catalog/catalog_check.hpp"

namespace gpubill::check_detail {

struct Row {
  const PriceRow* row = nullptr;
  std::optional<Instant> end;  // unset = open
  bool in_force(Instant t) const { return row->period.from <= t && (!end || t < *end); }
};

using Key = std::tuple<std::string, SubjectKind, std::string, std::string, BillingMode>;

struct Rows {
  explicit Rows(const CatalogData& data);
  const CatalogData& data;
  std::map<Key, std::vector<Row>> by_key;  // each in effective_from order
  std::map<std::pair<std::string, std::string>, const InstanceType*> types;
  const InstanceType* type_of(const PriceRow& p) const;
  // The row of `key` in force at t, or nullptr.
  const Row* at(const Key& key, Instant t) const;
};

Key key_of(const PriceRow& p);
CheckViolation violation(std::string invariant, const PriceRow& p, std::string message,
                         std::string sources = {});
std::string day_of(Instant t);  // YYYY-MM-DD
// amount / count to 12 decimals (per-GPU price); count must be above 0.
Decimal per_unit(Decimal amount, Decimal count);
// The median of `v` (the lower middle for an even size); v must not be empty.
Decimal median(std::vector<Decimal> v);

// The invariants, each appending what it finds.
void check_gpu_floors(const Rows& rows, std::vector<CheckViolation>& out);
void check_ratios(const Rows& rows, std::vector<CheckViolation>& out);
void check_snapshots(const Rows& rows, std::vector<CheckViolation>& out);
void check_jumps(const Rows& rows, std::vector<CheckViolation>& out);
void check_specs(const Rows& rows, std::vector<CheckViolation>& out);
void check_lifecycle(const Rows& rows, std::vector<CheckViolation>& out);
void check_region_currency(const Rows& rows, std::vector<CheckViolation>& out);
void check_commitments(const Rows& rows, std::vector<CheckViolation>& out);

}  // namespace gpubill::check_detail
