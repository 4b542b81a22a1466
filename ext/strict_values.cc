#include "ext/strict_values.h"

#include <new>

#include "core/tuple.h"
#include "ext/values.h"

namespace tuplekv::ext {


Result<TextRead> text_read_for(sqlite3* db) {
  TUPLEKV_ASSIGN_OR_RETURN(const bool utf8, database_is_utf8(db));
  return utf8 ? TextRead::kUtf8AsStored : TextRead::kTerminated;
}

model::SqlValue sql_value_of(sqlite3_value* v, TextRead text) {
  model::SqlValue out;
  switch (sqlite3_value_type(v)) {
    case SQLITE_INTEGER:
      out.kind = model::SqlValue::Kind::kInteger;
      out.i = sqlite3_value_int64(v);
      break;
    case SQLITE_FLOAT:
      out.kind = model::SqlValue::Kind::kReal;
      out.r = sqlite3_value_double(v);
      break;
    case SQLITE_TEXT: {
      out.kind = model::SqlValue::Kind::kText;
      // As stored, the bytes are read as a blob's; the value stays TEXT.
      out.bytes = text == TextRead::kUtf8AsStored ? blob_view(v) : text_view(v);
      break;
    }
    case SQLITE_BLOB:
      out.kind = model::SqlValue::Kind::kBlob;
      out.bytes = blob_view(v);
      break;
    default:
      break;
  }
  return out;
}

bool append_value_of_its_type(model::ColumnType type, sqlite3_value* v, TextRead text, Bytes* out) {
  const int kind = sqlite3_value_type(v);
  switch (kind) {
    case SQLITE_INTEGER:
      if (type != model::ColumnType::kInteger && type != model::ColumnType::kAny) return false;
      append_int64_element(sqlite3_value_int64(v), out);
      return true;
    case SQLITE_FLOAT: {
      if (type != model::ColumnType::kReal && type != model::ColumnType::kAny) return false;
      const double r = sqlite3_value_double(v);
      // A REAL column stores -0.0 as 0.0 (coerce()); ANY keeps it.
      append_double_element(type == model::ColumnType::kReal && r == 0 ? 0.0 : r, out);
      return true;
    }
    case SQLITE_TEXT: {
      if (text != TextRead::kUtf8AsStored) return false;
      if (type != model::ColumnType::kText && type != model::ColumnType::kAny) return false;
      const std::string_view s = blob_view(v);  // as stored
      if (!is_valid_utf8(s)) return false;  // the general path says so
      append_string_element(s, out);
      return true;
    }
    case SQLITE_BLOB:
      if (type != model::ColumnType::kBlob && type != model::ColumnType::kAny) return false;
      append_bytes_element(blob_view(v), out);
      return true;
    case SQLITE_NULL:
      out->push_back('\0');  // (NOT NULL is checked before)
      return true;
    default:
      return false;
  }
}

model::SqlValue SqliteConversions::numeric(const model::SqlValue& v) {
  model::SqlValue out = v;
  if (source_ == nullptr) return out;
  // A copy: numeric affinity changes the value it is applied to.
  sqlite3_value* d = sqlite3_value_dup(source_);
  if (d == nullptr) throw std::bad_alloc();
  const int type = sqlite3_value_numeric_type(d);
  if (type == SQLITE_INTEGER) {
    out.kind = model::SqlValue::Kind::kInteger;
    out.i = sqlite3_value_int64(d);
  } else if (type == SQLITE_FLOAT) {
    out.kind = model::SqlValue::Kind::kReal;
    out.r = sqlite3_value_double(d);
  }
  sqlite3_value_free(d);
  return out;
}

void SqliteConversions::text(const model::SqlValue& v, std::string* out) {
  // SQLite renders numbers itself (REAL as "%!.15g"); ask it.
  char* s = v.kind == model::SqlValue::Kind::kInteger
                ? sqlite3_mprintf("%lld", static_cast<long long>(v.i))
                : sqlite3_mprintf("%!.15g", v.r);
  if (s == nullptr) throw std::bad_alloc();
  out->assign(s);
  sqlite3_free(s);
}


int strict_type_error_code(sqlite3* db, int on_conflict, int fail_rc) {
  const bool native_code = on_conflict == SQLITE_ABORT || on_conflict == SQLITE_REPLACE ||
                           (on_conflict == SQLITE_FAIL && !sqlite3_get_autocommit(db));
  return native_code ? fail_rc : SQLITE_MISMATCH;
}

}  // namespace tuplekv::ext
