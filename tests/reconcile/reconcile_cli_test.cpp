// `gpubill reconcile` on the sample logs of fixtures/logs and the hand-written exports of
// fixtures/invoices (fixtures/invoices/README.md lists what each one plants): exactly the planted
// differences with their rules, exit 4; a clean match of gpubill's own FOCUS export, exit 0; and
// a malformed export named by file, line and column, exit 1.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_run.hpp"
#include "json_schema.hpp"
#include "temp_dir.hpp"

using gpubill::testing::check_schema;
using gpubill::testing::run_cli;
using gpubill::testing::TempDir;

namespace {

const std::string kSource = GPUBILL_SOURCE_DIR;

// A database with the bundled catalog and the sample logs replayed (accounts corp, shop, acme,
// lab).
struct ReconcileDb {
  TempDir dir;
  std::string db = gpubill::testing::db_flag(dir);
  ReconcileDb() {
    const auto r = run_cli("replay" + db + " '" + kSource + "/fixtures/logs/aws-p3.jsonl' '" +
                           kSource + "/fixtures/logs/alibaba-gn5.jsonl' '" + kSource +
                           "/fixtures/logs/tencent-gn8-payg.jsonl' '" + kSource +
                           "/fixtures/logs/google-v100.jsonl' --until 2019-07-01T00:00:00+08:00");
    INFO(r.output);
    REQUIRE(r.status == 0);
  }
  gpubill::testing::CliRun reconcile(const std::string& account, const std::string& invoice,
                                     const std::string& more = "") const {
    return run_cli(
        "reconcile" + db + " --account " + account + " --invoice '" + invoice + "'" + more,
        gpubill::testing::Stderr::merged);
  }
};

std::string invoice(const std::string& name) {
  return kSource + "/fixtures/invoices/" + name;
}

// One difference as "kind resource meter category period_start rule difference".
std::vector<std::string> differences(const nlohmann::json& doc) {
  std::vector<std::string> out;
  for (const auto& d : doc["differences"]) {
    out.push_back(d["kind"].get<std::string>() + " " + d["resource"].get<std::string>() + " " +
                  d["meter"].get<std::string>() + " " + d["category"].get<std::string>() + " " +
                  d["period_start"].get<std::string>() + " " + d["rule"].get<std::string>() + " " +
                  d["difference"].get<std::string>());
  }
  return out;
}

nlohmann::json json_of(const gpubill::testing::CliRun& r) {
  INFO(r.output);
  REQUIRE(r.status == 4);
  auto doc = nlohmann::json::parse(r.output);
  check_schema("reconcile.schema.json", doc);
  return doc;
}

}  // namespace

TEST_CASE(
    "reconcile: a FOCUS export with a missing hour, an extra line, another price, a "
    "discount and a whole hour billed",
    "[reconcile][cli]") {
  ReconcileDb db;
  const auto doc =
      json_of(db.reconcile("acme", invoice("tencent-gn8-payg.focus.csv"), " --format json"));
  CHECK(doc["summary"]["invoice_format"] == "focus");
  CHECK(doc["summary"]["granularity"] == "hour");
  CHECK(doc["summary"]["tolerance"] == "0.01");
  CHECK(doc["summary"]["matched"] == 29);
  CHECK(differences(doc) ==
        std::vector<std::string>{
            "amount gn8-a compute usage 2019-03-01T08:00:00Z price_row 0.62",
            "amount gn8-a compute usage 2019-03-01T09:00:00Z discount -3.09",
            "amount gn8-b compute usage 2019-03-31T14:00:00Z settlement_cycle 3.77",
            "missing gn8-b compute usage 2019-03-31T16:00:00Z unexplained -15.09",
            "extra gn8-c compute usage 2019-03-31T17:00:00Z unexplained 15.09"});
  const auto& price = doc["differences"][0];
  CHECK(price["unit_price"] == "30.88");
  CHECK(price["invoice_rate"] == "31.5");
  CHECK(price["price_unit"] == "hour");
  CHECK_THAT(price["explanation"].get<std::string>(),
             Catch::StartsWith("price: gpubill priced it with price row ") &&
                 Catch::Contains("at 30.88 CNY/hour — the invoice's rate is 31.5"));
  CHECK_THAT(doc["differences"][2]["explanation"].get<std::string>(),
             Catch::Contains("the invoice bills 1 h, gpubill metered 2700 s (0.75 h)"));
  CHECK(doc["differences"][3]["invoice_line"].is_null());
  CHECK(doc["differences"][4]["invoice_line"] == 35);
}

