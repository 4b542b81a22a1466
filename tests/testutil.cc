#include "tests/testutil.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <sys/stat.h>

#include "ext/tuplekv.h"

namespace tuplekv::testing {

Db::Db(const std::string& path, Load load) {
  int rc = sqlite3_open_v2(path.c_str(), &db_,
                           SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI,
                           nullptr);
  if (rc != SQLITE_OK) {
    ADD_FAILURE() << "cannot open " << path << ": " << sqlite3_errmsg(db_);
    return;
  }
  sqlite3_extended_result_codes(db_, 1);
  if (load == Load::kRegister) {
    rc = tuplekv_register(db_);
    if (rc != SQLITE_OK) ADD_FAILURE() << "tuplekv_register: " << sqlite3_errmsg(db_);
    return;
  }
  sqlite3_db_config(db_, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 1, nullptr);
  char* err = nullptr;
  rc = sqlite3_load_extension(db_, TUPLEKV_EXTENSION_PATH, nullptr, &err);
  if (rc != SQLITE_OK) {
    ADD_FAILURE() << "load_extension(" << TUPLEKV_EXTENSION_PATH
                  << "): " << (err != nullptr ? err : "?");
  }
  sqlite3_free(err);
}

Db::~Db() {
  if (db_ == nullptr) return;
  if (sqlite3_close(db_) != SQLITE_OK) {
    ADD_FAILURE() << "sqlite3_close: " << sqlite3_errmsg(db_)
                  << " (a statement was not finalized)";
    sqlite3_close_v2(db_);
  }
}

DuringScan during_scan(Db* db, const std::string& scan, const std::string& sql) {
  DuringScan out;
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db->handle(), scan.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
    ADD_FAILURE() << "cannot prepare " << scan << ": " << sqlite3_errmsg(db->handle());
    return out;
  }
  auto read_row = [&] {
    Row r;
    for (int c = 0; c < sqlite3_column_count(stmt); ++c) r.push_back(render_column(stmt, c));
    out.rows.push_back(std::move(r));
  };
  int rc = sqlite3_step(stmt);
  if (rc == SQLITE_ROW) read_row();
  char* message = nullptr;
  out.rc = sqlite3_exec(db->handle(), sql.c_str(), nullptr, nullptr, &message);
  if (message != nullptr) out.error = message;
  sqlite3_free(message);
  if (out.rc != SQLITE_OK) out.rc = sqlite3_extended_errcode(db->handle());
  while (rc == SQLITE_ROW && (rc = sqlite3_step(stmt)) == SQLITE_ROW) read_row();
  if (rc != SQLITE_DONE) ADD_FAILURE() << scan << " failed: " << sqlite3_errmsg(db->handle());
  sqlite3_finalize(stmt);
  return out;
}

namespace {

void run_sql_function(sqlite3_context* ctx, int, sqlite3_value** argv) {
  const auto* sql = static_cast<const std::string*>(sqlite3_user_data(ctx));
  sqlite3* db = sqlite3_context_db_handle(ctx);
  const char* tail = sql->c_str();
  while (*tail != '\0') {
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, tail, -1, &st, &tail) != SQLITE_OK) {
      sqlite3_result_error(ctx, sqlite3_errmsg(db), -1);
      return;
    }
    if (st == nullptr) continue;  // only a comment or spaces were left
    if (sqlite3_bind_parameter_count(st) >= 1) sqlite3_bind_value(st, 1, argv[0]);
    while (sqlite3_step(st) == SQLITE_ROW) {
    }
    if (sqlite3_finalize(st) != SQLITE_OK) {
      sqlite3_result_error(ctx, sqlite3_errmsg(db), -1);
      return;
    }
  }
  sqlite3_result_int(ctx, 1);
}

}  // namespace

void add_sql_function(Db* db, const std::string& name, const std::string& sql) {
  auto* owned = new std::string(sql);
  const int rc = sqlite3_create_function_v2(db->handle(), name.c_str(), 1, SQLITE_UTF8, owned, run_sql_function,
                                            nullptr, nullptr,
                                            [](void* p) { delete static_cast<std::string*>(p); });
  if (rc != SQLITE_OK) ADD_FAILURE() << "cannot declare " << name << ": " << sqlite3_errmsg(db->handle());
}

std::string render_column(sqlite3_stmt* stmt, int i) {
  switch (sqlite3_column_type(stmt, i)) {
    case SQLITE_NULL:
      return "NULL";
    case SQLITE_BLOB: {
      static const char kHex[] = "0123456789ABCDEF";
      const auto* p = static_cast<const unsigned char*>(sqlite3_column_blob(stmt, i));
      int n = sqlite3_column_bytes(stmt, i);
      std::string out = "x'";
      for (int j = 0; j < n; ++j) {
        out.push_back(kHex[p[j] >> 4]);
        out.push_back(kHex[p[j] & 15]);
      }
      out.push_back('\'');
      return out;
    }
    default: {
      const unsigned char* text = sqlite3_column_text(stmt, i);
      return std::string(reinterpret_cast<const char*>(text),
                         static_cast<size_t>(sqlite3_column_bytes(stmt, i)));
    }
  }
}

