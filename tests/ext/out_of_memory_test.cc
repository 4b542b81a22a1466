// Allocation failure, one statement at a time. For every module on both
// stores and for the tuple functions, a statement during which SQLite's
// allocator or C++'s operator new fails must end either as it would have
// without the failure or in an error with a readable message; never in a
// crash, a leak or an exception let out into SQLite. Each workload first
// runs without failures, and that run is the reference: a statement that
// succeeded despite a failure returned the same rows and left the same
// content (the schema, every virtual table read through its module, every
// shadow table, tuplekv_check() of every tuplekv_table); one that failed
// left the content as it was before it (before its transaction, where
// SQLite rolled that back); and the rest of the workload, run again without
// failures, ends where the reference ended, COMMIT included.
//
// Injection: SQLite's allocator is wrapped (SQLITE_CONFIG_MALLOC, lookaside
// off so that every allocation reaches it) and the global operator new is
// replaced, both before any database opens. Armed at n, the n-th call fails
// (SQLite gets NULL, C++ std::bad_alloc); in the persistent mode of SQLite's
// own malloc tests every call after it fails too. n runs from 1 until a run
// needs no failure, in steps that keep each case to a fixed number of runs.
// CREATE, RENAME and DROP get the failures of the allocators their module
// lists.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <ostream>
#include <string>
#include <vector>

#include "tests/testutil.h"

// The replacements below pair malloc with free on purpose; GCC, seeing both
// inlined into containers, would warn of a mismatch.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

namespace {

// The n-th call (counted from 1) while armed fails; with `persistent`,
// every call after it too.
struct Injector {
  bool armed = false;
  bool persistent = false;
  long target = 0;
  long calls = 0;
  long failures = 0;

  bool fail() {
    if (!armed) return false;
    ++calls;
    if (calls < target || (calls > target && !persistent)) return false;
    ++failures;
    return true;
  }
};

Injector g_sqlite_faults;
Injector g_cpp_faults;
sqlite3_mem_methods g_system_malloc;

void* faulty_malloc(int n) { return g_sqlite_faults.fail() ? nullptr : g_system_malloc.xMalloc(n); }
void* faulty_realloc(void* p, int n) {
  return g_sqlite_faults.fail() ? nullptr : g_system_malloc.xRealloc(p, n);
}

// SQLite takes an allocator only before sqlite3_initialize(), so it goes in
// before any test opens a database.
class FaultyAllocatorEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    ASSERT_EQ(sqlite3_shutdown(), SQLITE_OK);
    ASSERT_EQ(sqlite3_config(SQLITE_CONFIG_GETMALLOC, &g_system_malloc), SQLITE_OK);
    sqlite3_mem_methods faulty = g_system_malloc;
    faulty.xMalloc = faulty_malloc;
    faulty.xRealloc = faulty_realloc;
    ASSERT_EQ(sqlite3_config(SQLITE_CONFIG_MALLOC, &faulty), SQLITE_OK);
    ASSERT_EQ(sqlite3_config(SQLITE_CONFIG_LOOKASIDE, 0, 0), SQLITE_OK);
    ASSERT_EQ(sqlite3_initialize(), SQLITE_OK);
  }
};

[[maybe_unused]] ::testing::Environment* const g_environment =
    ::testing::AddGlobalTestEnvironment(new FaultyAllocatorEnvironment);

// The nothrow forms never fail: the JSON library's checks in unoptimized
// builds use one such allocation without looking at it.
void* cpp_allocate(std::size_t n, std::size_t alignment, bool may_fail) {
  if (may_fail && g_cpp_faults.fail()) throw std::bad_alloc();
  if (n == 0) n = 1;
  void* p = alignment <= alignof(std::max_align_t)
                ? std::malloc(n)
                : std::aligned_alloc(alignment, (n + alignment - 1) / alignment * alignment);
  if (p == nullptr && may_fail) throw std::bad_alloc();
  return p;
}

}  // namespace

void* operator new(std::size_t n) { return cpp_allocate(n, 0, true); }
void* operator new[](std::size_t n) { return cpp_allocate(n, 0, true); }
void* operator new(std::size_t n, std::align_val_t a) {
  return cpp_allocate(n, std::size_t(a), true);
}
void* operator new[](std::size_t n, std::align_val_t a) {
  return cpp_allocate(n, std::size_t(a), true);
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  return cpp_allocate(n, 0, false);
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  return cpp_allocate(n, 0, false);
}
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return cpp_allocate(n, std::size_t(a), false);
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  return cpp_allocate(n, std::size_t(a), false);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }

