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
// PLANNING: table_planning.h (the contract between xBestIndex and xFilter:
// idxNum and idxStr).
#include "ext/table_vtab.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <memory>
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
#include "ext/registry.h"
#include "ext/table_bounds.h"
#include "ext/table_planning.h"
#include "ext/table_storage.h"
#include "ext/values.h"

namespace tuplekv::ext::table {

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

  // argv first: the sweep runs a query, and should it fail SQLite may
  // reset the schema, which frees the CREATE statement argv points into.
  const std::string declaration = options.memory ? ConnectionRegistry::declaration_of(argc, argv) : "";
  registry->sweep();
  if (options.memory) {
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
  // The key's positions, up to the first column already placed; false if
  // it stopped there.
  auto add_key = [&](Candidate* c) {
    if (table.implicit_key()) {
      add_position(c, -1, false);
      return true;
    }
    for (int k : table.key) {
      if (c->position_of[static_cast<size_t>(k)] >= 0) return false;
      add_position(c, k, false);
    }
    return true;
  };
  for (size_t i = 0; i <= table.indexes.size(); ++i) {
    Candidate c;
    c.is_index = i > 0;
    c.index = i > 0 ? i - 1 : 0;
    c.position_of.assign(ncols() + 1, -1);
    // Positions follow the entry's elements: the indexed columns, then the
    // key. An index that repeats a column (or holds a key column) is
    // planned on the elements before the first repetition only: over an
    // index on b of a table keyed (a, b), whose entries are (b, a, b), on
    // (b, a), as SQLite plans its own index (b) with the key's other
    // columns after it. It is unique on its positions only if they are
    // all of the entry's elements: a point lookup reads the key they make.
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
    if (c.is_index && !truncated && table.indexes[c.index].unique) {
      c.unique_prefix = static_cast<int>(table.indexes[c.index].columns.size());
    }
    if (!truncated) truncated = !add_key(&c);
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
    c.native_covers = c.covers;
    if (c.is_index) {
      for (int col = 0; col < static_cast<int>(ncols()); ++col) {
        if (!model::native_index_holds(table, static_cast<int>(c.index), col)) {
          c.native_covers[static_cast<size_t>(col)] = false;
        }
      }
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
  if (!options.subspace_given) TUPLEKV_RETURN_IF_ERROR(refuse_name_not_utf8(kModule, to));
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
  int column_error(sqlite3_context* ctx, const Status& s);
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
  // The store's current pair -> the row's columns (of a covering entry,
  // or in a scan reading no column, when split_entry() is first asked).
  Status on_pair(BytesView key, BytesView value);
  Status split_entry();
  // Scans reading few columns (kIdxFewColumns): a row read is begun, and
  // each column decoded when asked.
  Status start_partial_row(BytesView key, BytesView value);
  int column_of_partial_row(sqlite3_context* ctx, int i);
  // Column i from scalars_ where it holds a common scalar, as a result
  // for a fresh register (values.h) or not; else column_slow().
  // Inline: a point lookup answers every column through it.
  [[gnu::always_inline]] inline int column_from_scalars(sqlite3_context* ctx, int i, bool fresh_register);
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
  model::TableLayout::Elements row_, indexed_;
  // Row reads (not covering index entries) also decode the row's scalars.
  model::TableLayout::Scalars scalars_;
  bool scalars_valid_ = false;
  // scalars_ hold the row for one_row_in_fresh_registers_: column() answers
  // (scalars_valid_ is false, which keeps column_scalar() free of the test).
  bool scalars_for_fresh_registers_ = false;
  BytesView key_elements_;
  Bytes raw_buf_;
  // The current pair of a scan that decodes it only when asked (a covering
  // scan, or one reading no column; valid until the scan moves), and
  // whether row_, scalars_ and key_elements_ hold it yet.
  BytesView entry_, entry_value_;
  bool entry_split_ = true;
  bool reads_no_column_ = false;
  // A row read a column at a time: partial_ says how far row_ and
  // scalars_ hold it.
  bool few_columns_ = false;
  bool partial_row_ = false;
  model::TableLayout::PartialRow partial_;
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
  reads_no_column_ = (idx_num & kIdxNoColumns) != 0;
  few_columns_ = (idx_num & kIdxFewColumns) != 0;
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
      spec_.reverse = plan_->reverse;  // the direction the plan promised
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
  entry_split_ = true;
  partial_row_ = false;
  if (!c.is_index) {
    if (reads_no_column_) {
      // Decoded only if something asks (the rowid of an implicit key).
      entry_ = key;
      entry_value_ = value;
      entry_split_ = false;
      return Status::OK();
    }
    if (few_columns_) return start_partial_row(key, value);
    TUPLEKV_RETURN_IF_ERROR(t->layout.read_row(key, value, &row_, &scalars_, &key_elements_));
    scalars_read();
    return Status::OK();
  }
  if (covering_) {
    // The columns come from the entry itself, split when the first one is
    // read: a statement that reads none (count(*), EXISTS) pays for the
    // scan alone, as a native count over an index decodes no entry.
    entry_ = key;
    entry_value_ = value;
    entry_split_ = false;
    return Status::OK();
  }
  TUPLEKV_RETURN_IF_ERROR(t->layout.split_index(c.index, key, &indexed_, &key_elements_, nullptr));
  // A mapped scan: `value` is the row the entry points at.
  if (!row_found()) {
    return Status::Corruption("table: index " + t->table.indexes[c.index].name +
                              " has an entry without a row (SELECT tuplekv_check('" + t->name +
                              "') tells more)");
  }
  fetch_key_.assign(t->layout.row_prefix());
  fetch_key_.append(key_elements_);
  if (few_columns_) return start_partial_row(fetch_key_, value);
  BytesView row_key_elements;
  TUPLEKV_RETURN_IF_ERROR(t->layout.read_row(fetch_key_, value, &row_, &scalars_, &row_key_elements));
  key_elements_ = row_key_elements;
  scalars_read();
  return Status::OK();
}

Status TableCursor::start_partial_row(BytesView key, BytesView value) {
  const size_t n = table()->ncols();
  if (row_.size() != n) row_.resize(n);
  if (scalars_.size() != n) scalars_.resize(n);
  TUPLEKV_RETURN_IF_ERROR(table()->layout.start_row(key, value, &partial_, &key_elements_));
  partial_row_ = true;
  return Status::OK();
}

int TableCursor::column_of_partial_row(sqlite3_context* ctx, int i) {
  TableVtab* t = table();
  if (static_cast<size_t>(i) < t->ncols()) {
    if (const Status s = t->layout.read_column(i, &partial_, &row_, &scalars_); !s.ok()) {
      return column_error(ctx, s);
    }
  }
  return column_from_scalars(ctx, i, one_row_in_fresh_registers_);
}

int TableCursor::column_from_scalars(sqlite3_context* ctx, int i, bool fresh_register) {
  const ScalarElement* e = scalar_at(i);
  if (e == nullptr) return column_slow(ctx, i);
  if (!wants_value(ctx)) return SQLITE_OK;
  if (fresh_register) {
    result_scalar_element_in_fresh_register(ctx, *e);
  } else {
    result_scalar_element(ctx, *e);
  }
  return SQLITE_OK;
}

Status TableCursor::split_entry() {
  TableVtab* t = table();
  const Candidate& c = t->candidates[cand_];
  if (!c.is_index) {
    TUPLEKV_RETURN_IF_ERROR(t->layout.read_row(entry_, entry_value_, &row_, &scalars_, &key_elements_));
  } else {
    // Only the entry's columns are read, but none keeps the last row's.
    row_.assign(t->ncols(), BytesView());
    scalars_.resize(t->ncols());
    for (model::TableLayout::ColumnScalar& s : scalars_) s.as = FramedAs::kOther;
    TUPLEKV_RETURN_IF_ERROR(t->layout.read_index_entry(c.index, entry_, &row_, &scalars_, &key_elements_));
  }
  entry_split_ = true;
  scalars_read();
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
  if (partial_row_) return column_of_partial_row(ctx, i);
  if (!entry_split_) {
    // The first column read of a pair decoded only when asked.
    if (const Status s = split_entry(); !s.ok()) return column_error(ctx, s);
    if (column_scalar(ctx, i)) return SQLITE_OK;
  }
  if (scalars_valid_) return column_slow(ctx, i);
  // column_scalar() with the other kind of result.
  if (scalars_for_fresh_registers_) return column_from_scalars(ctx, i, true);
  return column_slow(ctx, i);
}

int TableCursor::column_slow(sqlite3_context* ctx, int i) {
  TableVtab* t = table();
  Status s;
  if (!entry_split_ && !(s = split_entry()).ok()) return column_error(ctx, s);
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
  return column_error(ctx, s);
}

int TableCursor::column_error(sqlite3_context* ctx, const Status& s) {
  const Status ctx_s = with_store_context(s, kModule, table()->name);
  set_result_error(ctx, ctx_s);
  return sqlite_code(ctx_s);
}

Status TableCursor::rowid(sqlite3_int64* out) {
  if (!entry_split_) TUPLEKV_RETURN_IF_ERROR(split_entry());
  if (partial_row_) TUPLEKV_RETURN_IF_ERROR(table()->layout.read_key(&partial_, &row_, &scalars_));
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
    // SQLite reads no message after xDestroy, and would free none: the
    // code alone, so that nothing is left to leak.
    if (!s.ok()) return sqlite_code(s);
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
    // Joining a transaction another object of this table began (SQLite
    // opened the table anew mid-transaction), the store has the marks of
    // the savepoints around the join already.
    t->just_began = Hook == &OrderedStore::begin && !t->store->in_transaction();
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
