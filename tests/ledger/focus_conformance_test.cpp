// The FOCUS export against the FOCUS 1.2 conformance checker (focus_conformance.hpp): no
// violation on every sample log of fixtures/logs and on generated 30-day logs; and the checker
// does fail, rule family by rule family, on rows broken on purpose.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "focus_conformance.hpp"
#include "gpubill/ledger/focus.hpp"
#include "gpubill/ledger/ledger.hpp"
#include "replay_fixture.hpp"
#include "replay_generator.hpp"

using namespace gpubill;
using namespace gpubill::testing;

namespace {

std::string sample(const std::string& name) {
  return std::string(GPUBILL_SOURCE_DIR) + "/fixtures/logs/" + name;
}

// The rows of the export, for the tests that look at them or break them.
FocusTable export_rows(Database& db) {
  return focus_export(db, query_charges(db));
}

std::size_t column(const std::string& name) {
  const auto& c = focus_columns();
  return static_cast<std::size_t>(std::find(c.begin(), c.end(), name) - c.begin());
}

}  // namespace

TEST_CASE("FOCUS conformance: every sample log", "[focus][conformance]") {
  // fixtures/logs/README.md: all of them into one database, Huawei's fake prices first.
  ReplayFixture fx;
  fx.import_catalog(data_path("huawei-fake-prices.json"));
  replay_logs(fx.db(),
              {sample("alibaba-gn5.jsonl"), sample("aws-p3.jsonl"), sample("huawei-p2.jsonl"),
               sample("tencent-gn8-arrears.jsonl"), sample("tencent-gn8-payg.jsonl"),
               sample("tencent-gn8-tutorial.jsonl"), sample("tencent-gn8.jsonl"),
               sample("tencent-gn8-prepaid.csv")},
              until("2019-07-01T00:00:00+08:00"));
  const auto checker = check_focus_export(fx.db());
  INFO(checker.summary());
  CHECK(checker.rows() > 100);
  CHECK(checker.violations().empty());

  // What the samples exercise: amortised prepaid orders and renewals, the recycle-bin renewal
  // paid on 3 March for February as a correction, rounding rows, the lifetime minimum.
  const auto table = export_rows(fx.db());
  std::map<std::string, int> kinds;
  int corrections = 0;
  for (const auto& row : table.rows) {
    ++kinds[*row[column("x_RowKind")]];
    if (row[column("ChargeClass")]) {
      ++corrections;
      CHECK(*row[column("BillingPeriodStart")] == "2019-02-28T16:00:00Z");  // March, UTC+8
    }
  }
  CHECK(kinds["amortisation"] > 1000);
  CHECK(kinds["rounding"] > 0);
  CHECK(corrections > 0);
}

TEST_CASE("FOCUS conformance: generated 30-day logs", "[focus][conformance]") {
  SECTION("the replay benchmark's generator (bench/gen_usage_log.cpp)") {
    ReplayFixture fx;
    const std::string log = (fx.dir().path() / "generated.jsonl").string();
    const std::string command = std::string("'") + GPUBILL_GEN_LOG_PATH +
                                "' --instances 40 --days 30 --seed 3 --out '" + log + "'";
    REQUIRE(std::system(command.c_str()) == 0);
    replay_logs(fx.db(), {log}, until("2019-02-01T00:00:00+08:00"));
    const auto checker = check_focus_export(fx.db());
    INFO(checker.summary());
    CHECK(checker.rows() > 1000);
    CHECK(checker.violations().empty());
  }
  SECTION("the property tests' generator: spot, prepaid, AWS, resizes, a month end") {
    GeneratorOptions o;
    o.seed = 12;
    o.accounts = 3;
    o.instances_per_account = 4;
    o.days = 30;
    o.with_aws = true;
    const auto log = LogGenerator(o).generate();
    ReplayFixture fx;
    fx.replay_text(join_lines(log.lines, 0, log.lines.size()), until_s(log.until));
    const auto checker = check_focus_export(fx.db());
    INFO(checker.summary());
    CHECK(checker.rows() > 1000);
    CHECK(checker.violations().empty());
  }
}

namespace {

// A conforming dataset to break: the tutorial's log (a payg run with a partial hour, a
// prepaid order amortised over its month).
struct Broken {
  FocusTable table;
  Broken() {
    ReplayFixture fx;
    replay_logs(fx.db(), {sample("tencent-gn8-tutorial.jsonl")},
                until("2019-07-01T00:00:00+08:00"));
    table = export_rows(fx.db());
  }
  // The first row with `column` = `value` (and `column2` = `value2`).
  FocusRow& first(const std::string& name, const std::string& value,
                  const std::string& name2 = "x_RowKind", const std::string& value2 = "") {
    for (auto& row : table.rows) {
      if (row[column(name)] == value && (value2.empty() || row[column(name2)] == value2)) {
        return row;
      }
    }
    FAIL("no row with " << name << " = " << value);
    throw std::logic_error("unreachable");
  }
  void set(FocusRow& row, const std::string& name, std::optional<std::string> value) {
    row[column(name)] = std::move(value);
  }
  // The rule ids the checker reports.
  std::set<std::string> rules() const {
    std::set<std::string> out;
    for (const auto& [rule, n] : check_focus(table.columns, table.rows).counts()) out.insert(rule);
    return out;
  }
};

}  // namespace

