// The HTML reports show the CLI's numbers: every amount cell of a report (data-col, data-value
// and its text) is compared with the same column of the CLI's CSV for the same input.
#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include "base/csv_reader.hpp"
#include "cli_run.hpp"
#include "temp_dir.hpp"

namespace {

using gpubill::testing::run_cli;
using gpubill::testing::Stderr;

const std::string kSource = GPUBILL_SOURCE_DIR;

struct Cell {
  std::string value, shown;
};
// One table row of a report: its attributes' text and its numeric cells by data-col.
struct HtmlRow {
  std::string attributes;
  std::map<std::string, Cell> cells;
};

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The rows of the first <table class="CLS"> of the page.
std::vector<HtmlRow> html_rows(const std::string& page, const std::string& cls) {
  const auto start = page.find("<table class=\"" + cls + "\">");
  REQUIRE(start != std::string::npos);
  const auto end = page.find("</table>", start);
  const std::string table = page.substr(start, end - start);
  static const std::regex row_re("<tr([^>]*)>(.*?)</tr>");
  static const std::regex cell_re(
      "<td class=\"num\" data-col=\"([^\"]+)\" data-value=\"([^\"]+)\">([^<]*)</td>");
  std::vector<HtmlRow> rows;
  for (std::sregex_iterator it(table.begin(), table.end(), row_re), e; it != e; ++it) {
    const std::string body = (*it)[2];
    if (body.find("<td") == std::string::npos) continue;  // the header
    HtmlRow row{(*it)[1], {}};
    for (std::sregex_iterator c(body.begin(), body.end(), cell_re); c != e; ++c) {
      row.cells[(*c)[1]] = {(*c)[2], (*c)[3]};
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

// CSV records as maps from the header's names.
// The rows of a CSV as maps by header; of a sectioned document's CSV, only the rows of
// `section` (its `section` column).
std::vector<std::map<std::string, std::string>> csv_rows(const std::string& text,
                                                         const std::string& section = "") {
  const auto records = gpubill::parse_csv(text, "cli output");
  REQUIRE(!records.empty());
  std::vector<std::map<std::string, std::string>> out;
  for (std::size_t r = 1; r < records.size(); ++r) {
    std::map<std::string, std::string> row;
    for (std::size_t c = 0; c < records[0].fields.size(); ++c) {
      row[records[0].fields[c]] = records[r].fields.at(c);
    }
    if (!section.empty() && row.at("section") != section) continue;
    out.push_back(std::move(row));
  }
  return out;
}

// A command's CSV and the matching report's page, on a fresh database (after `setup`, a command
// run on it, when given). `command` and `report` are the arguments after --db.
struct Rendered {
  std::string csv, page;
};
Rendered render(const std::string& command, const std::string& report,
                const std::string& setup = "") {
  gpubill::testing::TempDir dir;
  const std::string db = "--db '" + dir.file("r.db") + "' ";
  gpubill::testing::ensure_database(dir.file("r.db"));
  if (!setup.empty()) REQUIRE(run_cli(db + setup, Stderr::discarded).status == 0);
  const auto csv = run_cli(db + command + " --format csv", Stderr::discarded);
  REQUIRE(csv.status == 0);
  const std::string html = dir.file("report.html");
  REQUIRE(run_cli(db + report + " -o '" + html + "'").status == 0);
  return {csv.output, read_file(html)};
}

}  // namespace

TEST_CASE("report quote: every bar's and cell's total equals gpubill quote's CSV", "[report]") {
  const std::string workload = " '" + kSource + "/fixtures/workloads/v100-month.json'";
  const auto [csv, page] = render("quote" + workload + " --top 0 --at 2026-07-13",
                                  "report quote" + workload + " --at 2026-07-13");
  const auto expected = csv_rows(csv);
  const auto rows = html_rows(page, "lines");
  REQUIRE(rows.size() == expected.size());
  REQUIRE(rows.size() > 10);
  std::size_t priced = 0;
  std::map<std::string, int> bars;  // lines of each mode met so far
  for (std::size_t i = 0; i < rows.size(); ++i) {
    INFO("line " << expected[i].at("id"));
    CHECK(rows[i].attributes.find("data-id=\"" + expected[i].at("id") + "\"") != std::string::npos);
    CHECK(rows[i].cells.at("rank").value == expected[i].at("rank"));
    if (expected[i].at("total_exact").empty()) continue;
    ++priced;
    CHECK(rows[i].cells.at("total_exact").value == expected[i].at("total_exact"));
    CHECK(rows[i].cells.at("total_exact").shown == expected[i].at("total"));
    CHECK(expected[i].at("currency") == "CNY");
    CHECK(rows[i].cells.at("per_gpu_hour").shown == expected[i].at("per_gpu_hour"));
    const auto& be = expected[i].at("break_even_h_per_month");
    if (!be.empty()) CHECK(rows[i].cells.at("break_even_h_per_month").shown == be);
    // The best 10 lines of each mode have a bar with the same exact total.
    if (++bars[expected[i].at("mode")] > 10) continue;
    CHECK(page.find("data-rank=\"" + expected[i].at("rank") + "\" data-mode=\"" +
                    expected[i].at("mode") + "\" data-total=\"" + expected[i].at("total_exact") +
                    "\"") != std::string::npos);
  }
  CHECK(priced > 10);
}

TEST_CASE("report lease-vs-buy: the months table equals gpubill lease-vs-buy's CSV", "[report]") {
  const std::string config = " '" + kSource + "/fixtures/tco/8xV100.json'";
  const auto [csv, page] = render("lease-vs-buy" + config, "report lease-vs-buy" + config);
  const auto expected = csv_rows(csv, "cumulative_cost_by_month_usd");
  const auto rows = html_rows(page, "months");
  REQUIRE(rows.size() == expected.size());
  REQUIRE(rows.size() == 37);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    INFO("month " << i);
    CHECK(expected[i].at("currency") == "USD");
    for (const char* col : {"month", "buy", "rent_payg", "rent_prepaid", "buy_pv", "rent_payg_pv",
                            "rent_prepaid_pv"}) {
      if (expected[i].at(col).empty()) continue;
      CHECK(rows[i].cells.at(col).value == expected[i].at(col));
    }
  }
}

TEST_CASE("report bill: the statement's totals equal gpubill bill's CSV", "[report]") {
  const std::string log = kSource + "/fixtures/logs/report-month.jsonl";
  const std::string month = " --account '研究组' --month 2019-03";
  const auto [csv, page] = render("bill" + month, "report bill" + month,
                                  "replay '" + log + "' --until 2019-04-01T00:00:00+08:00");
  const auto expected = csv_rows(csv, "charges_by_instance_and_component");
  const auto rows = html_rows(page, "components");
  REQUIRE(rows.size() == expected.size());
  REQUIRE(rows.size() == 2);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    for (const char* col : {"settlements", "exact", "billed"}) {
      CHECK(rows[i].cells.at(col).value == expected[i].at(col));
    }
    // The page signs a rounding ("+0.005", as the text table does); CSV amounts carry no "+".
    const std::string& rounding = rows[i].cells.at("rounding").shown;
    CHECK((rounding.rfind('+', 0) == 0 ? rounding.substr(1) : rounding) ==
          expected[i].at("rounding"));
  }
  // Every charge line links to an explanation that the page holds.
  static const std::regex link_re("href=\"#(charge-[0-9]+)\"");
  std::size_t links = 0;
  for (std::sregex_iterator it(page.begin(), page.end(), link_re), e; it != e; ++it, ++links) {
    CHECK(page.find("id=\"" + std::string((*it)[1]) + "\"") != std::string::npos);
  }
  CHECK(links > 0);
}

TEST_CASE("report: names from user files are escaped", "[report]") {
  gpubill::testing::TempDir dir;
  const std::string db = dir.file("e.db");
  gpubill::testing::ensure_database(db);
  const std::string log = dir.file("evil.jsonl");
  {
    std::ofstream out(log);
    out << R"({"id":"t1","time":"2019-03-01T09:00:00+08:00","type":"topup","account":"lab","amount":"50.00","currency":"CNY"})"
        << "\n"
        << R"({"id":"c1","time":"2019-03-01T10:00:00+08:00","type":"create","account":"lab","instance":"<b>训练&\"x'</b>","provider":"tencent","region":"ap-guangzhou","instance_type":"GN8.LARGE56","mode":"payg"})"
        << "\n";
  }
  REQUIRE(run_cli("--db '" + db + "' replay '" + log + "' --until 2019-03-02", Stderr::discarded)
              .status == 0);
  const std::string html = dir.file("bill.html");
  REQUIRE(run_cli("--db '" + db + "' report bill --account lab --month 2019-03 -o '" + html + "'")
              .status == 0);
  const std::string page = read_file(html);
  CHECK(page.find("<b>") == std::string::npos);
  CHECK(page.find("&lt;b&gt;训练&amp;&quot;x&#39;&lt;/b&gt;") != std::string::npos);
  CHECK(page.find("<script") == std::string::npos);
}
