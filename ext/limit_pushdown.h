// Whether a virtual table may take LIMIT and OFFSET over from SQLite.
//
// SQLite offers a statement's LIMIT and OFFSET to xBestIndex (as
// SQLITE_INDEX_CONSTRAINT_LIMIT/_OFFSET) only when every WHERE term reaches
// xBestIndex as well, so a plan that consumes every constraint it was given
// leaves SQLite nothing to filter and may stop after LIMIT rows itself.
// SQLite 3.40 misjudges one kind of term: a comparison whose two sides
// both read the table (`a > b`, `b < a + 1`, `a IN (b, 5)`, `k > k / 2`,
// a subquery correlated with the row). It keeps such a term to itself, yet
// still offers LIMIT, and a table that stopped early would then return too
// few rows. Later SQLite refuses the offer whenever a term's right-hand
// side reads any table. A table cannot see the withheld term, so whether
// any pushdown is safe depends on which SQLite this is, and that is
// probed rather than read from the version number: a private in-memory
// connection prepares `... WHERE a > b LIMIT 1` over a probe module and
// records whether the LIMIT was offered.
//
// Where it is not safe the planners leave LIMIT and OFFSET to SQLite. The
// scans are lazy (a row is read when SQLite asks for the next one), so a
// LIMIT costs nothing extra; an OFFSET reads the rows it skips, as SQLite's
// own tables do.
#ifndef TUPLEKV_EXT_LIMIT_PUSHDOWN_H_
#define TUPLEKV_EXT_LIMIT_PUSHDOWN_H_

namespace tuplekv::ext {

// Runs the probe once per process; later calls return its answer.
// extension.cc calls it while registering, so no xBestIndex ever waits on
// it. False when the probe itself fails.
bool limit_pushdown_allowed();

// Tests only: while one lives, limit_pushdown_allowed() answers `allowed`
// (for queries that hold no withheld term, to exercise both plans on any
// SQLite). Not thread-safe; not nestable.
class LimitPushdownOverride {
 public:
  explicit LimitPushdownOverride(bool allowed);
  ~LimitPushdownOverride();
  LimitPushdownOverride(const LimitPushdownOverride&) = delete;
  LimitPushdownOverride& operator=(const LimitPushdownOverride&) = delete;
};

}  // namespace tuplekv::ext

#endif  // TUPLEKV_EXT_LIMIT_PUSHDOWN_H_
