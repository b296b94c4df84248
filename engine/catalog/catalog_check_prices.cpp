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
  // (provider, region, mode) → the key lists of its instance types.
  std::map<std::tuple<std::string, std::string, BillingMode>, std::vector<const std::vector<Row>*>>
      siblings;
  for (const auto& [key, list] : rows.by_key) {
    if (std::get<1>(key) == SubjectKind::instance) {
      siblings[{std::get<0>(key), std::get<3>(key), std::get<4>(key)}].push_back(&list);
    }
  }
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
      const auto same_gpu =
          per_gpu_at(rows, siblings.at({p.provider, p.region, p.mode}), &list, p, it->gpu);
      // A quarter: sizes with the same GPU differ in CPU and RAM (AWS g5g.xlarge vs .8xlarge).
      if (!same_gpu.empty() && mine * 4 < median(same_gpu)) {
        out.push_back(violation("sibling_floor", p,
                                "per " + it->gpu + " " + mine.to_string() +
                                    " is under a quarter of the median per-GPU price of " +
                                    std::to_string(same_gpu.size()) +
                                    " other types with that GPU in the region (" +
                                    median(same_gpu).to_string() + ")"));
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
