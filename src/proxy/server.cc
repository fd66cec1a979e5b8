// The server (docs/proxy.md; docs/design.md, "Three ways to wait"): one io_context per worker thread, each with
// its own SO_REUSEPORT listener (the kernel spreads connections; a
// connection then lives on one thread and needs no locks); a control loop on
// the calling thread for signals, registry reloads and graceful shutdown.
//
// Tried and dropped (2026-12-01): every worker accepting from one shared
// socket (a dup per io_context, as nginx's workers share theirs). In 16
// alternating bench runs at 50 connections its p99 equalled reuseport's
// (4.34 vs 4.35 ms) and its rate was lower (35.1k vs 36.0k req/s): whoever
// is awake accepts, so a burst of new connections can land 2:1 on one worker
// (seen in 2 of 12 runs, each losing ~14% of the rate). Reuseport's hash
// keeps the split near even.

#include "weld/proxy/server.h"

#include <pthread.h>
#include <sched.h>
#include <sys/stat.h>

#include <ctime>
#include <thread>

#include "core.h"
#include "session.h"
#include "weld/json/serialize.h"
#include "weld/provider/ca_bundle.h"

namespace weld::proxy {
namespace {

// The CPUs this process may run on (its affinity mask), in order.
std::vector<int> allowed_cpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  }
  return cpus;
}

struct FileStamp {
  bool exists = false;
  std::int64_t mtime_ns = 0;
  std::int64_t size = 0;
  std::uint64_t inode = 0;
  bool operator==(const FileStamp&) const = default;
};

FileStamp stamp_of(const std::string& path) {
  struct stat st {};
  FileStamp stamp;
  if (::stat(path.c_str(), &st) != 0) return stamp;
  stamp.exists = true;
  stamp.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
  stamp.size = static_cast<std::int64_t>(st.st_size);
  stamp.inode = st.st_ino;
  return stamp;
}

Result<tcp::endpoint> parse_listen(const std::string& listen) {
  std::size_t colon = listen.rfind(':');
  if (colon == std::string::npos) return Error{ErrorCode::Config, "--listen \"" + listen + "\" must be host:port", "--listen"};
  std::string host = listen.substr(0, colon);
  std::string port = listen.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host.empty()) host = "0.0.0.0";
  bool digits = !port.empty() && port.size() <= 5;
  for (char c : port) digits = digits && c >= '0' && c <= '9';
  if (!digits || std::stoul(port) > 65535) {
    return Error{ErrorCode::Config, "--listen \"" + listen + "\" has a bad port", "--listen"};
  }
  const auto port_number = static_cast<unsigned short>(std::stoul(port));
  error_code ec;
  auto address = asio::ip::make_address(host, ec);
  if (!ec) return tcp::endpoint(address, port_number);
  // A host name (`--listen localhost:0`): resolved once, at start.
  // IPv4 first, as `localhost` means 127.0.0.1 to most clients.
  asio::io_context io;
  tcp::resolver resolver(io);
  auto results = resolver.resolve(host, port, tcp::resolver::numeric_service, ec);
  if (ec || results.empty()) {
    return Error{ErrorCode::Config, "--listen \"" + listen + "\": \"" + host + "\" is neither an IP address nor a host name "
                               "that resolves" + (ec ? " (" + ec.message() + ")" : std::string()), "--listen"};
  }
  for (const auto& entry : results) {
    if (entry.endpoint().address().is_v4()) return entry.endpoint();
  }
  return results.begin()->endpoint();
}

// Opens `acceptor` and binds it to `at` (SO_REUSEADDR; SO_REUSEPORT too
// when `share_port`, so each worker can bind its own listener to the port).
error_code open_and_bind(tcp::acceptor& acceptor, const tcp::endpoint& at, bool share_port) {
  error_code ec;
  acceptor.open(at.protocol(), ec);
  if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec && share_port) {
    int one = 1;
    if (::setsockopt(acceptor.native_handle(), SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) != 0) {
      ec = error_code(errno, boost::system::system_category());
    }
  }
  if (!ec) acceptor.bind(at, ec);
  return ec;
}

awaitable<void> serve_connection(Worker& worker, tcp::socket socket) {
  Session session(worker, std::move(socket));
  co_await session.run();
}

class ServerImpl final : public Server {
 public:
  explicit ServerImpl(const ServerConfig& config) { shared_.config = config; }
  void collect_metrics(telemetry::MetricsSnapshot& out) const override { shared_.metrics.collect(out); }

