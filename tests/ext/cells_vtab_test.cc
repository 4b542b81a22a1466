// tuplekv_cells through SQL: the stored key bytes of each layout, ANY
// semantics (2 and 2.0 are one row), conflict clauses, prefix scans
// counted with tuplekv_stats, transactions on both stores, a random
// workload against a native STRICT WITHOUT ROWID table, and sql/cells.sql.
#include <gtest/gtest.h>

#include <string>

#include "tests/ext/pair_diff.h"
#include "tests/ext/sql_example.h"
#include "tests/testutil.h"

namespace tuplekv::testing {
namespace {

constexpr const char* kNative =
    "CREATE TABLE ref(row ANY NOT NULL, col ANY NOT NULL, value ANY, PRIMARY KEY(row, col)) "
    "STRICT, WITHOUT ROWID";

// Hand-packed pieces: 02 'sheet' 00 is the subspace, 15 01 the int 1,
// 02 'A' 00 the string 'A'.
const std::string kS = "02736865657400";
const std::string kInt1 = "1501";
const std::string kStrA = "024100";

TEST(CellsLayoutTest, RowLayoutKeyBytes) {
  Db db;
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE sheet USING tuplekv_cells(layout=row);"
                      "INSERT INTO sheet VALUES (1, 'A', 7)"));
  EXPECT_EQ(db.rows("SELECT hex(k), hex(v) FROM sheet_kv"),
            (Rows{{kS + kInt1 + kStrA, "1507"}}));
}

TEST(CellsLayoutTest, ColumnLayoutKeyBytes) {
  Db db;
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE sheet USING tuplekv_cells(layout=column);"
                      "INSERT INTO sheet VALUES (1, 'A', 'x')"));
  EXPECT_EQ(db.rows("SELECT hex(k), hex(v) FROM sheet_kv"),
            (Rows{{kS + kStrA + kInt1, "027800"}}));
}

TEST(CellsLayoutTest, BothLayoutKeyBytes) {
  Db db;
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE sheet USING tuplekv_cells(layout=both);"
                      "INSERT INTO sheet VALUES (1, 'A', NULL)"));
  const std::string col_idx = "02636F6C5F69647800";  // 'col_idx'
  const std::string row_idx = "02726F775F69647800";  // 'row_idx'
  EXPECT_EQ(db.rows("SELECT hex(k), hex(v) FROM sheet_kv"),
            (Rows{{kS + col_idx + kStrA + kInt1, "00"}, {kS + row_idx + kInt1 + kStrA, "00"}}));
  ASSERT_TRUE(db.exec("DELETE FROM sheet WHERE col = 'A'"));
  EXPECT_EQ(db.value("SELECT count(*) FROM sheet_kv"), "0");
}

TEST(CellsLayoutTest, SubspaceAndTypesKeepTheirTupleType) {
  Db db;
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE t USING tuplekv_cells(subspace='sheet');"
                      "INSERT INTO t VALUES (2.0, x'00ff', 1.5)"));
  // double 2.0: 21 C0 00..00; bytes 00 FF escaped as 00 FF FF.
  EXPECT_EQ(db.rows("SELECT hex(k), hex(v), hex(raw) = hex(k) FROM t_kv, t"),
            (Rows{{kS + "21C000000000000000" + "0100FFFF00", "21BFF8000000000000", "1"}}));
  EXPECT_EQ(db.rows("SELECT typeof(row), typeof(col), typeof(value) FROM t"),
            (Rows{{"real", "blob", "real"}}));
}

TEST(CellsLayoutTest, BadOptions) {
  Db db;
  EXPECT_EQ(db.error("CREATE VIRTUAL TABLE t USING tuplekv_cells(layout=diagonal)"),
            "tuplekv_cells: layout must be row, column or both, not 'diagonal'");
  EXPECT_EQ(db.error("CREATE VIRTUAL TABLE t USING tuplekv_cells(colour=red)"),
            "tuplekv_cells: unknown option 'colour'");
  EXPECT_EQ(db.value("SELECT count(*) FROM sqlite_schema"), "0");
}

