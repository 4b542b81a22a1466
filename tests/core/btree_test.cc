// BTree, below MemoryStore: positions and bounds, the change sink that feeds
// the undo log, node search on keys whose hints tie, and random operations
// against a std::map with the structural check after every batch.
#include "core/btree.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace tuplekv {
namespace {

using Model = std::map<Bytes, Bytes>;  // std::string orders bytes as unsigned char

// Every pair, walking first()..next().
std::vector<std::pair<Bytes, Bytes>> forward(const BTree& t) {
  std::vector<std::pair<Bytes, Bytes>> out;
  for (BTree::Pos p = t.first(); p.leaf != nullptr; p = BTree::next(p)) {
    out.emplace_back(p.leaf->key(p.index), p.leaf->value(p.index));
  }
  return out;
}

std::vector<std::pair<Bytes, Bytes>> backward(const BTree& t) {
  std::vector<std::pair<Bytes, Bytes>> out;
  for (BTree::Pos p = t.last(); p.leaf != nullptr; p = BTree::prev(p)) {
    out.emplace_back(p.leaf->key(p.index), p.leaf->value(p.index));
  }
  return out;
}

std::optional<Bytes> key_at(BTree::Pos p) {
  if (p.leaf == nullptr) return std::nullopt;
  return Bytes(p.leaf->key(p.index));
}

std::optional<Bytes> model_key(Model::const_iterator it, const Model& m) {
  if (it == m.end()) return std::nullopt;
  return it->first;
}

::testing::AssertionResult same(const BTree& t, const Model& m) {
  const Status s = t.check();
  if (!s.ok()) return ::testing::AssertionFailure() << s.message();
  if (t.size() != m.size()) {
    return ::testing::AssertionFailure() << "size " << t.size() << ", want " << m.size();
  }
  const std::vector<std::pair<Bytes, Bytes>> want(m.begin(), m.end());
  if (forward(t) != want) return ::testing::AssertionFailure() << "forward walk differs";
  std::vector<std::pair<Bytes, Bytes>> back = backward(t);
  std::reverse(back.begin(), back.end());
  if (back != want) return ::testing::AssertionFailure() << "backward walk differs";
  return ::testing::AssertionSuccess();
}

// Records what the tree reports before each change.
class RecordingSink final : public btree::ChangeSink {
 public:
  struct Change {
    Bytes key;
    std::optional<Bytes> old_value;
    bool operator==(const Change&) const = default;
  };
  void before_change(BytesView key, const BytesView* old_value) override {
    changes.push_back(Change{Bytes(key), old_value != nullptr ? std::optional<Bytes>(Bytes(*old_value))
                                                              : std::nullopt});
  }
  std::vector<Change> changes;
};

Bytes numbered(int i) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "k%07d", i);
  return buf;
}

TEST(BTreeTest, EmptyTree) {
  BTree t;
  EXPECT_EQ(t.size(), 0u);
  EXPECT_EQ(t.first().leaf, nullptr);
  EXPECT_EQ(t.last().leaf, nullptr);
  EXPECT_EQ(t.lower_bound("").leaf, nullptr);
  EXPECT_EQ(t.upper_bound("a").leaf, nullptr);
  Bytes v = "untouched";
  EXPECT_FALSE(t.get("a", &v));
  EXPECT_EQ(v, "untouched");
  EXPECT_FALSE(t.erase("a", nullptr));
  EXPECT_EQ(t.erase_range("", "", nullptr), 0u);
  EXPECT_TRUE(t.check().ok());
  const btree::TreeStats st = t.stats();
  EXPECT_EQ(st.height, 1u);
  EXPECT_EQ(st.leaves, 1u);
}

