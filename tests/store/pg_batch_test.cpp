// Batched writes on PostgreSQL at the connection layer (engine/store/README.md, "Batched
// writes"): pending rows are flushed before a statement that names their table and at COMMIT,
// dropped at ROLLBACK; COPY writes lines as given; next_id gives the numbers one INSERT a row
// would, gives back the unused ones, and keeps two writers' numbers apart. Against the test
// cluster of scripts/pg_cluster.sh.
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

#include "gpubill/base/errors.hpp"
#include "pg_test.hpp"
#include "store/connection.hpp"

namespace gpubill::testing::pg_batch {

using store::Connection;
using store::Statement;
using store::Transaction;

std::int64_t one(Connection& db, const std::string& sql) {
  Statement q(db, sql);
  REQUIRE(q.executeStep());
  return q.getColumn(0).getInt64();
}

// Rows of t(id, v) kept until the connection asks for them.
class Buffer final : public store::PendingWrites {
 public:
  explicit Buffer(Connection& db) : db_(db) { db_.set_pending_writes(this); }
  ~Buffer() override { db_.set_pending_writes(nullptr); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  void add(const std::string& v) {
    rows_ += std::to_string(db_.next_id("t", "id")) + "\t" + v + "\n";
  }
  bool pending() const noexcept override { return !rows_.empty(); }
  bool touches(std::string_view sql) const noexcept override {
    return store::names_table(sql, "t");
  }
  void flush() override {
    std::string rows;
    rows.swap(rows_);
    ++flushes;
    db_.copy_rows("t", "id, v", rows);
  }
  void end_transaction(bool committed) noexcept override {
    rows_.clear();
    ends.push_back(committed);
  }
  int flushes = 0;
  std::vector<bool> ends;

 private:
  Connection& db_;
  std::string rows_;
};

TEST_CASE("names_table finds a table as a whole word", "[store]") {
  CHECK(store::names_table("SELECT 1 FROM event WHERE x", "event"));
  CHECK(store::names_table("UPDATE event SET", "event"));
  CHECK(store::names_table("INSERT INTO event(a)", "event"));
  CHECK(store::names_table("pg_get_serial_sequence('event', 'seq')", "event"));
  CHECK_FALSE(store::names_table("SELECT event_seq FROM charge", "event"));
  CHECK_FALSE(store::names_table("SELECT 1 FROM event_void", "event"));
  CHECK_FALSE(store::names_table("SELECT 1 FROM my_event", "event"));
}

TEST_CASE("PostgreSQL: pending rows are flushed before a statement on their table and at COMMIT",
          "[.][postgres]") {
  PgDatabase pg;
  auto db = pg.open();
  db->exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)");
  db->exec("CREATE TABLE t_other (id INTEGER PRIMARY KEY)");
  {
    Buffer b(*db);
    Transaction tx(*db, Transaction::Kind::write);
    b.add("a\\tb");  // COPY's escapes, as given: a tab
    b.add("c");
    CHECK(one(*db, "SELECT count(*) FROM t_other") == 0);
    CHECK(b.flushes == 0);  // another table: nothing sent
    CHECK(one(*db, "SELECT count(*) FROM t") == 2);
    CHECK(b.flushes == 1);
    b.add("d");
    tx.commit();
    CHECK(b.flushes == 2);
    CHECK(b.ends == std::vector<bool>{true});
  }
  CHECK(one(*db, "SELECT count(*) FROM t") == 3);
  CHECK(one(*db, "SELECT count(*) FROM t WHERE v = 'a' || chr(9) || 'b'") == 1);
  CHECK(one(*db, "SELECT max(id) FROM t") == 3);  // 1, 2, 3: one INSERT a row's numbers
  db->exec("INSERT INTO t (v) VALUES ('e')");
  CHECK(one(*db, "SELECT max(id) FROM t") == 4);  // the rest of the block was given back
}

TEST_CASE("PostgreSQL: a rolled-back transaction drops its pending rows and gives its ids back",
          "[.][postgres]") {
  PgDatabase pg;
  auto db = pg.open();
  db->exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)");
  {
    Buffer b(*db);
    {
      Transaction tx(*db, Transaction::Kind::write);
      for (int i = 0; i < 40; ++i) b.add("x");  // three blocks: 16, 32
      CHECK(one(*db, "SELECT count(*) FROM t") == 40);
      b.add("y");
    }  // rolled back
    CHECK(b.ends == std::vector<bool>{false});
    CHECK_FALSE(b.pending());
  }
  CHECK(one(*db, "SELECT count(*) FROM t") == 0);
  db->exec("INSERT INTO t (v) VALUES ('z')");
  CHECK(one(*db, "SELECT max(id) FROM t") == 1);
}

TEST_CASE("PostgreSQL: a batch the server refuses fails the transaction: nothing commits",
          "[.][postgres]") {
  PgDatabase pg;
  auto db = pg.open();
  db->exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL CHECK (v <> 'bad'))");
  {
    Buffer b(*db);
    Transaction tx(*db, Transaction::Kind::write);
    b.add("good");
    CHECK(one(*db, "SELECT count(*) FROM t") == 1);  // sent
    b.add("bad");
    CHECK_THROWS_WITH(tx.commit(), Catch::Contains("violates check constraint"));
  }
  CHECK(one(*db, "SELECT count(*) FROM t") == 0);
}

TEST_CASE("PostgreSQL: writers of two accounts take ids apart, consecutive when alone",
          "[.][postgres]") {
  PgDatabase pg;
  auto a = pg.open();
  auto b = pg.open();
  a->exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)");
  std::set<std::int64_t> ids;
  {
    Transaction ta(*a, Transaction::Kind::write, "replay", std::string("acct-a"));
    Transaction tb(*b, Transaction::Kind::write, "replay", std::string("acct-b"));
    for (int i = 0; i < 50; ++i) {
      CHECK(ids.insert(a->next_id("t", "id")).second);
      CHECK(ids.insert(b->next_id("t", "id")).second);
    }
    ta.commit();
    tb.commit();
  }
  CHECK(ids.size() == 100);
  // b took numbers last: it gave back the rest of its last block, and a writer alone goes on
  // from there.
  Transaction tc(*a, Transaction::Kind::write);
  const std::int64_t next = a->next_id("t", "id");
  CHECK(next == *ids.rbegin() + 1);
  CHECK(a->next_id("t", "id") == next + 1);
}

}  // namespace gpubill::testing::pg_batch
