// AWS: a Spot Instance that Amazon EC2 interrupts in its first hour is not charged, end to end
// through the CLI. Source: "Billing for interrupted Spot Instances"
// (docs.aws.amazon.com/AWSEC2/latest/UserGuide/billing-for-interrupted-spot-instances.html, read
// 2026-12-03): if you stop or terminate it, Windows and Linux (excluding SUSE) are "Charged for
// the seconds used"; "If the Amazon EC2 interrupts the Spot Instance", "Interrupted in the first
// hour: No charge", "Interrupted in any hour after the first hour: Charged for the seconds
// used". The bundled catalog's p3.2xlarge us-east-1 spot price in March 2023 is 1.1711 USD/h;
// AWS settles per month (the policy row), so the month's records are rounded once.
#include <catch2/catch.hpp>

#include "provider_example.hpp"

using gpubill::testing::dec;
using gpubill::testing::ExampleRun;

namespace {

std::string spot_create(const std::string& id, const std::string& at) {
  return R"({"id":"c-)" + id + R"(","time":")" + at +
         R"(","type":"create","account":"acme","instance":")" + id +
         R"(","provider":"aws","region":"us-east-1","instance_type":"p3.2xlarge","mode":"spot"})"
         "\n";
}

std::string end_run(const std::string& type, const std::string& id, const std::string& at,
                    bool interrupted) {
  return R"({"id":")" + type + "-" + id + "-" + at + R"(","time":")" + at + R"(","type":")" + type +
         R"(","account":"acme","instance":")" + id + "\"" +
         (interrupted ? R"(,"interrupted":true)" : "") + "}\n";
}

// Σ billed of the instance's compute lines (settlements, credits, the month's rounding).
gpubill::Decimal compute_billed(ExampleRun& ex, const std::string& instance) {
  gpubill::Decimal sum;
  for (const auto& row : ex.charges("acme")) {
    if (row["instance"] == instance && row["component"] == "compute") {
      sum += dec(row["total_billed"]);
    }
  }
  return sum;
}

}  // namespace

TEST_CASE("aws: a Spot Instance EC2 interrupts in its first hour is not charged",
          "[provider_examples][aws][spot]") {
  ExampleRun ex;
  ex.replay(spot_create("a", "2023-03-01T10:30:00Z") +
                end_run("destroy", "a", "2023-03-01T11:15:00Z", true) +
                // The same run ended by the user: 2700 s at 1.1711 = 0.878325 → 0.88.
                spot_create("b", "2023-03-02T10:30:00Z") +
                end_run("destroy", "b", "2023-03-02T11:15:00Z", false) +
                // Interrupted after its first hour: the seconds used, 3660 s = 1.190618… → 1.19.
                spot_create("c", "2023-03-03T10:30:00Z") +
                end_run("destroy", "c", "2023-03-03T11:31:00Z", true),
            "2023-04-01T00:00:00Z");
  CHECK(compute_billed(ex, "a") == dec("0"));
  CHECK(compute_billed(ex, "b") == dec("0.88"));
  CHECK(compute_billed(ex, "c") == dec("1.19"));
  // The 10:30–11:00 record was settled at 11:00; the interruption credits it.
  const auto credits = ex.instance_charges("a", "interruption_credit");
  REQUIRE(credits.size() == 1);
  CHECK(dec(credits[0].at("billed_amount")) == dec("-0.58555"));
  const auto x = ex.explain(credits[0].at("id").get<std::int64_t>());
  CHECK(x["rule"]["source"].get<std::string>().find("billing-for-interrupted-spot-instances") !=
        std::string::npos);
  CHECK(ex.state("a", "destroy").at("reason").get<std::string>().find("compute not charged") !=
        std::string::npos);
}

TEST_CASE("aws: an interrupted stop is free in the first hour; a later run is not",
          "[provider_examples][aws][spot]") {
  ExampleRun ex;
  // Stopped by EC2 20 minutes after its launch (free), started again by the user, and
  // interrupted 10 minutes later: its launch was 40 minutes before, but it has run before, so
  // those 600 s are charged (0.195183… → with nothing else in the month, 0.20).
  ex.replay(spot_create("s", "2023-03-01T10:00:00Z") +
                end_run("stop", "s", "2023-03-01T10:20:00Z", true) +
                end_run("start", "s", "2023-03-01T10:30:00Z", false) +
                end_run("stop", "s", "2023-03-01T10:40:00Z", true),
            "2023-04-01T00:00:00Z");
  CHECK(compute_billed(ex, "s") == dec("0.20"));
}

TEST_CASE("interrupted applies to running spot instances only", "[provider_examples][spot]") {
  ExampleRun ex;
  ex.replay(
      R"({"id":"c1","time":"2023-03-01T10:00:00Z","type":"create","account":"acme","instance":"p","provider":"aws","region":"us-east-1","instance_type":"p3.2xlarge","mode":"payg"}
{"id":"d1","time":"2023-03-01T10:20:00Z","type":"destroy","account":"acme","instance":"p","interrupted":true}
)",
      "2023-03-02T00:00:00Z");
  const auto rejects = ex.rows("rejects");
  REQUIRE(rejects.size() == 1);
  CHECK(rejects[0].at("reason").get<std::string>().find("interrupted applies to spot instances") !=
        std::string::npos);
}

TEST_CASE("aws: an interruption credits the hour settled by an earlier replay of the log",
          "[provider_examples][aws][spot]") {
  // The 10:30–11:00 record is settled by the first replay (up to 11:05); the saved state keeps
  // what it would credit, so the interruption in the second part bills as the whole log does.
  ExampleRun ex;
  ex.replay(spot_create("a", "2023-03-01T10:30:00Z"), "2023-03-01T11:05:00Z");
  ex.replay(end_run("destroy", "a", "2023-03-01T11:15:00Z", true), "2023-04-01T00:00:00Z");
  CHECK(compute_billed(ex, "a") == dec("0"));
  REQUIRE(ex.instance_charges("a", "interruption_credit").size() == 1);
}
