// Importing JSON catalog files: validation (file, place and field of every error), all-or-nothing
// import, supersession, the bundled catalog, and the CLI on top.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <set>
#include <sstream>

#include "cli_run.hpp"
#include "gpubill/base/errors.hpp"
#include "gpubill/catalog/catalog.hpp"
#include "gpubill/catalog/catalog_import.hpp"
#include "gpubill/store/db.hpp"
#include "json_schema.hpp"
#include "store/store.hpp"
#include "temp_dir.hpp"
#include "test_values.hpp"

using namespace gpubill;
using gpubill::testing::at;
using gpubill::testing::replace_once;
using gpubill::testing::TempDir;

namespace {

// A small valid file; tests replace one piece of it to make it invalid.
const std::string kValid = R"({
  "format": "gpubill-catalog/1",
  "providers": [
    {"id": "acme", "name": "Acme", "currency": "CNY", "billing_time_zone": "Asia/Shanghai"}
  ],
  "gpus": [{"id": "X1", "aliases": ["Tesla X1"], "memory_gb": "16"}],
  "instance_types": [
    {"provider": "acme", "id": "x1.large", "gpu": "X1", "gpu_count": "1", "vcpu": 8, "ram_gb": "32"}
  ],
  "prices": [
    {"provider": "acme", "instance_type": "x1.large", "mode": "payg", "unit": "hour",
     "amount": "10.5", "currency": "CNY", "effective_from": "2019-01-01",
     "source": "list", "as_of": "2019-01-01"},
    {"provider": "acme", "instance_type": "x1.large", "mode": "prepaid", "unit": "month",
     "amount": "3000", "currency": "CNY", "effective_from": "2019-01-01",
     "source": "list", "as_of": "2019-01-01"}
  ],
  "discounts": [
    {"provider": "acme", "mode": "prepaid", "min_months": 12, "max_months": 23, "factor": "0.83",
     "effective_from": "2019-01-01", "source": "list", "as_of": "2019-01-01"}
  ],
  "policies": [
    {"provider": "acme", "effective_from": "2019-01-01", "settlement_rounding": "down",
     "auto_renew_local_time": "08:00", "source": "doc", "as_of": "2019-01-01"}
  ]
})";

struct Where {
  std::string place, field;
};

// Parses text and returns where the InputError points.
Where error_of(const std::string& text) {
  try {
    (void)parse_catalog_json(text, "t.json");
  } catch (const InputError& e) {
    CHECK(e.file() == "t.json");
    CHECK(std::string(e.what()).find("t.json") == 0);
    return {e.place(), e.field()};
  }
  FAIL("no InputError for:\n" << text);
  return {};
}

int rows(Database& db, const std::string& table) {
  return sqlite(db).execAndGet("SELECT count(*) FROM " + table).getInt();
}

const char* const kPrice0 =
    R"({"provider": "acme", "instance_type": "x1.large", "mode": "payg", "unit": "hour",
     "amount": "10.5", "currency": "CNY", "effective_from": "2019-01-01",)";

}  // namespace

TEST_CASE("a valid catalog file parses completely", "[catalog_import]") {
  const auto d = parse_catalog_json(kValid, "t.json");
  CHECK(d.providers.size() == 1);
  CHECK(d.gpus.size() == 1);
  CHECK(d.instance_types.size() == 1);
  REQUIRE(d.prices.size() == 2);
  CHECK(d.prices[0].amount == Money::parse("10.5 CNY"));
  CHECK(d.prices[0].period.from == at("2019-01-01"));
  CHECK_FALSE(d.prices[0].period.to);
  REQUIRE(d.policies.size() == 1);
  CHECK(d.policies[0].settlement_rounding == RoundingMode::down);
  CHECK(d.policies[0].auto_renew_local_time == std::chrono::minutes{480});
  CHECK(d.policies[0].recycle_bin_days == 7);  // the documented default
  const auto r = count_rows(d);
  CHECK(r.total() == 7);
}

TEST_CASE("JSON syntax errors name the line", "[catalog_import]") {
  const auto w = error_of(replace_once(kValid, R"("amount": "10.5",)", R"("amount": "10.5",,)"));
  CHECK(w.place == "line 12");
  CHECK(w.field.empty());
  CHECK(error_of("").place == "line 1");
  CHECK(error_of("{\n\"prices\": [\n").place == "line 2");
}

