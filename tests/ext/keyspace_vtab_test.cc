// ext/keyspace_vtab.{h,cc}: what tuplekv_cells and tuplekv_multimap share,
// held to its contract once for both modules and both stores.
//
// Each module's header names the native STRICT WITHOUT ROWID table it
// behaves like; most tests run the same SQL on a second database where `t`
// is that table and require the same rows, error message and code,
// transaction state and content after every statement. That pins the ANY
// semantics (2 and 2.0, 0 and -0.0 are one key; = and IN find the stored
// encoding whichever one they ask for; ranges narrow the scan only where
// tuple order allows, and SQLite's re-check gives exactly its rows), the
// conflict clauses, and what a failed statement or a savepoint undoes.
//
// The rest comes from the contract directly: subspace= and store= are taken
// alike by both modules and a bad option is refused by name before anything
// is created; the hidden `raw` column is the stored key pack((S, a, b)),
// through which DELETE and UPDATE find their row; a rename moves the keys
// of a table without subspace= (and waits for scans reading them); and a
// point lookup reads only its own keys, as tuplekv_stats() counts them.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "tests/ext/pair_diff.h"
#include "tests/testutil.h"

namespace tuplekv::testing {
namespace {

struct Module {
  const char* label;    // test name part
  const char* name;
  const char* columns;  // the column arguments, before any option ("" for none)
  const char* a;        // the two key columns
  const char* b;
  const char* native;   // the table the module's header says it behaves like, as t
  const char* two_rows;  // INSERT INTO t VALUES of two rows
  Rows two_rows_read;    // SELECT * of them
};

const Module kCells = {
    "Cells", "tuplekv_cells", "", "row", "col",
    "CREATE TABLE t(row ANY NOT NULL, col ANY NOT NULL, value ANY, PRIMARY KEY(row, col)) "
    "STRICT, WITHOUT ROWID",
    "(1, 'a', 10), (2, 'b', 20)", {{"1", "a", "10"}, {"2", "b", "20"}}};
const Module kMultimap = {
    "Multimap", "tuplekv_multimap", "student, class", "student", "class",
    "CREATE TABLE t(student ANY NOT NULL, class ANY NOT NULL, PRIMARY KEY(student, class)) "
    "STRICT, WITHOUT ROWID",
    "(1, 'a'), (2, 'b')", {{"1", "a"}, {"2", "b"}}};

// Failures name the module, not its fields.
void PrintTo(const Module& m, std::ostream* os) { *os << m.label; }

std::string create_sql(const Module& m, const std::string& table, const std::string& options) {
  std::string args = m.columns;
  if (!options.empty()) args += (args.empty() ? "" : ", ") + options;
  return "CREATE VIRTUAL TABLE " + table + " USING " + m.name +
         (args.empty() ? "" : "(" + args + ")");
}

// `sql` with {a} and {b} spelled as the module's key columns.
std::string with_columns(const Module& m, const std::string& sql) {
  return replace_all(replace_all(sql, "{a}", m.a), "{b}", m.b);
}

// Every row of t, each value rendered with its type (2 and 2.0 differ).
Rows content(Db* db) { return run_sql(db->handle(), "SELECT * FROM t ORDER BY 1, 2").rows; }

// `q` has the same outcome on both: rows, or error message and extended code.
void expect_same_outcome(Db* vtab, Db* native, const std::string& q) {
  const Outcome v = run_sql(vtab->handle(), q);
  const Outcome n = run_sql(native->handle(), q);
  EXPECT_EQ(v.rc, n.rc) << q;
  EXPECT_EQ(v.message, n.message) << q;
  EXPECT_EQ(v.rows, n.rows) << q;
}

class KeyspaceOptionsTest : public ::testing::TestWithParam<Module> {};

INSTANTIATE_TEST_SUITE_P(Modules, KeyspaceOptionsTest, ::testing::Values(kCells, kMultimap),
                         [](const auto& info) { return std::string(info.param.label); });

TEST_P(KeyspaceOptionsTest, ABadOptionIsRefusedByNameAndCreatesNothing) {
  const std::string m = GetParam().name;
  struct Case {
    std::string options;
    std::string message;
  };
  const Case cases[] = {
      {"store=disk", m + ": store must be sqlite or memory, not 'disk'"},
      {"store=''", m + ": store must be sqlite or memory, not ''"},
      {"store=memory, Store=sqlite", m + ": option 'Store' given twice"},
      {"subspace=''", m + ": subspace must not be empty"},
      {"subspace='\xff'", m + ": subspace '\xff' is not valid UTF-8"},
      {"Colour=red", m + ": unknown option 'Colour'"},
  };
  Db db;
  for (const Case& c : cases) {
    EXPECT_EQ(db.error(create_sql(GetParam(), "bad", c.options)), c.message) << c.options;
    EXPECT_EQ(db.value("SELECT count(*) FROM sqlite_schema"), "0") << c.options;
  }
}

// Option names and store values in any case, values quoted or not; the
// subspace is the string of the prefix, the table name when not given.
TEST_P(KeyspaceOptionsTest, SubspaceAndStoreAreTakenAsWritten) {
  const Module& m = GetParam();
  Db db;
  ASSERT_TRUE(db.exec(create_sql(m, "a", "SUBSPACE='s p', Store='SQLite'") + ";" +
                      create_sql(m, "b", "store=MEMORY") + ";" + create_sql(m, "c", "") + ";"));
  for (const char* table : {"a", "b", "c"}) {
    ASSERT_TRUE(db.exec(with_columns(m, std::string("INSERT INTO ") + table +
                                            "({a}, {b}) VALUES (1, 'x')")));
  }
  EXPECT_EQ(db.value("SELECT tuple_repr(raw) FROM a"), "('s p', 1, 'x')");
  EXPECT_EQ(db.value("SELECT tuple_repr(raw) FROM b"), "('b', 1, 'x')");
  EXPECT_EQ(db.value("SELECT tuple_repr(raw) FROM c"), "('c', 1, 'x')");
  // Only the SQLite stores have a shadow table, and it holds that key.
  EXPECT_EQ(db.rows("SELECT name FROM sqlite_schema WHERE type = 'table' AND name LIKE '%kv' "
                    "ORDER BY name"),
            (Rows{{"a_kv"}, {"c_kv"}}));
  EXPECT_EQ(db.value("SELECT count(*) FROM a_kv WHERE k = tuple_pack('s p', 1, 'x')"), "1");
}

class KeyspaceTest : public ::testing::TestWithParam<std::tuple<Module, std::string>> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(db.exec(create("t")));
    ASSERT_TRUE(native.exec(module().native));
  }
  const Module& module() const { return std::get<0>(GetParam()); }
  bool memory() const { return std::get<1>(GetParam()) == "memory"; }
  std::string create(const std::string& table, const std::string& options = "") const {
    return create_sql(module(), table,
                      "store=" + std::get<1>(GetParam()) + (options.empty() ? "" : ", " + options));
  }
  std::string sql(const std::string& s) const { return with_columns(module(), s); }

