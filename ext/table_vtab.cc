// tuplekv_table: typed rows keyed by a tuple, with secondary indexes kept
// in the same transaction as their rows.
//
// USAGE
//   CREATE VIRTUAL TABLE users USING tuplekv_table(
//       user_id INTEGER, name TEXT, region TEXT,
//       PRIMARY KEY(user_id), INDEX region_idx(region),
//       subspace=user, store=sqlite);
//   INSERT INTO users VALUES (1, 'ann', 'eu'), (2, 'bob', 'us');
//   SELECT name FROM users WHERE region = 'eu';     -- region_idx, then the row
//     ann
//
// It behaves like the native table
//   CREATE TABLE users(user_id INTEGER NOT NULL, name TEXT, region TEXT,
//                      PRIMARY KEY(user_id)) STRICT, WITHOUT ROWID;
//   CREATE INDEX region_idx ON users(region);
// (schema rules and STRICT coercion: core/model/table.h). Without a
// PRIMARY KEY the table has an implicit integer key, the `rowid`, assigned
// as SQLite assigns rowids (the largest plus one).
//
// KEY LAYOUT (DESIGN.md §4): row pack((S, pk...)) = pack((non-key columns...)),
// index entry pack((I, indexed values..., pk...)) = ''. S is subspace= or
// the table name; a rename of a table without subspace= moves its rows.
// Index names must be unique in the database (they are their subspaces).
//
// OPTIONS  subspace=NAME, store=sqlite|memory (as every keyspace table).
// COLUMNS  as declared, plus `raw_key BLOB HIDDEN`: the stored row key
//          (the declared PRIMARY KEY of the virtual table, so xUpdate gets
//          it for DELETE/UPDATE). If a column is named raw_key already, the
//          hidden one gets underscores in front.
//
// WRITES. INSERT, UPDATE (also of key columns: the row moves and its index
// entries follow) and DELETE; every index entry is written or removed with
// its row. Checks run in SQLite's order: NOT NULL (key columns included),
// then each column's type (core coerce()), then the key's uniqueness, which
// follows the conflict clause (sqlite3_vtab_on_conflict): ABORT, FAIL,
// ROLLBACK "UNIQUE constraint failed: t.a, t.b" (SQLITE_CONSTRAINT_PRIMARYKEY);
// IGNORE skips the row; REPLACE deletes the row in the way (and, as SQLite,
// uses a NOT NULL column's DEFAULT instead of NULL). In ANY key columns 2
// and 2.0 are one key, as in SQLite. A type error under OR IGNORE is
// SQLITE_MISMATCH with SQLite's message (SQLite would silently skip any
// constraint code there, where a STRICT table reports the error).
// Statement atomicity: the SQLite store's writes are part of SQLite's
// statement journal; the memory store undoes them through the savepoint
// hooks. UPSERT is refused by SQLite for every virtual table.
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
//                      returned in primary key order (see below)
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
#include "ext/table_vtab.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "core/model/sql_any.h"
#include "core/model/sql_order.h"
#include "core/move_prefix.h"
#include "core/spec_scan.h"
#include "core/subspace.h"
#include "core/tuple.h"
#include "ext/batch_rows.h"
#include "ext/created_in_transaction.h"
#include "ext/errors.h"
#include "ext/insert_rowid.h"
#include "ext/limit_pushdown.h"
#include "ext/registry.h"
#include "ext/table_bounds.h"
#include "ext/table_storage.h"
#include "ext/values.h"

namespace tuplekv::ext::table {

namespace {

constexpr int kIdxCandidateMask = 0xff;
constexpr int kIdxCovering = 0x100;
constexpr int kIdxAmbiguous = 0x200;
constexpr int kIdxKeyOrder = 0x400;
constexpr int kIdxWaits = 0x800;  // xFilter arguments after the plan's: Evaluated::waits_on
constexpr int kIdxLabelShift = 16;
// Sorting n rows costs about this times n log2 n rows of scanning.
constexpr double kSortCost = 1;
// SQLite's row count for a table without statistics, 1,048,576, as LogEst.
constexpr int kNativeRowsLogEst = 200;

bool iequal(const char* a, const char* b) { return sqlite3_stricmp(a, b) == 0; }

}  // namespace

// ---------------------------------------------------------------------------
// The table

const std::string& TableVtab::rowid_name() {
  static const std::string kRowid = "rowid";
  return kRowid;
}

int TableVtab::fail(const Status& s) {
  return set_vtab_error(this, with_store_context(s, kModule, name));
}

Status TableVtab::open(sqlite3* d, int argc, const char* const* argv, bool create) {
  db = d;
  registry = ConnectionRegistry::of(db);
  schema = argv[1];
  name = argv[2];
  const std::string module = kModule;
  // `name = value` arguments are options; everything else is schema.
  std::vector<const char*> option_args;
  std::vector<std::string> defs;
  for (int i = 3; i < argc; ++i) {
    std::string_view a = argv[i];
    size_t p = 0;
    while (p < a.size() && std::isspace(static_cast<unsigned char>(a[p]))) ++p;
    size_t q = p;
    while (q < a.size() && (std::isalnum(static_cast<unsigned char>(a[q])) || a[q] == '_')) ++q;
    size_t r = q;
    while (r < a.size() && std::isspace(static_cast<unsigned char>(a[r]))) ++r;
    if (q > p && r < a.size() && a[r] == '=') {
      option_args.push_back(argv[i]);
    } else {
      defs.emplace_back(a);
    }
  }
  std::vector<ModuleOption> opts;
  TUPLEKV_RETURN_IF_ERROR(parse_module_options(module, static_cast<int>(option_args.size()),
                                               option_args.data(), &opts));
  TUPLEKV_RETURN_IF_ERROR(take_keyspace_options(module, name, &opts, &options));
  if (!opts.empty()) {
    return Status::InvalidArgument(module + ": unknown option '" + opts[0].written + "'");
  }
  TUPLEKV_RETURN_IF_ERROR(model::parse_table_schema(module, name, defs, &table));
  table.name_automatic_indexes(options.subspace);
  for (const model::TableIndex& idx : table.indexes) {
    if (idx.name == options.subspace) {
      return Status::InvalidArgument(module + ": index " + idx.name +
                                     " has the name of the table's subspace");
    }
  }
  if (!is_valid_utf8(options.subspace)) {
    return Status::InvalidArgument(module + ": subspace '" + options.subspace + "' is not valid UTF-8");
  }
  TUPLEKV_ASSIGN_OR_RETURN(layout, model::TableLayout::make(table, options.subspace));
  if (!table.checks.empty()) {
    row_checks = std::make_unique<RowChecks>(db, kModule, table);
    if (create) TUPLEKV_RETURN_IF_ERROR(row_checks->validate(name));
  }

  TUPLEKV_ASSIGN_OR_RETURN(text_read, text_read_for(db));
  raw_name = "raw_key";
  while (table.find_column(raw_name) >= 0) raw_name = "_" + raw_name;
  raw_column = static_cast<int>(ncols());
  std::string decl = "CREATE TABLE x(";
  for (const model::TableColumn& c : table.columns) {
    decl += quote_identifier(c.name);
    // ANY is declared without a type: no affinity, as in a STRICT table.
    // The others as written (INT or INTEGER), for PRAGMA table_info.
    if (c.type != model::ColumnType::kAny) decl += " " + std::string(c.type_label);
    // SQLite enforces nothing here, but it reads NOT NULL as native tables
    // have it: `a IS NULL` is false without a scan, and PRAGMA table_info
    // says so. Key columns are NOT NULL, as in a WITHOUT ROWID table.
    if (c.not_null) decl += " NOT NULL";
    // SQLite applies a non-key column's collation itself (comparisons,
    // ORDER BY, GROUP BY, DISTINCT) when the declaration names it.
    if (c.collation != "BINARY") decl += " COLLATE " + std::string(c.collation);
    if (!c.default_sql.empty()) decl += " DEFAULT " + c.default_sql;
    decl += ", ";
  }
  decl += quote_identifier(raw_name) + " BLOB HIDDEN";
  if (!table.implicit_key()) decl += ", PRIMARY KEY(" + quote_identifier(raw_name) + ")) WITHOUT ROWID";
  else decl += ")";
  int rc = sqlite3_declare_vtab(db, decl.c_str());
  if (rc != SQLITE_OK) {
    return Status::Native(StatusCode::kInvalidArgument, rc,
                          module + ": cannot declare the table (" + std::string(sqlite3_errmsg(db)) + ")");
  }
  sqlite3_vtab_config(db, SQLITE_VTAB_CONSTRAINT_SUPPORT, 1);
  sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);

