// Moving a keyspace from one subspace prefix to another, as a table rename
// does when its keys live under the table's name.
#ifndef TUPLEKV_CORE_MOVE_PREFIX_H_
#define TUPLEKV_CORE_MOVE_PREFIX_H_

#include "core/bytes.h"
#include "core/status.h"
#include "core/store.h"

namespace tuplekv {

// Rewrites every pair whose key starts with `from` to the same suffix under
// `to`, then clears the old range, inside the store's current transaction.
// REQUIRES: `from` and `to` are packed tuples (subspace prefixes) that
// differ and are not all 0xFF. Tuple encodings are prefix-free, so the two
// ranges are disjoint and the scan never meets a key it wrote.
//
// `max_key` (0: none) bounds a moved key's size, prefix included: a move
// to a longer prefix that would take a key past it stops with kTooBig,
// whose message gives that key's new size, and leaves the keys it had
// already moved for the caller's transaction to undo.
Status move_prefix(OrderedStore* store, BytesView from, BytesView to, size_t max_key = 0);

}  // namespace tuplekv

#endif  // TUPLEKV_CORE_MOVE_PREFIX_H_
