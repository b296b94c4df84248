// Golden outputs of `gpubill catalog diff` (tests/data/catalog-diff.json, every change commented
// in catalog_diff_test.cpp).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "cli_run.hpp"
#include "temp_dir.hpp"

using gpubill::testing::CliRun;
using gpubill::testing::TempDir;

namespace {

// A database with the bundled catalog and one test catalog file.
struct Db {
  TempDir dir;
  std::string flag;
  explicit Db(const char* catalog) : flag(" --db '" + dir.file("d.db") + "'") {
    gpubill::testing::ensure_database(dir.file("d.db"));
    const CliRun r =
        run(std::string("catalog import '") + GPUBILL_SOURCE_DIR + "/tests/data/" + catalog + "'");
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
  const Db db("catalog-diff.json");
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
diffcloud,instance,D.ONE,*,payg,changed,3,3.3,CNY,hour,0.3,+10.00,10,2021-01-01,2021-05-01
diffcloud,instance,D.ONE,d-1,payg,changed,0,0.5,CNY,hour,0.5,,,2021-01-01,2021-05-01
diffcloud,instance,D.ONE,d-2,payg,changed,0.3,0.4,CNY,hour,0.1,+33.33,33.333333333333,2021-01-01,2021-05-01
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

  const CliRun none =
      db.run("catalog diff --from 2021-02-01 --provider diffcloud --mode reserved_3y");
  CHECK(none.status == 4);
  CHECK_THAT(none.output, Catch::Contains("No price matches the filters"));
}
