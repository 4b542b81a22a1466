// tuplekv_leaves (ext/leaves_vtab.cc): the read-only view of a tuplekv_docs
// table's leaves, one row per leaf, for both stores.
//
// What it pins: the view is exactly the documents' leaves (the scalars and
// the empty objects and arrays json_tree lists, with json_tree's type
// names) after every kind of write, failed statement, ROLLBACK and ROLLBACK
// TO, because it reads the store the docs table writes through, never the
// document cache; it follows the docs table's own options (subspace=,
// store=, mode=), read back from its CREATE statement however that was
// written; `id =`, `path =` and `prefix =` (IN lists too) choose the scan,
// and every plan returns what SQLite's own filtering of a full scan does;
// the hidden `prefix` column has no value where no `prefix =` chose the
// scan; and every way of getting it wrong is a clear error that changes
// nothing: a missing or unsuitable docs table, a bad path, any write,
// damaged keys.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "tests/testutil.h"

namespace tuplekv::testing {
namespace {

class LeavesVtabTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE docs USING tuplekv_docs(store=" + GetParam() + ")"));
  }
  // The last column of EXPLAIN QUERY PLAN's single row for `sql`.
  std::string plan(const std::string& sql) {
    const Rows r = db.rows("EXPLAIN QUERY PLAN " + sql);
    return r.size() == 1 ? r[0][3] : ::testing::PrintToString(r);
  }
  // The leaves json1 finds in the documents docs reads back: scalars and
  // empty containers, with json_tree's names and SQL values.
  Rows json1_leaves() {
    return db.rows(
        "SELECT d.id, j.fullkey, j.type,"
        " quote(iif(j.type IN ('object', 'array'), j.value, j.atom))"
        " FROM docs d, json_tree(d.doc) j"
        " WHERE j.atom IS NOT NULL OR j.type = 'null' OR j.value IN ('{}', '[]') ORDER BY 1, 2");
  }
  Rows view() { return db.rows("SELECT id, path, type, quote(value) FROM leaves ORDER BY 1, 2"); }
  Db db;
};

INSTANTIATE_TEST_SUITE_P(Stores, LeavesVtabTest, ::testing::Values("sqlite", "memory"));

// ---------------------------------------------------------------------------
// Creating the view

