// Source tags and price age: what every quote and offers line says about where its price comes
// from.
#include <catch2/catch.hpp>

#include "gpubill/catalog/provenance.hpp"

using namespace gpubill;

TEST_CASE("the least trusted tag of a source text", "[provenance]") {
  CHECK(source_tag("AWS EC2 pricing page [P]") == SourceTag::primary);
  CHECK(source_tag("SkyPilot catalog vms.csv [S]") == SourceTag::secondary);
  CHECK(source_tag("price page [P]; specs from a blog [S]") == SourceTag::secondary);
  CHECK(source_tag("[P] quoted with a date guessed [U]") == SourceTag::uncertain);
  CHECK(source_tag("TEST FIXTURE: a fake price") == SourceTag::test);
  CHECK(source_tag("fake [P] [T]") == SourceTag::test);
  CHECK(source_tag("my negotiated price") == SourceTag::none);
  CHECK(source_tag("[S/U] is not a tag, nor is [X]") == SourceTag::none);
  CHECK(source_tag("") == SourceTag::none);
  CHECK(to_string(SourceTag::primary) == "P");
  CHECK(to_string(SourceTag::test) == "TEST");
  CHECK(to_string(SourceTag::none) == "?");
  // Untagged rows rank below [U] and above test data when lines combine rows.
  CHECK(SourceTag::uncertain < SourceTag::none);
  CHECK(SourceTag::none < SourceTag::test);
}

TEST_CASE("a price more than two calendar years old is stale", "[provenance]") {
  CHECK_FALSE(stale_as_of("2017-06-30", parse_instant("2019-06-30", true)));
  CHECK(stale_as_of("2017-06-30", parse_instant("2019-07-01", true)));
  CHECK_FALSE(stale_as_of("2017-06-30", parse_instant("2019-06-30T23:59:59Z")));
  // Leap day: two years later is 2018-02-28 (clamped), so 2018-03-01 is past it.
  CHECK_FALSE(stale_as_of("2016-02-29", parse_instant("2018-02-28", true)));
  CHECK(stale_as_of("2016-02-29", parse_instant("2018-03-01", true)));
  // Only the day is read; a missing or malformed one is stale.
  CHECK_FALSE(stale_as_of("2019-01-01 (approximate)", parse_instant("2019-06-30", true)));
  CHECK(stale_as_of("c. 2018", parse_instant("2019-06-30", true)));
  CHECK(stale_as_of("", parse_instant("2019-06-30", true)));
}

TEST_CASE("provenance notes for a line", "[provenance]") {
  const Instant at = parse_instant("2019-06-30", true);
  CHECK(provenance_note(SourceTag::primary, "2019-01-01", at) == "");
  CHECK(provenance_note(SourceTag::primary, "2016-11-01", at) ==
        "price as of 2016-11-01, over 2 years before the quote date");
  CHECK(provenance_note(SourceTag::test, "2019-01-01", at) == "TEST DATA: not a real price");
  CHECK(provenance_note(SourceTag::test, "2017-01-01", at) ==
        "TEST DATA: not a real price; price as of 2017-01-01, over 2 years before the quote date");
}
