// Commitment offers in the catalog (issue 29): the JSON section "commitments" with its checks
// (each error names the row and field), the table commitment_price, look-ups in force at an
// instant, the catalog check, and the bundled offers.
#include <catch2/catch.hpp>

#include "gpubill/base/errors.hpp"
#include "gpubill/catalog/catalog.hpp"
#include "gpubill/catalog/catalog_check.hpp"
#include "gpubill/catalog/catalog_import.hpp"
#include "gpubill/store/db.hpp"
#include "temp_dir.hpp"
#include "test_values.hpp"

using namespace gpubill;
using gpubill::testing::replace_once;
using gpubill::testing::TempDir;

namespace {

const std::string kHead = R"({
  "format": "gpubill-catalog/1",
  "providers": [
    {"id": "acme", "name": "Acme", "currency": "USD", "billing_time_zone": "UTC"}
  ],
  "regions": [{"provider": "acme", "id": "r1", "name": "Region 1"}],
  "gpus": [{"id": "X1", "aliases": ["Tesla X1"], "memory_gb": "16"}],
  "instance_types": [
    {"provider": "acme", "id": "x1.large", "gpu": "X1", "gpu_count": "1", "vcpu": 8, "ram_gb": "32"}
  ],
  "prices": [
    {"provider": "acme", "instance_type": "x1.large", "region": "r1", "mode": "payg",
     "unit": "hour", "amount": "2", "currency": "USD", "effective_from": "2020-01-01",
     "source": "list", "as_of": "2020-01-01"}
  ],
  "commitments": [)";

// A 1-year standard RI, all upfront, and a 3-year one, no upfront.
const std::string kRows = R"(
    {"provider": "acme", "instance_type": "x1.large", "region": "r1",
     "program": "reserved_instance", "class": "standard", "term_months": 12,
     "payment": "all_upfront", "upfront": "10000", "hourly": "0", "currency": "USD",
     "effective_from": "2020-01-01", "source": "RI list", "as_of": "2020-01-01"},
    {"provider": "acme", "instance_type": "x1.large", "region": "r1",
     "program": "reserved_instance", "class": "standard", "term_months": 36,
     "payment": "no_upfront", "upfront": "0", "hourly": "0.9", "currency": "USD",
     "effective_from": "2020-01-01", "source": "RI list", "as_of": "2020-01-01"})";

std::string file(const std::string& rows) {
  return kHead + rows + "]}";
}

// Where parsing `text`, or checking its references, fails: "place field".
std::string error_at(const std::string& text) {
  try {
    check_catalog_references(parse_catalog_json(text, "c.json"), CatalogData{}, "c.json");
  } catch (const InputError& e) {
    return e.place() + " " + e.field();
  }
  return "no error";
}

}  // namespace

TEST_CASE("commitment rows parse, and each bad field is named", "[catalog][commitment]") {
  const CatalogData d = parse_catalog_json(file(kRows), "c.json");
  REQUIRE(d.commitments.size() == 2);
  const CommitmentRow& ri = d.commitments[0];
  CHECK(ri.program == CommitmentProgram::reserved_instance);
  CHECK(ri.offering_class == "standard");
  CHECK(ri.payment == CommitmentPayment::all_upfront);
  CHECK(ri.term_hours() == 8760);
  CHECK(ri.key() == "ri-standard-all-upfront");
  CHECK(ri.term_cost() == Money::parse("10000 USD"));
  // 0.9 an hour × 26280 h = 23652.
  CHECK(d.commitments[1].term_cost() == Money::parse("23652 USD"));

  CHECK(error_at(file(replace_once(kRows, R"("term_months": 12)", R"("term_months": 24)"))) ==
        "/commitments/0 term_months");
  CHECK(error_at(file(replace_once(kRows, R"("hourly": "0.9")", R"("hourly": "0")"))) ==
        "/commitments/1 hourly");
  CHECK(error_at(file(replace_once(kRows, R"("upfront": "0", "hourly": "0.9")",
                                   R"("upfront": "5", "hourly": "0.9")"))) ==
        "/commitments/1 upfront");
  CHECK(error_at(file(replace_once(kRows, R"("upfront": "10000", "hourly": "0")",
                                   R"("upfront": "10000", "hourly": "0.1")"))) ==
        "/commitments/0 hourly");
  CHECK(error_at(file(replace_once(kRows, R"("class": "standard", "term_months": 12)",
                                   R"("term_months": 12)"))) == "/commitments/0 class");
  CHECK(error_at(file(replace_once(
            kRows, R"("program": "reserved_instance", "class": "standard", "term_months": 36)",
            R"("program": "committed_use", "class": "standard", "term_months": 36)"))) ==
        "/commitments/1 class");
  CHECK(error_at(file(replace_once(kRows, "\"payment\": \"all_upfront\"",
                                   "\"payment\": \"upfront\""))) == "/commitments/0 payment");
  CHECK(error_at(file(replace_once(kRows, R"("region": "r1",
     "program": "reserved_instance", "class": "standard", "term_months": 12)",
                                   R"("region": "r9",
     "program": "reserved_instance", "class": "standard", "term_months": 12)"))) ==
        "/commitments/0 region");
  CHECK(error_at(file(replace_once(kRows, R"("instance_type": "x1.large", "region": "r1",
     "program": "reserved_instance", "class": "standard", "term_months": 36)",
                                   R"("instance_type": "x9", "region": "r1",
     "program": "reserved_instance", "class": "standard", "term_months": 36)"))) ==
        "/commitments/1 instance_type");
  // The same key twice from the same date.
  const std::string first = kRows.substr(0, kRows.find("},") + 1);
  CHECK(error_at(file(first + "," + first)) == "/commitments/1 effective_from");
}

TEST_CASE("commitments are stored, read back and looked up in force", "[catalog][commitment]") {
  auto db = Database::open(":memory:");
  TempDir dir;
  const auto path = dir.write("c.json", file(kRows));
  const ImportReport report = import_catalog_file(db, path);
  CHECK(report.commitments == 2);
  const Catalog catalog = Catalog::load(db);
  REQUIRE(catalog.data().commitments.size() == 2);
  const CommitmentRow& stored = catalog.data().commitments[0];
  CHECK(stored.id > 0);
  CHECK(stored.upfront == Money::parse("10000 USD"));
  CHECK(stored.source == "RI list");

  const Instant t = parse_instant("2021-06-01", true);
  const auto rows = commitments_at(catalog, "acme", SubjectKind::instance, "x1.large", "r1", t);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0]->term_months == 12);
  CHECK(rows[1]->term_months == 36);
  CHECK(commitments_at(catalog, "acme", SubjectKind::instance, "x1.large", "r1",
                       parse_instant("2019-06-01", true))
            .empty());
  CHECK(check_catalog(catalog.data()).passed());
}

