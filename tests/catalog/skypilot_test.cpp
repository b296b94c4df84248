// Importing SkyPilot's service catalog (fixtures/skypilot/*.csv, verbatim excerpts of
// skypilot-org/skypilot-catalog catalogs/v7/{aws,gcp}/vms.csv).
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "gpubill/base/errors.hpp"
#include "gpubill/catalog/catalog.hpp"
#include "gpubill/catalog/catalog_import.hpp"
#include "gpubill/store/db.hpp"
#include "store/store.hpp"
#include "temp_dir.hpp"
#include "test_values.hpp"

using namespace gpubill;
using gpubill::testing::bundled_catalog;
using gpubill::testing::TempDir;

namespace {

std::string fixture(const std::string& name) {
  const std::string path = std::string(GPUBILL_SOURCE_DIR) + "/fixtures/skypilot/" + name;
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

SkyPilotOptions options(const std::string& provider = "") {
  SkyPilotOptions o;
  o.provider = provider;
  o.as_of = "2025-06-01";
  return o;
}

const PriceRow* find_price(const CatalogData& d, SubjectKind kind, const std::string& subject,
                           const std::string& region, BillingMode mode) {
  for (const auto& p : d.prices) {
    if (p.subject_kind == kind && p.subject == subject && p.region == region && p.mode == mode) {
      return &p;
    }
  }
  return nullptr;
}

std::size_t count_mode(const CatalogData& d, BillingMode mode) {
  std::size_t n = 0;
  for (const auto& p : d.prices) n += p.mode == mode ? 1 : 0;
  return n;
}

Money usd(const char* amount) {
  return Money(Decimal::parse(amount), Currency::parse("USD"));
}

struct CsvWhere {
  std::string place, field;
};

CsvWhere csv_error_of(const std::string& text, const std::string& provider = "") {
  try {
    (void)parse_skypilot_csv(text, "vms.csv", options(provider), bundled_catalog());
  } catch (const InputError& e) {
    CHECK(e.file() == "vms.csv");
    return {e.place(), e.field()};
  }
  FAIL("no InputError");
  return {};
}

// The text with the first occurrence of `from` on line `line` replaced.
std::string edit_line(const std::string& text, int line, const std::string& from,
                      const std::string& to) {
  std::size_t start = 0;
  for (int i = 1; i < line; ++i) start = text.find('\n', start) + 1;
  const auto pos = text.find(from, start);
  REQUIRE(pos != std::string::npos);
  REQUIRE(pos < text.find('\n', start));
  return text.substr(0, pos) + to + text.substr(pos + from.size());
}

}  // namespace

TEST_CASE("the AWS sample becomes four instance types with regional prices", "[skypilot]") {
  const auto result = parse_skypilot_csv(fixture("aws-vms-gpu-sample.csv"), "aws.csv", options(),
                                         bundled_catalog());
  const auto& d = result.data;
  REQUIRE(d.instance_types.size() == 4);
  CHECK(d.instance_types[0].id == "g4dn.xlarge");
  CHECK(d.instance_types[1].id == "p3.16xlarge");
  CHECK(d.instance_types[2].id == "p3.2xlarge");
  CHECK(d.instance_types[3].id == "p3.8xlarge");
  const auto& p3 = d.instance_types[2];
  CHECK(p3.provider == "aws");  // inferred from the zone ids
  CHECK(p3.family == "p3");
  CHECK(p3.gpu == "V100-SXM2-16GB");
  CHECK(p3.gpu_count == Decimal(1));
  CHECK(p3.vcpu == 8);
  CHECK(p3.ram_gb == Decimal::parse("61"));
  CHECK(d.instance_types[1].gpu_count == Decimal(8));
  CHECK(d.instance_types[0].gpu == "T4");

  // One payg row per (type, region): 3 sizes × 11 regions + g4dn in us-east-1.
  CHECK(count_mode(d, BillingMode::payg) == 34);
  CHECK(count_mode(d, BillingMode::spot) == 34);
  CHECK(d.prices.size() == 68);
  CHECK(d.regions.size() == 11);

  const auto* payg =
      find_price(d, SubjectKind::instance, "p3.2xlarge", "us-east-1", BillingMode::payg);
  REQUIRE(payg);
  CHECK(payg->amount == usd("3.06"));
  CHECK(payg->unit == PriceUnit::hour);
  CHECK(payg->as_of == "2025-06-01");
  CHECK(payg->period.from == parse_instant("2025-06-01", true));
  CHECK_FALSE(payg->period.to);
  CHECK(payg->source.find("aws.csv") != std::string::npos);
  // Spot is per zone: the lowest of us-east-1's zones (two of them have no spot price).
  const auto* spot =
      find_price(d, SubjectKind::instance, "p3.2xlarge", "us-east-1", BillingMode::spot);
  REQUIRE(spot);
  CHECK(spot->amount == usd("0.5197"));
  const auto* g4 =
      find_price(d, SubjectKind::instance, "g4dn.xlarge", "us-east-1", BillingMode::spot);
  REQUIRE(g4);
  CHECK(g4->amount == usd("0.1845"));
  const auto* big =
      find_price(d, SubjectKind::instance, "p3.16xlarge", "ap-northeast-1", BillingMode::payg);
  REQUIRE(big);
  CHECK(big->amount == usd("33.552"));
}

TEST_CASE("the GCP sample prices hosts and attachable GPUs separately", "[skypilot]") {
  const auto result = parse_skypilot_csv(fixture("gcp-vms-gpu-sample.csv"), "gcp.csv", options(),
                                         bundled_catalog());
  const auto& d = result.data;
  REQUIRE(d.instance_types.size() == 2);
  CHECK(d.instance_types[0].id == "a2-highgpu-1g");
  CHECK(d.instance_types[1].id == "n1-standard-8");
  CHECK(d.instance_types[1].provider == "google");  // inferred from the zone names
  CHECK(d.instance_types[1].gpu.empty());
  CHECK(d.instance_types[1].vcpu == 8);

  const auto* v100 =
      find_price(d, SubjectKind::gpu, "V100-SXM2-16GB", "us-central1", BillingMode::payg);
  REQUIRE(v100);
  CHECK(v100->amount == usd("2.48"));  // 19.84 for 8 is 8 × 2.48
  const auto* v100_spot =
      find_price(d, SubjectKind::gpu, "V100-SXM2-16GB", "us-central1", BillingMode::spot);
  REQUIRE(v100_spot);
  CHECK(v100_spot->amount == usd("0.992"));
  const auto* p100 =
      find_price(d, SubjectKind::gpu, "P100-PCIE-16GB", "asia-east1", BillingMode::payg);
  REQUIRE(p100);
  CHECK(p100->amount == usd("1.6"));
  const auto* host =
      find_price(d, SubjectKind::instance, "n1-standard-8", "us-central1", BillingMode::payg);
  REQUIRE(host);
  CHECK(host->amount == usd("0.38"));

  // a2-highgpu-1g has a built-in A100 in the catalog; the sample has only its host price and
  // no A100 rows, so no price is made up for it.
  CHECK_FALSE(
      find_price(d, SubjectKind::instance, "a2-highgpu-1g", "us-central1", BillingMode::payg));
  bool noted = false;
  INFO(result.notes.size());
  for (const auto& n : result.notes) noted = noted || n.find("a2-highgpu-1g") != std::string::npos;
  CHECK(noted);
  // 3 GPU models × 2 regions × (payg, spot) + the n1 host's payg and spot.
  CHECK(d.prices.size() == 14);
}

TEST_CASE("SkyPilot columns are found by name, in any order", "[skypilot]") {
  // The GCP sample has no quoted field, so its columns can be reversed by splitting on commas.
  std::istringstream in(fixture("gcp-vms-gpu-sample.csv"));
  std::string reversed, line;
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::size_t start = 0;
    for (std::size_t comma; (comma = line.find(',', start)) != std::string::npos;
         start = comma + 1) {
      fields.push_back(line.substr(start, comma - start));
    }
    fields.push_back(line.substr(start));
    for (auto it = fields.rbegin(); it != fields.rend(); ++it) {
      reversed += (it == fields.rbegin() ? "" : ",") + *it;
    }
    reversed += "\r\n";
  }
  const auto a = parse_skypilot_csv(fixture("gcp-vms-gpu-sample.csv"), "gcp.csv", options(),
                                    bundled_catalog());
  const auto b = parse_skypilot_csv(reversed, "gcp.csv", options(), bundled_catalog());
  REQUIRE(a.data.prices.size() == b.data.prices.size());
  for (std::size_t i = 0; i < a.data.prices.size(); ++i) {
    CHECK(a.data.prices[i].subject == b.data.prices[i].subject);
    CHECK(a.data.prices[i].amount == b.data.prices[i].amount);
  }
}

