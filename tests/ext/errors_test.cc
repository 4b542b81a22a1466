// ext/errors.h: Status values become SQLite codes, and no exception crosses
// into SQLite. The guards are then tried the hard way: a workload over every
// module runs again and again with one allocation failing each time (each
// of SQLite's in turn, then each C++ operator new in turn), and must only
// ever end in SQLITE_NOMEM, never in a crash, a leak (LeakSanitizer, in the
// sanitizer build) or an index out of step with its rows.
#include "ext/errors.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdlib>
#include <new>
#include <stdexcept>
#include <string>

#include "ext/tuplekv.h"

// The operator new and delete below pair malloc with free on purpose;
// GCC, seeing both inlined into containers, would warn of a mismatch.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

// Allocation failure on demand, for SQLite's allocator and for C++'s: while
// a countdown is >= 0, the allocation that brings it below 0 fails.
namespace {
long g_sqlite_countdown = -1;
long g_cpp_countdown = -1;
long g_failures = 0;
sqlite3_mem_methods g_sqlite_malloc;

bool fail_now(long* countdown) {
  if (*countdown < 0 || (*countdown)-- != 0) return false;
  ++g_failures;
  return true;
}
void* failing_malloc(int n) { return fail_now(&g_sqlite_countdown) ? nullptr : g_sqlite_malloc.xMalloc(n); }
void* failing_realloc(void* p, int n) {
  return fail_now(&g_sqlite_countdown) ? nullptr : g_sqlite_malloc.xRealloc(p, n);
}
}  // namespace

void* operator new(std::size_t n) {
  if (fail_now(&g_cpp_countdown)) throw std::bad_alloc();
  void* p = std::malloc(n != 0 ? n : 1);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
void* operator new[](std::size_t n) { return operator new(n); }
// The nothrow forms never fail here: the JSON library allocates with them,
// and the checks it compiles into unoptimized builds use such an allocation
// without looking at it. They only share the malloc underneath, so that
// every delete below matches its new.
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return std::malloc(n != 0 ? n : 1); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return std::malloc(n != 0 ? n : 1); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace tuplekv::ext {
namespace {

TEST(ErrorsTest, StatusesBecomeSqliteCodes) {
  EXPECT_EQ(sqlite_code(Status::OK()), SQLITE_OK);
  EXPECT_EQ(sqlite_code(Status::InvalidArgument("x")), SQLITE_ERROR);
  EXPECT_EQ(sqlite_code(Status::NotFound("x")), SQLITE_ERROR);
  EXPECT_EQ(sqlite_code(Status::TypeMismatch("x")), SQLITE_CONSTRAINT_DATATYPE);
  EXPECT_EQ(sqlite_code(Status::Constraint(ConstraintKind::kPrimaryKey, "x")), SQLITE_CONSTRAINT_PRIMARYKEY);
  EXPECT_EQ(sqlite_code(Status::Constraint(ConstraintKind::kNotNull, "x")), SQLITE_CONSTRAINT_NOTNULL);
  EXPECT_EQ(sqlite_code(Status::Constraint(ConstraintKind::kUnique, "x")), SQLITE_CONSTRAINT_UNIQUE);
  EXPECT_EQ(sqlite_code(Status::Corruption("x")), SQLITE_CORRUPT_VTAB);
  EXPECT_EQ(sqlite_code(Status::TooBig("x")), SQLITE_TOOBIG);
  EXPECT_EQ(sqlite_code(Status::NoMemory()), SQLITE_NOMEM);
  EXPECT_EQ(sqlite_code(Status::Internal("x")), SQLITE_INTERNAL);
  // A code SQLite gave travels as it was.
  EXPECT_EQ(sqlite_code(Status::Native(StatusCode::kIOError, SQLITE_FULL, "x")), SQLITE_FULL);
}

TEST(ErrorsTest, DamagedBytesNameTheirTable) {
  const Status s = with_store_context(Status::Corruption("key x'ff' is outside its subspace"), "tuplekv_kv", "t");
  EXPECT_EQ(s.message(), "tuplekv_kv: corrupt store of t: key x'ff' is outside its subspace");
  EXPECT_EQ(sqlite_code(s), SQLITE_CORRUPT_VTAB);
  EXPECT_EQ(with_store_context(Status::InvalidArgument("bad"), "tuplekv_kv", "t").message(), "bad");
}

TEST(ErrorsTest, FailedSqliteCallsKeepTheirCodeAndMessage) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(":memory:", &db), SQLITE_OK);
  // A failure the connection reports: its extended code and message.
  ASSERT_NE(sqlite3_exec(db, "SELECT * FROM nowhere", nullptr, nullptr, nullptr), SQLITE_OK);
  const Status s = sqlite_error(db, SQLITE_ERROR, "reading t");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.native_code(), SQLITE_ERROR);
  EXPECT_EQ(s.message(), "reading t: no such table: nowhere");
  EXPECT_EQ(sqlite_code(s), SQLITE_ERROR);
  // A code the connection did not record: SQLite's text for the code.
  const Status busy = sqlite_error(db, SQLITE_BUSY_SNAPSHOT, "committing");
  EXPECT_EQ(busy.code(), StatusCode::kBusy);
  EXPECT_EQ(sqlite_code(busy), SQLITE_BUSY_SNAPSHOT);
  EXPECT_EQ(busy.message(), std::string("committing: ") + sqlite3_errstr(SQLITE_BUSY_SNAPSHOT));
  EXPECT_EQ(sqlite_error(db, SQLITE_NOMEM, "x").code(), StatusCode::kNoMemory);
  EXPECT_EQ(sqlite_error(db, SQLITE_CORRUPT, "x").code(), StatusCode::kCorruption);
  EXPECT_EQ(sqlite_error(db, SQLITE_CONSTRAINT_UNIQUE, "x").code(), StatusCode::kConstraint);
  EXPECT_EQ(sqlite_error(db, SQLITE_IOERR_READ, "x").code(), StatusCode::kIOError);
  sqlite3_close(db);
}

