// ext/memory_registry.h: what one connection keeps of its tuplekv tables
// beyond the life of any sqlite3_vtab object.
//
// tuplekv_stats() is held to its definition with cases small enough to
// count by hand: a full scan is one xFilter call and one range reading
// every pair, a point lookup one range reading at most one pair, an IN
// list one xFilter call with a lookup per key, and a write one per pair set
// or cleared. 'reset' hands back the counts it clears; names resolve as
// SQLite resolves an unqualified table (temp, main, then attached); bad
// arguments are refused without touching the counters.
//
// A store=memory table's pairs belong to the connection: they survive
// SQLite disconnecting and reconnecting the table, a committed rename and
// a second load of the extension, and no other connection sees them. A
// committed DROP leaves the store under its name until a sweep outside a
// transaction finds the name gone; closing the connection frees it all.
// (Rolled-back DROP and RENAME are in table_storage_test.cc.)
#include "ext/memory_registry.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdio>
#include <memory>
#include <string>

#include "ext/sqlite_store.h"
#include "tests/testutil.h"

namespace tuplekv::testing {
namespace {

using ext::ConnectionRegistry;

// The counters of a tuplekv_stats() call as "scans ranges rows writes",
// each read by its key from the JSON.
std::string stats(Db& db, const std::string& args) {
  const std::string json = db.value("SELECT tuplekv_stats(" + args + ")");
  return db.value("SELECT format('%d %d %d %d', j ->> 'scans', j ->> 'ranges', j ->> 'rows', "
                  "j ->> 'writes') FROM (SELECT '" + json + "' AS j)");
}

// Three pairs in a store=memory tuplekv_kv, counters cleared.
void make_t(Db& db) {
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE t USING tuplekv_kv(store=memory);"
                      "INSERT INTO t VALUES (x'01', x'aa'), (x'02', x'bb'), (x'03', x'cc')"));
  db.value("SELECT tuplekv_stats('t', 'reset')");
}

TEST(TuplekvStats, IsAJsonObjectOfIntegerCounters) {
  Db db;
  make_t(db);
  // The four counters of the contract, then range_clears, which ScanStats
  // also declares.
  EXPECT_EQ(db.rows("SELECT key, type FROM json_each(tuplekv_stats('t'))"),
            (Rows{{"scans", "integer"}, {"ranges", "integer"}, {"rows", "integer"},
                  {"writes", "integer"}, {"range_clears", "integer"}}));
}

TEST(TuplekvStats, CountsXFilterCallsRangesPairsReadAndPairsWritten) {
  Db db;
  make_t(db);
  db.rows("SELECT key FROM t");
  EXPECT_EQ(stats(db, "'t', 'reset'"), "1 1 3 0");
  db.rows("SELECT value FROM t WHERE key = x'02'");
  EXPECT_EQ(stats(db, "'t', 'reset'"), "1 1 1 0");
  db.rows("SELECT value FROM t WHERE key = x'09'");  // a lookup that finds nothing
  EXPECT_EQ(stats(db, "'t', 'reset'"), "1 1 0 0");
  db.rows("SELECT key FROM t WHERE key >= x'02'");
  EXPECT_EQ(stats(db, "'t', 'reset'"), "1 1 2 0");
  // IN hands every value to one xFilter call, which looks up each key.
  db.rows("SELECT value FROM t WHERE key IN (x'01', x'03', x'09')");
  EXPECT_EQ(stats(db, "'t', 'reset'"), "1 3 2 0");
  // A join filters the inner table once per outer row.
  ASSERT_TRUE(db.exec("CREATE TABLE o(k BLOB); INSERT INTO o VALUES (x'01'), (x'09'), (x'03')"));
  EXPECT_EQ(db.value("SELECT count(*) FROM o CROSS JOIN t ON t.key = o.k"), "2");
  EXPECT_EQ(stats(db, "'t', 'reset'"), "3 3 2 0");

  ASSERT_TRUE(db.exec("INSERT INTO t VALUES (x'04', x'dd'), (x'05', x'ee')"));
  EXPECT_EQ(stats(db, "'t', 'reset'"), "0 0 0 2");
  // A pair not written is not counted.
  ASSERT_TRUE(db.exec("INSERT OR IGNORE INTO t VALUES (x'01', x'ff')"));
  EXPECT_EQ(db.error_code("INSERT INTO t VALUES (x'01', x'ff')"), SQLITE_CONSTRAINT_PRIMARYKEY);
  EXPECT_EQ(stats(db, "'t', 'reset'"), "0 0 0 0");
  // A DELETE reads the pair it clears.
  ASSERT_TRUE(db.exec("DELETE FROM t WHERE key = x'05'"));
  EXPECT_EQ(stats(db, "'t', 'reset'"), "1 1 1 1");
  ASSERT_TRUE(db.exec("UPDATE t SET value = x'00' WHERE key = x'04'"));
  EXPECT_EQ(stats(db, "'t', 'reset'"), "1 1 1 1");
  // A new key is one pair set and one cleared.
  ASSERT_TRUE(db.exec("UPDATE t SET key = x'06' WHERE key = x'04'"));
  EXPECT_EQ(stats(db, "'t', 'reset'"), "1 1 1 2");
  EXPECT_EQ(db.rows("SELECT hex(key), hex(value) FROM t"),
            (Rows{{"01", "AA"}, {"02", "BB"}, {"03", "CC"}, {"06", "00"}}));
}

