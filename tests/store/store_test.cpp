// The store: migrations, and reading / writing the catalog tables.
#include <catch2/catch.hpp>

#include <SQLiteCpp/SQLiteCpp.h>

#include "catalog/catalog_store.hpp"
#include "gpubill/base/errors.hpp"
#include "gpubill/catalog/catalog.hpp"
#include "gpubill/store/db.hpp"
#include "store/store.hpp"
#include "temp_dir.hpp"

using namespace gpubill;
using gpubill::testing::TempDir;

namespace {

Instant at(const char* text) {
  return parse_instant(text, true);
}

int count(Database& db, const std::string& table) {
  return sqlite(db).execAndGet("SELECT count(*) FROM " + table).getInt();
}

CatalogData sample() {
  CatalogData d;
  d.providers.push_back({"acme", "Acme Cloud", Currency::parse("CNY"), "Asia/Shanghai"});
  d.regions.push_back({"acme", "north-1", "North 1"});
  Gpu g;
  g.id = "V100-SXM2-16GB";
  g.aliases = {"V100", "Tesla V100"};
  g.vendor = "NVIDIA";
  g.fp32_tflops = Decimal::parse("15.7");
  g.memory_gb = Decimal::parse("16");
  g.interconnect = "NVLink 2.0";
  g.tdp_w = 300;
  g.launch_price = Money::parse("8999.99 USD");
  g.source = "spec sheet";
  d.gpus.push_back(g);
  InstanceType it;
  it.provider = "acme";
  it.id = "g1.large";
  it.family = "g1";
  it.gpu = "V100-SXM2-16GB";
  it.gpu_count = Decimal::parse("0.25");
  it.vcpu = 8;
  it.ram_gb = Decimal::parse("30.5");
  it.local_disk_gb = 100;
  it.local_disk_kind = "nvme";
  d.instance_types.push_back(it);
  InstanceType host;
  host.provider = "acme";
  host.id = "h1";
  host.attachable = {{"V100-SXM2-16GB", {1, 2, 4}}};
  d.instance_types.push_back(host);
  PriceRow p;
  p.provider = "acme";
  p.subject = "g1.large";
  p.region = "north-1";
  p.amount = Money::parse("0.0000000001 CNY");
  p.period = {at("2019-01-01"), at("2020-01-01")};
  p.source = "price list";
  p.as_of = "2019-01-01";
  d.prices.push_back(p);
  p.subject_kind = SubjectKind::gpu;
  p.subject = "V100-SXM2-16GB";
  p.region = "";
  p.mode = BillingMode::prepaid;
  p.unit = PriceUnit::month;
  p.amount = Money::parse("1234.5 CNY");
  p.period = {at("2019-01-01"), std::nullopt};
  d.prices.push_back(p);
  DiscountRow disc;
  disc.provider = "acme";
  disc.min_months = 12;
  disc.max_months = 23;
  disc.factor = Decimal::parse("0.83");
  disc.period.from = at("2019-01-01");
  disc.source = "doc";
  disc.as_of = "2019-01-01";
  d.discounts.push_back(disc);
  ResourcePriceRow disk;
  disk.provider = "acme";
  disk.kind = "cloud_ssd";
  disk.unit = "gb_month";
  disk.amount = Money::parse("1 CNY");
  disk.period.from = at("2019-01-01");
  disk.source = "doc";
  disk.as_of = "2019-01-01";
  d.disk_prices.push_back(disk);
  disk.kind = "fixed_mbps";
  disk.unit = "mbps_hour";
  d.bandwidth_prices.push_back(disk);
  FxRate fx;
  fx.day = parse_day("2019-06-30");
  fx.rate = Decimal::parse("6.8747");
  fx.source = "ECB";
  fx.as_of = "2019-06-30";
  d.fx_rates.push_back(fx);
  BillingPolicy pol;
  pol.provider = "acme";
  pol.period.from = at("2017-06-06T12:00:00+08:00");
  pol.settlement_rounding = RoundingMode::down;
  pol.min_charge_per_lifetime = Decimal::parse("0.01");
  pol.auto_renew_days_before = 9;
  pol.auto_renew_local_time = std::chrono::minutes{8 * 60};
  pol.prepaid_destroy_before_expiry = true;
  pol.source = "doc";
  pol.as_of = "2017-06-06";
  d.policies.push_back(pol);
  return d;
}

void write(Database& db, const CatalogData& d) {
  SQLite::Transaction tx(sqlite(db));
  write_catalog_data(connection(db), d);
  tx.commit();
}

}  // namespace

TEST_CASE("a fresh database gets every migration", "[store]") {
  auto db = Database::open(":memory:");
  CHECK(latest_schema_version() >= 1);
  CHECK(db.schema_version() == latest_schema_version());
  CHECK(count(db, "price") == 0);
}

TEST_CASE("reopening a database applies nothing and keeps its rows", "[store]") {
  TempDir dir;
  const auto path = dir.file("g.db");
  {
    auto db = Database::open(path);
    write(db, sample());
  }
  auto db = Database::open(path);
  CHECK(db.schema_version() == latest_schema_version());
  CHECK(count(db, "price") == 2);
  CHECK(count(db, "policy") == 1);
}

