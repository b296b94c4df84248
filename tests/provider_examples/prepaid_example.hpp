// The providers' own worked examples, end to end through the CLI (issue 27): a fresh database
// with the bundled catalog (plus, where the example's unit prices are not in it, a test catalog
// from tests/data/), the documented usage written as a log, `gpubill replay`, then the charge
// lines (`charges --format json`) and the instance history (`instances --format json`).
#pragma once

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_run.hpp"
#include "gpubill/base/time.hpp"
#include "temp_dir.hpp"

namespace gpubill::testing {

// True when the JSON instant `value` is the instant written `rfc3339`.
inline bool same_instant(const nlohmann::json& value, const char* rfc3339) {
  return value.is_string() && parse_instant(value.get<std::string>()) == parse_instant(rfc3339);
}

struct ProviderExample {
  TempDir dir;
  std::string db = dir.file("examples.db");

  ProviderExample() { ensure_database(db); }

  // Imports a test catalog file of tests/data/. --force: an example's documented unit prices
  // need not look like a market's (catalog check's floors compare them with the bundled one).
  void import(const std::string& data_file) {
    const CliRun r = run_cli("--db '" + db + "' catalog import --force '" +
                             std::string(GPUBILL_SOURCE_DIR) + "/tests/data/" + data_file + "'");
    INFO(r.output);
    REQUIRE(r.status == 0);
  }

  // Replays `log` (JSON Lines) up to `until` (an RFC 3339 instant); the replay must succeed.
  CliRun replay(const std::string& log, const std::string& until) {
    const std::string path = dir.write("usage.jsonl", log);
    CliRun r = run_cli("--db '" + db + "' replay --quiet '" + path + "' --until " + until);
    INFO(r.output);
    REQUIRE(r.status == 0);
    return r;
  }

  nlohmann::json rows(const std::string& command) const {
    const CliRun r = run_cli("--db '" + db + "' " + command + " --format json", Stderr::discarded);
    INFO(r.output);
    REQUIRE(r.status == 0);
    return nlohmann::json::parse(r.output).at("rows");
  }

  // The charge lines of an instance of kind `kind`, in order.
  std::vector<nlohmann::json> charges(const std::string& instance, const std::string& kind) const {
    std::vector<nlohmann::json> out;
    for (const auto& c : rows("charges --account acme")) {
      if (c.at("instance") == instance && c.at("kind") == kind) out.push_back(c);
    }
    return out;
  }

  // The instance's state changes, as "state at" lines with the reason.
  std::vector<nlohmann::json> history(const std::string& instance) const {
    std::vector<nlohmann::json> out;
    for (const auto& s : rows("instances --account acme")) {
      if (s.at("instance") == instance) out.push_back(s);
    }
    return out;
  }

  // The state row whose reason starts with `prefix` (nullptr-like empty object when none).
  nlohmann::json state(const std::string& instance, const std::string& prefix) const {
    for (const auto& s : history(instance)) {
      if (s.at("reason").get<std::string>().rfind(prefix, 0) == 0) return s;
    }
    return nlohmann::json::object();
  }

  // `gpubill explain ID` as text.
  std::string explain(std::int64_t id) const {
    const CliRun r = run_cli("--db '" + db + "' explain " + std::to_string(id));
    INFO(r.output);
    REQUIRE(r.status == 0);
    return r.output;
  }
};

}  // namespace gpubill::testing
