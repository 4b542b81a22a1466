// SqliteStore: the OrderedStore over a shadow table, the default store of
// every tuplekv virtual table.
//
//   CREATE TABLE "<schema>"."<name>_kv"(k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID
//
// BLOB keys compare with memcmp, which is tuple order, so a key range is an
// index range of the shadow table. Writes run inside the caller's SQLite
// transaction: the begin/commit/rollback/savepoint hooks undo nothing
// because SQLite already makes the shadow table's writes atomic with the
// statement and transaction that caused them.
//
// Statements are prepared once per store and reused: get/set/insert/clear/
// clear_range each have one, insert_batch one per count of keys (on first
// use); scans take a statement from a small pool (one
// per cursor open at the same time, so self-joins work) and give it back
// when the cursor is destroyed. A scan never prepares in the common case.
//
// Keys and values read through a cursor point into the statement's result
// row (SQLite copies them out of the page); they stay valid until the
// cursor moves, writes in between included (core/store.h's contract).
// A cursor may stay open across writes to the store; it then continues
// after the key it was on, as the table is at that moment.
//
// Corrupt rows (a key or value that is not a BLOB) are reported as
// kCorruption with the shadow table's name, never trusted. A NULL value is
// corruption too (the store only ever writes BLOBs); a zero-length BLOB is
// an empty value. Rows whose key is not a BLOB sort before every BLOB in
// SQLite, so scans from the start of the keyspace (empty begin) meet them
// and clear_range from there removes them; BLOB-bounded ranges never do.
//
// Write batching (opt-in, enable_write_batching(); tuplekv_table turns it
// on): inside a transaction, set/insert/clear go to a WriteBatch
// (core/write_batch.h) instead of the shadow table. Reads go through it:
// get() looks there first, and scans merge it with the shadow table's rows.
// The batch is applied, sorted, in a few statement runs, at every
// savepoint, at sync() (xSync, before the commit), when it holds more than
// batch_limit bytes, and before clear_range() and renamed(). rollback() and
// rollback_to() drop it: everything in it was written after the newest
// savepoint, which applied the rest; unless that savepoint failed to apply
// it, when rolling back to it keeps the batch for the next apply. The one
// exception is
// kStatementLevel (core/store.h), a statement's own mark: it applies the
// batch only when over the limit, then marks the batch, and rolling back
// to it undoes the batch's writes since (WriteBatch::mark); while it
// lasts, the limit waits (up to four times over), so that the statement's
// writes stay undoable. Consequence for readers of the shadow
// table itself: inside a transaction it may lag behind the virtual table
// until one of those points (as FTS5's shadow tables lag its pending
// data).
//
// SQLite failures carry SQLite's extended result code as native_code(), so
// SQLITE_BUSY, SQLITE_FULL, SQLITE_NOMEM, ... pass through ext/errors.h
// unchanged. Messages say what failed on which table ("writing
// "main"."t_kv": database is locked"); a module adds its own prefix.
#ifndef TUPLEKV_EXT_SQLITE_STORE_H_
#define TUPLEKV_EXT_SQLITE_STORE_H_

#include <cassert>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "core/store.h"
#include "core/write_batch.h"
#include "ext/sqlite_api.h"

namespace tuplekv::ext {

struct SqliteStoreState;  // sqlite_store.cc

// The cursor SqliteStore::scan() returns. It is public so that a caller
// that knows its store is a SqliteStore (a virtual table's row loop) can
// step it without virtual dispatch; the per-row path (one sqlite3_step,
// the row's two values read once) is inline, everything else is in
// sqlite_store.cc.
class SqliteCursor final : public Cursor {
 public:
  // `mapping` (null for a plain scan) is copied.
  SqliteCursor(SqliteStoreState* store, const ScanOptions& options, const KeyMapping* mapping);
  ~SqliteCursor() override;
  SqliteCursor(const SqliteCursor&) = delete;
  SqliteCursor& operator=(const SqliteCursor&) = delete;

  bool valid() const override { return valid_; }
  BytesView key() const override { return key_; }
  BytesView value() const override { return value_; }
  Status status() const override { return status_; }
  bool mapped_found() const override { return found_; }

  void next() override {
    assert(valid_);
    if (merging_) return merge_next();
    if (--remaining_ == 0) return finish();
    if (read_at_ != *changes_) return next_after_write();
    step();
  }

  Status rescan(const KeyRange& range) override;

  // ~SqliteStore with this cursor still open: give up the statement now,
  // while the store can still finalize it, and end the scan.
  void detach() noexcept;
  SqliteCursor* next_in_store() const { return next_; }

