#include "ext/memory_registry.h"

#include <mutex>
#include <unordered_map>
#include <vector>

#include "core/tuple.h"
#include "ext/errors.h"
#include "ext/sqlite_store.h"
#include "ext/table_names.h"

namespace tuplekv::ext {

namespace {

// Registries by connection. A registry removes itself when destroyed (the
// last registration of the extension on its connection went away, which
// SQLite does when the connection closes), so a reused sqlite3* address
// never finds a stale one.
std::mutex& registries_mutex() {
  static std::mutex m;
  return m;
}
std::unordered_map<sqlite3*, std::weak_ptr<ConnectionRegistry>>& registries() {
  static auto* map = new std::unordered_map<sqlite3*, std::weak_ptr<ConnectionRegistry>>();
  return *map;
}

std::string lower_ascii(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  }
  return out;
}

// Holder handed to SQLite as a function's user data.
struct RegistryRef {
  std::shared_ptr<ConnectionRegistry> registry;
};

void destroy_ref(void* p) noexcept { delete static_cast<RegistryRef*>(p); }

void stats_function(sqlite3_context* ctx, int argc, sqlite3_value** argv) noexcept {
  guard_function(ctx, [&] {
    auto* ref = static_cast<RegistryRef*>(sqlite3_user_data(ctx));
    if (sqlite3_value_type(argv[0]) != SQLITE_TEXT) {
      set_result_error(ctx, Status::InvalidArgument("tuplekv_stats: argument 1 must be a table name"));
      return;
    }
    bool reset = false;
    if (argc > 1) {
      const auto* what = reinterpret_cast<const char*>(sqlite3_value_text(argv[1]));
      if (what == nullptr || sqlite3_stricmp(what, "reset") != 0) {
        set_result_error(ctx, Status::InvalidArgument("tuplekv_stats: argument 2 must be 'reset'"));
        return;
      }
      reset = true;
    }
    const std::string_view name(reinterpret_cast<const char*>(sqlite3_value_text(argv[0])),
                                static_cast<size_t>(sqlite3_value_bytes(argv[0])));
    ref->registry->sweep();
    std::shared_ptr<ScanStats> s = ref->registry->find_stats(name);
    if (s == nullptr) {
      set_result_error(ctx, Status::InvalidArgument("tuplekv_stats: no tuplekv table " +
                                                    quote_for_message(name, '\'', 200) +
                                                    " is open on this connection"));
      return;
    }
    char* json = sqlite3_mprintf(
        "{\"scans\":%llu,\"ranges\":%llu,\"rows\":%llu,\"writes\":%llu,\"range_clears\":%llu}",
        static_cast<unsigned long long>(s->scans), static_cast<unsigned long long>(s->ranges),
        static_cast<unsigned long long>(s->rows), static_cast<unsigned long long>(s->writes),
        static_cast<unsigned long long>(s->range_clears));
    if (json == nullptr) {
      sqlite3_result_error_nomem(ctx);
      return;
    }
    sqlite3_result_text(ctx, json, -1, sqlite3_free);
    if (reset) *s = ScanStats();
  });
}

}  // namespace

std::shared_ptr<ConnectionRegistry> ConnectionRegistry::of(sqlite3* db) {
  std::lock_guard<std::mutex> lock(registries_mutex());
  std::weak_ptr<ConnectionRegistry>& slot = registries()[db];
  std::shared_ptr<ConnectionRegistry> r = slot.lock();
  if (r == nullptr) {
    r = std::shared_ptr<ConnectionRegistry>(new ConnectionRegistry(db));
    slot = r;
  }
  return r;
}

ConnectionRegistry::~ConnectionRegistry() {
  std::lock_guard<std::mutex> lock(registries_mutex());
  auto it = registries().find(db_);
  // Only our own slot: a newer registry may already sit there if this one
  // outlived a registration (it is found through weak_ptr, so it expired).
  if (it != registries().end() && it->second.expired()) registries().erase(it);
}

std::string ConnectionRegistry::key(std::string_view schema, std::string_view name) {
  std::string k = lower_ascii(schema);
  k.push_back('\0');
  k += lower_ascii(name);
  return k;
}

std::string ConnectionRegistry::declaration_of(int argc, const char* const* argv) {
  // The module name, then each argument; a rename changes neither.
  std::string d = argc > 0 ? argv[0] : "";
  for (int i = 3; i < argc; ++i) {
    d.push_back('\0');
    d += argv[i];
  }
  return d;
}

ConnectionRegistry::MemoryTable ConnectionRegistry::create_memory(const std::string& schema,
                                                                  const std::string& name,
                                                                  const std::string& prefix,
                                                                  const std::string& declaration) {
  ++generation_;
  MemoryEntry& e = memory_[key(schema, name)];
  if (e.uncertain) --uncertain_;
  e = MemoryEntry{schema, name, MemoryTable{std::make_shared<MemoryStore>(), prefix}, false, declaration,
                  0, file_of(schema)};
  if (sqlite3_get_autocommit(db_) == 0) e.table.store->note_made_in_transaction();
  return e.table;
}

