// Fuzz target for tuplekv_table's declaration parser: what a CREATE VIRTUAL
// TABLE says, and what every connection reads back from a database file's
// schema, which may come from anywhere.
//
// Input: the module arguments, one per line (SQLite has already split them
// at top-level commas). For any input, nothing crashes or reads out of
// bounds, and:
//   - a refusal is kInvalidArgument (or kNoMemory);
//   - an accepted schema is consistent: each column found by its own name,
//     keys and index columns naming columns, key columns NOT NULL, every
//     non-key column (and collated key) in the value exactly once, every
//     CHECK with a label, a text and an expression no longer than the
//     text; and its key layout is made, or refused as invalid.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/table.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using tuplekv::Status;
using tuplekv::StatusCode;
using tuplekv::model::TableSchema;

void check_schema(const TableSchema& s) {
  const int ncols = static_cast<int>(s.columns.size());
  FUZZ_CHECK(ncols > 0);
  for (int c = 0; c < ncols; ++c) {
    FUZZ_CHECK(s.find_column(s.columns[static_cast<size_t>(c)].name) == c);
  }
  for (size_t k = 0; k < s.key.size(); ++k) {
    FUZZ_CHECK(s.key[k] >= 0 && s.key[k] < ncols);
    const auto& col = s.columns[static_cast<size_t>(s.key[k])];
    FUZZ_CHECK(col.not_null);
    FUZZ_CHECK(col.key_pos == static_cast<int>(k));
  }
  std::vector<int> in_value(s.columns.size(), 0);
  for (int c : s.values) {
    FUZZ_CHECK(c >= 0 && c < ncols);
    ++in_value[static_cast<size_t>(c)];
  }
  for (int c : s.key_copies) {
    FUZZ_CHECK(c >= 0 && c < ncols);
    ++in_value[static_cast<size_t>(c)];
  }
  for (int c = 0; c < ncols; ++c) {
    const auto& col = s.columns[static_cast<size_t>(c)];
    const bool stored = col.key_pos < 0 || col.keyed_by_collation();
    FUZZ_CHECK(in_value[static_cast<size_t>(c)] == (stored ? 1 : 0));
  }
  for (const auto& idx : s.indexes) {
    FUZZ_CHECK(!idx.columns.empty());
    for (int c : idx.columns) FUZZ_CHECK(c >= 0 && c < ncols);
  }
  for (const auto& check : s.checks) {
    FUZZ_CHECK(!check.label.empty());
    FUZZ_CHECK(!check.text.empty());
    FUZZ_CHECK(check.expr.size() <= check.text.size());
  }
  // The layout refuses what no tuple can hold (a name that is not UTF-8),
  // and only that.
  const auto layout = tuplekv::model::TableLayout::make(s, "t");
  if (!layout.ok()) FUZZ_CHECK(layout.status().code() == StatusCode::kInvalidArgument);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> args;
  size_t from = 0;
  for (;;) {
    const size_t nl = input.find('\n', from);
    args.emplace_back(input.substr(from, nl == std::string_view::npos ? std::string_view::npos : nl - from));
    if (nl == std::string_view::npos) break;
    from = nl + 1;
  }
  TableSchema schema;
  const Status s = tuplekv::model::parse_table_schema("tuplekv_table", "t", args, &schema);
  if (!s.ok()) {
    FUZZ_CHECK(s.code() == StatusCode::kInvalidArgument || s.code() == StatusCode::kNoMemory);
    return 0;
  }
  check_schema(schema);
  return 0;
}
