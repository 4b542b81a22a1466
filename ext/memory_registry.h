// Per-connection state of tuplekv's virtual tables: the stores of
// `store=memory` tables, the SQLite store of each tuplekv_docs table (which
// its tuplekv_leaves tables share) and the scan counters behind
// tuplekv_stats().
//
// A `store=memory` table keeps its pairs in a MemoryStore that belongs to
// the database connection, not to the sqlite3_vtab object: SQLite may
// disconnect and reconnect a virtual table at any time (schema changes,
// ALTER TABLE), and the data must survive that. It lives until the table is
// dropped or the connection closes; other connections to the same database
// file see the table empty. The registry is shared by every registration
// of the extension on one connection (loading it twice must not lose data),
// found by the sqlite3* handle.
//
// DROP TABLE and ALTER TABLE ... RENAME can still be rolled back after the
// module has been told (in a transaction, or when a later step of the
// statement fails). So a dropped table's store is kept under its name, and a
// renamed one under both names, marked "uncertain"; sweep(), run at later
// CREATE/connect calls outside transactions, asks sqlite_schema which names
// exist and forgets the others. (A store=memory table dropped and
// re-created under the same name in one transaction that is then rolled
// back comes back empty.)
//
// The schema cannot say whether a rename committed when another connection
// has since created a table, declared alike, under the other name: both
// names exist. The store then goes to the name of the latest rename (the
// outcome when the rename committed) and the other name starts empty; two
// tables never share one store. Likewise a dropped table's rows come back
// if another connection re-creates it alike before this one sweeps.
//
// DETACH tells no virtual table; the sweep looks at each schema's file. A
// database file detached and attached again finds its memory tables' rows
// as it left them; a schema name attached to another file starts them
// empty; a detached in-memory database's stores are freed. Stores are kept
// by schema name, so one file attached under two names has two.
//
// The static library and the loadable module each keep their own
// registries: a connection should get tuplekv from one of them only.
//
// tuplekv_stats(name [, 'reset']) returns the counters of one table as JSON,
// {"scans":S,"ranges":R,"rows":N,"writes":W,"range_clears":C}: xFilter
// calls, key ranges or point lookups started, pairs read from the store,
// pairs written or deleted, and DELETEs of whole ranges done as one
// clear_range. With 'reset' it returns them and then sets them to zero.
// `name` is `table` or `schema.table`: the table a statement naming it
// would reach (ext/table_names.h), an error when that one is not open on
// this connection. Counters are per connection and start at zero when the
// table is first opened on it. It is meant for tests and for checking that
// a query reads only its range.
#ifndef TUPLEKV_EXT_MEMORY_REGISTRY_H_
#define TUPLEKV_EXT_MEMORY_REGISTRY_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "core/memory_store.h"
#include "core/status.h"
#include "ext/sqlite_api.h"

namespace tuplekv::ext {

class SqliteStore;

struct ScanStats {
  uint64_t scans = 0;   // xFilter calls
  uint64_t ranges = 0;  // ranges scanned or keys looked up
  uint64_t rows = 0;    // pairs read from the store
  uint64_t writes = 0;  // pairs set or cleared by INSERT/UPDATE/DELETE
  uint64_t range_clears = 0;  // DELETEs of whole ranges done as one clear_range
};

class ConnectionRegistry {
 public:
  // The registry of `db`, created on first use.
  static std::shared_ptr<ConnectionRegistry> of(sqlite3* db);
  ~ConnectionRegistry();
  ConnectionRegistry(const ConnectionRegistry&) = delete;
  ConnectionRegistry& operator=(const ConnectionRegistry&) = delete;

