// The planner seen from SQL, for both stores: every operator and the
// combinations, with (1) the rows returned, compared with a native WITHOUT
// ROWID table holding the same pairs, (2) the pairs the scan read from the
// store (tuplekv_stats), so a query that must only touch its range is held
// to it, and (3) the idxStr EXPLAIN QUERY PLAN shows. Plus ORDER BY
// consumed or not, LIMIT/OFFSET pushdown, IN lists (duplicates, NULLs,
// subqueries, one value at a time), joins, parameters, and a prefix query
// over 200k keys that reads only its 1000.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdio>
#include <string>
#include <vector>

#include "ext/limit_pushdown.h"
#include "tests/testutil.h"

namespace tuplekv::testing {
namespace {

struct Stats {
  long long scans = -1, ranges = -1, rows = -1, writes = -1;
};

Stats read_stats(Db& db, const std::string& table, bool reset = true) {
  Stats s;
  const std::string json =
      db.value("SELECT tuplekv_stats('" + table + "'" + (reset ? ", 'reset'" : "") + ")");
  std::sscanf(json.c_str(), "{\"scans\":%lld,\"ranges\":%lld,\"rows\":%lld,\"writes\":%lld}",
              &s.scans, &s.ranges, &s.rows, &s.writes);
  return s;
}

// The EXPLAIN QUERY PLAN lines, joined by " | ".
std::string query_plan(Db& db, const std::string& sql) {
  std::string out;
  for (const Row& r : db.rows("EXPLAIN QUERY PLAN " + sql)) {
    if (!out.empty()) out += " | ";
    out += r.back();
  }
  return out;
}

std::string hex2(int x) {
  static const char kHex[] = "0123456789abcdef";
  return std::string{kHex[x >> 4], kHex[x & 15]};
}

class PlannerTest : public ::testing::TestWithParam<std::string> {
 protected:
  // Keys: x'', x'0X' and x'0X0Y' for X, Y in 0..15 (273 keys); value: the
  // key's length as one byte. The native table n holds the same pairs.
  void SetUp() override {
    ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE t USING tuplekv_kv(store=" + GetParam() + ");"
                        "CREATE TABLE n(key BLOB PRIMARY KEY, value BLOB) WITHOUT ROWID"));
    std::string values = "(x'', x'00')";
    for (int x = 0; x < 16; ++x) {
      values += ", (x'" + hex2(x) + "', x'01')";
      for (int y = 0; y < 16; ++y) values += ", (x'" + hex2(x) + hex2(y) + "', x'02')";
    }
    ASSERT_TRUE(db.exec("INSERT INTO t VALUES " + values + "; INSERT INTO n SELECT * FROM t"));
    read_stats(db, "t");
  }
  Db db;
};

INSTANTIATE_TEST_SUITE_P(Stores, PlannerTest, ::testing::Values("sqlite", "memory"),
                         [](const auto& info) { return info.param; });

constexpr long long kAll = 273;

struct Case {
  const char* where;         // for t (after SELECT hex(key), hex(value) FROM t)
  const char* native_where;  // the same rows from n; nullptr: `where` as is
  const char* plan;          // expected EXPLAIN QUERY PLAN, with T for the table
  long long rows;            // pairs read from the store
  long long ranges;          // ranges started (point lookups included)
};

