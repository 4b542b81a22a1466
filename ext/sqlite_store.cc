// SqliteStore: statements, the scan-statement pool and the cursor. The
// contract is in sqlite_store.h and core/store.h; this file says how.
//
// Statements (all prepared in open(), SQLITE_PREPARE_PERSISTENT because
// they live as long as the table's connection, SQLITE_PREPARE_NO_VTAB as
// rtree does, so a virtual table that happens to carry a shadow table's
// name can never be reached through them):
//
//   get          SELECT v FROM T WHERE k=?1
//   set          INSERT INTO T(k,v) VALUES(?1,?2)
//                  ON CONFLICT(k) DO UPDATE SET v=excluded.v
//   insert       INSERT INTO T(k,v) VALUES(?1,?2) ON CONFLICT(k) DO NOTHING
//                  (inserted or not: sqlite3_changes() right after)
//   insert_batch INSERT OR IGNORE INTO T(k,v) VALUES(?1,?2),(?3,x''),...
//                  one per count of extra keys, prepared on first use
//   clear        DELETE FROM T WHERE k=?1
//   clear_range  DELETE FROM T WHERE k>=?1 AND k<?2      (and without ?2)
//   scan shapes  SELECT k,v FROM T WHERE k>=?1 ORDER BY k
//                SELECT k,v FROM T [WHERE k<?2] ORDER BY k DESC
//                (keys_only selects k alone): 6 shapes, each with a pool
//   mapped scans SELECT i.k,r.v FROM T AS i LEFT JOIN T AS r
//                  ON r.k=tuplekv_map_key(i.k,?3,?4,?5)
//                  WHERE i.k>=?1 [AND i.k<?2] ORDER BY i.k [DESC]
//                4 more shapes, prepared on first use (the function is
//                tuplekv's, so a bare store never needs it)
//
// Mapped scans join rather than call get() per key because a get is a
// whole statement run (bind, step, reset: OP_Init, OP_Transaction, a cursor
// opened and closed), which measured ~2,900 instructions beyond the seek
// itself; in the join the row is one more seek in the same program.
// LEFT JOIN keeps the index side outer (the plan is a range scan of i and
// a primary-key seek into r per row, checked by a test) and turns a
// missing row into a NULL value, which the cursor reports as
// !mapped_found() instead of skipping the key.
//
// `set` is an UPSERT rather than INSERT OR REPLACE. Measured on 1M
// shuffled keys (DISABLED_MeasureUpsertVsReplace, four runs): new keys
// within noise of each other; overwrites took 0.73-1.04x the OR REPLACE
// time. OR REPLACE also resolves a conflict as a DELETE, which delete
// triggers see under recursive_triggers; the UPSERT does not. `insert`
// exists because get() then set() (a probe, then a write) measured
// 1.2-1.35x a single INSERT ... DO NOTHING on new keys.
//
// `insert_batch` writes a row and its index entries in one statement
// run: a statement run (bind, step, reset: OP_Init, OP_Transaction, a
// cursor opened and closed, its registers freed at the end) costs ~2,000
// instructions beyond its seek and insert. It is OR IGNORE because SQLite
// gives a statement that writes several rows and may abort (plain INSERT,
// OR REPLACE, or ON CONFLICT DO NOTHING, all measured) a statement
// journal, which copies every page the statement touches first: in a
// standalone program inserting a row plus one entry per step into a
// WITHOUT ROWID table in a transaction, OR IGNORE took 16,100 instructions
// per step, two single-row statements 18,100, the others 25,600.
//
// Bounds. An empty KeyRange::begin binds ?1 to the REAL -Inf instead of the
// empty BLOB. A WITHOUT ROWID primary key is never NULL, and every
// INTEGER, REAL and TEXT value sorts after -Inf and before every BLOB, so
// a scan from the start of the keyspace also meets rows whose key is not a
// BLOB and reports them as corruption instead of silently skipping them,
// and clear_range("", end) clears them. A non-empty begin is a BLOB and
// excludes them, as it excludes every key outside the range. (The column
// is declared BLOB, so no affinity converts the bound.)
//
// A plain scan's statement names only the bound the scan starts from; the
// cursor compares each key with the other one itself and stops there
// (SqliteCursor::past_stop). SQLite checks a bound on every row by
// comparing the row's record with the bound's (OP_IdxGE/IdxLT), which
// measured ~200 instructions per row against ~20 for the cursor's memcmp:
// 7% of a tuplekv_kv prefix scan, 3% of a tuplekv_table scan (callgrind,
// kv_bench and table_bench at 100k rows). The price is one row past the end of a bounded
// range read and dropped. A reverse scan that stops below a BLOB begin
// treats a non-BLOB key (which sorts below every BLOB) as past its begin,
// so BLOB ranges still never meet them. Mapped scans keep both bounds in
// SQL: a row past the end would cost them a primary-key seek as well.
//
// Binding. Point operations bind the caller's views with SQLITE_STATIC:
// the view outlives the call and SQLite copies what it stores. A cursor
// copies its range into its own buffers once per scan/rescan, because
// SQLite keeps reading a bound it checks on every step (OP_Variable makes
// a static shallow copy), the cursor compares keys with the bound it
// checks itself, and the caller's KeyRange may be a temporary. An
// empty blob is bound with a non-null pointer: sqlite3_bind_blob with a
// null pointer binds NULL.
//
// Reading rows. One sqlite3_step per row, and no other call that takes the
// connection's mutex: every sqlite3_column_* call enters and leaves it (a
// recursive pthread mutex in a serialized build, ~75 instructions a pair),
// which per row and column cost more than everything else this cursor
// does. So the first step of each run (after a reset, in rescan()) asks
// sqlite3_column_value for the result row's two values once, and later
// steps of that run read the same sqlite3_value objects with
// sqlite3_value_type/_blob/_bytes, which take no mutex. This leans on how
// SQLite implements the API, not on its documentation (which promises the
// pointer only until the next step): the values are the statement's
// result registers (aMem[p1] of its one OP_ResultRow), allocated when the
// statement is made ready and never moved while it runs. A statement is
// only ever re-prepared (swapping its registers) by the first step of a
// run, which is why each run asks again. Debug builds assert on every row
// that sqlite3_column_value still returns the same objects, so the test
// suite checks the assumption against the SQLite it runs on. The values
// are "unprotected", which is safe here because every call into the store
// comes from one connection's thread (core/store.h) and, inside a virtual
// table method, under the mutex the outer sqlite3_step already holds.
// Measured (callgrind, 100k-key full scan through tuplekv_kv): 2,595
// instructions per row with two sqlite3_column_value calls per row, 2,325
// with the values found once per run.
// key()/value() point at the statement's result registers; OP_Column
// copies blob contents there (never an ephemeral pointer into a page), so
// the views survive writes by other statements and stay valid until the
// cursor steps again.
//
// Writes during a scan. The cursor keeps stepping its statement. Before
// any statement modifies the table, SQLite saves the position of every
// other b-tree cursor on it, and the next step re-seeks from there
// (btreeRestoreCursorPosition, with skipNext when the entry itself is
// gone), so the scan continues from the first key after (reverse: before)
// the one it was on, as the table is now: core/store.h's rule. With one
// exception: in a WITHOUT ROWID table the saved position is the whole
// record, (k, v), not k. If the current row's value changed (set() of the
// current key, or a rollback that restored an older value), the re-seek
// lands on (k, new v) and, when new v sorts after old v (reverse: before),
// treats it as not yet visited, so the same key would come back. Other
// keys cannot: only the entry with key k compares by its value. So a
// cursor remembers the store's change counter when it reads a row; if the
// counter has moved by the next step, it copies the current key first and
// skips one row equal to it. Scans without writes pay one integer compare
// per row (an unconditional copy and compare measured ~10% of a full scan).
// The counter moves on every write through this store and on rollback()/
// rollback_to() (which is why those hooks are not empty); writes made to
// the shadow table behind the store's back are outside the contract.
//
// Keys moved behind the cursor are not revisited; keys moved ahead of it
// are visited again (as with MemoryStore; SQL UPDATE on a virtual table
// collects its rows before changing any unless the plan is one-pass, so
// SQL never chases its own writes). The far bound is re-checked on every
// row, so a scan always terminates unless its caller keeps moving keys
// ahead of it. The tests check all of this against a
// std::map model.
//
// A cursor resets its statement as soon as it ends (range exhausted, limit
// reached, error), so a finished cursor holds no read transaction and does
// not block DROP TABLE. Destroying it resets the statement, clears its
// bindings (they point into the cursor) and returns it to the pool.
//
// Write batching. Between begin() and commit()/rollback() of a batching
// store, set/insert/clear record the latest write of each key in a
// WriteBatch. apply() writes it in two statement runs, fed by
// tuplekv_batch_rows (ext/batch_rows.h) in key order:
//   DELETE FROM T WHERE k IN (SELECT k FROM tuplekv_batch_rows(?1))
//   INSERT OR IGNORE INTO T(k,v) SELECT k,v FROM tuplekv_batch_rows(?1)
// the first with every key that may be there (sets and clears), the second
// with every key that has a value (inserts and sets), all absent by then.
// Neither can abort on a constraint, so SQLite gives them no statement
// journal and calls no xSavepoint while they run (an UPSERT or OR REPLACE
// would, re-entering every table's hooks). The INSERT's count must be all
// its rows: a key found absent that is there after all was written behind
// the store's back, which is reported, and apply() then keeps failing until
// a rollback (the table holds part of the batch).
// Measured (table_bench BulkInsert, 1M rows in random order, one
// transaction): 0.92-1.06x the native table, against 1.25-1.41x with one
// statement run per row. In a standalone program 2M table-shaped pairs
// went into an empty WITHOUT ROWID table in ~0.7 s sorted through one
// statement run, and in ~5.6 s in arrival order with a run each.
//
// When the batch is applied: at savepoint() (SQLite calls xSavepoint before
// the savepoint exists, so the applied writes are older than it and a
// ROLLBACK TO keeps them; the batch then holds only writes newer than the
// newest savepoint, which is why rollback_to() can drop all of it), at
// sync() (xSync), when it holds batch_limit bytes (checked before a write,
// so that a write never fails half-way through applying), by clear_range()
// and by renamed(). Not by reads: a read inside a SELECT that ran DML of its
// own would change what sqlite3_changes() reports, which SQLite resets only
// when an INSERT, UPDATE or DELETE ends. It does not after COMMIT or
// SAVEPOINT either, so apply() splits its inserts to end with a run of as
// many rows as the count it found (README "Write batching": when it has
// that many).
//
// Inserting needs to know a key is absent. The batch answers for its own
// keys; for the rest, AbsentKeys (core/absent_keys.h) remembers ranges
// found empty in the shadow table: stored() reads the first key at or
// after the one asked about, stepping over keys this transaction applied
// itself (up to 64), and records the range up to it. A load into an empty
// table asks once per new smallest key, ~ln(n) times in all.
//
// Reading through the batch. get() looks in the batch first. A scan merges:
// when it starts (or rescans, or finds that writes went to the batch since
// its last row) with a non-empty batch, the cursor reads the statement's
// rows into shadow_* and walks the batch's ordered view over the same
// range beside them; whichever key comes first in scan order is the next
// pair, a batch entry wins over the table's row of the same key, and one
// without a value hides it. A mapped scan looks each pair's row up in the
// batch (rows the statement read) or through get() (entries only the batch
// has). Pairs from the batch are copied, since apply() frees its bytes. The
// statement's limit is lifted while merging and the cursor counts merged
// pairs. After any write the cursor reopens both sides from just past the
// pair it was on (the batch's iterators survive writes, not applies), which
// is core/store.h's rule. Without a batch nothing of this runs: the
// per-row path only tests merging_.
#include "ext/sqlite_store.h"

