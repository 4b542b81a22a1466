// SqliteStore (ext/sqlite_store.h) driven directly, below any virtual
// table. First the shared store conformance suite (tests/store_conformance.h;
// its transaction suite is for stores that undo writes themselves, and
// SqliteStore leaves that to SQLite, so rollback is tested here through
// SQLite transactions and savepoints instead). Then what only this store
// has: DDL helpers and identifier quoting in main/temp/attached schemas,
// statement reuse, several cursors at once, writes during scans,
// corruption, native error codes, rename and drop.
#include "ext/sqlite_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/tuple.h"
#include "tests/store_conformance.h"
#include "tests/testutil.h"

namespace tuplekv::testing {

// A fresh :memory: connection per test, one shadow table in it.
struct SqliteStoreFactory {
  std::unique_ptr<OrderedStore> make() {
    const Status s = ext::SqliteStore::create_table(db.handle(), "main", "conformance");
    EXPECT_TRUE(s.ok()) << s.message();
    auto r = ext::SqliteStore::open(db.handle(), "main", "conformance");
    EXPECT_TRUE(r.ok()) << r.status().message();
    return r.ok() ? std::move(r).value() : nullptr;
  }
  // Every stored key and value is a BLOB, and the b-tree is sound.
  Status check(OrderedStore*) {
    const std::string bad = db.value(
        "SELECT count(*) FROM conformance_kv WHERE typeof(k)<>'blob' OR typeof(v)<>'blob'");
    if (bad != "0") return Status::Corruption(bad + " rows are not BLOB/BLOB");
    const std::string integrity = db.value("PRAGMA integrity_check");
    if (integrity != "ok") return Status::Corruption(integrity);
    return Status::OK();
  }
  Db db;
};

INSTANTIATE_TYPED_TEST_SUITE_P(Sqlite, StoreConformanceTest, ::testing::Types<SqliteStoreFactory>);

// The same store holding writes back in a write batch, inside a transaction
// that the test never ends: every read goes through the batch, merged with
// the shadow table. With a limit of one byte each write first applies the
// one before it, so scans also meet applies under way; with 0 (the default
// limit) the batch is applied only where check() syncs it.
template <size_t kBatchLimit>
struct BatchedStoreFactory {
  std::unique_ptr<OrderedStore> make() {
    std::unique_ptr<OrderedStore> made = plain.make();
    if (made == nullptr) return nullptr;
    auto* store = static_cast<ext::SqliteStore*>(made.get());
    store->enable_write_batching();
    if (kBatchLimit != 0) store->set_batch_limit(kBatchLimit);
    EXPECT_TRUE(db.exec("BEGIN"));
    EXPECT_TRUE(store->begin().ok());
    return made;
  }
  // Applies the batch, then checks what SqliteStoreFactory checks.
  Status check(OrderedStore* store) {
    TUPLEKV_RETURN_IF_ERROR(store->sync());
    return plain.check(nullptr);
  }
  SqliteStoreFactory plain;
  Db& db = plain.db;
};
using ApplyingEveryWrite = BatchedStoreFactory<1>;
using HoldingEveryWrite = BatchedStoreFactory<0>;
using BatchedFactories = ::testing::Types<ApplyingEveryWrite, HoldingEveryWrite>;
INSTANTIATE_TYPED_TEST_SUITE_P(SqliteBatched, StoreConformanceTest, BatchedFactories);
// Not StoreTransactionTest: SQLite undoes the writes, not the store
// (RollbackAndSavepointsUndoThroughSqlite below).

}  // namespace tuplekv::testing

namespace tuplekv::ext {
namespace {

using testing::Db;
using testing::Rows;

using Pairs = std::vector<std::pair<Bytes, Bytes>>;
using Model = std::map<Bytes, Bytes>;

Bytes b(std::string_view s) { return Bytes(s); }

// Every pair the cursor yields from where it is.
Pairs drain(Cursor* c) {
  Pairs out;
  while (c->valid()) {
    out.emplace_back(Bytes(c->key()), Bytes(c->value()));
    c->next();
  }
  EXPECT_TRUE(c->status().ok()) << c->status().message();
  return out;
}

Pairs model_range(const Model& m, const KeyRange& r, bool reverse, uint64_t limit) {
  Pairs out;
  for (const auto& [k, v] : m) {
    if (r.contains(k)) out.emplace_back(k, v);
  }
  if (reverse) std::reverse(out.begin(), out.end());
  if (limit != 0 && out.size() > limit) out.resize(limit);
  return out;
}

int statement_count(sqlite3* db) {
  int n = 0;
  for (sqlite3_stmt* s = sqlite3_next_stmt(db, nullptr); s != nullptr;
       s = sqlite3_next_stmt(db, s)) {
    ++n;
  }
  return n;
}

int busy_statements(sqlite3* db) {
  int n = 0;
  for (sqlite3_stmt* s = sqlite3_next_stmt(db, nullptr); s != nullptr;
       s = sqlite3_next_stmt(db, s)) {
    n += sqlite3_stmt_busy(s) ? 1 : 0;
  }
  return n;
}

std::unique_ptr<SqliteStore> must_open(sqlite3* db, const std::string& schema,
                                       const std::string& name) {
  auto r = SqliteStore::open(db, schema, name);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? std::move(r).value() : nullptr;
}

std::unique_ptr<Cursor> must_scan(OrderedStore* s, const KeyRange& r, const ScanOptions& o = {}) {
  auto c = s->scan(r, o);
  EXPECT_TRUE(c.ok()) << c.status().message();
  return c.ok() ? std::move(c).value() : nullptr;
}

class SqliteStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    TUPLEKV_ASSERT_OK(SqliteStore::create_table(db_.handle(), "main", "t"));
    store_ = must_open(db_.handle(), "main", "t");
    ASSERT_NE(store_, nullptr);
  }
  void TearDown() override { store_.reset(); }

  void fill(const Model& m) {
    for (const auto& [k, v] : m) TUPLEKV_ASSERT_OK(store_->set(k, v));
  }
  Pairs all(const ScanOptions& o = {}) {
    auto c = must_scan(store_.get(), KeyRange{}, o);
    return c ? drain(c.get()) : Pairs{};
  }

  Db db_;
  std::unique_ptr<SqliteStore> store_;
};

// ---------------------------------------------------------------------------
// DDL and names

TEST_F(SqliteStoreTest, CreatesTheDocumentedShadowTable) {
  EXPECT_EQ(db_.value("SELECT sql FROM sqlite_schema WHERE name='t_kv'"),
            "CREATE TABLE \"t_kv\"(k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID");
  const Status again = SqliteStore::create_table(db_.handle(), "main", "t");
  EXPECT_FALSE(again.ok());
  EXPECT_EQ(again.native_code(), SQLITE_ERROR);
  EXPECT_EQ(again.message(), "cannot create \"main\".\"t_kv\": table \"t_kv\" already exists");
}

TEST(SqliteStoreNames, QuotesEveryIdentifier) {
  Db db;
  db.exec("ATTACH ':memory:' AS \"odd \"\"db\"\" name\"");
  const std::string names[] = {
      "plain",   "with space", "dq\"uote", "sq'uote",   "x\"; DROP TABLE y; --",
      "Ünïcode", "[bracket]",  "`tick`",   "semi;colon"};
  for (const std::string schema : {"main", "temp", "odd \"db\" name"}) {
    for (const std::string& name : names) {
      SCOPED_TRACE(schema + " / " + name);
      TUPLEKV_ASSERT_OK(SqliteStore::create_table(db.handle(), schema, name));
      auto store = must_open(db.handle(), schema, name);
      ASSERT_NE(store, nullptr);
      TUPLEKV_ASSERT_OK(store->set(b("k"), schema + name));
      Bytes v;
      bool found = false;
      TUPLEKV_ASSERT_OK(store->get(b("k"), &v, &found));
      EXPECT_TRUE(found);
      EXPECT_EQ(v, schema + name);
      // The table has exactly the expected name in exactly that schema.
      sqlite3_stmt* st = nullptr;
      const std::string q = "SELECT count(*) FROM pragma_table_list WHERE schema=?1 AND name=?2";
      ASSERT_EQ(sqlite3_prepare_v2(db.handle(), q.c_str(), -1, &st, nullptr), SQLITE_OK);
      sqlite3_bind_text(st, 1, schema.c_str(), -1, SQLITE_TRANSIENT);
      sqlite3_bind_text(st, 2, (name + "_kv").c_str(), -1, SQLITE_TRANSIENT);
      ASSERT_EQ(sqlite3_step(st), SQLITE_ROW);
      EXPECT_EQ(sqlite3_column_int(st, 0), 1);
      sqlite3_finalize(st);
      const std::string renamed = name + " 2";
      TUPLEKV_ASSERT_OK(SqliteStore::rename_table(db.handle(), schema, name, renamed));
      TUPLEKV_ASSERT_OK(store->renamed(renamed));
      TUPLEKV_ASSERT_OK(store->get(b("k"), &v, &found));
      EXPECT_TRUE(found);
      store.reset();
      TUPLEKV_ASSERT_OK(SqliteStore::drop_table(db.handle(), schema, renamed));
    }
  }
  EXPECT_EQ(db.value("SELECT count(*) FROM pragma_table_list WHERE name LIKE '%kv'"), "0");
}

TEST(SqliteStoreNames, SchemasAreIndependent) {
  Db db;
  db.exec("ATTACH ':memory:' AS aux");
  std::unique_ptr<SqliteStore> stores[3];
  const char* schemas[] = {"main", "temp", "aux"};
  for (int i = 0; i < 3; ++i) {
    TUPLEKV_ASSERT_OK(SqliteStore::create_table(db.handle(), schemas[i], "t"));
    stores[i] = must_open(db.handle(), schemas[i], "t");
    ASSERT_NE(stores[i], nullptr);
    TUPLEKV_ASSERT_OK(stores[i]->set(b("k"), schemas[i]));
  }
  EXPECT_EQ(db.rows("SELECT v FROM main.t_kv UNION ALL SELECT v FROM temp.t_kv "
                    "UNION ALL SELECT v FROM aux.t_kv"),
            (Rows{{"x'6D61696E'"}, {"x'74656D70'"}, {"x'617578'"}}));
  for (int i = 0; i < 3; ++i) {
    Bytes v;
    bool found = false;
    TUPLEKV_ASSERT_OK(stores[i]->get(b("k"), &v, &found));
    EXPECT_EQ(v, schemas[i]);
  }
}

