// Store conformance: googletest suites that every OrderedStore must pass,
// each operation checked against a std::map model (the harness of LevelDB's
// table_test.cc).
//
//   StoreConformanceTest   get/set/clear, clear_range edges, every scan shape,
//                          rescan, cursors that survive writes, big keys and
//                          values, and randomized model tests. Any store.
//   StoreTransactionTest   begin/commit/rollback and nested savepoints with the
//                          semantics written in core/store.h, and a randomized
//                          model test with transactions. Only for stores that
//                          undo writes themselves: a store whose hooks are
//                          no-ops because its database undoes the writes
//                          (SqliteStore) instantiates the first suite only.
//
// A store joins through a factory type:
//
//   struct MyStoreFactory {
//     // A new, empty store. Each test makes a fresh factory and calls this
//     // once; the factory outlives the store, so it can own what the store
//     // needs (a database connection).
//     std::unique_ptr<OrderedStore> make();
//     // Optional: an O(n) self-check of the store's structure, run after
//     // every batch of random operations.
//     Status check(OrderedStore* store);
//   };
//
//   namespace tuplekv::testing {
//   INSTANTIATE_TYPED_TEST_SUITE_P(My, StoreConformanceTest, ::testing::Types<MyStoreFactory>);
//   INSTANTIATE_TYPED_TEST_SUITE_P(My, StoreTransactionTest, ::testing::Types<MyStoreFactory>);
//   }
//
// The header defines the tests, so include it in one file per test binary.
// It depends on core/ only. The random tests use fixed seeds; set
// TUPLEKV_TEST_SEED to run one other seed instead.
#ifndef TUPLEKV_TESTS_STORE_CONFORMANCE_H_
#define TUPLEKV_TESTS_STORE_CONFORMANCE_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/bytes.h"
#include "core/key_mapping.h"
#include "core/status.h"
#include "core/store.h"

#define TUPLEKV_ASSERT_OK(expr)                                              \
  do {                                                                       \
    const ::tuplekv::Status tuplekv_s_ = (expr);                             \
    ASSERT_TRUE(tuplekv_s_.ok()) << #expr << ": " << tuplekv_s_.message();   \
  } while (0)
#define TUPLEKV_EXPECT_OK(expr)                                              \
  do {                                                                       \
    const ::tuplekv::Status tuplekv_s_ = (expr);                             \
    EXPECT_TRUE(tuplekv_s_.ok()) << #expr << ": " << tuplekv_s_.message();   \
  } while (0)

namespace tuplekv::testing {

// ---------------------------------------------------------------------------
// The model and ways to compare a store with it

// Orders by compare_bytes(), stated rather than left to char_traits.
struct BytesLess {
  using is_transparent = void;
  bool operator()(BytesView a, BytesView b) const { return compare_bytes(a, b) < 0; }
};
using StoreModel = std::map<Bytes, Bytes, BytesLess>;
using KvPairs = std::vector<std::pair<Bytes, Bytes>>;

// Concatenation by appending. (GCC 12 at -O2 gives false -Wrestrict
// warnings for "literal" + std::string.)
template <typename... Parts>
inline std::string cat(const Parts&... parts) {
  std::string s;
  (s.append(std::string_view(parts)), ...);
  return s;
}

// Keys and values in failure messages: hex, cut short (values reach 1 MB).
inline std::string show(BytesView b) {
  constexpr size_t kShown = 40;
  std::string s = cat("x'", to_hex(b.substr(0, kShown)), "'");
  if (b.size() > kShown) s += cat("...(", std::to_string(b.size()), " bytes)");
  return s;
}

inline std::string show(const KeyRange& r, const ScanOptions& o) {
  return cat("[", show(r.begin), ", ", r.unbounded_end() ? std::string("end") : show(r.end), ")",
             o.reverse ? " reverse" : "", o.keys_only ? " keys_only" : "",
             o.limit != 0 ? cat(" limit ", std::to_string(o.limit)) : std::string());
}

// What scan(range, options) must return, read from the model.
inline KvPairs model_scan(const StoreModel& m, const KeyRange& r, const ScanOptions& o) {
  KvPairs out;
  if (r.empty()) return out;
  const auto lo = m.lower_bound(r.begin);
  const auto hi = r.unbounded_end() ? m.end() : m.lower_bound(r.end);
  for (auto it = lo; it != hi; ++it) out.emplace_back(it->first, it->second);
  if (o.reverse) std::reverse(out.begin(), out.end());
  if (o.limit != 0 && out.size() > o.limit) out.resize(o.limit);
  return out;
}

// The pair a cursor on `r` lands on first, or null.
inline const StoreModel::value_type* model_first(const StoreModel& m, const KeyRange& r,
                                                 bool reverse) {
  if (r.empty()) return nullptr;
  if (!reverse) {
    auto it = m.lower_bound(r.begin);
    if (it == m.end() || !r.contains(it->first)) return nullptr;
    return &*it;
  }
  auto it = r.unbounded_end() ? m.end() : m.lower_bound(r.end);
  if (it == m.begin()) return nullptr;
  --it;
  return r.contains(it->first) ? &*it : nullptr;
}

// The pair after (reverse: before) `current` within `r`, as the model is
// now: where core/store.h says a cursor goes next, even after writes.
inline const StoreModel::value_type* model_next(const StoreModel& m, const KeyRange& r,
                                                bool reverse, BytesView current) {
  if (!reverse) {
    auto it = m.upper_bound(current);
    if (it == m.end() || !r.contains(it->first)) return nullptr;
    return &*it;
  }
  auto it = m.lower_bound(current);
  if (it == m.begin()) return nullptr;
  --it;
  return r.contains(it->first) ? &*it : nullptr;
}

// Everything a cursor yields from where it stands. A failed status is a
// test failure.
inline KvPairs drain(Cursor* c) {
  KvPairs out;
  while (c->valid()) {
    out.emplace_back(Bytes(c->key()), Bytes(c->value()));
    c->next();
  }
  EXPECT_TRUE(c->status().ok()) << c->status().message();
  return out;
}

// Compares pairs; with keys_only a value may also come back empty (the
// option is a hint).
inline ::testing::AssertionResult same_pairs(const KvPairs& got, const KvPairs& want,
                                             bool keys_only = false) {
  const size_t n = std::min(got.size(), want.size());
  for (size_t i = 0; i < n; ++i) {
    if (got[i].first != want[i].first) {
      return ::testing::AssertionFailure() << "pair " << i << ": key " << show(got[i].first)
                                           << ", want " << show(want[i].first);
    }
    if (got[i].second != want[i].second && !(keys_only && got[i].second.empty())) {
      return ::testing::AssertionFailure()
             << "pair " << i << " (key " << show(got[i].first) << "): value "
             << show(got[i].second) << ", want " << show(want[i].second);
    }
  }
  if (got.size() != want.size()) {
    auto failure = ::testing::AssertionFailure()
                   << got.size() << " pairs, want " << want.size() << "; first ";
    if (got.size() > want.size()) return failure << "extra key " << show(got[n].first);
    return failure << "missing key " << show(want[n].first);
  }
  return ::testing::AssertionSuccess();
}

inline std::vector<uint64_t> test_seeds(std::vector<uint64_t> defaults) {
  const char* env = std::getenv("TUPLEKV_TEST_SEED");
  if (env != nullptr && *env != '\0') return {std::strtoull(env, nullptr, 10)};
  return defaults;
}

// ---------------------------------------------------------------------------
// Fixtures

template <typename Factory>
class StoreTestBase : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = factory_.make();
    ASSERT_NE(store_, nullptr);
  }
  // The store goes before the factory that may own its connection.
  void TearDown() override { store_.reset(); }

  OrderedStore* store() { return store_.get(); }

  // Writes to the store and the model alike.
  void set(BytesView k, BytesView v) {
    const Status s = store_->set(k, v);
    EXPECT_TRUE(s.ok()) << "set " << show(k) << ": " << s.message();
    model_.insert_or_assign(Bytes(k), Bytes(v));
  }
  void clear(BytesView k) {
    const Status s = store_->clear(k);
    EXPECT_TRUE(s.ok()) << "clear " << show(k) << ": " << s.message();
    model_.erase(Bytes(k));
  }
  void clear_range(BytesView begin, BytesView end) {
    const Status s = store_->clear_range(begin, end);
    EXPECT_TRUE(s.ok()) << "clear_range " << show(begin) << " " << show(end) << ": "
                        << s.message();
    const KeyRange r{Bytes(begin), Bytes(end)};
    if (r.empty()) return;
    model_.erase(model_.lower_bound(r.begin),
                 r.unbounded_end() ? model_.end() : model_.lower_bound(r.end));
  }
  void fill(const StoreModel& m) {
    for (const auto& [k, v] : m) set(k, v);
  }

  std::unique_ptr<Cursor> open(const KeyRange& r, const ScanOptions& o = {}) {
    auto c = store_->scan(r, o);
    EXPECT_TRUE(c.ok()) << "scan " << show(r, o) << ": " << c.status().message();
    return c.ok() ? std::move(c).value() : nullptr;
  }
  KvPairs scan_all(const KeyRange& r, const ScanOptions& o = {}) {
    auto c = open(r, o);
    return c != nullptr ? drain(c.get()) : KvPairs{};
  }

  // The whole store equals the model, by a full scan and by get() of every
  // model key.
  ::testing::AssertionResult matches_model() {
    auto result = same_pairs(scan_all(KeyRange{}), model_scan(model_, KeyRange{}, {}));
    if (!result) return result << " (full scan)";
    Bytes v;
    for (const auto& [k, want] : model_) {
      bool found = false;
      const Status s = store_->get(k, &v, &found);
      if (!s.ok()) return ::testing::AssertionFailure() << "get " << show(k) << ": " << s.message();
      if (!found) return ::testing::AssertionFailure() << "get " << show(k) << ": not found";
      if (v != want) {
        return ::testing::AssertionFailure()
               << "get " << show(k) << ": " << show(v) << ", want " << show(want);
      }
    }
    return ::testing::AssertionSuccess();
  }

  Status self_check() {
    if constexpr (requires(Factory& f, OrderedStore* s) {
                    { f.check(s) } -> std::same_as<Status>;
                  }) {
      return factory_.check(store_.get());
    } else {
      return Status::OK();
    }
  }

  Factory factory_;
  std::unique_ptr<OrderedStore> store_;
  StoreModel model_;
};

