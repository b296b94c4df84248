#include "gpubill/catalog/provenance.hpp"

#include <algorithm>

#include "gpubill/base/errors.hpp"

namespace gpubill {

SourceTag source_tag(std::string_view source) {
  if (source.rfind("TEST FIXTURE", 0) == 0) return SourceTag::test;
  bool found = false;
  SourceTag weakest = SourceTag::primary;
  const auto consider = [&](SourceTag t) {
    weakest = found ? std::max(weakest, t) : t;
    found = true;
  };
  for (std::size_t i = source.find('['); i != std::string_view::npos; i = source.find('[', i + 1)) {
    if (i + 2 >= source.size() || source[i + 2] != ']') continue;
    switch (source[i + 1]) {
      case 'P':
        consider(SourceTag::primary);
        break;
      case 'S':
        consider(SourceTag::secondary);
        break;
      case 'U':
      case 'E':
        consider(SourceTag::uncertain);
        break;
      case 'T':
        consider(SourceTag::test);
        break;
      default:
        break;
    }
  }
  return found ? weakest : SourceTag::none;
}

bool is_estimate(std::string_view source) {
  return source.find("[E]") != std::string_view::npos;
}

std::string_view to_string(SourceTag tag) {
  switch (tag) {
    case SourceTag::primary:
      return "P";
    case SourceTag::secondary:
      return "S";
    case SourceTag::uncertain:
      return "U";
    case SourceTag::test:
      return "TEST";
    case SourceTag::none:
      break;
  }
  return "?";
}

void RowsProvenance::add(std::string_view source, std::string_view row_as_of) {
  const SourceTag row_tag = source_tag(source);
  as_of = any_ ? std::min(as_of, std::string(row_as_of)) : std::string(row_as_of);
  tag = any_ ? std::max(tag, row_tag) : row_tag;
  any_ = true;
}

Instant stale_since(std::string_view as_of) {
  date::sys_days day;
  try {
    day = parse_day(as_of.substr(0, 10));
  } catch (const ParseError&) {
    return Instant::min();
  }
  // kStaleAfterMonths calendar months after the as-of day, clamped to month end.
  const date::year_month_day ymd{day};
  const date::year_month ym =
      date::year_month{ymd.year(), ymd.month()} + date::months{kStaleAfterMonths};
  date::year_month_day later{ym.year(), ym.month(), ymd.day()};
  if (!later.ok())
    later = date::year_month_day{date::year_month_day_last{ym.year(), ym.month() / date::last}};
  return Instant{date::sys_days{later} + date::days{1}};
}

bool stale_as_of(std::string_view as_of, Instant at) {
  return at >= stale_since(as_of);
}

std::string provenance_note(SourceTag tag, std::string_view as_of, Instant at) {
  std::string note;
  if (tag == SourceTag::test) note = "TEST DATA: not a real price";
  if (stale_as_of(as_of, at)) {
    if (!note.empty()) note += "; ";
    note += "price as of " + std::string(as_of) + ", over 2 years before the quote date";
  }
  return note;
}

}  // namespace gpubill
