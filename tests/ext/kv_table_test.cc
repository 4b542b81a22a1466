// ext/kv_table.cc through SQL: tuplekv_kv's table, as opposed to its
// module. What CREATE VIRTUAL TABLE declares and which options it takes
// (a bad option or a subspace that is not UTF-8 refuses the table and
// creates nothing); where pairs are stored (under pack((subspace,)), the
// table's name by default); every write through xUpdate, with the conflict
// clauses applied to a BLOB primary key as on a native WITHOUT ROWID table;
// keys, values and `prefix` written wrongly and fdb_limits exceeded, each
// refused with a message naming the table and column and nothing stored
// changed; and RENAME and DROP, whose keys follow the name only where that
// can be undone. Both stores run nearly every test: store=sqlite and
// store=memory differ only where a memory store keeps its keys in place.
// Reading, planning and the module's other slots are in kv_vtab_test.cc.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "ext/tuplekv.h"
#include "tests/ext/kv_fixture.h"
#include "tests/testutil.h"

namespace tuplekv::testing {
namespace {

class KvTableTest : public KvFixture {};

INSTANTIATE_TEST_SUITE_P(Stores, KvTableTest, ::testing::Values("sqlite", "memory"),
                         [](const auto& info) { return info.param; });

// ---------------------------------------------------------------------------
// Creation, options and layout

TEST_P(KvTableTest, DeclaresKeyValueAndHiddenPrefix) {
  EXPECT_EQ(db.rows("SELECT name, type, pk, hidden FROM pragma_table_xinfo('t')"),
            (Rows{{"key", "BLOB", "1", "0"}, {"value", "BLOB", "0", "0"},
                  {"prefix", "BLOB", "0", "1"}}));
  EXPECT_EQ(db.rows("SELECT * FROM t"), Rows{});
}

TEST(KvLayout, KeysLiveUnderThePackedSubspace) {
  Db db;
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE users USING tuplekv_kv;"
                      "CREATE VIRTUAL TABLE other USING tuplekv_kv(subspace='people');"
                      "INSERT INTO users VALUES (x'0102', x'aa');"
                      "INSERT INTO other VALUES (tuple_pack('CA', 42), x'bb')"));
  EXPECT_EQ(db.rows("SELECT hex(k), hex(v) FROM users_kv"),
            (Rows{{"0275736572730001" "02", "AA"}}));
  EXPECT_EQ(db.value("SELECT hex(k) FROM other_kv"), "0270656F706C65000243410015" "2A");
  EXPECT_EQ(db.value("SELECT tuple_repr(k) FROM other_kv"), "('people', 'CA', 42)");
  // The module's own view of the key is relative to the subspace.
  EXPECT_EQ(db.value("SELECT tuple_repr(key) FROM other"), "('CA', 42)");
}

TEST(KvLayout, OptionsAreCaseInsensitiveAndMayBeQuoted) {
  Db db;
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE a USING tuplekv_kv( SUBSPACE = \"x y\" , Store='SQLite');"
                      "CREATE VIRTUAL TABLE b USING tuplekv_kv(subspace=[it's], store=`memory`);"
                      "CREATE VIRTUAL TABLE c USING tuplekv_kv(subspace='it''s', fdb_limits=on);"
                      "INSERT INTO a VALUES (x'', x''); INSERT INTO c VALUES (x'', x'')"));
  EXPECT_EQ(db.value("SELECT tuple_repr(k) FROM a_kv"), "('x y',)");
  EXPECT_EQ(db.value("SELECT tuple_repr(k) FROM c_kv"), "(\"it's\",)");
  EXPECT_EQ(db.value("SELECT count(*) FROM sqlite_master WHERE name = 'b_kv'"), "0");
}

