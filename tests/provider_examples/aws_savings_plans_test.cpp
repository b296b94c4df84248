// AWS Savings Plans applied in replay (issue 29), end to end through the CLI, by the rules of
// "Understanding how Savings Plans apply to your AWS usage"
// (docs.aws.amazon.com/savingsplans/latest/userguide/sp-applying.html): plans apply after
// reserved instances; EC2 Instance Savings Plans before Compute Savings Plans; within them "to
// your highest savings percentage first", equal percentages "to the first usage with the lowest
// Savings Plans rate"; "until there are no more remaining usages, or your commitment is
// exhausted. Any remaining usage is charged at the On-Demand rates."
// tests/data/aws-sp-examples.json holds the document's illustrative rates (its "Pricing example":
// c5.9xlarge on demand 4.00, Compute SP 2.00 (50 %), EC2 Instance SP 1.00 (75 %); c5.24xlarge
// 10.00, 8.00 (20 %), 6.00 (40 %) USD/h, in us-east-1) and, marked as examples, a c5.large (0.10,
// Compute SP 0.05: 50 %) and a c5.9xlarge in us-west-2 (4.00; 2.00 and 1.00). The document's
// Fargate usage is not billed by gpubill and is left out.
#include <catch2/catch.hpp>

#include <string>

#include "provider_example.hpp"

using gpubill::testing::dec;
using gpubill::testing::ExampleRun;

namespace {

const std::string kSpT0 = "2025-12-01T10:00:00Z", kSpT1 = "2025-12-01T11:00:00Z";

std::string sp_commit(const std::string& id, const std::string& plan, const std::string& amount,
                      const std::string& payment = "no_upfront", const std::string& scope = "") {
  return R"({"id":")" + id + R"(","time":")" + kSpT0 +
         R"(","type":"commit","account":"acme","provider":"aws","plan":")" + plan + "\"" + scope +
         R"(,"term":"1y","payment":")" + payment + R"(","amount":")" + amount +
         R"(","currency":"USD"})" + "\n";
}

std::string sp_create(const std::string& instance, const std::string& type,
                      const std::string& region = "us-east-1", const std::string& at = kSpT0) {
  return R"({"id":"c-)" + instance + R"(","time":")" + at +
         R"(","type":"create","account":"acme","instance":")" + instance +
         R"(","provider":"aws","region":")" + region + R"(","instance_type":")" + type +
         R"(","mode":"payg"})" + "\n";
}

std::string sp_destroy(const std::string& instance, const std::string& at = kSpT1) {
  return R"({"id":"d-)" + instance + R"(","time":")" + at +
         R"(","type":"destroy","account":"acme","instance":")" + instance + "\"}\n";
}

}  // namespace

// The document's Scenario 1 ("You purchase a one year Compute Savings Plan with a $25.00/hour
// commitment ... all of your usage will be covered by Savings Plans ... You will pay $25.00 in
// that hour"): both instances covered whole (2.00 + 8.00 of the 25.00); without the Fargate
// usage gpubill does not bill, 15.00 of the hour is unused. The hour costs 25.00: on demand
// 4 + 10, offset −4 −10, the commitment 25.
TEST_CASE("aws savings plans scenario 1: a 25 USD/h Compute plan covers all the usage",
          "[provider_examples][aws][commitments][savings_plans]") {
  ExampleRun ex;
  ex.import("aws-sp-examples.json");
  ex.replay(sp_commit("sp-1", "compute", "25.00") + sp_create("w", "c5.24xlarge") +
                sp_create("l", "c5.9xlarge") + sp_destroy("w") + sp_destroy("l"),
            kSpT1);
  CHECK(ex.quantity("acme", "commitment_covered", "l") == dec("3600"));
  CHECK(ex.quantity("acme", "commitment_covered", "w") == dec("3600"));
  CHECK(ex.quantity("acme", "commitment_unused") == dec("15"));
  CHECK(ex.billed("acme", "compute") == dec("0"));
  CHECK(ex.billed("acme") == dec("25"));
}

