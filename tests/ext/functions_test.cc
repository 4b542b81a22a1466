// The scalar SQL functions (ext/functions.cc), through SQL: every function
// with every type it takes, every documented error with its message and
// code, the golden vectors through tuple_unpack / tuple_pack_json, random
// blobs and random JSON through every function (errors, never crashes), and
// the function flags. The whole suite runs twice: with tuplekv_register()
// from the static library and with the built module loaded by
// sqlite3_load_extension(), as users load it.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/tuple.h"
#include "tests/testutil.h"

namespace tuplekv {
namespace testing {
// Readable parameter names in gtest output.
void PrintTo(Load load, std::ostream* os) {
  *os << (load == Load::kRegister ? "Load::kRegister" : "Load::kLoadExtension");
}
}  // namespace testing

namespace {

using testing::Db;
using testing::Load;
using testing::Rows;

// A prepared statement, finalized however the test ends.
using Stmt = std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)>;

class FunctionsTest : public ::testing::TestWithParam<Load> {
 protected:
  FunctionsTest() : db_(":memory:", GetParam()) {}

  std::string value(const std::string& sql) { return db_.value(sql); }
  std::string error(const std::string& sql) { return db_.error(sql); }

  Stmt prepare(const std::string& sql) {
    sqlite3_stmt* s = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db_.handle(), sql.c_str(), -1, &s, nullptr), SQLITE_OK)
        << sql << ": " << sqlite3_errmsg(db_.handle());
    return Stmt(s, sqlite3_finalize);
  }

  Db db_;
};

INSTANTIATE_TEST_SUITE_P(Load, FunctionsTest,
                         ::testing::Values(Load::kRegister, Load::kLoadExtension),
                         [](const ::testing::TestParamInfo<Load>& info) {
                           return info.param == Load::kRegister ? std::string("Register")
                                                                : std::string("LoadExtension");
                         });

// ---------------------------------------------------------------------------
// Registration

TEST_P(FunctionsTest, RegistersEveryFunctionDeterministicAndInnocuous) {
  // flags: SQLITE_DETERMINISTIC 0x800, SQLITE_INNOCUOUS 0x200000, and
  // SQLITE_SUBTYPE 0x100000 for the functions that read argument subtypes.
  EXPECT_EQ(db_.rows("SELECT name, narg, printf('0x%x', flags) FROM pragma_function_list "
                     "WHERE name LIKE 'tuple\\_%' ESCAPE '\\' ORDER BY name"),
            (Rows{{"tuple_bigint", "1", "0x300800"},
                  {"tuple_bool", "1", "0x300800"},
                  {"tuple_float", "1", "0x300800"},
                  {"tuple_pack", "-1", "0x300800"},
                  {"tuple_pack_json", "1", "0x200800"},
                  {"tuple_range_begin", "1", "0x200800"},
                  {"tuple_range_end", "1", "0x200800"},
                  {"tuple_repr", "1", "0x200800"},
                  {"tuple_strinc", "1", "0x200800"},
                  {"tuple_unpack", "1", "0x200800"},
                  {"tuple_uuid", "1", "0x300800"},
                  {"tuple_versionstamp", "1", "0x300800"}}));
  EXPECT_EQ(db_.rows("SELECT name, narg, printf('0x%x', flags) FROM pragma_function_list "
                     "WHERE name = 'tuplekv_map_key'"),
            (Rows{{"tuplekv_map_key", "4", "0x200800"}}));
}

TEST_P(FunctionsTest, UsableInSchemaWithUntrustedSchema) {
  // Generated columns and indexes on expressions need deterministic
  // functions; with trusted_schema off they also need innocuous ones.
  ASSERT_TRUE(db_.exec(
      "PRAGMA trusted_schema = OFF;"
      "CREATE TABLE t(k BLOB, j TEXT AS (tuple_unpack(k)), r TEXT AS (tuple_repr(k)),"
      "               e BLOB AS (tuple_range_end(k)), p BLOB AS (tuple_pack_json(j)));"
      "CREATE INDEX t_repr ON t(tuple_repr(k));"
      "INSERT INTO t(k) VALUES (tuple_pack('a', 1)), (tuple_pack(tuple_bool(1)));"));
  EXPECT_EQ(db_.rows("SELECT j, r, hex(e), p = k FROM t ORDER BY k"),
            (Rows{{"[\"a\",1]", "('a', 1)", "0261001501FF", "1"},
                  {"[true]", "(True,)", "27FF", "1"}}));
  EXPECT_EQ(value("SELECT count(*) FROM t WHERE tuple_repr(k) = '(True,)'"), "1");
}

// ---------------------------------------------------------------------------
// tuple_pack

TEST_P(FunctionsTest, PackEverySqlType) {
  EXPECT_EQ(value("SELECT hex(tuple_pack(NULL, 1, -1, 1.5, 'a', x'00ff'))"),
            "00150113FE21BFF80000000000000261000100FFFF00");
  EXPECT_EQ(value("SELECT hex(tuple_pack(9223372036854775807, -9223372036854775808, 0))"),
            "1C7FFFFFFFFFFFFFFF0C7FFFFFFFFFFFFFFF14");
  EXPECT_EQ(value("SELECT hex(tuple_pack(0.0, -0.0))"), "21800000000000000021" "7FFFFFFFFFFFFFFF");
  EXPECT_EQ(value("SELECT hex(tuple_pack(1e308 * 10, -1e308 * 10))"),
            "21FFF0000000000000" "21000FFFFFFFFFFFFF");
  // Text with an embedded NUL, empty text and an empty BLOB.
  EXPECT_EQ(value("SELECT hex(tuple_pack(CAST(x'610062' AS TEXT), '', x''))"),
            "026100FF6200020001" "00");
  EXPECT_EQ(value("SELECT hex(tuple_pack('caf\xC3\xA9'))"), "02636166C3A900");
  // No arguments: the empty tuple.
  EXPECT_EQ(value("SELECT typeof(tuple_pack()) || length(tuple_pack())"), "blob0");
}