TEST(SqliteStoreNames, OpenReportsAMissingTable) {
  Db db;
  auto r = SqliteStore::open(db.handle(), "main", "nope");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().native_code(), SQLITE_ERROR);
  EXPECT_EQ(r.status().message(),
            "cannot prepare a statement on \"main\".\"nope_kv\": no such table: main.nope_kv");
  r = SqliteStore::open(db.handle(), "nodb", "t");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().native_code(), SQLITE_ERROR);
}

// ---------------------------------------------------------------------------
// Point operations

TEST_F(SqliteStoreTest, GetSetClear) {
  Bytes v = "untouched";
  bool found = true;
  TUPLEKV_ASSERT_OK(store_->get(b("a"), &v, &found));
  EXPECT_FALSE(found);
  EXPECT_EQ(v, "untouched");
  TUPLEKV_ASSERT_OK(store_->set(b("a"), b("1")));
  TUPLEKV_ASSERT_OK(store_->set(b("b"), b("2")));
  TUPLEKV_ASSERT_OK(store_->set(b("a"), b("3")));  // overwrite
  TUPLEKV_ASSERT_OK(store_->get(b("a"), &v, &found));
  EXPECT_TRUE(found);
  EXPECT_EQ(v, "3");
  TUPLEKV_ASSERT_OK(store_->clear(b("a")));
  TUPLEKV_ASSERT_OK(store_->clear(b("a")));  // absent: not an error
  TUPLEKV_ASSERT_OK(store_->get(b("a"), &v, &found));
  EXPECT_FALSE(found);
  EXPECT_EQ(all(), (Pairs{{"b", "2"}}));
  EXPECT_EQ(busy_statements(db_.handle()), 0);
}

TEST_F(SqliteStoreTest, InsertKeepsAnExistingPair) {
  bool inserted = false;
  TUPLEKV_ASSERT_OK(store_->insert(b("a"), b("1"), &inserted));
  EXPECT_TRUE(inserted);
  TUPLEKV_ASSERT_OK(store_->insert(b("a"), b("2"), &inserted));
  EXPECT_FALSE(inserted);
  TUPLEKV_ASSERT_OK(store_->insert(b(""), b(""), &inserted));
  EXPECT_TRUE(inserted);
  // sqlite3_changes() of an unrelated earlier statement does not leak in.
  db_.exec("CREATE TABLE other(x); INSERT INTO other VALUES(1),(2),(3)");
  TUPLEKV_ASSERT_OK(store_->insert(b("a"), b("3"), &inserted));
  EXPECT_FALSE(inserted);
  db_.exec("INSERT INTO other VALUES(1)");
  TUPLEKV_ASSERT_OK(store_->insert(b("b"), b("4"), &inserted));
  EXPECT_TRUE(inserted);
  EXPECT_EQ(all(), (Pairs{{"", ""}, {"a", "1"}, {"b", "4"}}));
  sqlite3_limit(db_.handle(), SQLITE_LIMIT_LENGTH, 10);
  inserted = true;
  EXPECT_EQ(store_->insert(b("c"), Bytes(20, 'v'), &inserted).native_code(), SQLITE_TOOBIG);
  EXPECT_FALSE(inserted);
}

TEST_F(SqliteStoreTest, InsertBatchWritesWhatIsAbsent) {
  size_t inserted = 99;
  TUPLEKV_ASSERT_OK(store_->insert_batch(b("r1"), b("v1"), {b("i1"), b("i2")}, &inserted));
  EXPECT_EQ(inserted, 3u);
  EXPECT_EQ(all(), (Pairs{{"i1", ""}, {"i2", ""}, {"r1", "v1"}}));
  // Present keys keep their values; only the absent ones count.
  TUPLEKV_ASSERT_OK(store_->insert_batch(b("r1"), b("other"), {b("i1"), b("i3")}, &inserted));
  EXPECT_EQ(inserted, 1u);
  EXPECT_EQ(all(), (Pairs{{"i1", ""}, {"i2", ""}, {"i3", ""}, {"r1", "v1"}}));
  TUPLEKV_ASSERT_OK(store_->insert_batch(b("r1"), b("v1"), {b("i1")}, &inserted));
  EXPECT_EQ(inserted, 0u);
  // Every count up to the most, each with its own statement.
  for (size_t n = 1; n <= SqliteStore::kMaxBatchKeys; ++n) {
    std::vector<Bytes> keys;
    for (size_t i = 0; i < n; ++i) keys.push_back("e" + std::to_string(n) + "." + std::to_string(i));
    TUPLEKV_ASSERT_OK(store_->insert_batch("row" + std::to_string(n), b("v"), keys, &inserted));
    EXPECT_EQ(inserted, n + 1);
  }
  EXPECT_EQ(all().size(), 4u + 8u + 36u);
  EXPECT_EQ(busy_statements(db_.handle()), 0);
  EXPECT_EQ(store_->insert_batch(b("x"), b("v"), {}, &inserted).code(), StatusCode::kInternal);
  EXPECT_EQ(store_->insert_batch(b("x"), b("v"), std::vector<Bytes>(9, b("k")), &inserted).code(),
            StatusCode::kInternal);
  // A key over SQLite's length limit fails before anything is written.
  sqlite3_limit(db_.handle(), SQLITE_LIMIT_LENGTH, 10);
  inserted = 99;
  EXPECT_EQ(store_->insert_batch(b("y"), b("v"), {b("ok"), Bytes(20, 'k')}, &inserted).native_code(),
            SQLITE_TOOBIG);
  EXPECT_EQ(inserted, 0u);
  sqlite3_limit(db_.handle(), SQLITE_LIMIT_LENGTH, 1000000);
  EXPECT_EQ(all().size(), 48u);
  // After a rename the statements name the new table.
  TUPLEKV_ASSERT_OK(SqliteStore::rename_table(db_.handle(), "main", "t", "u"));
  TUPLEKV_ASSERT_OK(store_->renamed("u"));
  TUPLEKV_ASSERT_OK(store_->insert_batch(b("r9"), b("v9"), {b("i9")}, &inserted));
  EXPECT_EQ(inserted, 2u);
  EXPECT_EQ(db_.value("SELECT count(*) FROM u_kv"), "50");
}

TEST_F(SqliteStoreTest, ZeroLengthKeysAndValuesAreBlobs) {
  TUPLEKV_ASSERT_OK(store_->set(b(""), b("")));
  TUPLEKV_ASSERT_OK(store_->set(Bytes("\0", 1), b("")));
  TUPLEKV_ASSERT_OK(store_->set(b("a"), BytesView()));  // null data(), still a blob
  EXPECT_EQ(
      db_.rows("SELECT typeof(k), length(k), typeof(v), length(v) FROM t_kv"),
      (Rows{{"blob", "0", "blob", "0"}, {"blob", "1", "blob", "0"}, {"blob", "1", "blob", "0"}}));
  Bytes v = "x";
  bool found = false;
  TUPLEKV_ASSERT_OK(store_->get(BytesView(), &v, &found));
  EXPECT_TRUE(found);
  EXPECT_EQ(v, "");
  EXPECT_EQ(all(), (Pairs{{"", ""}, {Bytes("\0", 1), ""}, {"a", ""}}));
  // A cursor's empty views still have a non-null data().
  auto c = must_scan(store_.get(), KeyRange{});
  ASSERT_TRUE(c->valid());
  EXPECT_NE(c->key().data(), nullptr);
  EXPECT_NE(c->value().data(), nullptr);
  // [x'', x'00') holds exactly the empty key.
  c = must_scan(store_.get(), KeyRange{"", Bytes("\0", 1)});
  EXPECT_EQ(drain(c.get()), (Pairs{{"", ""}}));
  TUPLEKV_ASSERT_OK(store_->clear(b("")));
  EXPECT_EQ(db_.value("SELECT count(*) FROM t_kv"), "2");
}

TEST_F(SqliteStoreTest, LargeValues) {
  std::mt19937 rng(7);
  Bytes big(1 << 20, '\0');
  for (char& ch : big) ch = static_cast<char>(rng());
  Bytes big_key(100000, 'k');
  big_key.back() = 'z';
  TUPLEKV_ASSERT_OK(store_->set(b("big"), big));
  TUPLEKV_ASSERT_OK(store_->set(big_key, big));
  Bytes v;
  bool found = false;
  TUPLEKV_ASSERT_OK(store_->get(b("big"), &v, &found));
  EXPECT_TRUE(found);
  EXPECT_EQ(v, big);
  const Pairs got = all();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].first, "big");
  EXPECT_EQ(got[0].second, big);
  EXPECT_EQ(got[1].first, big_key);
  EXPECT_EQ(got[1].second, big);
}

TEST_F(SqliteStoreTest, NativeErrorCodesPassThrough) {
  // SQLITE_FULL from a page-count cap.
  db_.exec("PRAGMA max_page_count = 8");
  Status full;
  for (int i = 0; i < 100 && full.ok(); ++i)
    full = store_->set(std::to_string(i), Bytes(4000, 'v'));
  EXPECT_EQ(full.code(), StatusCode::kIOError);
  EXPECT_EQ(full.native_code(), SQLITE_FULL);
  EXPECT_EQ(full.message(), "writing \"main\".\"t_kv\": database or disk is full");
  EXPECT_EQ(busy_statements(db_.handle()), 0);
}

TEST_F(SqliteStoreTest, OutOfMemoryPassesThrough) {
  const Bytes big(1 << 20, 'v');
  TUPLEKV_ASSERT_OK(store_->set(b("big"), big));
  TUPLEKV_ASSERT_OK(store_->set(b("small"), b("v")));
  // SQLite's own allocation cap (process-wide, so restored right after).
  const sqlite3_int64 old_limit = sqlite3_hard_heap_limit64(sqlite3_memory_used() + 256 * 1024);
  const Status w = store_->set(b("big2"), big);
  Bytes v;
  bool found = true;
  const Status g = store_->get(b("big"), &v, &found);
  auto c = store_->scan(KeyRange{}, ScanOptions{});
  sqlite3_hard_heap_limit64(old_limit);
  EXPECT_EQ(w.code(), StatusCode::kNoMemory);
  EXPECT_EQ(w.native_code(), SQLITE_NOMEM);
  EXPECT_EQ(w.message(), "writing \"main\".\"t_kv\": out of memory");
  EXPECT_EQ(g.code(), StatusCode::kNoMemory);
  EXPECT_EQ(g.native_code(), SQLITE_NOMEM);
  EXPECT_FALSE(found);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().native_code(), SQLITE_NOMEM);
  // Nothing was half-written, and everything works again.
  EXPECT_EQ(all(), (Pairs{{"big", big}, {"small", "v"}}));
  EXPECT_EQ(busy_statements(db_.handle()), 0);
}

