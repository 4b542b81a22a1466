// Shared machinery of the virtual tables whose rows are keyed by two
// values stored as tuple elements: tuplekv_cells (row, col) and
// tuplekv_multimap (key, value), untyped (ANY) unless a module declares a
// STRICT type for a column (typed columns below). Each of those files supplies a
// PairModel (its key layout, over core/model/) and its options; this file
// does the rest once: options common to every keyspace table (subspace=,
// store=), the store (shadow table or per-connection memory store), the
// planner adapter with a choice between key orders, cursors, writes with
// SQL's conflict clauses, transactions, rename/drop and the scan counters
// behind tuplekv_stats().
//
// Columns, in declaration order: A, B, [VALUE], raw HIDDEN. `raw` is the
// stored key (subspace prefix included) of the row in the layout's first
// order (tuplekv_cells layout=both: the row_idx key), the table's declared
// PRIMARY KEY: SQLite hands it back to xUpdate, which is
// how a DELETE or UPDATE finds both key elements in one value.
//
// ANY semantics (DESIGN.md §6): values keep their SQL type as a tuple
// type, so tuple order is not SQLite's order and 2 / 2.0 are two
// encodings of one SQLite value. Hence
//   - equality (= and IN) looks up every encoding SQLite calls equal
//     (core/model/sql_any.h), and writes refuse (or replace) a pair SQLite
//     would call a duplicate: INSERT (2.0, 'a') after (2, 'a') is
//     "UNIQUE constraint failed", as in a native ANY PRIMARY KEY table;
//   - range constraints narrow the scan only where tuple order allows it
//     (a BLOB lower bound); otherwise they scan the whole remaining range;
//     SQLite re-checks every constraint (omit=0), ORDER BY is never
//     consumed, LIMIT/OFFSET are pushed down only without constraints.
//
// Typed columns keep those plans (every stored value of a typed column is
// also a valid ANY value) and add what a STRICT column does: writes are
// coerced and checked (core coerce()), the column is declared with its
// type so SQLite's re-check compares with its affinity, and xFilter gives
// the right-hand sides of = and IN the affinity SQLite gives them: numeric
// for INTEGER and REAL ('3' finds 3). A number compared with a TEXT column
// may be turned into text (a literal) or compare numerically (a column of
// another table), which xFilter cannot tell apart: that scan reads the
// whole table and SQLite's re-check decides.
#ifndef TUPLEKV_EXT_KEYSPACE_VTAB_H_
#define TUPLEKV_EXT_KEYSPACE_VTAB_H_

#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/bytes.h"
#include "core/model/table.h"
#include "core/status.h"
#include "core/store.h"
#include "ext/errors.h"
#include "ext/index_planner.h"
#include "ext/memory_registry.h"
#include "ext/module_args.h"
#include "ext/spare_cursors.h"
#include "ext/sqlite_api.h"
#include "ext/sqlite_store.h"

