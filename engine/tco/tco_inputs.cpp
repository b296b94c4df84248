// Lease versus buy: validating and resolving the inputs.
#include <algorithm>

#include "gpubill/tco/tco.hpp"

namespace gpubill {

TcoInputError::TcoInputError(std::string field, const std::string& reason)
    : Error("lease-vs-buy: " + field + ": " + reason), field_(std::move(field)), reason_(reason) {}

namespace {

[[noreturn]] void fail(const std::string& field, const std::string& reason) {
  throw TcoInputError(field, reason);
}

void require_share(const std::string& field, Decimal v) {
  if (v < Decimal{} || v > Decimal(1)) {
    fail(field, "must be between 0 and 1 (a share, e.g. 0.3), got " + v.to_string());
  }
}

void require_non_negative(const std::string& field, const Money& m) {
  if (m.amount().sign() < 0) fail(field, "must not be negative, got " + m.to_string());
}

std::string stem(std::string_view id) {
  return std::string(id.substr(0, id.find('-')));
}

// The catalog GPUs that count as the bought one when renting (see LeaseVsBuyConfig::rent_gpus).
std::vector<std::string> same_line_gpus(const Catalog& catalog, const Gpu& bought) {
  std::vector<std::string> out{bought.id};
  for (const auto& g : catalog.data().gpus) {
    if (g.id == bought.id || stem(g.id) != stem(bought.id)) continue;
    const bool fp32_ok =
        !bought.fp32_tflops || (g.fp32_tflops && *g.fp32_tflops >= *bought.fp32_tflops);
    const bool memory_ok = !bought.memory_gb || (g.memory_gb && *g.memory_gb >= *bought.memory_gb);
    if (fp32_ok && memory_ok) out.push_back(g.id);
  }
  return out;
}

class Converter {
 public:
  Converter(const Catalog& catalog, Currency to, date::sys_days day, std::vector<FxRate>& used)
      : catalog_(catalog), to_(to), day_(day), used_(used) {}

  Money operator()(const Money& m, const std::string& field) const {
    if (m.currency() == to_) return m;
    const auto rate = catalog_.fx_rate(m.currency(), to_, day_);
    if (!rate) {
      fail(field, "no FX rate from " + m.currency().to_string() + " to " + to_.to_string() +
                      " on or before " + format_day(day_) + " in the catalog (give the amount in " +
                      to_.to_string() + " or choose another date)");
    }
    const bool known = std::any_of(used_.begin(), used_.end(), [&](const FxRate& r) {
      return r.from == rate->from && r.to == rate->to && r.day == rate->day;
    });
    if (!known) used_.push_back(*rate);
    return Money(m.amount() * rate->rate, to_);
  }

