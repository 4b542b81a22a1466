// tuplekv_kv's table: options, creation and connection, rename and drop,
// and writes (xUpdate). The contract is at the top of kv_vtab.cc.
#include "ext/kv_table.h"

#include <cstring>
#include <string>
#include <utility>

#include "core/move_prefix.h"
#include "core/subspace.h"
#include "core/tuple.h"
#include "ext/batch_rows.h"
#include "ext/errors.h"
#include "ext/module_args.h"
#include "ext/table_storage.h"
#include "ext/values.h"

namespace tuplekv::ext::kv {

BytesView blob_of(sqlite3_value* v) {
  const void* p = sqlite3_value_blob(v);
  const int n = sqlite3_value_bytes(v);
  return p == nullptr ? BytesView() : BytesView(static_cast<const char*>(p), static_cast<size_t>(n));
}

const char* type_name(int type) {
  switch (type) {
    case SQLITE_INTEGER:
      return "INTEGER";
    case SQLITE_FLOAT:
      return "REAL";
    case SQLITE_TEXT:
      return "TEXT";
    case SQLITE_BLOB:
      return "BLOB";
    default:
      return "NULL";
  }
}

namespace {

Status parse_options(int argc, const char* const* argv, const std::string& table, Options* out) {
  std::vector<ModuleOption> opts;
  TUPLEKV_RETURN_IF_ERROR(parse_module_options(kModule, argc - 3, argv + 3, &opts));
  out->subspace = table;
  for (const ModuleOption& o : opts) {
    if (o.name == "subspace") {
      if (o.value.empty()) return Status::InvalidArgument("tuplekv_kv: subspace must not be empty");
      out->subspace = o.value;
      out->subspace_given = true;
    } else if (o.name == "store") {
      if (sqlite3_stricmp(o.value.c_str(), "memory") == 0) {
        out->memory = true;
      } else if (sqlite3_stricmp(o.value.c_str(), "sqlite") == 0) {
        out->memory = false;
      } else {
        return Status::InvalidArgument("tuplekv_kv: store must be sqlite or memory, not '" +
                                       o.value + "'");
      }
    } else if (o.name == "fdb_limits") {
      TUPLEKV_RETURN_IF_ERROR(parse_bool_option(kModule, o, &out->fdb_limits));
    } else {
      return Status::InvalidArgument("tuplekv_kv: unknown option '" + o.written + "'");
    }
  }
  return Status::OK();
}

}  // namespace

Status KvTable::open(sqlite3* d, const std::shared_ptr<ConnectionRegistry>& reg, int argc,
                     const char* const* argv, bool create) {
  db = d;
  registry = reg;
  schema = argv[1];
  name = argv[2];
  TUPLEKV_RETURN_IF_ERROR(parse_options(argc, argv, name, &options));
  Result<Subspace> sub = Subspace::make({TupleValue::string(options.subspace)});
  if (!sub.ok()) {
    return Status::InvalidArgument("tuplekv_kv: subspace '" + options.subspace +
                                   "' is not valid UTF-8");
  }
  prefix = sub->key();

  int rc = sqlite3_declare_vtab(db, kSchema);
  if (rc != SQLITE_OK) {
    return Status::Native(StatusCode::kInternal, rc, "tuplekv_kv: cannot declare the table");
  }
  sqlite3_vtab_config(db, SQLITE_VTAB_CONSTRAINT_SUPPORT, 1);
  // Like fts5 and rtree: reading or writing its own keyspace from a
  // trigger or view can do no harm beyond what the schema's author wrote.
  sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);

  // argv first: the sweep runs a query, and should it fail SQLite may
  // reset the schema, which frees the CREATE statement argv points into.
  const std::string declaration = options.memory ? ConnectionRegistry::declaration_of(argc, argv) : "";
  registry->sweep();
  if (options.memory) {
    ConnectionRegistry::MemoryTable m = create ? registry->create_memory(schema, name, prefix, declaration)
                                               : registry->connect_memory(schema, name, prefix, declaration);
    store = std::move(m.store);
    prefix = std::move(m.prefix);
  } else {
    if (create) TUPLEKV_RETURN_IF_ERROR(SqliteStore::create_table(db, schema, name));
    TUPLEKV_ASSIGN_OR_RETURN(std::unique_ptr<SqliteStore> s, SqliteStore::open(db, schema, name));
    sqlite_store = s.get();
    store = std::shared_ptr<OrderedStore>(std::move(s));
  }
  table_end = *strinc(prefix);  // prefix starts with 02: never all FF
  if (create) registry->drop_stats(schema, name);
  stats = registry->stats(schema, name);

