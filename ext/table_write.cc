// tuplekv_table writes: xUpdate (INSERT, UPDATE, DELETE) with STRICT checks,
// conflict clauses and index maintenance (contract in table_vtab.cc).
//
// A write is checked completely before anything is stored: NOT NULL for
// every column, then each column's type, then the CHECK constraints
// (table_check_constraints.h), then the key's uniqueness. Only
// then are the row and its index entries written (core TableRows), so a
// failing row leaves nothing behind; rows written earlier by the same
// statement are undone by SQLite's statement rollback (shadow table) or
// xRollbackTo (memory store). That includes a type error's statement,
// which SQLite 3.40's own STRICT table leaves half-written inside a
// transaction when no other constraint could abort it (README, "Type
// errors").
#include <string>
#include <vector>

#include "core/model/sql_any.h"
#include "core/model/table.h"
#include "core/tuple.h"
#include "ext/errors.h"
#include "ext/table_vtab.h"
#include "ext/values.h"

namespace tuplekv::ext::table {

struct TableVtab::WriteScratch {
  SqliteConversions conv;
  std::vector<model::SqlValue> values;
  std::vector<std::string> text_bufs;
  std::vector<Bytes> cells;
  std::vector<sqlite3_value*> src;       // each column's value: argv's, or its DEFAULT
  std::vector<sqlite3_value*> defaults;  // evaluated DEFAULTs, freed after each call
  std::vector<sqlite3_value*> constant_defaults;  // literal DEFAULTs, evaluated once
  model::TableLayout::Elements row, old_row, found_row;
  Bytes key_elements, old_key_elements, found_key_elements;
  Bytes key, value, old_key_buf, old_value_buf, found_key_buf, found_value_buf, probe;
  std::vector<Bytes> entries;  // a new row's index entries (insert_with_entries)
  std::vector<std::vector<Bytes>> variants;

  ~WriteScratch() {
    free_defaults();
    for (sqlite3_value* v : constant_defaults) sqlite3_value_free(v);
  }
  bool defaults_held = false;  // whether `defaults` holds any value to free
  void free_defaults() {
    if (!defaults_held) return;
    for (sqlite3_value*& v : defaults) {
      sqlite3_value_free(v);
      v = nullptr;
    }
    defaults_held = false;
  }
};

namespace {

void encode_rowid(int64_t id, Bytes* out) {
  out->clear();
  (void)pack_element(TupleValue::int64(id), out);
}

}  // namespace

namespace {

// The conflict check and write of one row, as a small class over the
// table so xUpdate reads top to bottom.
class Writer {
 public:
  Writer(TableVtab* t, TableVtab::WriteScratch* w) : t_(t), w_(w) {}

  int run(int argc, sqlite3_value** argv, sqlite3_int64* rowid_out);

 private:
  int fail(const Status& s) { return t_->fail(s); }
  Status old_key_of(sqlite3_value* v, Bytes* out, bool* ok);
  Status evaluate_default(size_t c, sqlite3_value** out);
  Status evaluate_sql_default(size_t c, sqlite3_value** out);
  Status next_rowid(int64_t* out);
  Status random_rowid(int64_t* out);
  // The stored row SQLite would call a duplicate of key_elements (other
  // than `exclude`), into found_*.
  Status find_conflict(BytesView key_elements, const Bytes* exclude, bool* found);
  int conflict(int on_conflict);
  // Where a type is wrong: the conflict of the row's given rowid that
  // SQLite reports instead, if any (SQLITE_OK: none).
  int rowid_conflict_before_types(bool insert, int64_t rowid, int on_conflict);
  // The stored row other than `own` whose entry in unique index i has the
  // new row's values, into found_key_elements. Never one when a value is
  // NULL (NULLs are distinct).
  Status find_unique_conflict(size_t i, const Bytes* own, bool* found);
  int unique_conflict(size_t i, int on_conflict);
  // Deletes the row under found_key_elements (OR REPLACE), if still there;
  // with `remember` (an UPDATE), notes it in TableVtab::replaced_rows.
  Status erase_found(bool remember);
  // Writes the row in key/value and its index entries in one statement of
  // the SQLite store if its key is absent; *inserted false (and the store
  // as it was) if present.
  Status insert_with_entries(bool* inserted);
  // The key element of each equal-valued encoding of row column c (2 and
  // 2.0 in ANY), into variants[slot].
  Status variants_of(size_t slot, int c);