TEST(LeavesVtabCreateTest, AnUnknownDocsTableIsAClearError) {
  Db db;
  ASSERT_TRUE(db.exec(
      "CREATE VIRTUAL TABLE d USING tuplekv_docs; CREATE TABLE native(a);"
      "CREATE VIRTUAL TABLE k USING tuplekv_kv; CREATE VIRTUAL TABLE l USING tuplekv_leaves(d);"
      "CREATE VIEW v AS SELECT * FROM d"));
  const Rows schema = db.rows("SELECT name FROM sqlite_schema ORDER BY name");
  const std::string one_argument = "tuplekv_leaves: expected one argument, the tuplekv_docs table";
  EXPECT_EQ(db.error("CREATE VIRTUAL TABLE x USING tuplekv_leaves"), one_argument);
  EXPECT_EQ(db.error("CREATE VIRTUAL TABLE x USING tuplekv_leaves()"), one_argument);
  EXPECT_EQ(db.error("CREATE VIRTUAL TABLE x USING tuplekv_leaves(d, d)"), one_argument);
  EXPECT_EQ(db.error("CREATE VIRTUAL TABLE x USING tuplekv_leaves(subspace=d)"),
            "tuplekv_leaves: 'subspace=d' is not a tuplekv_docs table in main");
  // Tables that exist but are no docs table: a native table, a view, another
  // module, the docs table's shadow tables, another view of leaves.
  for (const char* name : {"nope", "native", "v", "k", "d_kv", "d_json", "l"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(db.error(std::string("CREATE VIRTUAL TABLE x USING tuplekv_leaves(") + name + ")"),
              std::string("tuplekv_leaves: '") + name + "' is not a tuplekv_docs table in main");
  }
  // The docs table is looked for in the view's own schema.
  EXPECT_EQ(db.error("CREATE VIRTUAL TABLE temp.x USING tuplekv_leaves(d)"),
            "tuplekv_leaves: 'd' is not a tuplekv_docs table in temp");
  EXPECT_EQ(db.rows("SELECT name FROM sqlite_schema ORDER BY name"), schema);
  EXPECT_EQ(db.value("SELECT count(*) FROM temp.sqlite_schema"), "0");
}

// The options come from the docs table's CREATE statement as written:
// quoted names, blanks, and "using", commas and parentheses inside quotes.
TEST(LeavesVtabCreateTest, TheViewFollowsTheDocsTablesOptionsHoweverWritten) {
  Db db;
  ASSERT_TRUE(db.exec(
      "CREATE VIRTUAL TABLE \"my using docs\" USING  tuplekv_docs ( subspace = 's,(x)' , cache=0 );"
      "CREATE VIRTUAL TABLE [tree] USING tuplekv_docs(mode=merge, store=memory, subspace=t);"
      "INSERT INTO \"my using docs\"(id, doc) VALUES (5, '{\"k\":\"v\"}');"
      "INSERT INTO tree(doc) VALUES ('{\"a\":{\"b\":[1,\"x\"]},\"e\":[]}')"));
  for (const char* arg :
       {"\"my using docs\"", "'my using docs'", "[my using docs]", "  `my using docs`  "}) {
    SCOPED_TRACE(arg);
    ASSERT_TRUE(db.exec(std::string("CREATE VIRTUAL TABLE l USING tuplekv_leaves(") + arg + ")"));
    EXPECT_EQ(db.rows("SELECT id, path, value, tuple_repr(raw) FROM l"),
              (Rows{{"5", "$.k", "v", "('s,(x)', 5, 'k')"}}));
    ASSERT_TRUE(db.exec("DROP TABLE l"));
  }
  // mode=merge: one tree, no id; the leaf is the key's last element.
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE tl USING tuplekv_leaves(tree)"));
  EXPECT_EQ(db.rows("SELECT quote(id), path, type, value, tuple_repr(raw) FROM tl"),
            (Rows{{"NULL", "$.a.b[0]", "integer", "1", "('t', 'a', 'b', 0, 1)"},
                  {"NULL", "$.a.b[1]", "text", "x", "('t', 'a', 'b', 1, 'x')"},
                  {"NULL", "$.e", "array", "[]", "('t', 'e', -1, None)"}}));
  EXPECT_EQ(db.rows("SELECT path FROM tl WHERE id = 1"), Rows{});
  EXPECT_EQ(db.rows("SELECT path FROM tl WHERE id IS NULL AND path = '$.a.b[#-1]'"),
            (Rows{{"$.a.b[1]"}}));
  EXPECT_EQ(db.rows("SELECT path FROM tl WHERE prefix = '$.a'"),
            (Rows{{"$.a.b[0]"}, {"$.a.b[1]"}}));
}

// The docs table is named as SQL names tables, in any case; its default
// subspace is its name as created.
TEST(LeavesVtabCreateTest, TheDocsTableIsNamedInAnyCase) {
  Db db;
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE Docs USING tuplekv_docs;"
                      "INSERT INTO docs(id, doc) VALUES (7, '{\"b\":2}');"
                      "CREATE VIRTUAL TABLE l USING tuplekv_leaves(DOCS)"));
  EXPECT_EQ(db.rows("SELECT id, path, value, tuple_repr(raw) FROM l"),
            (Rows{{"7", "$.b", "2", "('Docs', 7, 'b')"}}));
}

