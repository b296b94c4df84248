// End-to-end runs of a provider's worked example through the CLI (tests/provider_examples/):
// a database of the bundled catalog (plus a test-local catalog with the example's unit prices
// where the bundled one has none), a usage log written as the example describes it, `gpubill
// replay`, then `charges` / `bill` / `explain` read back as JSON.
#pragma once

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_run.hpp"
#include "gpubill/base/decimal.hpp"
#include "gpubill/base/time.hpp"
#include "temp_dir.hpp"

namespace gpubill::testing {

// A decimal cell of a JSON row (amounts and quantities are decimal strings), or a literal.
inline Decimal dec(const nlohmann::json& cell) {
  return Decimal::parse(cell.is_string() ? cell.get<std::string>() : cell.dump());
}
inline Decimal dec(const char* text) {
  return Decimal::parse(text);
}

class ExampleRun {
 public:
  ExampleRun() { ensure_database(db_); }

  // Imports a catalog file of tests/data/. --force: an example's documented unit prices need
  // not look like a market's (catalog check's floors compare them with the bundled catalog).
  void import(const std::string& data_file) {
    const CliRun r = cli("catalog import --force '" + std::string(GPUBILL_SOURCE_DIR) +
                         "/tests/data/" + data_file + "'");
    INFO(r.output);
    REQUIRE(r.status == 0);
  }

  // Writes the log (JSON Lines) and replays it, settling up to `until` when given.
  void replay(const std::string& log, const std::string& until = "") {
    const std::string path = dir_.write("log" + std::to_string(++logs_) + ".jsonl", log);
    const CliRun r =
        cli("replay --quiet '" + path + "'" + (until.empty() ? "" : " --until " + until));
    INFO(r.output);
    REQUIRE(r.status == 0);
  }

  // The account's usage lines (kind "settlement"), in time order.
  nlohmann::json settlements(const std::string& account) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& row : charges(account)) {
      if (row["kind"] == "settlement") out.push_back(row);
    }
    return out;
  }

  // `gpubill charges --account A --format json`: the rows.
  nlohmann::json charges(const std::string& account) {
    const CliRun r = cli("charges --account '" + account + "' --format json", Stderr::discarded);
    INFO(r.output);
    REQUIRE(r.status == 0);
    return nlohmann::json::parse(r.output)["rows"];
  }

  // Σ total_billed of the account's rows of `component` ("" = every component), exactly.
  Decimal billed(const std::string& account, const std::string& component = "") {
    Decimal sum;
    for (const auto& row : charges(account)) {
      if (!component.empty() && row["component"] != component) continue;
      sum += Decimal::parse(row["total_billed"].get<std::string>());
    }
    return sum;
  }

  // `gpubill explain ID --format json`.
  nlohmann::json explain(std::int64_t charge_id) {
    const CliRun r =
        cli("explain " + std::to_string(charge_id) + " --format json", Stderr::discarded);
    INFO(r.output);
    REQUIRE(r.status == 0);
    return nlohmann::json::parse(r.output);
  }

  CliRun cli(const std::string& args, Stderr err = Stderr::merged) {
    return run_cli("--db '" + db_ + "' " + args, err);
  }

 private:
  TempDir dir_;
  std::string db_ = dir_.file("examples.db");
  int logs_ = 0;
};

}  // namespace gpubill::testing
