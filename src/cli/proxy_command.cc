// `weld proxy` (docs/proxy.md): parses flags, starts the server, prints its
// logs (one JSON line each) on stderr, and picks the exit code: 0 after a
// graceful shutdown, 52 for a bad registry or flag value, 1 when it cannot
// listen.

#include <CLI/CLI.hpp>

#include <chrono>
#include <csignal>
#include <cmath>
#include <iostream>
#include <mutex>

#include "commands.h"
#include "usage.h"
#include "weld/json/serialize.h"
#include "telemetry_support.h"
#include "weld/proxy/server.h"

namespace weld::cli {
namespace {

std::chrono::milliseconds seconds_flag(double seconds) {
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::llround(seconds * 1000.0)));
}

}  // namespace

int proxy_main(int argc, char** argv) {
  // Its sockets are written with MSG_NOSIGNAL (Asio), but a closed stderr
  // (the access log) must end in a write error, not a silent SIGPIPE death;
  // and with SIGPIPE ignored libcurl (telemetry's exporter) drops its guard,
  // two sigaction calls around each step of a transfer.
  ::signal(SIGPIPE, SIG_IGN);
  CLI::App app{"weld proxy: welds per-agent JSON Schemas onto tagged requests between agent clients and model servers",
               "weld proxy"};
  proxy::ServerConfig config;
  double upstream_timeout = 300, connect_timeout = 10, idle_timeout = 75, keepalive = 5, shutdown_timeout = 30,
         reload_poll = 1, header_timeout = 30, body_timeout = 60;
  bool no_access_log = false;
  std::optional<std::string> telemetry_file;
  app.add_option("--listen", config.listen, "Address to listen on, host:port")->default_val(config.listen);
  app.add_option("--upstream", config.upstream, "Model server base URL (http:// or https://)")
      ->default_val(config.upstream);
  app.add_option("--agents", config.agents_path, "Agent registry (agents.json); default: the built-in four shapes");
  app.add_option("--threads", config.threads, "Worker threads (0: one per core)")->default_val(2);
  app.add_flag("--pin-threads", config.pin_threads,
               "Pin each worker thread to one CPU (like nginx's worker_cpu_affinity auto)");
  app.add_option("--upstream-timeout", upstream_timeout,
                 "Seconds the upstream may stay silent (before its first byte, or inside a stream)")
      ->default_val(upstream_timeout)->check(CLI::PositiveNumber);
  app.add_option("--connect-timeout", connect_timeout, "Seconds to connect to the upstream")
      ->default_val(connect_timeout)->check(CLI::PositiveNumber);
  app.add_option("--idle-timeout", idle_timeout, "Seconds an idle client connection is kept")
      ->default_val(idle_timeout)->check(CLI::PositiveNumber);
  app.add_option("--header-timeout", header_timeout, "Seconds for a request header to arrive")
      ->default_val(header_timeout)->check(CLI::PositiveNumber);
  app.add_option("--body-timeout", body_timeout, "Seconds for a request body to arrive")
      ->default_val(body_timeout)->check(CLI::PositiveNumber);
  app.add_option("--keepalive", keepalive, "Seconds between keep-alive frames to a waiting streaming client")
      ->default_val(keepalive)->check(CLI::PositiveNumber);
  app.add_option("--shutdown-timeout", shutdown_timeout, "Seconds in-flight requests get after SIGTERM")
      ->default_val(shutdown_timeout)->check(CLI::NonNegativeNumber);
  app.add_option("--reload-poll", reload_poll, "Seconds between checks of the registry file (0: only SIGHUP)")
      ->default_val(reload_poll)->check(CLI::NonNegativeNumber);
  app.add_option("--max-body-bytes", config.max_body_bytes, "Largest request body accepted (413 beyond)")
      ->default_val(config.max_body_bytes);
  app.add_option("--max-response-bytes", config.max_response_bytes,
                 "Largest upstream answer to a tagged request, per attempt (502 beyond)")
      ->default_val(config.max_response_bytes)->check(CLI::PositiveNumber);
  app.add_option("--ready-path", config.ready_path, "Upstream path probed by /readyz")->default_val(config.ready_path);
  app.add_flag("--upstream-insecure", config.upstream_insecure, "Do not verify the upstream's TLS certificate");
  app.add_flag("--no-access-log", no_access_log, "Do not log one line per request");
  add_telemetry_file_flag(app, telemetry_file);
  if (std::optional<int> code = parse_command_line(app, argc, argv)) return *code;
  config.upstream_timeout = seconds_flag(upstream_timeout);
  config.connect_timeout = seconds_flag(connect_timeout);
  config.idle_timeout = seconds_flag(idle_timeout);
  config.header_timeout = seconds_flag(header_timeout);
  config.body_timeout = seconds_flag(body_timeout);
  config.keepalive_interval = seconds_flag(keepalive);
  config.shutdown_timeout = seconds_flag(shutdown_timeout);
  config.reload_poll = seconds_flag(reload_poll);
  config.access_log = !no_access_log;
  auto log_mutex = std::make_shared<std::mutex>();
  config.log = [log_mutex](std::string_view line) {
    std::lock_guard lock(*log_mutex);
    std::string out(line);
    out += '\n';
    std::cerr << out << std::flush;
  };

  // Telemetry (docs/telemetry.md): warnings as log events; destroyed after the server.
  auto warn = [&config](std::string_view text) {
    config.log(json::serialize(json::Object{{"event", "warning"}, {"message", text}}));
  };
  std::unique_ptr<telemetry::Telemetry> telemetry =
      start_telemetry(telemetry_file, warn, telemetry::Config::Sender::AtStart);
  config.telemetry = telemetry.get();
  auto server = proxy::Server::create(config);
  if (!server) {
    const Error& error = server.error();
    std::cerr << json::serialize(json::Object{
                     {"event", "error"}, {"code", error_code_name(error.code)}, {"message", error.message}})
              << "\n";
    return error.code == ErrorCode::Listen ? 1 : 52;
  }
  // OTLP metrics are read from the counters /metrics renders (docs/telemetry.md, "Metrics"); the
  // server outlives the last export (finish_telemetry below).
  if (telemetry) {
    telemetry->add_metric_source([&proxy = **server](telemetry::MetricsSnapshot& out) { proxy.collect_metrics(out); });
  }
  // The address bound, not the one asked for: ":8799" is every interface,
  // and the log says so ("0.0.0.0:8799").
  config.log(json::serialize(json::Object{
      {"event", "listening"},
      {"address", (*server)->address()},
      {"port", static_cast<std::int64_t>((*server)->port())},
      {"upstream", config.upstream},
      {"agents", config.agents_path.empty() ? std::string("(built-in default)") : config.agents_path}}));
  (*server)->run();
  finish_telemetry(telemetry.get(), warn);
  config.log(json::serialize(json::Object{{"event", "stopped"}}));
  return 0;
}

}  // namespace weld::cli
