// tuplekv_docs through SQL: the guide's hierarchy and document keys byte for
// byte, random documents round-tripped and compared with SQLite's own json1
// (json_tree), random subtree reads, replacements and removals compared
// with `->`, json_set and json_remove on the same text, id assignment and
// conflicts, bad input that leaves the table unchanged, fdb_limits,
// transactions and savepoints on both stores, reads that are one prefix
// scan (tuplekv_stats), renames and writes made while a statement reads
// the table (with and without the document cache), and the sql/ examples.
// The read-only view tuplekv_leaves is pinned in leaves_vtab_test.cc, the
// document cache and its "<name>_json" table in docs_cache_test.cc.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "tests/ext/sql_example.h"
#include "tests/testutil.h"

namespace tuplekv::testing {
namespace {

// ---------------------------------------------------------------------------
// Helpers: bound parameters, and JSON compared as json1 sees it.

struct Outcome {
  bool ok = true;
  std::optional<std::string> value;  // first column of the first row; nullopt: NULL or no row
  std::string error;
};

Outcome run(sqlite3* db, const std::string& sql, const std::vector<std::string>& params = {}) {
  Outcome out;
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
    out.ok = false;
    out.error = sqlite3_errmsg(db);
    return out;
  }
  for (size_t i = 0; i < params.size(); ++i) {
    sqlite3_bind_text(stmt, static_cast<int>(i + 1), params[i].data(),
                      static_cast<int>(params[i].size()), SQLITE_TRANSIENT);
  }
  int rc;
  bool first = true;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    if (first && sqlite3_column_type(stmt, 0) != SQLITE_NULL) {
      out.value = std::string(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)),
                              static_cast<size_t>(sqlite3_column_bytes(stmt, 0)));
    }
    first = false;
  }
  if (rc != SQLITE_DONE) {
    out.ok = false;
    out.error = sqlite3_errmsg(db);
  }
  sqlite3_finalize(stmt);
  return out;
}

// The leaves of a JSON text as json1's json_tree reports them, sorted:
// equal for two texts exactly when they are the same JSON value (member
// order aside). REAL atoms are compared by their bits.
std::string canon(sqlite3* db, const std::optional<std::string>& json) {
  if (!json) return "<NULL>";
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db, "SELECT fullkey, type, atom FROM json_tree(?1)", -1, &stmt,
                         nullptr) != SQLITE_OK) {
    return "<prepare failed>";
  }
  sqlite3_bind_text(stmt, 1, json->data(), static_cast<int>(json->size()), SQLITE_TRANSIENT);
  std::vector<std::string> rows;
  int rc;
  while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
    std::string r = render_column(stmt, 0) + " " + render_column(stmt, 1) + " ";
    if (sqlite3_column_type(stmt, 2) == SQLITE_FLOAT) {
      const double d = sqlite3_column_double(stmt, 2);
      uint64_t bits;
      std::memcpy(&bits, &d, sizeof bits);
      r += "real:" + std::to_string(bits);
    } else {
      r += render_column(stmt, 2);
    }
    rows.push_back(r);
  }
  sqlite3_finalize(stmt);
  if (rc != SQLITE_DONE) return "<invalid JSON: " + *json + ">";
  std::sort(rows.begin(), rows.end());
  std::string out;
  for (const auto& r : rows) out += r + "\n";
  return out;
}

// Random JSON text: names without characters that json1 3.40 compares
// in escaped form, every scalar kind, nesting and long arrays.
class JsonGen {
 public:
  explicit JsonGen(uint32_t seed) : rng_(seed) {}
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }

  std::string name() {
    static const char* kNames[] = {"a", "b", "c", "user", "id", "é", "日本", "x y", "k1", "Z"};
    return kNames[pick(10)];
  }
  std::string scalar() {
    switch (pick(9)) {
      case 0: return "null";
      case 1: return "true";
      case 2: return "false";
      case 3: return std::to_string(pick(2001) - 1000);
      case 4: return pick(2) ? "9223372036854775807" : "-9223372036854775808";
      case 5: {
        char b[40];
        std::snprintf(b, sizeof b, "%.17g", std::uniform_real_distribution<double>(-1e6, 1e6)(rng_));
        std::string s = b;
        if (s.find_first_of(".e") == std::string::npos) s += ".0";
        return s;
      }
      case 6: return pick(2) ? "1.5e300" : "0.1";
      case 7: return "\"s\\n\\\"q\\\" \\u00e9 😀\"";
      default: return "\"" + name() + std::to_string(pick(100)) + "\"";
    }
  }
  std::string value(int depth) {
    const int r = pick(10);
    if (depth <= 0 || r < 3) return scalar();
    if (r < 7) {
      std::string s = "{";
      std::vector<std::string> used;
      const int n = pick(5);
      for (int i = 0; i < n; ++i) {
        std::string k = name();
        if (std::find(used.begin(), used.end(), k) != used.end()) continue;
        used.push_back(k);
        if (s.size() > 1) s += ", ";
        s += "\"" + k + "\": " + value(depth - 1);
      }
      return s + "}";
    }
    std::string s = "[";
    const int n = pick(4) == 0 ? pick(30) : pick(5);
    for (int i = 0; i < n; ++i) {
      if (i) s += ",";
      s += value(depth - 1);
    }
    return s + "]";
  }

 private:
  std::mt19937 rng_;
};

// Paths for a document: every node json_tree lists, plus variations that
// point at nothing, past the end or counted from the end.
std::vector<std::string> paths_of(sqlite3* db, const std::string& json) {
  std::vector<std::string> out;
  sqlite3_stmt* stmt = nullptr;
  sqlite3_prepare_v2(db, "SELECT fullkey FROM json_tree(?1)", -1, &stmt, nullptr);
  sqlite3_bind_text(stmt, 1, json.data(), static_cast<int>(json.size()), SQLITE_TRANSIENT);
  while (sqlite3_step(stmt) == SQLITE_ROW) {
    out.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)));
  }
  sqlite3_finalize(stmt);
  const size_t n = out.size();
  for (size_t i = 0; i < n; ++i) {
    out.push_back(out[i] + ".new");
    out.push_back(out[i] + ".a.b");
    out.push_back(out[i] + "[0]");
    out.push_back(out[i] + "[#]");
    out.push_back(out[i] + "[#-1]");
    out.push_back(out[i] + "[3]");
  }
  return out;
}

