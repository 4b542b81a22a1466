// The tuple codec: one encoder and one decoder per type code (tuple-spec
// §2-§8), plus strinc and range (§10).
//
// Packing runs in two passes. The first validates the tuple and computes the
// exact encoded size, so *out grows once and is left untouched on failure;
// the second writes through a raw pointer with no further checks.
//
// Decoding is one template, Decoder::element<kBuild>. With kBuild = false it
// only validates and measures (TupleReader, which must not allocate); with
// kBuild = true it also materialises TupleValues (unpack, decode_element).
// Sharing the code means the reader and unpack cannot disagree about what is
// valid. Every read is preceded by a length check against the end of the
// buffer; every failure goes through Decoder::fail(), which names the byte
// offset and type code of the element at fault.
//
// Decisions the spec leaves open:
//  * Non-minimal integers (15 00, 16 00 01, 1D/0B shorter than 9 bytes,
//    leading zero magnitude) are corruption, except Python's 1D 08 FF*8 and
//    0B F7 00*8 for +-(2^64-1), which decode to the same value as the
//    canonical 1C/0C forms (apple/foundationdb#1296).
//  * User type codes (40-4F) run to the end of the buffer. At top level that
//    makes them valid only as the last element; inside a nested tuple they
//    cannot be delimited at all, so both pack and unpack reject them there.
//  * Incomplete versionstamps decode normally; pack() refuses them and
//    pack_with_versionstamp() requires exactly one.
#include <bit>
#include <cassert>
#include <cstdio>
#include <cstring>
#include <limits>

#include "core/tuple.h"
#include "core/tuple_frame.h"
#include "core/tuple_internal.h"