#include <cassert>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <utility>

#include "core/absent_keys.h"
#include "core/write_batch.h"
#include "core/key_mapping.h"
#include "ext/batch_rows.h"
#include "ext/errors.h"

namespace tuplekv::ext {
namespace {

constexpr unsigned kPrepareFlags = SQLITE_PREPARE_PERSISTENT | SQLITE_PREPARE_NO_VTAB;

// Scan statement shapes. A plain scan's statement names only the bound it
// starts from (see "Bounds"): forward scans k>=?1, reverse scans k<?2 or
// nothing, so 6 plain shapes; a mapped scan's names both (4 more).
constexpr int kPlainShapes = 6;  // prepared up front
constexpr int kShapes = kPlainShapes + 4;
int shape_of(bool reverse, bool bounded_end, bool keys_only, bool mapped) {
  if (mapped) return kPlainShapes + (reverse ? 2 : 0) + (bounded_end ? 1 : 0);
  const int keys = keys_only ? 1 : 0;
  if (!reverse) return keys;
  return (bounded_end ? 4 : 2) + keys;
}

// Where zero-length views point: string_view() has a null data(), which
// would bind NULL and is not a valid memcpy source.
constexpr char kEmpty[1] = {0};

// An sqlite3_mprintf result, freed on scope exit.
class Sql {
 public:
  explicit Sql(char* text) : text_(text) {}
  ~Sql() { sqlite3_free(text_); }
  Sql(const Sql&) = delete;
  Sql& operator=(const Sql&) = delete;
  const char* get() const { return text_; }

 private:
  char* text_;
};

const char* type_name(int type) {
  switch (type) {
    case SQLITE_INTEGER:
      return "INTEGER";
    case SQLITE_FLOAT:
      return "REAL";
    case SQLITE_TEXT:
      return "TEXT";
    case SQLITE_NULL:
      return "NULL";
    default:
      return "BLOB";
  }
}

// The bytes of a BLOB value. False only if SQLite could not materialize
// them (out of memory expanding a zeroblob; not expected from a table row).
bool blob_view(sqlite3_value* v, BytesView* out) {
  const void* p = sqlite3_value_blob(v);  // blob before bytes, as SQLite asks
  const int n = sqlite3_value_bytes(v);
  if (n <= 0) {
    *out = BytesView(kEmpty, 0);
    return true;
  }
  if (p == nullptr) return false;
  *out = BytesView(static_cast<const char*>(p), static_cast<size_t>(n));
  return true;
}

Status no_memory_reading(const std::string& table) {
  return Status::Native(StatusCode::kNoMemory, SQLITE_NOMEM,
                        "reading " + table + ": out of memory");
}

sqlite3_int64 to_int64(size_t n) {
  return n > static_cast<size_t>(std::numeric_limits<sqlite3_int64>::max())
             ? std::numeric_limits<sqlite3_int64>::max()
             : static_cast<sqlite3_int64>(n);
}

int bind_bytes(sqlite3_stmt* stmt, int i, BytesView b) {
  return sqlite3_bind_blob64(stmt, i, b.empty() ? kEmpty : b.data(), b.size(), SQLITE_STATIC);
}

// ?1 of every range statement: see "Bounds" above.
int bind_begin(sqlite3_stmt* stmt, BytesView begin) {
  if (begin.empty()) {
    return sqlite3_bind_double(stmt, 1, -std::numeric_limits<double>::infinity());
  }
  return bind_bytes(stmt, 1, begin);
}

// Resets a point statement however the operation leaves, so no statement
// keeps a read transaction open or a pointer to the caller's bytes in use.
class ResetOnExit {
 public:
  explicit ResetOnExit(sqlite3_stmt* stmt) : stmt_(stmt) {}
  ~ResetOnExit() { sqlite3_reset(stmt_); }
  ResetOnExit(const ResetOnExit&) = delete;
  ResetOnExit& operator=(const ResetOnExit&) = delete;

