// A virtual table created inside an open transaction joins it without its
// xBegin: SQLite 3.40 adds the new table to the transaction's list
// (vtab.c, sqlite3VtabCallCreate) and later calls its xSavepoint,
// xRollbackTo, xCommit and xRollback, but never xBegin. A store that keeps
// its own undo log (store=memory) would then record none of the table's
// writes, so ROLLBACK TO, or a statement that fails half-way, could not
// undo them. Each module's xCreate therefore calls its own xBegin when the
// connection is inside a transaction:
//
//   int x_create(sqlite3* db, ..., sqlite3_vtab** out, char** err) noexcept {
//     const int rc = init(db, ..., out, err);
//     if (rc != SQLITE_OK) return rc;
//     return join_open_transaction(db, out, err, &x_begin, &x_disconnect);
//   }
#ifndef TUPLEKV_EXT_CREATED_IN_TRANSACTION_H_
#define TUPLEKV_EXT_CREATED_IN_TRANSACTION_H_

#include "ext/sqlite_api.h"

namespace tuplekv::ext {

// x_begin(*vtab) when `db` is inside BEGIN ... COMMIT (under autocommit the
// creating statement commits or rolls back by itself). Should that fail,
// the table is disconnected, *vtab cleared and its message moved to *err,
// as xCreate reports a failure.
inline int join_open_transaction(sqlite3* db, sqlite3_vtab** vtab, char** err,
                                 int (*x_begin)(sqlite3_vtab*),
                                 int (*x_disconnect)(sqlite3_vtab*)) {
  if (sqlite3_get_autocommit(db) != 0) return SQLITE_OK;
  const int rc = x_begin(*vtab);
  if (rc == SQLITE_OK) return SQLITE_OK;
  *err = (*vtab)->zErrMsg;
  (*vtab)->zErrMsg = nullptr;
  x_disconnect(*vtab);
  *vtab = nullptr;
  return rc;
}

}  // namespace tuplekv::ext

#endif  // TUPLEKV_EXT_CREATED_IN_TRANSACTION_H_
