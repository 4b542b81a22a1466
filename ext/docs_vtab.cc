// tuplekv_docs: JSON documents stored as path -> leaf keys, readable and
// writable one subtree at a time (tuplekv_leaves, in leaves_vtab.cc, is a
// read-only view of the same keys, one row per leaf).
//
// USAGE
//   CREATE VIRTUAL TABLE docs USING tuplekv_docs;                  -- subspace 'docs'
//   CREATE VIRTUAL TABLE hier USING tuplekv_docs(mode=merge, subspace=hier);
//   CREATE VIRTUAL TABLE docs_leaves USING tuplekv_leaves(docs);
//
//   INSERT INTO docs(doc) VALUES ('{"name":"Ada","langs":["en","fr"],"region":"EU"}');  -- id 1
//   SELECT doc FROM docs WHERE id = 1 AND path = '$.langs';          -- ["en","fr"]
//   UPDATE docs SET doc = '"de"' WHERE id = 1 AND path = '$.langs[#]';
//   DELETE FROM docs WHERE id = 1 AND path = '$.langs[0]';
//   SELECT id FROM docs_leaves WHERE path = '$.region' AND value = 'EU';
//
// KEY LAYOUT (DESIGN.md §4; core/model/docs.h), S = pack((subspace,)):
//   documents   pack((S, id) + path) -> pack((leaf,)); {} / [] as path + (-2,) / (-1,)
//   mode=merge  pack((S,) + path + (leaf,)) -> ''  (the guide's nested keyspace)
// Object members are string elements, array positions integers from 0.
//
// DOCUMENT CACHE (cache=1, the default; documents mode only). A document is
// hundreds to thousands of leaves, and reading each costs a row of the
// shadow table, so reassembling a 10 KB document took ~30x the time of
// reading the same text from a native table's column. So the table also
// keeps every document's whole JSON text, outside the leaf keyspace:
//   store=sqlite  a second shadow table "<name>_json"(id BLOB PRIMARY KEY,
//                 doc TEXT), a rowid table, id = the packed id element
//                 (ext/docs_cache.h says why); "<name>_kv" holds exactly the
//                 keys above
//   store=memory  keys 0xFF 'json' + id in the table's memory store, which no
//                 tuple key starts with, so the entries share the leaves'
//                 undo log and follow BEGIN/ROLLBACK/savepoints exactly
// The leaves are the truth; an entry is always the text reassembling them
// gives (core/model/docs.h, DocCache): INSERT and whole-document UPDATE
// store the reassembly of the leaves they write; subtree UPDATE and DELETE
// rebuild the entry from the document's leaves in the same statement (a
// subtree write then costs one read of its document: see Docs::
// refresh_cache). All in the caller's transaction, so a failing statement
// leaves both as they were. `SELECT doc ... WHERE id = ?` and full scans
// without a path read the entry; reads at a path and tuplekv_leaves read
// the leaves. A missing entry (a row deleted from "<name>_json" by hand)
// is not an error: that document is reassembled from its leaves. An entry
// whose doc is not TEXT is an error (SQLITE_CORRUPT_VTAB naming the table
// and id). A table whose "<name>_json" does not exist works without the
// cache. cache=0 keeps only the leaves.
//
// OPTIONS
//   subspace=NAME, store=sqlite|memory   as every keyspace table (keyspace_vtab.h)
//   mode=documents|merge   documents (default): one document per id.
//                          merge: one tree; each INSERT merges its JSON
//                          object into it (objects member by member,
//                          anything else replaces what is at its path)
//   fdb_limits=0|1         1: keys over 10,000 bytes, stored leaves over
//                          100,000 bytes and documents over 1,000,000
//                          bytes of JSON are refused (FoundationDB's and
//                          the CouchDB RFC's limits)
//   cache=0|1              1 (default): keep the document cache above;
//                          0: only the leaves. mode=merge has no cache.
//
// COLUMNS
//   id    the document id, any SQL value but NULL (mode=merge: always NULL).
//         INSERT without an id (or with NULL) takes one more than the
//         largest integer id (1 in an empty table). 2 and 2.0 are one id,
//         as in an SQLite ANY column.
//   doc   the JSON text of the document, or of the subtree at `path`, or
//         NULL when the document has nothing at `path`. Members come back
//         in key order (sorted by name); JSON gives member order no meaning.
//   path  HIDDEN: a JSON path in SQLite's syntax ($, $.a.b, $.a[2], $."x.y",
//         $.a[#-1]); `path = ?` narrows reads and writes to that subtree.
//         Reads as the path of the query ('$' without one).
//   raw   HIDDEN: the stored key prefix of the row's subtree (the PRIMARY
//         KEY SQLite hands back to UPDATE and DELETE).
//
// PLANS. idxNum bit 0: argv holds `id = ?` (one prefix scan per encoding
// SQLite calls equal, stopping at the first found); bit 1: argv holds
// `path = ?` (the scan is narrowed to the subtree). Without an id every
// document is visited in key order of ids, jumping over the documents'
// keys when only a subtree is read. idxStr is `id`, `id path`, `path` or
// empty.
//
// WRITES, all inside the caller's transaction:
//   INSERT (id, doc)              a new document; an existing id follows the
//                                 conflict clause ("UNIQUE constraint failed:
//                                 docs.id", OR IGNORE, OR REPLACE)
//   UPDATE SET doc = ?            replaces the document: one range clear + leaves
//   UPDATE ... AND path = ?       json_set at that path: replaces the subtree,
//                                 creating missing intermediate objects
//   UPDATE SET id = ?             moves the document to another id
//   DELETE                        removes the document
//   DELETE ... AND path = ?       json_remove at that path (later array
//                                 elements move down)
// Bad input is an error and writes nothing: invalid JSON, a path that does
// not parse, a path through a scalar or an array where an object is needed
// (json_set would silently do nothing there), limits.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/docs.h"
#include "core/model/sql_any.h"
#include "core/move_prefix.h"
#include "core/subspace.h"
#include "core/tuple.h"
#include "ext/batch_rows.h"
#include "ext/created_in_transaction.h"
#include "ext/docs_cache.h"
#include "ext/docs_shared.h"
#include "ext/errors.h"
#include "ext/insert_rowid.h"
#include "ext/memory_registry.h"
#include "ext/registry.h"
#include "ext/sqlite_api.h"
#include "ext/sqlite_store.h"
#include "ext/table_storage.h"
#include "ext/values.h"

