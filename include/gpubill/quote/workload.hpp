// A workload: what a user needs (GPUs, host, storage, network), for how long (hours, a daily
// schedule, months, or an amount of work), where (providers, regions), under which billing
// modes, compared in which currency and on which date. Read from a JSON file
// (docs/workload-format.md) or built from command-line flags, then resolved against a catalog
// (names checked, defaults filled in, contradictions rejected) before it is quoted.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpubill/base/decimal.hpp"
#include "gpubill/base/money.hpp"
#include "gpubill/base/time.hpp"
#include "gpubill/catalog/catalog.hpp"
#include "gpubill/catalog/offer_summary.hpp"
#include "gpubill/rules/spot_model.hpp"

namespace gpubill {

// Arithmetic precision whose peak throughput measures work: FP32, or FP16 on tensor cores.
enum class Precision { fp32, fp16 };
Precision parse_precision(std::string_view text);  // "fp32" | "fp16"; throws ParseError
std::string_view to_string(Precision p) noexcept;

struct GpuNeed {
  // Model names as written ("V100", "A100-80GB"). A name matches the GPU it names (id or
  // alias, case-insensitive) and every GPU whose id starts with that name and a '-' (so "V100"
  // covers V100-PCIE-16GB, V100-SXM2-16GB and V100-SXM2-32GB). Empty = any GPU meeting the
  // floors below.
  std::vector<std::string> models;
  // Floors per GPU.
  std::optional<Decimal> min_fp32_tflops, min_fp16_tflops, min_memory_gb;
  // GPUs per instance; an offer must have exactly this many. Default 1.
  std::optional<int> count;
  // A share of one GPU (above 0, below 1): only offers renting exactly that slice of a GPU
  // (vGPU types: 0.25, 0.5) match. The workload file's top-level "gpu_fraction" (a decimal
  // string), or `--count 0.25`. Excludes `count`.
  std::optional<Decimal> fraction;
  bool nvlink = false;  // the GPUs must be linked by NVLink
};

struct HostNeed {
  std::optional<int> min_vcpu;
  // Unset = at least the total GPU memory of the offer (the article's advice), reported as a
  // default the user can override (0 turns it off).
  std::optional<Decimal> min_ram_gb;
};

struct StorageNeed {
  // Size of the data set; unset = no storage is priced.
  std::optional<Decimal> dataset_gb;
  // Extra space on top of the data set. Default 50 GB ("tens of GB extra", the article).
  std::optional<Decimal> headroom_gb;
  // The catalog's disk kind to price. Default "cloud_ssd".
  std::optional<std::string> disk_kind;
};

struct NetworkNeed {
  std::optional<int> bandwidth_mbps;  // fixed bandwidth, priced as "fixed_mbps"
  std::optional<Decimal> egress_gb;   // traffic, priced as "traffic_gb"
};

// What interruptions cost the spot lines (gpubill/rules/spot_model.hpp), in hours. Without
// interruptions_per_hour, spot lines are priced as if never interrupted; the other fields need it.
struct SpotNeed {
  std::optional<Decimal> interruptions_per_hour;     // λ, per hour of running
  std::optional<Decimal> checkpoint_interval_hours;  // τ, default 1
  std::optional<Decimal> checkpoint_write_hours;     // c, default 0
  std::optional<Decimal> restart_hours;              // r, default 0
};

// How long: exactly one of
//   hours                        continuous use;
//   hours_per_day + days         a daily schedule, each day its own run;
//   months                       continuous use for months of the quote's month (month_hours
//                                below; by default each provider's calculator's: 730 h for AWS,
//                                Azure and Google, 720 h elsewhere);
//   gpu_hours (+ reference_gpu)  work: GPU-hours on a reference GPU (default: the GPU the first
//                                model name denotes), scaled by throughput at `precision`;
//   pflop (+ efficiency)         work: total PFLOP at `precision` and `efficiency` (fraction of
//                                peak throughput reached, default 1 = peak).
struct DurationSpec {
  std::optional<Decimal> hours;
  std::optional<Decimal> hours_per_day;
  std::optional<int> days;
  std::optional<int> months;
  std::optional<Decimal> gpu_hours;
  std::optional<std::string> reference_gpu;
  std::optional<Decimal> pflop;
  std::optional<Precision> precision;  // default fp32
  std::optional<Decimal> efficiency;   // default 1
};

struct Workload {
  std::string name;
  GpuNeed gpu;
  HostNeed host;
  StorageNeed storage;
  NetworkNeed network;
  DurationSpec duration;
  SpotNeed spot;
  std::vector<std::string> providers;   // empty = every provider
  std::vector<std::string> regions;     // empty = every region
  std::vector<std::string> modes;       // billing mode names; empty = every mode
  std::optional<std::string> currency;  // comparison currency; default CNY
  // YYYY-MM-DD or RFC 3339. Unset: `today` when the caller gives it, else the catalog's latest
  // price date.
  std::optional<std::string> date;
  // The caller's "today" (the engine never reads the clock): the date of a workload that names
  // none. The CLI passes the current UTC day; unset = the catalog's latest price date.
  std::optional<Instant> today;
  // Hours in a month for this quote (672–744): "months" durations, prices per month, monthly
  // settlement cycles and prepaid months needed. Unset = each provider's convention, the policy
  // row's quote_month_hours (gpubill/catalog/policy.hpp).
  std::optional<int> month_hours;

