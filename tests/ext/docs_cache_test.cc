// ext/docs_cache.h: the document cache of a tuplekv_docs table, the
// "<name>_json" shadow table of whole JSON texts next to the leaves in
// "<name>_kv" (and, with store=memory, entries in the leaves' own store).
//
// The leaves are the truth and an entry is only ever their reassembled
// text: these tests pin that the two never disagree, whatever writes,
// failing statements, ROLLBACK and ROLLBACK TO do, for both stores; that a
// missing entry is no error (the document is read from its leaves) while
// an entry that is not TEXT is corruption naming the table and the id; the
// shadow table's life (created, renamed and dropped with its table, absent
// with cache=0 or mode=merge, read-only under SQLITE_DBCONFIG_DEFENSIVE);
// and SqliteDocCache driven directly: its DDL helpers in any schema, its
// four statements, and that no statement stays on a row (which would hold
// a read transaction open) once a call has returned, except get()'s until
// done().
#include "ext/docs_cache.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "tests/testutil.h"

namespace tuplekv::testing {
namespace {

using ext::SqliteDocCache;

// ---------------------------------------------------------------------------
// SqliteDocCache, directly

// Whether any statement of `db` is on a row or otherwise not reset.
bool any_statement_busy(sqlite3* db) {
  for (sqlite3_stmt* s = sqlite3_next_stmt(db, nullptr); s != nullptr;
       s = sqlite3_next_stmt(db, s)) {
    if (sqlite3_stmt_busy(s)) return true;
  }
  return false;
}

class SqliteDocCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(SqliteDocCache::create_table(db.handle(), "main", "c").ok());
    auto opened = SqliteDocCache::open(db.handle(), "main", "c");
    ASSERT_TRUE(opened.ok()) << opened.status().message();
    cache = std::move(opened).value();
  }
  // The entry of `id` through get(), "<none>" when there is none; ends the
  // view before it returns.
  std::string get(BytesView id) {
    std::string_view json;
    bool found = false;
    const Status s = cache->get(id, &json, &found);
    EXPECT_TRUE(s.ok()) << s.message();
    std::string out = found ? std::string(json) : "<none>";
    cache->done();
    return out;
  }
  bool contains(BytesView id) {
    bool found = false;
    const Status s = cache->contains(id, &found);
    EXPECT_TRUE(s.ok()) << s.message();
    return found;
  }
  Db db;
  std::unique_ptr<SqliteDocCache> cache;
};

const Bytes kOne("\x15\x01", 2);    // the packed id 1
const Bytes kTwo("\x15\x02", 2);    // 2
const Bytes kText("\x02x\x00", 3);  // 'x'

TEST_F(SqliteDocCacheTest, TheShadowTableIsARowidTableOfIdAndText) {
  EXPECT_EQ(db.rows("SELECT name, type, pk FROM pragma_table_info('c_json') ORDER BY cid"),
            (Rows{{"id", "BLOB", "1"}, {"doc", "TEXT", "0"}}));
  // Not WITHOUT ROWID: the id index is SQLite's automatic one.
  EXPECT_EQ(db.value("SELECT count(*) FROM pragma_index_list('c_json') WHERE origin = 'pk'"), "1");
  EXPECT_EQ(db.value("SELECT count(rowid) FROM c_json"), "0");
  bool exists = false;
  ASSERT_TRUE(SqliteDocCache::table_exists(db.handle(), "main", "c", &exists).ok());
  EXPECT_TRUE(exists);
  ASSERT_TRUE(SqliteDocCache::table_exists(db.handle(), "main", "other", &exists).ok());
  EXPECT_FALSE(exists);
  const Status again = SqliteDocCache::create_table(db.handle(), "main", "c");
  EXPECT_EQ(again.message(), "cannot create \"main\".\"c_json\": table \"c_json\" already exists");
  EXPECT_EQ(again.native_code(), SQLITE_ERROR);
}

