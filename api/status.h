#pragma once
// Status and StatusOr<T>: how every hpt interface reports failure. No
// exception crosses a library boundary; code that calls a throwing library
// (yaml-cpp, SQLite, cpprestsdk) catches in the one .cc that calls it.

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>

namespace hpt {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,     // HTTP 400
  kNotFound,            // HTTP 404
  kAlreadyExists,       // HTTP 409
  kFailedPrecondition,  // HTTP 409
  kUnauthenticated,     // HTTP 401
  kPermissionDenied,    // HTTP 403
  kResourceExhausted,   // HTTP 413
  kUnavailable,         // HTTP 503
  kInternal,            // HTTP 500
};

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message)
      : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "INVALID_ARGUMENT: name: must be a lowercase DNS label".
  std::string ToString() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

// Upper-case name of a code as Google APIs spell it ("NOT_FOUND").
const char* StatusCodeName(StatusCode code);
// HTTP status a server answers for the code.
int HttpStatusFor(StatusCode code);

inline Status InvalidArgument(std::string m) {
  return Status(StatusCode::kInvalidArgument, std::move(m));
}
inline Status NotFound(std::string m) {
  return Status(StatusCode::kNotFound, std::move(m));
}
inline Status AlreadyExists(std::string m) {
  return Status(StatusCode::kAlreadyExists, std::move(m));
}
inline Status FailedPrecondition(std::string m) {
  return Status(StatusCode::kFailedPrecondition, std::move(m));
}
inline Status Unavailable(std::string m) {
  return Status(StatusCode::kUnavailable, std::move(m));
}
inline Status PermissionDenied(std::string m) {
  return Status(StatusCode::kPermissionDenied, std::move(m));
}
inline Status Internal(std::string m) {
  return Status(StatusCode::kInternal, std::move(m));
}

// Aborts with file:line; for invariants only a bug can break.
#define HPT_CHECK(cond)                                                  \
  do {                                                                   \
    if (!(cond)) {                                                       \
      std::fprintf(stderr, "%s:%d: HPT_CHECK failed: %s\n", __FILE__,    \
                   __LINE__, #cond);                                     \
      std::abort();                                                      \
    }                                                                    \
  } while (0)

// Either a value or a non-OK Status.
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(T value) : value_(std::move(value)) {}  // NOLINT: implicit
  StatusOr(Status status) : status_(std::move(status)) {  // NOLINT: implicit
    HPT_CHECK(!status_.ok());
  }

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }

  T& value() & {
    HPT_CHECK(ok());
    return *value_;
  }
  const T& value() const& {
    HPT_CHECK(ok());
    return *value_;
  }
  T&& value() && {
    HPT_CHECK(ok());
    return std::move(*value_);
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace hpt

// Returns early from the enclosing function when `expr` is not OK.
#define HPT_RETURN_IF_ERROR(expr)       \
  do {                                  \
    ::hpt::Status hpt_status_ = (expr); \
    if (!hpt_status_.ok()) return hpt_status_; \
  } while (0)

#define HPT_CONCAT_INNER(a, b) a##b
#define HPT_CONCAT(a, b) HPT_CONCAT_INNER(a, b)
// HPT_ASSIGN_OR_RETURN(auto x, F()); declares x from F()'s value or returns.
#define HPT_ASSIGN_OR_RETURN(lhs, expr)                          \
  auto HPT_CONCAT(hpt_or_, __LINE__) = (expr);                   \
  if (!HPT_CONCAT(hpt_or_, __LINE__).ok())                       \
    return HPT_CONCAT(hpt_or_, __LINE__).status();               \
  lhs = std::move(HPT_CONCAT(hpt_or_, __LINE__)).value()
