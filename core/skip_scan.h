// Skip-scan: reading a key range whose first element is unconstrained but
// whose later elements are, by visiting each distinct first element in
// turn.
//
// For keys prefix + e0 + rest, where the query constrains `rest` but not
// e0, a plain scan reads every key under the prefix. A skip-scan finds the
// first e0 with one seek, scans the ranges of `rest` under prefix + e0
// (the ScanSpec that core/plan.h builds for a skip plan, whose ranges are
// relative to prefix + e0), then seeks past every key starting with
// prefix + e0 to the next first element, and so on. It pays off when the
// first element has few distinct values; the planner decides that from
// count_leading_elements().
//
//   SkipScan scan;
//   TUPLEKV_RETURN_IF_ERROR(scan.start(store, prefix, spec, keys_only));
//   while (scan.valid()) {
//     use(scan.key(), scan.value());
//     TUPLEKV_RETURN_IF_ERROR(scan.next());
//   }
//
// Keys come in key order (reverse order when spec.reverse). Writes between
// steps are allowed as for any Cursor: the scan goes on from the next key
// or group as the store holds them then.
//
// Thread safety: none, as for the store it reads.
#ifndef TUPLEKV_CORE_SKIP_SCAN_H_
#define TUPLEKV_CORE_SKIP_SCAN_H_

#include <cstdint>
#include <memory>

#include "core/bytes.h"
#include "core/plan.h"
#include "core/status.h"
#include "core/store.h"

namespace tuplekv {

class SkipScan {
 public:
  // Starts on the first matching key. `spec` (spec.skip set) must outlive
  // the scan, as must `store`. A first element that does not decode is
  // kCorruption.
  Status start(OrderedStore* store, BytesView prefix, const ScanSpec* spec, bool keys_only);

  bool valid() const { return valid_; }
  // REQUIRES: valid(). Stay valid until the next call to next() or start().
  BytesView key() const;
  BytesView value() const;
  Status next();

  // Releases the store's cursors (start() opens new ones).
  void reset() {
    probe_.reset();
    scan_.reset();
    store_ = nullptr;
    valid_ = false;
  }

  // Seeks made so far: group searches plus ranges opened or keys looked up.
  uint64_t seeks() const { return seeks_; }

 private:
  // Finds the next group from bound_ and opens its first range.
  Status next_group();
  // Opens ranges from range_ on in the current group; at the end of the
  // group moves to the next one.
  Status open_range();
  // The absolute range `i` (in spec order) of the current group.
  void absolute_range(size_t i, KeyRange* out) const;

  OrderedStore* store_ = nullptr;
  const ScanSpec* spec_ = nullptr;
  Bytes prefix_;
  ScanOptions options_;
  Bytes bound_;        // forward: where the next group starts at the earliest;
                       // reverse: where the previous group ends (exclusive)
  Bytes group_;        // prefix + the current first element
  size_t range_ = 0;   // ranges of the group opened so far
  bool valid_ = false;
  std::unique_ptr<Cursor> probe_;  // finds groups
  std::unique_ptr<Cursor> scan_;   // scans ranges
  KeyRange range_buf_;
  Bytes point_key_;
  Bytes point_value_;
  bool on_point_ = false;
  uint64_t seeks_ = 0;
};

// The number of distinct first elements of keys under `prefix`, counted by
// seeking from one to the next: sets *count to at most `limit` + 1 (more
// than `limit`: stopped there). kCorruption when a first element does not
// decode.
Status count_leading_elements(OrderedStore* store, BytesView prefix, size_t limit, size_t* count);

}  // namespace tuplekv

#endif  // TUPLEKV_CORE_SKIP_SCAN_H_
