// Reading what replay wrote about instances (instance_state), on SQLite or PostgreSQL.
#include "gpubill/base/errors.hpp"
#include "gpubill/replay/replay.hpp"
#include "store/store.hpp"

namespace gpubill {

void for_each_instance_state(Database& db, const InstanceStateFilter& filter,
                             const std::function<void(const InstanceStateRow&)>& fn) {
  std::string sql =
      "SELECT s.id, s.account, s.instance, s.at, s.state, s.reason, s.event_seq FROM "
      "instance_state s WHERE (CAST(?1 AS TEXT) IS NULL OR s.account = ?1) AND (CAST(?2 AS TEXT) "
      "IS NULL OR s.instance = ?2)";
  if (filter.current) {
    sql +=
        " AND s.id = (SELECT t.id FROM instance_state t WHERE t.account = s.account AND "
        "t.instance = s.instance ORDER BY t.at DESC, t.id DESC LIMIT 1)";
  }
  sql += " ORDER BY s.account, s.instance, s.at, s.id";
  try {
    store::Statement q(connection(db), sql);
    if (filter.account) {
      q.bind(1, *filter.account);
    } else {
      q.bind(1);
    }
    if (filter.instance) {
      q.bind(2, *filter.instance);
    } else {
      q.bind(2);
    }
    InstanceStateRow r;
    while (q.executeStep()) {
      r.id = q.getColumn(0).getInt64();
      r.account = q.getColumn(1).getString();
      r.instance = q.getColumn(2).getString();
      r.at = Instant{std::chrono::seconds{q.getColumn(3).getInt64()}};
      r.state = q.getColumn(4).getString();
      r.reason = q.getColumn(5).getString();
      r.event_seq = q.getColumn(6).isNull()
                        ? std::nullopt
                        : std::optional<std::int64_t>(q.getColumn(6).getInt64());
      fn(r);
    }
  } catch (const store::SqlError& e) {
    throw StoreError(std::string("cannot read the instance state history: ") + e.what());
  }
}

std::vector<InstanceStateRow> query_instance_states(Database& db,
                                                    const InstanceStateFilter& filter) {
  std::vector<InstanceStateRow> out;
  for_each_instance_state(db, filter, [&](const InstanceStateRow& r) { out.push_back(r); });
  return out;
}

}  // namespace gpubill