TEST(SqliteStoreErrors, BusyAndReadOnlyPassThrough) {
  const std::string path = ::testing::TempDir() + "sqlite_store_busy.db";
  std::remove(path.c_str());
  {
    Db writer(path);
    TUPLEKV_ASSERT_OK(SqliteStore::create_table(writer.handle(), "main", "t"));
    Db other(path);
    auto store = must_open(other.handle(), "main", "t");
    ASSERT_NE(store, nullptr);
    writer.exec("BEGIN IMMEDIATE; INSERT INTO t_kv VALUES(x'01', x'01')");
    const Status s = store->set(b("k"), b("v"));
    EXPECT_EQ(s.code(), StatusCode::kBusy);
    EXPECT_EQ(s.native_code(), SQLITE_BUSY);
    EXPECT_EQ(s.message(), "writing \"main\".\"t_kv\": database is locked");
    writer.exec("COMMIT");
    TUPLEKV_EXPECT_OK(store->set(b("k"), b("v")));
    store.reset();
    Db ro("file:" + path + "?mode=ro");
    store = must_open(ro.handle(), "main", "t");
    ASSERT_NE(store, nullptr);
    const Status r = store->set(b("k"), b("w"));
    EXPECT_EQ(r.native_code() & 0xff, SQLITE_READONLY);
    EXPECT_EQ(r.message(), "writing \"main\".\"t_kv\": attempt to write a readonly database");
    Bytes v;
    bool found = false;
    TUPLEKV_EXPECT_OK(store->get(b("k"), &v, &found));
    EXPECT_EQ(v, "v");
    store.reset();  // before its connection closes
  }
  std::remove(path.c_str());
}

// ---------------------------------------------------------------------------
// Scans

Model sample() {
  Model m;
  for (const char* k : {"", "a", "a\x01", "ab", "b", "b\xff", "c", "\xff", "\xff\xff"}) {
    m[k] = std::string("v:") + k;
  }
  m[Bytes("\0", 1)] = "zero";
  m[Bytes("a\0", 2)] = "a-zero";
  return m;
}

TEST_F(SqliteStoreTest, EveryScanShapeMatchesTheModel) {
  const Model m = sample();
  fill(m);
  std::vector<Bytes> bounds = {"",  Bytes("\0", 1), "a",        Bytes("a\0", 2), "ab", "abc", "b",
                               "c", "\xff",         "\xff\xff", "\xff\xff\xff"};
  for (const Bytes& begin : bounds) {
    for (const Bytes& end : bounds) {
      for (bool reverse : {false, true}) {
        for (bool keys_only : {false, true}) {
          for (uint64_t limit : {0, 1, 3}) {
            const KeyRange r{begin, end};
            const ScanOptions o{reverse, limit, keys_only};
            SCOPED_TRACE(to_hex(begin) + ".." + to_hex(end) + (reverse ? " rev" : "") +
                         (keys_only ? " keys" : "") + " limit " + std::to_string(limit));
            auto c = must_scan(store_.get(), r, o);
            ASSERT_NE(c, nullptr);
            Pairs want = model_range(m, r, reverse, limit);
            if (keys_only) {
              for (auto& p : want) p.second.clear();
            }
            EXPECT_EQ(drain(c.get()), want);
          }
        }
      }
    }
  }
  EXPECT_EQ(busy_statements(db_.handle()), 0);
}

TEST_F(SqliteStoreTest, RescanReusesTheCursor) {
  const Model m = sample();
  fill(m);
  for (bool reverse : {false, true}) {
    auto c = must_scan(store_.get(), KeyRange{"a", "b"}, ScanOptions{reverse, 2, false});
    EXPECT_EQ(drain(c.get()), model_range(m, KeyRange{"a", "b"}, reverse, 2));
    const int before = statement_count(db_.handle());
    // Mid-scan rescan, a shape change (unbounded end), an empty range, and
    // back: the same cursor, and no statement prepared.
    const KeyRange ranges[] = {{"", ""},   {"b", ""}, {"c", "a"},
                               {"a", "a"}, {"", "b"}, {"\xff", ""}};
    for (const KeyRange& r : ranges) {
      TUPLEKV_ASSERT_OK(c->rescan(r));
      if (c->valid()) {
        Bytes first(c->key());
        c->next();
        TUPLEKV_ASSERT_OK(c->rescan(r));
        EXPECT_EQ(c->key(), first);
      }
      EXPECT_EQ(drain(c.get()), model_range(m, r, reverse, 2));
    }
    EXPECT_EQ(statement_count(db_.handle()), before);
  }
  EXPECT_EQ(busy_statements(db_.handle()), 0);
}

TEST_F(SqliteStoreTest, RescanCopiesTheRange) {
  fill(sample());
  auto c = must_scan(store_.get(), KeyRange{});
  {
    KeyRange temporary{"a", "b"};
    TUPLEKV_ASSERT_OK(c->rescan(temporary));
    temporary.begin.assign(100, 'x');  // the cursor must not see this
    temporary.end.assign(100, 'y');
  }
  EXPECT_EQ(drain(c.get()).size(), 4u);
}

TEST_F(SqliteStoreTest, ManyCursorsAtOnce) {
  Model m;
  for (int i = 0; i < 50; ++i) m[std::to_string(100 + i)] = std::to_string(i);
  fill(m);
  const int before = statement_count(db_.handle());
  // A self-join: an outer cursor and, per outer row, an inner one, all of
  // the same shape; plus interleaved cursors in both directions.
  auto outer = must_scan(store_.get(), KeyRange{});
  int pairs = 0;
  for (; outer->valid(); outer->next()) {
    auto inner = must_scan(store_.get(), KeyRange{Bytes(outer->key()), ""});
    auto rev =
        must_scan(store_.get(), KeyRange{"", Bytes(outer->key())}, ScanOptions{true, 0, false});
    int n = 0;
    for (; inner->valid(); inner->next()) ++n;
    for (; rev->valid(); rev->next()) ++n;
    EXPECT_EQ(n, 50);
    ++pairs;
  }
  EXPECT_EQ(pairs, 50);
  outer.reset();
  // One extra forward-unbounded statement was needed (outer + inner), one
  // reverse-bounded one was already pooled; nothing else.
  EXPECT_EQ(statement_count(db_.handle()), before + 1);
  std::vector<std::unique_ptr<Cursor>> open;
  for (int i = 0; i < 10; ++i) open.push_back(must_scan(store_.get(), KeyRange{}));
  for (int step = 0; step < 50; ++step) {
    for (auto& c : open) {
      ASSERT_TRUE(c->valid());
      EXPECT_EQ(c->key(), std::to_string(100 + step));
      c->next();
    }
  }
  for (auto& c : open) EXPECT_FALSE(c->valid());
  EXPECT_EQ(statement_count(db_.handle()), before + 9);
  open.clear();
  // Returned to the pool, not finalized: the next ten prepare nothing.
  for (int i = 0; i < 10; ++i) open.push_back(must_scan(store_.get(), KeyRange{}));
  EXPECT_EQ(statement_count(db_.handle()), before + 9);
  open.clear();
  EXPECT_EQ(busy_statements(db_.handle()), 0);
}

TEST_F(SqliteStoreTest, FinishedCursorsHoldNoReadPosition) {
  fill(sample());
  auto done = must_scan(store_.get(), KeyRange{});
  drain(done.get());
  auto limited = must_scan(store_.get(), KeyRange{}, ScanOptions{false, 2, false});
  limited->next();
  limited->next();
  EXPECT_FALSE(limited->valid());
  auto empty = must_scan(store_.get(), KeyRange{"x", "a"});
  EXPECT_FALSE(empty->valid());
  EXPECT_EQ(busy_statements(db_.handle()), 0);
  auto open = must_scan(store_.get(), KeyRange{});
  EXPECT_EQ(busy_statements(db_.handle()), 1);
}

// ---------------------------------------------------------------------------
// Writes during scans

TEST_F(SqliteStoreTest, ViewsSurviveWritesUntilTheCursorMoves) {
  Bytes big(300000, 'B');  // on overflow pages
  TUPLEKV_ASSERT_OK(store_->set(b("a"), big));
  TUPLEKV_ASSERT_OK(store_->set(b("b"), b("small")));
  auto c = must_scan(store_.get(), KeyRange{});
  ASSERT_TRUE(c->valid());
  const BytesView k = c->key();
  const BytesView v = c->value();
  TUPLEKV_ASSERT_OK(store_->set(c->key(), b("replaced")));  // binds the cursor's own view
  TUPLEKV_ASSERT_OK(store_->clear(b("a")));
  for (int i = 0; i < 200; ++i) TUPLEKV_ASSERT_OK(store_->set("a" + std::to_string(i), big));
  TUPLEKV_ASSERT_OK(store_->clear_range(b("a0"), b("a9")));
  EXPECT_EQ(k, "a");
  EXPECT_EQ(v, big);
  c->next();
  ASSERT_TRUE(c->valid());
  EXPECT_EQ(c->key(), "a9");
  const BytesView k2 = c->key();
  TUPLEKV_ASSERT_OK(store_->clear(c->key()));
  TUPLEKV_ASSERT_OK(store_->clear_range(b("a9"), b("b")));  // a90..a99
  EXPECT_EQ(k2, "a9");
  c->next();
  ASSERT_TRUE(c->valid());
  EXPECT_EQ(c->key(), "b");
}

TEST_F(SqliteStoreTest, ScanContinuesAfterTheCurrentKeyAsTheStoreIsNow) {
  Model m;
  for (int i = 10; i < 20; ++i) m[std::to_string(i)] = "v";
  fill(m);
  // Forward: delete the current key, the next one and insert ahead/behind.
  auto c = must_scan(store_.get(), KeyRange{"", "19"});
  std::vector<Bytes> seen;
  for (; c->valid(); c->next()) {
    const Bytes k(c->key());
    seen.push_back(k);
    if (k == "11") {
      TUPLEKV_ASSERT_OK(store_->clear(b("11")));
      TUPLEKV_ASSERT_OK(store_->clear(b("12")));
      TUPLEKV_ASSERT_OK(store_->set(b("111"), b("ahead")));
      TUPLEKV_ASSERT_OK(store_->set(b("105"), b("behind")));
    }
    if (k == "14") {
      TUPLEKV_ASSERT_OK(store_->clear_range(b("14"), b("")));  // to the end
    }
  }
  TUPLEKV_EXPECT_OK(c->status());
  EXPECT_EQ(seen, (std::vector<Bytes>{"10", "11", "111", "13", "14"}));
  // Reverse, same rules mirrored.
  TUPLEKV_ASSERT_OK(store_->clear_range(b(""), b("")));
  fill(m);
  c = must_scan(store_.get(), KeyRange{}, ScanOptions{true, 0, false});
  seen.clear();
  for (; c->valid(); c->next()) {
    const Bytes k(c->key());
    seen.push_back(k);
    if (k == "18") {
      TUPLEKV_ASSERT_OK(store_->clear(b("18")));
      TUPLEKV_ASSERT_OK(store_->clear(b("17")));
      TUPLEKV_ASSERT_OK(store_->set(b("165"), b("ahead")));
      TUPLEKV_ASSERT_OK(store_->set(b("185"), b("behind")));
    }
    if (k == "14") {
      TUPLEKV_ASSERT_OK(store_->clear_range(b(""), b("14")));
    }
  }
  TUPLEKV_EXPECT_OK(c->status());
  EXPECT_EQ(seen, (std::vector<Bytes>{"19", "18", "165", "16", "15", "14"}));
}