// A 5 USD/h Compute plan: the c5.9xlarge saves 50 %, the c5.24xlarge 20 %: the c5.9xlarge is
// covered first, whole (2.00), though created second; the 3.00 left pays 3.00 × 3600 / 8.00 =
// 1350 s of the c5.24xlarge. The rest is on demand: 2250 s × 10 / 3600 = 6.25; the hour costs
// 6.25 + 5.00 = 11.25.
TEST_CASE("aws savings plans: the highest savings percentage is covered first, then on demand",
          "[provider_examples][aws][commitments][savings_plans]") {
  ExampleRun ex;
  ex.import("aws-sp-examples.json");
  ex.replay(sp_commit("sp-1", "compute", "5.00") + sp_create("w", "c5.24xlarge") +
                sp_create("l", "c5.9xlarge") + sp_destroy("w") + sp_destroy("l"),
            kSpT1);
  CHECK(ex.quantity("acme", "commitment_covered", "l") == dec("3600"));
  CHECK(ex.quantity("acme", "commitment_covered", "w") == dec("1350"));
  CHECK(ex.quantity("acme", "commitment_unused") == dec("0"));
  CHECK(ex.billed("acme", "compute") == dec("6.25"));
  CHECK(ex.billed("acme") == dec("11.25"));
  // Every line re-derives from its rows: the covered c5.24xlarge's effective cost is
  // −3.75 + 8.00 × 1350 / 3600 = −0.75; the fee is the plan's 5.00.
  for (const auto& row : ex.charges("acme")) {
    const auto x = ex.explain(row.at("id").get<std::int64_t>());
    INFO(x.dump());
    CHECK(x.at("check").at("derivation") == "verified");
    CHECK(x.at("mismatches").empty());
  }
}

// An EC2 Instance plan of c5 in us-east-1 (1 USD/h) and a Compute plan (8 USD/h), the Compute
// plan bought first: the EC2 Instance plan applies first and covers the c5.9xlarge (75 %, 1.00);
// the Compute plan then covers the c5.24xlarge whole (8.00). The hour: 1 + 8 = 9.00. (Were the
// Compute plan applied first, it would take the c5.9xlarge at 2.00 and leave 1350 s of the
// c5.24xlarge on demand.)
TEST_CASE("aws savings plans: EC2 Instance plans apply before Compute plans",
          "[provider_examples][aws][commitments][savings_plans]") {
  ExampleRun ex;
  ex.import("aws-sp-examples.json");
  ex.replay(sp_commit("sp-c", "compute", "8.00") +
                sp_commit("sp-e", "ec2_instance", "1.00", "no_upfront",
                          R"(,"region":"us-east-1","family":"c5")") +
                sp_create("w", "c5.24xlarge") + sp_create("l", "c5.9xlarge") + sp_destroy("w") +
                sp_destroy("l"),
            kSpT1);
  CHECK(ex.quantity("acme", "commitment_covered", "l") == dec("3600"));
  CHECK(ex.quantity("acme", "commitment_covered", "w") == dec("3600"));
  CHECK(ex.quantity("acme", "commitment_unused") == dec("0"));
  CHECK(ex.billed("acme", "compute") == dec("0"));
  CHECK(ex.billed("acme") == dec("9"));
  for (const auto& row : ex.charges("acme")) {
    if (row.at("kind") != "commitment_covered") continue;
    // The plan that covered it names the row: the c5.9xlarge the EC2 Instance plan.
    CHECK(row.at("event_seqs").at(0) == (row.at("instance") == "l" ? 2 : 1));
  }
}

// Equal savings percentages: the c5.large (0.10 → 0.05) and the c5.9xlarge (4.00 → 2.00) both
// save 50 %; "the first usage with the lowest Savings Plans rate" is the c5.large (0.05). A
// 2 USD/h Compute plan covers it whole, then 1.95 × 3600 / 2.00 = 3510 s of the c5.9xlarge; its
// other 90 s are on demand (0.10). The hour: 0.10 + 2.00 = 2.10.
TEST_CASE("aws savings plans: equal savings go to the lower rate first",
          "[provider_examples][aws][commitments][savings_plans]") {
  ExampleRun ex;
  ex.import("aws-sp-examples.json");
  ex.replay(sp_commit("sp-1", "compute", "2.00") + sp_create("l", "c5.9xlarge") +
                sp_create("s", "c5.large") + sp_destroy("l") + sp_destroy("s"),
            kSpT1);
  CHECK(ex.quantity("acme", "commitment_covered", "s") == dec("3600"));
  CHECK(ex.quantity("acme", "commitment_covered", "l") == dec("3510"));
  CHECK(ex.billed("acme", "compute") == dec("0.1"));
  CHECK(ex.billed("acme") == dec("2.1"));
}

