// tuplekv_check(name [, 'rebuild']): index consistency of a tuplekv_table.
//
//   SELECT tuplekv_check('users');             -- 'ok', or the first problem:
//     users: index region_idx has no entry for row ('user', 7)
//     users: index region_idx entry ('region_idx', 'eu', 9) has no row
//     users: unique index email_idx holds the same values twice, at (...)
//     users: row ('user', 7): table: a row value with the wrong number of columns
//   SELECT tuplekv_check('users', 'rebuild');  -- rewrites every index from
//                                              -- the rows; returns the number
//                                              -- of entries added or removed
//
// `name` is `table` or `schema.table`. The check reads every row and every
// index entry (it is meant for tests and after suspected damage, e.g. bytes
// written straight into the shadow table). A rebuild writes through the
// table's store, inside the current transaction when there is one. Both are
// SQLITE_DIRECTONLY: not usable from triggers or views.
//
// Both run inside a savepoint. The statement that calls them usually names
// no table, so it holds no transaction, and each statement the check or
// rebuild runs would otherwise be a transaction of its own: another
// connection's commit could fall between the scan of the rows and that of
// an index (a false report), and an interrupted rebuild would leave the
// entries it wrote so far committed. When a statement that writes is
// running, SQLite opens no savepoint; that statement's own transaction
// then spans the call. A check inside an open transaction takes none
// either: the transaction already holds the reads together.
//
// Tables register themselves on this connection when SQLite connects them;
// the function connects a table that was not used yet by preparing a query
// on it.
#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

#include "core/tuple.h"
#include "ext/errors.h"
#include "ext/table_names.h"
#include "ext/table_vtab.h"
#include "ext/values.h"

namespace tuplekv::ext::table {

namespace {

// Open tables of every connection; each belongs to one connection (db).
std::mutex g_mutex;
std::vector<TableVtab*>& tables() {
  static std::vector<TableVtab*>* v = new std::vector<TableVtab*>();
  return *v;
}

TableVtab* find_table(sqlite3* db, const std::string& schema, const std::string& name) {
  std::lock_guard<std::mutex> lock(g_mutex);
  for (TableVtab* t : tables()) {
    if (t->db == db && sqlite3_stricmp(t->name.c_str(), name.c_str()) == 0 &&
        sqlite3_stricmp(t->schema.c_str(), schema.c_str()) == 0) {
      return t;
    }
  }
  return nullptr;
}

// SAVEPOINT on construction, when `wanted` and SQLite allows one; release()
// ends it and destruction without release() undoes it. The statements that
// end it are prepared before it opens, so that ending it allocates nothing
// that could fail and leave the call's writes half undone. Should the
// rollback fail all the same, a transaction the savepoint began is rolled
// back whole.
class CallSavepoint {
 public:
  CallSavepoint(sqlite3* db, bool wanted)
      : db_(db), began_transaction_(sqlite3_get_autocommit(db) != 0) {
    if (!wanted) return;
    if (prepare("RELEASE tuplekv_check", &release_) &&
        prepare("ROLLBACK TO tuplekv_check", &rollback_to_) && prepare("ROLLBACK", &rollback_)) {
      open_ = sqlite3_exec(db, "SAVEPOINT tuplekv_check", nullptr, nullptr, nullptr) == SQLITE_OK;
    }
  }
  ~CallSavepoint() {
    if (open_) {
      if (run(rollback_to_) == SQLITE_OK || !began_transaction_) {
        run(release_);
      } else {
        run(rollback_);
      }
    }
    sqlite3_finalize(release_);
    sqlite3_finalize(rollback_to_);
    sqlite3_finalize(rollback_);
  }
  CallSavepoint(const CallSavepoint&) = delete;
  CallSavepoint& operator=(const CallSavepoint&) = delete;

  // Commits what the call wrote when the savepoint began the transaction;
  // on failure (another connection's lock) leaves it to the destructor.
  Status release() {
    if (!open_) return Status::OK();
    const int rc = run(release_);
    if (rc != SQLITE_OK) return sqlite_error(db_, rc, "committing");
    open_ = false;
    return Status::OK();
  }

 private:
  bool prepare(const char* sql, sqlite3_stmt** out) {
    return sqlite3_prepare_v2(db_, sql, -1, out, nullptr) == SQLITE_OK;
  }
  int run(sqlite3_stmt* stmt) {
    const int rc = sqlite3_step(stmt);
    sqlite3_reset(stmt);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
  }

