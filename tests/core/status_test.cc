// Status and Result<T>: what each factory records (code, message, constraint
// kind, native code), that copies and moves keep all of it, and that the
// early-return macros stop at the first error and pass values through,
// since every fallible path in core/ is written with them.
#include "core/status.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace tuplekv {
namespace {

TEST(StatusTest, DefaultIsOk) {
  const Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kOk);
  EXPECT_EQ(s.message(), "");
  EXPECT_EQ(s.constraint(), ConstraintKind::kNone);
  EXPECT_EQ(s.native_code(), 0);
  EXPECT_TRUE(Status::OK().ok());
  EXPECT_EQ(Status::OK(), s);
}

TEST(StatusTest, EachFactoryRecordsItsCodeAndMessage) {
  const std::vector<std::pair<Status, StatusCode>> cases = {
      {Status::InvalidArgument("m1"), StatusCode::kInvalidArgument},
      {Status::TypeMismatch("m2"), StatusCode::kTypeMismatch},
      {Status::NotFound("m3"), StatusCode::kNotFound},
      {Status::Corruption("m4"), StatusCode::kCorruption},
      {Status::TooBig("m5"), StatusCode::kTooBig},
      {Status::NotSupported("m6"), StatusCode::kNotSupported},
      {Status::Internal("m7"), StatusCode::kInternal},
  };
  int n = 0;
  for (const auto& [s, code] : cases) {
    EXPECT_FALSE(s.ok());
    EXPECT_EQ(s.code(), code);
    EXPECT_EQ(s.message(), std::string("m").append(std::to_string(++n)));
    EXPECT_EQ(s.constraint(), ConstraintKind::kNone);
    EXPECT_EQ(s.native_code(), 0);
  }
  const Status nomem = Status::NoMemory();
  EXPECT_EQ(nomem.code(), StatusCode::kNoMemory);
  EXPECT_EQ(nomem.message(), "out of memory");
}

TEST(StatusTest, ConstraintAndNativeKeepTheirDetail) {
  const Status c = Status::Constraint(ConstraintKind::kUnique, "UNIQUE constraint failed: t.a");
  EXPECT_EQ(c.code(), StatusCode::kConstraint);
  EXPECT_EQ(c.constraint(), ConstraintKind::kUnique);
  EXPECT_EQ(c.message(), "UNIQUE constraint failed: t.a");
  EXPECT_EQ(Status::Constraint(ConstraintKind::kNotNull, "").constraint(),
            ConstraintKind::kNotNull);

  const Status n = Status::Native(StatusCode::kBusy, 5, "database is locked");
  EXPECT_EQ(n.code(), StatusCode::kBusy);
  EXPECT_EQ(n.native_code(), 5);
  EXPECT_EQ(n.message(), "database is locked");
  EXPECT_EQ(n.constraint(), ConstraintKind::kNone);
}

TEST(StatusTest, WithContextPrefixesTheMessageAndKeepsTheRest) {
  const Status n = Status::Native(StatusCode::kIOError, 266, "disk I/O error");
  const Status w = n.with_context("tuplekv_kv");
  EXPECT_EQ(w.message(), "tuplekv_kv: disk I/O error");
  EXPECT_EQ(w.code(), StatusCode::kIOError);
  EXPECT_EQ(w.native_code(), 266);
  EXPECT_EQ(n.message(), "disk I/O error");  // the original is unchanged
  EXPECT_EQ(Status::Constraint(ConstraintKind::kPrimaryKey, "x").with_context("t").constraint(),
            ConstraintKind::kPrimaryKey);
  // Context on success stays success, with no message to prefix.
  EXPECT_TRUE(Status::OK().with_context("t").ok());
  EXPECT_EQ(Status::OK().with_context("t").message(), "");
}

TEST(StatusTest, EqualityComparesEveryField) {
  EXPECT_EQ(Status::NotFound("a"), Status::NotFound("a"));
  EXPECT_FALSE(Status::NotFound("a") == Status::NotFound("b"));
  EXPECT_FALSE(Status::NotFound("a") == Status::Internal("a"));
  EXPECT_FALSE(Status::OK() == Status::Internal(""));
  // What SQLite would be told differs, so the statuses do.
  EXPECT_FALSE(Status::Constraint(ConstraintKind::kUnique, "x") ==
               Status::Constraint(ConstraintKind::kPrimaryKey, "x"));
  EXPECT_FALSE(Status::Native(StatusCode::kBusy, 5, "m") == Status::Native(StatusCode::kBusy, 517, "m"));
  EXPECT_EQ(Status::Native(StatusCode::kBusy, 517, "m"), Status::Native(StatusCode::kBusy, 517, "m"));
}

