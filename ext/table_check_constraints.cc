// CHECK constraints of a tuplekv_table (contract in table_check_constraints.h).
#include "ext/table_check_constraints.h"

#include <bit>
#include <string>
#include <string_view>

#include "core/tuple.h"
#include "ext/values.h"

namespace tuplekv::ext::table {
namespace {

std::string collate_clause(const model::TableColumn& c) {
  return c.collation == "BINARY" ? std::string() : " COLLATE " + std::string(c.collation);
}

// The subquery's column for table column `c`, parameter ?n: the value with
// the column's affinity and collation.
std::string parameter_column(const model::TableColumn& c, size_t n) {
  const std::string p = "?" + std::to_string(n);
  std::string value;
  switch (c.type) {
    case model::ColumnType::kInteger:
    case model::ColumnType::kReal:
    case model::ColumnType::kText:
      value = "CAST(" + p + " AS " + std::string(model::column_type_name(c.type)) + ")";
      break;
    case model::ColumnType::kBlob:
      // BLOB affinity changes nothing in a comparison of the BLOBs this
      // column holds, so none does too.
      value = p;
      break;
    case model::ColumnType::kAny:
      // An expression of no affinity takes the other operand's (2 = '2'
      // against a TEXT column), where a column of BLOB affinity, as ANY
      // is, keeps its own (2 <> '2'). A column without a declared type,
      // tuple_each's `value`, has BLOB affinity and hands the value back
      // exactly.
      value = "(SELECT value FROM tuple_each(tuple_pack(" + p + ")))";
      break;
  }
  return value + collate_clause(c) + " AS " + quote_identifier(c.name);
}

std::string evaluation_sql(const model::TableSchema& schema) {
  std::string sql = "SELECT ";
  for (size_t i = 0; i < schema.checks.size(); ++i) {
    if (i > 0) sql += ", ";
    // Line breaks: the expression may end in a -- comment.
    sql += "NOT (\n" + schema.checks[i].expr + "\n)";
  }
  sql += " FROM (SELECT ";
  for (size_t c = 0; c < schema.columns.size(); ++c) {
    if (c > 0) sql += ", ";
    sql += parameter_column(schema.columns[c], c + 1);
  }
  if (schema.implicit_key()) {
    // A rowid table's CHECK may read the rowid by its names that no column
    // has taken.
    const std::string p = "?" + std::to_string(schema.columns.size() + 1);
    for (const char* alias : {"rowid", "oid", "_rowid_"}) {
      if (schema.find_column(alias) < 0) sql += ", " + p + " AS " + alias;
    }
  }
  // OFFSET keeps SQLite from flattening the subquery into the outer query,
  // where each column would become its expression: a COLLATE there is an
  // explicit one, which wins over the other operand's collation, where a
  // native table's column collation does not.
  return sql + " LIMIT -1 OFFSET 0)";
}

// Binds a stored column element. Every byte is checked: the element comes
// from the store.
Status bind_element(sqlite3_stmt* st, int n, BytesView element) {
  int rc = SQLITE_OK;
  ScalarElement e;
  if (decode_scalar_element(element, &e)) {
    switch (e.type) {
      case ElementType::kInt:
        rc = sqlite3_bind_int64(st, n, e.int_value);
        break;
      case ElementType::kDouble:
        rc = sqlite3_bind_double(st, n, std::bit_cast<double>(e.double_bits));
        break;
      case ElementType::kString:
        // The row outlives the statement's run.
        rc = sqlite3_bind_text64(st, n, e.payload.data(), e.payload.size(), SQLITE_STATIC, SQLITE_UTF8);
        break;
      case ElementType::kBytes:
        // A non-null pointer even when empty: x'' is not NULL.
        rc = sqlite3_bind_blob64(st, n, e.payload.empty() ? "" : e.payload.data(), e.payload.size(),
                                 SQLITE_STATIC);
        break;
      default:
        rc = sqlite3_bind_null(st, n);
    }
    return rc == SQLITE_OK ? Status::OK() : Status::NoMemory();
  }
  // Eight-byte integers, escaped NULs, and what is no column value at all.
  TupleReader reader(element);
  if (!reader.next()) {
    if (!reader.status().ok()) return reader.status();
    return Status::Corruption("table: an empty column element");
  }
  TupleValue v;
  TUPLEKV_RETURN_IF_ERROR(reader.decode(&v));
  switch (v.type()) {
    case ElementType::kNull:
      rc = sqlite3_bind_null(st, n);
      break;
    case ElementType::kInt:  // eight-byte integers, which the fast decoder leaves
      rc = sqlite3_bind_int64(st, n, v.as_int64());
      break;
    case ElementType::kDouble:
      rc = sqlite3_bind_double(st, n, v.as_double());
      break;
    case ElementType::kString:
      rc = sqlite3_bind_text64(st, n, v.as_string().data(), v.as_string().size(), SQLITE_TRANSIENT,
                               SQLITE_UTF8);
      break;
    case ElementType::kBytes:
      rc = sqlite3_bind_blob64(st, n, v.as_bytes().empty() ? "" : v.as_bytes().data(),
                               v.as_bytes().size(), SQLITE_TRANSIENT);
      break;
    default:
      return Status::Corruption("table: a column element that holds no SQL value");
  }
  return rc == SQLITE_OK ? Status::OK() : Status::NoMemory();
}

}  // namespace

RowChecks::~RowChecks() { sqlite3_finalize(stmt_); }

Status RowChecks::prepare_error(int rc, const std::string& table) const {
  return Status::Native(StatusCode::kInvalidArgument, rc,
                        std::string(module_) + ": CHECK constraint of " + table + ": " + sqlite3_errmsg(db_));
}

Status RowChecks::validate(const std::string& table) const {
  // The CHECKs as written, table qualifiers and all, in a table of the
  // same name and columns.
  std::string sql = "CREATE TABLE temp." + quote_identifier(table) + "(";
  for (const model::TableColumn& c : schema_.columns) {
    sql += quote_identifier(c.name) + " " + std::string(model::column_type_name(c.type)) +
           collate_clause(c) + ", ";
  }
  for (size_t i = 0; i < schema_.checks.size(); ++i) {
    sql += (i > 0 ? ", CHECK (\n" : "CHECK (\n") + schema_.checks[i].text + "\n)";
  }
  if (schema_.implicit_key()) {
    sql += ") STRICT";
  } else {
    // WITHOUT ROWID, as the reference: no rowid to name.
    sql += ", PRIMARY KEY(";
    for (size_t k = 0; k < schema_.key.size(); ++k) {
      const model::TableColumn& c = schema_.columns[static_cast<size_t>(schema_.key[k])];
      sql += (k > 0 ? ", " : "") + quote_identifier(c.name);
    }
    sql += ")) STRICT, WITHOUT ROWID";
  }
  sqlite3_stmt* probe = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.c_str(), -1, &probe, nullptr);
  sqlite3_finalize(probe);
  // A temporary table of that name already (or this table itself, made in
  // temp), or an authorizer that refuses temporary tables: the evaluation
  // below still finds unknown names.
  const bool taken = std::string_view(sqlite3_errmsg(db_)).ends_with("already exists");
  if (rc == SQLITE_AUTH || (rc != SQLITE_OK && taken)) rc = SQLITE_OK;
  if (rc != SQLITE_OK) return prepare_error(rc, table);
  rc = sqlite3_prepare_v2(db_, evaluation_sql(schema_).c_str(), -1, &probe, nullptr);
  sqlite3_finalize(probe);
  return rc == SQLITE_OK ? Status::OK() : prepare_error(rc, table);
}

