// gpubill lease-vs-buy [CONFIG.json] [flags]: buying a GPU server against renting the same GPUs.
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

#include "commands.hpp"
#include "gpubill/base/errors.hpp"
#include "gpubill/base/input_file.hpp"
#include "gpubill/catalog/catalog.hpp"
#include "gpubill/tco/tco.hpp"
#include "output.hpp"
#include "tco_args.hpp"

#include <nlohmann/json.hpp>

namespace gpubill::cli {

namespace {

// Amounts: exact in CSV and JSON, rounded half-even for reading in a table.
struct Fmt {
  bool exact = false;
  std::string num(Decimal d, int decimals = 2) const {
    return exact ? d.to_string() : d.round(decimals, RoundingMode::half_even).to_string(decimals);
  }
  std::string money(const Money& m, int decimals = 2) const {
    return num(m.amount(), decimals) + " " + m.currency().to_string();
  }
  std::string percent(Decimal share) const {
    return (share * Decimal(100)).round(2, RoundingMode::half_even).to_string() + " %";
  }
};

std::string option_label(const RentOption& o) {
  std::string s = o.provider + " " + o.instance_type;
  if (o.instances > 1) s += " × " + std::to_string(o.instances);
  return s;
}

std::string month_text(const std::optional<int>& m, int horizon) {
  if (!m) return "none within " + std::to_string(horizon) + " months";
  return "month " + std::to_string(*m);
}

std::string formula(const LinearCost& buy, const LinearCost& rent, Decimal value, const Fmt& f) {
  return "u* = (buy fixed − rent fixed) / (rent − buy per unit of u) = (" +
         f.num(buy.fixed.amount()) + " − " + f.num(rent.fixed.amount()) + ") / (" +
         f.num(rent.per_utilisation.amount()) + " − " + f.num(buy.per_utilisation.amount()) +
         ") = " + value.to_string();
}

std::string mode_name(BillingMode m) {
  switch (m) {
    case BillingMode::payg:
      return "pay-as-you-go";
    case BillingMode::reserved_1y:
      return "1-year commitment";
    case BillingMode::reserved_3y:
      return "3-year commitment";
    default:
      return "prepaid";
  }
}

// The key prefix of an option's summary rows: payg_, prepaid_ or commitment_.
std::string summary_prefix(BillingMode m) {
  if (m == BillingMode::payg) return "payg_";
  if (m == BillingMode::prepaid) return "prepaid_";
  return "commitment_";
}

// One best option against buying, as a fact rather than a second verdict: which total is lower
// and by how much.
std::string comparison(const LeaseVsBuyResult& r, const Comparison& c, const Fmt& f) {
  const RentOption& o = r.options[c.option];
  const std::string what =
      mode_name(o.mode) + " (" + option_label(o) + ") totals " + f.money(o.total) + ", ";
  if (c.saving.amount().sign() > 0) {
    return what + f.money(c.saving) + " more than buying" +
           (c.break_even_month
                ? " (buying is ahead from month " + std::to_string(*c.break_even_month) + ")"
                : "");
  }
  return what + f.money(-c.saving) + " less than buying";
}

std::string signed_money(const Money& m, const Fmt& f) {
  return m.amount().sign() < 0 ? "− " + f.money(-m) : "+ " + f.money(m);
}

Table summary_table(const LeaseVsBuyResult& r, const Fmt& f) {
  const auto& in = r.inputs;
  const auto& b = r.buy;
  const int h = in.horizon_months;
  Table t{{{"item"}, {"value"}}, {}, true};
  t.add_row({"verdict", describe(r.verdict, r)});
  for (const auto& c : r.comparisons) {
    const std::string p = summary_prefix(r.options[c.option].mode);
    t.add_row({p + "comparison", comparison(r, c, f)});
    t.add_row({p + "break_even_utilisation", c.break_even_utilisation.describe()});
  }
  std::string rent_gpus;
  for (const auto& g : in.rent_gpus) rent_gpus += (rent_gpus.empty() ? "" : ", ") + g;
  std::string server = std::to_string(in.gpu_count) + " × " + in.gpu.id;
  if (in.gpu.units_per_board > 1) {
    server += " (" + std::to_string(in.boards) + " board" + (in.boards == 1 ? "" : "s") + " of " +
              std::to_string(in.gpu.units_per_board) + " rentable units each)";
  }
  t.add_row({"server", server + " (rented as " + rent_gpus + ")"});
  t.add_row({"hardware_price", f.money(in.hardware_price) + " (" + in.hardware_price_basis + ")"});
  if (!in.price_source.empty()) t.add_row({"price_source", in.price_source});
  t.add_row({"it_power", in.it_kw.to_string() + " kW = (" + std::to_string(in.gpu_count) + " × " +
                             in.gpu_watts.to_string() + " W + " + in.host_watts.to_string() +
                             " W host) / 1000"});
  t.add_row({"power_assumptions",
             "PUE " + in.pue.to_string() + "; " + in.kwh_price.to_string() + " per kWh; " +
                 (in.utilisation * Decimal(kHoursPerMonth)).to_string() +
                 " h of 730 busy a month (utilisation " + in.utilisation.to_string() + ")"});
  t.add_row({"owning_assumptions",
             "hosting " + in.hosting_per_kw_month.to_string() + " per kW-month; maintenance " +
                 f.percent(in.maintenance_yearly_share) + " a year; residual " +
                 f.percent(in.residual_share) + " at month " + std::to_string(h) +
                 "; cost of capital " + f.percent(in.cost_of_capital_yearly) + " a year (monthly " +
                 in.monthly_rate.to_string() + ")"});
  std::vector<FxRate> rates = in.fx_rates;
  for (const auto& o : r.options) {
    if (o.fx) rates.push_back(*o.fx);
  }
  std::string fx = format_day(in.date);
  for (const auto& rate : rates) {
    std::string text = "1 " + rate.from.to_string() + " = " + rate.rate.to_string() + " " +
                       rate.to.to_string() + " (" +
                       (rate.inverted ? "inverse of the " : std::string()) + "rate of " +
                       format_day(rate.day) + ")";
    if (fx.find(text) == std::string::npos) fx += "; " + text;
  }
  t.add_row({"date_and_fx", fx});
  const Money maintenance(Decimal::divide(b.maintenance_per_year.amount(), 12, Decimal::kScale,
                                          RoundingMode::half_even),
                          in.currency);
  t.add_row({"buy_per_month", "power " + f.money(b.power_per_month) + " + hosting " +
                                  f.money(b.hosting_per_month) + " + maintenance " +
                                  f.money(maintenance) + " = " +
                                  f.money(b.power_per_month + b.hosting_per_month + maintenance)});
  t.add_row({"buy_total", f.money(b.total) + " = capex " + f.money(in.hardware_price) +
                              " + running − residual " + f.money(b.residual) + " (present value " +
                              f.money(b.total_pv) + ")"});
  t.add_row({"owned_per_gpu_hour",
             r.owned_per_gpu_hour ? f.money(*r.owned_per_gpu_hour, 4) + " per delivered GPU-hour"
                                  : "n/a at utilisation 0"});
  for (const auto& c : r.comparisons) {
    const RentOption& o = r.options[c.option];
    const std::string p = summary_prefix(o.mode);
    const bool any_region = o.region.empty() || o.region == "*";
    std::string offer = option_label(o) + (any_region ? "" : " in " + o.region) + " at " +
                        o.list_price.to_string() + (o.unit == PriceUnit::hour ? "/h" : "/month");
    if (!o.plan.empty()) offer += ", plan " + o.plan;
    t.add_row({p + "offer", offer + ": " + f.money(o.per_month) + " a month"});
    t.add_row({p + "per_gpu_hour", f.money(o.price_per_gpu_hour, 4)});
    t.add_row({p + "total", f.money(o.total) + " (present value " + f.money(o.total_pv) + ")"});
    t.add_row({p + "break_even_month", month_text(c.break_even_month, h) + " (present value: " +
                                           month_text(c.break_even_month_pv, h) + ")"});
    if (c.break_even_utilisation.value) {
      t.add_row({p + "break_even_formula",
                 formula(b.total_line, o.total_line, *c.break_even_utilisation.value, f)});
    }
    t.add_row({p + "break_even_utilisation_pv", c.break_even_utilisation_pv.describe()});
  }
  const auto& rule = r.rule_of_thumb;
  t.add_row({"rule_of_thumb",
             "a year's rent ≈ price / 3 + a small fee = " + f.money(rule.price_over_3) + " + fee"});
  t.add_row({"owning_per_year", f.money(rule.owner_yearly_cost) + " (running " +
                                    f.money(rule.owner_yearly_running) + ")"});
  for (const auto& rent : rule.rents) {
    const RentOption& o = r.options[rent.option];
    const std::string p = summary_prefix(o.mode);
    t.add_row({p + "rent_per_year", f.money(rent.yearly) + " = price / 3 " +
                                        signed_money(rent.implied_fee, f) + "; the price is " +
                                        f.num(rent.years_to_price) + " years of this rent"});
  }
  std::string notes;
  for (const auto& n : r.notes) notes += (notes.empty() ? "" : "; ") + n;
  for (const auto& o : r.options) {
    for (const auto& n : o.notes) {
      notes += (notes.empty() ? "" : "; ") + mode_name(o.mode) + " " + option_label(o) + ": " + n;
    }
  }
  if (!notes.empty()) t.add_row({"notes", notes});
  return t;
}

Table options_table(const LeaseVsBuyResult& r, const Fmt& f) {
  Table t{{{"mode"},
           {"provider"},
           {"region"},
           {"instance_type"},
           {"instances", true},
           {"gpus", true},
           {"list_price", true},
           {"plan"},
           {"per_month", true},
           {"per_gpu_hour", true},
           {"total", true},
           {"total_pv", true}},
          {}};
  for (const auto& o : r.options) {
    t.add_row({std::string(to_string(o.mode)), o.provider, o.region.empty() ? "*" : o.region,
               o.instance_type, std::to_string(o.instances),
               (o.gpus_per_instance * o.instances).to_string() + " × " + o.gpu,
               o.list_price.to_string() + (o.unit == PriceUnit::hour ? "/h" : "/month"), o.plan,
               f.money(o.per_month), f.money(o.price_per_gpu_hour, 4), f.money(o.total),
               f.money(o.total_pv)});
  }
  return t;
}

// The cumulative costs by month; with exact amounts (CSV) their currency in a last column (a
// text table names it in its section's title).
Table months_table(const LeaseVsBuyResult& r, const Fmt& f) {
  const RentOption* payg = r.best_payg ? &r.options[*r.best_payg] : nullptr;
  const RentOption* prepaid = r.best_prepaid ? &r.options[*r.best_prepaid] : nullptr;
  Table t{{{"month", true},
           {"buy", true},
           {"rent_payg", true},
           {"rent_prepaid", true},
           {"cheapest"},
           {"buy_pv", true},
           {"rent_payg_pv", true},
           {"rent_prepaid_pv", true}},
          {}};
  if (f.exact) t.columns.push_back({"currency"});
  for (const auto& m : r.buy.months) {
    const auto i = static_cast<std::size_t>(m.month);
    std::string cheapest = "buy";
    Money least = m.cumulative;
    if (payg && payg->cumulative[i] < least) {
      cheapest = "payg";
      least = payg->cumulative[i];
    }
    if (prepaid && prepaid->cumulative[i] < least) cheapest = "prepaid";
    std::vector<std::string> row = {std::to_string(m.month),
                                    f.num(m.cumulative.amount()),
                                    payg ? f.num(payg->cumulative[i].amount()) : "",
                                    prepaid ? f.num(prepaid->cumulative[i].amount()) : "",
                                    cheapest,
                                    f.num(m.cumulative_pv.amount()),
                                    payg ? f.num(payg->cumulative_pv[i].amount()) : "",
                                    prepaid ? f.num(prepaid->cumulative_pv[i].amount()) : ""};
    if (f.exact) row.push_back(r.inputs.currency.to_string());
    t.add_row(std::move(row));
  }
  return t;
}

// --format json: the whole result, structured; amounts are exact decimal strings, and every
// object holding amounts names their currency in its "currency" member (the comparison
// currency; an option's list price has its own list_currency), as everywhere in gpubill.
using ojson = nlohmann::ordered_json;

ojson amount(const Money& m) {
  return m.amount().to_string();
}

ojson linear_cost_json(const LinearCost& l) {
  return {{"fixed", amount(l.fixed)},
          {"per_utilisation", amount(l.per_utilisation)},
          {"currency", l.fixed.currency().to_string()}};
}

ojson opt_month(const std::optional<int>& m) {
  return m ? ojson(*m) : ojson();
}

ojson break_even_json(const BreakEvenUtilisation& b) {
  const char* kind = b.kind == BreakEvenUtilisation::Kind::renting_below   ? "renting_below"
                     : b.kind == BreakEvenUtilisation::Kind::renting_above ? "renting_above"
                                                                           : "parallel";
  ojson j = {{"kind", kind}, {"value", b.value ? ojson(b.value->to_string()) : ojson()}};
  if (b.kind == BreakEvenUtilisation::Kind::parallel) j["renting_cheaper"] = b.renting_cheaper;
  j["text"] = b.describe();
  return j;
}

ojson fx_json(const FxRate& r) {
  return {{"from", r.from.to_string()}, {"to", r.to.to_string()}, {"rate", r.rate.to_string()},
          {"day", format_day(r.day)},   {"inverted", r.inverted}, {"source", r.source}};
}

// The resolved inputs, with the FX rates they were converted at.
ojson inputs_json(const LeaseVsBuyInputs& in, const std::string& cur) {
  ojson fx = ojson::array();
  for (const auto& rate : in.fx_rates) fx.push_back(fx_json(rate));
  return {{"gpu", in.gpu.id},
          {"boards", in.boards},
          {"gpu_count", in.gpu_count},
          {"gpu_watts", in.gpu_watts.to_string()},
          {"host_watts", in.host_watts.to_string()},
          {"it_kw", in.it_kw.to_string()},
          {"hardware_price", amount(in.hardware_price)},
          {"hardware_price_basis", in.hardware_price_basis},
          {"price_source", in.price_source},
          {"horizon_months", in.horizon_months},
          {"pue", in.pue.to_string()},
          {"kwh_price", amount(in.kwh_price)},
          {"utilisation", in.utilisation.to_string()},
          {"hosting_per_kw_month", amount(in.hosting_per_kw_month)},
          {"maintenance_yearly_share", in.maintenance_yearly_share.to_string()},
          {"residual_share", in.residual_share.to_string()},
          {"cost_of_capital_yearly", in.cost_of_capital_yearly.to_string()},
          {"monthly_rate", in.monthly_rate.to_string()},
          {"providers", in.providers},
          {"rent_gpus", in.rent_gpus},
          {"fx_rates", fx},
          {"currency", cur}};
}

// Owning: the buy model's totals.
ojson buy_json(const BuyModel& b, const std::string& cur) {
  return {{"power_per_month", amount(b.power_per_month)},
          {"power_per_month_full_use", amount(b.power_per_month_full_use)},
          {"hosting_per_month", amount(b.hosting_per_month)},
          {"maintenance_per_year", amount(b.maintenance_per_year)},
          {"residual", amount(b.residual)},
          {"total", amount(b.total)},
          {"total_pv", amount(b.total_pv)},
          {"total_line", linear_cost_json(b.total_line)},
          {"pv_line", linear_cost_json(b.pv_line)},
          {"currency", cur}};
}

// Each rent option, priced.
ojson options_json(const LeaseVsBuyResult& r, const std::string& cur) {
  ojson options = ojson::array();
  for (const auto& o : r.options) {
    options.push_back({{"mode", to_string(o.mode)},
                       {"provider", o.provider},
                       {"region", o.region},
                       {"instance_type", o.instance_type},
                       {"gpu", o.gpu},
                       {"gpus_per_instance", o.gpus_per_instance.to_string()},
                       {"instances", o.instances},
                       {"vcpu", o.vcpu ? ojson(*o.vcpu) : ojson()},
                       {"ram_gb", o.ram_gb ? ojson(o.ram_gb->to_string()) : ojson()},
                       {"list_price", o.list_price.amount().to_string()},
                       {"list_currency", o.list_price.currency().to_string()},
                       {"list_unit", to_string(o.unit)},
                       {"fx_rate", o.fx ? fx_json(*o.fx) : ojson()},
                       {"plan", o.plan.empty() ? ojson() : ojson(o.plan)},
                       {"per_month", amount(o.per_month)},
                       {"price_per_gpu_hour", amount(o.price_per_gpu_hour)},
                       {"total", amount(o.total)},
                       {"total_pv", amount(o.total_pv)},
                       {"total_line", linear_cost_json(o.total_line)},
                       {"pv_line", linear_cost_json(o.pv_line)},
                       {"notes", o.notes},
                       {"currency", cur}});
  }
  return options;
}

// Buying against the best pay-as-you-go and prepaid options.
ojson comparisons_json(const LeaseVsBuyResult& r, const std::string& cur) {
  ojson comparisons = ojson::array();
  for (const auto& c : r.comparisons) {
    comparisons.push_back(
        {{"mode", to_string(r.options[c.option].mode)},
         {"option", c.option},
         {"break_even_month", opt_month(c.break_even_month)},
         {"break_even_month_pv", opt_month(c.break_even_month_pv)},
         {"break_even_utilisation", break_even_json(c.break_even_utilisation)},
         {"break_even_utilisation_pv", break_even_json(c.break_even_utilisation_pv)},
         {"saving", amount(c.saving)},
         {"saving_pv", amount(c.saving_pv)},
         {"currency", cur}});
  }
  return comparisons;
}

ojson rule_of_thumb_json(const LeaseVsBuyResult& r, const std::string& cur) {
  const auto& rule = r.rule_of_thumb;
  ojson rents = ojson::array();
  for (const auto& rent : rule.rents) {
    rents.push_back({{"mode", to_string(r.options[rent.option].mode)},
                     {"option", rent.option},
                     {"yearly", amount(rent.yearly)},
                     {"implied_fee", amount(rent.implied_fee)},
                     {"years_to_price", rent.years_to_price.to_string()},
                     {"currency", cur}});
  }
  return {{"text", "全款/3年+少量的费用=年租: a year's rent ≈ price / 3 + a small fee"},
          {"price_over_3", amount(rule.price_over_3)},
          {"owner_yearly_cost", amount(rule.owner_yearly_cost)},
          {"owner_yearly_running", amount(rule.owner_yearly_running)},
          {"rents", rents},
          {"currency", cur}};
}

// Month by month: buying, and the cumulative rent of the best options.
ojson months_json(const LeaseVsBuyResult& r, const std::string& cur) {
  const auto& b = r.buy;
  const RentOption* payg = r.best_payg ? &r.options[*r.best_payg] : nullptr;
  const RentOption* prepaid = r.best_prepaid ? &r.options[*r.best_prepaid] : nullptr;
  ojson months = ojson::array();
  for (const auto& m : b.months) {
    const auto i = static_cast<std::size_t>(m.month);
    months.push_back({{"month", m.month},
                      {"buy",
                       {{"capex", amount(m.capex)},
                        {"power", amount(m.power)},
                        {"hosting", amount(m.hosting)},
                        {"maintenance", amount(m.maintenance)},
                        {"residual", amount(m.residual)},
                        {"net", amount(m.net)},
                        {"cumulative", amount(m.cumulative)},
                        {"cumulative_pv", amount(m.cumulative_pv)},
                        {"currency", cur}}},
                      {"rent_payg", payg ? amount(payg->cumulative[i]) : ojson()},
                      {"rent_payg_pv", payg ? amount(payg->cumulative_pv[i]) : ojson()},
                      {"rent_prepaid", prepaid ? amount(prepaid->cumulative[i]) : ojson()},
                      {"rent_prepaid_pv", prepaid ? amount(prepaid->cumulative_pv[i]) : ojson()},
                      {"currency", cur}});
  }
  return months;
}

ojson result_json(const LeaseVsBuyResult& r) {
  const auto& in = r.inputs;
  const auto& b = r.buy;
  const std::string cur = in.currency.to_string();
  ojson j;
  j["currency"] = cur;
  j["date"] = format_day(in.date);
  j["inputs"] = inputs_json(in, cur);
  j["buy"] = buy_json(b, cur);
  j["owned_per_gpu_hour"] = r.owned_per_gpu_hour ? amount(*r.owned_per_gpu_hour) : ojson();
  j["options"] = options_json(r, cur);
  j["comparisons"] = comparisons_json(r, cur);
  ojson buy_cheaper = ojson::array();
  for (const auto& [from, to] : r.verdict.buy_cheaper) {
    buy_cheaper.push_back({{"from", from.to_string()}, {"to", to.to_string()}});
  }
  j["verdict"] = {{"text", describe(r.verdict, r)},
                  {"rent", r.verdict.rent},
                  {"option", r.verdict.option ? ojson(*r.verdict.option) : ojson()},
                  {"rent_total", r.verdict.option ? amount(r.verdict.rent_total) : ojson()},
                  {"buy_total", amount(r.verdict.buy_total)},
                  {"difference", r.verdict.option ? amount(r.verdict.difference) : ojson()},
                  {"buy_cheaper_utilisation", buy_cheaper},
                  {"currency", cur}};
  j["rule_of_thumb"] = rule_of_thumb_json(r, cur);
  j["months"] = months_json(r, cur);
  j["notes"] = r.notes;
  return j;
}

int run_tco(const Globals& globals, const TcoArgs& args) {
  auto db = globals.open_database(Access::read);
  const auto catalog = Catalog::load(db);
  const LeaseVsBuyResult r = lease_vs_buy_of(catalog, args);
  // Nothing to rent is no comparison: the buy side is still printed, and the exit status says
  // so (as for a quote that no offer fits).
  const int status = r.options.empty() ? kExitNothingMatched : kExitOk;
  if (status != 0) {
    std::cerr << "gpubill: lease-vs-buy: nothing to rent: no offer in the catalog rents "
              << r.inputs.gpu.id << " (or its line) from the allowed providers on "
              << format_day(r.inputs.date) << "\n";
  }
  if (args.format == Format::json) {
    std::cout << json_text(with_schema_version(result_json(r))) << "\n";
    return status;
  }
  const Fmt f{args.format != Format::table};
  const std::string c = r.inputs.currency.to_string();
  write_sections(std::cout,
                 {{"lease vs buy (" + c + ")", summary_table(r, f)},
                  {"rent options (" + c + ")", options_table(r, f)},
                  {"cumulative cost by month (" + c + ")", months_table(r, f)}},
                 args.format, "cumulative cost by month (" + c + ")");
  return status;
}

}  // namespace

void add_tco_commands(CLI::App& app, Globals& globals, Action& action) {
  auto* sub = app.add_subcommand(
      "lease-vs-buy",
      "Buy a GPU server or rent the same GPUs? Month-by-month cost, break-even month and "
      "break-even utilisation (docs/lease-vs-buy.md)");
  auto args = std::make_shared<TcoArgs>();
  add_tco_options(*sub, *args);
  add_format_option(*sub, args->format);
  add_db_option(*sub, globals);
  sub->callback(
      [&globals, &action, args] { action = [&globals, args] { return run_tco(globals, *args); }; });
}

}  // namespace gpubill::cli