class CellsTest : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE t USING tuplekv_cells(layout=" + layout() +
                        ", store=" + store() + ")"));
    ASSERT_TRUE(db.exec(kNative));
  }
  std::string layout() const { return std::get<0>(GetParam()); }
  std::string store() const { return std::get<1>(GetParam()); }
  Db db;
};

INSTANTIATE_TEST_SUITE_P(
    Layouts, CellsTest,
    ::testing::Combine(::testing::Values("row", "column", "both"),
                       ::testing::Values("sqlite", "memory")),
    [](const auto& info) { return std::get<0>(info.param) + "_" + std::get<1>(info.param); });

TEST_P(CellsTest, IntegerAndRealAreOneKey) {
  ASSERT_TRUE(db.exec("INSERT INTO t VALUES (2, 'a', 'int')"));
  EXPECT_EQ(db.error("INSERT INTO t VALUES (2.0, 'a', 'real')"),
            "UNIQUE constraint failed: t.row, t.col");
  EXPECT_EQ(db.error_code("INSERT INTO t VALUES (2.0, 'a', 'real')"), SQLITE_CONSTRAINT_PRIMARYKEY);
  EXPECT_EQ(db.rows("SELECT quote(row), value FROM t WHERE row = 2.0"), (Rows{{"2", "int"}}));
  ASSERT_TRUE(db.exec("INSERT OR REPLACE INTO t VALUES (2.0, 'a', 'real')"));
  EXPECT_EQ(db.rows("SELECT quote(row), value FROM t WHERE row = 2"), (Rows{{"2.0", "real"}}));
  ASSERT_TRUE(db.exec("INSERT OR IGNORE INTO t VALUES (2, 'a', 'ignored')"));
  EXPECT_EQ(db.rows("SELECT quote(row), value FROM t"), (Rows{{"2.0", "real"}}));
  // TEXT '2' is another value.
  ASSERT_TRUE(db.exec("INSERT INTO t VALUES ('2', 'a', 'text')"));
  EXPECT_EQ(db.value("SELECT count(*) FROM t WHERE row IN (2, '2')"), "2");
  EXPECT_EQ(db.error("INSERT INTO t VALUES (NULL, 'a', 1)"), "NOT NULL constraint failed: t.row");
  EXPECT_EQ(db.error_code("INSERT INTO t VALUES (1, NULL, 1)"), SQLITE_CONSTRAINT_NOTNULL);
}

TEST_P(CellsTest, UpdateMovesCellsAndChecksConflicts) {
  ASSERT_TRUE(db.exec("INSERT INTO t VALUES (1, 'a', 10), (1, 'b', 20), (2, 'a', 30)"));
  ASSERT_TRUE(db.exec("UPDATE t SET value = value + 1 WHERE row = 1"));
  EXPECT_EQ(db.rows("SELECT row, col, value FROM t ORDER BY row, col"),
            (Rows{{"1", "a", "11"}, {"1", "b", "21"}, {"2", "a", "30"}}));
  EXPECT_EQ(db.error("UPDATE t SET row = 2 WHERE col = 'a' AND row = 1"),
            "UNIQUE constraint failed: t.row, t.col");
  ASSERT_TRUE(db.exec("UPDATE t SET row = 3 WHERE col = 'b'"));
  ASSERT_TRUE(db.exec("UPDATE t SET row = 1.0 WHERE row = 1"));  // the same key, retyped
  EXPECT_EQ(db.rows("SELECT quote(row), col, value FROM t ORDER BY row, col"),
            (Rows{{"1.0", "a", "11"}, {"2", "a", "30"}, {"3", "b", "21"}}));
  ASSERT_TRUE(db.exec("UPDATE OR REPLACE t SET row = 2 WHERE row = 1"));
  EXPECT_EQ(db.rows("SELECT quote(row), col, value FROM t ORDER BY row, col"),
            (Rows{{"2", "a", "11"}, {"3", "b", "21"}}));
  // The stored key is read-only (an UPDATE of it was once ignored).
  EXPECT_EQ(db.error("UPDATE t SET raw = x'00', value = 0"),
            "tuplekv_cells: raw is the stored key of t, it cannot be written");
  EXPECT_EQ(db.rows("SELECT quote(row), col, value FROM t ORDER BY row, col"),
            (Rows{{"2", "a", "11"}, {"3", "b", "21"}}));
}