ConnectionRegistry::MemoryTable ConnectionRegistry::connect_memory(const std::string& schema,
                                                                   const std::string& name,
                                                                   const std::string& prefix,
                                                                   const std::string& declaration) {
  MemoryEntry& e = memory_[key(schema, name)];
  const bool other_table =
      !declaration.empty() && !e.declaration.empty() && e.declaration != declaration;
  if (e.table.store == nullptr || other_table) {
    if (e.uncertain) --uncertain_;
    e = MemoryEntry{schema, name, MemoryTable{std::make_shared<MemoryStore>(), prefix}, false, declaration,
                    0, file_of(schema)};
  } else if (e.declaration.empty()) {
    e.declaration = declaration;
  }
  return e.table;
}

namespace {

// After xDestroy SQLite calls none of the table's transaction methods, so
// a rollback that brings the table back could not undo what the store
// logged before. SQLite reports an xDestroy failure by its code alone:
// SQLITE_LOCKED reads "database table is locked", as for a table a
// statement holds.
Status refuse_if_undoable(const MemoryStore& store, const std::string& name) {
  if (!store.rollback_could_change()) return Status::OK();
  return Status::Native(StatusCode::kBusy, SQLITE_LOCKED,
                        "cannot drop store=memory table " + name +
                            " inside the transaction that wrote it: a rollback could not undo "
                            "those writes afterwards; COMMIT first");
}

}  // namespace

Status ConnectionRegistry::drop_memory(const std::string& schema, const std::string& name) {
  auto it = memory_.find(key(schema, name));
  if (it == memory_.end()) return Status::OK();
  if (MemoryStore* store = it->second.table.store.get()) {
    TUPLEKV_RETURN_IF_ERROR(refuse_if_undoable(*store, name));
    // Nothing to undo, and no end of the transaction to hear: end it here,
    // so that a table a ROLLBACK brings back starts with no stale marks.
    if (store->in_transaction()) TUPLEKV_RETURN_IF_ERROR(store->commit());
  }
  ++generation_;
  if (it->second.uncertain) return Status::OK();  // a rename marked it already
  it->second.uncertain = true;
  ++uncertain_;
  return Status::OK();
}

Status ConnectionRegistry::rename_memory(const std::string& schema, const std::string& from,
                                         const std::string& to) {
  ++generation_;
  const std::string from_key = key(schema, from);
  const std::string to_key = key(schema, to);
  auto it = memory_.find(from_key);
  if (it == memory_.end()) return Status::OK();
  // Outside an explicit transaction a store still kept under `to` is a
  // dropped table's whose statement has ended: SQLite would not rename onto
  // a table that exists.
  auto held = memory_.find(to_key);
  if (held != memory_.end() && held->second.uncertain &&
      held->second.table.store != it->second.table.store && sqlite3_get_autocommit(db_) == 0) {
    return Status::Native(StatusCode::kBusy, SQLITE_LOCKED,
                          "cannot rename store=memory table " + from + " to " + to +
                              " in the transaction that dropped or renamed the table " + to +
                              ": a rollback could not give each table its rows back; COMMIT first");
  }
  // Everything that allocates first: a rename that fails part way must
  // leave the entries as they were.
  MemoryEntry moved{schema, to, it->second.table, true, it->second.declaration, renames_ + 1,
                    file_of(schema)};
  MemoryEntry& e = memory_[to_key];
  ++renames_;
  if (!it->second.uncertain) {
    it->second.uncertain = true;
    ++uncertain_;
  }
  if (!e.uncertain) ++uncertain_;
  e = std::move(moved);
  return Status::OK();
}

bool ConnectionRegistry::table_exists(const std::string& schema, const std::string& name,
                                      bool* exists) const {
  char* sql = sqlite3_mprintf(
      "SELECT 1 FROM \"%w\".sqlite_master WHERE type='table' AND name=?1 COLLATE NOCASE",
      schema.c_str());
  if (sql == nullptr) return false;
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql, -1, &stmt, nullptr);
  sqlite3_free(sql);
  if (rc != SQLITE_OK) return false;
  sqlite3_bind_text(stmt, 1, name.data(), static_cast<int>(name.size()), SQLITE_STATIC);
  rc = sqlite3_step(stmt);
  *exists = rc == SQLITE_ROW;
  sqlite3_finalize(stmt);
  return rc == SQLITE_ROW || rc == SQLITE_DONE;
}

std::string ConnectionRegistry::file_of(const std::string& schema) const {
  const char* f = sqlite3_db_filename(db_, schema.c_str());
  return f != nullptr ? f : "";
}