namespace tuplekv::ext {

// subspace= and store=, which every keyspace table accepts.
struct KeyspaceOptions {
  std::string subspace;          // default: the table name
  bool subspace_given = false;   // false: the keys follow the table's renames
  bool memory = false;           // store=memory
};

// Takes subspace= and store= out of `opts` into *out; the rest stays for
// the module. Messages start with `module`.
Status take_keyspace_options(const std::string& module, const std::string& table,
                             std::vector<ModuleOption>* opts, KeyspaceOptions* out);

// A key layout of pairs (a, b), each a packed tuple element. A layout keeps
// one or two key orders, each (a, b) or (b, a) after its prefix.
class PairModel {
 public:
  virtual ~PairModel() = default;
  virtual int order_count() const = 0;
  // True when `order` holds (b, a) instead of (a, b).
  virtual bool order_swapped(int order) const = 0;
  // The table's store, once opened (before any other call but the above).
  virtual void attach(OrderedStore* store) = 0;
  virtual const Bytes& order_prefix(int order) const = 0;
  // A key met by a scan of `order` -> its packed a and b (views into
  // `key`). *is_entry false: a key of another kind sharing the range; skip.
  virtual Status split(int order, BytesView key, BytesView* a, BytesView* b,
                       bool* is_entry) const = 0;
  // A key of any order (the `raw` column handed back to xUpdate).
  virtual Status split_any(BytesView key, BytesView* a, BytesView* b) const = 0;
  // The key that identifies (a, b) in the `raw` column: the same whichever
  // order a scan met the pair in (SQLite's OR optimization deduplicates
  // rows of several scans by it).
  virtual void raw_key(BytesView a, BytesView b, Bytes* out) const = 0;
  // The stored pair SQLite would call equal to (a, b), if any.
  virtual Status find_sql_equal(BytesView a, BytesView b, bool* found, Bytes* found_a,
                                Bytes* found_b) = 0;
  // Stored value of (a, b), as written by put().
  virtual Status get(BytesView a, BytesView b, Bytes* stored, bool* found) = 0;
  // Writes (a, b) in every order, with `stored` as the value.
  virtual Status put(BytesView a, BytesView b, BytesView stored) = 0;
  virtual Status erase(BytesView a, BytesView b) = 0;
  // The subspace prefix changed (a rename moved the keys).
  virtual Status rebind(BytesView prefix) = 0;
  // The stored key of (a, b) in `order`.
  virtual void key_in_order(int order, BytesView a, BytesView b, Bytes* out) const = 0;
  // Clears (a, b) in every order but `order`, whose range the caller clears.
  virtual Status erase_other_orders(int order, BytesView a, BytesView b) = 0;
};

struct PairCursor;

// What a module's open function fills in.
struct PairSpec {
  std::string a_name;
  std::string b_name;
  // Column types of a and b (tuplekv_multimap(student TEXT, ...)): values
  // are coerced and checked as in a STRICT table; ANY keeps them as given.
  model::ColumnType a_type = model::ColumnType::kAny;
  model::ColumnType b_type = model::ColumnType::kAny;
  std::string_view a_type_label, b_type_label;  // for messages (model::declared_type_label)
  std::string value_name;  // empty: no value column (the stored value is '')
  std::unique_ptr<PairModel> model;
};

struct PairTable;
// Parses the module's own options (those take_keyspace_options left) and
// its positional arguments (those without '=', e.g. column names, trimmed),
// checks them, and fills *spec for a table whose prefix is `prefix`.
using PairOpenFn = Status (*)(const std::vector<std::string>& positional,
                              const std::vector<ModuleOption>& rest, BytesView prefix,
                              PairSpec* spec);

struct PairTable : sqlite3_vtab {
  // Both out of line, where PairCursor is complete (the spares).
  PairTable();
  ~PairTable();

  std::string module;
  sqlite3* db = nullptr;
  std::shared_ptr<ConnectionRegistry> registry;
  std::string schema;
  std::string name;
  KeyspaceOptions options;
  Bytes prefix;
  std::shared_ptr<OrderedStore> store;
  SqliteStore* sqlite_store = nullptr;
  std::shared_ptr<ScanStats> stats;
  PairSpec spec;
  // Per key order: the planner's view and its parsed plans.
  std::vector<IndexShape> shapes;
  std::vector<std::unique_ptr<PlanCache>> plans;
  SpareCursors<PairCursor> spare_cursors;

  model::ColumnType column_type(int i) const {
    return i == 0 ? spec.a_type : i == 1 ? spec.b_type : model::ColumnType::kAny;
  }
  int value_column() const { return spec.value_name.empty() ? -1 : 2; }
  int raw_column() const { return spec.value_name.empty() ? 2 : 3; }
  const std::string& column_name(int i) const {
    return i == 0 ? spec.a_name : i == 1 ? spec.b_name : spec.value_name;
  }

  Status open(sqlite3* d, const std::shared_ptr<ConnectionRegistry>& reg, PairOpenFn open_fn,
              const std::string& module_name, int argc, const char* const* argv, bool create);
  int update(int argc, sqlite3_value** argv);
  Status rename(const std::string& to);
  Status destroy();

  // Transaction hooks (keyspace_vtab.cc). Each applies or, on the way
  // back, drops the deferred deletes, and keeps the savepoint depth that
  // says which rollback undoes an unfinished statement.
  Status begin();
  Status sync();
  Status commit();
  Status rollback();
  Status savepoint(int n);
  Status release(int n);
  Status rollback_to(int n);