  // A memory table's store and the key prefix its pairs were written under
  // (fixed at creation: a rename moves no keys, so a rolled-back rename
  // finds them where they were).
  struct MemoryTable {
    std::shared_ptr<MemoryStore> store;
    std::string prefix;
  };
  // `declaration` names the table's definition, declaration_of() its
  // module arguments, so that a store kept under a name is not handed to a
  // different table another connection has since created under it (one
  // declared exactly alike cannot be told apart: the database file holds
  // nothing else of a memory table). Empty: unknown (tuplekv_leaves
  // opening its docs table's store).
  static std::string declaration_of(int argc, const char* const* argv);
  // xCreate: a new, empty store (replacing whatever the name held).
  MemoryTable create_memory(const std::string& schema, const std::string& name,
                            const std::string& prefix, const std::string& declaration);
  // xConnect: the table's store, or a new empty one under `prefix` if this
  // connection has none, or has one for another declaration (the table it
  // belonged to was dropped by another connection).
  MemoryTable connect_memory(const std::string& schema, const std::string& name,
                             const std::string& prefix, const std::string& declaration);
  // xDestroy / xRename (see the file comment). drop_memory refuses a table
  // written in the open transaction (or, if made in it, since a savepoint
  // still open): SQLite tells a dropped table nothing more of the
  // transaction, so a rollback that brings it back could not undo them.
  Status drop_memory(const std::string& schema, const std::string& name);
  // rename_memory refuses, inside a transaction, a new name whose store is
  // itself uncertain (dropped or renamed away earlier in the transaction):
  // after a ROLLBACK the sweep could not tell which rows belong to which
  // name.
  Status rename_memory(const std::string& schema, const std::string& from, const std::string& to);
  // Forgets the memory stores of a schema now attached to another database
  // file, or of a detached in-memory database; and, outside a transaction,
  // the uncertain names that do not exist in the schema.
  void sweep();

  std::shared_ptr<ScanStats> stats(const std::string& schema, const std::string& name);
  void rename_stats(const std::string& schema, const std::string& from, const std::string& to);
  void drop_stats(const std::string& schema, const std::string& name);
  // The counters of the table `table` or `schema.table` names, as SQLite
  // resolves it (ext/table_names.h); null if that table is not open here.
  std::shared_ptr<ScanStats> find_stats(std::string_view qualified) const;

  // The SQLite store of table `name`, one object for every virtual table
  // that reads its shadow table on this connection: a tuplekv_docs table
  // and the tuplekv_leaves tables over it. A SqliteStore tells its own
  // cursors of its writes (ext/sqlite_store.h), so a leaves scan must share
  // the store the docs table writes through. The one already open, or a
  // new one; `fresh` (xCreate) always a new one, so that a store kept
  // alive from a dropped table of the same name is not joined.
  Result<std::shared_ptr<SqliteStore>> sqlite_store(const std::string& schema, const std::string& name,
                                                    bool fresh);
  void rename_sqlite_store(const std::string& schema, const std::string& from, const std::string& to);

  // Changes whenever a table is created (with a memory store, or a docs
  // table's SQLite store), renamed or dropped on this connection: a
  // tuplekv_leaves table then finds its docs table again.
  uint64_t generation() const { return generation_; }

  // Registers tuplekv_stats on `db` (bound to this registry).
  int register_functions(sqlite3* db, char** err);

 private:
  explicit ConnectionRegistry(sqlite3* db) : db_(db) {}

  struct MemoryEntry {
    std::string schema;
    std::string name;
    MemoryTable table;
    bool uncertain = false;
    std::string declaration;
    uint64_t renamed_to = 0;  // when a rename gave it this name (renames_); 0: none
    std::string file;         // sqlite3_db_filename() of its schema when opened
  };
  std::string file_of(const std::string& schema) const;
  void forget_detached();
  static std::string key(std::string_view schema, std::string_view name);
  bool table_exists(const std::string& schema, const std::string& name, bool* exists) const;

  sqlite3* db_;
  std::map<std::string, MemoryEntry> memory_;
  size_t uncertain_ = 0;
  uint64_t renames_ = 0;
  uint64_t generation_ = 0;
  std::map<std::string, std::shared_ptr<ScanStats>> stats_;
  std::map<std::string, std::weak_ptr<SqliteStore>> sqlite_stores_;
};

}  // namespace tuplekv::ext

#endif  // TUPLEKV_EXT_MEMORY_REGISTRY_H_
