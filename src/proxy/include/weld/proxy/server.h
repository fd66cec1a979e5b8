#pragma once
/// \file
/// `weld proxy`'s HTTP/1.1 server (docs/proxy.md; docs/design.md, "Three ways to wait"): asynchronous (Boost.Asio/Beast),
/// one io_context per worker thread, each with its own SO_REUSEPORT listener,
/// upstream connections pooled per worker. Untagged requests are relayed
/// byte-for-byte; tagged ones run the filter chain (filter.h).
///
/// \code
///   weld::proxy::ServerConfig config;
///   config.listen = "127.0.0.1:8787";
///   config.upstream = "http://127.0.0.1:8000";
///   config.agents_path = "agents.json";
///   config.log = [](std::string_view line) { std::cerr << line << '\n'; };
///   auto server = weld::proxy::Server::create(config);   // Result<unique_ptr<Server>>
///   if (!server) return fail(server.error());
///   (*server)->run();   // until SIGTERM/SIGINT; SIGHUP reloads the registry
/// \endcode

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "weld/base/result.h"
#include "weld/proxy/filter.h"
#include "weld/proxy/registry.h"
#include "weld/telemetry/telemetry.h"

namespace weld::proxy {

/// Everything `weld proxy` can be told.
struct ServerConfig {
  /// "host:port" to listen on (port 0: any free port, see `Server::port()`;
  /// an empty host, ":8787", is every IPv4 interface).
  std::string listen = "127.0.0.1:8787";
  /// Upstream base URL, http:// or https://, optionally with a path prefix.
  std::string upstream = "http://127.0.0.1:8000";
  /// Registry file; empty means the built-in default registry.
  std::string agents_path;
  /// Worker threads (0: the number of cores, at most 2 by default... see cli).
  unsigned threads = 2;
  /// Pin worker thread i to the i-th CPU the process may run on (cycling
  /// when there are more threads than CPUs), like nginx's
  /// `worker_cpu_affinity auto`: a worker is then never migrated, which on a
  /// busy machine thins the latency tail (docs/bench-proxy.md, "Pinned
  /// workers"). Off by default: on a machine shared with other busy
  /// services, a pinned worker cannot move away from them.
  bool pin_threads = false;
  /// Per-read upstream timeout: time to the first byte, and the longest
  /// silence inside a streamed answer (a stall).
  std::chrono::milliseconds upstream_timeout{300000};
  /// Connecting to the upstream (TCP + TLS handshake).
  std::chrono::milliseconds connect_timeout{10000};
  /// Client: an idle keep-alive connection is closed after this.
  std::chrono::milliseconds idle_timeout{75000};
  /// Client: the request header must arrive within this once started.
  std::chrono::milliseconds header_timeout{30000};
  /// Client: the request body must arrive within this.
  std::chrono::milliseconds body_timeout{60000};
  /// Client: one write may take this long (a client that stops reading).
  std::chrono::milliseconds write_timeout{60000};
  /// Streaming tagged clients get a keep-alive frame this often while waiting.
  std::chrono::milliseconds keepalive_interval{5000};
  /// SIGTERM: in-flight requests get this long to finish.
  std::chrono::milliseconds shutdown_timeout{30000};
  /// How often the registry file is checked for changes (0: never).
  std::chrono::milliseconds reload_poll{1000};
  /// Request limits (413 / 431 beyond).
  std::uint64_t max_body_bytes = 32ull << 20;
  std::uint32_t max_header_bytes = 64u << 10;
  /// The most a tagged request's upstream answer may send, per attempt (SSE
  /// framing included); beyond it the client gets a 502 naming the limit.
  /// Untagged answers are relayed as they come and never held, so they
  /// have no limit.
  std::uint64_t max_response_bytes = 16ull << 20;
  /// Skip TLS certificate verification of an https upstream.
  bool upstream_insecure = false;
  /// Path probed by /readyz.
  std::string ready_path = "/v1/models";
  /// Filters for tagged requests (names from `builtin_filters()` or `filters`); empty: `default_chain()`.
  std::vector<std::string> chain;
  /// An embedder's (or a test's) own filters, added to `builtin_filters()`
  /// (a built-in name is replaced) for `chain` to name.
  FilterRegistry filters;
  /// One JSON line per request on `log` (method, path, agent, status,
  /// outcome, attempts, upstream_ms, total_ms).
  bool access_log = true;
  /// Install SIGTERM/SIGINT/SIGHUP handlers in `run()`.
  bool handle_signals = true;
  /// Receives log lines (JSON, one per line; access logs and events). No
  /// bodies, no keys. Called from worker threads (must be thread-safe).
  /// Access-log lines come in batches: one call may carry several lines
  /// separated by '\n' (no trailing newline), so a sink writes each batch
  /// with one write.
  std::function<void(std::string_view line)> log;
  /// Traces (docs/telemetry.md; not owned, must outlive the server; nullptr: off).
  telemetry::Telemetry* telemetry = nullptr;
};

/// The running proxy.
class Server {
 public:
  /// Loads the registry (an invalid one fails here, naming the agent), binds
  /// the listener. Does not start serving.
  static Result<std::unique_ptr<Server>> create(const ServerConfig& config);
  virtual ~Server() = default;
  /// The bound port.
  virtual std::uint16_t port() const = 0;
  /// The address actually bound, "0.0.0.0:8787" or "[::1]:8787": an empty
  /// host in `listen` is every IPv4 interface, a host name its address.
  virtual std::string address() const = 0;
  /// Serves until `stop()` (or SIGTERM/SIGINT); returns after in-flight
  /// requests finished or the shutdown timeout passed.
  virtual void run() = 0;
  /// Graceful stop, callable from any thread.
  virtual void stop() = 0;
  /// Reloads the registry file now; keeps the old one when the new is invalid.
  virtual Status reload() = 0;
  /// Appends the /metrics counters to an OTLP snapshot, same names (docs/telemetry.md, "Metrics").
  virtual void collect_metrics(telemetry::MetricsSnapshot& out) const = 0;
};

}  // namespace weld::proxy
