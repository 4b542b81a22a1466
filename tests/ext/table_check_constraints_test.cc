// CHECK constraints of tuplekv_table against the native reference: each
// statement runs on a tuplekv table and on a STRICT table with the same
// declaration (WITHOUT ROWID where it has a PRIMARY KEY), each in its own
// connection under the same name, and must give the same result code,
// message and rows; the contents are compared after every write.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>
#include <vector>

#include "tests/testutil.h"

namespace tuplekv::testing {
namespace {

struct Outcome {
  int rc = SQLITE_OK;
  std::string message;
  Rows rows;
  bool operator==(const Outcome&) const = default;
};

Outcome run(sqlite3* db, const std::string& sql) {
  Outcome o;
  sqlite3_stmt* st = nullptr;
  o.rc = sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr);
  while (o.rc == SQLITE_OK) {
    const int rc = sqlite3_step(st);
    if (rc == SQLITE_DONE) break;
    if (rc != SQLITE_ROW) {
      o.rc = sqlite3_extended_errcode(db);
      break;
    }
    Row row;
    for (int i = 0; i < sqlite3_column_count(st); ++i) row.push_back(render_column(st, i));
    o.rows.push_back(std::move(row));
  }
  if (o.rc != SQLITE_OK) o.message = sqlite3_errmsg(db);
  sqlite3_finalize(st);
  return o;
}

std::string describe(const Outcome& o) {
  std::string s = std::to_string(o.rc) + " " + o.message + " [";
  for (const Row& r : o.rows) {
    for (const std::string& v : r) s += v + ",";
    s += ";";
  }
  return s + "]";
}

class TableCheckConstraintsTest : public ::testing::TestWithParam<const char*> {
 protected:
  // The reference is WITHOUT ROWID where it has a key.
  static std::string without_rowid(const std::string& cols) {
    return cols.find("PRIMARY KEY") != std::string::npos ? ", WITHOUT ROWID" : "";
  }
  // Declares t with `cols` on both sides; false (and a test failure) when
  // the two do not both accept it.
  bool create(const std::string& cols) {
    const Outcome n = run(native_.handle(), "CREATE TABLE t(" + cols + ") STRICT" + without_rowid(cols));
    const Outcome v = run(vt_.handle(), "CREATE VIRTUAL TABLE t USING tuplekv_table(" + cols +
                                            ", store=" + GetParam() + ")");
    EXPECT_EQ(n.rc, SQLITE_OK) << n.message;
    EXPECT_EQ(v.rc, SQLITE_OK) << v.message;
    return n.rc == SQLITE_OK && v.rc == SQLITE_OK;
  }
  void expect_same(const std::string& sql) {
    const Outcome n = run(native_.handle(), sql);
    const Outcome v = run(vt_.handle(), sql);
    EXPECT_EQ(v, n) << sql << "\n  native:  " << describe(n) << "\n  tuplekv: " << describe(v);
    const std::string all = "SELECT * FROM t ORDER BY 1, 2";
    EXPECT_EQ(run(vt_.handle(), all), run(native_.handle(), all)) << "contents after " << sql;
  }
  void expect_same(std::initializer_list<const char*> statements) {
    for (const char* sql : statements) expect_same(sql);
  }
  // The message tuplekv gives `cols`, which SQLite also refuses in a
  // native table's CHECK with `native_message`.
  void expect_refused(const std::string& cols, const std::string& native_message) {
    const Outcome n = run(native_.handle(), "CREATE TABLE r(" + cols + ") STRICT" + without_rowid(cols));
    EXPECT_EQ(n.message, native_message) << cols;
    const Outcome v = run(vt_.handle(), "CREATE VIRTUAL TABLE r USING tuplekv_table(" + cols + ", store=" +
                                            GetParam() + ")");
    EXPECT_EQ(v.rc, SQLITE_ERROR) << cols;
    EXPECT_EQ(v.message, "tuplekv_table: CHECK constraint of r: " + native_message) << cols;
    // Nothing was made: the name is free.
    EXPECT_EQ(vt_.value("SELECT count(*) FROM sqlite_schema WHERE name LIKE 'r%'"), "0") << cols;
  }