TEST(BTreeTest, PutGetEraseAndOverwrite) {
  BTree t;
  t.put("b", "2", nullptr);
  t.put("a", "1", nullptr);
  t.put("c", "3", nullptr);
  t.put("b", "22", nullptr);
  Bytes v;
  EXPECT_TRUE(t.get("b", &v));
  EXPECT_EQ(v, "22");
  EXPECT_TRUE(t.get("a", nullptr));  // presence only
  EXPECT_FALSE(t.get("bb", &v));
  EXPECT_TRUE(t.erase("b", nullptr));
  EXPECT_FALSE(t.erase("b", nullptr));
  EXPECT_TRUE(same(t, Model{{"a", "1"}, {"c", "3"}}));
}

TEST(BTreeTest, BoundsAndPositionsAcrossLeaves) {
  BTree t;
  Model m;
  for (int i = 0; i < 2000; i += 2) {
    t.put(numbered(i), "v", nullptr);
    m.emplace(numbered(i), "v");
  }
  ASSERT_GT(t.stats().leaves, 10u);
  for (int i = -1; i <= 2001; ++i) {
    const Bytes k = i < 0 ? Bytes() : numbered(i);
    EXPECT_EQ(key_at(t.lower_bound(k)), model_key(m.lower_bound(k), m)) << k;
    EXPECT_EQ(key_at(t.upper_bound(k)), model_key(m.upper_bound(k), m)) << k;
  }
  EXPECT_EQ(key_at(t.lower_bound("\xff")), std::nullopt);
  EXPECT_EQ(key_at(t.first()), numbered(0));
  EXPECT_EQ(key_at(t.last()), numbered(1998));
  EXPECT_EQ(BTree::prev(t.first()).leaf, nullptr);
  EXPECT_EQ(BTree::next(t.last()).leaf, nullptr);
}

TEST(BTreeTest, SinkSeesEveryChangeBeforeItHappens) {
  BTree t;
  RecordingSink sink;
  using C = RecordingSink::Change;
  t.put("a", "1", &sink);
  t.put("a", "2", &sink);
  t.put("b", Bytes(1000, 'b'), &sink);
  t.put("b", "", &sink);
  EXPECT_TRUE(t.erase("a", &sink));
  EXPECT_FALSE(t.erase("a", &sink));  // no change, no record
  EXPECT_EQ(sink.changes, (std::vector<C>{{"a", std::nullopt},
                                          {"a", "1"},
                                          {"b", std::nullopt},
                                          {"b", Bytes(1000, 'b')},
                                          {"a", "2"}}));
  sink.changes.clear();
  for (int i = 0; i < 500; ++i) t.put(numbered(i), std::to_string(i), nullptr);
  EXPECT_EQ(t.erase_range(numbered(10), numbered(400), &sink), 390u);
  ASSERT_EQ(sink.changes.size(), 390u);
  for (int i = 0; i < 390; ++i) {
    EXPECT_EQ(sink.changes[i], (C{numbered(10 + i), std::to_string(10 + i)}));
  }
  EXPECT_EQ(t.erase_range("z", "a", &sink), 0u);  // inverted
  EXPECT_EQ(t.erase_range(numbered(10), numbered(400), &sink), 0u);  // already empty
  EXPECT_EQ(sink.changes.size(), 390u);
  EXPECT_TRUE(t.check().ok());
}

TEST(BTreeTest, EraseRangeEdges) {
  for (int begin : {-1, 0, 1, 63, 64, 65, 500, 998, 999, 1000}) {
    for (int end : {-1, 0, 1, 64, 127, 128, 500, 999, 1000}) {
      BTree t;
      Model m;
      for (int i = 0; i < 1000; ++i) {
        t.put(numbered(i), "", nullptr);
        m[numbered(i)] = "";
      }
      const Bytes b = begin < 0 ? Bytes() : numbered(begin);
      const Bytes e = end < 0 ? Bytes() : numbered(end);  // empty: unbounded
      uint64_t want = 0;
      if (e.empty() || b < e) {
        auto hi = e.empty() ? m.end() : m.lower_bound(e);
        for (auto it = m.lower_bound(b); it != hi;) {
          it = m.erase(it);
          ++want;
        }
      }
      ASSERT_EQ(t.erase_range(b, e, nullptr), want) << begin << ".." << end;
      ASSERT_TRUE(same(t, m)) << begin << ".." << end;
    }
  }
}

