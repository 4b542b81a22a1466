// tuplekv_leaves: a read-only view of a tuplekv_docs table's keys, one row
// per leaf, so leaves can be searched by path and value in SQL.
//
// USAGE
//   CREATE VIRTUAL TABLE docs USING tuplekv_docs;
//   CREATE VIRTUAL TABLE docs_leaves USING tuplekv_leaves(docs);
//   INSERT INTO docs(doc) VALUES ('{"name":"Ada","langs":["en","fr"],"region":"EU"}');
//   SELECT id FROM docs_leaves WHERE path = '$.region' AND value = 'EU';   -- 1
//   SELECT path, value FROM docs_leaves WHERE id = 1 AND prefix = '$.langs';
//     -- $.langs[0] en / $.langs[1] fr
//
// The only argument is the docs table. Its options are read from its
// CREATE VIRTUAL TABLE statement, so the view follows its subspace=,
// store= and mode=. It reads the leaves (the key layout in docs_vtab.cc and
// core/model/docs.h), never the docs table's document cache.
//
// COLUMNS: id, path (JSON path text), key (the path's tuple elements as a
// JSON array), type (null, true, false, integer, real, text, object, array:
// json_tree's names; object and array only for empty ones), value (the SQL
// value of the leaf; '{}' or '[]'), raw HIDDEN (the stored key) and prefix
// HIDDEN (the `prefix = ?` of the query; reading it where none chose the
// scan, e.g. inside an OR SQLite cannot split, is an error, not a NULL that
// would filter out the leaves under that prefix).
//
// PLANS. idxNum bit 0: `id = ?` (a prefix scan per encoding SQLite calls
// equal); bit 1: `path = ?` (the one leaf at that path of each document);
// bit 2: `prefix = ?` (every leaf under that path). idxStr names them
// ("id path"). Without an id every document is visited in key order.
#include <cctype>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/docs.h"
#include "core/model/sql_any.h"
#include "core/tuple.h"
#include "core/tuple_json.h"
#include "ext/docs_shared.h"
#include "ext/errors.h"
#include "ext/module_args.h"
#include "ext/sqlite_api.h"
#include "ext/values.h"

namespace tuplekv::ext::docs {
namespace {

using model::Docs;
using model::DocsMode;
using model::JsonPath;

// The docs table's module arguments, from its CREATE VIRTUAL TABLE text,
// and its name as the schema spells it (the default subspace).
Status docs_definition(sqlite3* db, const std::string& schema, const std::string& docs_name,
                       std::string* spelled, std::vector<std::string>* args) {
  const std::string module = kLeavesModule;
  // Names are matched as SQLite matches them: ASCII letters in any case.
  char* sql = sqlite3_mprintf(
      "SELECT sql, name FROM \"%w\".sqlite_schema WHERE type = 'table' AND name = ?1 COLLATE NOCASE",
      schema.c_str());
  if (sql == nullptr) return Status::NoMemory();
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr);
  sqlite3_free(sql);
  if (rc != SQLITE_OK) {
    return Status::Native(StatusCode::kIOError, rc, module + ": cannot read the schema: " +
                                                        sqlite3_errmsg(db));
  }
  // Finalized however this ends: copying the row may throw.
  const std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> finalize(stmt, sqlite3_finalize);
  sqlite3_bind_text(stmt, 1, docs_name.c_str(), -1, SQLITE_TRANSIENT);
  std::string text;
  rc = sqlite3_step(stmt);
  if (rc == SQLITE_ROW && sqlite3_column_text(stmt, 0) != nullptr && sqlite3_column_text(stmt, 1) != nullptr) {
    text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
    *spelled = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 1));
  }
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
constexpr int kIdxLeafPrefixList = 8;  // ... given as a whole IN list

// The docs table as a leaves table last found it: its options and its
// store. Cursors hold the one they scan, so a docs table dropped or
// created anew in the middle of a scan does not pull it from under them.
struct DocsView {
  DocsOptions options;
  Bytes prefix;
  OpenedStore opened;
  std::unique_ptr<Docs> docs;
};

struct LeavesTable : sqlite3_vtab {
  LeavesTable() : sqlite3_vtab{} {}
  sqlite3* db = nullptr;
  std::shared_ptr<ConnectionRegistry> registry;
  std::string schema;
  std::string name;
  std::string docs_name;
  // Null when the docs table could not be found at the last try: a leaves
  // table outlives its docs table's DROP or rename, and must still connect
  // so that it can be dropped itself.
  std::shared_ptr<DocsView> view;
  uint64_t view_generation = 0;  // registry->generation() when `view` was found

