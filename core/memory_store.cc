#include "core/memory_store.h"

#include <cassert>
#include <cstring>
#include <limits>
#include <utility>

namespace tuplekv {

// Declared in the header only as a friend; its definition is private to
// this file. Not in an anonymous namespace because MemoryStore names it.
class MemoryCursor final : public Cursor {
 public:
  MemoryCursor(MemoryStore* store, const KeyRange& range, const ScanOptions& options)
      : store_(store), options_(options), begin_(range.begin), end_(range.end) {
    next_ = store_->cursors_;
    if (next_ != nullptr) next_->prev_ = this;
    store_->cursors_ = this;
    start();
  }
  ~MemoryCursor() override {
    if (store_ == nullptr) return;
    if (prev_ != nullptr) prev_->next_ = next_; else store_->cursors_ = next_;
    if (next_ != nullptr) next_->prev_ = prev_;
  }
  MemoryCursor(const MemoryCursor&) = delete;
  MemoryCursor& operator=(const MemoryCursor&) = delete;

  bool valid() const override { return valid_; }
  BytesView key() const override { return key_; }
  BytesView value() const override { return value_; }
  Status status() const override { return Status::OK(); }

  void next() override {
    assert(valid_);
    if (--remaining_ == 0) return finish();
    if (!attached_) return reseek();
    const btree::Node* leaf = leaf_;
    if (!options_.reverse) {
      if (++index_ == leaf->count) {
        leaf = leaf_ = leaf->next;
        if (leaf == nullptr) return finish();
        index_ = 0;
        enter_leaf();
      }
      key_ = leaf->key(index_);
      if (!leaf_in_range_ && compare_bytes(key_, end_) >= 0) return finish();
    } else {
      if (index_-- == 0) {
        leaf = leaf_ = leaf->prev;
        if (leaf == nullptr) return finish();
        index_ = leaf->count - 1;
        enter_leaf();
      }
      key_ = leaf->key(index_);
      if (!leaf_in_range_ && compare_bytes(key_, begin_) < 0) return finish();
    }
    if (!options_.keys_only) value_ = leaf->value(index_);
  }

  // The limit applies to each range separately.
  Status rescan(const KeyRange& range) override {
    begin_ = range.begin;
    end_ = range.end;
    start();
    return Status::OK();
  }

  // The store is about to change: keep the current pair in our own buffers.
  void detach() {
    if (!attached_) return;
    key_copy_.assign(key_.data(), key_.size());
    key_ = key_copy_;
    if (!options_.keys_only) {
      value_copy_.assign(value_.data(), value_.size());
      value_ = value_copy_;
    }
    attached_ = false;
    leaf_ = nullptr;
  }

  // The store is going away; the cursor ends at its next move.
  void orphan() {
    detach();
    store_ = nullptr;
    prev_ = next_ = nullptr;
  }

  MemoryCursor* next_in_store() const { return next_; }

 private:
  void start() {
    remaining_ = options_.limit == 0 ? std::numeric_limits<uint64_t>::max() : options_.limit;
    if (store_ == nullptr || (!end_.empty() && compare_bytes(begin_, end_) >= 0)) {
      return finish();
    }
    const BTree& tree = store_->tree_;
    if (!options_.reverse) return land(tree.lower_bound(begin_));
    land(end_.empty() ? tree.last() : before(tree.lower_bound(end_)));
  }

  // After a write: continue from the key we were on, as the tree is now.
  void reseek() {
    if (store_ == nullptr) return finish();
    const BTree& tree = store_->tree_;
    if (!options_.reverse) return land(tree.upper_bound(key_copy_));
    land(before(tree.lower_bound(key_copy_)));
  }

  BTree::Pos before(BTree::Pos p) const {
    return p.leaf != nullptr ? BTree::prev(p) : store_->tree_.last();
  }

  void land(BTree::Pos p) {
    if (p.leaf == nullptr) return finish();
    leaf_ = p.leaf;
    index_ = p.index;
    enter_leaf();
    key_ = leaf_->key(index_);
    if (!leaf_in_range_) {
      if (!options_.reverse ? compare_bytes(key_, end_) >= 0 : compare_bytes(key_, begin_) < 0) {
        return finish();
      }
    }
    value_ = options_.keys_only ? BytesView() : leaf_->value(index_);
    valid_ = attached_ = true;
  }

