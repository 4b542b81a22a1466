#include "ext/table_storage.h"

#include "core/tuple.h"

namespace tuplekv::ext {

Status drop_table_storage(ConnectionRegistry* registry, sqlite3* db, const std::string& schema,
                          const std::string& name, bool memory) {
  if (memory) {
    TUPLEKV_RETURN_IF_ERROR(registry->drop_memory(schema, name));
  } else {
    // The table's idle prepared statements do not block DROP TABLE.
    TUPLEKV_RETURN_IF_ERROR(SqliteStore::drop_table(db, schema, name));
  }
  registry->drop_stats(schema, name);
  return Status::OK();
}

Status rename_table_storage(ConnectionRegistry* registry, sqlite3* db, SqliteStore* sqlite_store,
                            const std::string& schema, const std::string& name,
                            const std::string& to, bool memory) {
  if (memory) {
    TUPLEKV_RETURN_IF_ERROR(registry->rename_memory(schema, name, to));
  } else {
    TUPLEKV_RETURN_IF_ERROR(SqliteStore::rename_table(db, schema, name, to));
    TUPLEKV_RETURN_IF_ERROR(sqlite_store->renamed(to));
  }
  registry->rename_stats(schema, name, to);
  return Status::OK();
}

Status refuse_key_move_while_reading(std::string_view module, const std::string& name,
                                     size_t open_cursors) {
  if (open_cursors == 0) return Status::OK();
  return Status::Native(StatusCode::kBusy, SQLITE_LOCKED,
                        std::string(module) + ": cannot rename " + name +
                            " while a statement is reading it: reset or finalize that statement first");
}

Status refuse_name_not_utf8(std::string_view module, const std::string& to) {
  if (is_valid_utf8(to)) return Status::OK();
  return Status::InvalidArgument(std::string(module) +
                                 ": new table name is not valid UTF-8, and without subspace= "
                                 "the name is the table's subspace");
}

}  // namespace tuplekv::ext
