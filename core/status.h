// Status and Result<T>: how core/ reports failure.
//
// core/ never throws. Every fallible function returns a Status, or a
// Result<T> carrying either a value or a non-OK Status. The ext/ boundary
// maps codes to SQLite result codes in exactly one place.
//
// Codes, and when to use each:
//   kInvalidArgument  bad input from the caller (malformed JSON, bad option)
//   kTypeMismatch     a value that a typed column cannot hold
//   kConstraint       a uniqueness / NOT NULL violation; subcode says which
//   kNotFound         absence, only where absence is an error
//   kCorruption       stored or supplied bytes that do not decode
//   kTooBig           over a FoundationDB size limit
//   kNoMemory         allocation failure
//   kBusy, kIOError   from a store; native_code() carries the store's own code
//   kNotSupported     a valid request this build cannot serve
//   kInternal         a broken invariant (a bug in tuplekv)
#ifndef TUPLEKV_CORE_STATUS_H_
#define TUPLEKV_CORE_STATUS_H_

#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace tuplekv {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,
  kTypeMismatch,
  kConstraint,
  kNotFound,
  kCorruption,
  kTooBig,
  kNoMemory,
  kBusy,
  kIOError,
  kNotSupported,
  kInternal,
};

// Which constraint a kConstraint status is about.
enum class ConstraintKind { kNone = 0, kPrimaryKey, kNotNull, kUnique, kCheck };

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK

  static Status OK() { return Status(); }
  static Status InvalidArgument(std::string msg) {
    return Status(StatusCode::kInvalidArgument, std::move(msg));
  }
  static Status TypeMismatch(std::string msg) {
    return Status(StatusCode::kTypeMismatch, std::move(msg));
  }
  static Status Constraint(ConstraintKind kind, std::string msg) {
    Status s(StatusCode::kConstraint, std::move(msg));
    s.constraint_ = kind;
    return s;
  }
  static Status NotFound(std::string msg) {
    return Status(StatusCode::kNotFound, std::move(msg));
  }
  // The single constructor every decoder uses for bytes that do not decode,
  // so one breakpoint here catches the first sign of corruption.
  static Status Corruption(std::string msg);
  static Status TooBig(std::string msg) {
    return Status(StatusCode::kTooBig, std::move(msg));
  }
  static Status NoMemory() { return Status(StatusCode::kNoMemory, "out of memory"); }
  static Status NotSupported(std::string msg) {
    return Status(StatusCode::kNotSupported, std::move(msg));
  }
  static Status Internal(std::string msg) {
    return Status(StatusCode::kInternal, std::move(msg));
  }
  // A failure reported by a backing store, keeping the store's own result
  // code (e.g. an SQLite extended result code) so it can pass through.
  static Status Native(StatusCode code, int native_code, std::string msg) {
    Status s(code, std::move(msg));
    s.native_ = native_code;
    return s;
  }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  ConstraintKind constraint() const { return constraint_; }
  int native_code() const { return native_; }  // 0 when none

  // Returns a copy whose message is `prefix + ": " + message()`.
  Status with_context(std::string_view prefix) const;

  // Every field: two failures that SQLite would report with different
  // codes are different.
  bool operator==(const Status& o) const {
    return code_ == o.code_ && constraint_ == o.constraint_ && native_ == o.native_ &&
           message_ == o.message_;
  }

 private:
  Status(StatusCode code, std::string msg) : code_(code), message_(std::move(msg)) {}

  StatusCode code_ = StatusCode::kOk;
  ConstraintKind constraint_ = ConstraintKind::kNone;
  int native_ = 0;
  std::string message_;
};

// Either a T or a non-OK Status. Made from an OK status (a bug: there is
// no value to hold), it holds an internal error instead, in every build, so
// that TUPLEKV_ASSIGN_OR_RETURN fails rather than succeeding with nothing
// assigned.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status)  // NOLINT: implicit by design
      : v_(status.ok() ? Status::Internal("tuplekv internal error: a result with neither value nor error")
                       : std::move(status)) {}

  bool ok() const { return std::holds_alternative<T>(v_); }
  Status status() const { return ok() ? Status() : std::get<Status>(v_); }

  // REQUIRES: ok()
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace tuplekv

#define TUPLEKV_CONCAT_INNER_(a, b) a##b
#define TUPLEKV_CONCAT_(a, b) TUPLEKV_CONCAT_INNER_(a, b)

// Evaluates `expr` (a Status); returns it from the enclosing function if not OK.
#define TUPLEKV_RETURN_IF_ERROR(expr)                   \
  do {                                                  \
    ::tuplekv::Status tuplekv_status_ = (expr);         \
    if (!tuplekv_status_.ok()) return tuplekv_status_;  \
  } while (0)

// `TUPLEKV_ASSIGN_OR_RETURN(auto x, result_expr);`
#define TUPLEKV_ASSIGN_OR_RETURN(lhs, rexpr) \
  TUPLEKV_ASSIGN_OR_RETURN_IMPL_(TUPLEKV_CONCAT_(tuplekv_result_, __LINE__), lhs, rexpr)
#define TUPLEKV_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, rexpr) \
  auto tmp = (rexpr);                                   \
  if (!tmp.ok()) return tmp.status();                   \
  lhs = std::move(tmp).value()

#endif  // TUPLEKV_CORE_STATUS_H_