TEST(KvErrors, BadModuleArguments) {
  Db db;
  struct Case {
    const char* args;
    const char* message;
  };
  const Case cases[] = {
      {"(x=1)", "tuplekv_kv: unknown option 'x'"},
      {"(subspace=a, Colour=red)", "tuplekv_kv: unknown option 'Colour'"},
      {"(key BLOB)", "tuplekv_kv: expected option=value, got 'key BLOB'"},
      {"(=1)", "tuplekv_kv: expected option=value, got '=1'"},
      {"(store=disk)", "tuplekv_kv: store must be sqlite or memory, not 'disk'"},
      {"(store=memory, store=sqlite)", "tuplekv_kv: option 'store' given twice"},
      {"(subspace='')", "tuplekv_kv: subspace must not be empty"},
      {"(fdb_limits=maybe)",
       "tuplekv_kv: fdb_limits must be 1 or 0 (true/false, yes/no, on/off), not 'maybe'"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(db.error(std::string("CREATE VIRTUAL TABLE bad USING tuplekv_kv") + c.args),
              c.message)
        << c.args;
    EXPECT_EQ(db.value("SELECT count(*) FROM sqlite_master"), "0") << c.args;
  }
  // The shadow table of an existing name is not clobbered.
  ASSERT_TRUE(db.exec("CREATE TABLE clash_kv(x); INSERT INTO clash_kv VALUES (1)"));
  EXPECT_NE(db.error("CREATE VIRTUAL TABLE clash USING tuplekv_kv").find("clash_kv"),
            std::string::npos);
  EXPECT_EQ(db.value("SELECT count(*) FROM clash_kv"), "1");
}

// A subspace is packed as a tuple string, which must be UTF-8. Without
// subspace= the table's name is the subspace, so a name that is not UTF-8
// needs one.
TEST_P(KvTableTest, ASubspaceThatIsNotUtf8IsRefusedAndCreatesNothing) {
  EXPECT_EQ(db.error(create_sql("a", store(), "subspace='s\xff'")),
            "tuplekv_kv: subspace 's\xff' is not valid UTF-8");
  EXPECT_EQ(db.error(create_sql("\"u\xff\"", store())),
            "tuplekv_kv: subspace 'u\xff' is not valid UTF-8");
  EXPECT_EQ(db.rows("SELECT name FROM sqlite_master ORDER BY name"),
            memory() ? (Rows{{"t"}}) : (Rows{{"t"}, {"t_kv"}}));
  ASSERT_TRUE(db.exec(create_sql("\"u\xff\"", store(), "subspace=s") +
                      "; INSERT INTO \"u\xff\" VALUES (x'01', x'aa')"));
  EXPECT_EQ(snapshot(db, "\"u\xff\""), (Rows{{"01", "AA"}}));
}

TEST(KvMemory, IsPerConnection) {
  const std::string path = ::testing::TempDir() + "kv_memory_per_connection.db";
  std::remove(path.c_str());
  {
    Db a(path);
    ASSERT_TRUE(a.exec("CREATE VIRTUAL TABLE m USING tuplekv_kv(store=memory);"
                       "CREATE VIRTUAL TABLE d USING tuplekv_kv;"
                       "INSERT INTO m VALUES (x'01', x'aa'); INSERT INTO d VALUES (x'01', x'aa')"));
    Db b(path);
    EXPECT_EQ(b.value("SELECT count(*) FROM m"), "0");
    EXPECT_EQ(b.value("SELECT count(*) FROM d"), "1");
  }
  Db c(path);
  EXPECT_EQ(c.value("SELECT count(*) FROM m"), "0");
  EXPECT_EQ(c.value("SELECT count(*) FROM d"), "1");
  std::remove(path.c_str());
}

// Counters belong to the table, and a table made anew starts from zero:
// even when another connection dropped the old one, and this connection
// still holds its counters.
TEST(KvCreate, ATableMadeAgainAfterAnotherConnectionDroppedItCountsFromZero) {
  const std::string path = ::testing::TempDir() + "kv_table_counters.db";
  std::remove(path.c_str());
  {
    Db a(path);
    Db b(path);
    ASSERT_TRUE(
        a.exec("CREATE VIRTUAL TABLE t USING tuplekv_kv; INSERT INTO t VALUES (x'01', x'aa')"));
    ASSERT_TRUE(b.exec("DROP TABLE t"));
    ASSERT_TRUE(a.exec("CREATE VIRTUAL TABLE t USING tuplekv_kv"));
    EXPECT_EQ(a.value("SELECT tuplekv_stats('t')"),
              "{\"scans\":0,\"ranges\":0,\"rows\":0,\"writes\":0,\"range_clears\":0}");
    EXPECT_EQ(a.value("SELECT count(*) FROM t"), "0");
  }
  std::remove(path.c_str());
}

// ---------------------------------------------------------------------------
// Writes

TEST_P(KvTableTest, InsertSelectUpdateDelete) {
  ASSERT_TRUE(db.exec("INSERT INTO t VALUES (x'02', x'bb'), (x'01', x'aa'), (x'0201', x'cc')"));
  EXPECT_EQ(db.value("SELECT changes()"), "3");
  EXPECT_EQ(snapshot(db), (Rows{{"01", "AA"}, {"02", "BB"}, {"0201", "CC"}}));
  ASSERT_TRUE(db.exec("UPDATE t SET value = x'dd' WHERE key = x'02'"));
  EXPECT_EQ(db.value("SELECT changes()"), "1");
  ASSERT_TRUE(db.exec("UPDATE t SET key = x'03' WHERE key = x'01'"));
  EXPECT_EQ(snapshot(db), (Rows{{"02", "DD"}, {"0201", "CC"}, {"03", "AA"}}));
  ASSERT_TRUE(db.exec("UPDATE t SET key = CAST(key || x'ff' AS BLOB), value = x'' WHERE key > x'02'"));
  EXPECT_EQ(snapshot(db), (Rows{{"02", "DD"}, {"0201FF", ""}, {"03FF", ""}}));
  ASSERT_TRUE(db.exec("DELETE FROM t WHERE key < x'03'"));
  EXPECT_EQ(db.value("SELECT changes()"), "2");
  EXPECT_EQ(snapshot(db), (Rows{{"03FF", ""}}));
  ASSERT_TRUE(db.exec("DELETE FROM t"));
  EXPECT_EQ(snapshot(db), Rows{});
}

// NULL is a NOT NULL failure that OR IGNORE skips, in an UPDATE as in an
// INSERT and as on the native table; a wrong type is an error under every
// clause, and under OR IGNORE it undoes the whole statement.
TEST_P(KvTableTest, UpdatesCheckKeysAndValuesLikeInserts) {
  ASSERT_TRUE(db.exec("CREATE TABLE n(key BLOB PRIMARY KEY NOT NULL, value BLOB NOT NULL) "
                      "WITHOUT ROWID; INSERT INTO t VALUES (x'01', x'aa'), (x'02', x'bb');"
                      "INSERT INTO n SELECT * FROM t"));
  const Rows before = snapshot(db);
  for (const char* set : {"value = NULL", "key = NULL WHERE key = x'01'"}) {
    for (const char* table : {"t", "n"}) {
      ASSERT_TRUE(db.exec(std::string("UPDATE OR IGNORE ") + table + " SET " + set)) << set;
      EXPECT_EQ(db.value("SELECT changes()"), "0") << table << " " << set;
      EXPECT_EQ(db.error(std::string("UPDATE OR REPLACE ") + table + " SET " + set),
                std::string("NOT NULL constraint failed: ") + table +
                    (set[0] == 'k' ? ".key" : ".value"));
      EXPECT_EQ(snapshot(db, table), before) << table << " " << set;
    }
  }
  struct Case {
    const char* sql;
    const char* message;
    int code;
  };
  const Case cases[] = {
      {"UPDATE OR IGNORE t SET key = 'abc' WHERE key = x'01'",
       "cannot store TEXT value in BLOB column t.key", SQLITE_MISMATCH},
      {"UPDATE OR IGNORE t SET value = 1", "cannot store INTEGER value in BLOB column t.value",
       SQLITE_MISMATCH},
      {"UPDATE OR REPLACE t SET value = 2.5", "cannot store REAL value in BLOB column t.value",
       SQLITE_CONSTRAINT_DATATYPE},
      {"UPDATE OR REPLACE t SET key = 7 WHERE key = x'02'",
       "cannot store INTEGER value in BLOB column t.key", SQLITE_CONSTRAINT_DATATYPE},
      {"INSERT OR IGNORE INTO t VALUES (x'05', x'00'), (x'06', 'text')",
       "cannot store TEXT value in BLOB column t.value", SQLITE_MISMATCH},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(db.error(c.sql), c.message) << c.sql;
    EXPECT_EQ(db.error_code(c.sql), c.code) << c.sql;
    EXPECT_EQ(snapshot(db), before) << c.sql;
  }
}

// `prefix` chooses a scan and is never stored. An INSERT that names it
// with NULL is one that leaves it out (SQLite hands the module NULL for an
// omitted hidden column, so the two look alike); any SET of it is refused,
// whatever else the UPDATE does.
TEST_P(KvTableTest, PrefixIsNeverWritten) {
  ASSERT_TRUE(db.exec("INSERT INTO t(key, value, prefix) VALUES (x'01', x'aa', NULL)"));
  const Rows before = snapshot(db);
  EXPECT_EQ(before, (Rows{{"01", "AA"}}));
  for (const char* sql : {"UPDATE t SET prefix = NULL",
                          "UPDATE t SET prefix = prefix WHERE prefix = x'01'",
                          "UPDATE t SET key = x'09', prefix = x'' WHERE key = x'01'",
                          "UPDATE OR IGNORE t SET prefix = x'01'",
                          "INSERT OR REPLACE INTO t(key, value, prefix) "
                          "VALUES (x'01', x'bb', x'01')"}) {
    EXPECT_EQ(db.error(sql), "tuplekv_kv: prefix is a query parameter of t, not a stored column")
        << sql;
    EXPECT_EQ(snapshot(db), before) << sql;
  }
}

// tuplekv_stats' `writes` counts pairs set or cleared: a key that moves is
// one of each, a write that changes nothing or is skipped is none.
TEST_P(KvTableTest, WritesCountEachPairSetOrCleared) {
  const auto writes = [&](const std::string& sql) {
    db.value("SELECT tuplekv_stats('t', 'reset')");
    EXPECT_TRUE(db.exec(sql)) << sql;
    const std::string stats = db.value("SELECT tuplekv_stats('t')");
    const size_t at = stats.find("\"writes\":");
    return at == std::string::npos ? -1 : std::atoi(stats.c_str() + at + 9);
  };
  EXPECT_EQ(writes("INSERT INTO t VALUES (x'01', x'aa'), (x'02', x'bb'), (x'03', x'cc')"), 3);
  EXPECT_EQ(writes("UPDATE t SET value = x'00' WHERE key = x'01'"), 1);
  EXPECT_EQ(writes("UPDATE t SET key = x'04' WHERE key = x'01'"), 2);
  EXPECT_EQ(writes("UPDATE t SET key = key"), 0);
  EXPECT_EQ(writes("INSERT OR IGNORE INTO t VALUES (x'02', x'ff')"), 0);
  EXPECT_EQ(writes("INSERT OR REPLACE INTO t VALUES (x'02', x'ff')"), 1);
  // The pair at x'03' is overwritten, not cleared first.
  EXPECT_EQ(writes("UPDATE OR REPLACE t SET key = x'03' WHERE key = x'02'"), 2);
  EXPECT_EQ(writes("DELETE FROM t WHERE key = x'03'"), 1);
  EXPECT_EQ(snapshot(db), (Rows{{"04", "00"}}));
}

// ---------------------------------------------------------------------------
// Conflict clauses

TEST_P(KvTableTest, DuplicateKeyUnderAbortFailsAndChangesNothing) {
  ASSERT_TRUE(db.exec("INSERT INTO t VALUES (x'01', x'aa')"));
  EXPECT_EQ(db.error("INSERT INTO t VALUES (x'02', x'bb'), (x'01', x'cc'), (x'03', x'dd')"),
            "UNIQUE constraint failed: t.key");
  EXPECT_EQ(db.error_code("INSERT INTO t VALUES (x'01', x'cc')"), SQLITE_CONSTRAINT_PRIMARYKEY);
  EXPECT_EQ(db.error_code("INSERT OR ABORT INTO t VALUES (x'01', x'cc')"),
            SQLITE_CONSTRAINT_PRIMARYKEY);
  EXPECT_EQ(snapshot(db), (Rows{{"01", "AA"}}));
  // Inside a transaction the failing statement alone is undone.
  ASSERT_TRUE(db.exec("BEGIN; INSERT INTO t VALUES (x'05', x'ee')"));
  EXPECT_EQ(db.error("INSERT INTO t VALUES (x'02', x'bb'), (x'01', x'cc')"),
            "UNIQUE constraint failed: t.key");
  ASSERT_TRUE(db.exec("COMMIT"));
  EXPECT_EQ(snapshot(db), (Rows{{"01", "AA"}, {"05", "EE"}}));
}

TEST_P(KvTableTest, FailKeepsEarlierRowsOfTheStatement) {
  ASSERT_TRUE(db.exec("INSERT INTO t VALUES (x'01', x'aa')"));
  EXPECT_EQ(db.error("INSERT OR FAIL INTO t VALUES (x'02', x'bb'), (x'01', x'cc'), (x'03', x'dd')"),
            "UNIQUE constraint failed: t.key");
  EXPECT_EQ(snapshot(db), (Rows{{"01", "AA"}, {"02", "BB"}}));
}

TEST_P(KvTableTest, IgnoreSkipsAndDoesNotCount) {
  ASSERT_TRUE(db.exec("INSERT INTO t VALUES (x'01', x'aa')"));
  ASSERT_TRUE(db.exec("INSERT OR IGNORE INTO t VALUES (x'02', x'bb'), (x'01', x'cc'), (x'03', x'dd')"));
  EXPECT_EQ(db.value("SELECT changes()"), "2");
  EXPECT_EQ(snapshot(db), (Rows{{"01", "AA"}, {"02", "BB"}, {"03", "DD"}}));
  ASSERT_TRUE(db.exec("UPDATE OR IGNORE t SET key = x'03' WHERE key = x'01'"));
  EXPECT_EQ(snapshot(db), (Rows{{"01", "AA"}, {"02", "BB"}, {"03", "DD"}}));
  // NULL in a NOT NULL column is skipped too, as SQLite does.
  ASSERT_TRUE(db.exec("INSERT OR IGNORE INTO t VALUES (NULL, x'00'), (x'04', NULL), (x'05', x'ee')"));
  EXPECT_EQ(snapshot(db), (Rows{{"01", "AA"}, {"02", "BB"}, {"03", "DD"}, {"05", "EE"}}));
}

TEST_P(KvTableTest, ReplaceOverwrites) {
  ASSERT_TRUE(db.exec("INSERT INTO t VALUES (x'01', x'aa'), (x'02', x'bb')"));
  ASSERT_TRUE(db.exec("INSERT OR REPLACE INTO t VALUES (x'01', x'cc'), (x'03', x'dd')"));
  ASSERT_TRUE(db.exec("REPLACE INTO t VALUES (x'02', x'ee')"));
  EXPECT_EQ(snapshot(db), (Rows{{"01", "CC"}, {"02", "EE"}, {"03", "DD"}}));
  ASSERT_TRUE(db.exec("UPDATE OR REPLACE t SET key = x'03' WHERE key = x'01'"));
  EXPECT_EQ(snapshot(db), (Rows{{"02", "EE"}, {"03", "CC"}}));
  // A key moved onto itself is a value update.
  ASSERT_TRUE(db.exec("UPDATE t SET key = x'02', value = x'ff' WHERE key = x'02'"));
  EXPECT_EQ(snapshot(db), (Rows{{"02", "FF"}, {"03", "CC"}}));
}

TEST_P(KvTableTest, RollbackConflictUndoesTheTransaction) {
  ASSERT_TRUE(db.exec("INSERT INTO t VALUES (x'01', x'aa'); BEGIN; INSERT INTO t VALUES (x'02', x'bb')"));
  EXPECT_EQ(db.error("INSERT OR ROLLBACK INTO t VALUES (x'01', x'cc')"),
            "UNIQUE constraint failed: t.key");
  EXPECT_EQ(sqlite3_get_autocommit(db.handle()), 1);
  EXPECT_EQ(snapshot(db), (Rows{{"01", "AA"}}));
  EXPECT_NE(db.error("COMMIT").find("no transaction is active"), std::string::npos);
}

TEST_P(KvTableTest, KeyUpdateConflicts) {
  ASSERT_TRUE(db.exec("INSERT INTO t VALUES (x'01', x'aa'), (x'02', x'bb')"));
  EXPECT_EQ(db.error("UPDATE t SET key = x'02' WHERE key = x'01'"), "UNIQUE constraint failed: t.key");
  EXPECT_EQ(db.error_code("UPDATE OR FAIL t SET key = x'02' WHERE key = x'01'"),
            SQLITE_CONSTRAINT_PRIMARYKEY);
  EXPECT_EQ(snapshot(db), (Rows{{"01", "AA"}, {"02", "BB"}}));
  // Every key moves, none collides with a key that stays.
  // (|| makes TEXT in SQLite, hence the CAST: see BadWritesLeaveDataUnchanged in
  // kv_vtab_test.cc.)
  ASSERT_TRUE(db.exec("UPDATE t SET key = CAST(key || key AS BLOB)"));
  EXPECT_EQ(snapshot(db), (Rows{{"0101", "AA"}, {"0202", "BB"}}));
}

TEST_P(KvTableTest, UpsertIsRejectedBySqlite) {
  ASSERT_TRUE(db.exec("INSERT INTO t VALUES (x'01', x'aa')"));
  EXPECT_EQ(db.error("INSERT INTO t VALUES (x'01', x'bb') ON CONFLICT DO NOTHING"),
            "UPSERT not implemented for virtual table \"t\"");
  EXPECT_EQ(db.error("INSERT INTO t VALUES (x'01', x'bb') ON CONFLICT(key) DO UPDATE SET value = "
                     "excluded.value"),
            "UPSERT not implemented for virtual table \"t\"");
  EXPECT_EQ(snapshot(db), (Rows{{"01", "AA"}}));
}

// ---------------------------------------------------------------------------
// fdb_limits

TEST_P(KvTableTest, FdbLimits) {
  ASSERT_TRUE(db.exec(create_sql("f", store(), "fdb_limits=1")));
  // pack(('f',)) is 3 bytes, so a 9997-byte key is the largest.
  ASSERT_TRUE(db.exec("INSERT INTO f VALUES (zeroblob(9997), zeroblob(100000))"));
  EXPECT_EQ(db.error("INSERT INTO f VALUES (zeroblob(9998), x'')"),
            "tuplekv_kv: key of f is 10001 bytes with its prefix; fdb_limits=1 allows 10000");
  EXPECT_EQ(db.error_code("INSERT INTO f VALUES (x'01', zeroblob(100001))"), SQLITE_TOOBIG);
  EXPECT_EQ(db.error("UPDATE f SET value = zeroblob(100001)"),
            "tuplekv_kv: value of f is 100001 bytes; fdb_limits=1 allows 100000");
  EXPECT_EQ(db.rows("SELECT length(key), length(value) FROM f"), (Rows{{"9997", "100000"}}));
  // Without the option, anything goes.
  ASSERT_TRUE(db.exec("INSERT INTO t VALUES (zeroblob(20000), zeroblob(200000))"));
}

// The limits count the whole stored key, prefix included: every write that
// would store a pair checks it, at exactly FoundationDB's 10,000 and
// 100,000 bytes. The key is checked first.
TEST_P(KvTableTest, FdbLimitsHoldAtTheirBoundsForEveryWrite) {
  // pack(('abc',)) is 5 bytes, so a 9995-byte key is the largest.
  ASSERT_TRUE(db.exec(create_sql("f", store(), "subspace=abc, fdb_limits=1") +
                      "; INSERT INTO f VALUES (zeroblob(9995), x'01'), (x'02', zeroblob(100000))"));
  const auto sizes = [&] {
    return db.rows("SELECT length(key), hex(substr(key, 1, 1)), length(value) FROM f ORDER BY key");
  };
  const Rows before = sizes();
  ASSERT_EQ(before, (Rows{{"9995", "00", "1"}, {"1", "02", "100000"}}));
  const std::string long_key =
      "tuplekv_kv: key of f is 10001 bytes with its prefix; fdb_limits=1 allows 10000";
  const std::string long_value =
      "tuplekv_kv: value of f is 100001 bytes; fdb_limits=1 allows 100000";
  const std::pair<const char*, std::string> refused[] = {
      {"INSERT INTO f VALUES (zeroblob(9996), x'')", long_key},
      {"INSERT INTO f VALUES (zeroblob(9996), zeroblob(100001))", long_key},
      {"REPLACE INTO f VALUES (x'02', zeroblob(100001))", long_value},
      {"UPDATE f SET value = zeroblob(100001) WHERE key = x'02'", long_value},
      {"UPDATE f SET key = zeroblob(9996) WHERE key = x'02'", long_key},
      {"UPDATE OR REPLACE f SET key = CAST(x'ff' || zeroblob(9995) AS BLOB) WHERE key = x'02'",
       long_key},
  };
  for (const auto& [sql, message] : refused) {
    EXPECT_EQ(db.error(sql), message) << sql;
    EXPECT_EQ(db.error_code(sql), SQLITE_TOOBIG) << sql;
    EXPECT_EQ(sizes(), before) << sql;
  }
  // The largest key, moved to with its largest value.
  ASSERT_TRUE(
      db.exec("UPDATE f SET key = CAST(x'ff' || zeroblob(9994) AS BLOB) WHERE key = x'02'"));
  ASSERT_TRUE(db.exec("UPDATE f SET value = zeroblob(100000) WHERE key = zeroblob(9995)"));
  EXPECT_EQ(sizes(), (Rows{{"9995", "00", "100000"}, {"9995", "FF", "100000"}}));
  // fdb_limits=0 is the default: no limits.
  ASSERT_TRUE(db.exec(create_sql("g", store(), "fdb_limits=0") +
                      "; INSERT INTO g VALUES (zeroblob(20000), zeroblob(200000))"));
}

// "Prefix included" means the prefix the keys are stored under: after a
// rename, the new name's for keys that follow the name, and the old one for
// a memory store, which keeps its keys where they were.
TEST_P(KvTableTest, FdbLimitsCountThePrefixTheKeysAreStoredUnder) {
  ASSERT_TRUE(db.exec(create_sql("f", store(), "fdb_limits=1") + "; ALTER TABLE f RENAME TO ffff"));
  // pack(('f',)) is 3 bytes, pack(('ffff',)) 6.
  const int largest = memory() ? 9997 : 9994;
  ASSERT_TRUE(db.exec("INSERT INTO ffff VALUES (zeroblob(" + std::to_string(largest) + "), x'')"));
  EXPECT_EQ(
      db.error("INSERT INTO ffff VALUES (zeroblob(" + std::to_string(largest + 1) + "), x'')"),
            "tuplekv_kv: key of ffff is 10001 bytes with its prefix; fdb_limits=1 allows 10000");
  EXPECT_EQ(db.rows("SELECT length(key) FROM ffff"), (Rows{{std::to_string(largest)}}));
}

// A rename that moves the keys under a longer prefix would take the
// largest past the limit: it is refused, and the table stays as it was.
// A memory store keeps its keys where they are, so nothing grows.
TEST_P(KvTableTest, ARenameThatWouldTakeAKeyPastTheLimitIsRefused) {
  ASSERT_TRUE(db.exec(create_sql("f", store(), "fdb_limits=1") +
                      "; INSERT INTO f VALUES (x'01', x''), (zeroblob(9997), x'aa')"));
  const Rows before = db.rows("SELECT hex(key), length(key) FROM f ORDER BY key");
  if (memory()) {
    ASSERT_TRUE(db.exec("ALTER TABLE f RENAME TO ffff"));
    EXPECT_EQ(db.rows("SELECT hex(key), length(key) FROM ffff ORDER BY key"), before);
    return;
  }
  EXPECT_EQ(db.error("ALTER TABLE f RENAME TO ffff"),
            "tuplekv_kv: cannot rename to ffff: a key would be 10003 bytes with the new prefix; "
            "fdb_limits=1 allows 10000");
  EXPECT_EQ(db.rows("SELECT hex(key), length(key) FROM f ORDER BY key"), before);
  EXPECT_EQ(db.rows("SELECT length(k) FROM f_kv ORDER BY k"), (Rows{{"10000"}, {"4"}}));
  // The same length of name moves it.
  ASSERT_TRUE(db.exec("ALTER TABLE f RENAME TO g"));
  EXPECT_EQ(db.rows("SELECT hex(key), length(key) FROM g ORDER BY key"), before);
}

// ---------------------------------------------------------------------------
// Rename and drop

TEST_P(KvTableTest, RenameKeepsData) {
  ASSERT_TRUE(db.exec("INSERT INTO t VALUES (x'01', x'aa');" + create_sql("s", store(), "subspace=fixed") +
                      ";INSERT INTO s VALUES (x'02', x'bb')"));
  ASSERT_TRUE(db.exec("ALTER TABLE t RENAME TO u; ALTER TABLE s RENAME TO s2"));
  EXPECT_EQ(db.value("SELECT changes()"), "1");  // the INSERT's, as natively
  EXPECT_EQ(snapshot(db, "u"), (Rows{{"01", "AA"}}));
  EXPECT_EQ(snapshot(db, "s2"), (Rows{{"02", "BB"}}));
  EXPECT_NE(db.error("SELECT * FROM t").find("no such table"), std::string::npos);
  if (!memory()) {
    // The default subspace follows the name; an explicit one stays.
    EXPECT_EQ(db.value("SELECT hex(k) FROM u_kv"), "027500" "01");
    EXPECT_EQ(db.value("SELECT hex(k) FROM s2_kv"), "0266697865640" "002");
    EXPECT_EQ(db.value("SELECT count(*) FROM sqlite_master WHERE name IN ('t_kv', 's_kv')"), "0");
  }
  // Reconnecting (a fresh schema load) finds the same rows.
  ASSERT_TRUE(db.exec("CREATE TABLE bump(x); DROP TABLE bump"));
  ASSERT_TRUE(db.exec("ALTER TABLE u RENAME TO v"));
  EXPECT_EQ(snapshot(db, "v"), (Rows{{"01", "AA"}}));
  ASSERT_TRUE(db.exec("INSERT INTO v VALUES (x'03', x'cc')"));
  EXPECT_EQ(snapshot(db, "v"), (Rows{{"01", "AA"}, {"03", "CC"}}));
}

// Keys that follow the name cannot move under a scan in progress; a memory
// table's stay where they are, so its rename goes ahead.
TEST_P(KvTableTest, ARenameThatMovesKeysWaitsForScansInProgress) {
  ASSERT_TRUE(db.exec("INSERT INTO t VALUES (x'01', x'aa'), (x'02', x'bb'), (x'03', x'cc')"));
  const DuringScan r = during_scan(&db, "SELECT hex(key) FROM t", "ALTER TABLE t RENAME TO u");
  EXPECT_EQ(r.rows, (Rows{{"01"}, {"02"}, {"03"}}));
  if (memory()) {
    EXPECT_EQ(r.rc, SQLITE_OK) << r.error;
    return;
  }
  EXPECT_EQ(r.rc, SQLITE_LOCKED);
  EXPECT_EQ(r.error, "tuplekv_kv: cannot rename t while a statement is reading it: "
                     "reset or finalize that statement first");
  ASSERT_TRUE(db.exec("ALTER TABLE t RENAME TO u"));
  EXPECT_EQ(snapshot(db, "u"), (Rows{{"01", "AA"}, {"02", "BB"}, {"03", "CC"}}));
}

// The same holds when a rename would move the keys under a name that is
// not UTF-8. Keys that stay where they are (subspace=) do not care what the
// table is called.
// Without subspace= a table's name is its subspace, which must be a tuple
// string, on either store: renaming to a name that is not UTF-8 would leave
// a table nothing could open again, not even DROP TABLE.
TEST(KvRename, ANameThatIsNotUtf8IsRefusedWhenItWouldBeTheSubspace) {
  Db db;
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE t USING tuplekv_kv;"
                      "INSERT INTO t VALUES (x'01', x'aa');"
                      "CREATE VIRTUAL TABLE n USING tuplekv_kv(store=memory);"
                      "INSERT INTO n VALUES (x'05', x'ee');"
                      "CREATE VIRTUAL TABLE s USING tuplekv_kv(subspace=fixed);"
                      "CREATE VIRTUAL TABLE m USING tuplekv_kv(subspace=fixed, store=memory);"
                      "INSERT INTO s VALUES (x'02', x'bb'); INSERT INTO m VALUES (x'03', x'cc')"));
  ASSERT_TRUE(db.exec("ALTER TABLE s RENAME TO \"s\xff\"; ALTER TABLE m RENAME TO \"m\xff\""));
  EXPECT_EQ(snapshot(db, "\"s\xff\""), (Rows{{"02", "BB"}}));
  EXPECT_EQ(snapshot(db, "\"m\xff\""), (Rows{{"03", "CC"}}));

  ASSERT_TRUE(db.exec("BEGIN; INSERT INTO t VALUES (x'04', x'dd')"));
  const std::string refused =
      "tuplekv_kv: new table name is not valid UTF-8, and without subspace= the name is the "
      "table's subspace";
  EXPECT_EQ(db.error("ALTER TABLE t RENAME TO \"u\xff\""), refused);
  EXPECT_EQ(db.error("ALTER TABLE n RENAME TO \"u\xff\""), refused);
  // Only the ALTER is undone: the transaction and its earlier write stay.
  ASSERT_TRUE(db.exec("COMMIT"));
  EXPECT_EQ(snapshot(db), (Rows{{"01", "AA"}, {"04", "DD"}}));
  EXPECT_EQ(db.rows("SELECT hex(k) FROM t_kv"), (Rows{{"02740001"}, {"02740004"}}));
  EXPECT_EQ(db.value("SELECT count(*) FROM sqlite_master WHERE name LIKE 'u%'"), "0");
  EXPECT_EQ(snapshot(db, "n"), (Rows{{"05", "EE"}}));
}