constexpr const char* kGuide =
    R"({"user": {"jones": {"friendOf": "smith", "group": ["sales", "service"]},
                 "smith": {"friendOf": "jones", "group": ["dev", "research"]}}})";

// ---------------------------------------------------------------------------
// The guide

TEST(DocsGuideTest, HierarchyIsTheGuidesSixTuples) {
  Db db;
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE hier USING tuplekv_docs(mode=merge)"));
  ASSERT_EQ(run(db.handle(), "INSERT INTO hier(doc) VALUES (?1)", {kGuide}).error, "");
  EXPECT_EQ(db.rows("SELECT tuple_repr(k), hex(v) FROM hier_kv"),
            (Rows{{"('hier', 'user', 'jones', 'friendOf', 'smith')", ""},
                  {"('hier', 'user', 'jones', 'group', 0, 'sales')", ""},
                  {"('hier', 'user', 'jones', 'group', 1, 'service')", ""},
                  {"('hier', 'user', 'smith', 'friendOf', 'jones')", ""},
                  {"('hier', 'user', 'smith', 'group', 0, 'dev')", ""},
                  {"('hier', 'user', 'smith', 'group', 1, 'research')", ""}}));
  // Byte for byte: the first key as the Python binding packs it.
  EXPECT_EQ(db.value("SELECT hex(k) FROM hier_kv LIMIT 1"),
            "026869657200027573657200026A6F6E65730002667269656E644F660002736D69746800");
  EXPECT_EQ(db.rows("SELECT id, doc FROM hier WHERE path = '$.user.smith'"),
            (Rows{{"NULL", R"({"friendOf":"jones","group":["dev","research"]})"}}));
  // Later objects merge into the tree.
  ASSERT_TRUE(db.exec(R"(INSERT INTO hier(doc) VALUES ('{"user":{"smith":{"group":["ops"]},"ng":{}}}'))"));
  EXPECT_EQ(db.value("SELECT doc FROM hier"),
            R"({"user":{"jones":{"friendOf":"smith","group":["sales","service"]},)"
            R"("ng":{},"smith":{"friendOf":"jones","group":["ops"]}}})");
  EXPECT_EQ(db.error("INSERT INTO hier(id, doc) VALUES (1, '{}')"),
            "tuplekv_docs: hier (mode=merge) is one tree; its id is always NULL");
  ASSERT_TRUE(db.exec("DELETE FROM hier WHERE path = '$.user.jones'"));
  EXPECT_EQ(db.value("SELECT count(*) FROM hier_kv"), "3");
  ASSERT_TRUE(db.exec("DELETE FROM hier"));
  EXPECT_EQ(db.value("SELECT count(*) FROM hier_kv"), "0");
  EXPECT_EQ(db.value("SELECT count(*) FROM hier"), "0");
}

TEST(DocsGuideTest, DocumentKeysAreTheGuidesLayout) {
  Db db;
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE doc USING tuplekv_docs"));
  ASSERT_EQ(run(db.handle(), "INSERT INTO doc(id, doc) VALUES (42, ?1)", {kGuide}).error, "");
  // doc_space.pack((doc_id,) + path) -> pack((leaf,)), as insert_doc writes.
  EXPECT_EQ(db.rows("SELECT tuple_repr(k), tuple_repr(v) FROM doc_kv"),
            (Rows{{"('doc', 42, 'user', 'jones', 'friendOf')", "('smith',)"},
                  {"('doc', 42, 'user', 'jones', 'group', 0)", "('sales',)"},
                  {"('doc', 42, 'user', 'jones', 'group', 1)", "('service',)"},
                  {"('doc', 42, 'user', 'smith', 'friendOf')", "('jones',)"},
                  {"('doc', 42, 'user', 'smith', 'group', 0)", "('dev',)"},
                  {"('doc', 42, 'user', 'smith', 'group', 1)", "('research',)"}}));
  ASSERT_TRUE(db.exec(R"(INSERT INTO doc(id, doc) VALUES (43, '{"e":{},"a":[]}'))"));
  EXPECT_EQ(db.rows("SELECT tuple_repr(k), tuple_repr(v) FROM doc_kv WHERE k > tuple_pack('doc', 43)"),
            (Rows{{"('doc', 43, 'a', -1)", "(None,)"}, {"('doc', 43, 'e', -2)", "(None,)"}}));
}

// ---------------------------------------------------------------------------
// Both stores

class DocsTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE docs USING tuplekv_docs(store=" + GetParam() + ")"));
  }
  // `docs` anew, with the document cache on or off.
  void recreate_docs(const std::string& cache) {
    ASSERT_TRUE(db.exec("DROP TABLE docs; CREATE VIRTUAL TABLE docs USING tuplekv_docs(cache=" + cache +
                        ", store=" + GetParam() + ")"));
  }
  // Replaces every document by ids 0 .. n-1, each numbered_doc(id).
  void fill_numbered_docs(int n) {
    ASSERT_TRUE(db.exec("DELETE FROM docs; WITH RECURSIVE c(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM c WHERE x < " +
                        std::to_string(n - 1) +
                        ") INSERT INTO docs(id, doc) SELECT x, json_object('a', json_array('x' || x, 1), 'n', 'n' || x)"
                        " FROM c"));
  }
  static std::string numbered_doc(const std::string& id) {
    return "{\"a\":[\"x" + id + "\",1],\"n\":\"n" + id + "\"}";
  }
  std::string keys() {
    if (GetParam() == "sqlite") return db.value("SELECT count(*) || ':' || ifnull(sum(length(k) + length(v)), 0) FROM docs_kv");
    return db.value("SELECT count(*) || ':' || group_concat(doc, '|') FROM docs");
  }
  Db db;
};

INSTANTIATE_TEST_SUITE_P(Stores, DocsTest, ::testing::Values("sqlite", "memory"));

