// SQLite's full-scan choice over a native reference table, as a model:
// LogEst and size estimates against values SQLite computes, and the scans
// of a few declarations against what SQLite 3.40 reads (the SQL-level
// comparison with SQLite itself is in tests/ext/table_vtab_test.cc).
#include "core/model/native_scan.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/model/table.h"

namespace tuplekv::model {
namespace {

TEST(NativeScanTest, LogEstAddRoundsAsSqlite) {
  // sqlite3LogEstAdd: the larger plus a step from its table, by difference.
  EXPECT_EQ(log_est_add(0, 0), 10);    // 1 + 1 = 2
  EXPECT_EQ(log_est_add(33, 33), 43);  // 10 + 10 = 20
  EXPECT_EQ(log_est_add(41, 43), 52);
  EXPECT_EQ(log_est_add(52, 49), 61);
  EXPECT_EQ(log_est_add(53, 49), 61);  // two costs SQLite finds equal
  EXPECT_EQ(log_est_add(40, 75), 76);  // more than 31 apart: one more
  EXPECT_EQ(log_est_add(100, 40), 100);  // more than 49 apart: the larger
}

TEST(NativeScanTest, LogEstIsSqlites) {
  // sqlite3LogEst: 10 * log2(x), rounded through its table of fractions.
  EXPECT_EQ(log_est(0), 0);
  EXPECT_EQ(log_est(1), 0);
  EXPECT_EQ(log_est(2), 10);
  EXPECT_EQ(log_est(3), 16);
  EXPECT_EQ(log_est(4), 20);
  EXPECT_EQ(log_est(8), 30);
  EXPECT_EQ(log_est(12), 36);
  EXPECT_EQ(log_est(24), 46);
  EXPECT_EQ(log_est(28), 48);
  EXPECT_EQ(log_est(44), 55);
  EXPECT_EQ(log_est(48), 56);
  EXPECT_EQ(log_est(1000), 99);
  EXPECT_EQ(log_est(1024), 100);
  EXPECT_EQ(log_est(uint64_t{1} << 40), 400);
}

TEST(NativeScanTest, SizeEstimatesFollowTheDeclaredType) {
  EXPECT_EQ(size_estimate(""), 1);
  for (const char* number : {"INTEGER", "INT", "REAL", "ANY", "DOUBLE PRECISION", "NUMERIC", "BIGINT"}) {
    EXPECT_EQ(size_estimate(number), 1) << number;
  }
  for (const char* text : {"TEXT", "BLOB", "CLOB", "text", "Blob"}) EXPECT_EQ(size_estimate(text), 5) << text;
  EXPECT_EQ(size_estimate("VARCHAR(20)"), 6);   // 20/4 + 1
  EXPECT_EQ(size_estimate("CHAR(8)"), 3);
  EXPECT_EQ(size_estimate("CHARACTER"), 1);     // a CHAR without a size
  EXPECT_EQ(size_estimate("BLOB(100)"), 26);
  EXPECT_EQ(size_estimate("VARCHAR(5000)"), 255);  // capped
  EXPECT_EQ(size_estimate("CHARINT"), 1);       // INT wins
}

TableSchema schema(const std::vector<std::string>& args) {
  TableSchema s;
  EXPECT_TRUE(parse_table_schema("tuplekv_table", "t", args, &s).ok());
  return s;
}

std::vector<bool> cols(size_t n, std::initializer_list<int> used) {
  std::vector<bool> out(n);
  for (int c : used) out[static_cast<size_t>(c)] = true;
  return out;
}

// An index holds its columns and the key columns it appends, but for the
// index of a UNIQUE constraint SQLite counts only its own columns.
TEST(NativeScanTest, AUniqueConstraintsIndexHoldsOnlyItsOwnColumns) {
  const TableSchema s = schema({"a INTEGER", "b TEXT", "c TEXT", "PRIMARY KEY(a)", "UNIQUE(b)", "INDEX ic(c)"});
  ASSERT_EQ(s.indexes.size(), 2u);
  const int unique = s.indexes[0].automatic ? 0 : 1;
  const int plain = 1 - unique;
  EXPECT_TRUE(native_index_holds(s, unique, 1));
  EXPECT_FALSE(native_index_holds(s, unique, 0));
  EXPECT_FALSE(native_index_holds(s, unique, 2));
  EXPECT_TRUE(native_index_holds(s, plain, 2));
  EXPECT_TRUE(native_index_holds(s, plain, 0));
  EXPECT_FALSE(native_index_holds(s, plain, 1));
}

TEST(NativeScanTest, ANarrowerIndexHoldingTheColumnsWins) {
  // (a INTEGER, b TEXT, c TEXT): widths 1 + 5 + 5 (+1) = 12 -> LogEst 56;
  // the key scan 1 + 15*55/56 = 15, index i (b, a) 1 + 15*46/56 = 13.
  const TableSchema s = schema({"a INTEGER", "b TEXT", "c TEXT", "PRIMARY KEY(a)", "INDEX i(b)"});
  const std::vector<NativeScan> scans = native_full_scans(s);
  ASSERT_EQ(scans.size(), 2u);
  EXPECT_EQ(scans[0].index, 0);
  EXPECT_EQ(scans[0].cost, 13);
  EXPECT_EQ(scans[0].holds, cols(3, {0, 1}));
  EXPECT_EQ(scans[1].index, NativeScan::kPrimaryKey);
  EXPECT_EQ(scans[1].cost, 15);
  EXPECT_EQ(scans[choose_native_scan(scans, cols(3, {0, 1}))].index, 0);
  EXPECT_EQ(scans[choose_native_scan(scans, cols(3, {1}))].index, 0);
  EXPECT_EQ(scans[choose_native_scan(scans, cols(3, {0, 2}))].index, NativeScan::kPrimaryKey);
}

TEST(NativeScanTest, TiesGoToTheIndexSqliteMeetsFirst) {
  // pr_name holds every column, as wide as the key: the newer one wins.
  const TableSchema s =
      schema({"region TEXT", "id INTEGER", "name TEXT", "PRIMARY KEY(region, id)", "INDEX pr_name(name, region)"});
  const std::vector<NativeScan> scans = native_full_scans(s);
  EXPECT_EQ(scans[choose_native_scan(scans, cols(3, {0, 1, 2}))].index, 0);
  // A one-column INTEGER key gets its index at the end of the CREATE
  // TABLE, after the UNIQUE constraints: SQLite meets it first.
  const TableSchema k = schema({"c0 INTEGER", "c1 INTEGER", "PRIMARY KEY(c0)", "UNIQUE(c1, c0)"});
  const std::vector<NativeScan> ks = native_full_scans(k);
  ASSERT_EQ(ks.size(), 2u);
  EXPECT_EQ(ks[0].index, NativeScan::kPrimaryKey);
  EXPECT_EQ(ks[0].cost, ks[1].cost);
  EXPECT_EQ(ks[choose_native_scan(ks, cols(2, {0, 1}))].index, NativeScan::kPrimaryKey);
  const TableSchema t = schema({"c0 TEXT", "c1 TEXT", "PRIMARY KEY(c0)", "UNIQUE(c1, c0)"});
  const std::vector<NativeScan> ts = native_full_scans(t);
  EXPECT_EQ(ts[choose_native_scan(ts, cols(2, {0, 1}))].index, 0);
}

TEST(NativeScanTest, AUniqueConstraintsIndexHoldsOnlyItsColumns) {
  // UNIQUE(b) of a WITHOUT ROWID table: (b, a) in width, only b held.
  const TableSchema s = schema({"a INTEGER", "b TEXT", "c TEXT", "PRIMARY KEY(a)", "UNIQUE(b)"});
  const std::vector<NativeScan> scans = native_full_scans(s);
  ASSERT_EQ(scans.size(), 2u);
  EXPECT_EQ(scans[1].index, 0);  // the key, an INTEGER, came last
  EXPECT_EQ(scans[1].holds, cols(3, {1}));
  EXPECT_EQ(scans[choose_native_scan(scans, cols(3, {1}))].index, 0);
  EXPECT_EQ(scans[choose_native_scan(scans, cols(3, {0, 1}))].index, NativeScan::kPrimaryKey);
  // The same as an INDEX (CREATE UNIQUE INDEX after the table) holds a too.
  const TableSchema u = schema({"a INTEGER", "b TEXT", "c TEXT", "PRIMARY KEY(a)", "UNIQUE INDEX u(b)"});
  const std::vector<NativeScan> us = native_full_scans(u);
  EXPECT_EQ(us[choose_native_scan(us, cols(3, {0, 1}))].index, 0);
}

// SQLite 3.40 plans `c IS NOT NULL` as the range `c > NULL` too, over an
// index c leads. Each case is what EXPLAIN QUERY PLAN gives for the
// native tables (`SEARCH t USING COVERING INDEX i (c>?)`).
TEST(NativeScanTest, AnIndexLedByAColumnSaidNotNullIsReadAsARange) {
  // v_b (b, a) and v_ab (a, b) tie; SQLite meets v_ab first.
  const TableSchema v = schema({"a INTEGER", "b TEXT", "PRIMARY KEY(a)", "INDEX v_b(b)", "INDEX v_ab(a, b)"});
  const std::vector<NativeScan> vs = native_full_scans(v);
  EXPECT_EQ(vs[choose_native_scan(vs, cols(2, {0, 1}), cols(2, {}))].index, 1);
  EXPECT_EQ(vs[choose_native_scan(vs, cols(2, {0, 1}), cols(2, {1}))].index, 0);
  // SELECT a, b FROM t WHERE c IS NOT NULL: j (b, c, a) is narrower than
  // i (c, b, d, a), whose range is priced down to j's scan and wins on rows.
  const TableSchema t =
      schema({"a INTEGER", "b TEXT", "c INTEGER", "d TEXT", "PRIMARY KEY(a)", "INDEX j(b, c)", "INDEX i(c, b, d)"});
  const std::vector<NativeScan> ts = native_full_scans(t);
  EXPECT_EQ(ts[choose_native_scan(ts, cols(4, {0, 1, 2}), cols(4, {}))].index, 0);
  EXPECT_EQ(ts[choose_native_scan(ts, cols(4, {0, 1, 2}), cols(4, {2}))].index, 1);
  // Two ranges priced alike: the first SQLite meets.
  const TableSchema m = schema({"a INTEGER", "c TEXT", "d TEXT", "PRIMARY KEY(a)", "INDEX m_cd(c, d)", "INDEX m_dc(d, c)"});
  const std::vector<NativeScan> ms = native_full_scans(m);
  EXPECT_EQ(ms[choose_native_scan(ms, cols(3, {0, 1, 2}), cols(3, {1, 2}))].index, 1);
  // An index that does not hold the columns is no candidate, and a rowid
  // table's own scan is not priced down.
  const TableSchema r = schema({"x INTEGER", "y TEXT", "z TEXT", "INDEX r_y(y)"});
  const std::vector<NativeScan> rs = native_full_scans(r);
  EXPECT_EQ(rs[choose_native_scan(rs, cols(3, {1}), cols(3, {1}))].index, 0);
  EXPECT_EQ(rs[choose_native_scan(rs, cols(3, {0, 1}), cols(3, {1}))].index, NativeScan::kPrimaryKey);
}

TEST(NativeScanTest, ARowidTableScansItselfFirst) {
  // (x INTEGER, y VARCHAR(8)): 1 + 3 (+1) = 5 -> LogEst 43; index (x,
  // rowid) 2 -> LogEst 30: 1 + 15*30/43 = 11 < 16.
  const TableSchema s = schema({"x INTEGER", "y VARCHAR(8)", "INDEX t1i1(x)"});
  const std::vector<NativeScan> scans = native_full_scans(s);
  ASSERT_EQ(scans.size(), 2u);
  EXPECT_EQ(scans[0].index, NativeScan::kPrimaryKey);
  EXPECT_EQ(scans[0].cost, 16);
  EXPECT_EQ(scans[1].cost, 11);
  EXPECT_EQ(scans[choose_native_scan(scans, cols(2, {0}))].index, 0);
  EXPECT_EQ(scans[choose_native_scan(scans, cols(2, {0, 1}))].index, NativeScan::kPrimaryKey);
}

}  // namespace
}  // namespace tuplekv::model
