// The built module loaded by several threads at once, each into its own
// connections to one database file, as a threaded application (or a pool
// of ETL workers) does: every load succeeds, every thread's reads and
// writes work, and the tables end consistent. Under the sanitizers this is
// also where a load racing with other threads' use would show.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "tests/testutil.h"

namespace tuplekv::testing {
namespace {

constexpr int kThreads = 4;
constexpr int kConnectionsPerThread = 5;
constexpr int kWritesPerConnection = 20;

// sqlite3_exec callback: counts results of tuplekv_check that are not 'ok'
// (other threads commit while it runs; it must still see one moment).
int record_check(void* arg, int n, char** values, char** names) {
  if (n == 1 && std::string(names[0]).rfind("tuplekv_check", 0) == 0 &&
      (values[0] == nullptr || std::string(values[0]) != "ok")) {
    ++*static_cast<std::atomic<int>*>(arg);
  }
  return 0;
}

TEST(ExtensionTest, LoadsAndWorksFromManyThreadsAtOnce) {
  const std::string path =
      ::testing::TempDir() + "tuplekv_extension_" + std::to_string(getpid()) + ".db";
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((path + suffix).c_str());
  {
    Db setup(path, Load::kLoadExtension);
    ASSERT_EQ(setup.value("PRAGMA journal_mode=WAL"), "wal");
    ASSERT_TRUE(setup.exec(
        "CREATE VIRTUAL TABLE users USING tuplekv_table(id INTEGER, region TEXT, PRIMARY KEY(id), "
        "INDEX region_idx(region));"
        "CREATE VIRTUAL TABLE kv USING tuplekv_kv;"));
  }
  std::atomic<int> failures{0};
  std::atomic<int> problems{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int c = 0; c < kConnectionsPerThread; ++c) {
        sqlite3* db = nullptr;
        char* err = nullptr;
        bool ok = sqlite3_open(path.c_str(), &db) == SQLITE_OK &&
                  sqlite3_busy_timeout(db, 10000) == SQLITE_OK &&
                  sqlite3_enable_load_extension(db, 1) == SQLITE_OK &&
                  sqlite3_load_extension(db, TUPLEKV_EXTENSION_PATH, nullptr, &err) == SQLITE_OK;
        for (int i = 0; ok && i < kWritesPerConnection; ++i) {
          const int id = (t * kConnectionsPerThread + c) * kWritesPerConnection + i;
          const std::string sql =
              "INSERT INTO users VALUES (" + std::to_string(id) + ", 'r" + std::to_string(id % 7) +
              "'); INSERT INTO kv VALUES (tuple_pack(" + std::to_string(id) + "), x'01');"
              "SELECT count(*) FROM users WHERE region = 'r3';"
              "SELECT tuplekv_check('users');";
          ok = sqlite3_exec(db, sql.c_str(), record_check, &problems, &err) == SQLITE_OK;
        }
        if (!ok) {
          ++failures;
          ADD_FAILURE() << "thread " << t << ": " << (err != nullptr ? err : sqlite3_errmsg(db));
        }
        sqlite3_free(err);
        sqlite3_close(db);
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(problems.load(), 0);
  Db check(path, Load::kLoadExtension);
  const int total = kThreads * kConnectionsPerThread * kWritesPerConnection;
  EXPECT_EQ(check.value("SELECT count(*) FROM users"), std::to_string(total));
  EXPECT_EQ(check.value("SELECT count(*) FROM kv"), std::to_string(total));
  EXPECT_EQ(check.value("SELECT count(*) FROM users WHERE region = 'r0'"),
            check.value("SELECT count(*) FROM users WHERE +region = 'r0'"));
  EXPECT_EQ(check.value("SELECT tuplekv_check('users')"), "ok");
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((path + suffix).c_str());
}

}  // namespace
}  // namespace tuplekv::testing