const Case kCases[] = {
    {"", nullptr, "SCAN t VIRTUAL TABLE INDEX 0:full", kAll, 1},
    {"WHERE key = x'0305'", nullptr, "SCAN t VIRTUAL TABLE INDEX 0:point key=?1", 1, 1},
    {"WHERE key = x'0399'", nullptr, "SCAN t VIRTUAL TABLE INDEX 0:point key=?1", 0, 1},
    {"WHERE key = x''", nullptr, "SCAN t VIRTUAL TABLE INDEX 0:point key=?1", 1, 1},
    {"WHERE key IS x'0305'", nullptr, "SCAN t VIRTUAL TABLE INDEX 0:point key=?1", 1, 1},
    {"WHERE key IN (x'0305', x'01', x'0305', NULL, x'0f0f', x'77', 'x', 3)", nullptr,
     "SCAN t VIRTUAL TABLE INDEX 0:point key IN ?1", 3, 4},
    {"WHERE key IN (NULL)", nullptr, "SCAN t VIRTUAL TABLE INDEX 0:point key=?1", 0, 0},
    {"WHERE key > x'0f'", nullptr, "SCAN t VIRTUAL TABLE INDEX 0:range key>?1", 16, 1},
    {"WHERE key >= x'0f'", nullptr, "SCAN t VIRTUAL TABLE INDEX 0:range key>=?1", 17, 1},
    {"WHERE key < x'01'", nullptr, "SCAN t VIRTUAL TABLE INDEX 0:range key<?1", 18, 1},
    {"WHERE key <= x'01'", nullptr, "SCAN t VIRTUAL TABLE INDEX 0:range key<=?1", 19, 1},
    {"WHERE key BETWEEN x'02' AND x'03'", nullptr,
     "SCAN t VIRTUAL TABLE INDEX 0:range key>=?1 AND key<=?2", 18, 1},
    {"WHERE key > x'0205' AND key < x'0302'", nullptr,
     "SCAN t VIRTUAL TABLE INDEX 0:range key>?1 AND key<?2", 13, 1},
    {"WHERE key > x'05' AND key < x'05'", nullptr,
     "SCAN t VIRTUAL TABLE INDEX 0:range key>?1 AND key<?2", 0, 0},
    {"WHERE key > x'02' AND key > x'0e' AND key <= x'0f01'", nullptr,
     "SCAN t VIRTUAL TABLE INDEX 0:range key>?1 AND key>?2 AND key<=?3", 19, 1},
    {"WHERE key IN (x'01', x'02', x'03') AND key >= x'02'", nullptr,
     "SCAN t VIRTUAL TABLE INDEX 0:point key IN ?1 AND key>=?2", 2, 2},
    {"WHERE prefix = x'03'", "WHERE substr(key, 1, 1) = x'03'",
     "SCAN t VIRTUAL TABLE INDEX 0:range prefix=?1", 17, 1},
    {"WHERE prefix = x'0307'", "WHERE key = x'0307'", "SCAN t VIRTUAL TABLE INDEX 0:range prefix=?1", 1,
     1},
    {"WHERE prefix = x''", "", "SCAN t VIRTUAL TABLE INDEX 0:range prefix=?1", kAll, 1},
    {"WHERE prefix = NULL", "WHERE 0", "SCAN t VIRTUAL TABLE INDEX 0:range prefix=?1", 0, 0},
    {"WHERE prefix = x'03' AND key > x'0307'", "WHERE key > x'0307' AND key < x'04'",
     "SCAN t VIRTUAL TABLE INDEX 0:range prefix=?1 AND key>?2", 8, 1},
    {"WHERE prefix IN (x'03', x'0401')", "WHERE substr(key, 1, 1) = x'03' OR key = x'0401'",
     "SCAN t VIRTUAL TABLE INDEX 0:range prefix IN ?1", 18, 2},
    // Nested prefixes: one range, each key once (value by value, SQLite
    // would return the keys under x'0307' twice).
    {"WHERE prefix IN (x'0307', x'03', x'0401', x'030700')",
     "WHERE substr(key, 1, 1) = x'03' OR key = x'0401'",
     "SCAN t VIRTUAL TABLE INDEX 0:range prefix IN ?1", 18, 2},
    // SQLite splits this OR into two scans and drops the second copy of
    // each key itself.
    {"WHERE prefix = x'0307' OR prefix = x''", "",
     "MULTI-INDEX OR | INDEX 1 | SCAN t VIRTUAL TABLE INDEX 0:range prefix=?1 | INDEX 2 | SCAN t "
     "VIRTUAL TABLE INDEX 0:range prefix=?1",
     kAll + 1, 2},
    {"WHERE prefix IN (NULL, x'0401')", "WHERE key = x'0401'",
     "SCAN t VIRTUAL TABLE INDEX 0:range prefix IN ?1", 1, 1},
    // Non-BLOB comparisons follow SQLite's order: every BLOB is greater.
    {"WHERE key = 'x'", nullptr, "SCAN t VIRTUAL TABLE INDEX 0:point key=?1", 0, 0},
    {"WHERE key = 3", nullptr, "SCAN t VIRTUAL TABLE INDEX 0:point key=?1", 0, 0},
    {"WHERE key = NULL", nullptr, "SCAN t VIRTUAL TABLE INDEX 0:point key=?1", 0, 0},
    {"WHERE key > NULL", nullptr, "SCAN t VIRTUAL TABLE INDEX 0:range key>?1", 0, 0},
    {"WHERE key > 'x'", nullptr, "SCAN t VIRTUAL TABLE INDEX 0:full", kAll, 1},
    {"WHERE key < 5", nullptr, "SCAN t VIRTUAL TABLE INDEX 0:full", kAll, 1},
    // SQLite drops the loop itself: key is declared NOT NULL.
    {"WHERE key IS NULL", nullptr, "SCAN t VIRTUAL TABLE INDEX 0:full", 0, 0},
    {"WHERE key IS NOT NULL AND key < x'00'", nullptr, "SCAN t VIRTUAL TABLE INDEX 0:range key<?1",
     1, 1},
    // LIKE/GLOB: the literal prefix's ranges are read, SQLite re-checks.
    // (Debian's SQLite is built with SQLITE_LIKE_DOESNT_MATCH_BLOBS, so no
    // BLOB key ever matches; the native table agrees.)
    {"WHERE key GLOB CAST(x'0304' AS TEXT) || '*'", nullptr,
     "SCAN t VIRTUAL TABLE INDEX 0:range key GLOB ?1", 1, 1},
    {"WHERE key LIKE '%'", nullptr, "SCAN t VIRTUAL TABLE INDEX 0:full", kAll, 1},
    {"WHERE key LIKE 'ab%'", nullptr, "SCAN t VIRTUAL TABLE INDEX 0:range key LIKE ?1", 0, 4},
    {"WHERE value = x'01'", nullptr, "SCAN t VIRTUAL TABLE INDEX 0:full", kAll, 1},
    {"WHERE key >= x'0e' AND value = x'01'", nullptr,
     "SCAN t VIRTUAL TABLE INDEX 0:range key>=?1", 34, 1},
};

