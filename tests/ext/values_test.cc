// ext/values.h: SQL values <-> tuple elements, and the subtypes that carry
// tuple types between functions. The conversions are driven through small
// test-only SQL functions registered on a connection, so real
// sqlite3_values (with and without subtypes) go in and real results come
// out.
#include "ext/values.h"

#include <gtest/gtest.h>

#include <string>

#include "core/tuple_json.h"
#include "tests/testutil.h"

namespace tuplekv::ext {
namespace {

using testing::Db;
using testing::Rows;

// test_element(v): value_to_element(v, honor_subtypes=true) as
// "<type>:<repr>", or the error message as an SQL error.
// test_plain_element(v): the same with honor_subtypes=false.
template <bool kHonor>
void test_element(sqlite3_context* ctx, int, sqlite3_value** argv) {
  TupleValue v;
  const Status s = value_to_element(argv[0], kHonor, &v);
  if (!s.ok()) {
    sqlite3_result_error(ctx, s.message().c_str(), -1);
    return;
  }
  result_text(ctx, std::string(element_type_name(v.type())) + ":" + repr(v));
}

// test_tag(blob, subtype): the blob with that subtype.
void test_tag(sqlite3_context* ctx, int, sqlite3_value** argv) {
  sqlite3_result_value(ctx, argv[0]);
  sqlite3_result_subtype(ctx, static_cast<unsigned>(sqlite3_value_int(argv[1])));
}

// test_subtype(v): the subtype of its argument.
void test_subtype(sqlite3_context* ctx, int, sqlite3_value** argv) {
  sqlite3_result_int(ctx, static_cast<int>(sqlite3_value_subtype(argv[0])));
}

// test_result(json): result_element() of the single element in `json`.
void test_result(sqlite3_context* ctx, int, sqlite3_value** argv) {
  Tuple t;
  const std::string json(reinterpret_cast<const char*>(sqlite3_value_text(argv[0])),
                         static_cast<size_t>(sqlite3_value_bytes(argv[0])));
  Status s = tuple_from_json(json, &t);
  if (s.ok() && t.size() != 1) s = Status::InvalidArgument("need one element");
  if (s.ok()) s = result_element(ctx, t[0]);
  if (!s.ok()) sqlite3_result_error(ctx, s.message().c_str(), -1);
}

// The packed form of the tuple in the JSON text `v`.
Status packed_from_json(sqlite3_value* v, Bytes* packed) {
  Tuple t;
  const std::string json(reinterpret_cast<const char*>(sqlite3_value_text(v)),
                         static_cast<size_t>(sqlite3_value_bytes(v)));
  TUPLEKV_RETURN_IF_ERROR(tuple_from_json(json, &t));
  return pack_allow_incomplete(t, packed);
}

// test_packed_result(json): result_packed_element() of the packed form of
// the single element in `json`; the same element through the fast path.
void test_packed_result(sqlite3_context* ctx, int, sqlite3_value** argv) {
  Bytes packed;
  Status s = packed_from_json(argv[0], &packed);
  BytesView in = packed;
  if (s.ok()) s = result_packed_element(ctx, &in);
  if (s.ok() && !in.empty()) s = Status::InvalidArgument("bytes left after the element");
  if (!s.ok()) sqlite3_result_error(ctx, s.message().c_str(), -1);
}

// test_scalar_result(json): result_scalar_element() of the packed single
// element in `json`, or the text 'not scalar' where decode_scalar_element()
// leaves it to the general path.
void test_scalar_result(sqlite3_context* ctx, int, sqlite3_value** argv) {
  Bytes packed;
  const Status s = packed_from_json(argv[0], &packed);
  if (!s.ok()) return sqlite3_result_error(ctx, s.message().c_str(), -1);
  ScalarElement e;
  if (!decode_scalar_element(packed, &e)) return sqlite3_result_text(ctx, "not scalar", -1, nullptr);
  result_scalar_element(ctx, e);
}

// test_packed_raw(blob): result_packed_element() of arbitrary bytes.
void test_packed_raw(sqlite3_context* ctx, int, sqlite3_value** argv) {
  BytesView in(static_cast<const char*>(sqlite3_value_blob(argv[0])),
               static_cast<size_t>(sqlite3_value_bytes(argv[0])));
  const Status s = result_packed_element(ctx, &in);
  if (!s.ok()) sqlite3_result_error(ctx, s.message().c_str(), -1);
}

class ValuesTest : public ::testing::Test {
 protected:
  ValuesTest() {
    constexpr int kFlags = SQLITE_UTF8 | SQLITE_DETERMINISTIC;
    sqlite3* h = db_.handle();
    EXPECT_EQ(sqlite3_create_function_v2(h, "test_element", 1, kFlags | SQLITE_SUBTYPE, nullptr,
                                         test_element<true>, nullptr, nullptr, nullptr),
              SQLITE_OK);
    EXPECT_EQ(sqlite3_create_function_v2(h, "test_plain_element", 1, kFlags, nullptr,
                                         test_element<false>, nullptr, nullptr, nullptr),
              SQLITE_OK);
    EXPECT_EQ(sqlite3_create_function_v2(h, "test_tag", 2, kFlags, nullptr, test_tag, nullptr,
                                         nullptr, nullptr),
              SQLITE_OK);
    EXPECT_EQ(sqlite3_create_function_v2(h, "test_subtype", 1, kFlags | SQLITE_SUBTYPE, nullptr,
                                         test_subtype, nullptr, nullptr, nullptr),
              SQLITE_OK);
    EXPECT_EQ(sqlite3_create_function_v2(h, "test_result", 1, kFlags, nullptr, test_result,
                                         nullptr, nullptr, nullptr),
              SQLITE_OK);
    EXPECT_EQ(sqlite3_create_function_v2(h, "test_packed_result", 1, kFlags, nullptr,
                                         test_packed_result, nullptr, nullptr, nullptr),
              SQLITE_OK);
    EXPECT_EQ(sqlite3_create_function_v2(h, "test_scalar_result", 1, kFlags, nullptr,
                                         test_scalar_result, nullptr, nullptr, nullptr),
              SQLITE_OK);
    EXPECT_EQ(sqlite3_create_function_v2(h, "test_packed_raw", 1, kFlags, nullptr,
                                         test_packed_raw, nullptr, nullptr, nullptr),
              SQLITE_OK);
  }

