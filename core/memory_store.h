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
//   begin() inside a transaction      a second caller joins it; the
//                                     transaction goes on, so a later
//                                     rollback() undoes from the first
//                                     begin() (never loses undo data)
//   commit()/rollback() outside one   no-op
//   savepoint/release/rollback_to     no-op outside a transaction (nothing
//                                     is logged there, so nothing to undo)
// Savepoint levels below 0 are the transaction itself (core/store.h):
// rollback_to(-1) undoes everything since begin(), release(-1) forgets every
// mark, savepoint(-1) marks nothing.
// Joining: SQLite may open a table anew in the middle of a transaction
// (after a schema change, or a rename), and the new object's xBegin and
// xSavepoint(n) reach a store the old one began with. Level n is open
// already, and marked when it opened: so savepoint(n) right after a
// begin() that found the transaction open keeps a mark at n, which holds
// the writes made since it, rather than marking n anew.
// A store that begins inside savepoints (SQLite opens a table's
// transaction at its first write, after SAVEPOINT a; SAVEPOINT b) hears
// xSavepoint only for the level current then, which a statement's own
// level may be and is released at the statement's end. Its first
// savepoint(n), before any write, also marks every level below n, so that
// ROLLBACK TO a undoes what it wrote.
// rollback_to(n) with no savepoint >= n marked: the store joined the
// transaction after savepoint n opened (SQLite calls xSavepoint only for the
// level current when the table joins), so it undoes everything since the
// newest mark below n, or since begin() if there is none.
//
// Cursors: key() and value() are a copy of the current pair, in the
// cursor's own buffer, made as the cursor reaches it. A write may move or
// free any bytes in the tree (an insert compacts or splits a leaf, a
// delete merges two), and the views a reader took before it must stay
// valid until the cursor moves (core/store.h): a virtual table cursor
// reads a row's columns one call at a time, and a function in the same
// statement may write the table between two of them. Before any write the
// store tells every open cursor to let go of its place in the tree
// ("detach"); next() then re-seeks to the first key after (reverse:
// before) the current one, within the cursor's range. So a write costs
// O(open cursors), and a scan one copy per pair.
// Limits: keys and values up to 4 GiB - 1 (kTooBig beyond); any bytes.
// Thread safety: none (see core/store.h).
// REQUIRES: cursors from scan() are destroyed before the store. (If one
// is not, it becomes !valid() rather than dangling; do not rely on it.)
#ifndef TUPLEKV_CORE_MEMORY_STORE_H_
#define TUPLEKV_CORE_MEMORY_STORE_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
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
  Status insert(BytesView key, BytesView value, bool* inserted) override;
  Status clear(BytesView key) override;
  Status clear_range(BytesView begin, BytesView end) override;
  Result<std::unique_ptr<Cursor>> scan(const KeyRange& range,
                                       const ScanOptions& options) override;
  uint64_t version() const override { return version_; }

  Status begin() override;
  Status commit() override;
  Status rollback() override;
  Status savepoint(int n) override;
  Status release(int n) override;
  Status rollback_to(int n) override;

  uint64_t size() const { return tree_.size(); }
  bool in_transaction() const override { return in_transaction_; }
  // For a store made while a transaction is open, before it joins it: a
  // rollback of the whole transaction takes the store's owner away too, so
  // rollback_could_change() counts only the savepoints. Until commit() or
  // rollback().
  void note_made_in_transaction() { made_in_transaction_ = true; }
  // Whether a rollback still possible in this transaction (of all of it, or
  // to a savepoint marked now) would change the pairs. A caller about to
  // stop hearing of the transaction (a table dropped inside it) could not
  // undo those writes later.
  bool rollback_could_change() const;
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
  // Before a write: moves version() and detaches every open cursor. The
  // arguments need no copy: no view into the tree leaves the store (get()
  // copies, cursors hand out their own buffer).
  void begin_write();
  void detach_cursors();
  void undo_to(size_t n);

  BTree tree_;
  UndoLog undo_;
  bool in_transaction_ = false;
  bool made_in_transaction_ = false;
  bool joining_ = false;  // begin() found the transaction open (see "Joining")
  std::vector<Mark> marks_;  // ascending in level and in undo_size
  MemoryCursor* cursors_ = nullptr;  // open cursors, linked through the cursors
  uint64_t version_ = 0;
};

