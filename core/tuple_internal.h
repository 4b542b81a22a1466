// Internal helpers shared by the tuple codec's source files. Not part of the
// library API: nothing outside core/tuple*.cc, core/utf8.cc and the
// codec's inline row reader core/tuple_frame.h includes it.
#ifndef TUPLEKV_CORE_TUPLE_INTERNAL_H_
#define TUPLEKV_CORE_TUPLE_INTERNAL_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace tuplekv::internal {

// Nested tuples decode recursively; this bounds the recursion so hostile
// input cannot exhaust the stack. Real keys nest a handful of levels; 128
// keeps the deepest decode, encode and JSON round trip well under 128 KB of
// stack, so a host thread with a small stack survives hostile input too.
inline constexpr int kMaxNestingDepth = 128;

// Offset of the first byte of the first ill-formed sequence in p[0, n), or
// n when the whole range is well-formed UTF-8 (Unicode Table 3-7: no
// overlongs, no surrogates, nothing above U+10FFFF, no truncated sequence).
size_t utf8_error_offset(const uint8_t* p, size_t n);

// Whether p[0, n) is all ASCII. Column text is mostly short ASCII: the
// bytes are ORed together a word at a time (overlapping loads at the end)
// and tested once, rather than byte by byte.
inline bool is_ascii(const uint8_t* p, size_t n) {
  uint64_t high = 0;
  if (n >= 8) {
    for (size_t i = 0; i + 8 <= n; i += 8) {
      uint64_t w;
      std::memcpy(&w, p + i, 8);
      high |= w;
    }
    uint64_t w;
    std::memcpy(&w, p + n - 8, 8);
    high |= w;
  } else if (n >= 4) {
    uint32_t a, b;
    std::memcpy(&a, p, 4);
    std::memcpy(&b, p + n - 4, 4);
    high = a | b;
  } else {
    for (size_t i = 0; i < n; ++i) high |= p[i];
  }
  return (high & 0x8080808080808080ull) == 0;
}

// Appends the shortest decimal text that reads back as exactly `d` (or the
// float32 `f`), spelled the way Python's repr() spells it: positional from
// 1e-4 up to 1e16, always with a digit after the point ("100.0", "0.0001"),
// scientific outside that ("1e+16", "1.5e-07"). Every form has a '.' or an
// exponent, so it reads back as a floating-point number, never an integer.
// REQUIRES: finite. tuple_repr and the JSON form both use it.
void append_shortest(double d, std::string* out);
void append_shortest(float f, std::string* out);

// The order-preserving transforms of tuple-spec §7, on raw IEEE bits: a
// negative number has all its bits inverted, a positive one only its sign
// bit. Unsigned comparison of the results is IEEE totalOrder.
inline uint32_t float_key_bits(uint32_t raw) {
  return (raw & 0x80000000u) ? ~raw : raw ^ 0x80000000u;
}
inline uint32_t float_raw_bits(uint32_t key) {
  return (key & 0x80000000u) ? key ^ 0x80000000u : ~key;
}
inline uint64_t double_key_bits(uint64_t raw) {
  return (raw >> 63) ? ~raw : raw ^ (uint64_t{1} << 63);
}
inline uint64_t double_raw_bits(uint64_t key) {
  return (key >> 63) ? key ^ (uint64_t{1} << 63) : ~key;
}

inline uint64_t load_be(const uint8_t* p, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v = (v << 8) | p[i];
  return v;
}

inline void store_be(uint64_t v, size_t n, uint8_t* p) {
  for (size_t i = n; i-- > 0;) {
    p[i] = static_cast<uint8_t>(v);
    v >>= 8;
  }
}

}  // namespace tuplekv::internal

#endif  // TUPLEKV_CORE_TUPLE_INTERNAL_H_
