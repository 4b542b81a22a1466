// The scan planner (see plan.h for the rules).
//
// Intervals are kept relative to the start of the position they constrain
// and become absolute key ranges only at the end, by prepending each prefix
// built from the equality positions before it. "Just after value v" is v +
// 00 for raw bytes (no byte string lies between v and v 00) and v + FF for
// a packed element (no element starts with FF, so every key whose element
// equals v sorts below it).
#include "core/plan.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <iterator>
#include <limits>

#include "core/tuple.h"

namespace tuplekv {

namespace {

constexpr double kInListGuess = 10;     // values in an IN list whose size is unknown
constexpr double kOneSidedFactor = 0.25;
constexpr double kTwoSidedFactor = 1.0 / 64;
// Rows one value of a non-unique prefix of n key positions matches,
// n = 1, 2, ...: SQLite's own guess for an index it has no statistics of
// (sqlite3DefaultRowEst: 10, 9, 8, 7, 6, then 5). Guessing as SQLite does
// keeps an equality or IN prefix well below any range, and picks the key
// or index a native table would read.
constexpr double kRowsPerPrefixValue[] = {10, 9, 8, 7, 6, 5};
constexpr int kMaxOmitArgv = 16;        // SQLite honours omit only for argv 1..16
constexpr size_t kMaxRanges = size_t{1} << 20;

bool is_range_op(PlanOp op) {
  return op == PlanOp::kGt || op == PlanOp::kGe || op == PlanOp::kLt || op == PlanOp::kLe;
}

// One value, given as an argument: = and IS (whose NULL is the null element).
bool is_value_eq_op(PlanOp op) { return op == PlanOp::kEq || op == PlanOp::kIs; }

bool is_exact_op(PlanOp op) {
  return is_eq_op(op) || is_range_op(op) || op == PlanOp::kPrefix || op == PlanOp::kPrefixIn;
}

bool is_key_op(PlanOp op) {
  return is_exact_op(op) || op == PlanOp::kLike || op == PlanOp::kGlob;
}


// The ASCII literal prefix of a pattern: up to the first wildcard, non-ASCII
// byte or NUL.
std::string_view literal_prefix(std::string_view pattern, bool like) {
  size_t n = 0;
  for (; n < pattern.size(); ++n) {
    const auto c = static_cast<unsigned char>(pattern[n]);
    if (c == 0 || c >= 0x80) break;
    if (like ? (c == '%' || c == '_') : (c == '*' || c == '?' || c == '[')) break;
  }
  return pattern.substr(0, n);
}

bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
char to_upper(char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 32) : c; }
char to_lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }

// A pattern known at plan time whose literal prefix is empty narrows
// nothing; using it would only cost an argument.
bool pattern_worth_using(const PlanConstraint& c) {
  if (!c.known_text) return true;
  return !literal_prefix(*c.known_text, c.op == PlanOp::kLike).empty();
}

bool plain_identifier(std::string_view s) {
  // The words of the grammar are quoted when they are names, so a column
  // called `reverse` reads as a term.
  if (s.empty() || s == "reverse" || s == "skip" || s == "limit" || s == "offset" || s == "AND" ||
      s == "IN" || s == "LIKE" || s == "GLOB") {
    return false;
  }
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    const bool ok = c == '_' || is_letter(c) || (i > 0 && c >= '0' && c <= '9');
    if (!ok) return false;
  }
  return true;
}

void append_name(std::string_view name, std::string* out) {
  if (plain_identifier(name)) {
    out->append(name);
    return;
  }
  out->push_back('"');
  for (char c : name) {
    if (c == '"') out->push_back('"');
    out->push_back(c);
  }
  out->push_back('"');
}

const char* op_text(PlanOp op) {
  switch (op) {
    case PlanOp::kEq:
    case PlanOp::kPrefix:
      return "=";
    case PlanOp::kIn:
    case PlanOp::kPrefixIn:
      return " IN ";
    case PlanOp::kGt:
      return ">";
    case PlanOp::kGe:
      return ">=";
    case PlanOp::kLt:
      return "<";
    case PlanOp::kLe:
      return "<=";
    case PlanOp::kLike:
      return " LIKE ";
    case PlanOp::kGlob:
      return " GLOB ";
    case PlanOp::kIsNull:  // read back as kIs, which its NULL argument serves
    case PlanOp::kIs:
      return " IS ";
    default:
      return "?";
  }
}

}  // namespace

// ---------------------------------------------------------------------------
// Planning

