// A small catalog for the lease-vs-buy tests, built from CatalogData so the tests do not move
// when the bundled catalog does. Figures are those of the bundled catalog (fixtures/catalog):
//   V100-SXM2-16GB: TDP 300 W, 15.7 TF FP32, 16 GB; V100-SXM2-32GB: 300 W, 15.7 TF, 32 GB;
//   V100-PCIE-16GB: 250 W, 14 TF, 16 GB; H100: 700 W, launch price 30000 USD [U].
//   Tencent GN10X.18XLARGE320 (8 × V100-SXM2-32GB): 145.83 CNY/h, 42000 CNY/month (c. 2019);
//   GN10X.2XLARGE40 (1 ×): 18.02 CNY/h, 5190 CNY/month; prepaid term discounts 6–11 months
//   0.88, 12–23 0.83, 24–35 0.70, 36–60 0.50; per-second metering, hourly settlement rounded
//   half-up to 0.01.
//   AWS p3.16xlarge (8 × V100-SXM2-16GB): 24.48 USD/h in us-east-1 (from 2017-10-25); per
//   second, 60 s minimum.
//   USD → CNY 6.8704 on 2019-06-28 (ECB cross rate).
#pragma once

#include "gpubill/catalog/catalog.hpp"
#include "gpubill/tco/tco.hpp"

namespace tco_test {

using namespace gpubill;

inline Gpu gpu(std::string id, std::vector<std::string> aliases, int tdp, const char* fp32,
               const char* memory, std::optional<Money> launch = std::nullopt) {
  Gpu g;
  g.id = std::move(id);
  g.aliases = std::move(aliases);
  g.vendor = "NVIDIA";
  g.tdp_w = tdp;
  g.fp32_tflops = Decimal::parse(fp32);
  g.memory_gb = Decimal::parse(memory);
  g.interconnect = "NVLink 2.0";
  g.launch_price = launch;
  return g;
}

inline InstanceType instance(std::string provider, std::string id, std::string family,
                             std::string gpu, int count, int vcpu, const char* ram) {
  InstanceType it;
  it.provider = std::move(provider);
  it.id = std::move(id);
  it.family = std::move(family);
  it.gpu = std::move(gpu);
  it.gpu_count = Decimal(count);
  it.vcpu = vcpu;
  it.ram_gb = Decimal::parse(ram);
  return it;
}

inline PriceRow price(std::int64_t id, std::string provider, std::string subject,
                      std::string region, BillingMode mode, PriceUnit unit, const char* amount,
                      const char* from) {
  PriceRow p;
  p.id = id;
  p.provider = std::move(provider);
  p.subject = std::move(subject);
  p.region = std::move(region);
  p.mode = mode;
  p.unit = unit;
  p.amount = Money::parse(amount);
  p.period.from = parse_instant(from, true);
  p.source = "test";
  p.as_of = from;
  return p;
}

inline DiscountRow discount(std::int64_t id, int min, int max, const char* factor) {
  DiscountRow d;
  d.id = id;
  d.provider = "tencent";
  d.mode = BillingMode::prepaid;
  d.min_months = min;
  d.max_months = max;
  d.factor = Decimal::parse(factor);
  d.period.from = parse_instant("2019-01-01", true);
  d.source = "test";
  return d;
}

// include_small: also Tencent GN10X.2XLARGE40 (1 GPU), to rent 8 GPUs as 8 instances.
inline CatalogData data(bool include_small = false) {
  CatalogData d;
  d.providers = {{"tencent", "Tencent Cloud", Currency::parse("CNY"), "Asia/Shanghai"},
                 {"aws", "Amazon Web Services", Currency::parse("USD"), "UTC"}};
  d.regions = {{"tencent", "ap-guangzhou", "Guangzhou"}, {"aws", "us-east-1", "N. Virginia"}};
  d.gpus = {gpu("V100-SXM2-16GB", {"V100", "Tesla V100"}, 300, "15.7", "16"),
            gpu("V100-SXM2-32GB", {"V100-32GB", "V100-NVLink-32G"}, 300, "15.7", "32"),
            gpu("V100-PCIE-16GB", {"V100-PCIE"}, 250, "14", "16"),
            gpu("H100", {"H100-SXM5"}, 700, "67", "80", Money::parse("30000 USD"))};
  d.instance_types = {
      instance("tencent", "GN10X.18XLARGE320", "GN10X", "V100-SXM2-32GB", 8, 72, "320"),
      instance("aws", "p3.16xlarge", "p3", "V100-SXM2-16GB", 8, 64, "488")};
  d.prices = {price(1, "tencent", "GN10X.18XLARGE320", "", BillingMode::payg, PriceUnit::hour,
                    "145.83 CNY", "2019-01-01"),
              price(2, "tencent", "GN10X.18XLARGE320", "", BillingMode::prepaid, PriceUnit::month,
                    "42000 CNY", "2019-01-01"),
              price(3, "aws", "p3.16xlarge", "us-east-1", BillingMode::payg, PriceUnit::hour,
                    "24.48 USD", "2017-10-25")};
  if (include_small) {
    d.instance_types.push_back(
        instance("tencent", "GN10X.2XLARGE40", "GN10X", "V100-SXM2-32GB", 1, 8, "40"));
    d.prices.push_back(price(4, "tencent", "GN10X.2XLARGE40", "", BillingMode::payg,
                             PriceUnit::hour, "18.02 CNY", "2019-01-01"));
    d.prices.push_back(price(5, "tencent", "GN10X.2XLARGE40", "", BillingMode::prepaid,
                             PriceUnit::month, "5190 CNY", "2019-01-01"));
  }
  d.discounts = {discount(1, 6, 11, "0.88"), discount(2, 12, 23, "0.83"),
                 discount(3, 24, 35, "0.70"), discount(4, 36, 60, "0.50")};
  FxRate fx;
  fx.id = 1;
  fx.day = parse_day("2019-06-28");
  fx.from = Currency::parse("USD");
  fx.to = Currency::parse("CNY");
  fx.rate = Decimal::parse("6.8704");
  fx.source = "test";
  d.fx_rates = {fx};
  BillingPolicy tencent;
  tencent.id = 1;
  tencent.provider = "tencent";
  tencent.period.from = parse_instant("2017-01-01", true);
  BillingPolicy aws;
  aws.id = 2;
  aws.provider = "aws";
  aws.period.from = parse_instant("2017-10-02", true);
  aws.min_charge_seconds_per_run = 60;
  aws.recycle_bin_days = 0;
  d.policies = {tencent, aws};
  return d;
}

// The 8 × V100 server of the golden tests: an NVIDIA DGX-1 (Volta) at its 149000 USD list
// price, 8 × 300 W GPUs + 800 W host (3200 W), defaults otherwise, 60 % busy, priced on
// 2019-07-01.
inline LeaseVsBuyConfig dgx1(const char* utilisation = "0.6") {
  LeaseVsBuyConfig c;
  c.gpu = "V100";
  c.gpu_count = 8;
  c.hardware_price = Money::parse("149000 USD");
  c.host_watts = Decimal(800);
  c.utilisation = Decimal::parse(utilisation);
  c.date = parse_day("2019-07-01");
  return c;
}

inline Money usd(const char* amount) {
  return Money(Decimal::parse(amount), Currency::parse("USD"));
}
inline Money cny(const char* amount) {
  return Money(Decimal::parse(amount), Currency::parse("CNY"));
}

}  // namespace tco_test
