#include "replay/rebuild_moves.hpp"

namespace gpubill::replay_detail {

namespace {

// The columns a line is matched on (aliases `a` and `b`), equal in both. The unit tells the
// meters of one instance apart (Google's host and GPU: `second` and `gpu_second`); without it
// each meter's line matched the other's, and a rebuild of an unchanged database said both moved.
constexpr const char* kSameLine =
    "a.account = b.account AND a.instance = b.instance AND a.component = b.component AND "
    "a.kind = b.kind AND a.mode = b.mode AND a.unit = b.unit AND a.period_start = "
    "b.period_start AND a.period_end = b.period_end";

std::optional<Money> money(const store::Column& amount, const store::Column& currency) {
  if (amount.isNull()) return std::nullopt;
  return Money(Decimal::parse(amount.getString()), Currency::parse(currency.getString()));
}

}  // namespace

void keep_charges_before(store::Connection& db) {
  // Emptied rather than dropped: a DROP fails while any statement of the connection is active
  // (void reads the events it voids around the rebuild). A temporary table (SQLite's temp
  // schema, PostgreSQL's session's), named without its schema: SQLite looks there first, and
  // PostgreSQL has no schema named temp.
  db.exec(
      "CREATE TEMP TABLE IF NOT EXISTS rebuild_before AS SELECT account, instance, component, "
      "kind, mode, unit, period_start, period_end, total_billed, currency FROM charge WHERE "
      "1 = 0");
  db.exec("DELETE FROM rebuild_before");
  db.exec(
      "INSERT INTO rebuild_before SELECT account, instance, component, kind, mode, unit, "
      "period_start, period_end, total_billed, currency FROM charge WHERE account IN (SELECT "
      "account FROM rebuild_target)");
}

std::vector<MovedLine> moved_lines(store::Connection& db) {
  const std::string same = kSameLine;
  store::Statement q(
      db,
      "SELECT account, instance, component, kind, period_start, period_end, was, was_ccy, now, "
      "now_ccy FROM (SELECT b.account, b.instance, b.component, b.kind, b.unit, b.period_start, "
      "b.period_end, b.total_billed AS was, b.currency AS was_ccy, a.total_billed AS now, "
      "a.currency AS now_ccy FROM rebuild_before b LEFT JOIN charge a ON " +
          same +
          " WHERE a.id IS NULL OR a.total_billed <> b.total_billed OR a.currency <> b.currency "
          "UNION ALL SELECT a.account, a.instance, a.component, a.kind, a.unit, a.period_start, "
          "a.period_end, NULL, NULL, a.total_billed, a.currency FROM charge a LEFT JOIN "
          "rebuild_before b ON " +
          same +
          " WHERE b.account IS NULL AND a.account IN (SELECT account FROM rebuild_target)) "
          "AS moved ORDER BY account, period_start, period_end, instance, component, kind, unit, "
          "was IS NULL");
  std::vector<MovedLine> out;
  while (q.executeStep()) {
    MovedLine m;
    m.account = q.getColumn(0).getString();
    m.instance = q.getColumn(1).getString();
    m.component = q.getColumn(2).getString();
    m.kind = q.getColumn(3).getString();
    m.period_start = Instant{std::chrono::seconds{q.getColumn(4).getInt64()}};
    m.period_end = Instant{std::chrono::seconds{q.getColumn(5).getInt64()}};
    m.before = money(q.getColumn(6), q.getColumn(7));
    m.after = money(q.getColumn(8), q.getColumn(9));
    out.push_back(std::move(m));
  }
  q.reset();
  db.exec("DELETE FROM rebuild_before");
  return out;
}

}  // namespace gpubill::replay_detail
