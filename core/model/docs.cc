// JSON documents as path -> leaf keys (see docs.h for the layout).
//
// JSON library: simdjson (Debian: libsimdjson-dev), its On Demand API, as
// in core/tuple_json.cc. Why it and not nlohmann-json or a DOM:
//  * exact numbers: raw_json_token() hands us each number's own text, so an
//    integer of any size becomes an int64 or a BigInt digit for digit, and a
//    double is rounded once (std::from_chars); nothing is squeezed through a
//    double on the way;
//  * strict validation (UTF-8, escapes, lone surrogates, control
//    characters) and no exceptions: we use the error-code API only;
//  * exploding a document is one forward pass that writes each leaf's path
//    as it goes, which is what On Demand is built for: no tree is built, and
//    a 100 KB document parses in tens of microseconds.
// The walk is iterative (an explicit stack of array/object iterators), so
// deep documents cannot exhaust a small thread stack. The text is parsed
// inside a wrapping '[' ... ']': that turns a scalar document into an
// ordinary array element and makes "content after the value" the same
// check for every document.
#include "core/model/docs.h"

#include <simdjson.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "core/json_text.h"

namespace tuplekv::model {

namespace {

namespace od = simdjson::ondemand;

constexpr char kNullElement = '\x00';
constexpr uint8_t kStringCode = 0x02;

// ---------------------------------------------------------------------------
// Element helpers (the packed forms, without building TupleValues)

void append_int_element(int64_t v, Bytes* out) {
  // pack_element only fails for strings, versionstamps and user types.
  (void)pack_element(TupleValue::int64(v), out);
}

// The int64 value of a packed element, if it is one.
bool element_int(BytesView raw, int64_t* v) {
  TupleReader r(raw);
  if (!r.next() || r.type() != ElementType::kInt) return false;
  *v = r.int64_value();
  return true;
}

bool is_string_element(BytesView raw) {
  return !raw.empty() && static_cast<uint8_t>(raw[0]) == kStringCode;
}

// The text of a string element: a view of its payload when it holds no
// NUL, else unescaped into *scratch.
std::string_view string_element_text(BytesView raw, std::string* scratch) {
  BytesView payload = raw.substr(1, raw.size() - 2);
  if (payload.find('\0') == BytesView::npos) return payload;
  scratch->clear();
  for (size_t i = 0; i < payload.size(); ++i) {
    scratch->push_back(payload[i]);
    if (payload[i] == '\0') ++i;  // skip the 0xFF escape
  }
  return *scratch;
}

// Splits packed elements into views of each.
Status split_elements(BytesView packed, std::vector<BytesView>* out) {
  out->clear();
  TupleReader r(packed);
  while (r.next()) out->push_back(r.raw());
  if (!r.status().ok()) return r.status();
  return Status::OK();
}

// The first element of `packed` (empty when there is none).
Status first_element(BytesView packed, BytesView* out) {
  TupleReader r(packed);
  if (r.next()) {
    *out = r.raw();
    return Status::OK();
  }
  *out = BytesView();
  return r.status();
}

// Kinds of path element.
enum class Step : uint8_t { kMember, kIndex, kObjectMarker, kArrayMarker, kOther };

Step step_kind(BytesView raw, int64_t* index) {
  if (is_string_element(raw)) return Step::kMember;
  int64_t v = 0;
  if (!element_int(raw, &v)) return Step::kOther;
  *index = v;
  if (v >= 0) return Step::kIndex;
  if (v == kEmptyObjectMarker) return Step::kObjectMarker;
  if (v == kEmptyArrayMarker) return Step::kArrayMarker;
  return Step::kOther;
}

// The end of the keys of `key`'s subtree: key + FF, not strinc(key), which
// would take in the next member or id whose text goes on from the last
// one's ("a" then "a\0b").
Bytes key_end(BytesView key) { return tuple_prefix_end(key); }

// ---------------------------------------------------------------------------
// JSON numbers

// True when a number token that std::from_chars found out of range is
// tiny (rounds to zero) rather than huge: its decimal exponent is negative.
bool underflows(std::string_view t) {
  long long exp10 = 0;
  size_t i = t[0] == '-' ? 1 : 0;
  // Digits before the point, ignoring leading zeros.
  long long int_digits = 0;
  bool nonzero_seen = false;
  long long leading_frac_zeros = 0;
  for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i) {
    if (t[i] != '0') nonzero_seen = true;
    if (nonzero_seen) ++int_digits;
  }
  if (i < t.size() && t[i] == '.') {
    for (++i; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i) {
      if (!nonzero_seen) {
        if (t[i] == '0') {
          ++leading_frac_zeros;
        } else {
          nonzero_seen = true;
        }
      }
    }
  }
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    bool neg = false;
    if (t[i] == '+' || t[i] == '-') neg = t[i++] == '-';
    for (; i < t.size(); ++i) {
      if (exp10 < 100000) exp10 = exp10 * 10 + (t[i] - '0');
    }
    if (neg) exp10 = -exp10;
  }
  const long long magnitude = int_digits > 0 ? int_digits + exp10 : exp10 - leading_frac_zeros;
  return magnitude <= 0;
}

// Appends the shortest digits that read back as `d`, with '.' or an
// exponent so the text stays a double. Infinities (never written by
// explode, but a raw key could hold one) are 9e999 as json1 writes them;
// NaN has no JSON spelling and becomes null.
void append_double(double d, std::string* out) {
  if (std::isnan(d)) {
    out->append("null");
    return;
  }
  if (std::isinf(d)) {
    out->append(d < 0 ? "-9e999" : "9e999");
    return;
  }
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof(buf), d);
  const std::string_view s(buf, static_cast<size_t>(r.ptr - buf));
  out->append(s);
  if (s.find_first_of(".e") == std::string_view::npos) out->append(".0");
}

// ---------------------------------------------------------------------------
// Messages

std::string text_of(BytesView packed_path) {
  std::string s;
  if (!path_text(packed_path, &s).ok()) s = "$(undecodable)";
  return s;
}

}  // namespace

// ---------------------------------------------------------------------------
// Paths

bool JsonPath::concrete() const {
  for (const PathStep& s : steps) {
    if (s.kind == PathStep::Kind::kFromEnd) return false;
  }
  return true;
}

