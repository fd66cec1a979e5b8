#pragma once
/// \file
/// One two-way codec per wire protocol (docs/protocols.md, "Codecs"): the
/// reader of a model server's answer and the writer of every shape weld
/// builds in that protocol, for the run, the proxy and the batch alike. A
/// caller picks the codec by the protocol it speaks (`codec_for`) and never
/// branches on the protocol itself: a new protocol is a new folder under
/// `src/provider/` with its reader and its writer.
///
/// \code
///   const weld::provider::Codec& codec = weld::provider::codec_for(protocol);
///   json::Value tools = json::Array{codec.tool(spec)};
///   body.set("tool_choice", codec.forced_tool_choice(spec.name));
///   std::string answer = codec.answer(head, R"({"ok":true})", usage);
/// \endcode

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "weld/base/result.h"
#include "weld/json/value.h"
#include "weld/provider/model.h"
#include "weld/provider/stream_parser.h"

namespace weld::provider {

/// What an answer written for a client carries besides its text.
struct AnswerHead {
  /// Message / completion / response id; when empty the writer makes a
  /// deterministic one ("msg_weld_…", "chatcmpl-weld…", "resp_weld_…").
  std::string id;
  /// The model name the client asked for.
  std::string model;
  /// OpenAI `created` / `created_at` (Unix seconds).
  std::int64_t created = 0;
  /// OpenAI Chat: the client asked `stream_options.include_usage` (the
  /// stream ends with the usage chunk, and every chunk has `"usage":null`).
  bool include_usage = false;
  /// Anthropic: input tokens for `message_start`, when already known.
  std::int64_t input_tokens = 0;
};

/// The error tool results of a retry turn: what goes back to the model after
/// an answer that did not validate.
struct ErrorResults {
  /// The id of the call whose arguments failed; nullopt when the answer
  /// called no tool of the caller's (the errors then go back as the user's
  /// next message).
  std::optional<std::string> failed_call;
  /// The errors for that call (the writer adds "Error: " where the protocol
  /// has no error flag on a tool result).
  std::string call_errors;
  /// The errors as the user's message when `failed_call` is nullopt.
  std::string user_errors;
};

/// The reader and the writer of one wire protocol. Stateless; one instance
/// per protocol lives for the whole program (`codec_for`).
class Codec {
 public:
  virtual ~Codec() = default;
  /// The protocol this codec speaks.
  virtual Protocol protocol() const = 0;
  /// The vendor whose API this is, as OpenTelemetry's
  /// `gen_ai.provider.name` names it ("openai", "anthropic").
  virtual std::string_view vendor() const = 0;

  // --- Reading a model server's answer -------------------------------------

  /// The streaming reader; `observer` (may be null) must outlive it.
  virtual std::unique_ptr<StreamParser> reader(const StreamObserver* observer = nullptr) const = 0;
  /// Reads a whole (non-streamed) response body; an error body is an "http"
  /// error carrying the server's message.
  virtual Result<Response> read_whole(const json::Value& body) const = 0;

  // --- Writing a request ----------------------------------------------------

  /// The streaming request body for `request` (`request_body`).
  virtual json::Value request_body(const Request& request) const = 0;
  /// A tool as offered to the model: its parameters with an object root (a
  /// schema without `type` gets `"type":"object"` first; anything but an
  /// object schema becomes {"type":"object"}); an empty description is left
  /// out, never sent as "".
  virtual json::Value tool(const ToolSpec& tool) const = 0;
  /// The name of a tool in this protocol's shape (a client's own tools); ""
  /// when it has none.
  virtual std::string_view tool_name(const json::Value& tool) const = 0;
  /// The `tool_choice` that forces the tool `name`.
  virtual json::Value forced_tool_choice(std::string_view name) const = 0;
  /// Sets that choice on `body` (`tool_choice`; Gemini `toolConfig`).
  virtual void force_tool(json::Value& body, std::string_view name) const {
    body.set("tool_choice", forced_tool_choice(name));
  }
  /// Removes the tools and the tool choice from `body`.
  virtual void clear_tools(json::Value& body) const {
    body.erase("tools");
    body.erase("tool_choice");
  }
  /// Sets the provider's own constrained decoding of the answer text on
  /// `body` (OpenAI Chat `response_format`, Responses `text.format`,
  /// Anthropic `output_config.format`), keeping the body's other members of
  /// the object it lives in. The description goes with it when the protocol
  /// has a place for one and `format.description` is not empty.
  virtual void set_native_format(json::Value& body, const ResponseFormat& format) const = 0;
  /// Removes from a client's `body` what conflicts with a forced tool call or
  /// with a format weld sets: `thinking`, and the protocol's own output
  /// formats (and, for OpenAI Chat, `reasoning_effort` and the legacy
  /// `functions` / `function_call`).
  virtual void drop_forced_conflicts(json::Value& body) const = 0;
  /// Sets `stream` on a client's `body`; a streamed OpenAI Chat request asks
  /// for the usage chunk, an unstreamed one drops `stream_options`.
  virtual void set_stream(json::Value& body, bool stream) const = 0;
  /// The body's `chat_template_kwargs` object (created when absent or not an
  /// object) for protocols that have one (OpenAI Chat, as vLLM, SGLang and
  /// llama.cpp read it); nullptr for the others.
  virtual json::Value* template_kwargs(json::Value& body) const { return nullptr; }

  // --- The conversation -----------------------------------------------------