  // When the whole leaf is inside the range, next() skips the bound check
  // for each of its keys.
  void enter_leaf() {
    const btree::Node* leaf = leaf_;
    if (!options_.reverse) {
      leaf_in_range_ = end_.empty() || compare_bytes(leaf->key(leaf->count - 1), end_) < 0;
      if (leaf->next != nullptr) __builtin_prefetch(leaf->next);
    } else {
      leaf_in_range_ = compare_bytes(leaf->key(0), begin_) >= 0;
      if (leaf->prev != nullptr) __builtin_prefetch(leaf->prev);
    }
  }

  void finish() {
    valid_ = attached_ = false;
    leaf_ = nullptr;
    key_ = value_ = BytesView();
  }

  MemoryStore* store_;
  MemoryCursor* prev_ = nullptr;  // the store's list of open cursors
  MemoryCursor* next_ = nullptr;
  const ScanOptions options_;
  Bytes begin_;
  Bytes end_;
  const btree::Node* leaf_ = nullptr;
  int index_ = 0;
  bool valid_ = false;
  bool attached_ = false;  // leaf_, index_ and the views point into the tree
  bool leaf_in_range_ = false;
  uint64_t remaining_ = 0;  // pairs the limit still allows, the current one included
  BytesView key_;
  BytesView value_;
  Bytes key_copy_;  // the current pair while detached
  Bytes value_copy_;
};

// ---- UndoLog ----

void MemoryStore::UndoLog::before_change(BytesView key, const BytesView* old_value) {
  const BytesView value = old_value != nullptr ? *old_value : BytesView();
  const char had = old_value != nullptr ? 1 : 0;
  const auto klen = static_cast<uint32_t>(key.size());
  const auto vlen = static_cast<uint32_t>(value.size());
  const size_t start = buf_.size();
  starts_.push_back(start);
  buf_.resize(start + 9 + key.size() + value.size());
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

void MemoryStore::prepare_write(BytesView* a, BytesView* b) {
  if (cursors_ == nullptr) return;  // then no view into the tree exists
  scratch_a_.assign(a->data(), a->size());
  *a = scratch_a_;
  if (b != nullptr) {
    scratch_b_.assign(b->data(), b->size());
    *b = scratch_b_;
  }
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
  prepare_write(&key, &value);
  tree_.put(key, value, sink());
  return Status::OK();
}

Status MemoryStore::clear(BytesView key) {
  prepare_write(&key, nullptr);
  tree_.erase(key, sink());
  return Status::OK();
}

Status MemoryStore::clear_range(BytesView begin, BytesView end) {
  prepare_write(&begin, &end);
  tree_.erase_range(begin, end, sink());
  return Status::OK();
}

Result<std::unique_ptr<Cursor>> MemoryStore::scan(const KeyRange& range,
                                                  const ScanOptions& options) {
  return std::unique_ptr<Cursor>(new MemoryCursor(this, range, options));
}

Status MemoryStore::begin() {
  in_transaction_ = true;
  return Status::OK();
}

Status MemoryStore::commit() {
  in_transaction_ = false;
  undo_.clear();
  marks_.clear();
  return Status::OK();
}

Status MemoryStore::rollback() {
  if (in_transaction_) undo_to(0);
  return commit();
}

void MemoryStore::undo_to(size_t n) {
  if (n >= undo_.size()) return;
  detach_cursors();
  undo_.undo_to(n, &tree_);
}

Status MemoryStore::savepoint(int n) {
  if (n < 0) return Status::InvalidArgument("memory store: negative savepoint");
  if (!in_transaction_) return Status::OK();
  while (!marks_.empty() && marks_.back().level >= n) marks_.pop_back();
  marks_.push_back(Mark{n, undo_.size()});
  return Status::OK();
}

Status MemoryStore::release(int n) {
  if (n < 0) return Status::InvalidArgument("memory store: negative savepoint");
  while (!marks_.empty() && marks_.back().level >= n) marks_.pop_back();
  return Status::OK();
}

Status MemoryStore::rollback_to(int n) {
  if (n < 0) return Status::InvalidArgument("memory store: negative savepoint");
  if (!in_transaction_) return Status::OK();
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