Status parse_json_path(std::string_view text, JsonPath* out) {
  out->steps.clear();
  auto error = [&](size_t at, const std::string& what) {
    return Status::InvalidArgument("bad JSON path " + quote_for_message(text, '\'', 200) + ": " +
                                   what + " at byte " + std::to_string(at));
  };
  if (text.empty() || text[0] != '$') {
    return Status::InvalidArgument("bad JSON path " + quote_for_message(text, '\'', 200) +
                                   ": it must start with '$'");
  }
  size_t i = 1;
  const size_t n = text.size();
  while (i < n) {
    PathStep step;
    if (text[i] == '.') {
      ++i;
      if (i < n && text[i] == '"') {
        // Up to the next quote, as in SQLite; a doubled quote inside is
        // one quote of the name (SQLite has no way to write one, and a
        // quote right after a quoted name was an error, so this changes no
        // path that parsed before).
        const size_t open = i;
        step.member.clear();
        for (++i;; i += 2) {
          const size_t close = text.find('"', i);
          if (close == std::string_view::npos) return error(open, "unterminated quoted member name");
          step.member.append(text.substr(i, close - i));
          i = close;
          if (close + 1 >= n || text[close + 1] != '"') break;
          step.member.push_back('"');
        }
        ++i;
      } else {
        size_t j = i;
        while (j < n && text[j] != '.' && text[j] != '[') ++j;
        if (j == i) return error(i, "empty member name");
        step.member.assign(text.substr(i, j - i));
        i = j;
      }
      if (!is_valid_utf8(step.member)) return error(i, "member name is not valid UTF-8");
      step.kind = PathStep::Kind::kMember;
    } else if (text[i] == '[') {
      size_t j = i + 1;
      if (j < n && text[j] == '#') {
        step.kind = PathStep::Kind::kFromEnd;
        ++j;
        if (j + 1 < n && text[j] == '-' && text[j + 1] >= '0' && text[j + 1] <= '9') {
          ++j;
        } else if (j < n && text[j] != ']') {
          return error(j, "expected ']' or '-N' after '#'");
        }
      } else {
        step.kind = PathStep::Kind::kIndex;
      }
      const size_t digits_at = j;
      uint64_t v = 0;
      while (j < n && text[j] >= '0' && text[j] <= '9') {
        if (v > (static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) - 9) / 10) {
          return error(digits_at, "array index too large");
        }
        v = v * 10 + static_cast<uint64_t>(text[j] - '0');
        ++j;
      }
      if (step.kind == PathStep::Kind::kIndex && j == digits_at) {
        return error(i, "expected an array index");
      }
      if (j >= n || text[j] != ']') return error(j, "expected ']'");
      step.n = v;
      i = j + 1;
    } else {
      return error(i, "expected '.' or '['");
    }
    out->steps.push_back(std::move(step));
  }
  return Status::OK();
}

Status pack_path(const JsonPath& path, Bytes* out) {
  for (const PathStep& s : path.steps) {
    switch (s.kind) {
      case PathStep::Kind::kMember:
        if (!is_valid_utf8(s.member)) {
          return Status::InvalidArgument("JSON path member name is not valid UTF-8");
        }
        append_string_element(s.member, out);
        break;
      case PathStep::Kind::kIndex:
        append_int_element(static_cast<int64_t>(s.n), out);
        break;
      case PathStep::Kind::kFromEnd:
        return Status::InvalidArgument("JSON path step [#] needs the stored array");
    }
  }
  return Status::OK();
}

void append_member_text(std::string_view name, std::string* out) {
  const bool plain = !name.empty() && name[0] != '"' &&
                     name.find_first_of(".[") == std::string_view::npos;
  out->push_back('.');
  if (plain) {
    out->append(name);
    return;
  }
  out->push_back('"');
  for (const char c : name) {
    if (c == '"') out->push_back('"');  // doubled: see parse_json_path
    out->push_back(c);
  }
  out->push_back('"');
}

Status path_text(BytesView packed_path, std::string* out) {
  out->assign("$");
  std::vector<BytesView> elements;
  TUPLEKV_RETURN_IF_ERROR(split_elements(packed_path, &elements));
  std::string scratch;
  for (size_t i = 0; i < elements.size(); ++i) {
    int64_t index = 0;
    switch (step_kind(elements[i], &index)) {
      case Step::kMember:
        append_member_text(string_element_text(elements[i], &scratch), out);
        break;
      case Step::kIndex:
        out->push_back('[');
        out->append(std::to_string(index));
        out->push_back(']');
        break;
      case Step::kObjectMarker:
      case Step::kArrayMarker:
        if (i + 1 == elements.size()) break;
        [[fallthrough]];
      case Step::kOther:
        return Status::Corruption("document path element " + std::to_string(i) +
                                  " is not a member name or array position");
    }
  }
  return Status::OK();
}

// ---------------------------------------------------------------------------
// JsonLeaves and JsonExploder

void JsonLeaves::clear() {
  paths_.clear();
  leaves_.clear();
  entries_.clear();
}

struct JsonExploder::Impl {
  struct Frame {
    bool array = false;
    bool wrapper = false;  // the '[' ... ']' around the document
    bool pending = false;  // the current child was read; advance first
    bool any = false;      // has had a child
    od::array_iterator ai, aend;
    od::object_iterator oi, oend;
    uint32_t path_size = 0;
    int64_t index = 0;
    size_t names_begin = 0;
  };

  od::parser parser;
  std::string text;  // '[' + json + ']' + padding
  Bytes path;
  std::vector<Frame> stack;
  std::vector<std::string_view> names;  // into `text` or `unescaped`
  UnescapedStrings unescaped;            // strings with escapes, for the parse
  JsonLeaves* out = nullptr;

  size_t offset_of(const char* p) const {
    const size_t o = static_cast<size_t>(p - text.data());
    return o == 0 ? 0 : o - 1;  // the wrapping '['
  }

  Status syntax_error(simdjson::error_code e, od::document* doc) const {
    if (e == simdjson::MEMALLOC) return Status::NoMemory();
    std::string msg = "invalid JSON";
    const char* at = nullptr;
    if (doc != nullptr && !doc->current_location().get(at)) {
      msg += " at byte " + std::to_string(offset_of(at));
    }
    return Status::InvalidArgument(msg + ": " + describe_json_error(e));
  }

  Status error_at(const char* at, const std::string& what) const {
    return Status::InvalidArgument("invalid JSON at byte " + std::to_string(offset_of(at)) + ": " +
                                   what);
  }

  void add_leaf(BytesView leaf) {
    JsonLeaves::Entry e;
    e.path_begin = static_cast<uint32_t>(out->paths_.size());
    e.path_size = static_cast<uint32_t>(path.size());
    e.leaf_begin = static_cast<uint32_t>(out->leaves_.size());
    e.leaf_size = static_cast<uint32_t>(leaf.size());
    out->paths_.append(path);
    out->leaves_.append(leaf);
    out->entries_.push_back(e);
  }

