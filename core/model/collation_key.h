// Key elements for columns with SQLite's NOCASE or RTRIM collation.
//
// Under NOCASE, 'Ann' and 'ann' are one value: a primary key holds only
// one of them, a UNIQUE index refuses the second, and both sort as 'ann'.
// Under RTRIM the same holds for 'ann' and 'ann  '. Keys are compared byte
// for byte, so such a column's key element is not its value but the
// value's collation key, a string element whose byte order is the
// collation's order and whose equality is the collation's equality:
//
//   NOCASE  'Ann'    -> 'ann'       ASCII A-Z folded, as SQLite folds
//   RTRIM   'ann  '  -> 'ann'       trailing spaces dropped
//
// The value as written is stored with the row (TableLayout), so SELECT
// still returns 'Ann'. Numbers, blobs and NULL are their own collation
// keys: a collation orders text only.
//
// One corner of SQLite's NOCASE is kept too: it compares text only up to a
// NUL byte and then compares lengths, so 'a\0x' and 'a\0y' are equal and
// 'a\0' sorts below 'a\0xy'. Text holding a NUL therefore keys as the
// folded text before the NUL, a NUL, then its length in bytes as ten
// decimal digits (text is shorter than 2^31 bytes in SQLite).
#ifndef TUPLEKV_CORE_MODEL_COLLATION_KEY_H_
#define TUPLEKV_CORE_MODEL_COLLATION_KEY_H_

#include <string_view>

#include "core/bytes.h"

namespace tuplekv::model {

// Whether a column with collation `name` ("BINARY", "NOCASE", "RTRIM") keys
// text by a collation key rather than by its value.
bool collation_keys_text(std::string_view name);

// Appends to *out the collation key of one packed element under collation
// `name`: a string element's as above, anything else (and every element
// under BINARY) unchanged. Bytes that are not one whole string element are
// appended unchanged too.
void append_collation_key(BytesView element, std::string_view name, Bytes* out);

}  // namespace tuplekv::model

#endif  // TUPLEKV_CORE_MODEL_COLLATION_KEY_H_
