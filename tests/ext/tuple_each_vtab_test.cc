// tuple_each (ext/tuple_each_vtab.cc) through SQL: one row per element with
// idx, type, value and raw for every element type; nested tuples as packed
// BLOBs that compose with the other functions; joins in both orders; the
// plan (argument consumed, ORDER BY idx consumed); every error with its
// message; random blobs. Runs with the static library and the loaded module.
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>

#include "core/tuple.h"
#include "tests/testutil.h"

namespace tuplekv {
namespace testing {
void PrintTo(Load load, std::ostream* os) {
  *os << (load == Load::kRegister ? "Load::kRegister" : "Load::kLoadExtension");
}
}  // namespace testing

namespace {

using testing::Db;
using testing::Load;
using testing::Rows;

class TupleEachTest : public ::testing::TestWithParam<Load> {
 protected:
  TupleEachTest() : db_(":memory:", GetParam()) {}
  Db db_;
};

INSTANTIATE_TEST_SUITE_P(Load, TupleEachTest,
                         ::testing::Values(Load::kRegister, Load::kLoadExtension),
                         [](const ::testing::TestParamInfo<Load>& info) {
                           return info.param == Load::kRegister ? std::string("Register")
                                                                : std::string("LoadExtension");
                         });

TEST_P(TupleEachTest, OneRowPerElementOfEveryType) {
  EXPECT_EQ(
      db_.rows("SELECT idx, type, typeof(value), value, hex(raw) FROM tuple_each(tuple_pack("
               "'CA', 42, tuple_pack(1, 2), 1.5, tuple_bool(1), "
               "tuple_uuid('00112233-4455-6677-8899-aabbccddeeff'), "
               "tuple_bigint('123456789012345678901234567890'), x'00ff', NULL, tuple_float(1.5), "
               "tuple_versionstamp('0102030405060708090a0b0c'), tuple_bool(0), -1))"),
      (Rows{{"0", "string", "text", "CA", "02434100"},
            {"1", "int", "integer", "42", "152A"},
            {"2", "tuple", "blob", "x'15011502'", "051501150200"},
            {"3", "double", "real", "1.5", "21BFF8000000000000"},
            {"4", "bool", "integer", "1", "27"},
            {"5", "uuid", "text", "00112233-4455-6677-8899-aabbccddeeff",
             "3000112233445566778899AABBCCDDEEFF"},
            {"6", "int", "text", "123456789012345678901234567890",
             "1D0D018EE90FF6C373E0EE4E3F0AD2"},
            {"7", "bytes", "blob", "x'00FF'", "0100FFFF00"},
            {"8", "null", "null", "NULL", "00"},
            {"9", "float", "real", "1.5", "20BFC00000"},
            {"10", "versionstamp", "blob", "x'0102030405060708090A0B0C'",
             "330102030405060708090A0B0C"},
            {"11", "bool", "integer", "0", "26"},
            {"12", "int", "integer", "-1", "13FE"}}));
}

TEST_P(TupleEachTest, ElementsSqlCannotMake) {
  // A user type, special doubles (NaN becomes NULL: SQL has no NaN), an
  // incomplete versionstamp, and Python's long spelling of 2^64-1.
  EXPECT_EQ(db_.rows("SELECT idx, type, typeof(value), hex(value), hex(raw) FROM tuple_each("
                     "x'21fff8000000000001" "21000fffffffffffff" "33ffffffffffffffffffff0001"
                     "1d08ffffffffffffffff" "40aabb')"),
            (Rows{{"0", "double", "null", "", "21FFF8000000000001"},
                  {"1", "double", "real", "2D496E66", "21000FFFFFFFFFFFFF"},  // -Inf
                  {"2", "versionstamp", "blob", "FFFFFFFFFFFFFFFFFFFF0001",
                   "33FFFFFFFFFFFFFFFFFFFF0001"},
                  {"3", "int", "text", "3138343436373434303733373039353531363135",
                   "1D08FFFFFFFFFFFFFFFF"},
                  {"4", "user", "blob", "AABB", "40AABB"}}));
  EXPECT_EQ(db_.value("SELECT value FROM tuple_each(x'21000fffffffffffff')"), "-Inf");
}

TEST_P(TupleEachTest, NestedValuesAndRawComposeWithTheOtherFunctions) {
  // value of a nested tuple is its children packed: unpack it, walk it,
  // nest it again; raw keeps each element's type inside tuple_pack.
  EXPECT_EQ(db_.rows("SELECT CASE type WHEN 'tuple' THEN tuple_unpack(value) END, "
                     "tuple_unpack(tuple_pack(value)), "
                     "tuple_unpack(tuple_pack(raw)) "
                     "FROM tuple_each(tuple_pack(tuple_pack(1, tuple_pack(NULL)), tuple_bool(0)))"),
            (Rows{{"[1,[null]]", "[[1,[null]]]", "[[1,[null]]]"},
                  {"NULL", "[0]", "[false]"}}));
  EXPECT_EQ(db_.rows("SELECT outer_e.idx, inner_e.idx, inner_e.value "
                     "FROM tuple_each(tuple_pack('a', tuple_pack(1, 2))) AS outer_e, "
                     "     tuple_each(outer_e.value) AS inner_e WHERE outer_e.type = 'tuple'"),
            (Rows{{"1", "0", "1"}, {"1", "1", "2"}}));
  // Concatenating the raw column in order gives the argument back.
  EXPECT_EQ(db_.value("SELECT hex(group_concat(raw, x'')) FROM (SELECT raw FROM tuple_each("
                      "tuple_pack(1, 'two', tuple_pack(3, NULL), NULL)) ORDER BY idx)"),
            db_.value("SELECT hex(tuple_pack(1, 'two', tuple_pack(3, NULL), NULL))"));
  // The nested tuple's value: its children as they pack at top level.
  EXPECT_EQ(db_.value("SELECT hex(value) FROM tuple_each(tuple_pack(tuple_pack(NULL, 1)))"),
            "001501");
}

TEST_P(TupleEachTest, EmptyTupleHasNoRows) {
  EXPECT_EQ(db_.value("SELECT count(*) FROM tuple_each(x'')"), "0");
  EXPECT_EQ(db_.value("SELECT count(*) FROM tuple_each(tuple_pack())"), "0");
}

TEST_P(TupleEachTest, HiddenArgumentColumnAndRowid) {
  EXPECT_EQ(db_.rows("SELECT idx, rowid, hex(packed) FROM tuple_each(tuple_pack(7, 8))"),
            (Rows{{"0", "0", "15071508"}, {"1", "1", "15071508"}}));
  // The argument written as a constraint on the hidden column.
  EXPECT_EQ(db_.value("SELECT group_concat(value) FROM tuple_each WHERE packed = tuple_pack(7, 8)"),
            "7,8");
  // `SELECT *` leaves the hidden column out.
  EXPECT_EQ(db_.rows("SELECT * FROM tuple_each(tuple_pack(5))"),
            (Rows{{"0", "int", "5", "x'1505'"}}));
}

TEST_P(TupleEachTest, JoinsWithATableInEitherOrder) {
  ASSERT_TRUE(db_.exec("CREATE TABLE k(id INTEGER PRIMARY KEY, b BLOB);"
                       "INSERT INTO k VALUES (1, tuple_pack('a', 1)), (2, tuple_pack('b')),"
                       "                     (3, x'');"));
  const Rows expect = {{"1", "0", "a"}, {"1", "1", "1"}, {"2", "0", "b"}};
  EXPECT_EQ(db_.rows("SELECT k.id, e.idx, e.value FROM k, tuple_each(k.b) AS e "
                     "ORDER BY k.id, e.idx"),
            expect);
  EXPECT_EQ(db_.rows("SELECT k.id, e.idx, e.value FROM tuple_each(k.b) AS e, k "
                     "ORDER BY k.id, e.idx"),
            expect);
  EXPECT_EQ(db_.rows("SELECT k.id FROM k WHERE EXISTS (SELECT 1 FROM tuple_each(k.b) "
                     "WHERE value = 'b')"),
            (Rows{{"2"}}));
}

TEST_P(TupleEachTest, PlanConsumesTheArgumentAndOrderByIdx) {
  auto plan = [&](const std::string& sql) {
    std::string all;
    for (const auto& row : db_.rows("EXPLAIN QUERY PLAN " + sql)) all += row.back() + "\n";
    return all;
  };
  const std::string asc = plan("SELECT * FROM tuple_each(tuple_pack(1, 2)) ORDER BY idx");
  EXPECT_EQ(asc.find("TEMP B-TREE"), std::string::npos) << asc;
  EXPECT_NE(asc.find("VIRTUAL TABLE INDEX 1"), std::string::npos) << asc;
  const std::string desc = plan("SELECT * FROM tuple_each(tuple_pack(1, 2)) ORDER BY idx DESC");
  EXPECT_NE(desc.find("TEMP B-TREE"), std::string::npos) << desc;
  EXPECT_EQ(db_.rows("SELECT idx FROM tuple_each(tuple_pack(1, 2, 3)) ORDER BY idx DESC"),
            (Rows{{"2"}, {"1"}, {"0"}}));
  EXPECT_EQ(db_.rows("SELECT idx FROM tuple_each(tuple_pack(1, 2, 3)) ORDER BY idx LIMIT 2"),
            (Rows{{"0"}, {"1"}}));
}

// NULL is no tuple: no rows, as json_each(NULL), so a join over a column
// that is sometimes NULL reads the others.
TEST_P(TupleEachTest, NullGivesNoRows) {
  EXPECT_EQ(db_.rows("SELECT * FROM tuple_each(NULL)"), Rows{});
  db_.exec("CREATE TABLE keys(id INTEGER PRIMARY KEY, k BLOB)");
  db_.exec("INSERT INTO keys VALUES (1, tuple_pack('a', 1)), (2, NULL), (3, tuple_pack('b'))");
  EXPECT_EQ(db_.rows("SELECT id, e.value FROM keys, tuple_each(keys.k) AS e ORDER BY id, e.idx"),
            (Rows{{"1", "a"}, {"1", "1"}, {"3", "b"}}));
  EXPECT_EQ(db_.rows("SELECT id, count(e.idx) FROM keys LEFT JOIN tuple_each(keys.k) AS e GROUP BY id"),
            (Rows{{"1", "2"}, {"2", "0"}, {"3", "1"}}));
}

TEST_P(TupleEachTest, Errors) {
  EXPECT_EQ(db_.error("SELECT * FROM tuple_each('ab')"),
            "tuple_each: argument must be a BLOB (a packed tuple), got TEXT");
  EXPECT_EQ(db_.error("SELECT * FROM tuple_each(1)"),
            "tuple_each: argument must be a BLOB (a packed tuple), got INTEGER");
  EXPECT_EQ(db_.error("SELECT * FROM tuple_each(1.5)"),
            "tuple_each: argument must be a BLOB (a packed tuple), got REAL");
  EXPECT_EQ(db_.error("SELECT * FROM tuple_each"),
            "tuple_each: missing argument: use tuple_each(<packed tuple BLOB>)");
  EXPECT_EQ(db_.error("SELECT * FROM tuple_each()"),
            "tuple_each: missing argument: use tuple_each(<packed tuple BLOB>)");
  EXPECT_EQ(db_.error("SELECT * FROM tuple_each(x'', x'')"),
            "too many arguments on tuple_each() - max 1");
  // Malformed: an error, and no row before it, even when the damage is at
  // the end.
  EXPECT_EQ(db_.error("SELECT * FROM tuple_each(x'1501ff')"),
            "tuple_each: malformed tuple: unknown type code at byte 2 (type code 0xff)");
  EXPECT_EQ(db_.error("SELECT * FROM tuple_each(x'1501150216')"),
            "tuple_each: malformed tuple: truncated integer at byte 4 (type code 0x16)");
  EXPECT_EQ(db_.error_code("SELECT * FROM tuple_each(x'ff')"), SQLITE_ERROR);
  sqlite3_stmt* stmt = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db_.handle(), "SELECT idx FROM tuple_each(x'1501150216')", -1,
                               &stmt, nullptr),
            SQLITE_OK);
  EXPECT_EQ(sqlite3_step(stmt), SQLITE_ERROR);  // the first step, no row before it
  sqlite3_finalize(stmt);
  // Eponymous only: it cannot be created under another name.
  EXPECT_EQ(db_.error("CREATE VIRTUAL TABLE e USING tuple_each"), "no such module: tuple_each");
  // A row-by-row error in a join names the function too.
  ASSERT_TRUE(db_.exec("CREATE TABLE k(b); INSERT INTO k VALUES (tuple_pack(1)), ('one');"));
  EXPECT_EQ(db_.error("SELECT * FROM k, tuple_each(k.b)"),
            "tuple_each: argument must be a BLOB (a packed tuple), got TEXT");
}

