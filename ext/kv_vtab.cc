// tuplekv_kv: a raw, ordered key/value table inside one subspace.
//
// This file is the module (planning, cursors, the sqlite3_module slots);
// kv_table.cc has the table (options, create/connect, rename/drop, writes),
// kv_table.h what the two share.
//
// USAGE
//   CREATE VIRTUAL TABLE users USING tuplekv_kv;            -- subspace 'users', SQLite store
//   CREATE VIRTUAL TABLE scratch USING tuplekv_kv(subspace=etl, store=memory);
//
//   INSERT INTO users VALUES (tuple_pack('CA', 'Alameda', 42), x'01'),
//                            (tuple_pack('CA', 'Fresno', 7), x'02'),
//                            (tuple_pack('NY', 'Albany', 1), x'03');
//   SELECT tuple_repr(key), hex(value) FROM users WHERE prefix = tuple_pack('CA');
//     ('CA', 'Alameda', 42)|01
//     ('CA', 'Fresno', 7)|02
//
// It behaves like the ordinary table
//   CREATE TABLE users(key BLOB PRIMARY KEY NOT NULL, value BLOB NOT NULL) WITHOUT ROWID
// that accepts only BLOBs, plus a hidden column `prefix` (below).
//
// KEY LAYOUT (DESIGN.md §4). A pair is stored under pack((NAME,)) + key,
// NAME being the `subspace=` option or the table name, value as is:
//   users, key x'0102'  ->  02 'users' 00 01 02
// so several tables' keyspaces can be concatenated into one FoundationDB
// keyspace without collisions. `key` is any bytes (usually a packed tuple).
// ALTER TABLE ... RENAME of a table without subspace= moves its keys under
// the new name (one pass over the table, store=sqlite; a memory store is
// private to its table and keeps its prefix); with subspace= they stay.
//
// OPTIONS (`name=value`, values may be quoted)
//   subspace=NAME        the string element of the prefix (default: table name)
//   store=sqlite|memory  sqlite (default): shadow table <table>_kv in the
//                        table's schema (ext/sqlite_store.h), durable and
//                        transactional with the database. memory: a store
//                        held by this connection (ext/memory_registry.h),
//                        empty on other connections, gone when it closes;
//                        transactions and savepoints behave the same.
//   fdb_limits=0|1       1: refuse keys (prefix included) over 10,000 bytes
//                        and values over 100,000 bytes, as FoundationDB does
// Anything else: "tuplekv_kv: unknown option 'x'".
//
// COLUMNS
//   key    BLOB  the key after the subspace prefix (PRIMARY KEY)
//   value  BLOB
//   prefix BLOB HIDDEN  `WHERE prefix = p` scans exactly the keys that start
//                       with p: [p, strinc(p)), e.g. p = tuple_pack('CA')
//                       for every key under the tuple ('CA',). Reads as the
//                       p of the query; IN (...) works one value at a time.
//                       Read where no `prefix =` chose the scan (inside an
//                       OR that SQLite cannot split into scans, with another
//                       operator, or in the select list alone), it is an
//                       error rather than a value that would filter wrongly.
//                       p must be a BLOB.
//
// WRITES. INSERT, UPDATE (key and/or value) and DELETE. Keys and values
// must be BLOBs: NULL is "NOT NULL constraint failed: t.key" (or t.value;
// SQLITE_CONSTRAINT_NOTNULL, skipped by OR IGNORE as SQLite does), any other
// type is "cannot store TEXT value in BLOB column t.key" (the STRICT-table
// message, SQLITE_CONSTRAINT_DATATYPE; under OR IGNORE it is reported as
// SQLITE_MISMATCH, because SQLite would silently skip a constraint code
// there and a wrongly typed key is an error, as in a STRICT table). Writing
// `prefix` in an INSERT or an UPDATE's SET is an error. TEXT is not
// converted: SQLite never finds a BLOB key with a TEXT value (key = 'a' is
// false for every BLOB), so accepting TEXT would store rows that the
// natural query cannot find. Use CAST(x AS BLOB) or tuple_pack(x) (note
// that || makes TEXT even of two BLOBs: CAST(key || x'00' AS BLOB)).
// A duplicate key follows the statement's conflict clause
// (sqlite3_vtab_on_conflict; SQLITE_VTAB_CONSTRAINT_SUPPORT is on):
//   ABORT (default), FAIL, ROLLBACK  "UNIQUE constraint failed: t.key",
//                                    SQLITE_CONSTRAINT_PRIMARYKEY, nothing written
//   IGNORE                           the row is skipped
//   REPLACE                          the existing pair is overwritten
// UPSERT (INSERT ... ON CONFLICT DO ...) is not available: SQLite rejects it
// for every virtual table ("UPSERT not implemented for virtual table");
// INSERT OR REPLACE covers DO UPDATE SET value=excluded.value and INSERT OR
// IGNORE covers DO NOTHING.
//
// PLANS (ext/index_planner.h, core/plan.h). On `key`: =, IN (all values at
// once, in key order), <, <=, >, >=, BETWEEN, LIKE/GLOB with a literal
// prefix (a superset; SQLite re-checks); `prefix =`; ORDER BY key ASC/DESC
// by scanning forward/backward; LIMIT/OFFSET when nothing is left for SQLite
// to filter and this SQLite withholds no WHERE term (ext/limit_pushdown.h;
// 3.40 does). Comparisons follow SQLite's order: every NULL comparison is
// false, and INTEGER/REAL/TEXT sort before every BLOB (key > 'a' is every
// row). idxStr, shown by EXPLAIN QUERY PLAN, reads e.g.
// `range key>=?1 AND key<?2 reverse`; idxNum bit 1 means the statement never
// reads `value` (the scan skips values). LIKE/GLOB read a BLOB as text; an
// SQLite built with SQLITE_LIKE_DOESNT_MATCH_BLOBS (Debian's is) never
// matches a BLOB, so there they find nothing, as on a native BLOB column.
// tuplekv_stats('t') (ext/memory_registry.h) counts the scans, ranges and
// pairs read, so tests can check that a query read only its range.
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/memory_store.h"
#include "core/plan.h"
#include "ext/created_in_transaction.h"
#include "ext/errors.h"
#include "ext/index_planner.h"
#include "ext/insert_rowid.h"
#include "ext/kv_table.h"
#include "ext/memory_registry.h"
#include "ext/registry.h"
#include "ext/sqlite_api.h"
#include "ext/sqlite_store.h"
#include "ext/values.h"

