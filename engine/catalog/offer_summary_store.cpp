// Storing the offer summary (migration 0015, offer_summary.hpp): its text, the catalog version
// it was built at, and whether the catalog changed since.
#include "catalog/offer_summary_store.hpp"

#include "catalog/catalog_store.hpp"
#include "gpubill/base/errors.hpp"
#include "gpubill/catalog/offer_summary.hpp"
#include "store/store.hpp"

namespace gpubill {

namespace {

constexpr char kField = '\x1f';  // names are checked text: no control characters
constexpr char kRecord = '\n';

struct CatalogStamp {
  std::int64_t version = 0;
  bool dirty = true;
};

CatalogStamp read_stamp(store::Connection& db) {
  store::Statement q(db, "SELECT version, dirty FROM catalog_stamp WHERE one = 1");
  if (!q.executeStep()) return {};
  return {q.getColumn(0).getInt64(), q.getColumn(1).getInt() != 0};
}

// The summary's text: "R<provider><region>" per price region, then
// "G<provider><region><family><gpu><offers><example type><example attached>" per group,
// fields separated by kField, records ended by kRecord.
std::string encode_summary(const UnloadedOffers& s) {
  std::string out;
  const auto field = [&](std::string_view v) {
    out += kField;
    out += v;
  };
  if (s.latest_price_from) {
    out += 'L';
    field(std::to_string(s.latest_price_from->time_since_epoch().count()));
    out += kRecord;
  }
  for (const auto& [provider, region] : s.price_regions) {
    out += 'R';
    field(provider);
    field(region);
    out += kRecord;
  }
  for (const auto& g : s.groups) {
    out += 'G';
    for (const std::string* v : {&g.provider, &g.region, &g.family, &g.gpu}) field(*v);
    field(std::to_string(g.offers));
    field(g.example_type);
    field(std::to_string(g.example_attached));
    out += kRecord;
  }
  return out;
}

std::vector<std::string_view> split_summary_fields(std::string_view record) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= record.size(); ++i) {
    if (i == record.size() || record[i] == kField) {
      out.push_back(record.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

std::size_t summary_count(std::string_view text) {
  std::size_t n = 0;
  for (char c : text) {
    if (c < '0' || c > '9') throw StoreError("the offer summary is corrupt (a count)");
    n = n * 10 + static_cast<std::size_t>(c - '0');
  }
  return n;
}

UnloadedOffers decode_summary(std::string_view body) {
  UnloadedOffers s;
  std::size_t start = 0;
  while (start < body.size()) {
    const std::size_t end = body.find(kRecord, start);
    if (end == std::string_view::npos) throw StoreError("the offer summary is corrupt (no end)");
    const auto f = split_summary_fields(body.substr(start, end - start));
    start = end + 1;
    if (f.size() == 2 && f[0] == "L") {
      const bool negative = !f[1].empty() && f[1][0] == '-';
      const auto magnitude = static_cast<std::int64_t>(summary_count(f[1].substr(negative)));
      s.latest_price_from = Instant{std::chrono::seconds{negative ? -magnitude : magnitude}};
    } else if (f.size() == 3 && f[0] == "R") {
      s.price_regions.emplace_back(std::string(f[1]), std::string(f[2]));
    } else if (f.size() == 8 && f[0] == "G") {
      OfferGroup g{std::string(f[1]),
                   std::string(f[2]),
                   std::string(f[3]),
                   std::string(f[4]),
                   summary_count(f[5]),
                   std::string(f[6]),
                   static_cast<int>(summary_count(f[7]))};
      s.groups.push_back(std::move(g));
    } else {
      throw StoreError("the offer summary is corrupt (a record)");
    }
  }
  return s;
}

// The catalog an offer summary is made from: every row but prices, and per price subject one
// key-only row per region (its offers and their regions, no price).
Catalog offers_only(store::Connection& db) {
  CatalogData data = read_catalog_data(db, std::nullopt, PriceLoad::none);
  const std::set<std::string> none;
  read_prices_around(db, data, 0, &none);
  return Catalog(std::move(data));
}

}  // namespace

std::optional<UnloadedOffers> read_offer_summary(store::Connection& db) {
  const CatalogStamp stamp = read_stamp(db);
  if (stamp.dirty) return std::nullopt;
  store::Statement q(db, "SELECT version, body FROM quote_offer_summary WHERE one = 1");
  if (!q.executeStep() || q.getColumn(0).getInt64() != stamp.version) return std::nullopt;
  return decode_summary(q.getColumn(1).getBlob());  // read once per quote: a copy is nothing
}

bool offer_summary_is_current(Database& db) {
  try {
    store::Connection& sql = connection(db);
    const CatalogStamp stamp = read_stamp(sql);
    if (stamp.dirty) return false;
    store::Statement q(sql, "SELECT version FROM quote_offer_summary WHERE one = 1");
    return q.executeStep() && q.getColumn(0).getInt64() == stamp.version;
  } catch (const store::SqlError& e) {
    throw StoreError(std::string("cannot read the offer summary: ") + e.what());
  }
}

bool refresh_offer_summary(Database& db, const OfferSummarizer& summarize) {
  store::Connection& sql = connection(db);
  try {
    store::Transaction tx(sql, store::Transaction::Kind::write, "offer summary");
    const CatalogStamp stamp = read_stamp(sql);
    if (!stamp.dirty) {
      store::Statement q(sql, "SELECT version FROM quote_offer_summary WHERE one = 1");
      if (q.executeStep() && q.getColumn(0).getInt64() == stamp.version) return false;
    }
    const Catalog catalog = offers_only(sql);
    UnloadedOffers summary = summarize(catalog);
    std::set<std::pair<std::string, std::string>> regions;
    for (const auto& p : catalog.data().prices) {
      if (!p.region.empty()) regions.emplace(p.provider, p.region);
    }
    summary.price_regions.assign(regions.begin(), regions.end());
    store::Statement latest(sql, "SELECT max(effective_from) FROM price");
    if (latest.executeStep() && !latest.getColumn(0).isNull()) {
      summary.latest_price_from = Instant{std::chrono::seconds{latest.getColumn(0).getInt64()}};
    }
    const std::string body = encode_summary(summary);
    store::Statement w(sql,
                       "INSERT INTO quote_offer_summary (one, version, body) VALUES (1, ?, ?) "
                       "ON CONFLICT (one) DO UPDATE SET version = excluded.version, "
                       "body = excluded.body");
    w.bind(1, static_cast<int64_t>(stamp.version));
    w.bindBlob(2, body);
    w.exec();
    store::Statement(sql, "UPDATE catalog_stamp SET dirty = 0 WHERE one = 1").exec();
    tx.commit();
    return true;
  } catch (const store::SqlError& e) {
    throw StoreError(std::string("cannot build the offer summary: ") + e.what());
  }
}

}  // namespace gpubill
