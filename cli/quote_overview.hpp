// The default answer of `gpubill quote` in a text table (no --top, --explain or --compare-to):
// the best line of each provider and billing mode, in groups (pay-as-you-go; prepaid and
// reserved terms; spot, interruptible; stale prices apart), its notes numbered under the
// tables, and one line counting what it leaves out (more priced lines, unknown, stale and
// retired offers) with the flag that lists them.
#pragma once

#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

#include "gpubill/catalog/catalog.hpp"
#include "gpubill/quote/quote.hpp"

namespace gpubill::cli {

// One group of the overview: its title and its lines, in rank order.
struct OverviewGroup {
  std::string title;
  bool show_mode = false;  // the group holds several billing modes
  bool stale = false;      // the group of stale prices
  std::vector<const QuoteLine*> lines;
};

// The groups: for each provider and billing mode, the first (cheapest) current priced line of
// `q`'s ranking, in its group; then, when q ranks stale prices apart, a group of the cheapest
// stale line of each provider and mode, marked so. Groups without a line are left out. `q`
// must hold every line (QuoteOptions::top = 0).
std::vector<OverviewGroup> overview_groups(const QuoteResult& q);

// Offers the quote could not rank because they are retired at its date. 0 until the catalog
// records offer retirement: THE ONE PLACE where a retired count plugs in.
std::size_t retired_lines(const QuoteResult& q);

// Per provider with a line in `q`, the newest as-of date of its price rows in force at the
// quote's date (key-only rows left out), by provider id.
std::vector<std::pair<std::string, std::string>> newest_price_sources(const Catalog& catalog,
                                                                      const QuoteResult& q);

// Writes the groups as text tables, the notes under them, and the line counting what is left
// out.
void write_quote_overview(std::ostream& out, const QuoteResult& q);

}  // namespace gpubill::cli
