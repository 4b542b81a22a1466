// What the two JSON document modules share: ext/docs_vtab.cc (tuplekv_docs)
// and ext/leaves_vtab.cc (tuplekv_leaves, a read-only view of a docs
// table's leaves). tuplekv_leaves reads the docs table's own module
// arguments, so both parse them here; both open the same store, encode ids
// the same way and split keys the same way; and both plan and register
// with the same small helpers. Internal to ext/.
#ifndef TUPLEKV_EXT_DOCS_SHARED_H_
#define TUPLEKV_EXT_DOCS_SHARED_H_

#include <memory>
#include <string>
#include <string_view>

#include "core/bytes.h"
#include "core/model/docs.h"
#include "core/status.h"
#include "core/store.h"
#include "ext/errors.h"
#include "ext/keyspace_vtab.h"
#include "ext/memory_registry.h"
#include "ext/sqlite_api.h"
#include "ext/sqlite_store.h"
#include "ext/values.h"

namespace tuplekv::ext::docs {

inline constexpr const char* kDocsModule = "tuplekv_docs";
inline constexpr const char* kLeavesModule = "tuplekv_leaves";
inline constexpr unsigned int kJsonSubtype = 74;  // json1's subtype for JSON text

// The docs table's options (the file comment of docs_vtab.cc).
struct DocsOptions {
  KeyspaceOptions keyspace;
  model::DocsMode mode = model::DocsMode::kDocuments;
  bool fdb_limits = false;
  bool cache = true;  // cache=0|1; mode=merge never has one
};

Status parse_docs_options(const std::string& table, int argc, const char* const* argv,
                          DocsOptions* out);

// The store of a docs table: its shadow table or the connection's memory
// store.
struct OpenedStore {
  std::shared_ptr<OrderedStore> store;
  SqliteStore* sqlite_store = nullptr;
};

// Opens (with `create`: first creates) the leaves' store of table `name`:
// one object per connection, which the docs table and every tuplekv_leaves
// over it share (ConnectionRegistry). *prefix may change (a memory store
// keeps the prefix it was made with).
// `declaration`: ConnectionRegistry::declaration_of() the docs table's
// arguments, empty where they are unknown.
Status open_store(sqlite3* db, ConnectionRegistry* registry, const std::string& schema,
                  const std::string& name, const std::string& declaration, bool memory, bool create,
                  Bytes* prefix, OpenedStore* out);

// pack((subspace,)); messages start with `module`.
Status subspace_prefix(const std::string& module, const std::string& subspace, Bytes* out);

// SQL value -> packed id element. kInvalidArgument for TEXT that is not UTF-8.
Status encode_id(sqlite3_value* v, Bytes* out);
// Packed id element -> the SQL result.
Status result_id(sqlite3_context* ctx, BytesView element);

// Splits the part of a key after the prefix into the document's id
// element (documents mode; empty in merge mode) and the rest.
Status split_doc(model::DocsMode mode, BytesView rest, BytesView* doc, BytesView* after);

// kCorruption for a key met past document `doc`'s keys (its id, then
// 0xFF) in a full scan: no element begins with 0xFF.
Status damaged_after(BytesView doc);

// xBestIndex of both modules: `n` equality-constrained columns, each with
// its idxNum bit and idxStr name; the one with `id_bit` is re-checked by
// SQLite (2 = 2.0), the others are exact. Costs: a document by id < its
// subtree by id < every document. Sets idxNum, idxStr, the flags and costs.
// The columns of `parameter_bits` (docs' path, leaves' prefix) have a value
// only when their = chooses the scan, so a combination that has such an =
// but cannot use it (`d.path = u.p` before u is read) returns
// SQLITE_CONSTRAINT, and SQLite picks a join order that can.
int plan_equalities(sqlite3_index_info* info, const int* columns, const int* bits,
                    const char* const* names, int n, int id_bit, int parameter_bits, int* idx_num);

int no_rowid(sqlite3_vtab_cursor* cur, sqlite3_int64*) noexcept;

template <typename C>
int open_cursor(sqlite3_vtab* vtab, sqlite3_vtab_cursor** out) noexcept {
  return guard_vtab(vtab, [&] {
    *out = new C();
    return SQLITE_OK;
  });
}

template <typename C>
int close_cursor(sqlite3_vtab_cursor* cur) noexcept {
  return guard_vtab(cur->pVtab, [&] {
    delete static_cast<C*>(cur);
    return SQLITE_OK;
  });
}

// What sqlite3_create_module_v2 hands to xCreate/xConnect.
struct ModuleData {
  std::shared_ptr<ConnectionRegistry> registry;
};

// Registers module `m` under `name` with a ModuleData for `db`.
int register_module(sqlite3* db, const char* name, const sqlite3_module* m, char** err);

// leaves_vtab.cc: registers tuplekv_leaves.
int register_leaves_module(sqlite3* db, char** err);

}  // namespace tuplekv::ext::docs

#endif  // TUPLEKV_EXT_DOCS_SHARED_H_
