// Lease versus buy: over a horizon (default 36 months), the month-by-month cost of buying a GPU
// server (hardware, power, colocation, maintenance, residual value, cost of capital) against
// renting the same GPUs from the catalog's best offers, found by the quote engine
// (pay-as-you-go at the given utilisation, and prepaid with the cheapest term plan).
//
// Everything is exact Decimal arithmetic (docs/lease-vs-buy.md gives the model, its defaults
// and their sources):
//
//   IT power (kW)      = (GPU watts × count + host watts) / 1000     (nameplate, not × utilisation)
//   power per month    = IT kW × PUE × 730 h × utilisation × kWh price
//   hosting per month  = IT kW × hosting per kW-month              (colocation bills contracted kW)
//   maintenance        = price × yearly share × m / 12             (cumulative to month m)
//   residual credit    = price × residual share, at the horizon month
//   capex              = price, at month 0
//
// Month m of a series (m = 0 … horizon) is what has been paid by the end of month m; month 0 is
// the purchase day. Running costs and pay-as-you-go rent are paid at the end of their month;
// capex and prepaid orders at the start of their term (month 0 for the first term).
//
// Present values discount with a nominal monthly rate j = yearly cost of capital / 12, rounded
// half-even to 12 decimals; the growth factor g_m = g_(m-1) × (1 + j) is rounded half-even to
// 12 decimals at each step (g_0 = 1), and a cash flow c paid at month m is worth c / g_m
// (rounded half-even to 12 decimals) today.
//
// Nothing here reads the wall clock: the date of the prices and FX rates is an input.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gpubill/base/errors.hpp"
#include "gpubill/base/money.hpp"
#include "gpubill/catalog/catalog.hpp"

namespace gpubill {

// An invalid lease-vs-buy input: names the field ("utilisation", "hardware_price") and why.
class TcoInputError : public Error {
 public:
  TcoInputError(std::string field, const std::string& reason);
  const std::string& field() const noexcept { return field_; }
  const std::string& reason() const noexcept { return reason_; }

