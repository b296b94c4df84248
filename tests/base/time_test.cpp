#include <catch2/catch.hpp>

#include "gpubill/base/errors.hpp"
#include "gpubill/base/time.hpp"

using gpubill::Calendar;
using gpubill::format_instant;
using gpubill::Instant;
using gpubill::parse_instant;

namespace {
Instant at(const char* s) {
  return parse_instant(s);
}
std::string fmt(Instant t) {
  return format_instant(t);
}
}  // namespace

TEST_CASE("RFC 3339 instants parse to UTC", "[time]") {
  CHECK(fmt(at("2018-01-31T10:00:00+08:00")) == "2018-01-31T02:00:00Z");
  CHECK(fmt(at("2018-01-31T02:00:00Z")) == "2018-01-31T02:00:00Z");
  CHECK(fmt(at("2018-01-01T01:00:00+08:00")) == "2017-12-31T17:00:00Z");
  CHECK(fmt(at("2020-02-29T23:59:59-05:30")) == "2020-03-01T05:29:59Z");
  CHECK(fmt(at("2018-01-31t02:00:00.000z")) == "2018-01-31T02:00:00Z");
  CHECK(fmt(parse_instant("2019-06-01", true)) == "2019-06-01T00:00:00Z");
}

TEST_CASE("invalid or ambiguous instants are rejected", "[time]") {
  for (const char* bad :
       {"2018-01-31T10:00:00", "2018-01-31", "2018-02-30T00:00:00Z", "2019-02-29T00:00:00Z",
        "2018-13-01T00:00:00Z", "2018-01-31 10:00:00Z", "2018-01-31T24:00:00Z",
        "2018-01-31T10:00:00+0800", "2018-01-31T10:00:00.5Z", "2018-1-31T10:00:00Z",
        "2018-01-31T10:00:00Z junk", ""}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_instant(bad), gpubill::ParseError);
  }
  CHECK_THROWS_WITH(parse_instant("2018-01-31T10:00:00"), Catch::Contains("UTC offset"));
  CHECK_THROWS_AS(gpubill::parse_day("2021-02-29"), gpubill::ParseError);
  CHECK(gpubill::format_day(gpubill::parse_day("2020-02-29")) == "2020-02-29");
}

TEST_CASE("settlement hours in Asia/Shanghai", "[time][tz]") {
  const Calendar shanghai("Asia/Shanghai");
  // 23:30 local on Jan 31 is 15:30 UTC; the hour starts 23:00 local = 15:00 UTC.
  const Instant t = at("2018-01-31T23:30:00+08:00");
  CHECK(fmt(shanghai.hour_start(t)) == "2018-01-31T15:00:00Z");
  CHECK(fmt(shanghai.next_hour(t)) == "2018-01-31T16:00:00Z");  // 00:00 Feb 1 local
  CHECK(shanghai.local_day(t) ==
        date::year_month_day{date::year{2018}, date::January, date::day{31}});
  CHECK(shanghai.local_day(at("2018-01-31T16:00:00Z")) ==
        date::year_month_day{date::year{2018}, date::February, date::day{1}});
  CHECK(fmt(shanghai.month_start(t)) == "2017-12-31T16:00:00Z");
  CHECK(fmt(shanghai.next_month_start(t)) == "2018-01-31T16:00:00Z");
  CHECK(shanghai.format_local(t) == "2018-01-31 23:30:00 CST");
}

TEST_CASE("month arithmetic clamps to month end", "[time][tz]") {
  const Calendar shanghai("Asia/Shanghai");
  CHECK(fmt(shanghai.add_months(at("2018-01-31T10:00:00+08:00"), 1)) == "2018-02-28T02:00:00Z");
  CHECK(fmt(shanghai.add_months(at("2020-01-31T10:00:00+08:00"), 1)) == "2020-02-29T02:00:00Z");
  CHECK(fmt(shanghai.add_months(at("2020-02-29T10:00:00+08:00"), 12)) == "2021-02-28T02:00:00Z");
  CHECK(fmt(shanghai.add_months(at("2020-02-29T10:00:00+08:00"), 1)) == "2020-03-29T02:00:00Z");
  CHECK(fmt(shanghai.add_months(at("2018-12-31T23:00:00+08:00"), 2)) == "2019-02-28T15:00:00Z");
  CHECK(fmt(shanghai.add_months(at("2018-03-31T10:00:00+08:00"), -1)) == "2018-02-28T02:00:00Z");
  // The local day matters, not the UTC one: 2018-01-31 01:00 local is Jan 30 in UTC.
  CHECK(fmt(shanghai.add_months(at("2018-01-31T01:00:00+08:00"), 1)) == "2018-02-27T17:00:00Z");
  // Year end.
  CHECK(fmt(shanghai.add_months(at("2018-11-30T12:00:00+08:00"), 3)) == "2019-02-28T04:00:00Z");
}

