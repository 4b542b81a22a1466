// PairTable: the shared table, cursor and sqlite3_module of tuplekv_cells
// and tuplekv_multimap (contract in keyspace_vtab.h).
//
// PLAN CONTRACT
//   idxNum  bit 0: the key order scanned (0: (a, b); 1: (b, a))
//           bit 1: the statement never reads the value column (keys only)
//   idxStr  the plan text of core/plan.h for that order's positions, e.g.
//           `point row=?1 AND col=?2` or `range col=?1`; argv in its order.
// The order is the one whose first position has a usable = or IN (a whole
// row or column is then one prefix range), else a usable range, else 0.
#include "ext/keyspace_vtab.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <limits>
#include <new>
#include <string_view>
#include <string>
#include <utility>

#include "core/model/sql_any.h"
#include "core/move_prefix.h"
#include "core/subspace.h"
#include "core/tuple.h"
#include "ext/batch_rows.h"
#include "ext/created_in_transaction.h"
#include "ext/errors.h"
#include "ext/insert_rowid.h"
#include "ext/strict_values.h"
#include "ext/table_storage.h"
#include "ext/values.h"

namespace tuplekv::ext {

namespace {

constexpr int kIdxOrderMask = 1;
constexpr int kIdxKeysOnly = 2;

const char* storage_name(int type) { return storage_class_name(type); }

// SQL value -> packed element, for ANY columns (a BLOB is always bytes).
Status encode_any(sqlite3_value* v, Bytes* out) {
  TupleValue e;
  TUPLEKV_RETURN_IF_ERROR(value_to_element(v, false, &e));
  out->clear();
  return pack_element(e, out);
}

// Argument values of a plan on ANY positions (see keyspace_vtab.h).
class AnyValueReader final : public FilterValueReader {
 public:
  Status read(const PlanTerm& term, sqlite3_value* v, FilterValue* out) override {
    const int type = sqlite3_value_type(v);
    if (type == SQLITE_NULL) {
      out->kind = FilterValue::Kind::kNull;  // every comparison with NULL is false
      return Status::OK();
    }
    switch (term.op) {
      case PlanOp::kEq:
      case PlanOp::kIn:
        out->kind = FilterValue::Kind::kBytes;
        // TEXT that is not UTF-8 can never have been stored: match nothing.
        if (!encode_any(v, &out->bytes).ok()) out->kind = FilterValue::Kind::kNull;
        return Status::OK();
      case PlanOp::kGt:
      case PlanOp::kGe:
        // Only BLOBs sort above a BLOB in SQLite, and BLOBs are the first
        // tuple type class: the bound is exact within them, and the rest
        // of the range (strings, numbers) is a harmless superset. Any
        // other lower bound admits TEXT and BLOB values, which sort before
        // numbers in tuple order: no narrowing.
        if (type == SQLITE_BLOB) {
          out->kind = FilterValue::Kind::kBytes;
          return encode_any(v, &out->bytes);
        }
        out->kind = FilterValue::Kind::kBelowAll;
        return Status::OK();
      default:
        // Upper bounds always admit numbers (the last tuple classes).
        out->kind = FilterValue::Kind::kAboveAll;
        return Status::OK();
    }
  }
};

// AnyValueReader for a key order whose positions may be typed columns:
// gives = and IN values the affinity SQLite gives them (keyspace_vtab.h).
class TypedValueReader final : public FilterValueReader {
 public:
  explicit TypedValueReader(const model::ColumnType* position_types) : types_(position_types) {}

  Status read(const PlanTerm& term, sqlite3_value* v, FilterValue* out) override {
    const bool equality = term.op == PlanOp::kEq || term.op == PlanOp::kIn;
    if (!equality || term.column < 0 || term.column > 1) return any_.read(term, v, out);
    const model::ColumnType type = types_[term.column];
    const int vt = sqlite3_value_type(v);
    if (type == model::ColumnType::kText && (vt == SQLITE_INTEGER || vt == SQLITE_FLOAT)) {
      whole_scan = true;
      return any_.read(term, v, out);
    }
    if ((type == model::ColumnType::kInteger || type == model::ColumnType::kReal) && vt == SQLITE_TEXT) {
      // Numeric affinity changes the value it is applied to: a copy.
      sqlite3_value* d = sqlite3_value_dup(v);
      if (d == nullptr) return Status::NoMemory();
      (void)sqlite3_value_numeric_type(d);
      const Status s = any_.read(term, d, out);
      sqlite3_value_free(d);
      return s;
    }
    return any_.read(term, v, out);
  }

  bool whole_scan = false;  // a value no lookup can serve: scan everything

 private:
  const model::ColumnType* types_;  // per key position of the order
  AnyValueReader any_;
};

}  // namespace

Status take_keyspace_options(const std::string& module, const std::string& table,
                             std::vector<ModuleOption>* opts, KeyspaceOptions* out) {
  out->subspace = table;
  std::vector<ModuleOption> rest;
  for (ModuleOption& o : *opts) {
    if (o.name == "subspace") {
      if (o.value.empty()) return Status::InvalidArgument(module + ": subspace must not be empty");
      out->subspace = o.value;
      out->subspace_given = true;
    } else if (o.name == "store") {
      if (sqlite3_stricmp(o.value.c_str(), "memory") == 0) {
        out->memory = true;
      } else if (sqlite3_stricmp(o.value.c_str(), "sqlite") == 0) {
        out->memory = false;
      } else {
        return Status::InvalidArgument(module + ": store must be sqlite or memory, not '" +
                                       o.value + "'");
      }
    } else {
      rest.push_back(std::move(o));
    }
  }
  opts->swap(rest);
  return Status::OK();
}

// ---------------------------------------------------------------------------
// The cursor

struct PairCursor : sqlite3_vtab_cursor {
  // Every prefix of a stored key here ends with a packed element: an open
  // range under (S, a) must not take in a's that merely begin with a's
  // bytes (x'' is 01 00, x'00' is 01 00 FF 00).
  PairCursor() : sqlite3_vtab_cursor{} { builder_.element_prefixes = true; }
  PairTable* table() const { return static_cast<PairTable*>(pVtab); }

  Status filter(int idx_num, const char* idx_str, int argc, sqlite3_value** argv);
  Status next();
  bool eof() const { return eof_; }
  int column(sqlite3_context* ctx, int i);
  void recycle() {
    scan_.reset();
    eof_ = true;
  }

