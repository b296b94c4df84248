// gpubill catalog coverage: provider × GPU (or family) × mode → offers, priced, unknown, regions.
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "gpubill/catalog/catalog_coverage.hpp"
#include "gpubill/catalog/catalog_offers.hpp"
#include "output.hpp"

namespace gpubill::cli {

namespace {

struct CoverageArgs {
  std::string provider, gpu, by = "gpu";
  std::optional<std::string> at;
  Format format = Format::table;
};

std::string day_of(const std::optional<Instant>& t) {
  return t ? format_day(date::floor<date::days>(*t)) : "";
}

std::vector<std::string> cells(const CoverageRow& r, const std::string& mode) {
  return {r.provider,
          r.group,
          mode,
          std::to_string(r.offers),
          std::to_string(r.priced),
          std::to_string(r.unknown),
          std::to_string(r.not_on_sale),
          std::to_string(r.regions),
          std::to_string(r.price_cells),
          day_of(r.first_from),
          day_of(r.last_from)};
}

int run_coverage(const Globals& globals, const CoverageArgs& args) {
  auto db = globals.open_database(Access::read);
  const auto catalog = Catalog::load(db);
  CoverageFilter filter;
  check_provider_flag(catalog, args.provider);
  filter.provider = args.provider;
  filter.gpus = gpu_flag(catalog, args.gpu);
  filter.group = args.by == "family" ? CoverageGroup::family : CoverageGroup::gpu;
  filter.at = instant_flag("--at", args.at);
  const CoverageReport report = catalog_coverage(catalog, filter);

  // The grouping column is "group" whichever --by: a header does not change with options.
  Table t{{{"provider"},
           {"group"},
           {"mode"},
           int_column("offers"),
           int_column("priced"),
           int_column("unknown"),
           int_column("not_on_sale"),
           int_column("regions"),
           int_column("priced_region_rows"),
           {"first_from"},
           {"last_from"}},
          {}};
  for (const auto& r : report.rows) t.add_row(cells(r, std::string(to_string(r.mode))));
  if (args.format == Format::table) {
    std::cout << "Coverage at " << format_day(date::floor<date::days>(report.at))
              << (report.at_default ? " (default: the latest effective_from in the catalog)" : "")
              << "\n\n";
    t.add_row(cells(report.total, "total"));
    t.rows.back()[0] = "TOTAL";
  }
  write_table(std::cout, t, args.format);
  if (args.format == Format::table) {
    std::cout << "\npriced: a price in force in at least one region; unknown: no price in force in "
                 "this mode (every mode is listed, those without a row too); not_on_sale: before "
                 "the offer's available_from or on or after its retired_on; priced_region_rows: "
                 "offer × region cells priced (\"every region\" rows count once); "
                 "first/last_from: effective_from range of the mode's rows.\n";
  }
  return 0;
}

}  // namespace

void add_coverage_command(CLI::App& catalog, Globals& globals, Action& action) {
  auto* sub = catalog.add_subcommand(
      "coverage",
      "Measure the catalog: per provider, GPU model (or family) and billing mode, the offers, "
      "how many are priced or unknown at a date, in how many regions, over which dates");
  auto args = std::make_shared<CoverageArgs>();
  sub->add_option("--provider", args->provider, "Only this provider");
  sub->add_option("--gpu", args->gpu, "Only this GPU (id, alias, or a family such as V100)");
  sub->add_option("--at", args->at,
                  "Measure at this date or RFC 3339 instant (default: the latest effective_from "
                  "in the catalog)");
  sub->add_option("--by", args->by, "Group rows by gpu (default) or family")
      ->check(CLI::IsMember({"gpu", "family"}));
  add_format_option(*sub, args->format);
  add_db_option(*sub, globals);
  sub->callback([&globals, &action, args] {
    action = [&globals, args] { return run_coverage(globals, *args); };
  });
}

}  // namespace gpubill::cli
