// TupleValue on its own, without the codec. Each factory hands back through
// its accessor exactly what it was given, raw float bits included; every
// element type has its stable name; equality is "same type and same value",
// with floats compared by raw bits and an integer having one representation
// whichever factory built it; and compare() is the value order of
// tuple-spec §9: type class first, then the value within the class, a proper
// prefix before its extensions. The expected orders here come from the spec
// alone; that compare() agrees with the packed bytes is tuple_test.cc's job.
#include "core/tuple.h"
#include "tests/core/tuple_makers.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace tuplekv {
namespace {

constexpr int64_t kMin64 = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax64 = std::numeric_limits<int64_t>::max();

using namespace tuple_makers;
// +-(2^2040 - 1), the widest integer a tuple holds (255 bytes of magnitude).
TupleValue Widest(bool negative) {
  return TupleValue::integer(*BigInt::from_magnitude(std::string(255, '\xff'), negative));
}
// Twelve bytes written as hex, spaces allowed.
TupleValue Stamp(std::string_view spaced_hex) {
  std::string hex;
  for (char c : spaced_hex) {
    if (c != ' ') hex.push_back(c);
  }
  Bytes b;
  EXPECT_TRUE(from_hex(hex, &b) && b.size() == 12) << spaced_hex;
  Versionstamp v{};
  std::memcpy(v.data(), b.data(), std::min(b.size(), v.size()));
  return TupleValue::versionstamp(v);
}
TupleValue IncompleteStamp(uint16_t user_version) {
  Versionstamp v;
  v.fill(0xFF);
  v[10] = static_cast<uint8_t>(user_version >> 8);
  v[11] = static_cast<uint8_t>(user_version);
  return TupleValue::versionstamp(v);
}
TupleValue U(uint8_t first, uint8_t rest) {
  Uuid u;
  u.fill(rest);
  u[0] = first;
  return TupleValue::uuid(u);
}

// Every pair of `in_order` compares as its positions do, in both directions.
template <typename T>
void ExpectAscending(const std::vector<T>& in_order) {
  for (size_t i = 0; i < in_order.size(); ++i) {
    for (size_t j = 0; j < in_order.size(); ++j) {
      const int c = compare(in_order[i], in_order[j]);
      const int expected = i < j ? -1 : (i > j ? 1 : 0);
      EXPECT_EQ(c < 0 ? -1 : (c > 0 ? 1 : 0), expected)
          << repr(in_order[i]) << " vs " << repr(in_order[j]);
    }
  }
}

// ---------------------------------------------------------------------------
// Factories, accessors, names

TEST(TupleValueTest, IntegerNormalisesToInt64) {
  EXPECT_EQ(Big("9223372036854775807").type(), ElementType::kInt);
  EXPECT_EQ(Big("-9223372036854775808").type(), ElementType::kInt);
  EXPECT_EQ(Big("-9223372036854775808").as_int64(), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(Big("9223372036854775808").type(), ElementType::kBigInt);
  EXPECT_EQ(Big("-9223372036854775809").type(), ElementType::kBigInt);
  EXPECT_EQ(Big("0").type(), ElementType::kInt);
  EXPECT_EQ(Big("-1"), I(-1));
}

TEST(TupleValueTest, FloatsKeepTheirBits) {
  EXPECT_NE(D(0.0), D(-0.0));
  EXPECT_NE(F(0.0f), F(-0.0f));
  EXPECT_EQ(TupleValue::float64_bits(0x7FF8000000000001ull),
            TupleValue::float64_bits(0x7FF8000000000001ull));
  EXPECT_NE(TupleValue::float64_bits(0x7FF8000000000001ull),
            TupleValue::float64_bits(0x7FF8000000000002ull));
  EXPECT_EQ(TupleValue::float32_bits(0x7F800001u).float32_bits(), 0x7F800001u);
  EXPECT_EQ(std::bit_cast<uint32_t>(F(-0.0f).as_float()), 0x80000000u);
  EXPECT_EQ(D(1.5).as_double(), 1.5);
  EXPECT_NE(F(1.0f), D(1.0));
}

TEST(TupleValueTest, AccessorsAndNames) {
  EXPECT_TRUE(Null().is_null());
  EXPECT_EQ(S("x").as_string(), "x");
  EXPECT_EQ(B("y").as_bytes(), "y");
  EXPECT_TRUE(Bool(true).as_bool());
  EXPECT_EQ(TupleValue::user(0x41, "z").user_code(), 0x41);
  EXPECT_EQ(TupleValue::user(0x41, "z").as_bytes(), "z");
  TupleValue n = N({I(1)});
  n.mutable_nested().push_back(I(2));
  EXPECT_EQ(n.as_nested().size(), 2u);
  EXPECT_TRUE(Stamp("00 00 00 00 00 00 00 00 00 00 00 00").versionstamp_complete());
  EXPECT_TRUE(Stamp("FF FF FF FF FF FF FF FF FF 00 00 00").versionstamp_complete());
  EXPECT_FALSE(IncompleteStamp(5).versionstamp_complete());

  EXPECT_EQ(element_type_name(ElementType::kNull), "null");
  EXPECT_EQ(element_type_name(ElementType::kBytes), "bytes");
  EXPECT_EQ(element_type_name(ElementType::kString), "string");
  EXPECT_EQ(element_type_name(ElementType::kNested), "tuple");
  EXPECT_EQ(element_type_name(ElementType::kInt), "int");
  EXPECT_EQ(element_type_name(ElementType::kBigInt), "int");
  EXPECT_EQ(element_type_name(ElementType::kFloat), "float");
  EXPECT_EQ(element_type_name(ElementType::kDouble), "double");
  EXPECT_EQ(element_type_name(ElementType::kBool), "bool");
  EXPECT_EQ(element_type_name(ElementType::kUuid), "uuid");
  EXPECT_EQ(element_type_name(ElementType::kVersionstamp), "versionstamp");
  EXPECT_EQ(element_type_name(ElementType::kUser), "user");
}

TEST(TupleValueTest, EachFactoryMakesItsTypeAndName) {
  struct Case {
    TupleValue value;
    ElementType type;
    std::string_view name;
  };
  const Case cases[] = {
      {TupleValue(), ElementType::kNull, "null"},
      {B(""), ElementType::kBytes, "bytes"},
      {S(""), ElementType::kString, "string"},
      {N({}), ElementType::kNested, "tuple"},
      {I(0), ElementType::kInt, "int"},
      {Big("-18446744073709551616"), ElementType::kBigInt, "int"},
      {F(0.0f), ElementType::kFloat, "float"},
      {TupleValue::float32_bits(0), ElementType::kFloat, "float"},
      {D(0.0), ElementType::kDouble, "double"},
      {TupleValue::float64_bits(0), ElementType::kDouble, "double"},
      {Bool(false), ElementType::kBool, "bool"},
      {U(0, 0), ElementType::kUuid, "uuid"},
      {IncompleteStamp(0), ElementType::kVersionstamp, "versionstamp"},
      {TupleValue::user(0x40, ""), ElementType::kUser, "user"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(c.value.type(), c.type) << repr(c.value);
    EXPECT_EQ(element_type_name(c.value.type()), c.name) << repr(c.value);
    EXPECT_EQ(c.value.is_null(), c.type == ElementType::kNull) << repr(c.value);
  }
}

TEST(TupleValueTest, EachAccessorReturnsWhatTheFactoryWasGiven) {
  const std::string_view raw("\0a\xff\x00", 4);  // NULs and 0xFF are payload like any byte
  EXPECT_EQ(B(raw).as_bytes(), raw);
  EXPECT_EQ(S("caf\xC3\xA9").as_string(), "caf\xC3\xA9");
  EXPECT_EQ(S("caf\xC3\xA9").as_bytes(), "caf\xC3\xA9");
  // Invalid UTF-8 is kept as given; refusing it is pack()'s job.
  EXPECT_EQ(S("\xC0\xAF").as_string(), "\xC0\xAF");
  EXPECT_EQ(TupleValue::user(0x4F, raw).as_bytes(), raw);

  for (int64_t v : {kMin64, kMin64 + 1, int64_t{-1}, int64_t{0}, int64_t{1}, kMax64}) {
    EXPECT_EQ(I(v).as_int64(), v);
    EXPECT_EQ(TupleValue::integer(BigInt::from_int64(v)).as_int64(), v);
  }
  EXPECT_EQ(Big("18446744073709551616").as_bigint().to_decimal(), "18446744073709551616");
  EXPECT_EQ(Big("-9223372036854775809").as_bigint().to_decimal(), "-9223372036854775809");
  EXPECT_EQ(Widest(true).as_bigint().magnitude(), std::string(255, '\xff'));

  EXPECT_EQ(F(1.5f).float32_bits(), 0x3FC00000u);
  EXPECT_EQ(F(1.5f).as_float(), 1.5f);
  EXPECT_EQ(D(-2.5).float64_bits(), 0xC004000000000000ull);
  EXPECT_EQ(D(-2.5).as_double(), -2.5);
  // Signalling and negative NaNs come back bit for bit, never quietened.
  for (uint32_t bits : {0x7F800001u, 0xFF800001u, 0x7FC00000u, 0xFFFFFFFFu}) {
    const TupleValue f = TupleValue::float32_bits(bits);
    EXPECT_EQ(f.float32_bits(), bits);
    EXPECT_TRUE(std::isnan(f.as_float()));
    EXPECT_EQ(F(f.as_float()).float32_bits(), bits);
  }
  for (uint64_t bits : {0x7FF0000000000001ull, 0xFFF0000000000001ull, 0x7FF8000000000000ull}) {
    const TupleValue d = TupleValue::float64_bits(bits);
    EXPECT_EQ(d.float64_bits(), bits);
    EXPECT_TRUE(std::isnan(d.as_double()));
    EXPECT_EQ(D(d.as_double()).float64_bits(), bits);
  }

  EXPECT_TRUE(Bool(true).as_bool());
  EXPECT_FALSE(Bool(false).as_bool());
  Uuid u;
  for (size_t i = 0; i < u.size(); ++i) u[i] = static_cast<uint8_t>(0xF0 - i);
  EXPECT_EQ(TupleValue::uuid(u).as_uuid(), u);
  Versionstamp s;
  for (size_t i = 0; i < s.size(); ++i) s[i] = static_cast<uint8_t>(i + 1);
  EXPECT_EQ(TupleValue::versionstamp(s).as_versionstamp(), s);
  const Tuple children = {I(1), Null(), N({S("x")})};
  EXPECT_EQ(N(children).as_nested(), children);
}

TEST(TupleValueTest, UserCodeIsKeptForEveryUserType) {
  for (int code = 0x40; code <= 0x4F; ++code) {
    const TupleValue v = TupleValue::user(static_cast<uint8_t>(code), "payload");
    EXPECT_EQ(v.user_code(), code);
    EXPECT_EQ(v.as_bytes(), "payload");
  }
}

TEST(TupleValueTest, CopiesAreDeep) {
  const TupleValue original = N({I(1), N({S("inner")})});
  TupleValue copy = original;
  copy.mutable_nested().push_back(I(2));
  copy.mutable_nested()[1].mutable_nested()[0] = S("changed");
  EXPECT_EQ(original, N({I(1), N({S("inner")})}));
  EXPECT_EQ(copy, N({I(1), N({S("changed")}), I(2)}));
}

// Only the first ten bytes (the transaction version) decide; the user
// version may be anything, 0xFFFF included.
TEST(TupleValueTest, AStampIsIncompleteOnlyWhenItsFirstTenBytesAreAllFf) {
  for (uint16_t user : {0, 1, 0xFF, 0xFFFF}) {
    EXPECT_FALSE(IncompleteStamp(user).versionstamp_complete()) << user;
  }
  for (size_t i = 0; i < 10; ++i) {
    Versionstamp v;
    v.fill(0xFF);
    v[i] = 0xFE;
    EXPECT_TRUE(TupleValue::versionstamp(v).versionstamp_complete()) << i;
  }
}

// ---------------------------------------------------------------------------
// Equality

// Values that look alike (empty, zero, the same payload) but differ in
// type or in bits are all different; each equals a separately built twin,
// and compare() is 0 exactly for equal values.
TEST(TupleValueTest, EqualityIsSameTypeAndSameBits) {
  const auto make = [] {
    return std::vector<TupleValue>{
        Null(), B(""), S(""), N({}), N({Null()}), N({N({})}), I(0), I(1), I(-1),
        Big("18446744073709551616"), Big("-18446744073709551616"), F(0.0f), F(-0.0f), F(1.0f),
        D(0.0), D(-0.0), D(1.0), TupleValue::float32_bits(0x7FC00000u),
        TupleValue::float32_bits(0x7FC00001u), TupleValue::float32_bits(0xFFC00000u),
        TupleValue::float64_bits(0x7FF8000000000000ull),
        TupleValue::float64_bits(0x7FF8000000000001ull),
        TupleValue::float64_bits(0xFFF8000000000000ull), Bool(false), Bool(true), U(0, 0),
        U(0, 1), IncompleteStamp(0), IncompleteStamp(1),
        Stamp("00 00 00 00 00 00 00 00 00 00 00 00"),
        B("a"), S("a"), TupleValue::user(0x40, "a"), TupleValue::user(0x41, "a"),
        TupleValue::user(0x40, ""), B(std::string_view("a\0", 2))};
  };
  const std::vector<TupleValue> values = make();
  const std::vector<TupleValue> twins = make();
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(values[i], twins[i]) << repr(values[i]);
    EXPECT_EQ(compare(values[i], twins[i]), 0) << repr(values[i]);
    for (size_t j = 0; j < values.size(); ++j) {
      if (i == j) continue;
      EXPECT_NE(values[i], values[j]) << repr(values[i]) << " vs " << repr(values[j]);
      EXPECT_NE(compare(values[i], values[j]), 0) << repr(values[i]) << " vs " << repr(values[j]);
    }
  }
}

// Unlike IEEE ==, a NaN equals a NaN with the same bits.
TEST(TupleValueTest, ANanEqualsItsOwnBits) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(D(nan), D(nan));
  const float snan = std::numeric_limits<float>::signaling_NaN();
  EXPECT_EQ(F(snan), TupleValue::float32_bits(std::bit_cast<uint32_t>(snan)));
  EXPECT_EQ(TupleValue::float32_bits(0x7FC00001u), TupleValue::float32_bits(0x7FC00001u));
}

// An integer has one representation (kInt whenever it fits int64), so the
// same number is equal whichever factory or BigInt spelling built it.
TEST(TupleValueTest, AnIntegerEqualsItselfWhicheverFactoryBuiltIt) {
  for (int64_t v : {kMin64, int64_t{-1}, int64_t{0}, int64_t{5}, kMax64}) {
    EXPECT_EQ(TupleValue::integer(BigInt::from_int64(v)), I(v)) << v;
  }
  EXPECT_EQ(TupleValue::integer(BigInt::from_uint64(uint64_t{1} << 63, true)), I(kMin64));
  EXPECT_EQ(TupleValue::integer(*BigInt::from_magnitude(std::string_view("\0\0\x05", 3), false)),
            I(5));
  EXPECT_EQ(Big("9223372036854775808"),
            TupleValue::integer(BigInt::from_uint64(uint64_t{1} << 63, false)));
  EXPECT_EQ(Big("-18446744073709551615"),
            TupleValue::integer(BigInt::from_uint64(~uint64_t{0}, true)));
  EXPECT_NE(Big("9223372036854775808"), Big("-9223372036854775808"));
}

// ---------------------------------------------------------------------------
// Order (tuple-spec §9)

TEST(TupleOrder, NumbersAndPrefixes) {
  // IEEE totalOrder through the transformed bits.
  const uint64_t doubles[] = {0xFFF8000000000001ull, 0xFFF0000000000000ull,
                              std::bit_cast<uint64_t>(-1.0), 0x8000000000000000ull, 0,
                              std::bit_cast<uint64_t>(1.0), 0x7FF0000000000000ull,
                              0x7FF8000000000000ull, 0x7FF8000000000001ull};
  for (size_t i = 0; i + 1 < std::size(doubles); ++i) {
    EXPECT_LT(compare(TupleValue::float64_bits(doubles[i]),
                      TupleValue::float64_bits(doubles[i + 1])), 0)
        << i;
  }
  EXPECT_LT(compare(Big("-9223372036854775809"), I(std::numeric_limits<int64_t>::min())), 0);
  EXPECT_GT(compare(Big("9223372036854775808"), I(std::numeric_limits<int64_t>::max())), 0);
  EXPECT_LT(compare(Big("-18446744073709551616"), Big("-18446744073709551615")), 0);
  EXPECT_LT(compare(I(1), D(0.5)), 0);  // type, not value, orders number kinds
  EXPECT_LT(compare(S("a"), S(std::string_view("a\0", 2))), 0);
  EXPECT_LT(compare(S(std::string_view("a\0", 2)), S("a\x01")), 0);
  EXPECT_LT(compare(S("\xEF\xBF\xBF"), S("\xF0\x90\x80\x80")), 0);  // code point order
  EXPECT_LT(compare(Tuple{I(1)}, Tuple{I(1), Null()}), 0);
  EXPECT_LT(compare(N({}), N({Null()})), 0);
  EXPECT_LT(compare(N({Null()}), N({Null(), Null()})), 0);
  EXPECT_EQ(compare(Tuple{}, Tuple{}), 0);
}

// The class decides before the value: the greatest value of a class sorts
// before the least of the next, e.g. the widest integer before the most
// negative float NaN, and every double before false.
TEST(TupleOrder, EveryClassSortsWholeBeforeTheNext) {
  const std::vector<std::vector<TupleValue>> classes = {
      {Null()},
      {B(""), B(std::string_view("\0", 1)), B("\xff\xff\xff")},
      {S(""), S("\xF4\x8F\xBF\xBF")},
      {N({}), N({Null()}), N({TupleValue::user(0x4F, "\xff")})},
      {Widest(true), I(kMin64), I(0), I(kMax64), Widest(false)},
      {TupleValue::float32_bits(0xFFFFFFFFu), F(-INFINITY), F(0.0f),
       TupleValue::float32_bits(0x7FFFFFFFu)},
      {TupleValue::float64_bits(~uint64_t{0}), D(-INFINITY), D(0.0),
       TupleValue::float64_bits(0x7FFFFFFFFFFFFFFFull)},
      {Bool(false), Bool(true)},
      {U(0, 0), U(0xFF, 0xFF)},
      {Stamp("00 00 00 00 00 00 00 00 00 00 00 00"), IncompleteStamp(0xFFFF)},
      {TupleValue::user(0x40, ""), TupleValue::user(0x4F, "\xff\xff")},
  };
  for (size_t ci = 0; ci < classes.size(); ++ci) {
    for (size_t cj = ci + 1; cj < classes.size(); ++cj) {
      for (const TupleValue& a : classes[ci]) {
        for (const TupleValue& b : classes[cj]) {
          EXPECT_LT(compare(a, b), 0) << repr(a) << " vs " << repr(b);
          EXPECT_GT(compare(b, a), 0) << repr(b) << " vs " << repr(a);
        }
      }
    }
  }
}

TEST(TupleOrder, BytesAndStringsCompareUnsignedByteByByte) {
  ExpectAscending<TupleValue>({B(""), B(std::string_view("\0", 1)), B(std::string_view("\0\0", 2)),
                               B(std::string_view("\0\x01", 2)), B("\x01"), B("A"), B("a"),
                               B("ab"), B("\x7f"), B("\x80"), B("\xff"),
                               B(std::string_view("\xff\0", 2))});
  // By UTF-8 bytes, which is code point order: U+1F525 sorts after U+E000
  // here, though its UTF-16 form (D83D DD25) would sort before it.
  ExpectAscending<TupleValue>({S(""), S("B"), S("a"), S(std::string_view("a\0", 2)), S("a\x01"),
                               S("\xC2\x80"), S("\xEE\x80\x80"), S("\xEF\xBF\xBF"),
                               S("\xF0\x9F\x94\xA5"), S("\xF4\x8F\xBF\xBF")});
}

TEST(TupleOrder, IntegersCompareNumericallyWhateverTheirWidth) {
  ExpectAscending<TupleValue>({Widest(true), Big("-18446744073709551616"),
                               Big("-18446744073709551615"), Big("-9223372036854775809"),
                               I(kMin64), I(-256), I(-255), I(-1), I(0), I(1), I(255), I(256),
                               I(kMax64), Big("9223372036854775808"), Big("18446744073709551615"),
                               Big("18446744073709551616"), Widest(false)});
}

// IEEE totalOrder on the raw bits: negative NaNs (the larger the payload, the
// lower) < -inf < negative numbers < -0 < +0 < positive numbers < +inf <
// positive NaNs (the larger the payload, the higher).
TEST(TupleOrder, FloatsAndDoublesFollowIeeeTotalOrder) {
  std::vector<TupleValue> floats;
  for (uint32_t bits : {0xFFFFFFFFu, 0xFFC00000u, 0xFF800001u, 0xFF800000u, 0xFF7FFFFFu,
                        0xBF800000u, 0x80000001u, 0x80000000u, 0x00000000u, 0x00000001u,
                        0x3F800000u, 0x7F7FFFFFu, 0x7F800000u, 0x7F800001u, 0x7FC00000u,
                        0x7FFFFFFFu}) {
    floats.push_back(TupleValue::float32_bits(bits));
  }
  ExpectAscending(floats);
  ExpectAscending<TupleValue>({TupleValue::float64_bits(~uint64_t{0}),
                               TupleValue::float64_bits(0xFFF8000000000000ull),
                               TupleValue::float64_bits(0xFFF0000000000001ull), D(-INFINITY),
                               D(-std::numeric_limits<double>::max()), D(-1.0),
                               D(-std::numeric_limits<double>::denorm_min()), D(-0.0), D(0.0),
                               D(std::numeric_limits<double>::denorm_min()),
                               D(std::numeric_limits<double>::min()), D(1.0),
                               D(std::nextafter(1.0, 2.0)), D(std::numeric_limits<double>::max()),
                               D(INFINITY), TupleValue::float64_bits(0x7FF0000000000001ull),
                               TupleValue::float64_bits(0x7FF8000000000000ull),
                               TupleValue::float64_bits(0x7FFFFFFFFFFFFFFFull)});
}

TEST(TupleOrder, BoolsUuidsStampsAndUserTypes) {
  ExpectAscending<TupleValue>({Bool(false), Bool(true)});
  // Unsigned bytes, the first byte deciding: 0x80 is above 0x7F.
  ExpectAscending<TupleValue>({U(0, 0), U(0, 1), U(0, 0xFF), U(1, 0), U(0x7F, 0xFF), U(0x80, 0),
                               U(0xFF, 0xFF)});
  // Commit version, then batch, then user version; an incomplete stamp's
  // all-FF transaction version is above every complete one.
  ExpectAscending<TupleValue>({Stamp("00 00 00 00 00 00 00 00 00 00 00 00"),
                               Stamp("00 00 00 00 00 00 00 00 00 00 FF FF"),
                               Stamp("00 00 00 00 00 00 00 00 00 01 00 00"),
                               Stamp("00 00 00 00 00 00 00 01 00 00 00 00"),
                               Stamp("80 00 00 00 00 00 00 00 00 00 00 00"),
                               Stamp("FF FF FF FF FF FF FF FF FF FE FF FF"), IncompleteStamp(0),
                               IncompleteStamp(1), IncompleteStamp(0xFFFF)});
  // The user code first, then the payload's bytes.
  ExpectAscending<TupleValue>({TupleValue::user(0x40, ""),
                               TupleValue::user(0x40, std::string_view("\0", 1)),
                               TupleValue::user(0x40, "a"), TupleValue::user(0x40, "ab"),
                               TupleValue::user(0x40, "\xff\xff"), TupleValue::user(0x41, ""),
                               TupleValue::user(0x4F, "")});
  EXPECT_EQ(compare(Null(), Null()), 0);
}

TEST(TupleOrder, TuplesCompareElementByElementAndPrefixesComeFirst) {
  ExpectAscending<TupleValue>({N({}), N({Null()}), N({Null(), Null()}), N({Null(), I(0)}),
                               N({B("")}), N({N({})}), N({N({I(9)})}), N({I(1)}),
                               N({I(1), Null()}), N({I(1), N({})}), N({I(1), N({I(0)})}),
                               N({I(2)})});
  ExpectAscending<Tuple>({{}, {Null()}, {Null(), Null()}, {S("a")}, {S("a"), I(-1)},
                          {S("a"), I(0)}, {S("a"), I(0), Null()}, {S("b")}, {I(0)}});
  // Equal contents compare equal however deep.
  EXPECT_EQ(compare(Tuple{N({N({S("x"), D(-0.0)})})}, Tuple{N({N({S("x"), D(-0.0)})})}), 0);
  EXPECT_NE(compare(Tuple{N({N({S("x"), D(-0.0)})})}, Tuple{N({N({S("x"), D(0.0)})})}), 0);
}

}  // namespace
}  // namespace tuplekv
