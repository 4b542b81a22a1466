// tuplekv_table's xBestIndex: which way to scan the table serves a
// statement (its primary key or one of its indexes, the candidates of
// table_vtab.h), with which plan (core/plan.h), and what SQLite is told it
// costs. xFilter (table_vtab.cc) reads the choice back from idxNum and
// idxStr, so the two meet only in the contract below.
//
// PLAN CONTRACT
//   idxNum  bits 0-7   the candidate: 0 the primary key, 1 + i index i
//           bit 8      the index covers every column the statement reads
//                      (colUsed): rows come from the index entries alone
//           bit 9      ambiguous: a TEXT position has a right-hand side that
//                      was unknown at planning (a column of another table
//                      may compare numerically); nothing is omitted, ORDER
//                      BY is not consumed, and a number arriving there turns
//                      the scan into a full scan of the candidate
//           bit 10     key order: the statement reads raw_key (an UPDATE or
//                      DELETE) through an index; the rows are held and
//                      returned in primary key order (best_index_table()
//                      says why)
//           bit 11     waits: xFilter gets values after the plan's, of terms
//                      the plan does not use but takes so that SQLite runs
//                      the scan inside the loops they come from; the scan
//                      ignores them
//           bit 12     reads no column (colUsed is 0: count(*), EXISTS): a
//                      row is decoded only if something still asks for it
//           bit 13     reads fewer than half the columns (colUsed): a row
//                      read is decoded a column at a time, as far as the
//                      columns read reach (TableLayout::read_column)
//           bits 16-30 length of the label before the plan text
//   idxStr  label + the plan text of core/plan.h over the candidate's
//           positions, e.g. `index region_idx: range region=?1` or
//           `primary key: point user_id=?1`; argv in its term order. The
//           label says `covering`, `recheck` (bit 9), `sorted` (a scan
//           over ANY positions, see below) and `key order` (bit 10).
// Candidates are costed with plan_scan(); an index that does not cover the
// statement pays a row fetch per row, so a key prefix beats an index range
// beats a full scan; among them the choice also charges SQLite's sort to
// a candidate whose rows would not come in ORDER BY order (SQLite is told
// the scan's cost alone). When every candidate would read the whole table
// in no useful order, a declared key's table reads what SQLite would read
// of the native one (core/model/native_scan.h), so that rows come in its
// order. A candidate whose first position is unconstrained
// while its second is gets a skip-scan (`... skip region`, core/spec_scan.h)
// when its first position holds at most kSkipScanDistinct values, each
// repeated kSkipScanRowsPerValue times on average (SQLite's rule); the
// counts are taken at planning, with one seek per value and one pass over
// at most 18 keys per value, and kept until the table is next written.
// Otherwise an index that does not cover the statement may be read in one
// filtered pass (`index i: filter b=?1`), looking up only the rows whose
// entries pass, where SQLite's costs read the reference's index so
// (native_filter_cost). Per column type (DESIGN.md §6):
//   INTEGER, REAL  exact: the right-hand side gets numeric affinity, as
//                  SQLite gives it; INTEGER vs REAL bounds are converted
//                  exactly (a > 2.5 is a > 2; REAL vs an integer beyond
//                  2^53 uses the neighbouring doubles)
//   TEXT           exact for text; LIKE/GLOB literal prefixes (superset)
//   BLOB           exact (every other class sorts before BLOBs)
//   ANY            superset: = with a literal looks up every encoding
//                  SQLite calls equal (2, 2.0); ranges narrow only below a
//                  BLOB; SQLite re-checks; never ORDER BY. Tuple order is
//                  not SQLite's here (2.5 sorts after 3), so a scan of a
//                  candidate with an ANY position sorts the keys it reads
//                  that share the positions before it (core/model/
//                  sql_order.h): rows come in a native table's order, and
//                  a GROUP BY's first row, min() over 0 and 0.0 or a LIMIT
//                  without ORDER BY see what they would natively. Such a
//                  scan holds its group in memory.
// Index positions of nullable columns: IS NULL seeks the null element
// (whatever the column's type or collation), `IS value` seeks the value as
// = does or, when it is NULL, the null element, and `<` terms are
// re-checked (a range from the start meets the NULLs).
#ifndef TUPLEKV_EXT_TABLE_PLANNING_H_
#define TUPLEKV_EXT_TABLE_PLANNING_H_

#include "ext/sqlite_api.h"

namespace tuplekv::ext::table {

struct TableVtab;

// idxNum, as above.
inline constexpr int kIdxCandidateMask = 0xff;
inline constexpr int kIdxCovering = 0x100;
inline constexpr int kIdxAmbiguous = 0x200;
inline constexpr int kIdxKeyOrder = 0x400;
inline constexpr int kIdxWaits = 0x800;
inline constexpr int kIdxNoColumns = 0x1000;
inline constexpr int kIdxFewColumns = 0x2000;
inline constexpr int kIdxLabelShift = 16;

// xBestIndex of table `t`: fills `info` (idxNum, idxStr, costs, argvIndex
// and omit per constraint, orderByConsumed) and returns an SQLite code.
int best_index_table(TableVtab* t, sqlite3_index_info* info);

}  // namespace tuplekv::ext::table

#endif  // TUPLEKV_EXT_TABLE_PLANNING_H_