TEST_F(SqliteDocCacheTest, PutGetContainsAndErase) {
  EXPECT_FALSE(contains(kOne));
  EXPECT_EQ(get(kOne), "<none>");  // a missing row is no error
  ASSERT_TRUE(cache->put(kOne, "[1]").ok());
  ASSERT_TRUE(cache->put(kText, "{\"a\":\"é\"}").ok());
  EXPECT_TRUE(contains(kOne));
  EXPECT_EQ(get(kOne), "[1]");
  EXPECT_EQ(get(kText), "{\"a\":\"é\"}");
  EXPECT_EQ(db.rows("SELECT hex(id), typeof(id), doc, typeof(doc) FROM c_json ORDER BY id"),
            (Rows{{"027800", "blob", "{\"a\":\"é\"}", "text"}, {"1501", "blob", "[1]", "text"}}));
  // A second put replaces the entry.
  ASSERT_TRUE(cache->put(kOne, "{}").ok());
  EXPECT_EQ(get(kOne), "{}");
  EXPECT_EQ(db.value("SELECT count(*) FROM c_json"), "2");
  ASSERT_TRUE(cache->erase(kOne).ok());
  EXPECT_FALSE(contains(kOne));
  EXPECT_EQ(get(kOne), "<none>");
  ASSERT_TRUE(cache->erase(kOne).ok());  // nothing to erase is no error
  EXPECT_EQ(db.rows("SELECT hex(id) FROM c_json"), (Rows{{"027800"}}));
}

// Zero-length bytes are an empty BLOB or TEXT, never NULL.
TEST_F(SqliteDocCacheTest, EmptyIdsAndTextsAreValuesNotNull) {
  ASSERT_TRUE(cache->put(BytesView(), BytesView()).ok());
  EXPECT_EQ(db.rows("SELECT typeof(id), length(id), typeof(doc), length(doc) FROM c_json"),
            (Rows{{"blob", "0", "text", "0"}}));
  EXPECT_TRUE(contains(BytesView()));
  EXPECT_EQ(get(BytesView()), "");
  EXPECT_FALSE(contains(kOne));
  ASSERT_TRUE(cache->erase(BytesView()).ok());
  EXPECT_EQ(db.value("SELECT count(*) FROM c_json"), "0");
}

// get() stays on its row so that its view points into SQLite's result;
// done(), or any other call, lets go of it. Nothing else keeps a statement
// busy (a read transaction open) after it returns.
TEST_F(SqliteDocCacheTest, OnlyGetHoldsItsStatementAndOnlyUntilDone) {
  ASSERT_TRUE(cache->put(kOne, "[1,2,3]").ok());
  EXPECT_FALSE(any_statement_busy(db.handle()));
  std::string_view json;
  bool found = false;
  ASSERT_TRUE(cache->get(kOne, &json, &found).ok());
  ASSERT_TRUE(found);
  EXPECT_EQ(json, "[1,2,3]");
  EXPECT_TRUE(any_statement_busy(db.handle()));
  cache->done();
  EXPECT_FALSE(any_statement_busy(db.handle()));
  cache->done();  // twice is harmless

  // The next call ends the view itself, even one that writes the row.
  ASSERT_TRUE(cache->get(kOne, &json, &found).ok());
  ASSERT_TRUE(cache->put(kOne, "[4]").ok());
  EXPECT_FALSE(any_statement_busy(db.handle()));
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(cache->get(kOne, &json, &found).ok());
    bool there = false;
    ASSERT_TRUE(cache->contains(kTwo, &there).ok());
    EXPECT_FALSE(any_statement_busy(db.handle()));
  }
  ASSERT_TRUE(cache->get(kTwo, &json, &found).ok());  // no row: nothing held
  EXPECT_FALSE(found);
  EXPECT_FALSE(any_statement_busy(db.handle()));
  ASSERT_TRUE(cache->erase(kOne).ok());
  EXPECT_FALSE(any_statement_busy(db.handle()));
}

// Only a hand-written row can hold anything but TEXT (the column's TEXT
// affinity makes a number text); reading it is corruption that names the
// table and the id, and the cache goes on.
TEST_F(SqliteDocCacheTest, ADocThatIsNotTextIsCorruptionNamingTableAndId) {
  ASSERT_TRUE(cache->put(kTwo, "[2]").ok());
  const struct {
    const char* value;
    const char* type;
  } cases[] = {{"x'3432'", "BLOB"}, {"NULL", "NULL"}};
  for (const auto& c : cases) {
    SCOPED_TRACE(c.value);
    ASSERT_TRUE(db.exec(std::string("INSERT OR REPLACE INTO c_json(id, doc) VALUES (x'1501', ") +
                        c.value + ")"));
    std::string_view json = "untouched";
    bool found = true;
    const Status s = cache->get(kOne, &json, &found);
    EXPECT_EQ(s.code(), StatusCode::kCorruption);
    EXPECT_EQ(s.message(),
              std::string("corrupt shadow table \"main\".\"c_json\": the doc of id x'1501' is ") +
                  c.type + ", not TEXT");
    EXPECT_FALSE(found);
    EXPECT_FALSE(any_statement_busy(db.handle()));
    // contains() reads no text; the other entry reads as before.
    EXPECT_TRUE(contains(kOne));
    EXPECT_EQ(get(kTwo), "[2]");
  }
  ASSERT_TRUE(db.exec("UPDATE c_json SET doc = 42 WHERE id = x'1501'"));
  EXPECT_EQ(get(kOne), "42");
  // Writing the entry again repairs it.
  ASSERT_TRUE(cache->put(kOne, "[1]").ok());
  EXPECT_EQ(get(kOne), "[1]");
}

