// AbsentKeys: ranges answer for the keys in them, written keys never count
// as absent, ranges merge when they touch, and clear() and the caps forget.
#include "core/absent_keys.h"

#include <gtest/gtest.h>

#include <string>

namespace tuplekv {
namespace {

TEST(AbsentKeysTest, NothingIsKnownAtFirst) {
  AbsentKeys a;
  EXPECT_FALSE(a.known_absent("k"));
  EXPECT_FALSE(a.in_range("k"));
  EXPECT_FALSE(a.maybe_written("k"));
}

TEST(AbsentKeysTest, ARangeIsHalfOpen) {
  AbsentKeys a;
  a.add_range("b", "d");
  EXPECT_FALSE(a.known_absent("a"));
  EXPECT_TRUE(a.known_absent("b"));
  EXPECT_TRUE(a.known_absent("c\xff"));
  EXPECT_FALSE(a.known_absent("d"));
  a.add_range("x", "");  // to the end
  EXPECT_TRUE(a.known_absent("x"));
  EXPECT_TRUE(a.known_absent("\xff\xff\xff"));
  a.add_range("q", "p");  // empty: nothing
  EXPECT_FALSE(a.known_absent("q"));
}

TEST(AbsentKeysTest, WrittenKeysAreNotAbsent) {
  AbsentKeys a;
  a.add_range("a", "z");
  a.wrote_below("m");
  EXPECT_FALSE(a.known_absent("m"));
  EXPECT_TRUE(a.maybe_written("m"));
  EXPECT_TRUE(a.in_range("m"));
  EXPECT_TRUE(a.known_absent("n"));
}

// Writes before any range are not recorded: a range learned later ends
// at any key below that the owner found unrecorded.
TEST(AbsentKeysTest, WritesWithoutRangesAreNotKept) {
  AbsentKeys a;
  a.wrote_below("m");
  EXPECT_FALSE(a.maybe_written("m"));
}

TEST(AbsentKeysTest, TouchingAndOverlappingRangesMerge) {
  AbsentKeys a;
  a.add_range("c", "e");
  a.add_range("e", "g");  // touches
  EXPECT_EQ(a.ranges(), 1u);
  a.add_range("a", "d");  // overlaps
  EXPECT_EQ(a.ranges(), 1u);
  EXPECT_TRUE(a.known_absent("a"));
  EXPECT_TRUE(a.known_absent("f"));
  a.add_range("x", "y");
  EXPECT_EQ(a.ranges(), 2u);
  a.add_range("b", "");  // swallows both
  EXPECT_EQ(a.ranges(), 1u);
  EXPECT_TRUE(a.known_absent("zzz"));
}

TEST(AbsentKeysTest, TheOldestRangeGoesPastTheLimit) {
  AbsentKeys a;
  for (size_t i = 0; i <= AbsentKeys::kMaxRanges; ++i) {
    const std::string k(1, static_cast<char>('a' + 2 * i));
    a.add_range(k, k + "x");
  }
  EXPECT_EQ(a.ranges(), AbsentKeys::kMaxRanges);
  EXPECT_FALSE(a.known_absent("a"));  // the first one
  EXPECT_TRUE(a.known_absent("c"));
}

TEST(AbsentKeysTest, ClearForgetsRangesAndWrites) {
  AbsentKeys a;
  a.add_range("a", "z");
  a.wrote_below("m");
  a.clear();
  EXPECT_FALSE(a.known_absent("b"));
  EXPECT_FALSE(a.maybe_written("m"));
  EXPECT_EQ(a.ranges(), 0u);
}

}  // namespace
}  // namespace tuplekv
