// The tuplekv_table examples in sql/ (the data-modeling guide's arrays,
// entities and relationships, county populations, users by region, a
// follower graph) run through the built module, loaded as users load it,
// and their output must equal sql/<name>.expected.
//
// Output is the sqlite3 shell's default list mode (columns joined by '|',
// NULL as an empty string). The examples show refused statements on
// purpose, so a failing statement does not stop the script: it prints
// "error: <message>" and the script goes on, as the shell does without
// .bail (the shell adds "Runtime error near line N" and the code instead).
// Each example also runs over store=memory tables (the option appended to
// every tuplekv_table declaration), which must print the same.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <string>

#include "tests/ext/sql_example.h"
#include "tests/testutil.h"

namespace tuplekv::testing {
namespace {

std::string run_script(sqlite3* db, const std::string& sql) {
  std::string out;
  const char* tail = sql.c_str();
  while (tail != nullptr && *tail != '\0') {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, tail, -1, &stmt, &tail) != SQLITE_OK) {
      out += std::string("error: ") + sqlite3_errmsg(db) + "\n";
      if (tail == nullptr) break;
      continue;
    }
    if (stmt == nullptr) continue;
    int rc;
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
      for (int i = 0; i < sqlite3_column_count(stmt); ++i) {
        if (i > 0) out += '|';
        const unsigned char* t = sqlite3_column_text(stmt, i);
        if (t != nullptr) out.append(reinterpret_cast<const char*>(t));
      }
      out += '\n';
    }
    if (rc != SQLITE_DONE) out += std::string("error: ") + sqlite3_errmsg(db) + "\n";
    sqlite3_finalize(stmt);
  }
  return out;
}

// Appends `, store=memory` to every tuplekv_table(...) argument list.
std::string with_memory_store(std::string sql) {
  const std::string module = "USING tuplekv_table(";
  for (size_t p = sql.find(module); p != std::string::npos; p = sql.find(module, p + 1)) {
    int depth = 0;
    for (size_t i = p + module.size() - 1; i < sql.size(); ++i) {
      if (sql[i] == '(') ++depth;
      if (sql[i] == ')' && --depth == 0) {
        sql.insert(i, ", store=memory");
        break;
      }
    }
  }
  return sql;
}

class TableExample : public ::testing::TestWithParam<const char*> {};

TEST_P(TableExample, OutputMatchesExpected) {
  const std::string dir = std::string(TUPLEKV_SOURCE_DIR) + "/sql/";
  const std::string name = GetParam();
  const std::string sql = read_text_file(dir + name + ".sql");
  const std::string expected = read_text_file(dir + name + ".expected");
  ASSERT_FALSE(sql.empty()) << dir + name + ".sql is missing";
  ASSERT_FALSE(expected.empty()) << dir + name + ".expected is missing";
  {
    Db db(":memory:", Load::kLoadExtension);
    EXPECT_EQ(run_script(db.handle(), sql), expected) << name;
  }
  {
    // A memory store has no shadow table to look at: statements that read
    // <t>_kv are left out, and the rest must print the same on both stores.
    std::string without_kv;
    size_t start = 0;
    while (start < sql.size()) {
      size_t end = sql.find(";\n", start);
      end = end == std::string::npos ? sql.size() : end + 2;
      const std::string stmt = sql.substr(start, end - start);
      if (stmt.find("_kv") == std::string::npos) without_kv += stmt;
      start = end;
    }
    const std::string memory = with_memory_store(without_kv);
    ASSERT_NE(memory, without_kv) << name << " declares no tuplekv_table";
    Db on_sqlite(":memory:", Load::kLoadExtension);
    Db on_memory(":memory:", Load::kLoadExtension);
    EXPECT_EQ(run_script(on_memory.handle(), memory), run_script(on_sqlite.handle(), without_kv))
        << name << " with store=memory";
  }
}

INSTANTIATE_TEST_SUITE_P(Sql, TableExample,
                         ::testing::Values("table_arrays", "table_er", "table_counties",
                                           "table_users", "table_graph"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return std::string(info.param).substr(6);
                         });

}  // namespace
}  // namespace tuplekv::testing