TEST_CASE("values of the wrong JSON type are rejected", "[catalog_import]") {
  SECTION("an amount written as a JSON number") {
    const auto w = error_of(replace_once(kValid, R"("amount": "10.5")", R"("amount": 10.5)"));
    CHECK(w.place == "/prices/0");
    CHECK(w.field == "amount");
  }
  SECTION("a factor written as a JSON number") {
    const auto w = error_of(replace_once(kValid, R"("factor": "0.83")", R"("factor": 0.83)"));
    CHECK(w.place == "/discounts/0");
    CHECK(w.field == "factor");
  }
  SECTION("an integer written as a string") {
    const auto w = error_of(replace_once(kValid, R"("vcpu": 8)", R"("vcpu": "8")"));
    CHECK(w.place == "/instance_types/0");
    CHECK(w.field == "vcpu");
  }
  SECTION("an integer with a fraction") {
    const auto w = error_of(replace_once(kValid, R"("min_months": 12)", R"("min_months": 12.5)"));
    CHECK(w.place == "/discounts/0");
    CHECK(w.field == "min_months");
  }
  SECTION("a section that is not an array") {
    const auto w = error_of(replace_once(kValid, R"("gpus": [)", R"("gpus": {"x": [)"));
    CHECK(w.place.rfind("line", 0) == 0);  // that text is not even valid JSON
    const auto w2 = error_of(R"({"gpus": {"id": "X"}})");
    CHECK(w2.place == "/gpus");
  }
}

TEST_CASE("unknown currencies, modes, units and rounding modes are rejected", "[catalog_import]") {
  auto w = error_of(replace_once(kValid, R"("amount": "10.5", "currency": "CNY")",
                                 R"("amount": "10.5", "currency": "RMB")"));
  CHECK(w.place == "/prices/0");
  CHECK(w.field == "currency");
  w = error_of(replace_once(kValid, R"("mode": "payg")", R"("mode": "hourly")"));
  CHECK(w.place == "/prices/0");
  CHECK(w.field == "mode");
  w = error_of(replace_once(kValid, R"("unit": "hour")", R"("unit": "day")"));
  CHECK(w.place == "/prices/0");
  CHECK(w.field == "unit");
  w = error_of(replace_once(kValid, R"("settlement_rounding": "down")",
                            R"("settlement_rounding": "half_down")"));
  CHECK(w.place == "/policies/0");
  CHECK(w.field == "settlement_rounding");
  w = error_of(replace_once(kValid, R"("auto_renew_local_time": "08:00")",
                            R"("auto_renew_local_time": "8am")"));
  CHECK(w.field == "auto_renew_local_time");
  w = error_of(replace_once(kValid, R"("billing_time_zone": "Asia/Shanghai")",
                            R"("billing_time_zone": "Asia/Beijing")"));
  CHECK(w.place == "/providers/0");
  CHECK(w.field == "billing_time_zone");
}

TEST_CASE("negative prices and factors are rejected", "[catalog_import]") {
  auto w = error_of(replace_once(kValid, R"("amount": "10.5")", R"("amount": "-10.5")"));
  CHECK(w.place == "/prices/0");
  CHECK(w.field == "amount");
  w = error_of(replace_once(kValid, R"("factor": "0.83")", R"("factor": "-0.83")"));
  CHECK(w.place == "/discounts/0");
  CHECK(w.field == "factor");
  w = error_of(replace_once(kValid, R"("amount": "10.5")", R"("amount": "10.5.1")"));
  CHECK(w.field == "amount");
  w = error_of(replace_once(kValid, R"("amount": "10.5")", R"("amount": "0.0000000000001")"));
  CHECK(w.field == "amount");  // more than 12 decimals
}

TEST_CASE("integers outside their range are rejected at either end", "[catalog_import]") {
  auto w = error_of(replace_once(kValid, R"("min_months": 12)", R"("min_months": 0)"));
  CHECK(w.place == "/discounts/0");
  CHECK(w.field == "min_months");
  w = error_of(replace_once(kValid, R"("max_months": 23)", R"("max_months": 1201)"));
  CHECK(w.field == "max_months");
  w = error_of(replace_once(kValid, R"("vcpu": 8)", R"("vcpu": -8)"));
  CHECK(w.field == "vcpu");
}

