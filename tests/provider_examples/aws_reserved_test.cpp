// AWS Reserved Instances applied in replay (issue 29), end to end through the CLI: the worked
// examples of the EC2 user guide (awsdocs/amazon-ec2-user-guide@
// 096556437fd7fdc573353d1b0e7db0909c4708f4):
//   doc_source/concepts-reserved-instances-application.md, "Usage billing": "A Reserved Instance
//   billing benefit can apply to a maximum of 3600 seconds (one hour) of instance usage per
//   clock-hour"; one m4.xlarge RI and four m4.xlarge instances running concurrently for one hour:
//   one hour of RI usage and three hours of On-Demand; four instances for 15 minutes (900 seconds)
//   each within the same hour: one hour of RI usage and 0 hours of On-Demand.
//   doc_source/apply_ri.md: a regional RI applies "from the smallest to the largest instance size
//   within the instance family based on the normalization factor" (large 4, xlarge 8, 2xlarge
//   16); Scenario 1 (a c4.large RI gives "partial benefit" to a c4.xlarge: 50 %) and Scenario 2
//   (one m3.2xlarge RI: both m3.large and one of two m3.xlarge covered, the other On-Demand).
// m4 and m3 are not in the bundled catalog: tests/data/aws-ri-examples.json holds example prices
// (marked as examples; the guide gives none): on-demand m4.large 0.10, m4.xlarge 0.20, m3.large
// 0.14, m3.xlarge 0.28, m3.2xlarge 0.56 USD/h; 1-year standard no-upfront RIs m4.large 0.06,
// m4.xlarge 0.12, m3.2xlarge 0.35 USD/h; all-upfront m4.xlarge 876 USD (0.10 × 8760 h).
#include <catch2/catch.hpp>

#include <string>

#include "json_schema.hpp"
#include "provider_example.hpp"

using gpubill::testing::dec;
using gpubill::testing::ExampleRun;

namespace {

std::string ri_commit(const std::string& id, const std::string& time, const std::string& type,
                      const std::string& payment = "no_upfront", int count = 1) {
  return R"({"id":")" + id + R"(","time":")" + time +
         R"(","type":"commit","account":"acme","provider":"aws","region":"us-east-1","instance_type":")" +
         type + R"(","term":"1y","payment":")" + payment + R"(","count":)" + std::to_string(count) +
         "}\n";
}

std::string ri_create(const std::string& instance, const std::string& type, const std::string& at) {
  return R"({"id":"c-)" + instance + R"(","time":")" + at +
         R"(","type":"create","account":"acme","instance":")" + instance +
         R"(","provider":"aws","region":"us-east-1","instance_type":")" + type +
         R"(","mode":"payg"})"
         "\n";
}

std::string ri_destroy(const std::string& instance, const std::string& at) {
  return R"({"id":"d-)" + instance + R"(","time":")" + at +
         R"(","type":"destroy","account":"acme","instance":")" + instance + "\"}\n";
}

// A run from `from` to `to` (for runs that do not overlap others in the log's time order).
std::string ri_run(const std::string& instance, const std::string& type, const std::string& from,
                   const std::string& to) {
  return ri_create(instance, type, from) + ri_destroy(instance, to);
}

std::int64_t ri_count_rows(ExampleRun& ex, const std::string& kind) {
  std::int64_t n = 0;
  for (const auto& row : ex.charges("acme")) n += row.at("kind") == kind ? 1 : 0;
  return n;
}

}  // namespace

// One m4.xlarge RI (0.12 USD/h), four m4.xlarge for one hour (10:00–11:00): each settles 3600 s at
// 0.20 = 0.80 on demand; the RI covers 3600 s (the first instance: 'a', smallest size first, then
// instance order) → one covered row −0.20; the hour's fee 0.12; nothing unused. The hour costs
// 0.80 − 0.20 + 0.12 = 0.72 = three hours On-Demand (0.60) + one RI hour (0.12).
TEST_CASE("aws RI: four concurrent m4.xlarge for an hour under one RI: 1 h covered, 3 h on demand",
          "[provider_examples][aws][commitments]") {
  ExampleRun ex;
  ex.import("aws-ri-examples.json");
  const std::string t0 = "2025-12-01T10:00:00Z", t1 = "2025-12-01T11:00:00Z";
  ex.replay(ri_commit("ri-1", t0, "m4.xlarge") + ri_create("a", "m4.xlarge", t0) +
                ri_create("b", "m4.xlarge", t0) + ri_create("c", "m4.xlarge", t0) +
                ri_create("d", "m4.xlarge", t0) + ri_destroy("a", t1) + ri_destroy("b", t1) +
                ri_destroy("c", t1) + ri_destroy("d", t1),
            t1);
  CHECK(ex.quantity("acme", "settlement") == dec("14400"));
  CHECK(ex.quantity("acme", "commitment_covered") == dec("3600"));
  CHECK(ex.quantity("acme", "commitment_covered", "a") == dec("3600"));
  CHECK(ri_count_rows(ex, "commitment_unused") == 0);
  CHECK(ex.billed("acme", "compute") == dec("0.60"));
  CHECK(ex.billed("acme") == dec("0.72"));
  // The month's statement: the balance movements add up, each at the balance replay recorded
  // (the hour's settlements first, then the covered credit and the fee).
  const auto bill = ex.cli("bill --account acme --month 2025-12 --format json");
  REQUIRE(bill.status == 0);
  const auto balances = nlohmann::json::parse(bill.output).at("balances");
  REQUIRE(balances.size() == 1);
  CHECK(balances[0].at("reconciles") == true);
  CHECK(dec(balances[0].at("closing")) == dec("-0.72"));
}

