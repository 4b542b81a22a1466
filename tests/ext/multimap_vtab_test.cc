// tuplekv_multimap through SQL: the stored key bytes (with and without
// reverse entries), duplicates and conflict clauses, keys-only counts,
// both stores against a native table under a random workload, and
// sql/multimap.sql.
#include <gtest/gtest.h>

#include <string>

#include "tests/ext/pair_diff.h"
#include "tests/ext/sql_example.h"
#include "tests/testutil.h"

namespace tuplekv::testing {
namespace {

TEST(MultimapLayoutTest, PairAndReverseKeyBytes) {
  Db db;
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE e USING tuplekv_multimap(student, class, reverse=1);"
                      "INSERT INTO e VALUES ('al', 7)"));
  // 02 'e' 00 | 02 'al' 00 | 15 07, and 02 'e' 00 | 02 'reverse' 00 | 15 07 | 02 'al' 00.
  EXPECT_EQ(db.rows("SELECT hex(k), hex(v) FROM e_kv"),
            (Rows{{"026500" "02616C00" "1507", ""},
                  {"026500" "0272657665727365" "00" "1507" "02616C00", ""}}));
  EXPECT_EQ(db.rows("SELECT name FROM pragma_table_info('e')"), (Rows{{"student"}, {"class"}}));
}

TEST(MultimapLayoutTest, DefaultColumnNamesAndBadArguments) {
  Db db;
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE m USING tuplekv_multimap"));
  EXPECT_EQ(db.rows("SELECT name FROM pragma_table_info('m')"), (Rows{{"key"}, {"value"}}));
  EXPECT_EQ(db.error("CREATE VIRTUAL TABLE x USING tuplekv_multimap(a)"),
            "tuplekv_multimap: expected two column names (key and value), got 1");
  EXPECT_EQ(db.error("CREATE VIRTUAL TABLE x USING tuplekv_multimap(a, b, colour=1)"),
            "tuplekv_multimap: unknown option 'colour'");
}

// A UTF-16 database orders text by its UTF-16 bytes, not by the UTF-8 in
// the keys. The ranges of these inexact columns span all text whatever
// the bound, so they still find every row.
TEST(MultimapLayoutTest, TextRangesInAUtf16DatabaseFindEveryRow) {
  Db db;
  ASSERT_TRUE(db.exec("PRAGMA encoding = 'UTF-16le';"
                      "CREATE VIRTUAL TABLE m USING tuplekv_multimap(k, v, reverse=1);"
                      "CREATE TABLE n(k, v);"));
  const std::string rows =
      " VALUES ('a', 1), ('h\xc3\xa9', 2), ('\xf0\x9f\x98\x80', 3), ('!', 4), ('zz', 5), (7, 6)";
  ASSERT_TRUE(db.exec("INSERT INTO m" + rows + "; INSERT INTO n" + rows));
  for (const char* where : {"k > 'a'", "k BETWEEN '!' AND 'h'", "k < 'b'", "k >= '\xf0'", "v > 3"}) {
    const std::string q = std::string(" WHERE ") + where + " ORDER BY v";
    EXPECT_EQ(db.rows("SELECT k, v FROM m" + q), db.rows("SELECT k, v FROM n" + q)) << where;
  }
}

TEST(MultimapLayoutTest, KeyNamedReverseIsNotConfusedWithReverseEntries) {
  Db db;
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE m USING tuplekv_multimap(k, v, reverse=1);"
                      "INSERT INTO m VALUES ('reverse', 1), ('x', 'reverse'), (1, 'x')"));
  EXPECT_EQ(db.rows("SELECT k, v FROM m WHERE k = 'reverse'"), (Rows{{"reverse", "1"}}));
  EXPECT_EQ(db.value("SELECT count(*) FROM m"), "3");
  EXPECT_EQ(db.rows("SELECT k FROM m WHERE v = 'x'"), (Rows{{"1"}}));
  ASSERT_TRUE(db.exec("DELETE FROM m WHERE k = 'reverse'"));
  EXPECT_EQ(db.value("SELECT count(*) FROM m_kv"), "4");
}

