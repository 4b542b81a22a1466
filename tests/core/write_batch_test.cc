// WriteBatch: the four kinds of entry and how writes move between them,
// reads through find(), key order from sorted() and ordered() (checked
// against std::map on random keys with long shared prefixes, NULs and
// every byte value), and that stored bytes never move.
#include "core/write_batch.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace tuplekv {
namespace {

using Kind = WriteBatch::Kind;

std::optional<Kind> kind_of(const WriteBatch& b, BytesView key) {
  const WriteBatch::Entry* e = b.find(key);
  if (e == nullptr) return std::nullopt;
  return e->kind();
}

TEST(WriteBatchTest, EachWriteMakesItsKind) {
  WriteBatch b;
  EXPECT_TRUE(b.empty());
  b.insert("i", "1");
  b.set("s", "2");
  b.clear("c");
  EXPECT_EQ(kind_of(b, "i"), Kind::kInsert);
  EXPECT_EQ(kind_of(b, "s"), Kind::kSet);
  EXPECT_EQ(kind_of(b, "c"), Kind::kClear);
  EXPECT_EQ(kind_of(b, "absent"), std::nullopt);
  EXPECT_EQ(b.find("i")->value, "1");
  EXPECT_EQ(b.find("s")->value, "2");
  EXPECT_FALSE(b.find("c")->has_value);
  EXPECT_EQ(b.size(), 3u);
}

// A key known absent below stays so whatever is written to it later; one
// not known stays unknown.
TEST(WriteBatchTest, LaterWritesKeepWhatIsKnownBelow) {
  WriteBatch b;
  b.insert("k", "1");
  b.set("k", "2");
  EXPECT_EQ(kind_of(b, "k"), Kind::kInsert);
  EXPECT_EQ(b.find("k")->value, "2");
  b.clear("k");
  EXPECT_EQ(kind_of(b, "k"), Kind::kNone);  // inserted, then cleared: nothing to do
  b.insert("k", "3");
  EXPECT_EQ(kind_of(b, "k"), Kind::kInsert);

  b.set("u", "1");
  b.clear("u");
  EXPECT_EQ(kind_of(b, "u"), Kind::kClear);
  b.insert("u", "2");  // absent here, but perhaps not below: a set
  EXPECT_EQ(kind_of(b, "u"), Kind::kSet);
  EXPECT_EQ(b.find("u")->value, "2");
  EXPECT_EQ(b.size(), 2u);
}

TEST(WriteBatchTest, EmptyKeysAndValuesAndNuls) {
  WriteBatch b;
  b.set("", "");
  b.set(std::string("a\0b", 3), std::string("\0", 1));
  ASSERT_NE(b.find(""), nullptr);
  EXPECT_TRUE(b.find("")->has_value);
  EXPECT_EQ(b.find("")->value, "");
  EXPECT_EQ(b.find(std::string("a\0b", 3))->value, std::string("\0", 1));
  EXPECT_EQ(b.find("a"), nullptr);
}

// Bytes a view points at survive every later write, including ones that
// grow the index and add blocks.
TEST(WriteBatchTest, StoredBytesNeverMove) {
  WriteBatch b;
  b.set("first", std::string(100, 'x'));
  const BytesView key = b.find("first")->key;
  const BytesView value = b.find("first")->value;
  for (int i = 0; i < 50000; ++i) b.set("k" + std::to_string(i), std::string(i % 300, 'v'));
  b.set(std::string(3 << 20, 'b'), "big");  // bigger than any block
  EXPECT_EQ(key, "first");
  EXPECT_EQ(value, std::string(100, 'x'));
  EXPECT_EQ(b.size(), 50002u);
  EXPECT_GT(b.memory(), size_t{3} << 20);
}

// Keys as a tuple layer makes them: a few shared prefixes, then varying
// bytes, NULs and 0xff, short and long.
std::string random_key(std::mt19937_64& rng) {
  static const std::string kPrefixes[] = {"", std::string("\x02s\x00", 3),
                                          std::string("\x02s_region\x00\x02", 12),
                                          std::string(40, 'p')};
  std::string k = kPrefixes[rng() % 4];
  const size_t n = rng() % 20;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t r = rng() % 8;
    k.push_back(r == 0 ? '\0' : r == 1 ? '\xff' : static_cast<char>(rng() % 256));
  }
  return k;
}

TEST(WriteBatchTest, SortedAndOrderedAreKeyOrder) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    std::mt19937_64 rng(seed);
    WriteBatch b;
    std::map<std::string, Kind> model;  // std::string orders as unsigned bytes
    const int n = static_cast<int>(rng() % 3000);
    for (int i = 0; i < n; ++i) {
      const std::string k = random_key(rng);
      switch (rng() % 3) {
        case 0:
          b.set(k, "v");
          break;
        case 1:
          b.clear(k);
          break;
        default:
          if (const WriteBatch::Entry* e = b.find(k); e == nullptr || !e->has_value) b.insert(k, "v");
      }
      model[k] = b.find(k)->kind();
    }
    std::vector<std::string> want;
    for (const auto& [k, kind] : model) {
      if (kind != Kind::kNone) want.push_back(k);
    }
    std::vector<const WriteBatch::Entry*> got;
    b.sorted(&got);
    std::vector<std::string> got_keys;
    for (const WriteBatch::Entry* e : got) got_keys.emplace_back(e->key);
    ASSERT_EQ(got_keys, want) << "seed " << seed;

    // ordered() holds every key, kNone included, and keeps up with writes.
    const WriteBatch::Ordered& o = b.ordered();
    for (int i = 0; i < 200; ++i) {
      const std::string k = random_key(rng);
      b.set(k, "w");
      model[k] = b.find(k)->kind();
    }
    std::vector<std::string> all;
    for (const auto& [k, kind] : model) all.push_back(k);
    std::vector<std::string> ordered_keys;
    for (const auto& [k, i] : o) {
      ordered_keys.emplace_back(k);
      EXPECT_EQ(b.entry(i).key, k);
    }
    ASSERT_EQ(ordered_keys, all) << "seed " << seed;
    // With ordered() kept, sorted() reads it.
    b.sorted(&got);
    size_t live = 0;
    for (const auto& [k, kind] : model) live += kind != Kind::kNone ? 1 : 0;
    EXPECT_EQ(got.size(), live);
  }
}

