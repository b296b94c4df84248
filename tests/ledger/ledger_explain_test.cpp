// explain_charge: the rows and events behind a line, and its arithmetic re-derived.
#include <catch2/catch.hpp>

#include "gpubill/base/errors.hpp"
#include "gpubill/ledger/ledger.hpp"
#include "ledger_fixture.hpp"

using gpubill::Decimal;
using gpubill::Derivation;
using gpubill::testing::at;
using gpubill::testing::ChargeSpec;
using gpubill::testing::LedgerFixture;

namespace {

bool has_step(const gpubill::ChargeExplanation& x, const std::string& text) {
  for (const auto& s : x.arithmetic) {
    if (s.find(text) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("explain shows the price, policy and events and re-derives a settlement",
          "[ledger][explain]") {
  LedgerFixture f;
  const auto create = f.insert_event("acme", "e1", at("2018-01-31T12:30:00Z"), "create", "i-1",
                                     R"({"id":"e1","type":"create"})", "logs/jan.jsonl", 3);
  const auto stop = f.insert_event("acme", "e2", at("2018-01-31T13:00:00Z"), "stop", "i-1",
                                   R"({"id":"e2","type":"stop"})", "logs/jan.jsonl", 4);
  auto spec = f.payg(at("2018-01-31T12:30:00Z"), 1800);
  spec.event_seqs = std::to_string(stop) + "," + std::to_string(create);
  const auto id = f.insert_charge(spec);

  const auto x = gpubill::explain_charge(f.db(), id);
  CHECK(x.line.id == id);
  REQUIRE(x.price);
  CHECK(x.price->table == "price");
  CHECK(x.price->id == f.payg_price_id);
  CHECK(x.price->amount == Decimal::parse("15.09"));
  CHECK(x.price->unit == "hour");
  CHECK(x.price->source == "test fixture");
  CHECK(x.price->as_of == "2017-01-01");
  CHECK(x.price->effective_from == at("2017-01-01T00:00:00Z"));
  CHECK_FALSE(x.price->effective_to);
  REQUIRE(x.policy);
  CHECK(x.policy->id == f.policy_id);
  CHECK(x.policy->settlement_rounding == gpubill::RoundingMode::half_up);
  CHECK(x.policy->settlement_decimals == 2);
  CHECK(x.policy->metering_granularity_seconds == 1);
  CHECK_FALSE(x.discount);
  REQUIRE(x.events.size() == 2);
  CHECK(x.events[0].seq == create);  // by seq
  CHECK(x.events[0].type == "create");
  CHECK(x.events[0].source_file == "logs/jan.jsonl");
  CHECK(x.events[0].source_line == 3);
  CHECK(x.events[1].payload == R"({"id":"e2","type":"stop"})");

  CHECK(has_step(x, "15.09 CNY/h × 1800 s / 3600 = 7.545 → half_up 2 → 7.55, rounding +0.005"));
  CHECK(x.derivation == Derivation::verified);
  CHECK(x.consistent());
  CHECK(x.mismatches.empty());
}

TEST_CASE("explain flags stored amounts that the rules do not give", "[ledger][explain]") {
  LedgerFixture f;
  auto spec = f.payg(at("2018-01-31T12:30:00Z"), 1800);
  spec.billed = "7.54";  // truncated, but the policy says half-up
  spec.rounding = "-0.005";
  const auto id = f.insert_charge(spec);
  const auto x = gpubill::explain_charge(f.db(), id);
  CHECK(x.derivation == Derivation::mismatch);
  CHECK_FALSE(x.consistent());
  REQUIRE_FALSE(x.mismatches.empty());
  CHECK(x.mismatches[0] == "billed_amount: re-derived 7.55, stored 7.54");
}

TEST_CASE("explain checks a run's totals, the unit price and the rows it names",
          "[ledger][explain]") {
  LedgerFixture f;
  auto spec = f.payg(at("2018-01-31T12:00:00Z"), 3600, 4);
  spec.total_billed = "60.37";
  spec.unit_price = "15.10";
  spec.event_seqs = "999";
  spec.discount_id = 4242;
  const auto id = f.insert_charge(spec);
  const auto x = gpubill::explain_charge(f.db(), id);
  CHECK(has_step(x, "× 4 identical hourly settlements = 60.37 billed"));
  CHECK_FALSE(x.consistent());
  const auto has = [&](const std::string& text) {
    for (const auto& m : x.mismatches) {
      if (m.find(text) != std::string::npos) return true;
    }
    return false;
  };
  CHECK(has("total_billed (billed_amount × repeat): re-derived 60.4, stored 60.37"));
  CHECK(has("unit_price 15.1 ≠ price row amount 15.09"));
  CHECK(has("event 999 is not recorded"));
  CHECK(has("discount row 4242 is not in the catalog"));
  // The per-settlement arithmetic itself holds at the stored unit price.
  CHECK(x.derivation == Derivation::verified);
}

TEST_CASE("explain re-derives a prepaid order with its term discount", "[ledger][explain]") {
  LedgerFixture f;
  const auto id = f.insert_charge(
      f.prepaid_order(at("2018-01-31T10:00:00+08:00"), at("2018-07-31T10:00:00+08:00")));
  const auto x = gpubill::explain_charge(f.db(), id);
  REQUIRE(x.discount);
  CHECK(x.discount->factor == Decimal::parse("0.88"));
  CHECK(x.discount->min_months == 6);
  CHECK(has_step(x,
                 "4400 CNY/month × 6 months = 26400 × term discount 0.88 = 23232 → half_up "
                 "2 → 23232, rounding 0"));
  CHECK(x.derivation == Derivation::verified);
  CHECK(x.consistent());
}

TEST_CASE("explain re-derives per-GB-second disks and says when a kind is not derivable",
          "[ledger][explain]") {
  LedgerFixture f;
  auto disk = f.payg(at("2018-01-31T12:00:00Z"), 3600);
  disk.component = "system_disk";
  disk.unit = "gb_second";
  disk.quantity = "180000";
  disk.unit_price = "0.0012";
  disk.price_unit = "gb_hour";
  disk.price_id.reset();
  const auto x = gpubill::explain_charge(f.db(), f.insert_charge(disk));
  CHECK(has_step(x, "0.0012 CNY/gb_hour × 180000 gb_second / 3600 = 0.06 → half_up 2 → 0.06"));
  CHECK(x.derivation == Derivation::verified);

  ChargeSpec refund;
  refund.kind = "refund";
  refund.mode = "prepaid";
  refund.quantity = "1";
  refund.unit = "order";
  refund.unit_price = "-1200.5";
  refund.price_unit = "order";
  refund.policy_id = f.policy_id;
  refund.note = "normal refund: 2 months used";
  const auto r = gpubill::explain_charge(f.db(), f.insert_charge(refund));
  CHECK(r.derivation == Derivation::not_derivable);
  CHECK(has_step(r, "not re-derivable from the row alone: normal refund: 2 months used"));
  CHECK(r.consistent());

  CHECK_THROWS_AS(gpubill::explain_charge(f.db(), 123456), gpubill::NotFound);
}