TEST(ErrorsTest, GuardsTurnExceptionsIntoCodes) {
  sqlite3_vtab vtab{};
  EXPECT_EQ(guard_vtab(&vtab, []() -> int { throw std::bad_alloc(); }), SQLITE_NOMEM);
  EXPECT_EQ(guard_vtab(&vtab, []() -> int { throw std::runtime_error("boom"); }), SQLITE_INTERNAL);
  ASSERT_NE(vtab.zErrMsg, nullptr);
  EXPECT_STREQ(vtab.zErrMsg, "tuplekv internal error: unexpected exception");
  sqlite3_free(vtab.zErrMsg);
  EXPECT_EQ(guard_vtab(&vtab, [] { return SQLITE_OK; }), SQLITE_OK);
  char* err = nullptr;
  EXPECT_EQ(guard_create(&err, []() -> int { throw std::logic_error("boom"); }), SQLITE_INTERNAL);
  ASSERT_NE(err, nullptr);
  EXPECT_STREQ(err, "tuplekv internal error: unexpected exception");
  sqlite3_free(err);
}

// Every module, both stores, reads and writes (ANY and collated keys, an
// implicit key, CHECK constraints, joins, an index rebuild), transactions and savepoints, the
// tuple functions.
constexpr const char* kSetup[] = {
    "CREATE VIRTUAL TABLE k USING tuplekv_kv",
    "CREATE VIRTUAL TABLE t USING tuplekv_table(a INTEGER, b TEXT, c REAL, d ANY, PRIMARY KEY(a), "
    "INDEX ib(b), UNIQUE(d))",
    "CREATE VIRTUAL TABLE tm USING tuplekv_table(a INTEGER, b TEXT, c REAL, PRIMARY KEY(a, b), INDEX ic(c), "
    "store=memory)",
    "CREATE VIRTUAL TABLE m USING tuplekv_multimap(x, y, reverse=1)",
    "CREATE VIRTUAL TABLE c USING tuplekv_cells(layout=both, store=memory)",
    "CREATE VIRTUAL TABLE d USING tuplekv_docs",
    "CREATE VIRTUAL TABLE dl USING tuplekv_leaves(d)",
    "CREATE VIRTUAL TABLE km USING tuplekv_kv(store=memory)",
    "CREATE VIRTUAL TABLE ti USING tuplekv_table(n TEXT COLLATE NOCASE, v ANY, INDEX iv(v))",
    "CREATE VIRTUAL TABLE ta USING tuplekv_table(k ANY, j TEXT COLLATE NOCASE, PRIMARY KEY(k, j), store=memory)",
    "CREATE VIRTUAL TABLE dm USING tuplekv_docs(store=memory)",
    "CREATE VIRTUAL TABLE tc USING tuplekv_table(a INTEGER CHECK (a > 0), b ANY, CHECK (b IS NOT 'no'))",
    "INSERT INTO ti VALUES ('a', 1), ('B', 'x'), ('c', 2.5)",
    "INSERT INTO ta VALUES (1, 'a'), ('1', 'b'), (2.5, 'c'), (x'00', 'd')",
    "INSERT INTO t VALUES (1, 'x', 1.5, 'p'), (2, 'y', 2.5, 3), (3, 'z', NULL, x'00')",
    "INSERT INTO tm VALUES (1, 'x', 1.5), (2, 'y', 2.5)",
    "INSERT INTO k VALUES (tuple_pack(1), x'01'), (tuple_pack(2), x'02')",
    "INSERT INTO d(doc) VALUES ('{\"a\":[1,2,{\"b\":null}],\"c\":\"x\\ny\"}')",
};
constexpr const char* kWorkload[] = {
    "SELECT * FROM t WHERE b > 'a' ORDER BY a DESC",
    "SELECT a, b FROM t WHERE b IN ('x', 'z') OR d = 3",
    "INSERT INTO t VALUES (4, 'w', 4.5, 'q'), (5, 'v', 5.5, 9)",
    "INSERT OR REPLACE INTO t VALUES (1, 'xx', 0.5, 'p')",
    "UPDATE t SET a = a + 10, b = b || '!' WHERE a < 3",
    "DELETE FROM t WHERE c > 2",
    "BEGIN; INSERT INTO tm VALUES (3, 'z', 3.5); SAVEPOINT s; UPDATE tm SET c = c * 2; ROLLBACK TO s; COMMIT",
    "SELECT * FROM tm WHERE c BETWEEN 1 AND 3",
    "INSERT INTO k SELECT tuple_pack(a, b), tuple_pack(c) FROM t",
    "SELECT tuple_unpack(key), hex(value) FROM k WHERE prefix = tuple_pack(1)",
    "DELETE FROM k WHERE key > tuple_pack(2)",
    "INSERT INTO m VALUES ('a', 1), ('a', 2), ('b', 1)",
    "SELECT * FROM m WHERE x = 'a' OR y = 1",
    "INSERT INTO c VALUES (1, 'A', 7), (2, 'B', 'x')",
    "SELECT * FROM c WHERE col = 'A'",
    "UPDATE d SET doc = '5' WHERE id = 1 AND path = '$.a[0]'",
    "SELECT doc FROM d WHERE id = 1",
    "SELECT path, value FROM dl WHERE id = 1",
    "INSERT INTO d(doc) VALUES ('[1,{\"k\\u00e9\":[true,false]}]')",
    "SELECT tuple_pack_json(tuple_unpack(tuple_pack(1, 'a', x'00', tuple_pack(2.5), tuple_bool(1))))",
    "SELECT * FROM tuple_each(tuple_pack(1, 'a', tuple_uuid('00112233445566778899aabbccddeeff')))",
    "INSERT INTO km SELECT key, value FROM k; DELETE FROM km WHERE key < tuple_pack(2)",
    "INSERT INTO ti SELECT b, a FROM t; UPDATE ti SET n = upper(n) WHERE v > 1; DELETE FROM ti WHERE rowid = 2",
    "SELECT * FROM ta WHERE k = 1 OR k > 2; SELECT * FROM ta WHERE j = 'A' ORDER BY k DESC",
    "UPDATE ta SET k = k || '!' WHERE j >= 'b'; INSERT OR IGNORE INTO ta VALUES (1, 'A')",
    "SELECT x.a, y.n FROM t x JOIN ti y ON y.v = x.a",
    "SELECT tuplekv_check('t', 'rebuild')",
    "INSERT INTO tc VALUES (1, 'yes'), (2, 3); INSERT OR IGNORE INTO tc VALUES (0, 1), (3, 'no'); UPDATE OR IGNORE tc SET a = a - 1",
    "INSERT INTO dm(doc) SELECT doc FROM d; UPDATE dm SET doc = '[]' WHERE id = 1 AND path = '$.c'",
    "SELECT doc FROM dm WHERE id = 2 AND path = '$[1]'",
    "SAVEPOINT a; DELETE FROM t; INSERT INTO t VALUES (7, 'q', 1, 2); ROLLBACK TO a; RELEASE a",
    // Writes held back in a transaction, read through, then applied at its
    // commit (SAVEPOINT, not BEGIN: a failure above may leave one open).
    "SAVEPOINT b; INSERT INTO t VALUES (8, 'r', 8.5, 'r8'); SELECT * FROM t WHERE b > 'q' ORDER BY a DESC;"
    "UPDATE t SET c = c + 1 WHERE a = 8; SELECT a, b FROM t WHERE b = 'r'; DELETE FROM t WHERE a = 2; RELEASE b",
};