TEST_P(DocsTest, RandomDocumentsRoundTrip) {
  sqlite3* h = db.handle();
  for (uint32_t seed = 1; seed <= 150; ++seed) {
    JsonGen g(seed);
    std::string doc = g.value(seed % 5 == 0 ? 12 : 5);
    if (seed % 7 == 0) {  // nesting of at least ten levels
      for (int i = 0; i < 11; ++i) doc = i % 2 ? "[" + doc + ", 1]" : R"({"n":)" + doc + "}";
    }
    const Outcome ins = run(h, "INSERT INTO docs(id, doc) VALUES (?1, ?2)", {std::to_string(seed), doc});
    ASSERT_TRUE(ins.ok) << ins.error << "\n" << doc;
    const Outcome back = run(h, "SELECT doc FROM docs WHERE id = ?1", {std::to_string(seed)});
    ASSERT_TRUE(back.ok) << back.error;
    ASSERT_EQ(canon(h, back.value), canon(h, doc)) << "seed " << seed << "\n" << doc;
  }
  EXPECT_EQ(db.value("SELECT count(*) FROM docs"), "150");
}

TEST_P(DocsTest, RandomSubtreesMatchJson1) {
  sqlite3* h = db.handle();
  std::mt19937 rng(7);
  int compared = 0, refused = 0;
  for (uint32_t seed = 1; seed <= 60; ++seed) {
    JsonGen g(seed * 31);
    const std::string original = g.value(4);
    const std::vector<std::string> paths = paths_of(h, original);
    for (int round = 0; round < 12; ++round) {
      const std::string path = paths[std::uniform_int_distribution<size_t>(0, paths.size() - 1)(rng)];
      ASSERT_TRUE(db.exec("DELETE FROM docs"));
      ASSERT_TRUE(run(h, "INSERT INTO docs(id, doc) VALUES (1, ?1)", {original}).ok);
      // Read.
      const Outcome mine = run(h, "SELECT doc FROM docs WHERE id = 1 AND path = ?1", {path});
      const Outcome json1 = run(h, "SELECT ?1 -> ?2", {original, path});
      ASSERT_TRUE(mine.ok && json1.ok) << mine.error << json1.error;
      ASSERT_EQ(canon(h, mine.value), canon(h, json1.value)) << original << "\n" << path;
      // Replace or remove.
      const int op = round % 2;
      const std::string value = g.value(2);
      Outcome changed;
      Outcome expected;
      if (op == 0) {
        changed = run(h, "UPDATE docs SET doc = ?1 WHERE id = 1 AND path = ?2", {value, path});
        expected = run(h, "SELECT json_set(?1, ?2, json(?3))", {original, path, value});
      } else {
        changed = run(h, "DELETE FROM docs WHERE id = 1 AND path = ?1", {path});
        expected = run(h, "SELECT json_remove(?1, ?2)", {original, path});
      }
      ASSERT_TRUE(expected.ok) << expected.error;
      const Outcome now = run(h, "SELECT doc FROM docs WHERE id = 1");
      if (!changed.ok) {
        // Refused where json_set changes nothing; the document is intact.
        ++refused;
        ASSERT_EQ(op, 0) << changed.error;
        ASSERT_EQ(canon(h, expected.value), canon(h, original)) << path << ": " << changed.error;
        ASSERT_EQ(canon(h, now.value), canon(h, original));
        continue;
      }
      ++compared;
      ASSERT_EQ(canon(h, now.value), canon(h, expected.value))
          << (op == 0 ? "json_set " : "json_remove ") << original << "\n" << path << "\n" << value;
    }
  }
  EXPECT_GT(compared, 400);
  EXPECT_GT(refused, 10);
}

TEST_P(DocsTest, IdsAndConflicts) {
  ASSERT_TRUE(db.exec("INSERT INTO docs(doc) VALUES ('1'), ('2')"));
  ASSERT_TRUE(db.exec("INSERT INTO docs(id, doc) VALUES (10, '3'), ('ten', '4'), (x'01', '5'), (2.5, '6')"));
  ASSERT_TRUE(db.exec("INSERT INTO docs(doc) VALUES ('7')"));
  EXPECT_EQ(db.rows("SELECT quote(id), doc FROM docs"),
            (Rows{{"X'01'", "5"}, {"'ten'", "4"}, {"1", "1"}, {"2", "2"}, {"10", "3"}, {"11", "7"}, {"2.5", "6"}}));
  EXPECT_EQ(db.error("INSERT INTO docs(id, doc) VALUES (10.0, '0')"), "UNIQUE constraint failed: docs.id");
  EXPECT_EQ(db.error_code("INSERT INTO docs(id, doc) VALUES (10, '0')"), SQLITE_CONSTRAINT_PRIMARYKEY);
  ASSERT_TRUE(db.exec("INSERT OR IGNORE INTO docs(id, doc) VALUES (10, '0')"));
  EXPECT_EQ(db.value("SELECT doc FROM docs WHERE id = 10.0"), "3");
  ASSERT_TRUE(db.exec("INSERT OR REPLACE INTO docs(id, doc) VALUES (10.0, '{\"r\":1}')"));
  EXPECT_EQ(db.rows("SELECT quote(id), doc FROM docs WHERE id = 10"), (Rows{{"10.0", "{\"r\":1}"}}));
  ASSERT_TRUE(db.exec("UPDATE docs SET id = 20 WHERE id = 1"));
  EXPECT_EQ(db.value("SELECT doc FROM docs WHERE id = 20"), "1");
  EXPECT_EQ(db.error("UPDATE docs SET id = 2 WHERE id = 20"), "UNIQUE constraint failed: docs.id");
  EXPECT_EQ(db.error("UPDATE docs SET id = 3 WHERE id = 20 AND path = '$.x'"),
            "tuplekv_docs: the id of a subtree cannot change; update the whole document (without path)");
  EXPECT_EQ(db.error("UPDATE docs SET id = NULL WHERE id = 20"), "NOT NULL constraint failed: docs.id");
  EXPECT_EQ(db.error("INSERT INTO docs(id, doc) VALUES (5, NULL)"), "NOT NULL constraint failed: docs.doc");
  EXPECT_EQ(db.value("SELECT count(*) FROM docs WHERE id IN (1, 2, 'ten', 99)"), "2");
}

