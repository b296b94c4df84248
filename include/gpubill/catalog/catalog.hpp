// The catalog: providers, GPU models, instance types, and effective-dated prices, prepaid term
// discounts, disk and bandwidth prices, FX rates and billing policies. Catalog answers "what is
// in force at instant t" from memory; it is loaded from a Database (catalog_store.hpp) or built
// from CatalogData directly (tests, benchmarks).
//
// A price that is not in the catalog is unknown: look-ups return nullptr, never a zero price.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "gpubill/base/money.hpp"
#include "gpubill/base/time.hpp"
#include "gpubill/catalog/commitment.hpp"
#include "gpubill/catalog/policy.hpp"

namespace gpubill {

class Database;

enum class BillingMode { payg, prepaid, spot, reserved_1y, reserved_3y };
// "payg", "prepaid", "spot", "reserved_1y", "reserved_3y". Throws ParseError.
BillingMode parse_billing_mode(std::string_view text);
std::string_view to_string(BillingMode mode) noexcept;

enum class PriceUnit { hour, month };
PriceUnit parse_price_unit(std::string_view text);  // "hour" | "month"; throws ParseError
std::string_view to_string(PriceUnit unit) noexcept;

// What a price row prices: a whole instance type, or one attachable GPU (Google-style).
enum class SubjectKind { instance, gpu };
std::string_view to_string(SubjectKind kind) noexcept;

struct Provider {
  std::string id;  // "tencent"
  std::string name;
  Currency currency;
  std::string billing_time_zone;  // IANA zone of the settlement calendar
};

struct Region {
  std::string provider, id, name;
};

struct Gpu {
  std::string id;  // canonical: "V100-SXM2-16GB"
  std::vector<std::string> aliases;
  std::string vendor, architecture;
  // Peak dense throughput per GPU (TFLOPS / TOPS); unset when unknown.
  std::optional<Decimal> fp64_tflops, fp32_tflops, fp16_tensor_tflops, int8_tops;
  std::optional<Decimal> memory_gb, memory_bandwidth_gbs, interconnect_bandwidth_gbs;
  std::string interconnect;  // "PCIe 3.0", "NVLink 2.0"
  std::optional<int> tdp_w;  // watts per rentable unit
  // Price of one board as sold; a board holds `units_per_board` rentable units (K80: 2 GK210
  // chips, each rented as "1 K80"). Throughput, memory, bandwidth and TDP are per unit.
  std::optional<Money> launch_price;
  int units_per_board = 1;
  std::string source;
  bool nvlink() const { return interconnect.rfind("NVLink", 0) == 0; }
};

struct AttachableGpu {
  AttachableGpu() = default;
  AttachableGpu(std::string gpu_id, std::vector<int> gpu_counts,
                std::optional<Instant> retired = std::nullopt)
      : gpu(std::move(gpu_id)), counts(std::move(gpu_counts)), retired_on(retired) {}
  std::string gpu;
  std::vector<int> counts;
  // The day the provider retired this GPU on this host (JSON "retired_on"); unset = not retired.
  std::optional<Instant> retired_on;
};

struct InstanceType {
  std::string provider, id, family;
  std::string gpu;    // a Gpu id; empty for a host without built-in GPUs
  Decimal gpu_count;  // may be fractional: 0.25 for a quarter vGPU slice
  std::optional<int> vcpu;
  std::optional<Decimal> ram_gb;
  std::optional<int> local_disk_gb;
  std::string local_disk_kind, notes, source;
  std::vector<AttachableGpu> attachable;  // GPUs this host takes, priced per GPU
  // Lifecycle (00:00 UTC of the day; JSON "available_from" / "retired_on", YYYY-MM-DD): the
  // first day it could be rented, and the day the provider retired it (from its deprecation
  // notice). Unset = unknown / not retired. A quote at or after retired_on does not rank it.
  std::optional<Instant> available_from, retired_on;
  bool retired_at(Instant t) const noexcept { return retired_on && *retired_on <= t; }
};

struct PriceRow {
  std::int64_t id = 0;
  std::string provider;
  SubjectKind subject_kind = SubjectKind::instance;
  std::string subject;  // instance type id or GPU id
  std::string region;   // empty = every region
  BillingMode mode = BillingMode::payg;
  PriceUnit unit = PriceUnit::hour;
  Money amount{Decimal{}, Currency::parse("USD")};  // per unit, per GPU for a gpu row
  Effective period;
  std::string source, as_of;
  // A key-only row (load_quote_catalog, quote.hpp): it names an offer's provider,
  // subject, region and mode, and has no amount. Price look-ups never return it.
  bool key_only = false;
};

struct DiscountRow {
  std::int64_t id = 0;
  std::string provider;
  std::string family;  // empty = every family
  BillingMode mode = BillingMode::prepaid;
  int min_months = 0, max_months = 0;  // inclusive
  Decimal factor;                      // 0.83 = pay 83 % of list
  Effective period;
  std::string source, as_of;
};

// A disk ("cloud_ssd", unit gb_hour | gb_month) or bandwidth ("fixed_mbps", unit mbps_hour |
// mbps_month | gb) price.
struct ResourcePriceRow {
  std::int64_t id = 0;
  std::string provider, kind;
  BillingMode mode = BillingMode::payg;
  std::string unit;
  Money amount{Decimal{}, Currency::parse("USD")};
  Effective period;
  std::string source, as_of;
};

struct FxRate {
  std::int64_t id = 0;  // row id; the row of the other direction when `inverted`
  date::sys_days day{};
  Currency from = Currency::parse("USD"), to = Currency::parse("CNY");
  Decimal rate;           // one `from` is worth `rate` of `to`
  bool inverted = false;  // computed as 1 / the stored rate (half-even, 12 decimals)
  std::string source, as_of;
};

struct Conversion {
  Money result;
  std::optional<FxRate> rate;  // unset when no conversion was needed
};

// All catalog rows, as read from a file or the database.
struct CatalogData {
  std::vector<Provider> providers;
  std::vector<Region> regions;
  std::vector<Gpu> gpus;
  std::vector<InstanceType> instance_types;
  std::vector<PriceRow> prices;
  std::vector<DiscountRow> discounts;
  std::vector<ResourcePriceRow> disk_prices, bandwidth_prices;
  std::vector<FxRate> fx_rates;
  std::vector<BillingPolicy> policies;
  std::vector<CommitmentRow> commitments;  // commitment.hpp
};

class Catalog {
 public:
  Catalog() = default;
  explicit Catalog(CatalogData data);
  // Reads every catalog row of the database into memory. Throws StoreError.
  static Catalog load(Database& db);
  // As load, but price and commitment rows come without their source text (`source` empty):
  // for billing (replay, rebuild), which names a price by its row id and never shows a source.
  // The sources were two thirds of the bytes read and 28 % of a short replay's time.
  static Catalog load_for_billing(Database& db);
  // For work at one instant (a quote): every row except prices, and of the prices, per key
  // (provider, subject, region, mode), the rows in force at `t`, the last one that ended before
  // `t` and the first one that starts after it — what price_at(t) and the reasons for a missing
  // price ("takes effect …", "ended …") need, without the price history of other dates. Look-ups
  // at any other instant may miss rows. Throws StoreError.
  static Catalog load_around(Database& db, Instant t);