TEST_CASE("bad dates and periods are rejected", "[catalog_import]") {
  auto w = error_of(replace_once(kValid, R"("effective_from": "2019-01-01",
     "source": "list", "as_of": "2019-01-01"},)",
                                 R"("effective_from": "2019-02-30",
     "source": "list", "as_of": "2019-01-01"},)"));
  CHECK(w.place == "/prices/0");
  CHECK(w.field == "effective_from");
  w = error_of(replace_once(kValid, R"("as_of": "2019-01-01"},)", R"("as_of": "Jan 2019"},)"));
  CHECK(w.place == "/prices/0");
  CHECK(w.field == "as_of");
  w = error_of(replace_once(kValid, R"("effective_from": "2019-01-01",
     "source": "list", "as_of": "2019-01-01"},)",
                            R"("effective_from": "2019-01-01", "effective_to": "2019-01-01",
     "source": "list", "as_of": "2019-01-01"},)"));
  CHECK(w.place == "/prices/0");
  CHECK(w.field == "effective_to");
  w = error_of(replace_once(kValid, R"("effective_from": "2019-01-01",
     "source": "list", "as_of": "2019-01-01"},)",
                            R"("effective_from": "2019-01-01T08:00:00+08:00",
     "effective_to": "2019-01-01T00:00:00Z", "source": "list", "as_of": "2019-01-01"},)"));
  CHECK(w.field == "effective_to");  // the same instant, written two ways
}

TEST_CASE("overlapping periods for one key within a file are rejected", "[catalog_import]") {
  const std::string second = std::string(kPrice0) + R"( "source": "list", "as_of": "2019-01-01"},)";
  SECTION("the same key and effective_from twice") {
    const auto w = error_of(replace_once(kValid, kPrice0, second + kPrice0));
    CHECK(w.place == "/prices/1");
    CHECK(w.field == "effective_from");
  }
  SECTION("an explicit effective_to past the next row's start") {
    const std::string earlier =
        R"({"provider": "acme", "instance_type": "x1.large", "mode": "payg", "unit": "hour",
     "amount": "11", "currency": "CNY", "effective_from": "2018-01-01",
     "effective_to": "2019-06-01", "source": "list", "as_of": "2018-01-01"},)";
    const auto w = error_of(replace_once(kValid, kPrice0, earlier + kPrice0));
    CHECK(w.place == "/prices/1");
    CHECK(w.field == "effective_from");
  }
  SECTION("an earlier open-ended row is superseded, not an overlap") {
    const std::string earlier =
        R"({"provider": "acme", "instance_type": "x1.large", "mode": "payg", "unit": "hour",
     "amount": "11", "currency": "CNY", "effective_from": "2018-01-01",
     "source": "list", "as_of": "2018-01-01"},)";
    CHECK(parse_catalog_json(replace_once(kValid, kPrice0, earlier + kPrice0), "t.json")
              .prices.size() == 3);
  }
  SECTION("the same key in another region is another key") {
    const std::string regional =
        R"({"provider": "acme", "instance_type": "x1.large", "mode": "payg", "unit": "hour",
     "region": "north-1", "amount": "11", "currency": "CNY", "effective_from": "2019-01-01",
     "source": "list", "as_of": "2019-01-01"},)";
    CHECK(parse_catalog_json(replace_once(kValid, kPrice0, regional + kPrice0), "t.json")
              .prices.size() == 3);
  }
  SECTION("two policies of a provider starting together") {
    const auto w = error_of(replace_once(kValid, R"("policies": [)", R"("policies": [
    {"provider": "acme", "effective_from": "2019-01-01", "source": "doc", "as_of": "2019-01-01"},)"));
    CHECK(w.place == "/policies/1");
    CHECK(w.field == "effective_from");
  }
}