namespace tuplekv::ext {
namespace docs {
namespace {

using model::Docs;
using model::DocsMode;
using model::JsonPath;

constexpr size_t kFdbMaxKey = 10000;
constexpr size_t kFdbMaxValue = 100000;
constexpr size_t kFdbMaxDocument = 1000000;
constexpr int kIdxId = 1;
constexpr int kIdxPath = 2;
// A raw key path element no array position can equal: a row whose [#-n]
// did not resolve (nothing is stored there, DELETE removes nothing).
constexpr int64_t kUnresolved = -3;
// store=memory: where the document cache's entries live in the table's
// memory store (0xFF starts no tuple key; FoundationDB's system keys).
constexpr std::string_view kMemoryCachePrefix = "\xff" "json";

// ---------------------------------------------------------------------------
// tuplekv_docs: the table

struct DocsCursor;

struct DocsTable : sqlite3_vtab {
  DocsTable() : sqlite3_vtab{} {}

  sqlite3* db = nullptr;
  std::shared_ptr<ConnectionRegistry> registry;
  std::string schema;
  std::string name;
  DocsOptions options;
  Bytes prefix;
  OpenedStore opened;
  std::shared_ptr<ScanStats> stats;
  std::unique_ptr<Docs> docs;
  std::unique_ptr<model::DocCache> cache;  // null without the document cache
  SqliteDocCache* sqlite_cache = nullptr;  // `cache` when it is "<name>_json"
  model::JsonExploder exploder;
  model::JsonLeaves leaves;
  std::vector<Bytes> variants;
  Bytes id_buf, old_doc, new_doc, old_path, found;
  size_t open_cursors = 0;  // held open by SQLite (docs_open .. docs_close)

  OrderedStore* store() const { return opened.store.get(); }
  int fail(const Status& s) { return set_vtab_error(this, s); }
  Status err(const Status& s) const {
    return s.code() == StatusCode::kCorruption ? with_store_context(s, kDocsModule, name)
                                               : s.with_context(kDocsModule);
  }

  Status open(sqlite3* d, const std::shared_ptr<ConnectionRegistry>& reg, int argc,
              const char* const* argv, bool create) {
    db = d;
    registry = reg;
    schema = argv[1];
    name = argv[2];
    TUPLEKV_RETURN_IF_ERROR(parse_docs_options(name, argc - 3, argv + 3, &options));
    TUPLEKV_RETURN_IF_ERROR(subspace_prefix(kDocsModule, options.keyspace.subspace, &prefix));
    const int rc = sqlite3_declare_vtab(
        db, "CREATE TABLE x(id, doc, path HIDDEN, raw HIDDEN, PRIMARY KEY(raw)) WITHOUT ROWID");
    if (rc != SQLITE_OK) {
      return Status::Native(StatusCode::kInternal, rc,
                            std::string(kDocsModule) + ": cannot declare the table");
    }
    sqlite3_vtab_config(db, SQLITE_VTAB_CONSTRAINT_SUPPORT, 1);
    sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
    TUPLEKV_RETURN_IF_ERROR(open_store(db, registry.get(), schema, name,
                                       ConnectionRegistry::declaration_of(argc, argv),
                                       options.keyspace.memory, create, &prefix, &opened));
    if (create) registry->drop_stats(schema, name);
    stats = registry->stats(schema, name);
    docs = std::make_unique<Docs>(store(), prefix, options.mode);
    if (options.fdb_limits) docs->set_limits(model::DocsLimits{kFdbMaxKey, kFdbMaxValue});
    docs->set_counters(&stats->rows, &stats->ranges);
    return open_cache(create);
  }

  // The document cache (file comment), when the table keeps one.
  Status open_cache(bool create) {
    if (!options.cache || options.mode != DocsMode::kDocuments) return Status::OK();
    if (options.keyspace.memory) {
      cache = std::make_unique<model::StoreDocCache>(store(), Bytes(kMemoryCachePrefix));
    } else {
      bool exists = create;
      if (create) {
        TUPLEKV_RETURN_IF_ERROR(SqliteDocCache::create_table(db, schema, name));
      } else {
        TUPLEKV_RETURN_IF_ERROR(SqliteDocCache::table_exists(db, schema, name, &exists));
      }
      // A table made before the cache existed has only its leaves; it stays
      // correct without the cache.
      if (!exists) return Status::OK();
      TUPLEKV_ASSIGN_OR_RETURN(std::unique_ptr<SqliteDocCache> c,
                               SqliteDocCache::open(db, schema, name));
      sqlite_cache = c.get();
      cache = std::move(c);
    }
    docs->set_cache(cache.get());
    return Status::OK();
  }