  sqlite3* db_;
  const bool began_transaction_;
  bool open_ = false;
  sqlite3_stmt* release_ = nullptr;
  sqlite3_stmt* rollback_to_ = nullptr;
  sqlite3_stmt* rollback_ = nullptr;
};

// A table name as a message shows it: as written when it is plain text,
// escaped (and quoted) when it holds bytes that are not UTF-8 or controls.
std::string message_text(const std::string& s) {
  const std::string q = quote_for_message(s, '\'', 200);
  return q.size() == s.size() + 2 && q.compare(1, s.size(), s) == 0 ? s : q;
}

void check_function(sqlite3_context* ctx, int argc, sqlite3_value** argv) noexcept {
  guard_function(ctx, [&] {
    const char* fn = "tuplekv_check";
    const unsigned char* z = sqlite3_value_text(argv[0]);
    if (sqlite3_value_type(argv[0]) != SQLITE_TEXT || z == nullptr) {
      set_result_error(ctx, Status::InvalidArgument(std::string(fn) + ": the table name must be TEXT"));
      return;
    }
    bool rebuild = false;
    if (argc > 1) {
      const unsigned char* m = sqlite3_value_text(argv[1]);
      if (m == nullptr || sqlite3_stricmp(reinterpret_cast<const char*>(m), "rebuild") != 0) {
        set_result_error(ctx, Status::InvalidArgument(std::string(fn) +
                                                      ": the second argument must be 'rebuild'"));
        return;
      }
      rebuild = true;
    }
    const std::string qualified(reinterpret_cast<const char*>(z));
    sqlite3* db = sqlite3_context_db_handle(ctx);
    // The table a statement naming it would reach, connected or not.
    TableName table;
    bool found = false;
    const Status resolved = resolve_table_name(db, qualified, &table, &found);
    if (!resolved.ok()) {
      set_result_error(ctx, resolved.with_context(fn));
      return;
    }
    if (!found) {
      set_result_error(ctx, Status::InvalidArgument(std::string(fn) + ": no such table: " +
                                                    message_text(qualified)));
      return;
    }
    TableVtab* t = find_table(db, table.schema, table.name);
    if (t == nullptr) {
      // Not connected yet on this connection: a prepared query connects it.
      const std::string sql = "SELECT 1 FROM " + quote_identifier(table.schema) + "." +
                              quote_identifier(table.name) + " WHERE 0";
      sqlite3_stmt* stmt = nullptr;
      const int rc = sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr);
      sqlite3_finalize(stmt);
      if (rc == SQLITE_OK) t = find_table(db, table.schema, table.name);
    }
    if (t == nullptr) {
      set_result_error(ctx, Status::InvalidArgument(std::string(fn) + ": " + message_text(qualified) +
                                                    " is not a tuplekv_table"));
      return;
    }
    // A check inside a transaction reads it as it stands, so it needs no
    // savepoint of its own; one would make the table write its held-back
    // batch, and change what sqlite3_changes() says (README, "Write
    // batching").
    CallSavepoint savepoint(db, rebuild || sqlite3_get_autocommit(db) != 0);
    if (rebuild) {
      uint64_t changed = 0;
      Status s = t->rows->rebuild(t->name, &changed);
      if (s.ok()) s = savepoint.release();
      if (!s.ok()) {
        set_result_error(ctx, s.with_context(fn));
        return;
      }
      t->stats->writes += changed;
      sqlite3_result_int64(ctx, static_cast<sqlite3_int64>(changed));
      return;
    }
    std::string problem;
    Status s = t->rows->check(t->name, &problem);
    if (s.ok() || s.code() == StatusCode::kCorruption) {
      if (const Status r = savepoint.release(); !r.ok()) s = r;
    }
    if (s.code() == StatusCode::kCorruption) {
      // Bytes the store itself cannot read (a value that is not a BLOB) are
      // damage like any other: the first problem, not a failed check.
      problem = t->name + ": " + std::string(s.message());
    } else if (!s.ok()) {
      set_result_error(ctx, s.with_context(fn));
      return;
    }
    result_text(ctx, problem.empty() ? std::string("ok") : problem);
  });
}

}  // namespace

void remember_table(TableVtab* t) {
  std::lock_guard<std::mutex> lock(g_mutex);
  tables().push_back(t);
}

void forget_table(TableVtab* t) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto& v = tables();
  v.erase(std::remove(v.begin(), v.end(), t), v.end());
}

int register_check_function(sqlite3* db, char** err) {
  for (int n : {1, 2}) {
    const int rc = sqlite3_create_function_v2(db, "tuplekv_check", n, SQLITE_UTF8 | SQLITE_DIRECTONLY,
                                              nullptr, check_function, nullptr, nullptr, nullptr);
    if (rc != SQLITE_OK) {
      if (err != nullptr) *err = sqlite3_mprintf("tuplekv: cannot register function tuplekv_check");
      return rc;
    }
  }
  return SQLITE_OK;
}

}  // namespace tuplekv::ext::table