// The cache writes in the caller's transaction: SQLite undoes its writes
// with everything else.
TEST_F(SqliteDocCacheTest, WritesFollowTheConnectionsTransaction) {
  ASSERT_TRUE(cache->put(kOne, "[1]").ok());
  ASSERT_TRUE(db.exec("BEGIN"));
  ASSERT_TRUE(cache->put(kOne, "[9]").ok());
  ASSERT_TRUE(cache->put(kTwo, "[2]").ok());
  ASSERT_TRUE(db.exec("ROLLBACK"));
  EXPECT_EQ(get(kOne), "[1]");
  EXPECT_EQ(get(kTwo), "<none>");
  ASSERT_TRUE(db.exec("BEGIN"));
  ASSERT_TRUE(cache->put(kTwo, "[2]").ok());
  ASSERT_TRUE(db.exec("SAVEPOINT s"));
  ASSERT_TRUE(cache->erase(kOne).ok());
  ASSERT_TRUE(cache->put(kTwo, "[22]").ok());
  ASSERT_TRUE(db.exec("ROLLBACK TO s; COMMIT"));
  EXPECT_EQ(get(kOne), "[1]");
  EXPECT_EQ(get(kTwo), "[2]");
}

TEST_F(SqliteDocCacheTest, AWriteTheConnectionRefusesNamesTheTable) {
  ASSERT_TRUE(cache->put(kOne, "[1]").ok());
  ASSERT_TRUE(db.exec("PRAGMA query_only = 1"));
  const Status put = cache->put(kOne, "[2]");
  EXPECT_EQ(put.message(), "writing \"main\".\"c_json\": attempt to write a readonly database");
  EXPECT_EQ(put.native_code(), SQLITE_READONLY);
  const Status erase = cache->erase(kOne);
  EXPECT_EQ(erase.message(), "writing \"main\".\"c_json\": attempt to write a readonly database");
  EXPECT_FALSE(any_statement_busy(db.handle()));
  ASSERT_TRUE(db.exec("PRAGMA query_only = 0"));
  EXPECT_EQ(get(kOne), "[1]");
}

TEST_F(SqliteDocCacheTest, RenameMovesTheTableAndRenamedFollowsIt) {
  ASSERT_TRUE(cache->put(kOne, "[1]").ok());
  ASSERT_TRUE(SqliteDocCache::rename_table(db.handle(), "main", "c", "d").ok());
  EXPECT_EQ(db.rows("SELECT name FROM sqlite_schema WHERE type = 'table'"), (Rows{{"d_json"}}));
  ASSERT_TRUE(cache->renamed("d").ok());
  EXPECT_EQ(get(kOne), "[1]");
  ASSERT_TRUE(cache->put(kTwo, "[2]").ok());
  EXPECT_EQ(db.value("SELECT count(*) FROM d_json"), "2");
  // To a name without a table: an error, and the statements stay as they were.
  const Status nowhere = cache->renamed("nope");
  EXPECT_EQ(nowhere.message(),
            "cannot prepare a statement on \"main\".\"nope_json\": no such table: main.nope_json");
  EXPECT_EQ(get(kTwo), "[2]");
  // Onto a table that exists: refused, nothing moved.
  ASSERT_TRUE(SqliteDocCache::create_table(db.handle(), "main", "e").ok());
  const Status taken = SqliteDocCache::rename_table(db.handle(), "main", "d", "e");
  EXPECT_THAT(taken.message(), ::testing::StartsWith("cannot rename \"main\".\"d_json\": "));
  EXPECT_EQ(db.value("SELECT count(*) FROM d_json"), "2");
}

