// repr(): a readable, Python-like rendering of tuples for tuple_repr() and
// test output. It is meant for people, not for parsing back.
//
// Forms, chosen to read like the Python binding's values:
//   null                None
//   bool                True / False
//   int (any width)     decimal: 42, -18446744073709551616
//   bytes               b'\x00\xffab' (printable ASCII as is, \t \n \r \\ \'
//                       escaped, everything else \xNN)
//   string              'text' (code points as is; \t \n \r \\ and the quote
//                       escaped as in bytes; other control characters,
//                       including U+0080..U+009F, as \xNN; bytes that are not
//                       UTF-8 as \xNN). Like Python, double quotes are used
//                       when the text contains ' but no ".
//   double              shortest text that round-trips, always with a '.' or
//                       an exponent, switching to an exponent below 1e-4 and
//                       from 1e16 on, as Python does: 1.5, -0.0, 1e+16, 1e-05.
//                       inf and -inf are float('inf') / float('-inf'); the
//                       default quiet NaN (7FF8...0) is float('nan'); any other
//                       NaN shows its raw bits, NaN(0xfff8000000000001), since
//                       distinct NaNs are distinct keys.
//   float32             SingleFloat(<same rules, float32 digits>), the name of
//                       the Python binding's float32 type; its default NaN is
//                       7FC00000.
//   uuid                UUID('01234567-89ab-cdef-0123-456789abcdef')
//   versionstamp        Versionstamp(b'<10-byte transaction version>', <user
//                       version>); an incomplete one is Versionstamp(None, 0),
//                       the Python binding's constructor arguments.
//   nested tuple        (1, 'a'), a 1-tuple with a trailing comma: (1,)
//   user type           UserType(0x40, b'...')
//
// The number spelling is internal::append_shortest (tuple_internal.h),
// defined at the end of this file and shared with the JSON form.
#include <bit>
#include <charconv>
#include <cstdio>
#include <cstring>

#include "core/tuple.h"
#include "core/tuple_internal.h"

namespace tuplekv {

namespace {

void append_hex_byte(uint8_t b, std::string* out) {
  static constexpr char kDigits[] = "0123456789abcdef";
  out->push_back(kDigits[b >> 4]);
  out->push_back(kDigits[b & 0xF]);
}

char pick_quote(BytesView s) {
  const bool single = s.find('\'') != BytesView::npos;
  const bool dbl = s.find('"') != BytesView::npos;
  return single && !dbl ? '"' : '\'';
}

// Escapes shared by bytes and strings; returns false when `c` needs the
// caller's own handling.
bool append_common_escape(uint8_t c, char quote, std::string* out) {
  switch (c) {
    case '\\': *out += "\\\\"; return true;
    case '\t': *out += "\\t"; return true;
    case '\n': *out += "\\n"; return true;
    case '\r': *out += "\\r"; return true;
    default: break;
  }
  if (c == static_cast<uint8_t>(quote)) {
    out->push_back('\\');
    out->push_back(quote);
    return true;
  }
  if (c < 0x20 || c == 0x7F) {
    *out += "\\x";
    append_hex_byte(c, out);
    return true;
  }
  return false;
}

void append_bytes_literal(BytesView b, std::string* out) {
  const char quote = pick_quote(b);
  out->push_back('b');
  out->push_back(quote);
  for (char ch : b) {
    const auto c = static_cast<uint8_t>(ch);
    if (append_common_escape(c, quote, out)) continue;
    if (c >= 0x80) {
      *out += "\\x";
      append_hex_byte(c, out);
    } else {
      out->push_back(ch);
    }
  }
  out->push_back(quote);
}

void append_string_literal(BytesView s, std::string* out) {
  const char quote = pick_quote(s);
  out->push_back(quote);
  const auto* p = reinterpret_cast<const uint8_t*>(s.data());
  size_t i = 0;
  while (i < s.size()) {
    const uint8_t c = p[i];
    if (c < 0x80) {
      if (!append_common_escape(c, quote, out)) out->push_back(static_cast<char>(c));
      ++i;
      continue;
    }
    const size_t len = c >= 0xF0 ? 4 : (c >= 0xE0 ? 3 : 2);
    const size_t have = s.size() - i < len ? s.size() - i : len;
    if (have == len && internal::utf8_error_offset(p + i, len) == len) {
      // U+0080..U+009F (C2 80..C2 9F) are control characters too.
      if (c == 0xC2 && p[i + 1] < 0xA0) {
        *out += "\\x";
        append_hex_byte(p[i + 1], out);
      } else {
        out->append(reinterpret_cast<const char*>(p + i), len);
      }
      i += len;
    } else {
      *out += "\\x";
      append_hex_byte(c, out);
      ++i;
    }
  }
  out->push_back(quote);
}

void append_double(uint64_t bits, std::string* out) {
  const uint64_t exp_mask = 0x7FF0000000000000ull;
  const uint64_t frac_mask = 0x000FFFFFFFFFFFFFull;
  if ((bits & exp_mask) == exp_mask) {
    if ((bits & frac_mask) == 0) {
      *out += (bits >> 63) ? "float('-inf')" : "float('inf')";
    } else if (bits == 0x7FF8000000000000ull) {
      *out += "float('nan')";
    } else {
      char buf[32];
      std::snprintf(buf, sizeof buf, "NaN(0x%016llx)", static_cast<unsigned long long>(bits));
      *out += buf;
    }
    return;
  }
  internal::append_shortest(std::bit_cast<double>(bits), out);
}

void append_float(uint32_t bits, std::string* out) {
  *out += "SingleFloat(";
  const uint32_t exp_mask = 0x7F800000u;
  const uint32_t frac_mask = 0x007FFFFFu;
  if ((bits & exp_mask) == exp_mask) {
    if ((bits & frac_mask) == 0) {
      *out += (bits >> 31) ? "float('-inf')" : "float('inf')";
    } else if (bits == 0x7FC00000u) {
      *out += "float('nan')";
    } else {
      char buf[24];
      std::snprintf(buf, sizeof buf, "NaN(0x%08x)", static_cast<unsigned>(bits));
      *out += buf;
    }
  } else {
    internal::append_shortest(std::bit_cast<float>(bits), out);
  }
  out->push_back(')');
}

void append_value(const TupleValue& v, std::string* out);

void append_tuple(const Tuple& t, std::string* out) {
  out->push_back('(');
  for (size_t i = 0; i < t.size(); ++i) {
    if (i != 0) *out += ", ";
    append_value(t[i], out);
  }
  if (t.size() == 1) out->push_back(',');
  out->push_back(')');
}

void append_value(const TupleValue& v, std::string* out) {
  switch (v.type()) {
    case ElementType::kNull:
      *out += "None";
      return;
    case ElementType::kBytes:
      append_bytes_literal(v.as_bytes(), out);
      return;
    case ElementType::kString:
      append_string_literal(v.as_bytes(), out);
      return;
    case ElementType::kNested:
      append_tuple(v.as_nested(), out);
      return;
    case ElementType::kInt:
      *out += std::to_string(v.as_int64());
      return;
    case ElementType::kBigInt:
      *out += v.as_bigint().to_decimal();
      return;
    case ElementType::kFloat:
      append_float(v.float32_bits(), out);
      return;
    case ElementType::kDouble:
      append_double(v.float64_bits(), out);
      return;
    case ElementType::kBool:
      *out += v.as_bool() ? "True" : "False";
      return;
    case ElementType::kUuid: {
      *out += "UUID('";
      const Uuid& u = v.as_uuid();
      for (size_t i = 0; i < u.size(); ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10) out->push_back('-');
        append_hex_byte(u[i], out);
      }
      *out += "')";
      return;
    }
    case ElementType::kVersionstamp: {
      const Versionstamp& s = v.as_versionstamp();
      *out += "Versionstamp(";
      if (v.versionstamp_complete()) {
        append_bytes_literal(BytesView(reinterpret_cast<const char*>(s.data()), 10), out);
      } else {
        *out += "None";
      }
      *out += ", ";
      *out += std::to_string((static_cast<unsigned>(s[10]) << 8) | s[11]);
      out->push_back(')');
      return;
    }
    case ElementType::kUser: {
      char code[8];
      std::snprintf(code, sizeof code, "0x%02x", v.user_code());
      *out += "UserType(";
      *out += code;
      *out += ", ";
      append_bytes_literal(v.as_bytes(), out);
      out->push_back(')');
      return;
    }
  }
}

}  // namespace

