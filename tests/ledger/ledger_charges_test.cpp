// Charge lines: reading, ordering, filtering, and expanding runs to hourly lines exactly.
#include <catch2/catch.hpp>

#include <algorithm>
#include <tuple>

#include "gpubill/base/errors.hpp"
#include "gpubill/ledger/ledger.hpp"
#include "ledger_fixture.hpp"

using gpubill::ChargeFilter;
using gpubill::ChargeLine;
using gpubill::Decimal;
using gpubill::Instant;
using gpubill::testing::at;
using gpubill::testing::LedgerFixture;

namespace {

Decimal sum_billed(const std::vector<ChargeLine>& lines) {
  Decimal s;
  for (const auto& l : lines) s += l.total_billed;
  return s;
}

Decimal sum_exact(const std::vector<ChargeLine>& lines) {
  Decimal s;
  for (const auto& l : lines) s += l.total_exact;
  return s;
}

std::int64_t sum_repeat(const std::vector<ChargeLine>& lines) {
  std::int64_t s = 0;
  for (const auto& l : lines) s += l.repeat;
  return s;
}

}  // namespace

TEST_CASE("a charge row is read with every column, amounts as exact decimals", "[ledger]") {
  LedgerFixture f;
  auto spec = f.payg(at("2018-01-31T12:00:00Z"), 1800);
  spec.event_seqs = "3, 5";
  spec.note = "partial hour";
  const auto id = f.insert_charge(spec);
  const auto line = gpubill::find_charge(f.db(), id);
  REQUIRE(line);
  CHECK(line->id == id);
  CHECK(line->account == "acme");
  CHECK(line->provider == "testcloud");
  CHECK(line->component == "compute");
  CHECK(line->kind == "settlement");
  CHECK(line->period_start == at("2018-01-31T12:00:00Z"));
  CHECK(line->period_end == at("2018-01-31T12:30:00Z"));
  CHECK(line->quantity == Decimal(1800));
  CHECK(line->unit_price == Decimal::parse("15.09"));
  CHECK(line->exact_amount == Decimal::parse("7.545"));
  CHECK(line->billed_amount == Decimal::parse("7.55"));
  CHECK(line->rounding == Decimal::parse("0.005"));
  CHECK(line->total_rounding() == Decimal::parse("0.005"));
  CHECK(line->currency.code() == "CNY");
  CHECK(line->price_id == f.payg_price_id);
  CHECK(line->policy_id == f.policy_id);
  CHECK_FALSE(line->discount_id);
  CHECK(line->event_seqs == std::vector<std::int64_t>{3, 5});
  CHECK(line->note == "partial hour");
  CHECK(line->run_length == 1);
  CHECK_FALSE(gpubill::find_charge(f.db(), id + 100));
}

TEST_CASE("charges come in (period_start, id) order and filter by account and instance",
          "[ledger]") {
  LedgerFixture f;
  auto late = f.payg(at("2018-01-31T14:00:00Z"));
  const auto id_late = f.insert_charge(late);
  auto early = f.payg(at("2018-01-31T12:00:00Z"));
  const auto id_early = f.insert_charge(early);
  auto same_time = f.payg(at("2018-01-31T14:00:00Z"));
  same_time.instance = "i-2";
  const auto id_same = f.insert_charge(same_time);
  auto other = f.payg(at("2018-01-31T13:00:00Z"));
  other.account = "other";
  const auto id_other = f.insert_charge(other);

  const auto all = gpubill::query_charges(f.db());
  REQUIRE(all.size() == 4);
  CHECK(all[0].id == id_early);
  CHECK(all[1].id == id_other);
  CHECK(all[2].id == id_late);
  CHECK(all[3].id == id_same);

  ChargeFilter by_account;
  by_account.account = "acme";
  CHECK(gpubill::query_charges(f.db(), by_account).size() == 3);
  ChargeFilter by_instance;
  by_instance.account = "acme";
  by_instance.instance = "i-2";
  const auto i2 = gpubill::query_charges(f.db(), by_instance);
  REQUIRE(i2.size() == 1);
  CHECK(i2[0].id == id_same);
}

