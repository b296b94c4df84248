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

#include "catalog/catalog_bounds.hpp"
#include "catalog/catalog_import_check.hpp"
#include "catalog/catalog_pinned.hpp"
#include "catalog/catalog_settled.hpp"
#include "catalog/catalog_store.hpp"
#include "gpubill/base/errors.hpp"
#include "gpubill/base/input_file.hpp"
#include "store/embedded_data.hpp"
#include "store/store.hpp"

namespace gpubill {

namespace {

// Runs `work` inside one IMMEDIATE transaction (taking the write lock up front, so two gpubill
// processes importing at once queue instead of failing), committing only when `commit`.
template <typename Work>
auto in_transaction(Database& database, bool commit, Work work) {
  auto& db = connection(database);
  try {
    ScopedTempStoreInMemory statement_journals(db);  // set outside the transaction
    store::Transaction tx(db, store::Transaction::Kind::write, "catalog import");
    auto result = work(db);
    if (commit) tx.commit();  // otherwise rolled back by the destructor
    return result;
  } catch (const store::SqlError& e) {
    throw StoreError(std::string("catalog import failed: ") + e.what());
  }
}

// The checks every import makes once its rows are read, and the write: the rows' bounds, their
// references, re-declared providers and instance types, and (after writing) the pinned rows.
ImportReport check_and_write(store::Connection& db, const CatalogData& data,
                             const CatalogData& known, const std::string& path,
                             const RowPlaces& places, const ImportOptions& options, bool commit) {
  check_catalog_bounds(data, path, places, options.not_after);
  check_catalog_references(data, known, path);
  ImportReport report = count_rows(data);
  report.file = path;
  report.notes = check_redefinitions(db, data, known, path, places, options.redefine);
  (void)PinnedRows(db, data).check_unchanged(path, places, false);
  if (commit) {
    write_catalog_data(db, data, options.progress);
    for (auto& n : settled_charges_affected(db, data.prices)) report.notes.push_back(std::move(n));
  }
  apply_catalog_check(db, data, commit, options.force, report);
  return report;
}

ImportReport import_json(Database& database, const std::string& path, bool commit,
                         const ImportOptions& options) {
  const CatalogData data = parse_catalog_json(read_input_file(path), path);
  return in_transaction(database, commit, [&](store::Connection& db) {
    return check_and_write(db, data, read_catalog_data(db), path, json_row_places(), options,
                           commit);
  });
}

// SkyPilot rows came from lines of the CSV and from the command line's options.
RowPlaces skypilot_places(const SkyPilotImport& result, const SkyPilotOptions& options) {
  return [&result, &options](std::string_view section, std::size_t row, std::string_view field) {
    if (field == "as_of") return RowPlace{"", "--as-of"};
    if (field == "effective_from") {
      return RowPlace{"", options.effective_from ? "--effective-from" : "--as-of"};
    }
    if (section == "prices" && row < result.price_lines.size()) {
      const bool spot = result.data.prices[row].mode == BillingMode::spot;
      return RowPlace{"line " + std::to_string(result.price_lines[row]),
                      field == "amount" ? (spot ? "SpotPrice" : "Price") : std::string(field)};
    }
    return RowPlace{"", std::string(field)};
  };
}

ImportReport import_skypilot(Database& database, const std::string& path,
                             const SkyPilotOptions& options, bool commit,
                             const ImportOptions& import) {
  const std::string text = read_input_file(path);
  return in_transaction(database, commit, [&](store::Connection& db) {
    const Catalog catalog(read_catalog_data(db));
    SkyPilotImport result = parse_skypilot_csv(text, path, options, catalog);
    // What the catalog already describes stays as it is; SkyPilot adds prices.
    auto& types = result.data.instance_types;
    const auto before = types.size();
    std::erase_if(types, [&](const InstanceType& it) {
      return catalog.find_instance_type(it.provider, it.id) != nullptr;
    });
    std::vector<std::string> notes = std::move(result.notes);
    if (types.size() != before) {
      notes.push_back("kept the catalog's description of " + std::to_string(before - types.size()) +
                      " instance types already there; added their prices");
    }
    std::set<std::pair<std::string, std::string>> known_regions;
    for (const auto& r : catalog.data().regions) known_regions.emplace(r.provider, r.id);
    std::erase_if(result.data.regions, [&](const Region& r) {
      return known_regions.count({r.provider, r.id}) > 0;
    });
    ImportReport report = check_and_write(db, result.data, catalog.data(), path,
                                          skypilot_places(result, options), import, commit);
    notes.insert(notes.end(), report.notes.begin(), report.notes.end());
    report.notes = std::move(notes);
    return report;
  });
}

// Converted rows name their own places; other fields have none.
RowPlaces converted_places(const ConvertedRows& rows) {
  return [&rows](std::string_view section, std::size_t row, std::string_view field) {
    if (section == "prices" && row < rows.places.size()) {
      return RowPlace{rows.places[row], std::string(field)};
    }
    return RowPlace{"", std::string(field)};
  };
}

}  // namespace

std::size_t ImportReport::total() const noexcept {
  return providers + regions + gpus + instance_types + prices + discounts + disk_prices +
         bandwidth_prices + fx_rates + policies + commitments;
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
  r.commitments = d.commitments.size();
  return r;
}

ImportReport import_catalog_file(Database& db, const std::string& path,
                                 const ProgressSink& progress) {
  ImportOptions options;
  options.progress = progress;
  return import_json(db, path, true, options);
}

ImportReport import_catalog_file(Database& db, const std::string& path,
                                 const ImportOptions& options) {
  return import_json(db, path, true, options);
}

ImportReport validate_catalog_file(Database& db, const std::string& path,
                                   const ImportOptions& options) {
  return import_json(db, path, false, options);
}

ImportReport import_skypilot_file(Database& db, const std::string& path,
                                  const SkyPilotOptions& options, const ProgressSink& progress) {
  ImportOptions import;
  import.progress = progress;
  return import_skypilot(db, path, options, true, import);
}

ImportReport import_skypilot_file(Database& db, const std::string& path,
                                  const SkyPilotOptions& options, const ImportOptions& import) {
  return import_skypilot(db, path, options, true, import);
}

ImportReport validate_skypilot_file(Database& db, const std::string& path,
                                    const SkyPilotOptions& options, const ImportOptions& import) {
  return import_skypilot(db, path, options, false, import);
}

ImportReport import_converted_rows(Database& database, const std::string& name,
                                   const std::function<ConvertedRows(const Catalog&)>& convert,
                                   const ImportOptions& options, bool commit) {
  return in_transaction(database, commit, [&](store::Connection& db) {
    const Catalog catalog(read_catalog_data(db));
    const ConvertedRows rows = convert(catalog);
    ImportReport report = check_and_write(db, rows.data, catalog.data(), name,
                                          converted_places(rows), options, commit);
    std::vector<std::string> notes = rows.notes;
    notes.insert(notes.end(), report.notes.begin(), report.notes.end());
    report.notes = std::move(notes);
    return report;
  });
}

std::string bundled_catalog_hash() {
  return std::string(embedded::catalog_digest());
}

bool bundled_catalog_is_current(Database& database) {
  try {
    return read_meta(connection(database), "bundled_catalog") == bundled_catalog_hash();
  } catch (const store::SqlError& e) {
    throw StoreError(std::string("cannot read the database's meta table: ") + e.what());
  }
}

bool ensure_bundled_catalog(Database& database) {
  if (bundled_catalog_is_current(database)) return false;
  const std::string hash = bundled_catalog_hash();
  ScopedCacheSize cache(connection(database));
  bool loaded = false;
  in_transaction(database, true, [&](store::Connection& conn) {
    if (read_meta(conn, "bundled_catalog") == hash) return 0;  // another process was first
    loaded = true;
    // What later files may refer to: read once, then grown file by file (re-reading the
    // database before each file made the first load quadratic in the catalog's size).
    CatalogData known = read_catalog_data(conn);
    for (const auto& f : embedded::catalog_files()) {
      const std::string name = "fixtures/catalog/" + f.name + " (bundled)";
      CatalogData data = parse_trusted_catalog_json(f.text, name);
      check_catalog_references(data, known, name);
      const PinnedRows pinned(conn, data);
      write_catalog_data(conn, data);
      (void)pinned.check_unchanged(name, json_row_places(), true);
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