namespace tuplekv {

namespace {

using internal::kMaxNestingDepth;
using internal::load_be;
using internal::store_be;

constexpr uint8_t code_of(TypeCode c) { return static_cast<uint8_t>(c); }

constexpr uint8_t kNullCode = code_of(TypeCode::kNull);
constexpr uint8_t kBytesCode = code_of(TypeCode::kBytes);
constexpr uint8_t kStringCode = code_of(TypeCode::kString);
constexpr uint8_t kNestedCode = code_of(TypeCode::kNested);
constexpr uint8_t kNegArbCode = code_of(TypeCode::kNegIntArbitrary);
constexpr uint8_t kIntZeroCode = code_of(TypeCode::kIntZero);
constexpr uint8_t kPosArbCode = code_of(TypeCode::kPosIntArbitrary);
constexpr uint8_t kFloatCode = code_of(TypeCode::kFloat);
constexpr uint8_t kDoubleCode = code_of(TypeCode::kDouble);
constexpr uint8_t kFalseCode = code_of(TypeCode::kFalse);
constexpr uint8_t kTrueCode = code_of(TypeCode::kTrue);
constexpr uint8_t kUuidCode = code_of(TypeCode::kUuid);
constexpr uint8_t kStampCode = code_of(TypeCode::kVersionstamp96);
constexpr uint8_t kUserFirstCode = code_of(TypeCode::kUserFirst);
constexpr uint8_t kUserLastCode = code_of(TypeCode::kUserLast);
constexpr uint8_t kEscapeByte = code_of(TypeCode::kEscape);

constexpr size_t kUuidSize = 16;
constexpr size_t kStampSize = 12;
constexpr size_t kStampVersionSize = 10;  // the part pack_with_versionstamp fills in
constexpr size_t kMinArbitraryIntBytes = 9;

const uint8_t* as_u8(const char* p) { return reinterpret_cast<const uint8_t*>(p); }

// Bytes needed for a nonzero magnitude (1..8).
size_t magnitude_width(uint64_t m) {
  size_t n = 1;
  while (n < 8 && (m >> (8 * n)) != 0) ++n;
  return n;
}

uint64_t magnitude_of(int64_t v) {
  // In uint64 so that INT64_MIN has a magnitude (2^63) without overflow.
  const uint64_t u = static_cast<uint64_t>(v);
  return v < 0 ? 0 - u : u;
}

size_t count_zero_bytes(BytesView b) {
  size_t count = 0;
  const char* p = b.data();
  const char* end = p + b.size();
  while (p < end) {
    const void* z = std::memchr(p, 0, static_cast<size_t>(end - p));
    if (z == nullptr) break;
    ++count;
    p = static_cast<const char*>(z) + 1;
  }
  return count;
}

bool stamp_incomplete(const Versionstamp& s) {
  for (size_t i = 0; i < kStampVersionSize; ++i) {
    if (s[i] != 0xFF) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------
// Encoding, pass 1: validate and measure.

// The position of an element, kept on the stack while planning so that an
// error can name it ("element 2.0") without allocating on the happy path.
struct ElementPath {
  const ElementPath* parent;
  size_t index;
};

std::string path_text(const ElementPath* path) {
  std::string s;
  for (const ElementPath* p = path; p != nullptr; p = p->parent) {
    std::string part = std::to_string(p->index);
    s = s.empty() ? part : part + "." + s;
  }
  return s;
}

struct PackPlan {
  bool allow_incomplete = false;  // pack_with_versionstamp, pack_allow_incomplete
  size_t size = 0;
  size_t incomplete_stamps = 0;
};

Status plan_tuple(const Tuple& t, const ElementPath* parent, int depth, bool nested,
                  PackPlan* plan);

Status plan_element(const TupleValue& v, const ElementPath* path, bool last, int depth,
                    bool nested, PackPlan* plan) {
  switch (v.type()) {
    case ElementType::kNull:
      plan->size += nested ? 2 : 1;
      return Status::OK();
    case ElementType::kString: {
      const BytesView s = v.as_bytes();
      const size_t bad = internal::utf8_error_offset(as_u8(s.data()), s.size());
      if (bad != s.size()) {
        return Status::InvalidArgument("tuple: invalid UTF-8 at byte " + std::to_string(bad) +
                                       " of the string at element " + path_text(path));
      }
      plan->size += 2 + s.size() + count_zero_bytes(s);
      return Status::OK();
    }
    case ElementType::kBytes: {
      const BytesView b = v.as_bytes();
      plan->size += 2 + b.size() + count_zero_bytes(b);
      return Status::OK();
    }
    case ElementType::kNested:
      if (depth >= kMaxNestingDepth) {
        return Status::InvalidArgument("tuple: nesting deeper than " +
                                       std::to_string(kMaxNestingDepth) + " levels");
      }
      plan->size += 2;
      return plan_tuple(v.as_nested(), path, depth + 1, true, plan);
    case ElementType::kInt: {
      const int64_t i = v.as_int64();
      plan->size += i == 0 ? 1 : 1 + magnitude_width(magnitude_of(i));
      return Status::OK();
    }
    case ElementType::kBigInt: {
      const BigInt& b = v.as_bigint();
      plan->size += b.fits_uint64_magnitude() ? 1 + magnitude_width(b.magnitude_uint64())
                                              : 2 + b.magnitude().size();
      return Status::OK();
    }
    case ElementType::kFloat:
      plan->size += 5;
      return Status::OK();
    case ElementType::kDouble:
      plan->size += 9;
      return Status::OK();
    case ElementType::kBool:
      plan->size += 1;
      return Status::OK();
    case ElementType::kUuid:
      plan->size += 1 + kUuidSize;
      return Status::OK();
    case ElementType::kVersionstamp:
      if (stamp_incomplete(v.as_versionstamp())) {
        if (!plan->allow_incomplete) {
          return Status::InvalidArgument("tuple: incomplete versionstamp at element " +
                                         path_text(path) + " (use pack_with_versionstamp)");
        }
        ++plan->incomplete_stamps;
      }
      plan->size += 1 + kStampSize;
      return Status::OK();
    case ElementType::kUser:
      if (v.user_code() < kUserFirstCode || v.user_code() > kUserLastCode) {
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02x", v.user_code());
        return Status::InvalidArgument("tuple: user type code " + std::string(hex) +
                                       " at element " + path_text(path) +
                                       " is outside 0x40..0x4f");
      }
      if (nested) {
        return Status::InvalidArgument("tuple: user type at element " + path_text(path) +
                                       " inside a nested tuple");
      }
      if (!last) {
        return Status::InvalidArgument("tuple: user type at element " + path_text(path) +
                                       " is not the last element");
      }
      plan->size += 1 + v.as_bytes().size();
      return Status::OK();
  }
  return Status::Internal("tuplekv internal error: unknown element type");
}

Status plan_tuple(const Tuple& t, const ElementPath* parent, int depth, bool nested,
                  PackPlan* plan) {
  for (size_t i = 0; i < t.size(); ++i) {
    const ElementPath path{parent, i};
    TUPLEKV_RETURN_IF_ERROR(plan_element(t[i], &path, i + 1 == t.size(), depth, nested, plan));
  }
  return Status::OK();
}

// ---------------------------------------------------------------------------
// Encoding, pass 2: write. REQUIRES: the tuple passed plan_tuple().

struct Writer {
  uint8_t* p;
  const uint8_t* base;  // start of this tuple's encoding
  size_t stamp_offset = 0;

  void byte(uint8_t b) { *p++ = b; }
  void raw(const void* src, size_t n) {
    if (n != 0) std::memcpy(p, src, n);
    p += n;
  }

  void escaped(BytesView b) {
    const char* s = b.data();
    const char* end = s + b.size();
    while (s < end) {
      const void* z = std::memchr(s, 0, static_cast<size_t>(end - s));
      const char* stop = z == nullptr ? end : static_cast<const char*>(z);
      raw(s, static_cast<size_t>(stop - s));
      if (stop == end) break;
      byte(0x00);
      byte(kEscapeByte);
      s = stop + 1;
    }
    byte(0x00);
  }

  void uint_magnitude(uint64_t m, bool negative) {
    if (m == 0) {
      byte(kIntZeroCode);
      return;
    }
    const size_t n = magnitude_width(m);
    if (negative) {
      // One's complement over n bytes: (2^(8n) - 1) - m.
      byte(static_cast<uint8_t>(kIntZeroCode - n));
      store_be(~m, n, p);
    } else {
      byte(static_cast<uint8_t>(kIntZeroCode + n));
      store_be(m, n, p);
    }
    p += n;
  }

  void bigint(const BigInt& b) {
    if (b.fits_uint64_magnitude()) {
      uint_magnitude(b.magnitude_uint64(), b.negative());
      return;
    }
    const Bytes& mag = b.magnitude();
    const size_t len = mag.size();
    if (b.negative()) {
      byte(kNegArbCode);
      byte(static_cast<uint8_t>(len ^ 0xFF));
      for (char c : mag) byte(static_cast<uint8_t>(~static_cast<uint8_t>(c)));
    } else {
      byte(kPosArbCode);
      byte(static_cast<uint8_t>(len));
      raw(mag.data(), len);
    }
  }

  void tuple(const Tuple& t, bool nested) {
    for (const TupleValue& v : t) element(v, nested);
  }

  void element(const TupleValue& v, bool nested) {
    switch (v.type()) {
      case ElementType::kNull:
        byte(kNullCode);
        if (nested) byte(kEscapeByte);
        return;
      case ElementType::kBytes:
        byte(kBytesCode);
        escaped(v.as_bytes());
        return;
      case ElementType::kString:
        byte(kStringCode);
        escaped(v.as_bytes());
        return;
      case ElementType::kNested:
        byte(kNestedCode);
        tuple(v.as_nested(), true);
        byte(0x00);
        return;
      case ElementType::kInt: {
        const int64_t i = v.as_int64();
        uint_magnitude(magnitude_of(i), i < 0);
        return;
      }
      case ElementType::kBigInt:
        bigint(v.as_bigint());
        return;
      case ElementType::kFloat:
        byte(kFloatCode);
        store_be(internal::float_key_bits(v.float32_bits()), 4, p);
        p += 4;
        return;
      case ElementType::kDouble:
        byte(kDoubleCode);
        store_be(internal::double_key_bits(v.float64_bits()), 8, p);
        p += 8;
        return;
      case ElementType::kBool:
        byte(v.as_bool() ? kTrueCode : kFalseCode);
        return;
      case ElementType::kUuid:
        byte(kUuidCode);
        raw(v.as_uuid().data(), kUuidSize);
        return;
      case ElementType::kVersionstamp:
        byte(kStampCode);
        if (stamp_incomplete(v.as_versionstamp())) stamp_offset = static_cast<size_t>(p - base);
        raw(v.as_versionstamp().data(), kStampSize);
        return;
      case ElementType::kUser:
        byte(v.user_code());
        raw(v.as_bytes().data(), v.as_bytes().size());
        return;
    }
  }
};

// Grows *out by plan.size and writes `t` there; returns the offset of the
// incomplete versionstamp within the written bytes (0 when there is none).
size_t write_planned(const Tuple& t, const PackPlan& plan, Bytes* out) {
  const size_t start = out->size();
  out->resize(start + plan.size);
  uint8_t* begin = reinterpret_cast<uint8_t*>(out->data()) + start;
  Writer w{begin, begin};
  w.tuple(t, false);
  assert(static_cast<size_t>(w.p - begin) == plan.size);
  return w.stamp_offset;
}

// ---------------------------------------------------------------------------
// Decoding

// What validating one element learns; enough for TupleReader's accessors.
struct Scanned {
  ElementType type = ElementType::kNull;
  size_t end = 0;  // offset one past the element
  bool has_escapes = false;
  int64_t int_value = 0;  // kInt only
};

class Decoder {
 public:
  // `base` is the offset of data[0] in the caller's whole buffer.
  Decoder(BytesView data, size_t base) : p_(as_u8(data.data())), n_(data.size()), base_(base) {}

  // Decodes the element whose type code is at `pos`. `depth` counts the
  // nested tuples around it; `nested` says whether it is a child of one.
  // With kBuild, *out receives the value; otherwise `out` is unused.
  // REQUIRES: pos < size, and p[pos] != 0 when nested (the caller handles
  // nested nulls and terminators).
  template <bool kBuild>
  Status element(size_t pos, int depth, bool nested, Scanned* s, TupleValue* out) const {
    const uint8_t code = p_[pos];
    switch (code) {
      case kNullCode:
        s->type = ElementType::kNull;
        s->end = pos + 1;
        if constexpr (kBuild) *out = TupleValue();
        return Status::OK();
      case kBytesCode:
      case kStringCode:
        return bytes_like<kBuild>(pos, s, out);
      case kNestedCode:
        return nested_tuple<kBuild>(pos, depth, s, out);
      case kFloatCode: {
        if (n_ - pos - 1 < 4) return fail("truncated float", pos);
        const auto bits = static_cast<uint32_t>(load_be(p_ + pos + 1, 4));
        s->type = ElementType::kFloat;
        s->end = pos + 5;
        if constexpr (kBuild) *out = TupleValue::float32_bits(internal::float_raw_bits(bits));
        return Status::OK();
      }
      case kDoubleCode: {
        if (n_ - pos - 1 < 8) return fail("truncated double", pos);
        const uint64_t bits = load_be(p_ + pos + 1, 8);
        s->type = ElementType::kDouble;
        s->end = pos + 9;
        if constexpr (kBuild) *out = TupleValue::float64_bits(internal::double_raw_bits(bits));
        return Status::OK();
      }
      case kFalseCode:
      case kTrueCode:
        s->type = ElementType::kBool;
        s->end = pos + 1;
        if constexpr (kBuild) *out = TupleValue::boolean(code == kTrueCode);
        return Status::OK();
      case kUuidCode: {
        if (n_ - pos - 1 < kUuidSize) return fail("truncated uuid", pos);
        s->type = ElementType::kUuid;
        s->end = pos + 1 + kUuidSize;
        if constexpr (kBuild) {
          Uuid u;
          std::memcpy(u.data(), p_ + pos + 1, kUuidSize);
          *out = TupleValue::uuid(u);
        }
        return Status::OK();
      }
      case kStampCode: {
        if (n_ - pos - 1 < kStampSize) return fail("truncated versionstamp", pos);
        s->type = ElementType::kVersionstamp;
        s->end = pos + 1 + kStampSize;
        if constexpr (kBuild) {
          Versionstamp v;
          std::memcpy(v.data(), p_ + pos + 1, kStampSize);
          *out = TupleValue::versionstamp(v);
        }
        return Status::OK();
      }
      // Codes the spec reserves or deprecates (tuple-spec §2).
      case 0x03:
      case 0x04:
      case 0x0A:
      case 0x1E:
      case 0x22:
      case 0x23:
      case 0x24:
      case 0x25:
      case 0x31:
      case 0x32:
        return fail("reserved type code", pos);
      default:
        break;
    }
    if (code >= kNegArbCode && code <= kPosArbCode) return integer<kBuild>(pos, s, out);
    if (code >= kUserFirstCode && code <= kUserLastCode) {
      if (nested) return fail("user type inside a nested tuple", pos);
      s->type = ElementType::kUser;
      s->end = n_;
      if constexpr (kBuild) {
        *out = TupleValue::user(code, BytesView(reinterpret_cast<const char*>(p_ + pos + 1),
                                                n_ - pos - 1));
      }
      return Status::OK();
    }
    return fail("unknown type code", pos);
  }

 private:
  Status fail(std::string_view what, size_t pos) const {
    return fail_at(what, pos, "");
  }

  // "tuple: <what> at byte <offset> (type code 0x<code>)" with `detail`
  // inserted before " at byte", e.g. to point into a string.
  Status fail_at(std::string_view what, size_t pos, std::string_view detail) const {
    char code[8];
    std::snprintf(code, sizeof code, "0x%02x", p_[pos]);
    std::string msg = "tuple: ";
    msg += what;
    msg += detail;
    msg += " at byte ";
    msg += std::to_string(base_ + pos);
    msg += " (type code ";
    msg += code;
    msg += ")";
    return Status::Corruption(std::move(msg));
  }

  template <bool kBuild>
  Status bytes_like(size_t pos, Scanned* s, TupleValue* out) const {
    const bool is_string = p_[pos] == kStringCode;
    const size_t begin = pos + 1;
    size_t i = begin;
    size_t escapes = 0;
    size_t term;
    for (;;) {
      const void* z = i < n_ ? std::memchr(p_ + i, 0, n_ - i) : nullptr;
      if (z == nullptr) return fail(is_string ? "unterminated string" : "unterminated bytes", pos);
      const size_t at = static_cast<size_t>(static_cast<const uint8_t*>(z) - p_);
      if (at + 1 < n_ && p_[at + 1] == kEscapeByte) {
        ++escapes;
        i = at + 2;
        continue;
      }
      term = at;
      break;
    }
    if (is_string) {
      // An escaped 00 is a whole code point, so validating the runs between
      // escapes validates the unescaped string.
      size_t run = begin;
      while (true) {
        const void* z = escapes == 0 ? nullptr : std::memchr(p_ + run, 0, term - run);
        const size_t stop =
            z == nullptr ? term : static_cast<size_t>(static_cast<const uint8_t*>(z) - p_);
        const size_t bad = internal::utf8_error_offset(p_ + run, stop - run);
        if (bad != stop - run) {
          return fail_at("invalid UTF-8", pos,
                         " at byte " + std::to_string(base_ + run + bad) + " in string");
        }
        if (stop == term) break;
        run = stop + 2;
      }
    }
    s->type = is_string ? ElementType::kString : ElementType::kBytes;
    s->end = term + 1;
    s->has_escapes = escapes != 0;
    if constexpr (kBuild) {
      const char* src = reinterpret_cast<const char*>(p_ + begin);
      const size_t value_size = term - begin - escapes;
      *out = is_string ? TupleValue::string(BytesView(src, value_size))
                       : TupleValue::bytes(BytesView(src, value_size));
      if (escapes != 0) {
        // The value now owns a buffer of the right size holding a prefix of
        // the escaped bytes; overwrite it with the unescaped ones rather
        // than build a temporary. The buffer belongs to a non-const string,
        // so writing through it is well-defined.
        char* dst = const_cast<char*>(out->as_bytes().data());
        const char* end = reinterpret_cast<const char*>(p_ + term);
        while (src < end) {
          const char* z = static_cast<const char*>(std::memchr(src, 0, end - src));
          const char* stop = z == nullptr ? end : z;
          std::memcpy(dst, src, static_cast<size_t>(stop - src));
          dst += stop - src;
          if (stop == end) break;
          *dst++ = 0;
          src = stop + 2;
        }
      }
    }
    return Status::OK();
  }

  template <bool kBuild>
  Status integer(size_t pos, Scanned* s, TupleValue* out) const {
    const uint8_t code = p_[pos];
    const size_t avail = n_ - pos - 1;
    const uint8_t* body = p_ + pos + 1;
    if (code == kIntZeroCode) {
      set_int64(0, pos + 1, s, out);
      return Status::OK();
    }
    if (code > kIntZeroCode && code < kPosArbCode) {
      const size_t n = code - kIntZeroCode;
      if (avail < n) return fail("truncated integer", pos);
      if (body[0] == 0) return fail("non-minimal integer", pos);
      const uint64_t m = load_be(body, n);
      if (m <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        set_int64(static_cast<int64_t>(m), pos + 1 + n, s, out);
      } else {
        set_bigint<kBuild>(BigInt::from_uint64(m, false), pos + 1 + n, s, out);
      }
      return Status::OK();
    }
    if (code > kNegArbCode && code < kIntZeroCode) {
      const size_t n = kIntZeroCode - code;
      if (avail < n) return fail("truncated integer", pos);
      // A leading FF would be a leading zero of the magnitude.
      if (body[0] == 0xFF) return fail("non-minimal integer", pos);
      const uint64_t mask = n == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * n)) - 1;
      const uint64_t m = ~load_be(body, n) & mask;
      if (m <= (uint64_t{1} << 63)) {
        set_int64(static_cast<int64_t>(0 - m), pos + 1 + n, s, out);
      } else {
        set_bigint<kBuild>(BigInt::from_uint64(m, true), pos + 1 + n, s, out);
      }
      return Status::OK();
    }
    // 0x1D / 0x0B: a length byte, then that many bytes.
    const bool negative = code == kNegArbCode;
    if (avail < 1) return fail("truncated integer", pos);
    const size_t len = negative ? (body[0] ^ 0xFFu) : body[0];
    if (avail - 1 < len) return fail("truncated integer", pos);
    const uint8_t* mag = body + 1;
    const size_t end = pos + 2 + len;
    if (len < kMinArbitraryIntBytes) {
      // Python's spelling of +-(2^64 - 1) is the only short form accepted.
      const uint8_t fill = negative ? 0x00 : 0xFF;
      bool python_form = len == 8;
      for (size_t i = 0; python_form && i < 8; ++i) python_form = mag[i] == fill;
      if (!python_form) return fail("non-minimal integer", pos);
      set_bigint<kBuild>(BigInt::from_uint64(~uint64_t{0}, negative), end, s, out);
      return Status::OK();
    }
    if (mag[0] == (negative ? 0xFF : 0x00)) return fail("non-minimal integer", pos);
    s->type = ElementType::kBigInt;
    s->end = end;
    if constexpr (kBuild) {
      uint8_t buf[BigInt::kMaxMagnitudeBytes];
      const uint8_t* src = mag;
      if (negative) {
        for (size_t i = 0; i < len; ++i) buf[i] = static_cast<uint8_t>(~mag[i]);
        src = buf;
      }
      Result<BigInt> b =
          BigInt::from_magnitude(BytesView(reinterpret_cast<const char*>(src), len), negative);
      if (!b.ok()) return fail("integer too large", pos);
      *out = TupleValue::integer(std::move(b).value());
    }
    return Status::OK();
  }

  static void set_int64(int64_t v, size_t end, Scanned* s, TupleValue* out) {
    s->type = ElementType::kInt;
    s->end = end;
    s->int_value = v;
    if (out != nullptr) *out = TupleValue::int64(v);
  }

  template <bool kBuild>
  static void set_bigint(BigInt&& b, size_t end, Scanned* s, TupleValue* out) {
    s->type = ElementType::kBigInt;
    s->end = end;
    if constexpr (kBuild) *out = TupleValue::integer(std::move(b));
  }

  template <bool kBuild>
  Status nested_tuple(size_t pos, int depth, Scanned* s, TupleValue* out) const {
    if (depth >= kMaxNestingDepth) return fail("nesting too deep", pos);
    Tuple* children = nullptr;
    if constexpr (kBuild) {
      *out = TupleValue::nested({});
      children = &out->mutable_nested();
    }
    size_t i = pos + 1;
    for (;;) {
      if (i >= n_) return fail("unterminated nested tuple", pos);
      if (p_[i] == 0x00) {
        if (i + 1 < n_ && p_[i + 1] == kEscapeByte) {
          if constexpr (kBuild) children->emplace_back();
          i += 2;
          continue;
        }
        break;
      }
      Scanned child;
      TupleValue* slot = nullptr;
      if constexpr (kBuild) slot = &children->emplace_back();
      TUPLEKV_RETURN_IF_ERROR(element<kBuild>(i, depth + 1, true, &child, slot));
      i = child.end;
    }
    s->type = ElementType::kNested;
    s->end = i + 1;
    return Status::OK();
  }

  const uint8_t* p_;
  size_t n_;
  size_t base_;
};

}  // namespace

// ---------------------------------------------------------------------------
// Public API

Status pack(const Tuple& t, Bytes* out) {
  PackPlan plan;
  TUPLEKV_RETURN_IF_ERROR(plan_tuple(t, nullptr, 0, false, &plan));
  write_planned(t, plan, out);
  return Status::OK();
}

Status pack_element(const TupleValue& v, Bytes* out) {
  PackPlan plan;
  const ElementPath path{nullptr, 0};
  TUPLEKV_RETURN_IF_ERROR(plan_element(v, &path, true, 0, false, &plan));
  const size_t start = out->size();
  out->resize(start + plan.size);
  uint8_t* begin = reinterpret_cast<uint8_t*>(out->data()) + start;
  Writer w{begin, begin};
  w.element(v, false);
  return Status::OK();
}

void append_int64_element(int64_t v, Bytes* out) {
  uint8_t buf[1 + 8];
  Writer w{buf, buf};
  w.uint_magnitude(magnitude_of(v), v < 0);
  out->append(reinterpret_cast<const char*>(buf), static_cast<size_t>(w.p - buf));
}

namespace {

void append_escaped_element(uint8_t code, BytesView b, Bytes* out) {
  const size_t at = out->size();
  const void* nul = b.empty() ? nullptr : std::memchr(b.data(), 0, b.size());
  if (nul == nullptr) {
    // No NUL to escape, as in most column values: one resize, one copy.
    out->resize(at + b.size() + 2);
    char* p = out->data() + at;
    p[0] = static_cast<char>(code);
    if (!b.empty()) std::memcpy(p + 1, b.data(), b.size());
    p[b.size() + 1] = '\0';
    return;
  }
  out->push_back(static_cast<char>(code));
  size_t start = 0;
  while (nul != nullptr) {
    const auto i = static_cast<size_t>(static_cast<const char*>(nul) - b.data());
    out->append(b.data() + start, i - start);
    out->append("\x00\xff", 2);
    start = i + 1;
    nul = start < b.size() ? std::memchr(b.data() + start, 0, b.size() - start) : nullptr;
  }
  out->append(b.data() + start, b.size() - start);
  out->push_back('\0');
}

}  // namespace

void append_string_element(std::string_view s, Bytes* out) {
  append_escaped_element(kStringCode, s, out);
}

void append_bytes_element(BytesView b, Bytes* out) { append_escaped_element(kBytesCode, b, out); }

void append_double_element(double v, Bytes* out) {
  uint8_t buf[1 + 8];
  buf[0] = kDoubleCode;
  store_be(internal::double_key_bits(std::bit_cast<uint64_t>(v)), 8, buf + 1);
  out->append(reinterpret_cast<const char*>(buf), sizeof buf);
}

Status pack_allow_incomplete(const Tuple& t, Bytes* out) {
  PackPlan plan;
  plan.allow_incomplete = true;
  TUPLEKV_RETURN_IF_ERROR(plan_tuple(t, nullptr, 0, false, &plan));
  write_planned(t, plan, out);
  return Status::OK();
}

Result<Bytes> packed(const Tuple& t) {
  Bytes out;
  TUPLEKV_RETURN_IF_ERROR(pack(t, &out));
  return out;
}

Status pack_with_versionstamp(const Tuple& t, size_t prefix_len, Bytes* out) {
  PackPlan plan;
  plan.allow_incomplete = true;
  TUPLEKV_RETURN_IF_ERROR(plan_tuple(t, nullptr, 0, false, &plan));
  if (plan.incomplete_stamps != 1) {
    return Status::InvalidArgument(
        plan.incomplete_stamps == 0
            ? "tuple: pack_with_versionstamp needs an incomplete versionstamp, found none"
            : "tuple: pack_with_versionstamp needs exactly one incomplete versionstamp, found " +
                  std::to_string(plan.incomplete_stamps));
  }
  // The offset is only known after writing, but it is bounded by the size.
  if (prefix_len > std::numeric_limits<uint32_t>::max() ||
      plan.size > std::numeric_limits<uint32_t>::max() - prefix_len) {
    return Status::InvalidArgument(
        "tuple: pack_with_versionstamp offset does not fit in 4 bytes");
  }
  const size_t offset = write_planned(t, plan, out) + prefix_len;
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((offset >> (8 * i)) & 0xFF));
  return Status::OK();
}