TEST_CASE("a run of full hours expands to hourly lines whose totals are the run's exactly",
          "[ledger][expand]") {
  LedgerFixture f;
  const auto id = f.insert_charge(f.payg(at("2018-01-31T12:00:00Z"), 3600, 10));
  const auto run = gpubill::find_charge(f.db(), id);
  REQUIRE(run);
  CHECK(run->repeat == 10);
  CHECK(run->period_end == at("2018-01-31T22:00:00Z"));
  CHECK(run->total_billed == Decimal::parse("150.9"));
  CHECK(run->settlement_seconds() == 3600);

  const auto hours = gpubill::expand_hourly(*run);
  REQUIRE(hours.size() == 10);
  for (std::size_t k = 0; k < hours.size(); ++k) {
    const auto& h = hours[k];
    CHECK(h.id == id);
    CHECK(h.repeat == 1);
    CHECK(h.run_index == static_cast<std::int64_t>(k));
    CHECK(h.run_length == 10);
    CHECK(h.period_start == at("2018-01-31T12:00:00Z") + std::chrono::hours{k});
    CHECK(h.period_end == h.period_start + std::chrono::hours{1});
    CHECK(h.total_billed == Decimal::parse("15.09"));
  }
  CHECK(sum_billed(hours) == run->total_billed);
  CHECK(sum_exact(hours) == run->total_exact);
}

TEST_CASE("a run of identical partial hours keeps each settlement's length and its rounding",
          "[ledger][expand]") {
  LedgerFixture f;
  // 1234 s at 15.09/h = 5.172516666666… → exact 5.172516666667, billed 5.17 each.
  const auto id = f.insert_charge(f.payg(at("2018-03-01T00:00:00Z"), 1234, 7));
  const auto run = gpubill::find_charge(f.db(), id);
  REQUIRE(run);
  CHECK(run->exact_amount == Decimal::parse("5.172516666667"));
  CHECK(run->billed_amount == Decimal::parse("5.17"));
  CHECK(run->settlement_seconds() == 1234);
  const auto lines = gpubill::expand_hourly(*run);
  REQUIRE(lines.size() == 7);
  CHECK(lines[3].period_start == at("2018-03-01T03:00:00Z"));
  CHECK(lines[3].period_end == at("2018-03-01T03:20:34Z"));
  CHECK(sum_billed(lines) == Decimal::parse("36.19"));
  CHECK(sum_exact(lines) == run->total_exact);
  Decimal rounding;
  for (const auto& l : lines) rounding += l.total_rounding();
  CHECK(rounding == run->total_rounding());
  CHECK(sum_exact(lines) + rounding == sum_billed(lines));
}

TEST_CASE("expanding a line of one settlement or an order returns it unchanged",
          "[ledger][expand]") {
  LedgerFixture f;
  gpubill::testing::ChargeSpec order;
  order.kind = "prepaid_order";
  order.mode = "prepaid";
  order.quantity = "6";
  order.unit = "month";
  order.unit_price = "4400";
  order.price_unit = "month";
  order.period_end = at("2018-07-31T12:00:00Z");
  const auto id = f.insert_charge(order);
  const auto line = gpubill::find_charge(f.db(), id);
  REQUIRE(line);
  const auto lines = gpubill::expand_hourly(*line);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].period_end == at("2018-07-31T12:00:00Z"));
  CHECK(lines[0].total_billed == Decimal(26400));
}

