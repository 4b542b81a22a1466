// WriteBatch: entries in a vector, found through an open-addressing index
// of their positions; key and value bytes in blocks that never move.
#include "core/write_batch.h"

#include <algorithm>
#include <cstring>

namespace tuplekv {
namespace {

constexpr size_t kMinBlock = 64 * 1024;
constexpr size_t kMaxBlock = 1024 * 1024;
// reset() keeps this much of its blocks and index for the next batch.
constexpr size_t kKeptBytes = 4 * 1024 * 1024;

}  // namespace

WriteBatch::WriteBatch() = default;
WriteBatch::~WriteBatch() = default;

const WriteBatch::Entry* WriteBatch::find(BytesView key, uint64_t hash) const {
  if (slots_.empty()) return nullptr;
  const size_t mask = slots_.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    const uint32_t s = slots_[i];
    if (s == 0) return nullptr;
    const Entry& e = entries_[s - 1];
    if (e.key == key) return &e;
  }
}

WriteBatch::Entry* WriteBatch::find_or_add(BytesView key, uint64_t hash, bool* added) {
  // At most half full, so every probe ends at an empty slot.
  if ((entries_.size() + 1) * 2 > slots_.size()) grow_index();
  const size_t mask = slots_.size() - 1;
  size_t i = hash & mask;
  for (;; i = (i + 1) & mask) {
    const uint32_t s = slots_[i];
    if (s == 0) break;
    Entry& e = entries_[s - 1];
    if (e.key == key) {
      *added = false;
      return &e;
    }
  }
  // A failed allocation anywhere here leaves the batch as it was (the
  // copied bytes aside), so a write that throws has not happened.
  Entry e;
  e.key = copy(key);
  entries_.push_back(e);
  if (keep_ordered_) {
    try {
      ordered_.emplace(e.key, static_cast<uint32_t>(entries_.size() - 1));
    } catch (...) {
      entries_.pop_back();
      throw;
    }
  }
  slots_[i] = static_cast<uint32_t>(entries_.size());
  *added = true;
  return &entries_.back();
}

void WriteBatch::grow_index() {
  slots_.assign(slots_.empty() ? 1024 : slots_.size() * 2, 0);
  index_entries();
}

void WriteBatch::index_entries() {
  const size_t mask = slots_.size() - 1;
  for (size_t k = 0; k < entries_.size(); ++k) {
    size_t i = hash_bytes(entries_[k].key) & mask;
    while (slots_[i] != 0) i = (i + 1) & mask;
    slots_[i] = static_cast<uint32_t>(k + 1);
  }
}

BytesView WriteBatch::copy(BytesView b) {
  if (b.empty()) return BytesView();
  if (blocks_.empty() || block_size_ - block_used_ < b.size()) {
    // Blocks double up to kMaxBlock; a bigger pair gets a block of its own.
    const size_t next = blocks_.empty() ? kMinBlock : std::min(block_size_ * 2, kMaxBlock);
    const size_t size = std::max(next, b.size());
    blocks_.push_back(std::make_unique<char[]>(size));  // the sizes change after
    block_size_ = size;
    block_used_ = 0;
    bytes_ += size;
  }
  char* at = blocks_.back().get() + block_used_;
  std::memcpy(at, b.data(), b.size());
  block_used_ += b.size();
  return BytesView(at, b.size());
}

// The value is copied before the entry is found or made: an entry added
// and then left without its value would read as a clear.
void WriteBatch::insert(BytesView key, BytesView value, uint64_t hash) {
  const BytesView v = copy(value);
  bool added = false;
  Entry* e = find_or_add(key, hash, &added);
  if (added) e->absent_below = true;
  if (!added) log_for_mark(e);
  e->value = v;
  e->has_value = true;
}

void WriteBatch::set(BytesView key, BytesView value) {
  const BytesView v = copy(value);
  bool added = false;
  Entry* e = find_or_add(key, hash_bytes(key), &added);
  if (!added) log_for_mark(e);
  e->value = v;
  e->has_value = true;
}

void WriteBatch::clear(BytesView key) {
  bool added = false;
  Entry* e = find_or_add(key, hash_bytes(key), &added);
  if (!added) log_for_mark(e);
  e->value = BytesView();
  e->has_value = false;
}

void WriteBatch::log_for_mark(const Entry* e) {
  const auto i = static_cast<size_t>(e - entries_.data());
  if (!marked_ || i >= mark_entries_) return;
  // Before the entry changes: should this throw, the write has not happened.
  mark_log_.emplace_back(static_cast<uint32_t>(i), *e);
}

void WriteBatch::mark() {
  mark_log_.clear();
  mark_entries_ = entries_.size();
  marked_ = true;
}

void WriteBatch::forget_mark() {
  marked_ = false;
  mark_log_.clear();
}

void WriteBatch::undo_to_mark() {
  if (!marked_) return;
  for (auto it = mark_log_.rbegin(); it != mark_log_.rend(); ++it) entries_[it->first] = it->second;
  if (entries_.size() > mark_entries_) {
    if (keep_ordered_) {
      for (size_t i = mark_entries_; i < entries_.size(); ++i) ordered_.erase(entries_[i].key);
    }
    entries_.resize(mark_entries_);
    // The index held the removed entries too: rebuild it at its size.
    std::fill(slots_.begin(), slots_.end(), 0);
    index_entries();
  }
  forget_mark();
}

