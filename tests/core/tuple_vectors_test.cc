// The shared golden vectors (tuple-spec §12): 2,000 JSON lines made by an
// independent implementation. Every line must pass; a missing file fails.
//
//   pack lines:  pack(tuple) == hex, unpack(hex) == tuple
//   order lines: pack(a) == hex_a, pack(b) == hex_b, and the sign of the
//                value comparison and of the byte comparison both equal cmp
//   python-1296: additionally, Python's non-canonical spelling of
//                +-(2^64-1) decodes to the same tuple
//
// The file is regular and small, so a minimal JSON reader lives here rather
// than a dependency.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/tuple.h"

namespace tuplekv {
namespace {

// ---------------------------------------------------------------------------
// A minimal JSON reader: objects, arrays, strings (all escapes, surrogate
// pairs), numbers kept as text, true/false/null.

struct Json {
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject };
  Kind kind = Kind::kNull;
  bool boolean = false;
  std::string text;  // kString value (UTF-8) or kNumber spelling
  std::vector<Json> items;
  std::vector<std::pair<std::string, Json>> fields;

  const Json* get(std::string_view key) const {
    for (const auto& [k, v] : fields) {
      if (k == key) return &v;
    }
    return nullptr;
  }
};

class JsonReader {
 public:
  explicit JsonReader(std::string_view s) : s_(s) {}

  bool parse_document(Json* out, std::string* error) {
    if (!value(out, 0)) {
      *error = error_ + " at column " + std::to_string(i_);
      return false;
    }
    skip_space();
    if (i_ != s_.size()) {
      *error = "trailing characters at column " + std::to_string(i_);
      return false;
    }
    return true;
  }

 private:
  bool fail(std::string msg) {
    error_ = std::move(msg);
    return false;
  }