 private:
  Status expand_equal_args();
  Status open_range();  // the first entry at or after range_, or eof
  Status advance();     // the entry after the current one
  // The store's current pair: split it; *entry false to skip it.
  Status on_pair(bool* entry);
  // "key x'…'" for a message about damage found in the current entry: its
  // stored key, or with `fetched`, the key model->get() read its value
  // from.
  std::string stored_key_text(bool fetched);

  int order_ = 0;
  std::shared_ptr<const Plan> plan_;
  std::string plan_text_;
  std::vector<FilterArg> args_;
  std::vector<Bytes> variants_;
  RangeBuilder builder_;
  ScanSpec spec_;
  std::unique_ptr<Cursor> scan_;
  ScanOptions scan_options_;
  size_t range_ = 0;
  bool eof_ = true;
  bool point_ = false;
  bool limited_ = false;
  uint64_t remaining_ = 0;
  Bytes point_key_;
  Bytes point_value_;
  Bytes raw_buf_;
  BytesView a_, b_;  // packed elements of the current key
  // For DELETE BY RANGE: entries met by this filter, and those of them
  // whose `raw` SQLite read; keyed_at_ is the number of the last of those,
  // so that reading it twice counts once.
  uint64_t entries_ = 0;
  uint64_t keyed_ = 0;
  uint64_t keyed_at_ = 0;
};

Status PairCursor::expand_equal_args() {
  // One SQL value may have several encodings (2 and 2.0): look up each.
  for (size_t k = 0; k < plan_->terms.size(); ++k) {
    const PlanOp op = plan_->terms[k].op;
    if (op != PlanOp::kEq && op != PlanOp::kIn) continue;
    FilterArg& a = args_[k];
    const size_t n = a.count;
    for (size_t i = 0; i < n; ++i) {
      if (a.values[i].kind != FilterValue::Kind::kBytes) continue;
      const uint8_t code = a.values[i].bytes.empty() ? 0 : static_cast<uint8_t>(a.values[i].bytes[0]);
      const bool number = (code >= 0x0b && code <= 0x1d) || code == 0x21;
      if (!number) continue;
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

Status PairCursor::filter(int idx_num, const char* idx_str, int argc, sqlite3_value** argv) {
  PairTable* t = table();
  // A new read must see every delete made before it.
  TUPLEKV_RETURN_IF_ERROR(t->unfinished());
  TUPLEKV_RETURN_IF_ERROR(t->flush_deletes());
  ++t->stats->scans;
  eof_ = true;
  entries_ = keyed_ = keyed_at_ = 0;
  order_ = idx_num & kIdxOrderMask;
  if (order_ >= static_cast<int>(t->plans.size())) {
    return Status::Internal("tuplekv internal error: key order " + std::to_string(order_));
  }
  if (idx_str == nullptr) idx_str = "";
  // The plan text names the positions, which differ by order: key the
  // cached plan by both.
  std::string text = std::to_string(order_) + idx_str;
  if (plan_ == nullptr || plan_text_ != text) {
    TUPLEKV_ASSIGN_OR_RETURN(plan_, t->plans[static_cast<size_t>(order_)]->get(idx_str));
    plan_text_ = std::move(text);
  }
  const bool swapped = t->spec.model->order_swapped(order_);
  const model::ColumnType position_types[2] = {swapped ? t->spec.b_type : t->spec.a_type,
                                               swapped ? t->spec.a_type : t->spec.b_type};
  TypedValueReader reader(position_types);
  TUPLEKV_RETURN_IF_ERROR(read_filter_args(*plan_, argc, argv, &reader, &args_));
  TUPLEKV_RETURN_IF_ERROR(expand_equal_args());
  const IndexShape& shape = t->shapes[static_cast<size_t>(order_)];
  if (reader.whole_scan) {
    // Every constraint is re-checked by SQLite (omit=0) and none narrows
    // this scan; the plan of a table without constraints has no LIMIT.
    static const Plan kWholeOrder;
    TUPLEKV_RETURN_IF_ERROR(builder_.build(kWholeOrder, shape.columns, t->spec.model->order_prefix(order_),
                                           nullptr, 0, &spec_));
  } else {
    TUPLEKV_RETURN_IF_ERROR(builder_.build(*plan_, shape.columns,
                                           t->spec.model->order_prefix(order_), args_.data(),
                                           plan_->terms.size(), &spec_));
  }
  point_ = spec_.point;
  limited_ = spec_.has_limit;
  remaining_ = spec_.limit;
  if (limited_ && remaining_ == 0) return Status::OK();
  ScanOptions options;
  options.reverse = spec_.reverse;
  options.keys_only = (idx_num & kIdxKeysOnly) != 0;
  // No store-level limit: entries of another kind may share a range, so
  // LIMIT/OFFSET count entries here instead.
  if (scan_ != nullptr && (options.reverse != scan_options_.reverse ||
                           options.keys_only != scan_options_.keys_only)) {
    scan_.reset();
  }
  scan_options_ = options;
  range_ = 0;
  eof_ = false;
  TUPLEKV_RETURN_IF_ERROR(open_range());
  for (uint64_t skip = spec_.offset; skip > 0 && !eof_; --skip) TUPLEKV_RETURN_IF_ERROR(advance());
  return Status::OK();
}

Status PairCursor::on_pair(bool* entry) {
  PairTable* t = table();
  ++t->stats->rows;
  const BytesView key = point_ ? BytesView(point_key_) : scan_->key();
  TUPLEKV_RETURN_IF_ERROR(t->spec.model->split(order_, key, &a_, &b_, entry));
  if (*entry) ++entries_;
  return Status::OK();
}

Status PairCursor::open_range() {
  PairTable* t = table();
  const size_t n = spec_.size();
  for (; range_ < n; ++range_) {
    const KeyRange& r = spec_[spec_.reverse ? n - 1 - range_ : range_];
    ++t->stats->ranges;
    bool entry = false;
    if (point_) {
      bool found = false;
      TUPLEKV_RETURN_IF_ERROR(t->store->get(r.begin, &point_value_, &found));
      if (!found) continue;
      point_key_.assign(r.begin);
      TUPLEKV_RETURN_IF_ERROR(on_pair(&entry));
      if (entry) return Status::OK();
      continue;
    }
    if (scan_ == nullptr) {
      TUPLEKV_ASSIGN_OR_RETURN(scan_, t->store->scan(r, scan_options_));
    } else {
      TUPLEKV_RETURN_IF_ERROR(scan_->rescan(r));
    }
    for (; scan_->valid(); scan_->next()) {
      TUPLEKV_RETURN_IF_ERROR(on_pair(&entry));
      if (entry) return Status::OK();
    }
    TUPLEKV_RETURN_IF_ERROR(scan_->status());
  }
  eof_ = true;
  if (!point_) t->scan_completed(this, order_, spec_, entries_, keyed_);
  return Status::OK();
}

Status PairCursor::advance() {
  if (!point_) {
    for (scan_->next(); scan_->valid(); scan_->next()) {
      bool entry = false;
      TUPLEKV_RETURN_IF_ERROR(on_pair(&entry));
      if (entry) return Status::OK();
    }
    TUPLEKV_RETURN_IF_ERROR(scan_->status());
  }
  ++range_;
  return open_range();
}

Status PairCursor::next() {
  if (eof_) return Status::OK();
  if (limited_ && --remaining_ == 0) {
    eof_ = true;
    return Status::OK();
  }
  return advance();
}

int PairCursor::column(sqlite3_context* ctx, int i) {
  PairTable* t = table();
  Status s;
  if (i == 0 || i == 1) {
    // An UPDATE that keeps this column reads the old one from `raw`.
    if (sqlite3_vtab_nochange(ctx)) return SQLITE_OK;
    BytesView in = i == 0 ? a_ : b_;
    s = result_packed_element(ctx, &in);
    if (s.code() == StatusCode::kCorruption) {
      s = s.with_context(stored_key_text(false) + ", element " + blob_literal(i == 0 ? a_ : b_));
    }
  } else if (i == t->value_column()) {
    if (sqlite3_vtab_nochange(ctx)) return SQLITE_OK;
    BytesView stored;
    if (point_) {
      stored = point_value_;
    } else if (!scan_options_.keys_only) {
      stored = scan_->value();
    } else {
      // The plan said the value is not read; fetch it anyway.
      bool found = false;
      s = t->spec.model->get(a_, b_, &point_value_, &found);
      stored = point_value_;
    }
    if (s.ok()) {
      BytesView element = stored;
      s = result_packed_element(ctx, &element);
      if (s.ok() && !element.empty()) s = Status::Corruption("tuple: bytes after the value");
      if (s.code() == StatusCode::kCorruption) {
        s = s.with_context("the value of " + stored_key_text(!point_ && scan_options_.keys_only));
      }
    }
  } else if (i == t->raw_column()) {
    if (keyed_at_ != entries_) {
      keyed_at_ = entries_;
      ++keyed_;
    }
    t->spec.model->raw_key(a_, b_, &raw_buf_);
    result_blob(ctx, raw_buf_);
  } else {
    s = Status::Internal("tuplekv internal error: column " + std::to_string(i));
  }
  if (!s.ok()) {
    const Status ctx_s = t->reported(s);
    set_result_error(ctx, ctx_s);
    return sqlite_code(ctx_s);
  }
  return SQLITE_OK;
}

std::string PairCursor::stored_key_text(bool fetched) {
  if (fetched) {
    table()->spec.model->raw_key(a_, b_, &raw_buf_);
    return "key " + blob_literal(raw_buf_);
  }
  return "key " + blob_literal(point_ ? BytesView(point_key_) : scan_->key());
}

PairTable::PairTable() : sqlite3_vtab{} {}
PairTable::~PairTable() = default;

// ---------------------------------------------------------------------------
// The table

Status PairTable::open(sqlite3* d, const std::shared_ptr<ConnectionRegistry>& reg,
                       PairOpenFn open_fn, const std::string& module_name, int argc,
                       const char* const* argv, bool create) {
  module = module_name;
  db = d;
  registry = reg;
  schema = argv[1];
  name = argv[2];
  // Arguments without '=' are the module's positional ones (column names).
  std::vector<const char*> option_args;
  std::vector<std::string> positional;
  for (int i = 3; i < argc; ++i) {
    if (std::strchr(argv[i], '=') != nullptr) {
      option_args.push_back(argv[i]);
    } else {
      std::string_view a = argv[i];
      while (!a.empty() && std::isspace(static_cast<unsigned char>(a.front()))) a.remove_prefix(1);
      while (!a.empty() && std::isspace(static_cast<unsigned char>(a.back()))) a.remove_suffix(1);
      positional.emplace_back(a);
    }
  }
  std::vector<ModuleOption> opts;
  TUPLEKV_RETURN_IF_ERROR(parse_module_options(module, static_cast<int>(option_args.size()),
                                               option_args.data(), &opts));
  TUPLEKV_RETURN_IF_ERROR(take_keyspace_options(module, name, &opts, &options));
  Result<Subspace> sub = Subspace::make({TupleValue::string(options.subspace)});
  if (!sub.ok()) {
    return Status::InvalidArgument(module + ": subspace '" + options.subspace +
                                   "' is not valid UTF-8");
  }
  prefix = sub->key();
  // Checked before anything is created, so a bad option leaves no shadow table.
  TUPLEKV_RETURN_IF_ERROR(open_fn(positional, opts, prefix, &spec));

  // A typed column is declared with its type: SQLite's re-check then
  // compares with its affinity, as for a STRICT table's column.
  auto declared = [](const std::string& column, model::ColumnType type) {
    std::string d = "\"" + column + "\"";
    if (type != model::ColumnType::kAny) d += " " + std::string(model::column_type_name(type));
    return d;
  };
  std::string decl = "CREATE TABLE x(" + declared(spec.a_name, spec.a_type) + ", " +
                     declared(spec.b_name, spec.b_type);
  if (!spec.value_name.empty()) decl += ", \"" + spec.value_name + "\"";
  decl += ", raw HIDDEN, PRIMARY KEY(raw)) WITHOUT ROWID";
  int rc = sqlite3_declare_vtab(db, decl.c_str());
  if (rc != SQLITE_OK) {
    return Status::Native(StatusCode::kInternal, rc, module + ": cannot declare the table");
  }
  sqlite3_vtab_config(db, SQLITE_VTAB_CONSTRAINT_SUPPORT, 1);
  sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);

  // argv first: the sweep runs a query, and should it fail SQLite may
  // reset the schema, which frees the CREATE statement argv points into.
  const std::string declaration = options.memory ? ConnectionRegistry::declaration_of(argc, argv) : "";
  registry->sweep();
  if (options.memory) {
    ConnectionRegistry::MemoryTable m = create ? registry->create_memory(schema, name, prefix, declaration)
                                               : registry->connect_memory(schema, name, prefix, declaration);
    store = std::move(m.store);
    if (m.prefix != prefix) {
      prefix = std::move(m.prefix);
      TUPLEKV_RETURN_IF_ERROR(spec.model->rebind(prefix));
    }
  } else {
    if (create) TUPLEKV_RETURN_IF_ERROR(SqliteStore::create_table(db, schema, name));
    TUPLEKV_ASSIGN_OR_RETURN(std::unique_ptr<SqliteStore> s, SqliteStore::open(db, schema, name));
    sqlite_store = s.get();
    store = std::shared_ptr<OrderedStore>(std::move(s));
  }
  spec.model->attach(store.get());
  if (create) registry->drop_stats(schema, name);
  stats = registry->stats(schema, name);

  const int ncols = raw_column() + 1;
  for (int order = 0; order < spec.model->order_count(); ++order) {
    const bool swapped = spec.model->order_swapped(order);
    IndexShape shape;
    for (int pos = 0; pos < 2; ++pos) {
      PlanColumn c;
      c.name = (pos == 0) != swapped ? spec.a_name : spec.b_name;
      c.encoding = KeyEncoding::kElement;
      c.exact = false;     // ANY: tuple order and equality are not SQLite's
      c.patterns = false;  // LIKE also matches BLOBs and numbers, outside one type code
      shape.columns.push_back(c);
    }
    shape.key_position.assign(static_cast<size_t>(ncols), -1);
    shape.key_position[0] = swapped ? 1 : 0;
    shape.key_position[1] = swapped ? 0 : 1;
    shape.prefix_of.assign(static_cast<size_t>(ncols), -1);
    shape.blob_only = {false, false};
    shape.unique = true;
    plans.push_back(std::make_unique<PlanCache>(shape.columns));
    shapes.push_back(std::move(shape));
  }
  return Status::OK();
}

Status PairTable::destroy() {
  TUPLEKV_RETURN_IF_ERROR(drop_table_storage(registry.get(), db, schema, name, options.memory));
  sqlite_store = nullptr;
  store.reset();
  return Status::OK();
}

Status PairTable::rename(const std::string& to) {
  // Moving keys runs statements; the ALTER must leave changes() as it was.
  const int64_t changes = sqlite3_changes64(db);
  const bool moves_keys = !options.subspace_given && !options.memory;
  if (!options.subspace_given) TUPLEKV_RETURN_IF_ERROR(refuse_name_not_utf8(module, to));
  if (moves_keys) TUPLEKV_RETURN_IF_ERROR(refuse_key_move_while_reading(module, name, spare_cursors.open()));
  TUPLEKV_RETURN_IF_ERROR(
      rename_table_storage(registry.get(), db, sqlite_store, schema, name, to, options.memory));
  name = to;
  // As tuplekv_kv: without subspace= the keys live under the table name.
  if (moves_keys) {
    Result<Subspace> sub = Subspace::make({TupleValue::string(to)});
    if (!sub.ok()) return Status::InvalidArgument(module + ": table name is not valid UTF-8");
    const Bytes to_prefix = sub->key();
    TUPLEKV_RETURN_IF_ERROR(move_prefix(store.get(), prefix, to_prefix));
    prefix = to_prefix;
    options.subspace = to;
    TUPLEKV_RETURN_IF_ERROR(spec.model->rebind(prefix));
  }
  return set_changes(db, changes);
}

bool PairTable::encode_key_column(sqlite3_value* v, int i, int on_conflict, Bytes* out, int* rc) {
  const int type = sqlite3_value_type(v);
  if (type == SQLITE_NULL) {
    *rc = fail(Status::Constraint(ConstraintKind::kNotNull,
                                  "NOT NULL constraint failed: " + name + "." + column_name(i)));
    return false;
  }
  if (column_type(i) != model::ColumnType::kAny) {
    SqliteConversions conv;
    conv.set_source(v);
    model::SqlValue coerced;
    const Status c = model::coerce(column_type(i), sql_value_of(v), &conv, name, column_name(i), &coerced,
                                   &coerced_text, i == 0 ? spec.a_type_label : spec.b_type_label);
    if (!c.ok()) {
      *rc = strict_type_error_code(db, on_conflict, fail(c));
      return false;
    }
    out->clear();
    if (!model::append_element(coerced, out).ok()) {
      *rc = fail(Status::InvalidArgument(module + ": TEXT value for " + name + "." + column_name(i) +
                                         " is not valid UTF-8"));
      if (on_conflict == SQLITE_IGNORE) *rc = SQLITE_MISMATCH;
      return false;
    }
    return true;
  }
  const Status s = encode_any(v, out);
  if (!s.ok()) {
    *rc = fail(Status::InvalidArgument(module + ": " + std::string(storage_name(type)) +
                                       " value for " + name + "." + column_name(i) + ": " +
                                       std::string(core_detail(s))));
    if (on_conflict == SQLITE_IGNORE) *rc = SQLITE_MISMATCH;
    return false;
  }
  return true;
}

bool PairTable::encode_value_column(sqlite3_value* v, Bytes* out, int* rc) {
  const Status s = encode_any(v, out);
  if (!s.ok()) {
    *rc = fail(Status::InvalidArgument(module + ": value for " + name + "." + spec.value_name +
                                       ": " + std::string(core_detail(s))));
    return false;
  }
  return true;
}

int PairTable::duplicate(int on_conflict) {
  if (on_conflict == SQLITE_IGNORE) return SQLITE_CONSTRAINT;  // SQLite skips the row
  return fail(Status::Constraint(ConstraintKind::kPrimaryKey,
                                 "UNIQUE constraint failed: " + name + "." + spec.a_name + ", " +
                                     name + "." + spec.b_name));
}

// ---------------------------------------------------------------------------
// DELETE BY RANGE
//
// SQLite runs `DELETE FROM sheet WHERE row = 2` in two passes: the scan
// reads every matching row to the end, then xUpdate deletes them one at a
// time (observed order: xFilter, the rows, the deletes, xClose). A whole
// row is one key range, so the deletes are held back while they fall
// inside the ranges the finished scan read. How many will come: SQLite
// reads a row's `raw`, the key it deletes by, once the WHERE clause has
// passed the row, so the scan counts the entries whose `raw` was read.
// When that many deletes have arrived (in xUpdate, where a failure fails
// the statement) the held deletes are applied: if they are every entry the
// scan met and a second read of the ranges finds exactly their keys, each
// range is cleared with one clear_range (the other key order of
// layout=both / reverse=1 key by key); else one by one. Anything else -- a
// key outside, another read or write, a savepoint, commit -- applies the
// held deletes one by one first, so every observer sees the same data as
// with immediate deletes.
//
// Held deletes that fail to apply leave the statement half done: the
// table is marked unfinished (keyspace_vtab.h) until a rollback undoes the
// statement. Deletes are still held when the cursor closes only if fewer
// came than `raw`s were read (a term on `raw` that SQLite checks itself,
// a read of `raw` by another statement). SQLite reads no error from
// xClose, so a failure there fails the statement at its end: at xSync in
// autocommit mode, at the release of its savepoint in a transaction (and
// SQLite then rolls the transaction back).

void PairTable::scan_completed(const PairCursor* cursor, int order, const ScanSpec& ranges,
                               uint64_t entries, uint64_t keyed) {
  if (!pending_deletes_.empty()) return;  // flushed at the next write
  completed_scan_.cursor = nullptr;
  if (keyed < 2) return;  // one point delete is as cheap
  for (size_t i = 0; i < ranges.size(); ++i) {
    if (ranges[i].unbounded_end()) return;
  }
  completed_scan_.ranges.resize(ranges.size());
  for (size_t i = 0; i < ranges.size(); ++i) completed_scan_.ranges[i] = ranges[i];
  completed_scan_.cursor = cursor;
  completed_scan_.order = order;
  completed_scan_.entries = entries;
  completed_scan_.keyed = keyed;
}

void PairTable::cursor_closed(const PairCursor* cursor) {
  if (completed_scan_.cursor != cursor) return;
  bool undone = false;
  const Status s = apply_held_deletes(&undone);
  if (s.ok()) return;
  if (!undone) {
    mark_unfinished(s);
    return;
  }
  // SQLite rolled back from inside the failing store statement, undoing
  // the DELETE after it had succeeded: nothing is unfinished, but its
  // caller must hear that it did not happen.
  try {
    lost_delete_ =
        s.with_context("a DELETE from " + name + " that reported success was rolled back");
  } catch (const std::bad_alloc&) {
    lost_delete_ = Status::NoMemory();
  }
}

Status PairTable::unfinished() {
  if (!lost_delete_.ok()) return std::exchange(lost_delete_, Status::OK());
  if (unfinished_.ok()) return Status::OK();
  return unfinished_.with_context("cannot use " + name +
                                  " until a rollback undoes a DELETE that stopped part-way");
}

Status PairTable::unfinished_at_commit() const {
  if (unfinished_.ok()) return Status::OK();
  return unfinished_.with_context("a DELETE from " + name + " stopped part-way");
}

void PairTable::discard_deletes() {
  completed_scan_.cursor = nullptr;
  pending_deletes_.clear();
}

void PairTable::mark_unfinished(const Status& s) {
  if (!unfinished_.ok()) return;
  unfinished_depth_ = savepoint_depth_;
  try {
    unfinished_ = s;
  } catch (const std::bad_alloc&) {
    unfinished_ = Status::NoMemory();  // short enough not to allocate
  }
}

PairTable::UndoWatch PairTable::watch_undo() {
  lowest_rollback_to_ = std::numeric_limits<int>::max();
  return UndoWatch{rollbacks_, savepoint_depth_};
}

bool PairTable::undone_since(const UndoWatch& w) const {
  return rollbacks_ != w.rollbacks || lowest_rollback_to_ < w.depth;
}

namespace {

// Held deletes go to the store through these; bad_alloc becomes a status
// so that the caller can mark the table before reporting it.
template <typename Apply>
Status catching_bad_alloc(Apply&& apply) {
  try {
    return apply();
  } catch (const std::bad_alloc&) {
    return Status::NoMemory();
  }
}

}  // namespace

Status PairTable::flush_deletes() {
  bool undone = false;
  const Status s = apply_held_deletes(&undone);
  if (!s.ok() && !undone) mark_unfinished(s);
  return s;
}

// The held keys leave pending_deletes_ before the store sees them: a store
// statement can call back into this table's hooks (a savepoint of its
// own, a rollback), which must find nothing held.
Status PairTable::apply_held_deletes(bool* undone) {
  completed_scan_.cursor = nullptr;
  if (pending_deletes_.empty()) return Status::OK();
  std::vector<Bytes> keys;
  keys.swap(pending_deletes_);
  const int order = completed_scan_.order;
  const UndoWatch watch = watch_undo();
  const Status s = catching_bad_alloc([&] { return erase_each(order, keys); });
  *undone = undone_since(watch);
  return s;
}

Status PairTable::erase_each(int order, const std::vector<Bytes>& keys) {
  for (const Bytes& k : keys) {
    BytesView a, b;
    bool entry = false;
    TUPLEKV_RETURN_IF_ERROR(spec.model->split(order, k, &a, &b, &entry));
    if (!entry) continue;
    TUPLEKV_RETURN_IF_ERROR(spec.model->erase(a, b));
    ++stats->writes;
  }
  return Status::OK();
}

bool PairTable::defer_delete(BytesView a, BytesView b, Status* s) {
  CompletedScan& c = completed_scan_;
  if (c.cursor == nullptr) return false;
  spec.model->key_in_order(c.order, a, b, &order_key_);
  bool inside = false;
  for (const KeyRange& r : c.ranges) inside = inside || r.contains(order_key_);
  if (!inside) return false;
  pending_deletes_.push_back(order_key_);
  if (pending_deletes_.size() < c.keyed) return true;
  // The last delete of the statement: apply them all. Out of the table
  // first, as in apply_held_deletes().
  std::vector<Bytes> keys;
  keys.swap(pending_deletes_);
  CompletedScan scan = std::move(c);
  c.cursor = nullptr;
  const UndoWatch watch = watch_undo();
  *s = catching_bad_alloc([&] { return clear_deleted(scan, &keys); });
  if (!s->ok() && !undone_since(watch)) mark_unfinished(*s);
  return true;
}

Status PairTable::clear_deleted(const CompletedScan& scan, std::vector<Bytes>* deleted) {
  std::vector<Bytes>& keys = *deleted;
  // SQLite kept some of the entries the scan met.
  if (scan.keyed != scan.entries) return erase_each(scan.order, keys);
  std::sort(keys.begin(), keys.end());
  bool exact = std::adjacent_find(keys.begin(), keys.end()) == keys.end();
  std::vector<char> cleared(scan.ranges.size(), 0);
  size_t matched = 0;
  ScanOptions keys_only;
  keys_only.keys_only = true;
  for (size_t r = 0; exact && r < scan.ranges.size(); ++r) {
    TUPLEKV_ASSIGN_OR_RETURN(std::unique_ptr<Cursor> c, store->scan(scan.ranges[r], keys_only));
    for (; c->valid(); c->next()) {
      if (matched == keys.size() || c->key() != BytesView(keys[matched])) {
        exact = false;
        break;
      }
      ++matched;
      cleared[r] = 1;
    }
    TUPLEKV_RETURN_IF_ERROR(c->status());
  }
  if (!exact || matched != keys.size()) return erase_each(scan.order, keys);
  for (size_t r = 0; r < scan.ranges.size(); ++r) {
    if (!cleared[r]) continue;
    TUPLEKV_RETURN_IF_ERROR(store->clear_range(scan.ranges[r].begin, scan.ranges[r].end));
    ++stats->range_clears;
  }
  if (spec.model->order_count() > 1) {
    for (const Bytes& k : keys) {
      BytesView a, b;
      bool entry = false;
      TUPLEKV_RETURN_IF_ERROR(spec.model->split(scan.order, k, &a, &b, &entry));
      TUPLEKV_RETURN_IF_ERROR(spec.model->erase_other_orders(scan.order, a, b));
    }
  }
  stats->writes += keys.size();
  return Status::OK();
}

// ---------------------------------------------------------------------------
// TRANSACTIONS

Status PairTable::begin() {
  savepoint_depth_ = 0;
  return store->begin();
}

// A failed deferred delete fails the commit here, so it rolls back.
Status PairTable::sync() {
  TUPLEKV_RETURN_IF_ERROR(unfinished_at_commit());
  return flush_deletes();
}

Status PairTable::commit() {
  TUPLEKV_RETURN_IF_ERROR(unfinished_at_commit());
  TUPLEKV_RETURN_IF_ERROR(flush_deletes());
  savepoint_depth_ = 0;
  return store->commit();
}

Status PairTable::rollback() {
  discard_deletes();
  ++rollbacks_;
  unfinished_ = Status::OK();
  lost_delete_ = Status::OK();
  savepoint_depth_ = 0;
  return store->rollback();
}

Status PairTable::savepoint(int n) {
  n = std::max(n, 0);
  TUPLEKV_RETURN_IF_ERROR(unfinished());
  TUPLEKV_RETURN_IF_ERROR(flush_deletes());
  TUPLEKV_RETURN_IF_ERROR(store->savepoint(n));
  savepoint_depth_ = n + 1;
  return Status::OK();
}

Status PairTable::release(int n) {
  n = std::max(n, 0);
  // Releasing a statement's savepoint ends it: one whose deletes stopped
  // part-way fails here, and SQLite rolls the transaction back.
  TUPLEKV_RETURN_IF_ERROR(unfinished_at_commit());
  TUPLEKV_RETURN_IF_ERROR(flush_deletes());
  TUPLEKV_RETURN_IF_ERROR(store->release(n));
  savepoint_depth_ = n;
  return Status::OK();
}

Status PairTable::rollback_to(int n) {
  // Deletes still deferred belong to the statement being undone. Not
  // applied then undone: SQLite has rolled its shadow table back before
  // it calls here, so a SQLite store would keep them.
  discard_deletes();
  lowest_rollback_to_ = std::min(lowest_rollback_to_, n);
  // Savepoint n was there before the unfinished statement began, so
  // rolling back to it undoes that statement.
  if (n < unfinished_depth_) unfinished_ = Status::OK();
  if (n < 0) {  // SQLite passes 0 and up; a negative n undoes everything
    ++rollbacks_;
    savepoint_depth_ = 0;
    TUPLEKV_RETURN_IF_ERROR(store->rollback());
    return store->begin();
  }
  savepoint_depth_ = n + 1;
  return store->rollback_to(n);
}

int PairTable::update(int argc, sqlite3_value** argv) {
  PairModel* m = spec.model.get();
  int rc = SQLITE_OK;
  if (Status e = unfinished(); !e.ok()) return fail(e);
  if (argc == 1) {  // DELETE: argv[0] is `raw`
    if (sqlite3_value_type(argv[0]) != SQLITE_BLOB) return SQLITE_OK;
    BytesView a, b;
    Status s = m->split_any(blob_view(argv[0]), &a, &b);
    if (!s.ok()) return fail(s);
    if (defer_delete(a, b, &s)) return s.ok() ? SQLITE_OK : fail(s);
    s = flush_deletes();
    if (s.ok()) {
      old_a.assign(a);
      old_b.assign(b);
      s = m->erase(old_a, old_b);
    }
    if (!s.ok()) return fail(s);
    ++stats->writes;
    return SQLITE_OK;
  }
  if (Status f = flush_deletes(); !f.ok()) return fail(f);
  const int ncols = raw_column() + 1;
  if (argc != 2 + ncols) {
    return fail(Status::Internal("tuplekv internal error: xUpdate with " + std::to_string(argc) +
                                 " arguments"));
  }
  const int on_conflict = sqlite3_vtab_on_conflict(db);
  sqlite3_value** cols = argv + 2;
  const int vc = value_column();

  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {  // INSERT
    if (sqlite3_value_type(cols[raw_column()]) != SQLITE_NULL) {
      return fail(Status::InvalidArgument(module + ": raw is the stored key of " + name +
                                          ", it cannot be written"));
    }
    // NOT NULL of every column before any type check, as SQLite orders them.
    for (int i = 0; i < 2; ++i) {
      if (sqlite3_value_type(cols[i]) == SQLITE_NULL && !encode_key_column(cols[i], i, on_conflict, &a_buf, &rc)) {
        return rc;
      }
    }
    if (!encode_key_column(cols[0], 0, on_conflict, &a_buf, &rc)) return rc;
    if (!encode_key_column(cols[1], 1, on_conflict, &b_buf, &rc)) return rc;
    value_buf.clear();
    if (vc >= 0 && !encode_value_column(cols[vc], &value_buf, &rc)) return rc;
    bool found = false;
    Status s = m->find_sql_equal(a_buf, b_buf, &found, &found_a, &found_b);
    if (!s.ok()) return fail(s);
    if (found) {
      if (on_conflict != SQLITE_REPLACE) return duplicate(on_conflict);
      s = m->erase(found_a, found_b);
      if (!s.ok()) return fail(s);
      ++stats->writes;
    }
    s = m->put(a_buf, b_buf, value_buf);
    if (!s.ok()) return fail(s);
    ++stats->writes;
    return SQLITE_OK;
  }

  // UPDATE: argv[0] is the old `raw`, argv[1] the new one (SET raw = ...);
  // unassigned columns arrive unchanged.
  if (sqlite3_value_type(argv[0]) != SQLITE_BLOB) return SQLITE_OK;
  if (!sqlite3_value_nochange(argv[1]) &&
      (sqlite3_value_type(argv[1]) != SQLITE_BLOB || blob_view(argv[1]) != blob_view(argv[0]))) {
    return fail(Status::InvalidArgument(module + ": raw is the stored key of " + name +
                                        ", it cannot be written"));
  }
  {
    BytesView a, b;
    const Status s = m->split_any(blob_view(argv[0]), &a, &b);
    if (!s.ok()) return fail(s);
    old_a.assign(a);
    old_b.assign(b);
  }
  // The row may be gone: an earlier row of this statement replaced it.
  bool exists = false;
  Status s = m->get(old_a, old_b, &old_value, &exists);
  if (!s.ok()) return fail(s);
  if (!exists) return SQLITE_OK;
  const bool a_given = !sqlite3_value_nochange(cols[0]);
  const bool b_given = !sqlite3_value_nochange(cols[1]);
  const bool v_given = vc >= 0 && !sqlite3_value_nochange(cols[vc]);
  for (int i = 0; i < 2; ++i) {
    if ((i == 0 ? a_given : b_given) && sqlite3_value_type(cols[i]) == SQLITE_NULL &&
        !encode_key_column(cols[i], i, on_conflict, &a_buf, &rc)) {
      return rc;
    }
  }
  if (a_given) {
    if (!encode_key_column(cols[0], 0, on_conflict, &a_buf, &rc)) return rc;
  } else {
    a_buf = old_a;
  }
  if (b_given) {
    if (!encode_key_column(cols[1], 1, on_conflict, &b_buf, &rc)) return rc;
  } else {
    b_buf = old_b;
  }
  if (v_given) {
    if (!encode_value_column(cols[vc], &value_buf, &rc)) return rc;
  } else {
    value_buf = old_value;
  }
  if (a_buf == old_a && b_buf == old_b) {
    if (!v_given || value_buf == old_value) return SQLITE_OK;
    s = m->put(a_buf, b_buf, value_buf);
    if (!s.ok()) return fail(s);
    ++stats->writes;
    return SQLITE_OK;
  }
  bool found = false;
  s = m->find_sql_equal(a_buf, b_buf, &found, &found_a, &found_b);
  if (!s.ok()) return fail(s);
  // The pair SQLite calls equal may be this row itself (2 -> 2.0).
  if (found && !(found_a == old_a && found_b == old_b)) {
    if (on_conflict != SQLITE_REPLACE) return duplicate(on_conflict);
    s = m->erase(found_a, found_b);
    if (!s.ok()) return fail(s);
    ++stats->writes;
  }
  s = m->erase(old_a, old_b);
  if (s.ok()) s = m->put(a_buf, b_buf, value_buf);
  if (!s.ok()) return fail(s);
  stats->writes += 2;
  return SQLITE_OK;
}

// ---------------------------------------------------------------------------
// sqlite3_module slots

namespace {

struct ModuleData {
  std::string name;
  PairOpenFn open_fn;
  std::shared_ptr<ConnectionRegistry> registry;
};

PairTable* as_table(sqlite3_vtab* v) { return static_cast<PairTable*>(v); }
PairCursor* as_cursor(sqlite3_vtab_cursor* c) { return static_cast<PairCursor*>(c); }

int pair_init(sqlite3* db, void* aux, int argc, const char* const* argv, sqlite3_vtab** out,
              char** err, bool create) {
  return guard_create(err, [&] {
    const auto* data = static_cast<const ModuleData*>(aux);
    auto table = std::make_unique<PairTable>();
    const Status s = table->open(db, data->registry, data->open_fn, data->name, argc, argv, create);
    if (!s.ok()) return set_create_error(err, s);
    *out = table.release();
    return SQLITE_OK;
  });
}

// Defined with the other slots below; xCreate joins an open transaction
// through them (ext/created_in_transaction.h).
template <Status (PairTable::*Hook)()>
int pair_txn(sqlite3_vtab* vtab) noexcept;
int pair_disconnect(sqlite3_vtab* vtab) noexcept;

int pair_create(sqlite3* db, void* aux, int argc, const char* const* argv, sqlite3_vtab** out,
                char** err) noexcept {
  const int rc = pair_init(db, aux, argc, argv, out, err, true);
  if (rc != SQLITE_OK) return rc;
  return join_open_transaction(db, out, err, &pair_txn<&PairTable::begin>, &pair_disconnect);
}

int pair_connect(sqlite3* db, void* aux, int argc, const char* const* argv, sqlite3_vtab** out,
                 char** err) noexcept {
  return pair_init(db, aux, argc, argv, out, err, false);
}

// 0: no usable constraint on the column; 1: a range; 2: = or IN.
int strength(const sqlite3_index_info* info, int column) {
  int best = 0;
  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& c = info->aConstraint[i];
    if (c.iColumn != column || !c.usable) continue;
    switch (c.op) {
      case SQLITE_INDEX_CONSTRAINT_EQ:
      case SQLITE_INDEX_CONSTRAINT_IS:
        best = 2;
        break;
      case SQLITE_INDEX_CONSTRAINT_GT:
      case SQLITE_INDEX_CONSTRAINT_GE:
      case SQLITE_INDEX_CONSTRAINT_LT:
      case SQLITE_INDEX_CONSTRAINT_LE:
        if (best < 1) best = 1;
        break;
      default:
        break;
    }
  }
  return best;
}

int pair_best_index(sqlite3_vtab* vtab, sqlite3_index_info* info) noexcept {
  return guard_vtab(vtab, [&] {
    PairTable* t = as_table(vtab);
    // The order whose leading column is constrained best (the first on a tie).
    int order = 0;
    int best = -1;
    for (int o = 0; o < static_cast<int>(t->shapes.size()); ++o) {
      const int lead = t->spec.model->order_swapped(o) ? 1 : 0;
      const int st = strength(info, lead);
      if (st > best) {
        best = st;
        order = o;
      }
    }
    int flags = order;
    const int vc = t->value_column();
    if (vc < 0 || (info->colUsed & (sqlite3_uint64{1} << vc)) == 0) flags |= kIdxKeysOnly;
    return best_index(t->shapes[static_cast<size_t>(order)], info, flags);
  });
}

int pair_disconnect(sqlite3_vtab* vtab) noexcept {
  return guard_vtab(vtab, [&] {
    delete as_table(vtab);
    return SQLITE_OK;
  });
}

int pair_destroy(sqlite3_vtab* vtab) noexcept {
  return guard_vtab(vtab, [&] {
    PairTable* t = as_table(vtab);
    const Status s = t->destroy();
    // SQLite reads no message after xDestroy, and would free none: the
    // code alone, so that nothing is left to leak.
    if (!s.ok()) return sqlite_code(s);
    delete t;
    return SQLITE_OK;
  });
}

int pair_open(sqlite3_vtab* vtab, sqlite3_vtab_cursor** out) noexcept {
  return guard_vtab(vtab, [&] {
    PairCursor* c = as_table(vtab)->spare_cursors.take();
    *static_cast<sqlite3_vtab_cursor*>(c) = sqlite3_vtab_cursor{};
    *out = c;
    return SQLITE_OK;
  });
}

int pair_close(sqlite3_vtab_cursor* cur) noexcept {
  return guard_vtab(cur->pVtab, [&] {
    std::unique_ptr<PairCursor> c(as_cursor(cur));  // owned until kept
    PairTable* t = c->table();
    t->cursor_closed(c.get());
    c->recycle();
    t->spare_cursors.give_back(std::move(c));
    return SQLITE_OK;
  });
}

int vtab_result(sqlite3_vtab* vtab, const Status& s) {
  if (s.ok()) return SQLITE_OK;
  return set_vtab_error(vtab, as_table(vtab)->reported(s));
}

int pair_filter(sqlite3_vtab_cursor* cur, int idx_num, const char* idx_str, int argc,
                sqlite3_value** argv) noexcept {
  return guard_vtab(cur->pVtab, [&] {
    return vtab_result(cur->pVtab, as_cursor(cur)->filter(idx_num, idx_str, argc, argv));
  });
}

int pair_next(sqlite3_vtab_cursor* cur) noexcept {
  return guard_vtab(cur->pVtab, [&] { return vtab_result(cur->pVtab, as_cursor(cur)->next()); });
}

int pair_eof(sqlite3_vtab_cursor* cur) noexcept { return as_cursor(cur)->eof() ? 1 : 0; }

int pair_column(sqlite3_vtab_cursor* cur, sqlite3_context* ctx, int i) noexcept {
  return guard_vtab(cur->pVtab, [&] { return as_cursor(cur)->column(ctx, i); });
}

int pair_rowid(sqlite3_vtab_cursor* cur, sqlite3_int64*) noexcept {
  return set_vtab_error(cur->pVtab, Status::Internal("tuplekv internal error: no rowid"));
}

int pair_update(sqlite3_vtab* vtab, int argc, sqlite3_value** argv, sqlite3_int64* rowid) noexcept {
  keep_last_insert_rowid(as_table(vtab)->db, rowid);
  return guard_vtab(vtab, [&] { return as_table(vtab)->update(argc, argv); });
}

// The SQLite store's hooks are no-ops except rollbacks (they tell open
// cursors); the memory store keeps an undo log. PairTable forwards all of
// them, after applying deferred deletes (a rollback simply drops them).
template <Status (PairTable::*Hook)()>
int pair_txn(sqlite3_vtab* vtab) noexcept {
  return guard_vtab(vtab, [&] {
    const Status s = (as_table(vtab)->*Hook)();
    return s.ok() ? SQLITE_OK : set_vtab_error(vtab, s);
  });
}

template <Status (PairTable::*Hook)(int)>
int pair_savepoint_hook(sqlite3_vtab* vtab, int n) noexcept {
  return guard_vtab(vtab, [&] {
    const Status s = (as_table(vtab)->*Hook)(n);
    return s.ok() ? SQLITE_OK : set_vtab_error(vtab, s);
  });
}

int pair_rename(sqlite3_vtab* vtab, const char* to) noexcept {
  return guard_vtab(vtab, [&] {
    Status s = as_table(vtab)->unfinished();
    if (s.ok()) s = as_table(vtab)->flush_deletes();
    if (s.ok()) s = as_table(vtab)->rename(to);
    return s.ok() ? SQLITE_OK : set_vtab_error(vtab, s);
  });
}

int pair_shadow_name(const char* suffix) noexcept {
  return suffix != nullptr && sqlite3_stricmp(suffix, SqliteStore::kShadowSuffix) == 0;
}

const sqlite3_module kPairModule = {
    /* iVersion      */ 3,
    /* xCreate       */ pair_create,
    /* xConnect      */ pair_connect,
    /* xBestIndex    */ pair_best_index,
    /* xDisconnect   */ pair_disconnect,
    /* xDestroy      */ pair_destroy,
    /* xOpen         */ pair_open,
    /* xClose        */ pair_close,
    /* xFilter       */ pair_filter,
    /* xNext         */ pair_next,
    /* xEof          */ pair_eof,
    /* xColumn       */ pair_column,
    /* xRowid        */ pair_rowid,
    /* xUpdate       */ pair_update,
    /* xBegin        */ pair_txn<&PairTable::begin>,
    /* xSync         */ pair_txn<&PairTable::sync>,
    /* xCommit       */ pair_txn<&PairTable::commit>,
    /* xRollback     */ pair_txn<&PairTable::rollback>,
    /* xFindFunction */ nullptr,
    /* xRename       */ pair_rename,
    /* xSavepoint    */ pair_savepoint_hook<&PairTable::savepoint>,
    /* xRelease      */ pair_savepoint_hook<&PairTable::release>,
    /* xRollbackTo   */ pair_savepoint_hook<&PairTable::rollback_to>,
    /* xShadowName   */ pair_shadow_name,
};

void destroy_module_data(void* p) noexcept { delete static_cast<ModuleData*>(p); }

}  // namespace

int register_pair_module(sqlite3* db, const char* module_name, PairOpenFn open_fn, char** err) {
  auto* data = new ModuleData{module_name, open_fn, ConnectionRegistry::of(db)};
  const int rc = sqlite3_create_module_v2(db, module_name, &kPairModule, data, destroy_module_data);
  if (rc != SQLITE_OK && err != nullptr) {
    *err = sqlite3_mprintf("tuplekv: cannot register module %s", module_name);
  }
  return rc;
}

}  // namespace tuplekv::ext
