// The replay's page cache cap (ReplayOptions::page_cache_kib) changes how often SQLite spills
// pages to the WAL, never what the replay writes.
#include <catch2/catch.hpp>

#include "replay_fixture.hpp"
#include "replay_generator.hpp"

using namespace gpubill;
using namespace gpubill::testing;

TEST_CASE("a replay with the smallest page cache writes what the default cache writes",
          "[replay][store][sqlite]") {
  GeneratorOptions g = mixed_generator(2);
  g.accounts = 12;
  g.instances_per_account = 4;
  g.days = 20;
  const GeneratedLog log = LogGenerator(g).generate();
  std::string text;
  for (const auto& line : log.lines) text += line + "\n";
  INFO(log.lines.size() << " lines");

  ReplayOptions small;
  small.page_cache_kib = 1;  // raised to the floor of 2 MiB
  small.until = Instant{std::chrono::seconds{log.until}};
  ReplayOptions usual;
  usual.until = small.until;

  ReplayFixture a("small.db");
  ReplayFixture b("usual.db");
  const ReplayReport spilled = a.replay_text(text, small);
  const ReplayReport kept = b.replay_text(text, usual);

  CHECK(a.dump() == b.dump());
  CHECK(spilled.charge_rows == kept.charge_rows);
  CHECK(spilled.page_cache.hits > 0);
  // The counters are the connection's own: the replay reads pages, found in the cache or not.
  CHECK(spilled.page_cache.hits + spilled.page_cache.misses > 0);
  CHECK(kept.page_cache.hits + kept.page_cache.misses > 0);
}