TEST_CASE(
    "reconcile: an AWS Cost and Usage Report with a whole hour billed, another rate, an "
    "EBS volume and a missing hour",
    "[reconcile][cli]") {
  ReconcileDb db;
  const auto doc = json_of(db.reconcile("corp", invoice("aws-p3.cur.csv"), " --format json"));
  CHECK(doc["summary"]["invoice_format"] == "aws-cur");
  CHECK(doc["summary"]["ignored_lines"] == 1);  // the tax line
  CHECK(differences(doc) ==
        std::vector<std::string>{
            "amount p3-a compute usage 2018-01-10T10:00:00Z settlement_cycle 3.009",
            "amount p3-b compute usage 2018-02-01T00:00:00Z price_row 0.306",
            "extra vol-0a1b2c3d disk usage 2018-02-01T00:00:00Z unexplained 0.0136986",
            "missing p3-b compute usage 2018-02-01T01:00:00Z unexplained -3.06"});
  CHECK_THAT(doc["differences"][0]["explanation"].get<std::string>(),
             Catch::Contains("gpubill metered 60 s (0.0166666667 h) at the same 3.06 USD/hour, "
                             "settled half_up to 2 decimals once per month"));
  // gpubill's monthly rounding (−0.001) is within the tolerance; with none it is a rounding at
  // settlement the export does not have.
  const auto strict =
      json_of(db.reconcile("corp", invoice("aws-p3.cur.csv"), " --tolerance 0 --format json"));
  bool rounding = false;
  for (const auto& d : strict["differences"]) {
    if (d["category"] == "rounding") {
      rounding = true;
      CHECK(d["kind"] == "missing");
      CHECK(d["rule"] == "rounding");
      CHECK(d["gpubill_amount"] == "-0.001");
      CHECK(d["period_start"] == "2018-01-01T00:00:00Z");
    }
  }
  CHECK(rounding);
}

TEST_CASE(
    "reconcile: Google's BigQuery export with a credit, a disk, another GPU price and a "
    "missing GPU hour",
    "[reconcile][cli]") {
  ReconcileDb db;
  const auto doc = json_of(db.reconcile("lab", invoice("google-v100.bq.jsonl"), " --format json"));
  CHECK(doc["summary"]["invoice_format"] == "google-bq");
  CHECK(doc["summary"]["invoice_lines"] == 14);  // 13 rows and one credit
  CHECK(
      differences(doc) ==
      std::vector<std::string>{"extra v100-a compute credit 2019-06-01T00:00:00Z credit -0.5",
                               "extra v100-a-boot disk usage 2019-06-03T10:00:00Z unexplained 0.05",
                               "amount v100-a gpu usage 2019-06-03T11:00:00Z price_row 0.07",
                               "missing v100-a gpu usage 2019-06-03T12:00:00Z unexplained -2.48"});
}

TEST_CASE("reconcile: Alibaba's daily bill rounds each hour half up where gpubill rounds down",
          "[reconcile][cli]") {
  ReconcileDb db;
  const auto doc =
      json_of(db.reconcile("shop", invoice("alibaba-gn5.daily.csv"), " --format json"));
  CHECK(doc["summary"]["granularity"] == "day");
  CHECK(
      differences(doc) ==
      std::vector<std::string>{"extra d-rj9disk01 disk usage 2019-06-02T16:00:00Z unexplained 0.12",
                               "amount gn5-a compute usage 2019-06-02T16:00:00Z rounding 0.02"});
  CHECK_THAT(doc["differences"][1]["explanation"].get<std::string>(),
             Catch::Contains("is gpubill's exact amounts each rounded half_up to 2 decimals per "
                             "line (4.27) — gpubill billed 4.25 USD (rounding -0.015, down to 2 "
                             "decimals once per hour"));
}