  registry->sweep();
  if (options.memory) {
    const std::string declaration = ConnectionRegistry::declaration_of(argc, argv);
    ConnectionRegistry::MemoryTable m =
        create ? registry->create_memory(schema, name, layout.row_prefix(), declaration)
               : registry->connect_memory(schema, name, layout.row_prefix(), declaration);
    store = std::move(m.store);
    if (m.prefix != layout.row_prefix()) {
      // A renamed memory table keeps the prefix it was created with.
      Tuple t;
      TUPLEKV_RETURN_IF_ERROR(unpack(m.prefix, &t));
      if (t.size() != 1 || t[0].type() != ElementType::kString) {
        return Status::Internal("tuplekv internal error: memory table prefix");
      }
      // Its automatic indexes keep their names too.
      table.name_automatic_indexes(t[0].as_string());
      TUPLEKV_ASSIGN_OR_RETURN(layout, model::TableLayout::make(table, t[0].as_string()));
    }
  } else {
    if (create) TUPLEKV_RETURN_IF_ERROR(SqliteStore::create_table(db, schema, name));
    TUPLEKV_ASSIGN_OR_RETURN(std::unique_ptr<SqliteStore> s, SqliteStore::open(db, schema, name));
    // A bulk load sorts its rows before they reach the B-tree (README,
    // "Write batching"); table_sync() applies them before the commit.
    s->enable_write_batching();
    sqlite_store = s.get();
    store = std::shared_ptr<OrderedStore>(std::move(s));
  }
  if (create) registry->drop_stats(schema, name);
  stats = registry->stats(schema, name);
  rows = std::make_unique<model::TableRows>(store.get(), &layout);

  // Candidates: the primary key, then each index.
  auto plan_column = [&](int col) {
    PlanColumn pc;
    pc.name = column_name(col);
    const model::ColumnType t = col < 0 ? model::ColumnType::kInteger : table.columns[static_cast<size_t>(col)].type;
    // Collation keys sort and match as SQLite compares under the column's
    // collation, but that is not the order of every constraint (a BINARY
    // one, LIKE): their ranges count as supersets, as DESIGN asks.
    const bool keyed = col >= 0 && table.columns[static_cast<size_t>(col)].keyed_by_collation();
    pc.exact = t != model::ColumnType::kAny && !keyed;
    pc.patterns = t == model::ColumnType::kText && !keyed;
    pc.pattern_code = 0x02;
    if (text_read != TextRead::kUtf8AsStored &&
        (t == model::ColumnType::kText || t == model::ColumnType::kAny)) {
      // A UTF-16 database compares text as UTF-16 bytes; keys hold UTF-8.
      pc.exact = false;
      pc.ordered = false;
      pc.patterns = false;
    }
    return pc;
  };
  auto add_position = [&](Candidate* c, int col, bool nullable) {
    c->columns.push_back(plan_column(col));
    c->columns.back().nullable = nullable;
    c->types.push_back(col < 0 ? model::ColumnType::kInteger : table.columns[static_cast<size_t>(col)].type);
    const bool keyed = col >= 0 && table.columns[static_cast<size_t>(col)].keyed_by_collation();
    c->key_collations.push_back(keyed ? table.columns[static_cast<size_t>(col)].collation : std::string_view());
    c->nullable.push_back(nullable);
    c->column_of.push_back(col);
    const int pos = static_cast<int>(c->columns.size()) - 1;
    if (col < 0) c->rowid_position = pos;
    else c->position_of[static_cast<size_t>(col)] = pos;
  };
  auto add_key = [&](Candidate* c) {
    if (table.implicit_key()) {
      add_position(c, -1, false);
    } else {
      for (int k : table.key) add_position(c, k, false);
    }
  };
  for (size_t i = 0; i <= table.indexes.size(); ++i) {
    Candidate c;
    c.is_index = i > 0;
    c.index = i > 0 ? i - 1 : 0;
    c.position_of.assign(ncols() + 1, -1);
    // Positions follow the entry's elements: the indexed columns, then the
    // key. An index that repeats a column (or holds a key column) is
    // planned on the elements before the repetition only; it is then not
    // unique on its positions.
    bool truncated = false;
    if (c.is_index) {
      for (int col : table.indexes[c.index].columns) {
        if (c.position_of[static_cast<size_t>(col)] >= 0) {
          truncated = true;
          break;
        }
        add_position(&c, col, !table.columns[static_cast<size_t>(col)].not_null);
      }
    }
    if (!truncated) {
      for (int k : table.key) truncated = truncated || c.position_of[static_cast<size_t>(k)] >= 0;
    }
    if (!truncated) add_key(&c);
    c.unique = !truncated;
    // The elements of an entry: the indexed columns, then the key, whether
    // or not the planner sees them all.
    std::vector<int> elements;
    if (c.is_index) elements = table.indexes[c.index].columns;
    if (!table.implicit_key()) elements.insert(elements.end(), table.key.begin(), table.key.end());
    for (size_t e = 0; e < elements.size() && c.sql_order_from < 0; ++e) {
      if (table.columns[static_cast<size_t>(elements[e])].type == model::ColumnType::kAny) {
        c.sql_order_from = static_cast<int>(e);
      }
    }
    c.covers.assign(ncols() + 1, !c.is_index);
    if (c.is_index) {
      // An entry holds collation keys, not values, of columns keyed so.
      for (int col : table.indexes[c.index].columns) {
        c.covers[static_cast<size_t>(col)] = !table.columns[static_cast<size_t>(col)].keyed_by_collation();
      }
      for (int k : table.key) {
        c.covers[static_cast<size_t>(k)] = !table.columns[static_cast<size_t>(k)].keyed_by_collation();
      }
      c.covers[ncols()] = true;  // raw_key: made from the key
    }
    c.stored_descending = table.stored_descending(c.is_index ? static_cast<int>(c.index) : -1);
    for (size_t pos = 0; pos < c.column_of.size(); ++pos) {
      const int col = c.column_of[pos];
      bool desc = false;
      if (c.is_index && pos < table.indexes[c.index].columns.size()) {
        desc = pos < table.indexes[c.index].descending.size() && table.indexes[c.index].descending[pos];
      } else if (col >= 0) {
        const size_t k = static_cast<size_t>(table.columns[static_cast<size_t>(col)].key_pos);
        desc = k < table.key_descending.size() && table.key_descending[k];
      }
      c.position_desc.push_back(desc);
    }
    if (!c.is_index && !table.implicit_key()) {
      for (int col : table.values) {
        c.order_tail.push_back(table.columns[static_cast<size_t>(col)].collation == "BINARY" ? col : -1);
      }
    }
    c.plans = std::make_unique<PlanCache>(c.columns);
    candidates.push_back(std::move(c));
  }
  native_scans = model::native_full_scans(table);
  remember_table(this);
  return Status::OK();
}

