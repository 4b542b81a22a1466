// ext/table_storage.h: DROP TABLE and ALTER TABLE ... RENAME of a keyspace
// table's storage, when SQLite does not finish them.
//
// In a transaction the module is told of a DROP or a rename (and moves the
// keys of a table without subspace=) before SQLite knows whether it will
// commit. Rolled back, the table must be as it was: its name, every row and
// index entry, in this connection after it connects the table anew too.
//
// A DROP or rename that another connection's write lock refuses fails
// before the module hears of it; the tests pin that nothing changes then
// either, and that the same statement succeeds once the lock is gone. A
// rename the module itself must refuse (a new name that cannot be the
// table's subspace) leaves it alike.
#include "ext/table_storage.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstdio>
#include <ostream>
#include <string>

#include "tests/testutil.h"

namespace tuplekv::testing {
namespace {

struct Declaration {
  const char* label;  // test name suffix
  const char* using_clause;
  const char* insert;      // two rows
  const char* delete_one;  // one of them
  bool checkable;          // tuplekv_check() applies
};

const Declaration kDeclarations[] = {
    {"TableSqlite", "tuplekv_table(k INTEGER, v TEXT, PRIMARY KEY(k), INDEX vi(v))",
     "INSERT INTO t VALUES (1, 'a'), (2, 'b')", "DELETE FROM t WHERE k = 1", true},
    {"TableSqliteSubspace", "tuplekv_table(k INTEGER, v TEXT, PRIMARY KEY(k), INDEX vi(v), subspace=s)",
     "INSERT INTO t VALUES (1, 'a'), (2, 'b')", "DELETE FROM t WHERE k = 1", true},
    {"TableMemory", "tuplekv_table(k INTEGER, v TEXT, PRIMARY KEY(k), INDEX vi(v), store=memory)",
     "INSERT INTO t VALUES (1, 'a'), (2, 'b')", "DELETE FROM t WHERE k = 1", true},
    {"KvSqlite", "tuplekv_kv", "INSERT INTO t VALUES (x'01', x'aa'), (x'02', x'bb')",
     "DELETE FROM t WHERE key = x'01'", false},
    {"KvMemory", "tuplekv_kv(store=memory)", "INSERT INTO t VALUES (x'01', x'aa'), (x'02', x'bb')",
     "DELETE FROM t WHERE key = x'01'", false},
};

// Failures name the declaration, not its bytes.
void PrintTo(const Declaration& d, std::ostream* os) { *os << d.label; }

class TableStorageTest : public ::testing::TestWithParam<Declaration> {
 protected:
  void SetUp() override {
    path_ = ::testing::TempDir() + "table_storage_" + GetParam().label + ".db";
    remove_files();
  }
  void TearDown() override { remove_files(); }
  void remove_files() {
    for (const char* suffix : {"", "-journal", "-wal", "-shm"}) std::remove((path_ + suffix).c_str());
  }

  // Creates t with two rows on `db` and returns them as read back.
  Rows create(Db* db) {
    const Declaration& d = GetParam();
    EXPECT_TRUE(db->exec(std::string("CREATE VIRTUAL TABLE t USING ") + d.using_clause + ";" + d.insert));
    return db->rows("SELECT * FROM t ORDER BY 1");
  }
  // Names in the schema, in order: the table's shadow table shows whether
  // its storage is still there.
  static Rows schema(Db* db) { return db->rows("SELECT name FROM sqlite_schema ORDER BY name"); }
  static void names_plus_bump(Rows* names) {
    names->push_back({"bump"});
    std::sort(names->begin(), names->end());
  }
  // The table `t` as it was: the schema's names, its rows, its index.
  void expect_unchanged(Db* db, const Rows& names, const Rows& rows) {
    EXPECT_EQ(schema(db), names);
    EXPECT_EQ(db->rows("SELECT * FROM t ORDER BY 1"), rows);
    if (GetParam().checkable) {
      EXPECT_EQ(db->value("SELECT tuplekv_check('t')"), "ok");
    }
  }
  // Runs `sql` on `a` while `b` holds the write lock: SQLite refuses it.
  // Then `b` changes the schema, which makes `a` connect its tables anew,
  // so what `a` reads next comes from the storage. *names gains it.
  static void refused_by_lock(const std::string& sql, Db* a, Db* b, Rows* names) {
    ASSERT_TRUE(b->exec("BEGIN IMMEDIATE"));
    EXPECT_EQ(a->error_code(sql) & 0xff, SQLITE_BUSY);
    ASSERT_TRUE(b->exec("CREATE TABLE bump(x); COMMIT"));
    names_plus_bump(names);
  }

