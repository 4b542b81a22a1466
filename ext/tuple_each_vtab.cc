// tuple_each: a table-valued function with one row per top-level element of
// a packed tuple (the json_each of tuples).
//
// USAGE
//   SELECT idx, type, value, hex(raw)
//     FROM tuple_each(tuple_pack('CA', 42, tuple_pack(1, 2)));
//
//   idx  type    value        hex(raw)
//   0    string  CA           02434100
//   1    int     42           152A
//   2    tuple   x'15011502'  051501150200
//
//   -- the elements of every stored key:
//   SELECT keys.k, e.idx, e.value FROM keys, tuple_each(keys.k) AS e;
//
// COLUMNS
//   idx     INTEGER  position, from 0
//   type    TEXT     element_type_name(): null, bytes, string, tuple, int
//                    (bigints too), float, double, bool, uuid,
//                    versionstamp, user
//   value            the element as an SQL value (ext/values.h's table):
//                    NULL, INTEGER, REAL, TEXT or BLOB. A nested tuple is
//                    its children packed as a tuple (a BLOB), so
//                    tuple_unpack(value) is its JSON, tuple_each(value) its
//                    elements and tuple_pack(value) nests it again; a packed
//                    BLOB keeps every type exactly, where JSON text would
//                    have to be parsed again. Types SQL lacks are lossy
//                    here (bigint as decimal TEXT, UUID as TEXT, float32
//                    widened); `raw` is exact.
//   raw     BLOB     the element's own encoding, the bytes it occupies in
//                    the argument; tuple_pack(raw) splices it in with its
//                    type (it carries the element subtype while it passes
//                    straight from here to a function)
//   packed  BLOB     HIDDEN: the argument
//
// ERRORS (SQLITE_ERROR; nothing is returned before the whole argument has
// been checked, so a malformed tuple never yields a partial result)
//   tuple_each: missing argument: use tuple_each(<packed tuple BLOB>)
//   tuple_each: argument must be a BLOB (a packed tuple), got TEXT
//   tuple_each: malformed tuple: <what, at which byte>
//   NULL gives no rows, as json_each(NULL) does and as the scalar tuple
//   functions give NULL for NULL: a join over a column that is sometimes
//   NULL reads the other rows' tuples rather than failing.
//
// PLAN
//   The argument is an equality constraint on `packed`; xBestIndex consumes
//   it (argvIndex 1, omit). Without a usable one it returns
//   SQLITE_CONSTRAINT when the argument is only unusable in this join
//   order, and otherwise accepts a plan whose xFilter reports the missing
//   argument. ORDER BY idx (ascending) is consumed: rows come in idx order.
//
// The table is eponymous-only: there is no xCreate, so
// CREATE VIRTUAL TABLE ... USING tuple_each fails ("no such module").
#include <string>

#include "core/tuple.h"
#include "ext/errors.h"
#include "ext/registry.h"
#include "ext/sqlite_api.h"
#include "ext/values.h"

