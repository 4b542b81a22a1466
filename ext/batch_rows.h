// tuplekv_batch_rows: how a store hands a run of pairs from memory to one
// SQL statement, so that SQLite writes them in one program run instead of
// one statement run each (ext/sqlite_store.cc, "Write batching").
//
//   INSERT OR IGNORE INTO t(k, v) SELECT k, v FROM tuplekv_batch_rows(?1)
//   sqlite3_bind_pointer(stmt, 1, &rows, kBatchRowsType, nullptr)
//
// COLUMNS  k BLOB, v BLOB (the pair's key and value, in the order given),
//          rows HIDDEN (the pointer).
// Only sqlite3_bind_pointer can produce the argument, so SQL cannot point
// the table at memory of its own: any other argument, or none, gives no
// rows. The table is eponymous-only and DIRECTONLY (no trigger or view in
// a database's schema can use it; a TEMP one can, and gets no rows, as it
// cannot bind the pointer). Its values point into the caller's entries,
// which must outlive the statement's run.
//
// Rows without entries (a null `entries`, `count` of them, every column
// NULL) serve set_changes(): deleting them deletes nothing, but SQLite
// counts every row it hands a virtual table's xUpdate as a change. DELETE
// is the one write the table takes.
#ifndef TUPLEKV_EXT_BATCH_ROWS_H_
#define TUPLEKV_EXT_BATCH_ROWS_H_

#include <cstddef>
#include <cstdint>

#include "core/status.h"
#include "core/write_batch.h"
#include "ext/sqlite_api.h"

namespace tuplekv::ext {

struct BatchRows {
  const WriteBatch::Entry* const* entries = nullptr;
  size_t count = 0;
};

// The pointer type sqlite3_bind_pointer must name.
inline constexpr char kBatchRowsType[] = "tuplekv_batch_rows";

// Makes sqlite3_changes() report `n`, as if the last statement had changed
// n rows, with nothing written: for work a virtual table does in SQL
// where the application's statement must look as if it did none (a
// rename that moves keys). Unless it reports n already, it runs a DELETE
// of n rows of this table, a step per row; n < 0 counts as 0.
Status set_changes(sqlite3* db, int64_t n);

// Registers the table on `db` (extension.cc does, with everything else).
int register_batch_rows_module(sqlite3* db, char** err);

}  // namespace tuplekv::ext

#endif  // TUPLEKV_EXT_BATCH_ROWS_H_