  void skip_space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) {
      ++i_;
    }
  }

  bool literal(std::string_view word) {
    if (s_.substr(i_, word.size()) != word) return fail("bad literal");
    i_ += word.size();
    return true;
  }

  bool value(Json* out, int depth) {
    if (depth > 64) return fail("too deep");
    skip_space();
    if (i_ >= s_.size()) return fail("unexpected end");
    const char c = s_[i_];
    if (c == '{') return object(out, depth);
    if (c == '[') return array(out, depth);
    if (c == '"') {
      out->kind = Json::Kind::kString;
      return string(&out->text);
    }
    if (c == 't') {
      out->kind = Json::Kind::kBool;
      out->boolean = true;
      return literal("true");
    }
    if (c == 'f') {
      out->kind = Json::Kind::kBool;
      out->boolean = false;
      return literal("false");
    }
    if (c == 'n') {
      out->kind = Json::Kind::kNull;
      return literal("null");
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
      out->kind = Json::Kind::kNumber;
      const size_t start = i_;
      while (i_ < s_.size() && std::string_view("+-0123456789.eE").find(s_[i_]) != std::string_view::npos) {
        ++i_;
      }
      out->text = std::string(s_.substr(start, i_ - start));
      return true;
    }
    return fail(std::string("unexpected character '") + c + "'");
  }

  bool object(Json* out, int depth) {
    out->kind = Json::Kind::kObject;
    ++i_;
    skip_space();
    if (i_ < s_.size() && s_[i_] == '}') {
      ++i_;
      return true;
    }
    for (;;) {
      skip_space();
      std::string key;
      if (i_ >= s_.size() || s_[i_] != '"') return fail("expected a key");
      if (!string(&key)) return false;
      skip_space();
      if (i_ >= s_.size() || s_[i_] != ':') return fail("expected ':'");
      ++i_;
      Json v;
      if (!value(&v, depth + 1)) return false;
      out->fields.emplace_back(std::move(key), std::move(v));
      skip_space();
      if (i_ < s_.size() && s_[i_] == ',') {
        ++i_;
        continue;
      }
      if (i_ < s_.size() && s_[i_] == '}') {
        ++i_;
        return true;
      }
      return fail("expected ',' or '}'");
    }
  }

  bool array(Json* out, int depth) {
    out->kind = Json::Kind::kArray;
    ++i_;
    skip_space();
    if (i_ < s_.size() && s_[i_] == ']') {
      ++i_;
      return true;
    }
    for (;;) {
      Json v;
      if (!value(&v, depth + 1)) return false;
      out->items.push_back(std::move(v));
      skip_space();
      if (i_ < s_.size() && s_[i_] == ',') {
        ++i_;
        continue;
      }
      if (i_ < s_.size() && s_[i_] == ']') {
        ++i_;
        return true;
      }
      return fail("expected ',' or ']'");
    }
  }

  bool hex4(uint32_t* out) {
    if (s_.size() - i_ < 4) return fail("short \\u escape");
    uint32_t v = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = s_[i_++];
      v <<= 4;
      if (c >= '0' && c <= '9') {
        v |= static_cast<uint32_t>(c - '0');
      } else if (c >= 'a' && c <= 'f') {
        v |= static_cast<uint32_t>(c - 'a' + 10);
      } else if (c >= 'A' && c <= 'F') {
        v |= static_cast<uint32_t>(c - 'A' + 10);
      } else {
        return fail("bad \\u escape");
      }
    }
    *out = v;
    return true;
  }

  static void append_utf8(uint32_t cp, std::string* out) {
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

  bool string(std::string* out) {
    ++i_;  // opening quote
    for (;;) {
      if (i_ >= s_.size()) return fail("unterminated string");
      const char c = s_[i_++];
      if (c == '"') return true;
      if (c != '\\') {
        out->push_back(c);
        continue;
      }
      if (i_ >= s_.size()) return fail("unterminated escape");
      const char e = s_[i_++];
      switch (e) {
        case '"': out->push_back('"'); break;
        case '\\': out->push_back('\\'); break;
        case '/': out->push_back('/'); break;
        case 'b': out->push_back('\b'); break;
        case 'f': out->push_back('\f'); break;
        case 'n': out->push_back('\n'); break;
        case 'r': out->push_back('\r'); break;
        case 't': out->push_back('\t'); break;
        case 'u': {
          uint32_t cp;
          if (!hex4(&cp)) return false;
          if (cp >= 0xD800 && cp < 0xDC00 && s_.substr(i_, 2) == "\\u") {
            const size_t save = i_;
            i_ += 2;
            uint32_t lo;
            if (!hex4(&lo)) return false;
            if (lo >= 0xDC00 && lo < 0xE000) {
              cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            } else {
              i_ = save;  // a lone high surrogate; keep it as is
            }
          }
          append_utf8(cp, out);
          break;
        }
        default:
          return fail("bad escape");
      }
    }
  }

  std::string_view s_;
  size_t i_ = 0;
  std::string error_;
};

// ---------------------------------------------------------------------------
// Vector elements -> TupleValues

struct LineContext {
  std::set<std::string> types;  // element types met in the line
  std::map<std::string, int>* type_counts;
};

bool fixed_hex(const Json* j, size_t bytes, uint8_t* out, std::string* error) {
  Bytes b;
  if (j == nullptr || j->kind != Json::Kind::kString || !from_hex(j->text, &b) ||
      b.size() != bytes) {
    *error = "expected " + std::to_string(bytes) + " bytes of hex";
    return false;
  }
  std::memcpy(out, b.data(), bytes);
  return true;
}

bool raw_bits(const Json* j, size_t hex_digits, uint64_t* out, std::string* error) {
  if (j == nullptr || j->kind != Json::Kind::kString || j->text.size() != 2 + hex_digits ||
      j->text.compare(0, 2, "0x") != 0) {
    *error = "expected 0x and " + std::to_string(hex_digits) + " hex digits";
    return false;
  }
  Bytes b;
  if (!from_hex(j->text.substr(2), &b)) {
    *error = "bad hex in " + j->text;
    return false;
  }
  uint64_t v = 0;
  for (char c : b) v = (v << 8) | static_cast<uint8_t>(c);
  *out = v;
  return true;
}

