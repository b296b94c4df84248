// End to end: a Tencent GN8 usage log replayed with the bundled catalog, then read back as
// charges, statements, explanations and FOCUS rows — every line justified, totals preserved.
#include <catch2/catch.hpp>

#include <map>

#include "gpubill/catalog/catalog_import.hpp"
#include "gpubill/ledger/focus.hpp"
#include "gpubill/ledger/ledger.hpp"
#include "gpubill/replay/replay.hpp"
#include "temp_dir.hpp"

using gpubill::Calendar;
using gpubill::Decimal;
using gpubill::Derivation;
using gpubill::parse_instant;
using gpubill::testing::TempDir;

namespace {

// Pay-as-you-go across the January/February boundary (Asia/Shanghai), a 6-month prepaid
// instance upgraded mid-term, and a destroy the Tencent GPU rules forbid.
const char* const kLog =
    R"({"id":"t1","time":"2019-01-01T09:00:00+08:00","type":"topup","account":"acme","amount":"50000","currency":"CNY"}
{"id":"c2","time":"2019-01-15T10:00:00+08:00","type":"create","account":"acme","instance":"gn8-b","provider":"tencent","region":"ap-guangzhou","instance_type":"GN8.LARGE56","mode":"prepaid","months":6,"auto_renew":false}
{"id":"c1","time":"2019-01-31T20:30:00+08:00","type":"create","account":"acme","instance":"gn8-a","provider":"tencent","region":"ap-guangzhou","instance_type":"GN8.LARGE56","mode":"payg"}
{"id":"s1","time":"2019-02-01T06:10:00+08:00","type":"stop","account":"acme","instance":"gn8-a"}
{"id":"d1","time":"2019-02-01T07:00:00+08:00","type":"destroy","account":"acme","instance":"gn8-a"}
{"id":"r1","time":"2019-02-10T10:00:00+08:00","type":"resize","account":"acme","instance":"gn8-b","instance_type":"GN8.3XLARGE112"}
{"id":"x1","time":"2019-02-11T10:00:00+08:00","type":"destroy","account":"acme","instance":"gn8-b"}
)";

struct Replayed {
  TempDir dir;
  gpubill::Database db = gpubill::Database::open(dir.file("e2e.db"));
  Replayed() {
    gpubill::ensure_bundled_catalog(db);
    gpubill::ReplayOptions options;
    options.until = parse_instant("2019-03-01T00:00:00+08:00");
    gpubill::replay_logs(db, {dir.write("gn8.jsonl", kLog)}, options);
  }
};

}  // namespace

TEST_CASE("replayed bills: every charge line is justified by explain", "[ledger][replay]") {
  Replayed r;
  const auto lines = gpubill::query_charges(r.db);
  REQUIRE(lines.size() >= 4);
  std::map<std::string, int> kinds;
  for (const auto& line : lines) {
    INFO("charge " << line.id << " " << line.kind << " " << line.component << " " << line.note);
    const auto x = gpubill::explain_charge(r.db, line.id);
    for (const auto& m : x.mismatches) UNSCOPED_INFO("mismatch: " << m);
    CHECK(x.consistent());
    CHECK(x.derivation != Derivation::mismatch);
    CHECK(x.policy);
    CHECK_FALSE(x.events.empty());
    if (line.kind == "settlement" || line.kind == "prepaid_order" || line.kind == "upgrade") {
      CHECK(x.derivation == Derivation::verified);
      CHECK(x.price);
    }
    ++kinds[line.kind];
  }
  CHECK(kinds["settlement"] >= 1);
  CHECK(kinds["prepaid_order"] == 1);
  CHECK(kinds["upgrade"] == 1);

  const auto rejects = gpubill::query_rejects(r.db);
  REQUIRE(rejects.size() == 1);
  CHECK(rejects[0].event_id == "x1");
  CHECK(rejects[0].source_line == 7);
}