namespace {

// The plan that seeks straight to its ranges (no skip-scan).
Plan plan_direct(const PlanRequest& req) {
  Plan plan;
  const int n = static_cast<int>(req.columns.size());
  const double table_rows = std::max(req.table_rows, 1.0);

  auto on_key = [&](const PlanConstraint& c) { return c.column >= 0 && c.column < n; };

  // IS NULL on a position that is never NULL: nothing can match. The plan
  // still takes the term: only a scan that takes it waits for the tables
  // it depends on (from a LEFT JOIN's ON, one to the right of this one),
  // and one that does not could run first and lose its rows.
  for (size_t i = 0; i < req.constraints.size(); ++i) {
    const PlanConstraint& c = req.constraints[i];
    if (c.usable && c.op == PlanOp::kIsNull && on_key(c) && !req.columns[c.column].nullable) {
      plan.terms.push_back(PlanTerm{PlanOp::kIsNull, c.column, static_cast<int>(i), true});
      plan.empty = true;
      plan.unique = true;
      plan.order_consumed = true;
      plan.cost = 1;
      plan.rows = plan.native_rows = 1;
      return plan;
    }
  }

  auto usable_on = [&](const PlanConstraint& c, int pos) {
    if (!c.usable || c.column != pos || !is_key_op(c.op)) return false;
    if (c.op == PlanOp::kPrefix || c.op == PlanOp::kPrefixIn) {
      return !req.columns[pos].prefix_name.empty();
    }
    if (!req.columns[pos].ordered && !is_eq_op(c.op)) return false;
    if (c.op == PlanOp::kLike || c.op == PlanOp::kGlob) {
      return req.columns[pos].patterns && pattern_worth_using(c);
    }
    return true;
  };

  // The equality run, then at most one range position.
  int eq_run = 0;
  bool has_range = false;
  for (int pos = 0; pos < n; ++pos) {
    bool eq = false;
    bool range = false;
    for (const PlanConstraint& c : req.constraints) {
      if (!usable_on(c, pos)) continue;
      if (is_eq_op(c.op)) eq = true; else range = true;
    }
    if (eq) {
      ++eq_run;
      continue;
    }
    has_range = range;
    break;
  }
  const int positions = eq_run + (has_range ? 1 : 0);

  // Terms, grouped by position so the description reads in key order.
  bool any_inexact = false;
  for (int pos = 0; pos < positions; ++pos) {
    for (size_t i = 0; i < req.constraints.size(); ++i) {
      const PlanConstraint& c = req.constraints[i];
      if (!usable_on(c, pos)) continue;
      PlanTerm t;
      t.op = c.op;
      t.column = pos;
      t.constraint = static_cast<int>(i);
      // IS NULL is exact on any column: NULL is one value and one element.
      const bool exact = req.columns[pos].exact || c.op == PlanOp::kIsNull;
      t.omit = exact && is_exact_op(c.op);
      if (!exact) any_inexact = true;
      plan.terms.push_back(t);
    }
  }

  auto has_term = [&](int pos, PlanOp op) {
    for (const PlanTerm& t : plan.terms) {
      if (t.column == pos && t.op == op) return true;
    }
    return false;
  };
  // The position holds one value the scan and SQLite agree on.
  auto fixed = [&](int pos) {
    return has_term(pos, PlanOp::kIsNull) ||
           (req.columns[pos].exact && (has_term(pos, PlanOp::kEq) || has_term(pos, PlanOp::kIs)));
  };

  plan.point = req.unique && n > 0 && eq_run == n;
  plan.unique = plan.point;
  for (int pos = 0; plan.unique && pos < n; ++pos) {
    if (!fixed(pos)) plan.unique = false;
  }

  // ORDER BY.
  auto constant = [&](int pos) { return pos < eq_run && fixed(pos); };
  bool ordered = true;
  bool dir_set = false;
  bool desc = false;
  int expect = 0;
  auto complete = [&] {
    while (expect < n && constant(expect)) ++expect;
    return expect == n && req.unique;
  };
  for (const PlanOrder& o : req.order_by) {
    if (o.column < 0 || o.column >= n) {
      if (complete()) continue;  // after a whole unique key nothing ties
      ordered = false;
      break;
    }
    if (constant(o.column)) continue;
    if (!req.columns[o.column].exact) {
      ordered = false;
      break;
    }
    while (expect < n && constant(expect)) ++expect;
    if (o.column != expect) {
      if (o.column < expect && complete()) continue;  // repeated key term
      ordered = false;
      break;
    }
    if (!dir_set) {
      dir_set = true;
      desc = o.desc;
    } else if (desc != o.desc) {
      ordered = false;
      break;
    }
    ++expect;
  }
  // Inexact positions in the equality run emit their values in encoding
  // order, not SQLite's, so a later position is not sorted overall.
  for (int pos = 0; ordered && pos < eq_run; ++pos) {
    if (!fixed(pos) && !req.columns[pos].exact && !req.order_by.empty()) ordered = false;
  }
  plan.order_consumed = ordered && !req.order_by.empty();
  plan.reverse = plan.order_consumed && desc;

  // LIMIT / OFFSET: only when SQLite has nothing left to filter or sort.
  bool all_consumed = ordered || req.order_by.empty();
  for (size_t i = 0; all_consumed && i < req.constraints.size(); ++i) {
    if (is_limit_op(req.constraints[i].op)) continue;
    bool used = false;
    for (size_t k = 0; k < plan.terms.size(); ++k) {
      if (plan.terms[k].constraint == static_cast<int>(i)) {
        used = plan.terms[k].omit && static_cast<int>(k) < kMaxOmitArgv &&
               !req.constraints[i].maybe_loosened;
        break;
      }
    }
    if (!used) all_consumed = false;
  }
  std::optional<int64_t> known_limit;
  std::optional<int64_t> known_offset;
  if (all_consumed) {
    for (PlanOp op : {PlanOp::kLimit, PlanOp::kOffset}) {
      for (size_t i = 0; i < req.constraints.size(); ++i) {
        const PlanConstraint& c = req.constraints[i];
        if (c.op != op || !c.usable) continue;
        PlanTerm t;
        t.op = op;
        t.constraint = static_cast<int>(i);
        t.omit = true;  // OFFSET: the scan skips the rows itself
        plan.terms.push_back(t);
        (op == PlanOp::kLimit ? known_limit : known_offset) = c.known_int;
        break;
      }
    }
  }

  // Costs.
  double seeks = 1;
  double rows = table_rows;
  double null_factor = 1;
  for (int pos = 0; pos < eq_run; ++pos) {
    const bool one_value =
        has_term(pos, PlanOp::kEq) || has_term(pos, PlanOp::kIs) || has_term(pos, PlanOp::kIsNull);
    seeks *= one_value ? 1 : kInListGuess;
    // SQLite guesses that `x IS NULL` matches twice what `x = ?` does.
    if (has_term(pos, PlanOp::kIsNull) && !has_term(pos, PlanOp::kEq) && !has_term(pos, PlanOp::kIs) &&
        !has_term(pos, PlanOp::kIn)) {
      null_factor *= 2;
    }
  }
  if (eq_run > 0) {
    constexpr int kKnown = static_cast<int>(std::size(kRowsPerPrefixValue));
    const bool unique_run = req.unique_prefix > 0 && eq_run >= req.unique_prefix;
    rows = seeks * (unique_run ? 1 : kRowsPerPrefixValue[std::min(eq_run, kKnown) - 1]) * null_factor;
  }
  if (plan.point) {
    rows = seeks;
  } else if (has_range) {
    double ranges = 1;  // one per value of an IN on a hidden prefix column
    bool lower = false;
    bool upper = false;
    for (const PlanTerm& t : plan.terms) {
      if (t.column != positions - 1) continue;
      if (t.op == PlanOp::kGt || t.op == PlanOp::kGe) lower = true;
      if (t.op == PlanOp::kLt || t.op == PlanOp::kLe) upper = true;
      if (t.op == PlanOp::kPrefix || t.op == PlanOp::kLike || t.op == PlanOp::kGlob) {
        lower = upper = true;
      }
      if (t.op == PlanOp::kPrefixIn) {
        lower = upper = true;
        ranges = kInListGuess;
      }
    }
    rows *= ((lower && upper) ? kTwoSidedFactor : kOneSidedFactor) * ranges;
    seeks *= ranges;
  }
  const double native_rows = std::clamp(rows, 1.0, table_rows);
  if (any_inexact) rows *= 2;
  rows = std::clamp(rows, 1.0, table_rows);
  double read = rows;
  double out = rows;
  if (known_limit && *known_limit >= 0) {
    const double skip = known_offset ? static_cast<double>(std::max<int64_t>(*known_offset, 0)) : 0;
    read = std::min(rows, static_cast<double>(*known_limit) + skip);
    out = std::min(rows, static_cast<double>(*known_limit));
  }
  plan.rows = std::max(out, 1.0);
  plan.native_rows = std::min(native_rows, plan.rows);
  plan.seeks = seeks;
  plan.cost = seeks * kSeekCost + read;
  return plan;
}

// The skip-scan over position 0, if one applies: the plan of positions
// 1.. per distinct first element. nullopt when position 1 has nothing to
// use.
std::optional<Plan> plan_skip(const PlanRequest& req) {
  const double groups = std::max(req.leading_distinct, 1.0);
  PlanRequest sub;
  sub.columns.assign(req.columns.begin() + 1, req.columns.end());
  sub.unique = req.unique;
  sub.table_rows = std::max(req.table_rows / groups, 1.0);
  for (const PlanConstraint& c : req.constraints) {
    PlanConstraint shifted = c;
    if (c.column == 0) {
      shifted.op = PlanOp::kOther;  // (no usable one is a key operator here)
      shifted.column = -1;
    } else if (c.column > 0) {
      shifted.column = c.column - 1;
    }
    sub.constraints.push_back(std::move(shifted));
  }
  // The output is in key order: ORDER BY can only be consumed when it
  // starts with position 0 and every key term has one direction.
  bool orderable = req.order_by.empty() ||
                   (req.order_by[0].column == 0 && req.columns[0].exact);
  const bool desc = !req.order_by.empty() && req.order_by[0].desc;
  for (size_t i = 1; orderable && i < req.order_by.size(); ++i) {
    const PlanOrder& o = req.order_by[i];
    if (o.column >= 0 && o.column < static_cast<int>(req.columns.size()) && o.desc != desc) {
      orderable = false;
    }
  }
  if (orderable) {
    for (size_t i = 1; i < req.order_by.size(); ++i) {
      PlanOrder o = req.order_by[i];
      o.column = o.column > 0 ? o.column - 1 : -1;  // position 0 again: redundant or not
      sub.order_by.push_back(o);
    }
  } else {
    sub.order_by.push_back(PlanOrder{-1, false});
  }
  Plan plan = plan_direct(sub);
  bool key_terms = false;
  for (PlanTerm& t : plan.terms) {
    if (is_limit_op(t.op)) continue;
    key_terms = true;
    t.column += 1;
  }
  if (!key_terms || plan.empty) return std::nullopt;
  plan.skip = true;
  plan.unique = false;
  const bool consumed = orderable && (sub.order_by.empty() || plan.order_consumed);
  if (!req.order_by.empty() && !consumed) {
    std::vector<PlanTerm> kept;
    for (const PlanTerm& t : plan.terms) {
      if (!is_limit_op(t.op)) kept.push_back(t);
    }
    plan.terms.swap(kept);
  }
  plan.order_consumed = consumed && !req.order_by.empty();
  plan.reverse = plan.order_consumed && desc;
  plan.rows = std::clamp(plan.rows * groups, 1.0, std::max(req.table_rows, 1.0));
  plan.native_rows = std::clamp(plan.native_rows * groups, 1.0, plan.rows);
  plan.cost = groups * (kSeekCost + plan.cost);
  return plan;
}

}  // namespace