TEST_CASE("catalog check: a commitment dearer than paying as you go", "[catalog][commitment]") {
  // 1-year all upfront 17520 = 2 an hour × 8760 h: no cheaper than pay-as-you-go.
  CatalogData d = parse_catalog_json(
      file(replace_once(kRows, R"("upfront": "10000")", R"("upfront": "17520")")), "c.json");
  const CheckReport report = check_catalog(d);
  REQUIRE(report.errors == 1);
  const CheckViolation& v = report.violations.front();
  CHECK(v.invariant == "commitment_discount");
  CHECK(v.subject == "x1.large");
  CHECK(v.mode == "reserved_1y ri-standard-all-upfront");
  CHECK_THAT(v.message, Catch::Contains("17520"));
}

TEST_CASE("the bundled commitments: real offers, checked", "[catalog][commitment]") {
  auto db = Database::open(":memory:");
  ensure_bundled_catalog(db);
  const Catalog catalog = Catalog::load(db);
  const Instant t = parse_instant("2025-12-01", true);
  // AWS p3dn.24xlarge (8 × V100 32 GB), us-east-1: 3-year standard, all upfront 238250 USD
  // (effective 9.06583 an hour in the source: 238250 / 26280 = 9.065829… → 9.065830).
  const auto aws =
      commitments_at(catalog, "aws", SubjectKind::instance, "p3dn.24xlarge", "us-east-1", t);
  const CommitmentRow* std3 = nullptr;
  for (const auto* r : aws) {
    if (r->key() == "ri-standard-all-upfront" && r->term_months == 36) std3 = r;
  }
  REQUIRE(std3);
  CHECK(std3->upfront == Money::parse("238250 USD"));
  CHECK_THAT(std3->source,
             Catch::Contains("tsaol/aws-gpu@2d0108c7bd261c8e40493fbd35135437bd6c9099"));
  // Google V100 1-year CUD in us-central1: 1.562 USD per GPU-hour (price list v1.75, [P]).
  const auto google =
      commitments_at(catalog, "google", SubjectKind::gpu, "V100-SXM2-16GB", "us-central1", t);
  REQUIRE(google.size() == 2);
  CHECK(google[0]->hourly == Money::parse("1.562 USD"));
  CHECK(google[1]->hourly == Money::parse("1.116 USD"));
  // The legacy p5.48xlarge reserved price rows end where the commitment offers begin.
  for (const auto* p : catalog.prices_of("aws", SubjectKind::instance, "p5.48xlarge")) {
    if (p->mode == BillingMode::reserved_1y || p->mode == BillingMode::reserved_3y) {
      REQUIRE(p->period.to);
      CHECK(*p->period.to == parse_instant("2025-11-30", true));
    }
  }
  // Every bundled commitment passes the commitment_discount invariant.
  for (const auto& v : check_catalog(catalog.data()).violations) {
    INFO(describe(v));
    CHECK(v.invariant != "commitment_discount");
  }
}
