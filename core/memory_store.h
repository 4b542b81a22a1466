// MemoryStore: an OrderedStore held in memory, for `store=memory` tables,
// unit tests and benchmarks.
//
// Pairs live in a B+tree with packed nodes (core/btree.h), chosen by
// measurement over std::map and absl::btree_map (bench/store_bench.cc).
//
// Transactions: between begin() and commit()/rollback() every write first
// appends the key's previous state (value or absence) to an undo log;
// rollback() and rollback_to(n) replay it backwards, so they undo exactly
// the writes since that point. Savepoint n remembers the log length. Writes
// outside a transaction are not logged and cannot be undone.
// Lenient by design (SQLite never does these, but a caller might):
//   begin() inside a transaction      no-op; the transaction goes on, so a
//                                     later rollback() undoes from the first
//                                     begin() (never loses undo data)
//   commit()/rollback() outside one   no-op
//   savepoint/release/rollback_to     no-op outside a transaction (nothing
//                                     is logged there, so nothing to undo)
// rollback_to(n) with no savepoint >= n marked: the store joined the
// transaction after savepoint n opened (SQLite calls xSavepoint only for the
// level current when the table joins), so it undoes everything since the
// newest mark below n, or since begin() if there is none.
//
// Cursors: key() and value() point into the tree while nothing changes, so
// a scan copies nothing. Before any write the store tells every open cursor
// to copy its current pair into its own buffers ("detach"); the views then
// stay valid until the cursor moves, and next() re-seeks to the first key
// after (reverse: before) the copied one, within the cursor's range. So a
// write costs O(open cursors), a scan costs nothing extra.
//
// Limits: keys and values up to 4 GiB - 1 (kTooBig beyond); any bytes.
// Thread safety: none (see core/store.h).
// REQUIRES: cursors from scan() are destroyed before the store. (If one
// is not, it becomes !valid() rather than dangling; do not rely on it.)
#ifndef TUPLEKV_CORE_MEMORY_STORE_H_
#define TUPLEKV_CORE_MEMORY_STORE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/btree.h"
#include "core/bytes.h"
#include "core/status.h"
#include "core/store.h"

namespace tuplekv {

class MemoryCursor;

struct MemoryStoreStats {
  uint64_t keys = 0;
  uint64_t leaves = 0;
  uint64_t inner_nodes = 0;
  uint64_t height = 0;           // 1 while all pairs fit in one leaf
  uint64_t node_bytes = 0;       // tree nodes
  uint64_t blob_bytes = 0;       // keys/values too long to keep in a node
  uint64_t key_value_bytes = 0;  // sum of key and value lengths
  uint64_t undo_records = 0;
  uint64_t undo_bytes = 0;
};

class MemoryStore final : public OrderedStore {
 public:
  MemoryStore();
  ~MemoryStore() override;
  MemoryStore(const MemoryStore&) = delete;
  MemoryStore& operator=(const MemoryStore&) = delete;

  Status get(BytesView key, Bytes* value, bool* found) override;
  Status set(BytesView key, BytesView value) override;
  Status clear(BytesView key) override;
  Status clear_range(BytesView begin, BytesView end) override;
  Result<std::unique_ptr<Cursor>> scan(const KeyRange& range,
                                       const ScanOptions& options) override;

  Status begin() override;
  Status commit() override;
  Status rollback() override;
  Status savepoint(int n) override;
  Status release(int n) override;
  Status rollback_to(int n) override;

  uint64_t size() const { return tree_.size(); }
  bool in_transaction() const { return in_transaction_; }
  MemoryStoreStats stats() const;
  // kInternal naming the first broken structural invariant. O(n); for tests.
  Status check_invariants() const { return tree_.check(); }

 private:
  friend class MemoryCursor;

  // Previous states of written keys, oldest first, in one flat buffer (a
  // bulk load inside a transaction makes one allocation per doubling, not
  // one per write).
  class UndoLog final : public btree::ChangeSink {
   public:
    void before_change(BytesView key, const BytesView* old_value) override;
    size_t size() const { return starts_.size(); }
    size_t bytes() const { return buf_.size(); }
    // Restores the states recorded in [n, size()), newest first, and drops
    // those records.
    void undo_to(size_t n, BTree* tree);
    void clear();

   private:
    std::string buf_;  // per record: u8 had_value, u32 key len, u32 value len, key, value
    std::vector<size_t> starts_;
  };

  struct Mark {
    int level;
    size_t undo_size;
  };

  btree::ChangeSink* sink() { return in_transaction_ ? &undo_ : nullptr; }
  // Before a write: copies the arguments (they may be views from a cursor
  // into the tree) and detaches every open cursor.
  void prepare_write(BytesView* a, BytesView* b);
  void detach_cursors();
  void undo_to(size_t n);

  BTree tree_;
  UndoLog undo_;
  bool in_transaction_ = false;
  std::vector<Mark> marks_;  // ascending in level and in undo_size
  MemoryCursor* cursors_ = nullptr;  // open cursors, linked through the cursors
  Bytes scratch_a_;
  Bytes scratch_b_;
};

}  // namespace tuplekv

#endif  // TUPLEKV_CORE_MEMORY_STORE_H_
