// core/plan: constraint sets -> plan (terms, omit, order, limit, cost) and
// plan + argument values -> key ranges. Table-driven, no database.
#include "core/plan.h"

#include <gtest/gtest.h>

#include <ostream>
#include <string>
#include <vector>

namespace tuplekv {
namespace {

// ---------------------------------------------------------------------------
// Shapes

// tuplekv_kv: one raw position, LIKE/GLOB usable, hidden `prefix` column.
std::vector<PlanColumn> kv_columns() {
  PlanColumn c;
  c.name = "key";
  c.encoding = KeyEncoding::kRaw;
  c.exact = true;
  c.patterns = true;
  c.prefix_name = "prefix";
  return {c};
}

// A table keyed by (k1, k2), both packed elements; k1 optionally inexact
// (an ANY column) and k2 a TEXT column usable with patterns.
std::vector<PlanColumn> table_columns(bool k1_exact = true) {
  PlanColumn a;
  a.name = "k1";
  a.exact = k1_exact;
  PlanColumn b;
  b.name = "k2";
  b.patterns = true;
  b.pattern_code = 0x02;
  return {a, b};
}

PlanConstraint con(PlanOp op, int column = 0, bool usable = true) {
  PlanConstraint c;
  c.op = op;
  c.column = column;
  c.usable = usable;
  return c;
}

PlanConstraint pattern(PlanOp op, std::string text, int column = 0) {
  PlanConstraint c = con(op, column);
  c.known_text = std::move(text);
  return c;
}

// A term SQLite may have widened from a row-value comparison.
PlanConstraint loosened(PlanOp op, int column = 0) {
  PlanConstraint c = con(op, column);
  c.maybe_loosened = true;
  return c;
}

PlanConstraint limit(PlanOp op, std::optional<int64_t> v = std::nullopt) {
  PlanConstraint c = con(op, -1);
  c.known_int = v;
  return c;
}

std::string omits(const Plan& p) {
  std::string s;
  for (const PlanTerm& t : p.terms) s += t.omit ? '1' : '0';
  return s;
}

// ---------------------------------------------------------------------------
// Planning, table-driven

struct PlanCase {
  const char* name;
  std::vector<PlanColumn> columns;
  std::vector<PlanConstraint> constraints;
  std::vector<PlanOrder> order_by;
  const char* text;      // describe()
  const char* omit;      // per term
  bool order_consumed;
  bool unique;
};

// gtest would otherwise print the case as raw bytes in every test name.
void PrintTo(const PlanCase& c, std::ostream* os) { *os << c.name; }

class PlanCaseTest : public ::testing::TestWithParam<PlanCase> {};

TEST_P(PlanCaseTest, PlansAsExpected) {
  const PlanCase& c = GetParam();
  PlanRequest req;
  req.columns = c.columns;
  req.constraints = c.constraints;
  req.order_by = c.order_by;
  const Plan plan = plan_scan(req);
  EXPECT_EQ(describe(plan, c.columns), c.text);
  EXPECT_EQ(omits(plan), c.omit);
  EXPECT_EQ(plan.order_consumed, c.order_consumed);
  EXPECT_EQ(plan.unique, c.unique);
  // Every description parses back to the same plan.
  Result<Plan> back = parse_plan(describe(plan, c.columns), c.columns);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(describe(*back, c.columns), describe(plan, c.columns));
  ASSERT_EQ(back->terms.size(), plan.terms.size());
  for (size_t i = 0; i < plan.terms.size(); ++i) {
    // IS NULL reads back as IS, which its NULL argument serves.
    const PlanOp op = plan.terms[i].op == PlanOp::kIsNull ? PlanOp::kIs : plan.terms[i].op;
    EXPECT_EQ(back->terms[i].op, op) << i;
    EXPECT_EQ(back->terms[i].column, plan.terms[i].column) << i;
  }
  EXPECT_EQ(back->reverse, plan.reverse);
  EXPECT_EQ(back->point, plan.point);
  EXPECT_EQ(back->empty, plan.empty);
}

const PlanOrder kKeyAsc{0, false};
const PlanOrder kKeyDesc{0, true};
const PlanOrder kValueAsc{-1, false};

std::vector<PlanConstraint> seventeen_lower_bounds() {
  std::vector<PlanConstraint> v(17, con(PlanOp::kGt));
  v.push_back(limit(PlanOp::kLimit));
  return v;
}

INSTANTIATE_TEST_SUITE_P(
    Kv, PlanCaseTest,
    ::testing::Values(
        PlanCase{"nothing", kv_columns(), {}, {}, "full", "", false, false},
        PlanCase{"eq", kv_columns(), {con(PlanOp::kEq)}, {}, "point key=?1", "1", false, true},
        PlanCase{"eq_unusable", kv_columns(), {con(PlanOp::kEq, 0, false)}, {}, "full", "", false,
                 false},
        PlanCase{"in", kv_columns(), {con(PlanOp::kIn)}, {}, "point key IN ?1", "1", false, false},
        PlanCase{"eq_and_in", kv_columns(), {con(PlanOp::kIn), con(PlanOp::kEq)}, {},
                 "point key IN ?1 AND key=?2", "11", false, true},
        PlanCase{"between", kv_columns(), {con(PlanOp::kGe), con(PlanOp::kLe)}, {},
                 "range key>=?1 AND key<=?2", "11", false, false},
        PlanCase{"gt_lt", kv_columns(), {con(PlanOp::kGt), con(PlanOp::kLt)}, {},
                 "range key>?1 AND key<?2", "11", false, false},
        PlanCase{"in_and_range", kv_columns(), {con(PlanOp::kGt), con(PlanOp::kIn)}, {},
                 "point key>?1 AND key IN ?2", "11", false, false},
        PlanCase{"prefix", kv_columns(), {con(PlanOp::kPrefix)}, {}, "range prefix=?1", "1", false,
                 false},
        PlanCase{"prefix_and_range", kv_columns(), {con(PlanOp::kPrefix), con(PlanOp::kGe)}, {},
                 "range prefix=?1 AND key>=?2", "11", false, false},
        PlanCase{"prefix_in", kv_columns(), {con(PlanOp::kPrefixIn)}, {}, "range prefix IN ?1", "1",
                 false, false},
        PlanCase{"like_param", kv_columns(), {con(PlanOp::kLike)}, {}, "range key LIKE ?1", "0",
                 false, false},
        PlanCase{"like_literal", kv_columns(), {pattern(PlanOp::kLike, "ab%")}, {},
                 "range key LIKE ?1", "0", false, false},
        PlanCase{"like_no_prefix", kv_columns(), {pattern(PlanOp::kLike, "%ab")}, {}, "full", "",
                 false, false},
        PlanCase{"glob_no_prefix", kv_columns(), {pattern(PlanOp::kGlob, "[ab]*")}, {}, "full", "",
                 false, false},
        PlanCase{"glob", kv_columns(), {pattern(PlanOp::kGlob, "ab*")}, {}, "range key GLOB ?1",
                 "0", false, false},
        PlanCase{"is_null", kv_columns(), {con(PlanOp::kIsNull), con(PlanOp::kEq)}, {}, "empty key IS ?1", "1",
                 true, true},
        PlanCase{"other_ignored", kv_columns(), {con(PlanOp::kOther), con(PlanOp::kGe)}, {},
                 "range key>=?1", "1", false, false},
        PlanCase{"order_asc", kv_columns(), {}, {kKeyAsc}, "full", "", true, false},
        PlanCase{"order_desc", kv_columns(), {con(PlanOp::kGe)}, {kKeyDesc},
                 "range key>=?1 reverse", "1", true, false},
        PlanCase{"order_key_then_value", kv_columns(), {}, {kKeyDesc, kValueAsc}, "full reverse",
                 "", true, false},
        PlanCase{"order_value", kv_columns(), {}, {kValueAsc}, "full", "", false, false},
        PlanCase{"order_value_after_point", kv_columns(), {con(PlanOp::kEq)}, {kValueAsc},
                 "point key=?1", "1", true, true},
        PlanCase{"order_key_twice", kv_columns(), {}, {kKeyAsc, kKeyDesc}, "full", "", true, false},
        PlanCase{"limit", kv_columns(), {limit(PlanOp::kLimit)}, {}, "full limit ?1", "1", false,
                 false},
        PlanCase{"limit_offset_after_range", kv_columns(),
                 {limit(PlanOp::kOffset), con(PlanOp::kGe), limit(PlanOp::kLimit)}, {},
                 "range key>=?1 limit ?2 offset ?3", "111", false, false},
        PlanCase{"limit_desc", kv_columns(), {limit(PlanOp::kLimit)}, {kKeyDesc},
                 "full reverse limit ?1", "1", true, false},
        PlanCase{"limit_blocked_by_like", kv_columns(),
                 {pattern(PlanOp::kLike, "a%"), limit(PlanOp::kLimit)}, {}, "range key LIKE ?1",
                 "0", false, false},
        PlanCase{"limit_blocked_by_other", kv_columns(),
                 {con(PlanOp::kOther), limit(PlanOp::kLimit)}, {}, "full", "", false, false},
        PlanCase{"limit_blocked_by_unusable", kv_columns(),
                 {con(PlanOp::kEq, 0, false), limit(PlanOp::kLimit)}, {}, "full", "", false,
                 false},
        PlanCase{"limit_blocked_by_sort", kv_columns(), {limit(PlanOp::kLimit)}, {kValueAsc},
                 "full", "", false, false},
        PlanCase{"limit_blocked_by_loosened", kv_columns(), {loosened(PlanOp::kGe), limit(PlanOp::kLimit)},
                 {kKeyAsc}, "range key>=?1", "1", true, false},
        PlanCase{"limit_blocked_past_16_args", kv_columns(), seventeen_lower_bounds(), {},
                 "range key>?1 AND key>?2 AND key>?3 AND key>?4 AND key>?5 AND key>?6 AND key>?7 "
                 "AND key>?8 AND key>?9 AND key>?10 AND key>?11 AND key>?12 AND key>?13 AND "
                 "key>?14 AND key>?15 AND key>?16 AND key>?17",
                 "11111111111111111", false, false}),
    [](const ::testing::TestParamInfo<PlanCase>& info) { return std::string(info.param.name); });

INSTANTIATE_TEST_SUITE_P(
    Table, PlanCaseTest,
    ::testing::Values(
        PlanCase{"second_only", table_columns(), {con(PlanOp::kEq, 1)}, {}, "full", "", false,
                 false},
        PlanCase{"first_eq", table_columns(), {con(PlanOp::kEq, 0)}, {}, "range k1=?1", "1", false,
                 false},
        PlanCase{"both_eq", table_columns(), {con(PlanOp::kEq, 1), con(PlanOp::kEq, 0)}, {},
                 "point k1=?1 AND k2=?2", "11", false, true},
        PlanCase{"in_then_eq", table_columns(), {con(PlanOp::kEq, 1), con(PlanOp::kIn, 0)}, {},
                 "point k1 IN ?1 AND k2=?2", "11", false, false},
        PlanCase{"eq_then_range", table_columns(), {con(PlanOp::kLt, 1), con(PlanOp::kEq, 0)}, {},
                 "range k1=?1 AND k2<?2", "11", false, false},
        PlanCase{"range_then_nothing", table_columns(), {con(PlanOp::kGt, 0), con(PlanOp::kEq, 1)},
                 {}, "range k1>?1", "1", false, false},
        PlanCase{"eq_then_like", table_columns(), {con(PlanOp::kEq, 0), con(PlanOp::kLike, 1)}, {},
                 "range k1=?1 AND k2 LIKE ?2", "10", false, false},
        PlanCase{"like_on_non_pattern_column", table_columns(), {con(PlanOp::kLike, 0)}, {}, "full",
                 "", false, false},
        PlanCase{"order_skips_constant", table_columns(), {con(PlanOp::kEq, 0)}, {{1, true}},
                 "range k1=?1 reverse", "1", true, false},
        PlanCase{"order_both_desc", table_columns(), {}, {{0, true}, {1, true}}, "full reverse", "",
                 true, false},
        PlanCase{"order_mixed", table_columns(), {}, {{0, false}, {1, true}}, "full", "", false,
                 false},
        PlanCase{"order_second_only", table_columns(), {}, {{1, false}}, "full", "", false, false},
        PlanCase{"order_in_then_second", table_columns(), {con(PlanOp::kIn, 0)}, {{1, false}},
                 "range k1 IN ?1", "1", false, false},
        PlanCase{"order_in_first_second", table_columns(), {con(PlanOp::kIn, 0)},
                 {{0, false}, {1, false}}, "range k1 IN ?1", "1", true, false},
        PlanCase{"inexact_never_omitted", table_columns(false),
                 {con(PlanOp::kEq, 0), con(PlanOp::kEq, 1)}, {}, "point k1=?1 AND k2=?2", "01",
                 false, false},
        PlanCase{"inexact_not_ordered", table_columns(false), {}, {{0, false}}, "full", "", false,
                 false},
        PlanCase{"inexact_blocks_limit", table_columns(false),
                 {con(PlanOp::kEq, 0), limit(PlanOp::kLimit)}, {}, "range k1=?1", "0", false,
                 false}),
    [](const ::testing::TestParamInfo<PlanCase>& info) { return std::string(info.param.name); });

TEST(PlanTest, QuotedNamesRoundTrip) {
  std::vector<PlanColumn> cols = table_columns();
  cols[0].name = "my \"odd\" col";
  cols[1].name = "2nd";
  PlanRequest req;
  req.columns = cols;
  req.constraints = {con(PlanOp::kEq, 0), con(PlanOp::kGe, 1)};
  const Plan plan = plan_scan(req);
  const std::string text = describe(plan, cols);
  EXPECT_EQ(text, "range \"my \"\"odd\"\" col\"=?1 AND \"2nd\">=?2");
  Result<Plan> back = parse_plan(text, cols);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(describe(*back, cols), text);
}

TEST(PlanTest, MalformedStringsAreInternalErrors) {
  for (const char* bad :
       {"", "scan", "full ", "point key=?2", "point key=?1 AND", "range nope=?1", "range key~?1",
        "range key>?1 key<?2", "full limit ?1 AND key=?2", "range key>?1 limit ?2 key<?3",
        "range \"key", "full limit ?", "point key=?1 reverse extra"}) {
    Result<Plan> p = parse_plan(bad, kv_columns());
    ASSERT_FALSE(p.ok()) << bad;
    EXPECT_EQ(p.status().code(), StatusCode::kInternal) << bad;
    EXPECT_NE(p.status().message().find("tuplekv internal error: malformed plan string"),
              std::string::npos);
  }
}

double cost_of(std::vector<PlanConstraint> cs) {
  PlanRequest req;
  req.columns = kv_columns();
  req.constraints = std::move(cs);
  return plan_scan(req).cost;
}

// An unordered position (text in a UTF-16 database) takes = and IN only.
TEST(PlanTest, UnorderedPositionsTakeOnlyEqualityAndIn) {
  std::vector<PlanColumn> cols = table_columns(false);
  cols[0].ordered = false;
  cols[1].ordered = false;
  cols[1].patterns = false;
  struct Case {
    std::vector<PlanConstraint> constraints;
    const char* text;
  };
  const Case cases[] = {
      {{con(PlanOp::kEq, 0), con(PlanOp::kGt, 1)}, "range k1=?1"},
      {{con(PlanOp::kIn, 0), con(PlanOp::kEq, 1)}, "point k1 IN ?1 AND k2=?2"},
      {{con(PlanOp::kGe, 0), con(PlanOp::kLt, 0)}, "full"},
      {{pattern(PlanOp::kLike, "ab%", 0)}, "full"},
  };
  for (const Case& c : cases) {
    PlanRequest req;
    req.columns = cols;
    req.constraints = c.constraints;
    req.unique = true;
    req.table_rows = 1000;
    EXPECT_EQ(describe(plan_scan(req), cols), c.text);
  }
}

TEST(PlanTest, CostsRankPointInPrefixRangeFull) {
  const double point = cost_of({con(PlanOp::kEq)});
  const double in = cost_of({con(PlanOp::kIn)});
  const double prefix = cost_of({con(PlanOp::kPrefix)});
  const double between = cost_of({con(PlanOp::kGe), con(PlanOp::kLt)});
  const double like = cost_of({con(PlanOp::kLike)});
  const double one_sided = cost_of({con(PlanOp::kGe)});
  const double full = cost_of({});
  EXPECT_LT(point, in);
  EXPECT_LT(in, prefix);
  EXPECT_EQ(prefix, between);
  EXPECT_EQ(prefix, like);
  EXPECT_LT(prefix, one_sided);
  EXPECT_LT(prefix, cost_of({con(PlanOp::kPrefixIn)}));
  EXPECT_LT(cost_of({con(PlanOp::kPrefixIn)}), full);
  EXPECT_LT(one_sided, full);
  EXPECT_DOUBLE_EQ(full, 1e6 + kSeekCost);
}

// A non-unique key prefix (the first of two positions, or an index) is
// guessed as SQLite guesses for an index without statistics: 10 rows a
// value, 9 for two positions. So an IN list there, of unknown length,
// still costs far less than a range or a full scan.
TEST(PlanTest, NonUniquePrefixesMatchAFewRowsPerValue) {
  auto plan_of = [](std::vector<PlanConstraint> cs) {
    PlanRequest req;
    req.columns = table_columns();
    req.unique = false;  // an index's leading columns, say
    req.constraints = std::move(cs);
    return plan_scan(req);
  };
  EXPECT_DOUBLE_EQ(plan_of({con(PlanOp::kEq, 0)}).rows, 10);
  EXPECT_DOUBLE_EQ(plan_of({con(PlanOp::kIn, 0)}).rows, 100);
  EXPECT_DOUBLE_EQ(plan_of({con(PlanOp::kEq, 0), con(PlanOp::kEq, 1)}).rows, 9);
  const double in = plan_of({con(PlanOp::kIn, 0)}).cost;
  const double between = plan_of({con(PlanOp::kGe, 0), con(PlanOp::kLt, 0)}).cost;
  EXPECT_LT(plan_of({con(PlanOp::kEq, 0)}).cost, in);
  EXPECT_LT(in, between);
  EXPECT_LT(between, plan_of({}).cost);
  // Never more than the table.
  PlanRequest small;
  small.columns = table_columns();
  small.unique = false;
  small.constraints = {con(PlanOp::kIn, 0)};
  small.table_rows = 30;
  EXPECT_DOUBLE_EQ(plan_scan(small).rows, 30);
}

TEST(PlanTest, RowEstimates) {
  PlanRequest req;
  req.columns = kv_columns();
  req.table_rows = 1000;
  EXPECT_DOUBLE_EQ(plan_scan(req).rows, 1000);
  req.constraints = {con(PlanOp::kEq)};
  EXPECT_DOUBLE_EQ(plan_scan(req).rows, 1);
  // A known LIMIT caps rows and the cost of reading them (OFFSET rows too).
  req.constraints = {limit(PlanOp::kLimit, 5), limit(PlanOp::kOffset, 20)};
  const Plan p = plan_scan(req);
  EXPECT_DOUBLE_EQ(p.rows, 5);
  EXPECT_DOUBLE_EQ(p.cost, kSeekCost + 25);
}

// ---------------------------------------------------------------------------
// Ranges

std::string printable(BytesView b) {
  static const char kHex[] = "0123456789abcdef";
  std::string s;
  for (char ch : b) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      s.push_back(static_cast<char>(c));
    } else {
      s += "\\x";
      s.push_back(kHex[c >> 4]);
      s.push_back(kHex[c & 15]);
    }
  }
  return s;
}