// The table's first write in a transaction comes inside SAVEPOINT s1 and
// another savepoint follows: ROLLBACK TO s1 still undoes it.
TEST_P(DocsTest, RollbackToASavepointOlderThanTheFirstWriteUndoesIt) {
  ASSERT_TRUE(db.exec("INSERT INTO docs(id, doc) VALUES (1, '[1]')"));
  ASSERT_TRUE(db.exec("BEGIN; SAVEPOINT s1; INSERT INTO docs(id, doc) VALUES (2, '[2]'), (3, '[3]');"
                      "SAVEPOINT s2; ROLLBACK TO s1; COMMIT"));
  EXPECT_EQ(db.rows("SELECT id, doc FROM docs"), (Rows{{"1", "[1]"}}));
}

// Ids are keys of exact bytes; under another collation SQLite compares
// them, as it does in a native ANY PRIMARY KEY column.
TEST_P(DocsTest, AnIdComparedUnderAnotherCollationIsComparedBySqlite) {
  ASSERT_TRUE(db.exec("INSERT INTO docs(id, doc) VALUES ('a', '1'), ('A', '2'), ('a ', '3')"));
  EXPECT_EQ(db.rows("SELECT id FROM docs WHERE id = 'A' COLLATE NOCASE ORDER BY doc"),
            (Rows{{"a"}, {"A"}}));
  EXPECT_EQ(db.rows("SELECT id FROM docs WHERE id = 'a' COLLATE RTRIM ORDER BY doc"),
            (Rows{{"a"}, {"a "}}));
  EXPECT_EQ(db.rows("SELECT id FROM docs WHERE id = 'A' ORDER BY doc"), (Rows{{"A"}}));
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE leaves USING tuplekv_leaves(docs)"));
  EXPECT_EQ(db.rows("SELECT id FROM leaves WHERE id = 'A' COLLATE NOCASE ORDER BY value"),
            (Rows{{"a"}, {"A"}}));
}

// An id or member name that goes on from another's text ('a' and 'a\0b')
// is another key: reading, writing or deleting one leaves the other alone.
TEST_P(DocsTest, ANameThatGoesOnFromAnotherIsAnotherDocumentOrMember) {
  for (const char* cache : {"1", "0"}) {
    SCOPED_TRACE(std::string("cache=") + cache);
    recreate_docs(cache);
    ASSERT_TRUE(db.exec("INSERT INTO docs(id, doc) VALUES ('a', '{\"x\":1}'),"
                        " ('a' || char(0) || 'b', '{\"x\":3}'), (5, '{\"a\":2,\"a\\u0000b\":1}')"));
    EXPECT_EQ(db.rows("SELECT hex(id), doc FROM docs ORDER BY id"),
              (Rows{{"35", "{\"a\":2,\"a\\u0000b\":1}"}, {"61", "{\"x\":1}"},
                    {"610062", "{\"x\":3}"}}));
    EXPECT_EQ(db.value("SELECT doc FROM docs WHERE id = 'a'"), "{\"x\":1}");
    EXPECT_EQ(db.value("SELECT doc FROM docs WHERE id = 5 AND path = '$.a'"), "2");
    ASSERT_TRUE(db.exec("DELETE FROM docs WHERE id = 5 AND path = '$.a'; DELETE FROM docs WHERE id = 'a'"));
    EXPECT_EQ(db.rows("SELECT hex(id), doc FROM docs ORDER BY id"),
              (Rows{{"35", "{\"a\\u0000b\":1}"}, {"610062", "{\"x\":3}"}}));
  }
}

TEST_P(DocsTest, SubtreeWritesAndReads) {
  ASSERT_TRUE(db.exec(R"(INSERT INTO docs(id, doc) VALUES (7, '{"a":{"b":1},"list":[1,2,3]}'))"));
  ASSERT_TRUE(db.exec(R"(UPDATE docs SET doc = '{"x":1}' WHERE id = 7 AND path = '$.a.b')"));
  ASSERT_TRUE(db.exec(R"(UPDATE docs SET doc = '"deep"' WHERE id = 7 AND path = '$.new.er.one')"));
  ASSERT_TRUE(db.exec(R"(UPDATE docs SET doc = '4' WHERE id = 7 AND path = '$.list[#]')"));
  ASSERT_TRUE(db.exec(R"(DELETE FROM docs WHERE id = 7 AND path = '$.list[0]')"));
  EXPECT_EQ(db.value("SELECT doc FROM docs WHERE id = 7"),
            R"({"a":{"b":{"x":1}},"list":[2,3,4],"new":{"er":{"one":"deep"}}})");
  EXPECT_EQ(db.value("SELECT doc FROM docs WHERE id = 7 AND path = '$.list[#-1]'"), "4");
  EXPECT_EQ(db.value("SELECT doc FROM docs WHERE id = 7 AND path = '$.new.er.one'"), "\"deep\"");
  EXPECT_EQ(db.rows("SELECT doc, path FROM docs WHERE id = 7 AND path = '$.nothing'"),
            (Rows{{"NULL", "$.nothing"}}));
  EXPECT_EQ(db.value("SELECT count(*) FROM docs WHERE id = 8 AND path = '$.a'"), "0");
  // The doc column is JSON: json1 nests it instead of quoting it.
  EXPECT_EQ(db.value("SELECT json_object('l', doc) FROM docs WHERE id = 7 AND path = '$.list'"),
            R"({"l":[2,3,4]})");
  // Every document's subtree, skipping the rest of each.
  ASSERT_TRUE(db.exec(R"(INSERT INTO docs(id, doc) VALUES (8, '{"list":[9],"other":[1,2]}'), (9, '[]'))"));
  EXPECT_EQ(db.rows("SELECT id, doc FROM docs WHERE path = '$.list'"),
            (Rows{{"7", "[2,3,4]"}, {"8", "[9]"}, {"9", "NULL"}}));
  ASSERT_TRUE(db.exec("DELETE FROM docs WHERE path = '$.list'"));
  EXPECT_EQ(db.rows("SELECT id, doc FROM docs"),
            (Rows{{"7", R"({"a":{"b":{"x":1}},"new":{"er":{"one":"deep"}}})"},
                  {"8", R"({"other":[1,2]})"}, {"9", "[]"}}));
  ASSERT_TRUE(db.exec("DELETE FROM docs WHERE id = 8"));
  EXPECT_EQ(db.rows("SELECT id FROM docs"), (Rows{{"7"}, {"9"}}));
  // Whole documents: one statement over every row, and by id.
  ASSERT_TRUE(db.exec("UPDATE docs SET doc = '{\"all\":[]}'"));
  ASSERT_TRUE(db.exec("UPDATE docs SET doc = 'null' WHERE id = 9"));
  EXPECT_EQ(db.rows("SELECT id, doc FROM docs"), (Rows{{"7", R"({"all":[]})"}, {"9", "null"}}));
  EXPECT_EQ(db.value("SELECT json_group_array(doc) FROM docs"), R"([{"all":[]},null])");
}