  // xCreate refuses a docs table it cannot read; xConnect only declares the
  // table, and each scan finds the docs table as it is then (view_now()).
  Status open(sqlite3* d, const std::shared_ptr<ConnectionRegistry>& reg, int argc,
              const char* const* argv, bool create) {
    db = d;
    registry = reg;
    schema = argv[1];
    name = argv[2];
    const std::string module = kLeavesModule;
    if (argc != 4) {
      return Status::InvalidArgument(module + ": expected one argument, the tuplekv_docs table");
    }
    const std::string_view given = argv[3];
    const size_t b = given.find_first_not_of(" \t\r\n");
    const size_t e = given.find_last_not_of(" \t\r\n");
    docs_name = b == std::string::npos ? std::string() : dequote(given.substr(b, e - b + 1));
    if (create) TUPLEKV_RETURN_IF_ERROR(find_docs());
    const int rc = sqlite3_declare_vtab(
        db,
        // Keyed by the stored key, which SQLite reads to drop the second copy
        // of a row when it splits an OR into scans (a rowid table would ask
        // for a rowid a leaf does not have).
        "CREATE TABLE x(id, path, key, type, value, raw HIDDEN, prefix HIDDEN, PRIMARY KEY(raw)) "
        "WITHOUT ROWID");
    if (rc != SQLITE_OK) {
      return Status::Native(StatusCode::kInternal, rc, module + ": cannot declare the table");
    }
    sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
    return Status::OK();
  }

  // The docs table as it is now. Found again after any docs table was
  // created, dropped or renamed on this connection since the last time
  // (another connection's schema change makes SQLite connect this table
  // anew).
  Result<std::shared_ptr<DocsView>> view_now() {
    if (view == nullptr || view_generation != registry->generation()) {
      TUPLEKV_RETURN_IF_ERROR(find_docs());
    }
    return view;
  }

  // `s` as this table reports it: damaged bytes name the store they came
  // from, as the other modules' errors do.
  Status error(const Status& s) const {
    if (s.code() == StatusCode::kCorruption) return with_store_context(s, kLeavesModule, docs_name);
    // Finding the docs table names the module already.
    if (std::string_view(s.message()).starts_with(std::string(kLeavesModule) + ": ")) return s;
    return s.with_context(kLeavesModule);
  }

 private:
  Status find_docs() {
    view = nullptr;
    const uint64_t generation = registry->generation();
    auto found = std::make_shared<DocsView>();
    std::string spelled;
    std::vector<std::string> args;
    TUPLEKV_RETURN_IF_ERROR(docs_definition(db, schema, docs_name, &spelled, &args));
    std::vector<const char*> ptrs;
    for (const std::string& a : args) ptrs.push_back(a.c_str());
    TUPLEKV_RETURN_IF_ERROR(parse_docs_options(spelled, static_cast<int>(ptrs.size()),
                                               ptrs.data(), &found->options));
    TUPLEKV_RETURN_IF_ERROR(subspace_prefix(kLeavesModule, found->options.keyspace.subspace, &found->prefix));
    TUPLEKV_RETURN_IF_ERROR(open_store(db, registry.get(), schema, spelled, "",
                                       found->options.keyspace.memory, false, &found->prefix,
                                       &found->opened));
    found->docs = std::make_unique<Docs>(found->opened.store.get(), found->prefix, found->options.mode);
    view = std::move(found);
    view_generation = generation;
    return Status::OK();
  }

};

struct LeavesCursor : sqlite3_vtab_cursor {
  LeavesCursor() : sqlite3_vtab_cursor{} {}
  LeavesTable* table() const { return static_cast<LeavesTable*>(pVtab); }