TEST_F(SqliteDocCacheTest, DropIsIfExistsAndOpenNeedsTheTable) {
  cache.reset();  // its statements would keep the table from being dropped
  ASSERT_TRUE(SqliteDocCache::drop_table(db.handle(), "main", "c").ok());
  bool exists = true;
  ASSERT_TRUE(SqliteDocCache::table_exists(db.handle(), "main", "c", &exists).ok());
  EXPECT_FALSE(exists);
  EXPECT_TRUE(SqliteDocCache::drop_table(db.handle(), "main", "c").ok());
  auto opened = SqliteDocCache::open(db.handle(), "main", "c");
  ASSERT_FALSE(opened.ok());
  EXPECT_EQ(opened.status().message(),
            "cannot prepare a statement on \"main\".\"c_json\": no such table: main.c_json");
}

// Every helper takes the schema, and quotes names as SQL identifiers.
TEST(SqliteDocCacheSchemaTest, AnyIdentifierInAnyAttachedSchema) {
  Db db;
  ASSERT_TRUE(db.exec("ATTACH ':memory:' AS \"o\"\"ther\""));
  const std::string schema = "o\"ther";
  const std::string name = "my \"docs\"";
  ASSERT_TRUE(SqliteDocCache::create_table(db.handle(), schema, name).ok());
  EXPECT_EQ(db.rows("SELECT name FROM \"o\"\"ther\".sqlite_schema WHERE type = 'table'"),
            (Rows{{"my \"docs\"_json"}}));
  EXPECT_EQ(db.value("SELECT count(*) FROM main.sqlite_schema"), "0");
  bool exists = false;
  ASSERT_TRUE(SqliteDocCache::table_exists(db.handle(), schema, name, &exists).ok());
  EXPECT_TRUE(exists);
  ASSERT_TRUE(SqliteDocCache::table_exists(db.handle(), "main", name, &exists).ok());
  EXPECT_FALSE(exists);
  {
    auto cache = SqliteDocCache::open(db.handle(), schema, name);
    ASSERT_TRUE(cache.ok()) << cache.status().message();
    ASSERT_TRUE((*cache)->put(kOne, "[1]").ok());
    ASSERT_TRUE(db.exec("UPDATE \"o\"\"ther\".\"my \"\"docs\"\"_json\" SET doc = x'31'"));
    std::string_view json;
    bool found = false;
    const Status s = (*cache)->get(kOne, &json, &found);
    EXPECT_EQ(
        s.message(),
        "corrupt shadow table \"o\"\"ther\".\"my \"\"docs\"\"_json\": the doc of id x'1501' is "
        "BLOB, not TEXT");
  }
  ASSERT_TRUE(SqliteDocCache::rename_table(db.handle(), schema, name, "plain").ok());
  ASSERT_TRUE(SqliteDocCache::table_exists(db.handle(), schema, "plain", &exists).ok());
  EXPECT_TRUE(exists);
  ASSERT_TRUE(SqliteDocCache::drop_table(db.handle(), schema, "plain").ok());
  EXPECT_EQ(db.value("SELECT count(*) FROM \"o\"\"ther\".sqlite_schema"), "0");
  // A schema that is not attached is an error, not "no table".
  const Status unknown = SqliteDocCache::table_exists(db.handle(), "nowhere", "d", &exists);
  EXPECT_FALSE(unknown.ok());
  EXPECT_THAT(unknown.message(), ::testing::StartsWith("cannot read the schema of nowhere: "));
}

// ---------------------------------------------------------------------------
// The cache of a tuplekv_docs table, through SQL, on both stores

// Runs one statement with ?1, ?2, ... bound to `params` as text.
struct Outcome {
  bool ok = true;
  std::string error;
};
Outcome run(sqlite3* db, const std::string& sql, const std::vector<std::string>& params) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr);
  for (size_t i = 0; rc == SQLITE_OK && i < params.size(); ++i) {
    rc = sqlite3_bind_text(stmt, static_cast<int>(i + 1), params[i].data(),
                           static_cast<int>(params[i].size()), SQLITE_TRANSIENT);
  }
  if (rc == SQLITE_OK) {
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    }
  }
  Outcome out{rc == SQLITE_DONE, rc == SQLITE_DONE ? "" : sqlite3_errmsg(db)};
  sqlite3_finalize(stmt);
  return out;
}