// Keys whose four hint bytes after the shared prefix are equal, or which
// end inside the hint window, so the search has to break ties on bytes.
TEST(BTreeTest, SearchBreaksHintTies) {
  BTree t;
  Model m;
  const Bytes stems[] = {"", "p", "pppp", Bytes("pp\0\0", 4), Bytes("pppp\0", 5)};
  const Bytes tails[] = {"", Bytes("\0", 1), Bytes("\0\0\0\0", 4), Bytes("\0\0\0\0\0", 5),
                         "a", "aaaa", "aaaab", "aaaa\x01", "\xff\xff\xff\xff", "\xff\xff\xff\xff\xff"};
  for (const Bytes& s : stems) {
    for (const Bytes& x : tails) {
      for (const Bytes& y : tails) {
        t.put(s + x + y, s + "|" + x, nullptr);
        m[s + x + y] = s + "|" + x;
      }
    }
  }
  ASSERT_TRUE(same(t, m));
  for (const auto& [k, v] : m) {
    Bytes got;
    ASSERT_TRUE(t.get(k, &got)) << to_hex(k);
    EXPECT_EQ(got, v);
    for (const Bytes& probe : {k, k + Bytes("\0", 1), k.substr(0, k.size() / 2)}) {
      EXPECT_EQ(key_at(t.lower_bound(probe)), model_key(m.lower_bound(probe), m)) << to_hex(probe);
      EXPECT_EQ(key_at(t.upper_bound(probe)), model_key(m.upper_bound(probe), m)) << to_hex(probe);
    }
  }
}

TEST(BTreeTest, SortedLoadsFillLeavesAndGrowLevels) {
  for (bool descending : {false, true}) {
    BTree t;
    const int n = 100000;
    for (int i = 0; i < n; ++i) t.put(numbered(descending ? n - 1 - i : i), "", nullptr);
    ASSERT_TRUE(t.check().ok());
    const btree::TreeStats st = t.stats();
    EXPECT_EQ(st.keys, static_cast<uint64_t>(n));
    EXPECT_LE(st.leaves, static_cast<uint64_t>(n / btree::kFanout + 8)) << descending;
    EXPECT_GE(st.height, 3u);
  }
}

// Pairs inserted in random order still lie in key order in each leaf's
// arena (what makes a scan read memory front to back), out-of-line ones
// included.
TEST(BTreeTest, LeavesKeepTheirPairsInKeyOrder) {
  BTree t;
  std::vector<int> order(20000);
  for (int i = 0; i < static_cast<int>(order.size()); ++i) order[static_cast<size_t>(i)] = i;
  std::shuffle(order.begin(), order.end(), std::mt19937(3));
  for (int i : order) {
    const size_t value_size = i % 97 == 0 ? btree::kInlineMax + 1 : static_cast<size_t>(i % 40);
    t.put(numbered(i), Bytes(value_size, 'v'), nullptr);
  }
  ASSERT_TRUE(t.check().ok());
  uint64_t leaves = 0;
  for (const btree::Node* leaf = t.first().leaf; leaf != nullptr; leaf = leaf->next, ++leaves) {
    for (int i = 0; i + 1 < leaf->count; ++i) {
      // Key, value, next key: each starts where the one before ends.
      const btree::Slot& a = leaf->slot[i];
      const btree::Slot& b = leaf->slot[i + 1];
      const uint32_t key_size = a.key_len <= btree::kInlineMax ? a.key_len : sizeof(char*);
      const uint32_t val_size = a.val_len <= btree::kInlineMax ? a.val_len : sizeof(char*);
      ASSERT_EQ(a.key_off + key_size, a.val_off) << i;
      ASSERT_EQ(a.val_off + val_size, b.key_off) << i;
    }
  }
  EXPECT_GT(leaves, 100u);
}