namespace tuplekv::testing {
namespace {

// Runs one statement to its end, folding every row into *hash (FNV-1a over
// each value's type and bytes). Allocates nothing of its own, so that it
// can run armed. Fills `message` on failure.
int run_statement(sqlite3* db, const std::string& sql, uint64_t* hash, char (&message)[256]) {
  auto mix = [hash](const void* p, size_t n) {
    const auto* b = static_cast<const unsigned char*>(p);
    for (size_t i = 0; i < n; ++i) *hash = (*hash ^ b[i]) * 0x100000001b3;
  };
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr);
  while (stmt != nullptr && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    for (int i = 0; i < sqlite3_column_count(stmt); ++i) {
      const int type = sqlite3_column_type(stmt, i);
      mix(&type, sizeof type);
      if (type == SQLITE_INTEGER || type == SQLITE_FLOAT) {
        const int64_t v = sqlite3_column_int64(stmt, i);
        const double d = sqlite3_column_double(stmt, i);
        mix(&v, sizeof v);
        mix(&d, sizeof d);
      } else if (type != SQLITE_NULL) {
        mix(sqlite3_column_blob(stmt, i), static_cast<size_t>(sqlite3_column_bytes(stmt, i)));
      }
    }
    mix("\n", 1);
  }
  if (rc == SQLITE_DONE) rc = SQLITE_OK;
  if (rc != SQLITE_OK) {
    rc = sqlite3_extended_errcode(db);
    sqlite3_snprintf(sizeof message, message, "%s", sqlite3_errmsg(db));
  }
  sqlite3_finalize(stmt);
  return rc;
}

// Rows of `sql` as text, or its error: what a query shows of the content.
std::string show(sqlite3* db, const std::string& sql) {
  sqlite3_stmt* stmt = nullptr;
  std::string out;
  int rc = sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr);
  while (stmt != nullptr && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    for (int i = 0; i < sqlite3_column_count(stmt); ++i) out += render_column(stmt, i) + "|";
    out += "\n";
  }
  if (rc != SQLITE_DONE && rc != SQLITE_OK) {
    out += std::string("error: ") + sqlite3_errmsg(db) + "\n";
  }
  sqlite3_finalize(stmt);
  return out;
}

// Everything stored, read back: the schema, then every table of it (virtual
// tables through their module, shadow tables as they are; in an order that
// does not depend on how the rows got there) and the index check of every
// tuplekv_table.
std::string content(sqlite3* db) {
  std::string out = show(db, "SELECT type, name, sql FROM sqlite_schema ORDER BY name");
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db,
                     "SELECT name, sql LIKE '%USING tuplekv_table%' FROM sqlite_schema "
                     "WHERE type = 'table' ORDER BY name",
                     -1, &stmt, nullptr);
  // Inside a transaction a shadow table may lag behind its table (write
  // batching applies at savepoints and commit), by more or less: only the
  // tables themselves are compared then.
  const bool in_transaction = sqlite3_get_autocommit(db) == 0;
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    const std::string name = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
    if (in_transaction && name.ends_with("_kv")) continue;
    out += name + ":\n" + show(db, "SELECT * FROM \"" + name + "\" ORDER BY 1, 2");
    if (sqlite3_column_int(stmt, 1) != 0) out += show(db, "SELECT tuplekv_check('" + name + "')");
  }
  sqlite3_finalize(stmt);
  return out;
}

// The workload run without failures, then `then` (statements that run
// without failures in every run): the statements, the rows each returned,
// the content before each and after the last, and whether each began
// inside a transaction.
struct CleanRun {
  size_t armed = 0;  // statements of the workload; the rest are `then`'s
  std::vector<std::string> statements;
  std::vector<uint64_t> hashes;
  std::vector<std::string> contents;
  std::vector<bool> in_transaction;
};