TEST_P(FunctionsTest, PackKeepsTupleTypesOfOtherTupleFunctions) {
  // A tuple_pack() result nests; so does tuple_pack_json()'s.
  EXPECT_EQ(value("SELECT hex(tuple_pack(1, tuple_pack(2, NULL), tuple_pack()))"),
            "1501051502" "00FF" "00" "0500");
  EXPECT_EQ(value("SELECT hex(tuple_pack(tuple_pack_json('[1]')))"), "05150100");
  // Typed makers keep their types.
  EXPECT_EQ(value("SELECT tuple_unpack(tuple_pack(tuple_bool(1), tuple_uuid("
                  "'00112233-4455-6677-8899-aabbccddeeff'), tuple_float(1.5), "
                  "tuple_bigint('18446744073709551616'), "
                  "tuple_versionstamp('0102030405060708090a0b0c')))"),
            "[true,{\"$uuid\":\"00112233445566778899aabbccddeeff\"},{\"$float\":1.5},"
            "18446744073709551616,{\"$versionstamp\":\"0102030405060708090a0b0c\"}]");
  // A scalar subquery passes the subtype on; a stored value has none and is
  // plain bytes.
  EXPECT_EQ(value("SELECT hex(tuple_pack((SELECT tuple_pack(1))))"), "05150100");
  ASSERT_TRUE(db_.exec("CREATE TABLE s(b); INSERT INTO s VALUES (tuple_pack(1));"));
  EXPECT_EQ(value("SELECT hex(tuple_pack(b)) FROM s"), "01150100");
  // tuple_strinc / tuple_range_end produce keys, not tuples: bytes.
  EXPECT_EQ(value("SELECT hex(tuple_pack(tuple_range_end(tuple_pack(1))))"), "011501FF00");
}

TEST_P(FunctionsTest, PackErrors) {
  EXPECT_EQ(error("SELECT tuple_pack(CAST(x'ff' AS TEXT))"),
            "tuple_pack: argument 1: TEXT is not valid UTF-8");
  EXPECT_EQ(error("SELECT tuple_pack(1, CAST(x'c328' AS TEXT))"),
            "tuple_pack: argument 2: TEXT is not valid UTF-8");
  EXPECT_EQ(error("SELECT tuple_pack(1, 2, tuple_versionstamp(x'ffffffffffffffffffff0000'))"),
            "tuple_pack: argument 3: incomplete versionstamp (FoundationDB's pack() refuses it "
            "too; the database fills it in at commit)");
  // ... also inside a nested tuple (tuple_pack_json writes them as they are).
  EXPECT_EQ(error("SELECT tuple_pack(1, tuple_pack_json("
                  "'[2, {\"$versionstamp\":\"ffffffffffffffffffff0001\"}]'))"),
            "tuple_pack: incomplete versionstamp at element 1.1");
  // A user-type element (from tuple_each's raw) can only be last.
  EXPECT_EQ(error("SELECT tuple_pack(raw, 1) FROM tuple_each(x'40aa')"),
            "tuple_pack: user type at element 0 is not the last element");
  EXPECT_EQ(value("SELECT hex(tuple_pack(1, raw)) FROM tuple_each(x'40aa')"), "150140AA");
  EXPECT_EQ(db_.error_code("SELECT tuple_pack(CAST(x'ff' AS TEXT))"), SQLITE_ERROR);
}

// ---------------------------------------------------------------------------
// tuple_unpack / tuple_pack_json

TEST_P(FunctionsTest, UnpackEveryElementType) {
  EXPECT_EQ(value("SELECT tuple_unpack(tuple_pack(NULL, 1, -1, 1.5, 'a', x'00ff', "
                  "CAST(x'610062' AS TEXT), 0.0, -0.0, 1e308*10, -1e308*10, 100.0, 1e16, 1e-5))"),
            "[null,1,-1,1.5,\"a\",{\"$bytes\":\"00ff\"},\"a\\u0000b\",0.0,{\"$double\":\"-0.0\"},"
            "{\"$double\":\"inf\"},{\"$double\":\"-inf\"},100.0,1e+16,1e-05]");
  EXPECT_EQ(value("SELECT tuple_unpack(x'')"), "[]");
  EXPECT_EQ(value("SELECT tuple_unpack(tuple_pack(tuple_pack(1, tuple_pack(NULL))))"),
            "[[1,[null]]]");
  // The element makers' BLOBs are packed 1-tuples.
  EXPECT_EQ(value("SELECT tuple_unpack(tuple_bool(0))"), "[false]");
  // Elements SQL cannot make, straight from bytes.
  EXPECT_EQ(value("SELECT tuple_unpack(x'21fff8000000000001')"),
            "[{\"$double\":\"0x7ff8000000000001\"}]");
  EXPECT_EQ(value("SELECT tuple_unpack(x'21fff8000000000000')"), "[{\"$double\":\"nan\"}]");
  EXPECT_EQ(value("SELECT tuple_unpack(x'207fffffff')"), "[{\"$float\":\"-0.0\"}]");
  EXPECT_EQ(value("SELECT tuple_unpack(x'1d0901ffffffffffffffff')"),
            "[36893488147419103231]");
  EXPECT_EQ(value("SELECT tuple_unpack(x'1d08ffffffffffffffff')"),  // Python's spelling
            "[18446744073709551615]");
  EXPECT_EQ(value("SELECT tuple_unpack(x'33ffffffffffffffffffff0001')"),
            "[{\"$versionstamp\":\"ffffffffffffffffffff0001\"}]");
  EXPECT_EQ(value("SELECT tuple_unpack(x'15014f0001')"),
            "[1,{\"$user\":79,\"data\":\"0001\"}]");
  EXPECT_EQ(value("SELECT typeof(tuple_unpack(NULL))"), "null");
}

