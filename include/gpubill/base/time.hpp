// Time: instants are UTC seconds (date::sys_seconds). Calendars (hours, days, months) are
// computed in an explicit IANA time zone read from the system tz database (tzdata).
// Nothing here reads the wall clock.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <date/date.h>

namespace date {
class time_zone;
}

namespace gpubill {

using Instant = date::sys_seconds;

// The fixed lengths billing uses (a UTC hour and day; calendar days in a zone vary, see below).
inline constexpr std::int64_t kSecondsPerHour = 3600;
inline constexpr std::int64_t kSecondsPerDay = 86400;

// Parses RFC 3339 with a 'Z' or a ±HH:MM offset: "2018-01-31T10:00:00+08:00",
// "2018-01-31T02:00:00Z". Fractional seconds must be zero (billing is per second).
// With allow_date = true a bare "YYYY-MM-DD" is also accepted and means 00:00 UTC.
// Throws ParseError naming the text and what is wrong (no offset, day 30 of February, …).
Instant parse_instant(std::string_view text, bool allow_date = false);

// "2018-01-31T02:00:00Z".
std::string format_instant(Instant t);
// Appends format_instant(t)'s text to `out` (exports write millions of instants).
void append_instant(std::string& out, Instant t);

// A half-open period [from, to) in which a catalog row is in force; no `to` = open-ended.
struct Effective {
  Instant from{};
  std::optional<Instant> to;
  bool contains(Instant t) const noexcept { return from <= t && (!to || t < *to); }
};

// Parses "YYYY-MM-DD" into a valid day. Throws ParseError.
date::sys_days parse_day(std::string_view text);
std::string format_day(date::sys_days d);

// A provider's billing calendar: a time zone and the calendar arithmetic billing needs.
// Cheap to copy (holds a pointer into the tz database). Thread-safe.
class Calendar {
 public:
  // Throws ParseError for a zone the tz database does not have.
  explicit Calendar(std::string_view zone_name);
  const std::string& zone_name() const noexcept { return name_; }

  // Local wall time of t in this zone.
  date::local_seconds to_local(Instant t) const;
  // The instant of a local wall time. A time skipped by a DST jump maps to the instant the
  // jump happens; a repeated time takes its earlier occurrence.
  Instant from_local(date::local_seconds local) const;

  // Start of the local hour containing t, and the start of the next one.
  Instant hour_start(Instant t) const;
  Instant next_hour(Instant t) const;
  // The local calendar day containing t, and 00:00 local of a given day.
  date::year_month_day local_day(Instant t) const;
  Instant midnight(date::sys_days local_day) const;
  // 00:00 local on the day `days` natural days after the local day of t.
  Instant midnight_after(Instant t, int days) const;
  // t's local wall time moved by `months` calendar months, the day clamped to the month's last
  // day (Jan 31 + 1 month = Feb 28, or Feb 29 in a leap year).
  Instant add_months(Instant t, int months) const;
  // First instant of the local calendar month containing t, and of the next month.
  Instant month_start(Instant t) const;
  Instant next_month_start(Instant t) const;
  // "2018-01-31 10:00:00 CST".
  std::string format_local(Instant t) const;

 private:
  std::string name_;
  const date::time_zone* zone_;
};

// Adds months to a civil date, clamping the day to the last day of the target month.
date::year_month_day add_months_clamped(date::year_month_day ymd, int months);

}  // namespace gpubill
