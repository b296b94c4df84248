// The workload flags of `gpubill quote`, `advise` and `report quote`: parsed into a Workload
// (each flag overrides the same field of the workload file), and the quote they ask for.
#pragma once

#include <CLI/CLI.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gpubill/catalog/catalog.hpp"
#include "gpubill/quote/quote.hpp"
#include "gpubill/quote/workload.hpp"

namespace gpubill::cli {

// The workload flags; each overrides the same field of a workload file.
struct WorkloadArgs {
  std::string file;
  std::vector<std::string> gpus, providers, regions, modes;
  std::string count = "1";  // whole GPUs, or a share of one (0.25) for vGPU slices
  int min_vcpu = 0, days = 0, months = 0, bandwidth_mbps = 0, month_hours = 0;
  std::string min_fp32, min_fp16, min_gpu_memory, min_ram, dataset_gb, headroom_gb, disk_kind,
      egress_gb, hours, hours_per_day, gpu_hours, reference_gpu, pflop, precision, efficiency,
      currency, at, interruptions_per_hour, checkpoint_interval_hours, checkpoint_write_hours,
      restart_hours;
  bool nvlink = false;
  std::map<std::string, CLI::Option*> options;  // flag name → option
  bool given(const std::string& flag) const {
    auto it = options.find(flag);
    return it != options.end() && it->second->count() > 0;
  }
};

// Adds the workload file argument and every workload flag to `sub`, storing into `a`.
void add_workload_options(CLI::App& sub, WorkloadArgs& a);

// The workload file (if any) with the flags given applied. Throws InputError naming the flag or
// the file's field.
Workload build_workload(const WorkloadArgs& a);

// One line describing the resolved workload: "1 × V100 (V100-SXM2-16GB), memory ≥ 16 GB".
std::string describe(const ResolvedWorkload& w);

// The current day, 00:00 UTC, read from the system clock: the date of a quote whose workload
// names none (Workload::today).
Instant today_utc();

// A workload priced as `gpubill quote` prices it: the catalog around the workload's date (today
// by default, today_utc), the engine over it, the resolved workload and its quote. Not
// movable: the engine and the quote point into the catalog.
struct PricedQuote {
  PricedQuote(Catalog c, std::optional<UnloadedOffers> left_out, Workload spec,
              const QuoteOptions& options);
  PricedQuote(const PricedQuote&) = delete;
  PricedQuote& operator=(const PricedQuote&) = delete;
  Catalog catalog;
  std::optional<UnloadedOffers> unloaded;  // the offers the read left out (load_quote_catalog)
  QuoteEngine engine;
  ResolvedWorkload workload;
  QuoteResult result;
};

// Loads the catalog `spec` needs from `db` and quotes it. Throws InputError, StoreError.
std::unique_ptr<PricedQuote> price_workload(gpubill::Database& db, Workload spec,
                                            const QuoteOptions& options);

}  // namespace gpubill::cli
