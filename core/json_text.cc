// JSON text helpers (see json_text.h).
#include "core/json_text.h"

#include <simdjson.h>

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