// Random JSON text: every scalar kind, escapes, nesting, and blanks the
// entry must not keep (it holds the reassembled text).
std::string random_json(std::mt19937* rng, int depth) {
  auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(*rng); };
  static const char* const kScalars[] = {
      "null", "true", "false", "0", "-17", "9223372036854775807", "1.5e300", "0.1",
      "\"s\\n\\\"q\\\" \\u00e9 😀\"", "\"x\""};
  static const char* const kNames[] = {"a", "é", "x y", "k1"};  // one per position: never twice
  const int r = pick(10);
  if (depth <= 0 || r < 4) return kScalars[pick(10)];
  const bool object = r < 7;
  std::string s = object ? "{ " : "[";
  for (int i = 0, n = pick(5); i < n; ++i) {  // n <= 4
    if (i > 0) s += ", ";
    if (object) s += "\"" + std::string(kNames[i]) + "\" : ";
    s += random_json(rng, depth - 1);
  }
  return s + (object ? " }" : "]");
}

class DocsCacheStoresTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE docs USING tuplekv_docs(store=" + GetParam() + ")"));
  }
  // Every node of document `id` of `plain`, and places next to them that
  // hold nothing yet or past an end.
  std::vector<std::string> paths_of_plain(const std::string& id) {
    std::vector<std::string> out;
    for (const Row& r : db.rows(
             "SELECT j.fullkey FROM plain, json_tree(plain.doc) j WHERE plain.id = '" + id + "'")) {
      for (const char* suffix : {"", ".new", "[0]", "[#]", "[3]"}) out.push_back(r[0] + suffix);
    }
    return out;
  }
  // Every document as its entry gives it (whole reads) and as its leaves
  // do (reads at '$', and tuplekv_leaves); with the SQLite store, the
  // entries themselves too.
  void expect_cache_agrees_with_leaves() {
    const Rows whole = db.rows("SELECT quote(id), doc FROM docs");
    EXPECT_EQ(whole, db.rows("SELECT quote(id), doc FROM docs WHERE path = '$'"));
    EXPECT_EQ(db.rows("SELECT quote(id) FROM docs"),
              db.rows("SELECT DISTINCT quote(id) FROM leaves"));
    if (GetParam() == "sqlite") {
      EXPECT_EQ(db.rows("SELECT tuple_repr(id), doc FROM docs_json ORDER BY id"),
                db.rows("SELECT tuple_repr(tuple_pack(id)), doc FROM docs WHERE path = '$'"));
    }
  }
  Db db;
};

INSTANTIATE_TEST_SUITE_P(Stores, DocsCacheStoresTest, ::testing::Values("sqlite", "memory"));