template <typename Factory>
class StoreConformanceTest : public StoreTestBase<Factory> {};
template <typename Factory>
class StoreTransactionTest : public StoreTestBase<Factory> {};

TYPED_TEST_SUITE_P(StoreConformanceTest);
TYPED_TEST_SUITE_P(StoreTransactionTest);
// A binary for a store without its own undo instantiates only the first
// suite; without this gtest would fail it for leaving the second unused.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(StoreTransactionTest);

// Keys with the edges of unsigned order: the empty key, 00 and FF bytes,
// keys that are prefixes of others.
inline StoreModel edge_sample() {
  StoreModel m;
  const Bytes keys[] = {Bytes(),          Bytes("\0", 1),   Bytes("\0\0", 2), "a",
                        Bytes("a\0", 2),  "a\x01",          "ab",             "b",
                        "b\x7f",          "b\x80",          "b\xff",          "c",
                        "\xff",           "\xff\xff"};
  for (const Bytes& k : keys) m[k] = cat("v:", to_hex(k));
  return m;
}

// Range bounds: each sample key, the gaps between them, and past both ends.
inline std::vector<Bytes> edge_bounds() {
  return {Bytes(),   Bytes("\0", 1), Bytes("\0\x01", 2), "a",          Bytes("a\0", 2),
          "a\x01",   "a\x02",        "ab",               "abc",        "b",
          "b\x80",   "b\xfe",        "c",                "\xfe",       "\xff",
          "\xff\xff", "\xff\xff\xff"};
}

// ---------------------------------------------------------------------------
// Point operations

TYPED_TEST_P(StoreConformanceTest, GetSetClear) {
  Bytes v;
  bool found = true;
  TUPLEKV_ASSERT_OK(this->store()->get("a", &v, &found));
  EXPECT_FALSE(found);
  this->set("a", "1");
  this->set("b", "2");
  this->set("a", "3");  // overwrite
  found = false;
  TUPLEKV_ASSERT_OK(this->store()->get("a", &v, &found));
  EXPECT_TRUE(found);
  EXPECT_EQ(v, "3");
  this->clear("a");
  this->clear("a");        // absent: not an error
  this->clear("missing");  // never present
  TUPLEKV_ASSERT_OK(this->store()->get("a", &v, &found));
  EXPECT_FALSE(found);
  // Prefixes and extensions of a key are other keys.
  TUPLEKV_ASSERT_OK(this->store()->get("", &v, &found));
  EXPECT_FALSE(found);
  TUPLEKV_ASSERT_OK(this->store()->get(Bytes("b\0", 2), &v, &found));
  EXPECT_FALSE(found);
  EXPECT_TRUE(this->matches_model());
}

TYPED_TEST_P(StoreConformanceTest, EmptyKeysAndValues) {
  this->set("", "empty key");
  this->set(Bytes("\0", 1), "");
  this->set("a", BytesView());  // a null data() is still an empty value
  this->set("b", "x");
  this->set("b", "");  // shrink to nothing
  EXPECT_TRUE(this->matches_model());
  Bytes v = "stale";
  bool found = false;
  TUPLEKV_ASSERT_OK(this->store()->get(BytesView(), &v, &found));
  EXPECT_TRUE(found);
  EXPECT_EQ(v, "empty key");
  TUPLEKV_ASSERT_OK(this->store()->get("a", &v, &found));
  EXPECT_TRUE(found);
  EXPECT_EQ(v, "");
  // [x'', x'00') is exactly the empty key.
  EXPECT_TRUE(same_pairs(this->scan_all(KeyRange{"", Bytes("\0", 1)}),
                         KvPairs{{"", "empty key"}}));
  this->clear("");
  EXPECT_TRUE(this->matches_model());
}

TYPED_TEST_P(StoreConformanceTest, UnsignedByteOrder) {
  this->fill(edge_sample());
  for (int i = 0; i < 256; ++i) this->set(Bytes(1, static_cast<char>(i)) + "k", "");
  EXPECT_TRUE(this->matches_model());
  const KvPairs all = this->scan_all(KeyRange{});
  for (size_t i = 1; i < all.size(); ++i) {
    EXPECT_LT(compare_bytes(all[i - 1].first, all[i].first), 0) << i;
  }
}

TYPED_TEST_P(StoreConformanceTest, LargeKeysAndValues) {
  std::mt19937_64 rng(11);
  auto random_bytes = [&](size_t n) {
    Bytes b(n, '\0');
    for (char& c : b) c = static_cast<char>(rng());
    return b;
  };
  // Sizes around typical inline limits and well past them.
  const size_t sizes[] = {0, 1, 15, 16, 17, 127, 128, 255, 256, 257, 1000, 4095, 4096, 4097,
                          100000, 1 << 20};
  for (size_t n : sizes) this->set(cat("v", std::to_string(n)), random_bytes(n));
  // Keys up to FoundationDB's 10 KB limit, some sharing a long prefix, so
  // any separator or prefix logic sees long common parts.
  const Bytes shared = random_bytes(3000);
  for (size_t n : {255, 256, 257, 2000, 10000}) {
    this->set(random_bytes(n), cat("k", std::to_string(n)));
    this->set(shared + random_bytes(n % 300), cat("s", std::to_string(n)));
    this->set(shared + random_bytes(n % 300), random_bytes(n));
  }
  this->set(shared, "the prefix itself");
  EXPECT_TRUE(this->matches_model());
  // Values change size class in place: small -> big -> small -> empty.
  for (size_t n : {3, 300, 1 << 20, 200, 0, 5000, 257, 256}) {
    this->set("v16", random_bytes(n));
    this->set(shared, random_bytes(n));
  }
  EXPECT_TRUE(this->matches_model());
  this->clear_range(shared, "");
  this->clear("v1048576");
  EXPECT_TRUE(this->matches_model());
}

