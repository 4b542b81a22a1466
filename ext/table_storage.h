// DROP TABLE and ALTER TABLE RENAME for a keyspace table's storage: its
// store (a shadow table, or a memory store held by the connection) and its
// tuplekv_stats counters. The tables keep their own key moves (a rename
// of a table without subspace= moves its keys, core/move_prefix.h).
#ifndef TUPLEKV_EXT_TABLE_STORAGE_H_
#define TUPLEKV_EXT_TABLE_STORAGE_H_

#include <string>

#include "core/status.h"
#include "ext/memory_registry.h"
#include "ext/sqlite_api.h"
#include "ext/sqlite_store.h"

namespace tuplekv::ext {

// Drops the shadow table (store=sqlite) or the memory store, and the
// counters. On failure nothing is dropped and SQLite keeps the table: the
// caller must keep its store usable until this succeeded.
Status drop_table_storage(ConnectionRegistry* registry, sqlite3* db, const std::string& schema,
                          const std::string& name, bool memory);

// Renames them from `name` to `to`; `sqlite_store` (store=sqlite) learns its
// new shadow table name.
Status rename_table_storage(ConnectionRegistry* registry, sqlite3* db, SqliteStore* sqlite_store,
                            const std::string& schema, const std::string& name,
                            const std::string& to, bool memory);

}  // namespace tuplekv::ext

#endif  // TUPLEKV_EXT_TABLE_STORAGE_H_