TEST(TuplekvStats, ResetReturnsTheCountsThenZeroesOnlyThatTable) {
  Db db;
  make_t(db);
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE u USING tuplekv_kv;"
                      "INSERT INTO u VALUES (x'01', x'aa')"));
  db.rows("SELECT * FROM t");
  EXPECT_EQ(stats(db, "'t', 'reset'"), "1 1 3 0");
  EXPECT_EQ(stats(db, "'t'"), "0 0 0 0");
  EXPECT_EQ(stats(db, "'u'"), "0 0 0 1");
  // Reading the counters is not a scan of the table.
  EXPECT_EQ(stats(db, "'u'"), "0 0 0 1");
}

TEST(TuplekvStats, ANameResolvesTempThenMainThenAttached) {
  Db db;
  ASSERT_TRUE(db.exec("ATTACH ':memory:' AS aux;"
                      "CREATE VIRTUAL TABLE aux.t USING tuplekv_kv;"
                      "CREATE VIRTUAL TABLE main.t USING tuplekv_kv(store=memory);"
                      "CREATE VIRTUAL TABLE temp.t USING tuplekv_kv(store=memory);"
                      "INSERT INTO main.t VALUES (x'01', x'aa');"
                      "INSERT INTO temp.t VALUES (x'01', x'aa'), (x'02', x'bb');"
                      "INSERT INTO aux.t VALUES (x'01', x'aa'), (x'02', x'bb'), (x'03', x'cc')"));
  EXPECT_EQ(stats(db, "'main.t'"), "0 0 0 1");
  EXPECT_EQ(stats(db, "'TEMP.T'"), "0 0 0 2");
  EXPECT_EQ(stats(db, "'aux.t'"), "0 0 0 3");
  EXPECT_EQ(stats(db, "'t'"), "0 0 0 2");
  ASSERT_TRUE(db.exec("DROP TABLE temp.t"));
  EXPECT_EQ(stats(db, "'t'"), "0 0 0 1");
  ASSERT_TRUE(db.exec("DROP TABLE main.t"));
  EXPECT_EQ(stats(db, "'t'"), "0 0 0 3");
  // A schema that does not exist is not ignored.
  EXPECT_EQ(db.error("SELECT tuplekv_stats('other.t')"),
            "tuplekv_stats: no tuplekv table 'other.t' is open on this connection");
  ASSERT_TRUE(db.exec("DROP TABLE aux.t"));
  EXPECT_EQ(db.error("SELECT tuplekv_stats('t')"),
            "tuplekv_stats: no tuplekv table 't' is open on this connection");

  // A dot inside a quoted table name: the whole text names it when no
  // schema matches the part before the dot.
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE \"a.b\" USING tuplekv_kv;"
                      "INSERT INTO \"a.b\" VALUES (x'01', x'aa')"));
  EXPECT_EQ(stats(db, "'a.b'"), "0 0 0 1");
  EXPECT_EQ(stats(db, "'main.a.b'"), "0 0 0 1");
}

