// Lease versus buy: reading a configuration file (JSON). Values are checked for type and form
// here; ranges and catalog references are checked by resolve_lease_vs_buy, so a value given on
// the command line gets the same checks.
#include "base/json_fields.hpp"
#include "gpubill/tco/tco.hpp"

namespace gpubill {

namespace {

using json_input::Fields;
using json_input::json;

constexpr std::string_view kFormat = "gpubill-lease-vs-buy/1";

std::optional<Money> opt_money(const Fields& f, std::string_view key) {
  const json* v = f.find(key);
  if (!v) return std::nullopt;
  const Fields m(*v, json_input::child_pointer(f.pointer(), key), f.file(), {"amount", "currency"});
  return Money(m.decimal("amount", std::nullopt), m.currency("currency"));
}

std::vector<std::string> string_list(const Fields& f, std::string_view key) {
  std::vector<std::string> out;
  const json& a = f.array(key);
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!a[i].is_string() || a[i].get<std::string>().empty()) {
      throw InputError(f.file(), json_input::child_pointer(f.pointer(), key), std::to_string(i),
                       "expected a non-empty string");
    }
    out.push_back(a[i].get<std::string>());
  }
  return out;
}

}  // namespace

LeaseVsBuyConfig parse_lease_vs_buy_config(std::string_view json_text,
                                           const std::string& file_name) {
  const json doc = json_input::parse_document(json_text, file_name);
  const Fields f(doc, "", file_name,
                 {"format",
                  "description",
                  "gpu",
                  "count",
                  "gpu_watts",
                  "hardware_price",
                  "host_price",
                  "price_source",
                  "host_watts",
                  "host_vcpu",
                  "host_ram_gb",
                  "horizon_months",
                  "pue",
                  "kwh_price",
                  "utilisation",
                  "hosting_per_kw_month",
                  "maintenance_yearly_share",
                  "residual_share",
                  "cost_of_capital_yearly",
                  "currency",
                  "date",
                  "providers",
                  "rent_gpus"});
  if (f.has("format") && f.text("format") != kFormat) {
    f.fail("format", "expected \"" + std::string(kFormat) + "\"");
  }
  (void)f.opt_text("description");

  LeaseVsBuyConfig c;
  c.gpu = f.text("gpu");
  c.gpu_count = f.integer("count", 0, 100000);  // 0 is rejected by resolve_lease_vs_buy
  c.gpu_watts = f.opt_decimal("gpu_watts", std::nullopt);
  c.hardware_price = opt_money(f, "hardware_price");
  c.host_price = opt_money(f, "host_price");
  c.price_source = f.opt_text("price_source");
  if (auto v = f.opt_decimal("host_watts", std::nullopt)) c.host_watts = *v;
  c.host_vcpu = f.opt_integer("host_vcpu", 1, 100000);
  c.host_ram_gb = f.opt_decimal("host_ram_gb", std::nullopt);
  c.horizon_months = f.integer_or("horizon_months", c.horizon_months, 0, 100000);
  if (auto v = f.opt_decimal("pue", std::nullopt)) c.pue = *v;
  if (auto v = opt_money(f, "kwh_price")) c.kwh_price = *v;
  c.utilisation = f.opt_decimal("utilisation", std::nullopt);
  if (auto v = opt_money(f, "hosting_per_kw_month")) c.hosting_per_kw_month = *v;
  if (auto v = f.opt_decimal("maintenance_yearly_share", std::nullopt)) {
    c.maintenance_yearly_share = *v;
  }
  if (auto v = f.opt_decimal("residual_share", std::nullopt)) c.residual_share = *v;
  if (auto v = f.opt_decimal("cost_of_capital_yearly", std::nullopt)) {
    c.cost_of_capital_yearly = *v;
  }
  if (f.has("currency")) c.currency = f.currency("currency");
  if (f.has("date")) c.date = parse_day(f.day_text("date"));
  c.providers = string_list(f, "providers");
  c.rent_gpus = string_list(f, "rent_gpus");
  return c;
}

}  // namespace gpubill
