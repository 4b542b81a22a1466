// Framing and decoding a row's elements in one pass: the per-row step of a
// table scan.
//
// A scan splits every stored row into its columns and then reads most of
// them. Splitting needs each element's type code and terminator; decoding
// needs them again. frame_element() does both at once, and is inline
// because it runs once per column per row, where a call costs as much as
// the work.
//
//   ScalarElement e;
//   FramedAs as;
//   const size_t n = frame_element(rest, &e, &as);  // 0: not framed here
//   if (as == FramedAs::kUncheckedText && !scalar_text_is_valid(e)) ...
#ifndef TUPLEKV_CORE_TUPLE_FRAME_H_
#define TUPLEKV_CORE_TUPLE_FRAME_H_

#include <bit>
#include <cstdint>
#include <cstring>

#include "core/bytes.h"
#include "core/tuple.h"
#include "core/tuple_internal.h"

namespace tuplekv {

// What frame_element() made of an element.
enum class FramedAs : uint8_t {
  kOther,          // not one decode_scalar_element accepts: read it with TupleReader
  kScalar,         // *out holds it, exactly as decode_scalar_element gives it
  kUncheckedText,  // *out holds a kString whose UTF-8 is still unchecked:
                   // decode_scalar_element accepts it iff scalar_text_is_valid()
};

// Frames the element at the front of `in` and, when it is a common scalar
// (null, int64, double, or string or bytes without escapes, canonically
// encoded), decodes it into *out. decode_scalar_element is this applied to
// exactly one element. A string's
// UTF-8 is left to the reader, so columns nobody reads cost nothing more.
// Returns the element's size as quick_element_size() gives it: 0 for what
// that does not size, with *as == kOther.
inline size_t frame_element(BytesView in, ScalarElement* out, FramedAs* as);

// Whether a kString from frame_element() is valid UTF-8.
inline bool scalar_text_is_valid(const ScalarElement& e);

// ---------------------------------------------------------------------------
// Implementation

[[gnu::always_inline]] inline size_t frame_element(BytesView in, ScalarElement* out, FramedAs* as) {
  *as = FramedAs::kOther;
  const size_t avail = in.size();
  if (avail == 0) return 0;
  const auto* p = reinterpret_cast<const uint8_t*>(in.data());
  const uint8_t code = p[0];
  // Most common codes first; every other code goes to quick_element_size.
  if (code >= 0x0d && code <= 0x1b) {
    const bool positive = code >= 0x14;
    const size_t n = positive ? code - 0x14u : 0x14u - code;
    if (avail < 1 + n) return 0;
    out->type = ElementType::kInt;
    if (positive) {
      // A leading 00 byte is a non-canonical encoding.
      if (n > 0 && p[1] == 0x00) return 1 + n;
      out->int_value = static_cast<int64_t>(internal::load_be(p + 1, n));
    } else {
      if (p[1] == 0xff) return 1 + n;
      out->int_value = static_cast<int64_t>(internal::load_be(p + 1, n)) -
                       static_cast<int64_t>((uint64_t{1} << (8 * n)) - 1);
    }
    *as = FramedAs::kScalar;
    return 1 + n;
  }
  if (code == 0x01 || code == 0x02) {
    const void* z = std::memchr(p + 1, 0, avail - 1);
    if (z == nullptr) return 0;
    const size_t at = static_cast<size_t>(static_cast<const uint8_t*>(z) - p);
    // 00 FF is an escaped NUL, not the terminator: quick_element_size walks
    // the escapes.
    if (at + 1 < avail && p[at + 1] == 0xff) return quick_element_size(in);
    out->type = code == 0x02 ? ElementType::kString : ElementType::kBytes;
    out->payload = BytesView(in.data() + 1, at - 1);
    *as = code == 0x02 ? FramedAs::kUncheckedText : FramedAs::kScalar;
    return at + 1;
  }
  if (code == 0x21) {
    if (avail < 9) return 0;
    uint64_t key;
    std::memcpy(&key, p + 1, sizeof key);
    if constexpr (std::endian::native == std::endian::little) key = __builtin_bswap64(key);
    out->type = ElementType::kDouble;
    out->double_bits = internal::double_raw_bits(key);
    *as = FramedAs::kScalar;
    return 9;
  }
  if (code == 0x00) {
    out->type = ElementType::kNull;
    *as = FramedAs::kScalar;
    return 1;
  }
  return quick_element_size(in);
}

inline bool scalar_text_is_valid(const ScalarElement& e) {
  if (internal::is_ascii(reinterpret_cast<const uint8_t*>(e.payload.data()), e.payload.size())) {
    return true;
  }
  return is_valid_utf8(e.payload);
}

}  // namespace tuplekv

#endif  // TUPLEKV_CORE_TUPLE_FRAME_H_