 private:
  sqlite3_stmt* stmt_;
};

// The statements that name the table; replaced as a whole by renamed().
struct Statements {
  sqlite3_stmt* get = nullptr;
  sqlite3_stmt* set = nullptr;
  sqlite3_stmt* insert = nullptr;
  sqlite3_stmt* clear = nullptr;
  sqlite3_stmt* clear_range = nullptr;       // k>=?1 AND k<?2
  sqlite3_stmt* clear_from = nullptr;        // k>=?1
  std::vector<sqlite3_stmt*> pool[kShapes];  // idle scan statements
  // insert_batch[n]: a row and n more keys; prepared on first use.
  sqlite3_stmt* insert_batch[SqliteStore::kMaxBatchKeys + 1] = {};
  // Write batching, prepared on first use: applying a batch, its deletes
  // and its inserts (these need tuplekv_batch_rows).
  sqlite3_stmt* apply[2] = {};

  Statements() = default;
  Statements(const Statements&) = delete;
  Statements& operator=(const Statements&) = delete;
  ~Statements() {
    for (sqlite3_stmt* s : {get, set, insert, clear, clear_range, clear_from}) {
      sqlite3_finalize(s);
    }
    for (auto& p : pool) {
      for (sqlite3_stmt* s : p) sqlite3_finalize(s);
    }
    for (sqlite3_stmt* s : insert_batch) sqlite3_finalize(s);
    for (sqlite3_stmt* s : apply) sqlite3_finalize(s);
  }
  void swap(Statements& o) noexcept {
    std::swap(get, o.get);
    std::swap(set, o.set);
    std::swap(insert, o.insert);
    std::swap(clear, o.clear);
    std::swap(clear_range, o.clear_range);
    std::swap(clear_from, o.clear_from);
    for (int i = 0; i < kShapes; ++i) pool[i].swap(o.pool[i]);
    std::swap(insert_batch, o.insert_batch);
    std::swap(apply, o.apply);
  }
};

// Everything a store is; SqliteStore::Impl is this (the cursor needs it and
// cannot name the private nested type).
}  // namespace

struct SqliteStoreState {
  sqlite3* db = nullptr;
  std::string schema;
  std::string name;
  std::string table;  // "schema"."name_kv", quoted, for SQL and messages
  Statements stmts;
  // Bumped by every write through this store and by the rollback hooks:
  // a cursor whose row is older than this may be revisited (see next()).
  uint64_t changes = 0;
  // Bumped by renamed(); a statement that comes back from a cursor with an
  // older generation names the old table and is finalized, not pooled.
  uint64_t generation = 0;
  int in_use[kShapes] = {};         // scan statements held by cursors
  SqliteCursor* cursors = nullptr;  // open cursors, so ~SqliteStore can detach them

  // Write batching (see "Write batching").
  bool batching = false;        // enable_write_batching()
  bool in_transaction = false;  // begin() .. commit()/rollback()
  size_t batch_limit = SqliteStore::kDefaultBatchLimit;
  WriteBatch batch;
  // Keys known absent from the shadow table in this transaction.
  AbsentKeys absent;
  uint64_t absence_lookups = 0;  // stored() calls that asked SQLite
  // Set when applying a batch failed half-way: the shadow table holds part
  // of it, so nothing more is written until a rollback says how much.
  // Reads stay right: the batch still overrides the table.
  Status apply_failed;
  // The SQLite savepoint whose savepoint() failed to apply the batch, or
  // -1: rolling back to it must keep the batch, all written before it.
  int unapplied_at = -1;
  bool applying = false;
  std::vector<const WriteBatch::Entry*> sorted;  // apply()'s scratch
  std::vector<const WriteBatch::Entry*> removed;
  std::vector<const WriteBatch::Entry*> added;

  bool batched() const { return batching && in_transaction; }
  // Applies the batch to the shadow table and empties it. After a failure
  // the table holds part of it: every later apply() fails the same way
  // until a rollback drops the batch.
  Status apply();
  static constexpr int kApplyDelete = 0;
  static constexpr int kApplyInsert = 1;
  // One statement run over rows[0..n); none for no rows unless
  // even_if_empty (a run that changes nothing still sets the count).
  Status run_apply(int which, const WriteBatch::Entry* const* rows, size_t n, bool even_if_empty);
  // Applies the batch if it has reached its limit, so that a write after
  // this one never has to apply (and fail) half-way through the caller's
  // change.
  // While a statement's mark lasts, the limit waits (up to kMarkedLimits
  // times over): applying would put the statement's writes where only
  // SQLite's own statement savepoint, if it opened one, could undo them.
  static constexpr size_t kMarkedLimits = 4;
  Status before_write() {
    if (!apply_failed.ok()) return apply_failed;
    const size_t limit = batch.marked() ? batch_limit * kMarkedLimits : batch_limit;
    return batch.memory() >= limit ? apply() : Status::OK();
  }
  // Whether SQLite can store the pair: its record in the shadow table
  // (the two blobs after a header of their serial types) within
  // SQLITE_LIMIT_LENGTH. Checked as each write is made: a held write over
  // the limit would fail only when the batch is applied, at COMMIT, and
  // take the whole transaction with it.
  Status fits(BytesView key, BytesView value) const {
    const auto varint_size = [](uint64_t v) {
      uint64_t n = 1;
      for (; v > 0x7f && n < 9; v >>= 7) ++n;
      return n;
    };
    const uint64_t types = varint_size(2 * uint64_t{key.size()} + 12) + varint_size(2 * uint64_t{value.size()} + 12);
    const uint64_t record = 1 + types + key.size() + value.size();
    const int limit = sqlite3_limit(db, SQLITE_LIMIT_LENGTH, -1);
    if (record <= static_cast<uint64_t>(limit)) return Status::OK();
    return Status::Native(StatusCode::kTooBig, SQLITE_TOOBIG,
                          "writing " + table + ": a key and value of " + std::to_string(key.size() + value.size()) +
                              " bytes, over SQLite's length limit of " + std::to_string(limit));
  }
  // Whether `key` (whose hash_bytes is `hash`) is in the shadow table, the
  // batch not considered.
  Status stored(BytesView key, uint64_t hash, bool* found);
  // get(): the batch's entry for `key`, else the shadow table's row.
  Status read(BytesView key, Bytes* value, bool* found);
  void drop_batch() {
    batch.reset();
    absent.clear();
    apply_failed = Status::OK();
    unapplied_at = -1;
  }