  std::string value(const std::string& sql) { return db_.value(sql); }

  Db db_;
};

TEST_F(ValuesTest, SqlValuesBecomeElements) {
  EXPECT_EQ(value("SELECT test_element(NULL)"), "null:None");
  EXPECT_EQ(value("SELECT test_element(-7)"), "int:-7");
  EXPECT_EQ(value("SELECT test_element(1.5)"), "double:1.5");
  EXPECT_EQ(value("SELECT test_element('caf\xC3\xA9')"), "string:'caf\xC3\xA9'");
  EXPECT_EQ(value("SELECT test_element(x'00ff')"), "bytes:b'\\x00\\xff'");
  EXPECT_EQ(value("SELECT test_element(x'')"), "bytes:b''");
  EXPECT_EQ(value("SELECT test_element('')"), "string:''");
  EXPECT_EQ(value("SELECT test_element(CAST(x'610062' AS TEXT))"), "string:'a\\x00b'");
  EXPECT_EQ(db_.error("SELECT test_element(CAST(x'80' AS TEXT))"), "TEXT is not valid UTF-8");
}

TEST_F(ValuesTest, SubtypesCarryTupleTypes) {
  // 'E' (69): the BLOB is one encoded element.
  EXPECT_EQ(value("SELECT test_element(test_tag(x'27', 69))"), "bool:True");
  EXPECT_EQ(value("SELECT test_element(test_tag(x'05150100', 69))"), "tuple:(1,)");
  EXPECT_EQ(value("SELECT test_element(test_tag(x'00', 69))"), "null:None");
  // 'T' (84): the BLOB is a packed tuple, which becomes a nested tuple.
  EXPECT_EQ(value("SELECT test_element(test_tag(x'15010200', 84))"), "tuple:(1, '')");
  EXPECT_EQ(value("SELECT test_element(test_tag(x'', 84))"), "tuple:()");
  // The tuple functions' own results.
  EXPECT_EQ(value("SELECT test_element(tuple_uuid(zeroblob(16)))"),
            "uuid:UUID('00000000-0000-0000-0000-000000000000')");
  EXPECT_EQ(value("SELECT test_element(tuple_pack(1, 2))"), "tuple:(1, 2)");
  // Other subtypes, or subtypes not honoured: plain bytes.
  EXPECT_EQ(value("SELECT test_element(test_tag(x'27', 74))"), "bytes:b\"'\"");
  EXPECT_EQ(value("SELECT test_plain_element(test_tag(x'27', 69))"), "bytes:b\"'\"");
  EXPECT_EQ(value("SELECT test_plain_element(tuple_pack(1))"), "bytes:b'\\x15\\x01'");
  // A subtype on a non-BLOB means nothing.
  EXPECT_EQ(value("SELECT test_element(test_tag('x', 69))"), "string:'x'");
}

TEST_F(ValuesTest, TaggedBlobsThatDoNotDecodeAreErrors) {
  EXPECT_EQ(db_.error("SELECT test_element(test_tag(x'', 69))"),
            "BLOB tagged as a tuple element does not decode: empty BLOB");
  EXPECT_EQ(db_.error("SELECT test_element(test_tag(x'15011502', 69))"),
            "BLOB tagged as a tuple element does not decode: 2 bytes after the element");
  EXPECT_EQ(db_.error("SELECT test_element(test_tag(x'16', 69))"),
            "BLOB tagged as a tuple element does not decode: truncated integer at byte 0 (type "
            "code 0x16)");
  EXPECT_EQ(db_.error("SELECT test_element(test_tag(x'1501ff', 84))"),
            "BLOB tagged as a packed tuple does not decode: unknown type code at byte 2 (type "
            "code 0xff)");
}

TEST_F(ValuesTest, ElementsBecomeSqlValues) {
  auto row = [&](const std::string& json) {
    return db_.rows("SELECT typeof(v), v FROM (SELECT test_result('" + json + "') AS v)")[0];
  };
  EXPECT_EQ(row("[null]"), (testing::Row{"null", "NULL"}));
  EXPECT_EQ(row("[-7]"), (testing::Row{"integer", "-7"}));
  EXPECT_EQ(row("[18446744073709551616]"), (testing::Row{"text", "18446744073709551616"}));
  EXPECT_EQ(row("[1.5]"), (testing::Row{"real", "1.5"}));
  EXPECT_EQ(row("[{\"$float\":0.1}]"), (testing::Row{"real", "0.100000001490116"}));
  EXPECT_EQ(row("[{\"$double\":\"nan\"}]"), (testing::Row{"null", "NULL"}));
  EXPECT_EQ(row("[{\"$float\":\"0x7fc00001\"}]"), (testing::Row{"null", "NULL"}));
  EXPECT_EQ(row("[{\"$double\":\"-inf\"}]"), (testing::Row{"real", "-Inf"}));
  EXPECT_EQ(row("[\"a\\u0000b\"]"), (testing::Row{"text", std::string("a\0b", 3)}));
  EXPECT_EQ(row("[{\"$bytes\":\"00ff\"}]"), (testing::Row{"blob", "x'00FF'"}));
  EXPECT_EQ(row("[{\"$bytes\":\"\"}]"), (testing::Row{"blob", "x''"}));
  EXPECT_EQ(row("[\"\"]"), (testing::Row{"text", ""}));
  EXPECT_EQ(row("[true]"), (testing::Row{"integer", "1"}));
  EXPECT_EQ(row("[false]"), (testing::Row{"integer", "0"}));
  EXPECT_EQ(row("[{\"$uuid\":\"00112233445566778899aabbccddeeff\"}]"),
            (testing::Row{"text", "00112233-4455-6677-8899-aabbccddeeff"}));
  EXPECT_EQ(row("[{\"$versionstamp\":\"ffffffffffffffffffff0001\"}]"),
            (testing::Row{"blob", "x'FFFFFFFFFFFFFFFFFFFF0001'"}));
  EXPECT_EQ(row("[{\"$user\":64,\"data\":\"abcd\"}]"), (testing::Row{"blob", "x'ABCD'"}));
  // A nested tuple: its children packed as at top level, tagged 'T'.
  EXPECT_EQ(row("[[null,1,[null]]]"), (testing::Row{"blob", "x'0015010500FF00'"}));
  EXPECT_EQ(row("[[]]"), (testing::Row{"blob", "x''"}));
  EXPECT_EQ(value("SELECT test_subtype(test_result('[[1]]'))"), "84");
  EXPECT_EQ(value("SELECT test_subtype(test_result('[{\"$bytes\":\"00\"}]'))"), "0");
  // ... with incomplete versionstamps written as they are.
  EXPECT_EQ(value("SELECT hex(test_result('[[{\"$versionstamp\":\"ffffffffffffffffffff0001\"}]]'))"),
            "33FFFFFFFFFFFFFFFFFFFF0001");
}

// The per-row fast path gives exactly what result_element gives, for every
// element type, including the ones it hands to the general path.
TEST_F(ValuesTest, PackedElementsBecomeTheSameSqlValues) {
  const char* const kElements[] = {
      "null", "0", "-7", "255", "-256", "9223372036854775807", "-9223372036854775808",
      "18446744073709551616", "-18446744073709551616", "1.5", "-0.0", "1e308",
      "{\"$double\":\"nan\"}", "{\"$double\":\"-inf\"}", "{\"$float\":0.1}",
      "{\"$float\":\"0x7fc00001\"}", "\"\"", "\"abc\"", "\"a\\u0000b\"", "\"\u00e9\"",
      "{\"$bytes\":\"\"}", "{\"$bytes\":\"00ff\"}", "{\"$bytes\":\"ff\"}", "true", "false",
      "{\"$uuid\":\"00112233445566778899aabbccddeeff\"}",
      "{\"$versionstamp\":\"0102030405060708090a0b0c\"}",
      "{\"$user\":64,\"data\":\"abcd\"}", "[null,1,[null]]", "[]"};
  for (const char* e : kElements) {
    const std::string json = std::string("'[") + e + "]'";
    EXPECT_EQ(db_.rows("SELECT typeof(v), quote(v) FROM (SELECT test_packed_result(" + json +
                       ") AS v)"),
              db_.rows("SELECT typeof(v), quote(v) FROM (SELECT test_result(" + json + ") AS v)"))
        << e;
  }
  // The scalar path gives the same values for what it takes, and takes the
  // common kinds.
  int scalars = 0;
  for (const char* e : kElements) {
    const std::string json = std::string("'[") + e + "]'";
    const Rows got =
        db_.rows("SELECT typeof(v), quote(v) FROM (SELECT test_scalar_result(" + json + ") AS v)");
    if (got == Rows{{"text", "'not scalar'"}}) continue;
    ++scalars;
    EXPECT_EQ(got,
              db_.rows("SELECT typeof(v), quote(v) FROM (SELECT test_result(" + json + ") AS v)"))
        << e;
  }
  EXPECT_EQ(scalars, 15);  // not: 8-byte and big integers, floats, escapes, bools, ...
}

TEST_F(ValuesTest, PackedElementsThatDoNotDecodeAreErrors) {
  EXPECT_NE(db_.error("SELECT test_packed_raw(x'15')").find("byte 0"), std::string::npos);
  EXPECT_NE(db_.error("SELECT test_packed_raw(x'')").find("end of the input"),
            std::string::npos);
  EXPECT_NE(db_.error("SELECT test_packed_raw(x'02ff00')").find("UTF-8"), std::string::npos);
  EXPECT_NE(db_.error("SELECT test_packed_raw(x'0261')").find("byte"), std::string::npos);
  EXPECT_NE(db_.error("SELECT test_packed_raw(x'ee')").find("unknown type code"),
            std::string::npos);
}

TEST(ValuesHelpers, PackChildren) {
  Bytes out = "junk";
  ASSERT_TRUE(pack_children({TupleValue::null(), TupleValue::nested({TupleValue::null()})}, &out)
                  .ok());
  EXPECT_EQ(to_hex(out), "000500ff00");
  Versionstamp stamp;
  stamp.fill(0xFF);
  ASSERT_TRUE(pack_children({TupleValue::versionstamp(stamp)}, &out).ok());
  EXPECT_EQ(to_hex(out), "33ffffffffffffffffffffffff");
  EXPECT_EQ(pack_children({TupleValue::user(0x40, ""), TupleValue::null()}, &out).message(),
            "tuple: user type at element 0 is not the last element");
}

TEST(ValuesHelpers, CoreDetailDropsTheComponentPrefix) {
  EXPECT_EQ(core_detail(Status::InvalidArgument("tuple JSON: bad")), "bad");
  EXPECT_EQ(core_detail(Status::Corruption("tuple: truncated")), "truncated");
  EXPECT_EQ(core_detail(Status::InvalidArgument("bigint: too big")), "too big");
  EXPECT_EQ(core_detail(Status::InvalidArgument("strinc: empty")), "empty");
  EXPECT_EQ(core_detail(Status::InvalidArgument("other: kept")), "other: kept");
}

TEST(ValuesHelpers, StorageClassNames) {
  EXPECT_STREQ(storage_class_name(SQLITE_NULL), "NULL");
  EXPECT_STREQ(storage_class_name(SQLITE_INTEGER), "INTEGER");
  EXPECT_STREQ(storage_class_name(SQLITE_FLOAT), "REAL");
  EXPECT_STREQ(storage_class_name(SQLITE_TEXT), "TEXT");
  EXPECT_STREQ(storage_class_name(SQLITE_BLOB), "BLOB");
}

}  // namespace
}  // namespace tuplekv::ext
