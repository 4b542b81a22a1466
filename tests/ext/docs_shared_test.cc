// ext/docs_shared.h: what tuplekv_docs and tuplekv_leaves share, called
// directly. The options of a docs table, which tuplekv_leaves reads back
// from the table's CREATE statement, so both must parse them alike and
// refuse the same bad lists with the same messages; the subspace prefix and
// the id encoding, which must be the tuple layer's own bytes (tuple_pack),
// or the leaves of one table would not be found by the other; the split of
// a key into its document and the rest; the planning helper both modules'
// xBestIndex answer with (called from a small module's xBestIndex, where
// SQLite hands it a real sqlite3_index_info); the store both open, one
// object per connection; and the small slot helpers and module
// registration.
#include "ext/docs_shared.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/testutil.h"

namespace tuplekv::ext::docs {
namespace {

using testing::Db;
using testing::Rows;

Status parse(const std::vector<const char*>& args, DocsOptions* out) {
  return parse_docs_options("t", static_cast<int>(args.size()), args.data(), out);
}

// The message parsing `args` fails with ("" plus a test failure if it
// succeeds).
std::string parse_error(const std::vector<const char*>& args) {
  DocsOptions o;
  const Status s = parse(args, &o);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.message();
  return s.message();
}

TEST(DocsSharedTest, NoOptionsAreTheDocumentedDefaults) {
  DocsOptions o;
  ASSERT_TRUE(parse({}, &o).ok());
  EXPECT_EQ(o.keyspace.subspace, "t");  // the table's name
  EXPECT_FALSE(o.keyspace.subspace_given);
  EXPECT_FALSE(o.keyspace.memory);
  EXPECT_EQ(o.mode, model::DocsMode::kDocuments);
  EXPECT_FALSE(o.fdb_limits);
  EXPECT_TRUE(o.cache);
}

TEST(DocsSharedTest, EveryOptionIsRead) {
  DocsOptions o;
  ASSERT_TRUE(
      parse({"subspace='s,x'", " Store = MEMORY ", "mode=Merge", "fdb_limits=yes", "CACHE=off"}, &o)
          .ok());
  EXPECT_EQ(o.keyspace.subspace, "s,x");
  EXPECT_TRUE(o.keyspace.subspace_given);
  EXPECT_TRUE(o.keyspace.memory);
  EXPECT_EQ(o.mode, model::DocsMode::kMerge);
  EXPECT_TRUE(o.fdb_limits);
  EXPECT_FALSE(o.cache);

  DocsOptions back;
  ASSERT_TRUE(parse({"mode=\"documents\"", "store=sqlite", "fdb_limits=0", "cache=1"}, &back).ok());
  EXPECT_EQ(back.mode, model::DocsMode::kDocuments);
  EXPECT_FALSE(back.keyspace.memory);
  EXPECT_FALSE(back.fdb_limits);
  EXPECT_TRUE(back.cache);
}

TEST(DocsSharedTest, BadOptionListsNameWhatIsWrong) {
  EXPECT_EQ(parse_error({"mode=tree"}),
            "tuplekv_docs: mode must be documents or merge, not 'tree'");
  EXPECT_EQ(parse_error({"mode="}), "tuplekv_docs: mode must be documents or merge, not ''");
  // Unknown names are quoted as written, not as folded.
  EXPECT_EQ(parse_error({"Colour=red"}), "tuplekv_docs: unknown option 'Colour'");
  EXPECT_EQ(parse_error({"cache=maybe"}),
            "tuplekv_docs: cache must be 1 or 0 (true/false, yes/no, on/off), not 'maybe'");
  EXPECT_EQ(parse_error({"fdb_limits=2"}),
            "tuplekv_docs: fdb_limits must be 1 or 0 (true/false, yes/no, on/off), not '2'");
  EXPECT_EQ(parse_error({"store=disk"}),
            "tuplekv_docs: store must be sqlite or memory, not 'disk'");
  EXPECT_EQ(parse_error({"subspace=''"}), "tuplekv_docs: subspace must not be empty");
  EXPECT_EQ(parse_error({"merge"}), "tuplekv_docs: expected option=value, got 'merge'");
  EXPECT_EQ(parse_error({"mode=merge", "MODE=documents"}),
            "tuplekv_docs: option 'MODE' given twice");
  // One bad option spoils a list that is otherwise good.
  EXPECT_EQ(parse_error({"store=memory", "mode=merge", "cache=0", "x=1"}),
            "tuplekv_docs: unknown option 'x'");
}

// Bytes from hex, for packed tuples written out by hand.
Bytes unhex(const char* hex) {
  Bytes out;
  EXPECT_TRUE(from_hex(hex, &out)) << hex;
  return out;
}

TEST(DocsSharedTest, SubspacePrefixIsTheTupleOfTheName) {
  Bytes p;
  ASSERT_TRUE(subspace_prefix(kDocsModule, "docs", &p).ok());
  EXPECT_EQ(to_hex(p), "02646f637300");  // pack(('docs',))
  // A NUL in the name is escaped as the tuple layer escapes it.
  ASSERT_TRUE(subspace_prefix(kDocsModule, std::string("a\0b", 3), &p).ok());
  EXPECT_EQ(to_hex(p), "026100ff6200");
  const Status bad = subspace_prefix(kLeavesModule, "\xff", &p);
  EXPECT_EQ(bad.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(bad.message(), "tuplekv_leaves: subspace '\xff' is not valid UTF-8");
}

// An SQL value as a module is handed one: `expr` evaluated, then copied.
class SqlValue {
 public:
  SqlValue(sqlite3* db, const std::string& expr) {
    sqlite3_stmt* stmt = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, ("SELECT " + expr).c_str(), -1, &stmt, nullptr), SQLITE_OK)
        << expr;
    if (sqlite3_step(stmt) == SQLITE_ROW) value_ = sqlite3_value_dup(sqlite3_column_value(stmt, 0));
    sqlite3_finalize(stmt);
  }
  ~SqlValue() { sqlite3_value_free(value_); }
  SqlValue(const SqlValue&) = delete;
  SqlValue& operator=(const SqlValue&) = delete;
  sqlite3_value* get() const { return value_; }