TEST_P(FunctionsTest, PackJsonIsTheExactInverse) {
  for (const char* hex :
       {"", "00", "0500ff00", "1d08ffffffffffffffff", "0bf6feffffffffffffffff",
        "33ffffffffffffffffffff0001" "0533ffffffffffffffffffff000200",
        "21fff8000000000001207fffffff21800000000000000021000fffffffffffff", "1501404142",
        "02f09f988000ff6100"}) {
    const std::string b = std::string("x'") + hex + "'";
    Bytes raw;
    ASSERT_TRUE(from_hex(hex, &raw));
    Tuple t;
    ASSERT_TRUE(unpack(raw, &t).ok()) << hex;
    Bytes expect;
    ASSERT_TRUE(pack_allow_incomplete(t, &expect).ok());
    EXPECT_EQ(value("SELECT lower(hex(tuple_pack_json(tuple_unpack(" + b + "))))"), to_hex(expect))
        << hex;
  }
  EXPECT_EQ(value("SELECT hex(tuple_pack_json(' [ \"a\" , 1 , [ ] ] '))"), "0261001501" "0500");
  EXPECT_EQ(value("SELECT typeof(tuple_pack_json(NULL))"), "null");
  EXPECT_EQ(value("SELECT typeof(tuple_pack_json('[]')) || length(tuple_pack_json('[]'))"),
            "blob0");
}

TEST_P(FunctionsTest, PackJsonErrors) {
  EXPECT_EQ(error("SELECT tuple_pack_json(1)"),
            "tuple_pack_json: argument must be TEXT (a JSON array), got INTEGER");
  EXPECT_EQ(error("SELECT tuple_pack_json(x'5b5d')"),
            "tuple_pack_json: argument must be TEXT (a JSON array), got BLOB");
  EXPECT_EQ(error("SELECT tuple_pack_json('')"), "tuple_pack_json: invalid JSON: empty input");
  EXPECT_EQ(error("SELECT tuple_pack_json('{}')"),
            "tuple_pack_json: the top level must be an array, at byte 0");
  EXPECT_EQ(error("SELECT tuple_pack_json('[1,')"),
            "tuple_pack_json: invalid JSON at byte 3: unclosed array or object at the end of "
            "the input");
  EXPECT_EQ(error("SELECT tuple_pack_json('[1] x')"),
            "tuple_pack_json: invalid JSON at byte 4: content after the top-level array");
  EXPECT_EQ(error("SELECT tuple_pack_json('[1,{\"$foo\":1}]')"),
            "tuple_pack_json: element 1 at byte 4: unknown tag \"$foo\" (known: $bytes, $uuid, "
            "$versionstamp, $float, $double, $user)");
  EXPECT_EQ(error("SELECT tuple_pack_json('[{\"$bytes\":\"0\"}]')"),
            "tuple_pack_json: element 0 at byte 11: $bytes must be an even number of hex digits");
  EXPECT_EQ(error("SELECT tuple_pack_json('[1e999]')"),
            "tuple_pack_json: element 0 at byte 1: number '1e999' is out of range for a double");
  EXPECT_EQ(error("SELECT tuple_pack_json('[\"' || CAST(x'c328' AS TEXT) || '\"]')"),
            "tuple_pack_json: invalid JSON at byte 2: invalid UTF-8");
  EXPECT_EQ(error("SELECT tuple_pack_json('[\"\\ud800\"]')"),
            "tuple_pack_json: invalid JSON at byte 9 (element 0): invalid escape or lone "
            "surrogate in a string");
  EXPECT_EQ(error("SELECT tuple_pack_json('[{\"$user\":64,\"data\":\"\"},1]')"),
            "tuple_pack_json: user type at element 0 is not the last element");
  EXPECT_EQ(error("SELECT tuple_pack_json('[[{\"$user\":64,\"data\":\"\"}]]')"),
            "tuple_pack_json: user type at element 0.0 inside a nested tuple");
  EXPECT_NE(error("SELECT tuple_pack_json(printf('%.*c', 130, '[') || "
                  "printf('%.*c', 130, ']'))")
                .find(" at byte 129: tuples nested deeper than 128 levels"),
            std::string::npos);
  EXPECT_EQ(db_.error_code("SELECT tuple_pack_json('[')"), SQLITE_ERROR);
}

TEST_P(FunctionsTest, UnpackErrors) {
  EXPECT_EQ(error("SELECT tuple_unpack('x')"), "tuple_unpack: argument must be a BLOB, got TEXT");
  EXPECT_EQ(error("SELECT tuple_unpack(1)"), "tuple_unpack: argument must be a BLOB, got INTEGER");
  EXPECT_EQ(error("SELECT tuple_unpack(1.5)"), "tuple_unpack: argument must be a BLOB, got REAL");
  EXPECT_EQ(error("SELECT tuple_unpack(x'15')"),
            "tuple_unpack: malformed tuple: truncated integer at byte 0 (type code 0x15)");
  EXPECT_EQ(error("SELECT tuple_unpack(x'1501ff')"),
            "tuple_unpack: malformed tuple: unknown type code at byte 2 (type code 0xff)");
  EXPECT_EQ(error("SELECT tuple_unpack(x'02ff00')"),
            "tuple_unpack: malformed tuple: invalid UTF-8 at byte 1 in string at byte 0 (type code "
            "0x02)");
  // Malformed input is the caller's, not a corrupt database.
  EXPECT_EQ(db_.error_code("SELECT tuple_unpack(x'15')"), SQLITE_ERROR);
}

// ---------------------------------------------------------------------------
// tuple_repr, tuple_strinc, tuple_range_begin, tuple_range_end

