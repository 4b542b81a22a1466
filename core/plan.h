// The scan planner: constraints on key positions -> key ranges.
//
// A virtual table's key is a sequence of positions: for tuplekv_kv one
// position holding the raw key bytes after the subspace prefix; for a table
// keyed by a tuple (later modules) one position per primary-key column,
// each a packed tuple element. Planning happens in two steps, both free of
// SQLite so they can be tested without a database:
//
//   1. plan_scan(request) at prepare time (xBestIndex). The request lists
//      the constraints SQLite offers (column, operator, usable?), the ORDER
//      BY terms and LIMIT/OFFSET. The answer says which constraints become
//      xFilter arguments (in argv order), which are exact (SQLite may drop
//      its own re-check: `omit`), whether ORDER BY is consumed by a forward
//      or reverse scan, whether at most one row can match, and estimated
//      rows and cost. describe(plan) turns it into a readable, parseable
//      string (the idxStr EXPLAIN QUERY PLAN shows); parse_plan() reads it
//      back in xFilter.
//
//   2. RangeBuilder::build(plan, args) at run time (xFilter), once the
//      argument values are known and encoded by the caller: the ordered
//      list of disjoint key ranges to scan, with the point/reverse flags and
//      LIMIT/OFFSET.
//
// Rules (DESIGN.md §6):
//   - Equality (= or IN) on a leading run of positions, then at most one
//     position with range constraints (<, <=, >, >=, byte prefix, LIKE/GLOB
//     literal prefix); every usable constraint on those positions is used
//     and the results are intersected. IN lists become several ranges, in
//     key order (sorted, duplicates and NULLs dropped).
//   - IS NULL matches nothing on a position that is never NULL; on a
//     `nullable` one it is an equality with the null element, exact
//     whatever the column, and SQLite's guess for it is twice an
//     equality's rows. IS value there is = value, or that equality when
//     the value turns out NULL.
//   - A constraint is exact (omit) only when the column is `exact` (key
//     order and equality are SQLite's for every value it can hold) and the
//     operator is =, IN, <, <=, >, >= or the byte prefix. LIKE and GLOB are
//     never exact: their literal prefix gives a superset range (see
//     pattern_ranges) and SQLite re-checks.
//   - ORDER BY is consumed when its terms are the key positions in key
//     order, all ASC or all DESC (positions fixed by a single = may be left
//     out; terms after a complete unique key are redundant), and no column
//     involved is inexact.
//   - LIMIT/OFFSET are used only when every other constraint is used and
//     exact with an argv index <= 16 (SQLite honours omit only there), none
//     is `maybe_loosened`, and ORDER BY is absent or consumed; otherwise
//     SQLite would filter or sort after rows the scan already skipped.
//   - Costs: kSeekCost per range plus one per row read. A unique point
//     lookup < an IN list of points < an equality or IN prefix (rows per
//     value guessed as SQLite guesses for an index without statistics) <
//     a two-sided range or LIKE/GLOB prefix < a one-sided range < a full
//     scan.
//   - Skip-scan: when position 0 has no usable constraint, position 1 has
//     one, and the caller knows position 0 holds few distinct values
//     (PlanRequest::leading_distinct), the plan may instead visit each
//     distinct first element in turn and apply the rules above to the
//     positions after it (core/spec_scan.h runs it). It is chosen when its
//     cost, per distinct value one seek to find it plus the plan of the
//     remaining positions over its share of the rows, is below the direct
//     plan's. Its output is in key order, so ORDER BY is consumed when it
//     starts with position 0 and the rest would be consumed per group.
//
// Thread safety: plain values; RangeBuilder is not shared between threads.
#ifndef TUPLEKV_CORE_PLAN_H_
#define TUPLEKV_CORE_PLAN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/bytes.h"
#include "core/status.h"

