// What a WITHOUT ROWID virtual table reports as an INSERT's rowid.
//
// SQLite sets last_insert_rowid() from xUpdate's rowid out-parameter after
// every INSERT into a virtual table, WITHOUT ROWID ones included, and starts
// that parameter at 0 (OP_VUpdate in SQLite 3.40's vdbe.c). A native
// WITHOUT ROWID table leaves last_insert_rowid() as it was, so an
// application that inserted into a rowid table and then into a tuplekv
// table would read 0. Handing back the current value keeps it.
#ifndef TUPLEKV_EXT_INSERT_ROWID_H_
#define TUPLEKV_EXT_INSERT_ROWID_H_

#include "ext/sqlite_api.h"

namespace tuplekv::ext {

// Call at the top of xUpdate, before any write: the shadow table is
// WITHOUT ROWID, so tuplekv's own statements do not move the value either.
// SQLite reads the parameter only after an INSERT that succeeded.
inline void keep_last_insert_rowid(sqlite3* db, sqlite3_int64* rowid) {
  if (rowid != nullptr) *rowid = sqlite3_last_insert_rowid(db);
}

}  // namespace tuplekv::ext

#endif  // TUPLEKV_EXT_INSERT_ROWID_H_