 private:
  sqlite3_value* value_ = nullptr;
};

// id_from(b): result_id() of the bytes b, or its error.
void id_from(sqlite3_context* ctx, int, sqlite3_value** argv) {
  const Bytes b(static_cast<const char*>(sqlite3_value_blob(argv[0])),
                static_cast<size_t>(sqlite3_value_bytes(argv[0])));
  const Status s = result_id(ctx, b);
  if (!s.ok()) set_result_error(ctx, s);
}

void add_id_from(Db* db) {
  ASSERT_EQ(sqlite3_create_function(db->handle(), "id_from", 1, SQLITE_UTF8, nullptr, id_from,
                                    nullptr, nullptr),
            SQLITE_OK);
}

// An id is packed as tuple_pack packs the one value, and read back as the
// same SQL value of the same type.
TEST(DocsSharedTest, IdsArePackedAsTuplePackAndReadBackAlike) {
  Db db;
  add_id_from(&db);
  for (const char* expr :
       {"1", "-7", "9223372036854775807", "2.5", "2.0", "'ten'", "''", "x'00ff'", "x''"}) {
    SCOPED_TRACE(expr);
    const SqlValue v(db.handle(), expr);
    Bytes id = "left over";
    ASSERT_TRUE(encode_id(v.get(), &id).ok());
    EXPECT_EQ(to_hex(id), db.value(std::string("SELECT lower(hex(tuple_pack(") + expr + ")))"));
    const std::string literal = "x'" + to_hex(id) + "'";
    EXPECT_EQ(db.value("SELECT quote(id_from(" + literal + "))"),
              db.value(std::string("SELECT quote(") + expr + ")"));
    EXPECT_EQ(db.value("SELECT typeof(id_from(" + literal + "))"),
              db.value(std::string("SELECT typeof(") + expr + ")"));
  }
}

TEST(DocsSharedTest, AnIdThatIsNotUtf8TextIsRefused) {
  Db db;
  const SqlValue v(db.handle(), "CAST(x'61ff' AS TEXT)");
  Bytes id;
  const Status s = encode_id(v.get(), &id);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("UTF-8"), std::string::npos) << s.message();
}

