// Golden outputs of `gpubill catalog diff` (tests/data/catalog-diff.json, every change commented
// in catalog_diff_test.cpp) and `gpubill quote --compare-to` (two quotes of
// tests/data/testcloud.json at two dates: T.SMALL pay-as-you-go is 10.00/h until 2020-06-01
// 12:15 +08:00, then 12.00/h).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cli_run.hpp"
#include "json_schema.hpp"
#include "temp_dir.hpp"

using gpubill::testing::CliRun;
using gpubill::testing::TempDir;

namespace {

// A database with the bundled catalog and one test catalog file.
struct DiffDb {
  TempDir dir;
  std::string flag;
  explicit DiffDb(const char* catalog) : flag(" --db '" + dir.file("d.db") + "'") {
    gpubill::testing::ensure_database(dir.file("d.db"));
    const CliRun r =
        run(std::string("catalog import --force '") + GPUBILL_SOURCE_DIR + "/tests/data/" +
            catalog + "'");  // the fixture breaks catalog check's floors on purpose
    REQUIRE(r.status == 0);
  }
  CliRun run(const std::string& args, bool with_stderr = true) const {
    using gpubill::testing::Stderr;
    return gpubill::testing::run_cli(args + flag, with_stderr ? Stderr::merged : Stderr::discarded);
  }
};

// The CSV without its from_row_id and to_row_id columns (13 and 14; no cell here is quoted).
std::string without_row_ids(const std::string& csv) {
  std::string out;
  std::size_t start = 0;
  while (start < csv.size()) {
    const std::size_t end = csv.find('\n', start);
    std::vector<std::string> cells;
    std::size_t from = start;
    for (std::size_t comma; (comma = csv.find(',', from)) < end; from = comma + 1) {
      cells.push_back(csv.substr(from, comma - from));
    }
    cells.push_back(csv.substr(from, end - from));
    for (std::size_t i = 0; i < cells.size(); ++i) {
      if (i == 13 || i == 14) continue;
      out += (out.empty() || out.back() == '\n' ? "" : ",") + cells[i];
    }
    out += '\n';
    start = end + 1;
  }
  return out;
}

}  // namespace