TEST_CASE("natural days later at local midnight", "[time][tz]") {
  const Calendar shanghai("Asia/Shanghai");
  // Expired 2018-02-28 10:00 local; day 8 starts 2018-03-08 00:00 local (7 days kept).
  const Instant expiry = at("2018-02-28T10:00:00+08:00");
  CHECK(fmt(shanghai.midnight_after(expiry, 8)) == "2018-03-07T16:00:00Z");
  // Across a leap day.
  CHECK(fmt(shanghai.midnight_after(at("2020-02-27T23:00:00+08:00"), 2)) == "2020-02-28T16:00:00Z");
  const Calendar utc("UTC");
  CHECK(fmt(utc.midnight_after(at("2019-12-31T23:59:59Z"), 1)) == "2020-01-01T00:00:00Z");
}

TEST_CASE("a DST zone keeps local calendar rules", "[time][tz]") {
  const Calendar la("America/Los_Angeles");
  // 2019-03-10: clocks jump from 02:00 to 03:00 PST→PDT (10:00Z).
  CHECK(fmt(la.hour_start(at("2019-03-10T10:30:00Z"))) == "2019-03-10T10:00:00Z");
  CHECK(fmt(la.next_hour(at("2019-03-10T09:30:00Z"))) == "2019-03-10T10:00:00Z");
  // Local midnight on each side of the change is 08:00Z and 07:00Z.
  CHECK(fmt(la.midnight_after(at("2019-03-09T12:00:00Z"), 1)) == "2019-03-10T08:00:00Z");
  CHECK(fmt(la.midnight_after(at("2019-03-10T12:00:00Z"), 1)) == "2019-03-11T07:00:00Z");
  // A local 02:30 that does not exist maps to the jump instant.
  CHECK(fmt(la.from_local(date::local_days{date::year{2019} / 3 / 10} +
                          std::chrono::minutes{150})) == "2019-03-10T10:00:00Z");
  // 2019-11-03 01:30 happens twice; the earlier (PDT) is taken.
  CHECK(fmt(la.from_local(date::local_days{date::year{2019} / 11 / 3} +
                          std::chrono::minutes{90})) == "2019-11-03T08:30:00Z");
  // Month arithmetic across DST keeps the local wall time.
  CHECK(fmt(la.add_months(at("2019-02-10T18:00:00Z"), 1)) == "2019-03-10T17:00:00Z");
  CHECK_THROWS_AS(Calendar("Mars/Olympus_Mons"), gpubill::ParseError);
}

TEST_CASE("UTC calendars, by either name, without the tz database", "[time][tz]") {
  // Worked by hand: UTC has offset 0 and no transitions, so local time is the instant itself.
  for (const char* name : {"UTC", "Etc/UTC"}) {
    INFO(name);
    const Calendar utc(name);
    CHECK(utc.zone_name() == name);
    const Instant t = at("2020-02-29T23:30:15Z");
    CHECK(fmt(utc.hour_start(t)) == "2020-02-29T23:00:00Z");
    CHECK(fmt(utc.next_hour(t)) == "2020-03-01T00:00:00Z");
    CHECK(utc.local_day(t) ==
          date::year_month_day{date::year{2020}, date::February, date::day{29}});
    CHECK(fmt(utc.month_start(t)) == "2020-02-01T00:00:00Z");
    CHECK(fmt(utc.next_month_start(t)) == "2020-03-01T00:00:00Z");
    CHECK(fmt(utc.midnight_after(t, 1)) == "2020-03-01T00:00:00Z");
    CHECK(fmt(utc.add_months(at("2020-01-31T10:00:00Z"), 1)) == "2020-02-29T10:00:00Z");
    CHECK(fmt(utc.add_months(t, 12)) == "2021-02-28T23:30:15Z");
    CHECK(fmt(utc.from_local(date::local_days{date::year{2019} / 11 / 3} +
                             std::chrono::minutes{90})) == "2019-11-03T01:30:00Z");
    CHECK(utc.format_local(t) == "2020-02-29 23:30:15 UTC");
  }
}
