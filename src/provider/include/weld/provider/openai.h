#pragma once
/// \file
/// The OpenAI Chat Completions wire protocol (also spoken by vLLM, llama.cpp,
/// Ollama, SGLang): request JSON and the streamed `chat.completion.chunk`
/// parser.

#include <memory>
#include <string>
#include <string_view>

#include "weld/json/value.h"
#include "weld/provider/model.h"
#include "weld/provider/sse.h"
#include "weld/provider/stream_parser.h"

namespace weld::provider {

/// Differences between OpenAI-compatible servers that the request respects.
struct OpenAiDialect {
  /// Send the token limit as `max_completion_tokens` (api.openai.com, whose
  /// reasoning models reject `max_tokens`) rather than `max_tokens` (what
  /// vLLM, llama.cpp, Ollama and SGLang all read).
  bool max_completion_tokens = false;
  /// Send a `top_k` (vLLM, llama.cpp, SGLang and Ollama read it;
  /// api.openai.com rejects it).
  bool top_k = false;
};

/// The dialect for a base URL: `max_completion_tokens` for api.openai.com,
/// `top_k` for every other server.
OpenAiDialect openai_dialect_for(std::string_view base_url);

/// The request body for `request` (with `"stream":true` and
/// `"stream_options":{"include_usage":true}`). Assistant tool-call arguments
/// that are not valid JSON are sent as "{}" (servers such as vLLM parse them).
///
/// \code
///   weld::json::Value body = weld::provider::openai_request_body(request);
///   std::string text = weld::json::serialize(body);
/// \endcode
json::Value openai_request_body(const Request& request, const OpenAiDialect& dialect = {});

/// `{base}/chat/completions` (a trailing slash on the base is ignored).
std::string openai_chat_url(std::string_view base_url);

/// A non-streamed `chat.completion` object as a Response (for servers that
/// answer `stream:true` with plain JSON). An `{"error":…}` body is an
/// "http" error; a body without `choices` is a "protocol" error.
Result<Response> openai_response_from_json(const json::Value& body);

/// Parses an OpenAI-style SSE stream: `choices[0].delta.content` and
/// `refusal`, `delta.tool_calls[]` fragments per `index`, `finish_reason`,
/// the usage chunk, `data: [DONE]`, in-stream `{"error":…}` objects. The
/// stream is complete once it carried a `finish_reason` or `[DONE]`.
class OpenAiStreamParser : public StreamParser {
 public:
  explicit OpenAiStreamParser(const StreamObserver* observer = nullptr) : observer_(observer) {}
  Status feed(std::string_view bytes) override;
  Result<Response> finish() override;
  bool ended() const override;
  /// Applies one decoded chunk (the JSON of one `data:` line).
  Status apply(const json::Value& chunk);

 private:
  struct Slot {
    std::int64_t index = 0;
    ToolCall call;
  };
  Slot& slot_for(const json::Value& delta_call);

  const StreamObserver* observer_;
  SseDecoder decoder_;
  std::vector<SseEvent> events_;
  Response response_;
  std::string text_;
  bool has_text_ = false;  // a content (even "") was sent, not only null
  std::vector<Slot> slots_;
  bool done_ = false;      // data: [DONE]
  bool finished_ = false;  // a finish_reason on choice 0
  bool content_seen_ = false;
  std::size_t chunks_ = 0;
};

}  // namespace weld::provider
