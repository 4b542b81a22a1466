// Typed tables: schema parsing, STRICT coercion and the row/index layout
// (see table.h).
#include "core/model/table.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <memory>

#include "core/model/collation_key.h"
#include "core/model/native_scan.h"
#include "core/subspace.h"

namespace tuplekv::model {

namespace {

// ---------------------------------------------------------------------------
// A small SQL tokenizer, enough for column definitions and table
// constraints.

struct Token {
  enum class Kind { kEnd, kWord, kQuoted, kString, kNumber, kBlob, kPunct } kind = Kind::kEnd;
  std::string text;  // kWord/kQuoted: the name (dequoted); others: as written
  size_t begin = 0;  // offset in the source
  size_t end = 0;
};

class Lexer {
 public:
  explicit Lexer(std::string_view s) : s_(s) {}

  Status next(Token* t) {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    t->begin = pos_;
    t->text.clear();
    if (pos_ >= s_.size()) {
      t->kind = Token::Kind::kEnd;
      t->end = pos_;
      return Status::OK();
    }
    const char c = s_[pos_];
    if ((c == 'x' || c == 'X') && pos_ + 1 < s_.size() && s_[pos_ + 1] == '\'') {
      ++pos_;
      TUPLEKV_RETURN_IF_ERROR(quoted('\'', '\'', t));
      t->kind = Token::Kind::kBlob;
      t->text = std::string(s_.substr(t->begin, pos_ - t->begin));
    } else if (c == '\'') {
      TUPLEKV_RETURN_IF_ERROR(quoted('\'', '\'', t));
      t->kind = Token::Kind::kString;
      t->text = std::string(s_.substr(t->begin, pos_ - t->begin));
    } else if (c == '"' || c == '`' || c == '[') {
      TUPLEKV_RETURN_IF_ERROR(quoted(c, c == '[' ? ']' : c, t));
      t->kind = Token::Kind::kQuoted;
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '.' && pos_ + 1 < s_.size() &&
                std::isdigit(static_cast<unsigned char>(s_[pos_ + 1])))) {
      while (pos_ < s_.size()) {
        const char d = s_[pos_];
        const bool exp_sign = (d == '+' || d == '-') && pos_ > 0 &&
                              (s_[pos_ - 1] == 'e' || s_[pos_ - 1] == 'E');
        if (!(std::isalnum(static_cast<unsigned char>(d)) || d == '.' || exp_sign)) break;
        ++pos_;
      }
      t->kind = Token::Kind::kNumber;
      t->text = std::string(s_.substr(t->begin, pos_ - t->begin));
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_' ||
               static_cast<unsigned char>(c) >= 0x80) {
      while (pos_ < s_.size()) {
        const auto d = static_cast<unsigned char>(s_[pos_]);
        if (!(std::isalnum(d) || d == '_' || d == '$' || d >= 0x80)) break;
        ++pos_;
      }
      t->kind = Token::Kind::kWord;
      t->text = std::string(s_.substr(t->begin, pos_ - t->begin));
    } else {
      ++pos_;
      t->kind = Token::Kind::kPunct;
      t->text = std::string(1, c);
    }
    t->end = pos_;
    return Status::OK();
  }

  // The next token, without consuming it.
  Status peek(Token* t) {
    const size_t at = pos_;
    const Status s = next(t);
    pos_ = at;
    return s;
  }

  std::string_view source() const { return s_; }

 private:
  // Reads a quoted run starting at s_[pos_] == open; doubled `close` is one.
  Status quoted(char open, char close, Token* t) {
    (void)open;
    ++pos_;
    while (pos_ < s_.size()) {
      const char c = s_[pos_++];
      if (c == close) {
        if (close != ']' && pos_ < s_.size() && s_[pos_] == close) {
          t->text.push_back(c);
          ++pos_;
          continue;
        }
        return Status::OK();
      }
      t->text.push_back(c);
    }
    return Status::InvalidArgument("unterminated quote");
  }

  std::string_view s_;
  size_t pos_ = 0;
};

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

bool is_word(const Token& t, std::string_view w) {
  return t.kind == Token::Kind::kWord && iequals(t.text, w);
}

bool is_name(const Token& t) { return t.kind == Token::Kind::kWord || t.kind == Token::Kind::kQuoted; }

bool is_punct(const Token& t, char c) { return t.kind == Token::Kind::kPunct && t.text[0] == c; }

bool contains_word_part(std::string_view upper, std::string_view part) {
  return upper.find(part) != std::string_view::npos;
}

}  // namespace

// A STRICT name itself, else the type of the affinity SQLite derives from
// the name (sqlite3AffinityType's rules, in its order).
std::optional<ColumnType> column_type_of(std::string_view words) {
  if (iequals(words, "INTEGER") || iequals(words, "INT")) return ColumnType::kInteger;
  if (iequals(words, "REAL")) return ColumnType::kReal;
  if (iequals(words, "TEXT")) return ColumnType::kText;
  if (iequals(words, "BLOB")) return ColumnType::kBlob;
  if (iequals(words, "ANY")) return ColumnType::kAny;
  std::string upper(words);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (contains_word_part(upper, "INT")) return ColumnType::kInteger;
  if (contains_word_part(upper, "CHAR") || contains_word_part(upper, "CLOB") ||
      contains_word_part(upper, "TEXT")) {
    return ColumnType::kText;
  }
  if (contains_word_part(upper, "BLOB")) return ColumnType::kBlob;
  if (contains_word_part(upper, "REAL") || contains_word_part(upper, "FLOA") ||
      contains_word_part(upper, "DOUB")) {
    return ColumnType::kReal;
  }
  return std::nullopt;  // NUMERIC affinity
}

std::string_view declared_type_label(std::string_view words, ColumnType type) {
  return iequals(words, "INT") ? std::string_view("INT") : column_type_name(type);
}

namespace {

std::optional<ColumnType> type_of(std::string_view words) { return column_type_of(words); }

// A constraint's own conflict clause would apply to every statement; a
// virtual table hears only the statement's (sqlite3_vtab_on_conflict).
constexpr const char* kOnConflictRefused =
    "ON CONFLICT clauses of constraints are not supported: give the statement its own "
    "(INSERT OR REPLACE, UPDATE OR IGNORE, ...)";

// Words that end a column's type and start a constraint.
bool constraint_word(const Token& t) {
  for (const char* w : {"NOT", "NULL", "DEFAULT", "PRIMARY", "COLLATE", "CONSTRAINT", "UNIQUE",
                        "CHECK", "REFERENCES", "GENERATED", "AS"}) {
    if (is_word(t, w)) return true;
  }
  return false;
}

// Whether `t` is a word of a column's type, and if so the word. SQLite's
// grammar takes an identifier or a string there and dequotes it, so
// `"INTEGER"` and 'TEXT' name their types (a STRICT table accepts them).
// A word still holding a quote character names no type: empty.
std::optional<std::string> type_word(const Token& t) {
  std::string word;
  if (t.kind == Token::Kind::kWord) {
    if (constraint_word(t)) return std::nullopt;
    return t.text;
  }
  if (t.kind == Token::Kind::kQuoted) {
    word = t.text;
  } else if (t.kind == Token::Kind::kString && t.text.size() >= 2) {
    for (size_t i = 1; i + 1 < t.text.size(); ++i) {
      word.push_back(t.text[i]);
      if (t.text[i] == '\'' && t.text[i + 1] == '\'') ++i;
    }
  } else {
    return std::nullopt;
  }
  if (word.find_first_of("\"'`[]") != std::string::npos) word.clear();
  return word;
}

class SchemaParser {
 public:
  SchemaParser(std::string_view module, std::string_view table, TableSchema* out)
      : module_(module), table_(table), out_(out) {}

