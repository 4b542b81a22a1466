// Scalar SQL functions over packed tuples.
//
// USAGE
//   SELECT tuple_pack('CA', 'Alameda', 42);            -- x'024341000241...152a'
//   SELECT tuple_unpack(tuple_pack('a', 1.5, NULL));    -- '["a",1.5,null]'
//   SELECT tuple_pack_json('["a",{"$uuid":"…"}]');     -- the packed BLOB
//   SELECT tuple_repr(k) FROM t_kv;                     -- "('CA', 'Alameda', 42)"
//   SELECT * FROM t_kv WHERE k >= tuple_pack('CA')      -- every key under ('CA',)
//                        AND k <  tuple_range_end(tuple_pack('CA'));
//   SELECT tuple_pack('user', tuple_uuid('8f7d…'), tuple_pack(1, 2));
//                                                      -- nested tuple and UUID kept
//
// FUNCTIONS (all SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS; a NULL
// argument gives NULL except in tuple_pack, where it is the null element)
//   tuple_pack(v, ...)        BLOB  packed tuple of the arguments (values.h's
//                                   table; zero arguments give x''); tagged
//                                   kTupleSubtype
//   tuple_unpack(b)           TEXT  the JSON form (core/tuple_json.h)
//   tuple_pack_json(j)        BLOB  inverse of tuple_unpack, byte for byte
//                                   (incomplete versionstamps included, which
//                                   tuple_pack refuses); tagged kTupleSubtype
//   tuple_repr(b)             TEXT  Python-like text, e.g. ('a', 1, None)
//   tuple_strinc(k)           BLOB  FoundationDB strinc: the first key after
//                                   every key that starts with k (any bytes)
//   tuple_range_begin(b)      BLOB  b || 00: start of range(b), the keys that
//                                   strictly extend the packed tuple b
//   tuple_range_end(b)        BLOB  b || FF: exclusive end of range(b)
//   tuple_bool(x)             element  INTEGER/REAL: x <> 0; TEXT 'true'/'false'
//                                   (any case)
//   tuple_uuid(x)             element  TEXT: 32 hex digits or 8-4-4-4-12; BLOB: 16 bytes
//   tuple_float(x)            element  float32: INTEGER/REAL rounded to nearest
//                                   (overflow is an error); TEXT: a decimal
//                                   number (rounded once, from the digits),
//                                   'nan', 'inf', '-inf', or '0x' + 8 hex
//                                   digits of raw IEEE bits
//   tuple_bigint(x)           element  TEXT: decimal digits with optional sign, up
//                                   to 255 bytes of magnitude; INTEGER as is
//   tuple_versionstamp(x)     element  BLOB of 12 bytes or TEXT of 24 hex digits;
//                                   incomplete stamps (10 x FF first) are made,
//                                   but tuple_pack refuses them, as
//                                   FoundationDB's pack() does
//   tuple_each(b)             table-valued; see tuple_each_vtab.cc
//   tuplekv_map_key(k, n, m, p)  BLOB  p || what follows the first n bytes
//                                   and the m tuple elements after them in
//                                   k; NULL when k is shorter or one of the
//                                   m elements does not decode. Maps an
//                                   index entry to its row's key
//                                   (core/key_mapping.h); the SQLite store's
//                                   mapped scans join through it
//
// The "element" functions return the encoding of one element as a BLOB
// tagged kElementSubtype, so tuple_pack() splices the element in with its
// type. Anywhere else the BLOB is just those bytes: the packed 1-tuple of
// the element (tuple_unpack(tuple_bool(1)) is '[true]'). Each maker also
// accepts its own output (tuple_bool(tuple_bool(1))).
//
// ERRORS
//   Bad input is SQLITE_ERROR with a message that starts with the function
//   name and says what is wrong and where, e.g.
//     tuple_unpack: argument must be a BLOB, got TEXT
//     tuple_unpack: malformed tuple: truncated integer at byte 3 (type code 0x16)
//     tuple_pack_json: element 1 at byte 5: unknown tag "$foo" (known: ...)
//     tuple_pack_json: invalid JSON at byte 3: content after the top-level array
//     tuple_pack: argument 2: TEXT is not valid UTF-8
//     tuple_float: '1e300' is out of float32 range
//   Input quoted in a message is cut to 40 bytes. A malformed BLOB argument
//   is the caller's input, not a damaged database, so it is SQLITE_ERROR,
//   never SQLITE_CORRUPT. Out of memory is SQLITE_NOMEM; a result over
//   SQLite's length limit is SQLITE_TOOBIG.
#include <cmath>
#include <charconv>
#include <cstring>
#include <initializer_list>

