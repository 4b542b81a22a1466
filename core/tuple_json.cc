// The JSON form of tuples (see tuple_json.h for the format).
//
// JSON library: simdjson (Debian: libsimdjson-dev), its On Demand API.
// Why this one and not nlohmann-json:
//  * exact numbers: raw_json_token() hands us the number's own text, so an
//    integer of any size becomes an int64 or a BigInt digit for digit, and a
//    double is rounded once, by std::from_chars; nothing goes through a
//    double on the way;
//  * strict validation: the input is checked as UTF-8 before anything else,
//    unescaped control characters, bad escapes and lone surrogates are
//    errors, and every value we read is checked as we read it;
//  * no exceptions: we use only the error-code API (core/ never throws);
//  * it fits what comes next: tuplekv_docs explodes JSON documents into path
//    keys in one forward pass, which is what On Demand is built for, and
//    documents up to megabytes parse quickly.
// On Demand validates lazily, so this file consumes every value it is given
// (nothing is skipped), checks the number grammar itself (simdjson only
// classifies number tokens: json_number_grammar in core/json_text.h), rejects
// duplicate keys in tagged objects, and checks for content after the top-level array.
// simdjson detects unbalanced brackets and unterminated strings while
// indexing, before it knows where they are; locate_structure_error() finds
// the byte for the message.
//
// Numbers are written by internal::append_shortest (shared with
// tuple_repr): the shortest digits that read back to the same bits, in
// Python's repr() spelling, which is also what Python's json.dumps writes.
#include "core/tuple_json.h"

#include <simdjson.h>

#include <bit>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/json_text.h"
#include "core/tuple_internal.h"

namespace tuplekv {

namespace {

namespace od = simdjson::ondemand;

using internal::kMaxNestingDepth;

constexpr uint64_t kDoubleQuietNan = 0x7ff8000000000000ull;
constexpr uint64_t kDoubleInf = 0x7ff0000000000000ull;
constexpr uint64_t kDoubleNegInf = 0xfff0000000000000ull;
constexpr uint64_t kDoubleNegZero = 0x8000000000000000ull;
constexpr uint32_t kFloatQuietNan = 0x7fc00000u;
constexpr uint32_t kFloatInf = 0x7f800000u;
constexpr uint32_t kFloatNegInf = 0xff800000u;
constexpr uint32_t kFloatNegZero = 0x80000000u;

constexpr uint8_t kUserFirstCode = static_cast<uint8_t>(TypeCode::kUserFirst);
constexpr uint8_t kUserLastCode = static_cast<uint8_t>(TypeCode::kUserLast);

constexpr std::string_view kPrefix = "tuple JSON: ";

// The position of an element ("2.0"), kept on the stack while reading.
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

std::string hex_bits(uint64_t bits, int digits) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string s = "0x";
  for (int i = digits - 1; i >= 0; --i) s.push_back(kDigits[(bits >> (4 * i)) & 0xF]);
  return s;
}

// Parses "0x" + exactly `digits` hex digits (either case).
bool parse_hex_bits(std::string_view s, int digits, uint64_t* out) {
  if (s.size() != static_cast<size_t>(digits) + 2 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) {
    return false;
  }
  Bytes raw;
  if (!from_hex(s.substr(2), &raw)) return false;
  *out = internal::load_be(reinterpret_cast<const uint8_t*>(raw.data()), raw.size());
  return true;
}

// ---------------------------------------------------------------------------
// Writing

class Writer {
 public:
  explicit Writer(std::string* out) : out_(out) {}

  Status tuple(const Tuple& t, const ElementPath* parent, int depth) {
    if (depth > kMaxNestingDepth) {
      return Status::InvalidArgument(std::string(kPrefix) + "nesting deeper than " +
                                     std::to_string(kMaxNestingDepth) + " levels");
    }
    out_->push_back('[');
    for (size_t i = 0; i < t.size(); ++i) {
      if (i != 0) out_->push_back(',');
      const ElementPath path{parent, i};
      TUPLEKV_RETURN_IF_ERROR(element(t[i], &path, depth));
    }
    out_->push_back(']');
    return Status::OK();
  }