TEST(TuplekvStats, ATableThatIsNotTuplekvIsAClearError) {
  Db db;
  ASSERT_TRUE(db.exec("CREATE TABLE n(k PRIMARY KEY, v); CREATE VIEW w AS SELECT 1"));
  for (const std::string name : {"n", "w", "main.n", "sqlite_schema", ""}) {
    EXPECT_EQ(db.error("SELECT tuplekv_stats('" + name + "')"),
              "tuplekv_stats: no tuplekv table '" + name + "' is open on this connection");
  }
}

TEST(TuplekvStats, BadArgumentsAreRefusedAndResetNothing) {
  Db db;
  make_t(db);
  db.rows("SELECT * FROM t");
  for (const char* second : {"NULL", "1", "'reset '", "'resets'"}) {
    SCOPED_TRACE(second);
    EXPECT_EQ(db.error(std::string("SELECT tuplekv_stats('t', ") + second + ")"),
              "tuplekv_stats: argument 2 must be 'reset'");
  }
  for (const char* first : {"NULL", "2.5", "x'74'"}) {
    SCOPED_TRACE(first);
    EXPECT_EQ(db.error(std::string("SELECT tuplekv_stats(") + first + ")"),
              "tuplekv_stats: argument 1 must be a table name");
  }
  EXPECT_EQ(db.error("SELECT tuplekv_stats('t', 'reset', 'reset')"),
            "wrong number of arguments to function tuplekv_stats()");
  EXPECT_EQ(stats(db, "'t'"), "1 1 3 0");
}

TEST(TuplekvStats, ARenamedTableKeepsItsCountersAndARecreatedOneStartsAtZero) {
  Db db;
  make_t(db);
  db.rows("SELECT * FROM t");
  ASSERT_TRUE(db.exec("ALTER TABLE t RENAME TO u"));
  EXPECT_EQ(stats(db, "'u'"), "1 1 3 0");
  EXPECT_EQ(db.error("SELECT tuplekv_stats('t')"),
            "tuplekv_stats: no tuplekv table 't' is open on this connection");
  ASSERT_TRUE(db.exec("DROP TABLE u"));
  EXPECT_EQ(db.error("SELECT tuplekv_stats('u')"),
            "tuplekv_stats: no tuplekv table 'u' is open on this connection");
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE u USING tuplekv_kv(store=memory)"));
  EXPECT_EQ(stats(db, "'u'"), "0 0 0 0");
}

// Two connections to one database file.
class TwoConnections : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = ::testing::TempDir() + "memory_registry_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".db";
    remove_files();
  }
  void TearDown() override { remove_files(); }
  void remove_files() {
    for (const char* suffix : {"", "-journal", "-wal", "-shm"}) {
      std::remove((path_ + suffix).c_str());
    }
  }
  std::string path_;
};

TEST_F(TwoConnections, CountersBelongToTheConnectionAndSurviveAReconnect) {
  Db a(path_);
  Db b(path_);
  ASSERT_TRUE(a.exec("CREATE VIRTUAL TABLE d USING tuplekv_kv;"
                     "INSERT INTO d VALUES (x'01', x'aa')"));
  a.rows("SELECT * FROM d");
  // b knows d from the schema but has not opened it yet.
  EXPECT_EQ(b.error("SELECT tuplekv_stats('d')"),
            "tuplekv_stats: no tuplekv table 'd' is open on this connection");
  EXPECT_EQ(b.value("SELECT count(*) FROM pragma_table_info('d')"), "2");  // connects d
  EXPECT_EQ(stats(b, "'d'"), "0 0 0 0");
  EXPECT_EQ(b.value("SELECT hex(value) FROM d"), "AA");
  EXPECT_EQ(stats(b, "'d'"), "1 1 1 0");
  // b's schema change makes a connect d anew; its counts go on.
  ASSERT_TRUE(b.exec("CREATE TABLE bump(x)"));
  a.rows("SELECT * FROM d");
  EXPECT_EQ(stats(a, "'d'"), "2 2 2 1");
}

