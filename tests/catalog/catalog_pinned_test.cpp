// Settled bills are pinned to the catalog rows they used (issue 31, findings 1 and 2): an import
// never edits such a row in place, a provider or instance type that settled bills use is not
// re-declared without --redefine, and a rebuild lists every line it re-prices.
#include <catch2/catch.hpp>

#include "gpubill/base/errors.hpp"
#include "gpubill/catalog/catalog_import.hpp"
#include "gpubill/ledger/ledger.hpp"
#include "replay_fixture.hpp"

using namespace gpubill;
using namespace gpubill::testing;

namespace {

// Every charge row, every column: what "the settled bill" is, byte for byte.
std::string all_charges(ReplayFixture& f) {
  store::Statement q(f.conn(), "SELECT * FROM charge ORDER BY id");
  std::string out;
  while (q.executeStep()) {
    for (int c = 0; c < q.getColumnCount(); ++c) {
      out += (q.getColumn(c).isNull() ? "NULL" : q.getColumn(c).getString()) + "|";
    }
    out += "\n";
  }
  return out;
}

// The tencent-gn8 sample settled through March 2019.
void settle(ReplayFixture& f) {
  replay_logs(f.db(), {std::string(GPUBILL_SOURCE_DIR) + "/fixtures/logs/tencent-gn8.jsonl"},
              until("2019-03-31T16:00:00Z"));
}

std::string catalog_file(const std::string& section, const std::string& rows) {
  return R"({"format": "gpubill-catalog/1", ")" + section + R"(": [)" + rows + "]}";
}

// The GN8.LARGE56 pay-as-you-go row the sample's hours were priced with (ap-guangzhou, the
// mainland site, from 2017-12-31, 15.09 CNY/h), with `amount` and `source`.
std::string gn8_payg(const std::string& amount, const std::string& source = "TEST FIXTURE [T]") {
  return R"({"provider": "tencent", "instance_type": "GN8.LARGE56", "region": "ap-guangzhou",
     "mode": "payg", "unit": "hour",
     "amount": ")" +
         amount + R"(", "currency": "CNY", "effective_from": "2017-12-31", "source": ")" + source +
         R"(", "as_of": "2017-12-31"})";
}

