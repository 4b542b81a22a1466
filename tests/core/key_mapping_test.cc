// core/key_mapping: which bytes a mapping keeps, for elements of every
// kind, and keys that map to nothing. The default mapped scan is run over
// MemoryStore by the store conformance suite (memory_store_test).
#include "core/key_mapping.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/bigint.h"
#include "core/memory_store.h"
#include "core/tuple.h"

namespace tuplekv {
namespace {

Bytes pack_of(const Tuple& t) {
  Bytes out;
  EXPECT_TRUE(pack(t, &out).ok());
  return out;
}

TEST(KeyMapping, KeepsWhatFollowsThePrefixAndSkippedElements) {
  const Bytes from = pack_of({TupleValue::string("idx")});
  const Bytes to = pack_of({TupleValue::string("rows")});
  const Bytes pk = pack_of({TupleValue::int64(-5), TupleValue::string("k")});
  // Skipped elements of every size class, including those quick sizing
  // leaves to the full decoder (nested tuples, big integers).
  const std::vector<TupleValue> skipped = {
      TupleValue::null(),
      TupleValue::string(std::string("a\0b", 3)),
      TupleValue::bytes(std::string("\0\xff", 2)),
      TupleValue::int64(INT64_MIN),
      TupleValue::float64(-0.0),
      TupleValue::boolean(true),
      TupleValue::nested({TupleValue::null(), TupleValue::nested({TupleValue::int64(1)})}),
      TupleValue::integer(*BigInt::from_decimal("123456789012345678901234567890")),
  };
  for (size_t skip = 0; skip <= skipped.size(); ++skip) {
    Tuple t = {TupleValue::string("idx")};
    t.insert(t.end(), skipped.begin(), skipped.begin() + static_cast<long>(skip));
    const Bytes key = pack_of(t) + pk;
    KeyMapping m{from.size(), skip, to};
    Bytes out;
    ASSERT_TRUE(map_key(m, key, &out)) << skip;
    EXPECT_EQ(to_hex(out), to_hex(to + pk)) << skip;
    BytesView suffix;
    ASSERT_TRUE(mapped_suffix(key, from.size(), skip, &suffix));
    EXPECT_EQ(to_hex(suffix), to_hex(pk));
  }
}

TEST(KeyMapping, KeysThatMapToNothing) {
  Bytes out = "unchanged?";
  const KeyMapping m{3, 1, "p"};
  EXPECT_FALSE(map_key(m, "ab", &out));                        // shorter than the prefix
  EXPECT_FALSE(map_key(m, "abc", &out));                       // no element to skip
  EXPECT_FALSE(map_key(m, Bytes("abc\x02xy", 6), &out));       // unterminated string
  EXPECT_FALSE(map_key(m, Bytes("abc\x16\x01", 5), &out));     // truncated integer
  EXPECT_FALSE(map_key(m, Bytes("abc\xff", 4), &out));         // not a type code
  EXPECT_FALSE(map_key(m, Bytes("abc\x05\x15", 5), &out));     // unterminated nested tuple
  // Skipping nothing needs no element: the key's tail is kept as it is.
  ASSERT_TRUE(map_key(KeyMapping{3, 0, "p"}, Bytes("abc\xff", 4), &out));
  EXPECT_EQ(out, Bytes("p\xff", 2));
  ASSERT_TRUE(map_key(KeyMapping{3, 0, ""}, "abc", &out));
  EXPECT_EQ(out, "");
}

TEST(KeyMapping, DefaultMappedScanReadsThroughGet) {
  MemoryStore store;
  const KeyMapping m{1, 1, "r"};
  ASSERT_TRUE(store.set("r\x15\x01", "one").ok());
  ASSERT_TRUE(store.set("i\x15\x09\x15\x01", "").ok());
  ASSERT_TRUE(store.set("i\x15\x09\x15\x02", "").ok());  // no row
  auto c = scan_mapped_by_get(&store, KeyRange{"i", "j"}, ScanOptions{}, m);
  ASSERT_TRUE(c.ok()) << c.status().message();
  Cursor* cur = c->get();
  ASSERT_TRUE(cur->valid());
  EXPECT_TRUE(cur->mapped_found());
  EXPECT_EQ(cur->value(), "one");
  cur->next();
  ASSERT_TRUE(cur->valid());
  EXPECT_FALSE(cur->mapped_found());
  EXPECT_EQ(cur->value(), "");
  cur->next();
  EXPECT_FALSE(cur->valid());
  EXPECT_TRUE(cur->status().ok());
}

}  // namespace
}  // namespace tuplekv