std::string render(const ScanSpec& spec) {
  std::string s;
  for (size_t i = 0; i < spec.size(); ++i) {
    if (i > 0) s += ' ';
    s += '[';
    s += printable(spec[i].begin);
    s += ',';
    s += spec[i].end.empty() ? "inf" : printable(spec[i].end);
    s += ')';
  }
  return s;
}

FilterValue bytes(std::string s) { return FilterValue{FilterValue::Kind::kBytes, std::move(s), {}}; }
FilterValue null_value() { return FilterValue{FilterValue::Kind::kNull, {}, {}}; }
FilterValue below_all() { return FilterValue{FilterValue::Kind::kBelowAll, {}, {}}; }
FilterValue above_all() { return FilterValue{FilterValue::Kind::kAboveAll, {}, {}}; }
FilterValue run(std::string lo, std::string hi) {
  return FilterValue{FilterValue::Kind::kRun, std::move(lo), std::move(hi)};
}

FilterArg arg(std::vector<FilterValue> values) {
  FilterArg a;
  a.count = values.size();
  a.values = std::move(values);
  return a;
}

FilterArg number(int64_t n) {
  FilterArg a;
  a.number = n;
  return a;
}

struct RangeCase {
  const char* name;
  std::vector<PlanConstraint> constraints;
  std::vector<PlanOrder> order_by;
  std::vector<FilterArg> args;  // in the plan's argv order
  const char* ranges;
};

