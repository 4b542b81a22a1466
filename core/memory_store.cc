#include "core/memory_store.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <limits>
#include <new>
#include <utility>

namespace tuplekv {

MemoryCursor::MemoryCursor(MemoryStore* store, const KeyRange& range, const ScanOptions& options)
    : store_(store),
      options_(options),
      reverse_(options.reverse),
      keys_only_(options.keys_only),
      begin_(range.begin),
      end_(range.end) {
  next_ = store_->cursors_;
  if (next_ != nullptr) next_->prev_ = this;
  store_->cursors_ = this;
  start();
}

MemoryCursor::~MemoryCursor() {
  if (store_ == nullptr) return;
  if (prev_ != nullptr) prev_->next_ = next_; else store_->cursors_ = next_;
  if (next_ != nullptr) next_->prev_ = prev_;
}

Status MemoryCursor::rescan(const KeyRange& range) {
  begin_ = range.begin;
  end_ = range.end;
  start();
  return Status::OK();
}

// No exception: a cursor is registered with its store before its first
// load(), and one thrown from the constructor would leave it there.
bool MemoryCursor::grow_pair(size_t n) {
  const size_t capacity = std::max(n, 2 * pair_capacity_);
  // Only between pairs: load() overwrites it all.
  pair_.reset(new (std::nothrow) char[capacity]);
  if (pair_ == nullptr) {
    pair_capacity_ = 0;
    out_of_memory_ = true;
    finish();
    return false;
  }
  pair_capacity_ = capacity;
  return true;
}

// The pair is ours already (load()); only the position in the tree goes.
void MemoryCursor::detach() {
  if (!attached_) return;
  attached_ = false;
  leaf_ = nullptr;
  block_fast_path();
}

void MemoryCursor::orphan() {
  detach();
  store_ = nullptr;
  prev_ = next_ = nullptr;
}

// next() left the fast path: the limit is spent, the cursor is detached, or
// index_ has just stepped onto stop_ (reverse: below it).
void MemoryCursor::next_slow() {
  assert(valid_);
  if (remaining_ == 0) return finish();
  if (!attached_) return reseek();
  const btree::Node* leaf = leaf_;
  if (!reverse_) {
    if (stop_ < leaf->count || leaf->next == nullptr) return finish();
    leaf_ = leaf->next;
    index_ = 0;
  } else {
    if (stop_ > 0 || leaf->prev == nullptr) return finish();
    leaf_ = leaf->prev;
    index_ = leaf_->count - 1;
  }
  if (!enter_leaf()) return finish();
  load();
}

void MemoryCursor::start() {
  out_of_memory_ = false;
  remaining_ = options_.limit == 0 ? std::numeric_limits<uint64_t>::max() : options_.limit;
  if (store_ == nullptr || (!end_.empty() && compare_bytes(begin_, end_) >= 0)) {
    return finish();
  }
  const BTree& tree = store_->tree_;
  if (!reverse_) return land(tree.lower_bound(begin_));
  land(end_.empty() ? tree.last() : before(tree.lower_bound(end_)));
}

// After a write: continue from the key we were on, as the tree is now.
void MemoryCursor::reseek() {
  if (store_ == nullptr) return finish();
  const BTree& tree = store_->tree_;
  if (!reverse_) return land(tree.upper_bound(key_));
  land(before(tree.lower_bound(key_)));
}

BTree::Pos MemoryCursor::before(BTree::Pos p) const {
  return p.leaf != nullptr ? BTree::prev(p) : store_->tree_.last();
}

void MemoryCursor::land(BTree::Pos p) {
  if (p.leaf == nullptr) return finish();
  leaf_ = p.leaf;
  index_ = p.index;
  if (!enter_leaf()) return finish();
  valid_ = attached_ = true;
  load();
}

// Sets stop_ for leaf_, so that next() checks the range once per leaf, not
// once per key; false when index_ is already outside the range.
bool MemoryCursor::enter_leaf() {
  const btree::Node* leaf = leaf_;
  if (!reverse_) {
    if (end_.empty() || compare_bytes(leaf->key(leaf->count - 1), end_) < 0) {
      stop_ = leaf->count;
    } else {
      stop_ = BTree::lower_bound_in(leaf, end_);
    }
    if (leaf->next != nullptr) __builtin_prefetch(leaf->next);
    return index_ < stop_;
  }
  if (begin_.empty() || compare_bytes(leaf->key(0), begin_) >= 0) {
    stop_ = 0;
  } else {
    stop_ = BTree::lower_bound_in(leaf, begin_);
  }
  if (leaf->prev != nullptr) __builtin_prefetch(leaf->prev);
  return index_ >= stop_;
}

void MemoryCursor::finish() {
  valid_ = attached_ = false;
  leaf_ = nullptr;
  key_ = value_ = BytesView();
  block_fast_path();
}

// ---- UndoLog ----

void MemoryStore::UndoLog::before_change(BytesView key, const BytesView* old_value) {
  const BytesView value = old_value != nullptr ? *old_value : BytesView();
  const char had = old_value != nullptr ? 1 : 0;
  const auto klen = static_cast<uint32_t>(key.size());
  const auto vlen = static_cast<uint32_t>(value.size());
  const size_t start = buf_.size();
  // Both allocations come before either container changes, so a bad_alloc
  // leaves the log as it was (the write it was for does not happen).
  if (starts_.size() == starts_.capacity()) starts_.reserve(std::max<size_t>(16, 2 * starts_.capacity()));
  buf_.resize(start + 9 + key.size() + value.size());
  starts_.push_back(start);  // within capacity: cannot throw
  char* p = buf_.data() + start;
  p[0] = had;
  std::memcpy(p + 1, &klen, 4);
  std::memcpy(p + 5, &vlen, 4);
  if (klen != 0) std::memcpy(p + 9, key.data(), klen);
  if (vlen != 0) std::memcpy(p + 9 + klen, value.data(), vlen);
}

void MemoryStore::UndoLog::undo_to(size_t n, BTree* tree) {
  for (size_t i = starts_.size(); i > n; --i) {
    const char* p = buf_.data() + starts_[i - 1];
    uint32_t klen;
    uint32_t vlen;
    std::memcpy(&klen, p + 1, 4);
    std::memcpy(&vlen, p + 5, 4);
    const BytesView key(p + 9, klen);
    if (p[0] != 0) {
      tree->put(key, BytesView(p + 9 + klen, vlen), nullptr);
    } else {
      tree->erase(key, nullptr);
    }
  }
  if (n < starts_.size()) {
    buf_.resize(starts_[n]);
    starts_.resize(n);
  }
}

void MemoryStore::UndoLog::clear() {
  buf_.clear();
  starts_.clear();
  // A huge transaction should not pin its log's memory for good.
  if (buf_.capacity() > (size_t{1} << 20)) std::string().swap(buf_);
  if (starts_.capacity() > (size_t{1} << 16)) std::vector<size_t>().swap(starts_);
}

// ---- MemoryStore ----

MemoryStore::MemoryStore() = default;

MemoryStore::~MemoryStore() {
  for (MemoryCursor* c = cursors_; c != nullptr;) {
    MemoryCursor* next = c->next_in_store();
    c->orphan();
    c = next;
  }
}

void MemoryStore::detach_cursors() {
  for (MemoryCursor* c = cursors_; c != nullptr; c = c->next_in_store()) c->detach();
}

void MemoryStore::begin_write() {
  ++version_;
  detach_cursors();
}

namespace {
Status check_length(BytesView b, const char* what) {
  if (b.size() <= btree::kMaxLength) return Status::OK();
  return Status::TooBig(std::string("memory store: ") + what + " longer than 4 GiB - 1");
}
}  // namespace

Status MemoryStore::get(BytesView key, Bytes* value, bool* found) {
  *found = tree_.get(key, value);
  return Status::OK();
}

Status MemoryStore::set(BytesView key, BytesView value) {
  TUPLEKV_RETURN_IF_ERROR(check_length(key, "key"));
  TUPLEKV_RETURN_IF_ERROR(check_length(value, "value"));
  begin_write();
  tree_.put(key, value, sink());
  return Status::OK();
}

Status MemoryStore::insert(BytesView key, BytesView value, bool* inserted) {
  *inserted = false;
  if (tree_.get(key, nullptr)) return Status::OK();
  TUPLEKV_RETURN_IF_ERROR(set(key, value));
  *inserted = true;
  return Status::OK();
}

Status MemoryStore::clear(BytesView key) {
  begin_write();
  tree_.erase(key, sink());
  return Status::OK();
}

Status MemoryStore::clear_range(BytesView begin, BytesView end) {
  begin_write();
  tree_.erase_range(begin, end, sink());
  return Status::OK();
}

Result<std::unique_ptr<Cursor>> MemoryStore::scan(const KeyRange& range,
                                                  const ScanOptions& options) {
  return std::unique_ptr<Cursor>(new MemoryCursor(this, range, options));
}

Status MemoryStore::begin() {
  joining_ = in_transaction_;
  in_transaction_ = true;
  return Status::OK();
}

Status MemoryStore::commit() {
  in_transaction_ = false;
  made_in_transaction_ = false;
  joining_ = false;
  undo_.clear();
  marks_.clear();
  return Status::OK();
}

Status MemoryStore::rollback() {
  if (in_transaction_) undo_to(0);
  return commit();
}

bool MemoryStore::rollback_could_change() const {
  if (!in_transaction_ || undo_.size() == 0) return false;
  if (!made_in_transaction_) return true;
  // Marks ascend in undo_size: the oldest one undoes the most.
  return !marks_.empty() && marks_.front().undo_size < undo_.size();
}

void MemoryStore::undo_to(size_t n) {
  if (n >= undo_.size()) return;
  begin_write();
  undo_.undo_to(n, &tree_);
}

Status MemoryStore::savepoint(int n) {
  // begin() already marks level -1 (see core/store.h).
  if (n < 0 || !in_transaction_) return Status::OK();
  // A joiner's first savepoint names a level already open: its mark, if
  // the store has one, holds the writes made since (see the file comment).
  const bool join = joining_;
  joining_ = false;
  // A store that begins inside savepoints 0..n-1 hears only savepoint(n),
  // and rolling back to any of those levels must undo its writes too. Before
  // its first write every level holds the same state: mark them all (not
  // below kStatementLevel, which is no level of SQLite's).
  if (!join && n < kStatementLevel && marks_.empty() && undo_.size() == 0) {
    for (int level = 0; level < n; ++level) marks_.push_back(Mark{level, 0});
  }
  while (!marks_.empty() && marks_.back().level > n) marks_.pop_back();
  if (join && !marks_.empty() && marks_.back().level == n) return Status::OK();
  if (!marks_.empty() && marks_.back().level == n) marks_.pop_back();
  marks_.push_back(Mark{n, undo_.size()});
  return Status::OK();
}

Status MemoryStore::release(int n) {
  joining_ = false;
  if (n < 0) n = 0;
  while (!marks_.empty() && marks_.back().level >= n) marks_.pop_back();
  return Status::OK();
}

Status MemoryStore::rollback_to(int n) {
  joining_ = false;
  if (!in_transaction_) return Status::OK();
  if (n < 0) {
    undo_to(0);
    marks_.clear();
    return Status::OK();
  }
  size_t k = 0;
  while (k < marks_.size() && marks_[k].level < n) ++k;
  // Mark n, else the lowest above it; with none at or above n, the newest
  // below it (see the file comment), else begin().
  size_t target = 0;
  if (k < marks_.size()) {
    target = marks_[k].undo_size;
  } else if (!marks_.empty()) {
    target = marks_.back().undo_size;
  }
  undo_to(target);
  marks_.resize(k);
  marks_.push_back(Mark{n, target});
  return Status::OK();
}

MemoryStoreStats MemoryStore::stats() const {
  const btree::TreeStats t = tree_.stats();
  MemoryStoreStats s;
  s.keys = t.keys;
  s.leaves = t.leaves;
  s.inner_nodes = t.inner_nodes;
  s.height = t.height;
  s.node_bytes = t.node_bytes;
  s.blob_bytes = t.blob_bytes;
  s.key_value_bytes = t.key_value_bytes;
  s.undo_records = undo_.size();
  s.undo_bytes = undo_.bytes();
  return s;
}

}  // namespace tuplekv
