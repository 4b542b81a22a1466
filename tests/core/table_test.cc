// Typed tables: schema parsing (types, synonyms, constraints, keys in any
// order, indexes, errors), STRICT coercion, and the row/index layout with
// index maintenance, check and rebuild over the memory store.
#include "core/model/table.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "core/memory_store.h"

namespace tuplekv::model {
namespace {

Status parse(const std::vector<std::string>& args, TableSchema* s) {
  return parse_table_schema("tuplekv_table", "t", args, s);
}

std::string parse_error(const std::vector<std::string>& args) {
  TableSchema s;
  const Status st = parse(args, &s);
  return st.ok() ? "ok" : st.message();
}

TEST(TableSchemaTest, ColumnsTypesKeysAndIndexes) {
  TableSchema s;
  ASSERT_TRUE(parse({"user_id INT", " name text NOT NULL DEFAULT 'x, y'", "region TEXT",
                     "score real default -1.5", "photo BLOB", "extra", "\"odd name\" ANY",
                     "PRIMARY KEY(region, user_id)", "INDEX by_name (name, score)"},
                    &s)
                  .ok());
  ASSERT_EQ(s.columns.size(), 7u);
  EXPECT_EQ(s.columns[0].type, ColumnType::kInteger);
  EXPECT_EQ(s.columns[1].type, ColumnType::kText);
  EXPECT_TRUE(s.columns[1].not_null);
  EXPECT_EQ(s.columns[1].default_sql, "'x, y'");
  EXPECT_EQ(s.columns[3].type, ColumnType::kReal);
  EXPECT_EQ(s.columns[3].default_sql, "-1.5");
  EXPECT_EQ(s.columns[4].type, ColumnType::kBlob);
  EXPECT_EQ(s.columns[5].type, ColumnType::kAny);
  EXPECT_EQ(s.columns[6].name, "odd name");
  EXPECT_EQ(s.key, (std::vector<int>{2, 0}));
  EXPECT_TRUE(s.columns[0].not_null);
  EXPECT_TRUE(s.columns[2].not_null);
  EXPECT_EQ(s.columns[2].key_pos, 0);
  EXPECT_EQ(s.values, (std::vector<int>{1, 3, 4, 5, 6}));
  ASSERT_EQ(s.indexes.size(), 1u);
  EXPECT_EQ(s.indexes[0].name, "by_name");
  EXPECT_EQ(s.indexes[0].columns, (std::vector<int>{1, 3}));
  EXPECT_EQ(s.find_column("REGION"), 2);
}

// Any type name SQLite gives INTEGER, TEXT, REAL or BLOB affinity is the
// STRICT type of that affinity, so an ordinary table's column list works.
TEST(TableSchemaTest, TypeNamesOfOrdinaryTables) {
  TableSchema s;
  ASSERT_TRUE(parse({"a BIGINT", "b VARCHAR(8)", "c FLOAT", "d DOUBLE PRECISION", "e CLOB",
                     "f UNSIGNED BIG INT", "g NATIVE CHARACTER(70)", "h decimal_blob", "i REAL(3, -1)"},
                    &s)
                  .ok());
  const ColumnType want[] = {ColumnType::kInteger, ColumnType::kText, ColumnType::kReal,
                             ColumnType::kReal,    ColumnType::kText, ColumnType::kInteger,
                             ColumnType::kText,    ColumnType::kBlob, ColumnType::kReal};
  ASSERT_EQ(s.columns.size(), std::size(want));
  for (size_t i = 0; i < s.columns.size(); ++i) EXPECT_EQ(s.columns[i].type, want[i]) << s.columns[i].name;
}

// SQLite dequotes a type written as an identifier or a string: a STRICT
// table takes `a "INTEGER"` as INTEGER, and `INT` keeps its own label.
TEST(TableSchemaTest, QuotedTypeNames) {
  TableSchema s;
  ASSERT_TRUE(parse({"a \"INTEGER\"", "b 'TEXT'", "c [REAL]", "d `BLOB`(10)", "e \"ANY\"",
                     "f \"DOUBLE\" PRECISION", "g 'INT' NOT NULL", "h \"VARCHAR\"(3) PRIMARY KEY"},
                    &s)
                  .ok());
  const ColumnType want[] = {ColumnType::kInteger, ColumnType::kText, ColumnType::kReal,
                             ColumnType::kBlob,    ColumnType::kAny,  ColumnType::kReal,
                             ColumnType::kInteger, ColumnType::kText};
  ASSERT_EQ(s.columns.size(), std::size(want));
  for (size_t i = 0; i < s.columns.size(); ++i) EXPECT_EQ(s.columns[i].type, want[i]) << s.columns[i].name;
  EXPECT_EQ(s.columns[6].type_label, "INT");
  EXPECT_TRUE(s.columns[6].not_null);
  EXPECT_EQ(s.key, (std::vector<int>{7}));
  // A quote left inside, or nothing inside, names no type.
  EXPECT_EQ(parse_error({"a 'IN''T'"}),
            "tuplekv_table: unknown type ''IN''T'' for column t.a (use INTEGER, REAL, TEXT, BLOB or ANY)");
  EXPECT_EQ(parse_error({"a ''"}),
            "tuplekv_table: unknown type '''' for column t.a (use INTEGER, REAL, TEXT, BLOB or ANY)");
  // Quoted words join the others, as unquoted ones would: `INT x` is INTEGER.
  TableSchema words;
  ASSERT_TRUE(parse({"a \"INT\" 'x'"}, &words).ok());
  EXPECT_EQ(words.columns[0].type, ColumnType::kInteger);
}

TEST(TableSchemaTest, UniqueConstraintsAreAutomaticIndexes) {
  TableSchema s;
  ASSERT_TRUE(parse({"id INTEGER PRIMARY KEY", "email TEXT CONSTRAINT e UNIQUE NOT NULL", "a INT", "b INT",
                     "CONSTRAINT ab UNIQUE(a, b)", "UNIQUE INDEX by_b(b)", "INDEX by_a(a)"},
                    &s)
                  .ok());
  ASSERT_EQ(s.indexes.size(), 4u);
  EXPECT_EQ(s.indexes[0].name, "t_autoindex_1");
  EXPECT_EQ(s.indexes[0].columns, (std::vector<int>{1}));
  EXPECT_TRUE(s.indexes[0].unique && s.indexes[0].automatic);
  EXPECT_TRUE(s.columns[1].not_null);
  EXPECT_EQ(s.indexes[1].name, "t_autoindex_2");
  EXPECT_EQ(s.indexes[1].columns, (std::vector<int>{2, 3}));
  EXPECT_EQ(s.indexes[2].name, "by_b");
  EXPECT_TRUE(s.indexes[2].unique && !s.indexes[2].automatic);
  EXPECT_FALSE(s.indexes[3].unique);
  EXPECT_TRUE(s.has_unique_index());
  // SQLite checks the last index created first. A one-column INTEGER key
  // gets its index at the end of the CREATE TABLE, after the UNIQUEs.
  EXPECT_EQ(s.unique_check_order, (std::vector<int>{2, -1, 1, 0}));
  s.name_automatic_indexes("users");
  EXPECT_EQ(s.indexes[1].name, "users_autoindex_2");

  ASSERT_TRUE(parse({"k TEXT PRIMARY KEY", "u INT UNIQUE"}, &s).ok());
  EXPECT_EQ(s.unique_check_order, (std::vector<int>{0, -1}));
  ASSERT_TRUE(parse({"u INT UNIQUE", "v INT"}, &s).ok());
  EXPECT_EQ(s.unique_check_order, (std::vector<int>{-1, 0}));  // the rowid first
}

TEST(TableSchemaTest, EqualConstraintsShareOneIndexAsInSqlite) {
  TableSchema s;
  // A UNIQUE equal to the primary key makes no index of its own...
  ASSERT_TRUE(parse({"a TEXT", "b INT", "PRIMARY KEY(a)", "UNIQUE(a)"}, &s).ok());
  EXPECT_TRUE(s.indexes.empty());
  EXPECT_EQ(s.unique_check_order, (std::vector<int>{-1}));
  // ...nor does one equal to an earlier UNIQUE; columns in another order
  // are another index.
  ASSERT_TRUE(parse({"a TEXT", "b INT", "UNIQUE(a, b)", "UNIQUE(a, b)", "UNIQUE(b, a)"}, &s).ok());
  ASSERT_EQ(s.indexes.size(), 2u);
  EXPECT_EQ(s.indexes[0].columns, (std::vector<int>{0, 1}));
  EXPECT_EQ(s.indexes[1].columns, (std::vector<int>{1, 0}));
  EXPECT_EQ(s.indexes[1].name, "t_autoindex_2");
  EXPECT_EQ(s.unique_check_order, (std::vector<int>{-1, 1, 0}));
  // A primary key equal to an earlier UNIQUE takes its index over, and its
  // place in the order: here the INTEGER key, made last, moves up to it.
  ASSERT_TRUE(parse({"a INTEGER UNIQUE", "b INT UNIQUE", "PRIMARY KEY(a)"}, &s).ok());
  ASSERT_EQ(s.indexes.size(), 1u);
  EXPECT_EQ(s.indexes[0].columns, (std::vector<int>{1}));
  EXPECT_EQ(s.unique_check_order, (std::vector<int>{0, -1}));
  // An INDEX clause is a CREATE INDEX, which SQLite never merges.
  ASSERT_TRUE(parse({"a TEXT PRIMARY KEY", "UNIQUE INDEX again(a)"}, &s).ok());
  ASSERT_EQ(s.indexes.size(), 1u);
  EXPECT_EQ(s.unique_check_order, (std::vector<int>{0, -1}));
}

TEST(TableSchemaTest, AscDescAndTheColumnsOwnCollationAreAcceptedInLists) {
  TableSchema s;
  ASSERT_TRUE(parse({"a INT", "b TEXT COLLATE NOCASE", "PRIMARY KEY(a DESC, b ASC)",
                     "INDEX i(b COLLATE nocase DESC, a)", "UNIQUE(b COLLATE NOCASE)"},
                    &s)
                  .ok());
  EXPECT_EQ(s.key, (std::vector<int>{0, 1}));
  ASSERT_EQ(s.indexes.size(), 2u);
  EXPECT_EQ(s.indexes[0].columns, (std::vector<int>{1, 0}));
  EXPECT_EQ(s.indexes[1].columns, (std::vector<int>{1}));
}

TEST(TableSchemaTest, DirectionsSayWhichEntriesTheReferenceStoresDescending) {
  TableSchema s;
  ASSERT_TRUE(parse({"a INT", "b TEXT", "c", "PRIMARY KEY(a DESC, b DESC)", "INDEX all_desc(c DESC)",
                     "INDEX holds_key(b DESC, c DESC, a DESC)", "INDEX asc(c)", "UNIQUE(c DESC, a ASC)"},
                    &s)
                  .ok());
  EXPECT_EQ(s.key_descending, (std::vector<bool>{true, true}));
  ASSERT_EQ(s.indexes.size(), 4u);
  EXPECT_EQ(s.indexes[0].descending, (std::vector<bool>{true}));
  EXPECT_EQ(s.indexes[3].descending, (std::vector<bool>{true, false}));
  EXPECT_TRUE(s.stored_descending(-1));
  EXPECT_TRUE(s.stored_descending(0));   // c DESC, then a DESC, b DESC appended
  EXPECT_TRUE(s.stored_descending(1));   // holds the key columns itself
  EXPECT_FALSE(s.stored_descending(2));  // c ascending
  EXPECT_FALSE(s.stored_descending(3));  // a ascending in the index
  // Mixed keys, ascending keys appended to a DESC index, the inline form.
  ASSERT_TRUE(parse({"a INT", "b TEXT", "PRIMARY KEY(a DESC, b)", "INDEX i(b DESC)"}, &s).ok());
  EXPECT_FALSE(s.stored_descending(-1));
  EXPECT_TRUE(s.stored_descending(0));  // b held DESC, a appended DESC
  ASSERT_TRUE(parse({"a INT", "b TEXT", "PRIMARY KEY(a)", "INDEX i(b DESC)"}, &s).ok());
  EXPECT_FALSE(s.stored_descending(-1));
  EXPECT_FALSE(s.stored_descending(0));  // a appended ascending
  ASSERT_TRUE(parse({"a INTEGER PRIMARY KEY DESC", "b TEXT", "INDEX i(b DESC)"}, &s).ok());
  EXPECT_EQ(s.key_descending, (std::vector<bool>{true}));
  EXPECT_TRUE(s.stored_descending(-1));
  EXPECT_TRUE(s.stored_descending(0));
  // A primary key made after an equal UNIQUE is that index, directions
  // and all (an INTEGER key named in PRIMARY KEY(...) is made last).
  ASSERT_TRUE(parse({"a INTEGER NOT NULL", "b TEXT", "PRIMARY KEY(a DESC)", "UNIQUE(a)"}, &s).ok());
  EXPECT_EQ(s.key_descending, (std::vector<bool>{false}));
  EXPECT_FALSE(s.stored_descending(-1));
  ASSERT_TRUE(parse({"a TEXT NOT NULL", "b TEXT", "PRIMARY KEY(a DESC)", "UNIQUE(a)"}, &s).ok());
  EXPECT_TRUE(s.stored_descending(-1));
  ASSERT_TRUE(parse({"a TEXT NOT NULL", "b TEXT", "UNIQUE(a)", "PRIMARY KEY(a DESC)"}, &s).ok());
  EXPECT_FALSE(s.stored_descending(-1));
  // A rowid is appended ascending.
  ASSERT_TRUE(parse({"a INT", "b TEXT", "INDEX i(b DESC)"}, &s).ok());
  EXPECT_FALSE(s.stored_descending(-1));
  EXPECT_FALSE(s.stored_descending(0));
}

TEST(TableSchemaTest, InlineKeyImplicitKeyAndDefaults) {
  TableSchema s;
  ASSERT_TRUE(parse({"id INTEGER PRIMARY KEY", "v TEXT DEFAULT (upper('a'))"}, &s).ok());
  EXPECT_EQ(s.key, (std::vector<int>{0}));
  EXPECT_EQ(s.columns[1].default_sql, "(upper('a'))");
  ASSERT_TRUE(parse({"a", "b INTEGER"}, &s).ok());
  EXPECT_TRUE(s.implicit_key());
  EXPECT_EQ(s.key_size(), 1u);
  EXPECT_EQ(s.values, (std::vector<int>{0, 1}));
}

// SQLite reads an identifier after DEFAULT as the string it spells, quoted
// or not; NULL, TRUE, FALSE and CURRENT_* stay keywords.
TEST(TableSchemaTest, DefaultIdentifiersAreStrings) {
  TableSchema s;
  ASSERT_TRUE(parse({"a TEXT DEFAULT abc", "b TEXT DEFAULT \"it's\"", "c ANY DEFAULT [x y]", "d ANY DEFAULT true",
                     "e ANY DEFAULT NULL", "f TEXT DEFAULT current_date", "g ANY DEFAULT key"},
                    &s)
                  .ok());
  const std::vector<std::string> want = {"'abc'", "'it''s'", "'x y'", "true", "NULL", "current_date", "'key'"};
  ASSERT_EQ(s.columns.size(), want.size());
  for (size_t c = 0; c < want.size(); ++c) EXPECT_EQ(s.columns[c].default_sql, want[c]) << s.columns[c].name;
}

// As in a WITHOUT ROWID table, a key column named again adds nothing; the
// first mention's direction stays. A rowid alias needs one term as written.
TEST(TableSchemaTest, RepeatedKeyColumnsCountOnce) {
  TableSchema s;
  ASSERT_TRUE(parse({"a INT", "b TEXT", "PRIMARY KEY(b DESC, a, b)"}, &s).ok());
  EXPECT_EQ(s.key, (std::vector<int>{1, 0}));
  EXPECT_EQ(s.key_descending, (std::vector<bool>{true, false}));
  EXPECT_EQ(s.columns[1].key_pos, 0);
  EXPECT_EQ(s.values, (std::vector<int>{}));
}

TEST(TableSchemaTest, CollationsOutsideKeysAndIndexes) {
  TableSchema s;
  ASSERT_TRUE(parse({"a TEXT COLLATE binary", "b TEXT COLLATE NoCase", "c ANY COLLATE \"RTRIM\"",
                     "d BLOB", "PRIMARY KEY(a)", "INDEX i(d, a)"},
                    &s)
                  .ok());
  EXPECT_EQ(s.columns[0].collation, "BINARY");
  EXPECT_EQ(s.columns[1].collation, "NOCASE");
  EXPECT_EQ(s.columns[2].collation, "RTRIM");
  EXPECT_EQ(s.columns[3].collation, "BINARY");
  EXPECT_FALSE(s.columns[0].keyed_by_collation());
  EXPECT_TRUE(s.columns[1].keyed_by_collation());
  EXPECT_TRUE(s.columns[2].keyed_by_collation());
  EXPECT_TRUE(s.key_copies.empty());
}

// Key columns keyed by collation keys keep their values in the stored
// value too, after the non-key columns, in key order.
TEST(TableSchemaTest, CollatedKeyColumnsAreCopiedIntoTheValue) {
  TableSchema s;
  ASSERT_TRUE(parse({"a INTEGER COLLATE NOCASE", "b TEXT COLLATE RTRIM", "c TEXT", "d ANY COLLATE NOCASE",
                     "PRIMARY KEY(d, a, b)", "INDEX i(c)"},
                    &s)
                  .ok());
  EXPECT_EQ(s.values, (std::vector<int>{2}));
  // a is INTEGER: a collation orders text only, so its key is its value.
  EXPECT_EQ(s.key_copies, (std::vector<int>{3, 1}));
  EXPECT_EQ(s.columns[2].value_pos, 0);
  EXPECT_EQ(s.columns[3].value_pos, 1);
  EXPECT_EQ(s.columns[1].value_pos, 2);
  EXPECT_EQ(s.columns[0].value_pos, -1);
  EXPECT_EQ(s.columns[3].key_pos, 0);
}

// CHECKs in declaration order, column and table ones alike; each named as
// SQLite's message names it, and evaluated without column qualifiers.
TEST(TableSchemaTest, ChecksKeepTheirTextLabelAndUnqualifiedExpression) {
  TableSchema s;
  ASSERT_TRUE(parse({"a INT CHECK( a>0 )", "b TEXT CONSTRAINT pos NOT NULL CHECK (length(b) < 9)",
                     "CONSTRAINT [w z] CHECK (t.a < 100 AND main.t.b <> 'x.y')", "c ANY CHECK (c > 1.5) CONSTRAINT late",
                     "CHECK ((a) <> \"t\".\"b\") "},
                    &s)
                  .ok());
  ASSERT_EQ(s.checks.size(), 5u);
  const std::vector<std::vector<std::string>> want = {
      {"a>0", "a>0", "a>0"},
      {"pos", "length(b) < 9", "length(b) < 9"},
      {"w z", "t.a < 100 AND main.t.b <> 'x.y'", "a < 100 AND b <> 'x.y'"},
      {"c > 1.5", "c > 1.5", "c > 1.5"},
      {"(a) <> \"t\".\"b\"", "(a) <> \"t\".\"b\"", "(a) <> \"b\""},
  };
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(s.checks[i].label, want[i][0]) << i;
    EXPECT_EQ(s.checks[i].text, want[i][1]) << i;
    EXPECT_EQ(s.checks[i].expr, want[i][2]) << i;
  }
  // A CHECK changes nothing else: b is NOT NULL, and no column is a key.
  EXPECT_TRUE(s.columns[1].not_null);
  EXPECT_TRUE(s.implicit_key());
}

TEST(TableSchemaTest, Errors) {
  EXPECT_EQ(parse_error({"a DECIMAL(10, 2)"}),
            "tuplekv_table: unknown type 'DECIMAL(10, 2)' for column t.a (use INTEGER, REAL, TEXT, "
            "BLOB or ANY)");
  EXPECT_EQ(parse_error({"a NUMERIC"}),
            "tuplekv_table: unknown type 'NUMERIC' for column t.a (use INTEGER, REAL, TEXT, "
            "BLOB or ANY)");
  EXPECT_EQ(parse_error({"a VARCHAR(x)"}),
            "tuplekv_table: bad size in the type of column t.a in 'a VARCHAR(x)'");
  EXPECT_EQ(parse_error({"a INT", "PRIMARY KEY(b)"}),
            "tuplekv_table: PRIMARY KEY names unknown column 'b'");
  EXPECT_EQ(parse_error({"a INT", "A TEXT"}), "tuplekv_table: duplicate column name: A");
  EXPECT_EQ(parse_error({"a INT", "INDEX i(b)"}), "tuplekv_table: index i names unknown column 'b'");
  EXPECT_EQ(parse_error({"a INT", "INDEX i(a)", "INDEX I(a)"}),
            "tuplekv_table: duplicate index name: I");
  EXPECT_EQ(parse_error({"a INT PRIMARY KEY", "PRIMARY KEY(a)"}),
            "tuplekv_table: more than one PRIMARY KEY");
  // On one column (this once crashed the parser).
  EXPECT_EQ(parse_error({"a ANY PRIMARY KEY PRIMARY KEY"}), "tuplekv_table: more than one PRIMARY KEY");
  EXPECT_EQ(parse_error({"a INT REFERENCES p(x)"}),
            "tuplekv_table: unsupported column constraint 'REFERENCES' for column t.a");
  EXPECT_EQ(parse_error({"a INT CHECK (a > 0"}), "tuplekv_table: CHECK: unbalanced '(' in 'a INT CHECK (a > 0'");
  EXPECT_EQ(parse_error({"a INT CHECK a > 0"}), "tuplekv_table: expected CHECK (expression) in 'a INT CHECK a > 0'");
  EXPECT_EQ(parse_error({"a INT", "CHECK ()"}), "tuplekv_table: CHECK: expected an expression in 'CHECK ()'");
  EXPECT_EQ(parse_error({"a INT", "CHECK (a > 0) a"}), "tuplekv_table: unexpected text after ')' in 'CHECK (a > 0) a'");
  EXPECT_EQ(parse_error({"a INT", "b TEXT", "INDEX i(a, b COLLATE NOCASE)"}),
            "tuplekv_table: COLLATE NOCASE in 'INDEX i(a, b COLLATE NOCASE)' differs from column b's "
            "collation BINARY (declare the collation on the column)");
  EXPECT_EQ(parse_error({"a INT", "b TEXT COLLATE NOCASE", "UNIQUE(b COLLATE binary DESC)"}),
            "tuplekv_table: COLLATE binary in 'UNIQUE(b COLLATE binary DESC)' differs from column b's "
            "collation NOCASE (declare the collation on the column)");
  EXPECT_EQ(parse_error({"a TEXT COLLATE UNICODE"}),
            "tuplekv_table: column t.a: no such collation sequence: UNICODE (use BINARY, NOCASE or RTRIM)");
  EXPECT_EQ(parse_error({"a INT", "UNIQUE(b)"}), "tuplekv_table: UNIQUE names unknown column 'b'");
  EXPECT_EQ(parse_error({"a INT", "FOREIGN KEY(a) REFERENCES p(x)"}),
            "tuplekv_table: FOREIGN KEY constraints are not supported");
  EXPECT_EQ(parse_error({"a INT", "CONSTRAINT c NOT NULL"}),
            "tuplekv_table: expected PRIMARY KEY, UNIQUE or CHECK after CONSTRAINT name in 'CONSTRAINT c NOT NULL'");
  EXPECT_EQ(parse_error({"a INT UNIQUE ON CONFLICT REPLACE"}),
            "tuplekv_table: ON CONFLICT clauses of constraints are not supported: give the statement "
            "its own (INSERT OR REPLACE, UPDATE OR IGNORE, ...) (column t.a)");
  EXPECT_EQ(parse_error({"a INT", "b INT", "PRIMARY KEY(a, b) ON CONFLICT ROLLBACK"}),
            "tuplekv_table: ON CONFLICT clauses of constraints are not supported: give the statement "
            "its own (INSERT OR REPLACE, UPDATE OR IGNORE, ...) in 'PRIMARY KEY(a, b) ON CONFLICT "
            "ROLLBACK'");
  EXPECT_EQ(parse_error({"a INT", "UNIQUE(a) ON CONFLICT IGNORE"}),
            "tuplekv_table: ON CONFLICT clauses of constraints are not supported: give the statement "
            "its own (INSERT OR REPLACE, UPDATE OR IGNORE, ...) in 'UNIQUE(a) ON CONFLICT IGNORE'");
  EXPECT_EQ(parse_error({}), "tuplekv_table: no columns declared");
}

// Conversions as a test double: numeric text is what strtod/strtoll take
// whole; numbers render with %lld / %.15g.
class FakeConversions : public SqlConversions {
 public:
  SqlValue numeric(const SqlValue& v) override {
    const std::string s(v.bytes);
    char* end = nullptr;
    const long long i = std::strtoll(s.c_str(), &end, 10);
    SqlValue out = v;
    if (!s.empty() && *end == '\0') {
      out.kind = SqlValue::Kind::kInteger;
      out.i = i;
      return out;
    }
    const double r = std::strtod(s.c_str(), &end);
    if (!s.empty() && *end == '\0') {
      out.kind = SqlValue::Kind::kReal;
      out.r = r;
    }
    return out;
  }
  void text(const SqlValue& v, std::string* out) override {
    char buf[64];
    if (v.kind == SqlValue::Kind::kInteger) {
      std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(v.i));
    } else {
      std::snprintf(buf, sizeof buf, "%.15g", v.r);
    }
    *out = buf;
  }
};

