// The bundled catalog (fixtures/catalog/*.json, compiled in) keeps the promises its README
// makes: every dated row names a source with a trust tag and an as-of day, cites the original
// (never a notes file a user's clone does not have), and no two rows for one key are in force
// at once.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "gpubill/base/errors.hpp"
#include "gpubill/catalog/catalog_import.hpp"
#include "gpubill/catalog/provenance.hpp"
#include "store/embedded_data.hpp"

using namespace gpubill;

namespace {

struct Bundled {
  CatalogData data;
  // Which file each row came from, per section, for messages.
  std::vector<std::string> price_files, discount_files, disk_files, bandwidth_files, policy_files,
      commitment_files;
};

const Bundled& bundled_files() {
  static const Bundled all = [] {
    Bundled b;
    for (const auto& f : embedded::catalog_files()) {
      CatalogData d = parse_catalog_json(f.text, f.name);
      const auto append = [&f](auto& to, auto& from, std::vector<std::string>& files) {
        for (auto& row : from) {
          to.push_back(std::move(row));
          files.push_back(f.name);
        }
      };
      append(b.data.prices, d.prices, b.price_files);
      append(b.data.discounts, d.discounts, b.discount_files);
      append(b.data.disk_prices, d.disk_prices, b.disk_files);
      append(b.data.bandwidth_prices, d.bandwidth_prices, b.bandwidth_files);
      append(b.data.policies, d.policies, b.policy_files);
      append(b.data.commitments, d.commitments, b.commitment_files);
      for (auto& x : d.fx_rates) b.data.fx_rates.push_back(std::move(x));
      for (auto& x : d.instance_types) b.data.instance_types.push_back(std::move(x));
      for (auto& x : d.gpus) b.data.gpus.push_back(std::move(x));
    }
    return b;
  }();
  return all;
}

// "" when the row's provenance is acceptable, else what is wrong with it.
std::string provenance_problem(const std::string& source, const std::string& as_of) {
  if (source.empty()) return "no source";
  if (source.find("providers.md") != std::string::npos ||
      source.find("shared/") != std::string::npos) {
    return "cites a notes file instead of the original source: " + source;
  }
  const SourceTag tag = source_tag(source);
  if (tag == SourceTag::none) return "source has no [P], [S] or [U] tag: " + source;
  if (tag == SourceTag::test) return "test-fixture data in the bundled catalog: " + source;
  try {
    (void)parse_day(as_of.substr(0, 10));
  } catch (const ParseError&) {
    return "as_of is not a YYYY-MM-DD day: '" + as_of + "'";
  }
  return "";
}

template <typename Row, typename Key>
void check_no_overlap(const std::vector<Row>& rows, const std::vector<std::string>& files,
                      Key key_of, const char* what) {
  std::map<decltype(key_of(rows.front())), std::vector<std::size_t>> by_key;
  for (std::size_t i = 0; i < rows.size(); ++i) by_key[key_of(rows[i])].push_back(i);
  for (auto& [key, list] : by_key) {
    std::sort(list.begin(), list.end(), [&](std::size_t a, std::size_t b) {
      return rows[a].period.from < rows[b].period.from;
    });
    for (std::size_t k = 1; k < list.size(); ++k) {
      const Row& earlier = rows[list[k - 1]];
      const Row& later = rows[list[k]];
      INFO(what << " rows in " << files[list[k - 1]] << " and " << files[list[k]] << " from "
                << format_instant(earlier.period.from) << " and "
                << format_instant(later.period.from) << " (sources: " << earlier.source << " | "
                << later.source << ")");
      REQUIRE(earlier.period.to.has_value());
      CHECK(*earlier.period.to <= later.period.from);
    }
  }
}

}  // namespace