  // Runs `s` on both databases: the same outcome, then the same
  // transaction state and content.
  void same(const std::string& s) {
    const std::string q = sql(s);
    expect_same_outcome(&db, &native, q);
    EXPECT_EQ(sqlite3_get_autocommit(db.handle()), sqlite3_get_autocommit(native.handle())) << q;
    EXPECT_EQ(content(&db), content(&native)) << "after " << q;
  }

  Db db;      // t is the virtual table
  Db native;  // t is the native table
};

INSTANTIATE_TEST_SUITE_P(
    ModulesAndStores, KeyspaceTest,
    ::testing::Combine(::testing::Values(kCells, kMultimap), ::testing::Values("sqlite", "memory")),
    [](const auto& info) {
      return std::string(std::get<0>(info.param).label) + "_" + std::get<1>(info.param);
    });

TEST_P(KeyspaceTest, RawIsTheStoredKeyAndWritesFindTheirRowByIt) {
  ASSERT_TRUE(db.exec(sql("INSERT INTO t({a}, {b}) VALUES (1, 'x'), (2.5, x'00'), ('k', 3)")));
  // Hidden: the visible columns are the native table's.
  EXPECT_EQ(db.rows("SELECT name FROM pragma_table_info('t')"),
            native.rows("SELECT name FROM pragma_table_info('t')"));
  EXPECT_EQ(db.rows("SELECT name FROM pragma_table_xinfo('t') WHERE hidden"), (Rows{{"raw"}}));
  EXPECT_EQ(db.value(sql("SELECT count(*) FROM t WHERE raw = tuple_pack('t', {a}, {b})")), "3");
  if (!memory()) {
    EXPECT_EQ(db.value("SELECT count(*) FROM t JOIN t_kv ON k = raw"), "3");
  }

  ASSERT_TRUE(db.exec("DELETE FROM t WHERE raw = tuple_pack('t', 2.5, x'00')"));
  ASSERT_TRUE(db.exec(sql("UPDATE t SET {b} = 'y' WHERE raw = tuple_pack('t', 1, 'x')")));
  const Rows expected = {{"1", "'y'", "('t', 1, 'y')"}, {"'k'", "3", "('t', 'k', 3)"}};
  const std::string read =
      sql("SELECT quote({a}), quote({b}), tuple_repr(raw) FROM t ORDER BY {a}");
  EXPECT_EQ(db.rows(read), expected);

  EXPECT_EQ(db.error(sql("INSERT INTO t({a}, {b}, raw) VALUES (9, 9, tuple_pack('t', 9, 9))")),
            std::string(module().name) + ": raw is the stored key of t, it cannot be written");
  EXPECT_EQ(db.rows(read), expected);
}