#include "core/key_mapping.h"
#include "core/tuple.h"
#include "core/tuple_json.h"
#include "ext/errors.h"
#include "ext/registry.h"
#include "ext/sqlite_api.h"
#include "ext/values.h"

namespace tuplekv::ext {

namespace {

using FunctionBody = Status (*)(sqlite3_context*, int, sqlite3_value**);

// The noexcept entry point SQLite calls: runs `Body` inside the guard and
// turns a failed Status into the SQL error.
template <FunctionBody Body>
void sql_function(sqlite3_context* ctx, int argc, sqlite3_value** argv) noexcept {
  guard_function(ctx, [&] {
    const Status s = Body(ctx, argc, argv);
    if (!s.ok()) set_result_error(ctx, s);
  });
}

Status error(std::string_view fn, std::string_view what) {
  std::string msg(fn);
  msg += ": ";
  msg += what;
  return Status::InvalidArgument(std::move(msg));
}

// "<fn>: argument must be <what>, got <storage class of v>".
Status type_error(std::string_view fn, std::string_view what, sqlite3_value* v) {
  std::string msg = "argument must be ";
  msg += what;
  msg += ", got ";
  msg += storage_class_name(sqlite3_value_type(v));
  return error(fn, msg);
}

BytesView blob_arg(sqlite3_value* v) {
  const void* p = sqlite3_value_blob(v);
  const int n = sqlite3_value_bytes(v);
  if (p == nullptr || n <= 0) return BytesView();
  return BytesView(static_cast<const char*>(p), static_cast<size_t>(n));
}

std::string_view text_arg(sqlite3_value* v) {
  const unsigned char* p = sqlite3_value_text(v);
  if (p == nullptr) return std::string_view();
  return std::string_view(reinterpret_cast<const char*>(p),
                          static_cast<size_t>(sqlite3_value_bytes(v)));
}

// The BLOB argument of a function that reads packed bytes. Sets *is_null
// for SQL NULL (the function then returns NULL).
Status require_blob(std::string_view fn, sqlite3_value* v, bool* is_null, BytesView* out) {
  *is_null = false;
  switch (sqlite3_value_type(v)) {
    case SQLITE_NULL:
      *is_null = true;
      return Status::OK();
    case SQLITE_BLOB:
      *out = blob_arg(v);
      if (out->empty() && sqlite3_value_bytes(v) > 0) return Status::NoMemory();
      return Status::OK();
    default:
      return type_error(fn, "a BLOB", v);
  }
}

Status unpack_arg(std::string_view fn, BytesView packed, Tuple* out) {
  const Status s = unpack(packed, out);
  if (!s.ok()) return error(fn, "malformed tuple: " + std::string(core_detail(s)));
  return Status::OK();
}

// Checks that `packed` decodes, without building values.
Status validate_packed(std::string_view fn, BytesView packed) {
  TupleReader r(packed);
  while (r.next()) {
  }
  if (!r.status().ok()) return error(fn, "malformed tuple: " + std::string(core_detail(r.status())));
  return Status::OK();
}

void result_packed_tuple(sqlite3_context* ctx, BytesView packed) {
  result_blob(ctx, packed);
  sqlite3_result_subtype(ctx, kTupleSubtype);
}

// ---------------------------------------------------------------------------
// tuple_pack, tuple_unpack, tuple_pack_json, tuple_repr

Status tuple_pack_fn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  Tuple t;
  t.reserve(static_cast<size_t>(argc));
  for (int i = 0; i < argc; ++i) {
    TupleValue v;
    Status s = value_to_element(argv[i], /*honor_subtypes=*/true, &v);
    if (!s.ok()) {
      if (s.code() == StatusCode::kNoMemory) return s;
      return error("tuple_pack", "argument " + std::to_string(i + 1) + ": " + s.message());
    }
    if (v.type() == ElementType::kVersionstamp && !v.versionstamp_complete()) {
      return error("tuple_pack", "argument " + std::to_string(i + 1) +
                                     ": incomplete versionstamp (FoundationDB's pack() refuses "
                                     "it too; the database fills it in at commit)");
    }
    t.push_back(std::move(v));
  }
  Bytes packed;
  const Status s = pack(t, &packed);
  if (!s.ok()) {
    // E.g. an incomplete versionstamp inside a nested tuple argument; the
    // codec's hint names a C++ function, which means nothing in SQL.
    std::string detail(core_detail(s));
    const std::string_view hint = " (use pack_with_versionstamp)";
    if (const size_t at = detail.find(hint); at != std::string::npos) detail.erase(at, hint.size());
    return error("tuple_pack", detail);
  }
  result_packed_tuple(ctx, packed);
  return Status::OK();
}

Status tuple_unpack_fn(sqlite3_context* ctx, int, sqlite3_value** argv) {
  bool is_null = false;
  BytesView packed;
  TUPLEKV_RETURN_IF_ERROR(require_blob("tuple_unpack", argv[0], &is_null, &packed));
  if (is_null) return Status::OK();
  Tuple t;
  TUPLEKV_RETURN_IF_ERROR(unpack_arg("tuple_unpack", packed, &t));
  std::string json;
  const Status s = tuple_to_json(t, &json);
  if (!s.ok()) return error("tuple_unpack", core_detail(s));
  result_text(ctx, json);
  return Status::OK();
}

Status tuple_pack_json_fn(sqlite3_context* ctx, int, sqlite3_value** argv) {
  switch (sqlite3_value_type(argv[0])) {
    case SQLITE_NULL:
      return Status::OK();
    case SQLITE_TEXT:
      break;
    default:
      return type_error("tuple_pack_json", "TEXT (a JSON array)", argv[0]);
  }
  const std::string_view json = text_arg(argv[0]);
  if (json.data() == nullptr) return Status::NoMemory();
  Tuple t;
  Status s = tuple_from_json(json, &t);
  if (!s.ok()) {
    if (s.code() == StatusCode::kNoMemory) return s;
    return error("tuple_pack_json", core_detail(s));
  }
  // Incomplete versionstamps are written as they are: tuple_unpack shows
  // them, so its inverse must take them back (tuple_pack refuses them).
  Bytes packed;
  s = pack_allow_incomplete(t, &packed);
  if (!s.ok()) return error("tuple_pack_json", core_detail(s));
  result_packed_tuple(ctx, packed);
  return Status::OK();
}

Status tuple_repr_fn(sqlite3_context* ctx, int, sqlite3_value** argv) {
  bool is_null = false;
  BytesView packed;
  TUPLEKV_RETURN_IF_ERROR(require_blob("tuple_repr", argv[0], &is_null, &packed));
  if (is_null) return Status::OK();
  Tuple t;
  TUPLEKV_RETURN_IF_ERROR(unpack_arg("tuple_repr", packed, &t));
  result_text(ctx, repr(t));
  return Status::OK();
}

// ---------------------------------------------------------------------------
// Key arithmetic: tuple_strinc, tuple_range_begin, tuple_range_end

Status tuple_strinc_fn(sqlite3_context* ctx, int, sqlite3_value** argv) {
  bool is_null = false;
  BytesView key;
  TUPLEKV_RETURN_IF_ERROR(require_blob("tuple_strinc", argv[0], &is_null, &key));
  if (is_null) return Status::OK();
  Result<Bytes> next = strinc(key);
  if (!next.ok()) return error("tuple_strinc", core_detail(next.status()));
  result_blob(ctx, *next);
  return Status::OK();
}

// A count argument of tuplekv_map_key.
Status require_count(std::string_view fn, sqlite3_value* v, size_t* out) {
  if (sqlite3_value_type(v) != SQLITE_INTEGER) return type_error(fn, "an INTEGER", v);
  const sqlite3_int64 n = sqlite3_value_int64(v);
  if (n < 0) return error(fn, "a count must not be negative, got " + std::to_string(n));
  *out = static_cast<size_t>(n);
  return Status::OK();
}

// Runs once per row of an index scan that fetches rows, so it builds small
// keys on the stack and lets SQLite copy them into its reused register.
Status tuplekv_map_key_fn(sqlite3_context* ctx, int, sqlite3_value** argv) {
  constexpr std::string_view fn = "tuplekv_map_key";
  bool key_null = false;
  bool prefix_null = false;
  BytesView key, to_prefix;
  size_t from_prefix = 0, skip = 0;
  TUPLEKV_RETURN_IF_ERROR(require_blob(fn, argv[0], &key_null, &key));
  TUPLEKV_RETURN_IF_ERROR(require_count(fn, argv[1], &from_prefix));
  TUPLEKV_RETURN_IF_ERROR(require_count(fn, argv[2], &skip));
  TUPLEKV_RETURN_IF_ERROR(require_blob(fn, argv[3], &prefix_null, &to_prefix));
  BytesView rest;
  if (key_null || prefix_null || !mapped_suffix(key, from_prefix, skip, &rest)) {
    return Status::OK();  // NULL
  }
  const size_t n = to_prefix.size() + rest.size();
  char small[256];
  Bytes large;
  char* out = small;
  if (n > sizeof small) {
    large.resize(n);
    out = large.data();
  }
  if (!to_prefix.empty()) std::memcpy(out, to_prefix.data(), to_prefix.size());
  if (!rest.empty()) std::memcpy(out + to_prefix.size(), rest.data(), rest.size());
  result_blob(ctx, BytesView(out, n));
  return Status::OK();
}

template <bool kEnd>
Status tuple_range_fn(sqlite3_context* ctx, int, sqlite3_value** argv) {
  constexpr std::string_view fn = kEnd ? "tuple_range_end" : "tuple_range_begin";
  bool is_null = false;
  BytesView prefix;
  TUPLEKV_RETURN_IF_ERROR(require_blob(fn, argv[0], &is_null, &prefix));
  if (is_null) return Status::OK();
  TUPLEKV_RETURN_IF_ERROR(validate_packed(fn, prefix));
  const KeyRange r = range(prefix);
  result_blob(ctx, kEnd ? r.end : r.begin);
  return Status::OK();
}

// ---------------------------------------------------------------------------
// Typed element makers

// The element a maker made earlier (a BLOB tagged kElementSubtype), if it is
// of one of `types`; makers return such an argument unchanged.
bool made_element(sqlite3_value* v, std::initializer_list<ElementType> types, TupleValue* out) {
  if (sqlite3_value_type(v) != SQLITE_BLOB || sqlite3_value_subtype(v) != kElementSubtype) {
    return false;
  }
  TupleValue e;
  if (!value_to_element(v, /*honor_subtypes=*/true, &e).ok()) return false;
  for (ElementType t : types) {
    if (e.type() == t) {
      *out = std::move(e);
      return true;
    }
  }
  return false;
}

Status result_made_element(sqlite3_context* ctx, const TupleValue& v) {
  Bytes encoded;
  TUPLEKV_RETURN_IF_ERROR(pack_children(Tuple{v}, &encoded));
  result_blob(ctx, encoded);
  sqlite3_result_subtype(ctx, kElementSubtype);
  return Status::OK();
}

bool ascii_iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char c = a[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != b[i]) return false;
  }
  return true;
}