 private:
  std::string field_, reason_;
};

// Hours in an average month: 8760 / 12.
inline constexpr int kHoursPerMonth = 730;

namespace tco_detail {
// The initial value of Money members below (0 USD); every result overwrites it.
inline Money unset() {
  return Money::zero(Currency::parse("USD"));
}
}  // namespace tco_detail

// What the user states. Defaults are documented in docs/lease-vs-buy.md with their sources
// (published TCO write-ups, all secondary); those marked "assumption" have no published source.
struct LeaseVsBuyConfig {
  // The GPU bought: a catalog id or alias ("V100" → V100-SXM2-16GB), and how many boards (cards
  // as sold). A board may hold several rentable units (a K80 board is two GK210 chips, each
  // rented as "1 K80"): renting covers count × units_per_board units.
  std::string gpu;
  int gpu_count = 0;
  // Watts per board; unset = the catalog's TDP per unit × units per board.
  std::optional<Decimal> gpu_watts;
  // The whole server's price. Unset = the GPU's catalog launch price × count + host_price
  // (both required then).
  std::optional<Money> hardware_price;
  std::optional<Money> host_price;
  // Where the hardware price comes from (free text, shown in the output).
  std::string price_source;
  // The bought server's host: vCPUs (hardware threads) and RAM. A rent option must have at
  // least as many (split over its instances when it rents several); unset = no vCPU floor, and
  // RAM at least the GPUs' total memory (the quote's default floor).
  std::optional<int> host_vcpu;
  std::optional<Decimal> host_ram_gb;
  // Host (CPUs, memory, disks, NICs) power, watts. Default 600: lynx-cortex "Datacenter economics"
  // (8×H100 node: host ≈ 500 W + network ≈ 100 W).
  Decimal host_watts = Decimal(600);
  int horizon_months = 36;
  // Power usage effectiveness. Default 1.5: lynx-cortex, Uptime Institute 2024 (enterprise
  // colocation 1.50–1.80, hyperscale 1.10–1.30); the low end of enterprise colocation.
  Decimal pue = Decimal::parse("1.5");
  // Default 0.10 USD: v2-pseo-ai "GPU TCO Analysis" ($0.06–0.12/kWh), HN H100 example ($0.10/kWh).
  Money kwh_price = Money::parse("0.10 USD");
  // Share of the month's 730 hours the GPUs are busy, 0 … 1. Required.
  std::optional<Decimal> utilisation;
  // Colocation per kW of IT power per month. Default 200 USD: v2-pseo-ai "GPU TCO Analysis"
  // ($150–250 per kW-month).
  Money hosting_per_kw_month = Money::parse("200 USD");
  // Yearly maintenance (support contract, spares, repairs) as a share of the price.
  // Default 0.10: an assumption.
  Decimal maintenance_yearly_share = Decimal::parse("0.10");
  // Resale value at the end of the horizon as a share of the price. Default 0.30:
  // v2-pseo-ai "GPU TCO Analysis" (25–35 % after 36 months). Set it when the horizon is not 36
  // months.
  Decimal residual_share = Decimal::parse("0.30");
  // Yearly cost of capital (discount rate) for the present-value view. Default 0.08: an
  // assumption.
  Decimal cost_of_capital_yearly = Decimal::parse("0.08");
  // Comparison currency; unset = the hardware price's currency (else USD).
  std::optional<Currency> currency;
  // Day of the prices and FX rates; unset = the day of the catalog's latest price row.
  std::optional<date::sys_days> date;
  // Providers whose offers may be rented; empty = every provider.
  std::vector<std::string> providers;
  // GPU models whose instances count as "the same GPUs"; empty = the bought GPU and the models
  // of its line (same id up to the first '-') with at least its FP32 throughput and memory
  // (V100-SXM2-16GB → V100-SXM2-16GB, V100-SXM2-32GB).
  std::vector<std::string> rent_gpus;
};

// The inputs after validation, resolved against the catalog and converted to the comparison
// currency (each conversion at the FX rate in force on `date`, listed in `fx_rates`).
struct LeaseVsBuyInputs {
  Gpu gpu;
  int boards = 0;                 // boards bought (the configuration's count)
  int gpu_count = 0;              // rentable units they hold: boards × gpu.units_per_board
  Decimal gpu_watts, host_watts;  // gpu_watts per rentable unit
  Decimal it_kw;                  // (gpu_watts × gpu_count + host_watts) / 1000
  Money hardware_price = tco_detail::unset();
  std::string hardware_price_basis;  // "given: …" or "launch price 8 × … + host …"
  std::string price_source;          // as given in the configuration
  int horizon_months = 36;
  Decimal pue;
  Money kwh_price = tco_detail::unset();
  Decimal utilisation;
  Money hosting_per_kw_month = tco_detail::unset();
  Decimal maintenance_yearly_share, residual_share, cost_of_capital_yearly;
  Decimal monthly_rate;  // cost_of_capital_yearly / 12, half-even to 12 decimals
  Currency currency = Currency::parse("USD");
  date::sys_days date{};
  std::vector<std::string> providers;  // validated; empty = all
  std::vector<std::string> rent_gpus;  // catalog GPU ids
  std::vector<FxRate> fx_rates;        // the rates the conversions used
  std::optional<int> host_vcpu;        // as configured
  std::optional<Decimal> host_ram_gb;
};

// Validates every input and resolves it. Throws TcoInputError naming the field: unknown GPU
// (with the closest known names), count < 1, negative or zero price, negative host price or
// watts, unknown TDP or launch price when needed, horizon outside 1 … 600, PUE < 1, negative
// kWh or hosting price, utilisation missing or outside 0 … 1, shares outside 0 … 1, negative
// cost of capital, unknown provider or rent GPU, a missing FX rate.
LeaseVsBuyInputs resolve_lease_vs_buy(const Catalog& catalog, const LeaseVsBuyConfig& config);

// Present values (see the header comment for the rounding).
class Discounter {
 public:
  Discounter(Decimal yearly_rate, int months);
  Decimal monthly_rate() const noexcept { return monthly_rate_; }
  // g_m; REQUIRES 0 <= month <= months.
  Decimal growth(int month) const;
  Money present_value(const Money& cash, int month) const;

