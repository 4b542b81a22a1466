// What the files of tuplekv_table share: the table object (table_vtab.cc
// has the module and cursors; table_planning.cc xBestIndex;
// table_bounds.cc the bounds its scans read from xFilter's values;
// table_write.cc the writes; table_check.cc tuplekv_check()). The contract
// is at the top of table_vtab.cc, the plan contract in table_planning.h.
#ifndef TUPLEKV_EXT_TABLE_VTAB_H_
#define TUPLEKV_EXT_TABLE_VTAB_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "core/bytes.h"
#include "core/model/native_scan.h"
#include "core/model/table.h"
#include "core/status.h"
#include "core/store.h"
#include "ext/index_planner.h"
#include "ext/keyspace_vtab.h"
#include "ext/memory_registry.h"
#include "ext/spare_cursors.h"
#include "ext/sqlite_api.h"
#include "ext/sqlite_store.h"
#include "ext/strict_values.h"
#include "ext/table_check_constraints.h"

namespace tuplekv::ext::table {

inline constexpr const char* kModule = "tuplekv_table";

// One way to scan the table: its primary key, or one of its indexes
// (whose positions are the indexed columns, then the key).
struct Candidate {
  bool is_index = false;
  size_t index = 0;                       // when is_index
  std::vector<PlanColumn> columns;        // the positions, for core/plan.h
  std::vector<model::ColumnType> types;   // per position
  // Per position: the column's collation where its key elements are
  // collation keys (model::TableColumn::keyed_by_collation()), else empty.
  std::vector<std::string_view> key_collations;
  bool collation_keyed() const {  // some position is
    for (std::string_view k : key_collations) {
      if (!k.empty()) return true;
    }
    return false;
  }
  std::vector<bool> nullable;             // per position (index columns may hold NULL)
  std::vector<int> column_of;             // per position: table column, -1 for the rowid
  std::vector<int> position_of;           // per table column (and raw_key): position or -1
  int rowid_position = -1;                // position of the implicit key, or -1
  bool unique = true;                     // = on every position finds one entry at most
  int unique_prefix = 0;                  // PlanRequest::unique_prefix
  // The first element of the candidate's keys (after its prefix) that holds
  // an ANY column, or -1. From there on tuple order is not SQLite's, so
  // scans sort what they read (core/model/sql_order.h).
  int sql_order_from = -1;
  std::vector<bool> covers;               // per table column: readable without the row
  // Per table column: held as SQLite prices the reference's index
  // (model::native_index_holds), where the entries hold it (covers).
  std::vector<bool> native_covers;
  // The reference table stores these entries in descending order
  // (model::TableSchema::stored_descending): scans that no ORDER BY
  // directs run in reverse, to visit rows in its order.
  bool stored_descending = false;
  // For SQLite's choice of direction where an ORDER BY is left to its sort
  // (best_index_table): per position, whether the reference declares it
  // DESC; and the table columns its primary key index holds after the key
  // (the other columns in table order, compared as BINARY: -1 for a column
  // of another collation, which no ORDER BY term matches).
  std::vector<bool> position_desc;
  std::vector<int> order_tail;
  std::unique_ptr<PlanCache> plans;
  // Distinct first elements for skip-scan planning (0: more than
  // kSkipScanDistinct, or too few repeats), measured when the table's row_writes was
  // `distinct_writes`; measured again once it has moved on.
  std::optional<double> leading_distinct;
  uint64_t distinct_writes = 0;
};

// A skip-scan is planned over a first position with at most this many
// distinct values (counted with one seek each)...
inline constexpr size_t kSkipScanDistinct = 256;
// ... that repeat this many times on average, SQLite's own condition for a
// skip-scan (which it tests on ANALYZE's statistics; without them it
// assumes fewer repeats and never skips). Below it a scan reads the key or
// index whole, as SQLite reads its own table, in the same order.
inline constexpr size_t kSkipScanRowsPerValue = 18;

using ext::SqliteConversions;
using ext::sql_value_of;

struct TableCursor;

struct TableVtab : sqlite3_vtab {
  // Both out of line, where TableCursor is complete (the spares).
  TableVtab();
  ~TableVtab();

