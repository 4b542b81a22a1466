// tuplekv_table's planning through SQLite: which index or key a statement
// reads (EXPLAIN QUERY PLAN, and the rows it reads against the native
// reference's choice), skip-scans, ORDER BY delivered by the scan, and
// whole-table scans in the order SQLite reads its own table.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "ext/limit_pushdown.h"
#include "tests/ext/table_vtab_fixture.h"
#include "tests/testutil.h"

namespace tuplekv::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class TablePlanningTest : public TableVtabFixture {};

INSTANTIATE_TEST_SUITE_P(Stores, TablePlanningTest, ::testing::Values("sqlite", "memory"));

// A search reads the index SQLite reads in the reference, so that rows come
// in its order where no ORDER BY sets one: a one-sided range through a
// narrow index even with a row fetch per entry, and of two indexes that
// serve a term equally, the narrower, then the newer.
TEST_P(TablePlanningTest, SearchesReadTheIndexTheReferenceReads) {
  const std::string cols = "id INTEGER, a INTEGER, b INTEGER, t TEXT, pad TEXT, PRIMARY KEY(id)";
  ASSERT_NO_FATAL_FAILURE(create_with_native(
      "si", cols, ", INDEX si_at(a, t), INDEX si_ab(a, b), INDEX si_b(b)",
      "CREATE INDEX n_at ON n(a, t); CREATE INDEX n_ab ON n(a, b); CREATE INDEX n_b ON n(b);",
      " VALUES (1, 7, 9, 'z', 'p'), (2, 7, 1, 'a', 'q'), (3, 7, 5, 'm', 'r'), (4, 8, 3, 'b', 's'),"
      " (5, 9, 2, 'y', 't'), (6, 7, 4, 'c', 'u'), (7, 6, 8, 'x', 'v')"));
  expect_planned_as_native("si", {
      // a = 7: si_ab and si_at serve alike; si_ab's entries are narrower.
      {"SELECT id, pad FROM @T WHERE a = 7", "n_ab", "index si_ab"},
      {"SELECT id FROM @T WHERE a = 7 LIMIT 2", "n_ab", "index si_ab"},
      // si_ab serves both terms.
      {"SELECT id, pad FROM @T WHERE a = 7 AND b > 0", "n_ab", "index si_ab"},
      {"SELECT id, pad FROM @T WHERE b > 2", "n_b", "index si_b"},
      {"SELECT id, pad FROM @T WHERE b > 2 LIMIT 3", "n_b", "index si_b"},
      {"SELECT id, pad FROM @T WHERE b BETWEEN 2 AND 8", "n_b", "index si_b"},
  });
  // Two single-column indexes on different columns, one term each: the
  // newer.
  ASSERT_TRUE(db_.exec("CREATE VIRTUAL TABLE tw USING tuplekv_table(id INTEGER, a INTEGER, b INTEGER,"
                       " PRIMARY KEY(id), INDEX tw_a(a), INDEX tw_b(b)" + store_option() + ");"
                       "CREATE TABLE nw(id INTEGER, a INTEGER, b INTEGER, PRIMARY KEY(id)) STRICT,"
                       " WITHOUT ROWID; CREATE INDEX nw_a ON nw(a); CREATE INDEX nw_b ON nw(b);"));
  EXPECT_THAT(plan("SELECT id FROM nw WHERE a = 1 AND b = 2"), HasSubstr("INDEX nw_b"));
  EXPECT_THAT(plan("SELECT id FROM tw WHERE a = 1 AND b = 2"), HasSubstr("index tw_b"));
  // A wider index that SQLite's rounded sums price the same as a narrower
  // one: the newer.
  const std::string wide = "id INTEGER, a INTEGER, b REAL, c TEXT, d INTEGER, e REAL, f TEXT, PRIMARY KEY(id)";
  ASSERT_TRUE(db_.exec("CREATE VIRTUAL TABLE tr USING tuplekv_table(" + wide +
                       ", INDEX tr_a(a), INDEX tr_ab(a, b)" + store_option() + "); CREATE TABLE nr(" +
                       wide + ") STRICT, WITHOUT ROWID; CREATE INDEX nr_a ON nr(a);"
                       " CREATE INDEX nr_ab ON nr(a, b);"));
  for (const char* where : {"a = 1", "a IN (1, 2, 3)"}) {
    SCOPED_TRACE(where);
    EXPECT_THAT(plan(std::string("SELECT * FROM nr WHERE ") + where), HasSubstr("INDEX nr_ab"));
    EXPECT_THAT(plan(std::string("SELECT * FROM tr WHERE ") + where), HasSubstr("index tr_ab"));
  }
}

// A range over an ANY column reads a superset of the rows it matches, but
// SQLite prices the reference's index search by its own guess for the
// range, so that is what an index search here is priced by: both read
// the index, and an INSERT OR REPLACE that reads the table it writes
// replaces in the same order.
TEST_P(TablePlanningTest, RangesOverAnyColumnsSearchTheIndexTheReferenceSearches) {
  ASSERT_NO_FATAL_FAILURE(create_with_native("ar", "a INTEGER, b ANY, c ANY, d ANY, PRIMARY KEY(a)",
                                             ", UNIQUE INDEX ar_bd(b, d)", "CREATE UNIQUE INDEX n_bd ON n(b, d);",
                                             " VALUES (1, 3, 'x', 0), (2, 2, 'y', 0), (3, 1, 'z', 0)"));
  expect_planned_as_native("ar", {
      {"SELECT a, c FROM @T WHERE b > 0", "n_bd", "index ar_bd"},
      {"SELECT a, c FROM @T WHERE b <= 2", "n_bd", "index ar_bd"},
      {"SELECT a, c FROM @T WHERE b > 0 AND b < 5", "n_bd", "index ar_bd"},
  });
  for (const char* t : {"ar", "n"}) {
    ASSERT_TRUE(db_.exec(std::string("INSERT OR REPLACE INTO ") + t + " SELECT 10, b + 10, c, 0 FROM " + t +
                         " WHERE b > 0"));
  }
  expect_as_native("SELECT * FROM @T ORDER BY a", "ar");
}

// An index on a key column: its entries hold the column, then the whole
// key, (b, a, b) for an index on b of a table keyed (a, b). SQLite plans
// its own index (b) with the key's other columns after it, (b, a), and so
// does the search, up to the repeated column: = on b then a range on a,
// and an ORDER BY on a after = on b, read from the index alone.
TEST_P(TablePlanningTest, AnIndexOnAKeyColumnSearchesTheKeysOtherColumnsAfterIt) {
  ASSERT_NO_FATAL_FAILURE(create_with_native(
      "kc", "a REAL NOT NULL, b BLOB NOT NULL, c INTEGER, PRIMARY KEY(a, b)", ", INDEX kc_b(b)",
      "CREATE INDEX n_b ON n(b);",
      " VALUES (1.5, x'62', 1), (2.5, x'62', 2), (0.5, x'62', 3), (2.0, x'63', 4), (1e999, x'62', 5)"));
  expect_planned_as_native("kc", {
      {"SELECT c FROM @T WHERE b = x'62' AND a > 1 AND a < 3", "n_b", "index kc_b: range b=?1 AND a>?2 AND a<?3"},
      {"SELECT a FROM @T WHERE b = x'62' AND a >= 1 ORDER BY a DESC", "n_b", "index kc_b covering: range b=?1 AND a>=?2"},
  });
  // The whole key: a lookup by it, for both.
  expect_planned_as_native("SELECT a, c FROM @T WHERE b = x'62' AND a = 2.5", "kc", "PRIMARY KEY (a=? AND b=?)",
                           "primary key: point");
  // A pattern's range on a REAL key column after =: SQLite seeks its index
  // by it and loses the number whose text matches ('Inf'); so does the
  // search.
  const std::string glob = "SELECT c FROM @T WHERE a GLOB 'I*' AND b = x'62'";
  EXPECT_EQ(db_.rows(on(glob, "kc")), db_.rows(on(glob, "n")));
  EXPECT_THAT(plan(on(glob, "kc")), HasSubstr("index kc_b: range b=?1 AND a>=?2 AND a<?3"));
}