  Status destroy() {
    if (options.keyspace.memory) {
      TUPLEKV_RETURN_IF_ERROR(registry->drop_memory(schema, name));
    } else {
      TUPLEKV_RETURN_IF_ERROR(SqliteStore::drop_table(db, schema, name));
      // Whatever the options say: a cache table left behind would be an
      // orphan shadow table.
      TUPLEKV_RETURN_IF_ERROR(SqliteDocCache::drop_table(db, schema, name));
      docs->set_cache(nullptr);
      cache.reset();
      sqlite_cache = nullptr;
      opened = OpenedStore();
    }
    registry->drop_stats(schema, name);
    return Status::OK();
  }

  Status rename(const std::string& to) {
    // Moving keys runs statements; the ALTER must leave changes() as it was.
    const int64_t changes = sqlite3_changes64(db);
    const bool moves_keys = !options.keyspace.subspace_given && !options.keyspace.memory;
    if (!options.keyspace.subspace_given) {
      TUPLEKV_RETURN_IF_ERROR(refuse_name_not_utf8(kDocsModule, to));
    }
    // A tuplekv_leaves scan over this table reads through the same store.
    if (moves_keys) {
      TUPLEKV_RETURN_IF_ERROR(refuse_key_move_while_reading(
          kDocsModule, name, open_cursors + opened.sqlite_store->open_cursors()));
    }
    if (options.keyspace.memory) {
      TUPLEKV_RETURN_IF_ERROR(registry->rename_memory(schema, name, to));
    } else {
      TUPLEKV_RETURN_IF_ERROR(SqliteStore::rename_table(db, schema, name, to));
      TUPLEKV_RETURN_IF_ERROR(opened.sqlite_store->renamed(to));
      registry->rename_sqlite_store(schema, name, to);
      if (sqlite_cache != nullptr) {
        // Entries are keyed by id alone: the table moves, no entry changes.
        TUPLEKV_RETURN_IF_ERROR(SqliteDocCache::rename_table(db, schema, name, to));
        TUPLEKV_RETURN_IF_ERROR(sqlite_cache->renamed(to));
      }
    }
    registry->rename_stats(schema, name, to);
    name = to;
    // As tuplekv_kv: without subspace= the keys live under the table name.
    if (moves_keys) {
      Bytes to_prefix;
      TUPLEKV_RETURN_IF_ERROR(subspace_prefix(kDocsModule, to, &to_prefix));
      const Status moved = move_prefix(store(), prefix, to_prefix, options.fdb_limits ? kFdbMaxKey : 0);
      if (moved.code() == StatusCode::kTooBig) {
        return Status::TooBig(std::string(kDocsModule) + ": cannot rename to " + name + ": " +
                              moved.message() + "; fdb_limits=1 allows 10000");
      }
      TUPLEKV_RETURN_IF_ERROR(moved);
      prefix = to_prefix;
      options.keyspace.subspace = to;
      docs->set_prefix(prefix);
    }
    return set_changes(db, changes);
  }

  // The JSON of `v` exploded into `leaves`.
  Status explode_doc(sqlite3_value* v) {
    const int type = sqlite3_value_type(v);
    if (type == SQLITE_NULL) {
      return Status::Constraint(ConstraintKind::kNotNull, "NOT NULL constraint failed: " + name + ".doc");
    }
    if (type == SQLITE_BLOB) {
      return Status::InvalidArgument(std::string(kDocsModule) + ": doc must be JSON text, not a BLOB");
    }
    const std::string_view text = text_view(v);
    if (text.data() == nullptr) return Status::NoMemory();
    if (options.fdb_limits && text.size() > kFdbMaxDocument) {
      return Status::TooBig(std::string(kDocsModule) + ": a document of " +
                            std::to_string(text.size()) + " bytes; fdb_limits=1 allows " +
                            std::to_string(kFdbMaxDocument));
    }
    const Status s = exploder.explode(text, &leaves);
    return s.ok() ? s : err(s);
  }

  // Which stored id SQLite would call equal to `id`, if any.
  Status find_id(BytesView id, bool* exists, Bytes* which) {
    TUPLEKV_RETURN_IF_ERROR(model::sql_equal_variants_packed(id, &variants));
    *exists = false;
    for (const Bytes& v : variants) {
      TUPLEKV_RETURN_IF_ERROR(docs->exists(v, exists));
      if (*exists) {
        which->assign(v);
        return Status::OK();
      }
    }
    return Status::OK();
  }

  // A duplicate id under the statement's conflict clause: *rc set and
  // false to stop, true to go on (REPLACE removed the old document).
  bool on_duplicate(int on_conflict, BytesView existing, int* rc) {
    if (on_conflict == SQLITE_IGNORE) {
      *rc = SQLITE_CONSTRAINT;  // SQLite skips the row
      return false;
    }
    if (on_conflict != SQLITE_REPLACE) {
      *rc = fail(Status::Constraint(ConstraintKind::kPrimaryKey,
                                    "UNIQUE constraint failed: " + name + ".id"));
      return false;
    }
    const Status s = docs->erase(existing);
    if (!s.ok()) {
      *rc = fail(err(s));
      return false;
    }
    ++stats->writes;
    return true;
  }

