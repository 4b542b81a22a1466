#include "ext/errors.h"

#include <string>
#include <utility>

namespace tuplekv::ext {

int sqlite_code(const Status& s) {
  if (s.native_code() != 0) return s.native_code();
  switch (s.code()) {
    case StatusCode::kOk:
      return SQLITE_OK;
    case StatusCode::kInvalidArgument:
    case StatusCode::kNotSupported:
    case StatusCode::kNotFound:
      return SQLITE_ERROR;
    case StatusCode::kTypeMismatch:
      return SQLITE_CONSTRAINT_DATATYPE;
    case StatusCode::kConstraint:
      switch (s.constraint()) {
        case ConstraintKind::kPrimaryKey:
          return SQLITE_CONSTRAINT_PRIMARYKEY;
        case ConstraintKind::kNotNull:
          return SQLITE_CONSTRAINT_NOTNULL;
        case ConstraintKind::kUnique:
          return SQLITE_CONSTRAINT_UNIQUE;
        case ConstraintKind::kCheck:
          return SQLITE_CONSTRAINT_CHECK;
        case ConstraintKind::kNone:
          return SQLITE_CONSTRAINT;
      }
      return SQLITE_CONSTRAINT;
    case StatusCode::kCorruption:
      return SQLITE_CORRUPT_VTAB;
    case StatusCode::kTooBig:
      return SQLITE_TOOBIG;
    case StatusCode::kNoMemory:
      return SQLITE_NOMEM;
    case StatusCode::kBusy:
      return SQLITE_BUSY;
    case StatusCode::kIOError:
      return SQLITE_IOERR;
    case StatusCode::kInternal:
      return SQLITE_INTERNAL;
  }
  return SQLITE_INTERNAL;
}

namespace {

StatusCode classify(int rc) {
  switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return StatusCode::kBusy;
    case SQLITE_NOMEM:
      return StatusCode::kNoMemory;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return StatusCode::kCorruption;
    case SQLITE_TOOBIG:
      return StatusCode::kTooBig;
    case SQLITE_CONSTRAINT:
      return StatusCode::kConstraint;
    case SQLITE_ERROR:
    case SQLITE_SCHEMA:
    case SQLITE_AUTH:
    case SQLITE_MISMATCH:
      return StatusCode::kInvalidArgument;
    case SQLITE_INTERNAL:
    case SQLITE_MISUSE:
    case SQLITE_RANGE:
      return StatusCode::kInternal;
    default:  // IOERR, FULL, CANTOPEN, READONLY, INTERRUPT, ABORT, PERM, ...
      return StatusCode::kIOError;
  }
}

}  // namespace

Status sqlite_error(sqlite3* db, int rc, const std::string& what) {
  // With extended result codes off, step/prepare return the primary code;
  // the connection still knows the extended one.
  int code = rc;
  const char* message = sqlite3_errstr(rc);
  if (db != nullptr && (sqlite3_extended_errcode(db) & 0xff) == (rc & 0xff)) {
    code = sqlite3_extended_errcode(db);
    message = sqlite3_errmsg(db);
  }
  std::string m = what;
  m += ": ";
  m += message;
  return Status::Native(classify(code), code, std::move(m));
}

Status with_store_context(const Status& s, std::string_view module, std::string_view table) {
  if (s.code() != StatusCode::kCorruption) return s;
  return s.with_context(std::string(module) + ": corrupt store of " + std::string(table));
}

Status parameter_not_scanned(std::string_view table, std::string_view column, std::string_view operand) {
  std::string m(table);
  m += '.';
  m += column;
  m += " has a value only where `";
  m += column;
  m += " = ";
  m += operand;
  m += "` chose the scan: use it as a condition ANDed with the rest of the WHERE clause, not "
       "inside an OR or with another operator (an UPDATE ... FROM, which reads every column, "
       "cannot be used on this table)";
  return Status::InvalidArgument(std::move(m));
}

int set_vtab_error(sqlite3_vtab* vtab, const Status& s) {
  if (vtab != nullptr) {
    sqlite3_free(vtab->zErrMsg);
    vtab->zErrMsg = s.ok() ? nullptr : sqlite3_mprintf("%s", s.message().c_str());
  }
  return sqlite_code(s);
}

int set_create_error(char** pzErr, const Status& s) {
  if (pzErr != nullptr && !s.ok()) {
    sqlite3_free(*pzErr);
    *pzErr = sqlite3_mprintf("%s", s.message().c_str());
  }
  return sqlite_code(s);
}

void set_result_error(sqlite3_context* ctx, const Status& s) {
  if (s.code() == StatusCode::kNoMemory) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  sqlite3_result_error(ctx, s.message().c_str(), static_cast<int>(s.message().size()));
  sqlite3_result_error_code(ctx, sqlite_code(s));
}

}  // namespace tuplekv::ext