TEST_P(CellsTest, RowAndColumnReadsArePrefixScans) {
  // A 100 x 100 sheet, 10% filled.
  ASSERT_TRUE(db.exec(
      "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 9999) "
      "INSERT INTO t SELECT i / 100, 'c' || (i % 100), i FROM n WHERE i % 10 = (i / 100) % 10"));
  EXPECT_EQ(db.value("SELECT count(*) FROM t"), "1000");
  db.value("SELECT tuplekv_stats('t', 'reset')");
  EXPECT_EQ(db.value("SELECT count(*) FROM t WHERE row = 42"), "10");
  const std::string row_stats = db.value("SELECT tuplekv_stats('t', 'reset')");
  db.value("SELECT count(*) FROM t WHERE col = 'c42'");
  const std::string col_stats = db.value("SELECT tuplekv_stats('t', 'reset')");
  // A row: at most three prefixes (int, and a double for integral values)
  // and only its ten cells read. A column: the same where the layout
  // keeps columns, a full scan otherwise.
  if (layout() != "column") {
    EXPECT_EQ(row_stats, R"({"scans":1,"ranges":2,"rows":10,"writes":0,"range_clears":0})");
  } else {
    EXPECT_EQ(row_stats, R"({"scans":1,"ranges":1,"rows":1000,"writes":0,"range_clears":0})");
  }
  if (layout() != "row") {
    EXPECT_EQ(col_stats, R"({"scans":1,"ranges":1,"rows":10,"writes":0,"range_clears":0})");
  } else {
    EXPECT_EQ(col_stats, R"({"scans":1,"ranges":1,"rows":1000,"writes":0,"range_clears":0})");
  }
  // One cell: point lookups only.
  EXPECT_EQ(db.value("SELECT value FROM t WHERE row = 42 AND col = 'c22'"), "4222");
  EXPECT_EQ(db.value("SELECT tuplekv_stats('t', 'reset')"),
            R"({"scans":1,"ranges":2,"rows":1,"writes":0,"range_clears":0})");
}

// `DELETE ... WHERE row = ?` clears the row's range in one clear_range
// where the layout keeps rows together; whatever SQLite filters out or
// rolls back, the outcome equals that of the native table.
TEST_P(CellsTest, DeletingARowIsOneRangeClear) {
  const std::string fill =
      "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 999) "
      "INSERT INTO %s SELECT i / 10, 'c' || (i % 10), i FROM n";
  auto fill_into = [&](const std::string& table) {
    std::string sql = fill;
    sql.replace(sql.find("%s"), 2, table);
    return db.exec(sql);
  };
  ASSERT_TRUE(fill_into("t"));
  ASSERT_TRUE(fill_into("ref"));
  const bool rows_together = layout() != "column";
  auto same_as_native = [&] {
    EXPECT_EQ(db.rows("SELECT row, col, value FROM t ORDER BY row, col"),
              db.rows("SELECT row, col, value FROM ref ORDER BY row, col"));
    EXPECT_EQ(db.rows("SELECT row, value FROM t WHERE col = 'c3' ORDER BY row"),
              db.rows("SELECT row, value FROM ref WHERE col = 'c3' ORDER BY row"));
  };
  const std::string both_ways = "DELETE FROM t WHERE row = 42; DELETE FROM ref WHERE row = 42";
  db.value("SELECT tuplekv_stats('t', 'reset')");
  ASSERT_TRUE(db.exec(both_ways));
  EXPECT_EQ(db.value("SELECT json_extract(tuplekv_stats('t'), '$.range_clears')"),
            rows_together ? "1" : "0");
  EXPECT_EQ(db.value("SELECT json_extract(tuplekv_stats('t'), '$.writes')"), "10");
  same_as_native();
  // layout=both: the column-major copies of the row went with it (the
  // column read in same_as_native() checks the same for the memory store).
  if (layout() == "both" && store() == "sqlite") {
    EXPECT_EQ(db.value("SELECT count(*) FROM t_kv"), "1980");
  }
  // A WHERE term SQLite keeps to itself: only some of the row's cells go.
  db.value("SELECT tuplekv_stats('t', 'reset')");
  ASSERT_TRUE(db.exec("DELETE FROM t WHERE row = 43 AND length(col) = 2 AND col <> 'c5';"
                      "DELETE FROM ref WHERE row = 43 AND length(col) = 2 AND col <> 'c5'"));
  EXPECT_EQ(db.value("SELECT json_extract(tuplekv_stats('t'), '$.range_clears')"), "0");
  same_as_native();
  // Inside a transaction: later reads see the delete, ROLLBACK and
  // ROLLBACK TO bring the row back.
  ASSERT_TRUE(db.exec("BEGIN; DELETE FROM t WHERE row = 44"));
  EXPECT_EQ(db.value("SELECT count(*) FROM t WHERE row = 44"), "0");
  EXPECT_EQ(db.value("SELECT count(*) FROM t"), "971");
  ASSERT_TRUE(db.exec("ROLLBACK"));
  EXPECT_EQ(db.value("SELECT count(*) FROM t WHERE row = 44"), "10");
  ASSERT_TRUE(db.exec("BEGIN; SAVEPOINT a; DELETE FROM t WHERE row = 45; ROLLBACK TO a;"
                      "DELETE FROM t WHERE row = 46; COMMIT;"
                      "DELETE FROM ref WHERE row = 46"));
  same_as_native();
  // Rows of several encodings (2 and 2.0 are one row) and an IN list.
  ASSERT_TRUE(db.exec("DELETE FROM t WHERE row IN (47, 48.0, 'x'); "
                      "DELETE FROM ref WHERE row IN (47, 48.0, 'x')"));
  same_as_native();
}