Plan plan_scan(const PlanRequest& req) {
  Plan plan = plan_direct(req);
  if (plan.empty || req.leading_distinct <= 0 || req.columns.size() < 2) return plan;
  for (const PlanTerm& t : plan.terms) {
    if (t.column == 0) return plan;  // position 0 is constrained: seek to it
  }
  std::optional<Plan> skip = plan_skip(req);
  if (skip && skip->cost < plan.cost) return *skip;
  return plan;
}

std::optional<Plan> plan_filter(const PlanRequest& req) {
  const int n = static_cast<int>(req.columns.size());
  if (n < 2) return std::nullopt;
  for (const PlanConstraint& c : req.constraints) {
    if (c.usable && c.column == 0 && (is_key_op(c.op) || c.op == PlanOp::kIsNull)) return std::nullopt;
  }
  PlanRequest one_pass = req;
  one_pass.leading_distinct = 1;  // the ranges apply to the whole key space at once
  std::optional<Plan> plan = plan_skip(one_pass);
  if (!plan) return std::nullopt;
  plan->filter = true;
  plan->point = false;  // a range per key: the pass checks keys, it looks none up
  plan->cost = std::max(req.table_rows, 1.0) + kSeekCost;
  plan->seeks = 1;
  return plan;
}

// ---------------------------------------------------------------------------
// The plan as text

