// Helpers for tests that go through SQLite: an in-memory (or file) database
// with tuplekv registered, and small ways to run SQL and read results as text.
//
//   tuplekv::testing::Db db;                       // :memory:, tuplekv_register()
//   db.exec("CREATE VIRTUAL TABLE t USING tuplekv_kv");
//   EXPECT_EQ(db.rows("SELECT hex(key), hex(value) FROM t"),
//             (Rows{{"01", "02"}}));
//   EXPECT_THAT(db.error("SELECT tuple_unpack(1)"), HasSubstr("tuple_unpack"));
//
// Every value is rendered as text: NULL as "NULL", BLOBs as uppercase hex
// prefixed with x' (x'01FF'), numbers and text as sqlite3_column_text gives
// them. That keeps expectations short and makes type mistakes visible.
#ifndef TUPLEKV_TESTS_TESTUTIL_H_
#define TUPLEKV_TESTS_TESTUTIL_H_

#include <sqlite3.h>

#include <random>
#include <string>
#include <vector>

namespace tuplekv::testing {

using Row = std::vector<std::string>;
using Rows = std::vector<Row>;

// How the extension gets into the connection.
enum class Load {
  kRegister,       // tuplekv_register() from the static library
  kLoadExtension,  // sqlite3_load_extension() of the built module (the .so)
};

class Db {
 public:
  explicit Db(const std::string& path = ":memory:", Load load = Load::kRegister);
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  sqlite3* handle() const { return db_; }

  // Runs every statement in `sql`; fails the current test (ADD_FAILURE) with
  // SQLite's message if one fails. Returns true on success.
  bool exec(const std::string& sql);
  // All rows of the last statement in `sql`, rendered as described above;
  // fails the test on error.
  Rows rows(const std::string& sql);
  // The single value of a one-row, one-column query ("" plus a test failure
  // otherwise).
  std::string value(const std::string& sql);
  // Runs `sql` expecting an error; returns SQLite's message, or "" plus a
  // test failure if every statement succeeded.
  std::string error(const std::string& sql);
  // Like error(), but returns the extended result code of the failure
  // (SQLITE_OK plus a test failure if it succeeded).
  int error_code(const std::string& sql);

 private:
  // SQLITE_OK or the extended code of the first failing statement; rows of
  // the last statement go to *out when non-null.
  int run(const std::string& sql, Rows* out, std::string* message);

  sqlite3* db_ = nullptr;
};

// What running a statement in the middle of a scan did: `sql`'s result code
// and message (SQLITE_OK, ""), and every row of the scan, those before
// `sql` ran and those after.
struct DuringScan {
  int rc = SQLITE_OK;
  std::string error;
  Rows rows;
};
// Steps `scan` once, runs `sql` on the same connection while the scan is
// still open, then reads the scan to its end.
DuringScan during_scan(Db* db, const std::string& scan, const std::string& sql);

// Declares the SQL function name(x) on db: it runs `sql`, one or more
// statements, with ?1 bound to x in each, and returns 1 (their error if
// one fails). For statements that write a table from inside a statement
// reading it, between two of its column reads: SELECT a, name(a), b FROM t.
void add_sql_function(Db* db, const std::string& name, const std::string& sql);

// Renders the current row's column i as described above.
std::string render_column(sqlite3_stmt* stmt, int i);

// Renders column i so that two values render alike only when they are the
// same SQL value of the same type: INTEGER as digits, REAL as "r" and its
// 17 significant digits (keeping the sign of -0.0), TEXT quoted, BLOB and
// NULL as render_column() does. For differential tests, where
// sqlite3_column_text would make 2 and '2', 0.0 and -0.0, or two doubles
// equal to 15 digits look alike.
std::string render_column_exact(sqlite3_stmt* stmt, int i);

// `b` changed the way damage changes stored bytes: a byte replaced or a
// bit flipped, cut short or cut after a terminator (often a bare prefix),
// bytes added, a type code, terminator or non-ASCII byte put in, two bytes
// swapped. For tests of what a damaged shadow table does.
std::string damaged(std::mt19937* rng, std::string b);

// Absolute path of a file under the shared directory (tuple vectors, slt
// scripts); fails loudly if it does not exist.
std::string shared_path(const std::string& relative);

}  // namespace tuplekv::testing

#endif  // TUPLEKV_TESTS_TESTUTIL_H_