  std::string path_;
};

TEST_P(TableStorageTest, AFailedDropKeepsTheTableWhole) {
  Db a(path_, Load::kLoadExtension);
  Db b(path_, Load::kLoadExtension);
  const Rows rows = create(&a);
  ASSERT_EQ(rows.size(), 2u);
  Rows names = schema(&a);

  refused_by_lock("DROP TABLE t", &a, &b, &names);
  expect_unchanged(&a, names, rows);
  // The table still takes writes, as before.
  ASSERT_TRUE(a.exec(GetParam().delete_one));
  EXPECT_EQ(a.value("SELECT count(*) FROM t"), "1");

  ASSERT_TRUE(a.exec("DROP TABLE t"));
  EXPECT_EQ(schema(&a), Rows{{"bump"}});
  // The name starts over.
  ASSERT_TRUE(a.exec(std::string("CREATE VIRTUAL TABLE t USING ") + GetParam().using_clause));
  EXPECT_EQ(a.value("SELECT count(*) FROM t"), "0");
}

TEST_P(TableStorageTest, AFailedRenameKeepsTheOldName) {
  Db a(path_, Load::kLoadExtension);
  Db b(path_, Load::kLoadExtension);
  const Rows rows = create(&a);
  ASSERT_EQ(rows.size(), 2u);
  Rows names = schema(&a);

  refused_by_lock("ALTER TABLE t RENAME TO u", &a, &b, &names);
  expect_unchanged(&a, names, rows);
  EXPECT_NE(a.error("SELECT * FROM u").find("no such table"), std::string::npos);

  ASSERT_TRUE(a.exec("ALTER TABLE t RENAME TO u"));
  EXPECT_EQ(a.rows("SELECT * FROM u ORDER BY 1"), rows);
  if (GetParam().checkable) {
    EXPECT_EQ(a.value("SELECT tuplekv_check('u')"), "ok");
  }
}

// Statements the module hears of and SQLite then rolls back.
TEST_P(TableStorageTest, ARolledBackDropOrRenameLeavesTheTableAsItWas) {
  Db a(path_, Load::kLoadExtension);
  const Rows rows = create(&a);
  ASSERT_EQ(rows.size(), 2u);
  Rows names = schema(&a);
  for (const char* sql : {"BEGIN; ALTER TABLE t RENAME TO u; ROLLBACK",
                          "BEGIN; DROP TABLE t; ROLLBACK",
                          "BEGIN; SAVEPOINT s; ALTER TABLE t RENAME TO u; ROLLBACK TO s; COMMIT",
                          "BEGIN; ALTER TABLE t RENAME TO u; ALTER TABLE u RENAME TO v; ROLLBACK"}) {
    SCOPED_TRACE(sql);
    ASSERT_TRUE(a.exec(sql));
    expect_unchanged(&a, names, rows);
  }
  // Connected anew after another connection's schema change, the table
  // reads its storage again. (A memory table's rows belong to this
  // connection: a new one sees the table empty.)
  {
    Db b(path_, Load::kLoadExtension);
    ASSERT_TRUE(b.exec("CREATE TABLE bump(x)"));
    names_plus_bump(&names);
    const bool memory = std::string(GetParam().using_clause).find("store=memory") != std::string::npos;
    EXPECT_EQ(b.rows("SELECT * FROM t ORDER BY 1"), memory ? Rows{} : rows);
  }
  expect_unchanged(&a, names, rows);
  ASSERT_TRUE(a.exec("ALTER TABLE t RENAME TO u"));
  EXPECT_EQ(a.rows("SELECT * FROM u ORDER BY 1"), rows);
}

// Without subspace= the name is the subspace, a tuple string: a name that
// is not UTF-8 would leave a table no statement could open again, DROP
// TABLE included. With subspace= the name is only a name.
TEST_P(TableStorageTest, ARenameToANameThatIsNotUtf8IsRefusedUnlessASubspaceIsGiven) {
  Db a(path_, Load::kLoadExtension);
  const Rows rows = create(&a);
  ASSERT_EQ(rows.size(), 2u);
  const Rows names = schema(&a);
  const std::string clause = GetParam().using_clause;
  const std::string module = clause.substr(0, clause.find('('));
  if (clause.find("subspace=") == std::string::npos) {
    EXPECT_EQ(a.error("ALTER TABLE t RENAME TO \"u\xff\""),
              module + ": new table name is not valid UTF-8, and without subspace= the name is "
                       "the table's subspace");
    expect_unchanged(&a, names, rows);
  } else {
    ASSERT_TRUE(a.exec("ALTER TABLE t RENAME TO \"u\xff\""));
    EXPECT_EQ(a.rows("SELECT * FROM \"u\xff\" ORDER BY 1"), rows);
    ASSERT_TRUE(a.exec("DROP TABLE \"u\xff\""));
  }
}

INSTANTIATE_TEST_SUITE_P(Modules, TableStorageTest, ::testing::ValuesIn(kDeclarations),
                         [](const ::testing::TestParamInfo<Declaration>& info) { return info.param.label; });

}  // namespace
}  // namespace tuplekv::testing