TEST_F(TwoConnections, MemoryPairsSurviveReconnectsAndAreNotSeenByAnotherConnection) {
  Db a(path_);
  Db b(path_);
  ASSERT_TRUE(a.exec("CREATE VIRTUAL TABLE m USING tuplekv_kv(store=memory);"
                     "INSERT INTO m VALUES (x'01', x'aa'), (x'02', x'bb')"));
  const Rows rows = {{"01", "AA"}, {"02", "BB"}};
  const std::string read = "SELECT hex(key), hex(value) FROM m";
  // b sees the table, empty, and writes its own pairs into it.
  EXPECT_EQ(b.rows(read), Rows{});
  ASSERT_TRUE(b.exec("INSERT INTO m VALUES (x'03', x'cc'); CREATE TABLE bump(x)"));
  EXPECT_EQ(b.rows(read), (Rows{{"03", "CC"}}));
  EXPECT_EQ(a.rows(read), rows);

  // A committed rename, then another reconnect under the new name.
  ASSERT_TRUE(a.exec("ALTER TABLE m RENAME TO n"));
  ASSERT_TRUE(b.exec("DROP TABLE bump"));
  EXPECT_EQ(a.rows("SELECT hex(key), hex(value) FROM n"), rows);
  ASSERT_TRUE(a.exec("INSERT INTO n VALUES (x'04', x'dd')"));
  EXPECT_EQ(a.value("SELECT count(*) FROM n"), "3");
}

TEST(MemoryStore, LoadingTheExtensionAgainKeepsThePairsAndCounters) {
  Db db(":memory:", Load::kLoadExtension);
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE m USING tuplekv_kv(store=memory);"
                      "INSERT INTO m VALUES (x'01', x'aa')"));
  char* err = nullptr;
  ASSERT_EQ(sqlite3_load_extension(db.handle(), TUPLEKV_EXTENSION_PATH, nullptr, &err), SQLITE_OK)
      << (err != nullptr ? err : "");
  sqlite3_free(err);
  EXPECT_EQ(stats(db, "'m'"), "0 0 0 1");
  // A rename connects the table through the second registration.
  ASSERT_TRUE(db.exec("ALTER TABLE m RENAME TO n"));
  EXPECT_EQ(db.rows("SELECT hex(key), hex(value) FROM n"), (Rows{{"01", "AA"}}));
  EXPECT_EQ(stats(db, "'n'"), "1 1 1 1");
}

// The contract's one exception: the name's store is replaced by the
// CREATE, and the rollback cannot bring back the one the DROP gave up.
TEST(MemoryStore, DropAndCreateOfOneNameGiveAnEmptyTableEvenRolledBack) {
  Db db;
  make_t(db);
  const std::string drop_create =
      "BEGIN; DROP TABLE t; CREATE VIRTUAL TABLE t USING tuplekv_kv(store=memory);";
  ASSERT_TRUE(db.exec(drop_create + "COMMIT"));
  EXPECT_EQ(db.value("SELECT count(*) FROM t"), "0");
  ASSERT_TRUE(db.exec("INSERT INTO t VALUES (x'01', x'aa')"));
  ASSERT_TRUE(db.exec(drop_create + "ROLLBACK"));
  EXPECT_EQ(db.value("SELECT count(*) FROM t"), "0");
  ASSERT_TRUE(db.exec("INSERT INTO t VALUES (x'02', x'bb')"));
  EXPECT_EQ(db.rows("SELECT hex(key) FROM t"), (Rows{{"02"}}));
}

