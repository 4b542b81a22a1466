// SQLite's order over packed tuple elements (see sql_order.h).
#include "core/model/sql_order.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "core/tuple.h"

namespace tuplekv::model {

namespace {

// SQLite's storage classes in its order; kOther holds what SQL never writes.
enum class SqlClass { kNull, kNumber, kText, kBlob, kOther };

SqlClass class_of(ElementType t) {
  switch (t) {
    case ElementType::kNull:
      return SqlClass::kNull;
    case ElementType::kInt:
    case ElementType::kDouble:
      return SqlClass::kNumber;
    case ElementType::kString:
      return SqlClass::kText;
    case ElementType::kBytes:
      return SqlClass::kBlob;
    default:
      return SqlClass::kOther;
  }
}

int sign(bool less, bool greater) { return less ? -1 : greater ? 1 : 0; }

double as_double(uint64_t bits) {
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

// SQLite stores no NaN (it becomes NULL); one from damaged bytes sorts
// below every other number so the order stays total.
int compare_doubles(double a, double b) {
  const bool na = std::isnan(a), nb = std::isnan(b);
  if (na || nb) return sign(na && !nb, nb && !na);
  return sign(a < b, a > b);
}

// An integer against a real, exactly (no rounding of `i` to a double).
int compare_int_double(int64_t i, double r) {
  constexpr double kTwo63 = 9223372036854775808.0;
  if (std::isnan(r)) return 1;
  if (r < -kTwo63) return 1;
  if (r >= kTwo63) return -1;
  const auto y = static_cast<int64_t>(r);  // truncates toward zero, in range
  if (i != y) return sign(i < y, i > y);
  // Same integer part: the fraction of r decides.
  const auto s = static_cast<double>(i);
  return sign(s < r, s > r);
}

// The current elements of two readers; both next() calls returned true.
int compare_current(const TupleReader& a, const TupleReader& b) {
  const SqlClass ca = class_of(a.type()), cb = class_of(b.type());
  if (ca != cb) return sign(ca < cb, ca > cb);
  if (ca == SqlClass::kNull) return 0;
  if (ca != SqlClass::kNumber) {
    // Text and blobs: the escaped encoding keeps memcmp order of the
    // values (00 becomes 00 FF, and the terminator 00 sorts below it).
    return compare_bytes(a.raw(), b.raw());
  }
  const bool ia = a.type() == ElementType::kInt, ib = b.type() == ElementType::kInt;
  if (ia && ib) return sign(a.int64_value() < b.int64_value(), a.int64_value() > b.int64_value());
  if (!ia && !ib) return compare_doubles(as_double(a.double_bits()), as_double(b.double_bits()));
  if (ia) return compare_int_double(a.int64_value(), as_double(b.double_bits()));
  return -compare_int_double(b.int64_value(), as_double(a.double_bits()));
}

}  // namespace

int sql_compare_packed(BytesView a, BytesView b) {
  TupleReader ra(a), rb(b);
  for (;;) {
    const bool more_a = ra.next(), more_b = rb.next();
    const bool bad_a = !ra.status().ok(), bad_b = !rb.status().ok();
    if (bad_a || bad_b) {
      // Bytes that do not decode sort after every element, by their bytes
      // from there on: a total order still, whatever the input.
      if (!bad_b) return 1;
      if (!bad_a) return -1;
      return compare_bytes(ra.rest(), rb.rest());
    }
    if (!more_a || !more_b) return sign(!more_a && more_b, more_a && !more_b);
    const int c = compare_current(ra, rb);
    if (c != 0) return c;
  }
}

namespace {

void append_u64_be(uint64_t v, Bytes* out) {
  char b[8];
  for (int i = 7; i >= 0; --i) {
    b[i] = static_cast<char>(v & 0xff);
    v >>= 8;
  }
  out->append(b, sizeof b);
}

// A number as (largest double d <= it, it - d): d in key bits, then the
// excess, which only an integer has (below 2^11: doubles near 2^63 are
// 1024 apart). NaN sorts below every number, as compare_doubles() says.
void append_number(bool is_int, int64_t i, double r, Bytes* out) {
  out->push_back('\x01');
  uint64_t excess = 0;
  if (is_int) {
    r = static_cast<double>(i);  // nearest; step down if above i
    if (compare_int_double(i, r) < 0) r = std::nextafter(r, -HUGE_VAL);
    excess = static_cast<uint64_t>(i) - static_cast<uint64_t>(static_cast<int64_t>(r));
  }
  if (std::isnan(r)) {
    append_u64_be(0, out);
  } else {
    if (r == 0) r = 0.0;  // -0.0 is 0
    uint64_t bits;
    std::memcpy(&bits, &r, sizeof bits);
    append_u64_be((bits >> 63) ? ~bits : bits ^ (uint64_t{1} << 63), out);
  }
  append_u64_be(excess, out);
}

}  // namespace

void append_sql_sort_key(BytesView packed, Bytes* out) {
  TupleReader r(packed);
  while (r.next()) {
    switch (class_of(r.type())) {
      case SqlClass::kNull:
        out->push_back('\x00');
        break;
      case SqlClass::kNumber:
        if (r.type() == ElementType::kInt) {
          append_number(true, r.int64_value(), 0, out);
        } else {
          append_number(false, 0, as_double(r.double_bits()), out);
        }
        break;
      case SqlClass::kText:
        out->push_back('\x02');
        out->append(r.raw());
        break;
      case SqlClass::kBlob:
        out->push_back('\x03');
        out->append(r.raw());
        break;
      case SqlClass::kOther:
        out->push_back('\x04');
        out->append(r.raw());
        break;
    }
  }
  if (!r.status().ok()) {
    // Damaged bytes after every element, by their bytes.
    out->push_back('\x05');
    out->append(r.rest());
  }
}

}  // namespace tuplekv::model