TEST_CASE("unknown fields are rejected, not ignored", "[catalog_import]") {
  auto w = error_of(replace_once(kValid, R"("prices": [)", R"("price": [], "prices": [)"));
  CHECK(w.place == "/");
  CHECK(w.field == "price");
  w = error_of(replace_once(kValid, R"("amount": "10.5")", R"("amonut": "10.5")"));
  CHECK(w.place == "/prices/0");
  CHECK(w.field == "amonut");
  w = error_of(
      replace_once(kValid, R"("memory_gb": "16")", R"("memory_gb": "16", "memory": "16")"));
  CHECK(w.place == "/gpus/0");
  CHECK(w.field == "memory");
  w = error_of(replace_once(kValid, R"("amount": "10.5")", R"("amount": "10.5", "amount": "11")"));
  CHECK(w.place == "/prices/0");
  CHECK(w.field == "amount");  // a duplicated key would silently win
  w = error_of(replace_once(kValid, R"("format": "gpubill-catalog/1")", R"("format": "other/2")"));
  CHECK(w.field == "format");
}

TEST_CASE("references must resolve in the file or the database", "[catalog_import]") {
  const auto file = parse_catalog_json(kValid, "t.json");
  CHECK_NOTHROW(check_catalog_references(file, CatalogData{}, "t.json"));
  const auto where = [&](const std::string& text) -> Where {
    const auto d = parse_catalog_json(text, "t.json");
    try {
      check_catalog_references(d, CatalogData{}, "t.json");
    } catch (const InputError& e) {
      return {e.place(), e.field()};
    }
    FAIL("no reference error");
    return {};
  };
  auto w = where(replace_once(kValid, R"("instance_type": "x1.large", "mode": "prepaid")",
                              R"("instance_type": "x1.huge", "mode": "prepaid")"));
  CHECK(w.place == "/prices/1");
  CHECK(w.field == "instance_type");
  w = where(replace_once(kValid, R"("gpu": "X1")", R"("gpu": "X2")"));
  CHECK(w.place == "/instance_types/0");
  CHECK(w.field == "gpu");
  w = where(replace_once(kValid, R"({"provider": "acme", "mode": "prepaid", "min_months")",
                         R"({"provider": "acne", "mode": "prepaid", "min_months")"));
  CHECK(w.place == "/discounts/0");
  CHECK(w.field == "provider");

  // The same rows are fine when the database already has what they refer to.
  auto db = Database::open(":memory:");
  ensure_bundled_catalog(db);
  TempDir dir;
  const auto path = dir.write("aws.json", R"({"prices": [
    {"provider": "aws", "instance_type": "p3.2xlarge", "region": "us-west-2", "mode": "payg",
     "unit": "hour", "amount": "3.06", "currency": "USD", "effective_from": "2024-01-01",
     "source": "test", "as_of": "2024-01-01"},
    {"provider": "google", "gpu": "T4", "region": "us-west1", "mode": "payg",
     "unit": "hour", "amount": "0.35", "currency": "USD", "effective_from": "2024-01-01",
     "source": "test", "as_of": "2024-01-01"}]})");
  CHECK(validate_catalog_file(db, path).prices == 2);
  const auto bad = dir.write("bad.json", R"({"prices": [
    {"provider": "aws", "gpu": "V100", "mode": "payg",
     "unit": "hour", "amount": "3.06", "currency": "USD", "effective_from": "2024-01-01",
     "source": "test", "as_of": "2024-01-01"}]})");
  CHECK_THROWS_WITH(validate_catalog_file(db, bad), Catch::Contains("V100-SXM2-16GB"));
}

TEST_CASE("a bad file imports nothing", "[catalog_import]") {
  auto db = Database::open(":memory:");
  ensure_bundled_catalog(db);
  const int prices = rows(db, "price"), types = rows(db, "instance_type"),
            providers = rows(db, "provider");
  TempDir dir;
  // Valid rows first; the last price refers to an unknown instance type.
  const auto path = dir.write(
      "bad.json", replace_once(kValid, R"("instance_type": "x1.large", "mode": "prepaid")",
                               R"("instance_type": "x1.huge", "mode": "prepaid")"));
  try {
    (void)import_catalog_file(db, path);
    FAIL("imported a bad file");
  } catch (const InputError& e) {
    CHECK(e.file() == path);
    CHECK(e.place() == "/prices/1");
    CHECK(e.field() == "instance_type");
  }
  CHECK(rows(db, "price") == prices);
  CHECK(rows(db, "instance_type") == types);
  CHECK(rows(db, "provider") == providers);  // the file's new provider was not kept
  CHECK_THROWS_AS(import_catalog_file(db, dir.file("missing.json")), InputError);
}

