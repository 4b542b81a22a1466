// JSON text helpers (see json_text.h).
#include "core/json_text.h"

#include <simdjson.h>

#include <cstdint>

#include "core/bytes.h"

namespace tuplekv {

bool json_number_grammar(std::string_view s, bool* is_integer) {
  size_t i = 0;
  const size_t n = s.size();
  auto digits = [&] {
    const size_t start = i;
    while (i < n && s[i] >= '0' && s[i] <= '9') ++i;
    return i > start;
  };
  if (i < n && s[i] == '-') ++i;
  if (i < n && s[i] == '0') {
    ++i;
  } else if (!(i < n && s[i] >= '1' && s[i] <= '9') || !digits()) {
    return false;
  }
  *is_integer = true;
  if (i < n && s[i] == '.') {
    ++i;
    if (!digits()) return false;
    *is_integer = false;
  }
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
    if (!digits()) return false;
    *is_integer = false;
  }
  return i == n;
}

void append_json_string(std::string_view s, std::string* out, JsonEscape escape) {
  static constexpr char kHex[] = "0123456789abcdef";
  const bool del = escape == JsonEscape::kAlsoDelete;
  out->push_back('"');
  size_t run = 0;  // start of the pending run of bytes copied as is
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\' && !(del && c == 0x7F)) continue;
    out->append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"': out->append("\\\""); break;
      case '\\': out->append("\\\\"); break;
      case '\b': out->append("\\b"); break;
      case '\f': out->append("\\f"); break;
      case '\n': out->append("\\n"); break;
      case '\r': out->append("\\r"); break;
      case '\t': out->append("\\t"); break;
      default: {
        const char esc[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF]};
        out->append(esc, sizeof esc);
      }
    }
  }
  out->append(s.data() + run, s.size() - run);
  out->push_back('"');
}

namespace {

// The four hex digits of a \u escape at p (p[0] == '\\', p[1] == 'u'), or -1.
int32_t u_escape(const char* p, const char* end) {
  if (end - p < 6 || p[0] != '\\' || p[1] != 'u') return -1;
  int32_t v = 0;
  for (int i = 2; i < 6; ++i) {
    const int d = hex_digit(p[i]);
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

void append_utf8(uint32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

}  // namespace

bool unescape_json_string(const char* raw, const char* end, UnescapedStrings* keep,
                          std::string_view* out) {
  const char* p = raw;
  while (p < end && *p != '"' && *p != '\\') ++p;
  if (p == end) return false;
  if (*p == '"') {  // the common case: nothing to unescape
    *out = std::string_view(raw, static_cast<size_t>(p - raw));
    return true;
  }
  std::string& s = keep->add();
  s.assign(raw, static_cast<size_t>(p - raw));
  while (p < end && *p != '"') {
    if (*p != '\\') {
      s.push_back(*p++);
      continue;
    }
    if (end - p < 2) return false;
    switch (p[1]) {
      case '"': s.push_back('"'); break;
      case '\\': s.push_back('\\'); break;
      case '/': s.push_back('/'); break;
      case 'b': s.push_back('\b'); break;
      case 'f': s.push_back('\f'); break;
      case 'n': s.push_back('\n'); break;
      case 'r': s.push_back('\r'); break;
      case 't': s.push_back('\t'); break;
      case 'u': {
        const int32_t hi = u_escape(p, end);
        if (hi < 0 || (hi >= 0xDC00 && hi <= 0xDFFF)) return false;
        if (hi >= 0xD800 && hi <= 0xDBFF) {  // needs its low surrogate next
          const int32_t lo = u_escape(p + 6, end);
          if (lo < 0xDC00 || lo > 0xDFFF) return false;
          append_utf8(0x10000 + ((static_cast<uint32_t>(hi) - 0xD800) << 10) +
                          (static_cast<uint32_t>(lo) - 0xDC00),
                      &s);
          p += 12;
        } else {
          append_utf8(static_cast<uint32_t>(hi), &s);
          p += 6;
        }
        continue;
      }
      default:
        return false;
    }
    p += 2;
  }
  if (p == end) return false;
  *out = s;
  return true;
}

std::string describe_json_error(int simdjson_error) {
  const auto e = static_cast<simdjson::error_code>(simdjson_error);
  switch (e) {
    case simdjson::EMPTY: return "empty input";
    case simdjson::UTF8_ERROR: return "invalid UTF-8";
    case simdjson::UNESCAPED_CHARS: return "unescaped control character in a string";
    case simdjson::UNCLOSED_STRING: return "unterminated string";
    case simdjson::STRING_ERROR: return "invalid escape or lone surrogate in a string";
    case simdjson::TAPE_ERROR:
      return "unexpected character, or a missing or extra comma, colon or bracket";
    case simdjson::INCOMPLETE_ARRAY_OR_OBJECT: return "unclosed array or object";
    case simdjson::DEPTH_ERROR: return "nested too deeply";
    case simdjson::T_ATOM_ERROR: return "invalid literal (expected true)";
    case simdjson::F_ATOM_ERROR: return "invalid literal (expected false)";
    case simdjson::N_ATOM_ERROR: return "invalid literal (expected null)";
    case simdjson::NUMBER_ERROR: return "invalid number";
    case simdjson::CAPACITY: return "input too large";
    case simdjson::INCORRECT_TYPE: return "invalid literal or value";
    default: return simdjson::error_message(e);
  }
}

}  // namespace tuplekv