void PrintTo(const RangeCase& c, std::ostream* os) { *os << c.name; }

class RangeCaseTest : public ::testing::TestWithParam<RangeCase> {};

// Every kv key starts with "T" here (the subspace prefix).
TEST_P(RangeCaseTest, BuildsRanges) {
  const RangeCase& c = GetParam();
  PlanRequest req;
  req.columns = kv_columns();
  req.constraints = c.constraints;
  req.order_by = c.order_by;
  // Build from the parsed plan, as xFilter does.
  Result<Plan> plan = parse_plan(describe(plan_scan(req), req.columns), req.columns);
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  RangeBuilder builder;
  ScanSpec spec;
  ASSERT_TRUE(builder.build(*plan, req.columns, "T", c.args.data(), c.args.size(), &spec).ok());
  EXPECT_EQ(render(spec), c.ranges);
  // A second build with the same builder and spec gives the same answer
  // (buffers are reused, nothing leaks between builds).
  ASSERT_TRUE(builder.build(*plan, req.columns, "T", c.args.data(), c.args.size(), &spec).ok());
  EXPECT_EQ(render(spec), c.ranges);
}

INSTANTIATE_TEST_SUITE_P(
    Kv, RangeCaseTest,
    ::testing::Values(
        RangeCase{"full", {}, {}, {}, "[T,U)"},
        RangeCase{"eq", {con(PlanOp::kEq)}, {}, {arg({bytes("abc")})}, "[Tabc,Tabc\\x00)"},
        RangeCase{"eq_empty_key", {con(PlanOp::kEq)}, {}, {arg({bytes("")})}, "[T,T\\x00)"},
        RangeCase{"eq_null", {con(PlanOp::kEq)}, {}, {arg({null_value()})}, ""},
        RangeCase{"eq_text", {con(PlanOp::kEq)}, {}, {arg({below_all()})}, ""},
        RangeCase{"gt", {con(PlanOp::kGt)}, {}, {arg({bytes("abc")})}, "[Tabc\\x00,U)"},
        RangeCase{"ge", {con(PlanOp::kGe)}, {}, {arg({bytes("abc")})}, "[Tabc,U)"},
        RangeCase{"lt", {con(PlanOp::kLt)}, {}, {arg({bytes("abc")})}, "[T,Tabc)"},
        RangeCase{"le", {con(PlanOp::kLe)}, {}, {arg({bytes("abc")})}, "[T,Tabc\\x00)"},
        RangeCase{"lt_empty", {con(PlanOp::kLt)}, {}, {arg({bytes("")})}, ""},
        RangeCase{"ge_lt", {con(PlanOp::kGe), con(PlanOp::kLt)}, {},
                  {arg({bytes("a")}), arg({bytes("c")})}, "[Ta,Tc)"},
        RangeCase{"crossed", {con(PlanOp::kGe), con(PlanOp::kLt)}, {},
                  {arg({bytes("c")}), arg({bytes("a")})}, ""},
        RangeCase{"two_lower_bounds", {con(PlanOp::kGt), con(PlanOp::kGe)}, {},
                  {arg({bytes("a")}), arg({bytes("b")})}, "[Tb,U)"},
        RangeCase{"gt_text_is_everything", {con(PlanOp::kGt)}, {}, {arg({below_all()})}, "[T,U)"},
        RangeCase{"lt_text_is_nothing", {con(PlanOp::kLt)}, {}, {arg({below_all()})}, ""},
        RangeCase{"lt_above_all", {con(PlanOp::kLt)}, {}, {arg({above_all()})}, "[T,U)"},
        RangeCase{"gt_above_all", {con(PlanOp::kGt)}, {}, {arg({above_all()})}, ""},
        RangeCase{"gt_null", {con(PlanOp::kGt)}, {}, {arg({null_value()})}, ""},
        // A range given as the runs it matches (an ANY position), alone and
        // met with another bound.
        RangeCase{"runs", {con(PlanOp::kGt)}, {}, {arg({run("a", "c"), run("m", "p")})}, "[Ta,Tc) [Tm,Tp)"},
        RangeCase{"runs_and_bound", {con(PlanOp::kGe), con(PlanOp::kLt)}, {},
                  {arg({run("a", "c"), run("m", "p")}), arg({bytes("n")})}, "[Ta,Tc) [Tm,Tn)"},
        // An = that also matches a run: its values become runs too, in order.
        RangeCase{"eq_values_and_run", {con(PlanOp::kEq)}, {},
                  {arg({bytes("x"), run("b", "d"), bytes("c"), bytes("a")})}, "[Ta,Ta\\x00) [Tb,Td) [Tx,Tx\\x00)"},
        RangeCase{"eq_run_and_bound", {con(PlanOp::kEq), con(PlanOp::kGe)}, {},
                  {arg({bytes("x"), run("b", "d")}), arg({bytes("c")})}, "[Tc,Td) [Tx,Tx\\x00)"},
        RangeCase{"runs_and_runs", {con(PlanOp::kGe), con(PlanOp::kLe)}, {},
                  {arg({run("a", "e"), run("m", "p")}), arg({run("b", "n")})}, "[Tb,Te) [Tm,Tn)"},
        RangeCase{"in_sorted_deduped", {con(PlanOp::kIn)}, {},
                  {arg({bytes("c"), bytes("a"), null_value(), bytes("a"), below_all()})},
                  "[Ta,Ta\\x00) [Tc,Tc\\x00)"},
        RangeCase{"in_empty_list", {con(PlanOp::kIn)}, {}, {arg({})}, ""},
        RangeCase{"in_with_range", {con(PlanOp::kIn), con(PlanOp::kGt)}, {},
                  {arg({bytes("c"), bytes("a"), bytes("b")}), arg({bytes("a")})},
                  "[Tb,Tb\\x00) [Tc,Tc\\x00)"},
        RangeCase{"in_and_eq", {con(PlanOp::kIn), con(PlanOp::kEq)}, {},
                  {arg({bytes("c"), bytes("a")}), arg({bytes("a")})}, "[Ta,Ta\\x00)"},
        RangeCase{"in_with_prefix", {con(PlanOp::kIn), con(PlanOp::kPrefix)}, {},
                  {arg({bytes("ab"), bytes("b"), bytes("a")}), arg({bytes("a")})},
                  "[Ta,Ta\\x00) [Tab,Tab\\x00)"},
        RangeCase{"prefix", {con(PlanOp::kPrefix)}, {}, {arg({bytes("ab")})}, "[Tab,Tac)"},
        RangeCase{"prefix_ff", {con(PlanOp::kPrefix)}, {}, {arg({bytes("a\xff\xff")})},
                  "[Ta\\xff\\xff,Tb)"},
        RangeCase{"prefix_all_ff", {con(PlanOp::kPrefix)}, {}, {arg({bytes("\xff")})},
                  "[T\\xff,U)"},
        RangeCase{"prefix_empty", {con(PlanOp::kPrefix)}, {}, {arg({bytes("")})}, "[T,U)"},
        RangeCase{"prefix_null", {con(PlanOp::kPrefix)}, {}, {arg({null_value()})}, ""},
        // A prefix inside another adds nothing; ranges come sorted, NULL
        // matches nothing, and an all-0xff prefix runs to the end.
        RangeCase{"prefix_in", {con(PlanOp::kPrefixIn)}, {},
                  {arg({bytes("b"), bytes("abc"), null_value(), bytes("ab"), bytes("b\x01")})},
                  "[Tab,Tac) [Tb,Tc)"},
        RangeCase{"prefix_in_ff", {con(PlanOp::kPrefixIn)}, {},
                  {arg({bytes("\xff\x01"), bytes("a"), bytes("\xff")})}, "[Ta,Tb) [T\\xff,U)"},
        RangeCase{"prefix_in_empty", {con(PlanOp::kPrefixIn)}, {}, {arg({bytes("x"), bytes("")})},
                  "[T,U)"},
        RangeCase{"prefix_in_nulls", {con(PlanOp::kPrefixIn)}, {}, {arg({null_value()})}, ""},
        RangeCase{"prefix_in_and_lt", {con(PlanOp::kPrefixIn), con(PlanOp::kLt)}, {},
                  {arg({bytes("c"), bytes("a")}), arg({bytes("ab")})}, "[Ta,Tab)"},
        RangeCase{"prefix_and_ge", {con(PlanOp::kPrefix), con(PlanOp::kGe)}, {},
                  {arg({bytes("ab")}), arg({bytes("abc")})}, "[Tabc,Tac)"},
        RangeCase{"prefix_and_lt_outside", {con(PlanOp::kPrefix), con(PlanOp::kLt)}, {},
                  {arg({bytes("ab")}), arg({bytes("aa")})}, ""},
        RangeCase{"like", {con(PlanOp::kLike)}, {}, {arg({bytes("ab%")})},
                  "[TAB,TAC) [TAb,TAc) [TaB,TaC) [Tab,Tac)"},
        RangeCase{"like_digits_first", {con(PlanOp::kLike)}, {}, {arg({bytes("12x_")})},
                  "[T12X,T12Y) [T12x,T12y)"},
        RangeCase{"like_no_letters", {con(PlanOp::kLike)}, {}, {arg({bytes("12%")})}, "[T12,T13)"},
        RangeCase{"like_all_wild", {con(PlanOp::kLike)}, {}, {arg({bytes("%")})}, "[T,U)"},
        RangeCase{"like_null", {con(PlanOp::kLike)}, {}, {arg({null_value()})}, ""},
        RangeCase{"like_and_ge", {con(PlanOp::kLike), con(PlanOp::kGe)}, {},
                  {arg({bytes("a%")}), arg({bytes("B")})}, "[Ta,Tb)"},
        RangeCase{"glob", {con(PlanOp::kGlob)}, {}, {arg({bytes("ab*")})}, "[Tab,Tac)"},
        RangeCase{"glob_class", {con(PlanOp::kGlob)}, {}, {arg({bytes("a[bc]")})}, "[Ta,Tb)"},
        RangeCase{"desc_flag_only", {con(PlanOp::kGe)}, {{0, true}}, {arg({bytes("b")})},
                  "[Tb,U)"}),
    [](const ::testing::TestParamInfo<RangeCase>& info) { return std::string(info.param.name); });

