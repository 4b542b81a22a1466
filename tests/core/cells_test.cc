// Cells over the memory store: exact key bytes of each layout, writes
// touching every order, row/column reads and clears, SQL-equal lookups
// (2 and 2.0), and the equality variants of core/model/sql_any.h.
#include "core/model/cells.h"

#include <gtest/gtest.h>

#include "core/memory_store.h"
#include "core/model/sql_any.h"

namespace tuplekv::model {
namespace {

const Bytes kS("\x02s\x00", 3);

std::string keys_of(MemoryStore& store) {
  std::string out;
  auto c = store.scan(KeyRange{"", ""}, ScanOptions());
  for (; (*c)->valid(); (*c)->next()) out += to_hex((*c)->key()) + "=" + to_hex((*c)->value()) + " ";
  return out;
}

TEST(CellsTest, KeyBytesPerLayout) {
  const TupleValue row = TupleValue::int64(1), col = TupleValue::string("A");
  for (auto [layout, expected] :
       {std::pair{CellsLayout::kRow, std::string("0273001501024100=1507 ")},
        std::pair{CellsLayout::kColumn, std::string("0273000241001501=1507 ")},
        std::pair{CellsLayout::kBoth,
                  std::string("027300" "02636f6c5f69647800" "0241001501=1507 "
                              "027300" "02726f775f69647800" "1501024100=1507 ")}}) {
    MemoryStore store;
    Cells cells(&store, *CellsKeys::make(kS, layout));
    ASSERT_TRUE(cells.set(row, col, TupleValue::int64(7)).ok());
    EXPECT_EQ(keys_of(store), expected) << cells_layout_name(layout);
    ASSERT_TRUE(cells.clear(row, col).ok());
    EXPECT_EQ(keys_of(store), "");
  }
}

TEST(CellsTest, ReadAndClearLinesInEveryLayout) {
  for (CellsLayout layout : {CellsLayout::kRow, CellsLayout::kColumn, CellsLayout::kBoth}) {
    MemoryStore store;
    Cells cells(&store, *CellsKeys::make(kS, layout));
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 3; ++c) {
        ASSERT_TRUE(cells.set(TupleValue::int64(r), TupleValue::int64(c), TupleValue::int64(r * 10 + c)).ok());
      }
    }
    std::vector<std::pair<TupleValue, TupleValue>> line;
    ASSERT_TRUE(cells.read_row(TupleValue::int64(1), &line).ok());
    ASSERT_EQ(line.size(), 3u);
    EXPECT_EQ(line[2].first, TupleValue::int64(2));
    EXPECT_EQ(line[2].second, TupleValue::int64(12));
    ASSERT_TRUE(cells.read_column(TupleValue::int64(2), &line).ok());
    ASSERT_EQ(line.size(), 3u);
    EXPECT_EQ(line[0].second, TupleValue::int64(2));
    ASSERT_TRUE(cells.clear_row(TupleValue::int64(1)).ok());
    ASSERT_TRUE(cells.clear_column(TupleValue::int64(0)).ok());
    TupleValue v;
    bool found = true;
    ASSERT_TRUE(cells.get(TupleValue::int64(1), TupleValue::int64(2), &v, &found).ok());
    EXPECT_FALSE(found);
    ASSERT_TRUE(cells.get(TupleValue::int64(2), TupleValue::int64(2), &v, &found).ok());
    EXPECT_TRUE(found);
    EXPECT_EQ(v, TupleValue::int64(22));
    // 2 cells left of 9 (rows 0 and 2, columns 1 and 2): 4, in each order kept.
    size_t n = 0;
    auto c = store.scan(KeyRange{"", ""}, ScanOptions());
    for (; (*c)->valid(); (*c)->next()) ++n;
    EXPECT_EQ(n, layout == CellsLayout::kBoth ? 8u : 4u) << cells_layout_name(layout);
  }
}

TEST(CellsTest, FindsSqlEqualCell) {
  MemoryStore store;
  Cells cells(&store, *CellsKeys::make(kS, CellsLayout::kRow));
  ASSERT_TRUE(cells.set(TupleValue::float64(2.0), TupleValue::string("a"), TupleValue()).ok());
  Bytes r, c, fr, fc;
  ASSERT_TRUE(pack_element(TupleValue::int64(2), &r).ok());
  ASSERT_TRUE(pack_element(TupleValue::string("a"), &c).ok());
  bool found = false;
  ASSERT_TRUE(cells.find_sql_equal(r, c, &found, &fr, &fc).ok());
  EXPECT_TRUE(found);
  EXPECT_EQ(to_hex(fr), "21c000000000000000");
  r.clear();
  ASSERT_TRUE(pack_element(TupleValue::string("2"), &r).ok());
  ASSERT_TRUE(cells.find_sql_equal(r, c, &found, &fr, &fc).ok());
  EXPECT_FALSE(found);
}

TEST(CellsTest, SplitRejectsDamagedKeys) {
  const CellsKeys keys = *CellsKeys::make(kS, CellsLayout::kRow);
  BytesView r, c;
  EXPECT_EQ(keys.split(CellsOrder::kRowMajor, kS + "\x15\x01", &r, &c).code(), StatusCode::kCorruption);
  EXPECT_EQ(keys.split(CellsOrder::kRowMajor, "\x02t\x00\x15\x01\x15\x02", &r, &c).code(),
            StatusCode::kCorruption);
  const Bytes good = kS + "\x15\x01\x15\x02";  // r and c point into it
  EXPECT_TRUE(keys.split(CellsOrder::kRowMajor, good, &r, &c).ok());
  EXPECT_EQ(r, "\x15\x01");
  // Each message names the key, and a decoding error's offset counts from
  // its first byte.
  const auto message = [&](const Bytes& key) {
    return keys.split(CellsOrder::kRowMajor, key, &r, &c).message();
  };
  EXPECT_EQ(message(kS + "\x15\x01\x15\x02\x15\x03"),
            "cells: key x'027300150115021503' has more than two elements after its prefix");
  EXPECT_EQ(message(kS + "\x15\x01"), "cells: key x'0273001501' has one element after its prefix");
  EXPECT_EQ(message(kS), "cells: key x'027300' has no elements after its prefix");
  EXPECT_EQ(message(kS + "\x15\x01\x16\x02"),
            "cells: key x'02730015011602': tuple: truncated integer at byte 5 (type code 0x16)");
  EXPECT_EQ(parse_cells_layout("Both").value(), CellsLayout::kBoth);
  EXPECT_FALSE(parse_cells_layout("diagonal").ok());
}

TEST(SqlAnyTest, EqualVariants) {
  std::vector<TupleValue> v;
  sql_equal_variants(TupleValue::int64(2), &v);
  EXPECT_EQ(v, (std::vector<TupleValue>{TupleValue::int64(2), TupleValue::float64(2.0)}));
  sql_equal_variants(TupleValue::float64(2.5), &v);
  EXPECT_EQ(v, (std::vector<TupleValue>{TupleValue::float64(2.5)}));
  sql_equal_variants(TupleValue::float64(-0.0), &v);
  EXPECT_EQ(v.size(), 3u);
  // 2^53 + 1 has no exact double; 2^63 as a double is outside int64.
  sql_equal_variants(TupleValue::int64((int64_t{1} << 53) + 1), &v);
  EXPECT_EQ(v.size(), 1u);
  sql_equal_variants(TupleValue::float64(9223372036854775808.0), &v);
  EXPECT_EQ(v.size(), 1u);
  sql_equal_variants(TupleValue::string("2"), &v);
  EXPECT_EQ(v.size(), 1u);
}

}  // namespace
}  // namespace tuplekv::model
