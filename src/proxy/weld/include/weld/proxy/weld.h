#pragma once
/// \file
/// The proxy's weld logic as pure functions over JSON bodies (no I/O, no
/// sockets): tagging, rewriting a tagged request for the upstream, finding
/// the tool call in an upstream answer (whole or streamed), checking it
/// (parse, repair, clamp, validate), the retry turn, and rendering what the
/// client receives (docs/proxy-weld.md). The server core drives these.

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "weld/json/value.h"
#include "weld/provider/codec.h"
#include "weld/provider/model.h"
#include "weld/provider/stream_parser.h"
#include "weld/proxy/passthrough.h"
#include "weld/repair/repair.h"
#include "weld/schema/lower.h"
#include "weld/schema/schema.h"

namespace weld::proxy {

/// Which wire protocol a client request speaks: the provider's own enum, so
/// that the proxy reads and writes each shape through that protocol's codec
/// (docs/protocols.md).
using provider::Protocol;

/// How the agent's shape is imposed.
enum class Mode { Forced, TwoPhase };
/// Constraint mechanism (docs/run.md, "Mechanisms").
enum class Mechanism { Tool, Native, Auto };

/// One registry entry (docs/proxy.md, "The registry"), compiled.
struct Agent {
  std::string name;
  std::string description;
  json::Value input_schema;
  int max_retries = 2;
  bool clamp = true;
  Mode mode = Mode::Forced;
  Mechanism mechanism = Mechanism::Tool;
  /// OpenAI shape only: send `chat_template_kwargs: {"enable_thinking": false}`
  /// when forcing the tool (vLLM, SGLang and llama.cpp honour it and turn a
  /// thinking model's reasoning off). A strict OpenAI endpoint rejects the
  /// unknown field, so set false (registry `"chat_template_kwargs": false`)
  /// for such an upstream. Default: sent (docs/proxy.md, "What a tagged request goes through").
  bool chat_template_kwargs = true;
  /// Registry `"chat_template_kwargs": {…}`: these kwargs instead of the
  /// default, merged over the client's own on every OpenAI-shape upstream
  /// request of the agent (forced or not), e.g. {"enable_thinking": false,
  /// "thinking_budget": 0}. Null when the registry gave none.
  json::Value template_kwargs;
  /// Compiled strictly from input_schema.
  std::shared_ptr<const schema::Schema> schema;
  /// The agent's tool in each protocol's shape (indexed by Protocol), built
  /// once by `prepare_agent` (load_registry calls it) so that a request
  /// copies it rather than builds it. Null in an Agent nobody prepared: the
  /// tool is then built per request.
  std::array<json::Value, provider::kProtocolCount> tools;
  /// `native`: the schema lowered for each protocol's own structured output
  /// (openai-strict for Chat and Responses, anthropic), built by
  /// `prepare_agent`; null when not prepared (then lowered per request).
  std::shared_ptr<const schema::Lowering> native_openai;
  std::shared_ptr<const schema::Lowering> native_anthropic;
  /// Registry `"passthrough_when"`: the client's side requests that are
  /// relayed untouched (see passthrough.h).
  PassthroughRule passthrough;
  /// Registry `"stream_partial": true` (forced mode): a streaming client
  /// gets the answer's JSON as it is generated (PartialStream,
  /// docs/proxy.md "Partial answers").
  bool stream_partial = false;
};

/// Builds the agent's cached `tools` and, for a native or auto agent, its
/// lowerings, from its name, description and input_schema; call again after
/// changing those.
void prepare_agent(Agent& agent);

/// The agent's schema lowered for `api`'s own structured output: the
/// prepared one, or lowered now.
std::shared_ptr<const schema::Lowering> native_lowering(const Agent& agent, Protocol api);

/// A model name split at its `__schema=` suffix.
struct ModelTag {
  std::string base_model;
  std::string agent;
};

/// Splits "base__schema=agent" into {base, agent}; nullopt when the model has
/// no `__schema=` marker (untagged). The agent is the text after the LAST
/// marker; the base is the text before the FIRST one (so the upstream never
/// sees a marker). Both are trimmed of ASCII whitespace. An empty agent
/// ("m__schema=") is returned as a tag with `agent == ""`, so the caller
/// answers 400 "unknown agent" rather than passing a marker upstream.
///
/// \code
///   auto tag = weld::proxy::parse_model_tag("qwen3-27b__schema=router");
///   // tag->base_model == "qwen3-27b", tag->agent == "router"
/// \endcode
std::optional<ModelTag> parse_model_tag(std::string_view model);

/// Rewrites a client request body for the upstream, forced mode: model
/// suffix stripped (`base_model`), tools replaced by the agent's single tool,
/// tool_choice forced to it, thinking dropped and
/// `chat_template_kwargs: {"enable_thinking": false}` added (OpenAI shape),
/// `stream` set to `upstream_stream`. Two-phase: client tools kept, agent
/// tool added, tool_choice left as the client set it (or forced when
/// `force_agent_tool`).
///
/// Whenever the tool is forced, what conflicts with forced tool use is
/// dropped: `thinking`; Anthropic `output_config.format` (and the beta
/// `output_format`); OpenAI `response_format`, `reasoning_effort` and the
/// legacy `functions`/`function_call`. The schema sent gets a root
/// `"type":"object"` when it has none (both APIs require an object root);
/// validation always uses the agent's original schema. OpenAI streaming
/// upstream requests ask for `stream_options.include_usage`; non-streaming
/// ones drop `stream_options` (OpenAI rejects it without `stream`).
/// Everything else (messages, system, max_tokens, temperature, metadata…) is
/// kept in the client's key order. The body is taken by value: pass it with
/// `std::move` to rewrite it in place (a long conversation is then not
/// copied); an upstream request built here can be passed back in (the
/// two-phase forced follow-up does): the rewrite is idempotent.
///
/// Mechanism (docs/run.md, "Mechanisms"), forced mode only: `Native` offers no tool and sets
/// the provider's own format instead (Anthropic `output_config.format`
/// json_schema, OpenAI `response_format` json_schema); the answer is then the
/// message text (see `check_candidate`). `Auto` is treated as `Tool`: the
/// caller resolves it (by probing the upstream) into Tool or Native.
///
/// \code
///   json::Value up = build_upstream_request(Protocol::AnthropicMessages, body, agent, tag->base_model,
///                                           /*upstream_stream=*/false, /*force_agent_tool=*/false);
/// \endcode
json::Value build_upstream_request(Protocol api, json::Value client_body, const Agent& agent,
                                   std::string_view base_model, bool upstream_stream,
                                   bool force_agent_tool);

/// Token usage summed over upstream attempts (saturating, as everywhere).
using Usage = provider::Usage;

/// What the upstream answered and which of its tool calls is the agent's:
/// the answer as the provider's reader of the protocol read it (streamed or
/// whole), kept whole from the reader to the renderer. The codec of the
/// protocol rebuilds its assistant turn when one is needed (the retry turn,
/// the two-phase follow-up and pass-back); nothing is copied out of it.
struct Candidate {
  /// The answer: text, tool calls, usage, id, model, `created`, and its
  /// parts in the order the server sent them.
  provider::Response response;
  /// Index in `response.message.tool_calls` of the first call of the agent's
  /// tool, found by its block, never by stop_reason / finish_reason; nullopt
  /// when the answer did not call it.
  std::optional<std::size_t> agent_call;