  // `flags` other than kPrepareFlags: statements that must reach a
  // virtual table (apply()'s).
  Status prepare(const char* sql, sqlite3_stmt** out, unsigned flags = kPrepareFlags) const;
  Status prepare_all(Statements* out) const;
  Status acquire(int shape, sqlite3_stmt** out);
  void give_back(int shape, sqlite3_stmt* stmt, uint64_t generation) noexcept;

  Status corrupt_key(sqlite3_value* k) const {
    return Status::Corruption("corrupt shadow table " + table + ": a key is " +
                              type_name(sqlite3_value_type(k)) + ", not BLOB");
  }
  Status corrupt_mapped_value(BytesView key, sqlite3_value* v) const {
    return Status::Corruption("corrupt shadow table " + table + ": the value of the key that " +
                              blob_literal(key) + " maps to is " +
                              type_name(sqlite3_value_type(v)) + ", not BLOB");
  }
  Status corrupt_value(BytesView key, sqlite3_value* v) const {
    return Status::Corruption("corrupt shadow table " + table + ": the value of key " +
                              blob_literal(key) + " is " + type_name(sqlite3_value_type(v)) +
                              ", not BLOB");
  }
};

namespace {


Result<std::string> quoted_table(const std::string& schema, const std::string& name) {
  Sql q(sqlite3_mprintf("\"%w\".\"%w_%s\"", schema.c_str(), name.c_str(),
                        SqliteStore::kShadowSuffix));
  if (q.get() == nullptr) return Status::NoMemory();
  return std::string(q.get());
}

}  // namespace

Status SqliteStoreState::prepare(const char* sql, sqlite3_stmt** out, unsigned flags) const {
  if (sql == nullptr) return Status::NoMemory();  // an mprintf that failed
  *out = nullptr;
  const int rc = sqlite3_prepare_v3(db, sql, -1, flags, out, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(*out);
    *out = nullptr;
    return sqlite_error(db, rc, "cannot prepare a statement on " + table);
  }
  return Status::OK();
}

namespace {

// The SQL of a scan shape over `table` (quoted); null if out of memory.
char* scan_sql(int shape, const char* table) {
  if (shape >= kPlainShapes) {
    const int m = shape - kPlainShapes;
    return sqlite3_mprintf(
        "SELECT i.k,r.v FROM %s AS i LEFT JOIN %s AS r ON r.k=tuplekv_map_key(i.k,?3,?4,?5) "
        "WHERE i.k>=?1%s ORDER BY i.k%s",
        table, table, (m & 1) != 0 ? " AND i.k<?2" : "", (m & 2) != 0 ? " DESC" : "");
  }
  static constexpr const char* kFormats[kPlainShapes] = {
      "SELECT k,v FROM %s WHERE k>=?1 ORDER BY k",
      "SELECT k FROM %s WHERE k>=?1 ORDER BY k",
      "SELECT k,v FROM %s ORDER BY k DESC",
      "SELECT k FROM %s ORDER BY k DESC",
      "SELECT k,v FROM %s WHERE k<?2 ORDER BY k DESC",
      "SELECT k FROM %s WHERE k<?2 ORDER BY k DESC",
  };
  return sqlite3_mprintf(kFormats[shape], table);
}

}  // namespace

Status SqliteStoreState::prepare_all(Statements* out) const {
  const char* t = table.c_str();
  TUPLEKV_RETURN_IF_ERROR(
      prepare(Sql(sqlite3_mprintf("SELECT v FROM %s WHERE k=?1", t)).get(), &out->get));
  TUPLEKV_RETURN_IF_ERROR(prepare(Sql(sqlite3_mprintf("INSERT INTO %s(k,v) VALUES(?1,?2) "
                                                      "ON CONFLICT(k) DO UPDATE SET v=excluded.v",
                                                      t))
                                      .get(),
                                  &out->set));
  TUPLEKV_RETURN_IF_ERROR(prepare(
      Sql(sqlite3_mprintf("INSERT INTO %s(k,v) VALUES(?1,?2) ON CONFLICT(k) DO NOTHING", t)).get(),
      &out->insert));
  TUPLEKV_RETURN_IF_ERROR(
      prepare(Sql(sqlite3_mprintf("DELETE FROM %s WHERE k=?1", t)).get(), &out->clear));
  TUPLEKV_RETURN_IF_ERROR(prepare(
      Sql(sqlite3_mprintf("DELETE FROM %s WHERE k>=?1 AND k<?2", t)).get(), &out->clear_range));
  TUPLEKV_RETURN_IF_ERROR(
      prepare(Sql(sqlite3_mprintf("DELETE FROM %s WHERE k>=?1", t)).get(), &out->clear_from));
  for (int shape = 0; shape < kPlainShapes; ++shape) {
    out->pool[shape].reserve(1);  // so the push_back below cannot throw
    sqlite3_stmt* s = nullptr;
    TUPLEKV_RETURN_IF_ERROR(prepare(Sql(scan_sql(shape, t)).get(), &s));
    out->pool[shape].push_back(s);
  }
  return Status::OK();
}

Status SqliteStoreState::acquire(int shape, sqlite3_stmt** out) {
  std::vector<sqlite3_stmt*>& pool = stmts.pool[shape];
  // Room for every statement of this shape to come back, so give_back()
  // (called from destructors) never allocates.
  pool.reserve(pool.size() + static_cast<size_t>(in_use[shape]) + 1);
  if (!pool.empty()) {
    *out = pool.back();
    pool.pop_back();
  } else {
    TUPLEKV_RETURN_IF_ERROR(prepare(Sql(scan_sql(shape, table.c_str())).get(), out));
  }
  ++in_use[shape];
  return Status::OK();
}

void SqliteStoreState::give_back(int shape, sqlite3_stmt* stmt, uint64_t gen) noexcept {
  sqlite3_reset(stmt);
  sqlite3_clear_bindings(stmt);  // they point into the cursor's buffers
  if (gen != generation) {
    sqlite3_finalize(stmt);
    return;
  }
  --in_use[shape];
  std::vector<sqlite3_stmt*>& pool = stmts.pool[shape];
  if (pool.size() < pool.capacity()) {
    pool.push_back(stmt);
  } else {
    sqlite3_finalize(stmt);  // not reached: acquire() reserved the room
  }
}

SqliteCursor::SqliteCursor(SqliteStoreState* store, const ScanOptions& options,
                           const KeyMapping* mapping)
    : store_(store),
      changes_(&store->changes),
      reverse_(options.reverse),
      keys_only_(options.keys_only && mapping == nullptr),
      mapped_(mapping != nullptr),
      mapping_(mapped_ ? *mapping : KeyMapping()),
      limit_(options.limit == 0 ? std::numeric_limits<uint64_t>::max() : options.limit) {
  next_ = store_->cursors;
  if (next_ != nullptr) next_->prev_ = this;
  store_->cursors = this;
}

SqliteCursor::~SqliteCursor() {
  if (store_ == nullptr) return;  // the store went first and detached us
  release_statement();
  if (prev_ != nullptr) {
    prev_->next_ = next_;
  } else {
    store_->cursors = next_;
  }
  if (next_ != nullptr) next_->prev_ = prev_;
}

// The table changed since this row was read: guard against the revisit
// described in the file comment. The copy is taken before the step
// overwrites the row, and only on this path.
void SqliteCursor::next_after_write() {
  last_key_.assign(key_.data(), key_.size());
  if (!store_->batch.empty()) {
    // The writes went to the batch: read through it from here on.
    merging_ = true;
    out_remaining_ = remaining_;
    return reopen_after(last_key_);
  }
  step();
  if (valid_ && key_ == BytesView(last_key_)) step();
}

Status SqliteCursor::rescan(const KeyRange& range) {
  merging_ = store_ != nullptr && !store_->batch.empty();
  out_remaining_ = limit_;
  return open(range, limit_);
}

Status SqliteCursor::open(const KeyRange& range, uint64_t left) {
  valid_ = false;
  shadow_valid_ = batch_valid_ = false;
  key_ = value_ = BytesView(kEmpty, 0);
  status_ = Status::OK();
  if (store_ == nullptr) {
    status_ = Status::Internal("tuplekv internal error: cursor used after its store closed");
    return status_;
  }
  const bool bounded = !range.unbounded_end();
  const int shape = shape_of(reverse_, bounded, keys_only_, mapped_);
  if (stmt_ != nullptr && (shape != shape_ || generation_ != store_->generation)) {
    release_statement();
  } else if (stmt_ != nullptr) {
    sqlite3_reset(stmt_);  // before the buffers it reads are overwritten
  }
  if (range.empty()) return Status::OK();
  if (stmt_ == nullptr) {
    status_ = store_->acquire(shape, &stmt_);
    if (!status_.ok()) return status_;
    shape_ = shape;
    generation_ = store_->generation;
  }
  begin_.assign(range.begin);
  end_.assign(range.end);
  // The bounds the statement names; read_row() checks the other one
  // (see "Bounds").
  const bool sql_begin = mapped_ || !reverse_;
  const bool sql_end = bounded && (mapped_ || reverse_);
  int rc = sql_begin ? bind_begin(stmt_, begin_) : SQLITE_OK;
  if (rc == SQLITE_OK && sql_end) rc = bind_bytes(stmt_, 2, end_);
  stop_ = !sql_begin && !begin_.empty() ? Stop::kBelow
          : bounded && !sql_end         ? Stop::kAtOrAfter
                                        : Stop::kNone;
  if (mapped_) {
    if (rc == SQLITE_OK) rc = sqlite3_bind_int64(stmt_, 3, to_int64(mapping_.from_prefix));
    if (rc == SQLITE_OK) rc = sqlite3_bind_int64(stmt_, 4, to_int64(mapping_.skip));
    if (rc == SQLITE_OK) rc = bind_bytes(stmt_, 5, mapping_.to_prefix);
  }
  if (rc != SQLITE_OK) {
    status_ = sqlite_error(store_->db, rc, "reading " + store_->table);
    return status_;
  }
  // Merging, the limit counts merged pairs: the statement's own rows go
  // on until the range ends.
  remaining_ = merging_ ? std::numeric_limits<uint64_t>::max() : left;
  first_step();
  if (merging_ && status_.ok()) start_merge();
  return status_;
}

// ---------------------------------------------------------------------------
// Reading through the batch

void SqliteCursor::start_merge() {
  take_shadow_row();
  seek_batch();
  merge_settle();
}

void SqliteCursor::seek_batch() {
  const WriteBatch::Ordered& keys = store_->batch.ordered();
  if (!reverse_) {
    batch_at_ = keys.lower_bound(begin_);
  } else {
    auto it = end_.empty() ? keys.end() : keys.lower_bound(end_);
    if (it == keys.begin()) {
      batch_valid_ = false;
      return;
    }
    batch_at_ = std::prev(it);
  }
  batch_valid_ = batch_in_range();
}

bool SqliteCursor::batch_in_range() const {
  if (!reverse_) {
    return batch_at_ != store_->batch.ordered().end() &&
           (end_.empty() || compare_bytes(batch_at_->first, end_) < 0);
  }
  return compare_bytes(batch_at_->first, begin_) >= 0;
}

void SqliteCursor::batch_next() {
  if (!reverse_) {
    ++batch_at_;
  } else if (batch_at_ == store_->batch.ordered().begin()) {
    batch_valid_ = false;
    return;
  } else {
    --batch_at_;
  }
  batch_valid_ = batch_in_range();
}

// The next merged pair from the statement's row and the batch's key,
// whichever comes first in scan order. A batch entry wins over the table's
// row of the same key; one without a value hides it.
void SqliteCursor::merge_settle() {
  for (;;) {
    if (!status_.ok()) {
      valid_ = false;
      return;
    }
    if (!shadow_valid_ && !batch_valid_) {
      valid_ = false;
      return;  // the statement has finished (and been reset) already
    }
    const WriteBatch::Entry* e = batch_valid_ ? &store_->batch.entry(batch_at_->second) : nullptr;
    // c < 0: the statement's row comes first in scan order.
    int c = -1;
    if (e != nullptr && !shadow_valid_) {
      c = 1;
    } else if (e != nullptr) {
      c = compare_bytes(shadow_key_, e->key);
      if (reverse_) c = -c;
    }
    if (c < 0) {
      key_ = shadow_key_;
      value_ = shadow_value_;
      found_ = shadow_found_;
      out_shadow_ = true;
      out_batch_ = false;
      if (mapped_) read_mapped_row(key_, true);
      break;
    }
    if (!e->has_value) {
      if (c == 0) shadow_next();
      batch_next();
      continue;
    }
    out_key_.assign(e->key.data(), e->key.size());
    key_ = out_key_;
    out_shadow_ = c == 0;
    out_batch_ = true;
    if (mapped_) {
      read_mapped_row(key_, false);
    } else if (!keys_only_) {
      out_value_.assign(e->value.data(), e->value.size());
      value_ = out_value_;
    }
    break;
  }
  if (!status_.ok()) {
    valid_ = false;
    return;
  }
  valid_ = true;
  read_at_ = *changes_;
}

void SqliteCursor::read_mapped_row(BytesView key, bool from_shadow) {
  if (!map_key(mapping_, key, &mapped_key_)) {
    found_ = false;  // as tuplekv_map_key's NULL in the statement
    value_ = BytesView(kEmptyBlob, 0);
    return;
  }
  bool found = false;
  if (from_shadow) {
    // The statement read the row from the table; the batch may know better.
    const WriteBatch::Entry* row = store_->batch.find(mapped_key_);
    if (row == nullptr) return;
    found = row->has_value;
    if (found) out_value_.assign(row->value.data(), row->value.size());
  } else {
    Status s = store_->read(mapped_key_, &out_value_, &found);
    if (!s.ok()) return fail(std::move(s));
  }
  found_ = found;
  value_ = found ? BytesView(out_value_) : BytesView(kEmptyBlob, 0);
}

void SqliteCursor::merge_next() {
  if (--out_remaining_ == 0) return finish();
  if (read_at_ != *changes_) {
    // The store changed under the pair: both sides again from after it.
    last_key_.assign(key_.data(), key_.size());
    return reopen_after(last_key_);
  }
  if (out_shadow_) shadow_next();
  if (out_batch_) batch_next();
  merge_settle();
}

void SqliteCursor::reopen_after(BytesView key) {
  KeyRange rest;
  if (!reverse_) {
    rest.begin.assign(key.data(), key.size());
    rest.begin.push_back('\0');  // the first key after `key`
    rest.end = end_;
  } else if (key.empty()) {
    finish();  // nothing comes before the empty key
    return;
  } else {
    rest.begin = begin_;
    rest.end.assign(key.data(), key.size());
  }
  merging_ = !store_->batch.empty();
  (void)open(rest, out_remaining_);
}

void SqliteCursor::first_step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) {
    key_col_ = sqlite3_column_value(stmt_, 0);
    value_col_ = keys_only_ ? nullptr : sqlite3_column_value(stmt_, 1);
    if (read_row()) return;
  }
  step_failed(rc);
}