CleanRun run_clean(const std::string& setup, const std::string& workload,
                   const std::string& then) {
  CleanRun run;
  Db db;
  db.exec(setup);
  run.contents.push_back(content(db.handle()));
  for (const std::string* sql : {&workload, &then}) {
    const char* tail = sql->c_str();
    while (*tail != '\0') {
      sqlite3_stmt* stmt = nullptr;
      const char* start = tail;
      EXPECT_EQ(sqlite3_prepare_v2(db.handle(), start, -1, &stmt, &tail), SQLITE_OK) << start;
      if (stmt == nullptr) break;
      sqlite3_finalize(stmt);
      run.statements.emplace_back(start, tail);
      run.in_transaction.push_back(sqlite3_get_autocommit(db.handle()) == 0);
      uint64_t hash = 0;
      char message[256] = "";
      EXPECT_EQ(run_statement(db.handle(), run.statements.back(), &hash, message), SQLITE_OK)
          << run.statements.back() << ": " << message;
      run.hashes.push_back(hash);
      run.contents.push_back(content(db.handle()));
    }
    if (sql == &workload) run.armed = run.statements.size();
  }
  return run;
}

// A message a user can read: not empty, printable, not SQLite's text for
// success, no longer than a message needs.
bool readable(const char* m) {
  const size_t n = std::strlen(m);
  if (n == 0 || n >= 255 || std::strcmp(m, "not an error") == 0) return false;
  for (size_t i = 0; i < n; ++i) {
    if (static_cast<unsigned char>(m[i]) < 0x20 || m[i] == 0x7f) return false;
  }
  return true;
}

// Runs the workload with `faults` armed at n, checks what it left, then
// runs the rest without failures. Returns whether a failure was injected.
bool run_failing_at(const CleanRun& clean, const std::string& setup, Injector* faults, long n) {
  SCOPED_TRACE("failing at allocation " + std::to_string(n));
  Db db;
  db.exec(setup);
  sqlite3* h = db.handle();
  size_t failed_at = clean.armed, wrong_rows_at = clean.armed;
  int rc = SQLITE_OK;
  char message[256] = "";
  bool escaped = false;
  faults->calls = faults->failures = 0;
  faults->target = n;
  faults->armed = true;
  try {
    for (size_t i = 0; i < clean.armed && failed_at == clean.armed; ++i) {
      uint64_t hash = 0;
      rc = run_statement(h, clean.statements[i], &hash, message);
      if (rc != SQLITE_OK) failed_at = i;
      if (rc == SQLITE_OK && hash != clean.hashes[i] && wrong_rows_at == clean.armed) {
        wrong_rows_at = i;
      }
    }
  } catch (...) {
    escaped = true;
  }
  faults->armed = false;
  const bool injected = faults->failures > 0;
  std::string where = "failing at allocation " + std::to_string(n);
  EXPECT_FALSE(escaped) << where << ": an exception left SQLite";
  if (escaped) return false;
  if (wrong_rows_at != clean.armed) {
    ADD_FAILURE() << where << ": wrong rows from " << clean.statements[wrong_rows_at];
  }
  size_t resume = failed_at;
  if (failed_at < clean.armed) {
    where += ", " + clean.statements[failed_at] + " failed (" + std::to_string(rc) + " " +
             message + ")";
    EXPECT_TRUE(readable(message)) << where;
    // If SQLite rolled back the transaction the statement was in, the
    // workload goes on from that transaction's start.
    if (sqlite3_get_autocommit(h) != 0) {
      while (resume > 0 && clean.in_transaction[resume]) --resume;
    }
  }
  EXPECT_EQ(content(h), clean.contents[resume]) << where;
  for (size_t i = resume; i < clean.statements.size(); ++i) {
    uint64_t hash = 0;
    char again[256] = "";
    EXPECT_EQ(run_statement(h, clean.statements[i], &hash, again), SQLITE_OK)
        << where << "; then " << clean.statements[i] << ": " << again;
    EXPECT_EQ(hash, clean.hashes[i]) << where << "; then wrong rows from " << clean.statements[i];
  }
  if (resume < clean.statements.size()) {
    EXPECT_EQ(content(h), clean.contents.back()) << where << "; then the rest of the workload";
  }
  return injected;
}

// Every case gets at most this many runs per allocator and mode.
#ifdef __SANITIZE_ADDRESS__
constexpr long kRunsPerLoop = 60;
#else
constexpr long kRunsPerLoop = 150;
#endif

// Which allocators fail: a mask.
constexpr unsigned kNone = 0;
constexpr unsigned kSqliteOnly = 1;
constexpr unsigned kCppOnly = 2;
constexpr unsigned kBoth = kSqliteOnly | kCppOnly;

