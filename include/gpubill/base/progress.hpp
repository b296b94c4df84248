// Progress of long work (replay, catalog import, rebuild), reported to a callback the caller
// gives: the library never prints and never reads the wall clock, so a report says how far the
// input has been read, not how long it took. The caller (the CLI) times the reports for rates
// and an ETA.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

namespace gpubill {

struct Progress {
  std::string_view stage;  // "replay", "import", "rebuild"
  // How far the input is read, in `unit`; never decreases within one piece of work and ends
  // equal to `total` (a last report is always made when the work has read all of its input).
  std::uint64_t done = 0;
  std::uint64_t total = 0;      // 0 = unknown
  std::string_view unit;        // "bytes" (log files), "rows" (catalog rows), "events" (rebuild)
  std::int64_t items = 0;       // records handled so far (events read, rows written), for a rate
  std::string_view items_unit;  // "events", "rows"
};

// Called on the thread doing the work, synchronously: keep it short. An exception it throws
// stops the work (and its transaction is rolled back). Empty = no reports.
using ProgressSink = std::function<void(const Progress&)>;

// How often work reports: every this many records, and once at the end.
inline constexpr std::int64_t kProgressEvery = 1024;

}  // namespace gpubill
