#pragma once
// State shared by the server core's pieces: `Shared` (one per server, read
// by every worker thread) and `Worker` (one per thread: its io_context,
// listener, upstream pool and open sessions). Private to src/proxy.

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "asio.h"
#include "tick.h"
#include "upstream.h"
#include "weld/proxy/filter.h"
#include "weld/proxy/metrics.h"
#include "weld/proxy/registry.h"
#include "weld/proxy/server.h"

namespace weld::proxy {

class Session;

/// One per server. Everything here is immutable after start, or thread-safe.
struct Shared {
  ServerConfig config;
  UpstreamTarget upstream;
  Metrics metrics;
  std::optional<asio::ssl::context> tls_context;  // for an https upstream
  FilterRegistry filters;
  std::vector<const FilterFactory*> chain;  // points into `filters`

  RegistryPtr registry() const {
    std::lock_guard lock(registry_mutex_);
    return registry_;
  }
  void set_registry(RegistryPtr registry) {
    std::lock_guard lock(registry_mutex_);
    registry_ = std::move(registry);
  }
  void log(std::string_view line) const {
    if (config.log) config.log(line);
  }

  /// `mechanism: auto` (docs/run.md, "Mechanisms"): what the probe found for a model of this
  /// upstream (true: it enforces its native format), remembered for the
  /// process's life; nullopt when not probed yet.
  std::optional<bool> probed_native(const std::string& model) const {
    std::lock_guard lock(probe_mutex_);
    auto found = probed_.find(model);
    return found == probed_.end() ? std::nullopt : std::optional<bool>(found->second);
  }
  void remember_probe(const std::string& model, bool native) {
    std::lock_guard lock(probe_mutex_);
    probed_[model] = native;
  }

 private:
  mutable std::mutex probe_mutex_;
  std::map<std::string, bool, std::less<>> probed_;
  mutable std::mutex registry_mutex_;
  RegistryPtr registry_;
};

/// One per worker thread; touched only from that thread (after start).
struct Worker {
  explicit Worker(Shared& shared) : shared(shared) {}
  // Sockets before their io_context, and the io_context (whose destruction
  // destroys suspended sessions) before the session set they unregister from.
  ~Worker() {
    acceptor.reset();
    pool.clear();
    tick_timer.reset();
    io_owner.reset();
    flush_log();
  }
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;
  Shared& shared;
  // Every socket of a worker is used on its thread only: no locking in the
  // reactor's I/O (the scheduler still locks: the control thread posts).
  std::unique_ptr<asio::io_context> io_owner =
      std::make_unique<asio::io_context>(BOOST_ASIO_CONCURRENCY_HINT_UNSAFE_IO);
  asio::io_context& io = *io_owner;
  std::optional<tcp::acceptor> acceptor;
  TickList ticks;  // before the pool and the sessions, which leave it
  UpstreamPool pool;
  std::unordered_set<Session*> sessions;
  std::optional<asio::steady_timer> tick_timer;
  /// Access-log lines waiting for the next flush (one write per tick or
  /// per 32 KiB, never one per request).
  std::string log_buffer;
  bool stopping = false;
  std::atomic<bool> finished{false};

  /// Busy enough that a read right after a write is better started after
  /// the work queued on this worker (ClientConnection::wait_for_request,
  /// UpstreamConnection::read_header): with this many client connections,
  /// a reactor pass queues many handlers under load, the peer answers
  /// meanwhile, and one read takes the answer instead of an EAGAIN read and
  /// another (system calls per request at 500 and 50 connections:
  /// docs/bench-proxy.md). The hop costs about a thousand instructions, so a
  /// worker with a few connections reads at once.
  bool busy() const { return sessions.size() >= kBusyConnections; }
  static constexpr std::size_t kBusyConnections = 8;

  /// Stop accepting, close idle client connections; in-flight requests finish.
  void begin_shutdown();
  /// The shutdown timeout ended: every request in flight gets its 503 (or
  /// its connection closed), before the worker stops.
  void abandon_in_flight();
  /// Starts the watchdog (tick.h); it stops once the worker is stopping and
  /// has no session left.
  void start_ticking();
  /// Queues one access-log line. The queue is written once the handlers
  /// that are ready now have run (one write per batch of events: under
  /// load many lines, when quiet at once), or at 32 KiB.
  void log(std::string_view line) {
    if (log_buffer.empty()) {
      asio::post(io, [this] { flush_log(); });
    } else {
      log_buffer += '\n';
    }
    log_buffer += line;
    if (log_buffer.size() >= (32u << 10)) flush_log();
  }
  void flush_log() {
    if (log_buffer.empty()) return;
    shared.log(log_buffer);
    log_buffer.clear();
  }
};

/// Accepts connections on the worker's listener until it is closed.
awaitable<void> accept_loop(Worker& worker);

/// "2026-11-30T17:01:02.345Z"
std::string utc_timestamp();

}  // namespace weld::proxy