namespace tuplekv {

enum class PlanOp : uint8_t {
  kEq,      // position = value (or IS value); one value per xFilter call
  kIn,      // position IN (...), every value in one xFilter call
  kGt,
  kGe,
  kLt,
  kLe,
  kPrefix,  // the position's encoded bytes start with the value (a hidden column)
  kPrefixIn,  // ... with one of the values (IN on the hidden column), all in one
              // xFilter call: a key under two of them is still read once
  kLike,    // LIKE pattern, SQLite's built-in semantics (ASCII case-insensitive)
  kGlob,    // GLOB pattern
  kIsNull,  // IS NULL: nothing matches on a position that is never NULL; on a
            // `nullable` one it is = the null element (its argument, NULL,
            // is not read)
  kIs,      // IS value on a `nullable` position: = value, and = the null
            // element when the value is NULL. Planned as kEq is; its
            // FilterArg holds the value or the null element. describe()
            // writes kIsNull as kIs, and parse_plan() reads both as kIs:
            // SQLite hands an IS NULL term NULL, so the two read alike
  kLimit,
  kOffset,
  kOther,   // a constraint the plan cannot use (another column, !=, ...)
};

// One value or several on its position: =, IN and, on a nullable
// position, IS NULL and IS.
inline bool is_eq_op(PlanOp op) {
  return op == PlanOp::kEq || op == PlanOp::kIn || op == PlanOp::kIsNull || op == PlanOp::kIs;
}

// LIMIT or OFFSET: a term that constrains no position.
inline bool is_limit_op(PlanOp op) { return op == PlanOp::kLimit || op == PlanOp::kOffset; }

// The tuple null element: what a nullable position holds for NULL, and so
// the value of IS NULL there (and of IS with a NULL argument).
inline constexpr BytesView kNullElement("\x00", 1);

// How one key position is encoded in the key bytes.
enum class KeyEncoding : uint8_t {
  kRaw,      // raw bytes to the end of the key (tuplekv_kv); only as the last position
  kElement,  // one packed tuple element (self-delimiting, order-preserving)
};

struct PlanColumn {
  std::string name;         // as written in describe(); any text
  KeyEncoding encoding = KeyEncoding::kElement;
  // Key order and equality are SQLite's order and equality for every value
  // the column can hold (a typed column with BINARY collation, or raw BLOB
  // keys). When false the ranges are supersets: never omit, never consume
  // ORDER BY.
  bool exact = true;
  // Ranges (<, <=, >, >=, LIKE, GLOB) may narrow the scan: key order agrees
  // with SQLite's order wherever the two are compared. False for text in a
  // UTF-16 database, where BINARY compares UTF-16 bytes and keys hold
  // UTF-8: only = and IN narrow the scan there.
  bool ordered = true;
  // LIKE/GLOB literal prefixes may narrow the scan. Only for columns whose
  // values are text or bytes in the encoding the pattern sees.
  bool patterns = false;
  // kElement columns with `patterns`: the type code every element of the
  // column starts with (0x02 string, 0x01 bytes).
  uint8_t pattern_code = 0;
  // Name of a hidden column whose `= value` means "this position's encoded
  // bytes start with value" (kPrefix); empty if there is none.
  std::string prefix_name;
  // The position may hold NULL (an index over a nullable column), as the
  // null element, which sorts first. IS NULL is then an equality with it,
  // and SQLite's guess for it is twice an equality's rows; IS value is kIs.
  bool nullable = false;
};

struct PlanConstraint {
  PlanOp op = PlanOp::kOther;
  int column = -1;  // index into PlanRequest::columns; unused for kLimit/kOffset/kOther
  bool usable = true;
  // What planning may know of the right-hand side (a literal in the SQL).
  std::optional<int64_t> known_int;       // kLimit, kOffset
  std::optional<std::string> known_text;  // kLike, kGlob: the pattern
  // SQLite may have loosened this term and re-checks the original whatever
  // omit says: a row-value comparison `(a, b) > (x, y)` reaches a virtual
  // table as `a >= x`. Such a term still narrows the scan, but it does not
  // count as consumed, so LIMIT/OFFSET are not pushed past it.
  bool maybe_loosened = false;
};

struct PlanOrder {
  int column = -1;  // index into PlanRequest::columns; -1: not a key position
  bool desc = false;
};

struct PlanRequest {
  std::vector<PlanColumn> columns;  // the key positions, in key order
  bool unique = true;               // = on every position finds at most one row
  // Leading positions that are the columns of a unique index, 0 if none.
  // SQLite guesses one row for = on all of them (two for IS NULL, which
  // NULLs, all distinct, may each match), where it guesses about ten for
  // a plain index; rows are priced as it guesses them, so that the two
  // pick the same index.
  int unique_prefix = 0;
  std::vector<PlanConstraint> constraints;
  std::vector<PlanOrder> order_by;
  double table_rows = 1e6;          // estimate used for costs
  // Distinct values of position 0, when the caller measured them; 0 when
  // unknown, which rules out a skip-scan.
  double leading_distinct = 0;
};

struct PlanTerm {
  PlanOp op = PlanOp::kOther;
  int column = -1;      // key position; -1 for kLimit/kOffset
  int constraint = -1;  // index into PlanRequest::constraints (-1 after parse_plan)
  bool omit = false;
};

struct Plan {
  std::vector<PlanTerm> terms;  // argv order: terms[i] is argv[i] in xFilter
  bool empty = false;           // no row can match (IS NULL on a position never NULL)
  bool point = false;           // every range is exactly one key: look it up
  bool unique = false;          // at most one row (one =, no IN, unique key)
  bool reverse = false;         // scan from the end (ORDER BY ... DESC)
  bool order_consumed = false;  // output is in ORDER BY order
  // Skip-scan over position 0: the terms are on later positions, and the
  // ranges are built relative to each distinct first element.
  bool skip = false;
  // With skip: read every key in order, keeping those whose positions
  // after the first fall in the ranges, rather than seeking group by group
  // (SQLite's full scan of an index that filters on its later columns).
  bool filter = false;
  double cost = 0;
  double rows = 0;
  // SQLite's own guess for a native index searched with these terms:
  // `rows` before the doubling a superset range (inexact terms) pays.
  double native_rows = 0;
  double seeks = 1;  // ranges sought, counting an IN list as a guessed number of values
};

// Seeking to a range costs this many rows' worth of reading.
inline constexpr double kSeekCost = 10;
// Ranges built from one pattern's case variants, at most (LIKE 'abcd%':
// 16 variants of the first four letters).
inline constexpr size_t kMaxPatternRanges = 16;

Plan plan_scan(const PlanRequest& request);

// The filtered scan of the whole key space for `request`: its terms on
// positions after the first, as a skip-scan would use them, checked on
// each key read in one pass (Plan::filter). Costs as reading every key.
// nullopt when position 0 has a usable term or no later one has.
std::optional<Plan> plan_filter(const PlanRequest& request);

// The plan as readable text, also the idxStr SQLite stores and EXPLAIN
// QUERY PLAN shows, e.g.
//   point key=?1
//   range key>=?1 AND key<?2 reverse
//   range prefix=?1 limit ?2 offset ?3
//   full reverse
//   range b>?1 skip a
//   filter b>?1
// Grammar: kind (' ' term (' AND ' term)*)? (' ' flag)*, kind one of empty,
// point, range, full, filter (a skip plan read in one pass: no `skip`
// flag); term `name op ?N` with op = > >= < <=, or
// `name IN ?N`, `name LIKE ?N`, `name GLOB ?N`, `prefix_name=?N`,
// `name IS ?N` (IS on a nullable position, kIs; IS NULL reads back as
// it, its ?N being NULL); flags
// `skip name0` (name0 the name of position 0), `reverse`, `limit ?N`,
// `offset ?N`. Names that are not plain identifiers
// are double-quoted. ?N is the argv position (1-based), so terms appear in
// argv order.
std::string describe(const Plan& plan, const std::vector<PlanColumn>& columns);

// Inverse of describe() for the same columns. kInternal on anything else
// (the string only ever comes from describe()).
Result<Plan> parse_plan(std::string_view text, const std::vector<PlanColumn>& columns);

// ---------------------------------------------------------------------------
// Run time

// One argument value, already encoded for its position by the caller.
struct FilterValue {
  enum class Kind : uint8_t {
    kBytes,     // `bytes` is the encoded value (raw bytes, or one packed element)
    kNull,      // SQL NULL: every comparison is unknown, nothing matches
    kBelowAll,  // sorts before every value the position can hold
    kAboveAll,  // sorts after every value the position can hold
    kRun,       // values given as the keys they match: the run of element
                // bytes [bytes, hi); a range term may have several, in
                // order and apart (a position whose order is not SQLite's)
  };
  Kind kind = Kind::kBytes;
  Bytes bytes;
  Bytes hi;  // kRun only
};

// The argument of one plan term. Reuse these objects between calls: their
// buffers are reused, so steady-state filtering does not allocate.
struct FilterArg {
  // kEq: the value (several when one SQL value has several encodings, e.g.
  // 2 and 2.0 in an untyped column; kRun values too when it also matches
  // runs of keys, in any order: the position is then the last one the scan
  // narrows by); kIs: the same, or the null element for NULL;
  // kIn: every value of the list, in any order, duplicates
  // allowed; a range: its bound, or its kRun values;
  // kPrefix: the byte prefix; kLike/kGlob: the pattern text as bytes.
  // `count` of them are meaningful.
  std::vector<FilterValue> values;
  size_t count = 0;
  int64_t number = 0;  // kLimit, kOffset

