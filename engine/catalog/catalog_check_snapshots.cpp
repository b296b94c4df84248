// snapshot_closure: a dated snapshot of a source (owner/repo@commit:path) that re-prices most
// regions of a subject and leaves one out, while that region's older row of the same source
// stays in force without naming the snapshot as confirming it.
#include <algorithm>
#include <map>
#include <set>

#include "catalog/catalog_check_rows.hpp"

namespace gpubill::check_detail {

namespace {

struct Cited {
  std::string repo, commit;  // empty when the source names no repository commit
};

// "owner/repo@0123abc…:path …" → {"owner/repo", "0123abc…"}.
Cited cited(std::string_view source) {
  const auto at = source.find('@');
  const auto colon = source.find(':', at == std::string_view::npos ? 0 : at);
  if (at == std::string_view::npos || colon == std::string_view::npos) return {};
  const auto repo = source.substr(0, at);
  const auto commit = source.substr(at + 1, colon - at - 1);
  if (repo.find('/') == std::string_view::npos || repo.find(' ') != std::string_view::npos ||
      commit.size() < 7 || commit.find_first_not_of("0123456789abcdef") != std::string_view::npos) {
    return {};
  }
  return {std::string(repo), std::string(commit)};
}

// One subject and mode of one provider, the regional rows citing one repository.
struct Series {
  std::map<std::string, const std::vector<Row>*> regions;
};

void check_series(const std::string& repo, const Series& s, std::vector<CheckViolation>& out) {
  // Snapshot dates: when rows citing the repository start, with the commit they cite.
  std::map<Instant, std::string> snapshots;
  for (const auto& [region, list] : s.regions) {
    for (const auto& r : *list) {
      const Cited c = cited(r.row->source);
      if (c.repo == repo) snapshots.try_emplace(r.row->period.from, c.commit);
    }
  }
  for (const auto& [day, commit] : snapshots) {
    std::vector<const Row*> left_out;
    std::size_t revised = 0;
    for (const auto& [region, list] : s.regions) {
      const Row* starting = nullptr;
      const Row* before = nullptr;
      for (const auto& r : *list) {
        if (r.row->period.from == day) starting = &r;
        if (r.row->period.from < day && r.in_force(day)) before = &r;
      }
      if (starting && cited(starting->row->source).repo == repo) {
        ++revised;
      } else if (before && cited(before->row->source).repo == repo &&
                 before->row->source.find(commit.substr(0, 7)) == std::string::npos) {
        left_out.push_back(before);
      }
    }
    if (left_out.empty() || revised < 3 || revised * 5 < (revised + left_out.size()) * 4) {
      continue;
    }
    for (const Row* r : left_out) {
      out.push_back(
          violation("snapshot_closure", *r->row,
                    "the snapshot " + repo + "@" + commit.substr(0, 7) + " of " + day_of(day) +
                        " re-priced " + std::to_string(revised) + " regions of " + r->row->subject +
                        " but not this one, whose row is still in force: close it (effective_to " +
                        day_of(day) +
                        ", that snapshot as source) or name the snapshot in its source "
                        "as confirming it unchanged"));
    }
  }
}

}  // namespace

void check_snapshots(const Rows& rows, std::vector<CheckViolation>& out) {
  std::map<std::tuple<std::string, SubjectKind, std::string, BillingMode, std::string>, Series>
      series;
  for (const auto& [key, list] : rows.by_key) {
    const std::string& region = std::get<3>(key);
    if (region.empty()) continue;
    std::set<std::string> repos;
    for (const auto& r : list) {
      const Cited c = cited(r.row->source);
      if (!c.repo.empty()) repos.insert(c.repo);
    }
    for (const auto& repo : repos) {
      series[{std::get<0>(key), std::get<1>(key), std::get<2>(key), std::get<4>(key), repo}]
          .regions[region] = &list;
    }
  }
  for (const auto& [k, s] : series) check_series(std::get<4>(k), s, out);
}

}  // namespace gpubill::check_detail