  // LIKE and GLOB read a BLOB as text in the database's encoding; the byte
  // prefix of a pattern only narrows a scan when that encoding is UTF-8.
  TUPLEKV_ASSIGN_OR_RETURN(const bool utf8, database_is_utf8(db));
  PlanColumn key;
  key.name = "key";
  key.encoding = KeyEncoding::kRaw;
  key.exact = true;  // BLOB keys: memcmp is SQLite's order and equality
  key.patterns = utf8;
  key.prefix_name = "prefix";
  shape.columns = {key};
  shape.key_position = {0, -1, -1};
  shape.prefix_of = {-1, -1, 0};
  shape.blob_only = {true};
  shape.unique = true;
  plans = std::make_unique<PlanCache>(shape.columns);
  return Status::OK();
}

Status KvTable::destroy() {
  // The store stays usable until the drop succeeded: on failure SQLite
  // keeps the table (and this object).
  TUPLEKV_RETURN_IF_ERROR(drop_table_storage(registry.get(), db, schema, name, options.memory));
  sqlite_store = nullptr;
  store.reset();
  return Status::OK();
}

Status KvTable::rename(const std::string& to) {
  // Moving keys runs statements; the ALTER must leave changes() as it was.
  const int64_t changes = sqlite3_changes64(db);
  const bool moves_keys = !options.subspace_given && !options.memory;
  if (!options.subspace_given) TUPLEKV_RETURN_IF_ERROR(refuse_name_not_utf8("tuplekv_kv", to));
  if (moves_keys) TUPLEKV_RETURN_IF_ERROR(refuse_key_move_while_reading("tuplekv_kv", name, spare_cursors.open()));
  TUPLEKV_RETURN_IF_ERROR(
      rename_table_storage(registry.get(), db, sqlite_store, schema, name, to, options.memory));
  name = to;
  // A table without subspace= lives under its name, and the rewritten
  // CREATE statement will derive the new one on the next connect: move the
  // keys now, inside the ALTER's transaction. (SQLite gives a module no way
  // to add an argument to its CREATE statement, so the old name cannot be
  // pinned instead.) A memory store is private to its table and the
  // registry remembers its prefix, so its keys stay where they are; moving
  // them could not be undone if the ALTER is rolled back.
  if (moves_keys) {
    Result<Subspace> sub = Subspace::make({TupleValue::string(to)});
    if (!sub.ok()) return Status::InvalidArgument("tuplekv_kv: table name is not valid UTF-8");
    TUPLEKV_RETURN_IF_ERROR(move_keys(sub->key()));
    options.subspace = to;
  }
  return set_changes(db, changes);
}

Status KvTable::move_keys(const Bytes& to) {
  const Status moved = move_prefix(store.get(), prefix, to, options.fdb_limits ? kFdbMaxKey : 0);
  if (moved.code() == StatusCode::kTooBig) {
    return Status::TooBig("tuplekv_kv: cannot rename to " + name + ": " + moved.message() +
                          "; fdb_limits=1 allows 10000");
  }
  TUPLEKV_RETURN_IF_ERROR(moved);
  prefix = to;
  table_end = *strinc(prefix);
  return Status::OK();
}

bool KvTable::check_blob(sqlite3_value* v, const char* column, int on_conflict, int* rc) {
  const int type = sqlite3_value_type(v);
  if (type == SQLITE_BLOB) return true;
  if (type == SQLITE_NULL) {
    // OR IGNORE skips the row: no message to leave behind.
    *rc = on_conflict == SQLITE_IGNORE
              ? SQLITE_CONSTRAINT_NOTNULL
              : fail(Status::Constraint(ConstraintKind::kNotNull,
                                        "NOT NULL constraint failed: " + name + "." + column));
    return false;
  }
  *rc = fail(Status::TypeMismatch(std::string("cannot store ") + type_name(type) +
                                  " value in BLOB column " + name + "." + column));
  // OR IGNORE would swallow a constraint code; a wrong type stays an error.
  if (on_conflict == SQLITE_IGNORE) *rc = SQLITE_MISMATCH;
  return false;
}

bool KvTable::check_limits(BytesView full_key, BytesView value, int* rc) {
  if (!options.fdb_limits) return true;
  if (full_key.size() > kFdbMaxKey) {
    *rc = fail(Status::TooBig("tuplekv_kv: key of " + name + " is " +
                              std::to_string(full_key.size()) +
                              " bytes with its prefix; fdb_limits=1 allows 10000"));
    return false;
  }
  if (value.size() > kFdbMaxValue) {
    *rc = fail(Status::TooBig("tuplekv_kv: value of " + name + " is " +
                              std::to_string(value.size()) + " bytes; fdb_limits=1 allows 100000"));
    return false;
  }
  return true;
}

