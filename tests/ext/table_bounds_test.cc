// ext/table_bounds.h: SQL values as bounds in a tuplekv_table candidate's
// key elements. number_bound() is checked against the elements it must
// give, at the edges where INTEGER and REAL disagree; TableValueReader
// with real sqlite3_values from a statement, for each column type.
#include "ext/table_bounds.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/model/collation_key.h"
#include "core/tuple.h"
#include "tests/testutil.h"

namespace tuplekv::ext::table {
namespace {

using Kind = FilterValue::Kind;

Bytes int_element(int64_t i) {
  Bytes b;
  append_int64_element(i, &b);
  return b;
}
Bytes double_element(double d) {
  Bytes b;
  append_double_element(d, &b);
  return b;
}
Bytes text_element(const std::string& s) {
  model::SqlValue v;
  v.kind = model::SqlValue::Kind::kText;
  v.bytes = s;
  Bytes b;
  EXPECT_TRUE(model::append_element(v, &b).ok());
  return b;
}

FilterValue bound(PlanOp op, int type, int64_t i, double r, bool int_column) {
  FilterValue out;
  EXPECT_TRUE(number_bound(op, type, i, r, int_column, &out).ok());
  return out;
}

// The bound an INTEGER column gets from a REAL: `a > 2.5` is `a > 2`, and
// `a >= 2.5` is `a >= 3`; only an integral REAL equals an integer.
TEST(NumberBoundTest, RealAgainstAnIntegerColumnRoundsToTheSideThatKeepsTheAnswer) {
  struct Case {
    PlanOp op;
    double r;
    Bytes want;
  };
  for (const Case& c : {Case{PlanOp::kGt, 2.5, int_element(2)}, Case{PlanOp::kLe, 2.5, int_element(2)},
                        Case{PlanOp::kGe, 2.5, int_element(3)}, Case{PlanOp::kLt, 2.5, int_element(3)},
                        Case{PlanOp::kGt, -2.5, int_element(-3)}, Case{PlanOp::kGe, -2.5, int_element(-2)},
                        Case{PlanOp::kEq, 3.0, int_element(3)}, Case{PlanOp::kIn, -7.0, int_element(-7)},
                        Case{PlanOp::kGe, -9223372036854775808.0, int_element(INT64_MIN)}}) {
    SCOPED_TRACE(std::to_string(static_cast<int>(c.op)) + " " + std::to_string(c.r));
    const FilterValue b = bound(c.op, SQLITE_FLOAT, 0, c.r, true);
    EXPECT_EQ(b.kind, Kind::kBytes);
    EXPECT_EQ(b.bytes, c.want);
  }
  EXPECT_EQ(bound(PlanOp::kEq, SQLITE_FLOAT, 0, 2.5, true).kind, Kind::kNull);
  EXPECT_EQ(bound(PlanOp::kIn, SQLITE_FLOAT, 0, 0.1, true).kind, Kind::kNull);
  EXPECT_EQ(bound(PlanOp::kEq, SQLITE_INTEGER, 42, 42.0, true).bytes, int_element(42));
}

TEST(NumberBoundTest, RealsBeyondInt64AreAboveOrBelowEveryInteger) {
  const double big = 9223372036854775808.0;  // 2^63: above INT64_MAX
  EXPECT_EQ(bound(PlanOp::kGt, SQLITE_FLOAT, 0, big, true).kind, Kind::kNull);  // nothing is above
  EXPECT_EQ(bound(PlanOp::kGe, SQLITE_FLOAT, 0, big, true).kind, Kind::kNull);
  EXPECT_EQ(bound(PlanOp::kEq, SQLITE_FLOAT, 0, big, true).kind, Kind::kNull);
  EXPECT_EQ(bound(PlanOp::kLt, SQLITE_FLOAT, 0, big, true).kind, Kind::kAboveAll);  // everything is below
  EXPECT_EQ(bound(PlanOp::kLe, SQLITE_FLOAT, 0, 1e300, true).kind, Kind::kAboveAll);
  EXPECT_EQ(bound(PlanOp::kGt, SQLITE_FLOAT, 0, -1e19, true).kind, Kind::kBelowAll);
  EXPECT_EQ(bound(PlanOp::kLt, SQLITE_FLOAT, 0, -1e19, true).kind, Kind::kNull);
  // Just below 2^63 a ceiling can still reach it.
  const double below = std::nextafter(big, 0.0);
  EXPECT_EQ(bound(PlanOp::kGe, SQLITE_FLOAT, 0, below, true).bytes, int_element(static_cast<int64_t>(below)));
}

// An INTEGER against a REAL column: exact when a double holds it, else the
// nearest double on the side that keeps the comparison's answer.
TEST(NumberBoundTest, IntegerAgainstARealColumnUsesTheNearestDoubleOnTheRightSide) {
  EXPECT_EQ(bound(PlanOp::kEq, SQLITE_INTEGER, 5, 5.0, false).bytes, double_element(5.0));
  const int64_t odd = (int64_t{1} << 53) + 1;  // no double equals it
  const double below = 9007199254740992.0;     // 2^53
  const double above = 9007199254740994.0;     // the next double
  EXPECT_EQ(bound(PlanOp::kEq, SQLITE_INTEGER, odd, 0, false).kind, Kind::kNull);
  EXPECT_EQ(bound(PlanOp::kGt, SQLITE_INTEGER, odd, 0, false).bytes, double_element(below));  // > 2^53
  EXPECT_EQ(bound(PlanOp::kLe, SQLITE_INTEGER, odd, 0, false).bytes, double_element(below));  // <= 2^53
  EXPECT_EQ(bound(PlanOp::kGe, SQLITE_INTEGER, odd, 0, false).bytes, double_element(above));  // >= 2^53 + 2
  EXPECT_EQ(bound(PlanOp::kLt, SQLITE_INTEGER, odd, 0, false).bytes, double_element(above));  // < 2^53 + 2
  // INT64_MAX rounds up to 2^63, which is above it.
  const int64_t max = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(bound(PlanOp::kLt, SQLITE_INTEGER, max, 0, false).bytes, double_element(9223372036854775808.0));
  EXPECT_EQ(bound(PlanOp::kGt, SQLITE_INTEGER, max, 0, false).bytes,
            double_element(std::nextafter(9223372036854775808.0, 0.0)));
  // -0.0 is stored as 0.0 in a REAL column, and so is its bound.
  EXPECT_EQ(bound(PlanOp::kEq, SQLITE_FLOAT, 0, -0.0, false).bytes, double_element(0.0));
}

// Real sqlite3_values, as xFilter gets them: one per bound parameter.
class TableValueReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // Positions: 0 INTEGER, 1 TEXT, 2 TEXT COLLATE NOCASE, 3 BLOB, 4 ANY.
    c_.types = {model::ColumnType::kInteger, model::ColumnType::kText, model::ColumnType::kText,
                model::ColumnType::kBlob, model::ColumnType::kAny};
    c_.key_collations = {"", "", "NOCASE", "", ""};
    ASSERT_EQ(sqlite3_prepare_v2(db_.handle(), "SELECT ?1", -1, &stmt_, nullptr), SQLITE_OK);
  }
  void TearDown() override {
    for (sqlite3_value* v : values_) sqlite3_value_free(v);
    sqlite3_finalize(stmt_);
  }
  // A protected copy of the value `bind` gives parameter 1.
  template <typename Bind>
  sqlite3_value* value(Bind bind) {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
    bind(stmt_);
    EXPECT_EQ(sqlite3_step(stmt_), SQLITE_ROW);
    values_.push_back(sqlite3_value_dup(sqlite3_column_value(stmt_, 0)));
    return values_.back();
  }
  sqlite3_value* integer(int64_t i) {
    return value([i](sqlite3_stmt* s) { sqlite3_bind_int64(s, 1, i); });
  }
  sqlite3_value* text(const std::string& t) {
    return value([t](sqlite3_stmt* s) { sqlite3_bind_text(s, 1, t.data(), static_cast<int>(t.size()), SQLITE_TRANSIENT); });
  }
  FilterArg term(TableValueReader* reader, PlanOp op, int column, sqlite3_value* v) {
    PlanTerm t;
    t.op = op;
    t.column = column;
    FilterArg out;
    EXPECT_TRUE(reader->read_term(t, v, &out).ok());
    return out;
  }