  // Old `raw` -> document and path.
  Status split_raw(sqlite3_value* v, bool* unresolved) {
    if (sqlite3_value_type(v) != SQLITE_BLOB) {
      return Status::InvalidArgument(std::string(kDocsModule) + ": raw must be a BLOB");
    }
    const BytesView raw = blob_view(v);
    if (raw.size() < prefix.size() || raw.substr(0, prefix.size()) != BytesView(prefix)) {
      return Status::InvalidArgument(std::string(kDocsModule) + ": raw is not a key of " + name);
    }
    BytesView doc, path;
    TUPLEKV_RETURN_IF_ERROR(split_doc(options.mode, raw.substr(prefix.size()), &doc, &path));
    old_doc.assign(doc);
    old_path.assign(path);
    // Resolved paths hold member names and positions >= 0; kUnresolved
    // can only be the last element.
    *unresolved = false;
    TupleReader r(old_path);
    while (r.next()) {
      *unresolved = r.type() == ElementType::kInt && r.int64_value() == kUnresolved;
    }
    return r.status().ok() ? Status::OK() : r.status().with_context(std::string(kDocsModule) + ": raw");
  }

  int insert(sqlite3_value** cols) {
    const int on_conflict = sqlite3_vtab_on_conflict(db);
    if (sqlite3_value_type(cols[3]) != SQLITE_NULL) {
      return fail(Status::InvalidArgument(std::string(kDocsModule) + ": raw is the stored key of " +
                                          name + ", it cannot be written"));
    }
    if (sqlite3_value_type(cols[2]) != SQLITE_NULL && text_view(cols[2]) != "$") {
      return fail(Status::InvalidArgument(
          std::string(kDocsModule) + ": INSERT takes whole documents; to write at a path use "
          "UPDATE " + name + " SET doc = ... WHERE id = ... AND path = ..."));
    }
    Status s = explode_doc(cols[1]);
    if (!s.ok()) return fail(s);
    if (options.mode == DocsMode::kMerge) {
      if (sqlite3_value_type(cols[0]) != SQLITE_NULL) {
        return fail(Status::InvalidArgument(std::string(kDocsModule) + ": " + name +
                                            " (mode=merge) is one tree; its id is always NULL"));
      }
      s = docs->merge(leaves);
      if (!s.ok()) return fail(err(s));
      stats->writes += leaves.size();
      return SQLITE_OK;
    }
    bool known_absent = false;
    if (sqlite3_value_type(cols[0]) == SQLITE_NULL) {
      int64_t next = 0;
      s = docs->next_id(&next);
      if (!s.ok()) {
        return fail(s.code() == StatusCode::kConstraint
                        ? Status::Constraint(ConstraintKind::kPrimaryKey,
                                             std::string(kDocsModule) + ": " + s.message())
                        : err(s));
      }
      id_buf.clear();
      (void)pack_element(TupleValue::int64(next), &id_buf);
      known_absent = true;
    } else {
      s = encode_id(cols[0], &id_buf);
      if (!s.ok()) {
        return fail(Status::InvalidArgument(std::string(kDocsModule) + ": id of " + name + ": " +
                                            std::string(core_detail(s))));
      }
      bool exists = false;
      s = find_id(id_buf, &exists, &found);
      if (!s.ok()) return fail(err(s));
      if (exists) {
        int rc = SQLITE_OK;
        if (!on_duplicate(on_conflict, found, &rc)) return rc;
      }
      known_absent = true;
    }
    s = docs->put(id_buf, leaves, known_absent);
    if (!s.ok()) return fail(err(s));
    stats->writes += leaves.size();
    return SQLITE_OK;
  }

  int update(int argc, sqlite3_value** argv) {
    if (argc == 1) {  // DELETE
      bool unresolved = false;
      Status s = split_raw(argv[0], &unresolved);
      if (!s.ok()) return fail(s);
      if (unresolved) return SQLITE_OK;
      bool removed = false;
      s = docs->remove(old_doc, old_path, &removed);
      if (!s.ok()) return fail(err(s));
      if (removed) ++stats->writes;
      return SQLITE_OK;
    }
    if (argc != 6) {
      return fail(Status::Internal("tuplekv internal error: xUpdate with " +
                                   std::to_string(argc) + " arguments"));
    }
    sqlite3_value** cols = argv + 2;
    if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return insert(cols);

    // UPDATE of the row whose subtree key was `raw`.
    bool unresolved = false;
    Status s = split_raw(argv[0], &unresolved);
    if (!s.ok()) return fail(s);
    if (sqlite3_value_type(argv[1]) != SQLITE_BLOB || blob_view(argv[1]) != blob_view(argv[0])) {
      return fail(Status::InvalidArgument(std::string(kDocsModule) + ": raw is the stored key of " +
                                          name + ", it cannot be written"));
    }
    if (!sqlite3_value_nochange(cols[2])) {
      // The path column as read is the query's path: changing it is an error.
      JsonPath p;
      Bytes packed;
      const std::string_view text =
          sqlite3_value_type(cols[2]) == SQLITE_NULL ? std::string_view("$") : text_view(cols[2]);
      if (!model::parse_json_path(text, &p).ok() ||
          (p.concrete() && (!model::pack_path(p, &packed).ok() || packed != old_path))) {
        return fail(Status::InvalidArgument(
            std::string(kDocsModule) + ": path cannot be set; it picks the subtree in WHERE"));
      }
    }
    // The document may be gone: an earlier row of this statement removed it.
    bool exists = false;
    s = docs->exists(old_doc, &exists);
    if (!s.ok()) return fail(err(s));
    if (!exists) return SQLITE_OK;
    const int on_conflict = sqlite3_vtab_on_conflict(db);
    if (!sqlite3_value_nochange(cols[0])) {
      if (options.mode == DocsMode::kMerge) {
        if (sqlite3_value_type(cols[0]) != SQLITE_NULL) {
          return fail(Status::InvalidArgument(std::string(kDocsModule) + ": " + name +
                                              " (mode=merge) is one tree; its id is always NULL"));
        }
      } else {
        if (sqlite3_value_type(cols[0]) == SQLITE_NULL) {
          return fail(Status::Constraint(ConstraintKind::kNotNull,
                                         "NOT NULL constraint failed: " + name + ".id"));
        }
        s = encode_id(cols[0], &new_doc);
        if (!s.ok()) {
          return fail(Status::InvalidArgument(std::string(kDocsModule) + ": id of " + name + ": " +
                                              std::string(core_detail(s))));
        }
        if (new_doc != old_doc) {
          if (!old_path.empty() || unresolved) {
            return fail(Status::InvalidArgument(
                std::string(kDocsModule) + ": the id of a subtree cannot change; update "
                "the whole document (without path)"));
          }
          bool taken = false;
          s = find_id(new_doc, &taken, &found);
          if (!s.ok()) return fail(err(s));
          if (taken && found != old_doc) {
            int rc = SQLITE_OK;
            if (!on_duplicate(on_conflict, found, &rc)) return rc;
          }
          s = docs->move(old_doc, new_doc);
          if (!s.ok()) return fail(err(s));
          ++stats->writes;
          old_doc = new_doc;
        }
      }
    }
    if (sqlite3_value_nochange(cols[1])) return SQLITE_OK;
    s = explode_doc(cols[1]);
    if (!s.ok()) return fail(s);
    if (unresolved) {
      return fail(Status::InvalidArgument(std::string(kDocsModule) +
                                          ": the path names no element of its array ([#-N] "
                                          "past the start, or not an array)"));
    }
    s = docs->set(old_doc, old_path, leaves);
    if (!s.ok()) return fail(err(s));
    stats->writes += leaves.size();
    return SQLITE_OK;
  }
};

// ---------------------------------------------------------------------------
// tuplekv_docs: the cursor

struct DocsCursor : sqlite3_vtab_cursor {
  DocsCursor() : sqlite3_vtab_cursor{} {}
  DocsTable* table() const { return static_cast<DocsTable*>(pVtab); }