void SqliteCursor::detach() noexcept {
  if (stmt_ != nullptr) sqlite3_finalize(stmt_);
  stmt_ = nullptr;
  store_ = nullptr;
  changes_ = &read_at_;
  valid_ = false;
  key_ = value_ = BytesView(kEmpty, 0);
}

// The step gave no row it could read: the end of the range, an SQLite
// error, or a row that is not two BLOBs. Works out which off the per-row
// path.
void SqliteCursor::step_failed(int rc) {
  if (rc == SQLITE_DONE) return finish();
  if (rc != SQLITE_ROW) return fail(sqlite_error(store_->db, rc, "reading " + store_->table));
  sqlite3_value* k = sqlite3_column_value(stmt_, 0);
  if (sqlite3_value_type(k) != SQLITE_BLOB) {
    // Every non-BLOB key sorts before every BLOB: a reverse scan that
    // stops below a BLOB begin has left its range.
    if (stop_ == Stop::kBelow) return finish();
    return fail(store_->corrupt_key(k));
  }
  if (!blob_of(k, &key_) || keys_only_) return fail(no_memory_reading(store_->table));
  sqlite3_value* v = sqlite3_column_value(stmt_, 1);
  if (sqlite3_value_type(v) != SQLITE_BLOB) {
    return fail(mapped_ ? store_->corrupt_mapped_value(key_, v) : store_->corrupt_value(key_, v));
  }
  fail(no_memory_reading(store_->table));
}