std::string describe(const Plan& plan, const std::vector<PlanColumn>& columns) {
  std::string s;
  bool key_terms = false;
  for (const PlanTerm& t : plan.terms) key_terms |= !is_limit_op(t.op);
  s = plan.empty ? "empty" : plan.filter ? "filter" : plan.point ? "point" : key_terms ? "range" : "full";
  bool first = true;
  std::string flags;
  for (size_t i = 0; i < plan.terms.size(); ++i) {
    const PlanTerm& t = plan.terms[i];
    // (Appending instead of "?" + to_string(): GCC 12 warns falsely on that.)
    std::string arg("?");
    arg += std::to_string(i + 1);
    if (is_limit_op(t.op)) {
      flags += t.op == PlanOp::kLimit ? " limit " : " offset ";
      flags += arg;
      continue;
    }
    s += first ? " " : " AND ";
    first = false;
    const PlanColumn& col = columns.at(static_cast<size_t>(t.column));
    append_name(t.op == PlanOp::kPrefix || t.op == PlanOp::kPrefixIn ? col.prefix_name : col.name, &s);
    s += op_text(t.op);
    s += arg;
  }
  if (plan.skip && !plan.filter) {
    s += " skip ";
    append_name(columns.at(0).name, &s);
  }
  if (plan.reverse) s += " reverse";
  s += flags;
  return s;
}

namespace {

class PlanParser {
 public:
  PlanParser(std::string_view text, const std::vector<PlanColumn>& columns)
      : text_(text), columns_(columns) {}

  Result<Plan> parse() {
    Plan plan;
    const std::string_view kind = word();
    if (kind == "empty") {
      plan.empty = true;
    } else if (kind == "point") {
      plan.point = true;
    } else if (kind == "filter") {
      plan.filter = plan.skip = true;
    } else if (kind != "range" && kind != "full") {
      return fail();
    }
    bool expect_term = true;  // a term may follow the kind or an AND
    while (pos_ < text_.size()) {
      if (!eat(" ")) return fail();
      if (eat("AND ")) {
        if (plan.terms.empty()) return fail();
        expect_term = true;
      }
      if (eat("reverse")) {
        plan.reverse = true;
        expect_term = false;
        continue;
      }
      if (eat("skip ")) {
        std::string name;
        if (!identifier(&name) || columns_.empty() || name != columns_[0].name || plan.skip) {
          return fail();
        }
        plan.skip = true;
        expect_term = false;
        continue;
      }
      PlanTerm t;
      if (eat("limit ")) {
        t.op = PlanOp::kLimit;
      } else if (eat("offset ")) {
        t.op = PlanOp::kOffset;
      } else {
        if (!expect_term) return fail();
        expect_term = false;
        std::string name;
        if (!identifier(&name)) return fail();
        if (eat(">=")) t.op = PlanOp::kGe;
        else if (eat("<=")) t.op = PlanOp::kLe;
        else if (eat("=")) t.op = PlanOp::kEq;
        else if (eat(">")) t.op = PlanOp::kGt;
        else if (eat("<")) t.op = PlanOp::kLt;
        else if (eat(" IN ")) t.op = PlanOp::kIn;
        else if (eat(" LIKE ")) t.op = PlanOp::kLike;
        else if (eat(" GLOB ")) t.op = PlanOp::kGlob;
        else if (eat(" IS ")) t.op = PlanOp::kIs;
        else return fail();
        t.column = column_of(name, &t.op);
        if (t.column < 0) return fail();
      }
      if (!eat("?")) return fail();
      const int64_t argn = number();
      if (argn != static_cast<int64_t>(plan.terms.size()) + 1) return fail();
      plan.terms.push_back(t);
    }
    // A skip-scan needs a term after the position it skips.
    if (plan.skip && (plan.terms.empty() || is_limit_op(plan.terms[0].op))) return fail();
    // A key term after a limit/offset term would not be in argv order.
    bool seen_limit = false;
    for (const PlanTerm& t : plan.terms) {
      if (is_limit_op(t.op)) seen_limit = true;
      else if (seen_limit) return fail();
    }
    return plan;
  }

