// The FOCUS export of a replay with a commitment (issue 29) against the FOCUS 1.2 conformance
// checker's commitment rules (focus_conformance.hpp), and its EffectiveCost worked out by hand.
// Bundled catalog: AWS g4dn.xlarge us-east-1 on demand 0.526 USD/h; its 1-year standard RIs: no
// upfront 0.331 USD/h, all upfront 2709 USD.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>

#include "focus_conformance.hpp"
#include "gpubill/ledger/focus.hpp"
#include "gpubill/ledger/ledger.hpp"
#include "replay_fixture.hpp"

using namespace gpubill;
using namespace gpubill::testing;

namespace {

std::size_t col(const std::string& name) {
  const auto& c = focus_columns();
  return static_cast<std::size_t>(std::find(c.begin(), c.end(), name) - c.begin());
}

Decimal dec(const std::optional<std::string>& cell) {
  return cell ? Decimal::parse(*cell) : Decimal{};
}

std::string commit_line(const std::string& payment) {
  return R"({"id":"ri-1","time":"2025-12-01T00:00:00Z","type":"commit","account":"acme","provider":"aws","region":"us-east-1","instance_type":"g4dn.xlarge","term":"1y","payment":")" +
         payment + R"(","class":"standard","count":1})" + "\n";
}

// One g4dn.xlarge 10:00–10:30 on 2025-12-01: the RI covers its 1800 s, 1800 s are unused.
const std::string kRun =
    R"({"id":"c1","time":"2025-12-01T10:00:00Z","type":"create","account":"acme","instance":"a","provider":"aws","region":"us-east-1","instance_type":"g4dn.xlarge","mode":"payg"})"
    "\n"
    R"({"id":"d1","time":"2025-12-01T10:30:00Z","type":"destroy","account":"acme","instance":"a"})"
    "\n";

}  // namespace

// No upfront, 12 hours (00:00–12:00): 12 fee rows of 0.331 (Purchase, Recurring, EffectiveCost 0);
// 11 wholly unused hours (Unused, 3600 Seconds, EffectiveCost 0.331 each); the hour 10–11 shares
// its 0.331 by seconds: Used 1800 s → 0.1655, Unused 1800 s → 0.1655. The covered row offsets
// 1800 s at 0.526 = 0.263 (BilledCost −0.263) and costs −0.263 + 0.1655 = −0.0975 effective.
TEST_CASE("FOCUS: a no-upfront RI's rows conform, Used and Unused with their quantities",
          "[focus][conformance][commitments]") {
  ReplayFixture fx;
  fx.replay_text(commit_line("no_upfront") + kRun, until("2025-12-01T12:00:00Z"));
  const auto checker = check_focus_export(fx.db());
  INFO(checker.summary());
  CHECK(checker.violations().empty());

  const auto table = focus_export(fx.db(), query_charges(fx.db()));
  std::map<std::string, int> status;
  Decimal billed, effective;
  for (const auto& row : table.rows) {
    billed += dec(row[col("BilledCost")]);
    effective += dec(row[col("EffectiveCost")]);
    if (!row[col("CommitmentDiscountId")]) continue;
    CHECK(*row[col("CommitmentDiscountId")] == "aws/acme/ri-1");
    CHECK(*row[col("CommitmentDiscountName")] == "ri-1");
    CHECK(*row[col("CommitmentDiscountType")] == "Reserved Instance");
    CHECK(*row[col("CommitmentDiscountCategory")] == "Usage");
    const auto& s = row[col("CommitmentDiscountStatus")];
    ++status[s.value_or("null")];
    if (s == "Used") {
      CHECK(*row[col("CommitmentDiscountQuantity")] == "1800");
      CHECK(*row[col("CommitmentDiscountUnit")] == "Seconds");
      CHECK(dec(row[col("BilledCost")]) == Decimal::parse("-0.263"));
      CHECK(dec(row[col("EffectiveCost")]) == Decimal::parse("-0.0975"));
      CHECK(*row[col("PricingCategory")] == "Committed");
    }
    if (s == "Unused") CHECK(!row[col("ConsumedQuantity")]);
    if (*row[col("x_ChargeKind")] == "commitment_fee") {
      CHECK(*row[col("ChargeFrequency")] == "Recurring");
      CHECK(*row[col("CommitmentDiscountQuantity")] == "3600");
      CHECK(dec(row[col("EffectiveCost")]) == Decimal{});
    }
  }
  CHECK(status["Used"] == 1);
  CHECK(status["Unused"] == 12);  // 11 whole hours and half of 10–11
  // No upfront: what is billed is what is amortised, hour by hour.
  CHECK(billed == effective);
}