// Messages name the table as it is called now, not as it was created.
TEST_P(KvTableTest, MessagesNameTheTableByItsCurrentName) {
  ASSERT_TRUE(db.exec("INSERT INTO t VALUES (x'01', x'aa'); ALTER TABLE t RENAME TO u"));
  const Rows before = snapshot(db, "u");
  const std::pair<const char*, const char*> cases[] = {
      {"INSERT INTO u VALUES (x'01', x'bb')", "UNIQUE constraint failed: u.key"},
      {"INSERT INTO u VALUES (NULL, x'00')", "NOT NULL constraint failed: u.key"},
      {"UPDATE u SET value = 5", "cannot store INTEGER value in BLOB column u.value"},
      {"UPDATE u SET prefix = x''",
       "tuplekv_kv: prefix is a query parameter of u, not a stored column"},
  };
  for (const auto& [sql, message] : cases) {
    EXPECT_EQ(db.error(sql), message) << sql;
    EXPECT_EQ(snapshot(db, "u"), before) << sql;
  }
}

TEST_P(KvTableTest, DropRemovesDataAndRollbackRestoresIt) {
  ASSERT_TRUE(db.exec("INSERT INTO t VALUES (x'01', x'aa')"));
  ASSERT_TRUE(db.exec("BEGIN; DROP TABLE t; ROLLBACK"));
  EXPECT_EQ(snapshot(db), (Rows{{"01", "AA"}}));
  ASSERT_TRUE(db.exec("BEGIN; ALTER TABLE t RENAME TO r; ROLLBACK"));
  EXPECT_EQ(snapshot(db), (Rows{{"01", "AA"}}));
  ASSERT_TRUE(db.exec("DROP TABLE t"));
  if (!memory()) {
    EXPECT_EQ(db.value("SELECT count(*) FROM sqlite_master"), "0");
  }
  ASSERT_TRUE(db.exec(create_sql("t", store())));
  EXPECT_EQ(snapshot(db), Rows{});
}