// ---------------------------------------------------------------------------
// clear_range

TYPED_TEST_P(StoreConformanceTest, ClearRangeEveryEdge) {
  const StoreModel sample = edge_sample();
  const std::vector<Bytes> bounds = edge_bounds();
  for (const Bytes& begin : bounds) {
    for (const Bytes& end : bounds) {
      SCOPED_TRACE(cat("clear_range ", show(begin), " ", show(end)));
      this->clear_range("", "");
      this->model_.clear();
      this->fill(sample);
      this->clear_range(begin, end);
      ASSERT_TRUE(this->matches_model());
    }
  }
}

TYPED_TEST_P(StoreConformanceTest, ClearRangeEmptyInvertedAndUnbounded) {
  this->fill(edge_sample());
  this->clear_range("b", "b");  // empty
  this->clear_range("c", "a");  // inverted: nothing
  this->clear_range("\xff\xff\x01", "");  // unbounded, past every key
  this->clear_range("a\x02", "ab");  // between two keys
  EXPECT_TRUE(this->matches_model());
  EXPECT_EQ(this->model_.size(), edge_sample().size());
  this->clear_range("a", "b");  // begin exactly at a key, end exactly at one
  Bytes v;
  bool found = false;
  TUPLEKV_ASSERT_OK(this->store()->get("b", &v, &found));
  EXPECT_TRUE(found);
  this->clear_range("b\x80", "");  // unbounded from a key
  EXPECT_TRUE(this->matches_model());
  this->clear_range("", "");  // everything
  EXPECT_TRUE(this->matches_model());
  EXPECT_TRUE(this->scan_all(KeyRange{}).empty());
  this->clear_range("", "");  // on an empty store
  this->set("x", "after");
  EXPECT_TRUE(this->matches_model());
}

TYPED_TEST_P(StoreConformanceTest, ClearRangeOfManyKeys) {
  for (int i = 0; i < 3000; ++i) {
    char k[16];
    std::snprintf(k, sizeof k, "k%05d", i);
    this->set(k, Bytes(static_cast<size_t>(i % 50), 'v'));
  }
  this->clear_range("k00100", "k02900");
  EXPECT_TRUE(this->matches_model());
  this->clear_range("k00050", "k00100");  // ends exactly where the last one began
  this->clear_range("k02900", "k02950");
  this->clear_range("", "k00010");
  this->clear_range("k02990", "");
  EXPECT_TRUE(this->matches_model());
  EXPECT_EQ(this->model_.size(), 80u);
}

// ---------------------------------------------------------------------------
// Scans

TYPED_TEST_P(StoreConformanceTest, EveryScanShape) {
  this->fill(edge_sample());
  const std::vector<Bytes> bounds = edge_bounds();
  for (const Bytes& begin : bounds) {
    for (const Bytes& end : bounds) {
      for (bool reverse : {false, true}) {
        for (bool keys_only : {false, true}) {
          for (uint64_t limit : {0, 1, 2, 5, 100}) {
            const KeyRange r{begin, end};
            const ScanOptions o{reverse, limit, keys_only};
            SCOPED_TRACE(show(r, o));
            ASSERT_TRUE(same_pairs(this->scan_all(r, o), model_scan(this->model_, r, o), keys_only));
          }
        }
      }
    }
  }
}

TYPED_TEST_P(StoreConformanceTest, ScansOfAnEmptyStore) {
  for (bool reverse : {false, true}) {
    for (const KeyRange& r : {KeyRange{}, KeyRange{"a", "b"}, KeyRange{"a", ""}, KeyRange{"", "a"}}) {
      auto c = this->open(r, ScanOptions{reverse, 0, false});
      ASSERT_NE(c, nullptr);
      EXPECT_FALSE(c->valid());
      TUPLEKV_EXPECT_OK(c->status());
    }
  }
  // Keys outside the range do not leak into it.
  this->set("m", "1");
  for (bool reverse : {false, true}) {
    const ScanOptions o{reverse, 0, false};
    EXPECT_TRUE(this->scan_all(KeyRange{"a", "m"}, o).empty());
    EXPECT_TRUE(this->scan_all(KeyRange{Bytes("m\0", 2), ""}, o).empty());
    EXPECT_TRUE(this->scan_all(KeyRange{"m", "m"}, o).empty());
    EXPECT_TRUE(this->scan_all(KeyRange{"n", "a"}, o).empty());
    EXPECT_EQ(this->scan_all(KeyRange{"m", Bytes("m\0", 2)}, o).size(), 1u);
  }
}

TYPED_TEST_P(StoreConformanceTest, RescanIsAFreshScanWithTheSameOptions) {
  this->fill(edge_sample());
  const std::vector<Bytes> bounds = edge_bounds();
  for (bool reverse : {false, true}) {
    for (uint64_t limit : {0, 2}) {
      const ScanOptions o{reverse, limit, false};
      auto c = this->open(KeyRange{"a", "b"}, o);
      ASSERT_NE(c, nullptr);
      for (size_t i = 0; i < bounds.size(); ++i) {
        const KeyRange r{bounds[i], bounds[(i * 7 + 3) % bounds.size()]};
        SCOPED_TRACE(cat("rescan ", show(r, o)));
        // Rescan from every state: fresh, mid-scan, finished.
        if (c->valid() && i % 2 == 0) c->next();
        if (i % 3 == 0) drain(c.get());
        TUPLEKV_ASSERT_OK(c->rescan(r));
        ASSERT_TRUE(same_pairs(drain(c.get()), model_scan(this->model_, r, o)));
      }
      // The cursor keeps its own copy of the range.
      {
        KeyRange temporary{"a", "b"};
        TUPLEKV_ASSERT_OK(c->rescan(temporary));
        temporary.begin.assign(300, 'x');
        temporary.end.assign(300, 'y');
      }
      EXPECT_TRUE(same_pairs(drain(c.get()), model_scan(this->model_, KeyRange{"a", "b"}, o)));
    }
  }
}

TYPED_TEST_P(StoreConformanceTest, ViewsStayValidWhileOtherCursorsMove) {
  for (int i = 0; i < 300; ++i) this->set(cat("k", std::to_string(1000 + i)), Bytes(40, static_cast<char>('a' + i % 26)));
  auto a = this->open(KeyRange{});
  auto b = this->open(KeyRange{}, ScanOptions{true, 0, false});
  ASSERT_TRUE(a->valid() && b->valid());
  const BytesView ak = a->key();
  const BytesView av = a->value();
  const Bytes ak_copy(ak), av_copy(av);
  for (int i = 0; i < 200; ++i) b->next();
  Bytes v;
  bool found = false;
  TUPLEKV_ASSERT_OK(this->store()->get("k1100", &v, &found));
  auto c = this->open(KeyRange{"k1200", ""});
  drain(c.get());
  EXPECT_EQ(ak, ak_copy);
  EXPECT_EQ(av, av_copy);
  // A self-join: an inner scan per outer row.
  int rows = 0;
  for (; a->valid(); a->next()) {
    auto inner = this->open(KeyRange{Bytes(a->key()), ""}, ScanOptions{false, 3, true});
    rows += static_cast<int>(drain(inner.get()).size());
  }
  EXPECT_EQ(rows, 3 * 300 - 3);
}

// ---------------------------------------------------------------------------
// Cursors and writes: a write leaves the cursor's views as they were, and
// next() continues from the first key after (reverse: before) the one it was
// on, in the store as it is then.

