// SkyPilot's service catalog (skypilot-org/skypilot-catalog, catalogs/v7/<cloud>/vms.csv):
// one row per (instance type or attachable GPU, availability zone), turned into catalog rows.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <set>

#include "base/csv_reader.hpp"
#include "base/text_check.hpp"
#include "gpubill/base/errors.hpp"
#include "gpubill/catalog/catalog_import.hpp"

namespace gpubill {

namespace {

const char* const kRequired[] = {"InstanceType", "AcceleratorName", "AcceleratorCount", "vCPUs",
                                 "MemoryGiB",    "Region",          "AvailabilityZone", "Price",
                                 "SpotPrice"};

struct Row {
  std::size_t line = 0;
  std::string type, accelerator, region, zone;
  std::optional<Decimal> count, vcpus, memory, price, spot;
};

class Reader {
 public:
  Reader(const std::string& file, const CsvRecord& header) : file_(file) {
    for (std::size_t i = 0; i < header.fields.size(); ++i) {
      if (!columns_.emplace(header.fields[i], i).second) {
        fail(header.line, header.fields[i], "column appears twice in the header");
      }
    }
    width_ = header.fields.size();
    for (const char* name : kRequired) {
      if (!columns_.count(name)) fail(header.line, name, "missing column in the header");
    }
  }

  [[noreturn]] void fail(std::size_t line, const std::string& field, const std::string& why) const {
    throw InputError(file_, "line " + std::to_string(line), field, why);
  }

  Row read(const CsvRecord& rec) const {
    if (rec.fields.size() != width_) {
      fail(rec.line, "",
           "expected " + std::to_string(width_) + " fields as in the header, found " +
               std::to_string(rec.fields.size()));
    }
    Row r;
    r.line = rec.line;
    r.type = field(rec, "InstanceType");
    r.accelerator = field(rec, "AcceleratorName");
    r.region = field(rec, "Region");
    r.zone = field(rec, "AvailabilityZone");
    r.count = number(rec, "AcceleratorCount");
    r.vcpus = number(rec, "vCPUs");
    r.memory = number(rec, "MemoryGiB");
    r.price = number(rec, "Price");
    r.spot = number(rec, "SpotPrice");
    if (r.region.empty()) fail(rec.line, "Region", "empty");
    if (!r.accelerator.empty() && (!r.count || r.count->sign() <= 0)) {
      fail(rec.line, "AcceleratorCount", "must be above 0 when AcceleratorName is given");
    }
    return r;
  }

 private:
  // A text field, checked like every name read from a file (text_check.hpp).
  const std::string& field(const CsvRecord& rec, const char* name) const {
    const std::string& text = rec.fields[columns_.at(name)];
    if (auto why = text_check::problem(text, text_check::kMaxNameBytes)) fail(rec.line, name, *why);
    return text;
  }

  // An empty field is unknown; anything else must be a non-negative decimal ("8.0", "3.06").
  std::optional<Decimal> number(const CsvRecord& rec, const char* name) const {
    const auto& text = field(rec, name);
    if (text.empty()) return std::nullopt;
    auto d = Decimal::try_parse(text);
    if (!d) fail(rec.line, name, "'" + text + "' is not a decimal number");
    if (d->sign() < 0) fail(rec.line, name, "must not be negative (found " + text + ")");
    if (*d > Decimal(kMaxCatalogAmount)) {
      fail(rec.line, name, text + " is above the limit of " + std::to_string(kMaxCatalogAmount));
    }
    return d;
  }

  const std::string& file_;
  std::map<std::string, std::size_t> columns_;
  std::size_t width_ = 0;
};

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isdigit(static_cast<unsigned char>(c));
  });
}

// "use1-az1", "apne1-az4": an AWS availability-zone id.
bool aws_zone_id(std::string_view zone) {
  const auto dash = zone.find("-az");
  return dash != std::string_view::npos && dash > 0 && all_digits(zone.substr(dash + 3)) &&
         std::isdigit(static_cast<unsigned char>(zone[dash - 1]));
}

// "us-central1-f" in region "us-central1": a zone named after its region plus a letter.
bool region_letter_zone(std::string_view zone, std::string_view region) {
  return zone.size() == region.size() + 2 && zone.substr(0, region.size()) == region &&
         zone[region.size()] == '-' && std::islower(static_cast<unsigned char>(zone.back()));
}

std::string infer_provider(const std::vector<Row>& rows, const std::string& file) {
  bool aws = true, google = true, any = false;
  for (const auto& r : rows) {
    if (r.zone.empty()) continue;
    any = true;
    aws = aws && aws_zone_id(r.zone);
    google = google && region_letter_zone(r.zone, r.region);
  }
  if (any && aws) return "aws";
  if (any && google) return "google";
  throw InputError(file, "", "provider",
                   "cannot tell the provider from the availability zones; name it (aws, google)");
}

