// SQL values <-> tuple elements (see values.h for the tables).
#include "ext/values.h"

#include <bit>
#include <cstdlib>
#include <cstring>

#include "core/tuple_json.h"

namespace tuplekv::ext {

BytesView blob_view(sqlite3_value* v) {
  const void* p = sqlite3_value_blob(v);  // blob before bytes, as SQLite asks
  const int n = sqlite3_value_bytes(v);
  if (p == nullptr || n <= 0) return BytesView();
  return BytesView(static_cast<const char*>(p), static_cast<size_t>(n));
}

std::string_view text_view(sqlite3_value* v) {
  const auto* p = reinterpret_cast<const char*>(sqlite3_value_text(v));
  if (p == nullptr) return std::string_view();
  return std::string_view(p, static_cast<size_t>(sqlite3_value_bytes(v)));
}

std::string_view core_detail(const Status& s) {
  std::string_view m = s.message();
  for (std::string_view prefix : {"tuple JSON: ", "tuple: ", "bigint: ", "strinc: "}) {
    if (m.substr(0, prefix.size()) == prefix) return m.substr(prefix.size());
  }
  return m;
}

Status value_to_element(sqlite3_value* v, bool honor_subtypes, TupleValue* out) {
  switch (sqlite3_value_type(v)) {
    case SQLITE_NULL:
      *out = TupleValue::null();
      return Status::OK();
    case SQLITE_INTEGER:
      *out = TupleValue::int64(sqlite3_value_int64(v));
      return Status::OK();
    case SQLITE_FLOAT:
      *out = TupleValue::float64(sqlite3_value_double(v));
      return Status::OK();
    case SQLITE_TEXT: {
      const unsigned char* p = sqlite3_value_text(v);
      if (p == nullptr) return Status::NoMemory();
      const std::string_view s(reinterpret_cast<const char*>(p),
                               static_cast<size_t>(sqlite3_value_bytes(v)));
      if (!is_valid_utf8(s)) return Status::InvalidArgument("TEXT is not valid UTF-8");
      *out = TupleValue::string(s);
      return Status::OK();
    }
    default:
      break;
  }
  // BLOB
  const BytesView b = blob_view(v);
  if (b.empty() && sqlite3_value_bytes(v) > 0) return Status::NoMemory();
  const unsigned int subtype = honor_subtypes ? sqlite3_value_subtype(v) : 0;
  if (subtype == kElementSubtype) {
    BytesView in = b;
    TupleValue element;
    Status s = in.empty() ? Status::Corruption("tuple: empty BLOB") : decode_element(&in, &element);
    if (s.ok() && !in.empty()) {
      s = Status::Corruption("tuple: " + std::to_string(in.size()) + " bytes after the element");
    }
    if (!s.ok()) {
      return Status::InvalidArgument("BLOB tagged as a tuple element does not decode: " +
                                     std::string(core_detail(s)));
    }
    *out = std::move(element);
    return Status::OK();
  }
  if (subtype == kTupleSubtype) {
    Tuple children;
    const Status s = unpack(b, &children);
    if (!s.ok()) {
      return Status::InvalidArgument("BLOB tagged as a packed tuple does not decode: " +
                                     std::string(core_detail(s)));
    }
    *out = TupleValue::nested(std::move(children));
    return Status::OK();
  }
  *out = TupleValue::bytes(b);
  return Status::OK();
}

Status pack_children(const Tuple& children, Bytes* out) {
  out->clear();
  return pack_allow_incomplete(children, out);
}

Status result_element(sqlite3_context* ctx, const TupleValue& v) {
  switch (v.type()) {
    case ElementType::kNull:
      sqlite3_result_null(ctx);
      return Status::OK();
    case ElementType::kInt:
      sqlite3_result_int64(ctx, v.as_int64());
      return Status::OK();
    case ElementType::kBigInt:
      result_text(ctx, v.as_bigint().to_decimal());
      return Status::OK();
    case ElementType::kDouble:
      sqlite3_result_double(ctx, v.as_double());  // NaN becomes NULL
      return Status::OK();
    case ElementType::kFloat:
      sqlite3_result_double(ctx, static_cast<double>(v.as_float()));
      return Status::OK();
    case ElementType::kString:
      result_text(ctx, v.as_string());
      return Status::OK();
    case ElementType::kBytes:
    case ElementType::kUser:
      result_blob(ctx, v.as_bytes());
      return Status::OK();
    case ElementType::kBool:
      sqlite3_result_int(ctx, v.as_bool() ? 1 : 0);
      return Status::OK();
    case ElementType::kUuid:
      result_text(ctx, uuid_text(v.as_uuid()));
      return Status::OK();
    case ElementType::kVersionstamp: {
      const Versionstamp& s = v.as_versionstamp();
      result_blob(ctx, BytesView(reinterpret_cast<const char*>(s.data()), s.size()));
      return Status::OK();
    }
    case ElementType::kNested: {
      Bytes packed;
      TUPLEKV_RETURN_IF_ERROR(pack_children(v.as_nested(), &packed));
      result_blob(ctx, packed);
      sqlite3_result_subtype(ctx, kTupleSubtype);
      return Status::OK();
    }
  }
  return Status::Internal("tuplekv internal error: unknown element type");
}

const char* storage_class_name(int sqlite_type) {
  switch (sqlite_type) {
    case SQLITE_NULL: return "NULL";
    case SQLITE_INTEGER: return "INTEGER";
    case SQLITE_FLOAT: return "REAL";
    case SQLITE_TEXT: return "TEXT";
    default: return "BLOB";
  }
}

Status result_packed_element(sqlite3_context* ctx, BytesView* in) {
  TupleReader reader(*in);
  if (!reader.next()) {
    if (!reader.status().ok()) return reader.status();
    return Status::Corruption("tuple: expected an element at byte 0, found the end of the input");
  }
  switch (reader.type()) {
    case ElementType::kNull:
      sqlite3_result_null(ctx);
      break;
    case ElementType::kInt:
      sqlite3_result_int64(ctx, reader.int64_value());
      break;
    case ElementType::kDouble:
      sqlite3_result_double(ctx, std::bit_cast<double>(reader.double_bits()));
      break;
    case ElementType::kFloat:
      sqlite3_result_double(ctx, static_cast<double>(std::bit_cast<float>(reader.float_bits())));
      break;
    case ElementType::kBool:
      sqlite3_result_int(ctx, reader.bool_value() ? 1 : 0);
      break;
    case ElementType::kString:
    case ElementType::kBytes:
      if (!reader.has_escapes()) {
        // The escaped payload is the value itself; the reader has already
        // checked that a string is valid UTF-8.
        if (reader.type() == ElementType::kString) {
          // Without escapes the payload holds no NUL and the element's own
          // terminator follows it: a C string already.
          result_nul_terminated_text(ctx, reader.escaped_payload());
        } else {
          result_blob(ctx, reader.escaped_payload());
        }
        break;
      }
      [[fallthrough]];
    default: {
      TupleValue v;
      TUPLEKV_RETURN_IF_ERROR(reader.decode(&v));
      TUPLEKV_RETURN_IF_ERROR(result_element(ctx, v));
    }
  }
  *in = reader.rest();
  return Status::OK();
}

void result_scalar_element(sqlite3_context* ctx, const ScalarElement& e) {
  switch (e.type) {
    case ElementType::kInt:
      sqlite3_result_int64(ctx, e.int_value);
      break;
    case ElementType::kString:
      // No NUL inside, and the element's terminator follows.
      result_nul_terminated_text(ctx, e.payload);
      break;
    case ElementType::kDouble:
      sqlite3_result_double(ctx, std::bit_cast<double>(e.double_bits));
      break;
    case ElementType::kBytes:
      result_blob(ctx, e.payload);
      break;
    default:
      sqlite3_result_null(ctx);
  }
}

void result_scalar_element_in_fresh_register(sqlite3_context* ctx, const ScalarElement& e) {
  switch (e.type) {
    case ElementType::kString:
      result_nul_terminated_text_in_fresh_register(ctx, e.payload);
      break;
    case ElementType::kBytes:
      result_blob_in_fresh_register(ctx, e.payload);
      break;
    default:
      result_scalar_element(ctx, e);
  }
}

namespace {

// A malloc'd copy of `b` with a NUL after it, or null (SQLite's error set).
char* malloc_copy(sqlite3_context* ctx, BytesView b) {
  char* copy = static_cast<char*>(std::malloc(b.size() + 1));
  if (copy == nullptr) {
    sqlite3_result_error_nomem(ctx);
    return nullptr;
  }
  if (!b.empty()) std::memcpy(copy, b.data(), b.size());
  copy[b.size()] = '\0';
  return copy;
}

void free_copy(void* p) { std::free(p); }

}  // namespace

void result_blob_in_fresh_register(sqlite3_context* ctx, BytesView b) {
  if (char* copy = malloc_copy(ctx, b)) sqlite3_result_blob64(ctx, copy, b.size(), free_copy);
}

void result_nul_terminated_text_in_fresh_register(sqlite3_context* ctx, std::string_view s) {
  // -1 for the reason result_nul_terminated_text() gives.
  if (char* copy = malloc_copy(ctx, s)) sqlite3_result_text(ctx, copy, -1, free_copy);
}

std::string quote_identifier(std::string_view name) {
  std::string out = "\"";
  for (const char c : name) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  return out + "\"";
}

void result_blob(sqlite3_context* ctx, BytesView b) {
  // A non-null pointer even for an empty BLOB, so the result is x'' and not NULL.
  sqlite3_result_blob64(ctx, b.empty() ? "" : b.data(), b.size(), SQLITE_TRANSIENT);
}

void result_nul_terminated_text(sqlite3_context* ctx, std::string_view s) {
  // A negative length makes SQLite find the end itself and mark the value
  // as terminated. With an explicit length it is not marked, and the first
  // sqlite3_column_text() reallocates the register to add a terminator,
  // shrinking it so that the next row's copy allocates again: two heap
  // round trips per TEXT column per row that a native scan never pays.
  sqlite3_result_text(ctx, s.data(), -1, SQLITE_TRANSIENT);
}

void result_text(sqlite3_context* ctx, std::string_view s) {
  sqlite3_result_text64(ctx, s.empty() ? "" : s.data(), s.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
}

Result<bool> database_is_utf8(sqlite3* db) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db, "PRAGMA encoding", -1, &stmt, nullptr);
  bool utf8 = false;
  if (rc == SQLITE_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    const auto* enc = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
    utf8 = enc != nullptr && sqlite3_stricmp(enc, "UTF-8") == 0;
    rc = SQLITE_OK;
  }
  sqlite3_finalize(stmt);
  if (rc != SQLITE_OK) {
    return Status::Native(StatusCode::kIOError, rc,
                          std::string("tuplekv: cannot read the database encoding: ") +
                              sqlite3_errmsg(db));
  }
  return utf8;
}

}  // namespace tuplekv::ext
