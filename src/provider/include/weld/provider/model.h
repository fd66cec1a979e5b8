#pragma once
/// \file
/// The provider-neutral conversation model that the run loop speaks, and the
/// `Model` interface each wire protocol (OpenAI Chat Completions, Anthropic
/// Messages, the offline model) implements (docs/design.md, "What flows between them").

#include <atomic>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "weld/base/result.h"
#include "weld/json/value.h"
#include "weld/provider/protocol.h"

namespace weld::provider {

/// A tool offered to the model.
struct ToolSpec {
  std::string name;
  std::string description;
  /// JSON Schema of the arguments (sent as-is, or adapted by the protocol
  /// converter — e.g. Anthropic needs a root "type":"object").
  json::Value parameters;
};

/// A tool call made by the model.
struct ToolCall {
  /// Provider call id ("call_…" / "toolu_…").
  std::string id;
  std::string name;
  /// Argument text exactly as the model produced it (fragments joined). May
  /// be empty or invalid JSON; parsing and repair are the caller's job.
  std::string arguments;
};

/// The result of one tool call, sent back to the model.
struct ToolResult {
  std::string tool_call_id;
  std::string content;
  /// Marked as an error (Anthropic `is_error`; OpenAI has no flag, so the
  /// converter prefixes nothing and relies on the content).
  bool is_error = false;
};

/// Who speaks.
enum class Role { User, Assistant };

/// One message of the conversation. An assistant message has `text` and/or
/// `tool_calls`; a user message has `text` and/or `tool_results`.
struct Message {
  Role role = Role::User;
  std::string text;
  std::vector<ToolCall> tool_calls;
  std::vector<ToolResult> tool_results;
};

/// Token counts as the provider reported them.
struct Usage {
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  std::int64_t cache_read_input_tokens = 0;
  std::int64_t cache_creation_input_tokens = 0;
  /// Adds another response's counts (a run's turns, a proxy's attempts).
  /// Each count saturates at the int64 range instead of overflowing: a
  /// server may report anything up to it (docs/protocols.md, "How an answer is judged").
  Usage& operator+=(const Usage& other) {
    input_tokens = saturating_add(input_tokens, other.input_tokens);
    output_tokens = saturating_add(output_tokens, other.output_tokens);
    cache_read_input_tokens = saturating_add(cache_read_input_tokens, other.cache_read_input_tokens);
    cache_creation_input_tokens = saturating_add(cache_creation_input_tokens, other.cache_creation_input_tokens);
    return *this;
  }
  /// input + output, saturated.
  std::int64_t total() const { return saturating_add(input_tokens, output_tokens); }

 private:
  static std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
    std::int64_t out;
    if (__builtin_add_overflow(a, b, &out))
      return b > 0 ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min();
    return out;
  }
};

/// A provider's own constrained decoding of the final text (the `native`
/// mechanism, docs/run.md "Mechanisms"): OpenAI `response_format` json_schema (also read by
/// vLLM, llama.cpp, SGLang, Ollama's /v1), Anthropic `output_config.format`.
struct ResponseFormat {
  /// OpenAI `json_schema.name` (letters, digits, `_`, `-`; at most 64).
  std::string name = "structured_output";
  /// The JSON Schema the answer text must follow.
  json::Value schema;
  /// OpenAI (Chat and Responses) `strict`: the schema is sent as it is, so a
  /// caller asking for strict mode gives one lowered for it
  /// (weld/schema/lower.h, openai-strict).
  bool strict = false;
  /// What the answer is, sent beside the schema where the protocol has a
  /// place for it (OpenAI `json_schema.description`); none when empty.
  std::string description;
};

/// `schema` as a response format carries it: a boolean schema as {}.
inline json::Value sent_schema(const json::Value& schema) {
  return schema.is_bool() ? json::Value(json::Object{}) : schema;
}

/// Sampling settings a caller chose (`--temperature`, a batch line's own
/// fields). Each is sent only when set, under the name of the wire protocol
/// that has it (`sampling_fields`); the others are not sent.
struct Sampling {
  std::optional<double> temperature;
  std::optional<double> top_p;
  /// Anthropic `top_k` (also read by vLLM, llama.cpp and SGLang on their
  /// OpenAI-compatible endpoints, not by api.openai.com).
  std::optional<std::int64_t> top_k;
  /// OpenAI Chat `seed`.
  std::optional<std::int64_t> seed;
  /// OpenAI Chat `stop`, Anthropic `stop_sequences`.
  std::vector<std::string> stop;
  /// OpenAI Chat.
  std::optional<double> presence_penalty;
  std::optional<double> frequency_penalty;
  friend bool operator==(const Sampling&, const Sampling&) = default;
};