// IS NULL on an index over a nullable column seeks its NULLs, whatever
// the column's type, collation or direction, and the index read is the
// one the reference reads.
TEST_P(TablePlanningTest, IsNullSearchesTheIndexForItsNulls) {
  std::string rows = " VALUES ";
  int nulls_of_a = 0;
  for (int i = 1; i <= 40; ++i) {
    const std::string a = i % 5 == 0 ? "NULL" : i % 2 == 1 ? "'X'" : "'x'";
    const std::string b = i % 3 == 0 ? "NULL" : i % 3 == 1 ? std::to_string(i % 4) : "'v'";
    const std::string c = i % 7 == 0 ? "NULL" : std::to_string(i % 6) + ".5";
    const std::string d = i % 4 == 0 ? "NULL" : std::to_string(i);
    nulls_of_a += i % 5 == 0 ? 1 : 0;
    rows += (i > 1 ? ", (" : "(") + std::to_string(i) + ", " + a + ", " + b + ", " + c + ", " + d + ")";
  }
  ASSERT_NO_FATAL_FAILURE(create_with_native(
      "nl", "id INTEGER, a TEXT COLLATE NOCASE, b ANY, c REAL, d INTEGER, PRIMARY KEY(id)",
      ", INDEX nl_a(a), INDEX nl_bc(b, c), INDEX nl_d(d DESC)",
      "CREATE INDEX n_a ON n(a); CREATE INDEX n_bc ON n(b, c); CREATE INDEX n_d ON n(d DESC);", rows));
  expect_planned_as_native("nl", {
      {"SELECT * FROM @T WHERE a IS NULL", "n_a", "index nl_a: range a IS ?1"},
      {"SELECT id FROM @T WHERE b IS NULL", "n_bc", "index nl_bc covering sorted: range b IS ?1"},
      {"SELECT id FROM @T WHERE b IS NULL AND c IS NULL", "n_bc", "range b IS ?1 AND c IS ?2"},
      {"SELECT id, c FROM @T WHERE b IS NULL AND c > 2", "n_bc", "range b IS ?1 AND c>?2"},
      {"SELECT * FROM @T WHERE d IS NULL", "n_d", "index nl_d: range d IS ?1"},
      {"SELECT id FROM @T WHERE d IS NULL LIMIT 3", "n_d", "index nl_d covering: range d IS ?1"},
  });
  // Only the NULLs are read.
  EXPECT_EQ(stat("nl", "SELECT * FROM nl WHERE a IS NULL", "rows"), nulls_of_a);
  EXPECT_EQ(stat("nl", "SELECT * FROM nl WHERE a IS NULL", "ranges"), 1);
  // A column the IS NULL pins leaves the rest of the ORDER BY to the index.
  for (const char* sql : {"SELECT id FROM @T WHERE a IS NULL ORDER BY a, id DESC",
                          "SELECT id FROM @T WHERE a IS NULL ORDER BY a"}) {
    SCOPED_TRACE(sql);
    EXPECT_THAT(plan(on(sql, "n")), Not(HasSubstr("TEMP B-TREE")));
    EXPECT_THAT(plan(on(sql, "nl")), Not(HasSubstr("TEMP B-TREE")));
    expect_as_native(sql, "nl");
  }
  // NULL is never equal to a value, and a key column is never NULL.
  for (const char* sql : {"SELECT id FROM @T WHERE a IS NULL AND a = 'x'",
                          "SELECT id FROM @T WHERE d IS NULL AND d < 10", "SELECT id FROM @T WHERE id IS NULL",
                          "SELECT id FROM @T WHERE b IS NULL AND (b, c) <= ('v', 10)"}) {
    SCOPED_TRACE(sql);
    EXPECT_EQ(db_.rows(on(sql, "n")), Rows{});
    EXPECT_EQ(db_.rows(on(sql, "nl")), Rows{});
  }
  // A row value's comparison reaches the table as `c1 <= ?` of a value it
  // cannot see: a scan that may read the whole index, so SQLite must still
  // check the IS NULL.
  ASSERT_TRUE(db_.exec("CREATE VIRTUAL TABLE rv USING tuplekv_table(c0 INTEGER, c1 TEXT, INDEX rv_c1(c1 DESC)" +
                       store_option() + "); CREATE TABLE nrv(c0 INTEGER, c1 TEXT) STRICT;"
                       " CREATE INDEX nrv_c1 ON nrv(c1 DESC);"));
  ASSERT_TRUE(db_.exec("INSERT INTO rv VALUES (7, ''), (3, NULL), (1, 'a'); INSERT INTO nrv SELECT * FROM rv"));
  const char* row_value = "SELECT c0 FROM @T WHERE c1 IS NULL AND (c1, c0) <= (2.0, 10)";
  EXPECT_THAT(plan(on(row_value, "rv")), HasSubstr("recheck: range c1 IS ?1 AND c1<=?2"));
  EXPECT_EQ(db_.rows(on(row_value, "rv")), Rows{});
  EXPECT_EQ(db_.rows(on(row_value, "nrv")), Rows{});
  // A key column is NOT NULL, so SQLite answers `id IS NULL` itself, as for
  // its own table. Where it cannot (on the right of a LEFT JOIN, the
  // column may be NULL), the table's plan is empty.
  EXPECT_EQ(stat("nl", "SELECT id FROM nl WHERE id IS NULL", "rows"), 0);
  const char* joined = "SELECT x.id, y.id FROM @T AS x LEFT JOIN @T AS y ON y.id IS NULL WHERE x.id < 3";
  EXPECT_THAT(plan(on(joined, "nl")), HasSubstr(": empty"));
  expect_as_native(joined, "nl");
  // On the left of a LEFT JOIN, through a view (which hides NOT NULL from
  // SQLite), the ON clause's IS NULL decides only which rows join: the
  // empty plan takes the term, and so cannot run before the table it
  // waits for.
  ASSERT_TRUE(db_.exec("CREATE VIEW v_n AS SELECT id FROM n; CREATE VIEW v_nl AS SELECT id FROM nl"));
  const char* view_joined = "SELECT v.id, z.x FROM v_@T AS v LEFT JOIN (SELECT 1 AS x) AS z ON v.id IS NULL "
                            "WHERE v.id < 4";
  expect_as_native(view_joined, "nl");
  ASSERT_TRUE(db_.exec("DROP VIEW v_n; DROP VIEW v_nl"));
  EXPECT_EQ(db_.value("SELECT tuplekv_check('nl')"), "ok");
}