  Status filter(int idx_num, int argc, sqlite3_value** argv) {
    DocsTable* t = table();
    ++t->stats->scans;
    eof_ = true;
    have_path_ = false;
    path_text_ = "$";
    path_given_ = false;
    ids_.clear();
    id_pos_ = 0;
    full_ = false;
    doc_.clear();
    int arg = 0;
    if ((idx_num & kIdxId) != 0) {
      if (arg >= argc) return Status::Internal("tuplekv internal error: missing id argument");
      sqlite3_value* v = argv[arg++];
      if (sqlite3_value_type(v) == SQLITE_NULL || t->options.mode == DocsMode::kMerge) {
        return Status::OK();  // id = NULL is never true; merge trees have no id
      }
      Bytes id;
      if (!encode_id(v, &id).ok()) return Status::OK();  // TEXT that is not UTF-8: never stored
      TUPLEKV_RETURN_IF_ERROR(model::sql_equal_variants_packed(id, &ids_));
    }
    if ((idx_num & kIdxPath) != 0) {
      if (arg >= argc) return Status::Internal("tuplekv internal error: missing path argument");
      sqlite3_value* v = argv[arg++];
      if (sqlite3_value_type(v) == SQLITE_NULL) return Status::OK();
      path_text_.assign(text_view(v));
      path_given_ = true;
      TUPLEKV_RETURN_IF_ERROR(model::parse_json_path(path_text_, &path_));
      have_path_ = !path_.steps.empty();
      concrete_.clear();
      if (path_.concrete()) TUPLEKV_RETURN_IF_ERROR(model::pack_path(path_, &concrete_));
    }
    if ((idx_num & kIdxId) == 0) {
      if (t->options.mode == DocsMode::kMerge) {
        ids_.emplace_back();  // the one tree
      } else {
        full_ = true;
        const KeyRange all{t->prefix, *strinc(t->prefix)};
        ScanOptions o;
        if (scan_ == nullptr) {
          ++t->stats->ranges;
          scan_version_ = t->store()->version();
          TUPLEKV_ASSIGN_OR_RETURN(scan_, t->store()->scan(all, o));
        } else {
          TUPLEKV_RETURN_IF_ERROR(rescan(all));
        }
      }
    }
    eof_ = false;
    return advance();
  }

  Status next() { return eof_ ? Status::OK() : advance(); }
  bool eof() const { return eof_; }

  int column(sqlite3_context* ctx, int i) {
    DocsTable* t = table();
    Status s;
    switch (i) {
      case 0:
        if (sqlite3_vtab_nochange(ctx)) return SQLITE_OK;
        if (t->options.mode == DocsMode::kMerge) {
          sqlite3_result_null(ctx);
        } else {
          s = result_id(ctx, doc_);
        }
        break;
      case 1: {
        if (sqlite3_vtab_nochange(ctx)) return SQLITE_OK;
        // Each read gives the document as the table is then: a function of
        // the same statement may have written it since the last read.
        if (doc_ready_ && doc_version_ != t->store()->version()) doc_ready_ = false;
        bool done = false;
        s = result_from_cache(ctx, &done);
        if (!s.ok() || done) break;
        s = ensure_doc();
        if (s.ok()) {
          if (doc_null_) {
            sqlite3_result_null(ctx);
          } else {
            result_text(ctx, json_);
            sqlite3_result_subtype(ctx, kJsonSubtype);
          }
        }
        break;
      }
      case 2:
        if (sqlite3_vtab_nochange(ctx)) return SQLITE_OK;
        if (!path_given_) {
          // Every path of a document is a row once `path = ?` asks for it
          // (reading '$' here once let an UPDATE inside an OR skip the subtree).
          s = parameter_not_scanned(t->name, "path", "<json path>");
          break;
        }
        result_text(ctx, path_text_);
        break;
      case 3:
        result_blob(ctx, raw_);
        break;
      default:
        s = Status::Internal("tuplekv internal error: column " + std::to_string(i));
    }
    if (!s.ok()) {
      const Status e = t->err(s);
      set_result_error(ctx, e);
      return sqlite_code(e);
    }
    return SQLITE_OK;
  }

