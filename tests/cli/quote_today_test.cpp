// The default quote is a quote of today (issue 30, item 2): the CLI reads the clock, the engine
// takes the day as input; the header states the catalog's effective date per provider and the
// rule for a current price, and only current prices are ranked (stale ones apart). Every other
// test passes --at, so that none depends on the clock.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <string>

#include "cli_run.hpp"
#include "gpubill/base/time.hpp"
#include "temp_dir.hpp"
#include "terminal_run.hpp"

using gpubill::testing::db_flag;
using gpubill::testing::run_cli;
using gpubill::testing::Stderr;

namespace {

std::string today() {
  return gpubill::format_day(std::chrono::floor<date::days>(std::chrono::system_clock::now()));
}

// The text after `label` up to the next ". " or end of line (the header wraps at 80 columns:
// its continuation lines are joined first).
std::string header_field(const std::string& output, const std::string& label) {
  std::string text;
  for (const auto& line : gpubill::testing::lines_of(output)) {
    if (line.empty()) break;  // the header ends at the first blank line
    text += (line.rfind("  ", 0) == 0 ? " " + line.substr(2) : "\n" + line);
  }
  const auto at = text.find(label);
  REQUIRE(at != std::string::npos);
  const auto end = text.find(".\n", at);
  return text.substr(at + label.size(), end == std::string::npos ? end : end - at - label.size());
}

}  // namespace

TEST_CASE("quote without --at quotes today", "[quote][cli][stale]") {
  gpubill::testing::TempDir dir;
  const std::string before = today();
  const auto r = run_cli("quote --gpu V100 --count 1 --hours 720 --format json" + db_flag(dir),
                         Stderr::discarded);
  const std::string after = today();
  REQUIRE(r.status == 0);
  const auto doc = nlohmann::json::parse(r.output);
  const std::string at = doc["at"];
  CHECK((at == before + "T00:00:00Z" || at == after + "T00:00:00Z"));
  CHECK_THAT(doc["assumptions"][0].get<std::string>(), Catch::EndsWith("(default: today)"));
}

TEST_CASE("a quote ranks only current prices and states each provider's effective date",
          "[quote][cli][stale]") {
  gpubill::testing::TempDir dir;
  // The README's main job on 2 December 2026: a price is current when its source is dated
  // 2024-12-02 or later (24 months before).
  const std::string args = "quote --gpu V100 --count 1 --hours 720 --at 2026-12-02" + db_flag(dir);
  const auto json = run_cli(args + " --format json", Stderr::discarded);
  REQUIRE(json.status == 0);
  const auto doc = nlohmann::json::parse(json.output);
  std::size_t current = 0, stale = 0;
  bool stale_seen = false;
  for (const auto& l : doc["lines"]) {
    if (!l["priced"].get<bool>()) continue;
    const std::string as_of = l["as_of"];
    INFO(l["id"] << " as of " << as_of);
    CHECK(l["stale"].get<bool>() == (as_of < "2024-12-02"));
    // Ranked: every current line before every stale one.
    if (l["stale"].get<bool>()) {
      stale_seen = true;
      ++stale;
    } else {
      CHECK_FALSE(stale_seen);
      ++current;
    }
  }
  CHECK(current > 0);
  CHECK(stale > 0);

  const auto text = run_cli(args, Stderr::discarded);
  INFO(text.output);
  REQUIRE(text.status == 0);
  CHECK_THAT(text.output, Catch::Contains("in force on 2026-12-02T00:00:00Z"));
  CHECK_THAT(text.output, !Catch::Contains("(default:"));
  CHECK_THAT(text.output, Catch::Contains("A price is current when it is in force on the quote"));
  CHECK_THAT(header_field(text.output, "A price is current when "),
             Catch::Contains("not superseded by a later row") &&
                 Catch::Contains("dated at most 24 months before it"));
  // "aws 2025-08-25, google 2026-01-22; every price stale: alibaba 2023-06-17, …": each
  // provider under its newest source's date, current ones first.
  const std::string dates =
      header_field(text.output, "Catalog effective date per provider (its newest price source): ");
  const auto split = dates.find("; every price stale: ");
  REQUIRE(split != std::string::npos);
  const auto check_dates = [](const std::string& list, bool is_stale) {
    std::size_t n = 0;
    for (std::size_t at = 0; at < list.size();) {
      const auto end = std::min(list.find(", ", at), list.size());
      const std::string entry = list.substr(at, end - at);
      const std::string day = entry.substr(entry.rfind(' ') + 1);
      INFO(entry);
      CHECK(day.size() == 10);
      CHECK((day < "2024-12-02") == is_stale);
      ++n;
      at = end + 2;
    }
    return n;
  };
  CHECK(check_dates(dates.substr(0, split), false) >= 1);
  CHECK(check_dates(dates.substr(split + 21), true) >= 1);
  // A group of current prices comes first (on this day only spot prices of V100 are current:
  // the catalog's pay-as-you-go V100 sources are older); stale prices last, in their own group.
  const auto stale_group = text.output.find("STALE: source over 24 months");
  REQUIRE(stale_group != std::string::npos);
  std::size_t first_current = std::string::npos;
  for (const char* group : {"Pay-as-you-go", "Prepaid and reserved", "Spot, INTERRUPTIBLE"}) {
    first_current = std::min(first_current, text.output.find(std::string("\n") + group));
  }
  CHECK(first_current < stale_group);
}