std::string repr(const Tuple& t) {
  std::string out;
  append_tuple(t, &out);
  return out;
}

std::string repr(const TupleValue& v) {
  std::string out;
  append_value(v, &out);
  return out;
}

std::string repr_packed(BytesView packed) {
  Tuple t;
  if (unpack(packed, &t).ok()) return repr(t);
  return "x'" + to_hex(packed) + "'";
}

namespace internal {

namespace {

// `sci` is std::to_chars scientific output ("-1.25e+02"); rewrite it the
// way Python's repr() spells the same digits.
void append_python_float(std::string_view sci, std::string* out) {
  if (!sci.empty() && sci[0] == '-') {
    out->push_back('-');
    sci.remove_prefix(1);
  }
  const size_t e = sci.find('e');
  const std::string_view mantissa = sci.substr(0, e);
  int exp10 = 0;
  std::from_chars(sci.data() + e + 1 + (sci[e + 1] == '+' ? 1 : 0), sci.data() + sci.size(),
                  exp10);
  if (exp10 < -4 || exp10 >= 16) {
    out->append(sci);
    return;
  }
  std::string digits;
  for (char c : mantissa) {
    if (c != '.') digits.push_back(c);
  }
  const int point = exp10 + 1;  // digits before the decimal point
  const int n = static_cast<int>(digits.size());
  if (point <= 0) {
    *out += "0.";
    out->append(static_cast<size_t>(-point), '0');
    *out += digits;
  } else if (point < n) {
    out->append(digits, 0, static_cast<size_t>(point));
    out->push_back('.');
    out->append(digits, static_cast<size_t>(point), std::string::npos);
  } else {
    *out += digits;
    out->append(static_cast<size_t>(point - n), '0');
    *out += ".0";
  }
}

}  // namespace

void append_shortest(double d, std::string* out) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  append_python_float(std::string_view(buf, static_cast<size_t>(r.ptr - buf)), out);
}

void append_shortest(float f, std::string* out) {
  char buf[48];
  const auto r = std::to_chars(buf, buf + sizeof buf, f, std::chars_format::scientific);
  append_python_float(std::string_view(buf, static_cast<size_t>(r.ptr - buf)), out);
}

}  // namespace internal

}  // namespace tuplekv
