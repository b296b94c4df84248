#include "ledger/charge_merge.hpp"

#include <algorithm>
#include <tuple>
#include <utility>

#include "ledger/ledger_rows.hpp"

namespace gpubill::ledger_rows {

ChargeMerge::ChargeMerge(bool hourly, Sink sink) : hourly_(hourly), sink_(std::move(sink)) {}

bool ChargeMerge::later(const Cursor& a, const Cursor& b) const {
  if (a.start != b.start) return a.start > b.start;
  if (a.head[0] != b.head[0]) return a.head[0] > b.head[0];
  if (a.head[1] != b.head[1]) return a.head[1] > b.head[1];
  if (const int c = keys_[a.slot].compare(keys_[b.slot]); c != 0) return c > 0;
  // The slot last: two cursors never stand for the same line and hour, but equal keys must
  // still come out in one order.
  return std::tie(slots_[a.slot].id, a.run_index, a.slot) >
         std::tie(slots_[b.slot].id, b.run_index, b.slot);
}

void ChargeMerge::push(ChargeLine line) {
  if (hourly_ && line.repeat > 1) {
    check_run_shape(line);
    check_totals(line);
  }
  std::size_t slot;
  if (free_.empty()) {
    slot = slots_.size();
    slots_.push_back(std::move(line));
    keys_.emplace_back();
    hours_.emplace_back();
  } else {
    slot = free_.back();
    free_.pop_back();
    slots_[slot] = std::move(line);
  }
  // line_order's text fields in one string: NUL sorts before every other byte, as the end of a
  // shorter field does (names hold no NUL).
  const ChargeLine& stored = slots_[slot];
  std::string& key = keys_[slot];
  key.assign(stored.account).append(1, '\0').append(stored.instance).append(1, '\0');
  key.append(stored.component).append(1, '\0').append(stored.kind);
  Cursor c{stored.period_start, {0, 0}, stored.run_index, slot, 0};
  for (std::size_t i = 0; i < 16; ++i) {
    const unsigned byte = i < key.size() ? static_cast<unsigned char>(key[i]) : 0u;
    c.head[i / 8] = c.head[i / 8] << 8 | byte;
  }
  if (hourly_ && stored.repeat > 1) hours_[slot] = stored;
  heap_.push_back(c);
  std::push_heap(heap_.begin(), heap_.end(),
                 [this](const Cursor& a, const Cursor& b) { return later(a, b); });
}

void ChargeMerge::emit_top() {
  const auto cmp = [this](const Cursor& a, const Cursor& b) { return later(a, b); };
  std::pop_heap(heap_.begin(), heap_.end(), cmp);
  Cursor c = heap_.back();
  heap_.pop_back();
  const ChargeLine& line = slots_[c.slot];
  if (!hourly_ || line.repeat <= 1) {
    sink_(line);
    free_.push_back(c.slot);
    return;
  }
  ChargeLine& hour = hours_[c.slot];
  set_part_span(hour, line, c.k, c.k + 1);
  sink_(hour);
  if (++c.k < line.repeat) {
    c.start = line.settlement_start(c.k);
    c.run_index = line.run_index + c.k;
    heap_.push_back(c);
    std::push_heap(heap_.begin(), heap_.end(), cmp);
  } else {
    free_.push_back(c.slot);
  }
}

void ChargeMerge::release_before(Instant bound) {
  while (!heap_.empty() && heap_.front().start < bound) emit_top();
}

void ChargeMerge::finish() {
  while (!heap_.empty()) emit_top();
}

}  // namespace gpubill::ledger_rows