TEST_P(FunctionsTest, Repr) {
  EXPECT_EQ(value("SELECT tuple_repr(tuple_pack('CA', 'Alameda', 42, NULL, x'00', "
                  "tuple_bool(1), 1.5, tuple_pack(1, 2), tuple_pack(3)))"),
            "('CA', 'Alameda', 42, None, b'\\x00', True, 1.5, (1, 2), (3,))");
  EXPECT_EQ(value("SELECT tuple_repr(x'')"), "()");
  EXPECT_EQ(value("SELECT typeof(tuple_repr(NULL))"), "null");
  EXPECT_EQ(error("SELECT tuple_repr('a')"), "tuple_repr: argument must be a BLOB, got TEXT");
  EXPECT_EQ(error("SELECT tuple_repr(x'ff')"),
            "tuple_repr: malformed tuple: unknown type code at byte 0 (type code 0xff)");
}

TEST_P(FunctionsTest, StrincAndRanges) {
  EXPECT_EQ(value("SELECT hex(tuple_strinc(x'0102ff'))"), "0103");
  EXPECT_EQ(value("SELECT hex(tuple_strinc(x'01'))"), "02");
  EXPECT_EQ(value("SELECT hex(tuple_strinc(x'fe'))"), "FF");
  EXPECT_EQ(value("SELECT hex(tuple_strinc(tuple_pack('a')))"), "026101");
  EXPECT_EQ(value("SELECT hex(tuple_range_begin(tuple_pack('a')))"), "02610000");
  EXPECT_EQ(value("SELECT hex(tuple_range_end(tuple_pack('a')))"), "026100FF");
  EXPECT_EQ(value("SELECT hex(tuple_range_begin(x'')) || '|' || hex(tuple_range_end(x''))"),
            "00|FF");
  for (const char* fn : {"tuple_strinc", "tuple_range_begin", "tuple_range_end"}) {
    EXPECT_EQ(value(std::string("SELECT typeof(") + fn + "(NULL))"), "null") << fn;
    EXPECT_EQ(error(std::string("SELECT ") + fn + "('a')"),
              std::string(fn) + ": argument must be a BLOB, got TEXT");
  }
  // Every key under ('CA',) and nothing else lies in the range.
  ASSERT_TRUE(db_.exec(
      "CREATE TABLE k(k BLOB PRIMARY KEY) WITHOUT ROWID;"
      "INSERT INTO k VALUES (tuple_pack('CA')), (tuple_pack('CA', 1)), (tuple_pack('CA', 'x')),"
      "  (tuple_pack('CA', NULL)), (tuple_pack('CB')), (tuple_pack('C')), (tuple_pack('CA\x01'));"));
  EXPECT_EQ(db_.rows("SELECT tuple_repr(k) FROM k WHERE k >= tuple_range_begin(tuple_pack('CA'))"
                     " AND k < tuple_range_end(tuple_pack('CA')) ORDER BY k"),
            (Rows{{"('CA', None)"}, {"('CA', 'x')"}, {"('CA', 1)"}}));  // tuple order
  EXPECT_EQ(db_.rows("SELECT tuple_repr(k) FROM k WHERE k >= tuple_pack('CA')"
                     " AND k < tuple_strinc(tuple_pack('CA')) ORDER BY k"),
            (Rows{{"('CA',)"}, {"('CA', None)"}, {"('CA', 'x')"}, {"('CA', 1)"}}));
  // strinc takes any bytes; a key of only FF bytes has no successor.
  EXPECT_EQ(error("SELECT tuple_strinc(x'')"),
            "tuple_strinc: key must contain a byte other than 0xff");
  EXPECT_EQ(error("SELECT tuple_strinc(x'ffff')"),
            "tuple_strinc: key must contain a byte other than 0xff");
  // The range functions take packed tuples only.
  EXPECT_EQ(error("SELECT tuple_range_end(x'16')"),
            "tuple_range_end: malformed tuple: truncated integer at byte 0 (type code 0x16)");
  EXPECT_EQ(error("SELECT tuple_range_begin(x'ff')"),
            "tuple_range_begin: malformed tuple: unknown type code at byte 0 (type code 0xff)");
}

TEST_P(FunctionsTest, MapKey) {
  // An index entry ('i', 'west', 7) maps to its row ('r', 7): drop the 3
  // bytes of ('i',) and one element, put ('r',) in front.
  EXPECT_EQ(value("SELECT tuple_repr(tuplekv_map_key(tuple_pack('i', 'west', 7), 3, 1, "
                  "tuple_pack('r')))"),
            "('r', 7)");
  EXPECT_EQ(value("SELECT tuple_repr(tuplekv_map_key(tuple_pack('i', tuple_pack(1, 2), 'x', 7, 8),"
                  " 3, 2, x''))"),
            "(7, 8)");
  EXPECT_EQ(value("SELECT hex(tuplekv_map_key(x'0102', 0, 0, x'ff'))"), "FF0102");
  EXPECT_EQ(value("SELECT hex(tuplekv_map_key(x'0102', 2, 0, x''))"), "");
  // Keys that map to nothing give NULL, as does a NULL key or prefix.
  for (const char* sql : {"SELECT typeof(tuplekv_map_key(x'0102', 3, 0, x''))",
                          "SELECT typeof(tuplekv_map_key(tuple_pack('i', 'west'), 3, 2, x''))",
                          "SELECT typeof(tuplekv_map_key(x'02690002776573', 3, 1, x''))",
                          "SELECT typeof(tuplekv_map_key(x'026900ff', 3, 1, x''))",
                          "SELECT typeof(tuplekv_map_key(NULL, 3, 1, x''))",
                          "SELECT typeof(tuplekv_map_key(x'00', 0, 0, NULL))"}) {
    EXPECT_EQ(value(sql), "null") << sql;
  }
  EXPECT_EQ(error("SELECT tuplekv_map_key('k', 0, 0, x'')"),
            "tuplekv_map_key: argument must be a BLOB, got TEXT");
  EXPECT_EQ(error("SELECT tuplekv_map_key(x'00', -1, 0, x'')"),
            "tuplekv_map_key: a count must not be negative, got -1");
  EXPECT_EQ(error("SELECT tuplekv_map_key(x'00', 0, 1.5, x'')"),
            "tuplekv_map_key: argument must be an INTEGER, got REAL");
  EXPECT_EQ(error("SELECT tuplekv_map_key(x'00', 0, 0, 'p')"),
            "tuplekv_map_key: argument must be a BLOB, got TEXT");
}

