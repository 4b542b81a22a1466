// BigInt: sign + minimal big-endian magnitude, at most 255 bytes.
//
// Decimal conversion works on little-endian base-2^32 limbs, nine decimal
// digits at a time. Values are at most 2040 bits (64 limbs, 615 digits), so
// schoolbook multiply-add and divide-by-10^9 are quadratic on tiny inputs and
// need no cleverness.
#include "core/bigint.h"

#include <cstring>
#include <vector>

namespace tuplekv {

namespace {

constexpr uint32_t kChunk = 1000000000;  // 10^9, the largest power of ten in a limb
constexpr int kChunkDigits = 9;
// 2^2040 - 1 has 615 decimal digits; anything longer is out of range
// without converting it, which keeps hostile input from costing more.
constexpr size_t kMaxDecimalDigits = 615;

Bytes minimal_magnitude(const uint8_t* p, size_t n) {
  while (n > 0 && *p == 0) {
    ++p;
    --n;
  }
  return Bytes(reinterpret_cast<const char*>(p), n);
}

// Limbs (little-endian base 2^32) -> minimal big-endian bytes.
Bytes limbs_to_magnitude(const std::vector<uint32_t>& limbs) {
  std::vector<uint8_t> be(limbs.size() * 4);
  for (size_t i = 0; i < limbs.size(); ++i) {
    const uint32_t l = limbs[limbs.size() - 1 - i];
    be[4 * i] = static_cast<uint8_t>(l >> 24);
    be[4 * i + 1] = static_cast<uint8_t>(l >> 16);
    be[4 * i + 2] = static_cast<uint8_t>(l >> 8);
    be[4 * i + 3] = static_cast<uint8_t>(l);
  }
  return minimal_magnitude(be.data(), be.size());
}

std::vector<uint32_t> magnitude_to_limbs(const Bytes& mag) {
  std::vector<uint32_t> limbs((mag.size() + 3) / 4, 0);
  for (size_t i = 0; i < mag.size(); ++i) {
    const size_t bit = 8 * (mag.size() - 1 - i);  // position from the low end
    limbs[bit / 32] |= static_cast<uint32_t>(static_cast<uint8_t>(mag[i])) << (bit % 32);
  }
  return limbs;
}

}  // namespace

BigInt BigInt::from_int64(int64_t v) {
  // Negating in uint64 keeps INT64_MIN defined: 0 - 2^63 mod 2^64 is 2^63.
  const uint64_t u = static_cast<uint64_t>(v);
  return from_uint64(v < 0 ? 0 - u : u, v < 0);
}

BigInt BigInt::from_uint64(uint64_t magnitude, bool negative) {
  BigInt b;
  uint8_t be[8];
  for (int i = 0; i < 8; ++i) be[i] = static_cast<uint8_t>(magnitude >> (56 - 8 * i));
  b.magnitude_ = minimal_magnitude(be, 8);
  b.negative_ = negative && !b.magnitude_.empty();
  return b;
}

Result<BigInt> BigInt::from_magnitude(BytesView magnitude, bool negative) {
  BigInt b;
  b.magnitude_ = minimal_magnitude(reinterpret_cast<const uint8_t*>(magnitude.data()),
                                   magnitude.size());
  if (b.magnitude_.size() > kMaxMagnitudeBytes) {
    return Status::InvalidArgument("bigint: magnitude over 255 bytes");
  }
  b.negative_ = negative && !b.magnitude_.empty();
  return b;
}

Result<BigInt> BigInt::from_decimal(std::string_view text) {
  std::string_view digits = text;
  bool negative = false;
  if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) {
    negative = digits[0] == '-';
    digits.remove_prefix(1);
  }
  if (digits.empty()) {
    return Status::InvalidArgument("bigint: not a decimal integer: '" + std::string(text) + "'");
  }
  for (char c : digits) {
    if (c < '0' || c > '9') {
      return Status::InvalidArgument("bigint: not a decimal integer: '" + std::string(text) +
                                     "'");
    }
  }
  if (digits.size() > 1 && digits[0] == '0') {
    return Status::InvalidArgument("bigint: leading zero in '" + std::string(text) + "'");
  }
  if (digits.size() > kMaxDecimalDigits) {
    return Status::InvalidArgument("bigint: value beyond 255 bytes");
  }