// An index search that uses more of the WHERE terms is never priced above
// one that uses fewer (as SQLite prices them), though IS NULL doubles the
// rows guessed.
// IS on an index over a nullable column seeks its value, or its NULLs
// when the value turns out NULL at run time, as the reference does.
TEST_P(TablePlanningTest, IsSearchesTheIndexForAValueOrItsNulls) {
  std::string rows = " VALUES ";
  int nulls_of_d = 0;
  int x_of_a = 0;
  for (int i = 1; i <= 40; ++i) {
    const std::string a = i % 5 == 0 ? "NULL" : i % 2 == 1 ? "'X'" : "'x'";
    const std::string b = i % 3 == 0 ? "NULL" : i % 3 == 1 ? std::to_string(i % 4) : "2.0";
    const std::string d = i % 4 == 0 ? "NULL" : std::to_string(i % 9);
    nulls_of_d += i % 4 == 0 ? 1 : 0;
    x_of_a += i % 5 == 0 ? 0 : 1;
    rows += (i > 1 ? ", (" : "(") + std::to_string(i) + ", " + a + ", " + b + ", " + d + ")";
  }
  ASSERT_NO_FATAL_FAILURE(create_with_native(
      "ni", "id INTEGER, a TEXT COLLATE NOCASE, b ANY, d INTEGER, PRIMARY KEY(id)",
      ", INDEX ni_a(a), INDEX ni_b(b), INDEX ni_d(d DESC)",
      "CREATE INDEX n_a ON n(a); CREATE INDEX n_b ON n(b); CREATE INDEX n_d ON n(d DESC);", rows));
  expect_planned_as_native("ni", {
      {"SELECT * FROM @T WHERE a IS 'x'", "n_a", "index ni_a: range a IS ?1"},
      // A number may carry numeric affinity (README, "ANY columns"): recheck.
      {"SELECT id FROM @T WHERE b IS 2", "n_b", "index ni_b covering recheck sorted: range b IS ?1"},
      {"SELECT * FROM @T WHERE d IS 5", "n_d", "index ni_d: range d IS ?1"},
      // NULL only at run time: not the IS NULL SQLite rewrites a literal to.
      {"SELECT * FROM @T WHERE d IS CAST(NULL AS INTEGER)", "n_d", "index ni_d: range d IS ?1"},
      {"SELECT id FROM @T WHERE b IS (SELECT NULL)", "n_b",
          "index ni_b covering recheck sorted: range b IS ?1"},
  });
  // Only the matching entries are read.
  EXPECT_EQ(stat("ni", "SELECT * FROM ni WHERE d IS CAST(NULL AS INTEGER)", "rows"), nulls_of_d);
  EXPECT_EQ(stat("ni", "SELECT * FROM ni WHERE a IS 'x'", "rows"), x_of_a);
  EXPECT_EQ(stat("ni", "SELECT * FROM ni WHERE a IS 'x'", "ranges"), 1);
  // In a join, the value comes from the other side, NULL or not.
  ASSERT_TRUE(db_.exec("CREATE TABLE probe(v INTEGER); INSERT INTO probe VALUES (NULL), (5), (70)"));
  for (const char* sql : {"SELECT p.v, t.id FROM probe AS p, @T AS t WHERE t.d IS p.v ORDER BY 1, 2",
                          "SELECT p.v, t.id FROM probe AS p, @T AS t WHERE t.b IS p.v ORDER BY 1, 2"}) {
    SCOPED_TRACE(sql);
    expect_as_native(sql, "ni");
  }
  // A column the IS pins leaves the rest of the ORDER BY to the index.
  const char* pinned = "SELECT id FROM @T WHERE d IS 5 ORDER BY d, id DESC";
  EXPECT_THAT(plan(on(pinned, "n")), Not(HasSubstr("TEMP B-TREE")));
  EXPECT_THAT(plan(on(pinned, "ni")), Not(HasSubstr("TEMP B-TREE")));
  expect_as_native(pinned, "ni");
}

TEST_P(TablePlanningTest, AnIndexUsingMoreTermsIsNotPricedAboveOneUsingFewer) {
  ASSERT_NO_FATAL_FAILURE(create_with_native(
      "sp", "id INTEGER, x INTEGER, y INTEGER, pad TEXT, PRIMARY KEY(id)", ", INDEX sp_x(x), INDEX sp_xy(x, y)",
      "CREATE INDEX n_x ON n(x); CREATE INDEX n_xy ON n(x, y);",
      " VALUES (1, 2, NULL, 'a'), (2, 2, 5, 'b'), (3, 3, NULL, 'c'), (4, 2, NULL, 'd')"));
  struct Case {
    const char* sql;
    const char* plan;
  };
  // An IN list too: SQLite plans the statement with and without it, and
  // the superset's fewer rows decide (they also price its sort).
  for (const Case& c : {Case{"SELECT id, pad FROM @T WHERE y IS NULL AND x = 2", "range x=?1 AND y IS ?2"},
                        Case{"SELECT id FROM @T WHERE y IN (5, 6, 7) AND x = 2 ORDER BY pad",
                             "range x=?1 AND y IN ?2"}}) {
    expect_planned_as_native(c.sql, "sp", "INDEX n_xy (x=? AND y=?)", std::string("index sp_xy: ") + c.plan);
  }
}

// An ORDER BY term on a column the WHERE pins to one value (= a literal
// under its collation, or IS NULL) holds for any index: it does not
// decide which index is read, as it does not for SQLite.
TEST_P(TablePlanningTest, OrderByAColumnTheWherePinsLeavesTheIndexChoiceAlone) {
  ASSERT_NO_FATAL_FAILURE(create_with_native(
      "op", "id INTEGER, x INTEGER, y INTEGER, z TEXT, PRIMARY KEY(id)",
      ", INDEX op_xz(x, z), INDEX op_yz(y, z), INDEX op_y(y)",
      "CREATE INDEX n_xz ON n(x, z); CREATE INDEX n_yz ON n(y, z); CREATE INDEX n_y ON n(y);",
      " VALUES (1, 1, 2, 'a'), (2, 1, 2, 'b'), (3, 2, 2, 'c'), (4, 1, 3, NULL), (5, NULL, 2, 'e')"));
  for (const char* sql : {"SELECT id FROM @T WHERE x = 1 AND y = 2 ORDER BY x",
                          "SELECT id FROM @T WHERE x = 1 AND y = 2 ORDER BY x, id",
                          "SELECT id FROM @T WHERE x IS NULL AND y = 2 ORDER BY x, id DESC"}) {
    expect_planned_as_native(sql, "op", "INDEX n_y (y=?)", "index op_y: range y=?1");
  }
  // An IN list comes as = too, but pins nothing.
  expect_as_native("SELECT id, x FROM @T WHERE x IN (1, 2) AND y = 2 ORDER BY x DESC, id", "op");
  expect_as_native("SELECT id, x FROM @T WHERE x IN (SELECT x FROM @T) AND y = 2 ORDER BY x DESC", "op");
  EXPECT_THAT(plan("SELECT id FROM op WHERE x = ?1 AND y = 2 ORDER BY x"), HasSubstr("index op_y:"));
  EXPECT_THAT(plan("SELECT id FROM op WHERE x = ?1 AND y = 2 ORDER BY x"), Not(HasSubstr("TEMP B-TREE")));
}