TEST_CASE("expanding a corrupt run is refused rather than changing its totals",
          "[ledger][expand]") {
  LedgerFixture f;
  auto bad_total = f.payg(at("2018-01-31T12:00:00Z"), 3600, 3);
  bad_total.total_billed = "45.28";
  const auto a = gpubill::find_charge(f.db(), f.insert_charge(bad_total));
  CHECK_THROWS_AS(gpubill::expand_hourly(*a), gpubill::StoreError);

  auto bad_span = f.payg(at("2018-01-31T12:00:00Z"), 3600, 3);
  bad_span.period_end = at("2018-01-31T20:00:00Z");  // 8 h for 3 settlements
  const auto b = gpubill::find_charge(f.db(), f.insert_charge(bad_span));
  CHECK_THROWS_WITH(gpubill::expand_hourly(*b), Catch::Contains("cannot span"));
}

TEST_CASE("a date range cuts runs at hour boundaries; adjacent ranges add up to the whole",
          "[ledger][expand]") {
  LedgerFixture f;
  f.insert_charge(f.payg(at("2018-01-31T12:00:00Z"), 3600, 10));  // 12:00 … 22:00
  f.insert_charge(f.payg(at("2018-01-31T22:00:00Z"), 1800));      // 22:00 … 22:30

  ChargeFilter first;
  first.to = at("2018-01-31T16:00:00Z");
  ChargeFilter second;
  second.from = at("2018-01-31T16:00:00Z");
  const auto a = gpubill::query_charges(f.db(), first);
  const auto b = gpubill::query_charges(f.db(), second);
  REQUIRE(a.size() == 1);
  CHECK(a[0].repeat == 4);
  CHECK(a[0].run_index == 0);
  CHECK(a[0].period_end == at("2018-01-31T16:00:00Z"));
  REQUIRE(b.size() == 2);
  CHECK(b[0].repeat == 6);
  CHECK(b[0].run_index == 4);
  CHECK(b[0].period_start == at("2018-01-31T16:00:00Z"));
  CHECK(b[0].total_billed == Decimal::parse("90.54"));

  const auto whole = gpubill::query_charges(f.db());
  CHECK(sum_billed(a) + sum_billed(b) == sum_billed(whole));
  CHECK(sum_exact(a) + sum_exact(b) == sum_exact(whole));
  CHECK(sum_repeat(a) + sum_repeat(b) == sum_repeat(whole));

  // A bound inside an hour: the hour belongs to the range its start is in.
  ChargeFilter mid;
  mid.from = at("2018-01-31T12:30:00Z");
  mid.to = at("2018-01-31T14:30:00Z");
  const auto m = gpubill::query_charges(f.db(), mid);
  REQUIRE(m.size() == 1);
  CHECK(m[0].repeat == 2);  // 13:00 and 14:00
  CHECK(m[0].period_start == at("2018-01-31T13:00:00Z"));

  // Expanding every line keeps the (period_start, id, hour) order.
  const auto hourly = gpubill::expand_hourly(whole);
  REQUIRE(hourly.size() == 11);
  for (std::size_t i = 1; i < hourly.size(); ++i) {
    CHECK(hourly[i - 1].period_start <= hourly[i].period_start);
  }
  CHECK(sum_billed(hourly) == sum_billed(whole));
}

TEST_CASE("rejects are listed in order and filter by account and kind", "[ledger]") {
  LedgerFixture f;
  f.insert_reject("rule", "log.jsonl", 7, "acme", "e7", "",
                  "destroying a prepaid GPU instance before expiry is not allowed", "{}");
  f.insert_reject("malformed", "log.jsonl", 9, "", "", "time", "not an RFC 3339 instant",
                  "{\"time\": \"x\"}");
  const auto all = gpubill::query_rejects(f.db());
  REQUIRE(all.size() == 2);
  CHECK(all[0].source_line == 7);
  CHECK(all[1].field == "time");
  gpubill::RejectFilter rule;
  rule.kind = "rule";
  CHECK(gpubill::query_rejects(f.db(), rule).size() == 1);
  gpubill::RejectFilter acme;
  acme.account = "acme";
  CHECK(gpubill::query_rejects(f.db(), acme).size() == 1);
}

