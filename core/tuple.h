// The FoundationDB tuple layer: pack, unpack, compare, strinc, range.
//
// A packed tuple is the concatenation of its elements' encodings; each
// element starts with a type code (TypeCode below). The encoding preserves
// order: for tuples a and b, compare(a, b) has the sign of
// compare_bytes(pack(a), pack(b)). Keys written here are byte-for-byte the
// keys FoundationDB's Python, Java and Go bindings write, so a keyspace can
// move to a FoundationDB cluster unchanged.
//
// Every element type is supported: null, bytes, unicode string, nested tuple,
// integers of every width up to 255 bytes of magnitude, float32 and double
// (raw bits kept: -0.0, infinities and NaN payloads survive), bool, UUID,
// 96-bit versionstamps (complete and incomplete) and user type codes.
//
// Decoding is strict and never trusts its input: truncation, an unknown or
// reserved type code, a missing terminator, invalid UTF-8 in a string, an
// integer over 255 bytes or a non-minimal integer encoding is a kCorruption
// status whose message names the byte offset. The decoder also accepts the
// Python binding's non-canonical encodings of +-(2^64-1) (0x1D 0x08 ... and
// 0x0B 0xF7 ...); re-encoding such a value writes the canonical 0x1C/0x0C
// form.
//
// Example:
//   Tuple t = {TupleValue::string("users"), TupleValue::int64(123456)};
//   Bytes key;
//   TUPLEKV_RETURN_IF_ERROR(pack(t, &key));      // 02 75 73 65 72 73 00 17 01 E2 40
//   Tuple back;
//   TUPLEKV_RETURN_IF_ERROR(unpack(key, &back));  // back == t
#ifndef TUPLEKV_CORE_TUPLE_H_
#define TUPLEKV_CORE_TUPLE_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/bigint.h"
#include "core/bytes.h"
#include "core/status.h"

namespace tuplekv {

// Type codes, with the byte values of the spec (tuple-spec §2, FDB
// design/tuple.md). Codes marked reserved are rejected by the decoder.
enum class TypeCode : uint8_t {
  kNull = 0x00,            // top level: 00; inside a nested tuple: 00 FF
  kBytes = 0x01,           // escaped bytes (00 -> 00 FF), then 00
  kString = 0x02,          // UTF-8, escaped like kBytes, then 00
  // 0x03, 0x04: deprecated nested-tuple start/end (reserved)
  kNested = 0x05,          // children (null child as 00 FF), then 00
  // 0x0A: reserved (negative arbitrary-precision, spare)
  kNegIntArbitrary = 0x0B, // len ^ 0xFF, then len bytes of one's complement
  kNegInt8 = 0x0C,         // 0x0C..0x13: negative, 8..1 bytes, one's complement
  kNegInt1 = 0x13,
  kIntZero = 0x14,
  kPosInt1 = 0x15,         // 0x15..0x1C: positive, 1..8 bytes, big-endian
  kPosInt8 = 0x1C,
  kPosIntArbitrary = 0x1D, // len, then len bytes big-endian
  // 0x1E: reserved (positive arbitrary-precision, spare)
  kFloat = 0x20,           // IEEE binary32, 4 bytes, sign-transformed
  kDouble = 0x21,          // IEEE binary64, 8 bytes, sign-transformed
  // 0x22: 80-bit long double (reserved); 0x23, 0x24: decimal (reserved)
  // 0x25: deprecated "true" (reserved)
  kFalse = 0x26,
  kTrue = 0x27,
  kUuid = 0x30,            // 16 bytes, RFC 4122 network order
  // 0x31: 64-bit identifier (reserved); 0x32: 80-bit versionstamp (reserved)
  kVersionstamp96 = 0x33,  // 12 bytes: 8 commit version, 2 batch, 2 user
  kUserFirst = 0x40,       // 0x40..0x4F: user types; raw bytes to the end
  kUserLast = 0x4F,
  kEscape = 0xFF,          // never a type code
};

// The kind of value an element holds. Integers that fit int64 are always
// kInt; kBigInt is only used for values outside int64's range.
enum class ElementType : uint8_t {
  kNull,
  kBytes,
  kString,
  kNested,
  kInt,
  kBigInt,
  kFloat,
  kDouble,
  kBool,
  kUuid,
  kVersionstamp,
  kUser,
};

// A stable lower-case name for an element type ("null", "bytes", "string",
// "tuple", "int", "int" (for kBigInt too), "float", "double", "bool",
// "uuid", "versionstamp", "user").
std::string_view element_type_name(ElementType t);

class TupleValue;
using Tuple = std::vector<TupleValue>;

using Uuid = std::array<uint8_t, 16>;
using Versionstamp = std::array<uint8_t, 12>;

// One tuple element. A small value type; copies are deep.
class TupleValue {
 public:
  TupleValue() = default;  // null