  std::vector<uint32_t> limbs;
  limbs.reserve(digits.size() / kChunkDigits + 2);
  // The first chunk takes the remainder so every later one is nine digits.
  size_t pos = 0;
  size_t take = digits.size() % kChunkDigits;
  if (take == 0) take = kChunkDigits;
  while (pos < digits.size()) {
    uint32_t chunk = 0;
    uint32_t scale = 1;
    for (size_t i = 0; i < take; ++i) {
      chunk = chunk * 10 + static_cast<uint32_t>(digits[pos + i] - '0');
      scale *= 10;
    }
    pos += take;
    take = kChunkDigits;
    uint64_t carry = chunk;
    for (uint32_t& l : limbs) {
      const uint64_t t = static_cast<uint64_t>(l) * scale + carry;
      l = static_cast<uint32_t>(t);
      carry = t >> 32;
    }
    if (carry != 0) limbs.push_back(static_cast<uint32_t>(carry));
  }

  BigInt b;
  b.magnitude_ = limbs_to_magnitude(limbs);
  if (b.magnitude_.size() > kMaxMagnitudeBytes) {
    return Status::InvalidArgument("bigint: value beyond 255 bytes");
  }
  b.negative_ = negative && !b.magnitude_.empty();
  return b;
}

std::string BigInt::to_decimal() const {
  if (magnitude_.empty()) return "0";
  std::vector<uint32_t> limbs = magnitude_to_limbs(magnitude_);
  // Chunks of nine digits, least significant first.
  std::vector<uint32_t> chunks;
  chunks.reserve(limbs.size() * 32 / 29 + 1);
  size_t top = limbs.size();
  while (top > 0) {
    uint64_t rem = 0;
    for (size_t i = top; i-- > 0;) {
      const uint64_t cur = (rem << 32) | limbs[i];
      limbs[i] = static_cast<uint32_t>(cur / kChunk);
      rem = cur % kChunk;
    }
    chunks.push_back(static_cast<uint32_t>(rem));
    while (top > 0 && limbs[top - 1] == 0) --top;
  }

  std::string out;
  out.reserve(chunks.size() * kChunkDigits + 1);
  if (negative_) out.push_back('-');
  out += std::to_string(chunks.back());
  for (size_t i = chunks.size() - 1; i-- > 0;) {
    char buf[kChunkDigits];
    uint32_t c = chunks[i];
    for (int d = kChunkDigits - 1; d >= 0; --d) {
      buf[d] = static_cast<char>('0' + c % 10);
      c /= 10;
    }
    out.append(buf, kChunkDigits);
  }
  return out;
}

bool BigInt::fits_int64() const {
  if (magnitude_.size() > 8) return false;
  const uint64_t m = magnitude_uint64();
  return negative_ ? m <= (uint64_t{1} << 63) : m < (uint64_t{1} << 63);
}

int64_t BigInt::to_int64() const {
  const uint64_t m = magnitude_uint64();
  // C++20 defines the unsigned -> signed conversion as modular, so this is
  // exact for every value fits_int64() admits, INT64_MIN included.
  return static_cast<int64_t>(negative_ ? 0 - m : m);
}

uint64_t BigInt::magnitude_uint64() const {
  uint64_t m = 0;
  for (char c : magnitude_) m = (m << 8) | static_cast<uint8_t>(c);
  return m;
}

int BigInt::compare(const BigInt& other) const {
  if (negative_ != other.negative_) return negative_ ? -1 : 1;
  int c;
  if (magnitude_.size() != other.magnitude_.size()) {
    c = magnitude_.size() < other.magnitude_.size() ? -1 : 1;
  } else {
    c = compare_bytes(magnitude_, other.magnitude_);
    c = c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  return negative_ ? -c : c;
}

}  // namespace tuplekv
