// The proxy's spans (docs/telemetry.md, "Spans of the proxy"): HTTP semantic-convention names and
// attributes (http.request.method, url.path, http.response.status_code),
// GenAI ones for tagged requests, weld.* for the weld's decisions.

#include "request_trace.h"

#include "session.h"

namespace weld::proxy {

namespace tm = weld::telemetry;

void RequestTrace::start(std::string_view method, std::string_view path, std::string_view client_traceparent) {
  if (telemetry_ == nullptr) return;
  upstream_header_.clear();
  std::optional<tm::SpanContext> parent = tm::parse_traceparent(client_traceparent);
  name_.assign(method);
  name_ += ' ';
  name_ += path;
  request_ = tm::start_span(telemetry_, name_, tm::SpanKind::Server, parent ? &*parent : nullptr);
  request_.set("http.request.method", method);
  request_.set("url.path", path);
}

tm::Span RequestTrace::attempt(int number, std::string_view method, std::string_view host) {
  if (telemetry_ == nullptr) return {};
  tm::Span span = tm::start_span(telemetry_, method, tm::SpanKind::Client, &request_.context());
  span.set("http.request.method", method);
  span.set("server.address", host);
  span.set("weld.attempt", std::int64_t{number});
  upstream_header_.reserve(70);  // "traceparent: " + 55 + "\r\n"
  upstream_header_.assign("traceparent: ");
  tm::append_traceparent(upstream_header_, span.context());
  upstream_header_.append("\r\n", 2);
  return span;
}

void RequestTrace::attempt_ended(tm::Span& span, int status, const Error* error) {
  if (!span.recording()) return;
  if (status > 0) span.set("http.response.status_code", std::int64_t{status});
  if (error != nullptr) {
    span.set_error(error_code_name(error->code));
  } else if (status >= 500) {
    span.set_error(std::to_string(status));
  }
  span.end();
}

void RequestTrace::welded(const Exchange& exchange) {
  if (telemetry_ == nullptr) return;
  request_.set("gen_ai.operation.name", "chat");
  request_.set("gen_ai.provider.name", provider::codec_for(exchange.api).vendor());
  if (!exchange.base_model.empty()) request_.set("gen_ai.request.model", exchange.base_model);
  request_.set("gen_ai.usage.input_tokens", static_cast<std::int64_t>(exchange.usage.input_tokens));
  request_.set("gen_ai.usage.output_tokens", static_cast<std::int64_t>(exchange.usage.output_tokens));
  request_.set("weld.repairs", std::int64_t{exchange.repairs});
  request_.set("weld.validation_failures", std::int64_t{exchange.validation_failures});
}

void RequestTrace::finish(const RequestLog& log) {
  if (telemetry_ == nullptr) return;
  upstream_header_.clear();
  // Health checks and scrapes would drown the traces that matter.
  if (log.outcome == Outcome::Local) {
    request_.discard();
    return;
  }
  if (!log.agent.empty()) request_.set("weld.agent", log.agent);
  request_.set("weld.outcome", outcome_name(log.outcome));
  request_.set("weld.attempts", std::int64_t{log.attempts});
  if (log.status > 0) request_.set("http.response.status_code", std::int64_t{log.status});
  if (log.status >= 500) request_.set_error(std::to_string(log.status));
  request_.end();
}

}  // namespace weld::proxy
