// The ledger's queries: charge lines, their hourly detail, balance movements and rejects.
#include "gpubill/ledger/ledger.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <tuple>

#include "gpubill/base/errors.hpp"
#include "ledger/charge_merge.hpp"
#include "ledger/ledger_rows.hpp"
#include "store/store.hpp"

namespace gpubill {

namespace ledger_rows {

namespace {
std::vector<std::int64_t> parse_seqs(const std::string& text, std::int64_t charge_id) {
  std::vector<std::int64_t> out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find(',', pos);
    if (end == std::string::npos) end = text.size();
    std::string_view item(text.data() + pos, end - pos);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (!item.empty()) {
      std::int64_t v = 0;
      const auto [p, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
      if (ec != std::errc() || p != item.data() + item.size()) {
        throw StoreError("charge " + std::to_string(charge_id) + ": event_seqs '" + text +
                         "' is not a comma-separated list of event numbers");
      }
      out.push_back(v);
    }
    pos = end + 1;
  }
  return out;
}
}  // namespace

const char* const kChargeColumns =
    "id, account, instance, provider, region, instance_type, component, kind, mode, "
    "period_start, period_end, repeat, quantity, unit, unit_price, price_unit, exact_amount, "
    "billed_amount, rounding, total_exact, total_billed, currency, price_id, policy_id, "
    "discount_id, event_seqs, note, effective_amount";

Decimal decode_decimal(const std::string& text, const std::string& what) {
  if (auto d = Decimal::try_parse(text)) return *d;
  throw StoreError(what + " '" + text + "' is not an exact decimal");
}

Currency decode_currency(const std::string& text, const std::string& what) {
  try {
    return Currency::parse(text);
  } catch (const ParseError&) {
    throw StoreError(what + " '" + text + "' is not a known currency code");
  }
}

RoundingMode decode_rounding(const std::string& text, const std::string& what) {
  try {
    return parse_rounding_mode(text);
  } catch (const ParseError&) {
    throw StoreError(what + " '" + text + "' is not a rounding mode");
  }
}

Instant instant_of(std::int64_t unix_seconds) {
  return Instant{std::chrono::seconds{unix_seconds}};
}

std::int64_t unix_of(Instant t) {
  return t.time_since_epoch().count();
}

std::optional<std::int64_t> optional_int(const store::Column& c) {
  if (c.isNull()) return std::nullopt;
  return c.getInt64();
}

std::optional<Decimal> event_amount(std::string_view payload) {
  constexpr std::string_view key = "\"amount\":\"";
  const auto at = payload.find(key);
  if (at == std::string_view::npos) return std::nullopt;
  const auto from = at + key.size();
  const auto to = payload.find('"', from);
  if (to == std::string_view::npos) return std::nullopt;
  return Decimal::try_parse(payload.substr(from, to - from));
}

std::optional<Instant> optional_instant(const store::Column& c) {
  if (c.isNull()) return std::nullopt;
  return instant_of(c.getInt64());
}

ChargeLine read_charge(store::Statement& q) {
  ChargeLine c;
  c.id = q.getColumn(0).getInt64();
  const std::string at = "charge " + std::to_string(c.id) + ": ";
  c.account = q.getColumn(1).getString();
  c.instance = q.getColumn(2).getString();
  c.provider = q.getColumn(3).getString();
  c.region = q.getColumn(4).getString();
  c.instance_type = q.getColumn(5).getString();
  c.component = q.getColumn(6).getString();
  c.kind = q.getColumn(7).getString();
  c.mode = q.getColumn(8).getString();
  c.period_start = instant_of(q.getColumn(9).getInt64());
  c.period_end = instant_of(q.getColumn(10).getInt64());
  c.repeat = q.getColumn(11).getInt64();
  if (c.repeat < 1) throw StoreError(at + "repeat " + std::to_string(c.repeat) + " is below 1");
  if (c.period_end < c.period_start) throw StoreError(at + "period_end is before period_start");
  c.run_index = 0;
  c.run_length = c.repeat;
  c.quantity = decode_decimal(q.getColumn(12).getString(), at + "quantity");
  c.unit = q.getColumn(13).getString();
  c.unit_price = decode_decimal(q.getColumn(14).getString(), at + "unit_price");
  c.price_unit = q.getColumn(15).getString();
  c.exact_amount = decode_decimal(q.getColumn(16).getString(), at + "exact_amount");
  c.billed_amount = decode_decimal(q.getColumn(17).getString(), at + "billed_amount");
  c.rounding = decode_decimal(q.getColumn(18).getString(), at + "rounding");
  c.total_exact = decode_decimal(q.getColumn(19).getString(), at + "total_exact");
  c.total_billed = decode_decimal(q.getColumn(20).getString(), at + "total_billed");
  c.currency = decode_currency(q.getColumn(21).getString(), at + "currency");
  c.price_id = optional_int(q.getColumn(22));
  c.policy_id = optional_int(q.getColumn(23));
  c.discount_id = optional_int(q.getColumn(24));
  c.event_seqs = parse_seqs(q.getColumn(25).getString(), c.id);
  c.note = q.getColumn(26).getString();
  if (!q.getColumn(27).isNull()) {
    c.effective_amount = decode_decimal(q.getColumn(27).getString(), at + "effective_amount");
  }
  return c;
}

std::optional<ProviderFacts> provider_facts(store::Connection& db, std::string_view provider) {
  store::Statement q(db, "SELECT id, name, billing_time_zone FROM provider WHERE id = ?");
  q.bind(1, std::string(provider));
  if (!q.executeStep()) return std::nullopt;
  return ProviderFacts{q.getColumn(0).getString(), q.getColumn(1).getString(),
                       q.getColumn(2).getString()};
}

std::optional<std::string> region_name(store::Connection& db, std::string_view provider,
                                       std::string_view region) {
  store::Statement q(db, "SELECT name FROM region WHERE provider = ? AND id = ?");
  q.bind(1, std::string(provider));
  q.bind(2, std::string(region));
  if (!q.executeStep()) return std::nullopt;
  std::string name = q.getColumn(0).getString();
  if (name.empty()) return std::nullopt;
  return name;
}

bool per_second_of_hourly(std::string_view unit, std::string_view price_unit) noexcept {
  return unit.ends_with("second") && price_unit.ends_with("hour");
}

std::string_view unit_prefix(std::string_view unit) noexcept {
  const auto pos = unit.rfind('_');
  return pos == std::string_view::npos ? std::string_view() : unit.substr(0, pos + 1);
}

std::string_view price_table_for(std::string_view component) noexcept {
  if (component == "system_disk" || component == "data_disk") return "disk_price";
  if (component == "bandwidth") return "bandwidth_price";
  return "price";
}

namespace {

// ceil(n / d) for d > 0.
std::int64_t ceil_div(std::int64_t n, std::int64_t d) {
  return n >= 0 ? (n + d - 1) / d : -((-n) / d);
}

}  // namespace

void check_run_shape(const ChargeLine& line) {
  if (line.repeat <= 1) return;
  const std::int64_t length = line.settlement_seconds();
  if (length <= 0 || length > kSecondsPerHour) {
    throw StoreError("charge " + std::to_string(line.id) + ": a run of " +
                     std::to_string(line.repeat) + " settlements cannot span " +
                     std::to_string((line.period_end - line.period_start).count()) +
                     " s (each settlement would last " + std::to_string(length) + " s)");
  }
}

void check_totals(const ChargeLine& line) {
  if (line.total_exact != line.exact_amount * line.repeat ||
      line.total_billed != line.billed_amount * line.repeat) {
    throw StoreError("charge " + std::to_string(line.id) + ": totals " +
                     line.total_billed.to_string() + " billed / " + line.total_exact.to_string() +
                     " exact are not " + std::to_string(line.repeat) +
                     " × the per-settlement amounts " + line.billed_amount.to_string() + " / " +
                     line.exact_amount.to_string());
  }
}

void assign_part(ChargeLine& part, const ChargeLine& line, std::int64_t k0, std::int64_t k1) {
  if (&part != &line) part = line;
  set_part_span(part, line, k0, k1);
}

void set_part_span(ChargeLine& part, const ChargeLine& line, std::int64_t k0, std::int64_t k1) {
  const std::int64_t length = line.settlement_seconds();
  const Instant start = line.settlement_start(k0);
  part.period_end = line.settlement_start(k1 - 1) + std::chrono::seconds{length};
  part.period_start = start;
  part.repeat = k1 - k0;
  part.run_index = line.run_index + k0;
  part.total_exact = line.exact_amount * part.repeat;
  part.total_billed = line.billed_amount * part.repeat;
}

ChargeLine part_of(const ChargeLine& line, std::int64_t k0, std::int64_t k1) {
  ChargeLine part;
  assign_part(part, line, k0, k1);
  return part;
}

bool line_order(const ChargeLine& a, const ChargeLine& b) {
  return std::tie(a.period_start, a.account, a.instance, a.component, a.kind, a.id, a.run_index) <
         std::tie(b.period_start, b.account, b.instance, b.component, b.kind, b.id, b.run_index);
}

}  // namespace ledger_rows

using namespace ledger_rows;

namespace {

template <typename F>
auto store_call(const char* what, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const store::SqlError& e) {
    throw StoreError(std::string(what) + ": " + e.what());
  }
}

}  // namespace

