// The page around every HTML report: escaping, the document head with its inline CSS, and the
// number formats shared by the reports' tables (the CLI's, so the page and the table agree).
#pragma once

#include <iosfwd>
#include <string>
#include <string_view>

#include "gpubill/base/decimal.hpp"

namespace gpubill::report {

// Text for HTML content and attribute values: & < > " ' escaped. Names come from user files.
std::string escape(std::string_view text);

// Writes <!DOCTYPE html>, the head (title, the inline style sheet, no scripts, nothing
// fetched) and opens the body with an <h1> of `title`, then the hidden SVG of the fill patterns.
void begin_page(std::ostream& out, std::string_view title);
// Closes the body: a footer naming gpubill and `note`, then </html>.
void end_page(std::ostream& out, std::string_view note);

// `value` rounded with `mode` to `decimals` and written with exactly that many decimals, as the
// CLI's tables write amounts ("1234.50").
std::string fixed(Decimal value, int decimals, RoundingMode mode = RoundingMode::half_up);

// `<td class="num" data-col="COL" data-value="EXACT">SHOWN</td>`: the exact value for machines
// (and the test that compares it with the CLI's CSV column `col`), the rounded one for readers.
std::string number_cell(Decimal exact, const std::string& shown, std::string_view col = {});
// `<td>TEXT</td>`, escaped.
std::string text_cell(std::string_view text);

}  // namespace gpubill::report
