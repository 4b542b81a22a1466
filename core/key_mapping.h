// KeyMapping and mapped scans: a range read that returns, for each key it
// visits, the value of another key derived from it. This is FoundationDB's
// mapped range read (getMappedRange) cut down to the one mapping tuplekv
// needs: from a secondary-index entry to the row it points at, so that an
// index scan reads each row in the same step as its entry.
//
//   scanned key   [from_prefix bytes] e1 ... e_skip  rest...   (tuple elements)
//   mapped key    to_prefix  rest...
//
// With the table layout (core/model/table.h) an index entry
// pack((I, indexed values..., key...)) maps to its row pack((S, key...))
// with from_prefix = size of pack((I,)), skip = the number of indexed
// columns and to_prefix = pack((S,)).
//
// OrderedStore::scan_mapped (core/store.h) runs a mapped scan; the
// default here reads each mapped key with get(), and a store that can join
// inside one read (SqliteStore) overrides it.
#ifndef TUPLEKV_CORE_KEY_MAPPING_H_
#define TUPLEKV_CORE_KEY_MAPPING_H_

#include <cstddef>
#include <memory>

#include "core/bytes.h"
#include "core/status.h"

namespace tuplekv {

class Cursor;
class OrderedStore;
struct KeyRange;
struct ScanOptions;

struct KeyMapping {
  size_t from_prefix = 0;  // bytes of every scanned key before its elements
  size_t skip = 0;         // elements after them that the mapped key drops
  Bytes to_prefix;         // what the mapped key starts with instead

  friend bool operator==(const KeyMapping&, const KeyMapping&) = default;
};

// The part of `key` that a mapping keeps: what follows its first
// `from_prefix` bytes and the `skip` elements after them. False when `key`
// is too short or a skipped element does not decode.
bool mapped_suffix(BytesView key, size_t from_prefix, size_t skip, BytesView* suffix);

// Sets *out to the mapped key of `key`. False, leaving *out unspecified,
// when `key` is shorter than from_prefix or one of its skipped elements
// does not decode: a key that maps to nothing, never an error, because
// the caller reports the bad key with its own context.
bool map_key(const KeyMapping& mapping, BytesView key, Bytes* out);

// The mapped scan any store can run: `store->scan(range, options)` with
// one `store->get()` per key. The cursor's value() is the mapped key's
// value, held in the cursor's own buffer.
Result<std::unique_ptr<Cursor>> scan_mapped_by_get(OrderedStore* store, const KeyRange& range,
                                                   const ScanOptions& options,
                                                   const KeyMapping& mapping);

}  // namespace tuplekv

#endif  // TUPLEKV_CORE_KEY_MAPPING_H_