// SQLite calls no transaction method of a dropped table, so a store=memory
// table written in the open transaction cannot be dropped: a ROLLBACK that
// brings it back could not undo those writes. SQLite reports an xDestroy
// failure by its code alone. A shadow table rolls back with SQLite's own.
TEST_P(KvTableTest, ATableWrittenInTheOpenTransactionIsDroppedOnlyWhereARollbackCanUndoIt) {
  // A memory table refuses the drop; a shadow table goes.
  const auto drop = [&](const std::string& table) {
    if (memory()) {
      EXPECT_EQ(db.error_code("DROP TABLE " + table), SQLITE_LOCKED);
    } else {
      EXPECT_TRUE(db.exec("DROP TABLE " + table));
    }
  };
  ASSERT_TRUE(db.exec("INSERT INTO t VALUES (x'01', x'aa')"));
  ASSERT_TRUE(db.exec("BEGIN; INSERT INTO t VALUES (x'02', x'bb')"));
  drop("t");
  if (memory()) {
    EXPECT_EQ(snapshot(db), (Rows{{"01", "AA"}, {"02", "BB"}}));
  }
  ASSERT_TRUE(db.exec("ROLLBACK"));
  EXPECT_EQ(snapshot(db), (Rows{{"01", "AA"}}));

  // Written before a savepoint that a rollback could return to.
  ASSERT_TRUE(db.exec("BEGIN; INSERT INTO t VALUES (x'03', x'cc'); SAVEPOINT s; "
                      "INSERT INTO t VALUES (x'04', x'dd')"));
  drop("t");
  ASSERT_TRUE(db.exec("ROLLBACK TO s; COMMIT"));
  EXPECT_EQ(snapshot(db), (Rows{{"01", "AA"}, {"03", "CC"}}));

  // A rename goes ahead: the renamed table's new object joins the
  // transaction, and a rollback undoes the writes on both sides of it.
  ASSERT_TRUE(db.exec("BEGIN; SAVEPOINT s; INSERT INTO t VALUES (x'06', x'ff');"
                      "ALTER TABLE t RENAME TO r; INSERT INTO r VALUES (x'07', x'ff');"
                      "ALTER TABLE r RENAME TO t; ROLLBACK TO s; COMMIT"));
  EXPECT_EQ(snapshot(db), (Rows{{"01", "AA"}, {"03", "CC"}}));

  // Renamed first: the name the rename left holds the same store.
  ASSERT_TRUE(db.exec("BEGIN; ALTER TABLE t RENAME TO r; INSERT INTO r VALUES (x'05', x'ee')"));
  drop("r");
  ASSERT_TRUE(db.exec("ROLLBACK"));
  EXPECT_EQ(snapshot(db), (Rows{{"01", "AA"}, {"03", "CC"}}));

  // Only read in the transaction: dropped, and a ROLLBACK brings it back whole.
  ASSERT_TRUE(db.exec("BEGIN; SELECT count(*) FROM t; DROP TABLE t; ROLLBACK"));
  EXPECT_EQ(snapshot(db), (Rows{{"01", "AA"}, {"03", "CC"}}));
  // Written, but rolled back to where nothing is left to undo: dropped; the
  // ROLLBACK brings it back as it was, and later transactions undo only
  // their own writes.
  ASSERT_TRUE(db.exec("BEGIN; SAVEPOINT s; INSERT INTO t VALUES (x'08', x'ff'); ROLLBACK TO s;"
                      "DROP TABLE t; ROLLBACK"));
  ASSERT_TRUE(db.exec("INSERT INTO t VALUES (x'09', x'ff')"));
  ASSERT_TRUE(db.exec("BEGIN; INSERT INTO t VALUES (x'0a', x'ff'); ROLLBACK"));
  EXPECT_EQ(snapshot(db), (Rows{{"01", "AA"}, {"03", "CC"}, {"09", "FF"}}));
  ASSERT_TRUE(db.exec("DELETE FROM t WHERE key = x'09'"));

  // Made and written in the transaction: a whole rollback takes it away, so
  // only a savepoint since it was made could need its writes undone.
  ASSERT_TRUE(db.exec("BEGIN;" + create_sql("m", store()) + "; INSERT INTO m VALUES (x'01', x'aa');"
                      "DROP TABLE m; COMMIT"));
  EXPECT_EQ(db.value("SELECT count(*) FROM sqlite_master WHERE name = 'm'"), "0");
  ASSERT_TRUE(db.exec("BEGIN;" + create_sql("m", store()) + "; SAVEPOINT s; INSERT INTO m VALUES (x'01', x'aa')"));
  drop("m");
  ASSERT_TRUE(db.exec("ROLLBACK TO s; COMMIT"));
  EXPECT_EQ(snapshot(db, "m"), Rows{});
}

TEST_P(KvTableTest, MemoryDataSurvivesReregistration) {
  ASSERT_TRUE(db.exec("INSERT INTO t VALUES (x'01', x'aa')"));
  ASSERT_EQ(tuplekv_register(db.handle()), SQLITE_OK);
  ASSERT_TRUE(db.exec("ALTER TABLE t RENAME TO t2; ALTER TABLE t2 RENAME TO t"));
  EXPECT_EQ(snapshot(db), (Rows{{"01", "AA"}}));
}

}  // namespace
}  // namespace tuplekv::testing