// Random whole-document and subtree writes, failing statements,
// transactions and savepoints, applied alike to `docs` (with the cache)
// and a twin `plain` (cache=0) over the same subspace. After every step
// both read the same, by id and by full scan; every document's whole read
// is a cache hit (one row read); and, with the SQLite store, the twin's
// leaves are byte for byte the same keys and "docs_json" holds exactly one
// entry per document with the reassembled text.
TEST_P(DocsCacheStoresTest, CacheAgreesWithLeavesAfterRandomWrites) {
  sqlite3* h = db.handle();
  const bool sqlite_store = GetParam() == "sqlite";
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE plain USING tuplekv_docs(store=" + GetParam() +
                      ", subspace=docs, cache=0)"));
  std::mt19937 rng(2024);
  auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
  int txn_depth = -1;  // -1: no transaction; else savepoints open
  int ok_writes = 0, failed_writes = 0, rollbacks = 0;
  const int steps = 400;
  for (int step = 0; step < steps; ++step) {
    // Transaction control, on the connection (both tables together).
    const int t = pick(6);
    if (txn_depth < 0 && t == 0) {
      ASSERT_TRUE(db.exec("BEGIN"));
      txn_depth = 0;
    } else if (txn_depth >= 0 && t == 0) {
      ASSERT_TRUE(db.exec("SAVEPOINT s" + std::to_string(++txn_depth)));
    } else if (txn_depth > 0 && t == 1) {
      ASSERT_TRUE(db.exec("ROLLBACK TO s" + std::to_string(txn_depth)));
      ++rollbacks;
      if (pick(2)) {
        ASSERT_TRUE(db.exec("RELEASE s" + std::to_string(txn_depth--)));
      }
    } else if (txn_depth > 0 && t == 2) {
      ASSERT_TRUE(db.exec("RELEASE s" + std::to_string(txn_depth--)));
    } else if (txn_depth >= 0 && t == 3) {
      const bool commit = pick(2) == 0;
      ASSERT_TRUE(db.exec(commit ? "COMMIT" : "ROLLBACK"));
      if (!commit) ++rollbacks;
      txn_depth = -1;
    }
    // One write, the same on both tables.
    const std::string id = std::to_string(1 + pick(6));
    const std::string id2 = std::to_string(1 + pick(6));
    std::vector<std::string> paths = paths_of_plain(id);
    if (paths.empty()) paths = {"$", "$.a", "$.new.x", "$[0]", "$[#]"};
    const std::string path = paths[static_cast<size_t>(pick(static_cast<int>(paths.size())))];
    const std::string value = random_json(&rng, pick(4));
    std::string sql;
    std::vector<std::string> params;
    switch (pick(9)) {
      case 0: sql = "INSERT OR REPLACE INTO {T}(id, doc) VALUES (?1, ?2)"; params = {id, value}; break;
      case 1: sql = "INSERT INTO {T}(id, doc) VALUES (?1, ?2)"; params = {id, value}; break;
      case 2: sql = "UPDATE {T} SET doc = ?2 WHERE id = ?1"; params = {id, value}; break;
      case 3:
      case 4: sql = "UPDATE {T} SET doc = ?2 WHERE id = ?1 AND path = ?3"; params = {id, value, path}; break;
      case 5: sql = "DELETE FROM {T} WHERE id = ?1 AND path = ?2"; params = {id, path}; break;
      case 6: sql = pick(3) ? "DELETE FROM {T} WHERE path = ?1" : "DELETE FROM {T} WHERE id = ?1";
              params = {pick(2) ? path : id}; break;
      case 7: sql = "UPDATE OR REPLACE {T} SET id = ?2 WHERE id = ?1"; params = {id, id2}; break;
      default:  // fails at its second row: the statement leaves nothing
        sql = "INSERT INTO {T}(id, doc) VALUES (?1 + 10, ?2), (?1 + 20, '{bad')"; params = {id, value};
    }
    Outcome outcomes[2];
    int k = 0;
    for (const char* table : {"docs", "plain"}) {
      std::string text = sql;
      text.replace(text.find("{T}"), 3, table);
      outcomes[k++] = run(h, text, params);
    }
    ASSERT_EQ(outcomes[0].ok, outcomes[1].ok) << sql << "\n" << outcomes[0].error << "\n" << outcomes[1].error;
    (outcomes[0].ok ? ok_writes : failed_writes)++;
    // The cache reads what the leaves read.
    const Rows with_cache = db.rows("SELECT quote(id), doc FROM docs");
    ASSERT_EQ(with_cache, db.rows("SELECT quote(id), doc FROM plain")) << "step " << step << ": " << sql;
    for (const Row& r : with_cache) {
      db.value("SELECT tuplekv_stats('docs', 'reset')");
      ASSERT_EQ(db.value("SELECT doc FROM docs WHERE id = " + r[0]), r[1]);
      const std::string stats = db.value("SELECT tuplekv_stats('docs', 'reset')");
      ASSERT_NE(stats.find(R"("rows":1,)"), std::string::npos) << "no cache entry for " << r[0];
    }
    if (sqlite_store) {
      ASSERT_EQ(db.rows("SELECT hex(k), hex(v) FROM docs_kv"), db.rows("SELECT hex(k), hex(v) FROM plain_kv"));
      ASSERT_EQ(db.rows("SELECT tuple_repr(id), doc FROM docs_json ORDER BY id"),
                db.rows("SELECT tuple_repr(tuple_pack(id)), doc FROM plain"));
    }
  }
  if (txn_depth >= 0) {
    ASSERT_TRUE(db.exec("COMMIT"));
  }
  EXPECT_GT(ok_writes, steps / 2);
  EXPECT_GT(failed_writes, 10);
  EXPECT_GT(rollbacks, 10);
}