TEST_CASE("gpubill catalog diff lists added, removed and changed prices", "[catalog][diff][cli]") {
  const DiffDb db("catalog-diff.json");
  const std::string diff = "catalog diff --from 2021-02-01 --to 2021-07-01 --provider diffcloud";
  const CliRun t = db.run(diff);
  INFO(t.output);
  CHECK(t.status == 0);
  CHECK(
      t.output ==
      R"(Prices in force at 2021-02-01T00:00:00Z → 2021-07-01T00:00:00Z: 2 added, 1 removed, 7 changed, 2 unchanged.

provider   subject_kind  subject  region  mode         change   from_price  to_price  currency  unit         delta  change_pct
---------  ------------  -------  ------  -----------  -------  ----------  --------  --------  ----------  ------  ----------
diffcloud  instance      D.ONE    *       payg         changed           3       3.3  CNY       hour           0.3      +10.00
diffcloud  instance      D.ONE    *       prepaid      changed        1800      1650  CNY       month         -150       -8.33
diffcloud  instance      D.ONE    d-1     payg         changed           0       0.5  CNY       hour           0.5
diffcloud  instance      D.ONE    d-1     spot         removed           1            CNY       hour
diffcloud  instance      D.ONE    d-2     payg         changed         0.3       0.4  CNY       hour           0.1      +33.33
diffcloud  instance      D.TWO    *       reserved_1y  changed           4      2000  CNY       hour→month
diffcloud  instance      D.TWO    d-2     payg         added                     6.5  CNY       hour
diffcloud  instance      D.TWO    d-2     spot         changed           2    2.2469  CNY       hour        0.2469      +12.35
diffcloud  instance      D.V      *       payg         changed          20        10  CNY       hour           -10      -50.00
diffcloud  gpu           T4       *       payg         added                    1.25  CNY       hour

region * = a price for every region; delta = to_price − from_price; change_pct = 100 × delta ÷ from_price, rounded half up to 2 decimals (blank when the currency or unit changed, or from_price is 0).
)");

  const CliRun c = db.run(diff + " --gpu T4 --mode payg --format csv");
  INFO(c.output);
  CHECK(c.status == 0);
  // The row ids depend on the bundled catalog's size: left out.
  CHECK(
      without_row_ids(c.output) ==
      R"(provider,subject_kind,subject,region,mode,change,from_price,to_price,currency,unit,delta,change_pct,change_pct_exact,from_as_of,to_as_of
diffcloud,instance,D.ONE,*,payg,changed,3,3.3,CNY,hour,0.3,10.00,10,2021-01-01,2021-05-01
diffcloud,instance,D.ONE,d-1,payg,changed,0,0.5,CNY,hour,0.5,,,2021-01-01,2021-05-01
diffcloud,instance,D.ONE,d-2,payg,changed,0.3,0.4,CNY,hour,0.1,33.33,33.333333333333,2021-01-01,2021-05-01
diffcloud,instance,D.TWO,d-2,payg,added,,6.5,CNY,hour,,,,,2021-06-01
diffcloud,gpu,T4,*,payg,added,,1.25,CNY,hour,,,,,2021-05-01
)");

  const CliRun j = db.run(diff + " --format json", false);
  REQUIRE(j.status == 0);
  const auto doc = nlohmann::json::parse(j.output);
  CHECK(doc["from"] == "2021-02-01T00:00:00Z");
  CHECK(doc["added"] == 2);
  CHECK(doc["removed"] == 1);
  CHECK(doc["changed"] == 7);
  CHECK(doc["unchanged"] == 2);
  REQUIRE(doc["changes"].size() == 10);
  CHECK(doc["changes"][1]["change_pct"] == "-8.33");
  CHECK(doc["changes"][1]["change_pct_exact"] == "-8.333333333333");
  CHECK(doc["changes"][3]["change"] == "removed");
  CHECK(doc["changes"][3]["to_price"].is_null());
  CHECK(doc["changes"][0]["change_pct"] == "10.00");  // a decimal, unsigned (+ in the table)
  CHECK(doc["changes"][0]["from_row_id"].is_number_integer());
  CHECK(doc["changes"][6]["from_row_id"].is_null());  // added
  gpubill::testing::check_schema("catalog-diff.schema.json", doc);

  const CliRun none =
      db.run("catalog diff --from 2021-02-01 --provider diffcloud --mode reserved_3y");
  CHECK(none.status == 4);
  CHECK_THAT(none.output, Catch::Contains("No price matches the filters"));
}