TEST_CASE("reconcile: gpubill's own FOCUS export reconciles with no difference",
          "[reconcile][cli]") {
  ReconcileDb db;
  for (const std::string account : {"corp", "shop", "acme", "lab"}) {
    INFO(account);
    const auto focus = db.dir.file(account + ".csv");
    const auto exported =
        run_cli("charges" + db.db + " --account " + account + " --format focus > '" + focus + "'");
    REQUIRE(exported.status == 0);
    const auto r = db.reconcile(account, focus, " --format json");
    INFO(r.output);
    REQUIRE(r.status == 0);
    const auto doc = nlohmann::json::parse(r.output);
    check_schema("reconcile.schema.json", doc);
    CHECK(doc["summary"]["result"] == "match");
    CHECK(doc["differences"].empty());
    CHECK(doc["summary"]["gpubill_total"] == doc["summary"]["invoice_total"]);
  }
  const auto table = db.reconcile("corp", invoice("aws-p3.cur.csv"));
  CHECK(table.status == 4);
  CHECK_THAT(table.output, Catch::Contains("== differences ==") && Catch::Contains("price_row"));
  const auto csv = db.reconcile("corp", invoice("aws-p3.cur.csv"), " --format csv");
  CHECK(csv.status == 4);
  CHECK(csv.output.rfind("section,field,value,kind,resource,meter,", 0) == 0);
}

TEST_CASE("reconcile: a malformed export names its file, line and column", "[reconcile][cli]") {
  ReconcileDb db;
  const std::string focus_header =
      "BilledCost,BillingCurrency,ChargeCategory,ChargePeriodStart,ChargePeriodEnd,ResourceId\n";
  struct Case {
    std::string name, text, message;
  };
  std::vector<Case> cases = {
      {"missing-column.csv",
       "BilledCost,BillingCurrency,ChargeCategory,ChargePeriodStart,ResourceId\n1,CNY,Usage,"
       "2019-03-01T03:00:00Z,gn8-a\n",
       ":line 1: not a known billing export (FOCUS, AWS CUR, Google BigQuery JSON Lines, "
       "Alibaba, Tencent): closest is focus, missing column(s) 'ChargePeriodEnd'\n"},
      {"bad-amount2.csv",
       focus_header + "15.O9,CNY,Usage,2019-03-01T03:00:00Z,2019-03-01T04:00:00Z,gn8-a\n",
       ":line 2: field 'BilledCost': '15.O9' is not an amount (a decimal number)\n"},
      {"bad-time.csv",
       focus_header + "15.09,CNY,Usage,2019-03-01T03:00:00Z,2019-02-30T04:00:00Z,gn8-a\n",
       ":line 2: field 'ChargePeriodEnd': '2019-02-30T04:00:00Z' is not a timestamp (RFC 3339, "
       "or YYYY-MM-DD HH:MM:SS [UTC])\n"},
      {"bad.jsonl",
       R"({"usage_start_time":"2019-06-03 10:00:00 UTC","usage_end_time":"2019-06-03 11:00:00 UTC","cost":"x","currency":"USD"})"
       "\n",
       ":line 1: field 'cost': 'x' is not an amount (a decimal number)\n"},
  };
  cases.push_back(
      {"control.csv",
       focus_header + "15.09,CNY,Usage,2019-03-01T03:00:00Z,2019-03-01T04:00:00Z,gn8-\x1b[31ma\n",
       ":line 2: field 'ResourceId': contains the control character U+001B (byte 5)\n"});
  for (const auto& c : cases) {
    INFO(c.name);
    const auto path = db.dir.write(c.name, c.text);
    const auto r = db.reconcile("acme", path);
    CHECK(r.status == 1);
    CHECK(r.output == "gpubill: " + path + c.message);
  }
  const auto forced =
      db.reconcile("acme", db.dir.file("missing-column.csv"), " --invoice-format focus");
  CHECK(forced.status == 1);
  CHECK(forced.output == "gpubill: " + db.dir.file("missing-column.csv") +
                             ":line 1: not a focus header: missing column(s) 'ChargePeriodEnd'\n");
  const auto absent = db.reconcile("acme", db.dir.file("nothing.csv"));
  CHECK(absent.status == 1);
}

