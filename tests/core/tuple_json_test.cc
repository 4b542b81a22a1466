// The JSON form of tuples (core/tuple_json.h): the exact text written for
// every element type, number spelling (shortest round-trip digits, always
// with '.' or an exponent, checked against printf), the round trip of every
// blob in the shared golden vectors (python-1296 lines separately), random
// tuples and random bytes, and every class of bad JSON with its message.
#include "core/tuple_json.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace tuplekv {
namespace {

Bytes H(std::string_view hex) {
  Bytes out;
  EXPECT_TRUE(from_hex(hex, &out)) << hex;
  return out;
}

TupleValue I(int64_t v) { return TupleValue::int64(v); }
TupleValue S(std::string_view s) { return TupleValue::string(s); }
TupleValue B(std::string_view s) { return TupleValue::bytes(s); }
TupleValue N(Tuple t) { return TupleValue::nested(std::move(t)); }
TupleValue D(double d) { return TupleValue::float64(d); }
TupleValue Dbits(uint64_t bits) { return TupleValue::float64_bits(bits); }
TupleValue Fbits(uint32_t bits) { return TupleValue::float32_bits(bits); }
TupleValue Big(std::string_view decimal) {
  Result<BigInt> b = BigInt::from_decimal(decimal);
  EXPECT_TRUE(b.ok()) << decimal;
  return TupleValue::integer(b.ok() ? *b : BigInt());
}
TupleValue Stamp(std::string_view hex) {
  const Bytes b = H(hex);
  Versionstamp v{};
  std::memcpy(v.data(), b.data(), v.size());
  return TupleValue::versionstamp(v);
}

std::string json_of(const Tuple& t) {
  std::string out;
  const Status s = tuple_to_json(t, &out);
  EXPECT_TRUE(s.ok()) << s.message();
  return out;
}

// Parses `json`, expecting success.
Tuple parse(std::string_view json) {
  Tuple t;
  const Status s = tuple_from_json(json, &t);
  EXPECT_TRUE(s.ok()) << json << ": " << s.message();
  return t;
}

// Parses `json`, expecting failure; returns the message.
std::string parse_error(std::string_view json) {
  Tuple t;
  const Status s = tuple_from_json(json, &t);
  EXPECT_FALSE(s.ok()) << json << " parsed as " << repr(t);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.message();
  return s.message();
}

// The JSON of one double / float32.
std::string double_json(double d) { return json_of({D(d)}); }
std::string double_bits_json(uint64_t bits) { return json_of({Dbits(bits)}); }
std::string float_bits_json(uint32_t bits) { return json_of({Fbits(bits)}); }

// ---------------------------------------------------------------------------
// Writing: one case per element type

TEST(TupleJsonWrite, EveryElementType) {
  Uuid u;
  for (size_t i = 0; i < u.size(); ++i) u[i] = static_cast<uint8_t>(i * 0x11);
  const Tuple t = {
      TupleValue::null(),
      I(-12),
      Big("18446744073709551616"),
      D(1.5),
      Fbits(std::bit_cast<uint32_t>(1.5f)),
      S("caf\xC3\xA9"),
      B(std::string_view("\x00\xff", 2)),
      TupleValue::boolean(true),
      TupleValue::boolean(false),
      TupleValue::uuid(u),
      Stamp("0102030405060708090a0b0c"),
      N({I(1), N({I(2), TupleValue::null()})}),
      TupleValue::user(0x40, "\x01\x02"),
  };
  EXPECT_EQ(json_of(t),
            "[null,-12,18446744073709551616,1.5,{\"$float\":1.5},\"caf\xC3\xA9\","
            "{\"$bytes\":\"00ff\"},true,false,{\"$uuid\":\"00112233445566778899aabbccddeeff\"},"
            "{\"$versionstamp\":\"0102030405060708090a0b0c\"},[1,[2,null]],"
            "{\"$user\":64,\"data\":\"0102\"}]");
  EXPECT_EQ(parse(json_of(t)), t);
  EXPECT_EQ(json_of({}), "[]");
  EXPECT_EQ(json_of({N({})}), "[[]]");
  EXPECT_EQ(json_of({B(""), S("")}), "[{\"$bytes\":\"\"},\"\"]");
  EXPECT_EQ(json_of({TupleValue::user(0x4F, "")}), "[{\"$user\":79,\"data\":\"\"}]");
}

TEST(TupleJsonWrite, StringsEscapeQuotesBackslashAndControls) {
  EXPECT_EQ(json_of({S(std::string_view("a\0b", 3))}), "[\"a\\u0000b\"]");
  EXPECT_EQ(json_of({S("\"\\/")}), "[\"\\\"\\\\/\"]");
  EXPECT_EQ(json_of({S("\b\f\n\r\t")}), "[\"\\b\\f\\n\\r\\t\"]");
  EXPECT_EQ(json_of({S("\x01\x1f\x7f")}), "[\"\\u0001\\u001f\\u007f\"]");
  // Everything else, U+0080 up to U+10FFFF, is kept as UTF-8.
  EXPECT_EQ(json_of({S("\xC2\x80\xEF\xBF\xBF\xF4\x8F\xBF\xBF")}),
            "[\"\xC2\x80\xEF\xBF\xBF\xF4\x8F\xBF\xBF\"]");
  // Every byte value below 0x80 reads back as itself.
  std::string all;
  for (int c = 0; c < 0x80; ++c) all.push_back(static_cast<char>(c));
  EXPECT_EQ(parse(json_of({S(all)})), (Tuple{S(all)}));
}

TEST(TupleJsonWrite, IntegersKeepEveryDigit) {
  EXPECT_EQ(json_of({I(0), I(-1), I(std::numeric_limits<int64_t>::min()),
                     I(std::numeric_limits<int64_t>::max())}),
            "[0,-1,-9223372036854775808,9223372036854775807]");
  EXPECT_EQ(json_of({Big("-9223372036854775809"), Big("18446744073709551615"),
                     Big("-18446744073709551615")}),
            "[-9223372036854775809,18446744073709551615,-18446744073709551615]");
  // The largest magnitude the tuple layer holds: 255 bytes of FF.
  Result<BigInt> max = BigInt::from_magnitude(Bytes(255, '\xff'), false);
  ASSERT_TRUE(max.ok());
  const std::string digits = max->to_decimal();
  EXPECT_EQ(digits.size(), 615u);
  EXPECT_EQ(json_of({TupleValue::integer(*max)}), "[" + digits + "]");
  EXPECT_EQ(parse("[" + digits + "]"), (Tuple{TupleValue::integer(*max)}));
  EXPECT_EQ(parse("[-" + digits + "]"),
            (Tuple{TupleValue::integer(*BigInt::from_magnitude(Bytes(255, '\xff'), true))}));
}

TEST(TupleJsonWrite, DoublesAlwaysLookLikeDoubles) {
  EXPECT_EQ(double_json(1.0), "[1.0]");
  EXPECT_EQ(double_json(0.0), "[0.0]");
  EXPECT_EQ(double_json(-2.5), "[-2.5]");
  EXPECT_EQ(double_json(100.0), "[100.0]");
  EXPECT_EQ(double_json(0.1), "[0.1]");
  EXPECT_EQ(double_json(0.30000000000000004), "[0.30000000000000004]");
  EXPECT_EQ(double_json(1e15), "[1000000000000000.0]");
  EXPECT_EQ(double_json(1e16), "[1e+16]");
  EXPECT_EQ(double_json(123456789012345680000.0), "[1.2345678901234568e+20]");
  EXPECT_EQ(double_json(0.0001), "[0.0001]");
  EXPECT_EQ(double_json(0.00001), "[1e-05]");
  EXPECT_EQ(double_json(1.5e-7), "[1.5e-07]");
  EXPECT_EQ(double_json(1e300), "[1e+300]");
  EXPECT_EQ(double_json(std::numeric_limits<double>::max()), "[1.7976931348623157e+308]");
  EXPECT_EQ(double_json(std::numeric_limits<double>::min()), "[2.2250738585072014e-308]");
  EXPECT_EQ(double_json(std::numeric_limits<double>::denorm_min()), "[5e-324]");
  EXPECT_EQ(double_json(-std::numeric_limits<double>::denorm_min()), "[-5e-324]");
  EXPECT_EQ(double_json(9007199254740993.0), "[9007199254740992.0]");
}

TEST(TupleJsonWrite, DoublesANumberCannotCarry) {
  EXPECT_EQ(double_bits_json(0x8000000000000000ull), "[{\"$double\":\"-0.0\"}]");
  EXPECT_EQ(double_bits_json(0x7ff0000000000000ull), "[{\"$double\":\"inf\"}]");
  EXPECT_EQ(double_bits_json(0xfff0000000000000ull), "[{\"$double\":\"-inf\"}]");
  EXPECT_EQ(double_bits_json(0x7ff8000000000000ull), "[{\"$double\":\"nan\"}]");
  // Every other NaN keeps its sign and payload as raw bits.
  EXPECT_EQ(double_bits_json(0xfff8000000000000ull),
            "[{\"$double\":\"0xfff8000000000000\"}]");
  EXPECT_EQ(double_bits_json(0x7ff0000000000001ull),
            "[{\"$double\":\"0x7ff0000000000001\"}]");
  EXPECT_EQ(double_bits_json(0x7ff8000000000001ull),
            "[{\"$double\":\"0x7ff8000000000001\"}]");
  EXPECT_EQ(double_bits_json(0xffffffffffffffffull),
            "[{\"$double\":\"0xffffffffffffffff\"}]");
  for (uint64_t bits : {0x8000000000000000ull, 0x7ff0000000000000ull, 0xfff0000000000000ull,
                        0x7ff8000000000000ull, 0xfff8000000000000ull, 0x7ff0000000000001ull,
                        0xffffffffffffffffull}) {
    const Tuple t = parse(double_bits_json(bits));
    ASSERT_EQ(t.size(), 1u);
    EXPECT_EQ(t[0].float64_bits(), bits);
  }
}

TEST(TupleJsonWrite, Float32) {
  auto f = [](float v) { return float_bits_json(std::bit_cast<uint32_t>(v)); };
  EXPECT_EQ(f(1.5f), "[{\"$float\":1.5}]");
  EXPECT_EQ(f(0.0f), "[{\"$float\":0.0}]");
  EXPECT_EQ(f(0.1f), "[{\"$float\":0.1}]");  // float32 digits, not 0.10000000149011612
  EXPECT_EQ(f(1e10f), "[{\"$float\":10000000000.0}]");
  EXPECT_EQ(f(1e16f), "[{\"$float\":1e+16}]");
  EXPECT_EQ(f(std::numeric_limits<float>::max()), "[{\"$float\":3.4028235e+38}]");
  EXPECT_EQ(f(std::numeric_limits<float>::denorm_min()), "[{\"$float\":1e-45}]");
  EXPECT_EQ(float_bits_json(0x80000000u), "[{\"$float\":\"-0.0\"}]");
  EXPECT_EQ(float_bits_json(0x7f800000u), "[{\"$float\":\"inf\"}]");
  EXPECT_EQ(float_bits_json(0xff800000u), "[{\"$float\":\"-inf\"}]");
  EXPECT_EQ(float_bits_json(0x7fc00000u), "[{\"$float\":\"nan\"}]");
  EXPECT_EQ(float_bits_json(0xffc00000u), "[{\"$float\":\"0xffc00000\"}]");
  EXPECT_EQ(float_bits_json(0x7f800001u), "[{\"$float\":\"0x7f800001\"}]");
  for (uint32_t bits : {0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u,
                        0x7f800001u, 0xffffffffu, 0x00000001u}) {
    const Tuple t = parse(float_bits_json(bits));
    ASSERT_EQ(t.size(), 1u);
    EXPECT_EQ(t[0].type(), ElementType::kFloat);
    EXPECT_EQ(t[0].float32_bits(), bits);
  }
}

// The number inside the JSON of a double or float element.
std::string number_text(const std::string& json) {
  std::string s = json.substr(1, json.size() - 2);  // drop [ ]
  if (s.rfind("{\"$float\":", 0) == 0) s = s.substr(10, s.size() - 11);
  return s;
}

// The fewest significant digits (by printf %.*e) that read back as `d`.
int shortest_digits(double d) {
  char buf[64];
  for (int p = 0; p < 17; ++p) {
    std::snprintf(buf, sizeof buf, "%.*e", p, d);
    if (std::strtod(buf, nullptr) == d) return p + 1;
  }
  return 17;
}

int shortest_digits(float f) {
  char buf[64];
  for (int p = 0; p < 9; ++p) {
    std::snprintf(buf, sizeof buf, "%.*e", p, static_cast<double>(f));
    if (std::strtof(buf, nullptr) == f) return p + 1;
  }
  return 9;
}

// Significant digits in a decimal number's text.
int significant_digits(const std::string& number) {
  std::string digits;
  for (char c : number) {
    if (c == 'e' || c == 'E') break;
    if (c >= '0' && c <= '9') digits.push_back(c);
  }
  const size_t first = digits.find_first_not_of('0');
  if (first == std::string::npos) return 1;
  const size_t last = digits.find_last_not_of('0');
  return static_cast<int>(last - first + 1);
}

TEST(TupleJsonWrite, RandomDoublesAreShortestAndReadBackExactly) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20000; ++i) {
    uint64_t bits = rng();
    if (i % 4 == 0) bits &= 0x800fffffffffffffull | (uint64_t{rng() % 8} << 52);  // tiny
    const double d = std::bit_cast<double>(bits);
    const std::string json = double_bits_json(bits);
    const Tuple back = parse(json);
    ASSERT_EQ(back.size(), 1u);
    ASSERT_EQ(back[0].float64_bits(), bits) << json;
    if (!std::isfinite(d) || bits == 0x8000000000000000ull) continue;
    const std::string num = number_text(json);
    ASSERT_NE(num.find_first_of(".e"), std::string::npos) << num;
    ASSERT_EQ(significant_digits(num), shortest_digits(d)) << num;
  }
}

