// What the tests of tuplekv_kv share (kv_vtab_test.cc, kv_table_test.cc):
// its CREATE statement, its rows as hex, and a fixture holding table t over
// the store the test's parameter names.
#ifndef TUPLEKV_TESTS_EXT_KV_FIXTURE_H_
#define TUPLEKV_TESTS_EXT_KV_FIXTURE_H_

#include <gtest/gtest.h>

#include <string>

#include "tests/testutil.h"

namespace tuplekv::testing {

inline std::string create_sql(const std::string& table, const std::string& store,
                              const std::string& more = "") {
  std::string sql = "CREATE VIRTUAL TABLE " + table + " USING tuplekv_kv(store=" + store;
  if (!more.empty()) sql += ", " + more;
  return sql + ")";
}

// Every pair of `table`, as hex, in key order.
inline Rows snapshot(Db& db, const std::string& table = "t") {
  return db.rows("SELECT hex(key), hex(value) FROM " + table + " ORDER BY key");
}

class KvFixture : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override { ASSERT_TRUE(db.exec(create_sql("t", store()))); }
  const std::string& store() const { return GetParam(); }
  bool memory() const { return store() == "memory"; }
  Db db;
};

}  // namespace tuplekv::testing

#endif  // TUPLEKV_TESTS_EXT_KV_FIXTURE_H_
