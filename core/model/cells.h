// Tables of cells: a sparse two-dimensional table where each assigned cell
// is one key (FoundationDB data-modeling guide, "tables"; DESIGN.md §4).
//
//   layout   key(s) of cell (row, col)                               value
//   row      pack((S, row, col))                                     pack((value,))
//   column   pack((S, col, row))                                     pack((value,))
//   both     pack((S, 'row_idx', row, col)) and                      pack((value,)) in each
//            pack((S, 'col_idx', col, row)), written and deleted together
//
// S is the subspace prefix (pack((name,))). Unassigned cells take no space.
// A row (row layout) or a column (column layout) is one prefix range;
// layout=both keeps both orders so either is.
//
// CellsKeys is the codec (no store); Cells applies it to an OrderedStore.
// Row, column and value are any tuple elements; the SQL module stores
// INTEGER, REAL, TEXT and BLOB as int, double, string and bytes.
//
// Thread safety: none (values; Cells uses its store from one thread).
#ifndef TUPLEKV_CORE_MODEL_CELLS_H_
#define TUPLEKV_CORE_MODEL_CELLS_H_

#include <string_view>
#include <utility>
#include <vector>

#include "core/bytes.h"
#include "core/status.h"
#include "core/store.h"
#include "core/tuple.h"

namespace tuplekv::model {

enum class CellsLayout : uint8_t { kRow, kColumn, kBoth };

// "row", "column", "both" (any case) -> layout; kInvalidArgument otherwise.
Result<CellsLayout> parse_cells_layout(std::string_view text);
std::string_view cells_layout_name(CellsLayout layout);

// The two key orders a layout may keep.
enum class CellsOrder : uint8_t {
  kRowMajor,     // (row, col): rows are prefixes
  kColumnMajor,  // (col, row): columns are prefixes
};

class CellsKeys {
 public:
  // `prefix` is the subspace prefix, pack((S,)).
  static Result<CellsKeys> make(BytesView prefix, CellsLayout layout);

  CellsLayout layout() const { return layout_; }
  const Bytes& prefix() const { return prefix_; }
  bool has(CellsOrder order) const {
    return layout_ == CellsLayout::kBoth ||
           (order == CellsOrder::kRowMajor) == (layout_ == CellsLayout::kRow);
  }
  // The order uniqueness is checked in (row-major unless layout=column).
  CellsOrder primary() const {
    return layout_ == CellsLayout::kColumn ? CellsOrder::kColumnMajor : CellsOrder::kRowMajor;
  }
  // Every key of `order` starts with this: S, or S + pack(('row_idx',)) /
  // pack(('col_idx',)) with layout=both. REQUIRES: has(order).
  const Bytes& order_prefix(CellsOrder order) const {
    return order == CellsOrder::kRowMajor ? row_prefix_ : col_prefix_;
  }

  // Replaces *out with the key of cell (row, col) in `order`.
  // REQUIRES: has(order). Fails as pack() does.
  Status key(CellsOrder order, const TupleValue& row, const TupleValue& col, Bytes* out) const;
  // The same from already packed elements (one element each).
  void key_packed(CellsOrder order, BytesView row, BytesView col, Bytes* out) const;

  // Decodes a key of `order` into its packed row and column elements
  // (views into `key`). kCorruption when it is not exactly prefix + two
  // elements.
  Status split(CellsOrder order, BytesView key, BytesView* row, BytesView* col) const;
  // Which order a stored key belongs to (by its prefix), then split().
  Status split_any(BytesView key, CellsOrder* order, BytesView* row, BytesView* col) const;

  static Status encode_value(const TupleValue& value, Bytes* out);  // pack((value,))
  // kCorruption unless `stored` is exactly one element.
  static Status decode_value(BytesView stored, TupleValue* out);
  // The packed element inside a stored value (a view), checked as above.
  static Status value_element(BytesView stored, BytesView* element);

 private:
  CellsLayout layout_ = CellsLayout::kRow;
  Bytes prefix_;
  Bytes row_prefix_;
  Bytes col_prefix_;
};

// Cells over a store. Writes touch every order the layout keeps, so they
// stay in step; run them inside one store transaction to make them atomic.
class Cells {
 public:
  Cells(OrderedStore* store, CellsKeys keys) : store_(store), keys_(std::move(keys)) {}
  const CellsKeys& keys() const { return keys_; }

  Status set(const TupleValue& row, const TupleValue& col, const TupleValue& value);
  Status get(const TupleValue& row, const TupleValue& col, TupleValue* value, bool* found);
  Status clear(const TupleValue& row, const TupleValue& col);
  // The same from packed elements.
  Status set_packed(BytesView row, BytesView col, BytesView stored_value);
  Status clear_packed(BytesView row, BytesView col);

  // The stored cell whose row and column SQLite would call equal to these
  // (2 and 2.0 are one key; sql_any.h). *row/*col get its packed elements.
  Status find_sql_equal(BytesView row, BytesView col, bool* found, Bytes* found_row,
                        Bytes* found_col);

  // Removes a whole row (column): one clear_range in the order where it is
  // a prefix; with layout=both the other order's keys are read from it
  // first. Clearing a column of a row-only table (or the reverse) scans
  // the whole table. Exact tuple equality: 2 and 2.0 are different rows.
  Status clear_row(const TupleValue& row);
  Status clear_column(const TupleValue& col);

  // (col, value) pairs of a row in column order, (row, value) of a column
  // in row order; a prefix scan where the layout has one.
  Status read_row(const TupleValue& row, std::vector<std::pair<TupleValue, TupleValue>>* out);
  Status read_column(const TupleValue& col, std::vector<std::pair<TupleValue, TupleValue>>* out);

 private:
  Status clear_line(CellsOrder order, const TupleValue& first);
  Status read_line(CellsOrder order, const TupleValue& first,
                   std::vector<std::pair<TupleValue, TupleValue>>* out);

  OrderedStore* store_;
  CellsKeys keys_;
  Bytes key_;
  Bytes key2_;
  Bytes value_;
};

}  // namespace tuplekv::model

#endif  // TUPLEKV_CORE_MODEL_CELLS_H_
