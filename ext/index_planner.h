// The xBestIndex / xFilter adapter between SQLite and core/plan.h.
//
// best_index() translates sqlite3_index_info into a PlanRequest, runs the
// pure planner and writes the answer back: argvIndex/omit per constraint,
// sqlite3_vtab_in() for IN lists taken all at once, orderByConsumed,
// SQLITE_INDEX_SCAN_UNIQUE, estimatedRows/Cost, idxNum (module flags) and
// idxStr (the readable, parseable plan text from core::describe(), which
// EXPLAIN QUERY PLAN shows, e.g. `range key>=?1 AND key<?2 reverse`).
//
// SQLite constraint -> plan operator, for a column that is a key position:
//   =, IS          kEq, or kIn when SQLite can hand over the whole IN list
//                  (sqlite3_vtab_in; sorted and deduplicated at filter time)
//   < <= > >=      kLt kLe kGt kGe (kOther for a non-BLOB literal on a
//                  blob_only position, see IndexShape); <= and >= whose
//                  right-hand side SQLite cannot show are maybe_loosened
//                  (a row-value comparison looks like that)
//   LIKE, GLOB     kLike, kGlob (never omitted: the range is a superset);
//                  only when the shape allows patterns; a literal pattern
//                  known at prepare time with no literal prefix is not used
//   IS NULL        kIsNull: the plan is empty (no position here is nullable)
//   IS NOT NULL    ignored: always true for a key, harmless after LIMIT
//   anything else  kOther (SQLite evaluates it; it blocks LIMIT pushdown)
// For a column that sets a byte prefix of a position (tuplekv_kv's hidden
// `prefix`): = and IS become kPrefix, and an IN list kPrefixIn, taken whole
// (per value, SQLite would return a key under two of the prefixes twice).
// LIMIT and OFFSET become kLimit/kOffset where limit_pushdown_allowed(),
// and are left out of the request otherwise.
//
// argv order in xFilter is the plan's term order; read_filter_args() reads
// argv back into FilterArgs through a model-specific FilterValueReader
// (values -> encoded bytes), walking IN lists with sqlite3_vtab_in_first/
// next.
#ifndef TUPLEKV_EXT_INDEX_PLANNER_H_
#define TUPLEKV_EXT_INDEX_PLANNER_H_

#include <memory>
#include <string>
#include <vector>

#include "core/plan.h"
#include "core/status.h"
#include "ext/sqlite_api.h"

namespace tuplekv::ext {

// How a virtual table's columns relate to its key positions.
struct IndexShape {
  std::vector<PlanColumn> columns;  // key positions, in key order
  // Per virtual-table column (aConstraint[].iColumn): the key position it
  // is, or -1.
  std::vector<int> key_position;
  // Per virtual-table column: the key position whose byte prefix `column =
  // value` sets (a hidden prefix column), or -1.
  std::vector<int> prefix_of;
  // Per key position: it only ever holds BLOBs (tuplekv_kv's key). A range
  // constraint whose right-hand side is a literal of another type is then
  // left to SQLite: its outcome is all rows or none, and SQLite's LIKE
  // optimization adds such terms (key >= 'A' AND key < 'b' for LIKE 'a%')
  // as implied by the LIKE, which they are not for BLOBs unless SQLite was
  // built with SQLITE_LIKE_DOESNT_MATCH_BLOBS. SQLite evaluates the ones
  // the user wrote and never needs the ones it derived.
  std::vector<bool> blob_only;
  bool unique = true;       // the key positions together are unique
  double table_rows = 1e6;  // estimate for costs
};

// xBestIndex. Returns SQLITE_OK; SQLITE_CONSTRAINT for a combination of
// usable constraints that has a hidden prefix column's `=` but cannot use
// it (the column has no value without it, so SQLite must choose another
// join order); or SQLITE_NOMEM. `idx_num` goes to info->idxNum unchanged
// (module-defined flags).
int best_index(const IndexShape& shape, sqlite3_index_info* info, int idx_num);

// Whether range constraint `op` may be a row-value comparison SQLite
// loosened (PlanConstraint::maybe_loosened). SQLite hands `(a, b) > (x, y)`
// over as its first column, < and > widened to <= and >=, and re-checks the
// whole of it; nothing else tells it from a plain <= or >=, except that its
// right-hand side is a vector, which sqlite3_vtab_rhs_value cannot show.
inline bool maybe_row_value(unsigned char op, bool rhs_known) {
  return !rhs_known && (op == SQLITE_INDEX_CONSTRAINT_GE || op == SQLITE_INDEX_CONSTRAINT_LE);
}

// Whether constraint `i` compares with BINARY, the only collation key bytes
// follow. Under another (`a = 'x' COLLATE NOCASE`, or a column declared
// with one) a text = or range cannot become a lookup or a range of keys:
// SQLite must evaluate it over the rows.
inline bool compares_binary(sqlite3_index_info* info, int i) {
  const char* coll = sqlite3_vtab_collation(info, i);
  return coll == nullptr || sqlite3_stricmp(coll, "BINARY") == 0;
}

// Converts argument values to encoded filter values, per model.
class FilterValueReader {
 public:
  virtual ~FilterValueReader() = default;
  // `term.op` says what the value is for (kEq/kIn values, range bounds,
  // kPrefix prefix, kLike/kGlob pattern). A non-OK status fails xFilter.
  virtual Status read(const PlanTerm& term, sqlite3_value* value, FilterValue* out) = 0;
  // The values of a term other than kIn, kLimit and kOffset: the one
  // read() gives, unless the model's comparison matches more than one
  // encoded value or bound says (several = values, a range's kRun values;
  // SQLite re-checks then).
  virtual Status read_term(const PlanTerm& term, sqlite3_value* value, FilterArg* out) {
    return read(term, value, &out->single());
  }
};

// Reads xFilter's argv into *args (resized to plan.terms.size(), buffers
// reused). kLimit/kOffset take the integer value; kIsNull reads nothing
// (its value is the null element); kIs reads NULL as the null element and
// any other value as kEq does.
Status read_filter_args(const Plan& plan, int argc, sqlite3_value** argv,
                        FilterValueReader* reader, std::vector<FilterArg>* args);

// Parsed plans by idxStr. A prepared statement passes the same idxStr to
// every xFilter call, so the table keeps the few it saw last instead of
// parsing per call.
class PlanCache {
 public:
  explicit PlanCache(std::vector<PlanColumn> columns) : columns_(std::move(columns)) {}
  const std::vector<PlanColumn>& columns() const { return columns_; }
  // The plan for `idx_str` (parsed on a miss). kInternal if it does not parse.
  Result<std::shared_ptr<const Plan>> get(const char* idx_str);

 private:
  static constexpr size_t kEntries = 8;
  struct Entry {
    std::string text;
    std::shared_ptr<const Plan> plan;
  };
  std::vector<PlanColumn> columns_;
  std::vector<Entry> entries_;
  size_t next_victim_ = 0;
};

}  // namespace tuplekv::ext

#endif  // TUPLEKV_EXT_INDEX_PLANNER_H_