bool to_tuple(const Json& arr, LineContext* ctx, Tuple* out, std::string* error);

bool to_value(const Json& e, LineContext* ctx, TupleValue* out, std::string* error) {
  const Json* t = e.get("t");
  if (t == nullptr || t->kind != Json::Kind::kString) {
    *error = "element without \"t\"";
    return false;
  }
  const std::string& type = t->text;
  const Json* v = e.get("v");
  ctx->types.insert(type);
  ++(*ctx->type_counts)[type];
  if (type == "null") {
    *out = TupleValue::null();
  } else if (type == "bytes") {
    Bytes b;
    if (v == nullptr || !from_hex(v->text, &b)) {
      *error = "bad bytes hex";
      return false;
    }
    *out = TupleValue::bytes(b);
  } else if (type == "str") {
    Bytes utf8;
    const Json* u = e.get("utf8");
    if (u == nullptr || !from_hex(u->text, &utf8)) {
      *error = "bad utf8 hex";
      return false;
    }
    if (v == nullptr || v->text != utf8) {
      *error = "str v and utf8 disagree: " + to_hex(v == nullptr ? "" : v->text) + " vs " +
               to_hex(utf8);
      return false;
    }
    *out = TupleValue::string(utf8);
  } else if (type == "int") {
    if (v == nullptr) {
      *error = "int without v";
      return false;
    }
    Result<BigInt> b = BigInt::from_decimal(v->text);
    if (!b.ok()) {
      *error = b.status().message();
      return false;
    }
    *out = TupleValue::integer(std::move(b).value());
  } else if (type == "float") {
    uint64_t bits;
    if (!raw_bits(v, 8, &bits, error)) return false;
    *out = TupleValue::float32_bits(static_cast<uint32_t>(bits));
  } else if (type == "double") {
    uint64_t bits;
    if (!raw_bits(v, 16, &bits, error)) return false;
    *out = TupleValue::float64_bits(bits);
  } else if (type == "bool") {
    if (v == nullptr || v->kind != Json::Kind::kBool) {
      *error = "bool without a boolean";
      return false;
    }
    *out = TupleValue::boolean(v->boolean);
  } else if (type == "uuid") {
    Uuid u;
    if (!fixed_hex(v, u.size(), u.data(), error)) return false;
    *out = TupleValue::uuid(u);
  } else if (type == "versionstamp") {
    Versionstamp s;
    if (!fixed_hex(v, s.size(), s.data(), error)) return false;
    *out = TupleValue::versionstamp(s);
  } else if (type == "nested") {
    Tuple children;
    if (v == nullptr || !to_tuple(*v, ctx, &children, error)) return false;
    *out = TupleValue::nested(std::move(children));
  } else {
    *error = "unhandled element type \"" + type + "\"";
    return false;
  }
  return true;
}

bool to_tuple(const Json& arr, LineContext* ctx, Tuple* out, std::string* error) {
  if (arr.kind != Json::Kind::kArray) {
    *error = "expected an array of elements";
    return false;
  }
  out->clear();
  for (const Json& e : arr.items) {
    TupleValue v;
    if (!to_value(e, ctx, &v, error)) return false;
    out->push_back(std::move(v));
  }
  return true;
}

// Python's binding writes +-(2^64-1) as 1D 08 FF*8 / 0B F7 00*8
// (apple/foundationdb#1296); everything else as we do.
bool is_max_uint64_magnitude(const TupleValue& v) {
  return v.type() == ElementType::kBigInt && v.as_bigint().magnitude() == Bytes(8, '\xff');
}

bool pack_python_style(const Tuple& t, bool nested, Bytes* out) {
  for (const TupleValue& v : t) {
    if (is_max_uint64_magnitude(v)) {
      *out += v.as_bigint().negative() ? Bytes("\x0b\xf7") + Bytes(8, '\x00')
                                       : Bytes("\x1d\x08") + Bytes(8, '\xff');
    } else if (v.type() == ElementType::kNested) {
      out->push_back('\x05');
      if (!pack_python_style(v.as_nested(), true, out)) return false;
      out->push_back('\x00');
    } else if (v.is_null() && nested) {
      *out += Bytes("\x00\xff", 2);
    } else if (!pack_element(v, out).ok()) {
      return false;
    }
  }
  return true;
}