TYPED_TEST_P(StoreConformanceTest, ForwardCursorSurvivesWrites) {
  for (const char* k : {"a", "b", "c", "d", "e", "f"}) this->set(k, cat("v", k));
  auto c = this->open(KeyRange{"", "f"});
  ASSERT_TRUE(c->valid());
  ASSERT_EQ(c->key(), "a");
  this->set("bb", "vbb");  // ahead: visited
  this->clear("b");        // the next key: skipped
  this->set("0", "v0");    // behind: not visited
  EXPECT_EQ(c->key(), "a");
  EXPECT_EQ(c->value(), "va");
  c->next();
  ASSERT_TRUE(c->valid());
  EXPECT_EQ(c->key(), "bb");
  EXPECT_EQ(c->value(), "vbb");
  this->set(Bytes("bb\0", 3), "right after");  // the smallest key after the current one
  c->next();
  ASSERT_TRUE(c->valid());
  EXPECT_EQ(c->key(), Bytes("bb\0", 3));
  this->clear(c->key());  // the current key, passed as the cursor's own view
  EXPECT_EQ(c->key(), Bytes("bb\0", 3));
  EXPECT_EQ(c->value(), "right after");
  c->next();
  ASSERT_TRUE(c->valid());
  EXPECT_EQ(c->key(), "c");
  this->set(c->key(), "overwritten");  // the current key; the view keeps the old value
  EXPECT_EQ(c->value(), "vc");
  this->set(c->value(), c->key());  // both views as arguments of a write
  c->next();
  ASSERT_TRUE(c->valid());
  EXPECT_EQ(c->key(), "d");
  this->set("f0", "past the end");  // beyond the range: never visited
  this->clear_range("d", "e\x01");  // the current key and the next
  c->next();
  EXPECT_FALSE(c->valid());
  TUPLEKV_EXPECT_OK(c->status());
  // A finished cursor stays finished through writes.
  this->set("e", "back");
  EXPECT_FALSE(c->valid());
  EXPECT_TRUE(this->matches_model());
}

TYPED_TEST_P(StoreConformanceTest, ReverseCursorSurvivesWrites) {
  for (const char* k : {"a", "b", "c", "d", "e", "f"}) this->set(k, cat("v", k));
  auto c = this->open(KeyRange{"b", ""}, ScanOptions{true, 0, false});
  ASSERT_TRUE(c->valid());
  ASSERT_EQ(c->key(), "f");
  this->set("ee", "vee");  // ahead (smaller): visited
  this->clear("e");
  this->set("g", "vg");  // behind: not visited
  EXPECT_EQ(c->key(), "f");
  c->next();
  ASSERT_TRUE(c->valid());
  EXPECT_EQ(c->key(), "ee");
  this->clear("ee");
  this->set(Bytes("d\0", 2), "just before ee");
  c->next();
  ASSERT_TRUE(c->valid());
  EXPECT_EQ(c->key(), Bytes("d\0", 2));
  EXPECT_EQ(c->value(), "just before ee");
  this->set(c->key(), "new value");
  EXPECT_EQ(c->value(), "just before ee");
  c->next();
  ASSERT_TRUE(c->valid());
  EXPECT_EQ(c->key(), "d");
  this->set("a0", "below the range");
  this->clear_range("b", "d");  // everything left in the range
  c->next();
  EXPECT_FALSE(c->valid());
  TUPLEKV_EXPECT_OK(c->status());
  EXPECT_TRUE(this->matches_model());
}

TYPED_TEST_P(StoreConformanceTest, CursorLimitCountsRowsAcrossWrites) {
  for (const char* k : {"a", "b", "c", "d", "e"}) this->set(k, k);
  for (bool reverse : {false, true}) {
    auto c = this->open(KeyRange{}, ScanOptions{reverse, 3, false});
    std::vector<Bytes> seen;
    for (; c->valid(); c->next()) {
      seen.emplace_back(c->key());
      this->set(Bytes(c->key()) + "x", "");  // a new key next to every row
    }
    // Forward, each new key is the next one; reverse, each is behind.
    const std::vector<Bytes> want = reverse ? std::vector<Bytes>{"e", "d", "c"}
                                            : std::vector<Bytes>{"a", "ax", "axx"};
    EXPECT_EQ(seen, want);
    this->clear_range("", "");
    this->model_.clear();
    for (const char* k : {"a", "b", "c", "d", "e"}) this->set(k, k);
  }
}

TYPED_TEST_P(StoreConformanceTest, ManyCursorsSurviveWrites) {
  for (int i = 0; i < 200; ++i) this->set(cat("k", std::to_string(1000 + 2 * i)), "v");
  struct Open {
    std::unique_ptr<Cursor> cursor;
    KeyRange range;
    bool reverse;
  };
  std::vector<Open> cursors;
  for (int i = 0; i < 8; ++i) {
    const KeyRange r{cat("k", std::to_string(1000 + 40 * i)), i % 3 == 0 ? "" : "k1300"};
    const bool reverse = i % 2 == 1;
    cursors.push_back(Open{this->open(r, ScanOptions{reverse, 0, false}), r, reverse});
  }
  std::mt19937_64 rng(5);
  for (int step = 0; step < 400; ++step) {
    const Bytes k = cat("k", std::to_string(1000 + rng() % 420));
    if (rng() % 2 == 0) {
      this->set(k, cat("w", std::to_string(step)));
    } else {
      this->clear(k);
    }
    Open& o = cursors[rng() % cursors.size()];
    if (!o.cursor->valid()) continue;
    const Bytes current(o.cursor->key());
    const auto* want = model_next(this->model_, o.range, o.reverse, current);
    o.cursor->next();
    ASSERT_EQ(o.cursor->valid(), want != nullptr) << "after " << show(current);
    if (want != nullptr) {
      ASSERT_EQ(o.cursor->key(), want->first);
      ASSERT_EQ(o.cursor->value(), want->second);
    }
  }
}

// The views a reader took before a write, not only those it asks for
// after: a virtual table reads a row's columns one call at a time, and a
// function in the same statement may write the table in between. The
// writes here rebuild the part of the store the cursors stand in: the
// current pair overwritten and deleted, its neighbours deleted (nodes
// merge) and thousands of pairs inserted around it (nodes split).
TYPED_TEST_P(StoreConformanceTest, ViewsTakenBeforeAWriteStayValid) {
  auto key = [](int i) { return cat("k", std::to_string(100000 + i)); };
  auto value = [](int i, char fill) { return cat(std::to_string(i), Bytes(60 + i % 50, fill)); };
  for (int i = 0; i < 3000; i += 2) this->set(key(i), value(i, 'a'));
  for (const bool reverse : {false, true}) {
    for (const bool keys_only : {false, true}) {
      SCOPED_TRACE(cat(reverse ? "reverse" : "forward", keys_only ? ", keys only" : ""));
      auto c = this->open(KeyRange{key(1000), key(2000)}, ScanOptions{reverse, 0, keys_only});
      for (int step = 0; step < 3; ++step) c->next();
      ASSERT_TRUE(c->valid());
      const BytesView k = c->key();
      const BytesView v = c->value();
      const Bytes k_was(k), v_was(v);
      this->set(k_was, Bytes(300, 'o'));  // past the inline limit
      this->set(k_was, "short");
      this->clear(k_was);
      for (int i = 900; i < 2100; i += 2) this->clear(key(i));
      for (int i = 801; i < 2201; ++i) this->set(key(i), value(i, 'n'));
      EXPECT_EQ(k, k_was);
      EXPECT_EQ(v, v_was);
      c->next();
      ASSERT_TRUE(c->valid());
      EXPECT_EQ(c->value().empty(), keys_only);
      EXPECT_TRUE(this->matches_model());
      for (int i = 0; i < 3000; ++i) {
        if (i % 2 == 0) {
          this->set(key(i), value(i, 'a'));
        } else {
          this->clear(key(i));
        }
      }
    }
  }
}

