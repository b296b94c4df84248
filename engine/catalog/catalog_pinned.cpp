// Settled bills pinned to the catalog rows they used (catalog_pinned.hpp).
#include "catalog/catalog_pinned.hpp"

#include <algorithm>
#include <memory>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "catalog/catalog_store.hpp"
#include "gpubill/base/errors.hpp"
#include "store/connection.hpp"

namespace gpubill {

namespace {

std::int64_t seconds(Instant t) {
  return static_cast<std::int64_t>(t.time_since_epoch().count());
}

// How the charges of a stored row are found, and its key columns.
struct Table {
  const char* table;
  const char* section;
  const char* uses;  // SELECT id, count(*), accounts FROM charge … GROUP BY id
  const char* key;   // WHERE clause over the key columns, bound in order
};

const Table kPrice{"price", "prices",
                   "SELECT price_id, count(*), group_concat(DISTINCT account) FROM charge WHERE "
                   "price_id IS NOT NULL AND component NOT IN ('system_disk', 'data_disk', "
                   "'bandwidth') GROUP BY price_id",
                   "provider = ? AND subject_kind = ? AND subject = ? AND region = ? AND mode = ? "
                   "AND effective_from = ?"};
const Table kDisk{"disk_price", "disk_prices",
                  "SELECT price_id, count(*), group_concat(DISTINCT account) FROM charge WHERE "
                  "price_id IS NOT NULL AND component IN ('system_disk', 'data_disk') GROUP BY "
                  "price_id",
                  "provider = ? AND kind = ? AND mode = ? AND effective_from = ?"};
const Table kBandwidth{"bandwidth_price", "bandwidth_prices",
                       "SELECT price_id, count(*), group_concat(DISTINCT account) FROM charge "
                       "WHERE price_id IS NOT NULL AND component = 'bandwidth' GROUP BY price_id",
                       "provider = ? AND kind = ? AND mode = ? AND effective_from = ?"};
const Table kDiscount{"discount", "discounts",
                      "SELECT discount_id, count(*), group_concat(DISTINCT account) FROM charge "
                      "WHERE discount_id IS NOT NULL GROUP BY discount_id",
                      "provider = ? AND family = ? AND mode = ? AND min_months = ? AND "
                      "effective_from = ?"};
const Table kPolicy{"policy", "policies",
                    "SELECT policy_id, count(*), group_concat(DISTINCT account) FROM charge WHERE "
                    "policy_id IS NOT NULL GROUP BY policy_id",
                    "provider = ? AND effective_from = ?"};

// "b,a,b" → "a,b": group_concat(DISTINCT …) lists in no specified order, on either backend.
std::string sorted_list(const std::string& text) {
  auto items = split_list(text);
  std::sort(items.begin(), items.end());
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ",") + item;
  return out;
}

struct Use {
  std::int64_t lines = 0;
  std::string accounts;
};

std::unordered_map<std::int64_t, Use> uses_of(store::Connection& db, const Table& t) {
  std::unordered_map<std::int64_t, Use> out;
  store::Statement q(db, t.uses);
  while (q.executeStep()) {
    out[q.getColumn(0).getInt64()] = {q.getColumn(1).getInt64(),
                                      sorted_list(q.getColumn(2).getString())};
  }
  return out;
}

// Every column of one stored row, as text (NULL = nullopt), and the columns' names.
void read_row(store::Connection& db, const std::string& table, std::int64_t id,
              std::vector<std::string>& columns, std::vector<std::optional<std::string>>& values) {
  store::Statement q(db, "SELECT * FROM " + table + " WHERE id = ?");
  q.bind(1, static_cast<int64_t>(id));
  columns.clear();
  values.clear();
  if (!q.executeStep()) return;
  for (int c = 0; c < q.getColumnCount(); ++c) {
    columns.emplace_back(q.getColumnName(c));
    values.push_back(q.getColumn(c).isNull() ? std::nullopt
                                             : std::optional(q.getColumn(c).getString()));
  }
}

// A private in-memory SQLite database with this gpubill's schema (its migrations, whatever the
// backend of the database checked) and foreign keys off, for an import's rows on their own.
std::unique_ptr<store::Connection> scratch_catalog() {
  auto c = store::Connection::open(":memory:");
  store::migrate(*c);
  c->exec("PRAGMA foreign_keys = OFF");
  return c;
}

// Columns that price nothing: provenance may be corrected in place.
bool compared(const std::string& column) {
  return column != "id" && column != "source" && column != "as_of";
}

// A stored value as a person reads it: instants (unix seconds in the database) in RFC 3339.
std::string shown(const std::string& column, const std::optional<std::string>& v) {
  if (!v) return "(none)";
  if (column == "effective_from" || column == "effective_to") {
    return format_instant(Instant{std::chrono::seconds{std::stoll(*v)}});
  }
  return *v;
}

// "field old → new" for each of `fields` that differs, comma-separated.
std::string changes_of(const std::vector<std::tuple<const char*, std::string, std::string>>& fields,
                       std::string& first_field) {
  std::string out;
  for (const auto& [name, before, after] : fields) {
    if (before == after) continue;
    if (first_field.empty()) first_field = name;
    out += (out.empty() ? "" : ", ") + std::string(name) + " " +
           (before.empty() ? "(none)" : before) + " → " + (after.empty() ? "(none)" : after);
  }
  return out;
}

std::string attachable_text(const InstanceType& it) {
  std::string out;
  for (const auto& a : it.attachable) {
    out += (out.empty() ? "" : " ") + a.gpu + ":";
    for (int n : a.counts) out += std::to_string(n) + ",";
  }
  return out;
}

}  // namespace