// All upfront (2709 USD) over the whole term (2025-12-01 to 2026-12-01, 8760 h): the purchase is
// billed once with EffectiveCost 0; the Used and Unused rows amortise it, 2709 × 100 / 8760 =
// 30.92… cents an hour, truncated to the cent cumulatively, so the 8760 shares add up to 2709.00
// exactly. Over the term BilledCost and EffectiveCost totals are equal; after 12 hours they differ
// by the upfront not yet amortised: 2709 − C(12) = 2709 − 3.71 = 2705.29 (C(12) = ⌊270900 × 12 /
// 8760⌋ cents = 371 cents).
TEST_CASE("FOCUS: an all-upfront RI is amortised over its term's hours, exactly",
          "[focus][conformance][commitments]") {
  ReplayFixture part;
  part.replay_text(commit_line("all_upfront") + kRun, until("2025-12-01T12:00:00Z"));
  {
    const auto checker = check_focus_export(part.db());
    INFO(checker.summary());
    CHECK(checker.violations().empty());
    Decimal billed, effective;
    for (const auto& row : focus_export(part.db(), query_charges(part.db())).rows) {
      billed += dec(row[col("BilledCost")]);
      effective += dec(row[col("EffectiveCost")]);
    }
    CHECK(billed - effective == Decimal::parse("2705.29"));
  }
  ReplayFixture whole;
  whole.replay_text(commit_line("all_upfront") + kRun, until("2026-12-01T00:00:00Z"));
  const auto checker = check_focus_export(whole.db());
  INFO(checker.summary());
  CHECK(checker.violations().empty());
  Decimal billed, effective, amortised;
  for (const auto& row : focus_export(whole.db(), query_charges(whole.db())).rows) {
    billed += dec(row[col("BilledCost")]);
    effective += dec(row[col("EffectiveCost")]);
    if (row[col("CommitmentDiscountStatus")]) {
      amortised += dec(row[col("EffectiveCost")]) - dec(row[col("BilledCost")]);
    }
    if (*row[col("x_ChargeKind")] == "commitment_purchase") {
      CHECK(dec(row[col("BilledCost")]) == Decimal(2709));
      CHECK(dec(row[col("EffectiveCost")]) == Decimal{});
      CHECK(*row[col("CommitmentDiscountQuantity")] == "31536000");  // 8760 h in seconds
    }
  }
  CHECK(amortised == Decimal(2709));
  CHECK(billed == effective);
}

// The checker fails on a commitment's rows broken on purpose, rule by rule.
TEST_CASE("FOCUS conformance: commitment rows broken on purpose fail their rules",
          "[focus][conformance][commitments]") {
  ReplayFixture fx;
  fx.replay_text(commit_line("no_upfront") + kRun, until("2025-12-01T12:00:00Z"));
  const FocusTable good = focus_export(fx.db(), query_charges(fx.db()));
  const auto rules_after = [&](const std::string& kind, const std::string& column,
                               std::optional<std::string> value) {
    FocusTable t = good;
    for (auto& row : t.rows) {
      if (row[col("x_ChargeKind")] == kind) {
        row[col(column)] = value;
        break;
      }
    }
    std::set<std::string> out;
    for (const auto& [rule, n] : check_focus(t.columns, t.rows).counts()) out.insert(rule);
    return out;
  };
  CHECK(rules_after("commitment_unused", "CommitmentDiscountStatus", std::nullopt)
            .count("CommitmentDiscountStatus-C-004-C"));
  CHECK(rules_after("commitment_unused", "CommitmentDiscountStatus", "Idle")
            .count("CommitmentDiscountStatus-C-005-M"));
  CHECK(rules_after("commitment_covered", "CommitmentDiscountQuantity", std::nullopt)
            .count("CommitmentDiscountQuantity-C-005-C"));
  CHECK(rules_after("commitment_covered", "CommitmentDiscountUnit", "Hours")
            .count("CommitmentDiscountUnit-C-008-M"));
  CHECK(rules_after("commitment_covered", "CommitmentDiscountCategory", "Time")
            .count("CommitmentDiscountCategory-C-005-M"));
  CHECK(rules_after("commitment_fee", "CommitmentDiscountType", std::nullopt)
            .count("CommitmentDiscountType-C-005-C"));
  CHECK(rules_after("settlement", "CommitmentDiscountStatus", "Used")
            .count("CommitmentDiscountStatus-C-003-C"));
  CHECK(rules_after("settlement", "CommitmentDiscountQuantity", "1")
            .count("CommitmentDiscountQuantity-C-007-C"));
  CHECK(
      rules_after("commitment_unused", "ConsumedQuantity", "1").count("ConsumedQuantity-C-004-C"));
  CHECK(rules_after("commitment_unused", "EffectiveCost", "5")
            .count("CommitmentDiscount-amortisation-gpubill"));
  CHECK(rules_after("commitment_fee", "CommitmentDiscountId", "ri-1")
            .count("CommitmentDiscountId-C-008-C"));
}