TEST_P(PlannerTest, EveryOperator) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.where);
    const std::string select = "SELECT hex(key), hex(value) FROM ";
    EXPECT_EQ(query_plan(db, select + "t " + c.where), c.plan);
    read_stats(db, "t");
    const Rows got = db.rows(select + "t " + c.where + " ORDER BY key");
    const Stats s = read_stats(db, "t");
    EXPECT_EQ(got, db.rows(select + "n " + (c.native_where ? c.native_where : c.where) +
                           " ORDER BY key"));
    EXPECT_EQ(s.rows, c.rows);
    EXPECT_EQ(s.ranges, c.ranges);
  }
}

TEST_P(PlannerTest, ParametersAreReadAtFilterTime) {
  sqlite3_stmt* s = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db.handle(), "SELECT count(*) FROM t WHERE key >= ?1 AND key < ?2",
                               -1, &s, nullptr),
            SQLITE_OK);
  struct Bind {
    const char* lo;
    int lo_len;
    const char* hi;
    int hi_len;
    const char* count;
  };
  for (const Bind& b : {Bind{"\x02", 1, "\x03", 1, "17"}, Bind{"\x0f\x0e", 2, "\x10", 1, "2"},
                        Bind{"", 0, "\x00", 1, "1"}}) {
    sqlite3_bind_blob(s, 1, b.lo, b.lo_len, SQLITE_STATIC);
    sqlite3_bind_blob(s, 2, b.hi, b.hi_len, SQLITE_STATIC);
    ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
    EXPECT_EQ(render_column(s, 0), b.count);
    sqlite3_reset(s);
  }
  sqlite3_bind_null(s, 1);
  ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
  EXPECT_EQ(render_column(s, 0), "0");
  sqlite3_finalize(s);
}

