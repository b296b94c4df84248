// gpubill catalog fetch: a provider's public price list (or a recording of it) converted into
// catalog price rows and imported in one transaction (include/gpubill/fetch/fetch.hpp).
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "gpubill/fetch/fetch.hpp"
#include "output.hpp"
#include "progress_bar.hpp"

namespace gpubill::cli {

namespace {

struct FetchArgs {
  std::string provider, region, endpoint, recorded;
  bool gpu_only = false, verbose = false, quiet = false, force = false;
  Format format = Format::table;
};

// --format csv|json: what was fetched and imported, one record (docs/schemas/
// catalog-fetch.schema.json); unknown types or GPUs as "name (rows)" joined by "; ".
Table fetch_record(const FetchReport& r) {
  const ImportReport& i = r.import;
  std::size_t unknown_rows = 0;
  std::vector<std::string> unknown, urls(r.urls.begin(), r.urls.end());
  for (const auto& [name, rows] : r.unknown) {
    unknown_rows += rows;
    unknown.push_back(name + " (" + std::to_string(rows) + ")");
  }
  return record_table({{"source", i.file},
                       {"fetched_at", format_instant(r.fetched_at)},
                       {"pages", std::to_string(r.urls.size()), Kind::integer},
                       {"urls", join(urls, " ")},
                       {"rows_read", std::to_string(r.read), Kind::integer},
                       {"prices_imported", std::to_string(i.prices), Kind::integer},
                       {"regions", std::to_string(i.regions), Kind::integer},
                       {"unknown_rows", std::to_string(unknown_rows), Kind::integer},
                       {"unknown", join(unknown, "; ")},
                       {"notes", join(i.notes, "; ")}});
}

void print_fetch(const FetchReport& r, bool verbose) {
  const ImportReport& i = r.import;
  std::cout << i.file << ": "
            << (r.urls.size() == 1 ? "1 page" : std::to_string(r.urls.size()) + " pages")
            << " as of " << format_instant(r.fetched_at) << ", " << r.read
            << " rows read; imported " << i.prices << " prices";
  if (i.regions) std::cout << ", " << i.regions << " regions";
  std::cout << "\n";
  for (const auto& n : i.notes) std::cout << "note: " << n << "\n";
  if (!verbose) return;
  for (const auto& [name, rows] : r.unknown) {
    std::cout << "unknown: " << name << " (" << rows << (rows == 1 ? " row" : " rows") << ")\n";
  }
}

int run_fetch(const Globals& globals, const FetchArgs& args) {
  FetchRequest request;
  request.provider = parse_price_list_provider(args.provider);
  request.region = args.region;
  request.gpu_only = args.gpu_only;
  request.endpoint = args.endpoint;
  if (const char* key = std::getenv("GOOGLE_API_KEY")) request.google_api_key = key;
  const auto now = std::chrono::floor<std::chrono::seconds>(std::chrono::system_clock::now());
  request.now = now;
  // As `catalog import`: a row dated more than a year ahead is refused.
  request.import.not_after = now + std::chrono::days{366};
  request.import.force = args.force;
  auto db = globals.open_database(Access::write);
  // One bar: the download's bytes, then the import's rows.
  ProgressBar bar(args.quiet);
  std::unique_ptr<Transport> transport = args.recorded.empty()
                                             ? make_curl_transport(bar.sink())
                                             : make_recorded_transport(args.recorded);
  request.import.progress = bar.sink();
  const FetchReport report = fetch_price_list(db, *transport, request);
  bar.finish();
  globals.keep_offer_summary_current(db);
  if (args.format == Format::table) {
    print_fetch(report, args.verbose);
  } else {
    write_table(std::cout, fetch_record(report), args.format);
  }
  return 0;
}

}  // namespace

void add_catalog_fetch_command(CLI::App& catalog, Globals& globals, Action& action) {
  auto* sub = catalog.add_subcommand(
      "fetch",
      "Fetch a provider's public price list (AWS bulk offer file, Azure Retail Prices, Google "
      "Cloud Billing SKUs) and import its GPU prices from now on; all or nothing");
  auto args = std::make_shared<FetchArgs>();
  sub->add_option("--provider", args->provider, "aws, azure or google")
      ->required()
      ->check(CLI::IsMember({"aws", "azure", "google"}));
  sub->add_option("--region", args->region,
                  "Only this region (AWS: the offer file's region, default us-east-1)");
  sub->add_flag("--gpu-only", args->gpu_only, "Only GPU instance types and GPU SKUs");
  auto* endpoint = sub->add_option(
      "--endpoint", args->endpoint,
      "The first URL to read instead of the provider's public endpoint (a mirror, a test server)");
  sub->add_option("--recorded", args->recorded,
                  "Read recorded responses from DIR (page-1.json, page-2.json, … and "
                  "recording.json; fixtures/fetch/) instead of the network")
      ->check(CLI::ExistingDirectory)
      ->excludes(endpoint);
  sub->add_flag("--verbose", args->verbose,
                "Name each instance type or GPU the catalog does not know, with its rows");
  sub->add_flag("--force", args->force,
                "Import even when `catalog check` then fails; each violation is listed");
  add_quiet_option(*sub, args->quiet);
  add_format_option(*sub, args->format);
  add_db_option(*sub, globals);
  sub->footer(
      "Google needs GOOGLE_API_KEY in the environment (not for --recorded). AWS's bulk file "
      "holds no spot prices; Azure's Spot meters are imported as spot.");
  sub->callback([&globals, &action, args] {
    action = [&globals, args] { return run_fetch(globals, *args); };
  });
}

}  // namespace gpubill::cli
