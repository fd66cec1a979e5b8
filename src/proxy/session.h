#pragma once
// One client connection: reads requests (keep-alive, limits, timeouts),
// answers the local endpoints, relays untagged requests byte-for-byte, and
// drives the filter chain for tagged ones. Lives in its coroutine's frame on
// one worker thread, so it needs no locks.

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <span>
#include <vector>

#include "core.h"
#include "client_request.h"
#include "http_read.h"
#include "weld/proxy/outcome.h"
#include "request_trace.h"

namespace weld::proxy {

/// The header line of weld's own final answers (SPEC §3.3, is_final()): the
/// official SDKs do not retry them.
inline constexpr std::string_view kFinalAnswer = "x-should-retry: false\r\n";

/// What the access log says about one request (no bodies, no keys).
struct RequestLog {
  std::string_view method;
  std::string path;
  std::string agent;
  int status = 0;
  Outcome outcome = Outcome::Passthrough;
  int attempts = 0;
  double upstream_seconds = 0;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
};

class Session final : public Ticking {
 public:
  Session(Worker& worker, tcp::socket socket);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  /// Serves requests until the connection closes.
  awaitable<void> run();
  /// Shutdown: closes the connection if it is waiting for a new request.
  void close_if_idle();
  /// End of the shutdown timeout: a request still in flight that has had no
  /// answer yet gets a 503 in its API's error shape (written at once, as far
  /// as the socket takes it); then the connection and its upstream request
  /// are closed. The worker stops right after.
  void abandon();
  /// Watchdog: enforces the client deadline; starts watching for a client
  /// disconnect once a request has been in flight for two ticks.
  void on_tick(Deadline::Clock::time_point now) override;

 private:
  /// What reading a request came to.
  enum class ReadResult {
    Complete,  ///< the whole request is here
    Refused,   ///< answered with an error (logged by the caller); close
    Gone,      ///< the client left or the connection ended; close
  };
  /// Reads one request (its first bytes are buffered or on the way) within
  /// the limits and timeouts, refusing what a proxy must not forward.
  awaitable<ReadResult> read_request(ClientRequest& req, RequestLog& log);
  awaitable<ReadResult> refuse(RequestLog& log, Outcome outcome, int status, std::string_view message);
  /// After a refusal: reads and discards what the client still sends, for a
  /// moment, so that closing does not reset the connection before the
  /// client read the refusal (nginx's lingering close).
  awaitable<void> linger();
  awaitable<void> handle(ClientRequest& req, RequestLog& log);
  awaitable<void> serve_ready(RequestLog& log);

  // relay.cc: untagged requests.
  awaitable<void> relay(ClientRequest& req, RequestLog& log);

  // weld_exchange.cc: tagged requests through the filter chain.
  awaitable<void> weld(ClientRequest& req, Api api, std::string_view agent_header, RequestLog& log);
  awaitable<void> run_attempts(ClientRequest& req, Exchange& ex, FilterChain& chain, RequestLog& log);
  // Logs an exception thrown by the attempts and answers 500 in the client's shape.
  void internal_error(std::exception_ptr failure, Exchange& ex);
  /// One upstream attempt. `partial`: feed `ex.partial` (stream_partial)
  /// with the answer's fragments as they arrive (not for the auto probe).
  awaitable<std::optional<Error>> attempt(ClientRequest& req, Exchange& ex, FilterChain& chain, FilterAction& action,
                                          bool partial = true);
  /// Frames for the streaming client, from the attempts' coroutine: the
  /// waiting loop in weld() writes them (one writer on the socket).
  void queue_frames(std::string_view frames);
  /// The head of a streamed tagged answer sent before the answer is known
  /// (200 text/event-stream, chunked unless HTTP/1.0; x-weld-agent only).
  std::string stream_head(const Exchange& ex, RequestLog& log);
  /// `mechanism: auto`: probes the upstream once per model (the run's probe,
  /// provider/native_probe.h) and welds the request with what it found.
  awaitable<void> resolve_auto(ClientRequest& req, Exchange& ex, FilterChain& chain);

  // Upstream: sends head+body and reads the response header, retrying once
  // on a pooled connection that turned out to be closed.
  awaitable<std::optional<Error>> open_upstream(std::string_view head, std::string_view body,
                                                std::optional<UpstreamParser>& parser,
                                                std::unique_ptr<UpstreamConnection>& connection, bool head_request,
                                                std::chrono::milliseconds connect_timeout,
                                                std::chrono::milliseconds read_timeout);
  /// Reads the rest of a (small) body into `out`, up to `limit` bytes.
  awaitable<error_code> read_body(UpstreamConnection& connection, UpstreamParser& parser, std::string& out,
                                  std::size_t limit, std::chrono::milliseconds timeout);
  void release_upstream(std::unique_ptr<UpstreamConnection> connection, const UpstreamParser& parser);
  std::string upstream_head(const ClientRequest& req, bool tagged, std::size_t body_size) const;

  // Client side.
  /// Reads from the client until `parser` reaches `goal` within `timeout`
  /// (beast::error::timeout after it, end_of_stream when the client closed).
  awaitable<error_code> read_client(ClientRequest& parser, ParseGoal goal,
                                    std::chrono::milliseconds timeout);
  awaitable<bool> write_client(std::span<const asio::const_buffer> buffers);
  awaitable<bool> write_client(std::string_view data);
  /// Sends a complete answer. `extra_headers`: complete header lines
  /// ("name: value\r\n…") added to the head, e.g. kFinalAnswer.
  awaitable<void> send_simple(int status, std::string_view content_type, std::string_view body, RequestLog& log,
                              std::string_view extra_headers = {});
  /// Ends the request with `outcome` and an error in the shape of the API
  /// `log.path` belongs to (final answers with kFinalAnswer).
  awaitable<void> send_error(Outcome outcome, int status, std::string_view type, std::string_view message,
                             RequestLog& log);
  std::string connection_header();

  // Client-disconnect detection while a request is in flight: requested
  // here, started by the watchdog for requests that last (a fast request
  // never pays for it), stopped (and awaited) before the next read.
  void start_monitor() {
    want_monitor_ = true;
    monitor_ticks_ = 0;
  }
  void arm_monitor();
  awaitable<void> stop_monitor();
  void write_log(const RequestLog& log);

  Worker& worker_;
  Shared& shared_;
  RequestTrace trace_;
  tcp::socket socket_;
  Deadline client_deadline_;
  beast::flat_buffer buffer_;
  bool keep_alive_ = true;
  bool idle_ = true;
  bool client_is_http10_ = false;
  // In-flight state.
  bool client_gone_ = false;
  bool answer_started_ = false;  // a byte of this request's answer was written
  std::string path_;             // the request's path, for abandon()'s error shape
  RequestLog* current_log_ = nullptr;  // the request in flight's, for abandon()
  bool monitoring_ = false;
  bool want_monitor_ = false;
  int monitor_ticks_ = 0;
  bool attempts_done_ = false;
  std::exception_ptr attempts_exception_;
  std::string queued_frames_;  // see queue_frames
  UpstreamConnection* current_upstream_ = nullptr;
  asio::steady_timer monitor_done_;
  asio::steady_timer wake_;
};

}  // namespace weld::proxy