TEST_CASE(
    "reconcile: Tencent's bill in Beijing time with a line in USD and an hour booked an "
    "hour later; --month keeps one month of both sides",
    "[reconcile][cli]") {
  ReconcileDb db;
  const auto bill = invoice("tencent-gn8-payg.bill.csv");
  const auto doc = json_of(db.reconcile("acme", bill, " --format json"));
  CHECK(doc["summary"]["invoice_format"] == "tencent");
  CHECK(doc["summary"]["matched"] == 31);  // compute and system disk of every other hour
  CHECK(differences(doc) ==
        std::vector<std::string>{
            "amount gn8-a compute usage 2019-03-01T03:00:00Z currency -12.89",
            "missing gn8-b compute usage 2019-03-31T18:00:00Z period_boundary -3.77",
            "extra gn8-b compute usage 2019-03-31T19:00:00Z period_boundary 3.77"});
  CHECK(doc["differences"][1]["explanation"] ==
        "period boundary: the invoice books this 3.77 in the neighbouring period from "
        "2019-03-31T19:00:00Z (line 35)");
  // March and April in Beijing time: April starts at 2019-03-31T16:00Z.
  const auto march = json_of(db.reconcile("acme", bill, " --month 2019-03 --format json"));
  CHECK(march["summary"]["from"] == "2019-02-28T16:00:00Z");
  CHECK(march["summary"]["to"] == "2019-03-31T16:00:00Z");
  CHECK(march["summary"]["ignored_lines"] == 3);
  CHECK(
      differences(march) ==
      std::vector<std::string>{"amount gn8-a compute usage 2019-03-01T03:00:00Z currency -12.89"});
  const auto april = json_of(db.reconcile("acme", bill, " --month 2019-04 --format json"));
  CHECK(april["summary"]["ignored_lines"] == 31);
  CHECK(april["differences"].size() == 2);
  const auto bad_month = db.reconcile("acme", bill, " --month 2019-13");
  CHECK(bad_month.status == 1);
  CHECK_THAT(bad_month.output, Catch::Contains("--month") && Catch::Contains("is not a month"));
}

TEST_CASE(
    "reconcile: every sample log's account reconciles with its own FOCUS export (prepaid "
    "orders, renewals, refunds, arrears, minimums, amortisation rows)",
    "[reconcile][cli]") {
  TempDir dir;
  const std::string db = gpubill::testing::db_flag(dir);
  REQUIRE(run_cli("catalog import" + db + " '" + kSource + "/tests/data/huawei-fake-prices.json'")
              .status == 0);
  const auto replayed =
      run_cli("replay" + db + " '" + kSource + "/fixtures/logs/'*.jsonl '" + kSource +
              "/fixtures/logs/'*.csv --until 2019-07-01T00:00:00+08:00 --quiet");
  INFO(replayed.output);
  REQUIRE(replayed.status == 0);
  for (const std::string account :
       {"acme", "corp", "demo", "lab", "shop", "studio", "tutorial", "uni", "研究组"}) {
    INFO(account);
    const auto focus = dir.file("focus.csv");
    REQUIRE(
        run_cli("charges" + db + " --account '" + account + "' --format focus > '" + focus + "'")
            .status == 0);
    const auto r = run_cli("reconcile" + db + " --account '" + account + "' --invoice '" + focus +
                           "' --format json");
    INFO(r.output);
    REQUIRE(r.status == 0);
    const auto doc = nlohmann::json::parse(r.output);
    CHECK(doc["summary"]["result"] == "match");
    CHECK(doc["summary"]["keys"].get<int>() > 0);
  }
}
