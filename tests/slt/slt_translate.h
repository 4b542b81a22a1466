// The schema rewriting behind the sqllogictest runner's tuplekv mode: just
// enough of SQLite's grammar to turn the ordinary tables of a script into
//
//   CREATE VIRTUAL TABLE t USING tuplekv_table(cols..., PRIMARY KEY(...),
//                                              INDEX i(...), store=...)
//
// The column definitions and table constraints go through as written
// (types, inline PRIMARY KEY, UNIQUE, DEFAULT ...): a tuplekv_table must
// accept an ordinary table's column list. The one adaptation: SQLite
// refuses CREATE INDEX on a virtual table, so CREATE [UNIQUE] INDEX on a
// translated table is folded into its declaration as [UNIQUE] INDEX
// name(cols), ASC/DESC kept as written (tuplekv_table accepts them), and
// the runner rebuilds the table with its rows. Temporary tables, AS
// SELECT and table options stay native; expression and partial indexes
// are not applicable.
#ifndef TUPLEKV_TESTS_SLT_SLT_TRANSLATE_H_
#define TUPLEKV_TESTS_SLT_SLT_TRANSLATE_H_

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tuplekv::slt {

// One SQL token: a word (identifier or keyword, quotes kept), a literal, or
// one punctuation character.
struct Token {
  std::string text;
  bool word = false;
  size_t begin = 0, end = 0;  // where it is in the SQL
};

inline std::vector<Token> tokenize(std::string_view sql) {
  std::vector<Token> out;
  size_t i = 0;
  while (i < sql.size()) {
    const char c = sql[i];
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '-' && i + 1 < sql.size() && sql[i + 1] == '-') {
      while (i < sql.size() && sql[i] != '\n') ++i;
    } else if (c == '\'' || c == '"' || c == '`' || c == '[') {
      const char close = c == '[' ? ']' : c;
      size_t j = i + 1;
      while (j < sql.size()) {
        if (sql[j] == close) {
          if (close != ']' && j + 1 < sql.size() && sql[j + 1] == close) {
            j += 2;
            continue;
          }
          break;
        }
        ++j;
      }
      out.push_back({std::string(sql.substr(i, j + 1 - i)), c != '\'', i, std::min(j + 1, sql.size())});
      i = j + 1;
    } else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' ||
               static_cast<unsigned char>(c) >= 0x80) {
      size_t j = i;
      while (j < sql.size() && (std::isalnum(static_cast<unsigned char>(sql[j])) || sql[j] == '_' ||
                                sql[j] == '.' || static_cast<unsigned char>(sql[j]) >= 0x80)) {
        ++j;
      }
      out.push_back({std::string(sql.substr(i, j - i)), true, i, j});
      i = j;
    } else {
      out.push_back({std::string(1, c), false, i, i + 1});
      ++i;
    }
  }
  return out;
}

