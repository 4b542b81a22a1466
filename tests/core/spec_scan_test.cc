// core/spec_scan: plain specs read exactly their ranges; every key a
// skip-scan returns is one a plain scan with a filter returns, in the same
// order, for first elements of every kind; filter specs return the same in
// one pass.
#include "core/spec_scan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/memory_store.h"
#include "core/subspace.h"
#include "core/tuple.h"

namespace tuplekv {
namespace {

Bytes prefix_of(const std::string& name) {
  return Subspace::make({TupleValue::string(name)})->key();
}

Bytes element(const TupleValue& v) {
  Bytes out;
  EXPECT_TRUE(pack_element(v, &out).ok());
  return out;
}

// First elements that stress the group search: escapes inside strings and
// bytes, prefixes of one another, big integers and nested tuples (which
// the quick sizing leaves to the full decoder).
std::vector<Bytes> first_elements() {
  Tuple nested;
  nested.push_back(TupleValue::int64(1));
  nested.push_back(TupleValue::null());
  Result<BigInt> big = BigInt::from_decimal("123456789012345678901234567890");
  EXPECT_TRUE(big.ok());
  return {element(TupleValue::null()),
          element(TupleValue::bytes("")),
          element(TupleValue::bytes(Bytes("\x00", 1))),
          element(TupleValue::bytes(Bytes("\x00\xff", 2))),
          element(TupleValue::string("a")),
          element(TupleValue::string(Bytes("a\x00" "b", 3))),
          element(TupleValue::string("ab")),
          element(TupleValue::nested(nested)),
          element(TupleValue::int64(-1)),
          element(TupleValue::int64(0)),
          element(TupleValue::int64(300)),
          element(TupleValue::int64(int64_t{1} << 40)),
          element(TupleValue::integer(*big)),
          element(TupleValue::float64(2.5)),
          element(TupleValue::boolean(true))};
}

Bytes int_element(int64_t i) { return element(TupleValue::int64(i)); }

struct Fixture {
  MemoryStore store;
  Bytes prefix = prefix_of("t");
  std::vector<Bytes> keys;  // under prefix, sorted