  static TupleValue null() { return TupleValue(); }
  static TupleValue bytes(BytesView b);
  // `utf8` should be valid UTF-8; pack() rejects it otherwise.
  static TupleValue string(std::string_view utf8);
  static TupleValue nested(Tuple children);
  static TupleValue int64(int64_t v);
  // Normalises: a value that fits int64 becomes kInt.
  static TupleValue integer(BigInt v);
  static TupleValue float32(float v);
  static TupleValue float32_bits(uint32_t raw_ieee_bits);
  static TupleValue float64(double v);
  static TupleValue float64_bits(uint64_t raw_ieee_bits);
  static TupleValue boolean(bool v);
  static TupleValue uuid(const Uuid& v);
  // An incomplete versionstamp has its first 10 bytes all 0xFF.
  static TupleValue versionstamp(const Versionstamp& v);
  // `code` must be in 0x40..0x4F; `data` is the raw payload.
  static TupleValue user(uint8_t code, BytesView data);

  ElementType type() const { return type_; }
  bool is_null() const { return type_ == ElementType::kNull; }

  // Accessors. REQUIRES: type() is the one named.
  int64_t as_int64() const;                 // kInt
  const BigInt& as_bigint() const;          // kBigInt
  BytesView as_bytes() const;               // kBytes, kString, kUser (payload)
  std::string_view as_string() const;       // kString
  const Tuple& as_nested() const;           // kNested
  Tuple& mutable_nested();                  // kNested
  uint32_t float32_bits() const;            // kFloat
  float as_float() const;                   // kFloat
  uint64_t float64_bits() const;            // kDouble
  double as_double() const;                 // kDouble
  bool as_bool() const;                     // kBool
  const Uuid& as_uuid() const;              // kUuid
  const Versionstamp& as_versionstamp() const;  // kVersionstamp
  bool versionstamp_complete() const;       // kVersionstamp
  uint8_t user_code() const;                // kUser

  // Structural equality: same type and same value; floats compare by raw
  // bits (so -0.0 != 0.0 and NaNs with equal payloads are equal), which is
  // equality of their packed forms.
  bool operator==(const TupleValue& o) const;
  bool operator!=(const TupleValue& o) const { return !(*this == o); }

