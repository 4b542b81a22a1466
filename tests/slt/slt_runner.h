// A sqllogictest runner (the format of SQLite's sqllogictest corpus) over
// one SQLite connection, in two modes:
//
//   kNative   the script as written: checks the runner itself, every record
//             must pass on plain SQLite;
//   kTuplekv  every CREATE TABLE that can be is declared as a tuplekv_table
//             (slt_translate.h), CREATE/DROP INDEX on such a table rebuild
//             it with the index folded into its declaration, REINDEX of it
//             runs tuplekv_check() and needs 'ok'.
//
// Records: `statement ok|error`, `query <types> <sort> [label]` + `----` +
// expected values (one per line, or "N values hashing to <md5>" past the
// hash-threshold), `skipif|onlyif <engine>` (this engine is "sqlite"),
// `hash-threshold N`, `halt`. Values render as the reference runner renders
// them: NULL as "NULL", I as a decimal integer, R with three decimals, T as
// text with "" shown as "(empty)" and bytes outside printable ASCII as '@'.
// rowsort sorts rows, valuesort single values (both by strcmp); a label's
// results must hash alike everywhere it is used.
//
// What tuplekv mode cannot apply (SQLite refuses triggers on virtual
// tables, expression indexes have no tuplekv form) is counted as not
// applicable with a reason, never as passed.
#ifndef TUPLEKV_TESTS_SLT_SLT_RUNNER_H_
#define TUPLEKV_TESTS_SLT_SLT_RUNNER_H_

#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tests/slt/md5.h"
#include "tests/slt/slt_translate.h"

namespace tuplekv::slt {

enum class Mode { kNative, kTuplekv };

struct Stats {
  size_t records = 0;         // statement and query records that apply to sqlite
  size_t passed = 0;
  size_t failed = 0;
  size_t not_applicable = 0;  // tuplekv mode only
  size_t tables_translated = 0;
  size_t indexes_folded = 0;
  std::map<std::string, size_t> native_tables;    // reason -> count (left native)
  std::map<std::string, size_t> not_applicable_why;
  std::vector<std::string> failures;              // the first few, in words

  void add(const Stats& o) {
    records += o.records;
    passed += o.passed;
    failed += o.failed;
    not_applicable += o.not_applicable;
    tables_translated += o.tables_translated;
    indexes_folded += o.indexes_folded;
    for (const auto& [k, v] : o.native_tables) native_tables[k] += v;
    for (const auto& [k, v] : o.not_applicable_why) not_applicable_why[k] += v;
  }
};

class Runner {
 public:
  Runner(sqlite3* db, Mode mode, std::string store = "")
      : db_(db), mode_(mode), store_(std::move(store)) {}

  // Runs the whole script; `name` labels failures.
  void run(const std::string& script, const std::string& name, Stats* stats) {
    stats_ = stats;
    name_ = name;
    std::istringstream in(script);
    std::vector<std::string> lines;
    for (std::string l; std::getline(in, l);) {
      if (!l.empty() && l.back() == '\r') l.pop_back();
      lines.push_back(std::move(l));
    }
    size_t i = 0;
    bool applies = true;
    while (i < lines.size()) {
      const std::string& line = lines[i];
      const std::vector<std::string> w = words(line);
      if (w.empty() || w[0][0] == '#') {
        ++i;
        continue;
      }
      const int line_no = static_cast<int>(i + 1);
      if (w[0] == "skipif" || w[0] == "onlyif") {
        const bool sqlite = w.size() > 1 && w[1] == "sqlite";
        if ((w[0] == "skipif") == sqlite) applies = false;
        ++i;
        continue;
      }
      if (w[0] == "halt") {
        if (applies) return;
        applies = true;
        ++i;
        continue;
      }
      if (w[0] == "hash-threshold") {
        threshold_ = w.size() > 1 ? std::atoi(w[1].c_str()) : 0;
        applies = true;
        ++i;
        continue;
      }
      if (w[0] != "statement" && w[0] != "query") {
        fail(line_no, "unknown record: " + line);
        ++i;
        continue;
      }
      // The SQL, up to a blank line (statements) or "----" (queries).
      ++i;
      std::string sql;
      while (i < lines.size() && !lines[i].empty() && lines[i] != "----") {
        sql += (sql.empty() ? "" : "\n") + lines[i];
        ++i;
      }
      std::vector<std::string> expected;
      if (i < lines.size() && lines[i] == "----") {
        ++i;
        while (i < lines.size() && !lines[i].empty()) expected.push_back(lines[i++]);
      }
      const bool run_it = applies;
      applies = true;
      if (!run_it) continue;
      ++stats_->records;
      if (w[0] == "statement") {
        statement(line_no, sql, w.size() > 1 && w[1] == "ok");
      } else {
        query(line_no, sql, w.size() > 1 ? w[1] : "", w.size() > 2 ? w[2] : "nosort",
              w.size() > 3 ? w[3] : "", expected);
      }
    }
  }