 private:
  Status element(const TupleValue& v, const ElementPath* path, int depth) {
    switch (v.type()) {
      case ElementType::kNull:
        out_->append("null");
        return Status::OK();
      case ElementType::kBool:
        out_->append(v.as_bool() ? "true" : "false");
        return Status::OK();
      case ElementType::kInt: {
        char buf[24];
        const auto r = std::to_chars(buf, buf + sizeof buf, v.as_int64());
        out_->append(buf, r.ptr);
        return Status::OK();
      }
      case ElementType::kBigInt:
        out_->append(v.as_bigint().to_decimal());
        return Status::OK();
      case ElementType::kDouble:
        write_double(v.float64_bits());
        return Status::OK();
      case ElementType::kFloat:
        write_float(v.float32_bits());
        return Status::OK();
      case ElementType::kString: {
        const std::string_view s = v.as_string();
        if (!is_valid_utf8(s)) {
          return Status::InvalidArgument(std::string(kPrefix) +
                                         "invalid UTF-8 in the string at element " +
                                         path_text(path));
        }
        write_string(s);
        return Status::OK();
      }
      case ElementType::kBytes:
        tagged_hex("$bytes", v.as_bytes());
        return Status::OK();
      case ElementType::kUuid: {
        const Uuid& u = v.as_uuid();
        tagged_hex("$uuid", BytesView(reinterpret_cast<const char*>(u.data()), u.size()));
        return Status::OK();
      }
      case ElementType::kVersionstamp: {
        const Versionstamp& s = v.as_versionstamp();
        tagged_hex("$versionstamp", BytesView(reinterpret_cast<const char*>(s.data()), s.size()));
        return Status::OK();
      }
      case ElementType::kUser: {
        const uint8_t code = v.user_code();
        if (code < kUserFirstCode || code > kUserLastCode) {
          return Status::InvalidArgument(std::string(kPrefix) + "user type code " +
                                         std::to_string(code) + " at element " +
                                         path_text(path) + " is outside 64..79");
        }
        out_->append("{\"$user\":");
        out_->append(std::to_string(code));
        out_->append(",\"data\":\"");
        out_->append(to_hex(v.as_bytes()));
        out_->append("\"}");
        return Status::OK();
      }
      case ElementType::kNested:
        return tuple(v.as_nested(), path, depth + 1);
    }
    return Status::Internal("tuplekv internal error: unknown element type");
  }

  void tagged_hex(std::string_view tag, BytesView payload) {
    out_->append("{\"");
    out_->append(tag);
    out_->append("\":\"");
    out_->append(to_hex(payload));
    out_->append("\"}");
  }

  void tagged_string(std::string_view tag, std::string_view s) {
    out_->append("{\"");
    out_->append(tag);
    out_->append("\":\"");
    out_->append(s);
    out_->append("\"}");
  }

  void write_double(uint64_t bits) {
    const double d = std::bit_cast<double>(bits);
    if (std::isnan(d)) {
      tagged_string("$double", bits == kDoubleQuietNan ? "nan" : hex_bits(bits, 16));
    } else if (bits == kDoubleInf) {
      tagged_string("$double", "inf");
    } else if (bits == kDoubleNegInf) {
      tagged_string("$double", "-inf");
    } else if (bits == kDoubleNegZero) {
      tagged_string("$double", "-0.0");
    } else {
      internal::append_shortest(d, out_);  // always has '.' or an exponent
    }
  }

  void write_float(uint32_t bits) {
    const float f = std::bit_cast<float>(bits);
    if (std::isnan(f)) {
      tagged_string("$float", bits == kFloatQuietNan ? "nan" : hex_bits(bits, 8));
    } else if (bits == kFloatInf) {
      tagged_string("$float", "inf");
    } else if (bits == kFloatNegInf) {
      tagged_string("$float", "-inf");
    } else if (bits == kFloatNegZero) {
      tagged_string("$float", "-0.0");
    } else {
      out_->append("{\"$float\":");
      internal::append_shortest(f, out_);  // float32 digits
      out_->push_back('}');
    }
  }

  // A JSON string: '"' and '\' escaped, control characters and DEL as
  // short escapes or \u00XX, everything else (valid UTF-8) as is.
  void write_string(std::string_view s) { append_json_string(s, out_, JsonEscape::kAlsoDelete); }