TEST_P(TupleEachTest, InnocuousInAnUntrustedSchema) {
  ASSERT_TRUE(db_.exec("PRAGMA trusted_schema = OFF;"
                       "CREATE TABLE k(b); INSERT INTO k VALUES (tuple_pack(1, 'x'));"
                       "CREATE VIEW v AS SELECT e.value FROM k, tuple_each(k.b) AS e;"));
  EXPECT_EQ(db_.rows("SELECT * FROM v"), (Rows{{"1"}, {"x"}}));
}

TEST_P(TupleEachTest, RandomBlobsGiveRowsOrOneError) {
  sqlite3_stmt* stmt = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db_.handle(),
                               "SELECT idx, type, value, raw, packed FROM tuple_each(?1)", -1,
                               &stmt, nullptr),
            SQLITE_OK);
  const std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> finalize(stmt, sqlite3_finalize);
  std::mt19937_64 rng(GetParam() == Load::kRegister ? 5 : 6);
  static constexpr uint8_t kCodes[] = {0x00, 0x01, 0x02, 0x05, 0x0b, 0x0c, 0x13, 0x14, 0x15,
                                       0x1c, 0x1d, 0x20, 0x21, 0x26, 0x27, 0x30, 0x33, 0x40,
                                       0xff, 0x00};
  int valid = 0;
  for (int i = 0; i < 20000; ++i) {
    Bytes b;
    const size_t n = rng() % 32;
    for (size_t k = 0; k < n; ++k) {
      b.push_back(static_cast<char>(rng() % 3 == 0 ? rng() : kCodes[rng() % sizeof kCodes]));
    }
    Tuple t;
    const bool ok = unpack(b, &t).ok();
    sqlite3_reset(stmt);
    sqlite3_bind_blob(stmt, 1, b.data(), static_cast<int>(b.size()), SQLITE_STATIC);
    size_t rows = 0;
    Bytes raw_concat;
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
      ASSERT_EQ(sqlite3_column_int64(stmt, 0), static_cast<int64_t>(rows));
      const auto* p = static_cast<const char*>(sqlite3_column_blob(stmt, 3));
      raw_concat.append(p == nullptr ? "" : p, static_cast<size_t>(sqlite3_column_bytes(stmt, 3)));
      ++rows;
    }
    if (ok) {
      ++valid;
      ASSERT_EQ(rc, SQLITE_DONE) << to_hex(b) << ": " << sqlite3_errmsg(db_.handle());
      ASSERT_EQ(rows, t.size()) << to_hex(b);
      ASSERT_EQ(raw_concat, b);
    } else {
      ASSERT_EQ(rc, SQLITE_ERROR) << to_hex(b);
      ASSERT_EQ(rows, 0u) << to_hex(b);
      ASSERT_EQ(std::string(sqlite3_errmsg(db_.handle())).substr(0, 29),
                "tuple_each: malformed tuple: ");
    }
  }
  EXPECT_GT(valid, 500);
}

}  // namespace
}  // namespace tuplekv
