#pragma once
/// \file
/// The proxy's weld logic as pure functions over JSON bodies (no I/O, no
/// sockets): tagging, rewriting a tagged request for the upstream, finding
/// the tool call in an upstream answer (whole or streamed), checking it
/// (parse, repair, clamp, validate), the retry turn, and rendering what the
/// client receives. SPEC §3.3, §3.4. The server core drives these.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "weld/json/value.h"
#include "weld/repair/repair.h"
#include "weld/schema/schema.h"

namespace weld::proxy {

/// Which client API a request speaks.
enum class Api { Anthropic /* POST /v1/messages */, OpenAI /* POST /v1/chat/completions */ };

/// How the agent's shape is imposed.
enum class Mode { Forced, TwoPhase };
/// Constraint mechanism (SPEC §4).
enum class Mechanism { Tool, Native, Auto };

/// One registry entry (SPEC §3.2), compiled.
struct Agent {
  std::string name;
  std::string description;
  json::Value input_schema;
  int max_retries = 2;
  bool clamp = true;
  Mode mode = Mode::Forced;
  Mechanism mechanism = Mechanism::Tool;
  /// Compiled strictly from input_schema.
  std::shared_ptr<const schema::Schema> schema;
};

/// Splits "base__schema=agent" into {base, agent}; nullopt when untagged.
struct ModelTag {
  std::string base_model;
  std::string agent;
};
std::optional<ModelTag> parse_model_tag(std::string_view model);

/// Rewrites a client request body for the upstream, forced mode: model
/// suffix stripped (`base_model`), tools replaced by the agent's single tool,
/// tool_choice forced to it, thinking dropped and
/// `chat_template_kwargs: {"enable_thinking": false}` added (OpenAI shape),
/// `stream` set to `upstream_stream`. Two-phase: client tools kept, agent
/// tool added, tool_choice left as the client set it (or forced when
/// `force_agent_tool`).
json::Value build_upstream_request(Api api, const json::Value& client_body, const Agent& agent,
                                   std::string_view base_model, bool upstream_stream,
                                   bool force_agent_tool);

/// Token usage summed over upstream attempts.
struct Usage {
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
};

/// What the upstream answered, reduced to what the weld needs.
struct Candidate {
  /// True when a call of the agent's tool was found (by its block, never by
  /// stop_reason / finish_reason).
  bool found = false;
  std::string tool_call_id;
  /// Argument text as produced (fragments joined for streams).
  std::string arguments;
  /// Calls of other tools (two-phase: passed back to the client).
  bool has_other_tool_calls = false;
  /// Any assistant text.
  std::string text;
  Usage usage;
  /// The upstream's assistant message in the request's API shape, for the
  /// retry turn and two-phase pass-back.
  json::Value assistant_message;
  /// The upstream's response id and model, echoed to the client.
  std::string id;
  std::string model;
};

/// Reads a non-streaming upstream response body.
Candidate read_response(Api api, const json::Value& upstream_body, std::string_view agent_tool);

/// Accumulates a streamed upstream response event by event (each the JSON
/// payload of one SSE `data:` line; "[DONE]" is not passed).
class StreamReader {
 public:
  StreamReader(Api api, std::string agent_tool);
  /// Feeds one event. Returns false (with `error()` set) on a malformed one.
  bool feed(const json::Value& event);
  /// True once the upstream signalled the end (message_stop / finish_reason).
  bool finished() const;
  /// The candidate so far (complete after `finished()`).
  Candidate candidate() const;
  const std::string& error() const;

 private:
  struct State;
  std::shared_ptr<State> state_;
};

/// The verdict on a candidate.
struct Verdict {
  bool valid = false;
  /// The accepted value (after repairs) when valid.
  json::Value value;
  /// Compact JSON text of `value`, in the model's key order.
  std::string text;
  std::vector<repair::Repair> repairs;
  /// Validation messages, one per line, Ajv wording (`params/x must …`).
  std::string errors;
};

/// Parses, repairs, clamps (when agent.clamp) and validates a candidate.
Verdict check_candidate(const Candidate& candidate, const Agent& agent, bool allow_repair = true);

/// Appends the failed call and an error tool result carrying `errors` to
/// `upstream_body`'s messages, for the next attempt.
void append_retry_turn(Api api, json::Value& upstream_body, const Candidate& candidate,
                       std::string_view errors);

/// The client's non-streaming success body: the JSON text as an Anthropic
/// text block with stop_reason "end_turn", or an OpenAI message.content with
/// finish_reason "stop"; usage summed.
json::Value render_response(Api api, const Candidate& last, std::string_view text, const Usage& usage,
                            std::string_view client_model);

/// The client's streaming success: complete SSE frames ("event: …\ndata: …\n\n"
/// for Anthropic; "data: …\n\n" … "data: [DONE]\n\n" for OpenAI).
std::string render_stream(Api api, const Candidate& last, std::string_view text, const Usage& usage,
                          std::string_view client_model);

/// A keep-alive frame for a streaming client while the upstream generates:
/// `event: ping` (Anthropic) or an SSE comment line (OpenAI).
std::string keepalive_frame(Api api);

/// An error body in the client's API shape, e.g. Anthropic
/// {"type":"error","error":{"type":…,"message":…}}; `candidate` (may be
/// null) is attached as the last candidate.
json::Value render_error(Api api, std::string_view type, std::string_view message,
                         const json::Value* candidate = nullptr);

/// The same error as an SSE frame, for a stream already started.
std::string render_stream_error(Api api, std::string_view type, std::string_view message);

}  // namespace weld::proxy