TEST_P(PlannerTest, OrderByConsumedOrSorted) {
  struct Order {
    const char* sql;
    const char* plan;
  };
  const Order cases[] = {
      {"SELECT key FROM t ORDER BY key", "SCAN t VIRTUAL TABLE INDEX 1:full"},
      {"SELECT key FROM t ORDER BY key DESC", "SCAN t VIRTUAL TABLE INDEX 1:full reverse"},
      {"SELECT key FROM t WHERE key < x'02' ORDER BY key DESC",
       "SCAN t VIRTUAL TABLE INDEX 1:range key<?1 reverse"},
      {"SELECT key FROM t WHERE key IN (x'03', x'01', x'02') ORDER BY key DESC",
       "SCAN t VIRTUAL TABLE INDEX 1:point key IN ?1 reverse"},
      {"SELECT * FROM t ORDER BY key DESC, value", "SCAN t VIRTUAL TABLE INDEX 0:full reverse"},
      {"SELECT * FROM t WHERE prefix = x'03' ORDER BY prefix, key DESC",
       "SCAN t VIRTUAL TABLE INDEX 0:range prefix=?1 reverse"},
      {"SELECT key FROM t WHERE prefix IN (x'03', x'01') ORDER BY key DESC",
       "SCAN t VIRTUAL TABLE INDEX 1:range prefix IN ?1 reverse"},
      // Under an IN list the prefix differs from row to row: SQLite sorts.
      {"SELECT * FROM t WHERE prefix IN (x'03', x'01') ORDER BY prefix, key",
       "SCAN t VIRTUAL TABLE INDEX 0:range prefix IN ?1 | USE TEMP B-TREE FOR ORDER BY"},
      {"SELECT * FROM t ORDER BY value",
       "SCAN t VIRTUAL TABLE INDEX 0:full | USE TEMP B-TREE FOR ORDER BY"},
      {"SELECT * FROM t ORDER BY value, key",
       "SCAN t VIRTUAL TABLE INDEX 0:full | USE TEMP B-TREE FOR ORDER BY"},
      {"SELECT key, count(*) FROM t GROUP BY key", "SCAN t VIRTUAL TABLE INDEX 1:full"},
  };
  for (const Order& o : cases) {
    SCOPED_TRACE(o.sql);
    EXPECT_EQ(query_plan(db, o.sql), o.plan);
    std::string native = o.sql;
    native.replace(native.find(" t"), 2, " n");
    if (native.find("prefix") != std::string::npos) continue;
    EXPECT_EQ(db.rows(o.sql), db.rows(native));
  }
  // The reverse IN list really comes out in descending order.
  EXPECT_EQ(db.rows("SELECT hex(key) FROM t WHERE key IN (x'03', x'01', x'02') ORDER BY key DESC"),
            (Rows{{"03"}, {"02"}, {"01"}}));
  EXPECT_EQ(db.rows("SELECT hex(key) FROM t WHERE prefix = x'03' ORDER BY key DESC LIMIT 3"),
            (Rows{{"030F"}, {"030E"}, {"030D"}}));
  EXPECT_EQ(db.rows("SELECT hex(key) FROM t WHERE prefix IN (x'03', x'01') ORDER BY key DESC "
                    "LIMIT 3 OFFSET 16"),
            (Rows{{"03"}, {"010F"}, {"010E"}}));
}

