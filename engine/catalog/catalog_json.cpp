// The JSON catalog format (docs/catalog-format.md): parsing with full validation, and the check
// of references between rows.
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "base/json_fields.hpp"
#include "base/text_match.hpp"
#include "catalog/catalog_commitments.hpp"
#include "catalog/catalog_store.hpp"
#include "catalog/policy_metering.hpp"
#include "catalog/policy_prepaid.hpp"
#include "gpubill/catalog/catalog_import.hpp"

namespace gpubill {

namespace {

using json_input::child_pointer;
using json_input::Fields;
using json_input::json;

constexpr std::string_view kFormat = "gpubill-catalog/1";

// A decimal field at most kMaxCatalogAmount.
Decimal bounded(const Fields& f, std::string_view key) {
  const Decimal d = f.decimal(key);
  if (d > Decimal(kMaxCatalogAmount)) {
    f.fail(key, d.to_string() + " is above the limit of " + std::to_string(kMaxCatalogAmount));
  }
  return d;
}

std::optional<Decimal> opt_bounded(const Fields& f, std::string_view key) {
  if (!f.has(key)) return std::nullopt;
  return bounded(f, key);
}

// The pointer of row i of a section: "/prices/3".
std::string row_pointer(std::string_view section, std::size_t i) {
  return child_pointer(child_pointer("", section), i);
}

BillingMode mode_field(const Fields& f) {
  const auto text = f.text("mode");
  try {
    return parse_billing_mode(text);
  } catch (const Error& e) {
    f.fail("mode", e.what());
  }
}

std::string one_of(const Fields& f, std::string_view key,
                   std::initializer_list<std::string_view> allowed) {
  auto text = f.text(key);
  if (std::find(allowed.begin(), allowed.end(), text) != allowed.end()) return text;
  std::string list;
  for (auto a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
  f.fail(key, "unknown value '" + text + "' (expected one of: " + list + ")");
}

Provider read_provider(const Fields& f) {
  Provider p;
  p.id = f.text("id");
  p.name = f.text("name");
  p.currency = f.currency("currency");
  p.billing_time_zone = f.text("billing_time_zone");
  try {
    (void)Calendar(p.billing_time_zone);
  } catch (const Error& e) {
    f.fail("billing_time_zone", e.what());
  }
  return p;
}

Region read_region(const Fields& f) {
  return {f.text("provider"), f.text("id"), f.opt_text("name")};
}

Gpu read_gpu(const Fields& f) {
  Gpu g;
  g.id = f.text("id");
  const auto& aliases = f.array("aliases");
  for (std::size_t i = 0; i < aliases.size(); ++i) {
    if (!aliases[i].is_string() || aliases[i].get<std::string>().empty()) {
      throw InputError(f.file(), child_pointer(child_pointer(f.pointer(), "aliases"), i), "aliases",
                       "expected a non-empty string");
    }
    g.aliases.push_back(aliases[i].get<std::string>());
  }
  g.vendor = f.opt_text("vendor");
  g.architecture = f.opt_text("architecture");
  g.fp64_tflops = opt_bounded(f, "fp64_tflops");
  g.fp32_tflops = opt_bounded(f, "fp32_tflops");
  g.fp16_tensor_tflops = opt_bounded(f, "fp16_tensor_tflops");
  g.int8_tops = opt_bounded(f, "int8_tops");
  g.memory_gb = opt_bounded(f, "memory_gb");
  g.memory_bandwidth_gbs = opt_bounded(f, "memory_bandwidth_gbs");
  g.interconnect = f.opt_text("interconnect");
  g.interconnect_bandwidth_gbs = opt_bounded(f, "interconnect_bandwidth_gbs");
  g.tdp_w = f.opt_integer("tdp_w", 0, 100000);
  if (const json* lp = f.find("launch_price")) {
    Fields price(*lp, child_pointer(f.pointer(), "launch_price"), f.file(), {"amount", "currency"});
    g.launch_price = Money(bounded(price, "amount"), price.currency("currency"));
  }
  g.units_per_board = f.opt_integer("units_per_board", 1, 64).value_or(1);
  g.source = f.opt_text("source");
  return g;
}

InstanceType read_instance_type(const Fields& f) {
  InstanceType it;
  it.provider = f.text("provider");
  it.id = f.text("id");
  it.family = f.opt_text("family");
  it.gpu = f.opt_text("gpu");
  if (auto count = opt_bounded(f, "gpu_count")) it.gpu_count = *count;
  if (!it.gpu.empty() && it.gpu_count.is_zero()) {
    f.fail("gpu_count", "required and above 0 when 'gpu' is given");
  }
  if (it.gpu.empty() && !it.gpu_count.is_zero()) {
    f.fail("gpu", "missing: gpu_count is " + it.gpu_count.to_string() + " but no GPU is named");
  }
  it.vcpu = f.opt_integer("vcpu", 0, 100000);
  it.ram_gb = opt_bounded(f, "ram_gb");
  it.local_disk_gb = f.opt_integer("local_disk_gb", 0, 100000000);
  if (f.has("local_disk_kind"))
    it.local_disk_kind = one_of(f, "local_disk_kind", {"ssd", "nvme", "hdd"});
  const std::string list_pointer = child_pointer(f.pointer(), "attachable_gpus");
  const auto& attachable = f.array("attachable_gpus");
  for (std::size_t i = 0; i < attachable.size(); ++i) {
    Fields a(attachable[i], child_pointer(list_pointer, i), f.file(),
             {"gpu", "counts", "retired_on"});
    AttachableGpu entry{a.text("gpu"), {}, {}};
    if (a.has("retired_on")) entry.retired_on = a.instant("retired_on");
    const auto& counts = a.array("counts");
    if (counts.empty()) a.fail("counts", "missing or empty (list the GPU counts the host takes)");
    for (const auto& c : counts) {
      auto n = json_input::as_int(c, 1, 1024);
      if (!n) a.fail("counts", "expected JSON integers from 1 to 1024, found " + c.dump());
      entry.counts.push_back(*n);
    }
    it.attachable.push_back(std::move(entry));
  }
  it.notes = f.opt_text("notes");
  it.source = f.opt_text("source");
  if (f.has("available_from")) it.available_from = f.instant("available_from");
  if (f.has("retired_on")) it.retired_on = f.instant("retired_on");
  if (it.available_from && it.retired_on && *it.retired_on <= *it.available_from) {
    f.fail("retired_on", "must be after available_from");
  }
  return it;
}

PriceRow read_price(const Fields& f) {
  PriceRow p;
  p.provider = f.text("provider");
  if (f.has("instance_type") && f.has("gpu")) {
    f.fail("gpu", "give either instance_type or gpu, not both");
  }
  if (f.has("gpu")) {
    p.subject_kind = SubjectKind::gpu;
    p.subject = f.text("gpu");
  } else {
    p.subject_kind = SubjectKind::instance;
    p.subject = f.text("instance_type");
  }
  p.region = f.opt_text("region");
  p.mode = mode_field(f);
  const auto unit = f.text("unit");
  try {
    p.unit = parse_price_unit(unit);
  } catch (const Error& e) {
    f.fail("unit", e.what());
  }
  p.amount = Money(bounded(f, "amount"), f.currency("currency"));
  p.period = f.period();
  p.source = f.text("source");
  p.as_of = f.day_text("as_of");
  return p;
}

DiscountRow read_discount(const Fields& f) {
  DiscountRow d;
  d.provider = f.text("provider");
  d.family = f.opt_text("family");
  d.mode = mode_field(f);
  d.min_months = f.integer("min_months", 1, 1200);
  d.max_months = f.integer("max_months", 1, 1200);
  if (d.max_months < d.min_months) {
    f.fail("max_months", "must not be below min_months (" + std::to_string(d.min_months) + ")");
  }
  d.factor = bounded(f, "factor");
  if (d.factor.is_zero()) f.fail("factor", "must be above 0");
  d.period = f.period();
  d.source = f.text("source");
  d.as_of = f.day_text("as_of");
  return d;
}

ResourcePriceRow read_resource_price(const Fields& f,
                                     std::initializer_list<std::string_view> units) {
  ResourcePriceRow r;
  r.provider = f.text("provider");
  r.kind = f.text("kind");
  r.mode = mode_field(f);
  r.unit = one_of(f, "unit", units);
  r.amount = Money(bounded(f, "amount"), f.currency("currency"));
  r.period = f.period();
  r.source = f.text("source");
  r.as_of = f.day_text("as_of");
  return r;
}

FxRate read_fx_rate(const Fields& f) {
  FxRate r;
  const auto day = f.day_text("date");
  r.day = parse_day(day);
  r.from = f.currency("from");
  r.to = f.currency("to");
  if (r.from == r.to) f.fail("to", "must differ from 'from'");
  r.rate = bounded(f, "rate");
  if (r.rate.is_zero()) f.fail("rate", "must be above 0");
  r.source = f.text("source");
  r.as_of = f.day_text("as_of");
  return r;
}

BillingPolicy read_policy(const Fields& f) {
  BillingPolicy p;  // defaults are the documented ones
  p.provider = f.text("provider");
  p.period = f.period();
  p.metering_granularity_seconds =
      f.integer_or("metering_granularity_seconds", p.metering_granularity_seconds, 1, 86400);
  const auto period = [&](const char* name) {
    return parse_settlement_period(one_of(f, name, {"hour", "day", "month"}));
  };
  if (f.has("settlement_period")) p.settlement_period = period("settlement_period");
  if (f.has("disk_settlement_period")) p.disk_settlement_period = period("disk_settlement_period");
  if (f.has("bandwidth_settlement_period")) {
    p.bandwidth_settlement_period = period("bandwidth_settlement_period");
  }
  if (f.has("settlement_rounding")) {
    const auto text = f.text("settlement_rounding");
    try {
      p.settlement_rounding = parse_rounding_mode(text);
    } catch (const Error& e) {
      f.fail("settlement_rounding", e.what());
    }
  }
  p.settlement_decimals = f.integer_or("settlement_decimals", p.settlement_decimals, 0, 12);
  p.min_charge_seconds_per_run =
      f.integer_or("min_charge_seconds_per_run", p.min_charge_seconds_per_run, 0, 86400 * 366);
  p.min_charge_per_lifetime = opt_bounded(f, "min_charge_per_lifetime");
  p.arrears_grace_hours = f.integer_or("arrears_grace_hours", p.arrears_grace_hours, 0, 100000);
  p.arrears_retention_hours =
      f.integer_or("arrears_retention_hours", p.arrears_retention_hours, 0, 100000);
  p.recycle_bin_days = f.integer_or("recycle_bin_days", p.recycle_bin_days, 0, 3660);
  p.auto_renew_days_before =
      f.integer_or("auto_renew_days_before", p.auto_renew_days_before, 0, 366);
  if (f.has("auto_renew_local_time")) {
    const auto text = f.text("auto_renew_local_time");
    try {
      p.auto_renew_local_time = parse_hh_mm(text);
    } catch (const Error& e) {
      f.fail("auto_renew_local_time", e.what());
    }
  }
  p.auto_renew_months = f.integer_or("auto_renew_months", p.auto_renew_months, 1, 120);
  p.auto_renew_retry_daily = f.boolean_or("auto_renew_retry_daily", p.auto_renew_retry_daily);
  for (const auto& tier : f.array("sustained_use_tiers")) {
    if (!tier.is_string()) f.fail("sustained_use_tiers", "write each tier as a decimal string");
    try {
      const Decimal d = Decimal::parse(tier.get<std::string>());
      if (d.sign() < 0 || Decimal(1) < d) throw ParseError("not between 0 and 1");
      p.sustained_use_tiers.push_back(d);
    } catch (const Error& e) {
      f.fail("sustained_use_tiers", "'" + tier.get<std::string>() + "': " + e.what());
    }
  }
  for (const auto& family : f.array("sustained_use_families")) {
    if (!family.is_string() || family.get<std::string>().empty() ||
        family.get<std::string>().find(',') != std::string::npos) {
      f.fail("sustained_use_families", "expected instance family names, found " + family.dump());
    }
    p.sustained_use_families.push_back(family.get<std::string>());
  }
  if (p.sustained_use_tiers.empty() != p.sustained_use_families.empty()) {
    f.fail("sustained_use_tiers", "sustained_use_tiers and sustained_use_families go together");
  }
  p.prepaid_destroy_before_expiry =
      f.boolean_or("prepaid_destroy_before_expiry", p.prepaid_destroy_before_expiry);
  p.full_refund_days = f.integer_or("full_refund_days", p.full_refund_days, 0, 366);
  p.no_reason_return_limit =
      f.integer_or("no_reason_return_limit", p.no_reason_return_limit, 0, 100000);
  p.spot_max_run_hours = f.integer_or("spot_max_run_hours", p.spot_max_run_hours, 0, 100000);
  p.spot_protection_hours =
      f.integer_or("spot_protection_hours", p.spot_protection_hours, 0, 100000);
  if (f.has("no_reason_return_limit_per")) {
    p.no_reason_limit_per_year =
        one_of(f, "no_reason_return_limit_per", {"year", "account"}) == "year";
  }
  p.stopped_payg_compute_charged =
      f.boolean_or("stopped_payg_compute_charged", p.stopped_payg_compute_charged);
  p.payg_available = f.boolean_or("payg_available", p.payg_available);
  read_metering_policy_fields(f, p);
  if (const auto* lifecycle = f.find("prepaid_lifecycle")) {  // issue 27 part A
    p.prepaid = read_prepaid_lifecycle(*lifecycle, child_pointer(f.pointer(), "prepaid_lifecycle"),
                                       f.file());
  }
  p.source = f.text("source");
  p.as_of = f.day_text("as_of");
  return p;
}

// ---- checks across rows of one file --------------------------------------------------------

// Two rows with the same key must not both be defined (providers, GPUs, instance types, …).
template <typename Row, typename KeyOf>
void check_unique(const std::vector<Row>& rows, std::string_view section, const std::string& file,
                  std::string_view field, KeyOf key_of) {
  std::map<decltype(key_of(rows[0])), std::size_t> seen;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    auto [it, inserted] = seen.emplace(key_of(rows[i]), i);
    if (!inserted) {
      throw InputError(file, row_pointer(section, i), std::string(field),
                       "duplicate of " + row_pointer(section, it->second));
    }
  }
}

// Rows with the same key and effective periods: the same effective_from twice, or an earlier
// row whose explicit effective_to reaches past a later row's effective_from, is an error.
template <typename Row, typename KeyOf>
void check_periods(const std::vector<Row>& rows, std::string_view section, const std::string& file,
                   KeyOf key_of) {
  std::vector<std::size_t> order(rows.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::forward_as_tuple(key_of(rows[a]), rows[a].period.from, a) <
           std::forward_as_tuple(key_of(rows[b]), rows[b].period.from, b);
  });
  for (std::size_t k = 1; k < order.size(); ++k) {
    const auto& earlier = rows[order[k - 1]];
    const auto& later = rows[order[k]];
    if (key_of(earlier) != key_of(later)) continue;
    const std::string other = row_pointer(section, order[k - 1]);
    if (earlier.period.from == later.period.from) {
      throw InputError(
          file, row_pointer(section, order[k]), "effective_from",
          "same key and effective_from (" + format_instant(later.period.from) + ") as " + other);
    }
    if (earlier.period.to && *earlier.period.to > later.period.from) {
      throw InputError(file, row_pointer(section, order[k]), "effective_from",
                       "period overlaps " + other + ", which is in force until " +
                           format_instant(*earlier.period.to));
    }
  }
}

void check_rows(const CatalogData& d, const std::string& file) {
  check_unique(d.providers, "providers", file, "id", [](const Provider& p) { return p.id; });
  check_unique(d.regions, "regions", file, "id",
               [](const Region& r) { return std::pair(r.provider, r.id); });
  check_unique(d.gpus, "gpus", file, "id", [](const Gpu& g) { return text_match::to_lower(g.id); });
  check_unique(d.instance_types, "instance_types", file, "id",
               [](const InstanceType& it) { return std::pair(it.provider, it.id); });
  check_unique(d.fx_rates, "fx_rates", file, "date", [](const FxRate& r) {
    return std::tuple(r.day, r.from.to_string(), r.to.to_string());
  });
  // A GPU name (id or alias, case-insensitive) must name one GPU.
  std::map<std::string, std::size_t> names;
  for (std::size_t i = 0; i < d.gpus.size(); ++i)
    names.emplace(text_match::to_lower(d.gpus[i].id), i);
  for (std::size_t i = 0; i < d.gpus.size(); ++i) {
    for (const auto& a : d.gpus[i].aliases) {
      auto [it, inserted] = names.emplace(text_match::to_lower(a), i);
      if (!inserted && it->second != i) {
        throw InputError(file, row_pointer("gpus", i), "aliases",
                         "alias '" + a + "' also names " + row_pointer("gpus", it->second) + " ('" +
                             d.gpus[it->second].id + "')");
      }
    }
  }
  check_periods(d.prices, "prices", file, [](const PriceRow& p) {
    return std::tuple(p.provider, p.subject_kind, p.subject, p.region, p.mode);
  });
  check_periods(d.discounts, "discounts", file, [](const DiscountRow& r) {
    return std::tuple(r.provider, r.family, r.mode, r.min_months);
  });
  const auto resource_key = [](const ResourcePriceRow& r) {
    return std::tuple(r.provider, r.kind, r.mode);
  };
  check_periods(d.disk_prices, "disk_prices", file, resource_key);
  check_periods(d.bandwidth_prices, "bandwidth_prices", file, resource_key);
  check_periods(d.policies, "policies", file, [](const BillingPolicy& p) { return p.provider; });
  check_commitment_periods(d.commitments, file);
}

template <typename Row, typename Read>
void read_section(const json& doc, std::string_view section, const std::string& file,
                  std::initializer_list<std::string_view> allowed, std::vector<Row>& out,
                  Read read) {
  auto it = doc.find(section);
  if (it == doc.end() || it->is_null()) return;
  const std::string pointer = child_pointer("", section);
  if (!it->is_array()) throw InputError(file, pointer, "", "expected an array of rows");
  out.reserve(it->size());
  for (std::size_t i = 0; i < it->size(); ++i) {
    out.push_back(read(Fields((*it)[i], child_pointer(pointer, i), file, allowed)));
  }
}

}  // namespace

