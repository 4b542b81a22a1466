// The loadable module in the sqlite3 command-line shell, as people use it:
// `.load <build dir>/tuplekv` (no file suffix; the shell adds it), then SQL.
// Each test runs the shell as a child process with a script on stdin and
// checks what it printed. A missing sqlite3 shell is a failure, not a skip:
// this is the one test that proves `.load` works.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace tuplekv {
namespace {

constexpr const char* kShell = TUPLEKV_SQLITE3_SHELL;
constexpr const char* kModule = TUPLEKV_EXTENSION_PATH;

struct ShellResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

std::string read_file(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Runs `sqlite3 -batch <args...>` with `script` on stdin.
ShellResult run_shell(const std::string& script, const std::vector<std::string>& args = {}) {
  ShellResult r;
  const std::filesystem::path dir = std::filesystem::temp_directory_path();
  const std::string stem = (dir / ("tuplekv_shell_test_" + std::to_string(getpid()))).string();
  const std::string in_path = stem + ".sql", out_path = stem + ".out", err_path = stem + ".err";
  {
    std::ofstream f(in_path, std::ios::binary);
    f << script;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, in_path.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  std::vector<std::string> argv_s = {kShell, "-batch"};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  if (args.empty()) argv_s.push_back(":memory:");
  std::vector<char*> argv;
  for (std::string& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, kShell, &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    ADD_FAILURE() << "cannot run " << kShell << ": " << std::strerror(rc);
    return r;
  }
  int status = 0;
  waitpid(pid, &status, 0);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_file(out_path);
  r.err = read_file(err_path);
  std::filesystem::remove(in_path);
  std::filesystem::remove(out_path);
  std::filesystem::remove(err_path);
  return r;
}

std::string load_line() { return std::string(".load ") + kModule + "\n"; }

class ShellTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_STRNE(kShell, "")
        << "the sqlite3 command-line shell was not found when the build was configured; "
           "install it (Debian: apt-get install sqlite3) and configure again";
    struct stat st;
    ASSERT_EQ(stat(kShell, &st), 0) << kShell << " does not exist";
    ASSERT_STRNE(kModule, "") << "the tuplekv module target does not exist in this build";
    ASSERT_EQ(stat((std::string(kModule) + ".so").c_str(), &st), 0)
        << kModule << ".so was not built";
  }
};

TEST_F(ShellTest, LoadsTheModuleAndRunsEveryFunction) {
  const ShellResult r = run_shell(load_line() + R"sql(
SELECT hex(tuple_pack('CA', 'Alameda', 42));
SELECT tuple_unpack(tuple_pack('a', 1.5, NULL, x'00ff', tuple_pack(1, 2)));
SELECT hex(tuple_pack_json('["a",1.5,null,{"$bytes":"00ff"},[1,2]]'));
SELECT tuple_repr(tuple_pack('CA', 'Alameda', 42, tuple_bool(1)));
SELECT hex(tuple_strinc(x'0102ff')), hex(tuple_range_end(tuple_pack('CA')));
SELECT tuple_unpack(tuple_pack(tuple_uuid('00112233-4455-6677-8899-aabbccddeeff'),
                               tuple_float(1.5), tuple_bigint('18446744073709551616'),
                               tuple_versionstamp('0102030405060708090a0b0c')));
SELECT idx, type, quote(value), hex(raw) FROM tuple_each(tuple_pack('x', 7, tuple_pack(8)));
)sql");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out,
            "0243410002416C616D6564610015" "2A\n"
            "[\"a\",1.5,null,{\"$bytes\":\"00ff\"},[1,2]]\n"
            "02610021BFF800000000000000" "0100FFFF0005150115020" "0\n"
            "('CA', 'Alameda', 42, True)\n"
            "0103|02434100FF\n"
            "[{\"$uuid\":\"00112233445566778899aabbccddeeff\"},{\"$float\":1.5},"
            "18446744073709551616,{\"$versionstamp\":\"0102030405060708090a0b0c\"}]\n"
            "0|string|'x'|027800\n"
            "1|int|7|1507\n"
            "2|tuple|X'1508'|05150800\n");
}

TEST_F(ShellTest, ErrorsReachTheShellWithTheirMessages) {
  const ShellResult r = run_shell(load_line() + ".bail on\n" +
                                  "SELECT 'before';\n"
                                  "SELECT tuple_unpack(x'1501ff');\n"
                                  "SELECT 'after';\n");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_EQ(r.out, "before\n");
  EXPECT_NE(r.err.find("tuple_unpack: malformed tuple: unknown type code at byte 2 (type code "
                       "0xff)"),
            std::string::npos)
      << r.err;
  const ShellResult j = run_shell(load_line() + "SELECT tuple_pack_json('[1,{\"$foo\":1}]');\n");
  EXPECT_NE(j.err.find("tuple_pack_json: element 1 at byte 4: unknown tag \"$foo\""),
            std::string::npos)
      << j.err;
  const ShellResult e = run_shell(load_line() + "SELECT * FROM tuple_each('ab');\n");
  EXPECT_NE(e.err.find("tuple_each: argument must be a BLOB (a packed tuple), got TEXT"),
            std::string::npos)
      << e.err;
}