namespace tuplekv::ext {
namespace kv {
namespace {

// ---------------------------------------------------------------------------
// Reading argument values

class KvValueReader final : public FilterValueReader {
 public:
  explicit KvValueReader(const KvTable* t) : table_(t) {}

  Status read(const PlanTerm& term, sqlite3_value* v, FilterValue* out) override {
    const int type = sqlite3_value_type(v);
    switch (term.op) {
      case PlanOp::kPrefix:
      case PlanOp::kPrefixIn:
        if (type == SQLITE_NULL) {
          out->kind = FilterValue::Kind::kNull;
        } else if (type == SQLITE_BLOB) {
          out->kind = FilterValue::Kind::kBytes;
          out->bytes.assign(blob_of(v));
        } else {
          return Status::InvalidArgument(std::string("tuplekv_kv: prefix must be a BLOB, not ") +
                                         type_name(type) + " (table " + table_->name +
                                         "; use CAST(x AS BLOB) or tuple_pack(x))");
        }
        return Status::OK();
      case PlanOp::kLike:
      case PlanOp::kGlob: {
        if (type == SQLITE_NULL) {
          out->kind = FilterValue::Kind::kNull;
          return Status::OK();
        }
        // The pattern as LIKE/GLOB see it: its text.
        const auto* p = reinterpret_cast<const char*>(sqlite3_value_text(v));
        if (p == nullptr) return Status::NoMemory();
        out->kind = FilterValue::Kind::kBytes;
        out->bytes.assign(p, static_cast<size_t>(sqlite3_value_bytes(v)));
        return Status::OK();
      }
      default:
        // Comparisons with the key: SQLite's order puts NULL apart (every
        // comparison false) and INTEGER, REAL, TEXT before every BLOB.
        if (type == SQLITE_BLOB) {
          out->kind = FilterValue::Kind::kBytes;
          out->bytes.assign(blob_of(v));
        } else if (type == SQLITE_NULL) {
          out->kind = FilterValue::Kind::kNull;
        } else {
          out->kind = FilterValue::Kind::kBelowAll;
        }
        return Status::OK();
    }
  }

