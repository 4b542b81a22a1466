// The probe behind limit_pushdown_allowed() (the why is in the header).
//
// The probe module is eponymous and only ever planned, never run: its
// xBestIndex notes whether a LIMIT was offered, and its xOpen refuses, so
// no cursor method is reachable. It lives on a private :memory: connection
// that is closed before the probe returns, so no connection of the
// application ever sees it.
#include "ext/limit_pushdown.h"

#include <atomic>
#include <optional>

#include "ext/sqlite_api.h"

namespace tuplekv::ext {
namespace {

// -1: no override; 0 or 1: LimitPushdownOverride's answer.
std::atomic<int> g_override{-1};

struct ProbeVtab : sqlite3_vtab {
  bool* limit_offered;
};

int probe_connect(sqlite3* db, void* aux, int, const char* const*, sqlite3_vtab** out,
                  char**) noexcept {
  const int rc = sqlite3_declare_vtab(db, "CREATE TABLE x(a, b)");
  if (rc != SQLITE_OK) return rc;
  auto* vtab = static_cast<ProbeVtab*>(sqlite3_malloc(sizeof(ProbeVtab)));
  if (vtab == nullptr) return SQLITE_NOMEM;
  *static_cast<sqlite3_vtab*>(vtab) = sqlite3_vtab{};
  vtab->limit_offered = static_cast<bool*>(aux);
  *out = vtab;
  return SQLITE_OK;
}

int probe_disconnect(sqlite3_vtab* vtab) noexcept {
  sqlite3_free(vtab);
  return SQLITE_OK;
}

int probe_best_index(sqlite3_vtab* vtab, sqlite3_index_info* info) noexcept {
  for (int i = 0; i < info->nConstraint; ++i) {
    if (info->aConstraint[i].op == SQLITE_INDEX_CONSTRAINT_LIMIT) {
      *static_cast<ProbeVtab*>(vtab)->limit_offered = true;
    }
  }
  info->estimatedCost = 1;
  return SQLITE_OK;
}

int probe_open(sqlite3_vtab*, sqlite3_vtab_cursor**) noexcept { return SQLITE_ERROR; }

sqlite3_module make_probe_module() {
  sqlite3_module m{};
  m.iVersion = 0;
  m.xCreate = nullptr;  // eponymous-only
  m.xConnect = probe_connect;
  m.xBestIndex = probe_best_index;
  m.xDisconnect = probe_disconnect;
  m.xOpen = probe_open;
  return m;
}

const sqlite3_module kProbeModule = make_probe_module();

// Prepares `sql`: whether the probe's xBestIndex (which sets *seen) was
// offered a LIMIT, or nullopt if `sql` could not be prepared.
std::optional<bool> limit_offered(sqlite3* db, bool* seen, const char* sql) {
  *seen = false;
  sqlite3_stmt* stmt = nullptr;
  const int rc = sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr);
  sqlite3_finalize(stmt);
  if (rc != SQLITE_OK) return std::nullopt;
  return *seen;
}

bool probe() {
  sqlite3* db = nullptr;
  bool seen = false;
  std::optional<bool> plain;
  std::optional<bool> withheld;
  if (sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) == SQLITE_OK &&
      sqlite3_create_module_v2(db, "tuplekv_limit_probe", &kProbeModule, &seen, nullptr) == SQLITE_OK) {
    // The control: a LIMIT with nothing to withhold is offered (3.38+).
    plain = limit_offered(db, &seen, "SELECT a FROM tuplekv_limit_probe LIMIT 1");
    // The question: is it offered although SQLite keeps `a > b` to itself?
    withheld = limit_offered(db, &seen, "SELECT a FROM tuplekv_limit_probe WHERE a > b LIMIT 1");
  }
  sqlite3_close(db);
  return plain == true && withheld == false;
}

}  // namespace

bool limit_pushdown_allowed() {
  const int forced = g_override.load(std::memory_order_relaxed);
  if (forced >= 0) return forced == 1;
  static const bool allowed = probe();
  return allowed;
}

LimitPushdownOverride::LimitPushdownOverride(bool allowed) { g_override.store(allowed ? 1 : 0); }

LimitPushdownOverride::~LimitPushdownOverride() { g_override.store(-1); }

}  // namespace tuplekv::ext
