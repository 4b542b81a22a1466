// SqliteDocCache: statements over "<name>_json" (see docs_cache.h).
#include "ext/docs_cache.h"

#include <memory>
#include <utility>

#include "ext/errors.h"

namespace tuplekv::ext {
namespace {

constexpr unsigned kPrepareFlags = SQLITE_PREPARE_PERSISTENT | SQLITE_PREPARE_NO_VTAB;

// An sqlite3_mprintf result as a std::string; false when out of memory.
bool format(char* text, std::string* out) {
  if (text == nullptr) return false;
  const std::unique_ptr<char, void (*)(void*)> owned(text, sqlite3_free);  // if assign throws
  out->assign(text);
  return true;
}

Result<std::string> quoted_table(const std::string& schema, const std::string& name) {
  std::string out;
  if (!format(sqlite3_mprintf("\"%w\".\"%w_%s\"", schema.c_str(), name.c_str(),
                              SqliteDocCache::kShadowSuffix),
              &out)) {
    return Status::NoMemory();
  }
  return out;
}

Status exec(sqlite3* db, char* sql, const std::string& what) {
  std::string text;
  if (!format(sql, &text)) return Status::NoMemory();
  const int rc = sqlite3_exec(db, text.c_str(), nullptr, nullptr, nullptr);
  return rc == SQLITE_OK ? Status::OK() : sqlite_error(db, rc, what);
}

// A zero-length view may have a null data(), which would bind NULL.
constexpr char kEmpty[1] = {0};

int bind_view(sqlite3_stmt* s, int i, std::string_view b, bool text) {
  const char* p = b.empty() ? kEmpty : b.data();
  return text ? sqlite3_bind_text64(s, i, p, b.size(), SQLITE_STATIC, SQLITE_UTF8)
              : sqlite3_bind_blob64(s, i, p, b.size(), SQLITE_STATIC);
}

// Resets a statement however the call leaves: no statement keeps a read
// transaction open or a pointer to the caller's bytes bound.
class ResetOnExit {
 public:
  explicit ResetOnExit(sqlite3_stmt* s) : s_(s) {}
  ~ResetOnExit() {
    sqlite3_reset(s_);
    sqlite3_clear_bindings(s_);
  }
  ResetOnExit(const ResetOnExit&) = delete;
  ResetOnExit& operator=(const ResetOnExit&) = delete;

 private:
  sqlite3_stmt* s_;
};

const char* type_name(int type) {
  switch (type) {
    case SQLITE_INTEGER: return "INTEGER";
    case SQLITE_FLOAT: return "REAL";
    case SQLITE_BLOB: return "BLOB";
    case SQLITE_NULL: return "NULL";
    default: return "TEXT";
  }
}

}  // namespace

struct SqliteDocCache::Statements {
  sqlite3_stmt* contains = nullptr;
  sqlite3_stmt* get = nullptr;
  sqlite3_stmt* put = nullptr;
  sqlite3_stmt* erase = nullptr;
  std::string table;
  ~Statements() {
    sqlite3_finalize(contains);
    sqlite3_finalize(get);
    sqlite3_finalize(put);
    sqlite3_finalize(erase);
  }
};

Status SqliteDocCache::create_table(sqlite3* db, const std::string& schema,
                                    const std::string& name) {
  TUPLEKV_ASSIGN_OR_RETURN(const std::string table, quoted_table(schema, name));
  // The message first: made in the call, it could throw with the SQL text
  // allocated and not yet owned.
  const std::string what = "cannot create " + table;
  return exec(db, sqlite3_mprintf("CREATE TABLE %s(id BLOB PRIMARY KEY, doc TEXT)", table.c_str()),
              what);
}

Status SqliteDocCache::drop_table(sqlite3* db, const std::string& schema,
                                  const std::string& name) {
  TUPLEKV_ASSIGN_OR_RETURN(const std::string table, quoted_table(schema, name));
  const std::string what = "cannot drop " + table;
  return exec(db, sqlite3_mprintf("DROP TABLE IF EXISTS %s", table.c_str()), what);
}

Status SqliteDocCache::rename_table(sqlite3* db, const std::string& schema,
                                    const std::string& old_name, const std::string& new_name) {
  TUPLEKV_ASSIGN_OR_RETURN(const std::string table, quoted_table(schema, old_name));
  const std::string what = "cannot rename " + table;
  return exec(db,
              sqlite3_mprintf("ALTER TABLE %s RENAME TO \"%w_%s\"", table.c_str(),
                              new_name.c_str(), kShadowSuffix),
              what);
}

Status SqliteDocCache::table_exists(sqlite3* db, const std::string& schema,
                                    const std::string& name, bool* exists) {
  *exists = false;
  std::string sql, shadow;
  if (!format(sqlite3_mprintf("SELECT 1 FROM \"%w\".sqlite_schema WHERE type='table' AND name=?1",
                              schema.c_str()),
              &sql) ||
      !format(sqlite3_mprintf("%s_%s", name.c_str(), kShadowSuffix), &shadow)) {
    return Status::NoMemory();
  }
  sqlite3_stmt* s = nullptr;
  int rc = sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(s);
    return sqlite_error(db, rc, "cannot read the schema of " + schema);
  }
  rc = sqlite3_bind_text(s, 1, shadow.c_str(), -1, SQLITE_STATIC);
  if (rc == SQLITE_OK) rc = sqlite3_step(s);
  Status result;
  if (rc == SQLITE_ROW) {
    *exists = true;
  } else if (rc != SQLITE_DONE) {
    result = sqlite_error(db, rc, "cannot read the schema of " + schema);
  }
  sqlite3_finalize(s);
  return result;
}

