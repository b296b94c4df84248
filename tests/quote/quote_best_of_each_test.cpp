// QuoteOptions::best_of_each_provider_and_mode (the text overview) and QuoteOptions::top: only the
// lines returned are built: the first priced line of
// each (provider, mode, stale apart) is built, and it must be exactly the line the whole ranking
// has there — the same id, total and rank, commitment lines ranked among lines never built —
// with the same counts and the same unknown lines.
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <tuple>

#include "gpubill/quote/quote.hpp"
#include "gpubill/quote/workload.hpp"
#include "test_values.hpp"

using namespace gpubill;

namespace {

std::string line_text(const QuoteLine& l) {
  return std::to_string(l.rank) + " " + l.id + " " + (l.priced ? "priced " : "unknown ") +
         (l.total ? l.total->to_string() : "-") + " " + l.unknown_reason +
         (l.commitment ? " " + l.commitment->row->key() : std::string());
}

std::string counts(const QuoteResult& q) {
  return std::to_string(q.offers_fitting) + " fitting, " + std::to_string(q.lines_priced) +
         " priced, " + std::to_string(q.lines_unknown) + " unknown, " +
         std::to_string(q.lines_stale) + " stale, " + std::to_string(q.lines_retired) + " retired";
}

// What the overview takes from the whole ranking: the first priced line of each group, then
// every unknown line.
std::vector<std::string> best_of_each(const QuoteResult& whole, bool stale_apart) {
  std::vector<std::string> out;
  std::set<std::tuple<bool, std::string, BillingMode>> seen;
  for (const auto& l : whole.lines) {
    if (l.priced && seen.insert({stale_apart && l.stale, l.provider, *l.mode}).second) {
      out.push_back(line_text(l));
    }
  }
  for (const auto& l : whole.lines) {
    if (!l.priced) out.push_back(line_text(l));
  }
  return out;
}

// The best `top` priced lines of the whole ranking, then its first `top` unknown lines (ranked
// after every priced line): what QuoteOptions::top returns.
std::vector<std::string> first_of(const QuoteResult& whole, std::size_t top) {
  std::vector<std::string> out;
  std::size_t priced = 0, unknown = 0;
  for (const auto& l : whole.lines) {
    if (l.priced && priced++ < top) out.push_back(line_text(l));
  }
  for (const auto& l : whole.lines) {
    if (!l.priced && unknown++ < top) out.push_back(line_text(l));
  }
  return out;
}

}  // namespace

TEST_CASE("the best lines of each provider and mode, or the best N, are the whole ranking's",
          "[quote][overview]") {
  const Catalog& catalog = gpubill::testing::bundled_catalog();
  const QuoteEngine engine(catalog);
  const std::vector<std::pair<std::string, std::string>> workloads = {
      {R"({"models": ["V100"], "count": 8})", ""},
      {R"({"models": ["V100"], "count": 8})", R"(, "modes": ["reserved_1y", "reserved_3y"])"},
      {R"({"models": ["V100"], "count": 8})", R"(, "modes": ["reserved_3y", "spot"])"},
      {R"({"models": ["V100"]})", R"(, "modes": ["payg", "prepaid", "spot"])"},
      {R"({"models": ["A100"], "count": 8})", ""},
      {R"({"models": ["T4"]})", ""},
      {R"({"models": ["K80"]})", ""},
      {R"({"models": ["H100"], "count": 8})", ""},
  };
  std::size_t with_commitments = 0;
  for (const std::string date : {"2019-06-30", "2022-03-15", "2026-06-01"}) {
    for (const auto& [gpu, more] : workloads) {
      const Workload spec =
          parse_workload_json(gpubill::testing::workload_json(gpu, date, more), "w.json");
      const ResolvedWorkload w = resolve_workload(spec, catalog);
      for (bool stale_apart : {true, false}) {
        INFO(date << " " << gpu << more << " stale apart " << stale_apart);
        QuoteOptions options;
        options.stale_apart = stale_apart;
        const QuoteResult whole = engine.quote(w, options);
        options.best_of_each_provider_and_mode = true;
        const QuoteResult best = engine.quote(w, options);
        CHECK(counts(best) == counts(whole));
        std::vector<std::string> got;
        for (const auto& l : best.lines) got.push_back(line_text(l));
        CHECK(got == best_of_each(whole, stale_apart));
        CHECK(best.lines.size() <= whole.lines.size());
        for (const auto& l : best.lines) with_commitments += l.commitment.has_value();
        // The best `top`, also built without the rest, commitment lines ranked among them.
        options.best_of_each_provider_and_mode = false;
        for (std::size_t top : {std::size_t{1}, std::size_t{5}, std::size_t{40}}) {
          options.top = top;
          const QuoteResult first = engine.quote(w, options);
          CHECK(counts(first) == counts(whole));
          got.clear();
          for (const auto& l : first.lines) got.push_back(line_text(l));
          CHECK(got == first_of(whole, top));
        }
      }
    }
  }
  CHECK(with_commitments > 0);  // commitment lines were ranked among lines never built
}