TEST(TupleJsonWrite, RandomFloatsAreShortestAndReadBackExactly) {
  std::mt19937 rng(11);
  for (int i = 0; i < 20000; ++i) {
    const uint32_t bits = static_cast<uint32_t>(rng());
    const float f = std::bit_cast<float>(bits);
    const std::string json = float_bits_json(bits);
    const Tuple back = parse(json);
    ASSERT_EQ(back.size(), 1u);
    ASSERT_EQ(back[0].type(), ElementType::kFloat);
    ASSERT_EQ(back[0].float32_bits(), bits) << json;
    if (!std::isfinite(f) || bits == 0x80000000u) continue;
    const std::string num = number_text(json);
    ASSERT_NE(num.find_first_of(".e"), std::string::npos) << num;
    ASSERT_EQ(significant_digits(num), shortest_digits(f)) << num;
  }
}

TEST(TupleJsonWrite, RefusesWhatPackRefuses) {
  std::string out;
  Status s = tuple_to_json({I(1), N({S("\xff")})}, &out);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "tuple JSON: invalid UTF-8 in the string at element 1.0");
  s = tuple_to_json({TupleValue::user(0x3F, "x")}, &out);
  EXPECT_EQ(s.message(), "tuple JSON: user type code 63 at element 0 is outside 64..79");
}