SqlValue integer(int64_t i) {
  SqlValue v;
  v.kind = SqlValue::Kind::kInteger;
  v.i = i;
  return v;
}
SqlValue real(double r) {
  SqlValue v;
  v.kind = SqlValue::Kind::kReal;
  v.r = r;
  return v;
}
SqlValue text(std::string_view s) {
  SqlValue v;
  v.kind = SqlValue::Kind::kText;
  v.bytes = s;
  return v;
}
SqlValue blob(std::string_view s) {
  SqlValue v;
  v.kind = SqlValue::Kind::kBlob;
  v.bytes = s;
  return v;
}

std::string coerced(ColumnType t, const SqlValue& v) {
  FakeConversions conv;
  SqlValue out;
  std::string buf;
  const Status s = coerce(t, v, &conv, "t", "c", &out, &buf);
  if (!s.ok()) return s.message();
  Bytes e;
  if (!append_element(out, &e).ok()) return "bad";
  Tuple back;
  if (!unpack(e, &back).ok()) return "bad";
  return repr(back);
}

TEST(TableCoerceTest, StrictRules) {
  EXPECT_EQ(coerced(ColumnType::kInteger, integer(7)), "(7,)");
  EXPECT_EQ(coerced(ColumnType::kInteger, real(3.0)), "(3,)");
  EXPECT_EQ(coerced(ColumnType::kInteger, real(3.5)), "cannot store REAL value in INTEGER column t.c");
  EXPECT_EQ(coerced(ColumnType::kInteger, text("12")), "(12,)");
  EXPECT_EQ(coerced(ColumnType::kInteger, text("abc")), "cannot store TEXT value in INTEGER column t.c");
  EXPECT_EQ(coerced(ColumnType::kInteger, blob("x")), "cannot store BLOB value in INTEGER column t.c");
  EXPECT_EQ(coerced(ColumnType::kInteger, real(-9223372036854775808.0)),
            "cannot store REAL value in INTEGER column t.c");
  EXPECT_EQ(coerced(ColumnType::kReal, integer(2)), "(2.0,)");
  EXPECT_EQ(coerced(ColumnType::kReal, real(-0.0)), "(0.0,)");
  EXPECT_EQ(coerced(ColumnType::kReal, text("1.5")), "(1.5,)");
  EXPECT_EQ(coerced(ColumnType::kReal, text("x")), "cannot store TEXT value in REAL column t.c");
  EXPECT_EQ(coerced(ColumnType::kText, integer(5)), "('5',)");
  EXPECT_EQ(coerced(ColumnType::kText, real(0.5)), "('0.5',)");
  EXPECT_EQ(coerced(ColumnType::kText, blob("x")), "cannot store BLOB value in TEXT column t.c");
  EXPECT_EQ(coerced(ColumnType::kBlob, blob(std::string_view("a\0b", 3))), "(b'a\\x00b',)");
  EXPECT_EQ(coerced(ColumnType::kBlob, integer(1)), "cannot store INT value in BLOB column t.c");
  EXPECT_EQ(coerced(ColumnType::kAny, text("5")), "('5',)");
  EXPECT_EQ(coerced(ColumnType::kAny, real(-0.0)), "(-0.0,)");  // no affinity: kept, as SQLite keeps it
  EXPECT_EQ(coerced(ColumnType::kText, SqlValue()), "(None,)");
}