 private:
  static std::vector<std::string> words(const std::string& line) {
    std::vector<std::string> out;
    std::istringstream in(line);
    for (std::string w; in >> w;) out.push_back(w);
    return out;
  }

  void fail(int line, const std::string& what) {
    ++stats_->failed;
    if (stats_->failures.size() < 10) {
      stats_->failures.push_back(name_ + ":" + std::to_string(line) + ": " + what);
    }
  }
  void not_applicable(const std::string& why) {
    ++stats_->not_applicable;
    ++stats_->not_applicable_why[why];
  }

  // Runs every statement of `sql`; the rows of the last one go to *rows.
  // SQLITE_OK or the failing code, with *message.
  int exec(const std::string& sql, const std::string& types,
           std::vector<std::vector<std::string>>* rows, std::string* message) {
    const char* tail = sql.c_str();
    while (tail != nullptr && *tail != '\0') {
      sqlite3_stmt* stmt = nullptr;
      if (sqlite3_prepare_v2(db_, tail, -1, &stmt, &tail) != SQLITE_OK) {
        *message = sqlite3_errmsg(db_);
        return sqlite3_errcode(db_);
      }
      if (stmt == nullptr) continue;
      if (rows != nullptr) rows->clear();
      int rc;
      while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
        if (rows == nullptr) continue;
        std::vector<std::string> row;
        for (int c = 0; c < sqlite3_column_count(stmt); ++c) {
          row.push_back(render(stmt, c, static_cast<size_t>(c) < types.size() ? types[c] : 'T'));
        }
        rows->push_back(std::move(row));
      }
      if (rc != SQLITE_DONE) {
        *message = sqlite3_errmsg(db_);
        sqlite3_finalize(stmt);
        return rc;
      }
      sqlite3_finalize(stmt);
    }
    return SQLITE_OK;
  }
  bool exec_ok(const std::string& sql, std::string* message) {
    return exec(sql, "", nullptr, message) == SQLITE_OK;
  }

  static std::string render(sqlite3_stmt* stmt, int c, char type) {
    if (sqlite3_column_type(stmt, c) == SQLITE_NULL) return "NULL";
    char buf[64];
    switch (type) {
      case 'I':
        std::snprintf(buf, sizeof(buf), "%lld", static_cast<long long>(sqlite3_column_int64(stmt, c)));
        return buf;
      case 'R':
        return render_real(sqlite3_column_double(stmt, c));
      default: {
        const unsigned char* t = sqlite3_column_text(stmt, c);
        std::string s(reinterpret_cast<const char*>(t), static_cast<size_t>(sqlite3_column_bytes(stmt, c)));
        if (s.empty()) return "(empty)";
        for (char& ch : s) {
          if (ch < ' ' || ch > '~') ch = '@';
        }
        return s;
      }
    }
  }

  // The complete statements of `sql` (sqlite3_complete() finds the ends).
  static std::vector<std::string> split_statements(const std::string& sql) {
    std::vector<std::string> out;
    size_t start = 0;
    for (size_t p = sql.find(';'); p != std::string::npos; p = sql.find(';', p + 1)) {
      const std::string part = sql.substr(start, p + 1 - start);
      if (sqlite3_complete(part.c_str())) {
        out.push_back(part);
        start = p + 1;
      }
    }
    if (sql.find_first_not_of(" \t\n", start) != std::string::npos) out.push_back(sql.substr(start));
    return out;
  }