TEST(RangeBuilderTest, FlagsLimitAndOffset) {
  PlanRequest req;
  req.columns = kv_columns();
  req.constraints = {con(PlanOp::kGe), limit(PlanOp::kLimit), limit(PlanOp::kOffset)};
  req.order_by = {kKeyDesc};
  const Plan plan = plan_scan(req);
  ASSERT_EQ(describe(plan, req.columns), "range key>=?1 reverse limit ?2 offset ?3");
  RangeBuilder b;
  ScanSpec spec;
  std::vector<FilterArg> args = {arg({bytes("b")}), number(10), number(3)};
  ASSERT_TRUE(b.build(plan, req.columns, "T", args.data(), args.size(), &spec).ok());
  EXPECT_TRUE(spec.reverse);
  EXPECT_FALSE(spec.point);
  EXPECT_TRUE(spec.has_limit);
  EXPECT_EQ(spec.limit, 10u);
  EXPECT_EQ(spec.offset, 3u);
  // Negative LIMIT: none; negative OFFSET: zero (SQLite's rules).
  args = {arg({bytes("b")}), number(-1), number(-5)};
  ASSERT_TRUE(b.build(plan, req.columns, "T", args.data(), args.size(), &spec).ok());
  EXPECT_FALSE(spec.has_limit);
  EXPECT_EQ(spec.offset, 0u);
}