Status tuple_bool_fn(sqlite3_context* ctx, int, sqlite3_value** argv) {
  sqlite3_value* a = argv[0];
  TupleValue v;
  switch (sqlite3_value_type(a)) {
    case SQLITE_NULL:
      return Status::OK();
    case SQLITE_INTEGER:
      v = TupleValue::boolean(sqlite3_value_int64(a) != 0);
      break;
    case SQLITE_FLOAT:
      v = TupleValue::boolean(sqlite3_value_double(a) != 0.0);
      break;
    case SQLITE_TEXT: {
      const std::string_view s = text_arg(a);
      if (ascii_iequals(s, "true")) {
        v = TupleValue::boolean(true);
      } else if (ascii_iequals(s, "false")) {
        v = TupleValue::boolean(false);
      } else {
        return error("tuple_bool", "text must be 'true' or 'false'");
      }
      break;
    }
    default:
      if (!made_element(a, {ElementType::kBool}, &v)) {
        return type_error("tuple_bool", "INTEGER, REAL or TEXT 'true'/'false'", a);
      }
  }
  return result_made_element(ctx, v);
}

Status tuple_uuid_fn(sqlite3_context* ctx, int, sqlite3_value** argv) {
  sqlite3_value* a = argv[0];
  TupleValue v;
  switch (sqlite3_value_type(a)) {
    case SQLITE_NULL:
      return Status::OK();
    case SQLITE_TEXT: {
      Uuid u;
      if (!parse_uuid_text(text_arg(a), &u)) {
        return error("tuple_uuid", "text must be 32 hex digits or 8-4-4-4-12 with dashes");
      }
      v = TupleValue::uuid(u);
      break;
    }
    case SQLITE_BLOB: {
      if (made_element(a, {ElementType::kUuid}, &v)) break;
      const BytesView b = blob_arg(a);
      Uuid u;
      if (b.size() != u.size()) {
        return error("tuple_uuid",
                     "BLOB must be exactly 16 bytes (got " + std::to_string(b.size()) + ")");
      }
      std::memcpy(u.data(), b.data(), u.size());
      v = TupleValue::uuid(u);
      break;
    }
    default:
      return type_error("tuple_uuid", "TEXT or a 16-byte BLOB", a);
  }
  return result_made_element(ctx, v);
}

