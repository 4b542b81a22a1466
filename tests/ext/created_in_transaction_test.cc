// Tables created inside an open transaction (ext/created_in_transaction.h):
// SQLite never calls their xBegin, yet their writes must roll back to a
// savepoint, be undone when a statement fails half-way, and commit, in
// every module and both stores, as those of a table created before BEGIN.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/testutil.h"

namespace tuplekv::testing {
namespace {

struct Module {
  const char* name;
  const char* create;   // "CREATE VIRTUAL TABLE x USING ...(" without store= and ")"
  const char* first;    // a write of one row
  const char* second;   // a write of another
  const char* failing;  // writes a new row, then fails on the first one
  const char* rows;     // the rows, in a stable order
};

const std::vector<Module>& modules() {
  static const std::vector<Module> all = {
      {"table",
       "CREATE VIRTUAL TABLE x USING tuplekv_table(id INTEGER PRIMARY KEY, v TEXT, INDEX x_v(v)",
       "INSERT INTO x VALUES (1, 'a')", "INSERT INTO x VALUES (2, 'b')",
       "INSERT INTO x VALUES (5, 'e'), (1, 'again')", "SELECT id, v FROM x ORDER BY id"},
      {"kv", "CREATE VIRTUAL TABLE x USING tuplekv_kv(", "INSERT INTO x VALUES (x'01', x'aa')",
       "INSERT INTO x VALUES (x'02', x'bb')", "INSERT INTO x VALUES (x'05', x''), (x'01', x'')",
       "SELECT hex(key), hex(value) FROM x ORDER BY key"},
      {"cells", "CREATE VIRTUAL TABLE x USING tuplekv_cells(layout=both",
       "INSERT INTO x VALUES ('ada', 'born', 1815)", "INSERT INTO x VALUES ('alan', 'born', 1912)",
       "INSERT INTO x VALUES ('eve', 'born', 1), ('ada', 'born', 2)",
       "SELECT row, col, value FROM x ORDER BY row, col"},
      {"multimap", "CREATE VIRTUAL TABLE x USING tuplekv_multimap(student, class, reverse=1",
       "INSERT INTO x VALUES ('al', 'math')", "INSERT INTO x VALUES ('bo', 'art')",
       "INSERT INTO x VALUES ('cy', 'art'), ('al', 'math')",
       "SELECT student, class FROM x ORDER BY student, class"},
      {"docs", "CREATE VIRTUAL TABLE x USING tuplekv_docs(",
       "INSERT INTO x(id, doc) VALUES (1, '{\"a\":1}')", "INSERT INTO x(id, doc) VALUES (2, '[2]')",
       "INSERT INTO x(id, doc) VALUES (5, '5'), (1, '{}')",
       "SELECT id, doc FROM x ORDER BY id"},
  };
  return all;
}

class CreatedInTransactionTest : public ::testing::TestWithParam<std::string> {
 protected:
  std::string create(const Module& m) const {
    const std::string sql = m.create;
    return sql + (sql.back() == '(' ? "" : ", ") + "store=" + GetParam() + ")";
  }
  // BEGIN, then the table and its first row inside that transaction.
  std::string begin_create_and_write(const Module& m) const {
    return "BEGIN; " + create(m) + "; " + m.first;
  }
};

INSTANTIATE_TEST_SUITE_P(Stores, CreatedInTransactionTest, ::testing::Values("sqlite", "memory"),
                         [](const auto& info) { return info.param; });

TEST_P(CreatedInTransactionTest, WritesRollBackToSavepointsAndFailedStatementsUndo) {
  for (const Module& m : modules()) {
    SCOPED_TRACE(m.name);
    Db db;
    ASSERT_TRUE(db.exec(begin_create_and_write(m)));
    const Rows one = db.rows(m.rows);
    ASSERT_EQ(one.size(), 1u);
    ASSERT_TRUE(db.exec("SAVEPOINT s"));
    ASSERT_TRUE(db.exec(m.second));
    EXPECT_EQ(db.rows(m.rows).size(), 2u);
    ASSERT_TRUE(db.exec("ROLLBACK TO s"));
    EXPECT_EQ(db.rows(m.rows), one);
    // The statement's first row is undone with it.
    EXPECT_EQ(db.error_code(m.failing) & 0xff, SQLITE_CONSTRAINT);
    EXPECT_EQ(db.rows(m.rows), one);
    ASSERT_TRUE(db.exec("RELEASE s; COMMIT"));
    EXPECT_EQ(db.rows(m.rows), one);
  }
}

TEST_P(CreatedInTransactionTest, RollingBackTheTransactionDropsTheTableAndItsRows) {
  for (const Module& m : modules()) {
    SCOPED_TRACE(m.name);
    Db db;
    ASSERT_TRUE(db.exec(begin_create_and_write(m)));
    ASSERT_TRUE(db.exec("ROLLBACK"));
    EXPECT_EQ(db.value("SELECT count(*) FROM sqlite_schema WHERE name = 'x'"), "0");
    ASSERT_TRUE(db.exec(create(m)));
    EXPECT_EQ(db.rows(m.rows), Rows());
  }
}

}  // namespace
}  // namespace tuplekv::testing