// The saved position of a WITHOUT ROWID cursor is the whole (k, v) record,
// so rewriting the current row's value must not bring its key back.
TEST_F(SqliteStoreTest, RewritingTheCurrentValueDoesNotRevisitIt) {
  for (bool reverse : {false, true}) {
    SCOPED_TRACE(reverse ? "reverse" : "forward");
    TUPLEKV_ASSERT_OK(store_->clear_range(b(""), b("")));
    for (const char* k : {"a", "b", "c", "d", "e"}) TUPLEKV_ASSERT_OK(store_->set(b(k), b("m")));
    auto c = must_scan(store_.get(), KeyRange{}, ScanOptions{reverse, 0, false});
    std::vector<Bytes> seen;
    for (int i = 0; c->valid() && i < 20; c->next(), ++i) {
      seen.emplace_back(c->key());
      // Sorts after and before the old value, an empty one, the same one,
      // and delete-then-insert.
      switch (i) {
        case 0:
          TUPLEKV_ASSERT_OK(store_->set(c->key(), b("z")));
          break;
        case 1:
          TUPLEKV_ASSERT_OK(store_->set(c->key(), b("a")));
          break;
        case 2:
          TUPLEKV_ASSERT_OK(store_->set(c->key(), b("")));
          break;
        case 3:
          TUPLEKV_ASSERT_OK(store_->set(c->key(), b("m")));
          break;
        default: {
          const Bytes k(c->key());
          TUPLEKV_ASSERT_OK(store_->clear(k));
          TUPLEKV_ASSERT_OK(store_->set(k, b("zz")));
        }
      }
    }
    TUPLEKV_EXPECT_OK(c->status());
    std::vector<Bytes> want = {"a", "b", "c", "d", "e"};
    if (reverse) std::reverse(want.begin(), want.end());
    EXPECT_EQ(seen, want);
  }
}

TEST_F(SqliteStoreTest, RollbackToWithAnOpenCursor) {
  for (const char* k : {"a", "b", "c"}) TUPLEKV_ASSERT_OK(store_->set(b(k), b("z")));
  db_.exec("BEGIN; SAVEPOINT sp");
  TUPLEKV_ASSERT_OK(store_->set(b("b"), b("a")));
  TUPLEKV_ASSERT_OK(store_->set(b("bb"), b("new")));
  auto c = must_scan(store_.get(), KeyRange{"b", ""});
  ASSERT_TRUE(c->valid());
  EXPECT_EQ(c->value(), "a");
  // SQLite keeps read statements going across ROLLBACK TO; the virtual
  // table forwards xRollbackTo to the store, as here.
  db_.exec("ROLLBACK TO sp");
  TUPLEKV_ASSERT_OK(store_->rollback_to(0));
  EXPECT_EQ(c->key(), "b");  // the view is the row as read
  c->next();
  ASSERT_TRUE(c->valid());
  EXPECT_EQ(c->key(), "c");  // not b again (now (b, z)), and bb is gone
  c->next();
  EXPECT_FALSE(c->valid());
  TUPLEKV_EXPECT_OK(c->status());
  db_.exec("COMMIT");
}

TEST_F(SqliteStoreTest, MovingEveryKeyDuringAScanTerminates) {
  // The Halloween shape: each visited key is moved. Moved behind the
  // cursor, every original key is seen exactly once; moved ahead, each is
  // seen again exactly as often as it is moved (here: once).
  for (bool reverse : {false, true}) {
    SCOPED_TRACE(reverse ? "reverse" : "forward");
    TUPLEKV_ASSERT_OK(store_->clear_range(b(""), b("")));
    for (int i = 0; i < 100; ++i) {
      Bytes k = "m";
      k += std::to_string(1000 + i);
      TUPLEKV_ASSERT_OK(store_->set(k, b("v")));
    }
    const Bytes behind = reverse ? "z" : "a";
    const Bytes ahead = reverse ? "a" : "z";
    auto c = must_scan(store_.get(), KeyRange{}, ScanOptions{reverse, 0, false});
    int visits = 0;
    for (; c->valid() && visits < 1000; c->next(), ++visits) {
      const Bytes k(c->key());
      TUPLEKV_ASSERT_OK(store_->clear(k));
      if (k[0] == 'm') {
        Bytes moved = visits % 2 ? behind : ahead;
        moved += k;
        TUPLEKV_ASSERT_OK(store_->set(moved, b("moved")));
      }
    }
    TUPLEKV_EXPECT_OK(c->status());
    EXPECT_EQ(visits, 150);
    EXPECT_EQ(db_.value("SELECT count(*) FROM t_kv"), "50");
  }
}

TEST_F(SqliteStoreTest, RandomWritesDuringScansMatchTheModel) {
  std::mt19937 rng(12345);
  const char alphabet[] = {'\0', '\x01', 'a', 'b', '\xff'};
  auto random_key = [&] {
    Bytes k;
    const int n = static_cast<int>(rng() % 4);
    for (int i = 0; i < n; ++i) k.push_back(alphabet[rng() % 5]);
    return k;
  };
  Model m;
  uint64_t total_rows = 0;
  for (int round = 0; round < 300; ++round) {
    for (int i = 0; i < (round == 0 ? 60 : 4); ++i) {  // keep the keyspace populated
      const Bytes k = random_key();
      const Bytes v = "v" + std::to_string(rng() % 100);
      TUPLEKV_ASSERT_OK(store_->set(k, v));
      m[k] = v;
    }
    const bool reverse = rng() % 2;
    const bool keys_only = rng() % 4 == 0;
    KeyRange r{random_key(), rng() % 3 == 0 ? Bytes() : random_key()};
    const uint64_t limit = rng() % 3 == 0 ? rng() % 5 + 1 : 0;
    auto c = must_scan(store_.get(), r, ScanOptions{reverse, limit, keys_only});
    ASSERT_NE(c, nullptr);
    // Where the model says the cursor should be: first key of the range,
    // then after each step the first key past the previous one.
    auto expect_at = [&](const Bytes* after) -> const std::pair<const Bytes, Bytes>* {
      if (!reverse) {
        auto it = after == nullptr ? m.lower_bound(r.begin) : m.upper_bound(*after);
        if (it == m.end() || !r.contains(it->first)) return nullptr;
        return &*it;
      }
      auto it = after == nullptr ? (r.end.empty() ? m.end() : m.lower_bound(r.end))
                                 : m.lower_bound(*after);
      if (it == m.begin()) return nullptr;
      --it;
      if (!r.contains(it->first)) return nullptr;
      return &*it;
    };
    const std::pair<const Bytes, Bytes>* want = expect_at(nullptr);
    uint64_t seen = 0;
    while (true) {
      ASSERT_EQ(c->valid(), want != nullptr) << "round " << round << " seen " << seen;
      if (want == nullptr) break;
      ASSERT_EQ(c->key(), want->first) << "round " << round;
      if (!keys_only) {
        ASSERT_EQ(c->value(), want->second) << "round " << round;
      }
      const Bytes at(c->key());
      ++seen;
      ++total_rows;
      // Random writes while the cursor stands on `at`.
      const int writes = static_cast<int>(rng() % 3);
      for (int w = 0; w < writes; ++w) {
        const int op = static_cast<int>(rng() % 10);
        if (op < 6) {
          const Bytes k = rng() % 4 == 0 ? at : random_key();
          const Bytes v = "v" + std::to_string(rng() % 100);
          TUPLEKV_ASSERT_OK(store_->set(k, v));
          m[k] = v;
        } else if (op < 9) {
          const Bytes k = rng() % 3 == 0 ? at : random_key();
          TUPLEKV_ASSERT_OK(store_->clear(k));
          m.erase(k);
        } else {
          const Bytes lo = random_key();
          const Bytes hi = rng() % 4 == 0 ? Bytes() : random_key();
          TUPLEKV_ASSERT_OK(store_->clear_range(lo, hi));
          for (auto it = m.lower_bound(lo); it != m.end() && (hi.empty() || it->first < hi);) {
            it = m.erase(it);
          }
        }
      }
      c->next();
      want = (limit != 0 && seen == limit) ? nullptr : expect_at(&at);
    }
    TUPLEKV_ASSERT_OK(c->status());
    // And the whole table agrees with the model after each round.
    ASSERT_EQ(all(), model_range(m, KeyRange{}, false, 0)) << "round " << round;
  }
  EXPECT_GT(total_rows, 1000u);
}

// ---------------------------------------------------------------------------
// Corruption

