#pragma once
/// \file
/// The HTTP edge of the providers: a small `Transport` interface (one
/// streaming request, no retries), the libcurl implementation, and
/// `send_with_retries`, which adds the retry policy (429/5xx/connection
/// errors, exponential backoff with jitter, `Retry-After`), maps failures to
/// `Error` codes, and hands the body of a successful response to a consumer.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "weld/base/result.h"
#include "weld/base/setting_names.h"
#include "weld/provider/model.h"
#include "weld/provider/sse.h"
#include "weld/provider/stream_parser.h"

namespace weld::provider {

/// Header list, names as written (compare case-insensitively).
using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

/// The value of header `name` (case-insensitive), or nullptr.
const std::string* find_header(const HttpHeaders& headers, std::string_view name);

/// Default of HttpRequest::max_response_bytes (WELD_MAX_RESPONSE_BYTES).
inline constexpr std::uint64_t kDefaultMaxResponseBytes = 64u << 20;

/// One HTTP request.
struct HttpRequest {
  std::string method = "POST";
  std::string url;
  HttpHeaders headers;
  std::string body;
  /// Longest wait for the TCP/TLS connection.
  std::chrono::milliseconds connect_timeout{10'000};
  /// Longest silence (no byte received) once the request is sent.
  std::chrono::milliseconds idle_timeout{120'000};
  /// Longest time the whole exchange may take, 0 for no limit (telemetry's
  /// exit flush: its budget). Running out ends it as a timeout.
  std::chrono::milliseconds total_timeout{0};
  /// Most body bytes accepted from one response (an endless
  /// stream must not grow memory without limit); more is a "too_large"
  /// error from send_with_retries, never retried.
  std::uint64_t max_response_bytes = kDefaultMaxResponseBytes;
  /// The setting that raises the cap, named in the "too_large" error
  /// (SettingNames::max_response_bytes; the CLI's `--max-response-bytes`).
  std::string_view max_response_bytes_setting = SettingNames{}.max_response_bytes;
};

/// Receives one response as it arrives.
class ResponseSink {
 public:
  virtual ~ResponseSink() = default;
  /// The status and headers; called once, before any body byte.
  virtual void on_headers(int status, const HttpHeaders& headers) = 0;
  /// A body chunk. Return false to stop the transfer (the transport then
  /// reports `TransportOutcome::Kind::Aborted`).
  virtual bool on_body(std::string_view chunk) = 0;
  /// Whether the last chunk was progress. A chunk that only keeps the
  /// connection alive (SSE comments) is not, and does not restart the idle
  /// clock (docs/run.md, "Limits": an endless stream of comments must time out).
  virtual bool last_chunk_was_progress() const { return true; }
  /// True once the body holds a whole answer (its terminal event arrived):
  /// a transport then waits only `kAfterTerminalEvent` more for the end of
  /// the response, and reports it `Complete` if the connection stays open.
  virtual bool complete() const { return false; }
};

/// How long a transport waits for the end of a response whose body is
/// already complete (ResponseSink::complete) before it ends the transfer
/// itself: a server that keeps the connection open after the terminal event
/// does not cost the idle timeout (docs/protocols.md, "End of stream").
inline constexpr std::chrono::milliseconds kAfterTerminalEvent{1000};

/// How a transfer ended, below HTTP semantics.
struct TransportOutcome {
  enum class Kind {
    Complete,        ///< the whole response was received (any status)
    ConnectFailed,   ///< DNS, refused, unreachable, proxy: nothing was sent back
    ConnectTimeout,  ///< the connection was not established in time
    IdleTimeout,     ///< no byte for `idle_timeout`
    ConnectionLost,  ///< the peer closed or reset mid-response
    Tls,             ///< certificate or TLS failure (not retried)
    Cancelled,       ///< the CancelToken was set
    Aborted,         ///< the sink returned false
    Other,
  };
  Kind kind = Kind::Complete;
  /// The transport's own description (libcurl's error text), for messages.
  std::string detail;
  /// Whether `on_headers` was called.
  bool got_headers = false;
};

/// One request of `Transport::perform_all` and where its response goes.
struct HttpCall {
  const HttpRequest* request = nullptr;
  ResponseSink* sink = nullptr;
};

/// Sends one request, no retries. Implementations check `cancel` at least
/// every 100 ms and return within that time once it is set. One call
/// (perform or perform_all) at a time per transport.
class Transport {
 public:
  virtual ~Transport() = default;
  virtual TransportOutcome perform(const HttpRequest& request, ResponseSink& sink,
                                   CancelToken& cancel) = 0;
  /// Sends independent requests together and returns their outcomes in
  /// order: at once over parallel connections (libcurl), or one after the
  /// other (this default). Telemetry's exit flush sends its traces and
  /// metrics this way, so that the exit waits for one round trip, not two.
  virtual std::vector<TransportOutcome> perform_all(const std::vector<HttpCall>& calls, CancelToken& cancel);
};

/// Proxy and TLS settings of the libcurl transport. Empty strings mean none.
struct NetworkSettings {
  /// Proxy for https:// URLs (HTTPS_PROXY / https_proxy / ALL_PROXY).
  std::string https_proxy;
  /// Proxy for http:// URLs (http_proxy / HTTP_PROXY / ALL_PROXY).
  std::string http_proxy;
  /// Hosts that bypass the proxy (NO_PROXY / no_proxy), curl syntax.
  std::string no_proxy;
  /// CA bundle file (SSL_CERT_FILE / CURL_CA_BUNDLE); empty: the system store.
  std::string ca_bundle;
};

/// The libcurl transport (a `CurlMulti`, polled every 50 ms for
/// cancellation and idle time). Proxies are taken from `settings` only, never
/// read from the process environment behind the caller's back.
std::unique_ptr<Transport> make_curl_transport(const NetworkSettings& settings);

/// Retry behaviour of `send_with_retries`.
struct RetryPolicy {
  /// Retries after the first attempt (so max_retries + 1 attempts).
  int max_retries = 3;
  /// Backoff before retry n (from 0): initial_backoff * 2^n, at most
  /// max_backoff, times a random factor in [0.5, 1] (jitter).
  std::chrono::milliseconds initial_backoff{500};
  std::chrono::milliseconds max_backoff{8'000};
  /// A server's Retry-After longer than this is capped to it.
  std::chrono::milliseconds max_retry_after{60'000};
};

/// Sleeps `duration` unless `cancel` is set first; returns false when
/// cancelled. Replaceable in tests so retries need no wall-clock time.
using Sleeper = std::function<bool(std::chrono::milliseconds duration, CancelToken& cancel)>;

/// The real sleeper: sleeps in slices of at most 50 ms, checking `cancel`.
bool sleep_unless_cancelled(std::chrono::milliseconds duration, CancelToken& cancel);

/// Parses a Retry-After value: delta-seconds ("2", "1.5") or an HTTP date
/// (RFC 9110 IMF-fixdate, relative to `now`). nullopt when unparsable.
std::optional<std::chrono::milliseconds> parse_retry_after(
    std::string_view value, std::chrono::system_clock::time_point now);

/// The wait a response asks for: its `retry-after-ms` header (milliseconds,
/// as OpenAI sends), else its `Retry-After`; nullopt when neither parses.
std::optional<std::chrono::milliseconds> retry_after_of(const HttpHeaders& headers,
                                                         std::chrono::system_clock::time_point now);

/// Receives the body of a 2xx response for one attempt.
class BodyConsumer {
 public:
  virtual ~BodyConsumer() = default;
  /// Content-Type of the response (before the first `on_data`).
  virtual void on_start(const HttpHeaders& headers) {}
  /// A body chunk. An error stops the transfer; it is returned as is,
  /// unless its code is `ErrorCode::RetryableStream` or it is `temporary`:
  /// then the attempt is retried like a 5xx (e.g. Anthropic's in-stream
  /// `overloaded_error`).
  virtual Status on_data(std::string_view chunk) = 0;
  /// The body ended (the response completed, or the connection closed after
  /// `complete()`). An error is handled as one from `on_data`: a stream that
  /// ended before its terminal event returns a `temporary` one and is sent
  /// again.
  virtual Status on_end() { return Ok{}; }
  /// True once the body holds a whole answer (ResponseSink::complete).
  virtual bool complete() const { return false; }
};

/// Everything `send_with_retries` needs besides the request.
struct SendContext {
  Transport* transport = nullptr;
  RetryPolicy policy;
  Sleeper sleep = sleep_unless_cancelled;
  /// Source of jitter in [0, 1); default: a per-call random engine.
  std::function<double()> random;
  /// Secret to scrub from every message (the API key).
  std::string secret;
};

/// What an HTTP status means for a request (the one rule, docs/protocols.md
/// "Errors and retries"; used by the run, the batch, the models list, MCP and
/// the proxy).
enum class StatusVerdict {
  Success,    ///< 2xx
  Refused,    ///< 401/403: the credentials (exit 41), never retried
  Temporary,  ///< 408, 429, 500, 502, 503, 504, 520-524, 529: retried, then exit 75
  Final,      ///< any other status (400, 404, 409, 422, 501, 505, …): not retried, exit 1
};

/// The verdict on `status`; an `x-should-retry: true|false` header (the one
/// the official OpenAI and Anthropic SDKs obey, and weld's proxy sends)
/// overrides it for a status that is not 2xx, 401 or 403.
StatusVerdict judge_status(int status, const HttpHeaders& headers = {});

/// Sends `request`, retrying what `judge_status` calls temporary, connection
/// failures, and a stream its consumer found cut (a `temporary` consumer
/// error); passes a 2xx body to the consumer made by `new_consumer` for that
/// attempt. Error codes: "auth" (401/403, never retried), "http" (other
/// statuses; the message quotes the server's error text on one line),
/// "network", "timeout", "cancelled", and the consumer's own errors. An error
/// is `temporary` exactly when it was retried. Usage:
/// \code
///   SendContext ctx;
///   ctx.transport = transport.get();
///   MyConsumer consumer;  // reset by the lambda for each attempt
///   Status st = send_with_retries(ctx, request, [&]() -> BodyConsumer& { consumer = {}; return consumer; }, cancel);
/// \endcode
Status send_with_retries(const SendContext& context, const HttpRequest& request,
                         const std::function<BodyConsumer&()>& new_consumer, CancelToken& cancel);

/// True when `url`'s authority carries userinfo (`user:password@host`).
/// weld refuses such URLs (--base-url, the proxy's --upstream), so a
/// password can never reach a message, a log or a file; the message for it
/// never repeats the URL.
bool url_has_credentials(std::string_view url);

/// `base` with `path` ("chat/completions", "/v1/traces") appended to its
/// path, before any query or fragment: some gateways take the key in the
/// query (`https://gw/v1?api-key=…` → `https://gw/v1/chat/completions?api-key=…`).
/// Trailing slashes of the base path are dropped first.
std::string url_with_path(std::string_view base, std::string_view path);

/// `url` as it may be shown (errors, logs, warnings): without its query and
/// fragment (shown as "?…" when there was one) and without userinfo — either
/// may hold a key.
std::string url_for_messages(std::string_view url);

/// Replaces each occurrence of `secret` in `text`, in any ASCII letter case,
/// with "[REDACTED]" (secrets shorter than 4 bytes are left alone: too short
/// to be keys, too common to replace).
std::string redact(std::string_view text, std::string_view secret);

/// The server's error text from an error body, on one line of at most about
/// 300 bytes: `error.message` (OpenAI, Anthropic), a top-level `message`
/// (vLLM) or `detail`; for an HTML page its title ("an HTML page: 502 Bad
/// Gateway"), never the page; for other text its first line. `with_type`
/// adds the error's type in parentheses ("model: x (not_found_error)").
std::string error_text_from_body(std::string_view body, bool with_type = true);

}  // namespace weld::provider