// Runs `setup`, then `workload` with allocation n failing, for every n the
// workload reaches (in steps), for each allocator of `allocators`, transient
// and persistent; then `then`, without failures.
void expect_survives_allocation_failures(const std::string& setup, const std::string& workload,
                                         const std::string& then = "",
                                         unsigned allocators = kBoth) {
  const CleanRun clean = run_clean(setup, workload, then);
  ASSERT_FALSE(::testing::Test::HasFailure()) << "the workload fails without injected failures";
  for (Injector* faults : {&g_sqlite_faults, &g_cpp_faults}) {
    if ((allocators & (faults == &g_sqlite_faults ? kSqliteOnly : kCppOnly)) == 0) continue;
    // The clean run's count of calls sets the step.
    faults->calls = 0;
    faults->target = -1;
    faults->persistent = false;
    {
      Db db;
      db.exec(setup);
      faults->armed = true;
      for (size_t i = 0; i < clean.armed; ++i) {
        uint64_t hash = 0;
        char message[256];
        run_statement(db.handle(), clean.statements[i], &hash, message);
      }
      faults->armed = false;
    }
    const long step = faults->calls / kRunsPerLoop + 1;
    for (bool persistent : {false, true}) {
      SCOPED_TRACE(std::string(faults == &g_sqlite_faults ? "SQLite" : "C++") +
                   (persistent ? " allocator, persistent" : " allocator, transient"));
      faults->persistent = persistent;
      long n = 1;
      while (run_failing_at(clean, setup, faults, n) && !::testing::Test::HasFailure()) n += step;
    }
  }
}

struct Module {
  const char* label;  // test name suffix
  const char* using_clause;
  const char* also;  // created with t: tuplekv_docs gets its tuplekv_leaves view
  const char* fill;
  const char* insert;  // several rows in one statement
  const char* update;  // moves keys
  const char* remove;
  const char* select;  // a range and an IN list
  // The allocators whose failures CREATE, ALTER TABLE ... RENAME and DROP
  // TABLE get.
  unsigned create_faults, rename_faults, drop_faults;
};

// Failures name the module, not its SQL.
void PrintTo(const Module& m, std::ostream* os) { *os << m.label; }

constexpr const char* kKvFill =
    "INSERT INTO t VALUES (tuple_pack(1, 'a'), x'01'), (tuple_pack(2, 'b'), x'02'), "
    "(tuple_pack(3, 'c'), x'03')";
constexpr const char* kKvInsert =
    "INSERT INTO t VALUES (tuple_pack(4, 'd'), x'04'), (tuple_pack(5, 'e'), "
    "tuple_pack(5.5, NULL)), (tuple_pack(6), x'')";
constexpr const char* kKvUpdate = "UPDATE t SET key = tuple_pack(9, key) WHERE key > tuple_pack(1)";
constexpr const char* kKvDelete = "DELETE FROM t WHERE key < tuple_pack(3)";
constexpr const char* kKvSelect =
    "SELECT * FROM t WHERE key BETWEEN tuple_pack(1) AND tuple_pack(3) UNION ALL "
    "SELECT * FROM t WHERE key IN (tuple_pack(1, 'a'), tuple_pack(3, 'c'), tuple_pack(7))";

constexpr const char* kTableFill =
    "INSERT INTO t VALUES (1, 'x', 1.5), (2, 'y', 'two'), (3, 'z', x'03')";
constexpr const char* kTableInsert =
    "INSERT INTO t VALUES (4, 'w', NULL), (5, 'x', 5), (6, 'v', 'six')";
constexpr const char* kTableUpdate = "UPDATE t SET a = a + 10, b = b || '!' WHERE a >= 2";
constexpr const char* kTableDelete = "DELETE FROM t WHERE b IN ('x', 'z')";
constexpr const char* kTableSelect =
    "SELECT * FROM t WHERE a BETWEEN 2 AND 3 UNION ALL SELECT * FROM t WHERE b IN ('x', 'z')";

constexpr const char* kCellsFill =
    "INSERT INTO t VALUES (1, 'A', 10), (1, 'B', 'x'), (2, 'A', 2.5)";
constexpr const char* kCellsInsert =
    "INSERT INTO t VALUES (2, 'B', NULL), (3, 'C', x'00'), ('r', 'A', 4)";