TEST(MemoryStore, ClosingTheConnectionFreesTheRegistryAndItsStores) {
  std::weak_ptr<ConnectionRegistry> registry;
  std::weak_ptr<MemoryStore> store;
  {
    Db db;
    make_t(db);
    std::shared_ptr<ConnectionRegistry> r = ConnectionRegistry::of(db.handle());
    registry = r;
    store = r->connect_memory("main", "t", "", "").store;  // the table's own
    ASSERT_FALSE(store.expired());
    EXPECT_EQ(store.lock()->size(), 3u);
    // Every registration on one connection finds the same registry.
    EXPECT_EQ(ConnectionRegistry::of(db.handle()), r);
  }
  EXPECT_TRUE(registry.expired());
  EXPECT_TRUE(store.expired());
}

// xDestroy cannot tell whether the DROP will be rolled back, so the store
// stays until a sweep outside a transaction finds the name gone.
TEST(Sweep, ForgetsADroppedTableOnlyOutsideATransaction) {
  Db db;
  make_t(db);
  std::shared_ptr<ConnectionRegistry> registry = ConnectionRegistry::of(db.handle());
  std::weak_ptr<MemoryStore> store = registry->connect_memory("main", "t", "", "").store;
  ASSERT_TRUE(db.exec("DROP TABLE t"));
  EXPECT_FALSE(store.expired());
  ASSERT_TRUE(db.exec("BEGIN"));
  registry->sweep();
  EXPECT_FALSE(store.expired());
  ASSERT_TRUE(db.exec("COMMIT"));
  registry->sweep();
  EXPECT_TRUE(store.expired());
}

TEST(Sweep, KeepsARenamedTableUnderItsNewNameOnly) {
  Db db;
  make_t(db);
  ASSERT_TRUE(db.exec("ALTER TABLE t RENAME TO u"));
  std::shared_ptr<ConnectionRegistry> registry = ConnectionRegistry::of(db.handle());
  registry->sweep();
  const std::shared_ptr<MemoryStore> u = registry->connect_memory("main", "u", "", "").store;
  EXPECT_EQ(u->size(), 3u);
  const std::shared_ptr<MemoryStore> t = registry->connect_memory("main", "t", "", "").store;
  EXPECT_NE(t, u);
  EXPECT_EQ(t->size(), 0u);
}

// Seen from SQL: once a sweep has run, the dropped table's pairs cannot
// come back, not even into a table declared alike that another connection
// creates under the name.
TEST_F(TwoConnections, AfterASweepADroppedNameStartsEmpty) {
  Db a(path_);
  Db b(path_);
  ASSERT_TRUE(a.exec("CREATE VIRTUAL TABLE m USING tuplekv_kv(store=memory);"
                     "INSERT INTO m VALUES (x'01', x'aa'); DROP TABLE m;"
                     "CREATE VIRTUAL TABLE other USING tuplekv_kv(store=memory)"));  // sweeps
  ASSERT_TRUE(b.exec("CREATE VIRTUAL TABLE m USING tuplekv_kv(store=memory)"));
  EXPECT_EQ(a.value("SELECT count(*) FROM m"), "0");
}

// Before this connection sweeps, another one creates a table declared alike
// under the name a committed rename left: both names exist. The store
// stays with the rename's target, and the old name is a table of its own.
TEST_F(TwoConnections, ARenamedStoreIsNeverSharedWithATableCreatedUnderItsOldName) {
  Db a(path_);
  Db b(path_);
  ASSERT_TRUE(a.exec("CREATE VIRTUAL TABLE m USING tuplekv_kv(store=memory);"
                     "INSERT INTO m VALUES (x'01', x'aa'); ALTER TABLE m RENAME TO u"));
  ASSERT_TRUE(b.exec("CREATE VIRTUAL TABLE m USING tuplekv_kv(store=memory)"));
  EXPECT_EQ(a.value("SELECT count(*) FROM m"), "0");
  ASSERT_TRUE(a.exec("INSERT INTO m VALUES (x'02', x'bb')"));
  EXPECT_EQ(a.rows("SELECT hex(key) FROM u"), (Rows{{"01"}}));
  EXPECT_EQ(a.rows("SELECT hex(key) FROM m"), (Rows{{"02"}}));
}

