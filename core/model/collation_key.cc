#include "core/model/collation_key.h"

#include <cstdint>
#include <cstring>

namespace tuplekv::model {

namespace {

constexpr char kStringCode = '\x02';
constexpr uint8_t kSpace = 0x20;

bool is_nocase(std::string_view name) { return name == "NOCASE"; }
bool is_rtrim(std::string_view name) { return name == "RTRIM"; }

char fold(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// The escaped payload of a whole string element (between the code and the
// terminator); false for anything else.
bool string_payload(BytesView element, BytesView* payload) {
  if (element.size() < 2 || element[0] != kStringCode || element.back() != '\0') return false;
  *payload = element.substr(1, element.size() - 2);
  // A terminator is a 00 not followed by FF: one inside means this is not
  // one element.
  for (size_t i = 0; i < payload->size(); ++i) {
    if ((*payload)[i] != '\0') continue;
    if (i + 1 >= payload->size() || static_cast<uint8_t>((*payload)[i + 1]) != 0xff) return false;
    ++i;
  }
  return true;
}

void append_nocase(BytesView escaped, Bytes* out) {
  // The first NUL is escaped as 00 FF; every other byte stands for itself.
  const void* nul = std::memchr(escaped.data(), 0, escaped.size());
  const size_t head = nul == nullptr ? escaped.size()
                                     : static_cast<size_t>(static_cast<const char*>(nul) - escaped.data());
  const size_t start = out->size();
  out->append(escaped.substr(0, head));
  for (size_t i = start; i < out->size(); ++i) (*out)[i] = fold((*out)[i]);
  if (nul == nullptr) return;
  size_t length = 0;  // unescaped
  for (size_t i = 0; i < escaped.size(); ++i, ++length) {
    if (escaped[i] == '\0') ++i;  // 00 FF is one byte
  }
  out->append("\x00\xff", 2);
  char digits[10];
  for (int d = 9; d >= 0; --d) {
    digits[d] = static_cast<char>('0' + length % 10);
    length /= 10;
  }
  out->append(digits, sizeof digits);
}

}  // namespace

bool collation_keys_text(std::string_view name) { return is_nocase(name) || is_rtrim(name); }

void append_collation_key(BytesView element, std::string_view name, Bytes* out) {
  BytesView escaped;
  if (!collation_keys_text(name) || !string_payload(element, &escaped)) {
    out->append(element);
    return;
  }
  out->push_back(kStringCode);
  if (is_nocase(name)) {
    append_nocase(escaped, out);
  } else {
    // A space is never part of an escape, so trimming the escaped bytes
    // trims the text.
    size_t n = escaped.size();
    while (n > 0 && static_cast<uint8_t>(escaped[n - 1]) == kSpace) --n;
    out->append(escaped.substr(0, n));
  }
  out->push_back('\0');
}

}  // namespace tuplekv::model