TEST_CASE("importing writes every section and re-importing replaces", "[catalog_import]") {
  auto db = Database::open(":memory:");
  TempDir dir;
  const auto path = dir.write("acme.json", kValid);
  const auto report = import_catalog_file(db, path);
  CHECK(report.file == path);
  CHECK(report.providers == 1);
  CHECK(report.gpus == 1);
  CHECK(report.instance_types == 1);
  CHECK(report.prices == 2);
  CHECK(report.discounts == 1);
  CHECK(report.policies == 1);
  CHECK(rows(db, "price") == 2);
  (void)import_catalog_file(db, path);
  CHECK(rows(db, "price") == 2);
  CHECK(rows(db, "gpu_alias") == 1);

  // A newer price list supersedes from its effective_from.
  const auto newer = dir.write("newer.json", R"({"prices": [
    {"provider": "acme", "instance_type": "x1.large", "mode": "payg", "unit": "hour",
     "amount": "9.9", "currency": "CNY", "effective_from": "2021-01-01",
     "source": "list 2021", "as_of": "2021-01-01"}]})");
  CHECK(import_catalog_file(db, newer).prices == 1);
  const auto catalog = Catalog::load(db);
  const auto price = [&](const char* t) {
    const auto* p = catalog.price_at("acme", SubjectKind::instance, "x1.large", "any",
                                     BillingMode::payg, at(t));
    REQUIRE(p);
    return p->amount;
  };
  CHECK(price("2020-12-31T23:59:59Z") == Money::parse("10.5 CNY"));
  CHECK(price("2021-01-01") == Money::parse("9.9 CNY"));
  CHECK(catalog.find_gpu("tesla x1")->id == "X1");
}

TEST_CASE("validating writes nothing", "[catalog_import]") {
  auto db = Database::open(":memory:");
  TempDir dir;
  const auto report = validate_catalog_file(db, dir.write("acme.json", kValid));
  CHECK(report.prices == 2);
  CHECK(rows(db, "price") == 0);
  CHECK(rows(db, "provider") == 0);
}

TEST_CASE("the bundled catalog loads once and has every provider", "[catalog_import]") {
  auto db = Database::open(":memory:");
  ensure_bundled_catalog(db);
  const auto catalog = Catalog::load(db);
  for (const char* p : {"tencent", "alibaba", "huawei", "baidu", "aws", "google"}) {
    CHECK(catalog.find_provider(p) != nullptr);
  }
  CHECK(catalog.find_gpu("V100") != nullptr);
  CHECK_FALSE(catalog.data().prices.empty());
  CHECK_FALSE(catalog.data().policies.empty());
  CHECK(read_meta(connection(db), "bundled_catalog") == bundled_catalog_hash());
  CHECK(bundled_catalog_hash().size() == 16);

  // A second call finds the same hash and writes nothing.
  const int prices = rows(db, "price");
  sqlite(db).exec("DELETE FROM price WHERE id = (SELECT min(id) FROM price)");
  ensure_bundled_catalog(db);
  CHECK(rows(db, "price") == prices - 1);
  // A different stored hash (an older bundle) reloads it.
  write_meta(connection(db), "bundled_catalog", "0000000000000000");
  ensure_bundled_catalog(db);
  CHECK(rows(db, "price") == prices);
}

// ---- the CLI ---------------------------------------------------------------------------------

namespace {

using Run = gpubill::testing::CliRun;
using gpubill::testing::run_cli;
using gpubill::testing::Stderr;

std::set<std::string> first_column(const std::string& csv) {
  std::set<std::string> values;
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) values.insert(line.substr(0, line.find(',')));
  return values;
}

}  // namespace