// `path = p` asks for the rows at p (a NULL doc where p is absent); no
// scan can list every path, so where no `path =` chose the scan, reading
// the column is an error rather than '$', against which SQLite would test
// the condition (an UPDATE inside such an OR once silently did nothing).
TEST_P(DocsTest, PathHasAValueOnlyWhereItChoseTheScan) {
  ASSERT_TRUE(db.exec(R"(INSERT INTO docs(id, doc) VALUES (1, '{"a":{"b":1},"c":2}'), (2, '[1,2]'))"));
  const Rows before = db.rows("SELECT id, doc FROM docs ORDER BY id");
  const std::string unknown =
      "tuplekv_docs: docs.path has a value only where `path = <json path>` chose the scan: use it as a "
      "condition ANDed with the rest of the WHERE clause, not inside an OR or with another operator "
      "(an UPDATE ... FROM, which reads every column, cannot be used on this table)";
  EXPECT_EQ(db.error(R"(UPDATE docs SET doc = '"Z"' WHERE (id = 1 AND path = '$.a') OR doc = '[9]')"),
            unknown);
  EXPECT_EQ(db.error("DELETE FROM docs WHERE (id = 1 AND path = '$.c') OR doc = '[9]'"), unknown);
  EXPECT_EQ(db.error("SELECT id, path FROM docs"), unknown);
  EXPECT_EQ(db.rows("SELECT id, doc FROM docs ORDER BY id"), before);

  EXPECT_EQ(db.rows("SELECT id, path, doc FROM docs WHERE path = '$.a' ORDER BY id"),
            (Rows{{"1", "$.a", R"({"b":1})"}, {"2", "$.a", "NULL"}}));
  // An OR that SQLite splits into one scan per branch works.
  ASSERT_TRUE(db.exec(R"(UPDATE docs SET doc = '"Z"' WHERE id = 1 AND path = '$.a' OR id = 2 AND path = '$[0]')"));
  EXPECT_EQ(db.rows("SELECT id, doc FROM docs ORDER BY id"),
            (Rows{{"1", R"({"a":"Z","c":2})"}, {"2", R"(["Z",2])"}}));
  // In a join SQLite is made to scan docs by `path = u.p`.
  ASSERT_TRUE(db.exec("CREATE TABLE u(p TEXT); INSERT INTO u VALUES ('$.c'), ('$[1]')"));
  EXPECT_EQ(db.rows("SELECT u.p, docs.id, docs.doc FROM u JOIN docs ON docs.path = u.p ORDER BY 1, 2"),
            (Rows{{"$.c", "1", "2"}, {"$.c", "2", "NULL"}, {"$[1]", "1", "NULL"}, {"$[1]", "2", "2"}}));
}

TEST_P(DocsTest, BadInputChangesNothing) {
  ASSERT_TRUE(db.exec(R"(INSERT INTO docs(id, doc) VALUES (1, '{"s":"x","a":[1],"o":{}}'))"));
  const std::string before = keys();
  EXPECT_EQ(db.error("INSERT INTO docs(doc) VALUES ('{\"a\":')"),
            "tuplekv_docs: invalid JSON at byte 5: unexpected character, or a missing or extra "
            "comma, colon or bracket");
  EXPECT_EQ(db.error("INSERT INTO docs(doc) VALUES ('[1,2] x')"),
            "tuplekv_docs: invalid JSON: content after the JSON value");
  EXPECT_EQ(db.error("INSERT INTO docs(doc) VALUES ('{\"a\":1,\"a\":2}')"),
            "tuplekv_docs: invalid JSON: duplicate member name \"a\" in the object at $");
  EXPECT_EQ(db.error("INSERT INTO docs(doc) VALUES (x'7b7d')"),
            "tuplekv_docs: doc must be JSON text, not a BLOB");
  EXPECT_EQ(db.error("SELECT doc FROM docs WHERE id = 1 AND path = 'a.b'"),
            "tuplekv_docs: bad JSON path 'a.b': it must start with '$'");
  EXPECT_EQ(db.error("UPDATE docs SET doc = '1' WHERE id = 1 AND path = '$.a['"),
            "tuplekv_docs: bad JSON path '$.a[': expected an array index at byte 3");
  EXPECT_EQ(db.error("UPDATE docs SET doc = '1' WHERE id = 1 AND path = '$.s.x'"),
            "tuplekv_docs: cannot set $.s.x: $.s holds a scalar, not an object");
  EXPECT_EQ(db.error("UPDATE docs SET doc = '1' WHERE id = 1 AND path = '$.a.x'"),
            "tuplekv_docs: cannot set $.a.x: $.a is an array, not an object");
  EXPECT_EQ(db.error("UPDATE docs SET doc = '1' WHERE id = 1 AND path = '$.a[5]'"),
            "tuplekv_docs: cannot set $.a[5]: position 5 is past the end of $.a (1 elements)");
  EXPECT_EQ(db.error("UPDATE docs SET doc = '1' WHERE id = 1 AND path = '$.a[#-3]'"),
            "tuplekv_docs: the path names no element of its array ([#-N] past the start, or not an array)");
  EXPECT_EQ(db.error("UPDATE docs SET doc = '{' WHERE id = 1 AND path = '$.o'"),
            "tuplekv_docs: invalid JSON at byte 1: unexpected character, or a missing or extra "
            "comma, colon or bracket");
  EXPECT_EQ(db.error("INSERT INTO docs(id, path, doc) VALUES (2, '$.a', '1')"),
            "tuplekv_docs: INSERT takes whole documents; to write at a path use UPDATE docs SET doc = ... "
            "WHERE id = ... AND path = ...");
  EXPECT_EQ(db.error("UPDATE docs SET path = '$.b' WHERE id = 1"),
            "tuplekv_docs: path cannot be set; it picks the subtree in WHERE");
  // A failing row in a multi-row statement undoes the statement.
  EXPECT_NE(db.error("INSERT INTO docs(doc) VALUES ('{\"ok\":1}'), ('{bad')"), "");
  EXPECT_EQ(keys(), before);
  EXPECT_EQ(db.error("CREATE VIRTUAL TABLE t2 USING tuplekv_docs(mode=tree)"),
            "tuplekv_docs: mode must be documents or merge, not 'tree'");
  EXPECT_EQ(db.error("CREATE VIRTUAL TABLE t2 USING tuplekv_docs(colour=red)"),
            "tuplekv_docs: unknown option 'colour'");
}

