// tuplekv_table's planning: the candidates' plans, priced as SQLite prices
// the native reference's, and the choice among them (the contract is in
// table_planning.h).
#include "ext/table_planning.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/model/native_scan.h"
#include "core/plan.h"
#include "core/spec_scan.h"
#include "ext/limit_pushdown.h"
#include "ext/table_vtab.h"

namespace tuplekv::ext::table {

namespace {

// Sorting n rows costs about this times n log2 n rows of scanning.
constexpr double kSortCost = 1;
// SQLite's row count for a table without statistics, 1,048,576, as LogEst.
constexpr int kNativeRowsLogEst = 200;

bool iequal(const char* a, const char* b) { return sqlite3_stricmp(a, b) == 0; }

}  // namespace

namespace {

struct Evaluated {
  Plan plan;
  std::vector<int> source;  // request constraint -> aConstraint index
  bool ambiguous = false;
  bool covering = false;
  bool native_covering = false;  // as SQLite prices the reference (Candidate::native_covers)
  double cost = 0;         // of the scan, as SQLite is told
  double choice_cost = 0;  // plus SQLite's sort when the rows come unsorted
  bool full_scan = false;  // no position constrained (LIMIT/OFFSET aside)
  bool delivers_order = false;  // the statement has an ORDER BY, and the rows come in it
  bool native_search = false;   // an index search, priced by native_search_cost()
  bool filtered = false;        // a filtered pass, priced by native_filter_cost()
  // aConstraint entries the plan does not use but takes all the same, so
  // that SQLite runs the scan inside the loops their values come from
  // (ORDER BY terms they pin). Their xFilter arguments follow the plan's,
  // and the scan ignores them (kIdxWaits).
  std::vector<int> waits_on;
};

// Constraint i is `=` or IS with one value: not an IN list, which reaches
// xBestIndex as = too (SQLite marks IN lists among the first 32
// constraints only, so a later = may be one).
bool single_value_equality(sqlite3_index_info* info, int i) {
  const unsigned char op = info->aConstraint[i].op;
  return op == SQLITE_INDEX_CONSTRAINT_IS ||
         (op == SQLITE_INDEX_CONSTRAINT_EQ && i < 32 && !sqlite3_vtab_in(info, i, -1));
}

// The plan reads every key of its candidate: no key terms (LIMIT/OFFSET aside).
bool reads_everything(const Plan& plan) {
  return std::all_of(plan.terms.begin(), plan.terms.end(), [](const PlanTerm& term) {
    return is_limit_op(term.op);
  });
}

// Whether constraint i's right-hand side is a value SQLite shows and that
// brings no affinity to a column of `type`. A number SQLite shows may be
// a CAST(… AS INTEGER) or AS REAL, whose numeric affinity SQLite applies to
// a TEXT or ANY column's side (' 10' and '1e1' then equal 10), just as a
// join's INTEGER column does; a literal brings none. The two look alike
// here, so such a number counts as unknown.
bool rhs_affinity_free(sqlite3_index_info* info, int i, model::ColumnType type) {
  sqlite3_value* rhs = nullptr;
  if (sqlite3_vtab_rhs_value(info, i, &rhs) != SQLITE_OK || rhs == nullptr) return false;
  if (type != model::ColumnType::kText && type != model::ColumnType::kAny) return true;
  const int rhs_type = sqlite3_value_type(rhs);
  return rhs_type != SQLITE_INTEGER && rhs_type != SQLITE_FLOAT;
}

// Constraint i's right-hand side as text, if SQLite shows it and it is TEXT.
std::optional<std::string> text_rhs(sqlite3_index_info* info, int i) {
  sqlite3_value* rhs = nullptr;
  if (sqlite3_vtab_rhs_value(info, i, &rhs) != SQLITE_OK || rhs == nullptr ||
      sqlite3_value_type(rhs) != SQLITE_TEXT) {
    return std::nullopt;
  }
  const auto* p = reinterpret_cast<const char*>(sqlite3_value_text(rhs));
  if (p == nullptr) return std::nullopt;
  return std::string(p, static_cast<size_t>(sqlite3_value_bytes(rhs)));
}

// Whether `high` is `low` with its last byte raised by one: the bounds of
// the range SQLite derives from a GLOB's (or a case-sensitive LIKE's)
// literal prefix `low`.
bool is_prefix_bound(std::string_view low, std::string_view high) {
  if (low.empty() || high.size() != low.size()) return false;
  const size_t last = low.size() - 1;
  return high.substr(0, last) == low.substr(0, last) &&
         static_cast<unsigned char>(high[last]) == static_cast<unsigned char>(low[last]) + 1;
}

// Whether `low` and `high` bound the range SQLite derives from a LIKE's or
// GLOB's literal prefix: is_prefix_bound(), or for a case-insensitive LIKE
// the prefix in upper case, then in lower case with its last byte raised.
bool is_pattern_range(std::string_view low, std::string_view high) {
  if (is_prefix_bound(low, high)) return true;
  if (low.empty() || high.size() != low.size()) return false;
  const auto lower = [](char ch) { return static_cast<unsigned char>(std::tolower(static_cast<unsigned char>(ch))); };
  const size_t last = low.size() - 1;
  for (size_t k = 0; k < last; ++k) {
    if (lower(low[k]) != static_cast<unsigned char>(high[k])) return false;
  }
  return lower(low[last]) + 1 == static_cast<unsigned char>(high[last]);
}

// A `>=` and a `<` on one column whose TEXT bounds are a pattern range
// (is_pattern_range); `exact` when is_prefix_bound() holds too.
struct PrefixRange {
  int column, ge, lt;
  bool exact;
};

std::vector<PrefixRange> prefix_ranges(sqlite3_index_info* info) {
  std::vector<PrefixRange> out;
  for (int i = 0; i < info->nConstraint; ++i) {
    if (info->aConstraint[i].op != SQLITE_INDEX_CONSTRAINT_GE) continue;
    const std::optional<std::string> low = text_rhs(info, i);
    if (!low) continue;
    const int column = info->aConstraint[i].iColumn;
    for (int j = 0; j < info->nConstraint; ++j) {
      if (info->aConstraint[j].op != SQLITE_INDEX_CONSTRAINT_LT || info->aConstraint[j].iColumn != column) continue;
      const std::optional<std::string> high = text_rhs(info, j);
      if (high && is_pattern_range(*low, *high)) out.push_back({column, i, j, is_prefix_bound(*low, *high)});
    }
  }
  return out;
}

// Per constraint: for a LIKE or GLOB, the >= and < SQLite derived from it
// (empty for other constraints, and where it derived none).
std::vector<std::vector<int>> pattern_ranges(sqlite3_index_info* info, const std::vector<PrefixRange>& ranges) {
  std::vector<std::vector<int>> out(static_cast<size_t>(info->nConstraint));
  for (int p = 0; p < info->nConstraint; ++p) {
    const int op = info->aConstraint[p].op;
    if (op != SQLITE_INDEX_CONSTRAINT_LIKE && op != SQLITE_INDEX_CONSTRAINT_GLOB) continue;
    for (const PrefixRange& r : ranges) {
      if (r.column != info->aConstraint[p].iColumn) continue;
      out[static_cast<size_t>(p)].push_back(r.ge);
      out[static_cast<size_t>(p)].push_back(r.lt);
    }
  }
  return out;
}

// The distinct first elements of candidate `c` for a skip-scan, measured
// now or earlier (since the last write); 0 when unknown, too many, or
// repeated fewer than kSkipScanRowsPerValue times on average.
double leading_distinct(TableVtab& t, Candidate& c) {
  if (c.leading_distinct && c.distinct_writes == t.row_writes) return *c.leading_distinct;
  const std::string& prefix = c.is_index ? t.layout.index_prefix(c.index) : t.layout.row_prefix();
  size_t count = 0;
  size_t keys = 0;
  // A store error here only costs the skip-scan; the scan itself reports it.
  bool ok = count_leading_elements(t.store.get(), prefix, kSkipScanDistinct, &count).ok() &&
            count <= kSkipScanDistinct;
  // Enough keys to repeat each value so often: at most 18 x 256 read.
  const size_t enough = count * kSkipScanRowsPerValue;
  ok = ok && count_keys(t.store.get(), prefix, enough, &keys).ok() && keys >= enough;
  c.leading_distinct = ok ? static_cast<double>(count) : 0.0;
  c.distinct_writes = t.row_writes;
  return *c.leading_distinct;
}

// A skip-scan can only help when position 0 has no usable key constraint
// and position 1 has one.
bool skip_scan_shape(const PlanRequest& req) {
  if (req.columns.size() < 2) return false;
  bool second = false;
  for (const PlanConstraint& pc : req.constraints) {
    if (!pc.usable || pc.op == PlanOp::kOther || pc.op == PlanOp::kLimit ||
        pc.op == PlanOp::kOffset) {
      continue;
    }
    if (pc.column == 0) return false;
    if (pc.column == 1) second = true;
  }
  return second;
}

// The number of leading key positions (of `n`) the plan fixes (is_eq_op).
size_t fixed_positions(const Plan& plan, size_t n) {
  std::vector<bool> fixed(n);
  for (const PlanTerm& term : plan.terms) {
    if (is_eq_op(term.op) && term.column >= 0 && static_cast<size_t>(term.column) < n) {
      fixed[static_cast<size_t>(term.column)] = true;
    }
  }
  size_t run = 0;
  while (run < n && fixed[run]) ++run;
  return run;
}

// An index read whole (to deliver an ORDER BY) or skip-scanned: a fetched
// row costs about this many rows of scanning.
constexpr double kWholeScanFetchCost = 3;

// What SQLite charges per entry to read index `index` of the native
// reference (NativeScan::kPrimaryKey: its own key), in LogEst above the
// row count: native_scan.h's 1 + (15 * szIdxRow) / szTabRow.
int native_read_cost(const TableVtab& t, int index) {
  for (const model::NativeScan& scan : t.native_scans) {
    if (scan.index == index) return scan.cost;
  }
  return 16;  // a rowid table's own scan
}

// What SQLite 3.40 charges (where.c, whereLoopAddBtreeIndex) for a search
// of index `index` of the native reference, in rows of the reference's own
// scan. In LogEst units, per range sought: a seek into its default
// million-row table (estLog(200) = 43), plus each entry read at
// 1 + (15 * szIdxRow) / szTabRow (the width term of a full scan,
// core/model/native_scan.h), plus 16 for each row fetched where the index
// does not cover the statement, summed with SQLite's rounding; then the
// number of ranges (an IN list's length) added on. So a range over a
// narrow index beats reading the whole table even with a fetch per entry,
// and two indexes SQLite prices alike come out alike, as they do for
// SQLite.
double native_search_cost(const TableVtab& t, size_t index, const Plan& plan, bool covering) {
  constexpr int kSeek = 43;
  const int own = native_read_cost(t, model::NativeScan::kPrimaryKey);
  const int entry = native_read_cost(t, static_cast<int>(index));
  const double seeks = std::max(plan.seeks, 1.0);
  // SQLite's guess, which knows nothing of the superset an ANY or
  // collation-keyed term reads here.
  const int out = model::log_est(static_cast<uint64_t>(std::max(plan.native_rows / seeks, 1.0)));
  int run = model::log_est_add(kSeek, out + entry);
  if (!covering) run = model::log_est_add(run, out + 16);
  run += model::log_est(static_cast<uint64_t>(seeks));
  return std::exp2((run - own) / 10.0);
}

// What SQLite 3.40 charges (where.c, whereLoopAddBtree, "full scan via
// index") to read all of index `index` of the native reference, in LogEst
// units: the default row count (1,048,576: 200) plus the per-entry cost;
// where the index does not cover the statement, summed with the row
// lookups, which start at the row count plus 16 and drop by 1 for each
// WHERE term the index holds (20 for = and IS, not IN), counting terms in
// order up to the first it does not hold. SQLite counts the terms it does
// not show a virtual table too: this sees only those it shows.
int native_whole_read(const TableVtab& t, size_t index, bool covering, sqlite3_index_info* info) {
  const int read = kNativeRowsLogEst + native_read_cost(t, static_cast<int>(index));
  if (covering) return read;
  const model::TableIndex& idx = t.table.indexes[index];
  auto held = [&](int col) {
    if (col < 0 || static_cast<size_t>(col) >= t.table.columns.size()) return false;
    return std::find(idx.columns.begin(), idx.columns.end(), col) != idx.columns.end() ||
           std::find(t.table.key.begin(), t.table.key.end(), col) != t.table.key.end();
  };
  int lookups = kNativeRowsLogEst + 16;
  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& in = info->aConstraint[i];
    if (in.op == SQLITE_INDEX_CONSTRAINT_LIMIT || in.op == SQLITE_INDEX_CONSTRAINT_OFFSET) continue;
    if (!held(in.iColumn)) break;
    lookups -= single_value_equality(info, i) ? 20 : 1;
  }
  return model::log_est_add(read, lookups);
}

// A filtered pass over index `c` (which does not cover the statement), as
// SQLite prices its full scan of the reference's index: native_whole_read()
// as a share of `full`, the cost of a scan of the whole table
// here, against which the reference's own full scan (the row count plus
// its per-row cost) is weighed; at equal prices SQLite keeps the index,
// which it meets first.
double native_filter_cost(const TableVtab& t, const Candidate& c, sqlite3_index_info* info, double full) {
  const int own = kNativeRowsLogEst + native_read_cost(t, model::NativeScan::kPrimaryKey);
  const int run = native_whole_read(t, c.index, false, info);
  const double cost = full * std::exp2((run - own) / 10.0);
  // (Below by a margin that a sort cost added to both does not round away.)
  return run > own ? cost : std::min(cost, full * (1 - 1e-9));
}

// What sorting `rows` rows adds to a candidate's cost.
double sort_cost(double rows) {
  rows = std::max(rows, 2.0);
  return rows * std::log2(rows) * kSortCost;
}

Evaluated evaluate(TableVtab& t, Candidate& c, sqlite3_index_info* info, bool all_inexact) {
  Evaluated e;
  PlanRequest req;
  req.columns = c.columns;
  if (all_inexact) {
    for (PlanColumn& pc : req.columns) pc.exact = false;
  }
  req.unique = c.unique;
  req.unique_prefix = c.unique_prefix;
  std::vector<bool> unknown_text;  // per request constraint
  std::vector<bool> pattern_range;  // per request constraint: see below
  // The columns a LIKE or GLOB tests. With each, SQLite hands a virtual
  // table the range of the pattern's literal prefix (`k GLOB '1.0e+*'`
  // brings `k >= '1.0e+' AND k < '1.0e,'`) and does not test it itself.
  // That range holds only for text: a number matches a pattern by its text
  // ('1.0e+15', 'Inf') and sorts before all text. SQLite 3.40 seeks its
  // own table's index by it all the same, on any column it leads (losing
  // those numbers), and tuplekv follows it there; but it skip-scans only
  // with ANALYZE's statistics and reads an index filtered by such terms
  // never, so such a range on a column of another type leads neither.
  std::vector<int> patterned;
  for (int i = 0; i < info->nConstraint; ++i) {
    const int op = info->aConstraint[i].op;
    if (op == SQLITE_INDEX_CONSTRAINT_LIKE || op == SQLITE_INDEX_CONSTRAINT_GLOB) {
      patterned.push_back(info->aConstraint[i].iColumn);
    }
  }
  // Nor does SQLite hand over a pattern whose column carries a COLLATE
  // (`k COLLATE RTRIM GLOB '1.0e+*'`, COLLATE BINARY too); its range comes
  // all the same, under BINARY. So a range of that shape counts as a
  // pattern's: `>= 'P'` and `< 'P'` with the last byte raised. (A
  // case-insensitive LIKE's range is NOCASE, which no scan here takes.)
  // A range written so by hand then leads no skip-scan either: the same
  // rows, read whole.
  const std::vector<PrefixRange> ranges = prefix_ranges(info);
  for (const PrefixRange& r : ranges) {
    if (r.exact) patterned.push_back(r.column);
  }
  // SQLite 3.40 hands a LIKE or GLOB from the ON clause of a LEFT JOIN to
  // the table on its left as usable (where.c takes the pattern as a term
  // of its own, without the ON clause's hold on the tables to the right),
  // though narrowing that table's scan by it drops rows the join must keep.
  // The range it derives from the pattern keeps that hold: a pattern is
  // used only where its range, if there is one, is usable too, and the
  // plan then takes the range as well (Evaluated::waits_on), so that
  // SQLite drops the plan wherever the range is only offered as usable
  // because it asks for every plan (its first xBestIndex call).
  const std::vector<std::vector<int>> derived = pattern_ranges(info, ranges);
  const auto range_unusable = [&](int p) {
    return std::any_of(derived[static_cast<size_t>(p)].begin(), derived[static_cast<size_t>(p)].end(),
                       [&](int i) { return info->aConstraint[i].usable == 0; });
  };
  // The first ANY position compared by = with a value unknown at planning
  // (TableValueReader::read_term): no later position can narrow the scan.
  int loose_any = std::numeric_limits<int>::max();
  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& in = info->aConstraint[i];
    if ((in.op == SQLITE_INDEX_CONSTRAINT_LIMIT || in.op == SQLITE_INDEX_CONSTRAINT_OFFSET) &&
        !limit_pushdown_allowed()) {
      continue;  // SQLite may have withheld a WHERE term (limit_pushdown.h)
    }
    PlanConstraint pc;
    pc.usable = in.usable != 0 && !range_unusable(i);
    int pos = -1;
    if (in.iColumn < 0) pos = c.rowid_position;
    else if (static_cast<size_t>(in.iColumn) < c.position_of.size()) pos = c.position_of[static_cast<size_t>(in.iColumn)];
    bool unknown = false;
    if (pos >= 0) {
      const model::ColumnType type = c.types[static_cast<size_t>(pos)];
      const bool nullable = c.nullable[static_cast<size_t>(pos)];
      const bool textual = type == model::ColumnType::kText || type == model::ColumnType::kAny;
      const char* coll = sqlite3_vtab_collation(info, i);
      const bool binary = coll == nullptr || iequal(coll, "BINARY");
      const bool known = rhs_affinity_free(info, i, type);
      const std::string_view key_collation = c.key_collations[static_cast<size_t>(pos)];
      const bool pattern = in.op == SQLITE_INDEX_CONSTRAINT_LIKE || in.op == SQLITE_INDEX_CONSTRAINT_GLOB;
      if (in.op == SQLITE_INDEX_CONSTRAINT_ISNULL) {
        // No collation compares NULL: it is the null element in any keys.
      } else if (!key_collation.empty()) {
        // Keyed by collation keys: only a comparison under that collation
        // follows their order (LIKE and GLOB follow none).
        if (pattern || coll == nullptr || !iequal(coll, std::string(key_collation).c_str())) pos = -1;
      } else if (textual && !binary && !pattern) {
        pos = -1;  // another collation: SQLite compares
      } else if (!textual && !binary && in.iColumn >= 0) {
        // No text to collate, but the reference's index on the column is
        // BINARY and takes no term of another collation (such as the range
        // SQLite derives from a LIKE, `c >= 'X' COLLATE NOCASE`): it tests
        // the term on every row it reads, and so must SQLite here, or an
        // error another term raises on one of those rows (abs() of the
        // least integer) goes unseen. The rowid takes such terms natively.
        pos = -1;
      }
      if (pos >= 0) {
        switch (in.op) {
          case SQLITE_INDEX_CONSTRAINT_EQ:
          case SQLITE_INDEX_CONSTRAINT_IS:
            if (type == model::ColumnType::kAny && !known) {
              // A column of numeric affinity on the other side (a join, a
              // scalar subquery) also equals text that reads as its number.
              // Not an IN list: SQLite re-checks each of its values without
              // the list's affinity, so only its own IN test is right.
              if (in.op == SQLITE_INDEX_CONSTRAINT_EQ && sqlite3_vtab_in(info, i, -1)) break;
              loose_any = std::min(loose_any, pos);
              unknown = true;
            }
            pc.column = pos;
            // IS on a nullable position: its value may be NULL, which is
            // the null element there (kIs); elsewhere NULL matches nothing
            // either way.
            pc.op = in.op == SQLITE_INDEX_CONSTRAINT_EQ && type != model::ColumnType::kAny &&
                            sqlite3_vtab_in(info, i, -1)
                        ? PlanOp::kIn
                    : in.op == SQLITE_INDEX_CONSTRAINT_IS && nullable ? PlanOp::kIs
                                                                      : PlanOp::kEq;
            unknown = unknown || (type == model::ColumnType::kText && !known);
            break;
          case SQLITE_INDEX_CONSTRAINT_GT:
          case SQLITE_INDEX_CONSTRAINT_GE:
          case SQLITE_INDEX_CONSTRAINT_LT:
          case SQLITE_INDEX_CONSTRAINT_LE:
            pc.column = pos;
            pc.op = in.op == SQLITE_INDEX_CONSTRAINT_GT   ? PlanOp::kGt
                    : in.op == SQLITE_INDEX_CONSTRAINT_GE ? PlanOp::kGe
                    : in.op == SQLITE_INDEX_CONSTRAINT_LT ? PlanOp::kLt
                                                          : PlanOp::kLe;
            pc.maybe_loosened = maybe_row_value(in.op, known);
            // (An ANY position's runs, TableValueReader::any_range, widen
            // for a value that may come with numeric affinity.)
            unknown = (type == model::ColumnType::kText || type == model::ColumnType::kAny) && !known;
            break;
          case SQLITE_INDEX_CONSTRAINT_LIKE:
          case SQLITE_INDEX_CONSTRAINT_GLOB:
            if (type != model::ColumnType::kText) break;
            pc.column = pos;
            pc.op = in.op == SQLITE_INDEX_CONSTRAINT_LIKE ? PlanOp::kLike : PlanOp::kGlob;
            if (known) pc.known_text = text_rhs(info, i);
            break;
          case SQLITE_INDEX_CONSTRAINT_ISNULL:
            // An equality with the null element where the position is
            // nullable (PlanColumn::nullable), else nothing matches.
            pc.column = pos;
            pc.op = PlanOp::kIsNull;
            break;
          case SQLITE_INDEX_CONSTRAINT_ISNOTNULL:
            if (!nullable) continue;  // always true: not a constraint at all
            break;
          default:
            break;
        }
      }
    }
    if (in.op == SQLITE_INDEX_CONSTRAINT_LIMIT || in.op == SQLITE_INDEX_CONSTRAINT_OFFSET) {
      pc.op = in.op == SQLITE_INDEX_CONSTRAINT_LIMIT ? PlanOp::kLimit : PlanOp::kOffset;
      sqlite3_value* rhs = nullptr;
      if (sqlite3_vtab_rhs_value(info, i, &rhs) == SQLITE_OK && rhs != nullptr &&
          sqlite3_value_type(rhs) == SQLITE_INTEGER) {
        pc.known_int = sqlite3_value_int64(rhs);
      }
    }
    const bool range = pc.op == PlanOp::kGt || pc.op == PlanOp::kGe || pc.op == PlanOp::kLt || pc.op == PlanOp::kLe;
    pattern_range.push_back(range && pc.column >= 0 && c.types[static_cast<size_t>(pc.column)] != model::ColumnType::kText &&
                            std::find(patterned.begin(), patterned.end(), in.iColumn) != patterned.end());
    req.constraints.push_back(std::move(pc));
    unknown_text.push_back(unknown);
    e.source.push_back(i);
  }
  // SQLite prices a pattern's range against an = or IN on the same
  // column, and seeks by the range only where it guesses it narrower;
  // otherwise it drops it and tests the pattern on each row it finds, and
  // a number that matches by its text is found. The = or IN wins where it
  // fixes the first position (the range then spans a whole table), and
  // where = or IS on every position of a unique key finds one row; after
  // a fixed prefix, against an IN list or a key that is not unique, the
  // range wins and the scan follows it, as above.
  if (std::find(pattern_range.begin(), pattern_range.end(), true) != pattern_range.end()) {
    const auto fixed_by = [&](size_t pos, bool in_too) {
      return std::any_of(req.constraints.begin(), req.constraints.end(), [&](const PlanConstraint& pc) {
        return pc.usable && pc.column == static_cast<int>(pos) &&
               (pc.op == PlanOp::kEq || pc.op == PlanOp::kIs || (in_too && pc.op == PlanOp::kIn));
      });
    };
    bool one_row = c.unique;
    for (size_t pos = 0; one_row && pos < req.columns.size(); ++pos) one_row = fixed_by(pos, false);
    for (size_t i = 0; i < req.constraints.size(); ++i) {
      if (pattern_range[i] && (one_row || (req.constraints[i].column == 0 && fixed_by(0, true)))) {
        req.constraints[i].usable = false;
      }
    }
  }
  // Nor is the scan a unique lookup then: a number may also read text.
  if (loose_any != std::numeric_limits<int>::max()) req.unique = false;
  for (PlanConstraint& pc : req.constraints) {
    if (pc.column > loose_any) {
      pc.column = -1;
      pc.op = PlanOp::kOther;
    }
  }
  // ORDER BY terms on a column that IS NULL, or = under the column's
  // collation, pins tie on every row: for SQLite's plan of the reference
  // they are met by any index (where.c, wherePathSatisfiesOrderBy), so
  // they neither favour a candidate nor need a sort. Also = on TEXT or ANY
  // with a number whose affinity makes unequal values match ('2' and
  // '2.0' equal an INTEGER column's 2): SQLite checks no affinity there
  // and gives its own table's rows in the order it reads them, unsorted,
  // and so does tuplekv. Not an IN list. A field of a row value's IN
  // reaches here as = and counts too, where SQLite does not count it: no
  // API tells it apart (README, tuplekv_table "Plans").
  // A pin by a value SQLite cannot show (a joined table's column, or a
  // parameter) holds only where the value is fixed while the scan runs:
  // where the scan takes the term, SQLite runs it inside the loops the
  // value comes from and checks their order itself, as it does for its
  // own table. A scan that leaves such a term to SQLite still takes it
  // (Evaluated::waits_on), only to wait for those loops; else it could run
  // outermost, and SQLite would take its order for the whole join's. A pin
  // by a constant is taken too: an = in the ON clause of a LEFT JOIN pins
  // nothing on the table to its left, whose rows that fail it are kept,
  // and SQLite offers it as usable only in the call that asks for every
  // plan, then drops a plan that takes it.
  // The others, in order: their aOrderBy entries.
  std::vector<int> pins;  // aConstraint entries
  std::vector<int> order_source;
  for (int k = 0; k < info->nOrderBy; ++k) {
    const int col = info->aOrderBy[k].iColumn;
    bool pinned = false;
    const bool table_column = col >= 0 && static_cast<size_t>(col) < t.table.columns.size();
    for (int i = 0; i < info->nConstraint && !pinned && table_column; ++i) {
      const auto& in = info->aConstraint[i];
      if (in.usable == 0 || in.iColumn != col) continue;
      if (in.op == SQLITE_INDEX_CONSTRAINT_ISNULL) {
        pinned = true;
      } else if (single_value_equality(info, i)) {
        const char* coll = sqlite3_vtab_collation(info, i);
        const std::string own(t.table.columns[static_cast<size_t>(col)].collation);
        pinned = iequal(coll == nullptr ? "BINARY" : coll, own.c_str());
        if (pinned) pins.push_back(i);
      }
    }
    if (pinned) continue;
    order_source.push_back(k);
    int pos = -1;
    if (col < 0) pos = c.rowid_position;
    else if (static_cast<size_t>(col) < c.position_of.size()) pos = c.position_of[static_cast<size_t>(col)];
    req.order_by.push_back(PlanOrder{pos, info->aOrderBy[k].desc != 0});
  }
  // Covering: every column read is in the index entry.
  e.covering = !c.is_index;
  e.native_covering = e.covering;
  if (c.is_index) {
    e.covering = true;
    e.native_covering = true;
    const sqlite3_uint64 used = info->colUsed;
    for (size_t col = 0; col < c.covers.size(); ++col) {
      const int bit = col < 63 ? static_cast<int>(col) : 63;
      if (((used >> bit) & 1) == 0) continue;
      e.covering = e.covering && c.covers[col];
      e.native_covering = e.native_covering && c.native_covers[col];
    }
  }
  const auto uses_pattern_range = [&](const Plan& p) {
    for (const PlanTerm& term : p.terms) {
      if (term.constraint >= 0 && pattern_range[static_cast<size_t>(term.constraint)]) return true;
    }
    return false;
  };
  const bool skip_shape = skip_scan_shape(req);
  if (skip_shape) req.leading_distinct = leading_distinct(t, c);
  e.plan = plan_scan(req);
  if (e.plan.skip && uses_pattern_range(e.plan)) {
    req.leading_distinct = 0;  // no skip-scan (above)
    e.plan = plan_scan(req);
  }
  // An index that does not cover the statement, with terms on its later
  // columns only: SQLite reads the reference's index whole, checks those
  // terms on each entry and fetches only the rows that pass; a filtered
  // scan reads the same (native_filter_cost() says when it is chosen).
  // Only for a declared key: the reference is then WITHOUT ROWID, where
  // SQLite weighs every index this way.
  if (c.is_index && !e.covering && !all_inexact && skip_shape && !e.plan.skip && !e.plan.empty &&
      !t.table.implicit_key() && reads_everything(e.plan)) {
    std::optional<Plan> f = plan_filter(req);
    if (f && !uses_pattern_range(*f)) {
      // As many rows as the whole scan, as SQLite guesses for both: its
      // sort costs them alike.
      f->rows = e.plan.rows;
      e.plan = *f;
      e.filtered = true;
    }
  }
  if (all_inexact) {
    // Such a scan may read the whole candidate (TableValueReader::
    // fallback): SQLite must re-check every term, IS NULL too.
    for (PlanTerm& term : e.plan.terms) {
      if (!is_limit_op(term.op)) term.omit = false;
    }
  }
  // Nullable positions: a range open below (x < 5, or x >= 'a' on a
  // BLOB, which every BLOB passes) starts at the NULLs, which no
  // comparison matches: SQLite must re-check.
  bool dropped_omit = false;
  for (PlanTerm& term : e.plan.terms) {
    if (term.column >= 0 && c.nullable[static_cast<size_t>(term.column)] &&
        (term.op == PlanOp::kLt || term.op == PlanOp::kLe || term.op == PlanOp::kGt ||
         term.op == PlanOp::kGe) && term.omit) {
      term.omit = false;
      dropped_omit = true;
    }
  }
  for (const PlanTerm& term : e.plan.terms) {
    if (term.constraint >= 0 && unknown_text[static_cast<size_t>(term.constraint)]) e.ambiguous = true;
  }
  if (dropped_omit) {
    // LIMIT/OFFSET were pushed on the assumption that nothing is re-checked.
    std::vector<PlanTerm> kept;
    for (const PlanTerm& term : e.plan.terms) {
      if (!is_limit_op(term.op)) kept.push_back(term);
    }
    e.plan.terms.swap(kept);
  }
  e.full_scan = reads_everything(e.plan);
  e.cost = e.plan.cost;
  if (c.is_index) {
    // A search priced as SQLite prices it in the reference's index, so
    // that both read the same index and visit rows in the same order
    // (whole-table scans follow native_scans in best_index_table; SQLite
    // skip-scans only with ANALYZE's statistics). Plus a tie-break toward
    // the primary key.
    e.native_search = !e.full_scan && !e.plan.skip;
    const double fetches = e.covering ? 0 : e.plan.rows * kWholeScanFetchCost;
    const double full = std::max(req.table_rows, 1.0) + kSeekCost;  // plan_scan()'s
    e.cost = e.filtered ? native_filter_cost(t, c, info, full)
                      : 1 + (e.native_search ? native_search_cost(t, c.index, e.plan, e.native_covering)
                                             : e.plan.cost + fetches);
  } else if (e.plan.point && !t.table.implicit_key()) {
    // = or IS on every key column: SQLite looks its own key up then
    // without weighing any index (where.c, whereShortCut), so the lookup
    // wins over every index search here too (each costs at least 1).
    const bool by_equality = std::all_of(e.plan.terms.begin(), e.plan.terms.end(), [](const PlanTerm& term) {
      return term.column < 0 || term.op == PlanOp::kEq || term.op == PlanOp::kIs;
    });
    if (by_equality) e.cost = std::min(e.cost, 0.5);
  }
  // A candidate whose rows come in ORDER BY order spares SQLite a sort, as
  // a native table's index would; SQLite reads that index then, even with
  // a row lookup per entry. Choosing it too gives the rows SQLite's order
  // where the ORDER BY leaves ties (ORDER BY c3 over an index (c3, region)
  // visits ties by region). Over ANY positions (sorted scans) and
  // collation keys the order is there though never claimed, so it counts
  // as well.
  // (Every term pinned: consumed, as the rows tie.)
  if (info->nOrderBy > 0 && req.order_by.empty()) e.plan.order_consumed = true;
  bool in_order = e.plan.order_consumed || req.order_by.empty();
  if (!in_order && !all_inexact && (c.sql_order_from >= 0 || c.collation_keyed())) {
    PlanRequest as_sorted = req;
    for (PlanColumn& pc : as_sorted.columns) pc.exact = true;
    const Plan sorted = plan_scan(as_sorted);
    in_order = sorted.order_consumed;
    // Run the way that order runs, as the native table reads its index
    // backwards for a DESC: SQLite's sort keeps rows it finds equal in the
    // order it got them (ties of ORDER BY c DESC under NOCASE).
    if (in_order) e.plan.reverse = sorted.reverse;
  }
  // Where no ORDER BY sets the direction, visit rows in the reference
  // table's order: what a LIMIT without ORDER BY takes, what group_concat()
  // sees, and the order SQLite's sort keeps ties in. The reference reads
  // its key or index in stored order, so backwards where every column is
  // DESC (Candidate::stored_descending); except that where = or IN fix the
  // positions before the column the first ORDER BY term names (after the
  // key: the primary key index's other columns), SQLite runs the loop, IN
  // lists included, in the direction that term asks of that column, even
  // when an IN leaves the ORDER BY to its sort (measured, SQLite 3.40).
  // Not where a consumed GROUP BY or DISTINCT asks for grouping only
  // (sqlite3_vtab_distinct 1 or 2): SQLite 3.40 asks the same for
  // `GROUP BY a ORDER BY a` and then trusts the order, so those keep
  // ascending (README, "Known difference").
  if (req.order_by.empty()) {
    e.plan.reverse = c.stored_descending;
  } else if (!in_order) {
    const size_t next = fixed_positions(e.plan, c.column_of.size());
    int col = -2;
    bool col_desc = false;
    if (next < c.column_of.size()) {
      col = c.column_of[next];
      col_desc = c.position_desc[next];
    } else if (next - c.column_of.size() < c.order_tail.size()) {
      col = c.order_tail[next - c.column_of.size()];
    }
    const bool named = col != -2 && !e.plan.skip && col == info->aOrderBy[order_source[0]].iColumn;
    e.plan.reverse = named ? (c.stored_descending != col_desc) != req.order_by[0].desc : c.stored_descending;
  }
  const auto taken = [&](int i) {
    return std::any_of(e.plan.terms.begin(), e.plan.terms.end(), [&](const PlanTerm& term) {
      return term.constraint >= 0 && e.source[static_cast<size_t>(term.constraint)] == i;
    });
  };
  std::vector<int> waits = pins;
  for (const PlanTerm& term : e.plan.terms) {
    if (term.constraint < 0) continue;
    const int i = e.source[static_cast<size_t>(term.constraint)];
    const std::vector<int>& range = derived[static_cast<size_t>(i)];
    waits.insert(waits.end(), range.begin(), range.end());
  }
  for (const int i : waits) {
    if (!taken(i) && std::find(e.waits_on.begin(), e.waits_on.end(), i) == e.waits_on.end()) {
      e.waits_on.push_back(i);
    }
  }
  e.choice_cost = e.cost + (in_order ? 0 : sort_cost(e.plan.rows));
  e.delivers_order = in_order && !req.order_by.empty();
  return e;
}