  testing::Db db_;
  sqlite3_stmt* stmt_ = nullptr;
  std::vector<sqlite3_value*> values_;
  Candidate c_;
};

TEST_F(TableValueReaderTest, TextBoundsAreCollationKeysWhereThePositionHoldsThem) {
  TableValueReader reader(c_, /*ambiguous=*/false, /*last=*/4);
  EXPECT_EQ(term(&reader, PlanOp::kEq, 1, text("Ab")).values[0].bytes, text_element("Ab"));
  Bytes keyed;
  model::append_collation_key(text_element("Ab"), "NOCASE", &keyed);
  EXPECT_EQ(term(&reader, PlanOp::kEq, 2, text("Ab")).values[0].bytes, keyed);
  // A literal number against a TEXT column compares as its text.
  EXPECT_EQ(term(&reader, PlanOp::kGe, 1, integer(5)).values[0].bytes, text_element("5"));
  EXPECT_FALSE(reader.fallback());
}

TEST_F(TableValueReaderTest, ANumberOfUnknownAffinityAgainstTextFallsBackToTheWholeCandidate) {
  TableValueReader reader(c_, /*ambiguous=*/true, /*last=*/4);
  EXPECT_EQ(term(&reader, PlanOp::kGe, 1, integer(5)).values[0].kind, Kind::kNull);
  EXPECT_TRUE(reader.fallback());
}

