// SQL values <-> tuple elements, and the subtypes that carry tuple types
// through SQL expressions.
//
// SQL has five storage classes; the tuple layer has twelve element types.
// Reading an SQL value (value_to_element):
//
//   SQL value                              tuple element
//   NULL                                   null
//   INTEGER                                int
//   REAL                                   double
//   TEXT                                   string (must be valid UTF-8)
//   BLOB                                   bytes
//   BLOB with subtype kElementSubtype      the one element it holds (tuple_bool(), raw ...)
//   BLOB with subtype kTupleSubtype        a nested tuple (tuple_pack(), ...)
//
// Subtypes are honoured only where the caller asks for it (tuple_pack's
// arguments). SQLite keeps a subtype while a value passes directly from a
// function (or a tuple_each column, or a scalar subquery) into another
// function's argument; it is gone once the value is stored in a table or
// comes out of a FROM-clause subquery or view, and such a BLOB is bytes.
//
// Writing an element as an SQL result (result_element), e.g. tuple_each's
// `value` column:
//
//   tuple element     SQL value
//   null              NULL
//   int               INTEGER
//   big int           TEXT, the decimal digits (SQLite's INTEGER is 64-bit)
//   double, float32   REAL (float32 widened exactly; a NaN becomes NULL,
//                     since SQLite has no NaN)
//   string            TEXT
//   bytes             BLOB
//   bool              INTEGER 1 / 0
//   UUID              TEXT, canonical 8-4-4-4-12 lower-case (tuple_uuid()
//                     reads it back)
//   versionstamp      BLOB, the 12 bytes
//   user type         BLOB, the payload (tuple_each's `type` column and
//                     `raw` say which code)
//   nested tuple      BLOB, the children packed as a tuple, with subtype
//                     kTupleSubtype (so tuple_unpack, tuple_each and
//                     tuple_pack's nesting all work on it)
//
// Every element type that SQL lacks is therefore lossy as a `value`; the
// exact element is always available as its encoded bytes (tuple_each's
// `raw`, which carries kElementSubtype so tuple_pack(raw) keeps the type).
#ifndef TUPLEKV_EXT_VALUES_H_
#define TUPLEKV_EXT_VALUES_H_

#include <string_view>

#include "core/status.h"
#include "core/tuple.h"
#include "ext/sqlite_api.h"

namespace tuplekv::ext {

// Subtypes (sqlite3_result_subtype) on BLOBs made by tuple functions.
// SQLite keeps only the low 8 bits; json1 uses 74 ('J'), so we use letters
// that no SQLite-bundled extension uses.
//   kElementSubtype: the BLOB is the encoding of exactly one element
//     (tuple_bool, tuple_uuid, tuple_float, tuple_bigint, tuple_versionstamp,
//     tuple_each's raw). tuple_pack splices that element in.
//   kTupleSubtype: the BLOB is a packed tuple (tuple_pack, tuple_pack_json,
//     tuple_each's value for a nested tuple). tuple_pack nests it.
inline constexpr unsigned int kElementSubtype = 'E';  // 69
inline constexpr unsigned int kTupleSubtype = 'T';    // 84

// Reads `v` as one tuple element (table above). With `honor_subtypes`
// false, a BLOB is always bytes. Errors are kInvalidArgument with a message
// that does not name the value ("TEXT is not valid UTF-8"); callers add
// their context with Status::with_context("tuple_pack: argument 2"). They
// are: TEXT that is not valid UTF-8, and a subtype-tagged BLOB that does not
// decode (another extension using the same subtype number). An incomplete
// versionstamp is returned as is (pack() refuses it).
Status value_to_element(sqlite3_value* v, bool honor_subtypes, TupleValue* out);

// Sets the result of `ctx` to `v` as an SQL value (table above). Fails only
// when SQLite cannot allocate (then the context already says SQLITE_NOMEM
// or SQLITE_TOOBIG) or on a tuple pack() would refuse for other reasons.
Status result_element(sqlite3_context* ctx, const TupleValue& v);

// result_element() of the element at the front of *in, advancing *in past
// it. The common types (null, int64, double, float, bool, strings and bytes
// without escapes) go from the packed bytes straight to SQLite without a
// TupleValue: this is the per-row path of every scan. Decoding errors are
// kCorruption naming the offset within *in.
Status result_packed_element(sqlite3_context* ctx, BytesView* in);

// The SQL value of an element decode_scalar_element() (core/tuple.h) read:
// the per-column path of a table scan, for elements a row split framed.
// Other elements go through result_packed_element().
void result_scalar_element(sqlite3_context* ctx, const ScalarElement& e);

// Packs the children of a nested tuple the way they would pack at top level,
// accepting incomplete versionstamps (which can occur in decoded input):
// what result_element returns for a nested tuple. Replaces *out.
Status pack_children(const Tuple& children, Bytes* out);

// The message of a core status without its component prefix ("tuple: ",
// "tuple JSON: ", "bigint: ", "strinc: "), for SQL messages that start with
// the SQL function's own name instead.
std::string_view core_detail(const Status& s);

// "NULL", "INTEGER", "REAL", "TEXT" or "BLOB" for a sqlite3_value_type(),
// for messages such as "argument must be a BLOB, got TEXT".
const char* storage_class_name(int sqlite_type);

// `name` as an SQL identifier in double quotes ("a""b" for a"b).
std::string quote_identifier(std::string_view name);

// Views of an argument's bytes: valid until the value changes; empty for
// NULL and for an empty BLOB or TEXT.
BytesView blob_view(sqlite3_value* v);
std::string_view text_view(sqlite3_value* v);

// sqlite3_result_blob / _text with a copy of `b`, reporting SQLITE_TOOBIG
// for anything over 2 GiB instead of truncating.
void result_blob(sqlite3_context* ctx, BytesView b);
void result_text(sqlite3_context* ctx, std::string_view s);
// result_text() for a string that holds no NUL and is followed by one
// (s.data()[s.size()] == '\0'), which SQLite then never needs to add.
void result_nul_terminated_text(sqlite3_context* ctx, std::string_view s);

// The same results for a row SQLite's output registers have held nothing
// in yet: the one row of a point lookup made by a cursor's first xFilter.
// SQLite frees a statement's registers when a run ends, so each TEXT or
// BLOB result of a new run needs a new buffer, and SQLite's allocator is
// slow: Debian builds SQLite without lookaside, so every allocation and
// free takes a mutex and updates statistics (~275 instructions a pair,
// callgrind). These hand SQLite a malloc'd copy with free() as its
// destructor instead, a third of that. Nowhere else: from the second row
// on, a SQLITE_TRANSIENT copy reuses the register's buffer, which a
// malloc'd result would have given up. Measured (callgrind, 100k rows,
// unpaired): table_bench Lookup/sqlite 13,090 -> 12,601 instructions per
// lookup; copying the first row of every scan as well cost its prefix
// scans 0.4%. `s` holds no NUL.
void result_scalar_element_in_fresh_register(sqlite3_context* ctx, const ScalarElement& e);
void result_blob_in_fresh_register(sqlite3_context* ctx, BytesView b);
void result_nul_terminated_text_in_fresh_register(sqlite3_context* ctx, std::string_view s);

// Whether `db` keeps text in UTF-8 (PRAGMA encoding), as the byte-level
// readings of TEXT need. kIOError when it cannot be read.
Result<bool> database_is_utf8(sqlite3* db);

}  // namespace tuplekv::ext

#endif  // TUPLEKV_EXT_VALUES_H_