// "p3.2xlarge" → "p3", "n1-standard-8" → "n1".
std::string family_of(const std::string& type) {
  return type.substr(0, type.find_first_of(".-"));
}

std::string line_text(std::size_t line) {
  return "line " + std::to_string(line);
}

// Prices of one subject in one region, gathered zone by zone.
struct RegionPrices {
  std::map<std::string, Decimal> payg_by_zone;  // zone → on-demand price
  std::map<std::string, Decimal> spot_by_zone;
  std::map<std::string, std::size_t> zone_line;  // zone → its first row, for messages
  std::size_t first_line = 0;
};

// One attachable-GPU row kept as the reference of its (GPU, region, zone).
struct GpuZoneRef {
  Decimal count;
  std::optional<Decimal> price, spot;
  std::size_t line = 0;
};

class Converter {
 public:
  Converter(const std::string& file, const SkyPilotOptions& options, const Catalog& catalog,
            std::string provider)
      : file_(file), options_(options), catalog_(catalog), provider_(std::move(provider)) {
    try {
      as_of_day_ = parse_day(options.as_of);
    } catch (const Error& e) {
      throw ParseError("a SkyPilot import needs an as-of date (YYYY-MM-DD): " +
                       std::string(e.what()));
    }
    currency_ = Currency::parse(options.currency);
    from_ = options.effective_from.value_or(Instant{as_of_day_});
    source_ = options.source.empty()
                  ? "SkyPilot catalog " + std::filesystem::path(file).filename().string() + " [S]"
                  : options.source;
  }

  void add(const Row& r, bool keep_hosts) {
    if (r.type.empty() && r.accelerator.empty()) {
      skip("rows naming neither an instance type nor an accelerator", r.line);
      return;
    }
    const Gpu* gpu = nullptr;
    if (!r.accelerator.empty()) {
      gpu = catalog_.find_gpu(r.accelerator);
      if (!gpu) {
        skip("rows with accelerator '" + r.accelerator + "', which is not a catalog GPU", r.line);
        return;
      }
    }
    if (r.type.empty()) {
      add_gpu_row(r, *gpu);
      return;
    }
    if (!gpu && !keep_hosts) {
      skip("rows of instance types without accelerators (not GPU servers)", r.line);
      return;
    }
    add_instance_row(r, gpu);
  }

  SkyPilotImport finish() {
    SkyPilotImport out;
    out.notes = std::move(notes_);
    std::set<std::string> regions;
    for (auto& [id, it] : types_) out.data.instance_types.push_back(it);
    for (const auto& [key, by_region] : prices_) {
      const auto& [kind, subject] = key;
      for (const auto& [region, rp] : by_region) {
        regions.insert(region);
        auto builtin = builtin_.find(subject);
        if (kind == SubjectKind::instance && builtin != builtin_.end()) {
          emit(out, kind, subject, region,
               with_builtin_gpus(out, subject, region, rp, builtin->second));
        } else {
          emit(out, kind, subject, region, rp);
        }
      }
    }
    for (const auto& region : regions) out.data.regions.push_back({provider_, region, ""});
    for (const auto& [what, s] : skipped_) {
      out.notes.push_back(line_text(s.first_line) + ": skipped " + std::to_string(s.rows) + " " +
                          what + " (first at this line)");
    }
    return out;
  }

 private:
  struct Skipped {
    std::size_t first_line = 0, rows = 0;
  };

  void skip(const std::string& what, std::size_t line) {
    auto& s = skipped_[what];
    if (s.rows++ == 0) s.first_line = line;
  }

  // A host row (no accelerator) in a file that prices GPUs separately covers the host only. When
  // the catalog says the type has built-in GPUs (e.g. a2-highgpu-1g with an A100), its price is
  // the host price plus the GPUs' price in the same zone.
  RegionPrices with_builtin_gpus(SkyPilotImport& out, const std::string& type,
                                 const std::string& region, const RegionPrices& host,
                                 const std::pair<std::string, Decimal>& gpus) const {
    const std::string& gpu = gpus.first;  // not a structured binding: clang 14 cannot capture one
    const Decimal& count = gpus.second;
    RegionPrices sum;
    sum.first_line = host.first_line;
    const RegionPrices* per_gpu = nullptr;
    if (auto g = prices_.find({SubjectKind::gpu, gpu}); g != prices_.end()) {
      if (auto in_region = g->second.find(region); in_region != g->second.end()) {
        per_gpu = &in_region->second;
      }
    }
    const auto add = [&](const std::map<std::string, Decimal>& hosts,
                         const std::map<std::string, Decimal>* gpu_by_zone,
                         std::map<std::string, Decimal>& into) {
      if (!gpu_by_zone) return;
      for (const auto& [zone, price] : hosts) {
        if (auto g = gpu_by_zone->find(zone); g != gpu_by_zone->end()) {
          into[zone] = price + g->second * count;
        }
      }
    };
    add(host.payg_by_zone, per_gpu ? &per_gpu->payg_by_zone : nullptr, sum.payg_by_zone);
    add(host.spot_by_zone, per_gpu ? &per_gpu->spot_by_zone : nullptr, sum.spot_by_zone);
    const std::string what = line_text(host.first_line) + ": " + type + " in " + region +
                             ": the row prices the host only, and the catalog's " + type +
                             " includes " + count.to_string() + "\u00d7" + gpu;
    if (sum.payg_by_zone.empty() && sum.spot_by_zone.empty()) {
      out.notes.push_back(what + ", whose price in this region is not in the file; skipped");
    } else {
      out.notes.push_back(what + "; priced as host + GPUs in the same zone");
    }
    return sum;
  }

