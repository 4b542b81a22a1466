// tuplekv_check over a database file that a second connection writes to.
// The call is one transaction (ext/table_check.cc): a commit by the other
// connection between the scan of the rows and that of an index is not seen,
// and a rebuild that fails part-way leaves nothing behind. Both are driven
// from a progress handler on the checking connection, which runs while the
// check's own statements step.
//
// And tuplekv_check over shadow tables damaged at random: whatever a read
// of the table fails on, the check names.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cstdio>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/bytes.h"
#include "tests/ext/pair_diff.h"
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

// Rows whose values repeat in a unique index (written straight into the
// shadow table) cannot have their index rebuilt: the rebuild fails as
// SQLite's REINDEX does and leaves the shadow table as it was.
TEST_F(TableCheckTest, ARebuildRefusesRowsThatRepeatAUniqueIndex) {
  ASSERT_TRUE(a_->exec(
      "CREATE VIRTUAL TABLE u USING tuplekv_table(a INTEGER, b TEXT, c INTEGER, PRIMARY KEY(a), "
      "UNIQUE INDEX ci(c));"
      "INSERT INTO u VALUES (1, 'v1', 1), (2, 'v2', 2);"
      "UPDATE u_kv SET v = tuple_pack('v1', 1) WHERE k = tuple_pack('u', 2)"));
  const std::string stored = "SELECT group_concat(hex(k) || ':' || hex(v)) FROM u_kv";
  const std::string before = a_->value(stored);
  EXPECT_EQ(a_->error("SELECT tuplekv_check('u', 'rebuild')"),
            "tuplekv_check: UNIQUE constraint failed: u.c");
  EXPECT_EQ(a_->error_code("SELECT tuplekv_check('u', 'rebuild')"), SQLITE_CONSTRAINT_UNIQUE);
  EXPECT_EQ(a_->value(stored), before);
  EXPECT_EQ(a_->value("SELECT tuplekv_check('u')"), "u: index ci has no entry for row ('u', 2)");
  // Mended, the rebuild goes through.
  ASSERT_TRUE(a_->exec("UPDATE u_kv SET v = tuple_pack('v2', 2) WHERE k = tuple_pack('u', 2)"));
  EXPECT_EQ(a_->value("SELECT tuplekv_check('u', 'rebuild')"), "0");
  EXPECT_EQ(a_->value("SELECT tuplekv_check('u')"), "ok");
}

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

// ---------------------------------------------------------------------------
// Random damage

// A statement's error message, or "" when it succeeded.
std::string outcome(sqlite3* db, const std::string& sql) { return run_sql(db, sql).message; }

// A bare name is the table a statement would reach (temp, main, then
// attached in attach order), whichever of them this connection has opened:
// here main's t, damaged, though only aux's healthy t has been read.
TEST(TableCheckNameTest, ABareNameChecksTheTableAStatementWouldReach) {
  const std::string path = ::testing::TempDir() + "tuplekv_table_check_name_" + std::to_string(getpid()) + ".db";
  std::remove(path.c_str());
  const std::string create = " USING tuplekv_table(k INTEGER, v TEXT, PRIMARY KEY(k), INDEX vi(v));";
  {
    Db writer(path);
    ASSERT_TRUE(writer.exec("CREATE VIRTUAL TABLE t" + create +
                            "INSERT INTO t VALUES (1, 'a'), (2, 'b');"
                            "DELETE FROM t_kv WHERE k = tuple_pack('vi', 'b', 2)"));
  }
  {
    Db db(path);
    ASSERT_TRUE(db.exec("ATTACH ':memory:' AS aux; CREATE VIRTUAL TABLE aux.t" + create +
                        "INSERT INTO aux.t VALUES (1, 'a')"));
    EXPECT_EQ(db.value("SELECT tuplekv_check('t')"), "t: index vi has no entry for row ('t', 2)");
    EXPECT_EQ(db.value("SELECT tuplekv_check('aux.t')"), "ok");
    EXPECT_EQ(db.error("SELECT tuplekv_check('other.t')"), "tuplekv_check: no such table: other.t");
  }
  std::remove(path.c_str());
}

class Damage {
 public:
  explicit Damage(uint32_t seed) : rng_(seed) {}

  size_t below(size_t n) { return static_cast<size_t>(rng_() % n); }

  std::string literal() {
    static const char* const kPool[] = {"NULL", "0", "1", "-1", "2.5", "-0.0", "9223372036854775807",
                                        "-9223372036854775808", "'a'", "'\u00e9'", "''", "x''", "x'00ff'",
                                        "1e300", "'x' || char(0) || 'y'"};
    return kPool[below(std::size(kPool))];
  }

  std::string mutate(const std::string& b) { return damaged(&rng_, b); }

 private:
  std::mt19937 rng_;
};