std::string render_column_exact(sqlite3_stmt* stmt, int i) {
  switch (sqlite3_column_type(stmt, i)) {
    case SQLITE_INTEGER:
      return std::to_string(sqlite3_column_int64(stmt, i));
    case SQLITE_FLOAT: {
      char buf[40];
      std::snprintf(buf, sizeof buf, "r%.17g", sqlite3_column_double(stmt, i));
      return buf;
    }
    case SQLITE_TEXT: {
      const unsigned char* text = sqlite3_column_text(stmt, i);
      return "'" + std::string(reinterpret_cast<const char*>(text),
                               static_cast<size_t>(sqlite3_column_bytes(stmt, i))) + "'";
    }
    default:
      return render_column(stmt, i);
  }
}

int Db::run(const std::string& sql, Rows* out, std::string* message) {
  const char* tail = sql.c_str();
  while (tail != nullptr && *tail != '\0') {
    sqlite3_stmt* stmt = nullptr;
    int rc = sqlite3_prepare_v2(db_, tail, -1, &stmt, &tail);
    if (rc != SQLITE_OK) {
      if (message != nullptr) *message = sqlite3_errmsg(db_);
      return sqlite3_extended_errcode(db_);
    }
    if (stmt == nullptr) continue;  // whitespace or a comment
    if (out != nullptr) out->clear();
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
      if (out == nullptr) continue;
      Row row;
      for (int i = 0; i < sqlite3_column_count(stmt); ++i) row.push_back(render_column(stmt, i));
      out->push_back(std::move(row));
    }
    if (rc != SQLITE_DONE) {
      if (message != nullptr) *message = sqlite3_errmsg(db_);
      int code = sqlite3_extended_errcode(db_);
      sqlite3_finalize(stmt);
      return code;
    }
    sqlite3_finalize(stmt);
  }
  return SQLITE_OK;
}

bool Db::exec(const std::string& sql) {
  std::string message;
  int rc = run(sql, nullptr, &message);
  if (rc != SQLITE_OK) ADD_FAILURE() << "SQL failed: " << sql << "\n  " << message;
  return rc == SQLITE_OK;
}

Rows Db::rows(const std::string& sql) {
  Rows out;
  std::string message;
  if (run(sql, &out, &message) != SQLITE_OK) {
    ADD_FAILURE() << "SQL failed: " << sql << "\n  " << message;
  }
  return out;
}

std::string Db::value(const std::string& sql) {
  Rows out = rows(sql);
  if (out.size() != 1 || out[0].size() != 1) {
    ADD_FAILURE() << "expected one value from: " << sql << " (got " << out.size() << " rows)";
    return "";
  }
  return out[0][0];
}

std::string Db::error(const std::string& sql) {
  std::string message;
  if (run(sql, nullptr, &message) == SQLITE_OK) {
    ADD_FAILURE() << "expected an error from: " << sql;
    return "";
  }
  return message;
}

int Db::error_code(const std::string& sql) {
  int rc = run(sql, nullptr, nullptr);
  if (rc == SQLITE_OK) ADD_FAILURE() << "expected an error from: " << sql;
  return rc;
}

std::string damaged(std::mt19937* rng, std::string b) {
  auto pick = [&](size_t n) { return static_cast<size_t>((*rng)() % n); };
  static const unsigned char kCodes[] = {0x00, 0x01, 0x02, 0x05, 0x0b, 0x0c, 0x14, 0x15, 0x1c, 0x1d, 0x20,
                                         0x21, 0x26, 0x27, 0x30, 0x32, 0x33, 0x40, 0x4b, 0x80, 0xc3, 0xff};
  switch (pick(8)) {
    case 0:
      if (!b.empty()) b[pick(b.size())] = static_cast<char>(pick(256));
      break;
    case 1:
      if (!b.empty()) b.resize(pick(b.size()));
      break;
    case 2:
      for (size_t n = 1 + pick(3); n > 0; --n) b.push_back(static_cast<char>(pick(256)));
      break;
    case 3:
      b.insert(pick(b.size() + 1), 1, static_cast<char>(kCodes[pick(sizeof kCodes)]));
      break;
    case 4:
      if (!b.empty()) b[pick(b.size())] ^= static_cast<char>(1 << pick(8));
      break;
    case 5:
      if (b.size() > 1) std::swap(b[pick(b.size())], b[pick(b.size())]);
      break;
    case 6:
      // After a string's terminator: a key cut there is often a bare prefix.
      if (const size_t at = b.find('\0', 1); at != std::string::npos) b.resize(at + 1);
      break;
    default:
      // The last byte (a terminator, often) or any other.
      if (!b.empty()) {
        b[pick(2) == 0 ? b.size() - 1 : pick(b.size())] = static_cast<char>(kCodes[pick(sizeof kCodes)]);
      }
      break;
  }
  return b;
}

std::string shared_path(const std::string& relative) {
  std::string path = std::string(TUPLEKV_SHARED_DIR) + "/" + relative;
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    ADD_FAILURE() << "missing shared file " << path
                  << " (configure with -DTUPLEKV_SHARED_DIR=<dir> if it lives elsewhere)";
  }
  return path;
}

}  // namespace tuplekv::testing
