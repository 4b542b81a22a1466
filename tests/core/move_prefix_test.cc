#include "core/move_prefix.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/memory_store.h"
#include "core/subspace.h"
#include "core/tuple.h"

namespace tuplekv {
namespace {

Bytes prefix_of(const std::string& name) {
  return Subspace::make({TupleValue::string(name)})->key();
}

std::vector<std::pair<Bytes, Bytes>> everything(OrderedStore* store) {
  std::vector<std::pair<Bytes, Bytes>> out;
  auto c = store->scan(KeyRange{Bytes(), Bytes()}, ScanOptions());
  EXPECT_TRUE(c.ok());
  for (; (*c)->valid(); (*c)->next()) out.emplace_back(Bytes((*c)->key()), Bytes((*c)->value()));
  EXPECT_TRUE((*c)->status().ok());
  return out;
}

TEST(MovePrefix, MovesEveryKeyAndLeavesNeighboursAlone) {
  MemoryStore store;
  const Bytes a = prefix_of("a"), ab = prefix_of("ab"), b = prefix_of("b"), z = prefix_of("z");
  // ("ab",) sorts right after every ("a", ...) key: it must stay.
  ASSERT_TRUE(store.set(a + "\x15\x01", "1").ok());
  ASSERT_TRUE(store.set(a + "\x15\x02", "2").ok());
  ASSERT_TRUE(store.set(ab + "\x15\x01", "ab").ok());
  ASSERT_TRUE(store.set(b + "\x15\x01", "b").ok());
  ASSERT_TRUE(move_prefix(&store, a, z).ok());
  const std::vector<std::pair<Bytes, Bytes>> expected = {
      {ab + "\x15\x01", "ab"}, {b + "\x15\x01", "b"}, {z + "\x15\x01", "1"}, {z + "\x15\x02", "2"}};
  EXPECT_EQ(everything(&store), expected);
}

TEST(MovePrefix, MovingDownwardsDoesNotMeetItsOwnWrites) {
  MemoryStore store;
  const Bytes from = prefix_of("m"), to = prefix_of("c");
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(store.set(from + std::string(1, static_cast<char>(0x15)) +
                              std::string(1, static_cast<char>(i)),
                          std::to_string(i))
                    .ok());
  }
  ASSERT_TRUE(move_prefix(&store, from, to).ok());
  const auto all = everything(&store);
  ASSERT_EQ(all.size(), 100u);
  for (const auto& [k, v] : all) EXPECT_EQ(k.substr(0, to.size()), to);
}

TEST(MovePrefix, RollsBackWithTheTransaction) {
  MemoryStore store;
  const Bytes from = prefix_of("t"), to = prefix_of("u");
  ASSERT_TRUE(store.set(from + "\x15\x01", "x").ok());
  ASSERT_TRUE(store.begin().ok());
  ASSERT_TRUE(move_prefix(&store, from, to).ok());
  ASSERT_TRUE(store.rollback().ok());
  EXPECT_EQ(everything(&store), (std::vector<std::pair<Bytes, Bytes>>{{from + "\x15\x01", "x"}}));
}

// A key the longer prefix would take past max_key stops the move; the
// caller's transaction undoes what was moved. A key exactly at the bound
// moves.
TEST(MovePrefix, AKeyPastMaxKeyUnderTheNewPrefixIsTooBig) {
  MemoryStore store;
  const Bytes from = prefix_of("t"), to = prefix_of("tt");  // 3 and 4 bytes
  ASSERT_TRUE(store.set(from + "\x01" + std::string(15, 'x'), "a").ok());  // 19 bytes, 20 moved
  ASSERT_TRUE(store.set(from + "\x02" + std::string(16, 'x'), "b").ok());  // 20 bytes, 21 moved
  const auto before = everything(&store);
  ASSERT_TRUE(store.begin().ok());
  const Status s = move_prefix(&store, from, to, 20);
  EXPECT_EQ(s.code(), StatusCode::kTooBig);
  EXPECT_EQ(s.message(), "a key would be 21 bytes with the new prefix");
  ASSERT_TRUE(store.rollback().ok());
  EXPECT_EQ(everything(&store), before);
  // 0 is no bound; a moved key at the bound is fine.
  ASSERT_TRUE(move_prefix(&store, from, to, 0).ok());
  ASSERT_TRUE(move_prefix(&store, to, from, 20).ok());
  EXPECT_EQ(everything(&store), before);
}

TEST(MovePrefix, EmptyRangeIsANoOp) {
  MemoryStore store;
  ASSERT_TRUE(store.set(prefix_of("other"), "v").ok());
  ASSERT_TRUE(move_prefix(&store, prefix_of("none"), prefix_of("dest")).ok());
  EXPECT_EQ(everything(&store).size(), 1u);
}

}  // namespace
}  // namespace tuplekv
