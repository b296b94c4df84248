#include "gpubill/base/time.hpp"

#include <date/tz.h>

#include <cctype>

#include "gpubill/base/errors.hpp"

namespace gpubill {

namespace {

[[noreturn]] void bad_instant(std::string_view text, const std::string& why) {
  throw ParseError("'" + std::string(text) + "' is not an RFC 3339 instant: " + why);
}

bool digits_at(std::string_view s, std::size_t pos, std::size_t n) {
  if (pos + n > s.size()) return false;
  for (std::size_t i = pos; i < pos + n; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  }
  return true;
}

int number_at(std::string_view s, std::size_t pos, std::size_t n) {
  int v = 0;
  for (std::size_t i = pos; i < pos + n; ++i) v = v * 10 + (s[i] - '0');
  return v;
}

// Parses YYYY-MM-DD at the start of text; returns the day or throws with `fail`.
date::sys_days day_prefix(std::string_view text,
                          void (*fail)(std::string_view, const std::string&)) {
  if (!digits_at(text, 0, 4) || text.size() < 10 || text[4] != '-' || !digits_at(text, 5, 2) ||
      text[7] != '-' || !digits_at(text, 8, 2)) {
    fail(text, "expected YYYY-MM-DD");
  }
  const date::year_month_day ymd{date::year{number_at(text, 0, 4)},
                                 date::month{static_cast<unsigned>(number_at(text, 5, 2))},
                                 date::day{static_cast<unsigned>(number_at(text, 8, 2))}};
  if (!ymd.ok()) fail(text, "no such calendar day");
  return date::sys_days{ymd};
}

[[noreturn]] void bad_day(std::string_view text, const std::string& why) {
  throw ParseError("'" + std::string(text) + "' is not a date: " + why);
}

}  // namespace

date::sys_days parse_day(std::string_view text) {
  const auto d = day_prefix(text, bad_day);
  if (text.size() != 10) bad_day(text, "expected YYYY-MM-DD");
  return d;
}

std::string format_day(date::sys_days d) {
  return date::format("%F", d);
}

Instant parse_instant(std::string_view text, bool allow_date) {
  const auto day = day_prefix(text, bad_instant);
  if (text.size() == 10) {
    if (allow_date) return Instant{day};
    bad_instant(text, "a time and a UTC offset are required");
  }
  if ((text[10] != 'T' && text[10] != 't') || !digits_at(text, 11, 2) || text.size() < 19 ||
      text[13] != ':' || !digits_at(text, 14, 2) || text[16] != ':' || !digits_at(text, 17, 2)) {
    bad_instant(text, "expected THH:MM:SS after the date");
  }
  const int hh = number_at(text, 11, 2), mm = number_at(text, 14, 2), ss = number_at(text, 17, 2);
  if (hh > 23 || mm > 59 || ss > 59) bad_instant(text, "hour, minute or second out of range");
  std::size_t pos = 19;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    const std::size_t start = pos;
    while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
      if (text[pos] != '0') bad_instant(text, "fractional seconds are not supported");
      ++pos;
    }
    if (pos == start) bad_instant(text, "empty fraction");
  }
  if (pos >= text.size()) bad_instant(text, "a UTC offset ('Z' or ±HH:MM) is required");
  int offset_seconds = 0;
  if (text[pos] == 'Z' || text[pos] == 'z') {
    ++pos;
  } else if (text[pos] == '+' || text[pos] == '-') {
    if (!digits_at(text, pos + 1, 2) || pos + 6 > text.size() || text[pos + 3] != ':' ||
        !digits_at(text, pos + 4, 2)) {
      bad_instant(text, "offset must be ±HH:MM");
    }
    const int oh = number_at(text, pos + 1, 2), om = number_at(text, pos + 4, 2);
    if (oh > 23 || om > 59) bad_instant(text, "offset out of range");
    offset_seconds = (oh * 3600 + om * 60) * (text[pos] == '-' ? -1 : 1);
    pos += 6;
  } else {
    bad_instant(text, "a UTC offset ('Z' or ±HH:MM) is required");
  }
  if (pos != text.size()) bad_instant(text, "unexpected text after the offset");
  return Instant{day} + std::chrono::hours{hh} + std::chrono::minutes{mm} +
         std::chrono::seconds{ss} - std::chrono::seconds{offset_seconds};
}

std::string format_instant(Instant t) {
  std::string out;
  append_instant(out, t);
  return out;
}

