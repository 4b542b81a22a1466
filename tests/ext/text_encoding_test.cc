// Text in a database whose encoding is UTF-16 (PRAGMA encoding = 'UTF-16le'
// or 'UTF-16be', set before anything is created). Every module keeps text as
// tuple string elements, which are UTF-8 (tuple spec, section 4), so each
// TEXT that crosses the boundary is converted, both ways; and BINARY
// collation there compares the UTF-16 bytes, which orders U+E000..U+FFFF and
// the supplementary characters (U+10000 and up) otherwise than the UTF-8 in
// the keys does (and UTF-16le otherwise than UTF-16be).
//
// For every module, over both stores, this file pins that such a database
// answers as a native table of the same declared semantics in the same
// database (ranges, ORDER BY, LIKE/GLOB, IN and min/max over text on both
// sides of that difference, before and after writes); that text comes back
// exactly as written, U+0000 inside it included (hex() shows the UTF-16
// bytes); that the stored keys are byte for byte those a UTF-8 database
// stores; and that TEXT SQLite cannot turn into UTF-8 (an unpaired surrogate
// at the end of a BLOB cast to TEXT) is refused with a message naming the
// column, changing nothing. Document members come back in key order, which
// is UTF-8 order whatever the database's.
#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <tuple>
#include <vector>

#include "tests/testutil.h"