// A WHERE on an index's later columns only: SQLite reads that index whole,
// checks the terms on each entry and fetches the rows that pass, where
// its costs say so; the table reads the same entries in the same order
// and looks up only those rows.
TEST_P(TablePlanningTest, AnIndexFilteredOnItsLaterColumnsIsReadAsTheReferenceReadsIt) {
  // More distinct values of a than a skip-scan is planned over.
  std::string rows = " VALUES ";
  for (int i = 1; i <= 400; ++i) {
    rows += (i > 1 ? ", (" : "(") + std::to_string(i) + ", " + std::to_string((i * 7) % 401) + ", " +
            std::to_string(i % 4) + ", 'p" + std::to_string(i) + "')";
  }
  ASSERT_NO_FATAL_FAILURE(create_with_native("fl", "id INTEGER, a INTEGER, b INTEGER, pad TEXT, PRIMARY KEY(id)",
                                             ", INDEX fl_ab(a, b)", "CREATE INDEX n_ab ON n(a, b);", rows));
  for (const char* sql : {"SELECT * FROM @T WHERE b = 3", "SELECT id, pad FROM @T WHERE b = 3 LIMIT 4",
                          "SELECT id FROM @T WHERE b = 3 AND pad > 'p1'"}) {
    expect_planned_as_native(sql, "fl", "SCAN n USING INDEX n_ab", "index fl_ab: filter b");
  }
  // The pass is one range; each entry kept costs one row lookup.
  EXPECT_EQ(stat("fl", "SELECT * FROM fl WHERE b = 3", "rows"), 100);
  EXPECT_EQ(stat("fl", "SELECT * FROM fl WHERE b = 3", "ranges"), 1 + 100);
  // An index that holds every column read is read whole instead, with no
  // lookups at all.
  ASSERT_TRUE(db_.exec("CREATE VIRTUAL TABLE fc USING tuplekv_table(id INTEGER, a INTEGER, b INTEGER, c TEXT,"
                       " pad TEXT, PRIMARY KEY(id), INDEX fc_ab(a, b), INDEX fc_cb(c, b)" + store_option() +
                       "); CREATE TABLE nfc(id INTEGER, a INTEGER, b INTEGER, c TEXT, pad TEXT, PRIMARY KEY(id))"
                       " STRICT, WITHOUT ROWID; CREATE INDEX nfc_ab ON nfc(a, b); CREATE INDEX nfc_cb ON nfc(c, b);"));
  EXPECT_THAT(plan("SELECT id, c FROM nfc WHERE b = 3"), HasSubstr("SCAN nfc USING COVERING INDEX nfc_cb"));
  EXPECT_THAT(plan("SELECT id, c FROM fc WHERE b = 3"), HasSubstr("index fc_cb covering: full"));
  EXPECT_THAT(plan("SELECT id, pad FROM nfc WHERE b = 3"), HasSubstr("SCAN nfc USING INDEX nfc_ab"));
  EXPECT_THAT(plan("SELECT id, pad FROM fc WHERE b = 3"), HasSubstr("index fc_ab: filter b=?1"));
  // A range term saves too few lookups: SQLite reads the table.
  const char* range = "SELECT * FROM @T WHERE b > 2";
  EXPECT_THAT(plan(on(range, "n")), HasSubstr("SCAN n"));
  EXPECT_THAT(plan(on(range, "n")), Not(HasSubstr("INDEX")));
  EXPECT_THAT(plan(on(range, "fl")), HasSubstr("primary key: full"));
  expect_as_native(range, "fl");
}

// Two indexes that both deliver an ORDER BY, neither holding every column
// read: SQLite prices each whole read with its row lookups, and the sums
// round alike here, so the newer index is read, wider as it is.
TEST_P(TablePlanningTest, WholeIndexReadsArePricedWithTheirRowLookups) {
  const std::string cols = "pk INTEGER, col0 INTEGER, col1 REAL, col2 TEXT, col3 INTEGER, col4 REAL, col5 TEXT, "
                           "PRIMARY KEY(pk)";
  ASSERT_NO_FATAL_FAILURE(create_with_native(
      "wr", cols, ", INDEX wr_1(col1), INDEX wr_10(col1, col0)",
      "CREATE INDEX n_1 ON n(col1); CREATE INDEX n_10 ON n(col1, col0);",
      " VALUES (1, 5, 2.5, 'a', 1, 0.5, 'x'), (2, 6, 1.5, 'b', 2, 1.5, 'y'), (3, 7, 1.5, 'c', 3, 2.5, 'z')"));
  expect_planned_as_native("SELECT col2 FROM @T WHERE col2 < 'c' AND col2 > '' ORDER BY col1", "wr",
                           "SCAN n USING INDEX n_10", "index wr_10: full");
}

// With an index that delivers the ORDER BY, a native table reads it (even
// fetching each row) rather than sort; tuplekv chooses it too, so rows the
// ORDER BY leaves tied come in the same order, and so does the row a GROUP
// BY over an ANY column keeps of 0 and 0.0.
TEST_P(TablePlanningTest, OrderByReadsTheIndexThatDeliversIt) {
  ASSERT_NO_FATAL_FAILURE(create_with_native(
      "o", "id INTEGER, c3 REAL, region TEXT, v ANY, w INTEGER, PRIMARY KEY(id)",
      ", INDEX o_c3(c3, region), INDEX o_v(v, w)",
      "CREATE INDEX n_c3 ON n(c3, region); CREATE INDEX n_v ON n(v, w);",
      " VALUES (1, 2.5, 'z', 0, 9), (2, 2.5, 'a', 0.0, 1), (3, 1.0, 'm', 1, 5), (4, 2.5, 'k', 1.0, 2),"
      " (5, 1.0, 'b', 'x', 0)"));
  expect_as_native({"SELECT id FROM @T ORDER BY c3",
                    "SELECT id, region FROM @T ORDER BY c3 DESC",
                    "SELECT id FROM @T WHERE region > 'a' ORDER BY c3",
                    "SELECT quote(v), count(*) FROM @T GROUP BY v",
                    "SELECT quote(v), w FROM @T ORDER BY v"}, "o");
  EXPECT_THAT(plan("SELECT id FROM o ORDER BY c3"), HasSubstr("index o_c3"));
  EXPECT_THAT(plan("SELECT quote(v) FROM o GROUP BY v"), HasSubstr("index o_v covering sorted"));
  // A key lookup still beats reading the index in order.
  EXPECT_THAT(plan("SELECT * FROM o WHERE id = 3 ORDER BY c3"), HasSubstr("primary key: point"));
}

