// CSV cells as every gpubill export writes them (tables with --format csv, FOCUS).
#pragma once

#include <string>
#include <string_view>

namespace gpubill {

// One cell: quoted per RFC 4180 when it holds a comma, a quote or a line break; and a text cell
// a spreadsheet would run as a formula — starting with '=', '+', '-', '@', a tab or a carriage
// return — gets a leading "'" (OWASP's advice against CSV injection). A number ("-12.50",
// "+3") is written as it is. Never throws.
std::string csv_cell(std::string_view text);
// Appends csv_cell(text) to `out`, with no other allocation (exports write millions of cells).
void append_csv_cell(std::string& out, std::string_view text);

}  // namespace gpubill