  explicit Fixture(uint32_t seed) {
    std::mt19937 rng(seed);
    // Neighbours that a scan must never reach.
    EXPECT_TRUE(store.set(prefix_of("s") + int_element(1), "s").ok());
    EXPECT_TRUE(store.set(prefix_of("t2") + int_element(1), "t2").ok());
    std::set<Bytes> all;
    for (const Bytes& e0 : first_elements()) {
      if (rng() % 4 == 0) continue;  // some first elements are absent
      const int n = static_cast<int>(rng() % 6);
      for (int i = 0; i < n; ++i) {
        Bytes k = prefix + e0 + int_element(static_cast<int64_t>(rng() % 20));
        if (rng() % 3 == 0) k += element(TupleValue::string("x"));
        all.insert(k);
      }
    }
    keys.assign(all.begin(), all.end());
    for (const Bytes& k : keys) EXPECT_TRUE(store.set(k, "v" + k).ok());
  }
};

// The keys a skip-scan of `spec` must return: those whose part after the
// first element falls in one of the relative ranges.
std::vector<Bytes> expected_keys(const Fixture& f, const ScanSpec& spec) {
  std::vector<Bytes> out;
  for (const Bytes& k : f.keys) {
    TupleReader r(BytesView(k).substr(f.prefix.size()));
    EXPECT_TRUE(r.next());
    const BytesView rest = r.rest();
    for (size_t i = 0; i < spec.size(); ++i) {
      const KeyRange& rel = spec[i];
      const bool hit = spec.point ? rest == BytesView(rel.begin)
                                  : compare_bytes(rest, rel.begin) >= 0 &&
                                        (rel.end.empty() || compare_bytes(rest, rel.end) < 0);
      if (hit) {
        out.push_back(k);
        break;
      }
    }
  }
  if (spec.reverse) std::reverse(out.begin(), out.end());
  return out;
}

// A skip spec with one relative range [begin, end).
ScanSpec skip_spec(Bytes begin, Bytes end) {
  ScanSpec spec;
  spec.skip = true;
  KeyRange& r = spec.add();
  r.begin = std::move(begin);
  r.end = std::move(end);
  return spec;
}

// A skip spec with random direction, point or not, and disjoint relative
// ranges in order over the second element, 0..19 (some from the group's
// start or to its end).
ScanSpec random_skip_spec(std::mt19937& rng) {
  ScanSpec spec;
  spec.skip = true;
  spec.reverse = rng() % 2 == 0;
  spec.point = rng() % 3 == 0;
  int at = static_cast<int>(rng() % 5);
  while (at < 20) {
    KeyRange& r = spec.add();
    const int len = 1 + static_cast<int>(rng() % 4);
    r.begin = !spec.point && at == 0 && rng() % 2 == 0 ? Bytes() : int_element(at);
    if (spec.point) {
      r.end = r.begin + "\xff";
    } else if (at + len >= 20 && rng() % 2 == 0) {
      r.end.clear();  // to the end of the group
    } else {
      r.end = int_element(at + len);
    }
    at += len + 1 + static_cast<int>(rng() % 4);
  }
  return spec;
}

std::vector<Bytes> scan_keys(Fixture& f, const ScanSpec& spec, uint64_t* seeks = nullptr) {
  SpecScan scan;
  std::vector<Bytes> out;
  Status s = scan.start(&f.store, f.prefix, &spec, false);
  EXPECT_TRUE(s.ok()) << s.message();
  while (s.ok() && scan.valid()) {
    out.emplace_back(scan.key());
    EXPECT_EQ(scan.value(), "v" + out.back());
    s = scan.next();
    EXPECT_TRUE(s.ok()) << s.message();
  }
  if (seeks != nullptr) *seeks = scan.seeks();
  return out;
}

// Plain specs: absolute ranges, point keys, both directions; one seek per
// range or key.
TEST(SpecScanPlainTest, ReadsExactlyItsRangesInOrder) {
  Fixture f(11);
  ASSERT_GT(f.keys.size(), 6u);
  const Bytes& a = f.keys[1];
  const Bytes& b = f.keys[3];
  const Bytes& c = f.keys[5];
  ScanSpec spec;
  KeyRange& first = spec.add();
  first.begin = a;
  first.end = b;  // keys[1], keys[2]
  KeyRange& second = spec.add();
  second.begin = c;
  second.end = f.prefix + "\xff";  // keys[5] to the end of the subspace
  std::vector<Bytes> expected = {f.keys[1], f.keys[2]};
  expected.insert(expected.end(), f.keys.begin() + 5, f.keys.end());
  uint64_t seeks = 0;
  EXPECT_EQ(scan_keys(f, spec, &seeks), expected);
  EXPECT_EQ(seeks, 2u);
  spec.reverse = true;
  std::reverse(expected.begin(), expected.end());
  EXPECT_EQ(scan_keys(f, spec), expected);

  ScanSpec points;
  points.point = true;
  for (const Bytes& k : {f.keys[0], f.prefix + int_element(12345), f.keys[4]}) {
    KeyRange& r = points.add();
    r.begin = k;
    r.end = k + "\xff";
  }
  EXPECT_EQ(scan_keys(f, points, &seeks), (std::vector<Bytes>{f.keys[0], f.keys[4]}));
  EXPECT_EQ(seeks, 3u);  // the absent key costs its lookup too
  EXPECT_TRUE(scan_keys(f, ScanSpec()).empty());
}

// A scan restarted with another spec (as a cursor is by each xFilter) forgets
// the previous one, also across a switch between plain and skip.
TEST(SpecScanPlainTest, RestartsCleanly) {
  Fixture f(12);
  ScanSpec all;
  KeyRange& r = all.add();
  r.begin = f.prefix;
  r.end = f.prefix + "\xff";
  const ScanSpec skip_all = skip_spec(Bytes(), Bytes());
  SpecScan scan;
  for (const ScanSpec* spec : std::vector<const ScanSpec*>{&all, &skip_all, &all}) {
    ASSERT_TRUE(scan.start(&f.store, f.prefix, spec, false).ok());
    ASSERT_TRUE(scan.valid());
    ASSERT_TRUE(scan.next().ok());  // part way only
  }
  std::vector<Bytes> rest;
  ASSERT_TRUE(scan.start(&f.store, f.prefix, &skip_all, true).ok());
  while (scan.valid()) {
    rest.emplace_back(scan.key());
    ASSERT_TRUE(scan.next().ok());
  }
  EXPECT_EQ(rest, f.keys);
}

TEST(SpecScanSkipTest, MatchesAFilteredScanForRandomRanges) {
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    Fixture f(seed);
    std::mt19937 rng(seed * 7919);
    for (int round = 0; round < 10; ++round) {
      const ScanSpec spec = random_skip_spec(rng);
      SCOPED_TRACE("seed " + std::to_string(seed) + " round " + std::to_string(round));
      EXPECT_EQ(scan_keys(f, spec), expected_keys(f, spec));
    }
  }
}

TEST(SpecScanSkipTest, SeeksOncePerGroupPlusOncePerRange) {
  MemoryStore store;
  const Bytes prefix = prefix_of("t");
  for (int g = 0; g < 5; ++g) {
    for (int i = 0; i < 1000; ++i) {
      ASSERT_TRUE(store.set(prefix + int_element(g) + int_element(i), "").ok());
    }
  }
  const ScanSpec spec = skip_spec(int_element(500), int_element(503));
  SpecScan scan;
  ASSERT_TRUE(scan.start(&store, prefix, &spec, true).ok());
  int rows = 0;
  while (scan.valid()) {
    ++rows;
    ASSERT_TRUE(scan.next().ok());
  }
  EXPECT_EQ(rows, 15);
  // 5 groups found, 1 search that finds none, 5 ranges.
  EXPECT_EQ(scan.seeks(), 11u);
}

TEST(SpecScanSkipTest, AnEmptySpecOrStoreFindsNothing) {
  Fixture f(3);
  ScanSpec none;
  none.skip = true;
  EXPECT_TRUE(scan_keys(f, none).empty());
  MemoryStore empty;
  ScanSpec all;
  all.skip = true;
  all.add();  // [group start, group end)
  SpecScan scan;
  ASSERT_TRUE(scan.start(&empty, prefix_of("t"), &all, false).ok());
  EXPECT_FALSE(scan.valid());
  // The same spec over the fixture returns every key, forward and back.
  EXPECT_EQ(scan_keys(f, all), f.keys);
  all.reverse = true;
  std::vector<Bytes> back = f.keys;
  std::reverse(back.begin(), back.end());
  EXPECT_EQ(scan_keys(f, all), back);
}

TEST(SpecScanSkipTest, ContinuesAfterWritesBetweenSteps) {
  MemoryStore store;
  const Bytes prefix = prefix_of("t");
  for (int g = 0; g < 4; ++g) ASSERT_TRUE(store.set(prefix + int_element(g) + int_element(1), "").ok());
  const ScanSpec spec = skip_spec(int_element(1), int_element(2));
  SpecScan scan;
  ASSERT_TRUE(scan.start(&store, prefix, &spec, false).ok());
  std::vector<Bytes> seen;
  while (scan.valid()) {
    seen.emplace_back(scan.key());
    // Remove the row just read and the next group's, add a later one.
    ASSERT_TRUE(store.clear(seen.back()).ok());
    if (seen.size() == 1) {
      ASSERT_TRUE(store.clear(prefix + int_element(1) + int_element(1)).ok());
      ASSERT_TRUE(store.set(prefix + int_element(9) + int_element(1), "").ok());
    }
    ASSERT_TRUE(scan.next().ok());
  }
  const std::vector<Bytes> expected = {prefix + int_element(0) + int_element(1),
                                       prefix + int_element(2) + int_element(1),
                                       prefix + int_element(3) + int_element(1),
                                       prefix + int_element(9) + int_element(1)};
  EXPECT_EQ(seen, expected);
}

TEST(SpecScanSkipTest, UndecodableFirstElementsAreCorruption) {
  for (const Bytes& bad : {Bytes("\x03", 1), Bytes("\x02" "abc", 4), Bytes("\x15", 1)}) {
    MemoryStore store;
    const Bytes prefix = prefix_of("t");
    ASSERT_TRUE(store.set(prefix + bad, "").ok());
    ScanSpec spec;
    spec.skip = true;
    spec.add();
    SpecScan scan;
    EXPECT_EQ(scan.start(&store, prefix, &spec, false).code(), StatusCode::kCorruption);
    size_t n = 0;
    EXPECT_EQ(count_leading_elements(&store, prefix, 10, &n).code(), StatusCode::kCorruption);
  }
}

// Filter specs: the keys a skip-scan returns, read in one pass.
TEST(SpecScanFilterTest, MatchesTheSkipScanInOnePass) {
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    Fixture f(seed);
    std::mt19937 rng(seed * 104729);
    for (int round = 0; round < 10; ++round) {
      ScanSpec spec = random_skip_spec(rng);
      spec.filter = true;
      SCOPED_TRACE("seed " + std::to_string(seed) + " round " + std::to_string(round));
      uint64_t seeks = 0;
      const std::vector<Bytes> got = scan_keys(f, spec, &seeks);
      EXPECT_EQ(got, expected_keys(f, spec));
      EXPECT_EQ(seeks, 1u);
      spec.filter = false;
      EXPECT_EQ(got, scan_keys(f, spec));
    }
  }
}