// ---------------------------------------------------------------------------
// Reading: accepted spellings

TEST(TupleJsonRead, AcceptsWhitespaceAndEquivalentSpellings) {
  EXPECT_EQ(parse(" \t\r\n[ 1 , \"a\" , [ ] ] \n"), (Tuple{I(1), S("a"), N({})}));
  EXPECT_EQ(parse("[]"), Tuple{});
  // Escapes, including surrogate pairs and an escaped key.
  EXPECT_EQ(parse("[\"caf\\u00e9 \\ud83d\\ude00 \\/\"]"),
            (Tuple{S("caf\xC3\xA9 \xF0\x9F\x98\x80 /")}));
  EXPECT_EQ(parse("[{\"\\u0024bytes\":\"00\"}]"), (Tuple{B(std::string_view("\0", 1))}));
  // Hex in either case; UUIDs with dashes.
  EXPECT_EQ(parse("[{\"$bytes\":\"ABcd\"}]"), (Tuple{B("\xab\xcd")}));
  EXPECT_EQ(parse("[{\"$uuid\":\"00112233-4455-6677-8899-AABBCCDDEEFF\"}]"),
            parse("[{\"$uuid\":\"00112233445566778899aabbccddeeff\"}]"));
  // Plain numbers for special doubles, numbers and raw bits in $double.
  EXPECT_EQ(parse("[-0.0]")[0].float64_bits(), 0x8000000000000000ull);
  EXPECT_EQ(parse("[{\"$double\":1}]"), (Tuple{D(1.0)}));
  EXPECT_EQ(parse("[{\"$double\":\"0x3FF0000000000000\"}]"), (Tuple{D(1.0)}));
  EXPECT_EQ(parse("[{\"$float\":-0.0}]")[0].float32_bits(), 0x80000000u);
  EXPECT_EQ(parse("[{\"$float\":2}]"), (Tuple{Fbits(0x40000000u)}));
  EXPECT_EQ(parse("[1E2, 1e+2, 1.5E-1]"), (Tuple{D(100.0), D(100.0), D(0.15)}));
  // Integers: -0 is 0; the int64 edges and beyond.
  EXPECT_EQ(parse("[-0]"), (Tuple{I(0)}));
  EXPECT_EQ(parse("[-9223372036854775808, 9223372036854775808]"),
            (Tuple{I(std::numeric_limits<int64_t>::min()), Big("9223372036854775808")}));
  // Keys in any order; "data" may come first.
  EXPECT_EQ(parse("[{\"data\":\"ab\",\"$user\":65}]"), (Tuple{TupleValue::user(0x41, "\xab")}));
  // Incomplete versionstamps are read (pack() refuses them, not the reader).
  const Tuple stamp = parse("[{\"$versionstamp\":\"ffffffffffffffffffff0001\"}]");
  ASSERT_EQ(stamp.size(), 1u);
  EXPECT_FALSE(stamp[0].versionstamp_complete());
}