Status decode_element(BytesView* in, TupleValue* out, size_t base_offset) {
  if (in->empty()) {
    return Status::Corruption("tuple: expected an element at byte " +
                              std::to_string(base_offset) + ", found the end of the input");
  }
  const Decoder d(*in, base_offset);
  Scanned s;
  TUPLEKV_RETURN_IF_ERROR(d.element<true>(0, 0, false, &s, out));
  in->remove_prefix(s.end);
  return Status::OK();
}

Status unpack(BytesView packed, Tuple* out) {
  out->clear();
  // Elements take at least one byte; small keys then never regrow.
  const size_t guess = packed.size() < 8 ? packed.size() : 8;
  if (out->capacity() < guess) out->reserve(guess);
  const Decoder d(packed, 0);
  size_t pos = 0;
  while (pos < packed.size()) {
    Scanned s;
    TUPLEKV_RETURN_IF_ERROR(d.element<true>(pos, 0, false, &s, &out->emplace_back()));
    pos = s.end;
  }
  return Status::OK();
}

// Null, integers of up to 7 bytes, doubles, and strings and bytes without
// escapes: nearly every element of a real key or row, read without the
// general decoder. Anything else, and anything not canonical or not whole,
// returns false and goes to the decoder, which also reports every error.
bool TupleReader::fast_next() {
  const uint8_t* p = as_u8(all_.data()) + pos_;
  const size_t avail = all_.size() - pos_;
  const uint8_t code = p[0];
  size_t size = 0;
  int64_t value = 0;
  ElementType type;
  if (code == 0x00) {
    size = 1;
    type = ElementType::kNull;
  } else if (code >= 0x14 && code <= 0x1b) {
    const size_t n = code - 0x14u;
    if (avail < 1 + n || (n > 0 && p[1] == 0x00)) return false;
    value = static_cast<int64_t>(load_be(p + 1, n));
    size = 1 + n;
    type = ElementType::kInt;
  } else if (code >= 0x0d && code <= 0x13) {
    const size_t n = 0x14u - code;
    if (avail < 1 + n || p[1] == 0xff) return false;
    value = static_cast<int64_t>(load_be(p + 1, n)) - static_cast<int64_t>((uint64_t{1} << (8 * n)) - 1);
    size = 1 + n;
    type = ElementType::kInt;
  } else if (code == 0x21) {
    if (avail < 9) return false;
    size = 9;
    type = ElementType::kDouble;
  } else if (code == 0x01 || code == 0x02) {
    const void* z = std::memchr(p + 1, 0, avail - 1);
    if (z == nullptr) return false;
    const size_t at = static_cast<size_t>(static_cast<const uint8_t*>(z) - p);
    if (at + 1 < avail && p[at + 1] == 0xff) return false;  // escapes
    if (code == 0x02 && internal::utf8_error_offset(p + 1, at - 1) != at - 1) return false;
    size = at + 1;
    type = code == 0x02 ? ElementType::kString : ElementType::kBytes;
  } else {
    return false;
  }
  raw_offset_ = pos_;
  raw_ = all_.substr(pos_, size);
  type_ = type;
  has_escapes_ = false;
  int_ = value;
  pos_ += size;
  return true;
}