TEST_F(TableValueReaderTest, TypesThatSortApartBoundNothingOrEverything) {
  TableValueReader reader(c_, /*ambiguous=*/false, /*last=*/4);
  // Text sorts below every BLOB, every number below text.
  EXPECT_EQ(term(&reader, PlanOp::kGt, 3, text("z")).values[0].kind, Kind::kBelowAll);
  EXPECT_EQ(term(&reader, PlanOp::kLt, 3, text("z")).values[0].kind, Kind::kNull);
  EXPECT_EQ(term(&reader, PlanOp::kEq, 3, text("z")).values[0].kind, Kind::kNull);
  EXPECT_EQ(term(&reader, PlanOp::kLt, 0, text("abc")).values[0].kind, Kind::kAboveAll);
  // Text that reads as a number is that number to an INTEGER column.
  EXPECT_EQ(term(&reader, PlanOp::kEq, 0, text("7")).values[0].bytes, int_element(7));
  // NULL compares with nothing.
  EXPECT_EQ(term(&reader, PlanOp::kEq, 0, value([](sqlite3_stmt*) {})).values[0].kind, Kind::kNull);
}

TEST_F(TableValueReaderTest, AnyRangesAreRunsClassByClass) {
  TableValueReader reader(c_, /*ambiguous=*/false, /*last=*/4);
  const char after_text = static_cast<char>(static_cast<uint8_t>(TypeCode::kString) + 1);
  // `k > 2`: every BLOB and all text (SQLite: numbers < text < blobs), the
  // integers after 2 and the doubles after 2.0.
  const FilterArg gt = term(&reader, PlanOp::kGt, 4, integer(2));
  ASSERT_EQ(gt.count, 3u);
  for (size_t i = 0; i < gt.count; ++i) EXPECT_EQ(gt.values[i].kind, Kind::kRun);
  EXPECT_EQ(gt.values[0].bytes, Bytes(1, static_cast<char>(TypeCode::kBytes)));
  EXPECT_EQ(gt.values[0].hi, Bytes(1, after_text));
  EXPECT_EQ(gt.values[1].bytes, int_element(2) + '\xff');
  EXPECT_EQ(gt.values[2].bytes, double_element(2.0) + '\xff');
  // `k < 'b'`: text below 'b', and no BLOB, integer or double (all of
  // them are above any text, or below it where SQLite would say so).
  const FilterArg lt = term(&reader, PlanOp::kLt, 4, text("b"));
  ASSERT_GE(lt.count, 1u);
  EXPECT_EQ(lt.values[0].bytes, Bytes(1, static_cast<char>(TypeCode::kString)));
  EXPECT_EQ(lt.values[0].hi, text_element("b"));
}

TEST_F(TableValueReaderTest, AnAmbiguousNumberOnTheLastPositionAlsoReadsAllText) {
  TableValueReader last(c_, /*ambiguous=*/true, /*last=*/4);
  const FilterArg eq = term(&last, PlanOp::kEq, 4, integer(2));
  ASSERT_EQ(eq.count, 2u);
  EXPECT_EQ(eq.values[0].bytes, int_element(2));
  EXPECT_EQ(eq.values[1].kind, Kind::kRun);
  EXPECT_EQ(eq.values[1].bytes, Bytes(1, static_cast<char>(TypeCode::kString)));
  // Elsewhere the value is a known one, with no affinity.
  TableValueReader earlier(c_, /*ambiguous=*/true, /*last=*/5);
  EXPECT_EQ(term(&earlier, PlanOp::kEq, 4, integer(2)).count, 1u);
}

}  // namespace
}  // namespace tuplekv::ext::table