// ---------------------------------------------------------------------------
// Typed element makers

TEST_P(FunctionsTest, Bool) {
  EXPECT_EQ(value("SELECT hex(tuple_bool(1)) || hex(tuple_bool(0)) || hex(tuple_bool(-7))"),
            "272627");
  EXPECT_EQ(value("SELECT hex(tuple_bool(0.0)) || hex(tuple_bool(0.5))"), "2627");
  EXPECT_EQ(value("SELECT hex(tuple_bool('true')) || hex(tuple_bool('FALSE')) || "
                  "hex(tuple_bool('True'))"),
            "272627");
  EXPECT_EQ(value("SELECT hex(tuple_bool(tuple_bool(1)))"), "27");
  EXPECT_EQ(value("SELECT typeof(tuple_bool(NULL))"), "null");
  EXPECT_EQ(error("SELECT tuple_bool('yes')"), "tuple_bool: text must be 'true' or 'false'");
  EXPECT_EQ(error("SELECT tuple_bool(x'01')"),
            "tuple_bool: argument must be INTEGER, REAL or TEXT 'true'/'false', got BLOB");
  EXPECT_EQ(error("SELECT tuple_bool(tuple_uuid(zeroblob(16)))"),
            "tuple_bool: argument must be INTEGER, REAL or TEXT 'true'/'false', got BLOB");
}

TEST_P(FunctionsTest, Uuid) {
  const std::string expect = "3000112233445566778899AABBCCDDEEFF";
  EXPECT_EQ(value("SELECT hex(tuple_uuid('00112233-4455-6677-8899-aabbccddeeff'))"), expect);
  EXPECT_EQ(value("SELECT hex(tuple_uuid('00112233445566778899AABBCCDDEEFF'))"), expect);
  EXPECT_EQ(value("SELECT hex(tuple_uuid(x'00112233445566778899aabbccddeeff'))"), expect);
  EXPECT_EQ(value("SELECT hex(tuple_uuid(tuple_uuid(x'00112233445566778899aabbccddeeff')))"),
            expect);
  EXPECT_EQ(value("SELECT typeof(tuple_uuid(NULL))"), "null");
  EXPECT_EQ(error("SELECT tuple_uuid('xyz')"),
            "tuple_uuid: text must be 32 hex digits or 8-4-4-4-12 with dashes");
  EXPECT_EQ(error("SELECT tuple_uuid('{00112233-4455-6677-8899-aabbccddeeff}')"),
            "tuple_uuid: text must be 32 hex digits or 8-4-4-4-12 with dashes");
  EXPECT_EQ(error("SELECT tuple_uuid(x'00')"),
            "tuple_uuid: BLOB must be exactly 16 bytes (got 1)");
  EXPECT_EQ(error("SELECT tuple_uuid(1)"),
            "tuple_uuid: argument must be TEXT or a 16-byte BLOB, got INTEGER");
}

TEST_P(FunctionsTest, Float) {
  EXPECT_EQ(value("SELECT hex(tuple_float(1.5))"), "20BFC00000");
  EXPECT_EQ(value("SELECT hex(tuple_float(1))"), "20BF800000");
  EXPECT_EQ(value("SELECT hex(tuple_float(-0.0))"), "207FFFFFFF");
  // Rounded to the nearest float32: 0.1 is 0x3dcccccd.
  EXPECT_EQ(value("SELECT hex(tuple_float(0.1))"), "20BDCCCCCD");
  EXPECT_EQ(value("SELECT hex(tuple_float('0.1'))"), "20BDCCCCCD");
  EXPECT_EQ(value("SELECT hex(tuple_float(16777217))"), "20CB800000");  // ties to even
  // The largest finite float32, and the rounding edge just below infinity.
  EXPECT_EQ(value("SELECT hex(tuple_float(3.4028235e38))"), "20FF7FFFFF");
  EXPECT_EQ(value("SELECT hex(tuple_float(3.4028235677973362e38))"), "20FF7FFFFF");
  EXPECT_EQ(value("SELECT hex(tuple_float('nan')) || hex(tuple_float('inf')) || "
                  "hex(tuple_float('-inf'))"),
            "20FFC00000" "20FF800000" "20007FFFFF");
  EXPECT_EQ(value("SELECT hex(tuple_float('0x7fc00001')) || hex(tuple_float('0X80000000'))"),
            "20FFC00001" "207FFFFFFF");
  EXPECT_EQ(value("SELECT tuple_unpack(tuple_pack(tuple_float(0.1), tuple_float('-0.0')))"),
            "[{\"$float\":0.1},{\"$float\":\"-0.0\"}]");
  EXPECT_EQ(value("SELECT hex(tuple_float(tuple_float(2)))"), "20C0000000");
  EXPECT_EQ(value("SELECT typeof(tuple_float(NULL))"), "null");
  EXPECT_EQ(error("SELECT tuple_float(1e300)"), "tuple_float: 1e+300 is out of float32 range");
  EXPECT_EQ(error("SELECT tuple_float(3.4028235677973366e38)"),
            "tuple_float: 3.4028235677973366e+38 is out of float32 range");
  EXPECT_EQ(error("SELECT tuple_float('1e300')"), "tuple_float: '1e300' is out of float32 range");
  EXPECT_EQ(error("SELECT tuple_float('1e-300')"),
            "tuple_float: '1e-300' is out of float32 range");
  EXPECT_EQ(error("SELECT tuple_float('abc')"),
            "tuple_float: text must be a decimal number, 'nan', 'inf', '-inf' or '0x' and 8 hex "
            "digits");
  EXPECT_EQ(error("SELECT tuple_float(' 1')"),
            "tuple_float: text must be a decimal number, 'nan', 'inf', '-inf' or '0x' and 8 hex "
            "digits");
  EXPECT_EQ(error("SELECT tuple_float('')"),
            "tuple_float: text must be a decimal number, 'nan', 'inf', '-inf' or '0x' and 8 hex "
            "digits");
  EXPECT_EQ(error("SELECT tuple_float('0x7fc0')"),
            "tuple_float: raw bits must be '0x' and 8 hex digits");
  EXPECT_EQ(error("SELECT tuple_float('0x7fc0000g')"),
            "tuple_float: raw bits must be '0x' and 8 hex digits");
  EXPECT_EQ(error("SELECT tuple_float(x'00')"),
            "tuple_float: argument must be INTEGER, REAL or TEXT, got BLOB");
  EXPECT_EQ(error("SELECT tuple_float('" + std::string(100, '9') + "')"),
            "tuple_float: '" + std::string(40, '9') + "...' is out of float32 range");
}