bool decode_scalar_element(BytesView element, ScalarElement* out) {
  // frame_element holds the rules; here the element must be all of `element`.
  FramedAs as;
  if (element.empty() || frame_element(element, out, &as) != element.size()) return false;
  return as == FramedAs::kScalar || (as == FramedAs::kUncheckedText && scalar_text_is_valid(*out));
}

bool TupleReader::next() {
  if (!status_.ok() || pos_ >= all_.size()) return false;
  if (fast_next()) return true;
  const Decoder d(all_, 0);
  Scanned s;
  Status st = d.element<false>(pos_, 0, false, &s, nullptr);
  if (!st.ok()) {
    status_ = std::move(st);
    return false;
  }
  raw_offset_ = pos_;
  raw_ = all_.substr(pos_, s.end - pos_);
  type_ = s.type;
  has_escapes_ = s.has_escapes;
  int_ = s.int_value;
  pos_ = s.end;
  return true;
}

int64_t TupleReader::int64_value() const {
  assert(type_ == ElementType::kInt);
  return int_;
}

uint64_t TupleReader::double_bits() const {
  assert(type_ == ElementType::kDouble);
  return internal::double_raw_bits(load_be(as_u8(raw_.data()) + 1, 8));
}

uint32_t TupleReader::float_bits() const {
  assert(type_ == ElementType::kFloat);
  return internal::float_raw_bits(static_cast<uint32_t>(load_be(as_u8(raw_.data()) + 1, 4)));
}

