// gpubill catalog gpus | offers | show | import | validate (fetch: cmd_catalog_fetch.cpp).
#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>

#include <unistd.h>

#include "commands.hpp"
#include "gpubill/base/errors.hpp"
#include "gpubill/catalog/catalog.hpp"
#include "gpubill/catalog/catalog_import.hpp"
#include "gpubill/catalog/catalog_offers.hpp"
#include "gpubill/catalog/offer_summary.hpp"
#include "gpubill/catalog/provenance.hpp"
#include "gpubill/quote/quote.hpp"
#include "gpubill/store/target.hpp"
#include "output.hpp"
#include "progress_bar.hpp"

namespace gpubill::cli {

namespace {

std::string opt_text(const std::optional<Decimal>& d) {
  return d ? d->to_string() : "";
}

std::string opt_text(const std::optional<int>& i) {
  return i ? std::to_string(*i) : "";
}

std::string period_end(const Effective& p) {
  return p.to ? format_instant(*p.to) : "";
}

std::string region_text(const std::string& region) {
  return region.empty() ? "*" : region;
}

// ---- catalog gpus ------------------------------------------------------------------------

int run_gpus(const Globals& globals, Format format) {
  auto db = globals.open_database(Access::read);
  const auto catalog = Catalog::load(db);
  Table t{{{"id"},
           {"aliases"},
           {"vendor"},
           {"architecture"},
           {"fp64_tflops", true},
           {"fp32_tflops", true},
           {"fp16_tensor_tflops", true},
           {"int8_tops", true},
           {"memory_gb", true},
           {"memory_bandwidth_gbs", true},
           {"interconnect"},
           {"tdp_w", true},
           {"launch_price", true},
           {"launch_price_currency"},
           int_column("units_per_board")},
          {}};
  for (const auto& g : catalog.data().gpus) {
    std::string aliases;
    for (const auto& a : g.aliases) aliases += (aliases.empty() ? "" : "; ") + a;
    t.add_row({g.id, aliases, g.vendor, g.architecture, opt_text(g.fp64_tflops),
               opt_text(g.fp32_tflops), opt_text(g.fp16_tensor_tflops), opt_text(g.int8_tops),
               opt_text(g.memory_gb), opt_text(g.memory_bandwidth_gbs), g.interconnect,
               opt_text(g.tdp_w), g.launch_price ? g.launch_price->amount().to_string() : "",
               g.launch_price ? g.launch_price->currency().to_string() : "",
               std::to_string(g.units_per_board)});
  }
  write_table(std::cout, t, format);
  return 0;
}

// ---- catalog offers ----------------------------------------------------------------------

struct OffersArgs {
  std::string provider, gpu, mode, region;
  std::optional<std::string> at;
  Format format = Format::table;
};

std::string sources_of(const Offer& o) {
  std::string out;
  for (const auto* r : o.rows) out += (out.empty() ? "" : " + ") + r->source;
  return out;
}

int run_offers(const Globals& globals, const OffersArgs& args) {
  auto db = globals.open_database(Access::read);
  const auto catalog = Catalog::load(db);
  OfferFilter filter;
  check_provider_flag(catalog, args.provider);
  filter.provider = args.provider;
  filter.region = args.region;
  filter.gpus = gpu_flag(catalog, args.gpu);
  filter.mode = mode_flag(args.mode);
  filter.at = instant_flag("--at", args.at);
  // A terminal too narrow leaves out the as-of date and source tag first; provider, region,
  // type and GPU are never cut.
  Table t{{id_column("provider"),
           id_column("region"),
           id_column("type"),
           id_column("gpu"),
           {"gpu_count", true},
           int_column("vcpu"),
           {"ram_gb", true},
           {"mode"},
           {"price", true},
           {"currency"},
           {"unit"},
           droppable({"as_of"}, 2),
           droppable({"src"}, 1),
           // Text: each distinct source once, numbered under the table (they are long).
           args.format == Format::table ? notes_column("source") : Column{"source"}},
          {}};
  for (const auto& o : list_offers(catalog, filter)) {
    const auto& it = *o.instance_type;
    t.add_row({it.provider, region_text(o.region), o.name, o.gpu,
               o.gpu.empty() ? "" : o.gpu_count.to_string(), opt_text(it.vcpu), opt_text(it.ram_gb),
               o.mode ? std::string(to_string(*o.mode)) : "",
               o.price ? o.price->amount().to_string() : "unknown",
               o.price ? o.price->currency().to_string() : "",
               o.price ? std::string(to_string(o.unit)) : "", o.as_of,
               o.rows.empty() ? "" : std::string(to_string(o.source_tag)), sources_of(o)});
  }
  write_table(std::cout, t, args.format);
  return 0;
}

// ---- catalog show ------------------------------------------------------------------------

struct ShowArgs {
  std::string type, provider;
  std::optional<std::string> at;
  Format format = Format::table;
};

const InstanceType& find_type(const Catalog& catalog, const ShowArgs& args) {
  if (!args.provider.empty()) {
    flag_value("--provider", [&] { (void)catalog.provider(args.provider); });
    if (const auto* it = catalog.find_instance_type(args.provider, args.type)) return *it;
    throw NotFound("provider '" + args.provider + "' has no instance type '" + args.type + "'");
  }
  std::vector<const InstanceType*> found;
  for (const auto& it : catalog.data().instance_types) {
    if (it.id == args.type) found.push_back(&it);
  }
  if (found.size() == 1) return *found.front();
  if (found.empty()) throw NotFound("no provider has an instance type '" + args.type + "'");
  std::string providers;
  for (const auto* it : found) providers += (providers.empty() ? "" : ", ") + it->provider;
  throw NotFound("instance type '" + args.type + "' exists for " + providers +
                 "; choose one with --provider");
}

Table spec_table(const InstanceType& it) {
  std::string attachable;
  for (const auto& a : it.attachable) {
    std::string counts;
    for (int c : a.counts) counts += (counts.empty() ? "" : ",") + std::to_string(c);
    attachable += (attachable.empty() ? "" : "; ") + a.gpu + " \u00d7 " + counts;
  }
  return record_table({{"provider", it.provider},
                       {"id", it.id},
                       {"family", it.family},
                       {"gpu", it.gpu},
                       {"gpu_count", it.gpu.empty() ? "" : it.gpu_count.to_string()},
                       {"vcpu", opt_text(it.vcpu), Kind::integer},
                       {"ram_gb", opt_text(it.ram_gb)},
                       {"local_disk_gb", opt_text(it.local_disk_gb)},
                       {"local_disk_kind", it.local_disk_kind},
                       {"attachable_gpus", attachable},
                       {"notes", it.notes},
                       {"source", it.source}});
}

Table prices_table(const Catalog& catalog, const InstanceType& it) {
  Table t{{{"subject"},
           {"region"},
           {"mode"},
           {"price", true},
           {"currency"},
           {"unit"},
           {"effective_from"},
           {"effective_to"},
           {"as_of"},
           {"source"}},
          {}};
  const auto add = [&](SubjectKind kind, const std::string& subject, const std::string& label) {
    for (const auto* r : catalog.prices_of(it.provider, kind, subject)) {
      t.add_row({label, region_text(r->region), std::string(to_string(r->mode)),
                 r->amount.amount().to_string(), r->amount.currency().to_string(),
                 std::string(to_string(r->unit)), format_instant(r->period.from),
                 period_end(r->period), r->as_of, r->source});
    }
  };
  add(SubjectKind::instance, it.id, it.id);
  for (const auto& a : it.attachable) add(SubjectKind::gpu, a.gpu, "per GPU " + a.gpu);
  return t;
}

const BillingPolicy* policy_for(const Catalog& catalog, const std::string& provider,
                                const std::optional<std::string>& at) {
  if (const auto t = instant_flag("--at", at)) return catalog.policy_at(provider, *t);
  const BillingPolicy* latest = nullptr;  // no date: the newest policy row
  for (const auto& p : catalog.data().policies) {
    if (p.provider == provider && (!latest || p.period.from > latest->period.from)) latest = &p;
  }
  return latest;
}

std::string hh_mm(std::chrono::minutes m) {
  const auto two = [](long v) { return std::string(v < 10 ? "0" : "") + std::to_string(v); };
  return two(m.count() / 60) + ":" + two(m.count() % 60);
}

Table policy_table(const BillingPolicy* p) {
  if (!p) return record_table({});
  const auto yes_no = [](bool b) { return std::string(b ? "yes" : "no"); };
  return record_table(
      {{"effective_from", format_instant(p->period.from)},
       {"effective_to", period_end(p->period)},
       {"metering_granularity_seconds", std::to_string(p->metering_granularity_seconds),
        Kind::integer},
       {"settlement_period", std::string(to_string(p->settlement_period))},
       {"disk_settlement_period",
        std::string(to_string(p->settlement_period_of(MeteredResource::disk)))},
       {"bandwidth_settlement_period",
        std::string(to_string(p->settlement_period_of(MeteredResource::bandwidth)))},
       {"settlement_rounding", std::string(to_string(p->settlement_rounding))},
       {"settlement_decimals", std::to_string(p->settlement_decimals), Kind::integer},
       {"min_charge_seconds_per_run", std::to_string(p->min_charge_seconds_per_run), Kind::integer},
       {"disk_min_charge_seconds", std::to_string(p->disk_min_charge_seconds), Kind::integer},
       {"spot_interrupted_free_seconds", std::to_string(p->spot_interrupted_free_seconds),
        Kind::integer},
       {"min_charge_per_lifetime", opt_text(p->min_charge_per_lifetime)},
       {"arrears_grace_hours", std::to_string(p->arrears_grace_hours), Kind::integer},
       {"arrears_retention_hours", std::to_string(p->arrears_retention_hours), Kind::integer},
       {"recycle_bin_days", std::to_string(p->recycle_bin_days), Kind::integer},
       {"auto_renew_days_before", std::to_string(p->auto_renew_days_before), Kind::integer},
       {"auto_renew_local_time",
        p->auto_renew_local_time ? hh_mm(*p->auto_renew_local_time) : "at expiry"},
       {"auto_renew_months", std::to_string(p->auto_renew_months), Kind::integer},
       {"auto_renew_retry_daily", yes_no(p->auto_renew_retry_daily)},
       {"prepaid_destroy_before_expiry", yes_no(p->prepaid_destroy_before_expiry)},
       {"full_refund_days", std::to_string(p->full_refund_days), Kind::integer},
       {"spot_max_run_hours", std::to_string(p->spot_max_run_hours), Kind::integer},
       {"spot_protection_hours", std::to_string(p->spot_protection_hours), Kind::integer},
       {"spot_price_basis", std::string(to_string(p->spot_price_basis))},
       {"quote_month_hours", std::to_string(p->quote_month_hours), Kind::integer},
       {"no_reason_return_limit",
        p->no_reason_return_limit == 0
            ? std::string("no limit")
            : std::to_string(p->no_reason_return_limit) +
                  (p->no_reason_limit_per_year ? " per calendar year" : " per account")},
       {"stopped_payg_compute_charged", yes_no(p->stopped_payg_compute_charged)},
       {"payg_available", yes_no(p->payg_available)},
       {"as_of", p->as_of},
       {"source", p->source}});
}

int run_show(const Globals& globals, const ShowArgs& args) {
  auto db = globals.open_database(Access::read);
  const auto catalog = Catalog::load(db);
  const auto& it = find_type(catalog, args);
  write_sections(std::cout,
                 {{"instance_type", spec_table(it)},
                  {"prices", prices_table(catalog, it)},
                  {"policy", policy_table(policy_for(catalog, it.provider, args.at))}},
                 args.format, "prices");
  return 0;
}

// ---- catalog import / validate -----------------------------------------------------------

struct ImportArgs {
  std::string file, provider, as_of, effective_from, source;
  bool skypilot = false;
  bool quiet = false;     // no progress bar
  bool redefine = false;  // may change providers and instance types that settled bills use
  bool force = false;     // import even when catalog check fails, listing each violation
  Format format = Format::table;
};

// The bounds and pinning of an import (catalog_import.hpp). The one place the catalog import
// reads the wall clock: a row dated more than a year ahead is a typo (prices are announced
// weeks or months ahead, not years).
ImportOptions import_options(const ImportArgs& args, const ProgressSink& progress) {
  ImportOptions options;
  options.not_after = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now()) +
                      std::chrono::days{366};
  options.redefine = args.redefine;
  options.progress = progress;
  options.force = args.force;
  return options;
}

// The rows a report counts, by kind: (kind, rows), every kind, in the file's section order.
std::vector<std::pair<std::string, std::size_t>> rows_by_kind(const ImportReport& r) {
  return {{"providers", r.providers},
          {"regions", r.regions},
          {"gpus", r.gpus},
          {"instance_types", r.instance_types},
          {"prices", r.prices},
          {"discounts", r.discounts},
          {"disk_prices", r.disk_prices},
          {"bandwidth_prices", r.bandwidth_prices},
          {"fx_rates", r.fx_rates},
          {"policies", r.policies},
          {"commitments", r.commitments}};
}

// --format csv: one row per kind of row.
Table rows_table(const ImportReport& r) {
  Table t{{{"kind"}, int_column("rows")}, {}};
  for (const auto& [kind, n] : rows_by_kind(r)) t.add_row({kind, std::to_string(n)});
  return t;
}

// --format json: what was imported or validated, or the error that stopped it (docs/schemas/
// catalog-import.schema.json).
nlohmann::ordered_json import_json(const std::string& file, bool write, const ImportReport* r,
                                   const InputError* error) {
  using ojson = nlohmann::ordered_json;
  ojson errors = ojson::array();
  if (error) {
    // "line 12" is a line; any other place is a JSON pointer ("/prices/3") or empty.
    const std::string& place = error->place();
    const bool line = place.rfind("line ", 0) == 0 &&
                      place.find_first_not_of("0123456789", 5) == std::string::npos &&
                      place.size() > 5 && place.size() < 15;
    errors.push_back({{"file", error->file()},
                      {"place", place.empty() ? ojson() : ojson(place)},
                      {"line", line ? ojson(std::stoll(place.substr(5))) : ojson()},
                      {"field", error->field().empty() ? ojson() : ojson(error->field())},
                      {"message", error->reason()}});
  }
  ojson rows = ojson::array();
  if (r) {
    for (const auto& [kind, n] : rows_by_kind(*r)) rows.push_back({{"kind", kind}, {"rows", n}});
  }
  return with_schema_version({{"file", r ? r->file : file},
                              {"written", write && r != nullptr},
                              {"valid", r != nullptr},
                              {"total_rows", r ? r->total() : 0},
                              {"rows", rows},
                              {"notes", r ? r->notes : std::vector<std::string>{}},
                              {"errors", errors}});
}

void print_report(const ImportReport& r, const char* verb) {
  std::string counts;
  const auto add = [&](std::size_t n, const char* what) {
    if (n) counts += (counts.empty() ? "" : ", ") + std::to_string(n) + " " + what;
  };
  add(r.providers, "providers");
  add(r.regions, "regions");
  add(r.gpus, "GPUs");
  add(r.instance_types, "instance types");
  add(r.prices, "prices");
  add(r.discounts, "discounts");
  add(r.disk_prices, "disk prices");
  add(r.bandwidth_prices, "bandwidth prices");
  add(r.fx_rates, "FX rates");
  add(r.policies, "policies");
  add(r.commitments, "commitments");
  std::cout << r.file << ": " << verb << " " << (counts.empty() ? "no rows" : counts) << "\n";
  for (const auto& n : r.notes) std::cout << "note: " << n << "\n";
}

void write_report(const ImportReport& r, const ImportArgs& args, bool write) {
  switch (args.format) {
    case Format::json:
      std::cout << json_text(import_json(args.file, write, &r, nullptr)) << "\n";
      break;
    case Format::csv:
      write_table(std::cout, rows_table(r), args.format);
      break;
    case Format::table:
      print_report(r, write ? "imported" : "valid,");
      break;
  }
}

ImportReport import_file(Database& db, const ImportArgs& args, bool write) {
  const bool csv = args.skypilot || std::filesystem::path(args.file).extension() == ".csv";
  if (!csv) {
    if (!args.provider.empty() || !args.as_of.empty() || !args.effective_from.empty() ||
        !args.source.empty()) {
      throw ParseError(
          "--provider, --as-of, --effective-from and --source apply to SkyPilot .csv "
          "files only (a JSON catalog file carries them in its rows)");
    }
    ProgressBar bar(args.quiet || !write);
    auto report = write ? import_catalog_file(db, args.file, import_options(args, bar.sink()))
                        : validate_catalog_file(db, args.file, import_options(args, {}));
    bar.finish();
    return report;
  }
  if (args.as_of.empty()) {
    throw ParseError("a SkyPilot catalog needs --as-of DATE (the date the file was taken)");
  }
  SkyPilotOptions options;
  options.provider = args.provider;
  options.as_of = args.as_of;
  options.source = args.source;
  if (!args.effective_from.empty()) {
    options.effective_from = parse_instant(args.effective_from, /*allow_date=*/true);
  }
  ProgressBar bar(args.quiet || !write);
  auto report = write
                    ? import_skypilot_file(db, args.file, options, import_options(args, bar.sink()))
                    : validate_skypilot_file(db, args.file, options, import_options(args, {}));
  bar.finish();
  return report;
}

int run_import(const Globals& globals, const ImportArgs& args, bool write) {
  auto db = globals.open_database(write ? Access::write : Access::read);
  try {
    const ImportReport report = import_file(db, args, write);
    if (write) globals.keep_offer_summary_current(db);
    write_report(report, args, write);
  } catch (const InputError& e) {
    // JSON names the error too; the message and the exit status stay those of any error.
    if (args.format == Format::json) {
      std::cout << json_text(import_json(args.file, write, nullptr, &e)) << "\n";
    }
    throw;
  }
  return 0;
}

CLI::App* add_import_like(CLI::App& catalog, Globals& globals, Action& action, const char* name,
                          const char* help, bool write) {
  auto* sub = catalog.add_subcommand(name, help);
  auto args = std::make_shared<ImportArgs>();
  sub->add_option("FILE", args->file, "A JSON catalog file, or a SkyPilot vms.csv")
      ->required()
      ->check(CLI::ExistingFile);
  sub->add_flag("--skypilot", args->skypilot,
                "Read FILE as a SkyPilot vms.csv (implied by a .csv extension)");
  sub->add_option("--provider", args->provider,
                  "SkyPilot: the provider id the rows belong to (aws, google; default: inferred "
                  "from the zone names)");
  sub->add_option("--as-of", args->as_of, "SkyPilot: date of the file's prices (YYYY-MM-DD)");
  sub->add_option("--effective-from", args->effective_from,
                  "SkyPilot: when the prices take effect (date or RFC 3339; default: --as-of)");
  sub->add_option("--source", args->source,
                  "SkyPilot: provenance written on every row (default: the file name)");
  sub->add_flag("--redefine", args->redefine,
                "Allow changing the currency or time zone of a provider, or the GPUs or family of "
                "an instance type, that settled bills use (each change is listed; `gpubill "
                "rebuild` re-prices the bills)");
  if (write) add_quiet_option(*sub, args->quiet);
  sub->add_flag("--force", args->force,
                "Import even when `catalog check` then fails; each violation is listed");
  add_format_option(*sub, args->format);
  add_db_option(*sub, globals);
  sub->callback([&globals, &action, args, write] {
    action = [&globals, args, write] { return run_import(globals, *args, write); };
  });
  return sub;
}

// Whether gpubill may write the database at `path` and create files beside it (WAL's -shm):
// a read on a database it may not write uses the database as it is.
bool writable(const std::string& path) {
  const auto dir = std::filesystem::path(path).parent_path();
  return ::access(path.c_str(), W_OK) == 0 && ::access(dir.empty() ? "." : dir.c_str(), W_OK) == 0;
}

// A PostgreSQL database (docs/postgresql.md). Messages name it without its password
// (Database::path). A command that only reads opens it read-only and creates nothing: a
// database with no gpubill schema is an error pointing at `gpubill init`; one of an older
// schema or catalog is brought up to date as a file is.
Database open_server_database(const std::string& url, Access access, OpenOptions options) {
  options.allow_postgres = true;
  if (access == Access::read) {
    options.read_only = true;
    try {
      auto db = Database::open(url, options);
      if (bundled_catalog_is_current(db)) return db;
    } catch (const StoreUninitialised&) {
      throw;
    } catch (const StoreConnectError&) {
      throw;
    } catch (const StoreTargetError&) {
      throw;
    } catch (const StoreError&) {
      // An older schema: opened for writing below, which migrates it (or says what is wrong).
    }
    options.read_only = false;
  }
  auto db = Database::open(url, options);
  if (ensure_bundled_catalog(db)) {
    refresh_offer_summary(db, summarize_offers);
    std::cerr << "gpubill: loaded this gpubill's bundled catalog into " << db.path() << "\n";
  }
  return db;
}

}  // namespace