TEST(TupleJsonRead, DoublesRoundOnceToNearest) {
  // 2^53 + 1 is halfway between two doubles; ties go to even.
  EXPECT_EQ(parse("[9007199254740993.0]"), (Tuple{D(9007199254740992.0)}));
  EXPECT_EQ(parse("[0.1]"), (Tuple{D(0.1)}));
  EXPECT_EQ(parse("[2.5e-324]"), (Tuple{Dbits(1)}));  // rounds up to the least subnormal
  // float32 rounds from the digits, not through a double: this value is
  // just above the midpoint between two floats, but its double rounding
  // lands exactly on the midpoint.
  EXPECT_EQ(parse("[{\"$float\":1.00000005960464477550}]"), (Tuple{Fbits(0x3f800001u)}));
}

// ---------------------------------------------------------------------------
// Round trips

// Python's binding spells +-(2^64-1) as 1D 08 FF*8 / 0B F7 00*8
// (apple/foundationdb#1296); this writes a tuple that way.
void pack_python_style(const Tuple& t, bool nested, Bytes* out) {
  for (const TupleValue& v : t) {
    if (v.type() == ElementType::kBigInt && v.as_bigint().magnitude() == Bytes(8, '\xff')) {
      *out += v.as_bigint().negative() ? Bytes("\x0b\xf7") + Bytes(8, '\x00')
                                       : Bytes("\x1d\x08") + Bytes(8, '\xff');
    } else if (v.type() == ElementType::kNested) {
      out->push_back('\x05');
      pack_python_style(v.as_nested(), true, out);
      out->push_back('\x00');
    } else if (v.is_null() && nested) {
      *out += Bytes("\x00\xff", 2);
    } else {
      ASSERT_TRUE(pack_element(v, out).ok());
    }
  }
}

// bytes -> unpack -> JSON -> parse -> pack; returns the final bytes.
Bytes through_json(BytesView packed, std::string* json) {
  Tuple t;
  Status s = unpack(packed, &t);
  EXPECT_TRUE(s.ok()) << to_hex(packed) << ": " << s.message();
  s = tuple_to_json(t, json);
  EXPECT_TRUE(s.ok()) << s.message();
  Tuple back;
  s = tuple_from_json(*json, &back);
  EXPECT_TRUE(s.ok()) << *json << ": " << s.message();
  EXPECT_EQ(back, t) << *json;
  Bytes again;
  s = pack_allow_incomplete(back, &again);
  EXPECT_TRUE(s.ok()) << s.message();
  return again;
}

// The value of "name":"..." in a line of the vectors file ("" if absent).
std::string string_field(const std::string& line, const std::string& name) {
  const std::string key = "\"" + name + "\":\"";
  const size_t at = line.find(key);
  if (at == std::string::npos) return "";
  const size_t start = at + key.size();
  const size_t end = line.find('"', start);
  return end == std::string::npos ? "" : line.substr(start, end - start);
}

TEST(TupleJsonVectors, EveryGoldenBlobRoundTripsByteForByte) {
  const std::string path = std::string(TUPLEKV_SHARED_DIR) + "/tuple-vectors.jsonl";
  std::ifstream in(path);
  ASSERT_TRUE(in) << "missing golden vectors: " << path;
  int lines = 0, blobs = 0, python_lines = 0, python_blobs = 0;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    ++lines;
    const bool python = line.find("\"python-1296\"") != std::string::npos;
    python_lines += python;
    const int python_blobs_before = python_blobs;
    for (const char* field : {"hex", "hex_a", "hex_b"}) {
      const std::string hex = string_field(line, field);
      if (hex.empty() && line.find(std::string("\"") + field + "\":\"\"") == std::string::npos) {
        continue;  // no such field on this line
      }
      ++blobs;
      const Bytes packed = H(hex);
      std::string json;
      const Bytes again = through_json(packed, &json);
      ASSERT_EQ(to_hex(again), hex) << "line " << lines << " " << field << ": " << json;
      if (!python) continue;
      // The Python spelling of the same tuple unpacks to the same JSON and
      // re-packs in the canonical form.
      Tuple t;
      ASSERT_TRUE(unpack(packed, &t).ok());
      Bytes py;
      pack_python_style(t, false, &py);
      if (py == packed) continue;  // an order line's other side may have none
      ++python_blobs;
      std::string py_json;
      const Bytes canonical = through_json(py, &py_json);
      EXPECT_EQ(py_json, json);
      EXPECT_EQ(to_hex(canonical), hex);
    }
    if (python) {
      EXPECT_GT(python_blobs, python_blobs_before) << "line " << lines << ": python-1296 "
                                                   << "without a +-(2^64-1) element";
    }
  }
  EXPECT_EQ(lines, 2000);
  EXPECT_EQ(blobs, 1429 + 2 * 571);
  EXPECT_EQ(python_lines, 18);
}

TEST(TupleJsonRoundTrip, IncompleteVersionstampsAnywhere) {
  const Bytes incomplete = H("33ffffffffffffffffffff0001");
  const Bytes packed = incomplete + H("05") + incomplete + H("00") + incomplete;
  std::string json;
  EXPECT_EQ(through_json(packed, &json), packed);
  EXPECT_EQ(json,
            "[{\"$versionstamp\":\"ffffffffffffffffffff0001\"},"
            "[{\"$versionstamp\":\"ffffffffffffffffffff0001\"}],"
            "{\"$versionstamp\":\"ffffffffffffffffffff0001\"}]");
  // pack() keeps refusing them; pack_allow_incomplete() is its only change.
  Tuple t;
  ASSERT_TRUE(unpack(packed, &t).ok());
  Bytes out = "keep";
  EXPECT_FALSE(pack(t, &out).ok());
  EXPECT_EQ(out, "keep");
  ASSERT_TRUE(pack_allow_incomplete(t, &out).ok());
  EXPECT_EQ(out, "keep" + packed);
  // It validates like pack() otherwise.
  EXPECT_EQ(pack_allow_incomplete({TupleValue::user(0x40, ""), I(1)}, &out).message(),
            "tuple: user type at element 0 is not the last element");
}

// A compact random tuple generator: every type, edge values, nesting.
class Gen {
 public:
  explicit Gen(uint64_t seed) : rng_(seed) {}

