#pragma once
// The client's side of one connection (docs/proxy.md, "Errors and timeouts"): the socket, reading
// requests within the limits and timeouts, writing answers, lingering after
// a refusal, and noticing a client that leaves while its request is in
// flight. Knows nothing of what a request asks for. Lives in its session's
// coroutine frame on one worker thread, so it needs no locks.

#include <chrono>
#include <span>
#include <string>
#include <string_view>

#include "client_request.h"
#include "core.h"
#include "http_read.h"
#include "request_log.h"

namespace weld::proxy {

/// The header line of weld's own final answers (docs/proxy.md, "Errors and timeouts"; is_final()): the
/// official SDKs do not retry them.
inline constexpr std::string_view kFinalAnswer = "x-should-retry: false\r\n";

class ClientConnection final : public Ticking {
 public:
  ClientConnection(Worker& worker, tcp::socket socket);
  ~ClientConnection();
  ClientConnection(const ClientConnection&) = delete;
  ClientConnection& operator=(const ClientConnection&) = delete;

  /// What reading a request came to.
  enum class ReadResult {
    Complete,  ///< the whole request is here
    Refused,   ///< answered with an error (logged by the caller); close
    Gone,      ///< the client left or the connection ended; close
  };
  /// Between requests: waits (within the idle timeout) until the next
  /// request's first bytes are buffered. False when the connection ended.
  awaitable<bool> wait_for_request();
  /// Reads one request (its first bytes are buffered) within the limits and
  /// timeouts, refusing what a proxy must not forward. Starts a request:
  /// keep-alive, HTTP version and the in-flight flags are this request's.
  awaitable<ReadResult> read_request(ClientRequest& req, RequestLog& log);
  /// After a refusal: reads and discards what the client still sends, for a
  /// moment, so that closing does not reset the connection before the
  /// client read the refusal (nginx's lingering close).
  awaitable<void> linger();
  /// Half-closes, then closes the socket.
  void close();

  /// Writes all of `buffers`: at once when the socket takes it, else
  /// asynchronously within the write timeout. False when the client is gone.
  awaitable<bool> write(std::span<const asio::const_buffer> buffers);
  awaitable<bool> write(std::string_view data);
  /// Sends a complete answer. `extra_headers`: complete header lines
  /// ("name: value\r\n…") added to the head, e.g. kFinalAnswer.
  awaitable<void> send_simple(int status, std::string_view content_type, std::string_view body, RequestLog& log,
                              std::string_view extra_headers = {});
  /// Ends the request with `outcome` and an error in the shape of the API
  /// `log.path` belongs to (final answers with kFinalAnswer).
  awaitable<void> send_error(Outcome outcome, int status, std::string_view type, std::string_view message,
                             RequestLog& log);
  /// "Connection: close\r\n" when this answer ends the connection, else "".
  std::string connection_header();

  /// Client-disconnect detection while a request is in flight: requested
  /// here, started by the watchdog for requests that last (a fast request
  /// never pays for it), stopped (and awaited) before the next read.
  void start_monitor() {
    want_monitor_ = true;
    monitor_ticks_ = 0;
  }
  awaitable<void> stop_monitor();
  /// The upstream connection the request in flight waits on (or nullptr):
  /// closed when the client leaves or the request is abandoned, which
  /// cancels the upstream request.
  void set_in_flight(UpstreamConnection* upstream) { in_flight_ = upstream; }
  UpstreamConnection* in_flight() const { return in_flight_; }
  /// The timer a request's writer sleeps on while its answer is produced
  /// elsewhere: cancelled (waking the writer) when the client leaves.
  asio::steady_timer& waiter() { return waiter_; }

  /// The client left (or a write to it failed) during this request.
  bool gone() const { return gone_; }
  /// A byte of this request's answer was written.
  bool answer_started() const { return answer_started_; }
  /// Waiting for a request's first byte (between requests).
  bool idle() const { return idle_; }
  bool is_open() const { return socket_.is_open(); }
  bool keep_alive() const { return keep_alive_; }
  /// The connection ends after this answer.
  void end_keep_alive() { keep_alive_ = false; }
  /// The client spoke HTTP/1.0 (no chunked framing towards it).
  bool is_http10() const { return http10_; }

  /// Shutdown: closes the connection if it is waiting for a new request.
  void close_if_idle();
  /// End of the shutdown timeout: when no byte of the answer was written,
  /// writes (as far as the socket takes it at once) a 503 in the error
  /// shape of `path`'s API and returns true; then closes the connection and
  /// the upstream connection in flight.
  bool abandon(std::string_view path);
  /// Watchdog: enforces the client deadline; starts watching for a client
  /// disconnect once a request has been in flight for two ticks.
  void on_tick(Deadline::Clock::time_point now) override;

 private:
  /// Reads from the client until `parser` reaches `goal` within `timeout`
  /// (beast::error::timeout after it, end_of_stream when the client closed).
  awaitable<error_code> read(ClientRequest& parser, ParseGoal goal, std::chrono::milliseconds timeout);
  awaitable<ReadResult> refuse(RequestLog& log, Outcome outcome, int status, std::string_view message);
  void arm_monitor();

  Worker& worker_;
  Shared& shared_;
  tcp::socket socket_;
  Deadline deadline_;
  beast::flat_buffer buffer_;
  bool keep_alive_ = true;
  bool idle_ = true;
  bool http10_ = false;
  // The request in flight's.
  bool gone_ = false;
  bool answer_started_ = false;
  bool monitoring_ = false;
  bool want_monitor_ = false;
  int monitor_ticks_ = 0;
  UpstreamConnection* in_flight_ = nullptr;
  asio::steady_timer monitor_done_;
  asio::steady_timer waiter_;
};

}  // namespace weld::proxy