  // "%.3f" as the SQLite that wrote the scripts printed it: at most 16
  // significant digits, then zeros (-2^63 is -9223372036854776000.000).
  static std::string render_real(double r) {
    char buf[400];
    std::snprintf(buf, sizeof(buf), "%.3f", r);
    const std::string fixed = buf;
    size_t digits = 0;
    for (char ch : fixed) digits += (ch >= '0' && ch <= '9') ? 1 : 0;
    if (digits <= 16 || !std::isfinite(r)) return fixed;
    std::snprintf(buf, sizeof(buf), "%.15e", r);  // 16 significant digits
    const std::string e = buf;
    const size_t epos = e.find('e');
    const int exponent = std::atoi(e.c_str() + epos + 1);
    std::string mantissa;
    for (size_t i = 0; i < epos; ++i) {
      if (e[i] >= '0' && e[i] <= '9') mantissa += e[i];
    }
    if (exponent < 0) return fixed;
    std::string whole = mantissa.substr(0, std::min<size_t>(mantissa.size(), exponent + 1));
    while (whole.size() < static_cast<size_t>(exponent) + 1) whole += '0';
    std::string frac = mantissa.size() > whole.size() ? mantissa.substr(whole.size()) : "";
    frac = (frac + "000").substr(0, 3);
    return (r < 0 ? "-" : "") + whole + "." + frac;
  }

  void statement(int line, const std::string& sql, bool expect_ok) {
    std::string message;
    int rc = SQLITE_OK;
    if (mode_ == Mode::kTuplekv) {
      // Each statement of the record on its own: a schema statement among
      // others still needs its translation.
      for (const std::string& one : split_statements(sql)) {
        std::string why;
        switch (translate(one, &rc, &message, &why)) {
          case Handled::kNo:
            rc = exec(one, "", nullptr, &message);
            break;
          case Handled::kDone:
            break;
          case Handled::kNotApplicable:
            not_applicable(why);
            return;
        }
        if (rc != SQLITE_OK) break;
      }
    } else {
      rc = exec(sql, "", nullptr, &message);
    }
    if ((rc == SQLITE_OK) == expect_ok) {
      ++stats_->passed;
    } else {
      fail(line, std::string(expect_ok ? "statement failed: " + message : "statement succeeded") +
                     "\n    " + sql);
    }
  }

  void query(int line, const std::string& sql, const std::string& types, const std::string& sort,
             const std::string& label, const std::vector<std::string>& expected) {
    std::vector<std::vector<std::string>> rows;
    std::string message;
    if (exec(sql, types, &rows, &message) != SQLITE_OK) {
      // The reference runner prints nothing for a query that fails (sum()
      // overflowing, for one): the script then expects no values.
      if (expected.empty()) {
        ++stats_->passed;
      } else {
        fail(line, "query failed: " + message + "\n    " + sql);
      }
      return;
    }
    std::vector<std::string> values;
    if (sort == "rowsort") std::sort(rows.begin(), rows.end());
    for (auto& r : rows) {
      for (auto& v : r) values.push_back(std::move(v));
    }
    if (sort == "valuesort") std::sort(values.begin(), values.end());
    Md5 md5;
    for (const std::string& v : values) {
      md5.update(v);
      md5.update("\n");
    }
    const std::string hash = md5.hex_digest();
    const std::string hashed = std::to_string(values.size()) + " values hashing to " + hash;
    bool ok;
    if (expected.size() == 1 && expected[0].find(" values hashing to ") != std::string::npos) {
      ok = expected[0] == hashed;
    } else {
      // Some scripts list a row per line, values separated by spaces.
      ok = values == expected;
      if (!ok && !rows.empty() && expected.size() * rows[0].size() == values.size()) {
        std::vector<std::string> joined;
        for (size_t i = 0; i < values.size(); i += rows[0].size()) {
          std::string l;
          for (size_t j = 0; j < rows[0].size(); ++j) l += (j ? " " : "") + values[i + j];
          joined.push_back(l);
        }
        ok = joined == expected;
      }
    }
    if (ok && !label.empty()) {
      auto [it, inserted] = labels_.emplace(label, hash);
      if (!inserted && it->second != hash) {
        fail(line, "label " + label + " hashes differently\n    " + sql);
        return;
      }
    }
    if (ok) {
      ++stats_->passed;
      return;
    }
    std::string got;
    for (size_t i = 0; i < values.size() && i < 12; ++i) got += values[i] + " ";
    std::string want;
    for (size_t i = 0; i < expected.size() && i < 12; ++i) want += expected[i] + " ";
    fail(line, "query result differs\n    " + sql + "\n    got " + std::to_string(values.size()) +
                   " values: " + got + (values.size() > threshold_ && threshold_ > 0 ? "(" + hashed + ")" : "") +
                   "\n    want: " + want);
  }

