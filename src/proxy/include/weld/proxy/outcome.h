#pragma once
/// \file
/// How a proxy request ended: one closed set, named once, for the access log
/// (`"outcome"`) and the metrics (`weld_proxy_requests_total{outcome}`).

#include <cstdint>
#include <string_view>

namespace weld::proxy {

/// How one request ended.
enum class Outcome : std::uint8_t {
  Passthrough,        ///< untagged, relayed; the upstream answered
  Local,              ///< /healthz, /readyz, /metrics
  Ok,                 ///< welded: a valid answer
  PassBack,           ///< two-phase: the client's tool calls handed back
  Bypassed,           ///< tagged, but the agent's passthrough_when matched: relayed
  Invalid,            ///< no valid answer within the retries (structured_output_error)
  UnknownAgent,       ///< tagged for an agent the registry does not have
  BadRequest,         ///< refused: malformed HTTP, request target, a tagged body that is not JSON
  TooLarge,           ///< refused: a request over a limit (413, 431)
  ClientTimeout,      ///< the request did not arrive in time (408)
  UpstreamError,      ///< connect failure, upstream error status, bad upstream answer
  UpstreamTimeout,    ///< the upstream stalled
  UpstreamTruncated,  ///< an untagged answer cut off by the upstream (passed on as cut)
  ResponseTooLarge,   ///< a tagged answer over --max-response-bytes
  Cancelled,          ///< the client went away
  ShuttingDown,       ///< still in flight when --shutdown-timeout ended (503)
  InternalError,      ///< a bug in the proxy (500)
};

/// True for the answers weld decides itself, which the same request sent
/// again would get again: they carry `x-should-retry: false` (docs/proxy.md, "Errors and timeouts"), so
/// a client SDK does not multiply the upstream calls by its own retries.
constexpr bool is_final(Outcome outcome) {
  switch (outcome) {
    case Outcome::Invalid:
    case Outcome::UnknownAgent:
    case Outcome::BadRequest:
    case Outcome::TooLarge:
    case Outcome::ResponseTooLarge:
      return true;
    default:
      return false;
  }
}

/// The outcome's name in logs and metrics ("upstream_error").
constexpr std::string_view outcome_name(Outcome outcome) {
  switch (outcome) {
    case Outcome::Passthrough: return "passthrough";
    case Outcome::Local: return "local";
    case Outcome::Ok: return "ok";
    case Outcome::PassBack: return "pass_back";
    case Outcome::Bypassed: return "bypassed";
    case Outcome::Invalid: return "invalid";
    case Outcome::UnknownAgent: return "unknown_agent";
    case Outcome::BadRequest: return "bad_request";
    case Outcome::TooLarge: return "too_large";
    case Outcome::ClientTimeout: return "client_timeout";
    case Outcome::UpstreamError: return "upstream_error";
    case Outcome::UpstreamTimeout: return "upstream_timeout";
    case Outcome::UpstreamTruncated: return "upstream_truncated";
    case Outcome::ResponseTooLarge: return "response_too_large";
    case Outcome::Cancelled: return "cancelled";
    case Outcome::ShuttingDown: return "shutting_down";
    case Outcome::InternalError: return "internal_error";
  }
  return "internal_error";
}

}  // namespace weld::proxy