 private:
  const KvTable* table_;
};

}  // namespace

// ---------------------------------------------------------------------------
// The cursor

struct KvCursor : sqlite3_vtab_cursor {
  KvCursor() : sqlite3_vtab_cursor{} {}

  KvTable* table() const { return static_cast<KvTable*>(pVtab); }

  Status filter(int idx_num, const char* idx_str, int argc, sqlite3_value** argv);
  // The per-row calls return false on failure and leave the status in
  // error() (cheaper than passing a Status up on every row).
  bool next();
  const Status& error() const { return error_; }
  // Before going back to the table's spares: let go of the store cursor
  // (it holds a statement or sits in the store's list of open cursors).
  void recycle() {
    scan_.reset();
    sqlite_scan_ = nullptr;
    memory_scan_ = nullptr;
    eof_ = true;
  }
  bool eof() const { return eof_; }
  // The per-row path: the key or value column, handed to SQLite as a view
  // of the store's bytes (nothing here throws). False for other_column().
  bool row_column(sqlite3_context* ctx, int i) {
    // An UPDATE that does not assign the key or value reads it only to
    // pass it back unchanged: skip the copy.
    if (i == kKeyColumn) {
      if (unchanged(ctx)) return true;
      const BytesView key = current_key();
      // Ranges never leave the subspace; an unbounded one is checked in
      // on_row(). Defend against a short key all the same.
      const size_t p = key.size() >= prefix_.size() ? prefix_.size() : key.size();
      result_view(ctx, key.data() + p, key.size() - p);
      return true;
    }
    if (i == kValueColumn && (point_ || !keys_only_)) {
      if (unchanged(ctx)) return true;
      const BytesView value = current_value();
      result_view(ctx, value.data(), value.size());
      return true;
    }
    return false;
  }
  // The columns row_column() leaves: `value` under a keys-only plan,
  // `prefix`, and anything unexpected. An SQLite result code; on failure
  // the context carries the error.
  int other_column(sqlite3_context* ctx, int i);

 private:
  // sqlite3_vtab_nochange, asked only when an UPDATE can be running.
  bool unchanged(sqlite3_context* ctx) const {
    return table()->in_transaction && sqlite3_vtab_nochange(ctx);
  }
  // Which store cursor the row loop steps. Both stores' cursors are final
  // classes, so naming them lets the compiler inline next(), key() and
  // value(): the row loop makes no virtual call.
  enum class Source : uint8_t { kPoint, kSqlite, kMemory, kOther };