TEST_CASE("FOCUS conformance: the checker fails broken rows", "[focus][conformance]") {
  Broken b;
  REQUIRE(b.rules().empty());  // the dataset conforms as exported
  auto& usage = b.first("ChargeCategory", "Usage", "x_RowKind", "charge");
  REQUIRE(usage[column("ChargeCategory")] == "Usage");

  SECTION("columns: a mandatory one missing, a custom one without x_, FOCUS after custom") {
    auto columns = b.table.columns;
    columns[column("BilledCost")] = "Billed";
    columns[column("x_EventSeqs")] = "EventSeqs";  // the last column: after the x_ ones
    const auto c = FocusConformance(columns);
    std::set<std::string> rules;
    for (const auto& v : c.violations()) rules.insert(v.rule);
    CHECK(rules.count("CostAndUsage-D-006-M"));
    CHECK(rules.count("ColumnHandling-A-010-M"));
    CHECK(rules.count("ColumnHandling-A-013-O"));
    auto swapped = b.table.columns;
    std::swap(swapped[column("ListCost")], swapped[column("EffectiveCost")]);
    const auto order = FocusConformance(swapped).violations();
    REQUIRE_FALSE(order.empty());
    for (const auto& v : order) CHECK(v.rule == "ColumnOrder-gpubill");
  }
  SECTION("nullability") {
    b.set(usage, "BilledCost", std::nullopt);
    b.set(usage, "SkuPriceId", std::nullopt);
    b.set(usage, "PricingUnit", std::nullopt);
    b.set(usage, "ConsumedQuantity", std::nullopt);
    b.set(usage, "RegionName", std::nullopt);
    const auto rules = b.rules();
    CHECK(rules.count("BilledCost-C-003-M"));
    CHECK(rules.count("SkuPriceId-C-005-C"));
    CHECK(rules.count("PricingUnit-C-006-C"));
    CHECK(rules.count("ConsumedQuantity-C-006-C"));
    CHECK(rules.count("RegionName-C-005-C"));
  }
  SECTION("formats: decimal, date/time, currency, unit, key-value, empty string") {
    b.set(usage, "ListUnitPrice", "+15.09");
    b.set(usage, "ChargePeriodStart", "2019-01-31 14:00:00");
    b.set(usage, "BillingCurrency", "yuan");
    b.set(usage, "PricingUnit", "Mbps-Hours");
    b.set(usage, "ConsumedUnit", "seconds");
    b.set(usage, "SkuPriceDetails", R"({"InstanceType": {"nested": 1}})");
    b.set(usage, "ServiceName", "");
    const auto rules = b.rules();
    CHECK(rules.count("ListUnitPrice-C-002-M"));
    CHECK(rules.count("ChargePeriodStart-C-002-M"));
    CHECK(rules.count("CurrencyFormat-A-001-C"));
    CHECK(rules.count("PricingUnit-C-003-O"));
    CHECK(rules.count("ConsumedUnit-C-003-O"));
    CHECK(rules.count("SkuPriceDetails-C-001-M"));
    CHECK(rules.count("NullHandling-A-002-M"));
  }
  SECTION("units FOCUS does not know: Lifetime, Order, Mbps-Seconds") {
    for (const char* unit : {"Lifetime", "Order", "Mbps-Seconds", "GBs", "gigabyte-Hours"}) {
      INFO(unit);
      b.set(usage, "PricingUnit", unit);
      CHECK(b.rules().count("PricingUnit-C-003-O"));
    }
  }
  SECTION("allowed values") {
    b.set(usage, "ChargeCategory", "Use");
    b.set(usage, "ChargeClass", "Refund");
    b.set(usage, "PricingCategory", "On-Demand");
    b.set(usage, "ServiceSubcategory", "Disk");
    const auto rules = b.rules();
    CHECK(rules.count("ChargeCategory-C-003-M"));
    CHECK(rules.count("ChargeClass-C-005-C"));
    CHECK(rules.count("PricingCategory-C-007-M"));
    CHECK(rules.count("ServiceSubcategory-C-003-M"));
  }
  SECTION("ListCost = ListUnitPrice × PricingQuantity, and ContractedCost likewise") {
    b.set(usage, "PricingQuantity", "0.016666666667");
    b.set(usage, "ListUnitPrice", "3.06");
    b.set(usage, "ContractedUnitPrice", "3.06");
    b.set(usage, "ListCost", "0.051");
    b.set(usage, "ContractedCost", "0.051");
    const auto rules = b.rules();
    CHECK(rules.count("ListCost-C-009-C"));
    CHECK(rules.count("ContractedCost-C-009-C"));
  }
  SECTION("a purchase covering future use with EffectiveCost = BilledCost") {
    auto& order = b.first("ChargeCategory", "Purchase");
    b.set(order, "EffectiveCost", order[column("BilledCost")]);
    b.set(order, "PricingCurrencyEffectiveCost", order[column("BilledCost")]);
    const auto rules = b.rules();
    CHECK(rules.count("EffectiveCost-C-005-C"));
    CHECK(rules.count("PricingCurrencyEffectiveCost-C-005-M"));
    CHECK(rules.count("EffectiveCost-total-gpubill"));  // the cost now counts twice
  }
  SECTION("an amortisation that loses a cent") {
    auto& slice = b.first("x_RowKind", "amortisation");
    const Decimal share = Decimal::parse(*slice[column("EffectiveCost")]);
    b.set(slice, "EffectiveCost", (share - Decimal::parse("0.01")).to_string());
    b.set(slice, "PricingCurrencyEffectiveCost", (share - Decimal::parse("0.01")).to_string());
    const auto rules = b.rules();
    CHECK(rules.count("EffectiveCost-amortisation-gpubill"));
    CHECK(rules.count("EffectiveCost-total-gpubill"));
  }
  SECTION("billed above list (negative savings)") {
    b.set(usage, "BilledCost", "1000000");
    CHECK(b.rules().count("BilledCost-savings-gpubill"));
  }
  SECTION("a charge period outside its billing period without ChargeClass Correction") {
    b.set(usage, "BillingPeriodStart", "2030-01-01T00:00:00Z");
    b.set(usage, "BillingPeriodEnd", "2030-02-01T00:00:00Z");
    CHECK(b.rules().count("ChargeClass-C-004-C"));
  }
  SECTION("ids: a SkuPriceId with two SkuIds, an invoice of two accounts") {
    auto& other = b.table.rows.back();
    REQUIRE(&other != &usage);
    b.set(other, "SkuPriceId", usage[column("SkuPriceId")]);
    b.set(other, "SkuId", "another/sku");
    b.set(other, "InvoiceId", usage[column("InvoiceId")]);
    b.set(other, "BillingAccountId", "someone-else");
    const auto rules = b.rules();
    CHECK(rules.count("SkuPriceId-C-008-M"));
    CHECK(rules.count("InvoiceId-C-007-C"));
  }
}