  Db native_;
  Db vt_;
};

INSTANTIATE_TEST_SUITE_P(Stores, TableCheckConstraintsTest, ::testing::Values("sqlite", "memory"));

// SQLite checks NOT NULL, then types, then each CHECK in declaration
// order, then uniqueness; OR IGNORE skips the row, OR REPLACE and OR ABORT
// end the statement and undo its rows, OR FAIL keeps them.
TEST_P(TableCheckConstraintsTest, OrderAndConflictClausesAsNative) {
  ASSERT_TRUE(create("a INTEGER CHECK(a>0), b INTEGER NOT NULL, c ANY CHECK(c <> 'z'), "
                     "CONSTRAINT cc CHECK(a <> 5), PRIMARY KEY(a)"));
  expect_same({"INSERT INTO t VALUES('x', 1, 1)",
               "INSERT INTO t VALUES(-1, NULL, 1)",
               "INSERT INTO t VALUES(-1, 'q', 1)",
               "INSERT INTO t VALUES(-1, 1, 'z')",
               "INSERT INTO t VALUES(5, 1, 'z')",
               "INSERT INTO t VALUES(5, 1, 'y')",
               "INSERT INTO t VALUES(1, 1, 'y')",
               "INSERT INTO t VALUES(1, 1, 'z')",
               "INSERT OR IGNORE INTO t VALUES(2, 1, 'z'), (3, 1, 'y')",
               "INSERT OR REPLACE INTO t VALUES(1, 1, 'z')",
               "INSERT OR REPLACE INTO t VALUES(6, 1, 'q'), (7, 1, 'z')",
               "UPDATE t SET c = 'z' WHERE a = 3",
               "UPDATE OR IGNORE t SET c = 'z' WHERE a > 1",
               "UPDATE t SET a = a + 1",
               "UPDATE t SET a = -a",
               "BEGIN",
               "INSERT INTO t VALUES(10, 1, 'q'), (11, 1, 'z')",
               "INSERT OR FAIL INTO t VALUES(20, 1, 'q'), (21, 1, 'z')",
               "UPDATE t SET b = b + 1",
               "COMMIT"});
}

// Messages name the constraint, or show its text as written. Column
// values compare with the column's affinity and collation.
TEST_P(TableCheckConstraintsTest, LabelsAffinityAndCollationAsNative) {
  ASSERT_TRUE(create("a INTEGER CONSTRAINT \"my c\" CHECK(a > '5'), b REAL CHECK (b <> 2), "
                     "c ANY CHECK (c > '5'), d TEXT COLLATE NOCASE CHECK (d <> 'X'), "
                     "e BLOB CONSTRAINT x NOT NULL CHECK (length(e) < 3), CONSTRAINT [w z] CHECK (a < 100)"));
  expect_same({"INSERT INTO t VALUES(6, 1, 'z', 'y', x'00')",
               "INSERT INTO t VALUES(4, 1, 'z', 'y', x'00')",
               "INSERT INTO t VALUES('6', 1, 'z', 'y', x'01')",
               "INSERT INTO t VALUES(7, '2.0', 'z', 'y', x'00')",
               "INSERT INTO t VALUES(7, 1, 1, 'y', x'00')",
               "INSERT INTO t VALUES(7, 1, 'z', 'x', x'00')",
               "INSERT INTO t VALUES(7, 1, 'z', 'y', x'000102')",
               "INSERT INTO t VALUES(100, 1, 'z', 'y', x'00')",
               "INSERT INTO t VALUES(NULL, NULL, NULL, NULL, x'')"});
}

// An ANY column has BLOB affinity: against a TEXT column its number stays
// a number (2 IS NOT '2'), where an expression without affinity would take
// TEXT's. Its collation is the column's, which yields to the left operand's.
TEST_P(TableCheckConstraintsTest, AnAnyColumnComparesAsAColumnDoes) {
  ASSERT_TRUE(create("a ANY, b TEXT COLLATE NOCASE, c ANY COLLATE NOCASE, "
                     "CHECK (a IS NOT b), CHECK (c IS NOT b), CHECK (a <> '7')"));
  expect_same({"INSERT INTO t VALUES(2, '2', 'x')", "INSERT INTO t VALUES('2', '2', 'x')",
               "INSERT INTO t VALUES('A', 'a', 'x')", "INSERT INTO t VALUES('x', 'y', 'Y')",
               "INSERT INTO t VALUES(7, 'y', 'z')", "INSERT INTO t VALUES('7', 'y', 'z')",
               "INSERT INTO t VALUES(2.5, '2.5', x'00')"});
}

// A CHECK sees every column, the ones an UPDATE keeps included, with
// their stored values: eight-byte integers, NULs inside text, keys kept
// by their collation key.
TEST_P(TableCheckConstraintsTest, ChecksSeeTheWholeRowAsStored) {
  ASSERT_TRUE(create("k TEXT COLLATE NOCASE, a INTEGER, b TEXT, "
                     "CHECK (a IS NULL OR abs(a) < 1000000 OR k = 'BIG'), "
                     "CHECK (instr(b, char(0)) = 0 OR k <> 'nul'), PRIMARY KEY(k)"));
  expect_same({"INSERT INTO t VALUES('Big', -9223372036854775808, 'x')",
               "INSERT INTO t VALUES('small', -9223372036854775808, 'x')",
               "INSERT INTO t VALUES('small', 5, 'x' || char(0) || 'y')",
               "INSERT INTO t VALUES('NUL', 5, 'x')",
               "UPDATE t SET b = 'p' || char(0)",
               "UPDATE t SET a = 9223372036854775807",
               "UPDATE t SET k = 'big' WHERE k = 'small'",
               "UPDATE t SET a = abs(a) WHERE k = 'small'"});
}

// A CHECK's own error (here integer overflow) fails the statement as it
// fails the native one.
TEST_P(TableCheckConstraintsTest, AnErrorInsideACheckFailsTheStatement) {
  ASSERT_TRUE(create("a INTEGER CHECK (abs(a) < 10)"));
  expect_same({"INSERT INTO t VALUES(1)", "INSERT INTO t VALUES(-9223372036854775808)",
               "BEGIN", "INSERT INTO t VALUES(2), (-9223372036854775808)", "COMMIT"});
}

TEST_P(TableCheckConstraintsTest, WhatSqliteRefusesInACheckIsRefused) {
  expect_refused("a INTEGER CHECK (max(a) > 0)", "misuse of aggregate function max()");
  expect_refused("a INTEGER CHECK (row_number() OVER () > 0)", "misuse of window function row_number()");
  expect_refused("a INTEGER CHECK (a > ?)", "parameters prohibited in CHECK constraints");
  expect_refused("a INTEGER CHECK (a > (SELECT 1))", "subqueries prohibited in CHECK constraints");
  expect_refused("a INTEGER CHECK (b > 0)", "no such column: b");
  expect_refused("a INTEGER CHECK (x.a > 0)", "no such column: x.a");
  // As in a WITHOUT ROWID table.
  expect_refused("a INTEGER PRIMARY KEY CHECK (rowid > 0)", "no such column: rowid");
}

// Without a PRIMARY KEY, a CHECK reads the rowid, the new one of a row
// being inserted included, by every name no column has taken.
TEST_P(TableCheckConstraintsTest, ARowidTablesChecksReadItsRowid) {
  ASSERT_TRUE(create("a INTEGER, CHECK (rowid < 3 AND oid = _rowid_)"));
  expect_same({"INSERT INTO t VALUES(1), (2)", "INSERT INTO t VALUES(3)", "INSERT INTO t(rowid, a) VALUES(-5, 3)",
               "UPDATE t SET rowid = rowid + 10 WHERE a = 3", "UPDATE t SET rowid = 0 WHERE a = 3"});
  native_.exec("DROP TABLE t");
  vt_.exec("DROP TABLE t");
  ASSERT_TRUE(create("rowid TEXT, CHECK (rowid <> 'x' AND oid > 0)"));
  expect_same({"INSERT INTO t VALUES('a')", "INSERT INTO t VALUES('x')"});
}

void positive(sqlite3_context* ctx, int, sqlite3_value** argv) {
  sqlite3_result_int(ctx, sqlite3_value_int64(argv[0]) > 0);
}

// A CHECK may call the application's function. Gone by the first write,
// it fails the write with a message that names the table.
TEST_P(TableCheckConstraintsTest, ACheckCallsTheApplicationsFunctions) {
  for (Db* db : {&native_, &vt_}) {
    ASSERT_EQ(sqlite3_create_function(db->handle(), "positive", 1, SQLITE_UTF8, nullptr, positive, nullptr,
                                      nullptr),
              SQLITE_OK);
  }
  ASSERT_TRUE(create("a INTEGER CHECK (positive(a))"));
  expect_same({"INSERT INTO t VALUES(1)", "INSERT INTO t VALUES(-1)"});
  ASSERT_TRUE(vt_.exec("CREATE VIRTUAL TABLE u USING tuplekv_table(a INTEGER CHECK (positive(a)), store=" +
                       std::string(GetParam()) + ")"));
  ASSERT_EQ(sqlite3_create_function(vt_.handle(), "positive", 1, SQLITE_UTF8, nullptr, nullptr, nullptr,
                                    nullptr),
            SQLITE_OK);
  EXPECT_EQ(vt_.error("INSERT INTO u VALUES(1)"),
            "tuplekv_table: CHECK constraint of u: no such function: positive");
  EXPECT_EQ(vt_.value("SELECT count(*) FROM u"), "0");
}

// The CHECK may name its table, which a rename leaves behind in the
// declaration: it still holds.
TEST_P(TableCheckConstraintsTest, ACheckNamingItsTableHoldsAfterARename) {
  ASSERT_TRUE(create("a INTEGER, CHECK (t.a > 0 AND main.t.a < 10)"));
  expect_same({"INSERT INTO t VALUES(1)", "INSERT INTO t VALUES(0)"});
  ASSERT_TRUE(vt_.exec("ALTER TABLE t RENAME TO u"));
  EXPECT_EQ(vt_.error_code("INSERT INTO u VALUES(10)"), SQLITE_CONSTRAINT_CHECK);
  EXPECT_TRUE(vt_.exec("INSERT INTO u VALUES(2)"));
  EXPECT_EQ(vt_.rows("SELECT a FROM u ORDER BY a"), (Rows{{"1"}, {"2"}}));
}

}  // namespace
}  // namespace tuplekv::testing