 private:
  // Every step after the first of a run (see first_step()).
  void step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW && read_row()) return;
    step_failed(rc);
  }
  void first_step();
  // The current row's columns as views; false if they are not both BLOBs
  // (corruption) or SQLite could not produce the bytes. Reads the result
  // registers first_step() found (sqlite_store.cc, "Reading rows").
  bool read_row() {
    assert(key_col_ == sqlite3_column_value(stmt_, 0));
    if (!blob_of(key_col_, &key_)) return false;
    if (past_stop()) {
      finish();  // the end of the range
      return true;
    }
    if (!keys_only_) {
      assert(value_col_ == sqlite3_column_value(stmt_, 1));
      found_ = blob_of(value_col_, &value_);
      if (!found_) {
        // A mapped scan's LEFT JOIN gives NULL where there is no mapped row.
        if (!mapped_ || sqlite3_value_type(value_col_) != SQLITE_NULL) return false;
        value_ = BytesView(kEmptyBlob, 0);
      }
    }
    valid_ = true;
    read_at_ = *changes_;
    return true;
  }
  static bool blob_of(sqlite3_value* v, BytesView* out) {
    if (sqlite3_value_type(v) != SQLITE_BLOB) return false;
    const void* p = sqlite3_value_blob(v);  // blob before bytes, as SQLite asks
    const int n = sqlite3_value_bytes(v);
    if (n <= 0) {
      *out = BytesView(kEmptyBlob, 0);
      return true;
    }
    if (p == nullptr) return false;
    *out = BytesView(static_cast<const char*>(p), static_cast<size_t>(n));
    return true;
  }
  // Whether key_ is beyond the bound the statement does not check.
  bool past_stop() const {
    switch (stop_) {
      case Stop::kNone:
        return false;
      case Stop::kAtOrAfter:
        return compare_bytes(key_, end_) >= 0;
      case Stop::kBelow:
        return compare_bytes(key_, begin_) < 0;
    }
    return false;
  }
  void step_failed(int rc);  // after a step that gave no readable row
  void next_after_write();
  // rescan() for `range` with `left` pairs to go (merging_ already set).
  Status open(const KeyRange& range, uint64_t left);

  // Reading through a write batch (sqlite_store.cc, "Reading through the
  // batch"): the statement's rows merged with the batch's keys in range.
  void start_merge();
  void merge_next();
  void merge_settle();
  void take_shadow_row() {
    shadow_valid_ = valid_;
    shadow_key_ = key_;
    shadow_value_ = value_;
    shadow_found_ = found_;
  }
  void shadow_next() {
    step();
    take_shadow_row();
  }
  void seek_batch();
  void batch_next();
  bool batch_in_range() const;
  // Both sides again, from the first key after `key` in scan order.
  void reopen_after(BytesView key);
  // A mapped scan's row for the entry `key`, looked up through the batch.
  void read_mapped_row(BytesView key, bool from_shadow);
  void finish() {
    valid_ = false;
    sqlite3_reset(stmt_);  // releases the read position (sqlite_store.cc)
  }
  void fail(Status s);
  void release_statement() noexcept;

  // Where zero-length views point: a null data() would bind NULL.
  static constexpr char kEmptyBlob[1] = {0};

  SqliteStoreState* store_;
  const uint64_t* changes_;  // the store's write counter
  SqliteCursor* prev_ = nullptr;
  SqliteCursor* next_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
  sqlite3_value* key_col_ = nullptr;  // stmt_'s result row, this run
  sqlite3_value* value_col_ = nullptr;
  int shape_ = 0;
  uint64_t generation_ = 0;
  const bool reverse_;
  const bool keys_only_;
  const bool mapped_;
  KeyMapping mapping_;      // mapped_: bound to ?3..?5 on every rescan
  bool found_ = true;       // mapped_: the current key's row exists
  const uint64_t limit_;    // UINT64_MAX for "no limit"
  uint64_t remaining_ = 0;  // pairs left including the current one
  Bytes begin_;             // the range, owned: SQLite reads its bound on every step
  Bytes end_;
  // A plain scan's statement checks only the bound it starts from; the
  // cursor checks the other one (sqlite_store.cc, "Bounds").
  enum class Stop : uint8_t { kNone, kAtOrAfter /* end_ */, kBelow /* begin_ */ };
  Stop stop_ = Stop::kNone;
  Bytes last_key_;        // see next_after_write()
  uint64_t read_at_ = 0;  // *changes_ when the current row was read
  BytesView key_{kEmptyBlob, 0};
  BytesView value_{kEmptyBlob, 0};
  bool valid_ = false;
  Status status_;

  // Merging: key_/value_/valid_ are the merged pair; the statement's own
  // row is kept in shadow_*.
  bool merging_ = false;
  uint64_t out_remaining_ = 0;  // merged pairs left including the current one
  bool shadow_valid_ = false;
  BytesView shadow_key_;
  BytesView shadow_value_;
  bool shadow_found_ = true;
  WriteBatch::Ordered::const_iterator batch_at_;
  bool batch_valid_ = false;
  bool out_shadow_ = false;  // which sides the current pair came from
  bool out_batch_ = false;
  Bytes out_key_;  // copies of pairs from the batch, which apply() may free
  Bytes out_value_;
  Bytes mapped_key_;
};