TEST_F(ShellTest, LoadsTwiceAndByExplicitEntryPoint) {
  const ShellResult r = run_shell(load_line() + load_line() +
                                  std::string(".load ") + kModule + " sqlite3_tuplekv_init\n" +
                                  "SELECT tuple_repr(tuple_pack(1));\n"
                                  "SELECT count(*) FROM tuple_each(tuple_pack(1, 2));\n");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "(1,)\n2\n");
}

TEST_F(ShellTest, KeysStoredInAFileDatabaseReadBackInANewSession) {
  const std::string db =
      (std::filesystem::temp_directory_path() /
       ("tuplekv_shell_test_" + std::to_string(getpid()) + ".db"))
          .string();
  std::filesystem::remove(db);
  ShellResult w = run_shell(load_line() +
                                "CREATE TABLE k(k BLOB PRIMARY KEY, v) WITHOUT ROWID;\n"
                                "INSERT INTO k VALUES (tuple_pack('CA', 'Alameda'), 1),"
                                " (tuple_pack('CA', 'Berkeley'), 2), (tuple_pack('NY', 'Albany'), 3);\n",
                            {db});
  EXPECT_EQ(w.exit_code, 0) << w.err;
  ShellResult r = run_shell(load_line() +
                                "SELECT tuple_repr(k), v FROM k WHERE k >= tuple_pack('CA') AND "
                                "k < tuple_range_end(tuple_pack('CA')) ORDER BY k;\n",
                            {db});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "('CA', 'Alameda')|1\n('CA', 'Berkeley')|2\n");
  std::filesystem::remove(db);
}

// The shell's .dump writes a virtual table as a sqlite_schema row and its
// shadow table as an ordinary one, so the dump of a database holding
// tuplekv tables rebuilds it: same rows, same index entries, same keys.
TEST_F(ShellTest, DumpOfAFileDatabaseRebuildsItsTables) {
  const std::string stem = (std::filesystem::temp_directory_path() /
                            ("tuplekv_shell_dump_" + std::to_string(getpid())))
                               .string();
  const std::string from = stem + "_from.db", to = stem + "_to.db";
  std::filesystem::remove(from);
  std::filesystem::remove(to);
  const ShellResult w = run_shell(load_line() + R"sql(
CREATE VIRTUAL TABLE users USING tuplekv_table(user_id INTEGER, name TEXT, region TEXT,
                                               PRIMARY KEY(user_id), INDEX region_idx(region));
INSERT INTO users VALUES (1, 'ann', 'CA'), (2, 'bob', 'NY'), (3, 'cy', 'CA');
CREATE VIRTUAL TABLE kv USING tuplekv_kv(subspace=app);
INSERT INTO kv VALUES (tuple_pack('CA', 1), x'01'), (tuple_pack('NY', 2), x'');
)sql",
                                  {from});
  ASSERT_EQ(w.exit_code, 0) << w.err;
  const ShellResult dump = run_shell(load_line() + ".dump\n", {from});
  ASSERT_EQ(dump.exit_code, 0) << dump.err;
  const ShellResult load = run_shell(load_line() + ".bail on\n" + dump.out, {to});
  ASSERT_EQ(load.exit_code, 0) << load.err << "\nthe dump:\n" << dump.out;
  const std::string reads =
      load_line() +
      "SELECT user_id, name FROM users WHERE region = 'CA' ORDER BY user_id;\n"
      "SELECT tuplekv_check('users');\n"
      "SELECT tuple_repr(key), hex(value) FROM kv WHERE prefix = tuple_pack('CA');\n"
      "SELECT hex(k) FROM kv_kv ORDER BY k;\n";
  const ShellResult before = run_shell(reads, {from});
  const ShellResult after = run_shell(reads, {to});
  EXPECT_EQ(after.exit_code, 0) << after.err;
  EXPECT_EQ(after.out,
            "1|ann\n3|cy\nok\n('CA', 1)|01\n"
            "0261707000024341001501\n026170700002"
            "4E59001502\n");
  EXPECT_EQ(after.out, before.out);
  std::filesystem::remove(from);
  std::filesystem::remove(to);
}

// README's demo command: the shell, the module loaded with -cmd, and
// sql/demo.sql on stdin. Its output is checked in as sql/demo.expected, so
// a change in what the demo prints is a reviewed change.
TEST_F(ShellTest, DemoPrintsItsCheckedInOutput) {
  const std::string dir = std::string(TUPLEKV_SOURCE_DIR) + "/sql/";
  const std::string script = read_file(dir + "demo.sql");
  const std::string expected = read_file(dir + "demo.expected");
  ASSERT_FALSE(script.empty()) << dir << "demo.sql is missing or empty";
  ASSERT_FALSE(expected.empty()) << dir << "demo.expected is missing or empty";
  const ShellResult r = run_shell(script, {"-bail", "-cmd", ".load " + std::string(kModule),
                                           ":memory:"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out, expected);
}

}  // namespace
}  // namespace tuplekv