// A pair SQLite calls equal to a stored one is a duplicate, whichever
// encoding either has; numbers SQLite tells apart (2^53 + 1 and the double
// 2^53) stay two keys, as do 2, '2' and x'02'.
TEST_P(KeyspaceTest, NumbersSqliteCallsEqualAreOneKey) {
  same("INSERT INTO t({a}, {b}) VALUES (2, 'x'), ('y', 3.0), (0, 0), (9007199254740993, 1)");
  EXPECT_EQ(db.error(sql("INSERT INTO t({a}, {b}) VALUES (2.0, 'x')")),
            sql("UNIQUE constraint failed: t.{a}, t.{b}"));
  EXPECT_EQ(db.error_code(sql("INSERT INTO t({a}, {b}) VALUES ('y', 3)")),
            SQLITE_CONSTRAINT_PRIMARYKEY);
  for (const char* s : {
           "INSERT INTO t({a}, {b}) VALUES (2.0, 'x')",
           "INSERT INTO t({a}, {b}) VALUES ('y', 3)",
           "INSERT INTO t({a}, {b}) VALUES (-0.0, 0.0)",
           "INSERT INTO t({a}, {b}) VALUES (9007199254740992.0, 1), ('2', 'x'), (x'02', 'x')",
           "INSERT OR IGNORE INTO t({a}, {b}) VALUES (2.0, 'x'), (5, 'x')",
           "INSERT OR REPLACE INTO t({a}, {b}) VALUES ('y', 3), (0.0, -0.0)",
           "UPDATE t SET {a} = 2.0 WHERE {a} = 5",
           "UPDATE t SET {a} = 2.0 WHERE {a} = 2",  // the same key retyped: no conflict with itself
           "UPDATE OR REPLACE t SET {a} = 2 WHERE {a} = 5",
       }) {
    same(s);
  }
  EXPECT_EQ(db.rows(sql("SELECT quote({a}) FROM t WHERE {b} = 'x' ORDER BY {a}")),
            (Rows{{"2"}, {"'2'"}, {"X'02'"}}));
}

TEST_P(KeyspaceTest, EqualityAndInFindTheStoredEncoding) {
  same("INSERT INTO t({a}, {b}) VALUES (2.0, 1), (3, 'x'), (-0.0, 2.5), (9007199254740992.0, 1), "
       "(9007199254740993, 1), ('2', 1), (x'02', 1), (2.5, 1.0), ('a', 2), ('A', 3)");
  EXPECT_EQ(db.rows(sql("SELECT quote({a}) FROM t WHERE {a} = 2")), (Rows{{"2.0"}}));
  for (const char* where : {
           "{a} = 2", "{a} = 2.0", "{a} = '2'", "{a} = x'02'", "{a} = 1 + 1", "{a} = 3.0",
           "{a} = 0", "{a} = -0.0", "{a} IS 0.0", "{a} = 9007199254740992",
           "{a} = 9007199254740993", "{a} = 9007199254740993.0",
           "{a} IN (2, 3.0, '3', x'03')", "{a} IN (0, 2.5, 'a')",
           "{a} IN (SELECT 2 UNION ALL SELECT 2.0)", "{a} = 2 AND {b} = 1.0",
           "{a} = 2.0 AND {b} IN (1, 'x')", "{a} IN (2, 3) AND {b} IN (1.0, 'x')", "{b} = 1",
           "{b} = 2.5", "{b} IN (1, 'x')", "{a} = NULL", "{a} IN (NULL, 3)",
           "{a} = CAST(x'ff' AS TEXT)",
           // Another collation compares text the keys' bytes do not follow.
           "{a} = 'A' COLLATE NOCASE", "{a} IN ('A' COLLATE NOCASE, 'x')",
           "{b} = 'X' COLLATE NOCASE", "{a} = 'a ' COLLATE RTRIM",
           "{a} = 'A' COLLATE NOCASE AND {b} = 2",
       }) {
    same(std::string("SELECT {a}, {b} FROM t WHERE ") + where + " ORDER BY 1, 2");
  }
  // Values from another table, as the inner loop of a join.
  same("SELECT t.{a}, t.{b} FROM (SELECT 2 AS v UNION ALL SELECT 3.0 UNION ALL SELECT 0) o "
       "JOIN t ON t.{a} = o.v ORDER BY 1, 2");
}