// A duplicate key under ABORT/FAIL/ROLLBACK (an error naming the table) or
// IGNORE (SQLITE_CONSTRAINT with no message: SQLite skips the row).
int KvTable::conflict(int on_conflict) {
  if (on_conflict == SQLITE_IGNORE) return SQLITE_CONSTRAINT;
  return fail(Status::Constraint(ConstraintKind::kPrimaryKey,
                                 "UNIQUE constraint failed: " + name + ".key"));
}

int KvTable::update(int argc, sqlite3_value** argv) {
  int rc = SQLITE_OK;
  // DELETE: argv[0] is the key SQLite read through xColumn.
  if (argc == 1) {
    if (sqlite3_value_type(argv[0]) != SQLITE_BLOB) return SQLITE_OK;  // no such row
    key_buf.assign(prefix);
    key_buf.append(blob_of(argv[0]));
    const Status s = store->clear(key_buf);
    if (!s.ok()) return fail(s);
    ++stats->writes;
    return SQLITE_OK;
  }
  if (argc != 5) return fail(Status::Internal("tuplekv internal error: xUpdate with " +
                                              std::to_string(argc) + " arguments"));
  const int on_conflict = sqlite3_vtab_on_conflict(db);
  sqlite3_value* new_key = argv[2];
  sqlite3_value* new_value = argv[3];

  if (sqlite3_value_type(argv[0]) == SQLITE_NULL) {  // INSERT
    if (sqlite3_value_type(argv[4]) != SQLITE_NULL) {
      return fail(Status::InvalidArgument(
          "tuplekv_kv: prefix is a query parameter of " + name + ", not a stored column"));
    }
    if (!check_blob(new_key, "key", on_conflict, &rc)) return rc;
    if (!check_blob(new_value, "value", on_conflict, &rc)) return rc;
    key_buf.assign(prefix);
    key_buf.append(blob_of(new_key));
    const BytesView value = blob_of(new_value);
    if (!check_limits(key_buf, value, &rc)) return rc;
    Status s;
    if (on_conflict == SQLITE_REPLACE) {
      s = store->set(key_buf, value);
    } else {
      bool inserted = false;
      s = store->insert(key_buf, value, &inserted);
      if (s.ok() && !inserted) return conflict(on_conflict);
    }
    if (!s.ok()) return fail(s);
    ++stats->writes;
    return SQLITE_OK;
  }

  // UPDATE. Columns the statement does not assign arrive "unchanged"
  // (xColumn skipped them under sqlite3_vtab_nochange); `prefix` always
  // does unless SET names it, which stores nothing and is refused.
  if (sqlite3_value_type(argv[0]) != SQLITE_BLOB) return SQLITE_OK;
  if (!sqlite3_value_nochange(argv[4])) {
    return fail(Status::InvalidArgument(
        "tuplekv_kv: prefix is a query parameter of " + name + ", not a stored column"));
  }
  const bool key_given = !sqlite3_value_nochange(new_key);
  const bool value_given = !sqlite3_value_nochange(new_value);
  if (key_given && !check_blob(new_key, "key", on_conflict, &rc)) return rc;
  if (value_given && !check_blob(new_value, "value", on_conflict, &rc)) return rc;
  key_buf.assign(prefix);
  key_buf.append(blob_of(argv[0]));  // the old key
  const bool key_changed = key_given && blob_of(new_key) != blob_of(argv[0]);

  // The row may be gone: an earlier row of this statement replaced it.
  bool found = false;
  Status s = store->get(key_buf, &old_value_buf, &found);
  if (!s.ok()) return fail(s);
  if (!found) return SQLITE_OK;

  if (!key_changed) {
    if (!value_given) return SQLITE_OK;
    const BytesView value = blob_of(new_value);
    if (!check_limits(key_buf, value, &rc)) return rc;
    s = store->set(key_buf, value);
    if (!s.ok()) return fail(s);
    ++stats->writes;
    return SQLITE_OK;
  }

  key2_buf.assign(prefix);
  key2_buf.append(blob_of(new_key));
  const BytesView value = value_given ? blob_of(new_value) : BytesView(old_value_buf);
  if (!check_limits(key2_buf, value, &rc)) return rc;
  bool taken = false;
  s = store->get(key2_buf, &value_buf, &taken);
  if (!s.ok()) return fail(s);
  if (taken && on_conflict != SQLITE_REPLACE) return conflict(on_conflict);
  s = store->set(key2_buf, value);
  if (!s.ok()) return fail(s);
  s = store->clear(key_buf);
  if (!s.ok()) {
    // Put the new key back as it was, so a failed UPDATE leaves no half
    // move behind (best effort: the store is already failing).
    const Status undo = taken ? store->set(key2_buf, value_buf) : store->clear(key2_buf);
    (void)undo;
    return fail(s);
  }
  stats->writes += 2;
  return SQLITE_OK;
}

}  // namespace tuplekv::ext::kv