TEST(DocsSharedTest, ResultIdOfDamagedBytesIsAnError) {
  Db db;
  add_id_from(&db);
  EXPECT_EQ(db.error("SELECT id_from(x'ff')"),
            "tuple: unknown type code at byte 0 (type code 0xff)");
  EXPECT_EQ(db.error_code("SELECT id_from(x'ff')"), SQLITE_CORRUPT_VTAB);
  EXPECT_EQ(db.error("SELECT id_from(x'')"),
            "tuple: expected an element at byte 0, found the end of the input");
  // A string element without its terminator.
  EXPECT_EQ(db.error_code("SELECT id_from(x'0261')"), SQLITE_CORRUPT_VTAB);
}

// documents: pack((S, id) + path); merge: pack((S,) + path + (leaf,)).
TEST(DocsSharedTest, SplitDocTakesTheFirstElementInDocumentsMode) {
  const Bytes rest = unhex("150102610014");  // (1, 'a', 0)
  BytesView doc = "x", after = "x";
  ASSERT_TRUE(split_doc(model::DocsMode::kDocuments, rest, &doc, &after).ok());
  EXPECT_EQ(to_hex(doc), "1501");
  EXPECT_EQ(to_hex(after), "02610014");
  // Views into the key, not copies.
  EXPECT_EQ(doc.data(), rest.data());
  EXPECT_EQ(after.data(), rest.data() + 2);

  const Bytes only_id = unhex("026b00");  // a scalar document: ('k',) and no path
  ASSERT_TRUE(split_doc(model::DocsMode::kDocuments, only_id, &doc, &after).ok());
  EXPECT_EQ(doc, only_id);
  EXPECT_TRUE(after.empty());

  ASSERT_TRUE(split_doc(model::DocsMode::kMerge, rest, &doc, &after).ok());
  EXPECT_TRUE(doc.empty());
  EXPECT_EQ(after, rest);
}

TEST(DocsSharedTest, SplitDocOfAKeyWithoutAnIdIsCorruption) {
  BytesView doc, after;
  const Status none = split_doc(model::DocsMode::kDocuments, BytesView(), &doc, &after);
  EXPECT_EQ(none.code(), StatusCode::kCorruption);
  EXPECT_EQ(none.message(), "document key without an id");
  const Status bad = split_doc(model::DocsMode::kDocuments, "\xff", &doc, &after);
  EXPECT_EQ(bad.code(), StatusCode::kCorruption);
  EXPECT_EQ(bad.message(), "tuple: unknown type code at byte 0 (type code 0xff)");
  // Merge mode has no id to take: any rest is the path.
  EXPECT_TRUE(split_doc(model::DocsMode::kMerge, BytesView(), &doc, &after).ok());
}

// plan_equalities() as an xBestIndex sees it: an eponymous table
// `planned(id, path, value, prefix HIDDEN)` planned with tuplekv_leaves'
// shape (id, path, and prefix as the parameter column), each call's
// outcome kept. It only plans: EXPLAIN QUERY PLAN opens no cursor.
struct PlanCall {
  struct Term {
    int column;
    unsigned char op;
    bool usable;
    int argv;
    bool omit;
  };
  int rc;
  std::vector<Term> terms;
  int idx_num;
  std::string idx_str;
  double cost;
  sqlite3_int64 rows;
  bool unique;
};
std::vector<PlanCall> g_plan_calls;

int planned_connect(sqlite3* db, void*, int, const char* const*, sqlite3_vtab** out, char**) {
  const int rc = sqlite3_declare_vtab(db, "CREATE TABLE x(id, path, value, prefix HIDDEN)");
  if (rc == SQLITE_OK) *out = new sqlite3_vtab{};
  return rc;
}