// Tuple order is not SQLite's (types first; every int before every double),
// so a range narrows the scan only to a superset and SQLite's re-check
// gives exactly its rows.
TEST_P(KeyspaceTest, RangeConstraintsGiveTheNativeTablesRows) {
  same("WITH av(v) AS (VALUES (-3), (-0.5), (0), (1), (1.5), (2.0), (3), (9007199254740993), "
       "(9007199254740992.0), ('a'), ('B'), ('b c'), (''), (x''), (x'00'), (x'0100'), (x'ff')), "
       "bv(v) AS (VALUES (1), (2.5), ('x'), (x'01'), ('\xc3\xa9')) "
       "INSERT INTO t({a}, {b}) SELECT av.v, bv.v FROM av, bv");
  ASSERT_EQ(db.value("SELECT count(*) FROM t"), "85");
  for (const char* where : {
           "{a} > 1", "{a} >= 1.5", "{a} < 2", "{a} <= -0.5", "{a} BETWEEN 0 AND 3",
           "{a} > 'a'", "{a} >= ''", "{a} < 'b'", "{a} > '1'", "{a} >= 'B' COLLATE NOCASE",
           "{a} > x''", "{a} >= x'00'", "{a} > x'00' COLLATE NOCASE", "{a} < x'01'",
           "{a} <= x'ff'", "{a} > 9007199254740992", "{a} >= 9007199254740992.0",
           "{a} < 9007199254740993", "{a} > NULL", "{a} < 'a' AND {a} > 0",
           "{a} > 1 AND {b} < 'y'", "{a} = 1.5 AND {b} >= 2", "{b} > 2", "{b} < x'01'",
           "{b} >= 'x' AND {a} IN (0, 'a', x'00')", "{a} > 1 OR {b} = 'x'", "{a} != 1",
           "{a} IS NOT 3", "{a} LIKE 'b%'", "{a} GLOB '*'", "{a} IS NULL", "{a} IS NOT NULL",
           "({a}, {b}) > (1, 'x')", "({a}, {b}) <= (3, 2.5)",
           // x'' packs to 01 00, a byte prefix of x'00' (01 00 FF 00): the
           // rows under one must not take in the other's.
           "{a} IN (x'', x'00') AND {b} <= 'x'", "{a} = x'' AND {b} > 1", "{a} = x'' AND {b} < 'y'",
       }) {
    same(std::string("SELECT {a}, {b} FROM t WHERE ") + where + " ORDER BY 1, 2");
  }
  // ORDER BY is SQLite's; LIMIT and OFFSET count the same rows.
  same("SELECT {a}, {b} FROM t WHERE {a} > 0 ORDER BY {a} DESC, {b} LIMIT 5 OFFSET 2");
  same("SELECT {a}, {b} FROM t ORDER BY {b} DESC, {a} LIMIT 7 OFFSET 40");
  same("SELECT count(*) FROM (SELECT 1 FROM t LIMIT 10 OFFSET 80)");
  same("SELECT count(*) FROM (SELECT 1 FROM t LIMIT 10 OFFSET 84)");
}

TEST_P(KeyspaceTest, ConflictClausesMatchTheNativeTable) {
  for (const std::string clause : {"", "OR ABORT ", "OR FAIL ", "OR IGNORE ", "OR REPLACE ",
                                   "OR ROLLBACK "}) {
    for (const bool in_transaction : {false, true}) {
      SCOPED_TRACE(clause + (in_transaction ? "in a transaction" : "alone"));
      same("DELETE FROM t; INSERT INTO t({a}, {b}) VALUES (1, 'x'), (2, 'x'), (3, 'x'), (2, 'y')");
      if (in_transaction) same("BEGIN; INSERT INTO t({a}, {b}) VALUES (9, 'x')");
      // Each fails (or skips, or replaces) at its second row.
      same("INSERT " + clause + "INTO t({a}, {b}) VALUES (4, 'x'), (2.0, 'x'), (5, 'x')");
      same("UPDATE " + clause + "t SET {b} = 'y' WHERE {b} = 'x'");
      same("INSERT " + clause + "INTO t({a}, {b}) VALUES (6, 'z'), (NULL, 'z'), (7, 'z')");
      same("INSERT " + clause + "INTO t({a}, {b}) VALUES (8, 'z'), (8, NULL), (9, 'z')");
      if (in_transaction) same("COMMIT");
    }
  }
}

