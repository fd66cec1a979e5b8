#pragma once
// What weld answers itself, without the upstream (docs/proxy.md, "Endpoints"):
// GET or HEAD /healthz (the process is up), /readyz (the upstream answers
// its ready path with 2xx) and /metrics (Prometheus text).

#include <optional>
#include <string_view>

#include "client_request.h"
#include "core.h"
#include "request_log.h"

namespace weld::proxy {

class ClientConnection;
class UpstreamClient;

class LocalEndpoints {
 public:
  enum class Endpoint { Health, Ready, Metrics };

  LocalEndpoints(Shared& shared, ClientConnection& client, UpstreamClient& upstream)
      : shared_(shared), client_(client), upstream_(upstream) {}

  /// The endpoint a request names, or nullopt (the request is the upstream's).
  /// Cheap: a method check and at most three comparisons.
  static std::optional<Endpoint> match(http::verb method, std::string_view path);
  /// Answers `endpoint` (the log's outcome is Local).
  awaitable<void> serve(Endpoint endpoint, RequestLog& log);

 private:
  /// /readyz: a GET of the ready path upstream, within min(connect timeout, 5 s).
  awaitable<void> serve_ready(RequestLog& log);

  Shared& shared_;
  ClientConnection& client_;
  UpstreamClient& upstream_;
};

}  // namespace weld::proxy