class MultimapTest : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE t USING tuplekv_multimap(student, class, reverse=" +
                        reverse() + ", store=" + store() + ")"));
    ASSERT_TRUE(db.exec("CREATE TABLE ref(student ANY NOT NULL, class ANY NOT NULL, "
                        "PRIMARY KEY(student, class)) STRICT, WITHOUT ROWID"));
  }
  std::string reverse() const { return std::get<0>(GetParam()); }
  std::string store() const { return std::get<1>(GetParam()); }
  Db db;
};

INSTANTIATE_TEST_SUITE_P(
    Variants, MultimapTest,
    ::testing::Combine(::testing::Values("0", "1"), ::testing::Values("sqlite", "memory")),
    [](const auto& info) {
      return "reverse" + std::get<0>(info.param) + "_" + std::get<1>(info.param);
    });

// All values of a key go with one clear_range; reverse entries follow.
TEST_P(MultimapTest, DeletingAKeyIsOneRangeClear) {
  for (const std::string table : {"t", "ref"}) {
    ASSERT_TRUE(db.exec("WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n "
                        "WHERE i < 299) INSERT INTO " + table +
                        " SELECT 's' || (i / 10), 'c' || (i % 13) FROM n"));
  }
  db.value("SELECT tuplekv_stats('t', 'reset')");
  ASSERT_TRUE(db.exec("DELETE FROM t WHERE student = 's7'; DELETE FROM ref WHERE student = 's7'"));
  EXPECT_EQ(db.value("SELECT json_extract(tuplekv_stats('t'), '$.range_clears')"), "1");
  EXPECT_EQ(db.value("SELECT json_extract(tuplekv_stats('t'), '$.writes')"), "10");
  EXPECT_EQ(db.rows("SELECT student, class FROM t ORDER BY student, class"),
            db.rows("SELECT student, class FROM ref ORDER BY student, class"));
  for (const std::string c : {"c0", "c5", "c12"}) {
    EXPECT_EQ(db.rows("SELECT student FROM t WHERE class = '" + c + "' ORDER BY student"),
              db.rows("SELECT student FROM ref WHERE class = '" + c + "' ORDER BY student"));
  }
  if (store() == "sqlite") {
    EXPECT_EQ(db.value("SELECT count(*) FROM t_kv"), reverse() == "1" ? "580" : "290");
  }
}

TEST_P(MultimapTest, DuplicatesFollowTheConflictClause) {
  ASSERT_TRUE(db.exec("INSERT INTO t VALUES ('alice', 'math'), ('alice', 2)"));
  EXPECT_EQ(db.error("INSERT INTO t VALUES ('alice', 'math')"),
            "UNIQUE constraint failed: t.student, t.class");
  EXPECT_EQ(db.error_code("INSERT INTO t VALUES ('alice', 2.0)"), SQLITE_CONSTRAINT_PRIMARYKEY);
  ASSERT_TRUE(db.exec("INSERT OR IGNORE INTO t VALUES ('alice', 'math'), ('bob', 'math')"));
  ASSERT_TRUE(db.exec("INSERT OR REPLACE INTO t VALUES ('alice', 2.0)"));
  EXPECT_EQ(db.rows("SELECT student, quote(class) FROM t ORDER BY student, class"),
            (Rows{{"alice", "2.0"}, {"alice", "'math'"}, {"bob", "'math'"}}));
  EXPECT_EQ(db.error("INSERT INTO t VALUES (NULL, 'x')"), "NOT NULL constraint failed: t.student");
  // The stored key is read-only (an UPDATE of it was once ignored).
  EXPECT_EQ(db.error("UPDATE t SET raw = x'00' WHERE student = 'bob'"),
            "tuplekv_multimap: raw is the stored key of t, it cannot be written");
  EXPECT_EQ(db.value("SELECT count(*) FROM t WHERE student = 'bob'"), "1");
}

