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
// rows. The table is eponymous-only and DIRECTONLY (no trigger or view
// can use it). Its values point into the caller's entries, which must
// outlive the statement's run.
#ifndef TUPLEKV_EXT_BATCH_ROWS_H_
#define TUPLEKV_EXT_BATCH_ROWS_H_

#include <cstddef>

#include "core/write_batch.h"
#include "ext/sqlite_api.h"

namespace tuplekv::ext {

struct BatchRows {
  const WriteBatch::Entry* const* entries = nullptr;
  size_t count = 0;
};

// The pointer type sqlite3_bind_pointer must name.
inline constexpr char kBatchRowsType[] = "tuplekv_batch_rows";

// Registers the table on `db` (extension.cc does, with everything else).
int register_batch_rows_module(sqlite3* db, char** err);

}  // namespace tuplekv::ext

#endif  // TUPLEKV_EXT_BATCH_ROWS_H_