  // ---------------------------------------------------------------------
  // tuplekv mode: schema statements on translated tables

  enum class Handled { kNo, kDone, kNotApplicable };

  TableDef* table_of_index(const std::string& index) {
    for (auto& [name, def] : tables_) {
      for (const IndexDef& i : def.indexes) {
        if (normalize_identifier(i.name) == index) return &def;
      }
    }
    return nullptr;
  }

  // Declares `def` anew under its name, with the rows it holds now.
  bool rebuild(TableDef* def, std::string* message) {
    const std::string tmp = normalize_identifier(def->name) + "_slt_rebuild";
    std::string msg;
    if (!exec_ok(render_tuplekv(*def, tmp, store_), message)) return false;
    if (!exec_ok("INSERT INTO " + tmp + " SELECT * FROM " + def->name, message) ||
        !exec_ok("DROP TABLE " + def->name, message)) {
      exec_ok("DROP TABLE " + tmp, &msg);
      return false;
    }
    // Views naming the table are invalid for a moment: the legacy rename
    // does not re-check them.
    const bool ok = exec_ok("PRAGMA legacy_alter_table=ON; ALTER TABLE " + tmp + " RENAME TO " +
                                def->name + "; PRAGMA legacy_alter_table=OFF",
                            message);
    return ok;
  }

  bool in_schema(const std::string& name) {
    std::vector<std::vector<std::string>> rows;
    std::string message;
    exec("SELECT 1 FROM sqlite_schema WHERE lower(name) = '" + name + "'", "", &rows, &message);
    return !rows.empty();
  }

