// Runs an example from sql/ through the extension and renders its output
// as the sqlite3 shell's default list mode does (columns joined by '|',
// NULL as an empty string), so the .expected files are plain shell output.
#ifndef TUPLEKV_TESTS_EXT_SQL_EXAMPLE_H_
#define TUPLEKV_TESTS_EXT_SQL_EXAMPLE_H_

#include <sqlite3.h>

#include <fstream>
#include <sstream>
#include <string>

namespace tuplekv::testing {

inline std::string read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The output of every statement of `sql`; stops at the first error and
// appends "error: <message>".
inline std::string run_example(sqlite3* db, const std::string& sql) {
  std::string out;
  const char* tail = sql.c_str();
  while (tail != nullptr && *tail != '\0') {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, tail, -1, &stmt, &tail) != SQLITE_OK) {
      return out + "error: " + sqlite3_errmsg(db) + "\n";
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
    sqlite3_finalize(stmt);
    if (rc != SQLITE_DONE) return out + "error: " + sqlite3_errmsg(db) + "\n";
  }
  return out;
}

}  // namespace tuplekv::testing

#endif  // TUPLEKV_TESTS_EXT_SQL_EXAMPLE_H_
