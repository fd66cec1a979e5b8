#pragma once
// The upstream side: where it is (parsed once), and pooled asynchronous
// connections to it over TCP or TLS. One pool per worker thread, so no locks.

#include <chrono>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <span>
#include <vector>

#include "asio.h"
#include "http_read.h"
#include "upstream_parser.h"
#include "tick.h"
#include "weld/base/result.h"

namespace weld::proxy {

/// The upstream base URL, parsed.
struct UpstreamTarget {
  bool tls = false;
  std::string host;         ///< without brackets
  std::string port;         ///< "80", "443" or as given
  std::string path_prefix;  ///< "" or "/prefix" (no trailing slash)
  std::string host_header;  ///< Host header value
};

/// Parses "http://host[:port][/prefix]" or "https://…". Errors name the URL.
Result<UpstreamTarget> parse_upstream_url(std::string_view url);

/// Where a client's request target goes upstream: the prefix, then the
/// target; a prefix ending in `/v1` does not repeat the `/v1` a client's
/// target starts with. So `--upstream http://host:8000/v1` (the base URL as
/// users give it to OPENAI_BASE_URL) sends `/v1/chat/completions` there, not
/// `/v1/v1/chat/completions`, and a target without `/v1` keeps the prefix's.
std::string upstream_target(const UpstreamTarget& upstream, std::string_view target);

/// One connection to the upstream, plain or TLS. Each operation has a
/// deadline that the worker's watchdog enforces (tick.h): when it passes,
/// the connection is closed and the operation fails with
/// beast::error::timeout.
class UpstreamConnection final : public Ticking {
 public:
  UpstreamConnection(asio::any_io_executor executor, asio::ssl::context* tls_context, TickList& ticks);
  ~UpstreamConnection();
  UpstreamConnection(const UpstreamConnection&) = delete;
  UpstreamConnection& operator=(const UpstreamConnection&) = delete;

  /// Resolves and connects (and handshakes for TLS) within `timeout`.
  awaitable<error_code> connect(const UpstreamTarget& target, std::chrono::milliseconds timeout);
  /// Writes all of `data` within `timeout` (directly when the socket takes
  /// it at once, the common case: no asynchronous operation then).
  awaitable<error_code> write(std::span<const asio::const_buffer> data, std::chrono::milliseconds timeout);
  /// Reads a response header into `parser` within `timeout`.
  /// `after_queued_work`: the first read starts after the handlers queued
  /// on the worker (Worker::busy), not at once.
  awaitable<error_code> read_header(UpstreamParser& parser, std::chrono::milliseconds timeout,
                                    bool after_queued_work = false);
  /// Reads whatever body is available (at least some) within `timeout`.
  awaitable<error_code> read_some(UpstreamParser& parser,
                                  std::chrono::milliseconds timeout);
  /// Aborts pending operations (client went away, shutdown, timeout).
  void close();
  bool is_open() const;
  /// True when this connection may go back to the pool after the response
  /// `parser` read: that response is complete and keep-alive, and nothing
  /// follows it in our buffer. What follows it in the socket (else
  /// the next request would read those bytes as its answer) is checked when
  /// the pool hands it out again (quiet()).
  bool reusable(const UpstreamParser& parser);
  /// True when nothing waits to be read and the peer has not closed: an
  /// idle connection that received anything since its last response is
  /// not reused.
  bool quiet();
  void on_tick(Deadline::Clock::time_point now) override;

  /// Set when it came from the pool (a failure before any response byte may
  /// then be a connection the server closed while idle: retry once).
  bool reused = false;
  std::chrono::steady_clock::time_point idle_since;

 private:
  awaitable<error_code> read_until(UpstreamParser& parser, ParseGoal goal, std::chrono::milliseconds timeout,
                                   bool after_queued_work = false);
  tcp::socket& lowest();
  const tcp::socket& lowest() const;
  std::unique_ptr<tcp::socket> plain_;
  std::unique_ptr<asio::ssl::stream<tcp::socket>> tls_;
  beast::flat_buffer buffer_;
  Deadline deadline_;
  TickList& ticks_;
};

/// Idle keep-alive connections of one worker.
class UpstreamPool {
 public:
  /// An idle connection younger than the idle limit that received nothing
  /// while idle (UpstreamConnection::quiet), or nullptr.
  std::unique_ptr<UpstreamConnection> take();
  /// Returns a connection that is reusable() after its last response.
  void put(std::unique_ptr<UpstreamConnection> connection);
  void clear() { idle_.clear(); }

 private:
  // Node's default keepAliveTimeout is 5 s; staying under it avoids racing
  // the server's close on most upstreams.
  static constexpr std::chrono::milliseconds kMaxIdle{4000};
  static constexpr std::size_t kMaxIdleConnections = 512;
  std::deque<std::unique_ptr<UpstreamConnection>> idle_;
};

}  // namespace weld::proxy