TEST_CASE("replayed bills: statements split the run at the month end and add up",
          "[ledger][replay]") {
  Replayed r;
  CHECK(gpubill::account_calendar(r.db, "acme").zone_name() == "Asia/Shanghai");
  const auto jan = gpubill::monthly_statement(r.db, "acme", 2019, 1);
  const auto feb = gpubill::monthly_statement(r.db, "acme", 2019, 2);

  // gn8-a in January: 20:30–21:00 (1800 s: 7.545 → 7.55) and the hours from 21:00, 22:00 and
  // 23:00 local (3 × 15.09): 52.82. The rest of its run is February's.
  Decimal gn8a_jan, gn8a_feb;
  for (const auto& c : jan.components) {
    if (c.instance == "gn8-a" && c.component == "compute") gn8a_jan += c.totals.billed;
  }
  for (const auto& c : feb.components) {
    if (c.instance == "gn8-a" && c.component == "compute") gn8a_feb += c.totals.billed;
  }
  CHECK(gn8a_jan == Decimal::parse("52.82"));
  gpubill::ChargeFilter gn8a;
  gn8a.instance = "gn8-a";
  Decimal gn8a_all;
  for (const auto& line : gpubill::query_charges(r.db, gn8a)) {
    if (line.component == "compute") gn8a_all += line.total_billed;
  }
  CHECK(gn8a_jan + gn8a_feb == gn8a_all);

  // All charges of the two months are all the charges; the balances reconcile.
  Decimal months, all;
  for (const auto& t : jan.totals) months += t.totals.billed;
  for (const auto& t : feb.totals) months += t.totals.billed;
  for (const auto& line : gpubill::query_charges(r.db)) all += line.total_billed;
  CHECK(months == all);
  REQUIRE(jan.balances.size() == 1);
  REQUIRE(feb.balances.size() == 1);
  CHECK(jan.balances[0].opening.is_zero());
  CHECK(jan.balances[0].topups == Decimal(50000));
  CHECK(jan.balances[0].reconciles);
  CHECK(feb.balances[0].opening == jan.balances[0].closing);
  CHECK(feb.balances[0].reconciles);
  // Every charge is debited by the end of February.
  CHECK(feb.balances[0].closing == Decimal(50000) - all);
}

TEST_CASE("replayed bills: the FOCUS export has a row per settlement hour and the same total",
          "[ledger][replay][focus]") {
  Replayed r;
  const auto lines = gpubill::query_charges(r.db);
  const auto focus = gpubill::focus_export(r.db, lines);
  std::int64_t settlements = 0;
  Decimal billed;
  for (const auto& line : lines) {
    settlements += line.repeat;
    billed += line.total_billed;
  }
  std::map<std::string, std::size_t> col;
  for (std::size_t i = 0; i < focus.columns.size(); ++i) col[focus.columns[i]] = i;
  Decimal focus_billed;
  std::int64_t charge_rows = 0;
  for (const auto& row : focus.rows) {
    const auto cell = [&](const char* name) { return row.at(col.at(name)); };
    focus_billed += Decimal::parse(cell("BilledCost").value());
    CHECK(cell("ProviderName") == "Tencent Cloud");
    // Beside the charge rows: the policy's rounding and the amortised hours of orders.
    if (cell("x_RowKind") == "charge") ++charge_rows;
    if (!cell("ListUnitPrice")) continue;  // a rounding row: an amount of its own
    // ListUnitPrice × PricingQuantity = ListCost (whole and half hours, months).
    INFO(cell("x_ChargeKind").value() << " " << cell("ChargeDescription").value());
    CHECK(Decimal::parse(cell("ListUnitPrice").value()) *
              Decimal::parse(cell("PricingQuantity").value()) ==
          Decimal::parse(cell("ListCost").value()));
    if (cell("x_ChargeKind") == "upgrade" && cell("x_RowKind") == "charge") {
      CHECK(cell("ChargeCategory") == "Purchase");
      CHECK(cell("PricingUnit") == "Months");
      CHECK(cell("ListUnitPrice") == "4600");  // GN8.3XLARGE112 9000 − GN8.LARGE56 4400
    }
  }
  CHECK(charge_rows == settlements);
  CHECK(focus_billed == billed);
}
