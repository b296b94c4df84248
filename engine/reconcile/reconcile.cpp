// reconcile(): the export and the account's charges summed per key, then compared.
#include "gpubill/reconcile/reconcile.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <tuple>
#include <unordered_set>

#include "gpubill/base/errors.hpp"
#include "gpubill/ledger/ledger.hpp"
#include "reconcile/invoice.hpp"
#include "reconcile/reconcile_keys.hpp"

namespace gpubill {

namespace reconcile_detail {
namespace {

std::int64_t secs(Instant t) {
  return t.time_since_epoch().count();
}
Instant instant(std::int64_t s) {
  return Instant{std::chrono::seconds{s}};
}

Granularity granularity_of(std::int64_t span) {
  if (span <= kSecondsPerHour) return Granularity::hour;
  if (span <= 25 * kSecondsPerHour) return Granularity::day;  // a day with a DST hour
  return Granularity::month;
}

Instant bucket_start(Granularity g, Instant t, const Calendar& cal) {
  switch (g) {
    case Granularity::hour:
      return cal.hour_start(t);
    case Granularity::day:
      return cal.midnight_after(t, 0);
    case Granularity::month:
      return cal.month_start(t);
  }
  return t;
}

Instant bucket_end(Granularity g, Instant start, const Calendar& cal) {
  switch (g) {
    case Granularity::hour:
      return cal.next_hour(start);
    case Granularity::day:
      return cal.midnight_after(start, 1);
    case Granularity::month:
      return cal.next_month_start(start);
  }
  return start;
}

// Credits and a cycle's rounding are compared per month; usage and purchases per period.
Granularity key_granularity(Category c, Granularity g) {
  return c == Category::credit || c == Category::rounding ? Granularity::month : g;
}

Meter gpubill_meter(const ChargeLine& c) {
  if (c.component == "compute") return c.unit.rfind("gpu", 0) == 0 ? Meter::gpu : Meter::compute;
  if (c.component == "system_disk" || c.component == "data_disk") return Meter::disk;
  if (c.component == "bandwidth") return Meter::bandwidth;
  return Meter::other;
}

Category gpubill_category(const std::string& kind) {
  if (kind == "cycle_rounding") return Category::rounding;
  if (kind == "sustained_use_discount") return Category::credit;
  if (kind == "prepaid_order" || kind == "renewal" || kind == "auto_renewal" || kind == "upgrade" ||
      kind == "refund") {
    return Category::purchase;
  }
  return Category::usage;
}

struct State {
  State(Database& d, const ReconcileOptions& o, Calendar c) : db(d), options(o), calendar(c) {}
  Database& db;
  const ReconcileOptions& options;
  Calendar calendar;
  KeyMap keys;
  std::vector<GpubillSide> gpubill_sides;
  std::vector<InvoiceSide> invoice_sides;
  std::unordered_set<std::string> units;  // price units, each stored once
  Names names;
  std::optional<Instant> month_from, month_to;  // --month
  std::int64_t invoice_span = 0, gpubill_span = 0;
  std::optional<Instant> first_start, last_start;
  ReconcileReport report;
};

void add_invoice_line(State& st, const InvoiceLine& line) {
  ++st.report.invoice_lines;
  if (line.ignored ||
      (st.month_from && (line.start < *st.month_from || line.start >= *st.month_to))) {
    ++st.report.ignored_lines;
    return;
  }
  if (line.category == Category::usage && !line.amount.is_zero()) {
    st.invoice_span = std::max(st.invoice_span, secs(line.end) - secs(line.start));
  }
  if (!st.first_start || line.start < *st.first_start) st.first_start = line.start;
  if (!st.last_start || line.start > *st.last_start) st.last_start = line.start;
  const Key key{st.names.id(line.resource), line.meter, line.category,
                secs(bucket_start(key_granularity(line.category, Granularity::hour), line.start,
                                  st.calendar))};
  auto& index = st.keys[key].invoice;
  const bool fresh = index < 0;
  if (fresh) {
    index = static_cast<std::int32_t>(st.invoice_sides.size());
    st.invoice_sides.emplace_back();
  }
  auto& side = st.invoice_sides[static_cast<std::size_t>(index)];
  if (fresh) {
    side.first_line = line.line;
    side.currency = line.currency;
  }
  ++side.lines;
  side.amount += line.amount;
  if (line.list_amount)
    side.list += *line.list_amount;
  else
    side.has_list = false;
  if (line.hours)
    side.hours += *line.hours;
  else
    side.has_hours = false;
  if (line.rate && !side.rate) side.rate = line.rate;
}

void add_charge(State& st, const ChargeLine& c) {
  ++st.report.gpubill_lines;
  const Meter meter = gpubill_meter(c);
  const Category category = gpubill_category(c.kind);
  if (category == Category::usage) {
    st.gpubill_span = std::max(st.gpubill_span, c.settlement_seconds());
  }
  const Key key{st.names.id(c.instance), meter, category,
                secs(bucket_start(key_granularity(category, Granularity::hour), c.period_start,
                                  st.calendar))};
  auto& index = st.keys[key].gpubill;
  const bool fresh = index < 0;
  if (fresh) {
    index = static_cast<std::int32_t>(st.gpubill_sides.size());
    st.gpubill_sides.emplace_back();
  }
  auto& side = st.gpubill_sides[static_cast<std::size_t>(index)];
  if (fresh) {
    side.code = c.currency;
    side.price_id = c.price_id;
    side.unit_price = c.unit_price;
    side.unit = &*st.units.insert(c.price_unit).first;
  }
  ++side.lines;
  side.billed += c.total_billed;
  side.exact += c.total_exact;
  for (std::size_t m = 0; m < kLineModes.size(); ++m) {
    side.per_line[m] += c.exact_amount.round(2, kLineModes[m]) * c.repeat;
  }
  if (c.unit == "second" || c.unit == "gpu_second") {
    side.seconds += c.quantity * c.repeat;
    side.has_seconds = true;
  }
  if (c.kind == "cycle_rounding") side.cycle_rounding = true;
  side.add_charge_id(c.id);
}

void merge_side(InvoiceSide& into, const InvoiceSide& from) {
  into.lines += from.lines;
  into.amount += from.amount;
  into.list += from.list;
  into.hours += from.hours;
  into.has_list = into.has_list && from.has_list;
  into.has_hours = into.has_hours && from.has_hours;
  into.first_line = std::min(into.first_line, from.first_line);
  if (!into.rate) into.rate = from.rate;
}

void merge_side(GpubillSide& into, const GpubillSide& from) {
  into.lines += from.lines;
  into.billed += from.billed;
  into.exact += from.exact;
  for (std::size_t m = 0; m < into.per_line.size(); ++m) into.per_line[m] += from.per_line[m];
  into.seconds += from.seconds;
  into.has_seconds = into.has_seconds && from.has_seconds;
  into.cycle_rounding = into.cycle_rounding || from.cycle_rounding;
  for (std::size_t i = 0; i < from.charge_count; ++i) into.add_charge_id(from.charge_ids[i]);
}

// Side `from` joins the key whose side index is `into` (taken over when it has none).
template <class Side>
void merge_into(std::int32_t& into, std::int32_t from, std::vector<Side>& sides) {
  if (from < 0) return;
  if (into < 0) {
    into = from;
  } else {
    merge_side(sides[static_cast<std::size_t>(into)], sides[static_cast<std::size_t>(from)]);
  }
}

// The keys re-summed per period of `g` (they were summed per hour).
void coarsen(State& st, Granularity g) {
  if (g == Granularity::hour) return;
  KeyMap out;
  out.reserve(st.keys.size() / 4 + 1);
  for (const auto& [key, entry] : st.keys) {
    Key k = key;
    k.bucket = secs(bucket_start(key_granularity(k.category, g), instant(k.bucket), st.calendar));
    auto& e = out[k];
    merge_into(e.gpubill, entry.gpubill, st.gpubill_sides);
    merge_into(e.invoice, entry.invoice, st.invoice_sides);
  }
  st.keys = std::move(out);
}

void add_total(std::map<std::string, Decimal>& totals, const std::string& currency, Decimal d) {
  totals[currency] += d;
}

std::string totals_text(const std::map<std::string, Decimal>& totals) {
  std::string out;
  for (const auto& [currency, amount] : totals) {
    if (!out.empty()) out += ", ";
    out += amount.to_string() + (currency.empty() ? "" : " " + currency);
  }
  return out.empty() ? "0" : out;
}

bool within(const Decimal& d, const Decimal& tolerance) {
  return (d.sign() < 0 ? -d : d) <= tolerance;
}

void compare(State& st, Granularity g) {
  std::set<std::uint32_t> gpubill_resources;
  for (const auto& [key, entry] : st.keys) {
    if (entry.gpubill >= 0) gpubill_resources.insert(key.resource);
  }
  std::map<std::string, Decimal> gp_totals, inv_totals;
  auto& r = st.report;
  for (const auto& [key, indexes] : st.keys) {
    const SideView entry{
        indexes.gpubill < 0 ? nullptr
                            : &st.gpubill_sides[static_cast<std::size_t>(indexes.gpubill)],
        indexes.invoice < 0 ? nullptr
                            : &st.invoice_sides[static_cast<std::size_t>(indexes.invoice)]};
    ++r.keys;
    if (entry.gpubill) add_total(gp_totals, entry.gpubill->currency(), entry.gpubill->billed);
    if (entry.invoice) add_total(inv_totals, entry.invoice->currency, entry.invoice->amount);
    const Decimal gp = entry.gpubill ? entry.gpubill->billed : Decimal{};
    const Decimal inv = entry.invoice ? entry.invoice->amount : Decimal{};
    const bool same_currency = !entry.gpubill || !entry.invoice ||
                               entry.invoice->currency.empty() ||
                               entry.invoice->currency == entry.gpubill->currency();
    if (same_currency && within(inv - gp, st.options.tolerance)) {
      ++r.matched;
      continue;
    }
    const Instant start = instant(key.bucket);
    const Instant end = bucket_end(key_granularity(key.category, g), start, st.calendar);
    r.differences.push_back(explain(st.db, key, entry, st.names.names[key.resource], start, end,
                                    gpubill_resources.count(key.resource) > 0));
  }
  r.gpubill_total = totals_text(gp_totals);
  r.invoice_total = totals_text(inv_totals);
}

void count_kinds(ReconcileReport& r) {
  r.missing = r.extra = r.amount = 0;
  for (const auto& d : r.differences) {
    if (d.kind == DifferenceKind::missing) ++r.missing;
    if (d.kind == DifferenceKind::extra) ++r.extra;
    if (d.kind == DifferenceKind::amount) ++r.amount;
  }
}

void sort_differences(std::vector<Difference>& diffs) {
  std::sort(diffs.begin(), diffs.end(), [](const Difference& a, const Difference& b) {
    return std::tie(a.period_start, a.resource, a.meter, a.category) <
           std::tie(b.period_start, b.resource, b.meter, b.category);
  });
}

}  // namespace
}  // namespace reconcile_detail

ReconcileReport reconcile(Database& db, const ReconcileOptions& options) {
  using namespace reconcile_detail;
  const InvoiceFormat format =
      options.format ? *options.format : detect_invoice_format(options.invoice_path);
  State st(db, options, account_calendar(db, options.account));
  auto& r = st.report;
  r.account = options.account;
  r.invoice_file = options.invoice_path;
  r.format = format;
  r.tolerance = options.tolerance;
  r.time_zone = st.calendar.zone_name();
  if (options.month) {
    const auto [year, month] = *options.month;
    const date::year_month_day first{date::year{year}, date::month{month}, date::day{1}};
    st.month_from = st.calendar.midnight(date::sys_days{first});
    st.month_to = st.calendar.next_month_start(*st.month_from);
  }
  // About one key per export line of 512 bytes: no rehash while the keys grow.
  std::error_code size_error;
  const auto bytes = std::filesystem::file_size(options.invoice_path, size_error);
  if (!size_error) st.keys.reserve(std::min<std::uintmax_t>(bytes / 512, std::uintmax_t{1} << 23));
  read_invoice(options.invoice_path, format, st.calendar,
               [&](const InvoiceLine& line) { add_invoice_line(st, line); });
  // The months compared: --month, else every month the export has a line in.
  if (st.month_from) {
    r.from = st.month_from;
    r.to = st.month_to;
  } else if (st.first_start) {
    r.from = st.calendar.month_start(*st.first_start);
    r.to = st.calendar.next_month_start(*st.last_start);
  }
  if (r.from) {
    ChargeFilter filter;
    filter.account = options.account;
    filter.from = r.from;
    filter.to = r.to;
    st.keys.reserve(st.keys.size() * 2);
    st.gpubill_sides.reserve(st.invoice_sides.size());
    for_each_charge(db, filter, ChargeDetail::hourly,
                    [&](const ChargeLine& c) { add_charge(st, c); });
  }
  r.granularity = std::max(granularity_of(st.invoice_span), granularity_of(st.gpubill_span));
  coarsen(st, r.granularity);
  compare(st, r.granularity);
  pair_period_boundaries(r.differences, options.tolerance);
  sort_differences(r.differences);
  count_kinds(r);
  return r;
}

}  // namespace gpubill