std::string error_of(const std::function<void()>& work) {
  try {
    work();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("an import never edits in place a price row that settled charges use",
          "[catalog][import][pinned]") {
  ReplayFixture f;
  settle(f);
  const std::string before = all_charges(f);
  const std::int64_t used = f.count(
      "SELECT price_id FROM charge WHERE kind = 'settlement' AND component = 'compute' LIMIT 1");
  const std::int64_t uses =
      f.count("SELECT count(*) FROM charge WHERE price_id = " + std::to_string(used) +
              " AND component = 'compute'");
  const std::string file = f.write_log("edit.json", catalog_file("prices", gn8_payg("16.00")));

  CHECK(error_of([&] { import_catalog_file(f.db(), file); }) ==
        file + ":/prices/0: field 'amount': price row " + std::to_string(used) + " prices " +
            std::to_string(uses) +
            " settled charge lines (accounts demo) and cannot change in place (amount 15.09 → "
            "16): give the new values a later effective_from, which supersedes the row from "
            "then on, and run `gpubill rebuild` to re-price the past");
  CHECK(error_of([&] { validate_catalog_file(f.db(), file); }) != "(no error)");
  CHECK(all_charges(f) == before);
  CHECK(f.count("SELECT count(*) FROM price WHERE id = " + std::to_string(used) +
                " AND amount = '15.09'") == 1);
  const std::int64_t line =
      f.count("SELECT min(id) FROM charge WHERE price_id = " + std::to_string(used) +
              " AND component = 'compute'");
  CHECK(explain_charge(f.db(), line).derivation == Derivation::verified);

  // The same values (a re-import of the file it came from), or a corrected source: no change.
  const std::string same =
      f.write_log("same.json", catalog_file("prices", gn8_payg("15.09", "a corrected source [T]")));
  CHECK_NOTHROW(import_catalog_file(f.db(), same));
  CHECK(all_charges(f) == before);
}

TEST_CASE("a bundled catalog reload keeps a row that settled charges use",
          "[catalog][import][pinned]") {
  ReplayFixture f;
  settle(f);
  const std::int64_t used = f.count(
      "SELECT price_id FROM charge WHERE kind = 'settlement' AND component = 'compute' LIMIT 1");
  // As if an older gpubill had stored another amount in the row: a newer bundled catalog's
  // values do not reach the row the settled lines name.
  f.conn().exec("UPDATE price SET amount = '15.10' WHERE id = " + std::to_string(used));
  f.conn().exec("UPDATE meta SET value = 'older' WHERE key = 'bundled_catalog'");
  CHECK(ensure_bundled_catalog(f.db()));
  CHECK(f.count("SELECT count(*) FROM price WHERE id = " + std::to_string(used) +
                " AND amount = '15.10'") == 1);
}

TEST_CASE("a provider or instance type that settled bills use is re-declared only with redefine",
          "[catalog][import][pinned]") {
  ReplayFixture f;
  settle(f);
  const std::string before = all_charges(f);
  const std::string zone = f.write_log(
      "zone.json", catalog_file("providers",
                                R"({"id": "tencent", "name": "Tencent Cloud", "currency": "CNY",
                       "billing_time_zone": "UTC"})"));
  const std::string lines =
      std::to_string(f.count("SELECT count(*) FROM charge WHERE provider = 'tencent'"));
  CHECK(error_of([&] { import_catalog_file(f.db(), zone); }) ==
        zone + ":/providers/0: field 'billing_time_zone': provider tencent is used by " + lines +
            " settled charge lines (accounts demo); re-declaring it changes billing_time_zone "
            "Asia/Shanghai → UTC: pass --redefine to change it, then `gpubill rebuild` re-prices "
            "them");
  const std::string type = f.write_log(
      "type.json", catalog_file("instance_types",
                                R"({"provider": "tencent", "id": "GN8.LARGE56", "family": "GN8",
                                    "gpu": "H100", "gpu_count": "8"})"));
  CHECK_THAT(error_of([&] { import_catalog_file(f.db(), type); }),
             Catch::Contains(":/instance_types/0: field 'gpu': instance type tencent GN8.LARGE56 "
                             "is used by") &&
                 Catch::Contains("re-declaring it changes gpu P40 → H100, gpu_count 1 "
                                 "→ 8: pass --redefine"));
  CHECK(all_charges(f) == before);

  ImportOptions redefine;
  redefine.redefine = true;
  const ImportReport r = import_catalog_file(f.db(), type, redefine);
  REQUIRE(r.notes.size() == 1);
  CHECK_THAT(r.notes[0], Catch::StartsWith("redefined instance type tencent GN8.LARGE56: gpu P40 "
                                           "→ H100, gpu_count 1 → 8; instance type "
                                           "tencent GN8.LARGE56 is used by"));
  CHECK(all_charges(f) == before);  // settled lines move only with a rebuild
}

TEST_CASE("a rebuild lists every charge line it re-prices", "[catalog][rebuild][pinned]") {
  ReplayFixture f;
  settle(f);
  const std::string later = f.write_log(
      "later.json", catalog_file("prices",
                                 R"({"provider": "tencent", "instance_type": "GN8.LARGE56",
                       "region": "ap-guangzhou", "mode": "payg",
                       "unit": "hour", "amount": "12.00", "currency": "CNY",
                       "effective_from": "2019-03-02", "source": "TEST FIXTURE [T]",
                       "as_of": "2019-03-02"})"));
  import_catalog_file(f.db(), later);
  RebuildOptions o;
  o.accounts = {"demo"};
  const RebuildReport r = rebuild_accounts(f.db(), o);
  // The 46 hours from 2019-03-01T03:00Z at 15.09 CNY/h became 21 hours at 15.09 and 25 at 12.
  const auto show = [](const MovedLine& m) {
    const auto total = [](const std::optional<Money>& x) {
      return x ? x->amount().to_string() + " " + x->currency().to_string() : std::string("none");
    };
    return m.account + " " + m.instance + " " + m.component + " " + m.kind + " " +
           format_instant(m.period_start) + " " + format_instant(m.period_end) + " " +
           total(m.before) + " → " + total(m.after);
  };
  REQUIRE(r.moved.size() == 3);
  CHECK(show(r.moved[0]) ==
        "demo gn8-payg compute settlement 2019-03-01T03:00:00Z 2019-03-02T00:00:00Z none → "
        "316.89 CNY");
  CHECK(show(r.moved[1]) ==
        "demo gn8-payg compute settlement 2019-03-01T03:00:00Z 2019-03-03T01:00:00Z 694.14 CNY → "
        "none");
  CHECK(show(r.moved[2]) ==
        "demo gn8-payg compute settlement 2019-03-02T00:00:00Z 2019-03-03T01:00:00Z none → 300 "
        "CNY");
  // A second rebuild moves nothing.
  CHECK(rebuild_accounts(f.db(), o).moved.empty());
}

TEST_CASE("imported rows are checked against the engine's bounds whatever their format",
          "[catalog][import][bounds]") {
  ReplayFixture f;
  const auto error = [&](const std::string& section, const std::string& row) {
    const std::string file = f.write_log("bad.json", catalog_file(section, row));
    return error_of([&] { import_catalog_file(f.db(), file); }).substr(file.size());
  };
  CHECK(error("discounts", R"({"provider": "tencent", "mode": "prepaid", "min_months": 12,
            "max_months": 23, "factor": "1000", "effective_from": "2019-01-01",
            "source": "T", "as_of": "2019-01-01"})") ==
        ":/discounts/0: field 'factor': must be above 0 and at most 1 (the share of the list price "
        "paid), found 1000");
  CHECK(error("prices", R"({"provider": "tencent", "instance_type": "GN8.LARGE56", "mode": "payg",
            "unit": "month", "amount": "100", "currency": "CNY", "effective_from": "2019-01-01",
            "source": "T", "as_of": "2019-01-01"})") ==
        ":/prices/0: field 'unit': a payg price is per hour, not per month");
  CHECK(error("prices", R"({"provider": "tencent", "instance_type": "GN8.LARGE56", "mode": "payg",
            "unit": "hour", "amount": "1", "currency": "CNY", "effective_from": "0000-01-01",
            "source": "T", "as_of": "2019-01-01"})") ==
        ":/prices/0: field 'effective_from': 0000-01-01T00:00:00Z is before "
        "2006-01-01T00:00:00Z, when cloud servers were first sold; check the year");

  const std::string csv =
      f.write_log("vms.csv",
                  "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,"
                  "AvailabilityZone,SpotPrice\n"
                  "p3.2xlarge,V100,1,8,61,3.06,us-east-1,use1-az1,0.9\n");
  SkyPilotOptions sky;
  sky.as_of = "0000-01-01";
  CHECK(error_of([&] { import_skypilot_file(f.db(), csv, sky); }) ==
        csv +
            ": field '--as-of': 0000-01-01T00:00:00Z is before 2006-01-01T00:00:00Z, when "
            "cloud servers were first sold; check the year");
}