Status TableVtab::destroy() {
  TUPLEKV_RETURN_IF_ERROR(drop_table_storage(registry.get(), db, schema, name, options.memory));
  sqlite_store = nullptr;
  rows.reset();
  store.reset();
  return Status::OK();
}

Status TableVtab::rename(const std::string& to) {
  // Moving keys runs statements; the ALTER must leave changes() as it was.
  const int64_t changes = sqlite3_changes64(db);
  const bool moves_keys = !options.subspace_given && !options.memory;
  if (moves_keys) TUPLEKV_RETURN_IF_ERROR(refuse_key_move_while_reading(kModule, name, spare_cursors.open()));
  TUPLEKV_RETURN_IF_ERROR(
      rename_table_storage(registry.get(), db, sqlite_store, schema, name, to, options.memory));
  forget_table(this);
  name = to;
  remember_table(this);
  if (moves_keys) {
    for (const model::TableIndex& idx : table.indexes) {
      if (idx.name == to) {
        return Status::InvalidArgument(std::string(kModule) + ": index " + idx.name +
                                       " has the table's new name");
      }
    }
    const model::TableLayout from = layout;
    table.name_automatic_indexes(to);
    TUPLEKV_ASSIGN_OR_RETURN(layout, model::TableLayout::make(table, to));
    TUPLEKV_RETURN_IF_ERROR(move_prefix(store.get(), from.row_prefix(), layout.row_prefix()));
    for (size_t i = 0; i < table.indexes.size(); ++i) {
      if (!table.indexes[i].automatic) continue;
      TUPLEKV_RETURN_IF_ERROR(move_prefix(store.get(), from.index_prefix(i), layout.index_prefix(i)));
    }
    options.subspace = to;
  }
  return set_changes(db, changes);
}

Status TableVtab::load_row(BytesView key_elements, Bytes* key_buf, Bytes* value_buf,
                           model::TableLayout::Elements* row, bool* found) {
  key_buf->assign(layout.row_prefix());
  key_buf->append(key_elements);
  TUPLEKV_RETURN_IF_ERROR(store->get(*key_buf, value_buf, found));
  if (!*found) return Status::OK();
  BytesView ke;
  return layout.split_row(*key_buf, *value_buf, row, &ke);
}

// ---------------------------------------------------------------------------
// Planning