 private:
  Decimal monthly_rate_;
  std::vector<Decimal> growth_;
};

// A total that is linear in the utilisation u: fixed + per_utilisation × u.
struct LinearCost {
  Money fixed = tco_detail::unset();
  Money per_utilisation = tco_detail::unset();
  Money at(Decimal u) const { return fixed + per_utilisation * u; }
};

// One month of owning.
struct BuyMonth {
  int month = 0;
  Money capex = tco_detail::unset(), power = tco_detail::unset(), hosting = tco_detail::unset(),
        maintenance = tco_detail::unset();
  Money residual = tco_detail::unset();  // credited (subtracted) at the horizon month, else 0
  Money net = tco_detail::unset();       // capex + power + hosting + maintenance − residual
  Money cumulative = tco_detail::unset(), cumulative_pv = tco_detail::unset();
};

struct BuyModel {
  // At the utilisation; and at utilisation 1 (IT kW × PUE × 730 × kWh price).
  Money power_per_month = tco_detail::unset();
  Money power_per_month_full_use = tco_detail::unset();
  Money hosting_per_month = tco_detail::unset();     // IT kW × hosting per kW-month
  Money maintenance_per_year = tco_detail::unset();  // price × maintenance share
  Money residual = tco_detail::unset();              // price × residual share
  std::vector<BuyMonth> months;                      // months[m], m = 0 … horizon
  // The cumulative cost at the horizon, nominal and present value.
  Money total = tco_detail::unset(), total_pv = tco_detail::unset();
  // The horizon totals as functions of the utilisation (power is the only part that depends
  // on it): nominal and present value.
  LinearCost total_line, pv_line;
};

BuyModel buy_model(const LeaseVsBuyInputs& inputs);

// One way of renting the same GPUs: `instances` × an instance type, under one billing mode.
// One instance (a single node with every GPU) when the provider offers one that meets the
// host floors; else the fewest instances that do.
struct RentOption {
  BillingMode mode = BillingMode::payg;  // payg, prepaid, reserved_1y or reserved_3y (commitments)
  std::string provider, region, instance_type, gpu;
  Decimal gpus_per_instance;
  int instances = 0;
  // Per instance (the host's, for GPUs attached to a host); unset = not in the catalog.
  std::optional<int> vcpu;
  std::optional<Decimal> ram_gb;
  // The list price per instance and its unit, in the provider's currency.
  Money list_price = tco_detail::unset();
  PriceUnit unit = PriceUnit::hour;
  std::optional<FxRate> fx;  // rate to the comparison currency (unset: same currency)
  // Prepaid: the orders of the cheapest plan, e.g. "36 months × 0.5".
  std::string plan;
  // In the comparison currency. per_month: payg, one month at the utilisation; prepaid, the
  // total / horizon. price_per_gpu_hour: payg, hourly × instances / GPUs; prepaid, the
  // monthly list price × instances / (730 × GPUs) after the plan's discount.
  Money per_month = tco_detail::unset();
  Money price_per_gpu_hour = tco_detail::unset();
  std::vector<Money> cumulative, cumulative_pv;  // [m], m = 0 … horizon
  Money total = tco_detail::unset(), total_pv = tco_detail::unset();
  LinearCost total_line, pv_line;
  std::vector<std::string> notes;
};

// Where renting and buying cost the same over the horizon, as a function of the utilisation:
// u* = (buy.fixed − rent.fixed) / (rent.per_utilisation − buy.per_utilisation), rounded
// half-even to 12 decimals.
struct BreakEvenUtilisation {
  enum class Kind {
    renting_below,  // renting is cheaper below `value`, buying above (pay-as-you-go)
    renting_above,  // renting is cheaper above `value`, buying below (prepaid: a flat rent)
    parallel,       // the lines never cross: `renting_cheaper` says who wins everywhere
  };
  Kind kind = Kind::parallel;
  std::optional<Decimal> value;  // the crossing point; may lie outside 0 … 1
  bool renting_cheaper = false;  // parallel only
  // One line in words, interpreting the crossing within 0 … 1.
  std::string describe() const;
};
BreakEvenUtilisation break_even_utilisation(const LinearCost& buy, const LinearCost& rent);

// The first month m such that buying's cumulative cost is at most renting's in every month
// from m to the horizon; nullopt when renting is still cheaper at the horizon.
std::optional<int> break_even_month(const std::vector<Money>& buy_cumulative,
                                    const std::vector<Money>& rent_cumulative);

struct Comparison {
  std::size_t option = 0;  // index into LeaseVsBuyResult::options
  std::optional<int> break_even_month, break_even_month_pv;
  BreakEvenUtilisation break_even_utilisation, break_even_utilisation_pv;
  // Renting's total − buying's total (positive: buying saves), nominal and present value.
  Money saving = tco_detail::unset(), saving_pv = tco_detail::unset();
};

// The source article's rule of thumb: "全款/3年+少量的费用=年租", a year's rent ≈ the purchase
// price / 3 + a small fee, beside what the model computes.
struct RuleOfThumb {
  // The hardware price / 3 (half-even, 12 decimals); buying's horizon total × 12 / horizon;
  // power + hosting + maintenance for 12 months.
  Money price_over_3 = tco_detail::unset();
  Money owner_yearly_cost = tco_detail::unset();
  Money owner_yearly_running = tco_detail::unset();
  // Per rented option compared (payg, prepaid): its yearly cost (total × 12 / horizon), the
  // fee that the rule would need (yearly − price / 3), and the price / yearly ratio (years
  // of rent that buy the server; the rule says 3).
  struct Rent {
    std::size_t option = 0;
    Money yearly = tco_detail::unset(), implied_fee = tco_detail::unset();
    Decimal years_to_price;  // half-even, 12 decimals
  };
  std::vector<Rent> rents;
};

// The answer in one sentence: the cheapest way over the horizon at the utilisation — the
// cheapest rent option (pay-as-you-go or prepaid, single nodes preferred) or buying — by how
// much, and the utilisations where buying is the cheaper way (nominal totals).
struct Verdict {
  bool rent = false;                  // renting the option is cheaper than buying
  std::optional<std::size_t> option;  // the cheapest rent option; unset: nothing to rent
  Money rent_total = tco_detail::unset(), buy_total = tco_detail::unset();
  Money difference = tco_detail::unset();  // |rent_total − buy_total|
  // Closed intervals of utilisation within 0 … 1 where buying costs less than every rent
  // option (empty: renting is cheaper at every utilisation).
  std::vector<std::pair<Decimal, Decimal>> buy_cheaper;
};

struct LeaseVsBuyResult {
  LeaseVsBuyInputs inputs;
  BuyModel buy;
  // Every rent option priced: for each provider and mode the cheapest single node with the
  // bought GPUs and at least its host (else the cheapest set of smaller instances); payg
  // options first, then prepaid, each cheapest first. best_payg and best_prepaid prefer single
  // nodes. A pay-as-you-go price below every spot price of the same instance type (in any
  // region) is implausible: such an offer is left out, with a note.
  std::vector<RentOption> options;
  std::optional<std::size_t> best_payg, best_prepaid;
  // The cheapest commitment option (1- or 3-year: reserved instance, savings plan, committed use
  // discount; modes reserved_1y / reserved_3y, after prepaid in `options`), single nodes first.
  std::optional<std::size_t> best_commitment;
  // Against best_payg, best_prepaid, then best_commitment (when found).
  std::vector<Comparison> comparisons;
  Verdict verdict;
  // Owning: buying's horizon total / (GPUs × 730 × horizon × utilisation); unset at 0.
  std::optional<Money> owned_per_gpu_hour;
  RuleOfThumb rule_of_thumb;
  std::vector<std::string> notes;
};

// The verdict of a result whose options, best_payg, best_prepaid and buy are set: among the
// best pay-as-you-go and the best prepaid option, the cheaper at the utilisation, against
// buying; the utilisations where buying is cheaper than both.
Verdict verdict(const LeaseVsBuyResult& r);

// The verdict in one sentence: "Rent aws p3dn.24xlarge (prepaid): over 36 months at 60 %
// utilisation it costs 123.00 USD, 45.00 USD less than buying (168.00 USD); buying would be
// cheaper only between 31.93 % and 52.00 % utilisation." Amounts rounded half-even to cents.
std::string describe(const Verdict& v, const LeaseVsBuyResult& r);

// The whole comparison. Throws TcoInputError on invalid inputs.
LeaseVsBuyResult lease_vs_buy(const Catalog& catalog, const LeaseVsBuyConfig& config);

// The rent options for resolved inputs (the quote engine finds and prices the offers).
std::vector<RentOption> rent_options(const Catalog& catalog, const LeaseVsBuyInputs& inputs,
                                     std::vector<std::string>& notes);

// Parses a lease-vs-buy configuration file (JSON, docs/lease-vs-buy.md): keys as in
// LeaseVsBuyConfig; decimals and amounts as strings ("0.6", {"amount": "149000",
// "currency": "USD"}); unknown keys rejected. Throws InputError naming file, place and field.
LeaseVsBuyConfig parse_lease_vs_buy_config(std::string_view json_text,
                                           const std::string& file_name);

}  // namespace gpubill
