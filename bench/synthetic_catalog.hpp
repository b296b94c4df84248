// A deterministic synthetic catalog for the quote benchmark (and the quote tests that compare
// a top-N quote with the full ranking): N offers across providers in four currencies, each
// offer an instance type in a region, or a host with attachable GPUs; prices in payg, prepaid,
// spot and reserved modes, several effective dates (some in the future of the quote date, so
// unknown), region-specific and every-region rows, provider-wide and family discounts, policies
// with different rounding, dated FX rates. Header-only; no I/O.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gpubill/catalog/catalog.hpp"

namespace gpubill::synthetic {

struct Options {
  std::size_t offers = 100'000;
  std::uint64_t seed = 42;
  int providers = 12;
  int regions_per_provider = 10;
};

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {  // splitmix64
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  int below(int n) { return static_cast<int>(next() % static_cast<std::uint64_t>(n)); }
  bool chance(int percent) { return below(100) < percent; }

 private:
  std::uint64_t state_;
};

inline Instant day(int y, unsigned m, unsigned d) {
  return Instant{date::sys_days{date::year{y} / date::month{m} / date::day{d}}.time_since_epoch()};
}

inline Gpu gpu(std::string id, std::vector<std::string> aliases, const char* fp32, const char* fp16,
               const char* memory, std::string interconnect) {
  Gpu g;
  g.id = std::move(id);
  g.aliases = std::move(aliases);
  g.vendor = "NVIDIA";
  if (fp32) g.fp32_tflops = Decimal::parse(fp32);
  if (fp16) g.fp16_tensor_tflops = Decimal::parse(fp16);
  if (memory) g.memory_gb = Decimal::parse(memory);
  g.interconnect = std::move(interconnect);
  g.source = "synthetic";
  return g;
}

inline Decimal percent(Decimal d, int pct) {
  return Decimal::divide(d * pct, 100, Decimal::kScale, RoundingMode::half_even);
}

// The catalog and the instant its quotes are meant for (2024-06-01).
struct Generated {
  CatalogData data;
  Instant quote_at;
};

// The GPUs of the catalog, in the order base_cents prices them.
inline std::vector<Gpu> synthetic_gpus() {
  return {gpu("K80", {}, "8.74", nullptr, "12", "PCIe 3.0"),
          gpu("M40", {}, "7", nullptr, "24", "PCIe 3.0"),
          gpu("P4", {}, "5.5", nullptr, "8", "PCIe 3.0"),
          gpu("P40", {}, "12", nullptr, "24", "PCIe 3.0"),
          gpu("P100-PCIE-16GB", {"P100"}, "9.3", "18.7", "16", "PCIe 3.0"),
          gpu("V100-PCIE-16GB", {}, "14", "112", "16", "PCIe 3.0"),
          gpu("V100-SXM2-16GB", {"V100"}, "15.7", "125", "16", "NVLink 2.0"),
          gpu("V100-SXM2-32GB", {}, "15.7", "125", "32", "NVLink 2.0"),
          gpu("T4", {}, "8.1", "65", "16", "PCIe 3.0"),
          gpu("A10", {}, "31.2", "125", "24", "PCIe 4.0"),
          gpu("A100-40GB", {"A100"}, "19.5", "312", "40", "NVLink 3.0"),
          gpu("A100-80GB", {}, "19.5", "312", "80", "NVLink 3.0"),
          gpu("H100", {}, "67", "989", "80", "NVLink 4.0"),
          gpu("H200", {}, "67", "989", "141", "NVLink 4.0"),
          gpu("L4", {}, "30.3", "121", "24", "PCIe 4.0"),
          gpu("S7150", {}, "3.77", nullptr, nullptr, "")};
}

// Provider p, with its regions.
inline Provider add_provider(CatalogData& d, int p, int R, const Currency* currencies) {
  Provider prov;
  prov.id = "p" + std::to_string(100 + p).substr(1);
  prov.name = "Synthetic provider " + std::to_string(p);
  prov.currency = currencies[p % 4];
  prov.billing_time_zone = p % 2 ? "UTC" : "Asia/Shanghai";
  d.providers.push_back(prov);
  for (int r = 0; r < R; ++r) {
    d.regions.push_back(
        {prov.id, prov.id + "-r" + std::to_string(r), "region " + std::to_string(r)});
  }
  return prov;
}

inline void add_policy(CatalogData& d, std::int64_t& row_id, const Provider& prov, int p,
                       Currency jpy) {
  BillingPolicy pol;
  pol.id = ++row_id;
  pol.provider = prov.id;
  pol.period.from = day(2016, 1, 1);
  pol.settlement_rounding = static_cast<RoundingMode>(p % 4);
  pol.settlement_decimals = prov.currency == jpy ? 0 : 2;
  pol.min_charge_seconds_per_run = p % 3 == 0 ? 60 : 0;
  if (p % 5 == 1) pol.min_charge_per_lifetime = Decimal::parse("0.01");
  pol.metering_granularity_seconds = p % 6 == 5 ? 60 : 1;
  pol.source = "synthetic";
  d.policies.push_back(pol);
}

// Provider-wide term discounts (most providers), from two dates.
inline void add_term_discounts(CatalogData& d, std::int64_t& row_id, const Provider& prov) {
  const char* tiers[][3] = {
      {"6", "11", "0.88"}, {"12", "23", "0.83"}, {"24", "35", "0.70"}, {"36", "60", "0.50"}};
  for (const auto& t : tiers) {
    DiscountRow dr;
    dr.id = ++row_id;
    dr.provider = prov.id;
    dr.min_months = std::stoi(t[0]);
    dr.max_months = std::stoi(t[1]);
    dr.factor = Decimal::parse(t[2]);
    dr.period.from = day(2019, 1, 1);
    dr.source = "synthetic";
    d.discounts.push_back(dr);
  }
}

// A disk price (for half the providers).
inline void add_disk_price(CatalogData& d, std::int64_t& row_id, const Provider& prov,
                           Currency jpy) {
  ResourcePriceRow disk;
  disk.id = ++row_id;
  disk.provider = prov.id;
  disk.kind = "cloud_ssd";
  disk.unit = "gb_month";
  disk.amount = Money(prov.currency == jpy ? Decimal(25) : Decimal::parse("0.8"), prov.currency);
  disk.period.from = day(2018, 1, 1);
  disk.source = "synthetic";
  d.disk_prices.push_back(disk);
}

// Adds a price row of one provider, rounded to its currency's decimals.
struct PriceAdder {
  CatalogData& d;
  std::int64_t& row_id;
  const Provider& prov;
  int decimals;

