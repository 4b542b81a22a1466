// The tuple codec: known answers from tuple-spec.md, round trips of every
// type, the order invariant on random tuples, every decoder error message,
// pack errors, versionstamp offsets and strinc/range. TupleValue and the
// value order on their own are pinned in tuple_value_test.cc, repr() in
// tuple_repr_test.cc.
#include "core/tuple.h"
#include "tests/core/tuple_makers.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace tuplekv {
namespace {

// Hex with optional spaces, as the spec writes it.
Bytes H(std::string_view spaced) {
  std::string hex;
  for (char c : spaced) {
    if (c != ' ') hex.push_back(c);
  }
  Bytes out;
  EXPECT_TRUE(from_hex(hex, &out)) << spaced;
  return out;
}

std::string packed_hex(const Tuple& t) {
  Bytes out;
  Status s = pack(t, &out);
  EXPECT_TRUE(s.ok()) << s.message();
  return to_hex(out);
}

std::string spec_hex(std::string_view spaced) { return to_hex(H(spaced)); }

using namespace tuple_makers;
TupleValue Stamp(std::string_view spaced_hex) {
  const Bytes b = H(spaced_hex);
  Versionstamp v{};
  std::memcpy(v.data(), b.data(), v.size());
  return TupleValue::versionstamp(v);
}
TupleValue IncompleteStamp(uint16_t user_version) {
  Versionstamp v;
  v.fill(0xFF);
  v[10] = static_cast<uint8_t>(user_version >> 8);
  v[11] = static_cast<uint8_t>(user_version);
  return TupleValue::versionstamp(v);
}

Tuple unpacked(std::string_view spaced_hex) {
  Tuple t;
  Status s = unpack(H(spaced_hex), &t);
  EXPECT_TRUE(s.ok()) << spaced_hex << ": " << s.message();
  return t;
}

// Known answer: pack gives the bytes, and the bytes unpack to the tuple.
void ExpectKnown(const Tuple& t, std::string_view spaced_hex) {
  SCOPED_TRACE(repr(t));
  EXPECT_EQ(packed_hex(t), spec_hex(spaced_hex));
  EXPECT_EQ(unpacked(spaced_hex), t);
}

int sign(int c) { return c < 0 ? -1 : (c > 0 ? 1 : 0); }

// ---------------------------------------------------------------------------
// Known answers, every example in tuple-spec.md.

TEST(TupleKnownAnswers, FramingAndNull) {
  ExpectKnown({}, "");
  ExpectKnown({Null()}, "00");
  ExpectKnown({N({Null()})}, "05 00 FF 00");
  ExpectKnown({Null(), Null()}, "00 00");
}

TEST(TupleKnownAnswers, BytesAndStrings) {
  ExpectKnown({B(std::string_view("foo\0bar", 7))}, "01 66 6F 6F 00 FF 62 61 72 00");
  ExpectKnown({S(std::string_view("F\xC3\x94O\0bar", 8))}, "02 46 C3 94 4F 00 FF 62 61 72 00");
  ExpectKnown({B(std::string_view("\0\0\0\x04", 4))}, "01 00 FF 00 FF 00 FF 04 00");
  ExpectKnown({B("")}, "01 00");
  ExpectKnown({S("")}, "02 00");
  ExpectKnown({B("\xff")}, "01 FF 00");
  ExpectKnown({S("users"), I(123456)}, "02 75 73 65 72 73 00 17 01 E2 40");
}

TEST(TupleKnownAnswers, Nested) {
  ExpectKnown({N({B(std::string_view("foo\0bar", 7)), Null(), N({})})},
              "05 01 66 6F 6F 00 FF 62 61 72 00 00 FF 05 00 00");
  ExpectKnown({N({})}, "05 00");
  ExpectKnown({N({Null()})}, "05 00 FF 00");
  ExpectKnown({N({Null(), S("hello")})}, "05 00 FF 02 68 65 6C 6C 6F 00 00");
  ExpectKnown({N({Null()}), S("hello"), B(std::string_view("\x01\0", 2)), B("")},
              "05 00 FF 00 02 68 65 6C 6C 6F 00 01 01 00 FF 00 01 00");
  ExpectKnown({N({I(-255)})}, "05 13 00 00");
  ExpectKnown({N({N({})})}, "05 05 00 00");
}

TEST(TupleKnownAnswers, FixedWidthIntegers) {
  ExpectKnown({I(0)}, "14");
  ExpectKnown({I(1)}, "15 01");
  ExpectKnown({I(-1)}, "13 FE");
  ExpectKnown({I(255)}, "15 FF");
  ExpectKnown({I(-255)}, "13 00");
  ExpectKnown({I(256)}, "16 01 00");
  ExpectKnown({I(-256)}, "12 FE FF");
  ExpectKnown({I(65536)}, "17 01 00 00");
  ExpectKnown({I(-65536)}, "11 FE FF FF");
  ExpectKnown({I(-5551212)}, "11 AB 4B 93");
  ExpectKnown({I(-4294967295)}, "10 00 00 00 00");
  ExpectKnown({I(std::numeric_limits<int64_t>::max())}, "1C 7F FF FF FF FF FF FF FF");
  ExpectKnown({Big("9223372036854775808")}, "1C 80 00 00 00 00 00 00 00");
  ExpectKnown({Big("18446744073709551615")}, "1C FF FF FF FF FF FF FF FF");
  ExpectKnown({I(-9223372036854775807)}, "0C 80 00 00 00 00 00 00 00");
  ExpectKnown({I(std::numeric_limits<int64_t>::min())}, "0C 7F FF FF FF FF FF FF FF");
  ExpectKnown({Big("-9223372036854775809")}, "0C 7F FF FF FF FF FF FF FE");
  ExpectKnown({Big("-18446744073709551615")}, "0C 00 00 00 00 00 00 00 00");
}

TEST(TupleKnownAnswers, ArbitraryPrecisionIntegers) {
  ExpectKnown({Big("18446744073709551616")}, "1D 09 01 00 00 00 00 00 00 00 00");
  ExpectKnown({Big("-18446744073709551616")}, "0B F6 FE FF FF FF FF FF FF FF FF");
  // |v| = 2^72 - 1: nine FF bytes, so the negative form keeps nine 00 bytes.
  ExpectKnown({Big("-4722366482869645213695")}, "0B F6 00 00 00 00 00 00 00 00 00");
  ExpectKnown({Big("4722366482869645213695")}, "1D 09 FF FF FF FF FF FF FF FF FF");

  // The largest magnitude: 255 bytes of FF.
  std::string max_hex = "1d ff";
  std::string min_hex = "0b 00";
  for (int i = 0; i < 255; ++i) {
    max_hex += "ff";
    min_hex += "00";
  }
  Tuple max_t = unpacked(max_hex);
  Tuple min_t = unpacked(min_hex);
  ASSERT_EQ(max_t.size(), 1u);
  ASSERT_EQ(max_t[0].type(), ElementType::kBigInt);
  EXPECT_EQ(max_t[0].as_bigint().magnitude().size(), 255u);
  EXPECT_FALSE(max_t[0].as_bigint().negative());
  EXPECT_TRUE(min_t[0].as_bigint().negative());
  EXPECT_EQ(packed_hex(max_t), spec_hex(max_hex));
  EXPECT_EQ(packed_hex(min_t), spec_hex(min_hex));
  EXPECT_LT(compare(min_t, max_t), 0);
}

TEST(TupleKnownAnswers, PythonNonCanonicalIntegers) {
  // apple/foundationdb#1296: accepted, same value, canonical on re-encode.
  Tuple pos = unpacked("1D 08 FF FF FF FF FF FF FF FF");
  Tuple neg = unpacked("0B F7 00 00 00 00 00 00 00 00");
  EXPECT_EQ(pos, Tuple{Big("18446744073709551615")});
  EXPECT_EQ(neg, Tuple{Big("-18446744073709551615")});
  EXPECT_EQ(packed_hex(pos), spec_hex("1C FF FF FF FF FF FF FF FF"));
  EXPECT_EQ(packed_hex(neg), spec_hex("0C 00 00 00 00 00 00 00 00"));
  // Also inside a nested tuple, and in the reader.
  EXPECT_EQ(unpacked("05 1D 08 FF FF FF FF FF FF FF FF 00"),
            (Tuple{N({Big("18446744073709551615")})}));
  const Bytes two = H("0B F7 00 00 00 00 00 00 00 00 15 01");
  TupleReader r(two);
  ASSERT_TRUE(r.next());
  EXPECT_EQ(r.type(), ElementType::kBigInt);
  ASSERT_TRUE(r.next());
  EXPECT_EQ(r.int64_value(), 1);
  EXPECT_FALSE(r.next());
  EXPECT_TRUE(r.at_end());
}

TEST(TupleKnownAnswers, Floats) {
  ExpectKnown({D(1.0)}, "21 BF F0 00 00 00 00 00 00");
  ExpectKnown({F(-42.0f)}, "20 3D D7 FF FF");
  ExpectKnown({F(3.14f)}, "20 C0 48 F5 C3");
  ExpectKnown({D(0.0)}, "21 80 00 00 00 00 00 00 00");
  ExpectKnown({D(-0.0)}, "21 7F FF FF FF FF FF FF FF");
  ExpectKnown({D(std::numeric_limits<double>::infinity())}, "21 FF F0 00 00 00 00 00 00");
  ExpectKnown({D(-std::numeric_limits<double>::infinity())}, "21 00 0F FF FF FF FF FF FF");
  ExpectKnown({F(0.0f)}, "20 80 00 00 00");
  ExpectKnown({F(-0.0f)}, "20 7F FF FF FF");
  ExpectKnown({TupleValue::float64_bits(0x7FFFFFFFFFFFFFFFull)}, "21 FF FF FF FF FF FF FF FF");
  ExpectKnown({TupleValue::float64_bits(0xFFFFFFFFFFFFFFFFull)}, "21 00 00 00 00 00 00 00 00");
  // A float32 signalling NaN keeps its payload (no float<->double trip).
  ExpectKnown({TupleValue::float32_bits(0x7F800001u)}, "20 FF 80 00 01");
  ExpectKnown({TupleValue::float32_bits(0xFF800001u)}, "20 00 7F FF FE");
  ExpectKnown({TupleValue::float64_bits(0x7FF0000000000001ull)}, "21 FF F0 00 00 00 00 00 01");
}

TEST(TupleKnownAnswers, BoolUuidVersionstamp) {
  ExpectKnown({Bool(false)}, "26");
  ExpectKnown({Bool(true)}, "27");
  const Bytes u = H("FF FF FF FF BA 5E BA 11 00 00 00 00 5C A1 AB 1E");
  Uuid uuid;
  std::memcpy(uuid.data(), u.data(), 16);
  ExpectKnown({TupleValue::uuid(uuid)}, "30 FF FF FF FF BA 5E BA 11 00 00 00 00 5C A1 AB 1E");
  ExpectKnown({Stamp("AA BB CC DD EE FF 00 01 02 03 00 00")},
              "33 AA BB CC DD EE FF 00 01 02 03 00 00");
}

TEST(TupleKnownAnswers, UserTypes) {
  ExpectKnown({I(1), TupleValue::user(0x40, std::string_view("\x01\x00\x02", 3))},
              "15 01 40 01 00 02");
  ExpectKnown({TupleValue::user(0x4F, "")}, "4F");
}

TEST(TupleKnownAnswers, Range) {
  // tuple-spec §10 (fdb-tuple example).
  const KeyRange r = range(*packed({S("a"), I(1)}));
  EXPECT_EQ(to_hex(r.begin), spec_hex("02 61 00 15 01 00"));
  EXPECT_EQ(to_hex(r.end), spec_hex("02 61 00 15 01 FF"));
}

// ---------------------------------------------------------------------------
// Quoting input for messages

TEST(TupleValueTest, QuoteForMessageIsAlwaysValidUtf8) {
  EXPECT_EQ(quote_for_message("abc"), "'abc'");
  EXPECT_EQ(quote_for_message("", '"'), "\"\"");
  EXPECT_EQ(quote_for_message("caf\xC3\xA9 \xF0\x9F\x94\xA5"), "'caf\xC3\xA9 \xF0\x9F\x94\xA5'");
  // Bytes that are not UTF-8, control characters and DEL are escaped.
  EXPECT_EQ(quote_for_message("A\xFF\x0A\x7F\xED\xA0\xBDz"), "'A\\xff\\x0a\\x7f\\xed\\xa0\\xbdz'");
  EXPECT_EQ(quote_for_message(std::string_view("a\0b", 3)), "'a\\x00b'");
  EXPECT_EQ(quote_for_message("\xE2\x82"), "'\\xe2\\x82'");  // truncated character
  // At most max_bytes of the input, never half a character.
  EXPECT_EQ(quote_for_message(std::string(50, 'x')), "'" + std::string(40, 'x') + "...'");
  EXPECT_EQ(quote_for_message("abc\xC3\xA9", '\'', 4), "'abc...'");
  EXPECT_EQ(quote_for_message("abc\xC3\xA9", '\'', 5), "'abc\xC3\xA9'");
  for (const std::string& s : {std::string("\xC3"), std::string("\xFF\xFE"), std::string(45, '\xE9')}) {
    EXPECT_TRUE(is_valid_utf8(quote_for_message(s))) << s;
  }
}

// ---------------------------------------------------------------------------
// Decoder errors: every message verbatim, and the reader agrees.

struct BadInput {
  const char* hex;
  const char* message;
};

void ExpectCorrupt(const BadInput& c) {
  SCOPED_TRACE(c.hex);
  const Bytes in = H(c.hex);
  Tuple t;
  const Status s = unpack(in, &t);
  EXPECT_EQ(s.code(), StatusCode::kCorruption);
  EXPECT_EQ(s.message(), c.message);
  TupleReader r(in);
  while (r.next()) {
  }
  EXPECT_FALSE(r.at_end());
  EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
  EXPECT_EQ(r.status().message(), c.message);
}

TEST(TupleDecodeErrors, TypeCodes) {
  const BadInput cases[] = {
      {"03", "tuple: reserved type code at byte 0 (type code 0x03)"},
      {"04", "tuple: reserved type code at byte 0 (type code 0x04)"},
      {"0a", "tuple: reserved type code at byte 0 (type code 0x0a)"},
      {"1e", "tuple: reserved type code at byte 0 (type code 0x1e)"},
      {"22", "tuple: reserved type code at byte 0 (type code 0x22)"},
      {"23", "tuple: reserved type code at byte 0 (type code 0x23)"},
      {"24", "tuple: reserved type code at byte 0 (type code 0x24)"},
      {"25", "tuple: reserved type code at byte 0 (type code 0x25)"},
      {"31", "tuple: reserved type code at byte 0 (type code 0x31)"},
      {"32 00 00 00 00 00 00 00 00 00 00", "tuple: reserved type code at byte 0 (type code 0x32)"},
      {"06", "tuple: unknown type code at byte 0 (type code 0x06)"},
      {"09", "tuple: unknown type code at byte 0 (type code 0x09)"},
      {"1f", "tuple: unknown type code at byte 0 (type code 0x1f)"},
      {"28", "tuple: unknown type code at byte 0 (type code 0x28)"},
      {"2f", "tuple: unknown type code at byte 0 (type code 0x2f)"},
      {"34", "tuple: unknown type code at byte 0 (type code 0x34)"},
      {"3f", "tuple: unknown type code at byte 0 (type code 0x3f)"},
      {"50", "tuple: unknown type code at byte 0 (type code 0x50)"},
      {"fe", "tuple: unknown type code at byte 0 (type code 0xfe)"},
      {"ff", "tuple: unknown type code at byte 0 (type code 0xff)"},
      {"15 01 ff", "tuple: unknown type code at byte 2 (type code 0xff)"},
      // A top-level null is one byte, so 00 FF is a null and then FF.
      {"00 ff", "tuple: unknown type code at byte 1 (type code 0xff)"},
      {"05 03 00", "tuple: reserved type code at byte 1 (type code 0x03)"},
  };
  for (const BadInput& c : cases) ExpectCorrupt(c);
}

TEST(TupleDecodeErrors, Truncation) {
  const BadInput cases[] = {
      {"02 61 00 16 01", "tuple: truncated integer at byte 3 (type code 0x16)"},
      {"15", "tuple: truncated integer at byte 0 (type code 0x15)"},
      {"1c 01 02 03 04 05 06 07", "tuple: truncated integer at byte 0 (type code 0x1c)"},
      {"13", "tuple: truncated integer at byte 0 (type code 0x13)"},
      {"0c 01 02 03", "tuple: truncated integer at byte 0 (type code 0x0c)"},
      {"1d", "tuple: truncated integer at byte 0 (type code 0x1d)"},
      {"1d 09 01 00 00", "tuple: truncated integer at byte 0 (type code 0x1d)"},
      {"0b", "tuple: truncated integer at byte 0 (type code 0x0b)"},
      {"0b f6 fe ff", "tuple: truncated integer at byte 0 (type code 0x0b)"},
      {"20 00 00 00", "tuple: truncated float at byte 0 (type code 0x20)"},
      {"21 80 00 00 00 00 00 00", "tuple: truncated double at byte 0 (type code 0x21)"},
      {"30 00 01 02 03 04 05 06 07 08 09 0a 0b 0c 0d 0e",
       "tuple: truncated uuid at byte 0 (type code 0x30)"},
      {"33 00 01 02 03 04 05 06 07 08 09 0a", "tuple: truncated versionstamp at byte 0 (type code 0x33)"},
      {"01", "tuple: unterminated bytes at byte 0 (type code 0x01)"},
      {"01 61", "tuple: unterminated bytes at byte 0 (type code 0x01)"},
      {"01 61 00 ff", "tuple: unterminated bytes at byte 0 (type code 0x01)"},
      {"14 02 61 62", "tuple: unterminated string at byte 1 (type code 0x02)"},
      {"02 00 ff", "tuple: unterminated string at byte 0 (type code 0x02)"},
      {"05", "tuple: unterminated nested tuple at byte 0 (type code 0x05)"},
      {"05 15 01", "tuple: unterminated nested tuple at byte 0 (type code 0x05)"},
      {"05 00 ff", "tuple: unterminated nested tuple at byte 0 (type code 0x05)"},
      {"05 05 00", "tuple: unterminated nested tuple at byte 0 (type code 0x05)"},
      {"05 16 01", "tuple: truncated integer at byte 1 (type code 0x16)"},
      {"05 01 61", "tuple: unterminated bytes at byte 1 (type code 0x01)"},
      {"05 01 61 00", "tuple: unterminated nested tuple at byte 0 (type code 0x05)"},
  };
  for (const BadInput& c : cases) ExpectCorrupt(c);
}

TEST(TupleDecodeErrors, NonMinimalIntegers) {
  const BadInput cases[] = {
      {"15 00", "tuple: non-minimal integer at byte 0 (type code 0x15)"},
      {"16 00 01", "tuple: non-minimal integer at byte 0 (type code 0x16)"},
      {"1c 00 ff ff ff ff ff ff ff", "tuple: non-minimal integer at byte 0 (type code 0x1c)"},
      {"13 ff", "tuple: non-minimal integer at byte 0 (type code 0x13)"},
      {"12 ff 00", "tuple: non-minimal integer at byte 0 (type code 0x12)"},
      {"0c ff 00 00 00 00 00 00 00", "tuple: non-minimal integer at byte 0 (type code 0x0c)"},
      {"1d 00", "tuple: non-minimal integer at byte 0 (type code 0x1d)"},
      {"1d 01 05", "tuple: non-minimal integer at byte 0 (type code 0x1d)"},
      {"1d 08 80 00 00 00 00 00 00 00", "tuple: non-minimal integer at byte 0 (type code 0x1d)"},
      {"1d 08 ff ff ff ff ff ff ff fe", "tuple: non-minimal integer at byte 0 (type code 0x1d)"},
      {"1d 09 00 ff ff ff ff ff ff ff ff", "tuple: non-minimal integer at byte 0 (type code 0x1d)"},
      {"0b ff", "tuple: non-minimal integer at byte 0 (type code 0x0b)"},
      {"0b fe fa", "tuple: non-minimal integer at byte 0 (type code 0x0b)"},
      {"0b f7 00 00 00 00 00 00 00 01", "tuple: non-minimal integer at byte 0 (type code 0x0b)"},
      {"0b f7 7f ff ff ff ff ff ff ff", "tuple: non-minimal integer at byte 0 (type code 0x0b)"},
      {"0b f6 ff 00 00 00 00 00 00 00 00", "tuple: non-minimal integer at byte 0 (type code 0x0b)"},
      {"05 15 00 00", "tuple: non-minimal integer at byte 1 (type code 0x15)"},
  };
  for (const BadInput& c : cases) ExpectCorrupt(c);
}

TEST(TupleDecodeErrors, InvalidUtf8) {
  const BadInput cases[] = {
      {"02 c0 80 00", "tuple: invalid UTF-8 at byte 1 in string at byte 0 (type code 0x02)"},
      {"02 e0 80 80 00", "tuple: invalid UTF-8 at byte 1 in string at byte 0 (type code 0x02)"},
      {"02 f0 80 80 80 00", "tuple: invalid UTF-8 at byte 1 in string at byte 0 (type code 0x02)"},
      {"02 61 ed a0 bd 00", "tuple: invalid UTF-8 at byte 2 in string at byte 0 (type code 0x02)"},
      {"02 f4 90 80 80 00", "tuple: invalid UTF-8 at byte 1 in string at byte 0 (type code 0x02)"},
      {"02 f5 80 80 80 00", "tuple: invalid UTF-8 at byte 1 in string at byte 0 (type code 0x02)"},
      {"02 61 e2 82 00", "tuple: invalid UTF-8 at byte 2 in string at byte 0 (type code 0x02)"},
      {"02 80 00", "tuple: invalid UTF-8 at byte 1 in string at byte 0 (type code 0x02)"},
      {"02 ff 00", "tuple: invalid UTF-8 at byte 1 in string at byte 0 (type code 0x02)"},
      // A multi-byte sequence cut by an escaped NUL.
      {"02 c3 00 ff 00", "tuple: invalid UTF-8 at byte 1 in string at byte 0 (type code 0x02)"},
      {"02 61 00 ff c3 00", "tuple: invalid UTF-8 at byte 4 in string at byte 0 (type code 0x02)"},
      {"14 05 02 61 62 63 64 65 66 67 68 69 fe 00 00",
       "tuple: invalid UTF-8 at byte 12 in string at byte 2 (type code 0x02)"},
  };
  for (const BadInput& c : cases) ExpectCorrupt(c);
  // Bytes (01) are not text: anything goes.
  EXPECT_EQ(unpacked("01 c0 80 ff 00"), Tuple{B("\xc0\x80\xff")});
  EXPECT_EQ(unpacked("02 f0 9f 94 a5 ef bf bf f4 8f bf bf 00"),
            Tuple{S("\xf0\x9f\x94\xa5\xef\xbf\xbf\xf4\x8f\xbf\xbf")});
}

TEST(TupleDecodeErrors, UserTypes) {
  ExpectCorrupt({"05 40 01 00", "tuple: user type inside a nested tuple at byte 1 (type code 0x40)"});
  ExpectCorrupt({"05 05 4f 00 00", "tuple: user type inside a nested tuple at byte 2 (type code 0x4f)"});
  // At top level a user element takes the rest of the buffer, whatever it is.
  EXPECT_EQ(unpacked("15 01 40 01 ff 00"),
            (Tuple{I(1), TupleValue::user(0x40, std::string_view("\x01\xff\x00", 3))}));
}

TEST(TupleDecodeErrors, NestingDepthIsCapped) {
  const auto nest = [](int levels) {
    Bytes b(static_cast<size_t>(levels), '\x05');
    b.append(static_cast<size_t>(levels), '\x00');
    return b;
  };
  Tuple t;
  ASSERT_TRUE(unpack(nest(128), &t).ok());
  const Status s = unpack(nest(129), &t);
  EXPECT_EQ(s.message(), "tuple: nesting too deep at byte 128 (type code 0x05)");
  // Hostile input: a long run of opens is rejected without deep recursion.
  const Bytes opens(200000, '\x05');
  EXPECT_EQ(unpack(opens, &t).message(), "tuple: nesting too deep at byte 128 (type code 0x05)");
  TupleReader r(opens);
  EXPECT_FALSE(r.next());
  EXPECT_EQ(r.status().message(), "tuple: nesting too deep at byte 128 (type code 0x05)");
  // The 128-level tuple packs back to the same bytes.
  ASSERT_TRUE(unpack(nest(128), &t).ok());
  EXPECT_EQ(*packed(t), nest(128));
}

TEST(TupleDecodeErrors, DecodeElement) {
  TupleValue v;
  BytesView empty;
  EXPECT_EQ(decode_element(&empty, &v, 7).message(),
            "tuple: expected an element at byte 7, found the end of the input");
  const Bytes in = H("15 01 02 61 00 16 01");
  BytesView rest = in;
  ASSERT_TRUE(decode_element(&rest, &v, 10).ok());
  EXPECT_EQ(v, I(1));
  ASSERT_TRUE(decode_element(&rest, &v, 12).ok());
  EXPECT_EQ(v, S("a"));
  EXPECT_EQ(rest.size(), 2u);
  EXPECT_EQ(decode_element(&rest, &v, 15).message(),
            "tuple: truncated integer at byte 15 (type code 0x16)");
  EXPECT_EQ(rest.size(), 2u);
}

// ---------------------------------------------------------------------------
// Pack errors and versionstamps

TEST(TuplePackErrors, RefusesAndLeavesOutputAlone) {
  struct Case {
    Tuple t;
    const char* message;
  };
  Tuple too_deep = {I(1)};
  for (int i = 0; i < 1001; ++i) too_deep = {N(std::move(too_deep))};
  const Case cases[] = {
      {{I(1), S("\xC0\x80")}, "tuple: invalid UTF-8 at byte 0 of the string at element 1"},
      {{N({I(1), S("ab\xED\xA0\x80")})},
       "tuple: invalid UTF-8 at byte 2 of the string at element 0.1"},
      {{IncompleteStamp(0)},
       "tuple: incomplete versionstamp at element 0 (use pack_with_versionstamp)"},
      {{I(0), N({N({IncompleteStamp(0)})})},
       "tuple: incomplete versionstamp at element 1.0.0 (use pack_with_versionstamp)"},
      {{TupleValue::user(0x40, "x"), I(1)},
       "tuple: user type at element 0 is not the last element"},
      {{N({TupleValue::user(0x40, "x")})},
       "tuple: user type at element 0.0 inside a nested tuple"},
      {{TupleValue::user(0x3F, "x")},
       "tuple: user type code 0x3f at element 0 is outside 0x40..0x4f"},
      {{TupleValue::user(0x50, "x")},
       "tuple: user type code 0x50 at element 0 is outside 0x40..0x4f"},
      {too_deep, "tuple: nesting deeper than 128 levels"},
  };
  for (const Case& c : cases) {
    Bytes out = "keep";
    const Status s = pack(c.t, &out);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(s.message(), c.message);
    EXPECT_EQ(out, "keep");
  }
  Bytes out;
  EXPECT_FALSE(pack_element(IncompleteStamp(1), &out).ok());
  EXPECT_FALSE(pack_element(S("\xFF"), &out).ok());
  EXPECT_TRUE(out.empty());
  EXPECT_FALSE(packed({S("\xFF")}).ok());
}

TEST(TuplePack, AppendsAndPacksElements) {
  Bytes out = "pre";
  ASSERT_TRUE(pack({I(1)}, &out).ok());
  EXPECT_EQ(out, std::string("pre\x15\x01", 5));
  ASSERT_TRUE(pack_element(N({Null()}), &out).ok());
  EXPECT_EQ(out, std::string("pre\x15\x01\x05\x00\xff\x00", 9));
  ASSERT_TRUE(pack_element(TupleValue::user(0x42, "u"), &out).ok());
  EXPECT_EQ(out.substr(9), "\x42u");
  // A user element is fine as the last element at top level.
  EXPECT_EQ(packed_hex({S("a"), TupleValue::user(0x4A, "\x01")}), spec_hex("02 61 00 4a 01"));
}

// The fast appenders write what pack_element writes, edge values included.
TEST(TuplePack, FastNumberAppendersMatchPackElement) {
  std::vector<int64_t> ints = {0, 1, -1, 255, 256, -255, -256, 65535, -65536,
                               std::numeric_limits<int64_t>::max(),
                               std::numeric_limits<int64_t>::min(),
                               std::numeric_limits<int64_t>::min() + 1};
  std::vector<double> doubles = {0.0, -0.0, 1.5, -1.5, std::numeric_limits<double>::infinity(),
                                 -std::numeric_limits<double>::infinity(),
                                 std::numeric_limits<double>::quiet_NaN(),
                                 std::numeric_limits<double>::denorm_min(),
                                 std::numeric_limits<double>::lowest()};
  std::mt19937_64 rng(7);
  for (int i = 0; i < 2000; ++i) {
    const uint64_t r = rng();
    const auto v = static_cast<int64_t>(rng() >> (r % 64));  // every width
    ints.push_back((r & 1) != 0 ? ~v : v);
    doubles.push_back(std::bit_cast<double>(rng()));
  }
  // Both append after what *out holds already.
  auto expect_same = [](auto v, void (*fast_append)(decltype(v), Bytes*), const TupleValue& as_value) {
    Bytes fast = "p";
    Bytes slow = "p";
    fast_append(v, &fast);
    ASSERT_TRUE(pack_element(as_value, &slow).ok());
    EXPECT_EQ(fast, slow) << v;
  };
  for (int64_t v : ints) expect_same(v, append_int64_element, TupleValue::int64(v));
  for (double v : doubles) expect_same(v, append_double_element, TupleValue::float64(v));
}

TEST(TupleAppendElement, StringsAndBytesEscapeEveryNulAsPackDoes) {
  std::vector<std::string> payloads = {"", std::string(1, '\0'), std::string(3, '\0'), "abc",
                                       std::string("a\0b", 3), std::string("\0ab", 3),
                                       std::string("ab\0", 3), "\xff\x00\xff", "caf\xC3\xA9"};
  std::mt19937_64 rng(11);
  for (int i = 0; i < 500; ++i) {
    std::string p(rng() % 40, 'x');
    for (char& c : p) c = "a\0\xff"[rng() % 3];  // NULs anywhere, also next to FF
    payloads.push_back(p);
  }
  for (const std::string& p : payloads) {
    Bytes fast = "p";
    Bytes slow = "p";
    append_bytes_element(p, &fast);
    ASSERT_TRUE(pack_element(TupleValue::bytes(p), &slow).ok());
    EXPECT_EQ(to_hex(fast), to_hex(slow));
    if (!is_valid_utf8(p)) continue;
    fast = slow = "p";
    append_string_element(p, &fast);
    ASSERT_TRUE(pack_element(TupleValue::string(p), &slow).ok());
    EXPECT_EQ(to_hex(fast), to_hex(slow));
  }
}

TEST(TuplePackWithVersionstamp, OffsetsAreLittleEndianAfterThePrefix) {
  Bytes out;
  ASSERT_TRUE(pack_with_versionstamp({S("a"), IncompleteStamp(0x0102)}, 0, &out).ok());
  EXPECT_EQ(to_hex(out),
            spec_hex("02 61 00 33 FF FF FF FF FF FF FF FF FF FF 01 02  04 00 00 00"));

  out = "PFX";
  ASSERT_TRUE(pack_with_versionstamp({S("a"), IncompleteStamp(0x0102)}, 3, &out).ok());
  EXPECT_EQ(to_hex(out), to_hex("PFX") + spec_hex("02 61 00 33 FF FF FF FF FF FF FF FF FF FF "
                                                  "01 02 07 00 00 00"));

  // Inside a nested tuple, beside complete stamps.
  out.clear();
  const Tuple nested = {Stamp("00 00 00 00 00 00 00 01 00 02 00 03"), I(1),
                        N({B("x"), IncompleteStamp(7)})};
  ASSERT_TRUE(pack_with_versionstamp(nested, 300, &out).ok());
  // 13 (stamp) + 2 (int) + 1 (05) + 3 (bytes) + 1 (33) = offset 20, +300.
  EXPECT_EQ(out.substr(out.size() - 4), std::string("\x40\x01\x00\x00", 4));
  EXPECT_EQ(out.substr(20, 10), std::string(10, '\xff'));
  Tuple back;
  ASSERT_TRUE(unpack(BytesView(out).substr(0, out.size() - 4), &back).ok());
  EXPECT_EQ(back, nested);

  // The offset field is 4 bytes: large offsets are not truncated.
  out.clear();
  ASSERT_TRUE(pack_with_versionstamp({IncompleteStamp(0)}, 0x01020304, &out).ok());
  EXPECT_EQ(out.substr(out.size() - 4), std::string("\x05\x03\x02\x01", 4));
}

TEST(TuplePackWithVersionstamp, NeedsExactlyOneIncompleteStamp) {
  Bytes out = "keep";
  EXPECT_EQ(pack_with_versionstamp({I(1)}, 0, &out).message(),
            "tuple: pack_with_versionstamp needs an incomplete versionstamp, found none");
  EXPECT_EQ(pack_with_versionstamp({IncompleteStamp(0), N({IncompleteStamp(1)})}, 0, &out)
                .message(),
            "tuple: pack_with_versionstamp needs exactly one incomplete versionstamp, found 2");
  EXPECT_EQ(pack_with_versionstamp({IncompleteStamp(0)}, 0xFFFFFFFFull, &out).message(),
            "tuple: pack_with_versionstamp offset does not fit in 4 bytes");
  EXPECT_EQ(pack_with_versionstamp({IncompleteStamp(0), S("\xff")}, 0, &out).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(out, "keep");
}

// ---------------------------------------------------------------------------
// Reader

TEST(TupleReaderTest, WalksTheTypicalKey) {
  const Bytes key = *packed({S("users"), I(123456), S("region")});
  TupleReader r(key);
  ASSERT_TRUE(r.next());
  EXPECT_EQ(r.type(), ElementType::kString);
  EXPECT_EQ(r.code(), TypeCode::kString);
  EXPECT_EQ(r.offset(), 0u);
  EXPECT_EQ(r.escaped_payload(), "users");
  EXPECT_FALSE(r.has_escapes());
  ASSERT_TRUE(r.next());
  EXPECT_EQ(r.type(), ElementType::kInt);
  EXPECT_EQ(r.int64_value(), 123456);
  EXPECT_EQ(r.offset(), 7u);
  EXPECT_EQ(to_hex(r.raw()), "1701e240");
  EXPECT_EQ(r.rest(), BytesView(key).substr(11));
  ASSERT_TRUE(r.next());
  TupleValue v;
  ASSERT_TRUE(r.decode(&v).ok());
  EXPECT_EQ(v, S("region"));
  EXPECT_FALSE(r.next());
  EXPECT_TRUE(r.at_end());
  EXPECT_TRUE(r.status().ok());
  EXPECT_FALSE(r.next());
}

TEST(TupleReaderTest, FastAccessors) {
  const Bytes key = *packed({D(-2.5), TupleValue::float32_bits(0x7F800001u), Bool(true), Bool(false),
                             B(std::string_view("a\0b", 3)), I(std::numeric_limits<int64_t>::min()),
                             Big("-9223372036854775809"), N({Null()}), Null()});
  TupleReader r(key);
  ASSERT_TRUE(r.next());
  EXPECT_EQ(r.double_bits(), std::bit_cast<uint64_t>(-2.5));
  ASSERT_TRUE(r.next());
  EXPECT_EQ(r.float_bits(), 0x7F800001u);
  ASSERT_TRUE(r.next());
  EXPECT_TRUE(r.bool_value());
  ASSERT_TRUE(r.next());
  EXPECT_FALSE(r.bool_value());
  ASSERT_TRUE(r.next());
  EXPECT_TRUE(r.has_escapes());
  EXPECT_EQ(r.escaped_payload(), std::string_view("a\0\xff" "b", 4));
  ASSERT_TRUE(r.next());
  EXPECT_EQ(r.int64_value(), std::numeric_limits<int64_t>::min());
  ASSERT_TRUE(r.next());
  EXPECT_EQ(r.type(), ElementType::kBigInt);
  ASSERT_TRUE(r.next());
  EXPECT_EQ(r.type(), ElementType::kNested);
  EXPECT_EQ(to_hex(r.raw()), "0500ff00");
  ASSERT_TRUE(r.next());
  EXPECT_EQ(r.type(), ElementType::kNull);
  EXPECT_FALSE(r.next());
  EXPECT_TRUE(r.at_end());
}

TEST(TupleReaderTest, StopsAtTheFirstError) {
  const Bytes in = H("15 01 02 61 00 16 01");
  TupleReader r(in);
  int n = 0;
  while (r.next()) ++n;
  EXPECT_EQ(n, 2);
  EXPECT_FALSE(r.at_end());
  EXPECT_EQ(r.status().message(), "tuple: truncated integer at byte 5 (type code 0x16)");
  EXPECT_FALSE(r.next());
  TupleReader empty{BytesView()};
  EXPECT_FALSE(empty.next());
  EXPECT_TRUE(empty.at_end());
}

// A reader that starts after a key's prefix still counts bytes from the
// start of the key, so its messages point into the whole key.
TEST(TupleReaderTest, StartsPastAPrefixAndCountsFromTheStart) {
  const Bytes key = H("02 74 00 15 01 02 61 00 16 01");
  TupleReader r(key, 3);
  ASSERT_TRUE(r.next());
  EXPECT_EQ(r.int64_value(), 1);
  EXPECT_EQ(r.offset(), 3u);
  ASSERT_TRUE(r.next());
  EXPECT_EQ(r.raw(), H("02 61 00"));
  EXPECT_FALSE(r.next());
  EXPECT_EQ(r.status().message(), "tuple: truncated integer at byte 8 (type code 0x16)");
  TupleReader at_end(key.substr(0, 3), 3);
  EXPECT_FALSE(at_end.next());
  EXPECT_TRUE(at_end.at_end());
}

// The reader's fast path for common elements must refuse what the decoder
// refuses: each of these is an error with the decoder's message, never a
// value.
TEST(TupleReaderTest, FastPathRefusesWhatTheDecoderRefuses) {
  for (const char* hex : {"15 00", "16 00 01", "13 FF", "12 FF 00", "02 61 FF 00", "02 C0 80 00",
                          "02 61", "01 61", "21 00 00", "17 01"}) {
    const Bytes in = H(hex);
    TupleReader r(in);
    EXPECT_FALSE(r.next()) << hex;
    Tuple t;
    const Status decoded = unpack(in, &t);
    ASSERT_FALSE(decoded.ok()) << hex;
    EXPECT_EQ(r.status().message(), decoded.message()) << hex;
  }
  // And reads what it takes exactly as the decoder does.
  for (const char* hex : {"00", "14", "1B 7F FF FF FF FF FF FF", "0D 80 00 00 00 00 00 00", "13 00",
                          "02 00", "01 00", "02 E6 97 A5 00", "21 80 00 00 00 00 00 00 00"}) {
    const Bytes in = H(hex);
    TupleReader r(in);
    ASSERT_TRUE(r.next()) << hex;
    TupleValue v;
    ASSERT_TRUE(r.decode(&v).ok()) << hex;
    Tuple t;
    ASSERT_TRUE(unpack(in, &t).ok()) << hex;
    ASSERT_EQ(t.size(), 1u);
    EXPECT_EQ(v, t[0]) << hex;
    EXPECT_EQ(r.type(), t[0].type()) << hex;
    if (r.type() == ElementType::kInt) {
      EXPECT_EQ(r.int64_value(), t[0].as_int64()) << hex;
    }
    EXPECT_TRUE(r.rest().empty()) << hex;
  }
}

// ---------------------------------------------------------------------------
// Random tuples: round trips and the order invariant.

class TupleGen {
 public:
  explicit TupleGen(uint64_t seed) : rng_(seed) {}

  Tuple tuple(int depth, bool allow_user) {
    Tuple t;
    const int n = static_cast<int>(pick(depth == 0 ? 5 : 4));
    for (int i = 0; i < n; ++i) t.push_back(value(depth));
    if (allow_user && pick(8) == 0) t.push_back(TupleValue::user(static_cast<uint8_t>(0x40 + pick(16)), bytes()));
    return t;
  }

  TupleValue value(int depth) {
    switch (pick(depth < 3 ? 12 : 11)) {
      case 0: return TupleValue::null();
      case 1: return TupleValue::bytes(bytes());
      case 2: return TupleValue::string(text());
      case 3: return integer();
      case 4: return integer();
      case 5: return TupleValue::float32_bits(static_cast<uint32_t>(float_bits(32)));
      case 6: return TupleValue::float64_bits(float_bits(64));
      case 7: return TupleValue::boolean(pick(2) == 1);
      case 8: {
        Uuid u;
        for (auto& b : u) b = interesting_byte();
        return TupleValue::uuid(u);
      }
      case 9: {
        Versionstamp v;
        for (auto& b : v) b = interesting_byte();
        v[0] = static_cast<uint8_t>(pick(255));  // complete: not all FF
        return TupleValue::versionstamp(v);
      }
      case 10: return integer();
      default: return TupleValue::nested(tuple(depth + 1, false));
    }
  }

  // A tuple near `t`: one element changed, dropped or added, so comparisons
  // often reach deep into shared prefixes.
  Tuple mutate(const Tuple& t) {
    Tuple m = t;
    const bool has_user = !m.empty() && m.back().type() == ElementType::kUser;
    switch (pick(4)) {
      case 0:
        if (!m.empty()) m.pop_back();
        break;
      case 1:
        if (!has_user) m.push_back(value(0));
        break;
      case 2:
        if (!m.empty()) {
          size_t i = pick(m.size());
          if (m[i].type() == ElementType::kNested) {
            m[i] = TupleValue::nested(mutate(m[i].as_nested()));
          } else if (m[i].type() != ElementType::kUser) {
            m[i] = value(1);
          }
        }
        break;
      default:
        break;
    }
    return m;
  }

  uint64_t pick(uint64_t n) { return rng_() % n; }

 private:
  uint8_t interesting_byte() {
    static constexpr uint8_t kBytes[] = {0x00, 0x01, 0x7F, 0x80, 0xFE, 0xFF};
    return pick(2) ? kBytes[pick(6)] : static_cast<uint8_t>(pick(256));
  }

  Bytes bytes() {
    Bytes b;
    const size_t n = pick(6);
    for (size_t i = 0; i < n; ++i) b.push_back(static_cast<char>(interesting_byte()));
    return b;
  }

  std::string text() {
    // Index 3 stands for an embedded NUL, which a C string cannot hold.
    static const char* const kPieces[] = {"",  "a",           "b",           "",
                                          "'", "\xC3\xA9",    "\xEF\xBF\xBF", "\xF0\x90\x80\x80",
                                          "\xF4\x8F\xBF\xBF", "\x7F", "z"};
    std::string s;
    const size_t n = pick(5);
    for (size_t i = 0; i < n; ++i) {
      const size_t k = pick(11);
      if (k == 3) {
        s.push_back('\0');
      } else {
        s += kPieces[k];
      }
    }
    return s;
  }

  TupleValue integer() {
    static const char* const kEdges[] = {
        "0", "1", "-1", "255", "-255", "256", "-256", "9223372036854775807",
        "-9223372036854775808", "9223372036854775808", "-9223372036854775809",
        "18446744073709551615", "-18446744073709551615", "18446744073709551616",
        "-18446744073709551616", "4722366482869645213695", "-4722366482869645213696"};
    switch (pick(4)) {
      case 0:
        return TupleValue::integer(*BigInt::from_decimal(kEdges[pick(17)]));
      case 1:
        return TupleValue::int64(static_cast<int64_t>(pick(600)) - 300);
      case 2: {
        // Random width, random sign, up to 40 bytes of magnitude.
        Bytes mag;
        const size_t n = 1 + pick(pick(4) == 0 ? 40 : 9);
        for (size_t i = 0; i < n; ++i) mag.push_back(static_cast<char>(interesting_byte()));
        return TupleValue::integer(*BigInt::from_magnitude(mag, pick(2) == 1));
      }
      default:
        return TupleValue::int64(static_cast<int64_t>(rng_()) >> pick(64));
    }
  }

  uint64_t float_bits(int width) {
    static constexpr uint64_t kDoubles[] = {
        0, 0x8000000000000000ull, 0x3FF0000000000000ull, 0xBFF0000000000000ull,
        0x7FF0000000000000ull, 0xFFF0000000000000ull, 0x7FF8000000000000ull,
        0xFFF8000000000000ull, 0x7FF0000000000001ull, 0xFFFFFFFFFFFFFFFFull,
        0x7FFFFFFFFFFFFFFFull, 0x0000000000000001ull, 0x8000000000000001ull};
    static constexpr uint32_t kFloats[] = {0, 0x80000000u, 0x3F800000u, 0xBF800000u,
                                           0x7F800000u, 0xFF800000u, 0x7FC00000u,
                                           0xFFC00000u, 0x7F800001u, 0xFFFFFFFFu,
                                           0x7FFFFFFFu, 1, 0x80000001u};
    if (pick(2) == 0) return width == 32 ? kFloats[pick(13)] : kDoubles[pick(13)];
    const uint64_t r = rng_();
    return width == 32 ? (r & 0xFFFFFFFFu) : r;
  }

  std::mt19937_64 rng_;
};

TEST(TupleRandom, RoundTripsThroughPackUnpackAndReader) {
  TupleGen gen(20240601);
  for (int i = 0; i < 5000; ++i) {
    const Tuple t = gen.tuple(0, true);
    Bytes b;
    ASSERT_TRUE(pack(t, &b).ok()) << repr(t);
    Tuple back;
    const Status s = unpack(b, &back);
    ASSERT_TRUE(s.ok()) << repr(t) << ": " << s.message();
    ASSERT_EQ(back, t) << repr(t);
    TupleReader r(b);
    size_t n = 0;
    while (r.next()) {
      TupleValue v;
      ASSERT_TRUE(r.decode(&v).ok());
      ASSERT_LT(n, t.size());
      EXPECT_EQ(v, t[n]);
      EXPECT_EQ(r.type(), t[n].type());
      Bytes one;
      ASSERT_TRUE(pack_element(t[n], &one).ok());
      EXPECT_EQ(r.raw(), one);
      ++n;
    }
    EXPECT_TRUE(r.at_end()) << r.status().message();
    EXPECT_EQ(n, t.size());
  }
}

// quick_element_size agrees with TupleReader wherever it gives a size, and
// stays inside its input on hostile bytes.
TEST(TupleRandom, QuickElementSizeMatchesTheReader) {
  TupleGen gen(20261123);
  size_t sized = 0;
  for (int i = 0; i < 5000; ++i) {
    Bytes b;
    ASSERT_TRUE(pack(gen.tuple(0, true), &b).ok());
    TupleReader r(b);
    while (r.next()) {
      const BytesView at = BytesView(b).substr(r.offset());
      const size_t n = quick_element_size(at);
      if (n != 0) {
        EXPECT_EQ(n, r.raw().size()) << i;
        ++sized;
      }
      // Truncated (a string cut after an escaped 00 is a shorter string):
      // never a size past the end.
      for (size_t cut = 0; cut < r.raw().size(); ++cut) {
        EXPECT_LE(quick_element_size(at.substr(0, cut)), cut);
      }
    }
  }
  EXPECT_GT(sized, 5000u);  // most top-level elements are sized without the reader
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20000; ++i) {
    Bytes junk(rng() % 24, '\0');
    for (char& c : junk) c = static_cast<char>(rng() % 4 == 0 ? 0 : rng());
    EXPECT_LE(quick_element_size(junk), junk.size());
  }
}

// element_size: every element's size, with or without the quick path, and
// kCorruption where no element starts.
TEST(TupleRandom, ElementSizeMatchesTheReader) {
  TupleGen gen(20261124);
  for (int i = 0; i < 2000; ++i) {
    Bytes b;
    ASSERT_TRUE(pack(gen.tuple(0, true), &b).ok());
    TupleReader r(b);
    while (r.next()) {
      size_t n = 0;
      ASSERT_TRUE(element_size(BytesView(b).substr(r.offset()), &n).ok()) << i;
      EXPECT_EQ(n, r.raw().size()) << i;
    }
  }
  size_t n = 0;
  EXPECT_EQ(element_size("", &n).code(), StatusCode::kCorruption);
  EXPECT_EQ(element_size("\x03", &n).code(), StatusCode::kCorruption);      // unknown code
  EXPECT_EQ(element_size("\x05\x15", &n).code(), StatusCode::kCorruption);  // unterminated nested
}

// decode_scalar_element: whatever it accepts, the reader reads the same way
// as exactly one element; it accepts the common scalars of random tuples;
// and on junk it never accepts what the reader refuses.
void expect_scalar_matches_reader(BytesView element, const char* what) {
  ScalarElement e;
  if (!decode_scalar_element(element, &e)) return;
  TupleReader r(element);
  ASSERT_TRUE(r.next()) << what << " " << to_hex(element);
  EXPECT_TRUE(r.rest().empty()) << what << " " << to_hex(element);
  ASSERT_EQ(e.type, r.type()) << what << " " << to_hex(element);
  switch (e.type) {
    case ElementType::kInt:
      EXPECT_EQ(e.int_value, r.int64_value()) << to_hex(element);
      break;
    case ElementType::kDouble:
      EXPECT_EQ(e.double_bits, r.double_bits()) << to_hex(element);
      break;
    case ElementType::kString:
    case ElementType::kBytes:
      EXPECT_FALSE(r.has_escapes()) << to_hex(element);
      EXPECT_EQ(e.payload, r.escaped_payload()) << to_hex(element);
      EXPECT_EQ(e.payload.data()[e.payload.size()], '\0') << to_hex(element);
      break;
    default:
      EXPECT_EQ(e.type, ElementType::kNull) << to_hex(element);
  }
}

TEST(TupleRandom, ScalarElementsMatchTheReader) {
  TupleGen gen(20261125);
  size_t accepted = 0;
  for (int i = 0; i < 5000; ++i) {
    Bytes b;
    ASSERT_TRUE(pack(gen.tuple(0, true), &b).ok());
    TupleReader r(b);
    while (r.next()) {
      const BytesView raw = r.raw();
      ScalarElement e;
      const bool scalar = decode_scalar_element(raw, &e);
      const bool simple = r.type() == ElementType::kNull || r.type() == ElementType::kDouble ||
                          (r.type() == ElementType::kInt && raw.size() <= 9 &&
                           static_cast<uint8_t>(raw[0]) >= 0x0d && static_cast<uint8_t>(raw[0]) <= 0x1b) ||
                          ((r.type() == ElementType::kString || r.type() == ElementType::kBytes) &&
                           !r.has_escapes());
      EXPECT_EQ(scalar, simple) << to_hex(raw);
      accepted += scalar ? 1 : 0;
      expect_scalar_matches_reader(raw, "element");
      // The element with a byte too few or too many is not one element.
      EXPECT_FALSE(decode_scalar_element(raw.substr(0, raw.size() - 1), &e) && raw.size() > 1 &&
                   static_cast<uint8_t>(raw[0]) != 0x00)
          << to_hex(raw);
      EXPECT_FALSE(decode_scalar_element(Bytes(raw) + Bytes(1, '\0'), &e)) << to_hex(raw);
    }
  }
  EXPECT_GT(accepted, 3000u);  // about two in three top-level elements
  std::mt19937_64 rng(11);
  for (int i = 0; i < 50000; ++i) {
    Bytes junk(1 + rng() % 12, '\0');
    for (char& c : junk) c = static_cast<char>(rng() % 3 == 0 ? 0 : rng() % 2 ? rng() : 0x15);
    expect_scalar_matches_reader(junk, "junk");
  }
  // What the reader refuses (non-canonical integers, bad UTF-8, escapes
  // without a following FF, short doubles) is refused here too.
  ScalarElement e;
  for (const char* hex : {"15 00", "16 00 01", "13 FF", "12 FF 00", "02 61 FF 00", "02 C0 80 00",
                          "02 61", "01 61", "21 00 00", "02 61 00 FF 00", "", "1C 01 02 03 04 05 06 07 08"}) {
    EXPECT_FALSE(decode_scalar_element(H(hex), &e)) << hex;
  }
}

TEST(TupleRandom, ValueOrderMatchesByteOrder) {
  TupleGen gen(7);
  int mismatches = 0;
  for (int i = 0; i < 20000; ++i) {
    const Tuple a = gen.tuple(0, true);
    const Tuple b = gen.pick(3) == 0 ? gen.tuple(0, true) : gen.mutate(a);
    const int by_value = sign(compare(a, b));
    const int by_bytes = sign(compare_bytes(*packed(a), *packed(b)));
    if (by_value != by_bytes && ++mismatches < 10) {
      ADD_FAILURE() << repr(a) << " vs " << repr(b) << ": value " << by_value << ", bytes "
                    << by_bytes;
    }
    EXPECT_EQ(sign(compare(b, a)), -by_value);
    EXPECT_EQ(by_value == 0, a == b);
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(TupleOrder, TypeClassesInCodeOrder) {
  Uuid u{};
  const Tuple by_class = {Null(),
                          B("\xff"),
                          S(""),
                          N({}),
                          Big("-99999999999999999999999"),
                          I(0),
                          Big("99999999999999999999999"),
                          TupleValue::float32_bits(0xFFFFFFFFu),
                          TupleValue::float32_bits(0x7FFFFFFFu),
                          TupleValue::float64_bits(0xFFFFFFFFFFFFFFFFull),
                          TupleValue::float64_bits(0x7FFFFFFFFFFFFFFFull),
                          Bool(false),
                          Bool(true),
                          TupleValue::uuid(u),
                          Stamp("00 00 00 00 00 00 00 00 00 00 00 00"),
                          TupleValue::user(0x40, ""),
                          TupleValue::user(0x4F, "")};
  for (size_t i = 0; i < by_class.size(); ++i) {
    for (size_t j = 0; j < by_class.size(); ++j) {
      const int expect = i < j ? -1 : (i > j ? 1 : 0);
      EXPECT_EQ(sign(compare(by_class[i], by_class[j])), expect)
          << repr(by_class[i]) << " vs " << repr(by_class[j]);
      Bytes pi, pj;
      ASSERT_TRUE(pack_element(by_class[i], &pi).ok());
      ASSERT_TRUE(pack_element(by_class[j], &pj).ok());
      EXPECT_EQ(sign(compare_bytes(pi, pj)), expect);
    }
  }
}

// ---------------------------------------------------------------------------
// strinc and range

TEST(TupleStrinc, EdgeCases) {
  EXPECT_EQ(*strinc("a"), "b");
  EXPECT_EQ(*strinc("a\xff"), "b");
  EXPECT_EQ(*strinc("ab\xff\xff"), "ac");
  EXPECT_EQ(*strinc(std::string_view("\0", 1)), "\x01");
  EXPECT_EQ(*strinc("\xfe\xff"), "\xff");
  EXPECT_EQ(*strinc("\x01\xfe"), "\x01\xff");
  const Result<Bytes> empty = strinc("");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(empty.status().message(), "strinc: key must contain a byte other than 0xff");
  EXPECT_FALSE(strinc("\xff\xff").ok());
}

TEST(TupleRange, StrictExtensionsOnly) {
  const Bytes p = *packed({S("a"), I(1)});
  const KeyRange r = range(p);
  EXPECT_FALSE(r.contains(p));
  EXPECT_TRUE(r.contains(*packed({S("a"), I(1), Null()})));
  EXPECT_TRUE(r.contains(*packed({S("a"), I(1), TupleValue::user(0x4F, "\xff\xff")})));
  EXPECT_FALSE(r.contains(*packed({S("a"), I(2)})));
  EXPECT_FALSE(r.empty());
  const KeyRange all = range("");
  EXPECT_EQ(all.begin, std::string(1, '\0'));
  EXPECT_EQ(all.end, "\xff");
  // [p, strinc(p)) holds p and every raw extension.
  const Bytes end = *strinc(p);
  EXPECT_EQ(to_hex(end), spec_hex("02 61 00 15 02"));
}

// A key is under a tuple prefix when it is the prefix or adds elements;
// one whose last string, bytes or nested element merely goes on is not,
// though its bytes start with the prefix's.
TEST(TupleRange, ATuplePrefixHoldsWholeElementsOnly) {
  const Bytes a = *packed({S("a")});
  const Bytes cases_under[] = {a, *packed({S("a"), I(1)}), *packed({S("a"), S("")}),
                               *packed({S("a"), Null()}), *packed({S("a"), B("\xff")})};
  for (const Bytes& k : cases_under) EXPECT_TRUE(has_tuple_prefix(k, a)) << to_hex(k);
  const Bytes not_under[] = {*packed({S(std::string_view("a\0b", 3))}),
                             *packed({S(std::string_view("a\0", 2))}), *packed({S("ab")}),
                             *packed({S("b")}), Bytes("\x02\x61")};
  for (const Bytes& k : not_under) EXPECT_FALSE(has_tuple_prefix(k, a)) << to_hex(k);
  // Bytes and nested elements go on the same way: b'x' then b'x\0'.
  const Bytes bx = *packed({B("x")});
  EXPECT_FALSE(has_tuple_prefix(*packed({B(std::string_view("x\0", 2))}), bx));
  const Bytes nested = *packed({TupleValue::nested({S("n")})});
  EXPECT_TRUE(has_tuple_prefix(*packed({TupleValue::nested({S("n")}), I(2)}), nested));
  EXPECT_FALSE(has_tuple_prefix(*packed({TupleValue::nested({S("n"), Null()})}), nested));

  // [prefix, tuple_prefix_end(prefix)) is exactly those keys, in key order.
  const Bytes end = tuple_prefix_end(a);
  EXPECT_EQ(to_hex(end), spec_hex("02 61 00 ff"));
  auto in_range = [&](const Bytes& k) { return BytesView(k) >= BytesView(a) && BytesView(k) < BytesView(end); };
  for (const Bytes& k : cases_under) EXPECT_TRUE(in_range(k)) << to_hex(k);
  for (const Bytes& k : not_under) EXPECT_FALSE(in_range(k)) << to_hex(k);
}

}  // namespace
}  // namespace tuplekv
