// limit_pushdown_allowed(): the probe's answer checked against what a
// forced pushdown actually returns on this SQLite, and the plans without
// pushdown checked against native results.
#include "ext/limit_pushdown.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "tests/testutil.h"

namespace tuplekv::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class LimitPushdownTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(db_.exec(
        "CREATE VIRTUAL TABLE t USING tuplekv_table(pk INTEGER, a INTEGER, b INTEGER, PRIMARY KEY(pk));"
        "CREATE TABLE n(pk INTEGER NOT NULL, a INTEGER, b INTEGER, PRIMARY KEY(pk)) STRICT, WITHOUT ROWID;"
        "INSERT INTO n VALUES (1, 5, 1), (2, 1, 5), (3, 7, 2), (4, 1, 9), (5, 8, 0), (6, 0, 8), (7, 3, 3);"
        "INSERT INTO t SELECT * FROM n"));
  }
  Rows on(const std::string& table, const std::string& rest) {
    return db_.rows("SELECT pk FROM " + table + " " + rest);
  }
  std::string plan(const std::string& sql) {
    std::string out;
    for (const Row& r : db_.rows("EXPLAIN QUERY PLAN " + sql)) out += r.back();
    return out;
  }
  Db db_;
};

// Forcing the pushdown gives the wrong rows exactly where SQLite withholds
// `a > b` while offering the LIMIT, which is what the probe must detect.
TEST_F(LimitPushdownTest, ProbeAgreesWithWhatAForcedPushdownReturns) {
  const std::string rest = "WHERE a > b ORDER BY pk LIMIT 2 OFFSET 1";
  const Rows native = on("n", rest);
  ASSERT_EQ(native, (Rows{{"3"}, {"5"}}));
  bool forced_right = false;
  {
    ext::LimitPushdownOverride force(true);
    forced_right = on("t", rest) == native;
  }
  EXPECT_EQ(ext::limit_pushdown_allowed(), forced_right);
  EXPECT_EQ(on("t", rest), native);
}

TEST_F(LimitPushdownTest, WithoutPushdownSqliteAppliesLimitAndOffset) {
  {
    ext::LimitPushdownOverride off(false);
    for (const char* rest : {"ORDER BY pk LIMIT 2 OFFSET 1", "ORDER BY pk DESC LIMIT 3",
                             "WHERE pk > 2 LIMIT 2 OFFSET 2", "WHERE pk IN (6, 2, 4) ORDER BY pk LIMIT 1 OFFSET 1",
                             "LIMIT 0", "LIMIT -1 OFFSET 5"}) {
      SCOPED_TRACE(rest);
      EXPECT_THAT(plan(std::string("SELECT pk FROM t ") + rest), Not(HasSubstr("limit")));
      EXPECT_EQ(on("t", rest), on("n", rest));
    }
  }
  ext::LimitPushdownOverride allowed(true);  // the same plan takes them when allowed
  EXPECT_THAT(plan("SELECT pk FROM t ORDER BY pk LIMIT 2 OFFSET 1"), HasSubstr("limit ?1 offset ?2"));
}

}  // namespace
}  // namespace tuplekv::testing
