// The lease-vs-buy flags and the comparison they ask for (tco_args.hpp).
#include "tco_args.hpp"

#include <map>

#include "gpubill/base/errors.hpp"
#include "gpubill/base/input_file.hpp"

namespace gpubill::cli {

namespace {

Decimal any_decimal_flag(const std::string& flag, const std::string& text) {
  try {
    return Decimal::parse(text);
  } catch (const Error& e) {
    throw InputError("command line", "", flag, e.what());
  }
}

// "149000 USD", or "149000" in the --currency (default USD).
Money money_flag(const std::string& flag, const std::string& text,
                 const std::optional<std::string>& currency) {
  try {
    if (text.find(' ') != std::string::npos) return Money::parse(text);
    return Money(Decimal::parse(text), Currency::parse(currency.value_or("USD")));
  } catch (const Error& e) {
    throw InputError("command line", "", flag, e.what());
  }
}

LeaseVsBuyConfig config_of(const TcoArgs& a) {
  LeaseVsBuyConfig c;
  if (!a.config_path.empty())
    c = parse_lease_vs_buy_config(read_input_file(a.config_path), a.config_path);
  if (a.gpu) c.gpu = *a.gpu;
  if (a.count) c.gpu_count = *a.count;
  if (a.currency) {
    try {
      c.currency = Currency::parse(*a.currency);
    } catch (const Error& e) {
      throw InputError("command line", "", "--currency", e.what());
    }
  }
  if (a.price) c.hardware_price = money_flag("--price", *a.price, a.currency);
  if (a.host_price) c.host_price = money_flag("--host-price", *a.host_price, a.currency);
  if (a.gpu_watts) c.gpu_watts = any_decimal_flag("--gpu-watts", *a.gpu_watts);
  if (a.host_watts) c.host_watts = any_decimal_flag("--host-watts", *a.host_watts);
  if (a.host_vcpu) c.host_vcpu = *a.host_vcpu;
  if (a.host_ram_gb) c.host_ram_gb = any_decimal_flag("--host-ram-gb", *a.host_ram_gb);
  if (a.horizon) c.horizon_months = *a.horizon;
  if (a.pue) c.pue = any_decimal_flag("--pue", *a.pue);
  if (a.kwh_price) c.kwh_price = money_flag("--kwh-price", *a.kwh_price, a.currency);
  if (a.utilisation) c.utilisation = any_decimal_flag("--utilisation", *a.utilisation);
  if (a.hosting) c.hosting_per_kw_month = money_flag("--hosting", *a.hosting, a.currency);
  if (a.maintenance) c.maintenance_yearly_share = any_decimal_flag("--maintenance", *a.maintenance);
  if (a.residual) c.residual_share = any_decimal_flag("--residual", *a.residual);
  if (a.cost_of_capital) {
    c.cost_of_capital_yearly = any_decimal_flag("--cost-of-capital", *a.cost_of_capital);
  }
  if (a.date) {
    try {
      c.date = parse_day(*a.date);
    } catch (const Error& e) {
      throw InputError("command line", "", "--date", e.what());
    }
  }
  if (!a.providers.empty()) c.providers = a.providers;
  if (!a.rent_gpus.empty()) c.rent_gpus = a.rent_gpus;
  return c;
}

// The flag that sets a configuration field, and whether it was given.
std::pair<std::string, bool> flag_of(const TcoArgs& a, const std::string& field) {
  const std::map<std::string, std::pair<std::string, bool>> flags = {
      {"gpu", {"--gpu", a.gpu.has_value()}},
      {"count", {"--count", a.count.has_value()}},
      {"hardware_price", {"--price", a.price.has_value()}},
      {"host_price", {"--host-price", a.host_price.has_value()}},
      {"gpu_watts", {"--gpu-watts", a.gpu_watts.has_value()}},
      {"host_watts", {"--host-watts", a.host_watts.has_value()}},
      {"host_vcpu", {"--host-vcpu", a.host_vcpu.has_value()}},
      {"host_ram_gb", {"--host-ram-gb", a.host_ram_gb.has_value()}},
      {"horizon_months", {"--horizon", a.horizon.has_value()}},
      {"pue", {"--pue", a.pue.has_value()}},
      {"kwh_price", {"--kwh-price", a.kwh_price.has_value()}},
      {"utilisation", {"--utilisation", a.utilisation.has_value()}},
      {"hosting_per_kw_month", {"--hosting", a.hosting.has_value()}},
      {"maintenance_yearly_share", {"--maintenance", a.maintenance.has_value()}},
      {"residual_share", {"--residual", a.residual.has_value()}},
      {"cost_of_capital_yearly", {"--cost-of-capital", a.cost_of_capital.has_value()}},
      {"currency", {"--currency", a.currency.has_value()}},
      {"date", {"--date", a.date.has_value()}},
      {"providers", {"--provider", !a.providers.empty()}},
      {"rent_gpus", {"--rent-gpu", !a.rent_gpus.empty()}}};
  const auto it = flags.find(field);
  return it == flags.end() ? std::pair<std::string, bool>{field, false} : it->second;
}

}  // namespace

void add_tco_options(CLI::App& sub, TcoArgs& args) {
  sub.add_option("config", args.config_path,
                 "Configuration file (JSON, docs/lease-vs-buy.md); flags override it");
  sub.add_option("--gpu", args.gpu, "GPU model bought (catalog id or alias, e.g. V100)");
  sub.add_option("--count", args.count, "Number of GPUs in the server");
  sub.add_option("--price", args.price,
                 "Hardware price of the whole server, e.g. \"149000 USD\" (a bare number is in "
                 "--currency, else USD)");
  sub.add_option("--host-price", args.host_price,
                 "Server without GPUs, when --price is not given (GPUs at catalog launch price)");
  sub.add_option("--gpu-watts", args.gpu_watts, "Watts per GPU (default: catalog TDP)");
  sub.add_option("--host-watts", args.host_watts, "Host power in watts (default 600)");
  sub.add_option("--host-vcpu", args.host_vcpu,
                 "vCPUs of the bought server: rent options have at least as many");
  sub.add_option("--host-ram-gb", args.host_ram_gb,
                 "RAM of the bought server in GB: rent options have at least as much (default: "
                 "the GPUs' memory)");
  sub.add_option("--horizon", args.horizon, "Horizon in months (default 36)");
  sub.add_option("--pue", args.pue, "Power usage effectiveness (default 1.5)");
  sub.add_option("--kwh-price", args.kwh_price, "Electricity price per kWh (default 0.10 USD)");
  sub.add_option("--utilisation,--utilization", args.utilisation,
                 "Share of the month the GPUs are busy, 0 to 1 (required)");
  sub.add_option("--hosting", args.hosting,
                 "Colocation per kW of IT power per month (default 200 USD)");
  sub.add_option("--maintenance", args.maintenance,
                 "Yearly maintenance as a share of the price (default 0.10)");
  sub.add_option("--residual", args.residual,
                 "Resale value at the horizon as a share of the price (default 0.30)");
  sub.add_option("--cost-of-capital", args.cost_of_capital,
                 "Yearly cost of capital for present values (default 0.08)");
  sub.add_option("--currency", args.currency,
                 "Comparison currency (default: the price's currency, else USD)");
  sub.add_option("--date", args.date,
                 "Day of the prices and FX rates, YYYY-MM-DD (default: latest price date)");
  sub.add_option("--provider", args.providers, "Provider whose offers may be rented (repeat)");
  sub.add_option("--rent-gpu", args.rent_gpus,
                 "GPU model that counts as the same when renting (repeat; default: the GPU's "
                 "line with at least its FP32 and memory)");
}

LeaseVsBuyResult lease_vs_buy_of(const Catalog& catalog, const TcoArgs& args) {
  const LeaseVsBuyConfig config = config_of(args);
  try {
    return lease_vs_buy(catalog, config);
  } catch (const TcoInputError& e) {
    // Name where the value came from: the flag, else the configuration file's field.
    const auto [flag, given] = flag_of(args, e.field());
    if (given || args.config_path.empty()) {
      throw InputError("command line", "", flag, e.reason());
    }
    throw InputError(args.config_path, "", e.field(), e.reason());
  }
}

}  // namespace gpubill::cli
