// End-to-end runs of a provider's worked example through the CLI (tests/provider_examples/,
// issue 27): a database of the bundled catalog (plus a test-local catalog with the example's unit
// prices where the bundled one has none), a usage log written as the example describes it,
// `gpubill replay`, then `charges` / `instances` / `explain` read back as JSON (or text). The one
// harness for both pay-as-you-go and prepaid examples. With GPUBILL_TEST_DB=postgres the CLI runs
// on a PostgreSQL database of the test cluster (test_database.hpp), as `gpubill init` leaves one.
#pragma once

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_run.hpp"
#include "gpubill/base/decimal.hpp"
#include "gpubill/base/time.hpp"
#include "temp_dir.hpp"
#include "test_database.hpp"

namespace gpubill::testing {

// A decimal cell of a JSON row (amounts and quantities are decimal strings), or a literal.
inline Decimal dec(const nlohmann::json& cell) {
  return Decimal::parse(cell.is_string() ? cell.get<std::string>() : cell.dump());
}
inline Decimal dec(const char* text) {
  return Decimal::parse(text);
}

// True when the JSON instant `value` is the instant written `rfc3339`.
inline bool same_instant(const nlohmann::json& value, const char* rfc3339) {
  return value.is_string() && parse_instant(value.get<std::string>()) == parse_instant(rfc3339);
}

// The PostgreSQL template of ExampleRun: what `gpubill init` writes.
inline const std::string& initialized_postgres_template() {
  static const std::string name = postgres_template("init", [](Database& db) {
    ensure_bundled_catalog(db);
    refresh_offer_summary(db, summarize_offers);
  });
  return name;
}

class ExampleRun {
 public:
  ExampleRun() {
    if (testing_on_postgres()) {
      pg_ = PgCopies::instance().take(initialized_postgres_template());
      db_ = pg_->url();
    } else {
      ensure_database(db_);
    }
  }
  ~ExampleRun() {
    if (pg_) PgCopies::instance().give_back(initialized_postgres_template(), std::move(pg_));
  }
  ExampleRun(const ExampleRun&) = delete;
  ExampleRun& operator=(const ExampleRun&) = delete;

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

  // `gpubill COMMAND --format json`: its rows.
  nlohmann::json rows(const std::string& command) {
    const CliRun r = cli(command + " --format json", Stderr::discarded);
    INFO(r.output);
    REQUIRE(r.status == 0);
    return nlohmann::json::parse(r.output).at("rows");
  }

  // `gpubill charges --account A --format json`: the rows.
  nlohmann::json charges(const std::string& account) {
    return rows("charges --account '" + account + "'");
  }

  // The charge lines of one instance of kind `kind` ("refund", "prepaid_order", …), in order.
  nlohmann::json instance_charges(const std::string& instance, const std::string& kind,
                                  const std::string& account = "acme") {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& c : charges(account)) {
      if (c.at("instance") == instance && c.at("kind") == kind) out.push_back(c);
    }
    return out;
  }

  // The instance's state changes (`instances --format json`), in order.
  nlohmann::json history(const std::string& instance, const std::string& account = "acme") {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& s : rows("instances --account '" + account + "'")) {
      if (s.at("instance") == instance) out.push_back(s);
    }
    return out;
  }

  // The first state row whose reason starts with `prefix` (an empty object when none).
  nlohmann::json state(const std::string& instance, const std::string& prefix,
                       const std::string& account = "acme") {
    for (const auto& s : history(instance, account)) {
      if (s.at("reason").get<std::string>().rfind(prefix, 0) == 0) return s;
    }
    return nlohmann::json::object();
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

  // `gpubill explain ID` as text.
  std::string explain_text(std::int64_t charge_id) {
    const CliRun r = cli("explain " + std::to_string(charge_id));
    INFO(r.output);
    REQUIRE(r.status == 0);
    return r.output;
  }

  CliRun cli(const std::string& args, Stderr err = Stderr::merged) {
    return run_cli("--db '" + db_ + "' " + args, err);
  }

 private:
  TempDir dir_;
  std::string db_ = dir_.file("examples.db");  // or the PostgreSQL copy's URL
  std::unique_ptr<PgDatabase> pg_;
  int logs_ = 0;
};

}  // namespace gpubill::testing