namespace {

CatalogData read_catalog_document(const json& doc, const std::string& file_name) {
  const Fields top(
      doc, "/", file_name,
      {"format", "providers", "regions", "gpus", "instance_types", "prices", "discounts",
       "disk_prices", "bandwidth_prices", "fx_rates", "policies", "commitments"});
  if (top.has("format") && top.text("format") != kFormat) {
    top.fail("format", "unknown format '" + top.text("format") + "' (expected '" +
                           std::string(kFormat) + "')");
  }
  CatalogData d;
  read_section(doc, "providers", file_name, {"id", "name", "currency", "billing_time_zone"},
               d.providers, read_provider);
  read_section(doc, "regions", file_name, {"provider", "id", "name"}, d.regions, read_region);
  read_section(
      doc, "gpus", file_name,
      {"id", "aliases", "vendor", "architecture", "fp64_tflops", "fp32_tflops",
       "fp16_tensor_tflops", "int8_tops", "memory_gb", "memory_bandwidth_gbs", "interconnect",
       "interconnect_bandwidth_gbs", "tdp_w", "launch_price", "units_per_board", "source"},
      d.gpus, read_gpu);
  read_section(
      doc, "instance_types", file_name,
      {"provider", "id", "family", "gpu", "gpu_count", "vcpu", "ram_gb", "local_disk_gb",
       "local_disk_kind", "attachable_gpus", "notes", "source", "available_from", "retired_on"},
      d.instance_types, read_instance_type);
  read_section(doc, "prices", file_name,
               {"provider", "instance_type", "gpu", "region", "mode", "unit", "amount", "currency",
                "effective_from", "effective_to", "source", "as_of"},
               d.prices, read_price);
  read_section(
      doc, "commitments", file_name,
      {"provider", "instance_type", "gpu", "region", "program", "class", "term_months", "payment",
       "upfront", "hourly", "currency", "effective_from", "effective_to", "source", "as_of"},
      d.commitments,
      [](const Fields& f) { return read_commitment_json(f, Decimal(kMaxCatalogAmount)); });
  read_section(doc, "discounts", file_name,
               {"provider", "family", "mode", "min_months", "max_months", "factor",
                "effective_from", "effective_to", "source", "as_of"},
               d.discounts, read_discount);
  read_section(doc, "disk_prices", file_name,
               {"provider", "kind", "mode", "unit", "amount", "currency", "effective_from",
                "effective_to", "source", "as_of"},
               d.disk_prices, [](const Fields& f) {
                 return read_resource_price(f, {"gb_hour", "gb_month"});
               });
  read_section(doc, "bandwidth_prices", file_name,
               {"provider", "kind", "mode", "unit", "amount", "currency", "effective_from",
                "effective_to", "source", "as_of"},
               d.bandwidth_prices, [](const Fields& f) {
                 return read_resource_price(f, {"mbps_hour", "mbps_month", "gb"});
               });
  read_section(doc, "fx_rates", file_name, {"date", "from", "to", "rate", "source", "as_of"},
               d.fx_rates, read_fx_rate);
  read_section(doc, "policies", file_name,
               {"provider",
                "effective_from",
                "effective_to",
                "metering_granularity_seconds",
                "settlement_period",
                "disk_settlement_period",
                "bandwidth_settlement_period",
                "settlement_rounding",
                "settlement_decimals",
                "min_charge_seconds_per_run",
                "min_charge_per_lifetime",
                "arrears_grace_hours",
                "arrears_retention_hours",
                "recycle_bin_days",
                "auto_renew_days_before",
                "auto_renew_local_time",
                "auto_renew_months",
                "auto_renew_retry_daily",
                "prepaid_destroy_before_expiry",
                "full_refund_days",
                "no_reason_return_limit",
                "no_reason_return_limit_per",
                "spot_max_run_hours",
                "spot_protection_hours",
                "stopped_payg_compute_charged",
                "payg_available",
                "sustained_use_tiers",
                "sustained_use_families",
                kMeteringPolicyKeys[0],
                kMeteringPolicyKeys[1],
                kMeteringPolicyKeys[2],
                kMeteringPolicyKeys[3],
                kMeteringPolicyKeys[4],
                "prepaid_lifecycle",
                "source",
                "as_of"},
               d.policies, read_policy);
  check_rows(d, file_name);
  return d;
}

}  // namespace

