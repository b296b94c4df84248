// gpubill catalog check: the catalog's invariants (catalog_check.hpp) over the database's
// catalog; exit 1 when one is violated.
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "gpubill/catalog/catalog.hpp"
#include "gpubill/catalog/catalog_check.hpp"
#include "output.hpp"

namespace gpubill::cli {

namespace {

struct CheckArgs {
  std::string invariant;
  bool errors_only = false;
  Format format = Format::table;
};

int run_check(const Globals& globals, const CheckArgs& args) {
  auto db = globals.open_database(Access::read);
  const auto catalog = Catalog::load(db);
  const CheckReport report = check_catalog(catalog.data());
  Table t{{{"severity"},
           {"invariant"},
           {"provider"},
           {"subject"},
           {"region"},
           {"mode"},
           {"effective_from"},
           {"message", false, 70},
           {"sources", false, 40}},
          {}};
  for (const auto& v : report.violations) {
    if (!args.invariant.empty() && v.invariant != args.invariant) continue;
    if (args.errors_only && v.severity != CheckSeverity::error) continue;
    t.add_row({std::string(to_string(v.severity)), v.invariant, v.provider, v.subject, v.region,
               v.mode, v.effective_from, v.message, v.sources});
  }
  if (args.format == Format::table) {
    std::cout << "Checked " << report.price_rows << " price rows and " << report.instance_types
              << " instance types: " << report.errors << " errors, " << report.warnings
              << " warnings — " << (report.passed() ? "passed" : "FAILED") << "\n";
    if (!t.rows.empty()) std::cout << "\n";
  }
  if (args.format != Format::table || !t.rows.empty()) write_table(std::cout, t, args.format);
  return report.passed() ? kExitOk : kExitError;
}

}  // namespace

void add_catalog_check_command(CLI::App& catalog, Globals& globals, Action& action) {
  auto* sub = catalog.add_subcommand(
      "check",
      "Check the catalog's invariants: prices not below their GPUs or far below the same type "
      "elsewhere, no placeholder ratios, snapshots closed, no >3x jumps, specs, lifecycles, one "
      "currency per region; exit 1 on an error");
  auto args = std::make_shared<CheckArgs>();
  sub->add_option("--invariant", args->invariant,
                  "Only this invariant (gpu_price_floor, region_floor, sibling_floor, "
                  "constant_ratio, repeated_price, snapshot_closure, price_jump, gpu_spec, "
                  "lifecycle, region_currency)");
  sub->add_flag("--errors-only", args->errors_only, "Leave out warnings");
  add_format_option(*sub, args->format);
  add_db_option(*sub, globals);
  sub->callback([&globals, &action, args] {
    action = [&globals, args] { return run_check(globals, *args); };
  });
}

}  // namespace gpubill::cli
