// UTF-8 validation (Unicode Table 3-7), which decides what a tuple string may
// hold: every sequence length at its bounds, overlongs, surrogates, code
// points above U+10FFFF, truncation and stray continuation bytes. The
// validator skips ASCII a word at a time, so errors are placed at every
// offset around word boundaries, and random strings are checked against a
// plain decoder. The offset of the first bad byte is what pack() reports to
// the user, so offsets are checked through its message.
#include "core/tuple.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace tuplekv {
namespace {

// `cp` in `len` bytes by the bit pattern alone: also writes overlongs,
// surrogates and values above U+10FFFF, which the tests need as bad input.
std::string encode(uint32_t cp, int len) {
  if (len == 1) return std::string(1, static_cast<char>(cp));
  static const uint8_t kLead[] = {0, 0, 0xC0, 0xE0, 0xF0};
  std::string out(1, static_cast<char>(kLead[len] | (cp >> (6 * (len - 1)))));
  for (int k = len - 2; k >= 0; --k) {
    out.push_back(static_cast<char>(0x80 | ((cp >> (6 * k)) & 0x3F)));
  }
  return out;
}

// A plain decoder: the offset of the first ill-formed sequence, or s.size().
size_t reference_error_offset(std::string_view s) {
  static const uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  size_t i = 0;
  while (i < s.size()) {
    const uint8_t b = static_cast<uint8_t>(s[i]);
    const size_t len = b < 0x80 ? 1 : b < 0xC0 ? 0 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : b < 0xF8 ? 4 : 0;
    if (len == 0 || s.size() - i < len) return i;
    uint32_t cp = len == 1 ? b : b & (0x7F >> len);
    for (size_t k = 1; k < len; ++k) {
      if ((s[i + k] & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (s[i + k] & 0x3F);
    }
    if (cp < kMin[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
    i += len;
  }
  return s.size();
}

// What pack() says about `s` as a string element: "ok" or its message.
std::string pack_result(std::string_view s) {
  Bytes out;
  const Status st = pack_element(TupleValue::string(s), &out);
  return st.ok() ? "ok" : st.message();
}

std::string bad_at(size_t offset) {
  std::string m = "tuple: invalid UTF-8 at byte ";
  m += std::to_string(offset);
  m += " of the string at element 0";
  return m;
}

void expect_valid(std::string_view s) {
  EXPECT_TRUE(is_valid_utf8(s)) << to_hex(s);
  EXPECT_EQ(pack_result(s), "ok") << to_hex(s);
}

void expect_invalid_at(std::string_view s, size_t offset) {
  EXPECT_FALSE(is_valid_utf8(s)) << to_hex(s);
  EXPECT_EQ(pack_result(s), bad_at(offset)) << to_hex(s);
}

TEST(Utf8Test, AsciiAndNulAreValid) {
  expect_valid("");
  std::string all_ascii;
  for (int b = 0; b < 0x80; ++b) all_ascii.push_back(static_cast<char>(b));
  expect_valid(all_ascii);
  // U+0000 is a code point like any other; the tuple layer escapes it.
  expect_valid(std::string(1, '\0'));
  expect_valid(std::string(37, '\0'));
}

TEST(Utf8Test, EachSequenceLengthAtItsBounds) {
  struct Case {
    uint32_t cp;
    const char* utf8;
  };
  const Case cases[] = {
      {0x7F, "\x7F"},
      {0x80, "\xC2\x80"},
      {0x7FF, "\xDF\xBF"},
      {0x800, "\xE0\xA0\x80"},
      {0xD7FF, "\xED\x9F\xBF"},  // just below the surrogates
      {0xE000, "\xEE\x80\x80"},  // just above them
      {0xFFFF, "\xEF\xBF\xBF"},
      {0x10000, "\xF0\x90\x80\x80"},
      {0x10FFFF, "\xF4\x8F\xBF\xBF"},
  };
  for (const Case& c : cases) {
    const std::string u = c.utf8;
    ASSERT_EQ(encode(c.cp, static_cast<int>(u.size())), u);  // the helper the other tests use
    for (size_t at = 0; at <= 40; ++at) {
      expect_valid(std::string(at, 'a') + u + std::string(40 - at, 'b'));
    }
    // A bad byte right after the sequence is found where it is.
    expect_invalid_at(std::string(9, 'a') + u + "\xFF", 9 + u.size());
  }
}

TEST(Utf8Test, OverlongsAreRejected) {
  for (const char* s : {"\xC0\x80", "\xC1\xBF", "\xE0\x80\x80", "\xE0\x9F\xBF", "\xF0\x80\x80\x80",
                        "\xF0\x8F\xBF\xBF"}) {
    expect_invalid_at(s, 0);
  }
  // Every code point written one byte longer than it needs.
  for (uint32_t cp = 0; cp < 0x10000; cp += 7) {
    const int shortest = cp < 0x80 ? 1 : cp < 0x800 ? 2 : 3;
    expect_invalid_at(std::string("x").append(encode(cp, shortest + 1)), 1);
  }
}

TEST(Utf8Test, SurrogatesAreRejected) {
  for (uint32_t cp = 0xD800; cp <= 0xDFFF; ++cp) {
    expect_invalid_at(std::string("xy").append(encode(cp, 3)), 2);
  }
}

TEST(Utf8Test, CodePointsAboveU10FFFFAreRejected) {
  expect_invalid_at("\xF4\x90\x80\x80", 0);  // U+110000
  expect_invalid_at("\xF4\xBF\xBF\xBF", 0);
  expect_invalid_at("\xF7\xBF\xBF\xBF", 0);  // U+1FFFFF, the largest 4-byte pattern
  for (int lead = 0xF5; lead <= 0xFF; ++lead) {
    expect_invalid_at(std::string("ok") + static_cast<char>(lead) + "\x80\x80\x80\x80\x80", 2);
  }
}

TEST(Utf8Test, TruncatedSequencesAreRejected) {
  for (const std::string u : {"\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x94\xA5"}) {
    for (size_t keep = 1; keep < u.size(); ++keep) {
      for (size_t before : {0, 1, 7, 8, 9, 15, 16, 17, 33}) {
        const std::string head = std::string(before, 'a') + u.substr(0, keep);
        expect_invalid_at(head, before);             // at the end of the input
        expect_invalid_at(head + "z", before);       // followed by ASCII
        expect_invalid_at(head + u + "z", before);   // followed by a whole character
      }
    }
  }
}

TEST(Utf8Test, StrayContinuationBytesAreRejected) {
  for (int b = 0x80; b <= 0xBF; ++b) {
    const char c = static_cast<char>(b);
    expect_invalid_at(std::string(1, c), 0);
    expect_invalid_at(std::string("\xC3\xA9") + c, 2);          // one too many
    expect_invalid_at(std::string("\xF0\x9F\x94\xA5") + c, 4);
    expect_invalid_at(std::string(16, 'a') + c + "bc", 16);
  }
}

// The first error, whatever word of the fast ASCII path it falls in.
TEST(Utf8Test, ErrorIsFoundAtEveryOffset) {
  for (const std::string bad : {"\xFF", "\x80", "\xC0\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80"}) {
    for (size_t n = 1; n <= 48; ++n) {
      for (size_t at = 0; at + bad.size() <= n; ++at) {
        std::string s(n, 'a');
        s.replace(at, bad.size(), bad);
        expect_invalid_at(s, at);
      }
    }
    // After non-ASCII, the word loop resumes at an odd alignment.
    for (size_t at = 0; at <= 40; ++at) {
      expect_invalid_at(std::string("\xC3\xA9").append(at, 'a') + bad + "\xFF", 2 + at);
    }
  }
}

TEST(Utf8Test, AgreesWithAPlainDecoderOnRandomInput) {
  std::mt19937 rng(20240611);
  auto pick = [&](uint32_t n) { return static_cast<uint32_t>(rng() % n); };
  int valid = 0, invalid = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string s;
    for (uint32_t pieces = pick(6); pieces > 0; --pieces) {
      switch (pick(5)) {
        case 0: s += std::string(pick(20), static_cast<char>('a' + pick(26))); break;
        case 1: s += encode(pick(0x80), 1); break;
        case 2: {
          const uint32_t cp = pick(0x110000);
          s += encode(cp, cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4);
          break;
        }
        case 3: s += encode(pick(0x800), 2 + pick(2)); break;  // often overlong
        default: s.push_back(static_cast<char>(0x80 + pick(0x80))); break;
      }
    }
    const size_t expected = reference_error_offset(s);
    ASSERT_EQ(is_valid_utf8(s), expected == s.size()) << to_hex(s);
    ASSERT_EQ(pack_result(s), expected == s.size() ? "ok" : bad_at(expected)) << to_hex(s);
    ++(expected == s.size() ? valid : invalid);
  }
  // Both answers must be common, or the comparison proves little.
  EXPECT_GT(valid, 2000);
  EXPECT_GT(invalid, 2000);
}

}  // namespace
}  // namespace tuplekv