TEST_P(DocsTest, TransactionsAndSavepoints) {
  ASSERT_TRUE(db.exec("INSERT INTO docs(id, doc) VALUES (1, '{\"v\":1}')"));
  ASSERT_TRUE(db.exec("BEGIN; INSERT INTO docs(id, doc) VALUES (2, '2');"
                      "UPDATE docs SET doc = '9' WHERE id = 1 AND path = '$.v'; ROLLBACK"));
  EXPECT_EQ(db.rows("SELECT id, doc FROM docs"), (Rows{{"1", "{\"v\":1}"}}));
  ASSERT_TRUE(db.exec("BEGIN; UPDATE docs SET doc = '2' WHERE id = 1 AND path = '$.v';"
                      "SAVEPOINT s; DELETE FROM docs WHERE id = 1; ROLLBACK TO s; RELEASE s; COMMIT"));
  EXPECT_EQ(db.rows("SELECT id, doc FROM docs"), (Rows{{"1", "{\"v\":2}"}}));
}

// As KvTest's test of the same name: tuplekv_docs drops its store itself.
TEST_P(DocsTest, ATableWrittenInTheOpenTransactionIsDroppedOnlyWhereARollbackCanUndoIt) {
  ASSERT_TRUE(db.exec("INSERT INTO docs(id, doc) VALUES (1, '[1]')"));
  ASSERT_TRUE(db.exec("BEGIN; INSERT INTO docs(id, doc) VALUES (2, '[2]')"));
  if (GetParam() == "memory") {
    EXPECT_EQ(db.error_code("DROP TABLE docs"), SQLITE_LOCKED);
  } else {
    ASSERT_TRUE(db.exec("DROP TABLE docs"));
  }
  ASSERT_TRUE(db.exec("ROLLBACK"));
  EXPECT_EQ(db.rows("SELECT id, doc FROM docs"), (Rows{{"1", "[1]"}}));
  ASSERT_TRUE(db.exec("BEGIN; SELECT count(*) FROM docs; DROP TABLE docs; ROLLBACK"));
  EXPECT_EQ(db.rows("SELECT id, doc FROM docs"), (Rows{{"1", "[1]"}}));
}

TEST_P(DocsTest, ReadsAreOnePrefixScan) {
  ASSERT_TRUE(db.exec(
      "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200) "
      "INSERT INTO docs(id, doc) SELECT i, json_object('i', i, 'tags', json_array('a', 'b', i), "
      "'nested', json_object('x', i * 2, 'y', 'why')) FROM n"));
  // The counters one query adds (tuplekv_stats), after checking its result.
  auto counted = [&](const std::string& table, const std::string& sql, const std::string& want) {
    db.value("SELECT tuplekv_stats('" + table + "', 'reset')");
    EXPECT_EQ(db.value(sql), want) << sql;
    return db.value("SELECT tuplekv_stats('" + table + "', 'reset')");
  };
  const std::string doc123 = R"({"i":123,"nested":{"x":246,"y":"why"},"tags":["a","b",123]})";
  // From the document cache: whether it exists, then its text.
  const std::string whole = counted("docs", "SELECT doc FROM docs WHERE id = 123", doc123);
  EXPECT_NE(whole.find(R"("scans":1,"ranges":2,"rows":1,)"), std::string::npos) << whole;
  const std::string sub = counted("docs", "SELECT doc FROM docs WHERE id = 123 AND path = '$.nested'",
                                  R"({"x":246,"y":"why"})");
  EXPECT_NE(sub.find(R"("scans":1,"ranges":1,"rows":2,)"), std::string::npos) << sub;
  const Rows plan = db.rows("EXPLAIN QUERY PLAN SELECT doc FROM docs WHERE id = 1 AND path = '$.a'");
  ASSERT_EQ(plan.size(), 1u);
  EXPECT_EQ(plan[0][3], "SCAN docs VIRTUAL TABLE INDEX 3:id path");
  // Without the cache, a whole document is one prefix scan of its leaves.
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE plain USING tuplekv_docs(store=" + GetParam() +
                      ", cache=0); INSERT INTO plain(id, doc) SELECT id, doc FROM docs"));
  const std::string leaves = counted("plain", "SELECT doc FROM plain WHERE id = 123", doc123);
  EXPECT_NE(leaves.find(R"("scans":1,"ranges":1,"rows":6,)"), std::string::npos) << leaves;
}

// ---------------------------------------------------------------------------
// Renames and writes while a statement reads the table

TEST(DocsTableTest, ARenameThatMovesKeysWaitsForScansInProgress) {
  Db db;
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE d USING tuplekv_docs; INSERT INTO d(id, doc) VALUES (1, '[1]'), (2, '[2]')"));
  const DuringScan r = during_scan(&db, "SELECT doc FROM d", "ALTER TABLE d RENAME TO d2");
  EXPECT_EQ(r.rc, SQLITE_LOCKED);
  EXPECT_EQ(r.error, "tuplekv_docs: cannot rename d while a statement is reading it: "
                     "reset or finalize that statement first");
  EXPECT_EQ(r.rows, (Rows{{"[1]"}, {"[2]"}}));
  ASSERT_TRUE(db.exec("ALTER TABLE d RENAME TO d2"));
  EXPECT_EQ(db.rows("SELECT doc FROM d2"), (Rows{{"[1]"}, {"[2]"}}));

  // A scan of its leaves reads the same keys.
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE l USING tuplekv_leaves(d2)"));
  const DuringScan leaves = during_scan(&db, "SELECT value FROM l", "ALTER TABLE d2 RENAME TO d3");
  EXPECT_EQ(leaves.rc, SQLITE_LOCKED);
  EXPECT_EQ(leaves.rows, (Rows{{"1"}, {"2"}}));
  ASSERT_TRUE(db.exec("ALTER TABLE d2 RENAME TO d3"));
  EXPECT_EQ(db.rows("SELECT doc FROM d3"), (Rows{{"[1]"}, {"[2]"}}));
}