 private:
  Status fail() const {
    return Status::Internal("tuplekv internal error: malformed plan string '" +
                            std::string(text_) + "'");
  }
  bool eat(std::string_view s) {
    if (text_.substr(pos_, s.size()) != s) return false;
    pos_ += s.size();
    return true;
  }
  std::string_view word() {
    const size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] >= 'a' && text_[pos_] <= 'z') ++pos_;
    return text_.substr(start, pos_ - start);
  }
  int64_t number() {
    int64_t v = 0;
    const size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9' && pos_ - start < 9) {
      v = v * 10 + (text_[pos_++] - '0');
    }
    return pos_ == start ? -1 : v;
  }
  bool identifier(std::string* out) {
    if (eat("\"")) {
      while (pos_ < text_.size()) {
        const char c = text_[pos_++];
        if (c == '"') {
          if (!eat("\"")) return true;
        }
        out->push_back(c);
      }
      return false;
    }
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (!(c == '_' || is_letter(c) || (c >= '0' && c <= '9'))) break;
      out->push_back(c);
      ++pos_;
    }
    return !out->empty();
  }
  int column_of(const std::string& name, PlanOp* op) const {
    for (size_t i = 0; i < columns_.size(); ++i) {
      if ((*op == PlanOp::kEq || *op == PlanOp::kIn) && !columns_[i].prefix_name.empty() &&
          columns_[i].prefix_name == name) {
        *op = *op == PlanOp::kEq ? PlanOp::kPrefix : PlanOp::kPrefixIn;
        return static_cast<int>(i);
      }
    }
    for (size_t i = 0; i < columns_.size(); ++i) {
      if (columns_[i].name == name) return static_cast<int>(i);
    }
    return -1;
  }

  std::string_view text_;
  const std::vector<PlanColumn>& columns_;
  size_t pos_ = 0;
};

}  // namespace

Result<Plan> parse_plan(std::string_view text, const std::vector<PlanColumn>& columns) {
  return PlanParser(text, columns).parse();
}

// ---------------------------------------------------------------------------
// Patterns

void pattern_ranges(std::string_view pattern, bool like, uint8_t code,
                    std::vector<std::pair<Bytes, Bytes>>* out) {
  const std::string_view lit = literal_prefix(pattern, like);
  Bytes head;
  if (code != 0) head.push_back(static_cast<char>(code));

  auto add_prefix_range = [&](Bytes lo, BytesView hi_base) {
    Result<Bytes> hi = strinc(hi_base);
    out->emplace_back(std::move(lo), hi.ok() ? std::move(hi).value() : Bytes());
  };

  // Where the letters are; LIKE varies their case.
  std::vector<size_t> letters;
  if (like) {
    for (size_t i = 0; i < lit.size(); ++i) {
      if (is_letter(lit[i])) letters.push_back(i);
    }
  }
  if (letters.empty()) {
    if (lit.empty() && head.empty()) {
      out->emplace_back(Bytes(), Bytes());  // everything
      return;
    }
    Bytes p = head + Bytes(lit);
    add_prefix_range(p, p);
    return;
  }
  // Expand the first m letters into 2^m variants (upper case sorts first, so
  // counting with the leftmost letter as the high bit gives key order); the
  // rest of the prefix is covered by [upper(rest), strinc(lower(rest))).
  size_t m = 0;
  while (m < letters.size() && (size_t{1} << (m + 1)) <= kMaxPatternRanges) ++m;
  const size_t split = letters[m - 1] + 1;  // variants cover lit[0, split)
  const std::string_view rest = lit.substr(split);
  Bytes rest_upper(rest);
  Bytes rest_lower(rest);
  for (char& c : rest_upper) c = to_upper(c);
  for (char& c : rest_lower) c = to_lower(c);
  for (size_t combo = 0; combo < (size_t{1} << m); ++combo) {
    Bytes variant = head + Bytes(lit.substr(0, split));
    for (size_t k = 0; k < m; ++k) {
      const bool lower = (combo >> (m - 1 - k)) & 1;
      char& c = variant[head.size() + letters[k]];
      c = lower ? to_lower(c) : to_upper(c);
    }
    add_prefix_range(variant + rest_upper, variant + rest_lower);
  }
}

// ---------------------------------------------------------------------------
// Ranges

namespace {

// FoundationDB strinc into *out (reusing its buffer). False when `key` is
// empty or all FF: there is no upper bound.
bool strinc_into(BytesView key, Bytes* out) {
  size_t n = key.size();
  while (n > 0 && static_cast<uint8_t>(key[n - 1]) == 0xFF) --n;
  if (n == 0) return false;
  out->assign(key.substr(0, n));
  (*out)[n - 1] = static_cast<char>(static_cast<uint8_t>((*out)[n - 1]) + 1);
  return true;
}

bool bytes_less(const Bytes& x, const Bytes& y) { return compare_bytes(x, y) < 0; }

}  // namespace

