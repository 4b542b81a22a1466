// ext/strict_values.h: STRICT coercion over real sqlite3_values (through a
// test-only SQL function, so SQLite's own numeric affinity and number
// rendering are what is exercised) and the error code a type error gets.
#include "ext/strict_values.h"

#include <gtest/gtest.h>

#include <string>

#include "core/bytes.h"
#include "tests/testutil.h"

namespace tuplekv::ext {
namespace {

using testing::Db;
using testing::Rows;

// test_coerce(type, v): the value a STRICT column of `type` stores for v,
// or the coerce() message as an SQL error.
void test_coerce(sqlite3_context* ctx, int, sqlite3_value** argv) {
  const std::string type(reinterpret_cast<const char*>(sqlite3_value_text(argv[0])));
  const std::optional<model::ColumnType> t = model::column_type_of(type);
  SqliteConversions conv;
  conv.set_source(argv[1]);
  model::SqlValue out;
  std::string buf;
  const Status s = model::coerce(*t, sql_value_of(argv[1]), &conv, "t", "c", &out, &buf,
                                 model::declared_type_label(type, *t));
  if (!s.ok()) {
    sqlite3_result_error(ctx, s.message().c_str(), -1);
    return;
  }
  switch (out.kind) {
    case model::SqlValue::Kind::kNull: sqlite3_result_null(ctx); break;
    case model::SqlValue::Kind::kInteger: sqlite3_result_int64(ctx, out.i); break;
    case model::SqlValue::Kind::kReal: sqlite3_result_double(ctx, out.r); break;
    case model::SqlValue::Kind::kText:
      sqlite3_result_text(ctx, out.bytes.data(), static_cast<int>(out.bytes.size()), SQLITE_TRANSIENT);
      break;
    case model::SqlValue::Kind::kBlob:
      sqlite3_result_blob(ctx, out.bytes.data(), static_cast<int>(out.bytes.size()), SQLITE_TRANSIENT);
      break;
  }
}

// test_fast_element(type, v): hex of the element append_value_of_its_type()
// writes for v, or NULL where it leaves v to the general path.
// test_element(type, v): hex of the element coerce() then append_element()
// write, or NULL where they fail.
void test_fast_element(sqlite3_context* ctx, int, sqlite3_value** argv) {
  const std::string type(reinterpret_cast<const char*>(sqlite3_value_text(argv[0])));
  Bytes out = "untouched";
  if (!append_value_of_its_type(*model::column_type_of(type), argv[1], TextRead::kUtf8AsStored, &out)) {
    if (out == "untouched") sqlite3_result_null(ctx);
    else sqlite3_result_error(ctx, "changed *out and returned false", -1);
    return;
  }
  const std::string hex = to_hex(BytesView(out).substr(9));
  sqlite3_result_text(ctx, hex.data(), static_cast<int>(hex.size()), SQLITE_TRANSIENT);
}
void test_element(sqlite3_context* ctx, int, sqlite3_value** argv) {
  const std::string type(reinterpret_cast<const char*>(sqlite3_value_text(argv[0])));
  const model::ColumnType t = *model::column_type_of(type);
  SqliteConversions conv;
  conv.set_source(argv[1]);
  model::SqlValue value;
  std::string buf;
  Bytes out;
  if (!model::coerce(t, sql_value_of(argv[1]), &conv, "t", "c", &value, &buf).ok() ||
      !model::append_element(value, &out).ok()) {
    sqlite3_result_null(ctx);
    return;
  }
  const std::string hex = to_hex(out);
  sqlite3_result_text(ctx, hex.data(), static_cast<int>(hex.size()), SQLITE_TRANSIENT);
}

class StrictValuesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(sqlite3_create_function(db_.handle(), "test_coerce", 2, SQLITE_UTF8, nullptr, test_coerce,
                                      nullptr, nullptr),
              SQLITE_OK);
    ASSERT_EQ(sqlite3_create_function(db_.handle(), "test_fast_element", 2, SQLITE_UTF8, nullptr,
                                      test_fast_element, nullptr, nullptr),
              SQLITE_OK);
    ASSERT_EQ(sqlite3_create_function(db_.handle(), "test_element", 2, SQLITE_UTF8, nullptr, test_element,
                                      nullptr, nullptr),
              SQLITE_OK);
  }
  Db db_;
};

TEST_F(StrictValuesTest, CoercesAsAStrictTable) {
  EXPECT_EQ(db_.rows("SELECT quote(test_coerce('INTEGER', '12')), quote(test_coerce('INTEGER', 3.0)),"
                     " quote(test_coerce('REAL', 2)), quote(test_coerce('REAL', ' 1e2 ')),"
                     " quote(test_coerce('TEXT', 1.5)), quote(test_coerce('TEXT', 7)),"
                     " quote(test_coerce('ANY', '12')), quote(test_coerce('BLOB', x'00'))"),
            (Rows{{"12", "3", "2.0", "100.0", "'1.5'", "'7'", "'12'", "X'00'"}}));
  EXPECT_EQ(db_.rows("SELECT quote(test_coerce('REAL', -0.0)), quote(test_coerce('INTEGER', NULL))"),
            (Rows{{"0.0", "NULL"}}));
}