TEST_P(FunctionsTest, Bigint) {
  EXPECT_EQ(value("SELECT hex(tuple_bigint('18446744073709551616'))"), "1D09010000000000000000");
  EXPECT_EQ(value("SELECT hex(tuple_bigint('-18446744073709551616'))"),
            "0BF6FEFFFFFFFFFFFFFFFF");
  EXPECT_EQ(value("SELECT hex(tuple_bigint('+5')) || hex(tuple_bigint(5)) || "
                  "hex(tuple_bigint('-0'))"),
            "150515" "05" "14");
  EXPECT_EQ(value("SELECT tuple_unpack(tuple_pack(tuple_bigint("
                  "'-123456789012345678901234567890')))"),
            "[-123456789012345678901234567890]");
  EXPECT_EQ(value("SELECT hex(tuple_bigint(tuple_bigint('18446744073709551616')))"),
            "1D09010000000000000000");
  // The largest magnitude: 2^2040 - 1 (615 digits); one more is refused.
  Result<BigInt> max = BigInt::from_magnitude(Bytes(255, '\xff'), false);
  ASSERT_TRUE(max.ok());
  std::string digits = max->to_decimal();
  EXPECT_EQ(value("SELECT lower(hex(tuple_bigint('" + digits + "')))"),
            "1dff" + std::string(510, 'f'));
  EXPECT_EQ(value("SELECT lower(hex(tuple_bigint('-" + digits + "')))"),
            "0b00" + std::string(510, '0'));
  digits.back() = static_cast<char>(digits.back() + 1);  // 2^2040
  EXPECT_EQ(error("SELECT tuple_bigint('" + digits + "')"),
            "tuple_bigint: value beyond 255 bytes (the tuple layer's limit)");
  EXPECT_EQ(value("SELECT typeof(tuple_bigint(NULL))"), "null");
  EXPECT_EQ(error("SELECT tuple_bigint('12a')"),
            "tuple_bigint: text must be decimal digits with an optional sign and no leading "
            "zeros, got '12a'");
  EXPECT_EQ(error("SELECT tuple_bigint('0012')"),
            "tuple_bigint: text must be decimal digits with an optional sign and no leading "
            "zeros, got '0012'");
  EXPECT_EQ(error("SELECT tuple_bigint('')"),
            "tuple_bigint: text must be decimal digits with an optional sign and no leading "
            "zeros, got ''");
  EXPECT_EQ(error("SELECT tuple_bigint('1e5')"),
            "tuple_bigint: text must be decimal digits with an optional sign and no leading "
            "zeros, got '1e5'");
  EXPECT_EQ(error("SELECT tuple_bigint('" + std::string(700, '9') + "')"),
            "tuple_bigint: value beyond 255 bytes (the tuple layer's limit)");
  EXPECT_EQ(error("SELECT tuple_bigint('" + std::string(100, 'x') + "')"),
            "tuple_bigint: text must be decimal digits with an optional sign and no leading "
            "zeros, got '" + std::string(40, 'x') + "...'");
  // Quoted input never carries bytes that are not UTF-8 into the message.
  EXPECT_EQ(error("SELECT tuple_bigint(CAST(x'41ff0a42' AS TEXT))"),
            "tuple_bigint: text must be decimal digits with an optional sign and no leading "
            "zeros, got 'A\\xff\\x0aB'");
  EXPECT_EQ(error("SELECT tuple_bigint(1.5)"),
            "tuple_bigint: argument must be TEXT (decimal digits) or INTEGER, got REAL");
  EXPECT_EQ(error("SELECT tuple_bigint(tuple_bool(1))"),
            "tuple_bigint: argument must be TEXT (decimal digits) or INTEGER, got BLOB");
}

TEST_P(FunctionsTest, Versionstamp) {
  EXPECT_EQ(value("SELECT hex(tuple_versionstamp(x'0102030405060708090a0b0c'))"),
            "330102030405060708090A0B0C");
  EXPECT_EQ(value("SELECT hex(tuple_versionstamp('0102030405060708090A0B0C'))"),
            "330102030405060708090A0B0C");
  EXPECT_EQ(value("SELECT hex(tuple_versionstamp(tuple_versionstamp('0102030405060708090a0b0c')))"),
            "330102030405060708090A0B0C");
  // An incomplete one can be made and read back, but not packed.
  EXPECT_EQ(value("SELECT tuple_unpack(tuple_versionstamp('ffffffffffffffffffff0007'))"),
            "[{\"$versionstamp\":\"ffffffffffffffffffff0007\"}]");
  EXPECT_EQ(value("SELECT typeof(tuple_versionstamp(NULL))"), "null");
  EXPECT_EQ(error("SELECT tuple_versionstamp(x'00')"),
            "tuple_versionstamp: BLOB must be exactly 12 bytes (got 1)");
  EXPECT_EQ(error("SELECT tuple_versionstamp('00')"),
            "tuple_versionstamp: text must be 24 hex digits");
  EXPECT_EQ(error("SELECT tuple_versionstamp(1)"),
            "tuple_versionstamp: argument must be a 12-byte BLOB or TEXT of 24 hex digits, got "
            "INTEGER");
}

