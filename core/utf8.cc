// UTF-8 validation for tuple strings (tuple-spec §4): the codec refuses to
// write or read anything that is not well-formed UTF-8, so a key written here
// decodes the same way in every FoundationDB binding.
#include <cstring>

#include "core/tuple.h"
#include "core/tuple_internal.h"

namespace tuplekv {
namespace internal {

size_t utf8_error_offset(const uint8_t* p, size_t n) {
  size_t i = 0;
  while (i < n) {
    // Keys are mostly ASCII: skip eight such bytes per step.
    while (i + 8 <= n) {
      uint64_t w;
      std::memcpy(&w, p + i, 8);
      if (w & 0x8080808080808080ull) break;
      i += 8;
    }
    if (i >= n) break;
    const uint8_t b = p[i];
    if (b < 0x80) {
      ++i;
      continue;
    }
    // The lead byte fixes the length and the allowed range of the first
    // continuation byte, which is what excludes overlongs, surrogates and
    // code points above U+10FFFF.
    size_t len;
    uint8_t lo = 0x80, hi = 0xBF;
    if (b >= 0xC2 && b <= 0xDF) {
      len = 2;
    } else if (b >= 0xE0 && b <= 0xEF) {
      len = 3;
      if (b == 0xE0) lo = 0xA0;
      if (b == 0xED) hi = 0x9F;
    } else if (b >= 0xF0 && b <= 0xF4) {
      len = 4;
      if (b == 0xF0) lo = 0x90;
      if (b == 0xF4) hi = 0x8F;
    } else {
      return i;
    }
    if (n - i < len) return i;
    if (p[i + 1] < lo || p[i + 1] > hi) return i;
    for (size_t k = 2; k < len; ++k) {
      if ((p[i + k] & 0xC0) != 0x80) return i;
    }
    i += len;
  }
  return n;
}

}  // namespace internal

bool is_valid_utf8(std::string_view s) {
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  return internal::is_ascii(p, s.size()) || internal::utf8_error_offset(p, s.size()) == s.size();
}

std::string quote_for_message(std::string_view s, char quote, size_t max_bytes) {
  static const char kHex[] = "0123456789abcdef";
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  std::string out(1, quote);
  auto escape = [&](uint8_t b) {
    out += "\\x";
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 15]);
  };
  size_t i = 0;
  while (i < s.size()) {
    const uint8_t b = p[i];
    const size_t len = b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
    const bool valid = b >= 0x80 && i + len <= s.size() && internal::utf8_error_offset(p + i, len) == len;
    if (i + (valid ? len : 1) > max_bytes) {
      out += "...";
      break;
    }
    if (valid) {
      out.append(s.substr(i, len));
      i += len;
    } else if (b < 0x20 || b >= 0x7F) {
      escape(b);
      ++i;
    } else {
      out.push_back(static_cast<char>(b));
      ++i;
    }
  }
  out.push_back(quote);
  return out;
}

}  // namespace tuplekv