bool TupleReader::bool_value() const {
  assert(type_ == ElementType::kBool);
  return static_cast<uint8_t>(raw_[0]) == kTrueCode;
}

BytesView TupleReader::escaped_payload() const {
  assert(type_ == ElementType::kBytes || type_ == ElementType::kString);
  return raw_.substr(1, raw_.size() - 2);
}

Status TupleReader::decode(TupleValue* out) const {
  BytesView in = raw_;
  return decode_element(&in, out, raw_offset_);
}

Result<Bytes> strinc(BytesView key) {
  size_t n = key.size();
  while (n > 0 && static_cast<uint8_t>(key[n - 1]) == 0xFF) --n;
  if (n == 0) {
    return Status::InvalidArgument("strinc: key must contain a byte other than 0xff");
  }
  Bytes out(key.substr(0, n));
  out[n - 1] = static_cast<char>(static_cast<uint8_t>(out[n - 1]) + 1);
  return out;
}

bool has_tuple_prefix(BytesView key, BytesView packed_prefix) {
  return has_prefix(key, packed_prefix) &&
         (key.size() == packed_prefix.size() ||
          static_cast<unsigned char>(key[packed_prefix.size()]) != 0xFF);
}

Bytes tuple_prefix_end(BytesView packed_prefix) {
  Bytes end;
  end.reserve(packed_prefix.size() + 1);
  end.append(packed_prefix);
  end.push_back('\xff');
  return end;
}

