// Guards against implausible times: one wrong year must not bill every account for decades.
// Each case failed before the guards (issue 10, defect 1): the replay applied it.
#include <catch2/catch.hpp>

#include "gpubill/base/errors.hpp"
#include "replay_fixture.hpp"

using namespace gpubill;
using namespace gpubill::testing;

namespace {

const char* kCreate =
    R"({"id":"c1","time":"2018-01-10T10:00:00Z","type":"create","account":"corp","instance":"p3-a",)"
    R"("provider":"aws","region":"us-east-1","instance_type":"p3.2xlarge","mode":"payg"})"
    "\n";

std::string topup(const char* time) {
  return std::string(R"({"id":"t1","time":")") + time +
         R"(","type":"topup","account":"other","amount":"100","currency":"USD"})" + "\n";
}

ReplayOptions now_is(const char* now) {
  ReplayOptions o;
  o.not_after = parse_instant(now);
  return o;
}

// Runs `replay` expecting an InputError and returns its message; the database must be unchanged.
template <typename Replay>
std::string refused(ReplayFixture& f, Replay replay) {
  const std::string before = f.dump();
  try {
    replay();
  } catch (const InputError& e) {
    CHECK(f.dump() == before);
    return e.what();
  }
  FAIL("the replay was not refused");
  return "";
}

}  // namespace

TEST_CASE("an event time after now plus the margin is refused, naming file, line and field",
          "[replay][guards]") {
  ReplayFixture f;
  const std::string log = f.write_log("typo.jsonl", kCreate + topup("9999-12-31T09:00:00+08:00"));
  const std::string message =
      refused(f, [&] { replay_logs(f.db(), {log}, now_is("2026-11-30T00:00:00Z")); });
  CHECK(message == log +
                       ":line 2: field 'time': 9999-12-31T01:00:00Z is later than "
                       "2026-11-30T00:00:00Z (now plus the allowed margin); check the year");

  SECTION("with --skip-invalid the line is quarantined and the rest applied") {
    ReplayOptions o = now_is("2026-11-30T00:00:00Z");
    o.skip_invalid = true;
    const ReplayReport r = replay_logs(f.db(), {log}, o);
    CHECK(r.applied == 1);
    CHECK(r.malformed_skipped == 1);
    REQUIRE(r.clock);
    CHECK(format_instant(*r.clock) == "2018-01-10T10:00:00Z");
    const auto rejects = f.rejects();
    REQUIRE(rejects.size() == 1);
    CHECK(rejects[0].line == 2);
    CHECK(rejects[0].field == "time");
  }
}

TEST_CASE("an event time before the catalog's first price is refused", "[replay][guards]") {
  ReplayFixture f;
  const std::string message = refused(f, [&] { f.replay_text(topup("0019-06-01T00:00:00Z")); });
  CHECK_THAT(message, Catch::Contains("field 'time': 0019-06-01T00:00:00Z is before the "
                                      "catalog's first price ("));
}

TEST_CASE("an --until after now plus the margin is refused", "[replay][guards]") {
  ReplayFixture f;
  ReplayOptions o = now_is("2026-11-30T00:00:00Z");
  o.until = parse_instant("9999-12-31T00:00:00Z");
  const std::string message = refused(f, [&] { f.replay_text("", o); });
  CHECK(message ==
        "--until: 9999-12-31T00:00:00Z is later than 2026-11-30T00:00:00Z (now plus the allowed "
        "margin); check the year");
}

TEST_CASE("settling an account with instances for more than 400 days in one step is refused",
          "[replay][guards]") {
  ReplayFixture f;
  SECTION("moved by another account's event") {
    // A typo of 2021 for 2019 in another account's top-up moved corp's clock three years on.
    const std::string message =
        refused(f, [&] { f.replay_text(kCreate + topup("2021-01-10T09:00:00+08:00")); });
    CHECK_THAT(message,
               Catch::Contains(
                   ":2: would settle account corp (1 instance billed until stopped) for 1095 days "
                   "in one step, from 2018-01-10T10:00:00Z to "
                   "2021-01-10T01:00:00Z; the limit is 400 days"));
  }
  SECTION("by --until") {
    const std::string message =
        refused(f, [&] { f.replay_text(kCreate, until("2020-01-01T00:00:00Z")); });
    CHECK_THAT(message,
               Catch::StartsWith(
                   "--until: would settle account corp (1 instance billed until stopped) for "
                   "720 days in one step"));
  }
  SECTION("by its own next event") {
    const std::string stop =
        R"({"id":"s1","time":"2019-06-01T00:00:00Z","type":"stop","account":"corp","instance":"p3-a"})"
        "\n";
    const std::string message = refused(f, [&] { f.replay_text(kCreate + stop); });
    CHECK_THAT(message, Catch::Contains(":line 2: field 'time': would settle account corp"));
  }
  SECTION("allowed when asked for") {
    ReplayOptions o = until("2020-01-01T00:00:00Z");
    o.allow_long_settlement = true;
    const ReplayReport r = f.replay_text(kCreate, o);
    REQUIRE(r.clock);
    CHECK(format_instant(*r.clock) == "2020-01-01T00:00:00Z");
    CHECK(r.settlements > 17'000);
  }
  SECTION("a prepaid instance without auto-renewal ends by itself: no limit") {
    const std::string prepaid =
        R"({"id":"t1","time":"2018-05-10T09:00:00+08:00","type":"topup","account":"a","amount":"4400","currency":"CNY"})"
        "\n"
        R"({"id":"c1","time":"2018-05-10T15:00:00+08:00","type":"create","account":"a","instance":"p","provider":"tencent","region":"ap-guangzhou","instance_type":"GN8.LARGE56","mode":"prepaid","months":1})"
        "\n";
    const ReplayReport r = f.replay_text(prepaid, until("2021-07-01T00:00:00+08:00"));
    REQUIRE(r.clock);
    CHECK(format_instant(*r.clock) == "2021-06-30T16:00:00Z");
  }
  SECTION("an account without instances may jump") {
    const ReplayReport r =
        f.replay_text(topup("2018-01-10T10:00:00Z"), until("2020-01-01T00:00:00Z"));
    REQUIRE(r.clock);
    CHECK(format_instant(*r.clock) == "2020-01-01T00:00:00Z");
  }
}
