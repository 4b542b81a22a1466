#include "core/absent_keys.h"


namespace tuplekv {
namespace {

// hash_bytes, never 0 (the empty slot).
uint64_t slot_hash(uint64_t hash) { return hash == 0 ? 1 : hash; }

}  // namespace

bool AbsentKeys::maybe_written_hash(uint64_t hash) const {
  if (written_count_ == 0) return false;
  const uint64_t h = slot_hash(hash);
  const size_t mask = written_.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    if (written_[i] == h) return true;
    if (written_[i] == 0) return false;
  }
}

bool AbsentKeys::in_range(BytesView key) const {
  if (last_ < ranges_.size() && contains(ranges_[last_], key)) return true;
  for (size_t i = 0; i < ranges_.size(); ++i) {
    if (contains(ranges_[i], key)) {
      last_ = i;
      return true;
    }
  }
  return false;
}

bool AbsentKeys::known_absent(BytesView key, uint64_t hash) const {
  return in_range(key) && !maybe_written_hash(hash);
}

void AbsentKeys::add_range(BytesView begin, BytesView end) {
  if (!end.empty() && compare_bytes(begin, end) >= 0) return;
  Range merged{Bytes(begin), Bytes(end)};
  // Fold in every range that overlaps or touches the new one.
  for (size_t i = 0; i < ranges_.size();) {
    const Range& r = ranges_[i];
    const bool before = !r.end.empty() && compare_bytes(r.end, merged.begin) < 0;
    const bool after = !merged.end.empty() && compare_bytes(merged.end, r.begin) < 0;
    if (before || after) {
      ++i;
      continue;
    }
    if (compare_bytes(r.begin, merged.begin) < 0) merged.begin = r.begin;
    if (merged.end.empty() || r.end.empty()) {
      merged.end.clear();
    } else if (compare_bytes(r.end, merged.end) > 0) {
      merged.end = r.end;
    }
    ranges_.erase(ranges_.begin() + static_cast<std::ptrdiff_t>(i));
  }
  if (ranges_.size() == kMaxRanges) ranges_.erase(ranges_.begin());  // the oldest
  ranges_.push_back(std::move(merged));
  last_ = ranges_.size() - 1;
}

void AbsentKeys::wrote_below(BytesView key) {
  if (ranges_.empty()) return;  // nothing it could make untrue
  if (written_count_ >= kMaxWritten) {
    clear();
    return;
  }
  if ((written_count_ + 1) * 2 > written_.size()) grow_written();
  const uint64_t h = slot_hash(hash_bytes(key));
  const size_t mask = written_.size() - 1;
  size_t i = h & mask;
  while (written_[i] != 0) {
    if (written_[i] == h) return;
    i = (i + 1) & mask;
  }
  written_[i] = h;
  ++written_count_;
}

void AbsentKeys::grow_written() {
  // Allocated before anything changes, so a failure leaves the set whole.
  std::vector<uint64_t> grown(written_.empty() ? 1024 : written_.size() * 2, 0);
  const size_t mask = grown.size() - 1;
  for (uint64_t h : written_) {
    if (h == 0) continue;
    size_t i = h & mask;
    while (grown[i] != 0) i = (i + 1) & mask;
    grown[i] = h;
  }
  written_.swap(grown);
}

void AbsentKeys::clear() {
  ranges_.clear();
  last_ = 0;
  written_.clear();
  written_count_ = 0;
}

}  // namespace tuplekv
