// A small hand-made catalog for the quote tests, built as CatalogData so the tests do not move
// when the bundled catalog changes. Prices are modelled on the bundled rows (Tencent c. 2019
// list, Alibaba cn-shanghai 2023-06, AWS us-east-1); the AWS reserved and Google host prices and
// the disk prices are test values.
#pragma once

#include <string>
#include <vector>

#include "gpubill/catalog/catalog.hpp"
#include "gpubill/quote/quote.hpp"
#include "gpubill/quote/workload.hpp"

namespace gpubill::testing {

inline Gpu quote_gpu(std::string id, std::vector<std::string> aliases, const char* fp32,
                     const char* fp16, const char* memory, std::string interconnect) {
  Gpu g;
  g.id = std::move(id);
  g.aliases = std::move(aliases);
  g.vendor = "NVIDIA";
  if (fp32) g.fp32_tflops = Decimal::parse(fp32);
  if (fp16) g.fp16_tensor_tflops = Decimal::parse(fp16);
  if (memory) g.memory_gb = Decimal::parse(memory);
  g.interconnect = std::move(interconnect);
  return g;
}

inline InstanceType quote_type(std::string provider, std::string id, std::string family,
                               std::string gpu, const char* count, int vcpu, const char* ram) {
  InstanceType it;
  it.provider = std::move(provider);
  it.id = std::move(id);
  it.family = std::move(family);
  it.gpu = std::move(gpu);
  it.gpu_count = Decimal::parse(count);
  it.vcpu = vcpu;
  it.ram_gb = Decimal::parse(ram);
  return it;
}

// The providers and their regions.
inline void add_quote_providers(CatalogData& d) {
  const auto cny = Currency::parse("CNY");
  const auto usd = Currency::parse("USD");
  d.providers = {{"tencent", "Tencent Cloud", cny, "Asia/Shanghai"},
                 {"alibaba", "Alibaba Cloud", cny, "Asia/Shanghai"},
                 {"huawei", "Huawei Cloud", cny, "Asia/Shanghai"},
                 {"baidu", "Baidu AI Cloud", cny, "Asia/Shanghai"},
                 {"aws", "Amazon Web Services", usd, "UTC"},
                 {"google", "Google Cloud", usd, "UTC"}};
  d.regions = {{"tencent", "ap-guangzhou", "Guangzhou"}, {"alibaba", "cn-shanghai", "Shanghai"},
               {"huawei", "cn-north-4", "Beijing4"},     {"baidu", "bj", "Beijing"},
               {"aws", "us-east-1", "N. Virginia"},      {"aws", "eu-central-1", "Frankfurt"},
               {"google", "us-central1", "Iowa"}};
}

inline void add_quote_gpus(CatalogData& d) {
  d.gpus = {quote_gpu("V100-SXM2-16GB", {"V100", "Tesla V100"}, "15.7", "125", "16", "NVLink 2.0"),
            quote_gpu("V100-SXM2-32GB", {"V100-32GB"}, "15.7", "125", "32", "NVLink 2.0"),
            quote_gpu("V100-PCIE-16GB", {"V100-PCIE"}, "14", "112", "16", "PCIe 3.0"),
            quote_gpu("T4", {"Tesla T4"}, "8.1", "65", "16", "PCIe 3.0"),
            quote_gpu("A100-40GB", {"A100"}, "19.5", "312", "40", "NVLink 3.0"),
            quote_gpu("P40", {"Tesla P40"}, "12", nullptr, "24", "PCIe 3.0")};
}

// Instance types with built-in GPUs, and a Google host taking attachable GPUs.
inline void add_quote_instance_types(CatalogData& d) {
  d.instance_types = {
      quote_type("tencent", "GN10X.2XLARGE40", "GN10X", "V100-SXM2-32GB", "1", 8, "40"),
      quote_type("tencent", "GN10X.LARGE20", "GN10X", "V100-SXM2-32GB", "0.5", 4, "20"),
      quote_type("tencent", "GN7.2XLARGE32", "GN7", "T4", "1", 8, "32"),
      quote_type("tencent", "GN8.LARGE56", "GN8", "P40", "1", 6, "56"),
      quote_type("alibaba", "ecs.gn6v-c8g1.2xlarge", "gn6v", "V100-SXM2-16GB", "1", 8, "32"),
      quote_type("alibaba", "ecs.gn6i-c4g1.xlarge", "gn6i", "T4", "1", 4, "15"),
      quote_type("alibaba", "ecs.gn7-c12g1.3xlarge", "gn7", "A100-40GB", "1", 12, "94"),
      quote_type("huawei", "p2.2xlarge.8", "p2", "V100-PCIE-16GB", "1", 8, "64"),
      quote_type("aws", "p3.2xlarge", "p3", "V100-SXM2-16GB", "1", 8, "61"),
      quote_type("aws", "p3.8xlarge", "p3", "V100-SXM2-16GB", "4", 32, "244"),
  };
  InstanceType n1 = quote_type("google", "n1-standard-8", "n1", "", "0", 8, "30");
  n1.attachable = {{"V100-SXM2-16GB", {1, 2, 4, 8}}, {"T4", {1, 2, 4}}};
  d.instance_types.push_back(n1);
}

// Instance and GPU prices, in the providers' currencies.
inline void add_quote_prices(CatalogData& d, std::int64_t& id) {
  auto price = [&](const char* provider, const char* subject, const char* region, BillingMode mode,
                   const char* amount, const char* from, SubjectKind kind = SubjectKind::instance) {
    PriceRow r;
    r.id = ++id;
    r.provider = provider;
    r.subject_kind = kind;
    r.subject = subject;
    r.region = region;
    r.mode = mode;
    r.unit = mode == BillingMode::prepaid ? PriceUnit::month : PriceUnit::hour;
    const auto& prov = *std::find_if(d.providers.begin(), d.providers.end(),
                                     [&](const Provider& p) { return p.id == provider; });
    r.amount = Money(Decimal::parse(amount), prov.currency);
    r.period.from = parse_instant(from, true);
    r.source = std::string("test: ") + subject;
    r.as_of = from;
    d.prices.push_back(r);
  };
  using M = BillingMode;
  price("tencent", "GN10X.2XLARGE40", "", M::payg, "18.02", "2019-01-01");
  price("tencent", "GN10X.2XLARGE40", "", M::prepaid, "5190", "2019-01-01");
  price("tencent", "GN10X.LARGE20", "", M::payg, "9.02", "2019-01-01");
  price("tencent", "GN10X.LARGE20", "", M::prepaid, "2595", "2019-01-01");
  price("tencent", "GN7.2XLARGE32", "", M::payg, "8.68", "2019-01-01");
  price("tencent", "GN7.2XLARGE32", "", M::prepaid, "2500", "2019-01-01");
  price("tencent", "GN8.LARGE56", "", M::payg, "15.09", "2019-01-01");
  price("tencent", "GN8.LARGE56", "", M::prepaid, "4400", "2019-01-01");
  price("tencent", "GN8.LARGE56", "", M::spot, "3.1", "2019-01-01");
  price("alibaba", "ecs.gn6v-c8g1.2xlarge", "cn-shanghai", M::payg, "26.46", "2023-06-17");
  price("alibaba", "ecs.gn6v-c8g1.2xlarge", "cn-shanghai", M::prepaid, "7620", "2023-06-17");
  price("alibaba", "ecs.gn6i-c4g1.xlarge", "cn-shanghai", M::payg, "11.63", "2023-06-17");
  price("alibaba", "ecs.gn6i-c4g1.xlarge", "cn-shanghai", M::prepaid, "3348", "2023-06-17");
  price("alibaba", "ecs.gn7-c12g1.3xlarge", "cn-shanghai", M::payg, "31.58", "2023-06-17");
  price("alibaba", "ecs.gn7-c12g1.3xlarge", "cn-shanghai", M::prepaid, "15160", "2023-06-17");
  price("aws", "p3.2xlarge", "us-east-1", M::payg, "3.06", "2017-10-25");
  price("aws", "p3.2xlarge", "eu-central-1", M::payg, "3.823", "2023-06-17");
  price("aws", "p3.2xlarge", "", M::spot, "0.998", "2019-01-01");
  price("aws", "p3.2xlarge", "us-east-1", M::reserved_1y, "1.99", "2023-06-17");
  price("aws", "p3.8xlarge", "us-east-1", M::payg, "12.24", "2017-10-25");
  price("google", "n1-standard-8", "us-central1", M::payg, "0.38", "2018-01-01");
  price("google", "V100-SXM2-16GB", "us-central1", M::payg, "2.48", "2018-01-01", SubjectKind::gpu);
  price("google", "V100-SXM2-16GB", "us-central1", M::spot, "0.74", "2018-01-01", SubjectKind::gpu);
  price("google", "T4", "us-central1", M::payg, "0.35", "2019-01-01", SubjectKind::gpu);
}

// Tencent's prepaid term discounts.
inline void add_quote_term_discounts(CatalogData& d, std::int64_t& id) {
  const char* tiers[][3] = {
      {"6", "11", "0.88"}, {"12", "23", "0.83"}, {"24", "35", "0.70"}, {"36", "60", "0.50"}};
  for (const auto& t : tiers) {
    DiscountRow dr;
    dr.id = ++id;
    dr.provider = "tencent";
    dr.mode = BillingMode::prepaid;
    dr.min_months = std::stoi(t[0]);
    dr.max_months = std::stoi(t[1]);
    dr.factor = Decimal::parse(t[2]);
    dr.period.from = parse_instant("2019-01-01", true);
    dr.source = "test: Tencent 时长折扣";
    dr.as_of = "2019-01-01";
    d.discounts.push_back(dr);
  }
}

inline void add_quote_disk_prices(CatalogData& d, std::int64_t& id) {
  const auto cny = Currency::parse("CNY");
  auto disk = [&](BillingMode mode, const char* unit, const char* amount) {
    ResourcePriceRow r;
    r.id = ++id;
    r.provider = "tencent";
    r.kind = "cloud_ssd";
    r.mode = mode;
    r.unit = unit;
    r.amount = Money(Decimal::parse(amount), cny);
    r.period.from = parse_instant("2019-01-01", true);
    r.source = "test: disk";
    r.as_of = "2019-01-01";
    d.disk_prices.push_back(r);
  };
  disk(BillingMode::payg, "gb_hour", "0.0014");
  disk(BillingMode::prepaid, "gb_month", "1");
}

// USD to CNY.
inline void add_quote_fx_rates(CatalogData& d, std::int64_t& id) {
  const auto cny = Currency::parse("CNY");
  const auto usd = Currency::parse("USD");
  auto fx = [&](const char* day, const char* rate) {
    FxRate r;
    r.id = ++id;
    r.day = parse_day(day);
    r.from = usd;
    r.to = cny;
    r.rate = Decimal::parse(rate);
    r.source = "test: ECB cross rate";
    r.as_of = day;
    d.fx_rates.push_back(r);
  };
  fx("2019-06-28", "6.8704");
  fx("2023-06-30", "7.2688");
}

inline void add_quote_policies(CatalogData& d, std::int64_t& id) {
  auto policy = [&](const char* provider, RoundingMode rounding) {
    BillingPolicy p;
    p.id = ++id;
    p.provider = provider;
    p.period.from = parse_instant("2016-01-01", true);
    p.settlement_rounding = rounding;
    p.settlement_decimals = 2;
    p.source = std::string("test: ") + provider + " policy";
    d.policies.push_back(p);
    return &d.policies.back();
  };
  policy("tencent", RoundingMode::half_up);
  policy("alibaba", RoundingMode::down)->min_charge_per_lifetime = Decimal::parse("0.01");
  policy("huawei", RoundingMode::down);
  policy("baidu", RoundingMode::half_up)->metering_granularity_seconds = 60;
  policy("aws", RoundingMode::half_up)->min_charge_seconds_per_run = 60;
  auto* google = policy("google", RoundingMode::half_up);
  google->min_charge_seconds_per_run = 60;
  google->stopped_payg_compute_charged = false;
}

inline CatalogData quote_catalog() {
  CatalogData d;
  std::int64_t id = 0;
  add_quote_providers(d);
  add_quote_gpus(d);
  add_quote_instance_types(d);
  add_quote_prices(d, id);
  add_quote_term_discounts(d, id);
  add_quote_disk_prices(d, id);
  add_quote_fx_rates(d, id);
  add_quote_policies(d, id);
  return d;
}

// A workload with the flags' defaults: `models` × 1, at 2023-07-01, in CNY.
// quote_catalog() loaded once per test process.
inline const Catalog& loaded_quote_catalog() {
  static const Catalog catalog(quote_catalog());
  return catalog;
}

inline Workload quote_workload(std::vector<std::string> models = {"V100"}) {
  Workload w;
  w.source = "test.json";
  w.gpu.models = std::move(models);
  w.date = "2023-07-01";
  return w;
}

inline const QuoteLine* line_with_id(const QuoteResult& q, const std::string& id) {
  for (const auto& l : q.lines) {
    if (l.id == id) return &l;
  }
  return nullptr;
}

}  // namespace gpubill::testing
