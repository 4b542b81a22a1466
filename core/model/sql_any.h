// SQL equality on untyped (ANY) key columns, in tuple terms.
//
// A cell's row and column, and a multimap's key and value, keep the tuple
// type of the SQL value they were written with: INTEGER 2 is the int
// element 15 02, REAL 2.0 the double element 21 C0 00 ... 00. SQLite
// compares numbers by value, so in a native `ANY PRIMARY KEY` column 2 and
// 2.0 are the same key, and `= 2` finds a row stored as 2.0. Models that
// store ANY values therefore look a value up under every encoding SQLite
// would call equal to it: sql_equal_variants() lists them.
//
//   INTEGER i      int i, plus double i when the double holds i exactly
//   REAL d         double d, plus int d when d is integral and fits int64
//   0, 0.0, -0.0   int 0, double +0.0, double -0.0 (SQLite: all equal)
//   anything else  itself (TEXT and BLOB with the same bytes differ, as in SQLite)
#ifndef TUPLEKV_CORE_MODEL_SQL_ANY_H_
#define TUPLEKV_CORE_MODEL_SQL_ANY_H_

#include <vector>

#include "core/status.h"
#include "core/tuple.h"

namespace tuplekv::model {

// Replaces *out with the elements SQLite's equality treats as equal to `v`,
// `v` first.
void sql_equal_variants(const TupleValue& v, std::vector<TupleValue>* out);

// The same for one packed element: replaces *out with the packed variants,
// `element` first. kCorruption when `element` is not exactly one element.
Status sql_equal_variants_packed(BytesView element, std::vector<Bytes>* out);

}  // namespace tuplekv::model

#endif  // TUPLEKV_CORE_MODEL_SQL_ANY_H_
