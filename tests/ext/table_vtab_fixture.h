// The fixture the tests of tuplekv_table through SQLite share
// (table_vtab_test.cc, table_write_test.cc, table_planning_test.cc): a
// connection holding the guide's `users` table, over the store the test's
// parameter names, and ways to compare a statement's rows and plan with a
// native reference's.
#ifndef TUPLEKV_TESTS_EXT_TABLE_VTAB_FIXTURE_H_
#define TUPLEKV_TESTS_EXT_TABLE_VTAB_FIXTURE_H_

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <initializer_list>
#include <string>

#include "tests/testutil.h"

namespace tuplekv::testing {


inline constexpr const char* kUsers =
    "CREATE VIRTUAL TABLE users USING tuplekv_table(user_id INTEGER, name TEXT, region TEXT, "
    "PRIMARY KEY(user_id), INDEX region_idx(region), subspace=user%s);"
    "INSERT INTO users VALUES (1, 'ann', 'eu'), (2, 'bob', 'us'), (3, 'cy', 'eu'), (4, 'di', 'asia');";

inline std::string users(const std::string& store) {
  char buf[512];
  std::snprintf(buf, sizeof buf, kUsers, store.empty() ? "" : (", store=" + store).c_str());
  return buf;
}

class TableVtabFixture : public ::testing::TestWithParam<std::string> {
 public:
  // `tmpl` with each @T replaced by `table` (for tests without the fixture too).
  static std::string on(std::string tmpl, const std::string& table) {
    for (size_t at = tmpl.find("@T"); at != std::string::npos; at = tmpl.find("@T", at + table.size())) {
      tmpl.replace(at, 2, table);
    }
    return tmpl;
  }

 protected:
  void SetUp() override { ASSERT_TRUE(db_.exec(users(GetParam()))); }
  std::string plan(const std::string& sql) {
    std::string out;
    for (const Row& r : db_.rows("EXPLAIN QUERY PLAN " + sql)) out += r.back() + ";";
    return out;
  }
  // A tuplekv_stats() counter of `table` ("rows", "ranges", ...) over `sql`.
  int stat(const std::string& table, const std::string& sql, const std::string& field) {
    db_.value("SELECT tuplekv_stats('" + table + "', 'reset')");
    db_.rows(sql);
    const std::string s = db_.value("SELECT tuplekv_stats('" + table + "')");
    const size_t at = s.find("\"" + field + "\":") + field.size() + 3;
    return std::stoi(s.substr(at, s.find_first_of(",}", at) - at));
  }
  // Pairs read from the store of users by `sql`.
  std::string reads(const std::string& sql) { return std::to_string(stat("users", sql, "rows")); }
  // ", store=memory" for the memory run, to end a declaration's arguments.
  std::string store_option() const { return GetParam() == "memory" ? ", store=memory" : ""; }
  // The virtual table `vt`, declared with `cols` then `vt_extra`, and its
  // native reference n with the same `cols` (STRICT, WITHOUT ROWID, then
  // `native_sql`), both given the same `rows` (" VALUES ...").
  void create_with_native(const std::string& vt, const std::string& cols, const std::string& vt_extra,
                          const std::string& native_sql, const std::string& rows) {
    ASSERT_TRUE(db_.exec("CREATE VIRTUAL TABLE " + vt + " USING tuplekv_table(" + cols + vt_extra +
                         store_option() + "); CREATE TABLE n(" + cols + ") STRICT, WITHOUT ROWID;" +
                         native_sql));
    ASSERT_TRUE(db_.exec("INSERT INTO " + vt + rows + "; INSERT INTO n" + rows));
  }
  // The query gives the virtual table `vt` the rows it gives the native
  // table n, and those are not none (so the case shows something).
  void expect_as_native(const std::string& tmpl, const std::string& vt) {
    const Rows native = db_.rows(on(tmpl, "n"));
    EXPECT_EQ(db_.rows(on(tmpl, vt)), native) << tmpl;
    EXPECT_FALSE(native.empty()) << tmpl;
  }
  void expect_as_native(std::initializer_list<const char*> tmpls, const std::string& vt) {
    for (const char* tmpl : tmpls) expect_as_native(tmpl, vt);
  }
  // As expect_as_native(), where EXPLAIN QUERY PLAN also shows
  // `native_plan` for n and `vt_plan` for `vt`: the same index is read.
  void expect_planned_as_native(const std::string& tmpl, const std::string& vt, const std::string& native_plan,
                                const std::string& vt_plan) {
    SCOPED_TRACE(tmpl);
    EXPECT_THAT(plan(on(tmpl, "n")), ::testing::HasSubstr(native_plan));
    EXPECT_THAT(plan(on(tmpl, vt)), ::testing::HasSubstr(vt_plan));
    expect_as_native(tmpl, vt);
  }
  // A statement, the native index SQLite searches for it, and (part of)
  // the plan tuplekv's table `vt` gets.
  struct NativeIndexPlan {
    const char* sql;
    const char* native_index;
    const char* plan;
  };
  void expect_planned_as_native(const std::string& vt, std::initializer_list<NativeIndexPlan> cases) {
    for (const NativeIndexPlan& c : cases) {
      expect_planned_as_native(c.sql, vt, std::string("INDEX ") + c.native_index, c.plan);
    }
  }
  Db db_;
};

}  // namespace tuplekv::testing

#endif  // TUPLEKV_TESTS_EXT_TABLE_VTAB_FIXTURE_H_