TEST(RangeBuilderTest, PointFlagAndEmptyPlan) {
  PlanRequest req;
  req.columns = kv_columns();
  req.constraints = {con(PlanOp::kIn)};
  Plan plan = plan_scan(req);
  RangeBuilder b;
  ScanSpec spec;
  std::vector<FilterArg> args = {arg({bytes("x"), bytes("y")})};
  ASSERT_TRUE(b.build(plan, req.columns, "T", args.data(), 1, &spec).ok());
  EXPECT_TRUE(spec.point);
  EXPECT_EQ(spec.size(), 2u);
  // The empty plan takes its IS NULL term (so that SQLite waits for what
  // the term depends on), and builds no range from its NULL.
  req.constraints = {con(PlanOp::kIsNull)};
  plan = plan_scan(req);
  ASSERT_EQ(plan.terms.size(), 1u);
  args = {FilterArg{}};
  ASSERT_TRUE(b.build(plan, req.columns, "T", args.data(), 1, &spec).ok());
  EXPECT_EQ(spec.size(), 0u);
}

TEST(RangeBuilderTest, WrongArgumentCountsAreErrors) {
  PlanRequest req;
  req.columns = kv_columns();
  req.constraints = {con(PlanOp::kGe)};
  const Plan plan = plan_scan(req);
  RangeBuilder b;
  ScanSpec spec;
  EXPECT_EQ(b.build(plan, req.columns, "T", nullptr, 0, &spec).code(),
            StatusCode::kInvalidArgument);
  std::vector<FilterArg> args = {arg({bytes("a"), bytes("b")})};
  EXPECT_EQ(b.build(plan, req.columns, "T", args.data(), 1, &spec).code(),
            StatusCode::kInvalidArgument);
  // A range's runs must come in order and apart, each non-empty.
  for (const FilterArg& a : {arg({run("m", "p"), run("a", "c")}), arg({run("a", "n"), run("m", "p")}),
                             arg({run("c", "a")})}) {
    const Status s = b.build(plan, req.columns, "T", &a, 1, &spec);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(s.message().find("runs out of order"), std::string::npos) << s.message();
  }
}

// Tuple-element positions: (k1, k2) with k1 IN and a range on k2.
TEST(RangeBuilderTest, ElementPositionsMultiplyOut) {
  PlanRequest req;
  req.columns = table_columns();
  req.constraints = {con(PlanOp::kIn, 0), con(PlanOp::kGt, 1), con(PlanOp::kLe, 1)};
  const Plan plan = plan_scan(req);
  ASSERT_EQ(describe(plan, req.columns), "range k1 IN ?1 AND k2>?2 AND k2<=?3");
  // Elements: ints 0x15 0x01 / 0x15 0x02, strings 0x02 'b' 0x00 / 0x02 'd' 0x00.
  std::vector<FilterArg> args = {arg({bytes("\x15\x02"), bytes("\x15\x01")}),
                                 arg({bytes(std::string("\x02" "b\x00", 3))}),
                                 arg({bytes(std::string("\x02" "d\x00", 3))})};
  RangeBuilder b;
  ScanSpec spec;
  ASSERT_TRUE(b.build(plan, req.columns, "T", args.data(), args.size(), &spec).ok());
  EXPECT_EQ(render(spec),
            "[T\\x15\\x01\\x02b\\x00\\xff,T\\x15\\x01\\x02d\\x00\\xff) "
            "[T\\x15\\x02\\x02b\\x00\\xff,T\\x15\\x02\\x02d\\x00\\xff)");
  // A full point key: k1 = 1 AND k2 = 'b'.
  req.constraints = {con(PlanOp::kEq, 0), con(PlanOp::kEq, 1)};
  const Plan point = plan_scan(req);
  args = {arg({bytes("\x15\x01")}), arg({bytes(std::string("\x02" "b\x00", 3))})};
  ASSERT_TRUE(b.build(point, req.columns, "T", args.data(), args.size(), &spec).ok());
  EXPECT_TRUE(spec.point);
  EXPECT_EQ(render(spec), "[T\\x15\\x01\\x02b\\x00,T\\x15\\x01\\x02b\\x00\\xff)");
  // LIKE on the text column: the element type code leads each variant.
  req.constraints = {con(PlanOp::kEq, 0), con(PlanOp::kLike, 1)};
  const Plan like = plan_scan(req);
  args = {arg({bytes("\x15\x01")}), arg({bytes("x%")})};
  ASSERT_TRUE(b.build(like, req.columns, "T", args.data(), args.size(), &spec).ok());
  EXPECT_EQ(render(spec), "[T\\x15\\x01\\x02X,T\\x15\\x01\\x02Y) [T\\x15\\x01\\x02x,T\\x15\\x01\\x02y)");
  // An untyped (inexact) k1 with two encodings for one SQL value (2, 2.0).
  req.columns = table_columns(false);
  req.constraints = {con(PlanOp::kEq, 0)};
  const Plan any = plan_scan(req);
  args = {arg({bytes("\x15\x02"), bytes("\x21\xc0\x00\x00\x00\x00\x00\x00\x00")})};
  ASSERT_TRUE(b.build(any, req.columns, "T", args.data(), args.size(), &spec).ok());
  EXPECT_EQ(spec.size(), 2u);
}

// Point keys take a short path; it must agree with the general one.
TEST(RangeBuilderTest, PointKeysInAnyTermOrder) {
  PlanRequest req;
  req.columns = table_columns();
  // The planner writes terms by position, but a plan may list them in any
  // order; the arguments follow the terms.
  Result<Plan> parsed = parse_plan("point k2=?1 AND k1=?2", req.columns);
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  const Plan point = *parsed;
  ASSERT_TRUE(point.point);
  RangeBuilder b;
  ScanSpec spec;
  std::vector<FilterArg> args = {arg({bytes(std::string("\x02" "b\x00", 3))}),
                                 arg({bytes("\x15\x01")})};
  ASSERT_TRUE(b.build(point, req.columns, "T", args.data(), args.size(), &spec).ok());
  EXPECT_EQ(render(spec), "[T\\x15\\x01\\x02b\\x00,T\\x15\\x01\\x02b\\x00\\xff)");
  // A NULL (or a value of another class) on any position matches nothing.
  args[1] = arg({null_value()});
  ASSERT_TRUE(b.build(point, req.columns, "T", args.data(), args.size(), &spec).ok());
  EXPECT_EQ(render(spec), "");
  args[1] = arg({below_all()});
  ASSERT_TRUE(b.build(point, req.columns, "T", args.data(), args.size(), &spec).ok());
  EXPECT_EQ(render(spec), "");
  // Two = on one position: both must hold.
  req.constraints = {con(PlanOp::kEq, 0), con(PlanOp::kEq, 0), con(PlanOp::kEq, 1)};
  const Plan twice = plan_scan(req);
  args = {arg({bytes("\x15\x01")}), arg({bytes("\x15\x02")}),
          arg({bytes(std::string("\x02" "b\x00", 3))})};
  ASSERT_TRUE(b.build(twice, req.columns, "T", args.data(), args.size(), &spec).ok());
  EXPECT_EQ(render(spec), "");
  args[1] = arg({bytes("\x15\x01")});
  ASSERT_TRUE(b.build(twice, req.columns, "T", args.data(), args.size(), &spec).ok());
  EXPECT_EQ(render(spec), "[T\\x15\\x01\\x02b\\x00,T\\x15\\x01\\x02b\\x00\\xff)");
}

