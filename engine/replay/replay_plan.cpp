// plan_row_numbers: the numbers of a replay with workers, one worker's (replay_plan.hpp).
#include "replay/replay_plan.hpp"

#include <algorithm>
#include <cstdio>
#include <unordered_map>

#include "store/store.hpp"

namespace gpubill::replay_detail {

namespace {

constexpr const char* kTable[kPlanTables] = {"event", "charge", "balance_movement",
                                             "instance_state", "reject"};
constexpr const char* kColumn[kPlanTables] = {"seq", "id", "id", "id", "id"};
constexpr const char* kPlanColumn[kPlanTables] = {"event", "charge", "movement", "state", "reject"};

// Numbers [first, first + count) of a table.
struct Block {
  std::int64_t first = 0, count = 0;
};

struct StoredPlan {
  std::string log_hash;
  std::array<Block, kPlanTables> blocks;
};

std::optional<StoredPlan> read_plan(store::Connection& db) {
  std::string sql = "SELECT log_hash";
  for (const char* c : kPlanColumn) {
    sql += std::string(", ") + c + "_first, " + c + "_count";
  }
  store::Statement q(db, sql + " FROM replay_plan WHERE one = 1");
  if (!q.executeStep()) return std::nullopt;
  StoredPlan p;
  p.log_hash = q.getColumn(0).getString();
  for (int t = 0; t < kPlanTables; ++t) {
    p.blocks[t] = {q.getColumn(1 + 2 * t).getInt64(), q.getColumn(2 + 2 * t).getInt64()};
  }
  return p;
}

void write_plan(store::Connection& db, const StoredPlan& p) {
  std::string columns = "one, log_hash", values = "1, ?", update = "log_hash = excluded.log_hash";
  for (const char* c : kPlanColumn) {
    for (const char* part : {"_first", "_count"}) {
      const std::string name = std::string(c) + part;
      columns += ", " + name;
      values += ", ?";
      update += ", " + name + " = excluded." + name;
    }
  }
  store::Statement q(db, "INSERT INTO replay_plan(" + columns + ") VALUES(" + values +
                             ") ON CONFLICT(one) DO UPDATE SET " + update);
  q.bind(1, p.log_hash);
  for (int t = 0; t < kPlanTables; ++t) {
    q.bind(2 + 2 * t, static_cast<int64_t>(p.blocks[t].first));
    q.bind(3 + 2 * t, static_cast<int64_t>(p.blocks[t].count));
  }
  q.exec();
}

// The numbers of `block` its table holds, in increasing order.
std::vector<std::int64_t> used_numbers(store::Connection& db, int table, Block block) {
  std::vector<std::int64_t> out;
  if (block.count == 0) return out;
  const std::string column = kColumn[table];
  store::Statement q(db, "SELECT " + column + " FROM " + kTable[table] + " WHERE " + column +
                             " >= ? AND " + column + " < ? ORDER BY " + column);
  q.bind(1, static_cast<int64_t>(block.first));
  q.bind(2, static_cast<int64_t>(block.first + block.count));
  while (q.executeStep()) out.push_back(q.getColumn(0).getInt64());
  return out;
}

// The numbers of a block not used yet, in increasing order.
class FreeNumbers {
 public:
  FreeNumbers(Block block, std::vector<std::int64_t> used)
      : next_(block.first), used_(std::move(used)) {}
  std::int64_t next() {
    while (at_ < used_.size() && used_[at_] == next_) {
      ++at_;
      ++next_;
    }
    return next_++;
  }

 private:
  std::int64_t next_;
  std::vector<std::int64_t> used_;
  std::size_t at_ = 0;
};

// One writer's rows at one position, placed in one worker's order.
struct Placed {
  Position position;
  std::size_t writer;
  const PositionRows* rows;
};

std::vector<Placed> in_one_workers_order(const std::vector<CountedWriter>& writers,
                                         const std::vector<std::string>& idle_order,
                                         Position lines) {
  // The settlements at the end: the loaded accounts by name (settle_loaded), then the idle ones
  // (finish_run's query order).
  std::vector<std::string> loaded;
  for (const auto& w : writers) {
    if (w.loaded) loaded.push_back(w.account);
  }
  std::sort(loaded.begin(), loaded.end());
  std::unordered_map<std::string, Position> settled;
  for (std::size_t i = 0; i < loaded.size(); ++i) settled[loaded[i]] = lines + i;
  for (std::size_t i = 0; i < idle_order.size(); ++i) {
    settled.try_emplace(idle_order[i], lines + loaded.size() + i);
  }
  std::vector<Placed> out;
  for (std::size_t w = 0; w < writers.size(); ++w) {
    for (const auto& r : writers[w].rows) {
      // A position is opened before its rows are known: an account found settled already opens
      // its settlement and writes nothing.
      if (std::all_of(r.rows.begin(), r.rows.end(), [](std::uint32_t n) { return n == 0; })) {
        continue;
      }
      Position p = r.position;
      if (p == kSettlePosition) {
        auto it = settled.find(writers[w].account);
        // Settled at the end without being loaded or idle: not a case of one worker's.
        if (it == settled.end()) throw std::logic_error("replay plan: unplaced settlement");
        p = it->second;
      }
      out.push_back({p, w, &r});
    }
  }
  std::sort(out.begin(), out.end(),
            [](const Placed& a, const Placed& b) { return a.position < b.position; });
  return out;
}

}  // namespace

RowPlan plan_row_numbers(store::Connection& db, const std::vector<CountedWriter>& writers,
                         const std::vector<std::string>& idle_order, Position lines,
                         const std::string& log_hash) {
  const std::vector<Placed> order = in_one_workers_order(writers, idle_order, lines);
  std::array<std::int64_t, kPlanTables> total{};
  for (const auto& p : order) {
    for (int t = 0; t < kPlanTables; ++t) total[t] += p.rows->rows[t];
  }

  // A run of this log stopped half-way left its plan: the rows it wrote have their numbers,
  // the others take the numbers left, in the same order — the numbers they had in that plan.
  StoredPlan plan;
  std::array<std::vector<std::int64_t>, kPlanTables> used;
  bool resumed = false;
  if (auto stored = read_plan(db); stored && stored->log_hash == log_hash) {
    resumed = true;
    for (int t = 0; t < kPlanTables && resumed; ++t) {
      used[t] = used_numbers(db, t, stored->blocks[t]);
      resumed = static_cast<std::int64_t>(used[t].size()) + total[t] == stored->blocks[t].count;
    }
    if (resumed) plan = *stored;
  }
  if (!resumed) {
    plan.log_hash = log_hash;
    for (int t = 0; t < kPlanTables; ++t) {
      used[t].clear();
      plan.blocks[t] = {total[t] > 0 ? db.reserve_id_range(kTable[t], kColumn[t], total[t]) : 0,
                        total[t]};
    }
    write_plan(db, plan);
  }

  std::vector<FreeNumbers> free;
  for (int t = 0; t < kPlanTables; ++t) free.emplace_back(plan.blocks[t], std::move(used[t]));
  RowPlan out;
  out.writers.resize(writers.size());
  for (const auto& p : order) {
    auto& ids = out.writers[p.writer].ids;
    for (int t = 0; t < kPlanTables; ++t) {
      for (std::uint32_t k = 0; k < p.rows->rows[t]; ++k) ids[t].push_back(free[t].next());
    }
  }
  return out;
}

void drop_row_plan(store::Connection& db) {
  db.exec("DELETE FROM replay_plan");
}

std::string LogHash::hex() const {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h_));
  return buf;
}

}  // namespace gpubill::replay_detail
