// tuplekv_docs: JSON documents stored as path -> leaf keys, readable and
// writable one subtree at a time; tuplekv_leaves: a read-only view of the
// same keys, one row per leaf.
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
//
// tuplekv_leaves(docs_table) columns: id, path (JSON path text), key (the
// path's tuple elements as a JSON array), type (null, true, false,
// integer, real, text, object, array: json_tree's names; object and array
// only for empty ones), value (the SQL value of the leaf; '{}' or '[]'),
// raw HIDDEN (the stored key) and prefix HIDDEN. `id = ?` is a prefix scan,
// `path = ?` reads the one leaf at that path of each document, `prefix = ?`
// every leaf under that path. It reads the docs table's options from its
// CREATE statement, so it follows subspace=, store= and mode=.
#include <cctype>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/docs.h"
#include "core/model/sql_any.h"
#include "core/subspace.h"
#include "core/tuple.h"
#include "core/tuple_json.h"
#include "ext/errors.h"
#include "ext/keyspace_vtab.h"
#include "ext/memory_registry.h"
#include "ext/module_args.h"
#include "ext/registry.h"
#include "ext/sqlite_api.h"
#include "ext/sqlite_store.h"
#include "ext/values.h"

namespace tuplekv::ext {
namespace {

using model::Docs;
using model::DocsMode;
using model::JsonPath;
using model::NodeKind;

constexpr const char* kDocsModule = "tuplekv_docs";
constexpr const char* kLeavesModule = "tuplekv_leaves";
constexpr size_t kFdbMaxKey = 10000;
constexpr size_t kFdbMaxValue = 100000;
constexpr size_t kFdbMaxDocument = 1000000;
constexpr unsigned int kJsonSubtype = 74;  // json1's subtype for JSON text
constexpr int kIdxId = 1;
constexpr int kIdxPath = 2;
// A raw key path element no array position can equal: a row whose [#-n]
// did not resolve (nothing is stored there, DELETE removes nothing).
constexpr int64_t kUnresolved = -3;

BytesView blob_view(sqlite3_value* v) {
  const void* p = sqlite3_value_blob(v);
  const int n = sqlite3_value_bytes(v);
  return p == nullptr ? BytesView() : BytesView(static_cast<const char*>(p), static_cast<size_t>(n));
}

std::string_view text_view(sqlite3_value* v) {
  const auto* p = reinterpret_cast<const char*>(sqlite3_value_text(v));
  return p == nullptr ? std::string_view() : std::string_view(p, static_cast<size_t>(sqlite3_value_bytes(v)));
}

// ---------------------------------------------------------------------------
// Options, shared by both modules (tuplekv_leaves reads the docs table's)

struct DocsOptions {
  KeyspaceOptions keyspace;
  DocsMode mode = DocsMode::kDocuments;
  bool fdb_limits = false;
};

Status parse_docs_options(const std::string& table, int argc, const char* const* argv,
                          DocsOptions* out) {
  const std::string module = kDocsModule;
  std::vector<ModuleOption> opts;
  TUPLEKV_RETURN_IF_ERROR(parse_module_options(module, argc, argv, &opts));
  TUPLEKV_RETURN_IF_ERROR(take_keyspace_options(module, table, &opts, &out->keyspace));
  for (const ModuleOption& o : opts) {
    if (o.name == "mode") {
      if (sqlite3_stricmp(o.value.c_str(), "merge") == 0) {
        out->mode = DocsMode::kMerge;
      } else if (sqlite3_stricmp(o.value.c_str(), "documents") == 0) {
        out->mode = DocsMode::kDocuments;
      } else {
        return Status::InvalidArgument(module + ": mode must be documents or merge, not '" +
                                       o.value + "'");
      }
    } else if (o.name == "fdb_limits") {
      TUPLEKV_RETURN_IF_ERROR(parse_bool_option(module, o, &out->fdb_limits));
    } else {
      return Status::InvalidArgument(module + ": unknown option '" + o.written + "'");
    }
  }
  return Status::OK();
}

// The store of a docs table: its shadow table or the connection's memory
// store. *prefix may change (a memory store keeps the prefix it was made with).
struct OpenedStore {
  std::shared_ptr<OrderedStore> store;
  SqliteStore* sqlite_store = nullptr;
};

Status open_store(sqlite3* db, ConnectionRegistry* registry, const std::string& schema,
                  const std::string& name, bool memory, bool create, Bytes* prefix,
                  OpenedStore* out) {
  registry->sweep();
  if (memory) {
    ConnectionRegistry::MemoryTable m = create ? registry->create_memory(schema, name, *prefix)
                                               : registry->connect_memory(schema, name, *prefix);
    out->store = std::move(m.store);
    *prefix = std::move(m.prefix);
    return Status::OK();
  }
  if (create) TUPLEKV_RETURN_IF_ERROR(SqliteStore::create_table(db, schema, name));
  TUPLEKV_ASSIGN_OR_RETURN(std::unique_ptr<SqliteStore> s, SqliteStore::open(db, schema, name));
  out->sqlite_store = s.get();
  out->store = std::shared_ptr<OrderedStore>(std::move(s));
  return Status::OK();
}

Status subspace_prefix(const std::string& module, const std::string& subspace, Bytes* out) {
  Result<Subspace> sub = Subspace::make({TupleValue::string(subspace)});
  if (!sub.ok()) {
    return Status::InvalidArgument(module + ": subspace '" + subspace + "' is not valid UTF-8");
  }
  *out = sub->key();
  return Status::OK();
}

// SQL value -> packed id element. kInvalidArgument for TEXT that is not UTF-8.
Status encode_id(sqlite3_value* v, Bytes* out) {
  TupleValue e;
  TUPLEKV_RETURN_IF_ERROR(value_to_element(v, false, &e));
  out->clear();
  return pack_element(e, out);
}

Status result_id(sqlite3_context* ctx, BytesView element) {
  TupleValue v;
  TUPLEKV_RETURN_IF_ERROR(decode_element(&element, &v));
  return result_element(ctx, v);
}

// Splits the part of a key after the prefix into the document's id
// element (documents mode; empty in merge mode) and the rest.
Status split_doc(DocsMode mode, BytesView rest, BytesView* doc, BytesView* after) {
  if (mode == DocsMode::kMerge) {
    *doc = BytesView();
    *after = rest;
    return Status::OK();
  }
  TupleReader r(rest);
  if (!r.next()) {
    return r.status().ok() ? Status::Corruption("document key without an id") : r.status();
  }
  *doc = r.raw();
  *after = r.rest();
  return Status::OK();
}

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
  model::JsonExploder exploder;
  model::JsonLeaves leaves;
  std::vector<Bytes> variants;
  Bytes id_buf, old_doc, new_doc, old_path, found;

