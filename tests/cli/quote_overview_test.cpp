// The default quote (a terminal, no flags) answers "where is it cheapest?": the best line of
// each provider and billing mode, spot apart and marked interruptible, one line counting what
// it leaves out, fitted to the terminal without cutting a name (issue 28 item 3, issue 30
// item 6). JSON and CSV keep every line (issue 30 item 8).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "cli_run.hpp"
#include "temp_dir.hpp"
#include "terminal_run.hpp"

using gpubill::testing::db_flag;
using gpubill::testing::TempDir;

namespace {

// The lines of the tables: from the first group title to the notes.
std::vector<std::string> table_lines(const std::string& output) {
  std::vector<std::string> out;
  bool in = false;
  for (const auto& line : gpubill::testing::lines_of(output)) {
    for (const char* group : {"Pay-as-you-go", "Prepaid and reserved", "Spot, ", "STALE"}) {
      if (line.rfind(group, 0) == 0) in = true;
    }
    if (line.rfind("Notes:", 0) == 0 || line.rfind("Not shown:", 0) == 0) break;
    if (in) out.push_back(line);
  }
  return out;
}

}  // namespace

TEST_CASE("the default quote fits 80 and 120 columns without cutting a name",
          "[quote][cli][output]") {
  TempDir dir;
  const std::string args = "quote --gpu V100 --count 1 --hours 720 --at 2026-12-02" + db_flag(dir);
  for (int columns : {80, 120}) {
    // The default answer, and every line (--top 0) with the notes numbered under it.
    for (const std::string& more : {std::string(), std::string(" --top 0")}) {
      const auto r = gpubill::testing::on_terminal(args + more, columns);
      INFO(columns << " columns" << more << ":\n" << r.output);
      CHECK(r.status == 0);
      REQUIRE(r.output.find("p3.2xlarge") != std::string::npos);
      for (const auto& line : gpubill::testing::lines_of(r.output)) {
        INFO(line);
        CHECK(gpubill::testing::display_columns(line) <= static_cast<std::size_t>(columns));
        CHECK(line.find("\u2026") == std::string::npos);  // names and note numbers whole
      }
    }
  }
}

TEST_CASE("the default quote shows each provider's best line per billing mode",
          "[quote][cli][output]") {
  TempDir dir;
  const std::string base = "quote --gpu V100 --count 1 --hours 720 --at 2026-12-02" + db_flag(dir);
  const auto text = gpubill::testing::run_cli(base, gpubill::testing::Stderr::discarded);
  INFO(text.output);
  REQUIRE(text.status == 0);
  CHECK_THAT(text.output, Catch::Contains("Spot, INTERRUPTIBLE"));
  CHECK_THAT(text.output, Catch::Contains("Not shown: "));
  CHECK_THAT(text.output, Catch::Contains("--top 0 lists"));
  CHECK_THAT(text.output,
             Catch::Contains("Catalog effective date per provider (its newest price source): "));

  // Every line of the JSON (no --top: all of them), the cheapest current one per provider and
  // mode; the text must show exactly those ranks.
  const auto json =
      gpubill::testing::run_cli(base + " --format json", gpubill::testing::Stderr::discarded);
  REQUIRE(json.status == 0);
  const auto doc = nlohmann::json::parse(json.output);
  CHECK(doc["lines"].size() ==
        doc["lines_priced"].get<std::size_t>() + doc["lines_unknown"].get<std::size_t>());
  // Current lines and stale ones (listed apart) are each the best of their provider and mode.
  std::map<std::tuple<bool, std::string, std::string>, int> best;
  std::set<std::string> providers;
  for (const auto& l : doc["lines"]) {
    if (!l["priced"].get<bool>()) continue;
    const auto key = std::make_tuple(l["stale"].get<bool>(), l["provider"].get<std::string>(),
                                     l["mode"].get<std::string>());
    if (!best.count(key)) best[key] = l["rank"].get<int>();
    providers.insert(std::get<1>(key));
  }
  CHECK(providers.size() >= 5);
  const auto lines = table_lines(text.output);
  std::set<int> shown;
  for (const auto& line : lines) {
    const auto first = line.find_first_not_of(' ');
    if (first == std::string::npos || !std::isdigit(static_cast<unsigned char>(line[first]))) {
      continue;
    }
    shown.insert(std::stoi(line.substr(first)));
  }
  std::set<int> expected;
  for (const auto& [key, rank] : best) expected.insert(rank);
  CHECK(shown == expected);
}

TEST_CASE("quote --top N, json and csv keep every line", "[quote][cli][output]") {
  TempDir dir;
  const std::string base = "quote --gpu V100 --hours 720 --at 2026-12-02" + db_flag(dir);
  const auto top = gpubill::testing::run_cli(base + " --top 5 --format json",
                                             gpubill::testing::Stderr::discarded);
  REQUIRE(top.status == 0);
  const auto top_doc = nlohmann::json::parse(top.output);
  std::size_t priced = 0;
  for (const auto& l : top_doc["lines"]) priced += l["priced"].get<bool>() ? 1 : 0;
  CHECK(priced == 5);

  const auto csv =
      gpubill::testing::run_cli(base + " --format csv", gpubill::testing::Stderr::discarded);
  REQUIRE(csv.status == 0);
  const auto rows = gpubill::testing::lines_of(csv.output);
  REQUIRE(rows.size() > 1);
  CHECK_THAT(rows[0], Catch::Contains(",priced,"));
  const auto all = nlohmann::json::parse(
      gpubill::testing::run_cli(base + " --format json", gpubill::testing::Stderr::discarded)
          .output);
  CHECK(rows.size() - 1 == all["lines"].size());
  CHECK(csv.output.find(",unknown,") == std::string::npos);  // an unknown total is empty
  CHECK(csv.output.find("'-") == std::string::npos);         // no mode written as '-
}

TEST_CASE("a piped quote table stays narrow: notes go under it", "[quote][cli][output]") {
  TempDir dir;
  const auto r = gpubill::testing::run_cli(
      "quote --gpu V100 --hours 720 --top 0 --at 2026-12-02" + db_flag(dir),
      gpubill::testing::Stderr::discarded);
  REQUIRE(r.status == 0);
  std::size_t widest = 0;
  for (const auto& line : gpubill::testing::lines_of(r.output)) {
    if (line.rfind("[", 0) == 0) continue;     // a note under the table
    if (line.rfind("  - ", 0) == 0) continue;  // an assumption above it
    widest = std::max(widest, gpubill::testing::display_columns(line));
  }
  CHECK(widest <= 200);
  CHECK_THAT(r.output, Catch::Contains("\n[1] "));
}

TEST_CASE("a quote with nothing priced exits 4", "[quote][cli]") {
  TempDir dir;
  const auto r =
      gpubill::testing::run_cli("quote --gpu V100 --hours 720 --at 2015-01-01" + db_flag(dir));
  INFO(r.output);
  CHECK(r.status == 4);
  const auto j = gpubill::testing::run_cli(
      "quote --gpu V100 --hours 720 --at 2015-01-01 --format json" + db_flag(dir),
      gpubill::testing::Stderr::discarded);
  CHECK(j.status == 4);
}