// Four m4.xlarge, 900 s each one after another in 10:00–11:00: 4 × 900 = 3600 s, all within the
// RI's 3600 s: four covered rows of 900 s (−0.05 each) offset the four 0.05 settlements; the
// hour costs the fee, 0.12. "one hour of Reserved Instance usage and 0 hours of On-Demand".
TEST_CASE("aws RI: four m4.xlarge for 15 minutes each in one hour: all covered",
          "[provider_examples][aws][commitments]") {
  ExampleRun ex;
  ex.import("aws-ri-examples.json");
  ex.replay(ri_commit("ri-1", "2025-12-01T10:00:00Z", "m4.xlarge") +
                ri_run("a", "m4.xlarge", "2025-12-01T10:00:00Z", "2025-12-01T10:15:00Z") +
                ri_run("b", "m4.xlarge", "2025-12-01T10:15:00Z", "2025-12-01T10:30:00Z") +
                ri_run("c", "m4.xlarge", "2025-12-01T10:30:00Z", "2025-12-01T10:45:00Z") +
                ri_run("d", "m4.xlarge", "2025-12-01T10:45:00Z", "2025-12-01T11:00:00Z"),
            "2025-12-01T11:00:00Z");
  CHECK(ex.quantity("acme", "commitment_covered") == dec("3600"));
  for (const char* i : {"a", "b", "c", "d"})
    CHECK(ex.quantity("acme", "commitment_covered", i) == dec("900"));
  CHECK(ex.billed("acme", "compute") == dec("0"));
  CHECK(ex.billed("acme") == dec("0.12"));
  CHECK(ri_count_rows(ex, "commitment_unused") == 0);
}

// Scenario 2: one m3.2xlarge RI (16 units/h, 0.35 USD/h); two m3.xlarge (8 each) created first,
// then two m3.large (4 each), all for 10:00–11:00. Smallest first: both m3.large (8 units) are
// covered, then the remaining 8 units cover one m3.xlarge ('x1', the earlier); 'x2' is On-Demand.
// On demand 2 × 0.28 + 2 × 0.14 = 0.84; covered −0.28 − 0.14 − 0.14 = −0.56; fee 0.35:
// 0.84 − 0.56 + 0.35 = 0.63.
TEST_CASE("aws RI scenario 2: a regional m3.2xlarge RI covers the smallest sizes first",
          "[provider_examples][aws][commitments]") {
  ExampleRun ex;
  ex.import("aws-ri-examples.json");
  const std::string t0 = "2025-12-01T10:00:00Z", t1 = "2025-12-01T11:00:00Z";
  ex.replay(ri_commit("ri-2", t0, "m3.2xlarge") + ri_create("x1", "m3.xlarge", t0) +
                ri_create("x2", "m3.xlarge", t0) + ri_create("l1", "m3.large", t0) +
                ri_create("l2", "m3.large", t0) + ri_destroy("x1", t1) + ri_destroy("x2", t1) +
                ri_destroy("l1", t1) + ri_destroy("l2", t1),
            t1);
  CHECK(ex.quantity("acme", "commitment_covered", "l1") == dec("3600"));
  CHECK(ex.quantity("acme", "commitment_covered", "l2") == dec("3600"));
  CHECK(ex.quantity("acme", "commitment_covered", "x1") == dec("3600"));
  CHECK(ex.quantity("acme", "commitment_covered", "x2") == dec("0"));
  CHECK(ex.billed("acme") == dec("0.63"));
}

// Scenario 1's c4.large on a c4.xlarge, with m4: one m4.large RI (4 units/h, 0.06 USD/h) on one
// m4.xlarge (8 units/h) for an hour: half its usage, 1800 s, is covered (−0.10); the other half is
// On-Demand: 0.20 − 0.10 + 0.06 = 0.16.
TEST_CASE("aws RI scenario 1: a smaller size's RI covers part of a larger instance's hour",
          "[provider_examples][aws][commitments]") {
  ExampleRun ex;
  ex.import("aws-ri-examples.json");
  const std::string t0 = "2025-12-01T10:00:00Z", t1 = "2025-12-01T11:00:00Z";
  ex.replay(ri_commit("ri-3", t0, "m4.large") + ri_run("a", "m4.xlarge", t0, t1), t1);
  CHECK(ex.quantity("acme", "commitment_covered", "a") == dec("1800"));
  CHECK(ex.billed("acme") == dec("0.16"));
}

