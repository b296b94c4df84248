// The PostgreSQL server of the [postgres] tests and a fresh database on it per test.
//
// The server: GPUBILL_TEST_PG_URL when set (any server; the fault tests need the pg_hba.conf
// of scripts/pg_cluster.sh), else the cluster the CTest fixture started (GPUBILL_TEST_PG_CLUSTER,
// its state directory, by default the build's). When that fixture found no server binaries the test
// exits 77, which CTest reports as skipped, with the reason on its output; a fixture that failed
// otherwise fails the test. The tests are tagged [.][postgres]: hidden from a plain run of
// gpubill_tests, run with `gpubill_tests "[postgres]"` or by CTest.
#pragma once

#include <unistd.h>
#include <catch2/catch.hpp>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "store/connection.hpp"

namespace gpubill::testing {

inline std::string pg_server_url() {
  if (const char* url = std::getenv("GPUBILL_TEST_PG_URL"); url && *url) return url;
  const char* state = std::getenv("GPUBILL_TEST_PG_CLUSTER");
#ifdef GPUBILL_TEST_PG_STATE
  if (!state || !*state) state = GPUBILL_TEST_PG_STATE;  // the build's CTest fixture
#endif
  if (!state || !*state) {
    FAIL(
        "no PostgreSQL server: set GPUBILL_TEST_PG_URL (scripts/pg_cluster.sh start DIR prints "
        "one)");
  }
  std::string url;
  if (std::ifstream in(std::string(state) + "/url"); in && std::getline(in, url) && !url.empty()) {
    return url;
  }
  std::string reason;
  if (std::ifstream skip(std::string(state) + "/skip"); skip && std::getline(skip, reason)) {
    std::cout << "skipped: " << reason << std::endl;
    std::_Exit(77);
  }
  FAIL("the PostgreSQL test cluster did not start (see the test 'postgres cluster: start')");
  return {};
}

// `url` with one more query parameter (libpq: a later parameter overrides an earlier one).
inline std::string with_param(const std::string& url, const std::string& param) {
  return url + (url.find('?') == std::string::npos ? "?" : "&") + param;
}

// A new database on the test server, empty or a copy of `template_name`, dropped when this
// goes.
class PgDatabase {
 public:
  explicit PgDatabase(const std::optional<std::string>& template_name = std::nullopt)
      : name_(next_name()) {
    admin_ = store::Connection::open(pg_server_url());
    admin_->exec_native(
        "CREATE DATABASE " + name_ +
        // FILE_COPY: copies the files (half the time of WAL_LOG, the
        // default, on the test cluster, which does not fsync).
        (template_name ? " TEMPLATE " + *template_name + " STRATEGY FILE_COPY" : std::string()));
    url_ = with_param(pg_server_url(), "dbname=" + name_);
  }
  ~PgDatabase() {
    try {
      admin_->exec_native("DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)");
    } catch (...) {
    }
  }
  PgDatabase(const PgDatabase&) = delete;
  PgDatabase& operator=(const PgDatabase&) = delete;

  const std::string& url() const { return url_; }
  const std::string& name() const { return name_; }
  std::unique_ptr<store::Connection> open(const store::ConnectOptions& o = {}) const {
    return store::Connection::open(url_, o);
  }
  store::Connection& admin() { return *admin_; }

 private:
  static std::string next_name() {
    static std::atomic<int> counter{0};
    return "gpubill_test_" + std::to_string(::getpid()) + "_" + std::to_string(++counter);
  }
  std::string name_, url_;
  std::unique_ptr<store::Connection> admin_;
};

}  // namespace gpubill::testing