  Status filter(int idx_num, int argc, sqlite3_value** argv) {
    LeavesTable* t = table();
    eof_ = true;
    TUPLEKV_ASSIGN_OR_RETURN(std::shared_ptr<DocsView> now, t->view_now());
    if (now != view_) {
      // The scans belong to the old view's store.
      cur_ = nullptr;
      scan_.reset();
      sub_.reset();
      view_ = std::move(now);
    }
    ids_.clear();
    id_pos_ = 0;
    full_ = false;
    have_path_ = false;
    exact_ = false;
    check_prefix_ = false;
    doc_started_.clear();
    prefix_texts_.clear();
    prefix_checks_.clear();
    int arg = 0;
    if ((idx_num & kIdxLeafId) != 0) {
      sqlite3_value* v = argv[arg++];
      if (sqlite3_value_type(v) == SQLITE_NULL || view_->options.mode == DocsMode::kMerge) {
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
      std::vector<JsonPath> paths;
      if (bit == kIdxLeafPrefix && (idx_num & kIdxLeafPrefixList) != 0) {
        // The whole IN list at once: value by value, SQLite would return a
        // leaf under two of the prefixes twice.
        sqlite3_value* x = nullptr;
        int rc = sqlite3_vtab_in_first(v, &x);
        for (; rc == SQLITE_OK && x != nullptr; rc = sqlite3_vtab_in_next(v, &x)) {
          if (sqlite3_value_type(x) == SQLITE_NULL) continue;  // matches nothing
          TUPLEKV_RETURN_IF_ERROR(add_prefix(x, &paths));
        }
        if (rc != SQLITE_OK && rc != SQLITE_DONE) {
          return Status::Native(rc == SQLITE_NOMEM ? StatusCode::kNoMemory : StatusCode::kInternal, rc,
                                "tuplekv_leaves: cannot read the IN list");
        }
        if (paths.empty()) return Status::OK();
      } else {
        if (sqlite3_value_type(v) == SQLITE_NULL) return Status::OK();
        if (bit == kIdxLeafPrefix) {
          TUPLEKV_RETURN_IF_ERROR(add_prefix(v, &paths));
        } else {
          paths.emplace_back();
          TUPLEKV_RETURN_IF_ERROR(model::parse_json_path(text_view(v), &paths.back()));
        }
      }
      if (have_path_ || paths.size() > 1) {
        // A path and a prefix: the leaf at `path` if it lies under
        // `prefix`. Several prefixes: every leaf of the documents, kept if
        // it lies under one of them. Filtered per row.
        for (const JsonPath& p : paths) {
          Bytes& packed = prefix_checks_.emplace_back();
          TUPLEKV_RETURN_IF_ERROR(model::pack_path(p, &packed));
        }
        check_prefix_ = true;
        continue;
      }
      path_ = paths[0];
      have_path_ = true;
      exact_ = bit == kIdxLeafPath;
    }
    if ((idx_num & kIdxLeafId) == 0) {
      if (view_->options.mode == DocsMode::kMerge) {
        ids_.emplace_back();
      } else {
        full_ = true;
      }
    }
    eof_ = false;
    if (full_) {
      const KeyRange all{view_->prefix, *strinc(view_->prefix)};
      ScanOptions o;
      if (scan_ == nullptr) {
        TUPLEKV_ASSIGN_OR_RETURN(scan_, view_->opened.store->scan(all, o));
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
        if (view_->options.mode == DocsMode::kMerge) {
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
        if (prefix_texts_.size() == 1) {
          result_text(ctx, prefix_texts_[0]);
        } else if (const int k = longest_prefix(); k >= 0) {
          // Under an IN list (one check per text): the longest prefix the
          // leaf lies under.
          result_text(ctx, prefix_texts_[static_cast<size_t>(k)]);
        } else {
          // A leaf lies under many prefixes.
          s = parameter_not_scanned(t->name, "prefix", "<path>");
        }
        break;
      default:
        s = Status::Internal("tuplekv internal error: column " + std::to_string(i));
    }
    if (!s.ok()) {
      const Status e = t->error(s);
      set_result_error(ctx, e);
      return sqlite_code(e);
    }
    return SQLITE_OK;
  }

 private:
  // Decodes the key under the cursor into the row's parts.
  Status split_row() {
    const BytesView key = cur_->key();
    BytesView doc, rest;
    TUPLEKV_RETURN_IF_ERROR(split_doc(view_->options.mode, key.substr(view_->prefix.size()), &doc, &rest));
    doc_.assign(doc);
    if (view_->options.mode == DocsMode::kDocuments) {
      leaf_.assign(cur_->value());
    } else {
      BytesView leaf;
      TUPLEKV_RETURN_IF_ERROR(model::split_merge_key(rest, &rest, &leaf));
      leaf_.assign(leaf);
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

  // Parses a prefix argument and keeps its text, the column's reading.
  // (Errors get the module's name where xFilter reports them.)
  Status add_prefix(sqlite3_value* v, std::vector<JsonPath>* paths) {
    TUPLEKV_RETURN_IF_ERROR(model::parse_json_path(text_view(v), &paths->emplace_back()));
    prefix_texts_.emplace_back(text_view(v));
    return Status::OK();
  }

  bool under_prefix() const { return longest_prefix() >= 0; }

  // Which prefix check the current row lies under (the longest), or -1.
  int longest_prefix() const {
    int best = -1;
    for (size_t k = 0; k < prefix_checks_.size(); ++k) {
      const BytesView p = prefix_checks_[k];
      if (!has_tuple_prefix(node_path_, p)) continue;
      if (best < 0 || p.size() > prefix_checks_[static_cast<size_t>(best)].size()) best = static_cast<int>(k);
    }
    return best;
  }

  // Moves to the next document and opens the scan of its path.
  Status next_document() {
    for (;;) {
      Bytes doc;
      if (full_) {
        if (!doc_started_.empty()) {
          Bytes k;
          view_->docs->subtree_key(doc_started_, {}, &k);
          TUPLEKV_RETURN_IF_ERROR(scan_->rescan(KeyRange{tuple_prefix_end(k), *strinc(view_->prefix)}));
        }
        if (!scan_->valid()) {
          TUPLEKV_RETURN_IF_ERROR(scan_->status());
          eof_ = true;
          doc_started_.clear();
          return Status::OK();
        }
        BytesView d, rest;
        TUPLEKV_RETURN_IF_ERROR(
            split_doc(DocsMode::kDocuments, scan_->key().substr(view_->prefix.size()), &d, &rest));
        // As in docs_vtab.cc: a key past the last document's that starts
        // with its id again is damage, and would stand the scan there.
        if (!doc_started_.empty() && d == BytesView(doc_started_)) return damaged_after(d);
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
      if (have_path_) TUPLEKV_RETURN_IF_ERROR(view_->docs->resolve(doc, path_, &base_path_, &resolved));
      if (!resolved) continue;
      Bytes key;
      view_->docs->subtree_key(doc, base_path_, &key);
      const KeyRange r =
          view_->options.mode == DocsMode::kDocuments ? KeyRange{key, tuple_prefix_end(key)} : range(key);
      if (sub_ == nullptr) {
        TUPLEKV_ASSIGN_OR_RETURN(sub_, view_->opened.store->scan(r, ScanOptions()));
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

  std::shared_ptr<DocsView> view_;  // before the scans: they use its store
  bool eof_ = true;
  bool full_ = false;
  bool have_path_ = false;
  bool exact_ = false;
  bool check_prefix_ = false;
  JsonPath path_;
  std::vector<Bytes> prefix_checks_;        // packed prefix paths each row is checked against
  std::vector<std::string> prefix_texts_;  // the prefix arguments as given
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

int leaves_init(sqlite3* db, void* aux, int argc, const char* const* argv, sqlite3_vtab** out,
                char** err, bool create) noexcept {
  return guard_create(err, [&] {
    const auto* data = static_cast<const ModuleData*>(aux);
    auto table = std::make_unique<LeavesTable>();
    const Status s = table->open(db, data->registry, argc, argv, create);
    if (!s.ok()) return set_create_error(err, s);
    *out = table.release();
    return SQLITE_OK;
  });
}

int leaves_create(sqlite3* db, void* aux, int argc, const char* const* argv, sqlite3_vtab** out,
                  char** err) noexcept {
  return leaves_init(db, aux, argc, argv, out, err, true);
}

int leaves_connect(sqlite3* db, void* aux, int argc, const char* const* argv, sqlite3_vtab** out,
                   char** err) noexcept {
  return leaves_init(db, aux, argc, argv, out, err, false);
}

int leaves_best_index(sqlite3_vtab* vtab, sqlite3_index_info* info) noexcept {
  return guard_vtab(vtab, [&] {
    static const int kColumns[] = {kLeafId, kLeafPath, kLeafPrefix};
    static const int kBits[] = {kIdxLeafId, kIdxLeafPath, kIdxLeafPrefix};
    static const char* const kNames[] = {"id", "path", "prefix"};
    int idx_num = 0;
    const int rc = plan_equalities(info, kColumns, kBits, kNames, 3, kIdxLeafId, kIdxLeafPrefix, &idx_num);
    for (int i = 0; rc == SQLITE_OK && i < info->nConstraint; ++i) {
      if (info->aConstraint[i].iColumn == kLeafPrefix && info->aConstraintUsage[i].argvIndex > 0 &&
          sqlite3_vtab_in(info, i, -1)) {
        sqlite3_vtab_in(info, i, 1);  // the whole list in one xFilter call
        idx_num |= kIdxLeafPrefixList;
        info->idxNum = idx_num;
      }
    }
    // A path or prefix alone still reads every document: rows, not one.
    if ((idx_num & kIdxLeafId) != 0 && (idx_num & kIdxLeafPath) == 0) info->estimatedRows = 100;
    if ((idx_num & kIdxLeafId) != 0) info->idxFlags &= ~SQLITE_INDEX_SCAN_UNIQUE;
    return rc;
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
    return s.ok() ? SQLITE_OK : set_vtab_error(cur->pVtab, c->table()->error(s));
  });
}

int leaves_next(sqlite3_vtab_cursor* cur) noexcept {
  return guard_vtab(cur->pVtab, [&] {
    auto* c = static_cast<LeavesCursor*>(cur);
    const Status s = c->next();
    return s.ok() ? SQLITE_OK : set_vtab_error(cur->pVtab, c->table()->error(s));
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
    /* xCreate       */ leaves_create,
    /* xConnect      */ leaves_connect,
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

}  // namespace

int register_leaves_module(sqlite3* db, char** err) {
  return register_module(db, kLeavesModule, &kLeavesModuleDef, err);
}

}  // namespace tuplekv::ext::docs
