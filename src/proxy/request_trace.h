#pragma once
// The proxy's telemetry (docs/telemetry.md, "Spans of the proxy"): a server span per request that
// continues the client's `traceparent`, a client span per upstream attempt
// whose context goes upstream as our own `traceparent`. The session calls
// one method per stage; with telemetry off (no Telemetry) each returns at
// once and the client's headers go upstream untouched. Attributes never
// hold a body, a prompt or a key (docs/design.md, "Privacy").

#include <string>
#include <string_view>

#include "weld/proxy/filter.h"
#include "weld/telemetry/telemetry.h"

namespace weld::proxy {

struct RequestLog;

class RequestTrace {
 public:
  explicit RequestTrace(telemetry::Telemetry* telemetry) : telemetry_(telemetry) {}

  /// True when spans are recorded (and the upstream gets our traceparent).
  bool active() const { return telemetry_ != nullptr; }
  /// A request arrived: starts its span under `client_traceparent` (may be "").
  void start(std::string_view method, std::string_view path, std::string_view client_traceparent);
  /// An upstream attempt (1-based): a child span, ended when the returned
  /// span is. `upstream_traceparent()` names it until the next attempt.
  telemetry::Span attempt(int number, std::string_view method, std::string_view host);
  /// The attempt's end: its status, or the failure's code.
  static void attempt_ended(telemetry::Span& span, int status, const Error* error);
  /// What the weld decided for a tagged request (agent, model, counters).
  void welded(const Exchange& exchange);
  /// The request is answered: ends its span with what the access log says.
  void finish(const RequestLog& log);
  /// "traceparent: …\r\n" for the upstream request head ("" when off).
  const std::string& upstream_header() const { return upstream_header_; }

 private:
  telemetry::Telemetry* telemetry_;
  telemetry::Span request_;
  std::string upstream_header_;
  /// The server span's name ("POST /v1/chat/completions"), built here so
  /// that its allocation serves every request of the connection.
  std::string name_;
};

}  // namespace weld::proxy