namespace {
// i-1 12:00…22:00, i-2 14:00…17:00, i-3 15:30…16:00, and i-4 13:00…15:00 written last.
void insert_overlapping_runs(LedgerFixture& f) {
  f.insert_charge(f.payg(at("2018-01-31T12:00:00Z"), 3600, 10));
  auto other = f.payg(at("2018-01-31T14:00:00Z"), 3600, 3);
  other.instance = "i-2";
  f.insert_charge(other);
  auto half = f.payg(at("2018-01-31T15:30:00Z"), 1800);
  half.instance = "i-3";
  f.insert_charge(half);
  auto early = f.payg(at("2018-01-31T13:00:00Z"), 3600, 2);  // a later id, an earlier start
  early.instance = "i-4";
  f.insert_charge(early);
}
}  // namespace

TEST_CASE("overlapping runs expand in line order by hour, streamed or not", "[ledger][expand]") {
  LedgerFixture f;
  insert_overlapping_runs(f);

  const auto lines = gpubill::query_charges(f.db());
  // The expected order, by brute force: every hour, sorted by (start, account, instance,
  // component, kind, id, hour).
  std::vector<ChargeLine> expected;
  for (const auto& l : lines) {
    for (const auto& h : gpubill::expand_hourly(l)) expected.push_back(h);
  }
  std::stable_sort(expected.begin(), expected.end(), [](const auto& a, const auto& b) {
    return std::tie(a.period_start, a.account, a.instance, a.component, a.kind, a.id, a.run_index) <
           std::tie(b.period_start, b.account, b.instance, b.component, b.kind, b.id, b.run_index);
  });
  std::vector<ChargeLine> streamed;
  gpubill::for_each_hourly(lines, [&](const ChargeLine& h) { streamed.push_back(h); });
  const auto expanded = gpubill::expand_hourly(lines);
  REQUIRE(streamed.size() == 16);
  REQUIRE(expanded.size() == 16);
  for (std::size_t i = 0; i < expected.size(); ++i) {
    INFO("line " << i);
    CHECK(streamed[i].id == expected[i].id);
    CHECK(streamed[i].run_index == expected[i].run_index);
    CHECK(streamed[i].period_start == expected[i].period_start);
    CHECK(expanded[i].id == expected[i].id);
    CHECK(expanded[i].run_index == expected[i].run_index);
  }
  CHECK(sum_billed(streamed) == sum_billed(lines));
}

TEST_CASE("for_each_charge reads what query_charges and expand_hourly give, cut or not",
          "[ledger][expand]") {
  LedgerFixture f;
  insert_overlapping_runs(f);

  const auto key = [](const std::vector<ChargeLine>& lines) {
    std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t, Instant>> out;
    for (const auto& l : lines) out.emplace_back(l.id, l.run_index, l.repeat, l.period_start);
    return out;
  };
  const auto read = [&](const ChargeFilter& filter, gpubill::ChargeDetail detail) {
    std::vector<ChargeLine> out;
    gpubill::for_each_charge(f.db(), filter, detail,
                             [&](const ChargeLine& l) { out.push_back(l); });
    return out;
  };
  ChargeFilter cut;  // starts inside two runs: their cut parts start later than stored
  cut.from = at("2018-01-31T14:30:00Z");
  cut.to = at("2018-01-31T20:00:00Z");
  for (const ChargeFilter& filter : {ChargeFilter{}, cut}) {
    const auto lines = gpubill::query_charges(f.db(), filter);
    CHECK(key(read(filter, gpubill::ChargeDetail::lines)) == key(lines));
    const auto hourly = read(filter, gpubill::ChargeDetail::hourly);
    CHECK(key(hourly) == key(gpubill::expand_hourly(lines)));
    CHECK(sum_billed(hourly) == sum_billed(lines));
  }
  // i-1 15:00…19:00, i-2 15:00 and 16:00, i-3 15:30.
  CHECK(read(cut, gpubill::ChargeDetail::hourly).size() == 5 + 2 + 1);
}