// Where two indexes serve a statement equally well, the one the native
// reference reads: at equal prices SQLite keeps the first it meets, the
// newest index. A search's price already holds the index's width; whole
// index reads (to deliver an ORDER BY) compare SQLite's prices for them
// first (native_whole_read()). Reading the same index gives rows in the
// same order where a result shows it (a LIMIT without ORDER BY, ties of
// an ORDER BY).
bool natively_preferred(const TableVtab& t, sqlite3_index_info* info, size_t index, bool covering,
                        size_t than, bool than_covering, bool searches) {
  if (searches) return index > than;
  const int cost = native_whole_read(t, index, covering, info);
  const int than_cost = native_whole_read(t, than, than_covering, info);
  return cost != than_cost ? cost < than_cost : index > than;
}

// The aConstraint entries a plan uses, sorted.
std::vector<int> used_constraints(const Evaluated& e) {
  std::vector<int> used;
  for (const PlanTerm& term : e.plan.terms) {
    if (!is_limit_op(term.op) && term.constraint >= 0) {
      used.push_back(e.source[static_cast<size_t>(term.constraint)]);
    }
  }
  std::sort(used.begin(), used.end());
  return used;
}

// SQLite never prices an index search above one that uses a proper subset
// of its WHERE terms, unless only the subset's index covers the statement
// (where.c, whereLoopAdjustCost): the superset costs the lesser of the two
// and wins their tie. It matters where a term adds rows to the guess, as
// IS NULL does (twice an equality's), which still narrows the search.
void price_supersets_as_sqlite(std::vector<Evaluated>* evaluated) {
  std::vector<size_t> order;
  std::vector<std::vector<int>> used(evaluated->size());
  for (size_t k = 0; k < evaluated->size(); ++k) {
    if (!(*evaluated)[k].native_search) continue;
    used[k] = used_constraints((*evaluated)[k]);
    order.push_back(k);
  }
  // Subsets first, so a chain of them passes its price along.
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return used[a].size() < used[b].size(); });
  for (size_t yi = 0; yi < order.size(); ++yi) {
    Evaluated& y = (*evaluated)[order[yi]];
    for (size_t xi = 0; xi < yi; ++xi) {
      const Evaluated& x = (*evaluated)[order[xi]];
      const std::vector<int>& xs = used[order[xi]];
      const std::vector<int>& ys = used[order[yi]];
      if (xs.size() >= ys.size() || (x.native_covering && !y.native_covering) ||
          !std::includes(ys.begin(), ys.end(), xs.begin(), xs.end()) || x.cost > y.cost) {
        continue;
      }
      // Fewer rows too (one LogEst unit), which SQLite's sort is priced
      // by; and where SQLite also plans the statement without IN lists (a
      // second xBestIndex call), costs it rounds alike leave the rows to
      // decide, as they do for SQLite.
      const bool sorts = y.choice_cost > y.cost;
      y.cost = std::nextafter(x.cost, 0.0);
      y.plan.rows = std::max(1.0, std::min(y.plan.rows, std::floor(x.plan.rows * 0.9)));
      y.choice_cost = y.cost + (sorts ? sort_cost(y.plan.rows) : 0);
    }
  }
}

}  // namespace