// The float32 nearest to `d`; false when that would overflow to infinity.
bool double_to_float(double d, float* out) {
  // Values at or above FLT_MAX + half an ulp round to infinity.
  constexpr double kOverflow = 0x1.ffffffp127;
  if (std::isfinite(d) && std::fabs(d) >= kOverflow) return false;
  *out = static_cast<float>(d);
  return true;
}

Status tuple_float_fn(sqlite3_context* ctx, int, sqlite3_value** argv) {
  sqlite3_value* a = argv[0];
  TupleValue v;
  switch (sqlite3_value_type(a)) {
    case SQLITE_NULL:
      return Status::OK();
    case SQLITE_INTEGER:
      v = TupleValue::float32(static_cast<float>(sqlite3_value_int64(a)));
      break;
    case SQLITE_FLOAT: {
      float f = 0;
      if (!double_to_float(sqlite3_value_double(a), &f)) {
        char buf[32];
        const auto r = std::to_chars(buf, buf + sizeof buf, sqlite3_value_double(a));
        return error("tuple_float", std::string(buf, r.ptr) + " is out of float32 range");
      }
      v = TupleValue::float32(f);
      break;
    }
    case SQLITE_TEXT: {
      const std::string_view s = text_arg(a);
      if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        Bytes raw;
        if (s.size() != 10 || !from_hex(s.substr(2), &raw)) {
          return error("tuple_float", "raw bits must be '0x' and 8 hex digits");
        }
        uint32_t bits = 0;
        for (char c : raw) bits = (bits << 8) | static_cast<uint8_t>(c);
        v = TupleValue::float32_bits(bits);
        break;
      }
      float f = 0;
      const auto r = std::from_chars(s.data(), s.data() + s.size(), f);
      if (r.ec == std::errc::result_out_of_range) {
        std::string what = quote_for_message(s);
        what += " is out of float32 range";
        return error("tuple_float", what);
      }
      if (r.ec != std::errc() || r.ptr != s.data() + s.size() || s.empty()) {
        return error("tuple_float",
                     "text must be a decimal number, 'nan', 'inf', '-inf' or '0x' and 8 hex digits");
      }
      v = TupleValue::float32(f);
      break;
    }
    default:
      if (!made_element(a, {ElementType::kFloat}, &v)) {
        return type_error("tuple_float", "INTEGER, REAL or TEXT", a);
      }
  }
  return result_made_element(ctx, v);
}