TEST_F(SqliteStoreTest, NonBlobKeysAreCorruption) {
  fill(sample());
  for (const char* bad : {"'text'", "42", "1.5"}) {
    SCOPED_TRACE(bad);
    db_.exec(std::string("INSERT INTO t_kv VALUES(") + bad + ", x'00')");
    const std::string type = std::string(bad)[0] == '\'' ? "TEXT"
                             : std::string(bad) == "42"  ? "INTEGER"
                                                         : "REAL";
    const std::string msg =
        "corrupt shadow table \"main\".\"t_kv\": a key is " + type + ", not BLOB";
    // From the start of the keyspace forward: reported at once.
    auto r = store_->scan(KeyRange{}, ScanOptions{});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
    EXPECT_EQ(r.status().message(), msg);
    // Backward to the start: after every BLOB key.
    auto c = must_scan(store_.get(), KeyRange{"", "b"}, ScanOptions{true, 0, true});
    int blobs = 0;
    for (; c->valid(); c->next()) ++blobs;
    EXPECT_EQ(blobs, 6);
    EXPECT_EQ(c->status().code(), StatusCode::kCorruption);
    EXPECT_EQ(c->status().message(), msg);
    // A BLOB range never includes it, in either direction (a reverse scan
    // checks its begin itself and must stop there, not report the key).
    for (const KeyRange& range : {KeyRange{"a", "b"}, KeyRange{"a", ""}, KeyRange{"\x01", ""}}) {
      auto forward = must_scan(store_.get(), range);
      const size_t n = drain(forward.get()).size();
      EXPECT_GT(n, 0u);
      auto backward = must_scan(store_.get(), range, ScanOptions{true, 0, false});
      EXPECT_EQ(drain(backward.get()).size(), n);
      TUPLEKV_EXPECT_OK(backward->status());
    }
    // A rescan of a good range recovers.
    c = must_scan(store_.get(), KeyRange{"a", ""});
    EXPECT_EQ(drain(c.get()).size(), 9u);
    ASSERT_EQ(c->rescan(KeyRange{}).code(), StatusCode::kCorruption);
    TUPLEKV_ASSERT_OK(c->rescan(KeyRange{"c", ""}));
    EXPECT_EQ(drain(c.get()).size(), 3u);
    // clear_range from the start clears it with everything else below `end`.
    TUPLEKV_ASSERT_OK(store_->clear_range(b(""), Bytes("\0", 1)));
    EXPECT_EQ(all().size(), 10u);
    TUPLEKV_ASSERT_OK(store_->set(b(""), b("v:")));
  }
  EXPECT_EQ(busy_statements(db_.handle()), 0);
}

TEST_F(SqliteStoreTest, NonBlobValuesAreCorruption) {
  fill(sample());
  for (const char* bad : {"'text'", "7", "2.5", "NULL"}) {
    SCOPED_TRACE(bad);
    db_.exec(std::string("UPDATE t_kv SET v=") + bad + " WHERE k=x'6162'");  // 'ab'
    const std::string type = std::string(bad) == "'text'" ? "TEXT"
                             : std::string(bad) == "7"    ? "INTEGER"
                             : std::string(bad) == "2.5"  ? "REAL"
                                                          : "NULL";
    const std::string msg = "corrupt shadow table \"main\".\"t_kv\": the value of key x'6162' is " +
                            type + ", not BLOB";
    Bytes v = "kept";
    bool found = true;
    const Status g = store_->get(b("ab"), &v, &found);
    EXPECT_EQ(g.code(), StatusCode::kCorruption);
    EXPECT_EQ(g.native_code(), 0);  // maps to SQLITE_CORRUPT_VTAB in ext/errors
    EXPECT_EQ(g.message(), msg);
    EXPECT_FALSE(found);
    auto c = must_scan(store_.get(), KeyRange{"a", ""});
    Pairs got;
    for (; c->valid(); c->next()) got.emplace_back(c->key(), c->value());
    EXPECT_FALSE(c->valid());
    EXPECT_EQ(got.size(), 3u);  // a, a\0, a\1
    EXPECT_EQ(c->status().code(), StatusCode::kCorruption);
    EXPECT_EQ(c->status().message(), msg);
    // keys_only never looks at values.
    c = must_scan(store_.get(), KeyRange{"a", ""}, ScanOptions{false, 0, true});
    EXPECT_EQ(drain(c.get()).size(), 9u);
  }
  // A zero-length BLOB is a value, not a NULL.
  db_.exec("UPDATE t_kv SET v=x'' WHERE k=x'6162'");
  Bytes v;
  bool found = false;
  TUPLEKV_ASSERT_OK(store_->get(b("ab"), &v, &found));
  EXPECT_TRUE(found);
  EXPECT_EQ(all().size(), 11u);
  EXPECT_EQ(busy_statements(db_.handle()), 0);
}

TEST_F(SqliteStoreTest, LongKeysAreCutInMessages) {
  const Bytes key(40, 'k');
  TUPLEKV_ASSERT_OK(store_->set(key, b("v")));
  db_.exec("UPDATE t_kv SET v='t'");
  Bytes v;
  bool found;
  EXPECT_EQ(store_->get(key, &v, &found).message(),
            "corrupt shadow table \"main\".\"t_kv\": the value of key x'" +
                to_hex(key.substr(0, 32)) + "'... is TEXT, not BLOB");
}

// ---------------------------------------------------------------------------
// Transactions: the hooks are no-ops; SQLite's own transaction undoes.

TEST_F(SqliteStoreTest, RollbackAndSavepointsUndoThroughSqlite) {
  const Model m = sample();
  fill(m);
  const Rows before = db_.rows("SELECT k, v FROM t_kv");
  db_.exec("BEGIN");
  TUPLEKV_ASSERT_OK(store_->set(b("new"), b("1")));
  TUPLEKV_ASSERT_OK(store_->set(b("a"), b("changed")));
  TUPLEKV_ASSERT_OK(store_->clear(b("b")));
  TUPLEKV_ASSERT_OK(store_->clear_range(b("c"), b("")));
  db_.exec("ROLLBACK");
  EXPECT_EQ(db_.rows("SELECT k, v FROM t_kv"), before);

  db_.exec("BEGIN; SAVEPOINT one");
  TUPLEKV_ASSERT_OK(store_->set(b("kept"), b("1")));
  db_.exec("SAVEPOINT two");
  TUPLEKV_ASSERT_OK(store_->clear_range(b(""), b("")));
  TUPLEKV_ASSERT_OK(store_->set(b("gone"), b("2")));
  EXPECT_EQ(all(), (Pairs{{"gone", "2"}}));
  db_.exec("ROLLBACK TO two");
  Model with_kept = m;
  with_kept["kept"] = "1";
  EXPECT_EQ(all(), model_range(with_kept, KeyRange{}, false, 0));
  db_.exec("RELEASE two; ROLLBACK TO one");
  EXPECT_EQ(db_.rows("SELECT k, v FROM t_kv"), before);
  TUPLEKV_ASSERT_OK(store_->set(b("committed"), b("3")));
  db_.exec("COMMIT");
  with_kept.erase("kept");
  with_kept["committed"] = "3";
  EXPECT_EQ(all(), model_range(with_kept, KeyRange{}, false, 0));
}

// xSavepoint and xRelease get 0 and up, xRollbackTo also -1 (the savepoint
// that opened the transaction); core/store.h asks every store to accept any
// n. SQLite undoes the writes itself, so the hooks only succeed, and
// rollback_to(n) for any n makes an open cursor re-check its position.
TEST_F(SqliteStoreTest, SavepointHooksAcceptEveryLevelSqlitePasses) {
  fill(sample());
  const Pairs before = all();
  db_.exec("BEGIN");
  TUPLEKV_ASSERT_OK(store_->begin());
  for (int n : {-1, 0, 1, 7}) TUPLEKV_ASSERT_OK(store_->savepoint(n));
  TUPLEKV_ASSERT_OK(store_->set(b("new"), b("1")));
  auto c = must_scan(store_.get(), KeyRange{});
  ASSERT_TRUE(c->valid());
  const Bytes first(c->key());
  for (int n : {7, 1, 0, -1, -2}) {
    TUPLEKV_ASSERT_OK(store_->rollback_to(n));
    TUPLEKV_ASSERT_OK(store_->release(n));
  }
  // The hooks undid nothing (that is SQLite's job) and the cursor goes on
  // after the key it was on.
  c->next();
  ASSERT_TRUE(c->valid());
  EXPECT_GT(compare_bytes(c->key(), first), 0);
  c.reset();
  Pairs with_new = before;
  const std::pair<Bytes, Bytes> added{"new", "1"};
  with_new.insert(std::upper_bound(with_new.begin(), with_new.end(), added), added);
  EXPECT_EQ(all(), with_new);
  db_.exec("ROLLBACK");
  TUPLEKV_ASSERT_OK(store_->rollback());
  EXPECT_EQ(all(), before);
}

// kv_table.cc inserts through the OrderedStore interface; the SQLite store's
// override (one INSERT ... DO NOTHING) must be what runs there.
TEST_F(SqliteStoreTest, InsertThroughTheInterfaceUsesTheOverride) {
  OrderedStore* s = store_.get();
  bool inserted = false;
  TUPLEKV_ASSERT_OK(s->insert(b("a"), b("1"), &inserted));
  EXPECT_TRUE(inserted);
  TUPLEKV_ASSERT_OK(s->insert(b("a"), b("2"), &inserted));
  EXPECT_FALSE(inserted);
  EXPECT_EQ(all(), (Pairs{{"a", "1"}}));
  // The default would read first: a get() of a corrupt value fails, the
  // single INSERT does not read it.
  db_.exec("INSERT INTO t_kv VALUES (x'62', 'not a blob')");
  TUPLEKV_ASSERT_OK(s->insert(b("b"), b("3"), &inserted));
  EXPECT_FALSE(inserted);
}

TEST_F(SqliteStoreTest, RollbackWithAnOpenCursor) {
  fill(sample());
  db_.exec("BEGIN");
  TUPLEKV_ASSERT_OK(store_->set(b("zz"), b("1")));
  auto c = must_scan(store_.get(), KeyRange{"c", ""});
  ASSERT_TRUE(c->valid());
  // SQLite aborts pending read statements on ROLLBACK; the cursor reports
  // it instead of reading freed pages.
  db_.exec("ROLLBACK");
  c->next();
  if (!c->valid()) {
    const Status s = c->status();
    EXPECT_TRUE(s.ok() || (s.native_code() & 0xff) == SQLITE_ABORT) << s.message();
  }
  c.reset();
  EXPECT_EQ(all().size(), 11u);
}

// ---------------------------------------------------------------------------
// Rename, drop, lifetime

TEST_F(SqliteStoreTest, RenameKeepsDataAndReprepares) {
  fill(sample());
  auto open_cursor = must_scan(store_.get(), KeyRange{});  // holds an old statement
  drain(open_cursor.get());
  TUPLEKV_ASSERT_OK(SqliteStore::rename_table(db_.handle(), "main", "t", "u"));
  TUPLEKV_ASSERT_OK(store_->renamed("u"));
  EXPECT_EQ(db_.value("SELECT group_concat(name) FROM sqlite_schema"), "u_kv");
  TUPLEKV_ASSERT_OK(store_->set(b("after"), b("rename")));
  EXPECT_EQ(all().size(), 12u);
  // The old cursor's statement names t_kv: a rescan swaps it for a new one.
  TUPLEKV_ASSERT_OK(open_cursor->rescan(KeyRange{"after", ""}));
  EXPECT_EQ(open_cursor->key(), "after");
  open_cursor.reset();
  // Renaming to a taken name fails and leaves the store as it was.
  TUPLEKV_ASSERT_OK(SqliteStore::create_table(db_.handle(), "main", "taken"));
  const Status s = SqliteStore::rename_table(db_.handle(), "main", "u", "taken");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.message(),
            "cannot rename \"main\".\"u_kv\": there is already another table or index with "
            "this name: taken_kv");
  EXPECT_FALSE(store_->renamed("missing").ok());
  EXPECT_EQ(all().size(), 12u);
}

