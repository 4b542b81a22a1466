#include "ext/table_bounds.h"

#include <cmath>
#include <string>
#include <string_view>

#include "core/model/collation_key.h"
#include "core/model/table.h"
#include "core/tuple.h"
#include "ext/strict_values.h"

namespace tuplekv::ext::table {

namespace {

constexpr double kTwo63 = 9223372036854775808.0;

void encode_int(int64_t i, Bytes* out) {
  out->clear();
  append_int64_element(i, out);
}
void encode_double(double d, Bytes* out) {
  out->clear();
  if (d == 0) d = 0.0;
  append_double_element(d, out);
}
// A string element of `s`, valid UTF-8 or not (a bound only).
void encode_text(BytesView s, Bytes* out) {
  out->clear();
  model::SqlValue v;
  v.kind = model::SqlValue::Kind::kBlob;
  v.bytes = s;
  (void)model::append_element(v, out);
  (*out)[0] = '\x02';
}

bool is_lower(PlanOp op) { return op == PlanOp::kGt || op == PlanOp::kGe; }

}  // namespace

Status number_bound(PlanOp op, int type, int64_t i, double r, bool int_column, FilterValue* out) {
  out->kind = FilterValue::Kind::kBytes;
  if (int_column) {
    if (type == SQLITE_INTEGER) {
      encode_int(i, &out->bytes);
      return Status::OK();
    }
    if (r >= kTwo63) {
      out->kind = is_lower(op) || op == PlanOp::kEq || op == PlanOp::kIn
                      ? FilterValue::Kind::kNull
                      : FilterValue::Kind::kAboveAll;
      return Status::OK();
    }
    if (r < -kTwo63) {
      out->kind = is_lower(op) ? FilterValue::Kind::kBelowAll : FilterValue::Kind::kNull;
      return Status::OK();
    }
    const double fl = std::floor(r);
    const double ce = std::ceil(r);
    switch (op) {
      case PlanOp::kGt:
      case PlanOp::kLe:
        encode_int(static_cast<int64_t>(fl), &out->bytes);
        break;
      case PlanOp::kGe:
      case PlanOp::kLt:
        if (ce >= kTwo63) {
          out->kind = op == PlanOp::kGe ? FilterValue::Kind::kNull : FilterValue::Kind::kAboveAll;
        } else {
          encode_int(static_cast<int64_t>(ce), &out->bytes);
        }
        break;
      default:  // = and IN: only an integral REAL equals an integer
        if (fl != r) out->kind = FilterValue::Kind::kNull;
        else encode_int(static_cast<int64_t>(fl), &out->bytes);
        break;
    }
    return Status::OK();
  }
  // REAL column.
  if (type == SQLITE_FLOAT) {
    encode_double(r, &out->bytes);
    return Status::OK();
  }
  const double d = static_cast<double>(i);
  int cmp;  // sign of d - i, exactly
  if (d >= kTwo63) {
    cmp = 1;
  } else {
    const auto back = static_cast<int64_t>(d);
    cmp = back > i ? 1 : back < i ? -1 : 0;
  }
  if (cmp == 0) {
    encode_double(d, &out->bytes);
    return Status::OK();
  }
  const double lo = cmp < 0 ? d : std::nextafter(d, -HUGE_VAL);
  const double hi = cmp > 0 ? d : std::nextafter(d, HUGE_VAL);
  switch (op) {
    case PlanOp::kGt:
    case PlanOp::kLe:
      encode_double(lo, &out->bytes);
      break;
    case PlanOp::kGe:
    case PlanOp::kLt:
      encode_double(hi, &out->bytes);
      break;
    default:
      out->kind = FilterValue::Kind::kNull;  // no double equals it
      break;
  }
  return Status::OK();
}

Status TableValueReader::read(const PlanTerm& term, sqlite3_value* v, FilterValue* out) {
  TUPLEKV_RETURN_IF_ERROR(read_value(term, v, out));
  const std::string_view collation =
      term.column >= 0 ? c_.key_collations[static_cast<size_t>(term.column)] : std::string_view();
  if (!collation.empty() && out->kind == FilterValue::Kind::kBytes) {
    // The position holds collation keys: so must the bound.
    keyed_.clear();
    model::append_collation_key(out->bytes, collation, &keyed_);
    out->bytes.swap(keyed_);
  }
  return Status::OK();
}

Status TableValueReader::read_term(const PlanTerm& term, sqlite3_value* v, FilterArg* out) {
  const bool any = term.column >= 0 && c_.types[static_cast<size_t>(term.column)] == model::ColumnType::kAny;
  if (any && (is_lower(term.op) || term.op == PlanOp::kLt || term.op == PlanOp::kLe)) {
    return any_range(term, v, out);
  }
  TUPLEKV_RETURN_IF_ERROR(read(term, v, &out->single()));
  const int type = sqlite3_value_type(v);
  if (ambiguous_ && any && term.op == PlanOp::kEq && term.column == last_ &&
      (type == SQLITE_INTEGER || type == SQLITE_FLOAT) &&
      out->values[0].kind == FilterValue::Kind::kBytes) {
    // The number may come with numeric affinity (a join on an INTEGER
    // column), which SQLite then applies to this column too: '5' and
    // ' 5.0' equal 5. Text (as written, or its collation key) is one run
    // of the position's tuple order, so the scan also reads all of it and
    // SQLite re-checks. Only on the plan's last position, where a run
    // ends what the scan narrows by (evaluate() puts such a value there;
    // elsewhere the value is a known one, with no affinity).
    FilterValue& text = out->resize(2)[1];
    text.kind = FilterValue::Kind::kRun;
    text.bytes.assign(1, static_cast<char>(TypeCode::kString));
    text.hi.assign(1, static_cast<char>(static_cast<uint8_t>(TypeCode::kString) + 1));
  }
  return Status::OK();
}

Status TableValueReader::read_value(const PlanTerm& term, sqlite3_value* v, FilterValue* out) {
  out->kind = FilterValue::Kind::kBytes;
  const int type = sqlite3_value_type(v);
  if (term.op == PlanOp::kLike || term.op == PlanOp::kGlob) {
    if (type == SQLITE_NULL) {
      out->kind = FilterValue::Kind::kNull;
      return Status::OK();
    }
    const unsigned char* p = sqlite3_value_text(v);
    if (p == nullptr) return Status::NoMemory();
    out->bytes.assign(reinterpret_cast<const char*>(p), static_cast<size_t>(sqlite3_value_bytes(v)));
    return Status::OK();
  }
  if (type == SQLITE_NULL) {
    out->kind = FilterValue::Kind::kNull;  // every comparison with NULL is false
    return Status::OK();
  }
  switch (c_.types[static_cast<size_t>(term.column)]) {
    case model::ColumnType::kInteger:
    case model::ColumnType::kReal:
      return numeric(term, v, out);
    case model::ColumnType::kText:
      return text(term, v, out);
    case model::ColumnType::kBlob:
      if (type == SQLITE_BLOB) {
        model::SqlValue b = sql_value_of(v);
        out->bytes.clear();
        return model::append_element(b, &out->bytes);
      }
      // Numbers and text sort below every BLOB.
      class_compare(term.op, /*rhs_below=*/true, out);
      return Status::OK();
    case model::ColumnType::kAny:
      return any(v, out);
  }
  return Status::Internal("tuplekv internal error: column type");
}

void TableValueReader::class_compare(PlanOp op, bool rhs_below, FilterValue* out) {
  if (op == PlanOp::kEq || op == PlanOp::kIn) {
    out->kind = FilterValue::Kind::kNull;
  } else if (is_lower(op) == rhs_below) {
    out->kind = is_lower(op) ? FilterValue::Kind::kBelowAll : FilterValue::Kind::kAboveAll;
  } else {
    out->kind = FilterValue::Kind::kNull;
  }
}

Status TableValueReader::numeric(const PlanTerm& term, sqlite3_value* v, FilterValue* out) {
  int type = sqlite3_value_type(v);
  int64_t i = 0;
  double r = 0;
  if (type == SQLITE_TEXT) {
    // The comparison applies numeric affinity to the other side.
    sqlite3_value* d = sqlite3_value_dup(v);
    if (d == nullptr) return Status::NoMemory();
    type = sqlite3_value_numeric_type(d);
    i = sqlite3_value_int64(d);
    r = sqlite3_value_double(d);
    sqlite3_value_free(d);
  } else {
    i = sqlite3_value_int64(v);
    r = sqlite3_value_double(v);
  }
  if (type != SQLITE_INTEGER && type != SQLITE_FLOAT) {
    class_compare(term.op, /*rhs_below=*/false, out);  // numbers < text < blobs
    return Status::OK();
  }
  if (type == SQLITE_FLOAT && r == -kTwo63 && term.column == c_.rowid_position &&
      (term.op == PlanOp::kEq || term.op == PlanOp::kIn)) {
    // A rowid seek takes a REAL as the integer it equals, except -2^63
    // (SQLite keeps that one a REAL, ticket #3922), so a native `rowid =
    // -9.223372036854775808e18` finds no row: the same here.
    out->kind = FilterValue::Kind::kNull;
    return Status::OK();
  }
  return number_bound(term.op, type, i, r,
                      c_.types[static_cast<size_t>(term.column)] == model::ColumnType::kInteger, out);
}

Status TableValueReader::text(const PlanTerm& term, sqlite3_value* v, FilterValue* out) {
  const int type = sqlite3_value_type(v);
  if (type == SQLITE_BLOB) {
    class_compare(term.op, /*rhs_below=*/false, out);  // text < blobs
    return Status::OK();
  }
  if (type != SQLITE_TEXT && ambiguous_) {
    // A number whose affinity is unknown: maybe compared as text, maybe
    // the column is compared numerically. Scan everything.
    fallback_ = true;
    out->kind = FilterValue::Kind::kNull;
    return Status::OK();
  }
  const unsigned char* p;
  std::string rendered;
  if (type == SQLITE_TEXT) {
    p = sqlite3_value_text(v);
    if (p == nullptr) return Status::NoMemory();
    encode_text(BytesView(reinterpret_cast<const char*>(p), static_cast<size_t>(sqlite3_value_bytes(v))),
                &out->bytes);
    return Status::OK();
  }
  // A literal number: TEXT affinity makes it text.
  SqliteConversions conv;
  conv.text(sql_value_of(v), &rendered);
  encode_text(rendered, &out->bytes);
  return Status::OK();
}

Status TableValueReader::any_range(const PlanTerm& term, sqlite3_value* v, FilterArg* out) {
  const bool lower = is_lower(term.op);
  const bool inclusive = term.op == PlanOp::kGe || term.op == PlanOp::kLe;
  const int type = sqlite3_value_type(v);
  out->count = 0;
  auto add = [&](BytesView lo, BytesView hi) {
    const size_t n = out->count + 1;
    FilterValue& run = out->resize(n)[n - 1];
    run.kind = FilterValue::Kind::kRun;
    run.bytes.assign(lo);
    run.hi.assign(hi);
  };
  auto whole = [&](TypeCode first, TypeCode end) {
    const char lo = static_cast<char>(first);
    const char hi = static_cast<char>(end);
    add(BytesView(&lo, 1), BytesView(&hi, 1));
  };
  // The part of class [first, end) beyond `b`, a bound in its elements.
  auto part = [&](const FilterValue& b, TypeCode first, TypeCode end) {
    const char lo_code = static_cast<char>(first);
    const char hi_code = static_cast<char>(end);
    switch (b.kind) {
      case FilterValue::Kind::kBytes:
        bound_.assign(b.bytes);
        if (lower != inclusive) bound_.push_back('\xff');  // > x starts after x; <= x ends after it
        if (lower) add(bound_, BytesView(&hi_code, 1));
        else add(BytesView(&lo_code, 1), bound_);
        break;
      case FilterValue::Kind::kBelowAll:
        if (lower) whole(first, end);
        break;
      case FilterValue::Kind::kAboveAll:
        if (!lower) whole(first, end);
        break;
      default:
        break;
    }
  };
  // Each class runs from its first type code to the code after its last.
  auto after = [](TypeCode last) { return static_cast<TypeCode>(static_cast<uint8_t>(last) + 1); };
  constexpr TypeCode kBlobs = TypeCode::kBytes;
  constexpr TypeCode kTexts = TypeCode::kString;
  const TypeCode kTextsEnd = after(TypeCode::kString);
  constexpr TypeCode kInts = TypeCode::kNegIntArbitrary;
  const TypeCode kIntsEnd = after(TypeCode::kPosIntArbitrary);
  constexpr TypeCode kDoubles = TypeCode::kDouble;
  const TypeCode kDoublesEnd = after(TypeCode::kDouble);
  const std::string_view collation = c_.key_collations[static_cast<size_t>(term.column)];
  switch (type) {
    case SQLITE_INTEGER:
    case SQLITE_FLOAT: {
      if (lower) whole(kBlobs, kTextsEnd);
      else if (ambiguous_) whole(kTexts, kTextsEnd);
      const int64_t i = sqlite3_value_int64(v);
      const double r = sqlite3_value_double(v);
      TUPLEKV_RETURN_IF_ERROR(number_bound(term.op, type, i, r, /*int_column=*/true, &num_));
      part(num_, kInts, kIntsEnd);
      TUPLEKV_RETURN_IF_ERROR(number_bound(term.op, type, i, r, /*int_column=*/false, &num_));
      // -0.0 is kept in an ANY column and sorts just below 0.0, which
      // SQLite calls equal: a bound at zero from below starts at -0.0.
      if (lower && inclusive && num_.kind == FilterValue::Kind::kBytes) {
        static const Bytes kZero = [] {
          Bytes b;
          encode_double(0.0, &b);
          return b;
        }();
        if (num_.bytes == kZero) {
          num_.bytes.clear();
          append_double_element(-0.0, &num_.bytes);
        }
      }
      part(num_, kDoubles, kDoublesEnd);
      break;
    }
    case SQLITE_TEXT: {
      if (lower) whole(kBlobs, kTexts);
      if (!lower && ambiguous_) {
        whole(kTexts, kTextsEnd);
      } else {
        const unsigned char* p = sqlite3_value_text(v);
        if (p == nullptr) return Status::NoMemory();
        encode_text(BytesView(reinterpret_cast<const char*>(p), static_cast<size_t>(sqlite3_value_bytes(v))),
                    &num_.bytes);
        num_.kind = FilterValue::Kind::kBytes;
        if (!collation.empty()) {
          keyed_.clear();
          model::append_collation_key(num_.bytes, collation, &keyed_);
          num_.bytes.swap(keyed_);
        }
        part(num_, kTexts, kTextsEnd);
      }
      if (!lower) {
        whole(kInts, kIntsEnd);
        whole(kDoubles, kDoublesEnd);
      }
      break;
    }
    case SQLITE_BLOB: {
      num_.kind = FilterValue::Kind::kBytes;
      num_.bytes.clear();
      TUPLEKV_RETURN_IF_ERROR(model::append_element(sql_value_of(v), &num_.bytes));
      part(num_, kBlobs, kTexts);
      if (!lower) {
        whole(kTexts, kTextsEnd);
        whole(kInts, kIntsEnd);
        whole(kDoubles, kDoublesEnd);
      }
      break;
    }
    default:
      break;  // NULL: nothing
  }
  if (out->count == 0) out->single().kind = FilterValue::Kind::kNull;
  return Status::OK();
}

Status TableValueReader::any(sqlite3_value* v, FilterValue* out) {
  model::SqlValue s = sql_value_of(v);
  if (s.kind == model::SqlValue::Kind::kReal && s.r == 0) s.r = 0.0;
  out->bytes.clear();
  if (!model::append_element(s, &out->bytes).ok()) out->kind = FilterValue::Kind::kNull;
  return Status::OK();
}

}  // namespace tuplekv::ext::table
