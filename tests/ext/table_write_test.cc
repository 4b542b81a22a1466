// tuplekv_table's writes (ext/table_write.cc) through SQLite, for both
// stores, against the native reference (STRICT, WITHOUT ROWID; a STRICT
// rowid table where there is no PRIMARY KEY) wherever SQLite's own table is
// the contract. A written row is checked whole before anything is stored,
// in SQLite's order: NOT NULL (with the DEFAULTs the table applies itself),
// the column types, then the uniqueness of the key and of each unique
// index, settled by the conflict clause; so a refused row leaves no row
// and no index entry behind, and SQLite's messages and codes come through.
// OR REPLACE deletes every row in the way; a key that moves takes its
// index entries along, and a key set to itself is no conflict; an implicit
// key is assigned as SQLite assigns rowids. A statement that fails is
// undone whole, inside a transaction too, and the statements before it
// stay. Where tuplekv differs from SQLite's own table on purpose, the
// README is the contract ("Type errors", "What SQLite does not tell a
// virtual table"). Declarations, scans and transactions as a whole:
// table_vtab_test.cc.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "ext/sqlite_store.h"
#include "tests/ext/table_vtab_fixture.h"
#include "tests/testutil.h"

namespace tuplekv::testing {
namespace {

using ::testing::HasSubstr;

class TableWriteTest : public TableVtabFixture {
 protected:
  // "ok", or the message `tmpl` fails with on `table`, the table's name in
  // it written @T, so that the tables' outcomes compare.
  std::string outcome(const std::string& tmpl, const std::string& table) {
    const std::string sql = on(tmpl, table);
    if (sqlite3_exec(db_.handle(), sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK) {
      return "ok";
    }
    std::string message = sqlite3_errmsg(db_.handle());
    const std::string named = " " + table + ".";
    for (size_t at = message.find(named); at != std::string::npos; at = message.find(named, at)) {
      message.replace(at + 1, table.size(), "@T");
    }
    return message;
  }
};

INSTANTIATE_TEST_SUITE_P(Stores, TableWriteTest, ::testing::Values("sqlite", "memory"));

TEST_P(TableWriteTest, StrictValuesAndMessages) {
  EXPECT_EQ(db_.error("INSERT INTO users VALUES ('x', 'a', 'b')"),
            "cannot store TEXT value in INTEGER column users.user_id");
  EXPECT_EQ(db_.error_code("INSERT INTO users VALUES (9, x'00', 'b')"), SQLITE_CONSTRAINT_DATATYPE);
  EXPECT_EQ(db_.error("INSERT INTO users VALUES (NULL, 'a', 'b')"),
            "NOT NULL constraint failed: users.user_id");
  EXPECT_EQ(db_.error_code("INSERT INTO users VALUES (1, 'a', 'b')"), SQLITE_CONSTRAINT_PRIMARYKEY);
  EXPECT_EQ(db_.error("INSERT INTO users VALUES (1, 'a', 'b')"), "UNIQUE constraint failed: users.user_id");
  ASSERT_TRUE(db_.exec("INSERT INTO users VALUES ('10', 12, 3.0), (11.0, 1.5, NULL)"));
  EXPECT_EQ(db_.rows("SELECT quote(user_id), quote(name), quote(region) FROM users WHERE user_id >= 10"),
            (Rows{{"10", "'12'", "'3.0'"}, {"11", "'1.5'", "NULL"}}));
  EXPECT_EQ(db_.error("INSERT INTO users VALUES (1, 'a', 'b') ON CONFLICT DO NOTHING"),
            "UPSERT not implemented for virtual table \"users\"");
  EXPECT_EQ(db_.error("INSERT INTO users(raw_key, user_id) VALUES (x'00', 5)"),
            "tuplekv_table: raw_key is the stored key of users, it cannot be written");
  // Nor by UPDATE (it was once ignored, the statement counted as done);
  // assigning it its own value is no change.
  const Rows before = db_.rows("SELECT user_id, name, region FROM users ORDER BY user_id");
  EXPECT_EQ(db_.error("UPDATE users SET raw_key = x'00', region = 'x' WHERE user_id >= 10"),
            "tuplekv_table: raw_key is the stored key of users, it cannot be written");
  EXPECT_EQ(db_.rows("SELECT user_id, name, region FROM users ORDER BY user_id"), before);
  ASSERT_TRUE(db_.exec("UPDATE users SET raw_key = raw_key, region = 'x' WHERE user_id = 10"));
  EXPECT_EQ(db_.value("SELECT region FROM users WHERE user_id = 10"), "x");
}

// As in the WITHOUT ROWID reference, INTEGER PRIMARY KEY is no rowid alias:
// a NULL or a missing value is a NOT NULL error, never an assigned key.
TEST_P(TableWriteTest, IntegerPrimaryKeyIsNoRowidAlias) {
  ASSERT_NO_FATAL_FAILURE(create_with_native("ipk", "id INTEGER PRIMARY KEY, x TEXT", "", "",
                                             " VALUES (1, 'a')"));
  for (const char* tmpl : {"INSERT INTO @T VALUES (NULL, 'b')", "INSERT INTO @T(x) VALUES ('c')"}) {
    const std::string native = db_.error(on(tmpl, "n"));
    EXPECT_EQ(native, "NOT NULL constraint failed: n.id") << tmpl;
    EXPECT_EQ(db_.error(on(tmpl, "ipk")), "NOT NULL constraint failed: ipk.id") << tmpl;
  }
  expect_as_native("SELECT id, x FROM @T", "ipk");
  EXPECT_EQ(db_.error("SELECT rowid FROM ipk"), "no such column: rowid");
}

// SQLite keeps any bytes as TEXT; a tuple string is UTF-8, so such text is
// refused by name and the statement writes nothing (README).
TEST_P(TableWriteTest, TextThatIsNotUtf8IsRefusedAndWritesNothing) {
  ASSERT_TRUE(db_.exec("CREATE VIRTUAL TABLE a USING tuplekv_table(k ANY, v ANY, PRIMARY KEY(k)" +
                       store_option() + ")"));
  ASSERT_TRUE(db_.exec("INSERT INTO a VALUES (1, x'ff')"));
  EXPECT_EQ(db_.error("INSERT INTO users VALUES (7, 'x', 'eu'), (8, CAST(x'ff' AS TEXT), 'eu')"),
            "tuplekv_table: TEXT value for users.name is not valid UTF-8");
  EXPECT_EQ(db_.error("UPDATE a SET k = v || 'x'"), "tuplekv_table: TEXT value for a.k is not valid UTF-8");
  EXPECT_EQ(db_.rows("SELECT count(*) FROM users WHERE user_id > 4"), (Rows{{"0"}}));
  EXPECT_EQ(db_.rows("SELECT k, hex(v) FROM a"), (Rows{{"1", "FF"}}));
  // Valid text, NUL included, is stored as written.
  ASSERT_TRUE(db_.exec("UPDATE a SET v = CAST(x'61006263' AS TEXT)"));
  EXPECT_EQ(db_.rows("SELECT typeof(v), hex(v) FROM a"), (Rows{{"text", "61006263"}}));
}

// OR REPLACE puts a NOT NULL column's DEFAULT in place of a NULL; SQLite
// fails on a DEFAULT that is NULL only after it has checked every column
// without one, so the message names the first of those.
TEST_P(TableWriteTest, NotNullUnderOrReplaceNamesTheColumnSqliteNames) {
  create_with_native("nn", "a INTEGER NOT NULL DEFAULT NULL, k INTEGER DEFAULT NULL, d ANY, b TEXT NOT NULL DEFAULT 'b', "
                     "c INTEGER NOT NULL, PRIMARY KEY(k, d)",
                     "", "", "(a, k, d, c) VALUES (1, 1, 1, 1)");
  for (const char* sql : {"REPLACE INTO @T(c) VALUES (NULL)", "REPLACE INTO @T(c) VALUES (7)",
                          "REPLACE INTO @T(d, c) VALUES (2, 7)", "REPLACE INTO @T(k, d, c) VALUES (2, 2, 7)",
                          "INSERT INTO @T(c) VALUES (7)", "INSERT OR REPLACE INTO @T(a, k, d) VALUES (5, 2, 2)",
                          "UPDATE OR REPLACE @T SET a = NULL, c = NULL", "UPDATE OR REPLACE @T SET a = NULL, k = NULL"}) {
    SCOPED_TRACE(sql);
    const std::string native = db_.error(on(sql, "n"));
    ASSERT_THAT(native, HasSubstr("NOT NULL constraint failed: n."));
    EXPECT_EQ(db_.error(on(sql, "nn")), "NOT NULL constraint failed: nn." + native.substr(native.rfind('.') + 1));
  }
  expect_as_native("SELECT a, k, d, b, c FROM @T ORDER BY k", "nn");
}

// SQLite makes a new rowid an integer before it checks any constraint: a
// value that is none, NULL included, is a datatype mismatch, which no
// conflict clause skips and which leaves the transaction open.
TEST_P(TableWriteTest, ARowidSetToNullIsADatatypeMismatchAsInSqlite) {
  ASSERT_TRUE(db_.exec("CREATE VIRTUAL TABLE r USING tuplekv_table(x INT NOT NULL" + store_option() +
                       "); CREATE TABLE n(x INT NOT NULL) STRICT;"
                       "INSERT INTO r VALUES (1), (2), (3); INSERT INTO n VALUES (1), (2), (3)"));
  for (const char* tmpl : {"UPDATE @T SET rowid = NULL WHERE x = 1", "UPDATE OR IGNORE @T SET rowid = NULL",
                           "UPDATE OR REPLACE @T SET rowid = NULL, x = NULL WHERE x = 2",
                           "UPDATE @T SET rowid = 'abc', x = NULL WHERE x = 3"}) {
    SCOPED_TRACE(tmpl);
    EXPECT_EQ(db_.error(on(tmpl, "n")), "datatype mismatch");
    EXPECT_EQ(db_.error(on(tmpl, "r")), "datatype mismatch");
    EXPECT_EQ(db_.error_code(on(tmpl, "r")), SQLITE_MISMATCH);
  }
  ASSERT_TRUE(db_.exec("BEGIN"));
  EXPECT_EQ(db_.error("UPDATE OR ROLLBACK r SET rowid = NULL WHERE x = 3"), "datatype mismatch");
  EXPECT_TRUE(db_.exec("ROLLBACK"));  // still open
  expect_as_native("SELECT rowid, x FROM @T ORDER BY rowid", "r");
  EXPECT_EQ(db_.value("SELECT tuplekv_check('r')"), "ok");
}

// A rowid table checks a new or moved rowid for a conflict before the
// column types (when no CHECK is tested first): where both are wrong, the
// conflict is what SQLite reports, and OR IGNORE skips the row.
TEST_P(TableWriteTest, ARowidConflictComesBeforeATypeError) {
  // (Rowid 0 too: an INSERT that leaves the rowid to the table must not
  // take its unassigned 0 for a conflict.)
  ASSERT_TRUE(db_.exec("CREATE VIRTUAL TABLE rt USING tuplekv_table(a TEXT, b BLOB" + store_option() +
                       "); CREATE TABLE rn(a TEXT, b BLOB) STRICT;"
                       "INSERT INTO rt(rowid, a, b) VALUES (0, 'z', x''), (4, 'a', x'00'), (5, 'b', x'01');"
                       "INSERT INTO rn(rowid, a, b) VALUES (0, 'z', x''), (4, 'a', x'00'), (5, 'b', x'01');"));
  for (const char* tmpl : {"INSERT INTO @T(rowid, a, b) VALUES (4, 'c', 'B')",
                           "INSERT OR FAIL INTO @T(rowid, a, b) VALUES (4, 'c', 'B')",
                           "UPDATE @T SET rowid = 4, b = 'B' WHERE rowid = 5",
                           "INSERT INTO @T(rowid, a, b) VALUES (6, 'c', 'B')",
                           "INSERT INTO @T(a, b) VALUES ('c', 'B')",
                           "INSERT OR IGNORE INTO @T(a, b) VALUES ('c', 'B')",
                           "UPDATE @T SET b = 'B' WHERE rowid = 5"}) {
    std::string native = db_.error(on(tmpl, "rn"));
    native.replace(native.find("rn."), 3, "rt.");
    EXPECT_EQ(db_.error(on(tmpl, "rt")), native) << tmpl;
  }
  EXPECT_EQ(db_.error("INSERT INTO rt(rowid, a, b) VALUES (4, 'c', 'B')"), "UNIQUE constraint failed: rt.rowid");
  for (const char* tmpl : {"INSERT OR IGNORE INTO @T(rowid, a, b) VALUES (4, 'c', 'B')",
                           "UPDATE OR IGNORE @T SET rowid = 4, b = 'B' WHERE rowid = 5"}) {
    ASSERT_TRUE(db_.exec(on(tmpl, "rt"))) << tmpl;
    ASSERT_TRUE(db_.exec(on(tmpl, "rn"))) << tmpl;
  }
  EXPECT_EQ(db_.rows("SELECT rowid, a, hex(b) FROM rt ORDER BY rowid"),
            db_.rows("SELECT rowid, a, hex(b) FROM rn ORDER BY rowid"));
  EXPECT_EQ(db_.value("SELECT tuplekv_check('rt')"), "ok");
}

// Once the largest rowid is taken, SQLite draws random unused positive ones
// (up to 2^62) rather than failing; so does a table without a PRIMARY KEY.
TEST_P(TableWriteTest, ImplicitKeysAfterTheLargestRowidAreRandomAsInSqlite) {
  ASSERT_TRUE(db_.exec("CREATE VIRTUAL TABLE r USING tuplekv_table(v TEXT" + store_option() +
                       "); CREATE TABLE n(v TEXT) STRICT;"
                       "INSERT INTO r(rowid, v) VALUES (9223372036854775807, 'max');"
                       "INSERT INTO n(rowid, v) VALUES (9223372036854775807, 'max')"));
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(db_.exec("INSERT INTO n(v) VALUES ('x" + std::to_string(i) + "');"
                         "INSERT INTO r(v) VALUES ('x" + std::to_string(i) + "')"));
  }
  const std::string shape =
      "SELECT count(*), count(DISTINCT rowid), sum(rowid BETWEEN 1 AND 4611686018427387904), "
      "sum(rowid = 9223372036854775807) FROM @T";
  EXPECT_EQ(db_.rows(on(shape, "r")), (Rows{{"21", "21", "20", "1"}}));
  expect_as_native(shape, "r");
  EXPECT_EQ(db_.value("SELECT rowid = last_insert_rowid() FROM r WHERE v = 'x19'"), "1");
  EXPECT_EQ(db_.value("SELECT tuplekv_check('r')"), "ok");
}

TEST_P(TableWriteTest, ConflictClauses) {
  ASSERT_TRUE(db_.exec("INSERT OR IGNORE INTO users VALUES (1, 'x', 'x'), (5, 'eve', 'eu')"));
  EXPECT_EQ(db_.value("SELECT name FROM users WHERE user_id = 1"), "ann");
  ASSERT_TRUE(db_.exec("INSERT OR REPLACE INTO users VALUES (1, 'ann2', 'us')"));
  EXPECT_EQ(db_.rows("SELECT user_id FROM users WHERE region = 'us'"), (Rows{{"1"}, {"2"}}));
  // ABORT undoes the rows the statement wrote before failing...
  EXPECT_EQ(db_.error_code("INSERT INTO users VALUES (6, 'f', 'eu'), (2, 'dup', 'eu')"),
            SQLITE_CONSTRAINT_PRIMARYKEY);
  EXPECT_EQ(db_.value("SELECT count(*) FROM users WHERE user_id = 6"), "0");
  // ...FAIL keeps them...
  EXPECT_EQ(db_.error_code("INSERT OR FAIL INTO users VALUES (6, 'f', 'eu'), (2, 'dup', 'eu')"),
            SQLITE_CONSTRAINT_PRIMARYKEY);
  EXPECT_EQ(db_.value("SELECT count(*) FROM users WHERE user_id = 6"), "1");
  // ...and ROLLBACK ends the transaction.
  ASSERT_TRUE(db_.exec("BEGIN; INSERT INTO users VALUES (7, 'g', 'eu')"));
  EXPECT_EQ(db_.error_code("INSERT OR ROLLBACK INTO users VALUES (2, 'dup', 'eu')"),
            SQLITE_CONSTRAINT_PRIMARYKEY);
  EXPECT_EQ(db_.value("SELECT count(*) FROM users WHERE user_id = 7"), "0");
  EXPECT_EQ(db_.value("SELECT tuplekv_check('users')"), "ok");
}

TEST_P(TableWriteTest, DuplicateInsertsLeaveNoIndexEntryBehind) {
  // The SQLite store writes a row and its entries in one statement that
  // skips what is present, so a duplicate key's entries must be taken back.
  for (const char* sql : {"INSERT INTO users VALUES (2, 'dup', 'mars')",
                          "INSERT INTO users VALUES (2, 'bob', 'us')",
                          "INSERT INTO users VALUES (2, 'bob', 'eu')"}) {
    EXPECT_EQ(db_.error_code(sql), SQLITE_CONSTRAINT_PRIMARYKEY) << sql;
  }
  ASSERT_TRUE(db_.exec("INSERT OR IGNORE INTO users VALUES (3, 'x', 'mars'), (9, 'ida', 'mars')"));
  EXPECT_EQ(db_.rows("SELECT user_id, name FROM users WHERE region = 'mars'"), (Rows{{"9", "ida"}}));
  EXPECT_EQ(db_.rows("SELECT user_id FROM users WHERE region = 'eu'"), (Rows{{"1"}, {"3"}}));
  EXPECT_EQ(db_.value("SELECT tuplekv_check('users')"), "ok");
}

TEST_P(TableWriteTest, KeyMovesCarryTheirIndexEntries) {
  ASSERT_TRUE(db_.exec("UPDATE users SET user_id = 40, region = 'us' WHERE user_id = 4"));
  EXPECT_EQ(db_.rows("SELECT user_id, name FROM users WHERE region = 'us'"),
            (Rows{{"2", "bob"}, {"40", "di"}}));
  EXPECT_EQ(db_.value("SELECT count(*) FROM users WHERE region = 'asia'"), "0");
  EXPECT_EQ(db_.error("UPDATE users SET user_id = 1 WHERE user_id = 2"),
            "UNIQUE constraint failed: users.user_id");
  ASSERT_TRUE(db_.exec("UPDATE OR REPLACE users SET user_id = 1 WHERE user_id = 2"));
  EXPECT_EQ(db_.rows("SELECT user_id, name, region FROM users ORDER BY user_id"),
            (Rows{{"1", "bob", "us"}, {"3", "cy", "eu"}, {"40", "di", "us"}}));
  EXPECT_EQ(db_.value("SELECT tuplekv_check('users')"), "ok");
}

// README, "What SQLite does not tell a virtual table": SQLite collects an
// UPDATE's rows first and counts every one it hands over, so a row that an
// earlier row of the statement replaced away is counted, though it stays
// deleted as in the native table (which skips it: changes() is 2 there).
TEST_P(TableWriteTest, UpdateOrReplaceCountsARowItReplacedAway) {
  ASSERT_TRUE(db_.exec("CREATE VIRTUAL TABLE u USING tuplekv_table(a INTEGER, b INTEGER, PRIMARY KEY(a), UNIQUE(b)" +
                       store_option() + "); INSERT INTO u VALUES (1, 10), (2, 20), (3, 0)"));
  ASSERT_TRUE(db_.exec("UPDATE OR REPLACE u SET b = 0"));
  EXPECT_EQ(db_.value("SELECT changes()"), "3");
  EXPECT_EQ(db_.rows("SELECT a, b FROM u"), (Rows{{"2", "0"}}));
  EXPECT_EQ(db_.value("SELECT tuplekv_check('u')"), "ok");
}

// A row replaced away stays deleted even when another row of the same
// statement has moved to its key since: the values SQLite computed from
// the row it read are not put on the row that is there now (which would
// make a row of both: 3, 21, 'x'). The native table computes them again
// from that row (3, 12, 'x'), which a virtual table cannot: README,
// "Known difference".
TEST_P(TableWriteTest, UpdateOrReplaceLeavesARowReplacedAwayUnderAnotherRow) {
  ASSERT_TRUE(db_.exec("CREATE VIRTUAL TABLE m USING tuplekv_table(a INTEGER PRIMARY KEY, b INTEGER, c TEXT" +
                       store_option() + "); INSERT INTO m VALUES (1, 10, 'x'), (2, 20, 'y')"));
  ASSERT_TRUE(db_.exec("UPDATE OR REPLACE m SET a = a + 1, b = b + 1"));
  EXPECT_EQ(db_.value("SELECT changes()"), "2");
  EXPECT_EQ(db_.rows("SELECT a, b, c FROM m"), (Rows{{"2", "11", "x"}}));
  EXPECT_EQ(db_.value("SELECT tuplekv_check('m')"), "ok");
  // The next statement updates the row at that key as usual.
  ASSERT_TRUE(db_.exec("UPDATE m SET b = 0 WHERE a = 2"));
  EXPECT_EQ(db_.rows("SELECT a, b, c FROM m"), (Rows{{"2", "0", "x"}}));
}

// UNIQUE as in a native table: NULLs are distinct, 2 and 2.0 are one ANY
// value, each conflict clause, and a row's own entries are no conflict.
TEST_P(TableWriteTest, UniqueConstraints) {
  const std::string store = store_option();
  ASSERT_TRUE(db_.exec("CREATE VIRTUAL TABLE u USING tuplekv_table(id INTEGER PRIMARY KEY, "
                       "email VARCHAR(30) UNIQUE, a ANY, b ANY, UNIQUE(a, b)" + store + ");"
                       "INSERT INTO u VALUES (1, 'x', 1, 1), (2, NULL, 2, NULL), (3, NULL, 2, NULL)"));
  EXPECT_EQ(db_.error("INSERT INTO u VALUES (4, 'x', 9, 9)"), "UNIQUE constraint failed: u.email");
  EXPECT_EQ(db_.error_code("INSERT INTO u VALUES (4, 'x', 9, 9)"), SQLITE_CONSTRAINT_UNIQUE);
  EXPECT_EQ(db_.error("INSERT INTO u VALUES (4, 'y', 1.0, 1)"), "UNIQUE constraint failed: u.a, u.b");
  // A failing row in a multi-row statement undoes the rows before it.
  EXPECT_EQ(db_.error("INSERT INTO u VALUES (5, 'z', 5, 5), (6, 'z', 6, 6)"),
            "UNIQUE constraint failed: u.email");
  ASSERT_TRUE(db_.exec("INSERT OR IGNORE INTO u VALUES (7, 'x', 7, 7), (8, 'w', 8, 8)"));
  ASSERT_TRUE(db_.exec("UPDATE u SET email = 'x', a = 1 WHERE id = 1"));  // its own values
  ASSERT_TRUE(db_.exec("INSERT OR REPLACE INTO u VALUES (9, 'x', 2, NULL)"));
  EXPECT_EQ(db_.rows("SELECT id, quote(email), a, quote(b) FROM u ORDER BY id"),
            (Rows{{"2", "NULL", "2", "NULL"}, {"3", "NULL", "2", "NULL"}, {"8", "'w'", "8", "8"},
                  {"9", "'x'", "2", "NULL"}}));
  EXPECT_EQ(db_.error("UPDATE u SET email = 'w' WHERE id = 9"), "UNIQUE constraint failed: u.email");
  EXPECT_EQ(db_.rows("SELECT id FROM u WHERE email = 'w'"), (Rows{{"8"}}));
  EXPECT_NE(plan("SELECT id FROM u WHERE email = 'w'").find("index u_autoindex_1"), std::string::npos)
      << plan("SELECT id FROM u WHERE email = 'w'");
  EXPECT_EQ(db_.value("SELECT tuplekv_check('u')"), "ok");
  ASSERT_TRUE(db_.exec("ALTER TABLE u RENAME TO v"));
  EXPECT_EQ(db_.rows("SELECT id FROM v WHERE email = 'x'"), (Rows{{"9"}}));
  EXPECT_EQ(db_.value("SELECT tuplekv_check('v')"), "ok");
  EXPECT_EQ(db_.error("INSERT INTO v VALUES (10, 'x', 0, 0)"), "UNIQUE constraint failed: v.email");
}

// SQLite opens no statement savepoint for a virtual table's UPDATE … FROM,
// so the table marks the statement itself: failing under ABORT inside a
// transaction, it undoes its earlier rows as the native table does; OR FAIL
// keeps them; and the statements around it are left alone.
TEST_P(TableWriteTest, AFailingUpdateFromUndoesItsEarlierRows) {
  ASSERT_NO_FATAL_FAILURE(create_with_native("uf", "a INTEGER, b TEXT, c ANY, PRIMARY KEY(a)", ", INDEX uf_b(b)",
                                             "CREATE INDEX n_b ON n(b); CREATE TABLE j(x TEXT);"
                                             "INSERT INTO j VALUES ('c');",
                                             " VALUES (1, 'c', 'p'), (3, 'c', 'q'), (4, 'z', 'r')"));
  for (const char* table : {"n", "uf"}) {
    SCOPED_TRACE(table);
    ASSERT_TRUE(db_.exec(on("BEGIN; INSERT INTO @T VALUES (10, 'y', 0); UPDATE @T SET c = 'r2' WHERE a = 4", table)));
    EXPECT_EQ(db_.error_code(on("UPDATE @T SET a = a + 1 FROM j WHERE j.x = @T.b", table)),
              SQLITE_CONSTRAINT_PRIMARYKEY);
    EXPECT_EQ(db_.error_code(on("UPDATE @T SET a = a + 1, c = 'x' FROM (SELECT 1) WHERE @T.b = 'c'", table)),
              SQLITE_CONSTRAINT_PRIMARYKEY);
    ASSERT_TRUE(db_.exec(on("UPDATE @T SET c = 'ok' FROM j WHERE j.x = @T.b AND @T.a = 3", table)));
    // After a failing statement SQLite undid itself, and inside a SAVEPOINT.
    EXPECT_EQ(db_.error_code(on("INSERT INTO @T VALUES (20, 'w', 1), (4, 'w', 2)", table)),
              SQLITE_CONSTRAINT_PRIMARYKEY);
    ASSERT_TRUE(db_.exec("SAVEPOINT s"));
    EXPECT_EQ(db_.error_code(on("UPDATE @T SET a = a + 1, c = 'y' FROM j WHERE j.x = @T.b", table)),
              SQLITE_CONSTRAINT_PRIMARYKEY);
    ASSERT_TRUE(db_.exec("RELEASE s"));
    EXPECT_EQ(db_.error_code(on("UPDATE OR FAIL @T SET a = a + 1 FROM j WHERE j.x = @T.b", table)),
              SQLITE_CONSTRAINT_PRIMARYKEY);
    ASSERT_TRUE(db_.exec("COMMIT"));
  }
  EXPECT_EQ(db_.rows("SELECT * FROM uf ORDER BY a"), db_.rows("SELECT * FROM n ORDER BY a"));
  EXPECT_EQ(db_.rows("SELECT * FROM uf ORDER BY a"),
            (Rows{{"2", "c", "p"}, {"3", "c", "ok"}, {"4", "z", "r2"}, {"10", "y", "0"}}));
  EXPECT_EQ(db_.value("SELECT tuplekv_check('uf')"), "ok");
}

// One new row can be in the way of several stored ones: under its key and
// under each unique index (in an ANY column by an equal value of another
// type). OR REPLACE deletes each of them, once, with its index entries.
TEST_P(TableWriteTest, OrReplaceDeletesEveryRowInTheWay) {
  ASSERT_NO_FATAL_FAILURE(create_with_native(
      "rp", "k ANY, u ANY UNIQUE, e TEXT, g TEXT, PRIMARY KEY(k)",
      ", UNIQUE INDEX rp_e(e), INDEX rp_g(g)",
      "CREATE UNIQUE INDEX n_e ON n(e); CREATE INDEX n_g ON n(g);",
      " VALUES (2, 'a', 'x', 'p'), (3, 4, 'y', 'p'), (5, 'c', 'z', 'q'), (6, 'd', NULL, 'q'),"
      " (7, 'e', 'v', 'q'), (8, 'f', 'w', 'q')"));
  for (const char* tmpl :
       {"REPLACE INTO @T VALUES (2.0, 4.0, 'z', 'new')",           // 2, 3 and 5 in the way
        "REPLACE INTO @T VALUES (6, 'd', 'u', 'r')",               // 6, by key and by u
        "UPDATE OR REPLACE @T SET k = 7, u = 'f' WHERE k = 6"}) {  // 7 by key, 8 by u
    SCOPED_TRACE(tmpl);
    ASSERT_EQ(outcome(tmpl, "rp"), "ok");
    const std::string changes = db_.value("SELECT changes()");
    ASSERT_EQ(outcome(tmpl, "n"), "ok");
    EXPECT_EQ(changes, db_.value("SELECT changes()"));
    expect_as_native({"SELECT quote(k), quote(u), e, g FROM @T ORDER BY k",
                      "SELECT quote(u), quote(k) FROM @T WHERE u IS NOT NULL ORDER BY u",
                      "SELECT e, quote(k) FROM @T WHERE e >= '' ORDER BY e",
                      "SELECT g, quote(k) FROM @T WHERE g >= '' ORDER BY g"},
                     "rp");
    EXPECT_EQ(db_.value("SELECT tuplekv_check('rp')"), "ok");
  }
  EXPECT_EQ(db_.rows("SELECT quote(k), quote(u), e, g FROM rp ORDER BY k"),
            (Rows{{"2.0", "4.0", "z", "new"}, {"7", "'f'", "u", "r"}}));
  // The same with an implicit key: the rowid and a unique value.
  ASSERT_TRUE(db_.exec("DROP TABLE n; CREATE VIRTUAL TABLE ri USING tuplekv_table(v TEXT UNIQUE,"
                       " w INTEGER, INDEX ri_w(w)" + store_option() + ");"
                       "CREATE TABLE n(v TEXT UNIQUE, w INTEGER) STRICT; CREATE INDEX n_w ON n(w);"
                       "INSERT INTO ri VALUES ('a', 1), ('b', 2), ('c', 3);"
                       "INSERT INTO n VALUES ('a', 1), ('b', 2), ('c', 3)"));
  for (const char* tmpl : {"REPLACE INTO @T(rowid, v, w) VALUES (1, 'b', 9)",  // 1 and 2
                           "UPDATE OR REPLACE @T SET rowid = 3, v = 'c' WHERE rowid = 1"}) {  // 3
    SCOPED_TRACE(tmpl);
    ASSERT_EQ(outcome(tmpl, "ri"), "ok");
    const std::string changes = db_.value("SELECT changes()");
    ASSERT_EQ(outcome(tmpl, "n"), "ok");
    EXPECT_EQ(changes, db_.value("SELECT changes()"));
    expect_as_native({"SELECT rowid, v, w FROM @T ORDER BY rowid",
                      "SELECT w, rowid FROM @T WHERE w > 0"},
                     "ri");
    EXPECT_EQ(db_.value("SELECT tuplekv_check('ri')"), "ok");
  }
  EXPECT_EQ(db_.rows("SELECT rowid, v, w FROM ri"), (Rows{{"3", "c", "9"}}));
}

// An UPDATE that writes a row's key back unchanged, or as an equal value
// (2.0 for 2 in an ANY column, '2' for rowid 2), finds only the row itself
// there: under every clause the row is updated in place, and nothing is
// deleted or skipped.
TEST_P(TableWriteTest, AKeySetToItselfIsNoConflict) {
  ASSERT_NO_FATAL_FAILURE(create_with_native(
      "s", "a INTEGER, k ANY, b TEXT UNIQUE, c TEXT, PRIMARY KEY(a, k)", ", INDEX s_c(c)",
      "CREATE INDEX n_c ON n(c);",
      " VALUES (1, 2, 'x', 'p'), (2, 2.5, 'y', 'q'), (3, 's', 'z', 'r')"));
  for (const char* tmpl : {"UPDATE @T SET a = a, k = k, c = c || '1'",
                           "UPDATE OR REPLACE @T SET a = a + 0, k = k, b = b, c = 'R' WHERE a = 1",
                           "UPDATE OR IGNORE @T SET k = k, b = b, c = 'I' WHERE a >= 2",
                           "UPDATE OR FAIL @T SET a = 1, k = 2.0, c = 'F' WHERE a = 1"}) {
    SCOPED_TRACE(tmpl);
    ASSERT_EQ(outcome(tmpl, "s"), "ok");
    const std::string changes = db_.value("SELECT changes()");
    ASSERT_EQ(outcome(tmpl, "n"), "ok");
    EXPECT_EQ(changes, db_.value("SELECT changes()"));
    expect_as_native({"SELECT a, quote(k), b, c FROM @T ORDER BY a",
                      "SELECT c, a FROM @T WHERE c >= ''"},
                     "s");
    EXPECT_EQ(db_.value("SELECT tuplekv_check('s')"), "ok");
  }
  EXPECT_EQ(db_.rows("SELECT a, quote(k), b, c FROM s ORDER BY a"),
            (Rows{{"1", "2.0", "x", "F"}, {"2", "2.5", "y", "I"}, {"3", "'s'", "z", "I"}}));
  ASSERT_TRUE(db_.exec("CREATE VIRTUAL TABLE r USING tuplekv_table(v TEXT UNIQUE, w INTEGER,"
                       " INDEX r_w(w)" + store_option() + ");"
                       "CREATE TABLE rn(v TEXT UNIQUE, w INTEGER) STRICT;"
                       "INSERT INTO r VALUES ('a', 1), ('b', 2);"
                       "INSERT INTO rn VALUES ('a', 1), ('b', 2)"));
  for (const char* tmpl :
       {"UPDATE @T SET rowid = rowid, w = w + 10",
        "UPDATE OR REPLACE @T SET rowid = rowid + 0, v = v, w = -w WHERE v = 'a'",
        "UPDATE OR IGNORE @T SET rowid = '2', w = 7 WHERE rowid = 2"}) {
    SCOPED_TRACE(tmpl);
    ASSERT_EQ(outcome(tmpl, "r"), "ok");
    ASSERT_EQ(outcome(tmpl, "rn"), "ok");
    EXPECT_EQ(db_.rows("SELECT rowid, v, w FROM r ORDER BY rowid"),
              db_.rows("SELECT rowid, v, w FROM rn ORDER BY rowid"));
    EXPECT_EQ(db_.value("SELECT tuplekv_check('r')"), "ok");
  }
  EXPECT_EQ(db_.rows("SELECT rowid, v, w FROM r WHERE w < 10 ORDER BY w"),
            (Rows{{"1", "a", "-11"}, {"2", "b", "7"}}));
}

// Inside a transaction a statement that fails halfway, whatever refuses
// it, is undone whole, with the index entries it wrote or removed and the
// rows it replaced away; the statements before it stay, rows an OR FAIL
// kept included, and OR IGNORE skips only its rows, as in the native table.
TEST_P(TableWriteTest, AStatementFailingHalfwayInATransactionIsUndoneWhole) {
  ASSERT_NO_FATAL_FAILURE(create_with_native(
      "h", "a INTEGER, b TEXT NOT NULL, c INTEGER UNIQUE, PRIMARY KEY(a)", ", INDEX h_b(b)",
      "CREATE INDEX n_b ON n(b);", " VALUES (1, 'p', 10), (2, 'q', 20)"));
  const char* kStatements[] = {
      "INSERT INTO @T VALUES (3, 'r', 30)",
      "INSERT INTO @T VALUES (4, 's', 40), (5, 's', 50), (2, 'x', 60)",  // the key
      "INSERT INTO @T VALUES (6, 's', 60), (7, 's', 10)",                // c
      "INSERT INTO @T VALUES (6, 's', 60), (7, NULL, 70)",               // b's NOT NULL
      "INSERT INTO @T VALUES (6, 's', 60), (7, 's', 'x')",               // c's type
      "UPDATE @T SET a = a + 100 WHERE a >= 2",
      "UPDATE @T SET a = a + 1, b = 'm'",                                // 1 moves, 102 meets 103
      "INSERT OR REPLACE INTO @T VALUES (1, 'new', 20), (8, NULL, 80)",  // 1 and 102 replaced
      "INSERT INTO @T VALUES (1, 'dup', 1)",                             // fails on its first row
      "INSERT OR FAIL INTO @T VALUES (8, 'f', 80), (1, 'dup', 81)",      // 8 stays
      "INSERT INTO @T VALUES (9, 'g', 90), (1, 'dup', 91)",
      "INSERT OR IGNORE INTO @T VALUES (10, 'h', 100), (1, 'a', 101), (11, 'i', 10), (12, 'j', 12)",
      "DELETE FROM @T WHERE a = 103"};
  ASSERT_TRUE(db_.exec("BEGIN"));
  for (const char* tmpl : kStatements) {
    SCOPED_TRACE(tmpl);
    EXPECT_EQ(outcome(tmpl, "h"), outcome(tmpl, "n"));
    expect_as_native({"SELECT a, b, c FROM @T ORDER BY a", "SELECT b, a FROM @T WHERE b >= ''",
                      "SELECT c, a FROM @T WHERE c >= 0"},
                     "h");
    EXPECT_EQ(db_.value("SELECT tuplekv_check('h')"), "ok");
  }
  ASSERT_TRUE(db_.exec("COMMIT"));
  expect_as_native("SELECT a, b, c FROM @T ORDER BY a", "h");
  EXPECT_EQ(db_.rows("SELECT a, b, c FROM h ORDER BY a"),
            (Rows{{"1", "p", "10"}, {"8", "f", "80"}, {"10", "h", "100"}, {"12", "j", "12"},
                  {"102", "q", "20"}}));
  EXPECT_EQ(db_.value("SELECT tuplekv_check('h')"), "ok");
}

// README, "Type errors": a type error undoes its statement inside a
// transaction also in a table where SQLite's own STRICT table keeps the
// rows written before it (one without NOT NULL or unique columns opens no
// statement journal). Under OR FAIL they stay, and changes() counts them.
// The next implicit key follows the rows that stayed.
TEST_P(TableWriteTest, ATypeErrorUndoesItsStatementInATableWithoutConstraints) {
  ASSERT_TRUE(db_.exec("CREATE VIRTUAL TABLE r USING tuplekv_table(v TEXT, w INTEGER,"
                       " INDEX r_v(v)" + store_option() + ");"
                       "INSERT INTO r(v) VALUES ('a'); BEGIN"));
  EXPECT_EQ(db_.error("INSERT INTO r VALUES ('b', 1), ('c', 'x')"),
            "cannot store TEXT value in INTEGER column r.w");
  EXPECT_EQ(db_.rows("SELECT rowid, v FROM r"), (Rows{{"1", "a"}}));
  EXPECT_EQ(db_.rows("SELECT rowid FROM r WHERE v = 'b'"), Rows{});
  ASSERT_TRUE(db_.exec("INSERT INTO r(v) VALUES ('d')"));
  EXPECT_EQ(db_.value("SELECT rowid FROM r WHERE v = 'd'"), "2");
  EXPECT_EQ(db_.error_code("INSERT OR FAIL INTO r VALUES ('e', 5), ('f', 'x')"),
            SQLITE_CONSTRAINT_DATATYPE);
  EXPECT_EQ(db_.value("SELECT changes()"), "1");
  ASSERT_TRUE(db_.exec("COMMIT"));
  EXPECT_EQ(db_.rows("SELECT rowid, v, quote(w) FROM r ORDER BY rowid"),
            (Rows{{"1", "a", "NULL"}, {"2", "d", "NULL"}, {"3", "e", "5"}}));
  EXPECT_EQ(db_.value("SELECT tuplekv_check('r')"), "ok");
}

// SQLite hands a virtual table no DEFAULT, so the table applies them: a
// literal as the native table does, an expression anew for each row that
// takes it (random() differs from row to row), and under OR REPLACE a NOT
// NULL column's in place of a NULL in an UPDATE too. A DEFAULT that fails
// fails its statement, which leaves nothing; and as the table cannot tell
// an omitted column from a NULL, a NULL written there takes the DEFAULT too
// (README, "What SQLite does not tell a virtual table").
TEST_P(TableWriteTest, TheTableAppliesDefaultsAsNatively) {
  ASSERT_NO_FATAL_FAILURE(create_with_native(
      "d", "k INTEGER PRIMARY KEY, r INTEGER DEFAULT (random()), b TEXT NOT NULL DEFAULT 'bee',"
      " c TEXT DEFAULT 'cee'",
      ", INDEX d_b(b)", "CREATE INDEX n_b ON n(b);", "(k) VALUES (1), (2), (3)"));
  const std::string shape =
      "SELECT count(*), count(DISTINCT r), group_concat(b), group_concat(c) FROM @T";
  expect_as_native(shape, "d");
  EXPECT_EQ(db_.rows(on(shape, "d")), (Rows{{"3", "3", "bee,bee,bee", "cee,cee,cee"}}));
  for (const char* tmpl : {"UPDATE OR REPLACE @T SET b = NULL, c = NULL WHERE k = 1",
                           "UPDATE @T SET b = NULL WHERE k = 2",
                           "INSERT OR REPLACE INTO @T(k, b) VALUES (4, NULL)"}) {
    EXPECT_EQ(outcome(tmpl, "d"), outcome(tmpl, "n")) << tmpl;
  }
  expect_as_native("SELECT k, b, quote(c) FROM @T WHERE b = 'bee' ORDER BY k", "d");
  EXPECT_EQ(db_.rows("SELECT k, b, quote(c) FROM d ORDER BY k"),
            (Rows{{"1", "bee", "NULL"}, {"2", "bee", "'cee'"}, {"3", "bee", "'cee'"},
                  {"4", "bee", "'cee'"}}));
  EXPECT_EQ(db_.value("SELECT tuplekv_check('d')"), "ok");

  const std::string overflow = "v INTEGER DEFAULT (abs(-9223372036854775808))";
  ASSERT_TRUE(db_.exec("DROP TABLE n; CREATE TABLE n(k INTEGER PRIMARY KEY, " + overflow + ");"
                       "CREATE VIRTUAL TABLE o USING tuplekv_table(k INTEGER PRIMARY KEY, " +
                       overflow + ", INDEX o_v(v)" + store_option() + ");"
                       "BEGIN; INSERT INTO o VALUES (1, 1)"));
  const std::string native = db_.error("INSERT INTO n(k) VALUES (4)");
  ASSERT_EQ(native, "integer overflow");
  for (const char* sql :
       {"INSERT INTO o VALUES (2, 2), (3, NULL)", "INSERT INTO o(k) VALUES (4)"}) {
    EXPECT_EQ(db_.error(sql), "tuplekv_table: DEFAULT of o.v: " + native) << sql;
  }
  ASSERT_TRUE(db_.exec("COMMIT"));
  EXPECT_EQ(db_.rows("SELECT k, v FROM o WHERE v >= 0"), (Rows{{"1", "1"}}));
  EXPECT_EQ(db_.value("SELECT tuplekv_check('o')"), "ok");
}

// The SQLite store inserts a new row with up to SqliteStore::kMaxBatchKeys
// index entries in one statement that skips the keys already there; a
// table with more indexes writes the row first, then each entry. Either
// way a duplicate key, sharing all, some or none of the entries of the row
// in its way, leaves that row's entries as they were and adds none.
TEST_P(TableWriteTest, ADuplicateKeyLeavesEveryIndexAsItWas) {
  constexpr size_t kBatch = ext::SqliteStore::kMaxBatchKeys;
  for (const size_t indexes : {size_t{2}, kBatch, kBatch + 1}) {
    SCOPED_TRACE(std::to_string(indexes) + " indexes");
    std::string cols = "k INTEGER PRIMARY KEY", vt_indexes, native_indexes, same, other;
    for (size_t i = 0; i < indexes; ++i) {
      const std::string c = "c" + std::to_string(i);
      cols += ", " + c + " INTEGER";
      vt_indexes += ", INDEX x_" + c + "(" + c + ")";
      native_indexes += "CREATE INDEX n_" + c + " ON n(" + c + ");";
      same += ", 2";
      other += ", 9";
    }
    ASSERT_TRUE(db_.exec("DROP TABLE IF EXISTS x; DROP TABLE IF EXISTS n"));
    ASSERT_NO_FATAL_FAILURE(create_with_native("x", cols, vt_indexes, native_indexes,
                                               " VALUES (1" + same + "), (2" + same + ")"));
    const std::string some = same.substr(0, same.size() - 1) + "9";  // all but the last entry
    for (const std::string& values : {same, some, other}) {
      const std::string tmpl = "INSERT INTO @T VALUES (2" + values + ")";
      EXPECT_EQ(outcome(tmpl, "x"), "UNIQUE constraint failed: @T.k") << tmpl;
      EXPECT_EQ(outcome(tmpl, "n"), "UNIQUE constraint failed: @T.k") << tmpl;
    }
    const std::string ignored =
        "INSERT OR IGNORE INTO @T VALUES (2" + other + "), (3" + other + ")";
    ASSERT_EQ(outcome(ignored, "x"), "ok");
    ASSERT_EQ(outcome(ignored, "n"), "ok");
    for (size_t i = 0; i < indexes; ++i) {
      const std::string c = "c" + std::to_string(i);
      expect_as_native("SELECT " + c + ", k FROM @T WHERE " + c + " >= 0", "x");
    }
    EXPECT_EQ(db_.rows("SELECT k FROM x WHERE c0 = 9"), (Rows{{"3"}}));
    EXPECT_EQ(db_.value("SELECT tuplekv_check('x')"), "ok");
  }
}

}  // namespace
}  // namespace tuplekv::testing