namespace {

struct Evaluated {
  Plan plan;
  std::vector<int> source;  // request constraint -> aConstraint index
  bool ambiguous = false;
  bool covering = false;
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
  const int out = model::log_est(static_cast<uint64_t>(std::max(plan.rows / seeks, 1.0)));
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
  std::vector<bool> unknown_text;  // per request constraint
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
    pc.usable = in.usable != 0;
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
            if (known) {
              sqlite3_value* rhs = nullptr;
              sqlite3_vtab_rhs_value(info, i, &rhs);
              if (sqlite3_value_type(rhs) == SQLITE_TEXT) {
                const auto* p = sqlite3_value_text(rhs);
                if (p != nullptr) {
                  pc.known_text.emplace(reinterpret_cast<const char*>(p),
                                        static_cast<size_t>(sqlite3_value_bytes(rhs)));
                }
              }
            }
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
    req.constraints.push_back(std::move(pc));
    unknown_text.push_back(unknown);
    e.source.push_back(i);
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
  // they neither favour a candidate nor need a sort. Not = on TEXT or ANY
  // with a value SQLite cannot show (a join's column): its affinity may
  // make unequal values match ('1' and '1.0' equal 1). Nor an IN list.
  // A pin by a value SQLite cannot show (a joined table's column, or a
  // parameter) holds only where the value is fixed while the scan runs:
  // where the scan takes the term, SQLite runs it inside the loops the
  // value comes from and checks their order itself, as it does for its
  // own table. A scan that leaves such a term to SQLite still takes it
  // (Evaluated::waits_on), only to wait for those loops; else it could run
  // outermost, and SQLite would take its order for the whole join's.
  // The others, in order: their aOrderBy entries.
  std::vector<int> join_pins;  // aConstraint entries
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
        const model::ColumnType type = t.table.columns[static_cast<size_t>(col)].type;
        const bool affinity_free = type != model::ColumnType::kText && type != model::ColumnType::kAny;
        pinned = (affinity_free || rhs_affinity_free(info, i, type)) &&
                 iequal(coll == nullptr ? "BINARY" : coll, own.c_str());
        sqlite3_value* rhs = nullptr;
        const bool shown = sqlite3_vtab_rhs_value(info, i, &rhs) == SQLITE_OK && rhs != nullptr;
        if (pinned && !shown) join_pins.push_back(i);
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
  if (c.is_index) {
    e.covering = true;
    const sqlite3_uint64 used = info->colUsed;
    for (size_t col = 0; col < c.covers.size(); ++col) {
      const int bit = col < 63 ? static_cast<int>(col) : 63;
      if ((used >> bit) & 1) e.covering = e.covering && c.covers[col];
    }
  }
  const bool skip_shape = skip_scan_shape(req);
  if (skip_shape) req.leading_distinct = leading_distinct(t, c);
  e.plan = plan_scan(req);
  // An index that does not cover the statement, with terms on its later
  // columns only: SQLite reads the reference's index whole, checks those
  // terms on each entry and fetches only the rows that pass; a filtered
  // scan reads the same (native_filter_cost() says when it is chosen).
  // Only for a declared key: the reference is then WITHOUT ROWID, where
  // SQLite weighs every index this way.
  if (c.is_index && !e.covering && !all_inexact && skip_shape && !e.plan.skip && !e.plan.empty &&
      !t.table.implicit_key() && reads_everything(e.plan)) {
    std::optional<Plan> f = plan_filter(req);
    if (f) {
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
                      : 1 + (e.native_search ? native_search_cost(t, c.index, e.plan, e.covering)
                                             : e.plan.cost + fetches);
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
  for (const int i : join_pins) {
    const bool taken = std::any_of(e.plan.terms.begin(), e.plan.terms.end(), [&](const PlanTerm& term) {
      return term.constraint >= 0 && e.source[static_cast<size_t>(term.constraint)] == i;
    });
    if (!taken && std::find(e.waits_on.begin(), e.waits_on.end(), i) == e.waits_on.end()) {
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
      if (xs.size() >= ys.size() || (x.covering && !y.covering) ||
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

int best_index_table(TableVtab* t, sqlite3_index_info* info) {
  size_t best = 0;
  std::vector<Evaluated> evaluated;
  bool whole_table = true;  // every candidate would scan it all, and sort alike
  bool whole_or_filtered = true;  // ... or read an index in a filtered pass
  for (size_t k = 0; k < t->candidates.size(); ++k) {
    Evaluated e = evaluate(*t, t->candidates[k], info, false);
    if (e.ambiguous) {
      const bool ambiguous = true;
      e = evaluate(*t, t->candidates[k], info, true);
      e.ambiguous = ambiguous;
    }
    whole_table = whole_table && e.full_scan && !e.delivers_order;
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
               natively_preferred(*t, info, t->candidates[k].index, e.covering, t->candidates[best].index,
                                  evaluated[best].covering, e.native_search && evaluated[best].native_search)) {
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
  if ((whole_table || filtered_best) && !t->table.implicit_key() && ((info->colUsed >> raw_bit) & 1) == 0) {
    // Read what SQLite would read of the native table, so that rows come
    // in its order (core/model/native_scan.h); the primary key otherwise
    // wins every tie of the costs above.
    std::vector<bool> used(t->table.columns.size());
    for (size_t col = 0; col < used.size(); ++col) {
      used[col] = ((info->colUsed >> std::min<size_t>(col, 63)) & 1) != 0;
    }
    const model::NativeScan& scan = t->native_scans[model::choose_native_scan(t->native_scans, used)];
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
  // come in that order.
  const bool key_order = c.is_index && !chosen.plan.unique && ((info->colUsed >> raw_bit) & 1) != 0;
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
                 (chosen.waits_on.empty() ? 0 : kIdxWaits) |
                 static_cast<int>(label.size() << kIdxLabelShift);
  info->idxStr = sqlite3_mprintf("%s", text.c_str());
  if (info->idxStr == nullptr) return SQLITE_NOMEM;
  info->needToFreeIdxStr = 1;
  return SQLITE_OK;
}

// ---------------------------------------------------------------------------
// The cursor

struct TableCursor : sqlite3_vtab_cursor {
  TableCursor() : sqlite3_vtab_cursor{} {}
  TableVtab* table() const { return static_cast<TableVtab*>(pVtab); }

  Status filter(int idx_num, const char* idx_str, int argc, sqlite3_value** argv);
  Status next();
  bool eof() const { return eof_; }
  int column(sqlite3_context* ctx, int i);
  // The per-row path: a row's column holding a common scalar, decoded when
  // the row was read, straight to SQLite. False when column() must answer.
  bool column_scalar(sqlite3_context* ctx, int i) noexcept {
    if (!scalars_valid_) return false;
    const ScalarElement* e = scalar_at(i);
    if (e == nullptr) return false;
    if (wants_value(ctx)) result_scalar_element(ctx, *e);
    return true;
  }
  // Column i of scalars_ if it holds a common scalar (checking its UTF-8 on
  // first use), else null.
  const ScalarElement* scalar_at(int i) noexcept {
    const auto at = static_cast<size_t>(i);
    if (at >= scalars_.size()) return nullptr;
    model::TableLayout::ColumnScalar& s = scalars_[at];
    if (s.as == FramedAs::kUncheckedText) {
      s.as = scalar_text_is_valid(s.element) ? FramedAs::kScalar : FramedAs::kOther;
    }
    return s.as == FramedAs::kScalar ? &s.element : nullptr;
  }
  // False where an UPDATE reads a column it keeps: it takes that from the
  // stored row itself.
  bool wants_value(sqlite3_context* ctx) const {
    return !table()->in_transaction || !sqlite3_vtab_nochange(ctx);
  }
  int column_slow(sqlite3_context* ctx, int i);  // every other case, errors included
  // After read_row() filled scalars_ (and row_) for the current row.
  void scalars_read() {
    scalars_valid_ = !one_row_in_fresh_registers_;
    scalars_for_fresh_registers_ = one_row_in_fresh_registers_;
  }
  Status rowid(sqlite3_int64* out);
  // Set by xFilter: this is the first since xOpen and it looks up one key,
  // so its row's results go to SQLite's new output registers (values.h).
  bool one_row_in_fresh_registers_ = false;
  bool filtered_since_open_ = false;
  void recycle() {
    scan_.reset();
    eof_ = true;
    // A spare cursor keeps no memory from a large sorted scan.
    std::vector<ReadPair>().swap(sorted_);
    Bytes().swap(arena_);
    Bytes().swap(sort_keys_);
  }

 private:
  // A pair read ahead of SQLite's order: offsets into arena_.
  struct ReadPair {
    size_t key_at, key_size, value_size;
    size_t order_at, order_size;  // its SQL sort key, in sort_keys_
    bool found;                   // mapped scans: the row exists
  };

  Status expand_any_args();
  // Starts the scan, or steps it, and reads the row it is on.
  Status start();
  Status advance();
  Status on_scan_pair() {
    if (!scan_.valid()) {
      eof_ = true;
      return Status::OK();
    }
    return on_pair(scan_.key(), scan_.value());
  }
  // Sorted scans: reads the pairs that share the elements before the
  // candidate's sql_order_from, sorts them in SQLite's order and moves to
  // the first.
  Status read_sorted_group();
  Status on_sorted_pair() {
    const ReadPair& p = sorted_[sorted_at_];
    const BytesView all(arena_);
    return on_pair(all.substr(p.key_at, p.key_size), all.substr(p.key_at + p.key_size, p.value_size));
  }
  // The store's current pair -> the row's columns.
  Status on_pair(BytesView key, BytesView value);
  static std::vector<int> whole_key_terms(const Plan& plan, const Candidate& c);
  bool whole_key_spec(int argc, sqlite3_value** argv);
  // Mapped scans: whether the current entry's row exists.
  bool row_found() const { return sorting_ ? sorted_[sorted_at_].found : scan_.mapped_found(); }
  BytesView prefix() const {
    const Candidate& c = table()->candidates[cand_];
    return c.is_index ? BytesView(table()->layout.index_prefix(c.index))
                      : BytesView(table()->layout.row_prefix());
  }

  size_t cand_ = 0;
  bool covering_ = false;
  std::shared_ptr<const Plan> plan_;
  size_t plan_cand_ = 0;   // plan_ is for this candidate
  std::string plan_text_;  // and this idxStr
  std::vector<FilterArg> args_;
  std::vector<Bytes> variants_;
  RangeBuilder builder_;
  ScanSpec spec_;
  SpecScan scan_;
  bool eof_ = true;
  // Sorted scans (Candidate::sql_order_from): the current group, in order.
  // Key-ordered ones (kIdxKeyOrder): every row of the scan, one group.
  bool sorting_ = false;
  bool key_ordered_ = false;
  model::TableLayout::Elements sort_indexed_;  // scratch of split_index()
  std::vector<ReadPair> sorted_;
  size_t sorted_at_ = 0;
  Bytes arena_;
  Bytes sort_keys_;
  Bytes group_;
  bool limited_ = false;
  uint64_t remaining_ = 0;
  Bytes fetch_key_;
  // whole_key_spec(): per key position, the plan term holding its value
  // (empty when the plan is not a lookup by the whole integer key).
  std::vector<int> plan_key_terms_;
  int plan_last_column_ = -1;  // the last key position plan_ has a term on
  model::TableLayout::Elements row_, indexed_, key_parts_;
  // Row reads (not covering index entries) also decode the row's scalars.
  model::TableLayout::Scalars scalars_;
  bool scalars_valid_ = false;
  // scalars_ hold the row for one_row_in_fresh_registers_: column() answers
  // (scalars_valid_ is false, which keeps column_scalar() free of the test).
  bool scalars_for_fresh_registers_ = false;
  BytesView key_elements_;
  Bytes raw_buf_;
};

TableVtab::TableVtab() : sqlite3_vtab{} {}

TableVtab::~TableVtab() {
  forget_table(this);
}

Status TableCursor::expand_any_args() {
  // One SQL value may have several encodings (2 and 2.0): look up each.
  const Candidate& c = table()->candidates[cand_];
  for (size_t k = 0; k < plan_->terms.size(); ++k) {
    const PlanTerm& t = plan_->terms[k];
    if ((t.op != PlanOp::kEq && t.op != PlanOp::kIs && t.op != PlanOp::kIn) || t.column < 0 ||
        c.types[static_cast<size_t>(t.column)] != model::ColumnType::kAny) {
      continue;
    }
    FilterArg& a = args_[k];
    const size_t n = a.count;
    for (size_t i = 0; i < n; ++i) {
      if (a.values[i].kind != FilterValue::Kind::kBytes) continue;
      const auto code = static_cast<uint8_t>(a.values[i].bytes[0]);
      if (!((code >= 0x0b && code <= 0x1d) || code == 0x21)) continue;
      TUPLEKV_RETURN_IF_ERROR(model::sql_equal_variants_packed(a.values[i].bytes, &variants_));
      for (size_t j = 1; j < variants_.size(); ++j) {
        const size_t m = a.count + 1;
        FilterValue& extra = a.resize(m)[m - 1];
        extra.kind = FilterValue::Kind::kBytes;
        extra.bytes.assign(variants_[j]);
      }
    }
  }
  return Status::OK();
}

Status TableCursor::filter(int idx_num, const char* idx_str, int argc, sqlite3_value** argv) {
  TableVtab* t = table();
  ++t->stats->scans;
  t->forget_replaced_rows();
  eof_ = true;
  cand_ = static_cast<size_t>(idx_num & kIdxCandidateMask);
  if (cand_ >= t->candidates.size()) {
    return Status::Internal("tuplekv internal error: candidate " + std::to_string(cand_));
  }
  covering_ = (idx_num & kIdxCovering) != 0;
  key_ordered_ = (idx_num & kIdxKeyOrder) != 0 && t->candidates[cand_].is_index;
  const bool ambiguous = (idx_num & kIdxAmbiguous) != 0;
  if (idx_str == nullptr) idx_str = "";
  const size_t label = static_cast<size_t>(idx_num >> kIdxLabelShift);
  if (label > std::strlen(idx_str)) return Status::Internal("tuplekv internal error: plan label");
  // The same statement filters with the same plan every time: compare in
  // place rather than build a key (an allocation per xFilter).
  if (plan_ == nullptr || plan_cand_ != cand_ || plan_text_ != idx_str) {
    plan_ = nullptr;
    TUPLEKV_ASSIGN_OR_RETURN(plan_, t->candidates[cand_].plans->get(idx_str + label));
    plan_cand_ = cand_;
    plan_text_.assign(idx_str);
    plan_key_terms_ = whole_key_terms(*plan_, t->candidates[cand_]);
    plan_last_column_ = -1;
    for (const PlanTerm& term : plan_->terms) plan_last_column_ = std::max(plan_last_column_, term.column);
  }
  const Candidate& c = t->candidates[cand_];
  if ((idx_num & kIdxWaits) != 0 && static_cast<size_t>(argc) > plan_->terms.size()) {
    argc = static_cast<int>(plan_->terms.size());  // values only waited for
  }
  if (plan_key_terms_.empty() || ambiguous || !whole_key_spec(argc, argv)) {
    builder_.element_prefixes = true;  // every key prefix here ends with an element
    TableValueReader reader(c, ambiguous, plan_last_column_);
    TUPLEKV_RETURN_IF_ERROR(read_filter_args(*plan_, argc, argv, &reader, &args_));
    if (reader.fallback()) {
      spec_.clear();
      KeyRange& r = spec_.add();
      r = range(prefix());
    } else {
      TUPLEKV_RETURN_IF_ERROR(expand_any_args());
      TUPLEKV_RETURN_IF_ERROR(
          builder_.build(*plan_, c.columns, prefix(), args_.data(), plan_->terms.size(), &spec_));
    }
  }
  // A table with ANY keys is read in SQLite's order, as a native table
  // would be, wherever the plan lets that order show (a GROUP BY's first
  // row, min() over 0 and 0.0, LIMIT without ORDER BY). One key needs no
  // sorting.
  const bool one_key = spec_.point && !spec_.skip && spec_.size() == 1;
  sorting_ = (key_ordered_ || c.sql_order_from >= 0) && !one_key;
  one_row_in_fresh_registers_ = one_key && !filtered_since_open_;
  filtered_since_open_ = true;
  limited_ = spec_.has_limit;
  remaining_ = spec_.limit;
  if (limited_ && remaining_ == 0) return Status::OK();
  eof_ = false;
  TUPLEKV_RETURN_IF_ERROR(start());
  for (uint64_t skip = spec_.offset; skip > 0 && !eof_; --skip) TUPLEKV_RETURN_IF_ERROR(advance());
  return Status::OK();
}

// The plans whole_key_spec() serves: = on every position of the primary
// key, each an INTEGER (the common lookup by id), with nothing else pushed.
std::vector<int> TableCursor::whole_key_terms(const Plan& plan, const Candidate& c) {
  std::vector<int> term_of(c.columns.size(), -1);
  if (c.is_index || !plan.point || plan.skip || plan.terms.size() != term_of.size()) {
    return {};
  }
  for (size_t k = 0; k < plan.terms.size(); ++k) {
    const PlanTerm& term = plan.terms[k];
    if (term.op != PlanOp::kEq || term.column < 0 || static_cast<size_t>(term.column) >= term_of.size()) {
      return {};
    }
    const auto pos = static_cast<size_t>(term.column);
    if (term_of[pos] != -1 || c.types[pos] != model::ColumnType::kInteger || !c.key_collations[pos].empty()) {
      return {};
    }
    term_of[pos] = static_cast<int>(k);
  }
  return term_of;
}

// A lookup by the whole key given as integers: its one key is packed
// straight from the arguments, with none of the argument reading and
// range building a general plan needs. False (spec_ untouched) when an
// argument is not an INTEGER: TableValueReader then applies SQLite's
// comparison rules.
bool TableCursor::whole_key_spec(int argc, sqlite3_value** argv) {
  if (static_cast<size_t>(argc) != plan_key_terms_.size()) return false;
  for (const int k : plan_key_terms_) {
    if (sqlite3_value_type(argv[k]) != SQLITE_INTEGER) return false;
  }
  spec_.clear();
  spec_.point = true;
  Bytes& key = spec_.add().begin;
  key.assign(table()->layout.row_prefix());
  for (const int k : plan_key_terms_) append_int64_element(sqlite3_value_int64(argv[k]), &key);
  return true;
}

Status TableCursor::on_pair(BytesView key, BytesView value) {
  TableVtab* t = table();
  ++t->stats->rows;
  const Candidate& c = t->candidates[cand_];
  scalars_valid_ = false;
  scalars_for_fresh_registers_ = false;
  if (!c.is_index) {
    TUPLEKV_RETURN_IF_ERROR(t->layout.read_row(key, value, &row_, &scalars_, &key_elements_));
    scalars_read();
    return Status::OK();
  }
  TUPLEKV_RETURN_IF_ERROR(
      t->layout.split_index(c.index, key, &indexed_, &key_elements_, covering_ ? &key_parts_ : nullptr));
  if (!covering_) {
    // A mapped scan: `value` is the row the entry points at.
    if (!row_found()) {
      return Status::Corruption("table: index " + t->table.indexes[c.index].name +
                                " has an entry without a row (SELECT tuplekv_check('" + t->name +
                                "') tells more)");
    }
    fetch_key_.assign(t->layout.row_prefix());
    fetch_key_.append(key_elements_);
    BytesView row_key_elements;
    TUPLEKV_RETURN_IF_ERROR(t->layout.read_row(fetch_key_, value, &row_, &scalars_, &row_key_elements));
    key_elements_ = row_key_elements;
    scalars_read();
    return Status::OK();
  }
  // Covering: the columns come from the entry itself.
  row_.assign(t->ncols(), BytesView());
  const auto& cols = t->table.indexes[c.index].columns;
  for (size_t k = 0; k < cols.size(); ++k) row_[static_cast<size_t>(cols[k])] = indexed_[k];
  if (!t->table.implicit_key()) {
    for (size_t k = 0; k < t->table.key.size(); ++k) {
      row_[static_cast<size_t>(t->table.key[k])] = key_parts_[k];
    }
  }
  return Status::OK();
}

Status TableCursor::start() {
  TableVtab* t = table();
  const Candidate& c = t->candidates[cand_];
  const uint64_t seeks_before = scan_.seeks();
  // An index scan that needs more than the index reads each entry's row
  // in the same step.
  const KeyMapping* to_rows = c.is_index && !covering_ ? &t->layout.index_to_row(c.index) : nullptr;
  TUPLEKV_RETURN_IF_ERROR(scan_.start(t->store.get(), prefix(), &spec_, c.is_index, to_rows));
  t->stats->ranges += scan_.seeks() - seeks_before;
  return sorting_ ? read_sorted_group() : on_scan_pair();
}

Status TableCursor::advance() {
  if (sorting_) {
    if (++sorted_at_ < sorted_.size()) return on_sorted_pair();
    return read_sorted_group();
  }
  const uint64_t seeks_before = scan_.seeks();
  TUPLEKV_RETURN_IF_ERROR(scan_.next());
  table()->stats->ranges += scan_.seeks() - seeks_before;
  return on_scan_pair();
}

Status TableCursor::read_sorted_group() {
  TableVtab* t = table();
  const uint64_t seeks_before = scan_.seeks();
  sorted_.clear();
  sorted_at_ = 0;
  arena_.clear();
  sort_keys_.clear();
  if (!scan_.valid()) {
    eof_ = true;
    return Status::OK();
  }
  const size_t skip = prefix().size();
  // The group: the keys that share the current key's elements before the
  // first ANY one (their order is tuple order, which is SQLite's there);
  // in key order, every key.
  BytesView first = scan_.key();
  size_t group_end = skip;
  for (int e = 0; !key_ordered_ && e < t->candidates[cand_].sql_order_from; ++e) {
    size_t n = 0;
    TUPLEKV_RETURN_IF_ERROR(element_size(first.substr(group_end), &n));
    group_end += n;
  }
  group_.assign(first.substr(0, group_end));
  // Key order is the reference's stored order: backwards where every key
  // column is DESC (mixed directions: ascending, README "Known difference").
  const bool reverse = key_ordered_ ? t->candidates[0].stored_descending : spec_.reverse;
  bool in_order = true;  // often so: an ANY column holding one type
  do {
    const BytesView key = scan_.key();
    if (key.substr(0, group_.size()) != BytesView(group_)) break;
    const BytesView value = scan_.value();
    const size_t order_at = sort_keys_.size();
    if (key_ordered_) {
      BytesView key_elements;
      TUPLEKV_RETURN_IF_ERROR(
          t->layout.split_index(t->candidates[cand_].index, key, &sort_indexed_, &key_elements, nullptr));
      model::append_sql_sort_key(key_elements, &sort_keys_);
    } else {
      model::append_sql_sort_key(key.substr(skip), &sort_keys_);
    }
    const ReadPair pair{arena_.size(), key.size(), value.size(),
                        order_at,      sort_keys_.size() - order_at, scan_.mapped_found()};
    if (in_order && !sorted_.empty()) {
      const ReadPair& last = sorted_.back();
      const int c = compare_bytes(BytesView(sort_keys_).substr(last.order_at, last.order_size),
                                  BytesView(sort_keys_).substr(order_at, pair.order_size));
      in_order = reverse ? c >= 0 : c <= 0;
    }
    sorted_.push_back(pair);
    arena_.append(key);
    arena_.append(value);
    TUPLEKV_RETURN_IF_ERROR(scan_.next());
  } while (scan_.valid());
  t->stats->ranges += scan_.seeks() - seeks_before;
  if (!in_order) {
    const BytesView keys(sort_keys_);
    // Stable, so keys SQLite calls equal (only damaged ones) keep their order.
    std::stable_sort(sorted_.begin(), sorted_.end(), [&](const ReadPair& a, const ReadPair& b) {
      const int c = compare_bytes(keys.substr(a.order_at, a.order_size), keys.substr(b.order_at, b.order_size));
      return reverse ? c > 0 : c < 0;
    });
  }
  return on_sorted_pair();
}

Status TableCursor::next() {
  if (eof_) return Status::OK();
  if (limited_ && --remaining_ == 0) {
    eof_ = true;
    return Status::OK();
  }
  return advance();
}

int TableCursor::column(sqlite3_context* ctx, int i) {
  // table_column() has tried column_scalar() already.
  if (scalars_valid_) return column_slow(ctx, i);
  if (scalars_for_fresh_registers_) {
    // column_scalar() with the other kind of result.
    const ScalarElement* e = scalar_at(i);
    if (e == nullptr) return column_slow(ctx, i);
    if (wants_value(ctx)) result_scalar_element_in_fresh_register(ctx, *e);
    return SQLITE_OK;
  }
  // A covering index entry: a column holding a common scalar, no Status at all.
  TableVtab* t = table();
  ScalarElement e;
  if (i != t->raw_column && static_cast<size_t>(i) < row_.size() &&
      decode_scalar_element(row_[static_cast<size_t>(i)], &e)) {
    // An UPDATE reads the columns it keeps from the stored row itself.
    if (!sqlite3_vtab_nochange(ctx)) result_scalar_element(ctx, e);
    return SQLITE_OK;
  }
  return column_slow(ctx, i);
}

int TableCursor::column_slow(sqlite3_context* ctx, int i) {
  TableVtab* t = table();
  Status s;
  if (i == t->raw_column) {
    raw_buf_.assign(t->layout.row_prefix());
    raw_buf_.append(key_elements_);
    result_blob(ctx, raw_buf_);
    return SQLITE_OK;
  }
  // An UPDATE reads the columns it keeps from the stored row itself.
  if (sqlite3_vtab_nochange(ctx)) return SQLITE_OK;
  if (i < 0 || static_cast<size_t>(i) >= row_.size()) {
    s = Status::Internal("tuplekv internal error: column " + std::to_string(i));
  } else if (row_[static_cast<size_t>(i)].empty()) {
    s = Status::Internal("tuplekv internal error: column " + std::to_string(i) + " not read");
  } else {
    BytesView in = row_[static_cast<size_t>(i)];
    Status read = result_packed_element(ctx, &in);
    if (read.ok()) return SQLITE_OK;
    s = std::move(read);
  }
  const Status ctx_s = with_store_context(s, kModule, t->name);
  set_result_error(ctx, ctx_s);
  return sqlite_code(ctx_s);
}

Status TableCursor::rowid(sqlite3_int64* out) {
  TupleReader r(key_elements_);
  if (!table()->table.implicit_key() || !r.next() || r.type() != ElementType::kInt) {
    return Status::Internal("tuplekv internal error: no rowid");
  }
  *out = r.int64_value();
  return Status::OK();
}

// ---------------------------------------------------------------------------
// sqlite3_module slots

namespace {

TableVtab* as_table(sqlite3_vtab* v) { return static_cast<TableVtab*>(v); }
TableCursor* as_cursor(sqlite3_vtab_cursor* c) { return static_cast<TableCursor*>(c); }

int table_init(sqlite3* db, int argc, const char* const* argv, sqlite3_vtab** out, char** err,
               bool create) {
  return guard_create(err, [&] {
    auto t = std::make_unique<TableVtab>();
    const Status s = t->open(db, argc, argv, create);
    if (!s.ok()) return set_create_error(err, s);
    *out = t.release();
    return SQLITE_OK;
  });
}

// Defined with the other slots below; xCreate joins an open transaction
// through them (ext/created_in_transaction.h).
template <Status (OrderedStore::*Hook)()>
int table_txn(sqlite3_vtab* vtab) noexcept;
int table_disconnect(sqlite3_vtab* vtab) noexcept;

int table_create(sqlite3* db, void*, int argc, const char* const* argv, sqlite3_vtab** out,
                 char** err) noexcept {
  const int rc = table_init(db, argc, argv, out, err, true);
  if (rc != SQLITE_OK) return rc;
  return join_open_transaction(db, out, err, &table_txn<&OrderedStore::begin>, &table_disconnect);
}

int table_connect(sqlite3* db, void*, int argc, const char* const* argv, sqlite3_vtab** out,
                  char** err) noexcept {
  return table_init(db, argc, argv, out, err, false);
}

int table_best_index(sqlite3_vtab* vtab, sqlite3_index_info* info) noexcept {
  return guard_vtab(vtab, [&] { return best_index_table(as_table(vtab), info); });
}

int table_disconnect(sqlite3_vtab* vtab) noexcept {
  return guard_vtab(vtab, [&] {
    delete as_table(vtab);
    return SQLITE_OK;
  });
}

int table_destroy(sqlite3_vtab* vtab) noexcept {
  return guard_vtab(vtab, [&] {
    TableVtab* t = as_table(vtab);
    const Status s = t->destroy();
    if (!s.ok()) return set_vtab_error(vtab, s);
    delete t;
    return SQLITE_OK;
  });
}

int table_open(sqlite3_vtab* vtab, sqlite3_vtab_cursor** out) noexcept {
  return guard_vtab(vtab, [&] {
    TableCursor* c = as_table(vtab)->spare_cursors.take();
    *static_cast<sqlite3_vtab_cursor*>(c) = sqlite3_vtab_cursor{};
    c->filtered_since_open_ = false;
    *out = c;
    return SQLITE_OK;
  });
}

int table_close(sqlite3_vtab_cursor* cur) noexcept {
  return guard_vtab(cur->pVtab, [&] {
    std::unique_ptr<TableCursor> c(as_cursor(cur));  // owned until kept
    TableVtab* t = c->table();
    c->recycle();
    t->spare_cursors.give_back(std::move(c));
    return SQLITE_OK;
  });
}

int vtab_result(sqlite3_vtab* vtab, const Status& s) {
  return s.ok() ? SQLITE_OK : as_table(vtab)->fail(s);
}

int table_filter(sqlite3_vtab_cursor* cur, int idx_num, const char* idx_str, int argc,
                 sqlite3_value** argv) noexcept {
  return guard_vtab(cur->pVtab, [&] {
    return vtab_result(cur->pVtab, as_cursor(cur)->filter(idx_num, idx_str, argc, argv));
  });
}

int table_next(sqlite3_vtab_cursor* cur) noexcept {
  return guard_vtab(cur->pVtab, [&] { return vtab_result(cur->pVtab, as_cursor(cur)->next()); });
}

int table_eof(sqlite3_vtab_cursor* cur) noexcept { return as_cursor(cur)->eof() ? 1 : 0; }

int table_column(sqlite3_vtab_cursor* cur, sqlite3_context* ctx, int i) noexcept {
  // The per-row path first: it cannot throw.
  if (as_cursor(cur)->column_scalar(ctx, i)) return SQLITE_OK;
  return guard_vtab(cur->pVtab, [&] { return as_cursor(cur)->column(ctx, i); });
}

int table_rowid(sqlite3_vtab_cursor* cur, sqlite3_int64* out) noexcept {
  return guard_vtab(cur->pVtab, [&] { return vtab_result(cur->pVtab, as_cursor(cur)->rowid(out)); });
}

int table_update(sqlite3_vtab* vtab, int argc, sqlite3_value** argv, sqlite3_int64* rowid) noexcept {
  keep_last_insert_rowid(as_table(vtab)->db, rowid);  // an implicit key sets its own
  return guard_vtab(vtab, [&] { return as_table(vtab)->update(argc, argv, rowid); });
}

// The SQLite store's hooks are no-ops but for rollbacks (they tell open
// cursors); the memory store keeps an undo log. The implicit key's next
// value is forgotten whenever rows may have changed under it.
template <Status (OrderedStore::*Hook)()>
int table_txn(sqlite3_vtab* vtab) noexcept {
  return guard_vtab(vtab, [&] {
    TableVtab* t = as_table(vtab);
    t->next_rowid.reset();
    t->forget_replaced_rows();
    t->forget_statement();
    t->just_began = Hook == &OrderedStore::begin;
    t->in_transaction = Hook == &OrderedStore::begin;
    const Status s = (t->store.get()->*Hook)();
    return s.ok() ? SQLITE_OK : set_vtab_error(vtab, s);
  });
}

// A table that joins a transaction inside savepoints 0..n-1 (its first
// write comes after SAVEPOINT a; SAVEPOINT b) hears only xSavepoint(n) right
// after xBegin; rolling back to any of the outer ones must still undo its
// writes. So each level up to n is marked at the state of the join (the
// statement's own level n is released when the statement ends, and the
// outer marks stay).
int table_savepoint(sqlite3_vtab* vtab, int n) noexcept {
  return guard_vtab(vtab, [&] {
    TableVtab* t = as_table(vtab);
    t->forget_replaced_rows();
    // Marking a lower level discards the statement's own mark.
    t->statement_marked = false;
    t->savepoint_heard = true;
    const int level = n < 0 ? 0 : n;
    Status s;
    for (int k = t->just_began ? 0 : level; s.ok() && k <= level; ++k) s = t->store->savepoint(k);
    t->just_began = false;
    return s.ok() ? SQLITE_OK : set_vtab_error(vtab, s);
  });
}

int table_release(sqlite3_vtab* vtab, int n) noexcept {
  return guard_vtab(vtab, [&] {
    as_table(vtab)->just_began = false;
    as_table(vtab)->forget_replaced_rows();
    as_table(vtab)->forget_statement();
    const Status s = as_table(vtab)->store->release(n < 0 ? 0 : n);
    return s.ok() ? SQLITE_OK : set_vtab_error(vtab, s);
  });
}

int table_rollback_to(sqlite3_vtab* vtab, int n) noexcept {
  return guard_vtab(vtab, [&] {
    TableVtab* t = as_table(vtab);
    t->next_rowid.reset();
    t->forget_replaced_rows();
    t->just_began = false;
    t->forget_statement();
    Status s;
    if (n >= 0) {
      s = t->store->rollback_to(n);
    } else {
      s = t->store->rollback();
      if (s.ok()) s = t->store->begin();
    }
    return s.ok() ? SQLITE_OK : set_vtab_error(vtab, s);
  });
}

int table_rename(sqlite3_vtab* vtab, const char* to) noexcept {
  return guard_vtab(vtab, [&] {
    const Status s = as_table(vtab)->rename(to);
    return s.ok() ? SQLITE_OK : set_vtab_error(vtab, s);
  });
}

int table_shadow_name(const char* suffix) noexcept {
  return suffix != nullptr && sqlite3_stricmp(suffix, SqliteStore::kShadowSuffix) == 0;
}

int table_sync(sqlite3_vtab* vtab) noexcept {
  return guard_vtab(vtab, [&] {
    const Status s = as_table(vtab)->store->sync();
    return s.ok() ? SQLITE_OK : set_vtab_error(vtab, s);
  });
}

const sqlite3_module kTableModule = {
    /* iVersion      */ 3,
    /* xCreate       */ table_create,
    /* xConnect      */ table_connect,
    /* xBestIndex    */ table_best_index,
    /* xDisconnect   */ table_disconnect,
    /* xDestroy      */ table_destroy,
    /* xOpen         */ table_open,
    /* xClose        */ table_close,
    /* xFilter       */ table_filter,
    /* xNext         */ table_next,
    /* xEof          */ table_eof,
    /* xColumn       */ table_column,
    /* xRowid        */ table_rowid,
    /* xUpdate       */ table_update,
    /* xBegin        */ table_txn<&OrderedStore::begin>,
    /* xSync         */ table_sync,
    /* xCommit       */ table_txn<&OrderedStore::commit>,
    /* xRollback     */ table_txn<&OrderedStore::rollback>,
    /* xFindFunction */ nullptr,
    /* xRename       */ table_rename,
    /* xSavepoint    */ table_savepoint,
    /* xRelease      */ table_release,
    /* xRollbackTo   */ table_rollback_to,
    /* xShadowName   */ table_shadow_name,
};

}  // namespace

TableVtab* cursor_table(TableCursor* c) { return c->table(); }

}  // namespace tuplekv::ext::table

namespace tuplekv::ext {

int register_table_module(sqlite3* db, char** err) {
  int rc = sqlite3_create_module_v2(db, table::kModule, &table::kTableModule, nullptr, nullptr);
  if (rc != SQLITE_OK) {
    if (err != nullptr) *err = sqlite3_mprintf("tuplekv: cannot register module %s", table::kModule);
    return rc;
  }
  return table::register_check_function(db, err);
}

}  // namespace tuplekv::ext