int planned_best_index(sqlite3_vtab*, sqlite3_index_info* info) {
  static const int kColumns[] = {0, 1, 3};
  static const int kBits[] = {1, 2, 4};
  static const char* const kNames[] = {"id", "path", "prefix"};
  int idx_num = -1;
  PlanCall call{};
  call.rc = plan_equalities(info, kColumns, kBits, kNames, 3, 1, 4, &idx_num);
  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& c = info->aConstraint[i];
    call.terms.push_back({c.iColumn, c.op, c.usable != 0, info->aConstraintUsage[i].argvIndex,
                          info->aConstraintUsage[i].omit != 0});
  }
  call.idx_num = idx_num;
  if (call.rc == SQLITE_OK) {
    EXPECT_EQ(info->idxNum, idx_num);
    call.idx_str = info->idxStr == nullptr ? "" : info->idxStr;
    EXPECT_EQ(info->needToFreeIdxStr, info->idxStr == nullptr ? 0 : 1);
  }
  call.cost = info->estimatedCost;
  call.rows = info->estimatedRows;
  call.unique = (info->idxFlags & SQLITE_INDEX_SCAN_UNIQUE) != 0;
  g_plan_calls.push_back(call);
  return call.rc;
}

int planned_disconnect(sqlite3_vtab* vtab) {
  delete vtab;
  return SQLITE_OK;
}

class PlanEqualitiesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    module_.iVersion = 1;
    module_.xConnect = planned_connect;  // no xCreate: eponymous only
    module_.xBestIndex = planned_best_index;
    module_.xDisconnect = planned_disconnect;
    module_.xDestroy = planned_disconnect;
    ASSERT_EQ(register_module(db.handle(), "planned", &module_, nullptr), SQLITE_OK);
    ASSERT_TRUE(db.exec("CREATE TABLE u(p)"));
    g_plan_calls.clear();
  }
  // The calls planning `sql` made.
  std::vector<PlanCall> plan(const std::string& sql) {
    g_plan_calls.clear();
    plan_text = db.rows("EXPLAIN QUERY PLAN " + sql).back().back();
    return g_plan_calls;
  }
  // The one call planning `sql` made.
  PlanCall plan_one(const std::string& sql) {
    const std::vector<PlanCall> calls = plan(sql);
    EXPECT_EQ(calls.size(), 1u) << sql;
    return calls.empty() ? PlanCall{} : calls.back();
  }
  std::string plan_text;
  sqlite3_module module_{};
  Db db;
};

TEST_F(PlanEqualitiesTest, WithoutEqualitiesEverythingIsScanned) {
  const PlanCall none = plan_one("SELECT * FROM planned WHERE id > 1 AND value = 2");
  EXPECT_EQ(none.rc, SQLITE_OK);
  EXPECT_EQ(none.idx_num, 0);
  EXPECT_EQ(none.idx_str, "");
  EXPECT_FALSE(none.unique);
  ASSERT_EQ(none.terms.size(), 2u);
  for (const PlanCall::Term& t : none.terms) EXPECT_EQ(t.argv, 0) << t.column;
  EXPECT_EQ(plan_text, "SCAN planned VIRTUAL TABLE INDEX 0:");
}

// Arguments come in column order whatever the order of the terms; only the
// id is left for SQLite to check again (2 = 2.0); one = per column is used.
TEST_F(PlanEqualitiesTest, ArgumentsComeInColumnOrder) {
  const PlanCall all = plan_one(
      "SELECT * FROM planned WHERE prefix = '$' AND path = '$.a' AND id = 1 AND id = 2");
  EXPECT_EQ(all.rc, SQLITE_OK);
  EXPECT_EQ(all.idx_num, 7);
  EXPECT_EQ(all.idx_str, "id path prefix");
  EXPECT_TRUE(all.unique);
  int ids_used = 0;
  for (const PlanCall::Term& t : all.terms) {
    SCOPED_TRACE(t.column);
    if (t.column == 0) {
      ids_used += t.argv > 0 ? 1 : 0;
      EXPECT_TRUE(t.argv == 0 || t.argv == 1);
      EXPECT_FALSE(t.omit);
    } else {
      EXPECT_EQ(t.argv, t.column == 1 ? 2 : 3);
      EXPECT_TRUE(t.omit);
    }
  }
  EXPECT_EQ(ids_used, 1);
  EXPECT_EQ(plan_text, "SCAN planned VIRTUAL TABLE INDEX 7:id path prefix");
}