// Random scans over a few thousand keys with random writes between steps,
// each step checked against the model.
TYPED_TEST_P(StoreConformanceTest, RandomWritesDuringScans) {
  for (uint64_t seed : test_seeds({1, 2})) {
    SCOPED_TRACE(cat("seed ", std::to_string(seed)));
    std::mt19937_64 rng(seed);
    this->clear_range("", "");
    this->model_.clear();
    auto key = [&] {
      Bytes k = "p";
      const int n = 1 + static_cast<int>(rng() % 3);
      for (int i = 0; i < n; ++i) k.push_back(static_cast<char>(rng() % 4 == 0 ? 0 : rng() % 256));
      return k;
    };
    for (int i = 0; i < 2000; ++i) this->set(key(), Bytes(rng() % 30, 'v'));
    for (int scan = 0; scan < 150 && !this->HasFailure(); ++scan) {
      KeyRange r;
      if (rng() % 4 != 0) r.begin = key();
      if (rng() % 4 != 0) r.end = key();
      if (!r.end.empty() && compare_bytes(r.begin, r.end) > 0) std::swap(r.begin, r.end);
      const ScanOptions o{rng() % 2 == 0, rng() % 3 == 0 ? rng() % 50 : 0, rng() % 4 == 0};
      SCOPED_TRACE(cat("scan ", std::to_string(scan), " ", show(r, o)));
      auto c = this->open(r, o);
      ASSERT_NE(c, nullptr);
      const auto* want = model_first(this->model_, r, o.reverse);
      uint64_t rows = 0;
      for (;;) {
        if (o.limit != 0 && rows == o.limit) want = nullptr;
        ASSERT_EQ(c->valid(), want != nullptr) << "row " << rows;
        if (want == nullptr) break;
        ++rows;
        ASSERT_EQ(c->key(), want->first) << "row " << rows;
        if (!o.keys_only || !c->value().empty()) {
          ASSERT_EQ(c->value(), want->second);
        }
        const Bytes key_before(c->key());
        const Bytes value_before(c->value());
        const int writes = rng() % 3 == 0 ? static_cast<int>(rng() % 4) : 0;
        for (int w = 0; w < writes; ++w) {
          switch (rng() % 6) {
            case 0: case 1: this->set(key(), Bytes(rng() % 30, 'w')); break;
            case 2: this->clear(key()); break;
            case 3: this->clear(c->key()); break;
            case 4: this->set(c->key(), "over"); break;
            case 5: {
              Bytes a = key(), b = key();
              if (compare_bytes(a, b) > 0) std::swap(a, b);
              this->clear_range(a, b);
              break;
            }
          }
        }
        ASSERT_EQ(c->key(), key_before);
        ASSERT_EQ(c->value(), value_before);
        want = model_next(this->model_, r, o.reverse, key_before);
        c->next();
      }
      TUPLEKV_ASSERT_OK(c->status());
    }
    TUPLEKV_ASSERT_OK(this->self_check());
    ASSERT_TRUE(this->matches_model());
  }
}

// ---------------------------------------------------------------------------
// Randomized model test without transactions

// Random keys from a small alphabet (so prefixes, collisions and 00/FF
// bytes are common), sometimes long; random values, sometimes big.
class RandomKv {
 public:
  explicit RandomKv(uint64_t seed) : rng_(seed) {}
  uint64_t next() { return rng_(); }
  uint64_t below(uint64_t n) { return rng_() % n; }

  Bytes key() {
    static constexpr char kAlphabet[] = {'\0', '\x01', 'a', 'b', '\x7f', '\x80', '\xff'};
    Bytes k;
    if (below(20) == 0) k.assign(200 + below(200), 'L');  // long, shared prefix
    const int n = static_cast<int>(below(5));
    for (int i = 0; i < n; ++i) k.push_back(kAlphabet[below(sizeof kAlphabet)]);
    return k;
  }
  Bytes value() {
    const uint64_t pick = below(50);
    const size_t n = pick == 0 ? 1000 + below(70000) : pick < 5 ? 200 + below(200) : below(24);
    Bytes v(n, '\0');
    const char fill = static_cast<char>(next());
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<char>(fill + i);
    return v;
  }
  // An ordered pair, sometimes with an unbounded end.
  std::pair<Bytes, Bytes> range() {
    Bytes a = key(), b = below(6) == 0 ? Bytes() : key();
    if (!b.empty() && compare_bytes(a, b) > 0 && below(4) != 0) std::swap(a, b);
    return {a, b};
  }

 private:
  std::mt19937_64 rng_;
};