// The op of `plan`'s one term, read back from describe(); kOther when it
// does not parse or has another number of terms.
PlanOp read_back_op(const Plan& plan, const std::vector<PlanColumn>& columns) {
  Result<Plan> parsed = parse_plan(describe(plan, columns), columns);
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  if (!parsed.ok()) return PlanOp::kOther;
  EXPECT_EQ(parsed->terms.size(), 1u);
  return parsed->terms.size() == 1 ? parsed->terms[0].op : PlanOp::kOther;
}

// The ranges `plan` builds from `args` under prefix T, rendered; "error"
// if it builds none.
std::string built(const Plan& plan, const std::vector<PlanColumn>& columns, std::vector<FilterArg> args) {
  RangeBuilder b;
  ScanSpec spec;
  const Status st = b.build(plan, columns, "T", args.data(), args.size(), &spec);
  EXPECT_TRUE(st.ok()) << st.message();
  return st.ok() ? render(spec) : "error";
}

const std::string kNull(1, '\0');  // the null element
const std::string kB("\x02" "b\x00", 3);

// A nullable position (an index over a nullable column): IS NULL is an
// equality with the null element, exact even where the position is not,
// guessed at twice an equality's rows. Built as planned its argument is
// not read; read back from describe() it is kIs, whose argument (NULL,
// which read_filter_args gives as the null element) says the same.
// A unique index's columns as the leading positions: = on all of them is
// guessed at one row, IS NULL at two, as SQLite guesses them; a plain
// index's at ten and twenty. A prefix of them is no unique run.
TEST(PlanScanTest, AUniquePrefixIsGuessedAtOneRowPerValue) {
  PlanRequest req;
  req.columns = table_columns();
  req.columns[0].nullable = true;
  req.unique = false;  // the positions after the prefix: not a point lookup
  req.constraints = {con(PlanOp::kEq, 0)};
  const double plain = plan_scan(req).rows;
  req.unique_prefix = 1;
  EXPECT_EQ(plan_scan(req).rows, 1);
  EXPECT_EQ(plain, 10);
  req.constraints = {con(PlanOp::kIsNull, 0)};
  EXPECT_EQ(plan_scan(req).rows, 2);
  req.unique_prefix = 2;
  req.constraints = {con(PlanOp::kEq, 0)};
  EXPECT_EQ(plan_scan(req).rows, plain);
}

TEST(RangeBuilderTest, IsNullOnANullablePositionSeeksTheNullElement) {
  PlanRequest req;
  req.columns = table_columns(/*k1_exact=*/false);
  req.columns[0].nullable = true;
  req.unique = true;
  req.constraints = {con(PlanOp::kIsNull, 0)};
  req.order_by = {PlanOrder{0, false}, PlanOrder{1, true}};
  const Plan plan = plan_scan(req);
  ASSERT_EQ(describe(plan, req.columns), "range k1 IS ?1 reverse");
  EXPECT_FALSE(plan.empty);
  EXPECT_EQ(omits(plan), "1");
  EXPECT_TRUE(plan.order_consumed);  // k1 is pinned, k2 follows in key order
  PlanRequest eq = req;
  eq.columns[0].exact = true;
  eq.constraints = {con(PlanOp::kEq, 0)};
  EXPECT_EQ(plan.rows, 2 * plan_scan(eq).rows);
  EXPECT_EQ(read_back_op(plan, req.columns), PlanOp::kIs);
  EXPECT_EQ(built(plan, req.columns, {arg({})}), "[T\\x00,T\\x00\\xff)");
  const Result<Plan> parsed = parse_plan(describe(plan, req.columns), req.columns);
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(built(*parsed, req.columns, {arg({bytes(kNull)})}), "[T\\x00,T\\x00\\xff)");
  // With k2 = 'b': one key, by the point path.
  req.constraints = {con(PlanOp::kEq, 1), con(PlanOp::kIsNull, 0)};
  req.order_by.clear();
  const Plan point = plan_scan(req);
  ASSERT_EQ(describe(point, req.columns), "point k1 IS ?1 AND k2=?2");
  EXPECT_TRUE(point.unique);
  EXPECT_EQ(built(point, req.columns, {arg({}), arg({bytes(kB)})}), "[T\\x00\\x02b\\x00,T\\x00\\x02b\\x00\\xff)");
  // IS NULL and = 1 on one position: nothing.
  req.constraints = {con(PlanOp::kIsNull, 0), con(PlanOp::kEq, 0)};
  EXPECT_EQ(built(plan_scan(req), req.columns, {arg({}), arg({bytes("\x15\x01")})}), "");
  // Not nullable: the plan is empty, as before.
  req.columns[0].nullable = false;
  req.constraints = {con(PlanOp::kIsNull, 0)};
  EXPECT_TRUE(plan_scan(req).empty);
}

// IS value on a nullable position: planned and priced as =, exact where
// the position is; its argument is the value, or the null element for NULL.
TEST(RangeBuilderTest, IsOnANullablePositionIsAnEqualityThatMayBeTheNullElement) {
  PlanRequest req;
  req.columns = table_columns();
  req.columns[0].nullable = true;
  req.unique = true;
  req.constraints = {con(PlanOp::kIs, 0)};
  const Plan plan = plan_scan(req);
  ASSERT_EQ(describe(plan, req.columns), "range k1 IS ?1");
  EXPECT_EQ(omits(plan), "1");
  PlanRequest eq = req;
  eq.constraints = {con(PlanOp::kEq, 0)};
  const Plan eq_plan = plan_scan(eq);
  EXPECT_EQ(plan.rows, eq_plan.rows);
  EXPECT_EQ(plan.cost, eq_plan.cost);
  EXPECT_EQ(read_back_op(plan, req.columns), PlanOp::kIs);
  EXPECT_EQ(built(plan, req.columns, {arg({bytes(kNull)})}), "[T\\x00,T\\x00\\xff)");
  EXPECT_EQ(built(plan, req.columns, {arg({bytes("\x15\x07")})}), "[T\\x15\\x07,T\\x15\\x07\\xff)");
  // With k2 = 'b' as well: one key, by the point path.
  req.constraints = {con(PlanOp::kEq, 1), con(PlanOp::kIs, 0)};
  const Plan point = plan_scan(req);
  ASSERT_EQ(describe(point, req.columns), "point k1 IS ?1 AND k2=?2");
  EXPECT_TRUE(point.unique);
  EXPECT_EQ(built(point, req.columns, {arg({bytes(kNull)}), arg({bytes(kB)})}),
            "[T\\x00\\x02b\\x00,T\\x00\\x02b\\x00\\xff)");
  // Not exact: SQLite checks it.
  req.columns[0].exact = false;
  req.constraints = {con(PlanOp::kIs, 0)};
  EXPECT_EQ(omits(plan_scan(req)), "0");
}

// ---------------------------------------------------------------------------
// Skip-scans

// A (k1, k2, k3) key, all typed (exact) columns.
std::vector<PlanColumn> three_columns() {
  std::vector<PlanColumn> cols = table_columns();
  PlanColumn c;
  c.name = "k3";
  cols.push_back(c);
  return cols;
}

