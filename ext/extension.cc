// Entry points: sqlite3_tuplekv_init for `.load` / load_extension, and
// tuplekv_register for programs that link the static library.
#define TUPLEKV_EXTENSION_INIT1_HERE
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1

#include <mutex>

#include "ext/batch_rows.h"
#include "ext/errors.h"
#include "ext/limit_pushdown.h"
#include "ext/registry.h"

namespace tuplekv::ext {
namespace {

// sqlite3_vtab_in and WITHOUT ROWID virtual tables need 3.38.
constexpr int kMinSqliteVersion = 3038000;

using Registrar = int (*)(sqlite3*, char**);
constexpr Registrar kRegistrars[] = {
    register_functions,
    register_batch_rows_module,
    register_tuple_each,
    register_kv_module,
    register_cells_module,
    register_multimap_module,
    register_docs_modules,
    register_table_module,
};

int register_all(sqlite3* db, char** err) {
  if (sqlite3_libversion_number() < kMinSqliteVersion) {
    if (err != nullptr) {
      *err = sqlite3_mprintf("tuplekv: SQLite %s is too old; 3.38.0 or newer is needed",
                             sqlite3_libversion());
    }
    return SQLITE_ERROR;
  }
  for (Registrar r : kRegistrars) {
    const int rc = r(db, err);
    if (rc != SQLITE_OK) return rc;
  }
  // Probed here, once per process, rather than inside the first xBestIndex.
  limit_pushdown_allowed();
  return SQLITE_OK;
}

}  // namespace
}  // namespace tuplekv::ext

#ifdef TUPLEKV_STATIC
extern "C" __attribute__((visibility("default"))) int tuplekv_register(sqlite3* db) {
  char* err = nullptr;
  const int rc = tuplekv::ext::guard_create(
      &err, [&] { return tuplekv::ext::register_all(db, &err); });
  sqlite3_free(err);
  return rc;
}
#else
extern "C" __attribute__((visibility("default"))) int sqlite3_tuplekv_init(
    sqlite3* db, char** pzErrMsg, const sqlite3_api_routines* pApi) {
  // Every connection that loads the module hands over the same table.
  // Storing it once keeps a later load from writing the pointer while
  // threads using earlier connections read it.
  static std::once_flag api_stored;
  try {
    std::call_once(api_stored, [pApi] { SQLITE_EXTENSION_INIT2(pApi); });
  } catch (...) {
    return SQLITE_ERROR;  // the thread library failed; nothing else can be reported
  }
  return tuplekv::ext::guard_create(
      pzErrMsg, [&] { return tuplekv::ext::register_all(db, pzErrMsg); });
}
#endif