// A table of random columns, key and indexes with random rows; one or two
// of its shadow rows damaged (a value changed, a key changed, or a pair
// gone); then reads, the check, a rebuild and writes, three times over.
// Whatever a read fails on, the check must name (it may name more: an
// index entry without its row fails no read); a rebuild that succeeds
// leaves nothing to name but damaged rows; every failure is a message
// naming the store once, never an internal error. Under the sanitizers
// this is also a run of every decoder over hostile bytes.
TEST(TableCheckDamageTest, WhatReadsFailOnTheCheckNames) {
  constexpr int kRounds = 400;
  static const char* const kTypes[] = {"INTEGER", "REAL", "TEXT", "BLOB", "ANY"};
  Damage d(20261125);
  int reads_failed = 0;
  int rebuilt = 0;
  for (int round = 0; round < kRounds; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    Db db;
    sqlite3* h = db.handle();
    const size_t nk = d.below(3);
    const size_t ncols = nk + 1 + d.below(3);
    auto col = [&] { return "c" + std::to_string(d.below(ncols)); };
    std::string decl;
    for (size_t c = 0; c < ncols; ++c) {
      decl += (c == 0 ? "c" : ", c") + std::to_string(c) + " " + kTypes[d.below(std::size(kTypes))];
    }
    if (nk > 0) decl += nk == 1 ? ", PRIMARY KEY(c0)" : ", PRIMARY KEY(c0, c1)";
    if (d.below(10) < 7) decl += ", INDEX ix(" + col() + ")";
    if (d.below(10) < 4) decl += ", UNIQUE INDEX ux(" + col() + ", " + col() + ")";
    SCOPED_TRACE(decl);
    ASSERT_TRUE(db.exec("CREATE VIRTUAL TABLE t USING tuplekv_table(" + decl + ")"));
    for (size_t n = 3 + d.below(20); n > 0; --n) {
      std::string values;
      for (size_t c = 0; c < ncols; ++c) values += (c == 0 ? "" : ", ") + d.literal();
      outcome(h, "INSERT OR IGNORE INTO t VALUES (" + values + ")");
    }
    const Rows stored = db.rows("SELECT hex(k), hex(v) FROM t_kv");
    // The pair's key or value, damaged, as a BLOB literal.
    auto damaged_literal = [&](const std::string& hex) {
      Bytes b;
      EXPECT_TRUE(from_hex(hex, &b)) << hex;
      return "x'" + to_hex(d.mutate(b)) + "'";
    };
    for (size_t n = 1 + d.below(2); n > 0 && !stored.empty(); --n) {
      const Row& pair = stored[d.below(stored.size())];
      const std::string k = "x'" + pair[0] + "'";
      switch (d.below(3)) {
        case 0:
          outcome(h, "UPDATE t_kv SET v = " + damaged_literal(pair[1]) + " WHERE k = " + k);
          break;
        case 1:
          outcome(h, "UPDATE OR REPLACE t_kv SET k = " + damaged_literal(pair[0]) + " WHERE k = " + k);
          break;
        default:
          outcome(h, "DELETE FROM t_kv WHERE k = " + k);
      }
    }
    for (int pass = 0; pass < 3; ++pass) {
      SCOPED_TRACE("pass " + std::to_string(pass));
      const std::string check = db.value("SELECT tuplekv_check('t')");
      std::vector<std::string> reads = {"SELECT * FROM t", "SELECT * FROM t ORDER BY c0 DESC"};
      for (size_t c = 0; c < ncols; ++c) {
        const std::string name = "c" + std::to_string(c);
        reads.push_back("SELECT * FROM t WHERE " + name + " IS NOT NULL");
        reads.push_back("SELECT count(*) FROM t WHERE " + name + " > -1e999");
      }
      for (const std::string& sql : reads) {
        const std::string error = outcome(h, sql);
        if (error.empty()) continue;
        ++reads_failed;
        EXPECT_NE(check, "ok") << sql << ": " << error;
        EXPECT_EQ(error.find("internal error"), std::string::npos) << sql << ": " << error;
        const size_t store = error.find("corrupt store of t");
        EXPECT_NE(store, std::string::npos) << sql << ": " << error;
        EXPECT_EQ(error.find("corrupt store of t", store + 1), std::string::npos) << sql << ": " << error;
      }
      if (pass == 0) {
        if (outcome(h, "SELECT tuplekv_check('t', 'rebuild')").empty()) {
          ++rebuilt;
          const std::string after = db.value("SELECT tuplekv_check('t')");
          EXPECT_TRUE(after == "ok" || after.rfind("t: row ", 0) == 0) << after;
        }
      } else if (pass == 1) {
        // Writes into the damaged table: errors or not, no crash, and an
        // error never an internal one.
        const std::vector<std::string> writes = {"UPDATE t SET " + col() + " = " + d.literal(),
                                                 "DELETE FROM t WHERE " + col() + " IS NULL",
                                                 "INSERT OR REPLACE INTO t SELECT * FROM t LIMIT 1"};
        for (const std::string& sql : writes) {
          const std::string error = outcome(h, sql);
          EXPECT_EQ(error.find("internal error"), std::string::npos) << sql << ": " << error;
        }
      }
    }
  }
  // The damage reached reads, and rebuilds ran (one refuses a table whose
  // rows do not split).
  EXPECT_GT(reads_failed, kRounds / 2);
  EXPECT_GT(rebuilt, kRounds / 2);
}

}  // namespace
}  // namespace tuplekv::testing