  // An empty container at the current path.
  void add_marker(bool object) {
    append_int_element(object ? kEmptyObjectMarker : kEmptyArrayMarker, &path);
    add_leaf(BytesView(&kNullElement, 1));
  }

  Status number(od::value& v, Bytes* leaf) {
    std::string_view t = v.raw_json_token();
    const char* at = t.data();
    while (!t.empty() && is_json_space(t.back())) t.remove_suffix(1);
    bool is_integer = false;
    if (!json_number_grammar(t, &is_integer)) {
      return error_at(at, "invalid number '" + std::string(t.substr(0, 40)) + "'");
    }
    leaf->clear();
    if (is_integer) {
      int64_t i = 0;
      const auto r = std::from_chars(t.data(), t.data() + t.size(), i);
      if (r.ec == std::errc() && r.ptr == t.data() + t.size()) {
        append_int_element(i, leaf);
        return Status::OK();
      }
      Result<BigInt> big = BigInt::from_decimal(t);
      if (!big.ok()) {
        return error_at(at, "integer needs more than 255 bytes (the tuple layer's limit)");
      }
      return pack_element(TupleValue::integer(std::move(big).value()), leaf);
    }
    double d = 0;
    const auto r = std::from_chars(t.data(), t.data() + t.size(), d);
    if (r.ec == std::errc::result_out_of_range && underflows(t)) {
      d = t[0] == '-' ? -0.0 : 0.0;
    } else if (r.ec != std::errc() || r.ptr != t.data() + t.size() || !std::isfinite(d)) {
      return error_at(at, "number '" + std::string(t.substr(0, 40)) + "' is out of range");
    }
    return pack_element(TupleValue::float64(d), leaf);
  }