TEST_CASE("malformed SkyPilot rows name the line and column", "[skypilot]") {
  const auto aws = fixture("aws-vms-gpu-sample.csv");
  const auto gcp = fixture("gcp-vms-gpu-sample.csv");
  SECTION("a bad number") {
    const auto w = csv_error_of(edit_line(aws, 5, ",0.526,", ",0.5x26,"));
    CHECK(w.place == "line 5");
    CHECK(w.field == "Price");
  }
  SECTION("a negative price") {
    const auto w = csv_error_of(edit_line(aws, 5, ",0.526,", ",-0.526,"));
    CHECK(w.place == "line 5");
    CHECK(w.field == "Price");
  }
  SECTION("a byte that is not UTF-8 (it broke every later JSON export)") {
    const auto w = csv_error_of(edit_line(aws, 4, ",use1-az", ",use1-\xFF"));
    CHECK(w.place == "line 4");
    CHECK(w.field == "AvailabilityZone");
  }
  SECTION("a control character in a name") {
    const auto w = csv_error_of(edit_line(aws, 4, "g4dn.xlarge,", "g4dn.x\x1b[2Jlarge,"));
    CHECK(w.field == "InstanceType");
  }
  SECTION("a wrong number of fields") {
    const auto w = csv_error_of(edit_line(aws, 3, ",us-east-1,", ",us-east-1,extra,"));
    CHECK(w.place == "line 3");
  }
  SECTION("an unterminated quote") {
    const auto w =
        csv_error_of(aws + "p3.2xlarge,V100,1.0,8.0,61.0,\"{'Gpus': [,3.06,,us-east-1,x\n");
    CHECK(w.place == "line 91");
  }
  SECTION("a missing column") {
    const auto w = csv_error_of(edit_line(gcp, 1, "SpotPrice", "Spot"));
    CHECK(w.place == "line 1");
    CHECK(w.field == "SpotPrice");
  }
  SECTION("GPU counts whose prices do not scale") {
    const auto w = csv_error_of(edit_line(gcp, 46, ",4.96,", ",4.97,"));
    CHECK(w.place == "line 46");
    CHECK(w.field == "Price");
  }
  SECTION("a provider that cannot be inferred") {
    const auto w = csv_error_of(edit_line(aws, 2, ",use1-az1", ",us-east-1-a"));
    CHECK(w.field == "provider");
  }
}

