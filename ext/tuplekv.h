/* tuplekv: FoundationDB-style tuple keyspaces as SQLite virtual tables.
 *
 * For programs that link SQLite and the static library (libtuplekv_static.a)
 * instead of loading the module at run time:
 *
 *   sqlite3* db;
 *   sqlite3_open(":memory:", &db);
 *   if (tuplekv_register(db) != SQLITE_OK) { ... }
 *   sqlite3_exec(db, "CREATE VIRTUAL TABLE t USING tuplekv_kv", 0, 0, 0);
 *
 * tuplekv_register adds every function and module to `db` and returns an
 * SQLite result code (SQLITE_ERROR when SQLite is older than 3.38). The
 * loadable module's entry point is sqlite3_tuplekv_init, found by
 * `.load tuplekv` and sqlite3_load_extension() without naming it.
 */
#ifndef TUPLEKV_EXT_TUPLEKV_H_
#define TUPLEKV_EXT_TUPLEKV_H_

#include <sqlite3.h>

#ifdef __cplusplus
extern "C" {
#endif

int tuplekv_register(sqlite3* db);

#ifdef __cplusplus
}
#endif

#endif /* TUPLEKV_EXT_TUPLEKV_H_ */
