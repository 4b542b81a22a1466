// What the extension registers. Each ext file that defines SQL functions or
// a module exposes one registration function here; extension.cc calls them
// all, in order, and stops at the first failure.
#ifndef TUPLEKV_EXT_REGISTRY_H_
#define TUPLEKV_EXT_REGISTRY_H_

#include "ext/sqlite_api.h"

namespace tuplekv::ext {

// Each returns an SQLite result code; on failure *err (sqlite3_malloc'd)
// may say what could not be registered.
int register_functions(sqlite3* db, char** err);     // functions.cc
int register_tuple_each(sqlite3* db, char** err);    // tuple_each_vtab.cc
int register_kv_module(sqlite3* db, char** err);     // kv_vtab.cc
int register_cells_module(sqlite3* db, char** err);  // cells_vtab.cc
int register_multimap_module(sqlite3* db, char** err);  // multimap_vtab.cc
int register_docs_modules(sqlite3* db, char** err);  // docs_vtab.cc: tuplekv_docs, tuplekv_leaves
int register_table_module(sqlite3* db, char** err);  // table_vtab.cc: tuplekv_table, tuplekv_check()

}  // namespace tuplekv::ext

#endif  // TUPLEKV_EXT_REGISTRY_H_
