// tuplekv_batch_rows (ext/batch_rows.h): a run of write-batch entries read
// by one SQL statement through a pointer bound with sqlite3_bind_pointer.
//
// What the store relies on: the rows come back in the order given, with
// each key and value byte for byte (a zero-length value a zero-length BLOB,
// never NULL, since the store writes it into a BLOB column; a cleared
// entry's value NULL), however the pointer constraint is spelled, and as
// often as the statement runs or another cursor reads the same entries.
// What keeps SQL out: nothing but a pointer bound under the table's own
// type name yields a row, the table is never written, and as a DIRECTONLY
// table no view or trigger in a database's schema may use it. Last,
// set_changes(), which counts rows of the table as changes.
#include "ext/batch_rows.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/write_batch.h"
#include "tests/testutil.h"

namespace tuplekv::ext {
namespace {

using namespace std::string_view_literals;
using testing::Db;
using testing::Row;
using testing::Rows;
using Entry = WriteBatch::Entry;

Entry set(BytesView key, BytesView value) { return Entry{key, value, true, false}; }
Entry cleared(BytesView key) { return Entry{key, BytesView(), false, false}; }

// Entries the test owns and the BatchRows that points at them, as the store
// hands over its sorted() entries.
struct Batch {
  explicit Batch(std::vector<Entry> e) : entries(std::move(e)) {
    for (const Entry& x : entries) pointers.push_back(&x);
    rows = BatchRows{pointers.data(), pointers.size()};
  }
  std::vector<Entry> entries;
  std::vector<const Entry*> pointers;
  BatchRows rows;
};

// One prepared statement, with pointers bound the way the store binds them.
class Statement {
 public:
  Statement(Db* db, const std::string& sql) : db_(db->handle()) {
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &st_, nullptr) != SQLITE_OK) {
      ADD_FAILURE() << sql << ": " << sqlite3_errmsg(db_);
    }
  }
  ~Statement() { sqlite3_finalize(st_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  void bind(int i, BatchRows* rows, const char* type = kBatchRowsType) {
    EXPECT_EQ(sqlite3_bind_pointer(st_, i, rows, type, nullptr), SQLITE_OK);
  }
  sqlite3_stmt* get() const { return st_; }

  // The next row, or false at the end (a failure is a test failure).
  bool step(Row* row) {
    const int rc = sqlite3_step(st_);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE) ADD_FAILURE() << sqlite3_errmsg(db_);
    if (rc != SQLITE_ROW) return false;
    row->clear();
    for (int c = 0; c < sqlite3_column_count(st_); ++c) {
      row->push_back(testing::render_column(st_, c));
    }
    return true;
  }
  // Every row, then a reset that keeps the bindings, so it can run again.
  Rows rows() {
    Rows out;
    for (Row r; step(&r);) out.push_back(r);
    sqlite3_reset(st_);
    return out;
  }
  // The message of a run expected to fail ("" plus a test failure if not).
  std::string error() {
    int rc;
    while ((rc = sqlite3_step(st_)) == SQLITE_ROW) {
    }
    std::string message = rc == SQLITE_DONE ? "" : sqlite3_errmsg(db_);
    if (rc == SQLITE_DONE) ADD_FAILURE() << "ran without an error";
    sqlite3_reset(st_);
    return message;
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* st_ = nullptr;
};

// Out of key order, to show the table keeps the order it is given; empty
// keys and values as null views, which a plain sqlite3_result_blob would
// turn into NULL.
Batch sample() {
  return Batch({set("\x02z\x00"sv, "x\x00y"sv), set(BytesView(), BytesView()),
                cleared("\x00\x00"sv), set("a"sv, "\x00"sv)});
}
const Rows kSampleRows = {{"x'027A00'", "x'780079'"},
                          {"x''", "x''"},
                          {"x'0000'", "NULL"},
                          {"x'61'", "x'00'"}};

TEST(BatchRowsTable, RowsComeInTheOrderGivenWithTheirExactBytes) {
  Db db;
  Batch batch = sample();
  Statement st(&db, "SELECT k, v, typeof(k), typeof(v), length(v) FROM tuplekv_batch_rows(?1)");
  st.bind(1, &batch.rows);
  EXPECT_EQ(st.rows(), (Rows{{"x'027A00'", "x'780079'", "blob", "blob", "3"},
                             {"x''", "x''", "blob", "blob", "0"},
                             {"x'0000'", "NULL", "blob", "null", "NULL"},
                             {"x'61'", "x'00'", "blob", "blob", "1"}}));
}

// The use the header shows: what lands in a BLOB column is the same bytes,
// an empty value an empty BLOB, in one statement that counts every pair.
TEST(BatchRowsTable, InsertSelectStoresEveryPairAsBlobs) {
  Db db;
  ASSERT_TRUE(db.exec("CREATE TABLE t(k BLOB PRIMARY KEY, v BLOB NOT NULL)"));
  Batch batch({set("\x01\x00\x02"sv, "\x00\x00"sv), set("\x00"sv, BytesView()), set("b"sv, "v"sv)});
  Statement st(&db, "INSERT OR IGNORE INTO t(k, v) SELECT k, v FROM tuplekv_batch_rows(?1)");
  st.bind(1, &batch.rows);
  EXPECT_EQ(st.rows(), Rows());
  EXPECT_EQ(sqlite3_changes64(db.handle()), 3);
  EXPECT_EQ(db.rows("SELECT k, v, typeof(v) FROM t ORDER BY rowid"),
            (Rows{{"x'010002'", "x'0000'", "blob"},
                  {"x'00'", "x''", "blob"},
                  {"x'62'", "x'76'", "blob"}}));
}

// rows = ?1 is the function argument spelled out (set_changes() spells it so);
// other constraints are left to SQLite. The hidden column reads NULL, so rows
// come back at all only because the pointer constraint is consumed.
TEST(BatchRowsTable, AnEqualityOnRowsIsThePointerArgument) {
  Db db;
  Batch batch = sample();
  for (const char* sql : {"SELECT k, v FROM tuplekv_batch_rows WHERE rows = ?1",
                          "SELECT k, v FROM tuplekv_batch_rows WHERE ?1 = rows"}) {
    Statement st(&db, sql);
    st.bind(1, &batch.rows);
    EXPECT_EQ(st.rows(), kSampleRows) << sql;
  }
  Statement hidden(&db, "SELECT rows FROM tuplekv_batch_rows(?1)");
  hidden.bind(1, &batch.rows);
  EXPECT_EQ(hidden.rows(), Rows(4, Row{"NULL"}));
  Statement filtered(&db, "SELECT k FROM tuplekv_batch_rows(?1) WHERE k = x'61' OR v IS NULL");
  filtered.bind(1, &batch.rows);
  EXPECT_EQ(filtered.rows(), (Rows{{"x'0000'"}, {"x'61'"}}));
  // Any other comparison with the pointer does not pass it.
  for (const char* sql : {"SELECT k FROM tuplekv_batch_rows WHERE rows IS ?1",
                          "SELECT k FROM tuplekv_batch_rows WHERE rows > ?1"}) {
    Statement st(&db, sql);
    st.bind(1, &batch.rows);
    EXPECT_EQ(st.rows(), Rows()) << sql;
  }
}

// SQL cannot point tuplekv_batch_rows at memory of its own, nor use it in
// a view or trigger.
TEST(BatchRowsTable, YieldsNothingToSql) {
  Db db;
  EXPECT_EQ(db.value("SELECT count(*) FROM tuplekv_batch_rows"), "0");
  EXPECT_EQ(db.value("SELECT count(*) FROM tuplekv_batch_rows(1)"), "0");
  EXPECT_EQ(db.value("SELECT count(*) FROM tuplekv_batch_rows(x'0011223344556677')"), "0");
  EXPECT_EQ(db.value("SELECT count(*) FROM tuplekv_batch_rows(NULL)"), "0");
  ASSERT_TRUE(db.exec("CREATE VIEW v AS SELECT * FROM tuplekv_batch_rows"));
  EXPECT_NE(db.error("SELECT * FROM v"), "");
  EXPECT_EQ(db.error("INSERT INTO tuplekv_batch_rows(k) VALUES (x'01')"),
            "tuplekv_batch_rows may not be written");
  ASSERT_TRUE(db.exec("DELETE FROM tuplekv_batch_rows"));
  EXPECT_EQ(db.value("SELECT changes()"), "0");
}

// Only a pointer bound under kBatchRowsType is one: the same address under
// another type name (the comparison is exact), as an integer or as the bytes
// of a BLOB, or a null pointer under the right name, gives no rows.
TEST(BatchRowsTable, AnythingButThePointerUnderItsTypeGivesNoRows) {
  Db db;
  Batch batch = sample();
  Statement st(&db, "SELECT k FROM tuplekv_batch_rows(?1)");
  st.bind(1, &batch.rows);
  ASSERT_EQ(st.rows().size(), 4u);  // the same statement does read them
  for (const char* type : {"carray", "TUPLEKV_BATCH_ROWS", "tuplekv_batch_rows ", ""}) {
    st.bind(1, &batch.rows, type);
    EXPECT_EQ(st.rows(), Rows()) << '"' << type << '"';
  }
  const BatchRows* address = &batch.rows;
  ASSERT_EQ(sqlite3_bind_int64(st.get(), 1, reinterpret_cast<intptr_t>(address)), SQLITE_OK);
  EXPECT_EQ(st.rows(), Rows());
  ASSERT_EQ(sqlite3_bind_blob(st.get(), 1, &address, sizeof address, SQLITE_TRANSIENT), SQLITE_OK);
  EXPECT_EQ(st.rows(), Rows());
  st.bind(1, nullptr);
  EXPECT_EQ(st.rows(), Rows());
  ASSERT_EQ(sqlite3_clear_bindings(st.get()), SQLITE_OK);
  EXPECT_EQ(st.rows(), Rows());
}

// A pointer constraint that can only come from a table joined after this
// one is refused for that order, so the planner reads that table first and
// passes its values, rather than reading this one first with no argument;
// when no order is left, the statement fails to prepare. (CROSS JOIN keeps
// the later table's terms from the table altogether: no argument, no rows.)
TEST(BatchRowsTable, APointerFromALaterTableIsNotPlannedAround) {
  Db db;
  ASSERT_TRUE(db.exec("CREATE TABLE x(a); INSERT INTO x VALUES (1), (NULL)"));
  const std::string join = "SELECT count(*) FROM tuplekv_batch_rows AS b, x WHERE b.rows = x.a";
  EXPECT_EQ(db.value(join), "0");
  Rows plan;
  for (const Row& r : db.rows("EXPLAIN QUERY PLAN " + join)) plan.push_back({r.back()});
  EXPECT_EQ(plan, (Rows{{"SCAN x"}, {"SCAN b VIRTUAL TABLE INDEX 1:"}}));
  EXPECT_EQ(db.value("SELECT count(*) FROM tuplekv_batch_rows AS b CROSS JOIN x "
                     "WHERE b.rows = x.a"),
            "0");
  EXPECT_EQ(db.error("SELECT count(*) FROM tuplekv_batch_rows AS a, tuplekv_batch_rows AS b "
                     "WHERE a.rows = b.k AND b.rows = a.k"),
            "no query solution");
}

// DIRECTONLY: a view or trigger in the schema of a database file cannot
// name the table, whether or not the schema is trusted; the statement that
// would run it fails before changing anything.
TEST(BatchRowsTable, NoViewOrTriggerInTheSchemaMayUseIt) {
  Db db;
  const std::string unsafe = "unsafe use of virtual table \"tuplekv_batch_rows\"";
  ASSERT_TRUE(db.exec(
      "CREATE TABLE x(a); CREATE TABLE y(k, v); CREATE TABLE z(a);"
      "CREATE VIEW v AS SELECT k, v FROM tuplekv_batch_rows;"
      "CREATE TRIGGER reads AFTER INSERT ON x BEGIN "
      "  INSERT INTO y SELECT k, v FROM tuplekv_batch_rows; END;"
      "CREATE TRIGGER deletes AFTER INSERT ON z BEGIN DELETE FROM tuplekv_batch_rows; END;"));
  for (const char* trusted : {"PRAGMA trusted_schema = 0", "PRAGMA trusted_schema = 1"}) {
    ASSERT_TRUE(db.exec(trusted));
    EXPECT_EQ(db.error("SELECT count(*) FROM v"), unsafe) << trusted;
    EXPECT_EQ(db.error("INSERT INTO x VALUES (1)"), unsafe) << trusted;
    EXPECT_EQ(db.error("INSERT INTO z VALUES (1)"), unsafe) << trusted;
    EXPECT_EQ(db.value("SELECT (SELECT count(*) FROM x) + (SELECT count(*) FROM y) + "
                       "(SELECT count(*) FROM z)"),
              "0")
        << trusted;
  }
}

// The table is eponymous-only: there is no table of its kind to create.
TEST(BatchRowsTable, CreatingATableOfItsKindIsRefused) {
  Db db;
  EXPECT_EQ(db.error("CREATE VIRTUAL TABLE b USING tuplekv_batch_rows"),
            "no such module: tuplekv_batch_rows");
  EXPECT_EQ(db.value("SELECT count(*) FROM sqlite_schema"), "0");
}

// Each run starts at the first entry again, and takes the pointer bound
// for that run: the store reuses one prepared statement for every apply.
TEST(BatchRowsTable, AStatementRunsAgainOverWhatIsBoundThen) {
  Db db;
  Batch first = sample();
  Batch second({set("s"sv, "2"sv)});
  Statement st(&db, "SELECT k, v FROM tuplekv_batch_rows(?1)");
  st.bind(1, &first.rows);
  EXPECT_EQ(st.rows(), kSampleRows);
  EXPECT_EQ(st.rows(), kSampleRows);
  st.bind(1, &second.rows);
  EXPECT_EQ(st.rows(), (Rows{{"x'73'", "x'32'"}}));
  first.rows.count = 2;  // read at each run, not kept from an earlier one
  st.bind(1, &first.rows);
  EXPECT_EQ(st.rows(), (Rows{kSampleRows[0], kSampleRows[1]}));
}

// Each cursor has its own place: the inner side of a join over the same
// entries restarts for every outer row, and a statement run to its end in
// the middle of another's scan does not move it.
TEST(BatchRowsTable, CursorsOverTheSameEntriesAreIndependent) {
  Db db;
  Batch batch({set("a"sv, "1"sv), set("b"sv, "2"sv), set("c"sv, "3"sv)});
  Statement join(&db,
                 "SELECT count(*), count(DISTINCT o.k || i.k) "
                 "FROM tuplekv_batch_rows(?1) AS o, tuplekv_batch_rows(?1) AS i");
  join.bind(1, &batch.rows);
  EXPECT_EQ(join.rows(), (Rows{{"9", "9"}}));

  Statement outer(&db, "SELECT k FROM tuplekv_batch_rows(?1)");
  Statement inner(&db, "SELECT k FROM tuplekv_batch_rows(?1)");
  outer.bind(1, &batch.rows);
  inner.bind(1, &batch.rows);
  Row row;
  ASSERT_TRUE(outer.step(&row));
  EXPECT_EQ(row, Row{"x'61'"});
  EXPECT_EQ(inner.rows(), (Rows{{"x'61'"}, {"x'62'"}, {"x'63'"}}));
  EXPECT_EQ(outer.rows(), (Rows{{"x'62'"}, {"x'63'"}}));
}

// DELETE is the one write it takes, and it deletes nothing while counting
// each row; an UPDATE is refused before it could touch the caller's bytes.
TEST(BatchRowsTable, ItsRowsCanBeCountedAsDeletedButNotWritten) {
  Db db;
  Batch batch = sample();
  Statement del(&db, "DELETE FROM tuplekv_batch_rows WHERE rows = ?1");
  del.bind(1, &batch.rows);
  EXPECT_EQ(del.rows(), Rows());
  EXPECT_EQ(sqlite3_changes64(db.handle()), 4);
  Statement update(&db, "UPDATE tuplekv_batch_rows SET v = x'ff' WHERE rows = ?1");
  update.bind(1, &batch.rows);
  EXPECT_EQ(update.error(), "tuplekv_batch_rows may not be written");
  Statement read(&db, "SELECT k, v FROM tuplekv_batch_rows(?1)");
  read.bind(1, &batch.rows);
  EXPECT_EQ(read.rows(), kSampleRows);
}

// Rows without entries, as set_changes() makes them: `count` rows, every
// column NULL.
TEST(BatchRowsTable, RowsWithoutEntriesAreNull) {
  Db db;
  BatchRows rows{nullptr, 3};
  Statement st(&db, "SELECT k, v, rows FROM tuplekv_batch_rows(?1)");
  st.bind(1, &rows);
  EXPECT_EQ(st.rows(), Rows(3, Row{"NULL", "NULL", "NULL"}));
}

// set_changes() makes changes() say n and writes nothing (total_changes()
// counts the rows all the same, as any DELETE's).
TEST(BatchRowsTable, SetChangesReportsTheCountAndWritesNothing) {
  Db db;
  ASSERT_TRUE(db.exec("CREATE TABLE x(a); INSERT INTO x VALUES (1), (2)"));
  ASSERT_TRUE(set_changes(db.handle(), 5).ok());
  EXPECT_EQ(db.value("SELECT changes()"), "5");
  EXPECT_EQ(db.value("SELECT total_changes()"), "7");
  EXPECT_EQ(db.value("SELECT count(*) FROM x"), "2");
  ASSERT_TRUE(set_changes(db.handle(), 5).ok());  // already 5: no statement
  EXPECT_EQ(db.value("SELECT total_changes()"), "7");
  ASSERT_TRUE(set_changes(db.handle(), -3).ok());
  EXPECT_EQ(db.value("SELECT changes()"), "0");
}

// Zero after a write runs a DELETE of no rows, which says 0 changed.
TEST(BatchRowsTable, SetChangesToZeroAfterAWrite) {
  Db db;
  ASSERT_TRUE(db.exec("CREATE TABLE x(a); INSERT INTO x VALUES (1), (2)"));
  ASSERT_TRUE(set_changes(db.handle(), 0).ok());
  EXPECT_EQ(db.value("SELECT changes()"), "0");
  EXPECT_EQ(db.value("SELECT total_changes()"), "2");
  EXPECT_EQ(db.value("SELECT count(*) FROM x"), "2");
}

// On a connection without the table, set_changes() says what it was doing
// and passes SQLite's error on.
TEST(BatchRowsTable, SetChangesWithoutTheTableIsAnError) {
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(":memory:", &raw), SQLITE_OK);
  const Status s = set_changes(raw, 3);
  EXPECT_EQ(s.native_code(), SQLITE_ERROR);
  EXPECT_EQ(s.message(), "restoring changes(): no such table: tuplekv_batch_rows");
  EXPECT_EQ(sqlite3_changes64(raw), 0);
  EXPECT_EQ(sqlite3_close(raw), SQLITE_OK);
}

}  // namespace
}  // namespace tuplekv::ext