TEST_P(MultimapTest, ValuesOfAKeyAreOnePrefixScanAndCountReadsKeysOnly) {
  ASSERT_TRUE(db.exec(
      "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < 999) "
      "INSERT INTO t SELECT 's' || (i % 50), 'c' || i FROM n"));
  db.value("SELECT tuplekv_stats('t', 'reset')");
  EXPECT_EQ(db.value("SELECT count(*) FROM t WHERE student = 's7'"), "20");
  EXPECT_EQ(db.value("SELECT tuplekv_stats('t', 'reset')"),
            R"({"scans":1,"ranges":1,"rows":20,"writes":0,"range_clears":0})");
  EXPECT_EQ(db.value("SELECT count(*) FROM t WHERE student = 's7' AND class = 'c7'"), "1");
  EXPECT_EQ(db.value("SELECT tuplekv_stats('t', 'reset')"),
            R"({"scans":1,"ranges":1,"rows":1,"writes":0,"range_clears":0})");
  EXPECT_EQ(db.value("SELECT student FROM t WHERE class = 'c123'"), "s23");
  const std::string by_class = db.value("SELECT tuplekv_stats('t', 'reset')");
  if (reverse() == "1") {
    EXPECT_EQ(by_class, R"({"scans":1,"ranges":1,"rows":1,"writes":0,"range_clears":0})");
  } else {
    EXPECT_EQ(by_class, R"({"scans":1,"ranges":1,"rows":1000,"writes":0,"range_clears":0})");
  }
}

// A pair's columns read after a function of the same statement deleted it
// come from the pair as it was read, never from bytes the write freed
// (the sanitizer build catches a read of those).
TEST_P(MultimapTest, DeletingTheCurrentPairBetweenTwoColumnReads) {
  ASSERT_TRUE(db.exec("WITH RECURSIVE c(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM c WHERE x < 799)"
                      " INSERT INTO t SELECT x, 'class' || x || printf('%.70c', 'x') FROM c"));
  add_sql_function(&db, "delete_student", "DELETE FROM t WHERE student = ?1");
  const Rows rows = db.rows("SELECT student, delete_student(student), class FROM t");
  ASSERT_EQ(rows.size(), 800u);
  for (const Row& r : rows) {
    EXPECT_EQ(r[2].substr(0, 5 + r[0].size() + 1), "class" + r[0] + "x") << "student " << r[0];
  }
  EXPECT_EQ(db.value("SELECT count(*) FROM t"), "0");
}

TEST_P(MultimapTest, RollbackUndoesPairsAndReverseEntries) {
  ASSERT_TRUE(db.exec("INSERT INTO t VALUES (1, 'a')"));
  ASSERT_TRUE(db.exec("BEGIN; INSERT INTO t VALUES (2, 'b'); SAVEPOINT s; DELETE FROM t;"
                      "ROLLBACK TO s; COMMIT"));
  EXPECT_EQ(db.rows("SELECT student, class FROM t ORDER BY student"),
            (Rows{{"1", "a"}, {"2", "b"}}));
  ASSERT_TRUE(db.exec("BEGIN; DELETE FROM t WHERE class = 'a'; ROLLBACK"));
  EXPECT_EQ(db.value("SELECT count(*) FROM t WHERE class = 'a'"), "1");
}

TEST_P(MultimapTest, RandomWorkloadMatchesNativeTable) {
  // One seed of 2,500 statements; more with TUPLEKV_PAIR_DIFF_SEEDS
  // (tests/ext/pair_diff.h).
  const unsigned base = static_cast<unsigned>(std::hash<std::string>()(reverse() + store()));
  const SeedRuns runs = run_seeds(PairDiff{&db, "t", "ref", "student", "class", ""}, base, 2500);
  EXPECT_EQ(runs.mismatches, 0u);
  std::printf("multimap reverse=%s store=%s: %zu statements, %zu mismatches\n", reverse().c_str(),
              store().c_str(), runs.statements, runs.mismatches);
}

