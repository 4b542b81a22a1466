// MemoryStore: the store conformance suites (with the tree's own invariant
// check after every random batch), then what only this store promises:
// stats, the lenient transaction calls of its header, keys and values past
// the inline limit, loads large enough to split and merge at every level,
// cursors that survive that churn, and writes that can fail on any
// allocation and still be rolled back exactly.
#include "core/memory_store.h"

// The operator new and delete below pair malloc with free on purpose;
// GCC, seeing both inlined into containers, would warn of a mismatch.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <random>
#include <string>
#include <vector>

#include "tests/store_conformance.h"

// Allocation failure on demand: while g_fail_countdown is >= 0, the
// allocation that brings it below 0 throws. Replaces the global operator
// new of this test program only.
namespace {
long g_fail_countdown = -1;
}  // namespace

void* operator new(std::size_t n) {
  if (g_fail_countdown >= 0 && g_fail_countdown-- == 0) throw std::bad_alloc();
  void* p = std::malloc(n != 0 ? n : 1);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace tuplekv::testing {

struct MemoryStoreFactory {
  std::unique_ptr<OrderedStore> make() { return std::make_unique<MemoryStore>(); }
  Status check(OrderedStore* store) {
    return static_cast<MemoryStore*>(store)->check_invariants();
  }
};

INSTANTIATE_TYPED_TEST_SUITE_P(Memory, StoreConformanceTest, ::testing::Types<MemoryStoreFactory>);
INSTANTIATE_TYPED_TEST_SUITE_P(Memory, StoreTransactionTest, ::testing::Types<MemoryStoreFactory>);

namespace {

Bytes numbered(const char* prefix, int i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%s%08d", prefix, i);
  return buf;
}

std::unique_ptr<Cursor> must_scan(MemoryStore* s, const KeyRange& r, const ScanOptions& o = {}) {
  auto c = s->scan(r, o);
  EXPECT_TRUE(c.ok()) << c.status().message();
  return c.ok() ? std::move(c).value() : nullptr;
}

// The store against a model: full scan and the tree's invariants.
::testing::AssertionResult same(MemoryStore* s, const StoreModel& m) {
  const Status inv = s->check_invariants();
  if (!inv.ok()) return ::testing::AssertionFailure() << inv.message();
  if (s->size() != m.size()) {
    return ::testing::AssertionFailure() << "size " << s->size() << ", want " << m.size();
  }
  auto c = must_scan(s, KeyRange{});
  return same_pairs(drain(c.get()), model_scan(m, KeyRange{}, {}));
}

TEST(MemoryStoreTest, StatsOfAnEmptyStore) {
  MemoryStore s;
  const MemoryStoreStats st = s.stats();
  EXPECT_EQ(st.keys, 0u);
  EXPECT_EQ(st.leaves, 1u);
  EXPECT_EQ(st.inner_nodes, 0u);
  EXPECT_EQ(st.height, 1u);
  EXPECT_EQ(st.blob_bytes, 0u);
  EXPECT_EQ(st.key_value_bytes, 0u);
  EXPECT_EQ(st.undo_records, 0u);
  EXPECT_EQ(s.size(), 0u);
  EXPECT_FALSE(s.in_transaction());
  TUPLEKV_EXPECT_OK(s.check_invariants());
}

TEST(MemoryStoreTest, StatsCountKeysBytesAndLevels) {
  MemoryStore s;
  uint64_t bytes = 0;
  for (int i = 0; i < 20000; ++i) {
    const Bytes k = numbered("k", i);
    const Bytes v(static_cast<size_t>(i % 20), 'v');
    bytes += k.size() + v.size();
    TUPLEKV_ASSERT_OK(s.set(k, v));
  }
  MemoryStoreStats st = s.stats();
  EXPECT_EQ(st.keys, 20000u);
  EXPECT_EQ(s.size(), 20000u);
  EXPECT_EQ(st.key_value_bytes, bytes);
  EXPECT_GE(st.height, 3u);
  EXPECT_GT(st.leaves, 20000u / 64);
  EXPECT_GT(st.inner_nodes, 0u);
  EXPECT_GT(st.node_bytes, bytes);
  EXPECT_EQ(st.blob_bytes, 0u);
  // Nothing is logged outside a transaction.
  EXPECT_EQ(st.undo_records, 0u);
  EXPECT_EQ(st.undo_bytes, 0u);
}

TEST(MemoryStoreTest, UndoLogCountsChangesAndEmptiesAtTheEnd) {
  MemoryStore s;
  for (int i = 0; i < 10; ++i) TUPLEKV_ASSERT_OK(s.set(numbered("k", i), "v"));
  TUPLEKV_ASSERT_OK(s.begin());
  EXPECT_TRUE(s.in_transaction());
  TUPLEKV_ASSERT_OK(s.set("a-new", "1"));          // 1 record
  TUPLEKV_ASSERT_OK(s.set("a-new", "2"));          // 1 more: every change is logged
  TUPLEKV_ASSERT_OK(s.clear("absent"));            // nothing changed, nothing logged
  TUPLEKV_ASSERT_OK(s.clear(numbered("k", 0)));    // 1
  TUPLEKV_ASSERT_OK(s.clear_range(numbered("k", 5), ""));  // 5
  TUPLEKV_ASSERT_OK(s.clear_range("x", "a"));      // inverted: nothing
  MemoryStoreStats st = s.stats();
  EXPECT_EQ(st.undo_records, 8u);
  EXPECT_GT(st.undo_bytes, 0u);
  TUPLEKV_ASSERT_OK(s.commit());
  st = s.stats();
  EXPECT_EQ(st.undo_records, 0u);
  EXPECT_EQ(st.undo_bytes, 0u);
  EXPECT_FALSE(s.in_transaction());
  EXPECT_EQ(s.size(), 5u);
}

TEST(MemoryStoreTest, LenientTransactionCalls) {
  MemoryStore s;
  // Outside a transaction: commit, rollback and the savepoint calls do
  // nothing, and writes cannot be undone.
  TUPLEKV_ASSERT_OK(s.commit());
  TUPLEKV_ASSERT_OK(s.rollback());
  TUPLEKV_ASSERT_OK(s.savepoint(0));
  TUPLEKV_ASSERT_OK(s.set("a", "1"));
  TUPLEKV_ASSERT_OK(s.rollback_to(0));
  TUPLEKV_ASSERT_OK(s.release(0));
  TUPLEKV_ASSERT_OK(s.rollback());
  EXPECT_EQ(s.size(), 1u);
  EXPECT_EQ(s.stats().undo_records, 0u);

  // begin() inside a transaction keeps it going: rollback() still undoes
  // from the first begin().
  TUPLEKV_ASSERT_OK(s.begin());
  TUPLEKV_ASSERT_OK(s.set("b", "2"));
  TUPLEKV_ASSERT_OK(s.begin());
  TUPLEKV_ASSERT_OK(s.set("c", "3"));
  TUPLEKV_ASSERT_OK(s.rollback());
  EXPECT_TRUE(same(&s, StoreModel{{"a", "1"}}));

  // Outside a transaction the negative levels are no-ops too.
  TUPLEKV_ASSERT_OK(s.savepoint(-1));
  TUPLEKV_ASSERT_OK(s.release(-1));
  TUPLEKV_ASSERT_OK(s.rollback_to(-1));
  EXPECT_TRUE(same(&s, StoreModel{{"a", "1"}}));
}

// SQLite calls xRollbackTo(-1) for ROLLBACK TO the savepoint that opened the
// transaction (SAVEPOINT outside BEGIN), after marks 0, 1, ... were made
// for later savepoints and statements; xSavepoint and xRelease get 0 and up.
// core/store.h makes every n < 0 mean that outermost level.
TEST(MemoryStoreTest, SavepointLevelMinusOneIsTheTransaction) {
  MemoryStore s;
  TUPLEKV_ASSERT_OK(s.set("base", "0"));
  TUPLEKV_ASSERT_OK(s.begin());
  TUPLEKV_ASSERT_OK(s.savepoint(-1));  // marks nothing: begin() is level -1
  TUPLEKV_ASSERT_OK(s.set("a", "1"));
  TUPLEKV_ASSERT_OK(s.savepoint(0));
  TUPLEKV_ASSERT_OK(s.set("b", "2"));
  TUPLEKV_ASSERT_OK(s.savepoint(1));
  TUPLEKV_ASSERT_OK(s.set("base", "changed"));
  // -1 undoes everything since begin(), past marks 0 and 1...
  TUPLEKV_ASSERT_OK(s.rollback_to(-1));
  EXPECT_TRUE(same(&s, StoreModel{{"base", "0"}}));
  EXPECT_TRUE(s.in_transaction());
  EXPECT_EQ(s.stats().undo_records, 0u);
  // ...and stays in the transaction, with no marks left: a later
  // rollback_to(0) also goes back to begin().
  TUPLEKV_ASSERT_OK(s.set("c", "3"));
  TUPLEKV_ASSERT_OK(s.rollback_to(0));
  EXPECT_TRUE(same(&s, StoreModel{{"base", "0"}}));
  TUPLEKV_ASSERT_OK(s.set("d", "4"));
  TUPLEKV_ASSERT_OK(s.rollback_to(-7));  // any n < 0 is -1
  EXPECT_TRUE(same(&s, StoreModel{{"base", "0"}}));

  // release(-1) and release(0) forget every mark and keep the writes.
  TUPLEKV_ASSERT_OK(s.set("e", "5"));
  TUPLEKV_ASSERT_OK(s.savepoint(0));
  TUPLEKV_ASSERT_OK(s.set("f", "6"));
  TUPLEKV_ASSERT_OK(s.release(-1));
  EXPECT_TRUE(same(&s, StoreModel{{"base", "0"}, {"e", "5"}, {"f", "6"}}));
  TUPLEKV_ASSERT_OK(s.savepoint(0));
  TUPLEKV_ASSERT_OK(s.set("g", "7"));
  TUPLEKV_ASSERT_OK(s.release(0));
  TUPLEKV_ASSERT_OK(s.rollback_to(0));  // no mark 0 any more: since begin()
  EXPECT_TRUE(same(&s, StoreModel{{"base", "0"}}));

  // Level 0 is an ordinary mark.
  TUPLEKV_ASSERT_OK(s.set("h", "8"));
  TUPLEKV_ASSERT_OK(s.savepoint(0));
  TUPLEKV_ASSERT_OK(s.set("i", "9"));
  TUPLEKV_ASSERT_OK(s.rollback_to(0));
  EXPECT_TRUE(same(&s, StoreModel{{"base", "0"}, {"h", "8"}}));
  TUPLEKV_ASSERT_OK(s.commit());
  EXPECT_TRUE(same(&s, StoreModel{{"base", "0"}, {"h", "8"}}));
}

TEST(MemoryStoreTest, InsertStoresOnlyAbsentKeys) {
  MemoryStore s;
  bool inserted = false;
  TUPLEKV_ASSERT_OK(s.insert("a", "1", &inserted));
  EXPECT_TRUE(inserted);
  TUPLEKV_ASSERT_OK(s.insert("a", "2", &inserted));
  EXPECT_FALSE(inserted);
  TUPLEKV_ASSERT_OK(s.insert("", "", &inserted));
  EXPECT_TRUE(inserted);
  EXPECT_TRUE(same(&s, StoreModel{{"", ""}, {"a", "1"}}));
  // Logged like set(), so a rollback undoes it.
  TUPLEKV_ASSERT_OK(s.begin());
  TUPLEKV_ASSERT_OK(s.insert("b", "3", &inserted));
  EXPECT_TRUE(inserted);
  TUPLEKV_ASSERT_OK(s.rollback());
  EXPECT_TRUE(same(&s, StoreModel{{"", ""}, {"a", "1"}}));
}

TEST(MemoryStoreTest, RollbackToWithNoMarkAtOrAboveUsesTheNewestBelow) {
  // Left open by core/store.h; this store's header chooses the newest mark
  // below n, else begin(), so it never keeps a write it might have to undo.
  MemoryStore s;
  TUPLEKV_ASSERT_OK(s.set("base", ""));
  TUPLEKV_ASSERT_OK(s.begin());
  TUPLEKV_ASSERT_OK(s.set("a", ""));
  TUPLEKV_ASSERT_OK(s.rollback_to(3));  // no marks at all: since begin()
  EXPECT_TRUE(same(&s, StoreModel{{"base", ""}}));
  TUPLEKV_ASSERT_OK(s.set("b", ""));
  TUPLEKV_ASSERT_OK(s.savepoint(1));
  TUPLEKV_ASSERT_OK(s.set("c", ""));
  // rollback_to(3) left mark 3; savepoint(1) discarded it. So the marks
  // are {1}, and rollback_to(4) goes back to 1.
  TUPLEKV_ASSERT_OK(s.rollback_to(4));
  EXPECT_TRUE(same(&s, StoreModel{{"b", ""}, {"base", ""}}));
  TUPLEKV_ASSERT_OK(s.rollback());
  EXPECT_TRUE(same(&s, StoreModel{{"base", ""}}));
}

TEST(MemoryStoreTest, KeysOnlyScansLeaveValuesEmpty) {
  MemoryStore s;
  TUPLEKV_ASSERT_OK(s.set("a", "value"));
  TUPLEKV_ASSERT_OK(s.set("b", Bytes(1000, 'v')));
  for (bool reverse : {false, true}) {
    auto c = must_scan(&s, KeyRange{}, ScanOptions{reverse, 0, true});
    int rows = 0;
    for (; c->valid(); c->next(), ++rows) EXPECT_TRUE(c->value().empty());
    EXPECT_EQ(rows, 2);
  }
}

TEST(MemoryStoreTest, CursorOutlivingTheStoreEndsInsteadOfDangling) {
  auto s = std::make_unique<MemoryStore>();
  TUPLEKV_ASSERT_OK(s->set("a", "1"));
  TUPLEKV_ASSERT_OK(s->set("b", "2"));
  auto c = must_scan(s.get(), KeyRange{});
  auto finished = must_scan(s.get(), KeyRange{"x", ""});
  ASSERT_TRUE(c->valid());
  s.reset();
  EXPECT_EQ(c->key(), "a");  // detached, so the view is still readable
  c->next();
  EXPECT_FALSE(c->valid());
  EXPECT_FALSE(finished->valid());
  TUPLEKV_EXPECT_OK(c->rescan(KeyRange{}));
  EXPECT_FALSE(c->valid());
}

// ---------------------------------------------------------------------------
// Keys and values past the inline limit live in their own allocations; the
// sanitizer build checks that every one is freed exactly once.

TEST(MemoryStoreTest, ValuesAroundTheInlineLimit) {
  MemoryStore s;
  StoreModel m;
  const size_t limit = btree::kInlineMax;
  for (size_t n : {size_t{0}, limit - 1, limit, limit + 1, size_t{5000}, size_t{1} << 20}) {
    const Bytes k = cat("v", std::to_string(n));
    m[k] = Bytes(n, static_cast<char>('a' + n % 26));
    TUPLEKV_ASSERT_OK(s.set(k, m[k]));
  }
  EXPECT_EQ(s.stats().blob_bytes, (limit + 1) + 5000 + (size_t{1} << 20));
  EXPECT_TRUE(same(&s, m));
  // Every change of size class for one key, in and out of a transaction.
  const size_t cycle[] = {limit + 1, 0, limit, 1 << 16, 1 << 17, 3, limit + 1, limit};
  TUPLEKV_ASSERT_OK(s.begin());
  for (size_t n : cycle) {
    m["v0"] = Bytes(n, 'x');
    TUPLEKV_ASSERT_OK(s.set("v0", m["v0"]));
    ASSERT_TRUE(same(&s, m));
  }
  TUPLEKV_ASSERT_OK(s.rollback());
  m["v0"] = "";
  EXPECT_TRUE(same(&s, m));
  TUPLEKV_ASSERT_OK(s.clear_range("", ""));
  EXPECT_EQ(s.stats().blob_bytes, 0u);
}

TEST(MemoryStoreTest, LongKeysWithLongSharedPrefixes) {
  // Separators between such keys are longer than the inline limit too, so
  // inner nodes hold out-of-line keys through splits and merges.
  MemoryStore s;
  StoreModel m;
  std::mt19937_64 rng(3);
  const Bytes prefix(600, 'p');
  std::vector<Bytes> keys;
  for (int i = 0; i < 6000; ++i) {
    Bytes k = prefix + numbered("", static_cast<int>(rng() % 1000000));
    if (i % 3 == 0) k += Bytes(rng() % 300, 'q');
    keys.push_back(k);
    m[k] = Bytes(rng() % 400, 'v');
    TUPLEKV_ASSERT_OK(s.set(k, m[k]));
  }
  EXPECT_TRUE(same(&s, m));
  EXPECT_GE(s.stats().height, 3u);
  std::shuffle(keys.begin(), keys.end(), rng);
  for (size_t i = 0; i < keys.size(); ++i) {
    TUPLEKV_ASSERT_OK(s.clear(keys[i]));
    m.erase(keys[i]);
    if (i % 1000 == 0) {
      ASSERT_TRUE(same(&s, m)) << i;
    }
  }
  EXPECT_TRUE(same(&s, m));
  EXPECT_EQ(s.stats().height, 1u);
}

// ---------------------------------------------------------------------------
// Splits and merges at every level

TEST(MemoryStoreTest, ManyKeysSplitAndMergeBackToOneLeaf) {
  MemoryStore s;
  StoreModel m;
  std::mt19937_64 rng(4);
  std::vector<Bytes> keys;
  for (int i = 0; i < 150000; ++i) keys.push_back(numbered("key", i));
  std::shuffle(keys.begin(), keys.end(), rng);
  for (size_t i = 0; i < keys.size(); ++i) {
    TUPLEKV_ASSERT_OK(s.set(keys[i], keys[i].substr(3)));
    m[keys[i]] = keys[i].substr(3);
    if (i % 25000 == 0) {
      ASSERT_TRUE(same(&s, m)) << i;
    }
  }
  EXPECT_TRUE(same(&s, m));
  const MemoryStoreStats full = s.stats();
  EXPECT_GE(full.height, 3u);
  // Deleting nine keys in ten leaves leaves far too sparse to keep: merges
  // must bring the leaf count down with the keys.
  std::shuffle(keys.begin(), keys.end(), rng);
  for (size_t i = 0; i < keys.size(); ++i) {
    if (i % 10 == 0) continue;
    TUPLEKV_ASSERT_OK(s.clear(keys[i]));
    m.erase(keys[i]);
    if (i % 25000 == 1) {
      ASSERT_TRUE(same(&s, m)) << i;
    }
  }
  EXPECT_TRUE(same(&s, m));
  const MemoryStoreStats sparse = s.stats();
  EXPECT_LT(sparse.leaves, full.leaves / 4) << sparse.keys << " keys";
  // Then everything, by clear and clear_range, back to a single empty leaf.
  std::vector<Bytes> left;
  for (const auto& [k, v] : m) left.push_back(k);
  for (size_t i = 0; i < left.size(); i += 2) TUPLEKV_ASSERT_OK(s.clear(left[i]));
  TUPLEKV_ASSERT_OK(s.clear_range("", ""));
  m.clear();
  EXPECT_TRUE(same(&s, m));
  const MemoryStoreStats empty = s.stats();
  EXPECT_EQ(empty.height, 1u);
  EXPECT_EQ(empty.leaves, 1u);
  EXPECT_EQ(empty.inner_nodes, 0u);
  // And it grows again.
  for (int i = 0; i < 5000; ++i) TUPLEKV_ASSERT_OK(s.set(numbered("again", i), ""));
  EXPECT_EQ(s.size(), 5000u);
  TUPLEKV_EXPECT_OK(s.check_invariants());
}

TEST(MemoryStoreTest, SortedLoadsFillLeaves) {
  for (bool descending : {false, true}) {
    MemoryStore s;
    const int n = 64000;
    for (int i = 0; i < n; ++i) {
      TUPLEKV_ASSERT_OK(s.set(numbered("k", descending ? n - 1 - i : i), "v"));
    }
    TUPLEKV_ASSERT_OK(s.check_invariants());
    // Full leaves hold 64 pairs; allow a few part-filled ones.
    EXPECT_LE(s.stats().leaves, static_cast<uint64_t>(n / 64 + 8)) << descending;
  }
}

TEST(MemoryStoreTest, LeavesLimitedByBytesNotCount) {
  // ~250-byte pairs: a leaf fills its arena with about 16 of them.
  MemoryStore s;
  StoreModel m;
  std::mt19937_64 rng(6);
  for (int round = 0; round < 4; ++round) {
    for (int i = 0; i < 5000; ++i) {
      const Bytes k = numbered("k", static_cast<int>(rng() % 20000));
      if (rng() % 3 == 0) {
        TUPLEKV_ASSERT_OK(s.clear(k));
        m.erase(k);
      } else {
        const Bytes v(rng() % 2 == 0 ? btree::kInlineMax - k.size() : rng() % 240, 'v');
        TUPLEKV_ASSERT_OK(s.set(k, v));
        m[k] = v;
      }
    }
    ASSERT_TRUE(same(&s, m)) << round;
  }
  const auto [b, e] = std::pair<Bytes, Bytes>{numbered("k", 3000), numbered("k", 17000)};
  TUPLEKV_ASSERT_OK(s.clear_range(b, e));
  m.erase(m.lower_bound(b), m.lower_bound(e));
  EXPECT_TRUE(same(&s, m));
}

TEST(MemoryStoreTest, LargeTransactionRollsBackExactly) {
  MemoryStore s;
  StoreModel m;
  for (int i = 0; i < 50000; ++i) {
    TUPLEKV_ASSERT_OK(s.set(numbered("k", i * 2), "old"));
    m[numbered("k", i * 2)] = "old";
  }
  TUPLEKV_ASSERT_OK(s.begin());
  TUPLEKV_ASSERT_OK(s.savepoint(0));
  for (int i = 0; i < 100000; ++i) TUPLEKV_ASSERT_OK(s.set(numbered("k", i), Bytes(i % 300, 'n')));
  TUPLEKV_ASSERT_OK(s.clear_range(numbered("k", 20000), numbered("k", 80000)));
  EXPECT_GT(s.stats().undo_records, 150000u);
  TUPLEKV_ASSERT_OK(s.rollback_to(0));
  EXPECT_TRUE(same(&s, m));
  TUPLEKV_ASSERT_OK(s.clear_range("", ""));
  TUPLEKV_ASSERT_OK(s.rollback());
  EXPECT_TRUE(same(&s, m));
  EXPECT_EQ(s.stats().undo_records, 0u);
}

TEST(MemoryStoreTest, RollbackCouldChangeOnlyWhatARollbackWouldUndo) {
  MemoryStore s;
  TUPLEKV_ASSERT_OK(s.set("a", "1"));
  EXPECT_FALSE(s.rollback_could_change());  // outside a transaction nothing is undoable
  TUPLEKV_ASSERT_OK(s.begin());
  EXPECT_FALSE(s.rollback_could_change());
  TUPLEKV_ASSERT_OK(s.set("b", "2"));
  EXPECT_TRUE(s.rollback_could_change());
  TUPLEKV_ASSERT_OK(s.commit());
  EXPECT_FALSE(s.rollback_could_change());

  // Made in the transaction: rolling all of it back does not count, a
  // savepoint with writes after it does.
  MemoryStore made;
  made.note_made_in_transaction();
  TUPLEKV_ASSERT_OK(made.begin());
  TUPLEKV_ASSERT_OK(made.set("a", "1"));
  EXPECT_FALSE(made.rollback_could_change());
  TUPLEKV_ASSERT_OK(made.savepoint(0));
  EXPECT_FALSE(made.rollback_could_change());
  TUPLEKV_ASSERT_OK(made.set("b", "2"));
  EXPECT_TRUE(made.rollback_could_change());
  TUPLEKV_ASSERT_OK(made.release(0));
  EXPECT_FALSE(made.rollback_could_change());
  // The note lasts one transaction.
  TUPLEKV_ASSERT_OK(made.commit());
  TUPLEKV_ASSERT_OK(made.begin());
  TUPLEKV_ASSERT_OK(made.set("c", "3"));
  EXPECT_TRUE(made.rollback_could_change());
  TUPLEKV_ASSERT_OK(made.rollback());
  EXPECT_FALSE(made.rollback_could_change());
}

// A second caller joins the transaction (core/memory_store.h, "Joining"):
// its first savepoint names a level already marked and keeps that mark.
TEST(MemoryStoreTest, AJoinersFirstSavepointKeepsTheMarkOfItsLevel) {
  MemoryStore s;
  TUPLEKV_ASSERT_OK(s.begin());
  TUPLEKV_ASSERT_OK(s.savepoint(0));
  TUPLEKV_ASSERT_OK(s.set("a", "1"));
  TUPLEKV_ASSERT_OK(s.begin());  // the joiner
  TUPLEKV_ASSERT_OK(s.savepoint(0));
  TUPLEKV_ASSERT_OK(s.set("b", "2"));
  TUPLEKV_ASSERT_OK(s.savepoint(1));  // a new level: marked as usual
  TUPLEKV_ASSERT_OK(s.set("c", "3"));
  TUPLEKV_ASSERT_OK(s.savepoint(1));  // not a join: marked anew
  TUPLEKV_ASSERT_OK(s.set("d", "4"));
  TUPLEKV_ASSERT_OK(s.rollback_to(1));
  EXPECT_TRUE(same(&s, StoreModel{{"a", "1"}, {"b", "2"}, {"c", "3"}}));
  TUPLEKV_ASSERT_OK(s.rollback_to(0));
  EXPECT_TRUE(same(&s, StoreModel{}));
  TUPLEKV_ASSERT_OK(s.commit());

  // A joiner whose level was never marked marks it.
  TUPLEKV_ASSERT_OK(s.begin());
  TUPLEKV_ASSERT_OK(s.set("a", "1"));
  TUPLEKV_ASSERT_OK(s.begin());
  TUPLEKV_ASSERT_OK(s.savepoint(0));
  TUPLEKV_ASSERT_OK(s.set("b", "2"));
  TUPLEKV_ASSERT_OK(s.rollback_to(0));
  EXPECT_TRUE(same(&s, StoreModel{{"a", "1"}}));
  TUPLEKV_ASSERT_OK(s.rollback());
  EXPECT_TRUE(same(&s, StoreModel{}));
}

// SQLite begins a table's transaction at its first write: inside SAVEPOINT
// a, that write's statement is level 1, the only level the store hears
// before the statement's end releases it. ROLLBACK TO a (level 0) must
// still undo the write, after another savepoint too.
TEST(MemoryStoreTest, AStoreThatBeginsInsideSavepointsUndoesItsWritesForEachOfThem) {
  MemoryStore s;
  TUPLEKV_ASSERT_OK(s.set("kept", "0"));
  TUPLEKV_ASSERT_OK(s.begin());
  TUPLEKV_ASSERT_OK(s.savepoint(1));  // the statement's level
  TUPLEKV_ASSERT_OK(s.set("a", "1"));
  TUPLEKV_ASSERT_OK(s.release(1));
  TUPLEKV_ASSERT_OK(s.savepoint(1));  // SAVEPOINT b
  TUPLEKV_ASSERT_OK(s.set("b", "2"));
  TUPLEKV_ASSERT_OK(s.rollback_to(1));
  EXPECT_TRUE(same(&s, StoreModel{{"a", "1"}, {"kept", "0"}}));
  TUPLEKV_ASSERT_OK(s.rollback_to(0));  // ROLLBACK TO a
  EXPECT_TRUE(same(&s, StoreModel{{"kept", "0"}}));
  TUPLEKV_ASSERT_OK(s.set("c", "3"));
  TUPLEKV_ASSERT_OK(s.commit());
  EXPECT_TRUE(same(&s, StoreModel{{"c", "3"}, {"kept", "0"}}));

  // Three levels deep, the write in the innermost one.
  TUPLEKV_ASSERT_OK(s.begin());
  TUPLEKV_ASSERT_OK(s.savepoint(3));
  TUPLEKV_ASSERT_OK(s.set("d", "4"));
  TUPLEKV_ASSERT_OK(s.release(3));
  TUPLEKV_ASSERT_OK(s.rollback_to(2));
  EXPECT_TRUE(same(&s, StoreModel{{"c", "3"}, {"kept", "0"}}));
  TUPLEKV_ASSERT_OK(s.rollback());
}

// The memory store's statement rollback after SQLite reports SQLITE_NOMEM:
// a write may run out of memory at any allocation (the tree's, the undo
// log's), and rolling back to the savepoint must then give exactly the
// content from before. n counts the allocations let through.
TEST(MemoryStoreTest, AFailedAllocationAnywhereInAWriteLeavesItUndoable) {
  bool reached_the_end = false;
  for (long n = 0; n < 100000 && !reached_the_end; ++n) {
    MemoryStore s;
    StoreModel m;
    for (int i = 0; i < 400; i += 2) {
      TUPLEKV_ASSERT_OK(s.set(numbered("k", i), Bytes(i % 50, 'o')));
      m[numbered("k", i)] = Bytes(i % 50, 'o');
    }
    TUPLEKV_ASSERT_OK(s.begin());
    TUPLEKV_ASSERT_OK(s.savepoint(0));
    bool failed = false;
    g_fail_countdown = n;
    try {
      // New keys, overwrites that grow past their leaf, long values and a
      // range clear: splits, merges and out-of-line values.
      for (int i = 0; i < 400 && !failed; ++i) {
        failed = !s.set(numbered("k", i), Bytes((i * 37) % 700, 'n')).ok();
      }
      if (!failed) failed = !s.clear_range(numbered("k", 100), numbered("k", 300)).ok();
    } catch (const std::bad_alloc&) {
      failed = true;
    }
    g_fail_countdown = -1;
    reached_the_end = !failed;
    TUPLEKV_ASSERT_OK(s.rollback_to(0));
    ASSERT_TRUE(same(&s, m)) << "after failing allocation " << n;
    TUPLEKV_ASSERT_OK(s.commit());
    ASSERT_TRUE(same(&s, m)) << "after failing allocation " << n;
  }
  EXPECT_TRUE(reached_the_end);
}

// ---------------------------------------------------------------------------
// Cursors through heavy churn: every step writes enough to split or merge
// the leaf the cursor was on.

TEST(MemoryStoreTest, CursorsSurviveSplitsAndMerges) {
  MemoryStore s;
  StoreModel m;
  std::mt19937_64 rng(8);
  auto key = [&] { return numbered("c", static_cast<int>(rng() % 40000)); };
  for (int i = 0; i < 20000; ++i) {
    const Bytes k = key();
    m[k] = k;
    TUPLEKV_ASSERT_OK(s.set(k, k));
  }
  for (bool reverse : {false, true}) {
    const KeyRange r{numbered("c", 5000), reverse ? "" : numbered("c", 35000)};
    auto c = must_scan(&s, r, ScanOptions{reverse, 0, false});
    const auto* want = model_first(m, r, reverse);
    int rows = 0;
    for (; want != nullptr; ++rows) {
      ASSERT_TRUE(c->valid()) << rows;
      ASSERT_EQ(c->key(), want->first) << rows;
      ASSERT_EQ(c->value(), want->second) << rows;
      const Bytes current(c->key());
      for (int w = 0; w < 6; ++w) {
        const Bytes k = key();
        if (rng() % 2 == 0) {
          TUPLEKV_ASSERT_OK(s.set(k, k + "'"));
          m[k] = k + "'";
        } else {
          TUPLEKV_ASSERT_OK(s.clear(k));
          m.erase(k);
        }
      }
      if (rows % 500 == 0) {  // a bulk removal around the cursor
        const Bytes a = numbered("c", std::max(0, std::atoi(current.c_str() + 1) - 100));
        const Bytes b = numbered("c", std::atoi(current.c_str() + 1) + 100);
        TUPLEKV_ASSERT_OK(s.clear_range(a, b));
        m.erase(m.lower_bound(a), m.lower_bound(b));
      }
      ASSERT_EQ(c->key(), current);
      want = model_next(m, r, reverse, current);
      c->next();
    }
    EXPECT_FALSE(c->valid());
    EXPECT_GT(rows, 1000);
    TUPLEKV_ASSERT_OK(s.check_invariants());
  }
}

}  // namespace
}  // namespace tuplekv::testing
