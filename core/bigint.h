// BigInt: the arbitrary-precision integers of tuple codes 0x0B and 0x1D.
//
// FoundationDB's tuple layer stores integers up to 255 bytes of magnitude
// (|v| <= 2^2040 - 1). BigInt holds exactly that range as sign + magnitude
// and does only what the codec and the SQL surface need: conversion from and
// to decimal text, to and from 64-bit integers, and comparison. It is not a
// general arithmetic type.
#ifndef TUPLEKV_CORE_BIGINT_H_
#define TUPLEKV_CORE_BIGINT_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "core/bytes.h"
#include "core/status.h"

namespace tuplekv {

class BigInt {
 public:
  // The largest magnitude the tuple layer can encode, in bytes.
  static constexpr size_t kMaxMagnitudeBytes = 255;

  BigInt() = default;  // zero

  static BigInt from_int64(int64_t v);
  static BigInt from_uint64(uint64_t magnitude, bool negative);

  // `magnitude` is big-endian; leading zero bytes are dropped. Fails with
  // kInvalidArgument when the minimal magnitude exceeds 255 bytes.
  static Result<BigInt> from_magnitude(BytesView magnitude, bool negative);

  // Parses an optionally signed ('-' or '+') string of decimal digits, with
  // no spaces, no exponent, no leading '0' beyond a lone "0" (so every value
  // has one spelling; "-0" is zero). kInvalidArgument on anything else or
  // when the value is beyond 255 bytes.
  static Result<BigInt> from_decimal(std::string_view text);

  std::string to_decimal() const;

  bool is_zero() const { return magnitude_.empty(); }
  bool negative() const { return negative_; }
  // Minimal big-endian magnitude: empty for zero, never a leading 0x00.
  const Bytes& magnitude() const { return magnitude_; }

  bool fits_int64() const;
  // REQUIRES: fits_int64()
  int64_t to_int64() const;
  // True when |v| <= 2^64 - 1 (the range of the fixed-width codes 0x0C..0x1C).
  bool fits_uint64_magnitude() const { return magnitude_.size() <= 8; }
  // REQUIRES: fits_uint64_magnitude()
  uint64_t magnitude_uint64() const;

  // Numeric order. Returns <0, 0 or >0.
  int compare(const BigInt& other) const;
  bool operator==(const BigInt& o) const {
    return negative_ == o.negative_ && magnitude_ == o.magnitude_;
  }

 private:
  bool negative_ = false;  // never true for zero
  Bytes magnitude_;
};

}  // namespace tuplekv

#endif  // TUPLEKV_CORE_BIGINT_H_