TEST_CASE("the CLI lists V100 offers of several providers", "[catalog_import][cli]") {
  TempDir dir;
  const std::string db = "'" + dir.file("cli.db") + "'";
  gpubill::testing::ensure_database(dir.file("cli.db"));
  const auto offers = run_cli("catalog offers --gpu V100 --format csv --db " + db);
  INFO(offers.output);
  REQUIRE(offers.status == 0);
  CHECK(offers.output.rfind("provider,region,type,gpu,", 0) == 0);
  const auto providers = first_column(offers.output);
  CHECK(providers.size() >= 4);
  CHECK(providers.count("aws") == 1);
  CHECK(providers.count("tencent") == 1);

  // --db before the subcommands gives the same answer from the same database.
  const auto again = run_cli("--db " + db + " catalog offers --gpu V100 --format csv");
  CHECK(again.status == 0);
  CHECK(again.output == offers.output);
  CHECK(run_cli("catalog --db " + db + " offers --gpu V100 --format csv").output == offers.output);

  const auto json = run_cli("catalog offers --gpu V100 --provider aws --format json --db " + db);
  CHECK(json.status == 0);
  CHECK(json.output.find("\"provider\": \"aws\"") != std::string::npos);
  gpubill::testing::check_schema("catalog-offers.schema.json", nlohmann::json::parse(json.output));
  for (const auto& [command, schema] :
       {std::pair{"catalog gpus", "catalog-gpus.schema.json"},
        std::pair{"catalog show p3.2xlarge", "catalog-show.schema.json"},
        std::pair{"catalog coverage --gpu V100", "catalog-coverage.schema.json"}}) {
    const auto r = run_cli(std::string(command) + " --format json --db " + db);
    INFO(command << ": " << r.output);
    REQUIRE(r.status == 0);
    gpubill::testing::check_schema(schema, nlohmann::json::parse(r.output));
  }

  const auto unknown = run_cli("catalog offers --gpu X100 --db " + db);
  CHECK(unknown.status != 0);
  CHECK(unknown.output.find("A100") != std::string::npos);  // the closest names

  const auto show = run_cli("catalog show p3.2xlarge --db " + db);
  CHECK(show.status == 0);
  CHECK(show.output.find("3.06") != std::string::npos);
  CHECK(show.output.find("== policy ==") != std::string::npos);

  const auto gpus = run_cli("catalog gpus --format csv --db " + db);
  CHECK(gpus.status == 0);
  CHECK(first_column(gpus.output).count("V100-SXM2-16GB") == 1);

  const auto bad = dir.write("bad.json", R"({"prices": [{"amount": 1}]})");
  const auto rejected = run_cli("catalog import '" + bad + "' --db " + db);
  CHECK(rejected.status == 1);
  CHECK(rejected.output.find("/prices/0") != std::string::npos);
  CHECK(std::count(rejected.output.begin(), rejected.output.end(), '\n') == 1);
}