  Status init() {
    ServerConfig& config = shared_.config;
    Result<UpstreamTarget> upstream = parse_upstream_url(config.upstream);
    if (!upstream) return upstream.error();
    shared_.upstream = std::move(*upstream);
    if (shared_.upstream.tls) {
      shared_.tls_context.emplace(asio::ssl::context::tls_client);
      if (config.upstream_insecure) {
        shared_.tls_context->set_verify_mode(asio::ssl::verify_none);
      } else {
        shared_.tls_context->set_default_verify_paths();
        // The portable build's OpenSSL looks in Debian's folders: elsewhere
        // the system's bundle (weld/provider/ca_bundle.h), unless
        // SSL_CERT_FILE names one.
        const std::string& bundle = provider::system_ca_bundle();
        if (!bundle.empty() && std::getenv("SSL_CERT_FILE") == nullptr) {
          shared_.tls_context->load_verify_file(bundle);
        }
        shared_.tls_context->set_verify_mode(asio::ssl::verify_peer);
      }
    }
    Result<RegistryPtr> registry = config.agents_path.empty()
                                       ? load_registry(default_registry_text(), "built-in default registry")
                                       : load_registry_file(config.agents_path);
    if (!registry) return registry.error();
    for (const std::string& warning : (*registry)->warnings()) {
      shared_.log(json::serialize(json::Object{{"event", "registry_warning"}, {"message", warning}}));
    }
    shared_.set_registry(std::move(*registry));
    if (!config.agents_path.empty()) stamp_ = stamp_of(config.agents_path);
    shared_.filters = builtin_filters();
    for (const std::string& name : config.filters.names()) shared_.filters.add(name, *config.filters.find(name));
    Result<std::vector<const FilterFactory*>> chain =
        FilterChain::resolve(shared_.filters, config.chain.empty() ? default_chain() : config.chain);
    if (!chain) return chain.error();
    shared_.chain = std::move(*chain);

    Result<tcp::endpoint> endpoint = parse_listen(config.listen);
    if (!endpoint) return endpoint.error();
    unsigned threads = config.threads == 0 ? std::max(1u, std::thread::hardware_concurrency()) : config.threads;
    auto listen_error = [&config](const error_code& ec) {
      return Error{ErrorCode::Listen, "cannot listen on " + config.listen + ": " + ec.message(), "--listen"};
    };
    // SO_REUSEPORT would also let a second `weld proxy` (or anything with
    // the option) share a port already in use and split its traffic. A probe
    // bound without it fails while anyone listens there; with port 0 it
    // picks the port every worker then binds.
    tcp::endpoint bind_to = *endpoint;
    {
      tcp::acceptor probe(control_);
      error_code ec = open_and_bind(probe, bind_to, /*share_port=*/false);
      if (!ec) bind_to = probe.local_endpoint(ec);
      if (ec) return listen_error(ec);
    }
    port_ = bind_to.port();
    address_ = bind_to.address().is_v6() ? "[" + bind_to.address().to_string() + "]:" + std::to_string(port_)
                                         : bind_to.address().to_string() + ":" + std::to_string(port_);
    for (unsigned idx = 0; idx < threads; ++idx) {
      auto worker = std::make_unique<Worker>(shared_);
      tcp::acceptor& acceptor = worker->acceptor.emplace(worker->io);
      error_code ec = open_and_bind(acceptor, bind_to, /*share_port=*/true);
      if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
      if (ec) return listen_error(ec);
      workers_.push_back(std::move(worker));
    }
    return Ok{};
  }

  std::uint16_t port() const override { return port_; }
  std::string address() const override { return address_; }

  void run() override {
    for (auto& worker : workers_) {
      asio::co_spawn(worker->io, accept_loop(*worker), asio::detached);
      worker->start_ticking();
    }
    std::vector<std::thread> threads;
    const std::vector<int> cpus = shared_.config.pin_threads ? allowed_cpus() : std::vector<int>{};
    for (auto& worker : workers_) {
      const int cpu = cpus.empty() ? -1 : cpus[threads.size() % cpus.size()];
      threads.emplace_back([w = worker.get(), cpu] {
        if (cpu >= 0) {
          cpu_set_t set;
          CPU_ZERO(&set);
          CPU_SET(cpu, &set);
          pthread_setaffinity_np(pthread_self(), sizeof set, &set);  // best effort: a refusal leaves it unpinned
        }
        for (;;) {
          try {
            w->io.run();
            break;
          } catch (const std::exception&) {
            // A handler threw: keep serving (each session catches its own).
          }
        }
        w->finished = true;
      });
    }
    asio::signal_set signals(control_);
    if (shared_.config.handle_signals) {
      signals.add(SIGTERM);
      signals.add(SIGINT);
      signals.add(SIGHUP);
      wait_signal(signals);
    }
    asio::steady_timer poll(control_);
    if (!shared_.config.agents_path.empty() && shared_.config.reload_poll.count() > 0) schedule_poll(poll);
    asio::steady_timer stop_watch(control_);
    watch_stop(stop_watch);
    control_.run();
    for (auto& thread : threads) thread.join();
    for (auto& worker : workers_) worker->pool.clear();
  }

  void stop() override {
    asio::post(control_, [this] { begin_stop(); });
  }