inline std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// Lower-cases an identifier and strips SQL quoting ("x", [x], `x`) and a
// schema prefix (main.x).
inline std::string normalize_identifier(std::string_view text) {
  std::string s(text);
  if (!s.empty() && (s[0] == '"' || s[0] == '[' || s[0] == '`') && s.size() >= 2) {
    s = s.substr(1, s.size() - 2);
  } else if (const size_t dot = s.rfind('.'); dot != std::string::npos) {
    s = s.substr(dot + 1);
  }
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Tokens from..to joined by single spaces (SQL reads them the same).
inline std::string join(const std::vector<Token>& t, size_t from, size_t to) {
  std::string out;
  for (size_t i = from; i < to && i < t.size(); ++i) {
    if (i > from) out += ' ';
    out += t[i].text;
  }
  return out;
}

struct IndexDef {
  std::string name;                  // as written
  std::vector<std::string> columns;  // as written
  std::vector<std::string> orders;   // per column: " ASC", " DESC" or ""
  bool unique = false;
};

struct TableDef {
  std::string name;                  // as written
  bool if_not_exists = false;
  std::vector<std::string> items;    // column definitions and constraints, as written
  std::vector<std::string> columns;  // column names, as written
  std::vector<IndexDef> indexes;     // folded in from CREATE INDEX
};

// Splits the tokens between an opening parenthesis at `open` and its match
// at top-level commas. *end is the index of the closing parenthesis.
inline std::vector<std::vector<Token>> split_list(const std::vector<Token>& t, size_t open,
                                                  size_t* end) {
  std::vector<std::vector<Token>> parts(1);
  int depth = 0;
  for (size_t i = open; i < t.size(); ++i) {
    if (t[i].text == "(") {
      if (depth++ == 0) continue;
    } else if (t[i].text == ")") {
      if (--depth == 0) {
        *end = i;
        return parts;
      }
    } else if (t[i].text == "," && depth == 1) {
      parts.emplace_back();
      continue;
    }
    parts.back().push_back(t[i]);
  }
  *end = t.size();
  return {};
}

// Column names of an index or key list, and each one's ASC/DESC (" DESC",
// " ASC" or ""). False for expressions.
inline bool column_list(const std::vector<std::vector<Token>>& items, std::vector<std::string>* out,
                        std::vector<std::string>* orders) {
  for (const std::vector<Token>& item : items) {
    if (item.empty() || !item[0].word || item.size() > 2) return false;
    std::string order;
    if (item.size() == 2) {
      const std::string u = upper(item[1].text);
      if (u != "ASC" && u != "DESC") return false;
      order = " " + item[1].text;
    }
    out->push_back(item[0].text);
    orders->push_back(order);
  }
  return !out->empty();
}

enum class Parse { kNotThis, kOk, kUnsupported };

// CREATE TABLE: kNotThis when `sql` is another statement; kUnsupported
// (with *why) when it cannot be declared as a tuplekv_table at all (a
// temporary table, AS SELECT, table options). The column definitions and
// table constraints are kept as written: tuplekv_table must take them.
inline Parse parse_create_table(std::string_view sql, TableDef* out, std::string* why) {
  const std::vector<Token> t = tokenize(sql);
  if (t.size() < 4 || upper(t[0].text) != "CREATE") return Parse::kNotThis;
  size_t i = 1;
  if (upper(t[i].text) == "TEMP" || upper(t[i].text) == "TEMPORARY") {
    *why = "temporary table";
    return upper(t[i + 1].text) == "TABLE" ? Parse::kUnsupported : Parse::kNotThis;
  }
  if (upper(t[i].text) != "TABLE") return Parse::kNotThis;
  ++i;
  if (upper(t[i].text) == "IF" && i + 3 < t.size()) {
    out->if_not_exists = true;
    i += 3;
  }
  out->name = t[i++].text;
  if (i >= t.size() || t[i].text != "(") {
    *why = "CREATE TABLE ... AS SELECT";
    return Parse::kUnsupported;
  }
  size_t end = 0;
  const std::vector<std::vector<Token>> items = split_list(t, i, &end);
  if (end + 1 != t.size()) {
    *why = "table options";
    return Parse::kUnsupported;
  }
  for (const std::vector<Token>& item : items) {
    if (item.empty()) {
      *why = "empty definition";
      return Parse::kUnsupported;
    }
    out->items.emplace_back(sql.substr(item.front().begin, item.back().end - item.front().begin));
    const std::string head = upper(item[0].text);
    const bool constraint = head == "PRIMARY" || head == "UNIQUE" || head == "CHECK" ||
                            head == "FOREIGN" || head == "CONSTRAINT";
    if (!constraint) out->columns.push_back(item[0].text);
  }
  return Parse::kOk;
}

struct CreateIndex {
  IndexDef index;
  std::string table;  // normalized
  bool if_not_exists = false;
  bool unique = false;
};

// CREATE [UNIQUE] INDEX [IF NOT EXISTS] i ON t(cols).
inline Parse parse_create_index(std::string_view sql, CreateIndex* out, std::string* why) {
  const std::vector<Token> t = tokenize(sql);
  if (t.size() < 5 || upper(t[0].text) != "CREATE") return Parse::kNotThis;
  size_t i = 1;
  if (upper(t[i].text) == "UNIQUE") {
    out->unique = true;
    ++i;
  }
  if (upper(t[i].text) != "INDEX") return Parse::kNotThis;
  ++i;
  if (upper(t[i].text) == "IF") {
    out->if_not_exists = true;
    i += 3;
  }
  if (i + 3 >= t.size()) return Parse::kNotThis;
  out->index.name = t[i++].text;
  if (upper(t[i++].text) != "ON") return Parse::kNotThis;
  out->table = normalize_identifier(t[i++].text);
  size_t end = 0;
  if (t[i].text != "(" ||
      !column_list(split_list(t, i, &end), &out->index.columns, &out->index.orders) || end + 1 != t.size()) {
    *why = "expression or partial index";
    return Parse::kUnsupported;
  }
  return Parse::kOk;
}

// The first words of a statement, upper-cased (enough to classify it).
inline std::vector<std::string> leading_words(std::string_view sql, size_t n) {
  std::vector<std::string> out;
  for (const Token& t : tokenize(sql)) {
    if (out.size() == n) break;
    out.push_back(t.word ? upper(t.text) : t.text);
  }
  return out;
}

// CREATE VIRTUAL TABLE <name> USING tuplekv_table(<the items as written>,
// <folded indexes>), with `store=` when `store` is not empty.
inline std::string render_tuplekv(const TableDef& table, const std::string& name,
                                  std::string_view store) {
  std::string s = std::string("CREATE VIRTUAL TABLE ") + (table.if_not_exists ? "IF NOT EXISTS " : "") +
                  name + " USING tuplekv_table(";
  bool first = true;
  auto add = [&](const std::string& part) {
    if (!first) s += ", ";
    s += part;
    first = false;
  };
  for (const std::string& item : table.items) add(item);
  for (const IndexDef& i : table.indexes) {
    std::string cols;
    for (size_t c = 0; c < i.columns.size(); ++c) {
      cols += (c ? ", " : "") + i.columns[c] + (c < i.orders.size() ? i.orders[c] : "");
    }
    add(std::string(i.unique ? "UNIQUE " : "") + "INDEX " + i.name + "(" + cols + ")");
  }
  if (!store.empty()) add("store=" + std::string(store));
  return s + ")";
}

}  // namespace tuplekv::slt

#endif  // TUPLEKV_TESTS_SLT_SLT_TRANSLATE_H_