// A cell's columns read after a function of the same statement deleted its
// row come from the cell as it was read: the store's writes may free the
// bytes the cursor read it from (the sanitizer build catches a read of
// those), and the rows around it merge.
TEST_P(CellsTest, DeletingTheCurrentRowBetweenTwoColumnReads) {
  ASSERT_TRUE(db.exec("WITH RECURSIVE c(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM c WHERE x < 799)"
                      " INSERT INTO t SELECT x, 'c', 'v' || x || printf('%.70c', 'x') FROM c"));
  add_sql_function(&db, "delete_row", "DELETE FROM t WHERE row = ?1");
  const Rows rows = db.rows("SELECT row, delete_row(row), value, col FROM t WHERE col = 'c'");
  ASSERT_EQ(rows.size(), 800u);
  for (const Row& r : rows) {
    EXPECT_EQ(r[2].substr(0, 1 + r[0].size() + 1), "v" + r[0] + "x") << "row " << r[0];
    EXPECT_EQ(r[3], "c");
  }
  EXPECT_EQ(db.value("SELECT count(*) FROM t"), "0");
}

TEST_P(CellsTest, TransactionsAndSavepoints) {
  ASSERT_TRUE(db.exec("INSERT INTO t VALUES (1, 'a', 1)"));
  ASSERT_TRUE(db.exec("BEGIN; INSERT INTO t VALUES (2, 'a', 2); SAVEPOINT s;"
                      "DELETE FROM t WHERE row = 1; UPDATE t SET value = 9;"
                      "ROLLBACK TO s; INSERT INTO t VALUES (3, 'a', 3); COMMIT"));
  EXPECT_EQ(db.rows("SELECT row, value FROM t ORDER BY row"),
            (Rows{{"1", "1"}, {"2", "2"}, {"3", "3"}}));
  ASSERT_TRUE(db.exec("BEGIN; DELETE FROM t; ROLLBACK"));
  EXPECT_EQ(db.value("SELECT count(*) FROM t"), "3");
  // A failing multi-row INSERT leaves nothing of itself behind.
  EXPECT_EQ(db.error("INSERT INTO t VALUES (4, 'a', 4), (1, 'a', 5)"),
            "UNIQUE constraint failed: t.row, t.col");
  EXPECT_EQ(db.value("SELECT count(*) FROM t"), "3");
}