TEST(StatusTest, CopiesAndMovesKeepEverything) {
  const Status original = Status::Native(StatusCode::kBusy, 517, "busy");
  const Status copy = original;  // NOLINT(performance-unnecessary-copy-initialization)
  EXPECT_EQ(copy.code(), StatusCode::kBusy);
  EXPECT_EQ(copy.native_code(), 517);
  EXPECT_EQ(copy.message(), "busy");
  Status moved = Status::Constraint(ConstraintKind::kCheck, std::string(100, 'x'));
  Status target = std::move(moved);
  EXPECT_EQ(target.code(), StatusCode::kConstraint);
  EXPECT_EQ(target.constraint(), ConstraintKind::kCheck);
  EXPECT_EQ(target.message(), std::string(100, 'x'));
  target = original;
  EXPECT_EQ(target.native_code(), 517);
  EXPECT_EQ(target.constraint(), ConstraintKind::kNone);
}

TEST(ResultTest, HoldsAValueOrAnError) {
  Result<std::string> v = std::string("abc");
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v.status().ok());
  EXPECT_EQ(v.value(), "abc");
  EXPECT_EQ(*v, "abc");
  EXPECT_EQ(v->size(), 3u);
  v->push_back('d');  // value() is the stored value, not a copy
  EXPECT_EQ(*v, "abcd");

  const Result<std::string> e = Status::Native(StatusCode::kBusy, 5, "locked");
  EXPECT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), StatusCode::kBusy);
  EXPECT_EQ(e.status().native_code(), 5);
  EXPECT_EQ(e.status().message(), "locked");
}

TEST(ResultTest, MovesAValueOut) {
  Result<std::unique_ptr<int>> r = std::make_unique<int>(7);
  std::unique_ptr<int> p = std::move(r).value();
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(*p, 7);
}

TEST(ResultTest, AnOkStatusWithoutAValueIsAnInternalError) {
  // A function that returns Status::OK() as a Result<int> has a bug; the
  // caller must see a failure, not a success with nothing assigned.
  const Result<int> r = Status::OK();
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInternal);
  int out = -1;
  const Status s = [&]() -> Status {
    TUPLEKV_ASSIGN_OR_RETURN(out, Result<int>(Status::OK()));
    return Status::OK();
  }();
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_EQ(out, -1);
}

// Runs `steps` in order through the macros, recording each one that ran.
Status run_steps(const std::vector<Status>& steps, std::vector<int>* ran) {
  for (size_t i = 0; i < steps.size(); ++i) {
    TUPLEKV_RETURN_IF_ERROR((ran->push_back(static_cast<int>(i)), steps[i]));
  }
  return Status::OK();
}

TEST(StatusMacrosTest, ReturnIfErrorStopsAtTheFirstError) {
  std::vector<int> ran;
  EXPECT_TRUE(run_steps({Status(), Status(), Status()}, &ran).ok());
  EXPECT_EQ(ran, (std::vector<int>{0, 1, 2}));
  ran.clear();
  const Status s = run_steps({Status(), Status::TooBig("first"), Status::Internal("second")}, &ran);
  EXPECT_EQ(s, Status::TooBig("first"));
  EXPECT_EQ(ran, (std::vector<int>{0, 1}));  // evaluated once, then stopped
}

Result<int> parse_digit(char c, int* calls) {
  ++*calls;
  if (c < '0' || c > '9') return Status::InvalidArgument(std::string("not a digit: ") + c);
  return c - '0';
}

// Two assignments in one function, one to a new and one to an existing name.
Result<int> add_digits(char a, char b, int* calls) {
  TUPLEKV_ASSIGN_OR_RETURN(const int x, parse_digit(a, calls));
  int y = -1;
  TUPLEKV_ASSIGN_OR_RETURN(y, parse_digit(b, calls));
  return x + y;
}

TEST(StatusMacrosTest, AssignOrReturnPassesValuesAndTheFirstError) {
  int calls = 0;
  Result<int> r = add_digits('3', '4', &calls);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, 7);
  EXPECT_EQ(calls, 2);

  calls = 0;
  r = add_digits('x', 'y', &calls);
  EXPECT_EQ(r.status(), Status::InvalidArgument("not a digit: x"));
  EXPECT_EQ(calls, 1);
  r = add_digits('1', 'y', &calls);
  EXPECT_EQ(r.status(), Status::InvalidArgument("not a digit: y"));
}

Status take_pointer(Result<std::unique_ptr<int>> in, int* out) {
  TUPLEKV_ASSIGN_OR_RETURN(std::unique_ptr<int> p, std::move(in));
  *out = *p;
  return Status::OK();
}

TEST(StatusMacrosTest, AssignOrReturnMovesMoveOnlyValues) {
  int out = 0;
  EXPECT_TRUE(take_pointer(std::make_unique<int>(9), &out).ok());
  EXPECT_EQ(out, 9);
  EXPECT_EQ(take_pointer(Status::NotFound("gone"), &out), Status::NotFound("gone"));
  EXPECT_EQ(out, 9);
}

}  // namespace
}  // namespace tuplekv
