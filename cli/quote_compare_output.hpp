// quote --compare-to: the comparison of a quote with an earlier JSON quote, as a table, CSV
// or JSON (cmd_quote_compare.cpp).
#pragma once

#include <cstddef>
#include <iosfwd>
#include <string>

#include "gpubill/quote/quote.hpp"
#include "gpubill/quote/quote_compare.hpp"
#include "output.hpp"

namespace gpubill::cli {

// Compares `now` (a quote of every line, top = 0) with `before`, read from `before_path`, and
// writes the lines of compare_quotes(before, now, top). Throws InputError naming the file's
// currency when the two quotes are in different currencies (their totals do not compare).
void write_quote_comparison(std::ostream& out, const QuoteResult& now, const QuoteSnapshot& before,
                            const std::string& before_path, std::size_t top, Format format);

}  // namespace gpubill::cli