TEST_F(SqliteStoreTest, DropThenUseReportsErrors) {
  fill(sample());
  auto finished = must_scan(store_.get(), KeyRange{});
  // A scan in progress holds the table, as any reading statement does.
  const Status locked = SqliteStore::drop_table(db_.handle(), "main", "t");
  EXPECT_EQ(locked.code(), StatusCode::kBusy);
  EXPECT_EQ(locked.native_code() & 0xff, SQLITE_LOCKED);
  EXPECT_EQ(locked.message(), "cannot drop \"main\".\"t_kv\": database table is locked");
  drain(finished.get());  // a finished cursor does not
  TUPLEKV_ASSERT_OK(SqliteStore::drop_table(db_.handle(), "main", "t"));
  TUPLEKV_ASSERT_OK(SqliteStore::drop_table(db_.handle(), "main", "t"));  // IF EXISTS
  EXPECT_EQ(db_.value("SELECT count(*) FROM sqlite_schema"), "0");
  Bytes v;
  bool found = true;
  const Status g = store_->get(b("a"), &v, &found);
  EXPECT_EQ(g.native_code(), SQLITE_ERROR);
  EXPECT_EQ(g.message(), "reading \"main\".\"t_kv\": no such table: main.t_kv");
  EXPECT_FALSE(store_->set(b("a"), b("b")).ok());
  EXPECT_FALSE(store_->clear_range(b(""), b("")).ok());
  EXPECT_FALSE(finished->rescan(KeyRange{}).ok());
  EXPECT_FALSE(store_->scan(KeyRange{}, ScanOptions{}).ok());
}

TEST_F(SqliteStoreTest, CursorOutlivingItsStoreEndsQuietly) {
  fill(sample());
  auto c = must_scan(store_.get(), KeyRange{});
  ASSERT_TRUE(c->valid());
  store_.reset();
  EXPECT_FALSE(c->valid());
  EXPECT_FALSE(c->rescan(KeyRange{}).ok());
  c.reset();
  EXPECT_EQ(statement_count(db_.handle()), 0);
}

TEST_F(SqliteStoreTest, ScansPrepareNothing) {
  fill(sample());
  const int before = statement_count(db_.handle());
  for (int i = 0; i < 100; ++i) {
    for (int shape = 0; shape < 8; ++shape) {
      auto c = must_scan(store_.get(), KeyRange{"a", shape & 2 ? "c" : ""},
                         ScanOptions{(shape & 4) != 0, 0, (shape & 1) != 0});
      drain(c.get());
    }
    Bytes v;
    bool found;
    TUPLEKV_ASSERT_OK(store_->get(b("a"), &v, &found));
    TUPLEKV_ASSERT_OK(store_->set(b("a"), v));
    bool inserted;
    TUPLEKV_ASSERT_OK(store_->insert(b("a"), v, &inserted));
    TUPLEKV_ASSERT_OK(store_->clear(b("nothing")));
    TUPLEKV_ASSERT_OK(store_->clear_range(b("x"), b("y")));
    TUPLEKV_ASSERT_OK(store_->clear_range(b("\xff\xff\xff"), b("")));
  }
  EXPECT_EQ(statement_count(db_.handle()), before);
  EXPECT_EQ(before, 12);  // 6 point statements + one per plain scan shape
}

// ---------------------------------------------------------------------------
// Mapped scans (the shared suite checks results; these check how)

// Rows ("r", n) -> "row<n>" for n < 200, and index entries ("i", n % 10, n).
KeyMapping fill_index_sample(SqliteStore* store) {
  auto str = [](const std::string& v) { return "\x02" + v + std::string(1, '\0'); };
  auto num = [](int n) { return "\x15" + std::string(1, static_cast<char>(n)); };
  for (int n = 0; n < 200; ++n) {
    EXPECT_TRUE(store->set(str("r") + num(n), "row" + std::to_string(n)).ok());
    EXPECT_TRUE(store->set(str("i") + num(n % 10) + num(n), "").ok());
  }
  KeyMapping m;
  m.from_prefix = str("i").size();
  m.skip = 1;
  m.to_prefix = str("r");
  return m;
}

// A string literal with its NUL bytes.
template <size_t N>
Bytes literal(const char (&s)[N]) {
  return Bytes(s, N - 1);
}

sqlite3_stmt* mapped_statement(sqlite3* db) {
  for (sqlite3_stmt* s = sqlite3_next_stmt(db, nullptr); s != nullptr;
       s = sqlite3_next_stmt(db, s)) {
    if (std::string(sqlite3_sql(s)).find("tuplekv_map_key") != std::string::npos) return s;
  }
  return nullptr;
}

TEST_F(SqliteStoreTest, MappedScanSeeksEachRowInOneStatement) {
  const KeyMapping mapping = fill_index_sample(store_.get());
  // Group 3 of the index: 20 entries among 400 keys.
  const KeyRange group{literal("\x02i\x00\x15\x03"), literal("\x02i\x00\x15\x04")};
  for (bool reverse : {false, true}) {
    auto c = store_->scan_mapped(group, ScanOptions{reverse, 0, false}, mapping);
    ASSERT_TRUE(c.ok()) << c.status().message();
    sqlite3_stmt* stmt = mapped_statement(db_.handle());
    ASSERT_NE(stmt, nullptr);
    sqlite3_stmt_status(stmt, SQLITE_STMTSTATUS_VM_STEP, 1);
    const Pairs got = drain(c->get());
    ASSERT_EQ(got.size(), 20u);
    EXPECT_EQ(got[0].second, reverse ? "row193" : "row3");
    // No full scan, no sort, no automatic index: a range over the entries
    // and one primary-key seek per entry. The VM steps per row stay small.
    EXPECT_EQ(sqlite3_stmt_status(stmt, SQLITE_STMTSTATUS_FULLSCAN_STEP, 0), 0);
    EXPECT_EQ(sqlite3_stmt_status(stmt, SQLITE_STMTSTATUS_SORT, 0), 0);
    EXPECT_EQ(sqlite3_stmt_status(stmt, SQLITE_STMTSTATUS_AUTOINDEX, 0), 0);
    EXPECT_LT(sqlite3_stmt_status(stmt, SQLITE_STMTSTATUS_VM_STEP, 0), 20 * 40);
  }
  // Mapped statements are pooled like the others: more scans prepare nothing.
  const int before = statement_count(db_.handle());
  for (int i = 0; i < 20; ++i) {
    for (int shape = 0; shape < 4; ++shape) {
      auto c = store_->scan_mapped(KeyRange{"\x02i", (shape & 1) != 0 ? "\x02j" : ""},
                                   ScanOptions{(shape & 2) != 0, 0, false}, mapping);
      ASSERT_TRUE(c.ok());
      drain(c->get());
    }
  }
  EXPECT_EQ(statement_count(db_.handle()), before + 2);  // the unbounded shapes, once each
}

TEST(SqliteStoreMapped, NeedsTuplekvFunctions) {
  // A connection with the store but not tuplekv's SQL functions: plain
  // scans work, a mapped scan says what is missing.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(":memory:", &db), SQLITE_OK);
  {
    TUPLEKV_ASSERT_OK(SqliteStore::create_table(db, "main", "t"));
    auto store = must_open(db, "main", "t");
    ASSERT_NE(store, nullptr);
    const KeyMapping mapping = fill_index_sample(store.get());
    EXPECT_EQ(drain(must_scan(store.get(), KeyRange{}).get()).size(), 400u);
    auto c = store->scan_mapped(KeyRange{}, {}, mapping);
    ASSERT_FALSE(c.ok());
    EXPECT_NE(c.status().message().find("tuplekv_map_key"), std::string::npos)
        << c.status().message();
  }
  EXPECT_EQ(sqlite3_close(db), SQLITE_OK);
}

TEST_F(SqliteStoreTest, MappedScanReportsCorruptRowValues) {
  const KeyMapping mapping = fill_index_sample(store_.get());
  ASSERT_TRUE(db_.exec("UPDATE t_kv SET v = 'text' WHERE k = x'0272001505'"));
  auto c = store_->scan_mapped(
      KeyRange{literal("\x02i\x00\x15\x05"), literal("\x02i\x00\x15\x06")}, {}, mapping);
  // The first row is read when the scan opens, so the scan itself fails.
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kCorruption) << c.status().message();
  EXPECT_NE(c.status().message().find(
                "the value of the key that x'02690015051505' maps to is TEXT, not BLOB"),
            std::string::npos)
      << c.status().message();
}


// Every module over a shadow table that something other than tuplekv has
// damaged (defensive mode off): random byte edits, truncations, wrong
// types, in keys and values, in every shadow table a module keeps. Each
// statement must either work or fail with an error that says what is
// wrong; never crash (the sanitizer build runs this too), never an internal
// error. The damage must be noticed at least some of the time, or the
// edits miss what the modules read.
struct DamagedModel {
  const char* name;
  const char* create;
  const char* fill;
  std::vector<const char*> statements;
};

