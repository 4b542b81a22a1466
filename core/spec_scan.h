// SpecScan: the pairs of an OrderedStore that a ScanSpec (core/plan.h)
// selects, in key order (reverse order when spec.reverse).
//
// A plain spec holds absolute ranges; each is read with one cursor (reused
// from range to range) or, for a point spec, one get() per key.
//
// A skip spec (spec.skip) is a skip-scan: for keys prefix + e0 + rest, where
// the query constrains `rest` but not e0, the ranges are relative to
// prefix + e0. The scan finds the first e0 with one seek, reads the ranges
// under prefix + e0, then seeks past every key starting with prefix + e0 to
// the next first element, and so on. It pays off when the first element
// has few distinct values; the planner decides that from
// count_leading_elements() and count_keys().
//
// A filter spec (spec.skip and spec.filter) is read in one pass instead:
// every key under the prefix, in order, keeping those whose part after the
// first element falls in one of the relative ranges. A mapped one reads
// keys only and looks up the mapped key of each key it keeps, so the
// others cost no lookup.
//
//   SpecScan scan;
//   TUPLEKV_RETURN_IF_ERROR(scan.start(store, prefix, spec, keys_only));
//   while (scan.valid()) {
//     use(scan.key(), scan.value());
//     TUPLEKV_RETURN_IF_ERROR(scan.next());
//   }
//
// With a KeyMapping the scan is mapped (OrderedStore::scan_mapped): key()
// is the key read, value() its mapped key's value and mapped_found() says
// whether there was one. A skip-scan finds its groups by the keys read.
//
// Writes between steps are allowed as for any Cursor: the scan goes on from
// the next key or group as the store holds them then.
//
// Thread safety: none, as for the store it reads.
#ifndef TUPLEKV_CORE_SPEC_SCAN_H_
#define TUPLEKV_CORE_SPEC_SCAN_H_

#include <cstdint>
#include <memory>

#include "core/bytes.h"
#include "core/key_mapping.h"
#include "core/plan.h"
#include "core/status.h"
#include "core/store.h"

namespace tuplekv {

class SpecScan {
 public:
  // Starts on the first matching key. `spec` and `store` must outlive the
  // scan. `prefix` is the subspace the spec was built for (a skip-scan's
  // groups are found under it). For a skip-scan, a first element that does
  // not decode is kCorruption. `mapping`, when given, is copied.
  Status start(OrderedStore* store, BytesView prefix, const ScanSpec* spec, bool keys_only,
               const KeyMapping* mapping = nullptr);

  bool valid() const { return valid_; }
  // REQUIRES: valid(). Stay valid until the next call to next() or start().
  BytesView key() const { return on_point_ ? BytesView(point_key_) : scan_->key(); }
  BytesView value() const { return on_point_ ? BytesView(point_value_) : scan_->value(); }
  // Mapped scans: whether the current key's mapped key exists.
  bool mapped_found() const { return on_point_ ? point_found_ : scan_->mapped_found(); }
  Status next() {
    // The per-row step inline: the same range goes on.
    if (valid_ && !on_point_) {
      scan_->next();
      if (scan_->valid()) return Status::OK();
    }
    return next_range();
  }

  // Releases the store's cursors (start() opens new ones).
  void reset() {
    probe_.reset();
    scan_.reset();
    pass_.reset();
    store_ = nullptr;
    valid_ = false;
  }

  // Seeks made so far: ranges opened or keys looked up, plus a skip-scan's
  // group searches.
  uint64_t seeks() const { return seeks_; }

 private:
  // next() once the current range (or point) is done.
  Status next_range();
  // Skip-scans: finds the next group from bound_ and opens its first range.
  Status next_group();
  // Opens ranges from range_ on (in the current group when skipping).
  Status open_range();
  // A skip-scan's range `i` (in spec order), made absolute for the group.
  void group_range(size_t i, KeyRange* out) const;
  // Filter specs: from scan_'s key on, the first key kept (its pair in the
  // point_ fields), or the end.
  Status next_kept();
  // Whether `rest` (a key after prefix_ and its first element) is in a
  // range of the spec.
  bool kept(BytesView rest) const;

  OrderedStore* store_ = nullptr;
  const ScanSpec* spec_ = nullptr;
  Bytes prefix_;
  ScanOptions options_;
  bool mapped_ = false;
  KeyMapping mapping_;
  Bytes bound_;        // skip, forward: where the next group starts at the
                       // earliest; reverse: where the previous group ends
  Bytes group_;        // skip: prefix + the current first element
  size_t range_ = 0;   // ranges (of the group) opened so far
  bool valid_ = false;
  std::unique_ptr<Cursor> probe_;  // finds groups
  std::unique_ptr<Cursor> scan_;   // scans ranges
  std::unique_ptr<Cursor> pass_;   // reads a filter spec's keys
  KeyRange range_buf_;
  Bytes point_key_;
  Bytes point_value_;
  Bytes point_mapped_key_;
  bool point_found_ = false;
  bool on_point_ = false;
  uint64_t seeks_ = 0;
};

// The number of distinct first elements of keys under `prefix`, counted by
// seeking from one to the next: sets *count to at most `limit` + 1 (more
// than `limit`: stopped there). kCorruption when a first element does not
// decode.
Status count_leading_elements(OrderedStore* store, BytesView prefix, size_t limit, size_t* count);

// The number of keys under `prefix`, read in one keys-only pass that stops
// after `limit`: sets *count to at most `limit`.
Status count_keys(OrderedStore* store, BytesView prefix, size_t limit, size_t* count);

}  // namespace tuplekv

#endif  // TUPLEKV_CORE_SPEC_SCAN_H_