// The cursor MemoryStore::scan() returns. It is public so that a caller
// that knows its store is a MemoryStore (a virtual table's row loop) can
// call it without virtual dispatch: next() within a leaf is a slot
// increment, two slot reads and the copy, inlined; leaf changes, range ends and
// re-seeks after writes are out of line.
class MemoryCursor final : public Cursor {
 public:
  MemoryCursor(MemoryStore* store, const KeyRange& range, const ScanOptions& options);
  ~MemoryCursor() override;
  MemoryCursor(const MemoryCursor&) = delete;
  MemoryCursor& operator=(const MemoryCursor&) = delete;

  bool valid() const override { return valid_; }
  BytesView key() const override { return key_; }
  BytesView value() const override { return value_; }
  // NoMemory when a pair could not be copied (the scan ended there).
  Status status() const override { return out_of_memory_ ? Status::NoMemory() : Status::OK(); }

  void next() override {
    // [stop_, leaf end) (reverse: [0, stop_)) is never entered here: stop_
    // marks where this leaf leaves the range, or blocks the fast path
    // while detached.
    if (--remaining_ != 0) {
      if (!reverse_) {
        if (++index_ < stop_) return load();
      } else if (index_-- > stop_) {
        return load();
      }
    }
    next_slow();
  }

  // The limit applies to each range separately.
  Status rescan(const KeyRange& range) override;

  // The store is about to change: keep the current pair in our own buffers.
  void detach();
  // The store is going away; the cursor ends at its next move.
  void orphan();
  MemoryCursor* next_in_store() const { return next_; }

 private:
  // The pair at index_, copied into pair_: key() and value() must outlive
  // a write, which may move or free the bytes in the tree (core/store.h).
  // One buffer and two plain copies: two string assigns cost twice as much,
  // and this runs once per row of every scan.
  void load() {
    const BytesView k = leaf_->key(index_);
    const BytesView v = keys_only_ ? BytesView() : leaf_->value(index_);
    const size_t n = k.size() + v.size();
    if (n > pair_capacity_ && !grow_pair(n)) return;
    char* const p = pair_.get();
    if (!k.empty()) std::memcpy(p, k.data(), k.size());
    if (!v.empty()) std::memcpy(p + k.size(), v.data(), v.size());
    key_ = BytesView(p, k.size());
    value_ = BytesView(p + k.size(), v.size());
  }
  // False, the cursor finished with status() NoMemory, if it cannot.
  bool grow_pair(size_t n);
  void next_slow();
  void start();
  void reseek();
  BTree::Pos before(BTree::Pos p) const;
  void land(BTree::Pos p);
  bool enter_leaf();
  void block_fast_path() {
    index_ = 0;
    stop_ = reverse_ ? kBlockReverse : 0;
  }
  void finish();

  static constexpr int kBlockReverse = 1 << 30;

  MemoryStore* store_;
  MemoryCursor* prev_ = nullptr;  // the store's list of open cursors
  MemoryCursor* next_ = nullptr;
  const ScanOptions options_;
  const bool reverse_;
  const bool keys_only_;
  Bytes begin_;
  Bytes end_;
  const btree::Node* leaf_ = nullptr;
  int index_ = 0;
  // Forward: the first slot of leaf_ at or past the end of the range.
  // Reverse: the first slot inside the range.
  int stop_ = 0;
  bool valid_ = false;
  bool attached_ = false;   // leaf_, index_ and the views point into the tree
  uint64_t remaining_ = 0;  // pairs the limit still allows, the current one included
  BytesView key_;
  BytesView value_;
  std::unique_ptr<char[]> pair_;  // the current pair's key, then its value
  size_t pair_capacity_ = 0;
  bool out_of_memory_ = false;
};

}  // namespace tuplekv

#endif  // TUPLEKV_CORE_MEMORY_STORE_H_
