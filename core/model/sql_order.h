// SQLite's order over packed tuple elements.
//
// Tuple order sorts by type class first: byte strings, text, integers,
// doubles. SQLite sorts NULL, then numbers by value (integers and reals
// together, compared exactly), then text, then blobs, each of those byte
// for byte under BINARY collation. The two agree on a typed column (every
// value of one class) and disagree on an ANY column, where a scan in key
// order visits 1, 2.5, 2 and 'x' as 'x', 1, 2, 2.5 while SQLite visits
// 1, 2, 2.5, 'x'. Where the visiting order shows through a query (the
// first row of a GROUP BY, min() over 0 and 0.0, LIMIT without ORDER BY),
// tables with ANY keys sort what they read by append_sql_sort_key();
// sql_compare_packed() states the same order directly.
//
//   sql_compare_packed(pack(2), pack(2.5))     < 0   (tuple order: < 0)
//   sql_compare_packed(pack("x"), pack(1))     > 0   (tuple order: < 0)
//   sql_compare_packed(pack(2), pack(2.0))     == 0  (one value to SQLite)
//   sql_compare_packed(pack(1, "b"), pack(1.0, "c")) < 0  (element by element)
//
// Elements of types SQL never writes (booleans, UUIDs, nested tuples, ...)
// sort after blobs, byte for byte; bytes that do not decode sort after
// every element, byte for byte from where decoding stopped. Every byte
// sequence gets a total order, so damaged keys cannot break a sort.
#ifndef TUPLEKV_CORE_MODEL_SQL_ORDER_H_
#define TUPLEKV_CORE_MODEL_SQL_ORDER_H_

#include "core/bytes.h"

namespace tuplekv::model {

// Negative, zero or positive as SQLite orders two sequences of packed
// elements: element by element, a proper prefix first.
int sql_compare_packed(BytesView a, BytesView b);

// Appends to *out a sort key for a sequence of packed elements: bytes whose
// order under compare_bytes() is sql_compare_packed()'s order, so that a
// sort decodes each key once rather than at every comparison. Per element,
// a class byte, then for a number the largest double not above it (in the
// order-preserving bits of tuple-spec §7) and what an integer exceeds it
// by, for text and blobs their escaped encoding (already in byte order).
void append_sql_sort_key(BytesView packed, Bytes* out);

}  // namespace tuplekv::model

#endif  // TUPLEKV_CORE_MODEL_SQL_ORDER_H_
