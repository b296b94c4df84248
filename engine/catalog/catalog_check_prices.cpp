// The price invariants of check_catalog: floors (GPUs, regions, siblings), placeholder ratios and
// repeated prices, snapshots that left a region out, and jumps between consecutive rows.
#include <algorithm>
#include <set>

#include "catalog/catalog_check_rows.hpp"
#include "gpubill/catalog/provenance.hpp"

namespace gpubill::check_detail {

namespace {

bool comparable(const PriceRow& a, const PriceRow& b) {
  return a.amount.currency() == b.amount.currency() && a.unit == b.unit;
}

std::string money_text(const PriceRow& p) {
  return p.amount.amount().to_string() + " " + p.amount.currency().to_string() + "/" +
         std::string(to_string(p.unit));
}

// Keys grouped by (provider, kind, subject, mode): every region of one subject and mode.
using SubjectMode = std::tuple<std::string, SubjectKind, std::string, BillingMode>;
std::map<SubjectMode, std::vector<const std::vector<Row>*>> by_subject_mode(const Rows& rows) {
  std::map<SubjectMode, std::vector<const std::vector<Row>*>> out;
  for (const auto& [key, list] : rows.by_key) {
    out[{std::get<0>(key), std::get<1>(key), std::get<2>(key), std::get<4>(key)}].push_back(&list);
  }
  return out;
}

// Per-GPU prices at t of the other rows in `lists` (not `self`) comparable with `p`.
std::vector<Decimal> per_gpu_at(const Rows& rows, const std::vector<const std::vector<Row>*>& lists,
                                const std::vector<Row>* self, const PriceRow& p,
                                const std::string& gpu) {
  std::vector<Decimal> out;
  for (const auto* list : lists) {
    if (list == self) continue;
    for (const auto& r : *list) {
      if (!r.in_force(p.period.from) || !comparable(*r.row, p)) continue;
      const InstanceType* it = rows.type_of(*r.row);
      if (it && it->gpu == gpu && it->gpu_count.sign() > 0) {
        out.push_back(per_unit(r.row->amount.amount(), it->gpu_count));
      }
    }
  }
  return out;
}

// The per-GPU prices of instance types with one GPU model in one (provider, region, mode), the
// sibling_floor check's population. Built once: comparing each row with every row of its region
// was quadratic (a 20,000-row import spent 20 s here).
struct SiblingPrice {
  const Row* row;
  const std::vector<Row>* list;
  Decimal per_gpu;
};
using SiblingKey = std::tuple<std::string, std::string, BillingMode, std::string>;

class SiblingPrices {
 public:
  explicit SiblingPrices(const Rows& rows) {
    for (const auto& [key, list] : rows.by_key) {
      if (std::get<1>(key) != SubjectKind::instance || list.empty()) continue;
      const InstanceType* it = rows.type_of(*list.front().row);  // one subject: one type
      if (!it || it->gpu.empty() || it->gpu_count.sign() <= 0) continue;
      auto& group = groups_[{std::get<0>(key), std::get<3>(key), std::get<4>(key), it->gpu}];
      for (const auto& r : list) {
        group.push_back({&r, &list, per_unit(r.row->amount.amount(), it->gpu_count)});
      }
    }
  }

  // The median per-GPU price, at p's start, of the other types (not p's own key list) with
  // `gpu` in p's provider, region and mode, comparable with p, and how many there are (0: no
  // median). As per_gpu_at over those lists, then median().
  std::pair<std::size_t, Decimal> others_median(const std::vector<Row>& self, const PriceRow& p,
                                                const std::string& gpu) {
    auto group = groups_.find({p.provider, p.region, p.mode, gpu});
    if (group == groups_.end()) return {0, Decimal()};
    const std::vector<Decimal>& all = in_force(*group, p);
    // Self's own values among them, removed by rank: a key's rows do not overlap, so this is
    // at most a row or two.
    std::vector<std::size_t> removed;
    for (const auto& s : group->second) {
      if (s.list != &self || !s.row->in_force(p.period.from) || !comparable(*s.row->row, p)) {
        continue;
      }
      auto at = std::lower_bound(all.begin(), all.end(), s.per_gpu);
      std::size_t pos = static_cast<std::size_t>(at - all.begin());
      while (std::find(removed.begin(), removed.end(), pos) != removed.end()) ++pos;
      removed.push_back(pos);
    }
    std::sort(removed.begin(), removed.end());
    const std::size_t count = all.size() - removed.size();
    if (count == 0) return {0, Decimal()};
    std::size_t index = (count - 1) / 2;  // median(): the lower middle
    for (std::size_t pos : removed) {
      if (pos <= index) ++index;
    }
    return {count, all[index]};
  }

 private:
  using Groups = std::map<SiblingKey, std::vector<SiblingPrice>>;
  // The group's per-GPU prices in force at p's start and comparable with p, sorted; made once
  // per (group, instant, currency, unit).
  const std::vector<Decimal>& in_force(const Groups::value_type& group, const PriceRow& p) {
    auto key = std::make_tuple(&group, p.period.from, p.amount.currency(), p.unit);
    auto found = sorted_.find(key);
    if (found != sorted_.end()) return found->second;
    std::vector<Decimal> values;
    for (const auto& s : group.second) {
      if (s.row->in_force(p.period.from) && comparable(*s.row->row, p)) values.push_back(s.per_gpu);
    }
    std::sort(values.begin(), values.end());
    return sorted_.emplace(key, std::move(values)).first->second;
  }

