// SqliteDocCache: the document cache of a tuplekv_docs table (see
// model::DocCache in core/model/docs.h) in a second shadow table,
//
//   CREATE TABLE "<schema>"."<name>_json"(id BLOB PRIMARY KEY, doc TEXT)
//
// A rowid table (its id index is SQLite's automatic one), not WITHOUT
// ROWID: in a WITHOUT ROWID table the text is part of the b-tree key, and a
// seek that compares against a row whose text spills onto overflow pages
// reads the whole row into memory to compare it, so every lookup copied
// several whole documents (measured: 100 KB documents took 8x the native
// text column). Here a lookup seeks the small id index, then the rowid,
// and reads the text once.
//
// `id` is the document's packed id element (the bytes that follow the
// subspace prefix in its leaf keys), `doc` the whole document's JSON text.
// The leaves in "<name>_kv" stay exactly the data-modeling guide's keys;
// this table only lets `SELECT doc ... WHERE id = ?` and full scans read a
// document as one row instead of one row per leaf. Writes run in the
// caller's transaction, like the leaves' (SQLite makes both atomic with the
// statement that caused them), so the two never disagree after a rollback.
//
// Statements are prepared once (SQLITE_PREPARE_PERSISTENT | _NO_VTAB, as
// sqlite_store.cc does):
//   contains  SELECT 1 FROM T WHERE id=?1
//   get       SELECT doc FROM T WHERE id=?1   (stays on its row until done():
//             the text is handed out as a view of the result, not copied)
//   put       INSERT INTO T(id,doc) VALUES(?1,?2)
//               ON CONFLICT(id) DO UPDATE SET doc=excluded.doc
//   erase     DELETE FROM T WHERE id=?1
// A `doc` that is not TEXT (only writing the shadow table by hand can make
// one) is kCorruption naming the table and the id; a missing row is no
// error (the caller reads the leaves instead).
#ifndef TUPLEKV_EXT_DOCS_CACHE_H_
#define TUPLEKV_EXT_DOCS_CACHE_H_

#include <memory>
#include <string>

#include "core/model/docs.h"
#include "core/status.h"
#include "ext/sqlite_api.h"

namespace tuplekv::ext {

class SqliteDocCache final : public model::DocCache {
 public:
  // The suffix of the shadow table ("<name>_json"), for xShadowName.
  static constexpr const char* kShadowSuffix = "json";

  // xCreate, xDestroy (IF EXISTS), xRename.
  static Status create_table(sqlite3* db, const std::string& schema, const std::string& name);
  static Status drop_table(sqlite3* db, const std::string& schema, const std::string& name);
  static Status rename_table(sqlite3* db, const std::string& schema, const std::string& old_name,
                             const std::string& new_name);
  // Whether the shadow table exists (a table created without the cache
  // has none).
  static Status table_exists(sqlite3* db, const std::string& schema, const std::string& name,
                             bool* exists);

  // Prepares the statements over an existing shadow table.
  static Result<std::unique_ptr<SqliteDocCache>> open(sqlite3* db, const std::string& schema,
                                                      const std::string& name);
  ~SqliteDocCache() override;
  SqliteDocCache(const SqliteDocCache&) = delete;
  SqliteDocCache& operator=(const SqliteDocCache&) = delete;

  // After xRename: statements against the new name; unchanged on failure.
  Status renamed(const std::string& new_name);

  Status contains(BytesView doc, bool* found) override;
  Status get(BytesView doc, std::string_view* json, bool* found) override;
  void done() override;
  Status put(BytesView doc, std::string_view json) override;
  Status erase(BytesView doc) override;

 private:
  struct Statements;
  SqliteDocCache(sqlite3* db, std::string schema);
  Status prepare_all(const std::string& name, std::unique_ptr<Statements>* out) const;

  sqlite3* db_;
  std::string schema_;
  std::string table_;  // quoted "schema"."name_json", for messages
  std::unique_ptr<Statements> stmts_;
  bool holding_ = false;  // `get` may be on a row or hold bindings
};

}  // namespace tuplekv::ext

#endif  // TUPLEKV_EXT_DOCS_CACHE_H_