PinnedRows::PinnedRows(store::Connection& db, const CatalogData& data) : db_(db) {
  // What the import would write, written to a scratch database (nothing is written to `db`, so
  // that a validation on a read-only database checks the same).
  std::unique_ptr<store::Connection> scratch;
  const auto written = [&]() -> store::Connection& {
    if (!scratch) {
      scratch = scratch_catalog();
      write_catalog_data(*scratch, data);
    }
    return *scratch;
  };
  const auto scan = [&](const Table& t, std::size_t count, auto bind_key) {
    if (count == 0) return;
    const auto uses = uses_of(db, t);
    if (uses.empty()) return;
    const std::string find_sql = std::string("SELECT id FROM ") + t.table + " WHERE " + t.key;
    store::Statement find(db, find_sql);
    for (std::size_t i = 0; i < count; ++i) {
      find.reset();
      find.clearBindings();
      bind_key(find, i);
      if (!find.executeStep()) continue;
      const std::int64_t id = find.getColumn(0).getInt64();
      const auto use = uses.find(id);
      if (use == uses.end()) continue;
      Pinned p{t.table, t.section, i, id, use->second.lines, use->second.accounts, {}, {}, {}};
      read_row(db, t.table, id, p.columns, p.values);
      store::Statement again(written(), find_sql);
      bind_key(again, i);
      std::vector<std::string> columns;
      if (again.executeStep()) {
        read_row(written(), t.table, again.getColumn(0).getInt64(), columns, p.imported);
      }
      pinned_.push_back(std::move(p));
    }
    find.reset();
  };
  scan(kPrice, data.prices.size(), [&](store::Statement& q, std::size_t i) {
    const PriceRow& p = data.prices[i];
    q.bind(1, p.provider);
    q.bind(2, std::string(to_string(p.subject_kind)));
    q.bind(3, p.subject);
    q.bind(4, p.region);
    q.bind(5, std::string(to_string(p.mode)));
    q.bind(6, static_cast<int64_t>(seconds(p.period.from)));
  });
  const auto resource = [&](const std::vector<ResourcePriceRow>& rows) {
    return [&rows](store::Statement& q, std::size_t i) {
      q.bind(1, rows[i].provider);
      q.bind(2, rows[i].kind);
      q.bind(3, std::string(to_string(rows[i].mode)));
      q.bind(4, static_cast<int64_t>(seconds(rows[i].period.from)));
    };
  };
  scan(kDisk, data.disk_prices.size(), resource(data.disk_prices));
  scan(kBandwidth, data.bandwidth_prices.size(), resource(data.bandwidth_prices));
  scan(kDiscount, data.discounts.size(), [&](store::Statement& q, std::size_t i) {
    const DiscountRow& d = data.discounts[i];
    q.bind(1, d.provider);
    q.bind(2, d.family);
    q.bind(3, std::string(to_string(d.mode)));
    q.bind(4, d.min_months);
    q.bind(5, static_cast<int64_t>(seconds(d.period.from)));
  });
  scan(kPolicy, data.policies.size(), [&](store::Statement& q, std::size_t i) {
    q.bind(1, data.policies[i].provider);
    q.bind(2, static_cast<int64_t>(seconds(data.policies[i].period.from)));
  });
}