int sign(int c) { return c < 0 ? -1 : (c > 0 ? 1 : 0); }

// Checks pack(t) == hex and unpack(hex) == t, and the reader agrees.
bool check_pack(const Tuple& t, const std::string& hex, std::string* error) {
  Bytes packed_bytes;
  const Status ps = pack(t, &packed_bytes);
  if (!ps.ok()) {
    *error = "pack failed: " + ps.message();
    return false;
  }
  if (to_hex(packed_bytes) != hex) {
    *error = "pack gave " + to_hex(packed_bytes) + ", expected " + hex;
    return false;
  }
  Bytes bytes;
  if (!from_hex(hex, &bytes)) {
    *error = "bad hex";
    return false;
  }
  Tuple back;
  const Status us = unpack(bytes, &back);
  if (!us.ok()) {
    *error = "unpack failed: " + us.message();
    return false;
  }
  if (back != t) {
    *error = "unpack gave " + repr(back) + ", expected " + repr(t);
    return false;
  }
  TupleReader r(bytes);
  size_t n = 0;
  while (r.next()) ++n;
  if (!r.at_end() || n != t.size()) {
    *error = "reader saw " + std::to_string(n) + " elements: " + r.status().message();
    return false;
  }
  return true;
}

bool check_python_form(const Tuple& t, const std::string& canonical_hex, std::string* error) {
  Bytes py;
  if (!pack_python_style(t, false, &py)) {
    *error = "cannot build the Python form";
    return false;
  }
  if (to_hex(py) == canonical_hex) {
    *error = "python-1296 line without a +-(2^64-1) element";
    return false;
  }
  Tuple back;
  const Status s = unpack(py, &back);
  if (!s.ok() || back != t) {
    *error = "Python form " + to_hex(py) + " did not decode to " + repr(t) + ": " + s.message();
    return false;
  }
  Bytes again;
  if (!pack(back, &again).ok() || to_hex(again) != canonical_hex) {
    *error = "Python form did not re-encode canonically";
    return false;
  }
  return true;
}

bool has_note(const Json& line, std::string_view note) {
  const Json* notes = line.get("notes");
  if (notes == nullptr) return false;
  for (const Json& n : notes->items) {
    if (n.text == note) return true;
  }
  return false;
}

bool types_match(const Json& line, const LineContext& ctx, std::string* error) {
  std::set<std::string> listed;
  const Json* types = line.get("types");
  if (types == nullptr) {
    *error = "no types field";
    return false;
  }
  for (const Json& t : types->items) listed.insert(t.text);
  if (listed != ctx.types) {
    *error = "types field does not list the element types met";
    return false;
  }
  return true;
}