  Status arg(std::string_view text) {
    Lexer lx(text);
    Token t;
    TUPLEKV_RETURN_IF_ERROR(wrap(lx.next(&t), text));
    if (t.kind == Token::Kind::kEnd) return fail("empty column definition");
    std::string constraint_name;  // kept for a CHECK's message only
    if (is_word(t, "CONSTRAINT")) {
      TUPLEKV_RETURN_IF_ERROR(wrap(lx.next(&t), text));
      if (!is_name(t)) return fail("expected CONSTRAINT name in '" + std::string(text) + "'");
      constraint_name = t.text;
      TUPLEKV_RETURN_IF_ERROR(wrap(lx.next(&t), text));
      if (!is_word(t, "PRIMARY") && !is_word(t, "UNIQUE") && !is_word(t, "CHECK")) {
        return fail("expected PRIMARY KEY, UNIQUE or CHECK after CONSTRAINT name in '" +
                    std::string(text) + "'");
      }
    }
    if (is_word(t, "CHECK")) {
      TUPLEKV_RETURN_IF_ERROR(check(&lx, text, constraint_name));
      TUPLEKV_RETURN_IF_ERROR(wrap(lx.next(&t), text));
      if (t.kind != Token::Kind::kEnd) {
        return fail("unexpected text after ')' in '" + std::string(text) + "'");
      }
      return Status::OK();
    }
    if (is_word(t, "PRIMARY")) {
      Token k;
      TUPLEKV_RETURN_IF_ERROR(wrap(lx.next(&k), text));
      if (!is_word(k, "KEY")) return fail("expected PRIMARY KEY(columns...), got '" + std::string(text) + "'");
      std::vector<std::string> cols;
      std::vector<bool> descending;
      TUPLEKV_RETURN_IF_ERROR(name_list(&lx, text, &cols, &descending));
      if (!pk_names_.empty() || inline_pk_ >= 0) return fail("more than one PRIMARY KEY");
      if (cols.empty()) return fail("PRIMARY KEY needs at least one column");
      pk_names_ = std::move(cols);
      pk_descending_ = std::move(descending);
      created_.push_back(kKeyIndex);
      return Status::OK();
    }
    PendingIndex idx;
    if (is_word(t, "UNIQUE")) {
      idx.unique = true;
      Token n;
      TUPLEKV_RETURN_IF_ERROR(wrap(lx.peek(&n), text));
      if (!is_word(n, "INDEX")) {  // UNIQUE(cols...): an automatic index
        idx.automatic = true;
        TUPLEKV_RETURN_IF_ERROR(name_list(&lx, text, &idx.columns, &idx.descending));
        if (idx.columns.empty()) return fail("UNIQUE needs at least one column");
        created_.push_back(static_cast<int>(indexes_.size()));
        indexes_.push_back(std::move(idx));
        return Status::OK();
      }
      TUPLEKV_RETURN_IF_ERROR(wrap(lx.next(&t), text));
    }
    if (is_word(t, "INDEX")) {
      Token n;
      TUPLEKV_RETURN_IF_ERROR(wrap(lx.next(&n), text));
      if (!is_name(n)) return fail("expected INDEX name(columns...), got '" + std::string(text) + "'");
      idx.name = n.text;
      TUPLEKV_RETURN_IF_ERROR(name_list(&lx, text, &idx.columns, &idx.descending));
      if (idx.columns.empty()) return fail("index " + idx.name + " needs at least one column");
      indexes_after_.push_back(static_cast<int>(indexes_.size()));
      indexes_.push_back(std::move(idx));
      return Status::OK();
    }
    if (is_word(t, "FOREIGN")) return fail("FOREIGN KEY constraints are not supported");
    if (!is_name(t)) return fail("expected a column definition, got '" + std::string(text) + "'");
    return column(&lx, t.text, text);
  }

  Status finish() {
    TableSchema& s = *out_;
    if (s.columns.empty()) return fail("no columns declared");
    if (inline_pk_ >= 0) {
      pk_names_.push_back(s.columns[static_cast<size_t>(inline_pk_)].name);
      pk_descending_.push_back(pk_desc_);
    }
    for (size_t i = 0; i < pk_names_.size(); ++i) {
      const std::string& n = pk_names_[i];
      const int c = s.find_column(n);
      if (c < 0) return fail("PRIMARY KEY names unknown column '" + n + "'");
      // As a WITHOUT ROWID table: a column named again adds nothing to the
      // key (its collation is the column's, so it is the same term).
      if (std::find(s.key.begin(), s.key.end(), c) != s.key.end()) continue;
      s.columns[static_cast<size_t>(c)].key_pos = static_cast<int>(s.key.size());
      s.columns[static_cast<size_t>(c)].not_null = true;
      s.key.push_back(c);
      s.key_descending.push_back(pk_descending_[i]);
    }
    for (const ListedCollation& l : listed_collations_) {
      const int c = s.find_column(l.column);
      if (c >= 0 && !iequals(s.columns[static_cast<size_t>(c)].collation, l.collation)) {
        return fail("COLLATE " + l.collation + " in '" + l.clause + "' differs from column " + l.column +
                    "'s collation " + std::string(s.columns[static_cast<size_t>(c)].collation) +
                    " (declare the collation on the column)");
      }
    }
    for (size_t c = 0; c < s.columns.size(); ++c) {
      if (s.columns[c].key_pos >= 0) continue;
      s.columns[c].value_pos = static_cast<int>(s.values.size());
      s.values.push_back(static_cast<int>(c));
    }
    for (int k : s.key) {
      TableColumn& col = s.columns[static_cast<size_t>(k)];
      if (!col.keyed_by_collation()) continue;
      col.value_pos = static_cast<int>(s.values.size() + s.key_copies.size());
      s.key_copies.push_back(k);
    }
    // A primary key of one column declared INTEGER starts as a rowid
    // alias; WITHOUT ROWID makes its index only at the end of the CREATE
    // TABLE. SQLite's quirk: `a INTEGER PRIMARY KEY DESC` is no alias,
    // `PRIMARY KEY(a DESC)` is.
    if (pk_names_.size() == 1 && integer_declared_[static_cast<size_t>(s.key[0])] && !pk_desc_) {
      created_.erase(std::remove(created_.begin(), created_.end(), kKeyIndex), created_.end());
      created_.push_back(kKeyIndex);
    }
    const std::vector<bool> merged = merge_equal_constraints();
    std::vector<int> number(indexes_.size(), -1);  // pending index -> schema index
    for (size_t i = 0, n = 0; i < indexes_.size(); ++i) {
      if (!merged[i]) number[i] = static_cast<int>(n++);
    }
    for (std::vector<int>* list : {&created_, &indexes_after_}) {
      for (int& i : *list) {
        if (i != kKeyIndex) i = number[static_cast<size_t>(i)];
      }
    }
    for (size_t i = 0; i < indexes_.size(); ++i) {
      if (merged[i]) continue;
      PendingIndex& p = indexes_[i];
      for (const TableIndex& other : s.indexes) {
        if (!p.automatic && iequals(other.name, p.name)) return fail("duplicate index name: " + p.name);
      }
      TableIndex idx;
      idx.name = p.name;
      idx.unique = p.unique;
      idx.automatic = p.automatic;
      idx.descending = p.descending;
      for (const std::string& n : p.columns) {
        const int c = s.find_column(n);
        if (c < 0) {
          return fail((p.automatic ? std::string("UNIQUE") : "index " + p.name) + " names unknown column '" +
                      n + "'");
        }
        idx.columns.push_back(c);
      }
      s.indexes.push_back(std::move(idx));
    }
    s.name_automatic_indexes(table_);
    s.creation_order = created_;
    s.creation_order.insert(s.creation_order.end(), indexes_after_.begin(), indexes_after_.end());
    // Uniqueness is checked the last created first; a rowid table checks
    // its rowid before any index.
    if (s.implicit_key()) s.unique_check_order.push_back(kKeyIndex);
    for (auto it = s.creation_order.rbegin(); it != s.creation_order.rend(); ++it) {
      if (*it == kKeyIndex || s.indexes[static_cast<size_t>(*it)].unique) s.unique_check_order.push_back(*it);
    }
    return Status::OK();
  }

 private:
  struct PendingIndex {
    std::string name;
    std::vector<std::string> columns;
    std::vector<bool> descending;
    bool unique = false;
    bool automatic = false;
  };

  Status fail(const std::string& msg) const {
    return Status::InvalidArgument(std::string(module_) + ": " + msg);
  }