Plan plan_with_distinct(std::vector<PlanConstraint> cs, std::vector<PlanOrder> order,
                        double distinct, std::vector<PlanColumn> cols = three_columns()) {
  PlanRequest req;
  req.columns = std::move(cols);
  req.constraints = std::move(cs);
  req.order_by = std::move(order);
  req.leading_distinct = distinct;
  return plan_scan(req);
}

TEST(SkipScanPlanTest, ChosenOnlyWhenTheFirstPositionHasFewValues) {
  // k2 = ? with k1 free: a full scan unless k1's values are known and few.
  EXPECT_EQ(describe(plan_with_distinct({con(PlanOp::kEq, 1)}, {}, 0), three_columns()), "full");
  const Plan skip = plan_with_distinct({con(PlanOp::kEq, 1)}, {}, 10);
  EXPECT_EQ(describe(skip, three_columns()), "range k2=?1 skip k1");
  EXPECT_TRUE(skip.skip);
  EXPECT_FALSE(skip.unique);
  EXPECT_EQ(omits(skip), "1");
  EXPECT_LT(skip.cost, plan_with_distinct({con(PlanOp::kEq, 1)}, {}, 0).cost);
  // So many values that seeking to each costs more than reading every row.
  EXPECT_EQ(describe(plan_with_distinct({con(PlanOp::kEq, 1)}, {}, 5e5), three_columns()), "full");
  // A constrained first position is sought directly.
  EXPECT_EQ(describe(plan_with_distinct({con(PlanOp::kGt, 0), con(PlanOp::kEq, 1)}, {}, 10),
                     three_columns()),
            "range k1>?1");
  // Nothing usable on k2: nothing to skip to (k3 alone is not enough).
  EXPECT_EQ(describe(plan_with_distinct({con(PlanOp::kEq, 2)}, {}, 10), three_columns()), "full");
  EXPECT_EQ(describe(plan_with_distinct({con(PlanOp::kEq, 1, false)}, {}, 10), three_columns()),
            "full");
  // A one-position key has nothing after its first position.
  EXPECT_EQ(describe(plan_with_distinct({con(PlanOp::kEq, 1)}, {}, 10, kv_columns()), kv_columns()),
            "full");
}

TEST(SkipScanPlanTest, LaterPositionsFollowTheUsualRules) {
  // k2 = and k3 = on a unique key: one lookup per first element.
  Plan p = plan_with_distinct({con(PlanOp::kEq, 2), con(PlanOp::kEq, 1)}, {}, 10);
  EXPECT_EQ(describe(p, three_columns()), "point k2=?1 AND k3=?2 skip k1");
  EXPECT_TRUE(p.point);
  EXPECT_FALSE(p.unique);
  // IN and a range.
  p = plan_with_distinct({con(PlanOp::kIn, 1), con(PlanOp::kLt, 2)}, {}, 10);
  EXPECT_EQ(describe(p, three_columns()), "range k2 IN ?1 AND k3<?2 skip k1");
  // LIMIT and OFFSET are pushed when every term is exact and there is no
  // ORDER BY.
  p = plan_with_distinct({con(PlanOp::kEq, 1), limit(PlanOp::kLimit, 5), limit(PlanOp::kOffset, 1)},
                         {}, 10);
  EXPECT_EQ(describe(p, three_columns()), "range k2=?1 skip k1 limit ?2 offset ?3");
  // ... but not when SQLite must still re-check (an inexact k2).
  std::vector<PlanColumn> any_k2 = three_columns();
  any_k2[1].exact = false;
  p = plan_with_distinct({con(PlanOp::kEq, 1), limit(PlanOp::kLimit, 5)}, {}, 10, any_k2);
  EXPECT_EQ(describe(p, any_k2), "range k2=?1 skip k1");
  EXPECT_EQ(omits(p), "0");
}

TEST(SkipScanPlanTest, OrderByIsConsumedWhenItStartsWithTheSkippedPosition) {
  const std::vector<PlanConstraint> k2_eq = {con(PlanOp::kEq, 1), limit(PlanOp::kLimit, 3)};
  struct Case {
    std::vector<PlanOrder> order;
    bool consumed;
    bool reverse;
    bool limit_pushed;
  };
  const Case cases[] = {
      {{{0, false}}, true, false, true},
      {{{0, true}}, true, true, true},
      {{{0, false}, {2, false}}, true, false, true},  // k2 fixed: k1, k3 is key order
      {{{0, true}, {1, true}, {2, true}}, true, true, true},
      {{{0, false}, {2, true}}, false, false, false},  // mixed directions
      {{{1, false}}, false, false, false},             // k2 alone is not the output order
      {{{2, false}}, false, false, false},
      {{{-1, false}}, false, false, false},
      {{{0, false}, {-1, false}}, false, false, false},  // a value column breaks ties
  };
  for (const Case& c : cases) {
    const Plan p = plan_with_distinct(k2_eq, c.order, 10);
    ASSERT_TRUE(p.skip) << describe(p, three_columns());
    EXPECT_EQ(p.order_consumed, c.consumed) << describe(p, three_columns());
    EXPECT_EQ(p.reverse, c.reverse) << describe(p, three_columns());
    bool pushed = false;
    for (const PlanTerm& t : p.terms) pushed |= t.op == PlanOp::kLimit;
    EXPECT_EQ(pushed, c.limit_pushed) << describe(p, three_columns());
  }
  // An inexact first position never gives SQLite's order.
  std::vector<PlanColumn> any_k1 = three_columns();
  any_k1[0].exact = false;
  const Plan p = plan_with_distinct(k2_eq, {{0, false}}, 10, any_k1);
  ASSERT_TRUE(p.skip);
  EXPECT_FALSE(p.order_consumed);
}

TEST(SkipScanPlanTest, DescriptionsRoundTrip) {
  const Plan p = plan_with_distinct({con(PlanOp::kGe, 1), limit(PlanOp::kLimit, 3)}, {{0, true}}, 10);
  const std::string text = describe(p, three_columns());
  EXPECT_EQ(text, "range k2>=?1 skip k1 reverse limit ?2");
  Result<Plan> back = parse_plan(text, three_columns());
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_TRUE(back->skip);
  EXPECT_TRUE(back->reverse);
  EXPECT_EQ(describe(*back, three_columns()), text);
  for (const char* bad : {"range k2>=?1 skip k2", "range k2>=?1 skip k1 skip k1", "range skip k1",
                          "range k2>=?1 skip"}) {
    EXPECT_FALSE(parse_plan(bad, three_columns()).ok()) << bad;
  }
  // Names that are words of the grammar are quoted, so they read as names.
  std::vector<PlanColumn> odd = three_columns();
  odd[0].name = "skip";
  odd[1].name = "reverse";
  const Plan q = plan_with_distinct({con(PlanOp::kEq, 1)}, {}, 10, odd);
  EXPECT_EQ(describe(q, odd), "range \"reverse\"=?1 skip \"skip\"");
  Result<Plan> q_back = parse_plan(describe(q, odd), odd);
  ASSERT_TRUE(q_back.ok()) << q_back.status().message();
  EXPECT_EQ(describe(*q_back, odd), describe(q, odd));
}