// Typed columns behave like the STRICT native table with the same types:
// coercion, type errors, and lookups whose right-hand side needs the
// column's affinity ('2' finds 2 in an INTEGER column).
class TypedMultimapTest
    : public ::testing::TestWithParam<std::tuple<std::string, std::string, std::string, std::string>> {
 protected:
  void SetUp() override {
    const auto& [a_type, b_type, reverse, store] = GetParam();
    ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE t USING tuplekv_multimap(student " + a_type + ", class " +
                        b_type + ", reverse=" + reverse + ", store=" + store + ")"));
    ASSERT_TRUE(db.exec("CREATE TABLE ref(student " + a_type + " NOT NULL, class " + b_type +
                        " NOT NULL, PRIMARY KEY(student, class)) STRICT, WITHOUT ROWID"));
  }
  Db db;
};

INSTANTIATE_TEST_SUITE_P(
    Types, TypedMultimapTest,
    ::testing::Values(std::make_tuple("TEXT", "INTEGER", "1", "sqlite"),
                      std::make_tuple("TEXT", "INTEGER", "0", "memory"),
                      std::make_tuple("INTEGER", "REAL", "1", "memory"),
                      std::make_tuple("REAL", "TEXT", "0", "sqlite"),
                      std::make_tuple("BLOB", "ANY", "1", "sqlite"),
                      std::make_tuple("INT", "BLOB", "1", "memory")),
    [](const auto& info) {
      return std::get<0>(info.param) + "_" + std::get<1>(info.param) + "_reverse" + std::get<2>(info.param) +
             "_" + std::get<3>(info.param);
    });

TEST_P(TypedMultimapTest, RandomWorkloadMatchesStrictNativeTable) {
  PairDiff diff{&db, "t", "ref", "student", "class", ""};
  diff.typed = true;
  diff.rng.seed(static_cast<unsigned>(std::hash<std::string>()(std::get<0>(GetParam()) + std::get<1>(GetParam()))));
  diff.run(2500);
  EXPECT_EQ(diff.mismatches, 0u);
  EXPECT_EQ(diff.statements, 2500u);
}

TEST(TypedMultimapExamplesTest, CoercionErrorsAndLookups) {
  Db db;
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE e USING tuplekv_multimap(student VARCHAR(20), class INTEGER, "
                      "reverse=1);"
                      "INSERT INTO e VALUES ('ann', 1), ('ann', '2'), (3, 3.0), ('bob', 2)"));
  EXPECT_EQ(db.rows("SELECT quote(student), quote(class) FROM e"),
            (Rows{{"'3'", "3"}, {"'ann'", "1"}, {"'ann'", "2"}, {"'bob'", "2"}}));
  EXPECT_EQ(db.error("INSERT INTO e VALUES ('x', 'abc')"), "cannot store TEXT value in INTEGER column e.class");
  EXPECT_EQ(db.error_code("INSERT INTO e VALUES ('x', 2.5)"), SQLITE_CONSTRAINT_DATATYPE);
  EXPECT_EQ(db.error("INSERT INTO e VALUES (x'00', 1)"), "cannot store BLOB value in TEXT column e.student");
  EXPECT_EQ(db.error("INSERT INTO e VALUES ('ann', '1')"), "UNIQUE constraint failed: e.student, e.class");
  EXPECT_EQ(db.value("SELECT count(*) FROM e"), "4");
  // The stored keys hold the coerced values with their tuple types.
  EXPECT_EQ(db.rows("SELECT tuple_repr(k) FROM e_kv WHERE k < tuple_pack('e', 'reverse')"),
            (Rows{{"('e', '3', 3)"}, {"('e', 'ann', 1)"}, {"('e', 'ann', 2)"}, {"('e', 'bob', 2)"}}));
  // '2' gets the INTEGER column's affinity, as SQLite gives it.
  EXPECT_EQ(db.rows("SELECT student FROM e WHERE class = '2'"), (Rows{{"ann"}, {"bob"}}));
  EXPECT_EQ(db.rows("SELECT class FROM e WHERE student = 'ann' AND class IN ('1', 2.0)"), (Rows{{"1"}, {"2"}}));
  // A number compared with the TEXT column: read everything, SQLite decides.
  EXPECT_EQ(db.rows("SELECT class FROM e WHERE student = 3"), (Rows{{"3"}}));
  EXPECT_EQ(db.error("CREATE VIRTUAL TABLE x USING tuplekv_multimap(a NUMERIC, b)"),
            "tuplekv_multimap: unknown type 'NUMERIC' for column a (use INTEGER, REAL, TEXT, BLOB or ANY)");
  EXPECT_EQ(db.rows("SELECT name, type FROM pragma_table_info('e')"),
            (Rows{{"student", "TEXT"}, {"class", "INTEGER"}}));
}

