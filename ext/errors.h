// Status -> SQLite result codes, and the guards that keep C++ exceptions from
// ever crossing into SQLite.
//
// Every function pointer handed to SQLite (module slots, SQL functions,
// destructors) is noexcept and runs its body inside one of the guards below:
// std::bad_alloc becomes SQLITE_NOMEM, anything else SQLITE_INTERNAL with a
// "tuplekv internal error" message. Module and function code never writes
// `try`.
#ifndef TUPLEKV_EXT_ERRORS_H_
#define TUPLEKV_EXT_ERRORS_H_

#include <new>
#include <string>
#include <string_view>

#include "core/status.h"
#include "ext/sqlite_api.h"

namespace tuplekv::ext {

// The SQLite result code for `s` (the table in STYLE.md): OK -> SQLITE_OK,
// InvalidArgument/NotSupported/NotFound -> SQLITE_ERROR, TypeMismatch ->
// SQLITE_CONSTRAINT_DATATYPE, Constraint -> SQLITE_CONSTRAINT_PRIMARYKEY /
// _NOTNULL / _UNIQUE / _CHECK, Corruption -> SQLITE_CORRUPT_VTAB, TooBig ->
// SQLITE_TOOBIG, NoMemory -> SQLITE_NOMEM, anything with a native code ->
// that code, Internal -> SQLITE_INTERNAL.
int sqlite_code(const Status& s);

// The Status for a failed SQLite call on `db` that returned `rc`: the code
// class for core/ (BUSY/LOCKED kBusy, NOMEM kNoMemory, CORRUPT kCorruption,
// ...), the exact extended code as its native code, so it passes through
// sqlite_code() unchanged, and "<what>: <SQLite's message>".
Status sqlite_error(sqlite3* db, int rc, const std::string& what);

// `s` as a virtual table reports it: damaged stored bytes (kCorruption)
// name the module and the table whose store holds them, as in
// "tuplekv_kv: corrupt store of t: key x'ff' is outside its subspace";
// other statuses are returned as they are.
Status with_store_context(const Status& s, std::string_view module, std::string_view table);

// The error for reading a hidden parameter column (tuplekv_kv's prefix,
// tuplekv_docs' path, tuplekv_leaves' prefix) where no `column = value`
// chose the scan: any value read there would make SQLite test the
// condition against a made-up row, e.g. drop every key under p from
// `prefix = p OR value = v`. "<table>.<column> has a value only where
// `<column> = <operand>` chose the scan: ...".
Status parameter_not_scanned(std::string_view table, std::string_view column, std::string_view operand);

// Replaces vtab->zErrMsg with `s`'s message and returns sqlite_code(s).
int set_vtab_error(sqlite3_vtab* vtab, const Status& s);
// The same for xCreate/xConnect's *pzErr.
int set_create_error(char** pzErr, const Status& s);
// sqlite3_result_error + sqlite3_result_error_code.
void set_result_error(sqlite3_context* ctx, const Status& s);

// Runs `body` (returning an SQLite result code); maps escaping exceptions.
template <typename Body>
int guard_vtab(sqlite3_vtab* vtab, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return SQLITE_NOMEM;
  } catch (...) {
    if (vtab != nullptr) {
      set_vtab_error(vtab, Status::Internal("tuplekv internal error: unexpected exception"));
    }
    return SQLITE_INTERNAL;
  }
}

// The same for code that reports through *pzErr (xCreate, xConnect).
template <typename Body>
int guard_create(char** pzErr, Body&& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return SQLITE_NOMEM;
  } catch (...) {
    return set_create_error(pzErr, Status::Internal("tuplekv internal error: unexpected exception"));
  }
}

// For SQL function bodies (void): errors go to the context.
template <typename Body>
void guard_function(sqlite3_context* ctx, Body&& body) noexcept {
  try {
    body();
  } catch (const std::bad_alloc&) {
    sqlite3_result_error_nomem(ctx);
  } catch (...) {
    sqlite3_result_error(ctx, "tuplekv internal error: unexpected exception", -1);
    sqlite3_result_error_code(ctx, SQLITE_INTERNAL);
  }
}

}  // namespace tuplekv::ext

#endif  // TUPLEKV_EXT_ERRORS_H_