const std::vector<DamagedModel>& damaged_models() {
  static const std::vector<DamagedModel> models = {
      {"table",
       "CREATE VIRTUAL TABLE t USING tuplekv_table(a INTEGER, b TEXT, r TEXT, n REAL, x ANY,"
       " PRIMARY KEY(a, b), INDEX t_r(r, n), UNIQUE INDEX t_x(x))",
       "WITH s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < 11) INSERT INTO t"
       " SELECT i % 6, substr('abcdef', i % 5 + 1, 1), 'x' || (i % 4), i * 0.5,"
       " CASE i % 4 WHEN 0 THEN i WHEN 1 THEN 'q' || i WHEN 2 THEN x'0001' || i ELSE i + 0.5 END FROM s",
       {"SELECT * FROM t", "SELECT * FROM t ORDER BY a DESC, b DESC", "SELECT * FROM t WHERE a = 3",
        "SELECT * FROM t WHERE a = 3 AND b > 'b'", "SELECT * FROM t WHERE r = 'x2'",
        "SELECT a, b, r FROM t WHERE r >= 'x1' ORDER BY r", "SELECT count(*), sum(n), max(r) FROM t",
        "SELECT a FROM t WHERE x = 'q1'", "SELECT tuplekv_check('t')",
        "UPDATE t SET n = n + 1 WHERE a = 2", "DELETE FROM t WHERE a = 4",
        "INSERT OR REPLACE INTO t VALUES (3, 'b', 'x9', 1.5, 'q5')", "UPDATE t SET a = a + 100 WHERE a < 3",
        "SELECT * FROM t WHERE a IN (1, 3, 5) ORDER BY b", "UPDATE t SET r = 'x0' WHERE r = 'x1'",
        "SELECT tuplekv_check('t', 'rebuild')", "DELETE FROM t"}},
      {"implicit key", "CREATE VIRTUAL TABLE t USING tuplekv_table(x TEXT, y ANY, INDEX t_y(y))",
       "INSERT INTO t VALUES ('v1', 1), ('v2', 'a'), ('v3', 2.5), ('v4', NULL), ('v5', x'01')",
       {"SELECT rowid, * FROM t", "SELECT * FROM t WHERE y = 1", "INSERT INTO t VALUES ('new', 3)",
        "DELETE FROM t WHERE x > 'v3'", "UPDATE t SET y = 9", "SELECT tuplekv_check('t')"}},
      {"kv", "CREATE VIRTUAL TABLE t USING tuplekv_kv",
       "INSERT INTO t VALUES (tuple_pack(1, 1), x'01'), (tuple_pack(1, 2), x'02'), (tuple_pack(2, 'a'), x''),"
       " (tuple_pack(3), tuple_pack('v'))",
       {"SELECT * FROM t", "SELECT * FROM t WHERE prefix = tuple_pack(1)",
        "SELECT * FROM t WHERE key > tuple_pack(2) ORDER BY key DESC", "SELECT tuple_unpack(key) FROM t",
        "DELETE FROM t WHERE prefix = tuple_pack(2)", "UPDATE t SET value = x'00'"}},
      {"cells", "CREATE VIRTUAL TABLE t USING tuplekv_cells(layout=both)",
       "INSERT INTO t VALUES ('ada', 'born', 1815), ('ada', 'field', 'math'), (2, 1, 2.5), (2.5, 'x', NULL)",
       {"SELECT * FROM t", "SELECT * FROM t WHERE row = 'ada'", "SELECT * FROM t WHERE col = 'born'",
        "SELECT raw FROM t", "DELETE FROM t WHERE row = 2", "UPDATE t SET value = 5 WHERE row = 'ada'"}},
      {"multimap", "CREATE VIRTUAL TABLE t USING tuplekv_multimap(student, class INTEGER, reverse=1)",
       "INSERT INTO t VALUES ('al', 1), ('al', 2), ('bo', 2), (3, 4)",
       {"SELECT * FROM t", "SELECT * FROM t WHERE student = 'al'", "SELECT * FROM t WHERE class = 2",
        "SELECT count(*) FROM t WHERE student = 'bo'", "DELETE FROM t WHERE class = 1",
        "UPDATE t SET class = 9 WHERE student = 'bo'"}},
      {"docs",
       "CREATE VIRTUAL TABLE t USING tuplekv_docs; CREATE VIRTUAL TABLE leaves USING tuplekv_leaves(t)",
       "INSERT INTO t(doc) VALUES ('{\"a\":1,\"b\":[1,2,{\"c\":\"x\"}],\"d\":null}'),"
       " ('[1,\"two\",3.5,true]'), ('{\"n\":{\"m\":[[]]}}')",
       {"SELECT * FROM t", "SELECT doc FROM t WHERE id = 2", "SELECT doc FROM t WHERE id = 1 AND path = '$.b'",
        "SELECT * FROM leaves", "SELECT * FROM leaves WHERE prefix = '$.b'",
        "UPDATE t SET doc = '7' WHERE id = 1 AND path = '$.b[#]'",
        "DELETE FROM t WHERE id = 1 AND path = '$.b[0]'",
        "UPDATE t SET doc = '{\"z\":1}' WHERE id = 2", "DELETE FROM t WHERE id = 3"}},
  };
  return models;
}

TEST(SqliteStoreDamage, EveryModuleReportsDamagedShadowTablesCleanly) {
  std::mt19937 rng(20261124);
  std::map<std::string, int> noticed;
  for (int round = 0; round < 600; ++round) {
    const DamagedModel& m = damaged_models()[static_cast<size_t>(round) % damaged_models().size()];
    SCOPED_TRACE(std::string(m.name) + ", round " + std::to_string(round));
    testing::Db db;
    ASSERT_TRUE(db.exec(m.create));
    ASSERT_TRUE(db.exec(m.fill));
    sqlite3* h = db.handle();
    const testing::Rows shadows =
        db.rows("SELECT name FROM sqlite_schema WHERE type = 'table' AND name LIKE 't\\_%' ESCAPE '\\'");
    ASSERT_FALSE(shadows.empty());
    for (int edit = 1 + static_cast<int>(rng() % 3); edit > 0; --edit) {
      const std::string table = shadows[rng() % shadows.size()][0];
      const testing::Rows cols = db.rows("SELECT name FROM pragma_table_info('" + table + "')");
      ASSERT_GE(cols.size(), 2u);
      const std::string key_col = cols[0][0];
      const std::string col = cols[rng() % cols.size()][0];
      // Read the victim's key and the column's bytes, then write the
      // column back damaged, or as a value of the wrong type.
      sqlite3_stmt* read = nullptr;
      ASSERT_EQ(sqlite3_prepare_v2(h, ("SELECT " + key_col + ", CAST(" + col + " AS BLOB) FROM " + table +
                                       " ORDER BY random() LIMIT 1").c_str(),
                                   -1, &read, nullptr),
                SQLITE_OK);
      if (sqlite3_step(read) == SQLITE_ROW) {
        sqlite3_stmt* write = nullptr;
        ASSERT_EQ(sqlite3_prepare_v2(h, ("UPDATE " + table + " SET " + col + " = ?1 WHERE " + key_col +
                                         " = ?2").c_str(),
                                     -1, &write, nullptr),
                  SQLITE_OK);
        const auto* p = static_cast<const char*>(sqlite3_column_blob(read, 1));
        const size_t n = static_cast<size_t>(sqlite3_column_bytes(read, 1));
        const std::string bytes = testing::damaged(&rng, std::string(p != nullptr ? p : "", n));
        switch (rng() % 6) {
          case 0:
            sqlite3_bind_text(write, 1, bytes.data(), static_cast<int>(bytes.size()), SQLITE_TRANSIENT);
            break;
          case 1:
            sqlite3_bind_int(write, 1, 7);
            break;
          default:
            sqlite3_bind_blob(write, 1, bytes.data(), static_cast<int>(bytes.size()), SQLITE_TRANSIENT);
            break;
        }
        sqlite3_bind_value(write, 2, sqlite3_column_value(read, 0));
        sqlite3_step(write);  // may collide with another key: then nothing changes
        sqlite3_finalize(write);
      }
      sqlite3_finalize(read);
    }
    for (const char* sql : m.statements) {
      sqlite3_stmt* st = nullptr;
      int rc = sqlite3_prepare_v2(h, sql, -1, &st, nullptr);
      ASSERT_EQ(rc, SQLITE_OK) << sql << ": " << sqlite3_errmsg(h);
      while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        for (int i = 0; i < sqlite3_column_count(st); ++i) sqlite3_column_text(st, i);
      }
      const std::string message = sqlite3_errmsg(h);
      sqlite3_finalize(st);
      if (rc == SQLITE_DONE) continue;
      const int primary = rc & 0xff;
      EXPECT_TRUE(primary == SQLITE_CORRUPT || primary == SQLITE_ERROR || primary == SQLITE_CONSTRAINT)
          << sql << ": " << rc << " " << message;
      EXPECT_EQ(message.find("internal"), std::string::npos) << sql << ": " << message;
      EXPECT_FALSE(message.empty()) << sql;
      if (primary == SQLITE_CORRUPT) ++noticed[m.name];
    }
  }
  for (const DamagedModel& m : damaged_models()) {
    EXPECT_GT(noticed[m.name], 0) << m.name << ": no statement ever reported the damage";
  }
}

}  // namespace
}  // namespace tuplekv::ext