// Use it or lose it, and the term's end: an all-upfront m4.xlarge RI (876 USD) from
// 2025-12-01T00:00Z runs 8760 h to 2026-12-01T00:00Z. One m4.xlarge runs 2026-11-30T23:00Z to
// 2026-12-01T01:00Z: its hour before the term's end is covered (−0.20), the hour after it is
// On-Demand (0.20). Every other hour of the term is unused: 8759 unused rows of 8 × 3600 = 28800
// normalized unit-seconds each; no hourly fee (all upfront). Billed: 876 + 0.40 − 0.20 = 876.20.
TEST_CASE("aws RI: unused hours are rows of their own, and usage after the term is on demand",
          "[provider_examples][aws][commitments]") {
  ExampleRun ex;
  ex.import("aws-ri-examples.json");
  ex.replay(ri_commit("ri-4", "2025-12-01T00:00:00Z", "m4.xlarge", "all_upfront") +
                ri_run("a", "m4.xlarge", "2026-11-30T23:00:00Z", "2026-12-01T01:00:00Z"),
            "2026-12-01T02:00:00Z");
  CHECK(ex.quantity("acme", "commitment_covered", "a") == dec("3600"));
  CHECK(ex.quantity("acme", "settlement", "a") == dec("7200"));
  CHECK(ri_count_rows(ex, "commitment_unused") == 8759);
  CHECK(ex.quantity("acme", "commitment_unused") == dec("28800") * dec("8759"));
  CHECK(ri_count_rows(ex, "commitment_fee") == 0);
  CHECK(ex.billed("acme", "commitment") == dec("876"));
  CHECK(ex.billed("acme") == dec("876.20"));
}

// A commit the catalog has no offer for is rejected with the reason; a bad term names the field.
TEST_CASE("aws RI: a commit for an offer the catalog lacks is rejected with the reason",
          "[provider_examples][aws][commitments]") {
  ExampleRun ex;
  ex.import("aws-ri-examples.json");
  std::string line = ri_commit("ri-x", "2025-12-01T10:00:00Z", "m3.large");
  line.replace(line.find("\"1y\""), 4, "\"3y\"");
  ex.replay(R"({"id":"t1","time":"2025-12-01T09:00:00Z","type":"topup","account":"acme",)"
            R"("amount":"100","currency":"USD"})"
            "\n" +
            line);
  const auto rejects = ex.rows("rejects");
  REQUIRE(rejects.size() == 1);
  CHECK(rejects[0].at("reason").get<std::string>().find(
            "no commitment offer for aws m3.large in us-east-1, 3y no_upfront") !=
        std::string::npos);
}

// explain names the commitment_price row (id and source) and the commit event behind a covered
// and an unused row, and re-derives their amounts: the covered row is −(0.20 × 1800 / 3600) =
// −0.10, the on-demand record of the seconds it covers.
TEST_CASE("aws RI: explain a covered and an unused row", "[provider_examples][aws][commitments]") {
  ExampleRun ex;
  ex.import("aws-ri-examples.json");
  const std::string t0 = "2025-12-01T10:00:00Z", t1 = "2025-12-01T11:00:00Z";
  ex.replay(ri_commit("ri-3", t0, "m4.large") + ri_run("a", "m4.xlarge", t0, t1),
            "2025-12-01T12:00:00Z");
  std::int64_t covered = 0, unused = 0;
  for (const auto& row : ex.charges("acme")) {
    if (row.at("kind") == "commitment_covered") covered = row.at("id").get<std::int64_t>();
    if (row.at("kind") == "commitment_unused") unused = row.at("id").get<std::int64_t>();
  }
  REQUIRE(covered > 0);
  REQUIRE(unused > 0);
  for (const std::int64_t id : {covered, unused}) {
    const auto x = ex.explain(id);
    INFO(x.dump(2));
    CHECK(x.at("commitment_row").at("subject") == "m4.large");
    CHECK(x.at("commitment_row").at("source").get<std::string>().rfind("TEST FIXTURE", 0) == 0);
    CHECK(x.at("events").at(0).at("id") == "ri-3");
    CHECK(x.at("check").at("derivation") == "verified");
    gpubill::testing::check_schema("explain.schema.json", x);
  }
  const auto x = ex.explain(covered);
  CHECK(dec(x.at("charge").at("exact_amount")) == dec("-0.1"));
  CHECK(x.at("events").size() == 2);  // the commit and the instance's create
}