  Groups groups_;
  std::map<std::tuple<const Groups::value_type*, Instant, Currency, PriceUnit>,
           std::vector<Decimal>>
      sorted_;
};

void check_gpu_price(const Rows& rows, const PriceRow& p, const InstanceType& it,
                     std::vector<CheckViolation>& out) {
  const Row* g = rows.at({p.provider, SubjectKind::gpu, it.gpu, p.region, p.mode}, p.period.from);
  if (!g) g = rows.at({p.provider, SubjectKind::gpu, it.gpu, "", p.mode}, p.period.from);
  if (!g || !comparable(*g->row, p)) return;
  const Decimal gpus = g->row->amount.amount() * it.gpu_count;
  if (p.amount.amount() < gpus) {
    out.push_back(violation("gpu_price_floor", p,
                            money_text(p) + " is below its " + it.gpu_count.to_string() + " " +
                                it.gpu + " alone (" + gpus.to_string() + " at " +
                                money_text(*g->row) + " per GPU): priced without its GPUs?",
                            p.source + " | per GPU: " + g->row->source));
  }
}

}  // namespace

void check_gpu_floors(const Rows& rows, std::vector<CheckViolation>& out) {
  const auto subjects = by_subject_mode(rows);
  SiblingPrices siblings(rows);
  for (const auto& [key, list] : rows.by_key) {
    for (const auto& r : list) {
      const PriceRow& p = *r.row;
      const InstanceType* it = rows.type_of(p);
      if (!it || it->gpu.empty() || it->gpu_count.sign() <= 0) continue;
      check_gpu_price(rows, p, *it, out);
      if (p.mode == BillingMode::spot || p.region.empty()) continue;  // spot markets vary
      const Decimal mine = per_unit(p.amount.amount(), it->gpu_count);
      const auto regions = per_gpu_at(
          rows, subjects.at({p.provider, p.subject_kind, p.subject, p.mode}), &list, p, it->gpu);
      if (regions.size() >= 3 && mine * 3 < median(regions)) {
        out.push_back(violation("region_floor", p,
                                money_text(p) +
                                    " is under a third of the median of the same "
                                    "type in " +
                                    std::to_string(regions.size()) + " other regions (" +
                                    (median(regions) * it->gpu_count).to_string() + ")"));
      }
      const auto [others, others_median] = siblings.others_median(list, p, it->gpu);
      // A quarter: sizes with the same GPU differ in CPU and RAM (AWS g5g.xlarge vs .8xlarge).
      if (others > 0 && mine * 4 < others_median) {
        out.push_back(violation(
            "sibling_floor", p,
            "per " + it->gpu + " " + mine.to_string() +
                " is under a quarter of the median per-GPU price of " + std::to_string(others) +
                " other types with that GPU in the region (" + others_median.to_string() + ")"));
      }
    }
  }
}

void check_ratios(const Rows& rows, std::vector<CheckViolation>& out) {
  // (provider, region, from, amount) of spot instance rows → the rows.
  std::map<std::tuple<std::string, std::string, Instant, Decimal>, std::vector<const PriceRow*>>
      spot;
  for (const auto& p : rows.data.prices) {
    if (p.key_only || p.mode == BillingMode::payg || is_estimate(p.source)) continue;
    if (p.mode == BillingMode::spot && p.subject_kind == SubjectKind::instance) {
      spot[{p.provider, p.region, p.period.from, p.amount.amount()}].push_back(&p);
    }
    const Row* payg = rows.at({p.provider, p.subject_kind, p.subject, p.region, BillingMode::payg},
                              p.period.from);
    if (!payg || !comparable(*payg->row, p) || payg->row->amount.amount().is_zero()) continue;
    if (p.amount.amount() * 10 == payg->row->amount.amount()) {
      out.push_back(violation("constant_ratio", p,
                              money_text(p) + " is exactly 1/10 of the payg price " +
                                  money_text(*payg->row) +
                                  ": a placeholder, not a price (remove it, or say how it was "
                                  "estimated and tag its source [E])",
                              p.source + " | payg: " + payg->row->source));
    }
  }
  for (const auto& [k, list] : spot) {
    std::set<std::string> gpus;
    for (const auto* p : list) {
      if (const auto* it = rows.type_of(*p)) gpus.insert(it->gpu);
    }
    if (gpus.size() < 2) continue;
    std::string names;
    for (const auto* p : list) names += (names.empty() ? "" : ", ") + p->subject;
    for (const auto* p : list) {
      out.push_back(violation("repeated_price", *p,
                              "the same spot price " + money_text(*p) + " on " +
                                  std::to_string(list.size()) + " types with different GPUs (" +
                                  names + ")"));
    }
  }
}

void check_jumps(const Rows& rows, std::vector<CheckViolation>& out) {
  for (const auto& [key, list] : rows.by_key) {
    for (std::size_t i = 0; i + 1 < list.size(); ++i) {
      const PriceRow& a = *list[i].row;
      const PriceRow& b = *list[i + 1].row;
      if (!comparable(a, b) || a.amount.amount().is_zero() || b.amount.amount().is_zero()) {
        continue;
      }
      const Decimal x = a.amount.amount(), y = b.amount.amount();
      if (y <= x * 3 && x <= y * 3) continue;
      auto v = violation("price_jump", b,
                         "moves from " + money_text(a) + " (from " + day_of(a.period.from) +
                             ") to " + money_text(b) + ", more than 3×",
                         "before: " + a.source + " | after: " + b.source);
      if (b.mode == BillingMode::spot) v.severity = CheckSeverity::warning;
      out.push_back(std::move(v));
    }
  }
}

}  // namespace gpubill::check_detail