// The view outlives its docs table's DROP or rename, as a view outlives its
// table: it reads as a clear error, and can still be dropped or renamed.
// When a docs table of that name is created again, the view reads it, with
// its own store and options.
TEST_P(LeavesVtabTest, TheViewFindsItsDocsTableAgainAfterSchemaChanges) {
  const std::string create = "CREATE VIRTUAL TABLE docs USING tuplekv_docs(store=" + GetParam();
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE leaves USING tuplekv_leaves(docs);"
                      "INSERT INTO docs(id, doc) VALUES (1, '{\"old\":1}')"));
  EXPECT_EQ(view(), json1_leaves());
  const std::string gone = "tuplekv_leaves: 'docs' is not a tuplekv_docs table in main";

  ASSERT_TRUE(db.exec("ALTER TABLE docs RENAME TO renamed"));
  EXPECT_EQ(db.error("SELECT * FROM leaves"), gone);
  ASSERT_TRUE(db.exec("ALTER TABLE leaves RENAME TO leaves2; ALTER TABLE leaves2 RENAME TO leaves"));
  ASSERT_TRUE(db.exec("ALTER TABLE renamed RENAME TO docs"));
  EXPECT_EQ(view(), (Rows{{"1", "$.old", "integer", "1"}}));

  // Dropped, then made anew: the new table's rows, in its own mode.
  ASSERT_TRUE(db.exec("DROP TABLE docs"));
  EXPECT_EQ(db.error("SELECT * FROM leaves"), gone);
  ASSERT_TRUE(db.exec(create + ")"));
  EXPECT_EQ(view(), Rows{});
  ASSERT_TRUE(db.exec("INSERT INTO docs(id, doc) VALUES (2, '{\"new\":2}')"));
  EXPECT_EQ(view(), (Rows{{"2", "$.new", "integer", "2"}}));
  ASSERT_TRUE(db.exec("DROP TABLE docs;" + create + ", mode=merge);"
                      "INSERT INTO docs(doc) VALUES ('{\"m\":3}')"));
  EXPECT_EQ(view(), (Rows{{"NULL", "$.m", "integer", "3"}}));
  // A DROP rolled back leaves the view reading the same table.
  ASSERT_TRUE(db.exec("BEGIN; DROP TABLE docs; ROLLBACK"));
  EXPECT_EQ(view(), (Rows{{"NULL", "$.m", "integer", "3"}}));

  ASSERT_TRUE(db.exec("DROP TABLE docs; DROP TABLE leaves"));
  EXPECT_EQ(db.value("SELECT count(*) FROM sqlite_schema"), "0");
}

// ---------------------------------------------------------------------------
// Reading

// An id or member whose text goes on from another's ('a' and 'a\0b') is
// another key: not under the other's prefix, not skipped by a full scan.
TEST_P(LeavesVtabTest, ANameThatGoesOnFromAnotherIsNotUnderIt) {
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE leaves USING tuplekv_leaves(docs);"
                      "INSERT INTO docs(id, doc) VALUES ('a', '{\"x\":1}'),"
                      " ('a' || char(0) || 'b', '{\"x\":3}'), (5, '{\"a\":2,\"a\\u0000b\":1}')"));
  EXPECT_EQ(db.rows("SELECT hex(id), value FROM leaves WHERE path = '$.x' ORDER BY id"),
            (Rows{{"61", "1"}, {"610062", "3"}}));
  EXPECT_EQ(db.rows("SELECT hex(path), value FROM leaves WHERE id = 5 AND prefix = '$.a'"),
            (Rows{{"242E61", "2"}}));
  EXPECT_EQ(db.rows("SELECT value FROM leaves WHERE id = 'a'"), (Rows{{"1"}}));
}