namespace tuplekv::ext {
namespace {

// ---------------------------------------------------------------------------
// Write batching (the conformance suite above runs on a batching store too;
// these check where the batch goes and when)

class BatchingTest : public SqliteStoreTest {
 protected:
  void SetUp() override {
    SqliteStoreTest::SetUp();
    store_->enable_write_batching();
  }
  // What the shadow table itself holds.
  Rows stored() { return db_.rows("SELECT hex(k), hex(v) FROM t_kv ORDER BY k"); }
  void begin() {
    ASSERT_TRUE(db_.exec("BEGIN"));
    TUPLEKV_ASSERT_OK(store_->begin());
  }
  void commit() {
    TUPLEKV_ASSERT_OK(store_->sync());
    ASSERT_TRUE(db_.exec("COMMIT"));
    TUPLEKV_ASSERT_OK(store_->commit());
  }
};

TEST_F(BatchingTest, OutsideATransactionWritesGoStraightThrough) {
  TUPLEKV_ASSERT_OK(store_->set(b("a"), b("1")));
  EXPECT_EQ(store_->batched_writes(), 0u);
  EXPECT_EQ(stored(), (Rows{{"61", "31"}}));
}

TEST_F(BatchingTest, WritesReachTheTableAtSyncAndAreReadThroughTheBatchBefore) {
  fill({{"a", "1"}, {"b", "2"}, {"c", "3"}});
  const Rows before = stored();
  begin();
  TUPLEKV_ASSERT_OK(store_->set(b("b"), b("two")));
  TUPLEKV_ASSERT_OK(store_->clear(b("c")));
  bool inserted = false;
  TUPLEKV_ASSERT_OK(store_->insert(b("d"), b("4"), &inserted));
  EXPECT_TRUE(inserted);
  TUPLEKV_ASSERT_OK(store_->insert(b("a"), b("x"), &inserted));
  EXPECT_FALSE(inserted);
  EXPECT_EQ(store_->batched_writes(), 3u);
  EXPECT_EQ(stored(), before);  // the shadow table lags

  Bytes v;
  bool found = false;
  TUPLEKV_ASSERT_OK(store_->get(b("b"), &v, &found));
  EXPECT_TRUE(found);
  EXPECT_EQ(v, "two");
  TUPLEKV_ASSERT_OK(store_->get(b("c"), &v, &found));
  EXPECT_FALSE(found);
  const Pairs want{{"a", "1"}, {"b", "two"}, {"d", "4"}};
  EXPECT_EQ(all(), want);
  Pairs reversed(want.rbegin(), want.rend());
  EXPECT_EQ(all(ScanOptions{true, 0, false}), reversed);
  EXPECT_EQ(all(ScanOptions{false, 2, false}), (Pairs{{"a", "1"}, {"b", "two"}}));
  EXPECT_EQ(stored(), before);  // reading applied nothing

  commit();
  EXPECT_EQ(store_->batched_writes(), 0u);
  EXPECT_EQ(stored(), (Rows{{"61", "31"}, {"62", "74776F"}, {"64", "34"}}));
}

// A SELECT that reads through the batch writes nothing, so sqlite3_changes()
// still counts the application's last statement.
TEST_F(BatchingTest, ReadingLeavesTheChangeCountAlone) {
  ASSERT_TRUE(db_.exec("CREATE TABLE other(x); BEGIN; INSERT INTO other VALUES (1), (2), (3)"));
  TUPLEKV_ASSERT_OK(store_->begin());
  for (int i = 0; i < 10; ++i) TUPLEKV_ASSERT_OK(store_->set("k" + std::to_string(i), "v"));
  EXPECT_EQ(all().size(), 10u);
  Bytes v;
  bool found = false;
  TUPLEKV_ASSERT_OK(store_->get(b("k3"), &v, &found));
  EXPECT_EQ(sqlite3_changes(db_.handle()), 3);
  commit();
}

TEST_F(BatchingTest, RollbackDropsTheBatch) {
  fill({{"a", "1"}});
  begin();
  TUPLEKV_ASSERT_OK(store_->set(b("b"), b("2")));
  ASSERT_TRUE(db_.exec("ROLLBACK"));
  TUPLEKV_ASSERT_OK(store_->rollback());
  EXPECT_EQ(store_->batched_writes(), 0u);
  EXPECT_EQ(all(), (Pairs{{"a", "1"}}));
  // And the store writes straight through again.
  TUPLEKV_ASSERT_OK(store_->set(b("c"), b("3")));
  EXPECT_EQ(stored().size(), 2u);
}

// A full disk makes SQLite roll back the whole transaction while apply()
// runs, and no rollback() follows (inside xSavepoint, SQLite has already
// called the hooks). The next transaction must not inherit the failure.
// A pair whose record would pass the connection's length limit fails as
// it is written, also where the write is held until COMMIT (which would
// otherwise fail, and lose the whole transaction). The record is the two
// blobs after a header of their serial types: 1 + 1 + 2 + 1 + 995 bytes
// for a key of 1 byte and a value of 995.
TEST_F(BatchingTest, APairOverTheLengthLimitFailsAsItIsWritten) {
  sqlite3_limit(db_.handle(), SQLITE_LIMIT_LENGTH, 1000);
  begin();
  TUPLEKV_ASSERT_OK(store_->set(b("a"), b("small")));
  bool inserted = true;
  size_t count = 9;
  const Status writes[] = {store_->set(b("k"), Bytes(996, 'v')), store_->insert(b("k"), Bytes(996, 'v'), &inserted),
                           store_->insert_batch(b("i"), b(""), {Bytes(999, 'e')}, &count)};
  for (const Status& s : writes) {
    EXPECT_EQ(s.code(), StatusCode::kTooBig);
    EXPECT_EQ(s.native_code(), SQLITE_TOOBIG);
    EXPECT_THAT(std::string(s.message()), ::testing::StartsWith("writing \"main\".\"t_kv\": a key and value of "));
    EXPECT_THAT(std::string(s.message()), ::testing::EndsWith(" bytes, over SQLite's length limit of 1000"));
  }
  EXPECT_FALSE(inserted);
  EXPECT_EQ(count, 0u);
  TUPLEKV_ASSERT_OK(store_->set(b("k"), Bytes(995, 'v')));
  commit();
  EXPECT_EQ(all(), (Pairs{{"a", "small"}, {"k", Bytes(995, 'v')}}));
  sqlite3_limit(db_.handle(), SQLITE_LIMIT_LENGTH, 1000000000);
}

TEST_F(BatchingTest, ATransactionAfterAFailedApplyStartsClean) {
  ASSERT_TRUE(db_.exec("PRAGMA max_page_count = " + db_.value("PRAGMA page_count")));
  begin();
  for (int i = 0; i < 2000; ++i) TUPLEKV_ASSERT_OK(store_->set("k" + std::to_string(i), "v"));
  const Status failed = store_->sync();
  EXPECT_FALSE(failed.ok());
  EXPECT_NE(failed.message().find("full"), std::string::npos) << failed.message();
  ASSERT_EQ(sqlite3_get_autocommit(db_.handle()), 1);  // SQLite rolled back

  ASSERT_TRUE(db_.exec("PRAGMA max_page_count = 100000"));
  begin();
  TUPLEKV_ASSERT_OK(store_->set(b("after"), b("1")));
  commit();
  EXPECT_EQ(all(), (Pairs{{"after", "1"}}));
}

// A savepoint applies the batch, so what the batch holds afterwards is all
// newer than it: rolling back to it drops the batch, and SQLite undoes the
// rest.
TEST_F(BatchingTest, SavepointsApplyAndRollbackToDropsWhatCameAfter) {
  begin();
  TUPLEKV_ASSERT_OK(store_->set(b("before"), b("1")));
  // SQLite calls xSavepoint before the savepoint exists, so what it writes
  // is older than the savepoint; this test does the same.
  TUPLEKV_ASSERT_OK(store_->savepoint(0));
  ASSERT_TRUE(db_.exec("SAVEPOINT s"));
  EXPECT_EQ(store_->batched_writes(), 0u);
  EXPECT_EQ(stored().size(), 1u);
  TUPLEKV_ASSERT_OK(store_->set(b("after"), b("2")));
  TUPLEKV_ASSERT_OK(store_->clear(b("before")));
  ASSERT_TRUE(db_.exec("ROLLBACK TO s"));
  TUPLEKV_ASSERT_OK(store_->rollback_to(0));
  EXPECT_EQ(all(), (Pairs{{"before", "1"}}));
  commit();
  EXPECT_EQ(all(), (Pairs{{"before", "1"}}));
}

// A bulk load into an empty table looks in the shadow table a handful of
// times, not once a key, even across applies forced by a small limit; and
// a key loaded before an apply is still found as a duplicate after it.
TEST_F(BatchingTest, InsertsIntoAnEmptyRangeLookBelowRarely) {
  fill({{"zzz", "after every key below"}});
  store_->set_batch_limit(16 << 10);
  begin();
  std::mt19937_64 rng(7);
  std::vector<std::string> keys;
  for (int i = 0; i < 20000; ++i) keys.push_back("k" + std::to_string(rng() % 100000000));
  size_t new_keys = 0;
  for (const std::string& k : keys) {
    bool inserted = false;
    TUPLEKV_ASSERT_OK(store_->insert(k, "v", &inserted));
    new_keys += inserted ? 1 : 0;
  }
  EXPECT_LT(store_->absence_lookups(), 100u);
  for (int i = 0; i < 100; ++i) {
    bool inserted = true;
    TUPLEKV_ASSERT_OK(store_->insert(keys[static_cast<size_t>(i) * 37], "again", &inserted));
    EXPECT_FALSE(inserted);
  }
  commit();
  EXPECT_EQ(db_.value("SELECT count(*) FROM t_kv"), std::to_string(new_keys + 1));
}

// The batch trusts what it found absent; a key written into the shadow
// table behind the store's back meanwhile is reported when the batch is
// applied, and every later apply fails the same way until a rollback.
TEST_F(BatchingTest, AKeyWrittenBehindTheStoresBackIsReported) {
  begin();
  bool inserted = false;
  TUPLEKV_ASSERT_OK(store_->insert(b("k"), b("mine"), &inserted));
  ASSERT_TRUE(inserted);
  ASSERT_TRUE(db_.exec("INSERT INTO t_kv VALUES (CAST('k' AS BLOB), x'00')"));
  const Status s = store_->sync();
  EXPECT_EQ(s.code(), StatusCode::kCorruption);
  EXPECT_NE(s.message().find("written directly"), std::string::npos) << s.message();
  EXPECT_EQ(store_->sync().code(), StatusCode::kCorruption);
  // Reads still see the batch over the table.
  Bytes v;
  bool found = false;
  TUPLEKV_ASSERT_OK(store_->get(b("k"), &v, &found));
  EXPECT_EQ(v, "mine");
  ASSERT_TRUE(db_.exec("ROLLBACK"));
  TUPLEKV_ASSERT_OK(store_->rollback());
  EXPECT_TRUE(all().empty());
}

// Mapped scans through the batch: entries and rows from either side.
TEST_F(BatchingTest, MappedScansReadRowsThroughTheBatch) {
  const KeyMapping m = fill_index_sample(store_.get());
  auto str = [](const std::string& v) { return "\x02" + v + std::string(1, '\0'); };
  auto num = [](int n) { return "\x15" + std::string(1, static_cast<char>(n)); };
  begin();
  TUPLEKV_ASSERT_OK(store_->set(str("r") + num(3), b("changed")));   // row in the batch
  TUPLEKV_ASSERT_OK(store_->clear(str("r") + num(13)));             // row gone
  TUPLEKV_ASSERT_OK(store_->set(str("r") + num(250), b("new row")));
  TUPLEKV_ASSERT_OK(store_->set(str("i") + num(3) + num(250), b("")));  // entry in the batch
  TUPLEKV_ASSERT_OK(store_->clear(str("i") + num(3) + num(23)));       // entry gone
  const KeyRange r{str("i") + num(3), str("i") + num(4)};
  for (bool reverse : {false, true}) {
    auto c = store_->scan_mapped(r, ScanOptions{reverse, 0, false}, m);
    ASSERT_TRUE(c.ok());
    std::vector<std::string> got;
    for (Cursor* cur = c.value().get(); cur->valid(); cur->next()) {
      got.push_back(cur->mapped_found() ? std::string(cur->value()) : "(none)");
    }
    std::vector<std::string> want;
    for (int n = 3; n < 200; n += 10) {
      if (n == 23) continue;
      want.push_back(n == 3 ? "changed" : n == 13 ? "(none)" : "row" + std::to_string(n));
    }
    want.push_back("new row");
    if (reverse) std::reverse(want.begin(), want.end());
    EXPECT_EQ(got, want) << "reverse " << reverse;
  }
  commit();
}

}  // namespace
}  // namespace tuplekv::ext
