// Every tuplekv module, with either store, in schemas other than main: TEMP
// tables and ATTACHed databases (':memory:' and files).
//
// A table lives where SQLite puts it: a store=sqlite table's shadow tables
// sit in the table's own schema, a store=memory table's store is the
// connection's, kept under the schema and name (ext/memory_registry.h). A
// name used in main, temp and an attached schema at once names three tables
// that never see each other's rows, and SQLite's resolution of an
// unqualified name (temp, main, then the attached schemas) decides which one
// a statement reaches; the module must only keep them apart, through
// writes, renames, drops, rollbacks and DETACH. Where a native table has a
// say (statement atomicity across schemas, ROLLBACK, one file attached
// twice) the tests run it side by side and expect the same.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

#include "tests/testutil.h"

namespace tuplekv::testing {
namespace {

// One module's statements, as templates: {t} is the table (maybe
// qualified), {n} its bare name, {s} the store, {k} and {v} SQL expressions
// for a key and a text value. A leaves table reads a docs table {t}d, which
// takes its writes.
struct Module {
  const char* label;
  const char* create;
  const char* insert;
  const char* update;        // the value of key {k}
  const char* remove;        // key {k}
  const char* read;          // (key, value) as text, in key order
  const char* sqlite_names;  // the schema's tables with store=sqlite, in order
  const char* memory_names;
  const char* written;  // the table that takes writes and keeps the counters
  const char* drop;
};

const Module kModules[] = {
    {"Kv", "CREATE VIRTUAL TABLE {t} USING tuplekv_kv(store={s})",
     "INSERT INTO {t} VALUES (CAST({k} AS BLOB), CAST({v} AS BLOB))",
     "UPDATE {t} SET value = CAST({v} AS BLOB) WHERE key = CAST({k} AS BLOB)",
     "DELETE FROM {t} WHERE key = CAST({k} AS BLOB)",
     "SELECT CAST(key AS TEXT), CAST(value AS TEXT) FROM {t} ORDER BY 1", "t t_kv", "t", "{t}",
     "DROP TABLE {t}"},
    {"Table",
     "CREATE VIRTUAL TABLE {t} USING tuplekv_table(k INTEGER, v TEXT, PRIMARY KEY(k),"
     " INDEX {n}_v(v), store={s})",
     "INSERT INTO {t} VALUES ({k}, {v})", "UPDATE {t} SET v = {v} WHERE k = {k}",
     "DELETE FROM {t} WHERE k = {k}", "SELECT k, v FROM {t} ORDER BY 1", "t t_kv", "t", "{t}",
     "DROP TABLE {t}"},
    {"Cells", "CREATE VIRTUAL TABLE {t} USING tuplekv_cells(store={s})",
     "INSERT INTO {t} VALUES ({k}, 'c', {v})", "UPDATE {t} SET value = {v} WHERE row = {k}",
     "DELETE FROM {t} WHERE row = {k}", "SELECT row, value FROM {t} ORDER BY 1", "t t_kv", "t",
     "{t}", "DROP TABLE {t}"},
    {"Multimap", "CREATE VIRTUAL TABLE {t} USING tuplekv_multimap(store={s})",
     "INSERT INTO {t} VALUES ({k}, {v})", "UPDATE {t} SET value = {v} WHERE key = {k}",
     "DELETE FROM {t} WHERE key = {k}", "SELECT key, value FROM {t} ORDER BY 1", "t t_kv", "t",
     "{t}", "DROP TABLE {t}"},
    {"Docs", "CREATE VIRTUAL TABLE {t} USING tuplekv_docs(store={s})",
     "INSERT INTO {t}(id, doc) VALUES ({k}, json_object('v', {v}))",
     "UPDATE {t} SET doc = json_object('v', {v}) WHERE id = {k}", "DELETE FROM {t} WHERE id = {k}",
     "SELECT id, json_extract(doc, '$.v') FROM {t} ORDER BY 1", "t t_json t_kv", "t", "{t}",
     "DROP TABLE {t}"},
    {"Leaves",
     "CREATE VIRTUAL TABLE {t}d USING tuplekv_docs(store={s});"
     "CREATE VIRTUAL TABLE {t} USING tuplekv_leaves({n}d)",
     "INSERT INTO {t}d(id, doc) VALUES ({k}, json_object('v', {v}))",
     "UPDATE {t}d SET doc = json_object('v', {v}) WHERE id = {k}",
     "DELETE FROM {t}d WHERE id = {k}", "SELECT id, value FROM {t} WHERE path = '$.v' ORDER BY 1",
     "t td td_json td_kv", "t td", "{t}d", "DROP TABLE {t}; DROP TABLE {t}d"},
};

// What a tuplekv table is held to where SQLite decides: the native table.
const Module kNative = {"Native", "CREATE TABLE {t}(k INTEGER PRIMARY KEY, v TEXT)",
                        kModules[1].insert, kModules[1].update, kModules[1].remove,
                        kModules[1].read, "t", "t", "{t}", "DROP TABLE {t}"};

struct Declaration {
  const Module* module;
  bool memory;
};

void PrintTo(const Declaration& d, std::ostream* os) {
  *os << d.module->label << (d.memory ? "Memory" : "Sqlite");
}

void replace_all(std::string* s, const std::string& from, const std::string& to) {
  for (size_t at = s->find(from); at != std::string::npos; at = s->find(from, at + to.size())) {
    s->replace(at, from.size(), to);
  }
}

// `text` with {t} = schema.name (name alone for an empty schema).
std::string fill(const Declaration& d, std::string text, const std::string& schema,
                 const std::string& name = "t", const std::string& k = "",
                 const std::string& v = "") {
  replace_all(&text, "{t}", schema.empty() ? name : schema + "." + name);
  replace_all(&text, "{n}", name);
  replace_all(&text, "{s}", d.memory ? "memory" : "sqlite");
  replace_all(&text, "{k}", k);
  replace_all(&text, "{v}", v);
  return text;
}

// The statements of `d` on one connection.
struct On {
  Db* db;
  Declaration d;
  std::string sql(const char* text, const std::string& schema, const std::string& name = "t",
                  const std::string& k = "", const std::string& v = "") const {
    return fill(d, text, schema, name, k, v);
  }
  bool create(const std::string& schema, const std::string& name = "t") const {
    return db->exec(sql(d.module->create, schema, name));
  }
  bool insert(const std::string& schema, int k, const std::string& v,
              const std::string& name = "t") const {
    return db->exec(sql(d.module->insert, schema, name, std::to_string(k), "'" + v + "'"));
  }
  bool update(const std::string& schema, int k, const std::string& v,
              const std::string& name = "t") const {
    return db->exec(sql(d.module->update, schema, name, std::to_string(k), "'" + v + "'"));
  }
  bool remove(const std::string& schema, int k, const std::string& name = "t") const {
    return db->exec(sql(d.module->remove, schema, name, std::to_string(k)));
  }
  Rows read(const std::string& schema, const std::string& name = "t") const {
    return db->rows(sql(d.module->read, schema, name));
  }
};

// The tables of `schema`, in name order.
std::string tables(Db* db, const std::string& schema) {
  return db->value("SELECT ifnull(group_concat(name, ' '), '') FROM (SELECT name FROM " + schema +
                   ".sqlite_schema WHERE type = 'table' ORDER BY name)");
}

// `names` after a rename of t (and its shadow tables t_*) to `to`; with
// `to` empty, after t is dropped.
std::string renamed(const std::string& names, const std::string& to) {
  std::vector<std::string> out;
  for (size_t b = 0; b < names.size();) {
    size_t e = names.find(' ', b);
    if (e == std::string::npos) e = names.size();
    std::string n = names.substr(b, e - b);
    const bool t = n == "t" || n.starts_with("t_");
    if (t) n = to + n.substr(1);
    if (!(t && to.empty())) out.push_back(n);
    b = e + 1;
  }
  std::sort(out.begin(), out.end());
  std::string joined;
  for (const std::string& n : out) joined += (joined.empty() ? "" : " ") + n;
  return joined;
}

class SchemasTest : public ::testing::TestWithParam<Declaration> {
 protected:
  void SetUp() override {
    path_ = ::testing::TempDir() + "schemas_" + ::testing::PrintToString(GetParam()) + ".db";
    remove_files();
  }
  void TearDown() override { remove_files(); }
  void remove_files() {
    for (const char* suffix : {"", "-journal"}) std::remove((path_ + suffix).c_str());
  }
  std::string expected_tables() const {
    return GetParam().memory ? GetParam().module->memory_names : GetParam().module->sqlite_names;
  }

