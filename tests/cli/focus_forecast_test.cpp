// After `replay --until`, the FOCUS export stops at the replay's end: the amortised hours of a
// prepaid order after it are a forecast, exported alone by `--forecast` (issue 30 item 5).
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "base/csv_reader.hpp"
#include "cli_run.hpp"
#include "gpubill/base/decimal.hpp"
#include "temp_dir.hpp"

using gpubill::testing::run_cli;
using gpubill::testing::Stderr;

namespace {

std::vector<std::map<std::string, std::string>> rows_of(const std::string& csv) {
  const auto records = gpubill::parse_csv(csv, "focus");
  REQUIRE_FALSE(records.empty());
  std::vector<std::map<std::string, std::string>> out;
  for (std::size_t r = 1; r < records.size(); ++r) {
    std::map<std::string, std::string> row;
    for (std::size_t c = 0; c < records[0].fields.size(); ++c) {
      row[records[0].fields[c]] = records[r].fields.at(c);
    }
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace

TEST_CASE("FOCUS: amortised hours after the replay's end are a separate forecast", "[focus][cli]") {
  gpubill::testing::TempDir dir;
  const std::string db = " --db '" + dir.file("f.db") + "'";
  const std::string log = std::string(GPUBILL_SOURCE_DIR) + "/fixtures/logs/tencent-gn8.jsonl";
  REQUIRE(run_cli("replay '" + log + "' --until 2019-04-01T00:00:00+08:00" + db, Stderr::discarded)
              .status == 0);
  const std::string end = "2019-03-31T16:00:00Z";  // the replay's end, in UTC
  const auto billed = run_cli("charges --format focus" + db, Stderr::discarded);
  REQUIRE(billed.status == 0);
  std::size_t amortised = 0;
  for (const auto& row : rows_of(billed.output)) {
    if (row.at("x_RowKind") != "amortisation") continue;
    ++amortised;
    CHECK(row.at("ChargePeriodStart") < end);
  }
  CHECK(amortised > 0);

  const auto forecast = run_cli("charges --format focus --forecast" + db, Stderr::discarded);
  REQUIRE(forecast.status == 0);
  const auto rows = rows_of(forecast.output);
  REQUIRE_FALSE(rows.empty());
  for (const auto& row : rows) {
    CHECK(row.at("x_RowKind") == "forecast");
    CHECK(row.at("ChargePeriodStart") >= end);
    CHECK(row.at("BilledCost") == "0");
    CHECK(row.at("x_ExactCost") == "0");
    CHECK(row.at("x_RoundingAmount") == "0");
    // FOCUS's own columns say it too: on no invoice yet, not a correction, a Usage row whose
    // description starts with "Forecast".
    CHECK(row.at("InvoiceId").empty());
    CHECK(row.at("ChargeClass").empty());
    CHECK(row.at("ChargeCategory") == "Usage");
    CHECK(row.at("ChargeDescription").rfind("Forecast (after the replay's end", 0) == 0);
  }
  CHECK(run_cli("charges --forecast" + db).status == 1);  // only with --format focus

  // The custom columns add up: over the billed export, x_ExactCost and x_RoundingAmount sum to
  // the charge lines' exact totals and roundings, BilledCost to what was billed; the purchases'
  // EffectiveCost is spread over the billed and the forecast rows, so the two exports'
  // EffectiveCost sum to BilledCost.
  using gpubill::Decimal;
  const auto sum = [](const std::vector<std::map<std::string, std::string>>& rows,
                      const std::string& column) {
    Decimal total;
    for (const auto& row : rows) total += Decimal::parse(row.at(column));
    return total;
  };
  const auto billed_rows = rows_of(billed.output);
  const auto lines = run_cli("charges --format csv" + db, Stderr::discarded);
  REQUIRE(lines.status == 0);
  const auto line_rows = rows_of(lines.output);
  REQUIRE_FALSE(line_rows.empty());
  CHECK(sum(billed_rows, "x_ExactCost") == sum(line_rows, "total_exact"));
  CHECK(sum(billed_rows, "x_RoundingAmount") ==
        sum(line_rows, "total_billed") - sum(line_rows, "total_exact"));
  CHECK(sum(billed_rows, "BilledCost") == sum(line_rows, "total_billed"));
  CHECK(sum(billed_rows, "EffectiveCost") + sum(rows, "EffectiveCost") ==
        sum(billed_rows, "BilledCost"));
}
