// Which schema a table name means, as SQLite resolves it.
//
// SQL functions that take a table's name as text (tuplekv_stats,
// tuplekv_check) must find the table a statement naming it would: for
// `schema.table` that schema, and for a bare name the first schema holding
// a table of that name, in the order temp, main, then attached databases
// in the order they were attached. Names match as SQLite's do, ASCII
// letters in any case.
#ifndef TUPLEKV_EXT_TABLE_NAMES_H_
#define TUPLEKV_EXT_TABLE_NAMES_H_

#include <string>
#include <string_view>

#include "core/status.h"
#include "ext/sqlite_api.h"

namespace tuplekv::ext {

struct TableName {
  std::string schema;  // as attached (main, temp, aux...)
  std::string name;    // as given
};

// Splits `qualified` at its first '.' ("aux.t") when the part before it
// names an attached schema, and otherwise takes it whole as a bare name
// (a table called "a.b"); then finds the schema. *found is false when no
// schema holds such a table. Errors are SQLite's, reading the schemas.
Status resolve_table_name(sqlite3* db, std::string_view qualified, TableName* out, bool* found);

}  // namespace tuplekv::ext

#endif  // TUPLEKV_EXT_TABLE_NAMES_H_
