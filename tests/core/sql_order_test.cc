// SQLite's order over packed elements: class order, exact integer/real
// comparison, text and blob bytes, sequences, and a total order over
// arbitrary (damaged) bytes so that sorting never misbehaves.
#include "core/model/sql_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/tuple.h"

namespace tuplekv::model {
namespace {

Bytes el(const TupleValue& v) {
  Bytes out;
  EXPECT_TRUE(pack_element(v, &out).ok());
  return out;
}
Bytes i(int64_t v) { return el(TupleValue::int64(v)); }
Bytes d(double v) { return el(TupleValue::float64(v)); }
Bytes s(std::string_view v) { return el(TupleValue::string(v)); }
Bytes b(std::string_view v) { return el(TupleValue::bytes(v)); }

int sgn(int c) { return (c > 0) - (c < 0); }

TEST(SqlOrderTest, ClassesInSqliteOrder) {
  const Bytes null = el(TupleValue::null());
  // NULL < numbers < text < blobs, though tuple order puts blobs first.
  EXPECT_LT(sql_compare_packed(null, i(-5)), 0);
  EXPECT_LT(sql_compare_packed(i(1000), s("")), 0);
  EXPECT_LT(sql_compare_packed(d(1e300), s("")), 0);
  EXPECT_LT(sql_compare_packed(s("zzz"), b("")), 0);
  EXPECT_GT(sql_compare_packed(s("x"), i(1)), 0);
  EXPECT_GT(compare_bytes(i(1), s("x")), 0);  // the tuple order this corrects
}

TEST(SqlOrderTest, NumbersByValueExactly) {
  EXPECT_LT(sql_compare_packed(i(2), d(2.5)), 0);
  EXPECT_GT(sql_compare_packed(d(2.5), i(2)), 0);
  EXPECT_GT(sql_compare_packed(i(3), d(2.5)), 0);
  EXPECT_EQ(sql_compare_packed(i(2), d(2.0)), 0);
  EXPECT_EQ(sql_compare_packed(i(0), d(-0.0)), 0);
  EXPECT_EQ(sql_compare_packed(d(0.0), d(-0.0)), 0);
  EXPECT_LT(sql_compare_packed(d(-0.5), i(0)), 0);
  EXPECT_LT(sql_compare_packed(i(-1), d(-0.5)), 0);
  // 2^53 + 1 has no double: compared exactly, not after rounding.
  const int64_t big = (int64_t{1} << 53) + 1;
  EXPECT_GT(sql_compare_packed(i(big), d(9007199254740992.0)), 0);
  EXPECT_LT(sql_compare_packed(i(big), d(9007199254740994.0)), 0);
  // The int64 extremes against the doubles at 2^63 and -2^63.
  EXPECT_LT(sql_compare_packed(i(INT64_MAX), d(9223372036854775808.0)), 0);
  EXPECT_EQ(sql_compare_packed(i(INT64_MIN), d(-9223372036854775808.0)), 0);
  EXPECT_GT(sql_compare_packed(i(INT64_MIN), d(-1e300)), 0);
  EXPECT_LT(sql_compare_packed(d(-HUGE_VAL), i(INT64_MIN)), 0);
  EXPECT_GT(sql_compare_packed(d(HUGE_VAL), i(INT64_MAX)), 0);
  EXPECT_LT(sql_compare_packed(i(-3), i(2)), 0);
  EXPECT_LT(sql_compare_packed(d(-3.5), d(-3.25)), 0);
}

TEST(SqlOrderTest, TextAndBlobsByteForByte) {
  EXPECT_LT(sql_compare_packed(s("a"), s("ab")), 0);
  EXPECT_LT(sql_compare_packed(s("a"), s(std::string_view("a\0", 2))), 0);
  EXPECT_LT(sql_compare_packed(s(std::string_view("a\0", 2)), s("a\x01")), 0);
  EXPECT_LT(sql_compare_packed(s("B"), s("a")), 0);  // BINARY, not NOCASE
  EXPECT_LT(sql_compare_packed(b(""), b(std::string_view("\0", 1))), 0);
  EXPECT_LT(sql_compare_packed(b(std::string_view("\0", 1)), b("\x01")), 0);
  EXPECT_EQ(sql_compare_packed(s("same"), s("same")), 0);
}

TEST(SqlOrderTest, SequencesElementByElement) {
  EXPECT_LT(sql_compare_packed(i(1) + s("b"), d(1.0) + s("c")), 0);
  EXPECT_GT(sql_compare_packed(i(1) + s("d"), d(1.0) + s("c")), 0);
  EXPECT_LT(sql_compare_packed(i(1), i(1) + i(0)), 0);  // a proper prefix first
  EXPECT_EQ(sql_compare_packed("", ""), 0);
  EXPECT_LT(sql_compare_packed(d(2.5) + b(""), s("") + i(0)), 0);
}

// A reference order built another way: (class, exact number as long double
// where it has a 64-bit mantissa, or the raw bytes).
struct Ref {
  int cls;
  long double num = 0;
  Bytes raw;
  bool operator<(const Ref& o) const {
    if (cls != o.cls) return cls < o.cls;
    if (cls == 1) return num < o.num;
    return raw < o.raw;
  }
};

TEST(SqlOrderTest, AgreesWithAReferenceOnRandomValues) {
  // The reference holds every int64 and double exactly only with a 64-bit
  // mantissa (x86's long double).
  ASSERT_GE(std::numeric_limits<long double>::digits, 64);
  std::mt19937_64 rng(42);
  const int64_t ints[] = {0, 1, -1, 2, 3, INT64_MAX, INT64_MIN, (int64_t{1} << 53) + 1, 1 << 20};
  const double reals[] = {0.0, -0.0, 0.5, 2.0, 2.5, -1.0, 9007199254740992.0, 9223372036854775808.0,
                          -9223372036854775808.0, 1e300, -1e300, HUGE_VAL, -HUGE_VAL};
  std::vector<std::pair<Bytes, Ref>> values;
  for (int64_t v : ints) values.push_back({i(v), Ref{1, static_cast<long double>(v), {}}});
  for (double v : reals) values.push_back({d(v), Ref{1, static_cast<long double>(v), {}}});
  for (const char* t : {"", "a", "ab", "B", "\xc3\xa9"}) {
    values.push_back({s(t), Ref{2, 0, Bytes(t)}});
    values.push_back({b(t), Ref{3, 0, Bytes(t)}});
  }
  for (int round = 0; round < 2000; ++round) {
    const auto& [ea, ra] = values[rng() % values.size()];
    const auto& [eb, rb] = values[rng() % values.size()];
    const int expected = ra < rb ? -1 : rb < ra ? 1 : 0;
    ASSERT_EQ(sgn(sql_compare_packed(ea, eb)), expected)
        << repr_packed(ea) << " vs " << repr_packed(eb);
  }
}

TEST(SqlOrderTest, DamagedBytesStillGetATotalOrder) {
  // Random byte strings, many of them not tuples: the comparison must be
  // antisymmetric and transitive, or a sort over them is undefined.
  std::mt19937_64 rng(7);
  const Bytes pieces[] = {i(1), d(1.0), s("a"), b("a"), Bytes("\x15"), Bytes("\x21\x80"),
                          Bytes("\x02\x61"), Bytes("\xff"), Bytes(std::string_view("\0", 1))};
  std::vector<Bytes> keys;
  for (int k = 0; k < 60; ++k) {
    Bytes key;
    for (int n = static_cast<int>(rng() % 3); n >= 0; --n) key += pieces[rng() % std::size(pieces)];
    keys.push_back(key);
  }
  for (const Bytes& x : keys) {
    EXPECT_EQ(sql_compare_packed(x, x), 0);
    for (const Bytes& y : keys) {
      ASSERT_EQ(sgn(sql_compare_packed(x, y)), -sgn(sql_compare_packed(y, x)))
          << to_hex(x) << " vs " << to_hex(y);
      for (const Bytes& z : keys) {
        if (sql_compare_packed(x, y) <= 0 && sql_compare_packed(y, z) <= 0) {
          ASSERT_LE(sql_compare_packed(x, z), 0) << to_hex(x) << " " << to_hex(y) << " " << to_hex(z);
        }
      }
    }
  }
  std::sort(keys.begin(), keys.end(),
            [](const Bytes& x, const Bytes& y) { return sql_compare_packed(x, y) < 0; });
  for (size_t k = 1; k < keys.size(); ++k) EXPECT_LE(sql_compare_packed(keys[k - 1], keys[k]), 0);
}

Bytes sort_key(BytesView packed) {
  Bytes out;
  append_sql_sort_key(packed, &out);
  return out;
}

TEST(SqlOrderTest, SortKeysOrderAsTheComparison) {
  // Sequences of up to three elements of every kind, and damaged bytes.
  const int64_t big = (int64_t{1} << 53) + 1;
  const Bytes pieces[] = {
      i(0), i(1), i(-1), i(2), i(big), i(big - 2), i(INT64_MAX), i(INT64_MIN), i(INT64_MAX - 1),
      d(0.0), d(-0.0), d(0.5), d(2.0), d(-1.5), d(9007199254740992.0), d(9223372036854775808.0),
      d(-9223372036854775808.0), d(9223372036854774784.0), d(HUGE_VAL), d(-HUGE_VAL), d(NAN),
      s(""), s("a"), s(std::string_view("a\0", 2)), s("b"), b(""), b(std::string_view("\0", 1)), b("a"),
      el(TupleValue::null()), el(TupleValue::boolean(true)), el(TupleValue::float32(1.0f)),
      el(TupleValue::nested({TupleValue::int64(1)})), Bytes("\x15"), Bytes("\x02\x61"), Bytes("\xff")};
  std::mt19937_64 rng(11);
  std::vector<Bytes> keys;
  for (const Bytes& p : pieces) keys.push_back(p);
  for (int k = 0; k < 400; ++k) {
    Bytes key;
    for (int n = static_cast<int>(rng() % 3); n >= 0; --n) key += pieces[rng() % std::size(pieces)];
    keys.push_back(key);
  }
  for (const Bytes& x : keys) {
    const Bytes kx = sort_key(x);
    for (const Bytes& y : keys) {
      ASSERT_EQ(sgn(compare_bytes(kx, sort_key(y))), sgn(sql_compare_packed(x, y)))
          << to_hex(x) << " vs " << to_hex(y);
    }
  }
}

}  // namespace
}  // namespace tuplekv::model
