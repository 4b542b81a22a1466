#include "core/bytes.h"

namespace tuplekv {

std::string to_hex(BytesView b) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.resize(b.size() * 2);
  for (size_t i = 0; i < b.size(); ++i) {
    const auto c = static_cast<unsigned char>(b[i]);
    out[2 * i] = kDigits[c >> 4];
    out[2 * i + 1] = kDigits[c & 0xF];
  }
  return out;
}

std::string blob_literal(BytesView b) {
  constexpr size_t kMax = 32;
  return "x'" + to_hex(b.substr(0, kMax)) + (b.size() > kMax ? "'..." : "'");
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool from_hex(std::string_view hex, Bytes* out) {
  if (hex.size() % 2 != 0) return false;
  Bytes result;
  result.resize(hex.size() / 2);
  for (size_t i = 0; i < result.size(); ++i) {
    const int hi = hex_digit(hex[2 * i]);
    const int lo = hex_digit(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return false;
    result[i] = static_cast<char>((hi << 4) | lo);
  }
  *out = std::move(result);
  return true;
}

}  // namespace tuplekv
