// The JSON form of tuples: what tuple_unpack() prints and tuple_pack_json()
// reads. It is lossless: every tuple, and so every valid packed key, has one
// JSON spelling, and reading it back gives the same tuple.
//
// A tuple is a JSON array; each element is written as follows.
//
//   element         JSON                                   example
//   null            null                                   null
//   integer         a JSON integer with every digit        -12, 18446744073709551616
//   double          the shortest number that reads back    1.0, -2.5, 1e+300,
//                   to the same bits, always with '.' or   0.0001, 1e-05,
//                   an exponent (Python's repr() spelling: 1.2345678901234568e+20
//                   positional from 1e-4 to 1e16);
//                   otherwise {"$double": S} with S one of
//                   "nan" (the quiet NaN 0x7ff8000000000000), "inf", "-inf",
//                   "-0.0" or "0x" + the 16 hex digits of the raw IEEE bits
//                   (any other NaN)
//   float32         {"$float": N} with N the shortest      {"$float":1.5}
//                   decimal that reads back as the same
//                   float32 (same spelling as doubles), or
//                   the same strings as $double with "nan" =
//                   0x7fc00000 and 8 hex digits
//   string          a JSON string (UTF-8 kept as is;       "caf\u00e9" in, "café" out
//                   '"', '\\', controls and DEL escaped:  "a\u0000b" (NUL)
//                   \n \t \r \b \f, others as \u00XX)
//   bytes           {"$bytes": lower-case hex}             {"$bytes":"00ff"}
//   bool            true / false
//   UUID            {"$uuid": 32 lower-case hex digits}
//   versionstamp    {"$versionstamp": 24 lower-case hex digits} (incomplete ones too)
//   user type       {"$user": code 64..79, "data": hex}    {"$user":64,"data":"0102"}
//   nested tuple    a JSON array                           [1, [2, null]]
//
// Reading (tuple_from_json) is strict: the text must be one JSON array and
// nothing else (whitespace aside), valid UTF-8, with no lone surrogate
// escapes. A number without '.', 'e' or 'E' is an integer (of any size up to
// 255 bytes of magnitude); with one of them it is a double, rounded exactly
// as IEEE round-to-nearest (std::from_chars), and must be finite and in
// range (1e400 is an error, and so is 1e-400, which would become 0).
// Objects must be one of the tagged forms above: unknown tags, extra or
// duplicate keys, or a payload of the wrong type or length are errors.
// Reading also accepts a few spellings that writing never produces: hex in
// either case, a UUID with dashes (8-4-4-4-12), {"$double": N} and
// {"$double": "0x…"} for any double, "-0.0" etc. as plain numbers.
//
// Nesting is limited as in the codec: at most 1000 arrays inside the
// top-level one. A byte-order mark is an error, not skipped.
//
// Errors are kInvalidArgument with a message that starts with "tuple JSON: "
// and says what is wrong and where: a byte offset into the text and, inside
// the array, the element path in the codec's style ("element 2.0" is the
// first child of the third element), e.g.
//   tuple JSON: invalid JSON at byte 3: content after the top-level array
//   tuple JSON: element 1 at byte 5: unknown tag "$foo" (known: ...)
// Quoted input in a message is cut to 40 bytes.
//
// Round trip: tuple_from_json(tuple_to_json(t)) == t for every tuple t that
// pack() accepts, and also for tuples holding incomplete versionstamps. So
// pack_allow_incomplete(tuple_from_json(tuple_to_json(unpack(b)))) == b for
// every valid packed b (pack() too, when b has no incomplete versionstamp),
// except the Python binding's non-canonical encodings of +-(2^64-1)
// (1D 08 FF.. / 0B F7 00..), which unpack to the same integer and re-pack in
// the canonical 1C / 0C form.
//
// Example:
//   std::string json;
//   TUPLEKV_RETURN_IF_ERROR(tuple_to_json(t, &json));  // ["users",42,{"$bytes":"00"}]
//   Tuple back;
//   TUPLEKV_RETURN_IF_ERROR(tuple_from_json(json, &back));  // back == t
#ifndef TUPLEKV_CORE_TUPLE_JSON_H_
#define TUPLEKV_CORE_TUPLE_JSON_H_

#include <string>
#include <string_view>

#include "core/status.h"
#include "core/tuple.h"

namespace tuplekv {

// Writes the JSON form of `t` to *out (replacing its contents). Compact: no
// spaces. Fails with kInvalidArgument (and leaves *out unspecified) only for
// a tuple that could not be packed either: a string that is not valid UTF-8
// or a user type code outside 0x40..0x4F.
Status tuple_to_json(const Tuple& t, std::string* out);

// Parses the JSON form in `json` into *out (replacing its contents). On
// failure returns kInvalidArgument (see above) and *out is unspecified.
Status tuple_from_json(std::string_view json, Tuple* out);

// Parses the text forms of a UUID accepted by the JSON form and by SQL's
// tuple_uuid(): 32 hex digits, or 8-4-4-4-12 hex digits with dashes; either
// case. Returns false on anything else.
bool parse_uuid_text(std::string_view text, Uuid* out);

// The canonical text form of a UUID: 8-4-4-4-12 lower-case hex digits.
std::string uuid_text(const Uuid& u);

}  // namespace tuplekv

#endif  // TUPLEKV_CORE_TUPLE_JSON_H_
