// SQLite's sqllogictest scripts (the shared slt/ directory, listed in its
// MANIFEST.tsv) run with their tables declared as tuplekv_table, through the
// built module: every record that applies must give the result written in
// the script, which plain SQLite produced (tests/slt/slt_runner.h has the
// format and the translation rules). Each script also runs as written on
// plain SQLite first, which checks the runner itself.
//
// A missing slt/ directory or MANIFEST.tsv fails the test: the scripts live
// beside the repository (-DTUPLEKV_SHARED_DIR=<dir> when elsewhere).
//
// Not applicable, and counted as such in the summary rather than passed:
// triggers (SQLite refuses them on virtual tables) and expression indexes
// on translated tables. Tables that cannot be translated stay native and are
// counted by reason. Environment:
//   TUPLEKV_SLT_STORE=memory   run the tuplekv mode over store=memory
//   TUPLEKV_SLT_ONLY=<substr>  run only scripts whose path contains it
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

// The test glob builds one source (plus testutil.cc) per binary; the MD5
// used for result hashes is compiled here.
#include "tests/slt/md5.cc"
#include "tests/slt/slt_runner.h"
#include "tests/testutil.h"

namespace tuplekv::testing {
namespace {

std::string slt_dir() { return std::string(TUPLEKV_SHARED_DIR) + "/slt/"; }

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Script paths from MANIFEST.tsv (first column, header skipped), or one
// empty path standing for "the manifest is missing".
std::vector<std::string> scripts() {
  std::vector<std::string> out;
  std::ifstream in(slt_dir() + "MANIFEST.tsv");
  const char* only = std::getenv("TUPLEKV_SLT_ONLY");
  std::string line;
  for (bool header = true; std::getline(in, line); header = false) {
    const std::string path = line.substr(0, line.find('\t'));
    if (header || path.empty()) continue;
    if (only != nullptr && path.find(only) == std::string::npos) continue;
    out.push_back(path);
  }
  if (out.empty()) out.push_back("");
  return out;
}

class Sqllogic : public ::testing::TestWithParam<std::string> {};

TEST_P(Sqllogic, SameResultsAsNative) {
  const std::string& path = GetParam();
  ASSERT_FALSE(path.empty()) << "no sqllogictest scripts: " << slt_dir()
                             << "MANIFEST.tsv is missing or empty (configure with "
                                "-DTUPLEKV_SHARED_DIR=<dir> if it lives elsewhere)";
  const std::string script = read_file(slt_dir() + path);
  ASSERT_FALSE(script.empty()) << "missing or empty script " << slt_dir() + path;

  slt::Stats native;
  {
    Db db(":memory:", Load::kLoadExtension);
    slt::Runner(db.handle(), slt::Mode::kNative).run(script, path, &native);
  }
  EXPECT_EQ(native.failed, 0u) << "the runner fails on plain SQLite:\n"
                               << (native.failures.empty() ? "" : native.failures[0]);

  const char* store = std::getenv("TUPLEKV_SLT_STORE");
  slt::Stats stats;
  {
    Db db(":memory:", Load::kLoadExtension);
    slt::Runner(db.handle(), slt::Mode::kTuplekv, store != nullptr ? store : "")
        .run(script, path, &stats);
  }
  std::string failures;
  for (const std::string& f : stats.failures) failures += f + "\n";
  EXPECT_EQ(stats.failed, 0u) << stats.failed << " of " << stats.records << " records differ:\n"
                              << failures;
  EXPECT_GT(stats.records, 0u);
  std::string na;
  for (const auto& [why, n] : stats.not_applicable_why) na += " " + why + ": " + std::to_string(n);
  std::string kept;
  for (const auto& [why, n] : stats.native_tables) kept += " " + why + ": " + std::to_string(n);
  std::printf("[ slt      ] %s: %zu records, %zu passed, %zu failed, %zu not applicable%s; "
              "%zu tables as tuplekv_table, %zu indexes folded%s%s\n",
              path.c_str(), stats.records, stats.passed, stats.failed, stats.not_applicable,
              na.empty() ? "" : (" (" + na.substr(1) + ")").c_str(), stats.tables_translated,
              stats.indexes_folded, kept.empty() ? "" : "; left native:",
              kept.c_str());
}

INSTANTIATE_TEST_SUITE_P(Slt, Sqllogic, ::testing::ValuesIn(scripts()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param.empty() ? "missing" : info.param;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace tuplekv::testing