std::int64_t ChargeLine::settlement_seconds() const {
  return (period_end - period_start).count() - (repeat - 1) * kSecondsPerHour;
}

Instant ChargeLine::settlement_start(std::int64_t k) const {
  return period_start + std::chrono::seconds{k * kSecondsPerHour};
}

std::optional<ChargeLine> slice_line(const ChargeLine& line, Instant from, Instant to) {
  if (line.repeat <= 1) {
    if (line.period_start < from || line.period_start >= to) return std::nullopt;
    return line;
  }
  check_run_shape(line);
  const std::int64_t n = line.repeat;
  // The first settlement starting at or after `from`, and the first at or after `to` (the
  // comparisons first, so that open bounds (Instant::min/max) never enter a subtraction).
  const auto first_at_or_after = [&](Instant t) -> std::int64_t {
    if (t <= line.period_start) return 0;
    if (t > line.settlement_start(n - 1)) return n;
    return ceil_div((t - line.period_start).count(), kSecondsPerHour);
  };
  const std::int64_t k0 = first_at_or_after(from);
  const std::int64_t k1 = first_at_or_after(to);
  if (k0 >= k1) return std::nullopt;
  if (k0 == 0 && k1 == n) return line;
  check_totals(line);
  return part_of(line, k0, k1);
}