 private:
  // A whole document from the cache, copied once: from the cache's view
  // into the result. *done false when this row is not one (a subtree, or
  // no entry: then the leaves are read).
  Status result_from_cache(sqlite3_context* ctx, bool* done) {
    *done = false;
    if (have_path_ || doc_ready_) return Status::OK();
    DocsTable* t = table();
    std::string_view text;
    bool hit = false;
    const Status s = t->docs->cached(doc_, &text, &hit);
    if (s.ok() && hit) {
      result_text(ctx, text);
      sqlite3_result_subtype(ctx, kJsonSubtype);
      *done = true;
      cache_served_ = true;
    }
    t->docs->cache_done();
    return s;
  }

  Status rescan(const KeyRange& r) {
    ++table()->stats->ranges;
    scan_version_ = table()->store()->version();
    return scan_->rescan(r);
  }

  // The keys of the current row's subtree.
  KeyRange row_range() const {
    return table()->options.mode == DocsMode::kDocuments ? KeyRange{raw_, tuple_prefix_end(raw_)} : range(raw_);
  }

  // sub_ on the first key of the current row's subtree; *found false when
  // it has none.
  Status seek_row(bool* found) {
    ++table()->stats->ranges;
    if (sub_ == nullptr) {
      TUPLEKV_ASSIGN_OR_RETURN(sub_, table()->store()->scan(row_range(), ScanOptions()));
    } else {
      TUPLEKV_RETURN_IF_ERROR(sub_->rescan(row_range()));
    }
    *found = sub_->valid();
    return sub_->status();
  }

  // Sets up the row of document `doc` (the subtree at the query's path);
  // *present false when the document does not exist.
  Status load(BytesView doc, bool* present) {
    DocsTable* t = table();
    doc_.assign(doc);
    doc_ready_ = false;
    doc_null_ = false;
    sub_ready_ = false;
    main_consumed_ = false;
    cached_row_ = false;
    cache_served_ = false;
    if (!have_path_ && !full_) {
      // The whole document by id: a cache entry says it exists without a
      // scan of its leaves; column() reads the text.
      bool hit = false;
      TUPLEKV_RETURN_IF_ERROR(t->docs->cache_contains(doc, &hit));
      if (hit) {
        t->docs->subtree_key(doc, {}, &raw_);
        cached_row_ = true;
        *present = true;
        return Status::OK();
      }
    }
    bool resolved = true;
    if (!have_path_) {
      path_.steps.clear();
      resolved_.clear();
    } else if (path_.concrete()) {
      resolved_ = concrete_;
    } else {
      TUPLEKV_RETURN_IF_ERROR(t->docs->resolve(doc, path_, &resolved_, &resolved));
    }
    t->docs->subtree_key(doc, resolved_, &raw_);
    row_version_ = t->store()->version();
    if (!resolved) {
      (void)pack_element(TupleValue::int64(kUnresolved), &raw_);
    } else if (!(full_ && !have_path_)) {
      TUPLEKV_RETURN_IF_ERROR(seek_row(&sub_ready_));
      if (sub_ready_) {
        *present = true;
        return Status::OK();
      }
    } else {
      *present = true;  // the full scan stands on the document's first key
      return Status::OK();
    }
    doc_null_ = true;
    if (!have_path_) {
      *present = false;
      return Status::OK();
    }
    return t->docs->exists(doc, present);
  }

  Status advance() {
    DocsTable* t = table();
    if (!full_) {
      while (id_pos_ < ids_.size()) {
        const Bytes id = ids_[id_pos_];
        // One encoding found means no other can exist: stop after it.
        bool present = false;
        TUPLEKV_RETURN_IF_ERROR(load(id, &present));
        id_pos_ = present ? ids_.size() : id_pos_ + 1;
        if (present) return Status::OK();
      }
      eof_ = true;
      return Status::OK();
    }
    // Full scan: skip what is left of the current document, then stand on
    // the next one's first key. Reading the document has stood the scan
    // there already, unless the store was written since: that key may be
    // gone, or another may come before it now.
    if (!doc_.empty() && (!main_consumed_ || scan_version_ != t->store()->version())) {
      Bytes end;
      t->docs->subtree_key(doc_, {}, &end);
      TUPLEKV_RETURN_IF_ERROR(rescan(KeyRange{tuple_prefix_end(end), *strinc(t->prefix)}));
    }
    if (!scan_->valid()) {
      TUPLEKV_RETURN_IF_ERROR(scan_->status());
      eof_ = true;
      doc_.clear();
      return Status::OK();
    }
    ++t->stats->rows;
    BytesView doc, rest;
    TUPLEKV_RETURN_IF_ERROR(
        split_doc(DocsMode::kDocuments, scan_->key().substr(t->prefix.size()), &doc, &rest));
    // Past the last document's keys, a key that starts with its id again
    // goes on with 0xFF, which begins no element: damage, not a document
    // (and reading it as one would stand the scan here for ever).
    if (!doc_.empty() && doc == BytesView(doc_)) return damaged_after(doc);
    bool present = false;
    const Bytes id(doc);
    TUPLEKV_RETURN_IF_ERROR(load(id, &present));
    return Status::OK();
  }