  // DELETE BY RANGE (keyspace_vtab.cc). A cursor that read its ranges to
  // the end offers them; deletes of exactly their keys become range clears.
  // `entries` were met; SQLite read `raw` of `keyed` of them.
  void scan_completed(const PairCursor* cursor, int order, const ScanSpec& spec,
                      uint64_t entries, uint64_t keyed);
  // The cursor closes (the end of its statement at the latest): deletes
  // still deferred are applied one by one. SQLite reads no error from
  // xClose, so a failure leaves the table unfinished (below).
  void cursor_closed(const PairCursor* cursor);
  // Applies the deferred deletes one by one. Called before anything that
  // could observe them: reads, other writes, savepoints, commit.
  Status flush_deletes();
  void discard_deletes();

  // UNFINISHED DELETES. Deferred deletes that failed to apply leave the
  // table part-way through a statement. Where SQLite hears it (xUpdate) the
  // statement fails; at cursor close the statement fails at its end
  // (xSync, or xRelease of its savepoint). Until a rollback undoes that
  // statement (ROLLBACK, or ROLLBACK TO a savepoint older than it), every
  // read, write, savepoint and commit of the table fails with this error,
  // so the partial state is neither seen nor committed. OK when the table
  // is whole. Also reports, once, a
  // DELETE that SQLite rolled back with its transaction after it had
  // succeeded (an allocation failure in a store statement run as its
  // cursor closed).
  Status unfinished();

  // xUpdate scratch.
  Bytes a_buf, b_buf, value_buf, old_a, old_b, old_value, found_a, found_b;
  std::string coerced_text;

  // `s` as SQL sees it: damaged stored bytes name the table they belong to.
  Status reported(const Status& s) const {
    return with_store_context(s, module, name);
  }

 private:
  int fail(const Status& s) { return set_vtab_error(this, reported(s)); }
  // Reads column `i`'s new value as a packed element into *out.
  // On failure sets the error and *rc.
  bool encode_key_column(sqlite3_value* v, int i, int on_conflict, Bytes* out, int* rc);
  bool encode_value_column(sqlite3_value* v, Bytes* out, int* rc);
  int duplicate(int on_conflict);
  int erase_now(BytesView a, BytesView b);
  // True when the delete of (a, b) was deferred (or completed a batch).
  bool defer_delete(BytesView a, BytesView b, Status* s);
  struct CompletedScan {
    const PairCursor* cursor = nullptr;  // nullptr: none on offer
    int order = 0;
    std::vector<KeyRange> ranges;  // ascending, disjoint
    uint64_t entries = 0;
    uint64_t keyed = 0;  // deletes to wait for
  };
  // Applies the held deletes one by one; *undone: SQLite rolled back past
  // the statement meanwhile (it can, from inside a failing store
  // statement), so a failure left nothing unfinished.
  Status apply_held_deletes(bool* undone);
  Status erase_each(int order, const std::vector<Bytes>& keys);
  // Deletes `deleted`, the statement's deletes (sorted here): as range
  // clears when they are every key the scan met and the store holds no
  // other key in its ranges, else one by one.
  Status clear_deleted(const CompletedScan& scan, std::vector<Bytes>* deleted);
  void mark_unfinished(const Status& s);
  Status unfinished_at_commit() const;  // unfinished(), worded for the statement's end

  // What undoes a statement whose deletes are being applied.
  struct UndoWatch {
    uint64_t rollbacks;
    int depth;  // savepoints open when it started
  };
  UndoWatch watch_undo();
  bool undone_since(const UndoWatch& w) const;

  CompletedScan completed_scan_;
  std::vector<Bytes> pending_deletes_;  // keys in completed_scan_.order
  Bytes order_key_;
  Status unfinished_;
  Status lost_delete_;
  int unfinished_depth_ = 0;  // savepoints open when it happened
  int savepoint_depth_ = 0;   // savepoints open now (0..depth-1)
  uint64_t rollbacks_ = 0;     // full rollbacks
  int lowest_rollback_to_ = std::numeric_limits<int>::max();  // since watch_undo()
};

// Registers a module over PairTable under `module_name`.
int register_pair_module(sqlite3* db, const char* module_name, PairOpenFn open_fn, char** err);

}  // namespace tuplekv::ext

#endif  // TUPLEKV_EXT_KEYSPACE_VTAB_H_