std::vector<ChargeLine> expand_hourly(const ChargeLine& line) {
  if (line.repeat <= 1) return {line};
  check_run_shape(line);
  check_totals(line);
  std::vector<ChargeLine> out;
  out.reserve(static_cast<std::size_t>(line.repeat));
  for (std::int64_t k = 0; k < line.repeat; ++k) out.push_back(part_of(line, k, k + 1));
  return out;
}

std::vector<ChargeLine> expand_hourly(const std::vector<ChargeLine>& lines) {
  std::vector<ChargeLine> out;
  for_each_hourly(lines, [&](const ChargeLine& line) { out.push_back(line); });
  return out;
}

void for_each_hourly(const std::vector<ChargeLine>& lines,
                     const std::function<void(const ChargeLine&)>& fn) {
  std::vector<std::size_t> order(lines.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return line_order(lines[a], lines[b]); });
  ChargeMerge merge(/*hourly=*/true, fn);
  for (const std::size_t i : order) {
    merge.release_before(lines[i].period_start);
    merge.push(lines[i]);
  }
  merge.finish();
}

void for_each_charge(Database& db, const ChargeFilter& filter, ChargeDetail detail,
                     const std::function<void(const ChargeLine&)>& fn) {
  store_call("reading charges", [&] {
    std::string sql = std::string("SELECT ") + kChargeColumns + " FROM charge WHERE 1 = 1";
    int n = 0;  // parameters numbered in the order they appear
    if (filter.account) sql += " AND account = ?" + std::to_string(++n);
    if (filter.instance) sql += " AND instance = ?" + std::to_string(++n);
    // A run may start before `from` and still have settlements in range; a line of one
    // settlement that starts at `from` may also end there.
    if (filter.from) sql += " AND period_end >= ?" + std::to_string(++n);
    if (filter.to) sql += " AND period_start < ?" + std::to_string(++n);
    sql += " ORDER BY period_start, account, instance, component, kind, id";  // line_order
    store::Statement q(connection(db), sql);
    q.stream();  // every charge may come: PostgreSQL reads them in batches
    n = 0;
    if (filter.account) q.bind(++n, *filter.account);
    if (filter.instance) q.bind(++n, *filter.instance);
    if (filter.from) q.bind(++n, unix_of(*filter.from));
    if (filter.to) q.bind(++n, unix_of(*filter.to));
    const Instant from = filter.from.value_or(Instant::min());
    const Instant to = filter.to.value_or(Instant::max());
    const bool cut = filter.from || filter.to;
    // Rows come by stored start; a cut run starts later, and a run's hours later still: the
    // merge holds them until no row still to come can start before them.
    ChargeMerge merge(detail == ChargeDetail::hourly, fn);
    while (q.executeStep()) {
      ChargeLine line = read_charge(q);
      merge.release_before(line.period_start);
      if (!cut) {
        merge.push(std::move(line));
        continue;
      }
      if (auto part = slice_line(line, from, to)) merge.push(std::move(*part));
    }
    merge.finish();
  });
}

