// Reaching PostgreSQL and losing it (issue 25, item 4, at the connection layer): each wrong
// target is one clear line naming what is wrong and never the password, and a connection lost
// in the middle of a transaction commits nothing. Against the test cluster of
// scripts/pg_cluster.sh (its pg_hba.conf asks the role gpubill_pw for a password).
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "gpubill/base/errors.hpp"
#include "pg_test.hpp"
#include "store/connection.hpp"

using namespace gpubill;
using gpubill::store::Connection;
using gpubill::store::Statement;
using gpubill::store::Transaction;
using Reason = gpubill::StoreConnectError::Reason;

namespace {

// A TCP port on 127.0.0.1 that nothing listens on: bound, read and closed again.
int unused_port() {
  const int s = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(s >= 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  socklen_t len = sizeof a;
  REQUIRE(::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len) == 0);
  ::close(s);
  return ntohs(a.sin_port);
}

// The error `url` gives, as (reason, message); fails the test when it connects.
std::pair<Reason, std::string> connect_failure(const std::string& url,
                                               const store::ConnectOptions& o = {}) {
  try {
    Connection::open(url, o);
  } catch (const StoreConnectError& e) {
    return {e.reason(), e.what()};
  }
  FAIL("connected to " << redact_target(url));
  return {Reason::other, ""};
}

std::int64_t count_rows(Connection& db) {
  Statement q(db, "SELECT count(*) FROM t");
  REQUIRE(q.executeStep());
  return q.getColumn(0).getInt64();
}

}  // namespace

TEST_CASE("PostgreSQL: a URL that does not parse is a StoreTargetError without its password",
          "[.][postgres]") {
  try {
    Connection::open("postgresql://ann:s3cret@db.example/bills?colour=blue");
    FAIL("opened");
  } catch (const StoreTargetError& e) {
    CHECK(std::string(e.what()) ==
          "cannot read the PostgreSQL URL 'postgresql://ann:***@db.example/bills?colour=blue': "
          "invalid URI query parameter: \"colour\"");
  }
}

TEST_CASE("PostgreSQL: a port nobody listens on is 'unreachable', naming host and port",
          "[.][postgres]") {
  const int port = unused_port();
  const auto [reason, message] =
      connect_failure("postgresql://ann:s3cret@127.0.0.1:" + std::to_string(port) + "/bills");
  CHECK(reason == Reason::unreachable);
  CHECK(message == "cannot connect to PostgreSQL database 'bills' on host 127.0.0.1, port " +
                       std::to_string(port) +
                       ", as user 'ann': no server answers there (Connection refused)");
}

TEST_CASE("PostgreSQL: a wrong password is 'authentication', naming the user, not the password",
          "[.][postgres]") {
  gpubill::testing::PgDatabase pg;
  pg.admin().exec_native("DROP ROLE IF EXISTS gpubill_pw");
  pg.admin().exec_native("CREATE ROLE gpubill_pw LOGIN PASSWORD 'right-horse-battery'");
  const std::string base = gpubill::testing::with_param(pg.url(), "user=gpubill_pw");
  const auto [reason, message] =
      connect_failure(gpubill::testing::with_param(base, "password=wrong-staple"));
  CHECK(reason == Reason::authentication);
  CHECK(message.find("the server refused user 'gpubill_pw' (wrong or missing password") !=
        std::string::npos);
  CHECK(message.find("database '" + pg.name() + "'") != std::string::npos);
  CHECK(message.find("wrong-staple") == std::string::npos);
  CHECK(message.find('\n') == std::string::npos);
  // The right one connects.
  auto db = Connection::open(gpubill::testing::with_param(base, "password=right-horse-battery"));
  CHECK(db->server_version() >= 120000);
}

TEST_CASE("PostgreSQL: a database the server lacks is 'no_database', naming it", "[.][postgres]") {
  const auto [reason, message] = connect_failure(
      gpubill::testing::with_param(gpubill::testing::pg_server_url(), "dbname=gpubill_nothing"));
  CHECK(reason == Reason::no_database);
  CHECK(message.find("the server has no database 'gpubill_nothing' (create it, or name another)") !=
        std::string::npos);
  CHECK(message.find("as user 'gpubill'") != std::string::npos);
}

TEST_CASE("PostgreSQL: a server older than the minimum is 'server_too_old', with its version",
          "[.][postgres]") {
  // The test server is 12 or newer; the check is shown by asking for more than it has.
  store::ConnectOptions o;
  o.min_server_version = 990000;
  const auto [reason, message] = connect_failure(gpubill::testing::pg_server_url(), o);
  CHECK(reason == Reason::server_too_old);
  CHECK(message.find("the server is PostgreSQL ") != std::string::npos);
  CHECK(message.find("; gpubill needs 99.0 or later") != std::string::npos);
}

TEST_CASE("PostgreSQL: a connection killed mid-transaction commits nothing", "[.][postgres]") {
  gpubill::testing::PgDatabase pg;
  {
    auto setup = pg.open();
    setup->exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)");
  }
  auto db = pg.open();
  auto killer = pg.open();
  Statement pid(*db, "SELECT pg_backend_pid()");
  REQUIRE(pid.executeStep());
  const auto backend = pid.getColumn(0).getInt64();
  {
    Transaction tx(*db, Transaction::Kind::write, "replay");
    db->exec("INSERT INTO t (v) VALUES ('half')");
    Statement kill(*killer, "SELECT pg_terminate_backend(?)");
    kill.bind(1, backend);
    REQUIRE(kill.executeStep());
    CHECK(kill.getColumn(0).getInt64() == 1);
    CHECK_THROWS_AS(db->exec("INSERT INTO t (v) VALUES ('more')"), StoreConnectionLost);
    CHECK_THROWS_WITH(db->exec("SELECT 1"),
                      Catch::Contains("lost the connection to PostgreSQL database '" + pg.name()) &&
                          Catch::Contains("the open transaction, if any, was not committed"));
  }  // the rollback of a dead connection is quiet
  auto again = pg.open();
  CHECK(count_rows(*again) == 0);
}