  Tuple tuple(int depth) {
    Tuple t;
    const size_t n = pick(depth == 0 ? 6 : 4);
    for (size_t i = 0; i < n; ++i) t.push_back(value(depth));
    if (depth == 0 && pick(8) == 0) t.push_back(TupleValue::user(0x40 + pick(16), bytes()));
    return t;
  }

  TupleValue value(int depth) {
    switch (pick(depth < 3 ? 12 : 11)) {
      case 0: return TupleValue::null();
      case 1: return TupleValue::bytes(bytes());
      case 2: return TupleValue::string(text());
      case 3: return TupleValue::int64(static_cast<int64_t>(rng_()) >> pick(64));
      case 4: {
        const Bytes mag = bytes(1 + pick(pick(4) == 0 ? 255 : 12));
        return TupleValue::integer(*BigInt::from_magnitude(mag, pick(2) == 1));
      }
      case 5: return TupleValue::float32_bits(static_cast<uint32_t>(rng_() >> pick(33)));
      case 6: return TupleValue::float64_bits(rng_() >> pick(2));
      case 7: return TupleValue::boolean(pick(2) == 1);
      case 8: {
        Uuid u;
        for (auto& b : u) b = static_cast<uint8_t>(rng_());
        return TupleValue::uuid(u);
      }
      case 9: {
        Versionstamp v;
        for (auto& b : v) b = pick(3) == 0 ? 0xFF : static_cast<uint8_t>(rng_());
        return TupleValue::versionstamp(v);
      }
      case 10: return TupleValue::integer(BigInt::from_uint64(~uint64_t{0} >> pick(2), pick(2)));
      default: return TupleValue::nested(tuple(depth + 1));
    }
  }

  size_t pick(size_t n) { return static_cast<size_t>(rng_() % n); }

 private:
  Bytes bytes(size_t n) {
    Bytes b;
    for (size_t i = 0; i < n; ++i) b.push_back(static_cast<char>(pick(3) == 0 ? 0 : rng_()));
    return b;
  }
  Bytes bytes() { return bytes(pick(6)); }

  std::string text() {
    static const char* const kPieces[] = {"a", "\"", "\\", "\x01", "\x7f", "\xC3\xA9",
                                          "\xEF\xBF\xBF", "\xF0\x9F\x98\x80", "/", "\n"};
    std::string s;
    const size_t n = pick(5);
    for (size_t i = 0; i < n; ++i) {
      const size_t k = pick(11);
      if (k == 10) {
        s.push_back('\0');
      } else {
        s += kPieces[k];
      }
    }
    return s;
  }

  std::mt19937_64 rng_;
};

TEST(TupleJsonRoundTrip, RandomTuples) {
  Gen gen(20240607);
  for (int i = 0; i < 5000; ++i) {
    const Tuple t = gen.tuple(0);
    const std::string json = json_of(t);
    ASSERT_EQ(parse(json), t) << json;
    Bytes packed;
    ASSERT_TRUE(pack_allow_incomplete(t, &packed).ok());
    std::string again;
    ASSERT_EQ(through_json(packed, &again), packed) << json;
    ASSERT_EQ(again, json);
  }
}

TEST(TupleJsonRoundTrip, RandomBytesThatDecode) {
  std::mt19937_64 rng(99);
  static constexpr uint8_t kCodes[] = {0x00, 0x01, 0x02, 0x05, 0x0b, 0x0c, 0x13, 0x14, 0x15,
                                       0x1c, 0x1d, 0x20, 0x21, 0x26, 0x27, 0x30, 0x33, 0x40,
                                       0xff, 0x00, 0x01, 0x15};
  int decoded = 0;
  for (int i = 0; i < 200000; ++i) {
    Bytes b;
    const size_t n = rng() % 24;
    for (size_t k = 0; k < n; ++k) {
      b.push_back(static_cast<char>(rng() % 3 == 0 ? rng() : kCodes[rng() % sizeof kCodes]));
    }
    Tuple t;
    if (!unpack(b, &t).ok()) continue;
    ++decoded;
    std::string json;
    const Bytes again = through_json(b, &json);
    // Only Python's long spelling of +-(2^64-1) changes on the way.
    if (again != b) {
      Bytes canonical;
      ASSERT_TRUE(pack(t, &canonical).ok());
      ASSERT_EQ(again, canonical);
      ASSERT_LT(again.size(), b.size()) << to_hex(b);
    }
  }
  EXPECT_GT(decoded, 10000);
}

TEST(TupleJsonRoundTrip, DeepestNestingTheCodecAllows) {
  // 128 nested tuples inside the top level: the codec's limit.
  Bytes packed;
  for (int i = 0; i < 128; ++i) packed.push_back('\x05');
  packed.push_back('\x15');
  packed.push_back('\x01');
  for (int i = 0; i < 128; ++i) packed.push_back('\x00');
  Tuple t;
  ASSERT_TRUE(unpack(packed, &t).ok());
  std::string json;
  EXPECT_EQ(through_json(packed, &json), packed);
  EXPECT_EQ(json, std::string(129, '[') + "1" + std::string(129, ']'));
}

// ---------------------------------------------------------------------------
// Reading: errors, each naming what and where

TEST(TupleJsonErrors, NotOneArray) {
  EXPECT_EQ(parse_error(""), "tuple JSON: invalid JSON: empty input");
  EXPECT_EQ(parse_error("  \n"), "tuple JSON: invalid JSON: empty input");
  EXPECT_EQ(parse_error("1"), "tuple JSON: the top level must be an array, at byte 0");
  EXPECT_EQ(parse_error("  {\"$bytes\":\"00\"}"),
            "tuple JSON: the top level must be an array, at byte 2");
  EXPECT_EQ(parse_error("\"[1]\""), "tuple JSON: the top level must be an array, at byte 0");
  EXPECT_EQ(parse_error("[1]x"), "tuple JSON: invalid JSON at byte 3: content after the top-level array");
  EXPECT_EQ(parse_error("[1] [2]"),
            "tuple JSON: invalid JSON at byte 4: content after the top-level array");
  EXPECT_EQ(parse_error("[1]]"), "tuple JSON: invalid JSON at byte 3: content after the top-level array");
  EXPECT_EQ(parse_error(std::string_view("[1]\0", 4)),
            "tuple JSON: invalid JSON at byte 3: content after the top-level array");
  EXPECT_EQ(parse_error("\xEF\xBB\xBF[1]"),
            "tuple JSON: invalid JSON at byte 0: byte-order mark (JSON text starts with '[')");
}

