// Tables of cells (see cells.h for the layouts).
#include "core/model/cells.h"

#include <algorithm>
#include <cctype>
#include <string>

#include "core/model/sql_any.h"

namespace tuplekv::model {

namespace {

bool equals_ignore_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

// The packed elements of `key` after its first `start` bytes (the prefix),
// which must be exactly two.
Status split_two(BytesView key, size_t start, BytesView* first, BytesView* second) {
  TupleReader r(key, start);
  const auto damaged = [&](std::string_view what) {
    const std::string where = "cells: key " + blob_literal(key);
    return r.status().ok() ? Status::Corruption(where + " " + std::string(what))
                           : r.status().with_context(where);
  };
  if (!r.next()) return damaged("has no elements after its prefix");
  *first = r.raw();
  if (!r.next()) return damaged("has one element after its prefix");
  *second = r.raw();
  if (!r.at_end()) return damaged("has more than two elements after its prefix");
  return Status::OK();
}

}  // namespace

Result<CellsLayout> parse_cells_layout(std::string_view text) {
  if (equals_ignore_case(text, "row")) return CellsLayout::kRow;
  if (equals_ignore_case(text, "column")) return CellsLayout::kColumn;
  if (equals_ignore_case(text, "both")) return CellsLayout::kBoth;
  return Status::InvalidArgument("layout must be row, column or both, not '" + std::string(text) +
                                 "'");
}

std::string_view cells_layout_name(CellsLayout layout) {
  switch (layout) {
    case CellsLayout::kRow:
      return "row";
    case CellsLayout::kColumn:
      return "column";
    case CellsLayout::kBoth:
      return "both";
  }
  return "?";
}

Result<CellsKeys> CellsKeys::make(BytesView prefix, CellsLayout layout) {
  CellsKeys k;
  k.layout_ = layout;
  k.prefix_.assign(prefix);
  if (layout == CellsLayout::kBoth) {
    k.row_prefix_ = k.prefix_;
    TUPLEKV_RETURN_IF_ERROR(pack({TupleValue::string("row_idx")}, &k.row_prefix_));
    k.col_prefix_ = k.prefix_;
    TUPLEKV_RETURN_IF_ERROR(pack({TupleValue::string("col_idx")}, &k.col_prefix_));
  } else {
    k.row_prefix_ = k.prefix_;
    k.col_prefix_ = k.prefix_;
  }
  return k;
}

Status CellsKeys::key(CellsOrder order, const TupleValue& row, const TupleValue& col,
                      Bytes* out) const {
  out->assign(order_prefix(order));
  const TupleValue& first = order == CellsOrder::kRowMajor ? row : col;
  const TupleValue& second = order == CellsOrder::kRowMajor ? col : row;
  TUPLEKV_RETURN_IF_ERROR(pack_element(first, out));
  return pack_element(second, out);
}

void CellsKeys::key_packed(CellsOrder order, BytesView row, BytesView col, Bytes* out) const {
  out->assign(order_prefix(order));
  out->append(order == CellsOrder::kRowMajor ? row : col);
  out->append(order == CellsOrder::kRowMajor ? col : row);
}

Status CellsKeys::split(CellsOrder order, BytesView key, BytesView* row, BytesView* col) const {
  const Bytes& p = order_prefix(order);
  if (!has_prefix(key, p)) {
    return Status::Corruption("cells: key " + blob_literal(key) + " is outside its subspace");
  }
  BytesView first, second;
  TUPLEKV_RETURN_IF_ERROR(split_two(key, p.size(), &first, &second));
  *row = order == CellsOrder::kRowMajor ? first : second;
  *col = order == CellsOrder::kRowMajor ? second : first;
  return Status::OK();
}

Status CellsKeys::split_any(BytesView key, CellsOrder* order, BytesView* row,
                            BytesView* col) const {
  if (layout_ != CellsLayout::kBoth) {
    *order = primary();
  } else {
    const Bytes& cp = col_prefix_;
    const bool in_col = key.size() >= cp.size() && key.compare(0, cp.size(), cp) == 0;
    *order = in_col ? CellsOrder::kColumnMajor : CellsOrder::kRowMajor;
  }
  return split(*order, key, row, col);
}

Status CellsKeys::encode_value(const TupleValue& value, Bytes* out) {
  out->clear();
  return pack_element(value, out);
}

Status CellsKeys::value_element(BytesView stored, BytesView* element) {
  TupleReader r(stored);
  if (!r.next()) {
    return r.status().ok() ? Status::Corruption("cells: empty stored value") : r.status();
  }
  *element = r.raw();
  if (!r.at_end()) {
    if (!r.status().ok()) return r.status();
    return Status::Corruption("cells: stored value has more than one element");
  }
  return Status::OK();
}

Status CellsKeys::decode_value(BytesView stored, TupleValue* out) {
  BytesView element;
  TUPLEKV_RETURN_IF_ERROR(value_element(stored, &element));
  return decode_element(&element, out);
}

// ---------------------------------------------------------------------------
// Cells

Status Cells::set(const TupleValue& row, const TupleValue& col, const TupleValue& value) {
  Bytes r, c;
  TUPLEKV_RETURN_IF_ERROR(pack_element(row, &r));
  TUPLEKV_RETURN_IF_ERROR(pack_element(col, &c));
  TUPLEKV_RETURN_IF_ERROR(CellsKeys::encode_value(value, &value_));
  return set_packed(r, c, value_);
}

Status Cells::set_packed(BytesView row, BytesView col, BytesView stored_value) {
  for (CellsOrder o : {CellsOrder::kRowMajor, CellsOrder::kColumnMajor}) {
    if (!keys_.has(o)) continue;
    keys_.key_packed(o, row, col, &key_);
    TUPLEKV_RETURN_IF_ERROR(store_->set(key_, stored_value));
  }
  return Status::OK();
}

Status Cells::clear(const TupleValue& row, const TupleValue& col) {
  Bytes r, c;
  TUPLEKV_RETURN_IF_ERROR(pack_element(row, &r));
  TUPLEKV_RETURN_IF_ERROR(pack_element(col, &c));
  return clear_packed(r, c);
}

Status Cells::clear_packed(BytesView row, BytesView col) {
  for (CellsOrder o : {CellsOrder::kRowMajor, CellsOrder::kColumnMajor}) {
    if (!keys_.has(o)) continue;
    keys_.key_packed(o, row, col, &key_);
    TUPLEKV_RETURN_IF_ERROR(store_->clear(key_));
  }
  return Status::OK();
}

Status Cells::get(const TupleValue& row, const TupleValue& col, TupleValue* value, bool* found) {
  TUPLEKV_RETURN_IF_ERROR(keys_.key(keys_.primary(), row, col, &key_));
  TUPLEKV_RETURN_IF_ERROR(store_->get(key_, &value_, found));
  if (!*found) return Status::OK();
  return CellsKeys::decode_value(value_, value);
}

Status Cells::find_sql_equal(BytesView row, BytesView col, bool* found, Bytes* found_row,
                             Bytes* found_col) {
  std::vector<Bytes> rows, cols;
  TUPLEKV_RETURN_IF_ERROR(sql_equal_variants_packed(row, &rows));
  TUPLEKV_RETURN_IF_ERROR(sql_equal_variants_packed(col, &cols));
  *found = false;
  for (const Bytes& r : rows) {
    for (const Bytes& c : cols) {
      keys_.key_packed(keys_.primary(), r, c, &key_);
      TUPLEKV_RETURN_IF_ERROR(store_->get(key_, &value_, found));
      if (*found) {
        found_row->assign(r);
        found_col->assign(c);
        return Status::OK();
      }
    }
  }
  return Status::OK();
}

Status Cells::clear_line(CellsOrder order, const TupleValue& first) {
  // The order where the line is a prefix, if the layout keeps it.
  const bool direct = keys_.has(order);
  const CellsOrder scan_order = direct ? order : keys_.primary();
  const Bytes& p = keys_.order_prefix(scan_order);
  Bytes packed_first;
  TUPLEKV_RETURN_IF_ERROR(pack_element(first, &packed_first));
  KeyRange range = direct ? tuplekv::range(p + packed_first) : tuplekv::range(p);
  if (!direct) {
    // No prefix for this line: collect its cells from a full scan.
    std::vector<std::pair<Bytes, Bytes>> hits;
    TUPLEKV_ASSIGN_OR_RETURN(std::unique_ptr<Cursor> c, store_->scan(range, ScanOptions{false, 0, true}));
    for (; c->valid(); c->next()) {
      BytesView r, k;
      TUPLEKV_RETURN_IF_ERROR(keys_.split(scan_order, c->key(), &r, &k));
      const BytesView line = order == CellsOrder::kRowMajor ? r : k;
      if (line == packed_first) hits.emplace_back(Bytes(r), Bytes(k));
    }
    TUPLEKV_RETURN_IF_ERROR(c->status());
    for (const auto& [r, k] : hits) TUPLEKV_RETURN_IF_ERROR(clear_packed(r, k));
    return Status::OK();
  }
  if (keys_.layout() == CellsLayout::kBoth) {
    // The other order's keys of this line are scattered: read them first.
    const CellsOrder other =
        order == CellsOrder::kRowMajor ? CellsOrder::kColumnMajor : CellsOrder::kRowMajor;
    std::vector<Bytes> other_keys;
    TUPLEKV_ASSIGN_OR_RETURN(std::unique_ptr<Cursor> c, store_->scan(range, ScanOptions{false, 0, true}));
    for (; c->valid(); c->next()) {
      BytesView r, k;
      TUPLEKV_RETURN_IF_ERROR(keys_.split(order, c->key(), &r, &k));
      keys_.key_packed(other, r, k, &other_keys.emplace_back());
    }
    TUPLEKV_RETURN_IF_ERROR(c->status());
    for (const Bytes& k : other_keys) TUPLEKV_RETURN_IF_ERROR(store_->clear(k));
  }
  return store_->clear_range(range.begin, range.end);
}

Status Cells::clear_row(const TupleValue& row) { return clear_line(CellsOrder::kRowMajor, row); }

Status Cells::clear_column(const TupleValue& col) {
  return clear_line(CellsOrder::kColumnMajor, col);
}

Status Cells::read_line(CellsOrder order, const TupleValue& first,
                        std::vector<std::pair<TupleValue, TupleValue>>* out) {
  out->clear();
  const bool direct = keys_.has(order);
  const CellsOrder scan_order = direct ? order : keys_.primary();
  Bytes packed_first;
  TUPLEKV_RETURN_IF_ERROR(pack_element(first, &packed_first));
  const Bytes& p = keys_.order_prefix(scan_order);
  const KeyRange range = direct ? tuplekv::range(p + packed_first) : tuplekv::range(p);
  TUPLEKV_ASSIGN_OR_RETURN(std::unique_ptr<Cursor> c, store_->scan(range, ScanOptions()));
  for (; c->valid(); c->next()) {
    BytesView r, k;
    TUPLEKV_RETURN_IF_ERROR(keys_.split(scan_order, c->key(), &r, &k));
    const BytesView line = order == CellsOrder::kRowMajor ? r : k;
    BytesView other = order == CellsOrder::kRowMajor ? k : r;
    if (line != packed_first) continue;
    std::pair<TupleValue, TupleValue>& e = out->emplace_back();
    TUPLEKV_RETURN_IF_ERROR(decode_element(&other, &e.first));
    TUPLEKV_RETURN_IF_ERROR(CellsKeys::decode_value(c->value(), &e.second));
  }
  TUPLEKV_RETURN_IF_ERROR(c->status());
  if (!direct) {
    // A full scan visits the line in the primary order; sort it by the
    // other element so both paths return the same order.
    std::sort(out->begin(), out->end(),
              [](const auto& a, const auto& b) { return compare(a.first, b.first) < 0; });
  }
  return Status::OK();
}

Status Cells::read_row(const TupleValue& row, std::vector<std::pair<TupleValue, TupleValue>>* out) {
  return read_line(CellsOrder::kRowMajor, row, out);
}

Status Cells::read_column(const TupleValue& col,
                          std::vector<std::pair<TupleValue, TupleValue>>* out) {
  return read_line(CellsOrder::kColumnMajor, col, out);
}

}  // namespace tuplekv::model