// Each read of `doc` gives the document as the table then is: a function
// between two reads may delete it, and insert it again.
TEST_P(DocsTest, EachReadOfADocumentIsAsTheTableThenIs) {
  for (const char* cache : {"1", "0"}) {
    SCOPED_TRACE(std::string("cache=") + cache);
    recreate_docs(cache);
    fill_numbered_docs(200);
    add_sql_function(&db, "delete_doc", "DELETE FROM docs WHERE id = ?1");
    add_sql_function(&db, "insert_doc", "INSERT INTO docs(id, doc) VALUES (?1, json_object('again', ?1))");
    const Rows rows = db.rows("SELECT id, doc, delete_doc(id), doc, insert_doc(id), doc FROM docs");
    ASSERT_EQ(rows.size(), 200u);
    for (const Row& r : rows) {
      EXPECT_EQ(r[1], numbered_doc(r[0]));
      EXPECT_EQ(r[3], "NULL") << "id " << r[0];
      EXPECT_EQ(r[5], "{\"again\":" + r[0] + "}") << "id " << r[0];
    }
    EXPECT_EQ(db.value("SELECT count(*) FROM docs"), "200");
  }
}

// A function in WHERE writes the document before SELECT reads `doc`: the
// row reads as the table is then, not as the leaves the scan stood on
// before the write (which once gave the first leaf alone, or a mix of old
// and new leaves). Whole scans, scans at a path and reads by id.
TEST_P(DocsTest, WritesBeforeTheFirstReadOfADocument) {
  for (const char* cache : {"1", "0"}) {
    SCOPED_TRACE(std::string("cache=") + cache);
    recreate_docs(cache);
    add_sql_function(&db, "delete_doc", "DELETE FROM docs WHERE id = ?1");
    add_sql_function(&db, "replace_doc", "UPDATE docs SET doc = json_object('b', ?1) WHERE id = ?1");
    add_sql_function(&db, "delete_n", "DELETE FROM docs WHERE id = ?1 AND path = '$.n'");
    add_sql_function(&db, "create_c", "UPDATE docs SET doc = json_array(?1) WHERE id = ?1 AND path = '$.c'");
    const struct {
      const char* query;
      const char* doc;  // what every row's doc must read; %d: its id
    } cases[] = {
        {"SELECT id, doc FROM docs WHERE delete_doc(id)", "NULL"},
        {"SELECT id, doc FROM docs WHERE id = 7 AND delete_doc(id)", "NULL"},
        {"SELECT id, doc FROM docs WHERE path = '$.a' AND delete_doc(id)", "NULL"},
        {"SELECT id, doc FROM docs WHERE replace_doc(id)", "{\"b\":%d}"},
        {"SELECT id, doc FROM docs WHERE id = 7 AND replace_doc(id)", "{\"b\":%d}"},
        {"SELECT id, doc FROM docs WHERE delete_n(id)", "{\"a\":[\"x%d\",1]}"},
        {"SELECT id, doc FROM docs WHERE path = '$.a' AND delete_n(id)", "[\"x%d\",1]"},
        {"SELECT id, doc FROM docs WHERE path = '$.n' AND delete_n(id)", "NULL"},
        {"SELECT id, doc FROM docs WHERE path = '$.c' AND create_c(id)", "[%d]"},
        {"SELECT id, doc FROM docs WHERE id = 7 AND path = '$.c' AND create_c(id)", "[%d]"},
    };
    for (const auto& c : cases) {
      SCOPED_TRACE(c.query);
      fill_numbered_docs(50);
      const Rows rows = db.rows(c.query);
      ASSERT_EQ(rows.size(), std::strstr(c.query, "id = 7") != nullptr ? 1u : 50u);
      for (const Row& r : rows) {
        char want[64];
        std::snprintf(want, sizeof want, c.doc, std::stoi(r[0]));
        EXPECT_EQ(r[1], want) << "id " << r[0];
      }
    }
  }
}

// Reading a document may read ahead to the next one's first key; a write
// after that read must not leave the scan standing on it: the scan goes on
// from the current document as the table now is, as a native table's does.
TEST_P(DocsTest, WritesAheadOfAScan) {
  for (const char* cache : {"1", "0"}) {
    SCOPED_TRACE(std::string("cache=") + cache);
    recreate_docs(cache);
    fill_numbered_docs(100);
    add_sql_function(&db, "delete_doc", "DELETE FROM docs WHERE id = ?1");
    const Rows rows = db.rows("SELECT id, doc, delete_doc(id + 1) FROM docs");
    ASSERT_EQ(rows.size(), 50u);
    for (size_t i = 0; i < rows.size(); ++i) {
      EXPECT_EQ(rows[i][0], std::to_string(2 * i));
      EXPECT_EQ(rows[i][1], numbered_doc(rows[i][0]));
    }
    EXPECT_EQ(db.value("SELECT count(*) FROM docs"), "50");

    // A document inserted between the current one and the next is read.
    ASSERT_TRUE(db.exec("DELETE FROM docs; WITH RECURSIVE c(x) AS (SELECT 0 UNION ALL SELECT x + 10 FROM c "
                        "WHERE x < 90) INSERT INTO docs(id, doc) SELECT x, json_object('n', x) FROM c"));
    add_sql_function(&db, "insert_after",
                     "INSERT INTO docs(id, doc) SELECT ?1 + 5, json_object('new', ?1 + 5) WHERE ?1 % 10 = 0");
    const Rows seen = db.rows("SELECT id, doc, insert_after(id) FROM docs");
    ASSERT_EQ(seen.size(), 20u);
    for (size_t i = 0; i < seen.size(); ++i) {
      const std::string id = std::to_string(5 * i);
      EXPECT_EQ(seen[i][0], id);
      EXPECT_EQ(seen[i][1], i % 2 == 0 ? "{\"n\":" + id + "}" : "{\"new\":" + id + "}");
    }
  }
}