  // One value at the current path: a leaf, or a container pushed on the
  // stack (which invalidates references into it).
  Status value(od::value& v, od::document* doc, Bytes* leaf) {
    od::json_type type;
    if (const auto e = v.type().get(type)) return syntax_error(e, doc);
    switch (type) {
      case od::json_type::null: {
        bool is_null = false;
        if (const auto e = v.is_null().get(is_null)) return syntax_error(e, doc);
        if (!is_null) return error_at(v.raw_json_token().data(), "invalid literal (expected null)");
        add_leaf(BytesView(&kNullElement, 1));
        return Status::OK();
      }
      case od::json_type::boolean: {
        bool b = false;
        if (v.get_bool().get(b)) {
          return error_at(v.raw_json_token().data(), "invalid literal (expected true or false)");
        }
        const char code = b ? '\x27' : '\x26';
        add_leaf(BytesView(&code, 1));
        return Status::OK();
      }
      case od::json_type::number:
        TUPLEKV_RETURN_IF_ERROR(number(v, leaf));
        add_leaf(*leaf);
        return Status::OK();
      case od::json_type::string: {
        std::string_view s;
        const char* at = v.raw_json_token().data();
        // Unescaped here, not by simdjson, whose string buffer cannot
        // report a failed allocation (core/json_text.h).
        od::raw_json_string raw;
        if (const auto e = v.get_raw_json_string().get(raw)) return syntax_error(e, doc);
        if (!unescape_json_string(raw.raw(), text.data() + text.size(), &unescaped, &s)) {
          return syntax_error(simdjson::STRING_ERROR, doc);
        }
        if (!is_valid_utf8(s)) return error_at(at, "string is not valid UTF-8");
        leaf->clear();
        append_string_element(s, leaf);
        add_leaf(*leaf);
        return Status::OK();
      }
      case od::json_type::array:
      case od::json_type::object: {
        if (stack.size() > kMaxJsonDepth) {
          return error_at(v.raw_json_token().data(),
                          "nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
        }
        Frame f;
        f.path_size = static_cast<uint32_t>(path.size());
        f.names_begin = names.size();
        if (type == od::json_type::array) {
          f.array = true;
          od::array a;
          if (const auto e = v.get_array().get(a)) return syntax_error(e, doc);
          if (const auto e = a.begin().get(f.ai)) return syntax_error(e, doc);
          if (const auto e = a.end().get(f.aend)) return syntax_error(e, doc);
        } else {
          od::object o;
          if (const auto e = v.get_object().get(o)) return syntax_error(e, doc);
          if (const auto e = o.begin().get(f.oi)) return syntax_error(e, doc);
          if (const auto e = o.end().get(f.oend)) return syntax_error(e, doc);
        }
        stack.push_back(f);
        return Status::OK();
      }
    }
    return error_at(v.raw_json_token().data(), "unexpected JSON value");
  }

  // An object's member names are all read: no name may repeat.
  Status check_names(size_t begin) {
    auto first = names.begin() + static_cast<std::ptrdiff_t>(begin);
    if (names.end() - first > 1) {
      std::sort(first, names.end());
      auto dup = std::adjacent_find(first, names.end());
      if (dup != names.end()) {
        return Status::InvalidArgument("invalid JSON: duplicate member name \"" +
                                       std::string(dup->substr(0, 60)) + "\" in the object at " +
                                       text_of(path));
      }
    }
    names.resize(begin);
    return Status::OK();
  }

  Status run(std::string_view json, JsonLeaves* leaves) {
    out = leaves;
    leaves->clear();
    if (json.size() > (std::numeric_limits<uint32_t>::max() >> 2)) {
      return Status::InvalidArgument("invalid JSON: input too large (" +
                                     std::to_string(json.size()) + " bytes)");
    }
    text.clear();
    text.reserve(json.size() + 2 + simdjson::SIMDJSON_PADDING);
    text.push_back('[');
    text.append(json);
    text.push_back(']');
    const size_t len = text.size();
    text.append(simdjson::SIMDJSON_PADDING, ' ');
    od::document doc;
    if (const auto e = parser.iterate(text.data(), len, text.size()).get(doc)) {
      if (e == simdjson::MEMALLOC) return Status::NoMemory();
      return Status::InvalidArgument("invalid JSON: " + describe_json_error(e));
    }
    od::array top;
    if (const auto e = doc.get_array().get(top)) return syntax_error(e, &doc);
    path.clear();
    stack.clear();
    names.clear();
    unescaped.clear();
    Frame root;
    root.array = true;
    root.wrapper = true;
    if (const auto e = top.begin().get(root.ai)) return syntax_error(e, &doc);
    if (const auto e = top.end().get(root.aend)) return syntax_error(e, &doc);
    stack.push_back(root);
    Bytes leaf;
    while (!stack.empty()) {
      Frame& f = stack.back();
      path.resize(f.path_size);
      if (f.array) {
        if (f.pending) {
          ++f.ai;
          f.pending = false;
        }
        if (!(f.ai != f.aend)) {
          if (f.wrapper) {
            if (!f.any) return Status::InvalidArgument("invalid JSON: empty input");
          } else if (!f.any) {
            add_marker(false);
          }
          stack.pop_back();
          continue;
        }
        if (f.wrapper && f.any) {
          const char* at = nullptr;
          od::value extra;
          const bool located = !(*f.ai).get(extra) && (at = extra.raw_json_token().data()) != nullptr;
          return Status::InvalidArgument(
              "invalid JSON" + (located ? " at byte " + std::to_string(offset_of(at)) : "") +
              ": content after the JSON value");
        }
        od::value v;
        if (const auto e = (*f.ai).get(v)) return syntax_error(e, &doc);
        if (!f.wrapper) append_int_element(f.index++, &path);
        f.any = true;
        f.pending = true;
        TUPLEKV_RETURN_IF_ERROR(value(v, &doc, &leaf));
      } else {
        if (f.pending) {
          ++f.oi;
          f.pending = false;
        }
        if (!(f.oi != f.oend)) {
          if (!f.any) add_marker(true);
          path.resize(f.path_size);
          TUPLEKV_RETURN_IF_ERROR(check_names(f.names_begin));
          stack.pop_back();
          continue;
        }
        od::field field;
        if (const auto e = (*f.oi).get(field)) return syntax_error(e, &doc);
        std::string_view key;
        if (!unescape_json_string(field.key().raw(), text.data() + text.size(), &unescaped, &key)) {
          return syntax_error(simdjson::STRING_ERROR, &doc);
        }
        if (!is_valid_utf8(key)) {
          return Status::InvalidArgument("invalid JSON: member name is not valid UTF-8 at " +
                                         text_of(path));
        }
        names.push_back(key);
        append_string_element(key, &path);
        f.any = true;
        f.pending = true;
        TUPLEKV_RETURN_IF_ERROR(value(field.value(), &doc, &leaf));
      }
    }
    // Anything after the wrapping ']' is something the document's own text
    // left open or added (e.g. `1] [2`).
    const char* rest = nullptr;
    if (!doc.current_location().get(rest)) {
      return Status::InvalidArgument("invalid JSON at byte " + std::to_string(offset_of(rest)) +
                                     ": content after the JSON value");
    }
    auto& e = leaves->entries_;
    const Bytes& paths = leaves->paths_;
    std::sort(e.begin(), e.end(), [&paths](const JsonLeaves::Entry& a, const JsonLeaves::Entry& b) {
      return compare_bytes(BytesView(paths).substr(a.path_begin, a.path_size),
                           BytesView(paths).substr(b.path_begin, b.path_size)) < 0;
    });
    return Status::OK();
  }
};

JsonExploder::JsonExploder() : impl_(std::make_unique<Impl>()) {}
JsonExploder::~JsonExploder() = default;

Status JsonExploder::explode(std::string_view json, JsonLeaves* out) {
  Status s = impl_->run(json, out);
  if (!s.ok()) out->clear();
  return s;
}

// ---------------------------------------------------------------------------
// Leaves -> JSON

Status append_leaf_json(BytesView leaf, std::string* out) {
  TupleReader r(leaf);
  if (!r.next()) {
    return r.status().ok() ? Status::Corruption("document leaf is empty") : r.status();
  }
  if (!r.rest().empty()) return Status::Corruption("document leaf has bytes after its element");
  switch (r.type()) {
    case ElementType::kNull:
      out->append("null");
      return Status::OK();
    case ElementType::kBool:
      out->append(r.bool_value() ? "true" : "false");
      return Status::OK();
    case ElementType::kInt: {
      char buf[24];
      const auto res = std::to_chars(buf, buf + sizeof(buf), r.int64_value());
      out->append(buf, static_cast<size_t>(res.ptr - buf));
      return Status::OK();
    }
    case ElementType::kDouble: {
      double d;
      const uint64_t bits = r.double_bits();
      std::memcpy(&d, &bits, sizeof d);
      append_double(d, out);
      return Status::OK();
    }
    case ElementType::kFloat: {
      float f;
      const uint32_t bits = r.float_bits();
      std::memcpy(&f, &bits, sizeof f);
      append_double(static_cast<double>(f), out);
      return Status::OK();
    }
    case ElementType::kBigInt: {
      TupleValue v;
      TUPLEKV_RETURN_IF_ERROR(r.decode(&v));
      out->append(v.as_bigint().to_decimal());
      return Status::OK();
    }
    case ElementType::kString: {
      if (!r.has_escapes()) {
        append_json_string(r.escaped_payload(), out);
        return Status::OK();
      }
      TupleValue v;
      TUPLEKV_RETURN_IF_ERROR(r.decode(&v));
      append_json_string(v.as_string(), out);
      return Status::OK();
    }
    default:
      return Status::Corruption("document leaf of type " +
                                std::string(element_type_name(r.type())) + " has no JSON form");
  }
}

void JsonAssembler::reset(std::string* out) {
  out_ = out;
  stack_.clear();
  started_ = false;
  root_done_ = false;
}

Status JsonAssembler::open_child(size_t depth, BytesView element) {
  int64_t index = 0;
  std::string scratch;
  switch (step_kind(element, &index)) {
    case Step::kMember:
      out_->push_back('{');
      stack_.push_back(Level{false, Bytes(element), 0});
      append_json_string(string_element_text(element, &scratch), out_);
      out_->push_back(':');
      return Status::OK();
    case Step::kIndex:
      if (index != 0) {
        return Status::Corruption("document array at depth " + std::to_string(depth) +
                                  " starts at position " + std::to_string(index));
      }
      out_->push_back('[');
      stack_.push_back(Level{true, Bytes(element), 0});
      return Status::OK();
    default:
      return Status::Corruption("document path element at depth " + std::to_string(depth) +
                                " is not a member name or array position");
  }
}

Status JsonAssembler::add(BytesView path, BytesView leaf) {
  TUPLEKV_RETURN_IF_ERROR(split_elements(path, &elements_));
  int marker = 0;  // 1: {}, 2: []
  if (!elements_.empty()) {
    int64_t v = 0;
    const Step k = step_kind(elements_.back(), &v);
    if (k == Step::kObjectMarker || k == Step::kArrayMarker) {
      marker = k == Step::kObjectMarker ? 1 : 2;
      elements_.pop_back();
    }
  }
  const size_t n = elements_.size();
  if (!started_) {
    started_ = true;
    if (n == 0) root_done_ = true;
    for (size_t k = 0; k < n; ++k) TUPLEKV_RETURN_IF_ERROR(open_child(k, elements_[k]));
  } else {
    if (root_done_ || n == 0) {
      return Status::Corruption("document has a value at its root and other values");
    }
    const size_t m = stack_.size();
    size_t d = 0;
    while (d < m && d < n && BytesView(stack_[d].child) == elements_[d]) ++d;
    if (d == m || d == n) {
      return Status::Corruption("document path " + text_of(path) +
                                " is both a value and inside another value");
    }
    while (stack_.size() > d + 1) {
      out_->push_back(stack_.back().array ? ']' : '}');
      stack_.pop_back();
    }
    Level& level = stack_[d];
    out_->push_back(',');
    int64_t index = 0;
    const Step k = step_kind(elements_[d], &index);
    if (level.array) {
      if (k != Step::kIndex || index != level.index + 1) {
        return Status::Corruption("document array " + text_of(path) + " has a gap or a member name");
      }
      level.index = index;
    } else {
      if (k != Step::kMember) {
        return Status::Corruption("document object " + text_of(path) + " has an array position");
      }
      std::string scratch;
      append_json_string(string_element_text(elements_[d], &scratch), out_);
      out_->push_back(':');
    }
    level.child.assign(elements_[d]);
    for (size_t j = d + 1; j < n; ++j) TUPLEKV_RETURN_IF_ERROR(open_child(j, elements_[j]));
  }
  if (marker == 1) {
    out_->append("{}");
  } else if (marker == 2) {
    out_->append("[]");
  } else {
    TUPLEKV_RETURN_IF_ERROR(append_leaf_json(leaf, out_));
  }
  return Status::OK();
}

Status JsonAssembler::finish() {
  while (!stack_.empty()) {
    out_->push_back(stack_.back().array ? ']' : '}');
    stack_.pop_back();
  }
  return Status::OK();
}

Status assemble_leaves(const JsonLeaves& leaves, std::string* json) {
  json->clear();
  if (leaves.empty()) return Status::Internal("tuplekv internal error: a document without leaves");
  JsonAssembler a;
  a.reset(json);
  for (size_t i = 0; i < leaves.size(); ++i) {
    TUPLEKV_RETURN_IF_ERROR(a.add(leaves.path(i), leaves.leaf(i)));
  }
  return a.finish();
}

// ---------------------------------------------------------------------------
// StoreDocCache

const Bytes& StoreDocCache::key(BytesView doc) {
  key_.assign(prefix_);
  key_.append(doc);
  return key_;
}

Status StoreDocCache::contains(BytesView doc, bool* found) {
  return store_->get(key(doc), &text_, found);
}

Status StoreDocCache::get(BytesView doc, std::string_view* json, bool* found) {
  TUPLEKV_RETURN_IF_ERROR(store_->get(key(doc), &text_, found));
  *json = text_;
  return Status::OK();
}

Status StoreDocCache::put(BytesView doc, std::string_view json) {
  return store_->set(key(doc), json);
}

Status StoreDocCache::erase(BytesView doc) { return store_->clear(key(doc)); }

// ---------------------------------------------------------------------------
// Docs

namespace {

// The keys of a subtree: in documents mode the key itself (a scalar) and
// every extension; in merge mode only the extensions (the key itself, if
// stored, is a scalar leaf of the parent whose value equals the last step).
KeyRange subtree_range(DocsMode mode, BytesView key) {
  if (mode == DocsMode::kDocuments) return KeyRange{Bytes(key), key_end(key)};
  return range(key);
}

}  // namespace

Result<std::unique_ptr<Cursor>> Docs::scan(const KeyRange& r, const ScanOptions& o) {
  if (ranges_ != nullptr) ++*ranges_;
  return store_->scan(r, o);
}

void Docs::subtree_key(BytesView doc, BytesView path, Bytes* out) const {
  out->assign(prefix_);
  out->append(doc);
  out->append(path);
}

Status Docs::exists(BytesView doc, bool* found) {
  subtree_key(doc, {}, &key_);
  ScanOptions o;
  o.limit = 1;
  o.keys_only = true;
  TUPLEKV_ASSIGN_OR_RETURN(std::unique_ptr<Cursor> c, scan(subtree_range(mode_, key_), o));
  *found = c->valid();
  return c->status();
}

Status split_merge_key(BytesView rest, BytesView* path, BytesView* leaf) {
  TupleReader r(rest);
  size_t last = 0;
  bool any = false;
  while (r.next()) {
    last = r.offset();
    any = true;
  }
  TUPLEKV_RETURN_IF_ERROR(r.status());
  if (!any) return Status::Corruption("document key has no leaf");
  *path = rest.substr(0, last);
  *leaf = rest.substr(last);
  return Status::OK();
}

Status Docs::assemble(Cursor* c, BytesView subtree, std::string* json) {
  JsonAssembler a;
  a.reset(json);
  for (; c->valid() && has_tuple_prefix(c->key(), subtree); c->next()) {
    count_key();
    const BytesView rest = c->key().substr(subtree.size());
    if (mode_ == DocsMode::kDocuments) {
      TUPLEKV_RETURN_IF_ERROR(a.add(rest, c->value()));
    } else {
      BytesView path, leaf;
      TUPLEKV_RETURN_IF_ERROR(split_merge_key(rest, &path, &leaf));
      TUPLEKV_RETURN_IF_ERROR(a.add(path, leaf));
    }
  }
  TUPLEKV_RETURN_IF_ERROR(c->status());
  if (!a.started()) return Status::Internal("tuplekv internal error: empty subtree assembled");
  return a.finish();
}

Status Docs::cached(BytesView doc, std::string_view* json, bool* found) {
  *found = false;
  if (cache_ == nullptr) return Status::OK();
  if (ranges_ != nullptr) ++*ranges_;
  TUPLEKV_RETURN_IF_ERROR(cache_->get(doc, json, found));
  if (*found) count_key();
  return Status::OK();
}

Status Docs::cache_contains(BytesView doc, bool* found) {
  *found = false;
  if (cache_ == nullptr) return Status::OK();
  if (ranges_ != nullptr) ++*ranges_;
  return cache_->contains(doc, found);
}

// Rebuilding reads the whole document back: a subtree write costs one
// read of the document on top of its own keys. That is accepted because
// it makes the cache right by construction (it is the reassembly, the
// same code as a read without the cache, never a splice of text that
// could drift from the leaves), because whole-document reads are what the
// cache is for and they are far more frequent than subtree writes in
// document workloads, and because a table whose workload is mostly small
// writes to big documents can turn the cache off (cache=0).
Status Docs::refresh_cache(BytesView doc) {
  if (cache_ == nullptr) return Status::OK();
  bool found = false;
  TUPLEKV_RETURN_IF_ERROR(read(doc, {}, &text_, &found));
  return found ? cache_->put(doc, text_) : cache_->erase(doc);
}

Status Docs::read(BytesView doc, BytesView path, std::string* json, bool* found) {
  Bytes key;
  subtree_key(doc, path, &key);
  TUPLEKV_ASSIGN_OR_RETURN(std::unique_ptr<Cursor> c,
                           scan(subtree_range(mode_, key), ScanOptions()));
  *found = c->valid();
  if (!*found) return c->status();
  json->clear();
  return assemble(c.get(), key, json);
}

Status Docs::classify(BytesView subtree, BytesView key, BytesView, NodeKind* kind) const {
  const BytesView rest = key.substr(subtree.size());
  if (mode_ == DocsMode::kDocuments && rest.empty()) {
    *kind = NodeKind::kScalar;
    return Status::OK();
  }
  TupleReader r(rest);
  if (!r.next()) return r.status().ok() ? Status::Corruption("document key is empty") : r.status();
  const BytesView first = r.raw();
  if (mode_ == DocsMode::kMerge && r.rest().empty()) {
    *kind = NodeKind::kScalar;
    return Status::OK();
  }
  int64_t index = 0;
  switch (step_kind(first, &index)) {
    case Step::kMember: *kind = NodeKind::kObject; return Status::OK();
    case Step::kIndex: *kind = NodeKind::kArray; return Status::OK();
    case Step::kObjectMarker: *kind = NodeKind::kEmptyObject; return Status::OK();
    case Step::kArrayMarker: *kind = NodeKind::kEmptyArray; return Status::OK();
    case Step::kOther: break;
  }
  return Status::Corruption("document key under " + text_of(subtree.substr(prefix_.size())) +
                            " has an element that is not a member name or position");
}

Status Docs::node(BytesView doc, BytesView path, NodeKind* kind, uint64_t* length) {
  subtree_key(doc, path, &key_);
  const KeyRange r = subtree_range(mode_, key_);
  ScanOptions o;
  o.limit = 1;
  o.keys_only = true;
  TUPLEKV_ASSIGN_OR_RETURN(std::unique_ptr<Cursor> c, scan(r, o));
  if (!c->valid()) {
    TUPLEKV_RETURN_IF_ERROR(c->status());
    *kind = NodeKind::kAbsent;
    if (length != nullptr) *length = 0;
    return Status::OK();
  }
  count_key();
  TUPLEKV_RETURN_IF_ERROR(classify(key_, c->key(), c->value(), kind));
  if (length == nullptr) return Status::OK();
  *length = 0;
  if (*kind != NodeKind::kArray) return Status::OK();
  o.reverse = true;
  TUPLEKV_ASSIGN_OR_RETURN(c, scan(r, o));
  if (!c->valid()) return c->status();
  BytesView first;
  TUPLEKV_RETURN_IF_ERROR(first_element(c->key().substr(key_.size()), &first));
  int64_t last = 0;
  if (!element_int(first, &last) || last < 0) {
    return Status::Corruption("document array " + text_of(path) + " ends with a non-position");
  }
  *length = static_cast<uint64_t>(last) + 1;
  return Status::OK();
}

Status Docs::resolve(BytesView doc, const JsonPath& path, Bytes* packed, bool* resolved) {
  packed->clear();
  *resolved = true;
  for (const PathStep& s : path.steps) {
    switch (s.kind) {
      case PathStep::Kind::kMember:
        append_string_element(s.member, packed);
        break;
      case PathStep::Kind::kIndex:
        append_int_element(static_cast<int64_t>(s.n), packed);
        break;
      case PathStep::Kind::kFromEnd: {
        NodeKind kind;
        uint64_t length = 0;
        TUPLEKV_RETURN_IF_ERROR(node(doc, *packed, &kind, &length));
        if ((kind != NodeKind::kArray && kind != NodeKind::kEmptyArray) || s.n > length) {
          *resolved = false;
          return Status::OK();
        }
        append_int_element(static_cast<int64_t>(length - s.n), packed);
        break;
      }
    }
  }
  return Status::OK();
}

Status Docs::check_limits(BytesView doc, BytesView path, const JsonLeaves& leaves) const {
  if (limits_.max_key == 0 && limits_.max_value == 0) return Status::OK();
  const size_t base = prefix_.size() + doc.size() + path.size();
  for (size_t i = 0; i < leaves.size(); ++i) {
    const size_t key = base + leaves.path(i).size() +
                       (mode_ == DocsMode::kMerge ? leaves.leaf(i).size() : 0);
    const size_t value = mode_ == DocsMode::kMerge ? 0 : leaves.leaf(i).size();
    if (limits_.max_key != 0 && key > limits_.max_key) {
      std::string where;
      (void)path_text(Bytes(path) + Bytes(leaves.path(i)), &where);
      return Status::TooBig("the key of " + where.substr(0, 200) + " would be " +
                            std::to_string(key) + " bytes; fdb_limits=1 allows " +
                            std::to_string(limits_.max_key));
    }
    if (limits_.max_value != 0 && value > limits_.max_value) {
      std::string where;
      (void)path_text(Bytes(path) + Bytes(leaves.path(i)), &where);
      return Status::TooBig("the value at " + where.substr(0, 200) + " is " +
                            std::to_string(value) + " bytes; fdb_limits=1 allows " +
                            std::to_string(limits_.max_value));
    }
  }
  return Status::OK();
}

Status Docs::write_leaves(BytesView base, const JsonLeaves& leaves, size_t lo, size_t hi) {
  for (size_t i = lo; i < hi; ++i) {
    key2_.assign(base);
    key2_.append(leaves.path(i));
    if (mode_ == DocsMode::kDocuments) {
      TUPLEKV_RETURN_IF_ERROR(store_->set(key2_, leaves.leaf(i)));
    } else {
      key2_.append(leaves.leaf(i));
      TUPLEKV_RETURN_IF_ERROR(store_->set(key2_, BytesView()));
    }
  }
  return Status::OK();
}

Status Docs::write_marker(BytesView key, bool object) {
  key2_.assign(key);
  append_int_element(object ? kEmptyObjectMarker : kEmptyArrayMarker, &key2_);
  if (mode_ == DocsMode::kDocuments) return store_->set(key2_, BytesView(&kNullElement, 1));
  key2_.push_back(kNullElement);
  return store_->set(key2_, BytesView());
}

Status Docs::clear_subtree(BytesView key) {
  const KeyRange r = subtree_range(mode_, key);
  return store_->clear_range(r.begin, r.end);
}

Status Docs::erase(BytesView doc) {
  Bytes key;
  subtree_key(doc, {}, &key);
  TUPLEKV_RETURN_IF_ERROR(clear_subtree(key));
  return cache_ == nullptr ? Status::OK() : cache_->erase(doc);
}

Status Docs::put(BytesView doc, const JsonLeaves& leaves, bool known_absent) {
  TUPLEKV_RETURN_IF_ERROR(check_limits(doc, {}, leaves));
  // The entry is the reassembly of the new leaves, not the text given:
  // reads must not depend on whether they hit the cache (member order,
  // spaces, number spellings all come out as the leaves say).
  if (cache_ != nullptr) TUPLEKV_RETURN_IF_ERROR(assemble_leaves(leaves, &text_));
  if (!known_absent) TUPLEKV_RETURN_IF_ERROR(erase(doc));
  Bytes base;
  subtree_key(doc, {}, &base);
  TUPLEKV_RETURN_IF_ERROR(write_leaves(base, leaves, 0, leaves.size()));
  return cache_ == nullptr ? Status::OK() : cache_->put(doc, text_);
}

Status Docs::set(BytesView doc, BytesView path, const JsonLeaves& leaves) {
  if (path.empty()) return put(doc, leaves);
  TUPLEKV_RETURN_IF_ERROR(set_subtree(doc, path, leaves));
  return refresh_cache(doc);
}

Status Docs::set_subtree(BytesView doc, BytesView path, const JsonLeaves& leaves) {
  TUPLEKV_RETURN_IF_ERROR(check_limits(doc, path, leaves));
  std::vector<BytesView> steps;
  TUPLEKV_RETURN_IF_ERROR(split_elements(path, &steps));
  // Byte offset of each step within `path`.
  std::vector<size_t> offsets(steps.size() + 1);
  for (size_t i = 0; i < steps.size(); ++i) {
    offsets[i] = static_cast<size_t>(steps[i].data() - path.data());
  }
  offsets[steps.size()] = path.size();
  // The deepest existing ancestor of the target, from its parent up.
  size_t depth = steps.size() - 1;
  NodeKind kind = NodeKind::kAbsent;
  uint64_t length = 0;
  for (;;) {
    TUPLEKV_RETURN_IF_ERROR(node(doc, path.substr(0, offsets[depth]), &kind, &length));
    if (kind != NodeKind::kAbsent || depth == 0) break;
    --depth;
  }
  auto refuse = [&](const std::string& why) {
    return Status::InvalidArgument("cannot set " + text_of(path) + ": " + why);
  };
  const BytesView ancestor = path.substr(0, offsets[depth]);
  int64_t index = 0;
  const Step first = step_kind(steps[depth], &index);
  if (first != Step::kMember && first != Step::kIndex) return refuse("not a member or position");
  switch (kind) {
    case NodeKind::kAbsent:
      // Nothing stored at all (an empty merge tree): created below.
      if (first == Step::kIndex && index != 0) return refuse("no array to put position " +
                                                             std::to_string(index) + " in");
      break;
    case NodeKind::kScalar:
      return refuse(text_of(ancestor) + " holds a scalar, not " +
                    (first == Step::kMember ? "an object" : "an array"));
    case NodeKind::kObject:
    case NodeKind::kEmptyObject:
      if (first != Step::kMember) return refuse(text_of(ancestor) + " is an object, not an array");
      break;
    case NodeKind::kArray:
    case NodeKind::kEmptyArray:
      if (first != Step::kIndex) return refuse(text_of(ancestor) + " is an array, not an object");
      if (static_cast<uint64_t>(index) > length) {
        return refuse("position " + std::to_string(index) + " is past the end of " +
                      text_of(ancestor) + " (" + std::to_string(length) + " elements)");
      }
      break;
  }
  // Intermediate containers that do not exist yet: objects for member
  // steps, arrays only when the step is [0] (what json_set creates).
  for (size_t k = depth + 1; k < steps.size(); ++k) {
    const Step s = step_kind(steps[k], &index);
    if (s == Step::kMember || (s == Step::kIndex && index == 0)) continue;
    return refuse(text_of(path.substr(0, offsets[k])) + " does not exist, so position " +
                  std::to_string(index) + " cannot be set");
  }
  Bytes key;
  if (kind == NodeKind::kEmptyObject || kind == NodeKind::kEmptyArray) {
    subtree_key(doc, ancestor, &key);
    append_int_element(kind == NodeKind::kEmptyObject ? kEmptyObjectMarker : kEmptyArrayMarker,
                       &key);
    if (mode_ == DocsMode::kMerge) key.push_back(kNullElement);
    TUPLEKV_RETURN_IF_ERROR(store_->clear(key));
  }
  subtree_key(doc, path, &key);
  if (depth + 1 == steps.size()) TUPLEKV_RETURN_IF_ERROR(clear_subtree(key));
  return write_leaves(key, leaves, 0, leaves.size());
}

Status Docs::remove(BytesView doc, BytesView path, bool* removed) {
  *removed = false;
  if (path.empty()) {
    TUPLEKV_RETURN_IF_ERROR(exists(doc, removed));
    return *removed ? erase(doc) : Status::OK();
  }
  TUPLEKV_RETURN_IF_ERROR(remove_subtree(doc, path, removed));
  return *removed ? refresh_cache(doc) : Status::OK();
}

Status Docs::remove_subtree(BytesView doc, BytesView path, bool* removed) {
  NodeKind kind;
  TUPLEKV_RETURN_IF_ERROR(node(doc, path, &kind));
  if (kind == NodeKind::kAbsent) return Status::OK();
  *removed = true;
  Bytes key;
  subtree_key(doc, path, &key);
  TUPLEKV_RETURN_IF_ERROR(clear_subtree(key));
  std::vector<BytesView> steps;
  TUPLEKV_RETURN_IF_ERROR(split_elements(path, &steps));
  const BytesView last = steps.back();
  const BytesView parent = path.substr(0, path.size() - last.size());
  Bytes parent_key;
  subtree_key(doc, parent, &parent_key);
  int64_t index = 0;
  const Step k = step_kind(last, &index);
  if (k == Step::kIndex) {
    // Later elements move down one position, as json_remove does.
    Bytes begin = parent_key;
    append_int_element(index + 1, &begin);
    const Bytes end = key_end(parent_key);
    std::vector<std::pair<Bytes, Bytes>> moved;
    {
      TUPLEKV_ASSIGN_OR_RETURN(std::unique_ptr<Cursor> c,
                               scan(KeyRange{begin, end}, ScanOptions()));
      for (; c->valid(); c->next()) moved.emplace_back(Bytes(c->key()), Bytes(c->value()));
      TUPLEKV_RETURN_IF_ERROR(c->status());
    }
    TUPLEKV_RETURN_IF_ERROR(store_->clear_range(begin, end));
    Bytes to;
    for (const auto& [from, value] : moved) {
      BytesView element;
      const BytesView rest = BytesView(from).substr(parent_key.size());
      TUPLEKV_RETURN_IF_ERROR(first_element(rest, &element));
      int64_t position = 0;
      if (!element_int(element, &position) || position <= index) {
        return Status::Corruption("document array " + text_of(parent) + " has a non-position");
      }
      to.assign(parent_key);
      append_int_element(position - 1, &to);
      to.append(rest.substr(element.size()));
      TUPLEKV_RETURN_IF_ERROR(store_->set(to, value));
    }
  }
  NodeKind parent_kind;
  TUPLEKV_RETURN_IF_ERROR(node(doc, parent, &parent_kind));
  if (parent_kind == NodeKind::kAbsent) {
    TUPLEKV_RETURN_IF_ERROR(write_marker(parent_key, k == Step::kMember));
  }
  return Status::OK();
}

Status Docs::merge_node(BytesView root_key, Bytes* path, size_t lo, size_t hi,
                        const JsonLeaves& l) {
  const size_t qlen = path->size();
  const BytesView first = l.path(lo).substr(qlen);
  BytesView element;
  TUPLEKV_RETURN_IF_ERROR(first_element(first, &element));
  int64_t index = 0;
  const Step incoming = element.empty() ? Step::kOther : step_kind(element, &index);
  if (incoming == Step::kMember || incoming == Step::kObjectMarker) {
    NodeKind existing;
    TUPLEKV_RETURN_IF_ERROR(node({}, *path, &existing));
    if (existing == NodeKind::kObject) {
      if (incoming == Step::kObjectMarker) return Status::OK();
      size_t i = lo;
      while (i < hi) {
        BytesView member;
        TUPLEKV_RETURN_IF_ERROR(first_element(l.path(i).substr(qlen), &member));
        const BytesView group = l.path(i).substr(0, qlen + member.size());
        size_t j = i + 1;
        while (j < hi && has_tuple_prefix(l.path(j), group)) ++j;
        path->append(member);
        TUPLEKV_RETURN_IF_ERROR(merge_node(root_key, path, i, j, l));
        path->resize(qlen);
        i = j;
      }
      return Status::OK();
    }
  }
  Bytes key(root_key);
  key.append(*path);
  TUPLEKV_RETURN_IF_ERROR(clear_subtree(key));
  return write_leaves(root_key, l, lo, hi);
}

Status Docs::merge(const JsonLeaves& leaves) {
  if (leaves.empty()) return Status::OK();
  TUPLEKV_RETURN_IF_ERROR(check_limits({}, {}, leaves));
  Bytes path;
  const Bytes root = prefix_;
  return merge_node(root, &path, 0, leaves.size(), leaves);
}

Status Docs::move(BytesView from, BytesView to) {
  Bytes from_key, to_key;
  subtree_key(from, {}, &from_key);
  subtree_key(to, {}, &to_key);
  const KeyRange r = subtree_range(mode_, from_key);
  std::vector<std::pair<Bytes, Bytes>> pairs;
  {
    TUPLEKV_ASSIGN_OR_RETURN(std::unique_ptr<Cursor> c, scan(r, ScanOptions()));
    for (; c->valid(); c->next()) {
      Bytes k = to_key;
      k.append(c->key().substr(from_key.size()));
      pairs.emplace_back(std::move(k), Bytes(c->value()));
    }
    TUPLEKV_RETURN_IF_ERROR(c->status());
  }
  if (limits_.max_key != 0) {
    for (const auto& [k, v] : pairs) {
      if (k.size() > limits_.max_key) {
        return Status::TooBig("a key of the document would be " + std::to_string(k.size()) +
                              " bytes with the new id; fdb_limits=1 allows " +
                              std::to_string(limits_.max_key));
      }
    }
  }
  TUPLEKV_RETURN_IF_ERROR(store_->clear_range(r.begin, r.end));
  for (const auto& [k, v] : pairs) TUPLEKV_RETURN_IF_ERROR(store_->set(k, v));
  if (cache_ == nullptr) return Status::OK();
  // The text does not depend on the id: move the entry (or rebuild it if
  // it was missing).
  bool found = false;
  std::string_view text;
  TUPLEKV_RETURN_IF_ERROR(cache_->get(from, &text, &found));
  if (found) text_.assign(text);
  cache_->done();
  TUPLEKV_RETURN_IF_ERROR(cache_->erase(from));
  return found ? cache_->put(to, text_) : refresh_cache(to);
}

Status Docs::next_id(int64_t* id) {
  // Integer elements are the codes 0x0C..0x1C; the last one is the largest.
  Bytes begin = prefix_;
  begin.push_back('\x0c');
  Bytes end = prefix_;
  end.push_back('\x1d');
  ScanOptions o;
  o.reverse = true;
  o.limit = 1;
  o.keys_only = true;
  TUPLEKV_ASSIGN_OR_RETURN(std::unique_ptr<Cursor> c, scan(KeyRange{begin, end}, o));
  if (!c->valid()) {
    TUPLEKV_RETURN_IF_ERROR(c->status());
    *id = 1;
    return Status::OK();
  }
  BytesView element;
  TUPLEKV_RETURN_IF_ERROR(first_element(c->key().substr(prefix_.size()), &element));
  int64_t last = 0;
  if (!element_int(element, &last) || last == std::numeric_limits<int64_t>::max()) {
    return Status::Constraint(ConstraintKind::kPrimaryKey,
                              "no integer id is left above the largest one");
  }
  *id = last + 1;
  return Status::OK();
}

}  // namespace tuplekv::model
