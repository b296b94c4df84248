// One limit table for every numeric workload field, the same from a file and from a flag, and
// prepaid plans whose cost to compute does not grow with the hours.
#include <catch2/catch.hpp>

#include <vector>

#include "cli_run.hpp"
#include "gpubill/base/errors.hpp"
#include "gpubill/catalog/catalog.hpp"
#include "gpubill/catalog/catalog_import.hpp"
#include "gpubill/quote/workload.hpp"
#include "gpubill/rules/rules.hpp"

using namespace gpubill;

namespace {

std::string refusal(const Workload& w) {
  const Catalog empty{CatalogData{}};
  try {
    (void)resolve_workload(w, empty);
  } catch (const InputError& e) {
    return e.what();
  }
  FAIL("accepted");
  return "";
}

}  // namespace

TEST_CASE("workload limits are the same in a file and on the command line", "[workload][limits]") {
  // A flag accepted --count 1000000000 while a file refused it; --hours 1e10 took 43 s and
  // 828 MB, and larger values ended in std::bad_alloc.
  Workload file = parse_workload_json(R"({"gpu":{"count":2000},"duration":{"hours":5}})", "w.json");
  CHECK(refusal(file) ==
        "w.json:/gpu: field 'count': 2000 is above the limit of 1024 GPUs per "
        "instance");
  Workload flags;
  flags.gpu.count = 1'000'000'000;
  flags.duration.hours = Decimal(5);
  flags.flags["/gpu/count"] = "--count";
  CHECK(refusal(flags) ==
        "command line: field '--count': 1000000000 is above the limit of 1024 "
        "GPUs per instance");
  Workload hours = parse_workload_json(R"({"duration":{"hours":999999999999}})", "h.json");
  CHECK(refusal(hours) ==
        "h.json:/duration: field 'hours': 999999999999 is above the limit of "
        "876000 hours (100 years)");
}

TEST_CASE("the CLI applies the limit table to flags", "[workload][limits][cli]") {
  const auto r = gpubill::testing::run_cli("quote --gpu V100 --hours 876001 --db :memory:");
  CHECK(r.status == 1);
  CHECK(r.output ==
        "gpubill: command line: field '--hours': 876001 is above the limit of 876000 hours (100 "
        "years)\n");
}

namespace {

// The plain dynamic programme over every length up to needed + longest, for comparison.
rules::TermCover naive_cover(const std::vector<int>& lengths, const std::vector<Decimal>& costs,
                             std::int64_t needed) {
  const int longest = *std::max_element(lengths.begin(), lengths.end());
  const auto limit = static_cast<std::size_t>(needed + longest);
  struct State {
    bool ok = false;
    Decimal cost;
    std::int64_t items = 0;
  };
  std::vector<State> best(limit + 1);
  best[0].ok = true;
  for (std::size_t m = 1; m <= limit; ++m) {
    for (std::size_t i = 0; i < lengths.size(); ++i) {
      const auto len = static_cast<std::size_t>(lengths[i]);
      if (len > m || !best[m - len].ok) continue;
      const Decimal c = best[m - len].cost + costs[i];
      auto& s = best[m];
      if (!s.ok || c < s.cost || (c == s.cost && best[m - len].items + 1 < s.items)) {
        s = {true, c, best[m - len].items + 1};
      }
    }
  }
  rules::TermCover out;
  std::size_t chosen = 0;
  for (auto m = static_cast<std::size_t>(needed); m <= limit; ++m) {
    if (!best[m].ok) continue;
    if (chosen == 0 || best[m].cost < best[chosen].cost ||
        (best[m].cost == best[chosen].cost && best[m].items < best[chosen].items)) {
      chosen = m;
    }
  }
  out.cost = best[chosen].cost;
  out.items = best[chosen].items;
  out.length = static_cast<std::int64_t>(chosen);
  return out;
}

}  // namespace

TEST_CASE("the closed-form cover equals the full search above its bound", "[rules][prepaid]") {
  // Term discounts growing with the length, with a tie in cost per month (12 and 24 months
  // both at 0.83), so the tie rules are exercised too.
  const std::vector<int> lengths = {1, 2, 3, 6, 12, 24, 36};
  const std::vector<Decimal> costs = {Decimal::parse("1"),    Decimal::parse("2"),
                                      Decimal::parse("2.9"),  Decimal::parse("5.7"),
                                      Decimal::parse("9.96"), Decimal::parse("19.92"),
                                      Decimal::parse("30.24")};
  // The reduction starts above 36 × 36 + 36 = 1332.
  for (std::int64_t needed = 1; needed <= 1600; needed += (needed < 1250 ? 37 : 1)) {
    const auto fast = rules::cheapest_cover(lengths, costs, needed);
    const auto slow = naive_cover(lengths, costs, needed);
    INFO("needed " << needed);
    REQUIRE(fast.cost == slow.cost);
    REQUIRE(fast.items == slow.items);
    REQUIRE(fast.length == slow.length);
    std::int64_t length = 0;
    for (std::size_t i = 0; i < lengths.size(); ++i) length += fast.counts[i] * lengths[i];
    REQUIRE(length == fast.length);
  }
}

TEST_CASE("a prepaid plan for 13,888,889 months is a few distinct terms", "[rules][prepaid]") {
  const std::vector<int> terms = rules::standard_prepaid_terms();
  std::vector<Decimal> costs;
  for (int t : terms) costs.push_back(Decimal(t) * (t >= 36 ? Decimal::parse("0.5") : Decimal(1)));
  const auto cover = rules::cheapest_cover(terms, costs, 13'888'889);
  // 60-month terms at half price, then the remainder 89 = 48 + 36 + 5 (47 month-prices).
  CHECK(cover.length == 13'888'889);
  CHECK(cover.cost == Decimal(231'480 * 30 + 24 + 18 + 5));
  CHECK(cover.items == 231'483);
}

TEST_CASE("a JSON number beyond a double's range is an input error", "[workload][limits]") {
  // Found by fuzz_workload and fuzz_catalog_json: nlohmann's out_of_range escaped as an
  // internal error (exit 2).
  CHECK_THROWS_WITH(parse_workload_json(R"({"duration":{"hours":5E45555}})", "w.json"),
                    "w.json: a number is out of range (larger than about 1.8e308)");
  CHECK_THROWS_AS(parse_catalog_json(R"({"format":"gpubill-catalog/1","x":1e999})", "c.json"),
                  InputError);
}