Status tuple_bigint_fn(sqlite3_context* ctx, int, sqlite3_value** argv) {
  sqlite3_value* a = argv[0];
  TupleValue v;
  switch (sqlite3_value_type(a)) {
    case SQLITE_NULL:
      return Status::OK();
    case SQLITE_INTEGER:
      v = TupleValue::int64(sqlite3_value_int64(a));
      break;
    case SQLITE_TEXT: {
      const std::string_view text = text_arg(a);
      Result<BigInt> b = BigInt::from_decimal(text);
      if (!b.ok()) {
        // BigInt's message quotes the whole text; say the same in bounded form.
        const size_t sign = !text.empty() && (text[0] == '-' || text[0] == '+') ? 1 : 0;
        const std::string_view digits = text.substr(sign);
        const bool all_digits =
            !digits.empty() && digits.find_first_not_of("0123456789") == std::string_view::npos;
        if (all_digits && !(digits.size() > 1 && digits[0] == '0')) {
          return error("tuple_bigint", "value beyond 255 bytes (the tuple layer's limit)");
        }
        std::string what = "text must be decimal digits with an optional sign and no leading "
                           "zeros, got ";
        what += quote_for_message(text);
        return error("tuple_bigint", what);
      }
      v = TupleValue::integer(std::move(b).value());
      break;
    }
    default:
      if (!made_element(a, {ElementType::kInt, ElementType::kBigInt}, &v)) {
        return type_error("tuple_bigint", "TEXT (decimal digits) or INTEGER", a);
      }
  }
  return result_made_element(ctx, v);
}

