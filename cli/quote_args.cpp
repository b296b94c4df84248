// The workload flags and the quote they ask for (quote_args.hpp).
#include "quote_args.hpp"

#include <algorithm>

#include "gpubill/base/errors.hpp"
#include "gpubill/store/db.hpp"
#include "output.hpp"

namespace gpubill::cli {

namespace {

std::optional<Decimal> decimal_flag(const std::string& flag, const std::string& text) {
  const auto d = Decimal::try_parse(text);
  if (!d) throw InputError("command line", "", flag, "'" + text + "' is not an exact decimal");
  if (d->sign() < 0) throw InputError("command line", "", flag, "must not be negative");
  return d;
}

}  // namespace

void add_workload_options(CLI::App& sub, WorkloadArgs& a) {
  sub.add_option("workload", a.file,
                 "Workload file (JSON, docs/workload-format.md); flags override it");
  auto add = [&](const std::string& flag, auto& target, const std::string& help) {
    a.options[flag] = sub.add_option(flag, target, help);
  };
  add("--gpu", a.gpus,
      "GPU model (repeatable): V100, A100-80GB; a family name covers its variants");
  add("--count", a.count,
      "GPUs per instance (default 1); a share of one GPU (0.25, 0.5) quotes vGPU slices");
  add("--min-fp32", a.min_fp32, "Floor on FP32 TFLOPS per GPU");
  add("--min-fp16", a.min_fp16, "Floor on FP16 tensor TFLOPS per GPU");
  add("--min-gpu-memory", a.min_gpu_memory, "Floor on memory per GPU (GB)");
  a.options["--nvlink"] = sub.add_flag("--nvlink", a.nvlink, "Require NVLink between the GPUs");
  add("--min-vcpu", a.min_vcpu, "Floor on vCPUs");
  add("--min-ram", a.min_ram, "Floor on RAM in GB (default: the total GPU memory; 0 = none)");
  add("--dataset-gb", a.dataset_gb, "Data set size in GB, priced on SSD with the headroom");
  add("--headroom-gb", a.headroom_gb, "Extra SSD space in GB (default 50)");
  add("--disk-kind", a.disk_kind, "Disk kind to price (default cloud_ssd)");
  add("--bandwidth-mbps", a.bandwidth_mbps, "Fixed bandwidth in Mbps");
  add("--egress-gb", a.egress_gb, "Traffic out in GB");
  add("--hours", a.hours, "Duration: hours of continuous use");
  add("--hours-per-day", a.hours_per_day, "Duration: hours a day (with --days)");
  add("--days", a.days, "Duration: days of the daily schedule");
  add("--months", a.months,
      "Duration: months (of each provider's month: 730 h for AWS, Azure and Google, 720 h "
      "elsewhere; see --month-hours)");
  add("--month-hours", a.month_hours,
      "Hours in a month for this quote (672-744): months, monthly prices and cycles, prepaid "
      "months (default: each provider's calculator's)");
  add("--gpu-hours", a.gpu_hours, "Work: GPU-hours on the reference GPU");
  add("--reference-gpu", a.reference_gpu,
      "GPU the --gpu-hours were measured on (default: the first --gpu)");
  add("--pflop", a.pflop, "Work: total PFLOP");
  add("--precision", a.precision, "Precision of the work: fp32 (default) or fp16");
  add("--efficiency", a.efficiency,
      "Fraction of peak throughput the --pflop work reaches (default 1)");
  add("--interruptions-per-hour", a.interruptions_per_hour,
      "Spot: expected interruptions per hour of running; spot lines then show the expected "
      "total and finish time");
  add("--checkpoint-interval-hours", a.checkpoint_interval_hours,
      "Spot: hours between checkpoints (default 1)");
  add("--checkpoint-write-hours", a.checkpoint_write_hours,
      "Spot: hours to write one checkpoint (default 0)");
  add("--restart-hours", a.restart_hours, "Spot: hours to restart after a stop (default 0)");
  add("--provider", a.providers, "Allowed provider (repeatable)");
  add("--region", a.regions, "Allowed region (repeatable)");
  add("--mode", a.modes,
      "Allowed billing mode (repeatable): payg, prepaid, spot, reserved_1y, reserved_3y");
  add("--currency", a.currency, "Comparison currency (default CNY)");
  add("--at", a.at,
      "Date whose prices and FX rates apply, YYYY-MM-DD or RFC 3339 (default: today, UTC)");
}

Workload build_workload(const WorkloadArgs& a) {
  Workload w;
  if (!a.file.empty()) w = load_workload_file(a.file);
  auto mark = [&](const std::string& pointer, const std::string& flag) { w.flags[pointer] = flag; };
  // A flag given on the command line replaces the file's field at `pointer` (noted in w.flags).
  auto take = [&](const std::string& flag, const std::string& pointer, auto& field,
                  const auto& value) {
    if (!a.given(flag)) return;
    field = value;
    mark(pointer, flag);
  };
  auto take_decimal = [&](const std::string& flag, const std::string& pointer, auto& field,
                          const std::string& text) {
    if (!a.given(flag)) return;
    field = decimal_flag(flag, text);
    mark(pointer, flag);
  };
  take("--gpu", "/gpu/models", w.gpu.models, a.gpus);
  if (a.given("--count")) {
    const Decimal count = *decimal_flag("--count", a.count);
    if (count < Decimal(1) && count.sign() > 0) {
      w.gpu.fraction = count;
      w.gpu.count.reset();
      mark("/gpu_fraction", "--count");
    } else if (count > Decimal(1'000'000) || Decimal(count.truncate_to_int()) != count) {
      throw InputError("command line", "", "--count",
                       "'" + a.count + "' is neither a whole number of GPUs nor a share of one");
    } else {
      w.gpu.count = static_cast<int>(count.truncate_to_int());
      w.gpu.fraction.reset();
      mark("/gpu/count", "--count");
    }
  }
  take_decimal("--min-fp32", "/gpu/min_fp32_tflops", w.gpu.min_fp32_tflops, a.min_fp32);
  take_decimal("--min-fp16", "/gpu/min_fp16_tflops", w.gpu.min_fp16_tflops, a.min_fp16);
  take_decimal("--min-gpu-memory", "/gpu/min_memory_gb", w.gpu.min_memory_gb, a.min_gpu_memory);
  take("--nvlink", "/gpu/nvlink", w.gpu.nvlink, a.nvlink);
  take("--min-vcpu", "/host/min_vcpu", w.host.min_vcpu, a.min_vcpu);
  take_decimal("--min-ram", "/host/min_ram_gb", w.host.min_ram_gb, a.min_ram);
  take_decimal("--dataset-gb", "/storage/dataset_gb", w.storage.dataset_gb, a.dataset_gb);
  take_decimal("--headroom-gb", "/storage/headroom_gb", w.storage.headroom_gb, a.headroom_gb);
  take("--disk-kind", "/storage/disk_kind", w.storage.disk_kind, a.disk_kind);
  take("--bandwidth-mbps", "/network/bandwidth_mbps", w.network.bandwidth_mbps, a.bandwidth_mbps);
  take_decimal("--egress-gb", "/network/egress_gb", w.network.egress_gb, a.egress_gb);
  const std::pair<const char*, std::pair<std::optional<Decimal>*, const std::string*>> spot[] = {
      {"interruptions_per_hour", {&w.spot.interruptions_per_hour, &a.interruptions_per_hour}},
      {"checkpoint_interval_hours",
       {&w.spot.checkpoint_interval_hours, &a.checkpoint_interval_hours}},
      {"checkpoint_write_hours", {&w.spot.checkpoint_write_hours, &a.checkpoint_write_hours}},
      {"restart_hours", {&w.spot.restart_hours, &a.restart_hours}}};
  for (const auto& [key, target] : spot) {
    std::string flag = "--" + std::string(key);
    std::replace(flag.begin(), flag.end(), '_', '-');
    if (!a.given(flag)) continue;
    *target.first = decimal_flag(flag, *target.second);
    mark(std::string("/spot/") + key, flag);
  }
  // A duration flag replaces the file's duration as a whole.
  const bool new_duration = a.given("--hours") || a.given("--hours-per-day") || a.given("--days") ||
                            a.given("--months") || a.given("--gpu-hours") || a.given("--pflop");
  if (new_duration) w.duration = {};
  auto duration_flag = [&](const char* flag, const char* key) {
    if (a.given(flag)) mark(std::string("/duration/") + key, flag);
    return a.given(flag);
  };
  if (duration_flag("--hours", "hours")) w.duration.hours = decimal_flag("--hours", a.hours);
  if (duration_flag("--hours-per-day", "hours_per_day")) {
    w.duration.hours_per_day = decimal_flag("--hours-per-day", a.hours_per_day);
  }
  if (duration_flag("--days", "days")) w.duration.days = a.days;
  if (duration_flag("--months", "months")) w.duration.months = a.months;
  if (duration_flag("--gpu-hours", "gpu_hours")) {
    w.duration.gpu_hours = decimal_flag("--gpu-hours", a.gpu_hours);
  }
  if (duration_flag("--reference-gpu", "reference_gpu")) w.duration.reference_gpu = a.reference_gpu;
  if (duration_flag("--pflop", "pflop")) w.duration.pflop = decimal_flag("--pflop", a.pflop);
  if (duration_flag("--precision", "precision")) {
    try {
      w.duration.precision = parse_precision(a.precision);
    } catch (const ParseError& e) {
      throw InputError("command line", "", "--precision", e.what());
    }
  }
  if (duration_flag("--efficiency", "efficiency")) {
    w.duration.efficiency = decimal_flag("--efficiency", a.efficiency);
  }
  if (a.given("--provider")) {
    w.providers = a.providers;
    mark("/providers", "--provider");
  }
  if (a.given("--region")) {
    w.regions = a.regions;
    mark("/regions", "--region");
  }
  if (a.given("--mode")) {
    w.modes = a.modes;
    mark("/modes", "--mode");
  }
  if (a.given("--currency")) {
    w.currency = a.currency;
    mark("/currency", "--currency");
  }
  if (a.given("--at")) {
    w.date = a.at;
    mark("/date", "--at");
  }
  if (a.given("--month-hours")) {
    w.month_hours = a.month_hours;
    mark("/month_hours", "--month-hours");
  }
  return w;
}

std::string describe(const ResolvedWorkload& w) {
  std::string gpu;
  for (const auto& [name, gpus] : w.matched_names) {
    std::vector<std::string> ids;
    for (const Gpu* g : gpus) ids.push_back(g->id);
    gpu += (gpu.empty() ? "" : " or ") + name +
           (ids.size() == 1 && ids[0] == name ? "" : " (" + join(ids, ", ") + ")");
  }
  if (gpu.empty()) gpu = "any GPU";
  std::string floors;
  if (w.min_fp32_tflops) floors += ", FP32 ≥ " + w.min_fp32_tflops->to_string() + " TFLOPS";
  if (w.min_fp16_tflops) floors += ", FP16 ≥ " + w.min_fp16_tflops->to_string() + " TFLOPS";
  if (w.min_memory_gb) floors += ", memory ≥ " + w.min_memory_gb->to_string() + " GB";
  if (w.nvlink) floors += ", NVLink";
  if (w.min_vcpu) floors += ", ≥ " + std::to_string(*w.min_vcpu) + " vCPU";
  if (w.min_ram_gb) floors += ", RAM ≥ " + w.min_ram_gb->to_string() + " GB";
  return w.gpu_units().to_string() + " × " + gpu + floors;
}

Instant today_utc() {
  // The one place a quote reads the clock; the engine takes the day as input.
  return std::chrono::floor<date::days>(std::chrono::system_clock::now());
}

PricedQuote::PricedQuote(Catalog c, std::optional<UnloadedOffers> left_out, Workload spec,
                         const QuoteOptions& options)
    : catalog(std::move(c)),
      unloaded(std::move(left_out)),
      engine(catalog, unloaded ? &*unloaded : nullptr),
      workload(resolve_workload(std::move(spec), catalog, unloaded ? &*unloaded : nullptr)),
      result(engine.quote(workload, options)) {}

std::unique_ptr<PricedQuote> price_workload(gpubill::Database& db, Workload spec,
                                            const QuoteOptions& options) {
  // A quote reads prices at one instant: load the rows around it, not the whole history.
  std::optional<Instant> at;
  if (spec.date) {
    try {
      at = parse_instant(*spec.date, /*allow_date=*/true);
    } catch (const ParseError&) {
      // resolve_workload reports it, naming the field
    }
  } else {
    if (!spec.today) spec.today = today_utc();
    at = spec.today;
  }
  std::optional<UnloadedOffers> unloaded;
  Catalog catalog = at ? load_quote_catalog(db, *at, spec, &unloaded) : Catalog::load(db);
  return std::make_unique<PricedQuote>(std::move(catalog), std::move(unloaded), std::move(spec),
                                       options);
}

}  // namespace gpubill::cli