// Mapped, a filter spec looks up only the keys it keeps.
TEST(SpecScanFilterTest, MapsOnlyTheKeysItKeeps) {
  MemoryStore store;
  const Bytes index = prefix_of("i");
  const Bytes rows = prefix_of("r");
  for (int g = 0; g < 50; ++g) {
    for (int j = 0; j < 4; ++j) {
      const Bytes row_key = int_element(g * 4 + j);
      ASSERT_TRUE(store.set(index + int_element(g) + int_element(j) + row_key, "").ok());
      ASSERT_TRUE(store.set(rows + row_key, "row" + std::to_string(g * 4 + j)).ok());
    }
  }
  ASSERT_TRUE(store.clear(rows + int_element(4 * 7 + 2)).ok());  // an entry without its row
  ScanSpec spec = skip_spec(int_element(2), int_element(3));
  spec.filter = true;
  KeyMapping mapping;
  mapping.from_prefix = index.size();
  mapping.skip = 2;
  mapping.to_prefix = rows;
  SpecScan scan;
  ASSERT_TRUE(scan.start(&store, index, &spec, false, &mapping).ok());
  int kept = 0;
  int found = 0;
  while (scan.valid()) {
    ++kept;
    if (scan.mapped_found()) {
      ++found;
      EXPECT_EQ(scan.value(), "row" + std::to_string((kept - 1) * 4 + 2));
    }
    ASSERT_TRUE(scan.next().ok());
  }
  EXPECT_EQ(kept, 50);
  EXPECT_EQ(found, 49);
  EXPECT_EQ(scan.seeks(), 51u);  // the pass, and one lookup per kept key
}