void ConnectionRegistry::forget_detached() {
  // DETACH tells no virtual table. A database file detached may be
  // attached again, its memory tables' rows with it; but a schema name
  // attached to another file must not show this one's rows, and an
  // in-memory database (no file name) once detached is gone for good.
  std::erase_if(memory_, [&](const auto& entry) {
    const MemoryEntry& e = entry.second;
    const char* f = sqlite3_db_filename(db_, e.schema.c_str());
    const bool gone = f == nullptr ? e.file.empty() : e.file != f;
    if (gone && e.uncertain) --uncertain_;
    return gone;
  });
  auto detached = [&](const std::string& k) {
    return sqlite3_db_filename(db_, k.substr(0, k.find('\0')).c_str()) == nullptr;
  };
  std::erase_if(sqlite_stores_, [&](const auto& entry) { return detached(entry.first); });
}

void ConnectionRegistry::sweep() {
  forget_detached();
  if (uncertain_ == 0 || sqlite3_get_autocommit(db_) == 0) return;
  std::vector<std::string> gone;
  // The name each store stays under: of those that exist, the latest
  // rename's target (the file comment says why).
  std::map<const MemoryStore*, std::string> keeper;
  for (auto& [k, e] : memory_) {
    if (!e.uncertain) continue;
    bool exists = false;
    if (!table_exists(e.schema, e.name, &exists)) continue;  // schema detached: keep
    if (!exists) {
      gone.push_back(k);
      continue;
    }
    e.uncertain = false;
    --uncertain_;
    auto [slot, first] = keeper.try_emplace(e.table.store.get(), k);
    if (first) continue;
    MemoryEntry& held = memory_.at(slot->second);
    if (e.renamed_to > held.renamed_to) {
      gone.push_back(slot->second);
      slot->second = k;
    } else {
      gone.push_back(k);
    }
  }
  for (const std::string& k : gone) {
    auto it = memory_.find(k);
    if (it->second.uncertain) --uncertain_;
    memory_.erase(it);
  }
}

std::shared_ptr<ScanStats> ConnectionRegistry::stats(const std::string& schema,
                                                     const std::string& name) {
  std::shared_ptr<ScanStats>& s = stats_[key(schema, name)];
  if (s == nullptr) s = std::make_shared<ScanStats>();
  return s;
}

namespace {

// Moves the entry under `from`, if any, to `to` (replacing what was there).
template <typename Map>
void move_entry(Map* map, const std::string& from, const std::string& to) {
  auto it = map->find(from);
  if (it == map->end()) return;
  typename Map::mapped_type entry = std::move(it->second);
  map->erase(it);
  (*map)[to] = std::move(entry);
}

}  // namespace

void ConnectionRegistry::rename_stats(const std::string& schema, const std::string& from,
                                      const std::string& to) {
  ++generation_;
  move_entry(&stats_, key(schema, from), key(schema, to));
}

void ConnectionRegistry::drop_stats(const std::string& schema, const std::string& name) {
  ++generation_;
  stats_.erase(key(schema, name));
}

Result<std::shared_ptr<SqliteStore>> ConnectionRegistry::sqlite_store(const std::string& schema,
                                                                      const std::string& name, bool fresh) {
  std::erase_if(sqlite_stores_, [](const auto& entry) { return entry.second.expired(); });
  std::weak_ptr<SqliteStore>& slot = sqlite_stores_[key(schema, name)];
  if (!fresh) {
    if (std::shared_ptr<SqliteStore> open = slot.lock()) return open;
  }
  if (fresh) ++generation_;
  TUPLEKV_ASSIGN_OR_RETURN(std::unique_ptr<SqliteStore> made, SqliteStore::open(db_, schema, name));
  std::shared_ptr<SqliteStore> store(std::move(made));
  slot = store;
  return store;
}

void ConnectionRegistry::rename_sqlite_store(const std::string& schema, const std::string& from,
                                             const std::string& to) {
  ++generation_;
  move_entry(&sqlite_stores_, key(schema, from), key(schema, to));
}

std::shared_ptr<ScanStats> ConnectionRegistry::find_stats(std::string_view qualified) const {
  TableName table;
  bool found = false;
  if (!resolve_table_name(db_, qualified, &table, &found).ok() || !found) return nullptr;
  auto it = stats_.find(key(table.schema, table.name));
  return it == stats_.end() ? nullptr : it->second;
}

int ConnectionRegistry::register_functions(sqlite3* db, char** err) {
  // Not deterministic (the counters change); innocuous (reading or zeroing
  // counters can do no harm).
  const int flags = SQLITE_UTF8 | SQLITE_INNOCUOUS;
  for (int nargs : {1, 2}) {
    auto* ref = new RegistryRef{ConnectionRegistry::of(db)};
    const int rc = sqlite3_create_function_v2(db, "tuplekv_stats", nargs, flags, ref,
                                              stats_function, nullptr, nullptr, destroy_ref);
    // sqlite3_create_function_v2 calls the destructor itself on failure.
    if (rc != SQLITE_OK) {
      if (err != nullptr) *err = sqlite3_mprintf("tuplekv: cannot register tuplekv_stats");
      return rc;
    }
  }
  return SQLITE_OK;
}

}  // namespace tuplekv::ext