TEST(TupleJsonErrors, BrokenStructureNamesTheByte) {
  EXPECT_EQ(parse_error("[1,2"),
            "tuple JSON: invalid JSON at byte 4: unclosed array or object at the end of the input");
  EXPECT_EQ(parse_error("[[[["),
            "tuple JSON: invalid JSON at byte 4: unclosed array or object at the end of the input");
  EXPECT_EQ(parse_error("[1}"), "tuple JSON: invalid JSON at byte 2: unexpected '}'");
  EXPECT_EQ(parse_error("[1,2}]"), "tuple JSON: invalid JSON at byte 4: unexpected '}'");
  EXPECT_EQ(parse_error("[{\"$bytes\":\"00\"}}"),
            "tuple JSON: invalid JSON at byte 16: unexpected '}'");
  EXPECT_EQ(parse_error("[\"abc"), "tuple JSON: invalid JSON at byte 1: unterminated string");
  EXPECT_EQ(parse_error("[\"a\tb\"]"),
            "tuple JSON: invalid JSON at byte 3: unescaped control character in a string");
  EXPECT_EQ(parse_error("[\"a\x01\"]"),
            "tuple JSON: invalid JSON at byte 3: unescaped control character in a string");
  EXPECT_EQ(parse_error("[1 2]"),
            "tuple JSON: invalid JSON at byte 3 (element 1): unexpected character, or a missing "
            "or extra comma, colon or bracket");
  EXPECT_EQ(parse_error("[1,]"),
            "tuple JSON: invalid JSON at byte 3 (element 1): unexpected character, or a missing "
            "or extra comma, colon or bracket");
  EXPECT_EQ(parse_error("[,1]"),
            "tuple JSON: invalid JSON at byte 1 (element 0): unexpected character, or a missing "
            "or extra comma, colon or bracket");
  EXPECT_EQ(parse_error("[{\"$bytes\" \"00\"}]"),
            "tuple JSON: invalid JSON at byte 11 (element 0): unexpected character, or a missing "
            "or extra comma, colon or bracket");
  EXPECT_EQ(parse_error("[{\"$bytes\":\"00\",}]"),
            "tuple JSON: invalid JSON at byte 16 (element 0): unexpected character, or a "
            "missing or extra comma, colon or bracket");
  EXPECT_EQ(parse_error("[{1:2}]"),
            "tuple JSON: invalid JSON at byte 2 (element 0): unexpected character, or a missing "
            "or extra comma, colon or bracket");
  EXPECT_EQ(parse_error("[[1],[2,[3 4]]]"),
            "tuple JSON: invalid JSON at byte 11 (element 1.1.1): unexpected character, or a "
            "missing or extra comma, colon or bracket");
}

TEST(TupleJsonErrors, Literals) {
  EXPECT_EQ(parse_error("[nul]"),
            "tuple JSON: invalid JSON at byte 1 (element 0): invalid literal or value");
  EXPECT_EQ(parse_error("[nulll]"),
            "tuple JSON: invalid JSON at byte 1 (element 0): invalid literal or value");
  EXPECT_EQ(parse_error("[1,truex]"),
            "tuple JSON: element 1 at byte 3: invalid literal (expected true or false)");
  EXPECT_EQ(parse_error("[fals]"),
            "tuple JSON: element 0 at byte 1: invalid literal (expected true or false)");
  EXPECT_EQ(parse_error("[NaN]"),
            "tuple JSON: invalid JSON at byte 1 (element 0): unexpected character, or a missing "
            "or extra comma, colon or bracket");
  EXPECT_EQ(parse_error("[Infinity]"),
            "tuple JSON: invalid JSON at byte 1 (element 0): unexpected character, or a missing "
            "or extra comma, colon or bracket");
  EXPECT_EQ(parse_error("['a']"),
            "tuple JSON: invalid JSON at byte 1 (element 0): unexpected character, or a missing "
            "or extra comma, colon or bracket");
}

TEST(TupleJsonErrors, Numbers) {
  EXPECT_EQ(parse_error("[01]"), "tuple JSON: element 0 at byte 1: invalid number '01'");
  EXPECT_EQ(parse_error("[1.]"), "tuple JSON: element 0 at byte 1: invalid number '1.'");
  EXPECT_EQ(parse_error("[.5]"),
            "tuple JSON: invalid JSON at byte 1 (element 0): unexpected character, or a missing "
            "or extra comma, colon or bracket");
  EXPECT_EQ(parse_error("[+1]"),
            "tuple JSON: invalid JSON at byte 1 (element 0): unexpected character, or a missing "
            "or extra comma, colon or bracket");
  EXPECT_EQ(parse_error("[1e]"), "tuple JSON: element 0 at byte 1: invalid number '1e'");
  EXPECT_EQ(parse_error("[-]"), "tuple JSON: element 0 at byte 1: invalid number '-'");
  EXPECT_EQ(parse_error("[0x10]"), "tuple JSON: element 0 at byte 1: invalid number '0x10'");
  EXPECT_EQ(parse_error("[1,1e400]"),
            "tuple JSON: element 1 at byte 3: number '1e400' is out of range for a double");
  EXPECT_EQ(parse_error("[-1e400]"),
            "tuple JSON: element 0 at byte 1: number '-1e400' is out of range for a double");
  EXPECT_EQ(parse_error("[1e-400]"),
            "tuple JSON: element 0 at byte 1: number '1e-400' is out of range for a double");
  EXPECT_EQ(parse_error("[{\"$float\":3.5e38}]"),
            "tuple JSON: element 0 at byte 11: number '3.5e38' is out of range for a float32");
  EXPECT_EQ(parse_error("[{\"$float\":1e-50}]"),
            "tuple JSON: element 0 at byte 11: number '1e-50' is out of range for a float32");
  EXPECT_EQ(parse_error("[{\"$double\":1e999}]"),
            "tuple JSON: element 0 at byte 12: number '1e999' is out of range for a double");
  // Integers beyond 255 bytes of magnitude: one more than the largest.
  Result<BigInt> max = BigInt::from_magnitude(Bytes(255, '\xff'), false);
  ASSERT_TRUE(max.ok());
  std::string over = max->to_decimal();
  over.back() = static_cast<char>(over.back() + 1);  // ...215 -> ...216: 2^2040
  EXPECT_EQ(parse_error("[" + over + "]"),
            "tuple JSON: element 0 at byte 1: integer needs more than 255 bytes (the tuple "
            "layer's limit)");
  EXPECT_EQ(parse_error("[-" + over + "]"),
            "tuple JSON: element 0 at byte 1: integer needs more than 255 bytes (the tuple "
            "layer's limit)");
  // A huge token is quoted only in part, and is rejected quickly.
  const std::string huge(1 << 20, '7');
  EXPECT_EQ(parse_error("[" + huge + "]"),
            "tuple JSON: element 0 at byte 1: integer needs more than 255 bytes (the tuple "
            "layer's limit)");
  EXPECT_EQ(parse_error("[" + huge + ".5e99999]"),
            "tuple JSON: element 0 at byte 1: number '" + std::string(40, '7') +
                "...' is out of range for a double");
}