  TableVtab* t_;
  TableVtab::WriteScratch* w_;
};

Status Writer::old_key_of(sqlite3_value* v, Bytes* out, bool* ok) {
  *ok = false;
  if (t_->table.implicit_key()) {
    if (sqlite3_value_type(v) != SQLITE_INTEGER) return Status::OK();
    encode_rowid(sqlite3_value_int64(v), out);
    *ok = true;
    return Status::OK();
  }
  if (sqlite3_value_type(v) != SQLITE_BLOB) return Status::OK();
  const BytesView key = blob_view(v);
  const Bytes& p = t_->layout.row_prefix();
  if (key.size() <= p.size() || key.compare(0, p.size(), p) != 0) return Status::OK();
  out->assign(key.substr(p.size()));
  *ok = true;
  return Status::OK();
}

// A DEFAULT that is a literal is evaluated once; an expression (in
// parentheses, CURRENT_TIME ...) on every use.
bool constant_default(const std::string& sql) {
  if (sql.empty()) return false;
  const char c = sql[0];
  if (c == '(' || c == 'C' || c == 'c') return false;
  return true;
}

Status Writer::evaluate_default(size_t c, sqlite3_value** out) {
  const std::string& dflt = t_->table.columns[c].default_sql;
  if (constant_default(dflt)) {
    w_->constant_defaults.resize(t_->ncols(), nullptr);
    if (w_->constant_defaults[c] == nullptr) {
      sqlite3_value* v = nullptr;
      TUPLEKV_RETURN_IF_ERROR(evaluate_sql_default(c, &v));
      w_->constant_defaults[c] = v;
    }
    *out = sqlite3_value_dup(w_->constant_defaults[c]);
    return *out == nullptr ? Status::NoMemory() : Status::OK();
  }
  return evaluate_sql_default(c, out);
}

Status Writer::evaluate_sql_default(size_t c, sqlite3_value** out) {
  const std::string sql = "SELECT " + t_->table.columns[c].default_sql;
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(t_->db, sql.c_str(), -1, &stmt, nullptr);
  if (rc == SQLITE_OK) rc = sqlite3_step(stmt);
  if (rc == SQLITE_ROW) {
    *out = sqlite3_value_dup(sqlite3_column_value(stmt, 0));
    rc = *out == nullptr ? SQLITE_NOMEM : SQLITE_OK;
  }
  const std::string msg = sqlite3_errmsg(t_->db);
  sqlite3_finalize(stmt);
  if (rc != SQLITE_OK) {
    return Status::Native(StatusCode::kInvalidArgument, rc,
                          std::string(kModule) + ": DEFAULT of " + t_->name + "." +
                              t_->table.columns[c].name + ": " + msg);
  }
  return Status::OK();
}

Status Writer::next_rowid(int64_t* out) {
  // Not cached across calls: a statement rolled back by SQLite's statement
  // journal (store=sqlite) tells the table nothing.
  t_->next_rowid.reset();
  if (!t_->next_rowid) {
    // As SQLite: one more than the largest key (1 for an empty table).
    ScanOptions o;
    o.reverse = true;
    o.limit = 1;
    o.keys_only = true;
    TUPLEKV_ASSIGN_OR_RETURN(std::unique_ptr<Cursor> c, t_->store->scan(range(t_->layout.row_prefix()), o));
    int64_t next = 1;
    if (c->valid()) {
      TupleReader r(c->key().substr(t_->layout.row_prefix().size()));
      if (!r.next() || r.type() != ElementType::kInt) {
        return Status::Corruption("table: an implicit row key that is not an int64");
      }
      if (r.int64_value() == INT64_MAX) return random_rowid(out);
      next = r.int64_value() + 1;
    }
    TUPLEKV_RETURN_IF_ERROR(c->status());
    t_->next_rowid = next;
  }
  *out = *t_->next_rowid;
  return Status::OK();
}

Status Writer::random_rowid(int64_t* out) {
  // As SQLite once the largest rowid is taken: random positive candidates
  // (at most 2^62, as it draws them) until one is unused, 100 tries, then
  // SQLITE_FULL. Not cached: the next insert draws again.
  for (int tries = 0; tries < 100; ++tries) {
    int64_t v = 0;
    sqlite3_randomness(sizeof v, &v);
    v = (v & (INT64_MAX >> 1)) + 1;
    w_->probe.assign(t_->layout.row_prefix());
    append_int64_element(v, &w_->probe);  // the key elements encode_rowid() makes
    bool hit = false;
    TUPLEKV_RETURN_IF_ERROR(t_->store->get(w_->probe, &w_->found_value_buf, &hit));
    if (!hit) {
      *out = v;
      return Status::OK();
    }
  }
  return Status::Native(StatusCode::kIOError, SQLITE_FULL,
                        std::string(kModule) + ": " + t_->name + ": no unused rowid found");
}

Status Writer::find_conflict(BytesView key_elements, const Bytes* exclude, bool* found) {
  *found = false;
  const model::TableSchema& s = t_->table;
  bool any = false;
  for (int k : s.key) any = any || s.columns[static_cast<size_t>(k)].type == model::ColumnType::kAny;
  auto probe = [&](BytesView ke) -> Status {
    if (exclude != nullptr && ke == BytesView(*exclude)) return Status::OK();
    w_->probe.assign(t_->layout.row_prefix());
    w_->probe.append(ke);
    bool hit = false;
    TUPLEKV_RETURN_IF_ERROR(t_->store->get(w_->probe, &w_->found_value_buf, &hit));
    if (hit) {
      *found = true;
      w_->found_key_elements.assign(ke);
    }
    return Status::OK();
  };
  if (!any) return probe(key_elements);
  // ANY key columns: 2 and 2.0 are one SQLite value. Try every encoding
  // SQLite calls equal, position by position.
  w_->variants.resize(s.key.size());
  for (size_t k = 0; k < s.key.size(); ++k) TUPLEKV_RETURN_IF_ERROR(variants_of(k, s.key[k]));
  std::vector<size_t> pick(s.key.size(), 0);
  for (;;) {
    Bytes ke;
    for (size_t k = 0; k < pick.size(); ++k) ke += w_->variants[k][pick[k]];
    TUPLEKV_RETURN_IF_ERROR(probe(ke));
    if (*found) return Status::OK();
    size_t k = 0;
    while (k < pick.size() && ++pick[k] == w_->variants[k].size()) pick[k++] = 0;
    if (k == pick.size()) return Status::OK();
  }
}

Status Writer::variants_of(size_t slot, int c) {
  const BytesView e = w_->row[static_cast<size_t>(c)];
  std::vector<Bytes>& out = w_->variants[slot];
  if (t_->table.columns[static_cast<size_t>(c)].type == model::ColumnType::kAny) {
    TUPLEKV_RETURN_IF_ERROR(model::sql_equal_variants_packed(e, &out));
  } else {
    out.assign(1, Bytes(e));
  }
  if (t_->table.columns[static_cast<size_t>(c)].keyed_by_collation()) {
    for (Bytes& v : out) {
      Bytes key;
      t_->layout.append_key_element(c, v, &key);
      v = std::move(key);
    }
  }
  return Status::OK();
}

Status Writer::find_unique_conflict(size_t i, const Bytes* own, bool* found) {
  *found = false;
  const std::vector<int>& cols = t_->table.indexes[i].columns;
  static const Bytes kNullElement(1, '\x00');
  for (int c : cols) {
    if (w_->row[static_cast<size_t>(c)] == BytesView(kNullElement)) return Status::OK();
  }
  w_->variants.resize(cols.size());
  for (size_t k = 0; k < cols.size(); ++k) TUPLEKV_RETURN_IF_ERROR(variants_of(k, cols[k]));
  std::vector<size_t> pick(cols.size(), 0);
  for (;;) {
    // Entries are prefix + indexed elements + key elements, and a key
    // element is never null (00), so range() of the indexed elements holds
    // exactly the entries with these values.
    w_->probe.assign(t_->layout.index_prefix(i));
    for (size_t k = 0; k < pick.size(); ++k) w_->probe += w_->variants[k][pick[k]];
    const size_t head = w_->probe.size();
    ScanOptions o;
    o.limit = 2;  // at most one is the row itself
    o.keys_only = true;
    TUPLEKV_ASSIGN_OR_RETURN(std::unique_ptr<Cursor> cur, t_->store->scan(range(w_->probe), o));
    for (; cur->valid(); cur->next()) {
      const BytesView ke = cur->key().substr(head);
      if (own != nullptr && ke == BytesView(*own)) continue;
      w_->found_key_elements.assign(ke);
      *found = true;
      return Status::OK();
    }
    TUPLEKV_RETURN_IF_ERROR(cur->status());
    size_t k = 0;
    while (k < pick.size() && ++pick[k] == w_->variants[k].size()) pick[k++] = 0;
    if (k == pick.size()) return Status::OK();
  }
}

int Writer::unique_conflict(size_t i, int on_conflict) {
  if (on_conflict == SQLITE_IGNORE) return SQLITE_CONSTRAINT;  // SQLite skips the row
  return fail(Status::Constraint(ConstraintKind::kUnique, model::unique_failed_message(t_->name, t_->table, i)));
}

Status Writer::insert_with_entries(bool* inserted) {
  const model::TableLayout& l = t_->layout;
  const size_t n = t_->table.indexes.size();
  w_->entries.resize(n);
  for (size_t i = 0; i < n; ++i) l.index_key(i, w_->row, w_->key_elements, &w_->entries[i]);
  size_t written = 0;
  TUPLEKV_RETURN_IF_ERROR(t_->sqlite_store->insert_batch(w_->key, w_->value, w_->entries, &written));
  *inserted = written == n + 1;
  if (*inserted) return Status::OK();
  // Something was there already. With rows and entries in agreement, that
  // is a row under this key, and what the statement wrote are the entries
  // in which the new row differs from it: remove those.
  bool found = false;
  TUPLEKV_RETURN_IF_ERROR(t_->store->get(w_->key, &w_->found_value_buf, &found));
  if (found && written == 0) return Status::OK();
  if (found && w_->found_value_buf != w_->value) {
    BytesView ke;
    TUPLEKV_RETURN_IF_ERROR(l.split_row(w_->key, w_->found_value_buf, &w_->found_row, &ke));
    for (size_t i = 0; i < n; ++i) {
      l.index_key(i, w_->found_row, ke, &w_->probe);
      if (w_->probe != w_->entries[i]) TUPLEKV_RETURN_IF_ERROR(t_->store->clear(w_->entries[i]));
    }
    return Status::OK();
  }
  // Either the row was written and some of its entries were there without
  // it, or the row was there without some of its entries: the index and
  // the rows disagreed before this statement, and which one it was cannot
  // be told apart from here.
  return Status::Corruption("table: the index entries of row " + repr_packed(w_->key) +
                            " disagreed with the rows before this insert; tuplekv_check('" +
                            t_->name + "') names the first problem");
}

Status Writer::erase_found(bool remember) {
  bool again = false;
  TUPLEKV_RETURN_IF_ERROR(
      t_->load_row(w_->found_key_elements, &w_->found_key_buf, &w_->found_value_buf, &w_->found_row, &again));
  if (!again) return Status::OK();
  if (remember) t_->replaced_rows.insert(w_->found_key_elements);
  TUPLEKV_RETURN_IF_ERROR(t_->rows->erase(w_->found_row, w_->found_key_elements));
  ++t_->stats->writes;
  return Status::OK();
}

// A rowid table checks a new or moved rowid for a conflict before the
// column types, unless a CHECK constraint is tested first (which types the
// values): so where a row's type is wrong, the conflict wins, and OR IGNORE
// skips the row without an error. (OR REPLACE deletes the other row and
// then fails on the type all the same.) Asked only once a type is wrong,
// so that rows that are right pay no extra seek. SQLITE_OK: no conflict.
// For an UPDATE, a CHECK is tested first only if it reads a changed
// column, which the schema does not say: a table with CHECKs keeps the
// type error (README, "Type errors").
int Writer::rowid_conflict_before_types(bool insert, int64_t rowid, int on_conflict) {
  if (!t_->table.implicit_key() || on_conflict == SQLITE_REPLACE || t_->row_checks != nullptr) {
    return SQLITE_OK;
  }
  encode_rowid(rowid, &w_->key_elements);
  if (!insert && w_->key_elements == w_->old_key_elements) return SQLITE_OK;
  bool found = false;
  const Status st = find_conflict(w_->key_elements, insert ? nullptr : &w_->old_key_elements, &found);
  if (!st.ok()) return fail(st);
  return found ? conflict(on_conflict) : SQLITE_OK;
}

int Writer::conflict(int on_conflict) {
  if (on_conflict == SQLITE_IGNORE) return SQLITE_CONSTRAINT;  // SQLite skips the row
  std::string msg = "UNIQUE constraint failed: ";
  if (t_->table.implicit_key()) {
    return fail(Status::Native(StatusCode::kConstraint, SQLITE_CONSTRAINT_ROWID,
                               msg + t_->name + ".rowid"));
  } else {
    for (size_t k = 0; k < t_->table.key.size(); ++k) {
      if (k > 0) msg += ", ";
      msg += t_->name + "." + t_->table.columns[static_cast<size_t>(t_->table.key[k])].name;
    }
  }
  return fail(Status::Constraint(ConstraintKind::kPrimaryKey, msg));
}

int Writer::run(int argc, sqlite3_value** argv, sqlite3_int64* rowid_out) {
  TableVtab& t = *t_;
  TableVtab::WriteScratch& w = *w_;
  const model::TableSchema& s = t.table;
  const size_t n = t.ncols();
  bool ok = false;

  if (argc == 1) {  // DELETE
    Status st = old_key_of(argv[0], &w.old_key_elements, &ok);
    if (!ok) return st.ok() ? SQLITE_OK : fail(st);
    bool found = false;
    st = t.load_row(w.old_key_elements, &w.old_key_buf, &w.old_value_buf, &w.old_row, &found);
    if (st.ok() && found) st = t.rows->erase(w.old_row, w.old_key_elements);
    if (!st.ok()) return fail(st);
    if (found) ++t.stats->writes;
    t.next_rowid.reset();
    return SQLITE_OK;
  }
  if (static_cast<size_t>(argc) != 2 + n + 1) {
    return fail(Status::Internal("tuplekv internal error: xUpdate with " + std::to_string(argc) +
                                 " arguments"));
  }
  const int on_conflict = sqlite3_vtab_on_conflict(t.db);
  sqlite3_value** cols = argv + 2;
  const bool insert = sqlite3_value_type(argv[0]) == SQLITE_NULL;
  bool have_old = false;
  if (insert) {
    if (sqlite3_value_type(cols[n]) != SQLITE_NULL) {
      return fail(Status::InvalidArgument(std::string(kModule) + ": " + t.raw_name +
                                          " is the stored key of " + t.name +
                                          ", it cannot be written"));
    }
  } else {
    // argv[1] is the new primary key: raw_key itself for a declared key
    // (the rowid, which may move, for an implicit one).
    if (!s.implicit_key() && !sqlite3_value_nochange(argv[1]) &&
        (sqlite3_value_type(argv[1]) != SQLITE_BLOB || blob_view(argv[1]) != blob_view(argv[0]))) {
      return fail(Status::InvalidArgument(std::string(kModule) + ": " + t.raw_name +
                                          " is the stored key of " + t.name +
                                          ", it cannot be written"));
    }
    Status st = old_key_of(argv[0], &w.old_key_elements, &ok);
    if (!ok) return st.ok() ? SQLITE_OK : fail(st);
    // The row may be gone: an earlier row of this statement replaced it,
    // and another may have taken its key since (TableVtab::replaced_rows).
    if (on_conflict == SQLITE_REPLACE && t.replaced_rows.count(w.old_key_elements) != 0) return SQLITE_OK;
    st = t.load_row(w.old_key_elements, &w.old_key_buf, &w.old_value_buf, &w.old_row, &have_old);
    if (!st.ok()) return fail(st);
    if (!have_old) return SQLITE_OK;
  }

  // Sized once per table: every column of w.row is set below before
  // anything reads it, and `defaults` is all null between calls. `values`
  // is sized last: a resize that throws leaves it short, so the next write
  // sizes them all again.
  if (w.values.size() != n) {
    w.text_bufs.resize(n);
    w.cells.resize(n);
    w.row.resize(n);
    w.defaults.assign(n, nullptr);
    w.values.resize(n);
  }
  struct FreeDefaults {
    TableVtab::WriteScratch* w;
    ~FreeDefaults() { w->free_defaults(); }
  } free_defaults{&w};

  // The new rowid of an implicit key first: SQLite makes it an integer
  // (MustBeInt) before any constraint is checked, and a value that is not
  // one, NULL in an UPDATE included, is a datatype mismatch, which no
  // conflict clause resolves.
  int64_t rowid = 0;
  const bool assign_rowid = s.implicit_key() && sqlite3_value_type(argv[1]) == SQLITE_NULL && insert;
  if (s.implicit_key() && !assign_rowid) {
    sqlite3_value* r = argv[1];
    model::SqlValue v;
    std::string buf;
    w.conv.set_source(r);
    if (sqlite3_value_type(r) == SQLITE_NULL ||
        !model::coerce(model::ColumnType::kInteger, sql_value_of(r), &w.conv, t.name, "rowid", &v, &buf).ok()) {
      return fail(Status::Native(StatusCode::kInvalidArgument, SQLITE_MISMATCH, "datatype mismatch"));
    }
    rowid = v.i;
  }

  // 0. SQLite drops DEFAULT clauses from a virtual table's declaration
  //    and hands xUpdate NULL for every column an INSERT leaves out, so a
  //    NULL inserted into a column with a DEFAULT takes the default.
  // 1. NOT NULL, in column order. OR REPLACE puts a NOT NULL column's
  //    DEFAULT in its place, and, as SQLite does, fails on a DEFAULT that
  //    is NULL only after every column without a DEFAULT (a second pass).
  std::vector<sqlite3_value*>& src = w.src;
  src.assign(cols, cols + n);
  const auto not_null_failed = [&](const model::TableColumn& col) {
    if (on_conflict == SQLITE_IGNORE) return SQLITE_CONSTRAINT;
    return fail(Status::Constraint(ConstraintKind::kNotNull,
                                   "NOT NULL constraint failed: " + t.name + "." + col.name));
  };
  int replaced_by_null = -1;  // the first column OR REPLACE gave a NULL DEFAULT
  for (size_t c = 0; c < n; ++c) {
    const model::TableColumn& col = s.columns[c];
    if (!insert && sqlite3_value_nochange(src[c])) continue;
    if (sqlite3_value_type(src[c]) != SQLITE_NULL) continue;
    const bool replaced = col.not_null && on_conflict == SQLITE_REPLACE;
    if (!col.default_sql.empty() && (insert || replaced)) {
      w.defaults_held = true;
      const Status st = evaluate_default(c, &w.defaults[c]);
      if (!st.ok()) return fail(st);
      src[c] = w.defaults[c];
      if (sqlite3_value_type(src[c]) != SQLITE_NULL) continue;
      if (replaced) {
        if (replaced_by_null < 0) replaced_by_null = static_cast<int>(c);
        continue;
      }
    }
    if (!col.not_null) continue;
    return not_null_failed(col);
  }
  if (replaced_by_null >= 0) return not_null_failed(s.columns[static_cast<size_t>(replaced_by_null)]);
  // 2. Types, in column order.
  for (size_t c = 0; c < n; ++c) {
    if (!insert && sqlite3_value_nochange(src[c])) {
      w.row[c] = w.old_row[c];
      continue;
    }
    w.cells[c].clear();
    if (append_value_of_its_type(s.columns[c].type, src[c], t.text_read, &w.cells[c])) {
      w.row[c] = w.cells[c];
      continue;
    }
    w.conv.set_source(src[c]);
    Status st = model::coerce(s.columns[c].type, sql_value_of(src[c], t.text_read), &w.conv, t.name,
                              s.columns[c].name, &w.values[c], &w.text_bufs[c], s.columns[c].type_label);
    if (!st.ok()) {
      if (!assign_rowid) {
        if (const int rc = rowid_conflict_before_types(insert, rowid, on_conflict); rc != SQLITE_OK) return rc;
      }
      // Not a conflict: ext/strict_values.h says which code gives SQLite's outcome.
      return strict_type_error_code(t.db, on_conflict, fail(st));
    }
    w.cells[c].clear();
    st = model::append_element(w.values[c], &w.cells[c]);
    if (!st.ok()) {
      return fail(Status::InvalidArgument(std::string(kModule) + ": TEXT value for " + t.name + "." +
                                          s.columns[c].name + " is not valid UTF-8"));
    }
    w.row[c] = w.cells[c];
  }
  // 3. A new row's rowid, which its CHECKs may read; then the CHECKs, in
  //    declaration order.
  if (assign_rowid) {
    const Status st = next_rowid(&rowid);
    if (!st.ok()) return fail(st);
  }
  if (t.row_checks) {
    int failed = -1;
    const Status st = t.row_checks->first_failed(t.name, w.row, rowid, &failed);
    if (!st.ok()) return fail(st);
    if (failed >= 0) {
      if (on_conflict == SQLITE_IGNORE) return SQLITE_CONSTRAINT;
      const std::string& label = s.checks[static_cast<size_t>(failed)].label;
      return fail(Status::Constraint(ConstraintKind::kCheck, "CHECK constraint failed: " + label));
    }
  }
  // 4. The key.
  if (s.implicit_key()) {
    encode_rowid(rowid, &w.key_elements);
  } else {
    t.layout.make_key_elements(w.row, &w.key_elements);
  }
  const bool moved = !insert && w.key_elements != w.old_key_elements;

  // 5. Uniqueness, then the write.
  Status st;
  bool any_key = false;
  for (int k : s.key) any_key = any_key || s.columns[static_cast<size_t>(k)].type == model::ColumnType::kAny;
  if (insert && on_conflict != SQLITE_REPLACE && !any_key && t.sqlite_store != nullptr &&
      !s.has_unique_index()) {
    // One seek: the SQLite store inserts only if the key is absent, with
    // the row's index entries in the same statement when it can.
    w.key.assign(t.layout.row_prefix());
    w.key.append(w.key_elements);
    t.layout.row_value(w.row, &w.value);
    bool inserted = false;
    const bool batch = !s.indexes.empty() && s.indexes.size() <= SqliteStore::kMaxBatchKeys;
    st = batch ? insert_with_entries(&inserted) : t.sqlite_store->insert(w.key, w.value, &inserted);
    if (!st.ok()) return fail(st);
    if (!inserted) return conflict(on_conflict);
    if (!batch) {
      for (size_t i = 0; i < s.indexes.size() && st.ok(); ++i) {
        t.layout.index_key(i, w.row, w.key_elements, &w.probe);
        st = t.store->set(w.probe, BytesView());
      }
    }
  } else {
    // In SQLite's order (TableSchema::unique_check_order): the key where a
    // row is new or moves, and unique indexes, whose entries under the
    // row's old key are its own.
    for (int u : s.unique_check_order) {
      bool found = false;
      if (u < 0) {
        if (!insert && !moved) continue;
        st = find_conflict(w.key_elements, insert ? nullptr : &w.old_key_elements, &found);
      } else {
        st = find_unique_conflict(static_cast<size_t>(u), insert ? nullptr : &w.old_key_elements, &found);
      }
      if (!st.ok()) return fail(st);
      if (!found) continue;
      if (on_conflict != SQLITE_REPLACE) {
        return u < 0 ? conflict(on_conflict) : unique_conflict(static_cast<size_t>(u), on_conflict);
      }
      st = erase_found(!insert);
      if (!st.ok()) return fail(st);
    }
    st = t.rows->put(w.row, w.key_elements, insert ? nullptr : &w.old_row,
                     insert ? BytesView() : BytesView(w.old_key_elements));
  }
  if (!st.ok()) return fail(st);
  ++t.stats->writes;
  if (s.implicit_key()) {
    if (t.next_rowid && rowid >= *t.next_rowid) t.next_rowid = rowid == INT64_MAX ? rowid : rowid + 1;
    if (moved) t.next_rowid.reset();
    if (rowid_out != nullptr) *rowid_out = rowid;
  }
  return SQLITE_OK;
}

}  // namespace

void TableVtab::WriteScratchDeleter::operator()(WriteScratch* w) const { delete w; }

// A new statement shows as a change in sqlite3_total_changes64(), which
// SQLite moves only when a statement ends: by one per row each earlier
// statement changed (ours among them); or as a savepoint hook since the
// last write. A statement that changed nothing may count as the same one:
// it had nothing to undo. Statements SQLite gives a savepoint are marked
// too, as the table cannot tell them apart (one opened by SAVEPOINT looks
// the same); undoing first does no harm there. Inside a transaction only:
// outside one a failing statement takes its whole transaction back.
Status TableVtab::mark_statement() {
  if (sqlite3_get_autocommit(db) != 0) return Status::OK();
  const int64_t total = sqlite3_total_changes64(db);
  if (total == write_total && !savepoint_heard && statement_marked) return Status::OK();
  savepoint_heard = false;
  write_total = total;
  if (statement_marked) {
    statement_marked = false;
    TUPLEKV_RETURN_IF_ERROR(store->release(OrderedStore::kStatementLevel));
  }
  TUPLEKV_RETURN_IF_ERROR(store->savepoint(OrderedStore::kStatementLevel));
  statement_marked = true;
  return Status::OK();
}

// After a write failed with `rc`: SQLite ends the statement and undoes
// its rows, but for a constraint under OR IGNORE (the row is skipped) or
// OR FAIL (earlier rows stay); OR ROLLBACK undoes more, after this.
void TableVtab::undo_statement(int rc) {
  if (!statement_marked) return;
  const int on_conflict = sqlite3_vtab_on_conflict(db);
  if ((rc & 0xff) == SQLITE_CONSTRAINT && (on_conflict == SQLITE_IGNORE || on_conflict == SQLITE_FAIL)) {
    return;
  }
  next_rowid.reset();
  // Marked again where it was: a failed statement moves no change count,
  // so the next one looks like more of it and must find the mark there.
  // (Nothing better to do with a failure here than report the first one.)
  (void)store->rollback_to(OrderedStore::kStatementLevel);
  statement_marked = store->savepoint(OrderedStore::kStatementLevel).ok();
}

int TableVtab::update(int argc, sqlite3_value** argv, sqlite3_int64* rowid) {
  if (!scratch) scratch.reset(new WriteScratch());
  ++row_writes;
  const Status marked = mark_statement();
  if (!marked.ok()) return fail(marked);
  Writer writer(this, scratch.get());
  const int rc = writer.run(argc, argv, rowid);
  if (rc != SQLITE_OK) undo_statement(rc);
  write_total = sqlite3_total_changes64(db);
  return rc;
}

}  // namespace tuplekv::ext::table