  // SQLite makes one index for the constraints of a CREATE TABLE that name
  // the same columns in the same order: a UNIQUE equal to an earlier
  // PRIMARY KEY or UNIQUE makes none, and a PRIMARY KEY equal to an
  // earlier UNIQUE takes that index over (and its place in created_).
  // Returns which pending indexes are merged away, and drops them from
  // created_. Indexes named by INDEX clauses are never merged, as SQLite
  // never merges a CREATE INDEX.
  std::vector<bool> merge_equal_constraints() {
    const TableSchema& s = *out_;
    std::vector<bool> merged(indexes_.size(), false);
    auto columns_of = [&](int entry) {
      std::vector<int> cols;
      if (entry == kKeyIndex) return s.key;
      for (const std::string& n : indexes_[static_cast<size_t>(entry)].columns) cols.push_back(s.find_column(n));
      return cols;
    };
    std::vector<int> kept;
    for (int entry : created_) {
      const std::vector<int> cols = columns_of(entry);
      bool unknown = false;
      for (int c : cols) unknown = unknown || c < 0;  // reported later
      auto same = kept.end();
      if (!unknown) {
        same = std::find_if(kept.begin(), kept.end(), [&](int k) { return columns_of(k) == cols; });
      }
      if (same == kept.end()) {
        kept.push_back(entry);
      } else if (entry == kKeyIndex) {
        // SQLite makes the earlier index the primary key, directions and
        // all (TableSchema::stored_descending).
        out_->key_descending = indexes_[static_cast<size_t>(*same)].descending;
        merged[static_cast<size_t>(*same)] = true;
        *same = kKeyIndex;
      } else {
        merged[static_cast<size_t>(entry)] = true;
      }
    }
    created_ = std::move(kept);
    return merged;
  }
  Status wrap(const Status& s, std::string_view text) const {
    if (s.ok()) return s;
    return fail(s.message() + " in '" + std::string(text) + "'");
  }

  // ( name [COLLATE c] [ASC|DESC] [, ...] ) and nothing after, each name's
  // DESC in *descending. Tuple keys sort ascending either way (a reverse
  // scan serves ORDER BY ... DESC); the directions only say which order
  // the reference table visits its rows in. A COLLATE must name the
  // column's own collation (checked in finish(), once columns are known):
  // another would change what the index holds unique.
  Status name_list(Lexer* lx, std::string_view text, std::vector<std::string>* out,
                   std::vector<bool>* descending) {
    Token t;
    TUPLEKV_RETURN_IF_ERROR(wrap(lx->next(&t), text));
    if (!is_punct(t, '(')) return fail("expected '(' in '" + std::string(text) + "'");
    for (;;) {
      TUPLEKV_RETURN_IF_ERROR(wrap(lx->next(&t), text));
      if (!is_name(t)) return fail("expected a column name in '" + std::string(text) + "'");
      out->push_back(t.text);
      TUPLEKV_RETURN_IF_ERROR(wrap(lx->next(&t), text));
      if (is_word(t, "COLLATE")) {
        TUPLEKV_RETURN_IF_ERROR(wrap(lx->next(&t), text));
        if (!is_name(t)) return fail("expected a collation name in '" + std::string(text) + "'");
        listed_collations_.push_back({out->back(), t.text, std::string(text)});
        TUPLEKV_RETURN_IF_ERROR(wrap(lx->next(&t), text));
      }
      descending->push_back(is_word(t, "DESC"));
      if (is_word(t, "ASC") || is_word(t, "DESC")) TUPLEKV_RETURN_IF_ERROR(wrap(lx->next(&t), text));
      if (is_punct(t, ',')) continue;
      if (is_punct(t, ')')) break;
      return fail("expected ',' or ')' in '" + std::string(text) + "'");
    }
    TUPLEKV_RETURN_IF_ERROR(wrap(lx->next(&t), text));
    if (is_word(t, "ON")) return fail(std::string(kOnConflictRefused) + " in '" + std::string(text) + "'");
    if (t.kind != Token::Kind::kEnd) return fail("unexpected text after ')' in '" + std::string(text) + "'");
    return Status::OK();
  }

  Status column(Lexer* lx, const std::string& name, std::string_view text) {
    TableSchema& s = *out_;
    if (s.find_column(name) >= 0) return fail("duplicate column name: " + name);
    TableColumn col;
    col.name = name;
    bool declared_integer = false;
    Token t;
    TUPLEKV_RETURN_IF_ERROR(wrap(lx->next(&t), text));
    // The type: words, then optional size arguments `(n)` or `(n, m)`,
    // which SQLite ignores; or none.
    if (std::optional<std::string> word = type_word(t)) {
      const size_t begin = t.begin;
      size_t end = t.end;
      std::string words = *word;
      bool named = !word->empty();  // no word that names nothing
      size_t t_end_of_words = 0;
      bool sized = true;
      TUPLEKV_RETURN_IF_ERROR(wrap(lx->next(&t), text));
      while ((word = type_word(t))) {
        words += " " + *word;
        named = named && !word->empty();
        end = t.end;
        TUPLEKV_RETURN_IF_ERROR(wrap(lx->next(&t), text));
      }
      t_end_of_words = end;
      if (is_punct(t, '(')) {
        sized = false;
        for (int n = 0; n < 2; ++n) {
          TUPLEKV_RETURN_IF_ERROR(wrap(lx->next(&t), text));
          if (is_punct(t, '+') || is_punct(t, '-')) TUPLEKV_RETURN_IF_ERROR(wrap(lx->next(&t), text));
          if (t.kind != Token::Kind::kNumber) break;
          TUPLEKV_RETURN_IF_ERROR(wrap(lx->next(&t), text));
          if (is_punct(t, ')')) {
            sized = true;
            end = t.end;
            break;
          }
          if (!is_punct(t, ',')) break;
        }
        if (!sized) {
          return fail("bad size in the type of column " + std::string(table_) + "." + name + " in '" +
                      std::string(text) + "'");
        }
        TUPLEKV_RETURN_IF_ERROR(wrap(lx->next(&t), text));
      }
      const std::optional<ColumnType> type = named ? type_of(words) : std::nullopt;
      if (!type || (t.kind != Token::Kind::kEnd && !constraint_word(t))) {
        while (t.kind != Token::Kind::kEnd && !constraint_word(t)) {
          end = t.end;
          TUPLEKV_RETURN_IF_ERROR(wrap(lx->next(&t), text));
        }
        return fail("unknown type '" + std::string(text.substr(begin, end - begin)) +
                    "' for column " + std::string(table_) + "." + name +
                    " (use INTEGER, REAL, TEXT, BLOB or ANY)");
      }
      col.type = *type;
      col.size_estimate = size_estimate(text.substr(begin, end - begin));
      declared_integer = iequals(words, "INTEGER") && end == t_end_of_words;
      col.type_label = declared_type_label(words, *type);
    }
    integer_declared_.push_back(declared_integer);
    bool is_pk = false;
    // As in SQLite, a name holds for every later constraint of the column
    // (only a CHECK's message shows it).
    std::string constraint_name;
    while (t.kind != Token::Kind::kEnd) {
      if (is_word(t, "CONSTRAINT")) {
        TUPLEKV_RETURN_IF_ERROR(wrap(lx->next(&t), text));
        if (!is_name(t)) return fail("expected CONSTRAINT name in '" + std::string(text) + "'");
        constraint_name = t.text;
      } else if (is_word(t, "CHECK")) {
        TUPLEKV_RETURN_IF_ERROR(check(lx, text, constraint_name));
      } else if (is_word(t, "UNIQUE")) {
        PendingIndex idx;
        idx.unique = true;
        idx.automatic = true;
        idx.columns.push_back(name);
        created_.push_back(static_cast<int>(indexes_.size()));
        indexes_.push_back(std::move(idx));
      } else if (is_word(t, "NOT")) {
        TUPLEKV_RETURN_IF_ERROR(wrap(lx->next(&t), text));
        if (!is_word(t, "NULL")) return fail("expected NOT NULL in '" + std::string(text) + "'");
        col.not_null = true;
      } else if (is_word(t, "NULL")) {
        // allowed, means nothing
      } else if (is_word(t, "PRIMARY")) {
        TUPLEKV_RETURN_IF_ERROR(wrap(lx->next(&t), text));
        if (!is_word(t, "KEY")) return fail("expected PRIMARY KEY in '" + std::string(text) + "'");
        // Twice on one column is one key too many, as in SQLite.
        if (is_pk) return fail("more than one PRIMARY KEY");
        is_pk = true;
        created_.push_back(kKeyIndex);
      } else if ((is_word(t, "ASC") || is_word(t, "DESC")) && is_pk) {
        // PRIMARY KEY ASC or DESC: keys sort ascending either way (see
        // TableSchema::stored_descending)
        pk_desc_ = is_word(t, "DESC");
      } else if (is_word(t, "COLLATE")) {
        TUPLEKV_RETURN_IF_ERROR(wrap(lx->next(&t), text));
        if (!is_name(t)) return fail("expected a collation name in '" + std::string(text) + "'");
        col.collation = {};
        for (std::string_view known : {"BINARY", "NOCASE", "RTRIM"}) {
          if (iequals(t.text, known)) col.collation = known;
        }
        if (col.collation.empty()) {
          return fail("column " + std::string(table_) + "." + name + ": no such collation sequence: " +
                      std::string(t.text) + " (use BINARY, NOCASE or RTRIM)");
        }
      } else if (is_word(t, "DEFAULT")) {
        TUPLEKV_RETURN_IF_ERROR(default_expr(lx, text, &col.default_sql));
      } else if (is_word(t, "ON")) {
        return fail(std::string(kOnConflictRefused) + " (column " + std::string(table_) + "." + name + ")");
      } else {
        return fail("unsupported column constraint '" + t.text + "' for column " +
                    std::string(table_) + "." + name);
      }
      TUPLEKV_RETURN_IF_ERROR(wrap(lx->next(&t), text));
    }
    if (is_pk) {
      if (inline_pk_ >= 0 || !pk_names_.empty()) return fail("more than one PRIMARY KEY");
      inline_pk_ = static_cast<int>(s.columns.size());
    }
    s.columns.push_back(std::move(col));
    return Status::OK();
  }