// An output iterator appending to a Reuse<Bytes> (for std::set_intersection).
template <typename Points>
struct PointsInserter {
  using iterator_category = std::output_iterator_tag;
  using value_type = void;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = void;
  Points* points;
  PointsInserter& operator=(const Bytes& b) {
    points->add().assign(b);
    return *this;
  }
  PointsInserter& operator*() { return *this; }
  PointsInserter& operator++() { return *this; }
  PointsInserter operator++(int) { return *this; }
};

void RangeBuilder::sort_and_merge(Intervals* v) {
  std::sort(v->begin(), v->end(), [](const Interval& x, const Interval& y) { return compare_bytes(x.lo, y.lo) < 0; });
  size_t kept = 0;
  for (size_t k = 0; k < v->size(); ++k) {
    Interval& iv = (*v)[k];
    Interval* last = kept > 0 ? &(*v)[kept - 1] : nullptr;
    if (last != nullptr && (last->hi_inf || compare_bytes(iv.lo, last->hi) <= 0)) {
      if (iv.hi_inf) {
        last->hi_inf = true;
      } else if (!last->hi_inf && compare_bytes(iv.hi, last->hi) > 0) {
        last->hi.swap(iv.hi);
      }
      continue;
    }
    if (kept != k) std::swap((*v)[kept], iv);
    ++kept;
  }
  v->truncate(kept);
}

void RangeBuilder::intersect(const Intervals& a, const Intervals& b, Intervals* out) {
  out->clear();
  size_t i = 0;
  size_t j = 0;
  auto hi_less = [](const Interval& x, const Interval& y) {  // x.hi < y.hi
    if (x.hi_inf) return false;
    if (y.hi_inf) return true;
    return compare_bytes(x.hi, y.hi) < 0;
  };
  while (i < a.size() && j < b.size()) {
    const Interval& x = a[i];
    const Interval& y = b[j];
    const Bytes& lo = compare_bytes(x.lo, y.lo) >= 0 ? x.lo : y.lo;
    const Interval& upper = hi_less(x, y) ? x : y;
    if (upper.hi_inf || compare_bytes(lo, upper.hi) < 0) {
      Interval& r = out->add();
      r.lo.assign(lo);
      r.hi.assign(upper.hi);
      r.hi_inf = upper.hi_inf;
    }
    if (hi_less(x, y)) {
      ++i;
    } else if (hi_less(y, x)) {
      ++j;
    } else {
      ++i;
      ++j;
    }
  }
}