// Cheaper with an id than without, and cheaper with a path than without.
TEST_F(PlanEqualitiesTest, CostsFavourTheNarrowerScan) {
  const PlanCall id_path = plan_one("SELECT * FROM planned WHERE id = 1 AND path = '$.a'");
  const PlanCall id = plan_one("SELECT * FROM planned WHERE id = 1");
  const PlanCall path = plan_one("SELECT * FROM planned WHERE path = '$.a'");
  const PlanCall none = plan_one("SELECT * FROM planned");
  EXPECT_EQ(id_path.idx_str, "id path");
  EXPECT_EQ(id.idx_str, "id");
  EXPECT_EQ(path.idx_str, "path");
  EXPECT_LT(id_path.cost, id.cost);
  EXPECT_LT(id.cost, path.cost);
  EXPECT_LT(path.cost, none.cost);
  EXPECT_LT(id.rows, path.rows);  // one document, not every one
  EXPECT_TRUE(id_path.unique && id.unique);
  EXPECT_FALSE(path.unique || none.unique);
}

// A parameter column's = that cannot be used yet (its operand comes from a
// table not read yet) refuses the whole combination, so SQLite reads that
// table first; another column's unusable = is left to SQLite.
TEST_F(PlanEqualitiesTest, AnUnusableParameterEqualityRefusesThePlan) {
  int refused = 0;
  for (const PlanCall& c : plan("SELECT * FROM planned JOIN u ON planned.prefix = u.p")) {
    const bool prefix_usable = c.terms.size() == 1 && c.terms[0].usable;
    EXPECT_EQ(c.rc, prefix_usable ? SQLITE_OK : SQLITE_CONSTRAINT);
    refused += prefix_usable ? 0 : 1;
  }
  EXPECT_GT(refused, 0);
  EXPECT_EQ(plan_text, "SCAN planned VIRTUAL TABLE INDEX 4:prefix");  // the inner loop
  int unused = 0;
  for (const PlanCall& c : plan("SELECT * FROM planned JOIN u ON planned.path = u.p")) {
    EXPECT_EQ(c.rc, SQLITE_OK);
    if (c.terms.size() == 1 && !c.terms[0].usable) {
      ++unused;
      EXPECT_EQ(c.idx_str, "");
      EXPECT_EQ(c.terms[0].argv, 0);
    }
  }
  EXPECT_GT(unused, 0);
  // Another operator on the parameter column is no reason to refuse.
  for (const PlanCall& c : plan("SELECT * FROM planned JOIN u ON planned.prefix > u.p")) {
    EXPECT_EQ(c.rc, SQLITE_OK);
  }
}

TEST(DocsSharedTest, NoRowidIsAnInternalError) {
  sqlite3_vtab vtab{};
  sqlite3_vtab_cursor cursor{};
  cursor.pVtab = &vtab;
  sqlite3_int64 rowid = 5;
  EXPECT_EQ(no_rowid(&cursor, &rowid), SQLITE_INTERNAL);
  ASSERT_NE(vtab.zErrMsg, nullptr);
  EXPECT_STREQ(vtab.zErrMsg, "tuplekv internal error: no rowid");
  sqlite3_free(vtab.zErrMsg);
}

struct CountedCursor : sqlite3_vtab_cursor {
  CountedCursor() : sqlite3_vtab_cursor{} { ++live; }
  ~CountedCursor() { --live; }
  static int live;
};
int CountedCursor::live = 0;

struct ThrowingCursor : sqlite3_vtab_cursor {
  ThrowingCursor() : sqlite3_vtab_cursor{} { throw std::runtime_error("no"); }
};

struct HugeCursor : sqlite3_vtab_cursor {
  HugeCursor() : sqlite3_vtab_cursor{} { throw std::bad_alloc(); }
};