bool check_line(const Json& line, std::map<std::string, int>* type_counts, bool* is_pack,
                int* python_checked, std::string* error) {
  const Json* kind = line.get("kind");
  if (kind == nullptr) {
    *error = "no kind";
    return false;
  }
  LineContext ctx{{}, type_counts};
  const bool python = has_note(line, "python-1296");
  if (kind->text == "pack") {
    *is_pack = true;
    const Json* tj = line.get("tuple");
    const Json* hex = line.get("hex");
    Tuple t;
    if (tj == nullptr || hex == nullptr || !to_tuple(*tj, &ctx, &t, error)) return false;
    if (!types_match(line, ctx, error)) return false;
    if (!check_pack(t, hex->text, error)) return false;
    if (python) {
      if (!check_python_form(t, hex->text, error)) return false;
      ++*python_checked;
    }
    return true;
  }
  if (kind->text == "order") {
    *is_pack = false;
    const Json* aj = line.get("a");
    const Json* bj = line.get("b");
    const Json* ha = line.get("hex_a");
    const Json* hb = line.get("hex_b");
    const Json* cmp = line.get("cmp");
    Tuple a, b;
    if (aj == nullptr || bj == nullptr || ha == nullptr || hb == nullptr || cmp == nullptr) {
      *error = "order line missing a field";
      return false;
    }
    if (!to_tuple(*aj, &ctx, &a, error) || !to_tuple(*bj, &ctx, &b, error)) return false;
    if (!types_match(line, ctx, error)) return false;
    if (!check_pack(a, ha->text, error) || !check_pack(b, hb->text, error)) return false;
    const int want = std::stoi(cmp->text);
    const int by_value = sign(compare(a, b));
    if (by_value != want) {
      *error = "compare gave " + std::to_string(by_value) + ", expected " + cmp->text;
      return false;
    }
    if (sign(compare(b, a)) != -want) {
      *error = "compare is not antisymmetric";
      return false;
    }
    const int by_bytes = sign(compare_bytes(*packed(a), *packed(b)));
    if (by_bytes != want) {
      *error = "byte order gave " + std::to_string(by_bytes) + ", expected " + cmp->text;
      return false;
    }
    if (python) {
      for (const Tuple* t : {&a, &b}) {
        if (!std::any_of(t->begin(), t->end(), is_max_uint64_magnitude)) continue;
        if (!check_python_form(*t, to_hex(*packed(*t)), error)) return false;
      }
      ++*python_checked;
    }
    return true;
  }
  *error = "unknown kind \"" + kind->text + "\"";
  return false;
}

TEST(TupleVectors, EveryLinePasses) {
  const std::string path = std::string(TUPLEKV_SHARED_DIR) + "/tuple-vectors.jsonl";
  std::ifstream in(path);
  ASSERT_TRUE(in.is_open()) << "golden vectors not found at " << path
                            << " (set TUPLEKV_SHARED_DIR when configuring)";

  int pack_total = 0, pack_ok = 0, order_total = 0, order_ok = 0, python_checked = 0;
  int python_lines = 0, failures_shown = 0;
  std::map<std::string, int> type_counts;
  std::string text;
  int line_no = 0;
  while (std::getline(in, text)) {
    ++line_no;
    if (text.empty()) continue;
    Json line;
    std::string error;
    JsonReader reader(text);
    bool is_pack = false;
    bool ok = reader.parse_document(&line, &error);
    if (ok) {
      if (has_note(line, "python-1296")) ++python_lines;
      const Json* kind = line.get("kind");
      is_pack = kind != nullptr && kind->text == "pack";
      ok = check_line(line, &type_counts, &is_pack, &python_checked, &error);
    }
    (is_pack ? pack_total : order_total) += 1;
    if (ok) {
      (is_pack ? pack_ok : order_ok) += 1;
    } else if (failures_shown++ < 25) {
      ADD_FAILURE() << "line " << line_no << ": " << error << "\n  " << text;
    }
  }

  std::string types;
  for (const auto& [name, count] : type_counts) {
    types += (types.empty() ? "" : ", ") + name + " " + std::to_string(count);
  }
  std::printf("tuple vectors: pack %d/%d, order %d/%d passed; python-1296 forms %d/%d\n",
              pack_ok, pack_total, order_ok, order_total, python_checked, python_lines);
  std::printf("tuple vectors: elements by type: %s\n", types.c_str());

  EXPECT_EQ(line_no, 2000) << "the vector file changed size";
  EXPECT_EQ(pack_total + order_total, 2000);
  EXPECT_EQ(pack_ok, pack_total);
  EXPECT_EQ(order_ok, order_total);
  EXPECT_EQ(python_checked, python_lines);
  EXPECT_GT(python_lines, 0);
  // Every element type of the format is present and was checked.
  for (const char* t : {"null", "bytes", "str", "nested", "int", "float", "double", "bool", "uuid",
                        "versionstamp"}) {
    EXPECT_GT(type_counts[t], 0) << t;
  }
}

}  // namespace
}  // namespace tuplekv
