// tuplekv_table's xFilter arguments as bounds in a candidate's key
// elements: what core/plan.h's RangeBuilder turns into key ranges.
//
// A value compares with a column as SQLite compares it, not as its bytes
// do, so a bound is chosen per column type: `a > 2.5` on an INTEGER
// column starts after the element 2, `a = 2.5` there matches nothing,
// an INTEGER bound on a REAL column is the nearest double on the right
// side, text below every BLOB is "below all" for a BLOB column. Over an
// ANY column (tuple order is not SQLite's across types) a range becomes
// up to three runs of elements, class by class, and SQLite re-checks.
//
//   TableValueReader reader(candidate, /*ambiguous=*/false, /*last=*/0);
//   read_filter_args(plan, argc, argv, &reader, &args);   // ext/index_planner.h
//   if (reader.fallback()) ... scan the whole candidate instead
//
// "Ambiguous" plans are those whose argument values may carry an affinity
// SQLite applies to the column side too (a join on a column of another
// type): such values match more than their own encoding.
#ifndef TUPLEKV_EXT_TABLE_BOUNDS_H_
#define TUPLEKV_EXT_TABLE_BOUNDS_H_

#include <cstdint>

#include "core/bytes.h"
#include "core/plan.h"
#include "core/status.h"
#include "ext/index_planner.h"
#include "ext/sqlite_api.h"
#include "ext/table_vtab.h"

namespace tuplekv::ext::table {

// The bound (or = value) in integer or double elements that compares
// with them as the number (type, i, r) does: `type` is SQLITE_INTEGER
// (the number is i) or SQLITE_FLOAT (r), and the column holds integer
// elements (int_column) or double ones. A bound past every value the
// column can hold is kBelowAll or kAboveAll; an = nothing equals, kNull.
//
//   number_bound(PlanOp::kGt, SQLITE_FLOAT, 0, 2.5, true, &b)   // > 2.5: the element 2, exclusive
//   number_bound(PlanOp::kEq, SQLITE_FLOAT, 0, 2.5, true, &b)   // kNull
Status number_bound(PlanOp op, int type, int64_t i, double r, bool int_column, FilterValue* out);

class TableValueReader final : public FilterValueReader {
 public:
  // `c` is the candidate the plan scans; `last` is the last key position
  // the plan has a term on. The reader keeps a reference to `c`.
  TableValueReader(const Candidate& c, bool ambiguous, int last)
      : c_(c), ambiguous_(ambiguous), last_(last) {}

  // True once a value's affinity left its bound unknowable (a number of
  // unknown affinity against a TEXT column): the scan must then read the
  // whole candidate, and SQLite re-checks every row.
  bool fallback() const { return fallback_; }

  // One bound or value, in the position's elements (collation keys where
  // the position holds them).
  Status read(const PlanTerm& term, sqlite3_value* v, FilterValue* out) override;
  // A term's values: read()'s, or the runs of an ANY position's range, or
  // an = value plus the run of text it may also equal.
  Status read_term(const PlanTerm& term, sqlite3_value* v, FilterArg* out) override;

 private:
  Status read_value(const PlanTerm& term, sqlite3_value* v, FilterValue* out);
  // The column's values all sort above (rhs_below) or below the argument.
  static void class_compare(PlanOp op, bool rhs_below, FilterValue* out);
  Status numeric(const PlanTerm& term, sqlite3_value* v, FilterValue* out);
  Status text(const PlanTerm& term, sqlite3_value* v, FilterValue* out);
  // A range over an ANY position. SQLite orders numbers < text < blobs,
  // the tuple blobs < text < integers < doubles, so what matches is up to
  // three runs of the position's elements, found class by class. A number
  // of unknown affinity (a join on an INTEGER column) also compares with
  // text that reads as a number, so it takes all text below it too, as
  // does a text bound from above (such text is then below any text).
  Status any_range(const PlanTerm& term, sqlite3_value* v, FilterArg* out);
  // An = or IN value over an ANY position (ranges: any_range()).
  static Status any(sqlite3_value* v, FilterValue* out);

  const Candidate& c_;
  bool ambiguous_;
  int last_;
  bool fallback_ = false;
  Bytes keyed_;
  Bytes bound_;
  FilterValue num_;
};

}  // namespace tuplekv::ext::table

#endif  // TUPLEKV_EXT_TABLE_BOUNDS_H_
