// Differential test of tuplekv_table against its native reference, a
// STRICT, WITHOUT ROWID table (STRICT rowid table when there is no PRIMARY
// KEY) with the same CREATE INDEXes, in the same database.
//
// Each round draws a random schema (0-3 key columns of every type, in any
// order relative to the declaration, 0-3 value columns, NOT NULL, DEFAULT,
// CHECK on columns and between two, COLLATE NOCASE or RTRIM on TEXT and ANY columns, keys and indexes
// included, 0-2 indexes, unique ones declared as INDEX or as UNIQUE
// constraints, store=sqlite or memory), then runs random statements on both
// tables: INSERT (one or several rows, with or without a column list, every
// conflict clause, INSERT ... SELECT, and now and then 40 rows whose first
// key and index columns repeat two values, so that the planner skip-scans
// as over a large table), UPDATE of values and of keys, DELETE, queries with =, IN lists
// and subqueries, ranges, row-value comparisons, BETWEEN, LIKE/GLOB,
// IS [NOT] NULL, !=, OR, ORDER BY/LIMIT/OFFSET, aggregates, DISTINCT,
// compound SELECTs, correlated subqueries, window functions and self-joins,
// inside random transactions and savepoints. Every result, error code and message must be
// equal (table names aside); after each write the whole content is compared
// and tuplekv_check() must say 'ok'.
//
// Known, documented differences, accepted here (README, "Type errors"): a
// type error under a conflict clause other than ABORT and REPLACE (and
// FAIL inside a transaction) is SQLITE_MISMATCH from the module where a
// STRICT table reports SQLITE_CONSTRAINT_DATATYPE, with the same message;
// and the rows a statement wrote before a type error are undone where
// SQLite's own table may keep them, so such statements are not drawn.
//
// Some outcomes depend on the order rows are visited in rather than on the
// rows. tuplekv visits them in the order of the native table's key or
// index (README, "Visiting order"), but SQLite may read its own table
// through another index than tuplekv chooses (README, "Known difference").
// So these are not drawn: FAIL, IGNORE or REPLACE over several rows that
// can conflict; an UPDATE of several rows that two unique indexes, or a
// unique index and a CHECK, can refuse (SQLite's own table changes them in
// key order or in the order of the index it reads, and reports the
// constraint the first refused row meets); min/max and the value a GROUP BY
// group shows over columns where equal values can differ (1 and 1.0 in
// ANY, 'a' and 'A' under NOCASE, 'a ' under RTRIM).
//
// Defaults: 25 rounds of 850 statements from seed 1 (21,250 statements).
// Longer runs:
//   ./table_differential_test --seed=7 --rounds=400 [--statements=850]
// or the same through TUPLEKV_DIFF_SEED, TUPLEKV_DIFF_ROUNDS and
// TUPLEKV_DIFF_STATEMENTS; --round=r replays round r alone. A failure prints
// the seed, round and statement so it can be replayed.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <map>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "tests/ext/pair_diff.h"
#include "tests/testutil.h"

namespace tuplekv::testing {
namespace {

// Command-line options (--seed=N, --rounds=N, --statements=N, --round=N),
// which win over the environment variables of the same meaning.
std::map<std::string, uint64_t>& flags() {
  static std::map<std::string, uint64_t> f;
  return f;
}

uint64_t env_number(const char* name, uint64_t fallback) {
  static const std::map<std::string, std::string> kFlagOf = {{"TUPLEKV_DIFF_SEED", "seed"},
                                                             {"TUPLEKV_DIFF_ROUNDS", "rounds"},
                                                             {"TUPLEKV_DIFF_STATEMENTS", "statements"},
                                                             {"TUPLEKV_DIFF_ROUND", "round"}};
  if (const auto f = kFlagOf.find(name); f != kFlagOf.end()) {
    if (const auto v = flags().find(f->second); v != flags().end()) return v->second;
  }
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  return std::strtoull(v, nullptr, 10);
}

const char* kTypes[] = {"INTEGER", "REAL", "TEXT", "BLOB", "ANY"};

struct Column {
  std::string name;
  std::string type;
  bool key = false;
  bool not_null = false;
  const char* collation = nullptr;  // NOCASE or RTRIM (TEXT and ANY only)
  std::string default_value;        // a literal of the column's type; empty: none
  std::string check;                // a CHECK expression on the column; empty: none
  const char* key_direction = "";   // " ASC", " DESC" or "" in the PRIMARY KEY list
};

struct Index {
  std::vector<std::string> columns;
  bool descending = false;  // every column declared DESC (not for kOnColumn)
  bool unique = false;
  // Where a unique index is declared: kIndexClause as INDEX (native: a
  // CREATE UNIQUE INDEX after the table), or as a UNIQUE constraint of the
  // CREATE TABLE (an automatic index) before or after the PRIMARY KEY
  // clause, or on its column. SQLite checks uniqueness in the order the
  // indexes were made.
  enum Place { kIndexClause, kBeforeKey, kAfterKey, kOnColumn } place = kIndexClause;
};

class TableDiff {
 public:
  TableDiff(uint64_t seed, int round) : rng_(seed * 1000003 + static_cast<uint64_t>(round)) {}

  size_t statements = 0;
  size_t mismatches = 0;

