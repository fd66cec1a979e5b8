#pragma once
// State shared by the server core's pieces: `Shared` (one per server, read
// by every worker thread) and `Worker` (one per thread: its io_context,
// listener, upstream pool and open sessions). Private to src/proxy.

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "asio.h"
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

 private:
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
    io_owner.reset();
  }
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;
  Shared& shared;
  std::unique_ptr<asio::io_context> io_owner = std::make_unique<asio::io_context>(1);
  asio::io_context& io = *io_owner;
  std::optional<tcp::acceptor> acceptor;
  UpstreamPool pool;
  std::unordered_set<Session*> sessions;
  bool stopping = false;
  std::atomic<bool> finished{false};

  /// Stop accepting, close idle client connections; in-flight requests finish.
  void begin_shutdown();
};

/// Accepts connections on the worker's listener until it is closed.
awaitable<void> accept_loop(Worker& worker);

/// "2026-11-30T17:01:02.345Z"
std::string utc_timestamp();

}  // namespace weld::proxy
