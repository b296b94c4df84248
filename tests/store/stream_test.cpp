// Statement::stream(): a query read in batches (on PostgreSQL a cursor, one FETCH a batch; on
// SQLite nothing changes) gives the rows a whole read gives, across batch boundaries, beside
// other statements, reset half way and nested; its own read transaction ends with its last row,
// and a Transaction waits for that (StoreError before). The [postgres] case runs against the
// test server (tests/support/pg_test.hpp).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "gpubill/base/errors.hpp"
#include "pg_test.hpp"
#include "store/connection.hpp"

using namespace gpubill;
using gpubill::store::Connection;
using gpubill::store::Statement;
using gpubill::store::Transaction;

namespace {

// Table s with rows 1..n: (id, name "r<id>").
void make_rows(Connection& db, int n) {
  db.exec("CREATE TABLE s (id INTEGER PRIMARY KEY, name TEXT NOT NULL)");
  Transaction tx(db, Transaction::Kind::write, "fill");
  Statement ins(db, "INSERT INTO s(id, name) VALUES(?1, ?2)");
  for (int i = 1; i <= n; ++i) {
    ins.reset();
    ins.bind(1, i);
    ins.bind(2, "r" + std::to_string(i));
    ins.exec();
  }
  tx.commit();
}

// The rows id > `after`, read in batches of `batch`, each as "id:name".
std::vector<std::string> streamed(Connection& db, int after, int batch) {
  Statement q(db, "SELECT id, name FROM s WHERE id > ?1 ORDER BY id");
  q.stream(batch);
  q.bind(1, after);
  std::vector<std::string> out;
  while (q.executeStep()) {
    out.push_back(std::to_string(q.getColumn(0).getInt64()) + ":" + q.getColumn(1).getString());
  }
  CHECK(q.getColumnName(1) == "name");
  return out;
}

std::vector<std::string> expected(int after, int n) {
  std::vector<std::string> out;
  for (int i = after + 1; i <= n; ++i) out.push_back(std::to_string(i) + ":r" + std::to_string(i));
  return out;
}

void streams_like_a_whole_read(Connection& db) {
  make_rows(db, 10);
  for (int batch : {1, 3, 5, 10, 11, 10'000}) {
    INFO("batch " << batch);
    CHECK(streamed(db, 0, batch) == expected(0, 10));
    CHECK(streamed(db, 4, batch) == expected(4, 10));
    CHECK(streamed(db, 10, batch).empty());
  }
  // Another statement between the rows, and a second streamed query inside the first.
  Statement outer(db, "SELECT id FROM s ORDER BY id");
  outer.stream(4);
  Statement count(db, "SELECT count(*) FROM s WHERE id <= ?1");
  int seen = 0;
  while (outer.executeStep()) {
    const auto id = outer.getColumn(0).getInt64();
    count.reset();
    count.bind(1, id);
    REQUIRE(count.executeStep());
    CHECK(count.getColumn(0).getInt64() == id);
    if (id == 5) CHECK(streamed(db, 7, 2) == expected(7, 10));
    ++seen;
  }
  CHECK(seen == 10);
  // Reset half way, then read again from the first row.
  Statement again(db, "SELECT id FROM s ORDER BY id");
  again.stream(3);
  for (int i = 0; i < 4; ++i) REQUIRE(again.executeStep());
  CHECK(again.getColumn(0).getInt64() == 4);
  again.reset();
  REQUIRE(again.executeStep());
  CHECK(again.getColumn(0).getInt64() == 1);
}

}  // namespace

TEST_CASE("a streamed query on SQLite reads as a whole one", "[store]") {
  auto db = Connection::open(":memory:");
  streams_like_a_whole_read(*db);
  CHECK_THROWS_AS(Statement(*db, "SELECT 1").stream(0), StoreError);
}

TEST_CASE("a streamed query on PostgreSQL: a cursor, batch by batch, in a snapshot of its own",
          "[.][postgres]") {
  testing::PgDatabase pg;
  auto db = pg.open();
  streams_like_a_whole_read(*db);

  // Outside a transaction the cursor has a read snapshot of its own: a Transaction cannot begin
  // while it is open, and can once its last row is read (or it is reset or goes).
  {
    Statement q(*db, "SELECT id FROM s ORDER BY id");
    q.stream(4);
    REQUIRE(q.executeStep());
    CHECK_THROWS_WITH(Transaction(*db, Transaction::Kind::write, "w"),
                      Catch::Contains("streamed query"));
    CHECK_THROWS_WITH(Transaction(*db, Transaction::Kind::read_snapshot),
                      Catch::Contains("streamed query"));
    // Its snapshot: a row another connection adds meanwhile is not among the rows.
    auto other = pg.open();
    other->exec("INSERT INTO s(id, name) VALUES(11, 'r11')");
    int rows = 1;
    while (q.executeStep()) ++rows;
    CHECK(rows == 10);
    Transaction tx(*db, Transaction::Kind::write, "w");  // the stream's transaction ended
    db->exec("DELETE FROM s WHERE id = 11");
    tx.commit();
  }
  {
    Statement q(*db, "SELECT id FROM s ORDER BY id");
    q.stream(4);
    REQUIRE(q.executeStep());
    q.reset();  // ends it too
    Transaction tx(*db, Transaction::Kind::read_snapshot);
    tx.commit();
  }
  // Inside a Transaction the cursor lives in it: the transaction's writes are among its rows,
  // and the transaction goes on after the last row.
  Transaction tx(*db, Transaction::Kind::write, "w");
  db->exec("INSERT INTO s(id, name) VALUES(11, 'r11')");
  CHECK(streamed(*db, 0, 3) == expected(0, 11));
  db->exec("INSERT INTO s(id, name) VALUES(12, 'r12')");
  tx.commit();
  CHECK(streamed(*db, 0, 5) == expected(0, 12));
  // A statement the server refuses fails at the first step, and leaves no transaction open.
  Statement bad(*db, "SELECT no_such_column FROM s");
  bad.stream(2);
  CHECK_THROWS_AS(bad.executeStep(), store::SqlError);
  Transaction after(*db, Transaction::Kind::write, "w");
  after.commit();
}
