// Collation keys: their byte order and equality are those of SQLite's
// NOCASE and RTRIM collations, checked against a transcription of SQLite's
// two comparison functions over every pair of many generated strings.
#include "core/model/collation_key.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
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
Bytes str(std::string_view v) { return el(TupleValue::string(v)); }

Bytes key(BytesView element, std::string_view collation) {
  Bytes out;
  append_collation_key(element, collation, &out);
  return out;
}

int sgn(int c) { return (c > 0) - (c < 0); }

// SQLite's collations as its source defines them (main.c, util.c): NOCASE
// folds ASCII letters and compares up to the shorter length or a NUL, then
// by length; RTRIM drops trailing spaces and compares bytes, then lengths.
unsigned char lower(unsigned char c) { return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c; }

int sqlite_nocase(const std::string& a, const std::string& b) {
  int n = static_cast<int>(std::min(a.size(), b.size()));
  const auto* x = reinterpret_cast<const unsigned char*>(a.c_str());
  const auto* y = reinterpret_cast<const unsigned char*>(b.c_str());
  while (n-- > 0 && *x != 0 && lower(*x) == lower(*y)) {
    ++x;
    ++y;
  }
  const int r = n < 0 ? 0 : lower(*x) - lower(*y);
  return r != 0 ? r : static_cast<int>(a.size()) - static_cast<int>(b.size());
}

int sqlite_binary(const std::string& a, const std::string& b) {
  const size_t n = std::min(a.size(), b.size());
  const int r = n == 0 ? 0 : std::memcmp(a.data(), b.data(), n);
  return r != 0 ? r : static_cast<int>(a.size()) - static_cast<int>(b.size());
}

int sqlite_rtrim(std::string a, std::string b) {
  while (!a.empty() && a.back() == ' ') a.pop_back();
  while (!b.empty() && b.back() == ' ') b.pop_back();
  return sqlite_binary(a, b);
}

std::vector<std::string> sample_strings() {
  // Letters in both cases, the bytes between 'Z' and 'a' (which folding
  // moves letters across), spaces, NULs and a two-byte character.
  static const char* kPieces[] = {"a", "A", "b", "B", "z", "Z", "[", "_", "`", " ", "(NUL)", "\xc3\xa9", "0"};
  std::vector<std::string> out = {"", " ", "  ", std::string(1, '\0'), std::string("a\0", 2),
                                  std::string("A\0b", 3), std::string("a\0c", 3), "a ", "A", "a"};
  std::mt19937 rng(7);
  for (int i = 0; i < 400; ++i) {
    std::string s;
    for (int n = static_cast<int>(rng() % 6); n > 0; --n) {
      const size_t p = rng() % (sizeof kPieces / sizeof kPieces[0]);
      s += p == 10 ? std::string(1, '\0') : std::string(kPieces[p]);
    }
    out.push_back(s);
  }
  return out;
}

TEST(CollationKeyTest, FoldsAndTrimsAsSqlite) {
  EXPECT_EQ(key(str("Ann"), "NOCASE"), str("ann"));
  EXPECT_EQ(key(str("\xc3\x89" "COLE ab"), "NOCASE"), str("\xc3\x89" "cole ab"));  // ASCII only
  EXPECT_EQ(key(str("ann  "), "RTRIM"), str("ann"));
  EXPECT_EQ(key(str("  "), "RTRIM"), str(""));
  EXPECT_EQ(key(str("a \t"), "RTRIM"), str("a \t"));  // spaces only
  EXPECT_EQ(key(str("Ann  "), "BINARY"), str("Ann  "));
  EXPECT_TRUE(collation_keys_text("NOCASE"));
  EXPECT_TRUE(collation_keys_text("RTRIM"));
  EXPECT_FALSE(collation_keys_text("BINARY"));
  // Text holding a NUL: the folded text before it, a NUL, the length.
  EXPECT_EQ(key(str(std::string("aB\0c", 4)), "NOCASE"), str(std::string("ab\0" "0000000004", 13)));
}

TEST(CollationKeyTest, OtherElementsAndDamagedBytesAreUnchanged) {
  for (const Bytes& e : {el(TupleValue::int64(7)), el(TupleValue::float64(2.5)), el(TupleValue::null()),
                         el(TupleValue::bytes("ABC  "))}) {
    EXPECT_EQ(key(e, "NOCASE"), e);
    EXPECT_EQ(key(e, "RTRIM"), e);
  }
  // Not one whole string element: a missing terminator, a terminator
  // inside, an empty input.
  for (const Bytes& e : {Bytes("\x02" "AB", 3), Bytes("\x02" "A\0B\0", 5), Bytes(), Bytes("\x02", 1)}) {
    EXPECT_EQ(key(e, "NOCASE"), e);
    EXPECT_EQ(key(e, "RTRIM"), e);
  }
}

TEST(CollationKeyTest, KeysAreWholeValidStringElements) {
  for (const std::string& s : sample_strings()) {
    for (const char* coll : {"NOCASE", "RTRIM"}) {
      const Bytes k = key(str(s), coll);
      Tuple t;
      ASSERT_TRUE(unpack(k, &t).ok()) << coll << " " << repr_packed(str(s));
      ASSERT_EQ(t.size(), 1u);
      EXPECT_EQ(t[0].type(), ElementType::kString);
      EXPECT_EQ(quick_element_size(k), k.size());
    }
  }
}

TEST(CollationKeyTest, ByteOrderIsTheCollationsOrder) {
  const std::vector<std::string> all = sample_strings();
  std::vector<Bytes> nocase, rtrim;
  for (const std::string& s : all) {
    nocase.push_back(key(str(s), "NOCASE"));
    rtrim.push_back(key(str(s), "RTRIM"));
  }
  int equal_pairs = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    for (size_t j = 0; j < all.size(); ++j) {
      ASSERT_EQ(sgn(compare_bytes(nocase[i], nocase[j])), sgn(sqlite_nocase(all[i], all[j])))
          << "NOCASE " << repr_packed(str(all[i])) << " " << repr_packed(str(all[j]));
      ASSERT_EQ(sgn(compare_bytes(rtrim[i], rtrim[j])), sgn(sqlite_rtrim(all[i], all[j])))
          << "RTRIM " << repr_packed(str(all[i])) << " " << repr_packed(str(all[j]));
      if (i != j && all[i] != all[j] && nocase[i] == nocase[j]) ++equal_pairs;
    }
  }
  EXPECT_GT(equal_pairs, 100);  // the sample does hold distinct equal strings
}

}  // namespace
}  // namespace tuplekv::model
