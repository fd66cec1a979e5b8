#pragma once
/// \file
/// The headless run's turn loop (docs/run.md, "What the model sees, and how the run ends"): offers the synthetic
/// `structured_output` tool when a schema is given, runs the model's tool
/// calls, validates (with repair) each `structured_output` call, feeds errors
/// back, and ends on the first valid answer or on a limit. It never prints;
/// it reports to `RunObserver`s and returns a `RunOutcome` that the CLI turns
/// into output and an exit code.
///
/// \code
///   weld::agent::RunOptions options;
///   options.prompt = "Summarise HEAD";
///   options.schema = &loaded.schema;  options.schema_source = loaded.source;
///   weld::provider::CancelToken cancel;
///   weld::agent::RunOutcome out = weld::agent::run(*model, tools, options, observers, cancel);
///   return out.exit_code;
/// \endcode

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "weld/base/exit_code.h"
#include "weld/base/setting_names.h"
#include "weld/agent/hooks.h"
#include "weld/agent/mechanism.h"
#include "weld/agent/tool.h"
#include "weld/json/value.h"
#include "weld/provider/model.h"
#include "weld/schema/lower.h"
#include "weld/repair/repair.h"
#include "weld/schema/schema.h"
#include "weld/telemetry/telemetry.h"

namespace weld::agent {

/// Name of the synthetic terminal tool.
inline constexpr std::string_view kStructuredOutputTool = "structured_output";

/// The description the model sees for `structured_output` (docs/run.md, "What the model sees, and how the run ends").
inline constexpr std::string_view kStructuredOutputDescription =
    "Deliver the final answer by calling this tool with arguments that match its parameters schema. "
    "This is the only way to deliver the final answer: plain-text final answers are discarded. "
    "The first call with valid arguments ends the session. If the arguments do not validate, a "
    "validation error comes back as the tool result and you may call this tool again with corrected "
    "arguments.";

/// Synthesised results for sibling calls of a `structured_output` turn (docs/run.md, "What the model sees, and how the run ends").
inline constexpr std::string_view kSkippedSuccess =
    "Skipped: this turn's structured_output contract took precedence as the terminal output.";
inline constexpr std::string_view kSkippedRetry =
    "Skipped: this turn's structured_output contract took precedence as the terminal output. "
    "Re-issue this call in a separate turn if needed.";

/// Tool result of the accepted `structured_output` call.
inline constexpr std::string_view kStructuredOutputAccepted =
    "Structured output accepted; the session is complete.";

/// The user message that feeds an invalid native answer back (docs/run.md, "Mechanisms"):
/// this prefix, the validation message (schema::describe, data name "answer"), then
/// kNativeFeedbackSuffix.
inline constexpr std::string_view kNativeFeedbackPrefix =
    "Your answer did not validate against the required JSON schema: ";
inline constexpr std::string_view kNativeFeedbackSuffix =
    " Reply again with only the corrected JSON value.";

/// The hint printed with exit 53 when a schema is given (docs/run.md, "Exit codes"), with the
/// settings named as `names` says: "Note: --json-schema is active. If the model never called
/// structured_output, verify it isn't denied by permissions.deny / --exclude-tools and that the
/// schema is satisfiable." (the CLI); without an exclude_tools setting (Python: runs offer no
/// tools), the advice about denying it is left out.
std::string max_turns_schema_note(const SettingNames& names);

/// How the run ended: the envelope's `subtype` (docs/run.md, "Output formats").
enum class Subtype {
  Success,
  ErrorPlainText,
  ErrorMaxTurns,
  ErrorMaxStructuredOutputRetries,
  ErrorBudget,
  ErrorApi,
  ErrorCancelled,
  ErrorDuringExecution,
};

/// "success", "error_plain_text", …
std::string_view subtype_name(Subtype subtype);

/// What a run is asked to do.
struct RunOptions {
  /// Model name sent with each request (may be empty for the provider default).
  std::string model;
  std::string system_prompt;
  /// The user's prompt (first user message).
  std::string prompt;
  /// Earlier messages of a resumed session, sent before `prompt`.
  std::vector<provider::Message> history;
  /// The token limit of each model request (--max-tokens).
  std::int64_t max_tokens = 8192;
  /// Sampling settings sent with each request (--temperature; a batch
  /// line's own fields); unset ones are not sent.
  provider::Sampling sampling;
  /// --json-schema: the compiled schema (validation) and its source (sent
  /// as the tool's parameters). nullptr: an ordinary headless run.
  const schema::Schema* schema = nullptr;
  json::Value schema_source;
  /// False when permissions.deny / --exclude-tools remove structured_output.
  bool offer_structured_output = true;
  /// How the structured answer is obtained (docs/run.md, "Mechanisms"). `Auto` probes the
  /// model once (unless the cache below remembers) and then uses `Native`
  /// or `Tool`.
  Mechanism mechanism = Mechanism::Tool;
  /// For `Auto`: the probe cache file ("" = do not remember) and this
  /// upstream's key in it (see mechanism.h).
  std::string mechanism_cache_path;
  std::string mechanism_cache_key;
  /// Limits; negative or zero-valued means none (see each).
  int max_session_turns = -1;        ///< < 0: unlimited
  int max_tool_calls = -1;           ///< < 0: unlimited
  double max_wall_time_seconds = 0;  ///< <= 0: unlimited
  /// Whether a thread of the run sets `cancel` when the wall-time budget
  /// runs out (so that a request in flight ends too). False when the caller
  /// does it: weld batch's fiber loop cancels a row's waits at its deadline,
  /// and a thread per row would undo what the fibers are for.
  bool wall_time_thread = true;
  int max_structured_retries = 5;
  /// How the messages name the limits and the mechanism (the CLI: its
  /// flags).
  SettingNames names;
  /// Repairs allowed before a `structured_output` call counts as invalid.
  repair::Options repair;
  /// Working directory for tools.
  std::string cwd;
  std::string session_id;
  /// Hooks from settings (not owned; nullptr: none).
  const HookRunner* hooks = nullptr;
  /// Upper bound on a tool result's size sent back to the model.
  std::size_t max_tool_result_bytes = 256 * 1024;
  /// MCP servers and their state, for the init message (see RunStart).
  std::vector<std::pair<std::string, std::string>> mcp_servers;
  /// Report partial structured answers while they stream
  /// (RunObserver::on_partial_result; see partial_result.h).
  bool partial_results = false;
  /// Telemetry (docs/telemetry.md; not owned; nullptr: off): the run's span goes under
  /// `trace_parent` (TRACEPARENT, or a batch's span; invalid: a new trace).
  telemetry::Telemetry* telemetry = nullptr;
  telemetry::SpanContext trace_parent;
  /// The agent this run serves (`weld.agent`), when one is named.
  std::string agent;
};

/// The run's description at start (the `init` message).
struct RunStart {
  std::string session_id;
  std::string model;
  std::string provider;
  std::string cwd;
  std::vector<std::string> tools;
  bool json_schema = false;
  /// With --json-schema: "tool" or "native" (after an `auto` probe).
  std::string mechanism;
  /// MCP servers and their state ("connected" / "failed"), in settings order.
  std::vector<std::pair<std::string, std::string>> mcp_servers;
  /// `native`: what lowering the schema for the provider changed (the
  /// server no longer enforces it; weld still validates the original).
  std::vector<schema::Change> native_relaxed;
};

/// Receives the run's events as they happen. Default: ignore.
class RunObserver {
 public:
  virtual ~RunObserver() = default;
  virtual void on_start(const RunStart& start) {}
  /// A provider stream event (the SSE `data:` JSON), during a request.
  virtual void on_stream_event(const json::Value& event) {}
  /// The model's answer for turn `turn` (1-based).
  virtual void on_assistant(const provider::Response& response, int turn) {}
  /// The tool results sent back (or, on the last turn, recorded).
  virtual void on_tool_results(const provider::Message& message) {}
  /// The user's prompt, once, before the first request.
  virtual void on_prompt(const provider::Message& message) {}
  /// With RunOptions::partial_results: the structured answer so far, closed
  /// into JSON; `attempt` rises when a new answer starts (see
  /// partial_result.h).
  virtual void on_partial_result(const json::Value& partial, int attempt) {}
};

/// How a run ended, with everything the result envelope needs.
struct RunOutcome {
  Subtype subtype = Subtype::ErrorDuringExecution;
  /// docs/design.md, "Exit codes".
  /// An `ExitCode` (weld/base/exit_code.h), as the process's int.
  int exit_code = ExitCode::Failure;
  /// For failures: the full message (what goes to stderr and `error.message`).
  std::string error_message;
  /// Extra stderr lines after the message (the exit-53 note).
  std::string error_note;
  /// Success with --json-schema: the validated payload (model's key order).
  std::optional<json::Value> structured;
  /// Success without --json-schema: the model's final text.
  std::string final_text;
  /// The last invalid `structured_output` arguments (parsed when possible,
  /// else the raw text), for error envelopes.
  std::optional<json::Value> last_candidate;
  int num_turns = 0;
  /// `structured_output` calls evaluated.
  int attempts = 0;
  /// Tool calls run (structured_output excluded).
  int tool_calls = 0;
  std::vector<repair::Repair> repairs;
  provider::Usage usage;
  std::int64_t duration_ms = 0;
  std::int64_t duration_api_ms = 0;
  /// Milliseconds from sending the first request to the first event streamed
  /// back (nullopt when nothing was streamed, e.g. the offline model).
  std::optional<std::int64_t> ttft_ms;
  /// The HTTP status of the provider error that ended the run (0: none).
  int api_error_status = 0;
  std::string stop_reason;
  std::string session_id;
  /// With --json-schema: the mechanism used ("tool" / "native").
  std::string mechanism;
  /// Non-fatal problems to report on stderr (e.g. the probe cache could
  /// not be written).
  std::vector<std::string> warnings;
};

/// Runs the loop until it ends. `tools` are the tools offered besides
/// structured_output (not owned). `cancel` may be set from another thread
/// (a signal) at any time: the run then ends with exit 130 promptly.
RunOutcome run(provider::Model& model, const std::vector<const Tool*>& tools, const RunOptions& options,
               const std::vector<RunObserver*>& observers, provider::CancelToken& cancel);

/// The plain-text failure message (docs/run.md, "What the model sees, and how the run ends"), from the turn count and all
/// the text the model produced, in order; the schema's setting named as `names` says.
std::string plain_text_message(int turns, std::string_view model_text, const SettingNames& names = {});

}  // namespace weld::agent