struct Fixture {
  MemoryStore store;
  TableSchema schema;
  TableLayout layout;
  std::vector<Bytes> cells;

  explicit Fixture(const std::vector<std::string>& args) {
    EXPECT_TRUE(parse(args, &schema).ok());
    layout = *TableLayout::make(schema, "users");
  }
  // Packs one row of values into per-column elements.
  TableLayout::Elements row(const std::vector<SqlValue>& values) {
    cells.assign(values.size(), Bytes());
    TableLayout::Elements e;
    for (size_t i = 0; i < values.size(); ++i) {
      EXPECT_TRUE(append_element(values[i], &cells[i]).ok());
      e.push_back(cells[i]);
    }
    return e;
  }
  std::string dump() {
    std::string out;
    auto c = store.scan(KeyRange{"", ""}, ScanOptions());
    for (; (*c)->valid(); (*c)->next()) {
      Tuple k, v;
      EXPECT_TRUE(unpack((*c)->key(), &k).ok());
      EXPECT_TRUE(unpack((*c)->value(), &v).ok());
      out += repr(k) + "=" + repr(v) + "\n";
    }
    return out;
  }
};

TEST(TableRowsTest, LayoutIndexesMovesCheckAndRebuild) {
  Fixture f({"user_id INTEGER", "name TEXT", "region TEXT", "PRIMARY KEY(user_id)",
             "INDEX region_idx(region)"});
  TableRows rows(&f.store, &f.layout);
  TableLayout::Elements r1 = f.row({integer(1), text("ann"), text("eu")});
  Bytes k1 = Bytes(r1[0]);
  ASSERT_TRUE(rows.put(r1, k1, nullptr, {}).ok());
  TableLayout::Elements r2 = f.row({integer(2), text("bob"), text("us")});
  Bytes k2 = Bytes(r2[0]);
  ASSERT_TRUE(rows.put(r2, k2, nullptr, {}).ok());
  EXPECT_EQ(f.dump(),
            "('region_idx', 'eu', 1)=()\n"
            "('region_idx', 'us', 2)=()\n"
            "('users', 1)=('ann', 'eu')\n"
            "('users', 2)=('bob', 'us')\n");
  // Moving row 2 to key 3 in region 'eu': its entry follows.
  std::vector<Bytes> old_cells = f.cells;
  TableLayout::Elements old = {old_cells[0], old_cells[1], old_cells[2]};
  TableLayout::Elements r3 = f.row({integer(3), text("bob"), text("eu")});
  Bytes k3 = Bytes(r3[0]);
  ASSERT_TRUE(rows.put(r3, k3, &old, k2).ok());
  EXPECT_EQ(f.dump(),
            "('region_idx', 'eu', 1)=()\n"
            "('region_idx', 'eu', 3)=()\n"
            "('users', 1)=('ann', 'eu')\n"
            "('users', 3)=('bob', 'eu')\n");
  std::string problem;
  ASSERT_TRUE(rows.check("users", &problem).ok());
  EXPECT_EQ(problem, "");

  // Damage: a stray entry, then a missing one.
  Bytes stray;
  ASSERT_TRUE(pack({TupleValue::string("region_idx"), TupleValue::string("zz"),
                    TupleValue::int64(9)},
                   &stray)
                  .ok());
  ASSERT_TRUE(f.store.set(stray, "").ok());
  ASSERT_TRUE(rows.check("users", &problem).ok());
  EXPECT_EQ(problem, "users: index region_idx entry ('region_idx', 'zz', 9) has no row");
  uint64_t changed = 0;
  ASSERT_TRUE(rows.rebuild("t", &changed).ok());
  EXPECT_EQ(changed, 1u);
  Bytes entry;
  f.layout.index_key(0, r1, k1, &entry);
  ASSERT_TRUE(f.store.clear(entry).ok());
  ASSERT_TRUE(rows.check("users", &problem).ok());
  EXPECT_EQ(problem, "users: index region_idx has no entry for row ('users', 1)");
  ASSERT_TRUE(rows.rebuild("t", &changed).ok());
  EXPECT_EQ(changed, 1u);
  ASSERT_TRUE(rows.check("users", &problem).ok());
  EXPECT_EQ(problem, "");

  ASSERT_TRUE(rows.erase(r1, k1).ok());
  EXPECT_EQ(f.dump(),
            "('region_idx', 'eu', 3)=()\n"
            "('users', 3)=('bob', 'eu')\n");
}

