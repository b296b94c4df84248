#include "catalog/catalog_store.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "catalog/catalog_commitments.hpp"
#include "catalog/policy_metering.hpp"
#include "catalog/policy_prepaid.hpp"
#include "gpubill/base/errors.hpp"
#include "gpubill/catalog/catalog_import.hpp"
#include "store/store.hpp"

namespace gpubill {

namespace {

// ---- decoding ------------------------------------------------------------------------------

// Decodes stored text with `parse`, turning a failure into a StoreError naming the place.
// `text` is a std::string or, read without a copy, a std::string_view.
template <typename Text, typename Parse>
auto decode(const char* table, const char* column, const Text& text, Parse parse) {
  try {
    return parse(text);
  } catch (const Error& e) {
    throw StoreError("catalog table " + std::string(table) + ", column " + column +
                     ": stored value '" + std::string(text) + "' does not decode: " + e.what());
  }
}

Decimal decimal_col(const store::Column& c, const char* table) {
  return decode(table, c.getName(), c.getStringView(),
                [](std::string_view s) { return Decimal::parse(s); });
}

std::optional<Decimal> opt_decimal_col(const store::Column& c, const char* table) {
  if (c.isNull()) return std::nullopt;
  return decimal_col(c, table);
}

std::optional<int> opt_int_col(const store::Column& c) {
  if (c.isNull()) return std::nullopt;
  return c.getInt();
}

Currency currency_col(const store::Column& c, const char* table) {
  return decode(table, c.getName(), c.getStringView(),
                [](std::string_view s) { return Currency::parse(s); });
}

BillingMode mode_col(const store::Column& c, const char* table) {
  return decode(table, c.getName(), c.getStringView(),
                [](std::string_view s) { return parse_billing_mode(s); });
}

Instant instant_of(std::int64_t seconds) {
  return Instant{std::chrono::seconds{seconds}};
}

std::int64_t seconds_of(Instant t) {
  return t.time_since_epoch().count();
}

std::optional<Instant> opt_instant_col(const store::Column& c) {
  if (c.isNull()) return std::nullopt;
  return instant_of(c.getInt64());
}

Effective period_cols(const store::Column& from, const store::Column& to) {
  Effective p;
  p.from = instant_of(from.getInt64());
  if (!to.isNull()) p.to = instant_of(to.getInt64());
  return p;
}

// ---- binding -------------------------------------------------------------------------------

void bind_opt(store::Statement& q, int i, const std::optional<Decimal>& d) {
  if (d) {
    q.bind(i, d->to_string());
  } else {
    q.bind(i);
  }
}

void bind_opt(store::Statement& q, int i, const std::optional<int>& v) {
  if (v) {
    q.bind(i, *v);
  } else {
    q.bind(i);
  }
}

void bind_opt(store::Statement& q, int i, const std::optional<Instant>& t) {
  if (t) {
    q.bind(i, static_cast<int64_t>(seconds_of(*t)));
  } else {
    q.bind(i);
  }
}

void bind_period(store::Statement& q, int from_index, const Effective& p) {
  q.bind(from_index, static_cast<int64_t>(seconds_of(p.from)));
  if (p.to) {
    q.bind(from_index + 1, static_cast<int64_t>(seconds_of(*p.to)));
  } else {
    q.bind(from_index + 1);
  }
}

void run(store::Statement& q) {
  q.exec();
  q.reset();
  q.clearBindings();
}

// ---- reading -------------------------------------------------------------------------------

void read_providers(store::Connection& db, CatalogData& out) {
  store::Statement q(db, "SELECT id, name, currency, billing_time_zone FROM provider ORDER BY id");
  while (q.executeStep()) {
    out.providers.push_back({q.getColumn(0).getString(), q.getColumn(1).getString(),
                             currency_col(q.getColumn(2), "provider"), q.getColumn(3).getString()});
  }
  store::Statement r(db, "SELECT provider, id, name FROM region ORDER BY provider, id");
  while (r.executeStep()) {
    out.regions.push_back(
        {r.getColumn(0).getString(), r.getColumn(1).getString(), r.getColumn(2).getString()});
  }
}

void read_gpus(store::Connection& db, CatalogData& out) {
  std::map<std::string, std::vector<std::string>> aliases;
  // A GPU's aliases in the order the catalog lists them (migration 0019).
  store::Statement a(db, "SELECT gpu, alias FROM gpu_alias ORDER BY gpu, position, alias");
  while (a.executeStep()) aliases[a.getColumn(0).getString()].push_back(a.getColumn(1).getString());
  store::Statement q(db,
                     "SELECT id, vendor, architecture, fp64_tflops, fp32_tflops, "
                     "fp16_tensor_tflops, int8_tops, memory_gb, memory_bandwidth_gbs, "
                     "interconnect, interconnect_bandwidth_gbs, tdp_w, launch_price, "
                     "launch_currency, source, units_per_board FROM gpu ORDER BY id");
  while (q.executeStep()) {
    Gpu g;
    g.id = q.getColumn(0).getString();
    g.aliases = aliases[g.id];
    g.vendor = q.getColumn(1).getString();
    g.architecture = q.getColumn(2).getString();
    g.fp64_tflops = opt_decimal_col(q.getColumn(3), "gpu");
    g.fp32_tflops = opt_decimal_col(q.getColumn(4), "gpu");
    g.fp16_tensor_tflops = opt_decimal_col(q.getColumn(5), "gpu");
    g.int8_tops = opt_decimal_col(q.getColumn(6), "gpu");
    g.memory_gb = opt_decimal_col(q.getColumn(7), "gpu");
    g.memory_bandwidth_gbs = opt_decimal_col(q.getColumn(8), "gpu");
    g.interconnect = q.getColumn(9).getString();
    g.interconnect_bandwidth_gbs = opt_decimal_col(q.getColumn(10), "gpu");
    g.tdp_w = opt_int_col(q.getColumn(11));
    if (!q.getColumn(12).isNull()) {
      g.launch_price =
          Money(decimal_col(q.getColumn(12), "gpu"), currency_col(q.getColumn(13), "gpu"));
    }
    g.source = q.getColumn(14).getString();
    g.units_per_board = q.getColumn(15).getInt();
    out.gpus.push_back(std::move(g));
  }
}

// "[\"V100-SXM2-16GB\",\"T4\"]": ids for json_each (GPU ids hold no quote or backslash).
std::string json_id_list(const std::set<std::string>& ids) {
  std::string out = "[";
  for (const auto& id : ids) {
    if (id.find_first_of("\"\\") != std::string::npos) {
      throw StoreError("GPU id '" + id + "' holds a quote or backslash");
    }
    out += out.size() > 1 ? ",\"" : "\"";
    out += id;
    out += '"';
  }
  return out + "]";
}

// With `gpus`, only the instance types that carry one of them, built in or attachable.
void read_instance_types(store::Connection& db, CatalogData& out,
                         const std::set<std::string>* gpus = nullptr) {
  const std::string ids = gpus ? json_id_list(*gpus) : std::string();
  // The types that take one of `gpus` as an attachable GPU, by the index on attachable_gpu.gpu.
  const std::string taking =
      "SELECT provider, instance_type FROM attachable_gpu WHERE gpu IN "
      "(SELECT value FROM json_each(?1))";
  std::map<std::pair<std::string, std::string>, std::vector<AttachableGpu>> attachable;
  store::Statement a(db,
                     "SELECT provider, instance_type, gpu, count, retired_on FROM attachable_gpu " +
                         (gpus ? "WHERE (provider, instance_type) IN (" + taking + ") " : "") +
                         "ORDER BY provider, instance_type, gpu, count");
  if (gpus) a.bind(1, ids);
  while (a.executeStep()) {
    auto& list = attachable[{a.getColumn(0).getString(), a.getColumn(1).getString()}];
    const std::string gpu = a.getColumn(2).getString();
    if (list.empty() || list.back().gpu != gpu) {
      list.push_back({gpu, {}, opt_instant_col(a.getColumn(4))});
    }
    list.back().counts.push_back(a.getColumn(3).getInt());
  }
  store::Statement q(
      db,
      "SELECT provider, id, family, gpu, gpu_count, vcpu, ram_gb, local_disk_gb, "
      "local_disk_kind, notes, source, available_from, retired_on FROM instance_type " +
          (gpus ? "WHERE (provider, id) IN (SELECT provider, id FROM instance_type WHERE gpu IN "
                  "(SELECT value FROM json_each(?1)) UNION SELECT t.provider, t.id FROM "
                  "instance_type t JOIN (" +
                      taking + ") a ON a.provider = t.provider AND a.instance_type = t.id) "
                : std::string()) +
          "ORDER BY provider, id");
  if (gpus) q.bind(1, ids);
  while (q.executeStep()) {
    InstanceType it;
    it.provider = q.getColumn(0).getString();
    it.id = q.getColumn(1).getString();
    it.family = q.getColumn(2).getString();
    it.gpu = q.getColumn(3).getString();  // NULL reads as ""
    it.gpu_count = decimal_col(q.getColumn(4), "instance_type");
    it.vcpu = opt_int_col(q.getColumn(5));
    it.ram_gb = opt_decimal_col(q.getColumn(6), "instance_type");
    it.local_disk_gb = opt_int_col(q.getColumn(7));
    it.local_disk_kind = q.getColumn(8).getString();
    it.notes = q.getColumn(9).getString();
    it.source = q.getColumn(10).getString();
    it.available_from = opt_instant_col(q.getColumn(11));
    it.retired_on = opt_instant_col(q.getColumn(12));
    auto found = attachable.find({it.provider, it.id});
    if (found != attachable.end()) it.attachable = std::move(found->second);
    out.instance_types.push_back(std::move(it));
  }
}

constexpr const char* kPriceColumns =
    "SELECT id, provider, subject_kind, subject, region, mode, unit, amount, currency, "
    "effective_from, effective_to, source, as_of FROM price ";
// The same columns with an empty source (SourceText::omitted): SQLite then neither copies it
// out nor does price_row allocate it.
constexpr const char* kPriceColumnsWithoutSource =
    "SELECT id, provider, subject_kind, subject, region, mode, unit, amount, currency, "
    "effective_from, effective_to, '', as_of FROM price ";
constexpr const char* kPriceOrder =
    " ORDER BY provider, subject_kind, subject, region, mode, effective_from";

PriceRow price_row(store::Statement& q) {
  PriceRow p;
  p.id = q.getColumn(0).getInt64();
  p.provider = q.getColumn(1).getString();
  p.subject_kind = std::string_view(q.getColumn(2).getText()) == "gpu" ? SubjectKind::gpu
                                                                       : SubjectKind::instance;
  p.subject = q.getColumn(3).getString();
  p.region = q.getColumn(4).getString();
  p.mode = mode_col(q.getColumn(5), "price");
  p.unit = decode("price", "unit", q.getColumn(6).getStringView(),
                  [](std::string_view s) { return parse_price_unit(s); });
  p.amount = Money(decimal_col(q.getColumn(7), "price"), currency_col(q.getColumn(8), "price"));
  p.period = period_cols(q.getColumn(9), q.getColumn(10));
  p.source = q.getColumn(11).getString();
  p.as_of = q.getColumn(12).getString();
  return p;
}

void read_prices(store::Connection& db, CatalogData& out, SourceText sources) {
  store::Statement count(db, "SELECT count(*) FROM price");
  out.prices.reserve(
      static_cast<std::size_t>(count.executeStep() ? count.getColumn(0).getInt64() : 0));
  store::Statement q(
      db, std::string(sources == SourceText::read ? kPriceColumns : kPriceColumnsWithoutSource) +
              kPriceOrder);
  while (q.executeStep()) out.prices.push_back(price_row(q));
}

// A price subject as one string, "provider|kind|subject", for the set of subjects read in full.
std::string subject_key(std::string_view provider, std::string_view kind,
                        std::string_view subject) {
  std::string k(provider);
  k += '|';
  k += kind;
  k += '|';
  k += subject;
  return k;
}

// Which price subjects a narrowed load reads in full: the instance types that have one of the
// GPUs built in or can take one, and those GPUs' own rows.
std::unordered_set<std::string> subjects_for(const CatalogData& data,
                                             const std::set<std::string>& gpu_ids) {
  std::unordered_set<std::string> out;
  for (const auto& it : data.instance_types) {
    bool takes = gpu_ids.count(it.gpu) > 0;
    for (const auto& a : it.attachable) {
      if (gpu_ids.count(a.gpu)) {
        takes = true;
        out.insert(subject_key(it.provider, "gpu", a.gpu));
      }
    }
    if (takes) out.insert(subject_key(it.provider, "instance", it.id));
  }
  return out;
}

// One slot of the prices a quote loads, in key order: a row read in full by its id (by the
// second query), or a key-only row made from the key columns (kept apart: a slot stays small,
// so the list of ten thousand slots grows without moving rows).
struct PriceSlot {
  std::int64_t id = 0;
  std::int32_t key_only = -1;  // index into PriceSlots::key_only, or -1: read in full
};

struct PriceSlots {
  std::vector<PriceSlot> slots;
  std::vector<PriceRow> key_only;
};

// The rows Catalog::load_around keeps, in one pass over the key index: per key, the rows in
// force at t; when none is, the last row that ended before t and the first that starts after
// it (for the reason a price is missing). Only integers and key text are read here. With
// `full`, a subject outside it gets one key-only row per region instead, made here.
// With `subjects` (provider, subject kind, subject; in key order), only those subjects' rows,
// each read by its own range of the key index.
using SubjectKeys = std::set<std::array<std::string, 3>>;
PriceSlots price_slots_around(store::Connection& db, std::int64_t t,
                              const std::unordered_set<std::string>* full,
                              const SubjectKeys* subjects = nullptr) {
  constexpr const char* kKeyColumns =
      "SELECT id, provider, subject_kind, subject, region, mode, effective_from, effective_to "
      "FROM price";
  store::Statement q(
      db, std::string(kKeyColumns) +
              (subjects ? " WHERE provider = ? AND subject_kind = ? AND subject = ?" : "") +
              kPriceOrder);
  PriceSlots out;
  std::vector<PriceSlot>& slots = out.slots;
  std::array<std::string, 5> key;
  bool any_in_force = false;
  constexpr std::int64_t kNone = -1;  // row ids are positive
  std::int64_t ended = kNone, next = kNone;
  const auto close_group = [&] {
    if (!any_in_force) {
      if (ended != kNone) slots.push_back({ended});
      if (next != kNone) slots.push_back({next});
    }
    any_in_force = false;
    ended = next = kNone;
  };
  bool first = true;
  bool subject_in_full = true;  // the current subject's rows are read in full
  bool region_stubbed = false;  // the current (subject, region) has its key-only row
  auto subject = subjects ? subjects->begin() : SubjectKeys::const_iterator();
  const auto next_row = [&] {
    if (!subjects) return q.executeStep();
    while (!q.executeStep()) {
      if (subject == subjects->end()) return false;
      q.reset();
      for (int c = 0; c < 3; ++c) q.bind(c + 1, (*subject)[static_cast<std::size_t>(c)]);
      ++subject;
    }
    return true;
  };
  if (subjects) {
    if (subject == subjects->end()) return out;
    for (int c = 0; c < 3; ++c) q.bind(c + 1, (*subject)[static_cast<std::size_t>(c)]);
    ++subject;
  }
  while (next_row()) {
    int changed = first ? 0 : 5;  // the first key column that differs from the previous row
    for (int c = 0; c < 5 && changed == 5; ++c) {
      if (key[static_cast<std::size_t>(c)] != q.getColumn(c + 1).getText()) changed = c;
    }
    if (changed < 5) {
      if (!first && subject_in_full) close_group();
      for (int c = changed; c < 5; ++c) {
        key[static_cast<std::size_t>(c)] = q.getColumn(c + 1).getText();
      }
      if (changed <= 2) {  // a new subject
        subject_in_full = !full || full->count(subject_key(key[0], key[1], key[2])) > 0;
      }
      if (changed <= 3) region_stubbed = false;
      first = false;
    }
    const std::int64_t id = q.getColumn(0).getInt64();
    const std::int64_t from = q.getColumn(6).getInt64();
    const auto to_col = q.getColumn(7);
    if (!subject_in_full) {
      if (!region_stubbed) {
        PriceRow row;
        row.id = id;
        row.provider = key[0];
        row.subject_kind = key[1] == "gpu" ? SubjectKind::gpu : SubjectKind::instance;
        row.subject = key[2];
        row.region = key[3];
        row.mode = mode_col(q.getColumn(5), "price");
        row.period = period_cols(q.getColumn(6), to_col);
        row.key_only = true;
        // Complete: not fetched again.
        slots.push_back({id, static_cast<std::int32_t>(out.key_only.size())});
        out.key_only.push_back(std::move(row));
        region_stubbed = true;
      }
      continue;
    }
    if (from > t) {
      if (next == kNone) next = id;
    } else if (to_col.isNull() || to_col.getInt64() > t) {
      slots.push_back({id});
      any_in_force = true;
    } else {
      ended = id;  // rows come in effective_from order: the last one seen is the latest
    }
  }
  if (!first && subject_in_full) close_group();
  return out;
}

}  // namespace

namespace {

// Puts the rows of `found` in `out.prices`, in slot order: key-only rows as they are, the others
// read in full by their ids.
void fetch_slots(store::Connection& db, CatalogData& out, PriceSlots& found) {
  const std::vector<PriceSlot>& slots = found.slots;
  // The rows go straight to their place in key order: `out.prices` is sized once.
  const std::size_t base = out.prices.size();
  out.prices.resize(base + slots.size());
  std::string list = "[";
  std::unordered_map<std::int64_t, std::size_t> position;
  position.reserve(slots.size());
  for (std::size_t i = 0; i < slots.size(); ++i) {
    if (slots[i].key_only >= 0) {
      out.prices[base + i] = std::move(found.key_only[static_cast<std::size_t>(slots[i].key_only)]);
      continue;
    }
    if (list.size() > 1) list += ',';
    list += std::to_string(slots[i].id);
    position.emplace(slots[i].id, base + i);
  }
  list += ']';
  // No ORDER BY: SQLite would sort the whole rows, source text and all, in a temporary B-tree.
  // The ids came in key order, so the rows are put back in that order here. The CAST: on
  // PostgreSQL the list's elements are text (json_array_elements_text); SQLite's are integers.
  store::Statement q(db, std::string(kPriceColumns) +
                             "WHERE id IN (SELECT CAST(value AS INTEGER) FROM json_each(?))");
  q.bind(1, list);
  std::size_t fetched = 0;
  while (q.executeStep()) {
    PriceRow row = price_row(q);
    out.prices[position.at(row.id)] = std::move(row);
    ++fetched;
  }
  if (fetched != position.size()) {
    // A row deleted between the two queries (outside a read transaction): drop its place.
    out.prices.erase(std::remove_if(out.prices.begin() + static_cast<std::ptrdiff_t>(base),
                                    out.prices.end(), [](const PriceRow& r) { return r.id == 0; }),
                     out.prices.end());
  }
}

}  // namespace

void read_prices_around(store::Connection& db, CatalogData& out, std::int64_t t,
                        const std::set<std::string>* priced_gpus) {
  std::unordered_set<std::string> full;
  if (priced_gpus) full = subjects_for(out, *priced_gpus);
  PriceSlots found = price_slots_around(db, t, priced_gpus ? &full : nullptr);
  fetch_slots(db, out, found);
}

void read_instance_types_carrying(store::Connection& db, CatalogData& out,
                                  const std::set<std::string>& gpus) {
  read_instance_types(db, out, &gpus);
  read_commitments(db, out, &gpus);
}

void read_prices_around_only(store::Connection& db, CatalogData& out, std::int64_t t,
                             const std::set<std::string>& priced_gpus) {
  SubjectKeys subjects;
  for (const auto& it : out.instance_types) {
    bool takes = priced_gpus.count(it.gpu) > 0;
    for (const auto& a : it.attachable) {
      if (priced_gpus.count(a.gpu)) {
        takes = true;
        subjects.insert({it.provider, "gpu", a.gpu});
      }
    }
    if (takes) subjects.insert({it.provider, "instance", it.id});
  }
  PriceSlots found = price_slots_around(db, t, nullptr, &subjects);
  fetch_slots(db, out, found);
}

namespace {

// Counts the rows write_catalog_data has written, for its progress reports ("import", rows):
// every kProgressEvery rows, and once at the end.
struct RowCounter {
  const ProgressSink& sink;
  std::uint64_t total = 0, done = 0;
  void add(std::uint64_t rows) {
    const std::uint64_t before = done;
    done += rows;
    if (sink && before / kProgressEvery != done / kProgressEvery) report();
  }
  void report() const {
    if (sink) sink({"import", done, total, "rows", static_cast<std::int64_t>(done), "rows"});
  }
};

void read_discounts(store::Connection& db, CatalogData& out) {
  store::Statement q(db,
                     "SELECT id, provider, family, mode, min_months, max_months, factor, "
                     "effective_from, effective_to, source, as_of FROM discount "
                     "ORDER BY provider, family, mode, min_months, effective_from");
  while (q.executeStep()) {
    DiscountRow d;
    d.id = q.getColumn(0).getInt64();
    d.provider = q.getColumn(1).getString();
    d.family = q.getColumn(2).getString();
    d.mode = mode_col(q.getColumn(3), "discount");
    d.min_months = q.getColumn(4).getInt();
    d.max_months = q.getColumn(5).getInt();
    d.factor = decimal_col(q.getColumn(6), "discount");
    d.period = period_cols(q.getColumn(7), q.getColumn(8));
    d.source = q.getColumn(9).getString();
    d.as_of = q.getColumn(10).getString();
    out.discounts.push_back(std::move(d));
  }
}

void read_resource_prices(store::Connection& db, const std::string& table,
                          std::vector<ResourcePriceRow>& out) {
  store::Statement q(db,
                     "SELECT id, provider, kind, mode, unit, amount, currency, effective_from, "
                     "effective_to, source, as_of FROM " +
                         table + " ORDER BY provider, kind, mode, effective_from");
  while (q.executeStep()) {
    ResourcePriceRow r;
    r.id = q.getColumn(0).getInt64();
    r.provider = q.getColumn(1).getString();
    r.kind = q.getColumn(2).getString();
    r.mode = mode_col(q.getColumn(3), table.c_str());
    r.unit = q.getColumn(4).getString();
    r.amount = Money(decimal_col(q.getColumn(5), table.c_str()),
                     currency_col(q.getColumn(6), table.c_str()));
    r.period = period_cols(q.getColumn(7), q.getColumn(8));
    r.source = q.getColumn(9).getString();
    r.as_of = q.getColumn(10).getString();
    out.push_back(std::move(r));
  }
}

void read_fx_rates(store::Connection& db, CatalogData& out) {
  store::Statement q(db,
                     "SELECT id, day, from_ccy, to_ccy, rate, source, as_of FROM fx_rate "
                     "ORDER BY day, from_ccy, to_ccy");
  while (q.executeStep()) {
    FxRate r;
    r.id = q.getColumn(0).getInt64();
    r.day = decode("fx_rate", "day", q.getColumn(1).getString(),
                   [](const std::string& s) { return parse_day(s); });
    r.from = currency_col(q.getColumn(2), "fx_rate");
    r.to = currency_col(q.getColumn(3), "fx_rate");
    r.rate = decimal_col(q.getColumn(4), "fx_rate");
    r.source = q.getColumn(5).getString();
    r.as_of = q.getColumn(6).getString();
    out.fx_rates.push_back(std::move(r));
  }
}

std::string join_list(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ",") + item;
  return out;
}

void read_policies(store::Connection& db, CatalogData& out) {
  store::Statement q(
      db,
      "SELECT id, provider, effective_from, effective_to, metering_granularity_seconds, "
      "settlement_period, settlement_rounding, settlement_decimals, min_charge_seconds_per_run, "
      "min_charge_per_lifetime, arrears_grace_hours, arrears_retention_hours, recycle_bin_days, "
      "auto_renew_days_before, auto_renew_local_time, auto_renew_months, "
      "prepaid_destroy_before_expiry, full_refund_days, stopped_payg_compute_charged, "
      "payg_available, source, as_of, disk_settlement_period, bandwidth_settlement_period, "
      "auto_renew_retry_daily, sustained_use_tiers, sustained_use_families, "
      "no_reason_return_limit, no_reason_return_limit_per, spot_max_run_hours, "
      "spot_protection_hours FROM policy "
      "ORDER BY provider, effective_from");
  while (q.executeStep()) {
    BillingPolicy p;
    p.id = q.getColumn(0).getInt64();
    p.provider = q.getColumn(1).getString();
    p.period = period_cols(q.getColumn(2), q.getColumn(3));
    p.metering_granularity_seconds = q.getColumn(4).getInt();
    const auto period = [](const std::string& text) { return parse_settlement_period(text); };
    p.settlement_period = decode("policy", "settlement_period", q.getColumn(5).getString(), period);
    p.settlement_rounding = decode("policy", "settlement_rounding", q.getColumn(6).getString(),
                                   [](const std::string& s) { return parse_rounding_mode(s); });
    p.settlement_decimals = q.getColumn(7).getInt();
    p.min_charge_seconds_per_run = q.getColumn(8).getInt();
    p.min_charge_per_lifetime = opt_decimal_col(q.getColumn(9), "policy");
    p.arrears_grace_hours = q.getColumn(10).getInt();
    p.arrears_retention_hours = q.getColumn(11).getInt();
    p.recycle_bin_days = q.getColumn(12).getInt();
    p.auto_renew_days_before = q.getColumn(13).getInt();
    if (!q.getColumn(14).isNull()) {
      p.auto_renew_local_time =
          decode("policy", "auto_renew_local_time", q.getColumn(14).getString(),
                 [](const std::string& s) { return parse_hh_mm(s); });
    }
    p.auto_renew_months = q.getColumn(15).getInt();
    p.prepaid_destroy_before_expiry = q.getColumn(16).getInt() != 0;
    p.full_refund_days = q.getColumn(17).getInt();
    p.stopped_payg_compute_charged = q.getColumn(18).getInt() != 0;
    p.payg_available = q.getColumn(19).getInt() != 0;
    p.source = q.getColumn(20).getString();
    p.as_of = q.getColumn(21).getString();
    if (!q.getColumn(22).isNull()) {
      p.disk_settlement_period =
          decode("policy", "disk_settlement_period", q.getColumn(22).getString(), period);
    }
    if (!q.getColumn(23).isNull()) {
      p.bandwidth_settlement_period =
          decode("policy", "bandwidth_settlement_period", q.getColumn(23).getString(), period);
    }
    p.auto_renew_retry_daily = q.getColumn(24).getInt() != 0;
    for (const auto& tier : split_list(q.getColumn(25).getString())) {
      p.sustained_use_tiers.push_back(
          decode("policy", "sustained_use_tiers", tier,
                 [](const std::string& t) { return Decimal::parse(t); }));
    }
    p.sustained_use_families = split_list(q.getColumn(26).getString());
    p.no_reason_return_limit = q.getColumn(27).getInt();
    p.no_reason_limit_per_year = q.getColumn(28).getString() != "account";
    p.spot_max_run_hours = q.getColumn(29).getInt();
    p.spot_protection_hours = q.getColumn(30).getInt();
    out.policies.push_back(std::move(p));
  }
}

// The prepaid lifecycle rules of every policy row read (issue 27 part A; policy_prepaid.hpp).
void read_prepaid_lifecycles(store::Connection& db, CatalogData& out) {
  store::Statement q(db, "SELECT id, prepaid_lifecycle FROM policy");
  std::map<std::int64_t, std::string> stored;
  while (q.executeStep()) {
    if (!q.getColumn(1).isNull()) stored[q.getColumn(0).getInt64()] = q.getColumn(1).getString();
  }
  for (auto& p : out.policies) {
    const auto it = stored.find(p.id);
    if (it != stored.end()) p.prepaid = stored_prepaid_lifecycle(it->second, p.id);
  }
}

// ---- writing -------------------------------------------------------------------------------

void write_providers(store::Connection& db, const CatalogData& data) {
  store::Statement q(
      db,
      "INSERT INTO provider(id, name, currency, billing_time_zone) "
      "VALUES(?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET name = excluded.name, "
      "currency = excluded.currency, billing_time_zone = excluded.billing_time_zone");
  for (const auto& p : data.providers) {
    q.bind(1, p.id);
    q.bind(2, p.name);
    q.bind(3, p.currency.to_string());
    q.bind(4, p.billing_time_zone);
    run(q);
  }
  store::Statement r(db,
                     "INSERT INTO region(provider, id, name) VALUES(?, ?, ?) "
                     "ON CONFLICT(provider, id) DO UPDATE SET name = excluded.name");
  for (const auto& g : data.regions) {
    r.bind(1, g.provider);
    r.bind(2, g.id);
    r.bind(3, g.name);
    run(r);
  }
}

void write_gpus(store::Connection& db, const CatalogData& data) {
  store::Statement q(
      db,
      "INSERT INTO gpu(id, vendor, architecture, fp64_tflops, fp32_tflops, fp16_tensor_tflops, "
      "int8_tops, memory_gb, memory_bandwidth_gbs, interconnect, interconnect_bandwidth_gbs, "
      "tdp_w, launch_price, launch_currency, source, units_per_board) "
      "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
      "ON CONFLICT(id) DO UPDATE SET vendor = excluded.vendor, architecture = "
      "excluded.architecture, fp64_tflops = excluded.fp64_tflops, fp32_tflops = "
      "excluded.fp32_tflops, fp16_tensor_tflops = excluded.fp16_tensor_tflops, int8_tops = "
      "excluded.int8_tops, memory_gb = excluded.memory_gb, memory_bandwidth_gbs = "
      "excluded.memory_bandwidth_gbs, interconnect = excluded.interconnect, "
      "interconnect_bandwidth_gbs = excluded.interconnect_bandwidth_gbs, tdp_w = excluded.tdp_w, "
      "launch_price = excluded.launch_price, launch_currency = excluded.launch_currency, "
      "source = excluded.source, units_per_board = excluded.units_per_board");
  store::Statement clear(db, "DELETE FROM gpu_alias WHERE gpu = ?");
  store::Statement alias(db,
                         "INSERT INTO gpu_alias(alias, gpu, position) VALUES(?, ?, ?) "
                         "ON CONFLICT(alias) DO UPDATE SET gpu = excluded.gpu, "
                         "position = excluded.position");
  for (const auto& g : data.gpus) {
    q.bind(1, g.id);
    q.bind(2, g.vendor);
    q.bind(3, g.architecture);
    bind_opt(q, 4, g.fp64_tflops);
    bind_opt(q, 5, g.fp32_tflops);
    bind_opt(q, 6, g.fp16_tensor_tflops);
    bind_opt(q, 7, g.int8_tops);
    bind_opt(q, 8, g.memory_gb);
    bind_opt(q, 9, g.memory_bandwidth_gbs);
    q.bind(10, g.interconnect);
    bind_opt(q, 11, g.interconnect_bandwidth_gbs);
    bind_opt(q, 12, g.tdp_w);
    if (g.launch_price) {
      q.bind(13, g.launch_price->amount().to_string());
      q.bind(14, g.launch_price->currency().to_string());
    } else {
      q.bind(13);
      q.bind(14);
    }
    q.bind(15, g.source);
    q.bind(16, g.units_per_board);
    run(q);
    clear.bind(1, g.id);
    run(clear);
    for (std::size_t i = 0; i < g.aliases.size(); ++i) {
      alias.bind(1, g.aliases[i]);
      alias.bind(2, g.id);
      alias.bind(3, static_cast<std::int64_t>(i + 1));
      run(alias);
    }
  }
}

void write_instance_types(store::Connection& db, const CatalogData& data) {
  store::Statement q(
      db,
      "INSERT INTO instance_type(provider, id, family, gpu, gpu_count, vcpu, ram_gb, "
      "local_disk_gb, local_disk_kind, notes, source, available_from, retired_on) "
      "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?) "
      "ON CONFLICT(provider, id) DO UPDATE SET family = excluded.family, gpu = excluded.gpu, "
      "gpu_count = excluded.gpu_count, vcpu = excluded.vcpu, ram_gb = excluded.ram_gb, "
      "local_disk_gb = excluded.local_disk_gb, local_disk_kind = excluded.local_disk_kind, "
      "notes = excluded.notes, source = excluded.source, "
      "available_from = excluded.available_from, retired_on = excluded.retired_on");
  store::Statement clear(db, "DELETE FROM attachable_gpu WHERE provider = ? AND instance_type = ?");
  store::Statement attach(db,
                          "INSERT OR IGNORE INTO attachable_gpu(provider, instance_type, gpu, "
                          "count, retired_on) VALUES(?, ?, ?, ?, ?)");
  for (const auto& it : data.instance_types) {
    q.bind(1, it.provider);
    q.bind(2, it.id);
    q.bind(3, it.family);
    if (it.gpu.empty()) {
      q.bind(4);
    } else {
      q.bind(4, it.gpu);
    }
    q.bind(5, it.gpu_count.to_string());
    bind_opt(q, 6, it.vcpu);
    bind_opt(q, 7, it.ram_gb);
    bind_opt(q, 8, it.local_disk_gb);
    q.bind(9, it.local_disk_kind);
    q.bind(10, it.notes);
    q.bind(11, it.source);
    bind_opt(q, 12, it.available_from);
    bind_opt(q, 13, it.retired_on);
    run(q);
    clear.bind(1, it.provider);
    clear.bind(2, it.id);
    run(clear);
    for (const auto& a : it.attachable) {
      for (int count : a.counts) {
        attach.bind(1, it.provider);
        attach.bind(2, it.id);
        attach.bind(3, a.gpu);
        attach.bind(4, count);
        bind_opt(attach, 5, a.retired_on);
        run(attach);
      }
    }
  }
}

void write_prices(store::Connection& db, const CatalogData& data, RowCounter& counter) {
  store::Statement q(
      db,
      "INSERT INTO price(provider, subject_kind, subject, region, mode, unit, amount, currency, "
      "effective_from, effective_to, source, as_of) VALUES(?,?,?,?,?,?,?,?,?,?,?,?) "
      "ON CONFLICT(provider, subject_kind, subject, region, mode, effective_from) DO UPDATE SET "
      "unit = excluded.unit, amount = excluded.amount, currency = excluded.currency, "
      "effective_to = excluded.effective_to, source = excluded.source, as_of = excluded.as_of");
  for (const auto& p : data.prices) {
    q.bind(1, p.provider);
    q.bind(2, std::string(to_string(p.subject_kind)));
    q.bind(3, p.subject);
    q.bind(4, p.region);
    q.bind(5, std::string(to_string(p.mode)));
    q.bind(6, std::string(to_string(p.unit)));
    q.bind(7, p.amount.amount().to_string());
    q.bind(8, p.amount.currency().to_string());
    bind_period(q, 9, p.period);
    q.bind(11, p.source);
    q.bind(12, p.as_of);
    run(q);
    counter.add(1);
  }
}

void write_discounts(store::Connection& db, const CatalogData& data) {
  store::Statement q(
      db,
      "INSERT INTO discount(provider, family, mode, min_months, max_months, factor, "
      "effective_from, effective_to, source, as_of) VALUES(?,?,?,?,?,?,?,?,?,?) "
      "ON CONFLICT(provider, family, mode, min_months, effective_from) DO UPDATE SET "
      "max_months = excluded.max_months, factor = excluded.factor, effective_to = "
      "excluded.effective_to, source = excluded.source, as_of = excluded.as_of");
  for (const auto& d : data.discounts) {
    q.bind(1, d.provider);
    q.bind(2, d.family);
    q.bind(3, std::string(to_string(d.mode)));
    q.bind(4, d.min_months);
    q.bind(5, d.max_months);
    q.bind(6, d.factor.to_string());
    bind_period(q, 7, d.period);
    q.bind(9, d.source);
    q.bind(10, d.as_of);
    run(q);
  }
}

void write_resource_prices(store::Connection& db, const std::string& table,
                           const std::vector<ResourcePriceRow>& rows) {
  store::Statement q(db, "INSERT INTO " + table +
                             "(provider, kind, mode, unit, amount, currency, effective_from, "
                             "effective_to, source, as_of) VALUES(?,?,?,?,?,?,?,?,?,?) "
                             "ON CONFLICT(provider, kind, mode, effective_from) DO UPDATE SET "
                             "unit = excluded.unit, amount = excluded.amount, currency = "
                             "excluded.currency, effective_to = excluded.effective_to, "
                             "source = excluded.source, as_of = excluded.as_of");
  for (const auto& r : rows) {
    q.bind(1, r.provider);
    q.bind(2, r.kind);
    q.bind(3, std::string(to_string(r.mode)));
    q.bind(4, r.unit);
    q.bind(5, r.amount.amount().to_string());
    q.bind(6, r.amount.currency().to_string());
    bind_period(q, 7, r.period);
    q.bind(9, r.source);
    q.bind(10, r.as_of);
    run(q);
  }
}

void write_fx_rates(store::Connection& db, const CatalogData& data) {
  store::Statement q(db,
                     "INSERT INTO fx_rate(day, from_ccy, to_ccy, rate, source, as_of) "
                     "VALUES(?,?,?,?,?,?) ON CONFLICT(day, from_ccy, to_ccy) DO UPDATE SET "
                     "rate = excluded.rate, source = excluded.source, as_of = excluded.as_of");
  for (const auto& r : data.fx_rates) {
    q.bind(1, format_day(r.day));
    q.bind(2, r.from.to_string());
    q.bind(3, r.to.to_string());
    q.bind(4, r.rate.to_string());
    q.bind(5, r.source);
    q.bind(6, r.as_of);
    run(q);
  }
}

void write_policies(store::Connection& db, const CatalogData& data) {
  store::Statement q(
      db,
      "INSERT INTO policy(provider, effective_from, effective_to, metering_granularity_seconds, "
      "settlement_period, settlement_rounding, settlement_decimals, min_charge_seconds_per_run, "
      "min_charge_per_lifetime, arrears_grace_hours, arrears_retention_hours, recycle_bin_days, "
      "auto_renew_days_before, auto_renew_local_time, auto_renew_months, "
      "prepaid_destroy_before_expiry, full_refund_days, stopped_payg_compute_charged, "
      "payg_available, source, as_of, disk_settlement_period, bandwidth_settlement_period, "
      "auto_renew_retry_daily, sustained_use_tiers, sustained_use_families, "
      "no_reason_return_limit, no_reason_return_limit_per, spot_max_run_hours, "
      "spot_protection_hours) "
      "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) "
      "ON CONFLICT(provider, effective_from) DO UPDATE SET effective_to = excluded.effective_to, "
      "metering_granularity_seconds = excluded.metering_granularity_seconds, settlement_period "
      "= excluded.settlement_period, settlement_rounding = excluded.settlement_rounding, "
      "settlement_decimals = excluded.settlement_decimals, min_charge_seconds_per_run = "
      "excluded.min_charge_seconds_per_run, min_charge_per_lifetime = "
      "excluded.min_charge_per_lifetime, arrears_grace_hours = excluded.arrears_grace_hours, "
      "arrears_retention_hours = excluded.arrears_retention_hours, recycle_bin_days = "
      "excluded.recycle_bin_days, auto_renew_days_before = excluded.auto_renew_days_before, "
      "auto_renew_local_time = excluded.auto_renew_local_time, auto_renew_months = "
      "excluded.auto_renew_months, prepaid_destroy_before_expiry = "
      "excluded.prepaid_destroy_before_expiry, full_refund_days = excluded.full_refund_days, "
      "stopped_payg_compute_charged = excluded.stopped_payg_compute_charged, payg_available = "
      "excluded.payg_available, source = excluded.source, as_of = excluded.as_of, "
      "disk_settlement_period = excluded.disk_settlement_period, bandwidth_settlement_period = "
      "excluded.bandwidth_settlement_period, auto_renew_retry_daily = "
      "excluded.auto_renew_retry_daily, sustained_use_tiers = excluded.sustained_use_tiers, "
      "sustained_use_families = excluded.sustained_use_families, no_reason_return_limit = "
      "excluded.no_reason_return_limit, no_reason_return_limit_per = "
      "excluded.no_reason_return_limit_per, spot_max_run_hours = excluded.spot_max_run_hours, "
      "spot_protection_hours = excluded.spot_protection_hours");
  for (const auto& p : data.policies) {
    q.bind(1, p.provider);
    bind_period(q, 2, p.period);
    q.bind(4, p.metering_granularity_seconds);
    q.bind(5, std::string(to_string(p.settlement_period)));
    q.bind(6, std::string(to_string(p.settlement_rounding)));
    q.bind(7, p.settlement_decimals);
    q.bind(8, p.min_charge_seconds_per_run);
    bind_opt(q, 9, p.min_charge_per_lifetime);
    q.bind(10, p.arrears_grace_hours);
    q.bind(11, p.arrears_retention_hours);
    q.bind(12, p.recycle_bin_days);
    q.bind(13, p.auto_renew_days_before);
    if (p.auto_renew_local_time) {
      q.bind(14, format_hh_mm(*p.auto_renew_local_time));
    } else {
      q.bind(14);
    }
    q.bind(15, p.auto_renew_months);
    q.bind(16, p.prepaid_destroy_before_expiry ? 1 : 0);
    q.bind(17, p.full_refund_days);
    q.bind(18, p.stopped_payg_compute_charged ? 1 : 0);
    q.bind(19, p.payg_available ? 1 : 0);
    q.bind(20, p.source);
    q.bind(21, p.as_of);
    const auto bind_period_opt = [&](int i, const std::optional<SettlementPeriod>& v) {
      if (v) {
        q.bind(i, std::string(to_string(*v)));
      } else {
        q.bind(i);
      }
    };
    bind_period_opt(22, p.disk_settlement_period);
    bind_period_opt(23, p.bandwidth_settlement_period);
    q.bind(24, p.auto_renew_retry_daily ? 1 : 0);
    std::vector<std::string> tiers;
    for (const auto& t : p.sustained_use_tiers) tiers.push_back(t.to_string());
    q.bind(25, join_list(tiers));
    q.bind(26, join_list(p.sustained_use_families));
    q.bind(27, p.no_reason_return_limit);
    q.bind(28, std::string(p.no_reason_limit_per_year ? "year" : "account"));
    q.bind(29, p.spot_max_run_hours);
    q.bind(30, p.spot_protection_hours);
    run(q);
  }
}

// The prepaid lifecycle rules of the rows write_policies wrote (NULL = the defaults).
void write_prepaid_lifecycles(store::Connection& db, const CatalogData& data) {
  store::Statement q(db,
                     "UPDATE policy SET prepaid_lifecycle = ? WHERE provider = ? AND "
                     "effective_from = ?");
  for (const auto& p : data.policies) {
    const std::string text = prepaid_lifecycle_json(p.prepaid);
    if (text.empty()) {
      q.bind(1);
    } else {
      q.bind(1, text);
    }
    q.bind(2, p.provider);
    q.bind(3, static_cast<int64_t>(seconds_of(p.period.from)));
    run(q);
  }
}

}  // namespace

