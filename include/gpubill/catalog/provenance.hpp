// Where a catalog fact comes from, read from its `source` text: the tag that says how far it can
// be trusted, and whether its as-of date is too old to quote from without a warning.
#pragma once

#include <string>
#include <string_view>

#include "gpubill/base/time.hpp"

namespace gpubill {

// Tags written in a source text in square brackets: [P] the provider's own document or price
// file, [S] a secondary source (a third party's catalog, a blog, a book), [U] uncertain or
// assumed ([E], an estimate, counts as [U]), [T] test-fixture data (never a real price). Ordered
// from most to least trusted; a source with no tag (a user's own file) ranks below [U] and above
// test data.
enum class SourceTag { primary, secondary, uncertain, none, test };

// The least trusted tag the text carries (a row citing "[P] … [U]" is [U]); a text starting
// with "TEST FIXTURE" counts as [T]; none of them = SourceTag::none.
SourceTag source_tag(std::string_view source);

// Whether the source carries the estimate tag [E]: the figure was derived (by a stated rule, e.g.
// a ratio to another price), not read from a price list. An estimate ranks as [U] and quotes
// leave it out unless asked for (--include-estimates).
bool is_estimate(std::string_view source);

// "P", "S", "U", "TEST", "?" (none).
std::string_view to_string(SourceTag tag);

// The provenance of a figure made from several rows (a host and its GPUs): the oldest as-of
// day and the least trusted tag of the rows added. Empty as_of and SourceTag::none until a row
// is added.
struct RowsProvenance {
  std::string as_of;
  SourceTag tag = SourceTag::none;
  void add(std::string_view source, std::string_view row_as_of);

 private:
  bool any_ = false;
};

// The rule for a current price: its source is dated (as_of) at most kStaleAfterMonths calendar
// months before the quote date. An older price is stale: a quote lists it apart from the
// current ones (QuoteOptions::stale_apart) and notes its age.
inline constexpr int kStaleAfterMonths = 24;

// True when the as-of day (YYYY-MM-DD; the first 10 characters are read) lies more than
// kStaleAfterMonths calendar months before `at`. An as-of that does not parse counts as stale.
bool stale_as_of(std::string_view as_of, Instant at);

// The first instant at which stale_as_of(as_of, ·) holds: 00:00 UTC of the day after as_of +
// kStaleAfterMonths months (clamped to the month's end: 2016-02-29 → 2018-02-28, stale from
// 2018-03-01). An as-of that does not parse gives the earliest Instant.
Instant stale_since(std::string_view as_of);

// A note for a row used at `at`, or "" when there is nothing to say: "TEST DATA: not a real
// price" for [T] rows, "price as of 2017-01-01, over 2 years before the quote date" for stale
// ones (both when both hold).
std::string provenance_note(SourceTag tag, std::string_view as_of, Instant at);

}  // namespace gpubill