// The check reads every key a scan of the table can meet, and decodes every
// column as a read returning it does: damage a SELECT fails on is damage
// the check names.
TEST(TableRowsTest, CheckFindsWhatReadsWouldFailOn) {
  Fixture f({"user_id INTEGER", "name TEXT", "region TEXT", "PRIMARY KEY(user_id)",
             "INDEX region_idx(region)"});
  TableRows rows(&f.store, &f.layout);
  TableLayout::Elements r1 = f.row({integer(1), text("ann"), text("eu")});
  const Bytes k1 = Bytes(r1[0]);
  ASSERT_TRUE(rows.put(r1, k1, nullptr, {}).ok());
  std::string problem;
  ASSERT_TRUE(rows.check("users", &problem).ok());
  ASSERT_EQ(problem, "");

  // A name that is not UTF-8: framed like any string, refused when decoded.
  Bytes key;
  f.layout.row_key(r1, {}, &key);
  ASSERT_TRUE(f.store.set(key, Bytes("\x02" "an\xff" "\x00\x02" "eu\x00", 9)).ok());
  ASSERT_TRUE(rows.check("users", &problem).ok());
  EXPECT_EQ(problem.rfind("users: row ('users', 1): table: column name: tuple: invalid UTF-8", 0), 0u)
      << problem;
  // A user type element decodes, but no write makes one, and it cannot
  // stand inside an index entry (it runs to the end of its tuple).
  ASSERT_TRUE(f.store.set(key, Bytes("\x02" "ann\x00\x4b\x91", 7)).ok());
  ASSERT_TRUE(rows.check("users", &problem).ok());
  EXPECT_EQ(problem, "users: row ('users', 1): table: column region (TEXT) holds a user element");
  f.layout.row_value(r1, &f.cells[0]);
  ASSERT_TRUE(f.store.set(key, f.cells[0]).ok());
  ASSERT_TRUE(rows.check("users", &problem).ok());
  ASSERT_EQ(problem, "");

  // The bare prefix, which the tuple range of the subspace leaves out but
  // a scan of the table reads.
  ASSERT_TRUE(f.store.set(f.layout.row_prefix(), f.cells[0]).ok());
  ASSERT_TRUE(rows.check("users", &problem).ok());
  EXPECT_EQ(problem, "users: row ('users',): table: a row key with the wrong number of key elements");
  ASSERT_TRUE(f.store.clear(f.layout.row_prefix()).ok());
  // So are keys past prefix + FF, and index entries likewise.
  ASSERT_TRUE(f.store.set(f.layout.row_prefix() + "\xff", f.cells[0]).ok());
  ASSERT_TRUE(rows.check("users", &problem).ok());
  EXPECT_EQ(problem.rfind("users: row ", 0), 0u) << problem;
  ASSERT_TRUE(f.store.clear(f.layout.row_prefix() + "\xff").ok());
  ASSERT_TRUE(f.store.set(f.layout.index_prefix(0), "").ok());
  ASSERT_TRUE(rows.check("users", &problem).ok());
  EXPECT_EQ(problem.rfind("users: index region_idx entry ('region_idx',): ", 0), 0u) << problem;
  uint64_t changed = 0;
  ASSERT_TRUE(rows.rebuild("t", &changed).ok());
  EXPECT_EQ(changed, 1u);
  ASSERT_TRUE(rows.check("users", &problem).ok());
  EXPECT_EQ(problem, "");
}

