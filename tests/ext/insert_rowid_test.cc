// ext/insert_rowid.h: an INSERT into a WITHOUT ROWID virtual table leaves
// last_insert_rowid() as a native WITHOUT ROWID table does, for every
// writable module and both stores; a tuplekv_table with an implicit key
// reports the key it assigned, as a rowid table does.
#include "ext/insert_rowid.h"

#include <gtest/gtest.h>

#include <ostream>
#include <string>

#include "tests/testutil.h"

namespace tuplekv::ext {
namespace {

using testing::Db;

struct Module {
  const char* create;  // CREATE VIRTUAL TABLE v ...
  const char* insert;  // one row into v
};

void PrintTo(const Module& m, std::ostream* os) { *os << m.create; }

class InsertRowidTest : public ::testing::TestWithParam<Module> {};

TEST_P(InsertRowidTest, LeavesLastInsertRowidAsItWas) {
  Db db;
  ASSERT_TRUE(db.exec("CREATE TABLE r(x); INSERT INTO r(rowid, x) VALUES (41, 'a');"));
  ASSERT_TRUE(db.exec(GetParam().create));
  ASSERT_EQ(db.value("SELECT last_insert_rowid()"), "41");
  ASSERT_TRUE(db.exec(GetParam().insert));
  EXPECT_EQ(db.value("SELECT changes()"), "1");
  EXPECT_EQ(db.value("SELECT last_insert_rowid()"), "41");
  // The C API reads the same value the SQL function does.
  EXPECT_EQ(sqlite3_last_insert_rowid(db.handle()), 41);
}

INSTANTIATE_TEST_SUITE_P(
    Modules, InsertRowidTest,
    ::testing::Values(
        Module{"CREATE VIRTUAL TABLE v USING tuplekv_kv", "INSERT INTO v VALUES (x'01', x'02')"},
        Module{"CREATE VIRTUAL TABLE v USING tuplekv_kv(store=memory)",
               "INSERT INTO v VALUES (x'01', x'02')"},
        Module{"CREATE VIRTUAL TABLE v USING tuplekv_table(a INTEGER, b TEXT, PRIMARY KEY(a), INDEX ib(b))",
               "INSERT INTO v VALUES (7, 'x')"},
        Module{"CREATE VIRTUAL TABLE v USING tuplekv_table(a INTEGER, b TEXT, PRIMARY KEY(a), store=memory)",
               "INSERT INTO v VALUES (7, 'x')"},
        Module{"CREATE VIRTUAL TABLE v USING tuplekv_multimap(k, w)", "INSERT INTO v VALUES ('a', 'b')"},
        Module{"CREATE VIRTUAL TABLE v USING tuplekv_cells", "INSERT INTO v VALUES (1, 'A', 7)"},
        Module{"CREATE VIRTUAL TABLE v USING tuplekv_docs", "INSERT INTO v(doc) VALUES ('{\"a\":1}')"}));

TEST(InsertRowidTest, AnImplicitKeyIsTheInsertedRowid) {
  for (const char* store : {"sqlite", "memory"}) {
    SCOPED_TRACE(store);
    Db db;
    ASSERT_TRUE(db.exec(std::string("CREATE VIRTUAL TABLE v USING tuplekv_table(a TEXT, store=") + store +
                        "); CREATE TABLE r(x); INSERT INTO r(rowid, x) VALUES (41, 'a');"
                        "INSERT INTO v VALUES ('p'), ('q');"));
    EXPECT_EQ(db.value("SELECT last_insert_rowid()"), "2");
    ASSERT_TRUE(db.exec("INSERT INTO v(rowid, a) VALUES (10, 'r')"));
    EXPECT_EQ(db.value("SELECT last_insert_rowid()"), "10");
    // An UPDATE or DELETE does not report a rowid, natively or here.
    ASSERT_TRUE(db.exec("UPDATE v SET a = 's' WHERE a = 'p'; DELETE FROM v WHERE a = 'q'"));
    EXPECT_EQ(db.value("SELECT last_insert_rowid()"), "10");
  }
}

}  // namespace
}  // namespace tuplekv::ext