  Handled translate(const std::string& sql, int* rc, std::string* message, std::string* why) {
    const std::vector<std::string> w = leading_words(sql, 6);
    if (w.size() < 2) return Handled::kNo;
    *rc = SQLITE_OK;
    if (w[0] == "CREATE" && w[1] == "TABLE") {
      TableDef def;
      std::string reason;
      if (parse_create_table(sql, &def, &reason) != Parse::kOk) {
        ++stats_->native_tables[reason];
        return Handled::kNo;
      }
      const std::string key = normalize_identifier(def.name);
      if (!exec_ok(render_tuplekv(def, def.name, store_), message)) {
        *rc = SQLITE_ERROR;
        return Handled::kDone;
      }
      ++stats_->tables_translated;
      tables_[key] = std::move(def);
      return Handled::kDone;
    }
    if (w[0] == "CREATE" && (w[1] == "INDEX" || (w[1] == "UNIQUE" && w.size() > 2 && w[2] == "INDEX"))) {
      CreateIndex ci;
      std::string reason;
      const Parse p = parse_create_index(sql, &ci, &reason);
      if (p == Parse::kNotThis || tables_.count(ci.table) == 0) return Handled::kNo;
      if (p == Parse::kUnsupported) {
        *why = reason;
        return Handled::kNotApplicable;
      }
      const std::string index = normalize_identifier(ci.index.name);
      if (table_of_index(index) != nullptr || in_schema(index)) {
        if (ci.if_not_exists) return Handled::kDone;
        *rc = SQLITE_ERROR;
        *message = "index " + ci.index.name + " already exists";
        return Handled::kDone;
      }
      TableDef* def = &tables_[ci.table];
      for (const std::string& c : ci.index.columns) {
        bool found = false;
        for (const std::string& col : def->columns) found |= normalize_identifier(col) == normalize_identifier(c);
        if (!found) {
          *rc = SQLITE_ERROR;
          *message = "no such column: " + c;
          return Handled::kDone;
        }
      }
      ci.index.unique = ci.unique;
      def->indexes.push_back(ci.index);
      if (!rebuild(def, message)) {
        def->indexes.pop_back();
        *rc = SQLITE_ERROR;
        return Handled::kDone;
      }
      ++stats_->indexes_folded;
      return Handled::kDone;
    }
    if (w[0] == "DROP" && w[1] == "INDEX") {
      const bool if_exists = w.size() > 3 && w[2] == "IF" && w[3] == "EXISTS";
      const std::vector<Token> t = tokenize(sql);
      const size_t at = if_exists ? 4 : 2;
      if (t.size() <= at) return Handled::kNo;
      const std::string index = normalize_identifier(t[at].text);
      TableDef* def = table_of_index(index);
      if (def == nullptr) return Handled::kNo;
      const std::vector<IndexDef> before = def->indexes;
      def->indexes.erase(std::remove_if(def->indexes.begin(), def->indexes.end(),
                                        [&](const IndexDef& i) {
                                          return normalize_identifier(i.name) == index;
                                        }),
                         def->indexes.end());
      if (!rebuild(def, message)) {
        def->indexes = before;
        *rc = SQLITE_ERROR;
      }
      return Handled::kDone;
    }
    if (w[0] == "CREATE" && (w[1] == "TRIGGER" || (w.size() > 2 && w[2] == "TRIGGER"))) {
      // CREATE [TEMP] TRIGGER name ... ON table: refused on virtual tables.
      const std::vector<Token> t = tokenize(sql);
      for (size_t i = 0; i + 1 < t.size(); ++i) {
        if (upper(t[i].text) == "ON" && tables_.count(normalize_identifier(t[i + 1].text)) != 0) {
          const size_t name_at = w[1] == "TRIGGER" ? 2 : 3;
          if (t.size() > name_at) triggers_.insert(normalize_identifier(t[name_at].text));
          *why = "trigger on a virtual table";
          return Handled::kNotApplicable;
        }
      }
      return Handled::kNo;
    }
    if (w[0] == "DROP" && w[1] == "TRIGGER") {
      const std::vector<Token> t = tokenize(sql);
      const std::string name = normalize_identifier(t.back().text);
      if (triggers_.count(name) != 0) {
        *why = "trigger on a virtual table";
        return Handled::kNotApplicable;
      }
      return Handled::kNo;
    }
    if (w[0] == "REINDEX") {
      const std::string name = normalize_identifier(w[1]);
      const TableDef* def = tables_.count(name) != 0 ? &tables_[name] : table_of_index(name);
      if (def == nullptr) return Handled::kNo;
      std::vector<std::vector<std::string>> rows;
      *rc = exec("SELECT tuplekv_check('" + normalize_identifier(def->name) + "')", "T", &rows,
                 message);
      if (*rc == SQLITE_OK && (rows.size() != 1 || rows[0][0] != "ok")) {
        *rc = SQLITE_ERROR;
        *message = "tuplekv_check: " + (rows.empty() ? std::string("no result") : rows[0][0]);
      }
      return Handled::kDone;
    }
    if (w[0] == "DROP" && w[1] == "TABLE") {
      const std::vector<Token> t = tokenize(sql);
      *rc = exec(sql, "", nullptr, message);
      if (*rc == SQLITE_OK) tables_.erase(normalize_identifier(t.back().text));
      return Handled::kDone;
    }
    return Handled::kNo;
  }

  sqlite3* db_;
  Mode mode_;
  std::string store_;
  Stats* stats_ = nullptr;
  std::string name_;
  size_t threshold_ = 0;
  std::map<std::string, std::string> labels_;
  std::map<std::string, TableDef> tables_;  // translated, by normalized name
  std::set<std::string> triggers_;          // not applicable, by normalized name
};

}  // namespace tuplekv::slt

#endif  // TUPLEKV_TESTS_SLT_SLT_RUNNER_H_
