// Monthly statements: month bounds in the billing time zone, runs split at the month end,
// totals per instance / component / kind / currency, opening and closing balances.
#include <catch2/catch.hpp>

#include "gpubill/base/errors.hpp"
#include "gpubill/ledger/ledger.hpp"
#include "ledger_fixture.hpp"
#include "temp_dir.hpp"

using gpubill::Calendar;
using gpubill::Decimal;
using gpubill::testing::at;
using gpubill::testing::ChargeSpec;
using gpubill::testing::LedgerFixture;

TEST_CASE("a run crossing the month end at UTC+8 is split by hours between the months",
          "[ledger][statement]") {
  LedgerFixture f;
  // 2018-01-31T20:00+08:00 for 10 hours: 20, 21, 22, 23 h in January; 00 … 05 h in February.
  f.insert_charge(f.payg(at("2018-01-31T20:00:00+08:00"), 3600, 10));
  const Calendar shanghai("Asia/Shanghai");

  const auto jan = gpubill::monthly_statement(f.db(), "acme", 2018, 1, shanghai);
  CHECK(jan.period_start == at("2018-01-01T00:00:00+08:00"));
  CHECK(jan.period_end == at("2018-02-01T00:00:00+08:00"));
  CHECK(jan.time_zone == "Asia/Shanghai");
  REQUIRE(jan.components.size() == 1);
  CHECK(jan.components[0].instance == "i-1");
  CHECK(jan.components[0].component == "compute");
  CHECK(jan.components[0].instance_type == "GPU.LARGE");
  CHECK(jan.components[0].totals.settlements == 4);
  CHECK(jan.components[0].totals.billed == Decimal::parse("60.36"));
  CHECK(jan.components[0].totals.exact == Decimal::parse("60.36"));
  CHECK(jan.components[0].totals.rounding.is_zero());

  const auto feb = gpubill::monthly_statement(f.db(), "acme", 2018, 2, shanghai);
  REQUIRE(feb.components.size() == 1);
  CHECK(feb.components[0].totals.settlements == 6);
  CHECK(feb.components[0].totals.billed == Decimal::parse("90.54"));
  CHECK(jan.components[0].totals.billed + feb.components[0].totals.billed ==
        Decimal::parse("150.9"));

  // The same run seen in UTC months lies wholly in January (12:00Z … 22:00Z).
  const auto jan_utc = gpubill::monthly_statement(f.db(), "acme", 2018, 1, Calendar("UTC"));
  REQUIRE(jan_utc.totals.size() == 1);
  CHECK(jan_utc.totals[0].totals.settlements == 10);
  CHECK(gpubill::monthly_statement(f.db(), "acme", 2018, 2, Calendar("UTC")).totals.empty());
}

TEST_CASE("a settlement hour across local midnight belongs to the month it starts in",
          "[ledger][statement]") {
  LedgerFixture f;
  // 23:30–00:30 local would be two settlements; the engine writes one per local hour. An hour
  // starting 23:00 on Jan 31 (local) is January's even though it is settled at 00:00 Feb 1.
  f.insert_charge(f.payg(at("2018-01-31T23:00:00+08:00"), 3600));
  f.insert_charge(f.payg(at("2018-02-01T00:00:00+08:00"), 1800));
  const Calendar shanghai("Asia/Shanghai");
  const auto jan = gpubill::monthly_statement(f.db(), "acme", 2018, 1, shanghai);
  const auto feb = gpubill::monthly_statement(f.db(), "acme", 2018, 2, shanghai);
  REQUIRE(jan.totals.size() == 1);
  REQUIRE(feb.totals.size() == 1);
  CHECK(jan.totals[0].totals.billed == Decimal::parse("15.09"));
  CHECK(feb.totals[0].totals.billed == Decimal::parse("7.55"));
  CHECK(feb.totals[0].totals.exact == Decimal::parse("7.545"));
  CHECK(feb.totals[0].totals.rounding == Decimal::parse("0.005"));
}

