// TupleValue and the value order of tuples (tuple-spec §9).
//
// compare() must agree in sign with compare_bytes() of the packed forms; the
// golden vectors' order lines and the random-tuple test in tuple_test.cc
// hold it to that.
#include <bit>
#include <cassert>
#include <cstring>

#include "core/tuple.h"
#include "core/tuple_internal.h"

namespace tuplekv {

std::string_view element_type_name(ElementType t) {
  switch (t) {
    case ElementType::kNull: return "null";
    case ElementType::kBytes: return "bytes";
    case ElementType::kString: return "string";
    case ElementType::kNested: return "tuple";
    case ElementType::kInt: return "int";
    case ElementType::kBigInt: return "int";
    case ElementType::kFloat: return "float";
    case ElementType::kDouble: return "double";
    case ElementType::kBool: return "bool";
    case ElementType::kUuid: return "uuid";
    case ElementType::kVersionstamp: return "versionstamp";
    case ElementType::kUser: return "user";
  }
  return "unknown";
}

// ---------------------------------------------------------------------------
// Construction

TupleValue TupleValue::bytes(BytesView b) {
  TupleValue v;
  v.type_ = ElementType::kBytes;
  v.s_ = Bytes(b);
  return v;
}

TupleValue TupleValue::string(std::string_view utf8) {
  TupleValue v;
  v.type_ = ElementType::kString;
  v.s_ = Bytes(utf8);
  return v;
}

TupleValue TupleValue::nested(Tuple children) {
  TupleValue v;
  v.type_ = ElementType::kNested;
  v.s_ = std::move(children);
  return v;
}

TupleValue TupleValue::int64(int64_t i) {
  TupleValue v;
  v.type_ = ElementType::kInt;
  v.u_ = static_cast<uint64_t>(i);
  return v;
}

TupleValue TupleValue::integer(BigInt b) {
  if (b.fits_int64()) return int64(b.to_int64());
  TupleValue v;
  v.type_ = ElementType::kBigInt;
  v.s_ = std::move(b);
  return v;
}

TupleValue TupleValue::float32(float f) { return float32_bits(std::bit_cast<uint32_t>(f)); }

TupleValue TupleValue::float32_bits(uint32_t raw_ieee_bits) {
  TupleValue v;
  v.type_ = ElementType::kFloat;
  v.u_ = raw_ieee_bits;
  return v;
}

TupleValue TupleValue::float64(double d) { return float64_bits(std::bit_cast<uint64_t>(d)); }

TupleValue TupleValue::float64_bits(uint64_t raw_ieee_bits) {
  TupleValue v;
  v.type_ = ElementType::kDouble;
  v.u_ = raw_ieee_bits;
  return v;
}

TupleValue TupleValue::boolean(bool b) {
  TupleValue v;
  v.type_ = ElementType::kBool;
  v.u_ = b ? 1 : 0;
  return v;
}

TupleValue TupleValue::uuid(const Uuid& u) {
  TupleValue v;
  v.type_ = ElementType::kUuid;
  v.s_ = u;
  return v;
}

TupleValue TupleValue::versionstamp(const Versionstamp& s) {
  TupleValue v;
  v.type_ = ElementType::kVersionstamp;
  v.s_ = s;
  return v;
}

TupleValue TupleValue::user(uint8_t code, BytesView data) {
  TupleValue v;
  v.type_ = ElementType::kUser;
  v.user_code_ = code;
  v.s_ = Bytes(data);
  return v;
}

// ---------------------------------------------------------------------------
// Accessors

int64_t TupleValue::as_int64() const {
  assert(type_ == ElementType::kInt);
  return static_cast<int64_t>(u_);
}

const BigInt& TupleValue::as_bigint() const { return std::get<BigInt>(s_); }

BytesView TupleValue::as_bytes() const { return std::get<Bytes>(s_); }

std::string_view TupleValue::as_string() const {
  assert(type_ == ElementType::kString);
  return std::get<Bytes>(s_);
}

const Tuple& TupleValue::as_nested() const { return std::get<Tuple>(s_); }

Tuple& TupleValue::mutable_nested() { return std::get<Tuple>(s_); }

uint32_t TupleValue::float32_bits() const {
  assert(type_ == ElementType::kFloat);
  return static_cast<uint32_t>(u_);
}

float TupleValue::as_float() const { return std::bit_cast<float>(float32_bits()); }

uint64_t TupleValue::float64_bits() const {
  assert(type_ == ElementType::kDouble);
  return u_;
}

double TupleValue::as_double() const { return std::bit_cast<double>(float64_bits()); }

bool TupleValue::as_bool() const {
  assert(type_ == ElementType::kBool);
  return u_ != 0;
}

const Uuid& TupleValue::as_uuid() const { return std::get<Uuid>(s_); }

const Versionstamp& TupleValue::as_versionstamp() const { return std::get<Versionstamp>(s_); }

bool TupleValue::versionstamp_complete() const {
  const Versionstamp& s = as_versionstamp();
  for (int i = 0; i < 10; ++i) {
    if (s[i] != 0xFF) return true;
  }
  return false;
}

uint8_t TupleValue::user_code() const {
  assert(type_ == ElementType::kUser);
  return user_code_;
}

bool TupleValue::operator==(const TupleValue& o) const {
  if (type_ != o.type_) return false;
  switch (type_) {
    case ElementType::kNull:
      return true;
    case ElementType::kInt:
    case ElementType::kFloat:
    case ElementType::kDouble:
    case ElementType::kBool:
      return u_ == o.u_;
    case ElementType::kUser:
      if (user_code_ != o.user_code_) return false;
      [[fallthrough]];
    case ElementType::kBytes:
    case ElementType::kString:
      return std::get<Bytes>(s_) == std::get<Bytes>(o.s_);
    case ElementType::kNested:
      return std::get<Tuple>(s_) == std::get<Tuple>(o.s_);
    case ElementType::kBigInt:
      return std::get<BigInt>(s_) == std::get<BigInt>(o.s_);
    case ElementType::kUuid:
      return std::get<Uuid>(s_) == std::get<Uuid>(o.s_);
    case ElementType::kVersionstamp:
      return std::get<Versionstamp>(s_) == std::get<Versionstamp>(o.s_);
  }
  return false;
}

// ---------------------------------------------------------------------------
// Order

namespace {

// The type classes of tuple-spec §9, in the order of their type codes. All
// integer widths are one class, as are false and true.
int type_class(ElementType t) {
  switch (t) {
    case ElementType::kNull: return 0;
    case ElementType::kBytes: return 1;
    case ElementType::kString: return 2;
    case ElementType::kNested: return 3;
    case ElementType::kInt:
    case ElementType::kBigInt: return 4;
    case ElementType::kFloat: return 5;
    case ElementType::kDouble: return 6;
    case ElementType::kBool: return 7;
    case ElementType::kUuid: return 8;
    case ElementType::kVersionstamp: return 9;
    case ElementType::kUser: return 10;
  }
  return 11;
}

template <typename T>
int three_way(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

int sign(int c) { return c < 0 ? -1 : (c > 0 ? 1 : 0); }

int compare_ints(const TupleValue& a, const TupleValue& b) {
  const bool a_big = a.type() == ElementType::kBigInt;
  const bool b_big = b.type() == ElementType::kBigInt;
  if (!a_big && !b_big) return three_way(a.as_int64(), b.as_int64());
  if (a_big && b_big) return a.as_bigint().compare(b.as_bigint());
  // A BigInt is always outside int64's range, so its sign alone decides.
  if (a_big) return a.as_bigint().negative() ? -1 : 1;
  return b.as_bigint().negative() ? 1 : -1;
}

}  // namespace

int compare(const TupleValue& a, const TupleValue& b) {
  const int ca = type_class(a.type());
  const int cb = type_class(b.type());
  if (ca != cb) return ca < cb ? -1 : 1;
  switch (a.type()) {
    case ElementType::kNull:
      return 0;
    case ElementType::kBytes:
    case ElementType::kString:
      // Escaping maps 00 to 00 FF, above the 00 terminator, so the order of
      // the unescaped bytes is the order of the encodings.
      return sign(compare_bytes(a.as_bytes(), b.as_bytes()));
    case ElementType::kNested:
      return compare(a.as_nested(), b.as_nested());
    case ElementType::kInt:
    case ElementType::kBigInt:
      return compare_ints(a, b);
    case ElementType::kFloat:
      return three_way(internal::float_key_bits(a.float32_bits()),
                       internal::float_key_bits(b.float32_bits()));
    case ElementType::kDouble:
      return three_way(internal::double_key_bits(a.float64_bits()),
                       internal::double_key_bits(b.float64_bits()));
    case ElementType::kBool:
      return three_way(a.as_bool(), b.as_bool());
    case ElementType::kUuid:
      return sign(std::memcmp(a.as_uuid().data(), b.as_uuid().data(), 16));
    case ElementType::kVersionstamp:
      return sign(std::memcmp(a.as_versionstamp().data(), b.as_versionstamp().data(), 12));
    case ElementType::kUser:
      if (a.user_code() != b.user_code()) return three_way(a.user_code(), b.user_code());
      return sign(compare_bytes(a.as_bytes(), b.as_bytes()));
  }
  return 0;
}

int compare(const Tuple& a, const Tuple& b) {
  const size_t n = a.size() < b.size() ? a.size() : b.size();
  for (size_t i = 0; i < n; ++i) {
    const int c = compare(a[i], b[i]);
    if (c != 0) return c;
  }
  return three_way(a.size(), b.size());
}

}  // namespace tuplekv
