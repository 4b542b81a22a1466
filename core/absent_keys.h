// AbsentKeys: what a store that holds writes back (core/write_batch.h)
// knows about keys absent from the storage below it, so that inserting a
// new key seldom needs a lookup there.
//
// It keeps two things, both valid for one transaction of the storage below
// (clear() at its start and end, and whenever that storage may have
// changed behind the owner's back, such as a rollback):
//   ranges    key ranges the owner has looked at below and found to hold
//             no key but ones it wrote itself (add_range)
//   written   the keys the owner has written below since then
//             (wrote_below), as 64-bit hashes
// A key is known absent when a range holds it and its hash is not among
// the written ones. A hash that matches by accident only sends the owner
// to look below, so the answer is never wrong, only sometimes slower.
//
// Why ranges: a bulk load into an empty table, or in key order, asks below
// once (finding the next key there) and then never again. Why the hashes:
// so that the ranges stay true after the owner applies a batch of new keys
// below, which a load bigger than one batch does.
//
// Memory: ranges are merged and at most kMaxRanges; hashes take ~16 bytes
// per written key, and past kMaxWritten keys everything is forgotten (the
// owner then looks below again, which is correct, only slower).
// Thread safety: none.
#ifndef TUPLEKV_CORE_ABSENT_KEYS_H_
#define TUPLEKV_CORE_ABSENT_KEYS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/bytes.h"

namespace tuplekv {

class AbsentKeys {
 public:
  static constexpr size_t kMaxRanges = 16;
  static constexpr size_t kMaxWritten = size_t{1} << 22;

  // Whether `key` is known to be absent below. `hash`, when given, is
  // hash_bytes(key), which a caller may already have.
  bool known_absent(BytesView key) const { return known_absent(key, hash_bytes(key)); }
  bool known_absent(BytesView key, uint64_t hash) const;
  // Whether a range holds `key` (written or not).
  bool in_range(BytesView key) const;
  // Whether `key` may be one the owner wrote below (then it is never
  // known absent, and a range's look below steps over it).
  bool maybe_written(BytesView key) const { return maybe_written(key, hash_bytes(key)); }
  bool maybe_written(BytesView, uint64_t hash) const { return maybe_written_hash(hash); }

  // Every key below in [begin, end) (empty `end`: to the end of the
  // keyspace) is one that maybe_written() says yes to. Overlapping and
  // touching ranges merge.
  void add_range(BytesView begin, BytesView end);
  // The owner wrote `key` below.
  void wrote_below(BytesView key);

  void clear();
  size_t ranges() const { return ranges_.size(); }

 private:
  struct Range {
    Bytes begin;
    Bytes end;  // exclusive; empty: unbounded
  };
  static bool contains(const Range& r, BytesView key) {
    return compare_bytes(key, r.begin) >= 0 && (r.end.empty() || compare_bytes(key, r.end) < 0);
  }
  void grow_written();
  bool maybe_written_hash(uint64_t hash) const;

  std::vector<Range> ranges_;
  mutable size_t last_ = 0;  // the range that answered last
  std::vector<uint64_t> written_;  // open addressing; 0 is empty
  size_t written_count_ = 0;
};

}  // namespace tuplekv

#endif  // TUPLEKV_CORE_ABSENT_KEYS_H_