TEST_CASE("FOCUS conformance: a forecast hour is on no invoice", "[focus][conformance]") {
  // InvoiceId MUST be null for a charge on no invoice (invoiceid.md): a forecast row with one
  // breaks that, and without one it breaks nothing.
  Broken b;
  auto& slice = b.first("x_RowKind", "amortisation");
  b.set(slice, "x_RowKind", "forecast");
  CHECK(b.rules().count("InvoiceId-forecast-gpubill"));
  b.set(slice, "InvoiceId", std::nullopt);
  CHECK(b.rules().empty());
}

TEST_CASE("FOCUS conformance: UnitFormat's examples pass the unit check", "[focus][conformance]") {
  // attributes/unit_format.md: the three formats, a quantity, an interval; and gpubill's units.
  Broken b;
  auto& usage = b.first("ChargeCategory", "Usage", "x_RowKind", "charge");
  for (const char* unit : {"GB", "Seconds", "GB-Hours", "MB-Days", "GB/Hour", "PB/Day",
                           "1000 Tokens", "1000 Characters", "Units/3 Months", "Requests/Day",
                           "GPU-Hours", "3600 Mb", "Mb", "Instances", "Units", "Months"}) {
    INFO(unit);
    b.set(usage, "ConsumedUnit", unit);
    CHECK(b.rules().empty());
  }
}

TEST_CASE("FOCUS conformance: a spot interruption's credit", "[focus][conformance]") {
  // AWS does not charge a Spot Instance EC2 interrupts in its first hour: the hour settled at
  // 11:00 is credited back at the interruption, a Credit row.
  ReplayFixture fx;
  fx.replay_text(
      R"({"id":"c1","time":"2023-03-01T10:30:00Z","type":"create","account":"acme","instance":"a","provider":"aws","region":"us-east-1","instance_type":"p3.2xlarge","mode":"spot"}
{"id":"d1","time":"2023-03-01T11:15:00Z","type":"destroy","account":"acme","instance":"a","interrupted":true}
)",
      until("2023-04-01T00:00:00Z"));
  const auto checker = check_focus_export(fx.db());
  INFO(checker.summary());
  CHECK(checker.violations().empty());
  const auto table = export_rows(fx.db());
  int credits = 0;
  for (const auto& row : table.rows) {
    if (*row[column("ChargeCategory")] == "Credit") {
      ++credits;
      CHECK(*row[column("BilledCost")] == "-0.58555");
    }
  }
  CHECK(credits == 1);
}