Database Globals::open_database(Access access) const {
  if (db_path && db_path->empty()) {
    // An empty path is a private temporary database for SQLite: everything would be lost.
    throw Error("--db is empty: give the database file");
  }
  const char* env_db = std::getenv("GPUBILL_DB");
  const bool from_flag = db_path.has_value();
  const bool named = from_flag || (env_db && *env_db);
  const std::string path =
      resolve_database_path(db_path, env_db, std::getenv("XDG_DATA_HOME"), std::getenv("HOME"));
  OpenOptions options = open_options_from_environment();
  if (path == ":memory:") {
    // A private database that lives as long as the command: asked for, never reported.
    auto db = Database::open(path, options);
    ensure_bundled_catalog(db);
    return db;
  }
  if (is_postgres_url(path)) return open_server_database(path, access, options);
  std::error_code ec;
  const bool exists = std::filesystem::exists(path, ec);
  if (!exists && named && access == Access::read) {
    throw InputError("command line", "", from_flag ? "--db" : "GPUBILL_DB",
                     "no database at '" + path +
                         "': a command that only reads does not create one (check the path; "
                         "`gpubill init` creates a database with the bundled catalog)");
  }
  if (!exists && !named) {
    // The default location (~/.local/share/gpubill/) may not exist yet.
    const auto parent = std::filesystem::path(path).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    if (ec) {
      throw StoreError("cannot create the directory '" + parent.string() +
                       "' for the database: " + ec.message());
    }
  }
  if (exists && named && access == Access::read && std::filesystem::is_regular_file(path, ec) &&
      std::filesystem::file_size(path, ec) == 0) {
    throw InputError("command line", "", from_flag ? "--db" : "GPUBILL_DB",
                     "'" + path +
                         "' is an empty file, not a gpubill database: a command that only reads "
                         "does not fill it (`gpubill init` does)");
  }
  if (exists && access == Access::read) {
    options.read_only = true;
    try {
      auto db = Database::open(path, options);
      if (bundled_catalog_is_current(db) || !writable(path)) return db;
    } catch (const StoreError&) {
      // An older schema (or another fault, which opening for writing reports again).
      if (!writable(path)) throw;
    }
    options.read_only = false;
  }
  auto db = Database::open(path, options);
  const bool loaded = ensure_bundled_catalog(db);
  // Whatever command created or refilled the database, its offer summary is current after, so
  // that a later quote reads it and never has to write (a quote of a bad workload included).
  if (!exists || loaded) refresh_offer_summary(db, summarize_offers);
  if (!exists) {
    std::cerr << "gpubill: created the database '" << path << "' with the bundled catalog\n";
  } else if (loaded) {
    std::cerr << "gpubill: loaded this gpubill's bundled catalog into '" << path << "'\n";
  }
  return db;
}

