// tuplekv_check over a database file that a second connection writes to.
// The call is one transaction (ext/table_check.cc): a commit by the other
// connection between the scan of the rows and that of an index is not seen,
// and a rebuild that fails part-way leaves nothing behind. Both are driven
// from a progress handler on the checking connection, which runs while the
// check's own statements step.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <string>

#include "tests/testutil.h"

namespace tuplekv::testing {
namespace {

// The entries of index bi in the shadow table.
const std::string kIndexEntries =
    "s_kv WHERE k >= tuple_pack('bi') AND k < tuple_range_end(tuple_pack('bi'))";

class TableCheckTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = ::testing::TempDir() + "tuplekv_table_check_" + std::to_string(getpid()) + ".db";
    remove_files();
    a_ = std::make_unique<Db>(path_);
    b_ = std::make_unique<Db>(path_);
    // WAL: the other connection commits while this one reads.
    ASSERT_EQ(a_->value("PRAGMA journal_mode=WAL"), "wal");
    ASSERT_TRUE(a_->exec(
        "CREATE VIRTUAL TABLE s USING tuplekv_table(a INTEGER, b TEXT, PRIMARY KEY(a), INDEX bi(b));"
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500) "
        "INSERT INTO s SELECT i, 'v' || i FROM n"));
  }
  void TearDown() override {
    sqlite3_progress_handler(a_->handle(), 0, nullptr, nullptr);
    a_.reset();
    b_.reset();
    remove_files();
  }
  void remove_files() {
    for (const char* suffix : {"", "-wal", "-shm"}) std::remove((path_ + suffix).c_str());
  }

  std::string path_;
  std::unique_ptr<Db> a_;
  std::unique_ptr<Db> b_;
};

struct Writer {
  Db* other;
  int calls = 0;
  int committed = 0;
};

// On its 3rd call: the other connection inserts a row (and its entry).
int commit_from_the_other_connection(void* arg) {
  auto* w = static_cast<Writer*>(arg);
  if (++w->calls == 3) {
    w->committed = w->other->exec("INSERT INTO s VALUES (100000, 'late')") ? 1 : -1;
  }
  return 0;
}

TEST_F(TableCheckTest, ACommitDuringTheCheckIsNotSeenHalfway) {
  Writer w{b_.get()};
  sqlite3_progress_handler(a_->handle(), 50, commit_from_the_other_connection, &w);
  EXPECT_EQ(a_->value("SELECT tuplekv_check('s')"), "ok");
  sqlite3_progress_handler(a_->handle(), 0, nullptr, nullptr);
  ASSERT_EQ(w.committed, 1) << "the other connection did not write during the check";
  EXPECT_EQ(a_->value("SELECT count(*) FROM s"), "501");
  EXPECT_EQ(a_->value("SELECT tuplekv_check('s')"), "ok");
}

struct Interrupter {
  int after;
  int calls = 0;
};

int interrupt_after(void* arg) {
  auto* i = static_cast<Interrupter*>(arg);
  return ++i->calls > i->after ? 1 : 0;
}

TEST_F(TableCheckTest, ARebuildThatFailsPartWayLeavesNothing) {
  ASSERT_TRUE(a_->exec("DELETE FROM " + kIndexEntries));
  const std::string broken = a_->value("SELECT tuplekv_check('s')");
  ASSERT_EQ(broken, "s: index bi has no entry for row ('s', 1)");
  // How many progress calls a whole rebuild makes (undone afterwards).
  Interrupter count{1 << 30};
  ASSERT_TRUE(a_->exec("BEGIN"));
  sqlite3_progress_handler(a_->handle(), 10, interrupt_after, &count);
  EXPECT_EQ(a_->value("SELECT tuplekv_check('s', 'rebuild')"), "500");
  sqlite3_progress_handler(a_->handle(), 0, nullptr, nullptr);
  ASSERT_TRUE(a_->exec("ROLLBACK"));
  ASSERT_GT(count.calls, 100);
  // Interrupt it at successive points, while it reads and while it writes:
  // none may leave part of the index written.
  for (int percent : {1, 10, 30, 60, 90, 99}) {
    Interrupter i{count.calls * percent / 100};
    sqlite3_progress_handler(a_->handle(), 10, interrupt_after, &i);
    const int code =
        sqlite3_exec(a_->handle(), "SELECT tuplekv_check('s', 'rebuild')", nullptr, nullptr, nullptr);
    sqlite3_progress_handler(a_->handle(), 0, nullptr, nullptr);
    EXPECT_EQ(code, SQLITE_INTERRUPT) << percent << "%";
    EXPECT_EQ(b_->value("SELECT count(*) FROM " + kIndexEntries), "0") << percent << "%";
    EXPECT_EQ(a_->value("SELECT tuplekv_check('s')"), broken) << percent << "%";
  }
  EXPECT_EQ(a_->value("SELECT tuplekv_check('s', 'rebuild')"), "500");
  EXPECT_EQ(b_->value("SELECT tuplekv_check('s')"), "ok");
}

}  // namespace
}  // namespace tuplekv::testing
