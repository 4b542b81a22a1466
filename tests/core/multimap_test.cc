// Multimap over the memory store: key bytes with and without reverse
// entries, values/count/keys_of, removal, and the key named 'reverse'.
#include "core/model/multimap.h"

#include <gtest/gtest.h>

#include "core/memory_store.h"

namespace tuplekv::model {
namespace {

const Bytes kS("\x02m\x00", 3);

TEST(MultimapTest, KeyBytesAndReverseEntries) {
  MemoryStore store;
  Multimap map(&store, *MultimapKeys::make(kS, true));
  bool added = false;
  ASSERT_TRUE(map.add(TupleValue::string("al"), TupleValue::int64(7), &added).ok());
  EXPECT_TRUE(added);
  ASSERT_TRUE(map.add(TupleValue::string("al"), TupleValue::int64(7), &added).ok());
  EXPECT_FALSE(added);
  std::string keys;
  auto c = store.scan(KeyRange{"", ""}, ScanOptions());
  for (; (*c)->valid(); (*c)->next()) keys += to_hex((*c)->key()) + "=" + to_hex((*c)->value()) + " ";
  EXPECT_EQ(keys, "026d0002616c001507= 026d000272657665727365001507" "02616c00= ");
}

// Damaged keys: each message names the key, and a decoding error's offset
// counts from its first byte.
TEST(MultimapTest, SplitNamesDamagedKeys) {
  const MultimapKeys keys = *MultimapKeys::make(kS, true);
  BytesView k, v;
  bool entry = false;
  const auto pair_message = [&](const Bytes& key) { return keys.split_pair(key, &k, &v, &entry).message(); };
  EXPECT_EQ(pair_message(kS + "\x15\x01"), "multimap: key x'026d001501' is not a (key, value) pair");
  EXPECT_EQ(pair_message(kS + "\x15\x01\x02" "ab"),
            "multimap: key x'026d001501026162': tuple: unterminated string at byte 5 (type code 0x02)");
  EXPECT_EQ(pair_message(Bytes("\x02n\x00\x15\x01\x15\x02", 7)),
            "multimap: key x'026e0015011502' is outside its subspace");
  const Bytes reverse = keys.reverse_prefix();
  EXPECT_EQ(keys.split_reverse(reverse + "\x15\x07\x16\x01", &k, &v, &entry).message(),
            "multimap: key x'" + to_hex(reverse) + "15071601': tuple: truncated integer at byte " +
                std::to_string(reverse.size() + 2) + " (type code 0x16)");
  const Bytes good = kS + Bytes("\x02" "ab\x00\x15\x07", 6);  // k and v point into it
  EXPECT_TRUE(keys.split_pair(good, &k, &v, &entry).ok());
  EXPECT_TRUE(entry);
  EXPECT_EQ(v, "\x15\x07");
}

TEST(MultimapTest, ValuesCountKeysOfAndRemove) {
  for (bool reverse : {false, true}) {
    MemoryStore store;
    Multimap map(&store, *MultimapKeys::make(kS, reverse));
    bool added = false;
    for (const char* k : {"reverse", "a", "b"}) {
      for (int v = 0; v < 3; ++v) {
        ASSERT_TRUE(map.add(TupleValue::string(k), TupleValue::int64(v), &added).ok());
      }
    }
    std::vector<TupleValue> values;
    ASSERT_TRUE(map.values(TupleValue::string("reverse"), &values).ok());
    EXPECT_EQ(values.size(), 3u);
    uint64_t n = 0;
    ASSERT_TRUE(map.count(TupleValue::string("a"), &n).ok());
    EXPECT_EQ(n, 3u);
    ASSERT_TRUE(map.keys_of(TupleValue::int64(1), &values).ok());
    EXPECT_EQ(values, (std::vector<TupleValue>{TupleValue::string("a"), TupleValue::string("b"),
                                               TupleValue::string("reverse")}));
    ASSERT_TRUE(map.remove_key(TupleValue::string("reverse")).ok());
    ASSERT_TRUE(map.remove(TupleValue::string("a"), TupleValue::int64(1)).ok());
    ASSERT_TRUE(map.keys_of(TupleValue::int64(1), &values).ok());
    EXPECT_EQ(values, (std::vector<TupleValue>{TupleValue::string("b")}));
    bool found = true;
    ASSERT_TRUE(map.contains(TupleValue::string("a"), TupleValue::int64(1), &found).ok());
    EXPECT_FALSE(found);
  }
}

}  // namespace
}  // namespace tuplekv::model