std::vector<std::string> PinnedRows::check_unchanged(const std::string& file,
                                                     const RowPlaces& places, bool restore) const {
  std::vector<std::string> notes;
  for (const Pinned& p : pinned_) {
    std::string changes, first_field;
    for (std::size_t c = 0; c < p.columns.size() && c < p.imported.size(); ++c) {
      if (!compared(p.columns[c]) || p.imported[c] == p.values[c]) continue;
      if (first_field.empty()) first_field = p.columns[c];
      changes += (changes.empty() ? "" : ", ") + p.columns[c] + " " +
                 shown(p.columns[c], p.values[c]) + " → " + shown(p.columns[c], p.imported[c]);
    }
    if (changes.empty()) continue;
    const std::string what = p.table + " row " + std::to_string(p.id) + " prices " +
                             std::to_string(p.uses) + " settled charge lines (accounts " +
                             p.accounts + ")";
    if (!restore) {
      const RowPlace at = places(p.section, p.row, first_field);
      throw InputError(file, at.place, at.field,
                       what + " and cannot change in place (" + changes +
                           "): give the new values a later effective_from, which supersedes the "
                           "row from then on, and run `gpubill rebuild` to re-price the past");
    }
    std::string assignments;
    for (std::size_t c = 0; c < p.columns.size(); ++c) {
      if (!compared(p.columns[c])) continue;
      assignments += (assignments.empty() ? "" : ", ") + p.columns[c] + " = ?";
    }
    store::Statement put(db_, "UPDATE " + p.table + " SET " + assignments + " WHERE id = ?");
    int k = 0;
    for (std::size_t c = 0; c < p.columns.size(); ++c) {
      if (!compared(p.columns[c])) continue;
      if (p.values[c]) {
        put.bind(++k, *p.values[c]);
      } else {
        put.bind(++k);
      }
    }
    put.bind(++k, static_cast<int64_t>(p.id));
    put.exec();
    notes.push_back(what + ": kept as settled, not changed to " + changes);
  }
  return notes;
}

std::vector<std::string> check_redefinitions(store::Connection& db, const CatalogData& data,
                                             const CatalogData& known, const std::string& file,
                                             const RowPlaces& places, bool redefine) {
  std::vector<std::string> notes;
  const auto settle = [&](std::string_view section, std::size_t i, const std::string& what,
                          const std::string& changes, const std::string& field, const Use& use) {
    const std::string used = what + " is used by " + std::to_string(use.lines) +
                             " settled charge lines (accounts " + use.accounts + ")";
    if (!redefine) {
      const RowPlace at = places(section, i, field);
      throw InputError(file, at.place, at.field,
                       used + "; re-declaring it changes " + changes +
                           ": pass --redefine to change it, then `gpubill rebuild` re-prices them");
    }
    notes.push_back("redefined " + what + ": " + changes + "; " + used +
                    ", not re-priced until `gpubill rebuild`");
  };
  if (!data.providers.empty()) {
    std::map<std::string, Use> uses;
    store::Statement q(db,
                       "SELECT provider, count(*), group_concat(DISTINCT account) FROM charge "
                       "GROUP BY provider");
    while (q.executeStep()) {
      uses[q.getColumn(0).getString()] = {q.getColumn(1).getInt64(),
                                          sorted_list(q.getColumn(2).getString())};
    }
    for (std::size_t i = 0; i < data.providers.size(); ++i) {
      const Provider& p = data.providers[i];
      const auto use = uses.find(p.id);
      if (use == uses.end()) continue;
      for (const Provider& k : known.providers) {
        if (k.id != p.id) continue;
        std::string field;
        const std::string changes =
            changes_of({{"currency", k.currency.to_string(), p.currency.to_string()},
                        {"billing_time_zone", k.billing_time_zone, p.billing_time_zone}},
                       field);
        if (!changes.empty())
          settle("providers", i, "provider " + p.id, changes, field, use->second);
      }
    }
  }
  if (data.instance_types.empty()) return notes;
  std::map<std::pair<std::string, std::string>, Use> uses;
  store::Statement q(db,
                     "SELECT provider, instance_type, count(*), group_concat(DISTINCT account) "
                     "FROM charge WHERE instance_type <> '' GROUP BY provider, instance_type");
  while (q.executeStep()) {
    uses[{q.getColumn(0).getString(), q.getColumn(1).getString()}] = {
        q.getColumn(2).getInt64(), sorted_list(q.getColumn(3).getString())};
  }
  for (std::size_t i = 0; i < data.instance_types.size(); ++i) {
    const InstanceType& it = data.instance_types[i];
    const auto use = uses.find({it.provider, it.id});
    if (use == uses.end()) continue;
    for (const InstanceType& k : known.instance_types) {
      if (k.provider != it.provider || k.id != it.id) continue;
      std::string field;
      const std::string changes =
          changes_of({{"gpu", k.gpu, it.gpu},
                      {"gpu_count", k.gpu_count.to_string(), it.gpu_count.to_string()},
                      {"family", k.family, it.family},
                      {"attachable_gpus", attachable_text(k), attachable_text(it)}},
                     field);
      if (!changes.empty()) {
        settle("instance_types", i, "instance type " + it.provider + " " + it.id, changes, field,
               use->second);
      }
    }
  }
  return notes;
}

}  // namespace gpubill