// A savings plan (tests/data/aws-sp-examples.json, the illustrative rates of AWS's Savings Plans
// example): spend-based, so its rows are CommitmentDiscountCategory Spend, with quantities in
// USD. A 5 USD/h Compute plan, no upfront; 10:00–11:00 a c5.9xlarge (4.00 on demand, 2.00 under
// the plan) and a c5.24xlarge (10.00, 8.00); 11:00–12:00 idle. Hour 1: the c5.9xlarge's row
// consumes 2.00 (BilledCost −4, EffectiveCost −4 + 2 = −2), the c5.24xlarge's 3.00 (1350 s:
// −3.75 + 3 = −0.75); hour 2: 5.00 unused. The fees bill 5.00 an hour with EffectiveCost 0; the
// purchase is of 5 × 8760 = 43800 USD.
TEST_CASE("FOCUS: a savings plan's rows conform, Spend in USD, EffectiveCost at its rates",
          "[focus][conformance][commitments][savings_plans]") {
  ReplayFixture fx;
  fx.import_catalog(data_path("aws-sp-examples.json"));
  fx.replay_text(
      R"({"id":"sp-1","time":"2025-12-01T10:00:00Z","type":"commit","account":"acme","provider":"aws","plan":"compute","term":"1y","payment":"no_upfront","amount":"5.00","currency":"USD"})"
      "\n"
      R"({"id":"c-w","time":"2025-12-01T10:00:00Z","type":"create","account":"acme","instance":"w","provider":"aws","region":"us-east-1","instance_type":"c5.24xlarge","mode":"payg"})"
      "\n"
      R"({"id":"c-l","time":"2025-12-01T10:00:00Z","type":"create","account":"acme","instance":"l","provider":"aws","region":"us-east-1","instance_type":"c5.9xlarge","mode":"payg"})"
      "\n"
      R"({"id":"d-w","time":"2025-12-01T11:00:00Z","type":"destroy","account":"acme","instance":"w"})"
      "\n"
      R"({"id":"d-l","time":"2025-12-01T11:00:00Z","type":"destroy","account":"acme","instance":"l"})"
      "\n",
      until("2025-12-01T12:00:00Z"));
  const auto checker = check_focus_export(fx.db());
  INFO(checker.summary());
  CHECK(checker.violations().empty());

  Decimal billed, effective;
  std::map<std::string, Decimal> quantity_by_kind;
  for (const auto& row : focus_export(fx.db(), query_charges(fx.db())).rows) {
    billed += dec(row[col("BilledCost")]);
    effective += dec(row[col("EffectiveCost")]);
    if (!row[col("CommitmentDiscountId")]) continue;
    CHECK(*row[col("CommitmentDiscountId")] == "aws/acme/sp-1");
    CHECK(*row[col("CommitmentDiscountType")] == "Savings Plan");
    CHECK(*row[col("CommitmentDiscountCategory")] == "Spend");
    CHECK(*row[col("CommitmentDiscountUnit")] == "USD");
    const std::string kind = *row[col("x_ChargeKind")];
    quantity_by_kind[kind] += dec(row[col("CommitmentDiscountQuantity")]);
    if (kind == "commitment_covered") {
      CHECK(*row[col("CommitmentDiscountStatus")] == "Used");
      CHECK(dec(row[col("EffectiveCost")]) - dec(row[col("BilledCost")]) ==
            dec(row[col("CommitmentDiscountQuantity")]));
    }
  }
  CHECK(quantity_by_kind["commitment_covered"] == Decimal(5));  // 2.00 + 3.00
  CHECK(quantity_by_kind["commitment_unused"] == Decimal(5));
  CHECK(quantity_by_kind["commitment_fee"] == Decimal(10));
  CHECK(quantity_by_kind["commitment_purchase"] == Decimal(43800));
  // No upfront: billed 4 + 10 − 4 − 3.75 + 5 + 5 = 16.25, and the same amortised.
  CHECK(billed == Decimal::parse("16.25"));
  CHECK(billed == effective);
}