// The fast path writes exactly what the general one writes, or leaves the
// value to it: every type against values of every kind, edge values
// included (-0.0, int64 extremes, NUL inside text and blobs, bad UTF-8).
TEST_F(StrictValuesTest, ValuesOfTheirTypeAreAppendedAsTheGeneralPathAppendsThem) {
  ASSERT_TRUE(db_.exec("CREATE TABLE v(x); INSERT INTO v VALUES (NULL), (0), (-1), (9223372036854775807), "
                       "(-9223372036854775808), (2.0), (-0.0), (0.0), (1.5), (1e300), (''), ('a'), ('12'), "
                       "(' 1e2 '), ('caf' || char(233)), (CAST(x'610062' AS TEXT)), (CAST(x'ff' AS TEXT)), "
                       "(x''), (x'00'), (x'0100ff'), (zeroblob(3))"));
  int fast = 0;
  for (const char* type : {"INTEGER", "REAL", "TEXT", "BLOB", "ANY"}) {
    const std::string t = std::string("'") + type + "'";
    const Rows rows = db_.rows("SELECT quote(x), test_fast_element(" + t + ", x), test_element(" + t +
                               ", x) FROM v");
    ASSERT_EQ(rows.size(), 21u);
    for (const auto& r : rows) {
      if (r[1] == "NULL") continue;  // left to the general path
      ++fast;
      EXPECT_EQ(r[1], r[2]) << type << " " << r[0];
    }
  }
  EXPECT_GE(fast, 5 * 5);  // NULL and each type's own values at least
  // What it leaves: other types, and text that is not UTF-8.
  EXPECT_EQ(db_.value("SELECT quote(test_fast_element('INTEGER', 2.0))"), "NULL");
  EXPECT_EQ(db_.value("SELECT quote(test_fast_element('REAL', 2))"), "NULL");
  EXPECT_EQ(db_.value("SELECT quote(test_fast_element('TEXT', 7))"), "NULL");
  EXPECT_EQ(db_.value("SELECT quote(test_fast_element('BLOB', 'a'))"), "NULL");
  EXPECT_EQ(db_.value("SELECT quote(test_fast_element('ANY', CAST(x'ff' AS TEXT)))"), "NULL");
  // -0.0 as REAL and as ANY.
  EXPECT_EQ(db_.value("SELECT test_fast_element('REAL', -0.0)"), "218000000000000000");
  EXPECT_EQ(db_.value("SELECT test_fast_element('ANY', -0.0)"), "217fffffffffffffff");
}

TEST_F(StrictValuesTest, ErrorsNameTheTypeAsDeclared) {
  EXPECT_EQ(db_.error("SELECT test_coerce('INTEGER', 'abc')"), "cannot store TEXT value in INTEGER column t.c");
  EXPECT_EQ(db_.error("SELECT test_coerce('INT', 2.5)"), "cannot store REAL value in INT column t.c");
  EXPECT_EQ(db_.error("SELECT test_coerce('VARCHAR', x'00')"), "cannot store BLOB value in TEXT column t.c");
  EXPECT_EQ(db_.error("SELECT test_coerce('BLOB', 'x')"), "cannot store TEXT value in BLOB column t.c");
}

TEST_F(StrictValuesTest, TypeErrorCodeFollowsTheConflictClause) {
  sqlite3* db = db_.handle();
  const int datatype = SQLITE_CONSTRAINT_DATATYPE;
  EXPECT_EQ(strict_type_error_code(db, SQLITE_ABORT, datatype), datatype);
  EXPECT_EQ(strict_type_error_code(db, SQLITE_REPLACE, datatype), datatype);
  EXPECT_EQ(strict_type_error_code(db, SQLITE_IGNORE, datatype), SQLITE_MISMATCH);
  EXPECT_EQ(strict_type_error_code(db, SQLITE_ROLLBACK, datatype), SQLITE_MISMATCH);
  EXPECT_EQ(strict_type_error_code(db, SQLITE_FAIL, datatype), SQLITE_MISMATCH);  // autocommit
  ASSERT_TRUE(db_.exec("BEGIN"));
  EXPECT_EQ(strict_type_error_code(db, SQLITE_FAIL, datatype), datatype);
  ASSERT_TRUE(db_.exec("COMMIT"));
}

}  // namespace
}  // namespace tuplekv::ext
