#pragma once
/// \file
/// `Result<T>`: a value or an `Error`, for failures we expect (I/O, HTTP,
/// bad input). See docs/design.md, "Conventions".

#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace weld {

/// What kind of failure an `Error` is. The set is closed: code that
/// branches on a failure compares these, never message text.
/// `error_code_name` gives each its stable name (JSON events, telemetry's
/// `error.type`).
enum class ErrorCode : unsigned char {
  Answered,  ///< not a failure: a reader stops a transfer early, having what it needs (an MCP answer)
  Args,  ///< a command-line argument is wrong
  Auth,  ///< the server refused the credentials (401/403)
  Cancelled,  ///< the operation was cancelled (SIGINT, a deadline of the caller)
  Config,  ///< a configuration value, option or file is wrong
  Connect,  ///< no connection to a server could be made
  Depth,  ///< JSON nested deeper than allowed
  Http,  ///< an HTTP exchange failed (status, broken stream) after the retries
  Io,  ///< reading or writing a file or stream failed
  Listen,  ///< the proxy could not listen on its address
  Mcp,  ///< an MCP server failed or broke the protocol
  Network,  ///< the network failed (refused, reset, TLS)
  NotFound,  ///< a file or directory does not exist
  NotRegular,  ///< a path is not a regular file (FIFO, device, directory)
  Offline,  ///< the offline model cannot answer
  Outside,  ///< a path is outside the workspace
  Parse,  ///< a JSON text is malformed
  Path,  ///< a path is malformed
  Protocol,  ///< a server's answer does not follow its wire protocol
  Regex,  ///< a regular expression does not compile
  Registry,  ///< the proxy's agent registry is wrong
  RequestTarget,  ///< an HTTP request target is malformed
  RetryableStream,  ///< a stream ended with a temporary error before any content: the request may be retried
  Sample,  ///< the offline model's sample cannot be made
  Schema,  ///< a JSON Schema is invalid
  Session,  ///< a saved session cannot be read or written
  Spawn,  ///< a subprocess could not be started
  Timeout,  ///< a time limit ran out
  TooLarge,  ///< an input or answer is over its size limit
  Truncated,  ///< an answer ended before it was complete
  Unavailable,  ///< a resource is not available now (held by another process, a full disk): trying later may work
  UpstreamStatus,  ///< the proxy's upstream answered with an error status
  Usage,  ///< the command line is used wrongly
};

/// The stable snake_case name of `code`, e.g. "too_large".
constexpr std::string_view error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::Answered: return "answered";
    case ErrorCode::Args: return "args";
    case ErrorCode::Auth: return "auth";
    case ErrorCode::Cancelled: return "cancelled";
    case ErrorCode::Config: return "config";
    case ErrorCode::Connect: return "connect";
    case ErrorCode::Depth: return "depth";
    case ErrorCode::Http: return "http";
    case ErrorCode::Io: return "io";
    case ErrorCode::Listen: return "listen";
    case ErrorCode::Mcp: return "mcp";
    case ErrorCode::Network: return "network";
    case ErrorCode::NotFound: return "not_found";
    case ErrorCode::NotRegular: return "not_regular";
    case ErrorCode::Offline: return "offline";
    case ErrorCode::Outside: return "outside";
    case ErrorCode::Parse: return "parse";
    case ErrorCode::Path: return "path";
    case ErrorCode::Protocol: return "protocol";
    case ErrorCode::Regex: return "regex";
    case ErrorCode::Registry: return "registry";
    case ErrorCode::RequestTarget: return "request_target";
    case ErrorCode::RetryableStream: return "retryable_stream_error";
    case ErrorCode::Sample: return "sample";
    case ErrorCode::Schema: return "schema";
    case ErrorCode::Session: return "session";
    case ErrorCode::Spawn: return "spawn";
    case ErrorCode::Timeout: return "timeout";
    case ErrorCode::TooLarge: return "too_large";
    case ErrorCode::Truncated: return "truncated";
    case ErrorCode::Unavailable: return "unavailable";
    case ErrorCode::UpstreamStatus: return "upstream_status";
    case ErrorCode::Usage: return "usage";
  }
  return "unknown";
}

/// A failure we expected and can describe: what went wrong and where.
struct Error {
  /// What kind of failure it is.
  ErrorCode code = ErrorCode::Io;
  /// Human-readable message, complete on its own (no trailing newline).
  std::string message;
  /// Optional location: a JSON Pointer, a file path, "line 3 column 7", …
  std::string where;
  /// The HTTP status that caused it, when a server answered with one (the
  /// run's `api_error_status`); 0 otherwise.
  int http_status = 0;
  /// A temporary failure (exit 75, docs/design.md "Exit codes"): the server could not be
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
