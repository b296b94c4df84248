// Importing catalog files into the database: reading the file, checking it against the
// database, and writing it in one transaction. Also loads the bundled catalog on first use.
#include "gpubill/catalog/catalog_import.hpp"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

#include "catalog/catalog_import_check.hpp"
#include "catalog/catalog_settled.hpp"
#include "catalog/catalog_store.hpp"
#include "gpubill/base/errors.hpp"
#include "gpubill/base/input_file.hpp"
#include "store/embedded_data.hpp"
#include "store/store.hpp"
#include "store/write_transaction.hpp"

namespace gpubill {

namespace {

// Runs `work` inside one IMMEDIATE transaction (taking the write lock up front, so two gpubill
// processes importing at once queue instead of failing), committing only when `commit`.
template <typename Work>
auto in_transaction(Database& database, bool commit, Work work) {
  auto& db = sqlite(database);
  try {
    WriteTransaction tx(db, database.path(), "catalog import");
    auto result = work(db);
    if (commit) tx.commit();  // otherwise rolled back by the destructor
    return result;
  } catch (const SQLite::Exception& e) {
    throw StoreError(std::string("catalog import failed: ") + e.what());
  }
}

ImportReport import_json(Database& database, const std::string& path, bool commit,
                         const ProgressSink& progress = {}, bool force = false) {
  const CatalogData data = parse_catalog_json(read_input_file(path), path);
  return in_transaction(database, commit, [&](SQLite::Database& db) {
    check_catalog_references(data, read_catalog_data(db), path);
    if (commit) write_catalog_data(db, data, progress);
    ImportReport report = count_rows(data);
    report.file = path;
    if (commit) report.notes = settled_charges_affected(db, data.prices);
    apply_catalog_check(db, data, commit, force, report);
    return report;
  });
}

ImportReport import_skypilot(Database& database, const std::string& path,
                             const SkyPilotOptions& options, bool commit,
                             const ProgressSink& progress = {}, bool force = false) {
  const std::string text = read_input_file(path);
  return in_transaction(database, commit, [&](SQLite::Database& db) {
    const Catalog catalog(read_catalog_data(db));
    SkyPilotImport result = parse_skypilot_csv(text, path, options, catalog);
    // What the catalog already describes stays as it is; SkyPilot adds prices.
    auto& types = result.data.instance_types;
    const auto before = types.size();
    std::erase_if(types, [&](const InstanceType& it) {
      return catalog.find_instance_type(it.provider, it.id) != nullptr;
    });
    if (types.size() != before) {
      result.notes.push_back("kept the catalog's description of " +
                             std::to_string(before - types.size()) +
                             " instance types already there; added their prices");
    }
    std::set<std::pair<std::string, std::string>> known_regions;
    for (const auto& r : catalog.data().regions) known_regions.emplace(r.provider, r.id);
    std::erase_if(result.data.regions, [&](const Region& r) {
      return known_regions.count({r.provider, r.id}) > 0;
    });
    check_catalog_references(result.data, catalog.data(), path);
    if (commit) write_catalog_data(db, result.data, progress);
    ImportReport report = count_rows(result.data);
    report.file = path;
    report.notes = std::move(result.notes);
    if (commit) {
      for (auto& n : settled_charges_affected(db, result.data.prices)) {
        report.notes.push_back(std::move(n));
      }
    }
    apply_catalog_check(db, result.data, commit, force, report);
    return report;
  });
}

}  // namespace

std::size_t ImportReport::total() const noexcept {
  return providers + regions + gpus + instance_types + prices + discounts + disk_prices +
         bandwidth_prices + fx_rates + policies;
}

ImportReport count_rows(const CatalogData& d) {
  ImportReport r;
  r.providers = d.providers.size();
  r.regions = d.regions.size();
  r.gpus = d.gpus.size();
  r.instance_types = d.instance_types.size();
  r.prices = d.prices.size();
  r.discounts = d.discounts.size();
  r.disk_prices = d.disk_prices.size();
  r.bandwidth_prices = d.bandwidth_prices.size();
  r.fx_rates = d.fx_rates.size();
  r.policies = d.policies.size();
  return r;
}

ImportReport import_catalog_file(Database& db, const std::string& path,
                                 const ProgressSink& progress, bool force) {
  return import_json(db, path, true, progress, force);
}

ImportReport validate_catalog_file(Database& db, const std::string& path, bool force) {
  return import_json(db, path, false, {}, force);
}

ImportReport import_skypilot_file(Database& db, const std::string& path,
                                  const SkyPilotOptions& options, const ProgressSink& progress,
                                  bool force) {
  return import_skypilot(db, path, options, true, progress, force);
}

ImportReport validate_skypilot_file(Database& db, const std::string& path,
                                    const SkyPilotOptions& options, bool force) {
  return import_skypilot(db, path, options, false, {}, force);
}

std::string bundled_catalog_hash() {
  return std::string(embedded::catalog_digest());
}

bool bundled_catalog_is_current(Database& database) {
  try {
    return read_meta(sqlite(database), "bundled_catalog") == bundled_catalog_hash();
  } catch (const SQLite::Exception& e) {
    throw StoreError(std::string("cannot read the database's meta table: ") + e.what());
  }
}

bool ensure_bundled_catalog(Database& database) {
  if (bundled_catalog_is_current(database)) return false;
  const std::string hash = bundled_catalog_hash();
  ScopedCacheSize cache(sqlite(database));
  bool loaded = false;
  in_transaction(database, true, [&](SQLite::Database& conn) {
    if (read_meta(conn, "bundled_catalog") == hash) return 0;  // another process was first
    loaded = true;
    // What later files may refer to: read once, then grown file by file (re-reading the
    // database before each file made the first load quadratic in the catalog's size).
    CatalogData known = read_catalog_data(conn);
    for (const auto& f : embedded::catalog_files()) {
      const std::string name = "fixtures/catalog/" + f.name + " (bundled)";
      CatalogData data = parse_trusted_catalog_json(f.text, name);
      check_catalog_references(data, known, name);
      write_catalog_data(conn, data);
      std::move(data.providers.begin(), data.providers.end(), std::back_inserter(known.providers));
      std::move(data.regions.begin(), data.regions.end(), std::back_inserter(known.regions));
      std::move(data.gpus.begin(), data.gpus.end(), std::back_inserter(known.gpus));
      std::move(data.instance_types.begin(), data.instance_types.end(),
                std::back_inserter(known.instance_types));
    }
    write_meta(conn, "bundled_catalog", hash);
    return 0;
  });
  return loaded;
}

}  // namespace gpubill