std::vector<ChargeLine> query_charges(Database& db, const ChargeFilter& filter) {
  std::vector<ChargeLine> out;
  for_each_charge(db, filter, ChargeDetail::lines,
                  [&](const ChargeLine& line) { out.push_back(line); });
  return out;
}

std::optional<ChargeLine> find_charge(Database& db, std::int64_t charge_id) {
  return store_call("reading a charge", [&]() -> std::optional<ChargeLine> {
    store::Statement q(connection(db),
                       std::string("SELECT ") + kChargeColumns + " FROM charge WHERE id = ?");
    q.bind(1, static_cast<int64_t>(charge_id));
    if (!q.executeStep()) return std::nullopt;
    return read_charge(q);
  });
}

void for_each_balance_movement(Database& db, std::string_view account, std::optional<Instant> from,
                               std::optional<Instant> to,
                               const std::function<void(const BalanceMovement&)>& fn,
                               const std::vector<BalanceSummary>* opening) {
  store_call("reading balance movements", [&] {
    // `c` is the settlement a movement debits, if it debits one.
    std::string sql =
        "SELECT m.id, m.account, m.at, m.currency, m.amount, m.balance_after, m.kind, "
        "m.charge_id, m.event_seq, c.id FROM balance_movement m LEFT JOIN charge c ON c.id = "
        "m.charge_id AND c.kind = 'settlement' WHERE m.account = ?1";
    // Every movement before `to`, from the first (balance_after is their running total), or
    // from `from` when the balances then are known.
    if (to) sql += " AND m.at < ?2";
    const bool seeded = opening != nullptr && from.has_value();
    if (seeded) sql += to ? " AND m.at >= ?3" : " AND m.at >= ?2";
    // The order replay applied them in. At one instant the hourly settlements come first
    // (time before events, docs/usage-log.md); their rows are written when a run ends, so their
    // ids say nothing of that order: they are listed by what they charge instead (all of one
    // instant's settlements show the balance after all of them). The other movements follow in
    // the order they happened, which is their id order.
    sql +=
        " ORDER BY m.at, c.id IS NULL, CASE WHEN c.id IS NOT NULL THEN m.currency END, "
        "c.instance, c.component, c.instance_type, m.id";
    store::Statement q(connection(db), sql);
    q.stream();  // an account's every movement, for a statement or balance points
    q.bind(1, account);
    if (to) q.bind(2, unix_of(*to));
    if (seeded) q.bind(to ? 3 : 2, unix_of(*from));
    std::map<std::string, Decimal, std::less<>> running;  // by currency
    if (seeded) {
      for (const auto& b : *opening) running[std::string(b.currency.code())] = b.opening;
    }
    BalanceMovement m;
    while (q.executeStep()) {
      m.id = q.getColumn(0).getInt64();
      const std::string at = "balance movement " + std::to_string(m.id) + ": ";
      m.account = q.getColumn(1).getString();
      m.at = instant_of(q.getColumn(2).getInt64());
      m.currency = decode_currency(q.getColumn(3).getString(), at + "currency");
      m.amount = decode_decimal(q.getColumn(4).getString(), at + "amount");
      // Column 5 holds the engine's balance at that instant; a run's hours are debited in
      // segments dated by their last hour, so only the running total in listing order is sure
      // to add up at every cut (a month end), and is what is shown.
      m.recorded_balance = decode_decimal(q.getColumn(5).getString(), at + "balance_after");
      m.settles_run = !q.getColumn(9).isNull();
      Decimal& balance = running[std::string(m.currency.code())];
      balance += m.amount;
      m.balance_after = balance;
      m.kind = q.getColumn(6).getString();
      m.charge_id = optional_int(q.getColumn(7));
      m.event_seq = optional_int(q.getColumn(8));
      if (from && m.at < *from) continue;
      fn(m);
    }
  });
}

