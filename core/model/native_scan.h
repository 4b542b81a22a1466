// Which index SQLite reads for a full scan of tuplekv_table's native
// reference (the STRICT table with the same declaration and indexes), so
// that tuplekv_table can read the same one and give rows in the same
// order. Where a result shows the visiting order (a LIMIT without ORDER
// BY, which of several conflicting rows an INSERT OR REPLACE ... SELECT
// keeps), reading the primary key where SQLite reads a narrower index
// gives other rows.
//
// SQLite 3.40's planner (where.c) prices a full scan through index I at
//   rows + 1 + (15 * szIdxRow(I)) / szTabRow        (LogEst units, integer /)
// and a rowid table's own scan at rows + 16. It takes the cheapest scan
// whose index holds every column the statement uses, keeping the first
// of equal ones in the order it meets them: a rowid table's rowid first,
// then the indexes newest first (a new index goes to the head of the
// table's list; a WITHOUT ROWID table's primary key is one of them).
// szTabRow and szIdxRow are LogEst(4 * width), widths summing each
// column's size estimate (1 for a number, 5 for TEXT or BLOB, from the
// declared type as sqlite3AffinityType reads it): a table's over every
// column plus 1; a WITHOUT ROWID table's primary key over every column;
// an index's over its columns, then the primary key columns it lacks (or
// 1 for the rowid). An index holds its columns and those key columns,
// except that SQLite does not count the key columns as held by the index
// of a UNIQUE constraint of a WITHOUT ROWID table.
//
//   TableSchema s;  // (a INTEGER, b TEXT, c TEXT, PRIMARY KEY(a), INDEX i(b))
//   native_full_scans(s)   // {index 0: cost 13, holds a, b}, {key: cost 15, holds all}
//   // SELECT a, b FROM t: index i (13 < 15); SELECT a, c FROM t: the key.
//
// Thread safety: pure functions.
#ifndef TUPLEKV_CORE_MODEL_NATIVE_SCAN_H_
#define TUPLEKV_CORE_MODEL_NATIVE_SCAN_H_

#include <cstdint>
#include <string_view>
#include <vector>

namespace tuplekv::model {

struct TableSchema;

// SQLite's LogEst: about 10 * log2(x), as sqlite3LogEst computes it.
int log_est(uint64_t x);

// The LogEst of the sum of two LogEst values, as sqlite3LogEstAdd rounds it
// (so two costs SQLite finds equal come out equal here too).
int log_est_add(int a, int b);

// SQLite's size estimate (szEst) of a column declared with `type` (the
// whole declaration: "TEXT", "VARCHAR(20)", "" for none).
int size_estimate(std::string_view type);

// One way SQLite can scan the whole reference table.
struct NativeScan {
  static constexpr int kPrimaryKey = -1;  // the rowid, or a WITHOUT ROWID primary key
  int index = kPrimaryKey;                // else the schema's index number
  int cost = 0;                           // above the row count, LogEst
  std::vector<bool> holds;                // per table column
  int first_column = -1;                  // the column it is sorted by first; -1: the rowid
};

// Whether SQLite counts `column` as held by index `index` of `s`'s
// reference when it asks whether the index covers a statement: the
// index's own columns, and the key columns it appends, except for the
// index of a UNIQUE constraint, whose appended key columns it does not
// count (made while the table still looked like a rowid table).
bool native_index_holds(const TableSchema& s, int index, int column);

// The full scans of `s`'s reference table in the order SQLite meets them.
std::vector<NativeScan> native_full_scans(const TableSchema& s);

// The one SQLite chooses for a statement that uses the columns marked in
// `used` (per table column): the cheapest that holds them all, the first
// of equal ones. An index into `scans`.
size_t choose_native_scan(const std::vector<NativeScan>& scans, const std::vector<bool>& used);

// The same for a statement with `c IS NOT NULL` on each nullable column
// marked in `not_null`. SQLite 3.40 reads such a term also as the range
// `c > NULL` over an index that c leads (a term of its own, where.c
// TERM_VNULL; none for a NOT NULL column, whose term it drops). It guesses
// one row fewer (LogEst) for that range than for the index's full scan,
// and never prices it above a full scan of an index (a WITHOUT ROWID
// table's key included) that uses no term and covers no less
// (whereLoopAdjustCost), which it then beats on rows: so a scan whose
// index holds the columns and is led by such a column wins, the cheapest
// of them, the first of equal ones; against a rowid table's own scan, on
// its price alone.
size_t choose_native_scan(const std::vector<NativeScan>& scans, const std::vector<bool>& used,
                          const std::vector<bool>& not_null);

}  // namespace tuplekv::model

#endif  // TUPLEKV_CORE_MODEL_NATIVE_SCAN_H_
