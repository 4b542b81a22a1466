// Random statements against a tuplekv pair table (cells, multimap) and its
// native STRICT WITHOUT ROWID reference in the same database, comparing
// results, errors and the whole content after every write. Shared by
// cells_vtab_test.cc and multimap_vtab_test.cc.
#ifndef TUPLEKV_TESTS_EXT_PAIR_DIFF_H_
#define TUPLEKV_TESTS_EXT_PAIR_DIFF_H_

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "tests/testutil.h"

namespace tuplekv::testing {

struct Outcome {
  int rc = SQLITE_OK;
  std::string message;
  Rows rows;
  bool operator==(const Outcome& o) const {
    return rc == o.rc && message == o.message && rows == o.rows;
  }
};

inline Outcome run_sql(sqlite3* db, const std::string& sql) {
  Outcome out;
  const char* tail = sql.c_str();
  while (tail != nullptr && *tail != '\0') {
    sqlite3_stmt* stmt = nullptr;
    int rc = sqlite3_prepare_v2(db, tail, -1, &stmt, &tail);
    if (rc != SQLITE_OK) {
      out.rc = sqlite3_extended_errcode(db);
      out.message = sqlite3_errmsg(db);
      return out;
    }
    if (stmt == nullptr) continue;
    out.rows.clear();
    while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
      Row row;
      for (int i = 0; i < sqlite3_column_count(stmt); ++i) row.push_back(render_column_exact(stmt, i));
      out.rows.push_back(std::move(row));
    }
    if (rc != SQLITE_DONE) {
      out.rc = sqlite3_extended_errcode(db);
      out.message = sqlite3_errmsg(db);
      sqlite3_finalize(stmt);
      return out;
    }
    sqlite3_finalize(stmt);
  }
  return out;
}

inline std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) {
    s.replace(p, from.size(), to);
  }
  return s;
}

// How many seeds a random workload test runs: TUPLEKV_PAIR_DIFF_SEEDS, 1
// unless set. For a longer run than CI's:
//   TUPLEKV_PAIR_DIFF_SEEDS=150 <build dir>/tests/cells_vtab_test --gtest_filter='*Random*'
inline int pair_diff_seeds() {
  const char* s = std::getenv("TUPLEKV_PAIR_DIFF_SEEDS");
  const int n = s != nullptr ? std::atoi(s) : 0;
  return n > 0 ? n : 1;
}

