// Stale prices (a source dated over kStaleAfterMonths before the quote date) are marked and,
// with QuoteOptions::stale_apart, ranked after every current price (issue 30 item 2).
#include <catch2/catch.hpp>

#include "gpubill/catalog/provenance.hpp"
#include "gpubill/quote/quote.hpp"
#include "quote_fixture.hpp"

using namespace gpubill;
using gpubill::testing::loaded_quote_catalog;
using gpubill::testing::quote_catalog;
using gpubill::testing::quote_workload;

namespace {

QuoteResult quote(bool stale_apart, std::size_t top = 0) {
  static const QuoteEngine engine(loaded_quote_catalog());
  QuoteOptions options;
  options.stale_apart = stale_apart;
  options.top = top;
  Workload w = quote_workload();
  w.duration.hours = Decimal(720);
  return engine.quote(resolve_workload(w, loaded_quote_catalog()), options);
}

}  // namespace

TEST_CASE("stale_since: the day after as_of + 24 months, clamped to the month's end",
          "[quote][stale]") {
  CHECK(stale_since("2021-07-01") == parse_instant("2023-07-02", true));
  CHECK(stale_since("2016-02-29") == parse_instant("2018-03-01", true));
  CHECK_FALSE(stale_as_of("2021-07-01", parse_instant("2023-07-01T23:59:59Z")));
  CHECK(stale_as_of("2021-07-01", parse_instant("2023-07-02", true)));
  CHECK(stale_as_of("not a date", parse_instant("2000-01-01", true)));
}

TEST_CASE("stale lines are marked, and ranked after the current ones when asked",
          "[quote][stale]") {
  // At 2023-07-01 the AWS us-east-1 rows (as of 2017-10-25) and the 2019 Tencent and Google
  // rows are stale; the Alibaba and AWS eu-central-1 rows (2023-06-17) are current.
  const QuoteResult mixed = quote(false);
  const QuoteResult apart = quote(true);
  REQUIRE(mixed.lines_stale > 0);
  CHECK(apart.lines_stale == mixed.lines_stale);
  CHECK(apart.lines_priced == mixed.lines_priced);
  std::size_t stale = 0;
  bool stale_before_current = false;  // in the mixed ranking, a stale line above a current one
  bool seen_stale = false;
  for (const auto& l : mixed.lines) {
    if (!l.priced) continue;
    if (l.stale) {
      ++stale;
      seen_stale = true;
    } else if (seen_stale) {
      stale_before_current = true;
    }
    CHECK(l.stale == stale_as_of(l.as_of, mixed.at));
  }
  CHECK(stale == mixed.lines_stale);
  CHECK(stale_before_current);  // so that ranking apart changes something

  bool current_done = false;
  for (const auto& l : apart.lines) {
    if (!l.priced) continue;
    if (l.stale) current_done = true;
    CHECK_FALSE((current_done && !l.stale));
  }
  CHECK(apart.stale_apart);

  // A top-N quote keeps the same order (the pruning knows stale lines rank last).
  for (std::size_t top : {1, 3, 5}) {
    const QuoteResult best = quote(true, top);
    INFO("top " << top);
    for (std::size_t i = 0; i < top && i < best.lines.size(); ++i) {
      if (!best.lines[i].priced) break;
      CHECK(best.lines[i].id == apart.lines[i].id);
    }
  }
}
