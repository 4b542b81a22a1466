// tuplekv_batch_rows: the contract is in batch_rows.h. A cursor walks the
// caller's entry pointers; each column is the entry's own bytes, handed
// over with SQLITE_STATIC because they outlive the statement's run.
#include <new>

#include "ext/batch_rows.h"
#include "ext/errors.h"

namespace tuplekv::ext {
namespace {

constexpr int kKey = 0;
constexpr int kValue = 1;
constexpr int kRows = 2;  // HIDDEN: the pointer

constexpr int kHasRows = 1;  // idxNum: argv[0] is the pointer

// Where zero-length values point: a null pointer would make them NULL.
constexpr char kEmpty[1] = {0};

struct RowsCursor {
  sqlite3_vtab_cursor base;  // must be first
  BatchRows rows;
  size_t at = 0;
};

int rows_connect(sqlite3* db, void*, int, const char* const*, sqlite3_vtab** out,
                 char**) noexcept {
  int rc = sqlite3_declare_vtab(db, "CREATE TABLE x(k BLOB, v BLOB, rows HIDDEN)");
  if (rc != SQLITE_OK) return rc;
  rc = sqlite3_vtab_config(db, SQLITE_VTAB_DIRECTONLY);
  if (rc != SQLITE_OK) return rc;
  auto* vtab = static_cast<sqlite3_vtab*>(sqlite3_malloc(sizeof(sqlite3_vtab)));
  if (vtab == nullptr) return SQLITE_NOMEM;
  *vtab = sqlite3_vtab{};
  *out = vtab;
  return SQLITE_OK;
}

int rows_disconnect(sqlite3_vtab* vtab) noexcept {
  sqlite3_free(vtab);
  return SQLITE_OK;
}

// The pointer is an equality constraint on `rows`, consumed. Without a
// usable one, SQLITE_CONSTRAINT when it is only unusable in this join
// order; otherwise a plan that yields nothing.
int rows_best_index(sqlite3_vtab*, sqlite3_index_info* info) noexcept {
  bool unusable = false;
  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& c = info->aConstraint[i];
    if (c.iColumn != kRows || c.op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
    if (!c.usable) {
      unusable = true;
      continue;
    }
    info->aConstraintUsage[i].argvIndex = 1;
    info->aConstraintUsage[i].omit = 1;
    info->idxNum = kHasRows;
    info->estimatedCost = 1000;
    info->estimatedRows = 1000;
    return SQLITE_OK;
  }
  if (unusable) return SQLITE_CONSTRAINT;
  info->idxNum = 0;
  info->estimatedCost = 1;
  info->estimatedRows = 1;
  return SQLITE_OK;
}

int rows_open(sqlite3_vtab*, sqlite3_vtab_cursor** out) noexcept {
  auto* c = static_cast<RowsCursor*>(sqlite3_malloc(sizeof(RowsCursor)));
  if (c == nullptr) return SQLITE_NOMEM;
  new (c) RowsCursor();
  *out = &c->base;
  return SQLITE_OK;
}

int rows_close(sqlite3_vtab_cursor* cur) noexcept {
  sqlite3_free(cur);
  return SQLITE_OK;
}

RowsCursor* as_cursor(sqlite3_vtab_cursor* cur) { return reinterpret_cast<RowsCursor*>(cur); }

int rows_filter(sqlite3_vtab_cursor* cur, int idx_num, const char*, int argc,
                sqlite3_value** argv) noexcept {
  RowsCursor* c = as_cursor(cur);
  c->rows = BatchRows();
  c->at = 0;
  if (idx_num == kHasRows && argc == 1) {
    const auto* rows = static_cast<const BatchRows*>(sqlite3_value_pointer(argv[0], kBatchRowsType));
    if (rows != nullptr) c->rows = *rows;
  }
  return SQLITE_OK;
}

int rows_next(sqlite3_vtab_cursor* cur) noexcept {
  ++as_cursor(cur)->at;
  return SQLITE_OK;
}

int rows_eof(sqlite3_vtab_cursor* cur) noexcept {
  const RowsCursor* c = as_cursor(cur);
  return c->at >= c->rows.count ? 1 : 0;
}

void result_bytes(sqlite3_context* ctx, BytesView b) {
  sqlite3_result_blob64(ctx, b.empty() ? kEmpty : b.data(), b.size(), SQLITE_STATIC);
}

int rows_column(sqlite3_vtab_cursor* cur, sqlite3_context* ctx, int i) noexcept {
  const RowsCursor* c = as_cursor(cur);
  if (c->rows.entries == nullptr) return SQLITE_OK;  // set_changes()' rows: NULL
  const WriteBatch::Entry* e = c->rows.entries[c->at];
  if (i == kKey) {
    result_bytes(ctx, e->key);
  } else if (i == kValue && e->has_value) {
    result_bytes(ctx, e->value);
  }  // else NULL: a cleared key's value, or the hidden column
  return SQLITE_OK;
}

int rows_rowid(sqlite3_vtab_cursor* cur, sqlite3_int64* out) noexcept {
  *out = static_cast<sqlite3_int64>(as_cursor(cur)->at);
  return SQLITE_OK;
}

// A DELETE changes nothing: there is nothing stored. SQLite counts each
// row all the same (set_changes()).
int rows_update(sqlite3_vtab* vtab, int argc, sqlite3_value**, sqlite3_int64*) noexcept {
  if (argc == 1) return SQLITE_OK;
  sqlite3_free(vtab->zErrMsg);
  vtab->zErrMsg = sqlite3_mprintf("tuplekv_batch_rows may not be written");
  return SQLITE_ERROR;
}

const sqlite3_module kRowsModule = {
    /* iVersion      */ 0,
    /* xCreate       */ nullptr,  // eponymous-only
    /* xConnect      */ rows_connect,
    /* xBestIndex    */ rows_best_index,
    /* xDisconnect   */ rows_disconnect,
    /* xDestroy      */ rows_disconnect,
    /* xOpen         */ rows_open,
    /* xClose        */ rows_close,
    /* xFilter       */ rows_filter,
    /* xNext         */ rows_next,
    /* xEof          */ rows_eof,
    /* xColumn       */ rows_column,
    /* xRowid        */ rows_rowid,
    /* xUpdate       */ rows_update,
    /* xBegin        */ nullptr,
    /* xSync         */ nullptr,
    /* xCommit       */ nullptr,
    /* xRollback     */ nullptr,
    /* xFindFunction */ nullptr,
    /* xRename       */ nullptr,
    /* xSavepoint    */ nullptr,
    /* xRelease      */ nullptr,
    /* xRollbackTo   */ nullptr,
    /* xShadowName   */ nullptr,
};

}  // namespace

Status set_changes(sqlite3* db, int64_t n) {
  if (n < 0) n = 0;
  if (sqlite3_changes64(db) == n) return Status::OK();
  BatchRows rows;
  rows.count = static_cast<size_t>(n);
  sqlite3_stmt* st = nullptr;
  int rc = sqlite3_prepare_v2(db, "DELETE FROM tuplekv_batch_rows WHERE rows = ?1", -1, &st, nullptr);
  if (rc == SQLITE_OK) rc = sqlite3_bind_pointer(st, 1, &rows, kBatchRowsType, nullptr);
  if (rc == SQLITE_OK) rc = sqlite3_step(st);
  if (rc == SQLITE_DONE) rc = SQLITE_OK;
  Status s = rc == SQLITE_OK ? Status::OK() : sqlite_error(db, rc, "restoring changes()");
  sqlite3_finalize(st);
  return s;
}

int register_batch_rows_module(sqlite3* db, char**) {
  return sqlite3_create_module_v2(db, "tuplekv_batch_rows", &kRowsModule, nullptr, nullptr);
}

}  // namespace tuplekv::ext