// A failing statement undoes only itself, in a transaction too, and
// ROLLBACK TO undoes everything after its savepoint, deletes of a whole
// prefix (one range clear) included.
TEST_P(KeyspaceTest, FailedStatementsAndSavepointsUndoWhatTheNativeTableUndoes) {
  same("INSERT INTO t({a}, {b}) VALUES (7, 'p'), (7, 'q'), (7, 'r'), (8, 'p')");
  same("BEGIN");
  same("INSERT INTO t({a}, {b}) VALUES (1, 'x'), (2, 'x'), (2, 'z')");
  same("INSERT INTO t({a}, {b}) VALUES (3, 'x'), (4, 'x'), (1.0, 'x')");
  same("UPDATE t SET {b} = 'z' WHERE {b} = 'x'");  // moves (1, 'x'), then fails on (2, 'x')
  same("INSERT INTO t({a}, {b}) SELECT {a} + 10, {b} FROM t WHERE {a} < 3 UNION ALL "
       "SELECT 7.0, 'q'");
  same("SAVEPOINT s1");
  same("DELETE FROM t WHERE {a} = 7");
  same("INSERT INTO t({a}, {b}) VALUES (5, 'x')");
  same("SAVEPOINT s2");
  same("UPDATE t SET {a} = {a} + 10 WHERE {b} = 'x'");
  same("ROLLBACK TO s2");
  same("DELETE FROM t WHERE {a} = 8");
  same("ROLLBACK TO s1");
  same("SELECT {a}, {b} FROM t WHERE {a} = 7 ORDER BY {b}");
  same("DELETE FROM t WHERE {a} = 7");
  same("RELEASE s1");
  same("COMMIT");
  same("BEGIN; DELETE FROM t WHERE {a} = 1; INSERT INTO t({a}, {b}) VALUES (100, 100)");
  same("ROLLBACK");
  EXPECT_EQ(db.value("SELECT count(*) FROM t"), "4");
  // The first write of the transaction inside a savepoint, another one
  // after it: ROLLBACK TO the first undoes the write.
  same("BEGIN; SAVEPOINT s1");
  same("INSERT INTO t({a}, {b}) VALUES (200, 'x'), (201, 'y')");
  same("SAVEPOINT s2");
  same("ROLLBACK TO s1");
  same("COMMIT");
  EXPECT_EQ(db.value("SELECT count(*) FROM t"), "4");
}

// A DELETE's deletes are held back and applied together: as range clears
// when they are every key its scan met, one by one at its last delete when
// SQLite kept some, and as the cursor closes when SQLite read `raw` of a row
// it kept. A trigger on the shadow table that refuses one key makes each
// way fail part-way; the statement must fail and leave nothing half done,
// in autocommit mode and inside a transaction. (Only the SQLite store has a
// shadow table to put a trigger on.)
class HeldDeletesTest : public ::testing::TestWithParam<Module> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(db.exec(create_sql(module(), "t", "")));
    ASSERT_TRUE(db.exec(sql("INSERT INTO t({a}, {b}) VALUES "
                            "(1, 'p'), (1, 'q'), (1, 'r'), (1, 's'), (2, 'p')")));
    refused = db.value("SELECT quote(tuple_pack('t', 1, 'r'))");
    ASSERT_TRUE(db.exec("CREATE TRIGGER refuse BEFORE DELETE ON t_kv WHEN old.k = " + refused +
                        " BEGIN SELECT RAISE(ABORT, 'kept by trigger'); END"));
  }
  const Module& module() const { return GetParam(); }
  std::string sql(const std::string& s) const { return with_columns(module(), s); }
  Rows pairs() { return db.rows(sql("SELECT {a}, {b} FROM t ORDER BY {a}, {b}")); }

  Db db;
  std::string refused;
};

INSTANTIATE_TEST_SUITE_P(Modules, HeldDeletesTest, ::testing::Values(kCells, kMultimap),
                         [](const auto& info) { return std::string(info.param.label); });