// Runs every statement of `sql`, stepping through all rows; the first
// failure's code, or SQLITE_OK.
int run(sqlite3* db, const char* sql) {
  const char* tail = sql;
  while (tail != nullptr && *tail != '\0') {
    sqlite3_stmt* stmt = nullptr;
    int rc = sqlite3_prepare_v2(db, tail, -1, &stmt, &tail);
    if (rc != SQLITE_OK) return rc;
    if (stmt == nullptr) break;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
      for (int i = 0; i < sqlite3_column_count(stmt); ++i) (void)sqlite3_column_text(stmt, i);
    }
    sqlite3_finalize(stmt);
    if (rc != SQLITE_DONE) return rc;
  }
  return SQLITE_OK;
}

std::string value(sqlite3* db, const char* sql) {
  sqlite3_stmt* stmt = nullptr;
  std::string out = "(error)";
  if (sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) == SQLITE_OK && sqlite3_step(stmt) == SQLITE_ROW) {
    const unsigned char* t = sqlite3_column_text(stmt, 0);
    out = t != nullptr ? reinterpret_cast<const char*>(t) : "NULL";
  }
  sqlite3_finalize(stmt);
  return out;
}

// Runs the workload once with the n-th allocation failing (per *countdown)
// and checks what it left. False once n is past the workload's last
// allocation.
bool run_failing_at(long n, long* countdown) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(":memory:", &db), SQLITE_OK);
  EXPECT_EQ(tuplekv_register(db), SQLITE_OK);
  for (const char* sql : kSetup) EXPECT_EQ(run(db, sql), SQLITE_OK) << sql;
  g_failures = 0;
  // While armed, nothing here may allocate (a failure would land in the
  // test's own code): the first bad outcome is kept in fixed storage.
  const char* bad_sql = nullptr;
  int bad_rc = SQLITE_OK;
  char bad_message[256] = "";
  *countdown = n;
  for (const char* sql : kWorkload) {
    const int rc = run(db, sql);
    if (rc != SQLITE_OK && (rc & 0xff) != SQLITE_NOMEM && bad_sql == nullptr) {
      bad_sql = sql;
      bad_rc = rc;
      sqlite3_snprintf(sizeof bad_message, bad_message, "%s", sqlite3_errmsg(db));
    }
  }
  *countdown = -1;
  EXPECT_EQ(bad_sql, nullptr) << "allocation " << n << ": " << bad_sql << " -> " << bad_rc << " "
                              << bad_message;
  const bool failed = g_failures > 0;
  run(db, "ROLLBACK");  // a transaction the failure left open
  // Indexes in step with their rows, and everything still usable.
  EXPECT_EQ(value(db, "SELECT tuplekv_check('t')"), "ok") << "allocation " << n;
  EXPECT_EQ(value(db, "SELECT tuplekv_check('tm')"), "ok") << "allocation " << n;
  EXPECT_EQ(value(db, "SELECT tuplekv_check('ti')"), "ok") << "allocation " << n;
  EXPECT_EQ(value(db, "SELECT tuplekv_check('ta')"), "ok") << "allocation " << n;
  EXPECT_EQ(run(db, "INSERT INTO t VALUES (100, 'after', 1, 'after'); SELECT * FROM k; SELECT * FROM m;"
                    "SELECT * FROM c; SELECT doc FROM d"),
            SQLITE_OK)
      << "allocation " << n << ": " << sqlite3_errmsg(db);
  sqlite3_close(db);
  return failed;
}