  std::string* out_;
};

// ---------------------------------------------------------------------------
// Reading

// What a simdjson error means here (core/json_text.h), with this reader's
// own wording for the one error that also means "content after the array".
std::string describe(simdjson::error_code e) {
  if (e == simdjson::INCOMPLETE_ARRAY_OR_OBJECT) {
    return "unclosed array or object, or content after the top-level array";
  }
  return describe_json_error(e);
}

// Where the bracket structure of `s` breaks, for the errors simdjson reports
// without a useful position (it indexes the whole document before handing
// out values, and then only knows that something is unbalanced). Walks the
// text the way a tokenizer does, skipping over strings; returns false when
// it finds nothing wrong with the structure.
struct Located {
  size_t offset = 0;
  std::string what;
};

bool locate_structure_error(std::string_view s, Located* out) {
  std::string open;  // the stack of '[' and '{' not yet closed
  bool top_closed = false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (is_json_space(c)) continue;
    if (top_closed) {
      *out = {i, "content after the top-level array"};
      return true;
    }
    if (c == '"') {
      const size_t start = i;
      for (++i;; ++i) {
        if (i >= s.size()) {
          *out = {start, "unterminated string"};
          return true;
        }
        const auto b = static_cast<unsigned char>(s[i]);
        if (b == '"') break;
        if (b == '\\') {
          ++i;  // the escaped character is never the closing quote
          continue;
        }
        if (b < 0x20) {
          *out = {i, "unescaped control character in a string"};
          return true;
        }
      }
      continue;
    }
    if (c == '[' || c == '{') {
      open.push_back(c);
      continue;
    }
    if (c == ']' || c == '}') {
      if (open.empty() || open.back() != (c == ']' ? '[' : '{')) {
        *out = {i, std::string("unexpected '") + c + "'"};
        return true;
      }
      open.pop_back();
      top_closed = open.empty();
      continue;
    }
    if (static_cast<unsigned char>(c) < 0x20) {
      *out = {i, "unexpected control character"};
      return true;
    }
  }
  if (!open.empty()) {
    *out = {s.size(), "unclosed array or object at the end of the input"};
    return true;
  }
  return false;
}

bool is_known_tag(std::string_view key) {
  return key == "$bytes" || key == "$uuid" || key == "$versionstamp" || key == "$double" ||
         key == "$float" || key == "$user";
}

class Reader {
 public:
  explicit Reader(std::string_view json) : json_(json) {}

  Status parse(Tuple* out) {
    if (json_.size() > std::numeric_limits<uint32_t>::max()) {
      return Status::InvalidArgument(std::string(kPrefix) + "input too large (" +
                                     std::to_string(json_.size()) + " bytes)");
    }
    if (json_.substr(0, 3) == "\xEF\xBB\xBF") {
      return invalid_at(0, "byte-order mark (JSON text starts with '[')");
    }
    buf_ = simdjson::padded_string(json_);
    if (buf_.data() == nullptr) return Status::NoMemory();
    od::document doc;
    if (const auto e = parser_.iterate(buf_).get(doc)) return document_error(e);
    od::array top;
    if (const auto e = doc.get_array().get(top)) {
      if (e == simdjson::INCORRECT_TYPE) {
        return Status::InvalidArgument(std::string(kPrefix) +
                                       "the top level must be an array, at byte " +
                                       std::to_string(first_token_offset()));
      }
      return syntax_error(e, &doc, nullptr);
    }
    out->clear();
    TUPLEKV_RETURN_IF_ERROR(array(top, nullptr, 0, &doc, out));
    // On Demand stops after the array's closing bracket; anything after it
    // other than whitespace is trailing garbage.
    const char* rest = nullptr;
    if (!doc.current_location().get(rest)) {
      return invalid_at(offset_of(rest), "content after the top-level array");
    }
    return Status::OK();
  }

 private:
  size_t offset_of(const char* p) const { return static_cast<size_t>(p - buf_.data()); }
  const char* buf_end() const { return buf_.data() + buf_.size(); }

  size_t first_token_offset() const {
    size_t i = 0;
    while (i < json_.size() && is_json_space(json_[i])) ++i;
    return i;
  }

  static Status invalid_at(size_t offset, std::string_view what) {
    return Status::InvalidArgument(std::string(kPrefix) + "invalid JSON at byte " +
                                   std::to_string(offset) + ": " + std::string(what));
  }