const Rows kAllPairs = {{"1", "p"}, {"1", "q"}, {"1", "r"}, {"1", "s"}, {"2", "p"}};
const char* const kRangeClear = "DELETE FROM t WHERE {a} = 1";
const char* const kOneByOne = "DELETE FROM t WHERE {a} = 1 AND {b} <> 'p'";
const char* const kAtClose = "DELETE FROM t WHERE {a} = 1 AND raw <> tuple_pack('t', 1, 'p')";

TEST_P(HeldDeletesTest, AFailureInAutocommitModeFailsTheStatementAndKeepsEveryRow) {
  for (const char* del : {kRangeClear, kOneByOne, kAtClose}) {
    const std::string message = db.error(sql(del));
    EXPECT_NE(message.find("kept by trigger"), std::string::npos) << del << ": " << message;
    EXPECT_EQ(pairs(), kAllPairs) << del;
  }
  EXPECT_EQ(db.error(sql(kAtClose)),
            "a DELETE from t stopped part-way: writing \"main\".\"t_kv\": kept by trigger");
  // The table is whole: reads and writes go on.
  ASSERT_TRUE(db.exec(sql("INSERT INTO t({a}, {b}) VALUES (3, 'p')")));
  EXPECT_EQ(db.value("SELECT count(*) FROM t"), "6");
}

TEST_P(HeldDeletesTest, AFailureInATransactionUndoesTheStatementOrTheTransaction) {
  ASSERT_TRUE(db.exec(sql("BEGIN; INSERT INTO t({a}, {b}) VALUES (3, 'p')")));
  Rows with_insert = kAllPairs;
  with_insert.push_back({"3", "p"});
  // Failing where SQLite hears it (xUpdate): the statement is undone, the
  // transaction goes on.
  for (const char* del : {kRangeClear, kOneByOne}) {
    const std::string message = db.error(sql(del));
    EXPECT_NE(message.find("kept by trigger"), std::string::npos) << del << ": " << message;
    EXPECT_EQ(sqlite3_get_autocommit(db.handle()), 0) << del;
    EXPECT_EQ(pairs(), with_insert) << del;
  }
  // Failing as the cursor closes, after the statement had succeeded: its
  // savepoint's release fails, and SQLite rolls the transaction back.
  EXPECT_EQ(db.error_code(sql(kAtClose)), SQLITE_CONSTRAINT_TRIGGER);
  EXPECT_EQ(sqlite3_get_autocommit(db.handle()), 1);
  EXPECT_EQ(pairs(), kAllPairs);
}

TEST_P(HeldDeletesTest, WithoutTheTriggerEachWayDeletesWhatTheNativeTableDeletes) {
  ASSERT_TRUE(db.exec("DROP TRIGGER refuse"));
  const Rows left[] = {{{"1", "p"}, {"2", "p"}}, {{"2", "p"}}};
  ASSERT_TRUE(db.exec("BEGIN"));
  ASSERT_TRUE(db.exec(sql(kOneByOne)));
  EXPECT_EQ(pairs(), left[0]);
  ASSERT_TRUE(db.exec("ROLLBACK"));
  ASSERT_TRUE(db.exec(sql(kAtClose)));
  EXPECT_EQ(pairs(), left[0]);
  ASSERT_TRUE(db.exec(sql("INSERT INTO t({a}, {b}) VALUES (1, 'q'), (1, 'r')")));
  db.value("SELECT tuplekv_stats('t', 'reset')");
  ASSERT_TRUE(db.exec(sql(kRangeClear)));
  EXPECT_EQ(pairs(), left[1]);
  EXPECT_EQ(db.value("SELECT json_extract(tuplekv_stats('t'), '$.range_clears')"), "1");
}