// SQLite hands a virtual table the range of a LIKE or GLOB pattern's
// literal prefix as `>=` and `<` terms it does not test itself. Numbers
// match a pattern through their text ('1.0e+15', '2.5e-07') yet sort
// before all text, so on a REAL or ANY column that range loses them.
// SQLite's own table seeks by it where the column leads its index, and
// loses them too; a skip-scan (which SQLite makes only with ANALYZE's
// statistics) must not, nor a filtered pass.
TEST_P(TablePlanningTest, APatternsPrefixRangeOnNumbersLeadsNoSkipScan) {
  ASSERT_NO_FATAL_FAILURE(create_with_native(
      "p", "k REAL NOT NULL, v INTEGER NOT NULL, w ANY, PRIMARY KEY(v, k)", ", INDEX p_w(v, w)",
      "CREATE INDEX n_w ON n(v, w);",
      " WITH RECURSIVE r(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM r WHERE i < 89)"
      " SELECT i, i % 3, CASE i % 2 WHEN 0 THEN i ELSE 'x' || i END FROM r"
      " UNION ALL VALUES (1e15, 0, 1e15), (2.5e-7, 2, '1.0e+x'), (1e300, 1, 2.5e-7), (7e22, 1, 7e22)"));
  for (const char* tmpl : {"SELECT v FROM @T WHERE k GLOB '1.0e+*' ORDER BY v",
                           "SELECT v FROM @T WHERE k GLOB '2.5e-*' ORDER BY v",
                           "SELECT v, quote(w) FROM @T WHERE w GLOB '1.0e+*' ORDER BY v, k",
                           "SELECT k FROM @T WHERE w GLOB '2.5e-*' ORDER BY k",
                           // A pattern on a column with a COLLATE (even BINARY)
                           // is not handed over, but its range is.
                           "SELECT v FROM @T WHERE k COLLATE RTRIM GLOB '1.0e+*' ORDER BY v",
                           "SELECT v, quote(w) FROM @T WHERE w COLLATE BINARY GLOB '1.0e+*' ORDER BY v, k",
                           "SELECT k FROM @T WHERE w COLLATE NOCASE GLOB '2.5e-*' ORDER BY k"}) {
    expect_as_native(tmpl, "p");
    EXPECT_THAT(plan(on(tmpl, "p")), Not(HasSubstr("skip"))) << tmpl;
    EXPECT_THAT(plan(on(tmpl, "p")), Not(HasSubstr("filter"))) << tmpl;
  }
  // Where SQLite seeks its own index by the range, so does the scan, with
  // the same rows (this SQLite loses 1e15 and 7e22 there).
  const std::string led = "SELECT k FROM @T WHERE v = 1 AND k GLOB '*e+*' AND k GLOB '7*' ORDER BY k";
  EXPECT_EQ(db_.rows(on(led, "p")), db_.rows(on(led, "n")));
  // Where = fixes every position of the key as well, SQLite seeks by that
  // alone and tests the pattern on the row it finds, which keeps the
  // number; so does the lookup.
  for (const char* tmpl : {"SELECT v FROM @T WHERE k GLOB '1.0e+*' AND k = 1e15 AND v = 0",
                           "SELECT v FROM @T WHERE v IS 1 AND k GLOB '7.0e+*' AND k = 7e22"}) {
    expect_as_native(tmpl, "p");
    EXPECT_FALSE(db_.rows(on(tmpl, "p")).empty()) << tmpl;
    EXPECT_THAT(plan(on(tmpl, "p")), HasSubstr("primary key: point")) << tmpl;
  }
  // After a fixed prefix, = on an index that is not unique: SQLite guesses
  // the range narrower, seeks by it and loses the number, and so does the
  // scan.
  const std::string by_range = "SELECT k FROM @T WHERE w GLOB '1.0e+*' AND w = 1e15 AND v = 0";
  EXPECT_EQ(db_.rows(on(by_range, "p")), db_.rows(on(by_range, "n")));
  // So where = or IN fixes the first position: the range would span the
  // whole table.
  ASSERT_TRUE(db_.exec("DROP TABLE n"));
  ASSERT_NO_FATAL_FAILURE(create_with_native("q", "k REAL NOT NULL, v INTEGER, PRIMARY KEY(k)", "", "",
                                             " VALUES (1e15, 1), (-1e999, 2), (7e22, 3), (1.5, 4)"));
  for (const char* tmpl : {"SELECT v FROM @T WHERE k GLOB '1.0e+*' AND k = 1e15",
                           "SELECT v FROM @T WHERE k GLOB '-I*' AND k IN (-1e999, 1.5)",
                           "SELECT v FROM @T WHERE k GLOB '7.0e+*' AND k IN (7e22, 1.5) ORDER BY k DESC"}) {
    expect_as_native(tmpl, "q");
  }
  // = on every key column: SQLite looks its key up without weighing an
  // index that the pattern's range would narrow further, and tests the
  // pattern on the row; so does the lookup.
  ASSERT_TRUE(db_.exec("DROP TABLE n"));
  ASSERT_NO_FATAL_FAILURE(create_with_native("r", "c0 INTEGER NOT NULL, c1 REAL, PRIMARY KEY(c0)", ", INDEX r_i(c0, c1)",
                                             "CREATE INDEX n_i ON n(c0, c1);", " VALUES (4, 1e999), (5, 2.0)"));
  const std::string looked_up = "SELECT c0 FROM @T WHERE c0 = 4 AND c1 GLOB 'In?'";
  expect_planned_as_native(looked_up, "r", "PRIMARY KEY (c0=?)", "primary key: point c0=?1");
  // On TEXT the range holds, and is read.
  EXPECT_THAT(plan("SELECT name FROM users WHERE region GLOB 'e*'"),
              HasSubstr("index region_idx: range region>=?1 AND region<?2 AND region GLOB ?3"));
}