  sqlite3* db = nullptr;
  std::shared_ptr<ConnectionRegistry> registry;
  std::string schema;
  std::string name;
  KeyspaceOptions options;
  model::TableSchema table;
  model::TableLayout layout;
  std::shared_ptr<OrderedStore> store;
  SqliteStore* sqlite_store = nullptr;
  std::shared_ptr<ScanStats> stats;
  std::unique_ptr<model::TableRows> rows;
  std::unique_ptr<RowChecks> row_checks;  // when the table has CHECK constraints
  std::string raw_name;  // the hidden raw-key column
  int raw_column = 0;    // its number (= table.columns.size())
  std::vector<Candidate> candidates;  // [0] primary key, [1 + i] index i
  // How SQLite would scan the native reference whole, in its order.
  std::vector<model::NativeScan> native_scans;
  // The next implicit key, when known (reset whenever it may have changed).
  std::optional<int64_t> next_rowid;
  uint64_t row_writes = 0;  // xUpdate calls (one per row written), to age estimates
  // Key elements of the rows OR REPLACE deleted in the current statement.
  // SQLite hands a virtual table's UPDATE the rows it read before changing
  // any, so a later one of them may have been replaced away, and another
  // row moved to its key: that one is not the row SQLite read, and the
  // values SQLite computed belong to no row there now. Emptied whenever a
  // statement may begin: at every xFilter (an UPDATE reads its rows first)
  // and every transaction and savepoint hook.
  std::unordered_set<Bytes> replaced_rows;
  void forget_replaced_rows() {
    if (!replaced_rows.empty()) std::unordered_set<Bytes>().swap(replaced_rows);
  }
  // xBegin was the last hook: the next xSavepoint(n) is SQLite telling a
  // table that joins a transaction inside n savepoints where it stands.
  bool just_began = false;
  // Between xBegin and xCommit/xRollback. SQLite calls xBegin before any
  // statement that writes the table runs, so outside a transaction no
  // UPDATE can be asking xColumn about unchanged columns.
  bool in_transaction = false;
  // A statement's own undo mark (table_write.cc, mark_statement()). SQLite
  // 3.40 opens no statement savepoint for a virtual table's UPDATE … FROM,
  // so when one fails in a transaction nothing undoes its earlier rows; the
  // table marks OrderedStore::kStatementLevel at each statement's first
  // write and rolls back to it if a write fails the statement.
  bool savepoint_heard = false;    // xSavepoint since the last write
  bool statement_marked = false;   // kStatementLevel is marked
  int64_t write_total = -1;        // sqlite3_total_changes64() after the last write
  // A hook ended what the mark was for: the next write starts afresh.
  void forget_statement() {
    savepoint_heard = statement_marked = false;
    write_total = -1;
  }
  TextRead text_read = TextRead::kTerminated;  // for the database's encoding
  SpareCursors<TableCursor> spare_cursors;

  size_t ncols() const { return table.columns.size(); }
  const std::string& column_name(int c) const {
    return c < 0 ? rowid_name() : table.columns[static_cast<size_t>(c)].name;
  }
  static const std::string& rowid_name();

  Status open(sqlite3* d, int argc, const char* const* argv, bool create);
  Status rename(const std::string& to);
  Status destroy();
  int fail(const Status& s);

  // xUpdate (table_write.cc).
  int update(int argc, sqlite3_value** argv, sqlite3_int64* rowid);
  Status mark_statement();
  void undo_statement(int rc);

  // Stored row under `key_elements` (after the row prefix) -> *found, and
  // the row's element views into *value_buf / key.
  Status load_row(BytesView key_elements, Bytes* key_buf, Bytes* value_buf,
                  model::TableLayout::Elements* row, bool* found);

  // xUpdate scratch (table_write.cc).
  struct WriteScratch;
  struct WriteScratchDeleter {
    void operator()(WriteScratch* w) const;  // table_write.cc
  };
  std::unique_ptr<WriteScratch, WriteScratchDeleter> scratch;
};

// Registers tuplekv_check (table_check.cc); tables register themselves so
// it can find them.
void remember_table(TableVtab* t);
void forget_table(TableVtab* t);
int register_check_function(sqlite3* db, char** err);

}  // namespace tuplekv::ext::table

#endif  // TUPLEKV_EXT_TABLE_VTAB_H_