KeyRange range(BytesView packed_prefix) {
  KeyRange r;
  r.begin.reserve(packed_prefix.size() + 1);
  r.begin.append(packed_prefix);
  r.end = r.begin;
  r.begin.push_back('\x00');
  r.end.push_back('\xff');
  return r;
}

}  // namespace tuplekv

namespace tuplekv {

size_t quick_element_size(BytesView in) {
  if (in.empty()) return 0;
  const auto code = static_cast<uint8_t>(in[0]);
  size_t n = 0;  // payload bytes after the code
  if (code == 0x00 || code == 0x26 || code == 0x27) {
    n = 0;
  } else if (code == 0x01 || code == 0x02) {
    // Up to the first 00 that is not followed by FF.
    size_t at = 1;
    for (;;) {
      const void* z = std::memchr(in.data() + at, 0, in.size() - at);
      if (z == nullptr) return 0;
      at = static_cast<size_t>(static_cast<const char*>(z) - in.data());
      if (at + 1 < in.size() && static_cast<uint8_t>(in[at + 1]) == 0xff) {
        at += 2;
        continue;
      }
      return at + 1;
    }
  } else if (code >= 0x0c && code <= 0x1c) {
    n = code >= 0x14 ? code - 0x14u : 0x14u - code;
  } else if (code == 0x20) {
    n = 4;
  } else if (code == 0x21) {
    n = 8;
  } else if (code == 0x30) {
    n = 16;
  } else if (code == 0x33) {
    n = 12;
  } else {
    return 0;
  }
  return 1 + n <= in.size() ? 1 + n : 0;
}

Status element_size(BytesView in, size_t* size) {
  *size = quick_element_size(in);
  if (*size != 0) return Status::OK();
  TupleReader r(in);
  if (!r.next()) {
    if (!r.status().ok()) return r.status();
    return Status::Corruption("tuple: expected an element at byte 0, found the end of the input");
  }
  *size = r.raw().size();
  return Status::OK();
}

}  // namespace tuplekv
