#include "catalog/catalog_settled.hpp"

#include <optional>

#include "gpubill/base/time.hpp"

namespace gpubill {

namespace {

std::string day(std::int64_t unix_seconds) {
  return format_instant(Instant{std::chrono::seconds{unix_seconds}}).substr(0, 10);
}

}  // namespace

std::vector<std::string> settled_charges_affected(store::Connection& db,
                                                  const std::vector<PriceRow>& imported) {
  std::vector<std::string> notes;
  std::optional<std::int64_t> clock;
  {
    store::Statement q(db, "SELECT clock FROM replay_clock WHERE one = 1");
    if (q.executeStep()) clock = q.getColumn(0).getInt64();
  }
  if (!clock) return notes;
  store::Statement new_id(db,
                          "SELECT id FROM price WHERE provider = ? AND subject_kind = ? AND "
                          "subject = ? AND region = ? AND mode = ? AND effective_from = ?");
  // Charges of the same key overlapping the row's period, priced with another row (disk and
  // bandwidth lines name rows of other tables: ledger_rows::price_table_for).
  store::Statement affected(
      db,
      "SELECT c.account, count(*), min(c.period_start), max(c.period_end) FROM charge c "
      "JOIN price used ON used.id = c.price_id AND c.component NOT IN ('system_disk', "
      "'data_disk', 'bandwidth') "
      "WHERE used.provider = ?1 AND used.subject_kind = ?2 AND used.subject = ?3 AND "
      "used.mode = ?4 AND (?5 = '' OR c.region = ?5) AND c.period_end > ?6 AND "
      "(CAST(?7 AS INTEGER) IS NULL OR c.period_start < ?7) AND used.id <> ?8 "
      "GROUP BY c.account ORDER BY c.account");
  for (const PriceRow& p : imported) {
    const std::int64_t from = p.period.from.time_since_epoch().count();
    if (from >= *clock) continue;
    const std::string kind(to_string(p.subject_kind));
    const std::string mode(to_string(p.mode));
    new_id.reset();
    new_id.bind(1, p.provider);
    new_id.bind(2, kind);
    new_id.bind(3, p.subject);
    new_id.bind(4, p.region);
    new_id.bind(5, mode);
    new_id.bind(6, static_cast<int64_t>(from));
    if (!new_id.executeStep()) continue;
    const std::int64_t id = new_id.getColumn(0).getInt64();
    new_id.reset();
    affected.reset();
    affected.bind(1, p.provider);
    affected.bind(2, kind);
    affected.bind(3, p.subject);
    affected.bind(4, mode);
    affected.bind(5, p.region);
    affected.bind(6, static_cast<int64_t>(from));
    if (p.period.to) {
      affected.bind(7, static_cast<int64_t>(p.period.to->time_since_epoch().count()));
    } else {
      affected.bind(7);
    }
    affected.bind(8, static_cast<int64_t>(id));
    while (affected.executeStep()) {
      const std::string account = affected.getColumn(0).getString();
      notes.push_back("price " + std::to_string(id) + " (" + p.provider + " " + p.subject + " " +
                      (p.region.empty() ? "every region" : p.region) + " " + mode + " from " +
                      format_instant(p.period.from) + ") is in force before the replay clock: " +
                      std::to_string(affected.getColumn(1).getInt64()) +
                      " settled charge lines of account " + account + " (" +
                      day(affected.getColumn(2).getInt64()) + " … " +
                      day(affected.getColumn(3).getInt64()) +
                      ") were priced with another row and may change: `gpubill rebuild --account " +
                      account + "` re-prices them");
    }
  }
  return notes;
}

}  // namespace gpubill
