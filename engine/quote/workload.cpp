// Resolving a workload against the catalog: names, defaults, contradictions.
#include <algorithm>
#include <set>
#include <stdexcept>

#include "base/text_match.hpp"
#include "gpubill/base/errors.hpp"
#include "gpubill/catalog/catalog_offers.hpp"
#include "gpubill/quote/workload.hpp"

namespace gpubill {

namespace {

std::string join(const std::vector<std::string>& items, std::string_view sep = ", ") {
  std::string out;
  for (const auto& i : items) {
    if (!out.empty()) out += sep;
    out += i;
  }
  return out;
}

// Raises an InputError for the field at `pointer` ("/duration/hours", "/gpu/models/1"): names
// the flag when a command-line flag set it, else the file, the object's pointer and the key.
[[noreturn]] void fail(const Workload& w, const std::string& pointer, const std::string& reason) {
  for (std::string p = pointer; !p.empty();) {
    if (auto it = w.flags.find(p); it != w.flags.end()) {
      throw InputError("command line", "", it->second, reason);
    }
    const auto slash = p.rfind('/');
    p = slash == 0 || slash == std::string::npos ? std::string() : p.substr(0, slash);
  }
  const auto slash = pointer.rfind('/');
  std::string place = slash == 0 ? "/" : pointer.substr(0, slash);
  std::string field = pointer.substr(slash + 1);
  if (!field.empty() && std::all_of(field.begin(), field.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c));
      })) {
    place = pointer;  // an array item: "/gpu/models/1", field "models"
    const auto parent = pointer.substr(0, slash);
    field = parent.substr(parent.rfind('/') + 1);
  }
  throw InputError(w.source, place, field, reason);
}