// A filter plan: the skip-scan's terms, checked on every key in one pass.
TEST(SkipScanPlanTest, FilterPlansReadTheWholeKeySpaceOnce) {
  PlanRequest req;
  req.columns = three_columns();
  req.constraints = {con(PlanOp::kGt, 2), con(PlanOp::kEq, 1)};
  req.order_by = {PlanOrder{0, false}, PlanOrder{2, false}};
  const std::optional<Plan> f = plan_filter(req);
  ASSERT_TRUE(f.has_value());
  EXPECT_TRUE(f->skip && f->filter);
  EXPECT_EQ(f->cost, req.table_rows + kSeekCost);
  EXPECT_EQ(describe(*f, req.columns), "filter k2=?1 AND k3>?2");
  EXPECT_TRUE(f->order_consumed);  // key order, as a skip-scan's
  Result<Plan> parsed = parse_plan(describe(*f, req.columns), req.columns);
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_TRUE(parsed->skip && parsed->filter);
  RangeBuilder b;
  ScanSpec spec;
  std::vector<FilterArg> args = {arg({bytes("\x15\x01")}), arg({bytes("\x15\x05")})};
  ASSERT_TRUE(b.build(*parsed, req.columns, "T", args.data(), args.size(), &spec).ok());
  EXPECT_TRUE(spec.skip && spec.filter);
  EXPECT_EQ(render(spec), "[\\x15\\x01\\x15\\x05\\xff,\\x15\\x02)");
  // Not with a term on position 0 (seek there instead), nor without one after it.
  req.constraints = {con(PlanOp::kEq, 0), con(PlanOp::kGt, 1)};
  EXPECT_FALSE(plan_filter(req).has_value());
  req.constraints = {con(PlanOp::kOther, 1)};
  EXPECT_FALSE(plan_filter(req).has_value());
  for (const char* bad : {"filter", "filter k2>?1 skip k1", "filter k1>?1"}) {
    Result<Plan> p = parse_plan(bad, req.columns);
    if (p.ok()) {  // parses, but a term on position 0 cannot be built
      EXPECT_EQ(b.build(*p, req.columns, "T", args.data(), 1, &spec).code(), StatusCode::kInvalidArgument) << bad;
    } else {
      EXPECT_EQ(p.status().code(), StatusCode::kInternal) << bad;
    }
  }
}

TEST(SkipScanPlanTest, RangesAreRelativeToEachFirstElement) {
  const Plan plan = plan_with_distinct({con(PlanOp::kIn, 1), con(PlanOp::kGt, 2)}, {}, 10);
  ASSERT_EQ(describe(plan, three_columns()), "range k2 IN ?1 AND k3>?2 skip k1");
  std::vector<FilterArg> args = {arg({bytes("\x15\x02"), bytes("\x15\x01")}), arg({bytes("\x15\x07")})};
  RangeBuilder b;
  b.element_prefixes = true;
  ScanSpec spec;
  ASSERT_TRUE(b.build(plan, three_columns(), "T", args.data(), args.size(), &spec).ok());
  EXPECT_TRUE(spec.skip);
  EXPECT_FALSE(spec.point);
  // The prefix is left out: the scan adds prefix + first element.
  EXPECT_EQ(render(spec), "[\\x15\\x01\\x15\\x07\\xff,\\x15\\x01\\xff) [\\x15\\x02\\x15\\x07\\xff,\\x15\\x02\\xff)");
  // The builder goes back to plain plans afterwards.
  const Plan direct = plan_with_distinct({con(PlanOp::kEq, 0)}, {}, 10);
  args = {arg({bytes("\x15\x05")})};
  ASSERT_TRUE(b.build(direct, three_columns(), "T", args.data(), args.size(), &spec).ok());
  EXPECT_FALSE(spec.skip);
  EXPECT_EQ(render(spec), "[T\\x15\\x05,T\\x15\\x05\\xff)");
}

// ---------------------------------------------------------------------------
// Patterns

std::string pattern_text(std::string_view p, bool like, uint8_t code = 0) {
  std::vector<std::pair<Bytes, Bytes>> out;
  pattern_ranges(p, like, code, &out);
  std::string s;
  for (auto& [lo, hi] : out) {
    if (!s.empty()) s += ' ';
    s += '[';
    s += printable(lo);
    s += ',';
    s += hi.empty() ? "inf" : printable(hi);
    s += ')';
  }
  return s;
}

TEST(PatternTest, LiteralPrefixes) {
  EXPECT_EQ(pattern_text("abc", false), "[abc,abd)");
  EXPECT_EQ(pattern_text("a?c", false), "[a,b)");
  EXPECT_EQ(pattern_text("a[x]", false), "[a,b)");
  EXPECT_EQ(pattern_text("*", false), "[,inf)");
  EXPECT_EQ(pattern_text("a_c", true), "[A,B) [a,b)");
  EXPECT_EQ(pattern_text("_a", true), "[,inf)");
  // The prefix stops at the first non-ASCII byte (an overlong UTF-8
  // sequence in a BLOB decodes to the same character as the canonical one)
  // and at NUL (SQLite's LIKE stops reading the pattern there).
  EXPECT_EQ(pattern_text("1\xc3\xa9%", true), "[1,2)");
  EXPECT_EQ(pattern_text(std::string_view("1\0" "2", 3), false), "[1,2)");
  // GLOB is case-sensitive, LIKE is not.
  EXPECT_EQ(pattern_text("Ab*", false), "[Ab,Ac)");
  EXPECT_EQ(pattern_text("Ab%", true), "[AB,AC) [Ab,Ac) [aB,aC) [ab,ac)");
  // The element type code leads when given.
  EXPECT_EQ(pattern_text("1%", true, 0x02), "[\\x021,\\x022)");
  EXPECT_EQ(pattern_text("%", true, 0x02), "[\\x02,\\x03)");
}

TEST(PatternTest, ManyLettersExpandFourThenBound) {
  std::vector<std::pair<Bytes, Bytes>> out;
  pattern_ranges("abcdef%", true, 0, &out);
  ASSERT_EQ(out.size(), kMaxPatternRanges);
  EXPECT_EQ(out.front().first, "ABCDEF");
  EXPECT_EQ(out.front().second, "ABCDeg");  // strinc("ABCDef")
  EXPECT_EQ(out.back().first, "abcdEF");
  EXPECT_EQ(out.back().second, "abcdeg");
  for (size_t i = 1; i < out.size(); ++i) {
    EXPECT_LE(out[i - 1].second, out[i].first) << "sorted and disjoint at " << i;
  }
}

// Property: for random keys, every key the SQLite LIKE/GLOB rules could
// match (checked here with a small reference matcher over ASCII keys) lies
// in one of the ranges.
char to_lower_ascii(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }

bool like_match(std::string_view p, std::string_view s, bool like) {
  if (p.empty()) return s.empty();
  const char c = p[0];
  if ((like && c == '%') || (!like && c == '*')) {
    for (size_t i = 0; i <= s.size(); ++i) {
      if (like_match(p.substr(1), s.substr(i), like)) return true;
    }
    return false;
  }
  if (s.empty()) return false;
  if ((like && c == '_') || (!like && c == '?')) return like_match(p.substr(1), s.substr(1), like);
  const bool eq = like ? (to_lower_ascii(c) == to_lower_ascii(s[0])) : c == s[0];
  return eq && like_match(p.substr(1), s.substr(1), like);
}

TEST(PatternTest, RangesCoverEveryMatch) {
  const std::string alphabet = "aAbB1_%";
  uint64_t seed = 12345;
  auto rnd = [&] {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<uint32_t>(seed >> 33);
  };
  for (int iter = 0; iter < 3000; ++iter) {
    std::string p;
    for (int i = 0, n = 1 + rnd() % 6; i < n; ++i) p.push_back(alphabet[rnd() % alphabet.size()]);
    for (bool like : {true, false}) {
      std::string pat = p;
      if (!like) {
        for (char& c : pat) c = c == '%' ? '*' : c == '_' ? '?' : c;
      }
      std::vector<std::pair<Bytes, Bytes>> ranges;
      pattern_ranges(pat, like, 0, &ranges);
      for (int k = 0; k < 30; ++k) {
        std::string s;
        for (int i = 0, n = rnd() % 7; i < n; ++i) s.push_back("aAbB1x"[rnd() % 6]);
        if (!like_match(pat, s, like)) continue;
        bool covered = false;
        for (auto& [lo, hi] : ranges) {
          if (compare_bytes(s, lo) >= 0 && (hi.empty() || compare_bytes(s, hi) < 0)) covered = true;
        }
        EXPECT_TRUE(covered) << "pattern " << pat << " key " << s;
      }
    }
  }
}

}  // namespace
}  // namespace tuplekv
