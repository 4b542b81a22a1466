// SqliteStore: the OrderedStore over a shadow table, the default store of
// every tuplekv virtual table.
//
//   CREATE TABLE "<schema>"."<name>_kv"(k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID
//
// BLOB keys compare with memcmp, which is tuple order, so a key range is an
// index range of the shadow table. Writes run inside the caller's SQLite
// transaction: the begin/commit/rollback/savepoint hooks undo nothing
// because SQLite already makes the shadow table's writes atomic with the
// statement and transaction that caused them.
//
// Statements are prepared once per store and reused: get/set/insert/clear/
// clear_range each have one; scans take a statement from a small pool (one
// per cursor open at the same time, so self-joins work) and give it back
// when the cursor is destroyed. A scan never prepares in the common case.
//
// Keys and values read through a cursor point into the statement's result
// row (SQLite copies them out of the page); they stay valid until the
// cursor moves, writes in between included (core/store.h's contract).
// A cursor may stay open across writes to the store; it then continues
// after the key it was on, as the table is at that moment.
//
// Corrupt rows (a key or value that is not a BLOB) are reported as
// kCorruption with the shadow table's name, never trusted. A NULL value is
// corruption too (the store only ever writes BLOBs); a zero-length BLOB is
// an empty value. Rows whose key is not a BLOB sort before every BLOB in
// SQLite, so scans from the start of the keyspace (empty begin) meet them
// and clear_range from there removes them; BLOB-bounded ranges never do.
//
// SQLite failures carry SQLite's extended result code as native_code(), so
// SQLITE_BUSY, SQLITE_FULL, SQLITE_NOMEM, ... pass through ext/errors.h
// unchanged. Messages say what failed on which table ("writing
// "main"."t_kv": database is locked"); a module adds its own prefix.
#ifndef TUPLEKV_EXT_SQLITE_STORE_H_
#define TUPLEKV_EXT_SQLITE_STORE_H_

#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/store.h"
#include "ext/sqlite_api.h"

namespace tuplekv::ext {

class SqliteStore final : public OrderedStore {
 public:
  // The suffix that names a table's shadow table ("<name>_kv"), for
  // xShadowName.
  static constexpr const char* kShadowSuffix = "kv";

  // Creates the shadow table of virtual table `name` in `schema` (xCreate).
  // Fails if it already exists.
  static Status create_table(sqlite3* db, const std::string& schema, const std::string& name);
  // Drops it (xDestroy).
  static Status drop_table(sqlite3* db, const std::string& schema, const std::string& name);
  // Renames it when the virtual table is renamed (xRename).
  static Status rename_table(sqlite3* db, const std::string& schema, const std::string& old_name,
                             const std::string& new_name);

  // Opens the store over an existing shadow table (xCreate after
  // create_table, and xConnect). Prepares every statement it needs up
  // front, so a missing table is reported here.
  static Result<std::unique_ptr<SqliteStore>> open(sqlite3* db, const std::string& schema,
                                                   const std::string& name);
  ~SqliteStore() override;

  // After xRename: re-prepares statements against the new table name.
  Status renamed(const std::string& new_name);

  Status get(BytesView key, Bytes* value, bool* found) override;
  Status set(BytesView key, BytesView value) override;
  // Stores key/value only if the key is absent; *inserted says whether it
  // did (an existing pair is left as it was). One b-tree seek where get()
  // then set() takes two: the way for INSERT without OR REPLACE to detect
  // a duplicate key at native INSERT speed.
  Status insert(BytesView key, BytesView value, bool* inserted);
  Status clear(BytesView key) override;
  Status clear_range(BytesView begin, BytesView end) override;
  Result<std::unique_ptr<Cursor>> scan(const KeyRange& range, const ScanOptions& options) override;

  // SQLite undoes the writes itself. rollback() and rollback_to() only
  // tell open cursors that rows may have changed under them (see
  // sqlite_store.cc, "Writes during a scan"), so a virtual table should
  // still forward xRollback/xRollbackTo.
  Status begin() override { return Status::OK(); }
  Status commit() override { return Status::OK(); }
  Status rollback() override;
  Status savepoint(int) override { return Status::OK(); }
  Status release(int) override { return Status::OK(); }
  Status rollback_to(int n) override;

 private:
  struct Impl;
  explicit SqliteStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tuplekv::ext

#endif  // TUPLEKV_EXT_SQLITE_STORE_H_
