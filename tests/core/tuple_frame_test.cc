// frame_element against quick_element_size (the framing) and TupleReader
// (the decoding), at the front of longer input. decode_scalar_element is
// frame_element on one whole element; tuple_test.cc checks it the same way.
#include "core/tuple_frame.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "core/bytes.h"
#include "core/tuple.h"

namespace tuplekv {
namespace {

// Tuples of what table rows hold, and of what they must not be mistaken
// for: integers of every width and sign (and past int64), doubles with
// their edge values, strings and bytes with NULs (escapes) and non-ASCII
// text, and the other types.
Tuple random_tuple(std::mt19937_64& rng) {
  Tuple t;
  const size_t n = 1 + rng() % 6;
  for (size_t i = 0; i < n; ++i) {
    switch (rng() % 10) {
      case 0:
        t.push_back(TupleValue::null());
        break;
      case 1: {
        const int shift = static_cast<int>(rng() % 64);
        const auto v = static_cast<int64_t>(rng() >> shift);
        t.push_back(TupleValue::int64(rng() % 2 ? v : -v));
        break;
      }
      case 2:
        t.push_back(TupleValue::int64(rng() % 2 ? std::numeric_limits<int64_t>::min()
                                                : std::numeric_limits<int64_t>::max()));
        break;
      case 3: {
        const double edge[] = {0.0, -0.0, 1.5, -2.25, 1e300, -1e-300,
                               std::numeric_limits<double>::infinity(), std::nan("")};
        t.push_back(TupleValue::float64(edge[rng() % 8]));
        break;
      }
      case 4:
      case 5: {
        std::string s;
        const size_t len = rng() % 30;
        const std::string pieces[] = {"a", "Z", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", " ",
                                      std::string(1, '\0')};
        // A NUL (an escape once packed) in about one string in eight.
        const bool nul = rng() % 8 == 0;
        for (size_t k = 0; k < len; ++k) s += pieces[rng() % (nul ? 7 : 6)];
        t.push_back(TupleValue::string(s));
        break;
      }
      case 6: {
        Bytes b(rng() % 12, '\0');
        for (char& c : b) c = static_cast<char>(rng() % 4 == 0 ? 0 : rng());
        t.push_back(TupleValue::bytes(b));
        break;
      }
      case 7:
        t.push_back(TupleValue::boolean(rng() % 2 == 0));
        break;
      case 8:
        t.push_back(TupleValue::float32(1.25f));
        break;
      default:
        t.push_back(TupleValue::nested({TupleValue::int64(1), TupleValue::string("x")}));
    }
  }
  return t;
}

// frame_element must size exactly as quick_element_size does, decode what
// it accepts as TupleReader reads it, and accept exactly the common
// scalars: null, doubles, integers of up to 8 bytes, and strings and bytes
// without escapes (strings valid UTF-8, which the reader checks too).
void expect_frame_matches(BytesView in) {
  ScalarElement framed;
  FramedAs as = FramedAs::kScalar;
  const size_t n = frame_element(in, &framed, &as);
  ASSERT_EQ(n, quick_element_size(in)) << to_hex(in);
  if (n == 0) {
    EXPECT_EQ(as, FramedAs::kOther) << to_hex(in);
    return;
  }
  if (as == FramedAs::kUncheckedText) {
    EXPECT_EQ(framed.type, ElementType::kString) << to_hex(in);
  }
  const bool accepted =
      as == FramedAs::kScalar || (as == FramedAs::kUncheckedText && scalar_text_is_valid(framed));
  const BytesView element = in.substr(0, n);
  TupleReader r(element);
  const bool read = r.next() && r.rest().empty();
  const auto code = static_cast<uint8_t>(element[0]);
  const bool simple = read && (r.type() == ElementType::kNull || r.type() == ElementType::kDouble ||
                               (r.type() == ElementType::kInt && code >= 0x0d && code <= 0x1b) ||
                               ((r.type() == ElementType::kString || r.type() == ElementType::kBytes) &&
                                !r.has_escapes()));
  ASSERT_EQ(accepted, simple) << to_hex(in);
  if (!accepted) return;
  ASSERT_EQ(framed.type, r.type()) << to_hex(in);
  switch (framed.type) {
    case ElementType::kInt:
      EXPECT_EQ(framed.int_value, r.int64_value()) << to_hex(in);
      break;
    case ElementType::kDouble:
      EXPECT_EQ(framed.double_bits, r.double_bits()) << to_hex(in);
      break;
    case ElementType::kString:
    case ElementType::kBytes:
      EXPECT_EQ(framed.payload, r.escaped_payload()) << to_hex(in);
      break;
    default:
      break;
  }
}

TEST(FrameElement, MatchesQuickSizeAndTheReader) {
  std::mt19937_64 gen(20261124);
  size_t decoded = 0;
  for (int i = 0; i < 5000; ++i) {
    Bytes b;
    const Status packed = pack(random_tuple(gen), &b);
    ASSERT_TRUE(packed.ok()) << packed.message();
    for (size_t at = 0; at < b.size(); ++at) expect_frame_matches(BytesView(b).substr(at));
    TupleReader r(b);
    while (r.next()) {
      ScalarElement e;
      FramedAs as;
      decoded += frame_element(r.raw(), &e, &as) != 0 && as != FramedAs::kOther ? 1 : 0;
    }
  }
  EXPECT_GT(decoded, 3000u);
  std::mt19937_64 rng(12);
  for (int i = 0; i < 50000; ++i) {
    Bytes junk(1 + rng() % 12, '\0');
    for (char& c : junk) c = static_cast<char>(rng() % 3 == 0 ? 0 : rng() % 2 ? rng() : 0x02);
    expect_frame_matches(junk);
  }
  // Text of every length the ASCII shortcut handles, with one non-ASCII
  // byte (valid or not) at every position.
  for (size_t len = 0; len < 40; ++len) {
    for (size_t bad = 0; bad <= len; ++bad) {
      for (const char* insert : {"\xC3\xA9", "\xC3", "\xFF", "\xE2\x82\xAC", "\xED\xA0\x80"}) {
        Bytes s = "\x02" + Bytes(len, 'a') + "\x00";
        s.insert(1 + bad, insert);
        expect_frame_matches(s);
      }
    }
  }
  ScalarElement e;
  FramedAs as;
  EXPECT_EQ(frame_element(Bytes("\x02" "a\x00\xff" "b\x00\x15\x01", 8), &e, &as), 6u);  // an escape: not decoded
  EXPECT_EQ(as, FramedAs::kOther);
  EXPECT_EQ(frame_element(Bytes("\x15\x01\x02", 3), &e, &as), 2u);
  EXPECT_EQ(as, FramedAs::kScalar);
  EXPECT_EQ(e.int_value, 1);
}

}  // namespace
}  // namespace tuplekv