void Globals::keep_offer_summary_current(Database& db) const {
  if (offer_summary_is_current(db)) return;
  const std::string& path = db.path();
  try {
    // In-memory, or a server's database (whose path() has no password to open it again): on
    // the connection at hand, which fails when it is read-only.
    if (path == ":memory:" || is_postgres_url(path)) {
      refresh_offer_summary(db, summarize_offers);
      return;
    }
    if (!writable(path)) return;
    OpenOptions options = open_options_from_environment();
    options.busy_timeout = std::chrono::milliseconds(0);  // another writer at work: not now
    auto rw = Database::open(path, options);
    refresh_offer_summary(rw, summarize_offers);
  } catch (const StoreError&) {
    // Locked by another writer, or not writable after all: quotes read without the summary.
  }
}

OpenOptions open_options_from_environment() {
  OpenOptions options;
  const char* text = std::getenv("GPUBILL_BUSY_TIMEOUT");
  if (text && *text) {
    // Whole seconds, 0 (fail at once) to one day.
    const std::string s(text);
    constexpr long kMaxSeconds = 86'400;
    if (s.size() > 5 || s.find_first_not_of("0123456789") != std::string::npos ||
        std::stol(s) > kMaxSeconds) {
      throw Error("GPUBILL_BUSY_TIMEOUT must be whole seconds from 0 to 86400, not '" + s + "'");
    }
    options.busy_timeout = std::chrono::seconds(std::stol(s));
  }
  return options;
}