std::vector<BalanceMovement> query_balance_movements(Database& db, std::string_view account,
                                                     std::optional<Instant> from,
                                                     std::optional<Instant> to) {
  std::vector<BalanceMovement> out;
  for_each_balance_movement(db, account, from, to,
                            [&](const BalanceMovement& m) { out.push_back(m); });
  return out;
}

void for_each_reject(Database& db, const RejectFilter& filter,
                     const std::function<void(const RejectRow&)>& fn) {
  store_call("reading rejects", [&] {
    std::string sql =
        "SELECT id, kind, source_file, source_line, account, event_id, time, field, reason, raw "
        "FROM reject WHERE 1 = 1";
    if (filter.account) sql += " AND account = ?1";
    if (filter.kind) sql += filter.account ? " AND kind = ?2" : " AND kind = ?1";
    sql += " ORDER BY id";
    store::Statement q(connection(db), sql);
    q.stream();  // a log of millions of bad lines has as many rejects
    if (filter.account) q.bind(1, *filter.account);
    if (filter.kind) q.bind(filter.account ? 2 : 1, *filter.kind);
    RejectRow r;
    while (q.executeStep()) {
      r.id = q.getColumn(0).getInt64();
      r.kind = q.getColumn(1).getString();
      r.source_file = q.getColumn(2).getString();
      r.source_line = q.getColumn(3).getInt64();
      r.account = q.getColumn(4).getString();
      r.event_id = q.getColumn(5).getString();
      r.time = optional_instant(q.getColumn(6));
      r.field = q.getColumn(7).getString();
      r.reason = q.getColumn(8).getString();
      r.raw = q.getColumn(9).getString();
      fn(r);
    }
  });
}

std::vector<RejectRow> query_rejects(Database& db, const RejectFilter& filter) {
  std::vector<RejectRow> out;
  for_each_reject(db, filter, [&](const RejectRow& r) { out.push_back(r); });
  return out;
}

std::vector<std::string> known_accounts(Database& db) {
  return store_call("reading accounts", [&] {
    store::Statement q(connection(db),
                       "SELECT account FROM event UNION SELECT account FROM reject "
                       "WHERE account <> '' ORDER BY 1");
    std::vector<std::string> out;
    while (q.executeStep()) out.push_back(q.getColumn(0).getString());
    return out;
  });
}

}  // namespace gpubill