TEST(DocsSharedTest, CursorsAreMadeAndFreedByTheSlotHelpers) {
  sqlite3_vtab vtab{};
  sqlite3_vtab_cursor* cur = nullptr;
  ASSERT_EQ(open_cursor<CountedCursor>(&vtab, &cur), SQLITE_OK);
  ASSERT_NE(cur, nullptr);
  EXPECT_EQ(CountedCursor::live, 1);
  cur->pVtab = &vtab;  // as SQLite sets it
  EXPECT_EQ(close_cursor<CountedCursor>(cur), SQLITE_OK);
  EXPECT_EQ(CountedCursor::live, 0);
  // An exception never reaches SQLite: it becomes a code and a message.
  cur = nullptr;
  EXPECT_EQ(open_cursor<ThrowingCursor>(&vtab, &cur), SQLITE_INTERNAL);
  EXPECT_EQ(cur, nullptr);
  ASSERT_NE(vtab.zErrMsg, nullptr);
  EXPECT_STREQ(vtab.zErrMsg, "tuplekv internal error: unexpected exception");
  sqlite3_free(vtab.zErrMsg);
  vtab.zErrMsg = nullptr;
  EXPECT_EQ(open_cursor<HugeCursor>(&vtab, &cur), SQLITE_NOMEM);
  EXPECT_EQ(vtab.zErrMsg, nullptr);
}

// The store of a docs table, as a docs table and every tuplekv_leaves over
// it open it: one object per connection.
TEST(DocsSharedTest, OpenStoreSharesOneSqliteStorePerTable) {
  Db db;
  sqlite3* h = db.handle();
  const std::shared_ptr<ConnectionRegistry> registry = ConnectionRegistry::of(h);
  Bytes prefix = "p";
  OpenedStore made;
  ASSERT_TRUE(open_store(h, registry.get(), "main", "s", "", false, true, &prefix, &made).ok());
  ASSERT_NE(made.store, nullptr);
  EXPECT_EQ(made.sqlite_store, made.store.get());
  EXPECT_EQ(prefix, "p");
  EXPECT_EQ(db.rows("SELECT name FROM sqlite_schema"), (Rows{{"s_kv"}}));
  // Connected again, under the name in another case (SQL names ignore it).
  OpenedStore again;
  ASSERT_TRUE(open_store(h, registry.get(), "main", "S", "", false, false, &prefix, &again).ok());
  EXPECT_EQ(again.store, made.store);
  ASSERT_TRUE(made.store->set("k", "v").ok());
  EXPECT_EQ(db.rows("SELECT k, v FROM s_kv"), (Rows{{"x'6B'", "x'76'"}}));
  // Created a second time: the shadow table exists.
  OpenedStore twice;
  const Status exists =
      open_store(h, registry.get(), "main", "s", "", false, true, &prefix, &twice);
  EXPECT_FALSE(exists.ok());
  EXPECT_NE(exists.message().find("\"main\".\"s_kv\""), std::string::npos) << exists.message();
  EXPECT_EQ(db.rows("SELECT k, v FROM s_kv"), (Rows{{"x'6B'", "x'76'"}}));
}

// A memory store belongs to the connection and keeps the prefix it was
// made with.
TEST(DocsSharedTest, OpenStoreKeepsAMemoryStoresPrefix) {
  Db db;
  sqlite3* h = db.handle();
  const std::shared_ptr<ConnectionRegistry> registry = ConnectionRegistry::of(h);
  Bytes prefix = "first";
  OpenedStore made;
  ASSERT_TRUE(open_store(h, registry.get(), "main", "m", "decl", true, true, &prefix, &made).ok());
  ASSERT_NE(made.store, nullptr);
  EXPECT_EQ(made.sqlite_store, nullptr);
  EXPECT_EQ(prefix, "first");
  Bytes other = "second";
  OpenedStore again;
  ASSERT_TRUE(open_store(h, registry.get(), "main", "m", "", true, false, &other, &again).ok());
  EXPECT_EQ(again.store, made.store);
  EXPECT_EQ(other, "first");
  EXPECT_EQ(db.value("SELECT count(*) FROM sqlite_schema"), "0");
}

