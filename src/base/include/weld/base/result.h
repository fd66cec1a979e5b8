#pragma once
/// \file
/// `Result<T>`: a value or an `Error`, for failures we expect (I/O, HTTP,
/// bad input). See STYLE.md "Errors: values for what we expect".

#include <string>
#include <utility>
#include <variant>

namespace weld {

/// A failure we expected and can describe: what went wrong and where.
struct Error {
  /// Short machine-readable code, e.g. "parse", "io", "http_401".
  std::string code;
  /// Human-readable message, complete on its own (no trailing newline).
  std::string message;
  /// Optional location: a JSON Pointer, a file path, "line 3 column 7", …
  std::string where;
  /// The HTTP status that caused it, when a server answered with one (the
  /// run's `api_error_status`); 0 otherwise.
  int http_status = 0;
  /// A temporary failure (SPEC §2.5, exit 75): the server could not be
  /// reached, or kept answering 408/429/5xx or breaking streams after the
  /// retries — the same request may well succeed later.
  bool temporary = false;
};

/// Holds either a `T` or an `Error`. Usage:
/// \code
///   weld::Result<int> r = parse_port("80");
///   if (!r) return r.error();
///   use(*r);
/// \endcode
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : data_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  Result(Error error) : data_(std::in_place_index<1>, std::move(error)) {}  // NOLINT

  /// True when a value is held.
  bool ok() const { return data_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(data_); }
  const T& value() const& { return std::get<0>(data_); }
  T&& value() && { return std::get<0>(std::move(data_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  /// The error; only valid when `!ok()`.
  const Error& error() const { return std::get<1>(data_); }

 private:
  std::variant<T, Error> data_;
};

/// `Result<void>` stand-in: success or an `Error`.
struct Ok {};
using Status = Result<Ok>;

}  // namespace weld
