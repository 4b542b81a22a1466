// BTree: the ordered byte map under MemoryStore (internal to core/; use
// MemoryStore, not this, from anywhere else).
//
// Why not std::map: a scan over std::map chases one pointer per pair, and
// each pair owns two heap strings, so a scan at a million keys misses the
// cache several times per row. This is a B+tree whose nodes keep their keys
// and values packed together:
//
//   Node (one allocation, ~5 KB)
//   +--------+-----------------+------------------+----------------------+
//   | header | hint[kFanout]   | slot[kFanout]    | arena[kArenaBytes]   |
//   |        | uint32 per key  | lengths, offsets | key and value bytes  |
//   +--------+-----------------+------------------+----------------------+
//
// * Leaves are linked both ways, so a scan walks slot arrays in order and
//   touches a new node only every few dozen rows.
// * Every key in a node shares its first `plen` bytes (the common prefix of
//   the node's first and last key; tuple keys share a long subspace prefix).
//   hint[i] is the next four bytes of key i after that prefix, big-endian,
//   so a binary search compares integers in one small array and reads key
//   bytes only to break ties. Lookups therefore touch a few cache lines per
//   node instead of one line per probe.
// * Keys and values up to kInlineMax bytes live in the arena; longer ones
//   in their own allocation, with the arena holding the pointer, so a node
//   holding a 10 MB value is still cheap to split or compact.
// * Inner nodes use the same layout for separator keys plus child pointers.
//   Separators are the shortest prefix that splits two leaves (suffix
//   truncation), which keeps inner nodes small and their hints sharp.
//
// Deletes merge a node into a sibling when both fit in three quarters of a
// node, so nodes that empty out are freed and the tree does not thrash
// between split and merge at the boundary.
//
// Thread safety: none, as for OrderedStore.
#ifndef TUPLEKV_CORE_BTREE_H_
#define TUPLEKV_CORE_BTREE_H_

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "core/bytes.h"
#include "core/status.h"

namespace tuplekv {
namespace btree {

// Measured on 1M tuple-shaped keys (bench/store_bench.cc): 64 keys per node
// with a 4 KB arena keeps lookups at four levels and scans at one node per
// ~64 rows; 32 gave slower scans, 128 slower inserts (longer memmoves).
inline constexpr int kFanout = 64;
inline constexpr uint32_t kArenaBytes = 4096;
// Longest key or value stored inline. A node must take at least a few
// entries of this size: 2 * 256 bytes is 1/8 of the arena.
inline constexpr uint32_t kInlineMax = 256;
// The largest key or value (lengths are stored in 32 bits).
inline constexpr uint64_t kMaxLength = 0xFFFFFFFFu;

struct Slot {
  uint32_t key_len;
  uint32_t val_len;
  uint16_t key_off;  // into arena; see Node::bytes()
  uint16_t val_off;
};

struct Node {
  uint16_t count = 0;    // keys in this node (children = count + 1 if inner)
  uint16_t level = 0;    // 0 for leaves, parent = child + 1
  uint16_t used = 0;     // arena bytes handed out (high-water mark)
  uint16_t garbage = 0;  // bytes below `used` no slot refers to
  uint32_t plen = 0;     // every key here starts with the same plen bytes
  Node* prev = nullptr;  // leaves only: neighbours in key order
  Node* next = nullptr;
  uint32_t hint[kFanout];
  Slot slot[kFanout];
  char arena[kArenaBytes];

  bool is_leaf() const { return level == 0; }

  // Bytes of a stored key or value: inline in the arena, or (when longer
  // than kInlineMax) in a separate allocation whose pointer the arena holds.
  const char* bytes(uint16_t off, uint32_t len) const {
    if (len <= kInlineMax) return arena + off;
    const char* p;
    std::memcpy(&p, arena + off, sizeof p);
    return p;
  }
  BytesView key(int i) const {
    const Slot& s = slot[i];
    return BytesView(bytes(s.key_off, s.key_len), s.key_len);
  }
  BytesView value(int i) const {
    const Slot& s = slot[i];
    return BytesView(bytes(s.val_off, s.val_len), s.val_len);
  }
};

struct Inner : Node {
  Node* child[kFanout + 1];
};

// Receives the state of a key just before the tree changes it, so the
// caller can log it for undo. `old_value` is null when the key was absent.
// The views are valid only during the call.
class ChangeSink {
 public:
  virtual void before_change(BytesView key, const BytesView* old_value) = 0;

