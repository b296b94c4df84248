// The flags of `gpubill lease-vs-buy` and `report lease-vs-buy`, and the comparison they ask for.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "gpubill/catalog/catalog.hpp"
#include "gpubill/tco/tco.hpp"
#include "output.hpp"

namespace gpubill::cli {

struct TcoArgs {
  std::string config_path;
  std::optional<std::string> gpu, price, host_price, gpu_watts, host_watts, host_ram_gb, pue,
      kwh_price, utilisation, hosting, maintenance, residual, cost_of_capital, currency, date;
  std::optional<int> count, horizon, host_vcpu;
  std::vector<std::string> providers, rent_gpus;
  Format format = Format::table;
};

// Adds the configuration file argument and every lease-vs-buy flag (not --format) to `sub`.
void add_tco_options(CLI::App& sub, TcoArgs& args);

// The comparison the file and flags ask for. Throws InputError naming the flag, else the
// configuration file's field, that holds a bad value.
LeaseVsBuyResult lease_vs_buy_of(const Catalog& catalog, const TcoArgs& args);

}  // namespace gpubill::cli