TYPED_TEST_P(StoreConformanceTest, RandomOperationsMatchTheModel) {
  for (uint64_t seed : test_seeds({7, 8, 9})) {
    SCOPED_TRACE(cat("seed ", std::to_string(seed)));
    RandomKv rnd(seed);
    this->clear_range("", "");
    this->model_.clear();
    for (int step = 0; step < 3000 && !this->HasFailure(); ++step) {
      switch (rnd.below(10)) {
        case 0: case 1: case 2: case 3: this->set(rnd.key(), rnd.value()); break;
        case 4: case 5: this->clear(rnd.key()); break;
        case 6: {
          const auto [b, e] = rnd.range();
          this->clear_range(b, e);
          break;
        }
        case 7: {
          const Bytes k = rnd.key();
          Bytes v;
          bool found = false;
          TUPLEKV_ASSERT_OK(this->store()->get(k, &v, &found));
          const auto it = this->model_.find(k);
          ASSERT_EQ(found, it != this->model_.end()) << show(k);
          if (found) {
            ASSERT_EQ(v, it->second) << show(k);
          }
          break;
        }
        default: {
          const auto [b, e] = rnd.range();
          const KeyRange r{b, e};
          const ScanOptions o{rnd.below(2) == 0, rnd.below(3) == 0 ? rnd.below(10) : 0,
                              rnd.below(5) == 0};
          ASSERT_TRUE(same_pairs(this->scan_all(r, o), model_scan(this->model_, r, o), o.keys_only))
              << "step " << step << " " << show(r, o);
        }
      }
      if (step % 100 == 99) {
        TUPLEKV_ASSERT_OK(this->self_check());
        ASSERT_TRUE(this->matches_model()) << "step " << step;
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Mapped scans (core/key_mapping.h): index entries that map to rows

// A keyspace shaped like a table with one index: rows ("r", pk) -> "row<pk>"
// and entries ("i", group, pk) -> "", packed by hand (a string element is
// 02 bytes 00, a small integer 15 n). Some entries have no row, one does
// not decode.
struct MappedSample {
  static Bytes str(std::string_view s) { return cat("\x02", s, Bytes(1, '\0')); }
  static Bytes num(int n) { return cat("\x15", Bytes(1, static_cast<char>(n))); }
  static Bytes row(int pk) { return cat(str("r"), num(pk)); }
  static Bytes entry(int group, int pk) {
    return cat(str("i"), str(cat("g", std::to_string(group))), num(pk));
  }
  static KeyMapping mapping() {
    KeyMapping m;
    m.from_prefix = str("i").size();
    m.skip = 1;
    m.to_prefix = str("r");
    return m;
  }
  static StoreModel model() {
    StoreModel m;
    for (int pk = 1; pk <= 60; ++pk) {
      m[row(pk)] = cat("row", std::to_string(pk));
      m[entry(pk % 7, pk)] = "";
    }
    for (int pk = 200; pk <= 202; ++pk) m[entry(3, pk)] = "";  // no row
    m[cat(str("i"), "\x02g9")] = "";                             // truncated element
    m[cat(str("i"), str("g8"))] = "";                           // maps to ("r",) itself: absent
    return m;
  }
};

// What a mapped scan must yield, as pairs whose value is "+" and the mapped
// value, or "-" where the key maps to nothing.
inline KvPairs model_mapped_scan(const StoreModel& m, const KeyRange& r, const ScanOptions& o,
                                 const KeyMapping& mapping) {
  KvPairs out = model_scan(m, r, o);
  Bytes mapped;
  for (auto& [k, v] : out) {
    auto it = map_key(mapping, k, &mapped) ? m.find(mapped) : m.end();
    v = it == m.end() ? Bytes("-") : cat("+", it->second);
  }
  return out;
}

inline KvPairs drain_mapped(Cursor* c) {
  KvPairs out;
  while (c->valid()) {
    if (!c->mapped_found()) {
      EXPECT_TRUE(c->value().empty()) << show(c->key());
    }
    out.emplace_back(Bytes(c->key()), c->mapped_found() ? cat("+", c->value()) : Bytes("-"));
    c->next();
  }
  EXPECT_TRUE(c->status().ok()) << c->status().message();
  return out;
}

TYPED_TEST_P(StoreConformanceTest, MappedScansReadEachMappedValue) {
  this->fill(MappedSample::model());
  const KeyMapping mapping = MappedSample::mapping();
  const Bytes i = MappedSample::str("i");
  const Bytes g3 = cat(i, MappedSample::str("g3"));
  const KeyRange ranges[] = {
      KeyRange{i, cat(i, "\xff")},                       // every entry
      KeyRange{g3, cat(g3, "\xff")},                     // one group, with rowless entries
      KeyRange{MappedSample::entry(2, 30), MappedSample::entry(5, 12)},
      KeyRange{"", ""},                                  // rows too: they map to nothing
      KeyRange{cat(i, "\x03"), cat(i, "\x04")},          // empty
      KeyRange{g3, i},                                   // inverted
  };
  for (bool reverse : {false, true}) {
    for (uint64_t limit : {0, 1, 4}) {
      const ScanOptions o{reverse, limit, /*keys_only=*/true};  // ignored by mapped scans
      std::unique_ptr<Cursor> reused;
      for (const KeyRange& r : ranges) {
        SCOPED_TRACE(show(r, o));
        const KvPairs want = model_mapped_scan(this->model_, r, o, mapping);
        auto c = this->store()->scan_mapped(r, o, mapping);
        ASSERT_TRUE(c.ok()) << c.status().message();
        ASSERT_TRUE(same_pairs(drain_mapped(c->get()), want));
        // A rescan keeps the mapping.
        if (reused == nullptr) {
          reused = std::move(c).value();
        } else {
          TUPLEKV_ASSERT_OK(reused->rescan(r));
          ASSERT_TRUE(same_pairs(drain_mapped(reused.get()), want)) << "rescan";
        }
      }
    }
  }
  // The mapping is copied: the caller's may go away.
  auto c = [&] {
    KeyMapping temporary = MappedSample::mapping();
    return this->store()->scan_mapped(ranges[1], {}, temporary);
  }();
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(same_pairs(drain_mapped(c->get()), model_mapped_scan(this->model_, ranges[1], {}, mapping)));
}

TYPED_TEST_P(StoreConformanceTest, MappedScanSeesWritesBetweenSteps) {
  this->fill(MappedSample::model());
  const KeyMapping mapping = MappedSample::mapping();
  const Bytes i = MappedSample::str("i");
  const KeyRange r{i, cat(i, "\xff")};
  for (bool reverse : {false, true}) {
    const ScanOptions o{reverse, 0, false};
    auto c = this->store()->scan_mapped(r, o, mapping);
    ASSERT_TRUE(c.ok());
    Cursor* cur = c->get();
    int step = 0;
    Bytes mapped;
    while (cur->valid()) {
      const Bytes key(cur->key());
      SCOPED_TRACE(show(key));
      // The value read is the model's as it is now.
      auto it = map_key(mapping, key, &mapped) ? this->model_.find(mapped) : this->model_.end();
      ASSERT_EQ(cur->mapped_found(), it != this->model_.end());
      if (it != this->model_.end()) {
        ASSERT_EQ(Bytes(cur->value()), it->second);
      }
      // Rewrite rows ahead of and behind the scan: every row's value
      // changes, one in four is removed, and entries come and go.
      ++step;
      const int pk = 1 + (step * 13) % 60;
      if (step % 4 == 0) {
        this->clear(MappedSample::row(pk));
      } else {
        this->set(MappedSample::row(pk), cat("new", std::to_string(step)));
      }
      if (step % 5 == 0) this->set(MappedSample::entry(pk % 7, pk), "");
      cur->next();
      ASSERT_LT(step, 500) << "the scan does not end";
    }
    TUPLEKV_ASSERT_OK(cur->status());
    EXPECT_GE(step, 60);
  }
}

// version() says whether the pairs may have changed: the same across reads,
// moved by each write that changes one.
TYPED_TEST_P(StoreConformanceTest, VersionMovesWithEveryWrite) {
  this->fill(edge_sample());
  OrderedStore* store = this->store();
  uint64_t seen = store->version();
  const auto moved = [&] {
    const uint64_t now = store->version();
    const bool m = now != seen;
    seen = now;
    return m;
  };
  Bytes v;
  bool found = false;
  TUPLEKV_ASSERT_OK(store->get("a", &v, &found));
  {
    auto c = store->scan(KeyRange{Bytes(), Bytes()}, ScanOptions());
    ASSERT_TRUE(c.ok());
    while ((*c)->valid()) (*c)->next();
  }
  EXPECT_FALSE(moved()) << "reads";
  this->set("a", "new");
  EXPECT_TRUE(moved()) << "set";
  bool inserted = false;
  TUPLEKV_ASSERT_OK(store->insert("inserted", "1", &inserted));
  ASSERT_TRUE(inserted);
  this->model_["inserted"] = "1";
  EXPECT_TRUE(moved()) << "insert";
  this->clear("b");
  EXPECT_TRUE(moved()) << "clear";
  this->clear_range("c", "");
  EXPECT_TRUE(moved()) << "clear_range";
  EXPECT_TRUE(this->matches_model());
}

REGISTER_TYPED_TEST_SUITE_P(StoreConformanceTest, GetSetClear, EmptyKeysAndValues,
                            UnsignedByteOrder, LargeKeysAndValues, ClearRangeEveryEdge,
                            ClearRangeEmptyInvertedAndUnbounded, ClearRangeOfManyKeys,
                            EveryScanShape, ScansOfAnEmptyStore,
                            RescanIsAFreshScanWithTheSameOptions,
                            ViewsStayValidWhileOtherCursorsMove, ForwardCursorSurvivesWrites,
                            ReverseCursorSurvivesWrites, CursorLimitCountsRowsAcrossWrites,
                            ManyCursorsSurviveWrites, ViewsTakenBeforeAWriteStayValid,
                            RandomWritesDuringScans,
                            RandomOperationsMatchTheModel, MappedScansReadEachMappedValue,
                            MappedScanSeesWritesBetweenSteps, VersionMovesWithEveryWrite);

// ---------------------------------------------------------------------------
// Transactions and savepoints (core/store.h):
//   begin()          a transaction starts; writes after it can be undone
//   commit()         keep every write since begin()
//   rollback()       undo every write since begin()
//   savepoint(n)     mark the state as savepoint n; marking n discards marks >= n
//   release(n)       forget savepoints >= n, keeping their writes
//   rollback_to(n)   undo every write since savepoint n (or, if n was never
//                    marked, since the lowest mark above n); n stays valid,
//                    marks above it are gone
// rollback_to(n) with no mark >= n is left to each store; nothing here
// calls it.

// The model of a transaction: the state at begin() and at each mark.
class TxnModel {
 public:
  explicit TxnModel(StoreModel* data) : data_(data) {}

  bool in_transaction() const { return in_transaction_; }
  void begin() {
    in_transaction_ = true;
    at_begin_ = *data_;
    marks_.clear();
  }
  void commit() {
    in_transaction_ = false;
    marks_.clear();
  }
  void rollback() {
    *data_ = at_begin_;
    commit();
  }
  void savepoint(int n) {
    drop_from(n);
    marks_.emplace_back(n, *data_);
  }
  void release(int n) { drop_from(n); }
  bool can_rollback_to(int n) const {
    return !marks_.empty() && marks_.back().first >= n;
  }
  void rollback_to(int n) {
    size_t k = 0;
    while (marks_[k].first < n) ++k;
    *data_ = marks_[k].second;
    marks_.resize(k + 1);
    marks_[k].first = n;
  }
  std::vector<int> levels() const {
    std::vector<int> out;
    for (const auto& m : marks_) out.push_back(m.first);
    return out;
  }

 private:
  void drop_from(int n) {
    while (!marks_.empty() && marks_.back().first >= n) marks_.pop_back();
  }

  StoreModel* data_;
  bool in_transaction_ = false;
  StoreModel at_begin_;
  std::vector<std::pair<int, StoreModel>> marks_;  // ascending levels
};

TYPED_TEST_P(StoreTransactionTest, CommitKeepsAndRollbackUndoes) {
  this->fill(edge_sample());
  const StoreModel before = this->model_;
  TUPLEKV_ASSERT_OK(this->store()->begin());
  this->set("new", "1");
  this->set("a", "changed");
  this->set("a", "changed twice");
  this->set("big", Bytes(100000, 'b'));
  this->clear("b");
  this->clear("absent");
  this->clear_range("b\x80", "");
  this->set("new", "2");
  this->set("\xff", "back inside the cleared range");
  EXPECT_TRUE(this->matches_model());
  TUPLEKV_ASSERT_OK(this->store()->rollback());
  this->model_ = before;
  EXPECT_TRUE(this->matches_model());

  TUPLEKV_ASSERT_OK(this->store()->begin());
  this->set("kept", "1");
  this->clear("a");
  this->clear_range("", "a");
  TUPLEKV_ASSERT_OK(this->store()->commit());
  EXPECT_TRUE(this->matches_model());
  // A later transaction's rollback goes back to the commit, no further.
  const StoreModel committed = this->model_;
  TUPLEKV_ASSERT_OK(this->store()->begin());
  this->clear_range("", "");
  this->set("only", "");
  TUPLEKV_ASSERT_OK(this->store()->rollback());
  this->model_ = committed;
  EXPECT_TRUE(this->matches_model());
}

TYPED_TEST_P(StoreTransactionTest, WritesOutsideATransactionStay) {
  this->set("a", "1");
  this->clear("a");
  this->set("b", "2");
  TUPLEKV_ASSERT_OK(this->store()->begin());
  this->set("c", "3");
  TUPLEKV_ASSERT_OK(this->store()->rollback());
  this->model_.erase("c");
  EXPECT_TRUE(this->matches_model());
  EXPECT_EQ(this->model_.size(), 1u);
}

TYPED_TEST_P(StoreTransactionTest, NestedSavepoints) {
  this->set("base", "0");
  TUPLEKV_ASSERT_OK(this->store()->begin());
  this->set("t", "in transaction");
  const StoreModel s0 = this->model_;
  TUPLEKV_ASSERT_OK(this->store()->savepoint(0));
  this->set("a", "1");
  this->clear("base");
  const StoreModel s1 = this->model_;
  TUPLEKV_ASSERT_OK(this->store()->savepoint(1));
  this->set("a", "2");
  this->set("b", "2");
  const StoreModel s2 = this->model_;
  TUPLEKV_ASSERT_OK(this->store()->savepoint(2));
  this->clear_range("", "");
  this->set("c", "3");
  EXPECT_TRUE(this->matches_model());

  TUPLEKV_ASSERT_OK(this->store()->rollback_to(2));
  this->model_ = s2;
  EXPECT_TRUE(this->matches_model());
  // Savepoint 2 stays valid: writes after it undo again.
  this->set("d", "4");
  TUPLEKV_ASSERT_OK(this->store()->rollback_to(2));
  this->model_ = s2;
  EXPECT_TRUE(this->matches_model());
  // And it is still valid with nothing to undo.
  TUPLEKV_ASSERT_OK(this->store()->rollback_to(2));
  EXPECT_TRUE(this->matches_model());

  TUPLEKV_ASSERT_OK(this->store()->rollback_to(1));  // 2 is gone with it
  this->model_ = s1;
  EXPECT_TRUE(this->matches_model());
  this->set("e", "5");
  TUPLEKV_ASSERT_OK(this->store()->rollback_to(0));
  this->model_ = s0;
  EXPECT_TRUE(this->matches_model());
  this->set("f", "6");
  TUPLEKV_ASSERT_OK(this->store()->commit());
  EXPECT_TRUE(this->matches_model());
}

TYPED_TEST_P(StoreTransactionTest, ReleaseKeepsWritesAndForgetsMarks) {
  TUPLEKV_ASSERT_OK(this->store()->begin());
  const StoreModel s0 = this->model_;
  TUPLEKV_ASSERT_OK(this->store()->savepoint(0));
  this->set("a", "1");
  TUPLEKV_ASSERT_OK(this->store()->savepoint(1));
  this->set("b", "2");
  TUPLEKV_ASSERT_OK(this->store()->savepoint(2));
  this->set("c", "3");
  TUPLEKV_ASSERT_OK(this->store()->release(2));
  EXPECT_TRUE(this->matches_model());  // release undoes nothing
  // Savepoint 1 is still there; 2 is forgotten, so rolling back to 1
  // undoes b and c.
  TUPLEKV_ASSERT_OK(this->store()->rollback_to(1));
  this->model_.erase("b");
  this->model_.erase("c");
  EXPECT_TRUE(this->matches_model());
  // release(1) forgets 1 and everything above; 0 remains.
  this->set("d", "4");
  TUPLEKV_ASSERT_OK(this->store()->savepoint(2));
  this->set("e", "5");
  TUPLEKV_ASSERT_OK(this->store()->release(1));
  EXPECT_TRUE(this->matches_model());
  TUPLEKV_ASSERT_OK(this->store()->rollback_to(0));
  this->model_ = s0;
  EXPECT_TRUE(this->matches_model());
  // A released level is really gone: with marks {2} released and 3 marked
  // later, rollback_to(1) goes back to 3, the lowest mark above 1, not 2.
  TUPLEKV_ASSERT_OK(this->store()->savepoint(2));
  this->set("y", "kept: written before the released mark was forgotten");
  TUPLEKV_ASSERT_OK(this->store()->release(2));
  TUPLEKV_ASSERT_OK(this->store()->savepoint(3));
  const StoreModel at3 = this->model_;
  this->set("z", "undone");
  TUPLEKV_ASSERT_OK(this->store()->rollback_to(1));
  this->model_ = at3;
  EXPECT_TRUE(this->matches_model());
  // Released writes commit.
  TUPLEKV_ASSERT_OK(this->store()->savepoint(0));
  this->set("x", "kept");
  TUPLEKV_ASSERT_OK(this->store()->release(0));
  TUPLEKV_ASSERT_OK(this->store()->commit());
  EXPECT_TRUE(this->matches_model());
}

TYPED_TEST_P(StoreTransactionTest, MarkingALevelAgainDiscardsHigherMarks) {
  TUPLEKV_ASSERT_OK(this->store()->begin());
  TUPLEKV_ASSERT_OK(this->store()->savepoint(0));
  this->set("a", "1");
  TUPLEKV_ASSERT_OK(this->store()->savepoint(1));
  this->set("b", "2");
  TUPLEKV_ASSERT_OK(this->store()->savepoint(2));
  this->set("c", "3");
  const StoreModel at_new_mark = this->model_;
  TUPLEKV_ASSERT_OK(this->store()->savepoint(1));  // discards the old 1 and 2
  this->set("d", "4");
  this->clear("a");
  TUPLEKV_ASSERT_OK(this->store()->rollback_to(1));
  this->model_ = at_new_mark;
  EXPECT_TRUE(this->matches_model());
  TUPLEKV_ASSERT_OK(this->store()->rollback_to(0));
  this->model_.clear();
  EXPECT_TRUE(this->matches_model());
  TUPLEKV_ASSERT_OK(this->store()->rollback());
  EXPECT_TRUE(this->matches_model());
}

TYPED_TEST_P(StoreTransactionTest, RollbackToAnUnmarkedLevelUsesTheLowestMarkAbove) {
  // As when a table joins a transaction inside nested savepoints: its first
  // mark is at the current level, and rolling back to an outer level
  // undoes everything since that mark.
  this->set("before", "0");
  TUPLEKV_ASSERT_OK(this->store()->begin());
  TUPLEKV_ASSERT_OK(this->store()->savepoint(3));
  this->set("a", "1");
  TUPLEKV_ASSERT_OK(this->store()->savepoint(5));
  this->set("b", "2");
  TUPLEKV_ASSERT_OK(this->store()->rollback_to(1));  // 1 never marked: since mark 3
  this->model_.erase("a");
  this->model_.erase("b");
  EXPECT_TRUE(this->matches_model());
  // Savepoint 1 now exists; 3 and 5 are gone.
  this->set("c", "3");
  TUPLEKV_ASSERT_OK(this->store()->savepoint(2));
  this->set("d", "4");
  TUPLEKV_ASSERT_OK(this->store()->rollback_to(1));
  this->model_.erase("c");
  this->model_.erase("d");
  EXPECT_TRUE(this->matches_model());
  // A gap: marks 0 and 4, rollback_to(2) goes to 4.
  TUPLEKV_ASSERT_OK(this->store()->savepoint(0));
  this->set("e", "5");
  TUPLEKV_ASSERT_OK(this->store()->savepoint(4));
  const StoreModel at4 = this->model_;
  this->set("f", "6");
  TUPLEKV_ASSERT_OK(this->store()->rollback_to(2));
  this->model_ = at4;
  EXPECT_TRUE(this->matches_model());
  TUPLEKV_ASSERT_OK(this->store()->commit());
  EXPECT_TRUE(this->matches_model());
}

TYPED_TEST_P(StoreTransactionTest, UndoMovesOpenCursorsCorrectly) {
  for (const char* k : {"a", "b", "c", "d", "e"}) this->set(k, cat("v", k));
  TUPLEKV_ASSERT_OK(this->store()->begin());
  TUPLEKV_ASSERT_OK(this->store()->savepoint(0));
  this->set("bb", "new");
  this->clear("c");
  auto fwd = this->open(KeyRange{});
  auto rev = this->open(KeyRange{}, ScanOptions{true, 0, false});
  fwd->next();  // b
  fwd->next();  // bb
  ASSERT_EQ(fwd->key(), "bb");
  rev->next();  // d
  ASSERT_EQ(rev->key(), "d");
  TUPLEKV_ASSERT_OK(this->store()->rollback_to(0));  // bb gone, c back
  this->model_.erase("bb");
  this->model_["c"] = "vc";
  EXPECT_EQ(fwd->key(), "bb");
  EXPECT_EQ(fwd->value(), "new");
  fwd->next();
  ASSERT_TRUE(fwd->valid());
  EXPECT_EQ(fwd->key(), "c");
  EXPECT_EQ(fwd->value(), "vc");
  rev->next();
  ASSERT_TRUE(rev->valid());
  EXPECT_EQ(rev->key(), "c");
  this->set("cc", "x");
  TUPLEKV_ASSERT_OK(this->store()->rollback());
  this->model_.erase("cc");
  fwd->next();
  ASSERT_TRUE(fwd->valid());
  EXPECT_EQ(fwd->key(), "d");
  rev->next();
  ASSERT_TRUE(rev->valid());
  EXPECT_EQ(rev->key(), "b");
  EXPECT_TRUE(this->matches_model());
}

// SQLite's call order for a statement inside nested savepoints: join with
// begin() and a mark at the current level, a statement savepoint per
// statement, released on success and rolled back on failure.
TYPED_TEST_P(StoreTransactionTest, SqliteCallOrder) {
  this->set("k0", "committed");
  TUPLEKV_ASSERT_OK(this->store()->begin());
  TUPLEKV_ASSERT_OK(this->store()->savepoint(1));  // joined inside SAVEPOINT a, b
  const StoreModel at_join = this->model_;
  // Statement 1 succeeds.
  TUPLEKV_ASSERT_OK(this->store()->savepoint(2));
  this->set("k1", "1");
  TUPLEKV_ASSERT_OK(this->store()->release(2));
  // Statement 2 fails halfway and is undone alone.
  const StoreModel before_2 = this->model_;
  TUPLEKV_ASSERT_OK(this->store()->savepoint(2));
  this->set("k2", "2");
  this->clear("k1");
  TUPLEKV_ASSERT_OK(this->store()->rollback_to(2));
  TUPLEKV_ASSERT_OK(this->store()->release(2));
  this->model_ = before_2;
  EXPECT_TRUE(this->matches_model());
  // ROLLBACK TO a (level 0): the table joined after it, so all its writes go.
  TUPLEKV_ASSERT_OK(this->store()->rollback_to(0));
  this->model_ = at_join;
  EXPECT_TRUE(this->matches_model());
  this->set("k3", "3");
  TUPLEKV_ASSERT_OK(this->store()->release(0));
  TUPLEKV_ASSERT_OK(this->store()->commit());
  EXPECT_TRUE(this->matches_model());
}

TYPED_TEST_P(StoreTransactionTest, RandomTransactionsMatchTheModel) {
  for (uint64_t seed : test_seeds({21, 22, 23})) {
    SCOPED_TRACE(cat("seed ", std::to_string(seed)));
    RandomKv rnd(seed);
    this->clear_range("", "");
    this->model_.clear();
    TxnModel txn(&this->model_);
    std::vector<std::string> log;  // recent operations, printed on failure
    auto note = [&](std::string s) {
      log.push_back(std::move(s));
      if (log.size() > 40) log.erase(log.begin());
    };
    auto recent = [&] {
      std::string s;
      for (const auto& l : log) s += cat("\n  ", l);
      return s;
    };
    for (int step = 0; step < 4000 && !this->HasFailure(); ++step) {
      const uint64_t pick = rnd.below(100);
      bool compare = step % 50 == 49;
      if (pick < 45) {
        const Bytes k = rnd.key();
        note(cat("set ", show(k)));
        this->set(k, rnd.value());
      } else if (pick < 60) {
        const Bytes k = rnd.key();
        note(cat("clear ", show(k)));
        this->clear(k);
      } else if (pick < 66) {
        const auto [b, e] = rnd.range();
        note(cat("clear_range ", show(b), " ", show(e)));
        this->clear_range(b, e);
      } else if (!txn.in_transaction()) {
        if (pick < 90) {
          note("begin");
          TUPLEKV_ASSERT_OK(this->store()->begin());
          txn.begin();
        }
      } else {
        compare = true;
        const int n = static_cast<int>(rnd.below(5));
        if (pick < 74) {
          note(cat("savepoint ", std::to_string(n)));
          TUPLEKV_ASSERT_OK(this->store()->savepoint(n));
          txn.savepoint(n);
        } else if (pick < 79) {
          note(cat("release ", std::to_string(n)));
          TUPLEKV_ASSERT_OK(this->store()->release(n));
          txn.release(n);
        } else if (pick < 89) {
          if (!txn.can_rollback_to(n)) continue;
          note(cat("rollback_to ", std::to_string(n)));
          TUPLEKV_ASSERT_OK(this->store()->rollback_to(n));
          txn.rollback_to(n);
        } else if (pick < 95) {
          note("commit");
          TUPLEKV_ASSERT_OK(this->store()->commit());
          txn.commit();
        } else {
          note("rollback");
          TUPLEKV_ASSERT_OK(this->store()->rollback());
          txn.rollback();
        }
      }
      if (compare) {
        TUPLEKV_ASSERT_OK(this->self_check());
        ASSERT_TRUE(this->matches_model()) << "step " << step << ", recent operations:" << recent();
      }
    }
    if (txn.in_transaction()) {
      TUPLEKV_ASSERT_OK(this->store()->rollback());
      txn.rollback();
    }
    ASSERT_TRUE(this->matches_model()) << recent();
  }
}

// Undoing writes changes pairs too: a reader that kept one must see it.
TYPED_TEST_P(StoreTransactionTest, VersionMovesWithEveryUndo) {
  this->fill(edge_sample());
  OrderedStore* store = this->store();
  TUPLEKV_ASSERT_OK(store->begin());
  TUPLEKV_ASSERT_OK(store->savepoint(0));
  this->set("a", "changed");
  uint64_t before = store->version();
  TUPLEKV_ASSERT_OK(store->rollback_to(0));
  EXPECT_NE(store->version(), before) << "rollback_to";
  this->set("b", "changed");
  before = store->version();
  TUPLEKV_ASSERT_OK(store->rollback());
  EXPECT_NE(store->version(), before) << "rollback";
}

REGISTER_TYPED_TEST_SUITE_P(StoreTransactionTest, CommitKeepsAndRollbackUndoes,
                            WritesOutsideATransactionStay, NestedSavepoints,
                            ReleaseKeepsWritesAndForgetsMarks,
                            MarkingALevelAgainDiscardsHigherMarks,
                            RollbackToAnUnmarkedLevelUsesTheLowestMarkAbove,
                            UndoMovesOpenCursorsCorrectly, SqliteCallOrder,
                            RandomTransactionsMatchTheModel, VersionMovesWithEveryUndo);

}  // namespace tuplekv::testing

#endif  // TUPLEKV_TESTS_STORE_CONFORMANCE_H_