Status RangeBuilder::position_constraints(const Plan& plan, const std::vector<PlanColumn>& columns,
                                          const FilterArg* args, int pos) {
  const PlanColumn& col = columns[static_cast<size_t>(pos)];
  const char after = col.encoding == KeyEncoding::kRaw ? '\0' : '\xff';
  has_points_ = false;
  points_.clear();
  intervals_.clear();
  {
    Interval& all = intervals_.add();
    all.lo.clear();
    all.hi.clear();
    all.hi_inf = true;
  }

  for (size_t i = 0; i < plan.terms.size(); ++i) {
    const PlanTerm& t = plan.terms[i];
    if (t.column != pos) continue;
    const FilterArg& a = args[i];
    const bool runs = std::any_of(a.values.begin(), a.values.begin() + static_cast<std::ptrdiff_t>(a.count),
                                  [](const FilterValue& v) { return v.kind == FilterValue::Kind::kRun; });
    if (runs && (is_value_eq_op(t.op) || is_range_op(t.op))) {
      // Runs, and for = values among them (each the run of keys under
      // it, in any order). A range's runs come in order and apart.
      term_intervals_.clear();
      for (size_t k = 0; k < a.count; ++k) {
        const FilterValue& v = a.values[k];
        if (!is_value_eq_op(t.op) &&
            (v.kind != FilterValue::Kind::kRun || compare_bytes(v.bytes, v.hi) >= 0 ||
             (k > 0 && compare_bytes(a.values[k - 1].hi, v.bytes) > 0))) {
          return Status::InvalidArgument("plan: term " + std::to_string(i + 1) + " has runs out of order");
        }
        if (v.kind != FilterValue::Kind::kBytes && v.kind != FilterValue::Kind::kRun) continue;
        Interval& iv = term_intervals_.add();
        iv.lo.assign(v.bytes);
        iv.hi_inf = false;
        if (v.kind == FilterValue::Kind::kRun) {
          iv.hi.assign(v.hi);
        } else {
          iv.hi.assign(v.bytes);
          iv.hi.push_back(after);
        }
      }
      if (is_value_eq_op(t.op)) sort_and_merge(&term_intervals_);
      intersect(intervals_, term_intervals_, &tmp_intervals_);
      intervals_.swap(tmp_intervals_);
      continue;
    }
    if (t.op == PlanOp::kPrefixIn) {
      // The union of the values' ranges (nested ones add nothing).
      term_intervals_.clear();
      for (size_t k = 0; k < a.count; ++k) {
        const FilterValue& v = a.values[k];
        if (v.kind != FilterValue::Kind::kBytes) continue;  // NULL matches nothing
        Interval& iv = term_intervals_.add();
        iv.lo.assign(v.bytes);
        iv.hi.clear();
        iv.hi_inf = !strinc_into(v.bytes, &iv.hi);
      }
      sort_and_merge(&term_intervals_);
      intersect(intervals_, term_intervals_, &tmp_intervals_);
      intervals_.swap(tmp_intervals_);
      continue;
    }
    if (is_eq_op(t.op)) {
      Points& mine = has_points_ ? points_tmp_ : points_;
      mine.clear();
      if (t.op == PlanOp::kIsNull) {
        mine.add().assign(kNullElement);
      } else {
        for (size_t k = 0; k < a.count; ++k) {
          if (a.values[k].kind == FilterValue::Kind::kBytes) mine.add().assign(a.values[k].bytes);
        }
      }
      if (mine.size() > 1) {
        std::sort(mine.begin(), mine.end(), bytes_less);
        mine.truncate(static_cast<size_t>(std::unique(mine.begin(), mine.end()) - mine.begin()));
      }
      if (has_points_) {
        points_both_.clear();
        std::set_intersection(points_.begin(), points_.end(), points_tmp_.begin(),
                              points_tmp_.end(), PointsInserter<Points>{&points_both_}, bytes_less);
        points_.swap(points_both_);
      }
      has_points_ = true;
      continue;
    }
    if (a.count != 1) {
      return Status::InvalidArgument("plan: term " + std::to_string(i + 1) +
                                     " needs exactly one value");
    }
    const FilterValue& v = a.values[0];
    term_intervals_.clear();
    auto everything = [&] {
      Interval& iv = term_intervals_.add();
      iv.lo.clear();
      iv.hi.clear();
      iv.hi_inf = true;
    };
    if (is_range_op(t.op)) {
      const bool lower = t.op == PlanOp::kGt || t.op == PlanOp::kGe;
      switch (v.kind) {
        case FilterValue::Kind::kNull:
        case FilterValue::Kind::kRun:  // (taken above)
          break;  // nothing
        case FilterValue::Kind::kBelowAll:
          if (lower) everything();
          break;
        case FilterValue::Kind::kAboveAll:
          if (!lower) everything();
          break;
        case FilterValue::Kind::kBytes: {
          if (!lower && v.bytes.empty() && t.op == PlanOp::kLt) break;  // < "" : nothing
          Interval& iv = term_intervals_.add();
          iv.lo.clear();
          iv.hi.clear();
          iv.hi_inf = lower;
          Bytes& bound = lower ? iv.lo : iv.hi;
          bound.assign(v.bytes);
          if (t.op == PlanOp::kGt || t.op == PlanOp::kLe) bound.push_back(after);
          break;
        }
      }
    } else if (t.op == PlanOp::kPrefix) {
      if (v.kind == FilterValue::Kind::kBytes) {
        Interval& iv = term_intervals_.add();
        iv.lo.assign(v.bytes);
        iv.hi_inf = !strinc_into(v.bytes, &iv.hi);
      }
    } else if (t.op == PlanOp::kLike || t.op == PlanOp::kGlob) {
      if (v.kind == FilterValue::Kind::kBytes) {
        pattern_tmp_.clear();
        pattern_ranges(v.bytes, t.op == PlanOp::kLike,
                       col.encoding == KeyEncoding::kElement ? col.pattern_code : 0, &pattern_tmp_);
        for (auto& [lo, hi] : pattern_tmp_) {
          Interval& iv = term_intervals_.add();
          iv.lo.assign(lo);
          iv.hi.assign(hi);
          iv.hi_inf = hi.empty();
        }
      }
    } else {
      return Status::InvalidArgument("plan: unexpected term on a key position");
    }
    intersect(intervals_, term_intervals_, &tmp_intervals_);
    intervals_.swap(tmp_intervals_);
  }

  if (has_points_) {
    // Keep the points the intervals allow.
    size_t kept = 0;
    size_t k = 0;
    for (size_t p = 0; p < points_.size(); ++p) {
      const Bytes& x = points_[p];
      while (k < intervals_.size() && !intervals_[k].hi_inf &&
             compare_bytes(intervals_[k].hi, x) <= 0) {
        ++k;
      }
      if (k == intervals_.size()) break;
      if (compare_bytes(intervals_[k].lo, x) <= 0) {
        if (kept != p) points_[kept].swap(points_[p]);
        ++kept;
      }
    }
    points_.truncate(kept);
  }
  return Status::OK();
}

Status RangeBuilder::build(const Plan& plan, const std::vector<PlanColumn>& columns,
                           BytesView key_prefix, const FilterArg* args, size_t nargs,
                           ScanSpec* out) {
  if (!plan.skip) return build_ranges(plan, columns, 0, key_prefix, args, nargs, out);
  // A skip-scan: positions 1.. over an empty prefix give the ranges
  // relative to each first element.
  if (columns.size() < 2) return Status::InvalidArgument("plan: a skip-scan needs two positions");
  TUPLEKV_RETURN_IF_ERROR(build_ranges(plan, columns, 1, {}, args, nargs, out));
  out->skip = true;
  out->filter = plan.filter;
  return Status::OK();
}