Status tuple_versionstamp_fn(sqlite3_context* ctx, int, sqlite3_value** argv) {
  sqlite3_value* a = argv[0];
  Versionstamp stamp;
  TupleValue v;
  switch (sqlite3_value_type(a)) {
    case SQLITE_NULL:
      return Status::OK();
    case SQLITE_TEXT: {
      Bytes raw;
      if (!from_hex(text_arg(a), &raw) || raw.size() != stamp.size()) {
        return error("tuple_versionstamp", "text must be 24 hex digits");
      }
      std::memcpy(stamp.data(), raw.data(), stamp.size());
      v = TupleValue::versionstamp(stamp);
      break;
    }
    case SQLITE_BLOB: {
      if (made_element(a, {ElementType::kVersionstamp}, &v)) break;
      const BytesView b = blob_arg(a);
      if (b.size() != stamp.size()) {
        return error("tuple_versionstamp",
                     "BLOB must be exactly 12 bytes (got " + std::to_string(b.size()) + ")");
      }
      std::memcpy(stamp.data(), b.data(), stamp.size());
      v = TupleValue::versionstamp(stamp);
      break;
    }
    default:
      return type_error("tuple_versionstamp", "a 12-byte BLOB or TEXT of 24 hex digits", a);
  }
  return result_made_element(ctx, v);
}

// ---------------------------------------------------------------------------
// Registration

#ifdef SQLITE_RESULT_SUBTYPE
constexpr int kResultSubtype = SQLITE_RESULT_SUBTYPE;  // SQLite >= 3.45
#else
constexpr int kResultSubtype = 0;
#endif

constexpr int kPure = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
// Reads its arguments' subtypes and sets its result's.
constexpr int kSubtyped = kPure | SQLITE_SUBTYPE | kResultSubtype;

struct FunctionSpec {
  const char* name;
  int n_arg;  // -1: any number
  int flags;
  void (*fn)(sqlite3_context*, int, sqlite3_value**);
};

constexpr FunctionSpec kFunctions[] = {
    {"tuple_pack", -1, kSubtyped, sql_function<tuple_pack_fn>},
    {"tuple_unpack", 1, kPure, sql_function<tuple_unpack_fn>},
    {"tuple_pack_json", 1, kPure | kResultSubtype, sql_function<tuple_pack_json_fn>},
    {"tuple_repr", 1, kPure, sql_function<tuple_repr_fn>},
    {"tuple_strinc", 1, kPure, sql_function<tuple_strinc_fn>},
    {"tuple_range_begin", 1, kPure, sql_function<tuple_range_fn<false>>},
    {"tuple_range_end", 1, kPure, sql_function<tuple_range_fn<true>>},
    {"tuple_bool", 1, kSubtyped, sql_function<tuple_bool_fn>},
    {"tuple_uuid", 1, kSubtyped, sql_function<tuple_uuid_fn>},
    {"tuple_float", 1, kSubtyped, sql_function<tuple_float_fn>},
    {"tuple_bigint", 1, kSubtyped, sql_function<tuple_bigint_fn>},
    {"tuple_versionstamp", 1, kSubtyped, sql_function<tuple_versionstamp_fn>},
    {"tuplekv_map_key", 4, kPure, sql_function<tuplekv_map_key_fn>},
};

}  // namespace

int register_functions(sqlite3* db, char** err) {
  for (const FunctionSpec& f : kFunctions) {
    const int rc = sqlite3_create_function_v2(db, f.name, f.n_arg, f.flags, nullptr, f.fn,
                                              nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) {
      if (err != nullptr) {
        sqlite3_free(*err);
        *err = sqlite3_mprintf("tuplekv: cannot register function %s: %s", f.name,
                               sqlite3_errmsg(db));
      }
      return rc;
    }
  }
  return SQLITE_OK;
}

}  // namespace tuplekv::ext
