#pragma once
// What the access log, the metrics and the request's span say about one
// request (no bodies, no keys). Filled by the units a request passes through
// (client_connection, relay, weld_exchange), written out by the session.

#include <chrono>
#include <string>
#include <string_view>

#include "weld/proxy/outcome.h"

namespace weld::proxy {

/// One request's record (no bodies, no keys).
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

}  // namespace weld::proxy