  // simdjson reports these once it has indexed the whole text, without the
  // place; locate_structure_error() finds it.
  static bool is_structure_error(simdjson::error_code e) {
    return e == simdjson::INCOMPLETE_ARRAY_OR_OBJECT || e == simdjson::UNCLOSED_STRING ||
           e == simdjson::UNESCAPED_CHARS || e == simdjson::TAPE_ERROR;
  }

  // An error from iterate(): the document could not be indexed at all.
  Status document_error(simdjson::error_code e) const {
    if (e == simdjson::MEMALLOC) return Status::NoMemory();
    if (e == simdjson::UTF8_ERROR) {
      return invalid_at(internal::utf8_error_offset(
                            reinterpret_cast<const uint8_t*>(json_.data()), json_.size()),
                        describe(e));
    }
    Located where;
    if (is_structure_error(e) && locate_structure_error(json_, &where)) {
      return invalid_at(where.offset, where.what);
    }
    return Status::InvalidArgument(std::string(kPrefix) + "invalid JSON: " + describe(e));
  }

  // An error while walking the document: simdjson knows where it stopped,
  // but a bracket that does not match is better reported where it is.
  Status syntax_error(simdjson::error_code e, od::document* doc, const ElementPath* path) {
    if (e == simdjson::MEMALLOC) return Status::NoMemory();
    Located where;
    if (is_structure_error(e) && locate_structure_error(json_, &where)) {
      return invalid_at(where.offset, where.what);
    }
    std::string msg = std::string(kPrefix) + "invalid JSON";
    const char* at = nullptr;
    if (!doc->current_location().get(at)) {
      msg += " at byte " + std::to_string(offset_of(at));
    } else {
      msg += " at the end of the input";
    }
    if (path != nullptr) msg += " (element " + path_text(path) + ")";
    return Status::InvalidArgument(msg + ": " + describe(e));
  }

  Status element_error(const ElementPath* path, const char* at, std::string_view what) const {
    return Status::InvalidArgument(std::string(kPrefix) + "element " + path_text(path) +
                                   " at byte " + std::to_string(offset_of(at)) + ": " +
                                   std::string(what));
  }

  Status array(od::array& arr, const ElementPath* parent, int depth, od::document* doc,
               Tuple* out) {
    size_t index = 0;
    for (auto item : arr) {
      const ElementPath path{parent, index++};
      od::value v;
      if (const auto e = std::move(item).get(v)) return syntax_error(e, doc, &path);
      TupleValue element;
      TUPLEKV_RETURN_IF_ERROR(value(v, &path, depth, doc, &element));
      out->push_back(std::move(element));
    }
    return Status::OK();
  }

  Status value(od::value& v, const ElementPath* path, int depth, od::document* doc,
               TupleValue* out) {
    const char* at = v.raw_json_token().data();
    od::json_type type;
    if (const auto e = v.type().get(type)) return syntax_error(e, doc, path);
    switch (type) {
      case od::json_type::null: {
        bool is_null = false;
        if (const auto e = v.is_null().get(is_null)) return syntax_error(e, doc, path);
        if (!is_null) return element_error(path, at, "invalid literal (expected null)");
        *out = TupleValue::null();
        return Status::OK();
      }
      case od::json_type::boolean: {
        bool b = false;
        if (v.get_bool().get(b)) return element_error(path, at, "invalid literal (expected true or false)");
        *out = TupleValue::boolean(b);
        return Status::OK();
      }
      case od::json_type::number:
        return number(v, path, at, out);
      case od::json_type::string: {
        std::string_view s;
        TUPLEKV_RETURN_IF_ERROR(string_value(v, doc, path, &s));
        if (!is_valid_utf8(s)) {
          return element_error(path, at, "string is not valid UTF-8 (lone surrogate?)");
        }
        *out = TupleValue::string(s);
        return Status::OK();
      }
      case od::json_type::array: {
        if (depth >= kMaxNestingDepth) {
          return element_error(path, at, "tuples nested deeper than " +
                                             std::to_string(kMaxNestingDepth) + " levels");
        }
        od::array child;
        if (const auto e = v.get_array().get(child)) return syntax_error(e, doc, path);
        Tuple children;
        TUPLEKV_RETURN_IF_ERROR(array(child, path, depth + 1, doc, &children));
        *out = TupleValue::nested(std::move(children));
        return Status::OK();
      }
      case od::json_type::object: {
        od::object obj;
        if (const auto e = v.get_object().get(obj)) return syntax_error(e, doc, path);
        return tagged(obj, path, at, doc, out);
      }
    }
    return element_error(path, at, "unexpected JSON value");
  }

