// End-to-end runs of a provider's worked example through the CLI (tests/provider_examples/,
// issue 27): a database of the bundled catalog (plus a test-local catalog with the example's unit
// prices where the bundled one has none), a usage log written as the example describes it,
// `gpubill replay`, then `charges` / `instances` / `explain` read back as JSON (or text). The one
// harness for both pay-as-you-go and prepaid examples. With GPUBILL_TEST_DB=postgres the CLI runs
// on a PostgreSQL database of the test cluster (test_database.hpp), as `gpubill init` leaves one.
#pragma once

#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <functional>
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

// `gpubill catalog import --force` of tests/data/`data_file` into the database `db` (a path or
// a URL). --force: an example's documented unit prices need not look like a market's (catalog
// check's floors compare them with the bundled catalog).
inline void cli_import(const std::string& db, const std::string& data_file) {
  const CliRun r = run_cli("--db '" + db + "' catalog import --force '" +
                           std::string(GPUBILL_SOURCE_DIR) + "/tests/data/" + data_file + "'");
  INFO(r.output);
  REQUIRE(r.status == 0);
}

// A short name for what `gpubill init` then the imports of `data_files` write: the CLI's stamp
// and each file's name and stamp, hashed, so that a rebuilt CLI or a changed file makes a new
// template.
inline std::string imports_key(const std::vector<std::string>& data_files) {
  std::string key = file_stamp(GPUBILL_CLI_PATH);
  for (const auto& f : data_files) {
    key += "|" + f + "|" + file_stamp(std::string(GPUBILL_SOURCE_DIR) + "/tests/data/" + f);
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016zx", std::hash<std::string>{}(key));
  return hex;
}

// The SQLite template of ExampleRun after the imports of `data_files`: made once per build
// (made_once) and copied by each example that starts with those imports. An import reads and
// checks the whole catalog and refreshes the offer summary (a quarter of a second; half a second
// and a new copy of the database on PostgreSQL), and 44 examples start with one.
inline std::string imported_database_template(const std::vector<std::string>& data_files) {
  return made_once("imports-" + imports_key(data_files) + ".db", [&](const std::string& mine) {
    std::filesystem::copy_file(initialized_database_template(), mine);
    for (const auto& f : data_files) cli_import(mine, f);
    REQUIRE_FALSE(std::filesystem::exists(mine + "-wal"));  // the CLI's last connection closed it
  });
}

// The same on PostgreSQL: a template database per list of imports, a copy of
// initialized_postgres_template() into which the CLI imports them.
inline std::string imported_postgres_template(const std::vector<std::string>& data_files) {
  const std::string& initialized = initialized_postgres_template();
  // "imp" and 12 hex digits: the name, with its "_partial" while made, keeps to 63 bytes.
  return postgres_template(
      "imp" + imports_key(data_files).substr(0, 12),
      [&](Database&, const std::string& url) {
        for (const auto& f : data_files) cli_import(url, f);
      },
      initialized);
}

class ExampleRun {
 public:
  ExampleRun() : template_(testing_on_postgres() ? initialized_postgres_template() : "") {
    if (testing_on_postgres()) {
      pg_ = PgCopies::instance().take(template_);
      db_ = pg_->url();
    }  // on SQLite, the database file is copied at the first command (cli, import)
  }
  ~ExampleRun() {
    if (pg_) PgCopies::instance().give_back(template_, std::move(pg_));
  }
  ExampleRun(const ExampleRun&) = delete;
  ExampleRun& operator=(const ExampleRun&) = delete;

  // Imports a catalog file of tests/data/ (cli_import). Before any other command, the database
  // becomes a copy of a template with the imports made so far and this one, made by the same
  // command once per build.
  void import(const std::string& data_file) {
    if (used_) {
      cli_import(db_, data_file);
      return;
    }
    imports_.push_back(data_file);
    if (pg_) {
      PgCopies::instance().give_back(template_, std::move(pg_));  // unchanged: kept for another
      template_ = imported_postgres_template(imports_);
      pg_ = PgCopies::instance().take(template_);
      db_ = pg_->url();
    } else {
      std::filesystem::copy_file(imported_database_template(imports_), db_,
                                 std::filesystem::copy_options::overwrite_existing);
    }
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

  // Σ quantity × repeat of the account's rows of `kind` for `instance` ("" = every instance).
  Decimal quantity(const std::string& account, const std::string& kind,
                   const std::string& instance = "") {
    Decimal sum;
    for (const auto& row : charges(account)) {
      if (row.at("kind") != kind) continue;
      if (!instance.empty() && row.at("instance") != instance) continue;
      sum += dec(row.at("quantity")) * dec(row.at("repeat"));
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
    if (!pg_) ensure_database(db_);  // a copy of the init template, unless an import made one
    used_ = true;
    return run_cli("--db '" + db_ + "' " + args, err);
  }

 private:
  std::string template_;  // on PostgreSQL, the template pg_ is a copy of
  TempDir dir_;
  std::string db_ = dir_.file("examples.db");  // or the PostgreSQL copy's URL
  std::unique_ptr<PgDatabase> pg_;
  std::vector<std::string> imports_;  // the data files imported before any other command
  bool used_ = false;                 // a command other than an import ran
  int logs_ = 0;
};

}  // namespace gpubill::testing