TEST_P(LeavesVtabTest, EveryColumnAndEveryScan) {
  ASSERT_TRUE(db.exec(R"(INSERT INTO docs(id, doc) VALUES
      (1, '{"region":"EU","n":1.5,"t":true,"big":123456789012345678901234,"e":{},"l":[null,"x"]}'),
      (2, '{"region":"US","l":[]}'), (3, '"scalar"'))"));
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE leaves USING tuplekv_leaves(docs)"));
  EXPECT_EQ(db.rows("SELECT id, path, key, type, quote(value) FROM leaves WHERE id = 1"),
            (Rows{{"1", "$.big", "[\"big\"]", "integer", "'123456789012345678901234'"},
                  {"1", "$.e", "[\"e\"]", "object", "'{}'"},
                  {"1", "$.l[0]", "[\"l\",0]", "null", "NULL"},
                  {"1", "$.l[1]", "[\"l\",1]", "text", "'x'"},
                  {"1", "$.n", "[\"n\"]", "real", "1.5"},
                  {"1", "$.region", "[\"region\"]", "text", "'EU'"},
                  {"1", "$.t", "[\"t\"]", "true", "1"}}));
  EXPECT_EQ(db.rows("SELECT id FROM leaves WHERE path = '$.region' AND value = 'EU'"), (Rows{{"1"}}));
  EXPECT_EQ(db.rows("SELECT id, path, type FROM leaves WHERE path = '$.l'"), (Rows{{"2", "$.l", "array"}}));
  EXPECT_EQ(db.rows("SELECT id, path FROM leaves WHERE prefix = '$.l'"),
            (Rows{{"1", "$.l[0]"}, {"1", "$.l[1]"}, {"2", "$.l"}}));
  EXPECT_EQ(db.rows("SELECT path, value FROM leaves WHERE id = 3"), (Rows{{"$", "scalar"}}));
  EXPECT_EQ(db.value("SELECT count(*) FROM leaves"), "10");
  EXPECT_EQ(db.rows("SELECT count(*) FROM leaves WHERE id = 1 AND prefix = '$.l'"), (Rows{{"2"}}));
  EXPECT_EQ(db.rows("SELECT tuple_repr(raw) FROM leaves WHERE id = 2 AND path = '$.region'"),
            (Rows{{"('docs', 2, 'region')"}}));
  // Several prefixes at once: each leaf once, reading as the longest
  // prefix it lies under.
  EXPECT_EQ(db.rows("SELECT id, path, prefix FROM leaves WHERE prefix IN ('$.l', '$.l[1]', NULL, '$.e')"),
            (Rows{{"1", "$.e", "$.e"}, {"1", "$.l[0]", "$.l"}, {"1", "$.l[1]", "$.l[1]"}, {"2", "$.l", "$.l"}}));
  EXPECT_EQ(db.rows("SELECT path FROM leaves WHERE id = 1 AND (prefix = '$.l' OR prefix = '$.t')"),
            (Rows{{"$.l[0]"}, {"$.l[1]"}, {"$.t"}}));
  // An OR that SQLite splits into scans (the table is keyed by `raw`, so
  // it can drop the second copy of a leaf without a rowid).
  EXPECT_EQ(db.rows("SELECT id, path FROM leaves WHERE id = 1 AND prefix = '$.l' OR id = 2 AND prefix = '$' "
                    "OR path = '$.l[0]'"),
            (Rows{{"1", "$.l[0]"}, {"1", "$.l[1]"}, {"2", "$.l"}, {"2", "$.region"}}));
  // `prefix` is no value a leaf has: where no `prefix =` chose the scan,
  // reading it is an error, not a NULL that would drop the leaves under it.
  const std::string unknown =
      "tuplekv_leaves: leaves.prefix has a value only where `prefix = <path>` chose the scan: use it "
      "as a condition ANDed with the rest of the WHERE clause, not inside an OR or with another operator "
      "(an UPDATE ... FROM, which reads every column, cannot be used on this table)";
  EXPECT_EQ(db.error("SELECT path FROM leaves WHERE prefix = '$.l' OR value = 'US'"), unknown);
  EXPECT_EQ(db.error("SELECT prefix FROM leaves"), unknown);
  // In a join, SQLite is made to scan the leaves where the term chooses them.
  ASSERT_TRUE(db.exec("CREATE TABLE u(p TEXT); INSERT INTO u VALUES ('$.l[1]'), ('$.region')"));
  EXPECT_EQ(db.rows("SELECT u.p, leaves.id FROM u JOIN leaves ON leaves.prefix = u.p ORDER BY 1, 2"),
            (Rows{{"$.l[1]", "1"}, {"$.region", "1"}, {"$.region", "2"}}));
  EXPECT_EQ(db.error("INSERT INTO leaves(id) VALUES (1)"), "table leaves may not be modified");
  EXPECT_EQ(db.error("CREATE VIRTUAL TABLE l2 USING tuplekv_leaves(nope)"),
            "tuplekv_leaves: 'nope' is not a tuplekv_docs table in main");
}

// A leaf rewritten by a function while a tuplekv_leaves scan stands on it
// is not visited again: the leaves share the store the docs table writes
// through, and its cursors hear of every write.
TEST_P(LeavesVtabTest, AScanDuringAWriteVisitsEachLeafOnce) {
  ASSERT_TRUE(db.exec(R"(INSERT INTO docs(id, doc) VALUES (1, '{"b":1,"n":"m","z":[0,1,2]}'))"));
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE leaves USING tuplekv_leaves(docs)"));
  add_sql_function(&db, "rewrite_n", "UPDATE docs SET doc = '\"zzz\"' WHERE id = 1 AND path = '$.n' AND ?1 = '$.n'");
  add_sql_function(&db, "shift_z", "DELETE FROM docs WHERE id = 1 AND path = '$.z[0]' AND ?1 = '$.z[0]'");
  for (const char* f : {"rewrite_n", "shift_z"}) {
    SCOPED_TRACE(f);
    ASSERT_TRUE(db.exec(R"(DELETE FROM docs; INSERT INTO docs(id, doc) VALUES (1, '{"b":1,"n":"m","z":[0,1,2]}'))"));
    const Rows rows = db.rows(std::string("SELECT path FROM leaves WHERE ") + f + "(path)");
    std::vector<std::string> paths;
    for (const Row& r : rows) paths.push_back(r[0]);
    EXPECT_TRUE(std::is_sorted(paths.begin(), paths.end())) << ::testing::PrintToString(paths);
    EXPECT_EQ(std::adjacent_find(paths.begin(), paths.end()), paths.end()) << ::testing::PrintToString(paths);
  }
}

// A leaf's path text finds that leaf again, whatever its member names
// hold; a name with a quote that must be quoted doubles it.
TEST_P(LeavesVtabTest, LeafPathsLeadBackToTheirLeaves) {
  ASSERT_TRUE(db.exec(R"(INSERT INTO docs(id, doc) VALUES (1, '{"\"q\"":1,"a.\"b":2,"":3,"x y":4,"é":5}'))"));
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE leaves USING tuplekv_leaves(docs)"));
  EXPECT_EQ(db.rows("SELECT path, value FROM leaves ORDER BY value"),
            (Rows{{R"($."""q""")", "1"}, {R"($."a.""b")", "2"}, {R"($."")", "3"}, {"$.x y", "4"}, {"$.é", "5"}}));
  EXPECT_EQ(db.value("SELECT count(*) FROM leaves l WHERE (SELECT doc FROM docs WHERE id = 1 AND path = l.path) "
                     "= CAST(l.value AS TEXT)"),
            "5");
  EXPECT_EQ(db.error("SELECT * FROM leaves WHERE path = '$.\"a'"),
            "tuplekv_leaves: bad JSON path '$.\"a': unterminated quoted member name at byte 2");
}

TEST(LeavesVtabDamageTest, ErrorsNameTheDamagedStore) {
  Db db;
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE d USING tuplekv_docs; CREATE VIRTUAL TABLE l USING tuplekv_leaves(d);"
                      "INSERT INTO d(id, doc) VALUES (1, '{\"a\":1}');"
                      // A key in the documents' subspace whose path does not decode.
                      "INSERT INTO d_kv VALUES (x'026400150102ff', tuple_pack(1))"));
  // Whether the scan or the column read meets it, the error names the store.
  for (const char* sql : {"SELECT * FROM l", "SELECT id FROM l WHERE id = 1", "SELECT count(*) FROM l"}) {
    SCOPED_TRACE(sql);
    EXPECT_THAT(db.error(sql), ::testing::StartsWith("tuplekv_leaves: corrupt store of d: tuple: "));
    EXPECT_EQ(db.error_code(sql), SQLITE_CORRUPT_VTAB);
  }
}

// The view is the documents' leaves after every kind of write, through
// rollbacks and a statement that fails half-way.
TEST_P(LeavesVtabTest, LeavesFollowWritesDeletesAndRollbacks) {
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE leaves USING tuplekv_leaves(docs)"));
  EXPECT_EQ(view(), Rows{});
  ASSERT_TRUE(db.exec(R"(INSERT INTO docs(id, doc) VALUES (1, '{"a":[1,2.5],"b":{"c":null,"d":{}}}'),)"
                      R"( (2, '[true,false,"t"]'))"));
  EXPECT_EQ(view(), (Rows{{"1", "$.a[0]", "integer", "1"},
                          {"1", "$.a[1]", "real", "2.5"},
                          {"1", "$.b.c", "null", "NULL"},
                          {"1", "$.b.d", "object", "'{}'"},
                          {"2", "$[0]", "true", "1"},
                          {"2", "$[1]", "false", "0"},
                          {"2", "$[2]", "text", "'t'"}}));
  EXPECT_EQ(view(), json1_leaves());
  const Rows committed = view();
  const char* const steps[] = {
      "UPDATE docs SET doc = '[[]]' WHERE id = 1 AND path = '$.b.d'",
      "UPDATE docs SET doc = '\"new\"' WHERE id = 1 AND path = '$.x.y'",
      "DELETE FROM docs WHERE id = 1 AND path = '$.a[0]'",
      "DELETE FROM docs WHERE id = 2 AND path = '$[#-1]'",
      "UPDATE docs SET doc = '{\"whole\":[]}' WHERE id = 2",
      "UPDATE docs SET id = 3 WHERE id = 2",
      "INSERT INTO docs(id, doc) VALUES ('s', '\"scalar\"')",
      "DELETE FROM docs WHERE path = '$.b'",
      "DELETE FROM docs WHERE id = 3",
  };
  ASSERT_TRUE(db.exec("BEGIN"));
  for (const char* step : steps) {
    SCOPED_TRACE(step);
    ASSERT_TRUE(db.exec(step));
    EXPECT_EQ(view(), json1_leaves());
  }
  EXPECT_EQ(view(), (Rows{{"1", "$.a[0]", "real", "2.5"},
                          {"1", "$.x.y", "text", "'new'"},
                          {"s", "$", "text", "'scalar'"}}));
  const Rows before_savepoint = view();
  ASSERT_TRUE(
      db.exec("SAVEPOINT s; DELETE FROM docs; INSERT INTO docs(id, doc) VALUES (9, '[9]')"));
  EXPECT_EQ(view(), (Rows{{"9", "$[0]", "integer", "9"}}));
  ASSERT_TRUE(db.exec("ROLLBACK TO s"));
  EXPECT_EQ(view(), before_savepoint);
  ASSERT_TRUE(db.exec("ROLLBACK"));
  EXPECT_EQ(view(), committed);
  EXPECT_NE(db.error("INSERT INTO docs(id, doc) VALUES (4, '[4]'), (5, '[5')"), "");
  EXPECT_EQ(view(), committed);
}

// The view reads the leaves alone: a document cache entry that is missing,
// damaged or different changes nothing in it.
TEST(LeavesVtabCacheTest, TheDocumentCacheIsNeverRead) {
  Db db;
  ASSERT_TRUE(db.exec(
      "CREATE VIRTUAL TABLE d USING tuplekv_docs; CREATE VIRTUAL TABLE l USING tuplekv_leaves(d);"
      R"(INSERT INTO d(id, doc) VALUES (1, '{"a":1}'), (2, '[2]'), (3, '"3"'))"));
  const Rows before = db.rows("SELECT id, path, value FROM l");
  ASSERT_TRUE(
      db.exec("DELETE FROM d_json WHERE id = tuple_pack(1);"
              "UPDATE d_json SET doc = x'00' WHERE id = tuple_pack(2);"
              "UPDATE d_json SET doc = '{\"other\":true}' WHERE id = tuple_pack(3)"));
  EXPECT_EQ(db.rows("SELECT id, path, value FROM l"), before);
  EXPECT_EQ(db.rows("SELECT path, value FROM l WHERE id = 2"), (Rows{{"$[0]", "2"}}));
  // The docs table itself does read the entry.
  EXPECT_EQ(db.error_code("SELECT doc FROM d WHERE id = 2"), SQLITE_CORRUPT_VTAB);
}

// Each plan returns what SQLite's own filtering of every leaf returns
// (`+id`, `+path`: no index can use a term written so), and EXPLAIN QUERY
// PLAN shows the constraints that chose it.
TEST_P(LeavesVtabTest, EachConstraintChoosesTheScanAndReturnsWhatAFilterWould) {
  ASSERT_TRUE(db.exec(R"(INSERT INTO docs(id, doc) VALUES (1, '{"a":[1,{"b":2}],"c":"x"}'),)"
                      R"( (2.0, '{"a":[]}'), (3, '[{"a":0}]'), ('1', '{"a":"text id"}'))"));
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE leaves USING tuplekv_leaves(docs)"));
  const char* const columns = "SELECT quote(id), path, value FROM leaves WHERE ";
  const struct {
    const char* where;
    const char* plan;
    const char* filtered;  // the same rows from a filtered full scan
  } cases[] = {
      {"id = 1", "1:id", "+id = 1"},
      {"id = 2", "1:id", "+id = 2"},  // stored as 2.0: SQLite calls them equal
      {"id = 1.0", "1:id", "+id = 1.0"},
      {"id = '1'", "1:id", "+id = '1'"},
      {"id IN (3, 1)", "1:id", "+id IN (3, 1)"},
      {"path = '$.a'", "2:path", "+path = '$.a'"},
      {"path = '$.a[1].b'", "2:path", "+path = '$.a[1].b'"},
      {"id = 1 AND path = '$.c'", "3:id path", "+id = 1 AND +path = '$.c'"},
      {"prefix = '$.a'", "4:prefix", "(path = '$.a' OR path LIKE '$.a[%' OR path LIKE '$.a.%')"},
      {"id = 1 AND prefix = '$.a[1]'", "5:id prefix", "+id = 1 AND +path LIKE '$.a[1]%'"},
      {"path = '$.a[1].b' AND prefix = '$.a'", "6:path prefix", "+path = '$.a[1].b'"},
      {"id = 3 AND path = '$[0].a' AND prefix = '$'", "7:id path prefix",
       "+id = 3 AND +path = '$[0].a'"},
      {"prefix IN ('$.a[1]', '$.c')", "12:prefix", "(+path LIKE '$.a[1]%' OR +path = '$.c')"},
      {"value = 'x'", "0:", "+value = 'x'"},
      {"type = 'array'", "0:", "+type = 'array'"},
      {"id > 1", "0:", "+id > 1"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.where);
    const std::string sql = columns + std::string(c.where);
    EXPECT_EQ(plan(sql), std::string("SCAN leaves VIRTUAL TABLE INDEX ") + c.plan);
    const Rows rows = db.rows(sql + " ORDER BY 1, 2");
    EXPECT_EQ(rows, db.rows(columns + std::string(c.filtered) + " ORDER BY 1, 2"));
    EXPECT_FALSE(rows.empty() && std::string(c.plan) != "0:");
  }
  // NULL finds nothing, as = NULL does anywhere.
  for (const char* where :
       {"id = NULL", "path = NULL", "prefix = NULL", "prefix IN (NULL)", "id IN (NULL)"}) {
    EXPECT_EQ(db.rows(columns + std::string(where)), Rows{}) << where;
  }
  // A path that is not there, or past an end, matches no leaf.
  EXPECT_EQ(
      db.rows(std::string(columns) + "path = '$.zz' OR path = '$.a[#-9]' OR prefix = '$.c.d'"),
      Rows{});
  // The hidden columns are left out of SELECT *.
  EXPECT_EQ(db.rows("SELECT * FROM leaves WHERE id = 3"),
            (Rows{{"3", "$[0].a", "[0,\"a\"]", "integer", "0"}}));
}

// Terms that can use the view's constraints only once another table is
// read put that table first; the key column is JSON for json1.
TEST_P(LeavesVtabTest, JoinsScanTheViewByTheOtherTablesValues) {
  ASSERT_TRUE(
      db.exec(R"(INSERT INTO docs(id, doc) VALUES (1, '{"a":[1,2],"b":3}'), (2, '{"a":[4]}'))"));
  ASSERT_TRUE(
      db.exec("CREATE VIRTUAL TABLE leaves USING tuplekv_leaves(docs);"
              "CREATE TABLE u(x, p); INSERT INTO u VALUES (2, '$.a'), (1, '$.b')"));
  for (const char* from : {"u JOIN leaves", "leaves JOIN u"}) {
    SCOPED_TRACE(from);
    const std::string sql =
        std::string("SELECT u.x, leaves.path FROM ") + from + " ON leaves.prefix = u.p";
    EXPECT_EQ(db.rows("EXPLAIN QUERY PLAN " + sql),
              (Rows{{"3", "0", "0", "SCAN u"},
                    {"5", "0", "0", "SCAN leaves VIRTUAL TABLE INDEX 4:prefix"}}));
    EXPECT_EQ(db.rows(sql + " ORDER BY 1, 2"),
              (Rows{{"1", "$.b"}, {"2", "$.a[0]"}, {"2", "$.a[0]"}, {"2", "$.a[1]"}}));
  }
  EXPECT_EQ(db.rows("SELECT u.p, leaves.value FROM u JOIN leaves"
                    " ON leaves.id = u.x AND leaves.prefix = u.p ORDER BY 1"),
            (Rows{{"$.a", "4"}, {"$.b", "3"}}));
  EXPECT_EQ(db.value("SELECT json_group_array(json_object('k', key)) FROM leaves WHERE id = 1"),
            R"([{"k":["a",0]},{"k":["a",1]},{"k":["b"]}])");
}

TEST_P(LeavesVtabTest, BadPathsAreErrors) {
  ASSERT_TRUE(
      db.exec("INSERT INTO docs(id, doc) VALUES (1, '{\"a\":1}');"
              "CREATE VIRTUAL TABLE leaves USING tuplekv_leaves(docs)"));
  EXPECT_EQ(db.error("SELECT * FROM leaves WHERE path = 'a'"),
            "tuplekv_leaves: bad JSON path 'a': it must start with '$'");
  EXPECT_EQ(db.error("SELECT * FROM leaves WHERE prefix = '$.a['"),
            "tuplekv_leaves: bad JSON path '$.a[': expected an array index at byte 3");
  EXPECT_EQ(db.error("SELECT * FROM leaves WHERE prefix IN ('$.a', 'b')"),
            "tuplekv_leaves: bad JSON path 'b': it must start with '$'");
  EXPECT_EQ(db.error("SELECT * FROM leaves WHERE id = 1 AND path = '$.a' AND prefix = 'x'"),
            "tuplekv_leaves: bad JSON path 'x': it must start with '$'");
}

// ---------------------------------------------------------------------------
// What the view refuses

TEST_P(LeavesVtabTest, WritesAreRefusedAndChangeNothing) {
  ASSERT_TRUE(
      db.exec("INSERT INTO docs(id, doc) VALUES (1, '{\"a\":[1]}');"
              "CREATE VIRTUAL TABLE leaves USING tuplekv_leaves(docs)"));
  const Rows docs = db.rows("SELECT id, doc FROM docs");
  const Rows leaves = view();
  for (const char* sql :
       {"INSERT INTO leaves(id, path, value) VALUES (2, '$', 1)", "UPDATE leaves SET value = 2",
        "DELETE FROM leaves", "DELETE FROM leaves WHERE id = 1 AND prefix = '$.a'",
        "INSERT INTO leaves SELECT * FROM leaves"}) {
    SCOPED_TRACE(sql);
    EXPECT_EQ(db.error(sql), "table leaves may not be modified");
  }
  EXPECT_EQ(db.rows("SELECT id, doc FROM docs"), docs);
  EXPECT_EQ(view(), leaves);
  // Dropping the view leaves the documents alone.
  ASSERT_TRUE(db.exec("DROP TABLE leaves"));
  EXPECT_EQ(db.rows("SELECT id, doc FROM docs"), docs);
  EXPECT_EQ(db.value("SELECT count(*) FROM sqlite_schema WHERE name = 'leaves'"), "0");
}

// Keys written by hand that are no docs table's leaves: other element
// types read with their type names; a key with no id and a leaf that does
// not decode are corruption naming the store, met when read.
TEST(LeavesVtabDamageTest, KeysNoDocumentWouldWrite) {
  Db db;
  ASSERT_TRUE(db.exec(
      "CREATE VIRTUAL TABLE d USING tuplekv_docs; CREATE VIRTUAL TABLE l USING tuplekv_leaves(d);"
      "INSERT INTO d_kv VALUES (tuple_pack('d', 1, 'a'), tuple_pack(x'00ff')),"
      " (tuple_pack('d', 1, 'b'), tuple_pack(tuple_uuid('00112233445566778899aabbccddeeff')))"));
  EXPECT_EQ(db.rows("SELECT path, type, quote(value) FROM l"),
            (Rows{{"$.a", "bytes", "X'00FF'"},
                  {"$.b", "uuid", "'00112233-4455-6677-8899-aabbccddeeff'"}}));
  ASSERT_TRUE(db.exec("INSERT INTO d_kv VALUES (tuple_pack('d', 1, 'c'), x'')"));
  EXPECT_EQ(db.rows("SELECT path FROM l WHERE id = 1"), (Rows{{"$.a"}, {"$.b"}, {"$.c"}}));
  EXPECT_EQ(db.error("SELECT path, value FROM l WHERE path = '$.c'"),
            "tuplekv_leaves: corrupt store of d: "
            "tuple: expected an element at byte 0, found the end of the input");
  EXPECT_EQ(db.error_code("SELECT type FROM l"), SQLITE_CORRUPT_VTAB);
  ASSERT_TRUE(
      db.exec("DELETE FROM d_kv; INSERT INTO d_kv VALUES (tuple_pack('d'), tuple_pack(1))"));
  EXPECT_EQ(db.error("SELECT count(*) FROM l"),
            "tuplekv_leaves: corrupt store of d: document key without an id");
  EXPECT_EQ(db.error_code("SELECT path FROM l"), SQLITE_CORRUPT_VTAB);
}

}  // namespace
}  // namespace tuplekv::testing