TEST(DocsLimitsTest, FdbLimits) {
  Db db;
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE d USING tuplekv_docs(fdb_limits=1)"));
  const std::string big_leaf = "[\"" + std::string(100001, 'x') + "\"]";
  EXPECT_EQ(run(db.handle(), "INSERT INTO d(doc) VALUES (?1)", {big_leaf}).error,
            "tuplekv_docs: the value at $[0] is 100003 bytes; fdb_limits=1 allows 100000");
  const std::string long_key = "{\"" + std::string(10000, 'k') + "\":1}";
  EXPECT_EQ(run(db.handle(), "INSERT INTO d(doc) VALUES (?1)", {long_key}).error.substr(0, 40),
            "tuplekv_docs: the key of $.kkkkkkkkkkkkk");
  std::string huge = "[";
  for (int i = 0; i < 100001; ++i) huge += i ? ",\"abcdefghi\"" : "\"abcdefghi\"";
  huge += "]";
  EXPECT_EQ(run(db.handle(), "INSERT INTO d(doc) VALUES (?1)", {huge}).error,
            "tuplekv_docs: a document of " + std::to_string(huge.size()) +
                " bytes; fdb_limits=1 allows 1000000");
  EXPECT_EQ(db.value("SELECT count(*) FROM d_kv"), "0");
  ASSERT_TRUE(run(db.handle(), "INSERT INTO d(doc) VALUES (?1)", {"[\"" + std::string(99990, 'x') + "\"]"}).ok);
  // Without the option the same leaf is stored.
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE e USING tuplekv_docs"));
  ASSERT_TRUE(run(db.handle(), "INSERT INTO e(doc) VALUES (?1)", {big_leaf}).ok);
}

// Renaming a table without subspace= moves its keys under the new name's
// prefix; one that would take a key past the limit is refused, whole.
TEST(DocsLimitsTest, ARenameThatWouldTakeAKeyPastTheLimitIsRefused) {
  Db db;
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE d USING tuplekv_docs(fdb_limits=1)"));
  // pack(('d', 1, <9,993 k>)) is 3 + 2 + 9,995 bytes.
  const std::string doc = "{\"" + std::string(9993, 'k') + "\":1}";
  ASSERT_TRUE(run(db.handle(), "INSERT INTO d(id, doc) VALUES (1, ?1)", {doc}).ok);
  EXPECT_EQ(db.value("SELECT max(length(k)) FROM d_kv"), "10000");
  EXPECT_EQ(db.error("ALTER TABLE d RENAME TO dddd"),
            "tuplekv_docs: cannot rename to dddd: a key would be 10003 bytes with the new prefix; "
            "fdb_limits=1 allows 10000");
  EXPECT_EQ(db.value("SELECT max(length(k)) FROM d_kv"), "10000");
  EXPECT_EQ(db.value("SELECT length(doc) FROM d WHERE id = 1"), std::to_string(doc.size()));
  // A name no longer than the old one moves the same keys.
  ASSERT_TRUE(db.exec("ALTER TABLE d RENAME TO e"));
  EXPECT_EQ(db.value("SELECT max(length(k)) FROM e_kv"), "10000");
}

// A key past a document's keys that starts with its id again (the id, then
// 0xFF) is damage: a full scan of the documents or of their leaves reports
// it, where reading it as that document again would stand the scan there.
TEST(DocsDamageTest, AKeyGoingOnFromAnIdWithFFIsReportedNotReadForEver) {
  Db db;
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE d USING tuplekv_docs(cache=0);"
                      "CREATE VIRTUAL TABLE l USING tuplekv_leaves(d);"
                      "INSERT INTO d(id, doc) VALUES (1, '{\"x\":1}'), (2, '{\"y\":2}');"
                      "INSERT INTO d_kv VALUES (x'0264001501ff01', x'')"));
  EXPECT_EQ(db.error_code("SELECT id, doc FROM d"), SQLITE_CORRUPT_VTAB);
  EXPECT_EQ(db.error("SELECT id, doc FROM d"),
            "tuplekv_docs: corrupt store of d: a key goes on from the id 1501 with 0xff");
  EXPECT_EQ(db.error_code("SELECT id, path FROM l") & 0xff, SQLITE_CORRUPT);
  // Lookups by id read only their own subtree.
  EXPECT_EQ(db.value("SELECT doc FROM d WHERE id = 2"), "{\"y\":2}");
}

TEST(DocsTableTest, RenameAndDropAndLoadExtension) {
  Db db(":memory:", Load::kLoadExtension);
  ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE d USING tuplekv_docs; INSERT INTO d(doc) VALUES ('[1]')"));
  ASSERT_TRUE(db.exec("ALTER TABLE d RENAME TO d2"));
  EXPECT_EQ(db.rows("SELECT tuple_repr(k) FROM d2_kv"), (Rows{{"('d2', 1, 0)"}}));
  EXPECT_EQ(db.value("SELECT doc FROM d2 WHERE id = 1"), "[1]");
  ASSERT_TRUE(db.exec("DROP TABLE d2"));
  EXPECT_EQ(db.value("SELECT count(*) FROM sqlite_schema"), "0");
}

// The sqlite3 shell's readfile(), which the ETL sample uses.
void readfile(sqlite3_context* ctx, int, sqlite3_value** argv) {
  const auto* name = reinterpret_cast<const char*>(sqlite3_value_text(argv[0]));
  const std::string data = name == nullptr ? std::string() : read_text_file(name);
  sqlite3_result_blob(ctx, data.data(), static_cast<int>(data.size()), SQLITE_TRANSIENT);
}

TEST(DocsExamplesTest, SqlExamples) {
  const std::string dir = std::string(TUPLEKV_SOURCE_DIR) + "/sql/";
  for (const char* name : {"docs", "docs_etl"}) {
    Db db;
    sqlite3_create_function(db.handle(), "readfile", 1, SQLITE_UTF8, nullptr, readfile, nullptr,
                            nullptr);
    // The ETL sample reads its data file relative to the repository root.
    const std::string sql = read_text_file(dir + name + ".sql");
    std::string text = sql;
    for (size_t at; (at = text.find("'sql/")) != std::string::npos;) {
      text.replace(at, 5, "'" + dir);
    }
    const std::string expected = read_text_file(dir + name + ".expected");
    ASSERT_FALSE(expected.empty()) << name;
    EXPECT_EQ(run_example(db.handle(), text), expected) << name;
  }
}

}  // namespace
}  // namespace tuplekv::testing