TEST_P(TablePlanningTest, PlansUseKeysAndIndexes) {
  EXPECT_EQ(plan("SELECT * FROM users WHERE user_id = 2"),
            "SCAN users VIRTUAL TABLE INDEX 851968:primary key: point user_id=?1;");
  EXPECT_EQ(reads("SELECT * FROM users WHERE user_id = 2"), "1");
  EXPECT_EQ(reads("SELECT * FROM users WHERE user_id > 2.5"), "2");
  EXPECT_EQ(reads("SELECT * FROM users WHERE user_id IN (1, 4, 9)"), "2");
  EXPECT_THAT(plan("SELECT name FROM users WHERE region = 'eu'"), HasSubstr("index region_idx: range region=?1"));
  EXPECT_EQ(reads("SELECT name FROM users WHERE region = 'eu'"), "2");
  EXPECT_THAT(plan("SELECT user_id FROM users WHERE region = 'eu'"), HasSubstr("index region_idx covering"));
  {
    ext::LimitPushdownOverride pushdown(true);  // as if SQLite withheld no term
    EXPECT_EQ(plan("SELECT * FROM users ORDER BY user_id DESC LIMIT 2"),
              "SCAN users VIRTUAL TABLE INDEX 851968:primary key: full reverse limit ?1;");
  }
  EXPECT_EQ(db_.rows("SELECT user_id FROM users ORDER BY user_id DESC LIMIT 2"), (Rows{{"4"}, {"3"}}));
  EXPECT_EQ(reads("SELECT user_id FROM users ORDER BY user_id DESC LIMIT 2"), "2");
  EXPECT_EQ(db_.rows("SELECT name FROM users WHERE region LIKE 'E%' ORDER BY name"), (Rows{{"ann"}, {"cy"}}));
  EXPECT_THAT(plan("SELECT name FROM users WHERE region LIKE 'E%'"), HasSubstr("region LIKE ?1"));
  EXPECT_EQ(reads("SELECT name FROM users WHERE region GLOB 'e*'"), "2");
  // An IN list on a key prefix or an index reads its values' rows, even
  // where another index could answer a full scan alone (as SQLite's own
  // table does: its IN list is a few rows per value, not the table).
  ASSERT_TRUE(db_.exec("CREATE VIRTUAL TABLE gj USING tuplekv_table(g INTEGER, j INTEGER, name TEXT, region TEXT,"
                       " PRIMARY KEY(g, j), INDEX gj_region(region)" + store_option() + ");"
                       "INSERT INTO gj WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n"
                       " WHERE i < 999) SELECT i / 10, i % 10, 'n', 'r' || (i % 7) FROM n"));
  EXPECT_THAT(plan("SELECT g, j, region FROM gj WHERE g IN (5, 7)"), HasSubstr("primary key: range g IN ?1"));
  EXPECT_EQ(stat("gj", "SELECT g, j, region FROM gj WHERE g IN (5, 7)", "rows"), 20);
  EXPECT_THAT(plan("SELECT g, j FROM gj WHERE region IN ('r1', 'r2')"), HasSubstr("index gj_region covering"));
  EXPECT_THAT(plan("SELECT g, j FROM gj WHERE region IN ('r1', 'r2')"), Not(HasSubstr("full")));
}

// Skip-scans: the first key column unconstrained, the next one
// constrained, and few distinct first values. The same statements against
// a native table give the same rows.
TEST_P(TablePlanningTest, SkipScansOverFewFirstValues) {
  const std::string store = store_option();
  const std::string rows =
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000) "
      "SELECT 'r' || (i % 6), i, 'n' || (i % 50) FROM n";
  ASSERT_TRUE(db_.exec("CREATE VIRTUAL TABLE pr USING tuplekv_table(region TEXT, id INTEGER, "
                       "name TEXT, PRIMARY KEY(region, id), INDEX pr_name(name, region)" + store + ");"
                       "CREATE TABLE native(region TEXT NOT NULL, id INTEGER NOT NULL, name TEXT, "
                       "PRIMARY KEY(region, id)) STRICT, WITHOUT ROWID;"
                       "INSERT INTO pr " + rows + "; INSERT INTO native " + rows + ";"));
  const char* queries[] = {
      "SELECT * FROM @ WHERE id = 77",
      "SELECT * FROM @ WHERE id IN (5, 6, 3001, 7)",
      "SELECT region, id FROM @ WHERE id BETWEEN 70 AND 90 ORDER BY region DESC, id DESC",
      "SELECT region, id FROM @ WHERE id > 2990 ORDER BY region, id LIMIT 4 OFFSET 3",
      "SELECT id FROM @ WHERE id < 20 ORDER BY id",  // SQLite sorts
      "SELECT count(*) FROM @ WHERE id >= 1000 AND id < 1100",
      "SELECT id, region FROM @ WHERE name = 'n7' AND id < 100",
  };
  for (std::string q : queries) {
    const size_t at = q.find('@');
    std::string ours = q, theirs = q;
    ours.replace(at, 1, "pr");
    theirs.replace(at, 1, "native");
    EXPECT_EQ(db_.rows(ours), db_.rows(theirs)) << q;
  }
  EXPECT_EQ(plan("SELECT * FROM pr WHERE id = 77"),
            "SCAN pr VIRTUAL TABLE INDEX 851968:primary key: point id=?1 skip region;");
  // Six regions: 7 searches for a region, 6 lookups, 1 row.
  EXPECT_EQ(stat("pr", "SELECT * FROM pr WHERE id = 77", "ranges"), 13);
  EXPECT_EQ(stat("pr", "SELECT * FROM pr WHERE id = 77", "rows"), 1);
  EXPECT_EQ(stat("pr", "SELECT * FROM pr WHERE id BETWEEN 70 AND 90", "rows"), 21);
  EXPECT_THAT(plan("SELECT region, id FROM pr WHERE id BETWEEN 70 AND 90 ORDER BY region DESC, id DESC"),
              HasSubstr("range id>=?1 AND id<=?2 skip region reverse"));
  // An index skips over its first column too.
  ASSERT_TRUE(db_.exec("CREATE VIRTUAL TABLE ev USING tuplekv_table(id INTEGER PRIMARY KEY, kind TEXT, "
                       "at INTEGER, INDEX ev_kind(kind, at)" + store + ");"
                       "INSERT INTO ev SELECT id, region, id % 100 FROM native;"));
  EXPECT_THAT(plan("SELECT id FROM ev WHERE at = 42"),
              HasSubstr(":index ev_kind covering: range at=?1 skip kind;"));
  EXPECT_EQ(db_.rows("SELECT count(*), sum(id) FROM ev WHERE at = 42"),
            db_.rows("SELECT count(*), sum(id) FROM native WHERE id % 100 = 42"));
  // Past the distinct values a skip-scan is planned for, a full scan: of
  // pr_name, which holds every column, as SQLite reads its own table.
  ASSERT_TRUE(db_.exec("INSERT INTO pr WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n "
                       "WHERE i < 300) SELECT 'z' || i, 1, 'm' FROM n"));
  EXPECT_EQ(plan("SELECT * FROM pr WHERE id = 77"),
            "SCAN pr VIRTUAL TABLE INDEX 1573121:index pr_name covering: full;");
  EXPECT_EQ(db_.rows("SELECT region FROM pr WHERE id = 77"), (Rows{{"r5"}}));
  EXPECT_EQ(db_.value("SELECT tuplekv_check('pr')"), "ok");
}