 private:
  using Storage = std::variant<std::monostate,  // null, bool, float bits in u_
                               Bytes,           // bytes, string, user payload
                               Tuple,           // nested
                               BigInt,          // big integers
                               Uuid, Versionstamp>;
  ElementType type_ = ElementType::kNull;
  uint8_t user_code_ = 0;
  uint64_t u_ = 0;  // int64 (as bits), float/double raw bits, bool
  Storage s_;
};

// ---------------------------------------------------------------------------
// Packing

// Appends the encoding of every element of `t` to *out. Fails with
// kInvalidArgument (and leaves *out as it was) on a string that is not valid
// UTF-8, an incomplete versionstamp (use pack_with_versionstamp), a user
// element that is not the last element, or a user code outside 0x40..0x4F.
Status pack(const Tuple& t, Bytes* out);

// Appends the encoding of one top-level element.
Status pack_element(const TupleValue& v, Bytes* out);

// pack_element() of an int64 or a double, which cannot fail: the per-row
// and per-lookup paths of the table models, without building a TupleValue.
void append_int64_element(int64_t v, Bytes* out);
void append_double_element(double v, Bytes* out);
// pack_element() of a string (whose UTF-8 the caller has checked) or of
// bytes: the payload with each NUL escaped as 00 FF, then 00.
void append_string_element(std::string_view s, Bytes* out);
void append_bytes_element(BytesView b, Bytes* out);

// pack() into a new buffer.
Result<Bytes> packed(const Tuple& t);

// Like pack(), but incomplete versionstamps (any number of them, at any
// depth) are written as they are instead of refused. unpack() accepts them,
// so this is the exact inverse of unpack() on every valid input: for
// round trips of bytes that already exist (the JSON form). Keys meant for
// FoundationDB are written with pack() or pack_with_versionstamp().
Status pack_allow_incomplete(const Tuple& t, Bytes* out);

// FoundationDB's pack_with_versionstamp: `t` must contain exactly one
// incomplete versionstamp (possibly inside a nested tuple). Appends the
// packed tuple, then the byte offset of the stamp's 10-byte transaction
// version within the packed tuple plus `prefix_len` (the length of whatever
// the caller puts in front, e.g. a subspace prefix), as 4 bytes little-endian
// (API version >= 520).
Status pack_with_versionstamp(const Tuple& t, size_t prefix_len, Bytes* out);

// ---------------------------------------------------------------------------
// Unpacking

// Decodes all of `packed` into *out (replacing its contents). On failure
// returns kCorruption naming the byte offset, and *out is unspecified.
Status unpack(BytesView packed, Tuple* out);

// Decodes one top-level element from the front of *in and advances *in past
// it. `base_offset` is the offset of in->data() within the whole buffer,
// used only in error messages.
Status decode_element(BytesView* in, TupleValue* out, size_t base_offset = 0);

// A zero-allocation iterator over the top-level elements of packed bytes.
//
//   TupleReader r(key);
//   while (r.next()) {
//     if (r.type() == ElementType::kInt) use(r.int64_value());
//   }
//   if (!r.status().ok()) ...
// The size of the top-level element at the start of `in`, from its type
// code and terminator alone: its contents are not checked (UTF-8,
// canonical integers), so a caller that uses the element must still decode
// it. 0 when `in` is empty or truncated, or for codes this does not size
// (nested tuples, arbitrary-precision integers, user types): fall back to
// TupleReader then. Cheap enough to split a row into its columns.
size_t quick_element_size(BytesView in);

// The size of the top-level element at the start of `in`: quick_element_size
// when it can tell, else the full decoder's (which also checks the element).
// kCorruption naming the offset when no element starts there.
Status element_size(BytesView in, size_t* size);

class TupleReader {
 public:
  explicit TupleReader(BytesView packed) : all_(packed) {}
  // Reads the elements from byte `start` of `packed` on (an element
  // boundary, such as the end of a key's prefix). Error messages count
  // bytes from the start of `packed`, so they point into the whole key.
  // REQUIRES: start <= packed.size().
  TupleReader(BytesView packed, size_t start) : all_(packed), pos_(start) {}

  // Moves to the next element. Returns false at the end of the input or on
  // a decoding error (status() says which).
  bool next();

  const Status& status() const { return status_; }
  bool at_end() const { return status_.ok() && pos_ >= all_.size(); }

  // The current element. REQUIRES: the last next() returned true.
  ElementType type() const { return type_; }
  TypeCode code() const { return static_cast<TypeCode>(raw_[0]); }
  BytesView raw() const { return raw_; }       // the whole encoded element
  size_t offset() const { return raw_offset_; }  // of raw() within the input
  BytesView rest() const { return all_.substr(pos_); }  // after the element

  // Fast accessors; no allocation.
  int64_t int64_value() const;      // REQUIRES: type() == kInt
  uint64_t double_bits() const;     // REQUIRES: type() == kDouble
  uint32_t float_bits() const;      // REQUIRES: type() == kFloat
  bool bool_value() const;          // REQUIRES: type() == kBool
  // For kBytes/kString: the escaped payload between the code and the
  // terminator; equal to the value when has_escapes() is false.
  BytesView escaped_payload() const;
  bool has_escapes() const { return has_escapes_; }
  // Full decode of the current element (allocates for strings, nested, ...).
  Status decode(TupleValue* out) const;