// One test case (one process under ctest), so the 8 MB of bundled JSON is parsed once for all
// its sections: under the sanitizers a parse takes about 25 s.
TEST_CASE("bundled catalog: sources, periods, spot regions and rentable units",
          "[catalog][fixtures]") {
  const auto& b = bundled_files();
  SECTION("every dated row has a tagged original source and an as-of day") {
    REQUIRE(!b.data.prices.empty());
    const auto check = [](const auto& rows, const std::vector<std::string>& files,
                          const char* what) {
      for (std::size_t i = 0; i < rows.size(); ++i) {
        const std::string problem = provenance_problem(rows[i].source, rows[i].as_of);
        INFO(what << " row " << i << " of " << files[i]);
        CHECK(problem == "");
      }
    };
    check(b.data.prices, b.price_files, "price");
    check(b.data.discounts, b.discount_files, "discount");
    check(b.data.disk_prices, b.disk_files, "disk price");
    check(b.data.bandwidth_prices, b.bandwidth_files, "bandwidth price");
    check(b.data.policies, b.policy_files, "policy");
    REQUIRE(!b.data.commitments.empty());
    check(b.data.commitments, b.commitment_files, "commitment");
    for (const auto& r : b.data.fx_rates) {
      INFO("FX rate " << r.from.to_string() << "/" << r.to.to_string() << " of "
                      << format_day(r.day));
      CHECK(provenance_problem(r.source, r.as_of) == "");
    }
  }
  SECTION("no two rows for one key overlap in time") {
    check_no_overlap(
        b.data.prices, b.price_files,
        [](const PriceRow& r) {
          return std::make_tuple(r.provider, static_cast<int>(r.subject_kind), r.subject, r.region,
                                 static_cast<int>(r.mode));
        },
        "price");
    check_no_overlap(
        b.data.discounts, b.discount_files,
        [](const DiscountRow& r) {
          return std::make_tuple(r.provider, r.family, static_cast<int>(r.mode), r.min_months);
        },
        "discount");
    const auto resource_key = [](const ResourcePriceRow& r) {
      return std::make_tuple(r.provider, r.kind, static_cast<int>(r.mode));
    };
    check_no_overlap(b.data.disk_prices, b.disk_files, resource_key, "disk price");
    check_no_overlap(b.data.bandwidth_prices, b.bandwidth_files, resource_key, "bandwidth price");
    check_no_overlap(
        b.data.commitments, b.commitment_files,
        [](const CommitmentRow& r) {
          return std::make_tuple(r.provider, static_cast<int>(r.subject_kind), r.subject, r.region,
                                 static_cast<int>(r.program), r.offering_class, r.term_months,
                                 static_cast<int>(r.payment));
        },
        "commitment");
    check_no_overlap(
        b.data.policies, b.policy_files, [](const BillingPolicy& p) { return p.provider; },
        "policy");
  }

  SECTION("spot prices are per region") {
    for (std::size_t i = 0; i < b.data.prices.size(); ++i) {
      const auto& p = b.data.prices[i];
      if (p.mode != BillingMode::spot) continue;
      INFO("spot row for " << p.subject << " in " << b.price_files[i]);
      CHECK(!p.region.empty());
    }
  }
  SECTION("a GPU row is the unit providers rent") {
    const auto find = [&](const std::string& id) -> const Gpu& {
      auto it = std::find_if(b.data.gpus.begin(), b.data.gpus.end(),
                             [&](const Gpu& g) { return g.id == id; });
      REQUIRE(it != b.data.gpus.end());
      return *it;
    };
    // K80: one GK210 chip of a two-chip board.
    CHECK(find("K80").memory_gb == Decimal(12));
    CHECK(find("K80").units_per_board == 2);
    CHECK(find("M40").memory_gb == Decimal(12));
    CHECK(find("M40-24GB").memory_gb == Decimal(24));
    CHECK(find("P100-PCIE-12GB").memory_gb == Decimal(12));
    CHECK(find("P100-PCIE-16GB").memory_gb == Decimal(16));
    CHECK(find("V100-SXM2-16GB").memory_gb == Decimal(16));
    CHECK(find("V100-SXM2-32GB").memory_gb == Decimal(32));
    CHECK(find("V100-SXM2-32GB").units_per_board == 1);
  }
}
