// DROP TABLE and ALTER TABLE RENAME for a keyspace table's storage: its
// store (a shadow table, or a memory store held by the connection) and its
// tuplekv_stats counters. The tables keep their own key moves (a rename
// of a table without subspace= moves its keys, core/move_prefix.h).
#ifndef TUPLEKV_EXT_TABLE_STORAGE_H_
#define TUPLEKV_EXT_TABLE_STORAGE_H_

#include <cstddef>
#include <string>
#include <string_view>

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

// A rename that moves a table's keys (one without subspace=, whose keys
// live under its name) cannot take a scan in progress along: the scan would
// go on under the old prefix and end early or read keys half-moved. So it is
// refused, as SQLite's own DROP TABLE is, while SQLite holds a cursor of the
// table open (a statement stepped but not reset or finalized).
Status refuse_key_move_while_reading(std::string_view module, const std::string& name,
                                     size_t open_cursors);

// A table without subspace= takes its subspace from its name when SQLite
// connects it, whatever its store: a name that is not UTF-8 cannot be a
// tuple string, and the renamed table could never be opened again (not
// even to drop it). So such a rename is refused before anything moves.
Status refuse_name_not_utf8(std::string_view module, const std::string& to);

}  // namespace tuplekv::ext

#endif  // TUPLEKV_EXT_TABLE_STORAGE_H_