  bool open_range();  // first row at or after range_, or eof
  bool advance();     // the row after the current one, or eof
  template <typename C>
  bool advance_in(C* c) {
    c->next();
    if (c->valid()) return on_row(c->key());
    if (!c->status().ok()) return fail(c->status());
    ++range_;
    return open_range();
  }
  bool fail(Status s) {
    error_ = std::move(s);
    return false;
  }
  void set_source();
  // Counts the pair the cursor is on. In a range left open at the end
  // (see filter()) a key outside the subspace can only be a damaged shadow
  // table: report it rather than return it.
  bool on_row(BytesView key) {
    ++stats_->rows;
    if (check_prefix_ && !has_prefix(key)) return outside_subspace(key);
    return true;
  }
  // The subspace prefix test without a call: tuple prefixes of short names
  // fit in one word.
  bool has_prefix(BytesView key) const {
    if (key.size() < prefix_.size()) return false;
    if (key.size() >= sizeof(uint64_t) && prefix_.size() <= sizeof(uint64_t)) {
      uint64_t w;
      std::memcpy(&w, key.data(), sizeof w);
      return ((w ^ prefix_word_) & prefix_mask_) == 0;
    }
    return std::memcmp(key.data(), prefix_.data(), prefix_.size()) == 0;
  }
  bool outside_subspace(BytesView key);
  // SQLITE_TRANSIENT: SQLite may keep a column value past the next row
  // (min(), max() and friends hold their best value across steps), and a
  // store's views change with every row, so the result is always a copy.
  // The copy goes into the output register's own buffer, which SQLite
  // reuses from row to row, so it does not allocate. A null pointer would
  // make NULL, not x''; over 2 GiB blob64 reports SQLITE_TOOBIG.
  static void result_view(sqlite3_context* ctx, const char* p, size_t n) {
    sqlite3_result_blob64(ctx, p != nullptr ? p : "", n, SQLITE_TRANSIENT);
  }
  BytesView current_key() const {
    switch (source_) {
      case Source::kSqlite:
        return sqlite_scan_->key();
      case Source::kMemory:
        return memory_scan_->key();
      case Source::kPoint:
        return point_key_;
      default:
        return scan_->key();
    }
  }
  BytesView current_value() const {
    switch (source_) {
      case Source::kSqlite:
        return sqlite_scan_->value();
      case Source::kMemory:
        return memory_scan_->value();
      case Source::kPoint:
        return point_value_;
      default:
        return scan_->value();
    }
  }