 private:
  const Catalog& catalog_;
  Currency to_;
  date::sys_days day_;
  std::vector<FxRate>& used_;
};

// What is bought: the GPU, how many, and the power they draw. Returns the catalog GPU.
const Gpu& resolve_bought(const Catalog& catalog, const LeaseVsBuyConfig& config,
                          LeaseVsBuyInputs& in) {
  if (config.gpu.empty()) fail("gpu", "is required (a catalog GPU id or alias, e.g. V100)");
  const Gpu* gpu = catalog.find_gpu(config.gpu);
  if (!gpu) {
    std::string hint;
    for (const auto& n : catalog.closest_gpu_names(config.gpu)) {
      hint += (hint.empty() ? "" : ", ") + n;
    }
    fail("gpu", "unknown GPU '" + config.gpu + "'" +
                    (hint.empty() ? std::string() : " (closest known: " + hint + ")"));
  }
  in.gpu = *gpu;
  if (config.gpu_count < 1 || config.gpu_count > 100000) {
    fail("count", "must be a whole number of GPUs from 1 to 100000, got " +
                      std::to_string(config.gpu_count));
  }
  in.boards = config.gpu_count;
  in.gpu_count = config.gpu_count * gpu->units_per_board;
  if (config.gpu_watts) {
    if (config.gpu_watts->sign() < 0) {
      fail("gpu_watts", "must not be negative, got " + config.gpu_watts->to_string());
    }
    in.gpu_watts = Decimal::divide(*config.gpu_watts, gpu->units_per_board, Decimal::kScale,
                                   RoundingMode::half_even);
  } else if (gpu->tdp_w) {
    in.gpu_watts = Decimal(*gpu->tdp_w);
  } else {
    fail("gpu_watts", "the catalog has no TDP for " + gpu->id + "; give gpu_watts");
  }
  if (config.host_watts.sign() < 0) {
    fail("host_watts", "must not be negative, got " + config.host_watts.to_string());
  }
  in.host_watts = config.host_watts;
  in.it_kw = Decimal::divide(in.gpu_watts * in.gpu_count + in.host_watts, 1000, Decimal::kScale,
                             RoundingMode::half_even);
  return *gpu;
}

void resolve_currency_and_date(const Catalog& catalog, const LeaseVsBuyConfig& config,
                               LeaseVsBuyInputs& in) {
  if (config.currency) {
    in.currency = *config.currency;
  } else if (config.hardware_price) {
    in.currency = config.hardware_price->currency();
  }
  if (config.date) {
    in.date = *config.date;
  } else if (auto latest = catalog.latest_price_date()) {
    in.date = date::floor<date::days>(*latest);
  } else {
    fail("date", "is required: the catalog has no prices to take a default date from");
  }
}

void resolve_price(const LeaseVsBuyConfig& config, const Gpu* gpu, const Converter& convert,
                   LeaseVsBuyInputs& in) {
  if (config.hardware_price) {
    if (config.hardware_price->amount().sign() <= 0) {
      fail("hardware_price", "must be positive, got " + config.hardware_price->to_string());
    }
    in.hardware_price = convert(*config.hardware_price, "hardware_price");
    in.hardware_price_basis = "given: " + config.hardware_price->to_string();
    if (config.host_price) in.hardware_price_basis += " (host_price ignored)";
  } else {
    if (!gpu->launch_price) {
      fail("hardware_price", "is required: the catalog has no launch price for " + gpu->id +
                                 " (unknown, not 0): give the server's price");
    }
    if (!config.host_price) {
      fail("host_price",
           "is required when hardware_price is not given (the server without its GPUs)");
    }
    require_non_negative("host_price", *config.host_price);
    const Money gpus = convert(*gpu->launch_price * in.boards, "hardware_price");
    in.hardware_price = gpus + convert(*config.host_price, "host_price");
    in.hardware_price_basis = "launch price " + std::to_string(in.boards) + " × " +
                              gpu->launch_price->to_string() + " + host " +
                              config.host_price->to_string();
  }
  in.price_source = config.price_source;
}

void resolve_owning(const LeaseVsBuyConfig& config, const Converter& convert,
                    LeaseVsBuyInputs& in) {
  if (config.horizon_months < 1 || config.horizon_months > 600) {
    fail("horizon_months",
         "must be from 1 to 600 months, got " + std::to_string(config.horizon_months));
  }
  in.horizon_months = config.horizon_months;
  if (config.pue < Decimal(1) || config.pue > Decimal(5)) {
    fail("pue",
         "must be from 1 to 5 (total facility power / IT power), got " + config.pue.to_string());
  }
  in.pue = config.pue;
  require_non_negative("kwh_price", config.kwh_price);
  in.kwh_price = convert(config.kwh_price, "kwh_price");
  if (!config.utilisation) {
    fail("utilisation", "is required: the share of the month the GPUs are busy, 0 to 1 (e.g. 0.6)");
  }
  if (*config.utilisation < Decimal{} || *config.utilisation > Decimal(1)) {
    fail("utilisation", "must be between 0 and 1 (0.6 = busy 60 % of the month), got " +
                            config.utilisation->to_string());
  }
  in.utilisation = *config.utilisation;
  require_non_negative("hosting_per_kw_month", config.hosting_per_kw_month);
  in.hosting_per_kw_month = convert(config.hosting_per_kw_month, "hosting_per_kw_month");
  require_share("maintenance_yearly_share", config.maintenance_yearly_share);
  in.maintenance_yearly_share = config.maintenance_yearly_share;
  require_share("residual_share", config.residual_share);
  in.residual_share = config.residual_share;
  if (config.cost_of_capital_yearly < Decimal{} || config.cost_of_capital_yearly > Decimal(1)) {
    fail("cost_of_capital_yearly", "must be between 0 and 1 (0.08 = 8 % a year), got " +
                                       config.cost_of_capital_yearly.to_string());
  }
  in.cost_of_capital_yearly = config.cost_of_capital_yearly;
  in.monthly_rate =
      Decimal::divide(in.cost_of_capital_yearly, 12, Decimal::kScale, RoundingMode::half_even);
}

void resolve_renting(const Catalog& catalog, const LeaseVsBuyConfig& config, const Gpu* gpu,
                     LeaseVsBuyInputs& in) {
  for (const auto& p : config.providers) {
    if (!catalog.find_provider(p)) {
      std::string known;
      for (const auto& q : catalog.data().providers) known += (known.empty() ? "" : ", ") + q.id;
      fail("providers", "unknown provider '" + p + "' (known: " + known + ")");
    }
    if (std::find(in.providers.begin(), in.providers.end(), p) == in.providers.end()) {
      in.providers.push_back(p);
    }
  }
  if (config.host_ram_gb && config.host_ram_gb->sign() <= 0) {
    fail("host_ram_gb", "must be positive (GB of RAM of the bought server), got " +
                            config.host_ram_gb->to_string());
  }
  in.host_vcpu = config.host_vcpu;
  in.host_ram_gb = config.host_ram_gb;
  if (config.rent_gpus.empty()) {
    in.rent_gpus = same_line_gpus(catalog, *gpu);
  } else {
    for (const auto& name : config.rent_gpus) {
      const Gpu* g = catalog.find_gpu(name);
      if (!g) {
        std::string hint;
        for (const auto& n : catalog.closest_gpu_names(name))
          hint += (hint.empty() ? "" : ", ") + n;
        fail("rent_gpus", "unknown GPU '" + name + "'" +
                              (hint.empty() ? std::string() : " (closest known: " + hint + ")"));
      }
      if (std::find(in.rent_gpus.begin(), in.rent_gpus.end(), g->id) == in.rent_gpus.end()) {
        in.rent_gpus.push_back(g->id);
      }
    }
  }
}

}  // namespace

LeaseVsBuyInputs resolve_lease_vs_buy(const Catalog& catalog, const LeaseVsBuyConfig& config) {
  LeaseVsBuyInputs in;
  const Gpu* gpu = &resolve_bought(catalog, config, in);
  resolve_currency_and_date(catalog, config, in);
  const Converter convert(catalog, in.currency, in.date, in.fx_rates);
  resolve_price(config, gpu, convert, in);
  resolve_owning(config, convert, in);
  resolve_renting(catalog, config, gpu, in);
  return in;
}

}  // namespace gpubill