void add_catalog_commands(CLI::App& app, Globals& globals, Action& action) {
  {
    auto* sub = app.add_subcommand(
        "init",
        "Create the database (or bring an existing one up to date) with the bundled catalog");
    auto format = std::make_shared<Format>(Format::table);
    add_format_option(*sub, *format);
    add_db_option(*sub, globals);
    sub->callback([&globals, &action, format] {
      action = [&globals, format] {
        auto db = globals.open_database(Access::write);
        globals.keep_offer_summary_current(db);
        if (*format == Format::table) {
          std::cout << "database " << db.path() << ": schema version " << db.schema_version()
                    << ", bundled catalog " << bundled_catalog_hash() << "\n";
        } else {
          write_table(std::cout,
                      record_table({{"database", db.path()},
                                    {"db_schema_version", std::to_string(db.schema_version()),
                                     Kind::integer},
                                    {"bundled_catalog", bundled_catalog_hash()}}),
                      *format);
        }
        return kExitOk;
      };
    });
  }
  auto* catalog = app.add_subcommand("catalog", "List and import the catalog of GPU cloud offers");
  catalog->require_subcommand(1);
  add_db_option(*catalog, globals);

  {
    auto* sub = catalog->add_subcommand("gpus", "List the GPU models and their specifications");
    auto format = std::make_shared<Format>(Format::table);
    add_format_option(*sub, *format);
    add_db_option(*sub, globals);
    sub->callback([&globals, &action, format] {
      action = [&globals, format] { return run_gpus(globals, *format); };
    });
  }
  {
    auto* sub = catalog->add_subcommand(
        "offers",
        "List offers: each instance type's price per region and billing mode (Google-style hosts "
        "as host+N\u00d7GPU with the summed price); a price not in the catalog shows as unknown");
    auto args = std::make_shared<OffersArgs>();
    sub->add_option("--provider", args->provider, "Only this provider (tencent, aws, …)");
    sub->add_option("--gpu", args->gpu,
                    "Only offers with this GPU: an id or alias, any case; a family name such as "
                    "V100 takes every V100 model");
    sub->add_option("--mode", args->mode,
                    "Only this billing mode: payg, prepaid, spot, "
                    "reserved_1y, reserved_3y");
    sub->add_option("--at", args->at,
                    "Prices in force at this date or RFC 3339 instant (default: the latest price "
                    "of each region and mode)");
    sub->add_option("--region", args->region,
                    "Only prices for this region (rows for every region included)");
    add_format_option(*sub, args->format);
    add_db_option(*sub, globals);
    sub->callback([&globals, &action, args] {
      action = [&globals, args] { return run_offers(globals, *args); };
    });
  }
  {
    auto* sub = catalog->add_subcommand(
        "show", "Show an instance type: its specification, every price row and the billing policy");
    auto args = std::make_shared<ShowArgs>();
    sub->add_option("TYPE", args->type, "Instance type id, e.g. p3.2xlarge")->required();
    sub->add_option("--provider", args->provider, "The provider, when several have TYPE");
    sub->add_option("--at", args->at,
                    "Show the policy in force at this date or instant (default: the newest)");
    add_format_option(*sub, args->format);
    sub->footer("With --format csv only the price rows are written.");
    add_db_option(*sub, globals);
    sub->callback([&globals, &action, args] {
      action = [&globals, args] { return run_show(globals, *args); };
    });
  }
  add_coverage_command(*catalog, globals, action);
  add_catalog_diff_command(*catalog, globals, action);
  add_catalog_check_command(*catalog, globals, action);
  add_catalog_fetch_command(*catalog, globals, action);
  add_import_like(*catalog, globals, action, "import",
                  "Import a catalog file (JSON, see docs/catalog-format.md) or a SkyPilot vms.csv; "
                  "all or nothing",
                  true);
  add_import_like(*catalog, globals, action, "validate",
                  "Check a catalog file as import would, against the database, writing nothing",
                  false);
}

}  // namespace gpubill::cli