// TUPLEKV_OOM_STRIDE=1 tries every allocation (over a minute under the
// sanitizers); the default tries every third SQLite allocation and every
// second C++ one, which CI can afford.
long stride(long fallback) {
  const char* s = std::getenv("TUPLEKV_OOM_STRIDE");
  return s != nullptr && std::atol(s) > 0 ? std::atol(s) : fallback;
}

class OutOfMemoryTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    // SQLite takes a new allocator only while shut down.
    sqlite3_shutdown();
    sqlite3_config(SQLITE_CONFIG_GETMALLOC, &g_sqlite_malloc);
    sqlite3_mem_methods failing = g_sqlite_malloc;
    failing.xMalloc = failing_malloc;
    failing.xRealloc = failing_realloc;
    ASSERT_EQ(sqlite3_config(SQLITE_CONFIG_MALLOC, &failing), SQLITE_OK);
    ASSERT_EQ(sqlite3_initialize(), SQLITE_OK);
  }
};

// The loops end at the first n that fails nothing: past the workload's
// last allocation (a run that fails nothing in the middle would end it
// early; EXPECT_GT below makes sure that is not at the start).
TEST_F(OutOfMemoryTest, EverySqliteAllocationFailureEndsInNoMemory) {
  long n = 0;
  for (; run_failing_at(n, &g_sqlite_countdown) && !HasFailure(); n += stride(3)) {
  }
  EXPECT_GT(n, 500);
}

TEST_F(OutOfMemoryTest, EveryCppAllocationFailureEndsInNoMemory) {
  long n = 0;
  for (; run_failing_at(n, &g_cpp_countdown) && !HasFailure(); n += stride(2)) {
  }
  EXPECT_GT(n, 100);
}

}  // namespace
}  // namespace tuplekv::ext