TEST_CASE("unknown accelerators and zone disagreements are reported", "[skypilot]") {
  auto text = fixture("gcp-vms-gpu-sample.csv");
  text = edit_line(text, 40, ",V100,", ",Z100,");  // a GPU the catalog does not have
  text = edit_line(text, 6, ",0.38,", ",0.39,");   // n1-standard-8 in one zone costs more
  const auto result = parse_skypilot_csv(text, "gcp.csv", options("google"), bundled_catalog());
  bool skipped = false, disagreed = false;
  for (const auto& n : result.notes) {
    skipped = skipped || (n.find("line 40") == 0 && n.find("'Z100'") != std::string::npos);
    disagreed = disagreed || n.find("differ") != std::string::npos;
  }
  CHECK(skipped);
  CHECK(disagreed);
  const auto* host = find_price(result.data, SubjectKind::instance, "n1-standard-8", "us-central1",
                                BillingMode::payg);
  REQUIRE(host);
  CHECK(host->amount == usd("0.39"));  // the highest zone price
  // V100 in asia-east1 came only from the skipped row's zone for count 1; counts 2..8 remain.
  CHECK(
      find_price(result.data, SubjectKind::gpu, "V100-SXM2-16GB", "asia-east1", BillingMode::payg));
}

TEST_CASE("a SkyPilot file imports into the database in one transaction", "[skypilot]") {
  auto db = Database::open(":memory:");
  ensure_bundled_catalog(db);
  TempDir dir;
  const auto path = dir.write("vms.csv", fixture("aws-vms-gpu-sample.csv"));
  SkyPilotOptions o = options("aws");
  o.source = "skypilot-catalog v7 aws@001367d2";
  // The sample's lowest spot price of two p3 sizes in one region is exactly a tenth of
  // on-demand (SkyPilot's placeholder): catalog check refuses the file unless forced.
  CHECK_THROWS_WITH(import_skypilot_file(db, path, o), Catch::Contains("constant_ratio aws p3."));
  ImportOptions forced;
  forced.force = true;
  const auto report = import_skypilot_file(db, path, o, forced);
  CHECK(report.prices == 68);
  CHECK(std::count_if(report.notes.begin(), report.notes.end(), [](const std::string& n) {
          return n.rfind("check: error constant_ratio aws p3.", 0) == 0;
        }) == 2);
  CHECK(report.instance_types == 0);  // all four are already in the bundled catalog
  const auto catalog = Catalog::load(db);
  const auto* p = catalog.price_at("aws", SubjectKind::instance, "p3.2xlarge", "us-east-1",
                                   BillingMode::payg, parse_instant("2025-07-01", true));
  REQUIRE(p);
  CHECK(p->amount == usd("3.06"));
  CHECK(p->source.rfind("skypilot-catalog v7 aws@001367d2", 0) == 0);
  CHECK(catalog.find_instance_type("aws", "p3.2xlarge")->notes.find("SkyPilot") ==
        std::string::npos);  // the bundled description is kept
  const auto* spot = catalog.price_at("aws", SubjectKind::instance, "p3.8xlarge", "us-east-1",
                                      BillingMode::spot, parse_instant("2025-07-01", true));
  REQUIRE(spot);
  CHECK(spot->amount == usd("1.7535"));

  // A bad file leaves the database as it was.
  const int prices = sqlite(db).execAndGet("SELECT count(*) FROM price").getInt();
  const auto bad =
      dir.write("bad.csv", edit_line(fixture("aws-vms-gpu-sample.csv"), 80, "us-", "us-,"));
  CHECK_THROWS_AS(import_skypilot_file(db, bad, o), InputError);
  CHECK(sqlite(db).execAndGet("SELECT count(*) FROM price").getInt() == prices);
  CHECK(validate_skypilot_file(db, path, o, forced).prices == 68);
}

