// Private to the engine: charge lines handed out one at a time in line_order, whole or hour by
// hour, from lines that arrive in the order of their stored start (a query's rows). It holds
// only the lines that still have hours to hand out, so an export's memory grows with the runs
// open at one time, not with the rows written.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gpubill/ledger/ledger.hpp"

namespace gpubill::ledger_rows {

class ChargeMerge {
 public:
  using Sink = std::function<void(const ChargeLine&)>;
  // hourly: a run is handed out as its hours (expand_hourly), else whole.
  ChargeMerge(bool hourly, Sink sink);

  // Hands out every line or hour that starts before `bound`: the caller promises that no line
  // pushed later starts before it.
  void release_before(Instant bound);
  // Adds a line. Throws StoreError (hourly) when a run does not fit the run rule.
  void push(ChargeLine line);
  // Hands out the rest.
  void finish();

 private:
  // The next line or hour of slots_[slot]: hour k of it when hourly. `head` holds the first 16
  // bytes of its line's key (big-endian), so that comparing cursors seldom reads the keys.
  struct Cursor {
    Instant start;
    std::uint64_t head[2];
    std::int64_t run_index;
    std::size_t slot;
    std::int64_t k;
  };
  bool later(const Cursor& a, const Cursor& b) const;  // a comes after b
  void emit_top();

  bool hourly_;
  Sink sink_;
  std::vector<ChargeLine> slots_;
  std::vector<std::string> keys_;  // per slot: its line's (account, instance, component, kind)
  // Per slot of a run handed out by hours: the line's copy whose span is set to each hour in
  // turn, so that an hour copies no strings.
  std::vector<ChargeLine> hours_;
  std::vector<std::size_t> free_;
  std::vector<Cursor> heap_;  // a min-heap by line_order of what the cursors stand for
};

}  // namespace gpubill::ledger_rows
