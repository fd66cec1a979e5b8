// weld's own endpoints (docs/proxy.md, "Endpoints"): health, readiness,
// metrics.

#include "local_endpoints.h"

#include <algorithm>

#include "client_connection.h"
#include "upstream_client.h"
#include "weld/json/serialize.h"

namespace weld::proxy {

std::optional<LocalEndpoints::Endpoint> LocalEndpoints::match(http::verb method, std::string_view path) {
  if (method != http::verb::get && method != http::verb::head) return std::nullopt;
  if (path == "/healthz") return Endpoint::Health;
  if (path == "/readyz") return Endpoint::Ready;
  if (path == "/metrics") return Endpoint::Metrics;
  return std::nullopt;
}

awaitable<void> LocalEndpoints::serve(Endpoint endpoint, RequestLog& log) {
  log.outcome = Outcome::Local;
  switch (endpoint) {
    case Endpoint::Health:
      co_await client_.send_simple(200, "application/json", "{\"status\":\"ok\"}", log);
      break;
    case Endpoint::Ready:
      co_await serve_ready(log);
      break;
    case Endpoint::Metrics:
      co_await client_.send_simple(200, "text/plain; version=0.0.4; charset=utf-8", shared_.metrics.render(), log);
      break;
  }
}

awaitable<void> LocalEndpoints::serve_ready(RequestLog& log) {
  const UpstreamTarget& up = shared_.upstream;
  std::string head = "GET " + upstream_target(up, shared_.config.ready_path) + " HTTP/1.1\r\nHost: " + up.host_header +
                     "\r\nAccept: application/json\r\n\r\n";
  std::optional<UpstreamParser> parser;
  std::unique_ptr<UpstreamConnection> connection;
  const auto probe_timeout = std::min<std::chrono::milliseconds>(shared_.config.connect_timeout, std::chrono::seconds(5));
  std::optional<Error> error = co_await upstream_.open(head, {}, parser, connection, false, probe_timeout, probe_timeout);
  int status = 0;
  if (!error) {
    status = parser->status();
    std::string discard;
    error_code ec = co_await upstream_.read_body(*connection, *parser, discard, 1u << 20, probe_timeout);
    if (!ec) upstream_.release(std::move(connection), *parser);
    // Ready means the upstream serves: it answered the models list (or the
    // ready path) with 2xx. A 404 to everything is a wrong --upstream, a
    // 401 a missing key: answering at all is not being ready.
    if (status >= 200 && status < 300) {
      co_await client_.send_simple(200, "application/json",
                                   "{\"status\":\"ready\",\"upstream_status\":" + std::to_string(status) + "}", log);
      co_return;
    }
    error = Error{ErrorCode::UpstreamStatus, "upstream answered HTTP " + std::to_string(status) + " to GET " +
                                                 upstream_target(up, shared_.config.ready_path),
                  ""};
  }
  std::string out = "{\"status\":\"not ready\",";
  if (status != 0) out += "\"upstream_status\":" + std::to_string(status) + ",";
  out += "\"error\":";
  json::write_string(out, error->message);
  out += "}";
  co_await client_.send_simple(503, "application/json", out, log);
}

}  // namespace weld::proxy