// The same race after a rolled-back rename cannot be told from the one
// above by the schema: the latest rename's target still gets the store.
TEST_F(TwoConnections, ARolledBackRenameRacedByACreateStillSharesNoStore) {
  Db a(path_);
  Db b(path_);
  ASSERT_TRUE(a.exec("CREATE VIRTUAL TABLE m USING tuplekv_kv(store=memory);"
                     "INSERT INTO m VALUES (x'01', x'aa');"
                     "BEGIN; ALTER TABLE m RENAME TO u; ROLLBACK"));
  ASSERT_TRUE(b.exec("CREATE VIRTUAL TABLE u USING tuplekv_kv(store=memory)"));
  ASSERT_TRUE(a.exec("INSERT INTO m VALUES (x'02', x'bb')"));
  EXPECT_EQ(a.rows("SELECT hex(key) FROM u"), (Rows{{"01"}}));
  EXPECT_EQ(a.rows("SELECT hex(key) FROM m"), (Rows{{"02"}}));
}

// Inside a transaction, a memory table may not take the name of one dropped
// or renamed away earlier in it: after a ROLLBACK nothing would say which
// rows go back to which name. Refused, the rest of the transaction rolls
// back as usual; outside a transaction, or after COMMIT, the same renames
// work.
TEST(MemoryStore, ARenameOntoANameLeftUncertainInTheTransactionIsRefused) {
  Db db;
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE t USING tuplekv_kv(store=memory);"
                      "CREATE VIRTUAL TABLE u USING tuplekv_kv(store=memory);"
                      "INSERT INTO t VALUES (x'01', x'74'); INSERT INTO u VALUES (x'02', x'75')"));
  const std::string refused_onto_u =
      "cannot rename store=memory table t to u in the transaction that dropped or renamed the "
      "table u: a rollback could not give each table its rows back; COMMIT first";
  const auto rows_of = [&](const char* table) {
    return db.rows(std::string("SELECT hex(key) FROM ") + table);
  };
  ASSERT_TRUE(db.exec("BEGIN; DROP TABLE u"));
  EXPECT_EQ(db.error("ALTER TABLE t RENAME TO u"), refused_onto_u);
  ASSERT_TRUE(db.exec("ROLLBACK"));
  EXPECT_EQ(rows_of("t"), (Rows{{"01"}}));
  EXPECT_EQ(rows_of("u"), (Rows{{"02"}}));

  // A swap through a third name meets the same refusal at its second step.
  ASSERT_TRUE(db.exec("BEGIN; ALTER TABLE t RENAME TO x"));
  EXPECT_NE(db.error("ALTER TABLE u RENAME TO t").find("cannot rename store=memory table u to t"),
            std::string::npos);
  ASSERT_TRUE(db.exec("ROLLBACK"));
  EXPECT_EQ(rows_of("t"), (Rows{{"01"}}));
  EXPECT_EQ(rows_of("u"), (Rows{{"02"}}));

  // Back to a name the same store left is no ambiguity.
  ASSERT_TRUE(db.exec("BEGIN; ALTER TABLE t RENAME TO x; ALTER TABLE x RENAME TO t; ROLLBACK"));
  EXPECT_EQ(rows_of("t"), (Rows{{"01"}}));
  // Committed first, the name is free.
  ASSERT_TRUE(db.exec("BEGIN; DROP TABLE u; COMMIT; ALTER TABLE t RENAME TO u"));
  EXPECT_EQ(rows_of("u"), (Rows{{"01"}}));
}

// DETACH tells no virtual table, so the registry checks each schema's file
// when it next sweeps: a schema name attached to another file shows that
// file's memory tables empty, and an in-memory database, gone once
// detached, leaves nothing behind.
TEST_F(TwoConnections, ASchemaNameAttachedToAnotherFileStartsItsMemoryTablesEmpty) {
  {
    Db maker(path_);
    ASSERT_TRUE(maker.exec("CREATE VIRTUAL TABLE t USING tuplekv_kv(store=memory)"));
  }
  Db db;
  ASSERT_TRUE(db.exec("ATTACH ':memory:' AS aux; CREATE VIRTUAL TABLE aux.t USING tuplekv_kv(store=memory);"
                      "INSERT INTO aux.t VALUES (x'01', x'aa')"));
  std::shared_ptr<ConnectionRegistry> registry = ConnectionRegistry::of(db.handle());
  std::weak_ptr<MemoryStore> old = registry->connect_memory("aux", "t", "", "").store;
  ASSERT_TRUE(db.exec("DETACH aux; ATTACH '" + path_ + "' AS aux"));
  EXPECT_EQ(db.rows("SELECT hex(key) FROM aux.t"), Rows{});
  EXPECT_TRUE(old.expired());
  ASSERT_TRUE(db.exec("INSERT INTO aux.t VALUES (x'02', x'bb')"));
  EXPECT_EQ(db.rows("SELECT hex(key) FROM aux.t"), (Rows{{"02"}}));
}

