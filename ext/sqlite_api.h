// The one place ext/ includes SQLite.
//
// Built as the loadable module, SQLite's API is reached through the
// sqlite3_api table that sqlite3_tuplekv_init receives (SQLITE_EXTENSION_INIT1
// lives in extension.cc; every other file sees it through INIT3). Built with
// SQLITE_CORE (the static twin), the same names bind to the linked library.
#ifndef TUPLEKV_EXT_SQLITE_API_H_
#define TUPLEKV_EXT_SQLITE_API_H_

#include <sqlite3ext.h>
#ifndef TUPLEKV_EXTENSION_INIT1_HERE
SQLITE_EXTENSION_INIT3
#endif

#endif  // TUPLEKV_EXT_SQLITE_API_H_