  /// The agent's call; nullptr when there is none.
  const provider::ToolCall* call() const {
    return agent_call ? &response.message.tool_calls[*agent_call] : nullptr;
  }
  /// Whether the answer called a tool other than the agent's (two-phase:
  /// those calls are passed back to the client).
  bool has_other_tool_calls() const;
};

/// The index of the first call of `agent_tool` in `response`'s tool calls;
/// nullopt when it made none.
std::optional<std::size_t> find_agent_call(const provider::Response& response, std::string_view agent_tool);

/// `response` (from the provider's reader, streamed or whole) as a
/// candidate: the response kept whole and its first call of `agent_tool`.
///
/// \code
///   auto reader = provider::make_stream_parser(api);
///   ... reader->feed(bytes) ...
///   Result<provider::Response> response = reader->finish();
///   Candidate c = make_candidate(std::move(*response), agent.name);
/// \endcode
Candidate make_candidate(provider::Response response, std::string_view agent_tool);

/// The verdict on a candidate.
struct Verdict {
  bool valid = false;
  /// The accepted value (after repairs) when valid; when invalid, the value
  /// as parsed (null when the text did not parse), for the error's
  /// `candidate`.
  json::Value value;
  /// Compact JSON text of `value`, in the model's key order (valid only).
  std::string text;
  std::vector<repair::Repair> repairs;
  /// Validation messages, one per line, Ajv wording (`params/x must …`);
  /// what goes back to the model in the retry turn.
  std::string errors;
};

/// Parses, repairs, clamps (when agent.clamp) and validates a candidate that
/// came in `api` against the agent's full compiled schema. `allow_repair` switches the
/// parse repairs and coercions (docs/design.md, "Repairs"); clamping follows `agent.clamp`
/// alone. A candidate without the tool call (no `agent_call`) is invalid with the
/// message "the answer did not call the tool '<agent>': call it with
/// arguments that match its input schema". A forced `Native` agent checks
/// the answer's text instead of the arguments, mapped back through `api`'s
/// lowering (empty text is invalid: "the answer was empty: answer with only
/// a JSON value that matches the schema").
///
/// \code
///   Verdict v = check_candidate(api, candidate, agent);
///   if (v.valid) reply(render_response(api, candidate.response, v.text, usage, client_model));
///   else append_retry_turn(api, upstream_body, candidate, v.errors);
/// \endcode
Verdict check_candidate(Protocol api, const Candidate& candidate, const Agent& agent, bool allow_repair = true);

/// Appends the failed call and an error tool result carrying `errors` to
/// `upstream_body`'s messages, for the next attempt; the codec of `api`
/// writes the assistant turn from `candidate.response`.
/// Anthropic: the assistant message (empty text blocks left out), then a user
/// message of `tool_result` blocks {tool_use_id, content: errors, is_error:
/// true}. OpenAI: the assistant message with its tool_calls, then a
/// `role:"tool"` message per call with content "Error: " + errors. A call
/// whose arguments were not a JSON object is sent back with {} (keeping its
/// id) and the result quotes what the model sent. Calls of other tools get
/// "Error: this tool call was not run." When the answer had no call of the
/// agent's tool, `errors` goes back as a user message.
void append_retry_turn(Protocol api, json::Value& upstream_body, const Candidate& candidate,
                       std::string_view errors);

/// The client's non-streaming success body: the JSON text as an Anthropic
/// text block with stop_reason "end_turn", or an OpenAI message.content with
/// finish_reason "stop"; usage summed; the id and `created` of `last`, the
/// upstream's last answer. Compact JSON text, written directly (it is on
/// every tagged request's path).
std::string render_response(Protocol api, const provider::Response& last, std::string_view text,
                            const Usage& usage, std::string_view client_model);

/// The client's streaming success: complete SSE frames ("event: …\ndata: …\n\n"
/// for Anthropic; "data: …\n\n" … "data: [DONE]\n\n" for OpenAI).
/// Equal to `render_stream_start` + `render_stream_rest` with a head made
/// from `last` (id, created) and `client_model`. `include_usage`: the client
/// asked `stream_options.include_usage` (OpenAI; adds the usage chunk).
std::string render_stream(Protocol api, const provider::Response& last, std::string_view text,
                          const Usage& usage, std::string_view client_model, bool include_usage = false);

/// What a rendered stream needs before the answer is known, so the core can
/// send the start early and keep the client alive with `keepalive_frame`.
using StreamHead = provider::AnswerHead;

/// The head of an answer made from `upstream`, the upstream's last answer
/// (docs/protocols.md, "Codecs"): its id, `client_model`, and its `created`
/// as a transparent proxy passes it on — now only when the upstream said none.
/// The one head of `render_response`, `render_stream` and the pass-back.
StreamHead answer_head(const provider::Response& upstream, std::string_view client_model);

/// The opening frame: Anthropic `message_start` (usage zero until the end);
/// OpenAI the first chunk with `delta.role` "assistant".
std::string render_stream_start(Protocol api, const StreamHead& head);

/// Everything after the opening frame: Anthropic content_block_start, text
/// deltas, content_block_stop, message_delta (stop_reason end_turn, usage
/// including input_tokens), message_stop; OpenAI content chunks, the
/// finish_reason "stop" chunk, the usage chunk when asked, `data: [DONE]`.
std::string render_stream_rest(Protocol api, const StreamHead& head, std::string_view text,
                               const Usage& usage);

/// A keep-alive frame for a streaming client while the upstream generates:
/// `event: ping` (Anthropic) or an SSE comment line (OpenAI).
std::string keepalive_frame(Protocol api);

/// An error body in the client's API shape: Anthropic
/// {"type":"error","error":{"type":…,"message":…}}, OpenAI
/// {"error":{"message":…,"type":…,"param":null,"code":null}}. `candidate`
/// (may be null) is attached as `error.candidate` (the last candidate: the
/// parsed value, or the raw argument text when it did not parse).
json::Value render_error(Protocol api, std::string_view type, std::string_view message,
                         const json::Value* candidate = nullptr);

/// The same error as an SSE frame, for a stream already started: Anthropic
/// `event: error` with the error body; OpenAI a `data:` chunk holding the
/// `{"error":…}` body (what the SDKs' stream readers raise on).
std::string render_stream_error(Protocol api, std::string_view type, std::string_view message,
                                const json::Value* candidate = nullptr);

}  // namespace weld::proxy
