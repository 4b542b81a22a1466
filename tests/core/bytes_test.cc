// Bytes helpers: hex, bytewise order and KeyRange.
#include "core/bytes.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace tuplekv {
namespace {

TEST(BytesTest, BlobLiteralShowsAtMost32Bytes) {
  EXPECT_EQ(blob_literal(""), "x''");
  EXPECT_EQ(blob_literal(std::string_view("\x02t\x00", 3)), "x'027400'");
  std::string ab32;
  for (int i = 0; i < 32; ++i) ab32 += "ab";
  EXPECT_EQ(blob_literal(Bytes(32, '\xab')), "x'" + ab32 + "'");
  EXPECT_EQ(blob_literal(Bytes(33, '\xab')), "x'" + ab32 + "'...");
}

TEST(BytesTest, Hex) {
  EXPECT_EQ(to_hex(""), "");
  EXPECT_EQ(to_hex(std::string_view("\x00\x01\x7f\x80\xfe\xff", 6)), "00017f80feff");
  Bytes out = "unchanged";
  EXPECT_TRUE(from_hex("00ABcdEf", &out));
  EXPECT_EQ(out, std::string_view("\x00\xab\xcd\xef", 4));
  EXPECT_TRUE(from_hex("", &out));
  EXPECT_EQ(out, "");
  out = "unchanged";
  EXPECT_FALSE(from_hex("abc", &out));
  EXPECT_FALSE(from_hex("zz", &out));
  EXPECT_FALSE(from_hex("0g", &out));
  EXPECT_FALSE(from_hex(" 0", &out));
  EXPECT_EQ(out, "unchanged");
  for (int b = 0; b < 256; ++b) {
    const Bytes one(1, static_cast<char>(b));
    Bytes back;
    ASSERT_TRUE(from_hex(to_hex(one), &back));
    EXPECT_EQ(back, one);
  }
  EXPECT_EQ(hex_digit('0'), 0);
  EXPECT_EQ(hex_digit('9'), 9);
  EXPECT_EQ(hex_digit('a'), 10);
  EXPECT_EQ(hex_digit('F'), 15);
  for (char c : {'g', 'G', ' ', '/', ':', '@', '`', '\0'}) EXPECT_EQ(hex_digit(c), -1) << c;
}

TEST(BytesTest, CompareIsUnsignedWithPrefixFirst) {
  EXPECT_EQ(compare_bytes("", ""), 0);
  EXPECT_LT(compare_bytes("", std::string_view("\0", 1)), 0);
  EXPECT_LT(compare_bytes("a", "ab"), 0);
  EXPECT_GT(compare_bytes("ab", "a"), 0);
  EXPECT_LT(compare_bytes("\x7f", "\x80"), 0);  // unsigned, not char order
  EXPECT_GT(compare_bytes("\xff", "\x01\xff"), 0);
  EXPECT_EQ(compare_bytes("abc", "abc"), 0);
  EXPECT_LT(compare_bytes(std::string_view("a\0", 2), "a\x01"), 0);
}

TEST(BytesTest, HasPrefix) {
  EXPECT_TRUE(has_prefix("", ""));
  EXPECT_TRUE(has_prefix("abc", ""));
  EXPECT_TRUE(has_prefix("abc", "ab"));
  EXPECT_TRUE(has_prefix("abc", "abc"));
  EXPECT_FALSE(has_prefix("ab", "abc"));
  EXPECT_FALSE(has_prefix("abc", "abd"));
  EXPECT_TRUE(has_prefix(std::string_view("\x02t\x00\x15\x01", 5), std::string_view("\x02t\x00", 3)));
  EXPECT_FALSE(has_prefix(std::string_view("\x02u\x00", 3), std::string_view("\x02t\x00", 3)));
}

TEST(BytesTest, KeyRange) {
  const KeyRange r{"b", "d"};
  EXPECT_FALSE(r.contains("a"));
  EXPECT_TRUE(r.contains("b"));
  EXPECT_TRUE(r.contains("c\xff\xff"));
  EXPECT_FALSE(r.contains("d"));
  EXPECT_FALSE(r.empty());
  EXPECT_FALSE(r.unbounded_end());

  const KeyRange open{"b", ""};
  EXPECT_TRUE(open.unbounded_end());
  EXPECT_TRUE(open.contains("\xff\xff\xff"));
  EXPECT_FALSE(open.contains("a"));
  EXPECT_FALSE(open.empty());

  EXPECT_TRUE((KeyRange{"b", "b"}).empty());
  EXPECT_TRUE((KeyRange{"c", "b"}).empty());
  EXPECT_FALSE((KeyRange{"c", "b"}).contains("c"));
  EXPECT_TRUE((KeyRange{"", ""}).contains(""));

  EXPECT_EQ((KeyRange{"a", "b"}), (KeyRange{"a", "b"}));
  EXPECT_FALSE((KeyRange{"a", "b"}) == (KeyRange{"a", "c"}));
}

// Keys that differ in one byte anywhere, or only in length, hash apart,
// and the low bits (which pick a hash table's slot) spread: keys built as
// a tuple layer builds them, a shared prefix and a counter, fill most of
// the slots of a table twice their number.
TEST(BytesTest, HashBytesSpreadsTupleShapedKeys) {
  EXPECT_EQ(hash_bytes("abc"), hash_bytes(std::string("abc")));
  std::set<uint64_t> seen;
  std::set<uint64_t> slots;
  constexpr uint64_t kSlots = 8192;
  for (int i = 0; i < 4096; ++i) {
    std::string k = std::string("\x02users\x00\x15", 9);
    k.push_back(static_cast<char>(i >> 8));
    k.push_back(static_cast<char>(i & 0xff));
    seen.insert(hash_bytes(k));
    slots.insert(hash_bytes(k) & (kSlots - 1));
  }
  EXPECT_EQ(seen.size(), 4096u);
  EXPECT_GT(slots.size(), 3000u);  // ~3,225 for random slots
  std::set<uint64_t> lengths;
  for (size_t n = 0; n <= 40; ++n) lengths.insert(hash_bytes(std::string(n, '\0')));
  EXPECT_EQ(lengths.size(), 41u);
  for (size_t at = 0; at < 20; ++at) {
    std::string a(20, 'x');
    std::string b = a;
    b[at] = 'y';
    EXPECT_NE(hash_bytes(a), hash_bytes(b)) << at;
  }
}

}  // namespace
}  // namespace tuplekv