  // CHECK ( expr ), the CHECK read: its expression's text, kept as written
  // for the message and without column qualifiers for evaluating it.
  Status check(Lexer* lx, std::string_view text, const std::string& name) {
    Token t;
    TUPLEKV_RETURN_IF_ERROR(wrap(lx->next(&t), text));
    if (!is_punct(t, '(')) return fail("expected CHECK (expression) in '" + std::string(text) + "'");
    const size_t begin = t.end;
    std::vector<Token> tokens;
    for (int depth = 1;;) {
      TUPLEKV_RETURN_IF_ERROR(wrap(lx->next(&t), text));
      if (t.kind == Token::Kind::kEnd) {
        return fail("CHECK: unbalanced '(' in '" + std::string(text) + "'");
      }
      if (is_punct(t, '(')) ++depth;
      if (is_punct(t, ')') && --depth == 0) break;
      tokens.push_back(t);
    }
    if (tokens.empty()) return fail("CHECK: expected an expression in '" + std::string(text) + "'");
    const size_t end = t.begin;
    TableCheck c;
    c.text = std::string(trim(text.substr(begin, end - begin)));
    c.label = name.empty() ? c.text : name;
    // `q.` before a name is a qualifier: dropped, as many as there are.
    size_t copied = begin;
    for (size_t i = 0; i + 2 < tokens.size(); ++i) {
      if (is_name(tokens[i]) && is_punct(tokens[i + 1], '.') && is_name(tokens[i + 2])) {
        c.expr.append(text.substr(copied, tokens[i].begin - copied));
        copied = tokens[i + 1].end;
        ++i;
      }
    }
    c.expr.append(text.substr(copied, end - copied));
    c.expr = std::string(trim(c.expr));
    out_->checks.push_back(std::move(c));
    return Status::OK();
  }
  static std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
  }

  // DEFAULT literal | signed number | (expr) | keyword (NULL, TRUE, CURRENT_TIME ...)
  Status default_expr(Lexer* lx, std::string_view text, std::string* out) {
    Token t;
    TUPLEKV_RETURN_IF_ERROR(wrap(lx->next(&t), text));
    const size_t begin = t.begin;
    if (is_punct(t, '+') || is_punct(t, '-')) {
      TUPLEKV_RETURN_IF_ERROR(wrap(lx->next(&t), text));
      if (t.kind != Token::Kind::kNumber && !is_word(t, "Inf")) {
        return fail("DEFAULT: expected a number in '" + std::string(text) + "'");
      }
    } else if (is_punct(t, '(')) {
      int depth = 1;
      while (depth > 0) {
        TUPLEKV_RETURN_IF_ERROR(wrap(lx->next(&t), text));
        if (t.kind == Token::Kind::kEnd) return fail("DEFAULT: unbalanced '(' in '" + std::string(text) + "'");
        if (is_punct(t, '(')) ++depth;
        if (is_punct(t, ')')) --depth;
      }
    } else if (t.kind == Token::Kind::kEnd || t.kind == Token::Kind::kPunct) {
      return fail("DEFAULT: expected a value in '" + std::string(text) + "'");
    } else if (t.kind == Token::Kind::kQuoted || (t.kind == Token::Kind::kWord && !is_default_keyword(t))) {
      // SQLite's grammar reads an identifier here (`DEFAULT abc`,
      // `DEFAULT "abc"`) as the string it spells.
      *out = "'";
      for (const char c : t.text) *out += c == '\'' ? std::string("''") : std::string(1, c);
      *out += "'";
      return Status::OK();
    }
    *out = std::string(text.substr(begin, t.end - begin));
    return Status::OK();
  }
  // The words a DEFAULT keeps as SQL: NULL, TRUE and FALSE, CURRENT_TIME,
  // CURRENT_DATE and CURRENT_TIMESTAMP.
  static bool is_default_keyword(const Token& t) {
    for (const char* w : {"NULL", "TRUE", "FALSE", "CURRENT_TIME", "CURRENT_DATE", "CURRENT_TIMESTAMP"}) {
      if (is_word(t, w)) return true;
    }
    return false;
  }

  std::string_view module_;
  std::string_view table_;
  TableSchema* out_;
  std::vector<std::string> pk_names_;
  std::vector<bool> pk_descending_;  // per name in pk_names_
  bool pk_desc_ = false;  // declared `PRIMARY KEY DESC` on its column
  // COLLATE clauses inside column lists: column, collation, the clause.
  struct ListedCollation {
    std::string column;
    std::string collation;
    std::string clause;
  };
  std::vector<ListedCollation> listed_collations_;
  int inline_pk_ = -1;
  // SQLite checks uniqueness index by index, the last created first (each
  // new index goes to the head of its list). Creation order while the
  // CREATE TABLE is parsed: the primary key (kKeyIndex) and UNIQUE
  // constraints where they are declared; then our INDEX items, as the
  // CREATE INDEX statements after it.
  static constexpr int kKeyIndex = -1;
  std::vector<int> created_;
  std::vector<int> indexes_after_;  // every INDEX item, in order
  std::vector<bool> integer_declared_;  // per column: type written exactly INTEGER
  std::vector<PendingIndex> indexes_;
};

// 2^63 as a double.
constexpr double kTwo63 = 9223372036854775808.0;

// SQLite's integer affinity on a REAL: an integer when exactly one, and
// not one of int64's extremes (sqlite3VdbeIntegerAffinity leaves those).
bool real_as_integer(double r, int64_t* out) {
  if (!(r > -kTwo63 && r < kTwo63)) return false;
  const auto i = static_cast<int64_t>(r);
  if (static_cast<double>(i) != r) return false;
  if (i == INT64_MIN || i == INT64_MAX) return false;
  *out = i;
  return true;
}

Status mismatch(SqlValue::Kind kind, ColumnType t, std::string_view label, std::string_view table,
                std::string_view column) {
  return Status::TypeMismatch("cannot store " + std::string(sql_kind_name(kind)) + " value in " +
                              std::string(label.empty() ? column_type_name(t) : label) + " column " +
                              std::string(table) + "." + std::string(column));
}

}  // namespace