bool RangeBuilder::point_range(const Plan& plan, const std::vector<PlanColumn>& columns,
                               size_t first, BytesView key_prefix, const FilterArg* args,
                               ScanSpec* out) {
  const size_t n = columns.size() - first;
  if (n == 0 || n > kMaxPointColumns) return false;
  if (n > 1 && columns[first].encoding == KeyEncoding::kRaw) return false;  // raw keys are one position
  // value_of[pos]: the value of the one =, IS or IS NULL term on that position.
  BytesView value_of[kMaxPointColumns];
  size_t seen = 0;
  for (size_t i = 0; i < plan.terms.size(); ++i) {
    const PlanTerm& t = plan.terms[i];
    if (is_limit_op(t.op)) continue;
    BytesView value = kNullElement;
    if (t.op != PlanOp::kIsNull) {
      if (!is_value_eq_op(t.op) || args[i].count != 1 ||
          args[i].values[0].kind != FilterValue::Kind::kBytes) {
        return false;
      }
      value = args[i].values[0].bytes;
    }
    const size_t pos = static_cast<size_t>(t.column) - first;  // checked by build_ranges
    if (pos >= n || (seen >> pos) & 1) return false;
    seen |= size_t{1} << pos;
    value_of[pos] = value;
  }
  if (seen != (size_t{1} << n) - 1) return false;
  KeyRange& r = out->add();
  r.begin.assign(key_prefix);
  for (size_t pos = 0; pos < n; ++pos) r.begin.append(value_of[pos]);
  r.end.assign(r.begin);
  r.end.push_back(columns.back().encoding == KeyEncoding::kRaw ? '\0' : '\xff');
  return true;
}

Status RangeBuilder::build_ranges(const Plan& plan, const std::vector<PlanColumn>& columns,
                                  size_t first, BytesView key_prefix, const FilterArg* args,
                                  size_t nargs, ScanSpec* out) {
  out->clear();
  if (nargs != plan.terms.size()) {
    return Status::InvalidArgument("plan: expected " + std::to_string(plan.terms.size()) +
                                   " arguments, got " + std::to_string(nargs));
  }
  out->reverse = plan.reverse;
  out->point = plan.point;
  int positions = 0;
  for (size_t i = 0; i < plan.terms.size(); ++i) {
    const PlanTerm& t = plan.terms[i];
    if (t.op == PlanOp::kLimit) {
      if (args[i].number >= 0) {
        out->has_limit = true;
        out->limit = static_cast<uint64_t>(args[i].number);
      }
    } else if (t.op == PlanOp::kOffset) {
      out->offset = args[i].number > 0 ? static_cast<uint64_t>(args[i].number) : 0;
    } else {
      if (t.column < 0 || t.column >= static_cast<int>(columns.size())) {
        return Status::InvalidArgument("plan: term on an unknown key position");
      }
      if (t.column < static_cast<int>(first)) {
        return Status::InvalidArgument("plan: a skip-scan term on position 0");
      }
      positions = std::max(positions, t.column - static_cast<int>(first) + 1);
    }
  }
  if (plan.empty) return Status::OK();

  // The common point lookup (one = per key position, each with a value)
  // is the key itself: skip the general machinery.
  if (plan.point && point_range(plan, columns, first, key_prefix, args, out)) return Status::OK();

  // Absolute range [p + lo, p + hi); hi_inf: to the end of everything
  // under p (an empty end, i.e. unbounded, if p is all FF).
  auto add_range = [&](BytesView p, BytesView lo, BytesView hi, bool hi_inf) {
    KeyRange& r = out->add();
    r.begin.assign(p);
    r.begin.append(lo);
    if (hi_inf) {
      if (element_prefixes) {
        r.end.assign(p);
        r.end.push_back('\xff');
      } else if (!strinc_into(p, &r.end)) {
        r.end.clear();
      }
    } else {
      r.end.assign(p);
      r.end.append(hi);
    }
    if (r.empty()) out->pop();
  };

  if (positions == 0) {
    add_range(key_prefix, {}, {}, true);
    return Status::OK();
  }

  prefixes_.clear();
  prefixes_.add().assign(key_prefix);
  for (int pos = 0; pos < positions; ++pos) {
    const int column = static_cast<int>(first) + pos;
    TUPLEKV_RETURN_IF_ERROR(position_constraints(plan, columns, args, column));
    const bool last = pos == positions - 1;
    const PlanColumn& col = columns[static_cast<size_t>(column)];
    if (!last && !has_points_) {
      return Status::InvalidArgument("plan: a range position before the last");
    }
    if (has_points_ && prefixes_.size() * points_.size() > kMaxRanges) {
      return Status::NotSupported("plan: more than " + std::to_string(kMaxRanges) +
                                  " key ranges");
    }
    if (has_points_ && !last) {
      next_prefixes_.clear();
      for (size_t p = 0; p < prefixes_.size(); ++p) {
        for (size_t x = 0; x < points_.size(); ++x) {
          Bytes& np = next_prefixes_.add();
          np.assign(prefixes_[p]);
          np.append(points_[x]);
        }
      }
      prefixes_.swap(next_prefixes_);
      continue;
    }
    const char after = col.encoding == KeyEncoding::kRaw ? '\0' : '\xff';
    for (size_t p = 0; p < prefixes_.size(); ++p) {
      const Bytes& prefix = prefixes_[p];
      if (has_points_) {
        for (size_t x = 0; x < points_.size(); ++x) {
          KeyRange& r = out->add();
          r.begin.assign(prefix);
          r.begin.append(points_[x]);
          r.end.assign(r.begin);
          r.end.push_back(after);
        }
      } else {
        for (size_t k = 0; k < intervals_.size(); ++k) {
          const Interval& iv = intervals_[k];
          add_range(prefix, iv.lo, iv.hi, iv.hi_inf);
        }
      }
    }
  }
  return Status::OK();
}

}  // namespace tuplekv