  const CatalogData& data() const noexcept { return data_; }

  const Provider* find_provider(std::string_view id) const;
  // Throws NotFound naming the known providers.
  const Provider& provider(std::string_view id) const;

  // By id or alias, case-insensitive ("v100" → V100-SXM2-16GB).
  const Gpu* find_gpu(std::string_view name) const;
  // Throws NotFound listing the closest known names.
  const Gpu& gpu(std::string_view name) const;
  // Up to n known GPU ids and aliases closest to `name` (edit distance), best first.
  std::vector<std::string> closest_gpu_names(std::string_view name, std::size_t n = 3) const;

  const InstanceType* find_instance_type(std::string_view provider, std::string_view id) const;

  // The price in force at t for a subject in a region: a row for that region wins over an
  // every-region row; among those, the latest effective_from. nullptr = unknown.
  const PriceRow* price_at(std::string_view provider, SubjectKind kind, std::string_view subject,
                           std::string_view region, BillingMode mode, Instant t) const;
  // Every price row of a subject (all regions, modes and periods), in effective_from order.
  std::vector<const PriceRow*> prices_of(std::string_view provider, SubjectKind kind,
                                         std::string_view subject) const;

  // The prepaid term discount for a term of `months` at t: a row for the family wins over an
  // every-family row. nullptr = no discount (pay list price).
  const DiscountRow* discount_at(std::string_view provider, std::string_view family,
                                 BillingMode mode, int months, Instant t) const;

  // The billing policy of a provider at t. nullptr = none documented.
  const BillingPolicy* policy_at(std::string_view provider, Instant t) const;

  const ResourcePriceRow* disk_price_at(std::string_view provider, std::string_view kind,
                                        BillingMode mode, Instant t) const;
  const ResourcePriceRow* bandwidth_price_at(std::string_view provider, std::string_view kind,
                                             BillingMode mode, Instant t) const;

  // The rate in force on `day`: the latest row dated on or before it, stored in either
  // direction. The same currency gives rate 1 (no row). nullopt = unknown.
  std::optional<FxRate> fx_rate(Currency from, Currency to, date::sys_days day) const;
  // amount × rate, rounded half-even to 12 decimals. Throws NotFound without a rate.
  Conversion convert(const Money& amount, Currency to, date::sys_days day) const;

  // The latest effective_from of any price row (the default date of a quote).
  std::optional<Instant> latest_price_date() const;

 private:
  CatalogData data_;
  std::unordered_map<std::string, std::size_t> provider_index_;
  std::unordered_map<std::string, std::size_t> gpu_index_;  // lower-case id and aliases
  std::unordered_map<std::string, std::size_t> instance_index_;
  std::unordered_map<std::string, std::vector<std::size_t>> price_index_;
  std::unordered_map<std::string, std::vector<std::size_t>> policy_index_;
  std::unordered_map<std::string, std::vector<std::size_t>> discount_index_;
};

// The latest effective_from of any price row in the database, read without loading the
// catalog (the default date of a quote). Throws StoreError.
std::optional<Instant> latest_price_date(Database& db);

}  // namespace gpubill