TEST(BTreeTest, OutOfLineKeysAndValues) {
  BTree t;
  Model m;
  const uint32_t limit = btree::kInlineMax;
  for (int i = 0; i < 3000; ++i) {
    // Long shared prefixes make long separators too.
    const Bytes k = Bytes(limit + static_cast<size_t>(i % 3), 'K') + numbered(i * 7919 % 3000);
    const Bytes v(static_cast<size_t>(limit - 1 + i % 3), static_cast<char>(i));
    t.put(k, v, nullptr);
    m[k] = v;
  }
  ASSERT_TRUE(same(t, m));
  const btree::TreeStats st = t.stats();
  EXPECT_GT(st.blob_bytes, 3000u * limit);
  // Overwrite across the inline limit both ways, then remove in halves.
  int i = 0;
  for (auto& [k, v] : m) {
    v = Bytes(static_cast<size_t>(i++ % 2 == 0 ? limit + 1 : 2), 'w');
    t.put(k, v, nullptr);
  }
  ASSERT_TRUE(same(t, m));
  std::vector<Bytes> keys;
  for (const auto& [k, v] : m) keys.push_back(k);
  for (size_t j = 0; j < keys.size(); j += 2) {
    ASSERT_TRUE(t.erase(keys[j], nullptr));
    m.erase(keys[j]);
  }
  ASSERT_TRUE(same(t, m));
  EXPECT_EQ(t.erase_range("", "", nullptr), m.size());
  m.clear();
  ASSERT_TRUE(same(t, m));
  EXPECT_EQ(t.stats().blob_bytes, 0u);
}

TEST(BTreeTest, RandomOperationsMatchAMap) {
  for (uint64_t seed : {1, 2, 3, 4}) {
    SCOPED_TRACE(std::string("seed ").append(std::to_string(seed)));
    std::mt19937_64 rng(seed);
    BTree t;
    Model m;
    // Seeds 3 and 4 use a tiny key space, so nodes empty and refill.
    const int space = seed <= 2 ? 20000 : 300;
    auto key = [&] {
      Bytes k = numbered(static_cast<int>(rng() % space));
      if (rng() % 8 == 0) k += Bytes(rng() % 300, static_cast<char>(rng() % 3));
      return k;
    };
    auto value = [&] {
      const uint64_t r = rng() % 20;
      return Bytes(r == 0 ? 300 + rng() % 3000 : r < 4 ? 200 + rng() % 60 : rng() % 20, 'v');
    };
    for (int step = 0; step < 60000; ++step) {
      const uint64_t op = rng() % 16;
      if (op < 8) {
        const Bytes k = key(), v = value();
        t.put(k, v, nullptr);
        m[k] = v;
      } else if (op < 14) {
        const Bytes k = key();
        ASSERT_EQ(t.erase(k, nullptr), m.erase(k) == 1);
      } else if (op < 15) {
        Bytes b = key(), e = key();
        if (e < b) std::swap(b, e);
        if (rng() % 4 == 0) b.resize(rng() % 3);  // widen
        uint64_t want = 0;
        for (auto it = m.lower_bound(b); it != m.end() && it->first < e;) {
          it = m.erase(it);
          ++want;
        }
        ASSERT_EQ(t.erase_range(b, e, nullptr), want);
      } else {
        const Bytes k = key();
        Bytes got;
        const auto it = m.find(k);
        ASSERT_EQ(t.get(k, &got), it != m.end());
        if (it != m.end()) {
          ASSERT_EQ(got, it->second);
        }
        ASSERT_EQ(key_at(t.lower_bound(k)), model_key(m.lower_bound(k), m));
        ASSERT_EQ(key_at(t.upper_bound(k)), model_key(m.upper_bound(k), m));
      }
      if (step % 5000 == 4999) {
        ASSERT_TRUE(same(t, m)) << "step " << step;
      }
    }
    ASSERT_TRUE(same(t, m));
  }
}

}  // namespace
}  // namespace tuplekv