TEST_P(FunctionsTest, BadInputLeavesStoredDataUnchanged) {
  ASSERT_TRUE(db_.exec("CREATE TABLE t(k BLOB PRIMARY KEY, j TEXT) WITHOUT ROWID;"
                       "INSERT INTO t VALUES (tuple_pack(1), '[1]'), (tuple_pack(2), '[2]');"));
  const Rows before = db_.rows("SELECT hex(k), j FROM t ORDER BY k");
  // A multi-row INSERT whose second row is bad inserts nothing.
  EXPECT_EQ(error("WITH v(j) AS (VALUES ('[3]'), ('[3,'), ('[4]')) "
                  "INSERT INTO t SELECT tuple_pack_json(j), j FROM v"),
            "tuple_pack_json: invalid JSON at byte 3: unclosed array or object at the end of "
            "the input");
  EXPECT_EQ(error("UPDATE t SET k = tuple_pack_json(CASE WHEN j = '[2]' THEN '[{}]' ELSE "
                  "'[9]' END)"),
            "tuple_pack_json: element 0 at byte 1: empty object (objects must be tagged values "
            "such as {\"$bytes\":\"00ff\"})");
  EXPECT_EQ(error("UPDATE t SET j = tuple_unpack(CAST(k || x'ff' AS BLOB))"),
            "tuple_unpack: malformed tuple: unknown type code at byte 2 (type code 0xff)");
  EXPECT_EQ(error("INSERT INTO t VALUES (tuple_pack(CAST(x'ff' AS TEXT)), 'x')"),
            "tuple_pack: argument 1: TEXT is not valid UTF-8");
  EXPECT_EQ(db_.rows("SELECT hex(k), j FROM t ORDER BY k"), before);
}

// ---------------------------------------------------------------------------
// The golden vectors through SQL

// The value of "name":"..." in a line of the vectors file ("" if absent).
std::string string_field(const std::string& line, const std::string& name) {
  const std::string key = "\"" + name + "\":\"";
  const size_t at = line.find(key);
  if (at == std::string::npos) return "";
  const size_t start = at + key.size();
  return line.substr(start, line.find('"', start) - start);
}

TEST_P(FunctionsTest, GoldenVectorsRoundTripThroughSql) {
  std::ifstream in(testing::shared_path("tuple-vectors.jsonl"));
  ASSERT_TRUE(in);
  const Stmt owned = prepare("SELECT tuple_pack_json(tuple_unpack(?1)), tuple_unpack(?1)");
  sqlite3_stmt* stmt = owned.get();
  ASSERT_NE(stmt, nullptr);
  int blobs = 0, python_checked = 0;
  std::string line;
  while (std::getline(in, line)) {
    const bool python = line.find("\"python-1296\"") != std::string::npos;
    for (const char* field : {"hex", "hex_a", "hex_b"}) {
      if (line.find(std::string("\"") + field + "\":") == std::string::npos) continue;
      const std::string hex = string_field(line, field);
      Bytes packed;
      ASSERT_TRUE(from_hex(hex, &packed)) << hex;
      sqlite3_reset(stmt);
      sqlite3_bind_blob(stmt, 1, packed.data(), static_cast<int>(packed.size()), SQLITE_STATIC);
      ASSERT_EQ(sqlite3_step(stmt), SQLITE_ROW) << hex << ": " << sqlite3_errmsg(db_.handle());
      const auto* p = static_cast<const char*>(sqlite3_column_blob(stmt, 0));
      const Bytes again(p == nullptr ? "" : p, static_cast<size_t>(sqlite3_column_bytes(stmt, 0)));
      ASSERT_EQ(to_hex(again), hex)
          << "via " << reinterpret_cast<const char*>(sqlite3_column_text(stmt, 1));
      ++blobs;
      if (!python) continue;
      // Python's spelling of +-(2^64-1) unpacks to the same JSON and
      // re-packs canonically.
      const std::string json = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 1));
      std::string py_hex = hex;
      for (auto [canon, py] : {std::pair<std::string, std::string>{"1cffffffffffffffff",
                                                                   "1d08ffffffffffffffff"},
                               {"0c0000000000000000", "0bf70000000000000000"}}) {
        for (size_t at = 0; (at = py_hex.find(canon, at)) != std::string::npos; at += py.size()) {
          if (at % 2 == 0) py_hex.replace(at, canon.size(), py);
        }
      }
      if (py_hex == hex) continue;
      Tuple canonical_tuple, py_tuple;
      Bytes py_bytes;
      ASSERT_TRUE(from_hex(py_hex, &py_bytes));
      if (!unpack(py_bytes, &py_tuple).ok() || !unpack(packed, &canonical_tuple).ok() ||
          py_tuple != canonical_tuple) {
        continue;  // the pattern was part of another element's bytes
      }
      ++python_checked;
      EXPECT_EQ(value("SELECT tuple_unpack(x'" + py_hex + "')"), json);
      EXPECT_EQ(value("SELECT lower(hex(tuple_pack_json(tuple_unpack(x'" + py_hex + "'))))"),
                hex);
    }
  }
  EXPECT_EQ(blobs, 1429 + 2 * 571);
  EXPECT_GE(python_checked, 18);
}

// ---------------------------------------------------------------------------
// Random input through every function: results or errors, never a crash