// Every number is looked up in each encoding SQLite calls equal (an
// integral one as int and as double), each lookup one key; the pairs read
// are those found.
TEST_P(KeyspaceTest, APointLookupReadsOnlyItsKeys) {
  ASSERT_TRUE(db.exec(sql(
      "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 999) "
      "INSERT INTO t({a}, {b}) SELECT i / 25, 'v' || (i % 25) FROM n;"
      "INSERT INTO t({a}, {b}) VALUES (100.0, 'w')")));
  struct Case {
    const char* query;
    const char* result;
    int ranges;
    int rows;
  };
  const Case cases[] = {
      {"SELECT count(*) FROM t WHERE {a} = 7 AND {b} = 'v3'", "1", 2, 1},
      {"SELECT quote({a}) FROM t WHERE {a} = 100 AND {b} = 'w'", "100.0", 2, 1},
      {"SELECT count(*) FROM t WHERE {a} = 7 AND {b} = 'nope'", "0", 2, 0},
      {"SELECT count(*) FROM t WHERE {a} = 7.5 AND {b} = 'v3'", "0", 1, 0},
      {"SELECT count(*) FROM t WHERE {a} IN (3, 4) AND {b} = 'v1'", "2", 4, 2},
      // For contrast, all pairs of one a: a prefix per encoding.
      {"SELECT count(*) FROM t WHERE {a} = 7", "25", 2, 25},
  };
  for (const Case& c : cases) {
    db.value("SELECT tuplekv_stats('t', 'reset')");
    EXPECT_EQ(db.value(sql(c.query)), c.result) << c.query;
    EXPECT_EQ(db.value("SELECT tuplekv_stats('t')"),
              R"({"scans":1,"ranges":)" + std::to_string(c.ranges) + R"(,"rows":)" +
                  std::to_string(c.rows) + R"(,"writes":0,"range_clears":0})")
        << c.query;
  }
}

// A rename moves the keys into the new name's subspace and leaves changes()
// to the statement before, as a native rename does. A memory store's keys
// stay under the prefix they were written with (ext/memory_registry.h), and
// an explicit subspace= does not follow the name.
TEST_P(KeyspaceTest, RenameMovesTheKeysAndKeepsChanges) {
  ASSERT_TRUE(db.exec(std::string("INSERT INTO t VALUES ") + module().two_rows + ";" +
                      create("s", "subspace=fixed") + "; INSERT INTO s SELECT * FROM t;"
                      "CREATE TABLE nat(x); INSERT INTO nat VALUES (1), (2), (3);"
                      "ALTER TABLE t RENAME TO book"));
  EXPECT_EQ(db.value("SELECT changes()"), "3");
  EXPECT_EQ(db.rows("SELECT * FROM book ORDER BY 1"), module().two_rows_read);
  const std::string prefix = memory() ? "(''t'', " : "(''book'', ";
  EXPECT_EQ(db.value("SELECT count(*) FROM book WHERE tuple_repr(raw) LIKE '" + prefix + "%'"),
            "2");
  if (!memory()) {
    EXPECT_EQ(db.value("SELECT count(*) FROM book_kv WHERE tuple_repr(k) LIKE '(''book'',%'"), "2");
  }
  ASSERT_TRUE(db.exec("ALTER TABLE s RENAME TO s2"));
  EXPECT_EQ(db.rows("SELECT * FROM s2 ORDER BY 1"), module().two_rows_read);
  EXPECT_EQ(db.value("SELECT count(*) FROM s2 WHERE tuple_repr(raw) LIKE '(''fixed'', %'"), "2");
}

// Keys that follow the name cannot move under a scan in progress; a memory
// table's stay where they are, so its rename goes ahead.
TEST_P(KeyspaceTest, ARenameThatMovesKeysWaitsForScansInProgress) {
  ASSERT_TRUE(db.exec(std::string("INSERT INTO t VALUES ") + module().two_rows));
  const DuringScan r =
      during_scan(&db, sql("SELECT {a} FROM t"), "ALTER TABLE t RENAME TO book");
  EXPECT_EQ(r.rows, (Rows{{"1"}, {"2"}}));
  if (memory()) {
    EXPECT_EQ(r.rc, SQLITE_OK) << r.error;
  } else {
    EXPECT_EQ(r.rc, SQLITE_LOCKED);
    EXPECT_EQ(r.error, std::string(module().name) +
                           ": cannot rename t while a statement is reading it: "
                           "reset or finalize that statement first");
    ASSERT_TRUE(db.exec("ALTER TABLE t RENAME TO book"));
  }
  EXPECT_EQ(db.rows("SELECT * FROM book ORDER BY 1"), module().two_rows_read);
}