CatalogData parse_catalog_json(std::string_view text, const std::string& file_name) {
  return read_catalog_document(json_input::parse_document(text, file_name), file_name);
}

CatalogData parse_trusted_catalog_json(std::string_view text, const std::string& file_name) {
  try {
    return read_catalog_document(json::parse(text.begin(), text.end()), file_name);
  } catch (const json::parse_error& e) {
    throw InputError(file_name, "", "", e.what());
  }
}

void check_catalog_references(const CatalogData& data, const CatalogData& known,
                              const std::string& file) {
  std::set<std::string> providers, gpus;
  std::map<std::string, std::string> alias_of;  // lower-case alias → GPU id
  std::set<std::pair<std::string, std::string>> instance_types, regions;
  for (const auto* d : {&known, &data}) {
    for (const auto& p : d->providers) providers.insert(p.id);
    for (const auto& r : d->regions) regions.emplace(r.provider, r.id);
    for (const auto& g : d->gpus) {
      gpus.insert(g.id);
      for (const auto& a : g.aliases) alias_of[text_match::to_lower(a)] = g.id;
    }
    for (const auto& it : d->instance_types) instance_types.emplace(it.provider, it.id);
  }
  const auto need_provider = [&](const std::string& id, std::string_view section, std::size_t i) {
    if (!providers.count(id)) {
      throw InputError(file, row_pointer(section, i), "provider",
                       "unknown provider '" + id + "': not defined in this file or the database");
    }
  };
  const auto need_gpu = [&](const std::string& id, const std::string& pointer,
                            std::string_view field) {
    if (gpus.count(id)) return;
    std::string reason = "unknown GPU '" + id + "': not defined in this file or the database";
    if (auto a = alias_of.find(text_match::to_lower(id)); a != alias_of.end()) {
      reason = "'" + id + "' is an alias; use the GPU id '" + a->second + "'";
    }
    throw InputError(file, pointer, std::string(field), reason);
  };
  for (std::size_t i = 0; i < data.regions.size(); ++i) {
    need_provider(data.regions[i].provider, "regions", i);
  }
  for (std::size_t i = 0; i < data.instance_types.size(); ++i) {
    const auto& it = data.instance_types[i];
    need_provider(it.provider, "instance_types", i);
    if (!it.gpu.empty()) need_gpu(it.gpu, row_pointer("instance_types", i), "gpu");
    for (std::size_t a = 0; a < it.attachable.size(); ++a) {
      need_gpu(it.attachable[a].gpu,
               child_pointer(child_pointer(row_pointer("instance_types", i), "attachable_gpus"), a),
               "gpu");
    }
  }
  for (std::size_t i = 0; i < data.prices.size(); ++i) {
    const auto& p = data.prices[i];
    need_provider(p.provider, "prices", i);
    if (p.subject_kind == SubjectKind::gpu) {
      need_gpu(p.subject, row_pointer("prices", i), "gpu");
    } else if (!instance_types.count({p.provider, p.subject})) {
      throw InputError(file, row_pointer("prices", i), "instance_type",
                       "unknown instance type '" + p.subject + "' of provider '" + p.provider +
                           "': not defined in this file or the database");
    }
    if (!p.region.empty() && !regions.count({p.provider, p.region})) {
      throw InputError(file, row_pointer("prices", i), "region",
                       "unknown region '" + p.region + "' of provider '" + p.provider +
                           "': not defined in this file or the database (list it under regions)");
    }
  }
  for (std::size_t i = 0; i < data.commitments.size(); ++i) {
    const auto& c = data.commitments[i];
    need_provider(c.provider, "commitments", i);
    if (c.subject_kind == SubjectKind::gpu) {
      need_gpu(c.subject, row_pointer("commitments", i), "gpu");
    } else if (!instance_types.count({c.provider, c.subject})) {
      throw InputError(file, row_pointer("commitments", i), "instance_type",
                       "unknown instance type '" + c.subject + "' of provider '" + c.provider +
                           "': not defined in this file or the database");
    }
    if (!c.region.empty() && !regions.count({c.provider, c.region})) {
      throw InputError(file, row_pointer("commitments", i), "region",
                       "unknown region '" + c.region + "' of provider '" + c.provider + "'");
    }
  }
  for (std::size_t i = 0; i < data.discounts.size(); ++i) {
    need_provider(data.discounts[i].provider, "discounts", i);
  }
  for (std::size_t i = 0; i < data.disk_prices.size(); ++i) {
    need_provider(data.disk_prices[i].provider, "disk_prices", i);
  }
  for (std::size_t i = 0; i < data.bandwidth_prices.size(); ++i) {
    need_provider(data.bandwidth_prices[i].provider, "bandwidth_prices", i);
  }
  for (std::size_t i = 0; i < data.policies.size(); ++i) {
    need_provider(data.policies[i].provider, "policies", i);
  }
}

}  // namespace gpubill