namespace tuplekv::ext {

namespace {

constexpr char kName[] = "tuple_each";

// Columns, in the declared order.
constexpr int kIdx = 0;
constexpr int kType = 1;
constexpr int kValue = 2;
constexpr int kRaw = 3;
constexpr int kPacked = 4;  // HIDDEN: the argument

constexpr int kHasArgument = 1;  // idxNum bit: argv[0] is the argument

struct EachCursor {
  sqlite3_vtab_cursor base;  // must be first
  Bytes packed;              // a copy of the argument
  TupleReader reader{BytesView()};
  int64_t idx = -1;
  bool eof = true;
};

EachCursor* cursor_of(sqlite3_vtab_cursor* c) { return reinterpret_cast<EachCursor*>(c); }

int each_connect(sqlite3* db, void*, int, const char* const*, sqlite3_vtab** out,
                 char** pzErr) noexcept {
  return guard_create(pzErr, [&] {
    int rc = sqlite3_declare_vtab(
        db, "CREATE TABLE x(idx INTEGER, type TEXT, value, raw BLOB, packed BLOB HIDDEN)");
    if (rc != SQLITE_OK) return rc;
    sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
    auto* vtab = static_cast<sqlite3_vtab*>(sqlite3_malloc(sizeof(sqlite3_vtab)));
    if (vtab == nullptr) return SQLITE_NOMEM;
    *vtab = sqlite3_vtab{};
    *out = vtab;
    return SQLITE_OK;
  });
}

int each_disconnect(sqlite3_vtab* vtab) noexcept {
  sqlite3_free(vtab);
  return SQLITE_OK;
}

int each_best_index(sqlite3_vtab* vtab, sqlite3_index_info* info) noexcept {
  return guard_vtab(vtab, [&] {
    int usable = -1;
    bool unusable = false;
    for (int i = 0; i < info->nConstraint; ++i) {
      const auto& c = info->aConstraint[i];
      if (c.iColumn != kPacked || c.op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
      if (!c.usable) {
        unusable = true;
      } else if (usable < 0) {
        usable = i;
      }
    }
    if (usable < 0) {
      // The argument exists but depends on a table not yet available in
      // this join order: make SQLite pick another order.
      if (unusable) return SQLITE_CONSTRAINT;
      info->idxNum = 0;  // xFilter reports the missing argument
      info->estimatedCost = 1e12;
      info->estimatedRows = 1;
      return SQLITE_OK;
    }
    info->aConstraintUsage[usable].argvIndex = 1;
    info->aConstraintUsage[usable].omit = 1;
    info->idxNum = kHasArgument;
    info->estimatedCost = 10;
    info->estimatedRows = 10;
    if (info->nOrderBy == 1 && info->aOrderBy[0].iColumn == kIdx && !info->aOrderBy[0].desc) {
      info->orderByConsumed = 1;
    }
    return SQLITE_OK;
  });
}

int each_open(sqlite3_vtab* vtab, sqlite3_vtab_cursor** out) noexcept {
  return guard_vtab(vtab, [&] {
    auto* c = new EachCursor();
    c->base = sqlite3_vtab_cursor{};
    *out = &c->base;
    return SQLITE_OK;
  });
}

int each_close(sqlite3_vtab_cursor* cur) noexcept {
  return guard_vtab(cur->pVtab, [&] {
    delete cursor_of(cur);
    return SQLITE_OK;
  });
}

int each_filter(sqlite3_vtab_cursor* cur, int idx_num, const char*, int argc,
                sqlite3_value** argv) noexcept {
  sqlite3_vtab* vtab = cur->pVtab;
  return guard_vtab(vtab, [&] {
    EachCursor* c = cursor_of(cur);
    c->eof = true;
    c->idx = -1;
    c->packed.clear();
    c->reader = TupleReader(BytesView());
    if ((idx_num & kHasArgument) == 0 || argc < 1) {
      return set_vtab_error(vtab, Status::InvalidArgument(
                                      std::string(kName) +
                                      ": missing argument: use tuple_each(<packed tuple BLOB>)"));
    }
    sqlite3_value* arg = argv[0];
    const int type = sqlite3_value_type(arg);
    if (type == SQLITE_NULL) return SQLITE_OK;  // no rows
    if (type != SQLITE_BLOB) {
      return set_vtab_error(vtab, Status::InvalidArgument(
                                      std::string(kName) +
                                      ": argument must be a BLOB (a packed tuple), got " +
                                      storage_class_name(type)));
    }
    const void* p = sqlite3_value_blob(arg);
    const int n = sqlite3_value_bytes(arg);
    if (p == nullptr && n > 0) return SQLITE_NOMEM;
    if (n > 0) c->packed.assign(static_cast<const char*>(p), static_cast<size_t>(n));
    // Check the whole argument first, so an error never follows rows.
    TupleReader check(c->packed);
    while (check.next()) {
    }
    if (!check.status().ok()) {
      return set_vtab_error(vtab, Status::InvalidArgument(std::string(kName) +
                                                          ": malformed tuple: " +
                                                          std::string(core_detail(check.status()))));
    }
    c->reader = TupleReader(c->packed);
    c->eof = !c->reader.next();
    c->idx = 0;
    return SQLITE_OK;
  });
}

int each_next(sqlite3_vtab_cursor* cur) noexcept {
  return guard_vtab(cur->pVtab, [&] {
    EachCursor* c = cursor_of(cur);
    c->eof = !c->reader.next();
    ++c->idx;
    if (c->eof && !c->reader.status().ok()) {
      // Unreachable: xFilter checked every element.
      return set_vtab_error(cur->pVtab,
                            Status::Internal("tuplekv internal error: tuple_each: " +
                                             c->reader.status().message()));
    }
    return SQLITE_OK;
  });
}

int each_eof(sqlite3_vtab_cursor* cur) noexcept { return cursor_of(cur)->eof ? 1 : 0; }

int each_column(sqlite3_vtab_cursor* cur, sqlite3_context* ctx, int column) noexcept {
  return guard_vtab(cur->pVtab, [&] {
    EachCursor* c = cursor_of(cur);
    const TupleReader& r = c->reader;
    switch (column) {
      case kIdx:
        sqlite3_result_int64(ctx, c->idx);
        return SQLITE_OK;
      case kType:
        result_text(ctx, element_type_name(r.type()));
        return SQLITE_OK;
      case kValue: {
        if (r.type() == ElementType::kInt) {
          sqlite3_result_int64(ctx, r.int64_value());
          return SQLITE_OK;
        }
        TupleValue v;
        Status s = r.decode(&v);
        if (s.ok()) s = result_element(ctx, v);
        if (!s.ok()) {
          set_result_error(ctx, s);
          return sqlite_code(s);
        }
        return SQLITE_OK;
      }
      case kRaw:
        result_blob(ctx, r.raw());
        sqlite3_result_subtype(ctx, kElementSubtype);
        return SQLITE_OK;
      case kPacked:
        result_blob(ctx, c->packed);
        return SQLITE_OK;
      default:
        sqlite3_result_null(ctx);
        return SQLITE_OK;
    }
  });
}

int each_rowid(sqlite3_vtab_cursor* cur, sqlite3_int64* rowid) noexcept {
  *rowid = cursor_of(cur)->idx;
  return SQLITE_OK;
}

sqlite3_module make_module() {
  sqlite3_module m{};
  m.iVersion = 0;
  m.xCreate = nullptr;  // eponymous-only
  m.xConnect = each_connect;
  m.xBestIndex = each_best_index;
  m.xDisconnect = each_disconnect;
  m.xDestroy = nullptr;
  m.xOpen = each_open;
  m.xClose = each_close;
  m.xFilter = each_filter;
  m.xNext = each_next;
  m.xEof = each_eof;
  m.xColumn = each_column;
  m.xRowid = each_rowid;
  return m;
}

const sqlite3_module kEachModule = make_module();

}  // namespace

int register_tuple_each(sqlite3* db, char** err) {
  const int rc = sqlite3_create_module_v2(db, kName, &kEachModule, nullptr, nullptr);
  if (rc != SQLITE_OK && err != nullptr) {
    sqlite3_free(*err);
    *err = sqlite3_mprintf("tuplekv: cannot register module %s: %s", kName, sqlite3_errmsg(db));
  }
  return rc;
}

}  // namespace tuplekv::ext