class SqliteStore final : public OrderedStore {
 public:
  // The suffix that names a table's shadow table ("<name>_kv"), for
  // xShadowName.
  static constexpr const char* kShadowSuffix = "kv";

  // Creates the shadow table of virtual table `name` in `schema` (xCreate).
  // Fails if it already exists.
  static Status create_table(sqlite3* db, const std::string& schema, const std::string& name);
  // Drops it (xDestroy).
  static Status drop_table(sqlite3* db, const std::string& schema, const std::string& name);
  // Renames it when the virtual table is renamed (xRename).
  static Status rename_table(sqlite3* db, const std::string& schema, const std::string& old_name,
                             const std::string& new_name);

  // The most bytes a write batch may hold before it is applied mid-way.
  static constexpr size_t kDefaultBatchLimit = size_t{64} << 20;

  // Opens the store over an existing shadow table (xCreate after
  // create_table, and xConnect). Prepares every statement it needs up
  // front, so a missing table is reported here.
  static Result<std::unique_ptr<SqliteStore>> open(sqlite3* db, const std::string& schema,
                                                   const std::string& name);
  ~SqliteStore() override;

  // After xRename: re-prepares statements against the new table name.
  Status renamed(const std::string& new_name);

  Status get(BytesView key, Bytes* value, bool* found) override;
  Status set(BytesView key, BytesView value) override;
  // One statement (INSERT ... ON CONFLICT DO NOTHING), one b-tree seek
  // where the default get() then set() takes two: INSERT without OR
  // REPLACE detects a duplicate key at native INSERT speed.
  Status insert(BytesView key, BytesView value, bool* inserted) override;
  // The most keys insert_batch() takes besides the first.
  static constexpr size_t kMaxBatchKeys = 8;
  // Inserts key -> value and each empty_keys[i] -> empty value, every pair
  // whose key is absent, in one statement (INSERT OR IGNORE ... VALUES
  // (...),(...)): a table row and its index entries cost one statement
  // run instead of one each. Pairs whose key is present are left as they
  // are; *inserted counts the pairs written. Which ones those were the
  // caller works out from the count and the stored value (see
  // ext/table_write.cc).
  // REQUIRES: 1 <= empty_keys.size() <= kMaxBatchKeys.
  Status insert_batch(BytesView key, BytesView value, const std::vector<Bytes>& empty_keys,
                      size_t* inserted);
  Status clear(BytesView key) override;
  Status clear_range(BytesView begin, BytesView end) override;
  Result<std::unique_ptr<Cursor>> scan(const KeyRange& range, const ScanOptions& options) override;
  // One statement joins the shadow table to itself through the SQL
  // function tuplekv_map_key (ext/functions.cc), so each step reads a key
  // and its mapped row. The connection must have tuplekv's functions
  // registered (tuplekv_register does).
  Result<std::unique_ptr<Cursor>> scan_mapped(const KeyRange& range, const ScanOptions& options,
                                              const KeyMapping& mapping) override;

  // Holds writes back inside transactions from now on (see "Write
  // batching" above). The connection must have tuplekv_batch_rows
  // registered (tuplekv_register does), and the owner must forward every
  // transaction hook, xSync included.
  void enable_write_batching();
  // For tests: apply a batch once it holds more than `bytes`.
  void set_batch_limit(size_t bytes);
  // Writes held back right now (keys).
  size_t batched_writes() const;
  // For tests: how often insert() has looked for a key in the shadow
  // table (rather than knowing it absent).
  uint64_t absence_lookups() const;
  // Cursors of this store not yet destroyed: those of every virtual table
  // that shares it (ConnectionRegistry::sqlite_store), such as a
  // tuplekv_leaves scan over a docs table a rename would move the keys of.
  size_t open_cursors() const;

  // SQLite undoes the shadow table's writes itself. Without batching,
  // rollback() and rollback_to() only tell open cursors that rows may have
  // changed under them (see sqlite_store.cc, "Writes during a scan"), so a
  // virtual table should still forward xRollback/xRollbackTo; with it,
  // the hooks also apply or drop the batch.
  Status begin() override;
  bool in_transaction() const override;
  // Moves with every write through this store, batched ones included, and
  // every rollback hook.
  uint64_t version() const override;
  Status sync() override;
  Status commit() override;
  Status rollback() override;
  Status savepoint(int n) override;
  Status release(int n) override;
  Status rollback_to(int n) override;

 private:
  struct Impl;
  explicit SqliteStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace tuplekv::ext

#endif  // TUPLEKV_EXT_SQLITE_STORE_H_