  // Sets count = 1 and returns values[0] (reusing its buffer).
  FilterValue& single() { return resize(1)[0]; }
  // Sets count = n, reusing existing elements.
  std::vector<FilterValue>& resize(size_t n) {
    if (values.size() < n) values.resize(n);
    count = n;
    return values;
  }
};

// What to scan: ranges in key order (scan them back to front when
// `reverse`), disjoint, none empty.
struct ScanSpec {
  bool point = false;    // each range is one key: its `begin`
  bool reverse = false;
  // Skip-scan: the ranges are relative to key_prefix + a first element,
  // for each first element the store holds (`begin` empty: from the
  // group's start; `end` empty: to its end). core/spec_scan.h scans them.
  bool skip = false;
  // With skip: one pass over every key under key_prefix, keeping the keys
  // whose part after the first element falls in a range (Plan::filter).
  bool filter = false;
  uint64_t limit = 0;    // rows to return at most; 0 = no limit (see has_limit)
  bool has_limit = false;
  uint64_t offset = 0;   // rows to skip first

  size_t size() const { return count_; }
  const KeyRange& operator[](size_t i) const { return ranges_[i]; }
  KeyRange& mutable_range(size_t i) { return ranges_[i]; }
  void clear() {
    count_ = 0;
    point = reverse = skip = filter = has_limit = false;
    limit = offset = 0;
  }
  KeyRange& add() {
    if (count_ == ranges_.size()) ranges_.emplace_back();
    return ranges_[count_++];
  }
  void pop() { --count_; }

