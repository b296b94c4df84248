// Private to the engine: the numbers a replay with workers gives its rows (replay_workers.cpp,
// docs/postgresql.md "replay --workers"). One worker numbers event seqs and row ids in the
// order it writes: the log's order, each account brought up to an event's time when the event
// comes. Workers write account by account, so before they start, a first pass simulates every
// account without writing (RowNumbering::count) and records how many rows of each table each
// line of the log makes; the rows of all accounts merged by line give every row the number one
// worker gives it (plan_row_numbers), which the workers then write (RowNumbering::use). The
// numbers are reserved and kept in the table replay_plan (migration 0021) until the replay's
// end, so that a replay stopped half-way and run again gives each row the same number.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "store/connection.hpp"

namespace gpubill::replay_detail {

// The tables whose rows a replay numbers.
enum PlanTable : int { p_event, p_charge, p_movement, p_state, p_reject, kPlanTables };

// A log line's place in the replay's order: its index among the lines read (events and
// malformed lines, files in order). kSettlePosition: an account's settlement at the replay's
// end, placed after every line by plan_row_numbers as one worker places it.
using Position = std::uint64_t;
inline constexpr Position kSettlePosition = std::numeric_limits<Position>::max();

// Rows written at one position.
struct PositionRows {
  Position position = 0;
  std::array<std::uint32_t, kPlanTables> rows{};
};

// An account's rows found to differ from what the first pass counted: another replay got there
// first. The account is then written again with numbers taken as one worker takes them.
struct PlanMismatch : std::runtime_error {
  PlanMismatch() : std::runtime_error("the rows of an account differ from the replay's plan") {}
};

// The numbers one writer (an account, or the end of the replay) gives its rows, table by table
// in the order it writes them.
struct PlannedIds {
  std::array<std::vector<std::int64_t>, kPlanTables> ids;
};

// Where the driver and its sink take the numbers of the rows they write: nowhere (the database
// numbers them), a count by position (the first pass: nothing is written), or a plan.
class RowNumbering {
 public:
  // The database numbers the rows (one worker; an account whose plan did not hold).
  void off() noexcept {
    counts_ = nullptr;
    plan_ = nullptr;
  }
  // Counts rows by position into `counts` (positions in increasing order).
  void count(std::vector<PositionRows>* counts) noexcept {
    off();
    counts_ = counts;
  }
  // Numbers rows from `plan`.
  void use(const PlannedIds* plan) noexcept {
    off();
    plan_ = plan;
    used_ = {};
  }
  bool counting() const noexcept { return counts_ != nullptr; }
  bool planned() const noexcept { return plan_ != nullptr; }

  // The position of the rows that follow (counting only).
  void at(Position p) {
    if (counts_ && (counts_->empty() || counts_->back().position != p)) counts_->push_back({p});
  }

  // The number of the next row of `table`: the plan's (PlanMismatch when it has no more), or
  // nothing when the database numbers it; counting, a number of no row (the first pass's sink
  // hands it to the simulation, which keeps it as a row's id).
  std::optional<std::int64_t> take(PlanTable table) {
    if (counts_) {
      if (counts_->empty()) counts_->push_back({0});
      ++counts_->back().rows[table];
      return ++counted_;
    }
    if (!plan_) return std::nullopt;
    const auto& ids = plan_->ids[table];
    auto& used = used_[table];
    if (used == ids.size()) throw PlanMismatch();
    return ids[used++];
  }

  // Throws PlanMismatch unless every number of the plan was taken.
  void check_all_taken() const {
    if (!plan_) return;
    for (int t = 0; t < kPlanTables; ++t) {
      if (used_[t] != plan_->ids[t].size()) throw PlanMismatch();
    }
  }

 private:
  std::vector<PositionRows>* counts_ = nullptr;
  const PlannedIds* plan_ = nullptr;
  std::array<std::size_t, kPlanTables> used_{};
  std::int64_t counted_ = 0;
};

// What the first pass found for one writer: its rows by position, and for an account whether
// one worker would have it loaded at the end (an event of it not a duplicate: settled with the
// loaded accounts, by name) or idle (settled with the idle accounts, in `idle_order`).
struct CountedWriter {
  std::string account;  // empty: the end of the replay (its quarantined lines)
  bool loaded = false;
  std::vector<PositionRows> rows;
};

// The plan: each writer's numbers, by the index of plan_row_numbers's `writers`.
struct RowPlan {
  std::vector<PlannedIds> writers;
};

// Merges the writers' rows in one worker's order — the log's lines, then the settlements of the
// loaded accounts by name, then of the idle accounts in `idle_order` (finish_run's) — and gives
// them the numbers of the database, or of the plan an interrupted run of the same log left
// (kept in replay_plan when `log_hash` matches and the numbers still fit; a new plan
// otherwise). Call in a write transaction holding the database's lock.
RowPlan plan_row_numbers(store::Connection& db, const std::vector<CountedWriter>& writers,
                         const std::vector<std::string>& idle_order, Position lines,
                         const std::string& log_hash);

// Forgets the plan of a replay that reached its end (in its last transaction).
void drop_row_plan(store::Connection& db);

// FNV-1a 64 over what was added: the hash that tells a rerun of the same log.
class LogHash {
 public:
  void add(std::string_view bytes) noexcept {
    for (unsigned char c : bytes) {
      h_ ^= c;
      h_ *= 0x100000001b3ull;
    }
    h_ ^= 0xff;  // a separator: "ab","c" and "a","bc" differ
    h_ *= 0x100000001b3ull;
  }
  void add(std::int64_t v) { add(std::to_string(v)); }
  std::string hex() const;

 private:
  std::uint64_t h_ = 0xcbf29ce484222325ull;
};

}  // namespace gpubill::replay_detail