  // The number token of `v` without its trailing whitespace.
  static std::string_view number_token(od::value& v) {
    std::string_view t = v.raw_json_token();
    while (!t.empty() && is_json_space(t.back())) t.remove_suffix(1);
    return t;
  }

  Status number(od::value& v, const ElementPath* path, const char* at, TupleValue* out) {
    const std::string_view t = number_token(v);
    bool is_integer = false;
    if (!json_number_grammar(t, &is_integer)) {
      return element_error(path, at, "invalid number " + quote_for_message(t));
    }
    if (is_integer) {
      int64_t i = 0;
      const auto r = std::from_chars(t.data(), t.data() + t.size(), i);
      if (r.ec == std::errc() && r.ptr == t.data() + t.size()) {
        *out = TupleValue::int64(i);
        return Status::OK();
      }
      Result<BigInt> big = BigInt::from_decimal(t);
      if (!big.ok()) {
        return element_error(path, at,
                             "integer needs more than 255 bytes (the tuple layer's limit)");
      }
      *out = TupleValue::integer(std::move(big).value());
      return Status::OK();
    }
    double d = 0;
    const auto r = std::from_chars(t.data(), t.data() + t.size(), d);
    if (r.ec != std::errc() || r.ptr != t.data() + t.size() || !std::isfinite(d)) {
      return element_error(path, at, "number " + quote_for_message(t) + " is out of range for a double");
    }
    *out = TupleValue::float64(d);
    return Status::OK();
  }

  // A tagged object: {"$bytes": ...}, {"$user": N, "data": ...}, ...
  Status tagged(od::object& obj, const ElementPath* path, const char* at, od::document* doc,
                TupleValue* out) {
    std::string tag;
    bool have_data = false;
    Bytes data;
    uint8_t user_code = 0;
    for (auto item : obj) {
      od::field field;
      if (const auto e = std::move(item).get(field)) return syntax_error(e, doc, path);
      // The key's own position (its opening quote), for errors about it.
      const char* kat = field.key().raw() - 1;
      std::string_view key;
      if (!unescape_json_string(field.key().raw(), buf_end(), &unescaped_, &key)) {
        return syntax_error(simdjson::STRING_ERROR, doc, path);
      }
      od::value& v = field.value();
      const char* vat = v.raw_json_token().data();
      if (key == "data") {
        if (have_data) return element_error(path, kat, "duplicate key \"data\"");
        if (!tag.empty() && tag != "$user") {
          return element_error(path, kat, "unexpected key \"data\" in a " + tag + " object");
        }
        TUPLEKV_RETURN_IF_ERROR(hex_payload(v, path, vat, doc, "\"data\"", &data));
        have_data = true;
        continue;
      }
      if (key.empty() || key[0] != '$') {
        return element_error(path, kat,
                             "unexpected key " + quote_for_message(key, '"') +
                                 " (objects must be tagged values such as {\"$bytes\":\"00ff\"})");
      }
      if (!is_known_tag(key)) {
        return element_error(path, kat,
                             "unknown tag " + quote_for_message(key, '"') +
                                 " (known: $bytes, $uuid, $versionstamp, $float, $double, $user)");
      }
      if (!tag.empty()) {
        return element_error(path, kat,
                             "more than one tag (\"" + tag + "\" and " + quote_for_message(key, '"') + ")");
      }
      tag = std::string(key);
      if (have_data && tag != "$user") {
        return element_error(path, kat, "unexpected key \"data\" in a " + tag + " object");
      }
      if (tag == "$bytes") {
        Bytes b;
        TUPLEKV_RETURN_IF_ERROR(hex_payload(v, path, vat, doc, "$bytes", &b));
        *out = TupleValue::bytes(b);
      } else if (tag == "$uuid") {
        std::string_view s;
        TUPLEKV_RETURN_IF_ERROR(string_payload(v, path, vat, doc, "$uuid", &s));
        Uuid u;
        if (!parse_uuid_text(s, &u)) {
          return element_error(path, vat,
                               "$uuid must be 32 hex digits, optionally as 8-4-4-4-12 with dashes");
        }
        *out = TupleValue::uuid(u);
      } else if (tag == "$versionstamp") {
        Bytes b;
        TUPLEKV_RETURN_IF_ERROR(hex_payload(v, path, vat, doc, "$versionstamp", &b));
        Versionstamp s;
        if (b.size() != s.size()) {
          return element_error(path, vat, "$versionstamp must be 24 hex digits (12 bytes)");
        }
        std::memcpy(s.data(), b.data(), s.size());
        *out = TupleValue::versionstamp(s);
      } else if (tag == "$double") {
        TUPLEKV_RETURN_IF_ERROR(double_payload(v, path, vat, doc, out));
      } else if (tag == "$float") {
        TUPLEKV_RETURN_IF_ERROR(float_payload(v, path, vat, doc, out));
      } else {  // $user
        TUPLEKV_RETURN_IF_ERROR(user_code_payload(v, path, vat, doc, &user_code));
      }
    }
    if (tag.empty()) {
      return element_error(path, at,
                           have_data ? "\"data\" without \"$user\""
                                     : "empty object (objects must be tagged values such as "
                                       "{\"$bytes\":\"00ff\"})");
    }
    if (tag == "$user") {
      if (!have_data) return element_error(path, at, "$user needs a \"data\" key (hex)");
      *out = TupleValue::user(user_code, data);
    }
    return Status::OK();
  }