TEST(TableRowsTest, SplitRowAndCorruption) {
  Fixture f({"a TEXT", "b INTEGER", "c", "PRIMARY KEY(b, a)"});
  TableLayout::Elements r = f.row({text("x"), integer(5), SqlValue()});
  Bytes key, value;
  f.layout.row_key(r, {}, &key);
  f.layout.row_value(r, &value);
  TableLayout::Elements back;
  BytesView ke;
  ASSERT_TRUE(f.layout.split_row(key, value, &back, &ke).ok());
  EXPECT_EQ(back[0], r[0]);
  EXPECT_EQ(back[1], r[1]);
  EXPECT_EQ(back[2], r[2]);
  EXPECT_EQ(ke, BytesView(key).substr(f.layout.row_prefix().size()));
  EXPECT_EQ(f.layout.split_row(key, value + "\x14", &back, &ke).code(), StatusCode::kCorruption);
  EXPECT_EQ(f.layout.split_row(key + "\x14", value, &back, &ke).code(), StatusCode::kCorruption);
  EXPECT_EQ(f.layout.split_row(key, "\x02", &back, &ke).code(), StatusCode::kCorruption);
}

// Sample row k (of kSampleRows) of a fixture's schema: text with and
// without NULs and non-ASCII, integers, NULL, a real and BLOBs, rotated
// across the columns, with NULL in a key column replaced by k.
constexpr size_t kSampleRows = 9;
TableLayout::Elements sample_row(Fixture* f, size_t k) {
  // SqlValues view their bytes: these outlive every row.
  static const std::string with_nul("n\0ul", 4), nul_ff("\0\xff", 2);
  const std::vector<SqlValue> samples = {text("x"), text("A\xc3\xa9"), text(with_nul),
                                         integer(5), integer(-300), SqlValue(), real(2.5),
                                         blob(nul_ff), blob("")};
  const std::vector<int>& key = f->layout.schema().key;
  std::vector<SqlValue> vals;
  for (size_t c = 0; c < f->layout.schema().columns.size(); ++c) {
    const bool keyed = std::find(key.begin(), key.end(), static_cast<int>(c)) != key.end();
    const SqlValue& v = samples[(k + c) % kSampleRows];
    vals.push_back(keyed && v.kind == SqlValue::Kind::kNull ? integer(static_cast<int64_t>(k)) : v);
  }
  return f->row(vals);
}