/// One model request.
struct Request {
  std::string model;
  std::string system;
  std::vector<Message> messages;
  std::vector<ToolSpec> tools;
  /// When set, tool_choice is forced to this tool.
  std::optional<std::string> forced_tool;
  /// When set, the answer text is constrained to this schema (if the server
  /// honours it; weld always validates locally).
  std::optional<ResponseFormat> response_format;
  std::int64_t max_tokens = 8192;
  Sampling sampling;
};

/// One piece of the assistant message, in the order the provider sent it:
/// what a proxy needs to give the message back in the API's own shape.
struct Part {
  enum class Kind {
    Text,      ///< a text block / content (`text`)
    ToolCall,  ///< `message.tool_calls[tool_call]`
    Other,     ///< a block weld does not model (thinking, reasoning, server tools), verbatim in `raw`
  };
  Kind kind = Kind::Text;
  std::string text;
  std::size_t tool_call = 0;
  json::Value raw;
};

/// The model's answer to one request, read the same way by the run, the
/// proxy and the batch (one reader per wire protocol, docs/protocols.md).
struct Response {
  /// Role::Assistant: the text (text blocks joined, then any refusal) and the
  /// tool calls in the order produced. Every call has an id (one is made,
  /// "call_weld_<n>" / "toolu_weld_<n>", when the server sent none).
  Message message;
  /// What the model said instead of answering (OpenAI `refusal`), also
  /// appended to `message.text` so that no consumer loses it.
  std::string refusal;
  /// The provider's stop reason as sent ("end_turn", "tool_use", "stop",
  /// "tool_calls", "length", "completed", …).
  std::string stop_reason;
  Usage usage;
  /// Provider message id, when given.
  std::string id;
  /// The model that answered, as the server named it.
  std::string model;
  /// OpenAI `created` / `created_at` (Unix seconds); 0 if absent.
  std::int64_t created = 0;
  /// The message in the provider's own order, for giving it back.
  std::vector<Part> parts;
};

/// Observes a streaming response as it arrives.
struct StreamObserver {
  /// Each provider stream event, as the provider's own JSON (the `data:`
  /// payload of an SSE event), for `--include-partial-messages`.
  std::function<void(const json::Value& event)> on_event;
  /// A fragment of a tool call's arguments text as it arrives: the call's
  /// position in the answer (0-based), its name as known so far, the text
  /// (partial structured answers, docs/run.md "Partial results").
  std::function<void(std::size_t call_index, std::string_view name, std::string_view fragment)> on_tool_arguments;
  /// A fragment of the answer's text as it arrives.
  std::function<void(std::string_view fragment)> on_text;
  /// What streamed so far is void: the request is sent again (the stream
  /// was cut before its terminal event, or the server sent a transient
  /// error in it), and the events, fragments and text start over.
  std::function<void()> on_restart;
};

/// Cooperative cancellation shared between the run loop and a request in
/// flight (set from a signal handler via the atomic flag).
struct CancelToken {
  std::atomic<bool> cancelled{false};
};

/// Error codes a `Model::complete` may return in `Error::code`:
/// "auth" (401/403: exit 41), "http" (other status after retries, or an
/// error event the server sent inside the stream), "network" (connection
/// failures after retries, TLS failures), "timeout" (connect or idle
/// timeout), "protocol" (malformed or truncated stream), "cancelled".
/// `Error::message` is complete on its own and names the URL; the API key
/// never appears in it. `Error::where` is "POST <url>".
///
/// A model: one call per turn. Implementations retry transient failures
/// (429/5xx/connection) themselves, honouring Retry-After.
class Model {
 public:
  virtual ~Model() = default;
  /// Sends `request`, streams the answer, returns it complete.
  virtual Result<Response> complete(const Request& request, const StreamObserver& observer,
                                    CancelToken& cancel) = 0;
  /// Provider name for the init message: "openai", "anthropic", "offline".
  virtual std::string provider_name() const = 0;
  /// The wire protocol this model speaks; nullopt for a model that talks to
  /// no server (the offline model, a test's scripted model).
  virtual std::optional<Protocol> protocol() const { return std::nullopt; }
  /// The set fields of `sampling` this model's wire protocol has no place
  /// for, which `complete` does not send (sampling.h). Default: none.
  virtual std::vector<std::string> sampling_not_sent(const Sampling& sampling) const {
    (void)sampling;
    return {};
  }
};

}  // namespace weld::provider