// Without iostreams for years 0–9999: exports format millions of instants.
void append_instant(std::string& out, Instant t) {
  const auto day = date::floor<date::days>(t);
  const date::year_month_day ymd{day};
  const auto hms = (t - day).count();
  char buf[24];
  const int y = static_cast<int>(ymd.year());
  if (y < 0 || y > 9999) {
    out += date::format("%FT%TZ", t);
    return;
  }
  auto put2 = [&](char* p, long v) {
    p[0] = static_cast<char>('0' + v / 10);
    p[1] = static_cast<char>('0' + v % 10);
  };
  put2(buf, y / 100);
  put2(buf + 2, y % 100);
  buf[4] = '-';
  put2(buf + 5, static_cast<unsigned>(ymd.month()));
  buf[7] = '-';
  put2(buf + 8, static_cast<unsigned>(ymd.day()));
  buf[10] = 'T';
  put2(buf + 11, hms / 3600);
  buf[13] = ':';
  put2(buf + 14, hms / 60 % 60);
  buf[16] = ':';
  put2(buf + 17, hms % 60);
  buf[19] = 'Z';
  out.append(buf, 20);
}

date::year_month_day add_months_clamped(date::year_month_day ymd, int months) {
  const date::year_month ym = date::year_month{ymd.year(), ymd.month()} + date::months{months};
  const date::day last =
      date::year_month_day_last{ym.year(), date::month_day_last{ym.month()}}.day();
  return {ym.year(), ym.month(), ymd.day() > last ? last : ymd.day()};
}

namespace {

// UTC by either of its tz database names: no transitions, offset 0, abbreviation "UTC".
bool names_utc(std::string_view zone) {
  return zone == "UTC" || zone == "Etc/UTC";
}

}  // namespace

Calendar::Calendar(std::string_view zone_name) : name_(zone_name), zone_(nullptr) {
  // UTC needs no tz database. Opening it (date's get_tzdb) stats every file under
  // /usr/share/zoneinfo: about 640 of the 950 system calls of a quote whose zone is UTC.
  if (names_utc(name_)) {
    zone_ = nullptr;
    return;
  }
  try {
    zone_ = date::locate_zone(name_);
  } catch (const std::exception& e) {
    throw ParseError("unknown time zone '" + name_ + "': " + e.what());
  }
}

date::local_seconds Calendar::to_local(Instant t) const {
  if (!zone_) return date::local_seconds{t.time_since_epoch()};
  const auto info = zone_->get_info(t);
  return date::local_seconds{t.time_since_epoch() + info.offset};
}

Instant Calendar::from_local(date::local_seconds local) const {
  if (!zone_) return Instant{local.time_since_epoch()};
  const auto info = zone_->get_info(local);
  switch (info.result) {
    case date::local_info::unique:
    case date::local_info::ambiguous:  // the earlier occurrence: the first offset
      return Instant{local.time_since_epoch() - info.first.offset};
    case date::local_info::nonexistent:  // in the gap: the instant the clocks jump
      return info.second.begin;
  }
  return Instant{local.time_since_epoch() - info.first.offset};
}

Instant Calendar::hour_start(Instant t) const {
  if (!zone_) return date::floor<std::chrono::hours>(t);
  const auto info = zone_->get_info(t);
  const auto local = t.time_since_epoch() + info.offset;
  const auto floored = date::floor<std::chrono::hours>(local);
  return Instant{std::chrono::duration_cast<std::chrono::seconds>(floored) - info.offset};
}

Instant Calendar::next_hour(Instant t) const {
  const Instant start = hour_start(t);
  // One hour after the local hour start is the next local hour start except across a
  // transition that is not a whole number of hours; hour_start handles that.
  Instant candidate = start + std::chrono::hours{1};
  const Instant aligned = hour_start(candidate);
  return aligned > start ? aligned : candidate;
}

date::year_month_day Calendar::local_day(Instant t) const {
  return date::year_month_day{date::floor<date::days>(to_local(t))};
}

Instant Calendar::midnight(date::sys_days local_day) const {
  return from_local(date::local_seconds{local_day.time_since_epoch()});
}

Instant Calendar::midnight_after(Instant t, int days) const {
  return midnight(date::sys_days{local_day(t)} + date::days{days});
}

Instant Calendar::add_months(Instant t, int months) const {
  const auto local = to_local(t);
  const auto day = date::floor<date::days>(local);
  const auto time_of_day = local - day;
  const auto target = add_months_clamped(date::year_month_day{day}, months);
  return from_local(date::local_days{target} + time_of_day);
}

Instant Calendar::month_start(Instant t) const {
  const auto ymd = local_day(t);
  return midnight(date::sys_days{ymd.year() / ymd.month() / 1});
}

Instant Calendar::next_month_start(Instant t) const {
  const auto ymd = local_day(t);
  return midnight(
      date::sys_days{date::year_month_day{ymd.year() / ymd.month() / 1} + date::months{1}});
}

std::string Calendar::format_local(Instant t) const {
  if (!zone_) return date::format("%F %T UTC", t);
  return date::format("%F %T %Z", date::make_zoned(zone_, t));
}

}  // namespace gpubill
