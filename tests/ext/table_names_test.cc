// ext/table_names.h: a table name given as text resolves to the schema a
// statement naming it would reach. Bare names look in temp, then main, then
// the attached databases in the order they were attached (not by name);
// names match in any ASCII case; `schema.table` splits at the first dot
// only when the part before it is an attached schema, so a table called
// "a.b" is found by that name; and a schema or table that is not there is
// "not found", not an error.
#include "ext/table_names.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>

#include "tests/testutil.h"

namespace tuplekv::testing {
namespace {

using ext::resolve_table_name;
using ext::TableName;

// "schema name", or "-" when not found.
std::string resolved(Db& db, const std::string& qualified) {
  TableName t;
  bool found = false;
  const Status s = resolve_table_name(db.handle(), qualified, &t, &found);
  EXPECT_TRUE(s.ok()) << s.message();
  return found ? t.schema + " " + t.name : "-";
}

TEST(TableNames, ABareNameLooksInTempThenMainThenAttachedInAttachOrder) {
  Db db;
  ASSERT_TRUE(db.exec("ATTACH ':memory:' AS zeta; ATTACH ':memory:' AS alpha;"
                      "CREATE TABLE alpha.t(x); CREATE TABLE zeta.t(x)"));
  EXPECT_EQ(resolved(db, "t"), "zeta t");
  ASSERT_TRUE(db.exec("CREATE TABLE main.t(x)"));
  EXPECT_EQ(resolved(db, "t"), "main t");
  ASSERT_TRUE(db.exec("CREATE TEMP TABLE t(x)"));
  EXPECT_EQ(resolved(db, "T"), "temp T");
  ASSERT_TRUE(db.exec("DROP TABLE temp.t; DROP TABLE main.t; DROP TABLE zeta.t"));
  EXPECT_EQ(resolved(db, "t"), "alpha t");
  ASSERT_TRUE(db.exec("DROP TABLE alpha.t"));
  EXPECT_EQ(resolved(db, "t"), "-");
}

TEST(TableNames, AQualifiedNameLooksInItsSchemaOnly) {
  Db db;
  ASSERT_TRUE(db.exec("ATTACH ':memory:' AS aux; CREATE TABLE aux.t(x); CREATE TABLE main.u(x)"));
  EXPECT_EQ(resolved(db, "AUX.t"), "aux t");
  EXPECT_EQ(resolved(db, "main.t"), "-");
  EXPECT_EQ(resolved(db, "aux.u"), "-");
  EXPECT_EQ(resolved(db, "main.U"), "main U");
  // Views and indexes are not tables.
  ASSERT_TRUE(db.exec("CREATE VIEW v AS SELECT 1; CREATE INDEX ui ON u(x)"));
  EXPECT_EQ(resolved(db, "v"), "-");
  EXPECT_EQ(resolved(db, "ui"), "-");
  // Detached, its tables are gone.
  ASSERT_TRUE(db.exec("DETACH aux"));
  EXPECT_EQ(resolved(db, "aux.t"), "-");
  EXPECT_EQ(resolved(db, "t"), "-");
}

TEST(TableNames, ADotBeforeNoSchemaIsPartOfTheName) {
  Db db;
  ASSERT_TRUE(db.exec("CREATE TABLE \"a.b\"(x); CREATE TABLE \"main.c\"(x)"));
  EXPECT_EQ(resolved(db, "a.b"), "main a.b");
  EXPECT_EQ(resolved(db, "main.a.b"), "main a.b");
  // "main." names the schema, so the table would be "c".
  EXPECT_EQ(resolved(db, "main.c"), "-");
  EXPECT_EQ(resolved(db, "main.main.c"), "main main.c");
}

}  // namespace
}  // namespace tuplekv::testing
