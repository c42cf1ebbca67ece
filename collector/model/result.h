// Result<T>: a value or an error as data. Environment failures (a missing file, EACCES,
// EOPNOTSUPP) are values, not exceptions; exceptions are kept for programming errors.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace rdmatop {

struct Error {
  int code = 0;         ///< errno where one applies, else 0
  std::string message;  ///< human-readable, names the object ("hw_counters/foo: ...")
};

template <class T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
  Result(Error error) : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  bool ok() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return ok(); }
  const T& value() const& { return std::get<T>(v_); }
  T& value() & { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  const T& operator*() const& { return value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return std::get<Error>(v_); }

 private:
  std::variant<T, Error> v_;
};

/// Builds an Error from an errno value: "<what>: <strerror(code)>".
Error errno_error(int code, const std::string& what);

}  // namespace rdmatop
