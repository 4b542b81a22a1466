// WriteBatch: the writes a store has accepted but not yet applied to what
// lies below it, one entry per key (the latest write wins), so that they
// can be applied together, in key order.
//
// Why: a B-tree takes a run of keys in key order several times faster than
// the same keys one at a time in arrival order (each insert a root-to-leaf
// seek into a page that is rarely the last one touched). FTS5 buffers its
// pending index data for the same reason. ext/sqlite_store.h uses a batch
// inside a write transaction and applies it before anything reads below.
//
// Each entry knows two things about its key:
//   value        the value the key has now, or none (cleared)
//   absent_below whether the key is known to be absent from the store
//                below (set by insert(), whose caller has checked), so
//                that applying it needs no lookup and a clear of it needs
//                no write at all
// which gives four kinds of entry, in the order apply() wants them:
//   kInsert  absent below, has a value    write a new key
//   kSet     unknown below, has a value   write, replacing any old value
//   kClear   unknown below, no value      delete
//   kNone    absent below, no value       nothing (inserted, then cleared)
//
// Memory: the bytes of every key and of every value written (a rewritten
// value leaves its old bytes until reset()), ~40 bytes per key besides.
// memory() says how much, so the owner can apply the batch at a limit.
// The bytes an entry's key and value views point at stay valid until
// reset() or the batch's end: later writes never move stored bytes. The
// Entry pointers find() and sorted() give are valid until the next write.
//
// Thread safety: none.
#ifndef TUPLEKV_CORE_WRITE_BATCH_H_
#define TUPLEKV_CORE_WRITE_BATCH_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "core/bytes.h"

namespace tuplekv {

class WriteBatch {
 public:
  enum class Kind : uint8_t { kInsert, kSet, kClear, kNone };

  struct Entry {
    BytesView key;
    BytesView value;  // meaningful when has_value
    bool has_value = false;
    bool absent_below = false;

    Kind kind() const {
      if (has_value) return absent_below ? Kind::kInsert : Kind::kSet;
      return absent_below ? Kind::kNone : Kind::kClear;
    }
  };

  WriteBatch();
  ~WriteBatch();
  WriteBatch(const WriteBatch&) = delete;
  WriteBatch& operator=(const WriteBatch&) = delete;

  // The entry of `key`, or null when the batch holds no write of it (the
  // store below decides). An entry without a value means "absent". Every
  // point read outside a writing transaction asks an empty batch, so that
  // answer comes before the hash.
  const Entry* find(BytesView key) const {
    return empty() ? nullptr : find(key, hash_bytes(key));
  }

  // key -> value, where the caller has made sure the key has no value: no
  // entry with one here, and (when there is no entry at all) absent below.
  void insert(BytesView key, BytesView value) { insert(key, value, hash_bytes(key)); }

  // The same, given hash_bytes(key), for a caller that does both for one
  // key (the hash is most of a lookup's cost).
  const Entry* find(BytesView key, uint64_t hash) const;
  void insert(BytesView key, BytesView value, uint64_t hash);
  // key -> value, whatever was there.
  void set(BytesView key, BytesView value);
  // key -> absent.
  void clear(BytesView key);

  bool empty() const { return entries_.empty(); }
  size_t size() const { return entries_.size(); }  // keys written, kNone included
  size_t memory() const;

  // Every entry but kNone, in key order (compare_bytes).
  void sorted(std::vector<const Entry*>* out) const;

  // The keys in order, for reading ranges through the batch: built on the
  // first call (O(n log n)), then kept up to date by every write of a new
  // key (O(log n) each) until reset(). Maps each key to entry(i). Its
  // iterators survive writes, not reset().
  struct KeyLess {
    bool operator()(BytesView a, BytesView b) const { return compare_bytes(a, b) < 0; }
  };
  using Ordered = std::map<BytesView, uint32_t, KeyLess>;
  const Ordered& ordered();
  const Entry& entry(uint32_t i) const { return entries_[i]; }

  // Forgets every write; memory is kept for reuse, up to a limit.
  void reset();

  // One mark to come back to: undo_to_mark() makes the batch what it was
  // at mark(), as if the writes since had not happened; forget_mark()
  // keeps them. While marked, a write of a key the batch held at mark()
  // first logs that entry (its old bytes stay where they are), so a mark
  // costs nothing until then. reset() forgets the mark too.
  void mark();
  void undo_to_mark();
  void forget_mark();
  bool marked() const { return marked_; }

 private:
  Entry* find_or_add(BytesView key, uint64_t hash, bool* added);
  // Logs `e` for undo_to_mark() if it is older than the mark.
  void log_for_mark(const Entry* e);
  BytesView copy(BytesView b);
  void grow_index();
  // Puts every entry into slots_, which is empty (all 0) and a power of two.
  void index_entries();

  // Bytes live in blocks that never move, so views into them stay valid.
  std::vector<std::unique_ptr<char[]>> blocks_;
  size_t block_size_ = 0;  // of blocks_.back()
  size_t block_used_ = 0;
  size_t bytes_ = 0;       // in all blocks
  std::vector<Entry> entries_;
  // Open addressing over entries_: 0 is empty, i + 1 is entries_[i].
  std::vector<uint32_t> slots_;
  bool keep_ordered_ = false;
  Ordered ordered_;
  bool marked_ = false;
  size_t mark_entries_ = 0;  // entries_.size() at mark()
  std::vector<std::pair<uint32_t, Entry>> mark_log_;  // entry index, its state before
};

}  // namespace tuplekv

#endif  // TUPLEKV_CORE_WRITE_BATCH_H_
