// The quote report draws every series in the report's currency: each prepaid line of the
// prepaid-against-pay-as-you-go chart is at the CNY total the table and `gpubill quote` give for
// that line, a USD-priced offer included (issue 30 item 3).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "cli_run.hpp"
#include "temp_dir.hpp"

using gpubill::testing::run_cli;
using gpubill::testing::Stderr;

TEST_CASE("report quote: every plotted prepaid value equals the quote's total in its currency",
          "[report]") {
  gpubill::testing::TempDir dir;
  gpubill::testing::ensure_database(dir.file("r.db"));
  const std::string db = "--db '" + dir.file("r.db") + "' ";
  const std::string workload =
      " '" + std::string(GPUBILL_SOURCE_DIR) + "/fixtures/workloads/v100-month.json'";
  const auto json =
      run_cli(db + "quote" + workload + " --format json --at 2026-07-13", Stderr::discarded);
  REQUIRE(json.status == 0);
  const auto doc = nlohmann::json::parse(json.output);
  const std::string currency = doc["currency"];
  std::map<std::string, nlohmann::json> lines;  // by line id
  for (const auto& l : doc["lines"]) lines[l["id"].get<std::string>()] = l;

  const std::string html = dir.file("q.html");
  REQUIRE(run_cli(db + "report quote" + workload + " --at 2026-07-13 -o '" + html + "'").status ==
          0);
  std::ifstream in(html);
  std::stringstream page;
  page << in.rdbuf();
  const std::string text = page.str();
  static const std::regex series_re(
      "data-offer=\"([^\"]+)\" data-mode=\"prepaid\" data-per-month=\"([^\"]+)\" "
      "data-currency=\"([A-Z]+)\"");
  std::size_t series = 0, foreign = 0;
  for (std::sregex_iterator it(text.begin(), text.end(), series_re), e; it != e; ++it) {
    const std::string id = std::string((*it)[1]) + "/prepaid";
    INFO(id);
    REQUIRE(lines.count(id) == 1);
    const auto& line = lines[id];
    ++series;
    CHECK((*it)[3] == currency);
    // One month of prepaid use with nothing else priced: the line's total is that month.
    CHECK((*it)[2] == line["total"]["amount"].get<std::string>());
    if (line["unit_price"]["currency"] != currency) ++foreign;
  }
  CHECK(series > 0);
  CHECK(foreign > 0);  // an offer priced in another currency is drawn converted
}