  Status ensure_doc() {
    if (doc_ready_) return Status::OK();
    DocsTable* t = table();
    doc_ready_ = true;
    doc_version_ = t->store()->version();
    json_.clear();
    if (cached_row_ || cache_served_) {
      // The entry went away since load() or since it gave this row's
      // document (a write in between, by a function of the same
      // statement): the document as it is now, from its leaves, whole or
      // NULL. A full scan's leaves after the write would give what was
      // left of it.
      bool found = false;
      TUPLEKV_RETURN_IF_ERROR(t->docs->read(doc_, {}, &json_, &found));
      doc_null_ = !found;
      return Status::OK();
    }
    if (row_version_ != doc_version_) {
      // A write since load() (by a function of the same statement): the
      // pair the row stands on may be gone, its other leaves changed, and
      // a subtree that was absent may be there now. The subtree as it is
      // now, or NULL.
      row_version_ = doc_version_;
      TUPLEKV_RETURN_IF_ERROR(seek_row(&sub_ready_));
      doc_null_ = !sub_ready_;
      return doc_null_ ? Status::OK() : t->docs->assemble(sub_.get(), raw_, &json_);
    }
    if (doc_null_) return Status::OK();
    if (full_ && !have_path_) {
      main_consumed_ = true;
      const Status s = t->docs->assemble(scan_.get(), raw_, &json_);
      scan_version_ = t->store()->version();
      return s;
    }
    if (!sub_ready_) return Status::Internal("tuplekv internal error: subtree not positioned");
    return t->docs->assemble(sub_.get(), raw_, &json_);
  }

