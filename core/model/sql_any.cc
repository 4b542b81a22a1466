// SQL equality variants of ANY values (see sql_any.h).
#include "core/model/sql_any.h"

#include <cmath>
#include <cstdint>

namespace tuplekv::model {

namespace {

// 2^63 as a double: the first double past int64's range.
constexpr double kTwo63 = 9223372036854775808.0;

bool double_to_int_exact(double d, int64_t* out) {
  if (!(d >= -kTwo63 && d < kTwo63)) return false;  // NaN fails too
  if (std::trunc(d) != d) return false;
  *out = static_cast<int64_t>(d);
  return true;
}

void add_zero_variants(std::vector<TupleValue>* out) {
  const TupleValue all[] = {TupleValue::int64(0), TupleValue::float64(0.0),
                            TupleValue::float64(-0.0)};
  for (const TupleValue& z : all) {
    bool have = false;
    for (const TupleValue& o : *out) have = have || o == z;
    if (!have) out->push_back(z);
  }
}

}  // namespace

void sql_equal_variants(const TupleValue& v, std::vector<TupleValue>* out) {
  out->clear();
  out->push_back(v);
  if (v.type() == ElementType::kInt) {
    const int64_t i = v.as_int64();
    if (i == 0) return add_zero_variants(out);
    const double d = static_cast<double>(i);
    int64_t back = 0;
    // SQLite compares INTEGER with REAL exactly, so only a double that
    // holds i without rounding is equal to it.
    if (double_to_int_exact(d, &back) && back == i) out->push_back(TupleValue::float64(d));
  } else if (v.type() == ElementType::kDouble) {
    const double d = v.as_double();
    if (d == 0) return add_zero_variants(out);
    int64_t i = 0;
    if (double_to_int_exact(d, &i)) out->push_back(TupleValue::int64(i));
  }
}

Status sql_equal_variants_packed(BytesView element, std::vector<Bytes>* out) {
  BytesView in = element;
  TupleValue v;
  TUPLEKV_RETURN_IF_ERROR(decode_element(&in, &v));
  if (!in.empty()) return Status::Corruption("tuple: bytes after the element");
  out->clear();
  out->emplace_back(element);
  // Only numbers have other encodings; skip the rest without allocating.
  if (v.type() != ElementType::kInt && v.type() != ElementType::kDouble) return Status::OK();
  std::vector<TupleValue> variants;
  sql_equal_variants(v, &variants);
  for (size_t k = 1; k < variants.size(); ++k) {
    TUPLEKV_RETURN_IF_ERROR(pack_element(variants[k], &out->emplace_back()));
  }
  return Status::OK();
}

}  // namespace tuplekv::model