TEST_P(PlannerTest, LimitAndOffsetArePushedWhenNothingIsLeftToFilter) {
  // Forced on whatever SQLite this is (ext/limit_pushdown.h): none of these
  // queries holds a term that SQLite keeps from the table.
  ext::LimitPushdownOverride pushdown(true);
  struct Lim {
    const char* sql;
    const char* plan;
    long long rows;  // read from the store
  };
  const Lim cases[] = {
      {"SELECT hex(key) FROM t LIMIT 3", "SCAN t VIRTUAL TABLE INDEX 1:full limit ?1", 3},
      {"SELECT hex(key) FROM t ORDER BY key DESC LIMIT 2 OFFSET 5",
       "SCAN t VIRTUAL TABLE INDEX 1:full reverse limit ?1 offset ?2", 7},
      {"SELECT hex(key) FROM t WHERE key >= x'03' ORDER BY key LIMIT 2 OFFSET 3",
       "SCAN t VIRTUAL TABLE INDEX 1:range key>=?1 limit ?2 offset ?3", 5},
      {"SELECT hex(key) FROM t WHERE key >= x'0a' AND key < x'0b' LIMIT 4",
       "SCAN t VIRTUAL TABLE INDEX 1:range key>=?1 AND key<?2 limit ?3", 4},
      {"SELECT hex(key) FROM t LIMIT 0", "SCAN t VIRTUAL TABLE INDEX 1:full limit ?1", 0},
      {"SELECT hex(key) FROM t LIMIT -1 OFFSET 270",
       "SCAN t VIRTUAL TABLE INDEX 1:full limit ?1 offset ?2", kAll},
      {"SELECT hex(key) FROM t WHERE key IN (x'01', x'02', x'03') LIMIT 2",
       "SCAN t VIRTUAL TABLE INDEX 1:point key IN ?1 limit ?2", 2},
      // Something left for SQLite: no pushdown (SQLite stops early itself).
      {"SELECT hex(key) FROM t ORDER BY value LIMIT 2",
       "SCAN t VIRTUAL TABLE INDEX 0:full | USE TEMP B-TREE FOR ORDER BY", kAll},
      {"SELECT hex(key) FROM t WHERE key LIKE 'a%' LIMIT 2",
       "SCAN t VIRTUAL TABLE INDEX 1:range key LIKE ?1", 0},
      {"SELECT hex(key) FROM t WHERE length(value) = 1 LIMIT 2 OFFSET 1",
       "SCAN t VIRTUAL TABLE INDEX 0:full", 3},
      // A row-value comparison reaches the table as key >= x'03' (and
      // key <= x'05'), which SQLite re-checks in full: x'03' (value x'01')
      // is read and dropped, so a pushed LIMIT would cut the answer short.
      {"SELECT hex(key) FROM t WHERE (key, value) > (x'03', x'01') ORDER BY key LIMIT 2",
       "SCAN t VIRTUAL TABLE INDEX 0:range key>=?1", 3},
      {"SELECT hex(key) FROM t WHERE (key, value) < (x'05', x'02') ORDER BY key DESC LIMIT 1 OFFSET 1",
       "SCAN t VIRTUAL TABLE INDEX 0:range key<=?1 reverse", 2},
  };
  for (const Lim& l : cases) {
    SCOPED_TRACE(l.sql);
    EXPECT_EQ(query_plan(db, l.sql), l.plan);
    read_stats(db, "t");
    const Rows got = db.rows(l.sql);
    EXPECT_EQ(read_stats(db, "t").rows, l.rows);
    std::string native = l.sql;
    native.replace(native.find(" t"), 2, " n");
    EXPECT_EQ(got, db.rows(native));
  }
  EXPECT_EQ(query_plan(db, "SELECT hex(key) FROM t WHERE prefix = x'0a' LIMIT 4"),
            "SCAN t VIRTUAL TABLE INDEX 1:range prefix=?1 limit ?2");
  EXPECT_EQ(db.rows("SELECT hex(key) FROM t WHERE prefix = x'0a' LIMIT 4"),
            (Rows{{"0A"}, {"0A00"}, {"0A01"}, {"0A02"}}));
  EXPECT_EQ(read_stats(db, "t").rows, 4);
  // Limits from parameters.
  sqlite3_stmt* s = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db.handle(), "SELECT count(*) FROM (SELECT key FROM t LIMIT ?1 OFFSET ?2)",
                               -1, &s, nullptr),
            SQLITE_OK);
  sqlite3_bind_int(s, 1, 10);
  sqlite3_bind_int(s, 2, 268);
  ASSERT_EQ(sqlite3_step(s), SQLITE_ROW);
  EXPECT_EQ(render_column(s, 0), "5");
  sqlite3_finalize(s);
}