// Column c's scalar holds what decode_scalar_element makes of its
// element, and is marked a scalar exactly when that decodes it.
void expect_decoded_as_scalar(const TableLayout::ColumnScalar& s, BytesView element, size_t c) {
  ScalarElement direct;
  const bool scalar = decode_scalar_element(element, &direct);
  EXPECT_EQ(s.as != FramedAs::kOther && (s.as == FramedAs::kScalar || scalar_text_is_valid(s.element)), scalar)
      << c;
  if (scalar) {
    EXPECT_EQ(s.element.type, direct.type) << c;
    EXPECT_EQ(s.element.int_value, direct.int_value) << c;
    EXPECT_EQ(s.element.payload, direct.payload) << c;
  }
}

// read_row splits exactly as split_row does, and decodes what
// decode_scalar_element would: for plain and collated keys, an implicit
// key, escapes and non-scalar values; and refuses the same damaged rows.
void expect_read_row_matches_split_row(const TableLayout& layout, BytesView key, BytesView value) {
  TableLayout::Elements split, read;
  TableLayout::Scalars scalars;
  BytesView split_ke, read_ke;
  const Status want = layout.split_row(key, value, &split, &split_ke);
  const Status got = layout.read_row(key, value, &read, &scalars, &read_ke);
  ASSERT_EQ(got.code(), want.code()) << got.message() << " / " << want.message();
  if (!want.ok()) {
    EXPECT_EQ(got.message(), want.message());
    return;
  }
  EXPECT_EQ(read_ke, split_ke);
  ASSERT_EQ(read.size(), split.size());
  ASSERT_EQ(scalars.size(), split.size());
  for (size_t c = 0; c < split.size(); ++c) {
    EXPECT_EQ(read[c], split[c]) << c;
    expect_decoded_as_scalar(scalars[c], split[c], c);
  }
}

// Reading a row column by column (start_row, read_column, read_key), in
// `order`, gives each column what read_row gives it, and fails where
// read_row fails with its message: a row damaged in one part only.
void expect_partial_row_matches_read_row(const TableLayout& layout, BytesView key, BytesView value,
                                         const std::vector<int>& order) {
  const size_t n = layout.schema().columns.size();
  TableLayout::Elements want_row;
  TableLayout::Scalars want_scalars;
  BytesView want_ke;
  const Status want = layout.read_row(key, value, &want_row, &want_scalars, &want_ke);
  TableLayout::Elements row(n);
  TableLayout::Scalars scalars(n);
  TableLayout::PartialRow p;
  BytesView ke;
  Status got = layout.start_row(key, value, &p, &ke);
  for (size_t k = 0; got.ok() && k < order.size(); ++k) got = layout.read_column(order[k], &p, &row, &scalars);
  if (got.ok()) got = layout.read_key(&p, &row, &scalars);
  ASSERT_EQ(got.code(), want.code()) << got.message() << " / " << want.message();
  if (!want.ok()) {
    EXPECT_EQ(got.message(), want.message());
    return;
  }
  EXPECT_EQ(ke, want_ke);
  for (size_t c = 0; c < n; ++c) {
    EXPECT_EQ(row[c], want_row[c]) << c;
    EXPECT_EQ(scalars[c].as, want_scalars[c].as) << c;
    EXPECT_EQ(scalars[c].element.type, want_scalars[c].element.type) << c;
    EXPECT_EQ(scalars[c].element.int_value, want_scalars[c].element.int_value) << c;
    EXPECT_EQ(scalars[c].element.payload, want_scalars[c].element.payload) << c;
  }
}