// A skip-scan needs each first value repeated 18 times on average, as
// SQLite's own needs: below that the table reads its key whole as the
// native one does, so an UPDATE OR IGNORE whose rows collide keeps the same
// row. (Skipping over ev_grp it would visit 'b' first and move it to 'z'.)
TEST_P(TablePlanningTest, SkipScansOnlyOverValuesRepeatedEighteenTimes) {
  const std::string store = store_option();
  const std::string cols = "k TEXT, grp INTEGER, at INTEGER, ";
  ASSERT_TRUE(db_.exec("CREATE VIRTUAL TABLE ev USING tuplekv_table(" + cols + "PRIMARY KEY(k), "
                       "INDEX ev_grp(grp, at)" + store + ");"
                       "CREATE TABLE native(k TEXT NOT NULL PRIMARY KEY, grp INTEGER, at INTEGER) "
                       "STRICT, WITHOUT ROWID; CREATE INDEX native_grp ON native(grp, at);"));
  const std::string rows = "VALUES ('a', 2, 5), ('b', 1, 5), ('c', 1, 6), ('d', 2, 7)";
  ASSERT_TRUE(db_.exec("INSERT INTO ev " + rows + "; INSERT INTO native " + rows + ";"));
  EXPECT_THAT(plan("SELECT * FROM ev WHERE at = 5"), Not(HasSubstr("skip")));
  for (const char* t : {"ev", "native"}) {
    ASSERT_TRUE(db_.exec(std::string("UPDATE OR IGNORE ") + t + " SET k = 'z' WHERE at = 5"));
  }
  EXPECT_EQ(db_.rows("SELECT * FROM ev ORDER BY k"), db_.rows("SELECT * FROM native ORDER BY k"));
  EXPECT_EQ(db_.rows("SELECT k FROM ev WHERE at = 5"), (Rows{{"b"}, {"z"}}));
  // 36 rows over 2 groups: 18 each, and the skip-scan.
  const std::string more =
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 32) "
      "SELECT 'r' || i, i % 2 + 1, i FROM n";
  ASSERT_TRUE(db_.exec("INSERT INTO ev " + more + "; INSERT INTO native " + more + ";"));
  EXPECT_THAT(plan("SELECT * FROM ev WHERE at = 5"), HasSubstr("range at=?1 skip grp"));
  EXPECT_EQ(db_.rows("SELECT k, grp FROM ev WHERE at = 5 ORDER BY k"),
            db_.rows("SELECT k, grp FROM native WHERE at = 5 ORDER BY k"));
  ASSERT_TRUE(db_.exec("DELETE FROM ev WHERE k = 'r1'"));  // 35: too few again
  EXPECT_THAT(plan("SELECT * FROM ev WHERE at = 5"), Not(HasSubstr("skip")));
  EXPECT_EQ(db_.value("SELECT tuplekv_check('ev')"), "ok");
}

TEST(TablePlanningOneTableTest, CompositeKeysTypedRangesAndAnyKeys) {
  Db db;
  ASSERT_TRUE(db.exec(
      "CREATE VIRTUAL TABLE pop USING tuplekv_table(state TEXT, county TEXT, people INTEGER,"
      " PRIMARY KEY(state, county));"
      "INSERT INTO pop VALUES ('CA', 'Alameda', 1600000), ('CA', 'Fresno', 1000000),"
      " ('NY', 'Albany', 300000), ('NY', 'Kings', 2600000), ('TX', 'Harris', 4700000);"
      "CREATE VIRTUAL TABLE a USING tuplekv_table(k ANY PRIMARY KEY, v);"
      "INSERT INTO a VALUES (2, 'int'), ('2', 'text'), (x'02', 'blob'), (2.5, 'real');"));
  EXPECT_EQ(db.rows("SELECT county FROM pop WHERE state = 'CA' ORDER BY county DESC"),
            (Rows{{"Fresno"}, {"Alameda"}}));
  EXPECT_EQ(db.rows("EXPLAIN QUERY PLAN SELECT county FROM pop WHERE state = 'CA' ORDER BY county DESC")
                .at(0)
                .back(),
            "SCAN pop VIRTUAL TABLE INDEX 851968:primary key: range state=?1 reverse");
  EXPECT_EQ(db.rows("SELECT county FROM pop WHERE state = 'NY' AND county >= 'B'"), (Rows{{"Kings"}}));
  EXPECT_EQ(db.rows("SELECT county FROM pop WHERE state IN ('TX', 'CA') AND county LIKE 'a%'"),
            (Rows{{"Alameda"}}));
  // ANY keys: 2 and 2.0 are one key; = finds either encoding.
  EXPECT_EQ(db.error("INSERT INTO a VALUES (2.0, 'dup')"), "UNIQUE constraint failed: a.k");
  EXPECT_EQ(db.rows("SELECT v FROM a WHERE k = 2.0"), (Rows{{"int"}}));
  EXPECT_EQ(db.rows("SELECT v FROM a WHERE k > 2 ORDER BY k"), (Rows{{"real"}, {"text"}, {"blob"}}));
  EXPECT_EQ(db.rows("SELECT v FROM a WHERE k >= x'00'"), (Rows{{"blob"}}));
}

// A whole-table scan reads the index SQLite would read of the native
// table (a narrower one holding every column the statement uses), so rows
// come in the same order: random declarations and rows, each statement's
// rows and choice (an index or the key) against the native table's.
TEST(TablePlanningOneTableTest, FullScansReadWhatSqliteReadsOfItsOwnTable) {
  std::mt19937 rng(20261124);
  auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
  auto sample = [&](int n, int k) {
    std::vector<int> all(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) all[static_cast<size_t>(i)] = i;
    std::shuffle(all.begin(), all.end(), rng);
    all.resize(static_cast<size_t>(k));
    return all;
  };
  auto list = [](const std::vector<int>& cols) {
    std::string s;
    for (int c : cols) s += (s.empty() ? "c" : ", c") + std::to_string(c);
    return s;
  };
  static const char* kTypes[] = {"INTEGER", "INT", "REAL", "TEXT", "BLOB", "ANY"};
  int compared = 0, chose_index = 0;
  for (int round = 0; round < 150; ++round) {
    Db db;
    const int n = 2 + pick(4);
    const std::vector<int> key = sample(n, 1 + pick(std::min(3, n)));
    std::string vt_cols, native_cols;
    std::vector<int> type(static_cast<size_t>(n));
    for (int c = 0; c < n; ++c) {
      type[static_cast<size_t>(c)] = pick(6);
      const std::string def = "c" + std::to_string(c) + " " + kTypes[type[static_cast<size_t>(c)]];
      const bool in_key = std::find(key.begin(), key.end(), c) != key.end();
      vt_cols += def + ", ";
      native_cols += def + (in_key ? " NOT NULL, " : ", ");
    }
    std::string constraints = "PRIMARY KEY(" + list(key) + ")";
    for (int u = pick(3); u > 0; --u) {
      const std::string unique = "UNIQUE(" + list(sample(n, 1 + pick(2))) + ")";
      constraints = pick(2) ? constraints + ", " + unique : unique + ", " + constraints;
    }
    std::string vt_indexes, native_indexes;
    for (int i = pick(3); i > 0; --i) {
      const std::string name = "i" + std::to_string(i);
      const std::string cols = list(sample(n, 1 + pick(std::min(3, n))));
      const bool unique = pick(3) == 0;
      vt_indexes += std::string(", ") + (unique ? "UNIQUE " : "") + "INDEX " + name + "(" + cols + ")";
      native_indexes += std::string("CREATE ") + (unique ? "UNIQUE " : "") + "INDEX " + name + " ON n(" + cols + ");";
    }
    const std::string vt = "CREATE VIRTUAL TABLE t USING tuplekv_table(" + vt_cols + constraints + vt_indexes + ")";
    const std::string native = "CREATE TABLE n(" + native_cols + constraints + ") STRICT, WITHOUT ROWID;" + native_indexes;
    ASSERT_TRUE(db.exec(vt)) << vt;
    ASSERT_TRUE(db.exec(native)) << native;
    for (int r = 0; r < 12; ++r) {
      std::string values;
      for (int c = 0; c < n; ++c) {
        const int v = pick(7);
        std::string lit;
        switch (type[static_cast<size_t>(c)]) {
          case 0: case 1: lit = std::to_string(v); break;
          case 2: lit = std::to_string(v) + ".5"; break;
          case 3: lit = "'" + std::string(1, static_cast<char>('a' + v)) + "'"; break;
          case 4: lit = "x'0" + std::to_string(v) + "'"; break;
          default: lit = v % 2 ? std::to_string(v) : "'" + std::to_string(v) + "'";
        }
        values += (c ? ", " : "") + lit;
      }
      ASSERT_TRUE(db.exec("INSERT OR IGNORE INTO t VALUES (" + values + "); INSERT OR IGNORE INTO n VALUES (" +
                          values + ")"));
    }
    for (int q = 0; q < 4; ++q) {
      const std::string cols = list(sample(n, 1 + pick(n)));
      const std::string theirs = db.rows("EXPLAIN QUERY PLAN SELECT " + cols + " FROM n").at(0).back();
      const std::string ours = db.rows("EXPLAIN QUERY PLAN SELECT " + cols + " FROM t").at(0).back();
      const bool their_index = theirs.find(" INDEX ") != std::string::npos;
      EXPECT_EQ(ours.find(":index ") != std::string::npos, their_index)
          << vt << "\n" << native << "\nSELECT " << cols << "\n" << ours << "\n" << theirs;
      EXPECT_EQ(db.rows("SELECT " + cols + " FROM t"), db.rows("SELECT " + cols + " FROM n"))
          << vt << "\n" << native << "\nSELECT " << cols << "\n" << ours << "\n" << theirs;
      ++compared;
      if (their_index) ++chose_index;
    }
  }
  // Both outcomes were tried often.
  EXPECT_GT(chose_index, compared / 10);
  EXPECT_LT(chose_index, compared * 9 / 10);
}