  OrderedStore* store() const { return opened.store.get(); }
  int fail(const Status& s) { return set_vtab_error(this, s); }
  Status err(const Status& s) const {
    if (s.code() == StatusCode::kCorruption) {
      return s.with_context(std::string(kDocsModule) + ": corrupt store of " + name);
    }
    return s.with_context(kDocsModule);
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
    TUPLEKV_RETURN_IF_ERROR(open_store(db, registry.get(), schema, name, options.keyspace.memory,
                                       create, &prefix, &opened));
    if (create) registry->drop_stats(schema, name);
    stats = registry->stats(schema, name);
    docs = std::make_unique<Docs>(store(), prefix, options.mode);
    if (options.fdb_limits) docs->set_limits(model::DocsLimits{kFdbMaxKey, kFdbMaxValue});
    docs->set_counters(&stats->rows, &stats->ranges);
    return Status::OK();
  }

  Status destroy() {
    if (options.keyspace.memory) {
      registry->drop_memory(schema, name);
    } else {
      TUPLEKV_RETURN_IF_ERROR(SqliteStore::drop_table(db, schema, name));
      opened = OpenedStore();
    }
    registry->drop_stats(schema, name);
    return Status::OK();
  }

  Status rename(const std::string& to) {
    if (options.keyspace.memory) {
      registry->rename_memory(schema, name, to);
    } else {
      TUPLEKV_RETURN_IF_ERROR(SqliteStore::rename_table(db, schema, name, to));
      TUPLEKV_RETURN_IF_ERROR(opened.sqlite_store->renamed(to));
    }
    registry->rename_stats(schema, name, to);
    name = to;
    // As tuplekv_kv: without subspace= the keys live under the table name.
    if (!options.keyspace.subspace_given && !options.keyspace.memory) {
      Bytes to_prefix;
      TUPLEKV_RETURN_IF_ERROR(subspace_prefix(kDocsModule, to, &to_prefix));
      // Tuple encodings are prefix-free: the two ranges are disjoint.
      const KeyRange all{prefix, *strinc(prefix)};
      {
        TUPLEKV_ASSIGN_OR_RETURN(std::unique_ptr<Cursor> c, store()->scan(all, ScanOptions()));
        Bytes k;
        for (; c->valid(); c->next()) {
          k.assign(to_prefix);
          k.append(c->key().substr(prefix.size()));
          TUPLEKV_RETURN_IF_ERROR(store()->set(k, c->value()));
        }
        TUPLEKV_RETURN_IF_ERROR(c->status());
      }
      TUPLEKV_RETURN_IF_ERROR(store()->clear_range(all.begin, all.end));
      prefix = to_prefix;
      options.keyspace.subspace = to;
      docs->set_prefix(prefix);
    }
    return Status::OK();
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
      case 1:
        if (sqlite3_vtab_nochange(ctx)) return SQLITE_OK;
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
      case 2:
        if (sqlite3_vtab_nochange(ctx)) return SQLITE_OK;
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
  Status rescan(const KeyRange& r) {
    ++table()->stats->ranges;
    return scan_->rescan(r);
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
    if (!resolved) {
      (void)pack_element(TupleValue::int64(kUnresolved), &raw_);
    } else if (!(full_ && !have_path_)) {
      const KeyRange r = t->options.mode == DocsMode::kDocuments ? KeyRange{raw_, *strinc(raw_)}
                                                                  : range(raw_);
      ++t->stats->ranges;
      if (sub_ == nullptr) {
        TUPLEKV_ASSIGN_OR_RETURN(sub_, t->store()->scan(r, ScanOptions()));
      } else {
        TUPLEKV_RETURN_IF_ERROR(sub_->rescan(r));
      }
      sub_ready_ = sub_->valid();
      TUPLEKV_RETURN_IF_ERROR(sub_->status());
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
    // the next one's first key.
    if (!doc_.empty() && !main_consumed_) {
      Bytes end;
      t->docs->subtree_key(doc_, {}, &end);
      TUPLEKV_RETURN_IF_ERROR(rescan(KeyRange{*strinc(end), *strinc(t->prefix)}));
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
    bool present = false;
    const Bytes id(doc);
    TUPLEKV_RETURN_IF_ERROR(load(id, &present));
    return Status::OK();
  }

  Status ensure_doc() {
    if (doc_ready_) return Status::OK();
    doc_ready_ = true;
    json_.clear();
    if (doc_null_) return Status::OK();
    DocsTable* t = table();
    if (full_ && !have_path_) {
      main_consumed_ = true;
      return t->docs->assemble(scan_.get(), raw_, &json_);
    }
    if (!sub_ready_) return Status::Internal("tuplekv internal error: subtree not positioned");
    return t->docs->assemble(sub_.get(), raw_, &json_);
  }

  bool eof_ = true;
  bool full_ = false;
  bool have_path_ = false;
  std::string path_text_;
  JsonPath path_;
  Bytes concrete_;
  std::vector<Bytes> ids_;
  size_t id_pos_ = 0;
  std::unique_ptr<Cursor> scan_;  // full scans: every key of the table
  std::unique_ptr<Cursor> sub_;   // the subtree of the current row
  // The current row.
  Bytes doc_, resolved_, raw_;
  std::string json_;
  bool doc_ready_ = false, doc_null_ = false, sub_ready_ = false, main_consumed_ = false;
};

// ---------------------------------------------------------------------------
// tuplekv_leaves

// The docs table's module arguments, from its CREATE VIRTUAL TABLE text.
Status docs_definition(sqlite3* db, const std::string& schema, const std::string& docs_name,
                       std::vector<std::string>* args) {
  const std::string module = kLeavesModule;
  char* sql = sqlite3_mprintf("SELECT sql FROM \"%w\".sqlite_schema WHERE type = 'table' AND name = ?1",
                              schema.c_str());
  if (sql == nullptr) return Status::NoMemory();
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr);
  sqlite3_free(sql);
  if (rc != SQLITE_OK) {
    return Status::Native(StatusCode::kIOError, rc, module + ": cannot read the schema: " +
                                                        sqlite3_errmsg(db));
  }
  sqlite3_bind_text(stmt, 1, docs_name.c_str(), -1, SQLITE_TRANSIENT);
  std::string text;
  rc = sqlite3_step(stmt);
  if (rc == SQLITE_ROW && sqlite3_column_text(stmt, 0) != nullptr) {
    text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
  }
  sqlite3_finalize(stmt);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
    return Status::Native(StatusCode::kIOError, rc, module + ": cannot read the schema");
  }
  const Status not_docs = Status::InvalidArgument(module + ": '" + docs_name +
                                                  "' is not a tuplekv_docs table in " + schema);
  // Find `USING tuplekv_docs` outside quotes, then split its arguments.
  size_t i = 0;
  const size_t n = text.size();
  auto skip_quoted = [&](char close) {
    for (++i; i < n && text[i] != close; ++i) {
    }
  };
  size_t using_at = std::string::npos;
  for (; i < n; ++i) {
    const char c = text[i];
    if (c == '\'' || c == '"' || c == '`') {
      skip_quoted(c);
    } else if (c == '[') {
      skip_quoted(']');
    } else if (i + 5 <= n && sqlite3_strnicmp(text.c_str() + i, "using", 5) == 0 &&
               (i == 0 || std::isspace(static_cast<unsigned char>(text[i - 1]))) &&
               (i + 5 < n && std::isspace(static_cast<unsigned char>(text[i + 5])))) {
      using_at = i + 5;
      break;
    }
  }
  if (using_at == std::string::npos) return not_docs;
  i = using_at;
  while (i < n && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  const size_t name_at = i;
  while (i < n && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_')) ++i;
  if (sqlite3_stricmp(text.substr(name_at, i - name_at).c_str(), kDocsModule) != 0) return not_docs;
  while (i < n && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  args->clear();
  if (i >= n || text[i] != '(') return Status::OK();
  int depth = 0;
  size_t start = i + 1;
  for (++i; i < n; ++i) {
    const char c = text[i];
    if (c == '\'' || c == '"' || c == '`') {
      skip_quoted(c);
    } else if (c == '[') {
      skip_quoted(']');
    } else if (c == '(') {
      ++depth;
    } else if ((c == ')' && depth == 0) || (c == ',' && depth == 0)) {
      std::string arg = text.substr(start, i - start);
      const size_t b = arg.find_first_not_of(" \t\r\n");
      const size_t e = arg.find_last_not_of(" \t\r\n");
      if (b != std::string::npos) args->push_back(arg.substr(b, e - b + 1));
      start = i + 1;
      if (c == ')') break;
    } else if (c == ')') {
      --depth;
    }
  }
  return Status::OK();
}

enum LeavesColumn { kLeafId, kLeafPath, kLeafKey, kLeafType, kLeafValue, kLeafRaw, kLeafPrefix };
constexpr int kIdxLeafId = 1;
constexpr int kIdxLeafPath = 2;    // path = ?: the one leaf at that path
constexpr int kIdxLeafPrefix = 4;  // prefix = ?: every leaf under that path

struct LeavesTable : sqlite3_vtab {
  LeavesTable() : sqlite3_vtab{} {}
  sqlite3* db = nullptr;
  std::shared_ptr<ConnectionRegistry> registry;
  std::string name;
  std::string docs_name;
  DocsOptions options;
  Bytes prefix;
  OpenedStore opened;
  std::unique_ptr<Docs> docs;

  Status open(sqlite3* d, const std::shared_ptr<ConnectionRegistry>& reg, int argc,
              const char* const* argv) {
    db = d;
    registry = reg;
    const std::string schema = argv[1];
    name = argv[2];
    const std::string module = kLeavesModule;
    if (argc != 4) {
      return Status::InvalidArgument(module + ": expected one argument, the tuplekv_docs table");
    }
    const std::string_view given = argv[3];
    const size_t b = given.find_first_not_of(" \t\r\n");
    const size_t e = given.find_last_not_of(" \t\r\n");
    docs_name = b == std::string::npos ? std::string() : dequote(given.substr(b, e - b + 1));
    std::vector<std::string> args;
    TUPLEKV_RETURN_IF_ERROR(docs_definition(db, schema, docs_name, &args));
    std::vector<const char*> ptrs;
    for (const std::string& a : args) ptrs.push_back(a.c_str());
    TUPLEKV_RETURN_IF_ERROR(parse_docs_options(docs_name, static_cast<int>(ptrs.size()),
                                               ptrs.data(), &options));
    TUPLEKV_RETURN_IF_ERROR(subspace_prefix(module, options.keyspace.subspace, &prefix));
    const int rc = sqlite3_declare_vtab(
        db, "CREATE TABLE x(id, path, key, type, value, raw HIDDEN, prefix HIDDEN)");
    if (rc != SQLITE_OK) {
      return Status::Native(StatusCode::kInternal, rc, module + ": cannot declare the table");
    }
    sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
    TUPLEKV_RETURN_IF_ERROR(open_store(db, registry.get(), schema, docs_name,
                                       options.keyspace.memory, false, &prefix, &opened));
    docs = std::make_unique<Docs>(opened.store.get(), prefix, options.mode);
    return Status::OK();
  }
};

struct LeavesCursor : sqlite3_vtab_cursor {
  LeavesCursor() : sqlite3_vtab_cursor{} {}
  LeavesTable* table() const { return static_cast<LeavesTable*>(pVtab); }

  Status filter(int idx_num, int argc, sqlite3_value** argv) {
    LeavesTable* t = table();
    eof_ = true;
    ids_.clear();
    id_pos_ = 0;
    full_ = false;
    have_path_ = false;
    exact_ = false;
    check_prefix_ = false;
    doc_started_.clear();
    prefix_text_.clear();
    int arg = 0;
    if ((idx_num & kIdxLeafId) != 0) {
      sqlite3_value* v = argv[arg++];
      if (sqlite3_value_type(v) == SQLITE_NULL || t->options.mode == DocsMode::kMerge) {
        return Status::OK();
      }
      Bytes id;
      if (!encode_id(v, &id).ok()) return Status::OK();
      TUPLEKV_RETURN_IF_ERROR(model::sql_equal_variants_packed(id, &ids_));
    }
    for (int bit : {kIdxLeafPath, kIdxLeafPrefix}) {
      if ((idx_num & bit) == 0) continue;
      if (arg >= argc) return Status::Internal("tuplekv internal error: missing argument");
      sqlite3_value* v = argv[arg++];
      if (sqlite3_value_type(v) == SQLITE_NULL) return Status::OK();
      JsonPath p;
      const Status s = model::parse_json_path(text_view(v), &p);
      if (!s.ok()) return s.with_context(kLeavesModule);
      if (bit == kIdxLeafPrefix) prefix_text_.assign(text_view(v));
      if (have_path_) {
        // Both: the leaf at `path` if it lies under `prefix`, i.e. the
        // longer of the two must extend the other. Keep the path; a
        // mismatch is filtered per row below.
        prefix_check_ = p;
        check_prefix_ = true;
        continue;
      }
      path_ = p;
      have_path_ = true;
      exact_ = bit == kIdxLeafPath;
    }
    if ((idx_num & kIdxLeafId) == 0) {
      if (t->options.mode == DocsMode::kMerge) {
        ids_.emplace_back();
      } else {
        full_ = true;
      }
    }
    eof_ = false;
    if (full_) {
      const KeyRange all{t->prefix, *strinc(t->prefix)};
      ScanOptions o;
      if (scan_ == nullptr) {
        TUPLEKV_ASSIGN_OR_RETURN(scan_, t->opened.store->scan(all, o));
      } else {
        TUPLEKV_RETURN_IF_ERROR(scan_->rescan(all));
      }
      if (!have_path_) {
        // Every key is a row: one scan, no per-document work.
        cur_ = scan_.get();
        return settle();
      }
      return next_document();
    }
    return next_document();
  }

  Status next() {
    if (eof_) return Status::OK();
    cur_->next();
    if (exact_) return next_document();
    return settle();
  }

  bool eof() const { return eof_; }

  int column(sqlite3_context* ctx, int i) {
    LeavesTable* t = table();
    Status s;
    switch (i) {
      case kLeafId:
        if (t->options.mode == DocsMode::kMerge) {
          sqlite3_result_null(ctx);
        } else {
          s = result_id(ctx, doc_);
        }
        break;
      case kLeafPath: {
        std::string text;
        s = model::path_text(node_path_, &text);
        if (s.ok()) result_text(ctx, text);
        break;
      }
      case kLeafKey: {
        Tuple elements;
        s = unpack(node_path_, &elements);
        std::string json;
        if (s.ok()) s = tuple_to_json(elements, &json);
        if (s.ok()) {
          result_text(ctx, json);
          sqlite3_result_subtype(ctx, kJsonSubtype);
        }
        break;
      }
      case kLeafType:
      case kLeafValue: {
        if (marker_ != 0) {
          sqlite3_result_text(ctx, i == kLeafType ? (marker_ == 1 ? "object" : "array")
                                                  : (marker_ == 1 ? "{}" : "[]"),
                              -1, SQLITE_STATIC);
          break;
        }
        BytesView in = leaf_;
        TupleValue v;
        s = decode_element(&in, &v);
        if (!s.ok()) break;
        if (i == kLeafValue) {
          s = result_element(ctx, v);
          break;
        }
        std::string type;
        switch (v.type()) {
          case ElementType::kNull: type = "null"; break;
          case ElementType::kBool: type = v.as_bool() ? "true" : "false"; break;
          case ElementType::kInt:
          case ElementType::kBigInt: type = "integer"; break;
          case ElementType::kDouble:
          case ElementType::kFloat: type = "real"; break;
          case ElementType::kString: type = "text"; break;
          default: type = element_type_name(v.type()); break;  // not JSON: written by hand
        }
        result_text(ctx, type);
        break;
      }
      case kLeafRaw:
        result_blob(ctx, cur_->key());
        break;
      case kLeafPrefix:
        if (prefix_text_.empty()) {
          sqlite3_result_null(ctx);
        } else {
          result_text(ctx, prefix_text_);
        }
        break;
      default:
        s = Status::Internal("tuplekv internal error: column " + std::to_string(i));
    }
    if (!s.ok()) {
      const Status e = s.code() == StatusCode::kCorruption
                           ? s.with_context(std::string(kLeavesModule) + ": corrupt store of " +
                                            t->docs_name)
                           : s.with_context(kLeavesModule);
      set_result_error(ctx, e);
      return sqlite_code(e);
    }
    return SQLITE_OK;
  }

 private:
  // Decodes the key under the cursor into the row's parts.
  Status split_row() {
    LeavesTable* t = table();
    const BytesView key = cur_->key();
    BytesView doc, rest;
    TUPLEKV_RETURN_IF_ERROR(split_doc(t->options.mode, key.substr(t->prefix.size()), &doc, &rest));
    doc_.assign(doc);
    if (t->options.mode == DocsMode::kDocuments) {
      leaf_.assign(cur_->value());
    } else {
      TupleReader r(rest);
      size_t last = 0;
      bool any = false;
      while (r.next()) {
        last = r.offset();
        any = true;
      }
      TUPLEKV_RETURN_IF_ERROR(r.status());
      if (!any) return Status::Corruption("document key has no leaf");
      leaf_.assign(rest.substr(last));
      rest = rest.substr(0, last);
    }
    // A trailing -2 / -1 marks an empty object / array.
    marker_ = 0;
    TupleReader r(rest);
    size_t last = 0;
    int64_t value = 0;
    bool last_int = false;
    while (r.next()) {
      last = r.offset();
      last_int = r.type() == ElementType::kInt;
      if (last_int) value = r.int64_value();
    }
    TUPLEKV_RETURN_IF_ERROR(r.status());
    if (last_int && (value == model::kEmptyObjectMarker || value == model::kEmptyArrayMarker)) {
      marker_ = value == model::kEmptyObjectMarker ? 1 : 2;
      rest = rest.substr(0, last);
    }
    node_path_.assign(rest);
    return Status::OK();
  }

  // Stands on the first row at or after the cursor's position.
  Status settle() {
    for (;;) {
      if (cur_->valid()) {
        TUPLEKV_RETURN_IF_ERROR(split_row());
        if (check_prefix_ && !under_prefix()) {
          cur_->next();
          continue;
        }
        if (exact_ && BytesView(node_path_) != BytesView(base_path_)) {
          return next_document();
        }
        return Status::OK();
      }
      TUPLEKV_RETURN_IF_ERROR(cur_->status());
      if (cur_ == scan_.get() && !have_path_) {
        eof_ = true;
        return Status::OK();
      }
      return next_document();
    }
  }

  bool under_prefix() {
    Bytes p;
    if (!model::pack_path(prefix_check_, &p).ok()) return false;
    return node_path_.size() >= p.size() && BytesView(node_path_).substr(0, p.size()) == BytesView(p);
  }

  // Moves to the next document and opens the scan of its path.
  Status next_document() {
    LeavesTable* t = table();
    for (;;) {
      Bytes doc;
      if (full_) {
        if (!doc_started_.empty()) {
          Bytes k;
          t->docs->subtree_key(doc_started_, {}, &k);
          TUPLEKV_RETURN_IF_ERROR(scan_->rescan(KeyRange{*strinc(k), *strinc(t->prefix)}));
        }
        if (!scan_->valid()) {
          TUPLEKV_RETURN_IF_ERROR(scan_->status());
          eof_ = true;
          doc_started_.clear();
          return Status::OK();
        }
        BytesView d, rest;
        TUPLEKV_RETURN_IF_ERROR(
            split_doc(DocsMode::kDocuments, scan_->key().substr(t->prefix.size()), &d, &rest));
        doc.assign(d);
        doc_started_ = doc;
      } else {
        if (id_pos_ >= ids_.size()) {
          eof_ = true;
          return Status::OK();
        }
        doc = ids_[id_pos_++];
      }
      bool resolved = true;
      base_path_.clear();
      if (have_path_) TUPLEKV_RETURN_IF_ERROR(t->docs->resolve(doc, path_, &base_path_, &resolved));
      if (!resolved) continue;
      Bytes key;
      t->docs->subtree_key(doc, base_path_, &key);
      const KeyRange r =
          t->options.mode == DocsMode::kDocuments ? KeyRange{key, *strinc(key)} : range(key);
      if (sub_ == nullptr) {
        TUPLEKV_ASSIGN_OR_RETURN(sub_, t->opened.store->scan(r, ScanOptions()));
      } else {
        TUPLEKV_RETURN_IF_ERROR(sub_->rescan(r));
      }
      cur_ = sub_.get();
      if (!sub_->valid()) {
        TUPLEKV_RETURN_IF_ERROR(sub_->status());
        continue;
      }
      TUPLEKV_RETURN_IF_ERROR(split_row());
      if (exact_ && BytesView(node_path_) != BytesView(base_path_)) continue;
      if (check_prefix_ && !under_prefix()) {
        if (exact_) continue;
        return settle();
      }
      return Status::OK();
    }
  }

  bool eof_ = true;
  bool full_ = false;
  bool have_path_ = false;
  bool exact_ = false;
  bool check_prefix_ = false;
  JsonPath path_, prefix_check_;
  std::string prefix_text_;
  std::vector<Bytes> ids_;
  size_t id_pos_ = 0;
  std::unique_ptr<Cursor> scan_, sub_;
  Cursor* cur_ = nullptr;
  Bytes doc_started_, base_path_;
  // The current row.
  Bytes doc_, node_path_, leaf_;
  int marker_ = 0;
};

// ---------------------------------------------------------------------------
// sqlite3_module slots

struct ModuleData {
  std::shared_ptr<ConnectionRegistry> registry;
};

// Cost estimates: a document by id < its subtree by id < every document.
void plan(sqlite3_index_info* info, const int* columns, const int* bits, const char* const* names,
          int n, int id_bit, int* idx_num, std::string* idx_str) {
  idx_str->clear();
  int argv = 0;
  *idx_num = 0;
  for (int k = 0; k < n; ++k) {
    for (int i = 0; i < info->nConstraint; ++i) {
      const auto& c = info->aConstraint[i];
      if (!c.usable || c.iColumn != columns[k] || c.op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
      info->aConstraintUsage[i].argvIndex = ++argv;
      // SQLite re-checks id (2 = 2.0 and the like); a path is exact.
      info->aConstraintUsage[i].omit = bits[k] == id_bit ? 0 : 1;
      *idx_num |= bits[k];
      if (!idx_str->empty()) *idx_str += ' ';
      *idx_str += names[k];
      break;
    }
  }
  const bool by_id = (*idx_num & id_bit) != 0;
  const bool by_path = *idx_num != 0 && *idx_num != id_bit;
  info->estimatedRows = by_id ? 1 : 1000;
  info->estimatedCost = by_id ? (by_path ? 5.0 : 10.0) : (by_path ? 5000.0 : 100000.0);
  if (by_id) info->idxFlags |= SQLITE_INDEX_SCAN_UNIQUE;
}

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

int docs_create(sqlite3* db, void* aux, int argc, const char* const* argv, sqlite3_vtab** out,
                char** err) noexcept {
  return docs_init(db, aux, argc, argv, out, err, true);
}

int docs_connect(sqlite3* db, void* aux, int argc, const char* const* argv, sqlite3_vtab** out,
                 char** err) noexcept {
  return docs_init(db, aux, argc, argv, out, err, false);
}

int set_idx_str(sqlite3_index_info* info, const std::string& s) {
  if (s.empty()) return SQLITE_OK;
  info->idxStr = sqlite3_mprintf("%s", s.c_str());
  if (info->idxStr == nullptr) return SQLITE_NOMEM;
  info->needToFreeIdxStr = 1;
  return SQLITE_OK;
}

int docs_best_index(sqlite3_vtab* vtab, sqlite3_index_info* info) noexcept {
  return guard_vtab(vtab, [&] {
    static const int kColumns[] = {0, 2};
    static const int kBits[] = {kIdxId, kIdxPath};
    static const char* const kNames[] = {"id", "path"};
    int idx_num = 0;
    std::string idx_str;
    plan(info, kColumns, kBits, kNames, 2, kIdxId, &idx_num, &idx_str);
    info->idxNum = idx_num;
    return set_idx_str(info, idx_str);
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
    if (!s.ok()) return set_vtab_error(vtab, s);
    delete t;
    return SQLITE_OK;
  });
}

template <typename C>
int open_cursor(sqlite3_vtab* vtab, sqlite3_vtab_cursor** out) noexcept {
  return guard_vtab(vtab, [&] {
    *out = new C();
    return SQLITE_OK;
  });
}

template <typename C>
int close_cursor(sqlite3_vtab_cursor* cur) noexcept {
  return guard_vtab(cur->pVtab, [&] {
    delete static_cast<C*>(cur);
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

int no_rowid(sqlite3_vtab_cursor* cur, sqlite3_int64*) noexcept {
  return set_vtab_error(cur->pVtab, Status::Internal("tuplekv internal error: no rowid"));
}

int docs_update(sqlite3_vtab* vtab, int argc, sqlite3_value** argv, sqlite3_int64*) noexcept {
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

int docs_rename(sqlite3_vtab* vtab, const char* to) noexcept {
  return guard_vtab(vtab, [&] {
    const Status s = static_cast<DocsTable*>(vtab)->rename(to);
    return s.ok() ? SQLITE_OK : set_vtab_error(vtab, s);
  });
}

int docs_shadow_name(const char* suffix) noexcept {
  return suffix != nullptr && sqlite3_stricmp(suffix, SqliteStore::kShadowSuffix) == 0;
}

const sqlite3_module kDocsModuleDef = {
    /* iVersion      */ 3,
    /* xCreate       */ docs_create,
    /* xConnect      */ docs_connect,
    /* xBestIndex    */ docs_best_index,
    /* xDisconnect   */ docs_disconnect,
    /* xDestroy      */ docs_destroy,
    /* xOpen         */ open_cursor<DocsCursor>,
    /* xClose        */ close_cursor<DocsCursor>,
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

int leaves_init(sqlite3* db, void* aux, int argc, const char* const* argv, sqlite3_vtab** out,
                char** err) noexcept {
  return guard_create(err, [&] {
    const auto* data = static_cast<const ModuleData*>(aux);
    auto table = std::make_unique<LeavesTable>();
    const Status s = table->open(db, data->registry, argc, argv);
    if (!s.ok()) return set_create_error(err, s);
    *out = table.release();
    return SQLITE_OK;
  });
}

int leaves_best_index(sqlite3_vtab* vtab, sqlite3_index_info* info) noexcept {
  return guard_vtab(vtab, [&] {
    static const int kColumns[] = {kLeafId, kLeafPath, kLeafPrefix};
    static const int kBits[] = {kIdxLeafId, kIdxLeafPath, kIdxLeafPrefix};
    static const char* const kNames[] = {"id", "path", "prefix"};
    int idx_num = 0;
    std::string idx_str;
    plan(info, kColumns, kBits, kNames, 3, kIdxLeafId, &idx_num, &idx_str);
    // A path or prefix alone still reads every document: rows, not one.
    if ((idx_num & kIdxLeafId) != 0 && (idx_num & kIdxLeafPath) == 0) info->estimatedRows = 100;
    if ((idx_num & kIdxLeafId) != 0) info->idxFlags &= ~SQLITE_INDEX_SCAN_UNIQUE;
    info->idxNum = idx_num;
    return set_idx_str(info, idx_str);
  });
}

int leaves_disconnect(sqlite3_vtab* vtab) noexcept {
  return guard_vtab(vtab, [&] {
    delete static_cast<LeavesTable*>(vtab);
    return SQLITE_OK;
  });
}

int leaves_filter(sqlite3_vtab_cursor* cur, int idx_num, const char*, int argc,
                  sqlite3_value** argv) noexcept {
  return guard_vtab(cur->pVtab, [&] {
    auto* c = static_cast<LeavesCursor*>(cur);
    const Status s = c->filter(idx_num, argc, argv);
    return s.ok() ? SQLITE_OK : set_vtab_error(cur->pVtab, s.with_context(kLeavesModule));
  });
}

int leaves_next(sqlite3_vtab_cursor* cur) noexcept {
  return guard_vtab(cur->pVtab, [&] {
    const Status s = static_cast<LeavesCursor*>(cur)->next();
    return s.ok() ? SQLITE_OK : set_vtab_error(cur->pVtab, s.with_context(kLeavesModule));
  });
}

int leaves_eof(sqlite3_vtab_cursor* cur) noexcept {
  return static_cast<LeavesCursor*>(cur)->eof() ? 1 : 0;
}

int leaves_column(sqlite3_vtab_cursor* cur, sqlite3_context* ctx, int i) noexcept {
  return guard_vtab(cur->pVtab, [&] { return static_cast<LeavesCursor*>(cur)->column(ctx, i); });
}

const sqlite3_module kLeavesModuleDef = {
    /* iVersion      */ 2,
    /* xCreate       */ leaves_init,
    /* xConnect      */ leaves_init,
    /* xBestIndex    */ leaves_best_index,
    /* xDisconnect   */ leaves_disconnect,
    /* xDestroy      */ leaves_disconnect,
    /* xOpen         */ open_cursor<LeavesCursor>,
    /* xClose        */ close_cursor<LeavesCursor>,
    /* xFilter       */ leaves_filter,
    /* xNext         */ leaves_next,
    /* xEof          */ leaves_eof,
    /* xColumn       */ leaves_column,
    /* xRowid        */ no_rowid,
    /* xUpdate       */ nullptr,
    /* xBegin        */ nullptr,
    /* xSync         */ nullptr,
    /* xCommit       */ nullptr,
    /* xRollback     */ nullptr,
    /* xFindFunction */ nullptr,
    /* xRename       */ nullptr,
    /* xSavepoint    */ nullptr,
    /* xRelease      */ nullptr,
    /* xRollbackTo   */ nullptr,
    /* xShadowName   */ nullptr,
};

void destroy_module_data(void* p) noexcept { delete static_cast<ModuleData*>(p); }

int register_one(sqlite3* db, const char* name, const sqlite3_module* m, char** err) {
  auto* data = new ModuleData{ConnectionRegistry::of(db)};
  const int rc = sqlite3_create_module_v2(db, name, m, data, destroy_module_data);
  if (rc != SQLITE_OK && err != nullptr) {
    *err = sqlite3_mprintf("tuplekv: cannot register module %s", name);
  }
  return rc;
}

}  // namespace

int register_docs_modules(sqlite3* db, char** err) {
  const int rc = register_one(db, kDocsModule, &kDocsModuleDef, err);
  if (rc != SQLITE_OK) return rc;
  return register_one(db, kLeavesModule, &kLeavesModuleDef, err);
}

}  // namespace tuplekv::ext