TEST(TableRowsTest, ReadRowSplitsAsSplitRowAndDecodesScalars) {
  const std::vector<std::vector<std::string>> schemas = {
      {"a TEXT", "b INTEGER", "c", "d REAL", "e BLOB", "PRIMARY KEY(b, a)"},
      {"name TEXT COLLATE NOCASE", "n INTEGER", "v", "PRIMARY KEY(name, n)"},
      {"x", "y TEXT"},
  };
  for (const auto& decl : schemas) {
    Fixture f(decl);
    const size_t n = f.layout.schema().columns.size();
    for (size_t k = 0; k < kSampleRows; ++k) {
      TableLayout::Elements r = sample_row(&f, k);
      Bytes key, value, rowid;
      ASSERT_TRUE(append_element(integer(static_cast<int64_t>(k)), &rowid).ok());
      f.layout.row_key(r, rowid, &key);
      f.layout.row_value(r, &value);
      SCOPED_TRACE(decl[0] + " sample " + std::to_string(k));
      expect_read_row_matches_split_row(f.layout, key, value);
      // Damaged rows fail alike.
      expect_read_row_matches_split_row(f.layout, key, value + "\x14");
      expect_read_row_matches_split_row(f.layout, key + "\x14", value);
      expect_read_row_matches_split_row(f.layout, key, "\x02");
      expect_read_row_matches_split_row(f.layout, key.substr(0, key.size() - 1), value);
      expect_read_row_matches_split_row(f.layout, "\x01", value);
      // Column by column, forwards and backwards, whole and damaged.
      std::vector<int> order(n);
      for (size_t c = 0; c < n; ++c) order[c] = static_cast<int>(c);
      for (int pass = 0; pass < 2; ++pass) {
        expect_partial_row_matches_read_row(f.layout, key, value, order);
        expect_partial_row_matches_read_row(f.layout, key, value + "\x14", order);
        expect_partial_row_matches_read_row(f.layout, key + "\x14", value, order);
        expect_partial_row_matches_read_row(f.layout, key, "\x02", order);
        expect_partial_row_matches_read_row(f.layout, key.substr(0, key.size() - 1), value, order);
        expect_partial_row_matches_read_row(f.layout, "\x01", value, order);
        std::reverse(order.begin(), order.end());
      }
    }
  }
}

// A row read column by column looks only at the parts those columns are
// in: damage elsewhere goes unseen until a column there (or the key) is read.
TEST(TableRowsTest, APartialRowFramesOnlyThePartsItsColumnsAreIn) {
  Fixture f({"a TEXT", "b INTEGER", "c", "d REAL", "PRIMARY KEY(b, a)"});
  TableLayout::Elements r = f.row({text("x"), integer(5), real(2.5), integer(7)});
  Bytes key, value;
  f.layout.row_key(r, {}, &key);
  f.layout.row_value(r, &value);
  const size_t n = f.layout.schema().columns.size();
  TableLayout::Elements row(n);
  TableLayout::Scalars scalars(n);
  TableLayout::PartialRow p;
  BytesView ke;
  // c alone of a row whose value has one element too many and whose key is
  // cut short: c is the value's first element.
  const Bytes long_value = value + "\x14";
  const Bytes short_key = key.substr(0, key.size() - 1);
  ASSERT_TRUE(f.layout.start_row(short_key, long_value, &p, &ke).ok());
  ASSERT_TRUE(f.layout.read_column(2, &p, &row, &scalars).ok());
  EXPECT_EQ(row[2], r[2]);
  EXPECT_EQ(scalars[2].element.type, ElementType::kDouble);
  EXPECT_EQ(p.framed[0], 0u);
  EXPECT_EQ(p.framed[1], 1u);
  EXPECT_EQ(f.layout.read_column(3, &p, &row, &scalars).message(),
            "table: a row value with the wrong number of columns");
  EXPECT_EQ(f.layout.read_column(0, &p, &row, &scalars).message(),
            "table: a row key with the wrong number of key elements");
  // b is the key's first element: read without reaching the cut.
  ASSERT_TRUE(f.layout.start_row(short_key, value, &p, &ke).ok());
  ASSERT_TRUE(f.layout.read_column(1, &p, &row, &scalars).ok());
  EXPECT_EQ(scalars[1].element.int_value, 5);
  EXPECT_EQ(f.layout.read_key(&p, &row, &scalars).message(),
            "table: a row key with the wrong number of key elements");
  EXPECT_EQ(f.layout.start_row(Bytes("\x01"), value, &p, &ke).message(),
            "table: a row key outside the table's subspace");
}

TEST(TableRowsTest, CollatedKeysHoldCollationKeysAndTheRowItsValues) {
  Fixture f({"name TEXT COLLATE NOCASE", "n INTEGER", "tag TEXT COLLATE RTRIM", "v",
             "PRIMARY KEY(name, n)", "INDEX by_tag(tag)"});
  TableRows rows(&f.store, &f.layout);
  TableLayout::Elements r = f.row({text("Ann"), integer(1), text("x  "), integer(7)});
  Bytes ke;
  f.layout.make_key_elements(r, &ke);
  ASSERT_TRUE(rows.put(r, ke, nullptr, {}).ok());
  EXPECT_EQ(f.dump(),
            "('by_tag', 'x', 'ann', 1)=()\n"
            "('users', 'ann', 1)=('x  ', 7, 'Ann')\n");
  Bytes key, value;
  f.layout.row_key(r, {}, &key);
  f.layout.row_value(r, &value);
  TableLayout::Elements back;
  BytesView back_ke;
  ASSERT_TRUE(f.layout.split_row(key, value, &back, &back_ke).ok());
  for (size_t c = 0; c < r.size(); ++c) EXPECT_EQ(back[c], r[c]) << c;
  EXPECT_EQ(back_ke, BytesView(ke));
  std::string problem;
  ASSERT_TRUE(rows.check("users", &problem).ok());
  EXPECT_EQ(problem, "");

  // 'ANN' is the same key: the row is rewritten in place, its entry kept.
  TableLayout::Elements r2 = f.row({text("ANN"), integer(1), text("x"), integer(8)});
  Bytes ke2;
  f.layout.make_key_elements(r2, &ke2);
  EXPECT_EQ(ke2, ke);
  ASSERT_TRUE(rows.put(r2, ke2, &back, ke).ok());
  EXPECT_EQ(f.dump(),
            "('by_tag', 'x', 'ann', 1)=()\n"
            "('users', 'ann', 1)=('x', 8, 'ANN')\n");

  // A row whose key does not hold the collation key of its value.
  Bytes bad_key = f.layout.row_prefix();
  ASSERT_TRUE(append_element(text("Bob"), &bad_key).ok());
  ASSERT_TRUE(append_element(integer(2), &bad_key).ok());
  Bytes bad_value;
  TableLayout::Elements r3 = f.row({text("Bob"), integer(2), text("y"), integer(9)});
  f.layout.row_value(r3, &bad_value);
  ASSERT_TRUE(f.store.set(bad_key, bad_value).ok());
  ASSERT_TRUE(rows.check("users", &problem).ok());
  EXPECT_EQ(problem, "users: row ('users', 'Bob', 2) is not keyed by the values it holds");
}