constexpr const char* kCellsUpdate = "UPDATE t SET row = row + 10 WHERE col = 'A'";
// The pair tables hold a DELETE's deletes back and apply them at its last
// one (ext/keyspace_vtab.cc, DELETE BY RANGE): cells as a range clear,
// multimap one by one, as SQLite keeps (a, 1) of the scan's three rows.
constexpr const char* kCellsDelete = "DELETE FROM t WHERE row = 1";
constexpr const char* kCellsSelect =
    "SELECT * FROM t WHERE row BETWEEN 1 AND 2 UNION ALL SELECT * FROM t WHERE col IN ('A', 'C')";

constexpr const char* kMultimapFill =
    "INSERT INTO t VALUES ('a', 1), ('a', 2), ('a', 2.5), ('b', 1)";
constexpr const char* kMultimapInsert = "INSERT INTO t VALUES ('a', 3), ('c', 'x'), (2.5, x'00')";
constexpr const char* kMultimapUpdate = "UPDATE t SET k = k || '!' WHERE v = 1";
constexpr const char* kMultimapDelete = "DELETE FROM t WHERE k = 'a' AND v <> 1";
constexpr const char* kMultimapSelect =
    "SELECT * FROM t WHERE k BETWEEN 'a' AND 'b' UNION ALL SELECT * FROM t WHERE v IN (1, 3)";

constexpr const char* kDocsFill =
    R"(INSERT INTO t(doc) VALUES ('{"a":[1,2]}'), ('["x",{"y":null}]'))";
constexpr const char* kDocsInsert =
    R"(INSERT INTO t(id, doc) VALUES (3, '{"name":"Ada","langs":["en","fr",)"
    R"({"k\u00e9":[true,false,{}]}],"n":{"m":{"o":[[],1.5,-2]}}}'), (4, '"scalar"'))";
constexpr const char* kDocsUpdate =
    "UPDATE t SET id = id + 10 WHERE id <= 2;"
    R"(UPDATE t SET doc = '{"b":[3]}' WHERE id = 11 AND path = '$.a[1]')";
constexpr const char* kDocsDelete =
    "DELETE FROM t WHERE id = 2; DELETE FROM t WHERE id = 1 AND path = '$.a[0]'";
constexpr const char* kDocsSelect =
    "SELECT id, doc FROM t WHERE id IN (1, 2, 5) UNION ALL "
    "SELECT id, doc FROM t WHERE id BETWEEN 1 AND 2 AND path = '$.a';"
    "SELECT id, path, value FROM tl WHERE id IN (1, 2) AND prefix = '$.a'";
constexpr const char* kLeaves = "CREATE VIRTUAL TABLE tl USING tuplekv_leaves(t)";

const Module kModules[] = {
    {"KvSqlite", "tuplekv_kv", "", kKvFill, kKvInsert, kKvUpdate, kKvDelete, kKvSelect,  //
     kBoth, kBoth, kBoth},
    {"KvMemory", "tuplekv_kv(store=memory)", "", kKvFill, kKvInsert, kKvUpdate, kKvDelete,
     kKvSelect, kBoth, kBoth, kBoth},
    {"TableSqlite", "tuplekv_table(a INTEGER, b TEXT, c ANY, PRIMARY KEY(a), INDEX ib(b))", "",
     kTableFill, kTableInsert, kTableUpdate, kTableDelete, kTableSelect, kBoth, kBoth, kBoth},
    {"TableMemory",
     "tuplekv_table(a INTEGER, b TEXT, c ANY, PRIMARY KEY(a), INDEX ib(b), store=memory)", "",
     kTableFill, kTableInsert, kTableUpdate, kTableDelete, kTableSelect,  //
     kBoth, kBoth, kBoth},
    {"CellsSqlite", "tuplekv_cells(layout=both)", "", kCellsFill, kCellsInsert, kCellsUpdate,
     kCellsDelete, kCellsSelect, kBoth, kBoth, kBoth},
    {"CellsMemory", "tuplekv_cells(layout=both, store=memory)", "", kCellsFill, kCellsInsert,
     kCellsUpdate, kCellsDelete, kCellsSelect, kBoth, kBoth, kBoth},
    {"MultimapSqlite", "tuplekv_multimap(k, v, reverse=1)", "", kMultimapFill, kMultimapInsert,
     kMultimapUpdate, kMultimapDelete, kMultimapSelect, kBoth, kBoth, kBoth},
    {"MultimapMemory", "tuplekv_multimap(k, v, reverse=1, store=memory)", "", kMultimapFill,
     kMultimapInsert, kMultimapUpdate, kMultimapDelete, kMultimapSelect,  //
     kBoth, kBoth, kBoth},
    {"DocsSqlite", "tuplekv_docs", kLeaves, kDocsFill, kDocsInsert, kDocsUpdate, kDocsDelete,
     kDocsSelect, kBoth, kBoth, kBoth},
    {"DocsMemory", "tuplekv_docs(store=memory)", kLeaves, kDocsFill, kDocsInsert, kDocsUpdate,
     kDocsDelete, kDocsSelect, kBoth, kBoth, kBoth},
};