 private:
  std::vector<KeyRange> ranges_;  // first count_ are live; the rest keep buffers
  size_t count_ = 0;
};

// Builds ScanSpecs; holds scratch buffers so repeated builds do not
// allocate once warmed up.
class RangeBuilder {
 public:
  // `key_prefix` is the subspace prefix every key of the table starts with
  // (non-empty). `args` has plan.terms.size() entries in argv order.
  // kInvalidArgument when an argument does not fit its term.
  Status build(const Plan& plan, const std::vector<PlanColumn>& columns, BytesView key_prefix,
               const FilterArg* args, size_t nargs, ScanSpec* out);

  // How "every key under prefix p" ends, for a range open above. false
  // (the default): strinc(p). true: p + FF, the end of FoundationDB's
  // range(p) -- exact when p ends with a packed tuple element, where
  // strinc(p) would also take in keys whose element merely starts with
  // p's last element (bytes x'' is 01 00, x'00' is 01 00 FF 00).
  bool element_prefixes = false;

 private:
  // A vector whose first size() elements are live; the others keep their
  // buffers for the next use.
  template <typename T>
  class Reuse {
   public:
    void clear() { n_ = 0; }
    T& add() {
      if (n_ == v_.size()) v_.emplace_back();
      return v_[n_++];
    }
    size_t size() const { return n_; }
    T& operator[](size_t i) { return v_[i]; }
    const T& operator[](size_t i) const { return v_[i]; }
    T* begin() { return v_.data(); }
    T* end() { return v_.data() + n_; }
    void truncate(size_t n) { n_ = n; }
    void swap(Reuse& o) {
      v_.swap(o.v_);
      std::swap(n_, o.n_);
    }