  /// The assistant's turn rebuilt from a response, in the order the server
  /// sent its parts, as a request takes it back: Anthropic the message with
  /// its content blocks (a call's `input` is its arguments parsed, or {}),
  /// OpenAI Chat the message with `content` and `tool_calls`, Responses the
  /// array of output items. The writers below that give an answer back
  /// build it with this.
  virtual json::Value assistant_turn(const Response& response) const = 0;
  /// Appends the assistant's turn of `answer` and the error tool results to
  /// `body`'s conversation: the call `results.failed_call` gets
  /// `results.call_errors`, any other call "Error: this tool call was not
  /// run."; past arguments that are not JSON objects are sent as {}.
  virtual void append_error_results(json::Value& body, const Response& answer,
                                    const ErrorResults& results) const = 0;

  /// Appends a follow-up to `body`'s conversation: the assistant's turn of
  /// `answer` when it said something, then `ask` as the user's message.
  /// Default: the conversation of OpenAI Chat and Anthropic, a `messages`
  /// array of `{role, content}` (a body without one is left as it is).
  virtual void append_follow_up(json::Value& body, const Response& answer, std::string_view ask) const;

  // --- Writing an answer for a client ---------------------------------------

  /// A deterministic id for an answer weld makes: this protocol's prefix and
  /// 24 hex digits of a hash of `seed`.
  virtual std::string answer_id(std::string_view seed) const = 0;
  /// The final answer whole: `text` as the assistant's text, stop reason
  /// "end_turn" / finish_reason "stop" / status completed, `usage`.
  virtual std::string answer(const AnswerHead& head, std::string_view text, const Usage& usage) const = 0;
  /// The opening frames of the answer as SSE.
  virtual std::string answer_stream_start(const AnswerHead& head) const = 0;
  /// Everything after the opening frames: the text in deltas of at most 512
  /// bytes, the closing frames with `usage`.
  virtual std::string answer_stream_rest(const AnswerHead& head, std::string_view text,
                                         const Usage& usage) const = 0;
  /// A frame that keeps a streaming client waiting without changing its
  /// answer (Anthropic `ping`, an SSE comment elsewhere).
  virtual std::string keepalive_frame() const = 0;
  /// A tool-calling answer given back as the server made it (its assistant
  /// turn), whole, with `usage` (summed over the attempts) and `head`'s id or,
  /// when empty, one made from the answer's text.
  virtual json::Value pass_back(const AnswerHead& head, const Response& answer, const Usage& usage) const = 0;
  /// The same as SSE frames.
  virtual std::string pass_back_stream(const AnswerHead& head, const Response& answer,
                                       const Usage& usage) const = 0;

  // --- Partial answers (docs/proxy.md "Partial answers") --------------------

  /// Whether the answer can be streamed as it is generated, in blocks that a
  /// discard voids (Anthropic content blocks, OpenAI Chat choices).
  virtual bool streams_partial() const { return false; }
  /// Opens text block `index` (OpenAI: the role chunk of choice `index`, ""
  /// for choice 0, which the opening frame has).
  virtual std::string block_start(const AnswerHead& head, int index) const { return {}; }
  /// One text delta of block `index`.
  virtual std::string block_text(const AnswerHead& head, int index, std::string_view text) const { return {}; }
  /// Closes block `index`.
  virtual std::string block_stop(const AnswerHead& head, int index) const { return {}; }
  /// Ends the message with `usage`.
  virtual std::string message_end(const AnswerHead& head, const Usage& usage) const { return {}; }
  /// Voids block `index`: `marker` appended to its text, the block closed,
  /// `event` sent (Anthropic an `event: weld.discard` frame; OpenAI one chunk
  /// with finish_reason "weld_discarded" and `weld_discard: event`).
  virtual std::string discard(const AnswerHead& head, int index, std::string_view marker,
                              const json::Value& event) const {
    return {};
  }

  // --- Errors ---------------------------------------------------------------

  /// An error body: Anthropic {"type":"error","error":{"type","message"}},
  /// OpenAI {"error":{"message","type","param":null,"code":null}};
  /// `candidate` (may be null) goes in as `error.candidate`.
  virtual json::Value error_body(std::string_view type, std::string_view message,
                                 const json::Value* candidate = nullptr) const = 0;
  /// The same error as an SSE frame for a stream already started.
  virtual std::string stream_error(std::string_view type, std::string_view message,
                                   const json::Value* candidate = nullptr) const = 0;
  /// The error type of a failure of the server behind weld ("api_error",
  /// "upstream_error").
  virtual std::string_view upstream_error_type() const = 0;
  /// The error type of a 4xx status the server behind weld answered, as this
  /// protocol names it ("authentication_error", "permission_error",
  /// "not_found_error", the rate limit's, else "invalid_request_error").
  std::string_view status_error_type(int status) const;

 protected:
  /// The error type of a 429 ("rate_limit_error", "rate_limit_exceeded").
  virtual std::string_view rate_limit_type() const = 0;
};

/// A schema with an object root, as tools and Anthropic's output format need
/// it: `"type":"object"` added first when it has no `type`; anything but an
/// object schema becomes {"type":"object"}. Validation always uses the
/// caller's own schema.
json::Value object_root(const json::Value& schema);

/// `text` in pieces of at most 512 bytes, cut between code points: the
/// deltas in which the writers stream an answer's text.
std::vector<std::string_view> text_deltas(std::string_view text);

/// The protocol a client's POST to `path` speaks: "/v1/messages" Anthropic
/// Messages, a path ending in "/chat/completions" OpenAI Chat, one ending in
/// "/responses" OpenAI Responses; nullopt for any other.
std::optional<Protocol> protocol_of_path(std::string_view path);

/// The codec of `protocol`.
const Codec& codec_for(Protocol protocol);

}  // namespace weld::provider
