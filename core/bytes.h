// Byte strings, byte views and key ranges.
//
// Keys and values are arbitrary bytes. We use std::string as the owning
// buffer (small-string optimisation, contiguous, cheap appends) and
// std::string_view as the view; neither implies text.
#ifndef TUPLEKV_CORE_BYTES_H_
#define TUPLEKV_CORE_BYTES_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace tuplekv {

using Bytes = std::string;
using BytesView = std::string_view;

// Unsigned lexicographic order, a proper prefix first: the order of keys in
// FoundationDB and of BLOBs in SQLite. Returns <0, 0 or >0.
inline int compare_bytes(BytesView a, BytesView b) {
  const size_t n = a.size() < b.size() ? a.size() : b.size();
  const int c = n == 0 ? 0 : std::memcmp(a.data(), b.data(), n);
  if (c != 0) return c;
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

// Whether `b` begins with `prefix`.
inline bool has_prefix(BytesView b, BytesView prefix) {
  return b.size() >= prefix.size() &&
         (prefix.empty() || std::memcmp(b.data(), prefix.data(), prefix.size()) == 0);
}

// A 64-bit hash of `b` for in-memory hash tables: eight bytes at a time,
// multiplied and folded, so every output bit depends on every input byte.
// Not stable across versions; never stored.
inline uint64_t hash_bytes(BytesView b) {
  auto fold = [](uint64_t x) {
    x *= 0x9e3779b97f4a7c15ULL;
    return x ^ (x >> 32);
  };
  const char* p = b.data();
  size_t n = b.size();
  uint64_t h = 0x2545f4914f6cdd1dULL ^ n;
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = fold(h ^ w);
  }
  if (n > 0) {
    uint64_t w = 0;
    std::memcpy(&w, p, n);
    h = fold(h ^ w);
  }
  // splitmix64's finish: the low bits, which pick a slot, mix the high ones.
  h ^= h >> 30;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 27;
  h *= 0x94d049bb133111ebULL;
  return h ^ (h >> 31);
}

// Lower-case hex of `b`, for messages and JSON forms.
std::string to_hex(BytesView b);

// `b` as an SQL BLOB literal (x'02610015'), for messages that name stored
// bytes: its first 32 bytes, then "..." when there are more.
std::string blob_literal(BytesView b);

// Parses hex (either case, even length). Returns false on anything else.
bool from_hex(std::string_view hex, Bytes* out);

// The value of one hex digit (either case), or -1.
int hex_digit(char c);

// A half-open key range [begin, end). An empty `end` means "no upper bound"
// (the end of the keyspace); begin == end, or begin > end, is empty.
struct KeyRange {
  Bytes begin;
  Bytes end;

  bool unbounded_end() const { return end.empty(); }
  bool contains(BytesView key) const {
    return compare_bytes(key, begin) >= 0 &&
           (end.empty() || compare_bytes(key, end) < 0);
  }
  bool empty() const { return !end.empty() && compare_bytes(begin, end) >= 0; }
  bool operator==(const KeyRange& o) const { return begin == o.begin && end == o.end; }
};

}  // namespace tuplekv

#endif  // TUPLEKV_CORE_BYTES_H_