std::chrono::minutes parse_hh_mm(std::string_view text) {
  if (text.size() != 5 || text[2] != ':' || !std::isdigit(static_cast<unsigned char>(text[0])) ||
      !std::isdigit(static_cast<unsigned char>(text[1])) ||
      !std::isdigit(static_cast<unsigned char>(text[3])) ||
      !std::isdigit(static_cast<unsigned char>(text[4]))) {
    throw ParseError("expected HH:MM");
  }
  const int h = (text[0] - '0') * 10 + (text[1] - '0');
  const int m = (text[3] - '0') * 10 + (text[4] - '0');
  if (h > 23 || m > 59) throw ParseError("hour or minute out of range");
  return std::chrono::minutes{h * 60 + m};
}

std::string format_hh_mm(std::chrono::minutes m) {
  const auto total = m.count();
  std::string out(5, '0');
  out[0] = static_cast<char>('0' + total / 600);
  out[1] = static_cast<char>('0' + (total / 60) % 10);
  out[2] = ':';
  out[3] = static_cast<char>('0' + (total % 60) / 10);
  out[4] = static_cast<char>('0' + total % 10);
  return out;
}

CatalogData read_catalog_data(store::Connection& db, std::optional<Instant> prices_around,
                              PriceLoad prices, const std::set<std::string>* type_gpus,
                              SourceText sources) {
  try {
    CatalogData out;
    read_providers(db, out);
    read_gpus(db, out);
    read_instance_types(db, out, type_gpus);
    if (prices == PriceLoad::rows && prices_around) {
      read_prices_around(db, out, prices_around->time_since_epoch().count(), nullptr);
    } else if (prices == PriceLoad::rows) {
      read_prices(db, out, sources);
    }  // PriceLoad::none: the caller reads them (read_prices_around)
    read_discounts(db, out);
    read_resource_prices(db, "disk_price", out.disk_prices);
    read_resource_prices(db, "bandwidth_price", out.bandwidth_prices);
    read_fx_rates(db, out);
    read_policies(db, out);
    read_metering_policy_fields(db, out.policies);
    read_prepaid_lifecycles(db, out);
    read_commitments(db, out, type_gpus, sources == SourceText::read);
    return out;
  } catch (const store::SqlError& e) {
    throw StoreError(std::string("cannot read the catalog: ") + e.what());
  }
}

