// The run's spans and metrics (docs/telemetry.md, "Spans of a run"; names from the OpenTelemetry GenAI
// semantic conventions: invoke_agent / chat / execute_tool spans and the
// gen_ai.client.* metrics), see run_trace.h.

#include "run_trace.h"

#include "weld/telemetry/instruments.h"

namespace weld::agent {
namespace {

namespace tm = weld::telemetry;
namespace instruments = weld::telemetry::instruments;

double seconds_since(std::uint64_t start_ns) {
  std::uint64_t now = tm::unix_nano_now();
  return now > start_ns ? static_cast<double>(now - start_ns) / 1e9 : 0.0;
}

}  // namespace

RunTrace::RunTrace(const RunOptions& options, std::string_view provider_name)
    : telemetry_(options.telemetry), model_(options.model), provider_(provider_name) {
  if (telemetry_ == nullptr) return;
  run_ = tm::start_span(telemetry_, "invoke_agent weld", tm::SpanKind::Internal, &options.trace_parent);
  run_.set("gen_ai.operation.name", std::string("invoke_agent"));
  run_.set("gen_ai.agent.name", std::string("weld"));
  run_.set("gen_ai.provider.name", provider_);
  run_.set("gen_ai.request.model", model_);
  if (!options.session_id.empty()) run_.set("gen_ai.conversation.id", options.session_id);
  if (!options.agent.empty()) run_.set("weld.agent", options.agent);
  run_.set("weld.json_schema", options.schema != nullptr);
}

void RunTrace::request_started(int turn, bool probe) {
  if (telemetry_ == nullptr) return;
  request_ = tm::start_span(telemetry_, model_.empty() ? "chat" : "chat " + model_, tm::SpanKind::Client,
                            &run_.context());
  request_.set("gen_ai.operation.name", std::string("chat"));
  request_.set("gen_ai.provider.name", provider_);
  request_.set("gen_ai.request.model", model_);
  request_.set("weld.turn", std::int64_t{turn});
  if (probe) request_.set("weld.probe", true);
  request_started_ns_ = tm::unix_nano_now();
}

void RunTrace::request_ended(const Result<provider::Response>& response) {
  if (telemetry_ == nullptr) return;
  tm::MetricsRecorder::Labels labels{
      {"gen_ai.operation.name", "chat"}, {"gen_ai.provider.name", provider_}, {"gen_ai.request.model", model_}};
  if (response) {
    const provider::Usage& usage = response->usage;
    if (!response->id.empty()) request_.set("gen_ai.response.id", response->id);
    if (!response->stop_reason.empty())
      request_.set("gen_ai.response.finish_reasons", std::vector<std::string>{response->stop_reason});
    request_.set("gen_ai.usage.input_tokens", usage.input_tokens);
    request_.set("gen_ai.usage.output_tokens", usage.output_tokens);
    request_.set("weld.tool_calls", static_cast<std::int64_t>(response->message.tool_calls.size()));
    auto with_type = [&labels](const char* type) {
      tm::MetricsRecorder::Labels typed = labels;
      typed.emplace_back("gen_ai.token.type", type);
      return typed;
    };
    telemetry_->metrics().record(instruments::kGenAiTokenUsage, static_cast<double>(usage.input_tokens),
                                 with_type("input"));
    telemetry_->metrics().record(instruments::kGenAiTokenUsage, static_cast<double>(usage.output_tokens),
                                 with_type("output"));
  } else {
    // The code only ("http", "timeout", …): the message may quote the server.
    request_.set_error(error_code_name(response.error().code));
    labels.emplace_back("error.type", std::string(error_code_name(response.error().code)));
  }
  telemetry_->metrics().record(instruments::kGenAiOperationDuration, seconds_since(request_started_ns_),
                               std::move(labels));
  request_.end();
}

RunTrace::ToolScope::ToolScope(RunTrace& trace, const provider::ToolCall& call, const provider::ToolResult& result)
    : result_(result), outer_(&trace.tool_) {
  if (trace.telemetry_ == nullptr) {
    outer_ = nullptr;
    return;
  }
  // A child of the request that asked for the call (ended by now: the
  // request's span covers the model's time, this one the tool's).
  span_ = tm::start_span(trace.telemetry_, "execute_tool " + call.name, tm::SpanKind::Internal,
                         &trace.request_.context());
  span_.set("gen_ai.operation.name", std::string("execute_tool"));
  span_.set("gen_ai.tool.name", call.name);
  span_.set("gen_ai.tool.call.id", call.id);
  span_.set("gen_ai.tool.type", std::string("function"));
  trace.tool_ = &span_;
}

RunTrace::ToolScope::~ToolScope() {
  if (outer_ == nullptr) return;
  if (result_.is_error) span_.set_error("tool_error");
  span_.end();
  *outer_ = nullptr;
}

void RunTrace::validation_started(int attempt) {
  if (telemetry_ == nullptr) return;
  const tm::Span& parent = tool_ != nullptr ? *tool_ : request_;
  validation_ = tm::start_span(telemetry_, "weld.validate", tm::SpanKind::Internal, &parent.context());
  validation_.set("weld.attempt", std::int64_t{attempt});
}

void RunTrace::validation_ended(const repair::Checked& checked) {
  if (telemetry_ == nullptr) return;
  validation_.set("weld.valid", checked.valid);
  validation_.set("weld.parsed", checked.parsed);
  validation_.set("weld.repairs", static_cast<std::int64_t>(checked.repairs.size()));
  validation_.set("weld.violations", static_cast<std::int64_t>(checked.validation.violations.size()));
  if (!checked.valid) {
    validation_.set_error(checked.parsed ? "schema_violation" : "invalid_json");
    ++validation_failures_;
  }
  validation_.end();
}

void RunTrace::finish(const RunOutcome& outcome) {
  if (telemetry_ == nullptr) return;
  const std::string outcome_name(subtype_name(outcome.subtype));
  run_.set("gen_ai.usage.input_tokens", outcome.usage.input_tokens);
  run_.set("gen_ai.usage.output_tokens", outcome.usage.output_tokens);
  run_.set("weld.attempts", std::int64_t{outcome.attempts});
  run_.set("weld.repairs", static_cast<std::int64_t>(outcome.repairs.size()));
  run_.set("weld.turns", std::int64_t{outcome.num_turns});
  run_.set("weld.tool_calls", std::int64_t{outcome.tool_calls});
  run_.set("weld.outcome", outcome_name);
  run_.set("weld.exit_code", std::int64_t{outcome.exit_code});
  if (!outcome.mechanism.empty()) run_.set("weld.mechanism", outcome.mechanism);
  if (outcome.subtype != Subtype::Success) run_.set_error(outcome_name);
  run_.end();

  tm::MetricsRecorder& metrics = telemetry_->metrics();
  metrics.add(instruments::kRunRequests, 1, {{"outcome", outcome_name}});
  metrics.add(instruments::kRunAttempts, outcome.attempts);
  metrics.add(instruments::kRunRepairs, static_cast<std::int64_t>(outcome.repairs.size()));
  metrics.add(instruments::kRunValidationFailures, validation_failures_);
  metrics.add(instruments::kRunTokens, outcome.usage.input_tokens, {{"gen_ai.token.type", "input"}});
  metrics.add(instruments::kRunTokens, outcome.usage.output_tokens, {{"gen_ai.token.type", "output"}});
  metrics.record(instruments::kRunDuration, static_cast<double>(outcome.duration_ms) / 1000.0,
                 {{"outcome", outcome_name}});
}

}  // namespace weld::agent