std::string_view column_type_name(ColumnType t) {
  switch (t) {
    case ColumnType::kInteger:
      return "INTEGER";
    case ColumnType::kReal:
      return "REAL";
    case ColumnType::kText:
      return "TEXT";
    case ColumnType::kBlob:
      return "BLOB";
    case ColumnType::kAny:
      return "ANY";
  }
  return "ANY";
}

std::string_view sql_kind_name(SqlValue::Kind k) {
  switch (k) {
    case SqlValue::Kind::kNull:
      return "NULL";
    case SqlValue::Kind::kInteger:
      return "INT";
    case SqlValue::Kind::kReal:
      return "REAL";
    case SqlValue::Kind::kText:
      return "TEXT";
    case SqlValue::Kind::kBlob:
      return "BLOB";
  }
  return "NULL";
}

std::string unique_failed_message(std::string_view table, const TableSchema& s, size_t index) {
  std::string msg = "UNIQUE constraint failed: ";
  const std::vector<int>& columns = s.indexes[index].columns;
  for (size_t k = 0; k < columns.size(); ++k) {
    if (k > 0) msg += ", ";
    msg += std::string(table) + "." + s.columns[static_cast<size_t>(columns[k])].name;
  }
  return msg;
}

std::string automatic_index_name(std::string_view subspace, int n) {
  return std::string(subspace) + "_autoindex_" + std::to_string(n);
}

bool TableSchema::stored_descending(int index) const {
  if (implicit_key()) return false;
  // A direction not given is ascending.
  const auto desc = [](const std::vector<bool>& d, size_t at) { return at < d.size() && d[at]; };
  if (index < 0) {
    for (size_t k = 0; k < key.size(); ++k) {
      if (!desc(key_descending, k)) return false;
    }
    return true;
  }
  const TableIndex& i = indexes[static_cast<size_t>(index)];
  for (size_t c = 0; c < i.columns.size(); ++c) {
    if (!desc(i.descending, c)) return false;
  }
  for (size_t k = 0; k < key.size(); ++k) {
    const bool held = std::find(i.columns.begin(), i.columns.end(), key[k]) != i.columns.end();
    if (!held && !desc(key_descending, k)) return false;
  }
  return true;
}

void TableSchema::name_automatic_indexes(std::string_view subspace) {
  int n = 0;
  for (TableIndex& i : indexes) {
    if (i.automatic) i.name = automatic_index_name(subspace, ++n);
  }
}

bool TableColumn::keyed_by_collation() const {
  return (type == ColumnType::kText || type == ColumnType::kAny) && collation_keys_text(collation);
}

int TableSchema::find_column(std::string_view name) const {
  for (size_t i = 0; i < columns.size(); ++i) {
    if (iequals(columns[i].name, name)) return static_cast<int>(i);
  }
  return -1;
}

Status parse_table_schema(std::string_view module, std::string_view table,
                          const std::vector<std::string>& args, TableSchema* out) {
  *out = TableSchema();
  SchemaParser p(module, table, out);
  for (const std::string& a : args) TUPLEKV_RETURN_IF_ERROR(p.arg(a));
  return p.finish();
}

Status coerce(ColumnType t, const SqlValue& v, SqlConversions* conv, std::string_view table,
              std::string_view column, SqlValue* out, std::string* buf, std::string_view type_label) {
  *out = v;
  if (v.kind == SqlValue::Kind::kNull) return Status::OK();
  switch (t) {
    case ColumnType::kAny:
      // No affinity: SQLite keeps -0.0 here, and equality treats it as 0
      // (sql_equal_variants).
      return Status::OK();
    case ColumnType::kBlob:
      if (v.kind == SqlValue::Kind::kBlob) return Status::OK();
      return mismatch(v.kind, t, type_label, table, column);
    case ColumnType::kText:
      if (v.kind == SqlValue::Kind::kText) return Status::OK();
      if (v.kind == SqlValue::Kind::kBlob) return mismatch(v.kind, t, type_label, table, column);
      conv->text(v, buf);
      out->kind = SqlValue::Kind::kText;
      out->bytes = *buf;
      return Status::OK();
    case ColumnType::kInteger: {
      SqlValue n = v;
      if (v.kind == SqlValue::Kind::kText) n = conv->numeric(v);
      if (n.kind == SqlValue::Kind::kInteger) {
        out->kind = SqlValue::Kind::kInteger;
        out->i = n.i;
        return Status::OK();
      }
      if (n.kind == SqlValue::Kind::kReal) {
        int64_t i = 0;
        if (real_as_integer(n.r, &i)) {
          out->kind = SqlValue::Kind::kInteger;
          out->i = i;
          return Status::OK();
        }
      }
      return mismatch(n.kind, t, type_label, table, column);
    }
    case ColumnType::kReal: {
      SqlValue n = v;
      if (v.kind == SqlValue::Kind::kText) n = conv->numeric(v);
      if (n.kind == SqlValue::Kind::kInteger) {
        out->kind = SqlValue::Kind::kReal;
        out->r = static_cast<double>(n.i);
        return Status::OK();
      }
      if (n.kind == SqlValue::Kind::kReal) {
        out->kind = SqlValue::Kind::kReal;
        // -0.0 becomes 0.0, as SQLite's REAL affinity stores an integral
        // real as an integer.
        out->r = n.r == 0 ? 0.0 : n.r;
        return Status::OK();
      }
      return mismatch(n.kind, t, type_label, table, column);
    }
  }
  return Status::Internal("tuplekv internal error: column type");
}

Status append_element(const SqlValue& v, Bytes* out) {
  switch (v.kind) {
    case SqlValue::Kind::kNull:
      out->push_back('\0');
      return Status::OK();
    case SqlValue::Kind::kInteger:
      append_int64_element(v.i, out);
      return Status::OK();
    case SqlValue::Kind::kReal:
      append_double_element(v.r, out);
      return Status::OK();
    case SqlValue::Kind::kText:
      if (!is_valid_utf8(v.bytes)) return Status::InvalidArgument("TEXT is not valid UTF-8");
      append_string_element(v.bytes, out);
      return Status::OK();
    case SqlValue::Kind::kBlob:
      append_bytes_element(v.bytes, out);
      return Status::OK();
  }
  return Status::Internal("tuplekv internal error: value kind");
}

// ---------------------------------------------------------------------------
// Layout

Result<TableLayout> TableLayout::make(const TableSchema& schema, std::string_view subspace) {
  TableLayout l;
  l.schema_ = schema;
  l.value_columns_ = schema.values;
  l.value_columns_.insert(l.value_columns_.end(), schema.key_copies.begin(), schema.key_copies.end());
  l.map_sources();
  TUPLEKV_RETURN_IF_ERROR(l.rebind(subspace));
  for (const TableIndex& idx : schema.indexes) {
    Bytes p;
    TUPLEKV_RETURN_IF_ERROR(pack({TupleValue::string(idx.name)}, &p));
    l.index_prefixes_.push_back(std::move(p));
  }
  l.map_indexes_to_rows();
  return l;
}

void TableLayout::map_sources() {
  sources_.assign(schema_.columns.size(), ColumnSource{});
  key_targets_.assign(schema_.key_size(), -1);
  for (size_t k = 0; k < schema_.key.size(); ++k) {
    const int c = schema_.key[k];
    sources_[static_cast<size_t>(c)] = ColumnSource{0, static_cast<uint32_t>(k)};
    key_targets_[k] = c;
  }
  // The value's elements come after the key's in read_row() and win.
  for (size_t v = 0; v < value_columns_.size(); ++v) {
    const int c = value_columns_[v];
    sources_[static_cast<size_t>(c)] = ColumnSource{1, static_cast<uint32_t>(v)};
    for (int& t : key_targets_) {
      if (t == c) t = -1;
    }
  }
  every_key_element_read_ = std::find(key_targets_.begin(), key_targets_.end(), -1) == key_targets_.end();
}

Status TableLayout::rebind(std::string_view subspace) {
  Bytes p;
  TUPLEKV_RETURN_IF_ERROR(pack({TupleValue::string(subspace)}, &p));
  row_prefix_ = std::move(p);
  map_indexes_to_rows();
  return Status::OK();
}