 protected:
  ~ChangeSink() = default;
};

struct Staged;  // btree.cc: a key or value whose allocation is done
struct Sep;     // btree.cc: a separator on its way to a parent

struct TreeStats {
  uint64_t keys = 0;
  uint64_t leaves = 0;
  uint64_t inner_nodes = 0;
  uint64_t height = 0;          // 1 for a tree that is a single leaf
  uint64_t node_bytes = 0;      // bytes of node allocations
  uint64_t blob_bytes = 0;      // bytes of out-of-line keys and values
  uint64_t key_value_bytes = 0; // sum of key and value lengths
};

}  // namespace btree

class BTree {
 public:
  // A position on a pair in a leaf; `leaf == nullptr` is "no pair".
  struct Pos {
    const btree::Node* leaf = nullptr;
    int index = 0;
  };

  BTree();
  ~BTree();
  BTree(const BTree&) = delete;
  BTree& operator=(const BTree&) = delete;

  // Copies the value of `key` into *value and returns true when present.
  bool get(BytesView key, Bytes* value) const;

  // Inserts or overwrites. `sink` (may be null) sees the old state first.
  // REQUIRES: key and value do not point into this tree's memory;
  //           both lengths <= btree::kMaxLength.
  void put(BytesView key, BytesView value, btree::ChangeSink* sink);

  // Removes `key`; returns whether it was present.
  bool erase(BytesView key, btree::ChangeSink* sink);

  // Removes every key in [begin, end) (empty end: no upper bound); returns
  // how many were removed.
  uint64_t erase_range(BytesView begin, BytesView end, btree::ChangeSink* sink);

  Pos lower_bound(BytesView key) const;  // first pair with key >= `key`
  // Index of the first key >= `key` within one leaf (leaf->count if none).
  static int lower_bound_in(const btree::Node* leaf, BytesView key);
  Pos upper_bound(BytesView key) const;  // first pair with key > `key`
  Pos first() const { return normalize(head_, 0); }
  Pos last() const {
    return tail_->count == 0 ? Pos{} : Pos{tail_, tail_->count - 1};
  }
  static Pos next(Pos p) {
    if (p.index + 1 < p.leaf->count) return Pos{p.leaf, p.index + 1};
    return p.leaf->next ? Pos{p.leaf->next, 0} : Pos{};
  }
  static Pos prev(Pos p) {
    if (p.index > 0) return Pos{p.leaf, p.index - 1};
    const btree::Node* l = p.leaf->prev;
    return l ? Pos{l, l->count - 1} : Pos{};
  }

  uint64_t size() const { return size_; }
  btree::TreeStats stats() const;
  // Verifies every structural invariant; kInternal naming the first broken
  // one. O(n); for tests.
  Status check() const;

 private:
  struct Path;

  static Pos normalize(const btree::Node* leaf, int index) {
    if (index < leaf->count) return Pos{leaf, index};
    return leaf->next ? Pos{leaf->next, 0} : Pos{};
  }
  btree::Node* descend(BytesView key, Path* path) const;
  void insert_into_leaf(Path* path, btree::Node* leaf, int pos, btree::Staged* key,
                        btree::Staged* value);
  void insert_into_parent(Path* path, btree::Node* left, btree::Sep* sep,
                          btree::Node* right);
  void rebalance(Path* path, btree::Node* node);
  void unlink_leaf(btree::Node* leaf);
  void free_subtree(btree::Node* node);
  void reserve_nodes();
  btree::Inner* take_inner(uint16_t level);
  void release_node(btree::Node* node);
  Status check_node(const btree::Node* node, const Bytes* low, const Bytes* high,
                    uint64_t depth, uint64_t* leaf_depth,
                    const btree::Node** prev_leaf, uint64_t* keys) const;

  btree::Node* root_;
  btree::Node* head_;  // first and last leaf
  btree::Node* tail_;
  uint64_t size_ = 0;
  // Nodes allocated ahead of a split, so a split never fails halfway for
  // want of memory (see put()).
  std::vector<btree::Inner*> spare_inner_;
  std::unique_ptr<btree::Node> spare_leaf_;
};

}  // namespace tuplekv

#endif  // TUPLEKV_CORE_BTREE_H_