namespace {

// Whether a statement reading `used` (colUsed) reads some but fewer than
// half of t's declared columns: then decoding a row's columns as they are
// read beats decoding the row whole, which is cheaper per column.
bool reads_few_columns(const TableVtab& t, sqlite3_uint64 used) {
  const size_t ncols = t.ncols();
  size_t count = 0;
  for (size_t c = 0; c < ncols && c < 63; ++c) count += (used >> c) & 1;
  if (ncols > 63 && ((used >> 63) & 1) != 0) count += ncols - 63;
  return count > 0 && 2 * count < ncols;
}

}  // namespace

int best_index_table(TableVtab* t, sqlite3_index_info* info) {
  size_t best = 0;
  std::vector<Evaluated> evaluated;
  // Every candidate would scan it all or read an index in a filtered pass,
  // and sort alike.
  bool whole_or_filtered = true;
  for (size_t k = 0; k < t->candidates.size(); ++k) {
    Evaluated e = evaluate(*t, t->candidates[k], info, false);
    if (e.ambiguous) {
      const bool ambiguous = true;
      e = evaluate(*t, t->candidates[k], info, true);
      e.ambiguous = ambiguous;
    }
    whole_or_filtered = whole_or_filtered && (e.full_scan || e.filtered) && !e.delivers_order;
    evaluated.push_back(std::move(e));
  }
  price_supersets_as_sqlite(&evaluated);
  for (size_t k = 0; k < evaluated.size(); ++k) {
    const Evaluated& e = evaluated[k];
    if (k == 0 || e.choice_cost < evaluated[best].choice_cost) {
      best = k;
    } else if (e.choice_cost == evaluated[best].choice_cost && t->candidates[k].is_index &&
               t->candidates[best].is_index &&
               natively_preferred(*t, info, t->candidates[k].index, e.native_covering, t->candidates[best].index,
                                  evaluated[best].native_covering, e.native_search && evaluated[best].native_search)) {
      best = k;
    }
  }
  // Only for a declared key, whose reference is a WITHOUT ROWID table. A
  // rowid table's own scan is also what `NOT INDEXED` (which SQLite does
  // not tell a virtual table) and SQLite's one-pass UPDATE and DELETE
  // read, so an implicit key keeps to it. And raw_key is the row's stored
  // key: a statement reading it has no native twin, and gets key order.
  const size_t raw_bit = std::min<size_t>(static_cast<size_t>(t->raw_column), 63);
  const bool filtered_best = whole_or_filtered && evaluated[best].filtered;
  // Where a filtered pass lost to a whole scan, it loses to SQLite's
  // whole scan too, which costs no more than the key's.
  if (whole_or_filtered && !t->table.implicit_key() && ((info->colUsed >> raw_bit) & 1) == 0) {
    // Read what SQLite would read of the native table, so that rows come
    // in its order (core/model/native_scan.h); the primary key otherwise
    // wins every tie of the costs above.
    std::vector<bool> used(t->table.columns.size());
    for (size_t col = 0; col < used.size(); ++col) {
      used[col] = ((info->colUsed >> std::min<size_t>(col, 63)) & 1) != 0;
    }
    // `c IS NOT NULL` on a nullable column: SQLite may read it as a range
    // over an index c leads (model::choose_native_scan); tuplekv leaves
    // the term to SQLite and reads that index whole, in the same order.
    std::vector<bool> not_null(used.size());
    for (int i = 0; i < info->nConstraint; ++i) {
      const auto& in = info->aConstraint[i];
      if (in.usable && in.op == SQLITE_INDEX_CONSTRAINT_ISNOTNULL && in.iColumn >= 0 &&
          static_cast<size_t>(in.iColumn) < not_null.size() &&
          !t->table.columns[static_cast<size_t>(in.iColumn)].not_null) {
        not_null[static_cast<size_t>(in.iColumn)] = true;
      }
    }
    const model::NativeScan& scan = t->native_scans[model::choose_native_scan(t->native_scans, used, not_null)];
    const size_t native = scan.index == model::NativeScan::kPrimaryKey ? 0 : 1 + static_cast<size_t>(scan.index);
    if (!filtered_best) {
      best = native;
    } else if (scan.index != model::NativeScan::kPrimaryKey && evaluated[native].full_scan &&
               natively_preferred(*t, info, static_cast<size_t>(scan.index), true, t->candidates[best].index,
                                  false, false)) {
      // The narrowest index that needs no row lookups, read whole, beats
      // the filtered pass in SQLite's prices. (Against the reference's own
      // scan the pass was weighed in native_filter_cost().)
      best = native;
    }
  }
  Evaluated chosen = std::move(evaluated[best]);
  const Candidate& c = t->candidates[best];
  // SQLite applies a multi-row UPDATE of its own table in key order when
  // it changes a key column, says OR REPLACE, has a subquery or changes a
  // column of the index it reads through (two passes: the keys collected
  // in a sorted ephemeral index, or a rowid set), else in the order it
  // reads the rows; a virtual table's in the order the scan returns them.
  // That order decides which of several rows that collide an UPDATE OR
  // IGNORE, OR FAIL or OR REPLACE keeps. A scan that reads raw_key is such
  // a statement's (xUpdate takes the row by it); planning does not learn
  // the changed columns or the conflict clause, so one through an index
  // holds its rows and returns them in key order, which is right for the
  // key changes (README, "Known difference"). The primary key's own scans
  // come in that order. Not where the scan gives SQLite its ORDER BY (or
  // GROUP BY, DISTINCT): SQLite's rewrite of DELETE or UPDATE ... ORDER BY
  // ... LIMIT reads raw_key in that order, and its own rows that tie on
  // the index's columns come in key order already.
  const bool key_order = c.is_index && !chosen.plan.unique && !chosen.plan.order_consumed &&
                         ((info->colUsed >> raw_bit) & 1) != 0;
  for (size_t k = 0; k < chosen.plan.terms.size(); ++k) {
    const int i = chosen.source[static_cast<size_t>(chosen.plan.terms[k].constraint)];
    info->aConstraintUsage[i].argvIndex = static_cast<int>(k) + 1;
    info->aConstraintUsage[i].omit = chosen.plan.terms[k].omit ? 1 : 0;
    if (chosen.plan.terms[k].op == PlanOp::kIn) sqlite3_vtab_in(info, i, 1);
  }
  for (size_t k = 0; k < chosen.waits_on.size(); ++k) {
    const int i = chosen.waits_on[k];
    info->aConstraintUsage[i].argvIndex = static_cast<int>(chosen.plan.terms.size() + k) + 1;
    info->aConstraintUsage[i].omit = 0;
  }
  info->orderByConsumed = chosen.plan.order_consumed ? 1 : 0;
  if (chosen.plan.unique) info->idxFlags |= SQLITE_INDEX_SCAN_UNIQUE;
  info->estimatedCost = chosen.cost;
  info->estimatedRows = static_cast<sqlite3_int64>(chosen.plan.rows);
  std::string label = c.is_index ? "index " + t->table.indexes[c.index].name : "primary key";
  if (c.is_index && chosen.covering) label += " covering";
  if (chosen.ambiguous) label += " recheck";
  // The scan holds what it reads to return it in SQLite's order.
  if (key_order) {
    label += " key order";
  } else if (c.sql_order_from >= 0 && !chosen.plan.unique) {
    label += " sorted";
  }
  label += ": ";
  const std::string text = label + describe(chosen.plan, c.columns);
  info->idxNum = static_cast<int>(best) | (chosen.covering && c.is_index ? kIdxCovering : 0) |
                 (chosen.ambiguous ? kIdxAmbiguous : 0) | (key_order ? kIdxKeyOrder : 0) |
                 (chosen.waits_on.empty() ? 0 : kIdxWaits) | (info->colUsed == 0 ? kIdxNoColumns : 0) |
                 (reads_few_columns(*t, info->colUsed) ? kIdxFewColumns : 0) |
                 static_cast<int>(label.size() << kIdxLabelShift);
  info->idxStr = sqlite3_mprintf("%s", text.c_str());
  if (info->idxStr == nullptr) return SQLITE_NOMEM;
  info->needToFreeIdxStr = 1;
  return SQLITE_OK;
}

}  // namespace tuplekv::ext::table