  // Where the fields came from, for error messages: the file name (or "command line"), and the
  // fields a command-line flag set or overrode, as JSON pointer → flag ("/duration/hours" →
  // "--hours").
  std::string source = "command line";
  std::map<std::string, std::string> flags;
};

// Parses a workload file's text (docs/workload-format.md). Checks syntax, types and unknown
// fields; throws InputError(file, JSON pointer, field, reason).
Workload parse_workload_json(std::string_view text, const std::string& file_name);
// Reads and parses a workload file. Throws InputError (also when it cannot be read).
Workload load_workload_file(const std::string& path);

enum class DurationKind { hours, daily, months, gpu_hours, pflop };
std::string_view to_string(DurationKind kind) noexcept;

// A workload checked against a catalog, with every default filled in.
struct ResolvedWorkload {
  Workload spec;  // as given

  // GPU models allowed: empty = any. Each requested name with the GPUs it matched.
  std::vector<const Gpu*> gpus;
  std::vector<std::pair<std::string, std::vector<const Gpu*>>> matched_names;
  std::optional<Decimal> min_fp32_tflops, min_fp16_tflops, min_memory_gb;
  int gpu_count = 1;
  std::optional<Decimal> gpu_fraction;  // set: a slice of one GPU (gpu_count is then 1)
  // GPUs an offer must have: gpu_fraction, else gpu_count.
  Decimal gpu_units() const { return gpu_fraction ? *gpu_fraction : Decimal(gpu_count); }
  bool nvlink = false;

  std::optional<int> min_vcpu;
  std::optional<Decimal> min_ram_gb;  // unset when ram_default
  bool ram_default = true;            // RAM floor = total GPU memory of each offer

  std::optional<Decimal> storage_gb;  // dataset + headroom; unset = no storage need
  Decimal dataset_gb, headroom_gb;
  bool headroom_default = true;
  std::string disk_kind = "cloud_ssd";
  std::optional<int> bandwidth_mbps;
  std::optional<Decimal> egress_gb;

  DurationKind duration = DurationKind::hours;
  Decimal hours;   // hours: the hours; daily: hours per day; months: months × 720 (see
                   // month_hours: a line's months are months × its month's hours)
  int days = 0;    // daily
  int months = 0;  // months
  std::optional<int> month_hours;  // the workload's month_hours; unset = per provider
  Decimal work;                    // gpu_hours: GPU-hours; pflop: PFLOP
  const Gpu* reference_gpu = nullptr;
  Precision precision = Precision::fp32;
  Decimal efficiency = Decimal(1);

  // Set when the workload gives an interruption rate: spot lines are priced at the expected
  // running time (expected_spot_run) for each run.
  std::optional<SpotInterruptionModel> spot_model;

  std::vector<std::string> providers, regions;  // empty = all
  std::vector<BillingMode> modes;               // never empty
  Currency currency = Currency::parse("CNY");
  bool currency_default = true;
  Instant at{};
  bool at_default = true;  // the workload named no date
  bool at_today = false;   // ... and `at` is the caller's Workload::today
};

// Resolves a workload against a catalog. Throws InputError naming the field (the file and JSON
// pointer, or the flag) for:
//   - unknown GPU, provider or region names (the message lists the closest known names);
//   - no duration, or two kinds of duration (hours and work both given), hours_per_day without
//     days, hours_per_day above 24, non-positive amounts;
//   - contradictions: count 0; a named GPU whose memory, FP32/FP16 throughput or interconnect
//     misses the workload's own floors or NVLink requirement; a region of a provider the
//     workload excludes; a reference GPU without throughput at the precision;
//   - an unknown billing mode or currency, a malformed date, a catalog with no prices (no
//     default date).
// `unloaded`: the offers a narrowed read left out of `catalog` (load_quote_catalog), whose price
// regions and latest price date count as the catalog's.
ResolvedWorkload resolve_workload(const Workload& workload, const Catalog& catalog,
                                  const UnloadedOffers* unloaded = nullptr);

// Up to n of `candidates` closest to `name` (case-insensitive edit distance), best first.
std::vector<std::string> closest_names(std::string_view name,
                                       const std::vector<std::string>& candidates,
                                       std::size_t n = 3);

}  // namespace gpubill
