// Short makers of tuple values for the tests of core/tuple.h, so that an
// expected tuple reads like its repr: Tuple{S("a"), I(1), N({Null()})}.
#ifndef TUPLEKV_TESTS_CORE_TUPLE_MAKERS_H_
#define TUPLEKV_TESTS_CORE_TUPLE_MAKERS_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <string_view>
#include <utility>

#include "core/bigint.h"
#include "core/tuple.h"

namespace tuplekv::tuple_makers {

inline TupleValue Null() { return TupleValue::null(); }
inline TupleValue I(int64_t v) { return TupleValue::int64(v); }
inline TupleValue S(std::string_view s) { return TupleValue::string(s); }
inline TupleValue B(std::string_view s) { return TupleValue::bytes(s); }
inline TupleValue N(Tuple t) { return TupleValue::nested(std::move(t)); }
inline TupleValue D(double d) { return TupleValue::float64(d); }
inline TupleValue F(float f) { return TupleValue::float32(f); }
inline TupleValue Bool(bool b) { return TupleValue::boolean(b); }
// An integer of any width from its decimal text (a test failure if bad).
inline TupleValue Big(std::string_view decimal) {
  Result<BigInt> b = BigInt::from_decimal(decimal);
  EXPECT_TRUE(b.ok()) << decimal;
  return TupleValue::integer(b.ok() ? *b : BigInt());
}

}  // namespace tuplekv::tuple_makers

#endif  // TUPLEKV_TESTS_CORE_TUPLE_MAKERS_H_
