// Helpers shared by tuplekv_docs and tuplekv_leaves (see docs_shared.h).
#include "ext/docs_shared.h"

#include <string>
#include <vector>

#include "core/model/sql_any.h"
#include "core/subspace.h"
#include "core/tuple.h"
#include "ext/index_planner.h"
#include "ext/module_args.h"
#include "ext/values.h"

namespace tuplekv::ext::docs {
namespace {

int set_idx_str(sqlite3_index_info* info, const std::string& s) {
  if (s.empty()) return SQLITE_OK;
  info->idxStr = sqlite3_mprintf("%s", s.c_str());
  if (info->idxStr == nullptr) return SQLITE_NOMEM;
  info->needToFreeIdxStr = 1;
  return SQLITE_OK;
}

}  // namespace


Status parse_docs_options(const std::string& table, int argc, const char* const* argv,
                          DocsOptions* out) {
  const std::string module = kDocsModule;
  std::vector<ModuleOption> opts;
  TUPLEKV_RETURN_IF_ERROR(parse_module_options(module, argc, argv, &opts));
  TUPLEKV_RETURN_IF_ERROR(take_keyspace_options(module, table, &opts, &out->keyspace));
  for (const ModuleOption& o : opts) {
    if (o.name == "mode") {
      if (sqlite3_stricmp(o.value.c_str(), "merge") == 0) {
        out->mode = model::DocsMode::kMerge;
      } else if (sqlite3_stricmp(o.value.c_str(), "documents") == 0) {
        out->mode = model::DocsMode::kDocuments;
      } else {
        return Status::InvalidArgument(module + ": mode must be documents or merge, not '" +
                                       o.value + "'");
      }
    } else if (o.name == "fdb_limits") {
      TUPLEKV_RETURN_IF_ERROR(parse_bool_option(module, o, &out->fdb_limits));
    } else if (o.name == "cache") {
      TUPLEKV_RETURN_IF_ERROR(parse_bool_option(module, o, &out->cache));
    } else {
      return Status::InvalidArgument(module + ": unknown option '" + o.written + "'");
    }
  }
  return Status::OK();
}

Status open_store(sqlite3* db, ConnectionRegistry* registry, const std::string& schema,
                  const std::string& name, const std::string& declaration, bool memory, bool create,
                  Bytes* prefix, OpenedStore* out) {
  registry->sweep();
  if (memory) {
    ConnectionRegistry::MemoryTable m = create ? registry->create_memory(schema, name, *prefix, declaration)
                                               : registry->connect_memory(schema, name, *prefix, declaration);
    out->store = std::move(m.store);
    *prefix = std::move(m.prefix);
    return Status::OK();
  }
  if (create) TUPLEKV_RETURN_IF_ERROR(SqliteStore::create_table(db, schema, name));
  // Shared with the docs table's other readers (ConnectionRegistry::sqlite_store).
  TUPLEKV_ASSIGN_OR_RETURN(std::shared_ptr<SqliteStore> s, registry->sqlite_store(schema, name, create));
  out->sqlite_store = s.get();
  out->store = std::move(s);
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

Status damaged_after(BytesView doc) {
  return Status::Corruption("a key goes on from the id " + to_hex(doc) + " with 0xff");
}

Status split_doc(model::DocsMode mode, BytesView rest, BytesView* doc, BytesView* after) {
  if (mode == model::DocsMode::kMerge) {
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

int plan_equalities(sqlite3_index_info* info, const int* columns, const int* bits,
                    const char* const* names, int n, int id_bit, int parameter_bits, int* idx_num) {
  std::string idx_str;
  int argv = 0;
  *idx_num = 0;
  for (int k = 0; k < n; ++k) {
    for (int i = 0; i < info->nConstraint; ++i) {
      const auto& c = info->aConstraint[i];
      if (!c.usable || c.iColumn != columns[k] || c.op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
      // id and path keys are exact bytes; a query parameter is a value.
      if ((bits[k] & parameter_bits) == 0 && !compares_binary(info, i)) continue;
      info->aConstraintUsage[i].argvIndex = ++argv;
      // SQLite re-checks id (2 = 2.0 and the like); a path is exact.
      info->aConstraintUsage[i].omit = bits[k] == id_bit ? 0 : 1;
      *idx_num |= bits[k];
      if (!idx_str.empty()) idx_str += ' ';
      idx_str += names[k];
      break;
    }
    if ((bits[k] & parameter_bits) == 0 || (*idx_num & bits[k]) != 0) continue;
    for (int i = 0; i < info->nConstraint; ++i) {
      const auto& c = info->aConstraint[i];
      if (c.iColumn == columns[k] && c.op == SQLITE_INDEX_CONSTRAINT_EQ) return SQLITE_CONSTRAINT;
    }
  }
  const bool by_id = (*idx_num & id_bit) != 0;
  const bool by_path = *idx_num != 0 && *idx_num != id_bit;
  info->estimatedRows = by_id ? 1 : 1000;
  info->estimatedCost = by_id ? (by_path ? 5.0 : 10.0) : (by_path ? 5000.0 : 100000.0);
  if (by_id) info->idxFlags |= SQLITE_INDEX_SCAN_UNIQUE;
  info->idxNum = *idx_num;
  return set_idx_str(info, idx_str);
}

int no_rowid(sqlite3_vtab_cursor* cur, sqlite3_int64*) noexcept {
  return set_vtab_error(cur->pVtab, Status::Internal("tuplekv internal error: no rowid"));
}

namespace {

void destroy_module_data(void* p) noexcept { delete static_cast<ModuleData*>(p); }

}  // namespace

int register_module(sqlite3* db, const char* name, const sqlite3_module* m, char** err) {
  auto* data = new ModuleData{ConnectionRegistry::of(db)};
  const int rc = sqlite3_create_module_v2(db, name, m, data, destroy_module_data);
  if (rc != SQLITE_OK && err != nullptr) {
    *err = sqlite3_mprintf("tuplekv: cannot register module %s", name);
  }
  return rc;
}

}  // namespace tuplekv::ext::docs