// Runs `sql` with ?1 bound to `arg`; checks that it either succeeds or fails
// with SQLITE_ERROR and a message starting with the function's name.
// Returns whether it succeeded.
bool run_one(sqlite3* db, sqlite3_stmt* stmt, const std::string& fn, const Bytes& arg,
             bool as_text) {
  sqlite3_reset(stmt);
  if (as_text) {
    sqlite3_bind_text(stmt, 1, arg.data(), static_cast<int>(arg.size()), SQLITE_STATIC);
  } else {
    sqlite3_bind_blob(stmt, 1, arg.data(), static_cast<int>(arg.size()), SQLITE_STATIC);
  }
  int rc;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
  }
  if (rc == SQLITE_DONE) return true;
  const std::string msg = sqlite3_errmsg(db);
  EXPECT_EQ(sqlite3_extended_errcode(db), SQLITE_ERROR) << fn << "(" << to_hex(arg) << "): " << msg;
  EXPECT_EQ(msg.substr(0, fn.size() + 2), fn + ": ") << to_hex(arg) << ": " << msg;
  return false;
}

Bytes random_blob(std::mt19937_64& rng) {
  static constexpr uint8_t kCodes[] = {0x00, 0x01, 0x02, 0x05, 0x0b, 0x0c, 0x13, 0x14, 0x15,
                                       0x1c, 0x1d, 0x20, 0x21, 0x26, 0x27, 0x30, 0x33, 0x40,
                                       0x4f, 0xff, 0x00, 0x15};
  Bytes b;
  const size_t n = rng() % 40;
  for (size_t k = 0; k < n; ++k) {
    b.push_back(static_cast<char>(rng() % 3 == 0 ? rng() : kCodes[rng() % sizeof kCodes]));
  }
  return b;
}

TEST_P(FunctionsTest, RandomBlobsThroughEveryFunction) {
  const std::vector<std::string> fns = {
      "tuple_unpack", "tuple_repr",  "tuple_strinc",    "tuple_range_begin", "tuple_range_end",
      "tuple_bool",   "tuple_uuid",  "tuple_float",     "tuple_bigint",      "tuple_versionstamp",
      "tuple_pack",   "tuple_each",  "tuple_pack_json", "tuplekv_map_key"};
  std::vector<Stmt> stmts;
  for (const std::string& fn : fns) {
    stmts.push_back(prepare(fn == "tuple_each"        ? "SELECT * FROM tuple_each(?1)"
                            : fn == "tuplekv_map_key" ? "SELECT tuplekv_map_key(?1, 1, 2, x'0272')"
                                                      : "SELECT " + fn + "(?1)"));
    ASSERT_NE(stmts.back(), nullptr);
  }
  const Stmt owned = prepare("SELECT tuple_pack_json(tuple_unpack(?1))");
  sqlite3_stmt* round_trip = owned.get();
  ASSERT_NE(round_trip, nullptr);
  std::mt19937_64 rng(GetParam() == Load::kRegister ? 1 : 2);
  int valid = 0;
  for (int i = 0; i < 4000; ++i) {
    const Bytes b = random_blob(rng);
    for (size_t f = 0; f < fns.size(); ++f) {
      // As a BLOB, and as TEXT (the JSON parser and the text forms).
      run_one(db_.handle(), stmts[f].get(), fns[f], b, false);
      run_one(db_.handle(), stmts[f].get(), fns[f], b, true);
    }
    Tuple t;
    if (!unpack(b, &t).ok()) continue;
    ++valid;
    sqlite3_reset(round_trip);
    sqlite3_bind_blob(round_trip, 1, b.data(), static_cast<int>(b.size()), SQLITE_STATIC);
    ASSERT_EQ(sqlite3_step(round_trip), SQLITE_ROW) << to_hex(b);
    const auto* p = static_cast<const char*>(sqlite3_column_blob(round_trip, 0));
    const Bytes again(p == nullptr ? "" : p,
                      static_cast<size_t>(sqlite3_column_bytes(round_trip, 0)));
    Bytes expect;
    ASSERT_TRUE(pack_allow_incomplete(t, &expect).ok());
    ASSERT_EQ(to_hex(again), to_hex(expect)) << to_hex(b);
  }
  EXPECT_GT(valid, 100);
}

TEST_P(FunctionsTest, RandomJsonThroughPackJson) {
  static const char* const kTokens[] = {
      "[", "]", "[", "]", ",", ",", "1", "-0", "1.5e3", "1e400", "\"a\"", "\"\\u0000\"",
      "\"\\ud800\"", "null", "true", "false", "{", "}", ":", "\"$bytes\"", "\"00ff\"",
      "\"$user\"", "64", "\"data\"", "\"$float\"", "\"$double\"", "\"nan\"", "\"-0.0\"",
      "\"$uuid\"", "\"$versionstamp\"", " ", "\xC3", "\x01", "18446744073709551616"};
  const Stmt owned = prepare(
      "SELECT tuple_pack_json(?1) IS NOT NULL AND "
      "tuple_pack_json(tuple_unpack(tuple_pack_json(?1))) = tuple_pack_json(?1)");
  sqlite3_stmt* stmt = owned.get();
  ASSERT_NE(stmt, nullptr);
  std::mt19937_64 rng(GetParam() == Load::kRegister ? 3 : 4);
  int parsed = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string json = "[";
    const size_t n = rng() % 12;
    for (size_t k = 0; k < n; ++k) json += kTokens[rng() % (sizeof kTokens / sizeof *kTokens)];
    if (rng() % 2) json += "]";
    sqlite3_reset(stmt);
    sqlite3_bind_text(stmt, 1, json.data(), static_cast<int>(json.size()), SQLITE_STATIC);
    const int rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW) {
      ++parsed;
      EXPECT_EQ(sqlite3_column_int(stmt, 0), 1) << json;
    } else {
      const std::string msg = sqlite3_errmsg(db_.handle());
      EXPECT_EQ(sqlite3_extended_errcode(db_.handle()), SQLITE_ERROR) << json << ": " << msg;
      EXPECT_EQ(msg.substr(0, 17), "tuple_pack_json: ") << json << ": " << msg;
    }
  }
  EXPECT_GT(parsed, 500);
}

}  // namespace
}  // namespace tuplekv
