// OrderedStore: the ordered key-value store every keyspace model is written
// against, shaped like a FoundationDB transaction.
//
// Keys and values are arbitrary bytes; keys are ordered by compare_bytes()
// (unsigned lexicographic, a proper prefix first). Ranges are half-open:
// [begin, end), end exclusive; an empty `end` means "to the end of the
// keyspace". Nothing here assumes SQLite, so a FoundationDB-backed store
// would be a thin adapter.
//
// Implementations: MemoryStore (core/memory_store.h) and the SQLite-backed
// store over a shadow table (ext/sqlite_store.h).
//
// Thread safety: none. A store and its cursors belong to one thread (one
// SQLite connection), as SQLite virtual tables do.
#ifndef TUPLEKV_CORE_STORE_H_
#define TUPLEKV_CORE_STORE_H_

#include <cstdint>
#include <memory>

#include "core/bytes.h"
#include "core/key_mapping.h"
#include "core/status.h"

namespace tuplekv {

struct ScanOptions {
  bool reverse = false;    // visit keys from the end of the range backwards
  uint64_t limit = 0;      // at most this many pairs; 0 = no limit
  bool keys_only = false;  // value() may be empty (a hint; stores may ignore)
};

// A position in a scan. A new cursor is already on the first pair of its
// range (or !valid() if there is none).
//
// key() and value() stay valid until the cursor moves or is destroyed,
// writes to the store in between included: a virtual table reads a row's
// columns one call at a time from views it took once, and a function of
// the same statement may write the table between two of those calls.
// Writing to the store while a cursor is open is allowed: the cursor then
// continues from the first key after (before, in reverse) the one it was
// on, as it is in the store at that moment.
class Cursor {
 public:
  virtual ~Cursor() = default;

  // False at the end of the range, after `limit` pairs, or after an error.
  virtual bool valid() const = 0;
  // REQUIRES: valid()
  virtual void next() = 0;
  // REQUIRES: valid()
  virtual BytesView key() const = 0;
  virtual BytesView value() const = 0;
  // OK unless an error ended the scan early.
  virtual Status status() const = 0;
  // Mapped scans (OrderedStore::scan_mapped) only: false when the current
  // key maps to nothing or its mapped key is absent; value() is then empty.
  // REQUIRES: valid()
  virtual bool mapped_found() const { return true; }

  // Restarts this cursor on a new range with the same options (cheaper than
  // a new scan: IN lists and skip-scans move one cursor range by range).
  virtual Status rescan(const KeyRange& range) = 0;
};

class OrderedStore {
 public:
  virtual ~OrderedStore() = default;

  // Sets *found, and *value when found.
  virtual Status get(BytesView key, Bytes* value, bool* found) = 0;
  virtual Status set(BytesView key, BytesView value) = 0;
  // Stores the pair only if `key` is absent and sets *inserted to whether
  // it did; an existing pair stays as it was. The default is get() then
  // set(); a store that can do both in one seek should override it.
  virtual Status insert(BytesView key, BytesView value, bool* inserted) {
    *inserted = false;
    bool found = false;
    Bytes old;
    TUPLEKV_RETURN_IF_ERROR(get(key, &old, &found));
    if (found) return Status::OK();
    TUPLEKV_RETURN_IF_ERROR(set(key, value));
    *inserted = true;
    return Status::OK();
  }
  // Clearing an absent key is not an error.
  virtual Status clear(BytesView key) = 0;
  // Clears every key in [begin, end) (empty `end`: to the end).
  virtual Status clear_range(BytesView begin, BytesView end) = 0;

  virtual Result<std::unique_ptr<Cursor>> scan(const KeyRange& range,
                                               const ScanOptions& options) = 0;

  // A number that moves on every write and every rollback: when it is the
  // same at two moments, the pairs were not changed in between. A reader
  // that assembles one result from several pairs (a document from its
  // leaves) checks it before trusting a pair it read earlier, since a
  // function of the same statement may have written the store since.
  virtual uint64_t version() const = 0;

  // The keys of `range` as scan() visits them, each with the value of its
  // mapped key (core/key_mapping.h) instead of its own: an index scan that
  // reads each row with its entry. keys_only is ignored. Writes between
  // steps behave as for scan(). The default looks each mapped key up with
  // get(); a store that can read both in one step overrides it.
  virtual Result<std::unique_ptr<Cursor>> scan_mapped(const KeyRange& range,
                                                      const ScanOptions& options,
                                                      const KeyMapping& mapping) {
    return scan_mapped_by_get(this, range, options, mapping);
  }

  // Transaction hooks, called in SQLite's virtual-table order (xBegin,
  // xSavepoint, xRelease, xRollbackTo, xSync, xCommit, xRollback):
  //   begin()          a transaction starts; writes after it can be undone
  //   commit()         keep every write since begin()
  //   rollback()       undo every write since begin()
  //   savepoint(n)     mark the state as savepoint n (nested levels;
  //                    marking n discards any marks >= n)
  //   release(n)       forget savepoints >= n, keeping their writes
  //   rollback_to(n)   undo every write since savepoint n (or, if n itself
  //                    was never marked, since the lowest mark above n);
  //                    savepoint n stays valid, marks above it are gone
  // Levels count from 0. SQLite also passes -1 to xRollbackTo, meaning the
  // savepoint that opened the transaction, and a store must accept any
  // n < 0 in all three hooks as that level: begin() is its mark, so
  // savepoint(-1) marks nothing new, release(-1) forgets every mark and
  // rollback_to(-1) undoes every write since begin(), leaving the
  // transaction open with no marks.
  // Writes made outside begin()/commit() take effect immediately.
  // sync() comes before commit() (SQLite's xSync): the last moment a store
  // that holds writes back may still apply them; an error there aborts the
  // commit, and rollback() follows.
  //
  // kStatementLevel is above every level SQLite opens: a table marks it
  // itself, for a statement SQLite gives no savepoint, to undo that
  // statement's writes should it fail (ext/table_write.cc). It lasts until
  // released, rolled back to, or discarded by a mark at a lower level.
  static constexpr int kStatementLevel = 1 << 24;
  virtual Status begin() = 0;
  // Between begin() and commit()/rollback(). Two callers may share a store
  // (SQLite opens a table anew mid-transaction after a schema change): the
  // second to begin() joins the transaction the first began.
  virtual bool in_transaction() const = 0;
  virtual Status sync() { return Status::OK(); }
  virtual Status commit() = 0;
  virtual Status rollback() = 0;
  virtual Status savepoint(int n) = 0;
  virtual Status release(int n) = 0;
  virtual Status rollback_to(int n) = 0;
};

}  // namespace tuplekv

#endif  // TUPLEKV_CORE_STORE_H_