  void add_instance_row(const Row& r, const Gpu* gpu) {
    if (!gpu) {
      const InstanceType* known = catalog_.find_instance_type(provider_, r.type);
      if (known && !known->gpu.empty())
        builtin_.emplace(r.type, std::pair(known->gpu, known->gpu_count));
    }
    InstanceType spec;
    spec.provider = provider_;
    spec.id = r.type;
    spec.family = family_of(r.type);
    if (gpu) {
      spec.gpu = gpu->id;
      spec.gpu_count = *r.count;
    }
    if (r.vcpus) {
      if (r.vcpus->round(0, RoundingMode::down) == *r.vcpus) {
        spec.vcpu = static_cast<int>(r.vcpus->truncate_to_int());
      } else {
        spec.notes = "SkyPilot lists " + r.vcpus->to_string() + " vCPUs. ";
      }
    }
    spec.ram_gb = r.memory;
    spec.notes += "Imported from a SkyPilot catalog; RAM in GiB.";
    spec.source = source_;
    auto [it, inserted] = types_.emplace(r.type, spec);
    if (!inserted && !same_spec(it->second, spec) && differing_.insert(r.type).second) {
      notes_.push_back(line_text(r.line) + ": " + r.type +
                       " is described differently than on an earlier line; the first is kept");
    }
    record(SubjectKind::instance, r.type, r, r.price, r.spot);
  }

  static bool same_spec(const InstanceType& a, const InstanceType& b) {
    return a.gpu == b.gpu && a.gpu_count == b.gpu_count && a.vcpu == b.vcpu && a.ram_gb == b.ram_gb;
  }

  // An attachable GPU: prices cover `count` GPUs; every count in a zone must give the same
  // per-GPU price.
  void add_gpu_row(const Row& r, const Gpu& gpu) {
    const auto key = std::tuple(gpu.id, r.region, r.zone);
    auto [it, inserted] = gpu_refs_.emplace(key, GpuZoneRef{*r.count, r.price, r.spot, r.line});
    const GpuZoneRef& ref = it->second;
    if (!inserted) {
      check_scaling(r, ref, r.price, ref.price, "Price");
      check_scaling(r, ref, r.spot, ref.spot, "SpotPrice");
    }
    record(SubjectKind::gpu, gpu.id, r, per_gpu(r, r.price, "Price"),
           per_gpu(r, r.spot, "SpotPrice"));
  }

  void check_scaling(const Row& r, const GpuZoneRef& ref, const std::optional<Decimal>& price,
                     const std::optional<Decimal>& ref_price, const char* column) const {
    if (!price || !ref_price) return;
    if (*price * ref.count != *ref_price * *r.count) {
      throw InputError(file_, line_text(r.line), column,
                       r.accelerator + " x" + r.count->to_string() + " costs " +
                           price->to_string() + ", which is not " + r.count->to_string() + "/" +
                           ref.count.to_string() + " of " + ref_price->to_string() + " (x" +
                           ref.count.to_string() + " on " + line_text(ref.line) + " in zone " +
                           r.zone + ")");
    }
  }

  std::optional<Decimal> per_gpu(const Row& r, const std::optional<Decimal>& price,
                                 const char* column) {
    if (!price) return std::nullopt;
    const Decimal each =
        Decimal::divide(*price, *r.count, Decimal::kScale, RoundingMode::half_even);
    if (each * *r.count != *price) {
      notes_.push_back(line_text(r.line) + ": " + column + " " + price->to_string() + " / " +
                       r.count->to_string() + " GPUs is rounded to " + each.to_string());
    }
    return each;
  }