TEST_CASE("two rows for one zone with different prices are reported", "[skypilot]") {
  // They imported silently, the later row winning (issue 10, defect 7).
  const auto aws = fixture("aws-vms-gpu-sample.csv");
  const std::string second_line =
      aws.substr(aws.find('\n') + 1, aws.find('\n', aws.find('\n') + 1) - aws.find('\n'));
  const std::string dearer = edit_line(second_line, 1, ",0.526,", ",0.600,");
  const auto r = parse_skypilot_csv(aws + dearer, "aws.csv", options(), bundled_catalog());
  const std::size_t added_line =
      static_cast<std::size_t>(std::count(aws.begin(), aws.end(), '\n')) + 1;
  bool reported = false;
  for (const auto& n : r.notes) {
    if (n == "line " + std::to_string(added_line) +
                 ": g4dn.xlarge in zone use1-az1 has Price 0.6, but 0.526 on line 2 (or a row "
                 "since); the highest is kept") {
      reported = true;
    }
  }
  CHECK(reported);
  const PriceRow* p =
      find_price(r.data, SubjectKind::instance, "g4dn.xlarge", "us-east-1", BillingMode::payg);
  REQUIRE(p);
  CHECK(p->amount == usd("0.6"));
  // The same row again, same price: a harmless repeat, not reported.
  const auto same = parse_skypilot_csv(aws + second_line, "aws.csv", options(), bundled_catalog());
  CHECK(same.notes.size() ==
        parse_skypilot_csv(aws, "aws.csv", options(), bundled_catalog()).notes.size());
}