// ROLLBACK and ROLLBACK TO undo the entries with the leaves, written
// whole, at a path, deleted, and by a statement that fails half-way.
TEST_P(DocsCacheStoresTest, CacheAndLeavesAgreeAfterRollbackAndRollbackTo) {
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE leaves USING tuplekv_leaves(docs)"));
  ASSERT_TRUE(db.exec(
      R"(INSERT INTO docs(id, doc) VALUES (1, '{"a":[1,2],"b":{"c":"x"}}'), (2, '[true]'))"));
  const Rows committed = db.rows("SELECT id, doc FROM docs");
  ASSERT_TRUE(db.exec("BEGIN"));
  ASSERT_TRUE(db.exec(R"(UPDATE docs SET doc = '{"n":null}' WHERE id = 1 AND path = '$.a[#]';)"
                      R"(INSERT INTO docs(id, doc) VALUES (3, '"three"'))"));
  expect_cache_agrees_with_leaves();
  const Rows before_savepoint = db.rows("SELECT id, doc FROM docs");
  EXPECT_EQ(before_savepoint, (Rows{{"1", R"({"a":[1,2,{"n":null}],"b":{"c":"x"}})"},
                                    {"2", "[true]"},
                                    {"3", "\"three\""}}));
  ASSERT_TRUE(db.exec(
      "SAVEPOINT s; DELETE FROM docs WHERE id = 2; DELETE FROM docs WHERE id = 1 AND path = '$.b';"
      "UPDATE docs SET doc = '[3]' WHERE id = 3; INSERT INTO docs(id, doc) VALUES (4, '{}')"));
  EXPECT_NE(db.error("INSERT INTO docs(id, doc) VALUES (5, '[5]'), (6, '{bad')"), "");
  expect_cache_agrees_with_leaves();
  EXPECT_EQ(db.rows("SELECT id, doc FROM docs"),
            (Rows{{"1", R"({"a":[1,2,{"n":null}]})"}, {"3", "[3]"}, {"4", "{}"}}));
  ASSERT_TRUE(db.exec("ROLLBACK TO s"));
  expect_cache_agrees_with_leaves();
  EXPECT_EQ(db.rows("SELECT id, doc FROM docs"), before_savepoint);
  ASSERT_TRUE(db.exec("ROLLBACK"));
  expect_cache_agrees_with_leaves();
  EXPECT_EQ(db.rows("SELECT id, doc FROM docs"), committed);
}

// ---------------------------------------------------------------------------
// The "<name>_json" shadow table of the SQLite store

TEST(DocsCacheTest, ShadowTableIsReadOnlyUnderDefensive) {
  Db db;
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE d USING tuplekv_docs; INSERT INTO d(id, doc) VALUES (1, '[1]')"));
  EXPECT_EQ(db.rows("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name"),
            (Rows{{"d"}, {"d_json"}, {"d_kv"}}));
  int on = 0;
  ASSERT_EQ(sqlite3_db_config(db.handle(), SQLITE_DBCONFIG_DEFENSIVE, 1, &on), SQLITE_OK);
  EXPECT_EQ(db.error("DELETE FROM d_json"), "table d_json may not be modified");
  EXPECT_EQ(db.error("UPDATE d_json SET doc = '[2]'"), "table d_json may not be modified");
  EXPECT_EQ(db.error("INSERT INTO d_json VALUES (x'00', '0')"), "table d_json may not be modified");
  EXPECT_EQ(db.rows("SELECT hex(id), doc FROM d_json"), (Rows{{"1501", "[1]"}}));
  ASSERT_TRUE(db.exec("UPDATE d SET doc = '5' WHERE id = 1 AND path = '$[1]'; INSERT INTO d(doc) VALUES ('{}')"));
  EXPECT_EQ(db.rows("SELECT hex(id), doc FROM d_json"), (Rows{{"1501", "[1,5]"}, {"1502", "{}"}}));
}

