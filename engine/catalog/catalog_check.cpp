// check_catalog: the driver, the shared row index, and the invariants on instance types
// (specs, lifecycle) and regions (one currency per region).
#include "gpubill/catalog/catalog_check.hpp"

#include <algorithm>
#include <set>

#include "catalog/catalog_check_rows.hpp"

namespace gpubill {

namespace check_detail {

Key key_of(const PriceRow& p) {
  return {p.provider, p.subject_kind, p.subject, p.region, p.mode};
}

Rows::Rows(const CatalogData& d) : data(d) {
  for (const auto& p : d.prices) {
    if (!p.key_only) by_key[key_of(p)].push_back({&p, p.period.to});
  }
  for (auto& [key, list] : by_key) {
    std::stable_sort(list.begin(), list.end(), [](const Row& a, const Row& b) {
      return a.row->period.from < b.row->period.from;
    });
    for (std::size_t i = 0; i + 1 < list.size(); ++i) {
      const Instant next = list[i + 1].row->period.from;
      if (!list[i].end || next < *list[i].end) list[i].end = next;
    }
  }
  for (const auto& it : d.instance_types) types[{it.provider, it.id}] = &it;
}

const InstanceType* Rows::type_of(const PriceRow& p) const {
  if (p.subject_kind != SubjectKind::instance) return nullptr;
  auto found = types.find({p.provider, p.subject});
  return found == types.end() ? nullptr : found->second;
}

const Row* Rows::at(const Key& key, Instant t) const {
  auto found = by_key.find(key);
  if (found == by_key.end()) return nullptr;
  for (const auto& r : found->second) {
    if (r.in_force(t)) return &r;
  }
  return nullptr;
}

std::string day_of(Instant t) {
  return format_instant(t).substr(0, 10);
}

CheckViolation violation(std::string invariant, const PriceRow& p, std::string message,
                         std::string sources) {
  CheckViolation v;
  v.invariant = std::move(invariant);
  v.provider = p.provider;
  v.subject = p.subject_kind == SubjectKind::gpu ? "gpu:" + p.subject : p.subject;
  v.region = p.region;
  v.mode = std::string(to_string(p.mode));
  v.effective_from = day_of(p.period.from);
  v.message = std::move(message);
  v.sources = sources.empty() ? p.source : std::move(sources);
  return v;
}

Decimal per_unit(Decimal amount, Decimal count) {
  return Decimal::divide(amount, count, Decimal::kScale, RoundingMode::half_even);
}

Decimal median(std::vector<Decimal> v) {
  std::sort(v.begin(), v.end());
  return v[(v.size() - 1) / 2];
}

void check_specs(const Rows& rows, std::vector<CheckViolation>& out) {
  std::set<std::string> gpus;
  for (const auto& g : rows.data.gpus) gpus.insert(g.id);
  for (const auto& it : rows.data.instance_types) {
    const auto fail = [&](std::string message) {
      CheckViolation v;
      v.invariant = "gpu_spec";
      v.provider = it.provider;
      v.subject = it.id;
      v.message = std::move(message);
      v.sources = it.source;
      out.push_back(std::move(v));
    };
    if (!it.gpu.empty() && !gpus.count(it.gpu)) {
      fail("GPU '" + it.gpu + "' is not in the GPU table");
    }
    if (!it.gpu.empty()) {
      const Decimal whole = Decimal(it.gpu_count.truncate_to_int());
      if (it.gpu_count.sign() <= 0) {
        fail("GPU count " + it.gpu_count.to_string() + " is not above 0");
      } else if (it.gpu_count > Decimal(1) && whole != it.gpu_count) {
        fail("GPU count " + it.gpu_count.to_string() +
             " is not a whole number of rentable units (a fraction only below 1: a vGPU slice)");
      }
    }
    for (const auto& a : it.attachable) {
      if (!gpus.count(a.gpu)) fail("attachable GPU '" + a.gpu + "' is not in the GPU table");
    }
  }
}

void check_lifecycle(const Rows& rows, std::vector<CheckViolation>& out) {
  for (const auto& p : rows.data.prices) {
    const InstanceType* it = p.key_only ? nullptr : rows.type_of(p);
    if (!it) continue;
    if (it->retired_on && p.period.from >= *it->retired_on) {
      out.push_back(violation("lifecycle", p,
                              "priced from " + day_of(p.period.from) + ", on or after " + it->id +
                                  " was retired (" + day_of(*it->retired_on) + ")"));
    } else if (it->available_from && p.period.from < *it->available_from) {
      out.push_back(violation("lifecycle", p,
                              "priced from " + day_of(p.period.from) + ", before " + it->id +
                                  " was available (" + day_of(*it->available_from) + ")"));
    }
  }
}

void check_region_currency(const Rows& rows, std::vector<CheckViolation>& out) {
  // Currencies of instance prices per provider: region-less rows, and per region.
  std::map<std::string, std::set<std::string>> everywhere;
  std::map<std::pair<std::string, std::string>, std::set<std::string>> regional;
  std::map<std::pair<std::string, std::string>, const PriceRow*> example;
  for (const auto& p : rows.data.prices) {
    if (p.key_only || p.subject_kind != SubjectKind::instance) continue;
    const std::string c = p.amount.currency().to_string();
    if (p.region.empty()) {
      everywhere[p.provider].insert(c);
      example.try_emplace({p.provider, ""}, &p);
    } else {
      regional[{p.provider, p.region}].insert(c);
      example.try_emplace({p.provider, p.region}, &p);
    }
  }
  for (const auto& r : rows.data.regions) {
    std::set<std::string> all = regional[{r.provider, r.id}];
    const auto& shared = everywhere[r.provider];
    all.insert(shared.begin(), shared.end());
    if (all.size() < 2) continue;
    std::string list;
    for (const auto& c : all) list += (list.empty() ? "" : ", ") + c;
    CheckViolation v;
    v.invariant = "region_currency";
    v.provider = r.provider;
    v.region = r.id;
    v.message = "region '" + r.id + "' (" + r.name + ") gets instance prices in " + list +
                (shared.empty() ? "" : " (rows for every region apply to it too)") +
                ": a provider's mainland and international sites must be distinct regions, "
                "each with its own currency";
    const PriceRow* e = example[{r.provider, r.id}];
    if (!e) e = example[{r.provider, ""}];
    if (e) v.sources = e->source;
    out.push_back(std::move(v));
  }
}

}  // namespace check_detail

std::string_view to_string(CheckSeverity s) noexcept {
  return s == CheckSeverity::error ? "error" : "warning";
}

CheckReport check_catalog(const CatalogData& data) {
  using namespace check_detail;
  const Rows rows(data);
  CheckReport report;
  check_gpu_floors(rows, report.violations);
  check_ratios(rows, report.violations);
  check_snapshots(rows, report.violations);
  check_jumps(rows, report.violations);
  check_specs(rows, report.violations);
  check_lifecycle(rows, report.violations);
  check_region_currency(rows, report.violations);
  check_commitments(rows, report.violations);
  std::stable_sort(
      report.violations.begin(), report.violations.end(),
      [](const CheckViolation& a, const CheckViolation& b) {
        return std::tie(a.invariant, a.provider, a.subject, a.region, a.mode, a.effective_from) <
               std::tie(b.invariant, b.provider, b.subject, b.region, b.mode, b.effective_from);
      });
  for (const auto& v : report.violations) {
    ++(v.severity == CheckSeverity::error ? report.errors : report.warnings);
  }
  report.price_rows = data.prices.size();
  report.instance_types = data.instance_types.size();
  return report;
}

std::string describe(const CheckViolation& v) {
  std::string out = std::string(to_string(v.severity)) + " " + v.invariant + " " + v.provider;
  for (const auto* part : {&v.subject, &v.region, &v.mode, &v.effective_from}) {
    if (!part->empty()) out += " " + *part;
  }
  return out + ": " + v.message;
}

}  // namespace gpubill