size_t WriteBatch::memory() const {
  // A map node: the pair and three pointers and a colour, rounded up.
  constexpr size_t kOrderedNode = 64;
  return bytes_ + entries_.capacity() * sizeof(Entry) + slots_.capacity() * sizeof(uint32_t) +
         ordered_.size() * kOrderedNode;
}


namespace {

// Sorting keys eight bytes at a time: each pass sorts small records by the
// next eight bytes as one integer, then sorts each run that ties by the
// eight after them. Comparisons read integers held in the array rather
// than memcmp through a pointer, and keys share long prefixes (a table's
// subspace, an index's), which a plain comparison sort compares again and
// again.
struct SortItem {
  uint64_t head;  // key bytes [depth, depth + 8), big-endian, zero-padded
  uint64_t rest;  // bytes of the key from depth on, capped at 9: ties
                  // with rest < 9 are keys that end here, shorter first
  const WriteBatch::Entry* entry;
};

constexpr size_t kMaxRadixDepth = 256;  // then memcmp what is left

void load_head(SortItem* it, size_t depth) {
  const BytesView key = it->entry->key;
  const size_t left = key.size() > depth ? key.size() - depth : 0;
  unsigned char b[8] = {};
  if (left > 0) std::memcpy(b, key.data() + depth, left < 8 ? left : 8);
  uint64_t h = 0;
  for (unsigned char c : b) h = (h << 8) | c;
  it->head = h;
  it->rest = left > 8 ? 9 : left;
}

// How many bytes from `depth` on every key in [begin, end) shares.
size_t common_prefix(const SortItem* begin, const SortItem* end, size_t depth) {
  const BytesView first = begin->entry->key;
  size_t n = first.size() > depth ? first.size() - depth : 0;
  for (const SortItem* p = begin + 1; p != end && n > 0; ++p) {
    const BytesView k = p->entry->key;
    const size_t m = std::min(n, k.size() > depth ? k.size() - depth : 0);
    size_t i = 0;
    while (i < m && k[depth + i] == first[depth + i]) ++i;
    n = i;
  }
  return n;
}

void sort_items(SortItem* begin, SortItem* end, size_t depth) {
  if (end - begin < 2) return;
  // Keys of one subspace share its prefix (an index's name, a column's
  // common start): skip it, or every pass would tie on it.
  depth += common_prefix(begin, end, depth);
  if (depth >= kMaxRadixDepth) {
    std::sort(begin, end, [](const SortItem& a, const SortItem& b) {
      return compare_bytes(a.entry->key, b.entry->key) < 0;
    });
    return;
  }
  for (SortItem* p = begin; p != end; ++p) load_head(p, depth);
  std::sort(begin, end, [](const SortItem& a, const SortItem& b) {
    return a.head != b.head ? a.head < b.head : a.rest < b.rest;
  });
  for (SortItem* p = begin; p != end;) {
    SortItem* q = p + 1;
    while (q != end && q->head == p->head && q->rest == p->rest) ++q;
    // Keys are unique, so only keys that go on past these eight bytes tie.
    if (q - p > 1) sort_items(p, q, depth + 8);
    p = q;
  }
}

// The entries (but kNone ones when `live`) in key order.
void sort_entries(const std::vector<WriteBatch::Entry>& entries, bool live,
                  std::vector<SortItem>* items) {
  items->clear();
  items->reserve(entries.size());
  for (const WriteBatch::Entry& e : entries) {
    if (!live || e.kind() != WriteBatch::Kind::kNone) items->push_back(SortItem{0, 0, &e});
  }
  sort_items(items->data(), items->data() + items->size(), 0);
}

}  // namespace

void WriteBatch::sorted(std::vector<const Entry*>* out) const {
  if (keep_ordered_) {
    out->clear();
    out->reserve(ordered_.size());
    for (const auto& [key, i] : ordered_) {
      if (entries_[i].kind() != Kind::kNone) out->push_back(&entries_[i]);
    }
    return;
  }
  std::vector<SortItem> items;
  sort_entries(entries_, true, &items);
  out->clear();
  out->reserve(items.size());
  for (const SortItem& it : items) out->push_back(it.entry);
}

void WriteBatch::reset() {
  forget_mark();
  const bool keep = memory() <= kKeptBytes;
  keep_ordered_ = false;
  ordered_.clear();
  entries_.clear();
  if (keep) {
    std::fill(slots_.begin(), slots_.end(), 0);
    // The newest block is the biggest; older ones go.
    if (blocks_.size() > 1) {
      std::unique_ptr<char[]> last = std::move(blocks_.back());
      blocks_.clear();
      blocks_.push_back(std::move(last));
      bytes_ = block_size_;
    }
    block_used_ = 0;
    return;
  }
  std::vector<Entry>().swap(entries_);
  std::vector<uint32_t>().swap(slots_);
  blocks_.clear();
  block_size_ = block_used_ = bytes_ = 0;
}

const WriteBatch::Ordered& WriteBatch::ordered() {
  if (!keep_ordered_) {
    keep_ordered_ = true;
    std::vector<SortItem> items;
    sort_entries(entries_, false, &items);
    for (const SortItem& it : items) {
      ordered_.emplace_hint(ordered_.end(), it.entry->key,
                            static_cast<uint32_t>(it.entry - entries_.data()));
    }
  }
  return ordered_;
}

}  // namespace tuplekv
