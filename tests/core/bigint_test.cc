// BigInt: decimal text, 64-bit conversions, magnitudes and order.
#include "core/bigint.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <string>

namespace tuplekv {
namespace {

BigInt Dec(std::string_view s) {
  Result<BigInt> b = BigInt::from_decimal(s);
  EXPECT_TRUE(b.ok()) << s << ": " << b.status().message();
  return b.ok() ? *b : BigInt();
}

TEST(BigIntTest, DecimalRoundTrips) {
  for (const char* s :
       {"0", "1", "-1", "9", "10", "999999999", "1000000000", "-1000000000",
        "4294967295", "4294967296", "9223372036854775807", "-9223372036854775808",
        "18446744073709551615", "18446744073709551616", "-340282366920938463463374607431768211456",
        "123456789012345678901234567890123456789012345678901234567890"}) {
    EXPECT_EQ(Dec(s).to_decimal(), s);
  }
  EXPECT_EQ(Dec("+42").to_decimal(), "42");
  EXPECT_EQ(Dec("-0").to_decimal(), "0");
  EXPECT_FALSE(Dec("-0").negative());
  EXPECT_TRUE(Dec("0").is_zero());
}

TEST(BigIntTest, RejectsBadText) {
  for (const char* s : {"", "-", "+", "01", "-01", "00", "1.0", "1e3", " 1", "1 ", "0x10", "--1",
                        "+-1", "١"}) {
    const Result<BigInt> b = BigInt::from_decimal(s);
    EXPECT_FALSE(b.ok()) << s;
    if (!b.ok()) {
      EXPECT_EQ(b.status().code(), StatusCode::kInvalidArgument);
    }
  }
}

TEST(BigIntTest, LimitIs255BytesOfMagnitude) {
  // 2^2040 - 1 is the largest; 2^2040 is one too many.
  std::string max_mag(255, '\xff');
  Result<BigInt> max = BigInt::from_magnitude(max_mag, false);
  ASSERT_TRUE(max.ok());
  const std::string max_text = max->to_decimal();
  EXPECT_EQ(max_text.size(), 615u);
  EXPECT_EQ(Dec(max_text), *max);
  EXPECT_EQ(Dec("-" + max_text).magnitude(), max_mag);

  std::string over = max_text;
  over.back() = static_cast<char>(over.back() + 1);  // ...215 -> ...216 = 2^2040
  EXPECT_FALSE(BigInt::from_decimal(over).ok());
  EXPECT_FALSE(BigInt::from_decimal(std::string(700, '9')).ok());
  EXPECT_FALSE(BigInt::from_magnitude(std::string(256, '\x01'), false).ok());
  // Leading zero bytes do not count.
  Result<BigInt> padded = BigInt::from_magnitude(std::string(300, '\0') + "\x01", true);
  ASSERT_TRUE(padded.ok());
  EXPECT_EQ(padded->magnitude(), "\x01");
  EXPECT_EQ(padded->to_decimal(), "-1");
  Result<BigInt> zero = BigInt::from_magnitude(std::string(3, '\0'), true);
  ASSERT_TRUE(zero.ok());
  EXPECT_TRUE(zero->is_zero());
  EXPECT_FALSE(zero->negative());
}

TEST(BigIntTest, Int64Conversions) {
  const int64_t kMin = std::numeric_limits<int64_t>::min();
  const int64_t kMax = std::numeric_limits<int64_t>::max();
  for (int64_t v : {int64_t{0}, int64_t{1}, int64_t{-1}, int64_t{255}, int64_t{-256}, kMin, kMax,
                    kMin + 1}) {
    const BigInt b = BigInt::from_int64(v);
    EXPECT_TRUE(b.fits_int64());
    EXPECT_EQ(b.to_int64(), v);
    EXPECT_EQ(b.to_decimal(), std::to_string(v));
    EXPECT_EQ(b.negative(), v < 0);
  }
  EXPECT_EQ(BigInt::from_int64(kMin).magnitude(), std::string("\x80\0\0\0\0\0\0\0", 8));
  EXPECT_EQ(BigInt::from_int64(kMin).magnitude_uint64(), uint64_t{1} << 63);
  EXPECT_FALSE(Dec("9223372036854775808").fits_int64());
  EXPECT_FALSE(Dec("-9223372036854775809").fits_int64());
  EXPECT_TRUE(Dec("18446744073709551615").fits_uint64_magnitude());
  EXPECT_EQ(Dec("-18446744073709551615").magnitude_uint64(), ~uint64_t{0});
  EXPECT_FALSE(Dec("18446744073709551616").fits_uint64_magnitude());
  EXPECT_EQ(BigInt::from_uint64(0, true), BigInt());
  EXPECT_EQ(BigInt::from_uint64(~uint64_t{0}, true).to_decimal(), "-18446744073709551615");
  EXPECT_EQ(BigInt::from_uint64(256, false).magnitude(), std::string("\x01\x00", 2));
  EXPECT_TRUE(BigInt().magnitude().empty());
}

TEST(BigIntTest, Order) {
  const char* ascending[] = {"-18446744073709551617", "-18446744073709551616",
                             "-9223372036854775809", "-256", "-1", "0", "1", "255",
                             "18446744073709551615", "18446744073709551616",
                             "340282366920938463463374607431768211456"};
  for (size_t i = 0; i < std::size(ascending); ++i) {
    for (size_t j = 0; j < std::size(ascending); ++j) {
      const int c = Dec(ascending[i]).compare(Dec(ascending[j]));
      EXPECT_EQ(c < 0, i < j) << ascending[i] << " " << ascending[j];
      EXPECT_EQ(c == 0, i == j);
      EXPECT_EQ(Dec(ascending[i]) == Dec(ascending[j]), i == j);
    }
  }
}

TEST(BigIntTest, RandomDecimalRoundTrips) {
  std::mt19937_64 rng(99);
  for (int i = 0; i < 2000; ++i) {
    std::string mag;
    const size_t n = 1 + rng() % 255;
    for (size_t k = 0; k < n; ++k) mag.push_back(static_cast<char>(rng()));
    Result<BigInt> b = BigInt::from_magnitude(mag, rng() % 2 == 0);
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(Dec(b->to_decimal()), *b);
  }
  // Against int64 arithmetic where both apply.
  for (int i = 0; i < 2000; ++i) {
    const auto v = static_cast<int64_t>(rng()) >> (rng() % 64);
    EXPECT_EQ(Dec(std::to_string(v)).to_int64(), v);
  }
}

}  // namespace
}  // namespace tuplekv