TEST(SpecScanFilterTest, UndecodableFirstElementsAreCorruption) {
  for (const Bytes& bad : {Bytes("\x03", 1), Bytes("\x02" "abc", 4), Bytes("\x15", 1)}) {
    MemoryStore store;
    const Bytes prefix = prefix_of("t");
    ASSERT_TRUE(store.set(prefix + bad, "").ok());
    ScanSpec spec;
    spec.skip = spec.filter = true;
    spec.add();
    SpecScan scan;
    EXPECT_EQ(scan.start(&store, prefix, &spec, false).code(), StatusCode::kCorruption);
  }
}

TEST(CountLeadingElementsTest, CountsDistinctFirstElementsUpToTheLimit) {
  Fixture f(5);
  std::set<Bytes> firsts;
  for (const Bytes& k : f.keys) {
    TupleReader r(BytesView(k).substr(f.prefix.size()));
    ASSERT_TRUE(r.next());
    firsts.emplace(r.raw());
  }
  ASSERT_GT(firsts.size(), 3u);
  size_t n = 0;
  ASSERT_TRUE(count_leading_elements(&f.store, f.prefix, 100, &n).ok());
  EXPECT_EQ(n, firsts.size());
  ASSERT_TRUE(count_leading_elements(&f.store, f.prefix, 2, &n).ok());
  EXPECT_EQ(n, 3u);  // stopped after the limit
  MemoryStore empty;
  ASSERT_TRUE(count_leading_elements(&empty, f.prefix, 2, &n).ok());
  EXPECT_EQ(n, 0u);
}

TEST(CountKeysTest, CountsTheKeysUnderThePrefixUpToTheLimit) {
  Fixture f(5);  // with neighbours under other prefixes on both sides
  ASSERT_GT(f.keys.size(), 3u);
  ASSERT_TRUE(f.store.set(f.prefix + "\xff", "").ok());  // no element: past the end
  size_t n = 99;
  ASSERT_TRUE(count_keys(&f.store, f.prefix, 1000000, &n).ok());
  EXPECT_EQ(n, f.keys.size());
  ASSERT_TRUE(count_keys(&f.store, f.prefix, 3, &n).ok());
  EXPECT_EQ(n, 3u);
  ASSERT_TRUE(count_keys(&f.store, f.prefix, 0, &n).ok());
  EXPECT_EQ(n, 0u);
}

}  // namespace
}  // namespace tuplekv
