// STRICT-table value rules (core/model/table.h) applied to SQLite's own
// values: the bridge between sqlite3_value and model::coerce(), shared by
// tuplekv_table and the typed columns of tuplekv_multimap.
#ifndef TUPLEKV_EXT_STRICT_VALUES_H_
#define TUPLEKV_EXT_STRICT_VALUES_H_

#include <string>

#include "core/model/table.h"
#include "core/status.h"
#include "ext/sqlite_api.h"

namespace tuplekv::ext {

// SQLite's conversions (numeric affinity, number -> text) for coerce().
class SqliteConversions final : public model::SqlConversions {
 public:
  model::SqlValue numeric(const model::SqlValue& v) override;
  void text(const model::SqlValue& v, std::string* out) override;
  // The value the next calls convert (they need SQLite's own copy).
  void set_source(sqlite3_value* v) { source_ = v; }

 private:
  sqlite3_value* source_ = nullptr;
};

// How sql_value_of() reads TEXT.
enum class TextRead {
  // sqlite3_value_text: right in a database of any encoding, but it adds a
  // NUL terminator, which copies text bound with an explicit length (as
  // most drivers bind it).
  kTerminated,
  // The bytes as they are (sqlite3_value_blob, no copy). Only in a UTF-8
  // database: SQLite keeps every TEXT value in the database's encoding.
  kUtf8AsStored,
};

// The TextRead for `db`'s encoding, which is fixed once the database
// exists (attached databases must share it). kIOError when it cannot be read.
Result<TextRead> text_read_for(sqlite3* db);

// Reads an SQL value as a model::SqlValue (views into the value).
model::SqlValue sql_value_of(sqlite3_value* v, TextRead text = TextRead::kTerminated);

// coerce() then model::append_element() where they change nothing: `v`
// is NULL or already has `type` (INTEGER, REAL, TEXT or BLOB; any value
// for ANY), and TEXT is valid UTF-8 read as stored. Appends the element to *out and returns
// true; false (and *out unchanged) for everything else, which takes the
// general path. Most written values are of this kind, and this reads each
// with one type test instead of building SqlValues.
bool append_value_of_its_type(model::ColumnType type, sqlite3_value* v, TextRead text, Bytes* out);

// A STRICT type error (core coerce()) as xUpdate must return it. SQLite
// handles a constraint code from xUpdate by the statement's conflict clause
// (skipped under IGNORE, the transaction rolled back under ROLLBACK), where
// a STRICT table reports the error and undoes the statement; so the
// constraint code is returned only where it gives the native outcome: under
// ABORT and REPLACE, and under FAIL inside a transaction. Elsewhere
// SQLITE_MISMATCH, with the same message, undoes the statement. `fail_rc`
// is what setting the error on the vtab returned.
int strict_type_error_code(sqlite3* db, int on_conflict, int fail_rc);

}  // namespace tuplekv::ext

#endif  // TUPLEKV_EXT_STRICT_VALUES_H_