  Status string_payload(od::value& v, const ElementPath* path, const char* at, od::document* doc,
                        std::string_view what, std::string_view* out) {
    od::json_type type;
    if (const auto e = v.type().get(type)) return syntax_error(e, doc, path);
    if (type != od::json_type::string) {
      return element_error(path, at, std::string(what) + " must be a string");
    }
    return string_value(v, doc, path, out);
  }

  // A string value, unescaped by unescape_json_string (json_text.h), not by
  // simdjson, whose string buffer cannot report a failed allocation.
  Status string_value(od::value& v, od::document* doc, const ElementPath* path, std::string_view* out) {
    od::raw_json_string raw;
    if (const auto e = v.get_raw_json_string().get(raw)) return syntax_error(e, doc, path);
    if (!unescape_json_string(raw.raw(), buf_end(), &unescaped_, out)) {
      return syntax_error(simdjson::STRING_ERROR, doc, path);
    }
    return Status::OK();
  }

  Status hex_payload(od::value& v, const ElementPath* path, const char* at, od::document* doc,
                     std::string_view what, Bytes* out) {
    std::string_view s;
    TUPLEKV_RETURN_IF_ERROR(string_payload(v, path, at, doc, std::string(what) + " (hex)", &s));
    if (!from_hex(s, out)) {
      return element_error(path, at,
                           std::string(what) + " must be an even number of hex digits");
    }
    return Status::OK();
  }

  Status double_payload(od::value& v, const ElementPath* path, const char* at, od::document* doc,
                        TupleValue* out) {
    od::json_type type;
    if (const auto e = v.type().get(type)) return syntax_error(e, doc, path);
    if (type == od::json_type::number) {
      const std::string_view t = number_token(v);
      bool is_integer = false;
      double d = 0;
      if (!json_number_grammar(t, &is_integer)) {
        return element_error(path, at, "invalid number " + quote_for_message(t));
      }
      const auto r = std::from_chars(t.data(), t.data() + t.size(), d);
      if (r.ec != std::errc() || r.ptr != t.data() + t.size() || !std::isfinite(d)) {
        return element_error(path, at,
                             "number " + quote_for_message(t) + " is out of range for a double");
      }
      *out = TupleValue::float64(d);
      return Status::OK();
    }
    std::string_view s;
    TUPLEKV_RETURN_IF_ERROR(string_payload(v, path, at, doc, "$double", &s));
    uint64_t bits = 0;
    if (s == "nan") {
      bits = kDoubleQuietNan;
    } else if (s == "inf") {
      bits = kDoubleInf;
    } else if (s == "-inf") {
      bits = kDoubleNegInf;
    } else if (s == "-0.0") {
      bits = kDoubleNegZero;
    } else if (!parse_hex_bits(s, 16, &bits)) {
      return element_error(path, at,
                           "$double must be a number, \"nan\", \"inf\", \"-inf\", \"-0.0\" "
                           "or \"0x\" and 16 hex digits");
    }
    *out = TupleValue::float64_bits(bits);
    return Status::OK();
  }