class OutOfMemoryTest : public ::testing::TestWithParam<Module> {
 protected:
  static std::string create() {
    return std::string("CREATE VIRTUAL TABLE t USING ") + GetParam().using_clause;
  }
  // t with its first rows (and its view); the workload runs on that.
  static std::string created() {
    return create() + ";" + GetParam().also + ";" + GetParam().fill;
  }
};

// Then the new table takes rows.
TEST_P(OutOfMemoryTest, CreateIsAllOrNothing) {
  const Module& m = GetParam();
  expect_survives_allocation_failures("", create(), std::string(m.also) + ";" + m.fill,
                                      m.create_faults);
}

TEST_P(OutOfMemoryTest, MultiRowInsertIsAllOrNothing) {
  expect_survives_allocation_failures(created(), GetParam().insert);
}

TEST_P(OutOfMemoryTest, UpdateThatMovesKeysIsAllOrNothing) {
  expect_survives_allocation_failures(created(), GetParam().update);
}

TEST_P(OutOfMemoryTest, DeleteIsAllOrNothing) {
  expect_survives_allocation_failures(created(), GetParam().remove);
}

TEST_P(OutOfMemoryTest, RangeAndInListSelectGivesAllItsRowsOrAnError) {
  expect_survives_allocation_failures(created(), GetParam().select);
}

// A failure inside the transaction undoes only its statement (or, if SQLite
// rolls back, the transaction); either way the rest then commits as usual.
// The second UPDATE's writes are still held back by a store that batches
// them when the next statement's savepoint fails to apply them: they must
// survive it.
TEST_P(OutOfMemoryTest, TransactionWithSavepointEndsAsWithoutFailures) {
  const Module& m = GetParam();
  expect_survives_allocation_failures(
      created(), std::string("BEGIN;") + m.insert + "; SAVEPOINT s;" + m.update +
                     "; ROLLBACK TO s;" + m.update + ";" + m.remove + "; COMMIT");
}

TEST_P(OutOfMemoryTest, RenameIsAllOrNothing) {
  expect_survives_allocation_failures(created(), "ALTER TABLE t RENAME TO t2; SELECT * FROM t2",
                                      "", GetParam().rename_faults);
}

// The name is free again after the DROP: a table created under it starts
// empty, whatever store the dropped one had.
TEST_P(OutOfMemoryTest, DropIsAllOrNothing) {
  expect_survives_allocation_failures(created(), "DROP TABLE t", create() + ";" + GetParam().fill,
                                      GetParam().drop_faults);
}

INSTANTIATE_TEST_SUITE_P(Modules, OutOfMemoryTest, ::testing::ValuesIn(kModules),
                         [](const ::testing::TestParamInfo<Module>& info) {
                           return info.param.label;
                         });

TEST(OutOfMemoryFunctionsTest, TupleFunctionsGiveTheirResultOrAnError) {
  expect_survives_allocation_failures(
      "",
      "SELECT tuple_pack(1, 'a', 2.5, x'00ff', NULL, tuple_pack(2, 'b'), tuple_bool(1), "
      "tuple_uuid('00112233445566778899aabbccddeeff'));"
      "SELECT tuple_unpack(tuple_pack(-1, 'é', 1e300, tuple_pack(tuple_float(1.5)))),"
      "       tuple_repr(tuple_pack('CA', 42, tuple_bigint('123456789012345678901234567890')));"
      R"(SELECT tuple_pack_json('[1,"a",{"$bytes":"00ff"},[2.5,null],)"
      R"({"$uuid":"00112233-4455-6677-8899-aabbccddeeff"}]');)"
      "SELECT * FROM tuple_each(tuple_pack(1, 'x', tuple_pack(2)));"
      "SELECT tuple_strinc(x'01ff'), tuple_range_end(tuple_pack(1))");
}

}  // namespace
}  // namespace tuplekv::testing