void write_catalog_data(store::Connection& db, const CatalogData& data,
                        const ProgressSink& progress) {
  const ImportReport n = count_rows(data);
  RowCounter counter{progress, n.total()};
  try {
    write_providers(db, data);
    counter.add(n.providers + n.regions);
    write_gpus(db, data);
    counter.add(n.gpus);
    write_instance_types(db, data);
    counter.add(n.instance_types);
    write_prices(db, data, counter);  // most of the rows: counted one by one
    write_discounts(db, data);
    write_resource_prices(db, "disk_price", data.disk_prices);
    write_resource_prices(db, "bandwidth_price", data.bandwidth_prices);
    write_fx_rates(db, data);
    write_policies(db, data);
    write_metering_policy_fields(db, data.policies);
    write_prepaid_lifecycles(db, data);
    write_commitments(db, data);
    counter.add(n.commitments + n.discounts + n.disk_prices + n.bandwidth_prices + n.fx_rates +
                n.policies);
    counter.report();
  } catch (const store::SqlError& e) {
    throw StoreError(std::string("cannot write the catalog: ") + e.what());
  }
}

Catalog Catalog::load(Database& db) {
  return Catalog(read_catalog_data(connection(db)));
}

Catalog Catalog::load_for_billing(Database& db) {
  return Catalog(read_catalog_data(connection(db), std::nullopt, PriceLoad::rows, nullptr,
                                   SourceText::omitted));
}

Catalog Catalog::load_around(Database& db, Instant t) {
  return Catalog(read_catalog_data(connection(db), t));
}

std::optional<Instant> latest_price_date(Database& db) {
  try {
    store::Statement q(connection(db), "SELECT max(effective_from) FROM price");
    if (!q.executeStep() || q.getColumn(0).isNull()) return std::nullopt;
    return Instant{std::chrono::seconds{q.getColumn(0).getInt64()}};
  } catch (const store::SqlError& e) {
    throw StoreError(std::string("cannot read the catalog: ") + e.what());
  }
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    out.push_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

}  // namespace gpubill