  Status reload() override {
    Result<RegistryPtr> registry = load_registry_file(shared_.config.agents_path);
    if (!registry) {
      shared_.metrics.registry_reloaded(false);
      shared_.log(json::serialize(
          json::Object{{"event", "registry_reload"}, {"ok", false}, {"error", registry.error().message}}));
      return registry.error();
    }
    json::Array names;
    for (const std::string& name : (*registry)->names()) names.emplace_back(name);
    shared_.set_registry(std::move(*registry));
    shared_.metrics.registry_reloaded(true);
    shared_.log(json::serialize(json::Object{{"event", "registry_reload"}, {"ok", true}, {"agents", std::move(names)}}));
    return Ok{};
  }

 private:
  void wait_signal(asio::signal_set& signals) {
    signals.async_wait([this, &signals](error_code ec, int signal) {
      if (ec) return;
      if (signal == SIGHUP) {
        if (!shared_.config.agents_path.empty()) {
          stamp_ = stamp_of(shared_.config.agents_path);
          (void)reload();
        }
      } else if (stopping_ && signal == SIGINT) {
        force_stop();  // a second Ctrl-C does not wait
      } else {
        shared_.log(json::serialize(json::Object{{"event", "shutdown"}, {"signal", signal == SIGINT ? "SIGINT" : "SIGTERM"}}));
        begin_stop();
      }
      if (!control_.stopped()) wait_signal(signals);
    });
  }

  void schedule_poll(asio::steady_timer& poll) {
    poll.expires_after(shared_.config.reload_poll);
    poll.async_wait([this, &poll](error_code ec) {
      if (ec || stopping_) return;
      FileStamp now = stamp_of(shared_.config.agents_path);
      if (!(now == stamp_)) {
        stamp_ = now;
        (void)reload();
      }
      schedule_poll(poll);
    });
  }

  void watch_stop(asio::steady_timer& timer) {
    timer.expires_after(std::chrono::milliseconds(50));
    timer.async_wait([this, &timer](error_code ec) {
      if (ec) return;
      bool all_finished = true;
      for (auto& worker : workers_) all_finished = all_finished && worker->finished;
      if (all_finished) {
        control_.stop();
        return;
      }
      if (stopping_ && std::chrono::steady_clock::now() > stop_deadline_) force_stop();
      watch_stop(timer);
    });
  }

  void begin_stop() {
    if (stopping_) return;
    stopping_ = true;
    stop_deadline_ = std::chrono::steady_clock::now() + shared_.config.shutdown_timeout;
    for (auto& worker : workers_) asio::post(worker->io, [w = worker.get()] { w->begin_shutdown(); });
  }

  void force_stop() {
    // On each worker's own thread: answer what is still in flight, then stop.
    for (auto& worker : workers_) {
      asio::post(worker->io, [w = worker.get()] {
        w->abandon_in_flight();
        w->io.stop();
      });
    }
  }

  Shared shared_;
  asio::io_context control_{1};
  std::vector<std::unique_ptr<Worker>> workers_;
  std::uint16_t port_ = 0;
  std::string address_;
  FileStamp stamp_;
  bool stopping_ = false;
  std::chrono::steady_clock::time_point stop_deadline_;
};

}  // namespace

void Worker::begin_shutdown() {
  stopping = true;
  error_code ignored;
  if (acceptor) acceptor->close(ignored);
  // Copy: closing may end a session, which erases itself from the set.
  std::vector<Session*> open(sessions.begin(), sessions.end());
  for (Session* session : open) session->close_if_idle();
}

void Worker::abandon_in_flight() {
  // Copy: abandoning closes sessions, which may erase themselves.
  std::vector<Session*> open(sessions.begin(), sessions.end());
  for (Session* session : open) session->abandon();
  flush_log();
}

void Worker::start_ticking() {
  if (!tick_timer) tick_timer.emplace(io);
  tick_timer->expires_after(kTick);
  tick_timer->async_wait([this](error_code ec) {
    if (ec) return;
    ticks.tick(Deadline::Clock::now());
    flush_log();
    if (stopping && sessions.empty()) return;  // let io.run() return
    start_ticking();
  });
}

awaitable<void> accept_loop(Worker& worker) {
  for (;;) {
    error_code ec;
    tcp::socket socket = co_await worker.acceptor->async_accept(asio::redirect_error(asio::use_awaitable, ec));
    if (ec == asio::error::operation_aborted || !worker.acceptor->is_open()) co_return;
    if (ec) {
      // EMFILE and friends: back off briefly instead of spinning.
      asio::steady_timer pause(worker.io, std::chrono::milliseconds(50));
      co_await pause.async_wait(asio::redirect_error(asio::use_awaitable, ec));
      continue;
    }
    asio::co_spawn(worker.io, serve_connection(worker, std::move(socket)), asio::detached);
  }
}

std::string utc_timestamp() {
  auto now = std::chrono::system_clock::now();
  std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm {};
  ::gmtime_r(&seconds, &tm);
  char buf[96];  // room for any int the format could print (-Wformat-truncation)
  std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(millis));
  return buf;
}

Result<std::unique_ptr<Server>> Server::create(const ServerConfig& config) {
  auto server = std::make_unique<ServerImpl>(config);
  Status status = server->init();
  if (!status) return status.error();
  return std::unique_ptr<Server>(std::move(server));
}

}  // namespace weld::proxy