  Status float_payload(od::value& v, const ElementPath* path, const char* at, od::document* doc,
                       TupleValue* out) {
    od::json_type type;
    if (const auto e = v.type().get(type)) return syntax_error(e, doc, path);
    if (type == od::json_type::number) {
      const std::string_view t = number_token(v);
      bool is_integer = false;
      float f = 0;
      if (!json_number_grammar(t, &is_integer)) {
        return element_error(path, at, "invalid number " + quote_for_message(t));
      }
      const auto r = std::from_chars(t.data(), t.data() + t.size(), f);
      if (r.ec != std::errc() || r.ptr != t.data() + t.size() || !std::isfinite(f)) {
        return element_error(path, at,
                             "number " + quote_for_message(t) + " is out of range for a float32");
      }
      *out = TupleValue::float32(f);
      return Status::OK();
    }
    std::string_view s;
    TUPLEKV_RETURN_IF_ERROR(string_payload(v, path, at, doc, "$float", &s));
    uint64_t bits = 0;
    if (s == "nan") {
      bits = kFloatQuietNan;
    } else if (s == "inf") {
      bits = kFloatInf;
    } else if (s == "-inf") {
      bits = kFloatNegInf;
    } else if (s == "-0.0") {
      bits = kFloatNegZero;
    } else if (!parse_hex_bits(s, 8, &bits)) {
      return element_error(path, at,
                           "$float must be a number, \"nan\", \"inf\", \"-inf\", \"-0.0\" "
                           "or \"0x\" and 8 hex digits");
    }
    *out = TupleValue::float32_bits(static_cast<uint32_t>(bits));
    return Status::OK();
  }

  Status user_code_payload(od::value& v, const ElementPath* path, const char* at,
                           od::document* doc, uint8_t* code) {
    od::json_type type;
    if (const auto e = v.type().get(type)) return syntax_error(e, doc, path);
    int64_t c = -1;
    if (type == od::json_type::number) {
      const std::string_view t = number_token(v);
      bool is_integer = false;
      if (json_number_grammar(t, &is_integer) && is_integer) {
        const auto r = std::from_chars(t.data(), t.data() + t.size(), c);
        if (r.ec != std::errc() || r.ptr != t.data() + t.size()) c = -1;
      }
    }
    if (c < kUserFirstCode || c > kUserLastCode) {
      return element_error(path, at, "$user must be an integer type code from 64 to 79");
    }
    *code = static_cast<uint8_t>(c);
    return Status::OK();
  }

  std::string_view json_;
  simdjson::padded_string buf_;
  UnescapedStrings unescaped_;  // strings with escapes, for the parse
  od::parser parser_;
};

}  // namespace

Status tuple_to_json(const Tuple& t, std::string* out) {
  out->clear();
  Writer w(out);
  return w.tuple(t, nullptr, 0);
}

Status tuple_from_json(std::string_view json, Tuple* out) {
  Reader r(json);
  return r.parse(out);
}

bool parse_uuid_text(std::string_view text, Uuid* out) {
  std::string digits;
  if (text.size() == 36) {
    for (size_t i = 0; i < text.size(); ++i) {
      const bool dash_here = i == 8 || i == 13 || i == 18 || i == 23;
      if ((text[i] == '-') != dash_here) return false;
      if (!dash_here) digits.push_back(text[i]);
    }
  } else if (text.size() == 32) {
    digits = std::string(text);
  } else {
    return false;
  }
  Bytes raw;
  if (!from_hex(digits, &raw) || raw.size() != out->size()) return false;
  std::memcpy(out->data(), raw.data(), out->size());
  return true;
}

std::string uuid_text(const Uuid& u) {
  const std::string hex = to_hex(BytesView(reinterpret_cast<const char*>(u.data()), u.size()));
  return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" +
         hex.substr(16, 4) + "-" + hex.substr(20);
}

}  // namespace tuplekv
