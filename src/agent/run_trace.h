#pragma once
// The run's telemetry (docs/telemetry.md, "Spans of a run"): the run span and its children —
// each model request, each tool call the request asked for, each validation
// — plus the run's metrics. The run loop calls one method per stage; with
// telemetry off every call returns at once. Attributes are counts, names,
// ids and outcomes only: never the prompt, a payload or the schema (docs/design.md, "Privacy").

#include <string_view>

#include "weld/agent/run_loop.h"
#include "weld/telemetry/telemetry.h"

namespace weld::agent {

class RunTrace {
 public:
  /// Starts the run span under `options.trace_parent` (a new trace when invalid).
  RunTrace(const RunOptions& options, std::string_view provider_name);
  RunTrace(const RunTrace&) = delete;
  RunTrace& operator=(const RunTrace&) = delete;

  /// A model request (the `auto` mechanism probe when `probe`).
  void request_started(int turn, bool probe = false);
  void request_ended(const Result<provider::Response>& response);

  /// A tool call span for as long as the scope lives, child of the request
  /// that asked for it; it reads `result.is_error` when it ends.
  class ToolScope {
   public:
    ToolScope(RunTrace& trace, const provider::ToolCall& call, const provider::ToolResult& result);
    ~ToolScope();
    ToolScope(const ToolScope&) = delete;
    ToolScope& operator=(const ToolScope&) = delete;

   private:
    friend class RunTrace;
    telemetry::Span span_;
    const provider::ToolResult& result_;
    // RunTrace::tool_, pointed at span_ while the scope lives (nullptr: off).
    telemetry::Span** outer_;
  };

  /// A validation of a structured answer (child of the current tool call, or
  /// of the request for a native answer): start before, end with the result.
  void validation_started(int attempt);
  void validation_ended(const repair::Checked& checked);

  /// Ends the run span with the outcome and records the run's metrics.
  void finish(const RunOutcome& outcome);

 private:
  telemetry::Telemetry* telemetry_;
  std::string model_;
  std::string provider_;
  telemetry::Span run_;
  telemetry::Span request_;
  /// The open tool call span (nullptr outside ToolScope).
  telemetry::Span* tool_ = nullptr;
  telemetry::Span validation_;
  std::uint64_t request_started_ns_ = 0;
  int validation_failures_ = 0;
};

}  // namespace weld::agent