  // `kv` holds the tuplekv table, `ref` the native one, both named t: two
  // databases, so that a ROLLBACK caused by one never touches the other.
  void run(Db* kv, Db* ref, int n) {
    kv_ = kv;
    ref_ = ref;
    make_schema();
    if (std::getenv("TUPLEKV_DIFF_TRACE") != nullptr) std::printf("schema: %s\n", describe().c_str());
    ASSERT_TRUE(kv->exec(vtab_ddl())) << vtab_ddl();
    ASSERT_TRUE(ref->exec(native_ddl())) << native_ddl();
    bool in_txn = false;
    int savepoints = 0;
    for (int i = 0; i < n && mismatches < 3; ++i) {
      const int t = pick(40);
      if (std::getenv("TUPLEKV_DIFF_TRACE") != nullptr && t < 4) std::printf("txn op %d\n", t);
      // The transaction may have ended by itself (OR ROLLBACK).
      if (in_txn && sqlite3_get_autocommit(ref_->handle())) in_txn = false;
      if (t == 0 && !in_txn) {
        both("BEGIN");
        in_txn = true;
        savepoints = 0;
      } else if (t == 1 && in_txn) {
        const bool commit = pick(2);
        both(commit ? "COMMIT" : "ROLLBACK");
        counts_after_batch_ = counts_after_batch_ || commit;
        in_txn = false;
        check_content("after COMMIT/ROLLBACK");
      } else if (t == 2 && in_txn) {
        both("SAVEPOINT s" + std::to_string(++savepoints));
        counts_after_batch_ = true;
      } else if (t == 3 && in_txn && savepoints > 0) {
        const int to = 1 + pick(savepoints);
        const bool rollback = pick(2);
        both((rollback ? "ROLLBACK TO s" : "RELEASE s") + std::to_string(to));
        savepoints = rollback ? to : to - 1;
        check_content("after savepoint");
      }
      const std::string s = statement();
      compare(s);
      if (s[0] != 'S') check_content(s);
    }
    if (!sqlite3_get_autocommit(ref_->handle()) || !sqlite3_get_autocommit(kv_->handle())) both("COMMIT");
    check_content("at the end");
    both("DROP TABLE t");
  }

  void both(const std::string& sql) {
    if (std::getenv("TUPLEKV_DIFF_TRACE") != nullptr) std::printf("txn: %s\n", sql.c_str());
    const Outcome x = run_sql(kv_->handle(), sql);
    const Outcome y = run_sql(ref_->handle(), sql);
    if (x.rc != y.rc) {
      ++mismatches;
      ADD_FAILURE() << sql << ": tuplekv rc=" << x.rc << " " << x.message << ", native rc=" << y.rc << " "
                    << y.message;
    }
  }

  std::string describe() const { return vtab_ddl() + "\n" + native_ddl(); }

 private:
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  template <typename T, size_t N>
  const T& one_of(const T (&a)[N]) {
    return a[pick(static_cast<int>(N))];
  }

  // ---- schema