void TableLayout::map_indexes_to_rows() {
  // An entry is index prefix + indexed elements + key elements; its row is
  // row prefix + the same key elements.
  index_to_row_.resize(index_prefixes_.size());
  for (size_t i = 0; i < index_prefixes_.size(); ++i) {
    KeyMapping& m = index_to_row_[i];
    m.from_prefix = index_prefixes_[i].size();
    m.skip = schema_.indexes[i].columns.size();
    m.to_prefix = row_prefix_;
  }
}

void TableLayout::append_key_element(int c, BytesView e, Bytes* out) const {
  const TableColumn& col = schema_.columns[static_cast<size_t>(c)];
  if (col.keyed_by_collation()) {
    append_collation_key(e, col.collation, out);
  } else {
    out->append(e);
  }
}

void TableLayout::make_key_elements(const Elements& row, Bytes* out) const {
  out->clear();
  for (int c : schema_.key) append_key_element(c, row[static_cast<size_t>(c)], out);
}

void TableLayout::row_key(const Elements& row, BytesView rowid_element, Bytes* out) const {
  out->assign(row_prefix_);
  if (schema_.key.empty()) {
    out->append(rowid_element);
    return;
  }
  for (int c : schema_.key) append_key_element(c, row[static_cast<size_t>(c)], out);
}

void TableLayout::row_value(const Elements& row, Bytes* out) const {
  out->clear();
  for (int c : schema_.values) out->append(row[static_cast<size_t>(c)]);
  for (int c : schema_.key_copies) out->append(row[static_cast<size_t>(c)]);
}

void TableLayout::index_key(size_t i, const Elements& row, BytesView key_elements,
                            Bytes* out) const {
  out->assign(index_prefixes_[i]);
  for (int c : schema_.indexes[i].columns) append_key_element(c, row[static_cast<size_t>(c)], out);
  out->append(key_elements);
}

namespace {

// Splits `in` into exactly `want` elements, calling put(i, element) for
// each. Element sizes come from quick_element_size (no content checks: the
// column that reads an element decodes it), with TupleReader for the codes
// it does not size. false when the bytes are not `want` whole elements;
// *implicit_int is whether the last element is an integer.
// Puts the first `want` elements of `in`; returns how many bytes they take,
// or npos when `in` holds fewer.
template <typename Put>
size_t split_leading_elements(BytesView in, size_t want, Put put) {
  size_t pos = 0;
  for (size_t i = 0; i < want; ++i) {
    const BytesView rest = in.substr(pos);
    // quick_element_size first: element_size would do the same, but its
    // Status costs more than the split itself on this per-row path.
    size_t n = quick_element_size(rest);
    if (n == 0 && !element_size(rest, &n).ok()) return BytesView::npos;
    put(i, rest.substr(0, n));
    pos += n;
  }
  return pos;
}

template <typename Put>
bool split_elements(BytesView in, size_t want, Put put) {
  return split_leading_elements(in, want, put) == in.size();
}

// An implicit key is a rowid: exactly one integer in int64's range. A
// stored big integer there (0x0b/0x1d, or eight bytes past int64) is
// damage, as any other type is.
bool is_implicit_key(BytesView key_elements) {
  ScalarElement e;
  if (decode_scalar_element(key_elements, &e)) return e.type == ElementType::kInt;
  // Eight-byte integers are not scalars to the fast decoder.
  TupleReader r(key_elements);
  return r.next() && r.type() == ElementType::kInt && !r.next() && r.status().ok();
}

// What the readers of stored rows and index entries (split_row,
// read_row, PartialRow, split_index, read_index_entry) say of damage: each
// once, so that every way of reading a row reports it alike.
constexpr const char* kKeyOutsideSubspace = "table: a row key outside the table's subspace";
constexpr const char* kWrongKeyCount = "table: a row key with the wrong number of key elements";
constexpr const char* kImplicitKeyNotInt64 = "table: an implicit row key that is not an int64";
constexpr const char* kWrongValueCount = "table: a row value with the wrong number of columns";
constexpr const char* kEntryWrongKeyCount = "table: an index entry with the wrong number of key elements";
constexpr const char* kEntryImplicitKeyNotInt64 = "table: an index entry whose implicit key is not an int64";

}  // namespace

Status TableLayout::split_row(BytesView key, BytesView value, Elements* row,
                              BytesView* key_elements) const {
  if (key.size() < row_prefix_.size() || key.compare(0, row_prefix_.size(), row_prefix_) != 0) {
    return Status::Corruption(kKeyOutsideSubspace);
  }
  row->resize(schema_.columns.size());
  *key_elements = key.substr(row_prefix_.size());
  const bool implicit = schema_.key.empty();
  if (!split_elements(*key_elements, schema_.key_size(), [&](size_t i, BytesView e) {
        if (!implicit) (*row)[static_cast<size_t>(schema_.key[i])] = e;
      })) {
    return Status::Corruption(kWrongKeyCount);
  }
  if (implicit && !is_implicit_key(*key_elements)) {
    return Status::Corruption(kImplicitKeyNotInt64);
  }
  if (!split_elements(value, value_columns_.size(), [&](size_t i, BytesView e) {
        (*row)[static_cast<size_t>(value_columns_[i])] = e;
      })) {
    return Status::Corruption(kWrongValueCount);
  }
  return Status::OK();
}

namespace {

// Frames and decodes the first `want` elements of `in` straight into the
// columns `to[0..want)` name; their size, or npos when `in` does not begin
// with that many.
inline size_t frame_leading_columns(BytesView in, const int* to, size_t want, BytesView* cols,
                                    TableLayout::ColumnScalar* out) {
  const char* const data = in.data();
  const size_t size = in.size();
  size_t pos = 0;
  for (size_t i = 0; i < want; ++i) {
    const BytesView rest(data + pos, size - pos);
    TableLayout::ColumnScalar& dst = out[to[i]];
    size_t n = frame_element(rest, &dst.element, &dst.as);
    if (n == 0 && !element_size(rest, &n).ok()) return BytesView::npos;
    cols[to[i]] = BytesView(data + pos, n);
    pos += n;
  }
  return pos;
}

// The same, false unless the `want` elements are exactly all of `in`.
bool frame_columns(BytesView in, const int* to, size_t want, BytesView* cols,
                   TableLayout::ColumnScalar* out) {
  return frame_leading_columns(in, to, want, cols, out) == in.size();
}

}  // namespace

// Inline: read_row runs it once per row of every scan.
[[gnu::always_inline]] inline Status TableLayout::read_key_elements(BytesView key_elements, Elements* row,
                                                                    Scalars* scalars, const char* wrong_count,
                                                                    const char* not_int64) const {
  if (schema_.key.empty()) {
    // The implicit key is no column: only check it, as split_row does.
    if (!split_elements(key_elements, 1, [](size_t, BytesView) {})) return Status::Corruption(wrong_count);
    if (!is_implicit_key(key_elements)) return Status::Corruption(not_int64);
    return Status::OK();
  }
  if (!frame_columns(key_elements, schema_.key.data(), schema_.key.size(), row->data(), scalars->data())) {
    return Status::Corruption(wrong_count);
  }
  return Status::OK();
}

Status TableLayout::read_row(BytesView key, BytesView value, Elements* row, Scalars* scalars,
                             BytesView* key_elements) const {
  const size_t prefix = row_prefix_.size();
  if (!has_prefix(key, row_prefix_)) {
    return Status::Corruption(kKeyOutsideSubspace);
  }
  const size_t ncols = schema_.columns.size();
  if (row->size() != ncols) row->resize(ncols);
  if (scalars->size() != ncols) scalars->resize(ncols);
  *key_elements = BytesView(key.data() + prefix, key.size() - prefix);
  TUPLEKV_RETURN_IF_ERROR(read_key_elements(*key_elements, row, scalars, kWrongKeyCount, kImplicitKeyNotInt64));
  // Values, then key_copies (value_columns_ holds both, in that order).
  if (!frame_columns(value, value_columns_.data(), value_columns_.size(), row->data(), scalars->data())) {
    return Status::Corruption(kWrongValueCount);
  }
  return Status::OK();
}