TEST_CASE("statement totals per instance and component, per kind and per currency",
          "[ledger][statement]") {
  LedgerFixture f;
  f.insert_charge(f.payg(at("2018-01-10T00:00:00+08:00"), 3600, 3));  // 45.27
  auto disk = f.payg(at("2018-01-10T00:00:00+08:00"), 3600, 3);
  disk.component = "system_disk";
  disk.unit = "gb_second";
  disk.quantity = "180000";  // 50 GB × 3600 s
  disk.unit_price = "0.0012";
  disk.price_unit = "gb_hour";
  disk.price_id.reset();
  f.insert_charge(disk);  // 50 × 0.0012 = 0.06 per hour
  auto order = f.prepaid_order(at("2018-01-15T10:00:00+08:00"), at("2018-07-15T10:00:00+08:00"));
  order.instance = "i-2";
  f.insert_charge(order);
  auto usd = ChargeSpec{};
  usd.instance = "i-3";
  usd.provider = "testcloud-utc";
  usd.currency = "USD";
  usd.unit_price = "3.06";
  usd.period_start = at("2018-01-20T00:00:00Z");
  f.insert_charge(usd);
  auto other_month = f.payg(at("2018-02-10T00:00:00+08:00"));
  f.insert_charge(other_month);

  const auto s = gpubill::monthly_statement(f.db(), "acme", 2018, 1, Calendar("Asia/Shanghai"));
  REQUIRE(s.components.size() == 4);
  CHECK(s.components[0].instance == "i-1");
  CHECK(s.components[0].component == "compute");
  CHECK(s.components[0].totals.billed == Decimal::parse("45.27"));
  CHECK(s.components[1].component == "system_disk");
  CHECK(s.components[1].totals.billed == Decimal::parse("0.18"));
  CHECK(s.components[2].instance == "i-2");
  CHECK(s.components[2].totals.billed == Decimal(23232));
  CHECK(s.components[2].totals.settlements == 1);
  CHECK(s.components[3].currency.code() == "USD");

  REQUIRE(s.kinds.size() == 3);
  CHECK(s.kinds[0].kind == "prepaid_order");
  CHECK(s.kinds[1].kind == "settlement");
  CHECK(s.kinds[1].currency.code() == "CNY");
  CHECK(s.kinds[1].totals.billed == Decimal::parse("45.45"));
  CHECK(s.kinds[1].totals.settlements == 6);
  CHECK(s.kinds[2].currency.code() == "USD");

  REQUIRE(s.totals.size() == 2);
  CHECK(s.totals[0].currency.code() == "CNY");
  CHECK(s.totals[0].totals.billed == Decimal::parse("23277.45"));
  CHECK(s.totals[1].currency.code() == "USD");
  CHECK(s.totals[1].totals.billed == Decimal::parse("3.06"));
  CHECK_THROWS_AS(gpubill::monthly_statement(f.db(), "acme", 2018, 13, Calendar("UTC")),
                  std::invalid_argument);
}

TEST_CASE("opening and closing balances: top-ups, charges and refunds reconcile per month",
          "[ledger][statement][balance]") {
  LedgerFixture f;
  const auto run = f.insert_charge(f.payg(at("2018-01-31T20:00:00+08:00"), 3600, 10));
  f.insert_movement("acme", at("2017-12-20T10:00:00+08:00"), "CNY", "100", "100", "topup");
  f.insert_movement("acme", at("2018-01-05T10:00:00+08:00"), "CNY", "1000", "1100", "topup");
  f.insert_movement("acme", at("2018-01-20T10:00:00+08:00"), "CNY", "-23.5", "1076.5", "charge");
  f.insert_movement("acme", at("2018-01-25T10:00:00+08:00"), "CNY", "3.5", "1080", "refund");
  // The run is debited once, at its end (Feb 1 06:00 local): February's movement.
  f.insert_movement("acme", at("2018-02-01T06:00:00+08:00"), "CNY", "-150.9", "929.1", "charge",
                    run);
  f.insert_movement("acme", at("2018-02-03T00:00:00Z"), "USD", "50", "50", "topup");
  f.insert_movement("other", at("2018-01-06T00:00:00Z"), "CNY", "7", "7", "topup");
  const Calendar shanghai("Asia/Shanghai");

  const auto jan = gpubill::monthly_statement(f.db(), "acme", 2018, 1, shanghai);
  REQUIRE(jan.balances.size() == 1);
  const auto& b = jan.balances[0];
  CHECK(b.currency.code() == "CNY");
  CHECK(b.opening == Decimal(100));
  CHECK(b.topups == Decimal(1000));
  CHECK(b.charges == Decimal::parse("-23.5"));
  CHECK(b.refunds == Decimal::parse("3.5"));
  CHECK(b.other.is_zero());
  CHECK(b.closing == Decimal(1080));
  CHECK(b.movements == 3);
  CHECK(b.reconciles);
  REQUIRE(jan.movements.size() == 3);
  CHECK(jan.movements[0].kind == "topup");
  CHECK(jan.movements[2].kind == "refund");

  const auto feb = gpubill::monthly_statement(f.db(), "acme", 2018, 2, shanghai);
  REQUIRE(feb.balances.size() == 2);
  CHECK(feb.balances[0].currency.code() == "CNY");
  CHECK(feb.balances[0].opening == Decimal(1080));
  CHECK(feb.balances[0].charges == Decimal::parse("-150.9"));
  CHECK(feb.balances[0].closing == Decimal::parse("929.1"));
  CHECK(feb.balances[0].reconciles);
  CHECK(feb.balances[1].currency.code() == "USD");
  CHECK(feb.balances[1].opening.is_zero());
  CHECK(feb.balances[1].closing == Decimal(50));
  REQUIRE(feb.movements.size() == 2);
  CHECK(feb.movements[0].charge_id == run);

  // A month with no movements carries the balance through.
  const auto mar = gpubill::monthly_statement(f.db(), "acme", 2018, 3, shanghai);
  REQUIRE(mar.balances.size() == 2);
  CHECK(mar.balances[0].opening == Decimal::parse("929.1"));
  CHECK(mar.balances[0].closing == Decimal::parse("929.1"));
  CHECK(mar.balances[0].movements == 0);
  CHECK(mar.movements.empty());

  // Summarised, a statement keeps the same balances without listing the movements, which
  // for_each_balance_movement hands out one at a time over the month.
  const auto feb_summary = gpubill::monthly_statement(f.db(), "acme", 2018, 2, shanghai,
                                                      gpubill::StatementMovements::summarised);
  CHECK(feb_summary.movements.empty());
  REQUIRE(feb_summary.balances.size() == 2);
  CHECK(feb_summary.balances[0].opening == feb.balances[0].opening);
  CHECK(feb_summary.balances[0].closing == feb.balances[0].closing);
  CHECK(feb_summary.balances[0].movements == feb.balances[0].movements);
  CHECK(feb_summary.balances[1].closing == feb.balances[1].closing);
  std::vector<gpubill::BalanceMovement> streamed;
  gpubill::for_each_balance_movement(f.db(), "acme", feb.period_start, feb.period_end,
                                     [&](const auto& m) { streamed.push_back(m); });
  // Started from the statement's opening balances, only the month is read: the same rows.
  std::vector<gpubill::BalanceMovement> seeded;
  gpubill::for_each_balance_movement(
      f.db(), "acme", feb.period_start, feb.period_end, [&](const auto& m) { seeded.push_back(m); },
      &feb_summary.balances);
  REQUIRE(streamed.size() == feb.movements.size());
  REQUIRE(seeded.size() == feb.movements.size());
  for (std::size_t i = 0; i < streamed.size(); ++i) {
    CHECK(streamed[i].id == feb.movements[i].id);
    CHECK(streamed[i].balance_after == feb.movements[i].balance_after);
    CHECK(seeded[i].balance_after == feb.movements[i].balance_after);
  }
}