  Db db;
  On on{&db, GetParam()};
  std::string path_;
};

std::vector<Declaration> declarations() {
  std::vector<Declaration> out;
  for (const Module& m : kModules) {
    for (bool memory : {false, true}) out.push_back({&m, memory});
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Modules, SchemasTest, ::testing::ValuesIn(declarations()),
                         [](const ::testing::TestParamInfo<Declaration>& info) {
                           return ::testing::PrintToString(info.param);
                         });

TEST_P(SchemasTest, WritesAndReadsInTempAndAttachedSchemas) {
  ASSERT_TRUE(db.exec("ATTACH ':memory:' AS aux; ATTACH '" + path_ + "' AS disk"));
  for (const char* schema : {"temp", "aux", "disk"}) {
    SCOPED_TRACE(schema);
    ASSERT_TRUE(on.create(schema));
    ASSERT_TRUE(on.insert(schema, 1, "a") && on.insert(schema, 2, "b") &&
                on.insert(schema, 3, "c"));
    ASSERT_TRUE(on.update(schema, 2, "B") && on.remove(schema, 3));
    EXPECT_EQ(on.read(schema), (Rows{{"1", "a"}, {"2", "B"}}));
    // The shadow tables are in the table's own schema, none in main.
    EXPECT_EQ(tables(&db, schema), expected_tables());
  }
  EXPECT_EQ(tables(&db, "main"), "");
}

TEST_P(SchemasTest, OneNameInMainTempAndAuxIsThreeTables) {
  ASSERT_TRUE(db.exec("ATTACH ':memory:' AS aux"));
  for (const char* schema : {"main", "temp", "aux"}) {
    ASSERT_TRUE(on.create(schema) && on.insert(schema, 1, schema));
  }
  // Unqualified: temp's.
  ASSERT_TRUE(on.insert("", 2, "plain") && on.update("", 1, "temp!"));
  EXPECT_EQ(on.read("temp"), (Rows{{"1", "temp!"}, {"2", "plain"}}));
  EXPECT_EQ(on.read("main"), (Rows{{"1", "main"}}));
  EXPECT_EQ(on.read("aux"), (Rows{{"1", "aux"}}));

  // Each keeps its own counters; tuplekv_stats resolves a bare name as
  // SQLite does.
  const std::string written = on.sql(GetParam().module->written, "");
  auto scans = [&](const std::string& schema) {
    return db.value("SELECT json_extract(tuplekv_stats('" + schema + written + "'), '$.scans')");
  };
  for (const char* schema : {"main.", "temp.", "aux."}) {
    db.value("SELECT tuplekv_stats('" + std::string(schema) + written + "', 'reset')");
  }
  db.value("SELECT count(*) FROM aux." + written);
  EXPECT_EQ(scans("aux."), "1");
  EXPECT_EQ(scans("main."), "0");
  EXPECT_EQ(scans(""), "0");
  db.value("SELECT count(*) FROM " + written);
  EXPECT_EQ(scans(""), "1");
  EXPECT_EQ(scans("temp."), "1");
  EXPECT_EQ(scans("main."), "0");

  // With temp's gone, main's; then aux's.
  ASSERT_TRUE(db.exec(on.sql(GetParam().module->drop, "temp")));
  EXPECT_EQ(tables(&db, "temp"), "");
  ASSERT_TRUE(on.remove("", 1));
  EXPECT_EQ(on.read("main"), Rows{});
  EXPECT_EQ(on.read("aux"), (Rows{{"1", "aux"}}));
  ASSERT_TRUE(db.exec(on.sql(GetParam().module->drop, "main")));
  EXPECT_EQ(on.read(""), (Rows{{"1", "aux"}}));
  EXPECT_EQ(tables(&db, "main"), "");
}

// A rename or drop in aux, done or rolled back, with a table of the same
// name in main. Another connection's schema change makes this one connect
// the tables anew, from their storage.
TEST_P(SchemasTest, RenameAndDropInAnAttachedSchemaTouchOnlyThatTable) {
  ASSERT_TRUE(db.exec("ATTACH '" + path_ + "' AS aux"));
  ASSERT_TRUE(on.create("main") && on.insert("main", 1, "main"));
  ASSERT_TRUE(on.create("aux") && on.insert("aux", 1, "aux") && on.insert("aux", 2, "aux"));
  const Rows rows = on.read("aux");
  const std::string renamed_tables = renamed(expected_tables(), "u");
  auto reconnect = [&] {
    Db other(path_);
    ASSERT_TRUE(other.exec("CREATE TABLE bump(x); DROP TABLE bump"));
  };

  ASSERT_TRUE(db.exec("ALTER TABLE aux.t RENAME TO u"));
  EXPECT_EQ(on.read("aux", "u"), rows);
  EXPECT_EQ(tables(&db, "aux"), renamed_tables);
  EXPECT_EQ(db.error("SELECT * FROM aux.t"), "no such table: aux.t");
  EXPECT_EQ(on.read(""), (Rows{{"1", "main"}}));

  for (const char* sql : {"BEGIN; ALTER TABLE aux.u RENAME TO w; ROLLBACK",
                          "BEGIN; DROP TABLE aux.u; ROLLBACK",
                          "BEGIN; SAVEPOINT s; DROP TABLE aux.u; ROLLBACK TO s; COMMIT",
                          "BEGIN; ALTER TABLE aux.u RENAME TO t; DROP TABLE aux.t; ROLLBACK"}) {
    SCOPED_TRACE(sql);
    ASSERT_TRUE(db.exec(sql));
    EXPECT_EQ(on.read("aux", "u"), rows);
    reconnect();
    EXPECT_EQ(on.read("aux", "u"), rows);
    EXPECT_EQ(tables(&db, "aux"), renamed_tables);
    EXPECT_EQ(on.read("main"), (Rows{{"1", "main"}}));
  }

  // Dropped, the name starts over empty; main's table is as it was.
  ASSERT_TRUE(db.exec("DROP TABLE aux.u"));
  EXPECT_EQ(tables(&db, "aux"), renamed(expected_tables(), ""));
  reconnect();
  ASSERT_TRUE(on.create("aux", "u"));
  EXPECT_EQ(on.read("aux", "u"), Rows{});
  EXPECT_EQ(on.read("main"), (Rows{{"1", "main"}}));
}

// A memory table's store stays with the connection until the table is
// dropped (ext/memory_registry.h), so a file attached again finds its
// tables as it left them, with either store. A ':memory:' database attached
// again is a new, empty one.
TEST_P(SchemasTest, DetachedAndAttachedAgainATableIsAsItWasLeft) {
  ASSERT_TRUE(db.exec("ATTACH '" + path_ + "' AS aux; ATTACH ':memory:' AS scratch"));
  for (const char* schema : {"main", "aux", "scratch"}) {
    ASSERT_TRUE(on.create(schema) && on.insert(schema, 1, schema));
  }
  ASSERT_TRUE(db.exec("DETACH aux; DETACH scratch"));
  EXPECT_EQ(db.error("SELECT * FROM aux.t"), "no such table: aux.t");
  EXPECT_EQ(on.read(""), (Rows{{"1", "main"}}));

  ASSERT_TRUE(db.exec("ATTACH '" + path_ + "' AS aux; ATTACH ':memory:' AS scratch"));
  EXPECT_EQ(on.read("aux"), (Rows{{"1", "aux"}}));
  EXPECT_EQ(tables(&db, "aux"), expected_tables());
  EXPECT_EQ(tables(&db, "scratch"), "");
  ASSERT_TRUE(on.create("scratch"));
  EXPECT_EQ(on.read("scratch"), Rows{});
  ASSERT_TRUE(on.insert("aux", 2, "again"));
  EXPECT_EQ(on.read("aux"), (Rows{{"1", "aux"}, {"2", "again"}}));
  EXPECT_EQ(on.read("main"), (Rows{{"1", "main"}}));
}

TEST_P(SchemasTest, DetachWaitsForAStatementReadingTheSchema) {
  ASSERT_TRUE(db.exec("ATTACH ':memory:' AS aux"));
  ASSERT_TRUE(on.create("aux") && on.insert("aux", 1, "a") && on.insert("aux", 2, "b"));
  const DuringScan scan = during_scan(&db, on.sql(GetParam().module->read, "aux"), "DETACH aux");
  EXPECT_EQ(scan.rc, SQLITE_ERROR);
  EXPECT_EQ(scan.error, "database aux is locked");
  EXPECT_EQ(scan.rows, (Rows{{"1", "a"}, {"2", "b"}}));
  EXPECT_EQ(on.read("aux"), scan.rows);
  ASSERT_TRUE(db.exec("DETACH aux"));
}

// What `d`'s tables m (in main) and a (in aux) hold after each step: one
// statement writing both (through a trigger, which must name them
// unqualified) fails on its last row in main, another on its last row's
// write to aux, a third inside a transaction, which is then rolled back.
std::vector<Rows> failures_across_schemas(const Declaration& d) {
  Db db;
  const On on{&db, d};
  std::vector<Rows> seen;
  auto look = [&] {
    seen.push_back(on.read("main", "m"));
    seen.push_back(on.read("aux", "a"));
  };
  EXPECT_TRUE(db.exec("ATTACH ':memory:' AS aux; CREATE TABLE log(k INTEGER PRIMARY KEY)"));
  EXPECT_TRUE(on.create("main", "m") && on.create("aux", "a") && on.insert("aux", 9, "a", "a"));
  EXPECT_TRUE(db.exec("CREATE TEMP TRIGGER w AFTER INSERT ON log BEGIN " +
                      on.sql(d.module->insert, "", "m", "new.k", "'m'") + "; " +
                      on.sql(d.module->insert, "", "a", "new.k", "'a'") + "; END"));
  EXPECT_TRUE(db.exec("INSERT INTO log VALUES (1)"));
  EXPECT_EQ(db.error("INSERT INTO log VALUES (2), (3), (1)"), "UNIQUE constraint failed: log.k");
  look();
  const std::string in_aux = db.error("INSERT INTO log VALUES (4), (9)");
  EXPECT_TRUE(in_aux.starts_with("UNIQUE constraint failed: a")) << in_aux;
  look();
  EXPECT_TRUE(db.exec("BEGIN; INSERT INTO log VALUES (5)"));
  EXPECT_EQ(db.error("INSERT INTO log VALUES (6), (1)"), "UNIQUE constraint failed: log.k");
  look();
  EXPECT_TRUE(db.exec("ROLLBACK"));
  look();
  return seen;
}

TEST_P(SchemasTest, AFailedStatementOrARollbackUndoesTheWritesOfEverySchema) {
  const std::vector<Rows> seen = failures_across_schemas(GetParam());
  EXPECT_EQ(seen, failures_across_schemas({&kNative, false}));
  const Rows m1 = {{"1", "m"}};
  const Rows a1 = {{"1", "a"}, {"9", "a"}};
  EXPECT_EQ(seen, (std::vector<Rows>{m1, a1, m1, a1, {{"1", "m"}, {"5", "m"}},
                                     {{"1", "a"}, {"5", "a"}, {"9", "a"}}, m1, a1}));
}

// SQLite lets one file be attached under two names: each is a way to the
// same tables, and a store=sqlite table shows the same rows through both, as
// a native one does.
TEST(SchemasOneFileTwiceTest, BothNamesReachTheSameSqliteStore) {
  const std::string path = ::testing::TempDir() + "schemas_one_file_twice.db";
  std::vector<const Module*> modules = {&kNative};
  for (const Module& m : kModules) modules.push_back(&m);
  for (const Module* m : modules) {
    SCOPED_TRACE(m->label);
    std::remove(path.c_str());
    Db db;
    const On on{&db, {m, false}};
    ASSERT_TRUE(db.exec("ATTACH '" + path + "' AS a; ATTACH '" + path + "' AS b"));
    ASSERT_TRUE(on.create("a") && on.insert("a", 1, "x"));
    EXPECT_EQ(on.read("b"), (Rows{{"1", "x"}}));
    ASSERT_TRUE(on.insert("b", 2, "y") && on.update("b", 1, "X"));
    EXPECT_EQ(on.read("a"), (Rows{{"1", "X"}, {"2", "y"}}));
    ASSERT_TRUE(on.remove("a", 2));
    EXPECT_EQ(on.read("b"), (Rows{{"1", "X"}}));
    ASSERT_TRUE(db.exec("BEGIN") && on.insert("a", 3, "z") && db.exec("ROLLBACK"));
    EXPECT_EQ(on.read("b"), (Rows{{"1", "X"}}));
    ASSERT_TRUE(db.exec(on.sql(m->drop, "b")));
    EXPECT_EQ(db.error("SELECT * FROM a.t"), "no such table: a.t");
    EXPECT_EQ(tables(&db, "a"), "");
  }
  std::remove(path.c_str());
}

// A tuplekv_leaves table reads the docs table of its own schema; one that
// exists only elsewhere is a clear error, and creates nothing.
TEST(SchemasLeavesTest, TheDocsTableIsTheOneInTheViewsSchema) {
  Db db;
  ASSERT_TRUE(db.exec("ATTACH ':memory:' AS aux"));
  for (const char* schema : {"main", "temp", "aux"}) {
    for (const char* store : {"sqlite", "memory"}) {
      std::string sql =
          "CREATE VIRTUAL TABLE {s}.d_{m} USING tuplekv_docs(store={m});"
          "INSERT INTO {s}.d_{m}(id, doc) VALUES (1, json_object('in', '{s}'));"
          "CREATE VIRTUAL TABLE {s}.l_{m} USING tuplekv_leaves(d_{m})";
      replace_all(&sql, "{s}", schema);
      replace_all(&sql, "{m}", store);
      ASSERT_TRUE(db.exec(sql));
    }
  }
  for (const char* schema : {"main", "temp", "aux"}) {
    for (const char* store : {"sqlite", "memory"}) {
      EXPECT_EQ(db.value("SELECT value FROM " + std::string(schema) + ".l_" + store), schema);
    }
  }
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE main.only USING tuplekv_docs"));
  const std::string aux_tables = tables(&db, "aux");
  EXPECT_EQ(db.error("CREATE VIRTUAL TABLE aux.x USING tuplekv_leaves(only)"),
            "tuplekv_leaves: 'only' is not a tuplekv_docs table in aux");
  EXPECT_EQ(db.error("CREATE VIRTUAL TABLE aux.x USING tuplekv_leaves(main.only)"),
            "tuplekv_leaves: 'main.only' is not a tuplekv_docs table in aux");
  EXPECT_EQ(tables(&db, "aux"), aux_tables);

  // Its docs table dropped, the view says so; the others read on.
  ASSERT_TRUE(db.exec("DROP TABLE aux.d_memory"));
  EXPECT_EQ(db.error("SELECT * FROM aux.l_memory"),
            "tuplekv_leaves: 'd_memory' is not a tuplekv_docs table in aux");
  EXPECT_EQ(db.value("SELECT value FROM l_memory"), "temp");
  EXPECT_EQ(db.value("SELECT value FROM main.l_memory"), "main");
}

// tuplekv_check('aux.t') checks aux's table, whatever main and temp hold
// under the name; a bare name is temp's, then main's.
TEST(SchemasCheckTest, TheNamedSchemasTableIsChecked) {
  Db db;
  // Each schema's t with one row whose index entry (its largest key) is
  // then deleted behind the table's back, in aux and later temp.
  auto create = [&](const std::string& schema, bool damage) {
    return db.exec("CREATE VIRTUAL TABLE " + schema +
                   ".t USING tuplekv_table(k INTEGER, v TEXT, PRIMARY KEY(k), INDEX vi(v));"
                   "INSERT INTO " + schema + ".t VALUES (1, 'a')") &&
           (!damage || db.exec("DELETE FROM " + schema + ".t_kv WHERE k = (SELECT max(k) FROM " +
                               schema + ".t_kv)"));
  };
  ASSERT_TRUE(db.exec("ATTACH ':memory:' AS aux") && create("main", false) && create("aux", true));
  const std::string problem = "t: index vi has no entry for row ('t', 1)";
  EXPECT_EQ(db.value("SELECT tuplekv_check('aux.t')"), problem);
  EXPECT_EQ(db.value("SELECT tuplekv_check('main.t')"), "ok");
  EXPECT_EQ(db.value("SELECT tuplekv_check('t')"), "ok");
  ASSERT_TRUE(create("temp", true));
  EXPECT_EQ(db.value("SELECT tuplekv_check('t')"), problem);
  EXPECT_EQ(db.value("SELECT tuplekv_check('aux.t', 'rebuild')"), "1");
  EXPECT_EQ(db.value("SELECT tuplekv_check('aux.t')"), "ok");
  EXPECT_EQ(db.value("SELECT tuplekv_check('temp.t')"), problem);
  EXPECT_EQ(db.rows("SELECT v FROM aux.t WHERE v = 'a'"), Rows{{"a"}});
}

}  // namespace
}  // namespace tuplekv::testing