// `t.b = n.b` pins t.b only inside the loop over n. A plan that leaves that
// term to SQLite may run before n, so it must not claim the ORDER BY (or
// GROUP BY, max(), a window's order) done: SQLite would then sort nothing.
TEST(TablePlanningOneTableTest, AnOrderPinnedByAJoinHoldsOnlyWhereTheScanTakesTheJoin) {
  for (const char* store : {"", ", store=memory"}) {
    SCOPED_TRACE(store);
    Db db;
    ASSERT_TRUE(db.exec(std::string("CREATE VIRTUAL TABLE t USING tuplekv_table(a INTEGER PRIMARY KEY, b INTEGER") +
                        store + ");"
                        "CREATE TABLE nt(a INTEGER PRIMARY KEY, b INTEGER) STRICT;"
                        "CREATE TABLE n(b INTEGER) STRICT;"
                        "INSERT INTO t VALUES (1, 5), (2, 9), (3, 1), (4, 5); INSERT INTO nt SELECT * FROM t;"
                        "INSERT INTO n VALUES (5), (9), (1)"));
    for (const char* sql : {"SELECT @T.b FROM @T JOIN n ON n.b = @T.b ORDER BY @T.b",
                            "SELECT @T.b FROM @T JOIN n ON n.b IS @T.b ORDER BY @T.b DESC",
                            "SELECT @T.b FROM @T JOIN n ON n.b = @T.b ORDER BY @T.b LIMIT 1",
                            "SELECT @T.b, count(*) FROM @T JOIN n ON n.b = @T.b GROUP BY @T.b",
                            "SELECT max(@T.b) FROM @T JOIN n ON n.b = @T.b",
                            "SELECT @T.b, rank() OVER (ORDER BY @T.b) FROM @T JOIN n ON n.b = @T.b",
                            "SELECT x.a, y.a FROM @T AS x JOIN @T AS y ON y.b = x.b ORDER BY y.b, x.a, y.a"}) {
      SCOPED_TRACE(sql);
      const Rows native = db.rows(TableVtabFixture::on(sql, "nt"));
      ASSERT_FALSE(native.empty());
      EXPECT_EQ(db.rows(TableVtabFixture::on(sql, "t")), native);
    }
  }
}

// A term in the ON clause of a LEFT JOIN that names only the table on its
// left filters nothing from that table: its rows that fail are kept, with
// NULLs. SQLite 3.40 offers such a LIKE or GLOB to the table as usable, and
// such an = once, in its first xBestIndex call; neither may narrow the
// scan or pin an ORDER BY or GROUP BY.
TEST(TablePlanningOneTableTest, AnOnClauseTermOnTheLeftOfALeftJoinKeepsItsRows) {
  for (const char* store : {"", ", store=memory"}) {
    SCOPED_TRACE(store);
    Db db;
    ASSERT_TRUE(db.exec(std::string("CREATE VIRTUAL TABLE t USING tuplekv_table(k TEXT, e TEXT, c ANY, ") +
                        "PRIMARY KEY(k), INDEX t_e(e)" + store + ");"
                        "CREATE TABLE nt(k TEXT NOT NULL, e TEXT, c ANY, PRIMARY KEY(k)) STRICT, WITHOUT ROWID;"
                        "CREATE INDEX nt_e ON nt(e); CREATE TABLE n(b);"
                        "INSERT INTO t VALUES ('a', 'x', NULL), ('b', 'yes', x'61'), ('c', NULL, NULL), "
                        "('d', 'Yak', 5), ('e', 'xy', 5);"
                        "INSERT INTO nt SELECT * FROM t; INSERT INTO n VALUES (1)"));
    for (const char* sql : {"SELECT @T.k, n.b FROM @T LEFT JOIN n ON @T.e GLOB 'y*' ORDER BY @T.k",
                            "SELECT @T.k, n.b FROM @T LEFT JOIN n ON @T.e LIKE 'y%' ORDER BY @T.k",
                            "SELECT @T.k, n.b FROM @T LEFT JOIN n ON @T.k LIKE 'B%' AND n.b = 1 ORDER BY @T.k",
                            "SELECT @T.k, n.b FROM @T LEFT JOIN n ON @T.e GLOB 'x*' AND @T.e > 'a' ORDER BY @T.k",
                            "SELECT @T.c, count(*) FROM @T LEFT JOIN n ON @T.c = 5 GROUP BY @T.c",
                            "SELECT @T.e, n.b FROM @T LEFT JOIN n ON @T.e = 'x' ORDER BY @T.e, @T.k",
                            "SELECT @T.k, n.b FROM @T LEFT JOIN n ON @T.k = 'b' ORDER BY @T.k DESC"}) {
      SCOPED_TRACE(sql);
      const Rows native = db.rows(TableVtabFixture::on(sql, "nt"));
      ASSERT_GE(native.size(), 3u);
      EXPECT_EQ(db.rows(TableVtabFixture::on(sql, "t")), native);
    }
    // In a WHERE clause the pattern still narrows the scan to its range.
    EXPECT_THAT(db.rows("EXPLAIN QUERY PLAN SELECT k FROM t WHERE e GLOB 'y*'")[0].back(),
                ::testing::HasSubstr("index t_e covering: range e>=?1 AND e<?2 AND e GLOB ?3"));
    EXPECT_THAT(db.rows("EXPLAIN QUERY PLAN SELECT k FROM t WHERE e LIKE 'y%'")[0].back(),
                ::testing::HasSubstr("index t_e covering: range e LIKE ?1"));
  }
}

}  // namespace
}  // namespace tuplekv::testing