TEST(TupleJsonErrors, Strings) {
  EXPECT_EQ(parse_error("[\"\\ud800\"]"),
            "tuple JSON: invalid JSON at byte 9 (element 0): invalid escape or lone surrogate in "
            "a string");
  EXPECT_EQ(parse_error("[\"\\udc00\"]"),
            "tuple JSON: invalid JSON at byte 9 (element 0): invalid escape or lone surrogate in "
            "a string");
  EXPECT_EQ(parse_error("[\"\\ud800\\u0041\"]"),
            "tuple JSON: invalid JSON at byte 15 (element 0): invalid escape or lone surrogate in "
            "a string");
  EXPECT_EQ(parse_error("[\"\\x\"]"),
            "tuple JSON: invalid JSON at byte 5 (element 0): invalid escape or lone surrogate in "
            "a string");
  EXPECT_EQ(parse_error("[\"\\u12\"]"),
            "tuple JSON: invalid JSON at byte 7 (element 0): invalid escape or lone surrogate in "
            "a string");
}

TEST(TupleJsonErrors, InvalidUtf8InTheText) {
  // Each names the first byte of the ill-formed sequence.
  EXPECT_EQ(parse_error("[1,\"\xC3\x28\"]"), "tuple JSON: invalid JSON at byte 4: invalid UTF-8");
  EXPECT_EQ(parse_error("[\"\xC0\xAF\"]"), "tuple JSON: invalid JSON at byte 2: invalid UTF-8");
  EXPECT_EQ(parse_error("[\"\xED\xA0\x80\"]"), "tuple JSON: invalid JSON at byte 2: invalid UTF-8");
  EXPECT_EQ(parse_error("[\"\xF4\x90\x80\x80\"]"),
            "tuple JSON: invalid JSON at byte 2: invalid UTF-8");
  EXPECT_EQ(parse_error("[\"ab\xE2\x82\"]"), "tuple JSON: invalid JSON at byte 4: invalid UTF-8");
  EXPECT_EQ(parse_error("[1]\xFF"), "tuple JSON: invalid JSON at byte 3: invalid UTF-8");
  EXPECT_EQ(parse_error("[\x80]"), "tuple JSON: invalid JSON at byte 1: invalid UTF-8");
}

TEST(TupleJsonErrors, TaggedObjects) {
  EXPECT_EQ(parse_error("[{}]"),
            "tuple JSON: element 0 at byte 1: empty object (objects must be tagged values such "
            "as {\"$bytes\":\"00ff\"})");
  EXPECT_EQ(parse_error("[1,{\"$foo\":1}]"),
            "tuple JSON: element 1 at byte 4: unknown tag \"$foo\" (known: $bytes, $uuid, "
            "$versionstamp, $float, $double, $user)");
  EXPECT_EQ(parse_error("[{\"x\":1}]"),
            "tuple JSON: element 0 at byte 2: unexpected key \"x\" (objects must be tagged values "
            "such as {\"$bytes\":\"00ff\"})");
  EXPECT_EQ(parse_error("[{\"$bytes\":\"00\",\"$bytes\":\"01\"}]"),
            "tuple JSON: element 0 at byte 16: more than one tag (\"$bytes\" and \"$bytes\")");
  EXPECT_EQ(parse_error("[{\"$bytes\":\"00\",\"$uuid\":\"00\"}]"),
            "tuple JSON: element 0 at byte 16: more than one tag (\"$bytes\" and \"$uuid\")");
  EXPECT_EQ(parse_error("[{\"$bytes\":\"00\",\"data\":\"00\"}]"),
            "tuple JSON: element 0 at byte 16: unexpected key \"data\" in a $bytes object");
  EXPECT_EQ(parse_error("[{\"data\":\"00\",\"$uuid\":\"00\"}]"),
            "tuple JSON: element 0 at byte 14: unexpected key \"data\" in a $uuid object");
  EXPECT_EQ(parse_error("[{\"data\":\"00\"}]"),
            "tuple JSON: element 0 at byte 1: \"data\" without \"$user\"");
  EXPECT_EQ(parse_error("[{\"$user\":64}]"),
            "tuple JSON: element 0 at byte 1: $user needs a \"data\" key (hex)");
  EXPECT_EQ(parse_error("[{\"$user\":64,\"data\":\"00\",\"data\":\"01\"}]"),
            "tuple JSON: element 0 at byte 25: duplicate key \"data\"");
  EXPECT_EQ(parse_error("[{\"$user\":80,\"data\":\"\"}]"),
            "tuple JSON: element 0 at byte 10: $user must be an integer type code from 64 to 79");
  EXPECT_EQ(parse_error("[{\"$user\":64.0,\"data\":\"\"}]"),
            "tuple JSON: element 0 at byte 10: $user must be an integer type code from 64 to 79");
  EXPECT_EQ(parse_error("[{\"$user\":\"64\",\"data\":\"\"}]"),
            "tuple JSON: element 0 at byte 10: $user must be an integer type code from 64 to 79");
  // Long keys are quoted only in part.
  EXPECT_EQ(parse_error("[{\"$" + std::string(100, 'k') + "\":1}]"),
            "tuple JSON: element 0 at byte 2: unknown tag \"$" + std::string(39, 'k') +
                "...\" (known: $bytes, $uuid, $versionstamp, $float, $double, $user)");
}

