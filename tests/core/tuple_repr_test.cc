// repr(): the readable, Python-like text of tuples that tuple_repr() shows
// and messages quote. Every form the file-top comment of core/tuple_repr.cc
// promises is pinned here: None and the bools, integers of any width, the
// bytes and string literals with their escapes and Python's choice of quote
// (invalid UTF-8 and the C1 controls U+0080..U+009F included), doubles
// spelled as Python's repr() spells them (shortest text that reads back,
// positional from 1e-4 up to 1e16), the float32 SingleFloat form with
// float32 digits, NaNs other than the default one shown by their raw bits
// (distinct NaNs are distinct keys), UUIDs, complete and incomplete
// versionstamps, nested tuples with the 1-tuple's trailing comma, user types,
// and repr_packed()'s hex for bytes that do not unpack.
#include "core/tuple.h"
#include "tests/core/tuple_makers.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>

namespace tuplekv {
namespace {

using namespace tuple_makers;
// Twelve bytes written as hex, spaces allowed.
TupleValue Stamp(std::string_view spaced_hex) {
  std::string hex;
  for (char c : spaced_hex) {
    if (c != ' ') hex.push_back(c);
  }
  Bytes b;
  EXPECT_TRUE(from_hex(hex, &b) && b.size() == 12) << spaced_hex;
  Versionstamp v{};
  std::memcpy(v.data(), b.data(), b.size() < v.size() ? b.size() : v.size());
  return TupleValue::versionstamp(v);
}
TupleValue IncompleteStamp(uint16_t user_version) {
  Versionstamp v;
  v.fill(0xFF);
  v[10] = static_cast<uint8_t>(user_version >> 8);
  v[11] = static_cast<uint8_t>(user_version);
  return TupleValue::versionstamp(v);
}

std::string hex_escape(uint8_t c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02x", c);
  return buf;
}

// Significant decimal digits of a finite number's text, sign, point,
// exponent and leading/trailing zeros aside: "0.00120" and "1.2e-03" both 2.
size_t significant_digits(std::string_view text) {
  std::string digits;
  for (char c : text.substr(0, text.find('e'))) {
    if (c >= '0' && c <= '9') digits.push_back(c);
  }
  const size_t first = digits.find_first_not_of('0');
  if (first == std::string::npos) return 1;
  return digits.find_last_not_of('0') - first + 1;
}

// ---------------------------------------------------------------------------
// The forms at a glance

TEST(TupleRepr, PythonLike) {
  EXPECT_EQ(repr(Tuple{S("CA"), S("Alameda"), I(42)}), "('CA', 'Alameda', 42)");
  EXPECT_EQ(repr(Tuple{}), "()");
  EXPECT_EQ(repr(Tuple{I(1)}), "(1,)");
  EXPECT_EQ(repr(Tuple{N({I(1)}), N({}), N({I(1), I(2)})}), "((1,), (), (1, 2))");
  EXPECT_EQ(repr(B(std::string_view("\x00\xff", 2))), "b'\\x00\\xff'");
  EXPECT_EQ(repr(B("a'b\\\t\n\r\x7f ~")), "b\"a'b\\\\\\t\\n\\r\\x7f ~\"");
  EXPECT_EQ(repr(B("'\"")), "b'\\'\"'");
  EXPECT_EQ(repr(Null()), "None");
  EXPECT_EQ(repr(Bool(true)), "True");
  EXPECT_EQ(repr(Bool(false)), "False");
  EXPECT_EQ(repr(S("it's")), "\"it's\"");
  EXPECT_EQ(repr(S("a\"b")), "'a\"b'");
  EXPECT_EQ(repr(S("\xC3\xA9\xF0\x9F\x94\xA5")), "'\xC3\xA9\xF0\x9F\x94\xA5'");
  EXPECT_EQ(repr(S(std::string_view("\0\x01\xC2\x85", 4))), "'\\x00\\x01\\x85'");
  EXPECT_EQ(repr(S("bad\xFF\xE2\x82")), "'bad\\xff\\xe2\\x82'");
  EXPECT_EQ(repr(I(std::numeric_limits<int64_t>::min())), "-9223372036854775808");
  EXPECT_EQ(repr(Big("-18446744073709551616")), "-18446744073709551616");
}

TEST(TupleRepr, PackedKeysOrHex) {
  EXPECT_EQ(repr_packed(std::string_view("\x02user\x00\x15\x02", 8)), "('user', 2)");
  EXPECT_EQ(repr_packed(""), "()");
  EXPECT_EQ(repr_packed(std::string_view("\x02us\xff", 4)), "x'027573ff'");  // no terminator
}

TEST(TupleRepr, Numbers) {
  EXPECT_EQ(repr(D(1.5)), "1.5");
  EXPECT_EQ(repr(D(1.0)), "1.0");
  EXPECT_EQ(repr(D(-0.0)), "-0.0");
  EXPECT_EQ(repr(D(0.0)), "0.0");
  EXPECT_EQ(repr(D(0.1)), "0.1");
  EXPECT_EQ(repr(D(123.456)), "123.456");
  EXPECT_EQ(repr(D(1e16)), "1e+16");
  EXPECT_EQ(repr(D(1e15)), "1000000000000000.0");
  EXPECT_EQ(repr(D(1.5e300)), "1.5e+300");
  EXPECT_EQ(repr(D(0.0001)), "0.0001");
  EXPECT_EQ(repr(D(0.00001)), "1e-05");
  EXPECT_EQ(repr(D(-2.5e-10)), "-2.5e-10");
  EXPECT_EQ(repr(D(5e-324)), "5e-324");
  EXPECT_EQ(repr(D(12345678901234567.0)), "1.2345678901234568e+16");
  EXPECT_EQ(repr(D(std::numeric_limits<double>::infinity())), "float('inf')");
  EXPECT_EQ(repr(D(-std::numeric_limits<double>::infinity())), "float('-inf')");
  EXPECT_EQ(repr(TupleValue::float64_bits(0x7FF8000000000000ull)), "float('nan')");
  EXPECT_EQ(repr(TupleValue::float64_bits(0xFFF8000000000000ull)), "NaN(0xfff8000000000000)");
  EXPECT_EQ(repr(TupleValue::float64_bits(0x7FF0000000000001ull)), "NaN(0x7ff0000000000001)");
  EXPECT_EQ(repr(F(1.5f)), "SingleFloat(1.5)");
  EXPECT_EQ(repr(F(3.14f)), "SingleFloat(3.14)");
  EXPECT_EQ(repr(F(-42.0f)), "SingleFloat(-42.0)");
  EXPECT_EQ(repr(F(-0.0f)), "SingleFloat(-0.0)");
  EXPECT_EQ(repr(F(1e20f)), "SingleFloat(1e+20)");
  EXPECT_EQ(repr(TupleValue::float32_bits(0x7F800000u)), "SingleFloat(float('inf'))");
  EXPECT_EQ(repr(TupleValue::float32_bits(0x7FC00000u)), "SingleFloat(float('nan'))");
  EXPECT_EQ(repr(TupleValue::float32_bits(0x7F800001u)), "SingleFloat(NaN(0x7f800001))");
}

TEST(TupleRepr, UuidStampUser) {
  Uuid u;
  for (size_t i = 0; i < 16; ++i) u[i] = static_cast<uint8_t>(i * 0x11);
  EXPECT_EQ(repr(TupleValue::uuid(u)), "UUID('00112233-4455-6677-8899-aabbccddeeff')");
  EXPECT_EQ(repr(Stamp("AA BB CC DD EE FF 00 01 02 03 01 02")),
            "Versionstamp(b'\\xaa\\xbb\\xcc\\xdd\\xee\\xff\\x00\\x01\\x02\\x03', 258)");
  EXPECT_EQ(repr(IncompleteStamp(7)), "Versionstamp(None, 7)");
  EXPECT_EQ(repr(TupleValue::user(0x40, "\x01z")), "UserType(0x40, b'\\x01z')");
}

// ---------------------------------------------------------------------------
// Scalars

TEST(TupleRepr, IntegersOfAnyWidthInDecimal) {
  EXPECT_EQ(repr(I(0)), "0");
  EXPECT_EQ(repr(I(-1)), "-1");
  EXPECT_EQ(repr(I(std::numeric_limits<int64_t>::max())), "9223372036854775807");
  for (const char* big : {"9223372036854775808", "-9223372036854775809", "18446744073709551615",
                          "-18446744073709551615", "18446744073709551616",
                          "123456789012345678901234567890123456789012345678901234567890",
                          "-123456789012345678901234567890123456789012345678901234567890"}) {
    ASSERT_EQ(Big(big).type(), ElementType::kBigInt) << big;
    EXPECT_EQ(repr(Big(big)), big);
  }
}

// Each byte between two letters: printable ASCII as itself, the four
// escapes, everything else (controls, DEL, 0x80..0xFF) as lower-case \xNN.
TEST(TupleRepr, EveryByteOfABytesLiteral) {
  for (int c = 0; c < 256; ++c) {
    const std::string value = std::string("a") + static_cast<char>(c) + "b";
    std::string body;
    switch (c) {
      case '\t': body = "\\t"; break;
      case '\n': body = "\\n"; break;
      case '\r': body = "\\r"; break;
      case '\\': body = "\\\\"; break;
      default:
        body = c >= 0x20 && c < 0x7F ? std::string(1, static_cast<char>(c))
                                     : hex_escape(static_cast<uint8_t>(c));
    }
    const char quote = c == '\'' ? '"' : '\'';  // ' alone switches to "..."
    EXPECT_EQ(repr(B(value)), "b" + std::string(1, quote) + "a" + body + "b" + quote) << c;
  }
  EXPECT_EQ(repr(B("")), "b''");
  EXPECT_EQ(repr(B("\"")), "b'\"'");
  EXPECT_EQ(repr(B("it's \\")), "b\"it's \\\\\"");
}

// ASCII takes the bytes literal's escapes; U+0080..U+009F are control
// characters too and show as \xNN; from U+00A0 on, code points are as is.
TEST(TupleRepr, EveryCharacterUpToU00FFOfAString) {
  for (int cp = 0; cp < 0x100; ++cp) {
    std::string ch;
    if (cp < 0x80) {
      ch.push_back(static_cast<char>(cp));
    } else {
      ch.push_back(static_cast<char>(0xC0 | (cp >> 6)));
      ch.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
    std::string body;
    switch (cp) {
      case '\t': body = "\\t"; break;
      case '\n': body = "\\n"; break;
      case '\r': body = "\\r"; break;
      case '\\': body = "\\\\"; break;
      default: {
        const bool control = cp < 0x20 || (cp >= 0x7F && cp < 0xA0);
        body = control ? hex_escape(static_cast<uint8_t>(cp)) : ch;
      }
    }
    const char quote = cp == '\'' ? '"' : '\'';
    EXPECT_EQ(repr(S("a" + ch + "b")), std::string(1, quote) + "a" + body + "b" + quote) << cp;
  }
  EXPECT_EQ(repr(S("")), "''");
  EXPECT_EQ(repr(S("\xF4\x8F\xBF\xBF")), "'\xF4\x8F\xBF\xBF'");  // U+10FFFF
}

// With both quotes present the single quote is used, and escaped.
TEST(TupleRepr, QuoteChoiceWhenTextHoldsBothQuotes) {
  EXPECT_EQ(repr(S("'\"")), "'\\'\"'");
  EXPECT_EQ(repr(S("don't \"x\"")), "'don\\'t \"x\"'");
  EXPECT_EQ(repr(S("'''")), "\"'''\"");
  EXPECT_EQ(repr(B("'\"'")), "b'\\'\"\\''");
}

// Each byte of an ill-formed sequence is \xNN on its own; a well-formed
// character right after it is shown as itself.
TEST(TupleRepr, BytesThatAreNotUtf8InAString) {
  EXPECT_EQ(repr(S("\x80")), "'\\x80'");                         // stray continuation
  EXPECT_EQ(repr(S("\xC0\xAF")), "'\\xc0\\xaf'");                // overlong '/'
  EXPECT_EQ(repr(S("\xED\xA0\x80")), "'\\xed\\xa0\\x80'");       // surrogate U+D800
  EXPECT_EQ(repr(S("\xF4\x90\x80\x80")), "'\\xf4\\x90\\x80\\x80'");  // above U+10FFFF
  EXPECT_EQ(repr(S("\xC2" "A")), "'\\xc2A'");                    // lead byte, no continuation
  EXPECT_EQ(repr(S("\xE2\x82\xC3\xA9")), "'\\xe2\\x82\xC3\xA9'");  // cut, then U+00E9
  EXPECT_EQ(repr(S("\xF0\x9F\x94")), "'\\xf0\\x9f\\x94'");       // cut at the end
  EXPECT_EQ(repr(S("\xC2\x9F\xC2")), "'\\x9f\\xc2'");            // U+009F, then a cut lead
}

TEST(TupleRepr, DoublesAtPythonsBoundaries) {
  // Positional below 1e16, scientific from it on, with a signed two-digit
  // exponent at least.
  EXPECT_EQ(repr(D(9999999999999998.0)), "9999999999999998.0");
  EXPECT_EQ(repr(D(-1e16)), "-1e+16");
  EXPECT_EQ(repr(D(1e22)), "1e+22");
  EXPECT_EQ(repr(D(100.0)), "100.0");
  EXPECT_EQ(repr(D(123456789.0)), "123456789.0");
  // Positional down to 1e-4, scientific below it.
  EXPECT_EQ(repr(D(0.00011)), "0.00011");
  EXPECT_EQ(repr(D(9.9e-05)), "9.9e-05");
  EXPECT_EQ(repr(D(-1.5e-07)), "-1.5e-07");
  // The shortest digits that read back, not the exact binary value.
  EXPECT_EQ(repr(D(0.1 + 0.2)), "0.30000000000000004");
  EXPECT_EQ(repr(D(1.0 / 3.0)), "0.3333333333333333");
  EXPECT_EQ(repr(D(std::nextafter(1.0, 2.0))), "1.0000000000000002");
  EXPECT_EQ(repr(D(std::numeric_limits<double>::max())), "1.7976931348623157e+308");
  EXPECT_EQ(repr(D(std::numeric_limits<double>::min())), "2.2250738585072014e-308");
  EXPECT_EQ(repr(D(static_cast<double>(0.1f))), "0.10000000149011612");
  // Every NaN but 7FF8000000000000 by its bits.
  EXPECT_EQ(repr(TupleValue::float64_bits(0x7FF8000000000001ull)), "NaN(0x7ff8000000000001)");
  EXPECT_EQ(repr(TupleValue::float64_bits(0x7FFFFFFFFFFFFFFFull)), "NaN(0x7fffffffffffffff)");
  EXPECT_EQ(repr(TupleValue::float64_bits(0xFFF0000000000001ull)), "NaN(0xfff0000000000001)");
}

// float32 digits: the shortest text that reads back as the same float32,
// which is shorter than the double text of the same number.
TEST(TupleRepr, SingleFloatsUseFloat32Digits) {
  EXPECT_EQ(repr(F(0.1f)), "SingleFloat(0.1)");
  EXPECT_EQ(repr(F(1e16f)), "SingleFloat(1e+16)");
  EXPECT_EQ(repr(F(1e15f)), "SingleFloat(1000000000000000.0)");
  EXPECT_EQ(repr(F(0.0001f)), "SingleFloat(0.0001)");
  EXPECT_EQ(repr(F(1e-05f)), "SingleFloat(1e-05)");
  EXPECT_EQ(repr(F(16777216.0f)), "SingleFloat(16777216.0)");
  EXPECT_EQ(repr(F(std::numeric_limits<float>::max())), "SingleFloat(3.4028235e+38)");
  EXPECT_EQ(repr(F(std::numeric_limits<float>::min())), "SingleFloat(1.1754944e-38)");
  EXPECT_EQ(repr(F(std::numeric_limits<float>::denorm_min())), "SingleFloat(1e-45)");
  EXPECT_EQ(repr(F(0.0f)), "SingleFloat(0.0)");
  EXPECT_EQ(repr(TupleValue::float32_bits(0xFF800000u)), "SingleFloat(float('-inf'))");
  // 7FC00000 is float32's default NaN; any other, the double default's
  // sign flipped included, shows its bits.
  EXPECT_EQ(repr(TupleValue::float32_bits(0xFFC00000u)), "SingleFloat(NaN(0xffc00000))");
  EXPECT_EQ(repr(TupleValue::float32_bits(0x7FC00001u)), "SingleFloat(NaN(0x7fc00001))");
  EXPECT_EQ(repr(TupleValue::float32_bits(0x7FFFFFFFu)), "SingleFloat(NaN(0x7fffffff))");
}

// The shortest-text rule checked on many numbers: the text reads back to the
// same bits, one significant digit fewer (correctly rounded) would not, and
// it has an exponent exactly when the number is below 1e-4 or from 1e16 on.
template <typename Real>
void CheckShortest(Real x, int* positional, int* scientific) {
  std::string text = repr(std::is_same_v<Real, float> ? F(static_cast<float>(x))
                                                      : D(static_cast<double>(x)));
  if constexpr (std::is_same_v<Real, float>) {
    ASSERT_EQ(text.rfind("SingleFloat(", 0), 0u) << text;
    text = text.substr(12, text.size() - 13);
  }
  const auto read = [](const char* s) -> Real {
    if constexpr (std::is_same_v<Real, float>) return std::strtof(s, nullptr);
    return std::strtod(s, nullptr);
  };
  ASSERT_EQ(read(text.c_str()), x) << text;
  EXPECT_NE(text.find_first_of(".e"), std::string::npos) << text;
  const bool has_exponent = text.find('e') != std::string::npos;
  const Real low = static_cast<Real>(1e-4), high = static_cast<Real>(1e16);
  EXPECT_EQ(has_exponent, std::fabs(x) < low || std::fabs(x) >= high) << text;
  ++*(has_exponent ? scientific : positional);
  const int digits = static_cast<int>(significant_digits(text));
  if (digits > 1) {
    char shorter[64];
    std::snprintf(shorter, sizeof shorter, "%.*e", digits - 2, static_cast<double>(x));
    EXPECT_NE(read(shorter), x) << text << " has a shorter form " << shorter;
  }
}

TEST(TupleRepr, NumbersAreTheShortestTextThatReadsBack) {
  std::mt19937_64 rng(20240612);
  int positional = 0, scientific = 0;
  for (int i = 0; i < 20000; ++i) {
    // Alternately any bit pattern, and numbers around the positional range.
    const uint64_t r = rng();
    double d = (i % 2) ? std::bit_cast<double>(r)
                       : std::ldexp(static_cast<double>(r >> 11), static_cast<int>(r % 80) - 70);
    if (rng() & 1) d = -d;
    if (std::isfinite(d) && d != 0) CheckShortest(d, &positional, &scientific);
    float f = (i % 2) ? std::bit_cast<float>(static_cast<uint32_t>(r))
                      : std::ldexp(static_cast<float>(r >> 40), static_cast<int>(r % 80) - 60);
    if (std::isfinite(f) && f != 0) CheckShortest(f, &positional, &scientific);
  }
  EXPECT_GT(positional, 5000);
  EXPECT_GT(scientific, 5000);
}

// ---------------------------------------------------------------------------
// UUIDs, versionstamps, nesting, user types

TEST(TupleRepr, UuidsAndVersionstamps) {
  Uuid u;
  u.fill(0);
  EXPECT_EQ(repr(TupleValue::uuid(u)), "UUID('00000000-0000-0000-0000-000000000000')");
  u.fill(0xAB);
  EXPECT_EQ(repr(TupleValue::uuid(u)), "UUID('abababab-abab-abab-abab-abababababab')");
  // Complete: the 10-byte transaction version as a bytes literal, then the
  // big-endian user version. Incomplete: None for the transaction version.
  EXPECT_EQ(repr(Stamp("61 62 63 64 65 66 67 68 69 6A FF FF")),
            "Versionstamp(b'abcdefghij', 65535)");
  EXPECT_EQ(repr(Stamp("FF FF FF FF FF FF FF FF FF FE 00 00")),
            "Versionstamp(b'\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xff\\xfe', 0)");
  EXPECT_EQ(repr(IncompleteStamp(0)), "Versionstamp(None, 0)");
  EXPECT_EQ(repr(IncompleteStamp(0xFFFF)), "Versionstamp(None, 65535)");
}

TEST(TupleRepr, NestedTuples) {
  EXPECT_EQ(repr(Tuple{N({I(1)})}), "((1,),)");
  EXPECT_EQ(repr(Tuple{N({})}), "((),)");
  EXPECT_EQ(repr(Tuple{N({N({N({})})})}), "((((),),),)");
  EXPECT_EQ(repr(Tuple{Null(), N({Null()}), N({Null(), Null()})}), "(None, (None,), (None, None))");
  EXPECT_EQ(repr(Tuple{S("a"), N({B(""), N({D(1.5), Bool(false)})}), TupleValue::user(0x40, "")}),
            "('a', (b'', (1.5, False)), UserType(0x40, b''))");
  // A nested element reads as the tuple it holds.
  const Tuple t = {I(1), S("x")};
  EXPECT_EQ(repr(N(t)), repr(t));
  EXPECT_EQ(repr(N({})), "()");
}

TEST(TupleRepr, UserTypes) {
  EXPECT_EQ(repr(TupleValue::user(0x4F, "")), "UserType(0x4f, b'')");
  EXPECT_EQ(repr(TupleValue::user(0x4A, std::string_view("\0\xff", 2))),
            "UserType(0x4a, b'\\x00\\xff')");
  EXPECT_EQ(repr(TupleValue::user(0x41, "it's")), "UserType(0x41, b\"it's\")");
}

// A key that does not unpack is shown whole as hex, never half in words.
TEST(TupleRepr, DamagedKeysAreHexWholeOnesAreWords) {
  EXPECT_EQ(repr_packed(std::string_view("\x02\xff\x00", 3)), "x'02ff00'");   // invalid UTF-8
  EXPECT_EQ(repr_packed("\x15\x01\x16\x01"), "x'15011601'");  // truncated int
  EXPECT_EQ(repr_packed(std::string_view("\x15\x00", 2)), "x'1500'");     // non-minimal
  // A user type takes the rest of the key; an incomplete stamp unpacks too.
  EXPECT_EQ(repr_packed("\x40z\x15\x01"), "(UserType(0x40, b'z\\x15\\x01'),)");
  const std::string stamp_key =
      std::string(1, '\x33') + std::string(10, '\xff') + std::string("\0\x07", 2);
  EXPECT_EQ(repr_packed(stamp_key), "(Versionstamp(None, 7),)");
}

}  // namespace
}  // namespace tuplekv