  bool eof_ = true;
  bool full_ = false;
  bool have_path_ = false;
  std::string path_text_;
  bool path_given_ = false;  // a `path = ?` chose this scan
  JsonPath path_;
  Bytes concrete_;
  std::vector<Bytes> ids_;
  size_t id_pos_ = 0;
  std::unique_ptr<Cursor> scan_;  // full scans: every key of the table
  uint64_t scan_version_ = 0;     // the store's version() when scan_ last moved
  std::unique_ptr<Cursor> sub_;   // the subtree of the current row
  // The current row.
  Bytes doc_, resolved_, raw_;
  std::string json_;
  bool doc_ready_ = false, doc_null_ = false, sub_ready_ = false, main_consumed_ = false;
  bool cached_row_ = false;  // found by its cache entry; its leaves were not read
  bool cache_served_ = false;  // its document came from the cache
  uint64_t row_version_ = 0;   // the store's version() when load() positioned the row
  uint64_t doc_version_ = 0;   // and when ensure_doc() read json_
};

// ---------------------------------------------------------------------------
// sqlite3_module slots

int docs_init(sqlite3* db, void* aux, int argc, const char* const* argv, sqlite3_vtab** out,
              char** err, bool create) {
  return guard_create(err, [&] {
    const auto* data = static_cast<const ModuleData*>(aux);
    auto table = std::make_unique<DocsTable>();
    const Status s = table->open(db, data->registry, argc, argv, create);
    if (!s.ok()) return set_create_error(err, s);
    *out = table.release();
    return SQLITE_OK;
  });
}

// Defined with the other slots below; xCreate joins an open transaction
// through them (ext/created_in_transaction.h).
template <Status (OrderedStore::*Hook)()>
int docs_txn(sqlite3_vtab* vtab) noexcept;
int docs_disconnect(sqlite3_vtab* vtab) noexcept;

int docs_create(sqlite3* db, void* aux, int argc, const char* const* argv, sqlite3_vtab** out,
                char** err) noexcept {
  const int rc = docs_init(db, aux, argc, argv, out, err, true);
  if (rc != SQLITE_OK) return rc;
  return join_open_transaction(db, out, err, &docs_txn<&OrderedStore::begin>, &docs_disconnect);
}

int docs_connect(sqlite3* db, void* aux, int argc, const char* const* argv, sqlite3_vtab** out,
                 char** err) noexcept {
  return docs_init(db, aux, argc, argv, out, err, false);
}

int docs_best_index(sqlite3_vtab* vtab, sqlite3_index_info* info) noexcept {
  return guard_vtab(vtab, [&] {
    static const int kColumns[] = {0, 2};
    static const int kBits[] = {kIdxId, kIdxPath};
    static const char* const kNames[] = {"id", "path"};
    int idx_num = 0;
    return plan_equalities(info, kColumns, kBits, kNames, 2, kIdxId, kIdxPath, &idx_num);
  });
}

int docs_disconnect(sqlite3_vtab* vtab) noexcept {
  return guard_vtab(vtab, [&] {
    delete static_cast<DocsTable*>(vtab);
    return SQLITE_OK;
  });
}

int docs_destroy(sqlite3_vtab* vtab) noexcept {
  return guard_vtab(vtab, [&] {
    auto* t = static_cast<DocsTable*>(vtab);
    const Status s = t->destroy();
    // SQLite reads no message after xDestroy, and would free none: the
    // code alone, so that nothing is left to leak.
    if (!s.ok()) return sqlite_code(s);
    delete t;
    return SQLITE_OK;
  });
}

int docs_filter(sqlite3_vtab_cursor* cur, int idx_num, const char*, int argc,
                sqlite3_value** argv) noexcept {
  return guard_vtab(cur->pVtab, [&] {
    auto* c = static_cast<DocsCursor*>(cur);
    const Status s = c->filter(idx_num, argc, argv);
    return s.ok() ? SQLITE_OK : set_vtab_error(cur->pVtab, c->table()->err(s));
  });
}

int docs_next(sqlite3_vtab_cursor* cur) noexcept {
  return guard_vtab(cur->pVtab, [&] {
    auto* c = static_cast<DocsCursor*>(cur);
    const Status s = c->next();
    return s.ok() ? SQLITE_OK : set_vtab_error(cur->pVtab, c->table()->err(s));
  });
}

int docs_eof(sqlite3_vtab_cursor* cur) noexcept {
  return static_cast<DocsCursor*>(cur)->eof() ? 1 : 0;
}

int docs_column(sqlite3_vtab_cursor* cur, sqlite3_context* ctx, int i) noexcept {
  return guard_vtab(cur->pVtab, [&] { return static_cast<DocsCursor*>(cur)->column(ctx, i); });
}

int docs_update(sqlite3_vtab* vtab, int argc, sqlite3_value** argv, sqlite3_int64* rowid) noexcept {
  keep_last_insert_rowid(static_cast<DocsTable*>(vtab)->db, rowid);
  return guard_vtab(vtab, [&] { return static_cast<DocsTable*>(vtab)->update(argc, argv); });
}

// The SQLite store's hooks only matter for rollbacks; the memory store
// keeps an undo log. Forward all of them, as keyspace_vtab.cc does.
template <Status (OrderedStore::*Hook)()>
int docs_txn(sqlite3_vtab* vtab) noexcept {
  return guard_vtab(vtab, [&] {
    const Status s = (static_cast<DocsTable*>(vtab)->store()->*Hook)();
    return s.ok() ? SQLITE_OK : set_vtab_error(vtab, s);
  });
}

int docs_sync(sqlite3_vtab*) noexcept { return SQLITE_OK; }

// SQLite passes n = -1 to xRollbackTo for the statement that started the
// transaction; that is a rollback to the transaction's start.
int docs_savepoint(sqlite3_vtab* vtab, int n) noexcept {
  return guard_vtab(vtab, [&] {
    const Status s = static_cast<DocsTable*>(vtab)->store()->savepoint(n < 0 ? 0 : n);
    return s.ok() ? SQLITE_OK : set_vtab_error(vtab, s);
  });
}

int docs_release(sqlite3_vtab* vtab, int n) noexcept {
  return guard_vtab(vtab, [&] {
    const Status s = static_cast<DocsTable*>(vtab)->store()->release(n < 0 ? 0 : n);
    return s.ok() ? SQLITE_OK : set_vtab_error(vtab, s);
  });
}

int docs_rollback_to(sqlite3_vtab* vtab, int n) noexcept {
  return guard_vtab(vtab, [&] {
    OrderedStore* store = static_cast<DocsTable*>(vtab)->store();
    Status s;
    if (n >= 0) {
      s = store->rollback_to(n);
    } else {
      s = store->rollback();
      if (s.ok()) s = store->begin();
    }
    return s.ok() ? SQLITE_OK : set_vtab_error(vtab, s);
  });
}

int docs_open(sqlite3_vtab* vtab, sqlite3_vtab_cursor** out) noexcept {
  const int rc = open_cursor<DocsCursor>(vtab, out);
  if (rc == SQLITE_OK) ++static_cast<DocsTable*>(vtab)->open_cursors;
  return rc;
}

int docs_close(sqlite3_vtab_cursor* cur) noexcept {
  --static_cast<DocsTable*>(cur->pVtab)->open_cursors;
  return close_cursor<DocsCursor>(cur);
}

int docs_rename(sqlite3_vtab* vtab, const char* to) noexcept {
  return guard_vtab(vtab, [&] {
    const Status s = static_cast<DocsTable*>(vtab)->rename(to);
    return s.ok() ? SQLITE_OK : set_vtab_error(vtab, s);
  });
}

int docs_shadow_name(const char* suffix) noexcept {
  return suffix != nullptr && (sqlite3_stricmp(suffix, SqliteStore::kShadowSuffix) == 0 ||
                               sqlite3_stricmp(suffix, SqliteDocCache::kShadowSuffix) == 0);
}

const sqlite3_module kDocsModuleDef = {
    /* iVersion      */ 3,
    /* xCreate       */ docs_create,
    /* xConnect      */ docs_connect,
    /* xBestIndex    */ docs_best_index,
    /* xDisconnect   */ docs_disconnect,
    /* xDestroy      */ docs_destroy,
    /* xOpen         */ docs_open,
    /* xClose        */ docs_close,
    /* xFilter       */ docs_filter,
    /* xNext         */ docs_next,
    /* xEof          */ docs_eof,
    /* xColumn       */ docs_column,
    /* xRowid        */ no_rowid,
    /* xUpdate       */ docs_update,
    /* xBegin        */ docs_txn<&OrderedStore::begin>,
    /* xSync         */ docs_sync,
    /* xCommit       */ docs_txn<&OrderedStore::commit>,
    /* xRollback     */ docs_txn<&OrderedStore::rollback>,
    /* xFindFunction */ nullptr,
    /* xRename       */ docs_rename,
    /* xSavepoint    */ docs_savepoint,
    /* xRelease      */ docs_release,
    /* xRollbackTo   */ docs_rollback_to,
    /* xShadowName   */ docs_shadow_name,
};

}  // namespace
}  // namespace docs

int register_docs_modules(sqlite3* db, char** err) {
  const int rc = docs::register_module(db, docs::kDocsModule, &docs::kDocsModuleDef, err);
  if (rc != SQLITE_OK) return rc;
  return docs::register_leaves_module(db, err);
}

}  // namespace tuplekv::ext