namespace tuplekv::testing {
namespace {

// Written as SQL so the file stays ASCII: U+E000, U+FF5E and U+FFFD sort
// before U+10000, U+1F600 and U+10FFFF in UTF-8 and after them in UTF-16be;
// ASCII, a two-byte character, the empty string, U+0000 inside text.
const char* const kTexts[] = {
    "''",           "'a'",          "'Z'",           "char(233)",      "char(0xe000)",
    "char(0xff5e)", "char(0xfffd)", "char(0x10000)", "char(0x1f600)",  "char(0x10ffff)",
    "'a' || char(0) || 'b'",        "'a' || char(0x1f600)",            "'a' || char(0xff5e)",
    "char(0xff5e) || 'z'"};
constexpr int kTextCount = sizeof kTexts / sizeof kTexts[0];

// A native table texts(i, s) holding kTexts, i from 1.
std::string texts_table() {
  std::string sql = "CREATE TABLE texts(i INTEGER PRIMARY KEY, s TEXT NOT NULL) STRICT;";
  for (int i = 0; i < kTextCount; ++i) {
    sql += "INSERT INTO texts VALUES (" + std::to_string(i + 1) + ", " + kTexts[i] + ");";
  }
  return sql;
}

std::string on(std::string tmpl, const std::string& table) {
  for (size_t at = tmpl.find("@T"); at != std::string::npos;
       at = tmpl.find("@T", at + table.size())) {
    tmpl.replace(at, 2, table);
  }
  return tmpl;
}

// A connection to a new database of `encoding`, holding texts.
void open_with(Db* db, const std::string& encoding) {
  ASSERT_TRUE(db->exec("PRAGMA encoding = '" + encoding + "'"));
  ASSERT_EQ(db->value("PRAGMA encoding"), encoding);
  ASSERT_TRUE(db->exec(texts_table()));
}

// The rows of `query` after `setup`, in a new database of `encoding`.
Rows rows_in(const std::string& encoding, const std::string& setup, const std::string& query) {
  Db db;
  open_with(&db, encoding);
  if (!db.exec(setup)) return {};
  return db.rows(query);
}

// BLOBs cast to TEXT whose last code unit is an unpaired surrogate: 'A'
// and U+D800, and U+DC00 alone.
std::vector<std::string> lone_surrogates(const std::string& encoding) {
  if (encoding == "UTF-16le") return {"CAST(x'410000D8' AS TEXT)", "CAST(x'00DC' AS TEXT)"};
  return {"CAST(x'0041D800' AS TEXT)", "CAST(x'DC00' AS TEXT)"};
}

class Utf16Test : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {
 protected:
  void SetUp() override { open_with(&db_, encoding()); }
  const std::string& encoding() const { return std::get<0>(GetParam()); }
  // ", store=..." to end a declaration's arguments; store_arg() alone.
  std::string store() const { return ", " + store_arg(); }
  std::string store_arg() const { return "store=" + std::get<1>(GetParam()); }
  bool memory() const { return std::get<1>(GetParam()) == "memory"; }
  // Each query gives the same rows on the module's table and the native one.
  void expect_as_native(std::initializer_list<const char*> queries, const std::string& t,
                        const std::string& n) {
    for (const char* q : queries) EXPECT_EQ(db_.rows(on(q, t)), db_.rows(on(q, n))) << q;
  }
  Db db_;
};

INSTANTIATE_TEST_SUITE_P(Encodings, Utf16Test,
                         ::testing::Combine(::testing::Values("UTF-16le", "UTF-16be"),
                                            ::testing::Values("sqlite", "memory")),
                         [](const auto& info) {
                           std::string e = std::get<0>(info.param);
                           return e.substr(e.size() - 2) + "_" + std::get<1>(info.param);
                         });

// ---------------------------------------------------------------------------
// tuplekv_table

// Text keys, an ANY key, a TEXT index: t is keyed by k TEXT, u by k ANY.
std::string table_setup(const std::string& store) {
  const std::string n = std::to_string(kTextCount + 1);
  return "CREATE VIRTUAL TABLE t USING tuplekv_table(k TEXT, v TEXT, i INTEGER, PRIMARY KEY(k),"
         " INDEX t_v(v)" + store + ");"
         "CREATE VIRTUAL TABLE u USING tuplekv_table(k ANY PRIMARY KEY, i INTEGER" + store + ");"
         "INSERT INTO t SELECT s, (SELECT s FROM texts y WHERE y.i = " + n + " - x.i), i"
         " FROM texts x;"
         "INSERT INTO u SELECT s, i FROM texts;"
         "INSERT INTO u VALUES (1, 100), (2.5, 101), (x'00ff', 102), (x'f09f9880', 103);";
}

TEST_P(Utf16Test, TableTextKeysAnswerAsANativeStrictTable) {
  ASSERT_TRUE(db_.exec(
      table_setup(store()) +
      "CREATE TABLE n(k TEXT NOT NULL PRIMARY KEY, v TEXT, i INTEGER) STRICT, WITHOUT ROWID;"
      "CREATE INDEX n_v ON n(v); INSERT INTO n SELECT k, v, i FROM t;"
      "CREATE TABLE nu(k ANY NOT NULL PRIMARY KEY, i INTEGER) STRICT, WITHOUT ROWID;"
      "INSERT INTO nu SELECT k, i FROM u;"));
  const auto check = [&] {
    expect_as_native(
        {"SELECT hex(k), hex(v), i FROM @T ORDER BY k", "SELECT hex(k) FROM @T ORDER BY k DESC",
         "SELECT hex(v), i FROM @T ORDER BY v, k",
         "SELECT i FROM @T WHERE k > char(0xff5e) ORDER BY k",
         "SELECT i FROM @T WHERE k >= char(0x10000) AND k < char(0xfffd) ORDER BY k DESC",
         "SELECT i FROM @T WHERE k BETWEEN 'a' AND char(0x10ffff) ORDER BY k",
         "SELECT i FROM @T WHERE k < char(0x1f600) ORDER BY k LIMIT 3 OFFSET 1",
         "SELECT i FROM @T WHERE k > char(0xe000) ORDER BY k DESC LIMIT 2",
         "SELECT hex(v) FROM @T WHERE k = char(0x1f600)",
         "SELECT i FROM @T WHERE k IN (char(0xff5e), char(0x10ffff), 'a' || char(0) || 'b', 'zz')"
         " ORDER BY k",
         "SELECT i FROM @T WHERE k LIKE 'a%' ORDER BY k",
         "SELECT i FROM @T WHERE k GLOB 'a*' ORDER BY k",
         "SELECT i FROM @T WHERE k LIKE char(0xff5e) || '%' ORDER BY k",
         "SELECT i FROM @T WHERE k GLOB char(0x1f600) || '*' ORDER BY k",
         "SELECT i FROM @T WHERE v > char(0xff5e) ORDER BY v",
         "SELECT i FROM @T WHERE v = char(0x10000)",
         "SELECT i FROM @T WHERE v < char(0x10000) ORDER BY v DESC",
         "SELECT i FROM @T WHERE v LIKE 'A%' ORDER BY v",
         "SELECT hex(min(k)), hex(max(k)), hex(min(v)), hex(max(v)) FROM @T"},
        "t", "n");
    expect_as_native({"SELECT hex(k), typeof(k), i FROM @T ORDER BY k",
                      "SELECT i FROM @T WHERE k > char(0xff5e) ORDER BY k",
                      "SELECT i FROM @T WHERE k < char(0x10000) ORDER BY k DESC",
                      "SELECT i FROM @T WHERE k BETWEEN 'a' AND char(0x10ffff) ORDER BY k",
                      "SELECT i FROM @T WHERE k = char(0x1f600)",
                      "SELECT i FROM @T WHERE k LIKE 'a%' ORDER BY k",
                      "SELECT i FROM @T WHERE k IN (char(0xfffd), 2.5, x'f09f9880') ORDER BY k",
                      "SELECT hex(min(k)), hex(max(k)) FROM @T"},
                     "u", "nu");
  };
  check();
  // Writes: keys that move across the order difference, values, deletes.
  for (const char* t : {"t", "n"}) {
    ASSERT_TRUE(
        db_.exec(on("UPDATE @T SET k = k || char(0x10000) WHERE k IN ('a', char(0xff5e));"
                    "UPDATE @T SET v = char(0xe000) || v WHERE v > char(0xfffd);"
                    "DELETE FROM @T WHERE k = char(0x10ffff) OR v = char(233);",
                    t)));
  }
  for (const char* t : {"u", "nu"}) {
    ASSERT_TRUE(
        db_.exec(on("UPDATE @T SET k = char(0xff5e) || k WHERE k LIKE 'a%';"
                    "DELETE FROM @T WHERE k = char(0xe000)",
                    t)));
  }
  check();
  EXPECT_EQ(db_.value("SELECT tuplekv_check('t')"), "ok");
  EXPECT_EQ(db_.value("SELECT tuplekv_check('u')"), "ok");
}

// SQLite's NOCASE and RTRIM compare UTF-16 text as UTF-8 (only BINARY has
// UTF-16 forms): a key or index under them keeps UTF-8 order here too.
TEST_P(Utf16Test, TableKeysUnderOtherCollationsAnswerAsNative) {
  const std::string columns = "k TEXT NOT NULL COLLATE NOCASE PRIMARY KEY, r TEXT COLLATE RTRIM";
  ASSERT_TRUE(db_.exec("CREATE VIRTUAL TABLE t USING tuplekv_table(" + columns + ", INDEX t_r(r)" +
                       store() + "); CREATE TABLE n(" + columns +
                       ") STRICT, WITHOUT ROWID; CREATE INDEX n_r ON n(r);"
                       "INSERT INTO t SELECT upper(s), s || ' ' FROM texts WHERE i > 1;"
                       "INSERT INTO n SELECT k, r FROM t;"));
  expect_as_native({"SELECT hex(k), hex(r) FROM @T ORDER BY k",
                    "SELECT hex(k) FROM @T WHERE k > 'a' ORDER BY k DESC",
                    "SELECT hex(k) FROM @T WHERE k < char(0x1f600) ORDER BY k",
                    "SELECT hex(k) FROM @T WHERE k IN ('a', char(0xff5e) || 'Z') ORDER BY k",
                    "SELECT hex(r) FROM @T WHERE r > char(0xff5e) ORDER BY r",
                    "SELECT hex(r) FROM @T WHERE r = char(0x1f600) ORDER BY r"},
                   "t", "n");
  EXPECT_EQ(db_.value("SELECT tuplekv_check('t')"), "ok");
}

// pack((S, pk...)) of UTF-8 strings (DESIGN.md section 4), the same bytes
// a UTF-8 database stores, index entries included.
TEST_P(Utf16Test, TableKeysAreTheBytesOfAUtf8Database) {
  const std::string setup = table_setup(store());
  const std::string key_query =
      memory() ? "SELECT hex(raw_key) FROM t UNION ALL SELECT hex(raw_key) FROM u ORDER BY 1"
               : "SELECT hex(k) FROM t_kv UNION ALL SELECT hex(k) FROM u_kv ORDER BY 1";
  const Rows keys = rows_in(encoding(), setup, key_query);
  EXPECT_EQ(keys.size(),
            memory() ? 2u * kTextCount + 4 : 3u * kTextCount + 4);  // index entries too
  EXPECT_EQ(keys, rows_in("UTF-8", setup, key_query));

  ASSERT_TRUE(db_.exec(setup));
  EXPECT_EQ(db_.value("SELECT count(*) FROM t WHERE raw_key = tuple_pack('t', k)"),
            std::to_string(kTextCount));
  // The tuple spec's own example, "F\u00d4O\u0000bar".
  ASSERT_TRUE(
      db_.exec("INSERT INTO t VALUES ('F' || char(0xd4) || 'O' || char(0) || 'bar', NULL, 0)"));
  EXPECT_EQ(db_.value("SELECT hex(raw_key) FROM t WHERE i = 0"), "027400" "0246C3944F00FF62617200");
}

// ---------------------------------------------------------------------------
// tuplekv_kv: BLOB keys compare alike in every encoding; what is text is
// the prefix's string (a table name or subspace=) and tuple_pack's input.

TEST_P(Utf16Test, KvKeysOfPackedTextAnswerAsANativeBlobTable) {
  ASSERT_TRUE(db_.exec(
      "CREATE VIRTUAL TABLE t USING tuplekv_kv(subspace=s" + store() + ");"
      "CREATE TABLE n(key BLOB NOT NULL PRIMARY KEY, value BLOB NOT NULL) STRICT, WITHOUT ROWID;"
      "INSERT INTO t SELECT tuple_pack(s, i), CAST(s AS BLOB) FROM texts;"
      "INSERT INTO n SELECT key, value FROM t;"));
  EXPECT_EQ(db_.value("SELECT count(*) FROM t JOIN texts"
                      " ON key = tuple_pack(s, i) AND value = CAST(s AS BLOB)"),
            std::to_string(kTextCount));
  expect_as_native(
      {"SELECT hex(key), hex(value) FROM @T ORDER BY key",
       "SELECT tuple_repr(key) FROM @T WHERE key > tuple_pack(char(0xff5e)) ORDER BY key DESC",
       "SELECT hex(key) FROM @T WHERE key BETWEEN tuple_pack('a') AND tuple_pack(char(0x10000))",
       "SELECT hex(key) FROM @T WHERE key LIKE 'a%'"},
      "t", "n");
  // prefix = p is the keys that start with p's bytes.
  for (const char* p : {"tuple_pack(char(0x1f600))", "tuple_pack('a')", "x'02EF'"}) {
    EXPECT_EQ(db_.rows(std::string("SELECT hex(key) FROM t WHERE prefix = ") + p),
              db_.rows(std::string("SELECT hex(key) FROM n WHERE substr(key, 1, length(") + p +
                       ")) = " + p + " ORDER BY key"))
        << p;
  }
  EXPECT_EQ(db_.error("SELECT key FROM t WHERE prefix = char(0x1f600)"),
            "tuplekv_kv: prefix must be a BLOB, not TEXT"
            " (table t; use CAST(x AS BLOB) or tuple_pack(x))");
  EXPECT_EQ(db_.error("INSERT INTO t VALUES (char(0x1f600), x'00')"),
            "cannot store TEXT value in BLOB column t.key");
  EXPECT_EQ(db_.value("SELECT count(*) FROM t"), std::to_string(kTextCount));
}

// A table name or subspace= is the prefix's string element, in UTF-8; a
// rename moves the keys under the new name's UTF-8.
TEST(Utf16KvNamesTest, PrefixesAreTheUtf8OfTheNames) {
  const std::string setup =
      "CREATE VIRTUAL TABLE \"t\xc3\xa9\" USING tuplekv_kv;"
      "CREATE VIRTUAL TABLE s USING tuplekv_kv(subspace='\xf0\x9f\x98\x80');"
      "INSERT INTO \"t\xc3\xa9\" VALUES (x'01', x'aa'); INSERT INTO s VALUES (x'02', x'bb');"
      "ALTER TABLE s RENAME TO \"\xef\xbd\x9e\";"
      "CREATE VIRTUAL TABLE r USING tuplekv_kv; INSERT INTO r VALUES (x'03', x'cc');"
      "ALTER TABLE r RENAME TO \"r\xf4\x8f\xbf\xbf\";";
  const std::string keys =
      "SELECT hex(k) FROM \"t\xc3\xa9_kv\" UNION ALL SELECT hex(k) FROM \"\xef\xbd\x9e_kv\""
      " UNION ALL SELECT hex(k) FROM \"r\xf4\x8f\xbf\xbf_kv\"";
  const Rows expected{{"0274C3A90001"}, {"02F09F98800002"}, {"0272F48FBFBF0003"}};
  for (const char* encoding : {"UTF-8", "UTF-16le", "UTF-16be"}) {
    EXPECT_EQ(rows_in(encoding, setup, keys), expected) << encoding;
  }
}

// ---------------------------------------------------------------------------
// tuplekv_cells and tuplekv_multimap

TEST_P(Utf16Test, CellsAnswerAsANativeAnyTable) {
  const std::string setup =
      "CREATE VIRTUAL TABLE c USING tuplekv_cells(layout=both" + store() + ");"
      "INSERT INTO c SELECT x.s, y.s, x.i * 100 + y.i FROM texts x, texts y"
      " WHERE (x.i + y.i) % 3 = 0;"
      "INSERT INTO c SELECT s, i, s || s FROM texts;";
  ASSERT_TRUE(db_.exec(
      setup +
      "CREATE TABLE n(row ANY NOT NULL, col ANY NOT NULL, value ANY, PRIMARY KEY(row, col))"
      " STRICT, WITHOUT ROWID; INSERT INTO n SELECT row, col, value FROM c;"));
  const auto check = [&] {
    expect_as_native(
        {"SELECT hex(row), hex(col), hex(value) FROM @T ORDER BY row, col",
         "SELECT hex(col), value FROM @T WHERE row = char(0x1f600) ORDER BY col",
         "SELECT hex(row), value FROM @T WHERE col = char(0xff5e) ORDER BY row DESC",
         "SELECT value FROM @T WHERE row > char(0xff5e) AND col < char(0x10000) ORDER BY value",
         "SELECT value FROM @T WHERE row IN ('a' || char(0) || 'b', char(0xe000)) ORDER BY value",
         "SELECT value FROM @T WHERE col LIKE 'a%' ORDER BY value",
         "SELECT hex(value) FROM @T WHERE value > char(0xfffd) ORDER BY value",
         "SELECT hex(max(row)), hex(min(col)) FROM @T"},
        "c", "n");
  };
  check();
  for (const char* t : {"c", "n"}) {
    ASSERT_TRUE(
        db_.exec(on("DELETE FROM @T WHERE row = char(0x10000);"
                    "UPDATE @T SET col = col || char(0x10ffff) WHERE col > char(0xff5e);"
                    "UPDATE @T SET value = char(0) || value WHERE row < char(0x10000)",
                    t)));
  }
  check();
  // pack((S, 'row_idx', row, col)) and pack((S, 'col_idx', col, row)).
  EXPECT_EQ(db_.value("SELECT count(*) FROM c WHERE raw = tuple_pack('c', 'row_idx', row, col)"),
            db_.value("SELECT count(*) FROM n"));
  const std::string key_query =
      memory() ? "SELECT hex(raw) FROM c ORDER BY raw" : "SELECT hex(k) FROM c_kv ORDER BY k";
  EXPECT_EQ(rows_in(encoding(), setup, key_query), rows_in("UTF-8", setup, key_query));
}

TEST_P(Utf16Test, MultimapAnswersAsANativeTable) {
  const std::string setup =
      "CREATE VIRTUAL TABLE m USING tuplekv_multimap(k TEXT, v, reverse=1" + store() + ");"
      "INSERT INTO m SELECT x.s, y.s FROM texts x, texts y WHERE (x.i * y.i) % 4 = 1;"
      "INSERT INTO m SELECT s, i FROM texts;";
  ASSERT_TRUE(db_.exec(
      setup +
      "CREATE TABLE n(k TEXT NOT NULL, v ANY NOT NULL, PRIMARY KEY(k, v)) STRICT, WITHOUT ROWID;"
      "INSERT INTO n SELECT k, v FROM m;"));
  const auto check = [&] {
    expect_as_native(
        {"SELECT hex(k), hex(v) FROM @T ORDER BY k, v",
         "SELECT hex(v) FROM @T WHERE k = char(0xff5e) ORDER BY v DESC",
         "SELECT hex(k) FROM @T WHERE v = char(0x1f600) ORDER BY k",
         "SELECT hex(k), hex(v) FROM @T WHERE k > char(0xe000) AND v <= char(0x10000)"
         " ORDER BY k, v",
         "SELECT hex(k), hex(v) FROM @T WHERE k BETWEEN 'Z' AND char(0xfffd) ORDER BY v, k",
         "SELECT count(*) FROM @T WHERE k = 'a' || char(0) || 'b'",
         "SELECT hex(v) FROM @T WHERE k IN (char(0x10ffff), '') ORDER BY v",
         "SELECT hex(k) FROM @T WHERE k GLOB char(0xff5e) || '*' ORDER BY k"},
        "m", "n");
  };
  check();
  for (const char* t : {"m", "n"}) {
    ASSERT_TRUE(
        db_.exec(on("DELETE FROM @T WHERE k = char(0xe000) OR v = char(233);"
                    "UPDATE @T SET v = v || char(0x1f600) WHERE k = char(0x10000)",
                    t)));
  }
  check();
  // pack((S, k, v)) and pack((S, 'reverse', v, k)).
  EXPECT_EQ(db_.value("SELECT count(*) FROM m WHERE raw = tuple_pack('m', k, v)"),
            db_.value("SELECT count(*) FROM n"));
  const std::string key_query =
      memory() ? "SELECT hex(raw) FROM m ORDER BY raw" : "SELECT hex(k) FROM m_kv ORDER BY k";
  EXPECT_EQ(rows_in(encoding(), setup, key_query), rows_in("UTF-8", setup, key_query));
}

// ---------------------------------------------------------------------------
// tuplekv_docs and tuplekv_leaves

// Documents built by json1 in this database, members written in key
// (UTF-8) order: U+FF5E before U+1F600, which BINARY in UTF-16 reverses.
std::string docs_setup(const std::string& store_arg) {
  return "CREATE VIRTUAL TABLE d USING tuplekv_docs(" + store_arg + ");"
         "CREATE VIRTUAL TABLE l USING tuplekv_leaves(d);"
         "CREATE TABLE n(id ANY NOT NULL PRIMARY KEY, doc TEXT) STRICT, WITHOUT ROWID;"
         "INSERT INTO n VALUES"
         " (char(0x1f600), json_object('a', char(0xff5e), char(233), json_array(char(0x10000), 1,"
         "  'a' || char(0) || 'b'))),"
         " (char(0xff5e), json_object('a' || char(0) || 'b', 'x', char(0xff5e), 1, char(0x1f600),"
         "  json_object(char(0xe000), char(0x10ffff)))),"
         " ('a' || char(0) || 'b', json_quote(char(0xfffd))),"
         " (7, json_array(char(0x10ffff), json_object(), char(0xe000)));"
         "INSERT INTO d(id, doc) SELECT id, doc FROM n;";
}

TEST_P(Utf16Test, DocumentsKeepTheirTextAndComeBackInUtf8MemberOrder) {
  ASSERT_TRUE(db_.exec(docs_setup(store_arg())));
  const auto check = [&] {
    expect_as_native({"SELECT hex(id), hex(doc) FROM @T ORDER BY id"}, "d", "n");
    // A subtree at a path of non-ASCII members is json1's `->` of it, and
    // `path` reads as written.
    const std::string paths[][2] = {
        {"char(0x1f600)", "'$.\"' || char(233) || '\"'"},
        {"char(0x1f600)", "'$.\"' || char(233) || '\"[2]'"},
        {"char(0xff5e)", "'$.\"' || char(0x1f600) || '\"'"},
        {"char(0xff5e)", "'$.\"' || char(0x1f600) || '\".\"' || char(0xe000) || '\"'"},
        {"'a' || char(0) || 'b'", "'$'"},
        {"7", "'$[1]'"}};
    for (const auto& [id, path] : paths) {
      EXPECT_EQ(
          db_.rows("SELECT hex(doc), hex(path) FROM d WHERE id = " + id + " AND path = " + path),
          db_.rows("SELECT hex(doc -> (" + path + ")), hex(" + path + ") FROM n WHERE id = " + id))
          << id << " " << path;
    }
    expect_as_native(
        {"SELECT hex(id) FROM @T WHERE id IN (char(0xff5e), 7, char(0x10000)) ORDER BY id",
         "SELECT hex(id) FROM @T WHERE id > char(0xe000) ORDER BY id DESC"},
        "d", "n");
  };
  check();
  const std::string writes[][2] = {
      {"UPDATE d SET doc = json_quote(char(0x10ffff)) WHERE id = char(0x1f600) AND path = '$.a'",
       "UPDATE n SET doc = json_set(doc, '$.a', char(0x10ffff)) WHERE id = char(0x1f600)"},
      {"DELETE FROM d WHERE id = char(0xff5e) AND path = '$.\"' || char(0x1f600) || '\"'",
       "UPDATE n SET doc = json_remove(doc, '$.\"' || char(0x1f600) || '\"')"
       " WHERE id = char(0xff5e)"},
      {"UPDATE d SET id = char(0xe000) || id WHERE id = 7",
       "UPDATE n SET id = char(0xe000) || id WHERE id = 7"},
      {"DELETE FROM d WHERE id = 'a' || char(0) || 'b'",
       "DELETE FROM n WHERE id = 'a' || char(0) || 'b'"}};
  for (const auto& [ours, native] : writes) {
    ASSERT_TRUE(db_.exec(ours));
    ASSERT_TRUE(db_.exec(native));
  }
  check();
}

TEST_P(Utf16Test, LeavesAreJsonTreesLeavesWithTheirText) {
  ASSERT_TRUE(db_.exec(docs_setup(store_arg())));
  // The scalars and empty containers json_tree lists under `root`, with
  // their SQL values. This SQLite's json1 ends a string at an escaped
  // U+0000, so that one leaf's value is the text that built the document.
  const auto json1 = [](const std::string& root) {
    return "(SELECT n.id AS id, j.type AS type, iif(j.type IN ('object', 'array'), j.value,"
           " iif(n.id = char(0x1f600) AND j.fullkey = '$.\"' || char(233) || '\"[2]',"
           " 'a' || char(0) || 'b', j.atom)) AS value FROM n, json_tree(n.doc, " + root + ") j"
           " WHERE j.atom IS NOT NULL OR j.value IN ('{}', '[]'))";
  };
  expect_as_native(
      {"SELECT hex(id), type, hex(value) FROM @T ORDER BY 1, 2, 3",
       "SELECT hex(id), type FROM @T WHERE value = char(0x10ffff) ORDER BY 1, 2",
       "SELECT hex(value) FROM @T WHERE value >= char(0xe000) ORDER BY value",
       "SELECT hex(value) FROM @T WHERE value = 'a' || char(0) || 'b'",
       "SELECT hex(value) FROM @T WHERE id = char(0xff5e) AND value LIKE 'x%' ORDER BY value"},
      "l", json1("'$'"));
  // prefix = a member path: the leaves json_tree finds under it.
  const std::string path = "'$.\"' || char(233) || '\"'";
  EXPECT_EQ(
      db_.rows("SELECT hex(value) FROM l WHERE id = char(0x1f600) AND prefix = " + path +
               " ORDER BY 1"),
      db_.rows("SELECT hex(value) FROM " + json1(path) + " WHERE id = char(0x1f600) ORDER BY 1"));
  // Every leaf is found again at its own path, which reads back as written.
  EXPECT_EQ(
      db_.value("SELECT count(*) FROM l x WHERE (SELECT count(*) FROM l y WHERE y.id = x.id AND"
                " y.path = x.path AND y.value IS x.value) = 1"),
      db_.value("SELECT count(*) FROM l"));
  // The same keys as in a UTF-8 database.
  const std::string setup = docs_setup(store_arg());
  const std::string key_query =
      memory() ? "SELECT hex(raw) FROM l ORDER BY raw"
               : "SELECT hex(k) FROM d_kv UNION ALL SELECT hex(id) FROM d_json ORDER BY 1";
  EXPECT_EQ(rows_in(encoding(), setup, key_query), rows_in("UTF-8", setup, key_query));
}

// ---------------------------------------------------------------------------
// SQL functions and unconvertible text

TEST(Utf16FunctionsTest, FunctionsReadAndWriteTextAsInAUtf8Database) {
  const std::string per_text =
      "SELECT hex(tuple_pack(s)), tuple_repr(tuple_pack(s, 1)),"
      " hex(tuple_range_end(tuple_pack(s))),"
      " (SELECT group_concat(hex(raw)) FROM tuple_each(tuple_pack(1, s))) FROM texts ORDER BY i";
  const std::string makers =
      "SELECT hex(tuple_pack(tuple_uuid('0123456789ABCDEF0123456789abcdef'),"
      " tuple_bigint('-18446744073709551616'), tuple_float('1.5'), tuple_bool('TRUE'),"
      " tuple_versionstamp('0102030405060708090a0b0c')))";
  Db utf8;
  open_with(&utf8, "UTF-8");
  const Rows packed = utf8.rows(per_text);
  ASSERT_EQ(packed.size(), static_cast<size_t>(kTextCount));
  for (const char* encoding : {"UTF-16le", "UTF-16be"}) {
    SCOPED_TRACE(encoding);
    Db db;
    open_with(&db, encoding);
    EXPECT_EQ(db.rows(per_text), packed);
    // The spec's example, and round trips that must give the text back.
    EXPECT_EQ(db.value("SELECT hex(tuple_pack('F' || char(0xd4) || 'O' || char(0) || 'bar'))"),
              "0246C3944F00FF62617200");
    EXPECT_EQ(db.value("SELECT hex(tuple_pack(char(0x1f600)))"), "02F09F988000");
    EXPECT_EQ(
        db.value("SELECT count(*) FROM texts WHERE tuple_unpack(tuple_pack(s)) = json_array(s)"
                 " AND tuple_pack_json(json_array(s)) = tuple_pack(s)"
                 " AND (SELECT value FROM tuple_each(tuple_pack(s))) = s"
                 " AND hex((SELECT value FROM tuple_each(tuple_pack(s)))) = hex(s)"),
        std::to_string(kTextCount));
    EXPECT_EQ(db.value("SELECT hex(tuple_pack_json('[\"\\ud83d\\ude00\", \"\\u00e9\"]'))"),
              db.value("SELECT hex(tuple_pack(char(0x1f600), char(233)))"));
    EXPECT_EQ(db.rows(makers), utf8.rows(makers));
    // Text that is not what a maker reads is quoted back in the message.
    const std::string bad = "SELECT tuple_bigint(char(0x1f600) || '1')";
    EXPECT_EQ(db.error(bad), utf8.error(bad));
    EXPECT_NE(db.error(bad).find("got '\xf0\x9f\x98\x80"
                                 "1'"),
              std::string::npos);
  }
}

TEST_P(Utf16Test, AnUnpairedSurrogateIsRefusedAndChangesNothing) {
  ASSERT_TRUE(db_.exec(
      "CREATE VIRTUAL TABLE t USING tuplekv_table(k TEXT PRIMARY KEY, a ANY, INDEX t_a(a)" +
      store() + ");"
      "CREATE VIRTUAL TABLE c USING tuplekv_cells(layout=both" + store() + ");"
      "CREATE VIRTUAL TABLE m USING tuplekv_multimap(k TEXT, v, reverse=1" + store() + ");"
      "CREATE VIRTUAL TABLE d USING tuplekv_docs(" + store_arg() + ");"
      "INSERT INTO t VALUES ('x', 1); INSERT INTO c VALUES (1, 1, 1);"
      "INSERT INTO m VALUES ('x', 1); INSERT INTO d(id, doc) VALUES ('x', '{}')"));
  const std::string everything =
      "SELECT hex(k), hex(a), NULL FROM t UNION ALL SELECT hex(row), hex(col), hex(value) FROM c"
      " UNION ALL SELECT hex(k), hex(v), NULL FROM m UNION ALL SELECT hex(id), doc, NULL FROM d";
  const Rows before = db_.rows(everything);
  for (const std::string& bad : lone_surrogates(encoding())) {
    const std::string cases[][2] = {
        {"INSERT INTO t VALUES (" + bad + ", 1)",
         "tuplekv_table: TEXT value for t.k is not valid UTF-8"},
        {"UPDATE t SET a = " + bad, "tuplekv_table: TEXT value for t.a is not valid UTF-8"},
        {"INSERT INTO c VALUES (" + bad + ", 2, 2)",
         "tuplekv_cells: TEXT value for c.row: TEXT is not valid UTF-8"},
        {"UPDATE c SET col = " + bad,
         "tuplekv_cells: TEXT value for c.col: TEXT is not valid UTF-8"},
        {"UPDATE c SET value = " + bad,
         "tuplekv_cells: value for c.value: TEXT is not valid UTF-8"},
        {"INSERT INTO m VALUES (" + bad + ", 2)",
         "tuplekv_multimap: TEXT value for m.k is not valid UTF-8"},
        {"UPDATE m SET v = " + bad,
         "tuplekv_multimap: TEXT value for m.v: TEXT is not valid UTF-8"},
        {"INSERT INTO d(id, doc) VALUES (" + bad + ", '[]')",
         "tuplekv_docs: id of d: TEXT is not valid UTF-8"},
        {"UPDATE d SET id = " + bad, "tuplekv_docs: id of d: TEXT is not valid UTF-8"},
        {"SELECT tuple_pack(1, " + bad + ")", "tuple_pack: argument 2: TEXT is not valid UTF-8"}};
    for (const auto& [sql, message] : cases) EXPECT_EQ(db_.error(sql), message) << sql;
  }
  EXPECT_EQ(db_.rows(everything), before);
  EXPECT_EQ(db_.value("SELECT tuplekv_check('t')"), "ok");
  // A pair cast from a BLOB is the character it encodes.
  const std::string pair =
      encoding() == "UTF-16le" ? "CAST(x'3DD800DE' AS TEXT)" : "CAST(x'D83DDE00' AS TEXT)";
  ASSERT_TRUE(db_.exec("INSERT INTO t VALUES (" + pair + ", 2)"));
  EXPECT_EQ(db_.value("SELECT a FROM t WHERE k = char(0x1f600)"), "2");
}

}  // namespace
}  // namespace tuplekv::testing