TEST(TableRowsTest, SplitIndexAndCorruption) {
  Fixture f({"a TEXT", "b INTEGER", "c", "PRIMARY KEY(b, a)", "INDEX by_c(c, a)"});
  TableLayout::Elements r = f.row({text("x"), integer(5), real(2.5)});
  Bytes key;
  f.layout.row_key(r, {}, &key);
  const BytesView key_elements = BytesView(key).substr(f.layout.row_prefix().size());
  Bytes entry;
  f.layout.index_key(0, r, key_elements, &entry);
  TableLayout::Elements indexed, parts;
  BytesView ke;
  ASSERT_TRUE(f.layout.split_index(0, entry, &indexed, &ke, &parts).ok());
  ASSERT_EQ(indexed.size(), 2u);
  EXPECT_EQ(indexed[0], r[2]);
  EXPECT_EQ(indexed[1], r[0]);
  EXPECT_EQ(ke, key_elements);
  ASSERT_EQ(parts.size(), 2u);  // in key order: b, a
  EXPECT_EQ(parts[0], r[1]);
  EXPECT_EQ(parts[1], r[0]);
  ASSERT_TRUE(f.layout.split_index(0, entry, &indexed, &ke).ok());  // parts optional
  // An extra or a missing key element, a truncated element, a foreign prefix.
  EXPECT_EQ(f.layout.split_index(0, entry + "\x14", &indexed, &ke).code(), StatusCode::kCorruption);
  EXPECT_EQ(f.layout.split_index(0, entry.substr(0, entry.size() - 1), &indexed, &ke).code(),
            StatusCode::kCorruption);
  Bytes short_entry = entry.substr(0, entry.size() - r[0].size());
  EXPECT_EQ(f.layout.split_index(0, short_entry, &indexed, &ke).code(), StatusCode::kCorruption);
  EXPECT_EQ(f.layout.split_index(0, key, &indexed, &ke).code(), StatusCode::kCorruption);
}

// read_index_entry puts into each column the element split_index gives it
// (the indexed value, or the key part where the column is keyed), decodes
// what decode_scalar_element would, leaves other columns alone, and
// refuses the damaged entries split_index refuses with the same message.
void expect_read_index_entry_matches_split_index(const TableLayout& layout, size_t i, BytesView entry) {
  TableLayout::Elements indexed, parts;
  BytesView split_ke;
  const Status want = layout.split_index(i, entry, &indexed, &split_ke, &parts);
  const size_t n = layout.schema().columns.size();
  const BytesView untouched("untouched");
  TableLayout::Elements read(n, untouched);
  TableLayout::Scalars scalars(n);
  BytesView read_ke;
  const Status got = layout.read_index_entry(i, entry, &read, &scalars, &read_ke);
  ASSERT_EQ(got.code(), want.code()) << got.message() << " / " << want.message();
  if (!want.ok()) {
    EXPECT_EQ(got.message(), want.message());
    return;
  }
  EXPECT_EQ(read_ke, split_ke);
  TableLayout::Elements expected(n, untouched);
  const std::vector<int>& cols = layout.schema().indexes[i].columns;
  for (size_t k = 0; k < cols.size(); ++k) expected[static_cast<size_t>(cols[k])] = indexed[k];
  const std::vector<int>& key = layout.schema().key;
  for (size_t k = 0; k < key.size(); ++k) expected[static_cast<size_t>(key[k])] = parts[k];
  ASSERT_EQ(read.size(), n);
  for (size_t c = 0; c < n; ++c) {
    EXPECT_EQ(read[c], expected[c]) << c;
    if (read[c] == untouched) {
      EXPECT_EQ(scalars[c].as, FramedAs::kOther) << c;
      continue;
    }
    expect_decoded_as_scalar(scalars[c], read[c], c);
  }
}

TEST(TableRowsTest, ReadIndexEntrySplitsAsSplitIndexAndDecodesScalars) {
  const std::vector<std::vector<std::string>> schemas = {
      {"a TEXT", "b INTEGER", "c", "d REAL", "PRIMARY KEY(b, a)", "INDEX by_c(c, a)", "INDEX by_d(d)"},
      {"name TEXT COLLATE NOCASE", "n INTEGER", "v", "PRIMARY KEY(name, n)", "INDEX by_v(v, name)"},
      {"x", "y TEXT", "INDEX by_y(y)"},
  };
  for (const auto& decl : schemas) {
    Fixture f(decl);
    for (size_t k = 0; k < kSampleRows; ++k) {
      TableLayout::Elements r = sample_row(&f, k);
      Bytes key_elements;
      if (f.layout.schema().key.empty()) {
        ASSERT_TRUE(append_element(integer(static_cast<int64_t>(k)), &key_elements).ok());
      } else {
        f.layout.make_key_elements(r, &key_elements);
      }
      for (size_t i = 0; i < f.layout.schema().indexes.size(); ++i) {
        Bytes entry;
        f.layout.index_key(i, r, key_elements, &entry);
        SCOPED_TRACE(decl[0] + " sample " + std::to_string(k) + " index " + std::to_string(i));
        expect_read_index_entry_matches_split_index(f.layout, i, entry);
        // Damaged entries fail alike.
        expect_read_index_entry_matches_split_index(f.layout, i, entry + "\x14");
        expect_read_index_entry_matches_split_index(f.layout, i, entry.substr(0, entry.size() - 1));
        expect_read_index_entry_matches_split_index(f.layout, i, entry.substr(0, f.layout.index_prefix(i).size()));
        expect_read_index_entry_matches_split_index(f.layout, i, f.layout.index_prefix(i) + "\x02y\x00\x02z\x00");
        expect_read_index_entry_matches_split_index(f.layout, i, "\x01");
      }
    }
  }
}

TEST(TableRowsTest, IndexEntriesMapToTheirRows) {
  Fixture f({"a TEXT", "b INTEGER", "c", "PRIMARY KEY(b, a)", "INDEX by_c(c, a)", "INDEX by_b(b)"});
  TableLayout::Elements r = f.row({text("x"), integer(5), real(2.5)});
  for (const char* subspace : {"first", "renamed"}) {
    ASSERT_TRUE(f.layout.rebind(subspace).ok());
    Bytes key;
    f.layout.row_key(r, {}, &key);
    const BytesView key_elements = BytesView(key).substr(f.layout.row_prefix().size());
    for (size_t i = 0; i < 2; ++i) {
      Bytes entry, mapped;
      f.layout.index_key(i, r, key_elements, &entry);
      ASSERT_TRUE(map_key(f.layout.index_to_row(i), entry, &mapped)) << subspace << " " << i;
      EXPECT_EQ(to_hex(mapped), to_hex(key)) << subspace << " " << i;
    }
  }
}

TEST(TableRowsTest, SplitIndexOfAnImplicitKeyNeedsAnInteger) {
  Fixture f({"a TEXT", "INDEX by_a(a)"});
  TableLayout::Elements r = f.row({text("x")});
  Bytes entry;
  f.layout.index_key(0, r, "\x15\x07", &entry);
  TableLayout::Elements indexed;
  BytesView ke;
  ASSERT_TRUE(f.layout.split_index(0, entry, &indexed, &ke).ok());
  EXPECT_EQ(ke, "\x15\x07");
  entry.clear();
  f.layout.index_key(0, r, std::string_view("\x02y\x00", 3), &entry);
  EXPECT_EQ(f.layout.split_index(0, entry, &indexed, &ke).code(), StatusCode::kCorruption);
}

}  // namespace
}  // namespace tuplekv::model