  void operator()(const std::string& subject, SubjectKind kind, const std::string& region,
                  BillingMode mode, Decimal amount, Instant from, std::optional<Instant> to) const {
    PriceRow row;
    row.id = ++row_id;
    row.provider = prov.id;
    row.subject_kind = kind;
    row.subject = subject;
    row.region = region;
    row.mode = mode;
    row.unit = mode == BillingMode::prepaid ? PriceUnit::month : PriceUnit::hour;
    row.amount = Money(amount.round(decimals, RoundingMode::half_up), prov.currency);
    row.period.from = from;
    row.period.to = to;
    row.source = "synthetic";
    row.as_of = "2024-01-01";
    d.prices.push_back(std::move(row));
  }
};

// Google-style hosts: each host × 10 regions × 12 GPU/count choices.
inline void add_attachable_gpu_hosts(CatalogData& d, Rng& rng, const PriceAdder& add_price,
                                     const Provider& prov, std::size_t per_provider, int R,
                                     std::size_t attach_offers_per_host, const int* base_cents,
                                     Decimal to_currency) {
  const std::size_t hosts =
      per_provider / (static_cast<std::size_t>(R) * attach_offers_per_host) + 1;
  const int attach_gpus[] = {4, 6, 8, 10};
  for (int g : attach_gpus) {
    for (int r = 0; r < R; ++r) {
      const Decimal per_gpu = percent(Decimal(base_cents[g]) * to_currency, 90 + rng.below(30));
      add_price(d.gpus[static_cast<std::size_t>(g)].id, SubjectKind::gpu,
                prov.id + "-r" + std::to_string(r), BillingMode::payg, per_gpu, day(2023, 1, 1),
                std::nullopt);
      if (rng.chance(60)) {
        add_price(d.gpus[static_cast<std::size_t>(g)].id, SubjectKind::gpu,
                  prov.id + "-r" + std::to_string(r), BillingMode::spot,
                  per_gpu * Decimal::parse("0.35"), day(2023, 1, 1), std::nullopt);
      }
    }
  }
  for (std::size_t h = 0; h < hosts; ++h) {
    InstanceType it;
    it.provider = prov.id;
    it.id = "n" + std::to_string(h % 4) + "-standard-" + std::to_string(4 + h);
    it.family = "n" + std::to_string(h % 4);
    it.vcpu = 4 + static_cast<int>(h % 60);
    it.ram_gb = Decimal(15 + static_cast<int>(h % 60) * 4);
    for (int g : attach_gpus)
      it.attachable.push_back({d.gpus[static_cast<std::size_t>(g)].id, {1, 2, 4}});
    it.source = "synthetic";
    for (int r = 0; r < R; ++r) {
      const Decimal host =
          Decimal(4 + static_cast<int>(h % 60)) * Decimal::parse("3.1") * to_currency;
      add_price(it.id, SubjectKind::instance, prov.id + "-r" + std::to_string(r), BillingMode::payg,
                host, day(2023, 1, 1), std::nullopt);
      if (rng.chance(60)) {
        add_price(it.id, SubjectKind::instance, prov.id + "-r" + std::to_string(r),
                  BillingMode::spot, host * Decimal::parse("0.3"), day(2023, 1, 1), std::nullopt);
      }
    }
    d.instance_types.push_back(std::move(it));
  }
}

// An offer per region, or one for every region (20% of types): 8.2 offers per type.
inline void add_instance_types(CatalogData& d, Rng& rng, const PriceAdder& add_price,
                               const Provider& prov, std::size_t per_provider, int R, int gpu_count,
                               const int* base_cents, Decimal to_currency) {
  const std::size_t types = per_provider * 10 / 82 + 1;
  const char* counts[] = {"1", "1", "1", "2", "4", "8", "0.5", "0.25"};
  for (std::size_t k = 0; k < types; ++k) {
    InstanceType it;
    it.provider = prov.id;
    const int g = rng.below(gpu_count);
    const char* count = counts[rng.below(8)];
    it.family = "f" + std::to_string(g) + std::string(1, static_cast<char>('a' + k % 5));
    it.id = it.family + "." + std::to_string(k) + "x" + count;
    it.gpu = d.gpus[static_cast<std::size_t>(g)].id;
    it.gpu_count = Decimal::parse(count);
    it.vcpu = 4 + rng.below(92);
    it.ram_gb = Decimal(8 + rng.below(1000));
    if (rng.chance(15)) {
      it.local_disk_gb = 400 * (1 + rng.below(8));
      it.local_disk_kind = "nvme";
    }
    it.source = "synthetic";
    const Decimal per_hour_cents =
        percent(Decimal(base_cents[g]) * it.gpu_count, 80 + rng.below(60));
    const bool prepaid = rng.chance(55), spot = rng.chance(35), reserved = rng.chance(6);
    const bool every_region = rng.chance(20);  // one row for all regions
    const int dates = 1 + rng.below(3);
    for (int r = 0; r < (every_region ? 1 : R); ++r) {
      const std::string region = every_region ? std::string() : prov.id + "-r" + std::to_string(r);
      const Decimal regional = percent(per_hour_cents * to_currency, 95 + rng.below(15));
      for (int date = 0; date < dates; ++date) {
        // Dated lists: 2022, 2023, and for some a 2025 list not yet in force on 2024-06-01.
        const Instant from = date == 0   ? day(2022, 1, 1)
                             : date == 1 ? day(2023, 1, 1)
                                         : day(2025, 1, 1);
        std::optional<Instant> to;
        if (date + 1 < dates && date == 0) to = day(2023, 1, 1);
        const Decimal amount = percent(regional, 100 - 5 * date);
        add_price(it.id, SubjectKind::instance, region, BillingMode::payg, amount, from, to);
        if (prepaid)
          add_price(it.id, SubjectKind::instance, region, BillingMode::prepaid, amount * 288, from,
                    to);
        if (spot)
          add_price(it.id, SubjectKind::instance, region, BillingMode::spot,
                    amount * Decimal::parse("0.3"), from, to);
        if (reserved)
          add_price(it.id, SubjectKind::instance, region, BillingMode::reserved_1y,
                    amount * Decimal::parse("0.6"), from, to);
      }
    }
    d.instance_types.push_back(std::move(it));
  }
}

// A family with its own discounts.
inline void add_family_discount(CatalogData& d, std::int64_t& row_id, const Provider& prov) {
  DiscountRow fam;
  fam.id = ++row_id;
  fam.provider = prov.id;
  fam.family = "f6a";
  fam.min_months = 12;
  fam.max_months = 60;
  fam.factor = Decimal::parse("0.6");
  fam.period.from = day(2019, 1, 1);
  fam.source = "synthetic";
  d.discounts.push_back(fam);
}

// FX rates into CNY on several dates.
inline void add_fx_rates(CatalogData& d, std::int64_t& row_id, Currency cny, Currency usd,
                         Currency eur, Currency jpy) {
  const char* usd_rates[] = {"6.4", "6.9", "7.1"};
  const char* eur_rates[] = {"7.6", "7.5", "7.8"};
  const char* jpy_rates[] = {"0.058", "0.052", "0.047"};
  const Instant dates[] = {day(2022, 1, 3), day(2023, 1, 3), day(2024, 1, 3)};
  for (int k = 0; k < 3; ++k) {
    for (auto [from, rate] : {std::pair{usd, usd_rates[k]}, std::pair{eur, eur_rates[k]},
                              std::pair{jpy, jpy_rates[k]}}) {
      FxRate fx;
      fx.id = ++row_id;
      fx.day = date::floor<date::days>(dates[k]);
      fx.from = from;
      fx.to = cny;
      fx.rate = Decimal::parse(rate);
      fx.source = "synthetic";
      fx.as_of = format_day(fx.day);
      d.fx_rates.push_back(fx);
    }
  }
}

inline Generated generate(const Options& opt = {}) {
  Rng rng(opt.seed);
  Generated out;
  out.quote_at = day(2024, 6, 1);
  CatalogData& d = out.data;
  const Currency cny = Currency::parse("CNY"), usd = Currency::parse("USD"),
                 eur = Currency::parse("EUR"), jpy = Currency::parse("JPY");
  const Currency currencies[] = {cny, usd, eur, jpy};

  d.gpus = synthetic_gpus();
  // Base USD price per GPU-hour, in cents, by GPU.
  const int base_cents[] = {45, 40, 60,  110, 146, 230,  248, 290,
                            35, 90, 300, 400, 980, 1100, 70,  30};
  const int gpu_count = static_cast<int>(d.gpus.size());

  std::int64_t row_id = 0;
  const int P = opt.providers;
  const int R = opt.regions_per_provider;
  // The last provider is Google-style: hosts with attachable GPUs priced per GPU.
  const std::size_t attach_offers_per_host = 4 * 3;  // 4 GPU models × counts 1, 2, 4
  const std::size_t per_provider =
      (opt.offers + static_cast<std::size_t>(P) - 1) / static_cast<std::size_t>(P);

  for (int p = 0; p < P; ++p) {
    const Provider prov = add_provider(d, p, R, currencies);
    add_policy(d, row_id, prov, p, jpy);
    if (p % 3 != 2) add_term_discounts(d, row_id, prov);
    if (p % 2 == 0) add_disk_price(d, row_id, prov, jpy);

    // Currency multiplier from USD cents to the provider's currency (per unit).
    const Decimal to_currency = prov.currency == cny   ? Decimal::parse("0.072")
                                : prov.currency == eur ? Decimal::parse("0.0093")
                                : prov.currency == jpy ? Decimal::parse("1.45")
                                                       : Decimal::parse("0.01");
    const int decimals = prov.currency == jpy ? 0 : 2;
    const PriceAdder add_price{d, row_id, prov, decimals};

    if (p == P - 1) {
      add_attachable_gpu_hosts(d, rng, add_price, prov, per_provider, R, attach_offers_per_host,
                               base_cents, to_currency);
      continue;
    }
    add_instance_types(d, rng, add_price, prov, per_provider, R, gpu_count, base_cents,
                       to_currency);
    add_family_discount(d, row_id, prov);
  }

  add_fx_rates(d, row_id, cny, usd, eur, jpy);
  return out;
}

}  // namespace gpubill::synthetic