  std::shared_ptr<const Plan> plan_;
  std::string plan_text_;  // the idxStr plan_ was parsed from
  std::vector<FilterArg> args_;
  RangeBuilder builder_;
  ScanSpec spec_;
  std::unique_ptr<Cursor> scan_;
  SqliteCursor* sqlite_scan_ = nullptr;  // scan_, when it is one of these
  MemoryCursor* memory_scan_ = nullptr;
  Source source_ = Source::kOther;
  ScanOptions scan_options_;
  ScanStats* stats_ = nullptr;  // the table's, which outlives this cursor
  BytesView prefix_;            // the table's subspace prefix, and as a word:
  uint64_t prefix_word_ = 0;
  uint64_t prefix_mask_ = 0;
  size_t range_ = 0;  // ranges visited so far, in visiting order
  bool eof_ = true;
  bool point_ = false;
  bool keys_only_ = false;
  bool limited_ = false;
  uint64_t remaining_ = 0;
  BytesView point_key_;  // into spec_ (stable until the next filter)
  Bytes point_value_;
  Bytes value_buf_;
  Bytes prefix_arg_;
  bool has_prefix_arg_ = false;
  const FilterArg* prefix_in_ = nullptr;  // into args_, when the plan has prefix IN
  bool check_prefix_ = false;  // the current range has no end bound
  Status error_;
};

Status KvCursor::filter(int idx_num, const char* idx_str, int argc, sqlite3_value** argv) {
  KvTable* t = table();
  stats_ = t->stats.get();
  ++stats_->scans;
  eof_ = true;
  // Every time: a rename may rewrite the prefix in place.
  prefix_ = t->prefix;
  prefix_word_ = prefix_mask_ = 0;
  if (prefix_.size() <= sizeof(uint64_t)) {
    std::memcpy(&prefix_word_, prefix_.data(), prefix_.size());
    std::memset(&prefix_mask_, 0xff, prefix_.size());
  }
  // The same loop passes the same idxStr every time; compare the text, not
  // the pointer (a recycled cursor may meet another statement's string at
  // the same address).
  if (idx_str == nullptr) idx_str = "";
  if (plan_ == nullptr || std::strcmp(plan_text_.c_str(), idx_str) != 0) {
    TUPLEKV_ASSIGN_OR_RETURN(plan_, t->plans->get(idx_str));
    plan_text_.assign(idx_str);
  }
  KvValueReader reader(t);
  TUPLEKV_RETURN_IF_ERROR(read_filter_args(*plan_, argc, argv, &reader, &args_));
  TUPLEKV_RETURN_IF_ERROR(
      builder_.build(*plan_, t->shape.columns, t->prefix, args_.data(), plan_->terms.size(), &spec_));
  has_prefix_arg_ = false;
  prefix_in_ = nullptr;
  for (size_t k = 0; k < plan_->terms.size(); ++k) {
    if (plan_->terms[k].op == PlanOp::kPrefix && args_[k].values[0].kind == FilterValue::Kind::kBytes) {
      prefix_arg_.assign(args_[k].values[0].bytes);
      has_prefix_arg_ = true;
    }
    if (plan_->terms[k].op == PlanOp::kPrefixIn) prefix_in_ = &args_[k];
  }
  // The SQLite store holds only this table's keys, so a range reaching the
  // end of the subspace can be scanned without an end bound, which spares
  // its statement a key comparison per row (on_row() checks the prefix
  // instead, a masked word compare). The memory store checks bounds per
  // leaf, not per row, so its ranges stay as they are.
  if (t->sqlite_store != nullptr && !spec_.point) {
    for (size_t i = 0; i < spec_.size(); ++i) {
      KeyRange& r = spec_.mutable_range(i);
      if (r.end == t->table_end) r.end.clear();
    }
  }
  point_ = spec_.point;
  keys_only_ = (idx_num & kIdxKeysOnly) != 0;
  limited_ = spec_.has_limit;
  remaining_ = spec_.limit;
  if (limited_ && remaining_ == 0) return Status::OK();
  ScanOptions options;
  options.reverse = spec_.reverse;
  options.keys_only = keys_only_;
  if (limited_) {
    options.limit = spec_.limit + spec_.offset < spec_.limit ? 0 : spec_.limit + spec_.offset;
  }
  if (scan_ != nullptr && (options.reverse != scan_options_.reverse ||
                           options.keys_only != scan_options_.keys_only ||
                           options.limit != scan_options_.limit)) {
    scan_.reset();
    sqlite_scan_ = nullptr;
    memory_scan_ = nullptr;
  }
  scan_options_ = options;
  range_ = 0;
  eof_ = false;
  set_source();
  if (!open_range()) return error_;
  for (uint64_t skip = spec_.offset; skip > 0 && !eof_; --skip) {
    if (!advance()) return error_;
  }
  return Status::OK();
}

void KvCursor::set_source() {
  if (point_) {
    source_ = Source::kPoint;
  } else if (sqlite_scan_ != nullptr) {
    source_ = Source::kSqlite;
  } else if (memory_scan_ != nullptr) {
    source_ = Source::kMemory;
  } else {
    source_ = Source::kOther;
  }
}

bool KvCursor::outside_subspace(BytesView key) {
  return fail(Status::Corruption("key " + blob_literal(key) + " is outside its subspace"));
}

bool KvCursor::open_range() {
  KvTable* t = table();
  const size_t n = spec_.size();
  for (; range_ < n; ++range_) {
    const KeyRange& r = spec_[spec_.reverse ? n - 1 - range_ : range_];
    ++stats_->ranges;
    if (point_) {
      bool found = false;
      Status s = t->store->get(r.begin, &point_value_, &found);
      if (!s.ok()) return fail(std::move(s));
      if (found) {
        point_key_ = r.begin;
        ++stats_->rows;
        return true;
      }
      continue;
    }
    if (scan_ == nullptr) {
      Result<std::unique_ptr<Cursor>> c = t->store->scan(r, scan_options_);
      if (!c.ok()) return fail(c.status());
      scan_ = std::move(c).value();
      // Once per cursor, not per row.
      sqlite_scan_ = dynamic_cast<SqliteCursor*>(scan_.get());
      memory_scan_ = sqlite_scan_ == nullptr ? dynamic_cast<MemoryCursor*>(scan_.get()) : nullptr;
      set_source();
    } else {
      Status s = scan_->rescan(r);
      if (!s.ok()) return fail(std::move(s));
    }
    check_prefix_ = r.end.empty();
    if (scan_->valid()) return on_row(scan_->key());
    if (!scan_->status().ok()) return fail(scan_->status());
  }
  eof_ = true;
  return true;
}

bool KvCursor::advance() {
  switch (source_) {
    case Source::kSqlite:
      return advance_in(sqlite_scan_);
    case Source::kMemory:
      return advance_in(memory_scan_);
    case Source::kOther:
      return advance_in(scan_.get());
    case Source::kPoint:
      break;
  }
  ++range_;
  return open_range();
}

bool KvCursor::next() {
  if (eof_) return true;
  if (limited_ && --remaining_ == 0) {
    eof_ = true;
    return true;
  }
  return advance();
}

int KvCursor::other_column(sqlite3_context* ctx, int i) {
  switch (i) {
    case kValueColumn: {
      if (sqlite3_vtab_nochange(ctx)) return SQLITE_OK;
      // The plan said `value` is not read; fetch it anyway rather than
      // return nothing.
      bool found = false;
      const Status s = table()->store->get(current_key(), &value_buf_, &found);
      if (!s.ok()) {
        set_result_error(ctx, s);
        return sqlite_code(s);
      }
      result_blob(ctx, value_buf_);
      return SQLITE_OK;
    }
    case kPrefixColumn: {
      if (sqlite3_vtab_nochange(ctx)) return SQLITE_OK;  // an UPDATE that does not set it
      if (has_prefix_arg_) {
        result_blob(ctx, prefix_arg_);
        return SQLITE_OK;
      }
      if (prefix_in_ != nullptr) {
        // The row is under one or more of the list's values: the longest
        // (the most specific) is its reading.
        const BytesView key = current_key().substr(std::min(prefix_.size(), current_key().size()));
        const FilterValue* best = nullptr;
        for (size_t k = 0; k < prefix_in_->count; ++k) {
          const FilterValue& v = prefix_in_->values[k];
          if (v.kind != FilterValue::Kind::kBytes || !key.starts_with(BytesView(v.bytes))) continue;
          if (best == nullptr || v.bytes.size() > best->bytes.size()) best = &v;
        }
        if (best != nullptr) {
          result_blob(ctx, best->bytes);
          return SQLITE_OK;
        }
      }
      // No row has one prefix (a NULL here once made `prefix = p OR value
      // = v` silently lose every row under p).
      const Status s = parameter_not_scanned(table()->name, "prefix", "<blob>").with_context("tuplekv_kv");
      set_result_error(ctx, s);
      return sqlite_code(s);
    }
    default: {
      const Status s = Status::Internal("tuplekv internal error: column " + std::to_string(i));
      set_result_error(ctx, s);
      return sqlite_code(s);
    }
  }
}

KvTable::KvTable() : sqlite3_vtab{} {}
KvTable::~KvTable() = default;

namespace {

// ---------------------------------------------------------------------------
// sqlite3_module slots: each runs its body inside a guard (ext/errors.h).

KvTable* as_table(sqlite3_vtab* v) { return static_cast<KvTable*>(v); }
KvCursor* as_cursor(sqlite3_vtab_cursor* c) { return static_cast<KvCursor*>(c); }

int kv_init(sqlite3* db, void* aux, int argc, const char* const* argv, sqlite3_vtab** out,
            char** err, bool create) {
  return guard_create(err, [&] {
    auto table = std::make_unique<KvTable>();
    const Status s = table->open(db, static_cast<ModuleData*>(aux)->registry, argc, argv, create);
    if (!s.ok()) return set_create_error(err, s);
    *out = table.release();
    return SQLITE_OK;
  });
}

// Defined with the other slots below; xCreate joins an open transaction
// through them (ext/created_in_transaction.h).
template <Status (OrderedStore::*Hook)()>
int kv_txn(sqlite3_vtab* vtab) noexcept;
int kv_disconnect(sqlite3_vtab* vtab) noexcept;

int kv_create(sqlite3* db, void* aux, int argc, const char* const* argv, sqlite3_vtab** out,
              char** err) noexcept {
  const int rc = kv_init(db, aux, argc, argv, out, err, true);
  if (rc != SQLITE_OK) return rc;
  return join_open_transaction(db, out, err, &kv_txn<&OrderedStore::begin>, &kv_disconnect);
}

int kv_connect(sqlite3* db, void* aux, int argc, const char* const* argv, sqlite3_vtab** out,
               char** err) noexcept {
  return kv_init(db, aux, argc, argv, out, err, false);
}

int kv_best_index(sqlite3_vtab* vtab, sqlite3_index_info* info) noexcept {
  return guard_vtab(vtab, [&] {
    // Bit 1 of colUsed is `value`.
    const int flags = (info->colUsed & (sqlite3_uint64{1} << kValueColumn)) == 0 ? kIdxKeysOnly : 0;
    return best_index(as_table(vtab)->shape, info, flags);
  });
}

int kv_disconnect(sqlite3_vtab* vtab) noexcept {
  return guard_vtab(vtab, [&] {
    delete as_table(vtab);
    return SQLITE_OK;
  });
}

int kv_destroy(sqlite3_vtab* vtab) noexcept {
  return guard_vtab(vtab, [&] {
    KvTable* t = as_table(vtab);
    const Status s = t->destroy();
    // On failure SQLite keeps the table (and this object) alive.
    // SQLite reads no message after xDestroy, and would free none: the
    // code alone, so that nothing is left to leak.
    if (!s.ok()) return sqlite_code(s);
    delete t;
    return SQLITE_OK;
  });
}


int kv_open(sqlite3_vtab* vtab, sqlite3_vtab_cursor** out) noexcept {
  return guard_vtab(vtab, [&] {
    KvCursor* c = as_table(vtab)->spare_cursors.take();
    *static_cast<sqlite3_vtab_cursor*>(c) = sqlite3_vtab_cursor{};
    *out = c;
    return SQLITE_OK;
  });
}

int kv_close(sqlite3_vtab_cursor* cur) noexcept {
  return guard_vtab(cur->pVtab, [&] {
    std::unique_ptr<KvCursor> c(as_cursor(cur));  // owned until kept
    KvTable* t = c->table();
    c->recycle();
    t->spare_cursors.give_back(std::move(c));
    return SQLITE_OK;
  });
}

// Status -> result code, touching zErrMsg only on failure (the hot paths
// below run once per row).
int vtab_result(sqlite3_vtab* vtab, const Status& s) {
  return s.ok() ? SQLITE_OK : set_vtab_error(vtab, as_table(vtab)->reported(s));
}

int kv_filter(sqlite3_vtab_cursor* cur, int idx_num, const char* idx_str, int argc,
              sqlite3_value** argv) noexcept {
  return guard_vtab(cur->pVtab, [&] {
    return vtab_result(cur->pVtab, as_cursor(cur)->filter(idx_num, idx_str, argc, argv));
  });
}

int kv_next(sqlite3_vtab_cursor* cur) noexcept {
  return guard_vtab(cur->pVtab, [&] {
    KvCursor* c = as_cursor(cur);
    return c->next() ? SQLITE_OK : vtab_result(cur->pVtab, c->error());
  });
}

int kv_eof(sqlite3_vtab_cursor* cur) noexcept { return as_cursor(cur)->eof() ? 1 : 0; }

int kv_column(sqlite3_vtab_cursor* cur, sqlite3_context* ctx, int i) noexcept {
  KvCursor* c = as_cursor(cur);
  if (c->row_column(ctx, i)) return SQLITE_OK;
  return guard_vtab(cur->pVtab, [&] { return c->other_column(ctx, i); });
}

int kv_rowid(sqlite3_vtab_cursor* cur, sqlite3_int64*) noexcept {
  // WITHOUT ROWID: SQLite never asks.
  return set_vtab_error(cur->pVtab,
                        Status::Internal("tuplekv internal error: tuplekv_kv has no rowid"));
}

int kv_update(sqlite3_vtab* vtab, int argc, sqlite3_value** argv, sqlite3_int64* rowid) noexcept {
  keep_last_insert_rowid(as_table(vtab)->db, rowid);
  return guard_vtab(vtab, [&] { return as_table(vtab)->update(argc, argv); });
}

// Transaction hooks: the SQLite store's are no-ops (SQLite already makes the
// shadow table's writes transactional); the memory store keeps an undo log.
template <Status (OrderedStore::*Hook)()>
int kv_txn(sqlite3_vtab* vtab) noexcept {
  return guard_vtab(vtab, [&] {
    as_table(vtab)->in_transaction = Hook == &OrderedStore::begin;
    return set_vtab_error(vtab, (as_table(vtab)->store.get()->*Hook)());
  });
}

int kv_sync(sqlite3_vtab*) noexcept { return SQLITE_OK; }

template <Status (KvTable::*Hook)(int)>
int kv_savepoint_hook(sqlite3_vtab* vtab, int n) noexcept {
  return guard_vtab(vtab, [&] {
    return set_vtab_error(vtab, (as_table(vtab)->*Hook)(n));
  });
}

int kv_rename(sqlite3_vtab* vtab, const char* to) noexcept {
  return guard_vtab(vtab, [&] { return set_vtab_error(vtab, as_table(vtab)->rename(to)); });
}

int kv_shadow_name(const char* suffix) noexcept {
  return suffix != nullptr && sqlite3_stricmp(suffix, SqliteStore::kShadowSuffix) == 0;
}

const sqlite3_module kKvModule = {
    /* iVersion      */ 3,
    /* xCreate       */ kv_create,
    /* xConnect      */ kv_connect,
    /* xBestIndex    */ kv_best_index,
    /* xDisconnect   */ kv_disconnect,
    /* xDestroy      */ kv_destroy,
    /* xOpen         */ kv_open,
    /* xClose        */ kv_close,
    /* xFilter       */ kv_filter,
    /* xNext         */ kv_next,
    /* xEof          */ kv_eof,
    /* xColumn       */ kv_column,
    /* xRowid        */ kv_rowid,
    /* xUpdate       */ kv_update,
    /* xBegin        */ kv_txn<&OrderedStore::begin>,
    /* xSync         */ kv_sync,
    /* xCommit       */ kv_txn<&OrderedStore::commit>,
    /* xRollback     */ kv_txn<&OrderedStore::rollback>,
    /* xFindFunction */ nullptr,
    /* xRename       */ kv_rename,
    /* xSavepoint    */ kv_savepoint_hook<&KvTable::savepoint>,
    /* xRelease      */ kv_savepoint_hook<&KvTable::release>,
    /* xRollbackTo   */ kv_savepoint_hook<&KvTable::rollback_to>,
    /* xShadowName   */ kv_shadow_name,
};

void destroy_module_data(void* p) noexcept { delete static_cast<ModuleData*>(p); }

}  // namespace
}  // namespace kv

int register_kv_module(sqlite3* db, char** err) {
  using kv::kModule;
  std::shared_ptr<ConnectionRegistry> registry = ConnectionRegistry::of(db);
  auto* data = new kv::ModuleData{registry};
  // On failure sqlite3_create_module_v2 calls the destructor itself.
  int rc = sqlite3_create_module_v2(db, kModule, &kv::kKvModule, data, kv::destroy_module_data);
  if (rc != SQLITE_OK) {
    if (err != nullptr) *err = sqlite3_mprintf("tuplekv: cannot register module %s", kModule);
    return rc;
  }
  return registry->register_functions(db, err);
}

}  // namespace tuplekv::ext