// The limits of every numeric field, the same whether a file or a flag gave it (a flag names the
// flag in the error). They keep a typo from asking for centuries or a billion GPUs; the quote's
// time and memory do not depend on them (prepaid plans are solved in closed form).
struct Limit {
  const char* pointer;
  std::int64_t max;
  const char* unit;
};
constexpr Limit kLimits[] = {
    {"/gpu/count", 1'024, "GPUs per instance"},
    {"/gpu/min_fp32_tflops", 100'000, "TFLOPS"},
    {"/gpu/min_fp16_tflops", 100'000, "TFLOPS"},
    {"/gpu/min_memory_gb", 100'000, "GB"},
    {"/host/min_vcpu", 100'000, "vCPUs"},
    {"/host/min_ram_gb", 1'000'000, "GB"},
    {"/storage/dataset_gb", 1'000'000'000, "GB"},
    {"/storage/headroom_gb", 1'000'000'000, "GB"},
    {"/network/bandwidth_mbps", 1'000'000, "Mbps"},
    {"/network/egress_gb", 1'000'000'000, "GB"},
    {"/duration/hours", 876'000, "hours (100 years)"},
    {"/duration/days", 36'500, "days (100 years)"},
    {"/duration/months", 1'200, "months (100 years)"},
    {"/duration/gpu_hours", 100'000'000, "GPU-hours"},
    {"/duration/pflop", 1'000'000'000'000, "PFLOP"},
    {"/spot/interruptions_per_hour", 1'000, "interruptions per hour"},
    {"/spot/checkpoint_interval_hours", 10'000, "hours"},
    {"/spot/checkpoint_write_hours", 10'000, "hours"},
    {"/spot/restart_hours", 10'000, "hours"},
};

std::optional<Decimal> value_at(const Workload& w, std::string_view pointer) {
  const auto dec = [](const std::optional<int>& v) {
    return v ? std::optional<Decimal>(Decimal(*v)) : std::nullopt;
  };
  if (pointer == "/gpu/count") return dec(w.gpu.count);
  if (pointer == "/gpu/min_fp32_tflops") return w.gpu.min_fp32_tflops;
  if (pointer == "/gpu/min_fp16_tflops") return w.gpu.min_fp16_tflops;
  if (pointer == "/gpu/min_memory_gb") return w.gpu.min_memory_gb;
  if (pointer == "/host/min_vcpu") return dec(w.host.min_vcpu);
  if (pointer == "/host/min_ram_gb") return w.host.min_ram_gb;
  if (pointer == "/storage/dataset_gb") return w.storage.dataset_gb;
  if (pointer == "/storage/headroom_gb") return w.storage.headroom_gb;
  if (pointer == "/network/bandwidth_mbps") return dec(w.network.bandwidth_mbps);
  if (pointer == "/network/egress_gb") return w.network.egress_gb;
  if (pointer == "/duration/hours") return w.duration.hours;
  if (pointer == "/duration/days") return dec(w.duration.days);
  if (pointer == "/duration/months") return dec(w.duration.months);
  if (pointer == "/duration/gpu_hours") return w.duration.gpu_hours;
  if (pointer == "/duration/pflop") return w.duration.pflop;
  if (pointer == "/spot/interruptions_per_hour") return w.spot.interruptions_per_hour;
  if (pointer == "/spot/checkpoint_interval_hours") return w.spot.checkpoint_interval_hours;
  if (pointer == "/spot/checkpoint_write_hours") return w.spot.checkpoint_write_hours;
  if (pointer == "/spot/restart_hours") return w.spot.restart_hours;
  throw std::logic_error("workload limits: no field at " + std::string(pointer));
}

void check_limits(const Workload& w) {
  for (const Limit& l : kLimits) {
    const auto v = value_at(w, l.pointer);
    if (!v) continue;
    if (v->sign() < 0) fail(w, l.pointer, "must not be negative (found " + v->to_string() + ")");
    if (*v > Decimal(l.max)) {
      fail(w, l.pointer,
           v->to_string() + " is above the limit of " + std::to_string(l.max) + " " + l.unit);
    }
  }
}

std::string item(const std::string& array_pointer, std::size_t i) {
  return array_pointer + "/" + std::to_string(i);
}

std::optional<Decimal> throughput(const Gpu& g, Precision p) {
  return p == Precision::fp32 ? g.fp32_tflops : g.fp16_tensor_tflops;
}

std::string gb(const std::optional<Decimal>& d) {
  return d ? d->to_string() + " GB" : "unknown memory";
}

// Why a GPU misses the workload's GPU floors; empty when it meets them.
std::vector<std::string> floor_misses(const Gpu& g, const Workload& w) {
  std::vector<std::string> out;
  const auto& need = w.gpu;
  if (need.min_memory_gb && (!g.memory_gb || *g.memory_gb < *need.min_memory_gb)) {
    out.push_back(g.id + " has " + gb(g.memory_gb) + ", below min_memory_gb " +
                  need.min_memory_gb->to_string());
  }
  if (need.min_fp32_tflops && (!g.fp32_tflops || *g.fp32_tflops < *need.min_fp32_tflops)) {
    out.push_back(g.id + " has " +
                  (g.fp32_tflops ? g.fp32_tflops->to_string() + " FP32 TFLOPS" : "no FP32 figure") +
                  ", below min_fp32_tflops " + need.min_fp32_tflops->to_string());
  }
  if (need.min_fp16_tflops &&
      (!g.fp16_tensor_tflops || *g.fp16_tensor_tflops < *need.min_fp16_tflops)) {
    out.push_back(g.id + " has " +
                  (g.fp16_tensor_tflops ? g.fp16_tensor_tflops->to_string() + " FP16 TFLOPS"
                                        : "no FP16 tensor figure") +
                  ", below min_fp16_tflops " + need.min_fp16_tflops->to_string());
  }
  if (need.nvlink && !g.nvlink()) {
    out.push_back(g.id + " uses " + (g.interconnect.empty() ? "an unknown bus" : g.interconnect) +
                  ", not NVLink (nvlink is required)");
  }
  return out;
}

// The interruption model of the spot lines, after the modes are known.
void resolve_spot(const Workload& w, ResolvedWorkload& r) {
  const SpotNeed& s = w.spot;
  if (!s.interruptions_per_hour) {
    const std::pair<const std::optional<Decimal>*, const char*> others[] = {
        {&s.checkpoint_interval_hours, "checkpoint_interval_hours"},
        {&s.checkpoint_write_hours, "checkpoint_write_hours"},
        {&s.restart_hours, "restart_hours"}};
    for (const auto& [value, key] : others) {
      if (*value) {
        fail(w, std::string("/spot/") + key,
             std::string(key) + " is given without interruptions_per_hour");
      }
    }
    return;
  }
  if (std::find(r.modes.begin(), r.modes.end(), BillingMode::spot) == r.modes.end()) {
    fail(w, "/spot/interruptions_per_hour",
         "an interruption rate applies to spot lines, and the workload's modes exclude spot");
  }
  SpotInterruptionModel m;
  m.interruptions_per_hour = *s.interruptions_per_hour;
  if (s.checkpoint_interval_hours) {
    if (s.checkpoint_interval_hours->sign() <= 0) {
      fail(w, "/spot/checkpoint_interval_hours", "checkpoint_interval_hours must be above 0");
    }
    m.checkpoint_interval_hours = *s.checkpoint_interval_hours;
  }
  m.checkpoint_write_hours = s.checkpoint_write_hours.value_or(Decimal{});
  m.restart_hours = s.restart_hours.value_or(Decimal{});
  r.spot_model = m;
}

}  // namespace

Precision parse_precision(std::string_view text) {
  if (text == "fp32") return Precision::fp32;
  if (text == "fp16") return Precision::fp16;
  throw ParseError("unknown precision '" + std::string(text) + "' (expected fp32 or fp16)");
}

std::string_view to_string(Precision p) noexcept {
  return p == Precision::fp32 ? "fp32" : "fp16";
}

std::string_view to_string(DurationKind kind) noexcept {
  switch (kind) {
    case DurationKind::hours:
      return "hours";
    case DurationKind::daily:
      return "hours_per_day";
    case DurationKind::months:
      return "months";
    case DurationKind::gpu_hours:
      return "gpu_hours";
    case DurationKind::pflop:
      return "pflop";
  }
  return "?";
}

std::vector<std::string> closest_names(std::string_view name,
                                       const std::vector<std::string>& candidates, std::size_t n) {
  return text_match::closest(name, candidates, n);
}

namespace {

// ---- the steps of resolve_workload, in its order

// The GPU floors, and the models the workload names, each checked against those floors.
void resolve_gpus(const Workload& w, const Catalog& catalog, ResolvedWorkload& r) {
  r.gpu_count = w.gpu.count.value_or(1);
  if (w.gpu.fraction) {
    if (w.gpu.count && *w.gpu.count != 1) {
      fail(w, "/gpu_fraction", "give either a GPU count or a fraction of one GPU, not both");
    }
    if (w.gpu.fraction->sign() <= 0 || *w.gpu.fraction >= Decimal(1)) {
      fail(w, "/gpu_fraction",
           "gpu_fraction " + w.gpu.fraction->to_string() +
               " is not a share of one GPU (above 0, below 1; whole GPUs are a count)");
    }
    r.gpu_fraction = w.gpu.fraction;
  }
  if (r.gpu_count < 1) {
    fail(w, "/gpu/count",
         "count " + std::to_string(r.gpu_count) +
             " contradicts a GPU workload: an offer needs at least one GPU");
  }
  r.min_fp32_tflops = w.gpu.min_fp32_tflops;
  r.min_fp16_tflops = w.gpu.min_fp16_tflops;
  r.min_memory_gb = w.gpu.min_memory_gb;
  r.nvlink = w.gpu.nvlink;
  for (std::size_t i = 0; i < w.gpu.models.size(); ++i) {
    const std::string& name = w.gpu.models[i];
    std::vector<const Gpu*> matched;
    try {
      matched = gpus_matching(catalog, name);  // the same rule as `gpubill catalog offers --gpu`
    } catch (const NotFound& e) {
      fail(w, item("/gpu/models", i), e.what());
    }
    std::vector<std::string> misses;
    bool any_fits = false;
    for (const Gpu* g : matched) {
      auto m = floor_misses(*g, w);
      any_fits = any_fits || m.empty();
      misses.insert(misses.end(), m.begin(), m.end());
    }
    if (!any_fits) {
      fail(w, item("/gpu/models", i),
           "GPU '" + name +
               "' contradicts the workload's own GPU constraints: " + join(misses, "; "));
    }
    for (const Gpu* g : matched) {
      if (std::find(r.gpus.begin(), r.gpus.end(), g) == r.gpus.end()) r.gpus.push_back(g);
    }
    r.matched_names.emplace_back(name, matched);
  }
}

void resolve_host(const Workload& w, ResolvedWorkload& r) {
  r.min_vcpu = w.host.min_vcpu;
  if (w.host.min_ram_gb) {
    r.min_ram_gb = w.host.min_ram_gb;
    r.ram_default = false;
  }
}

void resolve_storage_and_network(const Workload& w, ResolvedWorkload& r) {
  if (w.storage.dataset_gb || w.storage.headroom_gb) {
    r.dataset_gb = w.storage.dataset_gb.value_or(Decimal{});
    r.headroom_default = !w.storage.headroom_gb;
    r.headroom_gb = w.storage.headroom_gb.value_or(Decimal(50));
    r.storage_gb = r.dataset_gb + r.headroom_gb;
    if (r.storage_gb->is_zero()) r.storage_gb.reset();
  }
  if (w.storage.disk_kind) r.disk_kind = *w.storage.disk_kind;
  r.bandwidth_mbps = w.network.bandwidth_mbps;
  if (r.bandwidth_mbps && *r.bandwidth_mbps == 0) r.bandwidth_mbps.reset();
  r.egress_gb = w.network.egress_gb;
}

// The GPU that gpu_hours were measured on: reference_gpu, else the first GPU model.
void resolve_reference_gpu(const Workload& w, const Catalog& catalog, ResolvedWorkload& r) {
  const auto& d = w.duration;
  if (d.reference_gpu) {
    r.reference_gpu = catalog.find_gpu(*d.reference_gpu);
    if (!r.reference_gpu) {
      const auto hint = catalog.closest_gpu_names(*d.reference_gpu);
      fail(w, "/duration/reference_gpu",
           "unknown GPU '" + *d.reference_gpu + "'" +
               (hint.empty() ? "" : " (closest known: " + join(hint) + ")"));
    }
  } else if (!w.gpu.models.empty()) {
    r.reference_gpu = catalog.find_gpu(w.gpu.models.front());
    if (!r.reference_gpu) r.reference_gpu = r.matched_names.front().second.front();
  } else {
    fail(w, "/duration/reference_gpu",
         "gpu_hours needs the GPU they were measured on: give reference_gpu (or a GPU model)");
  }
  if (!throughput(*r.reference_gpu, r.precision)) {
    fail(w, "/duration/reference_gpu",
         "reference GPU " + r.reference_gpu->id + " has no " + std::string(to_string(r.precision)) +
             " throughput in the catalog");
  }
}

// The duration: exactly one kind, with the fields that kind takes.
void resolve_duration(const Workload& w, const Catalog& catalog, ResolvedWorkload& r) {
  const auto& d = w.duration;
  std::vector<std::pair<DurationKind, std::string>> given;
  if (d.hours) given.emplace_back(DurationKind::hours, "hours");
  if (d.hours_per_day || d.days)
    given.emplace_back(DurationKind::daily, d.hours_per_day ? "hours_per_day" : "days");
  if (d.months) given.emplace_back(DurationKind::months, "months");
  if (d.gpu_hours) given.emplace_back(DurationKind::gpu_hours, "gpu_hours");
  if (d.pflop) given.emplace_back(DurationKind::pflop, "pflop");
  if (given.empty()) {
    if (d.reference_gpu)
      fail(w, "/duration/reference_gpu", "reference_gpu is given without gpu_hours");
    fail(w, "/duration",
         "no duration: give hours, hours_per_day and days, months, gpu_hours (work on a "
         "reference GPU) or pflop (work at a precision and efficiency)");
  }
  if (given.size() > 1) {
    std::vector<std::string> names;
    for (const auto& g : given) names.push_back(g.second);
    fail(w, "/duration/" + given[1].second,
         join(names, " and ") + " are both given: they are contradictory durations, give one");
  }
  r.duration = given[0].first;
  r.precision = d.precision.value_or(Precision::fp32);
  const bool work = r.duration == DurationKind::gpu_hours || r.duration == DurationKind::pflop;
  if (!work && d.precision)
    fail(w, "/duration/precision", "precision applies only to gpu_hours or pflop work");
  if (d.efficiency && r.duration != DurationKind::pflop) {
    fail(w, "/duration/efficiency", "efficiency applies only to pflop work");
  }
  if (d.reference_gpu && r.duration != DurationKind::gpu_hours) {
    fail(w, "/duration/reference_gpu", "reference_gpu applies only to gpu_hours work");
  }
  auto positive = [&](const std::optional<Decimal>& v, const char* key) {
    if (v && v->sign() <= 0) {
      fail(w, std::string("/duration/") + key, std::string(key) + " must be above 0");
    }
  };
  switch (r.duration) {
    case DurationKind::hours:
      positive(d.hours, "hours");
      r.hours = *d.hours;
      break;
    case DurationKind::daily:
      if (!d.hours_per_day) fail(w, "/duration/days", "days is given without hours_per_day");
      if (!d.days) fail(w, "/duration/hours_per_day", "hours_per_day is given without days");
      positive(d.hours_per_day, "hours_per_day");
      if (*d.hours_per_day > Decimal(24)) {
        fail(w, "/duration/hours_per_day",
             "hours_per_day " + d.hours_per_day->to_string() + " is more than a day has");
      }
      if (*d.days < 1) fail(w, "/duration/days", "days must be at least 1");
      r.hours = *d.hours_per_day;
      r.days = *d.days;
      break;
    case DurationKind::months:
      if (*d.months < 1) fail(w, "/duration/months", "months must be at least 1");
      r.months = *d.months;
      r.hours = Decimal(720) * r.months;
      break;
    case DurationKind::gpu_hours: {
      positive(d.gpu_hours, "gpu_hours");
      r.work = *d.gpu_hours;
      resolve_reference_gpu(w, catalog, r);
      break;
    }
    case DurationKind::pflop:
      positive(d.pflop, "pflop");
      r.work = *d.pflop;
      r.efficiency = d.efficiency.value_or(Decimal(1));
      if (r.efficiency.sign() <= 0 || r.efficiency > Decimal(1)) {
        fail(w, "/duration/efficiency",
             "efficiency " + r.efficiency.to_string() + " is not a fraction of peak in (0, 1]");
      }
      break;
  }
}

void resolve_providers(const Workload& w, const Catalog& catalog, ResolvedWorkload& r) {
  const CatalogData& data = catalog.data();
  std::vector<std::string> provider_ids;
  for (const auto& p : data.providers) provider_ids.push_back(p.id);
  for (std::size_t i = 0; i < w.providers.size(); ++i) {
    const std::string id = text_match::to_lower(w.providers[i]);
    if (!catalog.find_provider(id)) {
      const auto hint = closest_names(w.providers[i], provider_ids);
      fail(w, item("/providers", i),
           "unknown provider '" + w.providers[i] + "'" +
               (hint.empty() ? "" : " (closest known: " + join(hint) + ")"));
    }
    if (std::find(r.providers.begin(), r.providers.end(), id) == r.providers.end()) {
      r.providers.push_back(id);
    }
  }
}

// The regions, each known to the catalog and owned by one of the workload's providers.
void resolve_regions(const Workload& w, const Catalog& catalog, const UnloadedOffers* unloaded,
                     ResolvedWorkload& r) {
  const CatalogData& data = catalog.data();
  std::set<std::pair<std::string, std::string>> known_regions;  // (region, provider)
  for (const auto& reg : data.regions) known_regions.emplace(reg.id, reg.provider);
  for (const auto& p : data.prices) {
    if (!p.region.empty()) known_regions.emplace(p.region, p.provider);
  }
  if (unloaded) {
    for (const auto& [provider, region] : unloaded->price_regions) {
      known_regions.emplace(region, provider);
    }
  }
  std::vector<std::string> region_ids;
  for (const auto& [id, provider] : known_regions) {
    if (region_ids.empty() || region_ids.back() != id) region_ids.push_back(id);
  }
  for (std::size_t i = 0; i < w.regions.size(); ++i) {
    const std::string& id = w.regions[i];
    std::vector<std::string> owners;
    for (const auto& [rid, provider] : known_regions) {
      if (rid == id) owners.push_back(provider);
    }
    if (owners.empty()) {
      const auto hint = closest_names(id, region_ids);
      fail(w, item("/regions", i),
           "unknown region '" + id + "'" +
               (hint.empty() ? "" : " (closest known: " + join(hint) + ")"));
    }
    if (!r.providers.empty() &&
        std::none_of(owners.begin(), owners.end(), [&](const std::string& o) {
          return std::find(r.providers.begin(), r.providers.end(), o) != r.providers.end();
        })) {
      fail(w, item("/regions", i),
           "region '" + id + "' belongs to " + join(owners) + ", which the workload's providers (" +
               join(r.providers) + ") exclude");
    }
    if (std::find(r.regions.begin(), r.regions.end(), id) == r.regions.end()) {
      r.regions.push_back(id);
    }
  }
}

void resolve_modes(const Workload& w, ResolvedWorkload& r) {
  for (std::size_t i = 0; i < w.modes.size(); ++i) {
    try {
      const BillingMode m = parse_billing_mode(w.modes[i]);
      if (std::find(r.modes.begin(), r.modes.end(), m) == r.modes.end()) r.modes.push_back(m);
    } catch (const ParseError& e) {
      fail(w, item("/modes", i), e.what());
    }
  }
  if (r.modes.empty()) {
    r.modes = {BillingMode::payg, BillingMode::prepaid, BillingMode::spot, BillingMode::reserved_1y,
               BillingMode::reserved_3y};
  }
}

void resolve_currency(const Workload& w, ResolvedWorkload& r) {
  if (w.currency) {
    try {
      r.currency = Currency::parse(*w.currency);
      r.currency_default = false;
    } catch (const ParseError& e) {
      fail(w, "/currency", e.what());
    }
  }
}

// The quote's month: 28 to 31 days of hours, or unset (each provider's convention).
void resolve_month_hours(const Workload& w, ResolvedWorkload& r) {
  if (!w.month_hours) return;
  if (*w.month_hours < 672 || *w.month_hours > 744) {
    fail(w, "/month_hours",
         "month_hours must be 672 to 744 (28 to 31 days), found " + std::to_string(*w.month_hours));
  }
  r.month_hours = *w.month_hours;
}

void resolve_date(const Workload& w, const Catalog& catalog, const UnloadedOffers* unloaded,
                  ResolvedWorkload& r) {
  if (w.date) {
    try {
      r.at = parse_instant(*w.date, true);
      r.at_default = false;
    } catch (const ParseError& e) {
      fail(w, "/date", e.what());
    }
  } else if (w.today) {
    r.at = *w.today;
    r.at_today = true;
  } else {
    auto latest = catalog.latest_price_date();
    if (unloaded && unloaded->latest_price_from &&
        (!latest || *unloaded->latest_price_from > *latest)) {
      latest = unloaded->latest_price_from;
    }
    if (!latest) fail(w, "/date", "the catalog holds no prices, so there is no default date");
    r.at = *latest;
  }
}

}  // namespace

ResolvedWorkload resolve_workload(const Workload& w, const Catalog& catalog,
                                  const UnloadedOffers* unloaded) {
  check_limits(w);
  ResolvedWorkload r;
  r.spec = w;
  resolve_gpus(w, catalog, r);
  resolve_host(w, r);
  resolve_storage_and_network(w, r);
  resolve_duration(w, catalog, r);
  resolve_providers(w, catalog, r);
  resolve_regions(w, catalog, unloaded, r);
  resolve_modes(w, r);
  resolve_spot(w, r);
  resolve_currency(w, r);
  resolve_date(w, catalog, unloaded, r);
  resolve_month_hours(w, r);
  return r;
}

}  // namespace gpubill
