// Fuzz target for the tuple decoder.
//
// For any input: unpack() and TupleReader must agree (same success, same
// element count, same error message), and nothing may crash or read out of
// bounds. For input that decodes: encoding is stable, i.e.
// decode(encode(decode(x))) == decode(x) and encode(decode(encode(..))) ==
// encode(..); bytes change on re-encode only where the input used Python's
// longer spelling of +-(2^64-1). Splitting the input in two also checks the
// order invariant: compare(a, b) has the sign of compare_bytes(pack(a),
// pack(b)).
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "core/tuple.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using tuplekv::BytesView;
using tuplekv::ElementType;
using tuplekv::Tuple;
using tuplekv::TupleValue;

int count_incomplete_stamps(const Tuple& t) {
  int n = 0;
  for (const TupleValue& v : t) {
    if (v.type() == ElementType::kVersionstamp && !v.versionstamp_complete()) ++n;
    if (v.type() == ElementType::kNested) n += count_incomplete_stamps(v.as_nested());
  }
  return n;
}

int sign(int c) { return c < 0 ? -1 : (c > 0 ? 1 : 0); }

// Decodes `in` every way there is and checks they agree. Returns whether it
// decoded; *out holds the tuple then.
bool decode_all_ways(BytesView in, Tuple* out) {
  const tuplekv::Status s = tuplekv::unpack(in, out);
  FUZZ_CHECK(s.ok() || s.code() == tuplekv::StatusCode::kCorruption);

  tuplekv::TupleReader r(in);
  size_t n = 0;
  while (r.next()) {
    TupleValue v;
    FUZZ_CHECK(r.decode(&v).ok());
    if (s.ok()) {
      FUZZ_CHECK(n < out->size());
      FUZZ_CHECK(v == (*out)[n]);
      FUZZ_CHECK(r.type() == v.type());
      if (v.type() == ElementType::kInt) FUZZ_CHECK(r.int64_value() == v.as_int64());
    }
    ++n;
  }
  FUZZ_CHECK(r.at_end() == s.ok());
  if (s.ok()) {
    FUZZ_CHECK(n == out->size());
  } else {
    FUZZ_CHECK(r.status() == s);
  }
  return s.ok();
}

// Packs a decoded tuple; fails only for what pack() refuses by contract.
bool pack_checked(const Tuple& t, tuplekv::Bytes* out) {
  const tuplekv::Status s = tuplekv::pack(t, out);
  const int incomplete = count_incomplete_stamps(t);
  if (incomplete > 0) {
    FUZZ_CHECK(!s.ok());
    tuplekv::Bytes with_stamp;
    const tuplekv::Status vs = tuplekv::pack_with_versionstamp(t, 0, &with_stamp);
    FUZZ_CHECK(vs.ok() == (incomplete == 1));
    return false;
  }
  FUZZ_CHECK(s.ok());
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const BytesView in(reinterpret_cast<const char*>(data), size);
  Tuple t;
  if (decode_all_ways(in, &t)) {
    (void)tuplekv::repr(t);
    FUZZ_CHECK(tuplekv::compare(t, t) == 0);
    tuplekv::Bytes p1;
    if (pack_checked(t, &p1)) {
      // Canonical encoders only shorten Python's 10-byte integer forms.
      FUZZ_CHECK(p1 == in || p1.size() < in.size());
      Tuple t2;
      FUZZ_CHECK(decode_all_ways(p1, &t2));
      FUZZ_CHECK(t2 == t);
      tuplekv::Bytes p2;
      FUZZ_CHECK(pack_checked(t2, &p2));
      FUZZ_CHECK(p2 == p1);
    }
  }

  // Two tuples from one input: the order invariant.
  if (size >= 2) {
    const size_t cut = data[0] % size;
    Tuple a, b;
    tuplekv::Bytes pa, pb;
    if (decode_all_ways(in.substr(1, cut), &a) && decode_all_ways(in.substr(1 + cut), &b) &&
        pack_checked(a, &pa) && pack_checked(b, &pb)) {
      FUZZ_CHECK(sign(tuplekv::compare(a, b)) == sign(tuplekv::compare_bytes(pa, pb)));
      FUZZ_CHECK(sign(tuplekv::compare(b, a)) == -sign(tuplekv::compare(a, b)));
    }
  }
  return 0;
}