TEST(TupleJsonErrors, TagPayloads) {
  EXPECT_EQ(parse_error("[{\"$bytes\":\"0\"}]"),
            "tuple JSON: element 0 at byte 11: $bytes must be an even number of hex digits");
  EXPECT_EQ(parse_error("[{\"$bytes\":\"zz\"}]"),
            "tuple JSON: element 0 at byte 11: $bytes must be an even number of hex digits");
  EXPECT_EQ(parse_error("[{\"$bytes\":0}]"),
            "tuple JSON: element 0 at byte 11: $bytes (hex) must be a string");
  EXPECT_EQ(parse_error("[{\"$bytes\":[\"00\"]}]"),
            "tuple JSON: element 0 at byte 11: $bytes (hex) must be a string");
  EXPECT_EQ(parse_error("[{\"$user\":64,\"data\":\"0g\"}]"),
            "tuple JSON: element 0 at byte 20: \"data\" must be an even number of hex digits");
  EXPECT_EQ(parse_error("[{\"$uuid\":\"0011\"}]"),
            "tuple JSON: element 0 at byte 10: $uuid must be 32 hex digits, optionally as "
            "8-4-4-4-12 with dashes");
  EXPECT_EQ(parse_error("[{\"$uuid\":\"0011223344556677-8899aabbccddeeff\"}]"),
            "tuple JSON: element 0 at byte 10: $uuid must be 32 hex digits, optionally as "
            "8-4-4-4-12 with dashes");
  EXPECT_EQ(parse_error("[{\"$uuid\":\"00112233445566778899aabbccddeefg\"}]"),
            "tuple JSON: element 0 at byte 10: $uuid must be 32 hex digits, optionally as "
            "8-4-4-4-12 with dashes");
  EXPECT_EQ(parse_error("[{\"$versionstamp\":\"00\"}]"),
            "tuple JSON: element 0 at byte 18: $versionstamp must be 24 hex digits (12 bytes)");
  EXPECT_EQ(parse_error("[{\"$double\":\"NaN\"}]"),
            "tuple JSON: element 0 at byte 12: $double must be a number, \"nan\", \"inf\", "
            "\"-inf\", \"-0.0\" or \"0x\" and 16 hex digits");
  EXPECT_EQ(parse_error("[{\"$double\":\"0x7ff8\"}]"),
            "tuple JSON: element 0 at byte 12: $double must be a number, \"nan\", \"inf\", "
            "\"-inf\", \"-0.0\" or \"0x\" and 16 hex digits");
  EXPECT_EQ(parse_error("[{\"$double\":null}]"),
            "tuple JSON: element 0 at byte 12: $double must be a string");
  EXPECT_EQ(parse_error("[{\"$float\":\"0x7fc0000000000000\"}]"),
            "tuple JSON: element 0 at byte 11: $float must be a number, \"nan\", \"inf\", "
            "\"-inf\", \"-0.0\" or \"0x\" and 8 hex digits");
}

TEST(TupleJsonErrors, ElementPathsReachIntoNestedTuples) {
  EXPECT_EQ(parse_error("[1,[2,[{\"$bytes\":\"x\"}]]]"),
            "tuple JSON: element 1.1.0 at byte 17: $bytes must be an even number of hex digits");
}

TEST(TupleJsonErrors, NestingDeeperThanTheCodecIsRefused) {
  // 128 arrays inside the top level read; 129 do not.
  const std::string ok = std::string(129, '[') + std::string(129, ']');
  Tuple t = parse(ok);
  ASSERT_EQ(t.size(), 1u);
  const std::string deep = std::string(130, '[') + std::string(130, ']');
  const std::string msg = parse_error(deep);
  EXPECT_EQ(msg.substr(0, 23), "tuple JSON: element 0.0");
  EXPECT_NE(msg.find(" at byte 129: tuples nested deeper than 128 levels"), std::string::npos)
      << msg;
  // Far deeper input, balanced or not, is refused without exhausting the stack.
  const std::string deeper = std::string(200000, '[') + std::string(200000, ']');
  EXPECT_NE(parse_error(deeper).find("tuples nested deeper than 128 levels"), std::string::npos);
  EXPECT_EQ(parse_error(std::string(200000, '[')),
            "tuple JSON: invalid JSON at byte 200000: unclosed array or object at the end of the "
            "input");
}

TEST(TupleJsonErrors, ParseLeavesNoPartialResultBehind) {
  Tuple t = {I(7)};
  EXPECT_FALSE(tuple_from_json("[1,2,{\"$bytes\":1}]", &t).ok());
  Tuple u;
  ASSERT_TRUE(tuple_from_json("[3]", &u).ok());
  EXPECT_EQ(u, (Tuple{I(3)}));
}

// ---------------------------------------------------------------------------
// UUID text

TEST(TupleJsonUuid, ParseAndFormat) {
  Uuid u;
  ASSERT_TRUE(parse_uuid_text("00112233-4455-6677-8899-AABBCCDDEEFF", &u));
  EXPECT_EQ(uuid_text(u), "00112233-4455-6677-8899-aabbccddeeff");
  Uuid v;
  ASSERT_TRUE(parse_uuid_text("00112233445566778899aabbccddeeff", &v));
  EXPECT_EQ(u, v);
  EXPECT_FALSE(parse_uuid_text("", &v));
  EXPECT_FALSE(parse_uuid_text("00112233-4455-6677-8899-aabbccddeef", &v));
  EXPECT_FALSE(parse_uuid_text("0011223344-55-6677-8899-aabbccddeeff", &v));
  EXPECT_FALSE(parse_uuid_text("{00112233-4455-6677-8899-aabbccddeeff}", &v));
  EXPECT_FALSE(parse_uuid_text("00112233445566778899aabbccddeefx", &v));
  EXPECT_FALSE(parse_uuid_text("00112233-4455-6677-8899-aabbccddeefx", &v));
}

}  // namespace
}  // namespace tuplekv