TEST(WriteBatchTest, ResetForgetsEverything) {
  WriteBatch b;
  for (int i = 0; i < 1000; ++i) b.insert("k" + std::to_string(i), "v");
  (void)b.ordered();
  b.reset();
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(b.find("k1"), nullptr);
  EXPECT_TRUE(b.ordered().empty());
  b.set("k1", "again");
  EXPECT_EQ(kind_of(b, "k1"), Kind::kSet);
  EXPECT_EQ(b.ordered().size(), 1u);
  // A big batch gives its memory back.
  for (int i = 0; i < 200000; ++i) b.set("key" + std::to_string(i), std::string(40, 'v'));
  const size_t big = b.memory();
  b.reset();
  EXPECT_LT(b.memory(), big / 4);
}

// A mark undoes every kind of write after it, in any order and several
// times over one key, against a std::map model of what each key reads as;
// ordered() and find() agree with the model afterwards, and writes go on.
TEST(WriteBatchTest, UndoToMarkRestoresTheBatchAsItWas) {
  std::mt19937 rng(7);
  for (int round = 0; round < 50; ++round) {
    WriteBatch b;
    using Model = std::map<std::string, std::optional<std::string>>;  // nullopt: cleared
    Model model;
    auto write = [&](Model* m) {
      const std::string key = "k" + std::to_string(rng() % 40);
      switch (rng() % 3) {
        case 0:
          if (b.find(key) == nullptr || !b.find(key)->has_value) {
            if (b.find(key) == nullptr) {
              b.insert(key, "i" + std::to_string(round));
            } else {
              b.set(key, "s" + std::to_string(round));
            }
            (*m)[key] = b.find(key)->value;
          }
          break;
        case 1:
          b.set(key, std::string(rng() % 3, 'v'));
          (*m)[key] = b.find(key)->value;
          break;
        default:
          b.clear(key);
          (*m)[key] = std::nullopt;
      }
    };
    for (int i = 0; i < 30; ++i) write(&model);
    if (round % 2 == 0) (void)b.ordered();  // kept up to date from here on
    b.mark();
    Model after = model;
    for (int i = 0; i < 60; ++i) write(&after);
    b.undo_to_mark();
    EXPECT_FALSE(b.marked());
    ASSERT_EQ(b.size(), model.size());
    for (const auto& [key, value] : model) {
      const WriteBatch::Entry* e = b.find(key);
      ASSERT_NE(e, nullptr) << key;
      EXPECT_EQ(e->has_value, value.has_value()) << key;
      if (value) {
        EXPECT_EQ(e->value, *value) << key;
      }
    }
    std::vector<std::string> keys;
    for (const auto& [key, i] : b.ordered()) keys.emplace_back(key);
    std::vector<std::string> want;
    for (const auto& [key, value] : model) want.push_back(key);
    EXPECT_EQ(keys, want);
    for (int i = 0; i < 20; ++i) write(&model);
    for (const auto& [key, value] : model) EXPECT_EQ(b.find(key)->has_value, value.has_value()) << key;
  }
}

// find() answers an empty batch before hashing (every point read outside
// a writing transaction asks one): also when it is empty again after an
// undo to a mark set before its first write, with its slots in use before.
TEST(WriteBatchTest, AnEmptyBatchFindsNothing) {
  WriteBatch b;
  EXPECT_EQ(b.find("k"), nullptr);
  b.mark();
  for (int i = 0; i < 100; ++i) b.set("k" + std::to_string(i), "v");
  ASSERT_NE(b.find("k7"), nullptr);
  b.undo_to_mark();
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(b.find("k7"), nullptr);
  b.insert("k7", "again");
  ASSERT_NE(b.find("k7"), nullptr);
  EXPECT_EQ(b.find("k7")->value, "again");
  EXPECT_EQ(b.find("k8"), nullptr);
}

TEST(WriteBatchTest, ForgetMarkKeepsTheWrites) {
  WriteBatch b;
  b.set("a", "1");
  b.mark();
  b.set("a", "2");
  b.insert("b", "3");
  b.forget_mark();
  EXPECT_FALSE(b.marked());
  b.undo_to_mark();  // no mark: nothing to undo
  EXPECT_EQ(b.find("a")->value, "2");
  EXPECT_EQ(b.find("b")->value, "3");
  b.mark();
  b.reset();
  EXPECT_FALSE(b.marked());
}

}  // namespace
}  // namespace tuplekv