TEST_CASE("a database from a newer gpubill is refused", "[store]") {
  TempDir dir;
  const auto path = dir.file("new.db");
  {
    SQLite::Database raw(path, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    raw.exec("PRAGMA user_version = 99");
  }
  CHECK_THROWS_AS(Database::open(path), StoreError);
  CHECK_THROWS_WITH(Database::open(path), Catch::Contains("newer"));
}

TEST_CASE("a file that is not SQLite is refused", "[store]") {
  TempDir dir;
  const auto path = dir.write("notes.db", std::string(4096, 'x') + "\nnot a database\n");
  CHECK_THROWS_AS(Database::open(path), StoreError);
}

TEST_CASE("catalog rows survive a write and a read exactly", "[store]") {
  auto db = Database::open(":memory:");
  write(db, sample());
  const CatalogData d = read_catalog_data(connection(db));
  REQUIRE(d.providers.size() == 1);
  CHECK(d.providers[0].currency.code() == "CNY");
  CHECK(d.providers[0].billing_time_zone == "Asia/Shanghai");
  REQUIRE(d.regions.size() == 1);
  CHECK(d.regions[0].name == "North 1");
  REQUIRE(d.gpus.size() == 1);
  CHECK(d.gpus[0].aliases == std::vector<std::string>{"V100", "Tesla V100"});
  CHECK(d.gpus[0].fp32_tflops == Decimal::parse("15.7"));
  CHECK_FALSE(d.gpus[0].fp64_tflops);
  CHECK(d.gpus[0].tdp_w == 300);
  CHECK(d.gpus[0].launch_price == Money::parse("8999.99 USD"));
  REQUIRE(d.instance_types.size() == 2);
  const auto& it = d.instance_types[0];
  CHECK(it.id == "g1.large");
  CHECK(it.gpu_count == Decimal::parse("0.25"));
  CHECK(it.ram_gb == Decimal::parse("30.5"));
  CHECK(it.local_disk_kind == "nvme");
  const auto& host = d.instance_types[1];
  CHECK(host.gpu.empty());
  CHECK_FALSE(host.vcpu);
  REQUIRE(host.attachable.size() == 1);
  CHECK(host.attachable[0].counts == std::vector<int>{1, 2, 4});
  REQUIRE(d.prices.size() == 2);
  const auto& gpu_price = d.prices[0];  // ordered by subject kind: "gpu" < "instance"
  CHECK(gpu_price.subject_kind == SubjectKind::gpu);
  CHECK(gpu_price.mode == BillingMode::prepaid);
  CHECK(gpu_price.unit == PriceUnit::month);
  CHECK(gpu_price.amount == Money::parse("1234.5 CNY"));
  CHECK_FALSE(gpu_price.period.to);
  const auto& price = d.prices[1];
  CHECK(price.amount == Money::parse("0.0000000001 CNY"));
  CHECK(price.period.from == at("2019-01-01"));
  CHECK(price.period.to == at("2020-01-01"));
  CHECK(price.id > 0);
  REQUIRE(d.discounts.size() == 1);
  CHECK(d.discounts[0].factor == Decimal::parse("0.83"));
  CHECK(d.disk_prices.size() == 1);
  CHECK(d.bandwidth_prices.size() == 1);
  CHECK(d.bandwidth_prices[0].unit == "mbps_hour");
  REQUIRE(d.fx_rates.size() == 1);
  CHECK(d.fx_rates[0].day == parse_day("2019-06-30"));
  REQUIRE(d.policies.size() == 1);
  const auto& pol = d.policies[0];
  CHECK(pol.period.from == at("2017-06-06T04:00:00Z"));
  CHECK(pol.settlement_rounding == RoundingMode::down);
  CHECK(pol.min_charge_per_lifetime == Decimal::parse("0.01"));
  CHECK(pol.auto_renew_local_time == std::chrono::minutes{480});
  CHECK(pol.prepaid_destroy_before_expiry);
  CHECK(pol.stopped_payg_compute_charged);
}

TEST_CASE("a row with the same key replaces the stored one", "[store]") {
  auto db = Database::open(":memory:");
  auto d = sample();
  write(db, d);
  const auto id_before = read_catalog_data(connection(db)).prices[1].id;
  d.prices[0].amount = Money::parse("2.5 CNY");
  d.gpus[0].aliases = {"Tesla V100"};
  d.instance_types[1].attachable = {{"V100-SXM2-16GB", {8}}};
  write(db, d);
  const auto after = read_catalog_data(connection(db));
  REQUIRE(after.prices.size() == 2);
  CHECK(after.prices[1].amount == Money::parse("2.5 CNY"));
  CHECK(after.prices[1].id == id_before);
  CHECK(after.gpus[0].aliases == std::vector<std::string>{"Tesla V100"});
  CHECK(after.instance_types[1].attachable[0].counts == std::vector<int>{8});
}

TEST_CASE("a later effective_from supersedes an earlier price", "[store]") {
  auto db = Database::open(":memory:");
  auto d = sample();
  d.prices.resize(1);
  d.prices[0].period.to.reset();
  write(db, d);
  auto later = d;
  later.prices[0].amount = Money::parse("9 CNY");
  later.prices[0].period.from = at("2021-01-01");
  write(db, later);
  const auto catalog = Catalog::load(db);
  const auto* before = catalog.price_at("acme", SubjectKind::instance, "g1.large", "north-1",
                                        BillingMode::payg, at("2020-06-01"));
  const auto* after = catalog.price_at("acme", SubjectKind::instance, "g1.large", "north-1",
                                       BillingMode::payg, at("2021-06-01"));
  REQUIRE(before);
  REQUIRE(after);
  CHECK(before->amount == Money::parse("0.0000000001 CNY"));
  CHECK(after->amount == Money::parse("9 CNY"));
  CHECK(catalog.price_at("acme", SubjectKind::instance, "g1.large", "north-1", BillingMode::payg,
                         at("2018-01-01")) == nullptr);
}