// Columns of the pair: A and B are the key, V (may be empty) the value.
struct PairDiff {
  Db* db;
  std::string vtab;    // e.g. "t"
  std::string native;  // e.g. "ref"
  std::string a, b, v;
  std::mt19937 rng{12345};
  // Typed columns: a type error ends a statement, and where SQLite's own
  // STRICT table keeps the rows written before it (OR IGNORE, OR FAIL) a
  // virtual table's statement is undone (ext/strict_values.h). Inserts
  // under those clauses then write one row each.
  bool typed = false;
  size_t statements = 0;
  size_t mismatches = 0;

  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); }

  std::string value() {
    static const char* kValues[] = {"0",    "1",    "2",    "-1",   "3",      "2.0",  "1.0",
                                    "2.5",  "-0.5", "0.0",  "'a'",  "'b'",    "'ab'", "'A'",
                                    "'2'",  "'aa'", "x'61'", "x'00'", "x''",  "''",   "1e300",
                                    "'a '", "'B'"};
    return kValues[pick(sizeof(kValues) / sizeof(kValues[0]))];
  }
  std::string key_value() { return pick(40) == 0 ? "NULL" : value(); }
  std::string list() {
    std::string s = "(" + value();
    for (int n = pick(4); n > 0; --n) s += ", " + value();
    return s + ")";
  }
  std::string col() { return pick(2) == 0 ? a : b; }
  // A right-hand side, now and then under a collation the keys' bytes do
  // not follow. Not inside an OR: SQLite 3.40 turns `c = 'a' COLLATE
  // NOCASE OR c = 'b'` into an IN under c's own collation wherever an index
  // (or a virtual table's key order) can serve it, and the pair tables have
  // orders the native table has no index for (README, "SQLite 3.40 turns").
  std::string compared_value(bool collations = true) {
    const int c = pick(10);
    if (!collations) return value();
    switch (c) {
      case 0:
        return value() + " COLLATE NOCASE";
      case 1:
        return value() + " COLLATE RTRIM";
      default:
        return value();
    }
  }

  std::string predicate(bool collations = true) {
    const std::string c = pick(4) == 0 && !v.empty() ? v : col();
    switch (pick(9)) {
      case 0:
      case 1:
        return c + " = " + compared_value(collations);
      case 2:
        return pick(8) == 0 && collations ? c + " COLLATE NOCASE IN " + list() : c + " IN " + list();
      case 3:
        return c + (pick(2) ? " > " : " <= ") + compared_value(collations);
      case 4:
        return c + (pick(2) ? " >= " : " < ") + compared_value(collations);
      case 5:
        return c + " BETWEEN " + compared_value(collations) + " AND " + value();
      case 6: {
        static const char* kPatterns[] = {"'a%'", "'A%'", "'%b'", "'2%'", "'_'", "'ab%'"};
        return c + (pick(3) ? " LIKE " : " GLOB ") + kPatterns[pick(6)];
      }
      case 7:
        return c + " IS NULL";
      default:
        return c + " != " + value();
    }
  }
  std::string where() {
    switch (pick(4)) {
      case 0:
        return "";
      case 1:
        return " WHERE " + predicate();
      case 2:
        return " WHERE " + predicate() + " AND " + predicate();
      default: {
        const bool both = pick(2) == 0;
        const std::string first = predicate(both);
        return " WHERE " + first + (both ? " AND " : " OR ") + predicate(both);
      }
    }
  }
  std::string select_list() const {
    std::string s = "quote(" + a + "), quote(" + b + ")";
    if (!v.empty()) s += ", quote(" + v + ")";
    return s;
  }

  std::string random_statement() {
    const std::string conflict[] = {"", " OR IGNORE", " OR REPLACE", " OR FAIL", " OR ABORT"};
    switch (pick(10)) {
      case 0:
      case 1:
      case 2: {
        const int clause = pick(5);
        std::string s = "INSERT" + conflict[clause] + " INTO @T VALUES ";
        const bool one_row = typed && (clause == 1 || clause == 3);
        for (int n = one_row ? 0 : pick(3); n >= 0; --n) {
          s += "(" + key_value() + ", " + key_value();
          if (!v.empty()) s += ", " + (pick(5) == 0 ? std::string("NULL") : value());
          s += ")";
          if (n > 0) s += ", ";
        }
        return s;
      }
      case 3: {
        const std::string target = !v.empty() && pick(2) ? v : col();
        std::string rhs = pick(3) == 0 ? target + " + 1" : key_value();
        // A multi-row UPDATE of a key column depends on the order rows
        // are visited in (which one meets a conflict first), and a virtual
        // table visits them in tuple order, not SQLite's: key updates are
        // compared on single rows, value updates on any set.
        const int c = pick(3);
        if (target != v) {
          return "UPDATE" + conflict[c] + " @T SET " + target + " = " + rhs + " WHERE " + a +
                 " = " + value() + " AND " + b + " = " + value();
        }
        return "UPDATE" + conflict[c] + " @T SET " + target + " = " + rhs + where();
      }
      case 4:
        return "DELETE FROM @T" + where();
      case 5: {
        // Ordered queries: a full key order makes the result deterministic.
        const bool desc = pick(2);
        std::string s = "SELECT " + select_list() + " FROM @T" + where() + " ORDER BY " + a +
                        (desc ? " DESC, " : ", ") + b + (pick(2) ? " DESC" : "");
        if (pick(3) == 0) s += " LIMIT " + std::to_string(pick(4)) + " OFFSET " + std::to_string(pick(3));
        return s;
      }
      case 6:
        return "SELECT count(*), count(DISTINCT " + col() + ") FROM @T" + where();
      case 7:
        return "SELECT " + select_list() + " FROM @T" + where() + " ORDER BY " + b + ", " + a;
      case 8:
        return "SELECT " + select_list() + " FROM @T WHERE " + a + " = " + value() + " AND " + b +
               " = " + value();
      default:
        return "SELECT " + select_list() + " FROM @T WHERE " + col() + " IN " + list() +
               " ORDER BY " + a + ", " + b;
    }
  }

  std::string content(const std::string& table) const {
    return "SELECT " + select_list() + ", typeof(" + a + "), typeof(" + b + ") FROM " + table +
           " ORDER BY " + a + ", " + b;
  }

  std::string last{};
  bool compare(const std::string& tmpl) {
    ++statements;
    last = tmpl;
    const Outcome x = run_sql(db->handle(), replace_all(tmpl, "@T", vtab));
    const Outcome y = run_sql(db->handle(), replace_all(tmpl, "@T", native));
    Outcome xn = x;
    // The documented difference of typed columns (ext/strict_values.h): a
    // type error under a conflict clause that would otherwise skip the row
    // or roll back is SQLITE_MISMATCH, with the same message.
    if (xn.rc == SQLITE_MISMATCH && y.rc == SQLITE_CONSTRAINT_DATATYPE) xn.rc = y.rc;
    if (xn.rc == y.rc && replace_all(x.message, vtab + ".", native + ".") == y.message && x.rows == y.rows) {
      return true;  // the same outcome, each error naming its own table
    }
    if (!(x == y)) {
      ++mismatches;
      ADD_FAILURE() << "mismatch on statement " << statements << ": " << tmpl << "\n  tuplekv rc=" << x.rc << " " << x.message
                    << " rows=" << x.rows.size() << "\n  native  rc=" << y.rc << " "
                    << y.message << " rows=" << y.rows.size();
      return false;
    }
    return true;
  }

  bool same_content() {
    const Outcome x = run_sql(db->handle(), content(vtab));
    const Outcome y = run_sql(db->handle(), content(native));
    if (x == y) return true;
    ++mismatches;
    std::string detail;
    for (size_t i = 0; i < x.rows.size() || i < y.rows.size(); ++i) {
      const Row none;
      const Row& rx = i < x.rows.size() ? x.rows[i] : none;
      const Row& ry = i < y.rows.size() ? y.rows[i] : none;
      if (rx == ry) continue;
      for (const std::string& c : rx) detail += c + " ";
      detail += "<> ";
      for (const std::string& c : ry) detail += c + " ";
      break;
    }
    ADD_FAILURE() << "content differs after statement " << statements << ": tuplekv "
                  << x.rows.size() << " rows, native " << y.rows.size()  << "; first: " << detail << "\n  after: " << last;
    return false;
  }

  // `n` random statements, with random transactions around some.
  void run(int n) {
    bool in_txn = false;
    int savepoints = 0;
    for (int i = 0; i < n && mismatches < 5; ++i) {
      const int t = pick(30);
      if (t == 0 && !in_txn) {
        run_sql(db->handle(), "BEGIN");
        in_txn = true;
        savepoints = 0;
      } else if (t == 1 && in_txn) {
        run_sql(db->handle(), pick(2) ? "COMMIT" : "ROLLBACK");
        in_txn = false;
      } else if (t == 2 && in_txn) {
        run_sql(db->handle(), "SAVEPOINT s" + std::to_string(++savepoints));
      } else if (t == 3 && in_txn && savepoints > 0) {
        const int to = 1 + pick(savepoints);
        run_sql(db->handle(), (pick(2) ? "ROLLBACK TO s" : "RELEASE s") + std::to_string(to));
        savepoints = to - 1;
        if (pick(2)) savepoints = to;  // ROLLBACK TO keeps it; harmless if released
      }
      const std::string s = random_statement();
      compare(s);
      if (s[0] != 'S') same_content();
    }
    if (in_txn) run_sql(db->handle(), "COMMIT");
    same_content();
  }
};

// What run_seeds() ran, over all its seeds.
struct SeedRuns {
  size_t statements = 0;
  size_t mismatches = 0;
};

// `pair` run for pair_diff_seeds() seeds of `n` statements each, seeded
// base, base + 1, ..., each over its tables emptied first; it stops after
// the first seed with a mismatch. No seed may be cut short by mismatches.
inline SeedRuns run_seeds(const PairDiff& pair, unsigned base, int n) {
  SeedRuns total;
  for (int seed = 0; seed < pair_diff_seeds() && total.mismatches == 0; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    if (!pair.db->exec("DELETE FROM " + pair.vtab + "; DELETE FROM " + pair.native)) {
      ADD_FAILURE() << "cannot empty " << pair.vtab << " and " << pair.native;
      break;
    }
    PairDiff diff = pair;
    diff.rng.seed(base + static_cast<unsigned>(seed));
    diff.run(n);
    EXPECT_EQ(diff.statements, static_cast<size_t>(n));
    total.statements += diff.statements;
    total.mismatches += diff.mismatches;
  }
  return total;
}

}  // namespace tuplekv::testing

#endif  // TUPLEKV_TESTS_EXT_PAIR_DIFF_H_