TEST_CASE("catalog import and validate summarise in JSON and CSV", "[catalog_import][cli]") {
  TempDir dir;
  const std::string db = " --db '" + dir.file("cli.db") + "'";
  gpubill::testing::ensure_database(dir.file("cli.db"));
  const std::string file = std::string("'") + GPUBILL_SOURCE_DIR + "/tests/data/testcloud.json'";
  for (const char* command : {"catalog validate ", "catalog import "}) {
    INFO(command);
    const auto j = run_cli(command + file + " --format json" + db, Stderr::discarded);
    INFO(j.output);
    REQUIRE(j.status == 0);
    const auto doc = nlohmann::json::parse(j.output);
    gpubill::testing::check_schema("catalog-import.schema.json", doc);
    CHECK(doc["valid"] == true);
    CHECK(doc["written"] == (std::string(command) == "catalog import "));
    CHECK(doc["errors"].empty());
    REQUIRE(doc["rows"].size() == 11);  // every kind of row, commitments last
    CHECK(doc["rows"][4]["kind"] == "prices");
    CHECK(doc["rows"][4]["rows"].get<int>() > 0);
    CHECK(doc["total_rows"].get<int>() >= doc["rows"][4]["rows"].get<int>());
    CHECK(doc["rows"][10]["kind"] == "commitments");
  }
  const auto c = run_cli("catalog validate " + file + " --format csv" + db, Stderr::discarded);
  REQUIRE(c.status == 0);
  CHECK(c.output.rfind("kind,rows\nproviders,", 0) == 0);

  // A bad file: the error's file, place and field in JSON; the message and status as ever.
  const auto bad = dir.write("bad.json", R"({"prices": [{"amount": 1}]})");
  const auto rejected =
      run_cli("catalog import '" + bad + "' --format json" + db, Stderr::discarded);
  CHECK(rejected.status == 1);
  INFO(rejected.output);
  const auto doc = nlohmann::json::parse(rejected.output);
  gpubill::testing::check_schema("catalog-import.schema.json", doc);
  CHECK(doc["valid"] == false);
  CHECK(doc["written"] == false);
  REQUIRE(doc["errors"].size() == 1);
  CHECK(doc["errors"][0]["file"] == dir.file("bad.json"));
  CHECK(doc["errors"][0]["place"].get<std::string>().rfind("/prices/0", 0) == 0);
  const auto syntax = dir.write("syntax.json", "{\n\"prices\": [\n");
  const auto s = run_cli("catalog validate '" + syntax + "' --format json" + db, Stderr::discarded);
  CHECK(s.status == 1);
  const auto sdoc = nlohmann::json::parse(s.output);
  gpubill::testing::check_schema("catalog-import.schema.json", sdoc);
  REQUIRE(sdoc["errors"].size() == 1);
  CHECK(sdoc["errors"][0]["line"].is_number_integer());
}

TEST_CASE("loading prices around an instant keeps what look-ups at that instant need",
          "[catalog_import]") {
  auto db = Database::open(":memory:");
  TempDir dir;
  // x1.large payg: three periods; prepaid: only a past one; spot: only a future one.
  const auto row = [](const char* mode, const char* unit, const char* amount, const char* from,
                      const char* to) {
    return std::string(R"({"provider": "acme", "instance_type": "x1.large", "mode": ")") + mode +
           R"(", "unit": ")" + unit + R"(", "amount": ")" + amount +
           R"(", "currency": "CNY", "effective_from": ")" + from + "\"" +
           (to ? std::string(R"(, "effective_to": ")") + to + "\"" : std::string()) +
           R"(, "source": "list", "as_of": ")" + from + "\"}";
  };
  std::string prices = "[" + row("payg", "hour", "12", "2017-01-01", "2019-01-01") + "," +
                       row("payg", "hour", "10.5", "2019-01-01", "2022-01-01") + "," +
                       row("payg", "hour", "9", "2022-01-01", nullptr) + "," +
                       row("prepaid", "month", "3300", "2017-01-01", "2018-01-01") + "," +
                       row("prepaid", "month", "3100", "2018-01-01", "2019-06-01") + "," +
                       row("spot", "hour", "3", "2023-01-01", nullptr) + "]";
  std::string text = kValid;
  const auto a = text.find("\"prices\": [");
  const auto b = text.find("],\n  \"discounts\"");
  text.replace(a, b + 1 - a, "\"prices\": " + prices);
  (void)import_catalog_file(db, dir.write("acme.json", text));

  const Instant t = parse_instant("2020-06-30", true);
  const Catalog around = Catalog::load_around(db, t);
  std::vector<std::string> kept;
  for (const auto& p : around.data().prices) {
    kept.push_back(std::string(to_string(p.mode)) + " " + p.amount.amount().to_string());
  }
  // payg: only the row in force; prepaid: none in force, so the last that ended; spot: the
  // first that starts later.
  CHECK(kept == std::vector<std::string>{"payg 10.5", "prepaid 3100", "spot 3"});

  const Catalog whole = Catalog::load(db);
  CHECK(whole.data().prices.size() == 6);
  for (auto mode : {BillingMode::payg, BillingMode::prepaid, BillingMode::spot}) {
    const auto* x = around.price_at("acme", SubjectKind::instance, "x1.large", "", mode, t);
    const auto* y = whole.price_at("acme", SubjectKind::instance, "x1.large", "", mode, t);
    CHECK((x == nullptr) == (y == nullptr));
    if (x && y) CHECK(x->id == y->id);
  }
  CHECK(latest_price_date(db) == parse_instant("2023-01-01", true));
}