// SQLite 3.40 keeps a comparison whose two sides both read the row
// (`key > value`) from xBestIndex and still offers the LIMIT
// (ext/limit_pushdown.h): the scan must not stop after LIMIT rows.
TEST_P(PlannerTest, LimitStaysWithSqliteWhenATermComparesTheRowWithItself) {
  for (const char* where : {"WHERE key > value ORDER BY key LIMIT 2 OFFSET 1",
                            "WHERE value < key ORDER BY key DESC LIMIT 3",
                            "WHERE key >= value || x'00' LIMIT 2",
                            "WHERE key IN (value, x'0a0a') ORDER BY key LIMIT 2",
                            "WHERE key > x'05' AND key < value || x'ff' LIMIT 2 OFFSET 2"}) {
    SCOPED_TRACE(where);
    EXPECT_EQ(db.rows(std::string("SELECT hex(key) FROM t ") + where),
              db.rows(std::string("SELECT hex(key) FROM n ") + where));
  }
}

TEST_P(PlannerTest, InListsFromSubqueriesAndJoins) {
  EXPECT_EQ(query_plan(db, "SELECT * FROM t WHERE key IN (SELECT key FROM n WHERE key < x'01')"),
            "SCAN t VIRTUAL TABLE INDEX 0:point key IN ?1 | LIST SUBQUERY 1 | SEARCH n USING PRIMARY "
            "KEY (key<?)");
  read_stats(db, "t");
  EXPECT_EQ(db.value("SELECT count(*) FROM t WHERE key IN (SELECT key FROM n WHERE key < x'01')"),
            "18");
  EXPECT_EQ(read_stats(db, "t").rows, 18);
  // A join probes t once per outer row, by key.
  const std::string join =
      "SELECT count(*) FROM n JOIN t ON t.key = n.key WHERE n.key >= x'0f'";
  EXPECT_EQ(query_plan(db, join),
            "SEARCH n USING PRIMARY KEY (key>?) | SCAN t VIRTUAL TABLE INDEX 1:point key=?1");
  EXPECT_EQ(db.value(join), "17");
  const Stats s = read_stats(db, "t");
  EXPECT_EQ(s.scans, 17);
  EXPECT_EQ(s.rows, 17);
}

TEST_P(PlannerTest, UniqueLookupsAreOnePassWrites) {
  // SQLITE_INDEX_SCAN_UNIQUE lets SQLite update in place while the cursor
  // is on the row.
  read_stats(db, "t");
  ASSERT_TRUE(db.exec("UPDATE t SET value = x'ff' WHERE key = x'0a0a'"));
  EXPECT_EQ(read_stats(db, "t").rows, 1);
  EXPECT_EQ(db.value("SELECT hex(value) FROM t WHERE key = x'0a0a'"), "FF");
  ASSERT_TRUE(db.exec("DELETE FROM t WHERE prefix = x'0a'"));
  EXPECT_EQ(db.value("SELECT count(*) FROM t"), "256");
}

TEST_P(PlannerTest, PrefixOver200kKeysReadsOnlyItsRange) {
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE big USING tuplekv_kv(store=" + GetParam() + ");"
                      "WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < 199999)"
                      " INSERT INTO big SELECT tuple_pack(i / 1000, i % 1000), x'00' FROM c"));
  read_stats(db, "big");
  EXPECT_EQ(db.value("SELECT count(*) FROM big WHERE prefix = tuple_pack(42)"), "1000");
  Stats s = read_stats(db, "big");
  EXPECT_EQ(s.rows, 1000);  // 0.5% of the table
  EXPECT_EQ(db.value("SELECT count(*) FROM big WHERE key >= tuple_pack(42, 10) AND key < "
                     "tuple_pack(42, 20)"),
            "10");
  EXPECT_EQ(read_stats(db, "big").rows, 10);
  EXPECT_EQ(db.value("SELECT tuple_repr(key) FROM big WHERE key = tuple_pack(199, 999)"),
            "(199, 999)");
  EXPECT_EQ(read_stats(db, "big").rows, 1);
  EXPECT_EQ(db.value("SELECT tuple_repr(key) FROM big ORDER BY key DESC LIMIT 1"), "(199, 999)");
  EXPECT_EQ(read_stats(db, "big").rows, 1);
  EXPECT_EQ(db.value("SELECT count(*) FROM big"), "200000");
  s = read_stats(db, "big");
  EXPECT_EQ(s.rows, 200000);
  EXPECT_EQ(s.scans, 1);
}

}  // namespace
}  // namespace tuplekv::testing