TEST_CASE("gpubill quote --compare-to shows what changed since an earlier quote",
          "[quote][compare][cli]") {
  const DiffDb db("testcloud.json");
  const std::string quote = "quote --gpu T4 --hours 10 --provider testcloud";
  const std::string before = db.dir.file("before.json");
  {
    const CliRun r = db.run(quote + " --at 2020-03-01 --format json > '" + before + "'", false);
    REQUIRE(r.status == 0);
  }
  // Later: T.SMALL dearer (payg 10 h × 12.00); testcloud-us allowed (new); prepaid not (removed).
  // (T.LARGE has two T4s: it does not fit one.)
  const std::string now =
      "quote --gpu T4 --hours 10 --provider testcloud --provider testcloud-us "
      "--mode payg --at 2020-07-01 --compare-to '" +
      before + "'";
  const CliRun t = db.run(now);
  INFO(t.output);
  CHECK(t.status == 0);
  // U.GPU: 10 h × 1.00 USD at the bundled USD→CNY rate in force on 2020-07-01 (7.0744).
  CHECK(
      t.output ==
      "Compared with " + before +
          R"( (prices at 2020-03-01T00:00:00Z; now 2020-07-01T00:00:00Z): 1 new, 1 removed, 1 with a new price, 0 moved by the exchange rate only, 0 by both a new price and the exchange rate, 0 changed otherwise, 0 only moved in rank, 0 the same.

change   rank   move  provider      region  instance_type  mode     unit_price   price_pct      was   total  delta  by_price  by_fx  total_pct
-------  -----  ----  ------------  ------  -------------  -------  -----------  ---------  -------  ------  -----  --------  -----  ---------
new      1            testcloud-us  *       U.GPU          payg     1 USD                             70.74
price    1 → 2    -1  testcloud     *       T.SMALL        payg     10 → 12 CNY     +20.00   100.00  120.00  20.00                      +20.00
removed  2            testcloud     *       T.SMALL        prepaid  3000 CNY                3000.00

Lines are matched by provider, region, instance type and mode. change: price (the unit price moved), fx (same price in another currency, the exchange rate moved the total), price+fx (both moved: by_price is the move at the earlier rate, by_fx what the rate moved, current amount × (rate now − rate before); they add up to delta), changed (the total moved otherwise, or a price became known), moved (only the rank), same. move: places up (+) or down (−) the ranking; delta = total − was; percentages of the earlier value, rounded half up to 2 decimals. Totals are in CNY.
)");

  const CliRun c = db.run(now + " --format csv");
  INFO(c.output);
  CHECK(c.status == 0);
  CHECK(
      c.output ==
      R"(change,provider,region,instance_type,mode,rank_before,rank_after,rank_move,price_before,price_after,price_currency,price_delta,price_pct,total_before,total_after,total_currency,total_delta,total_pct,total_pct_exact,total_delta_price,total_delta_fx,fx_rate_before,fx_rate_after
new,testcloud-us,*,U.GPU,payg,,1,,,1,USD,,,,70.744,CNY,,,,,,,7.0744
price,testcloud,*,T.SMALL,payg,1,2,-1,10,12,CNY,2,20.00,100,120,CNY,20,20.00,20,,,1,1
removed,testcloud,*,T.SMALL,prepaid,2,,,3000,,CNY,,,3000,,CNY,,,,,,1,
)");

  const CliRun j = db.run(now + " --format json", false);
  REQUIRE(j.status == 0);
  const auto doc = nlohmann::json::parse(j.output);
  CHECK(doc["compared_to"] == before);
  CHECK(doc["before_at"] == "2020-03-01T00:00:00Z");
  CHECK(doc["new"] == 1);
  CHECK(doc["removed"] == 1);
  CHECK(doc["price"] == 1);  // a price move, not a vague "changed" (issue 30 item 9)
  CHECK(doc["fx"] == 0);
  CHECK(doc["changed"] == 0);
  CHECK(doc["moved"] == 0);
  CHECK(doc["same"] == 0);
  CHECK(doc["lines"][1]["total_pct_exact"] == "20");
  CHECK(doc["lines"][1]["total_pct"] == "20.00");
  CHECK(doc["lines"][1]["rank_move"] == -1);
  CHECK(doc["lines"][0]["rank_before"].is_null());  // new
  CHECK(doc["lines"][1]["total_currency"] == "CNY");
  gpubill::testing::check_schema("quote-compare.schema.json", doc);

  // The same earlier quote in a schema_version envelope compares the same.
  const std::string wrapped = db.dir.write(
      "wrapped.json", "{\"schema_version\": 1, \"quote\": " + [&] {
        std::ifstream in(before);
        return std::string(std::istreambuf_iterator<char>(in), {});
      }() + "}");
  const CliRun w = db.run(now.substr(0, now.find(" --compare-to")) + " --compare-to '" + wrapped +
                          "' --format csv");
  CHECK(w.status == 0);
  CHECK(w.output.substr(w.output.find('\n')) == c.output.substr(c.output.find('\n')));
}