Status TableLayout::start_row(BytesView key, BytesView value, PartialRow* p,
                              BytesView* key_elements) const {
  if (!has_prefix(key, row_prefix_)) {
    return Status::Corruption(kKeyOutsideSubspace);
  }
  *key_elements = BytesView(key.data() + row_prefix_.size(), key.size() - row_prefix_.size());
  *p = PartialRow{};
  p->parts[0] = *key_elements;
  p->parts[1] = value;
  return Status::OK();
}

namespace {

// read_row()'s message for a part that does not hold its elements.
Status wrong_element_count(size_t part) {
  return Status::Corruption(part == 0 ? kWrongKeyCount : kWrongValueCount);
}

}  // namespace

Status TableLayout::read_column(int c, PartialRow* p, Elements* row, Scalars* scalars) const {
  const ColumnSource& src = sources_[static_cast<size_t>(c)];
  return frame_through(src.part, src.place, p, row, scalars);
}

Status TableLayout::read_key(PartialRow* p, Elements* row, Scalars* scalars) const {
  TUPLEKV_RETURN_IF_ERROR(frame_through(0, schema_.key_size() - 1, p, row, scalars));
  if (schema_.key.empty() && !is_implicit_key(p->parts[0])) {
    return Status::Corruption(kImplicitKeyNotInt64);
  }
  return Status::OK();
}

Status TableLayout::frame_through(size_t part, size_t place, PartialRow* p, Elements* row,
                                  Scalars* scalars) const {
  size_t framed = p->framed[part];
  if (framed > place) return Status::OK();
  const int* const to = part == 0 ? key_targets_.data() : value_columns_.data();
  const size_t count = part == 0 ? key_targets_.size() : value_columns_.size();
  const char* const data = p->parts[part].data();
  const size_t size = p->parts[part].size();
  size_t at = p->at[part];
  if (part == 1 || every_key_element_read_) {
    // Every element goes to a column: read_row's own loop.
    const size_t n = frame_leading_columns(BytesView(data + at, size - at), to + framed, place + 1 - framed,
                                           row->data(), scalars->data());
    if (n == BytesView::npos) return wrong_element_count(part);
    at += n;
    framed = place + 1;
  } else {
    ColumnScalar unused;  // an element no column is read from
    for (; framed <= place; ++framed) {
      const BytesView rest(data + at, size - at);
      ColumnScalar& dst = to[framed] >= 0 ? (*scalars)[static_cast<size_t>(to[framed])] : unused;
      size_t n = frame_element(rest, &dst.element, &dst.as);
      if (n == 0 && !element_size(rest, &n).ok()) return wrong_element_count(part);
      if (to[framed] >= 0) (*row)[static_cast<size_t>(to[framed])] = BytesView(data + at, n);
      at += n;
    }
  }
  p->framed[part] = framed;
  p->at[part] = at;
  if (framed == count && at != size) return wrong_element_count(part);
  return Status::OK();
}

Status TableLayout::read_index_entry(size_t i, BytesView entry, Elements* row, Scalars* scalars,
                                     BytesView* key_elements) const {
  const Bytes& p = index_prefixes_[i];
  if (!has_prefix(entry, p)) {
    return Status::Corruption("table: an index entry outside its index");
  }
  const size_t ncols = schema_.columns.size();
  if (row->size() != ncols) row->resize(ncols);
  if (scalars->size() != ncols) scalars->resize(ncols);
  const BytesView body(entry.data() + p.size(), entry.size() - p.size());
  const std::vector<int>& indexed = schema_.indexes[i].columns;
  const size_t n = frame_leading_columns(body, indexed.data(), indexed.size(), row->data(), scalars->data());
  if (n == BytesView::npos) return Status::Corruption("table: a short index entry");
  *key_elements = BytesView(body.data() + n, body.size() - n);
  return read_key_elements(*key_elements, row, scalars, kEntryWrongKeyCount, kEntryImplicitKeyNotInt64);
}

Status TableLayout::split_index(size_t i, BytesView entry, Elements* indexed,
                                BytesView* key_elements, Elements* key_parts) const {
  const Bytes& p = index_prefixes_[i];
  if (!has_prefix(entry, p)) {
    return Status::Corruption("table: an index entry outside its index");
  }
  const BytesView body = entry.substr(p.size());
  const size_t want = schema_.indexes[i].columns.size();
  indexed->resize(want);
  const size_t n =
      split_leading_elements(body, want, [&](size_t k, BytesView e) { (*indexed)[k] = e; });
  if (n == BytesView::npos) return Status::Corruption("table: a short index entry");
  *key_elements = body.substr(n);
  if (key_parts != nullptr) key_parts->resize(schema_.key_size());
  if (!split_elements(*key_elements, schema_.key_size(), [&](size_t k, BytesView e) {
        if (key_parts != nullptr) (*key_parts)[k] = e;
      })) {
    return Status::Corruption(kEntryWrongKeyCount);
  }
  if (schema_.key.empty() && !is_implicit_key(*key_elements)) {
    return Status::Corruption(kEntryImplicitKeyNotInt64);
  }
  return Status::OK();
}

// ---------------------------------------------------------------------------
// Rows

Status TableRows::put(const TableLayout::Elements& row, BytesView key_elements,
                      const TableLayout::Elements* old, BytesView old_key_elements) {
  const TableLayout& l = *layout_;
  const bool moved = old != nullptr && key_elements != old_key_elements;
  if (moved) {
    key_.assign(l.row_prefix());
    key_.append(old_key_elements);
    TUPLEKV_RETURN_IF_ERROR(store_->clear(key_));
  }
  for (size_t i = 0; i < l.schema().indexes.size(); ++i) {
    l.index_key(i, row, key_elements, &new_entry_);
    if (old != nullptr) {
      l.index_key(i, *old, old_key_elements, &old_entry_);
      if (old_entry_ == new_entry_) continue;
      TUPLEKV_RETURN_IF_ERROR(store_->clear(old_entry_));
    }
    TUPLEKV_RETURN_IF_ERROR(store_->set(new_entry_, BytesView()));
  }
  key_.assign(l.row_prefix());
  key_.append(key_elements);
  l.row_value(row, &new_entry_);
  return store_->set(key_, new_entry_);
}

Status TableRows::erase(const TableLayout::Elements& row, BytesView key_elements) {
  const TableLayout& l = *layout_;
  for (size_t i = 0; i < l.schema().indexes.size(); ++i) {
    l.index_key(i, row, key_elements, &old_entry_);
    TUPLEKV_RETURN_IF_ERROR(store_->clear(old_entry_));
  }
  key_.assign(l.row_prefix());
  key_.append(key_elements);
  return store_->clear(key_);
}

namespace {

// Every key that starts with `p`, the bare prefix too: what the table's own
// scans read ([p, strinc(p)), not the tuple range [p + 00, p + FF)), so that
// a damaged key a SELECT meets is one the check meets as well. `p` starts
// with a string element's code, so strinc cannot fail.
KeyRange prefix_range(const Bytes& p) { return KeyRange{p, *strinc(p)}; }

// Whether `v` is a value a write stores in column `c`: NULL where the
// column allows it, else a 64-bit integer, a double, a string or bytes as
// its type says. A read passes other elements on (a user type's bytes, a
// nested tuple packed) but no write made them, and some cannot even stand
// inside an index entry (a user type runs to the end of its tuple).
bool column_can_hold(const TableColumn& c, const TupleValue& v) {
  switch (v.type()) {
    case ElementType::kNull:
      return !c.not_null;
    case ElementType::kInt:
      return c.type == ColumnType::kInteger || c.type == ColumnType::kAny;
    case ElementType::kDouble:
      return c.type == ColumnType::kReal || c.type == ColumnType::kAny;
    case ElementType::kString:
      return c.type == ColumnType::kText || c.type == ColumnType::kAny;
    case ElementType::kBytes:
      return c.type == ColumnType::kBlob || c.type == ColumnType::kAny;
    default:
      return false;
  }
}

// Whether every column of a split row decodes as a SELECT returning it
// decodes it (the framing split_row checks, and the contents: a string's
// UTF-8, a nested tuple's elements) and holds what a write would store.
Status decode_columns(const TableLayout& l, const TableLayout::Elements& row) {
  TupleValue v;
  for (size_t i = 0; i < row.size(); ++i) {
    const TableColumn& c = l.schema().columns[i];
    BytesView in = row[i];
    const Status s = decode_element(&in, &v);
    if (!s.ok()) return s.with_context("table: column " + c.name);
    if (!column_can_hold(c, v)) {
      return Status::Corruption("table: column " + c.name + " (" + std::string(column_type_name(c.type)) +
                                (c.not_null ? " NOT NULL" : "") + ") holds a " +
                                std::string(element_type_name(v.type())) + " element");
    }
  }
  return Status::OK();
}

// The values of a unique index's entry, joined, into *values; false where
// one is NULL, as NULLs never repeat. Entries sort by their values, so
// two rows with the same values have neighbouring entries.
bool unique_values(const TableLayout::Elements& indexed, Bytes* values) {
  values->clear();
  for (const BytesView e : indexed) {
    if (e.size() == 1 && e[0] == '\x00') return false;
    values->append(e);
  }
  return true;
}

}  // namespace