// Scope: an EC2 Instance plan of c5 in us-east-1 does not reach a c5.9xlarge in us-west-2 (all
// 2.00 of it unused, the instance on demand: 4.00); a Compute plan does, at us-west-2's rate.
TEST_CASE("aws savings plans: an EC2 Instance plan stays in its region, a Compute plan does not",
          "[provider_examples][aws][commitments][savings_plans]") {
  {
    ExampleRun ex;
    ex.import("aws-sp-examples.json");
    ex.replay(sp_commit("sp-e", "ec2_instance", "2.00", "no_upfront",
                        R"(,"region":"us-east-1","family":"c5")") +
                  sp_create("o", "c5.9xlarge", "us-west-2") + sp_destroy("o"),
              kSpT1);
    CHECK(ex.quantity("acme", "commitment_covered") == dec("0"));
    CHECK(ex.quantity("acme", "commitment_unused") == dec("2"));
    CHECK(ex.billed("acme") == dec("6"));
  }
  ExampleRun ex;
  ex.import("aws-sp-examples.json");
  ex.replay(sp_commit("sp-c", "compute", "2.00") + sp_create("o", "c5.9xlarge", "us-west-2") +
                sp_destroy("o"),
            kSpT1);
  CHECK(ex.quantity("acme", "commitment_covered", "o") == dec("3600"));
  CHECK(ex.billed("acme") == dec("2"));
}

// All upfront: 3 USD/h × 8760 h = 26280 USD at purchase and nothing hourly. A c5.9xlarge for
// 30 minutes uses 2.00 × 1800 / 3600 = 1.00 of the hour; 2.00 are unused. Over two hours (the
// second idle) nothing more is billed: 26280 in all.
TEST_CASE("aws savings plans: all upfront is paid at purchase; unused hours bill nothing more",
          "[provider_examples][aws][commitments][savings_plans]") {
  ExampleRun ex;
  ex.import("aws-sp-examples.json");
  ex.replay(sp_commit("sp-1", "compute", "3.00", "all_upfront") + sp_create("l", "c5.9xlarge") +
                sp_destroy("l", "2025-12-01T10:30:00Z"),
            "2025-12-01T12:00:00Z");
  CHECK(ex.quantity("acme", "commitment_covered", "l") == dec("1800"));
  CHECK(ex.quantity("acme", "commitment_unused") == dec("5"));  // 2.00 + 3.00
  CHECK(ex.quantity("acme", "commitment_fee") == dec("0"));
  CHECK(ex.billed("acme") == dec("26280"));
}

// A log replayed in two parts bills as it does whole: the plan is part of the saved state.
TEST_CASE("aws savings plans: a log replayed in two parts bills as it does whole",
          "[provider_examples][aws][commitments][savings_plans]") {
  const std::string first = sp_commit("sp-1", "compute", "5.00") + sp_create("w", "c5.24xlarge") +
                            sp_create("l", "c5.9xlarge");
  const std::string second =
      sp_destroy("w", "2025-12-01T13:00:00Z") + sp_destroy("l", "2025-12-01T13:00:00Z");
  ExampleRun whole;
  whole.import("aws-sp-examples.json");
  whole.replay(first + second, "2025-12-01T14:00:00Z");
  ExampleRun parts;
  parts.import("aws-sp-examples.json");
  parts.replay(first, "2025-12-01T11:30:00Z");
  parts.replay(second, "2025-12-01T14:00:00Z");
  CHECK(parts.billed("acme") == whole.billed("acme"));
  // 3 hours of 11.25 and one idle hour of 5.00.
  CHECK(whole.billed("acme") == dec("38.75"));
}

// What the rules refuse, with the reason.
TEST_CASE("aws savings plans: a plan without rates, or partial upfront, is refused",
          "[provider_examples][aws][commitments][savings_plans]") {
  ExampleRun ex;
  ex.import("aws-sp-examples.json");
  // A top-up too: a replay that applies nothing fails as a whole.
  ex.replay(
      R"({"id":"t1","time":"2025-12-01T09:00:00Z","type":"topup","account":"acme","amount":"10.00","currency":"USD"})"
      "\n" +
          sp_commit("sp-p", "compute", "1.00", "partial_upfront") +
          sp_commit("sp-m", "ec2_instance", "1.00", "no_upfront",
                    R"(,"region":"us-east-1","family":"m5")"),
      kSpT1);
  const auto rejects = ex.rows("rejects");
  REQUIRE(rejects.size() == 2);
  CHECK(rejects[0].at("reason").get<std::string>().find("partial-upfront savings plan is not "
                                                        "modelled") != std::string::npos);
  CHECK(rejects[1].at("reason").get<std::string>().find(
            "no ec2_instance savings plan rates (1y no_upfront, USD) for aws family m5 in "
            "us-east-1") != std::string::npos);
}