 private:
  bool fast_next();

  BytesView all_;
  size_t pos_ = 0;
  size_t raw_offset_ = 0;
  BytesView raw_;
  ElementType type_ = ElementType::kNull;
  bool has_escapes_ = false;
  int64_t int_ = 0;
  Status status_;
};

// One element of the kinds a table column mostly holds, decoded from exactly
// its bytes (as quick_element_size() framed them). The per-column read of
// a scan: no reader state, and a string's terminator is already known.
struct ScalarElement {
  ElementType type = ElementType::kNull;  // kNull, kInt, kDouble, kString or kBytes
  int64_t int_value = 0;                  // kInt
  uint64_t double_bits = 0;               // kDouble: raw IEEE bits
  BytesView payload;                      // kString, kBytes: the value, followed
                                          // in memory by the 00 terminator
};

// Decodes `element` when it is exactly one null, int64, double, or string or
// byte string without escapes, canonically encoded (strings valid UTF-8).
// False for everything else, which TupleReader then decodes or reports:
// other types, escapes, non-canonical or malformed bytes, trailing bytes.
bool decode_scalar_element(BytesView element, ScalarElement* out);

// ---------------------------------------------------------------------------
// Order, ranges, text

// Compares two values / tuples by the tuple order (type class first, then
// value; a proper prefix first). Has the sign of compare_bytes() of their
// packed forms.
int compare(const TupleValue& a, const TupleValue& b);
int compare(const Tuple& a, const Tuple& b);

// FoundationDB strinc: strip trailing 0xFF bytes, then increment the last
// byte. kInvalidArgument when `key` is empty or all 0xFF.
Result<Bytes> strinc(BytesView key);

// FoundationDB's Tuple.range(): [prefix + 00, prefix + FF), every key that
// strictly extends the packed tuple `prefix`.
KeyRange range(BytesView packed_prefix);

// Whether `key` is the packed tuple `packed_prefix` or extends it by more
// elements. Not has_prefix(): a key whose last string or bytes element
// merely goes on is another tuple, ('a', 1) is under ('a',) but
// ('a\0b',) is not, though its bytes 02 61 00 FF 62 00 start with
// 02 61 00. No element's encoding starts with 0xFF, an escaped NUL's
// second byte does. REQUIRES: packed_prefix is whole elements.
bool has_tuple_prefix(BytesView key, BytesView packed_prefix);

// The end of the keys has_tuple_prefix() finds: packed_prefix + FF. (Their
// start is packed_prefix itself; strinc(packed_prefix) would be past keys
// like ('a\0b',) too.)
Bytes tuple_prefix_end(BytesView packed_prefix);

// A readable, Python-like rendering, e.g. ('CA', 'Alameda', 42, b'\x00',
// None, True, 1.5, (1, 2)). Used by tuple_repr(); not meant to be parsed.
std::string repr(const Tuple& t);
std::string repr(const TupleValue& v);
// repr() of the tuple `packed` unpacks to, or x'<hex>' when it does not
// unpack: a stored key in words, for messages about a damaged store.
std::string repr_packed(BytesView packed);

// True when `s` is well-formed UTF-8 (no overlongs, no surrogates, <= U+10FFFF).
bool is_valid_utf8(std::string_view s);

// `s` as an error message quotes it: between two `quote`s, at most
// `max_bytes` of it (cut on a character boundary, "..." marking the cut),
// every byte that is not part of well-formed UTF-8 and every control
// character written as \xNN. The result is valid UTF-8 on one line
// whatever `s` holds, so a message never passes bad input on to a caller
// that decodes it.
std::string quote_for_message(std::string_view s, char quote = '\'', size_t max_bytes = 40);

}  // namespace tuplekv

#endif  // TUPLEKV_CORE_TUPLE_H_
