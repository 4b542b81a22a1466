// tuplekv_kv internals shared by its two files: kv_vtab.cc (the module:
// planning, cursors, the sqlite3_module slots) and kv_table.cc (the table:
// options, creation, rename/drop, and every write through xUpdate). Not
// part of any public interface; see kv_vtab.cc for the module's contract.
#ifndef TUPLEKV_EXT_KV_TABLE_H_
#define TUPLEKV_EXT_KV_TABLE_H_

#include <memory>
#include <string>
#include <vector>

#include "core/bytes.h"
#include "core/status.h"
#include "core/store.h"
#include "ext/errors.h"
#include "ext/index_planner.h"
#include "ext/memory_registry.h"
#include "ext/spare_cursors.h"
#include "ext/sqlite_api.h"
#include "ext/sqlite_store.h"

namespace tuplekv::ext::kv {

constexpr const char* kModule = "tuplekv_kv";
constexpr const char* kSchema =
    "CREATE TABLE x(key BLOB NOT NULL, value BLOB NOT NULL, prefix BLOB HIDDEN, "
    "PRIMARY KEY(key)) WITHOUT ROWID";
enum Column { kKeyColumn = 0, kValueColumn = 1, kPrefixColumn = 2 };
constexpr int kIdxKeysOnly = 1;  // idxNum flag: `value` is never read

constexpr size_t kFdbMaxKey = 10000;
constexpr size_t kFdbMaxValue = 100000;

// The bytes of a BLOB argument (an empty view for x'' and non-BLOBs).
BytesView blob_of(sqlite3_value* v);
// "INTEGER", "REAL", "TEXT", "BLOB" or "NULL", as SQLite's messages say.
const char* type_name(int type);

struct Options {
  std::string subspace;
  bool subspace_given = false;  // false: the table name (it follows renames)
  bool memory = false;
  bool fdb_limits = false;
};

// The module's client data: the connection's registry.
struct ModuleData {
  std::shared_ptr<ConnectionRegistry> registry;
};

struct KvCursor;

struct KvTable : sqlite3_vtab {
  // Both out of line, where KvCursor is complete (the spares).
  KvTable();
  ~KvTable();

  sqlite3* db = nullptr;
  std::shared_ptr<ConnectionRegistry> registry;
  std::string schema;
  std::string name;
  Options options;
  Bytes prefix;     // pack((subspace,))
  Bytes table_end;  // strinc(prefix): the end of every key of the table
  std::shared_ptr<OrderedStore> store;
  // store, when it is one: renames move its shadow table, and scans step
  // its cursors without virtual calls.
  SqliteStore* sqlite_store = nullptr;
  std::shared_ptr<ScanStats> stats;
  IndexShape shape;
  std::unique_ptr<PlanCache> plans;
  SpareCursors<KvCursor> spare_cursors;
  // xUpdate scratch, reused so writes do not allocate per row.
  Bytes key_buf;
  Bytes key2_buf;
  Bytes value_buf;
  Bytes old_value_buf;
  // Between xBegin and xCommit/xRollback. SQLite calls xBegin before any
  // statement that writes the table runs, so outside a transaction no
  // UPDATE can be asking xColumn about unchanged columns.
  bool in_transaction = false;

  Status open(sqlite3* d, const std::shared_ptr<ConnectionRegistry>& reg, int argc,
              const char* const* argv, bool create);
  int update(int argc, sqlite3_value** argv);
  Status rename(const std::string& to);
  Status destroy();
  Status move_keys(const Bytes& to);

  // Savepoint hooks, forwarded as SQLite numbers them: xSavepoint and
  // xRelease get 0 and up, xRollbackTo also -1 (ROLLBACK TO the savepoint
  // that opened the transaction); core/store.h says what n < 0 means.
  Status savepoint(int n) { return store->savepoint(n); }
  Status release(int n) { return store->release(n); }
  Status rollback_to(int n) { return store->rollback_to(n); }

  // `s` as SQL sees it: damaged stored bytes name the table they belong to.
  Status reported(const Status& s) const {
    return with_store_context(s, "tuplekv_kv", name);
  }

 private:
  int fail(const Status& s) { return set_vtab_error(this, reported(s)); }
  // Checks a key or value argument. On failure sets the error and *rc.
  bool check_blob(sqlite3_value* v, const char* column, int conflict, int* rc);
  bool check_limits(BytesView full_key, BytesView value, int* rc);
  int conflict(int on_conflict);
};

}  // namespace tuplekv::ext::kv

#endif  // TUPLEKV_EXT_KV_TABLE_H_