Status RowChecks::first_failed(const std::string& table, const model::TableLayout::Elements& row,
                               int64_t rowid, int* failed) {
  *failed = -1;
  if (stmt_ == nullptr) {
    // Prepared at the first row, not at connect: a CHECK may call a
    // function the application registers after opening the database.
    const int rc = sqlite3_prepare_v3(db_, evaluation_sql(schema_).c_str(), -1, SQLITE_PREPARE_PERSISTENT,
                                      &stmt_, nullptr);
    if (rc != SQLITE_OK) {
      sqlite3_finalize(stmt_);
      stmt_ = nullptr;
      return prepare_error(rc, table);
    }
  }
  for (size_t c = 0; c < row.size(); ++c) {
    TUPLEKV_RETURN_IF_ERROR(bind_element(stmt_, static_cast<int>(c) + 1, row[c]));
  }
  if (schema_.implicit_key() && sqlite3_bind_parameter_count(stmt_) > static_cast<int>(row.size()) &&
      sqlite3_bind_int64(stmt_, static_cast<int>(row.size()) + 1, rowid) != SQLITE_OK) {
    return Status::NoMemory();
  }
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) {
    for (int i = 0; i < sqlite3_column_count(stmt_); ++i) {
      if (sqlite3_column_type(stmt_, i) == SQLITE_INTEGER && sqlite3_column_int64(stmt_, i) != 0) {
        *failed = i;
        break;
      }
    }
  }
  Status s;
  if (rc != SQLITE_ROW) {
    // An error the expression raised (a function's), with SQLite's code.
    const int code = sqlite3_reset(stmt_);
    s = Status::Native(StatusCode::kInvalidArgument, code == SQLITE_OK ? rc : code, sqlite3_errmsg(db_));
  }
  sqlite3_reset(stmt_);
  return s;
}

}  // namespace tuplekv::ext::table