TEST_CASE("a read snapshot does not see what another connection writes meanwhile",
          "[ledger][store]") {
  gpubill::testing::TempDir dir;
  const std::string path = dir.file("snap.db");
  auto reader = gpubill::Database::open(path);
  auto writer = gpubill::Database::open(path);
  const auto topup = [&](const char* when) {
    SQLite::Statement q(gpubill::sqlite(writer),
                        "INSERT INTO balance_movement(account, at, currency, amount, "
                        "balance_after, kind) VALUES ('acme', ?, 'CNY', '10', '10', 'topup')");
    q.bind(1, static_cast<int64_t>(gpubill::testing::unix_seconds(at(when))));
    q.exec();
  };
  topup("2018-01-05T00:00:00Z");
  {
    const gpubill::ReadSnapshot snapshot(reader);
    CHECK(gpubill::query_balance_movements(reader, "acme").size() == 1);
    topup("2018-01-06T00:00:00Z");
    CHECK(gpubill::query_balance_movements(reader, "acme").size() == 1);
    CHECK_THROWS_AS(gpubill::ReadSnapshot(reader), gpubill::StoreError);
  }
  CHECK(gpubill::query_balance_movements(reader, "acme").size() == 2);
}

TEST_CASE("a gap in the balance history shows as not reconciling", "[ledger][balance]") {
  LedgerFixture f;
  f.insert_movement("acme", at("2018-01-05T00:00:00Z"), "CNY", "1000", "1000", "topup");
  f.insert_movement("acme", at("2018-01-06T00:00:00Z"), "CNY", "-10", "900", "charge");
  const auto s = gpubill::monthly_statement(f.db(), "acme", 2018, 1, Calendar("UTC"));
  REQUIRE(s.balances.size() == 1);
  CHECK_FALSE(s.balances[0].reconciles);
}

TEST_CASE("the account's billing time zone comes from its providers", "[ledger][statement]") {
  LedgerFixture f;
  CHECK(gpubill::account_calendar(f.db(), "acme").zone_name() == "UTC");
  f.insert_charge(f.payg(at("2018-01-31T20:00:00+08:00"), 3600, 10));
  CHECK(gpubill::account_calendar(f.db(), "acme").zone_name() == "Asia/Shanghai");
  const auto feb = gpubill::monthly_statement(f.db(), "acme", 2018, 2);
  CHECK(feb.time_zone == "Asia/Shanghai");
  REQUIRE(feb.totals.size() == 1);
  CHECK(feb.totals[0].totals.settlements == 6);

  auto usd = ChargeSpec{};
  usd.provider = "testcloud-utc";
  usd.currency = "USD";
  f.insert_charge(usd);
  CHECK_THROWS_WITH(gpubill::account_calendar(f.db(), "acme"),
                    Catch::Contains("different time zones"));
}