TEST_P(KeyspaceTest, DropRemovesTheRowsAndRollbackBringsThemBack) {
  ASSERT_TRUE(db.exec(std::string("INSERT INTO t VALUES ") + module().two_rows));
  const Rows names = db.rows("SELECT name FROM sqlite_schema ORDER BY name");
  EXPECT_EQ(names, memory() ? (Rows{{"t"}}) : (Rows{{"t"}, {"t_kv"}}));
  for (const char* undone : {"BEGIN; DROP TABLE t; ROLLBACK",
                             "BEGIN; ALTER TABLE t RENAME TO r; ROLLBACK"}) {
    ASSERT_TRUE(db.exec(undone));
    EXPECT_EQ(db.rows("SELECT name FROM sqlite_schema ORDER BY name"), names) << undone;
    EXPECT_EQ(db.rows("SELECT * FROM t ORDER BY 1"), module().two_rows_read) << undone;
  }
  ASSERT_TRUE(db.exec("DROP TABLE t"));
  EXPECT_EQ(db.value("SELECT count(*) FROM sqlite_schema"), "0");
  ASSERT_TRUE(db.exec(create("t")));
  EXPECT_EQ(db.value("SELECT count(*) FROM t"), "0");
}

// Typed columns (tuplekv_multimap declares them): writes are coerced as in
// a STRICT table, and = and IN give their right-hand side the affinity
// SQLite's comparison gives it ('5' finds 5 in an INTEGER column, 2 finds
// 2.0 in a REAL one). A number against a TEXT column reads the whole table
// and leaves the match to SQLite: a literal becomes text, another table's
// INTEGER column compares numerically.
class TypedKeyspaceTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const std::string store = ", store=" + GetParam() + ")";
    ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE t USING tuplekv_multimap(name TEXT, n INTEGER" +
                        store + "; CREATE VIRTUAL TABLE r USING tuplekv_multimap(x REAL, y BLOB" +
                        store));
    ASSERT_TRUE(native.exec("CREATE TABLE t(name TEXT NOT NULL, n INTEGER NOT NULL, "
                            "PRIMARY KEY(name, n)) STRICT, WITHOUT ROWID;"
                            "CREATE TABLE r(x REAL NOT NULL, y BLOB NOT NULL, "
                            "PRIMARY KEY(x, y)) STRICT, WITHOUT ROWID"));
    for (Db* d : {&db, &native}) {
      ASSERT_TRUE(d->exec("CREATE TABLE o(v INTEGER, w);"
                          "INSERT INTO o VALUES (3, '3'), (5, '5.0'), (8, 'x')"));
    }
  }
  void same(const std::string& q) { expect_same_outcome(&db, &native, q); }
  Db db;
  Db native;
};

INSTANTIATE_TEST_SUITE_P(Stores, TypedKeyspaceTest, ::testing::Values("sqlite", "memory"),
                         [](const auto& info) { return info.param; });

TEST_P(TypedKeyspaceTest, EqualityComparesAsTheStrictNativeTable) {
  same("INSERT INTO t VALUES ('3', 3), ('03', 4), ('ann', '5'), ('bob', 5.0), (7, 7)");
  same("INSERT INTO t VALUES ('ann', 5.0)");
  same("INSERT INTO r VALUES (2, x'01'), (2.5, x'02'), ('3', x'03')");
  same("SELECT quote(name), quote(n) FROM t ORDER BY 1, 2");
  same("SELECT quote(x), quote(y) FROM r ORDER BY 1, 2");
  EXPECT_EQ(db.rows("SELECT name FROM t WHERE n = '5' ORDER BY name"), (Rows{{"ann"}, {"bob"}}));
  for (const char* where : {"n = '5'", "n = '5.0'", "n = ' 5 '", "n = 'abc'",
                            "n IN ('3', 4.0, 'x')", "name = 'ann' AND n = '5'",
                            "name IN ('ann', 'bob') AND n IN ('5', 6)", "name = 3",
                            "name = 3.0", "name IN (3, 7)", "name = 7 AND n = '7'"}) {
    same(std::string("SELECT name, n FROM t WHERE ") + where + " ORDER BY 1, 2");
  }
  for (const char* where : {"x = 2", "x = '2'", "x = '2.0'", "x IN ('3', 2.5)",
                            "x = '2.5' AND y = x'02'", "y = x'03'"}) {
    same(std::string("SELECT x, hex(y) FROM r WHERE ") + where + " ORDER BY 1, 2");
  }
  // From another table's columns: o.v has INTEGER affinity, o.w none.
  same("SELECT o.v, t.name FROM o JOIN t ON t.name = o.v ORDER BY 1, 2");
  same("SELECT o.w, t.name, t.n FROM o JOIN t ON t.n = o.w ORDER BY 1, 2, 3");
  same("SELECT o.w, r.x FROM o JOIN r ON r.x = o.w ORDER BY 1, 2");
}

}  // namespace
}  // namespace tuplekv::testing