void SqliteCursor::fail(Status s) {
  status_ = std::move(s);
  finish();
}

void SqliteCursor::release_statement() noexcept {
  if (stmt_ == nullptr) return;
  store_->give_back(shape_, stmt_, generation_);
  stmt_ = nullptr;
}

struct SqliteStore::Impl : SqliteStoreState {};

SqliteStore::SqliteStore(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

SqliteStore::~SqliteStore() {
  // Cursors should be gone already (a virtual table's cursors close before
  // it disconnects); any left over end their scans instead of dangling.
  for (SqliteCursor* c = impl_->cursors; c != nullptr;) {
    SqliteCursor* next = c->next_in_store();
    c->detach();
    c = next;
  }
}

namespace {

Status exec(sqlite3* db, const char* sql, const std::string& what) {
  if (sql == nullptr) return Status::NoMemory();
  const int rc = sqlite3_exec(db, sql, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return sqlite_error(db, rc, what);
  return Status::OK();
}

}  // namespace

Status SqliteStore::create_table(sqlite3* db, const std::string& schema, const std::string& name) {
  TUPLEKV_ASSIGN_OR_RETURN(const std::string table, quoted_table(schema, name));
  return exec(db,
              Sql(sqlite3_mprintf("CREATE TABLE %s(k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID",
                                  table.c_str()))
                  .get(),
              "cannot create " + table);
}

Status SqliteStore::drop_table(sqlite3* db, const std::string& schema, const std::string& name) {
  TUPLEKV_ASSIGN_OR_RETURN(const std::string table, quoted_table(schema, name));
  // IF EXISTS: a virtual table whose shadow table is already gone must
  // still be droppable.
  return exec(db, Sql(sqlite3_mprintf("DROP TABLE IF EXISTS %s", table.c_str())).get(),
              "cannot drop " + table);
}

Status SqliteStore::rename_table(sqlite3* db, const std::string& schema,
                                 const std::string& old_name, const std::string& new_name) {
  TUPLEKV_ASSIGN_OR_RETURN(const std::string table, quoted_table(schema, old_name));
  return exec(db,
              Sql(sqlite3_mprintf("ALTER TABLE %s RENAME TO \"%w_%s\"", table.c_str(),
                                  new_name.c_str(), kShadowSuffix))
                  .get(),
              "cannot rename " + table);
}

Result<std::unique_ptr<SqliteStore>> SqliteStore::open(sqlite3* db, const std::string& schema,
                                                       const std::string& name) {
  auto impl = std::make_unique<Impl>();
  impl->db = db;
  impl->schema = schema;
  impl->name = name;
  TUPLEKV_ASSIGN_OR_RETURN(impl->table, quoted_table(schema, name));
  TUPLEKV_RETURN_IF_ERROR(impl->prepare_all(&impl->stmts));
  return std::unique_ptr<SqliteStore>(new SqliteStore(std::move(impl)));
}

Status SqliteStore::renamed(const std::string& new_name) {
  // The batch's statements name the old table.
  TUPLEKV_RETURN_IF_ERROR(impl_->apply());
  // Prepare against the new name first; on failure nothing changes.
  SqliteStoreState next;
  next.db = impl_->db;
  TUPLEKV_ASSIGN_OR_RETURN(next.table, quoted_table(impl_->schema, new_name));
  TUPLEKV_RETURN_IF_ERROR(next.prepare_all(&next.stmts));
  impl_->stmts.swap(next.stmts);  // the old statements finalize with `next`
  impl_->table = std::move(next.table);
  impl_->name = new_name;
  ++impl_->generation;
  for (int& n : impl_->in_use) n = 0;  // outstanding ones will be finalized
  return Status::OK();
}

Status SqliteStore::get(BytesView key, Bytes* value, bool* found) {
  return impl_->read(key, value, found);
}

Status SqliteStoreState::read(BytesView key, Bytes* value, bool* found) {
  if (const WriteBatch::Entry* e = batch.find(key)) {
    *found = e->has_value;
    if (e->has_value) value->assign(e->value.data(), e->value.size());
    return Status::OK();
  }
  sqlite3_stmt* s = stmts.get;
  ResetOnExit reset(s);
  *found = false;
  int rc = bind_bytes(s, 1, key);
  if (rc == SQLITE_OK) rc = sqlite3_step(s);
  if (rc == SQLITE_ROW) {
    sqlite3_value* v = sqlite3_column_value(s, 0);
    if (sqlite3_value_type(v) != SQLITE_BLOB) return corrupt_value(key, v);
    BytesView b;
    if (!blob_view(v, &b)) return no_memory_reading(table);
    value->assign(b.data(), b.size());
    *found = true;
    return Status::OK();
  }
  if (rc == SQLITE_DONE) return Status::OK();
  return sqlite_error(db, rc, "reading " + table);
}

namespace {

// Steps a write statement whose parameters are bound (rc: the binds' result).
Status run_write(SqliteStoreState* store, sqlite3_stmt* s, int rc) {
  ResetOnExit reset(s);
  ++store->changes;  // even if it fails: a statement can fail half-way
  if (rc == SQLITE_OK) rc = sqlite3_step(s);
  if (rc == SQLITE_DONE) return Status::OK();
  return sqlite_error(store->db, rc, "writing " + store->table);
}

}  // namespace

Status SqliteStore::set(BytesView key, BytesView value) {
  TUPLEKV_RETURN_IF_ERROR(impl_->fits(key, value));
  if (impl_->batched()) {
    TUPLEKV_RETURN_IF_ERROR(impl_->before_write());
    impl_->batch.set(key, value);
    ++impl_->changes;
    return Status::OK();
  }
  sqlite3_stmt* s = impl_->stmts.set;
  int rc = bind_bytes(s, 1, key);
  if (rc == SQLITE_OK) rc = bind_bytes(s, 2, value);
  return run_write(impl_.get(), s, rc);
}

namespace {

// insert() of a batching store: into the batch, if absent from it and
// from the shadow table.
Status insert_into_batch(SqliteStoreState* store, BytesView key, BytesView value, bool* inserted) {
  *inserted = false;
  bool found = false;
  const uint64_t hash = hash_bytes(key);  // once for every lookup below
  if (const WriteBatch::Entry* e = store->batch.find(key, hash)) {
    found = e->has_value;
  } else {
    TUPLEKV_RETURN_IF_ERROR(store->stored(key, hash, &found));
  }
  if (found) return Status::OK();
  store->batch.insert(key, value, hash);
  ++store->changes;
  *inserted = true;
  return Status::OK();
}

}  // namespace

Status SqliteStore::insert(BytesView key, BytesView value, bool* inserted) {
  *inserted = false;
  TUPLEKV_RETURN_IF_ERROR(impl_->fits(key, value));
  if (impl_->batched()) {
    TUPLEKV_RETURN_IF_ERROR(impl_->before_write());
    return insert_into_batch(impl_.get(), key, value, inserted);
  }
  sqlite3_stmt* s = impl_->stmts.insert;
  int rc = bind_bytes(s, 1, key);
  if (rc == SQLITE_OK) rc = bind_bytes(s, 2, value);
  TUPLEKV_RETURN_IF_ERROR(run_write(impl_.get(), s, rc));
  // The count of the statement that just finished, which is this one
  // (sqlite3_reset does not change it).
  *inserted = sqlite3_changes(impl_->db) == 1;
  return Status::OK();
}

Status SqliteStore::insert_batch(BytesView key, BytesView value,
                                 const std::vector<Bytes>& empty_keys, size_t* inserted) {
  *inserted = 0;
  const size_t n = empty_keys.size();
  if (n == 0 || n > kMaxBatchKeys) {
    return Status::Internal("tuplekv internal error: insert_batch of " + std::to_string(n) +
                            " more keys");
  }
  TUPLEKV_RETURN_IF_ERROR(impl_->fits(key, value));
  for (const Bytes& k : empty_keys) TUPLEKV_RETURN_IF_ERROR(impl_->fits(k, BytesView()));
  if (impl_->batched()) {
    TUPLEKV_RETURN_IF_ERROR(impl_->before_write());
    bool one = false;
    TUPLEKV_RETURN_IF_ERROR(insert_into_batch(impl_.get(), key, value, &one));
    *inserted += one ? 1 : 0;
    for (const Bytes& k : empty_keys) {
      TUPLEKV_RETURN_IF_ERROR(insert_into_batch(impl_.get(), k, BytesView(), &one));
      *inserted += one ? 1 : 0;
    }
    return Status::OK();
  }
  sqlite3_stmt*& s = impl_->stmts.insert_batch[n];
  if (s == nullptr) {
    std::string sql = "INSERT OR IGNORE INTO " + impl_->table + "(k,v) VALUES(?1,?2)";
    for (size_t i = 0; i < n; ++i) sql += ",(?" + std::to_string(i + 3) + ",x'')";
    TUPLEKV_RETURN_IF_ERROR(impl_->prepare(sql.c_str(), &s));
  }
  int rc = bind_bytes(s, 1, key);
  if (rc == SQLITE_OK) rc = bind_bytes(s, 2, value);
  for (size_t i = 0; i < n && rc == SQLITE_OK; ++i) {
    rc = bind_bytes(s, static_cast<int>(i) + 3, empty_keys[i]);
  }
  TUPLEKV_RETURN_IF_ERROR(run_write(impl_.get(), s, rc));
  *inserted = static_cast<size_t>(sqlite3_changes(impl_->db));
  return Status::OK();
}

Status SqliteStore::clear(BytesView key) {
  if (impl_->batched()) {
    TUPLEKV_RETURN_IF_ERROR(impl_->before_write());
    impl_->batch.clear(key);
    ++impl_->changes;
    return Status::OK();
  }
  sqlite3_stmt* s = impl_->stmts.clear;
  return run_write(impl_.get(), s, bind_bytes(s, 1, key));
}

Status SqliteStore::clear_range(BytesView begin, BytesView end) {
  if (!end.empty() && compare_bytes(begin, end) >= 0) return Status::OK();
  if (!impl_->batch.empty() || !impl_->apply_failed.ok()) TUPLEKV_RETURN_IF_ERROR(impl_->apply());
  sqlite3_stmt* s = end.empty() ? impl_->stmts.clear_from : impl_->stmts.clear_range;
  int rc = bind_begin(s, begin);
  if (rc == SQLITE_OK && !end.empty()) rc = bind_bytes(s, 2, end);
  return run_write(impl_.get(), s, rc);
}

void SqliteStore::enable_write_batching() { impl_->batching = true; }

void SqliteStore::set_batch_limit(size_t bytes) { impl_->batch_limit = bytes; }

size_t SqliteStore::batched_writes() const { return impl_->batch.size(); }

uint64_t SqliteStore::absence_lookups() const { return impl_->absence_lookups; }

size_t SqliteStore::open_cursors() const {
  size_t n = 0;
  for (const SqliteCursor* c = impl_->cursors; c != nullptr; c = c->next_in_store()) ++n;
  return n;
}

Status SqliteStore::begin() {
  impl_->in_transaction = true;
  // A new transaction owes nothing to the last. That one may have ended
  // without rollback(): when an apply() inside xSavepoint fails with an
  // error that makes SQLite roll back the whole transaction, SQLite calls
  // the hooks before apply() returns and records the failure, and never
  // again after.
  impl_->drop_batch();
  return Status::OK();
}

bool SqliteStore::in_transaction() const { return impl_->in_transaction; }

uint64_t SqliteStore::version() const { return impl_->changes; }

Status SqliteStore::sync() { return impl_->apply(); }

Status SqliteStore::commit() {
  // sync() has applied the batch; should a commit come without one, the
  // writes still reach the table rather than vanish.
  Status s = impl_->apply();
  impl_->in_transaction = false;
  impl_->drop_batch();
  return s;
}

Status SqliteStore::rollback() {
  ++impl_->changes;
  impl_->in_transaction = false;
  impl_->drop_batch();
  return Status::OK();
}

Status SqliteStore::savepoint(int n) {
  if (n != kStatementLevel) {
    // Set first: apply() may also fail by throwing.
    impl_->unapplied_at = n;
    const Status s = impl_->apply();
    if (s.ok()) impl_->unapplied_at = -1;
    return s;
  }
  if (!impl_->batched()) return Status::OK();
  TUPLEKV_RETURN_IF_ERROR(impl_->before_write());
  impl_->batch.mark();
  return Status::OK();
}

Status SqliteStore::release(int n) {
  if (n <= kStatementLevel) impl_->batch.forget_mark();
  return Status::OK();
}

Status SqliteStore::rollback_to(int n) {
  ++impl_->changes;
  // Not for a statement inside apply() (none has a journal, so none
  // should): what the batch holds was written before it began.
  if (impl_->applying) return Status::OK();
  if (n == impl_->unapplied_at) {
    // The savepoint could not apply the batch, which earlier statements
    // wrote: it stays, for a later apply() to try again. apply() may run
    // over a batch it applied in part: its delete pass finds those keys
    // gone and its insert pass is OR IGNORE, over keys it deleted first.
    impl_->unapplied_at = -1;
    impl_->apply_failed = Status::OK();
    return Status::OK();
  }
  if (n == kStatementLevel) {
    // The shadow table has not changed since the mark (the limit waited).
    impl_->batch.undo_to_mark();
    return Status::OK();
  }
  impl_->drop_batch();
  return Status::OK();
}

// ---------------------------------------------------------------------------
// Write batching

Status SqliteStoreState::apply() {
  if (!apply_failed.ok()) return apply_failed;
  if (batch.empty() || applying) return Status::OK();
  batch.sorted(&sorted);
  // Keys that may be there go first (sets are a delete and an insert), so
  // that what goes in is all new keys.
  removed.clear();
  added.clear();
  for (const WriteBatch::Entry* e : sorted) {
    const WriteBatch::Kind kind = e->kind();
    if (kind != WriteBatch::Kind::kInsert) removed.push_back(e);
    if (kind != WriteBatch::Kind::kClear) added.push_back(e);
  }
  ++changes;  // open cursors re-seek
  // The last run sets what sqlite3_changes() reports, which COMMIT and
  // SAVEPOINT do not set again: when there are enough new keys, it inserts
  // as many as the application's last statement changed rows.
  const int64_t count = sqlite3_changes64(db);
  const bool keeps_count = count >= 0 && static_cast<uint64_t>(count) <= added.size();
  const size_t last = keeps_count ? static_cast<size_t>(count) : added.size();
  const size_t first = added.size() - last;
  applying = true;
  struct Applying {  // cleared however the runs end, a throw included
    bool* flag;
    ~Applying() { *flag = false; }
  } applying_until_return{&applying};
  Status t = run_apply(kApplyDelete, removed.data(), removed.size(), false);
  if (t.ok()) t = run_apply(kApplyInsert, added.data(), first, false);
  if (t.ok()) t = run_apply(kApplyInsert, added.data() + first, last, keeps_count);
  applying = false;
  if (!t.ok()) {
    apply_failed = t;
    return t;
  }
  try {
    for (const WriteBatch::Entry* e : added) absent.wrote_below(e->key);
  } catch (...) {
    absent.clear();  // knowing less is safe; the batch must still go
  }
  batch.reset();
  return Status::OK();
}

Status SqliteStoreState::run_apply(int which, const WriteBatch::Entry* const* rows, size_t n,
                                   bool even_if_empty) {
  if (n == 0 && !even_if_empty) return Status::OK();
  // Neither statement can abort half-way on a constraint (OR IGNORE; a
  // DELETE), so SQLite gives them no statement journal and calls no
  // virtual table's xSavepoint while they run: an UPSERT or OR REPLACE
  // would, re-entering the savepoint hooks of every table in the
  // transaction.
  static constexpr const char* kSql[2] = {
      "DELETE FROM %s WHERE k IN (SELECT k FROM tuplekv_batch_rows(?1))",
      // Every key is absent now, so OR IGNORE ignores nothing unless the
      // table changed behind the store's back; the count says.
      "INSERT OR IGNORE INTO %s(k,v) SELECT k,v FROM tuplekv_batch_rows(?1)",
  };
  sqlite3_stmt*& st = stmts.apply[which];
  if (st == nullptr) {
    // Not NO_VTAB: the rows come from a virtual table. The target is the
    // shadow table, whose name no virtual table can also have.
    TUPLEKV_RETURN_IF_ERROR(prepare(Sql(sqlite3_mprintf(kSql[which], table.c_str())).get(), &st,
                                    SQLITE_PREPARE_PERSISTENT));
  }
  BatchRows batch_rows{rows, n};
  int rc = sqlite3_bind_pointer(st, 1, &batch_rows, kBatchRowsType, nullptr);
  if (rc == SQLITE_OK) rc = sqlite3_step(st);
  const bool all_in = which != kApplyInsert || static_cast<size_t>(sqlite3_changes64(db)) == n;
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);  // it points at batch_rows
  if (rc != SQLITE_DONE) return sqlite_error(db, rc, "writing " + table);
  if (!all_in) {
    return Status::Corruption("corrupt shadow table " + table +
                              ": a key this transaction found absent was there when its write "
                              "was applied (was the table written directly?)");
  }
  return Status::OK();
}

Status SqliteStoreState::stored(BytesView key, uint64_t hash, bool* found) {
  *found = false;
  if (absent.known_absent(key, hash)) return Status::OK();
  // One seek finds the key or the next one, and with it a range known
  // absent, stepping over keys this transaction wrote itself: a bulk load
  // in key order, or into an empty part of the keyspace, asks once (see
  // "Write batching").
  const bool learn = !absent.maybe_written(key, hash);
  ++absence_lookups;
  // The keys from ?1 on: a forward keys-only scan's statement, from the pool.
  const int shape = shape_of(false, false, true, false);
  sqlite3_stmt* s = nullptr;
  TUPLEKV_RETURN_IF_ERROR(acquire(shape, &s));
  struct GiveBack {
    SqliteStoreState* store;
    int shape;
    sqlite3_stmt* stmt;
    ~GiveBack() { store->give_back(shape, stmt, store->generation); }
  } give_back_on_exit{this, shape, s};
  int rc = bind_bytes(s, 1, key);
  constexpr int kMaxSteps = 64;
  BytesView next;
  for (int step = 0; step < kMaxSteps; ++step) {
    if (rc == SQLITE_OK) rc = sqlite3_step(s);
    if (rc == SQLITE_DONE) {
      next = BytesView();  // no key from here on: absent to the end
      break;
    }
    if (rc != SQLITE_ROW) return sqlite_error(db, rc, "reading " + table);
    rc = SQLITE_OK;
    sqlite3_value* k = sqlite3_column_value(s, 0);
    // Every non-BLOB sorts before the BLOB bound, so this is a BLOB.
    if (sqlite3_value_type(k) != SQLITE_BLOB) return corrupt_key(k);
    if (!blob_view(k, &next)) return no_memory_reading(table);
    if (step == 0 && next == key) {
      *found = true;
      return Status::OK();
    }
    // A key not written here ends the range; so does one inside a known
    // range, which the new one then joins.
    if (!learn || !absent.maybe_written(next) || absent.in_range(next)) break;
  }
  // Every key before `next` was written here (or `next` is empty: none).
  if (learn) absent.add_range(key, next);
  return Status::OK();
}

Result<std::unique_ptr<Cursor>> SqliteStore::scan(const KeyRange& range,
                                                  const ScanOptions& options) {
  auto cursor = std::make_unique<SqliteCursor>(impl_.get(), options, nullptr);
  TUPLEKV_RETURN_IF_ERROR(cursor->rescan(range));
  return std::unique_ptr<Cursor>(std::move(cursor));
}

Result<std::unique_ptr<Cursor>> SqliteStore::scan_mapped(const KeyRange& range,
                                                         const ScanOptions& options,
                                                         const KeyMapping& mapping) {
  auto cursor = std::make_unique<SqliteCursor>(impl_.get(), options, &mapping);
  TUPLEKV_RETURN_IF_ERROR(cursor->rescan(range));
  return std::unique_ptr<Cursor>(std::move(cursor));
}

}  // namespace tuplekv::ext
