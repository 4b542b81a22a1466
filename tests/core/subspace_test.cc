// Subspace: prefixes, packing under a prefix, containment, ranges.
#include "core/subspace.h"

#include <gtest/gtest.h>

namespace tuplekv {
namespace {

TEST(SubspaceTest, HeaderExample) {
  Result<Subspace> users = Subspace::make({TupleValue::string("users")});
  ASSERT_TRUE(users.ok());
  EXPECT_EQ(users->key(), std::string("\x02users\x00", 7));
  Result<Bytes> k = users->pack({TupleValue::int64(7)});
  ASSERT_TRUE(k.ok());
  EXPECT_EQ(*k, std::string("\x02users\x00\x15\x07", 9));
  EXPECT_TRUE(users->contains(*k));
  const KeyRange r = users->range();
  EXPECT_EQ(r.begin, std::string("\x02users\x00\x00", 8));
  EXPECT_EQ(r.end, std::string("\x02users\x00\xff", 8));
  EXPECT_TRUE(r.contains(*k));
  EXPECT_FALSE(r.contains(users->key()));
}

TEST(SubspaceTest, RawPrefixAndNesting) {
  Result<Subspace> s = Subspace::make({TupleValue::int64(1)}, "\xfe");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->key(), "\xfe\x15\x01");
  Result<Subspace> child = s->sub({TupleValue::string("a")});
  ASSERT_TRUE(child.ok());
  EXPECT_EQ(child->key(), std::string("\xfe\x15\x01\x02" "a\x00", 6));
  EXPECT_TRUE(s->contains(child->key()));
  EXPECT_FALSE(child->contains(s->key()));

  const Subspace raw = Subspace::from_raw("xy");
  EXPECT_EQ(raw.key(), "xy");
  EXPECT_EQ(*raw.pack({}), "xy");

  const Subspace whole;
  EXPECT_TRUE(whole.key().empty());
  EXPECT_TRUE(whole.contains(""));
  EXPECT_EQ(whole.range().begin, std::string(1, '\0'));
  EXPECT_EQ(whole.range().end, "\xff");
}

TEST(SubspaceTest, UnpackChecksThePrefixAndReportsWholeKeyOffsets) {
  const Subspace s = *Subspace::make({TupleValue::string("t")});
  Tuple t;
  ASSERT_TRUE(s.unpack(*s.pack({TupleValue::int64(5), TupleValue::null()}), &t).ok());
  EXPECT_EQ(t, (Tuple{TupleValue::int64(5), TupleValue::null()}));
  ASSERT_TRUE(s.unpack(s.key(), &t).ok());
  EXPECT_TRUE(t.empty());

  const Status wrong = s.unpack(std::string("\x02u\x00\x15\x01", 5), &t);
  EXPECT_EQ(wrong.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(wrong.message(), "subspace: key 0275001501 does not start with the subspace prefix 027400");

  // The truncated integer is at byte 5 of the whole key (3 prefix + 2).
  const Status bad = s.unpack(std::string("\x02t\x00\x15\x01\x16\x01", 7), &t);
  EXPECT_EQ(bad.code(), StatusCode::kCorruption);
  EXPECT_EQ(bad.message(), "tuple: truncated integer at byte 5 (type code 0x16)");
}

TEST(SubspaceTest, PackToAppendsOrLeavesOutputAlone) {
  const Subspace s = Subspace::from_raw("P");
  Bytes out = "x";
  ASSERT_TRUE(s.pack_to({TupleValue::boolean(true)}, &out).ok());
  EXPECT_EQ(out, "xP\x27");
  const Status bad = s.pack_to({TupleValue::string("\xff")}, &out);
  EXPECT_EQ(bad.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(out, "xP\x27");
  EXPECT_FALSE(s.pack({TupleValue::string("\xff")}).ok());
  EXPECT_FALSE(s.sub({TupleValue::string("\xff")}).ok());
  EXPECT_FALSE(Subspace::make({TupleValue::string("\xff")}).ok());
}

TEST(SubspaceTest, RangeOfATuple) {
  const Subspace s = Subspace::from_raw("P");
  const KeyRange r = s.range({TupleValue::string("a")});
  EXPECT_EQ(r.begin, std::string("P\x02" "a\x00\x00", 5));
  EXPECT_EQ(r.end, std::string("P\x02" "a\x00\xff", 5));
  EXPECT_TRUE(r.contains(*s.pack({TupleValue::string("a"), TupleValue::int64(1)})));
  EXPECT_FALSE(r.contains(*s.pack({TupleValue::string("b")})));
  // A tuple that cannot be packed gives an empty range, even for the whole
  // keyspace (where [prefix, prefix) would read as unbounded).
  const KeyRange none = s.range({TupleValue::string("\xff")});
  EXPECT_TRUE(none.empty());
  EXPECT_FALSE(none.contains("P"));
  const KeyRange none_whole = Subspace().range({TupleValue::string("\xff")});
  EXPECT_TRUE(none_whole.empty());
  EXPECT_FALSE(none_whole.contains("a"));
}

}  // namespace
}  // namespace tuplekv