   private:
    std::vector<T> v_;
    size_t n_ = 0;
  };

  struct Interval {
    Bytes lo;             // inclusive; "" = unbounded below
    Bytes hi;             // exclusive
    bool hi_inf = false;  // unbounded above (hi ignored)
  };
  using Intervals = Reuse<Interval>;
  using Points = Reuse<Bytes>;

  // The ranges of positions `first`.. (1 for a skip-scan, whose ranges are
  // relative to each first element) under `key_prefix`.
  Status build_ranges(const Plan& plan, const std::vector<PlanColumn>& columns, size_t first,
                      BytesView key_prefix, const FilterArg* args, size_t nargs, ScanSpec* out);
  // The one range of a plan with exactly one = per position from `first`
  // on, each with a value (a point lookup); false, with *out untouched, for
  // anything else.
  static constexpr size_t kMaxPointColumns = 16;
  static bool point_range(const Plan& plan, const std::vector<PlanColumn>& columns, size_t first,
                          BytesView key_prefix, const FilterArg* args, ScanSpec* out);
  Status position_constraints(const Plan& plan, const std::vector<PlanColumn>& columns,
                              const FilterArg* args, int pos);
  static void intersect(const Intervals& a, const Intervals& b, Intervals* out);
  // Sorts intervals by their start and joins those that overlap or touch.
  static void sort_and_merge(Intervals* v);

  // Per position being evaluated.
  bool has_points_ = false;
  Points points_;
  Points points_tmp_;
  Points points_both_;
  Intervals intervals_;
  Intervals term_intervals_;
  Intervals tmp_intervals_;
  std::vector<std::pair<Bytes, Bytes>> pattern_tmp_;
  // Prefixes built from the equality positions so far.
  Points prefixes_;
  Points next_prefixes_;
};

// The ranges, relative to the position's start, that hold every value
// matching a LIKE (`like` true) or GLOB pattern: appended to *out as
// [lo, hi) pairs (hi empty = unbounded), sorted and disjoint. Exposed for
// tests. Only the literal prefix before the first wildcard counts, and only
// its ASCII bytes (stopping at the first byte >= 0x80 or NUL): SQLite reads
// a BLOB as UTF-8 and decodes some non-canonical byte sequences to
// non-ASCII characters, but an ASCII character only ever comes from that
// one byte, so a key matches only if its bytes start with one of the
// literal prefix's case variants. LIKE's variants of the first letters are
// expanded into separate ranges (at most kMaxPatternRanges); the remaining
// letters are covered by [upper, strinc(lower)). `code` (when non-zero) is
// prepended: the type code of a packed string/bytes element.
void pattern_ranges(std::string_view pattern, bool like, uint8_t code,
                    std::vector<std::pair<Bytes, Bytes>>* out);

}  // namespace tuplekv

#endif  // TUPLEKV_CORE_PLAN_H_