TEST(DocsCacheTest, RenameAndDropMoveTheCache) {
  Db db;
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE d USING tuplekv_docs; INSERT INTO d(id, doc) VALUES (1, '[1]')"));
  ASSERT_TRUE(db.exec("ALTER TABLE d RENAME TO d2"));
  EXPECT_EQ(db.value("SELECT changes()"), "1");  // the INSERT's, as natively
  EXPECT_EQ(db.rows("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name"),
            (Rows{{"d2"}, {"d2_json"}, {"d2_kv"}}));
  EXPECT_EQ(db.value("SELECT doc FROM d2 WHERE id = 1"), "[1]");
  ASSERT_TRUE(db.exec("UPDATE d2 SET doc = '2' WHERE id = 1 AND path = '$[0]'"));
  EXPECT_EQ(db.rows("SELECT doc FROM d2_json"), (Rows{{"[2]"}}));
  // A rename rolled back leaves the names (and the cache) as they were.
  ASSERT_TRUE(db.exec("BEGIN; ALTER TABLE d2 RENAME TO d3; ROLLBACK"));
  EXPECT_EQ(db.value("SELECT doc FROM d2 WHERE id = 1"), "[2]");
  ASSERT_TRUE(db.exec("DROP TABLE d2"));
  EXPECT_EQ(db.value("SELECT count(*) FROM sqlite_schema"), "0");
  // cache=0 and mode=merge make no cache table.
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE a USING tuplekv_docs(cache=0);"
                      "CREATE VIRTUAL TABLE b USING tuplekv_docs(mode=merge)"));
  EXPECT_EQ(db.rows("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name"),
            (Rows{{"a"}, {"a_kv"}, {"b"}, {"b_kv"}}));
  EXPECT_EQ(db.error("CREATE VIRTUAL TABLE c USING tuplekv_docs(cache=maybe)"),
            "tuplekv_docs: cache must be 1 or 0 (true/false, yes/no, on/off), not 'maybe'");
}

TEST(DocsCacheTest, MissingOrCorruptEntries) {
  Db db;
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE d USING tuplekv_docs;"
                      "INSERT INTO d(id, doc) VALUES (1, '{\"a\":[1,2]}'), (2, '{\"t\":2}')"));
  // A missing entry: the document is reassembled from its leaves.
  ASSERT_TRUE(db.exec("DELETE FROM d_json WHERE id = tuple_pack(1)"));
  EXPECT_EQ(db.value("SELECT doc FROM d WHERE id = 1"), "{\"a\":[1,2]}");
  EXPECT_EQ(db.rows("SELECT id, doc FROM d"), (Rows{{"1", "{\"a\":[1,2]}"}, {"2", "{\"t\":2}"}}));
  // The next write of the document puts the entry back.
  ASSERT_TRUE(db.exec("UPDATE d SET doc = '3' WHERE id = 1 AND path = '$.a[#]'"));
  EXPECT_EQ(db.value("SELECT doc FROM d_json WHERE id = tuple_pack(1)"), "{\"a\":[1,2,3]}");
  // An entry that is not text: an error, by id and in a full scan.
  ASSERT_TRUE(db.exec("UPDATE d_json SET doc = x'3432' WHERE id = tuple_pack(2)"));
  const std::string corrupt =
      "tuplekv_docs: corrupt store of d: corrupt shadow table \"main\".\"d_json\": the doc of id "
      "x'1502' is BLOB, not TEXT";
  EXPECT_EQ(db.error("SELECT doc FROM d WHERE id = 2"), corrupt);
  EXPECT_EQ(db.error_code("SELECT doc FROM d"), SQLITE_CORRUPT_VTAB);
  // Subtree reads use the leaves and still work; rewriting the document repairs the entry.
  EXPECT_EQ(db.value("SELECT doc FROM d WHERE id = 2 AND path = '$.t'"), "2");
  ASSERT_TRUE(db.exec("UPDATE d SET doc = '\"2\"' WHERE id = 2"));
  EXPECT_EQ(db.value("SELECT doc FROM d WHERE id = 2"), "\"2\"");
  // A table without its cache table (made before there was one) works on
  // its leaves alone.
  const std::string path = ::testing::TempDir() + "docs_without_cache.db";
  std::remove(path.c_str());
  {
    Db a(path);
    ASSERT_TRUE(a.exec("CREATE VIRTUAL TABLE d USING tuplekv_docs;"
                       "INSERT INTO d(id, doc) VALUES (1, '[1]'); DROP TABLE d_json"));
  }
  {
    Db b(path);
    EXPECT_EQ(b.value("SELECT doc FROM d WHERE id = 1"), "[1]");
    ASSERT_TRUE(b.exec("INSERT INTO d(id, doc) VALUES (2, '{}'); UPDATE d SET doc = 0 WHERE id = 1 AND path = '$[0]'"));
    EXPECT_EQ(b.rows("SELECT id, doc FROM d"), (Rows{{"1", "[0]"}, {"2", "{}"}}));
    ASSERT_TRUE(b.exec("DROP TABLE d"));
    EXPECT_EQ(b.value("SELECT count(*) FROM sqlite_schema"), "0");
  }
  std::remove(path.c_str());
}

}  // namespace
}  // namespace tuplekv::testing