  void record(SubjectKind kind, const std::string& subject, const Row& r,
              const std::optional<Decimal>& price, const std::optional<Decimal>& spot) {
    auto& rp = prices_[{kind, subject}][r.region];
    if (rp.first_line == 0) rp.first_line = r.line;
    const std::size_t first_in_zone = rp.zone_line.emplace(r.zone, r.line).first->second;
    // Two rows for one zone: the same price is a harmless repeat; different prices are said,
    // and the dearer on-demand / the cheaper spot price is kept (as between zones).
    const auto keep = [&](std::map<std::string, Decimal>& by_zone, Decimal p, const char* column,
                          bool highest) {
      auto [it, inserted] = by_zone.emplace(r.zone, p);
      if (inserted || it->second == p) return;
      notes_.push_back(line_text(r.line) + ": " + (kind == SubjectKind::gpu ? "GPU " : "") +
                       subject + " in zone " + r.zone + " has " + column + " " + p.to_string() +
                       ", but " + it->second.to_string() + " on " + line_text(first_in_zone) +
                       " (or a row since); the " + (highest ? "highest" : "lowest") + " is kept");
      it->second = highest ? std::max(it->second, p) : std::min(it->second, p);
    };
    if (price) keep(rp.payg_by_zone, *price, "Price", true);
    if (spot) keep(rp.spot_by_zone, *spot, "SpotPrice", false);
  }

  void emit(SkyPilotImport& out, SubjectKind kind, const std::string& subject,
            const std::string& region, const RegionPrices& rp) {
    const std::string what = (kind == SubjectKind::gpu ? "GPU " : "") + subject + " in " + region;
    if (!rp.payg_by_zone.empty()) {
      Decimal low = rp.payg_by_zone.begin()->second, high = low;
      for (const auto& [zone, p] : rp.payg_by_zone) {
        low = std::min(low, p);
        high = std::max(high, p);
      }
      if (low != high) {
        out.notes.push_back(line_text(rp.first_line) + ": " + what + ": on-demand prices differ " +
                            "between zones (" + low.to_string() + " to " + high.to_string() +
                            "); the highest is kept");
      }
      out.data.prices.push_back(price_row(kind, subject, region, BillingMode::payg, high));
      out.price_lines.push_back(rp.first_line);
    }
    if (!rp.spot_by_zone.empty()) {
      Decimal low = rp.spot_by_zone.begin()->second;
      for (const auto& [zone, p] : rp.spot_by_zone) low = std::min(low, p);
      out.data.prices.push_back(price_row(kind, subject, region, BillingMode::spot, low));
      out.price_lines.push_back(rp.first_line);
    }
  }

  PriceRow price_row(SubjectKind kind, const std::string& subject, const std::string& region,
                     BillingMode mode, Decimal amount) const {
    PriceRow p;
    p.provider = provider_;
    p.subject_kind = kind;
    p.subject = subject;
    p.region = region;
    p.mode = mode;
    p.unit = PriceUnit::hour;
    p.amount = Money(amount, currency_);
    p.period.from = from_;
    p.source = source_ + (mode == BillingMode::spot ? " (lowest SpotPrice among the region's zones)"
                                                    : " (Price, on-demand)");
    p.as_of = options_.as_of;
    return p;
  }

  const std::string& file_;
  const SkyPilotOptions& options_;
  const Catalog& catalog_;
  std::string provider_, source_;
  date::sys_days as_of_day_{};
  Currency currency_ = Currency::parse("USD");
  Instant from_{};
  std::map<std::string, InstanceType> types_;
  std::map<std::string, std::pair<std::string, Decimal>> builtin_;  // type → its built-in GPUs
  std::set<std::string> differing_;
  std::map<std::pair<SubjectKind, std::string>, std::map<std::string, RegionPrices>> prices_;
  std::map<std::tuple<std::string, std::string, std::string>, GpuZoneRef> gpu_refs_;
  std::map<std::string, Skipped> skipped_;
  std::vector<std::string> notes_;
};

}  // namespace

SkyPilotImport parse_skypilot_csv(std::string_view text, const std::string& file_name,
                                  const SkyPilotOptions& options, const Catalog& catalog) {
  const auto records = parse_csv(text, file_name);
  if (records.empty()) throw InputError(file_name, "line 1", "", "empty file: expected a header");
  const Reader reader(file_name, records.front());
  std::vector<Row> rows;
  rows.reserve(records.size() - 1);
  for (std::size_t i = 1; i < records.size(); ++i) rows.push_back(reader.read(records[i]));

  const std::string provider =
      options.provider.empty() ? infer_provider(rows, file_name) : options.provider;
  (void)catalog.provider(provider);  // throws NotFound naming the known providers
  // Hosts without accelerators are GPU hosts only in a file that prices GPUs separately.
  const bool keep_hosts = std::any_of(rows.begin(), rows.end(), [](const Row& r) {
    return r.type.empty() && !r.accelerator.empty();
  });
  Converter converter(file_name, options, catalog, provider);
  for (const auto& r : rows) converter.add(r, keep_hosts);
  return converter.finish();
}

}  // namespace gpubill