Status TableRows::check(std::string_view table, std::string* problem) {
  problem->clear();
  const TableLayout& l = *layout_;
  const size_t nidx = l.schema().indexes.size();
  std::vector<uint64_t> expected(nidx, 0);
  TableLayout::Elements row;
  BytesView key_elements;
  Bytes value;
  {
    TUPLEKV_ASSIGN_OR_RETURN(std::unique_ptr<Cursor> c,
                             store_->scan(prefix_range(l.row_prefix()), ScanOptions()));
    for (; c->valid(); c->next()) {
      Status s = l.split_row(c->key(), c->value(), &row, &key_elements);
      if (s.ok()) s = decode_columns(l, row);
      if (!s.ok()) {
        *problem = std::string(table) + ": row " + repr_packed(c->key()) + ": " + s.message();
        return Status::OK();
      }
      if (!l.schema().key_copies.empty()) {
        // The key holds collation keys of values the row holds as well.
        l.row_key(row, BytesView(), &key_);
        if (key_ != c->key()) {
          *problem = std::string(table) + ": row " + repr_packed(c->key()) +
                     " is not keyed by the values it holds";
          return Status::OK();
        }
      }
      for (size_t i = 0; i < nidx; ++i) {
        l.index_key(i, row, key_elements, &new_entry_);
        bool found = false;
        TUPLEKV_RETURN_IF_ERROR(store_->get(new_entry_, &value, &found));
        if (!found) {
          *problem = std::string(table) + ": index " + l.schema().indexes[i].name +
                     " has no entry for row " + repr_packed(c->key());
          return Status::OK();
        }
        ++expected[i];
      }
    }
    TUPLEKV_RETURN_IF_ERROR(c->status());
  }
  TableLayout::Elements indexed;
  for (size_t i = 0; i < nidx; ++i) {
    const std::string& name = l.schema().indexes[i].name;
    uint64_t seen = 0;
    TUPLEKV_ASSIGN_OR_RETURN(std::unique_ptr<Cursor> c,
                             store_->scan(prefix_range(l.index_prefix(i)), ScanOptions()));
    const bool unique = l.schema().indexes[i].unique;
    Bytes previous_values;  // of the last entry without a NULL (unique indexes)
    for (; c->valid(); c->next()) {
      ++seen;
      Status s = l.split_index(i, c->key(), &indexed, &key_elements);
      if (!s.ok()) {
        *problem = std::string(table) + ": index " + name + " entry " + repr_packed(c->key()) +
                   ": " + s.message();
        return Status::OK();
      }
      if (unique) {
        Bytes values;
        const bool comparable = unique_values(indexed, &values);
        if (comparable && values == previous_values) {
          *problem = std::string(table) + ": unique index " + name + " holds the same values twice, at " +
                     repr_packed(c->key());
          return Status::OK();
        }
        previous_values = comparable ? std::move(values) : Bytes();
      }
      key_.assign(l.row_prefix());
      key_.append(key_elements);
      bool found = false;
      TUPLEKV_RETURN_IF_ERROR(store_->get(key_, &value, &found));
      if (!found) {
        *problem = std::string(table) + ": index " + name + " entry " + repr_packed(c->key()) +
                   " has no row";
        return Status::OK();
      }
      s = l.split_row(key_, value, &row, &key_elements);
      if (s.ok()) {
        l.index_key(i, row, key_elements, &new_entry_);
        if (new_entry_ != c->key()) {
          *problem = std::string(table) + ": index " + name + " entry " + repr_packed(c->key()) +
                     " does not match its row " + repr_packed(key_);
          return Status::OK();
        }
      }
    }
    TUPLEKV_RETURN_IF_ERROR(c->status());
    if (seen != expected[i]) {
      *problem = std::string(table) + ": index " + name + " has " + std::to_string(seen) +
                 " entries for " + std::to_string(expected[i]) + " rows";
      return Status::OK();
    }
  }
  return Status::OK();
}

Status TableRows::rebuild(std::string_view table, uint64_t* changed) {
  *changed = 0;
  const TableLayout& l = *layout_;
  const size_t nidx = l.schema().indexes.size();
  TableLayout::Elements row;
  TableLayout::Elements indexed;
  BytesView key_elements;
  Bytes value;
  // Entries no row accounts for go first...
  for (size_t i = 0; i < nidx; ++i) {
    std::vector<Bytes> stale;
    TUPLEKV_ASSIGN_OR_RETURN(std::unique_ptr<Cursor> c,
                             store_->scan(prefix_range(l.index_prefix(i)), ScanOptions()));
    for (; c->valid(); c->next()) {
      bool ok = l.split_index(i, c->key(), &indexed, &key_elements).ok();
      if (ok) {
        key_.assign(l.row_prefix());
        key_.append(key_elements);
        bool found = false;
        TUPLEKV_RETURN_IF_ERROR(store_->get(key_, &value, &found));
        ok = found && l.split_row(key_, value, &row, &key_elements).ok();
        if (ok) {
          l.index_key(i, row, key_elements, &new_entry_);
          ok = new_entry_ == c->key();
        }
      }
      if (!ok) stale.emplace_back(c->key());
    }
    TUPLEKV_RETURN_IF_ERROR(c->status());
    for (const Bytes& k : stale) TUPLEKV_RETURN_IF_ERROR(store_->clear(k));
    *changed += stale.size();
  }
  // ...then every row gets the entries it lacks.
  TUPLEKV_ASSIGN_OR_RETURN(std::unique_ptr<Cursor> c,
                           store_->scan(prefix_range(l.row_prefix()), ScanOptions()));
  std::vector<Bytes> missing;
  for (; c->valid(); c->next()) {
    TUPLEKV_RETURN_IF_ERROR(l.split_row(c->key(), c->value(), &row, &key_elements));
    for (size_t i = 0; i < nidx; ++i) {
      l.index_key(i, row, key_elements, &new_entry_);
      bool found = false;
      TUPLEKV_RETURN_IF_ERROR(store_->get(new_entry_, &value, &found));
      if (!found) missing.push_back(new_entry_);
    }
  }
  TUPLEKV_RETURN_IF_ERROR(c->status());
  for (const Bytes& k : missing) TUPLEKV_RETURN_IF_ERROR(store_->set(k, BytesView()));
  *changed += missing.size();
  // Rows that repeat a unique index's values (damage they carry
  // themselves) now have neighbouring entries there.
  for (size_t i = 0; i < nidx; ++i) {
    const TableIndex& index = l.schema().indexes[i];
    if (!index.unique) continue;
    TUPLEKV_ASSIGN_OR_RETURN(std::unique_ptr<Cursor> e,
                             store_->scan(prefix_range(l.index_prefix(i)), ScanOptions()));
    Bytes previous_values;
    for (; e->valid(); e->next()) {
      TUPLEKV_RETURN_IF_ERROR(l.split_index(i, e->key(), &indexed, &key_elements));
      Bytes values;
      const bool comparable = unique_values(indexed, &values);
      if (comparable && values == previous_values) {
        return Status::Constraint(ConstraintKind::kUnique, unique_failed_message(table, l.schema(), i));
      }
      previous_values = comparable ? std::move(values) : Bytes();
    }
    TUPLEKV_RETURN_IF_ERROR(e->status());
  }
  return Status::OK();
}

}  // namespace tuplekv::model