SqliteDocCache::SqliteDocCache(sqlite3* db, std::string schema)
    : db_(db), schema_(std::move(schema)) {}

SqliteDocCache::~SqliteDocCache() = default;

Status SqliteDocCache::prepare_all(const std::string& name,
                                   std::unique_ptr<Statements>* out) const {
  auto st = std::make_unique<Statements>();
  TUPLEKV_ASSIGN_OR_RETURN(st->table, quoted_table(schema_, name));
  const char* t = st->table.c_str();
  struct Shape {
    const char* format;
    sqlite3_stmt** stmt;
  };
  const Shape shapes[] = {
      {"SELECT 1 FROM %s WHERE id=?1", &st->contains},
      {"SELECT doc FROM %s WHERE id=?1", &st->get},
      {"INSERT INTO %s(id,doc) VALUES(?1,?2) ON CONFLICT(id) DO UPDATE SET doc=excluded.doc",
       &st->put},
      {"DELETE FROM %s WHERE id=?1", &st->erase},
  };
  for (const Shape& shape : shapes) {
    std::string sql;
    if (!format(sqlite3_mprintf(shape.format, t), &sql)) return Status::NoMemory();
    const int rc = sqlite3_prepare_v3(db_, sql.c_str(), -1, kPrepareFlags, shape.stmt, nullptr);
    if (rc != SQLITE_OK) {
      return sqlite_error(db_, rc, "cannot prepare a statement on " + st->table);
    }
  }
  *out = std::move(st);
  return Status::OK();
}

Result<std::unique_ptr<SqliteDocCache>> SqliteDocCache::open(sqlite3* db,
                                                             const std::string& schema,
                                                             const std::string& name) {
  std::unique_ptr<SqliteDocCache> cache(new SqliteDocCache(db, schema));
  TUPLEKV_RETURN_IF_ERROR(cache->renamed(name));
  return cache;
}

Status SqliteDocCache::renamed(const std::string& new_name) {
  done();
  std::unique_ptr<Statements> next;
  TUPLEKV_RETURN_IF_ERROR(prepare_all(new_name, &next));
  stmts_ = std::move(next);  // the old statements finalize here
  table_ = stmts_->table;
  return Status::OK();
}

Status SqliteDocCache::contains(BytesView doc, bool* found) {
  done();
  sqlite3_stmt* s = stmts_->contains;
  ResetOnExit reset(s);
  int rc = bind_view(s, 1, doc, false);
  if (rc == SQLITE_OK) rc = sqlite3_step(s);
  *found = rc == SQLITE_ROW;
  if (rc == SQLITE_ROW || rc == SQLITE_DONE) return Status::OK();
  return sqlite_error(db_, rc, "reading " + table_);
}

// The statement stays on its row so that *json can point at the text in
// its result register (OP_Column copies the text there, out of the pages),
// until done() or the next call resets it.
Status SqliteDocCache::get(BytesView doc, std::string_view* json, bool* found) {
  done();
  sqlite3_stmt* s = stmts_->get;
  *found = false;
  *json = std::string_view();
  holding_ = true;
  int rc = bind_view(s, 1, doc, false);
  if (rc == SQLITE_OK) rc = sqlite3_step(s);
  if (rc != SQLITE_ROW) {
    done();
    if (rc == SQLITE_DONE) return Status::OK();
    return sqlite_error(db_, rc, "reading " + table_);
  }
  sqlite3_value* v = sqlite3_column_value(s, 0);
  if (sqlite3_value_type(v) != SQLITE_TEXT) {
    const int type = sqlite3_value_type(v);
    done();
    return Status::Corruption("corrupt shadow table " + table_ + ": the doc of id x'" +
                              to_hex(doc.substr(0, 32)) + "' is " + type_name(type) +
                              ", not TEXT");
  }
  const unsigned char* p = sqlite3_value_text(v);  // text before bytes, as SQLite asks
  const int n = sqlite3_value_bytes(v);
  if (p == nullptr && n > 0) {
    done();
    return Status::Native(StatusCode::kNoMemory, SQLITE_NOMEM, "reading " + table_);
  }
  if (n > 0) *json = std::string_view(reinterpret_cast<const char*>(p), static_cast<size_t>(n));
  *found = true;
  return Status::OK();
}

void SqliteDocCache::done() {
  if (!holding_) return;
  holding_ = false;
  sqlite3_reset(stmts_->get);
  sqlite3_clear_bindings(stmts_->get);  // the id points into the caller's bytes
}

Status SqliteDocCache::put(BytesView doc, std::string_view json) {
  done();
  sqlite3_stmt* s = stmts_->put;
  ResetOnExit reset(s);
  int rc = bind_view(s, 1, doc, false);
  if (rc == SQLITE_OK) rc = bind_view(s, 2, json, true);
  if (rc == SQLITE_OK) rc = sqlite3_step(s);
  return rc == SQLITE_DONE ? Status::OK() : sqlite_error(db_, rc, "writing " + table_);
}

Status SqliteDocCache::erase(BytesView doc) {
  done();
  sqlite3_stmt* s = stmts_->erase;
  ResetOnExit reset(s);
  int rc = bind_view(s, 1, doc, false);
  if (rc == SQLITE_OK) rc = sqlite3_step(s);
  return rc == SQLITE_DONE ? Status::OK() : sqlite_error(db_, rc, "writing " + table_);
}

}  // namespace tuplekv::ext