TEST(Sweep, ForgetsTheStoresOfADetachedInMemoryDatabase) {
  Db db;
  ASSERT_TRUE(db.exec("ATTACH ':memory:' AS aux; CREATE VIRTUAL TABLE aux.t USING tuplekv_kv(store=memory);"
                      "INSERT INTO aux.t VALUES (x'01', x'aa')"));
  std::shared_ptr<ConnectionRegistry> registry = ConnectionRegistry::of(db.handle());
  std::weak_ptr<MemoryStore> store = registry->connect_memory("aux", "t", "", "").store;
  // SQLite disconnects the detached table's objects before its next
  // statement.
  ASSERT_TRUE(db.exec("DETACH aux; SELECT 1"));
  EXPECT_FALSE(store.expired());
  registry->sweep();
  EXPECT_TRUE(store.expired());
}

// tuplekv_stats finds the table SQLite would: among attached databases in
// the order they were attached, never a detached one's, and a table of
// main not yet opened here before another schema's that is.
TEST(TuplekvStats, NamesResolveAsStatementsDo) {
  Db db;
  ASSERT_TRUE(db.exec("ATTACH ':memory:' AS zeta; ATTACH ':memory:' AS alpha;"
                      "CREATE VIRTUAL TABLE alpha.t USING tuplekv_kv;"
                      "CREATE VIRTUAL TABLE zeta.t USING tuplekv_kv;"
                      "INSERT INTO zeta.t VALUES (x'01', x'aa')"));
  EXPECT_EQ(stats(db, "'t'"), "0 0 0 1");
  EXPECT_EQ(stats(db, "'alpha.t'"), "0 0 0 0");
  ASSERT_TRUE(db.exec("DETACH zeta"));
  EXPECT_EQ(db.error("SELECT tuplekv_stats('zeta.t')"),
            "tuplekv_stats: no tuplekv table 'zeta.t' is open on this connection");
  EXPECT_EQ(stats(db, "'t'"), "0 0 0 0");
  ASSERT_TRUE(db.exec("CREATE TABLE main.t(x)"));
  EXPECT_EQ(db.error("SELECT tuplekv_stats('t')"),
            "tuplekv_stats: no tuplekv table 't' is open on this connection");
}

// tuplekv_docs tables and the tuplekv_leaves tables over them share one
// SqliteStore per table name.
TEST(SqliteStores, OneStorePerNameUntilAFreshOneReplacesIt) {
  Db db;
  ASSERT_TRUE(ext::SqliteStore::create_table(db.handle(), "main", "d").ok());
  std::shared_ptr<ConnectionRegistry> registry = ConnectionRegistry::of(db.handle());
  auto first = registry->sqlite_store("main", "d", false);
  ASSERT_TRUE(first.ok());
  auto again = registry->sqlite_store("MAIN", "D", false);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, *first);
  auto fresh = registry->sqlite_store("main", "d", true);
  ASSERT_TRUE(fresh.ok());
  EXPECT_NE(*fresh, *first);
  auto after = registry->sqlite_store("main", "d", false);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(*after, *fresh);
  registry->rename_sqlite_store("main", "d", "e");
  auto renamed = registry->sqlite_store("main", "e", false);
  ASSERT_TRUE(renamed.ok());
  EXPECT_EQ(*renamed, *fresh);
}

}  // namespace
}  // namespace tuplekv::testing
