// SQL equality variants of ANY values: every row of sql_any.h's table, with
// the edges where a conversion between int64 and double would round (2^53+1,
// INT64_MAX, 2^63) and must not produce a variant SQLite would call unequal,
// and the packed form, which must give the same answer and refuse bytes that
// are not exactly one element.
#include "core/model/sql_any.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/tuple.h"

namespace tuplekv::model {
namespace {

TupleValue I(int64_t v) { return TupleValue::int64(v); }
TupleValue D(double v) { return TupleValue::float64(v); }

Bytes el(const TupleValue& v) {
  Bytes out;
  EXPECT_TRUE(pack_element(v, &out).ok()) << repr(v);
  return out;
}

// The header fixes only the first variant; the others are compared as a set.
std::vector<Bytes> tail_sorted(std::vector<Bytes> all) {
  std::sort(all.begin() + 1, all.end());
  return all;
}

// Checks both forms: sql_equal_variants(v) is `expected` (v first), and the
// packed form gives the same elements packed.
void expect_variants(const TupleValue& v, std::vector<TupleValue> expected) {
  std::vector<TupleValue> got = {TupleValue::string("stale")};
  sql_equal_variants(v, &got);
  ASSERT_EQ(got.size(), expected.size()) << repr(v);
  std::vector<Bytes> got_packed, want_packed;
  for (const TupleValue& x : got) got_packed.push_back(el(x));
  for (const TupleValue& x : expected) want_packed.push_back(el(x));
  EXPECT_EQ(got.front(), v) << repr(v);
  EXPECT_EQ(tail_sorted(got_packed), tail_sorted(want_packed)) << repr(v);

  std::vector<Bytes> from_bytes = {Bytes("stale")};
  const Status s = sql_equal_variants_packed(el(v), &from_bytes);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_FALSE(from_bytes.empty());
  EXPECT_EQ(from_bytes.front(), el(v));
  EXPECT_EQ(tail_sorted(from_bytes), tail_sorted(want_packed)) << repr(v);
}

constexpr int64_t kTwo53 = int64_t{1} << 53;

TEST(SqlAnyTest, IntegerAddsTheDoubleOnlyWhenItIsExact) {
  expect_variants(I(2), {I(2), D(2.0)});
  expect_variants(I(-7), {I(-7), D(-7.0)});
  expect_variants(I(kTwo53), {I(kTwo53), D(9007199254740992.0)});
  expect_variants(I(-kTwo53), {I(-kTwo53), D(-9007199254740992.0)});
  // 2^53 + 1 rounds to 2^53, a double SQLite does not call equal to it.
  expect_variants(I(kTwo53 + 1), {I(kTwo53 + 1)});
  expect_variants(I(-kTwo53 - 1), {I(-kTwo53 - 1)});
  // Near 2^63 only multiples of 1024 are doubles; INT64_MAX rounds to 2^63,
  // outside int64 altogether.
  expect_variants(I(INT64_MAX), {I(INT64_MAX)});
  expect_variants(I(INT64_MAX - 1023), {I(INT64_MAX - 1023), D(9223372036854774784.0)});
  expect_variants(I(INT64_MAX - 1024), {I(INT64_MAX - 1024)});
  expect_variants(I(INT64_MIN), {I(INT64_MIN), D(-9223372036854775808.0)});
}

TEST(SqlAnyTest, RealAddsTheIntegerOnlyWhenIntegralAndInRange) {
  expect_variants(D(2.0), {D(2.0), I(2)});
  expect_variants(D(-3.0), {D(-3.0), I(-3)});
  expect_variants(D(1e18), {D(1e18), I(1000000000000000000)});
  expect_variants(D(2.5), {D(2.5)});
  expect_variants(D(-0.5), {D(-0.5)});
  expect_variants(D(std::numeric_limits<double>::denorm_min()),
                  {D(std::numeric_limits<double>::denorm_min())});
  expect_variants(D(9223372036854774784.0), {D(9223372036854774784.0), I(INT64_MAX - 1023)});
  // 2^63 is one past INT64_MAX; -2^63 is INT64_MIN itself.
  expect_variants(D(9223372036854775808.0), {D(9223372036854775808.0)});
  expect_variants(D(-9223372036854775808.0), {D(-9223372036854775808.0), I(INT64_MIN)});
  expect_variants(D(1e19), {D(1e19)});
  expect_variants(D(-1e19), {D(-1e19)});
}

TEST(SqlAnyTest, NanAndInfinitiesHaveNoIntegerVariant) {
  expect_variants(D(HUGE_VAL), {D(HUGE_VAL)});
  expect_variants(D(-HUGE_VAL), {D(-HUGE_VAL)});
  expect_variants(D(std::nan("")), {D(std::nan(""))});
}

TEST(SqlAnyTest, EveryZeroGivesAllThreeZeros) {
  const std::vector<TupleValue> zeros = {I(0), D(0.0), D(-0.0)};
  for (const TupleValue& z : zeros) {
    std::vector<TupleValue> expected = {z};
    for (const TupleValue& other : zeros) {
      if (other != z) expected.push_back(other);
    }
    expect_variants(z, expected);
  }
}

TEST(SqlAnyTest, OtherValuesAreOnlyThemselves) {
  // TEXT '2' and BLOB x'32' are not numbers, nor equal to each other.
  expect_variants(TupleValue::string("2"), {TupleValue::string("2")});
  expect_variants(TupleValue::string(std::string_view("a\0b", 3)),
                  {TupleValue::string(std::string_view("a\0b", 3))});
  expect_variants(TupleValue::bytes("2"), {TupleValue::bytes("2")});
  expect_variants(TupleValue::bytes(""), {TupleValue::bytes("")});
  expect_variants(TupleValue::null(), {TupleValue::null()});
  // Types no SQL value maps to fall in the same row.
  expect_variants(TupleValue::float32(2.0f), {TupleValue::float32(2.0f)});
  expect_variants(TupleValue::boolean(true), {TupleValue::boolean(true)});
}

TEST(SqlAnyTest, PackedVariantsAreTheKnownBytes) {
  const Bytes int_two("\x15\x02", 2);
  const Bytes double_two("\x21\xC0\x00\x00\x00\x00\x00\x00\x00", 9);
  std::vector<Bytes> out;
  ASSERT_TRUE(sql_equal_variants_packed(int_two, &out).ok());
  EXPECT_EQ(out, (std::vector<Bytes>{int_two, double_two}));
  ASSERT_TRUE(sql_equal_variants_packed(double_two, &out).ok());
  EXPECT_EQ(out, (std::vector<Bytes>{double_two, int_two}));
}

TEST(SqlAnyTest, PackedRefusesAnythingButOneElement) {
  const Bytes thousand = el(I(1000));  // 16 03 E8
  const Bytes two_point_five = el(D(2.5));
  const Bytes text = el(TupleValue::string("abc"));
  const Bytes cases[] = {
      Bytes(),                                              // no element
      el(I(1)) + el(I(2)),                                  // two elements
      el(D(2.0)) + el(TupleValue::null()),                  // a trailing null
      text + Bytes("\x00", 1),                              // one extra byte
      thousand.substr(0, thousand.size() - 1),              // truncated int
      two_point_five.substr(0, two_point_five.size() - 1),  // truncated double
      text.substr(0, text.size() - 1),                      // no string terminator
      Bytes("\x16\x00\x05", 3),                             // non-minimal int
      Bytes("\x03", 1),                                     // reserved type code
  };
  for (const Bytes& c : cases) {
    std::vector<Bytes> out;
    EXPECT_EQ(sql_equal_variants_packed(c, &out).code(), StatusCode::kCorruption) << to_hex(c);
  }
  std::vector<Bytes> out;
  EXPECT_EQ(sql_equal_variants_packed(el(I(1)) + el(I(2)), &out).message(),
            "tuple: bytes after the element");
}

}  // namespace
}  // namespace tuplekv::model