// A tuplekv_docs table's store, opened as tuplekv_leaves opens it, holds
// what SQL wrote to the table.
TEST(DocsSharedTest, OpenStoreFindsTheStoreADocsTableWritesThrough) {
  Db db;
  ASSERT_TRUE(
      db.exec("CREATE VIRTUAL TABLE d USING tuplekv_docs(store=memory); INSERT INTO d(id, doc) "
              "VALUES (1, '[7]')"));
  Bytes prefix;
  ASSERT_TRUE(subspace_prefix(kDocsModule, "d", &prefix).ok());
  OpenedStore opened;
  ASSERT_TRUE(open_store(db.handle(), ConnectionRegistry::of(db.handle()).get(), "main", "d", "",
                         true, false, &prefix, &opened)
                  .ok());
  Bytes leaf;
  bool found = false;
  // pack(('d', 1, 0)) -> pack((7,))
  ASSERT_TRUE(opened.store->get(prefix + unhex("150114"), &leaf, &found).ok());
  EXPECT_TRUE(found);
  EXPECT_EQ(to_hex(leaf), "1507");
}

// What a registered module is handed: the connection's registry.
const ModuleData* g_seen = nullptr;

int capture_aux(sqlite3*, void* aux, int, const char* const*, sqlite3_vtab**, char** err) {
  g_seen = static_cast<const ModuleData*>(aux);
  *err = sqlite3_mprintf("captured");
  return SQLITE_ERROR;
}

TEST(DocsSharedTest, RegisterModuleHandsTheConnectionsRegistryAndFreesIt) {
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(":memory:", &raw), SQLITE_OK);
  sqlite3_module m{};
  m.xCreate = capture_aux;
  m.xConnect = capture_aux;
  m.xDestroy = [](sqlite3_vtab*) { return SQLITE_OK; };  // SQLite wants one; never called
  char* err = nullptr;
  ASSERT_EQ(register_module(raw, "captures", &m, &err), SQLITE_OK);
  EXPECT_EQ(err, nullptr);
  std::weak_ptr<ConnectionRegistry> registry = ConnectionRegistry::of(raw);
  EXPECT_EQ(sqlite3_exec(raw, "CREATE VIRTUAL TABLE x USING captures", nullptr, nullptr, nullptr),
            SQLITE_ERROR);
  EXPECT_STREQ(sqlite3_errmsg(raw), "captured");
  ASSERT_NE(g_seen, nullptr);
  EXPECT_EQ(g_seen->registry, registry.lock());
  g_seen = nullptr;
  // Closing the connection frees the module's data, and the registry with it.
  ASSERT_EQ(sqlite3_close(raw), SQLITE_OK);
  EXPECT_TRUE(registry.expired());
}

TEST(DocsSharedTest, RegisterLeavesModuleAddsTuplekvLeaves) {
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(":memory:", &raw), SQLITE_OK);
  char* err = nullptr;
  ASSERT_EQ(register_leaves_module(raw, &err), SQLITE_OK);
  EXPECT_EQ(err, nullptr);
  ASSERT_EQ(
      sqlite3_exec(raw, "CREATE VIRTUAL TABLE l USING tuplekv_leaves(d)", nullptr, nullptr, &err),
      SQLITE_ERROR);
  EXPECT_STREQ(err, "tuplekv_leaves: 'd' is not a tuplekv_docs table in main");
  sqlite3_free(err);
  ASSERT_EQ(sqlite3_close(raw), SQLITE_OK);

  // Registered again on a connection that has every module, the leaves
  // still read the docs table's store.
  Db db;
  ASSERT_TRUE(
      db.exec("CREATE VIRTUAL TABLE d USING tuplekv_docs(store=memory); INSERT INTO d(id, doc) "
              "VALUES (1, '{\"a\":1}')"));
  ASSERT_EQ(register_leaves_module(db.handle(), nullptr), SQLITE_OK);
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE l USING tuplekv_leaves(d)"));
  EXPECT_EQ(db.rows("SELECT id, path, value FROM l"), (Rows{{"1", "$.a", "1"}}));
}

}  // namespace
}  // namespace tuplekv::ext::docs
