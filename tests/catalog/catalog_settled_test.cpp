// A price imported for hours already settled: the import says which lines may change, explain
// says the line's row was superseded, and a rebuild re-prices them (issue 10, defect 6: the
// import was silent and explain said "derivation verified").
#include <catch2/catch.hpp>

#include "gpubill/catalog/catalog_import.hpp"
#include "gpubill/ledger/ledger.hpp"
#include "replay_fixture.hpp"

using namespace gpubill;
using namespace gpubill::testing;

TEST_CASE("a late price import names the settled lines it may change",
          "[catalog][import][rebuild]") {
  ReplayFixture f;
  replay_logs(f.db(), {std::string(GPUBILL_SOURCE_DIR) + "/fixtures/logs/tencent-gn8.jsonl"},
              until("2019-03-31T16:00:00Z"));
  const std::string late = f.write_log("late.json", R"({
  "format": "gpubill-catalog/1",
  "prices": [
    {"provider": "tencent", "instance_type": "GN8.LARGE56", "region": "ap-guangzhou", "mode": "payg",
     "unit": "hour", "amount": "12.00", "currency": "CNY", "effective_from": "2019-03-01T12:00:00+08:00",
     "source": "TEST FIXTURE: a price imported after the hours it covers were settled [T]",
     "as_of": "2019-03-01"}
  ]
})");
  // The 46 hours from 03:00Z were one line priced at 15.09 CNY/h.
  const auto before = f.charges("kind = 'settlement' AND period_start = " +
                                std::to_string(secs("2019-03-01T03:00:00Z")));
  REQUIRE(before.size() == 1);
  CHECK(before[0].repeat == 46);
  const std::int64_t line = before[0].id;

  const ImportReport r = import_catalog_file(f.db(), late);
  REQUIRE(r.notes.size() == 1);
  const std::int64_t new_row = f.count("SELECT max(id) FROM price");
  CHECK(r.notes[0] == "price " + std::to_string(new_row) +
                          " (tencent GN8.LARGE56 ap-guangzhou payg from 2019-03-01T04:00:00Z) is "
                          "in force before the replay clock: 1 settled charge lines of account "
                          "demo (2019-03-01 … 2019-03-03) were priced with another row and may "
                          "change: `gpubill rebuild --account demo` re-prices them");

  const ChargeExplanation x = explain_charge(f.db(), line);
  CHECK(x.derivation == Derivation::verified);  // against the row it used
  REQUIRE(x.superseded.size() == 1);
  CHECK_THAT(x.superseded[0],
             Catch::StartsWith("price row " + std::to_string(new_row) +
                               " is in force from 2019-03-01T04:00:00Z within this line"));

  rebuild_accounts(f.db(), [] {
    RebuildOptions o;
    o.accounts = {"demo"};
    return o;
  }());
  const auto after = f.charges("kind = 'settlement' AND unit_price = '12'");
  REQUIRE(after.size() == 1);
  CHECK(after[0].start == secs("2019-03-01T04:00:00Z"));
  CHECK(after[0].repeat == 45);
  CHECK(explain_charge(f.db(), after[0].id).superseded.empty());
  // Importing a price for after the replay clock says nothing.
  const std::string future = f.write_log("future.json", R"({
  "format": "gpubill-catalog/1",
  "prices": [
    {"provider": "tencent", "instance_type": "GN8.LARGE56", "region": "ap-guangzhou", "mode": "payg",
     "unit": "hour", "amount": "11.00", "currency": "CNY", "effective_from": "2019-05-01",
     "source": "TEST FIXTURE [T]", "as_of": "2019-05-01"}
  ]
})");
  CHECK(import_catalog_file(f.db(), future).notes.empty());
}