TEST_P(CellsTest, RandomWorkloadMatchesNativeTable) {
  // One seed of 2,500 statements; more with TUPLEKV_PAIR_DIFF_SEEDS
  // (tests/ext/pair_diff.h).
  const unsigned base = static_cast<unsigned>(std::hash<std::string>()(layout() + store()));
  const SeedRuns runs = run_seeds(PairDiff{&db, "t", "ref", "row", "col", "value"}, base, 2500);
  EXPECT_EQ(runs.mismatches, 0u);
  std::printf("cells layout=%s store=%s: %zu statements, %zu mismatches\n", layout().c_str(),
              store().c_str(), runs.statements, runs.mismatches);
}

// Bytes written to the shadow table behind the module's back: every read
// that meets them fails with SQLITE_CORRUPT_VTAB and names the stored key,
// and reads that do not meet them go on working.
TEST(CellsCorruptionTest, DamagedShadowRowsAreReportedWithTheirKey) {
  Db db;
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE t USING tuplekv_cells(layout=both);"
                      "INSERT INTO t VALUES ('ada', 'born', 1815), ('alan', 'born', 1912)"));
  // (t, 'row_idx', 'ada', 'born', 0): a third element after the prefix.
  const std::string three = "02740002726f775f69647800026164610002626f726e0014";
  ASSERT_TRUE(db.exec("INSERT INTO t_kv VALUES (x'" + three + "', x'1507')"));
  EXPECT_EQ(db.error("SELECT * FROM t WHERE row = 'ada'"),
            "tuplekv_cells: corrupt store of t: cells: key x'" + three +
                "' has more than two elements after its prefix");
  EXPECT_EQ(db.error_code("SELECT count(*) FROM t"), SQLITE_CORRUPT_VTAB);
  EXPECT_EQ(db.rows("SELECT row FROM t WHERE col = 'born'"), (Rows{{"ada"}, {"alan"}}));
  ASSERT_TRUE(db.exec("DELETE FROM t_kv WHERE k = x'" + three + "'"));

  // A value holding two elements where one belongs.
  const std::string ada_born = "02740002726f775f69647800026164610002626f726e00";
  ASSERT_TRUE(db.exec("UPDATE t_kv SET v = x'15071507' WHERE k = x'" + ada_born + "'"));
  EXPECT_EQ(db.error("SELECT value FROM t WHERE row = 'ada'"),
            "tuplekv_cells: corrupt store of t: the value of key x'" + ada_born +
                "': tuple: bytes after the value");
  // The column entry holds its own copy of the value, undamaged.
  EXPECT_EQ(db.rows("SELECT row, value FROM t WHERE col = 'born'"),
            (Rows{{"ada", "1815"}, {"alan", "1912"}}));

  // A key cut short inside its last element; the offset counts from the
  // key's first byte.
  ASSERT_TRUE(db.exec("UPDATE t_kv SET v = x'160717' WHERE k = x'" + ada_born + "';"
                      "UPDATE t_kv SET k = x'02740002726f775f69647800026164610002626f' "
                      "WHERE k = x'" + ada_born + "'"));
  EXPECT_EQ(db.error("SELECT * FROM t WHERE row = 'ada'"),
            "tuplekv_cells: corrupt store of t: cells: key "
            "x'02740002726f775f69647800026164610002626f': tuple: unterminated string at byte 17 "
            "(type code 0x02)");
  ASSERT_TRUE(db.exec("UPDATE t_kv SET k = x'" + ada_born + "' "
                      "WHERE k = x'02740002726f775f69647800026164610002626f'"));
  EXPECT_EQ(db.rows("SELECT * FROM t WHERE row = 'ada'"), (Rows{{"ada", "born", "1815"}}));
}

TEST(CellsExampleTest, SqlFileGivesExpectedOutput) {
  Db db;
  const std::string dir = std::string(TUPLEKV_SOURCE_DIR) + "/sql/";
  const std::string expected = read_text_file(dir + "cells.expected");
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(run_example(db.handle(), read_text_file(dir + "cells.sql")), expected);
}

}  // namespace
}  // namespace tuplekv::testing