  void make_schema() {
    columns_.clear();
    indexes_.clear();
    key_.clear();
    const int nkey = pick(7) == 0 ? 0 : 1 + pick(3);
    const int nval = (nkey == 0 ? 1 : 0) + pick(4);
    for (int i = 0; i < nkey + nval; ++i) {
      Column c;
      c.name = "c" + std::to_string(i);
      c.type = one_of(kTypes);
      columns_.push_back(c);
    }
    std::vector<int> order(columns_.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
    std::shuffle(order.begin(), order.end(), rng_);
    for (int k = 0; k < nkey; ++k) {
      columns_[static_cast<size_t>(order[static_cast<size_t>(k)])].key = true;
      columns_[static_cast<size_t>(order[static_cast<size_t>(k)])].not_null = true;
      key_.push_back(columns_[static_cast<size_t>(order[static_cast<size_t>(k)])].name);
      static const char* kDirections[] = {"", "", " ASC", " DESC"};
      columns_[static_cast<size_t>(order[static_cast<size_t>(k)])].key_direction = one_of(kDirections);
    }
    for (Column& c : columns_) {
      if (!c.key && pick(5) == 0) c.not_null = true;
    }
    memory_ = pick(3) == 0;
    bool any_key = false;
    for (const Column& c : columns_) any_key = any_key || (c.key && c.type == std::string("ANY"));
    for (int n = pick(3); n > 0; --n) {
      Index idx;
      for (int m = 1 + pick(2); m > 0; --m) {
        const std::string& c = columns_[static_cast<size_t>(pick(static_cast<int>(columns_.size())))].name;
        if (std::find(idx.columns.begin(), idx.columns.end(), c) == idx.columns.end()) {
          idx.columns.push_back(c);
        }
      }
      // A unique index makes a multi-row UPDATE depend on the order rows
      // are visited in, which differs over ANY key columns (tuple order
      // against SQLite's; see ext/table_planning.h).
      idx.unique = pick(4) == 0 && !any_key;
      if (idx.unique) {
        idx.place = static_cast<Index::Place>(pick(idx.columns.size() == 1 ? 4 : 3));
      }
      idx.descending = idx.place != Index::kOnColumn && pick(4) == 0;
      indexes_.push_back(idx);
    }
    for (Column& c : columns_) {
      if (c.type != std::string("TEXT") && c.type != std::string("ANY")) continue;
      if (pick(4) == 0) c.collation = pick(2) == 0 ? "NOCASE" : "RTRIM";
    }
    // Defaults, of the column's own type. SQLite hands a virtual table NULL
    // for an omitted column and for an explicit NULL alike, so a column
    // with a default is never given NULL (README, "What SQLite does not
    // tell a virtual table"): only leaving it out of an INSERT's column
    // list shows its default.
    strict_ = true;
    for (Column& c : columns_) {
      if (pick(4) == 0) c.default_value = value_of(c.type);
    }
    // CHECKs that refuse some of the values drawn: one value, a range,
    // a length, a type; and now and then one between two columns. Which
    // rows a CHECK refuses does not depend on visiting order, except under
    // FAIL over several rows, which is not drawn (statement()).
    for (Column& c : columns_) {
      if (pick(5) != 0) continue;
      switch (pick(4)) {
        case 0:
          c.check = c.name + " IS NOT " + value_of(c.type);
          break;
        case 1:
          c.check = c.name + (pick(2) ? " < " : " >= ") + value_of(c.type);
          break;
        case 2:
          c.check = "length(" + c.name + ") < " + std::to_string(2 + pick(4));
          break;
        default:
          c.check = "typeof(" + c.name + ") <> '" + one_of(kCheckedTypes) + "'";
      }
    }
    table_check_.clear();
    if (columns_.size() > 1 && pick(8) == 0) {
      table_check_ = columns_[0].name + " IS NOT " + columns_[1].name;
    }
    strict_ = false;
  }
  static constexpr const char* kCheckedTypes[] = {"integer", "real", "text", "blob"};
  std::string table_check_;  // a table CHECK between two columns; empty: none

  // SQLite 3.40's own DELETE or UPDATE can change fewer rows than its
  // SELECT with the same WHERE finds when the WHERE ORs a term with an IN
  // subquery on the same table: it changes each row as it goes, and the
  // subquery, run once when first needed, sees the rows changed before. A
  // virtual table's rows are collected first (two passes) and get the
  // SELECT's rows. Such WHEREs are drawn again.
  std::string write_where() {
    for (;;) {
      std::string w = where();
      if (w.find(" OR ") == std::string::npos || w.find("(SELECT") == std::string::npos) return w;
    }
  }

  int unique_indexes_with(const std::string& column) const {
    int n = 0;
    for (const Index& i : indexes_) {
      if (i.unique && std::find(i.columns.begin(), i.columns.end(), column) != i.columns.end()) ++n;
    }
    return n;
  }
  bool in_unique_index(const std::string& column) const { return unique_indexes_with(column) > 0; }
  // The constraints that setting `column` to one value in every row can
  // trip on some rows and not others: its unique indexes, and the table
  // CHECK when it compares the column with another. (A column's own CHECK
  // sees only the new value, the same in every row.)
  int row_dependent_refusals(const std::string& column) const {
    const bool in_table_check =
        !table_check_.empty() && (column == columns_[0].name || column == columns_[1].name);
    return unique_indexes_with(column) + (in_table_check ? 1 : 0);
  }

  // The CREATE TABLE's columns and constraints, the same for both tables.
  std::string column_defs() const {
    std::string s;
    for (const Column& c : columns_) {
      if (!s.empty()) s += ", ";
      s += c.name + " " + c.type + (c.not_null ? " NOT NULL" : "");
      if (!c.default_value.empty()) s += " DEFAULT " + c.default_value;
      if (!c.check.empty()) s += " CHECK (" + c.check + ")";
      for (const Index& i : indexes_) {
        if (i.place == Index::kOnColumn && i.columns[0] == c.name) s += " UNIQUE";
      }
      if (c.collation != nullptr) s += std::string(" COLLATE ") + c.collation;
    }
    auto constraints = [&](Index::Place place) {
      for (const Index& i : indexes_) {
        if (i.place == place) s += ", UNIQUE(" + join(i.columns, direction(i)) + ")";
      }
    };
    constraints(Index::kBeforeKey);
    if (!key_.empty()) {
      // The key's directions (an INTEGER key declared DESC gets its index
      // earlier in SQLite, which changes the order constraints are checked in).
      std::string keys;
      for (const std::string& k : key_) {
        for (const Column& c : columns_) {
          if (c.name == k) keys += (keys.empty() ? "" : ", ") + k + c.key_direction;
        }
      }
      s += ", PRIMARY KEY(" + keys + ")";
    }
    constraints(Index::kAfterKey);
    if (!table_check_.empty()) s += ", CHECK (" + table_check_ + ")";
    return s;
  }
  static std::string join(const std::vector<std::string>& v, const char* direction = "") {
    std::string s;
    for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x + direction;
    return s;
  }
  static const char* direction(const Index& i) { return i.descending ? " DESC" : ""; }
  std::string vtab_ddl() const {
    std::string s = "CREATE VIRTUAL TABLE t USING tuplekv_table(" + column_defs();
    for (size_t i = 0; i < indexes_.size(); ++i) {
      if (indexes_[i].place != Index::kIndexClause) continue;
      s += std::string(indexes_[i].unique ? ", UNIQUE" : ",") + " INDEX t_i" + std::to_string(i) + "(" +
           join(indexes_[i].columns, direction(indexes_[i])) + ")";
    }
    return s + (memory_ ? ", store=memory)" : ")");
  }
  std::string native_ddl() const {
    std::string s = "CREATE TABLE t(" + column_defs() + ") STRICT" +
                    (key_.empty() ? "" : ", WITHOUT ROWID") + ";";
    for (size_t i = 0; i < indexes_.size(); ++i) {
      if (indexes_[i].place != Index::kIndexClause) continue;
      s += std::string(indexes_[i].unique ? " CREATE UNIQUE INDEX" : " CREATE INDEX") + " t_i" +
           std::to_string(i) + " ON t(" + join(indexes_[i].columns, direction(indexes_[i])) + ");";
    }
    return s;
  }

  // ---- values

  std::string value_of(const std::string& type) {
    static const char* kInts[] = {"0", "1", "2", "3", "-1", "7", "10", "9223372036854775807",
                                  "-9223372036854775808", "42"};
    static const char* kReals[] = {"0.5", "2.0", "-0.0", "1.5", "1e300", "-2.5", "3.0", "0.0",
                                   "9007199254740993.0", "2.5"};
    static const char* kTexts[] = {"''", "'a'", "'A'", "'ab'", "'b'", "'2'", "'é'", "'a%'",
                                   "' 3'", "'abc'", "'B'", "'10'", "'日本'", "'2.0'", "'a '", "'AB  '"};
    static const char* kBlobs[] = {"x''", "x'00'", "x'61'", "x'0102'", "x'ff'", "x'6162'"};
    const bool own = strict_ || pick(6) != 0;
    if (type == "INTEGER") return own ? one_of(kInts) : other_value();
    if (type == "REAL") return own ? one_of(kReals) : other_value();
    if (type == "TEXT") return own ? one_of(kTexts) : other_value();
    if (type == "BLOB") return own ? one_of(kBlobs) : other_value();
    return other_value();
  }
  std::string other_value() {
    static const char* kAll[] = {"0", "1", "2", "2.0", "-1", "0.5", "'a'", "'2'", "'b'", "x'61'",
                                 "x''", "''", "3", "'A'", "1.0", "-0.0", "'1e2'", "x'00'"};
    return one_of(kAll);
  }
  std::string maybe_null(const Column& c) {
    if (c.default_value.empty() && pick(c.not_null ? 60 : 8) == 0) return "NULL";
    return value_of(c.type);
  }
  const Column& any_column() { return columns_[static_cast<size_t>(pick(static_cast<int>(columns_.size())))]; }
  // A column whose equal values are the same value: typed, BINARY. (In an
  // ANY column 2 = 2.0; under NOCASE 'a' = 'A', under RTRIM 'a' = 'a '.)
  // Null when the schema has none.
  const Column* exact_column() {
    std::vector<const Column*> exact;
    for (const Column& c : columns_) {
      if (c.type != "ANY" && c.collation == nullptr) exact.push_back(&c);
    }
    if (exact.empty()) return nullptr;
    return exact[static_cast<size_t>(pick(static_cast<int>(exact.size())))];
  }
  // A column to compare with `a` in a join: `a` itself unless one drawn
  // has its collation and, under NOCASE or RTRIM, its type too. SQLite
  // 3.40 answers such a join for its own table through an automatic index
  // that misses rows when the columns differ in collation, or in affinity
  // under NOCASE/RTRIM (README, "Known difference").
  const Column& same_collation_column(const Column& a) {
    const Column& drawn = any_column();
    const std::string want = a.collation != nullptr ? a.collation : "";
    if (want != (drawn.collation != nullptr ? drawn.collation : "")) return a;
    return a.collation == nullptr || drawn.type == a.type ? drawn : a;
  }
  // The first column of one of the indexes, mostly; else any column.
  std::string index_leading_or_any_column() {
    if (indexes_.empty() || pick(4) == 0) return any_column().name;
    return indexes_[static_cast<size_t>(pick(static_cast<int>(indexes_.size())))].columns.front();
  }
  const Column& key_or_any_column() {
    if (!key_.empty() && pick(2)) {
      const std::string& k = key_[static_cast<size_t>(pick(static_cast<int>(key_.size())))];
      for (const Column& c : columns_) {
        if (c.name == k) return c;
      }
    }
    return any_column();
  }

  // ---- predicates

  std::string list(const Column& c) {
    std::string s = "(" + value_of(c.type);
    for (int n = pick(4); n > 0; --n) s += ", " + value_of(c.type);
    return s + ")";
  }
  std::string predicate(const std::string& alias = "") {
    const Column& c = key_or_any_column();
    const std::string col = alias + c.name;
    switch (pick(16)) {
      case 0:
      case 1:
      case 2:
        return col + " = " + value_of(c.type);
      case 3:
        return col + " IN " + list(c);
      case 4:
        return col + (pick(2) ? " > " : " <= ") + value_of(c.type);
      case 5:
        return col + (pick(2) ? " >= " : " < ") + value_of(c.type);
      case 6:
        return col + " BETWEEN " + value_of(c.type) + " AND " + value_of(c.type);
      case 7: {
        // '1.0e+%' matches 1e300 by its text, and its prefix reads as no
        // number, so SQLite also hands over the prefix's text range.
        static const char* kPatterns[] = {"'a%'", "'A%'", "'%b'", "'2%'", "'_'", "'ab%'", "'é%'", "'a_'",
                                          "'1.0e+%'"};
        // A COLLATE on the column keeps the pattern from the table, but
        // not its range.
        static const char* kCollations[] = {"", "", "", "", " COLLATE BINARY", " COLLATE RTRIM", " COLLATE NOCASE"};
        return col + one_of(kCollations) + (pick(3) ? " LIKE " : " GLOB ") + one_of(kPatterns);
      }
      case 8:
        return col + (pick(2) ? " IS NULL" : " IS NOT NULL");
      case 9:
        return col + " != " + value_of(c.type);
      case 10: {
        const Column& d = any_column();
        return col + " IN (SELECT " + d.name + " FROM @T WHERE " + d.name + " IS NOT NULL" +
               (pick(2) ? "" : " AND " + predicate()) + ")";
      }
      case 11:  // (SELECT NULL): NULL at run time, not the IS NULL SQLite rewrites a literal to
        return col + " IS " + (pick(5) == 0 ? std::string("(SELECT NULL)") : value_of(c.type));
      case 12:
        return "(" + predicate(alias) + " OR " + predicate(alias) + ")";
      case 13: {  // a row value: SQLite passes the first column on, loosened
        const Column& d = any_column();
        static const char* kOps[] = {" > ", " >= ", " < ", " <= "};
        return "(" + col + ", " + alias + d.name + ")" + one_of(kOps) + "(" + value_of(c.type) + ", " +
               value_of(d.type) + ")";
      }
      case 14: {  // the row against itself: SQLite 3.40 keeps these from the table
        const Column& d = any_column();
        static const char* kOps[] = {" > ", " >= ", " < ", " <= ", " = "};
        if (pick(4) == 0) return col + " IN (" + alias + d.name + ", " + value_of(c.type) + ")";
        return col + one_of(kOps) + alias + d.name;
      }
      default:
        return col + " = " + other_value();
    }
  }
  std::string where() {
    switch (pick(5)) {
      case 0:
        return "";
      case 1:
      case 2:
        return " WHERE " + predicate();
      case 3:
        return " WHERE " + predicate() + " AND " + predicate();
      default:
        return " WHERE " + predicate() + (pick(2) ? " AND " : " OR ") + predicate();
    }
  }

  std::string key_order(const std::string& alias = "") const {
    if (key_.empty()) return alias + "rowid";
    std::string s;
    for (const std::string& k : key_) s += (s.empty() ? "" : ", ") + alias + k;
    return s;
  }
  // The columns themselves, not quote()d: quote() spells -0.0 as 0.0, and
  // run_sql renders each value exactly.
  std::string select_list(const std::string& alias = "") const {
    std::string s;
    for (const Column& c : columns_) s += (s.empty() ? "" : ", ") + alias + c.name;
    return s;
  }
  std::string values_row() {
    std::string s = "(";
    for (size_t i = 0; i < columns_.size(); ++i) s += (i ? ", " : "") + maybe_null(columns_[i]);
    return s + ")";
  }
  // 40 rows in one INSERT OR IGNORE: the first key column and each index's
  // first column repeat two values, and the other key columns count up, so
  // that first values repeat often enough for the planner to skip-scan
  // (ext/table_vtab.h, kSkipScanRowsPerValue) as over a large table.
  std::string repeating_rows() {
    std::vector<std::vector<std::string>> pools(columns_.size());
    auto pool_for = [&](const std::string& name) {
      for (size_t i = 0; i < columns_.size(); ++i) {
        if (columns_[i].name == name && pools[i].empty()) {
          pools[i] = {value_of(columns_[i].type), value_of(columns_[i].type)};
        }
      }
    };
    strict_ = true;  // several rows under OR IGNORE: values of each column's type
    if (!key_.empty()) pool_for(key_[0]);
    for (const Index& i : indexes_) pool_for(i.columns[0]);
    std::string s = "INSERT OR IGNORE INTO @T VALUES ";
    for (int r = 0; r < 40; ++r) {
      s += r ? ", (" : "(";
      for (size_t i = 0; i < columns_.size(); ++i) {
        const Column& c = columns_[i];
        std::string v;
        if (!pools[i].empty()) {
          v = pools[i][static_cast<size_t>(pick(2))];
        } else if (c.key) {
          const std::string n = std::to_string(++counted_);
          v = c.type == "TEXT" ? "'k" + n + "'" : c.type == "BLOB" ? "CAST('k" + n + "' AS BLOB)" : n;
        } else {
          v = maybe_null(c);
        }
        s += (i ? ", " : "") + v;
      }
      s += ")";
    }
    return s;
  }
  std::string key_match() {
    if (key_.empty()) return "rowid = " + std::to_string(1 + pick(12));
    std::string s;
    for (const std::string& k : key_) {
      for (const Column& c : columns_) {
        if (c.name == k) s += (s.empty() ? "" : " AND ") + k + " = " + value_of(c.type);
      }
    }
    return s;
  }

  // ---- statements

  // A statement that writes several rows under a clause other than ABORT
  // gets values of each column's own type: after a STRICT type error there
  // SQLite's own table may keep the rows before it (no statement journal),
  // where tuplekv undoes them (README, "Type errors").
  std::string statement() {
    strict_ = false;
    std::string s = statement_text();
    return s;
  }
  static bool risky_clause(const std::string& clause) {
    return clause == " OR IGNORE" || clause == " OR ROLLBACK" || clause == " OR REPLACE" || clause == " OR FAIL";
  }

  std::string statement_text() {
    static const char* kConflict[] = {"", " OR IGNORE", " OR REPLACE", " OR FAIL", " OR ABORT", " OR ROLLBACK"};
    static const char* kNoFail[] = {"", " OR IGNORE", " OR REPLACE", " OR ABORT"};
    switch (pick(25)) {
      case 0:
      case 1:
      case 2: {
        if (pick(15) == 0) return repeating_rows();
        const std::string clause = pick(12) == 0 ? kConflict[5] : kConflict[pick(5)];
        std::string s = "INSERT" + clause + " INTO @T VALUES ";
        const int rows = pick(3);
        // A STRICT rowid table without constraints has no statement journal:
        // inside a transaction a type error keeps the rows before it.
        strict_ = rows > 0 && (risky_clause(clause) || key_.empty());
        for (int n = rows; n >= 0; --n) s += values_row() + (n > 0 ? ", " : "");
        return s;
      }
      case 3: {
        // A column list in any order that may leave columns out: they take
        // their default, or NULL (an error for NOT NULL and key columns).
        const std::string clause = kConflict[pick(5)];
        std::vector<size_t> listed;
        for (size_t i = 0; i < columns_.size(); ++i) {
          if (pick(3) != 0) listed.push_back(i);
        }
        std::shuffle(listed.begin(), listed.end(), rng_);
        if (listed.empty()) return "INSERT" + clause + " INTO @T DEFAULT VALUES";
        std::string s = "INSERT" + clause + " INTO @T(";
        for (size_t n = 0; n < listed.size(); ++n) s += (n ? ", " : "") + columns_[listed[n]].name;
        s += ") VALUES ";
        const int rows = pick(3);
        strict_ = rows > 0 && (risky_clause(clause) || key_.empty());
        for (int r = rows; r >= 0; --r) {
          s += "(";
          for (size_t n = 0; n < listed.size(); ++n) s += (n ? ", " : "") + maybe_null(columns_[listed[n]]);
          s += std::string(")") + (r > 0 ? ", " : "");
        }
        return s;
      }
      case 4: {
        // INSERT ... SELECT from the table itself, in SQLite's key order.
        std::string s = std::string("INSERT") + kConflict[pick(5)] + " INTO @T SELECT ";
        const Column& moved = key_.empty() ? any_column() : key_or_any_column();
        for (size_t i = 0; i < columns_.size(); ++i) {
          const Column& c = columns_[i];
          s += i ? ", " : "";
          // A new key of the column's own type (no type errors, see above).
          std::string e = c.name;
          if (c.name == moved.name) {
            if (c.type == "INTEGER") e = "(" + c.name + " % 5) + 20";
            else if (c.type == "REAL") e = c.name + " + 1";
            else if (c.type == "BLOB") e = "CAST(" + c.name + " || 'x' AS BLOB)";
            else e = c.name + " || 'x'";
          }
          s += e;
        }
        // At most a few rows: without a bound, rounds of these double the
        // table until a round takes minutes and gigabytes.
        return s + " FROM @T" + where() + " ORDER BY " + key_order() + " LIMIT " + std::to_string(1 + pick(8));
      }
      case 5:
      case 6: {
        // Values of any rows; a FAIL would keep the rows before the failing
        // one, which depends on visiting order: not for several rows.
        const Column& c = any_column();
        if (c.key) {
          const std::string rhs = pick(3) == 0 ? c.name : maybe_null(c);
          return std::string("UPDATE") + kConflict[pick(6)] + " @T SET " + c.name + " = " + rhs +
                 " WHERE " + key_match();
        }
        std::string clause = kNoFail[pick(4)];
        // Under IGNORE or REPLACE, which of several rows keeps a value a
        // unique index allows once depends on visiting order too.
        if (in_unique_index(c.name) && (clause == " OR IGNORE" || clause == " OR REPLACE")) clause = "";
        strict_ = risky_clause(clause) || key_.empty();
        const std::string value = pick(3) == 0 ? c.name : maybe_null(c);
        // With two constraints that refuse some rows (two unique indexes
        // on the column, or one and a CHECK comparing it with another
        // column), which one a multi-row UPDATE reports depends on the
        // order rows are changed in: a native table changes them in key
        // order or in the order of the index it reads, a virtual table in
        // the order it found them. One row, then.
        if (row_dependent_refusals(c.name) > 1) {
          return "UPDATE" + clause + " @T SET " + c.name + " = " + value + " WHERE " + key_match();
        }
        return "UPDATE" + clause + " @T SET " + c.name + " = " + value + write_where();
      }
      case 7: {
        // A key change of one row (several would conflict in visiting order).
        const Column& c = key_or_any_column();
        return std::string("UPDATE") + kConflict[pick(5)] + " @T SET " + c.name + " = " + value_of(c.type) +
               " WHERE " + key_match();
      }
      case 8:
        if (key_.empty()) {
          return std::string("UPDATE") + kConflict[pick(5)] + " @T SET rowid = " +
                 std::to_string(1 + pick(15)) + " WHERE " + key_match();
        }
        return "DELETE FROM @T" + write_where();
      case 9:
        return "DELETE FROM @T" + write_where();
      case 10: {
        // SQLite rewrites it to read raw_key in that order, as a subquery;
        // the key makes the order total, so the rows it takes are known.
        if (pick(2) == 0) return "DELETE FROM @T" + write_where();
        return "DELETE FROM @T" + write_where() + " ORDER BY " + index_leading_or_any_column() +
               (pick(2) ? " DESC, " : ", ") + key_order() + " LIMIT " + std::to_string(1 + pick(3));
      }
      case 11:
      case 12: {
        std::string s = "SELECT " + select_list() + " FROM @T" + where() + " ORDER BY ";
        if (pick(2)) {
          const Column& c = any_column();
          s += c.name + (pick(2) ? " DESC, " : ", ");
        }
        s += key_order();
        if (pick(2)) s += " DESC";
        if (pick(2)) s += " LIMIT " + std::to_string(pick(5)) + (pick(2) ? " OFFSET " + std::to_string(pick(3)) : "");
        return s;
      }
      case 13: {
        // min/max/GROUP BY pick one of 2 and 2.0 (equal in an ANY column),
        // or of 'a' and 'A' under NOCASE, by visiting order, which can
        // differ (file comment): only over exact columns.
        std::string s = "SELECT count(*), count(DISTINCT " + any_column().name + ")";
        if (const Column* a = exact_column()) s += ", min(" + a->name + ")";
        if (const Column* b = exact_column()) s += ", max(" + b->name + ")";
        return s + " FROM @T" + where();
      }
      case 14: {
        // Without an exact column, the groups' sizes in order, not which
        // value each group shows.
        const Column* e = exact_column();
        const Column& c = e != nullptr ? *e : any_column();
        return std::string("SELECT ") + (e != nullptr ? "quote(" + c.name + "), " : "") + "count(*) FROM @T" +
               where() + " GROUP BY " + c.name + " ORDER BY " + c.name;
      }
      case 15: {
        const Column& a = any_column();
        // Under different collations the comparison takes x.a's, but
        // SQLite 3.40 reads its own table through an automatic index
        // under y.b's and misses rows (README, "Known difference").
        const Column& b = same_collation_column(a);
        // Over columns of different types, x.a = y.b can hold for values
        // that differ ('2' and '2.0' both equal 2), and native SQLite then
        // takes y.b as fixed by x's row and leaves that ORDER BY term
        // unsorted; a virtual table is sorted in full. Compared as sets.
        unordered_ = a.type != b.type;
        return "SELECT " + select_list("x.") + ", " + select_list("y.") + " FROM @T x JOIN @T y ON x." +
               a.name + " = y." + b.name + (pick(2) ? " AND " + predicate("y.") : "") + " ORDER BY " +
               key_order("x.") + ", " + key_order("y.");
      }
      case 16:
        return "SELECT " + select_list() + " FROM @T WHERE " + key_match();
      case 19: {
        // DISTINCT over a column whose equal values are the same value
        // (which of 2 and 2.0 DISTINCT keeps depends on visiting order).
        const Column* e = exact_column();
        if (e == nullptr) return "SELECT count(*) FROM @T" + where();
        return "SELECT DISTINCT quote(" + e->name + ") FROM @T" + where() + " ORDER BY " + e->name +
               (pick(2) ? " DESC" : "");
      }
      case 20: {
        const Column* e = exact_column();
        if (e == nullptr) return "SELECT count(*) FROM @T" + where();
        static const char* kCompound[] = {" UNION ", " UNION ALL ", " EXCEPT ", " INTERSECT "};
        return "SELECT quote(" + e->name + ") FROM @T" + where() + one_of(kCompound) + "SELECT quote(" +
               e->name + ") FROM @T" + where() + " ORDER BY 1";
      }
      case 21: {
        // Correlated subqueries, over columns of one collation (see case 15).
        const Column& a = any_column();
        const Column& b = same_collation_column(a);
        if (pick(2)) {
          return "SELECT " + select_list("x.") + " FROM @T x WHERE " + (pick(2) ? "" : "NOT ") +
                 "EXISTS (SELECT 1 FROM @T y WHERE y." + b.name + " = x." + a.name + " AND (" +
                 key_order("y.") + ") != (" + key_order("x.") + "))" + " ORDER BY " + key_order("x.");
        }
        return "SELECT " + select_list("x.") + ", (SELECT count(*) FROM @T y WHERE y." + b.name + " < x." +
               a.name + ") FROM @T x" + where() + " ORDER BY " + key_order("x.");
      }
      case 22: {
        // Window functions, ordered so that no two rows tie.
        const Column& c = any_column();
        return "SELECT " + select_list() + ", row_number() OVER (ORDER BY " + key_order() +
               (pick(2) ? " DESC" : "") + "), count(*) OVER (PARTITION BY " + c.name + " ORDER BY " +
               key_order() + ") FROM @T" + where() + " ORDER BY " + key_order();
      }
      case 17: {
        std::string s = "SELECT " + select_list() + " FROM @T" + where() + " ORDER BY " + key_order();
        if (pick(3) == 0) s += " DESC";
        return s + " LIMIT " + std::to_string(1 + pick(3));
      }
      case 23: {
        // No ORDER BY: the rows a LIMIT takes, and the order group_concat
        // sees, are those of the scan SQLite chooses for its own table (a
        // narrower index holding the columns used, say). tuplekv reads
        // the same for a declared key (core/model/native_scan.h), in the
        // same direction where the key or index runs one way throughout
        // (core/model/table.h, stored_descending), not where directions
        // are mixed (README, "Known difference").
        if (key_.empty() || !one_direction_each()) return "SELECT count(*) FROM @T";
        std::vector<std::string> cols;
        for (const Column& c : columns_) {
          if (pick(2)) cols.push_back(c.name);
        }
        if (cols.empty()) cols.push_back(any_column().name);
        // IS NOT NULL on a column that leads an index: SQLite reads that
        // index as a range, and tuplekv the same index whole.
        std::string where;
        if (pick(3) == 0) where = " WHERE " + index_leading_or_any_column() + " IS NOT NULL";
        std::string s;
        if (pick(2)) {
          for (const std::string& c : cols) s += (s.empty() ? "" : ", ") + c;
          return "SELECT " + s + " FROM @T" + where + " LIMIT " + std::to_string(1 + pick(4));
        }
        for (const std::string& c : cols) s += (s.empty() ? "" : " || ',' || ") + ("quote(" + c + ")");
        return "SELECT group_concat(" + s + ", ';') FROM @T" + where;
      }
      default: {
        const Column& c = key_or_any_column();
        return "SELECT " + select_list() + " FROM @T WHERE " + c.name + " IN " + list(c) + " ORDER BY " +
               key_order();
      }
    }
  }

  // Whether the primary key, and each index with the key columns it
  // appends, are declared in one direction throughout.
  bool one_direction_each() const {
    auto key_desc = [&](const std::string& name) {
      for (const Column& c : columns_) {
        if (c.name == name) return c.key_direction == std::string(" DESC");
      }
      return false;
    };
    for (const std::string& k : key_) {
      if (key_desc(k) != key_desc(key_[0])) return false;
    }
    for (const Index& i : indexes_) {
      for (const std::string& k : key_) {
        const bool held = std::find(i.columns.begin(), i.columns.end(), k) != i.columns.end();
        if (!held && key_desc(k) != i.descending) return false;
      }
      // A UNIQUE constraint on the key's columns that SQLite makes first
      // becomes the primary key, with its own directions.
      if (i.place != Index::kIndexClause && i.columns == key_ && i.descending != key_desc(key_[0])) return false;
    }
    return true;
  }

  // ---- comparing

  void compare(const std::string& tmpl) {
    ++statements;
    last_ = tmpl;
    const std::string sql = replace_all(tmpl, "@T", "t");
    Outcome x = run_sql(kv_->handle(), sql);
    Outcome y = run_sql(ref_->handle(), sql);
    // What the statement leaves for the connection's own counters, as an
    // application reads them next.
    // Past a COMMIT or SAVEPOINT, until the next write statement, the
    // change count may be that of rows tuplekv wrote there from its batch
    // (README, "Write batching"; table_vtab_test checks where it is not).
    const bool write = tmpl[0] != 'S';
    const bool counts_comparable = write || !counts_after_batch_;
    if (write) counts_after_batch_ = false;
    for (auto [db, o] : {std::pair{kv_->handle(), &x}, std::pair{ref_->handle(), &y}}) {
      o->rows.push_back({counts_comparable ? "changes " + std::to_string(sqlite3_changes64(db))
                                           : std::string("changes not compared"),
                         "last_insert_rowid " + std::to_string(sqlite3_last_insert_rowid(db))});
    }
    if (std::getenv("TUPLEKV_DIFF_TRACE") != nullptr) {
      std::printf("%zu: %s -> %d/%d %s\n", statements, tmpl.c_str(), x.rc, y.rc, y.message.c_str());
    }
    Outcome xn = x;
    Outcome yn = y;
    if (unordered_) {
      std::sort(xn.rows.begin(), xn.rows.end());
      std::sort(yn.rows.begin(), yn.rows.end());
      unordered_ = false;
    }
    if (xn.rc == SQLITE_MISMATCH && y.rc == SQLITE_CONSTRAINT_DATATYPE && tmpl.find(" OR ") != std::string::npos) {
      xn.rc = y.rc;  // the documented difference
    }
    if (xn == yn) return;
    ++mismatches;
    ADD_FAILURE() << "mismatch on statement " << statements << ": " << tmpl << "\n  schema: " << describe()
                  << "\n  tuplekv rc=" << x.rc << " " << x.message << " rows=" << x.rows.size()
                  << "\n  native  rc=" << y.rc << " " << y.message << " rows=" << y.rows.size() << "\n  "
                  << first_difference(x, y);
  }

  // The first row that differs, tuplekv's then native's.
  static std::string first_difference(const Outcome& x, const Outcome& y) {
    std::string detail;
    for (size_t i = 0; i < x.rows.size() || i < y.rows.size(); ++i) {
      const Row none;
      const Row& rx = i < x.rows.size() ? x.rows[i] : none;
      const Row& ry = i < y.rows.size() ? y.rows[i] : none;
      if (rx == ry) continue;
      detail += "row " + std::to_string(i) + ": ";
      for (const std::string& c : rx) detail += c + " ";
      detail += "<> ";
      for (const std::string& c : ry) detail += c + " ";
      break;
    }
    return detail;
  }

  void check_content(const std::string& after) {
    const std::string q = "SELECT " + (key_.empty() ? std::string("rowid, ") : std::string()) + select_list() +
                          " FROM @T ORDER BY " + key_order();
    const Outcome x = run_sql(kv_->handle(), replace_all(q, "@T", "t"));
    const Outcome y = run_sql(ref_->handle(), replace_all(q, "@T", "t"));
    if (!(x == y)) {
      ++mismatches;
      ADD_FAILURE() << "content differs after: " << after << "\n  schema: " << describe() << "\n  tuplekv "
                    << x.rows.size() << " rows (" << x.message << "), native " << y.rows.size() << " rows\n  "
                    << first_difference(x, y);
      return;
    }
    const Outcome c = run_sql(kv_->handle(), "SELECT tuplekv_check('t')");
    if (c.rc != SQLITE_OK || c.rows.size() != 1 || c.rows[0][0] != "'ok'") {
      ++mismatches;
      ADD_FAILURE() << "tuplekv_check after: " << after << "\n  schema: " << describe() << "\n  "
                    << (c.rows.empty() ? c.message : c.rows[0][0]);
    }
  }

  std::mt19937_64 rng_;
  // See compare(). A round starts after another round's final COMMIT.
  bool counts_after_batch_ = true;
  Db* kv_ = nullptr;
  Db* ref_ = nullptr;
  std::vector<Column> columns_;
  std::vector<std::string> key_;
  std::vector<Index> indexes_;
  int counted_ = 0;  // repeating_rows()' numbering of key columns
  bool memory_ = false;
  bool strict_ = false;
  std::string last_;
  bool unordered_ = false;  // the next compare() ignores row order
};

TEST(TableDifferentialTest, RandomSchemasAndStatementsMatchNative) {
  const uint64_t seed = env_number("TUPLEKV_DIFF_SEED", 1);
  const uint64_t rounds = env_number("TUPLEKV_DIFF_ROUNDS", 25);
  const int per_round = static_cast<int>(env_number("TUPLEKV_DIFF_STATEMENTS", 850));
  size_t statements = 0;
  size_t mismatches = 0;
  Db kv;
  Db ref;
  // TUPLEKV_DIFF_ROUND=r replays round r alone (with TUPLEKV_DIFF_TRACE=1
  // printing every statement).
  const uint64_t only = env_number("TUPLEKV_DIFF_ROUND", UINT64_MAX);
  for (uint64_t r = 0; r < rounds && mismatches < 10; ++r) {
    if (only != UINT64_MAX && r != only) continue;
    TableDiff diff(seed, static_cast<int>(r));
    SCOPED_TRACE("seed " + std::to_string(seed) + " round " + std::to_string(r));
    diff.run(&kv, &ref, per_round);
    statements += diff.statements;
    mismatches += diff.mismatches;
  }
  std::printf("table differential: seed %llu, %llu rounds, %zu statements, %zu mismatches\n",
              static_cast<unsigned long long>(seed), static_cast<unsigned long long>(rounds), statements,
              mismatches);
  if (only == UINT64_MAX) {
    EXPECT_GE(statements, rounds * static_cast<uint64_t>(per_round) / 2);
  }
  EXPECT_EQ(mismatches, 0u);
}

}  // namespace
}  // namespace tuplekv::testing

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const size_t eq = a.find('=');
    const std::string name = a.rfind("--", 0) == 0 && eq != std::string::npos ? a.substr(2, eq - 2) : "";
    if (name != "seed" && name != "rounds" && name != "statements" && name != "round") {
      std::fprintf(stderr, "unknown option %s (use --seed=N --rounds=N --statements=N --round=N)\n",
                   a.c_str());
      return 2;
    }
    tuplekv::testing::flags()[name] = std::strtoull(a.c_str() + eq + 1, nullptr, 10);
  }
  return RUN_ALL_TESTS();
}