// Bytes written to the shadow table behind the module's back: every read
// that meets them fails with SQLITE_CORRUPT_VTAB and names the stored key,
// a write that meets them changes nothing, and reads that do not meet them
// go on working.
TEST(MultimapCorruptionTest, DamagedShadowKeysAreReportedWithTheirKey) {
  Db db;
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE t USING tuplekv_multimap(student, class, reverse=1);"
                      "INSERT INTO t VALUES ('al', 7), ('bo', 8)"));
  // (t, 'a'): one element where a pair belongs.
  ASSERT_TRUE(db.exec("INSERT INTO t_kv VALUES (x'027400026100', x'')"));
  const std::string not_a_pair =
      "tuplekv_multimap: corrupt store of t: multimap: key x'027400026100' is not a (key, value) pair";
  EXPECT_EQ(db.error("SELECT count(*) FROM t"), not_a_pair);
  EXPECT_EQ(db.error_code("SELECT * FROM t"), SQLITE_CORRUPT_VTAB);
  EXPECT_EQ(db.error("DELETE FROM t WHERE student = 'a'"), not_a_pair);
  EXPECT_EQ(db.value("SELECT count(*) FROM t_kv"), "5");
  EXPECT_EQ(db.rows("SELECT class FROM t WHERE student = 'al'"), (Rows{{"7"}}));
  EXPECT_EQ(db.rows("SELECT student FROM t WHERE class = 8"), (Rows{{"bo"}}));
  ASSERT_TRUE(db.exec("DELETE FROM t_kv WHERE k = x'027400026100'"));

  // The reverse entry (t, 'reverse', 8, 'bo') cut short inside 'bo'; the
  // offset counts from the key's first byte.
  const std::string reverse_bo = "027400027265766572736500150802626f00";
  const std::string cut = reverse_bo.substr(0, reverse_bo.size() - 2);
  ASSERT_TRUE(db.exec("UPDATE t_kv SET k = x'" + cut + "' WHERE k = x'" + reverse_bo + "'"));
  EXPECT_EQ(db.error("SELECT student FROM t WHERE class = 8"),
            "tuplekv_multimap: corrupt store of t: multimap: key x'" + cut +
                "': tuple: unterminated string at byte 14 (type code 0x02)");
  EXPECT_EQ(db.rows("SELECT student FROM t WHERE class = 7"), (Rows{{"al"}}));
  ASSERT_TRUE(db.exec("UPDATE t_kv SET k = x'" + reverse_bo + "' WHERE k = x'" + cut + "'"));
  EXPECT_EQ(db.rows("SELECT * FROM t ORDER BY student"), (Rows{{"al", "7"}, {"bo", "8"}}));
}

TEST(MultimapExampleTest, SqlFileGivesExpectedOutput) {
  Db db;
  const std::string dir = std::string(TUPLEKV_SOURCE_DIR) + "/sql/";
  const std::string expected = read_text_file(dir + "multimap.expected");
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(run_example(db.handle(), read_text_file(dir + "multimap.sql")), expected);
}

}  // namespace
}  // namespace tuplekv::testing
