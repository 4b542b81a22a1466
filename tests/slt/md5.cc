// MD5 as specified by RFC 1321: 64-byte blocks, four rounds of sixteen steps,
// little-endian words, the message padded with 0x80, zeros and its bit length.
#include "tests/slt/md5.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>

namespace tuplekv::slt {
namespace {

// Per-step left-rotation amounts (RFC 1321 section 3.4), four per round.
constexpr int kShift[4][4] = {{7, 12, 17, 22}, {5, 9, 14, 20}, {4, 11, 16, 23}, {6, 10, 15, 21}};

// T[i] = floor(2^32 * |sin(i + 1)|), i in 0..63, as the RFC defines it. The
// known-answer tests in slt_test.cc pin the result.
std::array<uint32_t, 64> make_sine_table() {
  std::array<uint32_t, 64> t{};
  for (int i = 0; i < 64; ++i) {
    t[i] = static_cast<uint32_t>(std::floor(std::fabs(std::sin(static_cast<double>(i + 1))) * 4294967296.0));
  }
  return t;
}

const std::array<uint32_t, 64>& sine_table() {
  static const std::array<uint32_t, 64> table = make_sine_table();
  return table;
}

inline uint32_t rotl(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

inline uint32_t load_le32(const unsigned char* p) {
  return static_cast<uint32_t>(p[0]) | (static_cast<uint32_t>(p[1]) << 8) |
         (static_cast<uint32_t>(p[2]) << 16) | (static_cast<uint32_t>(p[3]) << 24);
}

}  // namespace

Md5::Md5() { reset(); }

void Md5::reset() {
  state_[0] = 0x67452301u;
  state_[1] = 0xefcdab89u;
  state_[2] = 0x98badcfeu;
  state_[3] = 0x10325476u;
  total_bytes_ = 0;
  buffered_ = 0;
}

void Md5::process_block(const unsigned char* block) {
  const std::array<uint32_t, 64>& t = sine_table();
  uint32_t m[16];
  for (int i = 0; i < 16; ++i) m[i] = load_le32(block + 4 * i);
  uint32_t a = state_[0], b = state_[1], c = state_[2], d = state_[3];
  for (int i = 0; i < 64; ++i) {
    const int round = i / 16;
    uint32_t f;
    int word;
    switch (round) {
      case 0:
        f = (b & c) | (~b & d);
        word = i;
        break;
      case 1:
        f = (d & b) | (~d & c);
        word = (5 * i + 1) % 16;
        break;
      case 2:
        f = b ^ c ^ d;
        word = (3 * i + 5) % 16;
        break;
      default:
        f = c ^ (b | ~d);
        word = (7 * i) % 16;
        break;
    }
    const uint32_t sum = a + f + t[i] + m[word];
    a = d;
    d = c;
    c = b;
    b = b + rotl(sum, kShift[round][i % 4]);
  }
  state_[0] += a;
  state_[1] += b;
  state_[2] += c;
  state_[3] += d;
}

void Md5::update(std::string_view data) {
  const auto* p = reinterpret_cast<const unsigned char*>(data.data());
  size_t n = data.size();
  total_bytes_ += n;
  if (buffered_ > 0) {
    const size_t take = std::min(n, sizeof(buffer_) - buffered_);
    std::memcpy(buffer_ + buffered_, p, take);
    buffered_ += take;
    p += take;
    n -= take;
    if (buffered_ < sizeof(buffer_)) return;
    process_block(buffer_);
    buffered_ = 0;
  }
  while (n >= 64) {
    process_block(p);
    p += 64;
    n -= 64;
  }
  std::memcpy(buffer_, p, n);
  buffered_ = n;
}

std::string Md5::hex_digest() {
  const uint64_t bit_length = total_bytes_ * 8;
  unsigned char pad[72] = {0x80};
  const size_t pad_len = (buffered_ < 56) ? 56 - buffered_ : 120 - buffered_;
  update(std::string_view(reinterpret_cast<const char*>(pad), pad_len));
  unsigned char len_bytes[8];
  for (int i = 0; i < 8; ++i) len_bytes[i] = static_cast<unsigned char>(bit_length >> (8 * i));
  update(std::string_view(reinterpret_cast<const char*>(len_bytes), 8));
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(32);
  for (uint32_t word : state_) {
    for (int i = 0; i < 4; ++i) {
      const unsigned byte = (word >> (8 * i)) & 0xffu;
      out.push_back(kHex[byte >> 4]);
      out.push_back(kHex[byte & 0xf]);
    }
  }
  reset();
  return out;
}

std::string md5_hex(std::string_view data) {
  Md5 md5;
  md5.update(data);
  return md5.hex_digest();
}

}  // namespace tuplekv::slt
