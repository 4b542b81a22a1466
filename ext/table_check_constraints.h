// CHECK constraints of a tuplekv_table.
//
// SQLite evaluates no CHECK of a virtual table (its INSERT and UPDATE hand
// the row to xUpdate without the constraint code a native table gets), so
// the table evaluates them itself, with SQLite, in the order SQLite checks a
// STRICT table's row: NOT NULL, then types, then CHECK in declaration
// order, then uniqueness (table_write.cc).
//
// One prepared statement per table evaluates every CHECK of a row:
//
//   SELECT NOT (e1), NOT (e2), ...
//   FROM (SELECT CAST(?1 AS INTEGER) AS "a", ?2 COLLATE NOCASE AS "b", ...
//         LIMIT -1 OFFSET 0)
//
// Each column is a parameter with the column's affinity (a CAST, which is
// the identity on a value already of the column's type; for ANY, BLOB
// affinity from a column that has it) and collation, so `a > '5'` compares
// as it would against the column of a native table. A result of 1 is a
// failed CHECK; NULL passes, as in SQLite.
//
// At CREATE VIRTUAL TABLE, the CHECKs are first put to SQLite in a
// CREATE TABLE that is prepared and never run, so that what SQLite
// refuses in a native table's CHECK (an unknown column, a subquery, a
// parameter, an aggregate) is refused with SQLite's own message.
#ifndef TUPLEKV_EXT_TABLE_CHECK_CONSTRAINTS_H_
#define TUPLEKV_EXT_TABLE_CHECK_CONSTRAINTS_H_

#include <cstdint>
#include <string>

#include "core/model/table.h"
#include "core/status.h"
#include "ext/sqlite_api.h"

namespace tuplekv::ext::table {

// The CHECKs of `schema` (which must outlive this, and have CHECKs) in
// connection `db`. Messages start with `module` and name the table as it
// is called at the time.
class RowChecks {
 public:
  RowChecks(sqlite3* db, const char* module, const model::TableSchema& schema)
      : db_(db), module_(module), schema_(schema) {}
  ~RowChecks();
  RowChecks(const RowChecks&) = delete;
  RowChecks& operator=(const RowChecks&) = delete;

  // Refuses what SQLite refuses in the CHECKs of a native table `table`
  // declared with the same columns.
  Status validate(const std::string& table) const;

  // The first CHECK that `row` (each column's stored element) fails ->
  // *failed, or -1. `rowid` is the row's implicit key, if it has one.
  Status first_failed(const std::string& table, const model::TableLayout::Elements& row, int64_t rowid,
                      int* failed);

 private:
  Status prepare_error(int rc, const std::string& table) const;

  sqlite3* db_;
  const char* module_;
  const model::TableSchema& schema_;
  sqlite3_stmt* stmt_ = nullptr;  // prepared at the first row
};

}  // namespace tuplekv::ext::table

#endif  // TUPLEKV_EXT_TABLE_CHECK_CONSTRAINTS_H_
